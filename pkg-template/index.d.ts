// Types for chatstream. Events are plain objects discriminated by `type`.

export type Dialect =
  | "openai"
  | "openai-responses"
  | "anthropic"
  | "gemini"
  | "ollama"
  | "ui-message-stream"
  | "data-stream"
  | "agent";

export type ErrorCode =
  | "VALIDATION_ERROR"
  | "NOT_FOUND"
  | "UNAUTHORIZED"
  | "RATE_LIMITED"
  | "NETWORK_ERROR"
  | "SERVICE_UNAVAILABLE"
  | "CONFLICT";

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export interface Usage {
  input_tokens: number | null;
  output_tokens: number | null;
  reasoning_tokens: number | null;
  cached_input_tokens: number | null;
  total_tokens: number | null;
}

export type Segment =
  | { type: "text"; text: string }
  | {
      type: "tool";
      index: number;
      /** null for a `[[tool:N]]` marker whose tool never ran */
      tool_use_id: string | null;
      tool: string | null;
      input: Json;
      output: Json;
      is_error: boolean;
    };

export interface ToolRecord {
  tool_name: string;
  tool_use_id: string;
  input: Json;
  output: Json;
  is_error: boolean;
}

/** Why the model stopped, the same words for every provider. */
export type FinishReason = "stop" | "length" | "tool_calls" | "content_filter" | "refusal" | "error" | "other";

export interface CompletePayload {
  /** Clean text with `[[tool:N]]` kept where tools ran (as it is stored). */
  message: string;
  /** Clean text with no markers at all. */
  text: string;
  thinking: string | null;
  segments: Segment[];
  tool_history: ToolRecord[];
  suggested_values: Json | null;
  suggested_actions: Json | null;
  custom_payload: Json | null;
  /** Why the model stopped (`length`: the token limit), or null when the stream did not say. */
  finish_reason: FinishReason | null;
  usage: Usage | null;
  /** How many invalid UTF-8 sequences were replaced by U+FFFD; absent when none were. */
  invalid_utf8?: number;
  /** Whatever else the backend sent: `conversation_id`, `diagnostics`, … */
  [extra: string]: unknown;
}

export interface StatusEvent {
  type: "status";
  message: string;
  /**
   * Only on the status events `ChatSession` adds about its connection: "reconnecting" (the answer
   * broke off; the session waits, then asks the proxy for the rest) or "resumed" (the rest is coming).
   */
  reason?: "reconnecting" | "resumed";
}
export interface TextDeltaEvent { type: "text_delta"; text: string }
export interface ThinkingDeltaEvent { type: "thinking_delta"; text: string }
export interface ToolStartEvent { type: "tool_start"; tool_use_id: string; tool: string; index: number; input: Json }
export interface ToolInputDeltaEvent {
  type: "tool_input_delta";
  tool_use_id: string;
  delta: string;
  /**
   * The best JSON value the arguments up to this event allow (partial strings kept, dangling keys
   * dropped). Parsed when first read, then kept: a long tool input costs nothing per chunk
   * unless you read it.
   */
  readonly partial_input: Json;
}
export interface ToolCallEvent {
  type: "tool_call";
  tool_use_id: string;
  tool: string;
  index: number;
  input: Json;
  /**
   * True when the token limit cut the arguments (`finish_reason: "length"`): `input` is the best
   * value they allow, `arguments` their raw text. Such a call must not be run.
   */
  incomplete?: true;
  arguments?: string;
}
export interface ToolProgressEvent {
  type: "tool_progress";
  tool_use_id: string | null;
  tool: string;
  stage: string | null;
  message: string | null;
  progress: number | null;
  data: Json;
}
export interface ToolCompleteEvent {
  type: "tool_complete";
  tool_use_id: string;
  tool: string;
  index: number;
  input: Json;
  output: Json;
  is_error: boolean;
}
/** Custom data the backend sent (AI SDK `data-*` parts, v4 `2:` items), as sent; also in `complete.payload.data`. */
export interface DataEvent { type: "data"; data: Json }
export interface CompleteEvent { type: "complete"; payload: CompletePayload }
export interface ErrorEvent { type: "error"; code: ErrorCode; message: string; field?: string }
export interface CancelledEvent { type: "cancelled" }

export type StreamEvent =
  | StatusEvent
  | TextDeltaEvent
  | ThinkingDeltaEvent
  | ToolStartEvent
  | ToolInputDeltaEvent
  | ToolCallEvent
  | ToolProgressEvent
  | ToolCompleteEvent
  | DataEvent
  | CompleteEvent
  | ErrorEvent
  | CancelledEvent;

export interface PayloadMarker {
  /** The text that starts the payload, e.g. `"QUERY_SUGGESTION:"`. */
  marker: string;
  /** The `custom_payload.type` it becomes, e.g. `"query_suggestion"`. */
  type: string;
}

export interface CleanOptions {
  /** Turn inline `<think>…</think>` into thinking. Default true. */
  inlineThinking?: boolean;
  /** Tag names read as inline thinking. Default `["think", "thinking"]`. */
  thinkingTags?: string[];
  /**
   * The output starts inside thinking (a chat template opened `<think>` in the prompt): text up
   * to the first closing tag is thinking. Default false: a closing tag with no opening is removed.
   */
  startsInThinking?: boolean;
  /** Payload markers besides SUGGESTED_VALUES / SUGGESTED_ACTIONS / SCHEMA_PROPOSAL. */
  payloadMarkers?: PayloadMarker[];
}

/**
 * A saved message split at its `[[tool:N]]` markers: text segments, and tool segments filled
 * from `toolHistory[N]` (a marker with no entry gives a tool segment with no output).
 *
 * @example
 * for (const s of resolveToolMarkers(msg.content, msg.tool_history ?? [])) {
 *   if (s.type === "text") renderMarkdown(s.text); else renderToolCard(s);
 * }
 */
export function resolveToolMarkers(
  message: string | null,
  toolHistory?: Array<Partial<ToolRecord> & { tool_name: string }> | null,
): Segment[];

/** A whole response text, cleaned as a stream would be. */
export interface ParsedResponse {
  /** Clean text with `[[tool:N]]` markers kept. */
  message: string;
  /** Clean text with no markers. */
  text: string;
  /** Inline `<think>` text, if any. */
  thinking: string | null;
  suggested_values: Json | null;
  suggested_actions: Json | null;
  /** `{ type, data }` from a registered marker such as `SCHEMA_PROPOSAL:`. */
  custom_payload: Json | null;
  /** Why a payload marker was left in the text (its JSON missing or malformed), once per kind. */
  diagnostics: string[];
}

/** Cleans a whole response text: thinking tags, payload markers and unwanted characters out. */
export function parseLlmResponse(text: string, options?: CleanOptions): ParsedResponse;

export interface ChatStreamOptions extends CleanOptions {
  /** The wire dialect, or "auto" (the default) to detect it. */
  dialect?: Dialect | "auto";
  /** The response's Content-Type, to help detection. */
  contentType?: string;
  /** The response's headers, to help detection. */
  headers?: Record<string, string>;
  /** Cap on one SSE event or line, in bytes. Default 16 MiB. */
  maxFrameBytes?: number;
}

export interface StreamEventsOptions extends ChatStreamOptions {
  /** Cancels the read (and the fetch behind a Response): `complete`, then `cancelled`. */
  signal?: AbortSignal;
  /** Ends a stream that sends nothing for this long with NETWORK_ERROR. */
  idleTimeoutMs?: number;
}

/** An incremental reader of one chat stream. */
export class ChatStream {
  constructor(options?: ChatStreamOptions);
  /**
   * Feeds a chunk: text, or bytes in any form (`ArrayBuffer`, `Uint8Array` or another typed
   * array, `DataView`); returns the events it completed (adjacent text deltas merged). Any other
   * value throws a `TypeError`. Bytes whose buffer was transferred away (detached) cannot be
   * read: they give an `error` event, and the stream goes on.
   */
  push(chunk: string | ArrayBuffer | ArrayBufferView): StreamEvent[];
  /** The body ended: the last events, always including `complete`. */
  finish(): StreamEvent[];
  /** `complete` with the partial content, then `cancelled` (CONFLICT after completion). */
  cancel(): StreamEvent[];
  /**
   * The body broke off (the connection failed, or was silent too long): `complete` with what
   * arrived, then an `error` with `code` (an unknown code reads as NETWORK_ERROR) and `message`.
   */
  fail(code: ErrorCode, message: string): StreamEvent[];
  /**
   * The response's headers arrived, before its bytes: its `Content-Type` and every header (the
   * AI SDK's protocol headers name the dialect). Call it before the first `push`.
   */
  useResponse(contentType: string | null | undefined, headers: Record<string, string>): void;
  /** The `error` event for a chunk that is neither text nor bytes, for a reader that skips it. */
  skippedChunk(): StreamEvent[];
  /** The dialect in use, once known. */
  readonly dialect: Dialect | undefined;
  readonly isComplete: boolean;
  free(): void;
}

/** The clean events of a response body. `break` cancels the read and the request. */
export function streamEvents(
  input: Response | ReadableStream<Uint8Array> | Promise<Response>,
  options?: StreamEventsOptions,
): AsyncIterableIterator<StreamEvent>;

/** Where a tool call is, in the AI SDK's words. */
export type ToolState =
  | "input-streaming"
  | "input-available"
  | "approval-requested"
  | "output-available"
  | "output-error"
  | "output-denied";

/** One part of a message, in reading order (in the style of the AI SDK's UI message parts). */
export type MessagePart =
  | { type: "text"; text: string }
  | { type: "reasoning"; text: string }
  | {
      type: "tool";
      tool_use_id: string;
      tool: string;
      /** The N of `[[tool:N]]`. */
      index: number;
      state: ToolState;
      input: Json;
      output: Json;
      is_error: boolean;
    }
  | { type: "data"; data: Json };

export interface ChatMessage {
  /** Stable and unique: key lists by it. Given by you (`setMessages`, `generateId`) or generated. */
  id: string;
  role: "user" | "assistant";
  /** The stored text: `[[tool:N]]` where tools ran. */
  content: string;
  /** The message in reading order: render these the same way as `streamingParts`. */
  parts: MessagePart[];
  thinking?: string;
  segments?: Segment[];
  tool_history?: ToolRecord[];
  suggested_values?: Json;
  suggested_actions?: Json;
  custom_payload?: Json;
  /** `length`: the answer was cut by the token limit (show it). */
  finish_reason?: FinishReason;
  usage?: Usage;
  /** The user stopped this answer: the content is what arrived before. */
  cancelled?: boolean;
}

/**
 * A message as you may give it to `setMessages` or `loadMessages`: `role`, and `content` or
 * `parts` (a message without `content` is read from its text parts, joined, as in the AI SDK's
 * UI messages `{ id, role, parts: [{ type: "text", text }] }`). A message with neither is a
 * TypeError naming its index and id; so is any role but "user" and "assistant".
 */
export type StoredMessage = Partial<Omit<ChatMessage, "content" | "parts" | "tool_history">> & {
  role: "user" | "assistant";
} & (
    | { content: string; parts?: MessagePart[]; tool_history?: StoredToolRecord[] }
    | { content?: null; parts: MessagePart[]; tool_history?: StoredToolRecord[] }
    /** A stored turn that only called tools: no text. */
    | { content?: null; parts?: MessagePart[]; tool_history: StoredToolRecord[] }
  );

/** A tool history entry as agent backends store it: `{tool_name, input, output}` is enough. */
export type StoredToolRecord = Partial<ToolRecord> & { tool_name: string };

/**
 * What the package throws for a call refused in the chat's current state: `code` is CONFLICT for
 * `setMessages` / `loadMessages` while a message is being answered. (Bad arguments are TypeErrors.)
 */
export class ChatstreamError extends Error {
  constructor(code: ErrorCode, message: string);
  readonly name: "ChatstreamError";
  readonly code: ErrorCode;
}

/** A tool call waiting for the user: `approve(tool_use_id)` or `deny(tool_use_id, reason)`. */
export interface PendingApproval {
  tool_use_id: string;
  tool: string;
  index: number;
  input: Json;
}

export interface ToolProgressState {
  toolName: string;
  updates: ToolProgressEvent[];
}

/** Where a turn is: `waiting` for a first word, `streaming`, a `tool` running, a call waiting for `approval`. */
export type Phase = "idle" | "waiting" | "streaming" | "tool" | "approval";

export interface ChatState {
  readonly messages: readonly ChatMessage[];
  /** An answer is coming: from the request until its `complete` (or the turn's end). */
  readonly isLoading: boolean;
  readonly streamingText: string;
  readonly thinkingText: string;
  readonly statusText: string | null;
  readonly activeToolProgress: ToolProgressState | null;
  readonly error: { code: ErrorCode; message: string } | null;
  readonly streamingSegments: readonly Segment[];
  /** The answer so far as parts: what its message's `parts` will be. */
  readonly streamingParts: readonly MessagePart[];
  /** A tool call waiting for the user's approval. */
  readonly pendingApproval: PendingApproval | null;
  readonly phase: Phase;
  readonly conversationId: Json | null;
}

/** The provider formats provider mode speaks (through the proxy's `/api/chat/<provider>`). */
export type Provider = "openai" | "openai-responses" | "anthropic" | "gemini" | "ollama" | "compat";

/** What a tool's `execute` gets besides its input. */
export interface ToolContext {
  /** Aborted when the turn is cancelled or the tool's time (`toolTimeoutMs`) is up. */
  signal: AbortSignal;
  /** Reports progress: a `tool_progress` event (in `activeToolProgress`), e.g. `progress("Searching…")`. */
  progress(update: string | { stage?: string; message?: string; progress?: number; data?: Json }): void;
}

/** A tool the model may call, run in the page. */
export interface Tool<Input = any> {
  /** 1-64 of a-z, A-Z, 0-9, `_`, `-`. */
  name: string;
  description?: string;
  /**
   * A JSON Schema object; the input is checked against it before `execute` runs. Default: an
   * object with no properties (a tool that takes no input).
   */
  input_schema?: Json;
  /** The user approves each call before it runs: the turn pauses with it in `pendingApproval`. */
  needsApproval?: boolean;
  /** Returns the result for the model (any JSON value); a throw is an error result. */
  execute(input: Input, context: ToolContext): unknown | Promise<unknown>;
}

/**
 * Provider mode: the session talks to a provider through the proxy and runs the agent loop here —
 * it streams the response, runs the tools the model calls, sends the results back and repeats
 * until the model answers (at most `maxIterations` times with tools).
 */
export interface ProviderOptions {
  provider: Provider;
  /** Required: a VALIDATION_ERROR at `send` without it. */
  model: string;
  /** The system prompt. */
  system?: string;
  temperature?: number;
  maxTokens?: number;
  /** Ask for the model's thinking (OpenAI reasoning effort, Anthropic/Gemini budgets, Ollama `think`). */
  thinking?: boolean;
  /** Thinking budget in tokens. Default 10000. */
  thinkingBudget?: number;
  /** The model's context window, for the context budget: above 70% the oldest exchanges are dropped. Default 128000. */
  contextTokens?: number;
  tools?: Tool[];
  /** Responses that may call tools before the model must answer without them. Default 5. */
  maxIterations?: number;
  /** A tool that takes longer is aborted and gives an error result. Default 30000. */
  toolTimeoutMs?: number;
}

/** A value, or a function (sync or async) that gives it; called for each request. */
export type PerRequest<T> = T | (() => T | Promise<T>);

export interface ChatCallbacks {
  /** An answer is complete (also a stopped one): the message as it is now in `messages`. */
  onFinish?(message: ChatMessage): void;
  /** A new error is shown. */
  onError?(error: { code: ErrorCode; message: string }): void;
  /** The model asks for a tool call (provider mode's client tools). */
  onToolCall?(call: ToolCallEvent): void;
  /** A custom data part arrived (AI SDK `data-*` parts). */
  onData?(data: Json): void;
}

export interface ChatSessionOptions extends CleanOptions, ChatCallbacks, Partial<ProviderOptions> {
  /**
   * The streaming endpoint. Default `/api/chat/stream`, or `/api/chat/<provider>` in provider mode.
   * Outside a browser (Node) there is no page to resolve a relative URL against: give an absolute one.
   */
  endpoint?: string;
  dialect?: Dialect | "auto";
  /** Request headers, e.g. authorization; a function is called for each request (a fresh token). */
  headers?: PerRequest<Record<string, string>>;
  /**
   * Extra fields merged into each request body, over the session's own (e.g.
   * `{ interaction_type: "voice_input" }`); a function is called for each request.
   */
  body?: PerRequest<Record<string, Json>>;
  /** Makes the ids of new messages. Default: a random prefix per session and a count. */
  generateId?: () => string;
  credentials?: "omit" | "same-origin" | "include";
  /** A fetch to use instead of the global one. */
  fetch?: (input: string, init: RequestInit) => Promise<Response>;
  /** A step that produces nothing for this long ends with NETWORK_ERROR. Default 60000. */
  stepTimeoutMs?: number;
  /** "frame": notify subscribers at most once per animation frame (the first at once). */
  coalesce?: "frame" | false;
  /**
   * An answer the proxy keeps (an `X-Stream-Id` header) that breaks off is asked for again from the
   * byte it stopped at, up to `attempts` times in a row (default 8): the first at once, then after
   * waits that double from `delayMs` (default 250, at most 8 s). `false`: never.
   */
  resume?: false | { attempts?: number; delayMs?: number };
}

/**
 * A chat: with a backend that runs the agent loop (the agent backend protocol, or any dialect), or, with
 * `provider` set, with a provider through the proxy and the loop run here (see `ProviderOptions`).
 */
export class ChatSession {
  constructor(options?: ChatSessionOptions);
  /** Sends a message; the turn's events (iterating them is optional: the state moves anyway). */
  send(message: string, context?: Record<string, unknown> | null): AsyncIterableIterator<StreamEvent>;
  /**
   * Asks again for the last user message, in place of its answer (or of the error of a failed
   * turn). With a turn in flight, the events are one CONFLICT error.
   */
  regenerate(): AsyncIterableIterator<StreamEvent>;
  /**
   * Stops the turn in flight; a CONFLICT error event when nothing is in flight. An answer the proxy
   * keeps for resuming (an `X-Stream-Id` header) is also stopped there: `DELETE <endpoint>/streams/<id>`.
   */
  cancel(): ErrorEvent | undefined;
  /** The same as `cancel()`. */
  stop(): ErrorEvent | undefined;
  /**
   * The URL of the answer being streamed when the proxy keeps it, else null (also in a turn's later
   * requests, after tools ran in the page). Save it with `saveMessages()` to pick the answer up after a reload.
   */
  streamInFlight(): string | null;
  /**
   * Picks up the answer the proxy keeps at `url` (what `streamInFlight()` said) for the last user
   * message of the loaded conversation, from its first byte: a turn, as `send` gives.
   */
  resume(url: string): AsyncIterableIterator<StreamEvent>;
  /** Runs the call waiting in `pendingApproval`; false when no call with this id waits. */
  approve(toolUseId: string): boolean;
  /** Denies it: the model gets the denial, with `reason`, as the call's result. */
  deny(toolUseId: string, reason?: string): boolean;
  clearError(): void;
  /**
   * Replaces the conversation. Throws a ChatstreamError with code CONFLICT while a message is
   * being answered, and a TypeError for a message it cannot read (see `StoredMessage`).
   */
  setMessages(messages: StoredMessage[]): void;
  /** Changes `endpoint`, `headers`, `body`, `credentials`, `fetch` or the callbacks for the next requests. */
  setOptions(options: Pick<ChatSessionOptions, "endpoint" | "headers" | "body" | "credentials" | "fetch" | keyof ChatCallbacks>): void;
  subscribe(listener: () => void): () => void;
  getSnapshot(): ChatState;
  saveMessages(): string;
  /** Replaces the conversation with saved messages (JSON text or the array); refused as `setMessages` refuses. */
  loadMessages(json: string | StoredMessage[]): void;
  /**
   * Stops the turn in flight and frees the session's memory; unusable after. Also from inside a
   * callback: the turn's events end there, and nothing else is sent or called.
   */
  dispose(): void;
}

export type InitInput = RequestInfo | URL | Response | BufferSource | WebAssembly.Module;
/**
 * Loads the WebAssembly module. In browsers `ChatSession` and `streamEvents` call it themselves
 * (their first request does not wait for it); the synchronous parts throw "chatstream: call
 * `await init()` first" until it is done. By default it fetches
 * `chatstream_bg.wasm` beside the module. Safe to call many times, concurrently: one load is
 * shared, and after a failed load the next call tries again. In Node the module is loaded on
 * import, and this resolves at once.
 */
export default function init(input?: { module_or_path: InitInput | Promise<InitInput> } | InitInput | Promise<InitInput>): Promise<void>;
/** Loads the module synchronously from its bytes or a compiled module. */
export function initSync(input: { module: BufferSource | WebAssembly.Module } | BufferSource | WebAssembly.Module): void;
/** Whether the module is loaded (always true in Node). */
export function isReady(): boolean;
