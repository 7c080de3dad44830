/*
 * bytes.c - hex strings and HBase's binary strings (see bytes.h). Every
 * function appends to the caller's buffer and, on failure, leaves it as it
 * was.
 */
#include "common/bytes.h"

#include "common/buf.h"
#include "common/error.h"

const char sbx_hex_upper[17] = "0123456789ABCDEF";
const char sbx_hex_lower[17] = "0123456789abcdef";

int sbx_hex_append(sbx_buf *out, const void *data, size_t len, bool upper)
{
	const char *digits = upper ? sbx_hex_upper : sbx_hex_lower;
	const uint8_t *p = data;
	int rc = sbx_buf_reserve(out, len > SIZE_MAX / 2 ? SIZE_MAX : 2 * len);
	if (rc)
		return rc;
	for (size_t i = 0; i < len; i++) {
		out->data[out->len++] = (uint8_t)digits[p[i] >> 4];
		out->data[out->len++] = (uint8_t)digits[p[i] & 15];
	}
	return SBX_OK;
}

int sbx_hex_decode(sbx_buf *out, const char *hex, size_t len, size_t *bad_at)
{
	if (len % 2) {
		*bad_at = len;
		return SBX_EINVAL;
	}
	int rc = sbx_buf_reserve(out, len / 2);
	if (rc)
		return rc;
	size_t start = out->len;
	for (size_t i = 0; i < len; i += 2) {
		int hi = sbx_hex_digit(hex[i]), lo = sbx_hex_digit(hex[i + 1]);
		if (hi < 0 || lo < 0) {
			out->len = start;
			*bad_at = i;
			return SBX_EINVAL;
		}
		out->data[out->len++] = (uint8_t)(hi << 4 | lo);
	}
	return SBX_OK;
}

int sbx_url_append(sbx_buf *out, const void *data, size_t len)
{
	const uint8_t *p = data;
	if (len > SIZE_MAX / 4 || sbx_buf_reserve(out, len * 3 + 1))
		return sbx_error_set(SBX_ENOMEM, "out of memory");
	for (size_t i = 0; i < len; i++) {
		uint8_t c = p[i];
		if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
		    (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' ||
		    c == '~') {
			out->data[out->len++] = c;
		} else {
			out->data[out->len++] = '%';
			out->data[out->len++] = (uint8_t)sbx_hex_upper[c >> 4];
			out->data[out->len++] = (uint8_t)sbx_hex_upper[c & 15];
		}
	}
	return SBX_OK;
}

int sbx_binary_string_append(sbx_buf *out, const void *data, size_t len)
{
	const uint8_t *p = data;
	size_t start = out->len;
	for (size_t i = 0; i < len; i++) {
		uint8_t b = p[i];
		int rc;
		if (b >= 0x20 && b < 0x7F && b != '\\') {
			rc = sbx_buf_push(out, b);
		} else {
			char esc[4] = {'\\', 'x', sbx_hex_upper[b >> 4],
				       sbx_hex_upper[b & 15]};
			rc = sbx_buf_append(out, esc, 4);
		}
		if (rc) {
			out->len = start;
			return rc;
		}
	}
	return SBX_OK;
}

int sbx_binary_string_decode(sbx_buf *out, const char *text, size_t len,
			     bool strict, size_t *bad_at)
{
	size_t start = out->len;
	for (size_t i = 0; i < len; i++) {
		uint8_t b = (uint8_t)text[i];
		if (b == '\\' &&
		    (strict || (i + 1 < len && text[i + 1] == 'x'))) {
			int hi = i + 2 < len ? sbx_hex_digit(text[i + 2]) : -1;
			int lo = i + 3 < len ? sbx_hex_digit(text[i + 3]) : -1;
			if (i + 1 >= len || text[i + 1] != 'x' || hi < 0 ||
			    lo < 0) {
				if (!strict)
					continue; /* bogus escape: drop the \ */
				out->len = start;
				*bad_at = i;
				return SBX_EINVAL;
			}
			b = (uint8_t)(hi << 4 | lo);
			i += 3;
		}
		int rc = sbx_buf_push(out, b);
		if (rc) {
			out->len = start;
			return rc;
		}
	}
	return SBX_OK;
}
