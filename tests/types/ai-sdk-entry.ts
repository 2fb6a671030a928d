// Compiled with `tsc --strict` by the test suite: chatstream/ai-sdk types a useChat app's code with
// its own message types, and refuses what its module has not (the runtime throws there too:
// tests/node/ai-sdk-entry.test.js).
import init, {
  AiSdkChat,
  ChatSession,
  lastAssistantMessageIsCompleteWithToolCalls,
  type UIMessage,
} from "chatstream/ai-sdk";
import { useGeneralChat, type UseChatHelpers } from "chatstream/ai-sdk/react";
// @ts-expect-error: no ChatStream in this entry
import { ChatStream } from "chatstream/ai-sdk";

type AppMessage = UIMessage<{ model?: string }, { weather: { city: string } }, { getLocation: { input: Record<string, never>; output: { city: string } } }>;

export function useAppChat(): UseChatHelpers<AppMessage> {
  const chat = useGeneralChat<AppMessage>({
    backend: "ai-sdk",
    api: "/api/chat",
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithToolCalls,
    onToolCall({ toolCall }) {
      if (!toolCall.dynamic && toolCall.toolName === "getLocation") {
        void chat.addToolOutput({ tool: "getLocation", toolCallId: toolCall.toolCallId, output: { city: "Berlin" } });
      }
    },
  });
  return chat;
}

export async function outsideReact(): Promise<string | undefined> {
  await init();
  const chat: AiSdkChat<AppMessage> = new ChatSession<AppMessage>({ backend: "ai-sdk", api: "/api/chat" });
  await chat.sendMessage({ text: "hello" });
  return chat.messages.at(-1)?.metadata?.model;
}

export function refused() {
  // @ts-expect-error: only the AI SDK backend mode in this entry
  new ChatSession({ endpoint: "/api/chat/stream" });
  // @ts-expect-error: only the AI SDK backend mode in this entry
  useGeneralChat({ endpoint: "/api/chat/stream" });
  return ChatStream;
}
