/*
 * api.c - the public table API: argument checks that do not depend on the
 * backend, the mutation builder, option defaults, and dispatch to the
 * backend behind the sbx_db handle (embedded engine or remote gateway).
 */
#include "common/alloc.h"
#include "common/error.h"
#include "model/mutation.h"
#include "model/names.h"
#include "model/result.h"
#include "model/rules.h"
#include "saltbox/filter.h"
#include "saltbox/regions.h"
#include "table/dispatch.h"
#include "table/keysample.h"
#include "table/trace.h"

#include <stdlib.h>
#include <string.h>

struct sbx_table {
	sbx_db *db;
	void *impl;
	char *name;
	sbx_keysampler *ks; /* the table's key sampler, or NULL */
};

/* The one answer for a capability a backend leaves out (model/backend.h). */
int table_unsupported(const sbx_db *db, const char *capability,
		      const char *endpoint)
{
	assert(db && db->ops && capability && endpoint);
	if (db->ops->protocol)
		return sbx_error_set(SBX_EUNSUPPORTED,
				     "the %s backend does not support %s "
				     "(%s has no %s endpoints)",
				     db->ops->name, capability,
				     db->ops->protocol, endpoint);
	return sbx_error_set(SBX_EUNSUPPORTED,
			     "the %s backend does not support %s",
			     db->ops->name, capability);
}

/* ---- database ------------------------------------------------------------ */

int sbx_db_open(sbx_db **out, const char *path, const sbx_db_options *opts)
{
	*out = NULL;
	if (!path || !*path)
		return sbx_error_set(SBX_EINVAL, "database path is empty");
	sbx_db_options defaults;
	if (!opts) {
		sbx_db_options_init(&defaults);
		opts = &defaults;
	}
	sbx_db *db = sbx_calloc(1, sizeof *db);
	if (!db)
		return SBX_ENOMEM_SET();
	/* the trace file first: a bad path then leaves no store behind */
	int rc = table_trace_open(db, opts->trace_path);
	if (!rc && (rc = engine_open(&db->impl, path, opts)))
		table_trace_close(db);
	if (rc) {
		free(db);
		return rc;
	}
	db->ops = &engine_backend_ops;
	*out = db;
	return SBX_OK;
}

/* libsaltbox-engine (the embedded store alone, for programs that link
 * neither libcurl nor gRPC) compiles this file with SBX_ENGINE_ONLY
 * (src/CMakeLists.txt): there a URL is SBX_EUNSUPPORTED. */
int sbx_db_connect(sbx_db **out, const char *url)
{
	*out = NULL;
	/* the URL's scheme picks the client backend */
	bool bigtable = url && !strncmp(url, "bigtable://", 11);
#ifdef SBX_ENGINE_ONLY
	return sbx_error_set(SBX_EUNSUPPORTED,
			     "%s: this program links libsaltbox-engine, which "
			     "has no %s client (link libsaltbox for it)",
			     url ? url : "(null)",
			     bigtable ? "Cloud Bigtable" : "HBase REST");
#else
	sbx_db *db = sbx_calloc(1, sizeof *db);
	if (!db)
		return SBX_ENOMEM_SET();
	int rc = bigtable ? bigtable_connect(&db->impl, url)
			  : remote_connect(&db->impl, url);
	if (rc) {
		free(db);
		return rc;
	}
	db->ops = bigtable ? &bigtable_backend_ops : &remote_backend_ops;
	*out = db;
	return SBX_OK;
#endif
}

int sbx_db_trace(sbx_db *db, const char *path)
{
	return table_trace_open(db, path);
}

void sbx_db_close(sbx_db *db)
{
	if (!db)
		return;
	table_trace_close(db);
	table_keysamples_free(db);
	db->ops->close(db->impl);
	free(db);
}

int sbx_namespace_create(sbx_db *db, const char *ns)
{
	int rc = names_check_namespace(ns);
	return rc ? rc : db->ops->namespace_create(db->impl, ns);
}

int sbx_namespace_drop(sbx_db *db, const char *ns)
{
	int rc = names_check_namespace(ns);
	return rc ? rc : db->ops->namespace_drop(db->impl, ns);
}

int sbx_namespace_list(char ***out, sbx_db *db)
{
	return db->ops->namespace_list(out, db->impl);
}

/* ---- schema ---------------------------------------------------------------- */

int sbx_table_create(sbx_db *db, const char *name,
		     const sbx_family_desc *families, size_t nfamilies)
{
	return sbx_table_create_presplit(db, name, families, nfamilies, NULL, 0);
}

int sbx_table_create_presplit(sbx_db *db, const char *name,
			      const sbx_family_desc *families, size_t nfamilies,
			      const sbx_bytes *splits, size_t nsplits)
{
	char ns[SBX_MAX_TABLE_NAME + 1], q[SBX_MAX_TABLE_NAME + 1];
	int rc = names_split_table(name, ns, q);
	if (rc)
		return rc;
	if (nfamilies == 0)
		return sbx_error_set(SBX_EINVAL,
				     "table '%s' must have at least one family",
				     name);
	for (size_t i = 0; i < nfamilies; i++) {
		if ((rc = model_check_family_desc(&families[i])))
			return rc;
		for (size_t j = 0; j < i; j++)
			if (!strcmp(families[i].name, families[j].name))
				return sbx_error_set(SBX_EINVAL,
						     "family '%s' given twice",
						     families[i].name);
	}
	if (nsplits && !splits)
		return sbx_error_set(SBX_EINVAL, "split keys are NULL");
	return db->ops->table_create(db->impl, name, families, nfamilies,
				     splits, nsplits);
}

#define CHECK_TABLE_NAME(name)                                               \
	do {                                                                 \
		char ns_[SBX_MAX_TABLE_NAME + 1], q_[SBX_MAX_TABLE_NAME + 1]; \
		int rc_ = names_split_table((name), ns_, q_);                \
		if (rc_)                                                     \
			return rc_;                                          \
	} while (0)

int sbx_table_exists(bool *exists, sbx_db *db, const char *name)
{
	*exists = false;
	CHECK_TABLE_NAME(name);
	return db->ops->table_exists(db->impl, name, exists);
}

int sbx_table_describe(sbx_table_info **out, sbx_db *db, const char *name)
{
	*out = NULL;
	CHECK_TABLE_NAME(name);
	return db->ops->table_describe(out, db->impl, name);
}

int sbx_table_list(char ***out, sbx_db *db)
{
	return db->ops->table_list(out, db->impl);
}

int sbx_table_alter_family(sbx_db *db, const char *table,
			   const sbx_family_desc *family)
{
	CHECK_TABLE_NAME(table);
	int rc = model_check_family_desc(family);
	return rc ? rc : db->ops->table_alter_family(db->impl, table, family);
}

int sbx_table_delete_family(sbx_db *db, const char *table, const char *family)
{
	CHECK_TABLE_NAME(table);
	int rc = names_check_family(family);
	return rc ? rc : db->ops->table_delete_family(db->impl, table, family);
}

int sbx_table_disable(sbx_db *db, const char *name)
{
	CHECK_TABLE_NAME(name);
	return db->ops->table_set_enabled(db->impl, name, false);
}

int sbx_table_enable(sbx_db *db, const char *name)
{
	CHECK_TABLE_NAME(name);
	return db->ops->table_set_enabled(db->impl, name, true);
}

int sbx_table_is_enabled(bool *enabled, sbx_db *db, const char *name)
{
	*enabled = false;
	CHECK_TABLE_NAME(name);
	return db->ops->table_is_enabled(db->impl, name, enabled);
}

int sbx_table_truncate(sbx_db *db, const char *name)
{
	CHECK_TABLE_NAME(name);
	return db->ops->table_truncate(db->impl, name);
}

int sbx_table_drop(sbx_db *db, const char *name)
{
	CHECK_TABLE_NAME(name);
	return db->ops->table_drop(db->impl, name);
}

int sbx_table_flush(sbx_db *db, const char *name)
{
	CHECK_TABLE_NAME(name);
	return db->ops->table_flush(db->impl, name);
}

int sbx_table_major_compact(sbx_db *db, const char *name)
{
	CHECK_TABLE_NAME(name);
	return db->ops->table_major_compact(db->impl, name);
}

/* ---- bulk load ---- */


struct sbx_bulk_writer {
	sbx_db *db;
	void *impl;
};

int sbx_bulk_writer_open(sbx_bulk_writer **out, sbx_db *db, const char *table,
			 const char *dir)
{
	*out = NULL;
	CHECK_TABLE_NAME(table);
	if (!db->ops->bulk)
		return table_unsupported(db, "bulk load", "bulk load");
	sbx_bulk_writer *w = sbx_calloc(1, sizeof *w);
	if (!w)
		return SBX_ENOMEM_SET();
	int rc = db->ops->bulk->open(&w->impl, db->impl, table, dir);
	if (rc) {
		free(w);
		return rc;
	}
	w->db = db;
	*out = w;
	return SBX_OK;
}

int sbx_bulk_writer_put(sbx_bulk_writer *w, const void *row, size_t row_len,
			const char *family, const void *qualifier,
			size_t qualifier_len, int64_t ts, const void *value,
			size_t value_len)
{
	int rc = model_check_row(row, row_len);
	if (rc)
		return rc;
	if (!family)
		return sbx_error_set(SBX_EINVAL, "family is NULL");
	if ((qualifier_len && !qualifier) || (value_len && !value))
		return sbx_error_set(SBX_EINVAL, "qualifier or value is NULL");
	if (ts < 0)
		return sbx_error_set(SBX_EINVAL, "timestamp %lld is negative",
				     (long long)ts);
	return w->db->ops->bulk->put(w->impl, row, row_len, family, qualifier,
				     qualifier_len, ts, value, value_len);
}

uint64_t sbx_bulk_writer_count(const sbx_bulk_writer *w)
{
	return w ? w->db->ops->bulk->count(w->impl) : 0;
}

int sbx_bulk_writer_finish(sbx_bulk_writer *w)
{
	int rc = w->db->ops->bulk->finish(w->impl);
	free(w);
	return rc;
}

void sbx_bulk_writer_abort(sbx_bulk_writer *w)
{
	if (!w)
		return;
	w->db->ops->bulk->abort(w->impl);
	free(w);
}

int sbx_table_bulk_load(sbx_db *db, const char *table, const char *dir)
{
	CHECK_TABLE_NAME(table);
	if (!dir || !*dir)
		return sbx_error_set(SBX_EINVAL, "bulk load directory is empty");
	return db->ops->bulk ? db->ops->bulk->load(db->impl, table, dir)
			     : table_unsupported(db, "bulk load", "bulk load");
}

/* ---- snapshots ---- */

int sbx_snapshot_create(sbx_db *db, const char *table, const char *snapshot)
{
	CHECK_TABLE_NAME(table);
	int rc = names_check_snapshot(snapshot);
	if (rc)
		return rc;
	return db->ops->snapshots
		   ? db->ops->snapshots->create(db->impl, table, snapshot)
		   : table_unsupported(db, "snapshots", "snapshot");
}

int sbx_snapshot_list(sbx_snapshot_info **out, size_t *n, sbx_db *db)
{
	*out = NULL;
	*n = 0;
	return db->ops->snapshots
		   ? db->ops->snapshots->list(out, n, db->impl)
		   : table_unsupported(db, "snapshots", "snapshot");
}

int sbx_snapshot_clone(sbx_db *db, const char *snapshot, const char *table)
{
	int rc = names_check_snapshot(snapshot);
	if (rc)
		return rc;
	CHECK_TABLE_NAME(table);
	return db->ops->snapshots
		   ? db->ops->snapshots->clone(db->impl, snapshot, table)
		   : table_unsupported(db, "snapshots", "snapshot");
}

int sbx_snapshot_restore(sbx_db *db, const char *snapshot)
{
	int rc = names_check_snapshot(snapshot);
	if (rc)
		return rc;
	return db->ops->snapshots
		   ? db->ops->snapshots->restore(db->impl, snapshot)
		   : table_unsupported(db, "snapshots", "snapshot");
}

int sbx_snapshot_delete(sbx_db *db, const char *snapshot)
{
	int rc = names_check_snapshot(snapshot);
	if (rc)
		return rc;
	return db->ops->snapshots
		   ? db->ops->snapshots->drop(db->impl, snapshot)
		   : table_unsupported(db, "snapshots", "snapshot");
}

/* ---- table handles --------------------------------------------------------- */

int sbx_table_open(sbx_table **out, sbx_db *db, const char *name)
{
	*out = NULL;
	CHECK_TABLE_NAME(name);
	sbx_table *t = sbx_calloc(1, sizeof *t);
	if (!t || !(t->name = sbx_strdup(name))) {
		free(t);
		return SBX_ENOMEM_SET();
	}
	int rc = db->ops->table_open(&t->impl, db->impl, name);
	if (rc) {
		free(t->name);
		free(t);
		return rc;
	}
	t->db = db;
	t->ks = table_keysampler(db, name);
	*out = t;
	return SBX_OK;
}

void sbx_table_close(sbx_table *t)
{
	if (!t)
		return;
	t->db->ops->table_close(t->impl);
	free(t->name);
	free(t);
}

const char *sbx_table_name(const sbx_table *t)
{
	return t->name;
}

/* ---- mutations -------------------------------------------------------------- */

/* The data-path calls below REQUIRE an open table handle (t and its db
 * non-NULL, as the headers say); debug builds assert it. */
int sbx_table_mutate(sbx_result **out_result, sbx_table *t,
		     const sbx_mutation *m)
{
	assert(t && t->db);
	if (out_result)
		*out_result = NULL;
	if (!m || m->nops == 0)
		return sbx_error_set(SBX_EINVAL, "mutation has no operations");
	int rc = t->db->ops->mutate(t->impl, m, out_result);
	if (!rc) {
		table_trace_op(t->db, t->name, "put", mut_row(m), m->row_len);
		table_keysample(t->ks, true, mut_row(m), m->row_len,
				m->arena.len);
	}
	return rc;
}

int sbx_table_batch(int *statuses, sbx_table *t, sbx_mutation *const *ms,
		    size_t n)
{
	assert(t && t->db && (ms || n == 0));
	for (size_t i = 0; i < n; i++)
		if (!ms[i] || ms[i]->nops == 0) {
			if (statuses)
				for (size_t j = 0; j < n; j++)
					statuses[j] = SBX_EINVAL;
			return sbx_error_set(SBX_EINVAL,
					     "batch item %zu has no operations",
					     i);
		}
	if (!t->db->trace && !t->ks)
		return t->db->ops->batch(t->impl, ms, n, statuses);
	/* the trace names the writes that succeeded */
	int *st = statuses ? statuses : sbx_calloc(n ? n : 1, sizeof *st);
	if (!st)
		return SBX_ENOMEM_SET();
	int rc = t->db->ops->batch(t->impl, ms, n, st);
	for (size_t i = 0; i < n; i++)
		if (!st[i]) {
			table_trace_op(t->db, t->name, "put", mut_row(ms[i]),
				       ms[i]->row_len);
			table_keysample(t->ks, true, mut_row(ms[i]),
					ms[i]->row_len, ms[i]->arena.len);
		}
	if (st != statuses)
		free(st);
	return rc;
}

int sbx_table_check_and_mutate(bool *succeeded, sbx_result **out_result,
			       sbx_table *t, const void *row, size_t row_len,
			       const sbx_check *check, const sbx_mutation *m)
{
	assert(succeeded && t && t->db);
	*succeeded = false;
	if (out_result)
		*out_result = NULL;
	int rc = model_check_row(row, row_len);
	if (rc)
		return rc;
	if (!m || m->nops == 0)
		return sbx_error_set(SBX_EINVAL, "mutation has no operations");
	if (m->row_len != row_len || memcmp(mut_row(m), row, row_len))
		return sbx_error_set(SBX_EINVAL,
				     "check-and-mutate: the mutation's row "
				     "differs from the checked row");
	if (!check || !check->family ||
	    (rc = names_check_family(check->family)))
		return rc ? rc : sbx_error_set(SBX_EINVAL,
					       "check needs a family");
	if ((unsigned)check->op > SBX_CMP_NO_OP)
		return sbx_error_set(SBX_EINVAL, "bad compare operator %d",
				     (int)check->op);
	rc = t->db->ops->check_and_mutate(t->impl, check, m, succeeded,
					  out_result);
	if (!rc && *succeeded) {
		table_trace_op(t->db, t->name, "put", row, row_len);
		table_keysample(t->ks, true, row, row_len, m->arena.len);
	}
	return rc;
}

/* Arguments of one row of sbx_db_check_and_mutate_rows. */
static int check_row_change(const sbx_db *db, const sbx_row_change *c,
			    size_t i)
{
	if (!c->table)
		return sbx_error_set(SBX_EINVAL,
				     "check_and_mutate_rows: row %zu has no "
				     "table",
				     i);
	if (c->table->db != db)
		return sbx_error_set(SBX_EINVAL,
				     "check_and_mutate_rows: row %zu: table "
				     "'%s' belongs to another database",
				     i, c->table->name);
	int rc = model_check_row(c->row, c->row_len);
	if (rc)
		return rc;
	if (!c->check && !c->mutation)
		return sbx_error_set(SBX_EINVAL,
				     "check_and_mutate_rows: row %zu has "
				     "neither a check nor a mutation",
				     i);
	const sbx_mutation *m = c->mutation;
	if (m && m->nops == 0)
		return sbx_error_set(SBX_EINVAL,
				     "check_and_mutate_rows: row %zu: the "
				     "mutation has no operations",
				     i);
	if (m && (m->row_len != c->row_len ||
		  memcmp(mut_row(m), c->row, c->row_len)))
		return sbx_error_set(SBX_EINVAL,
				     "check_and_mutate_rows: row %zu: the "
				     "mutation's row differs from the row",
				     i);
	const sbx_check *k = c->check;
	if (k && (!k->family || (rc = names_check_family(k->family))))
		return rc ? rc
			  : sbx_error_set(SBX_EINVAL,
					  "check_and_mutate_rows: row %zu: "
					  "the check needs a family",
					  i);
	if (k && (unsigned)k->op > SBX_CMP_NO_OP)
		return sbx_error_set(SBX_EINVAL, "bad compare operator %d",
				     (int)k->op);
	return SBX_OK;
}

int sbx_db_check_and_mutate_rows(bool *succeeded, size_t *failed, sbx_db *db,
				 const sbx_row_change *rows, size_t n)
{
	assert(succeeded && failed && db);
	*succeeded = false;
	*failed = SIZE_MAX;
	if (!rows || n == 0)
		return sbx_error_set(SBX_EINVAL,
				     "check_and_mutate_rows: no rows");
	if (n > SBX_MAX_ROW_CHANGES)
		return sbx_error_set(SBX_ETOOLARGE,
				     "check_and_mutate_rows: %zu rows, more "
				     "than SBX_MAX_ROW_CHANGES (%d)",
				     n, SBX_MAX_ROW_CHANGES);
	for (size_t i = 0; i < n; i++) {
		int rc = check_row_change(db, &rows[i], i);
		if (rc)
			return rc;
	}
	if (!db->ops->multirow)
		return table_unsupported(db,
					 "atomic multi-row check-and-mutate",
					 "multi-row mutation");
	sbx_backend_row_change *v = sbx_malloc(n * sizeof *v);
	if (!v)
		return SBX_ENOMEM_SET();
	for (size_t i = 0; i < n; i++)
		v[i] = (sbx_backend_row_change){
			rows[i].table->impl, rows[i].row, rows[i].row_len,
			rows[i].check, rows[i].mutation};
	int rc = db->ops->multirow->check_and_mutate_rows(db->impl, v, n,
							  succeeded, failed);
	free(v);
	if (rc || *succeeded) {
		*succeeded = rc == SBX_OK;
		*failed = SIZE_MAX;
	}
	for (size_t i = 0; *succeeded && i < n; i++)
		if (rows[i].mutation)
			table_trace_op(db, rows[i].table->name, "put",
				       rows[i].row, rows[i].row_len);
	return rc;
}

/* ---- reads ------------------------------------------------------------------- */

int sbx_table_get(sbx_result **out, sbx_table *t, const void *row,
		  size_t row_len, const sbx_read_opts *opts)
{
	assert(out && t && t->db);
	*out = NULL;
	int rc = model_check_row(row, row_len);
	if (rc)
		return rc;
	sbx_read_opts defaults;
	if (!opts) {
		sbx_read_opts_init(&defaults);
		opts = &defaults;
	}
	if ((rc = model_check_read_opts(opts)))
		return rc;
	rc = t->db->ops->get(out, t->impl, row, row_len, opts);
	table_trace_op(t->db, t->name, "get", row, row_len);
	table_keysample(t->ks, false, row, row_len,
			!rc && *out ? (*out)->arena.len : 0);
	return rc;
}

int sbx_table_get_many(sbx_result **out, sbx_table *t,
		       const void *const *rows, const size_t *row_lens,
		       size_t n, const sbx_read_opts *opts)
{
	assert((out && rows && row_lens) || n == 0);
	for (size_t i = 0; i < n; i++)
		out[i] = NULL;
	for (size_t i = 0; i < n; i++) {
		int rc = sbx_table_get(&out[i], t, rows[i], row_lens[i], opts);
		if (rc) {
			for (size_t j = 0; j < i; j++) {
				sbx_result_free(out[j]);
				out[j] = NULL;
			}
			return rc;
		}
	}
	return SBX_OK;
}

struct sbx_scanner {
	const sbx_scanner_ops *ops;
	void *state;
	sbx_keysampler *ks; /* every row returned is a read of it */
};

int sbx_scanner_new(sbx_scanner **out, const sbx_scanner_ops *ops,
		    void *state)
{
	assert(out && ops && ops->next && ops->close);
	*out = NULL;
	sbx_scanner *s = sbx_malloc(sizeof *s);
	if (!s) {
		ops->close(state);
		return SBX_ENOMEM_SET();
	}
	s->ops = ops;
	s->state = state;
	s->ks = NULL;
	*out = s;
	return SBX_OK;
}

int sbx_scanner_open(sbx_scanner **out, sbx_table *t, const sbx_scan_opts *opts)
{
	assert(out && t && t->db);
	*out = NULL;
	sbx_scan_opts defaults;
	if (!opts) {
		sbx_scan_opts_init(&defaults);
		opts = &defaults;
	}
	int rc = model_check_scan_opts(opts);
	if (rc)
		return rc;
	void *impl;
	rc = t->db->ops->scanner_open(&impl, t->impl, opts);
	if (rc)
		return rc;
	table_trace_op(t->db, t->name, "scan", opts->start_row,
		       opts->start_row_len);
	rc = sbx_scanner_new(out, &t->db->ops->scanner, impl);
	if (!rc)
		(*out)->ks = t->ks;
	return rc;
}

int sbx_scanner_next(sbx_scanner *s, sbx_result **out)
{
	assert(s && out);
	*out = NULL;
	int rc = s->ops->next(s->state, out);
	if (rc == SBX_OK && *out)
		table_keysample(s->ks, false, (*out)->arena.data,
				(*out)->row_len, (*out)->arena.len);
	return rc;
}

void sbx_scanner_close(sbx_scanner *s)
{
	if (!s)
		return;
	s->ops->close(s->state);
	free(s);
}
