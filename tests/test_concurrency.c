/*
 * test_concurrency.c - row atomicity under concurrent writers and readers:
 * every write sets all columns of a row (in two families) to one value, and
 * readers (gets and scans) must never see a row with mixed values. Also
 * concurrent increments on one counter must not lose an update, and
 * concurrent check-and-put must let exactly one writer win. A major
 * compaction must not stop the table's gets and puts while it runs. Reads
 * while the schema changes and the table is dropped end cleanly.
 */
#include "engine_util.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

#define ROWS 8
#define WRITERS 3
#define READERS 3

static sbx_db *db;
static atomic_bool stop;
static atomic_long torn, reads;

static void *writer(void *arg)
{
	long id = (long)arg;
	sbx_table *t;
	if (sbx_table_open(&t, db, "t"))
		return NULL;
	for (long i = 0; !atomic_load(&stop); i++) {
		char row[8], val[32];
		snprintf(row, sizeof row, "r%ld", i % ROWS);
		snprintf(val, sizeof val, "w%ld-%ld", id, i);
		sbx_mutation *m;
		if (sbx_mutation_new(&m, row, strlen(row)))
			break;
		const char *quals[] = {"a", "b", "c"};
		for (int q = 0; q < 3; q++) {
			sbx_mutation_put(m, "f1", quals[q], 1, SBX_LATEST_TIMESTAMP,
					 val, strlen(val));
			sbx_mutation_put(m, "f2", quals[q], 1, SBX_LATEST_TIMESTAMP,
					 val, strlen(val));
		}
		if (sbx_table_mutate(NULL, t, m))
			atomic_fetch_add(&torn, 1000000);
		sbx_mutation_free(m);
	}
	sbx_table_close(t);
	return NULL;
}

static void check_row(const sbx_result *r)
{
	if (sbx_result_size(r) == 0)
		return;
	if (sbx_result_size(r) != 6) {
		atomic_fetch_add(&torn, 1);
		return;
	}
	const sbx_cell *c0 = sbx_result_cell(r, 0);
	for (size_t i = 1; i < 6; i++) {
		const sbx_cell *c = sbx_result_cell(r, i);
		if (c->value_len != c0->value_len ||
		    memcmp(c->value, c0->value, c->value_len))
			atomic_fetch_add(&torn, 1);
	}
	atomic_fetch_add(&reads, 1);
}

static void *reader(void *arg)
{
	long id = (long)arg;
	sbx_table *t;
	if (sbx_table_open(&t, db, "t"))
		return NULL;
	for (long i = 0; !atomic_load(&stop); i++) {
		if ((i + id) % 4 == 0) {
			sbx_scan_opts o;
			sbx_scan_opts_init(&o);
			o.reversed = (i % 8) == 0;
			sbx_scanner *s;
			if (sbx_scanner_open(&s, t, &o))
				continue;
			sbx_result *r;
			while (sbx_scanner_next(s, &r) == SBX_OK) {
				check_row(r);
				sbx_result_free(r);
			}
			sbx_scanner_close(s);
		} else {
			char row[8];
			snprintf(row, sizeof row, "r%ld", i % ROWS);
			sbx_result *r;
			if (sbx_table_get(&r, t, row, strlen(row), NULL))
				continue;
			check_row(r);
			sbx_result_free(r);
		}
	}
	sbx_table_close(t);
	return NULL;
}

static void test_no_torn_rows(void)
{
	db = open_fresh("torn");
	REQUIRE(db);
	sbx_family_desc f[2];
	sbx_family_desc_init(&f[0], "f1");
	sbx_family_desc_init(&f[1], "f2");
	CHECK_INT(sbx_table_create(db, "t", f, 2), SBX_OK);
	pthread_t th[WRITERS + READERS];
	atomic_store(&stop, false);
	for (long i = 0; i < WRITERS; i++)
		pthread_create(&th[i], NULL, writer, (void *)i);
	for (long i = 0; i < READERS; i++)
		pthread_create(&th[WRITERS + i], NULL, reader, (void *)i);
	sleep(2);
	atomic_store(&stop, true);
	for (int i = 0; i < WRITERS + READERS; i++)
		pthread_join(th[i], NULL);
	CHECK_INT(atomic_load(&torn), 0);
	CHECK(atomic_load(&reads) > 100);
	sbx_db_close(db);
}

#define INCR_THREADS 4
#define INCR_EACH 500

static void *incrementer(void *arg)
{
	(void)arg;
	sbx_table *t;
	if (sbx_table_open(&t, db, "t"))
		return NULL;
	for (int i = 0; i < INCR_EACH; i++) {
		sbx_mutation *m;
		sbx_mutation_new(&m, "counter", 7);
		sbx_mutation_increment(m, "f1", "n", 1, 1);
		sbx_table_mutate(NULL, t, m);
		sbx_mutation_free(m);
	}
	sbx_table_close(t);
	return NULL;
}

static atomic_int winners;

static void *claimer(void *arg)
{
	long id = (long)arg;
	sbx_table *t;
	if (sbx_table_open(&t, db, "t"))
		return NULL;
	sbx_mutation *m;
	char v[8];
	snprintf(v, sizeof v, "%ld", id);
	sbx_mutation_new(&m, "lock", 4);
	sbx_mutation_put(m, "f1", "owner", 5, SBX_LATEST_TIMESTAMP, v, strlen(v));
	sbx_check c = {"f1", "owner", 5, SBX_CMP_EQUAL, NULL, 0};
	bool ok = false;
	if (!sbx_table_check_and_mutate(&ok, NULL, t, "lock", 4, &c, m) && ok)
		atomic_fetch_add(&winners, 1);
	sbx_mutation_free(m);
	sbx_table_close(t);
	return NULL;
}

static void test_counters_and_cas(void)
{
	db = open_fresh("counters");
	REQUIRE(db);
	CHECK_INT(make_table(db, "t", "f1", 1), SBX_OK);
	pthread_t th[16];
	for (long i = 0; i < INCR_THREADS; i++)
		pthread_create(&th[i], NULL, incrementer, (void *)i);
	for (int i = 0; i < INCR_THREADS; i++)
		pthread_join(th[i], NULL);
	sbx_table *t;
	CHECK_INT(sbx_table_open(&t, db, "t"), SBX_OK);
	sbx_result *r;
	CHECK_INT(sbx_table_get(&r, t, "counter", 7, NULL), SBX_OK);
	const sbx_cell *c = sbx_result_get(r, "f1", "n", 1);
	REQUIRE(c && c->value_len == 8);
	uint64_t n = 0;
	for (int i = 0; i < 8; i++)
		n = (n << 8) | c->value[i];
	CHECK_INT(n, INCR_THREADS * INCR_EACH);
	sbx_result_free(r);
	atomic_store(&winners, 0);
	for (long i = 0; i < 16; i++)
		pthread_create(&th[i], NULL, claimer, (void *)i);
	for (int i = 0; i < 16; i++)
		pthread_join(th[i], NULL);
	CHECK_INT(atomic_load(&winners), 1);
	sbx_table_close(t);
	sbx_db_close(db);
}

/* ---- a major compaction runs beside the table's reads and writes ---- */

#define MC_ROWS 20000
#define MC_VALUE 1000

static atomic_int compacting; /* 1 while sbx_table_major_compact runs */
static atomic_int compact_rc;

static void *compactor(void *arg)
{
	(void)arg;
	atomic_store(&compacting, 1);
	atomic_store(&compact_rc, sbx_table_major_compact(db, "t"));
	atomic_store(&compacting, 2);
	return NULL;
}

static void mc_row(char *row, size_t cap, long i)
{
	snprintf(row, cap, "row%06ld", i);
}

/* Each row's value: its number and the round that wrote it, padded with
 * 'x' to MC_VALUE bytes (a string). */
static void mc_value(char *v, long i, int round)
{
	memset(v, 'x', MC_VALUE);
	v[MC_VALUE] = 0;
	char head[32];
	int n = snprintf(head, sizeof head, "%ld/%d", i, round);
	memcpy(v, head, (size_t)n);
}

static int mc_put(sbx_table *t, long i, int round)
{
	char row[32], v[MC_VALUE + 1];
	mc_row(row, sizeof row, i);
	mc_value(v, i, round);
	return put1(t, row, "f1", "q", SBX_LATEST_TIMESTAMP, v);
}

static bool mc_get_is(sbx_table *t, long i, int round)
{
	char row[32], v[MC_VALUE + 1];
	mc_row(row, sizeof row, i);
	mc_value(v, i, round);
	sbx_result *r;
	if (sbx_table_get(&r, t, row, strlen(row), NULL))
		return false;
	const sbx_cell *c = sbx_result_get(r, "f1", "q", 1);
	bool ok = c && c->value_len == MC_VALUE && !memcmp(c->value, v, MC_VALUE);
	sbx_result_free(r);
	return ok;
}

static void test_compaction_keeps_table_open(void)
{
	SKIP_ON_REMOTE("HBase REST has no major compaction endpoint");
	SKIP_ON_BIGTABLE("Bigtable compacts on its own; no major compaction call");
	db = open_fresh("compact");
	REQUIRE(db);
	CHECK_INT(make_table(db, "t", "f1", 1), SBX_OK);
	sbx_table *t;
	REQUIRE(sbx_table_open(&t, db, "t") == SBX_OK);
	/* Three rounds of 20 MB, each overwriting the last, each flushed:
	 * the compaction rewrites three files and drops two versions of
	 * every row, work of a few hundred milliseconds at least. */
	for (int round = 0; round < 3; round++) {
		for (long i = 0; i < MC_ROWS; i++)
			REQUIRE(mc_put(t, i, round) == SBX_OK);
		CHECK_INT(sbx_table_flush(db, "t"), SBX_OK);
	}
	atomic_store(&compacting, 0);
	pthread_t th;
	pthread_create(&th, NULL, compactor, NULL);
	while (atomic_load(&compacting) == 0)
		sched_yield();
	/* Gets and puts while it runs; an operation counts only if the
	 * compaction was still running when it returned. The puts write
	 * round 3 of rows from the top down. */
	long during = 0, bad = 0, put = 0;
	for (long k = 0; atomic_load(&compacting) == 1; k++) {
		long i = (k * 7919) % MC_ROWS;
		bool ok = mc_get_is(t, i, i >= MC_ROWS - put ? 3 : 2);
		if (mc_put(t, MC_ROWS - 1 - put, 3) == SBX_OK)
			put++;
		else
			bad++;
		if (!ok)
			bad++;
		if (atomic_load(&compacting) == 1)
			during++;
	}
	pthread_join(th, NULL);
	CHECK_INT(atomic_load(&compact_rc), SBX_OK);
	CHECK_INT(bad, 0);
	/* Under an exclusive table lock none would complete during it. */
	printf("  %ld get+put pairs completed during the compaction\n", during);
	CHECK(during >= 20);
	/* Every row reads its last value after it. */
	long wrong = 0;
	for (long i = 0; i < MC_ROWS; i++)
		if (!mc_get_is(t, i, i >= MC_ROWS - put ? 3 : 2))
			wrong++;
	CHECK_INT(wrong, 0);
	sbx_table_close(t);
	sbx_db_close(db);
}

/* Gets (which hold the table's lock throughout and take no reference to
 * the table or its families) and scans (which do, between rows) while
 * another thread adds and deletes a family, alters one, disables and
 * enables the table, and at last drops it: every read returns the row's
 * value or a clean error naming why (the table disabled or gone, the
 * family deleted), never a crash or a freed family (ASan in CI). */
static atomic_long schema_reads, schema_errors, schema_wrong;

static void *schema_reader(void *arg)
{
	sbx_table *t = arg;
	for (long i = 0; !atomic_load(&stop); i++) {
		char row[8];
		snprintf(row, sizeof row, "r%ld", i % ROWS);
		sbx_result *r = NULL;
		int rc = sbx_table_get(&r, t, row, strlen(row), NULL);
		if (rc == SBX_OK) {
			const sbx_cell *c = sbx_result_get(r, "f1", "a", 1);
			if (!c || c->value_len != 1 || c->value[0] != 'v')
				atomic_fetch_add(&schema_wrong, 1);
			sbx_result_free(r);
			atomic_fetch_add(&schema_reads, 1);
		} else if (rc == SBX_EDISABLED || rc == SBX_ENOTFOUND) {
			atomic_fetch_add(&schema_errors, 1);
		} else {
			atomic_fetch_add(&schema_wrong, 1);
		}
		if (i % 16)
			continue;
		sbx_scanner *sc = NULL;
		sbx_scan_opts o;
		sbx_scan_opts_init(&o);
		if (sbx_scanner_open(&sc, t, &o) != SBX_OK) {
			atomic_fetch_add(&schema_errors, 1);
			continue;
		}
		while ((rc = sbx_scanner_next(sc, &r)) == SBX_OK)
			sbx_result_free(r);
		if (rc != SBX_ITEROVER && rc != SBX_EDISABLED &&
		    rc != SBX_ENOTFOUND)
			atomic_fetch_add(&schema_wrong, 1);
		sbx_scanner_close(sc);
	}
	return NULL;
}

static void test_reads_while_schema_changes(void)
{
	SKIP_ON_REMOTE("runs the embedded engine's schema calls");
	SKIP_ON_BIGTABLE("runs the embedded engine's schema calls");
	db = open_fresh("schema_reads");
	REQUIRE(db);
	CHECK_INT(make_table(db, "t", "f1", 1), SBX_OK);
	sbx_table *t;
	REQUIRE(sbx_table_open(&t, db, "t") == SBX_OK);
	for (int i = 0; i < ROWS; i++) {
		char row[8];
		snprintf(row, sizeof row, "r%d", i);
		CHECK_INT(put1(t, row, "f1", "a", SBX_LATEST_TIMESTAMP, "v"),
			  SBX_OK);
	}
	atomic_store(&stop, false);
	pthread_t th[READERS];
	for (int i = 0; i < READERS; i++)
		REQUIRE(pthread_create(&th[i], NULL, schema_reader, t) == 0);
	int failed = 0;
	for (int round = 0; round < 20; round++) {
		sbx_family_desc g;
		sbx_family_desc_init(&g, "g");
		g.max_versions = 1 + round % 3;
		failed += sbx_table_alter_family(db, "t", &g) != SBX_OK;
		failed += sbx_table_alter_family(db, "t", &g) != SBX_OK;
		failed += sbx_table_delete_family(db, "t", "g") != SBX_OK;
		if (round % 5 == 4) {
			failed += sbx_table_disable(db, "t") != SBX_OK;
			failed += sbx_table_enable(db, "t") != SBX_OK;
		}
	}
	failed += sbx_table_disable(db, "t") != SBX_OK;
	failed += sbx_table_drop(db, "t") != SBX_OK;
	for (int i = 0; i < 2000 && atomic_load(&schema_errors) < 50; i++)
		sched_yield(); /* reads meet the dropped table a while */
	atomic_store(&stop, true);
	for (int i = 0; i < READERS; i++)
		pthread_join(th[i], NULL);
	printf("  %ld gets answered, %ld refused (disabled or dropped)\n",
	       atomic_load(&schema_reads), atomic_load(&schema_errors));
	CHECK_INT(failed, 0);
	CHECK_INT(atomic_load(&schema_wrong), 0);
	CHECK(atomic_load(&schema_reads) > 0);
	CHECK(atomic_load(&schema_errors) > 0);
	sbx_table_close(t);
	sbx_db_close(db);
}

TEST_MAIN(T(test_no_torn_rows), T(test_counters_and_cas),
	  T(test_compaction_keeps_table_open),
	  T(test_reads_while_schema_changes))
