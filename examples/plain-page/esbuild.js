// esbuild bundles the JS but leaves `new URL("chatstream_bg.wasm", import.meta.url)` as it is: the
// bundle asks for chatstream_bg.wasm beside itself, so the file is copied there.
import { copyFileSync } from "node:fs";
import { createRequire } from "node:module";
import * as esbuild from "esbuild";

const outdir = "dist/esbuild";
// format "esm": import.meta.url must be the bundle's own URL (an iife has no import.meta).
await esbuild.build({ entryPoints: ["src/main.js"], bundle: true, format: "esm", minify: true, outdir });
copyFileSync(createRequire(import.meta.url).resolve("chatstream/chatstream_bg.wasm"), `${outdir}/chatstream_bg.wasm`);
