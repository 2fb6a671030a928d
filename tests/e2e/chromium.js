// Headless Chromium for the end-to-end tests: the system's Chromium through playwright-core,
// with a fresh profile folder that `close()` removes.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";

/** Starts Chromium; resolves with `{ context, close }`. */
export async function launchChromium() {
  const profile = mkdtempSync(join(tmpdir(), "chatstream-chromium-"));
  // A persistent context is how playwright takes a fresh --user-data-dir of our own.
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
  const close = async () => {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  };
  return { context, close };
}
