#!/usr/bin/env bash
# comments_api.sh - issue 14's API contract, end to end: starts
# `saltbox-comments serve` (an embedded store, or with `remote` a store
# behind `saltbox serve` reached with --connect), drives it with curl and
# compares every status and whole body with the values written out here,
# every error case included. The service's test clock makes timestamps
# exact. Then stops it and runs `saltbox-comments check`.
# usage: comments_api.sh SALTBOX_COMMENTS SALTBOX TMPDIR embedded|remote
set -u
COMMENTS=${1:?saltbox-comments binary}
SALTBOX=${2:?saltbox binary}
TMP=${3:?temp dir}
MODE=${4:?embedded or remote}
rm -rf "$TMP" && mkdir -p "$TMP"
command -v curl >/dev/null || { echo "SKIP: curl is not installed"; exit 77; }

FAILS=0
CHECKS=0
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done; }
trap cleanup EXIT

# wait_url LOG PATTERN -> URL
wait_url() {
	URL=
	for _ in $(seq 1 400); do
		URL=$(sed -n "$2" "$1" 2>/dev/null | head -1)
		[ -n "$URL" ] && return 0
		sleep 0.05
	done
	echo "FAIL: no URL in $1"; cat "$1"; exit 1
}

STORE=(--data "$TMP/data")
if [ "$MODE" = remote ]; then
	"$SALTBOX" serve --port 0 --data "$TMP/store" >"$TMP/store.log" 2>&1 &
	PIDS+=($!)
	wait_url "$TMP/store.log" 's|^saltbox serve: HBase REST on \(http://[^/ ]*\)/.*|\1|p'
	STORE=(--connect "$URL")
fi
T0=1700000000000
"$COMMENTS" serve "${STORE[@]}" --port 0 --test-clock $T0 --lock-timeout-ms 2000 >"$TMP/comments.log" 2>&1 &
CPID=$!
PIDS+=($CPID)
wait_url "$TMP/comments.log" 's|^saltbox-comments: serving \(http://[^/ ]*\)/.*|\1|p'
echo "comments_api.sh: $MODE, service at $URL"

# t NAME 'STATUS BODY' METHOD PATH [JSON]  - one request, whole reply compared
t() {
	local name=$1 want=$2 m=$3 p=$4
	local args=(-s -g -o "$TMP/body" -w '%{http_code}' -X "$m")
	[ $# -ge 5 ] && args+=(-H 'Content-Type: application/json' --data-binary "$5")
	local status
	status=$(curl "${args[@]}" "$URL$p")
	local got="$status $(cat "$TMP/body")"
	CHECKS=$((CHECKS + 1))
	if [ "$got" != "$want" ]; then
		# long bodies (10,000-byte comments) are cut at the first difference
		local i=0
		while [ "${got:$i:200}" = "${want:$i:200}" ]; do i=$((i + 200)); done
		[ $i -gt 0 ] && i=$((i - 20))
		echo "FAIL: $name (from byte $i)"; echo "   got:      ${got:$i:400}"; echo "   expected: ${want:$i:400}"
		FAILS=$((FAILS + 1))
	fi
}
clock() { t "clock $1" "200 {\"now\":$1}" PUT /admin/clock "{\"now\":$1}"; }
C() { # orderId productId userId content ts edited helpful -> a comment object
	printf '{"orderId":"%s","productId":"%s","userId":"%s","content":"%s","timestamp":%s,"isEdited":%s,"helpful":%s}' "$@"
}

# ---- users, sellers, products, orders ---------------------------------------------
t "user created" '201 {"id":"u1","name":"Ann Lee","nickname":"ann"}' PUT /users/u1 '{"name":"Ann Lee","nickname":"ann"}'
t "user replaced" '200 {"id":"u1","name":"Ann Lee","nickname":"annie"}' PUT /users/u1 '{"name":"Ann Lee","nickname":"annie"}'
t "user 2" '201 {"id":"u2","name":"Bo","nickname":"bo"}' PUT /users/u2 '{"name":"Bo","nickname":"bo"}'
t "user 3" '201 {"id":"u3","name":"Cy","nickname":"cy"}' PUT /users/u3 '{"name":"Cy","nickname":"cy"}'
t "user get" '200 {"id":"u1","name":"Ann Lee","nickname":"annie"}' GET /users/u1
t "user get missing" '404 {"error":"user '"'"'nobody'"'"' not found"}' GET /users/nobody
t "user id too long" '400 {"error":"bad user id '"'"'u0123456789'"'"': 1-10 printable ASCII bytes, no '"'"'/'"'"'"}' PUT /users/u0123456789 '{"name":"x","nickname":"y"}'
t "user id not UTF-8" '400 {"error":"bad user id '"'"'?x'"'"': 1-10 printable ASCII bytes, no '"'"'/'"'"'"}' GET /users/%FFx
t "user id 10 bytes" '201 {"id":"u012345678","name":"x","nickname":"y"}' PUT /users/u012345678 '{"name":"x","nickname":"y"}'
t "user bad json" '400 {"error":"bad JSON at line 1, column 7: '"'"'['"'"' or '"'"'{'"'"' expected near '"'"'garbage'"'"'"}' PUT /users/u9 'garbage'
t "user no body" '400 {"error":"the request needs a JSON body"}' PUT /users/u9
t "user not object" '400 {"error":"the body must be a JSON object"}' PUT /users/u9 '[1]'
t "user missing field" '400 {"error":"missing field '"'"'nickname'"'"'"}' PUT /users/u9 '{"name":"x"}'
t "user unknown field" '400 {"error":"unknown field '"'"'age'"'"'"}' PUT /users/u9 '{"name":"x","nickname":"y","age":3}'
t "user field not string" '400 {"error":"'"'"'name'"'"' must be a string"}' PUT /users/u9 '{"name":1,"nickname":"y"}'
t "seller" '201 {"id":"s1","name":"Shop"}' PUT /sellers/s1 '{"name":"Shop"}'
t "product" '201 {"id":"p1","sellerId":"s1","content":"aGVsbG8=","createdAt":1700000000000,"updatedAt":1700000000000}' PUT /products/p1 '{"sellerId":"s1","content":"aGVsbG8="}'
clock 1700000000500
t "product replaced keeps createdAt" '200 {"id":"p1","sellerId":"s1","content":"aGk=","createdAt":1700000000000,"updatedAt":1700000000500}' PUT /products/p1 '{"sellerId":"s1","content":"aGk="}'
t "product 2" '201 {"id":"p2","sellerId":"s1","content":"","createdAt":1700000000500,"updatedAt":1700000000500}' PUT /products/p2 '{"sellerId":"s1","content":""}'
t "product unknown seller" '404 {"error":"seller '"'"'s9'"'"' not found"}' PUT /products/p3 '{"sellerId":"s9","content":""}'
t "product bad base64" '400 {"error":"'"'"'content'"'"' is not base64"}' PUT /products/p3 '{"sellerId":"s1","content":"aGVsbG8"}'
t "product bad seller id" '400 {"error":"'"'"'sellerId'"'"' is not an id (1-10 printable ASCII bytes, no '"'"'/'"'"')"}' PUT /products/p3 '{"sellerId":"","content":""}'
t "order" '201 {"id":"o1","userId":"u1","productIds":["p1","p2"]}' PUT /orders/o1 '{"userId":"u1","productIds":["p1","p2"]}'
t "order 2" '201 {"id":"o2","userId":"u2","productIds":["p1"]}' PUT /orders/o2 '{"userId":"u2","productIds":["p1"]}'
t "order 3" '201 {"id":"o3","userId":"u3","productIds":["p1"]}' PUT /orders/o3 '{"userId":"u3","productIds":["p1"]}'
t "order 4" '201 {"id":"o4","userId":"u1","productIds":["p1"]}' PUT /orders/o4 '{"userId":"u1","productIds":["p1"]}'
t "order unknown user" '404 {"error":"user '"'"'u9'"'"' not found"}' PUT /orders/o9 '{"userId":"u9","productIds":["p1"]}'
t "order empty products" '400 {"error":"'"'"'productIds'"'"' must be an array of 1-100 product ids"}' PUT /orders/o9 '{"userId":"u1","productIds":[]}'
t "order bad product id" '400 {"error":"'"'"'productIds'"'"'[1] is not a product id (1-10 printable ASCII bytes, no '"'"'/'"'"')"}' PUT /orders/o9 '{"userId":"u1","productIds":["p1",7]}'

# ---- posting comments -------------------------------------------------------------
clock 1700000001000
t "post" "201 $(C o1 p1 u1 'good value' 1700000001000 false 0)" POST /products/p1/comments '{"orderId":"o1","userId":"u1","content":"good value"}'
t "post again: 409" '409 {"error":"order '"'"'o1'"'"' already commented product '"'"'p1'"'"'"}' POST /products/p1/comments '{"orderId":"o1","userId":"u1","content":"again"}'
t "post unknown product" '404 {"error":"product '"'"'p9'"'"' not found"}' POST /products/p9/comments '{"orderId":"o1","userId":"u1","content":"x"}'
t "post unknown order" '404 {"error":"order '"'"'o9'"'"' not found"}' POST /products/p1/comments '{"orderId":"o9","userId":"u1","content":"x"}'
t "post other user's order" '403 {"error":"order '"'"'o2'"'"' is not user '"'"'u1'"'"''"'"'s"}' POST /products/p1/comments '{"orderId":"o2","userId":"u1","content":"x"}'
t "post product not in order" '403 {"error":"order '"'"'o2'"'"' does not contain product '"'"'p2'"'"'"}' POST /products/p2/comments '{"orderId":"o2","userId":"u2","content":"x"}'
t "post bad json" '400 {"error":"bad JSON at line 1, column 1: '"'"'['"'"' or '"'"'{'"'"' expected near '"'"'}'"'"'"}' POST /products/p1/comments '}'
t "post missing userId" '400 {"error":"missing field '"'"'userId'"'"'"}' POST /products/p1/comments '{"orderId":"o2","content":"x"}'
t "post missing content" '400 {"error":"missing field '"'"'content'"'"'"}' POST /products/p1/comments '{"orderId":"o2","userId":"u2"}'
t "post empty content" '400 {"error":"'"'"'content'"'"' is empty"}' POST /products/p1/comments '{"orderId":"o2","userId":"u2","content":""}'
BIG=$(head -c 10001 /dev/zero | tr '\0' 'x')
t "post content over 10000 bytes" '400 {"error":"'"'"'content'"'"' is 10001 bytes, over the limit of 10000"}' POST /products/p1/comments "{\"orderId\":\"o2\",\"userId\":\"u2\",\"content\":\"$BIG\"}"
t "post bad product id" '400 {"error":"bad product id '"'"'p0123456789'"'"': 1-10 printable ASCII bytes, no '"'"'/'"'"'"}' POST /products/p0123456789/comments '{"orderId":"o2","userId":"u2","content":"x"}'
t "post unknown field" '400 {"error":"unknown field '"'"'rating'"'"'"}' POST /products/p1/comments '{"orderId":"o2","userId":"u2","content":"x","rating":5}'
# equal timestamps: the longer content first (the seed's reverse content length)
clock 1700000002000
t "post short" "201 $(C o2 p1 u2 'ok' 1700000002000 false 0)" POST /products/p1/comments '{"orderId":"o2","userId":"u2","content":"ok"}'
t "post long, same ms" "201 $(C o3 p1 u3 'really very good' 1700000002000 false 0)" POST /products/p1/comments '{"orderId":"o3","userId":"u3","content":"really very good"}'
X10K=$(head -c 10000 /dev/zero | tr '\0' 'y')
t "post 10000 bytes" "201 $(C o4 p1 u1 "$X10K" 1700000002000 false 0)" POST /products/p1/comments "{\"orderId\":\"o4\",\"userId\":\"u1\",\"content\":\"$X10K\"}"
# the same user twice in one ms: the seed's user-comment key is unique to
# the millisecond, so the second takes the next one
t "post on p2, same user same ms" "201 $(C o1 p2 u1 'nice' 1700000002001 false 0)" POST /products/p2/comments '{"orderId":"o1","userId":"u1","content":"nice"}'

# ---- reading ---------------------------------------------------------------------------
A=$(C o1 p1 u1 'good value' 1700000001000 false 0)
B=$(C o2 p1 u2 'ok' 1700000002000 false 0)
L=$(C o3 p1 u3 'really very good' 1700000002000 false 0)
Y=$(C o4 p1 u1 "$X10K" 1700000002000 false 0)
N=$(C o1 p2 u1 'nice' 1700000002001 false 0)
t "get" "200 $A" GET /products/p1/comments/o1
t "get missing" '404 {"error":"no comment of order '"'"'o2'"'"' on product '"'"'p2'"'"'"}' GET /products/p2/comments/o2
t "list newest first, longer first at equal ms" "200 {\"comments\":[$Y,$L,$B,$A],\"next\":null}" GET /products/p1/comments
# the cursor is the next index row's key, base64url: opaque to clients
CUR1=cDEAAAAAAAAAAGN___50MBqQL3____0
CUR2=cDEAAAAAAAAAAGN___50MBqUF3____U
t "page 1 of 2" "200 {\"comments\":[$Y,$L],\"next\":\"$CUR1\"}" GET "/products/p1/comments?limit=2"
t "page 2 of 2" "200 {\"comments\":[$B,$A],\"next\":null}" GET "/products/p1/comments?limit=2&cursor=$CUR1"
t "pages of 3" "200 {\"comments\":[$Y,$L,$B],\"next\":\"$CUR2\"}" GET "/products/p1/comments?limit=3"
t "last page of 3" "200 {\"comments\":[$A],\"next\":null}" GET "/products/p1/comments?limit=3&cursor=$CUR2"
t "limit 1" "200 {\"comments\":[$Y],\"next\":\"cDEAAAAAAAAAAGN___50MBqQL3___-8\"}" GET "/products/p1/comments?limit=1"
t "limit 100" "200 {\"comments\":[$Y,$L,$B,$A],\"next\":null}" GET "/products/p1/comments?limit=100"
t "limit 0" '400 {"error":"limit must be a whole number from 1 to 100, not '"'"'0'"'"'"}' GET "/products/p1/comments?limit=0"
t "limit 101" '400 {"error":"limit must be a whole number from 1 to 100, not '"'"'101'"'"'"}' GET "/products/p1/comments?limit=101"
t "limit abc" '400 {"error":"limit must be a whole number from 1 to 100, not '"'"'abc'"'"'"}' GET "/products/p1/comments?limit=abc"
t "limit -5" '400 {"error":"limit must be a whole number from 1 to 100, not '"'"'-5'"'"'"}' GET "/products/p1/comments?limit=-5"
t "bad cursor" '400 {"error":"bad cursor: pass the '"'"'next'"'"' value of the previous page as it came"}' GET "/products/p1/comments?cursor=zzz"
t "another product's cursor" '400 {"error":"bad cursor: pass the '"'"'next'"'"' value of the previous page as it came"}' GET "/products/p2/comments?cursor=$CUR1"
t "list unknown product" '404 {"error":"product '"'"'p9'"'"' not found"}' GET /products/p9/comments
t "list p2" "200 {\"comments\":[$N],\"next\":null}" GET /products/p2/comments
t "user's comments newest first" "200 {\"comments\":[$N,$Y,$A],\"next\":null}" GET /users/u1/comments
UCUR=dTEAAAAAAAAAAH___nQwGpAv
t "user's comments, page 1" "200 {\"comments\":[$N],\"next\":\"$UCUR\"}" GET "/users/u1/comments?limit=1"
t "user's comments, page 2" "200 {\"comments\":[$Y,$A],\"next\":null}" GET "/users/u1/comments?limit=5&cursor=$UCUR"
t "user's comments, bad cursor" '400 {"error":"bad cursor: pass the '"'"'next'"'"' value of the previous page as it came"}' GET "/users/u1/comments?cursor=$CUR1"
t "user's comments, limit 101" '400 {"error":"limit must be a whole number from 1 to 100, not '"'"'101'"'"'"}' GET "/users/u1/comments?limit=101"
t "user's comments, unknown user" '404 {"error":"user '"'"'u9'"'"' not found"}' GET /users/u9/comments

# ---- edits -----------------------------------------------------------------------------
clock 1700000004000
A2=$(C o1 p1 u1 'good value for money, would buy again' 1700000001000 true 0)
t "patch" "200 $A2" PATCH /products/p1/comments/o1 '{"content":"good value for money, would buy again"}'
t "get after patch" "200 $A2" GET /products/p1/comments/o1
t "list after patch" "200 {\"comments\":[$Y,$L,$B,$A2],\"next\":null}" GET /products/p1/comments
# an edit to the length of another comment at the same ms moves it by 1 ms
B2=$(C o2 p1 u2 'really very good' 1700000002001 true 0)
t "patch to a clashing length" "200 $B2" PATCH /products/p1/comments/o2 '{"content":"really very good"}'
t "list after the clash" "200 {\"comments\":[$B2,$Y,$L,$A2],\"next\":null}" GET /products/p1/comments
t "user 2 after the clash" "200 {\"comments\":[$B2],\"next\":null}" GET /users/u2/comments
t "patch missing" '404 {"error":"no comment of order '"'"'o3'"'"' on product '"'"'p2'"'"'"}' PATCH /products/p2/comments/o3 '{"content":"x"}'
t "patch empty" '400 {"error":"'"'"'content'"'"' is empty"}' PATCH /products/p1/comments/o1 '{"content":""}'
t "patch too long" '400 {"error":"'"'"'content'"'"' is 10001 bytes, over the limit of 10000"}' PATCH /products/p1/comments/o1 "{\"content\":\"$BIG\"}"
t "patch bad json" '400 {"error":"bad JSON at line 1, column 12: unexpected token near '"'"','"'"'"}' PATCH /products/p1/comments/o1 '{"content":,'
t "patch unknown field" '400 {"error":"unknown field '"'"'userId'"'"'"}' PATCH /products/p1/comments/o1 '{"content":"x","userId":"u1"}'

# ---- helpful votes and the rank batch ------------------------------------------------------
t "vote" '200 {"helpful":1}' POST /products/p1/comments/o3/helpful '{"userId":"u1"}'
t "vote by another user" '200 {"helpful":2}' POST /products/p1/comments/o3/helpful '{"userId":"u2"}'
t "second vote: 409" '409 {"error":"user '"'"'u1'"'"' already voted for this comment"}' POST /products/p1/comments/o3/helpful '{"userId":"u1"}'
t "vote on o1" '200 {"helpful":1}' POST /products/p1/comments/o1/helpful '{"userId":"u3"}'
t "vote unknown user" '404 {"error":"user '"'"'u9'"'"' not found"}' POST /products/p1/comments/o3/helpful '{"userId":"u9"}'
t "vote missing comment" '404 {"error":"no comment of order '"'"'o9'"'"' on product '"'"'p1'"'"'"}' POST /products/p1/comments/o9/helpful '{"userId":"u1"}'
t "vote no userId" '400 {"error":"missing field '"'"'userId'"'"'"}' POST /products/p1/comments/o3/helpful '{}'
t "top before the batch" '200 {"comments":[]}' GET /products/p1/comments/top
t "rank batch" '200 {"products":2}' POST /admin/rank
L1=$(C o3 p1 u3 'really very good' 1700000002000 false 2)
A3=$(C o1 p1 u1 'good value for money, would buy again' 1700000001000 true 1)
# votes, then the longer content, then the newer
t "top" "200 {\"comments\":[$L1,$A3,$Y,$B2]}" GET /products/p1/comments/top
t "top p2" "200 {\"comments\":[$N]}" GET /products/p2/comments/top
t "rank batch again: nothing to do" '200 {"products":0}' POST /admin/rank
t "top unknown product" '404 {"error":"product '"'"'p9'"'"' not found"}' GET /products/p9/comments/top

# ---- deletes -------------------------------------------------------------------------------
t "delete" '204 ' DELETE /products/p1/comments/o3
t "get deleted" '404 {"error":"no comment of order '"'"'o3'"'"' on product '"'"'p1'"'"'"}' GET /products/p1/comments/o3
t "delete again" '404 {"error":"no comment of order '"'"'o3'"'"' on product '"'"'p1'"'"'"}' DELETE /products/p1/comments/o3
t "top without the deleted (its rank row went with it)" "200 {\"comments\":[$A3,$Y,$B2]}" GET /products/p1/comments/top
t "list without the deleted" "200 {\"comments\":[$B2,$Y,$A3],\"next\":null}" GET /products/p1/comments
t "user 3 has none" '200 {"comments":[],"next":null}' GET /users/u3/comments
t "rank batch after the delete" '200 {"products":1}' POST /admin/rank
t "top renumbered" "200 {\"comments\":[$A3,$Y,$B2]}" GET /products/p1/comments/top
clock 1700000005000
t "post again after delete" "201 $(C o3 p1 u3 'changed my mind' 1700000005000 false 0)" POST /products/p1/comments '{"orderId":"o3","userId":"u3","content":"changed my mind"}'
t "delete p2's" '204 ' DELETE /products/p2/comments/o1
t "rank batch: p2 has none" '200 {"products":2}' POST /admin/rank
t "top p2 empty" '200 {"comments":[]}' GET /products/p2/comments/top

# ---- the default page size: 20 --------------------------------------------------------------
clock 1700000006000
for i in $(seq 10 30); do
	curl -s -o /dev/null -X PUT -H 'Content-Type: application/json' "$URL/orders/o$i" \
		--data-binary "{\"userId\":\"u2\",\"productIds\":[\"p2\"]}"
	curl -s -o /dev/null -X POST -H 'Content-Type: application/json' "$URL/products/p2/comments" \
		--data-binary "{\"orderId\":\"o$i\",\"userId\":\"u2\",\"content\":\"n$i\"}"
done
# one user, one ms: each post took the next ms, so o30 is the newest
PAGE=
for i in $(seq 30 -1 11); do
	PAGE="$PAGE${PAGE:+,}$(C o$i p2 u2 n$i $((1700000006000 + i - 10)) false 0)"
done
t "default limit 20" "200 {\"comments\":[$PAGE],\"next\":\"cDIAAAAAAAAAAGN___50MBqAj3____w\"}" GET /products/p2/comments
t "after the first 20" "200 {\"comments\":[$(C o10 p2 u2 n10 1700000006000 false 0)],\"next\":null}" GET "/products/p2/comments?cursor=cDIAAAAAAAAAAGN___50MBqAj3____w"

# ---- routes ------------------------------------------------------------------------------------
t "unknown path" '404 {"error":"no such resource: /nothing"}' GET /nothing
t "method not allowed" '405 {"error":"method DELETE is not allowed on /users/u1"}' DELETE /users/u1
t "method not allowed on a list" '405 {"error":"method PUT is not allowed on /products/p1/comments"}' PUT /products/p1/comments '{}'
t "rank needs POST" '405 {"error":"method GET is not allowed on /admin/rank"}' GET /admin/rank

# ---- stop, then check every index row against the comments -----------------------------------------
kill "$CPID"; wait "$CPID" 2>/dev/null
if [ "$MODE" = remote ]; then
	"$COMMENTS" check "${STORE[@]}" >"$TMP/check.out" 2>&1
else
	"$COMMENTS" check "${STORE[@]}" >"$TMP/check.out" 2>&1
fi
CHECKS=$((CHECKS + 1))
if ! grep -q '^check: 25 comments, 25 user-comment rows, 25 product-comment rows, 4 rank rows: 0 problem(s)$' "$TMP/check.out"; then
	echo "FAIL: check"; cat "$TMP/check.out"; FAILS=$((FAILS + 1))
fi

echo "comments_api.sh ($MODE): $CHECKS checks, $FAILS failed"
[ "$FAILS" -eq 0 ]
