#!/usr/bin/env bash
# test_ui.sh - /ui of `saltbox serve` end to end.
#  1. The JSON API with curl: a table pre-split into 4 regions, 5 writes that
#     all land in the last region, 1 write + 1 read per region of a second
#     table; tables/regions/heatmap bodies checked against values written out.
#  2. The page in Debian's headless chromium while a hotspotting workload runs
#     (monotonically increasing keys, all beyond the last split): the DOM after
#     the page's JS ran must mark the region starting at 30000 hot - in the
#     banner, the heatmap and the region table - and nothing else; the evenly
#     loaded table must show no hot region. Screenshots are kept as artifacts:
#     TMPDIR/ui-hot.png and TMPDIR/ui-even.png.
#  3. Issue 17: the heatmap by key (GET .../keyheat, an SVG drawn by the
#     renderer `saltbox keyviz` uses) and the one verdict: a one-region table
#     'seq' fed increasing keys (one server takes 100%) must say "hot" in
#     words and in red in the banner and the key heatmap; hover text gives
#     each key bucket's range and figures; region boundaries are drawn over
#     the key buckets ('even': keys 00001..30001 across splits 10000..30000).
#     Screenshot TMPDIR/ui-seq.png.
# usage: test_ui.sh SALTBOX_BINARY TMPDIR
set -u
SALTBOX=${1:?saltbox binary}
TMP=${2:?temp dir}
SRC=$(cd "$(dirname "$0")/.." && pwd)
rm -rf "$TMP" && mkdir -p "$TMP"
command -v curl >/dev/null || { echo "SKIP: curl is not installed"; exit 77; }

# Chromium comes from the project's bootstrap script (Debian package chromium).
CHROMIUM=${SBX_CHROMIUM:-$(command -v chromium || true)}
if [ -z "$CHROMIUM" ] && [ "$(id -u)" -eq 0 ]; then
	"$SRC/scripts/bootstrap.sh" >"$TMP/bootstrap.log" 2>&1
	CHROMIUM=$(command -v chromium || true)
fi
[ -n "$CHROMIUM" ] || { echo "SKIP: chromium is not installed (scripts/bootstrap.sh installs it as root)"; exit 77; }

FAILS=0
SERVER_PID=
LOAD_PID=
cleanup() {
	[ -n "$LOAD_PID" ] && kill "$LOAD_PID" 2>/dev/null && wait "$LOAD_PID" 2>/dev/null
	[ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null && wait "$SERVER_PID" 2>/dev/null
}
trap cleanup EXIT

ok() { # NAME ACTUAL EXPECTED
	if [ "$2" != "$3" ]; then
		echo "FAIL: $1"; echo "   got:      $2"; echo "   expected: $3"
		FAILS=$((FAILS + 1))
	fi
}
# req METHOD PATH [curl args...] -> STATUS, BODY, CTYPE
req() {
	local m=$1 p=$2; shift 2
	STATUS=$(curl -s -g -o "$TMP/body" -D "$TMP/hdrs" -w '%{http_code}' -X "$m" "$@" "$URL$p")
	BODY=$(cat "$TMP/body")
	CTYPE=$(tr -d '\r' <"$TMP/hdrs" | grep -i '^content-type:' | sed 's/^[^:]*: //')
}
b64() { printf '%s' "$1" | base64 -w0; }
put_row() { # TABLE ROW
	curl -s -o /dev/null -w '%{http_code}' -X PUT -H 'Content-Type: application/json' \
		-d "{\"Row\":[{\"key\":\"$(b64 "$2")\",\"Cell\":[{\"column\":\"$(b64 cf:v)\",\"\$\":\"$(b64 value)\"}]}]}" \
		"$URL/$1/$2/cf:v"
}

# ---- a store with two tables pre-split at 10000, 20000, 30000 ------------------
DATA=$TMP/data
printf "%s\n" "create 'hot', 'cf', SPLITS => ['10000', '20000', '30000']" \
	"create 'even', 'cf', SPLITS => ['10000', '20000', '30000']" \
	"create 'seq', 'cf'" \
	'create '"'bin'"', '"'cf'"', SPLITS => ["\x00\x01", "a\\b", "\xff"]' |
	"$SALTBOX" shell --data "$DATA" >"$TMP/shell.log" 2>&1 ||
	{ echo "FAIL: could not create the tables"; cat "$TMP/shell.log"; exit 1; }
# 10 s metrics buckets: the heatmap checks below look at the last 10
# buckets, which must still hold this test's writes on a busy machine
"$SALTBOX" serve --data "$DATA" --port 0 --metrics-bucket-ms 10000 >"$TMP/serve.log" 2>&1 &
SERVER_PID=$!
URL=
for _ in $(seq 1 200); do
	URL=$(grep -o 'http://127.0.0.1:[0-9]*' "$TMP/serve.log" | head -1)
	[ -n "$URL" ] && break
	sleep 0.05
done
[ -n "$URL" ] || { echo "FAIL: server did not start"; cat "$TMP/serve.log"; exit 1; }

# ---- 1. the JSON API ------------------------------------------------------------
req GET /ui/api/tables
ok "tables" "$STATUS $CTYPE $BODY" \
	'200 application/json {"servers":4,"tables":[{"name":"bin","enabled":true,"families":["cf"],"regions":4},{"name":"even","enabled":true,"families":["cf"],"regions":4},{"name":"hot","enabled":true,"families":["cf"],"regions":4},{"name":"seq","enabled":true,"families":["cf"],"regions":1}]}'

for i in 1 2 3 4 5; do ok "put hot 3000$i" "$(put_row hot 3000$i)" 200; done
for k in 00001 10001 20001 30001; do
	ok "put even $k" "$(put_row even $k)" 200
	ok "get even $k" "$(curl -s -o /dev/null -w '%{http_code}' -H 'Accept: application/json' "$URL/even/$k")" 200
done
# The server panel's figures: the 9 PUTs above, one at a time, were 9
# group commits of one request each; no scanner is open, then one is.
req GET /ui/api/server
ok "server" "$STATUS $CTYPE $BODY" \
	'200 application/json {"group_commit":{"enabled":true,"requests":9,"batches":9,"largest":1,"handoffs":0},"scanners":{"open":0,"max":10000,"max_per_client":100}}'
SCANNER=$(curl -s -D - -o /dev/null -X PUT -H 'Content-Type: application/json' -d '{}' "$URL/even/scanner" |
	tr -d '\r' | sed -n 's/^[Ll]ocation: //p')
req GET /ui/api/server
ok "server: a scanner open" "$(echo "$BODY" | grep -o '"scanners":{"open":[0-9]*')" '"scanners":{"open":1'
ok "scanner deleted" "$(curl -s -o /dev/null -w '%{http_code}' -X DELETE "$SCANNER")" 200

# Region names carry the creation time: checked by shape, then left out.
req GET /ui/api/table/hot/regions
ok "regions status" "$STATUS $CTYPE" "200 application/json"
ok "region names" "$(echo "$BODY" | grep -o '"name":"[^"]*","encoded":"[0-9a-f]*","id":[0-9]*' |
	sed -E 's/\.[0-9a-f]{32}\./.MD5./; s/"encoded":"[0-9a-f]{32}"/"encoded":MD5/; s/[0-9]{13}/ID/g' | tr '\n' ' ')" \
	'"name":"hot,,ID.MD5.","encoded":MD5,"id":ID "name":"hot,10000,ID.MD5.","encoded":MD5,"id":ID "name":"hot,20000,ID.MD5.","encoded":MD5,"id":ID "name":"hot,30000,ID.MD5.","encoded":MD5,"id":ID '
NOSIZE='s/"name":"[^"]*","encoded":"[0-9a-f]*","id":[0-9]*,//g; s/"store_file_size":[0-9]*,"memstore_size":[0-9]*/SIZES/g'
ok "regions" "$(echo "$BODY" | sed -E "$NOSIZE")" \
	'{"table":"hot","servers":4,"regions":[{"start_key":"","end_key":"10000","server":"server-0","read_request_count":0,"write_request_count":0,"filtered_read_request_count":0,"read_bytes":0,"write_bytes":0,"cells_written":0,SIZES,"row_cache_hits":0,"row_cache_misses":0},{"start_key":"10000","end_key":"20000","server":"server-1","read_request_count":0,"write_request_count":0,"filtered_read_request_count":0,"read_bytes":0,"write_bytes":0,"cells_written":0,SIZES,"row_cache_hits":0,"row_cache_misses":0},{"start_key":"20000","end_key":"30000","server":"server-2","read_request_count":0,"write_request_count":0,"filtered_read_request_count":0,"read_bytes":0,"write_bytes":0,"cells_written":0,SIZES,"row_cache_hits":0,"row_cache_misses":0},{"start_key":"30000","end_key":"","server":"server-3","read_request_count":0,"write_request_count":5,"filtered_read_request_count":0,"read_bytes":0,"write_bytes":70,"cells_written":5,SIZES,"row_cache_hits":0,"row_cache_misses":0}]}'
# 14 bytes per cell: row (5), family and qualifier, value (5)
ok "memstore of the hot region" "$(echo "$BODY" | grep -o '"memstore_size":[0-9]*' | tr '\n' ' ')" \
	'"memstore_size":0 "memstore_size":0 "memstore_size":0 "memstore_size":70 '

# Binary keys as HBase prints them (Bytes.toStringBinary), JSON-escaped.
req GET /ui/api/table/bin/regions
ok "binary keys" "$(echo "$BODY" | grep -o '"start_key":"[^"]*","end_key":"[^"]*"' | tr '\n' ' ')" \
	'"start_key":"","end_key":"\\x00\\x01" "start_key":"\\x00\\x01","end_key":"a\\x5Cb" "start_key":"a\\x5Cb","end_key":"\\xFF" "start_key":"\\xFF","end_key":"" '

# The 5 writes may straddle a bucket boundary: the values are summed per row.
req GET '/ui/api/table/hot/heatmap?buckets=10'
ok "heatmap status" "$STATUS $CTYPE" "200 application/json"
ok "heatmap" "$(echo "$BODY" | sed -E 's/"start_ms":[0-9]+/"start_ms":T/; s/"max":[0-9]+/"max":M/; s/"values":\[[0-9,]*\]/V/g')" \
	'{"table":"hot","metric":"ops","bucket_ms":10000,"buckets":10,"start_ms":T,"max":M,"total":5,"score":4.00,"busiest_share":1.00,"region_score":4.00,"verdict":{"level":"hot","color":"#d32f2f","score":4.00,"busiest_share":1.0000,"busiest_server":3,"hot_from":2.00,"text":"hot: server-3 served 100% of the load; hotspot score 4.00 of 4 (1 = even, hot from 2.00)"},"hottest":3,"rows":[{"start_key":"","end_key":"10000","server":"server-0","total":0,"hot":false,V},{"start_key":"10000","end_key":"20000","server":"server-1","total":0,"hot":false,V},{"start_key":"20000","end_key":"30000","server":"server-2","total":0,"hot":false,V},{"start_key":"30000","end_key":"","server":"server-3","total":5,"hot":true,V}],"servers":[{"name":"server-0","regions":1,"total":0},{"name":"server-1","regions":1,"total":0},{"name":"server-2","regions":1,"total":0},{"name":"server-3","regions":1,"total":5}]}'
sums=$(echo "$BODY" | grep -o '"values":\[[0-9,]*\]' | while read -r v; do
	v=${v#*[}; v=${v%]}; echo "$(echo "$v" | tr ',' '\n' | wc -l)/$(( ${v//,/+} ))"; done | tr '\n' ' ')
ok "heatmap values: 10 buckets per row, summing to the row totals" "$sums" "10/0 10/0 10/0 10/5 "
ok "heatmap start is 9 buckets before the current one" \
	"$(( ($(date +%s) - $(echo "$BODY" | grep -o '"start_ms":[0-9]*' | cut -d: -f2) / 1000) <= 100 ))" 1

req GET '/ui/api/table/hot/heatmap?buckets=10&metric=reads'
ok "reads heatmap: nothing hot" "$(echo "$BODY" | grep -o '"total":[0-9]*,"score".*,"hottest":[a-z0-9]*')" \
	'"total":0,"score":0.00,"busiest_share":0.00,"region_score":0.00,"verdict":{"level":"idle","color":"#757575","score":0.00,"busiest_share":0.0000,"busiest_server":-1,"hot_from":2.00,"text":"idle: no load"},"hottest":null'
req GET '/ui/api/table/hot/heatmap?buckets=10&metric=write_bytes'
ok "write_bytes heatmap" "$(echo "$BODY" | grep -o '"metric":"[a-z_]*"\|"total":[0-9]*,"score".*,"hottest":[a-z0-9]*' | tr '\n' ' ')" \
	'"metric":"write_bytes" "total":70,"score":4.00,"busiest_share":1.00,"region_score":4.00,"verdict":{"level":"hot","color":"#d32f2f","score":4.00,"busiest_share":1.0000,"busiest_server":3,"hot_from":2.00,"text":"hot: server-3 served 100% of the load; hotspot score 4.00 of 4 (1 = even, hot from 2.00)"},"hottest":3 '
req GET '/ui/api/table/even/heatmap?buckets=10'
# (its server score depends on how the 8 requests fell into buckets)
ok "even table: load spread, nothing hot" \
	"$(echo "$BODY" | sed -E 's/"verdict":\{[^}]*\},//' | grep -o '"total":[0-9]*,"score"\|"region_score":[0-9.]*,"hottest":[a-z0-9]*\|"hot":[a-z]*' | tr '\n' ' ')" \
	'"total":8,"score" "region_score":1.00,"hottest":null "hot":false "hot":false "hot":false "hot":false '
req GET '/ui/api/table/even/regions'
ok "even table: one read and one write per region" \
	"$(echo "$BODY" | grep -o '"read_request_count":[0-9]*,"write_request_count":[0-9]*' | sort | uniq -c | sed 's/^ *//')" \
	'4 "read_request_count":1,"write_request_count":1'
ok "even table: each region's get missed the row cache" \
	"$(echo "$BODY" | grep -o '"row_cache_hits":[0-9]*,"row_cache_misses":[0-9]*' | sort | uniq -c | sed 's/^ *//')" \
	'4 "row_cache_hits":0,"row_cache_misses":1'

# Errors: JSON bodies with HBase-like status codes.
req GET /ui/api/table/nope/heatmap
ok "missing table" "$STATUS $BODY" "404 {\"error\":\"table 'nope' not found\"}"
req GET '/ui/api/table/hot/heatmap?buckets=0'
ok "buckets=0" "$STATUS $BODY" '400 {"error":"buckets must be between 1 and 3600"}'
req GET '/ui/api/table/hot/heatmap?buckets=x'
ok "buckets=x" "$STATUS $BODY" '400 {"error":"query parameter buckets must be an integer"}'
req GET '/ui/api/table/hot/heatmap?metric=cpu'
ok "unknown metric" "$STATUS $BODY" "400 {\"error\":\"unknown metric 'cpu' (ops, reads, writes, bytes, read_bytes or write_bytes)\"}"
req GET /ui/api/table/hot/splits
ok "unknown view" "$STATUS $BODY" "404 {\"error\":\"no such view 'splits' (regions, heatmap or keyheat)\"}"

# The heatmap by key of 'even' (keys 00001 10001 20001 30001, one read and
# one write each): one bucket per distinct key, labelled by the one byte
# that tells them apart, the 3 region boundaries at the buckets starting at
# or after 10000, 20000, 30000; hover: the bucket's key range and figures.
req GET '/ui/api/table/even/keyheat?buckets=10&rows=8'
ok "keyheat status" "$STATUS $CTYPE" "200 image/svg+xml"
ok "keyheat labels" "$(echo "$BODY" | grep -o '<text class="key-label"[^>]*>[^<]*' | sed 's/.*>//' | tr '\n' ' ')" '0 1 2 3 '
ok "keyheat region boundaries (rows 1 2 3 of 24 px)" \
	"$(echo "$BODY" | grep -o '<line class="region-boundary"[^>]*' | grep -o 'y1="[0-9.]*"' | tr '\n' ' ')" \
	'y1="86.0" y1="110.0" y1="134.0" '
ok "keyheat hover: range and figures of a bucket (sum over the window)" \
	"$(echo "$BODY" | tr '\n' ' ' | grep -o '<title>keys \[10001, 20001)[^<]*' | grep -o '[0-9]* reads, [0-9]* writes' | awk -F'[ ,]+' '{ r += $1; w += $3 } END { print r " reads, " w " writes" }')" \
	'1 reads, 1 writes'
ok "keyheat colour scale has its unit" \
	"$(echo "$BODY" | grep -o '<text class="scale-unit"[^>]*>[^<]*' | sed -E 's/.*>//; s/to [0-9]+/to N/')" \
	'colour scale: 0 to N ops per 1 s column (the brightest cell)'
req GET '/ui/api/table/even/keyheat?rows=0'
ok "keyheat rows=0" "$STATUS $BODY" '400 {"error":"rows must be between 1 and 256"}'
req GET /ui/api/nothing
ok "unknown api path" "$STATUS $BODY" "404 {\"error\":\"unknown API path '/ui/api/nothing'\"}"
req POST /ui/api/tables
ok "POST" "$STATUS $BODY" '405 {"error":"the UI is read-only: GET only"}'
req GET /ui/api/table/default%3Ahot/regions
ok "namespaced, percent-encoded name" "$STATUS $(echo "$BODY" | grep -o '"table":"[^"]*"')" '200 "table":"default:hot"'

# The page and its assets; the REST routes around /ui are untouched.
for p in /ui /ui/ /ui/index.html; do
	req GET "$p"
	ok "page $p" "$STATUS $CTYPE $(echo "$BODY" | grep -o '<script src="/ui/ui.js"></script>')" \
		'200 text/html; charset=utf-8 <script src="/ui/ui.js"></script>'
done
req GET /ui/ui.js
ok "ui.js" "$STATUS $CTYPE $(echo "$BODY" | grep -c "'use strict'")" "200 text/javascript; charset=utf-8 1"
req GET /ui/ui.css
ok "ui.css" "$STATUS $CTYPE" "200 text/css; charset=utf-8"
req GET / -H 'Accept: application/json'
ok "REST table list still served" "$STATUS $BODY" '200 {"table":[{"name":"bin"},{"name":"even"},{"name":"hot"},{"name":"seq"}]}'
req GET /ui/schema -H 'Accept: application/json'
ok "a table named ui keeps its REST routes" "$STATUS" 404
req GET /hot/30001/cf:v -H 'Accept: application/json'
ok "REST get still served" "$STATUS" 200

# ---- 2. the page in headless chromium under a hotspotting workload --------------
# Monotonically increasing keys 3xxxxxxx (all past the last split, 30000) in
# batches of 20, plus one read and one write per region of 'even'.
workload() {
	local n=0 col val rows k key p
	col=$(b64 cf:v); val=$(b64 payload-0123456789)
	while :; do
		rows=""
		for k in $(seq 1 20); do
			n=$((n + 1)); key=$(printf '3%07d' "$n")
			rows="$rows${rows:+,}{\"key\":\"$(b64 "$key")\",\"Cell\":[{\"column\":\"$col\",\"\$\":\"$val\"}]}"
		done
		curl -s -o /dev/null -X PUT -H 'Content-Type: application/json' -d "{\"Row\":[$rows]}" "$URL/hot/batch"
		curl -s -o /dev/null -X PUT -H 'Content-Type: application/json' -d "{\"Row\":[$rows]}" "$URL/seq/batch"
		for p in 00001 10001 20001 30001; do
			put_row even "$p" >/dev/null
			curl -s -o /dev/null -H 'Accept: application/json' "$URL/even/$p"
		done
		sleep 0.1
	done
}
workload &
LOAD_PID=$!
sleep 3 # a few buckets of load before the page opens

# chromium PAGE OUT_PREFIX: the DOM after ~5 s of (virtual) page time, and a
# screenshot, each from a fresh profile.
browse() {
	local flags=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run
		--disable-background-networking --disable-component-update --disable-sync
		--virtual-time-budget=5000 --window-size=1280,1000)
	rm -rf "$TMP/profile"
	timeout 120 "$CHROMIUM" "${flags[@]}" --user-data-dir="$TMP/profile" --dump-dom "$URL$1" \
		>"$TMP/$2.html" 2>>"$TMP/chromium.log"
	# a loaded machine can starve chromium past its timeout: a second try
	# tells that apart from a page that cannot render
	local try
	for try in 1 2; do
		rm -rf "$TMP/profile" "$TMP/$2.png"
		timeout 120 "$CHROMIUM" "${flags[@]}" --user-data-dir="$TMP/profile" --screenshot="$TMP/$2.png" "$URL$1" \
			>>"$TMP/chromium.log" 2>&1
		[ -s "$TMP/$2.png" ] && break
		echo "no screenshot from chromium (try $try)" >>"$TMP/chromium.log"
	done
	[ -s "$TMP/$2.png" ] || { echo "FAIL: no screenshot $TMP/$2.png"; FAILS=$((FAILS + 1)); }
}
hot_marks() { # every element of the DOM carrying the class hot
	grep -oE '<[a-z]+ [^>]*class="([^"]* )?hot( [^"]*)?"[^>]*>' "$TMP/$1.html"
}

browse '/ui/#table=hot' ui-hot
ok "page refreshed live (>= 3 times)" "$(grep -o 'data-refreshes="[0-9]*"' "$TMP/ui-hot.html" |
	grep -o '[0-9]*' | awk '{ print ($1 >= 3) }')" 1
ok "page shows table hot" "$(grep -o '<h2 id="table-name">[^<]*' "$TMP/ui-hot.html")" '<h2 id="table-name">hot'
ok "server panel: writes grouped" \
	"$(grep -o '<dd id="gc-requests">[^<]*' "$TMP/ui-hot.html" | sed -E 's/>[0-9.]+k? in [0-9.]+k? commits$/>N in M commits/')" \
	'<dd id="gc-requests">N in M commits'
ok "server panel: open scanners" "$(grep -o '<dd id="open-scanners">[^<]*' "$TMP/ui-hot.html")" \
	'<dd id="open-scanners">0 of 10.0k'
ok "hot marks: banner, heatmap row, region row - all on 30000" "$(hot_marks ui-hot | sed -E 's/ data-region-index="[^"]*"//g; s/ style="[^"]*"//')" \
'<div id="hot-banner" class="hot" data-verdict="hot" data-start-key="30000">
<g class="row hot hottest" data-start-key="30000">
<tr class="hot hottest" data-start-key="30000">
<span class="badge hot">'
ok "banner names the region and its server" \
	"$(grep -o '<div id="hot-banner".*</div>' "$TMP/ui-hot.html" | grep -o 'hot region [^:]*:')" \
	'hot region [30000, (end)) on server-3:'
ok "banner's hotspot score: one of 4 servers does everything" \
	"$(grep -o 'hotspot score [0-9.]* of [0-9]*' "$TMP/ui-hot.html" | sort -u | tr '\n' ' ')" 'hotspot score 4.00 of 4 '
ok "heatmap rows labelled by start key" \
	"$(grep -o '<text class="label"[^>]*>[^<]*' "$TMP/ui-hot.html" | sed 's/.*>//' | tr '\n' ' ')" \
	'(start) 10000 20000 30000 '
ok "busiest server bar" "$(grep -o '<div class="server busiest" data-server="[^"]*"' "$TMP/ui-hot.html")" \
	'<div class="server busiest" data-server="server-3"'
ok "region table rows" "$(grep -o '<tr class="[^"]*" data-start-key="[^"]*"' "$TMP/ui-hot.html" | tr '\n' ' ')" \
	'<tr class="" data-start-key="" <tr class="" data-start-key="10000" <tr class="" data-start-key="20000" <tr class="hot hottest" data-start-key="30000" '

browse '/ui/#table=even' ui-even
ok "page shows table even" "$(grep -o '<h2 id="table-name">[^<]*' "$TMP/ui-even.html")" '<h2 id="table-name">even'
ok "even table: nothing marked hot" "$(hot_marks ui-even)" ""
# each workload round puts then gets every row: the put merges into the
# cached row, so after the first round the gets hit
ok "even table: row cache hit rate shown per region, hits counted" \
	"$(grep -oE '<td class="num cache" title="[0-9]+ hits, [0-9]+ misses">[0-9]+%' "$TMP/ui-even.html" |
		sed -E 's/title="([0-9]+) hits.*/\1/' | awk '{ print ($NF > 0) }' | tr '\n' ' ')" '1 1 1 1 '
ok "even table: no server flagged busiest" "$(grep -c 'class="server busiest"' "$TMP/ui-even.html")" 0
ok "even table: banner" "$(grep -o '<div id="hot-banner".*</div>' "$TMP/ui-even.html" | head -1 | sed -E 's/ style="[^"]*"//g; s/(spread over the servers\.).*/\1/')" \
	'<div id="hot-banner" class="even" data-verdict="even"><span class="verdict-word">even</span> — no hot region: load is spread over the servers.'

# Issue 17: 'seq' is one region taking increasing keys, so one server
# serves 100%: the verdict says hot, in words and in red, everywhere.
browse '/ui/#table=seq' ui-seq
ok "seq: page shows table seq" "$(grep -o '<h2 id="table-name">[^<]*' "$TMP/ui-seq.html")" '<h2 id="table-name">seq'
ok "seq: banner says hot, in red" \
	"$(grep -o '<div id="hot-banner"[^>]*><span class="verdict-word"[^>]*>[^<]*' "$TMP/ui-seq.html" | sed -E 's/ data-start-key="[^"]*"//')" \
	'<div id="hot-banner" class="hot" data-verdict="hot" style="border-left-color: rgb(211, 47, 47);"><span class="verdict-word" style="color: rgb(211, 47, 47);">hot'
ok "seq: the one region is marked hot" "$(hot_marks ui-seq | sed -E 's/ data-region-index="[^"]*"//g; s/ style="[^"]*"//; s/ data-start-key="[^"]*"//' | tr '\n' ' ')" \
	'<div id="hot-banner" class="hot" data-verdict="hot"> <g class="row hot hottest"> <tr class="hot hottest"> <span class="badge hot"> '
ok "seq: banner text" "$(grep -o '<div id="hot-banner".*</div>' "$TMP/ui-seq.html" | grep -o 'hot region \[(start), (end)) on server-[0-9]: 100%' | sed 's/server-[0-9]/server-N/')" \
	'hot region [(start), (end)) on server-N: 100%'
ok "seq: key heatmap verdict in words and red" \
	"$(grep -o '<text class="verdict"[^>]*>[^<]*' "$TMP/ui-seq.html" | sed -E 's/ x="[^"]*" y="[^"]*"//; s/server-[0-9]/server-N/')" \
	'<text class="verdict" data-verdict="hot" font-size="11" font-weight="bold" fill="#d32f2f">hot: server-N served 100% of the load; hotspot score 4.00 of 4 (1 = even, hot from 2.00)'
ok "seq: key heatmap has 32 key buckets (the rows asked for)" \
	"$(grep -o '<g class="key-row"' "$TMP/ui-seq.html" | wc -l)" 32
ok "seq: hover text names a key range and figures" \
	"$(tr '\n' ' ' <"$TMP/ui-seq.html" | grep -o '<title>keys \[3[0-9]*, 3[0-9]*) -[0-9]* s: [0-9]* reads, [0-9]* writes, [0-9.]* [KMG]*i*B' | head -1 | sed -E 's/[0-9.]+ (B|KiB|MiB|GiB)/BYTES/; s/[0-9]+/N/g')" \
	'<title>keys [N, N) -N s: N reads, N writes, BYTES'
ok "seq: key axis title and labels" "$(grep -c 'class="axis-title"' "$TMP/ui-seq.html")" 1

kill "$LOAD_PID" 2>/dev/null; wait "$LOAD_PID" 2>/dev/null; LOAD_PID=

# ---- shutdown: clean exit, and nothing for the sanitizers to report --------------
kill -TERM "$SERVER_PID"; wait "$SERVER_PID"; rc=$?; SERVER_PID=
ok "server exit status" "$rc" 0
if grep -q 'Sanitizer' "$TMP/serve.log"; then
	echo "FAIL: sanitizer report in $TMP/serve.log"; FAILS=$((FAILS + 1))
fi

echo "screenshots: $TMP/ui-hot.png $TMP/ui-even.png $TMP/ui-seq.png"
if [ "$FAILS" -ne 0 ]; then
	echo "$FAILS check(s) failed (server log: $TMP/serve.log, DOM: $TMP/ui-*.html)"
	exit 1
fi
echo "test_ui: all checks passed"
