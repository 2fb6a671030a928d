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
    case "tool_call":
      return `${event.tool}#${event.index}`;
    case "tool_input_delta":
      return event.delta;
    case "tool_progress":
      return `${event.tool}: ${event.progress ?? 0}`;
    case "tool_complete":
      return event.is_error ? "failed" : JSON.stringify(event.output);
    case "complete":
      return event.payload.text + (event.payload.thinking ?? "");
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

export function useChatTray() {
  const chat = useGeneralChat({ endpoint: "/api/chat/stream", stepTimeoutMs: 60_000, coalesce: "frame" });
  const lastError: string | null = chat.error;
  return { send: (m: string) => chat.sendMessage(m, { current_page: "reports" }), stop: chat.cancel, lastError };
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
    execute: async ({ expression }, { signal, progress }) => {
      progress({ stage: "parsing", progress: 0.5 });
      if (signal.aborted) throw new Error("cancelled");
      return { expression, value: 4 };
    },
  };
  // @ts-expect-error: a tool needs its input_schema
  const broken: Tool = { name: "broken", execute: () => null };
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
