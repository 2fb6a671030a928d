// What chatstream/ai-sdk's module has not, said by its `ChatSession` and `useGeneralChat` when asked for it.
export const ONLY_AI_SDK =
  'chatstream/ai-sdk has only the AI SDK backend mode: give backend: "ai-sdk", or import from "chatstream/streaming" (every dialect) or "chatstream" (provider mode too)';
