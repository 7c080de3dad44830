/*
 * test_row_cache.c - the embedded engine's row cache (src/engine/rowcache.c,
 * sbx_db_options.row_cache_bytes, the BLOCKCACHE family attribute): a get
 * answered from the cache shows what an uncached get shows, and every way
 * a row changes is seen through it: put, delete, increment, append,
 * check-and-mutate and batch merge their cells into the cached row;
 * check-and-mutate across rows forgets the rows; bulk load and truncate
 * forget the table. Versions, time ranges and filters give the same cells cached
 * and uncached (a store with the cache off is the reference); TTL expiry
 * is seen through the cache; writers and readers in threads never see a
 * row older than a write that returned; the cache's byte bound holds.
 * Hits and misses are read from the region metrics, so each test also
 * shows the cache was used.
 */
#include "common/clock.h"
#include "engine/reader.h"
#include "engine/rowcache.h"
#include "engine_util.h"

#include <pthread.h>
#include <stdatomic.h>

static sbx_db *db;
static sbx_table *t;

static sbx_db *open_with_cache(const char *name, size_t bytes)
{
	sbx_db_options o;
	sbx_db_options_init(&o);
	o.row_cache_bytes = bytes;
	sbx_db *d = NULL;
	if (sbx_db_open(&d, test_dir(name), &o))
		fprintf(stderr, "open: %s\n", sbx_errmsg());
	return d;
}

/* db: a store with a row cache of `bytes` and table t (family cf of
 * `versions`), open as t. */
static void setup_sized(const char *name, int versions, size_t bytes)
{
	db = open_with_cache(name, bytes);
	t = NULL;
	if (!db)
		return;
	CHECK_INT(make_table(db, "t", "cf", versions), SBX_OK);
	CHECK_INT(sbx_table_open(&t, db, "t"), SBX_OK);
}

static void setup(const char *name, int versions)
{
	setup_sized(name, versions, (size_t)1 << 20);
}

static void teardown(void)
{
	sbx_table_close(t);
	sbx_db_close(db);
	t = NULL;
	db = NULL;
}

/* The table's row cache hits and misses, summed over its regions. */
static void counts(sbx_db *d, const char *table, uint64_t *hits,
		   uint64_t *misses)
{
	sbx_region_info *r = NULL;
	size_t n = 0;
	*hits = *misses = 0;
	CHECK_INT(sbx_table_regions(&r, &n, d, table), SBX_OK);
	for (size_t i = 0; i < n; i++) {
		*hits += r[i].metrics.row_cache_hits;
		*misses += r[i].metrics.row_cache_misses;
	}
	sbx_region_infos_free(r, n);
}

/* "hits/misses" of table t since the last call. */
static const char *delta(void)
{
	static uint64_t h0, m0;
	static char buf[64];
	uint64_t h, m;
	counts(db, "t", &h, &m);
	snprintf(buf, sizeof buf, "%llu/%llu", (unsigned long long)(h - h0),
		 (unsigned long long)(m - m0));
	h0 = h, m0 = m;
	return buf;
}

static void reset_delta(void)
{
	(void)delta();
}

static const char *get1(const char *row)
{
	return get_str(t, row, NULL, false);
}

static void test_hit_after_miss_and_put_updates(void)
{
	setup("put", 1);
	REQUIRE(t);
	reset_delta();
	CHECK_INT(put1(t, "r", "cf", "q", SBX_LATEST_TIMESTAMP, "v1"), SBX_OK);
	CHECK_STR(get1("r"), "r/cf:q=v1;");
	CHECK_STR(delta(), "0/1");
	CHECK_STR(get1("r"), "r/cf:q=v1;");
	CHECK_STR(delta(), "1/0");
	/* a write merges its cells into the cached row: still a hit */
	CHECK_INT(put1(t, "r", "cf", "q", SBX_LATEST_TIMESTAMP, "v2"), SBX_OK);
	CHECK_STR(get1("r"), "r/cf:q=v2;");
	CHECK_STR(delta(), "1/0");
	CHECK_STR(get1("r"), "r/cf:q=v2;");
	CHECK_STR(delta(), "1/0");
	/* a missing row is cached as empty, and a put to it is seen */
	CHECK_STR(get1("nobody"), "");
	CHECK_STR(get1("nobody"), "");
	CHECK_STR(delta(), "1/1");
	CHECK_INT(put1(t, "nobody", "cf", "q", 5, "here"), SBX_OK);
	CHECK_STR(get1("nobody"), "nobody/cf:q=here;");
	CHECK_STR(delta(), "1/0");
	teardown();
}

static void test_every_write_seen(void)
{
	setup("writes", 3);
	REQUIRE(t);
	CHECK_INT(put1(t, "r", "cf", "q", 10, "a"), SBX_OK);
	/* n is an 8-byte counter: written by hand (put1 takes strlen) */
	sbx_mutation *m;
	CHECK_INT(sbx_mutation_new(&m, "r", 1), SBX_OK);
	CHECK_INT(sbx_mutation_put(m, "cf", "n", 1, 10,
				   "\0\0\0\0\0\0\0\x01", 8),
		  SBX_OK);
	CHECK_INT(sbx_table_mutate(NULL, t, m), SBX_OK);
	sbx_mutation_free(m);
	CHECK_STR(get1("r"), "r/cf:n=\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x01;"
			     "r/cf:q=a;");
	reset_delta();
	CHECK_STR(get1("r"), "r/cf:n=\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x01;"
			     "r/cf:q=a;");
	CHECK_STR(delta(), "1/0");

	/* increment */
	CHECK_INT(sbx_mutation_new(&m, "r", 1), SBX_OK);
	CHECK_INT(sbx_mutation_increment(m, "cf", "n", 1, 2), SBX_OK);
	CHECK_INT(sbx_table_mutate(NULL, t, m), SBX_OK);
	sbx_mutation_free(m);
	CHECK_STR(get1("r"), "r/cf:n=\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x03;"
			     "r/cf:q=a;");
	/* the increment read the counter from the cache (under the row's
	 * lock), and its new version was merged into the cached row: the
	 * get hit too */
	CHECK_STR(delta(), "2/0");

	/* append */
	CHECK_INT(sbx_mutation_new(&m, "r", 1), SBX_OK);
	CHECK_INT(sbx_mutation_append(m, "cf", "q", 1, "b", 1), SBX_OK);
	CHECK_INT(sbx_table_mutate(NULL, t, m), SBX_OK);
	sbx_mutation_free(m);
	CHECK_STR(get1("r"), "r/cf:n=\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x03;"
			     "r/cf:q=ab;");

	/* delete of the column's versions */
	CHECK_INT(del1(t, "r", SBX_CELL_DELETE_COLUMN, "cf", "n",
		       SBX_LATEST_TIMESTAMP),
		  SBX_OK);
	CHECK_STR(get1("r"), "r/cf:q=ab;");

	/* check-and-mutate: a failed check changes nothing, a passing one
	 * is seen */
	sbx_check ck = {.family = "cf", .qualifier = "q", .qualifier_len = 1,
			.op = SBX_CMP_EQUAL, .value = "ab", .value_len = 2};
	CHECK_INT(sbx_mutation_new(&m, "r", 1), SBX_OK);
	CHECK_INT(sbx_mutation_put(m, "cf", "q", 1, SBX_LATEST_TIMESTAMP, "c",
				   1),
		  SBX_OK);
	bool ok = false;
	CHECK_INT(sbx_table_check_and_mutate(&ok, NULL, t, "r", 1, &ck, m),
		  SBX_OK);
	CHECK(ok);
	CHECK_STR(get1("r"), "r/cf:q=c;");
	CHECK_INT(sbx_table_check_and_mutate(&ok, NULL, t, "r", 1, &ck, m),
		  SBX_OK);
	CHECK(!ok);
	sbx_mutation_free(m);
	CHECK_STR(get1("r"), "r/cf:q=c;");

	/* batch */
	sbx_mutation *ms[2];
	CHECK_INT(sbx_mutation_new(&ms[0], "r", 1), SBX_OK);
	CHECK_INT(sbx_mutation_put(ms[0], "cf", "q", 1, SBX_LATEST_TIMESTAMP,
				   "d", 1),
		  SBX_OK);
	CHECK_INT(sbx_mutation_new(&ms[1], "s", 1), SBX_OK);
	CHECK_INT(sbx_mutation_put(ms[1], "cf", "q", 1, SBX_LATEST_TIMESTAMP,
				   "s1", 2),
		  SBX_OK);
	CHECK_STR(get1("s"), "");
	CHECK_INT(sbx_table_batch(NULL, t, ms, 2), SBX_OK);
	sbx_mutation_free(ms[0]);
	sbx_mutation_free(ms[1]);
	CHECK_STR(get1("r"), "r/cf:q=d;");
	CHECK_STR(get1("s"), "s/cf:q=s1;");

	/* check-and-mutate across rows */
	CHECK_INT(sbx_mutation_new(&m, "s", 1), SBX_OK);
	CHECK_INT(sbx_mutation_put(m, "cf", "q", 1, SBX_LATEST_TIMESTAMP, "s2",
				   2),
		  SBX_OK);
	sbx_check ck2 = {.family = "cf", .qualifier = "q", .qualifier_len = 1,
			 .op = SBX_CMP_EQUAL, .value = "d", .value_len = 1};
	sbx_row_change rows[2] = {
		{.table = t, .row = "r", .row_len = 1, .check = &ck2},
		{.table = t, .row = "s", .row_len = 1, .mutation = m}};
	size_t failed = 0;
	CHECK_INT(sbx_db_check_and_mutate_rows(&ok, &failed, db, rows, 2),
		  SBX_OK);
	CHECK(ok);
	sbx_mutation_free(m);
	CHECK_STR(get1("s"), "s/cf:q=s2;");

	/* delete the whole row */
	CHECK_INT(get1("r")[0] != 0, 1);
	CHECK_INT(sbx_mutation_new(&m, "r", 1), SBX_OK);
	CHECK_INT(sbx_mutation_delete_row(m, SBX_LATEST_TIMESTAMP), SBX_OK);
	CHECK_INT(sbx_table_mutate(NULL, t, m), SBX_OK);
	sbx_mutation_free(m);
	CHECK_STR(get1("r"), "");

	/* bulk load */
	CHECK_STR(get1("s"), "s/cf:q=s2;");
	CHECK_STR(get1("s"), "s/cf:q=s2;");
	char dir[4200];
	snprintf(dir, sizeof dir, "%s", test_dir("writes_bulk"));
	sbx_bulk_writer *w;
	CHECK_INT(sbx_bulk_writer_open(&w, db, "t", dir), SBX_OK);
	CHECK_INT(sbx_bulk_writer_put(w, "s", 1, "cf", "z", 1, (int64_t)4000000000000,
				      "bulk", 4),
		  SBX_OK);
	CHECK_INT(sbx_bulk_writer_finish(w), SBX_OK);
	CHECK_INT(sbx_table_bulk_load(db, "t", dir), SBX_OK);
	CHECK_STR(get1("s"), "s/cf:q=s2;s/cf:z=bulk;");

	/* truncate */
	CHECK_STR(get1("s"), "s/cf:q=s2;s/cf:z=bulk;");
	CHECK_INT(sbx_table_truncate(db, "t"), SBX_OK);
	CHECK_STR(get1("s"), "");
	teardown();
}

/* The reads compared cached and uncached. */
typedef struct read_case {
	const char *what;
	int max_versions;
	int64_t min_ts, max_ts;
	const char *filter; /* filter language, or NULL */
	const char *column; /* a qualifier of cf, or NULL */
	const char *expect;
} read_case;

static const read_case read_cases[] = {
	{"latest", 1, 0, INT64_MAX, NULL, NULL,
	 "r/cf:a@30=a30;r/cf:b@20=b20;r/cf:c@25=c25;"},
	{"all versions", 0, 0, INT64_MAX, NULL, NULL,
	 "r/cf:a@30=a30;r/cf:a@10=a10;r/cf:b@20=b20;r/cf:c@25=c25;"},
	{"two versions", 2, 0, INT64_MAX, NULL, NULL,
	 "r/cf:a@30=a30;r/cf:a@10=a10;r/cf:b@20=b20;r/cf:c@25=c25;"},
	{"time range [10, 25)", 0, 10, 25, NULL, NULL,
	 "r/cf:a@10=a10;r/cf:b@20=b20;"},
	{"time range [25, 31)", 1, 25, 31, NULL, NULL,
	 "r/cf:a@30=a30;r/cf:c@25=c25;"},
	{"column b", 0, 0, INT64_MAX, NULL, "b", "r/cf:b@20=b20;"},
	{"value filter", 0, 0, INT64_MAX, "ValueFilter(=, 'substring:10')",
	 NULL, "r/cf:a@10=a10;"},
	{"qualifier filter", 1, 0, INT64_MAX,
	 "QualifierFilter(>=, 'binary:b')", NULL,
	 "r/cf:b@20=b20;r/cf:c@25=c25;"},
	{"row filter that rejects", 1, 0, INT64_MAX, "RowFilter(=, 'binary:x')",
	 NULL, ""},
	{"first key only", 1, 0, INT64_MAX, "FirstKeyOnlyFilter()", NULL,
	 "r/cf:a@30=a30;"},
};

static const char *run_case(sbx_table *tab, const read_case *c)
{
	sbx_read_opts o;
	sbx_read_opts_init(&o);
	o.max_versions = c->max_versions;
	o.min_ts = c->min_ts;
	o.max_ts = c->max_ts;
	sbx_filter *f = NULL;
	if (c->filter && sbx_filter_parse(&f, c->filter, strlen(c->filter),
					  NULL))
		return "ERR filter";
	o.filter = f;
	sbx_column col = {.family = "cf", .qualifier = c->column,
			  .qualifier_len = c->column ? strlen(c->column) : 0};
	if (c->column) {
		o.columns = &col;
		o.ncolumns = 1;
	}
	static char buf[1024];
	buf[0] = 0;
	sbx_result *r = NULL;
	int rc = sbx_table_get(&r, tab, "r", 1, &o);
	if (rc)
		snprintf(buf, sizeof buf, "ERR %s", sbx_strerror(rc));
	else
		render_result(buf, sizeof buf, r, true);
	sbx_result_free(r);
	sbx_filter_free(f);
	return buf;
}

/* One row with versions, a delete of one version and a column delete
 * marker, in a store with the cache and one without. */
static void fill_versions(sbx_table *tab)
{
	CHECK_INT(put1(tab, "r", "cf", "a", 10, "a10"), SBX_OK);
	CHECK_INT(put1(tab, "r", "cf", "a", 20, "a20"), SBX_OK);
	CHECK_INT(put1(tab, "r", "cf", "a", 30, "a30"), SBX_OK);
	CHECK_INT(del1(tab, "r", SBX_CELL_DELETE, "cf", "a", 20), SBX_OK);
	CHECK_INT(put1(tab, "r", "cf", "b", 5, "b5"), SBX_OK);
	CHECK_INT(put1(tab, "r", "cf", "b", 20, "b20"), SBX_OK);
	CHECK_INT(del1(tab, "r", SBX_CELL_DELETE_COLUMN, "cf", "b", 5), SBX_OK);
	CHECK_INT(put1(tab, "r", "cf", "c", 25, "c25"), SBX_OK);
}

/* A store with the cache off and its table "t" (family cf of `versions`):
 * the reference cached reads are compared with. */
static sbx_db *open_plain(const char *name, int versions, sbx_table **pt)
{
	*pt = NULL;
	sbx_db *plain = open_with_cache(name, 0);
	if (!plain)
		return NULL;
	CHECK_INT(make_table(plain, "t", "cf", versions), SBX_OK);
	CHECK_INT(sbx_table_open(pt, plain, "t"), SBX_OK);
	return plain;
}

/* Every read case on the uncached table pt and on t: both as expected. */
static void check_read_cases(sbx_table *pt, int round)
{
	size_t n = sizeof read_cases / sizeof read_cases[0];
	for (size_t i = 0; i < n; i++) {
		const read_case *c = &read_cases[i];
		char uncached[1024];
		snprintf(uncached, sizeof uncached, "%s", run_case(pt, c));
		CHECK_STR(uncached, c->expect);
		const char *cached = run_case(t, c);
		if (strcmp(cached, c->expect))
			fprintf(stderr, "case '%s', round %d\n", c->what,
				round);
		CHECK_STR(cached, c->expect);
	}
}

static void test_versions_ranges_filters_match_uncached(void)
{
	setup("semantics", 5);
	REQUIRE(t);
	sbx_table *pt;
	sbx_db *plain = open_plain("semantics_plain", 5, &pt);
	REQUIRE(plain && pt);
	fill_versions(t);
	fill_versions(pt);
	reset_delta();
	size_t n = sizeof read_cases / sizeof read_cases[0];
	for (int round = 0; round < 2; round++)
		check_read_cases(pt, round);
	/* the first read filled the cache; every other was a hit */
	char expect[32];
	snprintf(expect, sizeof expect, "%zu/1", 2 * n - 1);
	CHECK_STR(delta(), expect);
	uint64_t h, m;
	counts(plain, "t", &h, &m);
	CHECK_INT((long long)(h + m), 0);
	sbx_table_close(pt);
	sbx_db_close(plain);
	teardown();
}

/* The same cells written one by one into a row the cache already holds
 * (a get before each write, so every write is merged into the cached
 * entry, not read back from RocksDB): every read case answers as the
 * uncached store does, and every get after the first was a hit. Then a
 * delete of the whole row and a put above it, merged the same way. */
static void test_writes_merged_match_uncached(void)
{
	setup("merged", 5);
	REQUIRE(t);
	sbx_table *pt;
	sbx_db *plain = open_plain("merged_plain", 5, &pt);
	REQUIRE(plain && pt);
	reset_delta();
	CHECK_STR(get1("r"), "");
	CHECK_INT(put1(t, "r", "cf", "a", 10, "a10"), SBX_OK);
	CHECK_STR(get1("r"), "r/cf:a=a10;");
	CHECK_INT(put1(t, "r", "cf", "a", 20, "a20"), SBX_OK);
	CHECK_STR(get1("r"), "r/cf:a=a20;");
	CHECK_INT(put1(t, "r", "cf", "a", 30, "a30"), SBX_OK);
	CHECK_STR(get1("r"), "r/cf:a=a30;");
	CHECK_INT(del1(t, "r", SBX_CELL_DELETE, "cf", "a", 20), SBX_OK);
	CHECK_STR(get1("r"), "r/cf:a=a30;");
	CHECK_INT(put1(t, "r", "cf", "b", 5, "b5"), SBX_OK);
	CHECK_STR(get1("r"), "r/cf:a=a30;r/cf:b=b5;");
	CHECK_INT(put1(t, "r", "cf", "b", 20, "b20"), SBX_OK);
	CHECK_STR(get1("r"), "r/cf:a=a30;r/cf:b=b20;");
	CHECK_INT(del1(t, "r", SBX_CELL_DELETE_COLUMN, "cf", "b", 5), SBX_OK);
	CHECK_STR(get1("r"), "r/cf:a=a30;r/cf:b=b20;");
	CHECK_INT(put1(t, "r", "cf", "c", 25, "c25"), SBX_OK);
	fill_versions(pt);
	size_t n = sizeof read_cases / sizeof read_cases[0];
	check_read_cases(pt, 0);
	/* 8 gets and the read cases: only the first get missed */
	char expect[32];
	snprintf(expect, sizeof expect, "%zu/1", 7 + n);
	CHECK_STR(delta(), expect);
	/* the same put twice at one timestamp: the second value replaces */
	CHECK_INT(put1(t, "r", "cf", "c", 25, "c25b"), SBX_OK);
	CHECK_STR(get1("r"), "r/cf:a=a30;r/cf:b=b20;r/cf:c=c25b;");
	/* the whole row deleted at 100, then a put at 50 (under the marker)
	 * and one at 150 */
	sbx_mutation *m;
	CHECK_INT(sbx_mutation_new(&m, "r", 1), SBX_OK);
	CHECK_INT(sbx_mutation_delete_row(m, 100), SBX_OK);
	CHECK_INT(sbx_table_mutate(NULL, t, m), SBX_OK);
	sbx_mutation_free(m);
	CHECK_STR(get1("r"), "");
	CHECK_INT(put1(t, "r", "cf", "d", 50, "d50"), SBX_OK);
	CHECK_STR(get1("r"), "");
	CHECK_INT(put1(t, "r", "cf", "d", 150, "d150"), SBX_OK);
	CHECK_STR(get1("r"), "r/cf:d=d150;");
	CHECK_STR(delta(), "4/0");
	sbx_table_close(pt);
	sbx_db_close(plain);
	teardown();
}

/* A batch merges each mutation's own cells into its row's cached entry
 * (write.c finds a mutation's run of logged cells by binary search):
 * rows written twice in one batch, mutations that fail (their cells rolled
 * back) and increments (applied alone after the batch) between them. Every
 * row reads back through the cache (all hits) as a store without the cache
 * reads it. */
static void test_batch_merges_each_mutation(void)
{
	setup("batchmerge", 3);
	REQUIRE(t);
	sbx_table *pt;
	sbx_db *plain = open_plain("batchmerge_plain", 3, &pt);
	REQUIRE(plain && pt);
	enum { ROWS = 300, N = 2 * ROWS };
	char row[16], v[32];
	for (int i = 0; i < ROWS; i++) {
		snprintf(row, sizeof row, "r%04d", i);
		CHECK_INT(put1(t, row, "cf", "q", 1, "old"), SBX_OK);
		CHECK_INT(put1(pt, row, "cf", "q", 1, "old"), SBX_OK);
		get1(row); /* now cached */
	}
	static sbx_mutation *ms[N];
	int want[N];
	for (int i = 0; i < ROWS; i++) {
		int k = 2 * i;
		snprintf(row, sizeof row, "r%04d", i);
		snprintf(v, sizeof v, "a%d", i);
		REQUIRE(sbx_mutation_new(&ms[k], row, strlen(row)) == SBX_OK);
		CHECK_INT(sbx_mutation_put(ms[k], "cf", "q", 1,
					   SBX_LATEST_TIMESTAMP, v, strlen(v)),
			  SBX_OK);
		v[0] = 'd';
		CHECK_INT(sbx_mutation_put(ms[k], "cf", "q3", 2,
					   SBX_LATEST_TIMESTAMP, v, strlen(v)),
			  SBX_OK);
		want[k++] = SBX_OK;
		want[k] = SBX_OK;
		if (i % 7 == 0) { /* fails: no such family */
			want[k] = SBX_ENOFAMILY;
			snprintf(v, sizeof v, "x%d", i);
			REQUIRE(sbx_mutation_new(&ms[k], row, strlen(row)) ==
				SBX_OK);
			CHECK_INT(sbx_mutation_put(ms[k], "zz", "q", 1,
						   SBX_LATEST_TIMESTAMP, v,
						   strlen(v)),
				  SBX_OK);
		} else if (i % 5 == 0) { /* the same cell again: it wins */
			snprintf(v, sizeof v, "z%d", i);
			REQUIRE(sbx_mutation_new(&ms[k], row, strlen(row)) ==
				SBX_OK);
			CHECK_INT(sbx_mutation_put(ms[k], "cf", "q", 1,
						   SBX_LATEST_TIMESTAMP, v,
						   strlen(v)),
				  SBX_OK);
		} else if (i % 3 == 0) { /* read-modify-write, applied alone */
			REQUIRE(sbx_mutation_new(&ms[k], row, strlen(row)) ==
				SBX_OK);
			CHECK_INT(sbx_mutation_increment(ms[k], "cf", "n", 1, 5),
				  SBX_OK);
		} else { /* the next row's other column */
			snprintf(row, sizeof row, "r%04d", (i + 1) % ROWS);
			snprintf(v, sizeof v, "c%d", i);
			REQUIRE(sbx_mutation_new(&ms[k], row, strlen(row)) ==
				SBX_OK);
			CHECK_INT(sbx_mutation_put(ms[k], "cf", "q2", 2,
						   SBX_LATEST_TIMESTAMP, v,
						   strlen(v)),
				  SBX_OK);
		}
	}
	static int st[N], pst[N];
	CHECK_INT(sbx_table_batch(st, t, ms, N), SBX_ENOFAMILY);
	CHECK_INT(sbx_table_batch(pst, pt, ms, N), SBX_ENOFAMILY);
	for (int k = 0; k < N; k++) {
		CHECK_INT(st[k], want[k]);
		CHECK_INT(pst[k], want[k]);
		sbx_mutation_free(ms[k]);
	}
	reset_delta();
	CHECK_STR(get1("r0000"), "r0000/cf:q=a0;r0000/cf:q2=c299;r0000/cf:q3=d0;");
	CHECK_STR(get1("r0005"), "r0005/cf:q=z5;r0005/cf:q2=c4;r0005/cf:q3=d5;");
	CHECK_STR(get1("r0002"), "r0002/cf:q=a2;r0002/cf:q2=c1;r0002/cf:q3=d2;");
	/* i = 7's second mutation failed: no q2 from it */
	CHECK_STR(get1("r0008"), "r0008/cf:q=a8;r0008/cf:q3=d8;");
	CHECK_STR(get1("r0003"), "r0003/cf:n=\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x05;"
				 "r0003/cf:q=a3;r0003/cf:q2=c2;r0003/cf:q3=d3;");
	for (int i = 0; i < ROWS; i++) {
		snprintf(row, sizeof row, "r%04d", i);
		char cached[256];
		snprintf(cached, sizeof cached, "%s", get1(row));
		CHECK_STR(cached, get_str(pt, row, NULL, false));
	}
	char expect[32];
	snprintf(expect, sizeof expect, "%d/0", ROWS + 5);
	CHECK_STR(delta(), expect);
	sbx_table_close(pt);
	sbx_db_close(plain);
	teardown();
}

/* A row whose versions pile up (a hot column rewritten, nothing
 * compacted yet) is merged into while its entry stays within 16 KiB, then
 * erased by the write that would pass it; the next get reads it from
 * RocksDB and caches it trimmed to the one version VERSIONS lets a plain
 * read see, so the get after is a hit again. A read of all versions or
 * of a time range does not use the trimmed entry; a row that is still
 * over 16 KiB trimmed (a wide row) is not cached. */
static void test_entry_max_16k(void)
{
	/* 64 MiB: a shard's quarter is 512 KiB, so only the 16 KiB cap acts */
	setup_sized("entry16k", 1, (size_t)64 << 20);
	REQUIRE(t);
	static char v[1025];
	memset(v, 'v', 1024);
	CHECK_INT(put1(t, "r", "cf", "q", 1, v), SBX_OK);
	reset_delta();
	CHECK_INT(strlen(get1("r")) > 1024, 1);
	CHECK_STR(delta(), "0/1");
	for (int ts = 2; ts <= 12; ts++) { /* 12 versions of about 1 KiB */
		v[0] = (char)('a' + ts % 26);
		CHECK_INT(put1(t, "r", "cf", "q", ts, v), SBX_OK);
	}
	CHECK_INT(get1("r")[7] == 'a' + 12 % 26, 1); /* "r/cf:q=" + value */
	CHECK_STR(delta(), "1/0");
	for (int ts = 13; ts <= 24; ts++) { /* past 16 KiB: erased */
		v[0] = (char)('a' + ts % 26);
		CHECK_INT(put1(t, "r", "cf", "q", ts, v), SBX_OK);
	}
	CHECK_INT(get1("r")[7] == 'a' + 24 % 26, 1);
	CHECK_STR(delta(), "0/1");
	CHECK_INT(get1("r")[7] == 'a' + 24 % 26, 1); /* cached, trimmed */
	CHECK_STR(delta(), "1/0");
	sbx_read_opts o;
	sbx_read_opts_init(&o);
	o.min_ts = 3;
	o.max_ts = 4; /* the version at 3, past VERSIONS but not compacted */
	CHECK_INT(get_str(t, "r", &o, true)[9] == 'a' + 3, 1); /* "r/cf:q@3=" */
	CHECK_STR(delta(), "0/1");
	/* a wide row: 20 columns of 1 KiB, one version each */
	for (int i = 0; i < 20; i++) {
		char q[8];
		snprintf(q, sizeof q, "q%02d", i);
		CHECK_INT(put1(t, "wide", "cf", q, 1, v), SBX_OK);
	}
	for (int i = 0; i < 2; i++) {
		sbx_result *r = NULL;
		CHECK_INT(sbx_table_get(&r, t, "wide", 4, NULL), SBX_OK);
		CHECK_INT(r ? (long long)sbx_result_size(r) : -1, 20);
		sbx_result_free(r);
	}
	CHECK_STR(delta(), "0/2");
	teardown();
}

/* The read cases compared on a hot column's pile of versions. */
static const read_case pile_cases[] = {
	{"latest", 1, 0, INT64_MAX, NULL, NULL, NULL},
	{"all versions", 0, 0, INT64_MAX, NULL, NULL, NULL},
	{"two versions", 2, 0, INT64_MAX, NULL, NULL, NULL},
	{"time range [5, 9)", 0, 5, 9, NULL, NULL, NULL},
	{"column p", 0, 0, INT64_MAX, NULL, "p", NULL},
	{"value filter", 0, 0, INT64_MAX, "ValueFilter(=, 'substring:v07')",
	 NULL, NULL},
	{"first key only", 1, 0, INT64_MAX, "FirstKeyOnlyFilter()", NULL,
	 NULL},
};

/* Every pile case on the uncached table pt and on t: the same answer. */
static void check_pile_cases(sbx_table *pt, const char *step)
{
	for (size_t i = 0; i < sizeof pile_cases / sizeof *pile_cases; i++) {
		char uncached[8192];
		snprintf(uncached, sizeof uncached, "%s",
			 run_case(pt, &pile_cases[i]));
		const char *cached = run_case(t, &pile_cases[i]);
		if (strcmp(cached, uncached))
			fprintf(stderr, "after %s, case '%s'\n", step,
				pile_cases[i].what);
		CHECK_STR(cached, uncached);
	}
}

/* Trimmed entries are exact: a VERSIONS 3 family whose column q piled up
 * 40 versions of 500 bytes (over 16 KiB, so cached trimmed) and a column
 * p with a few; after each kind of write (a newer put, a one-version
 * delete that uncovers an older version, a column delete, a family
 * delete, a put above it) every read - latest, all versions, a time range
 * in the past, a column, filters - answers as the same writes on a store
 * without the cache do, and plain gets are hits except right after a
 * one-version delete (it erases a trimmed entry). */
static void test_trimmed_pile_matches_uncached(void)
{
	setup_sized("trim", 3, (size_t)64 << 20);
	REQUIRE(t);
	sbx_table *pt;
	sbx_db *plain = open_plain("trim_plain", 3, &pt);
	REQUIRE(plain && pt);
	static char v[501];
	sbx_table *both[2] = {t, pt};
	for (int k = 0; k < 2; k++) {
		for (int ts = 1; ts <= 40; ts++) {
			memset(v, 'x', 500);
			snprintf(v, sizeof v, "v%02d", ts);
			v[3] = 'x';
			CHECK_INT(put1(both[k], "r", "cf", "q", ts, v), SBX_OK);
		}
		for (int ts = 1; ts <= 5; ts++) {
			char pv[8];
			snprintf(pv, sizeof pv, "p%d", ts);
			CHECK_INT(put1(both[k], "r", "cf", "p", ts, pv), SBX_OK);
		}
	}
	reset_delta();
	CHECK_INT(!strncmp(get1("r"), "r/cf:p=p5;r/cf:q=v40xx", 22), 1);
	CHECK_INT(!strncmp(get1("r"), "r/cf:p=p5;r/cf:q=v40xx", 22), 1);
	CHECK_STR(delta(), "1/1");
	check_pile_cases(pt, "the pile");
	struct {
		const char *what;
		sbx_cell_type type; /* SBX_CELL_PUT: a put */
		const char *col;
		int64_t ts;
		const char *hits; /* two plain gets after the write */
	} steps[] = {
		{"a newer put", SBX_CELL_PUT, "q", 41, "2/0"},
		{"a column delete", SBX_CELL_DELETE_COLUMN, "q", 30, "2/0"},
		{"a put under the column delete", SBX_CELL_PUT, "q", 25, "2/0"},
		{"a family delete", SBX_CELL_DELETE_FAMILY, NULL, 4, "2/0"},
		{"a put above everything", SBX_CELL_PUT, "p", 50, "2/0"},
		/* each erases the trimmed entry (merged, it would lack the
		 * older version the delete uncovers); the refill keeps 40,
		 * 39 and 38, then 40, 38 and 37, then 38, 37 and 36 */
		{"a one-version delete of the newest", SBX_CELL_DELETE, "q", 41,
		 "1/1"},
		{"a one-version delete again", SBX_CELL_DELETE, "q", 39, "1/1"},
		{"a one-version family delete", SBX_CELL_DELETE_FAMILY_VERSION,
		 NULL, 40, "1/1"},
		{"a put into the hole", SBX_CELL_PUT, "q", 39, "2/0"},
	};
	for (size_t i = 0; i < sizeof steps / sizeof *steps; i++) {
		for (int k = 0; k < 2; k++) {
			if (steps[i].type == SBX_CELL_PUT)
				CHECK_INT(put1(both[k], "r", "cf", steps[i].col,
					       steps[i].ts, "new"),
					  SBX_OK);
			else
				CHECK_INT(del1(both[k], "r", steps[i].type,
					       "cf", steps[i].col,
					       steps[i].ts),
					  SBX_OK);
		}
		reset_delta();
		char want[8192];
		snprintf(want, sizeof want, "%s", get_str(pt, "r", NULL, true));
		CHECK_STR(get_str(t, "r", NULL, true), want);
		CHECK_STR(get_str(t, "r", NULL, true), want);
		const char *d = delta();
		if (strcmp(d, steps[i].hits))
			fprintf(stderr, "after %s\n", steps[i].what);
		CHECK_STR(d, steps[i].hits);
		check_pile_cases(pt, steps[i].what);
	}
	sbx_table_close(pt);
	sbx_db_close(plain);
	teardown();
}

/* sbx_db_check_and_mutate_rows merges what it writes into the rows'
 * cached entries, as every other write does: a transfer between two cached
 * rows leaves both cached, reading the new values; a failed check writes
 * nothing and leaves them as they were. (It used to erase them, so every
 * transaction's next get read RocksDB and a hot row's pile of versions.) */
static void test_multirow_write_keeps_rows_cached(void)
{
	setup("multirow", 1);
	REQUIRE(t);
	CHECK_INT(put1(t, "a", "cf", "bal", SBX_LATEST_TIMESTAMP, "100"), SBX_OK);
	CHECK_INT(put1(t, "b", "cf", "bal", SBX_LATEST_TIMESTAMP, "5"), SBX_OK);
	reset_delta();
	CHECK_STR(get1("a"), "a/cf:bal=100;");
	CHECK_STR(get1("b"), "b/cf:bal=5;");
	CHECK_STR(delta(), "0/2");
	sbx_mutation *ma = NULL, *mb = NULL;
	CHECK_INT(sbx_mutation_new(&ma, "a", 1), SBX_OK);
	CHECK_INT(sbx_mutation_new(&mb, "b", 1), SBX_OK);
	REQUIRE(ma && mb);
	CHECK_INT(sbx_mutation_put(ma, "cf", "bal", 3, SBX_LATEST_TIMESTAMP,
				   "90", 2),
		  SBX_OK);
	CHECK_INT(sbx_mutation_put(mb, "cf", "bal", 3, SBX_LATEST_TIMESTAMP,
				   "15", 2),
		  SBX_OK);
	sbx_check ca = {"cf", "bal", 3, SBX_CMP_EQUAL, "100", 3},
		  cb = {"cf", "bal", 3, SBX_CMP_EQUAL, "5", 1};
	sbx_row_change rows[] = {{t, "a", 1, &ca, ma}, {t, "b", 1, &cb, mb}};
	bool ok = false;
	size_t failed = 0;
	CHECK_INT(sbx_db_check_and_mutate_rows(&ok, &failed, db, rows, 2),
		  SBX_OK);
	CHECK(ok);
	reset_delta(); /* the checks read the rows through the cache too */
	CHECK_STR(get1("a"), "a/cf:bal=90;");
	CHECK_STR(get1("b"), "b/cf:bal=15;");
	CHECK_STR(delta(), "2/0");
	/* the same again: a is no longer 100, nothing is written */
	CHECK_INT(sbx_db_check_and_mutate_rows(&ok, &failed, db, rows, 2),
		  SBX_OK);
	CHECK(!ok);
	CHECK_INT(failed, 0);
	reset_delta();
	CHECK_STR(get1("a"), "a/cf:bal=90;");
	CHECK_STR(get1("b"), "b/cf:bal=15;");
	CHECK_STR(delta(), "2/0");
	sbx_mutation_free(ma);
	sbx_mutation_free(mb);
	teardown();
}

/* A get refilling a trimmed entry seeks past a column's pile instead of
 * stepping through it, but never past the empty qualifier's column: a
 * family delete there, older than that column's puts, still masks the
 * old puts of every other column. Compared with a store without the
 * cache after each write, and written out. */
static void test_pile_seek_keeps_family_markers(void)
{
	setup_sized("pileseek", 1, (size_t)64 << 20);
	REQUIRE(t);
	sbx_table *pt;
	sbx_db *plain = open_plain("pileseek_plain", 1, &pt);
	REQUIRE(plain && pt);
	static char v[301];
	sbx_table *both[2] = {t, pt};
	for (int k = 0; k < 2; k++) {
		for (int ts = 1; ts <= 60; ts++) {
			memset(v, 'y', 300);
			snprintf(v, sizeof v, "e%02d", ts);
			v[3] = 'y';
			CHECK_INT(put1(both[k], "r", "cf", "", ts, v), SBX_OK);
			snprintf(v, sizeof v, "q%02d", ts);
			v[3] = 'y';
			CHECK_INT(put1(both[k], "r", "cf", "q", ts, v), SBX_OK);
		}
		CHECK_INT(put1(both[k], "r", "cf", "z", 10, "z10"), SBX_OK);
		CHECK_INT(del1(both[k], "r", SBX_CELL_DELETE_FAMILY, "cf", NULL,
			       20),
			  SBX_OK);
		CHECK_INT(del1(both[k], "r", SBX_CELL_DELETE_COLUMN, "cf", "q",
			       30),
			  SBX_OK);
	}
	const char *steps[] = {"the piles", "a put above",
			       "a one-version delete"};
	for (size_t i = 0; i < sizeof steps / sizeof *steps; i++) {
		for (int k = 0; i == 1 && k < 2; k++)
			CHECK_INT(put1(both[k], "r", "cf", "z", 70, "z70"),
				  SBX_OK);
		for (int k = 0; i == 2 && k < 2; k++)
			CHECK_INT(del1(both[k], "r", SBX_CELL_DELETE, "cf", "q",
				       60),
				  SBX_OK);
		char want[16384];
		snprintf(want, sizeof want, "%s", get_str(pt, "r", NULL, true));
		reset_delta();
		CHECK_STR(get_str(t, "r", NULL, true), want);
		CHECK_STR(get_str(t, "r", NULL, true), want);
		if (i == 0)
			CHECK_STR(delta(), "1/1");
		check_pile_cases(pt, steps[i]);
	}
	/* the newest of each column; the family delete at 20 masks z10 */
	const char *got = get1("r");
	CHECK_INT(!strncmp(got, "r/cf:=e60y", 10), 1);
	CHECK_INT(strstr(got, ";r/cf:q=q59y") != NULL, 1);
	CHECK_INT(strstr(got, ";r/cf:z=z70;") != NULL, 1);
	CHECK_INT(strstr(got, "z10") == NULL, 1);
	sbx_table_close(pt);
	sbx_db_close(plain);
	teardown();
}

static _Atomic int64_t fake_now;
static int64_t fake_clock(void)
{
	return atomic_load(&fake_now);
}

static void test_ttl_expiry_seen_through_cache(void)
{
	atomic_store(&fake_now, (int64_t)1700000000000);
	sbx_clock_set(fake_clock);
	db = open_with_cache("ttl", (size_t)1 << 20);
	REQUIRE(db);
	sbx_family_desc f;
	sbx_family_desc_init(&f, "cf");
	f.ttl_seconds = 10;
	f.max_versions = 3;
	CHECK_INT(sbx_table_create(db, "t", &f, 1), SBX_OK);
	CHECK_INT(sbx_table_open(&t, db, "t"), SBX_OK);
	REQUIRE(t);
	int64_t now = atomic_load(&fake_now);
	CHECK_INT(put1(t, "r", "cf", "old", now - 5000, "o"), SBX_OK);
	CHECK_INT(put1(t, "r", "cf", "new", now, "n"), SBX_OK);
	reset_delta();
	CHECK_STR(get1("r"), "r/cf:new=n;r/cf:old=o;");
	CHECK_STR(get1("r"), "r/cf:new=n;r/cf:old=o;");
	CHECK_STR(delta(), "1/1");
	atomic_store(&fake_now, now + 6000); /* old is 11 s old */
	CHECK_STR(get1("r"), "r/cf:new=n;");
	atomic_store(&fake_now, now + 11000);
	CHECK_STR(get1("r"), "");
	CHECK_STR(delta(), "2/0"); /* both answered by the cache */
	teardown();
	sbx_clock_set(NULL);
}

static void test_blockcache_false_stays_out(void)
{
	db = open_with_cache("nocache", (size_t)1 << 20);
	REQUIRE(db);
	sbx_family_desc f;
	sbx_family_desc_init(&f, "cf");
	CHECK_INT(sbx_family_desc_set(&f, "BLOCKCACHE", "false"), SBX_OK);
	CHECK_INT(sbx_table_create(db, "t", &f, 1), SBX_OK);
	CHECK_INT(sbx_table_open(&t, db, "t"), SBX_OK);
	REQUIRE(t);
	sbx_table_info *info = NULL;
	CHECK_INT(sbx_table_describe(&info, db, "t"), SBX_OK);
	REQUIRE(info);
	sbx_family_attr a;
	CHECK_INT(sbx_family_desc_get(&a, &info->families[0], "BLOCKCACHE"),
		  SBX_OK);
	CHECK_STR(a.value, "false");
	sbx_table_info_free(info);
	CHECK_INT(put1(t, "r", "cf", "q", 1, "v"), SBX_OK);
	reset_delta();
	CHECK_STR(get1("r"), "r/cf:q=v;");
	CHECK_STR(get1("r"), "r/cf:q=v;");
	CHECK_STR(delta(), "0/0");
	teardown();
}

/* ---- writers and readers in threads ---- */

enum { NROWS = 8, NWRITES = 400, NREADERS = 2 };

/* published[i]: the last value whose write to row i has returned. */
static _Atomic long published[NROWS];
static _Atomic int writers_done;
static _Atomic long stale_reads, reads_done;

static void row_name(char out[16], int i)
{
	snprintf(out, 16, "row%d", i);
}

static void *write_loop(void *arg)
{
	int first = (int)(intptr_t)arg; /* rows first, first+2, ... */
	for (long v = 1; v <= NWRITES; v++)
		for (int i = first; i < NROWS; i += 2) {
			char row[16], val[32];
			row_name(row, i);
			snprintf(val, sizeof val, "%ld", v);
			if (put1(t, row, "cf", "q", SBX_LATEST_TIMESTAMP, val))
				return NULL;
			atomic_store(&published[i], v);
		}
	atomic_fetch_add(&writers_done, 1);
	return NULL;
}

/* Invariant: a get that starts after the write of value p returned sees
 * p or a later value, never an older one (cached or not). */
static void *read_loop(void *arg)
{
	(void)arg;
	unsigned seed = 7;
	while (atomic_load(&writers_done) < 2) {
		seed = seed * 1103515245u + 12345u;
		int i = (int)((seed >> 8) % NROWS);
		long p = atomic_load(&published[i]);
		char row[16];
		row_name(row, i);
		sbx_result *r = NULL;
		if (sbx_table_get(&r, t, row, strlen(row), NULL)) {
			atomic_fetch_add(&stale_reads, 1);
			continue;
		}
		long seen = 0;
		if (sbx_result_size(r) == 1) {
			const sbx_cell *c = sbx_result_cell(r, 0);
			char v[32];
			snprintf(v, sizeof v, "%.*s", (int)c->value_len,
				 (const char *)c->value);
			seen = atol(v);
		}
		sbx_result_free(r);
		if (seen < p)
			atomic_fetch_add(&stale_reads, 1);
		atomic_fetch_add(&reads_done, 1);
	}
	return NULL;
}

static void test_threads_never_read_stale(void)
{
	setup("threads", 1);
	REQUIRE(t);
	reset_delta();
	pthread_t w[2], rd[NREADERS];
	for (int i = 0; i < NREADERS; i++)
		pthread_create(&rd[i], NULL, read_loop, NULL);
	for (int i = 0; i < 2; i++)
		pthread_create(&w[i], NULL, write_loop, (void *)(intptr_t)i);
	for (int i = 0; i < 2; i++)
		pthread_join(w[i], NULL);
	for (int i = 0; i < NREADERS; i++)
		pthread_join(rd[i], NULL);
	CHECK_INT(atomic_load(&writers_done), 2);
	CHECK_INT(atomic_load(&stale_reads), 0);
	CHECK(atomic_load(&reads_done) > 0);
	for (int i = 0; i < NROWS; i++) {
		char row[16], expect[64];
		row_name(row, i);
		snprintf(expect, sizeof expect, "%s/cf:q=%d;", row, NWRITES);
		CHECK_STR(get1(row), expect);
		CHECK_STR(get1(row), expect);
	}
	uint64_t h, m;
	counts(db, "t", &h, &m);
	CHECK(h >= NROWS); /* at least the second reads above */
	teardown();
}

/* ---- the byte bound ---- */

/* Row i's key in family "t1.f1"; the name is written into row[16]. */
static rowcache_key row_key(char *row, int i)
{
	snprintf(row, 16, "row%04d", i);
	return (rowcache_key){
		.row_hash = rowcache_row_hash((const uint8_t *)row, strlen(row)),
		.cf_name = "t1.f1",
		.cf_len = 5,
		.row = (const uint8_t *)row,
		.row_len = strlen(row)};
}

/* Insert b's cells as k's entry, as a get that read RocksDB does. */
static void insert_row(rowcache *c, const rowcache_key *k, const rowbuf *b)
{
	unsigned stripe = (unsigned)(k->row_hash % ENGINE_ROW_STRIPES);
	rowcache_insert(c, k, rowcache_seq(c, stripe), 4, b, 0, 1, false);
}

static void test_byte_bound_holds(void)
{
	/* the cache itself: entries of ~1 KiB into 1 MiB */
	rowcache *c = rowcache_new((size_t)1 << 20);
	REQUIRE(c);
	rowbuf b = {0};
	char key[16], val[1000];
	memset(val, 'v', sizeof val);
	rowbuf_ent e = {.koff = 0, .klen = 8, .voff = 8, .vlen = sizeof val};
	memcpy(key, "cellkey!", 8);
	CHECK_INT(sbx_buf_append(&b.arena, key, 8), SBX_OK);
	CHECK_INT(sbx_buf_append(&b.arena, val, sizeof val), SBX_OK);
	b.ents = &e;
	b.n = b.cap = 1;
	rowcache_stats st;
	for (int i = 0; i < 2000; i++) {
		char row[16];
		rowcache_key k = row_key(row, i);
		insert_row(c, &k, &b);
		rowcache_get_stats(c, &st);
		if (st.bytes > ((size_t)1 << 20))
			CHECK_INT((long long)st.bytes, (long long)(1 << 20));
	}
	rowcache_get_stats(c, &st);
	CHECK_INT((long long)st.capacity, (long long)((size_t)1 << 20));
	/* once full, a row seen once is declined (admission), so rows
	 * inserted once each stop entering when the shards fill */
	CHECK(st.entries > 16);
	CHECK(st.declined > 1000);
	CHECK_INT((long long)(st.inserts + st.declined), 2000);
	CHECK_INT((long long)(st.inserts - st.evictions), (long long)st.entries);
	/* a second insert of the same rows soon after: admitted, evicting */
	for (int i = 1900; i < 2000; i++) {
		char row[16];
		rowcache_key k = row_key(row, i);
		uint64_t before = st.inserts;
		insert_row(c, &k, &b);
		rowcache_get_stats(c, &st);
		CHECK_INT((long long)(st.inserts - before), 1);
		CHECK((size_t)st.bytes <= ((size_t)1 << 20));
		rowbuf got = {0};
		bool h = false;
		CHECK_INT(rowcache_lookup(c, &k, (const uint8_t *)"CELL", 4,
					  false, &got, NULL, &h),
			  SBX_OK);
		CHECK(h);
		free(got.ents);
		sbx_buf_free(&got.arena);
	}
	CHECK(st.evictions > 0); /* the bound evicts, it does not stop */
	CHECK_INT((long long)(st.inserts - st.evictions), (long long)st.entries);
	/* an insert while a write holds the stripe is refused */
	rowcache_key k = {.row_hash = 42, .cf_name = "t1.f1", .cf_len = 5,
			  .row = (const uint8_t *)"x", .row_len = 1};
	uint64_t seq = rowcache_seq(c, 42);
	rowcache_write_begin(c, 42);
	rowcache_insert(c, &k, seq, 4, &b, 0, 1, false);
	rowcache_insert(c, &k, rowcache_seq(c, 42), 4, &b, 0, 1, false);
	rowcache_write_end(c, 42);
	rowbuf out = {0};
	bool hit = true;
	const uint8_t *pre = (const uint8_t *)"CELL";
	CHECK_INT(rowcache_lookup(c, &k, pre, 4, false, &out, NULL, &hit), SBX_OK);
	CHECK(!hit);
	rowcache_insert(c, &k, rowcache_seq(c, 42), 4, &b, 0, 1, false);
	CHECK_INT(rowcache_lookup(c, &k, pre, 4, false, &out, NULL, &hit), SBX_OK);
	CHECK(hit);
	CHECK_INT((long long)out.n, 1);
	/* the prefix comes from the caller, the rest from the entry */
	CHECK_MEM(out.arena.data + out.ents[0].koff, 8, "CELLkey!");
	CHECK_INT((long long)out.ents[0].vlen, (long long)sizeof val);
	CHECK(out.arena.data[out.ents[0].voff] == 'v');
	CHECK(out.ents[0].vptr == NULL);
	/* pinned: the value is read in the entry, which outlives its erase
	 * (and the cache) until unpinned; ASan checks the reads below */
	const void *pin = NULL;
	out.n = 0;
	out.arena.len = 0;
	CHECK_INT(rowcache_lookup(c, &k, pre, 4, false, &out, &pin, &hit),
		  SBX_OK);
	CHECK(hit && pin != NULL);
	CHECK_MEM(out.arena.data + out.ents[0].koff, 8, "CELLkey!");
	rowcache_erase(c, &k);
	rowcache_free(c);
	REQUIRE(out.ents[0].vptr != NULL);
	CHECK(out.ents[0].vptr[0] == 'v' &&
	      out.ents[0].vptr[sizeof val - 1] == val[sizeof val - 1]);
	rowcache_unpin(pin);
	free(out.ents);
	sbx_buf_free(&out.arena);
	sbx_buf_free(&b.arena);

	/* through the engine: 2000 rows of ~1 KiB with a 1 MiB cache, each
	 * read twice (the second miss of a full cache's row admits it): the
	 * first rows read are gone, the last still there */
	db = open_with_cache("bound", (size_t)1 << 20);
	REQUIRE(db);
	CHECK_INT(make_table(db, "t", "cf", 1), SBX_OK);
	CHECK_INT(sbx_table_open(&t, db, "t"), SBX_OK);
	REQUIRE(t);
	val[sizeof val - 1] = 0;
	for (int i = 0; i < 2000; i++) {
		char row[16];
		snprintf(row, sizeof row, "row%04d", i);
		CHECK_INT(put1(t, row, "cf", "q", 1, val), SBX_OK);
		get1(row);
		get1(row);
	}
	reset_delta();
	get1("row1999");
	CHECK_STR(delta(), "1/0");
	get1("row0000");
	CHECK_STR(delta(), "0/1");
	teardown();
}

TEST_MAIN(T(test_hit_after_miss_and_put_updates), T(test_every_write_seen),
	  T(test_versions_ranges_filters_match_uncached),
	  T(test_writes_merged_match_uncached),
	  T(test_batch_merges_each_mutation), T(test_entry_max_16k),
	  T(test_trimmed_pile_matches_uncached),
	  T(test_multirow_write_keeps_rows_cached),
	  T(test_pile_seek_keeps_family_markers),
	  T(test_ttl_expiry_seen_through_cache),
	  T(test_blockcache_false_stays_out), T(test_threads_never_read_stale),
	  T(test_byte_bound_holds))
