// Compiled with `tsc --strict` by the test suite: the AI SDK backend mode's declarations type a
// useChat app's code, with the app's own message types, and refuse what the runtime refuses.
import {
  AiSdkChat,
  ChatstreamError,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  lastAssistantMessageIsCompleteWithToolCalls,
  type AiSdkChatState,
  type ChatStatus,
  type UIMessage,
} from "chatstream";
import { useGeneralChat, type UseChatHelpers } from "chatstream/react";

type Forecast = { temperature: number; unit: string; conditions: string; city: string };
type AppMessage = UIMessage<
  { model?: string; totalTokens?: number },
  { weather: { city: string; status: "loading" | "success"; forecast?: Forecast } },
  {
    getWeather: { input: { city: string }; output: Forecast };
    getLocation: { input: Record<string, never>; output: { city: string } };
  }
>;

export function useAppChat(token: string): UseChatHelpers<AppMessage> {
  const chat = useGeneralChat<AppMessage>({
    backend: "ai-sdk",
    api: "/api/chat",
    headers: () => ({ authorization: `Bearer ${token}` }),
    body: { locale: "en-GB" },
    sendAutomaticallyWhen: ({ messages }) =>
      lastAssistantMessageIsCompleteWithToolCalls({ messages }) || lastAssistantMessageIsCompleteWithApprovalResponses({ messages }),
    onToolCall({ toolCall }) {
      if (toolCall.dynamic) return;
      if (toolCall.toolName === "getLocation") {
        void chat.addToolOutput({ tool: "getLocation", toolCallId: toolCall.toolCallId, output: { city: "Berlin" } });
      } else {
        const city: string = toolCall.input.city;
        void city;
      }
    },
    onFinish({ message, isAbort, isError, finishReason }) {
      if (!isAbort && !isError && finishReason === "stop") console.log(message.metadata?.totalTokens);
    },
    onData(part) {
      if (part.type === "data-weather" && !part.transient) console.log(part.data.status);
    },
    onError(error) {
      console.log(error.code, error.message);
    },
  });
  // @ts-expect-error: an output of another type than the tool's
  void chat.addToolOutput({ tool: "getLocation", toolCallId: "call-1", output: 42 });
  // @ts-expect-error: a tool the messages do not declare
  void chat.addToolOutput({ tool: "sendEmail", toolCallId: "call-1", output: {} });
  void chat.addToolOutput({ tool: "getWeather", toolCallId: "call-2", state: "output-error", errorText: "no network" });
  // @ts-expect-error: useChat's messages are objects, not strings
  void chat.sendMessage("hello");
  // @ts-expect-error: an agent-protocol option is not one of this mode's
  useGeneralChat<AppMessage>({ backend: "ai-sdk", endpoint: "/api/chat/stream" });
  return chat;
}

export function render(message: AppMessage): string {
  return message.parts
    .map((part) => {
      switch (part.type) {
        case "text":
        case "reasoning":
          return part.text;
        case "tool-getWeather":
          return part.state === "output-available" ? `${part.output.temperature} °C` : part.state;
        case "tool-getLocation":
          return part.state === "output-error" ? part.errorText : part.state;
        case "dynamic-tool":
          return part.toolName;
        case "data-weather":
          return part.data.city;
        case "source-url":
          return part.url;
        case "source-document":
          return part.title;
        case "file":
          return part.mediaType;
        case "step-start":
          return "";
        default: {
          const never: never = part;
          return never;
        }
      }
    })
    .join("");
}

export async function run(): Promise<ChatStatus> {
  const chat = new AiSdkChat<AppMessage>({ api: "/api/chat", messages: [] });
  // @ts-expect-error: roles are system, user and assistant
  chat.setMessages([{ id: "1", role: "tool", parts: [] }]);
  chat.setMessages((messages) => messages.filter((m) => m.role !== "system"));
  await chat.sendMessage({ text: "hello", metadata: { model: "m" } });
  await chat.regenerate({ messageId: chat.messages[1]?.id, body: { temperature: 0 } });
  await chat.stop(); // as useChat's: a promise of nothing, whether or not an answer was read
  const state: AiSdkChatState<AppMessage> = chat.getSnapshot();
  if (state.error instanceof ChatstreamError) console.log(state.error.code);
  return state.status;
}
