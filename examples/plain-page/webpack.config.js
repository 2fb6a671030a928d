// webpack 5 turns `new URL("chatstream_bg.wasm", import.meta.url)` inside the package into an
// asset: the .wasm is emitted beside the bundle (with a hash in its name) and found at run time.
import { fileURLToPath } from "node:url";

export default {
  mode: "production",
  entry: "./src/main.js",
  output: { path: fileURLToPath(new URL("dist/webpack", import.meta.url)), filename: "main.js", clean: true },
  // The .wasm is fetched by init() after the page has painted, not loaded with the scripts.
  performance: { assetFilter: (file) => !file.endsWith(".wasm") },
};
