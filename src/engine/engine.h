/*
 * engine.h - the embedded backend's internal structures: one RocksDB
 * instance per database directory, one RocksDB column family per table
 * family, a catalog of tables kept in the default column family, and
 * striped row locks that make each row's mutations atomic and ordered.
 */
#ifndef SBX_ENGINE_ENGINE_H
#define SBX_ENGINE_ENGINE_H

#include "common/buf.h"
#include "saltbox/db.h"
#include "saltbox/table.h"

#include <pthread.h>
#include <rocksdb/c.h>
#include <stdatomic.h>

#define ENGINE_ROW_STRIPES 1024

/* Garbage-collection parameters of a family, read by compaction filters
 * running on background threads; updated by alter under `lock`. */
typedef struct gc_params {
	pthread_mutex_t lock;
	int max_versions;
	int min_versions;
	int64_t ttl_seconds;
	sbx_keep_deleted keep_deleted;
} gc_params;

typedef struct family {
	atomic_int refs;
	sbx_family_desc desc; /* changes only under the table's write lock */
	char cf_name[64];
	rocksdb_column_family_handle_t *cf;
	gc_params *gc; /* owned by the CF's compaction filter factory */
	struct engine *eng;
} family;

typedef struct table {
	atomic_int refs;
	pthread_rwlock_t lock; /* read: data operations; write: admin */
	char ns[256];
	char qualifier[256];
	char name[520]; /* canonical: "t" or "ns:t" */
	uint64_t id;
	uint32_t next_family_seq;
	bool enabled;
	bool dropped;
	family **fams; /* sorted by name */
	size_t nfams;
} table;

typedef struct engine {
	rocksdb_t *db;
	rocksdb_options_t *dbopts;
	rocksdb_cache_t *cache;
	rocksdb_column_family_handle_t *meta_cf;
	rocksdb_writeoptions_t *wo_meta;
	rocksdb_writeoptions_t *wo_wal;
	rocksdb_writeoptions_t *wo_fsync;
	rocksdb_writeoptions_t *wo_nowal;
	sbx_db_options opts;

	pthread_mutex_t admin_lock;    /* serializes schema changes */
	pthread_rwlock_t catalog_lock; /* guards tables[] and namespaces[] */
	table **tables;
	size_t ntables;
	char **namespaces;
	size_t nnamespaces;
	uint64_t next_table_id;

	pthread_mutex_t stripe_lock[ENGINE_ROW_STRIPES];
	int64_t stripe_ts[ENGINE_ROW_STRIPES];
} engine;

/* A table handle: the engine plus a counted reference to the table. */
typedef struct table_handle {
	engine *eng;
	table *t;
} table_handle;

/* ---- engine.c ---- */
int64_t engine_now_ms(void);
void family_unref(family *f);
void table_unref(table *t);
/* Find a family of t by name (caller holds t->lock). */
family *table_family(const table *t, const char *name);
/* Lock t for a data operation: read lock + dropped/enabled checks. On
 * success the caller must pthread_rwlock_unlock(&t->lock). */
int table_lock_for_data(table *t, bool need_enabled);
int engine_rocks_error(char *err, const char *what);

/* ---- gc.c: per-family RocksDB options ---- */
rocksdb_options_t *family_rocks_options(engine *e, const sbx_family_desc *d,
					gc_params **gc_out);
void gc_params_update(gc_params *gc, const sbx_family_desc *d);

/* ---- read.c ---- */
typedef struct reader reader;
/* A reader over rows [lower, upper) of table t (bounds as scan options).
 * REQUIRES: caller holds t->lock for reading during reader_open and each
 * reader_next call. */
int reader_open(reader **out, engine *e, table *t, const sbx_scan_opts *o);
int reader_next(reader *r, sbx_result **out);
void reader_close(reader *r);
/* Read one row (get) with t->lock held. */
int engine_read_row(sbx_result **out, engine *e, table *t, const uint8_t *row,
		    size_t row_len, const sbx_read_opts *o);

/* ---- write.c ---- */
int engine_mutate(void *th, const sbx_mutation *m, sbx_result **out);
int engine_batch(void *th, sbx_mutation *const *ms, size_t n, int *statuses);
int engine_check_and_mutate(void *th, const sbx_check *check,
			    const sbx_mutation *m, bool *succeeded,
			    sbx_result **out);

#endif
