import { useState, type FormEvent } from "react";
import type { ChatMessage, Segment } from "chatstream";
import { useGeneralChat } from "chatstream/react";

export function App() {
  const chat = useGeneralChat({ endpoint: "/api/chat/stream" });
  const [draft, setDraft] = useState("");

  function submit(event: FormEvent) {
    event.preventDefault();
    if (!draft.trim() || chat.isLoading) return;
    void chat.sendMessage(draft, { current_page: "example" }); // resolves when answered; the state shows it all
    setDraft("");
  }

  return (
    <main>
      <h1>chatstream · Vite + React</h1>
      <section id="messages">
        {chat.messages.map((message, i) => (
          <Message key={i} message={message} />
        ))}
        {chat.isLoading && (
          <article id="streaming" className="message assistant">
            {chat.streamingSegments.length === 0 && <p className="status">{chat.statusText ?? "Thinking…"}</p>}
            <Segments segments={chat.streamingSegments} />
            {chat.activeToolProgress && (
              <p className="status">{chat.activeToolProgress.updates.at(-1)?.message ?? chat.activeToolProgress.toolName}</p>
            )}
          </article>
        )}
      </section>
      {chat.error && (
        <p id="error" role="alert">
          {chat.errorCode ? `${chat.errorCode}: ` : ""}
          {chat.error}
        </p>
      )}
      <form onSubmit={submit}>
        <input id="input" value={draft} onChange={(e) => setDraft(e.target.value)} placeholder="Ask something" />
        <button id="send" disabled={!chat.ready || chat.isLoading}>
          {chat.ready ? "Send" : "Loading…"}
        </button>
        <button id="stop" type="button" hidden={!chat.isLoading} onClick={chat.cancel}>
          Stop
        </button>
      </form>
    </main>
  );
}

function Message({ message }: { message: ChatMessage }) {
  return (
    <article className={`message ${message.role}${message.cancelled ? " cancelled" : ""}`}>
      {message.segments ? <Segments segments={message.segments} /> : <p className="text">{message.content}</p>}
    </article>
  );
}

/** Text and tool cards in the order they came: the same for a message being streamed and a finished one. */
function Segments({ segments }: { segments: readonly Segment[] }) {
  return segments.map((segment, i) =>
    segment.type === "text" ? (
      <p key={i} className="text">
        {segment.text}
      </p>
    ) : (
      <details key={i} className="tool-card">
        <summary>{segment.tool ?? "tool"}</summary>
        <pre>{JSON.stringify({ input: segment.input, output: segment.output }, null, 2)}</pre>
      </details>
    ),
  );
}
