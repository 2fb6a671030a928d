// What an app downloads for an entry of the built package (pkg/): gzip -9 of its .wasm plus gzip -9
// of the JS an app bundles when it imports everything the entry exports (esbuild, minified, React
// external, split into chunks as an app's bundler splits at a dynamic import). The entry is resolved
// through the package's own `exports`, as an app's bundler resolves it, and each .wasm is the one
// beside a wasm-bindgen glue the bundle pulled in. Counted apart: what the entry loads only on first
// use of a part of it (the chunks behind a dynamic import, and their .wasm: the AI SDK backend mode
// in chatstream and chatstream/streaming, which load chatstream/ai-sdk's module for it).
// Used by the size budget (check.js) and the loading benchmark (bench-js/loading.js).
import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { dirname, join, resolve, basename } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = resolve(fileURLToPath(new URL("../..", import.meta.url)));
const gzip = (bytes) => gzipSync(bytes, { level: 9 }).length;

const OPTIONS = {
  bundle: true,
  format: "esm",
  minify: true,
  write: false,
  metafile: true,
  external: ["react", "react-dom"],
  logLevel: "error",
  absWorkingDir: root,
};

/** `contents` bundled as an app bundles it, from `resolveDir`, in one file. */
async function bundle(contents, resolveDir) {
  return build({ ...OPTIONS, stdin: { contents, resolveDir, loader: "js" } });
}

/**
 * Each of `entries` (e.g. "chatstream/react"): `{ bytes, onFirstUse }`, gzip -9 of the .wasm and of
 * the JS an app downloads for it, and of what it downloads later on first use of a part loaded on
 * demand (0 for an entry without one).
 */
export async function entryWeights(entries) {
  // An app's node_modules holding only the built package, for the bundler to resolve it from.
  const app = join(root, "target/size-check");
  rmSync(app, { recursive: true, force: true });
  mkdirSync(join(app, "node_modules"), { recursive: true });
  symlinkSync(join(root, "pkg"), join(app, "node_modules/chatstream"), "dir");
  try {
    const weights = {};
    for (const [i, entry] of entries.entries()) {
      const file = join(app, `app-${i}.js`);
      writeFileSync(file, `export * from ${JSON.stringify(entry)};\n`);
      const result = await build({ ...OPTIONS, entryPoints: [file], splitting: true, outdir: join(app, `out-${i}`) });
      const { outputs } = result.metafile; // keyed by path relative to absWorkingDir
      const contents = new Map(result.outputFiles.map((f) => [f.path, f.contents]));
      // The chunks reached from `starts` through static imports, leaving out those in `skip`.
      const chunks = (starts, skip = new Set()) => {
        const seen = new Set();
        const visit = (chunk) => {
          if (seen.has(chunk) || skip.has(chunk)) return;
          seen.add(chunk);
          for (const { path, kind } of outputs[chunk].imports) if (kind === "import-statement" && path in outputs) visit(path);
        };
        starts.forEach(visit);
        return seen;
      };
      // gzip -9 of each chunk (each is a download of its own), and of the .wasm beside each glue in them.
      const weigh = (set) => {
        let bytes = 0;
        for (const chunk of set) {
          bytes += gzip(contents.get(join(root, chunk)));
          for (const input of Object.keys(outputs[chunk].inputs)) {
            if (basename(input) === "chatstream.js") bytes += gzip(readFileSync(join(root, dirname(input), "chatstream_bg.wasm")));
          }
        }
        return bytes;
      };
      const glues = (set) => [...set].flatMap((chunk) => Object.keys(outputs[chunk].inputs).filter((input) => basename(input) === "chatstream.js"));
      // The app's own chunk (a dynamic import's target is an entry point of its chunk too).
      const ordinary = chunks(Object.keys(outputs).filter((chunk) => outputs[chunk].entryPoint?.endsWith(`app-${i}.js`)));
      if (glues(ordinary).length !== 1) throw new Error(`${entry}: expected one wasm-bindgen glue file in the bundle, found ${glues(ordinary).length}`);
      const later = [...ordinary].flatMap((chunk) => outputs[chunk].imports.filter((imported) => imported.kind === "dynamic-import").map((imported) => imported.path));
      weights[entry] = { bytes: weigh(ordinary), onFirstUse: weigh(chunks(later, ordinary)) };
    }
    return weights;
  } finally {
    rmSync(app, { recursive: true, force: true });
  }
}

/** The AI SDK's `useChat` (`@ai-sdk/react`), bundled the same way: gzip -9 bytes. */
export async function useChatSize() {
  const result = await bundle('export { useChat } from "@ai-sdk/react";', root);
  return gzip(result.outputFiles[0].contents);
}
