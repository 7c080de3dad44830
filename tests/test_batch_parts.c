/*
 * test_batch_parts.c - Table.batch over many rows (src/engine/write.c
 * engine_batch): a batch whose rows lock many stripes, written while
 * another batch is, goes in parts, one range of stripes after another, so
 * concurrent batches can write at once. Checked with the values written
 * out, while another thread writes large batches to another table (so
 * the batch checked is written in parts): each mutation's own status
 * (failures scattered through every part, read-modify-writes among them),
 * a row given twice keeping its batch order in its timestamps, every row
 * read back; and batches of overlapping rows from several threads at once
 * losing no write (each row holds exactly the versions written to it, all
 * with distinct timestamps) and never deadlocking.
 */
#include "engine_util.h"

#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

static sbx_db *db;
static sbx_table *t; /* "t" in db: open_fresh_table */

static sbx_mutation *put_m(const char *row, const char *fam, const char *q,
			   const char *val)
{
	sbx_mutation *m = NULL;
	CHECK_INT(sbx_mutation_new(&m, row, strlen(row)), SBX_OK);
	if (m)
		CHECK_INT(sbx_mutation_put(m, fam, q, strlen(q),
					   SBX_LATEST_TIMESTAMP, val,
					   strlen(val)), SBX_OK);
	return m;
}

#define ROWS 800
#define AGAIN 200 /* rows 0..AGAIN-1 written a second time, later */

/* Large batches to table "u" until *stop: keeps a batch in flight. */
static void *busy_batches(void *arg)
{
	_Atomic bool *stop = arg;
	sbx_table *u = NULL;
	if (sbx_table_open(&u, db, "u"))
		return NULL;
	enum { N = 4000 };
	static sbx_mutation *ms[N];
	char row[32];
	for (int round = 0; !atomic_load(stop); round++) {
		for (int i = 0; i < N; i++) {
			snprintf(row, sizeof row, "b%06d", (i * 7919) % N);
			ms[i] = put_m(row, "cf", "q", "busy");
		}
		(void)sbx_table_batch(NULL, u, ms, N);
		for (int i = 0; i < N; i++)
			sbx_mutation_free(ms[i]);
	}
	sbx_table_close(u);
	return NULL;
}

/* One batch of ROWS + AGAIN mutations: every 50th names a family the table
 * lacks, every 97th (not a 50th) is an increment; then the first AGAIN
 * rows again with another value. */
static void test_large_batch_statuses(void)
{
	open_fresh_table(&db, &t, "batch_parts", 3);
	REQUIRE(t);
	REQUIRE(make_table(db, "u", "cf", 1) == SBX_OK);
	_Atomic bool stop = false;
	pthread_t busy;
	REQUIRE(pthread_create(&busy, NULL, busy_batches, &stop) == 0);
	struct timespec pause = {0, 20 * 1000000}; /* its first batch begun */
	nanosleep(&pause, NULL);
	sbx_mutation *ms[ROWS + AGAIN];
	char row[32], val[32];
	for (int i = 0; i < ROWS; i++) {
		snprintf(row, sizeof row, "row%05d", i);
		snprintf(val, sizeof val, "v%d", i);
		if (i % 50 == 0) {
			ms[i] = put_m(row, "nope", "q", val);
		} else if (i % 97 == 0) {
			REQUIRE(sbx_mutation_new(&ms[i], row, strlen(row)) ==
				SBX_OK);
			CHECK_INT(sbx_mutation_increment(ms[i], "cf", "n", 1, 5),
				  SBX_OK);
		} else {
			ms[i] = put_m(row, "cf", "q", val);
		}
	}
	for (int k = 0; k < AGAIN; k++) {
		snprintf(row, sizeof row, "row%05d", k);
		snprintf(val, sizeof val, "again%d", k);
		ms[ROWS + k] = put_m(row, "cf", "q", val);
	}
	int st[ROWS + AGAIN];
	CHECK_INT(sbx_table_batch(st, t, ms, ROWS + AGAIN), SBX_ENOFAMILY);
	atomic_store(&stop, true);
	pthread_join(busy, NULL);
	int wrong = 0;
	for (int i = 0; i < ROWS + AGAIN; i++) {
		int want = i < ROWS && i % 50 == 0 ? SBX_ENOFAMILY : SBX_OK;
		wrong += st[i] != want;
	}
	CHECK_INT(wrong, 0);
	for (int i = 0; i < ROWS + AGAIN; i++)
		sbx_mutation_free(ms[i]);

	/* read back: q newest first, with distinct timestamps; n for the
	 * increments */
	sbx_read_opts o;
	sbx_read_opts_init(&o);
	o.max_versions = 3;
	int bad = 0;
	for (int i = 0; i < ROWS; i++) {
		snprintf(row, sizeof row, "row%05d", i);
		sbx_result *r = NULL;
		REQUIRE(sbx_table_get(&r, t, row, strlen(row), &o) == SBX_OK);
		size_t n;
		const sbx_cell *c = sbx_result_cells(r, &n);
		/* the cells expected, in the result's order (n < q) */
		char want[2][32];
		int nwant = 0;
		bool counter = i % 50 != 0 && i % 97 == 0;
		if (i < AGAIN)
			snprintf(want[nwant++], 32, "again%d", i);
		if (i % 50 != 0 && !counter)
			snprintf(want[nwant++], 32, "v%d", i);
		size_t expect = (size_t)nwant + (counter ? 1 : 0);
		if (n != expect) {
			bad++;
			sbx_result_free(r);
			continue;
		}
		size_t k = 0;
		if (counter) {
			static const uint8_t five[8] = {0, 0, 0, 0, 0, 0, 0, 5};
			bad += !(c[0].qualifier_len == 1 &&
				 memcmp(c[0].qualifier, "n", 1) == 0 &&
				 c[0].value_len == 8 &&
				 memcmp(c[0].value, five, 8) == 0);
			k = 1;
		}
		for (int w = 0; w < nwant; w++, k++) {
			bad += !(c[k].qualifier_len == 1 &&
				 memcmp(c[k].qualifier, "q", 1) == 0 &&
				 c[k].value_len == strlen(want[w]) &&
				 memcmp(c[k].value, want[w], c[k].value_len) ==
					 0);
			if (w)
				bad += !(c[k].timestamp < c[k - 1].timestamp);
		}
		sbx_result_free(r);
	}
	CHECK_INT(bad, 0);
	close_table_db(&db, &t);
}

/* ---- concurrent batches over shared rows ---------------------------------- */

#define THREADS 4
#define BATCHES 12
#define PER_BATCH 300
#define SPACE 1500 /* rows drawn from */

typedef struct {
	int id;
	int failed; /* batches not SBX_OK */
} writer;

static unsigned draw(unsigned *x)
{
	*x = *x * 1103515245u + 12345u;
	return (*x >> 8) % SPACE;
}

static void *write_batches(void *arg)
{
	writer *w = arg;
	unsigned x = 7919u * (unsigned)(w->id + 1);
	sbx_mutation *ms[PER_BATCH];
	char row[32], val[32];
	for (int b = 0; b < BATCHES; b++) {
		for (int i = 0; i < PER_BATCH; i++) {
			snprintf(row, sizeof row, "r%04u", draw(&x));
			snprintf(val, sizeof val, "t%d-b%d-%d", w->id, b, i);
			ms[i] = put_m(row, "cf", "q", val);
		}
		if (sbx_table_batch(NULL, t, ms, PER_BATCH) != SBX_OK)
			w->failed++;
		for (int i = 0; i < PER_BATCH; i++)
			sbx_mutation_free(ms[i]);
	}
	return NULL;
}

static void test_concurrent_batches_lose_nothing(void)
{
	open_fresh_table(&db, &t, "batch_parts_threads", 100000);
	REQUIRE(t);
	/* how often each row is written: the writers' draws, replayed */
	static int times[SPACE];
	memset(times, 0, sizeof times);
	for (int id = 0; id < THREADS; id++) {
		unsigned x = 7919u * (unsigned)(id + 1);
		for (int k = 0; k < BATCHES * PER_BATCH; k++)
			times[draw(&x)]++;
	}
	pthread_t th[THREADS];
	writer w[THREADS];
	for (int i = 0; i < THREADS; i++) {
		w[i] = (writer){.id = i};
		REQUIRE(pthread_create(&th[i], NULL, write_batches, &w[i]) == 0);
	}
	int failed = 0;
	for (int i = 0; i < THREADS; i++) {
		pthread_join(th[i], NULL);
		failed += w[i].failed;
	}
	CHECK_INT(failed, 0);
	sbx_read_opts o;
	sbx_read_opts_init(&o);
	o.max_versions = 0; /* all */
	int wrong_count = 0, same_ts = 0, rows = 0;
	for (int k = 0; k < SPACE; k++) {
		char row[32];
		snprintf(row, sizeof row, "r%04d", k);
		sbx_result *r = NULL;
		REQUIRE(sbx_table_get(&r, t, row, strlen(row), &o) == SBX_OK);
		size_t n;
		const sbx_cell *c = sbx_result_cells(r, &n);
		wrong_count += n != (size_t)times[k];
		for (size_t i = 1; i < n; i++)
			same_ts += !(c[i].timestamp < c[i - 1].timestamp);
		rows += n > 0;
		sbx_result_free(r);
	}
	CHECK_INT(wrong_count, 0);
	CHECK_INT(same_ts, 0);
	printf("  %d batches of %d rows from %d threads: %d rows, every "
	       "version kept\n", THREADS * BATCHES, PER_BATCH, THREADS, rows);
	close_table_db(&db, &t);
}

TEST_MAIN(T(test_large_batch_statuses),
	  T(test_concurrent_batches_lose_nothing))
