/*
 * test_wal_bound.c - the write-ahead log a store keeps is bounded
 * (sbx_db_options.max_wal_bytes): RocksDB deletes a log only once every
 * family's writes in it are flushed, and a table written once (like the
 * store's own timestamp ceiling, written about once a second) used to keep
 * every log since the store opened. Checked: with a 1 MiB bound, 12 MiB
 * written to one table after one write to another leave under 4 MiB of
 * logs once RocksDB's background flushes have run (waited for, up to
 * 60 s: under load they lag the writes); with RocksDB's default (0) the
 * same writes leave them all; both
 * stores read back every cell after a reopen.
 */
#include "engine_util.h"

#include <dirent.h>
#include <sys/stat.h>

/* Bytes in the store's *.log files (RocksDB's write-ahead logs). */
static uint64_t wal_bytes(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return 0;
	uint64_t sum = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		size_t n = strlen(de->d_name);
		if (n < 5 || strcmp(de->d_name + n - 4, ".log"))
			continue;
		char path[4096];
		struct stat st;
		snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
		if (stat(path, &st) == 0)
			sum += (uint64_t)st.st_size;
	}
	closedir(d);
	return sum;
}

#define ROWS 12288 /* of one 1 KiB cell: 12 MiB */

static void write_and_measure(const char *name, uint64_t bound,
			      uint64_t *logs)
{
	*logs = UINT64_MAX;
	const char *dir = test_dir(name);
	sbx_db_options o;
	sbx_db_options_init(&o);
	CHECK(o.max_wal_bytes == (uint64_t)256 << 20); /* the default */
	o.max_wal_bytes = bound;
	sbx_db *db = NULL;
	REQUIRE(sbx_db_open(&db, dir, &o) == SBX_OK);
	REQUIRE(make_table(db, "quiet", "cf", 1) == SBX_OK);
	REQUIRE(make_table(db, "t", "cf", 1) == SBX_OK);
	sbx_table *quiet = NULL, *t = NULL;
	REQUIRE(sbx_table_open(&quiet, db, "quiet") == SBX_OK);
	REQUIRE(sbx_table_open(&t, db, "t") == SBX_OK);
	CHECK_INT(put1(quiet, "once", "cf", "q", SBX_LATEST_TIMESTAMP, "v"),
		  SBX_OK);
	static char val[1024];
	memset(val, 'x', sizeof val - 1);
	char row[32];
	int failed = 0;
	for (int i = 0; i < ROWS; i++) {
		snprintf(row, sizeof row, "r%06d", i);
		char digits[16];
		snprintf(digits, sizeof digits, "%06d", i);
		memcpy(val, digits, 6); /* the rest stays 'x': 1023 bytes */
		failed += put1(t, row, "cf", "q", SBX_LATEST_TIMESTAMP, val) !=
			  SBX_OK;
	}
	CHECK_INT(failed, 0);
	/* RocksDB flushes and deletes the logs a bound frees in the
	 * background: with one, wait (up to 60 s) for them to go below
	 * 4 MiB; without, they stay (nothing is flushed) */
	*logs = wal_bytes(dir);
	for (int i = 0; bound && i < 600 && *logs >= (uint64_t)4 << 20; i++) {
		struct timespec pause = {0, 100 * 1000 * 1000};
		nanosleep(&pause, NULL);
		*logs = wal_bytes(dir);
	}
	sbx_table_close(quiet);
	sbx_table_close(t);
	sbx_db_close(db);

	/* everything is there after a reopen (the logs replayed or the
	 * memtables flushed) */
	REQUIRE(sbx_db_open(&db, dir, &o) == SBX_OK);
	REQUIRE(sbx_table_open(&quiet, db, "quiet") == SBX_OK);
	REQUIRE(sbx_table_open(&t, db, "t") == SBX_OK);
	sbx_read_opts ro;
	sbx_read_opts_init(&ro);
	sbx_result *r = NULL;
	REQUIRE(sbx_table_get(&r, quiet, "once", 4, &ro) == SBX_OK);
	CHECK_INT(sbx_result_size(r), 1);
	sbx_result_free(r);
	int wrong = 0;
	for (int i = 0; i < ROWS; i += 97) {
		snprintf(row, sizeof row, "r%06d", i);
		r = NULL;
		REQUIRE(sbx_table_get(&r, t, row, strlen(row), &ro) == SBX_OK);
		char want[16];
		snprintf(want, sizeof want, "%06d", i);
		const sbx_cell *c = sbx_result_size(r) == 1
					    ? sbx_result_cell(r, 0)
					    : NULL;
		wrong += !c || c->value_len != 1023 ||
			 memcmp(c->value, want, 6) != 0;
		sbx_result_free(r);
	}
	CHECK_INT(wrong, 0);
	sbx_table_close(quiet);
	sbx_table_close(t);
	sbx_db_close(db);
}

static void test_wal_bounded(void)
{
	uint64_t bounded, unbounded;
	write_and_measure("wal_bound", (uint64_t)1 << 20, &bounded);
	write_and_measure("wal_unbounded", 0, &unbounded);
	printf("  12 MiB written: %llu bytes of logs kept with a 1 MiB bound, "
	       "%llu with RocksDB's default\n", (unsigned long long)bounded,
	       (unsigned long long)unbounded);
	CHECK(bounded < (uint64_t)4 << 20);
	CHECK(unbounded > (uint64_t)12 << 20);
}

TEST_MAIN(T(test_wal_bounded))
