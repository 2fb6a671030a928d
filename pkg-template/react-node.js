// `chatstream/react` in Node: the module is loaded on import (./node.js), as for `chatstream`.
import "./node.js";
export * from "./react.js";
