/*
 * scan.c - scans over HBase REST. Forward scans use stateful scanners
 * (POST /{t}/scanner -> 201 + Location, GET pages until 204, DELETE at
 * close) with the filter as REST filter JSON; reversed scans use the
 * stateless scan (row spec "*", reversed=true), which takes no filter JSON.
 * Pages may split a row: rows are reassembled here, then cut into `batch`
 * cells per result; inclusive/exclusive bounds and `limit` are enforced
 * here too, so any gateway gives the table API's exact rows.
 */
#include "common/bytes.h"
#include "remote/remote.h"

#include "common/alloc.h"
#include "common/error.h"
#include "model/result.h"
#include "model/rules.h"
#include "saltbox/filter.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Cells per scanner page when the caller gives no hint. */
#define DEFAULT_PAGE_CELLS 1000

typedef struct remote_scanner {
	remote_table *t;
	uint8_t *start, *stop; /* owned copies of the bounds */
	size_t start_len, stop_len;
	bool start_inclusive, stop_inclusive, reversed;
	int64_t limit, returned;
	int batch;
	char *path;            /* stateful scanner path, NULL when stateless */
	remote_cellset page;   /* rows fetched, not yet consumed */
	size_t page_pos;
	bool exhausted;        /* the server has nothing more */
	bool done;
	sbx_result *pending;   /* row being assembled (not finished) */
	sbx_result *ready;     /* whole row being handed out in batches */
	size_t ready_pos;
} remote_scanner;

typedef enum bound_verdict { ROW_TAKE, ROW_SKIP, ROW_END } bound_verdict;

static bound_verdict check_bounds(const remote_scanner *s, const uint8_t *row,
				  size_t len)
{
	if (s->start_len) {
		int c = sbx_bytes_cmp(row, len, s->start, s->start_len);
		if (s->reversed ? c > 0 : c < 0)
			return ROW_SKIP;
		if (c == 0 && !s->start_inclusive)
			return ROW_SKIP;
	}
	if (s->stop_len) {
		int c = sbx_bytes_cmp(row, len, s->stop, s->stop_len);
		if (s->reversed ? c < 0 : c > 0)
			return ROW_END;
		if (c == 0 && !s->stop_inclusive)
			return ROW_END;
	}
	return ROW_TAKE;
}

static uint8_t *dup_bytes(const void *p, size_t len)
{
	uint8_t *d = sbx_malloc(len + 1);
	if (d && len)
		memcpy(d, p, len);
	return d;
}

/* key + 0x00: the first key after `key`. */
static json_t *b64_successor(const uint8_t *key, size_t len)
{
	uint8_t *k = sbx_malloc(len + 1);
	if (!k)
		return NULL;
	memcpy(k, key, len);
	k[len] = 0;
	json_t *j = remote_b64_json(k, len + 1);
	free(k);
	return j;
}

static int columns_json(json_t *arr, const sbx_read_opts *o)
{
	sbx_buf col = {0};
	for (size_t i = 0; i < o->ncolumns; i++) {
		const sbx_column *c = &o->columns[i];
		col.len = 0;
		sbx_buf_append(&col, c->family, strlen(c->family));
		if (c->qualifier) {
			sbx_buf_push(&col, ':');
			sbx_buf_append(&col, c->qualifier, c->qualifier_len);
		}
		json_array_append_new(arr, remote_b64_json(col.data, col.len));
	}
	sbx_buf_free(&col);
	return SBX_OK;
}

static int filter_json(char **out, const sbx_filter *f)
{
	*out = NULL;
	if (!f)
		return SBX_OK;
	sbx_buf b = {0};
	int rc = sbx_filter_to_json(&b, f);
	if (rc == SBX_EUNSUPPORTED)
		rc = sbx_error_set(SBX_EUNSUPPORTED,
				   "this filter cannot be sent to an HBase REST "
				   "gateway (filters built from callbacks with "
				   "sbx_filter_new() have no REST JSON)");
	if (rc == SBX_OK && !(*out = sbx_strndup((const char *)b.data, b.len)))
		rc = SBX_ENOMEM_SET();
	sbx_buf_free(&b);
	return rc;
}

/* The path part of a Location URL ("http://h:p/t/scanner/id"). */
static char *location_path(const char *loc)
{
	const char *p = strstr(loc, "://");
	p = p ? strchr(p + 3, '/') : loc;
	return p && *p == '/' ? sbx_strdup(p) : NULL;
}

static int open_stateful(remote_scanner *s, const sbx_scan_opts *o)
{
	const sbx_read_opts *ro = &o->read;
	json_t *spec = json_object();
	if (!spec)
		return SBX_ENOMEM_SET();
	if (o->start_row_len)
		json_object_set_new(spec, "startRow",
				    o->start_inclusive
					    ? remote_b64_json(o->start_row, o->start_row_len)
					    : b64_successor(o->start_row,
							    o->start_row_len));
	if (o->stop_row_len)
		json_object_set_new(spec, "endRow",
				    o->stop_inclusive
					    ? b64_successor(o->stop_row, o->stop_row_len)
					    : remote_b64_json(o->stop_row, o->stop_row_len));
	int64_t page = DEFAULT_PAGE_CELLS;
	if (o->caching > 0)
		page = (int64_t)o->caching * (o->batch > 0 ? o->batch : 10);
	if (page > 100000)
		page = 100000;
	json_object_set_new(spec, "batch", json_integer(page));
	if (o->caching > 0)
		json_object_set_new(spec, "caching", json_integer(o->caching));
	json_object_set_new(spec, "maxVersions",
			    json_integer(ro->max_versions > 0 ? ro->max_versions
							      : INT32_MAX));
	if (ro->min_ts != 0)
		json_object_set_new(spec, "startTime", json_integer(ro->min_ts));
	if (ro->max_ts != INT64_MAX)
		json_object_set_new(spec, "endTime", json_integer(ro->max_ts));
	if (ro->ncolumns) {
		json_t *cols = json_array();
		columns_json(cols, ro);
		json_object_set_new(spec, "column", cols);
	}
	char *filter;
	int rc = filter_json(&filter, ro->filter);
	if (rc) {
		json_decref(spec);
		return rc;
	}
	if (filter)
		json_object_set_new(spec, "filter", json_string(filter));
	free(filter);
	char *body = json_dumps(spec, JSON_COMPACT);
	json_decref(spec);
	if (!body)
		return SBX_ENOMEM_SET();
	sbx_buf path = {0};
	sbx_buf_printf(&path, "%s/scanner", s->t->path);
	remote_resp r;
	rc = remote_request(s->t->db, "POST", remote_cstr(&path),
			    "application/json", body, strlen(body), false, &r);
	free(body);
	sbx_buf_free(&path);
	if (rc)
		return rc;
	char what[300];
	snprintf(what, sizeof what, "table '%.200s'", s->t->name);
	if (r.status != 201)
		rc = remote_status_error(s->t->db, &r, what);
	else if (!r.location || !(s->path = location_path(r.location)))
		rc = sbx_error_set(SBX_EREMOTE,
				   "%s created a scanner without a usable "
				   "Location header",
				   s->t->db->base);
	remote_resp_free(&r);
	return rc;
}

/* The whole result of a stateless scan, fetched at open. */
static int open_stateless(remote_scanner *s, const sbx_scan_opts *o)
{
	const sbx_read_opts *ro = &o->read;
	if (ro->filter)
		return sbx_error_set(SBX_EUNSUPPORTED,
				     "a reversed scan with a filter cannot be sent "
				     "over HBase REST: stateful scanners cannot "
				     "reverse, and the stateless scan takes filters "
				     "only as filter-language text");
	sbx_buf path = {0};
	sbx_buf_printf(&path, "%s/*?reversed=true", s->t->path);
	if (o->start_row_len) {
		sbx_buf_printf(&path, "&startrow=");
		remote_url_append(&path, o->start_row, o->start_row_len);
	}
	/* endrow is an exclusive low bound; an inclusive one is approached
	 * from its prefix and cut here. */
	if (o->stop_row_len && (!o->stop_inclusive || o->stop_row_len > 1)) {
		sbx_buf_printf(&path, "&endrow=");
		remote_url_append(&path, o->stop_row,
				  o->stop_row_len - (o->stop_inclusive ? 1 : 0));
	}
	for (size_t i = 0; i < ro->ncolumns; i++) {
		const sbx_column *c = &ro->columns[i];
		sbx_buf_printf(&path, "&column=");
		remote_url_append_str(&path, c->family);
		if (c->qualifier) {
			sbx_buf_printf(&path, "%%3A");
			remote_url_append(&path, c->qualifier, c->qualifier_len);
		}
	}
	sbx_buf_printf(&path, "&maxversions=%d",
			  ro->max_versions > 0 ? ro->max_versions : INT32_MAX);
	if (ro->min_ts != 0)
		sbx_buf_printf(&path, "&starttime=%lld", (long long)ro->min_ts);
	if (ro->max_ts != INT64_MAX)
		sbx_buf_printf(&path, "&endtime=%lld", (long long)ro->max_ts);
	if (o->limit > 0)
		sbx_buf_printf(&path, "&limit=%lld",
				  (long long)(o->limit + (o->start_inclusive ? 0 : 1)));
	remote_resp r;
	int rc = remote_request(s->t->db, "GET", remote_cstr(&path), NULL, NULL, 0,
				true, &r);
	sbx_buf_free(&path);
	if (rc)
		return rc;
	char what[300];
	snprintf(what, sizeof what, "table '%.200s'", s->t->name);
	if (r.status == 200)
		rc = remote_cellset_parse(&s->page, s->t->db, &r);
	else if (r.status != 204)
		rc = remote_status_error(s->t->db, &r, what);
	remote_resp_free(&r);
	s->exhausted = true;
	return rc;
}

static void scanner_free(remote_scanner *s)
{
	remote_cellset_free(&s->page);
	sbx_result_free(s->pending);
	sbx_result_free(s->ready);
	free(s->start);
	free(s->stop);
	free(s->path);
	free(s);
}

int remote_scanner_open(void **out, void *p, const sbx_scan_opts *o)
{
	*out = NULL;
	remote_table *t = p;
	if (o->read.raw)
		return sbx_error_set(SBX_EUNSUPPORTED,
				     "raw scans (delete markers and deleted "
				     "cells) are not part of HBase REST");
	remote_scanner *s = sbx_calloc(1, sizeof *s);
	if (!s)
		return SBX_ENOMEM_SET();
	s->t = t;
	s->start = dup_bytes(o->start_row, o->start_row_len);
	s->stop = dup_bytes(o->stop_row, o->stop_row_len);
	if (!s->start || !s->stop) {
		scanner_free(s);
		return SBX_ENOMEM_SET();
	}
	s->start_len = o->start_row_len;
	s->stop_len = o->stop_row_len;
	s->start_inclusive = o->start_inclusive;
	s->stop_inclusive = o->stop_inclusive;
	s->reversed = o->reversed;
	s->limit = o->limit;
	s->batch = o->batch;
	int rc = o->reversed ? open_stateless(s, o) : open_stateful(s, o);
	if (rc) {
		scanner_free(s);
		return rc;
	}
	*out = s;
	return SBX_OK;
}

/* Fetch the next page of a stateful scanner (204 = exhausted). */
static int fetch_page(remote_scanner *s)
{
	remote_cellset_free(&s->page);
	s->page_pos = 0;
	remote_resp r;
	int rc = remote_request(s->t->db, "GET", s->path, NULL, NULL, 0, true, &r);
	if (rc)
		return rc;
	char what[300];
	snprintf(what, sizeof what, "scanner on table '%.200s'", s->t->name);
	if (r.status == 204)
		s->exhausted = true;
	else if (r.status == 200)
		rc = remote_cellset_parse(&s->page, s->t->db, &r);
	else
		rc = remote_status_error(s->t->db, &r, what);
	remote_resp_free(&r);
	return rc;
}

static int add_row_cells(sbx_result *res, const remote_row *row)
{
	for (size_t i = 0; i < row->ncells; i++) {
		const remote_cell *c = &row->cells[i];
		int rc = result_add(res, c->family, strlen(c->family), c->qualifier,
				    c->qualifier_len, c->ts, SBX_CELL_PUT, c->value,
				    c->value_len);
		if (rc)
			return rc;
	}
	return SBX_OK;
}

/* The next whole row (NULL at the end), assembled from page rows. */
static int next_row(remote_scanner *s, sbx_result **out)
{
	*out = NULL;
	for (;;) {
		if (s->page_pos < s->page.nrows) {
			const remote_row *row = &s->page.rows[s->page_pos++];
			if (row->ncells == 0)
				continue;
			if (s->pending && s->pending->row_len == row->key_len &&
			    !memcmp(s->pending->arena.data, row->key, row->key_len)) {
				int rc = add_row_cells(s->pending, row);
				if (rc)
					return rc;
				continue;
			}
			sbx_result *done = s->pending;
			int rc = result_new(&s->pending, row->key, row->key_len);
			if (rc)
				return rc;
			if ((rc = add_row_cells(s->pending, row))) {
				sbx_result_free(done);
				return rc;
			}
			if (done) {
				*out = done;
				return result_finish(done);
			}
			continue;
		}
		if (!s->exhausted) {
			int rc = fetch_page(s);
			if (rc)
				return rc;
			continue;
		}
		*out = s->pending;
		s->pending = NULL;
		return *out ? result_finish(*out) : SBX_OK;
	}
}

/* The next `batch` cells of the ready row as their own result. */
static int next_chunk(remote_scanner *s, sbx_result **out)
{
	size_t n = sbx_result_size(s->ready);
	size_t take = s->batch > 0 && (size_t)s->batch < n - s->ready_pos
			      ? (size_t)s->batch
			      : n - s->ready_pos;
	if (s->ready_pos == 0 && take == n) {
		*out = s->ready;
		s->ready = NULL;
		return SBX_OK;
	}
	sbx_result *r;
	int rc = result_new(&r, s->ready->arena.data, s->ready->row_len);
	for (size_t i = 0; rc == SBX_OK && i < take; i++) {
		const sbx_cell *c = sbx_result_cell(s->ready, s->ready_pos + i);
		rc = result_add(r, c->family, c->family_len, c->qualifier,
				c->qualifier_len, c->timestamp, c->type, c->value,
				c->value_len);
	}
	rc = rc ? rc : result_finish(r);
	if (rc) {
		sbx_result_free(r);
		return rc;
	}
	s->ready_pos += take;
	if (s->ready_pos == n) {
		sbx_result_free(s->ready);
		s->ready = NULL;
	}
	*out = r;
	return SBX_OK;
}

int remote_scanner_next(void *p, sbx_result **out)
{
	remote_scanner *s = p;
	*out = NULL;
	while (!s->ready) {
		if (s->done || (s->limit > 0 && s->returned >= s->limit))
			return SBX_ITEROVER;
		sbx_result *row;
		int rc = next_row(s, &row);
		if (rc)
			return rc;
		if (!row) {
			s->done = true;
			return SBX_ITEROVER;
		}
		bound_verdict v = check_bounds(s, row->arena.data, row->row_len);
		if (v != ROW_TAKE) {
			sbx_result_free(row);
			s->done = v == ROW_END;
			continue;
		}
		s->ready = row;
		s->ready_pos = 0;
		s->returned++;
	}
	return next_chunk(s, out);
}

void remote_scanner_close(void *p)
{
	remote_scanner *s = p;
	if (!s)
		return;
	if (s->path) {
		remote_resp r;
		if (remote_request(s->t->db, "DELETE", s->path, NULL, NULL, 0, true,
				   &r) == SBX_OK)
			remote_resp_free(&r);
	}
	scanner_free(s);
}

int remote_get_by_scan(sbx_result **out, remote_table *t, const uint8_t *row,
		       size_t row_len, const sbx_read_opts *opts)
{
	*out = NULL;
	sbx_scan_opts o;
	model_get_scan_opts(&o, row, row_len, opts);
	void *s;
	int rc = remote_scanner_open(&s, t, &o);
	if (rc)
		return rc;
	sbx_result *r = NULL;
	rc = remote_scanner_next(s, &r);
	remote_scanner_close(s);
	if (rc == SBX_ITEROVER)
		rc = model_get_empty_result(&r, row, row_len);
	if (rc) {
		sbx_result_free(r);
		return rc;
	}
	*out = r;
	return SBX_OK;
}
