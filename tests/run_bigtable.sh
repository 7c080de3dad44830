#!/bin/sh
# run_bigtable.sh TEST_BINARY WORKDIR [cbt-check] - run a table-API test
# binary against the Cloud Bigtable backend: start Google's Bigtable
# emulator (cbtemulator) on a free loopback port, run the binary with
# SBX_TEST_BACKEND=bigtable, SBX_TEST_URL=bigtable://p/i and
# BIGTABLE_EMULATOR_HOST, then stop the emulator. The binary's exit status
# is ours; 77 (ctest's skip) with the reason when the emulator is missing.
bin=$1 work=$2
rm -rf "$work" && mkdir -p "$work" || exit 1
emu=$(command -v cbtemulator 2>/dev/null)
for d in /usr/lib/google-cloud-sdk /usr/share/google-cloud-sdk \
	"$(dirname "$(command -v gcloud 2>/dev/null || echo /x/x)")/.."; do
	[ -n "$emu" ] && break
	[ -x "$d/platform/bigtable-emulator/cbtemulator" ] &&
		emu=$d/platform/bigtable-emulator/cbtemulator
done
if [ -z "$emu" ]; then
	echo "run_bigtable.sh: SKIP: Google's Bigtable emulator (cbtemulator," \
		"package google-cloud-cli-bigtable-emulator) is not installed"
	exit 77
fi
port=
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; wait 2>/dev/null' EXIT INT TERM
for attempt in 1 2 3 4 5; do
	port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
	"$emu" -host 127.0.0.1 -port "$port" >"$work/emulator.log" 2>&1 &
	pid=$!
	i=0
	up=
	while [ $i -lt 100 ]; do
		if ! kill -0 "$pid" 2>/dev/null; then
			break
		fi
		if python3 -c "import socket; socket.create_connection(('127.0.0.1',$port),0.2)" 2>/dev/null; then
			up=1
			break
		fi
		sleep 0.1
		i=$((i + 1))
	done
	[ -n "$up" ] && break
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	pid=
done
if [ -z "$pid" ]; then
	echo "run_bigtable.sh: cbtemulator did not start:" >&2
	cat "$work/emulator.log" >&2
	exit 1
fi
export BIGTABLE_EMULATOR_HOST=127.0.0.1:$port
# an emulator that stops answering fails the test in seconds (each call's
# deadline) instead of running into ctest's timeout
export SALTBOX_BIGTABLE_TIMEOUT_MS=${SALTBOX_BIGTABLE_TIMEOUT_MS:-20000}
echo "run_bigtable.sh: $bin against the Bigtable emulator at $BIGTABLE_EMULATOR_HOST"
SBX_TEST_BACKEND=bigtable SBX_TEST_URL=bigtable://p/i SBX_TEST_TMP=$work/tmp "$bin"
