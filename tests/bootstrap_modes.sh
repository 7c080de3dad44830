#!/usr/bin/env bash
# bootstrap_modes.sh - issue 18.15: `make run` installs only what running
# needs, `make test` what the tests need too; and the documentation links
# only to files a user of the repository has.
#   usage: bootstrap_modes.sh SOURCE_DIR
set -uo pipefail
src=$1
fail=0
bad() { echo "FAIL: $*"; fail=1; }

run_pkgs=$("$src/scripts/bootstrap.sh" run --list) || bad "bootstrap.sh run --list failed"
test_pkgs=$("$src/scripts/bootstrap.sh" test --list) || bad "bootstrap.sh test --list failed"
for p in chromium nginx-light wrk clang libclang-rt-14-dev nodejs libsqlite3-dev liblmdb-dev curl python3; do
  grep -qx "$p" <<<"$run_pkgs" && bad "run mode installs test-only package $p"
  grep -qx "$p" <<<"$test_pkgs" || bad "test mode lacks $p"
done
for p in build-essential cmake librocksdb-dev libmicrohttpd-dev libgrpc-dev; do
  grep -qx "$p" <<<"$run_pkgs" || bad "run mode lacks $p"
  grep -qx "$p" <<<"$test_pkgs" || bad "test mode lacks $p"
done
"$src/scripts/bootstrap.sh" frob >/dev/null 2>&1 && bad "bootstrap.sh accepted mode 'frob'"

# make run asks for the run packages and builds only the command; make
# test for the test packages and everything
dry_run=$(make -C "$src" -n run 2>/dev/null)
dry_test=$(make -C "$src" -n test 2>/dev/null)
grep -q 'scripts/bootstrap.sh run$' <<<"$dry_run" || bad "make run does not call bootstrap.sh run: $dry_run"
grep -q -- '--target saltbox-cli' <<<"$dry_run" || bad "make run builds more than the saltbox command"
grep -q 'scripts/bootstrap.sh test$' <<<"$dry_test" || bad "make test does not call bootstrap.sh test"

# documentation: no link to files outside the repository (../shared/...,
# the project's private reference/ notes); every relative markdown link
# resolves
for f in "$src"/README.md "$src"/docs/*.md; do
  if grep -nE '\.\./shared|(^|[^a-z/.])reference/[a-z-]+\.md' "$f"; then
    bad "$f names files users do not have"
  fi
  dir=$(dirname "$f")
  while IFS= read -r target; do
    target=${target%%#*}
    [ -z "$target" ] && continue
    case "$target" in http*|mailto:*) continue ;; esac
    [ -e "$dir/$target" ] || bad "$f links to missing $target"
  done < <(grep -oE '\]\([^)]+\)' "$f" | sed -E 's/^\]\(//; s/\)$//; s/ .*//')
done

[ $fail = 0 ] && echo "bootstrap_modes: ok"
exit $fail
