/*
 * base64.c - base64 (RFC 4648) for every layer that carries bytes in text:
 * REST bodies (keys, columns and values in JSON and XML are standard,
 * padded base64), the remote backend, and filter JSON. Strict decoding
 * refuses anything but the canonical form, so a malformed body is an
 * error, never a silently different key; lenient decoding is for the
 * filter JSON people write by hand.
 */
#include "common/base64.h"

#include "common/buf.h"

static const char b64_alphabet[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

int sbx_base64_encode(sbx_buf *out, const void *data, size_t len)
{
	const uint8_t *p = data;
	int rc = sbx_buf_reserve(out, (len + 2) / 3 * 4 + 1);
	if (rc)
		return rc;
	char *o = (char *)out->data + out->len;
	size_t i = 0;
	for (; i + 3 <= len; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];
		*o++ = b64_alphabet[v >> 18];
		*o++ = b64_alphabet[(v >> 12) & 63];
		*o++ = b64_alphabet[(v >> 6) & 63];
		*o++ = b64_alphabet[v & 63];
	}
	if (len - i == 1) {
		uint32_t v = (uint32_t)p[i] << 16;
		*o++ = b64_alphabet[v >> 18];
		*o++ = b64_alphabet[(v >> 12) & 63];
		*o++ = '=';
		*o++ = '=';
	} else if (len - i == 2) {
		uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8;
		*o++ = b64_alphabet[v >> 18];
		*o++ = b64_alphabet[(v >> 12) & 63];
		*o++ = b64_alphabet[(v >> 6) & 63];
		*o++ = '=';
	}
	out->len = (size_t)(o - (char *)out->data);
	return SBX_OK;
}

char *sbx_base64_string(const void *data, size_t len)
{
	sbx_buf b = {0};
	if (sbx_base64_encode(&b, data, len) || sbx_buf_push(&b, 0)) {
		sbx_buf_free(&b);
		return NULL;
	}
	return (char *)b.data;
}

/* The value of one base64 digit; lenient also takes the URL-safe '-'
 * and '_'. -1 for anything else. */
static int b64_value(unsigned char c, bool lenient)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+' || (lenient && c == '-'))
		return 62;
	if (c == '/' || (lenient && c == '_'))
		return 63;
	return -1;
}

int sbx_base64_decode(sbx_buf *out, const char *text, size_t len,
		      bool lenient)
{
	out->len = 0;
	size_t data_len = len;
	if (lenient) {
		while (data_len && text[data_len - 1] == '=')
			data_len--;
	} else if (len % 4 == 0 && len >= 4) {
		if (text[len - 1] == '=')
			data_len--;
		if (text[len - 2] == '=')
			data_len--;
	}
	if (data_len % 4 == 1)
		return SBX_EPARSE;
	int rc = sbx_buf_reserve(out, data_len / 4 * 3 + 3);
	if (rc)
		return rc;
	uint32_t acc = 0;
	int bits = 0;
	for (size_t i = 0; i < data_len; i++) {
		int v = b64_value((unsigned char)text[i], lenient);
		if (v < 0)
			return SBX_EPARSE;
		acc = acc << 6 | (uint32_t)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			out->data[out->len++] = (uint8_t)(acc >> bits);
			acc &= (1u << bits) - 1;
		}
	}
	/* Leftover bits must be zero, as in canonical encodings. */
	if (acc != 0 && !lenient)
		return SBX_EPARSE;
	return SBX_OK;
}
