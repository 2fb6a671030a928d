// Compiled with `tsc --strict` by the test suite: the declarations must type real usage.
import init, {
  ChatSession,
  ChatStream,
  streamEvents,
  resolveToolMarkers,
  parseLlmResponse,
  type ChatState,
  type StreamEvent,
  type ToolRecord,
  type ParsedResponse,
  type Tool,
  type ChatSessionOptions,
  ChatstreamError,
  type ErrorCode,
  type StoredMessage,
} from "chatstream";
import { useGeneralChat } from "chatstream/react";

export async function render(response: Response): Promise<string> {
  await init();
  let text = "";
  for await (const event of streamEvents(response, { dialect: "auto", idleTimeoutMs: 30_000 })) {
    text += describe(event);
  }
  return text;
}

/** Exhaustive over the union: adding an event type without handling it fails to compile. */
export function describe(event: StreamEvent): string {
  switch (event.type) {
    case "status":
      return event.message;
    case "text_delta":
    case "thinking_delta":
      return event.text;
    case "tool_start":
      return `${event.tool}#${event.index}`;
    case "tool_call":
      return event.incomplete ? `${event.tool} (cut: ${event.arguments ?? ""})` : `${event.tool}#${event.index}`;
    case "tool_input_delta":
      return event.delta;
    case "tool_progress":
      return `${event.tool}: ${event.progress ?? 0}`;
    case "tool_complete":
      return event.is_error ? "failed" : JSON.stringify(event.output);
    case "data":
      return JSON.stringify(event.data);
    case "complete":
      return event.payload.text + (event.payload.thinking ?? "") + (event.payload.finish_reason === "length" ? " (cut)" : "");
    case "error":
      return `${event.code}: ${event.message}`;
    case "cancelled":
      return "stopped";
    default: {
      const never: never = event;
      return never;
    }
  }
}

export function pushBytes(bytes: Uint8Array): StreamEvent[] {
  const stream = new ChatStream({ dialect: "openai", payloadMarkers: [{ marker: "QUERY_SUGGESTION:", type: "query_suggestion" }] });
  return [...stream.push(bytes), ...stream.finish()];
}

export function watch(session: ChatSession): () => void {
  return session.subscribe(() => {
    const state: ChatState = session.getSnapshot();
    if (state.error) console.log(state.error.code, state.error.message);
    for (const segment of state.streamingSegments) {
      if (segment.type === "tool") console.log(segment.tool, segment.output);
    }
  });
}

export function useChatTray(token: string) {
  const chat = useGeneralChat({
    endpoint: "/api/chat/stream",
    stepTimeoutMs: 60_000,
    coalesce: "frame",
    headers: async () => ({ authorization: `Bearer ${token}` }),
    body: { user: "u1" },
    onFinish: (message) => console.log(message.id, message.parts.length),
    onError: (error) => console.log(error.code),
    onData: (data) => console.log(data),
  });
  const lastError: string | null = chat.error;
  const rows = chat.messages.map((m) => ({
    key: m.id,
    parts: m.parts.map((part) => {
      switch (part.type) {
        case "text":
        case "reasoning":
          return part.text;
        case "tool":
          return `${part.tool} ${part.state}`;
        case "data":
          return JSON.stringify(part.data);
      }
    }),
  }));
  const live = chat.streamingParts.length + chat.streamingSegments.length;
  const approval = chat.pendingApproval ? () => chat.approve(chat.pendingApproval!.tool_use_id) : null;
  const ready: boolean = chat.ready;
  return {
    ready,
    rows,
    live,
    approval,
    send: (m: string) => chat.sendMessage(m, { current_page: "reports" }),
    again: chat.regenerate,
    stop: chat.stop,
    dismiss: chat.clearError,
    reset: () => chat.setMessages([{ role: "user", content: "hi" }, { role: "assistant", parts: [{ type: "text", text: "Hello." }] }]),
    deny: (id: string) => chat.deny(id, "not now"),
    lastError,
  };
}

export function useSharedSession(session: ChatSession) {
  return useGeneralChat({ session }).messages.length;
}

export function storedMessage(content: string, history: ToolRecord[]): string {
  const parsed: ParsedResponse = parseLlmResponse(content, { startsInThinking: false });
  return resolveToolMarkers(parsed.message, history)
    .map((s) => (s.type === "text" ? s.text : `[${s.tool ?? "tool"}]`))
    .join("") + (parsed.thinking ?? "");
}

export function providerChat(): ChatSession {
  const calculator: Tool<{ expression: string }> = {
    name: "calculate",
    description: "Evaluates arithmetic",
    input_schema: { type: "object", properties: { expression: { type: "string" } }, required: ["expression"] },
    needsApproval: true,
    execute: async ({ expression }, { signal, progress }) => {
      progress({ stage: "parsing", progress: 0.5 });
      if (signal.aborted) throw new Error("cancelled");
      return { expression, value: 4 };
    },
  };
  // A tool that takes no input may leave its input_schema out; not its name.
  const clock: Tool = { name: "clock", execute: () => Date.now() };
  // @ts-expect-error: a tool needs its name
  const broken: Tool = { execute: () => null };
  void clock;
  void broken;
  const options: ChatSessionOptions = {
    provider: "anthropic",
    model: "claude-sonnet-4-5",
    system: "Use tools for arithmetic.",
    thinking: true,
    thinkingBudget: 2048,
    tools: [calculator],
    maxIterations: 3,
    toolTimeoutMs: 10_000,
  };
  return new ChatSession(options);
}

// Stored messages: text in `content` or in `parts` (the AI SDK's UI messages), or a turn that only
// called tools; the runtime refuses a message with none of them, and any role but these two.
export const stored: StoredMessage[] = [
  { id: "u1", role: "user", parts: [{ type: "text", text: "Weather in Paris?" }] },
  { role: "assistant", content: null, tool_history: [{ tool_name: "weather", input: { city: "Paris" }, output: "sunny" }] },
  { role: "assistant", content: "Sunny." },
];
// @ts-expect-error a message with no text: a TypeError at runtime
export const empty: StoredMessage = { id: "m2", role: "assistant", content: null };
// @ts-expect-error nor may `content` be left out without parts
export const bare: StoredMessage = { role: "user" };
// @ts-expect-error only "user" and "assistant" are read
export const system: StoredMessage = { role: "system", content: "Be brief." };

/** A refusal for the chat's state (CONFLICT) carries its code. */
export function replace(chat: ChatSession, messages: StoredMessage[]): ErrorCode | null {
  try {
    chat.setMessages(messages);
    return null;
  } catch (error) {
    if (error instanceof ChatstreamError) return error.code;
    throw error;
  }
}
