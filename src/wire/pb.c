/*
 * pb.c - the protobuf wire format for HBase REST's few small messages
 * (CellSet, Cell, Scanner, Version, TableList, ...). The messages are fixed
 * and tiny, so a strict reader/writer of varints and length-delimited
 * fields is all that is needed; it rejects truncated or malformed input
 * instead of guessing.
 */
#include "wire/pb.h"

#include "common/buf.h"

static int read_varint(pb_reader *r, uint64_t *out)
{
	uint64_t v = 0;
	for (int shift = 0; shift < 64; shift += 7) {
		if (r->p >= r->end)
			return SBX_EPARSE;
		uint8_t b = *r->p++;
		if (shift == 63 && b > 1)
			return SBX_EPARSE;
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*out = v;
			return SBX_OK;
		}
	}
	return SBX_EPARSE;
}

int pb_next(pb_reader *r, pb_field *f)
{
	if (r->p >= r->end)
		return 0;
	uint64_t key;
	if (read_varint(r, &key))
		return SBX_EPARSE;
	f->num = (uint32_t)(key >> 3);
	f->wire = (int)(key & 7);
	if (f->num == 0 || key >> 3 > UINT32_MAX)
		return SBX_EPARSE;
	f->data = NULL;
	f->len = 0;
	f->varint = 0;
	switch (f->wire) {
	case 0:
		return read_varint(r, &f->varint) ? SBX_EPARSE : 1;
	case 1:
		if (r->end - r->p < 8)
			return SBX_EPARSE;
		for (int i = 7; i >= 0; i--)
			f->varint = f->varint << 8 | r->p[i];
		r->p += 8;
		return 1;
	case 2: {
		uint64_t n;
		if (read_varint(r, &n) || n > (uint64_t)(r->end - r->p))
			return SBX_EPARSE;
		f->data = r->p;
		f->len = (size_t)n;
		r->p += n;
		return 1;
	}
	case 5:
		if (r->end - r->p < 4)
			return SBX_EPARSE;
		for (int i = 3; i >= 0; i--)
			f->varint = f->varint << 8 | r->p[i];
		r->p += 4;
		return 1;
	default:
		return SBX_EPARSE; /* groups (3, 4) and 6, 7 */
	}
}

int pb_put_raw_varint(sbx_buf *b, uint64_t v)
{
	uint8_t tmp[10];
	size_t n = 0;
	do {
		tmp[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	return sbx_buf_append(b, tmp, n);
}

int pb_put_varint(sbx_buf *b, uint32_t field, uint64_t v)
{
	int rc = pb_put_raw_varint(b, (uint64_t)field << 3);
	return rc ? rc : pb_put_raw_varint(b, v);
}

int pb_put_bytes(sbx_buf *b, uint32_t field, const void *data, size_t len)
{
	int rc = pb_put_raw_varint(b, (uint64_t)field << 3 | 2);
	if (!rc)
		rc = pb_put_raw_varint(b, len);
	if (!rc)
		rc = sbx_buf_append(b, data, len);
	return rc;
}
