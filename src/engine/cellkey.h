/*
 * cellkey.h - the on-disk cell key (layout A of reference/key-encoding.md):
 *   esc(row) 00 01 · esc(qualifier) 00 01 · BE64(~ts) · (0xFF - type)
 * where esc() turns each 00 byte into 00 FF. Plain bytewise order of these
 * keys is HBase's cell order within one family: row asc, qualifier asc,
 * timestamp desc, type desc. Family is the RocksDB column family.
 */
#ifndef SBX_ENGINE_CELLKEY_H
#define SBX_ENGINE_CELLKEY_H

#include "common/buf.h"

/* The tail that ends every cell key: BE64(~ts), then 0xFF - type. */
#define CELLKEY_TS_LEN 8
#define CELLKEY_TAIL_LEN (CELLKEY_TS_LEN + 1)
/* Each E(x) ends with the terminator 00 01 (E of the empty string is just
 * that); raised to 00 02 it sorts after every key that starts with E(x). */
#define CELLKEY_TERM_LEN 2
#define CELLKEY_TERM_PAST 0x02

/* Append esc(bytes) 00 01 to out. */
int cellkey_put_escaped(sbx_buf *out, const uint8_t *p, size_t n);

/* Append the full key of one cell. REQUIRES: ts >= 0. */
int cellkey_encode(sbx_buf *out, const uint8_t *row, size_t row_len,
		   const uint8_t *qual, size_t qual_len, int64_t ts,
		   sbx_cell_type type);

/* Row bounds: E(row) is a prefix of every key of the row; E(row) with the
 * final 01 raised to 02 sorts after every key of the row and before every
 * key of any greater row. */
int cellkey_row_start(sbx_buf *out, const uint8_t *row, size_t row_len);
int cellkey_row_end(sbx_buf *out, const uint8_t *row, size_t row_len);

/* Length of the escaped row prefix E(row) at the start of key, or 0 if the
 * key is malformed. */
size_t cellkey_row_prefix_len(const uint8_t *key, size_t key_len);

/* A decoded key. row and qual point into the caller's scratch buffer. */
typedef struct cellkey_parts {
	size_t row_prefix_len; /* bytes of E(row) in the key */
	size_t qual_prefix_len; /* bytes of E(row) E(qual) in the key */
	int64_t ts;
	sbx_cell_type type;
} cellkey_parts;

/* Decode key into row (appended to *row) and qualifier (appended to *qual).
 * Returns SBX_OK or SBX_EIO for a malformed key. */
int cellkey_decode(const uint8_t *key, size_t key_len, sbx_buf *row,
		   sbx_buf *qual, cellkey_parts *parts);

/* Bytes of the E(x) segment starting at p (0 if malformed). *plain is
 * set to p when x has no escaped zero (x is then the segment's first
 * return-2 bytes, readable in place), else to NULL. */
static inline size_t cellkey_segment(const uint8_t *p, size_t n,
				     const uint8_t **plain)
{
	*plain = NULL;
	if (n < 2)
		return 0;
	const uint8_t *z = memchr(p, 0, n - 1);
	if (z && z[1] == 0x01) {
		*plain = p;
		return (size_t)(z - p) + 2;
	}
	return cellkey_row_prefix_len(p, n);
}

/* Whether p[0..n) is exactly one E(x) segment, *plain as for
 * cellkey_segment. Inline: the read path checks each new column's
 * qualifier segment, whose length the key's gives (what lies between
 * E(row) and the tail), and a qualifier without zero bytes is the common
 * case: checked without a call. */
static inline bool cellkey_segment_is(const uint8_t *p, size_t n,
				      const uint8_t **plain)
{
	*plain = NULL;
	if (n < CELLKEY_TERM_LEN)
		return false;
	if (!p[n - 2] && p[n - 1] == 0x01 && !sbx_bytes_has_zero(p, n - 2)) {
		*plain = p;
		return true;
	}
	return cellkey_segment(p, n, plain) == n;
}

/* The timestamp and type in the CELLKEY_TAIL_LEN bytes that end a key. */
static inline void cellkey_tail(const uint8_t *t, int64_t *ts,
				sbx_cell_type *type)
{
	uint64_t inv;
	memcpy(&inv, t, sizeof inv);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	inv = __builtin_bswap64(inv);
#else
	inv = 0;
	for (int i = 0; i < CELLKEY_TS_LEN; i++)
		inv = (inv << 8) | t[i];
#endif
	*ts = (int64_t)~inv;
	*type = (sbx_cell_type)(0xFF - t[CELLKEY_TS_LEN]);
}

/* The type of the cell whose whole key is k (kl >= CELLKEY_TAIL_LEN). */
static inline sbx_cell_type cellkey_type(const uint8_t *k, size_t kl)
{
	return (sbx_cell_type)(0xFF - k[kl - 1]);
}

/* Unescape one E(x) segment starting at p; returns bytes consumed (0 on
 * malformed input) and appends x to out. */
size_t cellkey_unescape(const uint8_t *p, size_t n, sbx_buf *out);

#endif
