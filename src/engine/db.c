/*
 * db.c - opening and closing the RocksDB instance. A read-only pass reads
 * the catalog first, so every column family opens with its own family's
 * options; column families are created before the catalog record naming
 * them and dropped after it is removed, so any column family no record
 * names is an orphan of an interrupted change and is dropped here.
 */
#include "engine/engine.h"
#include "engine/rowcache.h"

#include "common/alloc.h"
#include "common/error.h"
#include "model/backend.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* RocksDB's background threads for flushes and compactions. */
#define BACKGROUND_JOBS 2

static table *find_table_by_regions_key(engine *e, const char *k, size_t kl)
{
	for (size_t i = 0; i < e->ntables; i++) {
		char key[CATALOG_KEY_CAP];
		catalog_regions_key(key, e->tables[i]);
		if (strlen(key) == kl && !memcmp(key, k, kl))
			return e->tables[i];
	}
	return NULL;
}

/* Region records sort before table records: apply them in a second pass. */
static int load_regions(engine *e, rocksdb_t *db,
			rocksdb_column_family_handle_t *meta)
{
	const size_t plen = strlen(CATALOG_REGIONS_PREFIX);
	rocksdb_readoptions_t *ro = rocksdb_readoptions_create();
	rocksdb_iterator_t *it = rocksdb_create_iterator_cf(db, ro, meta);
	int rc = SBX_OK;
	for (rocksdb_iter_seek(it, CATALOG_REGIONS_PREFIX, plen);
	     !rc && rocksdb_iter_valid(it); rocksdb_iter_next(it)) {
		size_t kl, vl;
		const char *k = rocksdb_iter_key(it, &kl);
		const char *v = rocksdb_iter_value(it, &vl);
		if (kl < plen || memcmp(k, CATALOG_REGIONS_PREFIX, plen))
			break;
		table *t = find_table_by_regions_key(e, k, kl);
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
	/* RocksDB must have no iterator left when it closes, and a table
	 * still referenced by an open handle outlives this loop */
	for (size_t i = 0; i < e->ntables; i++) {
		table_drop_kept_iterator(e->tables[i]);
		table_unref(e->tables[i]);
	}
	free(e->tables);
	for (size_t i = 0; i < e->nnamespaces; i++)
		free(e->namespaces[i]);
	free(e->namespaces);
	for (int i = 0; i < ENGINE_SPARE_WBS; i++) {
		rocksdb_writebatch_t *wb = atomic_load(&e->spare_wb[i].p);
		if (wb)
			rocksdb_writebatch_destroy(wb);
	}
	if (e->meta_cf)
		rocksdb_column_family_handle_destroy(e->meta_cf);
	if (e->db)
		rocksdb_close(e->db);
	if (e->dbopts)
		rocksdb_options_destroy(e->dbopts);
	if (e->cache)
		rocksdb_cache_destroy(e->cache);
	rowcache_free(e->rowcache);
	free(e->path);
	engine_dirlock_release(e->dirlock_fd);
	if (e->wo_meta) {
		rocksdb_writeoptions_destroy(e->wo_meta);
		rocksdb_writeoptions_destroy(e->wo_wal);
		rocksdb_writeoptions_destroy(e->wo_fsync);
		rocksdb_writeoptions_destroy(e->wo_nowal);
	}
	for (int i = 0; i < ENGINE_ROW_STRIPES; i++)
		pthread_mutex_destroy(&e->stripe_lock[i]);
	pthread_mutex_destroy(&e->admin_lock);
	pthread_mutex_destroy(&e->ts_lock);
	pthread_rwlock_destroy(&e->catalog_lock);
	free(e);
}

/* HBase's two reserved namespaces exist in every database. */
static int ensure_namespace(engine *e, const char *ns)
{
	if (engine_has_namespace(e, ns))
		return SBX_OK;
	char key[CATALOG_KEY_CAP];
	catalog_ns_key(key, ns);
	int rc = engine_meta_put(e, key, "{}");
	return rc ? rc : engine_add_namespace(e, ns);
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
	int rc = catalog_load(e, db, h[0]);
	if (!rc)
		rc = load_regions(e, db, h[0]);
	rocksdb_column_family_handle_destroy(h[0]);
	rocksdb_close(db);
	return rc;
}

int engine_open(void **out, const char *path, const sbx_db_options *opts)
{
	*out = NULL;
	engine *e = sbx_calloc(1, sizeof *e);
	if (!e)
		return SBX_ENOMEM_SET();
	e->opts = *opts;
	e->dirlock_fd = -1;
	e->opts.trace_path = NULL; /* the table layer keeps the trace */
	if (!(e->path = sbx_strdup(path))) {
		free(e);
		return SBX_ENOMEM_SET();
	}
	pthread_mutex_init(&e->admin_lock, NULL);
	pthread_mutex_init(&e->ts_lock, NULL);
	pthread_rwlock_init(&e->catalog_lock, NULL);
	for (int i = 0; i < ENGINE_ROW_STRIPES; i++)
		pthread_mutex_init(&e->stripe_lock[i], NULL);
	e->next_table_id = 1;
	e->nservers = opts->region_servers < 1 ? 1
		      : opts->region_servers > ENGINE_MAX_SERVERS ? ENGINE_MAX_SERVERS
		      : opts->region_servers;
	e->cache = rocksdb_cache_create_lru(opts->block_cache_bytes);
	e->rowcache = rowcache_new(opts->row_cache_bytes);
	e->dbopts = rocksdb_options_create();
	rocksdb_options_set_create_if_missing(e->dbopts, opts->create_if_missing);
	rocksdb_options_set_max_background_jobs(e->dbopts, BACKGROUND_JOBS);
	rocksdb_options_set_max_subcompactions(e->dbopts, 1);
	/* sbx_db_options.max_wal_bytes: the meta family's timestamp ceiling
	 * (a write a second) is in every log, and RocksDB deletes a log only
	 * once every family's writes in it are flushed */
	rocksdb_options_set_max_total_wal_size(e->dbopts, opts->max_wal_bytes);
	rocksdb_options_set_allow_mmap_reads(e->dbopts, opts->mmap_reads);
	e->wo_meta = rocksdb_writeoptions_create();
	rocksdb_writeoptions_set_sync(e->wo_meta, 1);
	e->wo_wal = rocksdb_writeoptions_create();
	e->wo_fsync = rocksdb_writeoptions_create();
	rocksdb_writeoptions_set_sync(e->wo_fsync, 1);
	e->wo_nowal = rocksdb_writeoptions_create();
	rocksdb_writeoptions_disable_WAL(e->wo_nowal, 1);

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
	int lrc = engine_dirlock_acquire(&e->dirlock_fd, path);
	if (lrc) {
		engine_free(e);
		return lrc;
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
	const char **names = sbx_calloc(n, sizeof *names);
	rocksdb_options_t **copts = sbx_calloc(n, sizeof *copts);
	rocksdb_column_family_handle_t **handles =
	    sbx_calloc(n, sizeof *handles);
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
		rc = engine_open_error(err, path, "opening database");
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
	if (!rc)
		rc = ensure_namespace(e, "default");
	if (!rc)
		rc = ensure_namespace(e, "hbase");
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

void engine_close(void *p)
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
