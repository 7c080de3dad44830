#!/bin/sh
# txn_bank_bigtable.sh - the bank proof on Cloud Bigtable (issue 15 point
# 3): 4 client processes of `saltbox txn bank --connect bigtable://p/i`,
# some SIGKILLed inside commits, against Google's emulator. Run by
# tests/run_bigtable.sh, which starts the emulator and sets SBX_TEST_URL and
# SBX_TEST_TMP; SBX_SALTBOX names the command (ctest sets it).
work=${SBX_TEST_TMP:?run me through tests/run_bigtable.sh}
mkdir -p "$work" || exit 1
exec "${SBX_SALTBOX:?the saltbox command}" txn bank --connect "$SBX_TEST_URL" \
	--log "$work/log" --clients 4 --duration 4 --lock-timeout-ms 300
