/*
 * data.c - table handles, mutations, check-and-mutate and gets over HBase
 * REST. A mutation becomes at most one request per kind, sent in the order
 * increments, appends, deletes, puts: each request is atomic for its row,
 * the mutation as a whole is not (REST has no RowMutations). Delete markers
 * REST cannot express (one version: Delete; DeleteFamilyVersion) are
 * refused before anything is sent.
 */
#include "common/bytes.h"
#include "remote/remote.h"

#include "common/alloc.h"
#include "common/base64.h"
#include "common/error.h"
#include "model/mutation.h"
#include "model/result.h"
#include "model/rules.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- table handles ------------------------------------------------------------ */

int remote_table_open(void **out, void *p, const char *name)
{
	*out = NULL;
	bool exists;
	int rc = remote_table_exists(p, name, &exists);
	if (rc)
		return rc;
	if (!exists)
		return sbx_error_set(SBX_ENOTFOUND, "table '%s' does not exist",
				     name);
	remote_table *t = sbx_calloc(1, sizeof *t);
	if (!t || !(t->name = sbx_strdup(name)) ||
	    !(t->path = remote_table_path(name))) {
		if (t)
			free(t->name);
		free(t);
		return SBX_ENOMEM_SET();
	}
	t->db = p;
	*out = t;
	return SBX_OK;
}

void remote_table_close(void *p)
{
	remote_table *t = p;
	if (!t)
		return;
	free(t->name);
	free(t->path);
	free(t);
}

/* ---- paths ---------------------------------------------------------------------- */

/* Longest row key sent in a URL path; longer keys travel in the body. */
#define MAX_PATH_ROW 2048

/* A row key the gateway would read as something else in a path: a
 * resource name after the table, a suffix glob, or too long. */
static bool row_path_unsafe(const uint8_t *row, size_t len)
{
	static const char *reserved[] = {"schema", "regions", "scanner", "exists",
					 "multiget"};
	if (len == 0 || len > MAX_PATH_ROW || row[len - 1] == '*')
		return true;
	for (size_t i = 0; i < sizeof reserved / sizeof reserved[0]; i++)
		if (strlen(reserved[i]) == len && !memcmp(reserved[i], row, len))
			return true;
	return false;
}

/* "<table path>/<row>" for writes: an unsafe row becomes a placeholder
 * the body's row key overrides (HBase's "false row key"). */
static int row_path(sbx_buf *b, const remote_table *t, const uint8_t *row,
		    size_t len)
{
	b->len = 0;
	int rc = sbx_buf_printf(b, "%s/", t->path);
	if (rc == SBX_OK)
		rc = row_path_unsafe(row, len) ? sbx_buf_printf(b, "_")
					       : remote_url_append(b, row, len);
	return rc;
}

/* "family:qualifier" bytes. */
static int column_bytes(sbx_buf *b, const char *family, const uint8_t *q,
			size_t qlen)
{
	b->len = 0;
	if (sbx_buf_append(b, family, strlen(family)) || sbx_buf_push(b, ':') ||
	    sbx_buf_append(b, q, qlen))
		return SBX_ENOMEM_SET();
	return SBX_OK;
}

static json_t *cell_json(const char *family, const uint8_t *q, size_t qlen,
			 int64_t ts, const void *value, size_t vlen)
{
	sbx_buf col = {0};
	json_t *c = NULL;
	if (column_bytes(&col, family, q, qlen) == SBX_OK) {
		c = json_object();
		json_object_set_new(c, "column", remote_b64_json(col.data, col.len));
		if (ts != SBX_LATEST_TIMESTAMP)
			json_object_set_new(c, "timestamp", json_integer(ts));
		json_object_set_new(c, "$", remote_b64_json(value, vlen));
	}
	sbx_buf_free(&col);
	return c;
}

static json_t *row_json(const uint8_t *row, size_t len, json_t *cells)
{
	return json_pack("{s:o, s:o}", "key", remote_b64_json(row, len), "Cell",
			 cells);
}

/* Send a CellSet body; `ok` is the success status besides 200. */
static int send_cellset(remote_table *t, const char *method, const char *path,
			json_t *cellset, bool idempotent, remote_resp *r)
{
	char *body = cellset ? json_dumps(cellset, JSON_COMPACT) : NULL;
	json_decref(cellset);
	if (!body)
		return SBX_ENOMEM_SET();
	int rc = remote_request(t->db, method, path, "application/json", body,
				strlen(body), idempotent, r);
	free(body);
	return rc;
}

static int table_error(remote_table *t, const remote_resp *r)
{
	char what[300];
	snprintf(what, sizeof what, "table '%.200s'", t->name);
	return remote_status_error(t->db, r, what);
}

/* ---- mutations ------------------------------------------------------------------ */

static int check_expressible(const sbx_mutation *m)
{
	for (size_t i = 0; i < m->nops; i++) {
		const mut_op *op = &m->ops[i];
		if (op->kind != MUT_DELETE)
			continue;
		if (op->del_type == SBX_CELL_DELETE)
			return sbx_error_set(
				SBX_EUNSUPPORTED,
				"HBase REST cannot delete one version of a column "
				"(Delete/addColumn): its DELETE deletes all "
				"versions <= ts (DeleteColumn), a family or a row");
		if (op->del_type == SBX_CELL_DELETE_FAMILY_VERSION)
			return sbx_error_set(
				SBX_EUNSUPPORTED,
				"HBase REST cannot express DeleteFamilyVersion; "
				"its DELETE deletes all versions <= ts of a "
				"column, a family or a row");
	}
	return SBX_OK;
}

/* Cells of every put in m, as JSON. */
static json_t *put_cells(const sbx_mutation *m)
{
	json_t *cells = json_array();
	for (size_t i = 0; cells && i < m->nops; i++) {
		const mut_op *op = &m->ops[i];
		if (op->kind == MUT_PUT)
			json_array_append_new(cells,
					      cell_json(mut_family(m, op),
							mut_qual(m, op), op->qual_len,
							op->ts, mut_value(m, op),
							op->value_len));
	}
	return cells;
}

static int send_puts(remote_table *t, const sbx_mutation *m)
{
	sbx_buf path = {0};
	int rc = row_path(&path, t, mut_row(m), m->row_len);
	json_t *cs = json_pack("{s:[o]}", "Row",
			       row_json(mut_row(m), m->row_len, put_cells(m)));
	remote_resp r;
	if (rc == SBX_OK)
		rc = send_cellset(t, "PUT", remote_cstr(&path), cs, true, &r);
	else
		json_decref(cs);
	sbx_buf_free(&path);
	if (rc)
		return rc;
	if (r.status != 200)
		rc = table_error(t, &r);
	remote_resp_free(&r);
	return rc;
}

/* The header that names a row a DELETE path cannot (row_path_unsafe):
 * saltbox serve's extension (docs/rest.md), sent with the path's row "*",
 * which HBase's own gateway refuses without deleting anything. */
#define ROW_HEADER "X-Saltbox-Row: "

/* One DELETE request: the whole row, or a list of columns/families that
 * share a timestamp. */
static int send_delete(remote_table *t, const sbx_mutation *m, bool whole_row,
		       const size_t *ops, size_t nops, int64_t ts)
{
	sbx_buf path = {0}, hdr = {0};
	bool unsafe = row_path_unsafe(mut_row(m), m->row_len);
	int rc = sbx_buf_printf(&path, "%s/", t->path);
	if (unsafe) {
		rc = rc ? rc : sbx_buf_printf(&path, "*");
		rc = rc ? rc : sbx_buf_printf(&hdr, "%s", ROW_HEADER);
		rc = rc ? rc : sbx_base64_encode(&hdr, mut_row(m), m->row_len);
	} else {
		rc = rc ? rc : remote_url_append(&path, mut_row(m), m->row_len);
	}
	rc = rc ? rc : sbx_buf_push(&path, '/');
	for (size_t i = 0; rc == SBX_OK && !whole_row && i < nops; i++) {
		const mut_op *op = &m->ops[ops[i]];
		if (i)
			rc = sbx_buf_push(&path, ',');
		rc = rc ? rc : remote_url_append_str(&path, mut_family(m, op));
		if (rc == SBX_OK && op->del_type == SBX_CELL_DELETE_COLUMN) {
			rc = sbx_buf_printf(&path, "%%3A");
			rc = rc ? rc
				: remote_url_append(&path, mut_qual(m, op),
						    op->qual_len);
		}
	}
	if (rc == SBX_OK && ts != SBX_LATEST_TIMESTAMP)
		rc = sbx_buf_printf(&path, "/%lld", (long long)ts);
	remote_resp r;
	if (rc == SBX_OK)
		rc = remote_request_hdr(t->db, "DELETE", remote_cstr(&path),
					unsafe ? remote_cstr(&hdr) : NULL, NULL,
					NULL, 0, true, &r);
	sbx_buf_free(&path);
	sbx_buf_free(&hdr);
	if (rc)
		return rc;
	if (r.status != 200 && unsafe && r.status != 404)
		rc = sbx_error_set(
			SBX_EUNSUPPORTED,
			"row '%.*s' cannot be deleted over HBase REST (in a "
			"DELETE path it names another resource) and the "
			"gateway at %s refused saltbox serve's X-Saltbox-Row "
			"header (HTTP %ld)",
			(int)(m->row_len > 64 ? 64 : m->row_len),
			(const char *)mut_row(m), t->db->base, r.status);
	else if (r.status != 200)
		rc = table_error(t, &r);
	remote_resp_free(&r);
	return rc;
}

static int send_deletes(remote_table *t, const sbx_mutation *m)
{
	size_t *group = sbx_calloc(m->nops + 1, sizeof *group);
	bool *done = sbx_calloc(m->nops + 1, sizeof *done);
	int rc = group && done ? SBX_OK : SBX_ENOMEM_SET();
	for (size_t i = 0; rc == SBX_OK && i < m->nops; i++) {
		const mut_op *op = &m->ops[i];
		if (done[i] || (op->kind != MUT_DELETE && op->kind != MUT_DELETE_ROW))
			continue;
		if (op->kind == MUT_DELETE_ROW) {
			rc = send_delete(t, m, true, NULL, 0, op->ts);
			continue;
		}
		size_t n = 0;
		for (size_t j = i; j < m->nops; j++)
			if (!done[j] && m->ops[j].kind == MUT_DELETE &&
			    m->ops[j].ts == op->ts) {
				group[n++] = j;
				done[j] = true;
			}
		rc = send_delete(t, m, false, group, n, op->ts);
	}
	free(group);
	free(done);
	return rc;
}

/* Increments (deltas as decimal text) or appends, one cell per column
 * (repeats merged here: summed deltas, concatenated values). */
static json_t *rmw_cells(const sbx_mutation *m, mut_kind kind)
{
	json_t *cells = json_array();
	bool *done = sbx_calloc(m->nops + 1, sizeof *done);
	sbx_buf val = {0};
	for (size_t i = 0; cells && done && i < m->nops; i++) {
		const mut_op *op = &m->ops[i];
		if (op->kind != kind || done[i])
			continue;
		int64_t delta = 0;
		val.len = 0;
		for (size_t j = i; j < m->nops; j++) {
			const mut_op *o = &m->ops[j];
			if (o->kind != kind || o->family_len != op->family_len ||
			    o->qual_len != op->qual_len ||
			    strcmp(mut_family(m, o), mut_family(m, op)) ||
			    (o->qual_len &&
			     memcmp(mut_qual(m, o), mut_qual(m, op), o->qual_len)))
				continue;
			done[j] = true;
			delta = (int64_t)((uint64_t)delta + (uint64_t)o->delta);
			sbx_buf_append(&val, mut_value(m, o), o->value_len);
		}
		char text[24];
		int tl = snprintf(text, sizeof text, "%lld", (long long)delta);
		json_array_append_new(
			cells, kind == MUT_INCREMENT
				       ? cell_json(mut_family(m, op), mut_qual(m, op),
						   op->qual_len, SBX_LATEST_TIMESTAMP,
						   text, (size_t)tl)
				       : cell_json(mut_family(m, op), mut_qual(m, op),
						   op->qual_len, SBX_LATEST_TIMESTAMP,
						   val.data, val.len));
	}
	free(done);
	sbx_buf_free(&val);
	return cells;
}

/* Add the cells of a CellSet response to result r. */
static int add_cells(sbx_result *r, const remote_cellset *cs)
{
	for (size_t i = 0; i < cs->nrows; i++)
		for (size_t j = 0; j < cs->rows[i].ncells; j++) {
			const remote_cell *c = &cs->rows[i].cells[j];
			int rc = result_add(r, c->family, strlen(c->family),
					    c->qualifier, c->qualifier_len, c->ts,
					    SBX_CELL_PUT, c->value, c->value_len);
			if (rc)
				return rc;
		}
	return SBX_OK;
}

static int send_rmw(remote_table *t, const sbx_mutation *m, mut_kind kind,
		    sbx_result *res)
{
	sbx_buf path = {0};
	int rc = row_path(&path, t, mut_row(m), m->row_len);
	rc = rc ? rc
		: sbx_buf_printf(&path, "?check=%s%s",
				    kind == MUT_INCREMENT ? "increment" : "append",
				    res ? "&returnResults=true" : "");
	json_t *cs = json_pack("{s:[o]}", "Row",
			       row_json(mut_row(m), m->row_len, rmw_cells(m, kind)));
	remote_resp r;
	if (rc == SBX_OK)
		rc = send_cellset(t, "POST", remote_cstr(&path), cs, false, &r);
	else
		json_decref(cs);
	sbx_buf_free(&path);
	if (rc)
		return rc;
	if (r.status == 200 && res && r.body.len) {
		remote_cellset got;
		rc = remote_cellset_parse(&got, t->db, &r);
		if (rc == SBX_OK) {
			rc = add_cells(res, &got);
			remote_cellset_free(&got);
		}
	} else if (r.status != 200 && r.status != 304) {
		rc = table_error(t, &r);
	}
	remote_resp_free(&r);
	return rc;
}

/* Results of increments and appends come from two requests: put the
 * cells back in HBase order (family, qualifier, newest first). */
static void sort_result(sbx_result *r)
{
	for (size_t i = 1; i < r->n; i++)
		for (size_t j = i;
		     j > 0 && sbx_cell_cmp(&r->cells[j - 1], &r->cells[j]) > 0;
		     j--) {
			sbx_cell tmp = r->cells[j];
			r->cells[j] = r->cells[j - 1];
			r->cells[j - 1] = tmp;
		}
}

int remote_mutate(void *p, const sbx_mutation *m, sbx_result **out)
{
	remote_table *t = p;
	int rc = check_expressible(m);
	if (rc)
		return rc;
	bool has[5] = {false};
	for (size_t i = 0; i < m->nops; i++)
		has[m->ops[i].kind] = true;
	sbx_result *res = NULL;
	if (out && (has[MUT_INCREMENT] || has[MUT_APPEND]) &&
	    (rc = result_new(&res, mut_row(m), m->row_len)))
		return rc;
	if (has[MUT_INCREMENT])
		rc = send_rmw(t, m, MUT_INCREMENT, res);
	if (rc == SBX_OK && has[MUT_APPEND])
		rc = send_rmw(t, m, MUT_APPEND, res);
	if (rc == SBX_OK && (has[MUT_DELETE] || has[MUT_DELETE_ROW]))
		rc = send_deletes(t, m);
	if (rc == SBX_OK && has[MUT_PUT])
		rc = send_puts(t, m);
	if (rc == SBX_OK && res) {
		sort_result(res);
		rc = result_finish(res);
	}
	if (rc) {
		sbx_result_free(res);
		return rc;
	}
	if (out)
		*out = res;
	return SBX_OK;
}

static bool only_puts(const sbx_mutation *m)
{
	for (size_t i = 0; i < m->nops; i++)
		if (m->ops[i].kind != MUT_PUT)
			return false;
	return true;
}

/* Consecutive put-only mutations travel as one CellSet (each row atomic,
 * as HBase's Table.batch); the rest one by one. */
int remote_batch(void *p, sbx_mutation *const *ms, size_t n, int *statuses)
{
	remote_table *t = p;
	int first = SBX_OK;
	for (size_t i = 0; i < n;) {
		size_t j = i;
		while (j < n && only_puts(ms[j]))
			j++;
		int rc;
		if (j - i >= 2) {
			json_t *rows = json_array();
			for (size_t k = i; k < j; k++)
				json_array_append_new(
					rows, row_json(mut_row(ms[k]), ms[k]->row_len,
						       put_cells(ms[k])));
			remote_resp r = {0};
			sbx_buf path = {0};
			sbx_buf_printf(&path, "%s/_", t->path);
			rc = send_cellset(t, "PUT", remote_cstr(&path),
					  json_pack("{s:o}", "Row", rows), true, &r);
			sbx_buf_free(&path);
			if (rc == SBX_OK && r.status != 200)
				rc = table_error(t, &r);
			remote_resp_free(&r);
		} else {
			j = i + 1;
			rc = remote_mutate(t, ms[i], NULL);
		}
		for (size_t k = i; k < j; k++)
			if (statuses)
				statuses[k] = rc;
		if (rc && first == SBX_OK)
			first = rc;
		i = j;
	}
	return first;
}

/* ---- check-and-mutate ------------------------------------------------------------- */

typedef enum cam_kind { CAM_PUT, CAM_DELETE } cam_kind;

static int cam_kind_of(const sbx_check *c, const sbx_mutation *m, cam_kind *k)
{
	bool puts = true, dels = true, puts_checked = false;
	for (size_t i = 0; i < m->nops; i++) {
		const mut_op *op = &m->ops[i];
		if (op->kind != MUT_PUT)
			puts = false;
		else if (!strcmp(mut_family(m, op), c->family) &&
			 op->qual_len == c->qualifier_len &&
			 (!op->qual_len ||
			  !memcmp(mut_qual(m, op), c->qualifier, op->qual_len)))
			puts_checked = true;
		if (op->kind != MUT_DELETE ||
		    (op->del_type != SBX_CELL_DELETE_COLUMN &&
		     op->del_type != SBX_CELL_DELETE_FAMILY))
			dels = false;
	}
	if (puts && puts_checked) {
		*k = CAM_PUT;
		return SBX_OK;
	}
	if (dels) {
		*k = CAM_DELETE;
		return SBX_OK;
	}
	if (puts)
		return sbx_error_set(SBX_EUNSUPPORTED,
				     "HBase REST's check-and-put must put the "
				     "checked column %s:%.*s itself",
				     c->family, (int)c->qualifier_len,
				     (const char *)c->qualifier);
	return sbx_error_set(SBX_EUNSUPPORTED,
			     "HBase REST's check-and-mutate takes only puts "
			     "(check=put) or only column/family deletes "
			     "(check=delete)");
}

/* One atomic check=put / check=delete comparing for equality with
 * `expected`; *ok tells whether it applied. */
static int cas_equal(remote_table *t, const sbx_check *c, const sbx_mutation *m,
		     cam_kind kind, const void *expected, size_t expected_len,
		     bool *ok)
{
	json_t *cells = kind == CAM_PUT ? put_cells(m) : json_array();
	for (size_t i = 0; kind == CAM_DELETE && cells && i < m->nops; i++) {
		const mut_op *op = &m->ops[i];
		json_t *cell = json_object();
		sbx_buf col = {0};
		if (op->del_type == SBX_CELL_DELETE_FAMILY)
			sbx_buf_append(&col, mut_family(m, op), op->family_len);
		else
			column_bytes(&col, mut_family(m, op), mut_qual(m, op),
				     op->qual_len);
		json_object_set_new(cell, "column", remote_b64_json(col.data, col.len));
		if (op->ts != SBX_LATEST_TIMESTAMP)
			json_object_set_new(cell, "timestamp", json_integer(op->ts));
		json_object_set_new(cell, "$", json_string(""));
		json_array_append_new(cells, cell);
		sbx_buf_free(&col);
	}
	json_array_append_new(cells, cell_json(c->family, c->qualifier,
					       c->qualifier_len, SBX_LATEST_TIMESTAMP,
					       expected, expected_len));
	sbx_buf path = {0};
	int rc = row_path(&path, t, mut_row(m), m->row_len);
	rc = rc ? rc
		: sbx_buf_printf(&path, "?check=%s",
				    kind == CAM_PUT ? "put" : "delete");
	json_t *cs = json_pack("{s:[o]}", "Row",
			       row_json(mut_row(m), m->row_len, cells));
	remote_resp r;
	if (rc == SBX_OK)
		rc = send_cellset(t, "PUT", remote_cstr(&path), cs, false, &r);
	else
		json_decref(cs);
	sbx_buf_free(&path);
	if (rc)
		return rc;
	*ok = r.status == 200;
	if (r.status != 200 && r.status != 304)
		rc = table_error(t, &r);
	remote_resp_free(&r);
	return rc;
}

/* The newest value of the checked column (found = false if absent). */
static int read_checked(remote_table *t, const uint8_t *row, size_t row_len,
			const sbx_check *c, sbx_result **out, const sbx_cell **cell)
{
	sbx_column col = {c->family, c->qualifier ? c->qualifier : "",
			  c->qualifier_len};
	sbx_read_opts o;
	sbx_read_opts_init(&o);
	o.columns = &col;
	o.ncolumns = 1;
	int rc = remote_get(out, t, row, row_len, &o);
	*cell = rc ? NULL : sbx_result_get(*out, c->family, col.qualifier,
					   c->qualifier_len);
	return rc;
}

#define CAM_ATTEMPTS 16

int remote_check_and_mutate(void *p, const sbx_check *c, const sbx_mutation *m,
			    bool *succeeded, sbx_result **out)
{
	remote_table *t = p;
	(void)out; /* only increments/appends return cells; REST cannot mix them
		      with a check */
	cam_kind kind = CAM_PUT;
	int rc = check_expressible(m);
	if (rc || (rc = cam_kind_of(c, m, &kind)))
		return rc;
	if (c->op == SBX_CMP_EQUAL)
		return cas_equal(t, c, m, kind, c->value ? c->value : "",
				 c->value ? c->value_len : 0, succeeded);
	if (c->op == SBX_CMP_NO_OP)
		return sbx_error_set(SBX_EUNSUPPORTED,
				     "check-and-mutate with NO_OP cannot be "
				     "expressed over HBase REST");
	/* REST compares for equality only: read the value, decide here, then
	 * apply only if the value is still the one decided on. */
	for (int attempt = 0; attempt < CAM_ATTEMPTS; attempt++) {
		sbx_result *cur = NULL;
		const sbx_cell *cell;
		rc = read_checked(t, mut_row(m), m->row_len, c, &cur, &cell);
		if (rc)
			return rc;
		bool pass = model_check_passes(c, cell != NULL, cell ? cell->value : NULL,
					 cell ? cell->value_len : 0);
		if (!pass) {
			sbx_result_free(cur);
			*succeeded = false;
			return SBX_OK;
		}
		bool ok = false;
		rc = cas_equal(t, c, m, kind, cell ? cell->value : (const void *)"",
			       cell ? cell->value_len : 0, &ok);
		sbx_result_free(cur);
		if (rc || ok) {
			*succeeded = ok;
			return rc;
		}
	}
	return sbx_error_set(SBX_ECONFLICT,
			     "check-and-mutate on table '%s': the checked value "
			     "kept changing (%d attempts)",
			     t->name, CAM_ATTEMPTS);
}

/* ---- get ------------------------------------------------------------------------ */

static int get_path(sbx_buf *b, const remote_table *t, const uint8_t *row,
		    size_t row_len, const sbx_read_opts *o)
{
	b->len = 0;
	int rc = sbx_buf_printf(b, "%s/", t->path);
	rc = rc ? rc : remote_url_append(b, row, row_len);
	bool ranged = o->min_ts != 0 || o->max_ts != INT64_MAX;
	if (rc == SBX_OK && (o->ncolumns || ranged))
		rc = sbx_buf_push(b, '/');
	for (size_t i = 0; rc == SBX_OK && i < o->ncolumns; i++) {
		const sbx_column *c = &o->columns[i];
		if (i)
			rc = sbx_buf_push(b, ',');
		rc = rc ? rc : remote_url_append_str(b, c->family);
		if (rc == SBX_OK && c->qualifier) {
			rc = sbx_buf_printf(b, "%%3A");
			rc = rc ? rc : remote_url_append(b, c->qualifier,
							  c->qualifier_len);
		}
	}
	if (rc == SBX_OK && ranged)
		rc = sbx_buf_printf(b, "/%lld,%lld", (long long)o->min_ts,
				       (long long)o->max_ts);
	int versions = o->max_versions > 0 ? o->max_versions : INT32_MAX;
	if (rc == SBX_OK && versions != 1)
		rc = sbx_buf_printf(b, "?v=%d", versions);
	return rc;
}

/* A 404 on a row GET: no cells, unless the table or a family is missing. */
static int get_not_found(remote_table *t, const remote_resp *r)
{
	char msg[512];
	remote_error_text(r, msg, sizeof msg);
	if (strstr(msg, "famil") || strstr(msg, "Famil") ||
	    strstr(msg, "TableNotFound") ||
	    (strstr(msg, "table") && strstr(msg, "not found")))
		return table_error(t, r);
	return SBX_OK;
}

int remote_get(sbx_result **out, void *p, const uint8_t *row, size_t row_len,
	       const sbx_read_opts *o)
{
	remote_table *t = p;
	if (o->filter || row_path_unsafe(row, row_len))
		return remote_get_by_scan(out, t, row, row_len, o);
	sbx_buf path = {0};
	int rc = get_path(&path, t, row, row_len, o);
	remote_resp r;
	if (rc == SBX_OK)
		rc = remote_request(t->db, "GET", remote_cstr(&path), NULL, NULL, 0,
				    true, &r);
	sbx_buf_free(&path);
	if (rc)
		return rc;
	sbx_result *res = NULL;
	if (r.status == 200) {
		remote_cellset cs;
		rc = remote_cellset_parse(&cs, t->db, &r);
		if (rc == SBX_OK) {
			rc = result_new(&res, row, row_len);
			rc = rc ? rc : add_cells(res, &cs);
			remote_cellset_free(&cs);
		}
	} else if (r.status == 404) {
		rc = get_not_found(t, &r);
		if (rc == SBX_OK)
			rc = result_new(&res, row, row_len);
	} else {
		rc = table_error(t, &r);
	}
	remote_resp_free(&r);
	if (rc == SBX_OK)
		rc = result_finish(res);
	if (rc) {
		sbx_result_free(res);
		return rc;
	}
	*out = res;
	return SBX_OK;
}
