#!/usr/bin/env bash
# test_keyviz_report.sh - `saltbox keyviz compare --report FILE` (issue 17.5):
# one self-contained HTML page (no external URL, no script, opens offline)
# with the verdict in words, the designs side by side, their heatmaps,
# per-server load, lint findings and byte layouts; checked as text, then
# in Debian's headless chromium (DOM after rendering, and a screenshot kept
# as TMPDIR/report.png), offline: the page is a file:// URL.
# usage: test_keyviz_report.sh SALTBOX_BINARY TMPDIR
set -u
SALTBOX=${1:?saltbox binary}
TMP=${2:?temp dir}
rm -rf "$TMP" && mkdir -p "$TMP"
FAILS=0
ok() { # NAME ACTUAL EXPECTED
	if [ "$2" != "$3" ]; then
		echo "FAIL: $1"; echo "   got:      $2"; echo "   expected: $3"
		FAILS=$((FAILS + 1))
	fi
}
has() { # NAME FILE TEXT
	grep -qF -- "$3" "$2" || { echo "FAIL: $1: '$3' not in $2"; FAILS=$((FAILS + 1)); }
}

cat >"$TMP/w.workload" <<'W'
name sequential ids
ops 20000
rate 1000/s
field id sequence start=1
region_size 128KB
W
cat >"$TMP/d.design" <<'D'
seq = id:u64 mono
salted = salt(16, of=id) + id:u64
D
"$SALTBOX" keyviz compare -w "$TMP/w.workload" -f "$TMP/d.design" \
	--time-buckets 20 --key-buckets 16 --report "$TMP/report.html" >"$TMP/out.txt" 2>&1
ok "compare --report exit" "$?" "0"
R=$TMP/report.html
has "title" "$R" "<title>Row-key report: sequential ids</title>"
has "verdict seq" "$R" '<div class="verdict verdict-hot" id="verdict-seq"><b>seq</b>: Hot: one server takes 100% of the requests of every interval (even would be 25%), a hotspot: the other servers idle while it works.</div>'
has "verdict salted" "$R" '<div class="verdict verdict-even" id="verdict-salted"><b>salted</b>:'
has "best" "$R" "<p>The most even load: <b>salted</b>"
has "side by side" "$R" '<div class="design" id="design-seq">'
has "side by side 2" "$R" '<div class="design" id="design-salted">'
has "byte layout" "$R" '<b>salt</b><br>salt(16, of=id)<br>@0<br>1 B scattered</div>'
has "byte layout 2" "$R" '<b>id</b><br>u64<br>@1<br>8 B asc</div>'
ok "server rows" "$(grep -o '<tr><td>[0-3]</td><td>[0-9]*</td>' "$R" | wc -l)" "8"
has "lint rule" "$R" "[monotonic-leading-field]</b>"
has "lint source" "$R" '<i>Source: HBase Reference Guide, &quot;Hotspotting&quot;'
has "heatmaps" "$R" "<svg"
ok "two heatmaps" "$(grep -o '<svg ' "$R" | wc -l)" "2"
# self-contained: nothing fetched from anywhere (the SVG namespace is a
# name, not a fetch)
ok "external references" "$(grep -oE '(src|href)=|url\(|@import|<script|<link' "$R" | wc -l)" "0"
ok "URLs" "$(grep -oE 'https?://[^" ]*' "$R" | sort -u | tr '\n' ' ')" "http://www.w3.org/2000/svg "
# render draws the same report from saved results (the designs parsed
# again from their text)
"$SALTBOX" keyviz compare -w "$TMP/w.workload" -f "$TMP/d.design" \
	--time-buckets 20 --key-buckets 16 -q --json "$TMP/r.json" &&
	"$SALTBOX" keyviz render "$TMP/r.json" --report "$TMP/render.html" >>"$TMP/out.txt" 2>&1
ok "render --report exit" "$?" "0"
has "render byte layout" "$TMP/render.html" '<b>salt</b><br>salt(16, of=id)<br>@0<br>1 B scattered</div>'
has "render lint" "$TMP/render.html" "[monotonic-leading-field]</b>"
# no seed numbers in user-facing text
ok "seed numbers" "$(grep -ciE 'seed [0-9]{3}' "$R")" "0"

CHROMIUM=${SBX_CHROMIUM:-$(command -v chromium || true)}
if [ -z "$CHROMIUM" ]; then
	[ "$FAILS" -eq 0 ] || exit 1
	echo "SKIP: chromium is not installed (scripts/bootstrap.sh installs it as root)"
	exit 77
fi
flags=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run
	--disable-background-networking --disable-component-update --disable-sync
	--window-size=1400,1600)
rm -rf "$TMP/profile"
timeout 120 "$CHROMIUM" "${flags[@]}" --user-data-dir="$TMP/profile" --dump-dom "file://$R" \
	>"$TMP/dom.html" 2>>"$TMP/chromium.log"
ok "rendered verdicts" "$(grep -oE 'class="verdict verdict-[a-z]+"' "$TMP/dom.html" | tr '\n' ' ')" \
	'class="verdict verdict-hot" class="verdict verdict-even" '
ok "rendered heatmaps" "$(grep -o '<svg ' "$TMP/dom.html" | wc -l)" "2"
for try in 1 2; do
	rm -rf "$TMP/profile" "$TMP/report.png"
	timeout 120 "$CHROMIUM" "${flags[@]}" --user-data-dir="$TMP/profile" \
		--screenshot="$TMP/report.png" "file://$R" >>"$TMP/chromium.log" 2>&1
	[ -s "$TMP/report.png" ] && break
done
[ -s "$TMP/report.png" ] || { echo "FAIL: no screenshot"; FAILS=$((FAILS + 1)); }
echo "screenshot: $TMP/report.png"
[ "$FAILS" -eq 0 ] || { echo "$FAILS failure(s)"; exit 1; }
echo "ok"
