// Compiled with `tsc --strict` by the test suite: a one-dialect entry's module has no AI SDK backend
// mode, and its types say so (its runtime throws a TypeError there: tests/node/ai-sdk-chat.test.js).
import { AiSdkChat, ChatSession } from "chatstream/agent";
import { useGeneralChat } from "chatstream/agent/react";

export function refused() {
  // @ts-expect-error: no AI SDK backend mode in this entry
  new AiSdkChat({});
  // @ts-expect-error: no AI SDK backend mode in this entry
  useGeneralChat({ backend: "ai-sdk" });
}

export function useAgentChat() {
  return { chat: useGeneralChat({ endpoint: "/api/chat/stream" }), session: new ChatSession({ endpoint: "/api/chat/stream" }) };
}
