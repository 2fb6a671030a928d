// useGeneralChat over chatstream/agent: the same hook as "chatstream/streaming/react".
export * from "../streaming/react.js";
