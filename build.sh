#!/usr/bin/env bash
# chatstream: one command builds, one tests, one runs the demo.
#
#   ./build.sh          build pkg/ (the npm package) from the crate and pkg-template/
#   ./build.sh test     install what is missing, build, run every test
#   ./build.sh demo     build, start the proxy with its offline simulated provider, print the URL
#   ./build.sh examples build pkg/, pack it, and build the example apps (examples/) from the tarball
#   ./build.sh bench    the benchmarks, written to BENCHMARKS.md (not part of `test`)
#   ./build.sh weight   what each module is made of (`twiggy top`), into BENCHMARKS.md's "Why the misses"
#   ./build.sh fuzz     every fuzz target, 600 s each by default (not part of `test`)
#   ./build.sh load     1,000 concurrent streams through the proxy, into BENCHMARKS.md
#
# Every install step checks first and says what it installs, so running it again is cheap.
set -euo pipefail
cd "$(dirname "$0")"
ROOT=$PWD
export CARGO_TERM_COLOR=${CARGO_TERM_COLOR:-never}

say() { printf '==> %s\n' "$*" >&2; }

# --- prerequisites -----------------------------------------------------------------------

wasm_bindgen_version() {
  # The CLI must equal the crate's version exactly; Cargo.lock is the source of truth.
  awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock
}

ensure_rust() {
  if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
    say "installing the wasm32-unknown-unknown Rust target"
    rustup target add wasm32-unknown-unknown
  fi
  local want have
  want=$(wasm_bindgen_version)
  have=$(wasm-bindgen --version 2>/dev/null | awk '{print $2}' || true)
  if [ "$have" != "$want" ]; then
    say "installing wasm-bindgen-cli $want (found: ${have:-none}; takes about 2 minutes)"
    cargo install wasm-bindgen-cli --version "$want"
  fi
}

# The package's modules are built on this nightly, which rebuilds the standard library with panics
# that abort at once (-Cpanic=immediate-abort): the panic messages, their formatting and the
# unwinding paths leave the module. The standard library is built with its `optimize_for_size`
# feature too (the flag lists the features in place of cargo's default list; its `backtrace` and
# `default` are left out: a module that aborts at once has no use for them): its sort and integer
# formatting, off the hot path (a message's tool markers, error messages), are the small ones.
# -Zlocation-detail=none leaves out the file names, lines and columns that calls which may panic
# still pass along (the standard library's source paths, about 1 KB raw in each module): nothing
# reads them once a panic aborts at once. -Ctarget-feature=-reference-types: wasm-bindgen then
# keeps the JS values the module holds in an array of its glue instead of a table of the module,
# which makes each module 0.8-1.5 KB gzip smaller (the glue about 0.25 KB larger) at the same speed
# (callgrind on Node: a live push and a session event within 0.5%). Pinned, so that a build today
# and next month make the same module; the tests and everything else use the stable toolchain.
NIGHTLY=nightly-2026-05-20

ensure_nightly() {
  if [ ! -d "$(rustup run "$NIGHTLY" rustc --print sysroot 2>/dev/null)/lib/rustlib/src/rust/library" ]; then
    say "installing Rust $NIGHTLY with the standard library's source (rust-src), for the package's modules"
    rustup toolchain install "$NIGHTLY" --profile minimal --component rust-src
  fi
}

ensure_node_modules() {
  # package-lock.json pins the dev tools: binaryen's wasm-opt (Debian's is too old), playwright-core, tsc.
  if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    say "installing the npm dev tools (npm ci)"
    npm ci --no-audit --no-fund
  fi
}

ensure_chromium() {
  if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
    say "installing Chromium and ChromeDriver (Debian packages)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update
    apt-get install -y chromium chromium-driver
  fi
  export CHROMEDRIVER=${CHROMEDRIVER:-/usr/bin/chromedriver}
}

# The proxy's tests of its Redis resume store start a real redis-server.
ensure_redis() {
  if ! command -v redis-server >/dev/null; then
    say "installing redis-server (Debian package)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update
    apt-get install -y redis-server
  fi
}

# --- build -------------------------------------------------------------------------------

# wasm-opt's flags. Not --all-features: the module then fails to load with current wasm-bindgen.
# --converge repeats -Oz while it still shrinks the module; --low-memory-unused lets offsets fold
# into loads, since nothing lives in the first 1 KB (Rust puts the stack first and it grows down
# from its top). The producers and target-features sections say which compiler made the module;
# nothing reads them at run time. --one-caller-inline-max-function-size: wasm-opt inlines a function
# called from one place whatever its size, so the cold paths a hot function calls once (kept out with
# #[inline(never)]) joined it, and the engine's optimizing compiler held megabytes while compiling
# the whole when a long answer made it hot (bench-js/memory.js); over 2,000 bytes one stays a call.
WASM_OPT_FLAGS=(-Oz --converge --low-memory-unused --strip-producers --strip-target-features --enable-simd --enable-reference-types --enable-bulk-memory
  --enable-nontrapping-float-to-int --enable-sign-ext --enable-multivalue --one-caller-inline-max-function-size=2000)

# wasm-bindgen's flags. --encode-into always: the glue passes strings with TextEncoder.encodeInto
# and carries no fallback for engines without it (every engine that runs the module's SIMD has it).
WASM_BINDGEN_FLAGS=(--target web --encode-into always --out-name chatstream)

# One build of the module: $1 names it, $2 is cargo's feature flags, $3 the output folder.
# Each build has its own cargo target folder, so switching between them recompiles nothing.
build_module() {
  local name=$1 features=$2 out=$3 target=${CARGO_TARGET_DIR:-target}
  [ "$name" = full ] || target="$target/$name"
  # The flags join .cargo/config.toml's for the target (an array on both sides, so cargo appends).
  # shellcheck disable=SC2086 # $features is cargo's flags, split on purpose
  cargo "+$NIGHTLY" build --release --target wasm32-unknown-unknown --lib --target-dir "$target" $features \
    -Z build-std=std,panic_abort -Z build-std-features=panic-unwind,optimize_for_size \
    --config 'target.wasm32-unknown-unknown.rustflags = ["-Zunstable-options", "-Cpanic=immediate-abort", "-Zlocation-detail=none", "-Ctarget-feature=-reference-types"]'
  wasm-bindgen "${WASM_BINDGEN_FLAGS[@]}" --out-dir "$out" "$target/wasm32-unknown-unknown/release/chatstream.wasm"
  node_modules/.bin/wasm-opt "${WASM_OPT_FLAGS[@]}" "$out/chatstream_bg.wasm" -o "$out/chatstream_bg.wasm"
  local raw gz
  raw=$(wc -c < "$out/chatstream_bg.wasm")
  gz=$(gzip -9c "$out/chatstream_bg.wasm" | wc -c)
  say "the $name module: $raw bytes raw, $gz bytes gzip"
}

build_pkg() {
  ensure_rust
  ensure_nightly
  ensure_node_modules
  local out
  # Built beside pkg/ and swapped in at the end, so a test reading pkg/ meanwhile never sees half a package.
  out=$(mktemp -d "$ROOT/.pkg-build.XXXXXX")
  cp -R pkg-template/. "$out/"
  say "building the full module (release), the streaming-only one, the one-protocol ones and the AI SDK one; wasm-opt $(node_modules/.bin/wasm-opt --version | awk '{print $3}')"
  # The AI SDK backend mode is in none but its own module (ai-sdk): the full and streaming entries
  # load that one on the mode's first use.
  build_module full "--no-default-features --features talc,provider,dialects" "$out"
  build_module streaming "--no-default-features --features talc,dialects" "$out/streaming"
  # One backend protocol each, without provider mode (pkg-template/README.md lists which reads what).
  build_module agent "--no-default-features --features talc,dialect-agent" "$out/agent"
  build_module openai "--no-default-features --features talc,dialect-openai" "$out/openai"
  # The AI SDK backend mode alone: no dialect, so no ChatStream or ChatSession pipeline either.
  build_module ai-sdk "--no-default-features --features talc,ai-sdk" "$out/ai-sdk"
  cp LICENSE-MIT LICENSE-APACHE "$out/"
  rm -f "$out/.gitignore"
  chmod 755 "$out"
  rm -rf pkg.old
  if [ -d pkg ]; then mv pkg pkg.old; fi
  mv "$out" pkg
  rm -rf pkg.old
  pack_pkg
}

# The package as an app installs it: `npm pack` of pkg/ into target/npm/ (TARBALL), its size printed.
pack_pkg() {
  mkdir -p "$ROOT/target/npm"
  rm -f "$ROOT/target/npm/"*.tgz
  local report
  report=$(cd pkg && npm pack --json --pack-destination "$ROOT/target/npm")
  TARBALL=$(echo "$ROOT/target/npm/"*.tgz)
  say "$(node -e 'const [p] = JSON.parse(process.argv[1]);
    console.log(`target/npm/${p.filename}: ${p.size} bytes (${p.entryCount} files, ${p.unpackedSize} bytes unpacked)`)' "$report")"
}

# --- example apps ------------------------------------------------------------------------

EXAMPLES=(examples/vite-react examples/plain-page examples/ai-sdk-chat)

# An example gets its locked tools (npm ci, only when its package-lock.json changed), then the
# packed package as an app installs it: `npm install` of the tarball, not saved, since the
# tarball's hash changes with every build and the lock files would change with it.
install_example() {
  local dir=$1 sum
  if [ ! -d "$dir/node_modules" ] || [ "$dir/package-lock.json" -nt "$dir/node_modules/.package-lock.json" ]; then
    say "$dir: installing its tools (npm ci)"
    (cd "$dir" && npm ci --no-audit --no-fund)
  fi
  sum=$(sha256sum "$TARBALL" | cut -d' ' -f1)
  if [ "$(cat "$dir/node_modules/.chatstream-tarball" 2>/dev/null)" != "$sum" ]; then
    say "$dir: installing $(basename "$TARBALL")"
    (cd "$dir" && npm install --no-save --no-audit --no-fund "$TARBALL")
    echo "$sum" > "$dir/node_modules/.chatstream-tarball"
  fi
}

build_examples() {
  local dir start
  for dir in "${EXAMPLES[@]}"; do
    install_example "$dir"
    start=$EPOCHREALTIME
    (cd "$dir" && npm run --silent build)
    say "$dir: built in $(awk "BEGIN { printf \"%.1f\", $EPOCHREALTIME - $start }") s"
  done
}

# --- tests -------------------------------------------------------------------------------

test_size() {
  say "size budget: each entry's download against size-budget.json (node tests/size/check.js)"
  node tests/size/check.js
}

test_native() {
  ensure_redis
  say "native tests (cargo test --workspace)"
  cargo test --workspace
  say "native tests of the streaming-only build (cargo test --no-default-features --features dialects)"
  # The every-split fixture pass is left out here: the dialects it drives are the same code in
  # both builds, and it is the slowest test (a minute in a debug build).
  cargo test -p chatstream --no-default-features --features dialects --lib --tests -- --skip every_fixture_under_every_split
  say "native tests of the agent module's build (cargo test --no-default-features --features dialect-agent)"
  # Its fixtures too: that build leaves the model's tool calls out (the model-tool-calls feature).
  cargo test -p chatstream --no-default-features --features dialect-agent --lib --test without_model_tool_calls
  say "native tests of the AI SDK entry's build (cargo test --no-default-features --features ai-sdk --lib)"
  cargo test -p chatstream --no-default-features --features ai-sdk --lib
}

test_wasm() {
  ensure_chromium
  say "wasm tests in headless Chromium (wasm-bindgen-test)"
  # .cargo/config.toml makes tests/wasm-runner.mjs the runner: wasm-bindgen-test-runner, which
  # drives Chromium through ChromeDriver (CHROMEDRIVER) and passes --no-sandbox itself, with the
  # page's requests sent one at a time through a proxy (the script says why). Its 20 s default
  # timeout is a hang detector; a busy machine runs the unoptimised fixture test past it, so it
  # gets 10 minutes.
  WASM_BINDGEN_TEST_TIMEOUT=${WASM_BINDGEN_TEST_TIMEOUT:-600} cargo test --target wasm32-unknown-unknown --test wasm
}

test_node() {
  say "Node tests of the built package (node --test); provider mode runs against the proxy"
  cargo build -p chatstream-proxy
  CHATSTREAM_PROXY="${CARGO_TARGET_DIR:-target}/debug/chatstream-proxy" node --test tests/node/
}

test_e2e() {
  ensure_chromium
  ensure_redis
  say "end-to-end: the demo page in headless Chromium against the proxy, answers cut and resumed (node --test tests/e2e/)"
  cargo build -p chatstream-proxy
  CHATSTREAM_PROXY="${CARGO_TARGET_DIR:-target}/debug/chatstream-proxy" node --test tests/e2e/
}

test_examples() {
  ensure_chromium
  build_examples
  say "the example apps in headless Chromium against the proxy (node --test tests/examples/)"
  cargo build -p chatstream-proxy
  CHATSTREAM_PROXY="${CARGO_TARGET_DIR:-target}/debug/chatstream-proxy" node --test tests/examples/
  say "the AI SDK example app in headless Chromium against a streamText backend (node --test tests/ai-sdk/)"
  node --test tests/ai-sdk/
}

test_types() {
  say "TypeScript declarations: an example compiled with tsc --strict"
  node_modules/.bin/tsc -p tests/types
}

run_tests() {
  build_pkg
  test_size
  test_native
  test_wasm
  test_node
  test_types
  test_e2e
  test_examples
  test_bench_smoke
}

# --- benchmarks (not part of `test`) ---------------------------------------------------------

run_bench() {
  build_pkg
  ensure_chromium
  named_modules
  say "recorded streams read as they arrive, chatstream against the JS baseline (node bench-js/live-run.js)"
  node --expose-gc bench-js/live-run.js
  say "browser benchmarks: chatstream against eventsource-parser and the AI SDK (node bench-js/run.js)"
  node bench-js/run.js
  say "memory: a 20 MB tool argument in 1 KB deltas (node bench-js/memory.js)"
  node bench-js/memory.js
  say "the AI SDK backend mode against the AI SDK's own chat, one event per read (node bench-js/ai-sdk-chat.js)"
  node bench-js/ai-sdk-chat.js
  say "loading: time to first event from a cold load, against the AI SDK (node bench-js/loading.js)"
  node bench-js/loading.js
  twiggy_tops
  say "native benchmarks (cargo bench --bench framing --bench pipeline --bench adversarial)"
  cargo bench --bench framing --bench pipeline --bench adversarial -- --warm-up-time 1 --measurement-time 3 \
    | tee target/bench/native.txt
  say "the adversarial shapes again, glibc's malloc keeping large blocks on its heap instead of mapping fresh pages"
  MALLOC_MMAP_THRESHOLD_=1073741824 MALLOC_TRIM_THRESHOLD_=1073741824 cargo bench --bench adversarial -- \
    --warm-up-time 1 --measurement-time 3 | tee target/bench/native-heap.txt
  say "the fast paths per recording (cargo bench --bench fast_paths, built with --cfg fuzzing in a target folder of its own)"
  RUSTFLAGS="--cfg fuzzing" CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-target}/fuzzing" cargo bench --bench fast_paths
  node bench-js/report.js
  say "BENCHMARKS.md's loading, memory and AI SDK backend mode sections, put back after the report wrote the file anew"
  node bench-js/loading.js --section
  node bench-js/memory.js --section
  node bench-js/ai-sdk-chat.js --section
}

# Each module as built (wasm-opt included) with its function names kept, with its JS glue, in
# target/bench/named-<name>/: for `twiggy top` and for the live benchmark's profile.
named_modules() {
  local name dir wasm target=${CARGO_TARGET_DIR:-target}
  for name in full streaming agent openai ai-sdk; do
    dir="$target/bench/named-$name"
    [ "$name" = full ] && wasm="$target/wasm32-unknown-unknown/release/chatstream.wasm" \
      || wasm="$target/$name/wasm32-unknown-unknown/release/chatstream.wasm"
    wasm-bindgen "${WASM_BINDGEN_FLAGS[@]}" --out-dir "$dir" "$wasm"
    node_modules/.bin/wasm-opt "${WASM_OPT_FLAGS[@]}" --debuginfo "$dir/chatstream_bg.wasm" -o "$dir/named.wasm"
  done
}

# What each module is made of: `twiggy top` of the named modules, into target/bench/twiggy-<name>.csv.
twiggy_tops() {
  if ! command -v twiggy >/dev/null; then
    say "installing twiggy (takes a few minutes)"
    cargo install twiggy
  fi
  local name target=${CARGO_TARGET_DIR:-target}
  for name in full streaming agent openai ai-sdk; do
    twiggy top -f csv "$target/bench/named-$name/named.wasm" > "target/bench/twiggy-$name.csv"
    say "twiggy top of the $name module: target/bench/twiggy-$name.csv"
  done
}

# `./build.sh load`: 1,000 concurrent streams through the proxy; the numbers go to BENCHMARKS.md.
run_load() {
  # Each stream holds a client and an upstream connection: raise the open-file limit.
  ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)" || true
  say "the proxy under load (cargo test --release -p chatstream-proxy --test load -- --ignored)"
  cargo test --release -p chatstream-proxy --test load -- --ignored --nocapture
}

# `./build.sh fuzz [SECONDS] [TARGET...]`: every cargo-fuzz target (nightly) for SECONDS each.
run_fuzz() {
  if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
    say "installing cargo-fuzz (takes a minute or two)"
    cargo install cargo-fuzz
  fi
  fuzz/run.sh "$@"
}

test_bench_smoke() {
  say "benchmark harness smoke (tiny streams, no numbers kept)"
  node --expose-gc bench-js/live-run.js --smoke
  node bench-js/run.js --smoke
  node bench-js/memory.js --smoke
  node bench-js/ai-sdk-chat.js --smoke
  node bench-js/loading.js --smoke
}

# --- demo --------------------------------------------------------------------------------

run_demo() {
  build_pkg
  say "starting the proxy with its offline simulated provider"
  cargo build --release -p chatstream-proxy
  exec "${CARGO_TARGET_DIR:-target}/release/chatstream-proxy" --www "$ROOT/www" --pkg "$ROOT/pkg" "$@"
}

case "${1:-build}" in
  build) build_pkg ;;
  examples) build_pkg; build_examples ;;
  test) run_tests ;;
  demo) shift; run_demo "$@" ;;
  bench) run_bench ;;
  weight) build_pkg; named_modules; twiggy_tops; node bench-js/report.js --misses-section ;;
  fuzz) shift; run_fuzz "$@" ;;
  load) run_load ;;
  *)
    echo "usage: ./build.sh [build|test|demo|examples|bench|load|fuzz [seconds] [target...]]" >&2
    exit 2
    ;;
esac
