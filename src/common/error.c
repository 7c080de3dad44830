/*
 * error.c - status codes and the per-thread "last error" message behind
 * sbx_errmsg(). The library never prints; it records a message here and
 * returns a code.
 */
#include "common/error.h"

#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static _Thread_local char last_error[1024] = "no error";

const char *sbx_errmsg(void)
{
	return last_error;
}

int sbx_error_set(int code, const char *fmt, ...)
{
	assert(code != SBX_OK && fmt);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(last_error, sizeof last_error, fmt, ap);
	va_end(ap);
	return code;
}

const char *sbx_strerror(int code)
{
	switch (code) {
	case SBX_OK: return "SBX_OK";
	case SBX_ITEROVER: return "SBX_ITEROVER";
	case SBX_ENOTFOUND: return "SBX_ENOTFOUND";
	case SBX_EEXISTS: return "SBX_EEXISTS";
	case SBX_EINVAL: return "SBX_EINVAL";
	case SBX_ENOFAMILY: return "SBX_ENOFAMILY";
	case SBX_EDISABLED: return "SBX_EDISABLED";
	case SBX_ENOTDISABLED: return "SBX_ENOTDISABLED";
	case SBX_ETOOLARGE: return "SBX_ETOOLARGE";
	case SBX_EBADVALUE: return "SBX_EBADVALUE";
	case SBX_ENOTEMPTY: return "SBX_ENOTEMPTY";
	case SBX_EIO: return "SBX_EIO";
	case SBX_ENOMEM: return "SBX_ENOMEM";
	case SBX_EUNSUPPORTED: return "SBX_EUNSUPPORTED";
	case SBX_EPARSE: return "SBX_EPARSE";
	case SBX_EREMOTE: return "SBX_EREMOTE";
	case SBX_EREADONLY: return "SBX_EREADONLY";
	case SBX_ECONFLICT: return "SBX_ECONFLICT";
	case SBX_EBUSY: return "SBX_EBUSY";
	default: return "SBX_E?";
	}
}
