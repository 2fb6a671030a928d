// The test backend: the chat route of ./route.js at POST /api/chat, and the built example app
// (examples/ai-sdk-chat/dist) for everything else, on 127.0.0.1. It keeps every request body it
// was sent, so a test can compare what two chat libraries sent.
//
//   node tests/ai-sdk/server.js [port]     serves the built app; prints its URL
import { createServer } from "node:http";
import { readFile } from "node:fs/promises";
import { extname, join, resolve } from "node:path";
import { Readable } from "node:stream";
import { fileURLToPath } from "node:url";
import { chatRoute } from "./route.js";
import { scriptedModel } from "./model.js";

const root = resolve(fileURLToPath(new URL("../..", import.meta.url)));
export const appDist = join(root, "examples/ai-sdk-chat/dist");
const types = { ".html": "text/html", ".js": "text/javascript", ".css": "text/css", ".wasm": "application/wasm", ".svg": "image/svg+xml" };

async function serveFile(www, path, res) {
  const file = join(www, path === "/" ? "index.html" : path);
  if (!file.startsWith(www + "/")) return res.writeHead(404).end();
  try {
    const body = await readFile(file);
    res.writeHead(200, { "content-type": types[extname(file)] ?? "application/octet-stream" }).end(body);
  } catch {
    res.writeHead(404).end();
  }
}

/** Hands a Node request to a fetch-style handler and streams its Response back; a client that goes away cancels the body. */
async function serveRoute(handler, body, req, res) {
  const request = new Request(`http://${req.headers.host}${req.url}`, { method: req.method, headers: req.headers, body });
  const response = await handler(request);
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (!response.body) return res.end();
  const stream = Readable.fromWeb(response.body);
  res.on("close", () => stream.destroy());
  stream.pipe(res);
}

/**
 * Starts the backend on a free port (or `port`) with a fresh scripted model. Resolves with
 * `{ url, requests, close }`; `requests` holds each POST /api/chat as `{ headers, body }`.
 */
export async function startBackend({ www = appDist, port = 0 } = {}) {
  const POST = chatRoute(scriptedModel());
  const requests = [];
  const server = createServer(async (req, res) => {
    try {
      const url = new URL(req.url, "http://localhost");
      if (url.pathname === "/api/chat" && req.method === "POST") {
        const chunks = [];
        for await (const chunk of req) chunks.push(chunk);
        const body = Buffer.concat(chunks);
        requests.push({ headers: req.headers, body: JSON.parse(body.toString("utf8")) });
        return await serveRoute(POST, body, req, res);
      }
      if (req.method === "GET") return await serveFile(www, decodeURIComponent(url.pathname), res);
      res.writeHead(405).end();
    } catch (error) {
      console.error(error);
      if (!res.headersSent) res.writeHead(500).end(String(error));
      else res.destroy();
    }
  });
  await new Promise((resolvePromise) => server.listen(port, "127.0.0.1", resolvePromise));
  return {
    url: `http://127.0.0.1:${server.address().port}/`,
    requests,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolvePromise) => server.close(resolvePromise));
    },
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { url } = await startBackend({ port: Number(process.argv[2] ?? 0) });
  console.log(`the AI SDK example app and its streamText backend: ${url}`);
}
