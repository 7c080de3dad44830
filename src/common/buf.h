/*
 * buf.h - growable byte buffer helpers over the public sbx_buf (internal).
 *
 * The public sbx_buf_append/reserve/reset (saltbox/common.h) are exported
 * functions. Inside the library the same names are macros for the inline
 * versions below, as C's getc/putc are: the read path appends per cell,
 * where a call costs more than the work. buf.c defines the exported ones
 * as thin wrappers over the same inline code, so the two cannot differ.
 */
#ifndef SBX_COMMON_BUF_H
#define SBX_COMMON_BUF_H

#include "common/bytes.h" /* sbx_bytes_eq, for the users of old */
#include "saltbox/common.h"

#include <assert.h>
#include <string.h>

/* Every call here REQUIRES: b != NULL, b->len <= b->cap, and b->data
 * non-NULL once b->cap > 0 (a zeroed sbx_buf is a valid empty buffer). */
#define SBX_BUF_VALID(b) ((b) && (b)->len <= (b)->cap && (!(b)->cap || (b)->data))

/* Grow to hold `extra` more bytes (the slow path of sbx_buf_reserve). */
int sbx_buf_grow(sbx_buf *b, size_t extra);

/* Ensure room for `extra` more bytes. Returns SBX_OK or SBX_ENOMEM. */
static inline int sbx_buf_reserve_inline(sbx_buf *b, size_t extra)
{
	assert(SBX_BUF_VALID(b));
	return b->cap - b->len >= extra ? SBX_OK : sbx_buf_grow(b, extra);
}

static inline int sbx_buf_append_inline(sbx_buf *b, const void *data,
					size_t len)
{
	assert(data || len == 0); /* REQUIRES */
	int rc = sbx_buf_reserve_inline(b, len);
	if (rc)
		return rc;
	if (len)
		memcpy(b->data + b->len, data, len);
	b->len += len;
	return SBX_OK;
}

static inline void sbx_buf_reset_inline(sbx_buf *b)
{
	b->len = 0;
}

#define sbx_buf_reserve(b, extra) sbx_buf_reserve_inline((b), (extra))
#define sbx_buf_append(b, data, len) sbx_buf_append_inline((b), (data), (len))
#define sbx_buf_reset(b) sbx_buf_reset_inline(b)

static inline int sbx_buf_push(sbx_buf *b, uint8_t byte)
{
	int rc = sbx_buf_reserve(b, 1);
	if (!rc)
		b->data[b->len++] = byte;
	return rc;
}

/* Append a NUL-terminated string (without its NUL). */
static inline int sbx_buf_puts(sbx_buf *b, const char *s)
{
	return sbx_buf_append(b, s, strlen(s));
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

#endif
