// chatstream/ai-sdk: the AI SDK backend mode alone (a backend written for the AI SDK's useChat, a
// route that answers with `streamText(...).toUIMessageStreamResponse()`), over a module that holds
// only that mode: no dialects, no ChatStream, no provider mode. The entry for an app that moves
// over from useChat. `ChatSession` here takes only `backend: "ai-sdk"`; the other entries have the
// rest of the package.
import { init, initSync, isReady, wasm } from "./module.js";
import { makeAiSdkChat } from "../ai-sdk-chat.js";
import { ONLY_AI_SDK } from "./only.js";

export default init;
export { initSync, isReady };
export const AiSdkChat = makeAiSdkChat({ isReady, load: init, bindings: () => wasm });

/** `new ChatSession({ backend: "ai-sdk", ... })` makes an AiSdkChat, as in the other entries. */
export class ChatSession {
  constructor(options) {
    if (options?.backend !== "ai-sdk") throw new TypeError(`ChatSession: ${ONLY_AI_SDK}`);
    return new AiSdkChat(options);
  }
}

export { ChatstreamError } from "../io.js";
export { lastAssistantMessageIsCompleteWithApprovalResponses, lastAssistantMessageIsCompleteWithToolCalls } from "../ai-sdk-messages.js";
