#!/usr/bin/env bash
# Build every libFuzzer target (fuzz/fuzz_*.c) with clang into build-fuzz and
# run each for N seconds (default 10) over its seed corpus
# fuzz/corpus/<target without "fuzz_">/. Exits non-zero if any target finds
# a crash, a leak or a timeout; the reproducer is left in
# build-fuzz/artifacts/. New inputs go to a scratch dir, so the checked-in
# corpus only changes when someone copies a regression case into it.
#   usage: scripts/fuzz-smoke.sh [SECONDS]      (env: JOBS, BUILD_DIR)
set -euo pipefail

secs=${1:-${FUZZ_SECONDS:-10}}
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build-fuzz}
jobs=${JOBS:-2}

targets=()
for src in "$root"/fuzz/fuzz_*.c; do
  [ -e "$src" ] && targets+=("$(basename "$src" .c)")
done
if [ ${#targets[@]} -eq 0 ]; then
  echo "fuzz-smoke: no fuzz targets" >&2
  exit 1
fi

CC=clang CXX=clang++ cmake -S "$root" -B "$build" \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSBX_FUZZ=ON -DSBX_WERROR=ON >/dev/null
cmake --build "$build" -j "$jobs" --target "${targets[@]}"

mkdir -p "$build/artifacts"
failed=()
for t in "${targets[@]}"; do
  corpus="$root/fuzz/corpus/${t#fuzz_}"
  mkdir -p "$corpus"
  scratch=$(mktemp -d)
  args=(-max_total_time="$secs" -timeout=10 -rss_limit_mb=2048
        -print_final_stats=1 -artifact_prefix="$build/artifacts/$t-")
  [ -f "$root/fuzz/$t.dict" ] && args+=(-dict="$root/fuzz/$t.dict")
  echo "fuzz-smoke: $t for ${secs}s over $corpus"
  if ! "$build/fuzz/$t" "${args[@]}" "$scratch" "$corpus"; then
    failed+=("$t")
  fi
  rm -rf "$scratch"
done

if [ ${#failed[@]} -ne 0 ]; then
  echo "fuzz-smoke: FAILED: ${failed[*]} (reproducers in $build/artifacts)" >&2
  exit 1
fi
echo "fuzz-smoke: all ${#targets[@]} targets ran ${secs}s without a finding"
