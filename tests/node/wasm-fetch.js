// A browser's fetch of the package's .wasm, in Node: the browser entries ask for their .wasm by a
// file: URL beside the script, which Node's fetch does not read.
import { readFileSync } from "node:fs";

/**
 * A fetch whose file: URLs are given to `wasm(path)` (the file's path under pkg/), which may record,
 * wait or throw as a browser's fetch fails, and are then answered with the file as application/wasm;
 * any other request goes to `other` (Node's own fetch unless given).
 */
export function fetchWithWasm(wasm, other = globalThis.fetch) {
  return async (url, init) => {
    if (!String(url).startsWith("file:")) return other(url, init);
    await wasm(new URL(url).pathname.replace(/^.*\/pkg\//, ""));
    return new Response(readFileSync(url), { headers: { "content-type": "application/wasm" } });
  };
}
