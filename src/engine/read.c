/*
 * read.c - the read path: HBase's get and scan over one RocksDB iterator per
 * selected family (created together, so they share one consistent view).
 * This file moves the iterators and builds results; what each cell means
 * (delete markers, TTL, time range, columns, filter, versions) is decided
 * by the matcher (matcher.h). Reversed scans find rows backwards, read each
 * row forwards, and step back before it.
 */
#include "engine/reader.h"

#include "common/alloc.h"
#include "common/clock.h"
#include "common/error.h"
#include "engine/cellkey.h"
#include "engine/rowcache.h"
#include "model/result.h"
#include "model/rules.h"

#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ---- cursors ---- */

static int cur_row(famcur *c)
{
	if (c->row_valid)
		return SBX_OK;
	if (!rocksdb_iter_valid(c->it))
		return SBX_ITEROVER;
	size_t kl;
	const uint8_t *k = (const uint8_t *)rocksdb_iter_key(c->it, &kl);
	c->row.len = 0;
	/* room first: unescaping fails only on a corrupt key then */
	if (sbx_buf_reserve(&c->row, kl))
		return SBX_ENOMEM_SET();
	if (!cellkey_unescape(k, kl, &c->row))
		return sbx_error_set(SBX_EIO, "corrupt cell key in family '%s'",
				     c->fam->desc.name);
	c->row_valid = true;
	return SBX_OK;
}


static void cur_seek(famcur *c, const sbx_buf *k)
{
	rocksdb_iter_seek(c->it, (const char *)k->data, k->len);
	c->row_valid = false;
}

static void cur_seek_for_prev(famcur *c, const sbx_buf *k)
{
	rocksdb_iter_seek_for_prev(c->it, (const char *)k->data, k->len);
	c->row_valid = false;
}

/* Position a cursor at the first row at or beyond `row` in the scan
 * direction, or (past) at the first row beyond it. */
static int cur_seek_row(reader *r, famcur *c, const uint8_t *row, size_t len,
			bool past)
{
	r->seek.len = 0;
	int rc = past != r->reversed ? cellkey_row_end(&r->seek, row, len)
				     : cellkey_row_start(&r->seek, row, len);
	if (rc)
		return rc;
	if (r->reversed)
		cur_seek_for_prev(c, &r->seek);
	else
		cur_seek(c, &r->seek);
	return SBX_OK;
}

/* Move a cursor past `row` in the scan direction. */
static int cur_skip_row(reader *r, famcur *c, const uint8_t *row, size_t len)
{
	return cur_seek_row(r, c, row, len, true);
}

static int seek_cur_to_row(reader *r, famcur *c, const uint8_t *row,
			   size_t len)
{
	return cur_seek_row(r, c, row, len, false);
}

/* Position every cursor at the first row at or beyond `row`. */
static int seek_all_to_row(reader *r, const uint8_t *row, size_t len)
{
	int rc = SBX_OK;
	for (size_t i = 0; !rc && i < r->nfc; i++)
		rc = seek_cur_to_row(r, &r->fc[i], row, len);
	return rc;
}

/* ---- one family of one row ---- */

/* The cells read_family_row walks: the live iterator, or the row buffer. */
static bool src_valid(reader *r, famcur *c)
{
	return r->rb.active ? r->rb.pos < r->rb.n : rocksdb_iter_valid(c->it);
}

static const uint8_t *src_key(reader *r, famcur *c, size_t *len)
{
	if (!r->rb.active)
		return (const uint8_t *)rocksdb_iter_key(c->it, len);
	const rowbuf_ent *e = &r->rb.ents[r->rb.pos];
	*len = e->klen;
	return r->rb.arena.data + e->koff;
}

static const uint8_t *src_value(reader *r, famcur *c, size_t *len)
{
	if (!r->rb.active)
		return (const uint8_t *)rocksdb_iter_value(c->it, len);
	const rowbuf_ent *e = &r->rb.ents[r->rb.pos];
	*len = e->vlen;
	return rowbuf_value(&r->rb, e);
}

static void src_next(reader *r, famcur *c)
{
	if (r->rb.active)
		r->rb.pos++;
	else
		rocksdb_iter_next(c->it);
}

/* Move to the first cell >= key (never backwards). */
static void src_seek(reader *r, famcur *c, const sbx_buf *key)
{
	if (!r->rb.active) {
		cur_seek(c, key);
		return;
	}
	size_t lo = r->rb.pos, hi = r->rb.n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const rowbuf_ent *e = &r->rb.ents[mid];
		if (cmp_bytes(r->rb.arena.data + e->koff, e->klen, key->data,
			      key->len) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	r->rb.pos = lo;
}

/* Append a cell to the row buffer. */
static int rowbuf_push(rowbuf *b, const char *k, size_t kl, const char *v,
		       size_t vl)
{
	if (b->n == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 16;
		rowbuf_ent *e = sbx_realloc(b->ents, cap * sizeof *e);
		if (!e)
			return SBX_ENOMEM_SET();
		b->ents = e;
		b->cap = cap;
	}
	rowbuf_ent *e = &b->ents[b->n++];
	e->koff = b->arena.len;
	e->klen = kl;
	e->voff = kl + e->koff;
	e->vlen = vl;
	e->vptr = NULL;
	if (sbx_buf_append(&b->arena, k, kl) || sbx_buf_append(&b->arena, v, vl))
		return SBX_ENOMEM_SET();
	return SBX_OK;
}

/* Whether the last buffered cell is of the same column as key k (both
 * full cell keys of the row whose E(row) is plen bytes). */
static bool same_column(const rowbuf *b, size_t plen, const char *k, size_t kl)
{
	if (!b->n)
		return false;
	const rowbuf_ent *x = &b->ents[b->n - 1];
	return x->klen == kl &&
	       !memcmp(b->arena.data + x->koff + plen, k + plen,
		       kl - plen - CELLKEY_TAIL_LEN);
}

/* A get that fills the row cache: copy the family's cells of the row at
 * the cursor into the row buffer, leaving the iterator past the row.
 * *whole false when they come to more than `max` bytes, or the iterator
 * stopped on an error: the buffer is then emptied and the cursor is back
 * at the row's first cell, to be read as without a cache.
 *
 * keep > 0 (a plain read: no filter, no time range, not raw; a family
 * rowcache_trim_versions allows) leaves out each column's puts after its
 * newest `keep` unmasked ones, *trimmed saying whether any was: a hot
 * column's pile of versions that compactions have not dropped yet then
 * fits the cache. Exact for such reads: cells sort newest first, and a
 * marker sorts before a put of its timestamp, so every marker that masks
 * a kept put is seen (and kept: markers never are left out) before it.
 * Column and family markers mask everything at or below their timestamp,
 * so the kept puts still hold every visible one among the newest; puts
 * at the timestamp of a one-version marker seen so far (SBX_CELL_DELETE
 * in the column, SBX_CELL_DELETE_FAMILY_VERSION in the row) are kept but
 * not counted, so the older puts that fill such holes are kept too.
 * Past two left-out puts the cursor seeks past the column (as reads do,
 * skip_in_column), so a get that refills a row's entry does not step
 * through a pile of thousands of versions: the older cells it skips are
 * puts no plain read sees and markers that mask only such puts. Never in
 * the empty qualifier's column, whose family markers mask other columns. */
#define TRIM_MARKS 8 /* one-version markers tracked; more: keep all */
static int buffer_row_forward(reader *r, famcur *c, size_t max, int keep,
			      bool *whole, bool *trimmed)
{
	rowbuf *b = &r->rb;
	b->n = b->pos = 0;
	b->arena.len = 0;
	*whole = true;
	*trimmed = false;
	size_t plen = r->prefix.len;
	int puts = 0;    /* of the current column, unmasked, kept */
	int left_out = 0; /* of the current column */
	int64_t col_ts[TRIM_MARKS], fam_ts[TRIM_MARKS];
	size_t ncol = 0, nfam = 0;
	while (rocksdb_iter_valid(c->it)) {
		size_t kl, vl;
		const char *k = rocksdb_iter_key(c->it, &kl);
		if (kl < r->prefix.len || memcmp(k, r->prefix.data, r->prefix.len))
			break;
		if (keep && kl >= plen + CELLKEY_TAIL_LEN) {
			int64_t ts;
			sbx_cell_type t;
			cellkey_tail((const uint8_t *)k + kl - CELLKEY_TAIL_LEN,
				     &ts, &t);
			if (!same_column(b, plen, k, kl))
				puts = 0, ncol = 0, left_out = 0;
			bool masked = false;
			for (size_t i = 0; i < ncol; i++)
				masked = masked || col_ts[i] == ts;
			for (size_t i = 0; i < nfam; i++)
				masked = masked || fam_ts[i] == ts;
			if (t == SBX_CELL_DELETE) {
				if (ncol == TRIM_MARKS)
					keep = 0;
				else
					col_ts[ncol++] = ts;
			} else if (t == SBX_CELL_DELETE_FAMILY_VERSION) {
				if (nfam == TRIM_MARKS)
					keep = 0;
				else
					fam_ts[nfam++] = ts;
			} else if (t == SBX_CELL_PUT && !masked &&
				   puts++ >= keep) {
				*trimmed = true;
				size_t seg = kl - CELLKEY_TAIL_LEN;
				if (++left_out > 2 &&
				    seg > plen + CELLKEY_TERM_LEN) {
					/* E(row) E(q) with E(q)'s 01 -> 02 */
					if (sbx_buf_set(&r->seek, k, seg))
						return SBX_ENOMEM_SET();
					r->seek.data[seg - 1] = CELLKEY_TERM_PAST;
					rocksdb_iter_seek(c->it,
							  (const char *)r->seek.data,
							  r->seek.len);
				} else {
					rocksdb_iter_next(c->it);
				}
				continue;
			}
		}
		const char *v = rocksdb_iter_value(c->it, &vl);
		if (b->arena.len + kl + vl > max) {
			*whole = false;
			break;
		}
		int rc = rowbuf_push(b, k, kl, v, vl);
		if (rc)
			return rc;
		rocksdb_iter_next(c->it);
	}
	if (*whole && !rocksdb_iter_valid(c->it)) {
		char *err = NULL;
		rocksdb_iter_get_error(c->it, &err);
		if (err) {
			free(err);
			*whole = false;
		}
	}
	c->row_valid = false;
	if (!*whole) {
		b->n = 0;
		b->arena.len = 0;
		cur_seek(c, &r->prefix);
	}
	return SBX_OK;
}

/* The row cache key of family c's cells of `row`. */
static rowcache_key cache_key(const reader *r, const famcur *c,
			      const uint8_t *row, size_t len)
{
	return (rowcache_key){
		.row_hash = r->row_hash,
		.epoch = r->cache_epoch,
		.cf_name = c->fam->cf_name,
		.cf_len = strlen(c->fam->cf_name),
		.row = row,
		.row_len = len};
}

/* Copy the cells of the row ending at the cursor (reversed scans), leaving
 * the iterator on the previous row. */
static int buffer_row_backwards(reader *r, famcur *c)
{
	rowbuf *b = &r->rb;
	b->n = b->pos = 0;
	b->arena.len = 0;
	while (rocksdb_iter_valid(c->it)) {
		size_t kl, vl;
		const char *k = rocksdb_iter_key(c->it, &kl);
		if (kl < r->prefix.len || memcmp(k, r->prefix.data, r->prefix.len))
			break;
		const char *v = rocksdb_iter_value(c->it, &vl);
		int rc = rowbuf_push(b, k, kl, v, vl);
		if (rc)
			return rc;
		rocksdb_iter_prev(c->it);
	}
	c->row_valid = false;
	for (size_t i = 0; i < b->n / 2; i++) { /* into key order */
		rowbuf_ent t = b->ents[i];
		b->ents[i] = b->ents[b->n - 1 - i];
		b->ents[b->n - 1 - i] = t;
	}
	return SBX_OK;
}

/* The family's name goes into the result with its first cell. */
static inline int begin_family(reader *r, sbx_result *res, const famcur *c)
{
	if (r->fam_begun)
		return SBX_OK;
	r->fam_begun = true;
	return result_begin_family(res, c->fam->desc.name, c->fam_len);
}

/* Add an included cell (through the filter's transform, if any). Always
 * inline: it is the read path's per-cell work. */
static inline __attribute__((always_inline)) int
add_cell(reader *r, sbx_result *res, famcur *c, const sbx_cell *in)
{
	int rc = begin_family(r, res, c);
	if (rc)
		return rc;
	if (!r->filter || in->type != SBX_CELL_PUT)
		return result_add_cell(res, in->qualifier, in->qualifier_len,
				       in->timestamp, in->type, in->value,
				       in->value_len);
	sbx_cell copy = *in, out = *in; /* in's address is never taken */
	sbx_filter_transform_cell(r->filter, &copy, &out);
	return result_add_cell(res, out.qualifier, out.qualifier_len,
			       out.timestamp, out.type, out.value,
			       out.value_len);
}

/* add_cell for the rarer answers. The cell comes by value, so the read
 * loop's cell never has its address taken and can stay in registers. */
static __attribute__((noinline)) int add_cell_cold(reader *r, sbx_result *res,
						   famcur *c, sbx_cell in)
{
	return add_cell(r, res, c, &in);
}

/* Seek within the row to the cells of qualifier q (or after them, past). */
static int seek_column(reader *r, famcur *c, const uint8_t *q, size_t ql)
{
	r->seek.len = 0;
	if (sbx_buf_append(&r->seek, r->prefix.data, r->prefix.len) ||
	    cellkey_put_escaped(&r->seek, q, ql))
		return SBX_ENOMEM_SET();
	src_seek(r, c, &r->seek);
	return SBX_OK;
}

/* Past the current column: HBase's seek-or-skip steps over two versions,
 * then seeks. Never past the empty qualifier's column, which holds the
 * family markers, nor in a reversed scan's row buffer (stepped anyway). */
static int skip_in_column(reader *r, famcur *c, int *skipped)
{
	if (++*skipped > 2 && r->cq_len > 0 && !r->rb.active) {
		if (sbx_buf_set(&r->seek, r->prefix.data, r->prefix.len) ||
		    sbx_buf_append(&r->seek, r->colkey.data, r->colkey.len))
			return SBX_ENOMEM_SET();
		r->seek.data[r->seek.len - 1] = CELLKEY_TERM_PAST;
		src_seek(r, c, &r->seek);
		*skipped = 0;
		return SBX_OK;
	}
	src_next(r, c);
	return SBX_OK;
}

/* MATCH_SEEK_HINT: ask the filter where to go. Within the row, the cursor
 * seeks to the hint's qualifier (a hint that does not move forward is a
 * skip); another row ends this family's row with *other_row set and the
 * row in r->hint. */
static int seek_to_hint(reader *r, famcur *c, sbx_cell hinted,
			const uint8_t *key, size_t key_len, bool *other_row)
{
	const sbx_cell *cell = &hinted;
	r->hint.row.len = r->hint.qualifier.len = 0;
	if (!sbx_filter_cell_hint(r->filter, cell, &r->hint)) {
		src_next(r, c);
		return SBX_OK;
	}
	if (r->hint.row.len != cell->row_len ||
	    memcmp(r->hint.row.data, cell->row, cell->row_len)) {
		*other_row = true;
		return SBX_OK;
	}
	r->seek.len = 0;
	if (sbx_buf_append(&r->seek, r->prefix.data, r->prefix.len) ||
	    cellkey_put_escaped(&r->seek, r->hint.qualifier.data,
				r->hint.qualifier.len))
		return SBX_ENOMEM_SET();
	if (cmp_bytes(r->seek.data, r->seek.len, key, key_len) > 0)
		src_seek(r, c, &r->seek);
	else
		src_next(r, c);
	return SBX_OK;
}

/* Note a new column's qualifier: r->colkey keeps its escaped segment,
 * r->cq/cq_len the qualifier (a qualifier without escaped zeros is its
 * segment less the terminator: no decoding, no second copy). */
static int set_column(reader *r, const uint8_t *seg, size_t seg_len,
		      const uint8_t *plain)
{
	r->colkey.len = 0;
	if (sbx_buf_reserve(&r->colkey, seg_len))
		return SBX_ENOMEM_SET();
	sbx_bytes_copy(r->colkey.data, seg, seg_len);
	r->colkey.len = seg_len;
	if (plain) {
		r->cq = r->colkey.data;
		r->cq_len = seg_len - CELLKEY_TERM_LEN;
		return SBX_OK;
	}
	r->qual.len = 0;
	if (!cellkey_unescape(seg, seg_len, &r->qual))
		return SBX_ENOMEM_SET();
	r->cq = r->qual.data;
	r->cq_len = r->qual.len;
	return SBX_OK;
}

/* The family's attributes as they are now (an alter may come between two
 * calls of a scan), into the matcher's parameters. */
static void family_match_params(const reader *r, famcur *c)
{
	const sbx_family_desc *d = &c->fam->desc;
	c->match.min_versions = d->min_versions;
	c->match.has_ttl = d->ttl_seconds < SBX_TTL_FOREVER;
	c->match.ttl_cutoff_ms = r->now_ms - d->ttl_seconds * 1000;
	c->match.keep_deleted = d->keep_deleted_cells != SBX_KEEP_DELETED_FALSE;
}

/*
 * The common row read at its least cost: the cells of a plain read (no
 * filter, TTL, raw read or column list: the matcher's m->slow 0 and no
 * p.columns) that are puts in the time range, each within its column's
 * version count, taken straight from the iterator into res - what the
 * matcher would include one by one, without offering them. It stops
 * (*handover) at the first cell it cannot decide alone - a delete marker,
 * a version past the count, a put outside the time range, a qualifier
 * with an escaped zero, a malformed key - with the cursor on it, leaving
 * to read_family_row's general loop the rest of the row: *included is the
 * versions taken of the current column, whose qualifier is then the last
 * cell in res (*have_col). Else the row is done, the cursor past it.
 */
static inline __attribute__((always_inline)) int
read_plain_puts(reader *r, famcur *c, sbx_result *res, bool *have_col,
		int *included, bool *handover)
{
	rocksdb_iterator_t *it = c->it;
	const uint8_t *prefix = r->prefix.data;
	size_t plen = r->prefix.len;
	int max = r->m.p.max_versions, n = 0;
	int64_t min_ts = r->m.p.min_ts, max_ts = r->m.p.max_ts;
	bool col = false;
	*handover = true;
	while (rocksdb_iter_valid(it)) {
		size_t kl;
		const uint8_t *k = (const uint8_t *)rocksdb_iter_key(it, &kl);
		if (kl < plen || !sbx_bytes_eq(k, prefix, plen)) {
			*handover = false; /* the next row */
			break;
		}
		if (kl < plen + CELLKEY_TERM_LEN + CELLKEY_TAIL_LEN ||
		    cellkey_type(k, kl) != SBX_CELL_PUT)
			break;
		const uint8_t *q = k + plen;
		size_t ql = kl - plen - CELLKEY_TAIL_LEN - CELLKEY_TERM_LEN;
		if (q[ql] || q[ql + 1] != 0x01)
			break; /* not E(qualifier) unescaped */
		const sbx_cell *last = col ? &res->cells[res->n - 1] : NULL;
		if (last && last->qualifier_len == ql &&
		    sbx_bytes_eq(last->qualifier, q, ql)) {
			if (n >= max)
				break; /* older versions: the general loop */
		} else {
			if (sbx_bytes_has_zero(q, ql))
				break;
			n = 0;
		}
		int64_t ts;
		sbx_cell_type type;
		cellkey_tail(q + ql + CELLKEY_TERM_LEN, &ts, &type);
		if (ts < min_ts || ts >= max_ts)
			break;
		size_t vl;
		const uint8_t *v = (const uint8_t *)rocksdb_iter_value(it, &vl);
		int rc = begin_family(r, res, c);
		if (!rc)
			rc = result_add_cell(res, q, ql, ts, SBX_CELL_PUT, v, vl);
		if (rc)
			return rc;
		n++;
		col = true;
		rocksdb_iter_next(it);
	}
	*have_col = col;
	*included = n;
	return SBX_OK;
}

/*
 * Read the cells of one family's row into res: each cell is offered to the
 * matcher, and its answer moves the cursor. *consumed: the cursor is past
 * the row. *other_row: the filter's hint names another row (r->hint).
 * REQUIRES: r->prefix holds E(row); the cursor (or, reversed, the row
 * buffer) is at the row's first cell of this family.
 */
static int read_family_row(reader *r, famcur *c, sbx_result *res,
			   const uint8_t *row, size_t row_len,
			   bool *other_row, bool *consumed)
{
	assert(r->prefix.len >= CELLKEY_TERM_LEN);
	matcher *m = &r->m;
	family_match_params(r, c);
	matcher_begin_row(m, &c->match);
	/* The cell offered to the matcher. Its qualifier changes with the
	 * column; a family marker keeps the empty one: family markers sort
	 * first, in the empty qualifier's column, and start no column. */
	sbx_cell cell = {.row = row,
			 .row_len = row_len,
			 .family = c->fam->desc.name,
			 .family_len = c->fam_len,
			 .qualifier = (const uint8_t *)""};
	bool have_col = false;    /* r->colkey/r->cq hold the current column */
	bool skip_column = false; /* the rest of the column is not wanted */
	int skipped = 0;          /* its versions stepped over so far */
	r->fam_begun = false;
	*other_row = *consumed = false;
	if (!r->rb.active && !m->slow && !m->p.columns) {
		bool handover;
		int included;
		int rc = read_plain_puts(r, c, res, &have_col, &included,
					 &handover);
		if (rc)
			return rc;
		if (!handover) {
			*consumed = true;
			return SBX_OK;
		}
		if (have_col) { /* the current column, as the matcher saw it */
			const sbx_cell *last = &res->cells[res->n - 1];
			r->colkey.len = 0;
			if (cellkey_put_escaped(&r->colkey, last->qualifier,
						last->qualifier_len))
				return SBX_ENOMEM_SET();
			r->cq = r->colkey.data;
			r->cq_len = last->qualifier_len;
			cell.qualifier = r->cq;
			cell.qualifier_len = r->cq_len;
			m->included = included;
		}
	}

	while (src_valid(r, c)) {
		size_t kl;
		const uint8_t *k = src_key(r, c, &kl);
		if (kl < r->prefix.len ||
		    !sbx_bytes_eq(k, r->prefix.data, r->prefix.len))
			break;
		/* The qualifier segment is what lies between E(row) and the
		 * tail; checked and decoded only when the column changes
		 * (r->colkey keeps its escaped bytes, checked then). */
		if (kl < r->prefix.len + CELLKEY_TERM_LEN + CELLKEY_TAIL_LEN)
			return sbx_error_set(SBX_EIO, "corrupt cell key");
		const uint8_t *qe = k + r->prefix.len;
		size_t ql = kl - r->prefix.len - CELLKEY_TAIL_LEN;
		cellkey_tail(qe + ql, &cell.timestamp, &cell.type);
		bool fam_marker = matcher_is_family_marker(cell.type);
		bool new_column = false;
		if (fam_marker) {
			if (ql != CELLKEY_TERM_LEN || qe[0] || qe[1] != 0x01)
				return sbx_error_set(SBX_EIO, "corrupt cell key");
		} else if (!have_col || r->colkey.len != ql ||
			   !sbx_bytes_eq(r->colkey.data, qe, ql)) {
			const uint8_t *plain;
			if (!cellkey_segment_is(qe, ql, &plain))
				return sbx_error_set(SBX_EIO, "corrupt cell key");
			int rc = set_column(r, qe, ql, plain);
			if (rc)
				return rc;
			cell.qualifier = r->cq;
			cell.qualifier_len = r->cq_len;
			have_col = new_column = true;
			skip_column = false;
			skipped = 0;
		}
		if (skip_column && !fam_marker) {
			int rc = skip_in_column(r, c, &skipped);
			if (rc)
				return rc;
			continue;
		}
		cell.value = src_value(r, c, &cell.value_len);
		match_code mc = matcher_match(m, &cell, new_column);
		if (mc == MATCH_INCLUDE) { /* the common answer, first */
			int rc = add_cell(r, res, c, &cell);
			if (rc)
				return rc;
			src_next(r, c);
			continue;
		}
		int rc = SBX_OK;
		switch (mc) {
		case MATCH_INCLUDE:
		case MATCH_SKIP:
			break;
		case MATCH_INCLUDE_NEXT_COL:
			rc = add_cell_cold(r, res, c, cell);
			/* fall through */
		case MATCH_NEXT_COL:
			skip_column = true;
			break;
		case MATCH_SEEK_COL:
			rc = seek_column(r, c, m->seek_column->data,
					 m->seek_column->len);
			if (rc)
				return rc;
			continue;
		case MATCH_INCLUDE_NEXT_ROW:
			return add_cell_cold(r, res, c, cell);
		case MATCH_NEXT_ROW:
			return SBX_OK;
		case MATCH_SEEK_HINT:
			rc = seek_to_hint(r, c, cell, k, kl, other_row);
			if (rc || *other_row)
				return rc;
			continue;
		case MATCH_ENOMEM:
			return SBX_ENOMEM_SET();
		}
		if (rc)
			return rc;
		src_next(r, c);
	}
	*consumed = true; /* the cursor is past the row */
	return SBX_OK;
}

/* ---- rows ---- */

/* Pick the next row in scan order among the cursors. */
static int next_row_key(reader *r, sbx_buf *row)
{
	bool found = false;
	for (size_t i = 0; i < r->nfc; i++) {
		int rc = cur_row(&r->fc[i]);
		if (rc == SBX_ITEROVER)
			continue;
		if (rc)
			return rc;
		const sbx_buf *cr = &r->fc[i].row;
		int d = found ? cmp_bytes(cr->data, cr->len, row->data, row->len)
			      : 0;
		if (!found || (r->reversed ? d > 0 : d < 0)) {
			if (sbx_buf_set(row, cr->data, cr->len))
				return SBX_ENOMEM_SET();
			found = true;
		}
	}
	/* A get's iterator bounds hold it to the row; this holds it there
	 * whatever RocksDB does with the bounds of a reused iterator. */
	if (found && r->get_row &&
	    (row->len != r->get_row_len ||
	     memcmp(row->data, r->get_row, row->len)))
		found = false;
	if (found)
		r->row_seen = true;
	return found ? SBX_OK : SBX_ITEROVER;
}

static bool cur_at_row(famcur *c, const sbx_buf *row)
{
	return cur_row(c) == SBX_OK && c->row.len == row->len &&
	       !memcmp(c->row.data, row->data, row->len);
}

/* A filling get found no cells of family c in the row: cache that, unless
 * the iterator stopped on an error. */
static void fill_empty(reader *r, famcur *c, const uint8_t *row, size_t len)
{
	char *err = NULL;
	rocksdb_iter_get_error(c->it, &err);
	if (err) {
		free(err);
		return;
	}
	rowcache_key k = cache_key(r, c, row, len);
	rowcache_insert(r->eng->rowcache, &k, r->fill_seq, 0, &r->rb, 0, 0,
			false);
}

/* A read whose result depends only on the puts a trimmed row cache entry
 * keeps (buffer_row_forward): no filter (HBase offers a filter the
 * versions past those it skips), the whole time range (a range in the
 * past reaches older versions), not raw. */
static bool plain_read(const reader *r)
{
	return !r->filter && !r->raw && r->min_ts == 0 &&
	       r->max_ts == INT64_MAX;
}

void reader_counts_flush(reader *r)
{
	if (!r->cnt_reg)
		return;
	region *reg = r->cnt_reg;
	if (r->cnt_gen != r->tab->region_gen) /* freed: the region now */
		reg = region_for_row(r->tab, r->cnt_row.data, r->cnt_row.len);
	if (reg)
		region_count_reads(r->eng, reg, r->cnt_start, r->cnt_reads,
				   r->cnt_bytes, r->cnt_filtered);
	r->cnt_reg = NULL;
	r->cnt_reads = r->cnt_bytes = r->cnt_filtered = 0;
}

void reader_counts_flush_unlocked(reader *r)
{
	if (!r || !r->cnt_reg)
		return;
	table_rdlock(r->tab);
	reader_counts_flush(r);
	table_rdunlock(r->tab);
}

/* Count a row read in region reg. A get counts at once; a scan's counts
 * wait in the reader while its rows stay in one region and one load
 * bucket, and go to the region together (reader_counts_flush): the
 * region's shared counters see a scan once per region and second, not
 * once per row. */
static void count_row(reader *r, region *reg, const sbx_buf *row,
		      uint64_t bytes, bool filtered)
{
	if (r->point_get) {
		region_count_read(r->eng, reg, bytes, filtered);
		return;
	}
	if (r->cnt_reg && r->cnt_gen != r->tab->region_gen)
		reader_counts_flush(r); /* before comparing a freed region */
	int64_t now = sbx_clock_coarse_ms();
	if (reg != r->cnt_reg || now < r->cnt_start || now >= r->cnt_end) {
		reader_counts_flush(r);
		if (sbx_buf_set(&r->cnt_row, row->data, row->len)) {
			/* no room to keep the row: this one counts at once */
			region_count_read(r->eng, reg, bytes, filtered);
			return;
		}
		r->cnt_reg = reg;
		r->cnt_gen = r->tab->region_gen;
		r->cnt_start = region_bucket(r->eng, now, &r->cnt_end);
	}
	if (filtered) {
		r->cnt_filtered++;
	} else {
		r->cnt_reads++;
		r->cnt_bytes += bytes;
	}
}

/* Assemble the next row that survives filtering into *out (finished). */
static int assemble_row(reader *r, sbx_result **out)
{
	sbx_buf row = r->row; /* reused across rows; handed back below */
	int rc = SBX_OK;
	*out = NULL;
	while (!r->done) {
		if (r->filter && sbx_filter_all_remaining(r->filter)) {
			r->done = true;
			break;
		}
		rc = next_row_key(r, &row);
		if (rc == SBX_ITEROVER) {
			rc = SBX_OK;
			r->done = true;
			break;
		}
		if (rc)
			break;
		if (r->filter) {
			sbx_filter_reset(r->filter);
			if (sbx_filter_row_key(r->filter, row.data, row.len)) {
				r->hint.row.len = 0;
				bool moved = false;
				if (sbx_filter_row_hint(r->filter, row.data,
							row.len, &r->hint)) {
					int d = cmp_bytes(r->hint.row.data,
							  r->hint.row.len,
							  row.data, row.len);
					if (r->reversed ? d < 0 : d > 0) {
						rc = seek_all_to_row(
							r, r->hint.row.data,
							r->hint.row.len);
						moved = true;
					}
				}
				for (size_t i = 0; !moved && !rc && i < r->nfc; i++)
					if (cur_at_row(&r->fc[i], &row))
						rc = cur_skip_row(r, &r->fc[i],
								  row.data, row.len);
				if (rc)
					break;
				continue;
			}
		}
		sbx_result *res;
		if ((rc = result_new_sized(&res, row.data, row.len,
					   r->last_bytes, r->last_cells)))
			break;
		r->prefix.len = 0;
		if ((rc = cellkey_row_start(&r->prefix, row.data, row.len))) {
			sbx_result_free(res);
			break;
		}
		/* As HBase's one scanner per family: NEXT_ROW and hints end
		 * the row in the current family only. */
		for (size_t i = 0; !rc && i < r->nfc; i++) {
			famcur *c = &r->fc[i];
			bool buffered = false;
			if (!cur_at_row(c, &row)) {
				if (r->fill && !rocksdb_iter_valid(c->it))
					fill_empty(r, c, row.data, row.len);
				continue;
			}
			if (r->reversed && (rc = buffer_row_backwards(r, c)))
				break;
			if (r->fill) {
				int keep = plain_read(r)
						   ? rowcache_trim_versions(
							     &c->fam->desc)
						   : 0;
				bool trimmed;
				if ((rc = buffer_row_forward(
					     r, c,
					     rowcache_max_entry(r->eng->rowcache),
					     keep, &buffered, &trimmed)))
					break;
				if (buffered) {
					rowcache_key k =
					    cache_key(r, c, row.data, row.len);
					rowcache_insert(r->eng->rowcache, &k,
							r->fill_seq,
							r->prefix.len, &r->rb,
							0, r->rb.n, trimmed);
				}
			}
			r->rb.active = r->reversed || buffered;
			bool other_row, consumed;
			rc = read_family_row(r, c, res, row.data, row.len,
					     &other_row, &consumed);
			r->rb.active = false;
			int d = 0;
			if (!rc && other_row)
				d = cmp_bytes(r->hint.row.data, r->hint.row.len,
					      row.data, row.len);
			if (rc)
				break;
			if (other_row && (r->reversed ? d < 0 : d > 0))
				rc = seek_cur_to_row(r, c, r->hint.row.data,
						     r->hint.row.len);
			else if (r->reversed || consumed || buffered)
				c->row_valid = false; /* already past the row */
			else
				rc = cur_skip_row(r, c, row.data, row.len);
		}
		if (!rc) {
			r->last_bytes = res->arena.len; /* size the next row */
			r->last_cells = res->n;
			rc = result_finish(res);
		}
		if (rc) {
			sbx_result_free(res);
			break;
		}
		bool had_cells = res->n > 0;
		if (r->filter) {
			size_t n = res->n;
			sbx_filter_row_cells(r->filter, res->cells, &n);
			res->n = n;
			/* filter_row only sees rows that still have cells */
			if (n && sbx_filter_row(r->filter))
				res->n = 0;
		}
		if (r->eng->opts.region_routing) {
			region *reg = region_for_row(r->tab, row.data, row.len);
			if (reg && (had_cells || res->n))
				count_row(r, reg, &row, res->arena.len,
					  res->n == 0);
		}
		if (res->n == 0) {
			sbx_result_free(res);
			continue;
		}
		*out = res;
		break;
	}
	r->row = row;
	return rc;
}

static int take_batch(reader *r, sbx_result **out)
{
	return result_take_batch(out, &r->pending, &r->pending_pos,
				 (size_t)r->batch);
}

int reader_next(reader *r, sbx_result **out)
{
	ASSERT_TABLE_LOCKED(r->tab);
	*out = NULL;
	if (r->pending)
		return take_batch(r, out);
	if (r->done || (r->limit > 0 && r->returned >= r->limit))
		return SBX_ITEROVER;
	if (!r->started) {
		r->started = true;
		/* Seek to the bound rather than SeekToFirst/Last: a point get
		 * then consults the row-prefix bloom filters. */
		for (size_t i = 0; i < r->nfc; i++) {
			rocksdb_iterator_t *it = r->fc[i].it;
			if (r->reversed && r->has_upper)
				rocksdb_iter_seek_for_prev(
					it, (const char *)r->upper.data,
					r->upper.len);
			else if (r->reversed)
				rocksdb_iter_seek_to_last(it);
			else if (r->has_lower)
				rocksdb_iter_seek(it, (const char *)r->lower.data,
						  r->lower.len);
			else
				rocksdb_iter_seek_to_first(it);
			r->fc[i].row_valid = false;
		}
	}
	sbx_result *res;
	int rc = assemble_row(r, &res);
	if (rc)
		return rc;
	/* A RocksDB iterator that hit an error is no longer valid, so only
	 * the invalid ones need their status read. */
	for (size_t i = 0; i < r->nfc; i++) {
		if (rocksdb_iter_valid(r->fc[i].it))
			continue;
		char *err = NULL;
		rocksdb_iter_get_error(r->fc[i].it, &err);
		if (err) {
			sbx_result_free(res);
			return engine_rocks_error(err, "reading");
		}
	}
	if (!res)
		return SBX_ITEROVER;
	r->returned++;
	if (r->batch > 0 && res->n > (size_t)r->batch) {
		r->pending = res;
		r->pending_pos = 0;
		return take_batch(r, out);
	}
	*out = res;
	return SBX_OK;
}

/* cached_get's work, leaving each family's pinned entry in its famcur. */
static int cached_get_pinned(reader *r, const uint8_t *row, size_t len,
			     unsigned stripe, uint64_t seq, sbx_result **out,
			     bool *hit)
{
	rowcache *cache = r->eng->rowcache;
	rowbuf *b = &r->rb;
	b->n = b->pos = 0;
	b->arena.len = 0;
	*out = NULL;
	*hit = false;
	bool any = false;
	r->prefix.len = 0;
	int rc = cellkey_row_start(&r->prefix, row, len);
	if (rc)
		return rc;
	for (size_t i = 0; i < r->nfc; i++) {
		famcur *c = &r->fc[i];
		rowcache_key k = cache_key(r, c, row, len);
		bool h;
		c->cstart = b->n;
		rc = rowcache_lookup(cache, &k, r->prefix.data, r->prefix.len,
				     !plain_read(r), b, &c->pin, &h);
		if (rc || !h)
			return rc;
		c->cend = b->n;
		any = any || c->cend > c->cstart;
	}
	if (rowcache_seq(cache, stripe) != seq)
		return SBX_OK;
	*hit = true;
	if (!any)
		return SBX_OK;
	if (r->filter) {
		if (sbx_filter_all_remaining(r->filter))
			return SBX_OK;
		sbx_filter_reset(r->filter);
		if (sbx_filter_row_key(r->filter, row, len))
			return SBX_OK;
	}
	sbx_result *res;
	rc = result_new_sized(&res, row, len, r->last_bytes, r->last_cells);
	if (rc)
		return rc;
	size_t total = b->n;
	for (size_t i = 0; !rc && i < r->nfc; i++) {
		famcur *c = &r->fc[i];
		if (c->cend == c->cstart)
			continue;
		b->pos = c->cstart;
		b->n = c->cend;
		b->active = true;
		bool other_row, consumed;
		rc = read_family_row(r, c, res, row, len, &other_row, &consumed);
		b->active = false;
	}
	b->n = total;
	if (!rc) {
		r->last_bytes = res->arena.len;
		r->last_cells = res->n;
		rc = result_finish(res);
	}
	if (rc) {
		sbx_result_free(res);
		return rc;
	}
	bool had_cells = res->n > 0;
	if (r->filter) {
		size_t n = res->n;
		sbx_filter_row_cells(r->filter, res->cells, &n);
		res->n = n;
		if (n && sbx_filter_row(r->filter))
			res->n = 0;
	}
	if (r->eng->opts.region_routing) {
		region *reg = region_for_row(r->tab, row, len);
		if (reg && (had_cells || res->n))
			region_count_read(r->eng, reg, res->arena.len,
					  res->n == 0);
	}
	if (res->n == 0) {
		sbx_result_free(res);
		return SBX_OK;
	}
	*out = res;
	return SBX_OK;
}

/* A get answered from the row cache: every selected family's cells are
 * looked up into r->rb under an unchanged, even seqlock `seq` (rowcache.h),
 * then read as the iterators' would be. The values are read where they
 * lie in the cache's entries, pinned until the result holds its copies.
 * *hit false: some family missed (or a write came between), nothing is
 * returned. *out NULL: the row has no cells the get selects. */
static int cached_get(reader *r, const uint8_t *row, size_t len, unsigned stripe,
		      uint64_t seq, sbx_result **out, bool *hit)
{
	for (size_t i = 0; i < r->nfc; i++)
		r->fc[i].pin = NULL;
	int rc = cached_get_pinned(r, row, len, stripe, seq, out, hit);
	for (size_t i = 0; i < r->nfc; i++) {
		rowcache_unpin(r->fc[i].pin);
		r->fc[i].pin = NULL;
	}
	/* what is left in rb points into entries no longer pinned */
	r->rb.n = r->rb.pos = 0;
	r->rb.arena.len = 0;
	return rc;
}

/* Whether a get may use the row cache: not raw, one row, and every
 * selected family caching its blocks (BLOCKCACHE). */
static bool cacheable_get(const reader *r, size_t row_len)
{
	if (!r->eng->rowcache || r->raw || !row_len || !r->nfc || r->done ||
	    r->reversed || r->batch > 0)
		return false;
	for (size_t i = 0; i < r->nfc; i++)
		if (!r->fc[i].fam->desc.block_cache)
			return false;
	return true;
}

static void count_cache(reader *r, const uint8_t *row, size_t len, bool hit)
{
	rowcache_count(r->eng->rowcache, hit, !hit);
	if (!r->eng->opts.region_routing)
		return;
	region *reg = region_for_row(r->tab, row, len);
	if (reg)
		region_count_cache(reg, hit);
}

int engine_read_row(sbx_result **out, engine *e, table *t, const uint8_t *row,
		    size_t row_len, const sbx_read_opts *o)
{
	ASSERT_TABLE_LOCKED(t);
	sbx_scan_opts so;
	model_get_scan_opts(&so, row, row_len, o);
	reader *r;
	int rc = reader_setup(&r, e, t, &so, true);
	if (rc)
		return rc;
	if (cacheable_get(r, row_len)) {
		r->row_hash = rowcache_row_hash(row, row_len);
		r->cache_epoch = atomic_load_explicit(&t->cache_epoch,
						      memory_order_acquire);
		unsigned stripe = (unsigned)(r->row_hash % ENGINE_ROW_STRIPES);
		/* read before the iterators' view is taken (rowcache.h) */
		uint64_t seq = rowcache_seq(e->rowcache, stripe);
		if (!(seq & 1)) {
			bool hit;
			rc = cached_get(r, row, row_len, stripe, seq, out, &hit);
			if (rc || hit) {
				count_cache(r, row, row_len, true);
				reader_close(r);
				if (!rc && !*out)
					return model_get_empty_result(
						out, row, row_len);
				return rc;
			}
			r->rb.n = 0;
			r->rb.arena.len = 0;
			r->fill = true;
			r->fill_seq = seq;
		}
		count_cache(r, row, row_len, false);
	}
	r->get_row = row;
	r->get_row_len = row_len;
	rc = reader_iterators(r);
	if (!rc)
		rc = reader_next(r, out);
	if (rc == SBX_ITEROVER && r->fill && !r->row_seen && !r->filter)
		for (size_t i = 0; i < r->nfc; i++)
			fill_empty(r, &r->fc[i], row, row_len);
	reader_close(r);
	if (rc == SBX_ITEROVER)
		return model_get_empty_result(out, row, row_len);
	return rc;
}
