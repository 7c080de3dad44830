/*
 * test_kept_iterator.c - the embedded engine keeps a get's RocksDB
 * iterator with the table's parked reader for the next get (src/engine/
 * reader.c): gets of other rows through it (rows that are prefixes of
 * each other, a missing row between two, scans and filtered gets between
 * gets) read exactly what a fresh iterator reads; every way the table
 * changes drops it (a put, a batch, a multi-row write, flush, major
 * compaction, truncate, bulk load, a family deleted) so no get reads
 * a store older than a write that returned; it is not reused once older
 * than 100 ms; and a database closed with one kept closes cleanly. The row cache is off, so every get goes
 * through RocksDB. Whether one is kept is read from the engine's table.
 */
#include "common/clock.h"
#include "engine/engine.h"
#include "engine/reader.h"
#include "engine_util.h"
#include "model/backend.h"

#include <pthread.h>

/* The test clock: gets see no time pass unless the test moves it. */
static int64_t fake_now;

static int64_t fake_clock(void)
{
	return fake_now;
}

static void freeze_clock(void)
{
	fake_now = sbx_clock_now_ms();
	sbx_clock_set(fake_clock);
}

static char dbdir[4096];

/* The store in dbdir (kept), row cache off. */
static sbx_db *open_uncached(void)
{
	sbx_db_options o;
	sbx_db_options_init(&o);
	o.row_cache_bytes = 0;
	sbx_db *d = NULL;
	if (sbx_db_open(&d, dbdir, &o))
		fprintf(stderr, "open: %s\n", sbx_errmsg());
	return d;
}

/* The iterator table `name`'s parked reader (this thread's) keeps (NULL:
 * none), and when it was made; its slot is marked exactly when it keeps
 * one. Reads the engine's state: no get may run meanwhile. */
static rocksdb_iterator_t *kept(sbx_db *d, const char *name, int64_t *made_ms)
{
	table *t;
	if (engine_table_get(&t, (engine *)d->impl, name))
		return NULL;
	/* this thread's slot: the test's gets all run on it */
	unsigned slot = engine_thread_index() % TABLE_SPARE_READERS;
	parked_reader *p = atomic_load(&t->spare_reader[slot].p);
	rocksdb_iterator_t *it = p ? ((reader *)p)->kept_it : NULL;
	if (made_ms)
		*made_ms = p ? ((reader *)p)->it_ms : 0;
	bool flag = atomic_load(&t->spare_iterators) & 1u << slot;
	table_unref(t);
	CHECK(flag == (it != NULL));
	return it;
}

/* "row=value" of f:q, or "row=" when the get finds nothing. */
static const char *row_str(sbx_table *t, const char *row)
{
	static char out[256];
	sbx_result *r;
	if (sbx_table_get(&r, t, row, strlen(row), NULL)) {
		snprintf(out, sizeof out, "error: %s", sbx_errmsg());
		return out;
	}
	const sbx_cell *c = sbx_result_get(r, "f", "q", 1);
	snprintf(out, sizeof out, "%s=%.*s", row, c ? (int)c->value_len : 0,
		 c ? (const char *)c->value : "");
	sbx_result_free(r);
	return out;
}

static void put(sbx_table *t, const char *row, const char *v)
{
	CHECK_INT(put1(t, row, "f", "q", SBX_LATEST_TIMESTAMP, v), SBX_OK);
}

static sbx_db *db;
static sbx_table *tb;

static void setup(const char *name)
{
	snprintf(dbdir, sizeof dbdir, "%s", test_dir(name));
	db = open_uncached();
	REQUIRE(db);
	CHECK_INT(make_table(db, "t", "f", 3), SBX_OK);
	REQUIRE(sbx_table_open(&tb, db, "t") == SBX_OK);
	const char *rows[] = {"r1", "r10", "r1x", "r2", "r3", "s"};
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		char v[16];
		snprintf(v, sizeof v, "v-%s", rows[i]);
		put(tb, rows[i], v);
	}
}

static void teardown(void)
{
	sbx_table_close(tb);
	sbx_db_close(db);
}

static void test_gets_through_one_iterator(void)
{
	setup("kept_gets");
	freeze_clock(); /* no 100 ms limit reached, however slow the host */
	CHECK_STR(row_str(tb, "r1"), "r1=v-r1");
	rocksdb_iterator_t *it = kept(db, "t", NULL);
	CHECK(it != NULL);
	/* neighbours, prefixes of each other, missing rows between them and
	 * past the last: each its own row only */
	const char *expect[][2] = {
	    {"r10", "r10=v-r10"}, {"r1", "r1=v-r1"},  {"r1x", "r1x=v-r1x"},
	    {"r15", "r15="},      {"r2", "r2=v-r2"},  {"r", "r="},
	    {"r0", "r0="},        {"r3", "r3=v-r3"},  {"r4", "r4="},
	    {"s", "s=v-s"},       {"t", "t="},        {"r1", "r1=v-r1"},
	};
	for (size_t i = 0; i < sizeof expect / sizeof expect[0]; i++)
		CHECK_STR(row_str(tb, expect[i][0]), expect[i][1]);
	/* the same iterator all along (nothing changed, within 100 ms) */
	CHECK(kept(db, "t", NULL) == it);
	/* a scan and a filtered get between gets use the parked reader too */
	sbx_scan_opts so;
	sbx_scan_opts_init(&so);
	so.start_row = (const uint8_t *)"r10";
	so.start_row_len = 3;
	so.limit = 2;
	sbx_scanner *s;
	REQUIRE(sbx_scanner_open(&s, tb, &so) == SBX_OK);
	sbx_result *r;
	int n = 0;
	while (sbx_scanner_next(s, &r) == SBX_OK && r) {
		n++;
		sbx_result_free(r);
	}
	sbx_scanner_close(s);
	CHECK_INT(n, 2);
	CHECK_STR(row_str(tb, "r2"), "r2=v-r2");
	CHECK_STR(row_str(tb, "r15"), "r15=");
	sbx_read_opts ro;
	sbx_read_opts_init(&ro);
	sbx_filter *f = NULL;
	const char *ft = "ValueFilter(=, 'binary:v-r3')";
	CHECK_INT(sbx_filter_parse(&f, ft, strlen(ft), NULL), SBX_OK);
	ro.filter = f;
	CHECK_INT(sbx_table_get(&r, tb, "r3", 2, &ro), SBX_OK);
	CHECK_INT(sbx_result_size(r), 1);
	sbx_result_free(r);
	CHECK_INT(sbx_table_get(&r, tb, "r2", 2, &ro), SBX_OK);
	CHECK_INT(sbx_result_size(r), 0);
	sbx_result_free(r);
	sbx_filter_free(f);
	CHECK_STR(row_str(tb, "r1x"), "r1x=v-r1x");
	CHECK(kept(db, "t", NULL) == it);
	sbx_clock_set(NULL);
	teardown();
}

/* A get, then `change`: none kept after it, and the next get reads what
 * the change left (want). */
typedef void (*change_fn)(void);

static void after(const char *what, change_fn change, const char *row,
		  const char *want)
{
	CHECK_STR(row_str(tb, "r1"), "r1=v-r1");
	CHECK(kept(db, "t", NULL) != NULL);
	change();
	if (kept(db, "t", NULL))
		fprintf(stderr, "still kept after %s\n", what);
	CHECK(kept(db, "t", NULL) == NULL);
	CHECK_STR(row_str(tb, row), want);
}

static void do_put(void) { put(tb, "r2", "new"); }

static void do_batch(void)
{
	sbx_mutation *m[2];
	CHECK_INT(sbx_mutation_new(&m[0], "r3", 2), SBX_OK);
	CHECK_INT(sbx_mutation_put(m[0], "f", "q", 1, SBX_LATEST_TIMESTAMP,
				   "b3", 2), SBX_OK);
	CHECK_INT(sbx_mutation_new(&m[1], "s", 1), SBX_OK);
	CHECK_INT(sbx_mutation_put(m[1], "f", "q", 1, SBX_LATEST_TIMESTAMP,
				   "bs", 2), SBX_OK);
	int st[2] = {-1, -1};
	CHECK_INT(sbx_table_batch(st, tb, m, 2), SBX_OK);
	CHECK_INT(st[0], SBX_OK);
	CHECK_INT(st[1], SBX_OK);
	sbx_mutation_free(m[0]);
	sbx_mutation_free(m[1]);
}

static void do_delete(void)
{
	CHECK_INT(del1(tb, "r10", SBX_CELL_DELETE_COLUMN, "f", "q",
		       SBX_LATEST_TIMESTAMP), SBX_OK);
}

static void do_flush(void) { CHECK_INT(sbx_table_flush(db, "t"), SBX_OK); }

static void do_compact(void)
{
	CHECK_INT(sbx_table_major_compact(db, "t"), SBX_OK);
}

static void do_truncate(void)
{
	CHECK_INT(sbx_table_truncate(db, "t"), SBX_OK);
}

static void do_bulk(void)
{
	char dir[4200];
	snprintf(dir, sizeof dir, "%s", test_dir("kept_bulk")); /* made by the writer */
	sbx_bulk_writer *w;
	CHECK_INT(sbx_bulk_writer_open(&w, db, "t", dir), SBX_OK);
	REQUIRE(w);
	CHECK_INT(sbx_bulk_writer_put(w, "r5", 2, "f", "q", 1, 7, "bulk", 4),
		  SBX_OK);
	CHECK_INT(sbx_bulk_writer_finish(w), SBX_OK);
	CHECK_INT(sbx_table_bulk_load(db, "t", dir), SBX_OK);
}

static void test_changes_drop_it(void)
{
	setup("kept_changes");
	freeze_clock(); /* each get's iterator is kept, however slow the host */
	after("a put", do_put, "r2", "r2=new");
	after("a batch", do_batch, "r3", "r3=b3");
	after("a delete", do_delete, "r10", "r10=");
	after("a flush", do_flush, "s", "s=bs");
	after("a major compaction", do_compact, "r2", "r2=new");
	after("a bulk load", do_bulk, "r5", "r5=bulk");
	/* a multi-row write (the transactions' atomic path) */
	CHECK_STR(row_str(tb, "r1"), "r1=v-r1");
	CHECK(kept(db, "t", NULL) != NULL);
	sbx_mutation *m;
	CHECK_INT(sbx_mutation_new(&m, "r1x", 3), SBX_OK);
	CHECK_INT(sbx_mutation_put(m, "f", "q", 1, SBX_LATEST_TIMESTAMP,
				   "multi", 5), SBX_OK);
	sbx_row_change ch = {.table = tb, .row = "r1x", .row_len = 3,
			     .mutation = m};
	bool ok = false;
	size_t failed = 0;
	CHECK_INT(sbx_db_check_and_mutate_rows(&ok, &failed, db, &ch, 1),
		  SBX_OK);
	CHECK(ok);
	sbx_mutation_free(m);
	CHECK(kept(db, "t", NULL) == NULL);
	CHECK_STR(row_str(tb, "r1x"), "r1x=multi");
	/* last: truncate empties the table */
	after("a truncate", do_truncate, "r1", "r1=");
	sbx_clock_set(NULL);
	teardown();
}

static void test_old_iterator_not_reused(void)
{
	setup("kept_age");
	freeze_clock();
	CHECK_STR(row_str(tb, "r1"), "r1=v-r1");
	int64_t made = 0, made2 = 0;
	rocksdb_iterator_t *it = kept(db, "t", &made);
	CHECK(it != NULL);
	CHECK(made == fake_now);
	fake_now += 99; /* still young: the same one */
	CHECK_STR(row_str(tb, "r2"), "r2=v-r2");
	CHECK(kept(db, "t", &made2) == it);
	CHECK(made2 == made);
	fake_now += 1; /* 100 ms old: a new one, made now */
	CHECK_STR(row_str(tb, "r3"), "r3=v-r3");
	CHECK(kept(db, "t", &made2) != NULL);
	CHECK(made2 == made + 100);
	sbx_clock_set(NULL);
	teardown();
}

static void test_close_with_one_kept(void)
{
	setup("kept_close");
	CHECK_STR(row_str(tb, "r3"), "r3=v-r3");
	CHECK(kept(db, "t", NULL) != NULL);
	/* a family deleted under it: dropped first */
	sbx_family_desc g;
	sbx_family_desc_init(&g, "g");
	CHECK_INT(sbx_table_alter_family(db, "t", &g), SBX_OK);
	CHECK_STR(row_str(tb, "r3"), "r3=v-r3");
	CHECK_INT(sbx_table_delete_family(db, "t", "g"), SBX_OK);
	CHECK(kept(db, "t", NULL) == NULL);
	CHECK_STR(row_str(tb, "s"), "s=v-s");
	CHECK(kept(db, "t", NULL) != NULL);
	/* the handle closed, the table (the catalog's) keeps its parked
	 * reader and iterator until the database closes: RocksDB
	 * (assertions on in Debian's build) must find none left */
	sbx_table_close(tb);
	CHECK(kept(db, "t", NULL) != NULL);
	sbx_db_close(db);
	db = open_uncached();
	REQUIRE(db);
	REQUIRE(sbx_table_open(&tb, db, "t") == SBX_OK);
	CHECK_STR(row_str(tb, "s"), "s=v-s");
	teardown();
}

/* Threads reading one table each park their own reader (and iterator)
 * in their own slot; one write drops every kept iterator, and a database
 * closed with several kept closes cleanly. */
#define READ_THREADS 4

typedef struct reads {
	sbx_table *t;
	int wrong;     /* gets that did not find the row's value */
	unsigned slot; /* the thread's parking slot */
} reads;

static void *get_rows(void *arg)
{
	reads *a = arg;
	for (int i = 0; i < 200; i++) {
		const char *row = i % 2 ? "r3" : "s";
		char want[16];
		snprintf(want, sizeof want, "v-%s", row);
		sbx_result *r = NULL;
		const sbx_cell *c = NULL;
		if (sbx_table_get(&r, a->t, row, strlen(row), NULL) == SBX_OK)
			c = sbx_result_get(r, "f", "q", 1);
		a->wrong += !c || c->value_len != strlen(want) ||
			    memcmp(c->value, want, c->value_len);
		sbx_result_free(r);
	}
	a->slot = engine_thread_index() % TABLE_SPARE_READERS;
	return NULL;
}

static void test_threads_park_their_own(void)
{
	setup("kept_threads");
	reads a[READ_THREADS];
	pthread_t th[READ_THREADS];
	for (int i = 0; i < READ_THREADS; i++) {
		a[i] = (reads){.t = tb};
		REQUIRE(pthread_create(&th[i], NULL, get_rows, &a[i]) == 0);
	}
	for (int i = 0; i < READ_THREADS; i++)
		pthread_join(th[i], NULL);
	table *t;
	REQUIRE(engine_table_get(&t, (engine *)db->impl, "t") == SBX_OK);
	/* each thread its own slot (indexes are given in turn), its reader
	 * parked there with the iterator of its last get, the slot marked */
	unsigned slots = 0;
	for (int i = 0; i < READ_THREADS; i++) {
		CHECK_INT(a[i].wrong, 0);
		slots |= 1u << a[i].slot;
		parked_reader *p = atomic_load(&t->spare_reader[a[i].slot].p);
		CHECK(p && ((reader *)p)->kept_it);
	}
	CHECK_INT(__builtin_popcount(slots), READ_THREADS);
	CHECK((atomic_load(&t->spare_iterators) & slots) == slots);
	int with_iterator;
	put(tb, "r3", "v-r3"); /* a write: every marked slot swept */
	with_iterator = 0;
	for (int i = 0; i < TABLE_SPARE_READERS; i++) {
		parked_reader *p = atomic_load(&t->spare_reader[i].p);
		with_iterator += p && ((reader *)p)->kept_it;
	}
	CHECK_INT(with_iterator, 0);
	CHECK_INT((long long)atomic_load(&t->spare_iterators), 0);
	table_unref(t);
	/* several kept again, then the database closed under them */
	for (int i = 0; i < READ_THREADS; i++)
		REQUIRE(pthread_create(&th[i], NULL, get_rows, &a[i]) == 0);
	for (int i = 0; i < READ_THREADS; i++)
		pthread_join(th[i], NULL);
	teardown();
}

TEST_MAIN(T(test_gets_through_one_iterator), T(test_changes_drop_it),
	  T(test_old_iterator_not_reused), T(test_close_with_one_kept),
	  T(test_threads_park_their_own))
