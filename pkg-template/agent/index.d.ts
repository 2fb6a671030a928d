// chatstream/agent: the API of chatstream/streaming over a module that reads only agent protocol.
import type { ErrorCode, StreamEvent as AnyStreamEvent, StreamEventsOptions, ToolCallEvent, ToolInputDeltaEvent } from "../streaming/index.js";
import { ChatSession as StreamingChatSession, ChatStream as StreamingChatStream } from "../streaming/index.js";

export * from "../streaming/index.js";
export { default } from "../streaming/index.js";

/**
 * The events of this entry. The agent backend runs its tools itself (`tool_start`, `tool_complete`):
 * its module makes no `tool_input_delta` nor `tool_call`, the events of a call a model asks for.
 */
export type StreamEvent = Exclude<AnyStreamEvent, ToolInputDeltaEvent | ToolCallEvent>;

/** An incremental reader of one chat stream, as in "chatstream/streaming", with this entry's events. */
export declare class ChatStream extends StreamingChatStream {
  push(chunk: string | ArrayBuffer | ArrayBufferView): StreamEvent[];
  finish(): StreamEvent[];
  cancel(): StreamEvent[];
  fail(code: ErrorCode, message: string): StreamEvent[];
  skippedChunk(): StreamEvent[];
}

/** The clean events of a response body, as in "chatstream/streaming". `break` cancels the read and the request. */
export declare function streamEvents(
  input: Response | ReadableStream<Uint8Array> | Promise<Response>,
  options?: StreamEventsOptions,
): AsyncIterableIterator<StreamEvent>;

/** A chat with a backend that runs the agent loop, as in "chatstream/streaming", with this entry's events. */
export declare class ChatSession extends StreamingChatSession {
  send(message: string, context?: Record<string, unknown> | null): AsyncIterableIterator<StreamEvent>;
  regenerate(): AsyncIterableIterator<StreamEvent>;
  resume(url: string): AsyncIterableIterator<StreamEvent>;
}

/** This entry's module has no AI SDK backend mode (`chatstream/ai-sdk`, `chatstream` and `chatstream/streaming` have it): `new AiSdkChat()` throws a TypeError saying so. */
export declare class AiSdkChat {
  private constructor();
}
