#!/usr/bin/env bash
# multicore.sh - issue 16's many-core figures in one short run, for a lent
# machine with more cores than the development VM (bench/RESULTS.md,
# sessions 14 and 17): how Saltbox's reads grow with threads against both
# RocksDB references and LMDB, then the REST server's PUTs against nginx.
# Everything goes to stdout and, when OUT is set, to $OUT/multicore.txt.
# It builds nothing: it runs build/bench/bench_engine and build/saltbox.
#   usage: bench/multicore.sh [PHASES]     (default: engine rest)
#   env:   THREADS (default 1,2,4,8,16), OPS (100000), ROUNDS (2),
#          SECS (seconds a REST case, 4), OUT (a folder for the copy)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
PHASES=" ${1:-engine rest} "
THREADS=${THREADS:-1,2,4,8,16}
OPS=${OPS:-100000}
ROUNDS=${ROUNDS:-2}
SECS=${SECS:-4}
engine=$root/build/bench/bench_engine
saltbox=$root/build/saltbox
for f in "$engine" "$saltbox"; do
	[ -x "$f" ] || { echo "multicore: $f is missing (build first)"; exit 1; }
done
log=/dev/null
if [ -n "${OUT:-}" ]; then
	mkdir -p "$OUT"
	log=$OUT/multicore.txt
fi
say() { echo "$@" | tee -a "$log"; }
run() { say "\$ $*"; "$@" 2>&1 | tee -a "$log"; }

say "multicore: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(date -u '+%Y-%m-%d %H:%M UTC'), saltbox $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?')"
if [[ $PHASES == *" engine "* ]]; then
	# reads and the load with threads: every engine, the same streams
	run "$engine" --records 100000 --ops "$OPS" --threads "$THREADS" \
		--rounds "$ROUNDS" --workloads ABCDEF \
		--engines rocksdb,rocksdb-tuned,saltbox,lmdb
fi
if [[ $PHASES == *" rest "* ]]; then
	# PUTs to one hot row, to distinct rows and in 10-row batches, then
	# the GETs, against nginx at 64 connections
	run env ROUNDS=1 WRK_THREADS=4 CASES="put_hot put_rows put_batch get_row" \
		"$root/bench/bench_rest.sh" "$saltbox" "$SECS" 64
fi
