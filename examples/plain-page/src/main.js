// A chat on a plain page: ChatSession without a framework. The same file is bundled by webpack
// (dist/webpack/) and by esbuild (dist/esbuild/).
import init, { ChatSession } from "chatstream";

document.querySelector("main").innerHTML = `
  <h1>chatstream · plain page</h1>
  <section id="messages"></section>
  <p id="error" role="alert" hidden></p>
  <form>
    <input id="input" placeholder="Ask something" />
    <button id="send" disabled>Loading…</button>
    <button id="stop" type="button" hidden>Stop</button>
  </form>`;
const [messages, error, form, input, send, stop] = ["#messages", "#error", "form", "#input", "#send", "#stop"].map(
  (selector) => document.querySelector(selector),
);

// The page is already painted; the module loads meanwhile. init() is idempotent (concurrent calls
// share one download), so any code that needs the module can `await init()` without coordinating.
let session = null;
init().then(
  () => {
    session = new ChatSession({ endpoint: "/api/chat/stream", coalesce: "frame" });
    session.subscribe(() => render(session.getSnapshot()));
    render(session.getSnapshot());
  },
  (reason) => showError(`chatstream could not load: ${reason.message}`),
);

form.addEventListener("submit", (event) => {
  event.preventDefault();
  if (!session || !input.value.trim()) return;
  session.send(input.value, { current_page: "example" });
  input.value = "";
});
stop.addEventListener("click", () => session.cancel());

function render(state) {
  send.disabled = state.isLoading;
  send.textContent = "Send";
  stop.hidden = !state.isLoading;
  showError(state.error && `${state.error.code}: ${state.error.message}`);
  const bubbles = state.messages.map((message) => {
    const bubble = element("article", `message ${message.role}${message.cancelled ? " cancelled" : ""}`);
    bubble.append(...segments(message.segments ?? [{ type: "text", text: message.content }]));
    return bubble;
  });
  if (state.isLoading) {
    const streaming = element("article", "message assistant");
    streaming.id = "streaming";
    if (state.streamingSegments.length === 0) streaming.append(element("p", "status", state.statusText ?? "Thinking…"));
    streaming.append(...segments(state.streamingSegments));
    const progress = state.activeToolProgress;
    if (progress) streaming.append(element("p", "status", progress.updates.at(-1)?.message ?? progress.toolName));
    bubbles.push(streaming);
  }
  messages.replaceChildren(...bubbles);
}

/** Text and tool cards in the order they came: the same for a message being streamed and a finished one. */
function segments(list) {
  return list.map((segment) => {
    if (segment.type === "text") return element("p", "text", segment.text);
    const card = element("details", "tool-card");
    card.append(
      element("summary", "", segment.tool ?? "tool"),
      element("pre", "", JSON.stringify({ input: segment.input, output: segment.output }, null, 2)),
    );
    return card;
  });
}

function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function showError(message) {
  error.hidden = !message;
  error.textContent = message ?? "";
}
