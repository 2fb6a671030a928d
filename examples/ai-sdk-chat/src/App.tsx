import { useEffect, useState, type FormEvent } from "react";
import { chatLibrary, useAppChat, type AppChat, type ClientToolCall, type Finish } from "./chat";
import type { AppMessage, AppPart, Location } from "./messages";

// The conversation (its id and messages) is saved in the browser and loaded again on the next visit.
const storageKey = `ai-sdk-chat:${chatLibrary}`;
const saved: { id: string; messages: AppMessage[] } = JSON.parse(
  localStorage.getItem(storageKey) ?? JSON.stringify({ id: crypto.randomUUID(), messages: [] }),
);

const here: Location = { city: "Berlin", latitude: 52.52, longitude: 13.405, accuracy: "city" };

/** The page answers `getLocation` itself; `askForConfirmation` waits for the user. */
const runClientTool = (call: ClientToolCall) => (call.toolName === "getLocation" ? here : undefined);

declare global {
  interface Window {
    /** What a test reads: the chat's state and what its callbacks reported. */
    __chat?: { messages: AppMessage[]; status: string; error: string | null; finishes: Finish[]; notifications: string[] };
  }
}

export function App() {
  const [finishes, setFinishes] = useState<Finish[]>([]);
  const [notifications, setNotifications] = useState<string[]>([]);
  const chat = useAppChat({
    id: saved.id,
    messages: saved.messages,
    runClientTool,
    onFinish: (finish) => setFinishes((all) => [...all, finish]),
    onData: (part) => {
      if (part.type === "data-notification") setNotifications((all) => [...all, (part.data as { message: string }).message]);
    },
  });
  const [draft, setDraft] = useState("");
  const busy = chat.status === "submitted" || chat.status === "streaming";

  useEffect(() => {
    if (!busy) localStorage.setItem(storageKey, JSON.stringify({ id: saved.id, messages: chat.messages }));
  }, [busy, chat.messages]);

  useEffect(() => {
    window.__chat = { messages: chat.messages, status: chat.status, error: chat.error?.message ?? null, finishes, notifications };
  }, [chat.messages, chat.status, chat.error, finishes, notifications]);

  function submit(event: FormEvent) {
    event.preventDefault();
    if (!draft.trim() || busy) return;
    void chat.sendMessage(draft);
    setDraft("");
  }

  return (
    <main>
      <h1>AI SDK chat</h1>
      <p className="library">
        on <code>{chatLibrary === "chatstream" ? "useGeneralChat" : "useChat"}</code>
      </p>
      <section id="messages">
        {chat.messages.map((message) => (
          <Message key={message.id} message={message} chat={chat} />
        ))}
      </section>
      {notifications.length > 0 && <p id="notification">{notifications.at(-1)}</p>}
      {chat.error && (
        <p id="error" role="alert">
          {chat.error.message} <button onClick={() => void chat.regenerate()}>Retry</button>
        </p>
      )}
      <form onSubmit={submit}>
        <input id="input" value={draft} onChange={(e) => setDraft(e.target.value)} placeholder="Say something" />
        <button id="send" disabled={busy}>
          Send
        </button>
        <button id="stop" type="button" hidden={!busy} onClick={() => void chat.stop()}>
          Stop
        </button>
      </form>
    </main>
  );
}

function Message({ message, chat }: { message: AppMessage; chat: AppChat }) {
  const forget = () => chat.setMessages((messages) => messages.filter((m) => m.id !== message.id));
  return (
    <article className={`message ${message.role}`} data-id={message.id}>
      {message.parts.map((part, i) => (
        <Part key={i} part={part} chat={chat} />
      ))}
      <footer>
        {message.metadata?.totalTokens !== undefined && <span className="tokens">{message.metadata.totalTokens} tokens</span>}
        {message.role === "assistant" && (
          <button className="regenerate" onClick={() => void chat.regenerate(message.id)}>
            Regenerate
          </button>
        )}
        <button className="forget" onClick={forget}>
          Forget
        </button>
      </footer>
    </article>
  );
}

function Part({ part, chat }: { part: AppPart; chat: AppChat }) {
  switch (part.type) {
    case "text":
      return <p className="text">{part.text}</p>;
    case "reasoning":
      return (
        <details className="reasoning">
          <summary>Reasoning</summary>
          {part.text}
        </details>
      );
    case "source-url":
      return (
        <a className="source" href={part.url}>
          {part.title ?? part.url}
        </a>
      );
    case "source-document":
      return <p className="source">{part.filename ? `${part.title} (${part.filename})` : part.title}</p>;
    case "file":
      return (
        <a className="file" href={part.url} download={part.filename ?? true}>
          {part.filename ?? part.mediaType}
        </a>
      );
    case "data-weather":
      return <p className="data">{`${part.data.city}: ${part.data.status}`}</p>;
    case "tool-getWeather":
    case "tool-getLocation":
    case "tool-deleteFile":
    case "tool-askForConfirmation":
      return <ToolCard part={part} chat={chat} />;
    default:
      return null;
  }
}

type ToolPart = Extract<AppPart, { type: `tool-${string}` }>;

function ToolCard({ part, chat }: { part: ToolPart; chat: AppChat }) {
  const answer = (output: string) =>
    void chat.addToolOutput({ tool: "askForConfirmation", toolCallId: part.toolCallId, output });
  const decide = (approved: boolean) => () =>
    part.state === "approval-requested" && void chat.addToolApprovalResponse({ id: part.approval.id, approved });
  return (
    <div className="tool-card" data-tool={part.type.slice("tool-".length)} data-state={part.state}>
      <strong>{part.type.slice("tool-".length)}</strong> <span className="state">{part.state}</span>
      {part.type === "tool-askForConfirmation" && part.state === "input-available" && (
        <p>
          {part.input.message} <button onClick={() => answer("Yes, confirmed.")}>Yes</button>{" "}
          <button onClick={() => answer("No, denied.")}>No</button>
        </p>
      )}
      {part.state === "approval-requested" && (
        <p>
          Allow this? <button onClick={decide(true)}>Approve</button> <button onClick={decide(false)}>Deny</button>
        </p>
      )}
      {part.state === "output-available" && <pre>{JSON.stringify(part.output)}</pre>}
      {part.state === "output-error" && <p className="tool-error">{part.errorText}</p>}
    </div>
  );
}
