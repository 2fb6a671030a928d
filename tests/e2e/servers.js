// The servers the end-to-end tests start, each on a free loopback port, and stop: the proxy (the
// demo and the package, its offline simulated provider), redis-server, and a TCP forwarder the
// test controls, to cut the connections between the browser and the proxy as a network drop does.
import { spawn } from "node:child_process";
import net from "node:net";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(fileURLToPath(new URL("../..", import.meta.url)));
const proxyBin = process.env.CHATSTREAM_PROXY ?? join(root, "target/debug/chatstream-proxy");

/**
 * Starts the proxy serving www/ and pkg/ on a free port, its simulated provider writing a chunk every
 * `simDelayMs`, with `args` after the defaults; resolves with `{ child, url, port }` once it prints its
 * URL (its first line).
 */
export function startProxy(args = [], { simDelayMs = 40 } = {}) {
  const child = spawn(
    proxyBin,
    ["--port", "0", "--www", join(root, "www"), "--pkg", join(root, "pkg"), "--sim-delay-ms", String(simDelayMs), "--idle-timeout-ms", "10000", ...args],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  // Read (and drop) the log, so that a chatty proxy never blocks on a full pipe.
  child.stderr.resume();
  return new Promise((resolvePromise, reject) => {
    let out = "";
    child.stdout.on("data", (chunk) => {
      out += chunk;
      if (!out.includes("\n")) return;
      const url = out.split("\n")[0].trim();
      resolvePromise({ child, url, port: Number(new URL(url).port) });
    });
    child.on("error", reject);
    child.on("exit", (code) => reject(new Error(`the proxy exited (${code}) before printing its URL`)));
  });
}

/** A port nobody listens on now. */
async function freePort() {
  const server = net.createServer();
  await new Promise((done) => server.listen(0, "127.0.0.1", done));
  const { port } = server.address();
  await new Promise((done) => server.close(done));
  return port;
}

/** Starts redis-server on a free port, saving nothing to disk; resolves with `{ url, stop }`. */
export async function startRedis() {
  const port = await freePort();
  const child = spawn("redis-server", ["--bind", "127.0.0.1", "--port", String(port), "--save", "", "--appendonly", "no"], {
    stdio: "ignore",
  });
  const failed = new Promise((_, reject) => child.on("error", reject));
  for (let i = 0; i < 200; i++) {
    const up = await Promise.race([
      failed,
      new Promise((done) => {
        const socket = net.connect(port, "127.0.0.1", () => done(true) || socket.end());
        socket.on("error", () => done(false));
      }),
    ]);
    if (up) return { url: `redis://127.0.0.1:${port}`, stop: () => child.kill() };
    await new Promise((done) => setTimeout(done, 50));
  }
  child.kill();
  throw new Error("redis-server did not start listening");
}

/**
 * A TCP forwarder on a free loopback port to the proxy on port `to` (changeable: new connections go
 * where `to` says then). `cut()` resets every connection through it at once, both ways; while
 * `refusing`, new connections are reset as they come (a network that is still gone).
 */
export class Forwarder {
  #server;
  #sockets = new Set();
  refusing = false;

  constructor(to) {
    this.to = to;
  }

  async listen() {
    this.#server = net.createServer((client) => {
      if (this.refusing) return client.resetAndDestroy();
      const upstream = net.connect(this.to, "127.0.0.1");
      for (const socket of [client, upstream]) {
        this.#sockets.add(socket);
        socket.on("close", () => this.#sockets.delete(socket));
      }
      client.pipe(upstream);
      upstream.pipe(client);
      const drop = () => {
        client.destroy();
        upstream.destroy();
      };
      client.on("error", drop).on("close", drop);
      upstream.on("error", drop).on("close", drop);
    });
    await new Promise((done) => this.#server.listen(0, "127.0.0.1", done));
    this.port = this.#server.address().port;
    this.url = `http://127.0.0.1:${this.port}/`;
    return this;
  }

  /** Resets every open connection (a TCP RST each way), as a network that goes away. */
  cut() {
    for (const socket of this.#sockets) socket.resetAndDestroy();
  }

  close() {
    this.cut();
    return new Promise((done) => this.#server.close(done));
  }
}
