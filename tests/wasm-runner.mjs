// The runner cargo calls for the browser suite (.cargo/config.toml): wasm-bindgen-test-runner,
// with Chromium's requests to its test page passed one at a time through a proxy of our own.
//
// Why: the runner serves the page with tiny_http, whose pool starts four threads and holds one per
// open connection. Chromium fetches the page's scripts (one per `inline_js` snippet) over up to six
// connections at once; now and then the pool misses that it needs another thread, the request on
// the fifth connection is never read, the page never loads, and ChromeDriver gives up after 300 s
// ("Timed out receiving message from renderer"). Through the proxy, the runner's server sees one
// connection at a time.
//
// Usage (cargo does this): node tests/wasm-runner.mjs <test.wasm> [args for the runner]
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CHROMIUM_FLAGS } from "./chromium-flags.js";

// One socket, kept open: every request to the runner's server waits its turn on it.
const upstream = new http.Agent({ keepAlive: true, maxSockets: 1 });

// Chromium sends a proxy the whole URL ("GET http://127.0.0.1:PORT/run.js"). Only the loopback
// address is forwarded: the test page has no business anywhere else.
const proxy = http.createServer((request, response) => {
  let target;
  try {
    target = new URL(request.url);
  } catch {
    target = null;
  }
  if (!target || target.protocol !== "http:" || target.hostname !== "127.0.0.1") {
    response.writeHead(502).end(`the test proxy forwards to http://127.0.0.1 only, not ${request.url}\n`);
    return;
  }
  const forwarded = http.request(
    target,
    { method: request.method, headers: request.headers, agent: upstream },
    (answer) => {
      response.writeHead(answer.statusCode, answer.headers);
      answer.on("error", () => response.destroy());
      answer.pipe(response);
    },
  );
  forwarded.on("error", (error) => {
    if (!response.headersSent) response.writeHead(502);
    response.end(`the test proxy could not reach ${request.url}: ${error.message}\n`);
  });
  // A connection Chromium resets (it gives up on a request, it closes the page) ends its request
  // here: an error left unheard would end the proxy, and with it the suite.
  request.on("error", () => forwarded.destroy());
  response.on("error", () => forwarded.destroy());
  request.pipe(forwarded);
});
// HTTPS through the proxy (CONNECT) is refused: nothing in the suite needs it. The socket is ours
// from here on, its errors too (Chromium resets it after the refusal).
proxy.on("connect", (_request, socket) => {
  socket.on("error", () => socket.destroy());
  socket.end("HTTP/1.1 403 Forbidden\r\n\r\n");
});
await new Promise((resolve) => proxy.listen(0, "127.0.0.1", resolve));

// The runner passes "headless", "no-sandbox" and "disable-dev-shm-usage" itself; the tests' own
// switches join them (ChromeDriver takes them without their dashes). `<-loopback>` takes loopback
// addresses off Chromium's list of hosts that skip the proxy.
const folder = mkdtempSync(join(tmpdir(), "chatstream-wasm-runner-"));
const capabilities = join(folder, "webdriver.json");
writeFileSync(
  capabilities,
  JSON.stringify({
    "goog:chromeOptions": {
      args: [
        `proxy-server=http://127.0.0.1:${proxy.address().port}`,
        "proxy-bypass-list=<-loopback>",
        ...CHROMIUM_FLAGS.map((flag) => flag.replace(/^--/, "")),
      ],
    },
  }),
);

const runner = spawn("wasm-bindgen-test-runner", process.argv.slice(2), {
  stdio: "inherit",
  env: { ...process.env, WASM_BINDGEN_TEST_WEBDRIVER_JSON: capabilities },
});
const code = await new Promise((resolve) => {
  runner.on("error", (error) => {
    console.error(`could not start wasm-bindgen-test-runner: ${error.message}`);
    resolve(1);
  });
  runner.on("exit", (status, signal) => resolve(status ?? (signal ? 1 : 0)));
});
proxy.close();
upstream.destroy();
rmSync(folder, { recursive: true, force: true });
process.exit(code);
