/*
 * test_multirow.c - sbx_db_check_and_mutate_rows (include/saltbox/table.h),
 * the atomic conditional write across rows and tables: all checks pass
 * and every mutation lands, or one fails and nothing does; bad input
 * refused with nothing written; threads moving value between rows of two
 * tables in opposite orders (no deadlock, nothing lost); a process
 * SIGKILLed while writing leaves no torn write; the remote backend answers
 * SBX_EUNSUPPORTED.
 */
#include "engine_util.h"
#include "server/server.h"

#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

static sbx_db *db;
static sbx_table *ta, *tb;

static bool tables(void)
{
	ta = tb = NULL;
	return db && make_table(db, "ta", "cf", 1) == SBX_OK &&
	       make_table(db, "tb", "cf", 1) == SBX_OK &&
	       sbx_table_open(&ta, db, "ta") == SBX_OK &&
	       sbx_table_open(&tb, db, "tb") == SBX_OK;
}

static bool setup(const char *name)
{
	db = open_fresh(name);
	return tables();
}

static void teardown(void)
{
	sbx_table_close(ta);
	sbx_table_close(tb);
	sbx_db_close(db);
	db = NULL;
}

static sbx_mutation *put_m(const char *row, const char *v)
{
	sbx_mutation *m = NULL;
	if (sbx_mutation_new(&m, row, strlen(row)) ||
	    sbx_mutation_put(m, "cf", "v", 1, SBX_LATEST_TIMESTAMP, v,
			     strlen(v)))
		fprintf(stderr, "mutation: %s\n", sbx_errmsg());
	return m;
}

static sbx_check eq(const char *v)
{
	sbx_check c = {"cf", "v", 1, SBX_CMP_EQUAL, v, v ? strlen(v) : 0};
	return c;
}

static const char *val(sbx_table *t, const char *row)
{
	return get_str(t, row, NULL, false);
}

static void test_all_or_nothing(void)
{
	SKIP_ON_REMOTE("the REST gateway has no multi-row mutation");
	REQUIRE(setup("multirow_basic"));
	CHECK_INT(put1(ta, "x", "cf", "v", SBX_LATEST_TIMESTAMP, "1"), SBX_OK);
	CHECK_INT(put1(tb, "y", "cf", "v", SBX_LATEST_TIMESTAMP, "2"), SBX_OK);
	sbx_mutation *mx = put_m("x", "10"), *my = put_m("y", "20"),
		     *mz = put_m("z", "30");
	sbx_check cx = eq("1"), cy = eq("2"), cz = eq(NULL), bad = eq("9");
	sbx_row_change rows[] = {
	    {ta, "x", 1, &cx, mx},
	    {tb, "y", 1, &cy, my},
	    {ta, "z", 1, &cz, mz}, /* z absent: passes */
	};
	bool ok = true;
	size_t failed = 0;
	/* a failing check (index 1) writes nothing */
	rows[1].check = &bad;
	CHECK_INT(sbx_db_check_and_mutate_rows(&ok, &failed, db, rows, 3),
		  SBX_OK);
	CHECK(!ok);
	CHECK_INT(failed, 1);
	CHECK_STR(val(ta, "x"), "x/cf:v=1;");
	CHECK_STR(val(tb, "y"), "y/cf:v=2;");
	CHECK_STR(val(ta, "z"), "");
	/* all pass: all applied */
	rows[1].check = &cy;
	CHECK_INT(sbx_db_check_and_mutate_rows(&ok, &failed, db, rows, 3),
		  SBX_OK);
	CHECK(ok);
	CHECK(failed == SIZE_MAX);
	CHECK_STR(val(ta, "x"), "x/cf:v=10;");
	CHECK_STR(val(tb, "y"), "y/cf:v=20;");
	CHECK_STR(val(ta, "z"), "z/cf:v=30;");
	/* the same again: x is no longer 1 */
	CHECK_INT(sbx_db_check_and_mutate_rows(&ok, &failed, db, rows, 3),
		  SBX_OK);
	CHECK(!ok);
	CHECK_INT(failed, 0);
	/* checks only, and a mutation without a check */
	sbx_check c10 = eq("10"), c20 = eq("20");
	sbx_mutation *w = put_m("w", "w");
	sbx_row_change some[] = {
	    {ta, "x", 1, &c10, NULL},
	    {tb, "y", 1, &c20, NULL},
	    {tb, "w", 1, NULL, w},
	};
	CHECK_INT(sbx_db_check_and_mutate_rows(&ok, &failed, db, some, 3),
		  SBX_OK);
	CHECK(ok);
	CHECK_STR(val(tb, "w"), "w/cf:v=w;");
	sbx_mutation_free(mx);
	sbx_mutation_free(my);
	sbx_mutation_free(mz);
	sbx_mutation_free(w);
	teardown();
}

static void test_bad_input(void)
{
	SKIP_ON_REMOTE("the REST gateway has no multi-row mutation");
	REQUIRE(setup("multirow_bad"));
	sbx_mutation *mx = put_m("x", "1"), *my = put_m("y", "2"),
		     *empty = NULL;
	REQUIRE(sbx_mutation_new(&empty, "x", 1) == SBX_OK);
	sbx_mutation *nofam = NULL;
	REQUIRE(sbx_mutation_new(&nofam, "y", 1) == SBX_OK);
	REQUIRE(sbx_mutation_put(nofam, "nope", "q", 1, SBX_LATEST_TIMESTAMP,
				 "v", 1) == SBX_OK);
	sbx_check c = eq(NULL), nofam_check = {"nope", "q", 1, SBX_CMP_EQUAL,
					       NULL, 0};
	bool ok = true;
	size_t failed = 0;
	sbx_row_change r[2];
#define TRY(n, expect, what)                                                 \
	do {                                                                 \
		CHECK_INT(sbx_db_check_and_mutate_rows(&ok, &failed, db, r,  \
						       n),                   \
			  expect);                                           \
		CHECK(!ok && failed == SIZE_MAX);                            \
		CHECK(strstr(sbx_errmsg(), what) != NULL);                   \
	} while (0)
	r[0] = (sbx_row_change){ta, "x", 1, &c, mx};
	r[1] = (sbx_row_change){tb, "y", 1, &c, my};
	CHECK_INT(sbx_db_check_and_mutate_rows(&ok, &failed, db, NULL, 0),
		  SBX_EINVAL);
	r[1].table = NULL;
	TRY(2, SBX_EINVAL, "row 1 has no table");
	r[1] = (sbx_row_change){tb, "y", 1, NULL, NULL};
	TRY(2, SBX_EINVAL, "neither a check nor a mutation");
	r[1] = (sbx_row_change){tb, "y", 1, &c, mx};
	TRY(2, SBX_EINVAL, "differs from the row");
	r[1] = (sbx_row_change){tb, "x", 1, &c, empty};
	TRY(2, SBX_EINVAL, "no operations");
	r[1] = (sbx_row_change){ta, "x", 1, &c, NULL};
	TRY(2, SBX_EINVAL, "appears twice");
	r[1] = (sbx_row_change){tb, "", 0, &c, NULL};
	TRY(2, SBX_EINVAL, "empty");
	r[1] = (sbx_row_change){tb, "y", 1, &c, nofam};
	TRY(2, SBX_ENOFAMILY, "no family 'nope'");
	r[1] = (sbx_row_change){tb, "y", 1, &nofam_check, my};
	TRY(2, SBX_ENOFAMILY, "no family 'nope'");
	CHECK_INT(sbx_db_check_and_mutate_rows(&ok, &failed, db, r,
					       SBX_MAX_ROW_CHANGES + 1),
		  SBX_ETOOLARGE);
	/* a table of another database */
	sbx_db *other = open_fresh("multirow_bad_other");
	sbx_table *to = NULL;
	REQUIRE(other && make_table(other, "ta", "cf", 1) == SBX_OK &&
		sbx_table_open(&to, other, "ta") == SBX_OK);
	r[1] = (sbx_row_change){to, "y", 1, &c, my};
	TRY(2, SBX_EINVAL, "another database");
	sbx_table_close(to);
	sbx_db_close(other);
	/* a disabled table */
	REQUIRE(sbx_table_disable(db, "tb") == SBX_OK);
	r[1] = (sbx_row_change){tb, "y", 1, &c, my};
	TRY(2, SBX_EDISABLED, "disabled");
	REQUIRE(sbx_table_enable(db, "tb") == SBX_OK);
#undef TRY
	/* nothing of any of it was written */
	CHECK_STR(val(ta, "x"), "");
	CHECK_STR(val(tb, "y"), "");
	sbx_mutation_free(mx);
	sbx_mutation_free(my);
	sbx_mutation_free(empty);
	sbx_mutation_free(nofam);
	teardown();
}

/* ---- threads: compare-and-set transfers between two tables ---------------
 */

#define ROWS 4
#define START 1000

static long read_long(sbx_table *t, const char *row, char *text, size_t cap)
{
	sbx_result *r = NULL;
	text[0] = 0;
	if (sbx_table_get(&r, t, row, strlen(row), NULL))
		return -1;
	const sbx_cell *c = sbx_result_get(r, "cf", "v", 1);
	if (c && c->value_len < cap) {
		memcpy(text, c->value, c->value_len);
		text[c->value_len] = 0;
	}
	sbx_result_free(r);
	return strtol(text, NULL, 10);
}

typedef struct mover {
	int id, moves;
	long done, lost_races, errors;
} mover;

/* One transfer of 1 from (from-table, row) to (to-table, row'), as
 * read, then one compare-and-set of both. */
static int move_one(unsigned *rng)
{
	*rng = *rng * 1103515245u + 12345u;
	int a = (int)((*rng >> 8) % ROWS), b = (int)((*rng >> 12) % ROWS);
	sbx_table *from = (*rng >> 20) & 1 ? ta : tb;
	sbx_table *to = from == ta ? tb : ta;
	char ka[8], kb[8], va[32], vb[32], na[32], nb[32];
	snprintf(ka, sizeof ka, "r%d", a);
	snprintf(kb, sizeof kb, "r%d", b);
	long x = read_long(from, ka, va, sizeof va);
	long y = read_long(to, kb, vb, sizeof vb);
	snprintf(na, sizeof na, "%ld", x - 1);
	snprintf(nb, sizeof nb, "%ld", y + 1);
	sbx_mutation *ma = put_m(ka, na), *mb = put_m(kb, nb);
	sbx_check ca = eq(va), cb = eq(vb);
	sbx_row_change rows[] = {{from, ka, strlen(ka), &ca, ma},
				 {to, kb, strlen(kb), &cb, mb}};
	bool ok = false;
	size_t failed;
	int rc = sbx_db_check_and_mutate_rows(&ok, &failed, db, rows, 2);
	sbx_mutation_free(ma);
	sbx_mutation_free(mb);
	return rc ? rc : ok ? 1 : 0;
}

static void *mover_run(void *arg)
{
	mover *m = arg;
	unsigned rng = 77u + (unsigned)m->id * 1000003u;
	while (m->done < m->moves) {
		int r = move_one(&rng);
		if (r == 1)
			m->done++;
		else if (r == 0)
			m->lost_races++;
		else if (++m->errors > 3)
			break;
	}
	return NULL;
}

static long total(void)
{
	long sum = 0;
	char text[32];
	for (int i = 0; i < ROWS; i++) {
		char k[8];
		snprintf(k, sizeof k, "r%d", i);
		sum += read_long(ta, k, text, sizeof text) +
		       read_long(tb, k, text, sizeof text);
	}
	return sum;
}

static void seed(void)
{
	for (int i = 0; i < ROWS; i++) {
		char k[8], v[16];
		snprintf(k, sizeof k, "r%d", i);
		snprintf(v, sizeof v, "%d", START);
		put1(ta, k, "cf", "v", SBX_LATEST_TIMESTAMP, v);
		put1(tb, k, "cf", "v", SBX_LATEST_TIMESTAMP, v);
	}
}

static void test_threads_lose_nothing(void)
{
	SKIP_ON_REMOTE("the REST gateway has no multi-row mutation");
	REQUIRE(setup("multirow_threads"));
	seed();
	mover m[4];
	pthread_t th[4];
	for (int i = 0; i < 4; i++) {
		m[i] = (mover){i, 300, 0, 0, 0};
		REQUIRE(pthread_create(&th[i], NULL, mover_run, &m[i]) == 0);
	}
	long races = 0;
	for (int i = 0; i < 4; i++) {
		pthread_join(th[i], NULL);
		CHECK_INT(m[i].errors, 0);
		CHECK_INT(m[i].done, 300);
		races += m[i].lost_races;
	}
	CHECK_INT(total(), 2L * ROWS * START);
	printf("1200 transfers by 4 threads, %ld lost a race and were "
	       "retried\n",
	       races);
	teardown();
}

/* A child process moving value as fast as it can is SIGKILLed; the store
 * reopened still holds the total: no write batch was torn. */
static void test_killed_writer_tears_nothing(void)
{
	SKIP_ON_REMOTE("the REST gateway has no multi-row mutation");
	char dir[4096];
	snprintf(dir, sizeof dir, "%s", test_dir("multirow_kill"));
	db = NULL;
	REQUIRE(sbx_db_open(&db, dir, NULL) == SBX_OK && tables());
	seed();
	teardown();
	for (int round = 0; round < 3; round++) {
		fflush(stdout);
		pid_t pid = fork();
		REQUIRE(pid >= 0);
		if (pid == 0) {
			if (sbx_db_open(&db, dir, NULL) ||
			    sbx_table_open(&ta, db, "ta") ||
			    sbx_table_open(&tb, db, "tb"))
				_exit(3);
			unsigned rng = 5u + (unsigned)round;
			for (;;)
				move_one(&rng);
		}
		struct timespec ts = {0, (60 + 40 * round) * 1000000L};
		nanosleep(&ts, NULL);
		kill(pid, SIGKILL);
		int ws;
		waitpid(pid, &ws, 0);
		CHECK(WIFSIGNALED(ws));
		REQUIRE(sbx_db_open(&db, dir, NULL) == SBX_OK);
		REQUIRE(sbx_table_open(&ta, db, "ta") == SBX_OK &&
			sbx_table_open(&tb, db, "tb") == SBX_OK);
		CHECK_INT(total(), 2L * ROWS * START);
		teardown();
	}
}

/* The remote backend has no such endpoint: one clear SBX_EUNSUPPORTED. */
static void test_remote_unsupported(void)
{
	SKIP_ON_REMOTE("runs its own server");
	REQUIRE(setup("multirow_remote"));
	sbx_server_opts o;
	sbx_server_opts_init(&o);
	o.port = 0;
	sbx_server *srv = NULL;
	REQUIRE(sbx_server_start(&srv, db, &o) == SBX_OK);
	char url[64];
	snprintf(url, sizeof url, "http://127.0.0.1:%d", sbx_server_port(srv));
	sbx_db *rdb = NULL;
	sbx_table *rt = NULL;
	if (sbx_db_connect(&rdb, url) == SBX_OK &&
	    sbx_table_open(&rt, rdb, "ta") == SBX_OK) {
		sbx_mutation *m = put_m("x", "1");
		sbx_check c = eq(NULL);
		sbx_row_change r = {rt, "x", 1, &c, m};
		bool ok = true;
		size_t failed = 0;
		CHECK_INT(sbx_db_check_and_mutate_rows(&ok, &failed, rdb, &r, 1),
			  SBX_EUNSUPPORTED);
		CHECK_STR(sbx_errmsg(),
			  "the remote backend does not support atomic "
			  "multi-row check-and-mutate (HBase's REST gateway "
			  "has no multi-row mutation endpoints)");
		CHECK(!ok && failed == SIZE_MAX);
		sbx_mutation_free(m);
	} else {
		CHECK(!"connect");
	}
	sbx_table_close(rt);
	sbx_db_close(rdb);
	sbx_server_stop(srv, 1000);
	CHECK_STR(val(ta, "x"), "");
	teardown();
}

TEST_MAIN(T(test_all_or_nothing), T(test_bad_input),
	  T(test_threads_lose_nothing), T(test_killed_writer_tears_nothing),
	  T(test_remote_unsupported))
