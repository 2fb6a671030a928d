// chatstream/openai: the API of chatstream/streaming over a module that reads only OpenAI Chat Completions.
export * from "../streaming/index.js";
export { default } from "../streaming/index.js";
