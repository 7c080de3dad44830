/*
 * engine.h - the embedded backend's internal structures: one RocksDB
 * instance per database directory, one RocksDB column family per table
 * family, a catalog of tables kept in the default column family, and
 * striped row locks that make each row's mutations atomic and ordered.
 * The functions each file offers the others follow, file by file; the
 * files call each other without a circle (util, cellkey and matcher at the
 * bottom, backend.c at the top).
 */
#ifndef SBX_ENGINE_ENGINE_H
#define SBX_ENGINE_ENGINE_H

#include "common/buf.h"
#include "saltbox/db.h"
#include "saltbox/regions.h"
#include "saltbox/table.h"
#include "model/names.h"

#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <rocksdb/c.h>
#include <stdatomic.h>

#define ENGINE_ROW_STRIPES 1024
#define ENGINE_SPARE_WBS 16
/* Readers a table keeps parked for its next reads (reader.c), one a
 * thread slot (engine_thread_index), so threads reading one table each
 * reuse their own instead of all but one allocating a reader a read. */
#define TABLE_SPARE_READERS 16

/* Debug checks of "REQUIRES: ... held": the lock is held (by this thread,
 * as the callers are written; pthreads cannot tell by whom). */
#define ASSERT_LOCKED(mutex) assert(pthread_mutex_trylock(mutex) == EBUSY)
#define ASSERT_RWLOCKED(rwlock)                                               \
	assert(pthread_rwlock_trywrlock(rwlock) == EBUSY)
/* t's lock is held by this thread, to read or to write (tables.c). */
#define ASSERT_TABLE_LOCKED(t) ASSERT_RWLOCKED(table_lock_of(t))

/* A family's column family name, "t<table id>.f<n>" (at most 34 bytes). */
#define CF_NAME_CAP 64

/* Room for any catalog key with its NUL: the longest is
 * "regions:<ns>:<qualifier>" with both names SBX_MAX_TABLE_NAME long. */
#define CATALOG_REGIONS_PREFIX "regions:"
#define CATALOG_KEY_CAP                                                       \
	(sizeof CATALOG_REGIONS_PREFIX + 2 * SBX_MAX_TABLE_NAME + 1)

/* A region's split check runs after every check_every bytes written to
 * it: 1/SPLIT_CHECK_DIVISOR of its split threshold, kept between the
 * floor and the ceiling (a new region starts at the floor). */
#define SPLIT_CHECK_DIVISOR 16
#define SPLIT_CHECK_FLOOR_BYTES ((uint64_t)4096)
#define SPLIT_CHECK_CEILING_BYTES ((uint64_t)64 << 20)

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
	char cf_name[CF_NAME_CAP];
	rocksdb_column_family_handle_t *cf;
	gc_params *gc; /* owned by the CF's compaction filter factory */
	struct engine *eng;
} family;

/* One time bucket of a region's load; reset lazily when reused. */
typedef struct load_slot {
	_Atomic int64_t start_ms;
	_Atomic uint64_t reads, writes, read_bytes, write_bytes;
} load_slot;

/*
 * One stripe of a region's request counters. Like HBase's region counters
 * (LongAdders in HRegion), they are striped: a thread adds to the stripe
 * of its slot (engine_thread_index), on cache lines no other stripe uses,
 * so threads reading or writing one region do not pass one line from core
 * to core on every row; a reader adds the stripes up (regions.c). The
 * stripe also holds its counts of the current load bucket (b_*, counted
 * in the second starting at bucket_start) until a count in a later
 * bucket, or a split or merge, adds them to the region's load_slot.
 */
#define REGION_STRIPES 16
typedef struct region_stripe {
	/* a read's counts on one line, a write's on the next */
	_Alignas(64) _Atomic int64_t bucket_start; /* 0: no bucket yet */
	_Atomic uint64_t reads, read_bytes, b_reads, b_read_bytes, filtered,
	    cache_hits, cache_misses;
	_Alignas(64) _Atomic uint64_t writes, write_bytes, cells, b_writes,
	    b_write_bytes;
	_Atomic uint64_t unflushed; /* bytes written since the last flush seen */
	_Atomic uint64_t since;     /* bytes written, not yet in since_check */
} region_stripe;

/* A region [start, end) of a table; empty start/end = table bounds. */
typedef struct region {
	uint64_t id;
	sbx_buf start, end;
	int server;
	region_stripe *stripes; /* REGION_STRIPES of them, 64-byte aligned */
	/* bytes written since the last split check: the stripes fold theirs
	 * in every check_every / REGION_STRIPES bytes (regions.c) */
	_Atomic uint64_t since_check;
	_Atomic uint64_t check_every; /* split check interval in bytes */
	load_slot *slots;
	int nslots;
	pthread_mutex_t slots_lock; /* writers of slots (regions.c slot_add) */
	_Atomic uint64_t slot_hint; /* the bucket counted last (regions.c) */
} region;

#define ENGINE_MAX_SERVERS 256

/* Memory a closed reader leaves in its table for the next read (read.c).
 * It knows how to free itself, so tables.c stays below the read path. */
typedef struct parked_reader {
	void (*release)(struct parked_reader *p);
	/* destroy the RocksDB iterator it keeps, if any (reader.c) */
	void (*drop_iterator)(struct parked_reader *p);
} parked_reader;

/*
 * A table's lock is striped, as its regions' counters are: a data
 * operation read-locks only the stripe of its thread's slot
 * (engine_thread_index), so threads working on one table do not pass one
 * lock word from core to core on every call (a get, each row of a scan);
 * an admin step write-locks every stripe, in order. Any stripe held shuts
 * the writer out, so the rules of one rwlock hold, but for one: a writer
 * waiting for a stripe holds the stripes before it, so readers of those
 * wait for it (one rwlock lets readers pass a waiting writer). No thread
 * waits, holding a table's read lock, for a thread that needs that
 * table's lock (locks go table, then rows), and writers take admin_lock
 * first, so one writer waits at a time: no circle forms.
 */
#define TABLE_LOCK_STRIPES 16
typedef struct table_lock_stripe {
	_Alignas(64) pthread_rwlock_t l;
} table_lock_stripe;

/* A per-thread slot holding a T, a cache line from the next: a thread
 * takes and gives back what its slot holds (a parked reader, a spare
 * write batch) on every call, and slots sharing a line would pass it from
 * core to core. */
#define THREAD_SLOT(T)             \
	struct {                   \
		_Atomic(T) p;      \
		char pad[64 - sizeof(T)]; \
	}
typedef THREAD_SLOT(parked_reader *) spare_slot;

typedef struct table {
	atomic_int refs;
	/* read: data operations; write: admin. Striped (table_rdlock). */
	table_lock_stripe *lock;
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
	/* bumped (under the write lock) whenever a region is freed: a scan
	 * holding a region between two calls looks it up again if this
	 * moved (read.c, reader_counts_flush) */
	uint64_t region_gen;
	sbx_split_policy policy;
	atomic_bool splitting;
	_Atomic uint64_t memtable_seen; /* memtable bytes last seen, to notice flushes */
	/* Size of a recent row read (bytes, cells), capped: a new read's
	 * first result starts that large instead of growing cell by cell. */
	_Atomic size_t row_bytes_hint, row_cells_hint;
	/* Closed readers' memory, parked for the next reads (reader.c), in
	 * the slot of the thread that closed each. */
	spare_slot spare_reader[TABLE_SPARE_READERS];
	/* Bit i: spare_reader[i] may keep a get's RocksDB iterator
	 * (reader.c); a write drops those, so they pin no memtable or store
	 * file for long (table_drop_kept_iterator). */
	_Atomic unsigned spare_iterators;
	/* Part of every row cache key of the table: moved by bulk loads and
	 * schema changes, so none of the entries before is found again. */
	_Atomic uint64_t cache_epoch;
} table;

/* Move t's row cache epoch (rowcache.h): every entry of t is forgotten. */
void table_cache_forget(table *t);
/* Destroy the RocksDB iterators t's parked readers keep, if any:
 * before t's families' column families go, before the database closes,
 * and after anything that changes t's store files or what its gets would
 * read. Thread-safe. table_drop_marked_iterators, for the write path,
 * looks only at the slots spare_iterators marks (cheap when none is):
 * a reader parked at that moment may keep its iterator until the next
 * write. */
void table_drop_kept_iterator(table *t);
void table_drop_marked_iterators(table *t);
/* This thread's number, given in turn to the threads that ask: per-thread
 * spares (write batches, parked readers) take their slot from it. */
unsigned engine_thread_index(void);

typedef struct rowcache rowcache; /* rowcache.h */

typedef struct engine {
	rocksdb_t *db;
	rowcache *rowcache; /* NULL: off (opts.row_cache_bytes 0) */
	rocksdb_options_t *dbopts;
	rocksdb_cache_t *cache;
	rocksdb_column_family_handle_t *meta_cf;
	rocksdb_writeoptions_t *wo_meta;
	rocksdb_writeoptions_t *wo_wal;
	rocksdb_writeoptions_t *wo_fsync;
	rocksdb_writeoptions_t *wo_nowal;
	/* Cleared write batches kept for the next mutations (write.c): a
	 * slot per writer thread (by a per-thread index), so concurrent
	 * writers do not take turns at one spare. */
	THREAD_SLOT(rocksdb_writebatch_t *) spare_wb[ENGINE_SPARE_WBS];
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


	/* The free-space floor (opts.min_free_bytes, util.c): free bytes at
	 * the last statvfs, when it was, and bytes written since. */
	_Atomic uint64_t space_free;
	_Atomic int64_t space_checked_ms;
	_Atomic uint64_t space_written;

	int nservers; /* modelled region servers */
	int server_regions[ENGINE_MAX_SERVERS]; /* under admin_lock */

	pthread_mutex_t stripe_lock[ENGINE_ROW_STRIPES];
	int64_t stripe_ts[ENGINE_ROW_STRIPES];
	_Atomic int batches; /* engine_batch calls writing rows now */
	/* No timestamp above it has been handed out (write.c next_ts); kept
	 * in the meta family as ENGINE_TS_CEILING_KEY, so a reopened store
	 * starts above every timestamp it gave, even those that ran ahead of
	 * the clock. Raised under ts_lock. */
	_Atomic int64_t ts_ceiling;
	pthread_mutex_t ts_lock;
} engine;

#define ENGINE_TS_CEILING_KEY "ts_ceiling"

/* A table handle: the engine plus a counted reference to the table. */
typedef struct table_handle {
	engine *eng;
	table *t;
} table_handle;

/* ---- util.c: the clock, RocksDB errors, the free-space floor ---- */
/* SBX_OK, or SBX_EIO ("disk full: ...") when writing `bytes` more would
 * take the store's file system below opts.min_free_bytes. The free space
 * is read (statvfs) at most every 100 ms, or sooner once an eighth of the
 * floor has been written since. */
int engine_space_check(engine *e, size_t bytes);
/* Wall-clock milliseconds (sbx_clock_now_ms): the engine's one read of the
 * time, but for regions.c's coarse clock of load buckets. */
int64_t engine_now_ms(void);
/* SBX_EIO with "what: err" as the message; frees err (may be NULL). */
int engine_rocks_error(char *err, const char *what);

/* ---- tables.c: table and family objects, the engine's lists ---- */
/* A family object with one reference; NULL on ENOMEM. */
family *family_new(engine *e, const sbx_family_desc *d, const char *cf_name);
void family_unref(family *f);
/* An enabled table object with one reference and no families; NULL on
 * ENOMEM. */
table *table_new(const char *ns, const char *q);
/* Dropping the last reference frees the families, regions and any
 * parked reader. */
void table_unref(table *t);
void region_free(region *r);
/* Find a family of t by name (REQUIRES: t->lock held, or t unpublished). */
family *table_family(const table *t, const char *name);
/* Insert f in name order, taking over the caller's reference.
 * REQUIRES: t has no family of that name. */
int table_add_family(table *t, family *f);
/* Take f out of t's list (keeps order); the reference passes to the
 * caller. */
void table_remove_family(table *t, const family *f);
/* t's lock, striped (TABLE_LOCK_STRIPES): read-lock for a data operation
 * (this thread's stripe), write-lock for an admin step (every stripe).
 * A read lock is released by the thread that took it. */
void table_rdlock(table *t);
void table_rdunlock(table *t);
void table_wrlock(table *t);
void table_wrunlock(table *t);
/* The stripe this thread read-locks (for ASSERT_TABLE_LOCKED). */
pthread_rwlock_t *table_lock_of(table *t);
/* Lock t for a data operation: read lock + dropped/enabled checks (the
 * thread's RocksDB perf counters off first, tables.c). On
 * success the caller must table_rdunlock(t). */
int table_lock_for_data(table *t, bool need_enabled);
/* The engine's lists. Readers hold catalog_lock or admin_lock; writers
 * hold both (catalog_lock for writing), or own e alone while it opens. */
table *engine_find_table(engine *e, const char *ns, const char *q);
bool engine_has_namespace(engine *e, const char *ns);
int engine_add_namespace(engine *e, const char *ns);
void engine_remove_namespace(engine *e, const char *ns);
int engine_add_table(engine *e, table *t);
void engine_remove_table(engine *e, table *t);
/* Look up a table by user name ("t" or "ns:t") and take a reference. */
int engine_table_get(table **out, engine *e, const char *name);
/* A step on one table. The const arg may carry results back (cast). */
typedef int (*table_fn)(engine *e, table *t, const void *arg);
/* fn under the admin lock and the table's write lock (schema changes).
 * REQUIRES: the caller holds neither. */
int engine_with_table_admin(engine *e, const char *name, table_fn fn,
			    const void *arg);
/* fn under the admin lock and the table's read lock: maintenance that
 * changes no read's answer (flush, major compaction), so the table's
 * reads and writes go on while it runs, and no schema change does.
 * REQUIRES: the caller holds neither. */
int engine_with_table_maintenance(engine *e, const char *name, table_fn fn,
				  const void *arg);
/* fn under the table's read lock. */
int engine_with_table_read(engine *e, const char *name, table_fn fn,
			   const void *arg);

/* ---- meta.c: the catalog's records ---- */
int engine_meta_put(engine *e, const char *key, const char *value);
int engine_meta_delete(engine *e, const char *key);
/* The record keys "ns:<ns>", "table:<ns>:<q>" and "regions:<ns>:<q>". */
void catalog_ns_key(char out[CATALOG_KEY_CAP], const char *ns);
void catalog_table_key(char out[CATALOG_KEY_CAP], const table *t);
void catalog_regions_key(char out[CATALOG_KEY_CAP], const table *t);
/* Write t's table record / the next table id. */
int catalog_save_table(engine *e, const table *t);
int catalog_save_next_id(engine *e);
/* Read the namespace, table and next-id records of db into e's lists
 * (the tables' column family handles stay unset). REQUIRES: e not yet
 * shared with any other thread. */
int catalog_load(engine *e, rocksdb_t *db,
		 rocksdb_column_family_handle_t *meta);

/* ---- dirlock.c: one process per store directory ---- */
/* Lock DIR/saltbox.pid and write our pid; SBX_EBUSY naming the holder's
 * pid if another process has it. *fd_out is -1 if no lock was taken. */
int engine_dirlock_acquire(int *fd_out, const char *path);
void engine_dirlock_release(int fd);
/* engine_rocks_error(), but RocksDB's LOCK error says who holds DIR. */
int engine_open_error(char *err, const char *path, const char *what);


/* ---- gc.c: per-family RocksDB options ---- */
rocksdb_options_t *family_rocks_options(engine *e, const sbx_family_desc *d,
					gc_params **gc_out);
void gc_params_update(gc_params *gc, const sbx_family_desc *d);

/* ---- regions.c ---- */
/* The region holding `row` (REQUIRES: t->lock held). */
region *region_for_row(const table *t, const uint8_t *row, size_t len);
/* Count a write; true when the region is due a split check. */
bool region_count_write(engine *e, region *r, uint64_t bytes, uint64_t cells);
void region_count_read(engine *e, region *r, uint64_t bytes, bool filtered);
/* The start of the load bucket `now_ms` falls in; *end: the next's. */
int64_t region_bucket(const engine *e, int64_t now_ms, int64_t *end);
/* Count `reads` rows read (`bytes` of results) and `filtered` rows the
 * filter dropped, all in the load bucket starting at `start`. */
void region_count_reads(engine *e, region *r, int64_t start, uint64_t reads,
			uint64_t bytes, uint64_t filtered);
/* A get's row cache hit or miss. */
void region_count_cache(region *r, bool hit);
/* Bytes written to r since the last flush seen (its stripes' sum), and
 * setting it (a flush: 0; a split or merge: the parent's share). */
uint64_t region_unflushed(const region *r);
void region_set_unflushed(region *r, uint64_t bytes);
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

/* ---- read.c ---- */
typedef struct reader reader;
/* A reader over rows [lower, upper) of table t (bounds as scan options).
 * REQUIRES: caller holds t->lock for reading during reader_open and each
 * reader_next call. */
int reader_open(reader **out, engine *e, table *t, const sbx_scan_opts *o);
int reader_next(reader *r, sbx_result **out);
/* Add a scan's row counts still waiting in r (read.c: a scan counts its
 * rows once per region and load bucket) to their region - the region now
 * holding the first of those rows, if regions changed since. Before
 * reader_close, so the region counters have every row. REQUIRES: t->lock
 * held. */
void reader_counts_flush(reader *r);
/* The same, taking the read lock of r's table (a scan's reader holds a
 * reference on it, so this needs no table handle). NULL is ignored. */
void reader_counts_flush_unlocked(reader *r);
void reader_close(reader *r);
/* Read one row (get). REQUIRES: t->lock held for reading. */
int engine_read_row(sbx_result **out, engine *e, table *t, const uint8_t *row,
		    size_t row_len, const sbx_read_opts *o);

/* ---- write.c (the table API's mutate, batch, check-and-mutate) ---- */
int engine_mutate(void *th, const sbx_mutation *m, sbx_result **out);
int engine_batch(void *th, sbx_mutation *const *ms, size_t n, int *statuses);
int engine_check_and_mutate(void *th, const sbx_check *check,
			    const sbx_mutation *m, bool *succeeded,
			    sbx_result **out);
/* sbx_db_check_and_mutate_rows: db is the engine, each row's table a
 * table_handle (model/backend.h's sbx_backend_multirow). */
struct sbx_backend_row_change;
int engine_check_and_mutate_rows(void *db,
				 const struct sbx_backend_row_change *rows,
				 size_t n, bool *succeeded, size_t *failed);

/* ---- data.c: table handles, get, scanners (the table API's) ---- */
int engine_table_open(void **out, void *db, const char *name);
void engine_table_close(void *th);
int engine_get(sbx_result **out, void *th, const uint8_t *row, size_t row_len,
	       const sbx_read_opts *o);
int engine_scanner_open(void **out, void *th, const sbx_scan_opts *o);
int engine_scanner_next(void *s, sbx_result **out);
void engine_scanner_close(void *s);

/* ---- schema.c: namespaces and tables (the table API's admin calls) ---- */
int engine_ns_create(void *db, const char *ns);
int engine_ns_drop(void *db, const char *ns);
int engine_ns_list(char ***out, void *db);
int engine_table_create(void *db, const char *name,
			const sbx_family_desc *families, size_t n,
			const sbx_bytes *splits, size_t nsplits);
int engine_table_exists(void *db, const char *name, bool *exists);
int engine_table_describe(sbx_table_info **out, void *db, const char *name);
int engine_table_list(char ***out, void *db);
int engine_alter_family(void *db, const char *name, const sbx_family_desc *d);
int engine_delete_family(void *db, const char *name, const char *family);
int engine_set_enabled(void *db, const char *name, bool enabled);
int engine_is_enabled(void *db, const char *name, bool *enabled);
int engine_truncate(void *db, const char *name);
int engine_drop(void *db, const char *name);
int engine_flush(void *db, const char *name);
int engine_major_compact(void *db, const char *name);

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

/* ---- db.c (engine_open is in table/backend.h) ---- */
void engine_close(void *db);

#endif
