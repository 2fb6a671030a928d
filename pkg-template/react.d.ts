import type { ChatMessage, ChatSession, ChatSessionOptions, ErrorCode, Phase, Segment, ToolProgressState } from "./index.js";

export interface GeneralChat {
  messages: readonly ChatMessage[];
  isLoading: boolean;
  streamingText: string;
  statusText: string | null;
  activeToolProgress: ToolProgressState | null;
  /** The error message (the code is `errorCode`). */
  error: string | null;
  errorCode: ErrorCode | null;
  thinkingText: string;
  streamingSegments: readonly Segment[];
  phase: Phase;
  /** Resolves when the answer has finished (or failed, or was cancelled). */
  sendMessage(message: string, context?: Record<string, unknown> | null): Promise<void>;
  cancel(): void;
  session: ChatSession;
}

/** `useGeneralChat`: chat state for React, driven by a chatstream ChatSession. Call `init()` first. */
export function useGeneralChat(options?: ChatSessionOptions): GeneralChat;
