/*
 * bench_engine.c - YCSB-style workloads A-F on the Saltbox engine, against
 * raw RocksDB (used as most code uses it, and tuned: the ceiling), SQLite
 * and LMDB doing the same logical work, side by side in one run, on 1 or
 * more threads (--threads 1,2,4,8). Prints ops/s per workload and engine,
 * the ratio of each to both RocksDB references, how each scales with
 * threads, and peak RSS (per engine with --isolate). A program, not a test:
 * see bench/RESULTS.md for the engine mapping, the settings that make it
 * fair, and recorded numbers.
 */
#define _XOPEN_SOURCE 700 /* nftw */
#include <saltbox.h>

#include <errno.h>
#include <ftw.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <lmdb.h>
#include <math.h>
#include <rocksdb/c.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- the data model: YCSB's usertable --------------------------------- */

#define NFIELDS 10
#define VALUE_LEN 100
#define FIELD_LEN 6 /* "field0".."field9" */
#define ROW_LEN 23  /* "user" + 19 decimal digits of fnvhash64(keynum) */
#define MAX_SCAN_LEN 100
#define VALUE_POOL_BYTES (1u << 20)
#define TABLE_NAME "usertable"
#define FAMILY "f"

static const char *const FIELD_NAMES[NFIELDS] = {
	"field0", "field1", "field2", "field3", "field4",
	"field5", "field6", "field7", "field8", "field9",
};

/* What a read returns: the values of one row in memory the caller owns,
 * so that no engine wins by not touching the data. An engine whose values
 * live in memory it reuses (an iterator's block, a statement's row, a read
 * transaction's pages) has them copied into buf; Saltbox's sbx_result is
 * already such a copy, owned by the caller until sbx_result_free, so its
 * values are kept where they are (record_keep) and the result held. */
typedef struct record {
	const uint8_t *vals[NFIELDS]; /* each field's value */
	uint8_t buf[NFIELDS][VALUE_LEN];
	int nfields;
} record;

static volatile uint64_t g_sink; /* keeps copies from being optimised away */

/* A new row: no fields yet. */
static void record_reset(record *rec)
{
	rec->nfields = 0;
	for (int i = 0; i < NFIELDS; i++)
		rec->vals[i] = rec->buf[i];
}

/* A value in memory the engine reuses: copied. */
static void record_take(record *rec, int field, const void *v, size_t vl)
{
	if (field < 0 || field >= NFIELDS)
		return;
	size_t n = vl < VALUE_LEN ? vl : VALUE_LEN;
	memcpy(rec->buf[field], v, n);
	rec->vals[field] = rec->buf[field];
	rec->nfields++;
}

/* A value in memory the caller owns and holds: kept in place. */
static void record_keep(record *rec, int field, const uint8_t *v, size_t vl)
{
	if (field < 0 || field >= NFIELDS)
		return;
	if (vl < VALUE_LEN) { /* the sink reads its last byte */
		record_take(rec, field, v, vl);
		return;
	}
	rec->vals[field] = v;
	rec->nfields++;
}

static int field_index(const void *q, size_t ql)
{
	const char *s = q;
	if (ql != FIELD_LEN || memcmp(s, "field", 5) || s[5] < '0' || s[5] > '9')
		return -1;
	return s[5] - '0';
}

/* ---- YCSB's generators ---------------------------------------------------- */

typedef struct rng {
	uint64_t s;
} rng;

static uint64_t rng_next(rng *r) /* splitmix64 */
{
	uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static double rng_double(rng *r)
{
	return (double)(rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

/* YCSB Utils.fnvhash64: FNV-1a over the 8 bytes, then Math.abs. */
static uint64_t fnvhash64(uint64_t v)
{
	uint64_t h = 0xCBF29CE484222325ull;
	for (int i = 0; i < 8; i++) {
		h ^= v & 0xFF;
		v >>= 8;
		h *= 1099511628211ull;
	}
	int64_t s = (int64_t)h;
	return s < 0 ? (uint64_t)0 - h : h;
}

/* YCSB's insert order is hashed: key = "user" + fnvhash64(keynum). Fixed
 * width (zero padded) so that row||qualifier is unambiguous for the
 * key-value engines. */
static void key_of(uint64_t keynum, char out[ROW_LEN + 1])
{
	snprintf(out, ROW_LEN + 1, "user%019llu",
		 (unsigned long long)fnvhash64(keynum));
}

#define ZIPF_THETA 0.99
#define SCRAMBLED_ITEMS 10000000000ull
#define SCRAMBLED_ZETAN 26.46902820178302 /* zeta(10^10, 0.99), YCSB's */

/* ZipfianGenerator (Gray et al., "Quickly generating billion-record
 * synthetic databases"), as YCSB implements it, with incremental zeta. */
typedef struct zipf {
	double alpha, zeta2theta, zetan, eta;
	uint64_t count_for_zeta;
} zipf;

static double zeta_sum(uint64_t from, uint64_t to, double initial)
{
	double sum = initial;
	for (uint64_t i = from; i < to; i++)
		sum += 1.0 / pow((double)(i + 1), ZIPF_THETA);
	return sum;
}

static void zipf_set_eta(zipf *z, uint64_t items)
{
	z->eta = (1 - pow(2.0 / (double)items, 1 - ZIPF_THETA)) /
		 (1 - z->zeta2theta / z->zetan);
}

static void zipf_init(zipf *z, uint64_t items, double zetan)
{
	z->alpha = 1.0 / (1.0 - ZIPF_THETA);
	z->zeta2theta = zeta_sum(0, 2, 0);
	z->zetan = zetan > 0 ? zetan : zeta_sum(0, items, 0);
	z->count_for_zeta = items;
	zipf_set_eta(z, items);
}

/* A value in [0, items), item 0 the most popular. */
static uint64_t zipf_next(zipf *z, rng *r, uint64_t items)
{
	if (items != z->count_for_zeta) {
		z->zetan = items > z->count_for_zeta
				   ? zeta_sum(z->count_for_zeta, items, z->zetan)
				   : zeta_sum(0, items, 0);
		z->count_for_zeta = items;
		zipf_set_eta(z, items);
	}
	double u = rng_double(r);
	double uz = u * z->zetan;
	if (uz < 1.0)
		return 0;
	if (uz < 1.0 + pow(0.5, ZIPF_THETA))
		return 1;
	uint64_t v = (uint64_t)((double)items *
				pow(z->eta * u - z->eta + 1, z->alpha));
	return v < items ? v : items - 1;
}

typedef enum dist { DIST_UNIFORM, DIST_ZIPFIAN, DIST_LATEST } dist;

static const char *dist_name(dist d)
{
	return d == DIST_UNIFORM ? "uniform" : d == DIST_ZIPFIAN ? "zipfian" : "latest";
}

/* Chooses the key of the next read/update/scan, as CoreWorkload does. */
typedef struct key_chooser {
	dist d;
	zipf z;
	uint64_t scrambled_items; /* records + expected inserts */
} key_chooser;

static void chooser_init(key_chooser *c, dist d, uint64_t count,
			 uint64_t expected_inserts)
{
	memset(c, 0, sizeof *c);
	c->d = d;
	c->scrambled_items = count + expected_inserts;
	if (d == DIST_ZIPFIAN)
		zipf_init(&c->z, SCRAMBLED_ITEMS, SCRAMBLED_ZETAN);
	else if (d == DIST_LATEST)
		zipf_init(&c->z, count > 1 ? count - 1 : 1, 0);
}

static uint64_t chooser_next(key_chooser *c, rng *r, uint64_t count)
{
	switch (c->d) {
	case DIST_UNIFORM:
		return rng_next(r) % count;
	case DIST_ZIPFIAN: /* ScrambledZipfianGenerator */
		for (;;) {
			uint64_t v = zipf_next(&c->z, r, SCRAMBLED_ITEMS);
			uint64_t k = fnvhash64(v) % c->scrambled_items;
			if (k < count)
				return k;
		}
	default: { /* SkewedLatestGenerator: the newest keys are hottest */
		uint64_t max = count - 1;
		return max - zipf_next(&c->z, r, max + 1);
	}
	}
}

/* ---- workloads ---------------------------------------------------------- */

typedef struct workload {
	char id;
	double read, update, insert, scan, rmw;
	bool latest; /* D: reads follow the "latest" distribution */
	const char *what;
} workload;

static const workload WORKLOADS[] = {
	{'A', 0.50, 0.50, 0, 0, 0, false, "50% read, 50% update"},
	{'B', 0.95, 0.05, 0, 0, 0, false, "95% read, 5% update"},
	{'C', 1.00, 0, 0, 0, 0, false, "100% read"},
	{'D', 0.95, 0, 0.05, 0, 0, true, "95% read latest, 5% insert"},
	{'E', 0, 0, 0.05, 0.95, 0, false, "95% scan (1..100 rows), 5% insert"},
	{'F', 0.50, 0, 0, 0, 0.50, false, "50% read, 50% read-modify-write"},
};

/* ---- the engines under test ---------------------------------------------- */

typedef struct bench_cfg {
	uint64_t records;
	uint64_t ops;
	uint64_t scan_ops;
	const char *workloads;
	bool dist_uniform, dist_zipfian;
	size_t block_size;
	size_t cache_bytes; /* each engine's cache memory */
	/* Saltbox's row cache, taken out of cache_bytes (its block cache
	 * gets the rest); SIZE_MAX: the library's default */
	size_t row_cache_bytes;
	bool mmap_reads; /* store files read through mmap (every RocksDB) */
	bool flush_after_load; /* every engine's memtables out after the load */
	uint64_t seed;
	uint64_t rounds; /* slices per phase, engines alternating */
	char dir[256];
} bench_cfg;

typedef struct bench_engine {
	const char *name;
	int (*open)(void **out, const char *dir, const bench_cfg *cfg);
	/* A thread's context on the open store (NULL: the store itself is
	 * shared by every thread as it is); nthreads: how many there are. The
	 * calls below take the context. */
	int (*thread_open)(void **ctx, void *store, int nthreads);
	void (*thread_close)(void *ctx);
	/* A new row with all NFIELDS fields, atomically. */
	int (*insert)(void *s, const char *row, const uint8_t *const *vals);
	/* All fields of a row into rec (rec->nfields counts them). */
	int (*read)(void *s, const char *row, record *rec);
	/* Overwrite one field of an existing row. */
	int (*update)(void *s, const char *row, int field, const uint8_t *val);
	/* Up to nrows rows from row on, all fields; *rows_out rows seen. */
	int (*scan)(void *s, const char *row, int nrows, record *rec,
		    int *rows_out);
	void (*close)(void *s);
	bool opt_in; /* runs only when --engines names it */
	/* Its threads turn RocksDB's per-thread perf counters off
	 * (rocksdb_set_perf_level), as a tuned program does: counting is
	 * RocksDB's default, a thread-local lookup on every iterator step.
	 * Saltbox turns them off itself. */
	bool counters_off;
	/* Write the memtables out to store files and wait (NULL: nothing
	 * like them), for --flush-after-load. */
	int (*flush)(void *s);
} bench_engine;

static void fail(const char *fmt, ...);

/* ---- Saltbox, through its public C API ---- */

typedef struct sbx_state {
	sbx_db *db;
	sbx_table *t;
} sbx_state;

static int sbx_fail(const char *what, int rc)
{
	fprintf(stderr, "saltbox: %s: %s (%s)\n", what, sbx_strerror(rc),
		sbx_errmsg());
	return -1;
}

static int saltbox_open(void **out, const char *dir, const bench_cfg *cfg)
{
	sbx_state *s = calloc(1, sizeof *s);
	if (!s)
		return -1;
	sbx_db_options o;
	sbx_db_options_init(&o);
	o.row_cache_bytes = cfg->row_cache_bytes;
	o.block_cache_bytes = cfg->cache_bytes - cfg->row_cache_bytes;
	o.mmap_reads = cfg->mmap_reads;
	int rc = sbx_db_open(&s->db, dir, &o);
	if (rc) {
		free(s);
		return sbx_fail("open", rc);
	}
	sbx_family_desc f;
	sbx_family_desc_init(&f, FAMILY);
	f.block_size = (int)cfg->block_size;
	f.compression = SBX_COMPRESSION_NONE;
	f.bloom_filter = SBX_BLOOM_ROW;
	f.max_versions = 1;
	if ((rc = sbx_table_create(s->db, TABLE_NAME, &f, 1)) ||
	    (rc = sbx_table_open(&s->t, s->db, TABLE_NAME))) {
		sbx_db_close(s->db);
		free(s);
		return sbx_fail("create table", rc);
	}
	*out = s;
	return 0;
}

static int saltbox_write(sbx_state *s, const char *row, int first, int n,
			 const uint8_t *const *vals)
{
	sbx_mutation *m;
	int rc = sbx_mutation_new(&m, row, ROW_LEN);
	if (rc)
		return sbx_fail("mutation", rc);
	for (int i = 0; !rc && i < n; i++)
		rc = sbx_mutation_put(m, FAMILY, FIELD_NAMES[first + i],
				      FIELD_LEN, SBX_LATEST_TIMESTAMP, vals[i],
				      VALUE_LEN);
	if (!rc)
		rc = sbx_table_mutate(NULL, s->t, m);
	sbx_mutation_free(m);
	return rc ? sbx_fail("mutate", rc) : 0;
}

/* A thread's context: the shared table, and the result whose values the
 * thread's record points at, held until its next row (record_keep). */
typedef struct sbx_ctx {
	sbx_state *s;
	sbx_result *held;
} sbx_ctx;

static int saltbox_thread_open(void **out, void *p, int nthreads)
{
	(void)nthreads;
	sbx_ctx *c = calloc(1, sizeof *c);
	if (!c)
		return -1;
	c->s = p;
	*out = c;
	return 0;
}

static void saltbox_thread_close(void *p)
{
	sbx_ctx *c = p;
	sbx_result_free(c->held);
	free(c);
}

static int saltbox_insert(void *p, const char *row, const uint8_t *const *vals)
{
	return saltbox_write(((sbx_ctx *)p)->s, row, 0, NFIELDS, vals);
}

static int saltbox_update(void *p, const char *row, int field,
			  const uint8_t *val)
{
	return saltbox_write(((sbx_ctx *)p)->s, row, field, 1, &val);
}

/* The row's values into rec, left in res, which the thread now holds. */
static void take_result(sbx_ctx *ctx, sbx_result *res, record *rec)
{
	sbx_result_free(ctx->held);
	ctx->held = res;
	size_t n;
	const sbx_cell *c = sbx_result_cells(res, &n);
	for (size_t i = 0; i < n; i++)
		record_keep(rec, field_index(c[i].qualifier, c[i].qualifier_len),
			    c[i].value, c[i].value_len);
}

static int saltbox_read(void *p, const char *row, record *rec)
{
	sbx_ctx *ctx = p;
	sbx_result *res;
	int rc = sbx_table_get(&res, ctx->s->t, row, ROW_LEN, NULL);
	if (rc)
		return sbx_fail("get", rc);
	take_result(ctx, res, rec);
	return 0;
}

static int saltbox_scan(void *p, const char *row, int nrows, record *rec,
			int *rows_out)
{
	sbx_ctx *ctx = p;
	sbx_state *s = ctx->s;
	sbx_scan_opts o;
	sbx_scan_opts_init(&o);
	o.start_row = row;
	o.start_row_len = ROW_LEN;
	o.limit = nrows;
	sbx_scanner *sc;
	int rc = sbx_scanner_open(&sc, s->t, &o);
	if (rc)
		return sbx_fail("scanner open", rc);
	sbx_result *res;
	int rows = 0;
	while ((rc = sbx_scanner_next(sc, &res)) == SBX_OK) {
		record_reset(rec);
		take_result(ctx, res, rec);
		rows++;
	}
	sbx_scanner_close(sc);
	*rows_out = rows;
	return rc == SBX_ITEROVER ? 0 : sbx_fail("scan", rc);
}

static int saltbox_flush(void *p)
{
	int rc = sbx_table_flush(((sbx_state *)p)->db, TABLE_NAME);
	return rc ? sbx_fail("flush", rc) : 0;
}

static void saltbox_close(void *p)
{
	sbx_state *s = p;
	/* the row cache's gets over the whole run (every workload) */
	sbx_region_info *r = NULL;
	size_t n = 0;
	if (sbx_table_regions(&r, &n, s->db, TABLE_NAME) == SBX_OK) {
		uint64_t hits = 0, misses = 0;
		for (size_t i = 0; i < n; i++) {
			hits += r[i].metrics.row_cache_hits;
			misses += r[i].metrics.row_cache_misses;
		}
		sbx_region_infos_free(r, n);
		if (hits + misses)
			printf("saltbox row cache: %llu hits, %llu misses "
			       "(%.1f%% hits)\n",
			       (unsigned long long)hits,
			       (unsigned long long)misses,
			       100.0 * (double)hits / (double)(hits + misses));
	}
	sbx_table_close(s->t);
	sbx_db_close(s->db);
	free(s);
}

/* ---- raw RocksDB: key = row || qualifier, one key per field ---- */

/*
 * Two ways to drive the same RocksDB with the same options:
 *   "rocksdb"       as most code uses it: a new iterator per row read or
 *                   scan, Put / WriteBatch for writes;
 *   "rocksdb-tuned" the fastest the C API of Debian's librocksdb 7.8 allows
 *                   for the same logical work: row reads and scans reuse
 *                   the thread's iterators, recreated only when the store
 *                   has advanced (the C API has no rocksdb_iter_refresh in
 *                   7.8: the latest sequence number tells); batched
 *                   MultiGet into pinnable slices was measured slower for
 *                   a 10-field row read (tuned_read).
 * One db shared by every thread; a thread's write batch and iterator are its
 * own (rocks_ctx).
 */
typedef struct rocks_state {
	rocksdb_t *db;
	rocksdb_options_t *opts;
	rocksdb_cache_t *cache;
	rocksdb_column_family_handle_t *cf; /* "default" */
	rocksdb_writeoptions_t *wo;
	rocksdb_readoptions_t *ro_get;   /* prefix (row) mode: uses the bloom */
	rocksdb_readoptions_t *ro_scan;  /* total order: crosses rows */
	rocksdb_readoptions_t *ro_point; /* MultiGet of whole keys */
	bool multiget;                   /* tuned reads by MultiGet */
} rocks_state;

typedef struct rocks_ctx {
	rocks_state *s;
	rocksdb_writebatch_t *wb;
	rocksdb_iterator_t *it; /* tuned: the scan iterator, reused */
	uint64_t it_seq;        /* the store's sequence when it was made */
	rocksdb_iterator_t *get_it; /* tuned: the row-read iterator */
	uint64_t get_seq;
} rocks_ctx;

static int rocks_check(char *err, const char *what)
{
	if (!err)
		return 0;
	fprintf(stderr, "rocksdb: %s: %s\n", what, err);
	free(err);
	return -1;
}

/* prefix: bytes of a key that name its row (the bloom's prefix). */
static int rocks_open_prefix(void **out, const char *dir,
			     const bench_cfg *cfg, size_t prefix)
{
	rocks_state *s = calloc(1, sizeof *s);
	if (!s)
		return -1;
	/* Exactly what Saltbox's family gets (src/engine/gc.c, db.c):
	 * shared LRU cache, same block size, format 5, full bloom 10 bits on
	 * the row prefix only, a memtable prefix bloom of 5 % (which also
	 * moves where the memtable fills), no compression, 64 MB memtable,
	 * 2 jobs. */
	s->opts = rocksdb_options_create();
	rocksdb_options_set_create_if_missing(s->opts, 1);
	rocksdb_options_set_max_background_jobs(s->opts, 2);
	rocksdb_options_set_max_subcompactions(s->opts, 1);
	rocksdb_options_set_write_buffer_size(s->opts, 64u << 20);
	rocksdb_options_set_allow_mmap_reads(s->opts, cfg->mmap_reads);
	rocksdb_options_set_compression(s->opts, rocksdb_no_compression);
	rocksdb_options_set_prefix_extractor(
		s->opts, rocksdb_slicetransform_create_fixed_prefix(prefix));
	rocksdb_options_set_memtable_prefix_bloom_size_ratio(s->opts, 0.05);
	rocksdb_block_based_table_options_t *bb =
		rocksdb_block_based_options_create();
	s->cache = rocksdb_cache_create_lru(cfg->cache_bytes);
	rocksdb_block_based_options_set_block_cache(bb, s->cache);
	rocksdb_block_based_options_set_block_size(bb, cfg->block_size);
	rocksdb_block_based_options_set_format_version(bb, 5);
	rocksdb_block_based_options_set_filter_policy(
		bb, rocksdb_filterpolicy_create_bloom_full(10));
	rocksdb_block_based_options_set_whole_key_filtering(bb, 0);
	rocksdb_options_set_block_based_table_factory(s->opts, bb);
	rocksdb_block_based_options_destroy(bb);
	char *err = NULL;
	const char *cf_names[1] = {"default"};
	const rocksdb_options_t *cf_opts[1] = {s->opts};
	rocksdb_column_family_handle_t *cfs[1] = {NULL};
	s->db = rocksdb_open_column_families(s->opts, dir, 1, cf_names, cf_opts,
					     cfs, &err);
	if (rocks_check(err, "open")) {
		rocksdb_options_destroy(s->opts);
		rocksdb_cache_destroy(s->cache);
		free(s);
		return -1;
	}
	s->cf = cfs[0];
	s->wo = rocksdb_writeoptions_create(); /* WAL on, no sync */
	s->ro_get = rocksdb_readoptions_create();
	rocksdb_readoptions_set_prefix_same_as_start(s->ro_get, 1);
	s->ro_scan = rocksdb_readoptions_create();
	rocksdb_readoptions_set_total_order_seek(s->ro_scan, 1);
	s->ro_point = rocksdb_readoptions_create();
	const char *mg = getenv("SBX_BENCH_MULTIGET");
	s->multiget = mg && *mg == '1';
	*out = s;
	return 0;
}

static int rocks_open(void **out, const char *dir, const bench_cfg *cfg)
{
	return rocks_open_prefix(out, dir, cfg, ROW_LEN);
}

static int rocks_thread_open(void **out, void *p, int nthreads)
{
	(void)nthreads;
	rocks_ctx *c = calloc(1, sizeof *c);
	if (!c)
		return -1;
	c->s = p;
	c->wb = rocksdb_writebatch_create();
	*out = c;
	return 0;
}

static void rocks_thread_close(void *p)
{
	rocks_ctx *c = p;
	if (c->it)
		rocksdb_iter_destroy(c->it);
	if (c->get_it)
		rocksdb_iter_destroy(c->get_it);
	rocksdb_writebatch_destroy(c->wb);
	free(c);
}

static void make_key(char *key, const char *row, int field)
{
	memcpy(key, row, ROW_LEN);
	memcpy(key + ROW_LEN, FIELD_NAMES[field], FIELD_LEN);
}

static int rocks_insert(void *p, const char *row, const uint8_t *const *vals)
{
	rocks_ctx *c = p;
	char key[ROW_LEN + FIELD_LEN];
	rocksdb_writebatch_clear(c->wb);
	for (int i = 0; i < NFIELDS; i++) {
		make_key(key, row, i);
		rocksdb_writebatch_put(c->wb, key, sizeof key,
				       (const char *)vals[i], VALUE_LEN);
	}
	char *err = NULL;
	rocksdb_write(c->s->db, c->s->wo, c->wb, &err);
	return rocks_check(err, "write");
}

static int rocks_update(void *p, const char *row, int field,
			const uint8_t *val)
{
	rocks_ctx *c = p;
	char key[ROW_LEN + FIELD_LEN];
	make_key(key, row, field);
	char *err = NULL;
	rocksdb_put(c->s->db, c->s->wo, key, sizeof key, (const char *)val,
		    VALUE_LEN, &err);
	return rocks_check(err, "put");
}

/* Read rows from the iterator's position; stops after nrows rows. */
static int rocks_read_rows(rocksdb_iterator_t *it, const char *row,
			   bool one_row, int nrows, record *rec, int *rows_out)
{
	char cur[ROW_LEN];
	int rows = 0;
	for (; rocksdb_iter_valid(it); rocksdb_iter_next(it)) {
		size_t kl, vl;
		const char *k = rocksdb_iter_key(it, &kl);
		if (kl != ROW_LEN + FIELD_LEN)
			break;
		if (one_row ? memcmp(k, row, ROW_LEN) != 0
			    : rows == 0 || memcmp(k, cur, ROW_LEN) != 0) {
			if (one_row || rows == nrows)
				break;
			memcpy(cur, k, ROW_LEN);
			rows++;
			record_reset(rec);
		}
		const char *v = rocksdb_iter_value(it, &vl);
		record_take(rec, field_index(k + ROW_LEN, FIELD_LEN), v, vl);
	}
	char *err = NULL;
	rocksdb_iter_get_error(it, &err);
	if (rows_out)
		*rows_out = rows;
	return rocks_check(err, "iterate");
}

static int rocks_read(void *p, const char *row, record *rec)
{
	rocks_ctx *c = p;
	rocksdb_iterator_t *it = rocksdb_create_iterator(c->s->db, c->s->ro_get);
	rocksdb_iter_seek(it, row, ROW_LEN);
	int rc = rocks_read_rows(it, row, true, 1, rec, NULL);
	rocksdb_iter_destroy(it);
	return rc;
}

static int rocks_scan(void *p, const char *row, int nrows, record *rec,
		      int *rows_out)
{
	rocks_ctx *c = p;
	rocksdb_iterator_t *it = rocksdb_create_iterator(c->s->db, c->s->ro_scan);
	rocksdb_iter_seek(it, row, ROW_LEN);
	int rc = rocks_read_rows(it, row, false, nrows, rec, rows_out);
	rocksdb_iter_destroy(it);
	return rc;
}

/* A thread's reused iterator (mode: ro), recreated only when the store
 * has advanced since it was made: it would not see the newer writes. */
static rocksdb_iterator_t *tuned_iter(rocks_ctx *c, rocksdb_iterator_t **it,
				      uint64_t *it_seq,
				      const rocksdb_readoptions_t *ro)
{
	uint64_t seq = rocksdb_get_latest_sequence_number(c->s->db);
	if (!*it || seq != *it_seq) {
		if (*it)
			rocksdb_iter_destroy(*it);
		*it = rocksdb_create_iterator(c->s->db, ro);
		*it_seq = seq;
	}
	return *it;
}

/* tuned row read, the faster of two ways measured (RESULTS.md): a seek of
 * the thread's reused prefix-mode iterator. The other, one batched
 * MultiGet of the row's NFIELDS keys into pinnable slices, ran at about
 * 0.5x of a new iterator per read (ten index searches against one seek);
 * SBX_BENCH_MULTIGET=1 selects it. */
static int tuned_read_multiget(rocks_ctx *c, const char *row, record *rec)
{
	char keys[NFIELDS][ROW_LEN + FIELD_LEN];
	const char *kp[NFIELDS];
	size_t ks[NFIELDS];
	rocksdb_pinnableslice_t *vals[NFIELDS];
	char *errs[NFIELDS];
	for (int i = 0; i < NFIELDS; i++) {
		make_key(keys[i], row, i);
		kp[i] = keys[i];
		ks[i] = sizeof keys[i];
		vals[i] = NULL;
		errs[i] = NULL;
	}
	rocksdb_batched_multi_get_cf(c->s->db, c->s->ro_point, c->s->cf,
				     NFIELDS, kp, ks, vals, errs, true);
	int rc = 0;
	for (int i = 0; i < NFIELDS; i++) {
		if (errs[i])
			rc = rocks_check(errs[i], "multiget");
		if (vals[i]) {
			size_t vl;
			const char *v = rocksdb_pinnableslice_value(vals[i], &vl);
			if (v)
				record_take(rec, i, v, vl);
			rocksdb_pinnableslice_destroy(vals[i]);
		}
	}
	return rc;
}

static int tuned_read(void *p, const char *row, record *rec)
{
	rocks_ctx *c = p;
	if (c->s->multiget)
		return tuned_read_multiget(c, row, rec);
	rocksdb_iterator_t *it = tuned_iter(c, &c->get_it, &c->get_seq,
					    c->s->ro_get);
	rocksdb_iter_seek(it, row, ROW_LEN);
	return rocks_read_rows(it, row, true, 1, rec, NULL);
}

static int tuned_scan(void *p, const char *row, int nrows, record *rec,
		      int *rows_out)
{
	rocks_ctx *c = p;
	rocksdb_iterator_t *it = tuned_iter(c, &c->it, &c->it_seq, c->s->ro_scan);
	rocksdb_iter_seek(it, row, ROW_LEN);
	return rocks_read_rows(it, row, false, nrows, rec, rows_out);
}

static int rocks_flush(void *p)
{
	rocks_state *s = p;
	rocksdb_flushoptions_t *fo = rocksdb_flushoptions_create();
	rocksdb_flushoptions_set_wait(fo, 1);
	char *err = NULL;
	rocksdb_flush_cf(s->db, fo, s->cf, &err);
	rocksdb_flushoptions_destroy(fo);
	return rocks_check(err, "flush");
}

static void rocks_close(void *p)
{
	rocks_state *s = p;
	rocksdb_readoptions_destroy(s->ro_get);
	rocksdb_readoptions_destroy(s->ro_scan);
	rocksdb_readoptions_destroy(s->ro_point);
	rocksdb_writeoptions_destroy(s->wo);
	rocksdb_column_family_handle_destroy(s->cf);
	rocksdb_close(s->db);
	rocksdb_options_destroy(s->opts);
	rocksdb_cache_destroy(s->cache);
	free(s);
}

/* ---- the tuned reference over Saltbox's cell keys ---- */

/*
 * "rocksdb-cellkeys" (opt-in: --engines): the tuned reference's reads and
 * the same RocksDB options over the keys Saltbox writes (src/engine/
 * cellkey.h, layout A of reference/key-encoding.md, which SPEC.md fixes):
 *   row 00 01 · qualifier 00 01 · BE64(~ts) · 0xFF - type
 * Every write is at one timestamp (the store's open time), so an update
 * replaces its cell, as a put at an existing timestamp does in HBase: the
 * layout's bytes with one version a column, the state Saltbox's compaction
 * keeps a VERSIONS=1 family in (without it versions would pile up here,
 * no compaction filter dropping them). A read still takes the first
 * (newest) version of each column and steps over any other. No delete
 * markers, TTL, filters or result objects: the floor any store of HBase's
 * model over that layout stands on, so Saltbox's ratio to it is the cost
 * of its own read path, and this engine's ratio to rocksdb-tuned the cost
 * of the layout. The rows and qualifiers here hold no zero byte, so none
 * is escaped.
 */
#define CK_ROW_LEN (ROW_LEN + 2)
#define CK_KEY_LEN (CK_ROW_LEN + FIELD_LEN + 2 + 8 + 1)

static uint64_t g_ck_ts; /* every cell's timestamp: the open time, ms */

static int ck_open(void **out, const char *dir, const bench_cfg *cfg)
{
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	g_ck_ts = (uint64_t)now.tv_sec * 1000 + (uint64_t)now.tv_nsec / 1000000;
	return rocks_open_prefix(out, dir, cfg, CK_ROW_LEN);
}

static void ck_row(char *p, const char *row)
{
	memcpy(p, row, ROW_LEN);
	p[ROW_LEN] = 0;
	p[ROW_LEN + 1] = 1;
}

static void ck_key(char *k, const char *row, int field, uint64_t ts)
{
	ck_row(k, row);
	char *q = k + CK_ROW_LEN;
	memcpy(q, FIELD_NAMES[field], FIELD_LEN);
	q[FIELD_LEN] = 0;
	q[FIELD_LEN + 1] = 1;
	uint64_t inv = ~ts;
	for (int i = 0; i < 8; i++)
		q[FIELD_LEN + 2 + i] = (char)(inv >> (56 - 8 * i));
	q[FIELD_LEN + 10] = (char)(0xFF - SBX_CELL_PUT);
}

static int ck_write(rocks_ctx *c, const char *row, int first, int n,
		    const uint8_t *const *vals)
{
	char key[CK_KEY_LEN];
	rocksdb_writebatch_clear(c->wb);
	for (int i = 0; i < n; i++) {
		ck_key(key, row, first + i, g_ck_ts);
		rocksdb_writebatch_put(c->wb, key, sizeof key,
				       (const char *)vals[i], VALUE_LEN);
	}
	char *err = NULL;
	rocksdb_write(c->s->db, c->s->wo, c->wb, &err);
	return rocks_check(err, "write");
}

static int ck_insert(void *p, const char *row, const uint8_t *const *vals)
{
	return ck_write(p, row, 0, NFIELDS, vals);
}

static int ck_update(void *p, const char *row, int field, const uint8_t *val)
{
	return ck_write(p, row, field, 1, &val);
}

/* rocks_read_rows over cell keys: the newest version of each column. */
static int ck_read_rows(rocksdb_iterator_t *it, const char *start,
			bool one_row, int nrows, record *rec, int *rows_out)
{
	char cur[CK_ROW_LEN];
	int rows = 0, last = -1;
	if (one_row)
		memcpy(cur, start, CK_ROW_LEN);
	for (; rocksdb_iter_valid(it); rocksdb_iter_next(it)) {
		size_t kl, vl;
		const char *k = rocksdb_iter_key(it, &kl);
		if (kl != CK_KEY_LEN)
			break;
		if (one_row ? memcmp(k, cur, CK_ROW_LEN) != 0
			    : rows == 0 || memcmp(k, cur, CK_ROW_LEN) != 0) {
			if (one_row || rows == nrows)
				break;
			memcpy(cur, k, CK_ROW_LEN);
			rows++;
			record_reset(rec);
			last = -1;
		}
		int f = field_index(k + CK_ROW_LEN, FIELD_LEN);
		if (f == last)
			continue; /* an older version of the column */
		last = f;
		const char *v = rocksdb_iter_value(it, &vl);
		record_take(rec, f, v, vl);
	}
	char *err = NULL;
	rocksdb_iter_get_error(it, &err);
	if (rows_out)
		*rows_out = rows;
	return rocks_check(err, "iterate");
}

static int ck_read(void *p, const char *row, record *rec)
{
	rocks_ctx *c = p;
	char start[CK_ROW_LEN];
	ck_row(start, row);
	rocksdb_iterator_t *it = tuned_iter(c, &c->get_it, &c->get_seq,
					    c->s->ro_get);
	rocksdb_iter_seek(it, start, sizeof start);
	return ck_read_rows(it, start, true, 1, rec, NULL);
}

static int ck_scan(void *p, const char *row, int nrows, record *rec,
		   int *rows_out)
{
	rocks_ctx *c = p;
	char start[CK_ROW_LEN];
	ck_row(start, row);
	rocksdb_iterator_t *it = tuned_iter(c, &c->it, &c->it_seq, c->s->ro_scan);
	rocksdb_iter_seek(it, start, sizeof start);
	return ck_read_rows(it, start, false, nrows, rec, rows_out);
}

/* ---- SQLite: WITHOUT ROWID cells(row, fam, qual, ts DESC) -------------- */

/*
 * Cells are versioned as in Saltbox: a put inserts a version with a newer
 * timestamp, and a read keeps the newest version of each qualifier (the
 * primary key orders ts descending, so that is the first one seen). SQLite
 * has no compaction to drop excess versions later, so an update enforces
 * VERSIONS=1 itself: insert the new version and delete the older ones, in
 * one transaction. A YCSB insert writes a new row and skips the delete.
 *
 * Threads: WAL mode (readers never wait for the writer), one connection
 * per thread with its own prepared statements and a page cache of
 * cache_bytes / threads (SQLite's caches are per connection); writes take
 * the write lock up front (BEGIN IMMEDIATE, busy timeout 60 s), and take
 * their timestamp under it, so versions stay in commit order.
 */
typedef struct sqlite_shared {
	char path[512];
	size_t cache_bytes;
	sqlite3 *schema_db; /* kept open: the WAL stays in place */
	_Atomic int64_t last_ts;
} sqlite_shared;

typedef struct sqlite_state {
	sqlite_shared *sh;
	sqlite3 *db;
	sqlite3_stmt *ins, *del, *get, *scan, *begin, *commit;
} sqlite_state;

static int sql_check(sqlite3 *db, int rc, const char *what)
{
	if (rc == SQLITE_OK || rc == SQLITE_DONE || rc == SQLITE_ROW)
		return 0;
	fprintf(stderr, "sqlite: %s: %s\n", what, sqlite3_errmsg(db));
	return -1;
}

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int sqlite_open_db(void **out, const char *dir, const bench_cfg *cfg)
{
	sqlite_shared *sh = calloc(1, sizeof *sh);
	if (!sh)
		return -1;
	snprintf(sh->path, sizeof sh->path, "%s/cells.sqlite", dir);
	sh->cache_bytes = cfg->cache_bytes;
	static const char schema[] =
		"PRAGMA journal_mode=WAL;"
		"CREATE TABLE cells(row BLOB NOT NULL, fam BLOB NOT NULL,"
		" qual BLOB NOT NULL, ts INTEGER NOT NULL, val BLOB,"
		" PRIMARY KEY(row, fam, qual, ts DESC)) WITHOUT ROWID;";
	int rc = sqlite3_open(sh->path, &sh->schema_db);
	if (!rc)
		rc = sqlite3_exec(sh->schema_db, schema, NULL, NULL, NULL);
	if (rc) {
		sql_check(sh->schema_db, rc, "open");
		sqlite3_close_v2(sh->schema_db);
		free(sh);
		return -1;
	}
	*out = sh;
	return 0;
}

static void sqlite_thread_close(void *p)
{
	sqlite_state *s = p;
	sqlite3_finalize(s->ins);
	sqlite3_finalize(s->del);
	sqlite3_finalize(s->get);
	sqlite3_finalize(s->scan);
	sqlite3_finalize(s->begin);
	sqlite3_finalize(s->commit);
	sqlite3_close_v2(s->db);
	free(s);
}

static int sqlite_thread_open(void **out, void *p, int nthreads)
{
	sqlite_shared *sh = p;
	sqlite_state *s = calloc(1, sizeof *s);
	if (!s)
		return -1;
	s->sh = sh;
	char pragmas[256];
	snprintf(pragmas, sizeof pragmas,
		 "PRAGMA synchronous=NORMAL; PRAGMA cache_size=-%zu;",
		 sh->cache_bytes / 1024 / (size_t)(nthreads > 0 ? nthreads : 1));
	int rc = sqlite3_open(sh->path, &s->db);
	if (!rc)
		rc = sqlite3_busy_timeout(s->db, 60000);
	if (!rc)
		rc = sqlite3_exec(s->db, pragmas, NULL, NULL, NULL);
	struct {
		sqlite3_stmt **st;
		const char *sql;
	} stmts[] = {
		{&s->ins, "INSERT INTO cells VALUES(?1, ?2, ?3, ?4, ?5)"},
		{&s->del, "DELETE FROM cells WHERE row = ?1 AND fam = ?2"
			  " AND qual = ?3 AND ts < ?4"},
		{&s->get, "SELECT qual, val FROM cells WHERE row = ?1 AND fam = ?2"
			  " ORDER BY qual, ts DESC"},
		{&s->scan, "SELECT row, qual, val FROM cells WHERE row >= ?1"
			   " AND fam = ?2 ORDER BY row, fam, qual, ts DESC"},
		{&s->begin, "BEGIN IMMEDIATE"},
		{&s->commit, "COMMIT"},
	};
	for (size_t i = 0; !rc && i < sizeof stmts / sizeof stmts[0]; i++)
		rc = sqlite3_prepare_v2(s->db, stmts[i].sql, -1, stmts[i].st,
					NULL);
	if (rc) {
		sql_check(s->db, rc, "open");
		sqlite_thread_close(s);
		return -1;
	}
	*out = s;
	return 0;
}

/* A timestamp above every one handed out (the caller holds the write
 * lock, so versions of a cell are in commit order). */
static int64_t sqlite_next_ts(sqlite_state *s)
{
	int64_t last = atomic_load(&s->sh->last_ts);
	for (;;) {
		int64_t now = now_ms();
		int64_t ts = now > last ? now : last + 1;
		if (atomic_compare_exchange_weak(&s->sh->last_ts, &last, ts))
			return ts;
	}
}

static int sqlite_put(sqlite_state *s, const char *row, int field, int64_t ts,
		      const uint8_t *val)
{
	sqlite3_bind_blob(s->ins, 1, row, ROW_LEN, SQLITE_STATIC);
	sqlite3_bind_blob(s->ins, 2, FAMILY, 1, SQLITE_STATIC);
	sqlite3_bind_blob(s->ins, 3, FIELD_NAMES[field], FIELD_LEN,
			  SQLITE_STATIC);
	sqlite3_bind_int64(s->ins, 4, ts);
	sqlite3_bind_blob(s->ins, 5, val, VALUE_LEN, SQLITE_STATIC);
	int rc = sqlite3_step(s->ins);
	sqlite3_reset(s->ins);
	return sql_check(s->db, rc, "insert");
}

static int sqlite_exec_stmt(sqlite_state *s, sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	return sql_check(s->db, rc, sqlite3_sql(st));
}

static int sqlite_finish(sqlite_state *s, int rc)
{
	if (rc) {
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
		return rc;
	}
	return sqlite_exec_stmt(s, s->commit);
}

static int sqlite_insert(void *p, const char *row, const uint8_t *const *vals)
{
	sqlite_state *s = p;
	int rc = sqlite_exec_stmt(s, s->begin);
	if (rc)
		return rc;
	int64_t ts = sqlite_next_ts(s);
	for (int i = 0; !rc && i < NFIELDS; i++)
		rc = sqlite_put(s, row, i, ts, vals[i]);
	return sqlite_finish(s, rc);
}

static int sqlite_update(void *p, const char *row, int field,
			 const uint8_t *val)
{
	sqlite_state *s = p;
	int rc = sqlite_exec_stmt(s, s->begin);
	if (rc)
		return rc;
	int64_t ts = sqlite_next_ts(s);
	rc = sqlite_put(s, row, field, ts, val);
	if (!rc) {
		sqlite3_bind_blob(s->del, 1, row, ROW_LEN, SQLITE_STATIC);
		sqlite3_bind_blob(s->del, 2, FAMILY, 1, SQLITE_STATIC);
		sqlite3_bind_blob(s->del, 3, FIELD_NAMES[field], FIELD_LEN,
				  SQLITE_STATIC);
		sqlite3_bind_int64(s->del, 4, ts);
		rc = sqlite_exec_stmt(s, s->del);
	}
	return sqlite_finish(s, rc);
}

/* Step st (rows ordered by row, qual, ts desc), keeping the newest version
 * of each column; stop after nrows rows. */
static int sqlite_read_rows(sqlite_state *s, sqlite3_stmt *st, bool has_row,
			    int nrows, record *rec, int *rows_out)
{
	char cur[ROW_LEN] = {0};
	char qual[FIELD_LEN + 1] = {0};
	int rows = 0, rc;
	int col = has_row ? 1 : 0;
	if (!has_row)
		rows = 1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (has_row) {
			const void *r = sqlite3_column_blob(st, 0);
			if (sqlite3_column_bytes(st, 0) != ROW_LEN)
				continue;
			if (rows == 0 || memcmp(r, cur, ROW_LEN)) {
				if (rows == nrows)
					break;
				memcpy(cur, r, ROW_LEN);
				rows++;
				record_reset(rec);
				qual[0] = 0;
			}
		}
		const void *q = sqlite3_column_blob(st, col);
		int ql = sqlite3_column_bytes(st, col);
		if (ql == FIELD_LEN && !memcmp(q, qual, FIELD_LEN))
			continue; /* an older version of the same column */
		if (ql == FIELD_LEN)
			memcpy(qual, q, FIELD_LEN);
		const void *v = sqlite3_column_blob(st, col + 1);
		int vl = sqlite3_column_bytes(st, col + 1);
		record_take(rec, field_index(q, (size_t)ql), v, (size_t)vl);
	}
	sqlite3_reset(st);
	if (rows_out)
		*rows_out = rows;
	return sql_check(s->db, rc, "select");
}

static int sqlite_read(void *p, const char *row, record *rec)
{
	sqlite_state *s = p;
	sqlite3_bind_blob(s->get, 1, row, ROW_LEN, SQLITE_STATIC);
	sqlite3_bind_blob(s->get, 2, FAMILY, 1, SQLITE_STATIC);
	return sqlite_read_rows(s, s->get, false, 1, rec, NULL);
}

static int sqlite_scan(void *p, const char *row, int nrows, record *rec,
		       int *rows_out)
{
	sqlite_state *s = p;
	sqlite3_bind_blob(s->scan, 1, row, ROW_LEN, SQLITE_STATIC);
	sqlite3_bind_blob(s->scan, 2, FAMILY, 1, SQLITE_STATIC);
	return sqlite_read_rows(s, s->scan, true, nrows, rec, rows_out);
}

static void sqlite_close_db(void *p)
{
	sqlite_shared *sh = p;
	sqlite3_close_v2(sh->schema_db);
	free(sh);
}

/* ---- LMDB: key = row || qualifier, MDB_NOSYNC ---------------------------- */

/* Threads: one environment; each thread has its own read transaction
 * (reset after every operation, renewed for the next: one read txn per op)
 * and cursor; MDB_NOTLS because a thread's context may run on another OS
 * thread in the next slice. Writers serialize on LMDB's writer lock. */
typedef struct lmdb_state {
	MDB_env *env;
	MDB_dbi dbi;
} lmdb_state;

typedef struct lmdb_ctx {
	lmdb_state *s;
	MDB_txn *rtxn;
	MDB_cursor *rcur;
} lmdb_ctx;

static int mdb_check(int rc, const char *what)
{
	if (rc == MDB_SUCCESS)
		return 0;
	fprintf(stderr, "lmdb: %s: %s\n", what, mdb_strerror(rc));
	return -1;
}

static int lmdb_open_db(void **out, const char *dir, const bench_cfg *cfg)
{
	lmdb_state *s = calloc(1, sizeof *s);
	if (!s)
		return -1;
	/* The map is sparse: room for the records, with inserts and B-tree
	 * slack (about 2 KiB a 10-field row), 16 GiB at least. */
	size_t map = (size_t)16 << 30;
	if (cfg->records * 4096 > map)
		map = (size_t)cfg->records * 4096;
	MDB_txn *txn = NULL;
	int rc = mdb_env_create(&s->env);
	if (!rc)
		rc = mdb_env_set_mapsize(s->env, map);
	if (!rc)
		rc = mdb_env_set_maxreaders(s->env, 256);
	if (!rc)
		rc = mdb_env_open(s->env, dir, MDB_NOSYNC | MDB_NOTLS, 0644);
	if (!rc)
		rc = mdb_txn_begin(s->env, NULL, 0, &txn);
	if (!rc)
		rc = mdb_dbi_open(txn, NULL, 0, &s->dbi);
	if (!rc)
		rc = mdb_txn_commit(txn);
	if (rc) {
		mdb_check(rc, "open");
		mdb_env_close(s->env);
		free(s);
		return -1;
	}
	*out = s;
	return 0;
}

static int lmdb_thread_open(void **out, void *p, int nthreads)
{
	(void)nthreads;
	lmdb_ctx *c = calloc(1, sizeof *c);
	if (!c)
		return -1;
	c->s = p;
	int rc = mdb_txn_begin(c->s->env, NULL, MDB_RDONLY, &c->rtxn);
	if (!rc)
		rc = mdb_cursor_open(c->rtxn, c->s->dbi, &c->rcur);
	if (rc) {
		if (c->rtxn)
			mdb_txn_abort(c->rtxn);
		free(c);
		return mdb_check(rc, "read txn");
	}
	mdb_txn_reset(c->rtxn);
	*out = c;
	return 0;
}

static void lmdb_thread_close(void *p)
{
	lmdb_ctx *c = p;
	mdb_cursor_close(c->rcur);
	mdb_txn_abort(c->rtxn);
	free(c);
}

static int lmdb_write(lmdb_ctx *c, const char *row, int first, int n,
		      const uint8_t *const *vals)
{
	MDB_txn *txn;
	int rc = mdb_txn_begin(c->s->env, NULL, 0, &txn);
	char key[ROW_LEN + FIELD_LEN];
	for (int i = 0; !rc && i < n; i++) {
		make_key(key, row, first + i);
		MDB_val k = {sizeof key, key};
		MDB_val v = {VALUE_LEN, (void *)vals[i]};
		rc = mdb_put(txn, c->s->dbi, &k, &v, 0);
	}
	if (rc) {
		mdb_txn_abort(txn);
		return mdb_check(rc, "put");
	}
	return mdb_check(mdb_txn_commit(txn), "commit");
}

static int lmdb_insert(void *p, const char *row, const uint8_t *const *vals)
{
	return lmdb_write(p, row, 0, NFIELDS, vals);
}

static int lmdb_update(void *p, const char *row, int field, const uint8_t *val)
{
	return lmdb_write(p, row, field, 1, &val);
}

static int lmdb_read_rows(lmdb_ctx *c, const char *row, bool one_row,
			  int nrows, record *rec, int *rows_out)
{
	int rc = mdb_txn_renew(c->rtxn);
	if (!rc)
		rc = mdb_cursor_renew(c->rtxn, c->rcur);
	if (rc)
		return mdb_check(rc, "renew");
	MDB_val k = {ROW_LEN, (void *)row}, v;
	char cur[ROW_LEN];
	int rows = 0;
	for (rc = mdb_cursor_get(c->rcur, &k, &v, MDB_SET_RANGE); rc == 0;
	     rc = mdb_cursor_get(c->rcur, &k, &v, MDB_NEXT)) {
		const char *kd = k.mv_data;
		if (k.mv_size != ROW_LEN + FIELD_LEN)
			break;
		if (one_row ? memcmp(kd, row, ROW_LEN) != 0
			    : rows == 0 || memcmp(kd, cur, ROW_LEN) != 0) {
			if (one_row || rows == nrows)
				break;
			memcpy(cur, kd, ROW_LEN);
			rows++;
			record_reset(rec);
		}
		record_take(rec, field_index(kd + ROW_LEN, FIELD_LEN),
			    v.mv_data, v.mv_size);
	}
	mdb_txn_reset(c->rtxn);
	if (rows_out)
		*rows_out = rows;
	return rc == 0 || rc == MDB_NOTFOUND ? 0 : mdb_check(rc, "cursor");
}

static int lmdb_read(void *p, const char *row, record *rec)
{
	return lmdb_read_rows(p, row, true, 1, rec, NULL);
}

static int lmdb_scan(void *p, const char *row, int nrows, record *rec,
		     int *rows_out)
{
	return lmdb_read_rows(p, row, false, nrows, rec, rows_out);
}

static void lmdb_close_db(void *p)
{
	lmdb_state *s = p;
	mdb_env_close(s->env);
	free(s);
}

/* Raw RocksDB first and the tuned one second: the references every ratio
 * is taken against. */
static const bench_engine ENGINES[] = {
	{"rocksdb", rocks_open, rocks_thread_open, rocks_thread_close,
	 rocks_insert, rocks_read, rocks_update, rocks_scan, rocks_close, false,
	 false, rocks_flush},
	{"rocksdb-tuned", rocks_open, rocks_thread_open, rocks_thread_close,
	 rocks_insert, tuned_read, rocks_update, tuned_scan, rocks_close, false,
	 true, rocks_flush},
	{"saltbox", saltbox_open, saltbox_thread_open, saltbox_thread_close,
	 saltbox_insert, saltbox_read,
	 saltbox_update, saltbox_scan, saltbox_close, false, false,
	 saltbox_flush},
	{"sqlite", sqlite_open_db, sqlite_thread_open, sqlite_thread_close,
	 sqlite_insert, sqlite_read, sqlite_update, sqlite_scan,
	 sqlite_close_db, false, false, NULL},
	{"lmdb", lmdb_open_db, lmdb_thread_open, lmdb_thread_close,
	 lmdb_insert, lmdb_read, lmdb_update, lmdb_scan, lmdb_close_db, false,
	 false, NULL},
	{"rocksdb-cellkeys", ck_open, rocks_thread_open, rocks_thread_close,
	 ck_insert, ck_read, ck_update, ck_scan, rocks_close, true, true,
	 rocks_flush},
};
#define NENGINES (sizeof ENGINES / sizeof ENGINES[0])
#define REF_RAW 0   /* ENGINES[] index of raw RocksDB */
#define REF_TUNED 1 /* and of the tuned one */

/* ---- running phases --------------------------------------------------------- */

#define MAX_THREADS 64
#define MAX_TCOUNTS 8

static uint8_t *g_pool; /* random (incompressible) value bytes */
static char g_tmpdir[512];

static int rm_entry(const char *path, const struct stat *sb, int flag,
		    struct FTW *ftw)
{
	(void)sb, (void)flag, (void)ftw;
	return remove(path);
}

static void remove_tree(const char *path)
{
	nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static void remove_tmpdir(void)
{
	if (g_tmpdir[0]) {
		remove_tree(g_tmpdir);
		g_tmpdir[0] = 0;
	}
}

static void fail(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "bench_engine: ");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	remove_tmpdir();
	exit(1);
}

static double seconds_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static const uint8_t *random_value(rng *r)
{
	return g_pool + rng_next(r) % (VALUE_POOL_BYTES - VALUE_LEN);
}

static void insert_row(const bench_engine *e, void *ctx, rng *r,
		       uint64_t keynum)
{
	char row[ROW_LEN + 1];
	const uint8_t *vals[NFIELDS];
	key_of(keynum, row);
	for (int i = 0; i < NFIELDS; i++)
		vals[i] = random_value(r);
	if (e->insert(ctx, row, vals))
		fail("%s: insert failed", e->name);
}

/* Counters a phase checks so that every engine provably did the work. */
typedef struct phase_stats {
	uint64_t ops, reads, short_reads, late_reads, scans, scan_rows;
} phase_stats;

/* must_exist: the row was loaded before the phase began. With several
 * threads a read may pick a row another thread has claimed but not yet
 * inserted: that one counts as late, not as an error. */
static void read_row(const bench_engine *e, void *ctx, const char *row,
		     bool must_exist, phase_stats *ps)
{
	record rec;
	record_reset(&rec);
	if (e->read(ctx, row, &rec))
		fail("%s: read failed", e->name);
	ps->reads++;
	if (rec.nfields != NFIELDS) {
		if (must_exist)
			ps->short_reads++;
		else
			ps->late_reads++;
	}
	g_sink += rec.vals[0][0] + rec.vals[NFIELDS - 1][VALUE_LEN - 1];
}

/* One thread's share of a workload on one engine, resumable: the phase
 * runs it in slices, alternating engines, so drift in the machine's speed
 * (other processes, another engine's background flushes) falls on every
 * engine alike. Each engine sees the same operations in the same order
 * (with one thread exactly; with several, each thread's stream is the
 * same, their interleaving is the scheduler's). */
typedef struct workload_run {
	rng r;
	key_chooser kc;
	uint64_t done;  /* operations run so far */
	uint64_t share; /* this thread's operations in the phase */
	phase_stats ps;
} workload_run;

/* What the threads of one engine share in a phase. */
typedef struct engine_phase {
	const bench_engine *e;
	const workload *w;
	_Atomic uint64_t count; /* record count, advanced by inserts */
	uint64_t base;          /* records that existed when it began */
	int nthreads;
	void **ctx;             /* per thread */
	workload_run runs[MAX_THREADS];
	rng *load_rng;          /* load: per thread */
	uint64_t load_lo, load_hi;
} engine_phase;

static void run_init(workload_run *run, const workload *w, dist d,
		     uint64_t nops, uint64_t count, uint64_t seed)
{
	memset(run, 0, sizeof *run);
	run->r.s = seed;
	uint64_t expected_inserts = (uint64_t)((double)nops * w->insert * 2.0);
	chooser_init(&run->kc, w->latest ? DIST_LATEST : d, count,
		     expected_inserts);
}

/* The enabled engines, and the one that takes the i-th turn of round k.
 * The order rotates from round to round: an engine's place in the round
 * matters (measured: raw RocksDB first and Saltbox second in every round
 * gave Saltbox's E 0.78-0.85x, the reverse 0.86-0.88x), so each engine
 * leads equally often. */
static size_t g_active[NENGINES], g_nactive;

static size_t turn(uint64_t k, size_t i)
{
	return g_active[(k + i) % g_nactive];
}

/* Run thread t's operations up to `until` of the workload. */
static void run_slice(engine_phase *ep, int t, uint64_t until)
{
	const bench_engine *e = ep->e;
	const workload *w = ep->w;
	void *ctx = ep->ctx[t];
	workload_run *run = &ep->runs[t];
	rng *r = &run->r;
	phase_stats *ps = &run->ps;
	char row[ROW_LEN + 1];
	record rec;
	for (; run->done < until; run->done++) {
		double x = rng_double(r);
		if ((x -= w->insert) < 0 && w->insert > 0) {
			insert_row(e, ctx, r, atomic_fetch_add(&ep->count, 1));
			ps->ops++;
			continue;
		}
		uint64_t keynum = chooser_next(&run->kc, r, atomic_load(&ep->count));
		bool must_exist = keynum < ep->base;
		key_of(keynum, row);
		if ((x -= w->read) < 0 && w->read > 0) {
			read_row(e, ctx, row, must_exist, ps);
		} else if ((x -= w->update) < 0 && w->update > 0) {
			if (e->update(ctx, row, (int)(rng_next(r) % NFIELDS),
				      random_value(r)))
				fail("%s: update failed", e->name);
		} else if ((x -= w->scan) < 0 && w->scan > 0) {
			int len = 1 + (int)(rng_next(r) % MAX_SCAN_LEN);
			int rows = 0;
			record_reset(&rec);
			if (e->scan(ctx, row, len, &rec, &rows))
				fail("%s: scan failed", e->name);
			g_sink += rec.vals[0][0];
			ps->scans++;
			ps->scan_rows += (uint64_t)rows;
		} else { /* read-modify-write: read the row, write one field */
			read_row(e, ctx, row, must_exist, ps);
			if (e->update(ctx, row, (int)(rng_next(r) % NFIELDS),
				      random_value(r)))
				fail("%s: update failed", e->name);
		}
		ps->ops++;
	}
}

/* Load: thread t inserts the rows n of [lo, hi) with n % threads == t. */
static void load_slice(engine_phase *ep, int t)
{
	for (uint64_t n = ep->load_lo; n < ep->load_hi; n++)
		if (n % (uint64_t)ep->nthreads == (uint64_t)t)
			insert_row(ep->e, ep->ctx[t], &ep->load_rng[t], n);
}

typedef struct slice_job {
	engine_phase *ep;
	int t;
	uint64_t until; /* 0: a load slice */
	bool load;
} slice_job;

static void *slice_thread(void *arg)
{
	slice_job *j = arg;
	if (j->ep->e->counters_off)
		rocksdb_set_perf_level(rocksdb_disable);
	if (j->load)
		load_slice(j->ep, j->t);
	else
		run_slice(j->ep, j->t, j->until);
	return NULL;
}

/* One slice on every thread of the engine; its wall time. until[t] for a
 * workload, NULL for a load slice. */
static double slice(engine_phase *ep, const uint64_t *until)
{
	slice_job jobs[MAX_THREADS];
	pthread_t th[MAX_THREADS];
	double t0 = seconds_now();
	for (int t = 0; t < ep->nthreads; t++) {
		jobs[t] = (slice_job){ep, t, until ? until[t] : 0, !until};
		if (pthread_create(&th[t], NULL, slice_thread, &jobs[t]))
			fail("pthread_create: %s", strerror(errno));
	}
	for (int t = 0; t < ep->nthreads; t++)
		pthread_join(th[t], NULL);
	return seconds_now() - t0;
}

/* ---- results table ------------------------------------------------------ */

#define MAX_PHASES 64

typedef struct phase_result {
	char label[32];    /* workload and distribution */
	int threads;
	uint64_t ops;
	double secs[NENGINES];
	bool ran[NENGINES];
} phase_result;

static double ops_per_s(const phase_result *p, size_t e)
{
	return p->ran[e] && p->secs[e] > 0 ? (double)p->ops / p->secs[e] : 0;
}

static void print_table(const phase_result *pr, size_t n, const bool *on,
			int threads)
{
	printf("\n%d thread%s: ops/s (ratio to rocksdb / to rocksdb-tuned)\n",
	       threads, threads == 1 ? "" : "s");
	printf("%-18s", "");
	for (size_t e = 0; e < NENGINES; e++)
		if (on[e])
			printf(" %22s", ENGINES[e].name);
	printf("\n");
	for (size_t i = 0; i < n; i++) {
		if (pr[i].threads != threads)
			continue;
		printf("%-18s", pr[i].label);
		double raw = ops_per_s(&pr[i], REF_RAW);
		double tuned = ops_per_s(&pr[i], REF_TUNED);
		for (size_t e = 0; e < NENGINES; e++) {
			if (!on[e])
				continue;
			double ops = ops_per_s(&pr[i], e);
			char cell[64], a[16] = "", b[16] = "";
			if (e != REF_RAW && raw > 0)
				snprintf(a, sizeof a, "%.2fx", ops / raw);
			if (e != REF_TUNED && tuned > 0)
				snprintf(b, sizeof b, "%.2fx", ops / tuned);
			if (a[0] || b[0])
				snprintf(cell, sizeof cell, "%.0f (%s%s%s)", ops, a,
					 a[0] && b[0] ? " / " : "", b);
			else
				snprintf(cell, sizeof cell, "%.0f", ops);
			printf(" %22s", cell);
		}
		printf("\n");
	}
}

/* Each engine's ops/s at every thread count, side by side. */
static void print_scaling(const phase_result *pr, size_t n, const bool *on,
			  const int *tcs, size_t ntc)
{
	printf("\nscaling: ops/s by threads");
	for (size_t k = 0; k < ntc; k++)
		printf(" %10d", tcs[k]);
	printf("   (last/first)\n");
	for (size_t i = 0; i < n; i++) {
		if (pr[i].threads != tcs[0] || !strncmp(pr[i].label, "load", 4))
			continue;
		for (size_t e = 0; e < NENGINES; e++) {
			if (!on[e])
				continue;
			char name[64];
			snprintf(name, sizeof name, "%.31s %.24s", pr[i].label,
				 ENGINES[e].name);
			printf("%-25s", name);
			double first = 0, last = 0;
			for (size_t k = 0; k < ntc; k++) {
				double v = 0;
				for (size_t j = 0; j < n; j++)
					if (pr[j].threads == tcs[k] &&
					    !strcmp(pr[j].label, pr[i].label))
						v = ops_per_s(&pr[j], e);
				if (k == 0)
					first = v;
				last = v;
				printf(" %10.0f", v);
			}
			printf("   %.2fx\n", first > 0 ? last / first : 0);
		}
	}
}

/* ---- one run: open, load, workloads at each thread count, close ---------- */

typedef struct run_plan {
	int tcs[MAX_TCOUNTS]; /* thread counts, in order */
	size_t ntc;
} run_plan;

static void open_contexts(void **ctx, size_t e, void *st, int n)
{
	for (int t = 0; t < n; t++) {
		ctx[t] = st;
		if (ENGINES[e].thread_open &&
		    ENGINES[e].thread_open(&ctx[t], st, n))
			fail("%s: thread context failed", ENGINES[e].name);
	}
}

static void close_contexts(void **ctx, size_t e, int n)
{
	for (int t = 0; t < n; t++)
		if (ENGINES[e].thread_close)
			ENGINES[e].thread_close(ctx[t]);
}

static size_t run_bench(const bench_cfg *cfg, const run_plan *plan,
			const bool *on, phase_result *res)
{
	g_nactive = 0;
	for (size_t e = 0; e < NENGINES; e++)
		if (on[e])
			g_active[g_nactive++] = e;
	void *st[NENGINES] = {0};
	char dirs[NENGINES][600];
	for (size_t e = 0; e < NENGINES; e++) {
		if (!on[e])
			continue;
		snprintf(dirs[e], sizeof dirs[e], "%s/%s", g_tmpdir, ENGINES[e].name);
		if (mkdir(dirs[e], 0755) && errno != EEXIST)
			fail("mkdir %s: %s", dirs[e], strerror(errno));
		if (ENGINES[e].open(&st[e], dirs[e], cfg))
			fail("%s: open failed", ENGINES[e].name);
	}
	size_t nres = 0;
	uint64_t count[NENGINES];
	static void *ctx[NENGINES][MAX_THREADS];
	static engine_phase eps[NENGINES];

	/* Load: one atomic row insert at a time, as YCSB's load phase, on
	 * the first thread count's threads. */
	int lt = plan->tcs[0];
	phase_result *p = &res[nres++];
	memset(p, 0, sizeof *p);
	snprintf(p->label, sizeof p->label, "load (rows/s)");
	p->threads = lt;
	p->ops = cfg->records;
	static rng lr[NENGINES][MAX_THREADS];
	for (size_t e = 0; e < NENGINES; e++) {
		count[e] = cfg->records;
		if (!on[e])
			continue;
		for (int t = 0; t < lt; t++)
			lr[e][t].s = cfg->seed + (uint64_t)t * 0x9E3779B97F4A7C15ull;
		open_contexts(ctx[e], e, st[e], lt);
		memset(&eps[e], 0, sizeof eps[e]);
		eps[e].e = &ENGINES[e];
		eps[e].nthreads = lt;
		eps[e].ctx = ctx[e];
		eps[e].load_rng = lr[e];
	}
	for (uint64_t k = 1; k <= cfg->rounds; k++) /* interleaved, as below */
		for (size_t i = 0; i < g_nactive; i++) {
			size_t e = turn(k, i);
			eps[e].load_lo = cfg->records * (k - 1) / cfg->rounds;
			eps[e].load_hi = cfg->records * k / cfg->rounds;
			p->secs[e] += slice(&eps[e], NULL);
			p->ran[e] = true;
		}
	for (size_t e = 0; e < NENGINES; e++)
		if (on[e]) {
			close_contexts(ctx[e], e, lt);
			fprintf(stderr, "  load %-13s %8.2f s %10.0f rows/s\n",
				ENGINES[e].name, p->secs[e],
				(double)cfg->records / p->secs[e]);
			/* untimed: the workloads then start from store files
			 * alone, whatever part of the load each engine's own
			 * flush points left in its memtable */
			if (cfg->flush_after_load && ENGINES[e].flush &&
			    ENGINES[e].flush(st[e]))
				fail("%s: flush failed", ENGINES[e].name);
		}

	/* Workloads: each runs on every engine in turn with the same seeds,
	 * hence the same operations; ratios are taken within one phase. */
	dist dists[2];
	size_t ndists = 0;
	if (cfg->dist_zipfian)
		dists[ndists++] = DIST_ZIPFIAN;
	if (cfg->dist_uniform)
		dists[ndists++] = DIST_UNIFORM;
	for (size_t ti = 0; ti < plan->ntc; ti++) {
		int nt = plan->tcs[ti];
		for (size_t e = 0; e < NENGINES; e++)
			if (on[e])
				open_contexts(ctx[e], e, st[e], nt);
		for (size_t di = 0; di < ndists; di++) {
			for (const char *wc = cfg->workloads; *wc; wc++) {
				const workload *w = &WORKLOADS[*wc - 'A'];
				if (nres == MAX_PHASES)
					break;
				p = &res[nres++];
				memset(p, 0, sizeof *p);
				snprintf(p->label, sizeof p->label, "%c %s", w->id,
					 w->latest ? dist_name(DIST_LATEST)
						   : dist_name(dists[di]));
				p->threads = nt;
				p->ops = w->scan > 0 ? cfg->scan_ops : cfg->ops;
				/* the seed of a workload does not depend on the
				 * thread count: thread 0 of every run replays
				 * the one-thread stream's start */
				uint64_t seed = cfg->seed * 1000003u +
						(uint64_t)(wc - cfg->workloads) + 2 +
						di * 16;
				for (size_t e = 0; e < NENGINES; e++) {
					if (!on[e])
						continue;
					engine_phase *ep = &eps[e];
					memset(ep, 0, sizeof *ep);
					ep->e = &ENGINES[e];
					ep->w = w;
					ep->nthreads = nt;
					ep->ctx = ctx[e];
					atomic_init(&ep->count, count[e]);
					ep->base = count[e];
					for (int t = 0; t < nt; t++) {
						run_init(&ep->runs[t], w, dists[di],
							 p->ops, count[e],
							 seed + (uint64_t)t * 0x9E3779B97F4A7C15ull);
						ep->runs[t].share =
							p->ops * (uint64_t)(t + 1) / (uint64_t)nt -
							p->ops * (uint64_t)t / (uint64_t)nt;
					}
				}
				for (uint64_t k = 1; k <= cfg->rounds; k++)
					for (size_t i = 0; i < g_nactive; i++) {
						size_t e = turn(k, i);
						uint64_t until[MAX_THREADS];
						for (int t = 0; t < nt; t++)
							until[t] = eps[e].runs[t].share * k /
								   cfg->rounds;
						p->secs[e] += slice(&eps[e], until);
						p->ran[e] = true;
					}
				bool first = true;
				phase_stats ref = {0};
				uint64_t ref_count = 0;
				for (size_t e = 0; e < NENGINES; e++) {
					if (!on[e])
						continue;
					phase_stats ps = {0};
					for (int t = 0; t < nt; t++) {
						const phase_stats *q = &eps[e].runs[t].ps;
						ps.ops += q->ops;
						ps.reads += q->reads;
						ps.short_reads += q->short_reads;
						ps.late_reads += q->late_reads;
						ps.scans += q->scans;
						ps.scan_rows += q->scan_rows;
					}
					count[e] = atomic_load(&eps[e].count);
					fprintf(stderr,
						"  %-12s t%-2d %-13s %7.2f s %10.0f ops/s  "
						"reads %llu (short %llu, late %llu) scans "
						"%llu rows %llu\n",
						p->label, nt, ENGINES[e].name, p->secs[e],
						ops_per_s(p, e),
						(unsigned long long)ps.reads,
						(unsigned long long)ps.short_reads,
						(unsigned long long)ps.late_reads,
						(unsigned long long)ps.scans,
						(unsigned long long)ps.scan_rows);
					if (ps.short_reads)
						fail("%s: %llu reads missed fields",
						     ENGINES[e].name,
						     (unsigned long long)ps.short_reads);
					if (ps.ops != p->ops)
						fail("%s ran %llu operations of %llu",
						     ENGINES[e].name,
						     (unsigned long long)ps.ops,
						     (unsigned long long)p->ops);
					/* one thread: exactly the same work */
					if (first) {
						ref = ps;
						ref_count = count[e];
						first = false;
					} else if (nt == 1 &&
						   (count[e] != ref_count ||
						    ps.scan_rows != ref.scan_rows ||
						    ps.reads != ref.reads))
						fail("%s did different work than %s",
						     ENGINES[e].name, "the first engine");
				}
			}
		}
		for (size_t e = 0; e < NENGINES; e++)
			if (on[e])
				close_contexts(ctx[e], e, nt);
	}
	for (size_t e = 0; e < NENGINES; e++)
		if (on[e]) {
			ENGINES[e].close(st[e]);
			remove_tree(dirs[e]);
		}
	return nres;
}

/* ---- main ------------------------------------------------------------------ */

static void usage(void)
{
	fprintf(stderr,
		"usage: bench_engine [--records N] [--ops N] [--scan-ops N]\n"
		"                    [--workloads ABCDEF] [--dist uniform|zipfian|both]\n"
		"                    [--engines rocksdb,rocksdb-tuned,saltbox,sqlite,lmdb,\n"
		"                               rocksdb-cellkeys]\n"
		"                    [--threads N[,N...]] [--isolate]\n"
		"                    [--block-size BYTES] [--seed N] [--dir DIR]\n"
		"                    [--rounds N] [--cache BYTES] [--row-cache BYTES]\n"
		"                    [--mmap-reads] [--flush-after-load]\n"
		"Defaults: 100000 records, 200000 ops per workload, E runs\n"
		"ops/10 scans, all workloads, zipfian, all engines but\n"
		"rocksdb-cellkeys, 1 thread, 64 KiB\n"
		"blocks, temp dir under /tmp (removed at exit), 12 rounds: each\n"
		"phase runs in that many slices, engines taking turns in an\n"
		"order that rotates every round; an engine's time is the sum\n"
		"of its slices.\n"
		"--threads 1,2,4,8: the same operations split over N threads,\n"
		"each thread count in turn (the load runs on the first count's\n"
		"threads); tables side by side and a scaling table.\n"
		"--isolate: each engine runs alone in a child process (no\n"
		"interleaving), so its peak RSS (ru_maxrss) is its own; without\n"
		"it the peak printed is the whole process's.\n"
		"--cache BYTES: each engine's cache memory: RocksDB's block\n"
		"cache, SQLite's page cache (split over its connections), and\n"
		"Saltbox's block cache and row cache together (default: what\n"
		"Saltbox's defaults take, 192 + 128 MiB, so it runs as shipped).\n"
		"--row-cache BYTES: Saltbox's row cache (sbx_db_options.\n"
		"row_cache_bytes), out of --cache (default the library's; 0\n"
		"turns it off and gives the block cache all of --cache).\n"
		"--mmap-reads: Saltbox and both RocksDB references read store\n"
		"files through mmap (sbx_db_options.mmap_reads, RocksDB's\n"
		"allow_mmap_reads).\n"
		"--flush-after-load: Saltbox and the RocksDB engines write\n"
		"their memtables to store files after the load (untimed), so\n"
		"the workloads do not depend on where each engine's flushes\n"
		"happened to fall (SQLite and LMDB have no memtable).\n"
		"rocksdb-cellkeys: the tuned reference over Saltbox's cell-key\n"
		"layout (versions, no markers): the layout's floor.\n");
	exit(2);
}

static uint64_t parse_u64(const char *s)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || *end || end == s)
		usage();
	return v;
}

static void parse_threads(run_plan *plan, const char *v)
{
	plan->ntc = 0;
	const char *s = v;
	while (*s) {
		char *end;
		errno = 0;
		long n = strtol(s, &end, 10);
		if (errno || end == s || n < 1 || n > MAX_THREADS ||
		    plan->ntc == MAX_TCOUNTS || (*end && *end != ','))
			usage();
		plan->tcs[plan->ntc++] = (int)n;
		s = *end ? end + 1 : end;
	}
	if (plan->ntc == 0)
		usage();
}

static bool engine_named(const char *list, const char *name)
{
	size_t n = strlen(name);
	for (const char *s = list; *s;) {
		const char *c = strchr(s, ',');
		size_t len = c ? (size_t)(c - s) : strlen(s);
		if (len == n && !memcmp(s, name, n))
			return true;
		s += len + (c ? 1 : 0);
	}
	return false;
}

static long peak_rss_kib(int who)
{
	struct rusage ru;
	return getrusage(who, &ru) ? 0 : ru.ru_maxrss;
}

/* Each engine alone in a child process; results and its peak RSS back. */
static size_t run_isolated(const bench_cfg *cfg, const run_plan *plan,
			   const bool *on, phase_result *res, long *rss_kib)
{
	size_t nres = 0;
	for (size_t e = 0; e < NENGINES; e++) {
		if (!on[e])
			continue;
		int fd[2];
		if (pipe(fd))
			fail("pipe: %s", strerror(errno));
		fflush(NULL);
		pid_t pid = fork();
		if (pid < 0)
			fail("fork: %s", strerror(errno));
		if (pid == 0) {
			close(fd[0]);
			bool only[NENGINES] = {0};
			only[e] = true;
			static phase_result mine[MAX_PHASES];
			size_t n = run_bench(cfg, plan, only, mine);
			if (write(fd[1], &n, sizeof n) != (ssize_t)sizeof n ||
			    write(fd[1], mine, n * sizeof mine[0]) !=
				    (ssize_t)(n * sizeof mine[0]))
				_exit(1);
			_exit(0);
		}
		close(fd[1]);
		size_t n = 0;
		static phase_result got[MAX_PHASES];
		ssize_t r1 = read(fd[0], &n, sizeof n);
		size_t want = n * sizeof got[0], have = 0;
		while (r1 == (ssize_t)sizeof n && n <= MAX_PHASES && have < want) {
			ssize_t r = read(fd[0], (char *)got + have, want - have);
			if (r <= 0)
				break;
			have += (size_t)r;
		}
		close(fd[0]);
		int status = 0;
		struct rusage ru;
		if (wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) ||
		    WEXITSTATUS(status) != 0 || r1 != (ssize_t)sizeof n ||
		    have != want)
			fail("%s: the child process failed", ENGINES[e].name);
		rss_kib[e] = ru.ru_maxrss;
		if (nres == 0) {
			memcpy(res, got, n * sizeof got[0]);
			for (size_t i = 0; i < n; i++)
				memset(res[i].ran, 0, sizeof res[i].ran);
			nres = n;
		}
		for (size_t i = 0; i < n && i < nres; i++) {
			res[i].secs[e] = got[i].secs[e];
			res[i].ran[e] = got[i].ran[e];
		}
	}
	return nres;
}

int main(int argc, char **argv)
{
	bench_cfg cfg = {
		.records = 100000,
		.ops = 200000,
		.workloads = "ABCDEF",
		.dist_zipfian = true,
		.block_size = 64 * 1024, /* HBase's BLOCKSIZE default */
		.cache_bytes = SIZE_MAX,
		.row_cache_bytes = SIZE_MAX,
		.seed = 42,
		.rounds = 12,
	};
	snprintf(cfg.dir, sizeof cfg.dir, "/tmp");
	run_plan plan = {{1}, 1};
	bool scan_ops_set = false, isolate = false;
	bool on[NENGINES];
	for (size_t e = 0; e < NENGINES; e++)
		on[e] = !ENGINES[e].opt_in;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--isolate")) {
			isolate = true;
			continue;
		}
		if (!strcmp(a, "--flush-after-load")) {
			cfg.flush_after_load = true;
			continue;
		}
		if (!strcmp(a, "--mmap-reads")) {
			cfg.mmap_reads = true;
			continue;
		}
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!v)
			usage();
		i++;
		if (!strcmp(a, "--records"))
			cfg.records = parse_u64(v);
		else if (!strcmp(a, "--ops"))
			cfg.ops = parse_u64(v);
		else if (!strcmp(a, "--scan-ops"))
			cfg.scan_ops = parse_u64(v), scan_ops_set = true;
		else if (!strcmp(a, "--workloads"))
			cfg.workloads = v;
		else if (!strcmp(a, "--block-size"))
			cfg.block_size = parse_u64(v);
		else if (!strcmp(a, "--cache"))
			cfg.cache_bytes = parse_u64(v);
		else if (!strcmp(a, "--row-cache"))
			cfg.row_cache_bytes = parse_u64(v);
		else if (!strcmp(a, "--seed"))
			cfg.seed = parse_u64(v);
		else if (!strcmp(a, "--rounds"))
			cfg.rounds = parse_u64(v);
		else if (!strcmp(a, "--threads"))
			parse_threads(&plan, v);
		else if (!strcmp(a, "--dir"))
			snprintf(cfg.dir, sizeof cfg.dir, "%s", v);
		else if (!strcmp(a, "--dist")) {
			cfg.dist_uniform = !strcmp(v, "uniform") || !strcmp(v, "both");
			cfg.dist_zipfian = !strcmp(v, "zipfian") || !strcmp(v, "both");
			if (!cfg.dist_uniform && !cfg.dist_zipfian)
				usage();
		} else if (!strcmp(a, "--engines")) {
			for (size_t e = 0; e < NENGINES; e++)
				on[e] = engine_named(v, ENGINES[e].name);
		} else
			usage();
	}
	if (cfg.rounds == 0)
		usage();
	size_t nactive = 0;
	for (size_t e = 0; e < NENGINES; e++)
		nactive += on[e];
	if (nactive == 0)
		usage();
	if (!scan_ops_set)
		cfg.scan_ops = cfg.ops / 10;
	if (cfg.records < 2 || cfg.ops == 0)
		usage();
	for (const char *w = cfg.workloads; *w; w++)
		if (*w < 'A' || *w > 'F')
			usage();

	snprintf(g_tmpdir, sizeof g_tmpdir, "%s/sbx-bench-XXXXXX", cfg.dir);
	if (!mkdtemp(g_tmpdir))
		fail("mkdtemp %s: %s", g_tmpdir, strerror(errno));
	g_pool = malloc(VALUE_POOL_BYTES);
	if (!g_pool)
		fail("out of memory");
	rng pr = {cfg.seed ^ 0x5A17B0C5ull};
	for (size_t i = 0; i < VALUE_POOL_BYTES; i++)
		g_pool[i] = (uint8_t)rng_next(&pr);

	char cpu[128] = "?";
	FILE *ci = fopen("/proc/cpuinfo", "r");
	char line[256];
	while (ci && fgets(line, sizeof line, ci))
		if (!strncmp(line, "model name", 10) && strchr(line, ':')) {
			snprintf(cpu, sizeof cpu, "%s", strchr(line, ':') + 2);
			cpu[strcspn(cpu, "\n")] = 0;
			break;
		}
	if (ci)
		fclose(ci);
	sbx_db_options dflt;
	sbx_db_options_init(&dflt);
	if (cfg.cache_bytes == SIZE_MAX)
		cfg.cache_bytes = dflt.block_cache_bytes + dflt.row_cache_bytes;
	if (cfg.row_cache_bytes == SIZE_MAX)
		cfg.row_cache_bytes = cfg.cache_bytes < dflt.row_cache_bytes
					      ? cfg.cache_bytes / 2
					      : dflt.row_cache_bytes;
	if (cfg.row_cache_bytes > cfg.cache_bytes)
		usage();
	printf("bench_engine: %llu records x %d fields x %d B, %llu ops per "
	       "workload (E: %llu scans), block %zu B, cache %zu MiB an engine "
	       "(saltbox: %zu MiB of it row cache),%s%s dir %s\n",
	       (unsigned long long)cfg.records, NFIELDS, VALUE_LEN,
	       (unsigned long long)cfg.ops, (unsigned long long)cfg.scan_ops,
	       cfg.block_size, cfg.cache_bytes >> 20, cfg.row_cache_bytes >> 20,
	       cfg.mmap_reads ? " mmap reads," : "",
	       cfg.flush_after_load ? " flushed after the load," : "", g_tmpdir);
	printf("bench_engine: %ld CPUs (%s), threads", sysconf(_SC_NPROCESSORS_ONLN),
	       cpu);
	for (size_t k = 0; k < plan.ntc; k++)
		printf("%s%d", k ? "," : " ", plan.tcs[k]);
	printf("%s\n", isolate ? ", each engine in its own process" : "");
	fflush(stdout);

	static phase_result res[MAX_PHASES];
	long rss[NENGINES] = {0};
	size_t nres = isolate ? run_isolated(&cfg, &plan, on, res, rss)
			      : run_bench(&cfg, &plan, on, res);
	for (size_t k = 0; k < plan.ntc; k++)
		print_table(res, nres, on, plan.tcs[k]);
	if (plan.ntc > 1)
		print_scaling(res, nres, on, plan.tcs, plan.ntc);
	if (isolate) {
		printf("\n%-18s", "peak RSS (MiB)");
		for (size_t e = 0; e < NENGINES; e++)
			if (on[e])
				printf(" %22.0f", (double)rss[e] / 1024.0);
		printf("\n");
	} else {
		printf("\npeak RSS of the process (every engine): %.0f MiB\n",
		       (double)peak_rss_kib(RUSAGE_SELF) / 1024.0);
	}
	printf("(sink %llu)\n", (unsigned long long)(g_sink & 0xFF));
	remove_tmpdir();
	free(g_pool);
	return 0;
}
