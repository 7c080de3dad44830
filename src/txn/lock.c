/*
 * lock.c - the lock cell's binary codec. Every integer is big-endian; a
 * lock opens with "TX", a format version (1), its state, the commit
 * timestamp and its own version (the lock cell's timestamp, so two lock
 * values are never equal unless they are the same write), and ends with a
 * CRC-32 of everything before it, so a cell that is not a lock is told
 * apart rather than misread. The byte-by-byte layout is in
 * docs/transactions.md ("The lock cell"); decode checks every length
 * before the iterators trust them.
 */
#include "txn/txn_int.h"

#include "common/clock.h"
#include "common/error.h"

#include <string.h>

#define MAGIC0 'T'
#define MAGIC1 'X'
#define FORMAT 1
#define HEADER 20 /* magic, format, state, commit_ts, version */
#define STABLE_LEN (HEADER + 4)

/* The library's one clock (a seam tests can set): lock expiry and
 * commit timestamps read it. */
int64_t tx_now_ms(void)
{
	return sbx_clock_now_ms();
}

/* CRC-32 (IEEE, as zlib), four bits at a time from a 16-entry table. */
static uint32_t crc32_bytes(const uint8_t *p, size_t n)
{
	static const uint32_t t[16] = {
	    0x00000000, 0x1DB71064, 0x3B6E20C8, 0x26D930AC,
	    0x76DC4190, 0x6B6B51F4, 0x4DB26158, 0x5005713C,
	    0xEDB88320, 0xF00F9344, 0xD6D6A3E8, 0xCB61B38C,
	    0x9B64C2B0, 0x86D3D2D4, 0xA00AE278, 0xBDBDF21C};
	uint32_t crc = 0xFFFFFFFFu;
	for (size_t i = 0; i < n; i++) {
		crc ^= p[i];
		crc = (crc >> 4) ^ t[crc & 15];
		crc = (crc >> 4) ^ t[crc & 15];
	}
	return ~crc;
}

static void put_be(uint8_t *p, uint64_t v, int bytes)
{
	for (int i = bytes - 1; i >= 0; i--, v >>= 8)
		p[i] = (uint8_t)v;
}

static uint64_t get_be(const uint8_t *p, int bytes)
{
	uint64_t v = 0;
	for (int i = 0; i < bytes; i++)
		v = v << 8 | p[i];
	return v;
}

static int add_be(sbx_buf *b, uint64_t v, int bytes)
{
	uint8_t tmp[8];
	put_be(tmp, v, bytes);
	return sbx_buf_append(b, tmp, (size_t)bytes);
}

static int add_crc(sbx_buf *b)
{
	return add_be(b, crc32_bytes(b->data, b->len), 4);
}

static void header(uint8_t h[HEADER], int state, int64_t commit_ts,
		   int64_t version)
{
	h[0] = MAGIC0;
	h[1] = MAGIC1;
	h[2] = FORMAT;
	h[3] = (uint8_t)state;
	put_be(h + 4, (uint64_t)commit_ts, 8);
	put_be(h + 12, (uint64_t)version, 8);
}

int lock_encode_stable(sbx_buf *out, int64_t commit_ts, int64_t version)
{
	uint8_t p[STABLE_LEN];
	header(p, TX_STABLE, commit_ts, version);
	put_be(p + HEADER, crc32_bytes(p, HEADER), 4);
	return sbx_buf_set(out, p, STABLE_LEN) ? SBX_ENOMEM_SET() : SBX_OK;
}

static int add_ref(sbx_buf *b, const tx_ref *r)
{
	int rc = add_be(b, r->table_len, 2);
	rc = rc ? rc : sbx_buf_append(b, r->table, r->table_len);
	rc = rc ? rc : add_be(b, r->row_len, 2);
	return rc ? rc : sbx_buf_append(b, r->row, r->row_len);
}

static int add_op(sbx_buf *b, const tx_op *op)
{
	int rc = sbx_buf_push(b, (uint8_t)op->kind);
	rc = rc ? rc : sbx_buf_push(b, (uint8_t)op->family_len);
	rc = rc ? rc : sbx_buf_append(b, op->family, op->family_len);
	if (!rc && op->kind != TX_DELETE_FAMILY) {
		rc = add_be(b, op->qualifier_len, 4);
		rc = rc ? rc
			: sbx_buf_append(b, op->qualifier, op->qualifier_len);
	}
	if (!rc && op->kind == TX_PUT) {
		rc = add_be(b, op->value_len, 4);
		rc = rc ? rc : sbx_buf_append(b, op->value, op->value_len);
	}
	return rc;
}

int lock_encode(sbx_buf *out, const tx_lock *lk, const tx_ref *secs,
		const tx_op *ops)
{
	uint8_t h[HEADER];
	header(h, lk->state, lk->commit_ts, lk->version);
	const tx_ref *primary_ref = lk->primary ? NULL : &lk->primary_ref;
	size_t nsecs = lk->nsecondaries, nops = lk->nops;
	int rc = sbx_buf_set(out, h, sizeof h);
	rc = rc ? rc : add_be(out, lk->txn_id, 8);
	rc = rc ? rc : add_be(out, (uint64_t)lk->expiry_ms, 8);
	rc = rc ? rc : sbx_buf_push(out, primary_ref ? 1 : 0);
	rc = rc ? rc : add_be(out, (uint64_t)lk->prev_commit_ts, 8);
	rc = rc ? rc : add_be(out, (uint64_t)lk->prev_version, 8);
	if (primary_ref) {
		rc = rc ? rc : add_ref(out, primary_ref);
	} else {
		rc = rc ? rc : add_be(out, nsecs, 4);
		for (size_t i = 0; !rc && i < nsecs; i++)
			rc = add_ref(out, &secs[i]);
	}
	rc = rc ? rc : add_be(out, nops, 4);
	for (size_t i = 0; !rc && i < nops; i++)
		rc = add_op(out, &ops[i]);
	rc = rc ? rc : add_crc(out);
	return rc ? SBX_ENOMEM_SET() : SBX_OK;
}

int lock_with_state(sbx_buf *out, const uint8_t *p, size_t n, int state,
		    int64_t version)
{
	out->len = 0;
	if (n < STABLE_LEN)
		return sbx_error_set(SBX_EINVAL, "short lock");
	if (sbx_buf_append(out, p, n - 4))
		return SBX_ENOMEM_SET();
	out->data[3] = (uint8_t)state;
	put_be(out->data + 12, (uint64_t)version, 8);
	return add_crc(out) ? SBX_ENOMEM_SET() : SBX_OK;
}

/* ---- decoding ------------------------------------------------------------ */

typedef struct reader {
	const uint8_t *p, *end;
	bool bad;
} reader;

static uint64_t rd_be(reader *r, int bytes)
{
	if (r->bad || r->end - r->p < bytes) {
		r->bad = true;
		return 0;
	}
	uint64_t v = get_be(r->p, bytes);
	r->p += bytes;
	return v;
}

static const uint8_t *rd_bytes(reader *r, size_t n)
{
	if (r->bad || (size_t)(r->end - r->p) < n) {
		r->bad = true;
		return NULL;
	}
	const uint8_t *at = r->p;
	r->p += n;
	return at;
}

static void rd_ref(reader *r, tx_ref *out)
{
	out->table_len = (size_t)rd_be(r, 2);
	out->table = (const char *)rd_bytes(r, out->table_len);
	out->row_len = (size_t)rd_be(r, 2);
	out->row = rd_bytes(r, out->row_len);
	if (!r->bad && (out->table_len == 0 || out->row_len == 0))
		r->bad = true;
}

static void rd_op(reader *r, tx_op *out)
{
	memset(out, 0, sizeof *out);
	out->kind = (tx_op_kind)rd_be(r, 1);
	out->family_len = (size_t)rd_be(r, 1);
	out->family = (const char *)rd_bytes(r, out->family_len);
	if (out->kind != TX_DELETE_FAMILY) {
		out->qualifier_len = (size_t)rd_be(r, 4);
		out->qualifier = rd_bytes(r, out->qualifier_len);
	}
	if (out->kind == TX_PUT) {
		out->value_len = (size_t)rd_be(r, 4);
		out->value = rd_bytes(r, out->value_len);
	}
	if (out->kind < TX_PUT || out->kind > TX_DELETE_FAMILY ||
	    out->family_len == 0 || out->family_len > SBX_MAX_FAMILY_NAME)
		r->bad = true;
}

void lock_secondary(const tx_lock *lk, const uint8_t **cursor, tx_ref *out)
{
	reader r = {*cursor, lk->end, false};
	rd_ref(&r, out);
	*cursor = r.p;
}

void lock_op(const tx_lock *lk, const uint8_t **cursor, tx_op *out)
{
	reader r = {*cursor, lk->end, false};
	rd_op(&r, out);
	*cursor = r.p;
}

static int garbage(size_t n, const char *why)
{
	return sbx_error_set(SBX_EBADVALUE,
			     "the lock cell (%zu bytes) is not a Saltbox "
			     "transaction lock: %s",
			     n, why);
}

int lock_decode(tx_lock *out, const uint8_t *p, size_t n)
{
	memset(out, 0, sizeof *out);
	if (n == 0) {
		out->state = TX_STABLE;
		return SBX_OK;
	}
	if (n < STABLE_LEN || p[0] != MAGIC0 || p[1] != MAGIC1)
		return garbage(n, "no \"TX\" header");
	if (p[2] != FORMAT)
		return garbage(n, "unknown format version");
	if (get_be(p + n - 4, 4) != crc32_bytes(p, n - 4))
		return garbage(n, "checksum mismatch");
	reader r = {p + 3, p + n - 4, false};
	out->end = r.end;
	out->state = (int)rd_be(&r, 1);
	out->commit_ts = (int64_t)rd_be(&r, 8);
	out->version = (int64_t)rd_be(&r, 8);
	if (out->state == TX_STABLE)
		return r.p == r.end ? SBX_OK
				    : garbage(n, "STABLE lock too long");
	if (out->state != TX_PREWRITTEN && out->state != TX_COMMITTED)
		return garbage(n, "unknown state");
	out->txn_id = rd_be(&r, 8);
	out->expiry_ms = (int64_t)rd_be(&r, 8);
	int role = (int)rd_be(&r, 1);
	out->primary = role == 0;
	out->prev_commit_ts = (int64_t)rd_be(&r, 8);
	out->prev_version = (int64_t)rd_be(&r, 8);
	if (role > 1)
		r.bad = true;
	if (out->primary) {
		out->nsecondaries = (size_t)rd_be(&r, 4);
		out->secondaries_at = r.p;
		for (size_t i = 0; !r.bad && i < out->nsecondaries; i++) {
			tx_ref ref;
			rd_ref(&r, &ref);
		}
	} else {
		rd_ref(&r, &out->primary_ref);
		if (out->state == TX_COMMITTED)
			r.bad = true; /* only a primary commits */
	}
	out->nops = (size_t)rd_be(&r, 4);
	out->ops_at = r.p;
	for (size_t i = 0; !r.bad && i < out->nops; i++) {
		tx_op op;
		rd_op(&r, &op);
	}
	if (r.bad || r.p != r.end)
		return garbage(n, "fields do not add up");
	return SBX_OK;
}
