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
  return chat.getSnapshot();
}

export function useChat(): GeneralChat {
  // @ts-expect-error provider mode is only in "chatstream/react"
  useGeneralChat({ provider: "anthropic" });
  return useGeneralChat({ endpoint: "/api/chat/stream" });
}
