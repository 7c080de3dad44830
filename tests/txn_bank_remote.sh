#!/bin/sh
# txn_bank_remote.sh SALTBOX WORKDIR - the bank-transfer proof over the
# remote backend: start `saltbox serve` on a free port with a fresh store
# in WORKDIR, run `saltbox txn bank --connect` against it (4 client
# processes, some SIGKILLed inside commits while the server stays up),
# then stop the server. The bank command's exit status is ours.
saltbox=$1 work=$2
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
		echo "txn_bank_remote.sh: saltbox serve did not start:" >&2
		cat "$work/serve.log" >&2
		exit 1
	fi
	sleep 0.1
	i=$((i + 1))
done
[ -n "$url" ] || { echo "txn_bank_remote.sh: no URL from saltbox serve" >&2; exit 1; }
"$saltbox" txn bank --connect "$url" --log "$work/log" --clients 4 \
	--duration 4 --lock-timeout-ms 300 || exit 1
# the server is still up and answering after the kills
kill -0 "$pid" || { echo "txn_bank_remote.sh: the server died" >&2; exit 1; }
