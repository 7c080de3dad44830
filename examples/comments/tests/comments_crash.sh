#!/usr/bin/env bash
# comments_crash.sh - issue 14 point 3: SIGKILL saltbox-comments in the
# middle of a load of posts, edits, votes and deletes, ROUNDS times; after
# each kill `saltbox-comments check` resolves the locks the dead service
# left (once they expire) and must find every index row consistent with
# the comments; then the service restarts on the same store and the load
# goes on. Embedded: the store dies with the service. Remote: the service
# is a client of `saltbox serve`, which stays up (Haeinsa's dead client).
# usage: comments_crash.sh SALTBOX_COMMENTS SALTBOX TMPDIR embedded|remote [ROUNDS]
set -u
COMMENTS=${1:?saltbox-comments binary}
SALTBOX=${2:?saltbox binary}
TMP=${3:?temp dir}
MODE=${4:?embedded or remote}
ROUNDS=${5:-3}
rm -rf "$TMP" && mkdir -p "$TMP"
command -v curl >/dev/null || { echo "SKIP: curl is not installed"; exit 77; }

PIDS=()
CPID=
cleanup() {
	for p in "${PIDS[@]}" $CPID; do kill -9 "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
}
trap cleanup EXIT

wait_url() { # LOG SED-EXPR -> URL
	URL=
	for _ in $(seq 1 400); do
		URL=$(sed -n "$2" "$1" 2>/dev/null | head -1)
		[ -n "$URL" ] && return 0
		sleep 0.05
	done
	echo "FAIL: no URL in $1"; cat "$1"; exit 1
}

STORE=(--data "$TMP/data")
if [ "$MODE" = remote ]; then
	"$SALTBOX" serve --port 0 --data "$TMP/store" >"$TMP/store.log" 2>&1 &
	PIDS+=($!)
	wait_url "$TMP/store.log" 's|^saltbox serve: HBase REST on \(http://[^/ ]*\)/.*|\1|p'
	STORE=(--connect "$URL")
fi

start() { # round
	"$COMMENTS" serve "${STORE[@]}" --port 0 --rank-every 1 --lock-timeout-ms 1000 --test-commit-delay-ms 40 >"$TMP/comments.$1.log" 2>&1 &
	CPID=$!
	wait_url "$TMP/comments.$1.log" 's|^saltbox-comments: serving \(http://[^/ ]*\)/.*|\1|p'
}

start 0
J=(-s -o /dev/null -w '%{http_code}\n' -H 'Content-Type: application/json')
curl "${J[@]}" -X PUT "$URL/sellers/s1" -d '{"name":"Shop"}' >/dev/null
for p in 1 2 3; do
	curl "${J[@]}" -X PUT "$URL/products/p$p" -d '{"sellerId":"s1","content":""}' >/dev/null
done
for u in 1 2 3 4; do
	curl "${J[@]}" -X PUT "$URL/users/u$u" -d '{"name":"U","nickname":"u"}' >/dev/null
	for o in 1 2 3 4 5 6; do
		curl "${J[@]}" -X PUT "$URL/orders/o$u$o" -d "{\"userId\":\"u$u\",\"productIds\":[\"p1\",\"p2\",\"p3\"]}" >/dev/null
	done
done

# worker U: posts, edits, votes and deletes on its own orders, forever
worker() {
	local u=$1 n=0
	while :; do
		n=$((n + 1))
		local o=o$u$((RANDOM % 6 + 1)) p=p$((RANDOM % 3 + 1))
		local words=$(head -c $((RANDOM % 40 + 1)) /dev/zero | tr '\0' 'w')
		case $((RANDOM % 5)) in
		0 | 1) curl "${J[@]}" -X POST "$URL/products/$p/comments" -d "{\"orderId\":\"$o\",\"userId\":\"u$u\",\"content\":\"c$n $words\"}" ;;
		2) curl "${J[@]}" -X PATCH "$URL/products/$p/comments/$o" -d "{\"content\":\"edit $n $words\"}" ;;
		3) curl "${J[@]}" -X POST "$URL/products/$p/comments/$o/helpful" -d "{\"userId\":\"u$((RANDOM % 4 + 1))\"}" ;;
		4) curl "${J[@]}" -X DELETE "$URL/products/$p/comments/$o" ;;
		esac
	done >>"$TMP/codes.$u"
}

FAILS=0
RESOLVED=0
for round in $(seq 1 "$ROUNDS"); do
	WPIDS=()
	for u in 1 2 3 4; do worker $u & WPIDS+=($!); done
	sleep $((2 + round))
	kill -9 "$CPID"; wait "$CPID" 2>/dev/null; CPID=
	for w in "${WPIDS[@]}"; do kill "$w" 2>/dev/null; wait "$w" 2>/dev/null; done
	"$COMMENTS" check "${STORE[@]}" --lock-timeout-ms 1000 --wait-ms 10000 >"$TMP/check.$round" 2>&1
	rc=$?
	echo "round $round: $(tr '\n' ' ' <"$TMP/check.$round")"
	if [ $rc -ne 0 ] || ! grep -q ': 0 problem(s)$' "$TMP/check.$round"; then
		echo "FAIL: round $round: the check found problems"; cat "$TMP/check.$round"
		FAILS=$((FAILS + 1))
	fi
	r=$(sed -n 's/^locks: \([0-9]*\) resolved.*/\1/p' "$TMP/check.$round")
	RESOLVED=$((RESOLVED + ${r:-0}))
	start "$round"
done
# the service answers after the last restart; its rank timer (--rank-every 1)
# catches up with the products the load touched
code=$(curl "${J[@]}" "$URL/products/p1/comments?limit=100")
[ "$code" = 200 ] || { echo "FAIL: after restart GET answered $code"; FAILS=$((FAILS + 1)); }
for _ in $(seq 1 100); do
	grep -q 'rank batch: [0-9]* product' "$TMP/comments.$ROUNDS.log" && break
	sleep 0.1
done
grep -q 'rank batch: [0-9]* product' "$TMP/comments.$ROUNDS.log" ||
	{ echo "FAIL: the rank timer did not run"; cat "$TMP/comments.$ROUNDS.log"; FAILS=$((FAILS + 1)); }
sleep 1.5 # one more tick: nothing left to rank
kill "$CPID"; wait "$CPID" 2>/dev/null; CPID=
"$COMMENTS" check "${STORE[@]}" >"$TMP/check.final" 2>&1 ||
	{ echo "FAIL: final check"; cat "$TMP/check.final"; FAILS=$((FAILS + 1)); }
cat "$TMP/check.final"
grep -q '[1-9][0-9]* rank rows: 0 problem' "$TMP/check.final" ||
	{ echo "FAIL: no rank rows after the timer ran"; FAILS=$((FAILS + 1)); }
grep -q '^locks: 0 resolved, 0 remaining$' "$TMP/check.final" ||
	{ echo "FAIL: locks left after the final check"; cat "$TMP/check.final"; FAILS=$((FAILS + 1)); }
echo "requests by status: $(cat "$TMP"/codes.* | sort | uniq -c | tr -s ' \n' ' ')"
echo "locks resolved after the kills: $RESOLVED"
# the commits are slowed down so that the kills land inside them
[ "$RESOLVED" -gt 0 ] || { echo "FAIL: no kill landed inside a commit"; FAILS=$((FAILS + 1)); }
echo "comments_crash.sh ($MODE): $ROUNDS rounds, $FAILS failed"
[ "$FAILS" -eq 0 ]
