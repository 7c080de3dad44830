/*
 * test_remote.c - the remote backend against an in-process `saltbox serve`:
 * a gone server gives SBX_EREMOTE naming the URL after its retries, a
 * server coming back within the backoff is reached, HBase statuses map to
 * SBX codes, bearer tokens, what REST cannot express is refused clearly,
 * check-and-mutate's REST forms, regions, rows split over scanner pages,
 * and one sbx_db shared by several threads.
 */
#include "engine_util.h"
#include "server/server.h"

#include <pthread.h>
#include <time.h>

static sbx_db *local;
static sbx_server *srv;
static char url[64];

static int start_server(int port, bool read_only, const char *token)
{
	sbx_server_opts o;
	sbx_server_opts_init(&o);
	o.port = port;
	o.read_only = read_only;
	o.token = token;
	o.threads = 4;
	int rc = sbx_server_start(&srv, local, &o);
	if (rc == SBX_OK)
		snprintf(url, sizeof url, "http://127.0.0.1:%d",
			 sbx_server_port(srv));
	return rc;
}

static void stop_server(void)
{
	sbx_server_stop(srv, 1000);
	srv = NULL;
}

/* A fresh embedded store served on a free port; *db connected to it. */
static bool setup(const char *name, sbx_db **db, bool read_only,
		  const char *token)
{
	*db = NULL;
	if (sbx_db_open(&local, test_dir(name), NULL) ||
	    start_server(0, read_only, token))
		return false;
	return sbx_db_connect(db, url) == SBX_OK;
}

static void teardown(sbx_db *db)
{
	sbx_db_close(db);
	if (srv)
		stop_server();
	sbx_db_close(local);
	local = NULL;
}

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void test_bad_url(void)
{
	sbx_db *db;
	CHECK_INT(sbx_db_connect(&db, "ftp://x"), SBX_EINVAL);
	CHECK(strstr(sbx_errmsg(), "ftp://x") != NULL);
	CHECK_INT(sbx_db_connect(&db, "http://"), SBX_EINVAL);
	CHECK(db == NULL);
}

static void test_server_gone(void)
{
	sbx_db *db;
	REQUIRE(setup("gone", &db, false, NULL));
	CHECK_INT(make_table(db, "t", "cf", 1), SBX_OK);
	char gone_url[64];
	snprintf(gone_url, sizeof gone_url, "%s", url);
	stop_server();
	bool ex;
	int64_t t0 = now_ms();
	CHECK_INT(sbx_table_exists(&ex, db, "t"), SBX_EREMOTE);
	int64_t took = now_ms() - t0;
	/* 4 attempts with 50 + 100 + 200 ms between them */
	CHECK(took >= 340);
	CHECK(strstr(sbx_errmsg(), gone_url) != NULL);
	CHECK(strstr(sbx_errmsg(), "cannot reach the HBase REST gateway") != NULL);
	CHECK(strstr(sbx_errmsg(), "gave up after 4 attempts") != NULL);
	sbx_table *t;
	CHECK_INT(sbx_table_open(&t, db, "t"), SBX_EREMOTE);
	teardown(db);
}

static int comeback_port;

static void *restart_later(void *arg)
{
	(void)arg;
	struct timespec ts = {0, 120 * 1000000L};
	nanosleep(&ts, NULL);
	start_server(comeback_port, false, NULL);
	return NULL;
}

/* The server is down for less than the backoff: the call succeeds. */
static void test_retry_reaches_restarted_server(void)
{
	sbx_db *db;
	REQUIRE(setup("comeback", &db, false, NULL));
	CHECK_INT(make_table(db, "t", "cf", 1), SBX_OK);
	comeback_port = sbx_server_port(srv);
	stop_server();
	pthread_t th;
	pthread_create(&th, NULL, restart_later, NULL);
	bool ex = false;
	CHECK_INT(sbx_table_exists(&ex, db, "t"), SBX_OK);
	CHECK(ex);
	pthread_join(th, NULL);
	teardown(db);
}

static void test_status_mapping(void)
{
	sbx_db *db;
	REQUIRE(setup("status", &db, false, NULL));
	CHECK_INT(make_table(db, "t", "cf", 1), SBX_OK);
	CHECK_INT(make_table(db, "t", "cf", 1), SBX_EEXISTS);
	sbx_table *t;
	CHECK_INT(sbx_table_open(&t, db, "missing"), SBX_ENOTFOUND); /* 404 */
	CHECK_STR(sbx_errmsg(), "table 'missing' does not exist");
	CHECK_INT(sbx_table_open(&t, db, "t"), SBX_OK);
	CHECK_INT(put1(t, "r", "nofam", "q", 1, "v"), SBX_ENOFAMILY); /* 404 */
	CHECK_STR(sbx_errmsg(), "table 't' has no family 'nofam'");
	CHECK_INT(sbx_namespace_create(db, "ns"), SBX_OK);
	CHECK_INT(sbx_namespace_create(db, "ns"), SBX_EEXISTS); /* 403 */
	CHECK_INT(make_table(db, "ns:u", "cf", 1), SBX_OK);
	CHECK_INT(sbx_namespace_drop(db, "ns"), SBX_ENOTEMPTY);
	CHECK_INT(make_table(db, "nope:u", "cf", 1), SBX_ENOTFOUND);
	/* an increment of a 1-byte value: 400 with the engine's reason */
	CHECK_INT(put1(t, "r", "cf", "s", 1, "x"), SBX_OK);
	sbx_mutation *m;
	CHECK_INT(sbx_mutation_new(&m, "r", 1), SBX_OK);
	CHECK_INT(sbx_mutation_increment(m, "cf", "s", 1, 1), SBX_OK);
	CHECK_INT(sbx_table_mutate(NULL, t, m), SBX_EBADVALUE);
	sbx_mutation_free(m);
	/* the table dropped under an open handle */
	CHECK_INT(sbx_table_drop(db, "t"), SBX_OK);
	CHECK_INT(put1(t, "r", "cf", "q", 1, "v"), SBX_ENOTFOUND);
	sbx_read_opts ro;
	sbx_read_opts_init(&ro);
	CHECK_STR(get_str(t, "r", &ro, true), "ERR SBX_ENOTFOUND");
	sbx_table_close(t);
	teardown(db);
}

static void test_read_only_and_token(void)
{
	sbx_db *db;
	REQUIRE(setup("ro", &db, true, NULL));
	CHECK_INT(make_table(db, "t", "cf", 1), SBX_EREADONLY); /* 403 */
	teardown(db);

	REQUIRE(setup("token", &db, false, "s3cret"));
	CHECK_INT(make_table(db, "t", "cf", 1), SBX_EREADONLY); /* 401 */
	CHECK(strstr(sbx_errmsg(), "SALTBOX_TOKEN") != NULL);
	sbx_db_close(db);
	setenv("SALTBOX_TOKEN", "s3cret", 1);
	CHECK_INT(sbx_db_connect(&db, url), SBX_OK);
	unsetenv("SALTBOX_TOKEN");
	CHECK_INT(make_table(db, "t", "cf", 1), SBX_OK);
	sbx_table *t;
	CHECK_INT(sbx_table_open(&t, db, "t"), SBX_OK);
	CHECK_INT(put1(t, "r", "cf", "q", 1, "v"), SBX_OK);
	sbx_table_close(t);
	teardown(db);
}

static void test_unsupported_is_clear(void)
{
	sbx_db *db;
	REQUIRE(setup("unsup", &db, false, NULL));
	CHECK_INT(make_table(db, "t", "cf", 3), SBX_OK);
	sbx_table *t;
	CHECK_INT(sbx_table_open(&t, db, "t"), SBX_OK);
	CHECK_INT(del1(t, "r", SBX_CELL_DELETE, "cf", "q", 5), SBX_EUNSUPPORTED);
	CHECK(strstr(sbx_errmsg(), "one version") != NULL);
	CHECK_INT(del1(t, "r", SBX_CELL_DELETE_FAMILY_VERSION, "cf", NULL, 5),
		  SBX_EUNSUPPORTED);
	CHECK(strstr(sbx_errmsg(), "DeleteFamilyVersion") != NULL);
	sbx_scan_opts so;
	sbx_scan_opts_init(&so);
	so.read.raw = true;
	CHECK_STR(scan_str(t, &so, true), "ERR SBX_EUNSUPPORTED");
	CHECK(strstr(sbx_errmsg(), "raw scans") != NULL);
	CHECK_INT(sbx_table_major_compact(db, "t"), SBX_EUNSUPPORTED);
	CHECK_INT(sbx_table_disable(db, "t"), SBX_EUNSUPPORTED);
	CHECK(strstr(sbx_errmsg(), "disabling a table") != NULL);
	CHECK_INT(sbx_table_split(db, "t", "m", 1), SBX_EUNSUPPORTED);
	CHECK_INT(sbx_snapshot_create(db, "t", "s"), SBX_EUNSUPPORTED);
	CHECK(strstr(sbx_errmsg(), "no snapshot endpoints") != NULL);
	sbx_snapshot_info *snaps;
	size_t nsnaps;
	CHECK_INT(sbx_snapshot_list(&snaps, &nsnaps, db), SBX_EUNSUPPORTED);
	CHECK_INT(nsnaps, 0);
	CHECK_INT(sbx_snapshot_clone(db, "s", "c"), SBX_EUNSUPPORTED);
	CHECK_INT(sbx_snapshot_restore(db, "s"), SBX_EUNSUPPORTED);
	CHECK_INT(sbx_snapshot_delete(db, "s"), SBX_EUNSUPPORTED);
	sbx_bulk_writer *bw;
	CHECK_INT(sbx_bulk_writer_open(&bw, db, "t", "/tmp/never-made"),
		  SBX_EUNSUPPORTED);
	CHECK(bw == NULL);
	CHECK_INT(sbx_table_bulk_load(db, "t", "/tmp/never-made"),
		  SBX_EUNSUPPORTED);
	sbx_bytes split = {"m", 1};
	sbx_family_desc f;
	sbx_family_desc_init(&f, "cf");
	CHECK_INT(sbx_table_create_presplit(db, "u", &f, 1, &split, 1),
		  SBX_EUNSUPPORTED);
	/* the row "schema" cannot appear in a DELETE path: the delete names
	 * it in saltbox serve's X-Saltbox-Row header instead, and only it */
	CHECK_INT(put1(t, "schema", "cf", "q", 1, "v"), SBX_OK);
	CHECK_INT(put1(t, "schema", "cf", "r", 1, "w"), SBX_OK);
	CHECK_INT(del1(t, "schema", SBX_CELL_DELETE_COLUMN, "cf", "q", 5),
		  SBX_OK);
	bool ex = false;
	CHECK_INT(sbx_table_exists(&ex, db, "t"), SBX_OK);
	CHECK(ex); /* and the table is still there */
	sbx_read_opts ro;
	sbx_read_opts_init(&ro);
	CHECK_STR(get_str(t, "schema", &ro, true), "schema/cf:r@1=w;");
	sbx_table_close(t);
	teardown(db);
}

static void test_check_and_mutate_forms(void)
{
	sbx_db *db;
	REQUIRE(setup("cam", &db, false, NULL));
	CHECK_INT(make_table(db, "t", "cf", 1), SBX_OK);
	sbx_table *t;
	CHECK_INT(sbx_table_open(&t, db, "t"), SBX_OK);
	sbx_mutation *m;
	bool done;
	/* check=put: absent -> put the checked column (a lock, say) */
	CHECK_INT(sbx_mutation_new(&m, "r", 1), SBX_OK);
	CHECK_INT(sbx_mutation_put(m, "cf", "lock", 4, 10, "5", 1), SBX_OK);
	sbx_check c = {"cf", "lock", 4, SBX_CMP_EQUAL, NULL, 0};
	CHECK_INT(sbx_table_check_and_mutate(&done, NULL, t, "r", 1, &c, m),
		  SBX_OK);
	CHECK(done);
	CHECK_INT(sbx_table_check_and_mutate(&done, NULL, t, "r", 1, &c, m),
		  SBX_OK);
	CHECK(!done);
	sbx_mutation_free(m);
	/* GREATER: "7" > stored "5" passes; read, decided, then applied */
	CHECK_INT(sbx_mutation_new(&m, "r", 1), SBX_OK);
	CHECK_INT(sbx_mutation_put(m, "cf", "lock", 4, 20, "7", 1), SBX_OK);
	c.op = SBX_CMP_GREATER;
	c.value = "7";
	c.value_len = 1;
	CHECK_INT(sbx_table_check_and_mutate(&done, NULL, t, "r", 1, &c, m),
		  SBX_OK);
	CHECK(done);
	CHECK_INT(sbx_table_check_and_mutate(&done, NULL, t, "r", 1, &c, m),
		  SBX_OK);
	CHECK(!done); /* 7 > 7 fails */
	sbx_mutation_free(m);
	sbx_read_opts ro;
	sbx_read_opts_init(&ro);
	CHECK_STR(get_str(t, "r", &ro, true), "r/cf:lock@20=7;");
	/* puts that do not include the checked column: refused clearly */
	CHECK_INT(sbx_mutation_new(&m, "r", 1), SBX_OK);
	CHECK_INT(sbx_mutation_put(m, "cf", "w", 1, 1, "x", 1), SBX_OK);
	c.op = SBX_CMP_EQUAL;
	CHECK_INT(sbx_table_check_and_mutate(&done, NULL, t, "r", 1, &c, m),
		  SBX_EUNSUPPORTED);
	CHECK(strstr(sbx_errmsg(), "checked column") != NULL);
	sbx_mutation_free(m);
	/* check=delete */
	CHECK_INT(put1(t, "r", "cf", "w", 1, "x"), SBX_OK);
	CHECK_INT(sbx_mutation_new(&m, "r", 1), SBX_OK);
	CHECK_INT(sbx_mutation_delete(m, SBX_CELL_DELETE_COLUMN, "cf", "w", 1,
				      SBX_LATEST_TIMESTAMP),
		  SBX_OK);
	c.value = "6";
	CHECK_INT(sbx_table_check_and_mutate(&done, NULL, t, "r", 1, &c, m),
		  SBX_OK);
	CHECK(!done);
	c.value = "7";
	CHECK_INT(sbx_table_check_and_mutate(&done, NULL, t, "r", 1, &c, m),
		  SBX_OK);
	CHECK(done);
	sbx_mutation_free(m);
	CHECK_STR(get_str(t, "r", &ro, true), "r/cf:lock@20=7;");
	sbx_table_close(t);
	teardown(db);
}

static void test_regions_over_rest(void)
{
	sbx_db *db;
	REQUIRE(setup("regions", &db, false, NULL));
	CHECK_INT(make_table(db, "t", "cf", 1), SBX_OK);
	sbx_table *t;
	CHECK_INT(sbx_table_open(&t, db, "t"), SBX_OK);
	for (int i = 0; i < 3; i++) {
		char row[8];
		snprintf(row, sizeof row, "r%d", i);
		CHECK_INT(put1(t, row, "cf", "q", 1, "v"), SBX_OK);
	}
	sbx_region_info *r;
	size_t n;
	CHECK_INT(sbx_table_regions(&r, &n, db, "t"), SBX_OK);
	REQUIRE(n == 1);
	CHECK_INT(r[0].start_len, 0);
	CHECK_INT(r[0].end_len, 0);
	CHECK(strncmp(r[0].name, "t,,", 3) == 0);
	CHECK_INT(strlen(r[0].encoded), 32);
	CHECK_INT(r[0].metrics.write_request_count, 3); /* from /status/cluster */
	sbx_region_infos_free(r, n);
	CHECK_INT(sbx_table_regions(&r, &n, db, "missing"), SBX_ENOTFOUND);
	CHECK(sbx_db_region_servers(db) >= 1);
	sbx_table_close(t);
	teardown(db);
}

/* 2500 cells in one row span three pages of 1000: reassembled into one
 * result, or cut by batch; a filter travels as REST filter JSON. */
static void test_rows_across_pages_and_filters(void)
{
	sbx_db *db;
	REQUIRE(setup("pages", &db, false, NULL));
	CHECK_INT(make_table(db, "t", "cf", 1), SBX_OK);
	sbx_table *t;
	CHECK_INT(sbx_table_open(&t, db, "t"), SBX_OK);
	sbx_mutation *m;
	CHECK_INT(sbx_mutation_new(&m, "big", 3), SBX_OK);
	for (int i = 0; i < 2500; i++) {
		char q[8];
		snprintf(q, sizeof q, "q%04d", i);
		CHECK_INT(sbx_mutation_put(m, "cf", q, 5, 1, "v", 1), SBX_OK);
	}
	CHECK_INT(sbx_table_mutate(NULL, t, m), SBX_OK);
	sbx_mutation_free(m);
	CHECK_INT(put1(t, "small", "cf", "q", 1, "s"), SBX_OK);
	sbx_scan_opts o;
	sbx_scan_opts_init(&o);
	sbx_scanner *s;
	sbx_result *r;
	CHECK_INT(sbx_scanner_open(&s, t, &o), SBX_OK);
	CHECK_INT(sbx_scanner_next(s, &r), SBX_OK);
	CHECK_INT(sbx_result_size(r), 2500);
	sbx_result_free(r);
	CHECK_INT(sbx_scanner_next(s, &r), SBX_OK);
	CHECK_INT(sbx_result_size(r), 1);
	sbx_result_free(r);
	CHECK_INT(sbx_scanner_next(s, &r), SBX_ITEROVER);
	sbx_scanner_close(s);
	o.batch = 1200;
	CHECK_INT(sbx_scanner_open(&s, t, &o), SBX_OK);
	size_t sizes[4] = {0};
	for (int i = 0; i < 4 && sbx_scanner_next(s, &r) == SBX_OK; i++) {
		sizes[i] = sbx_result_size(r);
		sbx_result_free(r);
	}
	CHECK_INT(sizes[0], 1200);
	CHECK_INT(sizes[1], 1200);
	CHECK_INT(sizes[2], 100);
	CHECK_INT(sizes[3], 1);
	sbx_scanner_close(s);
	sbx_filter *f;
	CHECK_INT(sbx_filter_parse(&f, "PrefixFilter('sm')", 18, NULL), SBX_OK);
	sbx_scan_opts_init(&o);
	o.read.filter = f;
	CHECK_STR(scan_str(t, &o, true), "small/cf:q@1=s;");
	/* a get with a filter runs as a one-row scan */
	sbx_read_opts ro;
	sbx_read_opts_init(&ro);
	ro.filter = f;
	CHECK_STR(get_str(t, "big", &ro, true), "");
	CHECK_STR(get_str(t, "small", &ro, true), "small/cf:q@1=s;");
	o.reversed = true;
	CHECK_STR(scan_str(t, &o, true), "ERR SBX_EUNSUPPORTED");
	sbx_filter_free(f);
	sbx_table_close(t);
	teardown(db);
}

static sbx_db *shared;

/* get_str() without its static buffer, for threads. */
static const char *get_str_r(sbx_table *t, const char *row,
			     const sbx_read_opts *o, char *buf, size_t cap)
{
	buf[0] = 0;
	sbx_result *r = NULL;
	if (sbx_table_get(&r, t, row, strlen(row), o))
		return "ERR";
	render_result(buf, cap, r, true);
	sbx_result_free(r);
	return buf;
}

static void *worker(void *arg)
{
	int id = (int)(intptr_t)arg;
	sbx_table *t;
	if (sbx_table_open(&t, shared, "t"))
		return (void *)1;
	intptr_t bad = 0;
	sbx_read_opts ro;
	sbx_read_opts_init(&ro);
	for (int i = 0; i < 50; i++) {
		char row[16], want[64], got[256];
		snprintf(row, sizeof row, "w%d-%02d", id, i);
		if (put1(t, row, "cf", "q", 7, row))
			bad++;
		snprintf(want, sizeof want, "%s/cf:q@7=%s;", row, row);
		if (strcmp(get_str_r(t, row, &ro, got, sizeof got), want))
			bad++;
	}
	sbx_table_close(t);
	return (void *)bad;
}

/* One sbx_db used by 4 threads at once (the handle pool). */
static void test_shared_between_threads(void)
{
	REQUIRE(setup("threads", &shared, false, NULL));
	CHECK_INT(make_table(shared, "t", "cf", 1), SBX_OK);
	pthread_t th[4];
	for (int i = 0; i < 4; i++)
		pthread_create(&th[i], NULL, worker, (void *)(intptr_t)i);
	for (int i = 0; i < 4; i++) {
		void *bad;
		pthread_join(th[i], &bad);
		CHECK_INT((intptr_t)bad, 0);
	}
	sbx_table *t;
	CHECK_INT(sbx_table_open(&t, shared, "t"), SBX_OK);
	sbx_scan_opts o;
	sbx_scan_opts_init(&o);
	sbx_scanner *s;
	int rows = 0;
	sbx_result *r;
	CHECK_INT(sbx_scanner_open(&s, t, &o), SBX_OK);
	while (sbx_scanner_next(s, &r) == SBX_OK) {
		rows++;
		sbx_result_free(r);
	}
	sbx_scanner_close(s);
	CHECK_INT(rows, 200);
	sbx_table_close(t);
	teardown(shared);
}

TEST_MAIN(T(test_bad_url), T(test_server_gone),
	  T(test_retry_reaches_restarted_server), T(test_status_mapping),
	  T(test_read_only_and_token), T(test_unsupported_is_clear),
	  T(test_check_and_mutate_forms), T(test_regions_over_rest),
	  T(test_rows_across_pages_and_filters), T(test_shared_between_threads))
