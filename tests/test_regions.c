/*
 * test_regions.c - regions as HBase's: pre-split keys and RegionSplitter's
 * algorithms, the split policies' thresholds, manual split (at a key and at
 * the data's midpoint), merge, automatic splits under concurrent writes that
 * lose or duplicate no cell, KeyPrefix restrictions, the balancer over the
 * modelled servers, per-region counters and load buckets, persistence;
 * the counters exact when more threads count in one region than it has
 * counter stripes, with the load bucket changing under them.
 */
#include "common/clock.h"
#include "engine_util.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

static const char *region_bounds(sbx_db *db, const char *table)
{
	static char buf[4096];
	buf[0] = 0;
	sbx_region_info *r;
	size_t n;
	if (sbx_table_regions(&r, &n, db, table))
		return "ERR";
	for (size_t i = 0; i < n; i++) {
		strcat(buf, "[");
		put_bytes(buf, sizeof buf, r[i].start_key, r[i].start_len);
		strcat(buf, ",");
		put_bytes(buf, sizeof buf, r[i].end_key, r[i].end_len);
		strcat(buf, ")");
	}
	sbx_region_infos_free(r, n);
	return buf;
}

static void test_split_algorithms_and_thresholds(void)
{
	sbx_split_keys k;
	CHECK_INT(sbx_split_keys_compute(&k, SBX_SPLITALGO_HEX_STRING, 4), SBX_OK);
	REQUIRE(k.n == 3);
	CHECK_MEM(k.keys[0].data, k.keys[0].len, "40000000");
	CHECK_MEM(k.keys[1].data, k.keys[1].len, "80000000");
	CHECK_MEM(k.keys[2].data, k.keys[2].len, "c0000000");
	sbx_split_keys_free(&k);
	CHECK_INT(sbx_split_keys_compute(&k, SBX_SPLITALGO_DECIMAL_STRING, 4), SBX_OK);
	CHECK_MEM(k.keys[0].data, k.keys[0].len, "25000000");
	CHECK_MEM(k.keys[2].data, k.keys[2].len, "75000000");
	sbx_split_keys_free(&k);
	CHECK_INT(sbx_split_keys_compute(&k, SBX_SPLITALGO_UNIFORM, 2), SBX_OK);
	CHECK_INT(k.keys[0].len, 8);
	CHECK_MEM(k.keys[0].data, 8, "\x7f\xff\xff\xff\xff\xff\xff\xff");
	sbx_split_keys_free(&k);
	CHECK_INT(sbx_split_keys_compute(&k, SBX_SPLITALGO_UNIFORM, 1), SBX_EINVAL);

	sbx_split_policy p;
	sbx_split_policy_init(&p);
	const uint64_t MB = 1024 * 1024;
	CHECK(p.kind == SBX_SPLIT_STEPPING);
	CHECK_INT(sbx_split_threshold(&p, 1), 256 * MB);
	CHECK_INT(sbx_split_threshold(&p, 2), 10240 * MB);
	p.kind = SBX_SPLIT_INCREASING_TO_UPPER_BOUND;
	CHECK_INT(sbx_split_threshold(&p, 1), 256 * MB);
	CHECK_INT(sbx_split_threshold(&p, 2), 2048 * MB);
	CHECK_INT(sbx_split_threshold(&p, 3), 6912 * MB); /* 6.75 GB */
	CHECK_INT(sbx_split_threshold(&p, 4), 10240 * MB);
	CHECK_INT(sbx_split_threshold(&p, 101), 10240 * MB);
	p.kind = SBX_SPLIT_CONSTANT_SIZE;
	CHECK_INT(sbx_split_threshold(&p, 1), 10240 * MB);
	p.kind = SBX_SPLIT_DISABLED;
	CHECK(sbx_split_threshold(&p, 1) == UINT64_MAX);
}

static void test_presplit_routing_and_balance(void)
{
	SKIP_ON_BIGTABLE("Bigtable chooses its own tablets (no manual split, merge or split policy; the emulator ignores initial splits and samples row keys at random)");
	SKIP_ON_REMOTE("HBase REST's schema resource cannot pre-split a table, "
		       "and region servers of the model are not visible over it");
	sbx_db *db = open_fresh("presplit");
	REQUIRE(db);
	sbx_family_desc f;
	sbx_family_desc_init(&f, "cf");
	sbx_split_keys k;
	CHECK_INT(sbx_split_keys_compute(&k, SBX_SPLITALGO_HEX_STRING, 8), SBX_OK);
	CHECK_INT(sbx_table_create_presplit(db, "t", &f, 1, k.keys, k.n), SBX_OK);
	sbx_split_keys_free(&k);
	CHECK_STR(region_bounds(db, "t"),
		  "[,20000000)[20000000,40000000)[40000000,60000000)"
		  "[60000000,80000000)[80000000,a0000000)[a0000000,c0000000)"
		  "[c0000000,e0000000)[e0000000,)");
	sbx_bytes bad[2] = {{"b", 1}, {"a", 1}};
	CHECK_INT(sbx_table_create_presplit(db, "u", &f, 1, bad, 2), SBX_EINVAL);
	sbx_table *t;
	CHECK_INT(sbx_table_open(&t, db, "t"), SBX_OK);
	CHECK_INT(put1(t, "3a", "cf", "q", 1, "v"), SBX_OK);
	CHECK_INT(put1(t, "3b", "cf", "q", 1, "v"), SBX_OK);
	CHECK_INT(put1(t, "f0", "cf", "q", 1, "v"), SBX_OK);
	sbx_read_opts ro;
	sbx_read_opts_init(&ro);
	get_str(t, "f0", &ro, false);
	sbx_region_info *r;
	size_t n;
	CHECK_INT(sbx_table_regions(&r, &n, db, "t"), SBX_OK);
	REQUIRE(n == 8);
	CHECK_INT(r[1].metrics.write_request_count, 2);
	CHECK_INT(r[7].metrics.write_request_count, 1);
	CHECK_INT(r[7].metrics.read_request_count, 1);
	CHECK_INT(r[0].metrics.write_request_count, 0);
	/* 8 regions on 4 modelled servers: two each */
	int per[4] = {0};
	for (size_t i = 0; i < n; i++) {
		REQUIRE(r[i].server >= 0 && r[i].server < 4);
		per[r[i].server]++;
	}
	for (int s = 0; s < 4; s++)
		CHECK_INT(per[s], 2);
	CHECK(strncmp(r[1].name, "t,20000000,", 11) == 0);
	CHECK_INT(strlen(r[1].encoded), 32);
	sbx_region_infos_free(r, n);
	/* load buckets: the writes are in the newest bucket of region 1 */
	sbx_region_load *l;
	CHECK_INT(sbx_table_load(&l, &n, db, "t", 5), SBX_OK);
	REQUIRE(n == 8 && l[1].nbuckets == 5);
	uint64_t w = 0;
	for (int b = 0; b < 5; b++)
		w += l[1].buckets[b].writes;
	CHECK_INT(w, 2);
	CHECK(l[1].buckets[4].start_ms > l[1].buckets[0].start_ms);
	sbx_region_loads_free(l, n);
	sbx_table_close(t);
	sbx_db_close(db);
}

static void load_rows(sbx_table *t, int n, const char *fmt)
{
	char row[32], val[101];
	memset(val, 'x', 100);
	val[100] = 0;
	for (int i = 0; i < n; i++) {
		snprintf(row, sizeof row, fmt, i);
		CHECK_INT(put1(t, row, "cf", "q", SBX_LATEST_TIMESTAMP, val), SBX_OK);
	}
}

static int count_rows(sbx_table *t)
{
	sbx_scanner *s;
	if (sbx_scanner_open(&s, t, NULL))
		return -1;
	sbx_result *r;
	int n = 0;
	while (sbx_scanner_next(s, &r) == SBX_OK) {
		n++;
		sbx_result_free(r);
	}
	sbx_scanner_close(s);
	return n;
}

static void test_manual_split_and_merge(void)
{
	SKIP_ON_BIGTABLE("Bigtable chooses its own tablets (no manual split, merge or split policy; the emulator ignores initial splits and samples row keys at random)");
	SKIP_ON_REMOTE("HBase REST has no split or merge endpoints");
	const char *dir = test_dir("split");
	sbx_db *db;
	REQUIRE((db = open_at(dir, true)) != NULL);
	CHECK_INT(make_table(db, "t", "cf", 1), SBX_OK);
	sbx_table *t;
	CHECK_INT(sbx_table_open(&t, db, "t"), SBX_OK);
	load_rows(t, 1000, "row%04d");
	CHECK_INT(sbx_table_split(db, "t", "row0250", 7), SBX_OK);
	CHECK_STR(region_bounds(db, "t"), "[,row0250)[row0250,)");
	CHECK_INT(sbx_table_split(db, "t", "row0250", 7), SBX_EINVAL);
	/* split every region at its data's midpoint */
	CHECK_INT(sbx_table_split(db, "t", NULL, 0), SBX_OK);
	sbx_region_info *r;
	size_t n;
	CHECK_INT(sbx_table_regions(&r, &n, db, "t"), SBX_OK);
	REQUIRE(n == 4);
	/* midpoints of [row0000,row0250) and [row0250,row1000) */
	CHECK_INT(r[1].start_len, 7);
	CHECK(memcmp(r[1].start_key, "row0100", 7) >= 0 &&
	      memcmp(r[1].start_key, "row0150", 7) <= 0);
	CHECK(memcmp(r[3].start_key, "row0560", 7) >= 0 &&
	      memcmp(r[3].start_key, "row0690", 7) <= 0);
	sbx_region_infos_free(r, n);
	CHECK_INT(count_rows(t), 1000);
	/* merge the first two back */
	CHECK_INT(sbx_table_merge(db, "t", "", 0), SBX_OK);
	CHECK_INT(sbx_table_regions(&r, &n, db, "t"), SBX_OK);
	CHECK_INT(n, 3);
	CHECK_MEM(r[1].start_key, r[1].start_len, "row0250");
	sbx_region_infos_free(r, n);
	CHECK_INT(sbx_table_merge(db, "t", "nope", 4), SBX_EINVAL);
	sbx_table_close(t);
	sbx_db_close(db);
	/* the region map persists */
	REQUIRE((db = open_at(dir, false)) != NULL);
	CHECK_INT(sbx_table_regions(&r, &n, db, "t"), SBX_OK);
	CHECK_INT(n, 3);
	CHECK_MEM(r[1].start_key, r[1].start_len, "row0250");
	sbx_region_infos_free(r, n);
	/* DisabledRegionSplitPolicy blocks manual splits too */
	sbx_split_policy p;
	sbx_split_policy_init(&p);
	p.kind = SBX_SPLIT_DISABLED;
	CHECK_INT(sbx_table_set_split_policy(db, "t", &p), SBX_OK);
	CHECK_INT(sbx_table_split(db, "t", "row0900", 7), SBX_EINVAL);
	sbx_db_close(db);
	REQUIRE((db = open_at(dir, false)) != NULL);
	CHECK_INT(sbx_table_get_split_policy(&p, db, "t"), SBX_OK);
	CHECK(p.kind == SBX_SPLIT_DISABLED);
	sbx_db_close(db);
}

static sbx_db *auto_db;

static void *auto_writer(void *arg)
{
	sbx_table *t;
	if (sbx_table_open(&t, auto_db, "t"))
		return NULL;
	load_rows(t, 1500, (const char *)arg);
	sbx_table_close(t);
	return NULL;
}

static void test_auto_split_loses_nothing(void)
{
	SKIP_ON_BIGTABLE("Bigtable chooses its own tablets (no manual split, merge or split policy; the emulator ignores initial splits and samples row keys at random)");
	SKIP_ON_REMOTE("split policies cannot be set over HBase REST");
	auto_db = open_fresh("autosplit");
	REQUIRE(auto_db);
	CHECK_INT(make_table(auto_db, "t", "cf", 1), SBX_OK);
	sbx_split_policy p;
	sbx_split_policy_init(&p);
	p.kind = SBX_SPLIT_CONSTANT_SIZE;
	p.max_file_size = 64 * 1024;
	CHECK_INT(sbx_table_set_split_policy(auto_db, "t", &p), SBX_OK);
	pthread_t a, b;
	pthread_create(&a, NULL, auto_writer, "a%06d");
	pthread_create(&b, NULL, auto_writer, "b%06d");
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	sbx_region_info *r;
	size_t n;
	CHECK_INT(sbx_table_regions(&r, &n, auto_db, "t"), SBX_OK);
	CHECK(n >= 4);
	uint64_t writes = 0;
	for (size_t i = 0; i < n; i++) {
		writes += r[i].metrics.write_request_count;
		if (i)
			CHECK(memcmp(r[i - 1].end_key, r[i].start_key,
				     r[i].start_len) == 0);
	}
	sbx_region_infos_free(r, n);
	CHECK(writes <= 3000); /* daughters start counting afresh */
	sbx_table *t;
	CHECK_INT(sbx_table_open(&t, auto_db, "t"), SBX_OK);
	CHECK_INT(count_rows(t), 3000);
	sbx_table_close(t);
	sbx_db_close(auto_db);
}

static void test_key_prefix_policy(void)
{
	SKIP_ON_BIGTABLE("Bigtable chooses its own tablets (no manual split, merge or split policy; the emulator ignores initial splits and samples row keys at random)");
	SKIP_ON_REMOTE("split policies and manual splits are not part of "
		       "HBase REST");
	sbx_db *db = open_fresh("keyprefix");
	REQUIRE(db);
	CHECK_INT(make_table(db, "t", "cf", 1), SBX_OK);
	sbx_split_policy p;
	sbx_split_policy_init(&p);
	p.kind = SBX_SPLIT_DELIMITED_KEY_PREFIX;
	p.delimiter = '_';
	CHECK_INT(sbx_table_set_split_policy(db, "t", &p), SBX_OK);
	sbx_table *t;
	CHECK_INT(sbx_table_open(&t, db, "t"), SBX_OK);
	load_rows(t, 300, "user1_%04d");
	load_rows(t, 300, "user2_%04d");
	load_rows(t, 300, "user3_%04d");
	CHECK_INT(sbx_table_split(db, "t", NULL, 0), SBX_OK);
	/* the midpoint falls inside user2_..., cut at the delimiter */
	CHECK_STR(region_bounds(db, "t"), "[,user2)[user2,)");
	sbx_table_close(t);
	sbx_db_close(db);
}


/* ---- striped counters: exact under threads ---- */

#define CT_THREADS 24 /* more than REGION_STRIPES: stripes are shared */
#define CT_ROWS 160 /* a multiple of CT_SCAN */
#define CT_SCAN 4 /* rows a scan returns */

/* A clock that moves 1 ms at every reading: the load bucket (a second)
 * changes every thousand readings, while the threads count. */
static _Atomic int64_t ct_clock = 1700000000000;
static int64_t ct_now(void)
{
	return atomic_fetch_add(&ct_clock, 1);
}

static sbx_db *ct_db;

static void *ct_worker(void *arg)
{
	int id = (int)(intptr_t)arg;
	sbx_table *t;
	if (sbx_table_open(&t, ct_db, "t"))
		return NULL;
	char row[32];
	for (int i = 0; i < CT_ROWS; i++) {
		snprintf(row, sizeof row, "r%02d-%04d", id, i);
		CHECK_INT(put1(t, row, "cf", "q", SBX_LATEST_TIMESTAMP, "v"),
			  SBX_OK);
	}
	sbx_read_opts ro;
	sbx_read_opts_init(&ro);
	for (int i = 0; i < CT_ROWS; i++) {
		snprintf(row, sizeof row, "r%02d-%04d", id, i);
		sbx_result *res;
		CHECK_INT(sbx_table_get(&res, t, row, strlen(row), &ro), SBX_OK);
		sbx_result_free(res);
	}
	for (int i = 0; i + CT_SCAN <= CT_ROWS; i += CT_SCAN) {
		snprintf(row, sizeof row, "r%02d-%04d", id, i);
		sbx_scan_opts o;
		sbx_scan_opts_init(&o);
		o.start_row = row;
		o.start_row_len = strlen(row);
		o.limit = CT_SCAN;
		sbx_scanner *sc;
		CHECK_INT(sbx_scanner_open(&sc, t, &o), SBX_OK);
		sbx_result *res;
		int got = 0;
		while (sbx_scanner_next(sc, &res) == SBX_OK) {
			got++;
			sbx_result_free(res);
		}
		CHECK_INT(got, CT_SCAN);
		sbx_scanner_close(sc);
	}
	sbx_table_close(t);
	return NULL;
}

/* Reads and writes in every load bucket of region i, summed. */
static void ct_bucket_sums(sbx_region_load *l, size_t i, uint64_t *reads,
			   uint64_t *writes, uint64_t *half_reads)
{
	*reads = *writes = 0;
	if (half_reads)
		*half_reads = 0;
	for (size_t b = 0; b < l[i].nbuckets; b++) {
		*reads += l[i].buckets[b].reads;
		*writes += l[i].buckets[b].writes;
		if (half_reads) /* a split gives each daughter half a bucket */
			*half_reads += l[i].buckets[b].reads / 2;
	}
}

static void test_counters_under_threads(void)
{
	SKIP_ON_BIGTABLE("Bigtable chooses its own tablets and keeps no per-region request counters");
	SKIP_ON_REMOTE("region counters are not visible over HBase REST");
	ct_db = open_fresh("stripes");
	REQUIRE(ct_db);
	CHECK_INT(make_table(ct_db, "t", "cf", 1), SBX_OK);
	sbx_clock_set(ct_now);
	pthread_t th[CT_THREADS];
	for (int i = 0; i < CT_THREADS; i++)
		pthread_create(&th[i], NULL, ct_worker, (void *)(intptr_t)i);
	for (int i = 0; i < CT_THREADS; i++)
		pthread_join(th[i], NULL);
	const uint64_t writes = CT_THREADS * CT_ROWS;
	const uint64_t gets = CT_THREADS * CT_ROWS;
	const uint64_t reads = gets + CT_THREADS * CT_ROWS; /* scans: each row once */
	sbx_region_info *r;
	size_t n;
	CHECK_INT(sbx_table_regions(&r, &n, ct_db, "t"), SBX_OK);
	REQUIRE(n == 1);
	CHECK_INT(r[0].metrics.write_request_count, writes);
	CHECK_INT(r[0].metrics.cells_written, writes);
	CHECK_INT(r[0].metrics.read_request_count, reads);
	CHECK_INT(r[0].metrics.filtered_read_request_count, 0);
	CHECK_INT(r[0].metrics.row_cache_hits + r[0].metrics.row_cache_misses,
		  gets);
	sbx_region_infos_free(r, n);
	/* every count is in some load bucket, none twice: the folds of
	 * stripes shared by two threads lose nothing */
	sbx_region_load *l;
	CHECK_INT(sbx_table_load(&l, &n, ct_db, "t", 600), SBX_OK);
	REQUIRE(n == 1);
	uint64_t br, bw, half;
	ct_bucket_sums(l, 0, &br, &bw, &half);
	CHECK_INT(br, reads);
	CHECK_INT(bw, writes);
	size_t used = 0;
	for (size_t b = 0; b < l[0].nbuckets; b++)
		used += l[0].buckets[b].reads + l[0].buckets[b].writes > 0;
	CHECK(used > 5); /* the buckets did change under the threads */
	sbx_region_loads_free(l, n);
	/* a split hands each daughter half of every bucket, the counts still
	 * in the stripes included */
	CHECK_INT(sbx_table_split(ct_db, "t", "r12", 3), SBX_OK);
	CHECK_INT(sbx_table_load(&l, &n, ct_db, "t", 600), SBX_OK);
	REQUIRE(n == 2);
	uint64_t ar, aw, zr, zw;
	ct_bucket_sums(l, 0, &ar, &aw, NULL);
	ct_bucket_sums(l, 1, &zr, &zw, NULL);
	CHECK_INT(ar, half);
	CHECK_INT(zr, half);
	sbx_region_loads_free(l, n);
	sbx_clock_set(NULL);
	sbx_db_close(ct_db);
}

/* A scan's rows are counted in the regions they are in, once the scanner
 * closes - also when a region splits under the open scanner. */
static uint64_t ct_reads(sbx_db *db, size_t i, size_t *n)
{
	sbx_region_info *r;
	if (sbx_table_regions(&r, n, db, "t"))
		return UINT64_MAX;
	uint64_t v = i < *n ? r[i].metrics.read_request_count : UINT64_MAX;
	sbx_region_infos_free(r, *n);
	return v;
}

static void test_scan_counts_by_region(void)
{
	SKIP_ON_BIGTABLE("Bigtable chooses its own tablets and keeps no per-region request counters");
	SKIP_ON_REMOTE("region counters are not visible over HBase REST");
	sbx_db *db = open_fresh("scancounts");
	REQUIRE(db);
	sbx_family_desc f;
	sbx_family_desc_init(&f, "cf");
	sbx_bytes split = {"m", 1};
	CHECK_INT(sbx_table_create_presplit(db, "t", &f, 1, &split, 1), SBX_OK);
	sbx_table *t;
	CHECK_INT(sbx_table_open(&t, db, "t"), SBX_OK);
	char row[8];
	for (int i = 0; i < 10; i++) {
		snprintf(row, sizeof row, "a%d", i);
		CHECK_INT(put1(t, row, "cf", "q", 1, "v"), SBX_OK);
		snprintf(row, sizeof row, "m%d", i);
		CHECK_INT(put1(t, row, "cf", "q", 1, "v"), SBX_OK);
	}
	CHECK_INT(count_rows(t), 20);
	size_t n;
	CHECK_INT(ct_reads(db, 0, &n), 10);
	CHECK_INT(ct_reads(db, 1, &n), 10);
	/* three rows read, then [,m) splits at a5, then the other 17 */
	sbx_scanner *sc;
	CHECK_INT(sbx_scanner_open(&sc, t, NULL), SBX_OK);
	sbx_result *res;
	for (int i = 0; i < 3; i++) {
		CHECK_INT(sbx_scanner_next(sc, &res), SBX_OK);
		sbx_result_free(res);
	}
	CHECK_INT(sbx_table_split(db, "t", "a5", 2), SBX_OK);
	int rest = 0;
	while (sbx_scanner_next(sc, &res) == SBX_OK) {
		rest++;
		sbx_result_free(res);
	}
	CHECK_INT(rest, 17);
	sbx_scanner_close(sc);
	/* daughters count afresh: a0..a2, read before the split, go to the
	 * region holding them now */
	CHECK_INT(ct_reads(db, 0, &n), 5);
	REQUIRE(n == 3);
	CHECK_INT(ct_reads(db, 1, &n), 5);
	CHECK_INT(ct_reads(db, 2, &n), 20);
	/* a scanner closed after its table handle: its row still counts */
	CHECK_INT(sbx_scanner_open(&sc, t, NULL), SBX_OK);
	CHECK_INT(sbx_scanner_next(sc, &res), SBX_OK);
	sbx_result_free(res);
	sbx_table_close(t);
	sbx_scanner_close(sc);
	CHECK_INT(ct_reads(db, 0, &n), 6);
	sbx_db_close(db);
}

TEST_MAIN(T(test_split_algorithms_and_thresholds),
	  T(test_presplit_routing_and_balance), T(test_manual_split_and_merge),
	  T(test_auto_split_loses_nothing), T(test_key_prefix_policy),
	  T(test_counters_under_threads), T(test_scan_counts_by_region))
