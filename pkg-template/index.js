// chatstream: the package entry. The wasm-bindgen glue is ./chatstream.js; this file adds the
// parts that are plain JS by nature and re-exports the rest.
export { default, initSync, ChatStream } from "./chatstream.js";
