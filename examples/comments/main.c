/*
 * main.c - the `saltbox-comments` command: serve the comment API, check a
 * store's index rows, run the rank batch once, print the key designs.
 */
#include "comments.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void usage(FILE *f)
{
	fprintf(
	    f,
	    "usage: saltbox-comments serve (--data DIR | --connect URL) "
	    "[options]\n"
	    "       saltbox-comments check (--data DIR | --connect URL) "
	    "[--wait-ms MS] [--verbose]\n"
	    "       saltbox-comments rank  (--data DIR | --connect URL)\n"
	    "       saltbox-comments keys\n"
	    "       saltbox-comments load --url URL [--rate OPS/S] [--duration "
	    "S] "
	    "[--threads N] [--users N] [--products N] [--zipf S]\n"
	    "\n"
	    "The product comments of the article \"[HBase 실습] Coupang\" as a "
	    "service (examples/comments/README.md).\n"
	    "\n"
	    "serve options:\n"
	    "  --port N             port (default 8081; 0 = any free port)\n"
	    "  --bind ADDR          IPv4 address (default 127.0.0.1)\n"
	    "  --threads N          HTTP threads (default 8)\n"
	    "  --rank-every S       run the rank batch every S seconds "
	    "(default 0: only POST /admin/rank)\n"
	    "  --lock-timeout-ms MS transaction lock timeout (default "
	    "5000)\n"
	    "  --trace FILE         record every row key the store touches "
	    "(embedded store) in FILE,\n"
	    "                       and product-comment index operations as "
	    "records in FILE.records\n"
	    "                       (saltbox keyviz -t FILE.records -f "
	    "keyviz.design)\n"
	    "  --test-clock MS      tests: the clock stands at MS until PUT "
	    "/admin/clock {\"now\":MS}\n"
	    "  --test-commit-delay-ms MS  tests: commit by the portable "
	    "protocol and sleep MS\n"
	    "                       before each of its steps (widens the "
	    "window a SIGKILL hits)\n"
	    "check options:\n"
	    "  --wait-ms MS         wait up to MS for unexpired locks "
	    "(default 10000)\n");
}

typedef struct opts {
	const char *data, *connect, *bind, *trace;
	int port, threads;
	long rank_every;
	int64_t lock_timeout_ms, wait_ms, test_clock, commit_delay_ms;
	bool verbose;
} opts;

static bool num(const char *s, long long lo, long long hi, long long *out)
{
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (!*s || *end || errno || v < lo || v > hi)
		return false;
	*out = v;
	return true;
}

static int parse(opts *o, int argc, char **argv)
{
	memset(o, 0, sizeof *o);
	o->bind = "127.0.0.1";
	o->port = 8081;
	o->threads = 8;
	o->wait_ms = 10000;
	o->test_clock = -1;
	for (int i = 2; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		long long x;
		if (!strcmp(a, "--verbose")) {
			o->verbose = true;
			continue;
		}
		if (!v) {
			fprintf(stderr,
				"saltbox-comments: %s needs a value "
				"(or is unknown)\n",
				a);
			return -1;
		}
		i++;
		if (!strcmp(a, "--data"))
			o->data = v;
		else if (!strcmp(a, "--connect"))
			o->connect = v;
		else if (!strcmp(a, "--bind"))
			o->bind = v;
		else if (!strcmp(a, "--trace"))
			o->trace = v;
		else if (!strcmp(a, "--port") && num(v, 0, 65535, &x))
			o->port = (int)x;
		else if (!strcmp(a, "--threads") && num(v, 1, 256, &x))
			o->threads = (int)x;
		else if (!strcmp(a, "--rank-every") &&
			 num(v, 0, 86400 * 365, &x))
			o->rank_every = (long)x;
		else if (!strcmp(a, "--lock-timeout-ms") &&
			 num(v, 1, 3600000, &x))
			o->lock_timeout_ms = x;
		else if (!strcmp(a, "--wait-ms") && num(v, 0, 3600000, &x))
			o->wait_ms = x;
		else if (!strcmp(a, "--test-clock") && num(v, 0, INT64_MAX, &x))
			o->test_clock = x;
		else if (!strcmp(a, "--test-commit-delay-ms") &&
			 num(v, 0, 10000, &x))
			o->commit_delay_ms = x;
		else {
			fprintf(stderr, "saltbox-comments: bad option %s %s\n",
				a, v);
			return -1;
		}
	}
	if (!o->data == !o->connect) {
		fprintf(stderr,
			"saltbox-comments: give --data DIR or --connect URL\n");
		return -1;
	}
	return 0;
}

static sbx_db *open_store(const opts *o)
{
	sbx_db *db = NULL;
	int rc;
	if (o->connect) {
		rc = sbx_db_connect(&db, o->connect);
	} else {
		sbx_db_options dbo;
		sbx_db_options_init(&dbo);
		dbo.trace_path = o->trace;
		rc = sbx_db_open(&db, o->data, &dbo);
	}
	if (rc) {
		fprintf(stderr, "saltbox-comments: %s: %s\n",
			o->connect ? o->connect : o->data, sbx_errmsg());
		return NULL;
	}
	return db;
}

/* The transactions' fault hook, used only to slow commits down. */
static int commit_delay(void *arg, sbx_txn_step step, size_t row)
{
	(void)row;
	int64_t ms = *(const int64_t *)arg;
	if (step == SBX_TXN_STEP_PREWRITE_SECONDARY ||
	    step == SBX_TXN_STEP_COMMIT_PRIMARY ||
	    step == SBX_TXN_STEP_APPLY_SECONDARY) {
		struct timespec ts = {(time_t)(ms / 1000),
				      (long)(ms % 1000) * 1000000L};
		nanosleep(&ts, NULL);
	}
	return 0;
}

/* ---- the rank timer ---------------------------------------------------------
 */

typedef struct timer {
	cm_app *app;
	long every;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool stop;
} timer;

static void *timer_main(void *arg)
{
	timer *t = arg;
	pthread_mutex_lock(&t->mu);
	while (!t->stop) {
		struct timespec until;
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += t->every;
		while (!t->stop && pthread_cond_timedwait(&t->cv, &t->mu,
							  &until) != ETIMEDOUT)
			;
		if (t->stop)
			break;
		pthread_mutex_unlock(&t->mu);
		long products;
		int rc = cm_rank_run(&products, t->app);
		if (rc)
			fprintf(stderr, "saltbox-comments: rank batch: %s\n",
				sbx_errmsg());
		else if (products)
			fprintf(
			    stderr,
			    "saltbox-comments: rank batch: %ld product(s)\n",
			    products);
		pthread_mutex_lock(&t->mu);
	}
	pthread_mutex_unlock(&t->mu);
	return NULL;
}

static int serve(const opts *o)
{
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &set, NULL); /* threads inherit it */
	signal(SIGPIPE, SIG_IGN);

	sbx_db *db = open_store(o);
	if (!db)
		return 1;
	static cm_app app;
	if (cm_store_open(&app, db, o->lock_timeout_ms)) {
		sbx_db_close(db);
		return 1;
	}
	if (o->commit_delay_ms > 0) {
		app.txo.fault = commit_delay;
		app.txo.fault_arg = (void *)&o->commit_delay_ms;
		/* the delays are at the portable protocol's steps, whose
		 * locks a kill leaves for `check` to resolve (the embedded
		 * store's atomic path writes data and locks at once) */
		app.txo.path = SBX_TXN_PATH_PORTABLE;
	}
	if (o->trace) {
		char path[4096];
		snprintf(path, sizeof path, "%s.records", o->trace);
		app.trace = fopen(path, "a");
		if (!app.trace) {
			fprintf(stderr, "saltbox-comments: cannot open %s\n",
				path);
			cm_store_close(&app);
			sbx_db_close(db);
			return 1;
		}
		pthread_mutex_init(&app.trace_mu, NULL);
	}
	if (o->test_clock >= 0) {
		app.test_clock = true;
		atomic_store(&app.clock_ms, o->test_clock);
	}
	int port = o->port;
	cm_server *srv = cm_server_start(&app, o->bind, &port, o->threads);
	if (!srv) {
		cm_store_close(&app);
		sbx_db_close(db);
		return 1;
	}
	timer t = {.app = &app, .every = o->rank_every};
	pthread_mutex_init(&t.mu, NULL);
	pthread_cond_init(&t.cv, NULL);
	pthread_t th;
	bool timer_on =
	    o->rank_every > 0 && pthread_create(&th, NULL, timer_main, &t) == 0;
	fprintf(stderr,
		"saltbox-comments: serving http://%s:%d/ (store %s%s, rank "
		"batch %s)\n",
		o->bind, port, o->connect ? o->connect : o->data,
		o->connect ? "" : " embedded",
		timer_on ? "on a timer"
			 : "on "
			   "request");
	fflush(stderr);

	int sig = 0;
	sigwait(&set, &sig);
	fprintf(stderr, "saltbox-comments: signal %d, stopping\n", sig);
	cm_server_stop(srv);
	if (timer_on) {
		pthread_mutex_lock(&t.mu);
		t.stop = true;
		pthread_cond_signal(&t.cv);
		pthread_mutex_unlock(&t.mu);
		pthread_join(th, NULL);
	}
	cm_store_close(&app);
	sbx_db_close(db);
	if (app.trace)
		fclose(app.trace);
	fprintf(stderr,
		"saltbox-comments: %ld request(s), %ld conflict "
		"retries\n",
		atomic_load(&app.requests),
		atomic_load(&app.conflicts_retried));
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	const char *cmd = argv[1];
	if (!strcmp(cmd, "load"))
		return cm_load(argc, argv);
	if (!strcmp(cmd, "keys")) {
		fputs(cm_designs_text, stdout);
		return 0;
	}
	if (strcmp(cmd, "serve") && strcmp(cmd, "check") &&
	    strcmp(cmd, "rank")) {
		fprintf(stderr, "saltbox-comments: unknown command '%s'\n",
			cmd);
		usage(stderr);
		return 2;
	}
	opts o;
	if (parse(&o, argc, argv))
		return 2;
	if (!strcmp(cmd, "serve"))
		return serve(&o);
	sbx_db *db = open_store(&o);
	if (!db)
		return 1;
	static cm_app app;
	if (cm_store_open(&app, db, o.lock_timeout_ms)) {
		sbx_db_close(db);
		return 1;
	}
	int ret = 0;
	if (!strcmp(cmd, "check")) {
		long p = cm_check(&app, o.wait_ms, o.verbose);
		ret = p == 0 ? 0 : 1;
	} else {
		long products;
		int rc = cm_rank_run(&products, &app);
		if (rc) {
			fprintf(stderr, "saltbox-comments: rank: %s\n",
				sbx_errmsg());
			ret = 1;
		} else {
			printf("rank: %ld product(s)\n", products);
		}
	}
	cm_store_close(&app);
	sbx_db_close(db);
	return ret;
}
