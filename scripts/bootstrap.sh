#!/usr/bin/env bash
# Install the Debian packages Saltbox needs. Idempotent: does nothing when
# everything is present. Needs root only to install.
#   scripts/bootstrap.sh [run|test] [--list]
#     run   (default) what building and running `saltbox` needs: `make run`
#     test  that, plus what the tests, benchmarks and fuzzing use (clang,
#           chromium, nginx, wrk, node, curl, xmllint, python3, SQLite and
#           LMDB for the benchmarks): `make test`
#     --list  print the mode's packages, one a line, and install nothing
set -euo pipefail

mode=run
list=0
for a in "$@"; do
  case "$a" in
    run|test) mode=$a ;;
    --list) list=1 ;;
    *) echo "usage: scripts/bootstrap.sh [run|test] [--list]" >&2; exit 2 ;;
  esac
done

RUN_PACKAGES=(
  build-essential cmake pkg-config
  librocksdb-dev liblz4-dev libzstd-dev libsnappy-dev
  libjansson-dev libssl-dev libxxhash-dev libedit-dev libpcre2-dev
  libcurl4-openssl-dev libmicrohttpd-dev libexpat1-dev
  libprotobuf-c-dev protobuf-c-compiler
  libgrpc-dev  # the Cloud Bigtable backend (src/bigtable/): gRPC C core
)
TEST_PACKAGES=(
  python3  # scripts/check-layers.py (ctest: layers)
  curl libxml2-utils  # tests/rest/rest_curl.sh
  chromium  # headless browser for the /ui test (tests/test_ui.sh)
  nodejs  # tests/rest_node (node-hbase; skipped without npm)
  clang libclang-rt-14-dev  # libFuzzer targets (scripts/fuzz-smoke.sh)
  wrk nginx-light  # bench/bench_rest.sh
  libsqlite3-dev liblmdb-dev  # bench/ baselines
)

PACKAGES=("${RUN_PACKAGES[@]}")
[ "$mode" = test ] && PACKAGES+=("${TEST_PACKAGES[@]}")

if [ "$list" = 1 ]; then
  printf '%s\n' "${PACKAGES[@]}"
  exit 0
fi

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "bootstrap ($mode): installing missing Debian packages: ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
  echo "bootstrap: these packages are missing and installing them needs root." >&2
  echo "bootstrap: run as root, or: sudo apt-get install ${missing[*]}" >&2
  exit 1
fi

export DEBIAN_FRONTEND=noninteractive
if ! apt-get install -y --no-install-recommends "${missing[@]}"; then
  apt-get update
  apt-get install -y --no-install-recommends "${missing[@]}"
fi
