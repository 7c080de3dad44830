/*
 * engine.c - the embedded backend: opening the RocksDB instance (a
 * read-only pass reads the catalog first so every column family opens with
 * its own options), the in-memory catalog of namespaces and tables, and the
 * schema operations. Crash safety: column families are created before the
 * catalog record that names them and dropped after it is removed; any
 * column family no record names is an orphan and is dropped at open.
 */
#include "engine/engine.h"

#include "common/error.h"
#include "engine/catalog.h"
#include "saltbox/rowkey.h"
#include "model/backend.h"
#include "model/names.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

int64_t engine_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int engine_rocks_error(char *err, const char *what)
{
	int rc = sbx_error_set(SBX_EIO, "%s: %s", what, err ? err : "?");
	free(err);
	return rc;
}

/* ---- reference counting ---- */

static family *family_new(engine *e, const sbx_family_desc *d,
			  const char *cf_name)
{
	family *f = calloc(1, sizeof *f);
	if (!f)
		return NULL;
	atomic_init(&f->refs, 1);
	f->desc = *d;
	snprintf(f->cf_name, sizeof f->cf_name, "%s", cf_name);
	f->eng = e;
	return f;
}

void family_unref(family *f)
{
	if (f && atomic_fetch_sub(&f->refs, 1) == 1) {
		if (f->cf)
			rocksdb_column_family_handle_destroy(f->cf);
		free(f);
	}
}

static table *table_new(const char *ns, const char *q)
{
	table *t = calloc(1, sizeof *t);
	if (!t)
		return NULL;
	atomic_init(&t->refs, 1);
	pthread_rwlock_init(&t->lock, NULL);
	snprintf(t->ns, sizeof t->ns, "%s", ns);
	snprintf(t->qualifier, sizeof t->qualifier, "%s", q);
	names_canonical(t->name, sizeof t->name, ns, q);
	t->enabled = true;
	t->next_family_seq = 1;
	return t;
}

static void table_free_families(table *t)
{
	for (size_t i = 0; i < t->nfams; i++)
		family_unref(t->fams[i]);
	free(t->fams);
	t->fams = NULL;
	t->nfams = 0;
}

void table_unref(table *t)
{
	if (t && atomic_fetch_sub(&t->refs, 1) == 1) {
		reader_free(atomic_load(&t->spare_reader));
		table_free_families(t);
		for (size_t i = 0; i < t->nregions; i++)
			region_free(t->regions[i]);
		free(t->regions);
		pthread_rwlock_destroy(&t->lock);
		free(t);
	}
}

family *table_family(const table *t, const char *name)
{
	for (size_t i = 0; i < t->nfams; i++)
		if (!strcmp(t->fams[i]->desc.name, name))
			return t->fams[i];
	return NULL;
}

int table_lock_for_data(table *t, bool need_enabled)
{
	pthread_rwlock_rdlock(&t->lock);
	if (t->dropped) {
		pthread_rwlock_unlock(&t->lock);
		return sbx_error_set(SBX_ENOTFOUND, "table '%s' was dropped",
				     t->name);
	}
	if (need_enabled && !t->enabled) {
		pthread_rwlock_unlock(&t->lock);
		return sbx_error_set(SBX_EDISABLED, "table '%s' is disabled",
				     t->name);
	}
	return SBX_OK;
}

static int cmp_family_ptr(const void *a, const void *b)
{
	return strcmp((*(family *const *)a)->desc.name,
		      (*(family *const *)b)->desc.name);
}

static int table_add_family(table *t, family *f)
{
	family **fams = realloc(t->fams, (t->nfams + 1) * sizeof *fams);
	if (!fams)
		return SBX_ENOMEM_SET();
	t->fams = fams;
	t->fams[t->nfams++] = f;
	qsort(t->fams, t->nfams, sizeof *t->fams, cmp_family_ptr);
	return SBX_OK;
}

/* ---- catalog lookups (catalog_lock held) ---- */

static table *catalog_find(engine *e, const char *ns, const char *q)
{
	for (size_t i = 0; i < e->ntables; i++)
		if (!strcmp(e->tables[i]->ns, ns) &&
		    !strcmp(e->tables[i]->qualifier, q))
			return e->tables[i];
	return NULL;
}

static bool catalog_has_ns(engine *e, const char *ns)
{
	for (size_t i = 0; i < e->nnamespaces; i++)
		if (!strcmp(e->namespaces[i], ns))
			return true;
	return false;
}

static int catalog_add_ns(engine *e, const char *ns)
{
	char **v = realloc(e->namespaces, (e->nnamespaces + 1) * sizeof *v);
	if (!v)
		return SBX_ENOMEM_SET();
	e->namespaces = v;
	if (!(v[e->nnamespaces] = strdup(ns)))
		return SBX_ENOMEM_SET();
	e->nnamespaces++;
	return SBX_OK;
}

static int catalog_add_table(engine *e, table *t)
{
	table **v = realloc(e->tables, (e->ntables + 1) * sizeof *v);
	if (!v)
		return SBX_ENOMEM_SET();
	e->tables = v;
	v[e->ntables++] = t;
	return SBX_OK;
}

static void catalog_remove_table(engine *e, table *t)
{
	for (size_t i = 0; i < e->ntables; i++)
		if (e->tables[i] == t) {
			e->tables[i] = e->tables[--e->ntables];
			return;
		}
}

/* Look up a table by user name and take a reference. */
int engine_table_get(table **out, engine *e, const char *name)
{
	char ns[SBX_MAX_TABLE_NAME + 1], q[SBX_MAX_TABLE_NAME + 1];
	*out = NULL;
	int rc = names_split_table(name, ns, q);
	if (rc)
		return rc;
	pthread_rwlock_rdlock(&e->catalog_lock);
	table *t = catalog_find(e, ns, q);
	if (t)
		atomic_fetch_add(&t->refs, 1);
	pthread_rwlock_unlock(&e->catalog_lock);
	if (!t)
		return sbx_error_set(SBX_ENOTFOUND, "table '%s' does not exist",
				     name);
	*out = t;
	return SBX_OK;
}

/* ---- meta records ---- */

int engine_meta_put(engine *e, const char *key, const char *value)
{
	char *err = NULL;
	rocksdb_put_cf(e->db, e->wo_meta, e->meta_cf, key, strlen(key), value,
		       strlen(value), &err);
	return err ? engine_rocks_error(err, "writing catalog") : SBX_OK;
}

int engine_meta_delete(engine *e, const char *key)
{
	char *err = NULL;
	rocksdb_delete_cf(e->db, e->wo_meta, e->meta_cf, key, strlen(key), &err);
	return err ? engine_rocks_error(err, "writing catalog") : SBX_OK;
}

static void table_meta_key(char *out, size_t cap, const table *t)
{
	snprintf(out, cap, "table:%s:%s", t->ns, t->qualifier);
}

static int table_save(engine *e, const table *t)
{
	char key[600];
	table_meta_key(key, sizeof key, t);
	char *json = table_to_json(t);
	if (!json)
		return SBX_ENOMEM_SET();
	int rc = engine_meta_put(e, key, json);
	free(json);
	return rc;
}

static int save_next_id(engine *e)
{
	char buf[32];
	snprintf(buf, sizeof buf, "%llu", (unsigned long long)e->next_table_id);
	return engine_meta_put(e, "next_table_id", buf);
}

/* Parse one table record into a table with families (CF handles unset). */
static int table_from_json(table **out, engine *e, const char *s, size_t n)
{
	json_error_t jerr;
	json_t *o = json_loadb(s, n, 0, &jerr);
	const char *ns = NULL, *q = NULL;
	json_int_t id = 0, seq = 0;
	int enabled = 1;
	json_t *fams = NULL;
	if (!o || json_unpack(o, "{s:s, s:s, s:I, s:I, s:b, s:o}", "namespace",
			      &ns, "qualifier", &q, "id", &id,
			      "next_family_seq", &seq, "enabled", &enabled,
			      "families", &fams) ||
	    !json_is_array(fams)) {
		json_decref(o);
		return sbx_error_set(SBX_EIO, "corrupt table record in catalog");
	}
	table *t = table_new(ns, q);
	int rc = t ? SBX_OK : SBX_ENOMEM_SET();
	if (t) {
		t->id = (uint64_t)id;
		t->next_family_seq = (uint32_t)seq;
		t->enabled = enabled;
	}
	for (size_t i = 0; !rc && i < json_array_size(fams); i++) {
		sbx_family_desc d;
		char cf[64];
		rc = family_from_json(&d, cf, sizeof cf,
				      json_array_get(fams, i));
		family *f = rc ? NULL : family_new(e, &d, cf);
		if (!rc && !f)
			rc = SBX_ENOMEM_SET();
		if (!rc && (rc = table_add_family(t, f)))
			family_unref(f);
	}
	json_decref(o);
	if (rc) {
		if (t)
			table_unref(t);
		return rc;
	}
	*out = t;
	return SBX_OK;
}

/* ---- open / close ---- */

static table *find_table_by_meta_key(engine *e, const char *k, size_t kl)
{
	for (size_t i = 0; i < e->ntables; i++) {
		char key[600];
		snprintf(key, sizeof key, "regions:%s:%s", e->tables[i]->ns,
			 e->tables[i]->qualifier);
		if (strlen(key) == kl && !memcmp(key, k, kl))
			return e->tables[i];
	}
	return NULL;
}

/* Region records sort before table records: apply them in a second pass. */
static int load_regions(engine *e, rocksdb_t *db,
			rocksdb_column_family_handle_t *meta)
{
	rocksdb_readoptions_t *ro = rocksdb_readoptions_create();
	rocksdb_iterator_t *it = rocksdb_create_iterator_cf(db, ro, meta);
	int rc = SBX_OK;
	for (rocksdb_iter_seek(it, "regions:", 8); !rc && rocksdb_iter_valid(it);
	     rocksdb_iter_next(it)) {
		size_t kl, vl;
		const char *k = rocksdb_iter_key(it, &kl);
		const char *v = rocksdb_iter_value(it, &vl);
		if (kl < 8 || memcmp(k, "regions:", 8))
			break;
		table *t = find_table_by_meta_key(e, k, kl);
		if (t)
			rc = regions_from_json(e, t, v, vl);
	}
	rocksdb_iter_destroy(it);
	rocksdb_readoptions_destroy(ro);
	for (size_t i = 0; !rc && i < e->ntables; i++)
		if (!e->tables[i]->nregions)
			rc = regions_init(e, e->tables[i], NULL, 0);
	return rc;
}

static int load_catalog(engine *e, rocksdb_t *db,
			rocksdb_column_family_handle_t *meta)
{
	rocksdb_readoptions_t *ro = rocksdb_readoptions_create();
	rocksdb_iterator_t *it = rocksdb_create_iterator_cf(db, ro, meta);
	int rc = SBX_OK;
	for (rocksdb_iter_seek_to_first(it); !rc && rocksdb_iter_valid(it);
	     rocksdb_iter_next(it)) {
		size_t kl, vl;
		const char *k = rocksdb_iter_key(it, &kl);
		const char *v = rocksdb_iter_value(it, &vl);
		if (kl > 3 && !memcmp(k, "ns:", 3)) {
			char ns[SBX_MAX_TABLE_NAME + 1];
			if (kl - 3 > SBX_MAX_TABLE_NAME) {
				rc = sbx_error_set(SBX_EIO, "corrupt catalog");
				break;
			}
			memcpy(ns, k + 3, kl - 3);
			ns[kl - 3] = 0;
			if (!catalog_has_ns(e, ns))
				rc = catalog_add_ns(e, ns);
		} else if (kl > 6 && !memcmp(k, "table:", 6)) {
			table *t = NULL;
			rc = table_from_json(&t, e, v, vl);
			if (!rc && (rc = catalog_add_table(e, t)))
				table_unref(t);
		} else if (kl == 13 && !memcmp(k, "next_table_id", 13)) {
			char buf[32];
			size_t n = vl < sizeof buf - 1 ? vl : sizeof buf - 1;
			memcpy(buf, v, n);
			buf[n] = 0;
			e->next_table_id = strtoull(buf, NULL, 10);
		}
	}
	char *err = NULL;
	rocksdb_iter_get_error(it, &err);
	if (err && !rc)
		rc = engine_rocks_error(err, "reading catalog");
	else
		free(err);
	rocksdb_iter_destroy(it);
	rocksdb_readoptions_destroy(ro);
	return rc;
}

static family *find_family_by_cf(engine *e, const char *cf)
{
	for (size_t i = 0; i < e->ntables; i++)
		for (size_t j = 0; j < e->tables[i]->nfams; j++)
			if (!strcmp(e->tables[i]->fams[j]->cf_name, cf))
				return e->tables[i]->fams[j];
	return NULL;
}

static void engine_free(engine *e)
{
	for (size_t i = 0; i < e->ntables; i++)
		table_unref(e->tables[i]);
	free(e->tables);
	for (size_t i = 0; i < e->nnamespaces; i++)
		free(e->namespaces[i]);
	free(e->namespaces);
	rocksdb_writebatch_t *wb = atomic_load(&e->spare_wb);
	if (wb)
		rocksdb_writebatch_destroy(wb);
	if (e->meta_cf)
		rocksdb_column_family_handle_destroy(e->meta_cf);
	if (e->db)
		rocksdb_close(e->db);
	if (e->dbopts)
		rocksdb_options_destroy(e->dbopts);
	if (e->cache)
		rocksdb_cache_destroy(e->cache);
	free(e->path);
	if (e->wo_meta) {
		rocksdb_writeoptions_destroy(e->wo_meta);
		rocksdb_writeoptions_destroy(e->wo_wal);
		rocksdb_writeoptions_destroy(e->wo_fsync);
		rocksdb_writeoptions_destroy(e->wo_nowal);
	}
	for (int i = 0; i < ENGINE_ROW_STRIPES; i++)
		pthread_mutex_destroy(&e->stripe_lock[i]);
	if (e->trace)
		fclose(e->trace);
	pthread_mutex_destroy(&e->trace_lock);
	pthread_mutex_destroy(&e->admin_lock);
	pthread_rwlock_destroy(&e->catalog_lock);
	free(e);
}

void engine_trace(engine *e, const char *op, const uint8_t *row, size_t len)
{
	if (!e->trace || !len)
		return;
	sbx_buf line = {0};
	if (!sbx_buf_printf(&line, "%s\t", op) &&
	    !sbx_key_to_binary_string(&line, row, len) &&
	    !sbx_buf_push(&line, '\n')) {
		pthread_mutex_lock(&e->trace_lock);
		fwrite(line.data, 1, line.len, e->trace); /* best effort */
		pthread_mutex_unlock(&e->trace_lock);
	}
	sbx_buf_free(&line);
}

/* First pass: read the catalog with only the meta column family open. */
static int read_catalog_readonly(engine *e, const char *path)
{
	const char *names[] = {"default"};
	const rocksdb_options_t *opts[] = {e->dbopts};
	rocksdb_column_family_handle_t *h[1] = {NULL};
	char *err = NULL;
	rocksdb_t *db = rocksdb_open_for_read_only_column_families(
		e->dbopts, path, 1, names, opts, h, 0, &err);
	if (err)
		return engine_rocks_error(err, "opening database to read catalog");
	int rc = load_catalog(e, db, h[0]);
	if (!rc)
		rc = load_regions(e, db, h[0]);
	rocksdb_column_family_handle_destroy(h[0]);
	rocksdb_close(db);
	return rc;
}

int engine_open(void **out, const char *path, const sbx_db_options *opts)
{
	*out = NULL;
	engine *e = calloc(1, sizeof *e);
	if (!e)
		return SBX_ENOMEM_SET();
	e->opts = *opts;
	e->opts.trace_path = NULL; /* the file is opened below; no copy kept */
	if (!(e->path = strdup(path))) {
		free(e);
		return SBX_ENOMEM_SET();
	}
	pthread_mutex_init(&e->admin_lock, NULL);
	pthread_mutex_init(&e->trace_lock, NULL);
	pthread_rwlock_init(&e->catalog_lock, NULL);
	for (int i = 0; i < ENGINE_ROW_STRIPES; i++)
		pthread_mutex_init(&e->stripe_lock[i], NULL);
	e->next_table_id = 1;
	e->nservers = opts->region_servers < 1 ? 1
		      : opts->region_servers > ENGINE_MAX_SERVERS ? ENGINE_MAX_SERVERS
		      : opts->region_servers;
	e->cache = rocksdb_cache_create_lru(opts->block_cache_bytes);
	e->dbopts = rocksdb_options_create();
	rocksdb_options_set_create_if_missing(e->dbopts, opts->create_if_missing);
	rocksdb_options_set_max_background_jobs(e->dbopts, 2);
	rocksdb_options_set_max_subcompactions(e->dbopts, 1);
	e->wo_meta = rocksdb_writeoptions_create();
	rocksdb_writeoptions_set_sync(e->wo_meta, 1);
	e->wo_wal = rocksdb_writeoptions_create();
	e->wo_fsync = rocksdb_writeoptions_create();
	rocksdb_writeoptions_set_sync(e->wo_fsync, 1);
	e->wo_nowal = rocksdb_writeoptions_create();
	rocksdb_writeoptions_disable_WAL(e->wo_nowal, 1);

	if (opts->trace_path && !(e->trace = fopen(opts->trace_path, "a"))) {
		int err = errno;
		engine_free(e);
		return sbx_error_set(SBX_EIO, "cannot open trace file '%s': %s",
				     opts->trace_path, strerror(err));
	}
	struct stat st;
	bool exists = stat(path, &st) == 0;
	if (!exists && !opts->create_if_missing) {
		engine_free(e);
		return sbx_error_set(SBX_ENOTFOUND, "no database at '%s'", path);
	}
	if (!exists && mkdir(path, 0755) != 0 && errno != EEXIST) {
		int err = errno;
		engine_free(e);
		return sbx_error_set(SBX_EIO, "cannot create '%s': %s", path,
				     strerror(err));
	}

	size_t ncf = 0;
	char *err = NULL;
	char **cfs = rocksdb_list_column_families(e->dbopts, path, &ncf, &err);
	free(err); /* a new database has no column family list yet */
	err = NULL;
	int rc = SBX_OK;
	if (cfs && ncf > 0)
		rc = read_catalog_readonly(e, path);
	if (rc) {
		rocksdb_list_column_families_destroy(cfs, ncf);
		engine_free(e);
		return rc;
	}

	bool have_cfs = cfs && ncf > 0;
	size_t n = have_cfs ? ncf : 1;
	const char **names = calloc(n, sizeof *names);
	rocksdb_options_t **copts = calloc(n, sizeof *copts);
	rocksdb_column_family_handle_t **handles = calloc(n, sizeof *handles);
	if (!names || !copts || !handles) {
		rc = SBX_ENOMEM_SET();
		goto done;
	}
	for (size_t i = 0; i < n; i++) {
		names[i] = have_cfs ? cfs[i] : "default";
		family *f = find_family_by_cf(e, names[i]);
		if (f)
			copts[i] = family_rocks_options(e, &f->desc, &f->gc);
		else
			copts[i] = rocksdb_options_create_copy(e->dbopts);
	}
	rocksdb_options_set_create_missing_column_families(e->dbopts, 1);
	e->db = rocksdb_open_column_families(
		e->dbopts, path, (int)n, names,
		(const rocksdb_options_t *const *)copts, handles, &err);
	if (err) {
		rc = engine_rocks_error(err, "opening database");
		goto done;
	}
	for (size_t i = 0; i < n; i++) {
		family *f = find_family_by_cf(e, names[i]);
		if (!strcmp(names[i], "default")) {
			e->meta_cf = handles[i];
		} else if (f) {
			f->cf = handles[i];
		} else {
			/* orphan of an interrupted create/drop/truncate */
			rocksdb_drop_column_family(e->db, handles[i], &err);
			free(err);
			err = NULL;
			rocksdb_column_family_handle_destroy(handles[i]);
		}
	}
	for (size_t i = 0; i < e->ntables; i++)
		for (size_t j = 0; j < e->tables[i]->nfams; j++)
			if (!e->tables[i]->fams[j]->cf && !rc)
				rc = sbx_error_set(SBX_EIO,
						   "catalog names column family "
						   "'%s' which is missing",
						   e->tables[i]->fams[j]->cf_name);
	if (!rc && !catalog_has_ns(e, "default")) {
		if (!(rc = engine_meta_put(e, "ns:default", "{}")))
			rc = catalog_add_ns(e, "default");
	}
	if (!rc && !catalog_has_ns(e, "hbase")) {
		if (!(rc = engine_meta_put(e, "ns:hbase", "{}")))
			rc = catalog_add_ns(e, "hbase");
	}
done:
	for (size_t i = 0; copts && i < n; i++)
		if (copts[i])
			rocksdb_options_destroy(copts[i]);
	free(copts);
	free(names);
	free(handles);
	if (cfs)
		rocksdb_list_column_families_destroy(cfs, ncf);
	if (rc) {
		engine_free(e);
		return rc;
	}
	*out = e;
	return SBX_OK;
}

static void engine_close(void *p)
{
	engine *e = p;
	/* Family handles must go before the database closes. */
	for (size_t i = 0; i < e->ntables; i++)
		for (size_t j = 0; j < e->tables[i]->nfams; j++) {
			family *f = e->tables[i]->fams[j];
			if (f->cf) {
				rocksdb_column_family_handle_destroy(f->cf);
				f->cf = NULL;
			}
		}
	engine_free(e);
}

/* ---- namespaces ---- */

static int engine_ns_create(void *p, const char *ns)
{
	engine *e = p;
	pthread_mutex_lock(&e->admin_lock);
	int rc;
	if (catalog_has_ns(e, ns)) {
		rc = sbx_error_set(SBX_EEXISTS, "namespace '%s' already exists",
				   ns);
	} else {
		char key[300];
		snprintf(key, sizeof key, "ns:%s", ns);
		rc = engine_meta_put(e, key, "{}");
		if (!rc) {
			pthread_rwlock_wrlock(&e->catalog_lock);
			rc = catalog_add_ns(e, ns);
			pthread_rwlock_unlock(&e->catalog_lock);
		}
	}
	pthread_mutex_unlock(&e->admin_lock);
	return rc;
}

static int engine_ns_drop(void *p, const char *ns)
{
	engine *e = p;
	if (!strcmp(ns, "default") || !strcmp(ns, "hbase"))
		return sbx_error_set(SBX_EINVAL,
				     "reserved namespace '%s' cannot be dropped",
				     ns);
	pthread_mutex_lock(&e->admin_lock);
	int rc = SBX_OK;
	if (!catalog_has_ns(e, ns))
		rc = sbx_error_set(SBX_ENOTFOUND, "namespace '%s' does not exist",
				   ns);
	for (size_t i = 0; !rc && i < e->ntables; i++)
		if (!strcmp(e->tables[i]->ns, ns))
			rc = sbx_error_set(SBX_ENOTEMPTY,
					   "namespace '%s' still holds table "
					   "'%s'",
					   ns, e->tables[i]->name);
	if (!rc) {
		char key[300];
		snprintf(key, sizeof key, "ns:%s", ns);
		rc = engine_meta_delete(e, key);
	}
	if (!rc) {
		pthread_rwlock_wrlock(&e->catalog_lock);
		for (size_t i = 0; i < e->nnamespaces; i++)
			if (!strcmp(e->namespaces[i], ns)) {
				free(e->namespaces[i]);
				e->namespaces[i] = e->namespaces[--e->nnamespaces];
				break;
			}
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

static int engine_ns_list(char ***out, void *p)
{
	engine *e = p;
	*out = NULL;
	pthread_rwlock_rdlock(&e->catalog_lock);
	char **v = calloc(e->nnamespaces + 1, sizeof *v);
	size_t n = 0;
	for (size_t i = 0; v && i < e->nnamespaces; i++)
		if ((v[n] = strdup(e->namespaces[i])))
			n++;
	pthread_rwlock_unlock(&e->catalog_lock);
	if (!v || n != e->nnamespaces) {
		sbx_strv_free(v);
		return SBX_ENOMEM_SET();
	}
	return strv_sorted(out, v, n);
}

/* ---- tables ---- */

static int create_family_cf(engine *e, table *t, const sbx_family_desc *d,
			    family **out)
{
	char cf[64];
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

static void drop_family_cf(engine *e, family *f)
{
	char *err = NULL;
	if (f->cf)
		rocksdb_drop_column_family(e->db, f->cf, &err);
	free(err); /* an orphan left here is dropped at the next open */
}

static int engine_table_create(void *p, const char *name,
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
	if (!catalog_has_ns(e, ns)) {
		pthread_mutex_unlock(&e->admin_lock);
		return sbx_error_set(SBX_ENOTFOUND,
				     "namespace '%s' does not exist", ns);
	}
	if (catalog_find(e, ns, q)) {
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
	rc = save_next_id(e);
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
		rc = table_save(e, t);
	if (!rc) {
		pthread_rwlock_wrlock(&e->catalog_lock);
		rc = catalog_add_table(e, t);
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

static int engine_table_exists(void *p, const char *name, bool *exists)
{
	table *t;
	int rc = engine_table_get(&t, p, name);
	*exists = rc == SBX_OK;
	if (rc == SBX_OK)
		table_unref(t);
	return rc == SBX_ENOTFOUND || rc == SBX_OK ? SBX_OK : rc;
}

static int engine_table_describe(sbx_table_info **out, void *p,
				 const char *name)
{
	table *t;
	int rc = engine_table_get(&t, p, name);
	if (rc)
		return rc;
	sbx_table_info *info = calloc(1, sizeof *info);
	pthread_rwlock_rdlock(&t->lock);
	if (info) {
		info->name = strdup(t->name);
		info->enabled = t->enabled;
		info->nfamilies = t->nfams;
		info->families = calloc(t->nfams ? t->nfams : 1,
					sizeof *info->families);
		for (size_t i = 0; info->families && i < t->nfams; i++)
			info->families[i] = t->fams[i]->desc;
	}
	pthread_rwlock_unlock(&t->lock);
	table_unref(t);
	if (!info || !info->name || !info->families) {
		sbx_table_info_free(info);
		return SBX_ENOMEM_SET();
	}
	*out = info;
	return SBX_OK;
}

static int engine_table_list(char ***out, void *p)
{
	engine *e = p;
	*out = NULL;
	pthread_rwlock_rdlock(&e->catalog_lock);
	char **v = calloc(e->ntables + 1, sizeof *v);
	size_t n = 0;
	for (size_t i = 0; v && i < e->ntables; i++)
		if ((v[n] = strdup(e->tables[i]->name)))
			n++;
	size_t want = e->ntables;
	pthread_rwlock_unlock(&e->catalog_lock);
	if (!v || n != want) {
		sbx_strv_free(v);
		return SBX_ENOMEM_SET();
	}
	return strv_sorted(out, v, n);
}

/* Run an admin step on a table under the admin lock and its write lock. */
int engine_with_table_admin(engine *e, const char *name, table_fn fn,
			    const void *arg)
{
	if (e->opts.read_only)
		return sbx_error_set(SBX_EREADONLY, "database is read-only");
	table *t;
	int rc = engine_table_get(&t, e, name);
	if (rc)
		return rc;
	pthread_mutex_lock(&e->admin_lock);
	pthread_rwlock_wrlock(&t->lock);
	rc = t->dropped ? sbx_error_set(SBX_ENOTFOUND,
					"table '%s' does not exist", name)
			: fn(e, t, arg);
	pthread_rwlock_unlock(&t->lock);
	pthread_mutex_unlock(&e->admin_lock);
	table_unref(t);
	return rc;
}

/* Run a read of a table's state under its read lock. */
int engine_with_table_read(engine *e, const char *name, table_fn fn,
			   const void *arg)
{
	table *t;
	int rc = engine_table_get(&t, e, name);
	if (rc)
		return rc;
	pthread_rwlock_rdlock(&t->lock);
	rc = fn(e, t, arg);
	pthread_rwlock_unlock(&t->lock);
	table_unref(t);
	return rc;
}

static int do_alter_family(engine *e, table *t, const void *arg)
{
	const sbx_family_desc *d = arg;
	family *f = table_family(t, d->name);
	if (!f) {
		family *nf;
		int rc = create_family_cf(e, t, d, &nf);
		if (rc)
			return rc;
		if ((rc = table_add_family(t, nf)) || (rc = table_save(e, t))) {
			for (size_t i = 0; i < t->nfams; i++)
				if (t->fams[i] == nf)
					t->fams[i] = t->fams[--t->nfams];
			qsort(t->fams, t->nfams, sizeof *t->fams,
			      cmp_family_ptr);
			drop_family_cf(e, nf);
			family_unref(nf);
		}
		return rc;
	}
	sbx_family_desc old = f->desc;
	f->desc = *d;
	int rc = table_save(e, t);
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

static int engine_alter_family(void *p, const char *name,
			       const sbx_family_desc *d)
{
	return engine_with_table_admin(p, name, do_alter_family, d);
}

static int do_delete_family(engine *e, table *t, const void *arg)
{
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
	for (size_t i = 0; i < t->nfams; i++)
		if (t->fams[i] == f) {
			memmove(&t->fams[i], &t->fams[i + 1],
				(t->nfams - i - 1) * sizeof *t->fams);
			t->nfams--;
			break;
		}
	int rc = table_save(e, t);
	if (rc) {
		table_add_family(t, f);
		return rc;
	}
	drop_family_cf(e, f);
	family_unref(f);
	return SBX_OK;
}

static int engine_delete_family(void *p, const char *name, const char *family)
{
	return engine_with_table_admin(p, name, do_delete_family, family);
}

static int do_set_enabled(engine *e, table *t, const void *arg)
{
	bool enable = *(const bool *)arg;
	if (t->enabled == enable)
		return sbx_error_set(enable ? SBX_EINVAL : SBX_EDISABLED,
				     "table '%s' is already %s", t->name,
				     enable ? "enabled" : "disabled");
	t->enabled = enable;
	int rc = table_save(e, t);
	if (rc)
		t->enabled = !enable;
	return rc;
}

static int engine_set_enabled(void *p, const char *name, bool enabled)
{
	return engine_with_table_admin(p, name, do_set_enabled, &enabled);
}

static int read_enabled(engine *e, table *t, const void *arg)
{
	(void)e;
	*(bool *)arg = t->enabled;
	return SBX_OK;
}

static int engine_is_enabled(void *p, const char *name, bool *enabled)
{
	return engine_with_table_read(p, name, read_enabled, enabled);
}

static int do_truncate(engine *e, table *t, const void *arg)
{
	(void)arg;
	size_t n = t->nfams;
	family **old = t->fams;
	family **fresh = calloc(n, sizeof *fresh);
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
		rc = table_save(e, t);
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

static int engine_truncate(void *p, const char *name)
{
	return engine_with_table_admin(p, name, do_truncate, NULL);
}

static int do_drop(engine *e, table *t, const void *arg)
{
	(void)arg;
	if (t->enabled)
		return sbx_error_set(SBX_ENOTDISABLED,
				     "table '%s' must be disabled before drop",
				     t->name);
	char key[600];
	table_meta_key(key, sizeof key, t);
	int rc = engine_meta_delete(e, key);
	if (rc)
		return rc;
	snprintf(key, sizeof key, "regions:%s:%s", t->ns, t->qualifier);
	engine_meta_delete(e, key); /* a stale record is ignored at open */
	t->dropped = true;
	regions_clear(e, t);
	for (size_t i = 0; i < t->nfams; i++)
		drop_family_cf(e, t->fams[i]);
	pthread_rwlock_wrlock(&e->catalog_lock);
	catalog_remove_table(e, t);
	pthread_rwlock_unlock(&e->catalog_lock);
	table_unref(t); /* the catalog's reference */
	return SBX_OK;
}

static int engine_drop(void *p, const char *name)
{
	return engine_with_table_admin(p, name, do_drop, NULL);
}

static int do_flush(engine *e, table *t, const void *arg)
{
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
		atomic_store(&t->regions[i]->unflushed, 0);
	return rc;
}

static int engine_flush(void *p, const char *name)
{
	return engine_with_table_admin(p, name, do_flush, NULL);
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

static int engine_major_compact(void *p, const char *name)
{
	return engine_with_table_admin(p, name, do_major_compact, NULL);
}

/* ---- table handles ---- */

static int engine_table_open(void **out, void *p, const char *name)
{
	table_handle *h = calloc(1, sizeof *h);
	if (!h)
		return SBX_ENOMEM_SET();
	int rc = engine_table_get(&h->t, p, name);
	if (rc) {
		free(h);
		return rc;
	}
	h->eng = p;
	*out = h;
	return SBX_OK;
}

static void engine_table_close(void *p)
{
	table_handle *h = p;
	table_unref(h->t);
	free(h);
}

static int engine_get(sbx_result **out, void *p, const uint8_t *row,
		      size_t row_len, const sbx_read_opts *o)
{
	table_handle *h = p;
	int rc = table_lock_for_data(h->t, true);
	if (rc)
		return rc;
	rc = engine_read_row(out, h->eng, h->t, row, row_len, o);
	pthread_rwlock_unlock(&h->t->lock);
	engine_trace(h->eng, "get", row, row_len);
	return rc;
}

typedef struct engine_scanner {
	table_handle *h;
	reader *r;
} engine_scanner;

static int engine_scanner_open(void **out, void *p, const sbx_scan_opts *o)
{
	table_handle *h = p;
	engine_scanner *s = calloc(1, sizeof *s);
	if (!s)
		return SBX_ENOMEM_SET();
	int rc = table_lock_for_data(h->t, true);
	if (!rc) {
		rc = reader_open(&s->r, h->eng, h->t, o);
		pthread_rwlock_unlock(&h->t->lock);
	}
	if (rc) {
		free(s);
		return rc;
	}
	s->h = h;
	*out = s;
	engine_trace(h->eng, "scan", o->start_row, o->start_row_len);
	return SBX_OK;
}

static int engine_scanner_next(void *p, sbx_result **out)
{
	engine_scanner *s = p;
	int rc = table_lock_for_data(s->h->t, true);
	if (rc)
		return rc;
	rc = reader_next(s->r, out);
	pthread_rwlock_unlock(&s->h->t->lock);
	return rc;
}

static void engine_scanner_close(void *p)
{
	engine_scanner *s = p;
	reader_close(s->r);
	free(s);
}

static const sbx_backend_regions engine_regions_ops = {
    engine_regions,
    engine_split,
    engine_merge,
    engine_set_split_policy,
    engine_get_split_policy,
    engine_load,
    engine_region_servers,
};

static const sbx_backend_snapshots engine_snapshot_ops = {
    engine_snapshot_create,  engine_snapshot_list,   engine_snapshot_clone,
    engine_snapshot_restore, engine_snapshot_delete,
};

static const sbx_backend_bulk engine_bulk_ops = {
    engine_bulk_open,	engine_bulk_put,   engine_bulk_count,
    engine_bulk_finish, engine_bulk_abort, engine_bulk_load,
};

const sbx_backend_ops engine_backend_ops = {
    .name = "embedded",
    .close = engine_close,
    .namespace_create = engine_ns_create,
    .namespace_drop = engine_ns_drop,
    .namespace_list = engine_ns_list,
    .table_create = engine_table_create,
    .table_exists = engine_table_exists,
    .table_describe = engine_table_describe,
    .table_list = engine_table_list,
    .table_alter_family = engine_alter_family,
    .table_delete_family = engine_delete_family,
    .table_set_enabled = engine_set_enabled,
    .table_is_enabled = engine_is_enabled,
    .table_truncate = engine_truncate,
    .table_drop = engine_drop,
    .table_flush = engine_flush,
    .table_major_compact = engine_major_compact,
    .table_open = engine_table_open,
    .table_close = engine_table_close,
    .mutate = engine_mutate,
    .batch = engine_batch,
    .check_and_mutate = engine_check_and_mutate,
    .get = engine_get,
    .scanner_open = engine_scanner_open,
    .scanner = {engine_scanner_next, engine_scanner_close},
    .regions = &engine_regions_ops,
    .snapshots = &engine_snapshot_ops,
    .bulk = &engine_bulk_ops,
};
