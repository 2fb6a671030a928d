// useGeneralChat over chatstream/openai: the same hook as "chatstream/streaming/react".
export * from "../streaming/react.js";
