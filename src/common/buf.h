/* buf.h - growable byte buffer helpers over the public sbx_buf (internal). */
#ifndef SBX_COMMON_BUF_H
#define SBX_COMMON_BUF_H

#include "saltbox/common.h"

#include <assert.h>
#include <string.h>

/* Every call here REQUIRES: b != NULL, b->len <= b->cap, and b->data
 * non-NULL once b->cap > 0 (a zeroed sbx_buf is a valid empty buffer). */
#define SBX_BUF_VALID(b) ((b) && (b)->len <= (b)->cap && (!(b)->cap || (b)->data))

/* Grow to hold `extra` more bytes (the slow path of sbx_buf_reserve). */
int sbx_buf_grow(sbx_buf *b, size_t extra);

/* Ensure room for `extra` more bytes. Returns SBX_OK or SBX_ENOMEM. The
 * common case (room already there) is inline: the read path calls these
 * per cell. */
static inline int sbx_buf_reserve(sbx_buf *b, size_t extra)
{
	assert(SBX_BUF_VALID(b));
	return b->cap - b->len >= extra ? SBX_OK : sbx_buf_grow(b, extra);
}

/* REQUIRES: data != NULL unless len == 0. */
static inline int sbx_buf_append(sbx_buf *b, const void *data, size_t len)
{
	assert(data || len == 0);
	int rc = sbx_buf_reserve(b, len);
	if (rc)
		return rc;
	if (len)
		memcpy(b->data + b->len, data, len);
	b->len += len;
	return SBX_OK;
}

static inline int sbx_buf_push(sbx_buf *b, uint8_t byte)
{
	int rc = sbx_buf_reserve(b, 1);
	if (!rc)
		b->data[b->len++] = byte;
	return rc;
}

static inline int sbx_buf_set(sbx_buf *b, const void *data, size_t len)
{
	assert(SBX_BUF_VALID(b));
	b->len = 0;
	return sbx_buf_append(b, data, len);
}
/* Append printf-formatted text (any length; nothing is cut). The buffer
 * keeps a NUL after the text, not counted in len. */
int sbx_buf_printf(sbx_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* a[0..n) == b[0..n), inline: the read path compares short keys (a row
 * prefix, a qualifier) per cell, where a call to memcmp costs more than
 * the comparison. */
static inline bool sbx_bytes_eq(const void *a, const void *b, size_t n)
{
	assert((a && b) || n == 0); /* REQUIRES: both readable for n bytes */
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

static inline void sbx_buf_clear(sbx_buf *b)
{
	assert(SBX_BUF_VALID(b));
	b->len = 0;
}

#endif
