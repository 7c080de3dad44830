/*
 * info.c - a key design's structure as data: its elements with their byte
 * layout and lengths, whole-key lengths, salt buckets and row order. The
 * explainer, lint and keyviz read designs through these calls.
 */
#include "common/error.h"
#include "rowkey/design.h"

#include <string.h>

enum { DEFAULT_TYPICAL = 8 };

static const char *layout_of(const kd_elem *e)
{
	switch (e->kind) {
	case KD_LITERAL: return "literal bytes";
	case KD_SALT:
		switch (e->salt_fmt) {
		case SALT_BYTE: return "Phoenix salt byte: abs(31-hash % N) of the rest of the key or of= fields";
		case SALT_LETTER: return "salt letter a.. : Phoenix 31-hash % N as 'a'+bucket";
		case SALT_HEX: return "salt as hex digits: Phoenix 31-hash % N";
		case SALT_DEC: return "salt as decimal digits: Phoenix 31-hash % N";
		}
		break;
	case KD_HASH:
		return e->hash_fmt == HASH_RAW ? "hash digest bytes (truncated to bytes=)"
		       : e->hash_fmt == HASH_HEX_UPPER
			       ? "hash digest as upper-case hex (2 chars a byte)"
			       : "hash digest as lower-case hex (2 chars a byte)";
	case KD_FIELD: break;
	}
	switch (e->type) {
	case KT_UINT: return e->desc ? "big-endian unsigned, inverted (desc)" : "big-endian unsigned";
	case KT_INT: return e->desc ? "big-endian, sign bit flipped, inverted (desc)" : "big-endian, sign bit flipped";
	case KT_F32:
	case KT_F64: return e->desc ? "IEEE bits in total order, inverted (desc)" : "IEEE bits in total order (sign flipped; negatives inverted)";
	case KT_TS64: return "timestamp ms, 8-byte big-endian (Bytes.toBytes(long))";
	case KT_RTS64: return "Long.MAX_VALUE - ts, 8-byte big-endian";
	case KT_RTSDEC: return "Long.MAX_VALUE - ts as 19 decimal digits";
	case KT_RLEN32: return "Integer.MAX_VALUE - n, 4-byte big-endian";
	case KT_STR:
		if (e->width)
			return e->reversed ? "reversed text, padded to width" : e->right_align ? "text right-aligned, padded to width" : "text padded to width";
		if (e->desc)
			return "00 escaped as 00 FF, terminator 00 01, all inverted (desc)";
		return e->terminated ? (e->reversed ? "reversed; 00 escaped as 00 FF, terminator 00 01" : "00 escaped as 00 FF, terminator 00 01")
				     : (e->reversed ? "reversed; 00 escaped as 00 FF (last field: no terminator)" : "00 escaped as 00 FF (last field: no terminator)");
	case KT_BYTES:
		if (e->width)
			return "raw bytes, exact width";
		return e->terminated ? "00 escaped as 00 FF, terminator 00 01" : "00 escaped as 00 FF (last field: no terminator)";
	case KT_TEXT: return e->delim >= 0 ? "raw text up to the next literal delimiter" : "raw text to the end of the key";
	case KT_DEC:
		if (e->width)
			return e->reversed ? "decimal digits zero-padded to width, reversed" : "decimal digits zero-padded to width";
		return e->reversed ? "decimal digits reversed, up to the delimiter" : "decimal digits, up to the delimiter";
	}
	return "";
}

static void elem_lengths(const kd_elem *e, size_t *min, size_t *typ,
			 size_t *max)
{
	size_t fw = kd_elem_fixed_width(e);
	if (fw) {
		*min = *typ = *max = fw;
		return;
	}
	size_t over = e->terminated ? 2 : 0;
	size_t typical = e->typical ? e->typical : DEFAULT_TYPICAL;
	if (e->max_len && typical > e->max_len)
		typical = e->max_len;
	size_t minv = e->type == KT_DEC ? 1 : 0;
	if (typical < minv)
		typical = minv;
	*min = minv + over;
	*typ = typical + over;
	if (!e->max_len)
		*max = SBX_KEYLEN_UNBOUNDED;
	else if (e->type == KT_STR || e->type == KT_BYTES)
		*max = 2 * e->max_len + over; /* worst case: all 00 */
	else
		*max = e->max_len + over;
	if (*max > SBX_KEYLEN_UNBOUNDED)
		*max = SBX_KEYLEN_UNBOUNDED;
}

size_t sbx_keydesign_elem_count(const sbx_keydesign *d)
{
	return d ? d->n_elems : 0;
}

int sbx_keydesign_elem(sbx_keyelem_info *info, const sbx_keydesign *d, size_t i)
{
	if (!d || !info || i >= d->n_elems)
		return sbx_error_set(SBX_EINVAL, "no element %zu", i);
	const kd_elem *e = &d->elems[i];
	memset(info, 0, sizeof *info);
	info->kind = (sbx_keyelem_kind)e->kind;
	info->name = e->name ? e->name : "";
	info->type = e->kind == KD_LITERAL ? "literal" : e->type_text;
	info->layout = layout_of(e);
	info->order = kd_elem_order(e);
	info->fixed_width = kd_elem_fixed_width(e) != 0;
	elem_lengths(e, &info->min_len, &info->typical_len, &info->max_len);
	long off = 0;
	for (size_t k = 0; k < i && off >= 0; k++) {
		size_t w = kd_elem_fixed_width(&d->elems[k]);
		off = w ? off + (long)w : -1;
	}
	info->offset = off;
	return SBX_OK;
}

void sbx_keydesign_length(size_t *min, size_t *typical, size_t *max,
			  const sbx_keydesign *d)
{
	size_t a = 0, b = 0, c = 0;
	for (size_t i = 0; d && i < d->n_elems; i++) {
		size_t x, y, z;
		elem_lengths(&d->elems[i], &x, &y, &z);
		a += x;
		b += y;
		c = (c == SBX_KEYLEN_UNBOUNDED || z == SBX_KEYLEN_UNBOUNDED)
			    ? SBX_KEYLEN_UNBOUNDED
			    : c + z;
	}
	if (c > SBX_KEYLEN_UNBOUNDED)
		c = SBX_KEYLEN_UNBOUNDED;
	if (min)
		*min = a;
	if (typical)
		*typical = b;
	if (max)
		*max = c;
}

int sbx_keydesign_buckets(const sbx_keydesign *d)
{
	return d && d->n_elems && d->elems[0].kind == KD_SALT
		       ? d->elems[0].buckets
		       : 0;
}

const char *sbx_keydesign_order(const sbx_keydesign *d)
{
	return d->order;
}
