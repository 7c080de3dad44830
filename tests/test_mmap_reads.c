/*
 * test_mmap_reads.c - sbx_db_options.mmap_reads: a store read through mmap
 * answers exactly as one read through the block cache. Rows go to store
 * files (flushed, then compacted) in a family without compression (its
 * blocks read in place) and one with LZ4 (decompressed into the block
 * cache), with versions and delete markers in the files and newer cells
 * in the memtable; gets, scans both ways and a reopen compare against the
 * same store opened without mmap.
 */
#include "engine_util.h"

#define ROWS 3000

static sbx_db *open_opts(const char *dir, bool mmap_reads)
{
	sbx_db_options o;
	sbx_db_options_init(&o);
	o.mmap_reads = mmap_reads;
	sbx_db *d = NULL;
	if (sbx_db_open(&d, dir, &o))
		fprintf(stderr, "open: %s\n", sbx_errmsg());
	return d;
}

/* Whether this process has one of the store's files mapped: RocksDB maps
 * a table file when it opens it for reading with allow_mmap_reads. */
static bool sst_mapped(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	if (!f)
		return false;
	char line[4096];
	bool found = false;
	while (!found && fgets(line, sizeof line, f))
		found = strstr(line, "/mmap.") && strstr(line, ".sst");
	fclose(f);
	return found;
}

static void row_name(char *out, size_t cap, int i)
{
	snprintf(out, cap, "row%05d", i);
}

/* Every row gets a:q0..q3 and b:q0..q3 ("ROW-qJ-" and x's to 120 bytes,
 * timestamp 1000), compacted into one file; rows divisible by 7 have their
 * a:q0 column deleted; rows divisible by 5 get a:q1 "new-I" at 2000 in a
 * second file; rows 1, 501, 1001, ... get b:q9 "memtable" at 3000 after. */
static void fill(sbx_db *db, sbx_table *t)
{
	char row[16], val[160];
	for (int i = 0; i < ROWS; i++) {
		row_name(row, sizeof row, i);
		for (int j = 0; j < 4; j++) {
			char q[8];
			snprintf(q, sizeof q, "q%d", j);
			/* 120 bytes: the row, the column, then x's */
			snprintf(val, sizeof val, "%s-%s-%s", row, q,
				 "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
				 "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
				 "xxxxxxxxx");
			CHECK_INT(put1(t, row, "a", q, 1000, val), SBX_OK);
			CHECK_INT(put1(t, row, "b", q, 1000, val), SBX_OK);
		}
		if (i % 7 == 0)
			CHECK_INT(del1(t, row, SBX_CELL_DELETE_COLUMN, "a", "q0",
				       SBX_LATEST_TIMESTAMP),
				  SBX_OK);
	}
	CHECK_INT(sbx_table_flush(db, "t"), SBX_OK);
	CHECK_INT(sbx_table_major_compact(db, "t"), SBX_OK);
	for (int i = 0; i < ROWS; i += 5) {
		row_name(row, sizeof row, i);
		snprintf(val, sizeof val, "new-%d", i);
		CHECK_INT(put1(t, row, "a", "q1", 2000, val), SBX_OK);
	}
	CHECK_INT(sbx_table_flush(db, "t"), SBX_OK);
	/* and a few in the memtable only */
	for (int i = 1; i < ROWS; i += 500) {
		row_name(row, sizeof row, i);
		CHECK_INT(put1(t, row, "b", "q9", 3000, "memtable"), SBX_OK);
	}
}

/* Everything a reader can see, as one string per read kind. */
static void snapshot_reads(sbx_table *t, char **gets, char **fwd, char **rev)
{
	size_t cap = (size_t)ROWS * 2000, len = 0;
	char *g = malloc(cap);
	REQUIRE(g);
	g[0] = 0;
	sbx_read_opts ro;
	sbx_read_opts_init(&ro);
	ro.max_versions = 3;
	for (int i = 0; i < ROWS; i += 3) {
		char row[16];
		row_name(row, sizeof row, i);
		const char *s = get_str(t, row, &ro, true);
		size_t n = strlen(s);
		REQUIRE(len + n + 2 < cap);
		memcpy(g + len, s, n);
		len += n;
		g[len++] = '\n';
		g[len] = 0;
	}
	*gets = g;
	sbx_scan_opts so;
	sbx_scan_opts_init(&so);
	so.start_row = "row01000";
	so.start_row_len = 8;
	so.limit = 20;
	*fwd = strdup(scan_str(t, &so, true));
	so.reversed = true;
	*rev = strdup(scan_str(t, &so, true));
}

/* Open the store at dir with or without mmap reads and check that its
 * reads equal the ones taken before (gets, forward and reversed scans),
 * and that the store's files are mapped exactly when mmap_reads is set. */
static void reopen_and_compare(const char *dir, bool mmap_reads,
			       const char *gets, const char *fwd,
			       const char *rev)
{
	sbx_db *db = open_opts(dir, mmap_reads);
	REQUIRE(db);
	sbx_table *t = NULL;
	CHECK_INT(sbx_table_open(&t, db, "t"), SBX_OK);
	REQUIRE(t);
	char *g, *f, *r;
	snapshot_reads(t, &g, &f, &r);
	CHECK(sst_mapped() == mmap_reads);
	CHECK(strcmp(g, gets) == 0);
	CHECK_STR(f, fwd);
	CHECK_STR(r, rev);
	sbx_table_close(t);
	sbx_db_close(db);
	free(g), free(f), free(r);
}

static void test_mmap_reads_match_block_cache_reads(void)
{
	const char *dir = test_dir("mmap");
	sbx_db *db = open_opts(dir, true);
	REQUIRE(db);
	sbx_family_desc f[2];
	sbx_family_desc_init(&f[0], "a");
	f[0].max_versions = 3;
	f[0].block_size = 4096; /* many blocks: reads land in several */
	sbx_family_desc_init(&f[1], "b");
	f[1].compression = SBX_COMPRESSION_LZ4;
	CHECK_INT(sbx_table_create(db, "t", f, 2), SBX_OK);
	sbx_table *t = NULL;
	CHECK_INT(sbx_table_open(&t, db, "t"), SBX_OK);
	REQUIRE(t);
	fill(db, t);

	/* the values written out, read through mmap */
#define X59 "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
#define X109 X59 "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
	/* row 7: a:q0 deleted (7 divides it), b untouched */
	CHECK_STR(get_str(t, "row00007", NULL, false),
		  "row00007/a:q1=row00007-q1-" X109 ";"
		  "row00007/a:q2=row00007-q2-" X109 ";"
		  "row00007/a:q3=row00007-q3-" X109 ";"
		  "row00007/b:q0=row00007-q0-" X109 ";"
		  "row00007/b:q1=row00007-q1-" X109 ";"
		  "row00007/b:q2=row00007-q2-" X109 ";"
		  "row00007/b:q3=row00007-q3-" X109 ";");
	/* row 10: a second version of a:q1 in the newer file */
	sbx_column col = {.family = "a", .qualifier = "q1", .qualifier_len = 2};
	sbx_read_opts ro;
	sbx_read_opts_init(&ro);
	ro.max_versions = 3;
	ro.columns = &col;
	ro.ncolumns = 1;
	CHECK_STR(get_str(t, "row00010", &ro, true),
		  "row00010/a:q1@2000=new-10;"
		  "row00010/a:q1@1000=row00010-q1-" X109 ";");
	/* row 501: a cell only the memtable holds, in the LZ4 family */
	ro.max_versions = 1;
	col.family = "b";
	col.qualifier = NULL;
	col.qualifier_len = 0;
	ro.columns = &col;
	ro.ncolumns = 1;
	CHECK_STR(get_str(t, "row00501", &ro, false),
		  "row00501/b:q0=row00501-q0-" X109 ";"
		  "row00501/b:q1=row00501-q1-" X109 ";"
		  "row00501/b:q2=row00501-q2-" X109 ";"
		  "row00501/b:q3=row00501-q3-" X109 ";"
		  "row00501/b:q9=memtable;");

	char *g1, *f1, *r1;
	snapshot_reads(t, &g1, &f1, &r1);
	CHECK(sst_mapped()); /* the reads went through mmap */
	CHECK(strlen(f1) > 1000 && strncmp(f1, "ERR", 3) != 0);
	CHECK(strlen(r1) > 1000 && strncmp(r1, "ERR", 3) != 0);
	sbx_table_close(t);
	sbx_db_close(db);

	/* the same store through the block cache: the same answers; and
	 * through mmap again after a reopen */
	reopen_and_compare(dir, false, g1, f1, r1);
	reopen_and_compare(dir, true, g1, f1, r1);
	free(g1), free(f1), free(r1);
}

TEST_MAIN(T(test_mmap_reads_match_block_cache_reads))
