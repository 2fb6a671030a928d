// `chatstream/ai-sdk/react` in Node: the module is loaded on import (./node.js).
import "./node.js";
export * from "./react.js";
