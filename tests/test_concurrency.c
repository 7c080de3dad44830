/*
 * test_concurrency.c - row atomicity under concurrent writers and readers:
 * every write sets all columns of a row (in two families) to one value, and
 * readers (gets and scans) must never see a row with mixed values. Also
 * concurrent increments on one counter must not lose an update, and
 * concurrent check-and-put must let exactly one writer win.
 */
#include "engine_util.h"

#include <pthread.h>
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

TEST_MAIN(T(test_no_torn_rows), T(test_counters_and_cas))
