// The bench page in headless Chromium, for bench-js/run.js and bench-js/live-run.js: bench-js/page.js
// bundled by esbuild, served with pkg/ from 127.0.0.1, opened in a fresh profile.
import { createServer } from "node:http";
import { readFileSync, mkdirSync, mkdtempSync, rmSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve, extname } from "node:path";
import { fileURLToPath } from "node:url";
import { execFileSync } from "node:child_process";
import { build } from "esbuild";
import { chromium } from "playwright-core";

export const root = resolve(fileURLToPath(new URL("..", import.meta.url)));
export const out = join(root, "target/bench");
/** The package the benchmarks load: pkg/, or another build of it to compare with (`CHATSTREAM_PKG=/path/to/pkg`). */
export const pkg = resolve(process.env.CHATSTREAM_PKG ?? join(root, "pkg"));
const executablePath = process.env.CHROMIUM ?? "/usr/bin/chromium";

async function bundle() {
  mkdirSync(out, { recursive: true });
  await build({
    entryPoints: [join(root, "bench-js/page.js")],
    bundle: true,
    format: "esm",
    outfile: join(out, "page.bundle.js"),
    external: ["/pkg/*"],
    minify: true,
    logLevel: "error",
  });
}

function serve() {
  const types = { ".js": "text/javascript", ".wasm": "application/wasm", ".html": "text/html" };
  const server = createServer((req, res) => {
    const path = req.url.split("?")[0];
    const file =
      path === "/" ? null : path.startsWith("/pkg/") ? join(pkg, path.slice(5)) : path === "/page.bundle.js" ? join(out, "page.bundle.js") : undefined;
    if (file === null) {
      res.writeHead(200, { "content-type": "text/html" });
      return res.end('<!doctype html><script type="module" src="/page.bundle.js"></script>');
    }
    if (!file || !existsSync(file)) {
      res.writeHead(404);
      return res.end();
    }
    res.writeHead(200, { "content-type": types[extname(file)] ?? "application/octet-stream" });
    res.end(readFileSync(file));
  });
  return new Promise((ok) => server.listen(0, "127.0.0.1", () => ok(server)));
}

/** Runs `use(page)` on the bench page, ready; closes the browser and the server after. */
export async function withBenchPage(use) {
  await bundle();
  const server = await serve();
  const profile = mkdtempSync(join(tmpdir(), "chatstream-bench-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath,
    headless: true,
    // --expose-gc: the page collects garbage before each timed run.
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run", "--js-flags=--expose-gc"],
  });
  try {
    const page = await context.newPage();
    page.on("pageerror", (e) => console.error("page error:", e.message));
    page.on("console", (m) => (m.type() === "error" ? console.error("console:", m.text()) : m.type() === "log" && console.log(m.text())));
    await page.goto(`http://127.0.0.1:${server.address().port}/`);
    await page.waitForFunction(() => window.ready === true, null, { timeout: 30000 });
    return await use(page);
  } finally {
    await context.close();
    server.close();
    rmSync(profile, { recursive: true, force: true });
  }
}

export function chromiumVersion() {
  try {
    return execFileSync(executablePath, ["--version"]).toString().trim();
  } catch {
    return "unknown";
  }
}
