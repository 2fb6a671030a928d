// One section of BENCHMARKS.md, written by the benchmark that measured it and leaving the rest of
// the file as it is: bench-js/report.js writes the file anew from a whole run, and `./build.sh bench`
// has bench-js/loading.js, bench-js/memory.js and bench-js/ai-sdk-chat.js put their sections back after it. A section is its
// `## heading` to the next one; a new one goes before the proxy's section, which `./build.sh load`
// writes at the end.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const file = join(resolve(fileURLToPath(new URL("..", import.meta.url))), "BENCHMARKS.md");

/** Replaces (or adds) the section `## heading` with `body`. */
export function writeSection(heading, body) {
  const current = existsSync(file) ? readFileSync(file, "utf8") : "# Benchmarks\n";
  const section = `## ${heading}\n\n${body.trim()}\n\n`;
  const at = current.indexOf(`\n## ${heading}\n`);
  let next;
  if (at >= 0) {
    const end = current.indexOf("\n## ", at + 1);
    next = current.slice(0, at + 1) + section + (end >= 0 ? current.slice(end + 1) : "");
  } else {
    const proxy = current.indexOf("\n## Proxy under load");
    next = proxy >= 0 ? current.slice(0, proxy + 1) + section + current.slice(proxy + 1) : `${current.trimEnd()}\n\n${section}`;
  }
  writeFileSync(file, next.trimEnd() + "\n");
}
