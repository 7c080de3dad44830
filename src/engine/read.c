/*
 * read.c - the read path: HBase's get and scan over one RocksDB iterator per
 * selected family (created together, so they share one consistent view).
 * Per cell, in HBase's order (UserScanQueryMatcher): delete markers are
 * tracked, masked and TTL-expired cells dropped, then the time range, the
 * column selection, the filter, and finally the version count (after the
 * filter, as HBase). Reversed scans find rows backwards, read each row
 * forwards, and step back before it.
 */
#include "common/error.h"
#include "engine/cellkey.h"
#include "engine/engine.h"
#include "saltbox/filter.h"
#include "model/result.h"
#include "model/rules.h"

#include <stdlib.h>
#include <string.h>

typedef struct ts_list {
	int64_t *v;
	size_t n, cap;
} ts_list;

static int ts_list_add(ts_list *l, int64_t ts)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 8;
		int64_t *v = realloc(l->v, cap * sizeof *v);
		if (!v)
			return SBX_ENOMEM_SET();
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = ts;
	return SBX_OK;
}

static bool ts_list_has(const ts_list *l, int64_t ts)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i] == ts)
			return true;
	return false;
}

/* One selected family: its iterator and which qualifiers are wanted. */
typedef struct famcur {
	family *fam;
	size_t fam_len; /* strlen of the family name */
	rocksdb_iterator_t *it;
	bool all_columns;
	sbx_buf *quals; /* sorted, when !all_columns */
	size_t nquals;
	int max_versions; /* min(requested, VERSIONS); raw: requested */
	sbx_buf row;      /* decoded row at the iterator, when row_valid */
	bool row_valid;
} famcur;

/* One family's cells of one row, copied while stepping backwards, so a
 * reversed scan reads each row without seeking (entries in key order). */
typedef struct rowbuf_ent {
	size_t koff, klen, voff, vlen;
} rowbuf_ent;

typedef struct rowbuf {
	sbx_buf arena;
	rowbuf_ent *ents;
	size_t n, cap, pos;
	bool active; /* read_family_row reads from here, not the iterator */
} rowbuf;

struct reader {
	engine *eng;
	table *tab;
	famcur *fc;
	size_t nfc, fc_cap; /* cursors in use, allocated */
	rocksdb_readoptions_t *ro;
	sbx_buf lower, upper; /* iterator bounds; must outlive iterators */
	bool has_lower, has_upper;
	bool reversed;
	bool raw;
	int64_t min_ts, max_ts;
	int64_t limit, returned;
	int batch;
	sbx_filter *filter;
	int64_t now_ms;
	bool done;
	bool started;
	/* per-row scratch */
	sbx_buf prefix; /* E(row) of the row being assembled */
	sbx_buf qual;   /* the current column's qualifier, when it had escapes */
	const uint8_t *cq; /* the current column's qualifier (colkey or qual) */
	size_t cq_len;
	sbx_buf colkey; /* escaped qualifier segment of the current column */
	sbx_buf seek;
	ts_list fam_ver, col_ver;
	/* a whole row split into batch-sized results */
	sbx_result *pending;
	size_t pending_pos;
	/* row to seek to after a filter hint moved past the current row */
	sbx_buf hint_row;
	bool hint_pending;
	sbx_filter_hint hint;
	rowbuf rb;
	bool fam_begun; /* the result names the family being read */
	size_t last_bytes, last_cells; /* the previous row's result size */
	sbx_buf row; /* the row being assembled */
};

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
	if (!cellkey_unescape(k, kl, &c->row))
		return sbx_error_set(SBX_EIO, "corrupt cell key in family '%s'",
				     c->fam->desc.name);
	c->row_valid = true;
	return SBX_OK;
}

static int cmp_bytes(const uint8_t *a, size_t al, const uint8_t *b, size_t bl)
{
	size_t n = al < bl ? al : bl;
	int c = n ? memcmp(a, b, n) : 0;
	if (c)
		return c;
	return al < bl ? -1 : al > bl;
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

/* ---- setup ---- */

static int cmp_buf(const void *a, const void *b)
{
	const sbx_buf *x = a, *y = b;
	return cmp_bytes(x->data, x->len, y->data, y->len);
}

static int add_famcur(reader *r, family *f, const sbx_read_opts *o)
{
	famcur *c = &r->fc[r->nfc++];
	sbx_buf row = c->row; /* scratch kept from an earlier use */
	memset(c, 0, sizeof *c);
	c->row = row;
	c->row.len = 0;
	atomic_fetch_add(&f->refs, 1);
	c->fam = f;
	c->fam_len = strlen(f->desc.name);
	c->all_columns = true;
	int req = o->max_versions <= 0 ? INT32_MAX : o->max_versions;
	c->max_versions = r->raw || req < f->desc.max_versions
				  ? req
				  : f->desc.max_versions;
	bool whole = false;
	size_t n = 0;
	for (size_t i = 0; i < o->ncolumns; i++)
		if (!strcmp(o->columns[i].family, f->desc.name)) {
			if (!o->columns[i].qualifier)
				whole = true;
			else
				n++;
		}
	if (whole || n == 0)
		return SBX_OK;
	c->all_columns = false;
	c->quals = calloc(n, sizeof *c->quals);
	if (!c->quals)
		return SBX_ENOMEM_SET();
	for (size_t i = 0; i < o->ncolumns; i++)
		if (!strcmp(o->columns[i].family, f->desc.name) &&
		    o->columns[i].qualifier &&
		    sbx_buf_set(&c->quals[c->nquals++], o->columns[i].qualifier,
				o->columns[i].qualifier_len))
			return SBX_ENOMEM_SET();
	qsort(c->quals, c->nquals, sizeof *c->quals, cmp_buf);
	return SBX_OK;
}

static int set_bounds(reader *r, const sbx_scan_opts *o)
{
	const uint8_t *lo = o->start_row, *hi = o->stop_row;
	size_t lol = o->start_row_len, hil = o->stop_row_len;
	bool lo_incl = o->start_inclusive, hi_incl = o->stop_inclusive;
	if (o->reversed) { /* HBase: start is the high bound */
		lo = o->stop_row, lol = o->stop_row_len, lo_incl = o->stop_inclusive;
		hi = o->start_row, hil = o->start_row_len, hi_incl = o->start_inclusive;
	}
	int rc = SBX_OK;
	if (lol) {
		r->has_lower = true;
		rc = lo_incl ? cellkey_row_start(&r->lower, lo, lol)
			     : cellkey_row_end(&r->lower, lo, lol);
	}
	if (!rc && hil) {
		r->has_upper = true;
		rc = hi_incl ? cellkey_row_end(&r->upper, hi, hil)
			     : cellkey_row_start(&r->upper, hi, hil);
	}
	if (rc)
		return rc;
	if (r->has_lower && r->has_upper &&
	    cmp_bytes(r->lower.data, r->lower.len, r->upper.data,
		      r->upper.len) >= 0)
		r->done = true; /* empty range */
	return SBX_OK;
}

/* Rows larger than this do not size later reads' first results. */
#define HINT_MAX_BYTES ((size_t)64 << 10)
#define HINT_MAX_CELLS ((size_t)1024)

/* Leave the last row's size as the table's hint (stored only when it
 * changes: the line is shared by every reader of the table). */
static void store_size_hint(reader *r)
{
	table *t = r->tab;
	size_t b = r->last_bytes, c = r->last_cells;
	if (!c || b > HINT_MAX_BYTES || c > HINT_MAX_CELLS)
		return;
	if (atomic_load_explicit(&t->row_bytes_hint, memory_order_relaxed) != b)
		atomic_store_explicit(&t->row_bytes_hint, b,
				      memory_order_relaxed);
	if (atomic_load_explicit(&t->row_cells_hint, memory_order_relaxed) != c)
		atomic_store_explicit(&t->row_cells_hint, c,
				      memory_order_relaxed);
}

/* Scratch a parked reader may keep; a reader that grew more is freed. */
#define PARK_MAX_BYTES ((size_t)256 << 10)

/* The scratch buffers a reader keeps between uses. */
#define READER_BUFS(X)                                                        \
	X(lower) X(upper) X(prefix) X(qual) X(colkey) X(seek) X(hint_row)    \
	X(hint.row) X(hint.qualifier) X(rb.arena) X(row)

static size_t reader_scratch_bytes(const reader *r)
{
	size_t n = (r->fam_ver.cap + r->col_ver.cap) * sizeof(int64_t) +
		   r->rb.cap * sizeof(rowbuf_ent);
	for (size_t i = 0; i < r->fc_cap; i++)
		n += r->fc[i].row.cap;
#define ADD_CAP(f) n += r->f.cap;
	READER_BUFS(ADD_CAP)
#undef ADD_CAP
	return n;
}

void reader_free(reader *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->fc_cap; i++)
		sbx_buf_free(&r->fc[i].row);
	free(r->fc);
	if (r->ro)
		rocksdb_readoptions_destroy(r->ro);
#define FREE_BUF(f) sbx_buf_free(&r->f);
	READER_BUFS(FREE_BUF)
#undef FREE_BUF
	free(r->fam_ver.v);
	free(r->col_ver.v);
	free(r->rb.ents);
	free(r);
}

/* Zero every field but the scratch memory, which is kept, emptied. */
static void reader_reset(reader *r)
{
	reader k = *r;
	memset(r, 0, sizeof *r);
	r->fc = k.fc;
	r->fc_cap = k.fc_cap;
	r->ro = k.ro;
	for (size_t i = 0; i < r->fc_cap; i++) {
		sbx_buf row = r->fc[i].row;
		memset(&r->fc[i], 0, sizeof r->fc[i]);
		r->fc[i].row = row;
		r->fc[i].row.len = 0;
	}
#define KEEP_BUF(f) r->f = k.f, r->f.len = 0;
	READER_BUFS(KEEP_BUF)
#undef KEEP_BUF
	r->fam_ver = k.fam_ver;
	r->fam_ver.n = 0;
	r->col_ver = k.col_ver;
	r->col_ver.n = 0;
	r->rb.ents = k.rb.ents;
	r->rb.cap = k.rb.cap;
}

/* The table's parked reader, or a new one; room for nfc cursors. */
static reader *reader_alloc(table *t, size_t nfc)
{
	reader *r = atomic_exchange_explicit(&t->spare_reader, NULL,
					     memory_order_acquire);
	if (!r && !(r = calloc(1, sizeof *r)))
		return NULL;
	if (r->fc_cap < nfc) {
		famcur *fc = realloc(r->fc, nfc * sizeof *fc);
		if (!fc) {
			reader_free(r);
			return NULL;
		}
		memset(fc + r->fc_cap, 0, (nfc - r->fc_cap) * sizeof *fc);
		r->fc = fc;
		r->fc_cap = nfc;
	}
	return r;
}

void reader_close(reader *r)
{
	if (!r)
		return;
	table *t = r->tab;
	if (t)
		store_size_hint(r);
	for (size_t i = 0; i < r->nfc; i++) {
		famcur *c = &r->fc[i];
		if (c->it)
			rocksdb_iter_destroy(c->it);
		for (size_t j = 0; j < c->nquals; j++)
			sbx_buf_free(&c->quals[j]);
		free(c->quals);
		family_unref(c->fam);
	}
	sbx_result_free(r->pending);
	/* Park the memory in the table for the next read: a point get then
	 * allocates none of its scratch buffers. */
	reader *none = NULL;
	if (t && reader_scratch_bytes(r) <= PARK_MAX_BYTES) {
		reader_reset(r);
		if (atomic_compare_exchange_strong_explicit(
			    &t->spare_reader, &none, r, memory_order_release,
			    memory_order_relaxed))
			r = NULL;
	}
	reader_free(r);
	table_unref(t);
}

static int reader_setup(reader **out, engine *e, table *t,
			const sbx_scan_opts *o, bool point_get)
{
	*out = NULL;
	const sbx_read_opts *ro = &o->read;
	for (size_t i = 0; i < ro->ncolumns; i++)
		if (!table_family(t, ro->columns[i].family))
			return sbx_error_set(SBX_ENOFAMILY,
					     "table '%s' has no family '%s'",
					     t->name, ro->columns[i].family);
	reader *r = reader_alloc(t, t->nfams ? t->nfams : 1);
	if (!r)
		return SBX_ENOMEM_SET();
	atomic_fetch_add(&t->refs, 1);
	r->eng = e;
	r->tab = t;
	r->reversed = o->reversed;
	r->raw = ro->raw;
	r->min_ts = ro->min_ts;
	r->max_ts = ro->max_ts;
	r->limit = o->limit;
	r->batch = o->batch;
	r->filter = ro->filter;
	r->now_ms = engine_now_ms();
	r->last_bytes = atomic_load_explicit(&t->row_bytes_hint,
					     memory_order_relaxed);
	r->last_cells = atomic_load_explicit(&t->row_cells_hint,
					     memory_order_relaxed);
	int rc = SBX_OK;
	for (size_t i = 0; !rc && i < t->nfams; i++) {
		bool selected = ro->ncolumns == 0;
		for (size_t j = 0; j < ro->ncolumns; j++)
			if (!strcmp(ro->columns[j].family, t->fams[i]->desc.name))
				selected = true;
		if (selected)
			rc = add_famcur(r, t->fams[i], ro);
	}
	if (!rc)
		rc = set_bounds(r, o);
	if (rc) {
		reader_close(r);
		return rc;
	}
	/* A parked reader brings its read options: every field used is set
	 * here (a NULL bound clears the previous use's). */
	if (!r->ro && !(r->ro = rocksdb_readoptions_create())) {
		reader_close(r);
		return SBX_ENOMEM_SET();
	}
	rocksdb_readoptions_set_iterate_lower_bound(
		r->ro, r->has_lower ? (const char *)r->lower.data : NULL,
		r->lower.len);
	rocksdb_readoptions_set_iterate_upper_bound(
		r->ro, r->has_upper ? (const char *)r->upper.data : NULL,
		r->upper.len);
	/* Point gets may use the row-prefix bloom; scans cross rows. */
	rocksdb_readoptions_set_total_order_seek(r->ro, !point_get);
	rocksdb_readoptions_set_fill_cache(r->ro, 1);
	if (r->nfc == 1) {
		r->fc[0].it = rocksdb_create_iterator_cf(e->db, r->ro,
							 r->fc[0].fam->cf);
	} else if (r->nfc > 1) {
		rocksdb_column_family_handle_t **cfs =
			calloc(r->nfc, sizeof *cfs);
		rocksdb_iterator_t **its = calloc(r->nfc, sizeof *its);
		char *err = NULL;
		if (cfs && its) {
			for (size_t i = 0; i < r->nfc; i++)
				cfs[i] = r->fc[i].fam->cf;
			rocksdb_create_iterators(e->db, r->ro, cfs, its, r->nfc,
						 &err);
			for (size_t i = 0; !err && i < r->nfc; i++)
				r->fc[i].it = its[i];
		}
		free(cfs);
		free(its);
		if (err || !r->fc[0].it) {
			reader_close(r);
			return err ? engine_rocks_error(err, "creating iterators")
				   : SBX_ENOMEM_SET();
		}
	}
	if (r->filter)
		sbx_filter_set_reversed(r->filter, r->reversed);
	*out = r;
	return SBX_OK;
}

int reader_open(reader **out, engine *e, table *t, const sbx_scan_opts *o)
{
	return reader_setup(out, e, t, o, false);
}

/* ---- one family of one row ---- */

typedef enum row_action {
	ROW_CONTINUE,  /* keep reading the row's other families */
	ROW_STOP,      /* the filter ended the row (NEXT_ROW) */
	ROW_SEEK_HINT, /* the filter wants another row: r->hint */
} row_action;

static bool qual_selected(const famcur *c, const uint8_t *q, size_t ql)
{
	if (c->all_columns)
		return true;
	size_t lo = 0, hi = c->nquals;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int d = cmp_bytes(c->quals[mid].data, c->quals[mid].len, q, ql);
		if (d == 0)
			return true;
		if (d < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

static void src_seek(reader *r, famcur *c, const sbx_buf *key);

/* Seek the cursor within the row to the first wanted qualifier after the
 * current one; false if there is none (the family is done for this row). */
static bool seek_next_selected(reader *r, famcur *c)
{
	for (size_t i = 0; i < c->nquals; i++) {
		if (cmp_bytes(c->quals[i].data, c->quals[i].len, r->cq,
			      r->cq_len) > 0) {
			r->seek.len = 0;
			if (sbx_buf_append(&r->seek, r->prefix.data, r->prefix.len) ||
			    cellkey_put_escaped(&r->seek, c->quals[i].data,
						c->quals[i].len))
				return false;
			src_seek(r, c, &r->seek);
			return true;
		}
	}
	return false;
}

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
	return r->rb.arena.data + e->voff;
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
		if (b->n == b->cap) {
			size_t cap = b->cap ? b->cap * 2 : 16;
			rowbuf_ent *e = realloc(b->ents, cap * sizeof *e);
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
		if (sbx_buf_append(&b->arena, k, kl) ||
		    sbx_buf_append(&b->arena, v, vl))
			return SBX_ENOMEM_SET();
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

static inline int add_cell(reader *r, sbx_result *res, famcur *c,
			   const sbx_cell *in)
{
	int rc = begin_family(r, res, c);
	if (rc)
		return rc;
	if (!r->filter || in->type != SBX_CELL_PUT)
		return result_add_cell(res, in->qualifier, in->qualifier_len,
				       in->timestamp, in->type, in->value,
				       in->value_len);
	sbx_cell out = *in;
	sbx_filter_transform_cell(r->filter, in, &out);
	return result_add_cell(res, out.qualifier, out.qualifier_len,
			       out.timestamp, out.type, out.value,
			       out.value_len);
}

static int read_family_row(reader *r, famcur *c, sbx_result *res,
			   const uint8_t *row, size_t row_len,
			   row_action *action, bool *consumed)
{
	const family *f = c->fam;
	bool has_ttl = f->desc.ttl_seconds < SBX_TTL_FOREVER;
	int64_t oldest = r->now_ms - f->desc.ttl_seconds * 1000;
	bool see_past = f->desc.keep_deleted_cells != SBX_KEEP_DELETED_FALSE;
	int64_t fam_del = -1, col_del = -1;
	int included = 0, visible = 0;
	bool skip_column = false;
	int skipped = 0; /* versions stepped over in a skipped column */
	bool have_col = false; /* r->colkey/r->cq hold the current column */
	const bool raw = r->raw;
	/* no filter: cells go into the result as they are */
	const bool plain_row = r->filter == NULL;
	r->fam_begun = false;
	r->fam_ver.n = r->col_ver.n = 0;
	*action = ROW_CONTINUE;
	*consumed = false;

	while (src_valid(r, c)) {
		size_t kl, vl;
		const uint8_t *k = src_key(r, c, &kl);
		if (kl < r->prefix.len ||
		    !sbx_bytes_eq(k, r->prefix.data, r->prefix.len))
			break;
		/* The qualifier segment; decoded only when the column changes
		 * (r->colkey keeps its escaped bytes). */
		const uint8_t *qe = k + r->prefix.len, *plain;
		size_t ql = cellkey_segment(qe, kl - r->prefix.len, &plain);
		if (!ql || r->prefix.len + ql + 9 != kl)
			return sbx_error_set(SBX_EIO, "corrupt cell key");
		int64_t ts;
		sbx_cell_type type;
		cellkey_tail(qe + ql, &ts, &type);

		bool fam_marker = type == SBX_CELL_DELETE_FAMILY ||
				  type == SBX_CELL_DELETE_FAMILY_VERSION;
		if (!fam_marker &&
		    (!have_col || r->colkey.len != ql ||
		     !sbx_bytes_eq(r->colkey.data, qe, ql))) {
			/* A qualifier without escaped zeros is its segment
			 * less the terminator: no decoding, no second copy. */
			if (sbx_buf_set(&r->colkey, qe, ql))
				return SBX_ENOMEM_SET();
			if (plain) {
				r->cq = r->colkey.data;
				r->cq_len = ql - 2;
			} else {
				r->qual.len = 0;
				if (!cellkey_unescape(qe, ql, &r->qual))
					return SBX_ENOMEM_SET();
				r->cq = r->qual.data;
				r->cq_len = r->qual.len;
			}
			have_col = true;
			col_del = -1;
			r->col_ver.n = 0;
			included = visible = skipped = 0;
			skip_column = false;
			if (!qual_selected(c, r->cq, r->cq_len)) {
				/* The empty qualifier's column also holds the
				 * family markers: step through it, never seek. */
				if (r->cq_len == 0) {
					skip_column = true;
				} else {
					if (!seek_next_selected(r, c))
						return SBX_OK;
					continue;
				}
			}
		}
		if (skip_column && !fam_marker) {
			/* HBase's seek-or-skip: step over two versions, then
			 * seek past the column (never past the empty
			 * qualifier's, which holds the family markers). */
			if (++skipped > 2 && r->cq_len > 0 && !r->rb.active) {
				if (sbx_buf_set(&r->seek, r->prefix.data,
						r->prefix.len) ||
				    sbx_buf_append(&r->seek, r->colkey.data,
						   r->colkey.len))
					return SBX_ENOMEM_SET();
				r->seek.data[r->seek.len - 1] = 0x02;
				src_seek(r, c, &r->seek);
				skipped = 0;
				continue;
			}
			src_next(r, c);
			continue;
		}
		const uint8_t *v = src_value(r, c, &vl);
		/* The common case, taken straight: a put with no delete marker
		 * seen in the row, no TTL, no filter, inside the time range and
		 * under the version count. The general path below gives the
		 * same answer for it, step by step. */
		if (type == SBX_CELL_PUT && plain_row && !raw && !has_ttl &&
		    r->fam_ver.n == 0 && r->col_ver.n == 0 &&
		    fam_del < 0 && col_del < 0 && ts >= r->min_ts &&
		    ts < r->max_ts && included < c->max_versions) {
			int rc = begin_family(r, res, c);
			if (rc)
				return rc;
			visible++;
			included++;
			rc = result_add_cell(res, r->cq, r->cq_len, ts, type, v,
					     vl);
			if (rc)
				return rc;
			src_next(r, c);
			continue;
		}
		/* Family markers live in the empty qualifier's column. */
		sbx_cell cell = {row, row_len, f->desc.name,
				 c->fam_len, r->cq,
				 fam_marker ? 0 : r->cq_len, ts, type, v, vl};
		bool in_range = ts >= r->min_ts && ts < r->max_ts;

		if (r->raw) {
			if (in_range && included < c->max_versions) {
				if (type == SBX_CELL_PUT)
					included++;
				int rc = add_cell(r, res, c, &cell);
				if (rc)
					return rc;
			}
			src_next(r, c);
			continue;
		}
		if (type != SBX_CELL_PUT) {
			bool track = see_past ? in_range : ts >= r->min_ts;
			if (track) {
				int rc = SBX_OK;
				switch (type) {
				case SBX_CELL_DELETE_FAMILY:
					if (ts > fam_del)
						fam_del = ts;
					break;
				case SBX_CELL_DELETE_FAMILY_VERSION:
					rc = ts_list_add(&r->fam_ver, ts);
					break;
				case SBX_CELL_DELETE_COLUMN:
					if (ts > col_del)
						col_del = ts;
					break;
				default:
					rc = ts_list_add(&r->col_ver, ts);
				}
				if (rc)
					return rc;
			}
			src_next(r, c);
			continue;
		}
		bool masked = ts <= fam_del || ts <= col_del ||
			      (r->fam_ver.n && ts_list_has(&r->fam_ver, ts)) ||
			      (r->col_ver.n && ts_list_has(&r->col_ver, ts));
		if (masked) {
			src_next(r, c);
			continue;
		}
		if (has_ttl && ts < oldest && visible >= f->desc.min_versions) {
			skip_column = true; /* older versions are expired too */
			src_next(r, c);
			continue;
		}
		visible++;
		if (!in_range) {
			src_next(r, c);
			continue;
		}
		sbx_filter_code fc = r->filter ? sbx_filter_cell(r->filter, &cell)
					       : SBX_FILTER_INCLUDE;
		switch (fc) {
		case SBX_FILTER_SKIP:
			src_next(r, c);
			continue;
		case SBX_FILTER_NEXT_COL:
			skip_column = true;
			src_next(r, c);
			continue;
		case SBX_FILTER_NEXT_ROW:
			*action = ROW_STOP;
			return SBX_OK;
		case SBX_FILTER_SEEK_NEXT_USING_HINT: {
			r->hint.row.len = r->hint.qualifier.len = 0;
			if (!sbx_filter_cell_hint(r->filter, &cell, &r->hint)) {
				src_next(r, c);
				continue;
			}
			if (r->hint.row.len == row_len &&
			    !memcmp(r->hint.row.data, row, row_len)) {
				r->seek.len = 0;
				if (sbx_buf_append(&r->seek, r->prefix.data,
						   r->prefix.len) ||
				    cellkey_put_escaped(&r->seek,
							r->hint.qualifier.data,
							r->hint.qualifier.len))
					return SBX_ENOMEM_SET();
				if (cmp_bytes(r->seek.data, r->seek.len, k, kl) > 0)
					src_seek(r, c, &r->seek);
				else
					src_next(r, c);
				continue;
			}
			*action = ROW_SEEK_HINT;
			return SBX_OK;
		}
		default:
			break;
		}
		if (included >= c->max_versions) {
			skip_column = true;
			src_next(r, c);
			continue;
		}
		included++;
		int rc = add_cell(r, res, c, &cell);
		if (rc)
			return rc;
		if (fc == SBX_FILTER_INCLUDE_AND_NEXT_COL)
			skip_column = true;
		else if (fc == SBX_FILTER_INCLUDE_AND_SEEK_NEXT_ROW) {
			*action = ROW_STOP;
			return SBX_OK;
		}
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
	return found ? SBX_OK : SBX_ITEROVER;
}

static bool cur_at_row(famcur *c, const sbx_buf *row)
{
	return cur_row(c) == SBX_OK && c->row.len == row->len &&
	       !memcmp(c->row.data, row->data, row->len);
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
			if (!cur_at_row(c, &row))
				continue;
			if (r->reversed && (rc = buffer_row_backwards(r, c)))
				break;
			r->rb.active = r->reversed;
			row_action action = ROW_CONTINUE;
			bool consumed;
			rc = read_family_row(r, c, res, row.data, row.len,
					     &action, &consumed);
			r->rb.active = false;
			int d = 0;
			if (!rc && action == ROW_SEEK_HINT)
				d = cmp_bytes(r->hint.row.data, r->hint.row.len,
					      row.data, row.len);
			if (rc)
				break;
			if (action == ROW_SEEK_HINT && (r->reversed ? d < 0 : d > 0))
				rc = seek_cur_to_row(r, c, r->hint.row.data,
						     r->hint.row.len);
			else if (r->reversed || consumed)
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
				region_count_read(r->eng, reg, res->arena.len,
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

/* Split off the next `batch` cells of r->pending as their own result. */
static int take_batch(reader *r, sbx_result **out)
{
	sbx_result *p = r->pending;
	size_t n = p->n - r->pending_pos;
	if (n > (size_t)r->batch)
		n = (size_t)r->batch;
	sbx_result *res;
	int rc = result_new(&res, p->arena.data, p->row_len);
	for (size_t i = 0; !rc && i < n; i++) {
		const sbx_cell *c = &p->cells[r->pending_pos + i];
		rc = result_add(res, c->family, c->family_len, c->qualifier,
				c->qualifier_len, c->timestamp, c->type,
				c->value, c->value_len);
	}
	if (!rc)
		rc = result_finish(res);
	if (rc) {
		sbx_result_free(res);
		return rc;
	}
	r->pending_pos += n;
	if (r->pending_pos >= p->n) {
		sbx_result_free(p);
		r->pending = NULL;
	}
	*out = res;
	return SBX_OK;
}

int reader_next(reader *r, sbx_result **out)
{
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

int engine_read_row(sbx_result **out, engine *e, table *t, const uint8_t *row,
		    size_t row_len, const sbx_read_opts *o)
{
	sbx_scan_opts so;
	model_get_scan_opts(&so, row, row_len, o);
	reader *r;
	int rc = reader_setup(&r, e, t, &so, true);
	if (rc)
		return rc;
	rc = reader_next(r, out);
	reader_close(r);
	if (rc == SBX_ITEROVER)
		return model_get_empty_result(out, row, row_len);
	return rc;
}
