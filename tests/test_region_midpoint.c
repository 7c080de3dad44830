/*
 * test_region_midpoint.c - where a large region splits (src/engine/
 * regions.c family_midpoint_estimated): a family with 64 MiB or more of
 * store files in the region is split where RocksDB's size estimate of
 * them halves, found by bisecting the key range, instead of reading the
 * region whole (smaller regions are read, as test_regions checks). Like
 * HBase's middle key of the largest store file, the estimate leaves the
 * memtable out. Checked: 72 MiB of rows flushed, then 40 MiB more above
 * them left in the memtable; the split row is the flushed rows' middle
 * (row036000 within 3,000 rows), where a read of everything would have
 * put it near row056000; every row still read after the split.
 */
#include "engine_util.h"

#define FLUSHED 72000   /* rows of one 1000-byte cell: 72 MB */
#define UNFLUSHED 40000 /* more, above them, left in the memtable */

static void put_rows(sbx_table *t, int from, int n)
{
	static char val[1001];
	memset(val, 'v', 1000);
	char row[32];
	int failed = 0;
	for (int i = from; i < from + n; i++) {
		snprintf(row, sizeof row, "row%06d", i);
		failed += put1(t, row, "cf", "q", SBX_LATEST_TIMESTAMP, val) !=
			  SBX_OK;
	}
	CHECK_INT(failed, 0);
}

static void test_large_region_splits_at_estimate(void)
{
	sbx_db *db;
	sbx_table *t;
	open_fresh_table(&db, &t, "region_midpoint", 1);
	REQUIRE(t);
	put_rows(t, 0, FLUSHED);
	CHECK_INT(sbx_table_flush(db, "t"), SBX_OK);
	put_rows(t, 100000, UNFLUSHED);
	CHECK_INT(sbx_table_split(db, "t", NULL, 0), SBX_OK);
	sbx_region_info *r = NULL;
	size_t n = 0;
	CHECK_INT(sbx_table_regions(&r, &n, db, "t"), SBX_OK);
	CHECK_INT(n, 2);
	if (n == 2) {
		char at[32];
		snprintf(at, sizeof at, "%.*s", (int)r[1].start_len,
			 (const char *)r[1].start_key);
		printf("  split at %s\n", at);
		CHECK_INT(r[1].start_len, 9);
		CHECK(strcmp(at, "row033000") >= 0 &&
		      strcmp(at, "row039000") <= 0);
	}
	sbx_region_infos_free(r, n);
	/* the rows on both sides of the split are all there */
	sbx_read_opts o;
	sbx_read_opts_init(&o);
	int missing = 0;
	char row[32];
	for (int i = 0; i < FLUSHED; i += 997) {
		snprintf(row, sizeof row, "row%06d", i);
		sbx_result *res = NULL;
		REQUIRE(sbx_table_get(&res, t, row, 9, &o) == SBX_OK);
		missing += sbx_result_size(res) != 1;
		sbx_result_free(res);
	}
	CHECK_INT(missing, 0);
	close_table_db(&db, &t);
}

TEST_MAIN(T(test_large_region_splits_at_estimate))
