import type {
  AiSdkChat,
  AiSdkChatOptions,
  AnyUIMessage,
  ChatStatus,
  UIMessage,
  ChatMessage,
  ChatSession,
  ChatSessionOptions,
  ErrorCode,
  MessagePart,
  PendingApproval,
  Phase,
  Segment,
  StoredMessage,
  ToolProgressState,
} from "./index.js";

export interface UseGeneralChatOptions extends ChatSessionOptions {
  /**
   * Drive this session instead of making one (its owner disposes it). Otherwise the hook makes
   * its session when it mounts and disposes it on unmount; `endpoint`, `headers`,
   * `body`, `credentials`, `fetch` and the callbacks may change between renders, the other
   * options are read once.
   */
  session?: ChatSession;
}

export interface GeneralChat {
  /** False while the WebAssembly module loads (the hook starts that itself; `phase` is "loading"). */
  ready: boolean;
  messages: readonly ChatMessage[];
  /** An answer is coming: from the request until its `complete` (or the turn's end). */
  isLoading: boolean;
  /** The answer's text so far. */
  streamingText: string;
  /** A status line ("Thinking…", "Running search…"). */
  statusText: string | null;
  /** The running tool and its progress updates. */
  activeToolProgress: ToolProgressState | null;
  /** The error message (the code is `errorCode`); while loading, why the module failed to load. */
  error: string | null;
  /** The error's code; null for a failed module load. */
  errorCode: ErrorCode | null;
  /** The answer's thinking so far. */
  thinkingText: string;
  /** The answer so far as text and tool segments: render these to keep tool cards on screen. */
  streamingSegments: readonly Segment[];
  /** The answer so far as parts (text, reasoning, tools with their state, data): render these as a message's `parts`. */
  streamingParts: readonly MessagePart[];
  /** A tool call waiting for the user: show it with approve and deny buttons. */
  pendingApproval: PendingApproval | null;
  /** Where the turn is; "loading" while the module loads. */
  phase: Phase | "loading";
  /** Resolves when the answer has finished (or failed, or was stopped); sent while loading, it goes out at once and its answer is read once the module is in. */
  sendMessage(message: string, context?: Record<string, unknown> | null): Promise<void>;
  /** Asks again for the last user message, in place of its answer (or its error). */
  regenerate(): Promise<void>;
  /**
   * Picks up the answer the proxy keeps at `url` (`session.streamInFlight()` saved before a reload)
   * for the last user message; call it after `setMessages` with the saved conversation.
   */
  resume(url: string): Promise<void>;
  /** Stops the turn in flight; does nothing when none is (as `useChat`'s `stop`). */
  stop(): void;
  /** The same as `stop()`. */
  cancel(): void;
  clearError(): void;
  /** Replaces the conversation; rejects as `ChatSession.setMessages` throws (a ChatstreamError CONFLICT while a message is being answered). */
  setMessages(messages: StoredMessage[]): Promise<void>;
  /** Runs the call waiting in `pendingApproval`. */
  approve(toolUseId: string): boolean;
  /** Denies it; the model gets the denial, with `reason`, as the call's result. */
  deny(toolUseId: string, reason?: string): boolean;
  /** null while loading. */
  session: ChatSession | null;
}

/** The options of the AI SDK backend mode: useChat's, with its transport's (`api`, `headers`, `body`, …) at the top level. */
export interface UseAiSdkChatOptions<UI_MESSAGE extends AnyUIMessage = UIMessage> extends AiSdkChatOptions<UI_MESSAGE> {
  backend: "ai-sdk";
}

/**
 * What `useGeneralChat({ backend: "ai-sdk" })` returns: what the AI SDK's `useChat` returns, under
 * the same names. The chat is made when the component mounts (a new `id` makes a new one) and
 * disposed when it goes; the callbacks and request options are read from the latest render.
 */
export interface UseChatHelpers<UI_MESSAGE extends AnyUIMessage = UIMessage> {
  readonly id: string;
  messages: UI_MESSAGE[];
  status: ChatStatus;
  error: Error | undefined;
  sendMessage: AiSdkChat<UI_MESSAGE>["sendMessage"];
  regenerate: AiSdkChat<UI_MESSAGE>["regenerate"];
  stop: AiSdkChat<UI_MESSAGE>["stop"];
  addToolOutput: AiSdkChat<UI_MESSAGE>["addToolOutput"];
  addToolApprovalResponse: AiSdkChat<UI_MESSAGE>["addToolApprovalResponse"];
  setMessages: AiSdkChat<UI_MESSAGE>["setMessages"];
  clearError: AiSdkChat<UI_MESSAGE>["clearError"];
}

/**
 * `useGeneralChat({ backend: "ai-sdk", api: "/api/chat", ... })`: a backend written for the AI SDK's
 * `useChat`, left as it is; returns what useChat returns. A component keeps its backend.
 */
export function useGeneralChat<UI_MESSAGE extends AnyUIMessage = UIMessage>(options: UseAiSdkChatOptions<UI_MESSAGE>): UseChatHelpers<UI_MESSAGE>;
/** `useGeneralChat`: chat state for React, driven by a chatstream ChatSession. Loads the module itself: no `init()` needed. */
export function useGeneralChat(options?: UseGeneralChatOptions): GeneralChat;
