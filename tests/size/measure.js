// What an app downloads for an entry of the built package (pkg/): gzip -9 of its .wasm plus gzip -9
// of the JS an app bundles when it imports everything the entry exports (esbuild, minified, React
// external). The entry is resolved through the package's own `exports`, as an app's bundler
// resolves it, and its .wasm is the one beside the wasm-bindgen glue the bundle pulled in.
// Used by the size budget (check.js) and the loading benchmark (bench-js/loading.js).
import { mkdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { dirname, join, resolve, basename } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = resolve(fileURLToPath(new URL("../..", import.meta.url)));
const gzip = (bytes) => gzipSync(bytes, { level: 9 }).length;

/** `contents` bundled as an app bundles it, from `resolveDir`: the output and esbuild's metafile. */
async function bundle(contents, resolveDir) {
  return build({
    stdin: { contents, resolveDir, loader: "js" },
    bundle: true,
    format: "esm",
    minify: true,
    write: false,
    metafile: true,
    external: ["react", "react-dom"],
    logLevel: "error",
    absWorkingDir: root,
  });
}

/** Each of `entries` (e.g. "chatstream/react"): its size in bytes, gzip -9 of the .wasm and of the JS. */
export async function entrySizes(entries) {
  // An app's node_modules holding only the built package, for the bundler to resolve it from.
  const app = join(root, "target/size-check");
  rmSync(app, { recursive: true, force: true });
  mkdirSync(join(app, "node_modules"), { recursive: true });
  symlinkSync(join(root, "pkg"), join(app, "node_modules/chatstream"), "dir");
  try {
    const sizes = {};
    for (const entry of entries) {
      const result = await bundle(`export * from ${JSON.stringify(entry)};`, app);
      const glue = Object.keys(result.metafile.inputs).filter((input) => basename(input) === "chatstream.js");
      if (glue.length !== 1) throw new Error(`${entry}: expected one wasm-bindgen glue file in the bundle, found ${glue.length}`);
      // Input paths are relative to absWorkingDir.
      const wasm = readFileSync(join(root, dirname(glue[0]), "chatstream_bg.wasm"));
      sizes[entry] = gzip(wasm) + gzip(result.outputFiles[0].contents);
    }
    return sizes;
  } finally {
    rmSync(app, { recursive: true, force: true });
  }
}

/** The AI SDK's `useChat` (`@ai-sdk/react`), bundled the same way: gzip -9 bytes. */
export async function useChatSize() {
  const result = await bundle('export { useChat } from "@ai-sdk/react";', root);
  return gzip(result.outputFiles[0].contents);
}
