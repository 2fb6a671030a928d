#!/usr/bin/env bash
# Runs every fuzz target for SECONDS each (default 600), one after another, with a corpus seeded
# from the fixtures (ours and the recorded provider streams in tests/fixtures/recorded). Findings
# land in fuzz/artifacts/<target>/; keep each as a regression fixture once fixed.
#
#   fuzz/run.sh [SECONDS] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")"
seconds=${1:-600}
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  mapfile -t targets < <(cargo +nightly fuzz list)
fi

seed() {
  local target=$1 dir=corpus/$1 pattern
  mkdir -p "$dir"
  case $target in
    dialect_*) pattern=${target#dialect_}; pattern=${pattern//_/-} ;;
    *) pattern="" ;;
  esac
  # A corpus entry is the fuzzer's input: a cut count of 0, then the stream.
  for file in ../tests/fixtures/$pattern*/*.{sse,ndjson,txt} ../tests/fixtures/$pattern*.{sse,ndjson,txt} \
    ../tests/fixtures/recorded/$pattern*/*.{sse,ndjson,txt}; do
    [ -f "$file" ] || continue
    local name
    name=${file#../tests/fixtures/}
    name=${name//\//-}
    [ "$target" = framing ] && { { printf '\x00\x00'; cat "$file"; } > "$dir/$name"; continue; }
    # The redactor's input starts with a key: its length, then the key.
    [ "$target" = redactor ] && { { printf '\x15sk-test-CANARY-5c1d9e\x00'; cat "$file"; } > "$dir/$name"; continue; }
    { printf '\x00'; cat "$file"; } > "$dir/$name"
  done
}

cargo +nightly fuzz build
# Findings are the files libFuzzer writes under artifacts/ during this run.
started=$(mktemp)
trap 'rm -f "$started"' EXIT
for target in "${targets[@]}"; do
  seed "$target"
  echo "==> $target for ${seconds}s"
  cargo +nightly fuzz run "$target" "corpus/$target" -- -max_total_time="$seconds" -max_len=65536 -print_final_stats=1 \
    2>&1 | grep -E "^(stat::number_of_executed_units|stat::peak_rss_mb|==|SUMMARY|artifact_prefix|Test unit written)|panicked" || true
done

mapfile -t findings < <(find artifacts -type f -newer "$started" 2>/dev/null)
if [ ${#findings[@]} -gt 0 ]; then
  echo "==> ${#findings[@]} finding(s); replay one with: cargo +nightly fuzz run <target> <file>" >&2
  printf '  %s\n' "${findings[@]}" >&2
  exit 1
fi
echo "==> no findings"
