import type { ChatMessage, ChatSession, ChatSessionOptions, ErrorCode, Phase, Segment, ToolProgressState } from "./index.js";

export interface GeneralChat {
  /** False while the WebAssembly module loads (the hook starts that itself; `phase` is "loading"). */
  ready: boolean;
  messages: readonly ChatMessage[];
  isLoading: boolean;
  streamingText: string;
  statusText: string | null;
  activeToolProgress: ToolProgressState | null;
  /** The error message (the code is `errorCode`); while loading, why the module failed to load. */
  error: string | null;
  errorCode: ErrorCode | null;
  thinkingText: string;
  streamingSegments: readonly Segment[];
  phase: Phase | "loading";
  /** Resolves when the answer has finished (or failed, or was cancelled); sent while loading, it waits for the module. */
  sendMessage(message: string, context?: Record<string, unknown> | null): Promise<void>;
  cancel(): void;
  /** null while loading. */
  session: ChatSession | null;
}

/** `useGeneralChat`: chat state for React, driven by a chatstream ChatSession. Loads the module itself: no `init()` needed. */
export function useGeneralChat(options?: ChatSessionOptions): GeneralChat;
