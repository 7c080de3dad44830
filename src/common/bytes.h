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

/* Unaligned loads of 8 and 4 bytes. */
static inline uint64_t sbx_load64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}

static inline uint32_t sbx_load32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
}

/* a[0..n) == b[0..n), inline: the read path compares short keys (a row
 * prefix, a qualifier) per cell, where a call to memcmp costs more than
 * the comparison. Whole words, the last one overlapping the one before
 * it, rather than a loop over the tail's bytes. */
static inline bool sbx_bytes_eq(const void *a, const void *b, size_t n)
{
	const uint8_t *x = a, *y = b;
	if (n >= 8) {
		for (size_t i = 0; i + 8 < n; i += 8)
			if (sbx_load64(x + i) != sbx_load64(y + i))
				return false;
		return sbx_load64(x + n - 8) == sbx_load64(y + n - 8);
	}
	if (n >= 4)
		return sbx_load32(x) == sbx_load32(y) &&
		       sbx_load32(x + n - 4) == sbx_load32(y + n - 4);
	for (; n; n--)
		if (*x++ != *y++)
			return false;
	return true;
}

/* dst[0..n) = src[0..n), inline for the short strings the read path
 * copies per cell (a qualifier, a column's key segment), where a call to
 * memcpy costs more than the copy: up to 16 bytes as two overlapping
 * fixed-size moves, longer ones by memcpy. */
static inline void sbx_bytes_copy(void *dst, const void *src, size_t n)
{
	uint8_t *d = dst;
	const uint8_t *s = src;
	if (n > 16) {
		memcpy(d, s, n);
	} else if (n >= 8) { /* both loaded before either store */
		uint64_t a = sbx_load64(s), b = sbx_load64(s + n - 8);
		memcpy(d, &a, 8);
		memcpy(d + n - 8, &b, 8);
	} else if (n >= 4) {
		uint32_t a = sbx_load32(s), b = sbx_load32(s + n - 4);
		memcpy(d, &a, 4);
		memcpy(d + n - 4, &b, 4);
	} else if (n) {
		uint8_t a = s[0], b = s[n / 2], c = s[n - 1];
		d[0] = a;
		d[n / 2] = b;
		d[n - 1] = c;
	}
}

/* Whether p[0..n) holds a zero byte, inline for short strings (a cell
 * key's qualifier), where a call to memchr costs more than the search:
 * words tested at once (the last overlapping the one before it). */
static inline bool sbx_bytes_has_zero(const void *p, size_t n)
{
	const uint8_t *b = p;
#define SBX_ZERO64(v) \
	(((v) - 0x0101010101010101ull) & ~(v) & 0x8080808080808080ull)
#define SBX_ZERO32(v) (((v) - 0x01010101u) & ~(v) & 0x80808080u)
	if (n >= 8) {
		for (size_t i = 0; i + 8 < n; i += 8) {
			uint64_t v = sbx_load64(b + i);
			if (SBX_ZERO64(v))
				return true;
		}
		uint64_t v = sbx_load64(b + n - 8);
		return SBX_ZERO64(v) != 0;
	}
	if (n >= 4) {
		uint32_t v = sbx_load32(b), w = sbx_load32(b + n - 4);
		return SBX_ZERO32(v) || SBX_ZERO32(w);
	}
#undef SBX_ZERO64
#undef SBX_ZERO32
	for (; n; n--)
		if (!*b++)
			return true;
	return false;
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
