/*
 * codec.c - order-preserving byte codecs for row keys: fixed-width integers
 * (sign-flipped when signed), IEEE floats in total order, reverse
 * timestamps, escaped variable-length bytes, padded fixed-width strings,
 * inversion (descending) and reversal. Invariant: memcmp of two encodings
 * orders like the values; a failed encode leaves the buffer untouched.
 */
#include "common/buf.h"
#include "common/bytes.h"
#include "common/error.h"
#include "saltbox/rowkey.h"

#include <assert.h>
#include <math.h>

static bool valid_width(int width)
{
	return width == 1 || width == 2 || width == 4 || width == 8;
}

/* REQUIRES (and get_be): a valid width; get_be: width bytes at in. */
static int put_be(sbx_buf *out, uint64_t v, int width)
{
	assert(out && valid_width(width));
	uint8_t b[8];
	for (int i = width - 1; i >= 0; i--) {
		b[i] = (uint8_t)v;
		v >>= 8;
	}
	return sbx_buf_append(out, b, (size_t)width);
}

static uint64_t get_be(const uint8_t *in, int width)
{
	assert(in && valid_width(width));
	uint64_t v = 0;
	for (int i = 0; i < width; i++)
		v = v << 8 | in[i];
	return v;
}

int sbx_key_put_uint(sbx_buf *out, uint64_t value, int width)
{
	if (!valid_width(width))
		return sbx_error_set(SBX_EINVAL, "integer width %d is not 1, 2, "
					       "4 or 8 bytes", width);
	if (width < 8 && value >> (8 * width))
		return sbx_error_set(SBX_EINVAL,
				     "%llu does not fit in %d unsigned bytes",
				     (unsigned long long)value, width);
	return put_be(out, value, width);
}

int sbx_key_get_uint(uint64_t *value, const uint8_t *in, size_t len,
		     int width, size_t *used)
{
	if (!valid_width(width))
		return sbx_error_set(SBX_EINVAL, "integer width %d is not 1, 2, "
					       "4 or 8 bytes", width);
	if (len < (size_t)width)
		return sbx_error_set(SBX_EINVAL,
				     "key ends early: %d-byte integer needs %d "
				     "bytes, %zu left", width, width, len);
	*value = get_be(in, width);
	if (used)
		*used = (size_t)width;
	return SBX_OK;
}

int sbx_key_put_int(sbx_buf *out, int64_t value, int width)
{
	if (!valid_width(width))
		return sbx_error_set(SBX_EINVAL, "integer width %d is not 1, 2, "
					       "4 or 8 bytes", width);
	if (width < 8) {
		int64_t lim = INT64_C(1) << (8 * width - 1);
		if (value < -lim || value >= lim)
			return sbx_error_set(SBX_EINVAL,
					     "%lld does not fit in %d signed "
					     "bytes", (long long)value, width);
	}
	uint64_t u = (uint64_t)value ^ (UINT64_C(1) << (8 * width - 1));
	if (width < 8)
		u &= (UINT64_C(1) << (8 * width)) - 1;
	return put_be(out, u, width);
}

int sbx_key_get_int(int64_t *value, const uint8_t *in, size_t len, int width,
		    size_t *used)
{
	uint64_t u;
	int rc = sbx_key_get_uint(&u, in, len, width, used);
	if (rc)
		return rc;
	u ^= UINT64_C(1) << (8 * width - 1);
	if (width < 8 && (u >> (8 * width - 1)) & 1)
		u |= ~((UINT64_C(1) << (8 * width)) - 1); /* sign-extend */
	*value = (int64_t)u;
	return SBX_OK;
}

/* Total-order transform of IEEE bits: flip the sign bit of positives,
 * invert every bit of negatives. */
static uint64_t float_order(uint64_t bits, int nbits)
{
	uint64_t sign = UINT64_C(1) << (nbits - 1);
	uint64_t mask = nbits == 64 ? ~UINT64_C(0) : (sign << 1) - 1;
	return (bits & sign) ? (~bits & mask) : (bits | sign);
}

static uint64_t float_unorder(uint64_t enc, int nbits)
{
	uint64_t sign = UINT64_C(1) << (nbits - 1);
	uint64_t mask = nbits == 64 ? ~UINT64_C(0) : (sign << 1) - 1;
	return (enc & sign) ? (enc & ~sign) : (~enc & mask);
}

int sbx_key_put_f32(sbx_buf *out, float value)
{
	uint32_t bits;
	if (isnan(value))
		bits = UINT32_C(0x7FC00000); /* canonical NaN sorts last */
	else
		memcpy(&bits, &value, 4);
	return put_be(out, float_order(bits, 32), 4);
}

int sbx_key_get_f32(float *value, const uint8_t *in, size_t len, size_t *used)
{
	if (len < 4)
		return sbx_error_set(SBX_EINVAL, "key ends early: f32 needs 4 "
					       "bytes, %zu left", len);
	uint32_t bits = (uint32_t)float_unorder(get_be(in, 4), 32);
	memcpy(value, &bits, 4);
	if (used)
		*used = 4;
	return SBX_OK;
}

int sbx_key_put_f64(sbx_buf *out, double value)
{
	uint64_t bits;
	if (isnan(value))
		bits = UINT64_C(0x7FF8000000000000);
	else
		memcpy(&bits, &value, 8);
	return put_be(out, float_order(bits, 64), 8);
}

int sbx_key_get_f64(double *value, const uint8_t *in, size_t len,
		    size_t *used)
{
	if (len < 8)
		return sbx_error_set(SBX_EINVAL, "key ends early: f64 needs 8 "
					       "bytes, %zu left", len);
	uint64_t bits = float_unorder(get_be(in, 8), 64);
	memcpy(value, &bits, 8);
	if (used)
		*used = 8;
	return SBX_OK;
}

int sbx_key_put_rts64(sbx_buf *out, int64_t ts)
{
	if (ts < 0)
		return sbx_error_set(SBX_EINVAL,
				     "timestamp %lld is negative; a reverse "
				     "timestamp needs ts >= 0", (long long)ts);
	return put_be(out, (uint64_t)(INT64_MAX - ts), 8);
}

int sbx_key_get_rts64(int64_t *ts, const uint8_t *in, size_t len,
		      size_t *used)
{
	if (len < 8)
		return sbx_error_set(SBX_EINVAL, "key ends early: reverse "
					       "timestamp needs 8 bytes, %zu "
					       "left", len);
	uint64_t v = get_be(in, 8);
	if (v > (uint64_t)INT64_MAX)
		return sbx_error_set(SBX_EINVAL,
				     "bytes %016llx are not a reverse timestamp "
				     "(above Long.MAX_VALUE)",
				     (unsigned long long)v);
	*ts = INT64_MAX - (int64_t)v;
	if (used)
		*used = 8;
	return SBX_OK;
}

void sbx_key_invert(uint8_t *bytes, size_t len)
{
	for (size_t i = 0; i < len; i++)
		bytes[i] ^= 0xFF;
}

void sbx_key_reverse(uint8_t *bytes, size_t len)
{
	for (size_t i = 0, j = len; i + 1 < j; i++, j--) {
		uint8_t t = bytes[i];
		bytes[i] = bytes[j - 1];
		bytes[j - 1] = t;
	}
}

int sbx_key_put_bytes(sbx_buf *out, const void *data, size_t len,
		      unsigned flags)
{
	const uint8_t *p = data;
	bool desc = flags & SBX_KEY_DESC;
	bool term = desc || (flags & SBX_KEY_TERMINATED);
	size_t zeros = 0;
	for (size_t i = 0; i < len; i++)
		zeros += p[i] == 0;
	size_t start = out->len;
	int rc = sbx_buf_reserve(out, len + zeros + (term ? 2 : 0));
	if (rc)
		return rc;
	uint8_t *w = out->data + out->len;
	for (size_t i = 0; i < len; i++) {
		*w++ = p[i];
		if (!p[i])
			*w++ = 0xFF;
	}
	if (term) {
		*w++ = 0x00;
		*w++ = 0x01;
	}
	out->len = (size_t)(w - out->data);
	if (desc)
		sbx_key_invert(out->data + start, out->len - start);
	return SBX_OK;
}

int sbx_key_get_bytes(sbx_buf *value, const uint8_t *in, size_t len,
		      unsigned flags, size_t *used)
{
	uint8_t x = (flags & SBX_KEY_DESC) ? 0xFF : 0x00;
	bool term = (flags & (SBX_KEY_DESC | SBX_KEY_TERMINATED)) != 0;
	size_t start = value->len;
	size_t i = 0;
	for (;;) {
		if (i == len) {
			if (term) {
				value->len = start;
				return sbx_error_set(SBX_EINVAL,
						     "key ends inside a variable"
						     "-length field (no 00 01 "
						     "terminator)");
			}
			break;
		}
		uint8_t b = in[i] ^ x;
		if (b != 0) {
			if (sbx_buf_push(value, b)) {
				value->len = start;
				return SBX_ENOMEM;
			}
			i++;
			continue;
		}
		if (i + 1 == len) {
			value->len = start;
			return sbx_error_set(SBX_EINVAL,
					     "key ends after a 00 byte inside a "
					     "variable-length field at byte %zu",
					     i);
		}
		uint8_t next = in[i + 1] ^ x;
		if (next == 0xFF) {
			if (sbx_buf_push(value, 0)) {
				value->len = start;
				return SBX_ENOMEM;
			}
			i += 2;
			continue;
		}
		if (next == 0x01 && term) {
			i += 2;
			break;
		}
		value->len = start;
		return sbx_error_set(SBX_EINVAL,
				     "bad escape 00 %02X in a variable-length "
				     "field at byte %zu", next, i);
	}
	if (used)
		*used = i;
	return SBX_OK;
}

int sbx_key_put_fixed(sbx_buf *out, const void *data, size_t len,
		      size_t width, uint8_t pad, bool right_align)
{
	const uint8_t *p = data;
	if (len > width)
		return sbx_error_set(SBX_EINVAL,
				     "value is %zu bytes, the fixed width is "
				     "%zu (never truncated)", len, width);
	if (len > 0 &&
	    (right_align ? p[0] == pad : p[len - 1] == pad))
		return sbx_error_set(SBX_EINVAL,
				     "value %s with the pad byte 0x%02X, so it "
				     "could not be told apart from padding",
				     right_align ? "starts" : "ends", pad);
	int rc = sbx_buf_reserve(out, width);
	if (rc)
		return rc;
	uint8_t *w = out->data + out->len;
	size_t npad = width - len;
	if (right_align) {
		memset(w, pad, npad);
		if (len)
			memcpy(w + npad, p, len);
	} else {
		if (len)
			memcpy(w, p, len);
		memset(w + len, pad, npad);
	}
	out->len += width;
	return SBX_OK;
}

int sbx_key_get_fixed(sbx_buf *value, const uint8_t *in, size_t len,
		      size_t width, uint8_t pad, bool right_align,
		      size_t *used)
{
	if (len < width)
		return sbx_error_set(SBX_EINVAL,
				     "key ends early: fixed-width field needs "
				     "%zu bytes, %zu left", width, len);
	size_t a = 0, b = width;
	if (right_align)
		while (a < b && in[a] == pad)
			a++;
	else
		while (b > a && in[b - 1] == pad)
			b--;
	int rc = sbx_buf_append(value, in + a, b - a);
	if (rc)
		return rc;
	if (used)
		*used = width;
	return SBX_OK;
}

int sbx_key_put_hex(sbx_buf *out, const uint8_t *bytes, size_t len,
		    bool upper)
{
	return sbx_hex_append(out, bytes, len, upper);
}

int sbx_key_to_binary_string(sbx_buf *out, const uint8_t *key, size_t len)
{
	return sbx_binary_string_append(out, key, len);
}

int sbx_key_from_binary_string(sbx_buf *out, const char *text, size_t len)
{
	size_t bad_at;
	int rc = sbx_binary_string_decode(out, text, len, true, &bad_at);
	if (rc == SBX_EINVAL)
		return sbx_error_set(SBX_EINVAL,
				     "bad escape at character %zu: expected "
				     "\\xHH", bad_at + 1);
	return rc;
}
