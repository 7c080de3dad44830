/*
 * util.c - small helpers of saltbox-comments: the clock, id checks,
 * base64 (the products' content travels as base64), error results and
 * big-endian numbers.
 */
#include "comments.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int64_t cm_now_ms(cm_app *app)
{
	if (app->test_clock)
		return atomic_load(&app->clock_ms);
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

bool cm_id_ok(const char *id)
{
	size_t n = id ? strlen(id) : 0;
	if (n < 1 || n > CM_ID_MAX)
		return false;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)id[i];
		if (c < 0x21 || c > 0x7E || c == '/')
			return false;
	}
	return true;
}

static const char b64[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
static const char b64url[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

char *cm_base64_encode(const uint8_t *in, size_t len, bool url)
{
	const char *tab = url ? b64url : b64;
	char *out = malloc(4 * ((len + 2) / 3) + 1), *p = out;
	if (!out)
		return NULL;
	size_t i = 0;
	for (; i + 3 <= len; i += 3) {
		uint32_t v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8 |
			     in[i + 2];
		*p++ = tab[v >> 18];
		*p++ = tab[(v >> 12) & 63];
		*p++ = tab[(v >> 6) & 63];
		*p++ = tab[v & 63];
	}
	if (len - i == 1) {
		uint32_t v = (uint32_t)in[i] << 16;
		*p++ = tab[v >> 18];
		*p++ = tab[(v >> 12) & 63];
		if (!url) {
			*p++ = '=';
			*p++ = '=';
		}
	} else if (len - i == 2) {
		uint32_t v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8;
		*p++ = tab[v >> 18];
		*p++ = tab[(v >> 12) & 63];
		*p++ = tab[(v >> 6) & 63];
		if (!url)
			*p++ = '=';
	}
	*p = '\0';
	return out;
}

static int b64val(char c, bool url)
{
	const char *tab = url ? b64url : b64;
	const char *p = c ? strchr(tab, c) : NULL;
	return p ? (int)(p - tab) : -1;
}

/* Standard (padded, length a multiple of 4) or, for cursors, url-safe
 * unpadded; anything else is malformed. */
static bool decode(uint8_t **out, size_t *out_len, const char *in, size_t len,
		   bool url)
{
	*out = NULL;
	*out_len = 0;
	size_t pad = 0;
	if (!url) {
		if (len % 4)
			return false;
		while (pad < 2 && len > pad && in[len - 1 - pad] == '=')
			pad++;
	} else if (len % 4 == 1) {
		return false;
	}
	size_t n = len - pad;
	uint8_t *o = malloc(n * 3 / 4 + 3), *p = o;
	if (!o)
		return false;
	uint32_t acc = 0;
	int bits = 0;
	for (size_t i = 0; i < n; i++) {
		int v = b64val(in[i], url);
		if (v < 0) {
			free(o);
			return false;
		}
		acc = acc << 6 | (uint32_t)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			*p++ = (uint8_t)(acc >> bits);
		}
	}
	/* the leftover bits must be zero (one spelling per value) */
	if (bits && (acc & ((1u << bits) - 1))) {
		free(o);
		return false;
	}
	*out = o;
	*out_len = (size_t)(p - o);
	return true;
}

bool cm_base64_decode(uint8_t **out, size_t *out_len, const char *in,
		      size_t len)
{
	return decode(out, out_len, in, len, false);
}

bool cm_base64url_decode(uint8_t **out, size_t *out_len, const char *in,
			 size_t len);
bool cm_base64url_decode(uint8_t **out, size_t *out_len, const char *in,
			 size_t len)
{
	return decode(out, out_len, in, len, true);
}

void cm_result_error(cm_result *res, int status, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(res->error, sizeof res->error, fmt, ap);
	va_end(ap);
	res->status = status;
	if (res->json) {
		json_decref(res->json);
		res->json = NULL;
	}
}

void cm_result_store_error(cm_result *res, int rc)
{
	if (rc == SBX_ECONFLICT)
		cm_result_error(res, 503, "busy: %s", sbx_errmsg());
	else
		cm_result_error(res, 500, "store: %s (%s)", sbx_errmsg(),
				sbx_strerror(rc));
}

void cm_put_be64(uint8_t *p, uint64_t v)
{
	for (int i = 7; i >= 0; i--) {
		p[i] = (uint8_t)v;
		v >>= 8;
	}
}

uint64_t cm_get_be64(const uint8_t *p)
{
	uint64_t v = 0;
	for (int i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}
