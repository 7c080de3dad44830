/*
 * buf.c - growable byte buffers (amortized doubling): the slow path of
 * growing, printf into a buffer, and the exported sbx_buf_* calls of the
 * public API, which wrap the inline versions in buf.h. The names are in
 * parentheses so buf.h's macros do not expand them.
 */
#include "common/buf.h"
#include "common/alloc.h"
#include "common/error.h"

#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

int sbx_buf_grow(sbx_buf *b, size_t extra)
{
	assert(SBX_BUF_VALID(b));
	/* past half the address space the doubling below would wrap */
	if (b->len + extra < b->len || b->len + extra > SIZE_MAX / 2)
		return sbx_error_set(SBX_ENOMEM, "buffer size overflow");
	if (b->len + extra <= b->cap)
		return SBX_OK;
	size_t cap = b->cap ? b->cap : 64;
	while (cap < b->len + extra)
		cap *= 2;
	uint8_t *p = sbx_realloc(b->data, cap);
	if (!p)
		return SBX_ENOMEM_SET();
	b->data = p;
	b->cap = cap;
	return SBX_OK;
}

/* REQUIRES: a valid b (buf.h), fmt != NULL. */
int sbx_buf_printf(sbx_buf *b, const char *fmt, ...)
{
	assert(SBX_BUF_VALID(b) && fmt);
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return sbx_error_set(SBX_EINVAL, "bad format string");
	int rc = sbx_buf_reserve(b, (size_t)n + 1);
	if (rc)
		return rc;
	va_start(ap, fmt);
	vsnprintf((char *)b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
	return SBX_OK;
}

int(sbx_buf_append)(sbx_buf *b, const void *data, size_t len)
{
	return sbx_buf_append_inline(b, data, len);
}

int(sbx_buf_reserve)(sbx_buf *b, size_t extra)
{
	return sbx_buf_reserve_inline(b, extra);
}

void(sbx_buf_reset)(sbx_buf *b)
{
	sbx_buf_reset_inline(b);
}

void sbx_buf_free(sbx_buf *buf)
{
	if (!buf)
		return;
	free(buf->data);
	buf->data = NULL;
	buf->len = buf->cap = 0;
}
