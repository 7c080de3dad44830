/*
 * data.c - writes: an sbx_mutation as Bigtable Mutations (MutateRow),
 * batches as one MutateRows, check-and-mutate as CheckAndMutateRow with a
 * predicate filter that encodes model_check_passes(), increments and
 * appends as ReadModifyWriteRow. HBase's timestamps are milliseconds,
 * Bigtable's microseconds (x1000). Deletes remove cells at once: HBase's
 * markers that need the row's current cells (the newest version, a family
 * or row up to a time) read it first, so they are not atomic with the read.
 */
#include "bigtable/bigtable.h"
#include "bigtable/merge.h"

#include "common/clock.h"
#include "common/alloc.h"
#include "common/error.h"
#include "model/mutation.h"
#include "model/result.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define DATA "/google.bigtable.v2.Bigtable/"

/* Mutations under construction; every pointer inside is owned by `mem`. */
typedef struct mut_list {
	Sbxbt__Mutation **v;
	size_t n, cap;
	void **mem;
	size_t nmem, capmem;
} mut_list;

static void *own(mut_list *l, size_t size)
{
	if (l->nmem == l->capmem) {
		size_t cap = l->capmem ? 2 * l->capmem : 32;
		void **m = sbx_realloc(l->mem, cap * sizeof *m);
		if (!m)
			return NULL;
		l->mem = m;
		l->capmem = cap;
	}
	void *p = sbx_calloc(1, size ? size : 1);
	if (p)
		l->mem[l->nmem++] = p;
	return p;
}

static void list_free(mut_list *l)
{
	for (size_t i = 0; i < l->nmem; i++)
		free(l->mem[i]);
	free(l->mem);
	free(l->v);
	memset(l, 0, sizeof *l);
}

static Sbxbt__Mutation *push(mut_list *l)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 16;
		Sbxbt__Mutation **v = sbx_realloc(l->v, cap * sizeof *v);
		if (!v)
			return NULL;
		l->v = v;
		l->cap = cap;
	}
	Sbxbt__Mutation *m = own(l, sizeof *m);
	if (m) {
		sbxbt__mutation__init(m);
		l->v[l->n++] = m;
	}
	return m;
}

/* DeleteFromColumn family:qual over [start, end) micros (end 0 = all). */
static int del_column(mut_list *l, const char *family, const uint8_t *q,
		      size_t qlen, int64_t start, int64_t end)
{
	Sbxbt__Mutation *m = push(l);
	Sbxbt__Mutation__DeleteFromColumn *d = m ? own(l, sizeof *d) : NULL;
	if (!d)
		return SBX_ENOMEM_SET();
	sbxbt__mutation__delete_from_column__init(d);
	d->family_name = (char *)family;
	d->column_qualifier.data = (uint8_t *)q;
	d->column_qualifier.len = qlen;
	if (start || end) {
		Sbxbt__TimestampRange *r = own(l, sizeof *r);
		if (!r)
			return SBX_ENOMEM_SET();
		sbxbt__timestamp_range__init(r);
		r->start_timestamp_micros = start;
		r->end_timestamp_micros = end;
		d->time_range = r;
	}
	m->mutation_case = SBXBT__MUTATION__MUTATION_DELETE_FROM_COLUMN;
	m->delete_from_column = d;
	return SBX_OK;
}

/* ---- reading the row for deletes that need it --------------------------- */

typedef struct cols_ctx {
	mut_list *l;
	sbx_buf *keep; /* copies of qualifiers (must outlive the request) */
	const char *family; /* NULL: every family */
	int64_t start, end;
	bool newest_only; /* DELETE at latest: the newest version's time */
	int rc;
} cols_ctx;

/* For each distinct column of the row (in `family`), a DeleteFromColumn. */
static int on_cols(void *p, const bt_row *row)
{
	cols_ctx *c = p;
	const uint8_t *d = row->arena.data;
	for (size_t i = 0; i < row->n; i++) {
		const bt_cell *cell = &row->cells[i];
		if (i > 0) {
			const bt_cell *pr = &row->cells[i - 1];
			if (pr->family_off == cell->family_off &&
			    pr->qual_off == cell->qual_off)
				continue; /* same column (the merger shares) */
		}
		char *fam = own(c->l, cell->family_len + 1);
		uint8_t *q = own(c->l, cell->qual_len + 1);
		if (!fam || !q)
			return SBX_ENOMEM_SET();
		memcpy(fam, d + cell->family_off, cell->family_len);
		if (cell->qual_len)
			memcpy(q, d + cell->qual_off, cell->qual_len);
		int64_t start = c->start, end = c->end;
		if (c->newest_only) { /* cells come newest first per column */
			start = cell->timestamp_micros;
			end = start + 1000;
		}
		int rc = del_column(c->l, fam, q, cell->qual_len, start, end);
		if (rc)
			return rc;
	}
	return SBX_OK;
}

static int read_columns(bt_table *t, const uint8_t *row, size_t row_len,
			Sbxbt__RowFilter *f, cols_ctx *c)
{
	return bt_read_row(t, row, row_len, f, on_cols, c);
}

/* ---- one sbx_mutation ---------------------------------------------------- */

static int micros(int64_t ts_ms, int64_t now_us, int64_t *out)
{
	if (ts_ms == SBX_LATEST_TIMESTAMP) {
		*out = now_us;
		return SBX_OK;
	}
	return bt_ts_micros(ts_ms, out);
}

static int check_family(const sbx_family_desc *f, size_t n, const char *name,
			const char *table)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(f[i].name, name))
			return SBX_OK;
	return sbx_error_set(SBX_ENOFAMILY, "table '%s' has no family '%s'",
			     table, name);
}

/* The puts and deletes of m as Bigtable mutations in l (increments and
 * appends are left for ReadModifyWriteRow). */
static int build(bt_table *t, const sbx_mutation *m, mut_list *l)
{
	sbx_family_desc *fams;
	size_t nf;
	int rc = bt_schema_get(t->db, t->name, &fams, &nf);
	if (rc)
		return rc;
	/* HBase gives every "latest" cell of one mutation the same time, and
	 * later mutations later times (Bigtable's granularity is the ms) */
	int64_t now_ms = sbx_clock_now_ms();
	pthread_mutex_lock(&t->db->lock);
	if (now_ms <= t->db->last_ts_ms)
		now_ms = t->db->last_ts_ms + 1;
	t->db->last_ts_ms = now_ms;
	pthread_mutex_unlock(&t->db->lock);
	int64_t now_us = now_ms * 1000;
	const uint8_t *row = mut_row(m);
	for (size_t i = 0; !rc && i < m->nops; i++) {
		const mut_op *op = &m->ops[i];
		const char *fam = op->kind == MUT_DELETE_ROW ? NULL
							     : mut_family(m, op);
		if (fam && (rc = check_family(fams, nf, fam, t->name)))
			break;
		int64_t ts = 0;
		if (op->kind == MUT_PUT || op->kind == MUT_DELETE ||
		    op->kind == MUT_DELETE_ROW)
			if ((rc = micros(op->ts, now_us, &ts)))
				break;
		bool latest = op->ts == SBX_LATEST_TIMESTAMP;
		size_t cell = m->row_len + op->family_len + op->qual_len +
			      op->value_len;
		if (op->kind == MUT_PUT && t->db->max_cell_size &&
		    cell > t->db->max_cell_size) {
			rc = sbx_error_set(SBX_ETOOLARGE,
					   "cell %s of %zu bytes exceeds the "
					   "maximum cell size of %zu bytes",
					   fam, cell, t->db->max_cell_size);
			break;
		}
		if (op->kind == MUT_PUT) {
			Sbxbt__Mutation *mu = push(l);
			Sbxbt__Mutation__SetCell *s = mu ? own(l, sizeof *s) : NULL;
			if (!s) {
				rc = SBX_ENOMEM_SET();
				break;
			}
			sbxbt__mutation__set_cell__init(s);
			s->family_name = (char *)fam;
			s->column_qualifier.data = (uint8_t *)mut_qual(m, op);
			s->column_qualifier.len = op->qual_len;
			s->timestamp_micros = ts;
			s->value.data = (uint8_t *)mut_value(m, op);
			s->value.len = op->value_len;
			mu->mutation_case = SBXBT__MUTATION__MUTATION_SET_CELL;
			mu->set_cell = s;
			continue;
		}
		if (op->kind == MUT_INCREMENT || op->kind == MUT_APPEND)
			continue;
		cols_ctx c = {.l = l, .family = fam};
		sbx_cell_type type = op->kind == MUT_DELETE_ROW
					     ? SBX_CELL_DELETE_FAMILY
					     : op->del_type;
		if (type == SBX_CELL_DELETE_COLUMN) {
			rc = del_column(l, fam, mut_qual(m, op), op->qual_len, 0,
					latest ? 0 : ts + 1000);
		} else if (type == SBX_CELL_DELETE && !latest) {
			rc = del_column(l, fam, mut_qual(m, op), op->qual_len, ts,
					ts + 1000);
		} else if (type == SBX_CELL_DELETE) {
			/* the newest version: read its time first */
			Sbxbt__RowFilter *f, *lim = sbx_malloc(sizeof *lim);
			rc = bt_filter_column(&f, fam, mut_qual(m, op),
					      op->qual_len);
			if (!rc && lim) {
				sbxbt__row_filter__init(lim);
				lim->filter_case = SBXBT__ROW_FILTER__FILTER_CELLS_PER_COLUMN_LIMIT_FILTER;
				lim->cells_per_column_limit_filter = 1;
				Sbxbt__RowFilter chain = SBXBT__ROW_FILTER__INIT;
				Sbxbt__RowFilter__Chain ch =
					SBXBT__ROW_FILTER__CHAIN__INIT;
				Sbxbt__RowFilter *v[2] = {f, lim};
				ch.n_filters = 2;
				ch.filters = v;
				chain.filter_case = SBXBT__ROW_FILTER__FILTER_CHAIN;
				chain.chain = &ch;
				c.newest_only = true;
				rc = read_columns(t, row, m->row_len, &chain, &c);
			} else if (!rc) {
				rc = SBX_ENOMEM_SET();
			}
			bt_filter_free(f);
			free(lim);
		} else if (type == SBX_CELL_DELETE_FAMILY && latest) {
			Sbxbt__Mutation *mu = push(l);
			void *d = mu ? own(l, sizeof(Sbxbt__Mutation__DeleteFromFamily))
				     : NULL;
			if (!d) {
				rc = SBX_ENOMEM_SET();
				break;
			}
			if (fam) {
				Sbxbt__Mutation__DeleteFromFamily *df = d;
				sbxbt__mutation__delete_from_family__init(df);
				df->family_name = (char *)fam;
				mu->mutation_case = SBXBT__MUTATION__MUTATION_DELETE_FROM_FAMILY;
				mu->delete_from_family = df;
			} else {
				Sbxbt__Mutation__DeleteFromRow *dr = own(l, sizeof *dr);
				if (!dr) {
					rc = SBX_ENOMEM_SET();
					break;
				}
				sbxbt__mutation__delete_from_row__init(dr);
				mu->mutation_case = SBXBT__MUTATION__MUTATION_DELETE_FROM_ROW;
				mu->delete_from_row = dr;
			}
		} else {
			/* a family (or row) up to ts, or one version across a
			 * family: Bigtable deletes by column, so list them */
			if (type == SBX_CELL_DELETE_FAMILY_VERSION) {
				c.start = ts;
				c.end = ts + 1000;
			} else {
				c.end = ts + 1000;
			}
			Sbxbt__RowFilter strip = SBXBT__ROW_FILTER__INIT;
			strip.filter_case = SBXBT__ROW_FILTER__FILTER_STRIP_VALUE_TRANSFORMER;
			strip.strip_value_transformer = true;
			if (fam) {
				Sbxbt__RowFilter *ff = bt_filter_family(fam);
				Sbxbt__RowFilter *v[2] = {ff, &strip};
				Sbxbt__RowFilter__Chain ch =
					SBXBT__ROW_FILTER__CHAIN__INIT;
				ch.n_filters = 2;
				ch.filters = v;
				Sbxbt__RowFilter chain = SBXBT__ROW_FILTER__INIT;
				chain.filter_case = SBXBT__ROW_FILTER__FILTER_CHAIN;
				chain.chain = &ch;
				rc = ff ? read_columns(t, row, m->row_len, &chain,
						       &c)
					: SBX_ENOMEM_SET();
				bt_filter_free(ff);
			} else {
				rc = read_columns(t, row, m->row_len, &strip, &c);
			}
		}
	}
	free(fams);
	return rc;
}

static int mutate_row(bt_table *t, const uint8_t *row, size_t row_len,
		      mut_list *l)
{
	if (!l->n)
		return SBX_OK;
	Sbxbt__MutateRowRequest req = SBXBT__MUTATE_ROW_REQUEST__INIT;
	req.table_name = t->path;
	req.row_key.data = (uint8_t *)row;
	req.row_key.len = row_len;
	req.n_mutations = l->n;
	req.mutations = l->v;
	return bt_unary(t->db, DATA "MutateRow", "table_name", t->path,
			&req.base, &sbxbt__mutate_row_response__descriptor, NULL);
}

/* HBase's cell order for a ReadModifyWriteRow answer. */
static int cmp_str_fam(const void *a, const void *b)
{
	const Sbxbt__Family *x = *(Sbxbt__Family *const *)a;
	const Sbxbt__Family *y = *(Sbxbt__Family *const *)b;
	return strcmp(x->name, y->name);
}

static int rmw(bt_table *t, const sbx_mutation *m, sbx_result **out)
{
	size_t n = 0;
	for (size_t i = 0; i < m->nops; i++)
		n += m->ops[i].kind == MUT_INCREMENT ||
		     m->ops[i].kind == MUT_APPEND;
	if (!n)
		return SBX_OK;
	Sbxbt__ReadModifyWriteRule *rules = sbx_calloc(n, sizeof *rules);
	Sbxbt__ReadModifyWriteRule **rp = sbx_calloc(n, sizeof *rp);
	if (!rules || !rp) {
		free(rules);
		free(rp);
		return SBX_ENOMEM_SET();
	}
	size_t k = 0;
	for (size_t i = 0; i < m->nops; i++) {
		const mut_op *op = &m->ops[i];
		if (op->kind != MUT_INCREMENT && op->kind != MUT_APPEND)
			continue;
		Sbxbt__ReadModifyWriteRule *r = &rules[k];
		sbxbt__read_modify_write_rule__init(r);
		r->family_name = (char *)mut_family(m, op);
		r->column_qualifier.data = (uint8_t *)mut_qual(m, op);
		r->column_qualifier.len = op->qual_len;
		if (op->kind == MUT_INCREMENT) {
			r->rule_case = SBXBT__READ_MODIFY_WRITE_RULE__RULE_INCREMENT_AMOUNT;
			r->increment_amount = op->delta;
		} else {
			r->rule_case = SBXBT__READ_MODIFY_WRITE_RULE__RULE_APPEND_VALUE;
			r->append_value.data = (uint8_t *)mut_value(m, op);
			r->append_value.len = op->value_len;
		}
		rp[k++] = r;
	}
	Sbxbt__ReadModifyWriteRowRequest req =
		SBXBT__READ_MODIFY_WRITE_ROW_REQUEST__INIT;
	req.table_name = t->path;
	req.row_key.data = (uint8_t *)mut_row(m);
	req.row_key.len = m->row_len;
	req.n_rules = k;
	req.rules = rp;
	Sbxbt__ReadModifyWriteRowResponse *resp = NULL;
	int rc = bt_unary(t->db, DATA "ReadModifyWriteRow", "table_name",
			  t->path, &req.base,
			  &sbxbt__read_modify_write_row_response__descriptor,
			  (ProtobufCMessage **)&resp);
	free(rules);
	free(rp);
	if (rc)
		return rc;
	sbx_result *res = NULL;
	if (out)
		rc = result_new(&res, mut_row(m), m->row_len);
	const Sbxbt__Row *row = resp->row;
	if (out && !rc && row) {
		qsort(row->families, row->n_families, sizeof *row->families,
		      cmp_str_fam);
		for (size_t f = 0; !rc && f < row->n_families; f++) {
			const Sbxbt__Family *fam = row->families[f];
			/* columns come in byte order; cells newest first */
			for (size_t c = 0; !rc && c < fam->n_columns; c++) {
				const Sbxbt__Column *col = fam->columns[c];
				for (size_t x = 0; !rc && x < col->n_cells; x++)
					rc = result_add(
						res, fam->name, strlen(fam->name),
						col->qualifier.data,
						col->qualifier.len,
						col->cells[x]->timestamp_micros / 1000,
						SBX_CELL_PUT, col->cells[x]->value.data,
						col->cells[x]->value.len);
			}
		}
	}
	if (out && !rc)
		rc = result_finish(res);
	protobuf_c_message_free_unpacked(&resp->base, NULL);
	if (rc) {
		sbx_result_free(res);
		return rc;
	}
	if (out)
		*out = res;
	return SBX_OK;
}

int bt_mutate(void *p, const sbx_mutation *m, sbx_result **out)
{
	bt_table *t = p;
	if (out)
		*out = NULL;
	mut_list l = {0};
	int rc = build(t, m, &l);
	/* increments and appends first (they fail on a bad counter, so then
	 * nothing is written), then puts and deletes: two calls, not one
	 * atomic change, when a mutation mixes them */
	if (!rc)
		rc = rmw(t, m, out);
	if (!rc)
		rc = mutate_row(t, mut_row(m), m->row_len, &l);
	list_free(&l);
	if (rc && out && *out) {
		sbx_result_free(*out);
		*out = NULL;
	}
	return rc;
}

/* ---- MutateRows ------------------------------------------------------------ */

int bt_rows_status_add(bt_rows_status *st,
		       const Sbxbt__MutateRowsResponse *resp)
{
	for (size_t i = 0; i < resp->n_entries; i++) {
		const Sbxbt__MutateRowsResponse__Entry *e = resp->entries[i];
		if (e->index < 0 || (uint64_t)e->index >= st->n)
			continue;
		size_t at = (size_t)e->index;
		int code = e->status ? e->status->code : 0;
		st->code[at] = code;
		free(st->text[at]);
		st->text[at] = NULL;
		if (code && e->status->message &&
		    !(st->text[at] = sbx_strdup(e->status->message)))
			return SBX_ENOMEM_SET();
	}
	return SBX_OK;
}

bool bt_rows_code_retryable(int code)
{
	return code == 14 /* UNAVAILABLE */ || code == 4 /* DEADLINE_EXCEEDED */
	       || code == 10 /* ABORTED */;
}

static int on_rows_response(void *ctx, ProtobufCMessage **msg)
{
	return bt_rows_status_add(ctx, (const Sbxbt__MutateRowsResponse *)*msg);
}

#define ROWS_ATTEMPTS 3

/* Send entries ep[0..k) (request index i is the caller's mutation
 * index[i]) and set statuses[index[i]]; entries that fail with a
 * retryable code, or that no response named before the stream ended, are
 * sent again, up to ROWS_ATTEMPTS times in all. Returns the first error. */
static int mutate_rows(bt_table *t, Sbxbt__MutateRowsRequest__Entry **ep,
		       size_t k, const size_t *index, int *statuses)
{
	Sbxbt__MutateRowsRequest__Entry **send = sbx_calloc(k, sizeof *send);
	size_t *at = sbx_calloc(k, sizeof *at); /* send[j] is ep[at[j]] */
	bt_rows_status st = {k, sbx_calloc(k, sizeof(int)),
			     sbx_calloc(k, sizeof(char *))};
	int first = SBX_OK;
	if (!send || !at || !st.code || !st.text) {
		first = SBX_ENOMEM_SET();
		goto out;
	}
	size_t m = k;
	for (size_t j = 0; j < k; j++) {
		send[j] = ep[j];
		at[j] = j;
	}
	long backoff_ms = 10;
	for (int attempt = 1; m; attempt++) {
		st.n = m;
		for (size_t j = 0; j < m; j++)
			st.code[j] = -1;
		Sbxbt__MutateRowsRequest req = SBXBT__MUTATE_ROWS_REQUEST__INIT;
		req.table_name = t->path;
		req.n_entries = m;
		req.entries = send;
		int rc = bt_call(t->db, DATA "MutateRows", "table_name", t->path,
				 &req.base, &sbxbt__mutate_rows_response__descriptor,
				 on_rows_response, &st);
		bool last = attempt == ROWS_ATTEMPTS;
		size_t again = 0;
		for (size_t j = 0; j < m; j++) {
			int code = st.code[j];
			bool retry = code < 0 ? rc == SBX_OK || rc == SBX_EREMOTE
					      : bt_rows_code_retryable(code);
			if (code == 0) {
				if (statuses)
					statuses[index[at[j]]] = SBX_OK;
				continue;
			}
			if (retry && !last && rc != SBX_ENOMEM) {
				send[again] = send[j];
				at[again++] = at[j];
				continue;
			}
			int err;
			if (code < 0)
				err = rc ? rc
					 : sbx_error_set(SBX_EREMOTE,
							 "Bigtable MutateRows: "
							 "no status for an entry");
			else
				err = sbx_error_set(
				    st.text[j] && strstr(st.text[j], "unknown family")
					? SBX_ENOFAMILY
					: SBX_EREMOTE,
				    "Bigtable MutateRows: %s (status %d)",
				    st.text[j] ? st.text[j] : "", code);
			if (statuses)
				statuses[index[at[j]]] = err;
			if (!first)
				first = err;
		}
		for (size_t j = 0; j < m; j++) {
			free(st.text[j]);
			st.text[j] = NULL;
		}
		m = again;
		if (m) {
			struct timespec ts = {0, backoff_ms * 1000000L};
			nanosleep(&ts, NULL);
			backoff_ms *= 4;
		}
	}
out:
	free(send);
	free(at);
	free(st.code);
	free(st.text);
	return first;
}

int bt_batch(void *p, sbx_mutation *const *ms, size_t n, int *statuses)
{
	bt_table *t = p;
	mut_list *lists = sbx_calloc(n ? n : 1, sizeof *lists);
	Sbxbt__MutateRowsRequest__Entry *entries = sbx_calloc(n ? n : 1, sizeof *entries);
	Sbxbt__MutateRowsRequest__Entry **ep = sbx_calloc(n ? n : 1, sizeof *ep);
	size_t *index = sbx_calloc(n ? n : 1, sizeof *index);
	int first = SBX_OK;
	if (!lists || !entries || !ep || !index) {
		first = SBX_ENOMEM_SET();
		goto out;
	}
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		int rc = SBX_OK;
		if (ms[i]->has_rmw) { /* increments, appends, latest deletes */
			rc = bt_mutate(t, ms[i], NULL);
		} else if (!(rc = build(t, ms[i], &lists[i])) && lists[i].n) {
			Sbxbt__MutateRowsRequest__Entry *e = &entries[k];
			sbxbt__mutate_rows_request__entry__init(e);
			e->row_key.data = (uint8_t *)mut_row(ms[i]);
			e->row_key.len = ms[i]->row_len;
			e->n_mutations = lists[i].n;
			e->mutations = lists[i].v;
			index[k] = i;
			ep[k++] = e;
		}
		if (statuses)
			statuses[i] = rc;
		if (rc && !first)
			first = rc;
	}
	if (k) {
		int rc = mutate_rows(t, ep, k, index, statuses);
		if (rc && !first)
			first = rc;
	}
out:
	for (size_t i = 0; lists && i < n; i++)
		list_free(&lists[i]);
	free(lists);
	free(entries);
	free(ep);
	free(index);
	return first;
}

/* ---- check-and-mutate ---------------------------------------------------- */

/*
 * model_check_passes() as a predicate P and a polarity: the check passes
 * when (P matched) == polarity. P selects the checked column's newest cell
 * and keeps it if its value is in the range the operator needs. HBase's
 * order is `check value OP stored`, so GREATER passes when stored < value.
 */
static int predicate(Sbxbt__RowFilter **out, bool *polarity,
		     const sbx_check *c)
{
	Sbxbt__RowFilter *col;
	int rc = bt_filter_column(&col, c->family, c->qualifier,
				  c->qualifier_len);
	if (rc)
		return rc;
	Sbxbt__RowFilter *lim = sbx_malloc(sizeof *lim);
	Sbxbt__RowFilter *val = sbx_malloc(sizeof *val);
	Sbxbt__ValueRange *vr = sbx_malloc(sizeof *vr);
	uint8_t *v = sbx_malloc(c->value_len + 4); /* or the 3-byte "\\C+" */
	Sbxbt__RowFilter **parts = sbx_malloc(3 * sizeof *parts);
	Sbxbt__RowFilter__Chain *ch = sbx_malloc(sizeof *ch);
	Sbxbt__RowFilter *top = sbx_malloc(sizeof *top);
	if (!lim || !val || !vr || !v || !parts || !ch || !top) {
		bt_filter_free(col);
		free(lim);
		free(val);
		free(vr);
		free(v);
		free(parts);
		free(ch);
		free(top);
		return SBX_ENOMEM_SET();
	}
	sbxbt__row_filter__init(lim);
	lim->filter_case = SBXBT__ROW_FILTER__FILTER_CELLS_PER_COLUMN_LIMIT_FILTER;
	lim->cells_per_column_limit_filter = 1;
	sbxbt__row_filter__init(val);
	sbxbt__value_range__init(vr);
	if (c->value_len)
		memcpy(v, c->value, c->value_len);
	bool expect_null = !c->value || c->value_len == 0;
	*polarity = true;
	if (expect_null) {
		/* P: present and non-empty; "absent or empty" is !P */
		free(vr);
		val->filter_case = SBXBT__ROW_FILTER__FILTER_VALUE_REGEX_FILTER;
		memcpy(v, "\\C+", 3);
		val->value_regex_filter.data = v;
		val->value_regex_filter.len = 3;
		*polarity = c->op == SBX_CMP_NOT_EQUAL;
	} else {
		val->filter_case = SBXBT__ROW_FILTER__FILTER_VALUE_RANGE_FILTER;
		val->value_range_filter = vr;
		ProtobufCBinaryData b = {c->value_len, v};
		switch (c->op) {
		case SBX_CMP_LESS: /* value < stored */
			vr->start_value_case = SBXBT__VALUE_RANGE__START_VALUE_START_VALUE_OPEN;
			vr->start_value_open = b;
			break;
		case SBX_CMP_LESS_OR_EQUAL:
			vr->start_value_case = SBXBT__VALUE_RANGE__START_VALUE_START_VALUE_CLOSED;
			vr->start_value_closed = b;
			break;
		case SBX_CMP_GREATER: /* stored < value */
			vr->end_value_case = SBXBT__VALUE_RANGE__END_VALUE_END_VALUE_OPEN;
			vr->end_value_open = b;
			break;
		case SBX_CMP_GREATER_OR_EQUAL:
			vr->end_value_case = SBXBT__VALUE_RANGE__END_VALUE_END_VALUE_CLOSED;
			vr->end_value_closed = b;
			break;
		case SBX_CMP_NOT_EQUAL: /* passes unless present and equal */
			*polarity = false;
			/* fall through */
		default: /* EQUAL */
			vr->start_value_case = SBXBT__VALUE_RANGE__START_VALUE_START_VALUE_CLOSED;
			vr->start_value_closed = b;
			ProtobufCBinaryData b2 = {c->value_len, sbx_malloc(c->value_len)};
			if (!b2.data) {
				free(b.data);
				b.data = NULL;
				vr->start_value_closed.data = NULL;
				vr->start_value_closed.len = 0;
				rc = SBX_ENOMEM_SET();
				break;
			}
			memcpy(b2.data, c->value, c->value_len);
			vr->end_value_case = SBXBT__VALUE_RANGE__END_VALUE_END_VALUE_CLOSED;
			vr->end_value_closed = b2;
			break;
		}
	}
	sbxbt__row_filter__chain__init(ch);
	parts[0] = col;
	parts[1] = lim;
	parts[2] = val;
	ch->n_filters = 3;
	ch->filters = parts;
	sbxbt__row_filter__init(top);
	top->filter_case = SBXBT__ROW_FILTER__FILTER_CHAIN;
	top->chain = ch;
	*out = top;
	if (rc) {
		bt_filter_free(top);
		*out = NULL;
	}
	return rc;
}

int bt_check_and_mutate(void *p, const sbx_check *check, const sbx_mutation *m,
			bool *succeeded, sbx_result **out)
{
	bt_table *t = p;
	*succeeded = false;
	if (out)
		*out = NULL;
	for (size_t i = 0; i < m->nops; i++)
		if (m->ops[i].kind == MUT_INCREMENT ||
		    m->ops[i].kind == MUT_APPEND)
			return sbx_error_set(
				SBX_EUNSUPPORTED,
				"the bigtable backend does not support "
				"increments or appends in check-and-mutate "
				"(CheckAndMutateRow takes only set and delete "
				"mutations)");
	sbx_family_desc *fams;
	size_t nf;
	int rc = bt_schema_get(t->db, t->name, &fams, &nf);
	if (rc)
		return rc;
	rc = check_family(fams, nf, check->family, t->name);
	free(fams);
	if (rc)
		return rc;
	mut_list l = {0};
	Sbxbt__RowFilter *pred = NULL;
	bool polarity = true;
	if ((rc = build(t, m, &l)) || (rc = predicate(&pred, &polarity, check))) {
		list_free(&l);
		return rc;
	}
	Sbxbt__CheckAndMutateRowRequest req =
		SBXBT__CHECK_AND_MUTATE_ROW_REQUEST__INIT;
	req.table_name = t->path;
	req.row_key.data = (uint8_t *)mut_row(m);
	req.row_key.len = m->row_len;
	req.predicate_filter = pred;
	if (polarity) {
		req.n_true_mutations = l.n;
		req.true_mutations = l.v;
	} else {
		req.n_false_mutations = l.n;
		req.false_mutations = l.v;
	}
	Sbxbt__CheckAndMutateRowResponse *resp = NULL;
	rc = bt_unary(t->db, DATA "CheckAndMutateRow", "table_name", t->path,
		      &req.base, &sbxbt__check_and_mutate_row_response__descriptor,
		      (ProtobufCMessage **)&resp);
	if (!rc) {
		*succeeded = resp->predicate_matched == polarity;
		protobuf_c_message_free_unpacked(&resp->base, NULL);
	}
	bt_filter_free(pred);
	list_free(&l);
	return rc;
}
