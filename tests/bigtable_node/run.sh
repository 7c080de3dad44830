#!/usr/bin/env bash
# run.sh - installs Google's Node.js Bigtable client (@google-cloud/bigtable)
# from the npm registry into TMPDIR, then runs test_bigtable against the
# emulator (run_bigtable.sh) with SBX_BT_NODE pointing at interop.js, so
# its cross-check runs: cells Saltbox writes read by Google's client, and
# cells that client writes read by Saltbox. Exit 77 (ctest: skipped) when
# node/npm are missing, the registry cannot be reached, or the emulator is
# not installed.
# usage: run.sh TEST_BIGTABLE_BINARY TMPDIR
set -u
BIN=${1:?test_bigtable binary}
TMP=${2:?temp dir}
HERE=$(cd "$(dirname "$0")" && pwd)
command -v node >/dev/null && command -v npm >/dev/null ||
	{ echo "SKIP: node and npm are needed for the Node.js Bigtable check"; exit 77; }
mkdir -p "$TMP/npm"
cp "$HERE/package.json" "$TMP/npm/package.json"
if [ ! -f "$TMP/npm/node_modules/@google-cloud/bigtable/package.json" ]; then
	if ! (cd "$TMP/npm" && timeout 400 npm install --no-audit --no-fund --loglevel=error >"$TMP/npm.log" 2>&1); then
		if grep -qiE 'ENOTFOUND|ECONNREFUSED|ETIMEDOUT|EAI_AGAIN|network|ECONNRESET' "$TMP/npm.log"; then
			echo "SKIP: npm cannot reach the registry:"; tail -5 "$TMP/npm.log"; exit 77
		fi
		echo "FAIL: npm install failed:"; cat "$TMP/npm.log"; exit 1
	fi
fi
export NODE_PATH="$TMP/npm/node_modules"
export SBX_BT_NODE="$HERE/interop.js"
exec sh "$HERE/../run_bigtable.sh" "$BIN" "$TMP/run"
