#!/usr/bin/env bash
# Install the Debian packages Saltbox builds and tests with. Idempotent:
# does nothing when everything is present. Needs root only to install.
set -euo pipefail

PACKAGES=(
  build-essential cmake pkg-config
  librocksdb-dev liblz4-dev libzstd-dev libsnappy-dev
  libjansson-dev libssl-dev libxxhash-dev libedit-dev libpcre2-dev
  libcurl4-openssl-dev libmicrohttpd-dev libexpat1-dev
  libprotobuf-c-dev protobuf-c-compiler
  libgrpc-dev  # the Cloud Bigtable backend (src/bigtable/): gRPC C core
  libsqlite3-dev liblmdb-dev
  clang libclang-rt-14-dev
  curl wrk nginx-light libxml2-utils
  python3  # scripts/check-layers.py (ctest: layers)
  chromium  # headless browser for the /ui test (tests/test_ui.sh)
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "bootstrap: installing missing Debian packages: ${missing[*]}"
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
