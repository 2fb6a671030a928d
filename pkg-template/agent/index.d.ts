// chatstream/agent: the API of chatstream/streaming over a module that reads only agent protocol.
export * from "../streaming/index.js";
export { default } from "../streaming/index.js";
