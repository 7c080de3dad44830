#!/usr/bin/env bash
# comments_ui.sh - issue 14 point 7: the page saltbox-comments serves, in
# Debian's headless chromium (as tests/test_ui.sh does for /ui). A product
# with three comments, one voted and ranked; then the DOM after the page's
# script ran is checked: the newest comments in pages of 2 and the "older"
# button, the top list, a vote cast with the page's own button, a comment
# posted with its form (each confirmed through the API too). Screenshots:
# TMPDIR/page-*.png.
# usage: comments_ui.sh SALTBOX_COMMENTS TMPDIR
set -u
COMMENTS=${1:?saltbox-comments binary}
TMP=${2:?temp dir}
SRC=$(cd "$(dirname "$0")/../../.." && pwd)
rm -rf "$TMP" && mkdir -p "$TMP"
command -v curl >/dev/null || { echo "SKIP: curl is not installed"; exit 77; }
CHROMIUM=${SBX_CHROMIUM:-$(command -v chromium || true)}
if [ -z "$CHROMIUM" ] && [ "$(id -u)" -eq 0 ]; then
	"$SRC/scripts/bootstrap.sh" >"$TMP/bootstrap.log" 2>&1
	CHROMIUM=$(command -v chromium || true)
fi
[ -n "$CHROMIUM" ] || { echo "SKIP: chromium is not installed (scripts/bootstrap.sh installs it as root)"; exit 77; }

FAILS=0
CPID=
trap '[ -n "$CPID" ] && kill "$CPID" 2>/dev/null && wait "$CPID" 2>/dev/null' EXIT
ok() { # NAME ACTUAL EXPECTED
	if [ "$2" != "$3" ]; then
		echo "FAIL: $1"; echo "   got:      $2"; echo "   expected: $3"
		FAILS=$((FAILS + 1))
	fi
}

"$COMMENTS" serve --data "$TMP/data" --port 0 --test-clock 1700000000000 >"$TMP/comments.log" 2>&1 &
CPID=$!
URL=
for _ in $(seq 1 400); do
	URL=$(sed -n 's|^saltbox-comments: serving \(http://[^/ ]*\)/.*|\1|p' "$TMP/comments.log")
	[ -n "$URL" ] && break
	sleep 0.05
done
[ -n "$URL" ] || { echo "FAIL: the service did not start"; cat "$TMP/comments.log"; exit 1; }

api() { # METHOD PATH [JSON] -> prints STATUS BODY
	local args=(-s -o "$TMP/body" -w '%{http_code}' -X "$1")
	[ $# -ge 3 ] && args+=(-H 'Content-Type: application/json' --data-binary "$3")
	echo "$(curl "${args[@]}" "$URL$2") $(cat "$TMP/body")"
}
setup() {
	api PUT /sellers/s1 '{"name":"Shop"}'
	api PUT /products/p1 '{"sellerId":"s1","content":"aGk="}'
	for u in 1 2 3; do api PUT /users/u$u "{\"name\":\"User $u\",\"nickname\":\"u$u\"}"; done
	for o in 1 2 3 5; do
		u=$o; [ $o = 5 ] && u=2
		api PUT /orders/o$o "{\"userId\":\"u$u\",\"productIds\":[\"p1\"]}"
	done
	api PUT /admin/clock '{"now":1700000001000}'
	api POST /products/p1/comments '{"orderId":"o1","userId":"u1","content":"First!"}'
	api PUT /admin/clock '{"now":1700000002000}'
	api POST /products/p1/comments '{"orderId":"o2","userId":"u2","content":"Solid build, fast delivery."}'
	api PUT /admin/clock '{"now":1700000003000}'
	api POST /products/p1/comments '{"orderId":"o3","userId":"u3","content":"Would buy again"}'
	api POST /products/p1/comments/o2/helpful '{"userId":"u1"}'
	api POST /admin/rank
}
ok "setup" "$(setup | cut -c1-3 | tr '\n' ' ')" "201 201 201 201 201 201 201 201 201 200 201 200 201 200 201 200 200 "

FLAGS=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run
	--disable-background-networking --disable-component-update --disable-sync
	--virtual-time-budget=5000 --window-size=1200,900)
dom() { # HASH OUT: the DOM after the page's script ran
	rm -rf "$TMP/profile"
	timeout 120 "$CHROMIUM" "${FLAGS[@]}" --user-data-dir="$TMP/profile" --dump-dom "$URL/#$1" \
		>"$TMP/$2.html" 2>>"$TMP/chromium.log"
}
shot() { # HASH OUT
	rm -rf "$TMP/profile"
	timeout 120 "$CHROMIUM" "${FLAGS[@]}" --user-data-dir="$TMP/profile" --screenshot="$TMP/$2.png" "$URL/#$1" \
		>>"$TMP/chromium.log" 2>&1
	[ -s "$TMP/$2.png" ] || { echo "FAIL: no screenshot $TMP/$2.png"; FAILS=$((FAILS + 1)); }
}
# the order ids of a list (ul#list or ol#top) in the dumped DOM
orders() { tr -d '\n' <"$TMP/$1.html" | sed "s|.*<$2 id=\"$3\">||; s|</$2>.*||" | grep -o 'data-order="[^"]*"' | sed 's/data-order=//; s/"//g' | tr '\n' ' '; }
votes() { grep -o 'class="vote">Helpful ([0-9]*)' "$TMP/$1.html" | grep -o '[0-9]*' | tr '\n' ' '; }

dom 'product=p1&user=u2&limit=2' page-1
ok "page 1: newest first, 2 a page" "$(orders page-1 ul list)" "o3 o2 "
ok "page 1: vote buttons with counts" "$(votes page-1)" "0 1 "
ok "page 1: older button enabled" "$(grep -o '<button id="more"[^>]*>' "$TMP/page-1.html")" '<button id="more">'
ok "page 1: label" "$(grep -o '<span id="page" class="meta">[^<]*' "$TMP/page-1.html" | sed 's/.*>//')" "(page 1)"
ok "top: votes, then longer content" "$(orders page-1 ol top)" "o2 o3 o1 "
ok "first comment's text, user and time" \
	"$(grep -o '<li class="comment" data-order="o3">.*' "$TMP/page-1.html" | sed 's/<button.*//' | head -1)" \
	'<li class="comment" data-order="o3"><div class="meta"><span class="user">u3</span> · 2023-11-14 22:13:23 UTC</div><p>Would buy again</p>'
ok "no error shown" "$(grep -o '<div id="error" class="error">[^<]*' "$TMP/page-1.html")" '<div id="error" class="error">'
shot 'product=p1&user=u2&limit=2' page-1

dom 'product=p1&user=u2&limit=2&more=1' page-2
ok "page 2 after the older button" "$(orders page-2 ul list)" "o1 "
ok "page 2: older button disabled" "$(grep -o '<button id="more"[^>]*>' "$TMP/page-2.html")" '<button id="more" disabled="">'
ok "page 2: label" "$(grep -o '<span id="page" class="meta">[^<]*' "$TMP/page-2.html" | sed 's/.*>//')" "(page 2)"
shot 'product=p1&user=u2&limit=2&more=1' page-2

dom 'product=p1&user=u2&limit=2&click=vote:o3' page-vote
ok "vote: the page says so" "$(grep -o '<span id="flash" class="flash">[^<]*' "$TMP/page-vote.html" | sed 's/.*>//')" "Voted: 1 found it helpful."
ok "vote: counts on the page" "$(votes page-vote)" "1 1 "
ok "vote: through the API" "$(api GET /products/p1/comments/o3)" \
	'200 {"orderId":"o3","productId":"p1","userId":"u3","content":"Would buy again","timestamp":1700000003000,"isEdited":false,"helpful":1}'

api PUT /admin/clock '{"now":1700000004000}' >/dev/null
dom 'product=p1&user=u2&limit=2&post=o5,u2,Posted from the page, with a comma' page-post
ok "post: the page says so" "$(grep -o '<span id="flash" class="flash">[^<]*' "$TMP/page-post.html" | sed 's/.*>//')" "Posted at 2023-11-14 22:13:24 UTC."
ok "post: first in the list" "$(orders page-post ul list)" "o5 o3 "
ok "post: through the API" "$(api GET /products/p1/comments/o5)" \
	'200 {"orderId":"o5","productId":"p1","userId":"u2","content":"Posted from the page, with a comma","timestamp":1700000004000,"isEdited":false,"helpful":0}'

dom 'product=p1&user=u2&post=o5,u2,again' page-post-again
ok "a second post: the API's 409 shown" "$(grep -o '<div id="error" class="error">[^<]*' "$TMP/page-post-again.html" | sed 's/.*>//')" \
	"order 'o5' already commented product 'p1'"
shot 'product=p1&user=u2&limit=3' page-after
dom 'product=p9' page-unknown
ok "unknown product: the API's 404 shown" "$(grep -o '<div id="error" class="error">[^<]*' "$TMP/page-unknown.html" | sed 's/.*>//')" \
	"product 'p9' not found"

kill -TERM "$CPID"; wait "$CPID"; rc=$?; CPID=
ok "service exit status" "$rc" 0
if grep -q 'Sanitizer' "$TMP/comments.log"; then
	echo "FAIL: sanitizer report in $TMP/comments.log"; FAILS=$((FAILS + 1))
fi
echo "screenshots: $(ls "$TMP"/*.png | tr '\n' ' ')"
echo "comments_ui.sh: $FAILS failed"
[ "$FAILS" -eq 0 ]
