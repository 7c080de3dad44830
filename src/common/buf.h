/* buf.h - growable byte buffer helpers over the public sbx_buf (internal). */
#ifndef SBX_COMMON_BUF_H
#define SBX_COMMON_BUF_H

#include "saltbox/common.h"

#include <string.h>

/* Ensure room for `extra` more bytes. Returns SBX_OK or SBX_ENOMEM. */
int sbx_buf_reserve(sbx_buf *b, size_t extra);
int sbx_buf_append(sbx_buf *b, const void *data, size_t len);
int sbx_buf_push(sbx_buf *b, uint8_t byte);
int sbx_buf_set(sbx_buf *b, const void *data, size_t len);
/* Append printf-formatted text (any length; nothing is cut). The buffer
 * keeps a NUL after the text, not counted in len. */
int sbx_buf_printf(sbx_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static inline void sbx_buf_clear(sbx_buf *b)
{
	b->len = 0;
}

#endif
