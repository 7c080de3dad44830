/*
 * test_rest_commit.c - the REST server's group commit (src/server/commit.c):
 * many keep-alive connections PUT at once and every request still gets the
 * answer its own write would have got. Checked: every acknowledged cell is
 * stored with its value; PUTs to one row from many connections keep one
 * version each with distinct timestamps; requests that fail (a family the
 * table lacks, alone or as one row of a CellSet) get their own error while
 * the requests written with them succeed; DELETEs of columns and rows
 * written together with PUTs; the server stops cleanly while
 * PUTs are queued (libmicrohttpd aborts if a connection stays suspended);
 * the commit's counters show requests were in fact written together and
 * that a commit thread took over a worker's lead. Each test runs with one
 * commit under way at a time and again with three at once
 * (sbx_server_opts.commit_threads).
 * Killing the server under concurrent PUTs is test_crash's server rounds.
 */
#include "check.h"

#include "saltbox.h"
#include "server/rest.h"
#include "server/server.h"
#include "http_util.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/socket.h>
#include <time.h>

#define CLIENTS 16

/* ---- the server ---------------------------------------------------------------- */

static sbx_db *db;
static sbx_server *srv;
static int port;
static int committers = 1; /* sbx_server_opts.commit_threads */

static bool start(const char *base)
{
	char name[64];
	snprintf(name, sizeof name, "%s_%d", base, committers);
	if (sbx_db_open(&db, test_dir(name), NULL))
		return false;
	sbx_family_desc f;
	sbx_family_desc_init(&f, "f");
	f.max_versions = 100000;
	if (sbx_table_create(db, "t", &f, 1))
		return false;
	sbx_server_opts so;
	sbx_server_opts_init(&so);
	so.commit_threads = committers;
	if (sbx_server_start(&srv, db, &so))
		return false;
	port = sbx_server_port(srv);
	return true;
}

static void finish(void)
{
	sbx_server_stop(srv, 5000);
	srv = NULL;
	sbx_db_close(db);
	db = NULL;
}

/* The value of row:f:q, "" when absent (static buffer). */
static const char *value_of(sbx_table *t, const char *row, const char *q)
{
	static char v[256];
	v[0] = 0;
	sbx_result *r = NULL;
	if (sbx_table_get(&r, t, row, strlen(row), NULL) == SBX_OK) {
		const sbx_cell *c = sbx_result_get(r, "f", q, strlen(q));
		if (c)
			snprintf(v, sizeof v, "%.*s", (int)c->value_len,
				 (const char *)c->value);
	}
	sbx_result_free(r);
	return v;
}

/* ---- 1. every acknowledged PUT is stored; one row keeps every version --- */

#define PUTS 150
#define HOT_EVERY 5 /* every 5th PUT also goes to the shared row "hot" */

typedef struct client {
	int id;
	int round;
	int ok;       /* PUTs answered 200 */
	int other;    /* any other answer */
} client;

/* Run CLIENTS threads of fn (client ids 0.., round `round`) to their
 * end; *ok and *other: their answers summed. */
static bool run_clients(void *(*fn)(void *), client *cl, int round, int *ok,
			int *other)
{
	pthread_t th[CLIENTS];
	int started = 0;
	for (; started < CLIENTS; started++) {
		cl[started] = (client){.id = started, .round = round};
		if (pthread_create(&th[started], NULL, fn, &cl[started]))
			break;
	}
	*ok = *other = 0;
	for (int i = 0; i < started; i++) {
		pthread_join(th[i], NULL);
		*ok += cl[i].ok;
		*other += cl[i].other;
	}
	return started == CLIENTS;
}

static void *put_rows(void *arg)
{
	client *c = arg;
	int fd = http_connect(port, 30);
	if (fd < 0)
		return NULL;
	char path[128], val[64], out[512];
	for (int k = 0; k < PUTS; k++) {
		snprintf(path, sizeof path, "/t/r%02d-%04d/f:q", c->id, k);
		snprintf(val, sizeof val, "v%02d-%04d", c->id, k);
		int st = http_put(fd, path, "application/octet-stream", val, out,
			     sizeof out);
		st == 200 ? c->ok++ : c->other++;
		if (k % HOT_EVERY)
			continue;
		snprintf(val, sizeof val, "h%02d-%04d", c->id, k);
		st = http_put(fd, "/t/hot/f:q", "application/octet-stream", val,
			 out, sizeof out);
		st == 200 ? c->ok++ : c->other++;
	}
	close(fd);
	return NULL;
}

static void test_every_put_lands(void)
{
	REQUIRE(start("commit_lands"));
	client cl[CLIENTS];
	int ok, other;
	REQUIRE(run_clients(put_rows, cl, 0, &ok, &other));
	const int hot = PUTS / HOT_EVERY;
	CHECK_INT(ok, CLIENTS * (PUTS + hot));
	CHECK_INT(other, 0);

	sbx_table *t;
	REQUIRE(sbx_table_open(&t, db, "t") == SBX_OK);
	int missing = 0;
	for (int i = 0; i < CLIENTS; i++)
		for (int k = 0; k < PUTS; k++) {
			char row[32], want[32];
			snprintf(row, sizeof row, "r%02d-%04d", i, k);
			snprintf(want, sizeof want, "v%02d-%04d", i, k);
			missing += strcmp(value_of(t, row, "q"), want) != 0;
		}
	CHECK_INT(missing, 0);

	/* "hot": one version per PUT, each with a timestamp of its own, each
	 * value once (VERSIONS 100000 keeps them all) */
	sbx_read_opts o;
	sbx_read_opts_init(&o);
	o.max_versions = 0;
	sbx_result *r = NULL;
	REQUIRE(sbx_table_get(&r, t, "hot", 3, &o) == SBX_OK);
	size_t n;
	const sbx_cell *c = sbx_result_cells(r, &n);
	CHECK_INT(n, CLIENTS * hot);
	int ordered = 1;
	static char seen[CLIENTS][PUTS];
	memset(seen, 0, sizeof seen);
	int dup = 0;
	for (size_t k = 0; k < n; k++) {
		if (k && !(c[k].timestamp < c[k - 1].timestamp))
			ordered = 0; /* newest first, none equal */
		int id = -1, seq = -1;
		char v[32];
		snprintf(v, sizeof v, "%.*s", (int)c[k].value_len,
			 (const char *)c[k].value);
		if (sscanf(v, "h%d-%d", &id, &seq) == 2 && id >= 0 &&
		    id < CLIENTS && seq >= 0 && seq < PUTS)
			dup += seen[id][seq]++ != 0;
		else
			dup++;
	}
	CHECK(ordered);
	CHECK_INT(dup, 0);
	sbx_result_free(r);
	sbx_table_close(t);

	/* every PUT went through the group commit, and some were written
	 * together (16 connections at once; should a slow scheduler have
	 * run them one by one, more rounds until two meet) */
	rest_commit_stats s = rest_commit_get_stats(srv->commit);
	CHECK_INT(s.requests, CLIENTS * (PUTS + hot));
	for (int round = 0; (s.largest < 2 || !s.handoffs) && round < 20;
	     round++) {
		REQUIRE(run_clients(put_rows, cl, 0, &ok, &other));
		s = rest_commit_get_stats(srv->commit);
	}
	CHECK(s.batches < s.requests);
	CHECK(s.largest >= 2);
	CHECK(s.handoffs >= 1); /* the commit thread took over a lead */
	printf("  %llu requests in %llu batches, at most %llu in one, %llu "
	       "leads handed to a commit thread\n",
	       s.requests, s.batches, s.largest, s.handoffs);
	finish();
}

/* ---- 2. a failing request fails alone ------------------------------------ */

#define ROUNDS 60

static void *put_mixed(void *arg)
{
	client *c = arg;
	int fd = http_connect(port, 30);
	if (fd < 0)
		return NULL;
	char path[128], val[64], out[512], body[1024], fam[24], msg[64];
	for (int k = 0; k < ROUNDS; k++) {
		/* a family name, and so a message, of each request's own: an
		 * answer with another request's message would show */
		snprintf(fam, sizeof fam, "n%dx%d", c->id, k);
		snprintf(msg, sizeof msg, "table 't' has no family '%s'", fam);
		/* a good cell */
		snprintf(path, sizeof path, "/t/g%d-%02d-%04d/f:q", c->round, c->id, k);
		snprintf(val, sizeof val, "g%d-%02d-%04d", c->round, c->id, k);
		int st = http_put(fd, path, "application/octet-stream", val, out,
			     sizeof out);
		st == 200 ? c->ok++ : c->other++;
		/* a family the table lacks: 404 with its own message */
		snprintf(path, sizeof path, "/t/b%d-%02d-%04d/%s:q", c->round,
			 c->id, k, fam);
		st = http_put(fd, path, "application/octet-stream", val, out,
			 sizeof out);
		if (st != 404 || !strstr(out, msg))
			c->other++;
		/* a CellSet whose second row fails: 404, the first row is
		 * written (each row is atomic, as Table.batch) */
		char r1[64], r2[64], col[16], bad[64], v64[64], row[48];
		snprintf(row, sizeof row, "m%d-%02d-%04d", c->round, c->id, k);
		http_b64(r1, row, strlen(row));
		snprintf(row, sizeof row, "x%d-%02d-%04d", c->round, c->id, k);
		http_b64(r2, row, strlen(row));
		http_b64(col, "f:q", 3);
		snprintf(row, sizeof row, "%s:q", fam);
		http_b64(bad, row, strlen(row));
		http_b64(v64, val, strlen(val));
		snprintf(body, sizeof body,
			 "{\"Row\":[{\"key\":\"%s\",\"Cell\":[{\"column\":"
			 "\"%s\",\"$\":\"%s\"}]},{\"key\":\"%s\",\"Cell\":"
			 "[{\"column\":\"%s\",\"$\":\"%s\"}]}]}",
			 r1, col, v64, r2, bad, v64);
		st = http_put(fd, "/t/fakerow", "application/json", body, out,
			 sizeof out);
		if (st != 404 || !strstr(out, msg))
			c->other++;
	}
	close(fd);
	return NULL;
}

static void test_failures_stay_apart(void)
{
	REQUIRE(start("commit_failures"));
	client cl[CLIENTS];
	sbx_table *t;
	REQUIRE(sbx_table_open(&t, db, "t") == SBX_OK);
	/* rounds until failing requests were written with others (the first,
	 * unless a slow scheduler ran every request alone) */
	rest_commit_stats s = {0};
	int rounds = 0;
	for (; rounds < 10 && s.largest < 2; rounds++) {
		int ok, other;
		REQUIRE(run_clients(put_mixed, cl, rounds, &ok, &other));
		CHECK_INT(ok, CLIENTS * ROUNDS);
		CHECK_INT(other, 0);
		int wrong = 0;
		for (int i = 0; i < CLIENTS; i++)
			for (int k = 0; k < ROUNDS; k++) {
				char row[32], want[32];
				snprintf(want, sizeof want, "g%d-%02d-%04d",
					 rounds, i, k);
				snprintf(row, sizeof row, "g%d-%02d-%04d",
					 rounds, i, k);
				wrong += strcmp(value_of(t, row, "q"), want) != 0;
				snprintf(row, sizeof row, "m%d-%02d-%04d",
					 rounds, i, k);
				wrong += strcmp(value_of(t, row, "q"), want) != 0;
				/* the failed rows hold nothing */
				snprintf(row, sizeof row, "b%d-%02d-%04d",
					 rounds, i, k);
				wrong += value_of(t, row, "q")[0] != 0;
				snprintf(row, sizeof row, "x%d-%02d-%04d",
					 rounds, i, k);
				wrong += value_of(t, row, "q")[0] != 0;
			}
		CHECK_INT(wrong, 0);
		s = rest_commit_get_stats(srv->commit);
	}
	CHECK_INT(s.requests, 3 * CLIENTS * ROUNDS * rounds);
	CHECK(s.largest >= 2);
	sbx_table_close(t);
	finish();
}

/* ---- 3. DELETEs go through the group commit too ------------------------- */

static int del(int fd, const char *path, char *out, size_t cap)
{
	return http_request(fd, "DELETE", path, NULL, NULL, out, cap);
}

static void *put_then_delete(void *arg)
{
	client *c = arg;
	int fd = http_connect(port, 30);
	if (fd < 0)
		return NULL;
	char path[128], out[512], msg[64];
	for (int k = 0; k < ROUNDS; k++) {
		/* two columns of one row, then the first column deleted */
		snprintf(path, sizeof path, "/t/d%02d-%04d/f:q", c->id, k);
		int st = http_put(fd, path, "application/octet-stream", "q",
				  out, sizeof out);
		st == 200 ? c->ok++ : c->other++;
		snprintf(path, sizeof path, "/t/d%02d-%04d/f:r", c->id, k);
		st = http_put(fd, path, "application/octet-stream", "r", out,
			      sizeof out);
		st == 200 ? c->ok++ : c->other++;
		snprintf(path, sizeof path, "/t/d%02d-%04d/f:q", c->id, k);
		st = del(fd, path, out, sizeof out);
		st == 200 ? c->ok++ : c->other++;
		/* a whole row deleted */
		snprintf(path, sizeof path, "/t/e%02d-%04d/f:q", c->id, k);
		st = http_put(fd, path, "application/octet-stream", "e", out,
			      sizeof out);
		st == 200 ? c->ok++ : c->other++;
		snprintf(path, sizeof path, "/t/e%02d-%04d", c->id, k);
		st = del(fd, path, out, sizeof out);
		st == 200 ? c->ok++ : c->other++;
		/* a column of a family the table lacks: 404, its own name */
		snprintf(path, sizeof path, "/t/d%02d-%04d/n%dx%d:q", c->id, k,
			 c->id, k);
		snprintf(msg, sizeof msg, "table 't' has no family 'n%dx%d'",
			 c->id, k);
		st = del(fd, path, out, sizeof out);
		if (st != 404 || !strstr(out, msg))
			c->other++;
	}
	close(fd);
	return NULL;
}

static void test_deletes(void)
{
	REQUIRE(start("commit_deletes"));
	client cl[CLIENTS];
	int ok, other;
	REQUIRE(run_clients(put_then_delete, cl, 0, &ok, &other));
	CHECK_INT(ok, 5 * CLIENTS * ROUNDS);
	CHECK_INT(other, 0);
	sbx_table *t;
	REQUIRE(sbx_table_open(&t, db, "t") == SBX_OK);
	int wrong = 0;
	for (int i = 0; i < CLIENTS; i++)
		for (int k = 0; k < ROUNDS; k++) {
			char row[32];
			snprintf(row, sizeof row, "d%02d-%04d", i, k);
			wrong += value_of(t, row, "q")[0] != 0;
			wrong += strcmp(value_of(t, row, "r"), "r") != 0;
			snprintf(row, sizeof row, "e%02d-%04d", i, k);
			wrong += value_of(t, row, "q")[0] != 0;
		}
	CHECK_INT(wrong, 0);
	sbx_table_close(t);
	rest_commit_stats s = rest_commit_get_stats(srv->commit);
	CHECK_INT(s.requests, 6 * CLIENTS * ROUNDS);
	finish();
}

/* ---- 4. stopping while PUTs are queued ----------------------------------- */

typedef struct stopper_client {
	int id;
	int acked;            /* PUTs 0..acked-1 answered 200 */
	_Atomic bool *go;
} stopper_client;

static void *put_until_refused(void *arg)
{
	stopper_client *c = arg;
	int fd = http_connect(port, 30);
	if (fd < 0)
		return NULL;
	char path[128], val[64], out[512];
	for (int k = 0;; k++) {
		snprintf(path, sizeof path, "/t/s%02d-%06d/f:q", c->id, k);
		snprintf(val, sizeof val, "s%02d-%06d", c->id, k);
		if (http_put(fd, path, "application/octet-stream", val, out,
			sizeof out) != 200)
			break;
		c->acked = k + 1;
		if (k == 20)
			atomic_store(c->go, true);
	}
	close(fd);
	return NULL;
}

static void test_stop_with_puts_queued(void)
{
	REQUIRE(start("commit_stop"));
	pthread_t th[CLIENTS];
	stopper_client cl[CLIENTS];
	_Atomic bool go = false;
	for (int i = 0; i < CLIENTS; i++) {
		cl[i] = (stopper_client){.id = i, .go = &go};
		REQUIRE(pthread_create(&th[i], NULL, put_until_refused, &cl[i]) ==
			0);
	}
	while (!atomic_load(&go)) {
		struct timespec ts = {0, 1000000};
		nanosleep(&ts, NULL);
	}
	struct timespec ts = {0, 50 * 1000000};
	nanosleep(&ts, NULL);
	/* returns (no abort), every connection answered or closed */
	sbx_server_stop(srv, 5000);
	srv = NULL;
	long acked = 0;
	for (int i = 0; i < CLIENTS; i++) {
		pthread_join(th[i], NULL);
		acked += cl[i].acked;
	}
	CHECK(acked > 20);
	sbx_table *t;
	REQUIRE(sbx_table_open(&t, db, "t") == SBX_OK);
	int missing = 0;
	for (int i = 0; i < CLIENTS; i++)
		for (int k = 0; k < cl[i].acked; k++) {
			char row[32], want[32];
			snprintf(row, sizeof row, "s%02d-%06d", i, k);
			snprintf(want, sizeof want, "s%02d-%06d", i, k);
			missing += strcmp(value_of(t, row, "q"), want) != 0;
		}
	CHECK_INT(missing, 0);
	printf("  stopped after %ld acknowledged PUTs, all stored\n", acked);
	sbx_table_close(t);
	sbx_db_close(db);
	db = NULL;
}

/* ---- 5. several commits at once ---------------------------------------------- */

static void test_three_commits_at_once(void)
{
	committers = 3;
	test_every_put_lands();
	test_failures_stay_apart();
	test_deletes();
	test_stop_with_puts_queued();
	committers = 1;
}

/* A server refuses a commit thread count it cannot run, naming it. */
static void test_commit_threads_checked(void)
{
	REQUIRE(sbx_db_open(&db, test_dir("commit_bad"), NULL) == SBX_OK);
	sbx_server_opts so;
	sbx_server_opts_init(&so);
	CHECK(so.commit_threads >= 1);
	int bad[] = {0, -1, SBX_SERVER_MAX_COMMIT_THREADS + 1};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		so.commit_threads = bad[i];
		srv = NULL;
		CHECK_INT(sbx_server_start(&srv, db, &so), SBX_EINVAL);
		CHECK(srv == NULL);
		CHECK(strstr(sbx_errmsg(), "commit threads") != NULL);
	}
	sbx_db_close(db);
	db = NULL;
}

TEST_MAIN(T(test_every_put_lands), T(test_failures_stay_apart),
	  T(test_deletes), T(test_stop_with_puts_queued),
	  T(test_three_commits_at_once), T(test_commit_threads_checked))
