// Headless Chromium for the end-to-end tests: the system's Chromium through playwright-core,
// with a fresh profile folder that `close()` removes.
import { mkdtempSync, rmSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { extname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { CHROMIUM_FLAGS } from "../chromium-flags.js";

const root = resolve(fileURLToPath(new URL("../..", import.meta.url)));
const types = { ".js": "text/javascript", ".json": "application/json", ".wasm": "application/wasm", ".html": "text/html" };

/** The origin `serveRepository` answers for. */
export const origin = "http://chatstream.test";

/** Starts Chromium; resolves with `{ context, close }`. */
export async function launchChromium() {
  const profile = mkdtempSync(join(tmpdir(), "chatstream-chromium-"));
  // A persistent context is how playwright takes a fresh --user-data-dir of our own.
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    headless: true,
    args: CHROMIUM_FLAGS,
  });
  const close = async () => {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  };
  return { context, close };
}

/**
 * Serves the repository's files (the built package in /pkg, the tests' modules) to the pages of
 * `context` at `origin`, through playwright's request routing: no server. "/" is an empty page.
 */
export async function serveRepository(context) {
  await context.route(`${origin}/**`, async (route) => {
    const path = new URL(route.request().url()).pathname;
    if (path === "/") return route.fulfill({ contentType: "text/html", body: "<!doctype html><title>chatstream</title>" });
    const file = join(root, path);
    if (!file.startsWith(root + "/")) return route.fulfill({ status: 404 });
    try {
      return route.fulfill({ contentType: types[extname(file)] ?? "application/octet-stream", body: await readFile(file) });
    } catch {
      return route.fulfill({ status: 404 });
    }
  });
}
