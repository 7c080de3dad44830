/*
 * h_row.c - /{t}/{rowspec}: cell reads (one row, a range or a prefix glob,
 * with columns, versions and time ranges), writes in every body format,
 * deletes, and the ?check= operations (put, delete, append, increment);
 * plus /{t}/multiget. Body rows and columns override the URL's, as HBase's
 * "false row key" batching relies on.
 */
#include "server/handlers.h"

#include "common/alloc.h"
#include "common/buf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const rest_fmt produces_cells[] = {REST_FMT_XML, REST_FMT_JSON,
					  REST_FMT_PB, REST_FMT_BINARY};

/* Versions from ?v=N (default 1). */
static bool query_versions(rest_request *rq, rest_response *rs, int *out)
{
	char err[REST_ERR_LEN];
	int64_t v = *out;
	if (rest_query_int64(rq, "v", &v, err))
		return rest_error(rs, 400, "%s", err), false;
	if (v < 1 || v > INT32_MAX)
		return rest_error(rs, 400, "v must be a positive integer"), false;
	*out = (int)v;
	return true;
}

static void read_opts_from_spec(sbx_read_opts *o, sbx_column *cols,
				const rest_rowspec *spec, int versions)
{
	sbx_read_opts_init(o);
	rest_columns_to_sbx(cols, spec->columns, spec->ncolumns);
	o->columns = spec->ncolumns ? cols : NULL;
	o->ncolumns = spec->ncolumns;
	o->max_versions = versions;
	if (spec->has_ts) {
		o->min_ts = spec->start_ts;
		o->max_ts = spec->end_ts;
	}
}

/* Errors of reads: a missing family is "Not found" like a missing row. */
static void read_error(rest_response *rs, int rc)
{
	rest_sbx_error(rs, rc);
}

static void row_get_binary(rest_request *rq, rest_response *rs, sbx_table *t,
			   const sbx_read_opts *o)
{
	const rest_rowspec *spec = &rq->route.spec;
	if (spec->ncolumns != 1)
		return rest_error(rs, 400, "application/octet-stream needs exactly "
					   "one column in the path");
	sbx_result *r;
	int rc = sbx_table_get(&r, t, spec->row.data, spec->row.len, o);
	if (rc)
		return read_error(rs, rc);
	if (sbx_result_size(r) == 0) {
		sbx_result_free(r);
		return rest_error(rs, 404, "no cell at this row and column");
	}
	const sbx_cell *c = sbx_result_cell(r, 0);
	sbx_buf_set(&rs->body, c->value, c->value_len);
	char ts[24];
	snprintf(ts, sizeof ts, "%lld", (long long)c->timestamp);
	rest_set_header(rs, "X-Timestamp", ts);
	sbx_result_free(r);
}

static void row_get_range(rest_request *rq, rest_response *rs, sbx_table **t,
			  rest_fmt fmt, const sbx_read_opts *o)
{
	const rest_rowspec *spec = &rq->route.spec;
	sbx_scan_opts so;
	sbx_scan_opts_init(&so);
	so.read = *o;
	uint8_t *stop = NULL;
	so.start_row = spec->row.data;
	so.start_row_len = spec->row.len;
	if (spec->is_glob) {
		stop = sbx_malloc(spec->row.len + 1);
		if (!stop)
			return rest_error(rs, 503, "out of memory");
		sbx_scan_opts_set_prefix(&so, spec->row.data, spec->row.len, stop);
	} else {
		so.stop_row = spec->end_row.data;
		so.stop_row_len = spec->end_row.len;
	}
	sbx_scanner *s;
	int rc = sbx_scanner_open(&s, *t, &so);
	free(stop); /* bounds are copied by open */
	if (rc)
		return read_error(rs, rc);
	sbx_result *first = NULL;
	rc = sbx_scanner_next(s, &first);
	if (rc == SBX_ITEROVER || (rc == SBX_OK && sbx_result_size(first) == 0)) {
		sbx_result_free(first);
		sbx_scanner_close(s);
		return rest_error(rs, 404, "no rows in this range");
	}
	if (rc) {
		sbx_scanner_close(s);
		return read_error(rs, rc);
	}
	rest_stream_scan(rq->srv, rs, fmt, false, *t, s, NULL, first);
	*t = NULL; /* owned by the stream now */
}

static void row_get(rest_request *rq, rest_response *rs, sbx_table **t)
{
	rest_fmt fmt;
	int versions = 1;
	if (!rest_accept(rq, rs, produces_cells, 4, &fmt) ||
	    !query_versions(rq, rs, &versions))
		return;
	const rest_rowspec *spec = &rq->route.spec;
	sbx_column *cols = sbx_calloc(spec->ncolumns + 1, sizeof *cols);
	if (!cols)
		return rest_error(rs, 503, "out of memory");
	sbx_read_opts o;
	read_opts_from_spec(&o, cols, spec, versions);
	if (fmt == REST_FMT_BINARY)
		row_get_binary(rq, rs, *t, &o);
	else if (spec->is_glob || spec->is_range)
		row_get_range(rq, rs, t, fmt, &o);
	else {
		sbx_result *r;
		int rc = sbx_table_get(&r, *t, spec->row.data, spec->row.len, &o);
		if (rc)
			read_error(rs, rc);
		else if (sbx_result_size(r) == 0)
			rest_error(rs, 404, "row not found");
		else {
			rest_cellset_writer w;
			rest_cellset_open(&w, &rs->body, fmt);
			rest_cellset_add(&w, &rs->body, r, 0, sbx_result_size(r));
			rest_cellset_close(&w, &rs->body);
			rest_cellset_writer_free(&w);
		}
		sbx_result_free(r);
	}
	free(cols);
}

/* ---- writes ------------------------------------------------------------------ */

/* The column of body cell i: its own, else the i-th URL column. */
static int cell_column(rest_request *rq, rest_response *rs, const rest_cell *c,
		       size_t i, char *family, const uint8_t **q, size_t *qlen,
		       sbx_buf *tmp)
{
	const rest_rowspec *spec = &rq->route.spec;
	const uint8_t *col = c->column.data;
	size_t len = c->column.len;
	if (!c->has_column) {
		if (i >= spec->ncolumns || !spec->columns[i].has_qualifier) {
			rest_error(rs, 400, "cell %zu has no column", i);
			return SBX_EPARSE;
		}
		tmp->len = 0;
		rest_buf_puts(tmp, spec->columns[i].family);
		sbx_buf_push(tmp, ':');
		sbx_buf_append(tmp, spec->columns[i].qualifier,
			       spec->columns[i].qualifier_len);
		col = tmp->data;
		len = tmp->len;
	}
	int rc = rest_split_column(col ? col : (const uint8_t *)"", len, family,
				   q, qlen);
	if (rc == SBX_EPARSE)
		rest_error(rs, 400, "column '%.*s' is not family:qualifier",
			   (int)(len > 64 ? 64 : len), (const char *)col);
	else if (rc)
		rest_error(rs, 404, "no such column family in '%.*s'",
			   (int)(len > 64 ? 64 : len), (const char *)col);
	return rc;
}

static int row_key(rest_request *rq, rest_response *rs, const rest_row *row,
		   const uint8_t **key, size_t *len)
{
	const rest_rowspec *spec = &rq->route.spec;
	if (row->has_key) {
		*key = row->key.data ? row->key.data : (const uint8_t *)"";
		*len = row->key.len;
	} else {
		*key = spec->row.data;
		*len = spec->row.len;
	}
	if (*len == 0) {
		rest_error(rs, 400, "row key is missing or empty");
		return SBX_EPARSE;
	}
	return SBX_OK;
}

/* Build the put mutation of body row r (cells [0, ncells)). */
static int build_put(rest_request *rq, rest_response *rs, const rest_row *r,
		     size_t ncells, sbx_mutation **out)
{
	const uint8_t *key;
	size_t klen;
	int rc = row_key(rq, rs, r, &key, &klen);
	if (rc)
		return rc;
	if ((rc = sbx_mutation_new(out, key, klen))) {
		rest_sbx_error(rs, rc);
		return rc;
	}
	sbx_buf tmp = {0};
	for (size_t i = 0; i < ncells && rc == SBX_OK; i++) {
		const rest_cell *c = &r->cells[i];
		char family[SBX_MAX_FAMILY_NAME + 1];
		const uint8_t *q;
		size_t qlen;
		rc = cell_column(rq, rs, c, i, family, &q, &qlen, &tmp);
		if (rc == SBX_OK) {
			int64_t ts = c->has_timestamp ? c->timestamp
						      : SBX_LATEST_TIMESTAMP;
			rc = sbx_mutation_put(*out, family, q, qlen, ts,
					      c->value.data, c->value.len);
			if (rc)
				rest_sbx_error(rs, rc);
		}
	}
	sbx_buf_free(&tmp);
	if (rc) {
		sbx_mutation_free(*out);
		*out = NULL;
	}
	return rc;
}

static void put_cellset(rest_request *rq, rest_response *rs, sbx_table *t,
			const rest_cellset *cs)
{
	if (cs->nrows == 0)
		return rest_error(rs, 400, "the CellSet has no rows");
	sbx_mutation **ms = sbx_calloc(cs->nrows, sizeof *ms);
	if (!ms)
		return rest_error(rs, 503, "out of memory");
	int rc = SBX_OK;
	size_t n = 0;
	for (; n < cs->nrows && rc == SBX_OK; n++) {
		rc = build_put(rq, rs, &cs->rows[n], cs->rows[n].ncells, &ms[n]);
		if (rc == SBX_OK && cs->rows[n].ncells == 0) {
			rest_error(rs, 400, "row %zu has no cells", n);
			rc = SBX_EPARSE;
		}
	}
	if (rc == SBX_OK) {
		rest_commit_write(rq, rs, t, ms, n, NULL);
		if (rs->deferred)
			return; /* ms is the group commit's now */
	}
	for (size_t i = 0; i < n; i++)
		sbx_mutation_free(ms[i]);
	free(ms);
}

/* Content-Type: application/octet-stream: the body is one cell's value. */
static void put_binary(rest_request *rq, rest_response *rs, sbx_table *t)
{
	rest_cellset cs = {0};
	rest_row row = {0};
	rest_cell cell = {0};
	const char *xrow = rest_header(rq, "X-Row");
	const char *xcol = rest_header(rq, "X-Column");
	const char *xts = rest_header(rq, "X-Timestamp");
	if (xrow) {
		row.has_key = true;
		sbx_buf_set(&row.key, xrow, strlen(xrow));
	}
	if (xcol) {
		cell.has_column = true;
		sbx_buf_set(&cell.column, xcol, strlen(xcol));
	}
	if (xts) {
		char *end;
		errno = 0;
		cell.timestamp = strtoll(xts, &end, 10);
		if (!*xts || *end || *xts == ' ' || *xts == '+') {
			rest_error(rs, 400, "X-Timestamp must be an integer");
			goto out;
		}
		if (errno == ERANGE || cell.timestamp < 0) {
			rest_error(rs, 400, "X-Timestamp %.32s is out of range "
					    "(0 to 9223372036854775807)", xts);
			goto out;
		}
		cell.has_timestamp = true;
	}
	cell.value.data = (uint8_t *)rq->body;
	cell.value.len = rq->body_len;
	row.cells = &cell;
	row.ncells = 1;
	cs.rows = &row;
	cs.nrows = 1;
	put_cellset(rq, rs, t, &cs);
out:
	sbx_buf_free(&row.key);
	sbx_buf_free(&cell.column);
}

/* ---- check-and-mutate, increment, append --------------------------------------- */

/* HBase's checkAndMutate with the checked cell's value (an empty value:
 * the column must be absent): 200 when the mutation ran, 304 when the
 * check failed. */
static void check_and_mutate(rest_response *rs, sbx_table *t,
			     const uint8_t *key, size_t klen,
			     const char *family, const uint8_t *q, size_t qlen,
			     const rest_cell *chk, const sbx_mutation *m)
{
	sbx_check check = {family, q, qlen, SBX_CMP_EQUAL,
			   chk->value.data ? (const void *)chk->value.data
					   : (const void *)"",
			   chk->value.len};
	bool ok = false;
	int rc = sbx_table_check_and_mutate(&ok, NULL, t, key, klen, &check, m);
	if (rc)
		rest_sbx_error(rs, rc);
	else
		rest_empty(rs, ok ? 200 : 304);
}

static void check_put(rest_request *rq, rest_response *rs, sbx_table *t,
		      const rest_cellset *cs)
{
	const rest_row *r = &cs->rows[0];
	if (r->ncells < 2)
		return rest_error(rs, 400, "check=put needs the cells to put and "
					   "a last cell to check");
	char family[SBX_MAX_FAMILY_NAME + 1];
	const uint8_t *q;
	size_t qlen;
	sbx_buf tmp = {0};
	const rest_cell *chk = &r->cells[r->ncells - 1];
	int rc = cell_column(rq, rs, chk, r->ncells - 1, family, &q, &qlen, &tmp);
	sbx_mutation *m = NULL;
	if (rc == SBX_OK)
		rc = build_put(rq, rs, r, r->ncells - 1, &m);
	/* The checked column must be one of the columns put. */
	bool found = false;
	for (size_t i = 0; rc == SBX_OK && i + 1 < r->ncells; i++) {
		const rest_cell *c = &r->cells[i];
		if (c->has_column == chk->has_column && c->column.len == chk->column.len &&
		    (c->column.len == 0 ||
		     !memcmp(c->column.data, chk->column.data, c->column.len)))
			found = true;
	}
	if (rc == SBX_OK && !found) {
		rest_error(rs, 400, "The column to put and check do not match");
		rc = SBX_EPARSE;
	}
	if (rc == SBX_OK) {
		const uint8_t *key;
		size_t klen;
		row_key(rq, rs, r, &key, &klen);
		check_and_mutate(rs, t, key, klen, family, q, qlen, chk, m);
	}
	sbx_mutation_free(m);
	sbx_buf_free(&tmp);
}

static void check_delete(rest_request *rq, rest_response *rs, sbx_table *t,
			 const rest_cellset *cs)
{
	const rest_row *r = &cs->rows[0];
	if (r->ncells < 1)
		return rest_error(rs, 400, "check=delete needs a last cell to check");
	const uint8_t *key;
	size_t klen;
	if (row_key(rq, rs, r, &key, &klen))
		return;
	char family[SBX_MAX_FAMILY_NAME + 1], dfam[SBX_MAX_FAMILY_NAME + 1];
	const uint8_t *q, *dq;
	size_t qlen, dqlen;
	sbx_buf tmp = {0}, tmp2 = {0};
	const rest_cell *chk = &r->cells[r->ncells - 1];
	int rc = cell_column(rq, rs, chk, 0, family, &q, &qlen, &tmp);
	sbx_mutation *m = NULL;
	if (rc == SBX_OK && (rc = sbx_mutation_new(&m, key, klen)))
		rest_sbx_error(rs, rc);
	for (size_t i = 0; rc == SBX_OK && i + 1 < r->ncells; i++) {
		const rest_cell *c = &r->cells[i];
		int64_t ts = c->has_timestamp ? c->timestamp : SBX_LATEST_TIMESTAMP;
		if (c->has_column && !memchr(c->column.data, ':', c->column.len)) {
			/* A bare family: delete the whole family. */
			if (c->column.len == 0 || c->column.len > SBX_MAX_FAMILY_NAME) {
				rest_error(rs, 404, "no such column family");
				rc = SBX_ENOFAMILY;
				break;
			}
			memcpy(dfam, c->column.data, c->column.len);
			dfam[c->column.len] = 0;
			rc = sbx_mutation_delete(m, SBX_CELL_DELETE_FAMILY, dfam,
						 NULL, 0, ts);
		} else {
			rc = cell_column(rq, rs, c, i, dfam, &dq, &dqlen, &tmp2);
			if (rc == SBX_OK)
				rc = sbx_mutation_delete(m, SBX_CELL_DELETE_COLUMN,
							 dfam, dq, dqlen, ts);
		}
		if (rc && rs->status == 200)
			rest_sbx_error(rs, rc);
	}
	if (rc == SBX_OK && r->ncells == 1 &&
	    (rc = sbx_mutation_delete(m, SBX_CELL_DELETE_COLUMN, family, q, qlen,
				      SBX_LATEST_TIMESTAMP)))
		rest_sbx_error(rs, rc);
	if (rc == SBX_OK)
		check_and_mutate(rs, t, key, klen, family, q, qlen, chk, m);
	sbx_mutation_free(m);
	sbx_buf_free(&tmp);
	sbx_buf_free(&tmp2);
}

static bool parse_delta(const sbx_buf *v, int64_t *out)
{
	char tmp[24];
	if (v->len == 0 || v->len >= sizeof tmp)
		return false;
	memcpy(tmp, v->data, v->len);
	tmp[v->len] = 0;
	char *end;
	*out = strtoll(tmp, &end, 10);
	return *end == 0 && tmp[0] != ' ' && tmp[0] != '+';
}

static void increment_append(rest_request *rq, rest_response *rs, sbx_table *t,
			     const rest_cellset *cs, bool increment)
{
	const rest_row *r = &cs->rows[0];
	if (r->ncells == 0)
		return rest_error(rs, 400, "no cells to %s",
				  increment ? "increment" : "append");
	const uint8_t *key;
	size_t klen;
	if (row_key(rq, rs, r, &key, &klen))
		return;
	sbx_mutation *m;
	int rc = sbx_mutation_new(&m, key, klen);
	if (rc)
		return rest_sbx_error(rs, rc);
	sbx_buf tmp = {0};
	for (size_t i = 0; rc == SBX_OK && i < r->ncells; i++) {
		const rest_cell *c = &r->cells[i];
		char family[SBX_MAX_FAMILY_NAME + 1];
		const uint8_t *q;
		size_t qlen;
		if ((rc = cell_column(rq, rs, c, i, family, &q, &qlen, &tmp)))
			break;
		int64_t delta;
		if (increment && !parse_delta(&c->value, &delta)) {
			rest_error(rs, 400, "increment values must be decimal "
					    "integers (base64 of e.g. \"5\")");
			rc = SBX_EPARSE;
			break;
		}
		rc = increment ? sbx_mutation_increment(m, family, q, qlen, delta)
			       : sbx_mutation_append(m, family, q, qlen,
						     c->value.data, c->value.len);
		if (rc)
			rest_sbx_error(rs, rc);
	}
	sbx_result *res = NULL;
	if (rc == SBX_OK) {
		rc = sbx_table_mutate(&res, t, m);
		if (rc)
			rest_sbx_error(rs, rc);
	}
	const rest_arg *ret = rest_query(rq, "returnResults");
	bool want = ret && !strcasecmp((const char *)ret->value.data, "true");
	if (rc == SBX_OK && want) {
		rest_fmt fmt;
		static const rest_fmt produces[] = {REST_FMT_XML, REST_FMT_JSON,
						    REST_FMT_PB};
		if (!res || sbx_result_size(res) == 0)
			rest_empty(rs, 304);
		else if (rest_accept(rq, rs, produces, 3, &fmt)) {
			rest_cellset_writer w;
			rest_cellset_open(&w, &rs->body, fmt);
			rest_cellset_add(&w, &rs->body, res, 0, sbx_result_size(res));
			rest_cellset_close(&w, &rs->body);
			rest_cellset_writer_free(&w);
		}
	} else if (rc == SBX_OK) {
		rest_empty(rs, 200);
	}
	sbx_result_free(res);
	sbx_mutation_free(m);
	sbx_buf_free(&tmp);
}

static void row_put(rest_request *rq, rest_response *rs, sbx_table *t)
{
	if (rq->route.spec.is_glob || rq->route.spec.is_range)
		return rest_error(rs, 400, "cannot write to a row range or glob");
	rest_fmt fmt;
	if (!rest_body_fmt(rq, rs, &fmt, true))
		return;
	const rest_arg *check = rest_query(rq, "check");
	if (fmt == REST_FMT_BINARY) {
		if (check)
			return rest_error(rs, 400, "check= needs a CellSet body");
		return put_binary(rq, rs, t);
	}
	char err[REST_ERR_LEN] = "";
	rest_cellset cs;
	int drc = rest_cellset_decode(&cs, fmt, rq->body, rq->body_len, err);
	if (drc == SBX_ENOMEM)
		return rest_error(rs, 503, "out of memory");
	if (drc)
		return rest_error(rs, 400, "%s", err);
	const char *op = check ? (const char *)check->value.data : NULL;
	if (op && cs.nrows != 1)
		rest_error(rs, 400, "check=%s needs exactly one row", op);
	else if (!op)
		put_cellset(rq, rs, t, &cs);
	else if (!strcasecmp(op, "put"))
		check_put(rq, rs, t, &cs);
	else if (!strcasecmp(op, "delete"))
		check_delete(rq, rs, t, &cs);
	else if (!strcasecmp(op, "increment"))
		increment_append(rq, rs, t, &cs, true);
	else if (!strcasecmp(op, "append"))
		increment_append(rq, rs, t, &cs, false);
	else
		rest_error(rs, 400, "unknown check '%s' (put, delete, append, "
				    "increment)", op);
	rest_cellset_free(&cs);
}

/* DELETE /t/<star>/... with X-Saltbox-Row: the row, base64 (docs/rest.md):
 * the extension that deletes a row no path can name (one ending in '*',
 * a resource name, or a key too long for a URL). HBase's gateway answers
 * this path without deleting anything (it names the empty row). */
static int extension_row(rest_request *rq, rest_response *rs, sbx_buf *row)
{
	const char *h = rest_header(rq, "X-Saltbox-Row");
	if (!h) {
		rest_error(rs, 400, "cannot delete a row range or glob");
		return -1;
	}
	if (rest_b64_decode(row, h, strlen(h)) || row->len == 0) {
		rest_error(rs, 400, "X-Saltbox-Row must be a non-empty row key "
				    "in base64");
		return -1;
	}
	if (row->len > SBX_MAX_ROW_LENGTH) {
		rest_error(rs, 400, "row key longer than %d bytes",
			   SBX_MAX_ROW_LENGTH);
		return -1;
	}
	return 0;
}

/* A column delete naming a family the table lacks is HBase's 404. */
static void delete_columns_answer(rest_response *rs, int rc)
{
	if (rc == SBX_EINVAL)
		rest_error(rs, 404, "%s", sbx_errmsg());
	else
		rest_write_answer(rs, rc);
}

static void row_delete(rest_request *rq, rest_response *rs, sbx_table *t)
{
	const rest_rowspec *spec = &rq->route.spec;
	sbx_buf xrow = {0};
	const uint8_t *row = spec->row.data;
	size_t row_len = spec->row.len;
	if (spec->is_glob && !spec->is_range && spec->row.len == 0) {
		if (extension_row(rq, rs, &xrow)) {
			sbx_buf_free(&xrow);
			return;
		}
		row = xrow.data;
		row_len = xrow.len;
	} else if (spec->is_glob || spec->is_range) {
		return rest_error(rs, 400, "cannot delete a row range or glob");
	}
	int64_t ts = spec->has_ts ? spec->end_ts : SBX_LATEST_TIMESTAMP;
	sbx_mutation *m;
	int rc = sbx_mutation_new(&m, row, row_len);
	sbx_buf_free(&xrow);
	if (rc)
		return rest_sbx_error(rs, rc);
	if (spec->ncolumns == 0)
		rc = sbx_mutation_delete_row(m, ts);
	for (size_t i = 0; i < spec->ncolumns && rc == SBX_OK; i++) {
		const rest_column *c = &spec->columns[i];
		if (!c->has_qualifier)
			rc = sbx_mutation_delete(m, SBX_CELL_DELETE_FAMILY, c->family,
						 NULL, 0, ts);
		else
			rc = sbx_mutation_delete(m, SBX_CELL_DELETE_COLUMN, c->family,
						 c->qualifier ? (const void *)c->qualifier
							      : (const void *)"",
						 c->qualifier_len, ts);
	}
	rest_answer_fn answer = spec->ncolumns ? delete_columns_answer : NULL;
	sbx_mutation **ms = rc ? NULL : sbx_calloc(1, sizeof *ms);
	if (ms) {
		ms[0] = m;
		rest_commit_write(rq, rs, t, ms, 1, answer);
		if (rs->deferred)
			return; /* ms is the group commit's now */
	} else if (!rc) {
		rest_error(rs, 503, "out of memory");
	} else {
		(answer ? answer : rest_write_answer)(rs, rc);
	}
	free(ms);
	sbx_mutation_free(m);
}

void h_row(rest_request *rq, rest_response *rs)
{
	if (!rest_allow(rq, rs, ALLOW_GET | ALLOW_PUT | ALLOW_POST | ALLOW_DELETE))
		return;
	sbx_table *t;
	if (rest_open_table(&t, rq, rs))
		return;
	if (rq->method == METHOD_PUT || rq->method == METHOD_POST)
		row_put(rq, rs, t);
	else if (rq->method == METHOD_DELETE)
		row_delete(rq, rs, t);
	else
		row_get(rq, rs, &t);
	if (!rs->deferred) /* else the group commit releases it */
		rest_table_release(rq->srv, t, rs->sbx_status == SBX_ENOTFOUND);
}

/* ---- multiget ------------------------------------------------------------------ */

void h_multiget(rest_request *rq, rest_response *rs)
{
	static const rest_fmt produces[] = {REST_FMT_XML, REST_FMT_JSON,
					    REST_FMT_PB};
	rest_fmt fmt;
	int versions = 1;
	if (!rest_allow(rq, rs, ALLOW_GET) || !rest_accept(rq, rs, produces, 3, &fmt) ||
	    !query_versions(rq, rs, &versions))
		return;
	sbx_table *t;
	if (rest_open_table(&t, rq, rs))
		return;
	rest_cellset_writer w;
	rest_cellset_open(&w, &rs->body, fmt);
	size_t found = 0;
	int rc = SBX_OK;
	for (size_t i = 0; i < rq->nargs && rc == SBX_OK; i++) {
		if (strcmp(rq->args[i].key, "row"))
			continue;
		char err[REST_ERR_LEN] = "";
		rest_rowspec spec;
		if (rest_rowspec_parse(&spec, (const char *)rq->args[i].value.data,
				       rq->args[i].value.len, false, err)) {
			rest_error(rs, 400, "%s", err);
			rest_rowspec_free(&spec);
			rc = SBX_EPARSE;
			break;
		}
		const rest_rowspec *cols = spec.ncolumns ? &spec : &rq->route.spec;
		sbx_column *sc = sbx_calloc(cols->ncolumns + 1, sizeof *sc);
		sbx_read_opts o;
		read_opts_from_spec(&o, sc, cols, versions);
		if (spec.has_ts) {
			o.min_ts = spec.start_ts;
			o.max_ts = spec.end_ts;
		}
		sbx_result *r = NULL;
		rc = sc ? sbx_table_get(&r, t, spec.row.data, spec.row.len, &o)
			: SBX_ENOMEM;
		if (rc)
			read_error(rs, rc);
		else if (sbx_result_size(r) > 0) {
			rest_cellset_add(&w, &rs->body, r, 0, sbx_result_size(r));
			found++;
		}
		sbx_result_free(r);
		free(sc);
		rest_rowspec_free(&spec);
	}
	if (rc == SBX_OK) {
		rest_cellset_close(&w, &rs->body);
		if (found == 0)
			rest_error(rs, 404, "No rows found.");
	}
	rest_cellset_writer_free(&w);
	rest_table_release(rq->srv, t, rs->sbx_status == SBX_ENOTFOUND);
}
