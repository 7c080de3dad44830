/*
 * bytes.h - byte-string helpers every layer shares (internal): HBase's
 * unsigned lexicographic order, hex digits and strings, and HBase's binary
 * strings (Bytes.toStringBinary / toBytesBinary). One copy of each, so the
 * engine, the backends, the server and the tools cannot disagree on what
 * "sorts before" or "\xHH" means.
 */
#ifndef SBX_COMMON_BYTES_H
#define SBX_COMMON_BYTES_H

#include "saltbox/common.h"

#include <stdint.h>
#include <string.h>

/* HBase's order of byte strings (Bytes.compareTo): unsigned bytes, and a
 * proper prefix before the longer string. The sign is what counts: < 0,
 * 0 or > 0. Inline: filters and scans compare per cell. Either pointer may
 * be NULL when its length is 0. */
static inline int sbx_bytes_cmp(const void *a, size_t alen, const void *b,
				size_t blen)
{
	size_t n = alen < blen ? alen : blen;
	int c = n ? memcmp(a, b, n) : 0;
	if (c)
		return c;
	return alen < blen ? -1 : alen > blen;
}

/* FNV-1a over n bytes, continuing from h (start with SBX_FNV1A_INIT): the
 * hash of the in-memory tables keyed by names and columns. */
#define SBX_FNV1A_INIT 14695981039346656037ull
static inline uint64_t sbx_fnv1a(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;
	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 1099511628211ull;
	return h;
}

/* HBase's order of the cells of one row (CellComparator without the row):
 * family, qualifier, timestamp descending, type descending (delete
 * markers before puts at one timestamp). */
static inline int sbx_cell_cmp(const sbx_cell *a, const sbx_cell *b)
{
	int c = sbx_bytes_cmp(a->family, a->family_len, b->family,
			      b->family_len);
	if (!c)
		c = sbx_bytes_cmp(a->qualifier, a->qualifier_len, b->qualifier,
				  b->qualifier_len);
	if (!c && a->timestamp != b->timestamp)
		c = a->timestamp > b->timestamp ? -1 : 1;
	if (!c && a->type != b->type)
		c = a->type > b->type ? -1 : 1;
	return c;
}

/* a[0..n) == b[0..n), inline: the read path compares short keys (a row
 * prefix, a qualifier) per cell, where a call to memcmp costs more than
 * the comparison. */
static inline bool sbx_bytes_eq(const void *a, const void *b, size_t n)
{
	const uint8_t *x = a, *y = b;
	for (; n >= 8; n -= 8, x += 8, y += 8) {
		uint64_t u, v;
		memcpy(&u, x, 8);
		memcpy(&v, y, 8);
		if (u != v)
			return false;
	}
	for (; n; n--)
		if (*x++ != *y++)
			return false;
	return true;
}

/* The value of one hex digit (either case), or -1. */
static inline int sbx_hex_digit(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* "0123456789ABCDEF" or lower case: digit i of a byte's hex. */
extern const char sbx_hex_upper[17];
extern const char sbx_hex_lower[17];

/* Append len bytes as 2*len hex digits. SBX_OK or SBX_ENOMEM (out is then
 * unchanged). */
int sbx_hex_append(sbx_buf *out, const void *data, size_t len, bool upper);

/* Append the bytes that `len` hex digits (either case) spell. On a bad
 * input (an odd count, or a pair that is not two hex digits) returns
 * SBX_EINVAL with *bad_at the offset of the offending pair (len for an
 * odd count), out unchanged and no message set: callers word the error in
 * their own terms. SBX_ENOMEM (message set) when out cannot grow. */
int sbx_hex_decode(sbx_buf *out, const char *hex, size_t len, size_t *bad_at);

/* Append bytes percent-encoded for a URL path segment or query value
 * (RFC 3986: all but A-Z a-z 0-9 - . _ ~ as %HH, upper case). SBX_OK or
 * SBX_ENOMEM (message set; out unchanged). */
int sbx_url_append(sbx_buf *out, const void *data, size_t len);

/* Append bytes as HBase prints them (Bytes.toStringBinary): printable
 * ASCII but the backslash as is, every other byte as \xHH (upper case).
 * SBX_OK or SBX_ENOMEM (out is then unchanged). */
int sbx_binary_string_append(sbx_buf *out, const void *data, size_t len);

/* Append the bytes a binary string spells. strict: every backslash must
 * start \xHH, else SBX_EINVAL with *bad_at the offset of that backslash,
 * out unchanged and no message set. Not strict, HBase's toBytesBinary: a
 * \x not followed by two hex digits loses its backslash, any other
 * backslash is kept. SBX_ENOMEM (message set) when out cannot grow. */
int sbx_binary_string_decode(sbx_buf *out, const char *text, size_t len,
			     bool strict, size_t *bad_at);

#endif
