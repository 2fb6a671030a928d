// A small Markdown renderer for model output. Safety comes first: every character of the input is
// HTML-escaped before any formatting is recognised, and the only markup that comes out is the tags
// written below, so model output can never inject HTML, attributes or script URLs. Links keep only
// http(s) and mailto targets.
//
// Covered: paragraphs, line breaks, # headings, fenced and inline code, **bold**, *em* / _em_,
// - / * / 1. lists, > quotes, [text](url) links and bare http(s) URLs.

const ESCAPES = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

export function escapeHtml(text) {
  return String(text).replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

/** Returns HTML for `markdown`: only the renderer's own tags, all input text escaped. */
export function renderMarkdown(markdown) {
  // NUL is the placeholder for links below; model text never needs it.
  const lines = String(markdown ?? "").replace(/\u0000/g, "").replace(/\r\n?/g, "\n").split("\n");
  const out = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    const fence = line.match(/^\s*(```|~~~)\s*([\w+-]*)\s*$/);
    if (fence) {
      const body = [];
      i++;
      while (i < lines.length && !lines[i].trim().startsWith(fence[1])) body.push(lines[i++]);
      i++; // the closing fence (or the end: an unterminated fence still renders as code)
      const lang = fence[2] ? ` class="language-${escapeHtml(fence[2])}"` : "";
      out.push(`<pre><code${lang}>${escapeHtml(body.join("\n"))}</code></pre>`);
      continue;
    }
    if (!line.trim()) {
      i++;
      continue;
    }
    const heading = line.match(/^(#{1,6})\s+(.*)$/);
    if (heading) {
      const level = Math.min(heading[1].length + 2, 6); // inside a chat bubble: h3 at most
      out.push(`<h${level}>${inline(heading[2])}</h${level}>`);
      i++;
      continue;
    }
    if (/^\s*>/.test(line)) {
      const body = [];
      while (i < lines.length && /^\s*>/.test(lines[i])) body.push(lines[i++].replace(/^\s*>\s?/, ""));
      out.push(`<blockquote>${renderMarkdown(body.join("\n"))}</blockquote>`);
      continue;
    }
    const item = listItem(line);
    if (item) {
      const tag = item.ordered ? "ol" : "ul";
      const items = [];
      while (i < lines.length) {
        const next = listItem(lines[i]);
        if (!next || next.ordered !== item.ordered) break;
        items.push(`<li>${inline(next.text)}</li>`);
        i++;
      }
      out.push(`<${tag}>${items.join("")}</${tag}>`);
      continue;
    }
    const para = [];
    while (i < lines.length && lines[i].trim() && !startsBlock(lines[i])) para.push(lines[i++]);
    out.push(`<p>${para.map(inline).join("<br>")}</p>`);
  }
  return out.join("");
}

function listItem(line) {
  const m = line.match(/^\s*(?:([-*+])|(\d{1,9})[.)])\s+(.*)$/);
  return m && { ordered: !m[1], text: m[3] };
}

function startsBlock(line) {
  return /^\s*(```|~~~)/.test(line) || /^#{1,6}\s/.test(line) || /^\s*>/.test(line) || listItem(line) !== null;
}

/** Inline formatting of one line: code spans first (their content is literal), then the rest. */
function inline(text) {
  return text
    .split(/(`[^`]+`)/)
    .map((part, i) => (i % 2 ? `<code>${escapeHtml(part.slice(1, -1))}</code>` : emphasis(part)))
    .join("");
}

function emphasis(text) {
  const links = [];
  // Links are taken out before escaping so their URL can be checked as written, then put back.
  let s = text.replace(/\[([^\]]+)\]\(([^)\s]+)\)/g, (whole, label, url) => {
    const href = safeUrl(url);
    if (!href) return whole;
    links.push(`<a href="${escapeHtml(href)}" target="_blank" rel="noopener noreferrer">${escapeHtml(label)}</a>`);
    return `\u0000${links.length - 1}\u0000`;
  });
  s = s.replace(/\bhttps?:\/\/[^\s<>"'\u0000]+[^\s<>"'\u0000.,;:!?)]/g, (url) => {
    links.push(`<a href="${escapeHtml(url)}" target="_blank" rel="noopener noreferrer">${escapeHtml(url)}</a>`);
    return `\u0000${links.length - 1}\u0000`;
  });
  s = escapeHtml(s)
    .replace(/\*\*(?=\S)([^*]*?\S)\*\*/g, "<strong>$1</strong>")
    .replace(/__(?=\S)([^_]*?\S)__/g, "<strong>$1</strong>")
    .replace(/(^|[^*\w])\*(?=\S)([^*]*?\S)\*(?!\w)/g, "$1<em>$2</em>")
    .replace(/(^|[^_\w])_(?=\S)([^_]*?\S)_(?!\w)/g, "$1<em>$2</em>");
  return s.replace(/\u0000(\d+)\u0000/g, (_, n) => links[Number(n)]);
}

function safeUrl(url) {
  try {
    const parsed = new URL(url);
    return ["http:", "https:", "mailto:"].includes(parsed.protocol) ? parsed.href : null;
  } catch {
    return null;
  }
}
