/*
 * cellkey.c - encoding and decoding of cell keys so that RocksDB's default
 * bytewise comparator yields HBase's order (see cellkey.h). The escape keeps
 * E(x) order-preserving and prefix-free, so a row's keys never interleave
 * with another row's.
 */
#include "engine/cellkey.h"
#include "common/error.h"

#include <assert.h>
#include <string.h>

int cellkey_put_escaped(sbx_buf *out, const uint8_t *p, size_t n)
{
	int rc = sbx_buf_reserve(out, 2 * n + 2);
	if (rc)
		return rc;
	uint8_t *d = out->data + out->len;
	/* Copy runs between zero bytes with memcpy: most keys have none. */
	while (n > 0) {
		const uint8_t *z = memchr(p, 0, n);
		size_t run = z ? (size_t)(z - p) : n;
		memcpy(d, p, run);
		d += run;
		p += run;
		n -= run;
		if (z) {
			*d++ = 0x00;
			*d++ = 0xFF;
			p++;
			n--;
		}
	}
	*d++ = 0x00;
	*d++ = 0x01;
	out->len = (size_t)(d - out->data);
	return SBX_OK;
}

int cellkey_encode(sbx_buf *out, const uint8_t *row, size_t row_len,
		   const uint8_t *qual, size_t qual_len, int64_t ts,
		   sbx_cell_type type)
{
	assert(ts >= 0);
	int rc = cellkey_put_escaped(out, row, row_len);
	if (!rc)
		rc = cellkey_put_escaped(out, qual, qual_len);
	if (!rc)
		rc = sbx_buf_reserve(out, CELLKEY_TAIL_LEN);
	if (rc)
		return rc;
	uint64_t inv = ~(uint64_t)ts;
	uint8_t *d = out->data + out->len;
	for (int i = CELLKEY_TS_LEN - 1; i >= 0; i--) {
		d[i] = (uint8_t)(inv & 0xFF);
		inv >>= 8;
	}
	d[CELLKEY_TS_LEN] = (uint8_t)(0xFF - (uint8_t)type);
	out->len += CELLKEY_TAIL_LEN;
	return SBX_OK;
}

int cellkey_row_start(sbx_buf *out, const uint8_t *row, size_t row_len)
{
	return cellkey_put_escaped(out, row, row_len);
}

int cellkey_row_end(sbx_buf *out, const uint8_t *row, size_t row_len)
{
	int rc = cellkey_put_escaped(out, row, row_len);
	if (!rc)
		out->data[out->len - 1] = CELLKEY_TERM_PAST;
	return rc;
}

/* Every 00 starts a pair (00 FF or 00 01), so the first 00 01 ends E(x). */
static size_t segment_len(const uint8_t *p, size_t n)
{
	size_t i = 0;
	while (i + 1 < n) {
		const uint8_t *z = memchr(p + i, 0, n - i - 1);
		if (!z)
			return 0;
		i = (size_t)(z - p);
		if (p[i + 1] == 0x01)
			return i + 2;
		if (p[i + 1] != 0xFF)
			return 0;
		i += 2;
	}
	return 0;
}

size_t cellkey_row_prefix_len(const uint8_t *key, size_t key_len)
{
	return segment_len(key, key_len);
}

size_t cellkey_unescape(const uint8_t *p, size_t n, sbx_buf *out)
{
	const uint8_t *plain;
	size_t len = cellkey_segment(p, n, &plain);
	if (!len || sbx_buf_reserve(out, len))
		return 0;
	if (plain) { /* no escaped zero: one copy */
		memcpy(out->data + out->len, p, len - CELLKEY_TERM_LEN);
		out->len += len - CELLKEY_TERM_LEN;
		return len;
	}
	uint8_t *d = out->data + out->len;
	size_t body = len - CELLKEY_TERM_LEN, i = 0;
	while (i < body) { /* runs between escaped zeros */
		const uint8_t *z = memchr(p + i, 0, body - i);
		size_t run = z ? (size_t)(z - (p + i)) : body - i;
		memcpy(d, p + i, run);
		d += run;
		i += run;
		if (z) {
			*d++ = 0x00;
			i += 2; /* 00 FF */
		}
	}
	out->len = (size_t)(d - out->data);
	return len;
}

int cellkey_decode(const uint8_t *key, size_t key_len, sbx_buf *row,
		   sbx_buf *qual, cellkey_parts *parts)
{
	/* room first: unescaping then fails only on a corrupt key */
	if ((row && sbx_buf_reserve(row, key_len)) ||
	    (qual && sbx_buf_reserve(qual, key_len)))
		return SBX_ENOMEM_SET();
	size_t r = row ? cellkey_unescape(key, key_len, row)
		       : segment_len(key, key_len);
	if (!r)
		return SBX_EIO;
	size_t q = qual ? cellkey_unescape(key + r, key_len - r, qual)
			: segment_len(key + r, key_len - r);
	if (!q || r + q + CELLKEY_TAIL_LEN != key_len)
		return SBX_EIO;
	parts->row_prefix_len = r;
	parts->qual_prefix_len = r + q;
	cellkey_tail(key + r + q, &parts->ts, &parts->type);
	return SBX_OK;
}
