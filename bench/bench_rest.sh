#!/usr/bin/env bash
# bench_rest.sh - `saltbox serve` against nginx on loopback, in one run, with
# wrk: single-row GETs of a 100-byte value and single-cell PUTs, each side
# by side with nginx serving (or accepting) a body of the same size.
# Prints requests/s and saltbox/nginx ratios (issue 6 target: GET >= 0.5x).
# Each pair is measured ROUNDS times alternately (saltbox, nginx, saltbox,
# ...) and the medians are reported, so a noisy neighbour hits both sides.
#   usage: bench/bench_rest.sh [SALTBOX_BINARY] [SECONDS] [CONNECTIONS]
#   env:   ROUNDS (default 3), WRK_THREADS (default 2)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
SALTBOX=${1:-$root/build/saltbox}
SECS=${2:-10}
CONNS=${3:-64}
THREADS=${WRK_THREADS:-2}
ROUNDS=${ROUNDS:-3}
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
"$SALTBOX" serve --data "$tmp/data" --port 0 >"$tmp/serve.log" 2>&1 &
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

rps() { # URL [wrk args...] -> requests/s
	local url=$1; shift
	wrk -t"$THREADS" -c"$CONNS" -d"${SECS}s" "$@" "$url" | awk '/Requests\/sec/ {print $2}'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }

# pair NAME "SALTBOX_URL args" "NGINX_URL args": alternate, print medians.
pair() {
	local name=$1 a=() b=()
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
pair "GET row, 100-byte value, JSON" "$SB/bench/row1 -H Accept:application/json" "$NG/get.json"
pair "GET cell, 100-byte value, octet" "$SB/bench/row1/f:q -H Accept:application/octet-stream" "$NG/get.bin"
pair "PUT cell, 100-byte value, octet" "$SB/bench/row2/f:q -s $tmp/put.lua" "$NG/put -s $tmp/put.lua"
