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
#include "saltbox/regions.h"
#include "saltbox/table.h"

#include <pthread.h>
#include <stdio.h>
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

/* One time bucket of a region's load; reset lazily when reused. */
typedef struct load_slot {
	_Atomic int64_t start_ms;
	_Atomic uint64_t reads, writes, read_bytes, write_bytes;
} load_slot;

/* A region [start, end) of a table; empty start/end = table bounds. */
typedef struct region {
	uint64_t id;
	sbx_buf start, end;
	int server;
	_Atomic uint64_t reads, writes, filtered, read_bytes, write_bytes, cells;
	_Atomic uint64_t unflushed;   /* bytes written since the last flush seen */
	_Atomic uint64_t since_check; /* bytes written since the last split check */
	_Atomic uint64_t check_every; /* split check interval in bytes */
	load_slot *slots;
	int nslots;
} region;

#define ENGINE_MAX_SERVERS 256

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
	region **regions; /* sorted by start key; changed under the write lock */
	size_t nregions;
	sbx_split_policy policy;
	atomic_bool splitting;
	_Atomic uint64_t memtable_seen; /* memtable bytes last seen, to notice flushes */
	/* Size of a recent row read (bytes, cells), capped: a new read's
	 * first result starts that large instead of growing cell by cell. */
	_Atomic size_t row_bytes_hint, row_cells_hint;
	/* A closed reader's memory, parked for the next read (read.c). */
	_Atomic(struct reader *) spare_reader;
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
	/* A cleared write batch kept for the next mutation (write.c). */
	_Atomic(rocksdb_writebatch_t *) spare_wb;
	sbx_db_options opts;
	char *path; /* the database directory (snapshots live below it) */
	int dirlock_fd; /* DIR/saltbox.pid under flock (dirlock.c), or -1 */

	pthread_mutex_t admin_lock;    /* serializes schema changes */
	pthread_rwlock_t catalog_lock; /* guards tables[] and namespaces[] */
	table **tables;
	size_t ntables;
	char **namespaces;
	size_t nnamespaces;
	uint64_t next_table_id;

	FILE *trace; /* operation trace (sbx_db_options.trace_path), or NULL */
	pthread_mutex_t trace_lock;

	int nservers; /* modelled region servers */
	int server_regions[ENGINE_MAX_SERVERS]; /* under admin_lock */

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

/* ---- dirlock.c: one process per store directory ---- */
/* Lock DIR/saltbox.pid and write our pid; SBX_EBUSY naming the holder's
 * pid if another process has it. *fd_out is -1 if no lock was taken. */
int engine_dirlock_acquire(int *fd_out, const char *path);
void engine_dirlock_release(int fd);
/* engine_rocks_error(), but RocksDB's LOCK error says who holds DIR. */
int engine_open_error(char *err, const char *path, const char *what);

/* ---- snapshot.c (include/saltbox/db.h) ---- */
int engine_snapshot_create(void *e, const char *table, const char *name);
int engine_snapshot_list(sbx_snapshot_info **out, size_t *n, void *e);
int engine_snapshot_clone(void *e, const char *name, const char *table);
int engine_snapshot_restore(void *e, const char *name);
int engine_snapshot_delete(void *e, const char *name);

/* ---- bulk.c (include/saltbox/bulk.h) ---- */
int engine_bulk_open(void **w, void *e, const char *table, const char *dir);
int engine_bulk_put(void *w, const uint8_t *row, size_t row_len,
		    const char *family, const uint8_t *qual, size_t qual_len,
		    int64_t ts, const uint8_t *value, size_t value_len);
uint64_t engine_bulk_count(const void *w);
int engine_bulk_finish(void *w);
void engine_bulk_abort(void *w);
int engine_bulk_load(void *e, const char *table, const char *dir);

/* ---- regions.c ---- */
/* The region holding `row` (REQUIRES: t->lock held). */
region *region_for_row(const table *t, const uint8_t *row, size_t len);
/* Count a write; true when the region is due a split check. */
bool region_count_write(engine *e, region *r, uint64_t bytes, uint64_t cells);
void region_count_read(engine *e, region *r, uint64_t bytes, bool filtered);
void region_free(region *r);
/* Drop t's regions from the placement counts and free them. REQUIRES:
 * admin_lock. */
void regions_clear(engine *e, table *t);
/* Create the region map of a new table (no splits = one region). */
int regions_init(engine *e, table *t, const sbx_bytes *splits, size_t n);
/* Catalog (de)serialization of a table's regions and split policy. */
char *regions_to_json(const table *t);
int regions_from_json(engine *e, table *t, const char *s, size_t n);
int regions_save(engine *e, const table *t);
/* After a write to region `start` of t: split if the policy says so.
 * REQUIRES: no lock held. */
void regions_maybe_split(engine *e, table *t, const uint8_t *row, size_t len);

int engine_regions(sbx_region_info **out, size_t *n, void *db, const char *t);
int engine_split(void *db, const char *t, const void *key, size_t len);
int engine_merge(void *db, const char *t, const void *start, size_t len);
int engine_set_split_policy(void *db, const char *t, const sbx_split_policy *p);
int engine_get_split_policy(void *db, const char *t, sbx_split_policy *p);
int engine_load(sbx_region_load **out, size_t *n, void *db, const char *t,
		size_t nbuckets);
int engine_region_servers(void *db);

/* ---- engine.c, shared with regions.c ---- */
/* A step on one table. The const arg may carry results back (cast). */
typedef int (*table_fn)(engine *e, table *t, const void *arg);
/* fn under the admin lock and the table's write lock (schema changes). */
int engine_with_table_admin(engine *e, const char *name, table_fn fn,
			    const void *arg);
/* fn under the table's read lock. */
int engine_with_table_read(engine *e, const char *name, table_fn fn,
			   const void *arg);
int engine_meta_put(engine *e, const char *key, const char *value);
int engine_meta_delete(engine *e, const char *key);
int engine_table_get(table **out, engine *e, const char *name);

/* Append `op<TAB>row` to the operation trace, if one is open. */
void engine_trace(engine *e, const char *op, const uint8_t *row, size_t len);

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
/* Free a parked reader's memory (table teardown). */
void reader_free(reader *r);
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
