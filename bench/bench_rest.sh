#!/usr/bin/env bash
# bench_rest.sh - `saltbox serve` against nginx on loopback, in one run, with
# wrk: single-row GETs of a 100-byte value; single-cell PUTs to one hot row,
# to distinct random rows, and multi-row batch PUTs (HBase's CellSet PUT to
# /table/fakerow, BATCH rows a request); each side by side with nginx
# serving (or accepting) a body of the same size. Prints requests/s,
# saltbox/nginx ratios (issue 6: GET >= 0.5x; issue 16: distinct-row PUTs
# >= 0.5x) and the peak RSS of `saltbox serve` (VmHWM) after the runs.
# Each pair is measured ROUNDS times alternately (saltbox, nginx, saltbox,
# ...) and the medians are reported, so a noisy neighbour hits both sides.
#   usage: bench/bench_rest.sh [SALTBOX_BINARY] [SECONDS] [CONNECTIONS]
#   env:   ROUNDS (default 3), WRK_THREADS (default 2), BATCH (rows per
#          batch PUT, default 10), ROWS (distinct rows drawn, default 1000000),
#          SERVE_ARGS (more `saltbox serve` options, e.g. "--threads 2"),
#          CASES (the pairs to run, default all: get_row get_cell put_hot
#          put_rows put_batch)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
SALTBOX=${1:-$root/build/saltbox}
SECS=${2:-10}
CONNS=${3:-64}
THREADS=${WRK_THREADS:-2}
ROUNDS=${ROUNDS:-3}
BATCH=${BATCH:-10}
ROWS=${ROWS:-1000000}
read -r -a serve_args <<<"${SERVE_ARGS:-}"
CASES=" ${CASES:-get_row get_cell put_hot put_rows put_batch} "
for tool in wrk nginx curl; do
	command -v $tool >/dev/null || [ -x /usr/sbin/$tool ] ||
		{ echo "bench_rest: '$tool' is missing (scripts/bootstrap.sh installs it)"; exit 1; }
done
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
tmp=$(mktemp -d /tmp/bench_rest.XXXXXX)
chmod 755 "$tmp"
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done; rm -rf "$tmp"; }
trap cleanup EXIT

free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])' 2>/dev/null ||
		echo $((20000 + RANDOM % 20000))
}

# ---- saltbox -----------------------------------------------------------------
"$SALTBOX" serve --data "$tmp/data" --port 0 ${serve_args[@]+"${serve_args[@]}"} >"$tmp/serve.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 200); do
	SB=$(grep -o 'http://127.0.0.1:[0-9]*' "$tmp/serve.log" | head -1 || true)
	[ -n "$SB" ] && break
	sleep 0.05
done
[ -n "$SB" ] || { echo "bench_rest: saltbox did not start"; cat "$tmp/serve.log"; exit 1; }
value=$(head -c 100 /dev/zero | tr '\0' v)
curl -sf -X PUT -H 'Content-Type: application/json' \
	-d '{"ColumnSchema":[{"name":"f"}]}' "$SB/bench/schema" >/dev/null
curl -sf -X PUT -H 'Content-Type: application/octet-stream' --data-binary "$value" \
	"$SB/bench/row1/f:q" >/dev/null
curl -sf -H 'Accept: application/json' "$SB/bench/row1" >"$tmp/get.json"
curl -sf -H 'Accept: application/octet-stream' "$SB/bench/row1/f:q" >"$tmp/get.bin"

# ---- nginx with the same bodies -------------------------------------------------
NP=$(free_port)
mkdir -p "$tmp/www" "$tmp/ngx"
cp "$tmp/get.json" "$tmp/www/get.json"
cp "$tmp/get.bin" "$tmp/www/get.bin"
cat >"$tmp/nginx.conf" <<NGX
worker_processes auto;
daemon off;
pid $tmp/ngx/nginx.pid;
error_log $tmp/ngx/error.log;
events { worker_connections 4096; }
http {
	access_log off;
	client_body_temp_path $tmp/ngx/body;
	proxy_temp_path $tmp/ngx/proxy;
	fastcgi_temp_path $tmp/ngx/fcgi;
	uwsgi_temp_path $tmp/ngx/uwsgi;
	scgi_temp_path $tmp/ngx/scgi;
	keepalive_requests 1000000;
	sendfile on;
	tcp_nopush on;
	open_file_cache max=16 inactive=60s;
	server {
		listen 127.0.0.1:$NP;
		location = /get.json { root $tmp/www; default_type application/json; }
		location = /get.bin { root $tmp/www; default_type application/octet-stream; }
		location = /put { client_body_buffer_size 16k; return 200 ""; }
		location /put/ { client_body_buffer_size 16k; return 200 ""; }
	}
}
NGX
"$NGINX" -p "$tmp/ngx" -c "$tmp/nginx.conf" &
pids+=($!)
NG=http://127.0.0.1:$NP
ok=
for _ in $(seq 1 100); do curl -sf "$NG/get.bin" >/dev/null && ok=1 && break; sleep 0.05; done
[ -n "$ok" ] || { echo "bench_rest: nginx did not start"; cat "$tmp/ngx/error.log" 2>/dev/null; exit 1; }

cat >"$tmp/put.lua" <<LUA
wrk.method = "PUT"
wrk.body = string.rep("v", 100)
wrk.headers["Content-Type"] = "application/octet-stream"
LUA

# Each wrk thread draws its own random rows (seeded by its number).
cat >"$tmp/rand.lua" <<'LUA'
local n = 0
function setup(thread) n = n + 1; thread:set("id", n) end
function init(args)
	math.randomseed(id * 7919 + os.time())
	prefix = args[1] or ""
	rows = tonumber(args[2] or "1000000")
end
LUA
cat >"$tmp/put_rows.lua" <<LUA
dofile("$tmp/rand.lua")
local body = string.rep("v", 100)
local headers = {["Content-Type"] = "application/octet-stream"}
function request()
	return wrk.format("PUT", prefix .. "/r" .. math.random(1, rows) .. "/f:q", headers, body)
end
LUA
# A multi-row CellSet (JSON, base64 keys/columns/values) of BATCH random
# rows, one 100-byte cell each: 256 bodies made up front, drawn at random.
cat >"$tmp/put_batch.lua" <<LUA
dofile("$tmp/rand.lua")
local B = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
local function b64(s)
	local out = {}
	for i = 1, #s, 3 do
		local a, b, c = s:byte(i, i + 2)
		local n = a * 65536 + (b or 0) * 256 + (c or 0)
		local q = {math.floor(n / 262144) % 64, math.floor(n / 4096) % 64,
			   math.floor(n / 64) % 64, n % 64}
		out[#out + 1] = B:sub(q[1] + 1, q[1] + 1) .. B:sub(q[2] + 1, q[2] + 1) ..
			(b and B:sub(q[3] + 1, q[3] + 1) or "=") .. (c and B:sub(q[4] + 1, q[4] + 1) or "=")
	end
	return table.concat(out)
end
local headers = {["Content-Type"] = "application/json"}
local bodies = {}
function init2()
	local col, val = b64("f:q"), b64(string.rep("v", 100))
	for k = 1, 256 do
		local r = {}
		for i = 1, $BATCH do
			r[i] = '{"key":"' .. b64("r" .. math.random(1, rows)) ..
				'","Cell":[{"column":"' .. col .. '","\$":"' .. val .. '"}]}'
		end
		bodies[k] = '{"Row":[' .. table.concat(r, ",") .. ']}'
	end
end
local base_init = init
function init(args) base_init(args); init2() end
function request()
	return wrk.format("PUT", prefix .. "/fakerow", headers, bodies[math.random(1, 256)])
end
LUA

rps() { # URL [wrk args...] [-- script args...] -> requests/s
	local url=$1 pre=() post=() seen= a out
	shift
	for a in "$@"; do
		if [ "$a" = "--" ]; then seen=1; fi
		if [ -n "$seen" ]; then post+=("$a"); else pre+=("$a"); fi
	done
	out=$(wrk -t"$THREADS" -c"$CONNS" -d"${SECS}s" "${pre[@]}" "$url" "${post[@]}")
	# a run whose answers were not 2xx measured something else: say so
	grep -q 'Non-2xx' <<<"$out" && echo "bench_rest: $url ${post[*]}: $(grep 'Non-2xx' <<<"$out")" >&2
	awk '/Requests\/sec/ {print $2}' <<<"$out"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }

# pair NAME "SALTBOX_URL args" "NGINX_URL args": alternate, print medians.
pair() {
	local case=$1 name=$2 a=() b=()
	shift
	[[ $CASES == *" $case "* ]] || return 0
	read -r -a sargs <<<"$2"
	read -r -a nargs <<<"$3"
	for _ in $(seq 1 "$ROUNDS"); do
		a+=("$(rps "${sargs[@]}")")
		b+=("$(rps "${nargs[@]}")")
	done
	local ma mb
	ma=$(median "${a[@]}")
	mb=$(median "${b[@]}")
	printf '%-34s %12s %12s %7s   (saltbox %s | nginx %s)\n' "$name" "$ma" "$mb" \
		"$(ratio "$ma" "$mb")" "${a[*]}" "${b[*]}"
}

echo "bench_rest: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), loopback"
echo "bench_rest: wrk -t$THREADS -c$CONNS -d${SECS}s, $ROUNDS alternating rounds, medians"
echo "bench_rest: GET body $(wc -c <"$tmp/get.json") bytes (JSON CellSet) / 100 bytes (octet-stream)"
printf '%-34s %12s %12s %7s\n' "workload" "saltbox r/s" "nginx r/s" "ratio"
pair get_row "GET row, 100-byte value, JSON" "$SB/bench/row1 -H Accept:application/json" "$NG/get.json"
pair get_cell "GET cell, 100-byte value, octet" "$SB/bench/row1/f:q -H Accept:application/octet-stream" "$NG/get.bin"
pair put_hot "PUT cell, 100-byte value, octet" "$SB/bench/row2/f:q -s $tmp/put.lua" "$NG/put -s $tmp/put.lua"
pair put_rows "PUT distinct random rows, octet" "$SB -s $tmp/put_rows.lua -- /bench $ROWS" "$NG -s $tmp/put_rows.lua -- /put $ROWS"
pair put_batch "PUT batch of $BATCH rows, JSON" "$SB -s $tmp/put_batch.lua -- /bench $ROWS" "$NG -s $tmp/put_batch.lua -- /put $ROWS"
# how the PUTs were written: requests, sbx_table_batch calls, the most
# requests in one (docs/ui.md, GET /ui/api/server)
echo "bench_rest: group commit $(curl -sf "$SB/ui/api/server" | grep -o '"group_commit":{[^}]*}')"
spid=${pids[0]}
echo "bench_rest: saltbox serve peak RSS $(awk '/VmHWM/ {printf "%.0f MiB", $2 / 1024}' /proc/$spid/status)," \
	"now $(awk '/VmRSS/ {printf "%.0f MiB", $2 / 1024}' /proc/$spid/status)"
