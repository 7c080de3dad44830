#!/usr/bin/env bash
# `cmake --install` puts the library, headers, saltbox.pc and the saltbox
# command under a prefix, and a program built with only `pkg-config saltbox`
# (the C API tour) compiles, links and runs against it.
#   usage: install_check.sh BUILD_DIR SOURCE_DIR WORK_DIR
set -euo pipefail
build=$1 src=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" >/dev/null
test -x "$work/prefix/bin/saltbox"
test -f "$work/prefix/include/saltbox.h"
pc=$(find "$work/prefix" -name saltbox.pc | head -1)
test -n "$pc"
export PKG_CONFIG_PATH=$(dirname "$pc")
flags=$(pkg-config --cflags --libs saltbox)
# the test tree may be built with sanitizers; link the same runtime
# (grep -c reads all of nm's output: grep -q would SIGPIPE nm under pipefail)
extra=""
asan=$(nm -A "$work"/prefix/lib*/libsaltbox.a 2>/dev/null | grep -c __asan_ || true)
[ "${asan:-0}" -gt 0 ] && extra="-fsanitize=address,undefined"
# only the public API is global in the archive (sanitizer runtime hooks aside)
leaked=$(nm -g --defined-only "$work"/prefix/lib*/libsaltbox.a \
	"$work"/prefix/lib*/libsaltbox-engine.a |
	awk 'NF == 3 && $3 !~ /^sbx_/ && $3 !~ /^__(asan|ubsan|odr_asan|sancov)/ {print $3}' |
	head -5)
if [ -n "$leaked" ]; then
	echo "libsaltbox.a exports internal symbols: $leaked" >&2
	exit 1
fi
# an embedding program needs neither libmicrohttpd nor expat
if pkg-config --print-requires saltbox | grep -Eq 'microhttpd|expat'; then
	echo "saltbox.pc requires the server's libraries" >&2
	exit 1
fi
cc -std=c11 $extra -o "$work/tour" "$src/examples/api_tour.c" $flags -lstdc++
"$work/tour" "$work/data" | grep -q "claimed: yes"
# the embedded store alone: pkg-config saltbox-engine links neither libcurl
# nor gRPC, and the tour (embedded only) runs the same
if pkg-config --print-requires saltbox-engine | grep -Eq 'curl|grpc'; then
	echo "saltbox-engine.pc requires a client backend's libraries" >&2
	exit 1
fi
flags=$(pkg-config --cflags --libs saltbox-engine)
cc -std=c11 $extra -o "$work/tour-engine" "$src/examples/api_tour.c" $flags -lstdc++
clients=$(nm "$work/tour-engine" | grep -Ec ' (U|T) (curl_|grpc_)' || true)
if [ "${clients:-0}" -gt 0 ]; then
	echo "a program on libsaltbox-engine holds libcurl or gRPC symbols" >&2
	exit 1
fi
"$work/tour-engine" "$work/data-engine" | grep -q "claimed: yes"
"$work/prefix/bin/saltbox" --version
echo "install check passed"
