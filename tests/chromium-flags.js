// The switches every headless Chromium of the tests runs with (tests/e2e/chromium.js, through
// Playwright; tests/wasm-runner.mjs, through ChromeDriver). Without the background-networking ones,
// Chromium's own connections to Google's hosts fail, many at a time, on a machine with no network.
export const CHROMIUM_FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];
