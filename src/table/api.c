/*
 * api.c - the public table API: argument checks that do not depend on the
 * backend, the mutation builder, option defaults, and dispatch to the
 * backend behind the sbx_db handle (embedded engine or remote gateway).
 */
#include "common/error.h"
#include "table/backend.h"
#include "table/mutation.h"
#include "table/names.h"
#include "table/result.h"
#include "table/scanner.h"
#include "saltbox/filter.h"
#include "saltbox/regions.h"

#include <stdlib.h>
#include <string.h>

struct sbx_table {
	sbx_db *db;
	void *impl;
	char *name;
};

/* ---- database ------------------------------------------------------------ */

void sbx_db_options_init(sbx_db_options *o)
{
	memset(o, 0, sizeof *o);
	o->create_if_missing = true;
	o->max_cell_size = 10 * 1024 * 1024;
	o->block_cache_bytes = 256u * 1024 * 1024;
	o->region_servers = 4;
	o->metrics_bucket_ms = 1000;
	o->metrics_buckets = 600;
	o->region_routing = true;
}

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
	sbx_db *db = calloc(1, sizeof *db);
	if (!db)
		return SBX_ENOMEM_SET();
	int rc = engine_open(&db->impl, path, opts);
	if (rc) {
		free(db);
		return rc;
	}
	db->ops = &engine_backend_ops;
	*out = db;
	return SBX_OK;
}

int sbx_db_connect(sbx_db **out, const char *url)
{
	*out = NULL;
	sbx_db *db = calloc(1, sizeof *db);
	if (!db)
		return SBX_ENOMEM_SET();
	int rc = remote_connect(&db->impl, url);
	if (rc) {
		free(db);
		return rc;
	}
	db->ops = &remote_backend_ops;
	*out = db;
	return SBX_OK;
}

void sbx_db_close(sbx_db *db)
{
	if (!db)
		return;
	db->ops->close(db->impl);
	free(db);
}

void sbx_strv_free(char **v)
{
	if (!v)
		return;
	for (char **p = v; *p; p++)
		free(*p);
	free(v);
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

int sbx_family_desc_init(sbx_family_desc *f, const char *name)
{
	memset(f, 0, sizeof *f);
	f->max_versions = 1;
	f->min_versions = 0;
	f->ttl_seconds = SBX_TTL_FOREVER;
	f->keep_deleted_cells = SBX_KEEP_DELETED_FALSE;
	f->bloom_filter = SBX_BLOOM_ROW;
	f->block_size = 65536;
	f->compression = SBX_COMPRESSION_NONE;
	f->data_block_encoding = SBX_ENCODING_NONE;
	f->in_memory = false;
	if (!name)
		return SBX_OK;
	int rc = names_check_family(name);
	if (rc)
		return rc;
	memcpy(f->name, name, strlen(name) + 1);
	return SBX_OK;
}

const char *sbx_bloom_name(sbx_bloom b)
{
	static const char *n[] = {"NONE", "ROW", "ROWCOL"};
	return (unsigned)b < 3 ? n[b] : "?";
}

const char *sbx_compression_name(sbx_compression c)
{
	static const char *n[] = {"NONE", "SNAPPY", "LZ4", "ZSTD"};
	return (unsigned)c < 4 ? n[c] : "?";
}

const char *sbx_encoding_name(sbx_block_encoding e)
{
	static const char *n[] = {"NONE", "PREFIX", "DIFF", "FAST_DIFF",
				  "ROW_INDEX_V1"};
	return (unsigned)e < 5 ? n[e] : "?";
}

const char *sbx_keep_deleted_name(sbx_keep_deleted k)
{
	static const char *n[] = {"FALSE", "TRUE", "TTL"};
	return (unsigned)k < 3 ? n[k] : "?";
}

void sbx_table_info_free(sbx_table_info *info)
{
	if (!info)
		return;
	free(info->name);
	free(info->families);
	free(info);
}

static int check_family_desc(const sbx_family_desc *f)
{
	int rc = names_check_family(f->name);
	if (rc)
		return rc;
	if (f->max_versions < 1)
		return sbx_error_set(SBX_EINVAL,
				     "family '%s': VERSIONS must be >= 1, got %d",
				     f->name, f->max_versions);
	if (f->min_versions < 0 || f->min_versions > f->max_versions)
		return sbx_error_set(SBX_EINVAL,
				     "family '%s': MIN_VERSIONS must be in "
				     "[0, VERSIONS=%d], got %d",
				     f->name, f->max_versions, f->min_versions);
	if (f->ttl_seconds <= 0 || f->ttl_seconds > SBX_TTL_FOREVER)
		return sbx_error_set(SBX_EINVAL,
				     "family '%s': TTL must be in [1, %lld] "
				     "seconds, got %lld",
				     f->name, (long long)SBX_TTL_FOREVER,
				     (long long)f->ttl_seconds);
	if (f->block_size < 1024 || f->block_size > 16 * 1024 * 1024)
		return sbx_error_set(SBX_EINVAL,
				     "family '%s': BLOCKSIZE must be in "
				     "[1024, 16777216], got %d",
				     f->name, f->block_size);
	if ((unsigned)f->keep_deleted_cells > SBX_KEEP_DELETED_TTL ||
	    (unsigned)f->bloom_filter > SBX_BLOOM_ROWCOL ||
	    (unsigned)f->compression > SBX_COMPRESSION_ZSTD ||
	    (unsigned)f->data_block_encoding > SBX_ENCODING_ROW_INDEX_V1)
		return sbx_error_set(SBX_EINVAL,
				     "family '%s': attribute out of range",
				     f->name);
	return SBX_OK;
}

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
		if ((rc = check_family_desc(&families[i])))
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
	int rc = check_family_desc(family);
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

static int check_row(const void *row, size_t row_len);

struct sbx_bulk_writer {
	sbx_db *db;
	void *impl;
};

static int no_bulk(const sbx_db *db)
{
	return sbx_error_set(SBX_EUNSUPPORTED,
			     "the %s backend cannot bulk load (HBase's REST "
			     "gateway has no bulk load endpoint)",
			     db->ops->name);
}

int sbx_bulk_writer_open(sbx_bulk_writer **out, sbx_db *db, const char *table,
			 const char *dir)
{
	*out = NULL;
	CHECK_TABLE_NAME(table);
	if (!db->ops->bulk_open)
		return no_bulk(db);
	sbx_bulk_writer *w = calloc(1, sizeof *w);
	if (!w)
		return SBX_ENOMEM_SET();
	int rc = db->ops->bulk_open(&w->impl, db->impl, table, dir);
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
	int rc = check_row(row, row_len);
	if (rc)
		return rc;
	if (!family)
		return sbx_error_set(SBX_EINVAL, "family is NULL");
	if ((qualifier_len && !qualifier) || (value_len && !value))
		return sbx_error_set(SBX_EINVAL, "qualifier or value is NULL");
	if (ts < 0)
		return sbx_error_set(SBX_EINVAL, "timestamp %lld is negative",
				     (long long)ts);
	return w->db->ops->bulk_put(w->impl, row, row_len, family, qualifier,
				    qualifier_len, ts, value, value_len);
}

uint64_t sbx_bulk_writer_count(const sbx_bulk_writer *w)
{
	return w ? w->db->ops->bulk_count(w->impl) : 0;
}

int sbx_bulk_writer_finish(sbx_bulk_writer *w)
{
	int rc = w->db->ops->bulk_finish(w->impl);
	free(w);
	return rc;
}

void sbx_bulk_writer_abort(sbx_bulk_writer *w)
{
	if (!w)
		return;
	w->db->ops->bulk_abort(w->impl);
	free(w);
}

int sbx_table_bulk_load(sbx_db *db, const char *table, const char *dir)
{
	CHECK_TABLE_NAME(table);
	if (!dir || !*dir)
		return sbx_error_set(SBX_EINVAL, "bulk load directory is empty");
	return db->ops->bulk_load ? db->ops->bulk_load(db->impl, table, dir)
				  : no_bulk(db);
}

/* ---- snapshots ---- */

static int no_snapshots(const sbx_db *db)
{
	return sbx_error_set(SBX_EUNSUPPORTED,
			     "the %s backend has no snapshots (HBase's REST "
			     "gateway has no snapshot endpoints)",
			     db->ops->name);
}

int sbx_snapshot_create(sbx_db *db, const char *table, const char *snapshot)
{
	CHECK_TABLE_NAME(table);
	int rc = names_check_snapshot(snapshot);
	if (rc)
		return rc;
	return db->ops->snapshot_create
		       ? db->ops->snapshot_create(db->impl, table, snapshot)
		       : no_snapshots(db);
}

int sbx_snapshot_list(sbx_snapshot_info **out, size_t *n, sbx_db *db)
{
	*out = NULL;
	*n = 0;
	return db->ops->snapshot_list ? db->ops->snapshot_list(out, n, db->impl)
				      : no_snapshots(db);
}

void sbx_snapshot_infos_free(sbx_snapshot_info *v, size_t n)
{
	for (size_t i = 0; v && i < n; i++) {
		free(v[i].name);
		free(v[i].table);
	}
	free(v);
}

int sbx_snapshot_clone(sbx_db *db, const char *snapshot, const char *table)
{
	int rc = names_check_snapshot(snapshot);
	if (rc)
		return rc;
	CHECK_TABLE_NAME(table);
	return db->ops->snapshot_clone
		       ? db->ops->snapshot_clone(db->impl, snapshot, table)
		       : no_snapshots(db);
}

int sbx_snapshot_restore(sbx_db *db, const char *snapshot)
{
	int rc = names_check_snapshot(snapshot);
	if (rc)
		return rc;
	return db->ops->snapshot_restore
		       ? db->ops->snapshot_restore(db->impl, snapshot)
		       : no_snapshots(db);
}

int sbx_snapshot_delete(sbx_db *db, const char *snapshot)
{
	int rc = names_check_snapshot(snapshot);
	if (rc)
		return rc;
	return db->ops->snapshot_delete
		       ? db->ops->snapshot_delete(db->impl, snapshot)
		       : no_snapshots(db);
}

/* ---- table handles --------------------------------------------------------- */

int sbx_table_open(sbx_table **out, sbx_db *db, const char *name)
{
	*out = NULL;
	CHECK_TABLE_NAME(name);
	sbx_table *t = calloc(1, sizeof *t);
	if (!t || !(t->name = strdup(name))) {
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

static int check_row(const void *row, size_t row_len)
{
	if (row_len == 0 || !row)
		return sbx_error_set(SBX_EINVAL, "row key is empty");
	if (row_len > SBX_MAX_ROW_LENGTH)
		return sbx_error_set(SBX_ETOOLARGE,
				     "row key is %zu bytes; the limit is %d",
				     row_len, SBX_MAX_ROW_LENGTH);
	return SBX_OK;
}

int sbx_mutation_new(sbx_mutation **out, const void *row, size_t row_len)
{
	*out = NULL;
	int rc = check_row(row, row_len);
	if (rc)
		return rc;
	sbx_mutation *m = calloc(1, sizeof *m);
	/* room for the row and a few cells up front: regrowing from the
	 * buffer's 64 bytes costs a realloc per doubling */
	if (!m || sbx_buf_reserve(&m->arena, row_len + 512) ||
	    sbx_buf_append(&m->arena, row, row_len)) {
		if (m)
			sbx_buf_free(&m->arena);
		free(m);
		return SBX_ENOMEM_SET();
	}
	m->row_len = row_len;
	*out = m;
	return SBX_OK;
}

void sbx_mutation_free(sbx_mutation *m)
{
	if (!m)
		return;
	sbx_buf_free(&m->arena);
	free(m->ops);
	free(m);
}

void sbx_mutation_set_durability(sbx_mutation *m, sbx_durability d)
{
	m->durability = d;
}

static int add_op(sbx_mutation *m, mut_kind kind, const char *family,
		  const void *qual, size_t qual_len, const void *value,
		  size_t value_len, int64_t ts)
{
	if (family) {
		int rc = names_check_family(family);
		if (rc)
			return rc;
	}
	if (qual_len && !qual)
		return sbx_error_set(SBX_EINVAL, "qualifier is NULL");
	if (value_len && !value)
		return sbx_error_set(SBX_EINVAL, "value is NULL");
	if (ts < 0)
		return sbx_error_set(SBX_EINVAL,
				     "timestamp %lld is negative",
				     (long long)ts);
	if (m->nops == m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 4;
		mut_op *ops = realloc(m->ops, cap * sizeof *ops);
		if (!ops)
			return SBX_ENOMEM_SET();
		m->ops = ops;
		m->cap = cap;
	}
	mut_op op = {.kind = kind, .ts = ts};
	size_t mark = m->arena.len;
	size_t fl = family ? strlen(family) : 0;
	op.family_off = m->arena.len;
	op.family_len = fl;
	if (sbx_buf_append(&m->arena, family ? family : "", fl) ||
	    sbx_buf_push(&m->arena, 0))
		goto nomem;
	op.qual_off = m->arena.len;
	op.qual_len = qual_len;
	if (sbx_buf_append(&m->arena, qual, qual_len))
		goto nomem;
	op.value_off = m->arena.len;
	op.value_len = value_len;
	if (sbx_buf_append(&m->arena, value, value_len))
		goto nomem;
	m->ops[m->nops++] = op;
	return SBX_OK;
nomem:
	m->arena.len = mark;
	return SBX_ENOMEM_SET();
}

int sbx_mutation_put(sbx_mutation *m, const char *family, const void *qualifier,
		     size_t qualifier_len, int64_t ts, const void *value,
		     size_t value_len)
{
	if (!family)
		return sbx_error_set(SBX_EINVAL, "put needs a family");
	return add_op(m, MUT_PUT, family, qualifier, qualifier_len, value,
		      value_len, ts);
}

int sbx_mutation_delete(sbx_mutation *m, sbx_cell_type type,
			const char *family, const void *qualifier,
			size_t qualifier_len, int64_t ts)
{
	if (!family)
		return sbx_error_set(SBX_EINVAL, "delete needs a family");
	switch (type) {
	case SBX_CELL_DELETE:
	case SBX_CELL_DELETE_COLUMN:
		break;
	case SBX_CELL_DELETE_FAMILY:
		qualifier_len = 0;
		break;
	case SBX_CELL_DELETE_FAMILY_VERSION:
		qualifier_len = 0;
		if (ts == SBX_LATEST_TIMESTAMP)
			return sbx_error_set(SBX_EINVAL,
					     "DeleteFamilyVersion needs an "
					     "explicit timestamp");
		break;
	default:
		return sbx_error_set(SBX_EINVAL, "%d is not a delete type",
				     (int)type);
	}
	int rc = add_op(m, MUT_DELETE, family, qualifier, qualifier_len, NULL,
			0, ts);
	if (rc)
		return rc;
	m->ops[m->nops - 1].del_type = type;
	if (type == SBX_CELL_DELETE && ts == SBX_LATEST_TIMESTAMP)
		m->has_rmw = true;
	return SBX_OK;
}

int sbx_mutation_delete_row(sbx_mutation *m, int64_t ts)
{
	return add_op(m, MUT_DELETE_ROW, NULL, NULL, 0, NULL, 0, ts);
}

int sbx_mutation_increment(sbx_mutation *m, const char *family,
			   const void *qualifier, size_t qualifier_len,
			   int64_t delta)
{
	if (!family)
		return sbx_error_set(SBX_EINVAL, "increment needs a family");
	int rc = add_op(m, MUT_INCREMENT, family, qualifier, qualifier_len,
			NULL, 0, SBX_LATEST_TIMESTAMP);
	if (rc)
		return rc;
	m->ops[m->nops - 1].delta = delta;
	m->has_rmw = true;
	return SBX_OK;
}

int sbx_mutation_append(sbx_mutation *m, const char *family,
			const void *qualifier, size_t qualifier_len,
			const void *value, size_t value_len)
{
	if (!family)
		return sbx_error_set(SBX_EINVAL, "append needs a family");
	int rc = add_op(m, MUT_APPEND, family, qualifier, qualifier_len, value,
			value_len, SBX_LATEST_TIMESTAMP);
	if (!rc)
		m->has_rmw = true;
	return rc;
}

int sbx_table_mutate(sbx_result **out_result, sbx_table *t,
		     const sbx_mutation *m)
{
	if (out_result)
		*out_result = NULL;
	if (!m || m->nops == 0)
		return sbx_error_set(SBX_EINVAL, "mutation has no operations");
	return t->db->ops->mutate(t->impl, m, out_result);
}

int sbx_table_batch(int *statuses, sbx_table *t, sbx_mutation *const *ms,
		    size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!ms[i] || ms[i]->nops == 0) {
			if (statuses)
				for (size_t j = 0; j < n; j++)
					statuses[j] = SBX_EINVAL;
			return sbx_error_set(SBX_EINVAL,
					     "batch item %zu has no operations",
					     i);
		}
	return t->db->ops->batch(t->impl, ms, n, statuses);
}

int sbx_table_check_and_mutate(bool *succeeded, sbx_result **out_result,
			       sbx_table *t, const void *row, size_t row_len,
			       const sbx_check *check, const sbx_mutation *m)
{
	*succeeded = false;
	if (out_result)
		*out_result = NULL;
	int rc = check_row(row, row_len);
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
	return t->db->ops->check_and_mutate(t->impl, check, m, succeeded,
					    out_result);
}

/* ---- reads ------------------------------------------------------------------- */

void sbx_read_opts_init(sbx_read_opts *o)
{
	memset(o, 0, sizeof *o);
	o->max_versions = 1;
	o->min_ts = 0;
	o->max_ts = INT64_MAX;
}

void sbx_scan_opts_init(sbx_scan_opts *o)
{
	memset(o, 0, sizeof *o);
	sbx_read_opts_init(&o->read);
	o->start_inclusive = true;
	o->stop_inclusive = false;
}

void sbx_scan_opts_set_prefix(sbx_scan_opts *o, const void *prefix,
			      size_t prefix_len, uint8_t *stop_buf)
{
	o->start_row = prefix;
	o->start_row_len = prefix_len;
	o->start_inclusive = true;
	/* Scan.setStartStopRowForPrefixScan: drop trailing 0xFF bytes, then
	 * increment the last byte; an all-0xFF prefix scans to the end. */
	size_t n = prefix_len;
	const uint8_t *p = prefix;
	while (n > 0 && p[n - 1] == 0xFF)
		n--;
	if (n == 0) {
		o->stop_row = NULL;
		o->stop_row_len = 0;
	} else {
		memcpy(stop_buf, p, n);
		stop_buf[n - 1]++;
		o->stop_row = stop_buf;
		o->stop_row_len = n;
	}
	o->stop_inclusive = false;
}

static int check_read_opts(const sbx_read_opts *o)
{
	if (o->min_ts < 0 || o->max_ts < o->min_ts)
		return sbx_error_set(SBX_EINVAL,
				     "bad time range [%lld, %lld)",
				     (long long)o->min_ts, (long long)o->max_ts);
	if (o->ncolumns && !o->columns)
		return sbx_error_set(SBX_EINVAL, "columns is NULL");
	for (size_t i = 0; i < o->ncolumns; i++) {
		int rc = names_check_family(o->columns[i].family);
		if (rc)
			return rc;
		if (o->raw && o->columns[i].qualifier)
			return sbx_error_set(SBX_EINVAL,
					     "a raw scan cannot select columns "
					     "(only whole families)");
	}
	return SBX_OK;
}

int sbx_table_get(sbx_result **out, sbx_table *t, const void *row,
		  size_t row_len, const sbx_read_opts *opts)
{
	*out = NULL;
	int rc = check_row(row, row_len);
	if (rc)
		return rc;
	sbx_read_opts defaults;
	if (!opts) {
		sbx_read_opts_init(&defaults);
		opts = &defaults;
	}
	if ((rc = check_read_opts(opts)))
		return rc;
	return t->db->ops->get(out, t->impl, row, row_len, opts);
}

int sbx_table_get_many(sbx_result **out, sbx_table *t,
		       const void *const *rows, const size_t *row_lens,
		       size_t n, const sbx_read_opts *opts)
{
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

/* A backend scanner behind the common sbx_scanner contract. */
static int backend_next(void *impl, sbx_table *t, sbx_result **out)
{
	return t->db->ops->scanner_next(impl, out);
}

static void backend_close(void *impl, sbx_table *t)
{
	t->db->ops->scanner_close(impl);
}

static const scanner_ops backend_scanner_ops = {backend_next, backend_close};

int scanner_wrap(sbx_scanner **out, sbx_table *t, const scanner_ops *ops,
		 void *impl)
{
	sbx_scanner *s = calloc(1, sizeof *s);
	if (!s) {
		ops->close(impl, t);
		return SBX_ENOMEM_SET();
	}
	s->t = t;
	s->ops = ops;
	s->impl = impl;
	*out = s;
	return SBX_OK;
}

int scanner_check_opts(const sbx_scan_opts *opts)
{
	int rc = check_read_opts(&opts->read);
	if (rc)
		return rc;
	if (opts->start_row_len > SBX_MAX_ROW_LENGTH ||
	    opts->stop_row_len > SBX_MAX_ROW_LENGTH)
		return sbx_error_set(SBX_ETOOLARGE,
				     "scan bound is longer than %d bytes",
				     SBX_MAX_ROW_LENGTH);
	if (opts->limit < 0 || opts->batch < 0 || opts->caching < 0)
		return sbx_error_set(SBX_EINVAL,
				     "limit, batch and caching must be >= 0");
	if (opts->batch > 0 && opts->read.filter &&
	    sbx_filter_has_filter_row(opts->read.filter))
		return sbx_error_set(SBX_EINVAL,
				     "cannot set batch on a scan using a filter "
				     "that needs whole rows (hasFilterRow)");
	return SBX_OK;
}

int sbx_scanner_open(sbx_scanner **out, sbx_table *t, const sbx_scan_opts *opts)
{
	*out = NULL;
	sbx_scan_opts defaults;
	if (!opts) {
		sbx_scan_opts_init(&defaults);
		opts = &defaults;
	}
	int rc = scanner_check_opts(opts);
	if (rc)
		return rc;
	void *impl;
	rc = t->db->ops->scanner_open(&impl, t->impl, opts);
	return rc ? rc : scanner_wrap(out, t, &backend_scanner_ops, impl);
}

int sbx_scanner_next(sbx_scanner *s, sbx_result **out)
{
	*out = NULL;
	return s->ops->next(s->impl, s->t, out);
}

void sbx_scanner_close(sbx_scanner *s)
{
	if (!s)
		return;
	s->ops->close(s->impl, s->t);
	free(s);
}
