// chatstream/openai: the API of chatstream/streaming over a module that reads only OpenAI Chat Completions.
export * from "../streaming/index.js";
export { default } from "../streaming/index.js";

/** This entry's module has no AI SDK backend mode (`chatstream/ai-sdk`, `chatstream` and `chatstream/streaming` have it): `new AiSdkChat()` throws a TypeError saying so. */
export declare class AiSdkChat {
  private constructor();
}
