#!/bin/sh
# run_remote.sh SALTBOX TEST_BINARY WORKDIR - run a table-API test binary
# against the remote backend: start `saltbox serve` on a free port with a
# fresh store in WORKDIR, run the binary with SBX_TEST_BACKEND=remote and
# SBX_TEST_URL, then stop the server. The binary's exit status is ours.
saltbox=$1 bin=$2 work=$3
rm -rf "$work" && mkdir -p "$work" || exit 1
"$saltbox" serve --port 0 --data "$work/data" >"$work/serve.log" 2>&1 &
pid=$!
trap 'kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null' EXIT INT TERM
url=
i=0
while [ $i -lt 200 ]; do
	url=$(sed -n 's|^saltbox serve: HBase REST on \(http://[^/ ]*\)/.*|\1|p' "$work/serve.log" 2>/dev/null)
	[ -n "$url" ] && break
	if ! kill -0 "$pid" 2>/dev/null; then
		echo "run_remote.sh: saltbox serve did not start:" >&2
		cat "$work/serve.log" >&2
		exit 1
	fi
	sleep 0.1
	i=$((i + 1))
done
if [ -z "$url" ]; then
	echo "run_remote.sh: no URL from saltbox serve after 20 s" >&2
	exit 1
fi
echo "run_remote.sh: $bin against $url"
SBX_TEST_BACKEND=remote SBX_TEST_URL=$url SBX_TEST_TMP=$work/tmp "$bin"
