#!/usr/bin/env bash
# chat_run.sh - issue 14 point 8: `saltbox-chat run` writes 3000 messages
# into every design's table (embedded, or with `remote` through `saltbox
# serve`), then reads "latest 20 of the busiest room" and "one day" from
# each. Checked: every design returns the same messages; each read costs
# what its key allows (written out below: one range scan of 20 rows for the
# room key, a full scan for the MD5 key, 16 bucket scans for the salted
# one, 20 gets through the MD5 key's room index...); and, embedded, the
# recorded write traces replayed by keyviz: the time-first and id-first
# keys put all load on one server (score 4.00), the MD5 key spreads it.
# usage: chat_run.sh SALTBOX_CHAT SALTBOX TMPDIR embedded|remote
set -u
CHAT=${1:?saltbox-chat binary}
SALTBOX=${2:?saltbox binary}
TMP=${3:?temp dir}
MODE=${4:?embedded or remote}
rm -rf "$TMP" && mkdir -p "$TMP/traces"
FAILS=0
ok() { # NAME ACTUAL EXPECTED
	if [ "$2" != "$3" ]; then
		echo "FAIL: $1"; echo "   got:      $2"; echo "   expected: $3"
		FAILS=$((FAILS + 1))
	fi
}
STORE=(--data "$TMP/data")
SPID=
trap '[ -n "$SPID" ] && kill "$SPID" 2>/dev/null && wait "$SPID" 2>/dev/null' EXIT
if [ "$MODE" = remote ]; then
	"$SALTBOX" serve --port 0 --data "$TMP/store" >"$TMP/store.log" 2>&1 &
	SPID=$!
	URL=
	for _ in $(seq 1 400); do
		URL=$(sed -n 's|^saltbox serve: HBase REST on \(http://[^/ ]*\)/.*|\1|p' "$TMP/store.log")
		[ -n "$URL" ] && break
		sleep 0.05
	done
	[ -n "$URL" ] || { echo "FAIL: saltbox serve did not start"; cat "$TMP/store.log"; exit 1; }
	STORE=(--connect "$URL")
fi
"$CHAT" run "${STORE[@]}" --messages 3000 --rooms 100 --days 3 --latest 20 --rate 2000 \
	--trace-dir "$TMP/traces" >"$TMP/run.out" 2>"$TMP/run.err"
rc=$?
cat "$TMP/run.out"
ok "exit status" "$rc" 0
ok "agreement" "$(tail -1 "$TMP/run.out")" "every design returned the same messages"
ok "what was read" "$(grep '^latest ' "$TMP/run.out")" "latest 20 of r0000: ids 1234150..1234227; 1000 messages on 230612"
# design: latest (scans gets rows) | day (scans rows)
costs() { awk -v d="$1" '$1 == d { print $4, $5, $6, "|", $9, $10 }' "$TMP/run.out"; }
ok "chat_time: newest first from the end; the day one range scan" "$(costs chat_time)" "1 0 81 | 1 1000"
ok "chat_id: newest first from the end; the day a full scan" "$(costs chat_id)" "1 0 81 | 1 3000"
ok "chat_md5: full scans" "$(costs chat_md5)" "1 0 3000 | 1 3000"
ok "chat_salt: a scan per bucket" "$(costs chat_salt)" "16 0 1660 | 16 1000"
ok "chat_room: one range scan of 20; a scan per room for the day" "$(costs chat_room)" "1 0 20 | 100 1000"
ok "chat_md5+index: one index scan and 20 gets" \
	"$(awk '$1 == "chat_md5+index" { print $5, $6, $7 }' "$TMP/run.out")" "1 20 20"
if [ "$MODE" = embedded ]; then
	for d in chat_time chat_id chat_md5 chat_salt chat_room; do
		"$SALTBOX" keyviz simulate -t "$TMP/traces/$d.trace" --servers 4 --region-size 64KB \
			--rate 200 >"$TMP/$d.keyviz" 2>&1 || { echo "FAIL: keyviz $d"; FAILS=$((FAILS + 1)); }
	done
	score() { sed -n 's/^  hotspot  score \([0-9.]*\) .*/\1/p' "$TMP/$1.keyviz"; }
	echo "hotspot scores: time $(score chat_time) id $(score chat_id) md5 $(score chat_md5) salt $(score chat_salt) room $(score chat_room)"
	ok "chat_time: one server takes all writes" "$(score chat_time)" "4.00"
	ok "chat_id: one server takes all writes" "$(score chat_id)" "4.00"
	for d in chat_md5 chat_salt chat_room; do
		ok "$d: spread (score under 2)" "$(score $d | awk '{ print ($1 < 2) }')" 1
	done
fi
echo "chat_run.sh ($MODE): $FAILS failed"
[ "$FAILS" -eq 0 ]
