#!/bin/sh
# bench_bigtable.sh BUILD_DIR [ARGS] - run bench_bigtable against Google's
# Bigtable emulator, started on a free loopback port by the tests' own
# script (tests/run_bigtable.sh), which also stops it.
build=${1:-build}
[ $# -gt 0 ] && shift
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# run_bigtable.sh runs one binary: a wrapper passes the arguments on
cat >"$work/run" <<EOS
#!/bin/sh
exec "$(cd "$build" && pwd)/bench/bench_bigtable" $*
EOS
chmod +x "$work/run"
sh "$here/../tests/run_bigtable.sh" "$work/run" "$work/emu"
