/*
 * scan.c - reads: ReadRows with one row range (the scan's bounds, forward
 * or reversed) and a RowFilter for what Bigtable can select itself
 * (columns, time range, versions when no client filter runs), streamed
 * through the chunk merger; then, per row, the HBase rules Bigtable does
 * not apply in the client: HBase cell order, VERSIONS and TTL/MIN_VERSIONS
 * (GC is lazy), and the caller's sbx_filter with HBase's filter pipeline.
 * Scans page: each ReadRows asks for at most `caching` rows and the next
 * resumes after the last key received.
 */
#include "bigtable/bigtable.h"
#include "bigtable/merge.h"

#include "common/bytes.h"
#include "common/clock.h"
#include "common/alloc.h"
#include "common/error.h"
#include "model/result.h"
#include "model/rules.h"
#include "saltbox/filter.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DATA "/google.bigtable.v2.Bigtable/"
#define DEFAULT_PAGE_ROWS 1000

int bt_ts_micros(int64_t ts_ms, int64_t *out)
{
	if (ts_ms < 0 || ts_ms > INT64_MAX / 1000)
		return sbx_error_set(SBX_EINVAL,
				     "timestamp %lld ms does not fit Bigtable's "
				     "microseconds",
				     (long long)ts_ms);
	*out = ts_ms * 1000;
	return SBX_OK;
}

/* ---- what Bigtable selects ---------------------------------------------------- */

/* What Bigtable selects for these read options; *out NULL = everything. */
static int server_filter(Sbxbt__RowFilter **out, const sbx_read_opts *o,
			 bool client_filter)
{
	*out = NULL;
	Sbxbt__RowFilter *parts[4];
	size_t np = 0;
	if (o->ncolumns) {
		Sbxbt__RowFilter **cols = sbx_malloc(o->ncolumns * sizeof *cols);
		if (!cols)
			return SBX_ENOMEM_SET();
		for (size_t i = 0; i < o->ncolumns; i++) {
			const sbx_column *c = &o->columns[i];
			if (!c->qualifier)
				cols[i] = bt_filter_family(c->family);
			else if (bt_filter_column(&cols[i], c->family,
						  c->qualifier, c->qualifier_len))
				cols[i] = NULL;
		}
		parts[np++] = bt_filter_combine(false, cols, o->ncolumns);
		free(cols);
	}
	if (o->min_ts > 0 || o->max_ts != INT64_MAX) {
		Sbxbt__RowFilter *f = bt_filter_new();
		Sbxbt__TimestampRange *r = sbx_malloc(sizeof *r);
		if (!f || !r) {
			free(f);
			free(r);
			parts[np++] = NULL;
		} else {
			sbxbt__timestamp_range__init(r);
			r->start_timestamp_micros =
				o->min_ts > INT64_MAX / 1000 ? INT64_MAX
							     : o->min_ts * 1000;
			r->end_timestamp_micros =
				o->max_ts > INT64_MAX / 1000 ? 0
							     : o->max_ts * 1000;
			f->filter_case = SBXBT__ROW_FILTER__FILTER_TIMESTAMP_RANGE_FILTER;
			f->timestamp_range_filter = r;
			parts[np++] = f;
		}
	}
	/* what of the HBase filter Bigtable can run first (prefilter.c) */
	if (o->filter) {
		Sbxbt__RowFilter *pf = NULL;
		int rc = bt_prefilter(&pf, o->filter);
		if (rc) {
			for (size_t i = 0; i < np; i++)
				bt_filter_free(parts[i]);
			return rc;
		}
		if (pf)
			parts[np++] = pf;
	}
	/* HBase filters see every version before versions are counted */
	if (!client_filter && o->max_versions > 0) {
		Sbxbt__RowFilter *f = bt_filter_new();
		if (f) {
			f->filter_case = SBXBT__ROW_FILTER__FILTER_CELLS_PER_COLUMN_LIMIT_FILTER;
			f->cells_per_column_limit_filter = o->max_versions;
		}
		parts[np++] = f;
	}
	if (!np)
		return SBX_OK;
	*out = bt_filter_combine(true, parts, np);
	return *out ? SBX_OK : SBX_ENOMEM_SET();
}

/* ---- ReadRows through the merger --------------------------------------------- */

typedef struct read_ctx {
	bt_merger m;
	bt_row_fn fn;
	void *ctx;
	size_t rows;
} read_ctx;

static int count_row(void *p, const bt_row *row)
{
	read_ctx *r = p;
	r->rows++;
	return r->fn(r->ctx, row);
}

int bt_read_rows_feed(bt_merger *m, const Sbxbt__ReadRowsResponse *resp,
		      bt_row_fn fn, void *ctx)
{
	for (size_t i = 0; i < resp->n_chunks; i++) {
		const Sbxbt__ReadRowsResponse__CellChunk *c = resp->chunks[i];
		bt_chunk ch = {0};
		ch.row_key = c->row_key.data;
		ch.row_key_len = c->row_key.len;
		if (c->family_name) {
			ch.has_family = true;
			ch.family = c->family_name->value;
			ch.family_len = strlen(c->family_name->value);
		}
		if (c->qualifier) {
			ch.has_qualifier = true;
			ch.qualifier = c->qualifier->value.data;
			ch.qualifier_len = c->qualifier->value.len;
		}
		ch.timestamp_micros = c->timestamp_micros;
		ch.nlabels = c->n_labels;
		if (c->n_labels) {
			ch.label = c->labels[0];
			ch.label_len = strlen(c->labels[0]);
		}
		ch.value = c->value.data;
		ch.value_len = c->value.len;
		ch.value_size = c->value_size;
		ch.reset_row = c->row_status_case ==
			       SBXBT__READ_ROWS_RESPONSE__CELL_CHUNK__ROW_STATUS_RESET_ROW &&
			       c->reset_row;
		ch.commit_row = c->row_status_case ==
				SBXBT__READ_ROWS_RESPONSE__CELL_CHUNK__ROW_STATUS_COMMIT_ROW &&
				c->commit_row;
		int rc = bt_merger_chunk(m, &ch, fn, ctx);
		if (rc == SBX_EREMOTE && m->why[0])
			return sbx_error_set(SBX_EREMOTE,
					     "Bigtable ReadRows: an invalid "
					     "stream (%s)",
					     m->why);
		if (rc == SBX_ENOMEM)
			return SBX_ENOMEM_SET();
		if (rc)
			return rc;
	}
	return SBX_OK;
}

static int on_response(void *p, ProtobufCMessage **msg)
{
	read_ctx *r = p;
	return bt_read_rows_feed(&r->m, (const void *)*msg, count_row, r);
}

/* Run one ReadRows, handing each committed row to fn; *rows counts them. */
static int read_rows(bt_table *t, Sbxbt__ReadRowsRequest *req, bt_row_fn fn,
		     void *ctx, size_t *rows)
{
	read_ctx r = {.fn = fn, .ctx = ctx};
	bt_merger_init(&r.m, req->reversed);
	req->table_name = t->path;
	int rc = bt_call(t->db, DATA "ReadRows", "table_name", t->path,
			 &req->base, &sbxbt__read_rows_response__descriptor,
			 on_response, &r);
	if (!rc && bt_merger_finish(&r.m))
		rc = sbx_error_set(SBX_EREMOTE, "Bigtable ReadRows: %s",
				   r.m.why);
	bt_merger_free(&r.m);
	if (rows)
		*rows = r.rows;
	return rc;
}

int bt_read_row(bt_table *t, const uint8_t *row, size_t row_len,
		Sbxbt__RowFilter *filter, bt_row_fn fn, void *ctx)
{
	Sbxbt__ReadRowsRequest req = SBXBT__READ_ROWS_REQUEST__INIT;
	Sbxbt__RowSet set = SBXBT__ROW_SET__INIT;
	ProtobufCBinaryData key = {row_len, (uint8_t *)row};
	set.n_row_keys = 1;
	set.row_keys = &key;
	req.rows = &set;
	req.filter = filter;
	return read_rows(t, &req, fn, ctx, NULL);
}

/* ---- HBase's rules on a merged row -------------------------------------------- */

typedef struct bt_scanner {
	bt_table *t;
	sbx_family_desc *fams;
	size_t nfams;
	sbx_read_opts read;
	sbx_filter *filter; /* borrowed */
	Sbxbt__RowFilter *server;
	uint8_t *start, *stop;
	size_t start_len, stop_len;
	bool start_inclusive, stop_inclusive, reversed;
	int64_t limit, returned;
	int batch, page_rows;
	sbx_buf resume; /* last key received */
	bool have_resume, exhausted, done;
	sbx_buf hint;   /* skip rows before this (a filter's row hint) */
	bool have_hint;
	sbx_result **page;
	size_t npage, pos, cap;
	sbx_result *pending;
	size_t pending_pos;
	int64_t now_ms;
	int error;
} bt_scanner;

typedef struct sort_ctx {
	const bt_row *row;
	size_t idx;
} sort_item;

static int cmp_cell(const void *pa, const void *pb)
{
	const sort_item *a = pa, *b = pb;
	const bt_row *r = a->row;
	const bt_cell *x = &r->cells[a->idx], *y = &r->cells[b->idx];
	const uint8_t *d = r->arena.data;
	int c = sbx_bytes_cmp(d + x->family_off, x->family_len, d + y->family_off,
			  y->family_len);
	if (!c)
		c = sbx_bytes_cmp(d + x->qual_off, x->qual_len, d + y->qual_off,
			      y->qual_len);
	if (!c)
		c = x->timestamp_micros > y->timestamp_micros ? -1
		    : x->timestamp_micros < y->timestamp_micros;
	if (!c)
		c = a->idx < b->idx ? -1 : a->idx > b->idx;
	return c;
}

static const sbx_family_desc *family_of(const bt_scanner *s, const char *f,
					size_t len)
{
	for (size_t i = 0; i < s->nfams; i++)
		if (strlen(s->fams[i].name) == len &&
		    !memcmp(s->fams[i].name, f, len))
			return &s->fams[i];
	return NULL;
}

static bool row_in_bounds(const bt_scanner *s, const uint8_t *row, size_t len)
{
	if (s->start_len) {
		int c = sbx_bytes_cmp(row, len, s->start, s->start_len);
		if ((s->reversed ? c > 0 : c < 0) || (!c && !s->start_inclusive))
			return false;
	}
	if (s->stop_len) {
		int c = sbx_bytes_cmp(row, len, s->stop, s->stop_len);
		if ((s->reversed ? c < 0 : c > 0) || (!c && !s->stop_inclusive))
			return false;
	}
	return true;
}

/* Apply HBase's read rules to one merged row: *out is the finished result
 * (NULL when nothing survives). */
static int hbase_row(bt_scanner *s, const bt_row *row, sbx_result **out)
{
	*out = NULL;
	sbx_filter *flt = s->filter;
	if (flt) {
		if (sbx_filter_all_remaining(flt)) {
			s->done = true;
			return SBX_OK;
		}
		sbx_filter_reset(flt);
		if (sbx_filter_row_key(flt, row->key.data, row->key.len)) {
			sbx_filter_hint h = {0};
			if (sbx_filter_row_hint(flt, row->key.data, row->key.len,
						&h)) {
				int d = sbx_bytes_cmp(h.row.data, h.row.len,
						  row->key.data, row->key.len);
				if ((s->reversed ? d < 0 : d > 0) &&
				    !sbx_buf_set(&s->hint, h.row.data, h.row.len))
					s->have_hint = true;
			}
			sbx_buf_free(&h.row);
			sbx_buf_free(&h.qualifier);
			return SBX_OK;
		}
	}
	sort_item *items = sbx_malloc((row->n + 1) * sizeof *items);
	if (!items)
		return SBX_ENOMEM_SET();
	for (size_t i = 0; i < row->n; i++)
		items[i] = (sort_item){row, i};
	qsort(items, row->n, sizeof *items, cmp_cell);
	sbx_result *res;
	int rc = result_new(&res, row->key.data, row->key.len);
	const uint8_t *d = row->arena.data;
	const bt_cell *prev = NULL;
	const sbx_family_desc *fam = NULL;
	int visible = 0, included = 0, max_versions = 0;
	bool skip_column = false, skip_family = false, raw = s->read.raw;
	sbx_buf seek = {0}; /* SEEK_NEXT_USING_HINT's qualifier in this family */
	bool seeking = false;
	int req = s->read.max_versions <= 0 ? INT32_MAX : s->read.max_versions;
	for (size_t i = 0; !rc && i < row->n; i++) {
		const bt_cell *c = &row->cells[items[i].idx];
		bool new_family = !prev || sbx_bytes_cmp(d + c->family_off,
						     c->family_len,
						     d + prev->family_off,
						     prev->family_len);
		bool new_column = new_family ||
				  sbx_bytes_cmp(d + c->qual_off, c->qual_len,
					    d + prev->qual_off, prev->qual_len);
		prev = c;
		if (new_family) {
			fam = family_of(s, (const char *)d + c->family_off,
					c->family_len);
			skip_family = !fam; /* dropped since the schema was read */
			seeking = false;
			if (fam) {
				max_versions = raw || req < fam->max_versions
						       ? req
						       : fam->max_versions;
				rc = result_begin_family(
					res, (const char *)d + c->family_off,
					c->family_len);
			}
		}
		if (new_column) {
			visible = included = 0;
			skip_column = false;
		}
		if (rc || skip_family || skip_column)
			continue;
		if (seeking) {
			if (sbx_bytes_cmp(d + c->qual_off, c->qual_len, seek.data,
				      seek.len) < 0)
				continue;
			seeking = false;
		}
		int64_t ts = c->timestamp_micros / 1000;
		if (!raw && fam->ttl_seconds != SBX_TTL_FOREVER &&
		    fam->ttl_seconds > 0 &&
		    ts < s->now_ms - fam->ttl_seconds * 1000 &&
		    visible >= fam->min_versions) {
			skip_column = true;
			continue;
		}
		visible++;
		if (ts < s->read.min_ts || ts >= s->read.max_ts)
			continue;
		sbx_cell cell = {
			.row = row->key.data,
			.row_len = row->key.len,
			.family = (const char *)d + c->family_off,
			.family_len = c->family_len,
			.qualifier = d + c->qual_off,
			.qualifier_len = c->qual_len,
			.timestamp = ts,
			.type = SBX_CELL_PUT,
			.value = d + c->value_off,
			.value_len = c->value_len,
		};
		sbx_filter_code fc = flt ? sbx_filter_cell(flt, &cell)
					 : SBX_FILTER_INCLUDE;
		if (fc == SBX_FILTER_SKIP)
			continue;
		if (fc == SBX_FILTER_NEXT_COL) {
			skip_column = true;
			continue;
		}
		if (fc == SBX_FILTER_NEXT_ROW) {
			skip_family = true; /* HBase: one scanner per family */
			continue;
		}
		if (fc == SBX_FILTER_SEEK_NEXT_USING_HINT) {
			sbx_filter_hint h = {0};
			if (sbx_filter_cell_hint(flt, &cell, &h)) {
				if (h.row.len == row->key.len &&
				    !memcmp(h.row.data, row->key.data,
					    h.row.len)) {
					if (!sbx_buf_set(&seek, h.qualifier.data,
							 h.qualifier.len))
						seeking = true;
				} else {
					skip_family = true;
				}
			}
			sbx_buf_free(&h.row);
			sbx_buf_free(&h.qualifier);
			continue;
		}
		if (included >= max_versions) {
			skip_column = true;
			continue;
		}
		included++;
		sbx_cell outc = cell;
		if (flt)
			sbx_filter_transform_cell(flt, &cell, &outc);
		rc = result_add_cell(res, outc.qualifier, outc.qualifier_len,
				     outc.timestamp, outc.type, outc.value,
				     outc.value_len);
		if (fc == SBX_FILTER_INCLUDE_AND_NEXT_COL)
			skip_column = true;
		else if (fc == SBX_FILTER_INCLUDE_AND_SEEK_NEXT_ROW)
			skip_family = true;
	}
	free(items);
	sbx_buf_free(&seek);
	if (!rc)
		rc = result_finish(res);
	if (rc) {
		sbx_result_free(res);
		return rc;
	}
	if (flt) {
		size_t n = res->n;
		sbx_filter_row_cells(flt, res->cells, &n);
		res->n = n;
		if (n && sbx_filter_row(flt))
			res->n = 0;
	}
	if (res->n == 0) {
		sbx_result_free(res);
		return SBX_OK;
	}
	*out = res;
	return SBX_OK;
}

static int on_row(void *p, const bt_row *row)
{
	bt_scanner *s = p;
	if (sbx_buf_set(&s->resume, row->key.data, row->key.len))
		return SBX_ENOMEM_SET();
	s->have_resume = true;
	if (s->done || !row_in_bounds(s, row->key.data, row->key.len))
		return SBX_OK;
	if (s->have_hint) {
		int d = sbx_bytes_cmp(row->key.data, row->key.len, s->hint.data,
				  s->hint.len);
		if (s->reversed ? d > 0 : d < 0)
			return SBX_OK;
		s->have_hint = false;
	}
	sbx_result *res;
	int rc = hbase_row(s, row, &res);
	if (rc || !res)
		return rc;
	if (s->npage == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 64;
		sbx_result **v = sbx_realloc(s->page, cap * sizeof *v);
		if (!v) {
			sbx_result_free(res);
			return SBX_ENOMEM_SET();
		}
		s->page = v;
		s->cap = cap;
	}
	s->page[s->npage++] = res;
	return SBX_OK;
}

static void set_bytes(ProtobufCBinaryData *b, const uint8_t *p, size_t len)
{
	b->data = (uint8_t *)p;
	b->len = len;
}

/* Fetch the next page of rows into s->page. */
static int fetch_page(bt_scanner *s)
{
	Sbxbt__ReadRowsRequest req = SBXBT__READ_ROWS_REQUEST__INIT;
	Sbxbt__RowSet set = SBXBT__ROW_SET__INIT;
	Sbxbt__RowRange range = SBXBT__ROW_RANGE__INIT;
	Sbxbt__RowRange *rp = &range;
	/* the low bound and the high bound, in key order */
	const uint8_t *lo = s->reversed ? s->stop : s->start;
	size_t lo_len = s->reversed ? s->stop_len : s->start_len;
	bool lo_incl = s->reversed ? s->stop_inclusive : s->start_inclusive;
	const uint8_t *hi = s->reversed ? s->start : s->stop;
	size_t hi_len = s->reversed ? s->start_len : s->stop_len;
	bool hi_incl = s->reversed ? s->start_inclusive : s->stop_inclusive;
	if (s->have_resume && !s->reversed) {
		lo = s->resume.data;
		lo_len = s->resume.len;
		lo_incl = false;
	} else if (s->have_resume) {
		hi = s->resume.data;
		hi_len = s->resume.len;
		hi_incl = false;
	}
	if (lo_len) {
		range.start_key_case = lo_incl
			? SBXBT__ROW_RANGE__START_KEY_START_KEY_CLOSED
			: SBXBT__ROW_RANGE__START_KEY_START_KEY_OPEN;
		set_bytes(lo_incl ? &range.start_key_closed
				  : &range.start_key_open,
			  lo, lo_len);
	}
	if (hi_len) {
		range.end_key_case = hi_incl
			? SBXBT__ROW_RANGE__END_KEY_END_KEY_CLOSED
			: SBXBT__ROW_RANGE__END_KEY_END_KEY_OPEN;
		set_bytes(hi_incl ? &range.end_key_closed : &range.end_key_open,
			  hi, hi_len);
	}
	set.n_row_ranges = 1;
	set.row_ranges = &rp;
	req.rows = &set;
	req.filter = s->server;
	req.reversed = s->reversed;
	int64_t want = s->page_rows;
	if (!s->filter && s->limit > 0 && s->limit - s->returned < want)
		want = s->limit - s->returned;
	req.rows_limit = want;
	size_t rows;
	int rc = read_rows(s->t, &req, on_row, s, &rows);
	if (!rc && (int64_t)rows < want)
		s->exhausted = true;
	return rc;
}

static bool empty_range(const bt_scanner *s)
{
	if (!s->start_len || !s->stop_len)
		return false;
	int c = sbx_bytes_cmp(s->start, s->start_len, s->stop, s->stop_len);
	if (c == 0)
		return !s->start_inclusive || !s->stop_inclusive;
	return s->reversed ? c < 0 : c > 0;
}

void bt_scanner_close(void *p)
{
	bt_scanner *s = p;
	if (!s)
		return;
	for (size_t i = s->pos; i < s->npage; i++)
		sbx_result_free(s->page[i]);
	free(s->page);
	sbx_result_free(s->pending);
	bt_filter_free(s->server);
	free(s->fams);
	free(s->start);
	free(s->stop);
	sbx_buf_free(&s->resume);
	sbx_buf_free(&s->hint);
	free(s);
}

static uint8_t *dup_bytes(const void *p, size_t len)
{
	uint8_t *d = sbx_malloc(len + 1);
	if (d && len)
		memcpy(d, p, len);
	return d;
}

int bt_scanner_open(void **out, void *p, const sbx_scan_opts *o)
{
	bt_table *t = p;
	*out = NULL;
	bt_scanner *s = sbx_calloc(1, sizeof *s);
	if (!s)
		return SBX_ENOMEM_SET();
	s->t = t;
	s->read = o->read;
	s->read.columns = NULL; /* only used while building the filter */
	s->filter = o->read.filter;
	s->start_inclusive = o->start_inclusive;
	s->stop_inclusive = o->stop_inclusive;
	s->reversed = o->reversed;
	s->limit = o->limit;
	s->batch = o->batch;
	s->page_rows = o->caching > 0 ? o->caching : DEFAULT_PAGE_ROWS;
	s->now_ms = sbx_clock_now_ms();
	s->start_len = o->start_row_len;
	s->stop_len = o->stop_row_len;
	int rc = SBX_OK;
	if (!(s->start = dup_bytes(o->start_row, o->start_row_len)) ||
	    !(s->stop = dup_bytes(o->stop_row, o->stop_row_len)))
		rc = SBX_ENOMEM_SET();
	if (!rc)
		rc = bt_schema_get(t->db, t->name, &s->fams, &s->nfams);
	for (size_t i = 0; !rc && i < o->read.ncolumns; i++) {
		const char *f = o->read.columns[i].family;
		if (!family_of(s, f, strlen(f)))
			rc = sbx_error_set(SBX_ENOFAMILY,
					   "table '%s' has no family '%s'",
					   t->name, f);
	}
	if (!rc)
		rc = server_filter(&s->server, &o->read, s->filter != NULL);
	if (rc) {
		bt_scanner_close(s);
		return rc;
	}
	if (s->filter)
		sbx_filter_set_reversed(s->filter, s->reversed);
	s->done = empty_range(s);
	*out = s;
	return SBX_OK;
}

static int take_batch(bt_scanner *s, sbx_result **out)
{
	return result_take_batch(out, &s->pending, &s->pending_pos,
				 (size_t)s->batch);
}

int bt_scanner_next(void *p, sbx_result **out)
{
	bt_scanner *s = p;
	*out = NULL;
	if (s->pending)
		return take_batch(s, out);
	if (s->error)
		return s->error;
	while (s->pos == s->npage) {
		s->pos = s->npage = 0;
		if (s->done || s->exhausted ||
		    (s->limit > 0 && s->returned >= s->limit))
			return SBX_ITEROVER;
		int rc = fetch_page(s);
		if (rc) {
			s->error = rc;
			return rc;
		}
	}
	if (s->limit > 0 && s->returned >= s->limit)
		return SBX_ITEROVER;
	sbx_result *res = s->page[s->pos++];
	s->returned++;
	if (s->batch > 0 && res->n > (size_t)s->batch) {
		s->pending = res;
		s->pending_pos = 0;
		return take_batch(s, out);
	}
	*out = res;
	return SBX_OK;
}

int bt_get(sbx_result **out, void *t, const uint8_t *row, size_t row_len,
	   const sbx_read_opts *opts)
{
	sbx_scan_opts so;
	model_get_scan_opts(&so, row, row_len, opts);
	void *s;
	int rc = bt_scanner_open(&s, t, &so);
	if (rc)
		return rc;
	rc = bt_scanner_next(s, out);
	bt_scanner_close(s);
	if (rc == SBX_ITEROVER)
		return model_get_empty_result(out, row, row_len);
	return rc;
}
