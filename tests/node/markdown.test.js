// The demo page's Markdown renderer (www/markdown.js): model output must never become markup
// other than the renderer's own tags.
import { test } from "node:test";
import assert from "node:assert/strict";

import { renderMarkdown } from "../../www/markdown.js";

/** Every tag in `html`, by name. */
const tags = (html) => [...html.matchAll(/<\/?([a-z0-9]+)/g)].map((m) => m[1]);
const ALLOWED = new Set(["p", "br", "strong", "em", "code", "pre", "ul", "ol", "li", "a", "blockquote", "h3", "h4", "h5", "h6"]);

const attacks = [
  "<script>alert(1)</script>",
  "<img src=x onerror=alert(1)>",
  "[click](javascript:alert(1))",
  "[click](JaVaScRiPt:alert(1))",
  '[x](https://ok.example/" onmouseover="alert(1))',
  "**<b>bold</b>**",
  "`<code>`",
  "```\n</code></pre><script>x</script>\n```",
  "> <iframe src=//evil>",
  "- <svg onload=alert(1)>",
  "https://example.com/<script>",
  "\u00000\u0000 and [a](https://a.example)",
  "<a href='javascript:x'>y</a>",
];

for (const input of attacks) {
  test(`no markup gets through: ${JSON.stringify(input)}`, () => {
    const html = renderMarkdown(input);
    for (const tag of tags(html)) assert.ok(ALLOWED.has(tag), `tag <${tag}> in ${html}`);
    assert.doesNotMatch(html, /href="(?!https?:|mailto:)/i, "only http(s) and mailto links");
    assert.doesNotMatch(html, /<[a-z]+[^>]*\son[a-z]+=/i, "no event-handler attribute");
  });
}

test("paragraphs, emphasis, code and line breaks", () => {
  assert.equal(renderMarkdown("Hello **big** and *small* `x<y`"), "<p>Hello <strong>big</strong> and <em>small</em> <code>x&lt;y</code></p>");
  assert.equal(renderMarkdown("one\ntwo\n\nthree"), "<p>one<br>two</p><p>three</p>");
});

test("lists, headings, quotes and fenced code", () => {
  assert.equal(renderMarkdown("- a\n- b"), "<ul><li>a</li><li>b</li></ul>");
  assert.equal(renderMarkdown("1. a\n2. b"), "<ol><li>a</li><li>b</li></ol>");
  assert.equal(renderMarkdown("# Title"), "<h3>Title</h3>");
  assert.equal(renderMarkdown("> quoted"), "<blockquote><p>quoted</p></blockquote>");
  assert.equal(renderMarkdown("```js\nlet a = 1 < 2;\n```"), '<pre><code class="language-js">let a = 1 &lt; 2;</code></pre>');
});

test("links keep http(s) targets only", () => {
  assert.equal(
    renderMarkdown("[docs](https://example.com/a?b=1&c=2)"),
    '<p><a href="https://example.com/a?b=1&amp;c=2" target="_blank" rel="noopener noreferrer">docs</a></p>',
  );
  assert.equal(renderMarkdown("[bad](javascript:alert(1))"), "<p>[bad](javascript:alert(1))</p>");
  assert.match(renderMarkdown("see https://example.com/x."), /<a href="https:\/\/example.com\/x"[^>]*>https:\/\/example.com\/x<\/a>\./);
});

test("snake_case words and lone asterisks stay as written", () => {
  assert.equal(renderMarkdown("call get_current_time now"), "<p>call get_current_time now</p>");
  assert.equal(renderMarkdown("2 * 3 * 4"), "<p>2 * 3 * 4</p>");
});
