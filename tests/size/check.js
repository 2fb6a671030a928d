// The size budget: what an app downloads for each entry of the built package (pkg/), against
// size-budget.json. Fails, naming the entry, its size and its budget, when one has grown past
// its budget; prints each entry's target beside it, and what an entry downloads later, on first use
// of a part it loads on demand (the AI SDK backend mode). How an entry is measured: measure.js.
//
//   node tests/size/check.js    after ./build.sh (./build.sh test runs it)
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { entryWeights } from "./measure.js";

const root = resolve(fileURLToPath(new URL("../..", import.meta.url)));
const budgetFile = "size-budget.json";
const { entries } = JSON.parse(readFileSync(join(root, budgetFile), "utf8"));

const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;
const weights = await entryWeights(entries.map((e) => e.entry));
const over = [];
console.log(`size budget (${budgetFile}; gzip -9 of the .wasm and of the JS an app bundles; 1 KB = 1024 bytes)`);
console.log(`${"entry".padEnd(28)} ${"size".padStart(9)} ${"budget".padStart(9)} ${"target".padStart(9)}`);
for (const { entry, budget, target } of entries) {
  const { bytes: size, onFirstUse } = weights[entry];
  const later = onFirstUse > 0 ? `; the AI SDK backend mode adds ${kb(onFirstUse)} on first use` : "";
  const note = (size > budget ? "  OVER BUDGET" : size > target ? `  ${kb(size - target)} over target` : "") + later;
  console.log(`${entry.padEnd(28)} ${kb(size).padStart(9)} ${kb(budget).padStart(9)} ${kb(target).padStart(9)}${note}`);
  if (size > budget) over.push(`${entry} is ${size} bytes gzip, past its budget of ${budget} bytes (target ${target})`);
}
if (over.length > 0) {
  console.error(`\nsize budget exceeded:\n  ${over.join("\n  ")}\nMake it smaller, or raise its budget in ${budgetFile} and say why.`);
  process.exit(1);
}
