// The demo chat page: a ChatTray built on the chatstream package, no build step.
//
// Everything on screen is drawn from ChatSession's snapshot (subscribe / getSnapshot): the page
// keeps no chat state of its own, only which <details> the user opened.
//
// A reload mid answer loses nothing: the mode, the conversation and the answer in flight (the URL
// the proxy keeps it at) are saved for this tab on every change, and picked up when the page loads.
import init, { ChatSession, resolveToolMarkers } from "/pkg/index.js";
import { renderMarkdown, escapeHtml } from "./markdown.js";
import { loadModes } from "./modes.js";

const $ = (id) => document.getElementById(id);
const log = $("log");
const input = $("input");

/** Errors the user can retry: the request may work the second time. */
const RETRYABLE = new Set(["NETWORK_ERROR", "SERVICE_UNAVAILABLE", "RATE_LIMITED"]);

let session = null;
let unsubscribe = () => {};
let shown = null; // the snapshot on screen
const openCards = new Set(); // "<message>:<tool index>" of the tool cards the user opened
let thinkingOpen = false;
let mode = null; // the mode of the conversation on screen
let savedStream = null; // the answer in flight as last saved
const SAVED = "chatstream-demo"; // the sessionStorage key

await init();
const MODES = await loadModes();
fillPicker();
wireControls();
input.disabled = false;
const saved = restore();
start(MODES.find((m) => m.id === saved?.mode) ?? MODES[0], saved);

function fillPicker() {
  const picker = $("provider");
  for (const mode of MODES) picker.add(new Option(mode.label, mode.id));
  picker.addEventListener("change", () => start(MODES.find((m) => m.id === picker.value)));
}

/** A conversation with `chosen`'s backend: a new one, or the one saved before a reload. */
function start(chosen, saved = null) {
  unsubscribe();
  session?.dispose();
  mode = chosen;
  $("provider").value = mode.id;
  session = new ChatSession({ ...mode.options, coalesce: "frame" });
  unsubscribe = session.subscribe(render);
  shown = null;
  openCards.clear();
  if (saved) {
    try {
      session.loadMessages(saved.messages);
      // The answer the proxy still keeps comes again from its start; one it forgot is an error shown.
      if (saved.stream) session.resume(saved.stream);
    } catch {
      // Saved by another version of the page: a new conversation.
    }
  }
  render();
  input.focus();
}

/** What the tab saved before a reload, if it can be read. */
function restore() {
  try {
    const saved = JSON.parse(sessionStorage.getItem(SAVED));
    return typeof saved?.messages === "string" ? saved : null;
  } catch {
    return null; // nothing saved, or storage is off: a new conversation
  }
}

function save(stream) {
  savedStream = stream;
  try {
    sessionStorage.setItem(SAVED, JSON.stringify({ mode: mode.id, messages: session.saveMessages(), stream }));
  } catch {
    // Storage full or off: the page works on, a reload starts over.
  }
}

function send(text) {
  session.send(text);
}

function wireControls() {
  $("composer").addEventListener("submit", (event) => {
    event.preventDefault();
    if (session.getSnapshot().isLoading) return;
    const text = input.value;
    send(text.trim());
    // An empty message is refused (VALIDATION_ERROR in the banner); anything else leaves the box.
    if (text.trim()) input.value = "";
    input.focus();
  });
  input.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      $("composer").requestSubmit();
    }
  });
  $("stop").addEventListener("click", () => {
    session.stop();
    input.focus();
  });
  // Retry asks the last question again, with no copy of it and no error left behind.
  $("retry").addEventListener("click", () => session.regenerate());
  $("dismiss").addEventListener("click", () => session.clearError());
  for (const button of document.querySelectorAll(".example")) {
    button.addEventListener("click", () => send(button.textContent));
  }
  // Clicks inside the log: suggested values, actions, and the open state of tool cards.
  log.addEventListener("click", (event) => {
    const chip = event.target.closest(".chip");
    if (chip) return send(chip.dataset.value);
    if (event.target.closest(".regenerate")) return session.regenerate();
    const approval = event.target.closest("[data-approve], [data-deny]");
    if (approval?.dataset.approve) return session.approve(approval.dataset.approve);
    if (approval?.dataset.deny) return session.deny(approval.dataset.deny, "The user said no.");
    const action = event.target.closest(".action");
    if (action) return runAction(JSON.parse(action.dataset.action));
  });
  log.addEventListener(
    "toggle",
    (event) => {
      const card = event.target;
      if (card.classList?.contains("tool-card")) {
        if (card.open) openCards.add(card.dataset.key);
        else openCards.delete(card.dataset.key);
      } else if (card.classList?.contains("live-thinking")) {
        thinkingOpen = card.open;
      }
    },
    true,
  );
}

/**
 * Suggested actions: `client` actions run here; `server` actions go back to the backend as a
 * message whose context names the action (the request carries `context`).
 */
function runAction(action) {
  if (action.handler === "server") {
    session.send(action.label, { action: action.action, data: action.data ?? null });
    return;
  }
  if (action.action === "close_chat") {
    start(MODES.find((m) => m.id === $("provider").value));
    return;
  }
  notice(`Client action "${action.action}" ran in the page.`);
}

function notice(text) {
  const p = document.createElement("p");
  p.className = "notice";
  p.textContent = text;
  $("messages").append(p);
}

// --- rendering -------------------------------------------------------------------------------

function render() {
  const state = session.getSnapshot();
  if (state === shown) return;
  const stream = session.streamInFlight();
  if (state.messages !== shown?.messages || stream !== savedStream) save(stream);
  const stickToBottom = log.scrollHeight - log.scrollTop - log.clientHeight < 80;
  if (state.messages !== shown?.messages) renderMessages(state);
  else if (state.isLoading !== shown?.isLoading) renderMessages(state); // chips come and go with loading
  renderStreaming(state);
  renderError(state);
  $("empty").hidden = state.messages.length > 0 || state.isLoading;
  $("send").disabled = state.isLoading;
  $("stop").hidden = !state.isLoading;
  log.setAttribute("aria-busy", String(state.isLoading));
  shown = state;
  if (stickToBottom) log.scrollTop = log.scrollHeight;
}

function renderMessages(state) {
  const lastAssistant = state.messages.findLastIndex((m) => m.role === "assistant");
  const html = state.messages.map((message, i) => {
    if (message.role === "user") return `<div class="bubble user">${escapeHtml(message.content)}</div>`;
    const segments = message.segments?.length
      ? message.segments
      : resolveToolMarkers(message.content, message.tool_history ?? []);
    const offerChoices = i === lastAssistant && i === state.messages.length - 1 && !state.isLoading;
    return `<div class="bubble assistant" data-role="assistant">
      ${message.thinking ? thinkingSection(message.thinking, false) : ""}
      ${segments.map((s) => (s.type === "text" ? renderMarkdown(s.text) : toolCard(s, `${i}:${s.index}`))).join("")}
      ${message.cancelled ? `<p class="stopped">Stopped</p>` : ""}
      ${message.finish_reason === "length" ? `<p class="stopped">Cut short by the token limit</p>` : ""}
      ${offerChoices ? choices(message) + `<button type="button" class="regenerate">Regenerate</button>` : ""}
    </div>`;
  });
  $("messages").innerHTML = html.join("");
}

function renderStreaming(state) {
  const area = $("streaming");
  area.hidden = !state.isLoading;
  if (!state.isLoading) {
    area.innerHTML = "";
    thinkingOpen = false;
    return;
  }
  const parts = [];
  const answered = state.streamingSegments.length > 0;
  if (!answered) {
    // Before any text: the gray "Thinking..." bubble, with what the model thinks, collapsible.
    parts.push(`<div class="bubble thinking-indicator" data-state="thinking">
      ${escapeHtml(state.statusText ?? "Thinking...")}<span class="dots" aria-hidden="true"><span></span><span></span><span></span></span>
      ${state.thinkingText ? thinkingSection(state.thinkingText, thinkingOpen, "live-thinking") : ""}
    </div>`);
  } else {
    const body = state.streamingSegments
      .map((s) =>
        s.type === "text" ? `<span class="streaming-text">${escapeHtml(s.text)}</span>` : toolCard(s, `live:${s.index}`),
      )
      .join("");
    parts.push(`<div class="bubble assistant" data-state="streaming">
      ${state.thinkingText ? thinkingSection(state.thinkingText, thinkingOpen, "live-thinking") : ""}
      ${body}<span class="dots" aria-label="still writing"><span></span><span></span><span></span></span>
    </div>`);
  }
  const approval = state.pendingApproval;
  const progress = state.activeToolProgress;
  if (approval) {
    const id = escapeHtml(approval.tool_use_id);
    parts.push(`<div class="approval" role="group" aria-label="Approve the tool call">
      <span><strong>${escapeHtml(approval.tool)}</strong> wants to run with
      <code>${escapeHtml(JSON.stringify(approval.input))}</code></span>
      <button type="button" class="primary" data-approve="${id}">Approve</button>
      <button type="button" data-deny="${id}">Deny</button></div>`);
  } else if (progress) {
    const last = progress.updates.at(-1);
    const detail = last?.message ?? "Running…";
    const percent = typeof last?.progress === "number" ? ` (${Math.round(last.progress * 100)}%)` : "";
    parts.push(`<div class="tool-progress" role="status"><span class="spinner" aria-hidden="true"></span>
      <span><strong>${escapeHtml(progress.toolName)}</strong> · ${escapeHtml(detail)}${percent}</span></div>`);
  } else if (answered && state.statusText) {
    parts.push(`<p class="status">${escapeHtml(state.statusText)}</p>`);
  }
  area.innerHTML = parts.join("");
}

function thinkingSection(text, open, extraClass = "") {
  return `<details class="thinking ${extraClass}"${open ? " open" : ""}>
    <summary>Thinking</summary><div>${escapeHtml(text)}</div></details>`;
}

/** An inline tool card in place of `[[tool:N]]`: collapsed, input and output when opened. */
function toolCard(segment, key) {
  const name = segment.tool ?? `tool ${segment.index}`;
  const pending = segment.output === null || segment.output === undefined;
  const output = typeof segment.output === "string" ? segment.output : JSON.stringify(segment.output, null, 2);
  return `<details class="tool-card" data-key="${escapeHtml(key)}" data-error="${segment.is_error === true}"${
    openCards.has(key) ? " open" : ""
  }>
    <summary>Tool · ${escapeHtml(name)}${segment.is_error ? " (failed)" : ""}</summary>
    <div class="io">
      <div>Input</div><pre>${escapeHtml(JSON.stringify(segment.input ?? null, null, 2))}</pre>
      <div>Output</div><pre>${pending ? "…" : escapeHtml(output)}</pre>
    </div>
  </details>`;
}

function choices(message) {
  const values = Array.isArray(message.suggested_values) ? message.suggested_values : [];
  const actions = Array.isArray(message.suggested_actions) ? message.suggested_actions : [];
  const chips = values
    .filter((v) => v && (v.value ?? v.label))
    .map((v) => {
      const value = String(v.value ?? v.label);
      return `<button type="button" class="chip" data-value="${escapeHtml(value)}">${escapeHtml(String(v.label ?? value))}</button>`;
    });
  const buttons = actions
    .filter((a) => a && a.label)
    .map(
      (a) =>
        `<button type="button" class="action ${a.style === "primary" ? "primary" : ""}" data-action="${escapeHtml(
          JSON.stringify(a),
        )}">${escapeHtml(String(a.label))}</button>`,
    );
  return (
    (chips.length ? `<div class="chips" aria-label="Suggested replies">${chips.join("")}</div>` : "") +
    (buttons.length ? `<div class="actions" aria-label="Suggested actions">${buttons.join("")}</div>` : "")
  );
}

function renderError(state) {
  const error = state.error;
  const banner = $("error-banner");
  if (!error) {
    banner.hidden = true;
    return;
  }
  banner.hidden = false;
  banner.dataset.code = error.code;
  $("error-text").textContent = `${error.message} (${error.code})`;
  const last = state.messages.at(-1);
  $("retry").hidden = state.isLoading || !RETRYABLE.has(error.code) || last?.role !== "user";
}
