export { default, initSync, ChatStream } from "./chatstream.js";
