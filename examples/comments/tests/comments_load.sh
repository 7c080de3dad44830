#!/usr/bin/env bash
# comments_load.sh - issue 14 point 6, briefly: `saltbox-comments load`
# drives a service started with --trace at a target rate (all operations
# answered, none an error, the rate reached within 15%), the trace holds the
# product-comment index operations as records, and `saltbox keyviz compare`
# replays them through the seed's key and the timestamp-first one.
# usage: comments_load.sh SALTBOX_COMMENTS SALTBOX TMPDIR
set -u
COMMENTS=${1:?saltbox-comments binary}
SALTBOX=${2:?saltbox binary}
TMP=${3:?temp dir}
DIR=$(cd "$(dirname "$0")/.." && pwd)
rm -rf "$TMP" && mkdir -p "$TMP"
FAILS=0
"$COMMENTS" serve --data "$TMP/data" --port 0 --trace "$TMP/ops.trace" >"$TMP/comments.log" 2>&1 &
CPID=$!
trap 'kill "$CPID" 2>/dev/null; wait "$CPID" 2>/dev/null' EXIT
URL=
for _ in $(seq 1 400); do
	URL=$(sed -n 's|^saltbox-comments: serving \(http://[^/ ]*\)/.*|\1|p' "$TMP/comments.log")
	[ -n "$URL" ] && break
	sleep 0.05
done
[ -n "$URL" ] || { echo "FAIL: the service did not start"; cat "$TMP/comments.log"; exit 1; }
"$COMMENTS" load --url "$URL" --rate 60 --duration 5 --threads 4 --users 50 --products 50 \
	>"$TMP/load.out" 2>"$TMP/load.err"
rc=$?
cat "$TMP/load.out"
[ $rc -eq 0 ] || { echo "FAIL: load exited $rc"; tail -5 "$TMP/load.err"; FAILS=$((FAILS + 1)); }
grep -q 'errors 0$' "$TMP/load.out" || { echo "FAIL: load saw errors"; FAILS=$((FAILS + 1)); }
grep -qE '^load: +[0-9]+s +[0-9]+ ops +[0-9]+ ops/s$' "$TMP/load.err" ||
	{ echo "FAIL: no progress line"; FAILS=$((FAILS + 1)); }
rate=$(sed -n 's/^load: [0-9]* operations in [0-9.]* s: \([0-9]*\) ops\/s.*/\1/p' "$TMP/load.out")
[ "${rate:-0}" -ge 51 ] || { echo "FAIL: rate ${rate:-?} below 85% of 60"; FAILS=$((FAILS + 1)); }
for op in post read user top vote order; do
	grep -qE "^$op +[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +0$" "$TMP/load.out" ||
		{ echo "FAIL: no latency line for $op"; FAILS=$((FAILS + 1)); }
done
kill "$CPID"; wait "$CPID"; CPID=
[ -s "$TMP/ops.trace" ] || { echo "FAIL: no store trace"; FAILS=$((FAILS + 1)); }
bad=$(grep -cvE '^(put|scan)	product_id=p[0-9]+ ts=[0-9]+ content_len=[0-9]+$' "$TMP/ops.trace.records")
[ "$bad" = 0 ] || { echo "FAIL: $bad malformed record lines"; FAILS=$((FAILS + 1)); }
"$SALTBOX" keyviz compare -t "$TMP/ops.trace.records" -f "$DIR/keyviz.design" --servers 4 \
	--region-size 64KB --rate 60 >"$TMP/keyviz.out" 2>&1 ||
	{ echo "FAIL: keyviz compare"; FAILS=$((FAILS + 1)); }
cat "$TMP/keyviz.out"
for d in product_comment time_first; do
	grep -qE "^$d +2[23]\.0 +[0-9.]+ +[0-9.]+% " "$TMP/keyviz.out" ||
		{ echo "FAIL: keyviz line for $d"; FAILS=$((FAILS + 1)); }
done
echo "comments_load.sh: $FAILS failed"
[ "$FAILS" -eq 0 ]
