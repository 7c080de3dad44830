/*
 * test_perf_counters.c - the embedded engine turns RocksDB's per-thread perf
 * counters off on a thread's first data call (src/engine/tables.c): RocksDB
 * counts by default, a thread-local lookup on every iterator step. Checked
 * on fresh threads, with RocksDB's own perf context: after a thread's first
 * Saltbox call a scan of 200 cells counts no iterator steps; a thread that
 * turns counting back on afterwards (docs/api.md: what a program using
 * RocksDB directly does) sees the same scan counted, so the counters do
 * count Saltbox's reads when on - Saltbox sets the level once a thread and
 * leaves the program's own setting alone afterwards.
 */
#include "engine_util.h"

#include <pthread.h>
#include <rocksdb/c.h>

#define ROWS 20
#define COLS 10

static sbx_table *g_table;

/* Scan the whole table; the cells seen. */
static size_t scan_all(void)
{
	sbx_scan_opts o;
	sbx_scan_opts_init(&o);
	sbx_scanner *sc = NULL;
	if (sbx_scanner_open(&sc, g_table, &o) != SBX_OK)
		return 0;
	size_t cells = 0;
	sbx_result *res;
	while (sbx_scanner_next(sc, &res) == SBX_OK) {
		size_t n;
		sbx_result_cells(res, &n);
		cells += n;
		sbx_result_free(res);
	}
	sbx_scanner_close(sc);
	return cells;
}

typedef struct run {
	bool count_again; /* turn counting back on after the first call */
	size_t cells;
	uint64_t steps; /* iterator steps RocksDB counted over the scan */
} run;

static void *scan_thread(void *arg)
{
	run *r = arg;
	/* the thread's first Saltbox call (a get) sets its level */
	sbx_result *res = NULL;
	if (sbx_table_get(&res, g_table, "row00", 5, NULL) == SBX_OK)
		sbx_result_free(res);
	if (r->count_again)
		rocksdb_set_perf_level(rocksdb_enable_count);
	rocksdb_perfcontext_t *pc = rocksdb_perfcontext_create();
	rocksdb_perfcontext_reset(pc);
	r->cells = scan_all();
	r->steps = rocksdb_perfcontext_metric(pc, rocksdb_next_on_memtable_count) +
		   rocksdb_perfcontext_metric(pc, rocksdb_seek_on_memtable_count);
	rocksdb_perfcontext_destroy(pc);
	return NULL;
}

static void on_thread(run *r, bool count_again)
{
	*r = (run){.count_again = count_again};
	pthread_t th;
	REQUIRE(pthread_create(&th, NULL, scan_thread, r) == 0);
	pthread_join(th, NULL);
}

static void test_counters_off(void)
{
	sbx_db *db = NULL;
	open_fresh_table(&db, &g_table, "perf_counters", 1);
	for (int i = 0; i < ROWS; i++)
		for (int c = 0; c < COLS; c++) {
			char row[16], q[16];
			snprintf(row, sizeof row, "row%02d", i);
			snprintf(q, sizeof q, "q%d", c);
			CHECK_INT(put1(g_table, row, "cf", q, SBX_LATEST_TIMESTAMP,
				       "v"),
				  SBX_OK);
		}
	/* every cell is in the memtable: each step is counted there */
	run quiet, counted;
	on_thread(&quiet, false);
	CHECK_INT((long long)quiet.cells, ROWS * COLS);
	CHECK_INT((long long)quiet.steps, 0);
	on_thread(&counted, true);
	CHECK_INT((long long)counted.cells, ROWS * COLS);
	/* one seek, then a step past each of the 200 cells */
	CHECK((long long)counted.steps >= ROWS * COLS);
	printf("  a 200-cell scan: %llu memtable steps counted with the "
	       "counters off, %llu with them on again\n",
	       (unsigned long long)quiet.steps,
	       (unsigned long long)counted.steps);
	close_table_db(&db, &g_table);
}

TEST_MAIN(T(test_counters_off))
