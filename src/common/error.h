/* error.h - setting the per-thread error message (internal). */
#ifndef SBX_COMMON_ERROR_H
#define SBX_COMMON_ERROR_H

#include "saltbox/common.h"

/* Record a printf-style message for sbx_errmsg() and return `code`.
 * REQUIRES: code != SBX_OK (a message is for a failure), fmt != NULL. */
int sbx_error_set(int code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#define SBX_ENOMEM_SET() sbx_error_set(SBX_ENOMEM, "out of memory")

#endif
