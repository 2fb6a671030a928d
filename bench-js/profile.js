// A CPU profile of live pushes in Node (one frame a push, a recording tiled as in bench-js/live.js),
// over the module built with its function names kept (target/bench/named-full, made by
// `./build.sh bench`), its samples summed by the stage each function belongs to.
import { Session } from "node:inspector/promises";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { frames, reads, tile } from "./live.js";

/** Stages, by function name; the first that matches counts. */
const STAGES = [
  ["garbage collection", /garbage collector/],
  ["the benchmark's own loop", /^\(profile\.js\)$|^pushAll$|^profileLivePush$/],
  ["the allocator, memcpy and friends", /talc::|alloc::|__rust_(re|de)?alloc|^mem(cpy|move|cmp|set)$|^dlmalloc/],
  ["framing (SSE, lines)", /chatstream::framing::/],
  ["decoding (dialects, the JSON scanner and reader)", /chatstream::dialect::|serde_json::|chatstream::json::/],
  ["cleaning: the marker stripper (MarkerStripper, strip_unwanted_chars)", /chatstream::clean::markers::/],
  ["cleaning: the rest (thinking, trimming, the message)", /chatstream::clean::/],
  ["the stream's plumbing", /chatstream::stream::/],
  ["building the events (chatstream::wasm, and handOver in JS)", /chatstream::wasm::|^handOver$|^cut$|^toolInputDelta$|^#events$/],
  ["UTF-8 checks and byte searches (memchr)", /memchr::|str::converts::from_utf8/],
  [
    "crossing to JS and back (wasm-bindgen glue, JS calls from wasm, string decoding)",
    /^__wbg|^__wbindgen|^__externref|wasm_bindgen::|wasm-to-js|js-to-wasm|shim|Wasm0|^get buffer$|^(decodeUTF8|decodeText|decode|encode|encodeInto|get|push|__push|__input|#reserve|memoryViews|finish|isDetached)$|^\(chatstream\.js\)$/,
  ],
];

/**
 * Profiles `passes` live reads of `recording` (its path under tests/fixtures/recorded/) and returns
 * each stage's share of the samples, largest first; null when the named module is not built or
 * is older than pkg/.
 */
export async function profileLivePush(root, recording, { passes = 20, target = 10000 } = {}) {
  const dir = join(root, "target/bench/named-full");
  if (!existsSync(join(dir, "named.wasm"))) return null;
  // A named module older than the package was built from older code, whose memory layout the
  // package's api.js may no longer match (its writes would land where that module does not
  // expect them): no profile rather than a wrong one, or a trap.
  const built = join(root, "pkg/chatstream_bg.wasm");
  if (existsSync(built) && statSync(join(dir, "named.wasm")).mtimeMs < statSync(built).mtimeMs) return null;
  // The package's API over the named module: its `push` is the one users call.
  const { makeApi } = await import(join(root, "pkg-template/api.js"));
  const lib = makeApi(await import(join(dir, "chatstream.js")));
  lib.initSync({ module: readFileSync(join(dir, "named.wasm")) });
  const dialect = recording.split("/")[0];
  const format = recording.endsWith(".ndjson") ? "ndjson" : "sse";
  const list = tile(frames(readFileSync(join(root, "tests/fixtures/recorded", recording), "utf8"), format), dialect, target);
  const chunks = reads(list, "live");
  // A short stream that is not tiled is read as many times as makes about `target` events.
  const times = Math.max(1, Math.round(target / list.length));
  const pushAll = () => {
    for (let t = 0; t < times; t++) {
      const stream = new lib.ChatStream({ dialect });
      for (const chunk of chunks) stream.push(chunk);
      stream.finish();
      stream.free();
    }
  };
  pushAll(); // warm-up
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.setSamplingInterval", { interval: 50 });
  await session.post("Profiler.start");
  for (let i = 0; i < passes; i++) pushAll();
  const { profile } = await session.post("Profiler.stop");
  session.disconnect();
  return stages(profile);
}

/** Sums a profile's sampled time by stage. */
function stages(profile) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const time = new Map();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const frame = byId.get(id).callFrame;
    // Rust's names carry each crate's hash (`chatstream[0123456789abcdef]::…`): left out.
    const name = frame.functionName.replace(/\[[0-9a-f]{16}\]/g, "") || `(${frame.url.split("/").pop()})`;
    if (name === "(idle)" || name === "(program)") return;
    const stage = STAGES.find(([, pattern]) => pattern.test(name))?.[0] ?? "other";
    const dt = profile.timeDeltas[i] ?? 0;
    time.set(stage, (time.get(stage) ?? 0) + dt);
    total += dt;
  });
  return [...time].map(([stage, t]) => ({ stage, share: t / total })).sort((a, b) => b.share - a.share);
}
