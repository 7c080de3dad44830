#!/usr/bin/env bash
# run.sh - installs node-hbase (npm `hbase`) from the registry into TMPDIR,
# starts `saltbox serve` on a free port and runs test.js against it.
# Exit 77 (ctest: skipped) only when node/npm are missing or the npm
# registry cannot be reached.
# SBX_SERVE_STORE, when set, replaces --data TMPDIR/data (e.g.
# "--connect bigtable://p/i": the server in front of Cloud Bigtable).
# usage: run.sh SALTBOX_BINARY TMPDIR
set -u
SALTBOX=${1:?saltbox binary}
TMP=${2:?temp dir}
HERE=$(cd "$(dirname "$0")" && pwd)
command -v node >/dev/null && command -v npm >/dev/null ||
	{ echo "SKIP: node and npm are needed for the node-hbase test"; exit 77; }
mkdir -p "$TMP"
rm -rf "$TMP/data"
cp "$HERE/package.json" "$TMP/package.json"
if [ ! -f "$TMP/node_modules/hbase/package.json" ]; then
	if ! (cd "$TMP" && timeout 300 npm install --no-audit --no-fund --loglevel=error >"$TMP/npm.log" 2>&1); then
		if grep -qiE 'ENOTFOUND|ECONNREFUSED|ETIMEDOUT|EAI_AGAIN|network|ECONNRESET' "$TMP/npm.log"; then
			echo "SKIP: npm cannot reach the registry:"; tail -5 "$TMP/npm.log"; exit 77
		fi
		echo "FAIL: npm install failed:"; cat "$TMP/npm.log"; exit 1
	fi
fi
# shellcheck disable=SC2086 # the store is words by design
"$SALTBOX" serve ${SBX_SERVE_STORE:---data "$TMP/data"} --port 0 >"$TMP/serve.log" 2>&1 &
PID=$!
trap 'kill $PID 2>/dev/null; wait $PID 2>/dev/null' EXIT
PORT=
for _ in $(seq 1 200); do
	PORT=$(grep -o 'http://127.0.0.1:[0-9]*' "$TMP/serve.log" 2>/dev/null | head -1 | sed 's/.*://')
	[ -n "$PORT" ] && break
	sleep 0.05
done
[ -n "$PORT" ] || { echo "FAIL: server did not start"; cat "$TMP/serve.log"; exit 1; }
NODE_PATH="$TMP/node_modules" HBASE_PORT=$PORT node "$HERE/test.js"
rc=$?
kill $PID; wait $PID
trap - EXIT
if grep -qE 'Sanitizer|runtime error' "$TMP/serve.log"; then
	echo "FAIL: sanitizer report from the server:"; cat "$TMP/serve.log"; exit 1
fi
exit $rc
