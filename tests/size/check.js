// The size budget: what an app downloads for each entry of the built package (pkg/), against
// size-budget.json. Fails, naming the entry, its size and its budget, when one has grown past
// its budget; prints each entry's target beside it.
//
//   node tests/size/check.js    after ./build.sh (./build.sh test runs it)
//
// An entry's size is gzip -9 of its .wasm plus gzip -9 of the JS an app bundles when it imports
// everything the entry exports (esbuild, minified, React external). The entry is resolved through
// the package's own `exports`, as an app's bundler resolves it, and its .wasm is the one beside
// the wasm-bindgen glue the bundle pulled in.
import { mkdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { dirname, join, resolve, basename } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = resolve(fileURLToPath(new URL("../..", import.meta.url)));
const budgetFile = "size-budget.json";
const { entries } = JSON.parse(readFileSync(join(root, budgetFile), "utf8"));

// An app's node_modules holding only the built package, for the bundler to resolve it from.
const app = join(root, "target/size-check");
rmSync(app, { recursive: true, force: true });
mkdirSync(join(app, "node_modules"), { recursive: true });
symlinkSync(join(root, "pkg"), join(app, "node_modules/chatstream"), "dir");

const gzip = (bytes) => gzipSync(bytes, { level: 9 }).length;

async function measure(entry) {
  const result = await build({
    stdin: { contents: `export * from ${JSON.stringify(entry)};`, resolveDir: app, loader: "js" },
    bundle: true,
    format: "esm",
    minify: true,
    write: false,
    metafile: true,
    external: ["react", "react-dom"],
    logLevel: "error",
    absWorkingDir: root,
  });
  const glue = Object.keys(result.metafile.inputs).filter((input) => basename(input) === "chatstream.js");
  if (glue.length !== 1) throw new Error(`${entry}: expected one wasm-bindgen glue file in the bundle, found ${glue.length}`);
  // Input paths are relative to absWorkingDir.
  const wasm = readFileSync(join(root, dirname(glue[0]), "chatstream_bg.wasm"));
  return gzip(wasm) + gzip(result.outputFiles[0].contents);
}

const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;
const over = [];
console.log(`size budget (${budgetFile}; gzip -9 of the .wasm and of the JS an app bundles; 1 KB = 1024 bytes)`);
console.log(`${"entry".padEnd(28)} ${"size".padStart(9)} ${"budget".padStart(9)} ${"target".padStart(9)}`);
for (const { entry, budget, target } of entries) {
  const size = await measure(entry);
  const note = size > budget ? "  OVER BUDGET" : size > target ? `  ${kb(size - target)} over target` : "";
  console.log(`${entry.padEnd(28)} ${kb(size).padStart(9)} ${kb(budget).padStart(9)} ${kb(target).padStart(9)}${note}`);
  if (size > budget) over.push(`${entry} is ${size} bytes gzip, past its budget of ${budget} bytes (target ${target})`);
}
rmSync(app, { recursive: true, force: true });
if (over.length > 0) {
  console.error(`\nsize budget exceeded:\n  ${over.join("\n  ")}\nMake it smaller, or raise its budget in ${budgetFile} and say why.`);
  process.exit(1);
}
