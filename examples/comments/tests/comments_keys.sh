#!/usr/bin/env bash
# comments_keys.sh - the key designs saltbox-comments uses are the ones its
# README shows: `saltbox-comments keys` prints comments.design byte for
# byte, and every line `saltbox key explain` prints for the seed's four
# composite keys appears in README.md; openapi.yaml names every route.
# usage: comments_keys.sh SALTBOX_COMMENTS SALTBOX
set -u
COMMENTS=${1:?saltbox-comments binary}
SALTBOX=${2:?saltbox binary}
DIR=$(cd "$(dirname "$0")/.." && pwd)
FAILS=0
if ! "$COMMENTS" keys | cmp -s - "$DIR/comments.design"; then
	echo "FAIL: saltbox-comments keys differs from comments.design"
	"$COMMENTS" keys | diff - "$DIR/comments.design"
	FAILS=$((FAILS + 1))
fi
for n in comment user_comment product_comment product_comment_rank; do
	out=$("$SALTBOX" key explain -f "$DIR/comments.design" -n "$n") ||
		{ echo "FAIL: explain $n"; FAILS=$((FAILS + 1)); continue; }
	while IFS= read -r line; do
		[ -z "$line" ] && continue
		grep -qxF -- "$line" "$DIR/README.md" ||
			{ echo "FAIL: README.md lacks the explain line of $n: $line"; FAILS=$((FAILS + 1)); }
	done <<<"$out"
done
for route in "/users/{id}:" "/sellers/{id}:" "/products/{id}:" "/orders/{id}:" \
	"/products/{productId}/comments:" "/products/{productId}/comments/top:" \
	"/products/{productId}/comments/{orderId}:" \
	"/products/{productId}/comments/{orderId}/helpful:" \
	"/users/{userId}/comments:" "/admin/rank:"; do
	grep -qxF "  $route" "$DIR/openapi.yaml" ||
		{ echo "FAIL: openapi.yaml lacks $route"; FAILS=$((FAILS + 1)); }
done
echo "comments_keys.sh: $FAILS failed"
[ "$FAILS" -eq 0 ]
