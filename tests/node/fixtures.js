// The stream fixtures for the Node tests, found the way the Rust harness finds them
// (tests/common/mod.rs): an input `<case>.sse`, `.ndjson` or `.txt` beside its `<case>.json`.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const FIXTURES = fileURLToPath(new URL("../fixtures/", import.meta.url));
const INPUTS = [".sse", ".ndjson", ".txt"];

/** Every fixture under tests/fixtures: `{ name, dialect, input }` (`dialect` null: detected). */
export function fixtures(dir = FIXTURES) {
  const found = [];
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      found.push(...fixtures(path));
      continue;
    }
    if (!entry.name.endsWith(".json")) continue;
    const base = path.slice(0, -".json".length);
    const input = INPUTS.map((ext) => base + ext).find(existsSync);
    if (!input) continue;
    const expected = JSON.parse(readFileSync(path, "utf8"));
    found.push({ name: relative(FIXTURES, base), dialect: expected.dialect ?? null, input: readFileSync(input) });
  }
  return found;
}
