/*
 * base64.h - base64 (RFC 4648), the one copy every layer uses (internal).
 */
#ifndef SBX_COMMON_BASE64_H
#define SBX_COMMON_BASE64_H

#include "saltbox/common.h"

/* Append the standard, padded base64 of data to *out. SBX_OK or
 * SBX_ENOMEM. */
int sbx_base64_encode(sbx_buf *out, const void *data, size_t len);

/* The standard, padded base64 of data as a NUL-terminated string, the
 * caller's to free(); NULL when out of memory (message set). */
char *sbx_base64_string(const void *data, size_t len);

/*
 * Decode text into *out (replacing its contents). Strict: the standard
 * alphabet, padding optional but, when present, exact, no whitespace, and
 * the unused bits zero, as a canonical encoder leaves them. Lenient: the
 * standard or URL-safe alphabet, any trailing '=' ignored, unused bits
 * ignored. SBX_OK, SBX_EPARSE (no message set: callers say what was
 * malformed) or SBX_ENOMEM.
 */
int sbx_base64_decode(sbx_buf *out, const char *text, size_t len,
		      bool lenient);

#endif
