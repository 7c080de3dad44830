/*
 * schema.c - the schema operations: namespaces, and tables with their
 * families (create, alter, delete, enable, truncate, drop, flush, compact).
 * Each runs under admin_lock, and a table's under its write lock too.
 * Crash safety: a column family is created before the catalog record that
 * names it and dropped after the record stops naming it.
 */
#include "engine/engine.h"

#include "common/alloc.h"
#include "common/error.h"
#include "model/names.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The do_* steps run through engine_with_table_admin (REQUIRES: admin_lock
 * and t->lock, write, held) or, flush and major compaction, through
 * engine_with_table_maintenance (t->lock read: the table's reads and
 * writes go on while RocksDB flushes or compacts). */
#define ASSERT_ADMIN(e, t)                                                    \
	do {                                                                  \
		ASSERT_LOCKED(&(e)->admin_lock);                              \
		ASSERT_TABLE_LOCKED(t);                                  \
	} while (0)

/* ---- namespaces ---- */

int engine_ns_create(void *p, const char *ns)
{
	engine *e = p;
	pthread_mutex_lock(&e->admin_lock);
	int rc;
	if (engine_has_namespace(e, ns)) {
		rc = sbx_error_set(SBX_EEXISTS, "namespace '%s' already exists",
				   ns);
	} else {
		char key[CATALOG_KEY_CAP];
		catalog_ns_key(key, ns);
		rc = engine_meta_put(e, key, "{}");
		if (!rc) {
			pthread_rwlock_wrlock(&e->catalog_lock);
			rc = engine_add_namespace(e, ns);
			pthread_rwlock_unlock(&e->catalog_lock);
		}
	}
	pthread_mutex_unlock(&e->admin_lock);
	return rc;
}

int engine_ns_drop(void *p, const char *ns)
{
	engine *e = p;
	if (!strcmp(ns, "default") || !strcmp(ns, "hbase"))
		return sbx_error_set(SBX_EINVAL,
				     "reserved namespace '%s' cannot be dropped",
				     ns);
	pthread_mutex_lock(&e->admin_lock);
	int rc = SBX_OK;
	if (!engine_has_namespace(e, ns))
		rc = sbx_error_set(SBX_ENOTFOUND, "namespace '%s' does not exist",
				   ns);
	for (size_t i = 0; !rc && i < e->ntables; i++)
		if (!strcmp(e->tables[i]->ns, ns))
			rc = sbx_error_set(SBX_ENOTEMPTY,
					   "namespace '%s' still holds table "
					   "'%s'",
					   ns, e->tables[i]->name);
	if (!rc) {
		char key[CATALOG_KEY_CAP];
		catalog_ns_key(key, ns);
		rc = engine_meta_delete(e, key);
	}
	if (!rc) {
		pthread_rwlock_wrlock(&e->catalog_lock);
		engine_remove_namespace(e, ns);
		pthread_rwlock_unlock(&e->catalog_lock);
	}
	pthread_mutex_unlock(&e->admin_lock);
	return rc;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int strv_sorted(char ***out, char **items, size_t n)
{
	qsort(items, n, sizeof *items, cmp_str);
	items[n] = NULL;
	*out = items;
	return SBX_OK;
}

int engine_ns_list(char ***out, void *p)
{
	engine *e = p;
	*out = NULL;
	pthread_rwlock_rdlock(&e->catalog_lock);
	char **v = sbx_calloc(e->nnamespaces + 1, sizeof *v);
	size_t n = 0;
	for (size_t i = 0; v && i < e->nnamespaces; i++)
		if ((v[n] = sbx_strdup(e->namespaces[i])))
			n++;
	pthread_rwlock_unlock(&e->catalog_lock);
	if (!v || n != e->nnamespaces) {
		sbx_strv_free(v);
		return SBX_ENOMEM_SET();
	}
	return strv_sorted(out, v, n);
}

/* ---- tables ---- */

/* A new family object with its column family, named from t's id and
 * family sequence. REQUIRES: admin_lock held. */
static int create_family_cf(engine *e, table *t, const sbx_family_desc *d,
			    family **out)
{
	ASSERT_LOCKED(&e->admin_lock);
	char cf[CF_NAME_CAP];
	snprintf(cf, sizeof cf, "t%llu.f%u", (unsigned long long)t->id,
		 t->next_family_seq++);
	family *f = family_new(e, d, cf);
	if (!f)
		return SBX_ENOMEM_SET();
	rocksdb_options_t *o = family_rocks_options(e, d, &f->gc);
	char *err = NULL;
	f->cf = rocksdb_create_column_family(e->db, o, cf, &err);
	rocksdb_options_destroy(o);
	if (err) {
		f->cf = NULL;
		family_unref(f);
		return engine_rocks_error(err, "creating column family");
	}
	*out = f;
	return SBX_OK;
}

/* Drop f's column family (f itself stays). REQUIRES: admin_lock held. */
static void drop_family_cf(engine *e, family *f)
{
	ASSERT_LOCKED(&e->admin_lock);
	char *err = NULL;
	if (f->cf)
		rocksdb_drop_column_family(e->db, f->cf, &err);
	free(err); /* an orphan left here is dropped at the next open */
}

int engine_table_create(void *p, const char *name,
			const sbx_family_desc *families, size_t n,
			const sbx_bytes *splits, size_t nsplits)
{
	engine *e = p;
	char ns[SBX_MAX_TABLE_NAME + 1], q[SBX_MAX_TABLE_NAME + 1];
	int rc = names_split_table(name, ns, q);
	if (rc)
		return rc;
	if (!strcmp(ns, "hbase"))
		return sbx_error_set(SBX_EINVAL,
				     "namespace 'hbase' is reserved for "
				     "system tables");
	if (e->opts.read_only)
		return sbx_error_set(SBX_EREADONLY, "database is read-only");
	pthread_mutex_lock(&e->admin_lock);
	if (!engine_has_namespace(e, ns)) {
		pthread_mutex_unlock(&e->admin_lock);
		return sbx_error_set(SBX_ENOTFOUND,
				     "namespace '%s' does not exist", ns);
	}
	if (engine_find_table(e, ns, q)) {
		pthread_mutex_unlock(&e->admin_lock);
		return sbx_error_set(SBX_EEXISTS, "table '%s' already exists",
				     name);
	}
	table *t = table_new(ns, q);
	if (!t) {
		pthread_mutex_unlock(&e->admin_lock);
		return SBX_ENOMEM_SET();
	}
	t->id = e->next_table_id++;
	rc = catalog_save_next_id(e);
	for (size_t i = 0; !rc && i < n; i++) {
		family *f;
		rc = create_family_cf(e, t, &families[i], &f);
		if (!rc && (rc = table_add_family(t, f))) {
			drop_family_cf(e, f);
			family_unref(f);
		}
	}
	if (!rc)
		rc = regions_init(e, t, splits, nsplits);
	if (!rc)
		rc = regions_save(e, t);
	if (!rc)
		rc = catalog_save_table(e, t);
	if (!rc) {
		pthread_rwlock_wrlock(&e->catalog_lock);
		rc = engine_add_table(e, t);
		pthread_rwlock_unlock(&e->catalog_lock);
	}
	if (rc) {
		for (size_t i = 0; i < t->nfams; i++)
			drop_family_cf(e, t->fams[i]);
		regions_clear(e, t);
		table_unref(t);
	}
	pthread_mutex_unlock(&e->admin_lock);
	return rc;
}

int engine_table_exists(void *p, const char *name, bool *exists)
{
	table *t;
	int rc = engine_table_get(&t, p, name);
	*exists = rc == SBX_OK;
	if (rc == SBX_OK)
		table_unref(t);
	return rc == SBX_ENOTFOUND || rc == SBX_OK ? SBX_OK : rc;
}

int engine_table_describe(sbx_table_info **out, void *p, const char *name)
{
	table *t;
	int rc = engine_table_get(&t, p, name);
	if (rc)
		return rc;
	sbx_table_info *info = sbx_calloc(1, sizeof *info);
	table_rdlock(t);
	if (info) {
		info->name = sbx_strdup(t->name);
		info->enabled = t->enabled;
		info->nfamilies = t->nfams;
		info->families =
		    sbx_calloc(t->nfams ? t->nfams : 1, sizeof *info->families);
		for (size_t i = 0; info->families && i < t->nfams; i++)
			info->families[i] = t->fams[i]->desc;
	}
	table_rdunlock(t);
	table_unref(t);
	if (!info || !info->name || !info->families) {
		sbx_table_info_free(info);
		return SBX_ENOMEM_SET();
	}
	*out = info;
	return SBX_OK;
}

int engine_table_list(char ***out, void *p)
{
	engine *e = p;
	*out = NULL;
	pthread_rwlock_rdlock(&e->catalog_lock);
	char **v = sbx_calloc(e->ntables + 1, sizeof *v);
	size_t n = 0;
	for (size_t i = 0; v && i < e->ntables; i++)
		if ((v[n] = sbx_strdup(e->tables[i]->name)))
			n++;
	size_t want = e->ntables;
	pthread_rwlock_unlock(&e->catalog_lock);
	if (!v || n != want) {
		sbx_strv_free(v);
		return SBX_ENOMEM_SET();
	}
	return strv_sorted(out, v, n);
}

/* Add a family, or change one's attributes. */
static int do_alter_family(engine *e, table *t, const void *arg)
{
	ASSERT_ADMIN(e, t);
	const sbx_family_desc *d = arg;
	family *f = table_family(t, d->name);
	if (!f) {
		family *nf;
		int rc = create_family_cf(e, t, d, &nf);
		if (rc)
			return rc;
		if ((rc = table_add_family(t, nf)) || (rc = catalog_save_table(e, t))) {
			table_remove_family(t, nf);
			drop_family_cf(e, nf);
			family_unref(nf);
		}
		return rc;
	}
	sbx_family_desc old = f->desc;
	f->desc = *d;
	int rc = catalog_save_table(e, t);
	if (rc) {
		f->desc = old;
		return rc;
	}
	if (f->gc)
		gc_params_update(f->gc, d);
	/* Compression changes take effect for new files now; block size,
	 * bloom and encoding at the next open. */
	static const char *comp[] = {"kNoCompression", "kSnappyCompression",
				     "kLZ4Compression", "kZSTD"};
	const char *keys[] = {"compression"};
	const char *vals[] = {comp[d->compression]};
	char *err = NULL;
	rocksdb_set_options_cf(e->db, f->cf, 1, keys, vals, &err);
	free(err);
	return SBX_OK;
}

int engine_alter_family(void *p, const char *name, const sbx_family_desc *d)
{
	return engine_with_table_admin(p, name, do_alter_family, d);
}

static int do_delete_family(engine *e, table *t, const void *arg)
{
	ASSERT_ADMIN(e, t);
	const char *fname = arg;
	family *f = table_family(t, fname);
	if (!f)
		return sbx_error_set(SBX_ENOFAMILY,
				     "table '%s' has no family '%s'", t->name,
				     fname);
	if (t->nfams == 1)
		return sbx_error_set(SBX_EINVAL,
				     "cannot delete '%s', the only family of "
				     "table '%s'",
				     fname, t->name);
	table_remove_family(t, f);
	int rc = catalog_save_table(e, t);
	if (rc) {
		table_add_family(t, f);
		return rc;
	}
	drop_family_cf(e, f);
	family_unref(f);
	return SBX_OK;
}

int engine_delete_family(void *p, const char *name, const char *family)
{
	return engine_with_table_admin(p, name, do_delete_family, family);
}

static int do_set_enabled(engine *e, table *t, const void *arg)
{
	ASSERT_ADMIN(e, t);
	bool enable = *(const bool *)arg;
	if (t->enabled == enable)
		return sbx_error_set(enable ? SBX_EINVAL : SBX_EDISABLED,
				     "table '%s' is already %s", t->name,
				     enable ? "enabled" : "disabled");
	t->enabled = enable;
	int rc = catalog_save_table(e, t);
	if (rc)
		t->enabled = !enable;
	return rc;
}

int engine_set_enabled(void *p, const char *name, bool enabled)
{
	return engine_with_table_admin(p, name, do_set_enabled, &enabled);
}

static int read_enabled(engine *e, table *t, const void *arg)
{
	(void)e;
	*(bool *)arg = t->enabled;
	return SBX_OK;
}

int engine_is_enabled(void *p, const char *name, bool *enabled)
{
	return engine_with_table_read(p, name, read_enabled, enabled);
}

static int do_truncate(engine *e, table *t, const void *arg)
{
	ASSERT_ADMIN(e, t);
	(void)arg;
	size_t n = t->nfams;
	family **old = t->fams;
	family **fresh = sbx_calloc(n, sizeof *fresh);
	if (!fresh)
		return SBX_ENOMEM_SET();
	int rc = SBX_OK;
	size_t made = 0;
	for (; made < n && !rc; made++)
		rc = create_family_cf(e, t, &old[made]->desc, &fresh[made]);
	if (rc)
		made--;
	if (!rc) {
		t->fams = fresh;
		rc = catalog_save_table(e, t);
		if (rc)
			t->fams = old;
	}
	family **gone = rc ? fresh : old;
	size_t ngone = rc ? made : n;
	for (size_t i = 0; i < ngone; i++) {
		drop_family_cf(e, gone[i]);
		family_unref(gone[i]);
	}
	free(gone);
	return rc;
}

int engine_truncate(void *p, const char *name)
{
	return engine_with_table_admin(p, name, do_truncate, NULL);
}

static int do_drop(engine *e, table *t, const void *arg)
{
	ASSERT_ADMIN(e, t);
	(void)arg;
	if (t->enabled)
		return sbx_error_set(SBX_ENOTDISABLED,
				     "table '%s' must be disabled before drop",
				     t->name);
	char key[CATALOG_KEY_CAP];
	catalog_table_key(key, t);
	int rc = engine_meta_delete(e, key);
	if (rc)
		return rc;
	catalog_regions_key(key, t);
	engine_meta_delete(e, key); /* a stale record is ignored at open */
	t->dropped = true;
	regions_clear(e, t);
	for (size_t i = 0; i < t->nfams; i++)
		drop_family_cf(e, t->fams[i]);
	pthread_rwlock_wrlock(&e->catalog_lock);
	engine_remove_table(e, t);
	pthread_rwlock_unlock(&e->catalog_lock);
	table_unref(t); /* the catalog's reference */
	return SBX_OK;
}

int engine_drop(void *p, const char *name)
{
	return engine_with_table_admin(p, name, do_drop, NULL);
}

static int do_flush(engine *e, table *t, const void *arg)
{
	ASSERT_ADMIN(e, t);
	(void)arg;
	rocksdb_flushoptions_t *fo = rocksdb_flushoptions_create();
	rocksdb_flushoptions_set_wait(fo, 1);
	int rc = SBX_OK;
	for (size_t i = 0; i < t->nfams && !rc; i++) {
		char *err = NULL;
		rocksdb_flush_cf(e->db, fo, t->fams[i]->cf, &err);
		if (err)
			rc = engine_rocks_error(err, "flush");
	}
	rocksdb_flushoptions_destroy(fo);
	for (size_t i = 0; !rc && i < t->nregions; i++)
		region_set_unflushed(t->regions[i], 0);
	return rc;
}

int engine_flush(void *p, const char *name)
{
	return engine_with_table_maintenance(p, name, do_flush, NULL);
}

static int do_major_compact(engine *e, table *t, const void *arg)
{
	int rc = do_flush(e, t, arg);
	if (rc)
		return rc;
	rocksdb_compactoptions_t *co = rocksdb_compactoptions_create();
	rocksdb_compactoptions_set_bottommost_level_compaction(co, 2 /* force */);
	rocksdb_compactoptions_set_exclusive_manual_compaction(co, 1);
	for (size_t i = 0; i < t->nfams; i++)
		rocksdb_compact_range_cf_opt(e->db, t->fams[i]->cf, co, NULL, 0,
					     NULL, 0);
	rocksdb_compactoptions_destroy(co);
	return SBX_OK;
}

int engine_major_compact(void *p, const char *name)
{
	return engine_with_table_maintenance(p, name, do_major_compact, NULL);
}
