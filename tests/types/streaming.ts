// chatstream/streaming: the same API, typed; provider mode's options are not accepted.
import init, { ChatSession, streamEvents, type ChatState, type StreamEvent } from "chatstream/streaming";
import { useGeneralChat, type GeneralChat } from "chatstream/streaming/react";

export async function read(response: Response): Promise<ChatState> {
  await init();
  for await (const event of streamEvents(response, { dialect: "openai" })) {
    const seen: StreamEvent = event;
    if (seen.type === "error") throw new Error(seen.message);
  }
  const chat = new ChatSession({ endpoint: "/api/chat/stream", headers: () => ({ authorization: "Bearer t" }) });
  // @ts-expect-error provider mode is only in "chatstream"
  new ChatSession({ provider: "openai", model: "gpt-4o" });
  // Options built elsewhere, not only object literals: provider mode's are refused there too.
  const shared = { endpoint: "/api/chat/stream", provider: "openai" as const, model: "gpt-4o" };
  // @ts-expect-error provider mode is only in "chatstream"
  new ChatSession(shared);
  const withTools = { endpoint: "/api/chat/stream", tools: [{ name: "search", execute: () => "found" }] };
  // @ts-expect-error tools run in provider mode only
  new ChatSession(withTools);
  return chat.getSnapshot();
}

export function useChat(): GeneralChat {
  // @ts-expect-error provider mode is only in "chatstream/react"
  useGeneralChat({ provider: "anthropic" });
  const options = { endpoint: "/api/chat/stream", provider: "anthropic" as const };
  // @ts-expect-error nor from options built elsewhere
  useGeneralChat(options);
  return useGeneralChat({ endpoint: "/api/chat/stream" });
}
