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
  /**
   * Ends a stream that sends nothing for this long with NETWORK_ERROR (checked on a timer: up to
   * an eighth of this later, never sooner).
   */
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
  /**
   * A step that produces nothing for this long ends with NETWORK_ERROR (checked on a timer: up to
   * an eighth of this later, never sooner). Default 60000.
   */
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
/**
 * Loads the module synchronously from its bytes or a compiled module. The entry's module only: for
 * the AI SDK backend mode with no fetch (a Worker, an edge runtime), call chatstream/ai-sdk's
 * `initSync` with its module's bytes, and `AiSdkChat` here uses it at once.
 */
export function initSync(input: { module: BufferSource | WebAssembly.Module } | BufferSource | WebAssembly.Module): void;
/**
 * Whether the entry's module is loaded (always true in Node). The AI SDK backend mode (`AiSdkChat`)
 * needs none of it: it loads a module of its own, chatstream/ai-sdk's, on its first use (or uses it
 * at once when chatstream/ai-sdk's `init` or `initSync` loaded it), and its chats wait for it by themselves.
 */
export function isReady(): boolean;

// ---------------------------------------------------------------------------------------------------
// The AI SDK backend mode: a chat with a backend written for the AI SDK's `useChat` (a route answering
// with `streamText(...).toUIMessageStreamResponse()`), under the AI SDK's own names. In JavaScript
// `new ChatSession({ backend: "ai-sdk", ... })` makes an `AiSdkChat`; in TypeScript, say `new AiSdkChat(...)`
// (a constructor cannot be typed to return another class). React: `useGeneralChat({ backend: "ai-sdk", ... })`.

/** An app's data part types by name: `{ weather: { city: string } }` types the `data-weather` parts. */
export type UIDataTypes = Record<string, unknown>;
/** A tool's input and output types. */
export interface UITool {
  input: unknown;
  output: unknown;
}
/** An app's tools by name: `{ getWeather: { input: ...; output: ... } }` types the `tool-getWeather` parts. */
export type UITools = Record<string, UITool>;

/** A provider's metadata on a part, by provider name. */
export type ProviderMetadata = Record<string, Record<string, Json>>;

export interface TextUIPart {
  type: "text";
  text: string;
  /** "streaming" until its end arrived. */
  state?: "streaming" | "done";
  providerMetadata?: ProviderMetadata;
}
export interface ReasoningUIPart {
  type: "reasoning";
  /** The reasoning block's id in the stream. */
  id?: string;
  text: string;
  state?: "streaming" | "done";
  providerMetadata?: ProviderMetadata;
}
export interface SourceUrlUIPart {
  type: "source-url";
  sourceId: string;
  url: string;
  title?: string;
  providerMetadata?: ProviderMetadata;
}
export interface SourceDocumentUIPart {
  type: "source-document";
  sourceId: string;
  mediaType: string;
  title: string;
  filename?: string;
  providerMetadata?: ProviderMetadata;
}
export interface FileUIPart {
  type: "file";
  mediaType: string;
  filename?: string;
  /** A URL, or a data URL with the file's bytes. */
  url: string;
  providerMetadata?: ProviderMetadata;
}
/** Where a step of the answer begins (a model call: after tool results, the next one). */
export interface StepStartUIPart {
  type: "step-start";
}
/** A `data-<name>` part; `id` lets a later part of the same name and id update it in place. */
export type DataUIPart<DATA_TYPES extends UIDataTypes> = {
  [NAME in keyof DATA_TYPES & string]: { type: `data-${NAME}`; id?: string; data: DATA_TYPES[NAME] };
}[keyof DATA_TYPES & string];

type DeepPartial<T> = T extends object ? { [K in keyof T]?: DeepPartial<T[K]> } : T;

/** A tool call and where it is: its input streaming, waiting for approval or output, done, failed, denied. */
export type UIToolInvocation<TOOL extends UITool> = {
  toolCallId: string;
  title?: string;
  /** The server ran it (the page does not). */
  providerExecuted?: boolean;
  callProviderMetadata?: ProviderMetadata;
} & (
  | {
      state: "input-streaming";
      /** The input so far, parsed from `rawInput`. */
      input?: DeepPartial<TOOL["input"]>;
      /** The input's text so far: a saved message picks its streaming up from here. */
      rawInput?: string;
      inputEncoding?: "json" | "text";
      output?: never;
      errorText?: never;
      approval?: never;
    }
  | { state: "input-available"; input: TOOL["input"]; output?: never; errorText?: never; approval?: never }
  | { state: "approval-requested"; input: TOOL["input"]; output?: never; errorText?: never; approval: { id: string; approved?: never; reason?: never } }
  | { state: "approval-responded"; input: TOOL["input"]; output?: never; errorText?: never; approval: { id: string; approved: boolean; reason?: string } }
  | {
      state: "output-available";
      input: TOOL["input"];
      output: TOOL["output"];
      errorText?: never;
      /** A partial output; the final one follows. */
      preliminary?: boolean;
      resultProviderMetadata?: ProviderMetadata;
      approval?: { id: string; approved: true; reason?: string };
    }
  | {
      state: "output-error";
      input: TOOL["input"] | undefined;
      output?: never;
      errorText: string;
      resultProviderMetadata?: ProviderMetadata;
      approval?: { id: string; approved: true; reason?: string };
    }
  | { state: "output-denied"; input: TOOL["input"]; output?: never; errorText?: never; approval: { id: string; approved: false; reason?: string } }
);

/** A `tool-<name>` part: a call of a tool the app declared. */
export type ToolUIPart<TOOLS extends UITools = UITools> = {
  [NAME in keyof TOOLS & string]: { type: `tool-${NAME}` } & UIToolInvocation<TOOLS[NAME]>;
}[keyof TOOLS & string];

/** A call of a tool not known in advance (MCP tools and the like): its name is beside it. */
export type DynamicToolUIPart = { type: "dynamic-tool"; toolName: string } & UIToolInvocation<UITool>;

export type UIMessagePart<DATA_TYPES extends UIDataTypes = UIDataTypes, TOOLS extends UITools = UITools> =
  | TextUIPart
  | ReasoningUIPart
  | ToolUIPart<TOOLS>
  | DynamicToolUIPart
  | SourceUrlUIPart
  | SourceDocumentUIPart
  | FileUIPart
  | DataUIPart<DATA_TYPES>
  | StepStartUIPart;

/**
 * A message of the AI SDK backend mode, the AI SDK's UI message: typed with the app's metadata,
 * data parts and tools, as `UIMessage<METADATA, DATA, TOOLS>` is in the AI SDK. A message given
 * (`messages`, `setMessages`) with a part of another type, or a role other than these, is a
 * TypeError naming it.
 */
export interface UIMessage<METADATA = unknown, DATA_PARTS extends UIDataTypes = UIDataTypes, TOOLS extends UITools = UITools> {
  id: string;
  role: "system" | "user" | "assistant";
  metadata?: METADATA;
  parts: Array<UIMessagePart<DATA_PARTS, TOOLS>>;
}

/**
 * The message types this mode is generic over: chatstream's `UIMessage<...>`, or the AI SDK's own
 * (`UIMessage` from "ai"), so that an app's message types move over unchanged.
 */
export interface AnyUIMessage {
  id: string;
  role: "system" | "user" | "assistant";
  metadata?: unknown;
  parts: Array<{ type: string }>;
}

type PartOf<UI_MESSAGE extends AnyUIMessage> = UI_MESSAGE["parts"][number];
/** The names of the tools a message type declares (its `tool-<name>` parts). */
export type ToolNameOf<UI_MESSAGE extends AnyUIMessage> = PartOf<UI_MESSAGE> extends infer PART
  ? PART extends { type: `tool-${infer NAME}` }
    ? NAME
    : never
  : never;
type ToolPartOf<UI_MESSAGE extends AnyUIMessage, NAME extends string> = Extract<PartOf<UI_MESSAGE>, { type: `tool-${NAME}` }>;
type ToolOutputOf<UI_MESSAGE extends AnyUIMessage, NAME extends string> = Extract<ToolPartOf<UI_MESSAGE, NAME>, { state: "output-available" }> extends { output: infer OUTPUT } ? OUTPUT : unknown;
type ToolInputOf<UI_MESSAGE extends AnyUIMessage, NAME extends string> = Extract<ToolPartOf<UI_MESSAGE, NAME>, { state: "input-available" }> extends { input: infer INPUT } ? INPUT : unknown;
/** The tools a message type declares (its `tool-<name>` parts), by name, with their input and output types. */
export type UIToolsOf<UI_MESSAGE extends AnyUIMessage> = {
  [NAME in ToolNameOf<UI_MESSAGE>]: { input: ToolInputOf<UI_MESSAGE, NAME>; output: ToolOutputOf<UI_MESSAGE, NAME> };
};

/** What a tool call for `onToolCall` has besides its name and input: the stream's `tool-input-available` chunk. */
interface ToolCallChunk {
  type: "tool-input-available";
  toolCallId: string;
  providerExecuted?: boolean;
  providerMetadata?: ProviderMetadata;
  toolMetadata?: Record<string, Json>;
  title?: string;
}
/** A tool call for `onToolCall`: a declared tool's (typed by its name), or a dynamic one. */
export type UIToolCall<UI_MESSAGE extends AnyUIMessage = UIMessage> =
  | { [NAME in ToolNameOf<UI_MESSAGE>]: ToolCallChunk & { toolName: NAME; input: ToolInputOf<UI_MESSAGE, NAME>; dynamic?: false } }[ToolNameOf<UI_MESSAGE>]
  | (ToolCallChunk & { toolName: string; input: unknown; dynamic: true });

/** A data part as `onData` gets it: a `data-*` part of the message type, and `transient` ones (never kept in a message). */
export type UIDataPartOf<UI_MESSAGE extends AnyUIMessage> = Extract<PartOf<UI_MESSAGE>, { type: `data-${string}` }> & { transient?: boolean };

/** Why the model stopped, in the AI SDK's words. */
export type UIFinishReason = "stop" | "length" | "content-filter" | "tool-calls" | "error" | "interrupted" | "other";

/** "submitted": the request is out; "streaming": the answer is coming; "ready"; "error". */
export type ChatStatus = "submitted" | "streaming" | "ready" | "error";

/** A value, a promise of it, or a function giving either; resolved for each request (the AI SDK's `Resolvable`). */
export type Resolvable<T> = T | PromiseLike<T> | (() => T | PromiseLike<T>);

/** What one call adds to its request (and to the automatic requests after it). */
export interface ChatRequestOptions {
  /** Headers added to the chat's own. */
  headers?: Record<string, string> | Headers;
  /** Fields added to the request body, over the chat's `body`. */
  body?: object;
  /** Taken, and not used: the AI SDK gives it to custom transports only. */
  metadata?: unknown;
}

/**
 * A chat made before its module is in (chatstream and chatstream/streaming load chatstream/ai-sdk's
 * on first use) shows its messages at once, and a message sent with `status` "submitted"; the request
 * goes out at once when the conversation holds only text, reasoning, file, step-start and data parts
 * (its answer read once the module is in), else once the module is in. A module that did not load is the chat's `error` (a ChatstreamError,
 * code NETWORK_ERROR), the message kept.
 */
export interface AiSdkChatOptions<UI_MESSAGE extends AnyUIMessage = UIMessage> {
  /** "ai-sdk": required by `ChatSession` and `useGeneralChat` to choose this mode; `AiSdkChat` takes it too. */
  backend?: "ai-sdk";
  /** The chat's id, sent as `id` with each request. Default: one made with `generateId`. */
  id?: string;
  /** The conversation to start from (saved messages); a message that is not a UI message is a TypeError naming it. */
  messages?: UI_MESSAGE[];
  /** The chat route. Default "/api/chat". */
  api?: string;
  headers?: Resolvable<Record<string, string> | Headers>;
  /** Fields added to each request body (beside `id`, `messages`, `trigger`, `messageId`). */
  body?: Resolvable<object>;
  credentials?: Resolvable<RequestCredentials>;
  /** A fetch to use instead of the global one. */
  fetch?: (input: string, init: RequestInit) => Promise<Response>;
  /** Makes the ids of the chat and of the user's messages. Default: 16 random letters and digits. */
  generateId?: () => string;
  /** The model called a tool the page runs: answer with `addToolOutput` (not awaited in here). The answer is over once this returns (or its promise settles). */
  onToolCall?(options: { toolCall: UIToolCall<UI_MESSAGE> }): void | PromiseLike<void>;
  /**
   * An answer is over: finished, stopped (`isAbort`), cut off (`isDisconnect`) or failed (`isError`).
   * Not called for a send stopped while the mode's module is still downloading (in a browser, until
   * it is in): the send ends at once with `status` "ready" and the message sent kept, and an answer
   * the server already sent to a message that went out early is dropped, as nothing is there yet to read it.
   */
  onFinish?(options: {
    message: UI_MESSAGE;
    messages: UI_MESSAGE[];
    isAbort: boolean;
    isDisconnect: boolean;
    isError: boolean;
    finishReason?: UIFinishReason;
  }): void;
  /** An answer failed: the error is also the chat's `error`. */
  onError?(error: ChatstreamError): void;
  /** A data part arrived (transient ones too, which are not kept in the message). */
  onData?(dataPart: UIDataPartOf<UI_MESSAGE>): void;
  /**
   * Asked when an answer is over and when a tool output or an approval answer is added: true sends
   * the conversation again (the answer continues the last message). `lastAssistantMessageIsCompleteWithToolCalls`
   * and `lastAssistantMessageIsCompleteWithApprovalResponses` are the usual answers.
   */
  sendAutomaticallyWhen?(options: { messages: UI_MESSAGE[] }): boolean | PromiseLike<boolean>;
}

/** What `sendMessage` takes: text (and files), or the parts of a UI message. */
export type CreateUIMessage<UI_MESSAGE extends AnyUIMessage = UIMessage> =
  | { text: string; files?: FileUIPart[] | FileList; metadata?: UI_MESSAGE["metadata"]; messageId?: string; parts?: never }
  | { files: FileUIPart[] | FileList; metadata?: UI_MESSAGE["metadata"]; messageId?: string; parts?: never; text?: never }
  | {
      parts: UI_MESSAGE["parts"];
      id?: string;
      role?: UI_MESSAGE["role"];
      metadata?: UI_MESSAGE["metadata"];
      /** Replaces this user message (and drops what followed it). */
      messageId?: string;
      text?: never;
      files?: never;
    };

/** A tool's output for `addToolOutput`, or its error with `state: "output-error"`. */
export type ToolOutput<UI_MESSAGE extends AnyUIMessage, TOOL extends keyof UIToolsOf<UI_MESSAGE>> = {
  tool: TOOL;
  toolCallId: string;
  /** For the request sent after it, when `sendAutomaticallyWhen` says to. */
  options?: ChatRequestOptions;
} & (
  | { state?: "output-available"; output: UIToolsOf<UI_MESSAGE>[TOOL]["output"]; errorText?: never }
  | { state: "output-error"; output?: never; errorText: string }
);

/** The chat as `subscribe` / `getSnapshot` show it. */
export interface AiSdkChatState<UI_MESSAGE extends AnyUIMessage = UIMessage> {
  readonly id: string;
  /** The answer being read is in here too, under the id it keeps. */
  readonly messages: UI_MESSAGE[];
  readonly status: ChatStatus;
  /** The last answer's error (a ChatstreamError with its code), or why the module or the messages could not be loaded. */
  readonly error: Error | undefined;
}

/**
 * The AI SDK backend mode's chat (the AI SDK's `Chat`). Its methods reject with a ChatstreamError
 * with `code` CONFLICT while an answer is read, and with a TypeError for what is not what it should
 * be (`code` VALIDATION_ERROR for an unknown message, tool call or approval id).
 */
export class AiSdkChat<UI_MESSAGE extends AnyUIMessage = UIMessage> {
  constructor(options?: AiSdkChatOptions<UI_MESSAGE>);
  readonly id: string;
  readonly messages: UI_MESSAGE[];
  readonly status: ChatStatus;
  readonly error: Error | undefined;
  subscribe(listener: () => void): () => void;
  /** The same object until something changes, never mutated. */
  getSnapshot(): AiSdkChatState<UI_MESSAGE>;
  /**
   * Sends a user message and reads the answer; resolves once it is over (and the answers sent
   * automatically after it). With no message, sends the conversation as it is.
   */
  sendMessage(message?: CreateUIMessage<UI_MESSAGE>, options?: ChatRequestOptions): Promise<void>;
  /** Asks again for the answer `messageId` (or the one after the user message `messageId`; default the last). */
  regenerate(options?: { messageId?: string } & ChatRequestOptions): Promise<void>;
  /** Stops the answer being read (what came stays); nothing to do when none is. */
  stop(): Promise<void>;
  addToolOutput<TOOL extends keyof UIToolsOf<UI_MESSAGE>>(output: ToolOutput<UI_MESSAGE, TOOL>): Promise<void>;
  addToolApprovalResponse(response: { id: string; approved: boolean; reason?: string; options?: ChatRequestOptions }): Promise<void>;
  /** Replaces the messages (or maps them); throws a ChatstreamError (CONFLICT) while an answer is read. */
  setMessages(messages: UI_MESSAGE[] | ((messages: UI_MESSAGE[]) => UI_MESSAGE[])): void;
  clearError(): void;
  /** Changes the request options and the callbacks, from the next use on. */
  setOptions(options: Omit<AiSdkChatOptions<UI_MESSAGE>, "backend" | "id" | "messages" | "generateId">): void;
  /** Stops the answer in flight and frees the chat's memory; unusable after. */
  dispose(): void;
}

/** For `sendAutomaticallyWhen`: the last answer's last step called tools the page runs, and each has its output (or error). */
export function lastAssistantMessageIsCompleteWithToolCalls(options: { messages: AnyUIMessage[] }): boolean;
/** For `sendAutomaticallyWhen`: the last answer's last step has an answered approval, and every tool call in it is answered or done. */
export function lastAssistantMessageIsCompleteWithApprovalResponses(options: { messages: AnyUIMessage[] }): boolean;
