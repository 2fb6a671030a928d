// For tests that check a long string is not decoded a second time: every string the package
// decodes from the module's memory goes through a TextDecoder, whose bytes are counted here
// (`decoded.bytes`, which a test sets back to 0), and the package loaded after the count is set up.
// A 1 KB piece of text for them: "é🙂" keep UTF-8 and UTF-16 lengths apart.
import { readFileSync } from "node:fs";

export const decoded = { bytes: 0 };
const decode = TextDecoder.prototype.decode;
TextDecoder.prototype.decode = function (input, options) {
  decoded.bytes += input?.byteLength ?? 0;
  return decode.call(this, input, options);
};

const { initSync, ChatStream } = await import("../../pkg/index.js");
export { ChatStream };
initSync({ module: readFileSync(new URL("../../pkg/chatstream_bg.wasm", import.meta.url)) });

export const piece = "abcdefgh é🙂 ".repeat(1024 / 16);
