// chatstream/streaming: the API of "chatstream" over the streaming-only module. Everything is the
// same except that a ChatSession has no provider mode (its provider options are refused).
import type { ChatSessionOptions as FullChatSessionOptions, ProviderOptions } from "../index.js";
import { ChatSession as FullChatSession } from "../index.js";

export * from "../index.js";
export { default } from "../index.js";

/**
 * The options of "chatstream"'s ChatSession, without provider mode's: those are `never`, so that
 * options built elsewhere (not only object literals) with `provider` or `tools` are refused here too,
 * as the runtime refuses them.
 */
export type ChatSessionOptions = Omit<FullChatSessionOptions, keyof ProviderOptions> & { [Name in keyof ProviderOptions]?: never };

/** A chat with a backend that runs the agent loop (the agent backend protocol, or any dialect). */
export declare class ChatSession extends FullChatSession {
  constructor(options?: ChatSessionOptions);
}
