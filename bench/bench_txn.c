/*
 * bench_txn.c - what a transaction costs (issue 12): on the embedded store
 * and over HBase REST (an in-process `saltbox serve` on the same store),
 *  - a two-row transfer (get both, put both, commit) against the two plain
 *    puts it replaces, and against two plain gets and two plain puts;
 *  - a one-row transaction (blind put, and get + put) against one plain put
 *    (and a plain get + put);
 *  - four threads transferring between accounts drawn from a zipfian
 *    distribution (s = 0.99 over --accounts): commits/s and the share of
 *    transactions that lost a race and were retried (the abort rate).
 * Each transaction row is measured on both commit paths where the backend
 * has both: the portable protocol, and the embedded store's atomic path
 * (one sbx_db_check_and_mutate_rows); REST has only the portable one.
 * Prints microseconds per operation, its reference's, and their ratio
 * (each measured in rounds alternating with its reference, so a busy
 * machine slows both alike).
 *
 * usage: bench_txn [--ops N] [--remote-ops N] [--seconds S]
 *                  [--accounts N] [--embedded-only | --remote-only]
 */
#include "bench_util.h"
#include "saltbox.h"
#include "server/server.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int accounts = 1000;
static int only = -1; /* --only K: measure row K of the table alone */

static void key(char out[16], int i)
{
	snprintf(out, 16, "acct%06d", i);
}

static void put_plain(sbx_table *t, const char *row, const char *v)
{
	sbx_mutation *m;
	if (sbx_mutation_new(&m, row, strlen(row)) ||
	    sbx_mutation_put(m, "cf", "bal", 3, SBX_LATEST_TIMESTAMP, v,
			     strlen(v)) ||
	    sbx_table_mutate(NULL, t, m))
		die("put");
	sbx_mutation_free(m);
}

/* A non-transactional transfer as two plain mutations: increments of an
 * 8-byte counter (each reads and writes the row under its lock). */
static void incr_plain(sbx_table *t, const char *row, int64_t delta)
{
	sbx_mutation *m;
	if (sbx_mutation_new(&m, row, strlen(row)) ||
	    sbx_mutation_increment(m, "cf", "n", 1, delta) ||
	    sbx_table_mutate(NULL, t, m))
		die("increment");
	sbx_mutation_free(m);
}

static long get_plain(sbx_table *t, const char *row)
{
	sbx_result *r;
	if (sbx_table_get(&r, t, row, strlen(row), NULL))
		die("get");
	const sbx_cell *c = sbx_result_get(r, "cf", "bal", 3);
	long v = c ? (long)c->value_len : 0;
	sbx_result_free(r);
	return v;
}

static int put_txn(sbx_txn *txn, sbx_table *t, const char *row, const char *v)
{
	sbx_mutation *m;
	int rc = sbx_mutation_new(&m, row, strlen(row));
	rc = rc ? rc
		: sbx_mutation_put(m, "cf", "bal", 3, SBX_LATEST_TIMESTAMP, v,
				   strlen(v));
	rc = rc ? rc : sbx_txn_mutate(txn, t, m);
	sbx_mutation_free(m);
	return rc;
}

static int get_txn(long *out, sbx_txn *txn, sbx_table *t, const char *row)
{
	sbx_result *r;
	int rc = sbx_txn_get(&r, txn, t, row, strlen(row), NULL);
	if (rc)
		return rc;
	const sbx_cell *c = sbx_result_get(r, "cf", "bal", 3);
	char num[32] = "0";
	if (c && c->value_len < sizeof num) {
		memcpy(num, c->value, c->value_len);
		num[c->value_len] = 0;
	}
	*out = strtol(num, NULL, 10);
	sbx_result_free(r);
	return SBX_OK;
}

typedef struct xfer {
	sbx_table *t;
	int a, b;
	bool reads;
	sbx_txn_path path;
} xfer;

static int transfer_fn(sbx_txn *txn, void *arg)
{
	xfer *x = arg;
	char ka[16], kb[16], va[32], vb[32];
	key(ka, x->a);
	key(kb, x->b);
	long a = 1000, b = 1000;
	int rc = SBX_OK;
	if (x->reads) {
		rc = get_txn(&a, txn, x->t, ka);
		if (x->b >= 0)
			rc = rc ? rc : get_txn(&b, txn, x->t, kb);
	}
	snprintf(va, sizeof va, "%ld", a - 1);
	snprintf(vb, sizeof vb, "%ld", b + 1);
	rc = rc ? rc : put_txn(txn, x->t, ka, va);
	return rc ? rc : (x->b >= 0 ? put_txn(txn, x->t, kb, vb) : SBX_OK);
}

static void run_txn(sbx_db *db, xfer *x)
{
	sbx_txn_options o;
	sbx_txn_options_init(&o);
	o.path = x->path;
	int rc = sbx_txn_run(NULL, db, &o, transfer_fn, x);
	if (rc)
		die("transaction");
}

typedef enum op_kind {
	PLAIN_2PUT,
	PLAIN_2GET_2PUT,
	PLAIN_2INCR,
	TXN_TRANSFER,
	TXN_2PUT,
	PLAIN_1PUT,
	PLAIN_GET_PUT,
	TXN_1PUT,
	TXN_GET_PUT,
	ATOMIC = 0x100, /* or'ed into a TXN_ kind: the atomic path */
} op_kind;

static void one_op(sbx_db *db, sbx_table *t, op_kind k, int i)
{
	int a = (2 * i) % accounts, b = (2 * i + 1) % accounts;
	char ka[16], kb[16];
	key(ka, a);
	key(kb, b);
	xfer x = {t, a, b, false,
		  k & ATOMIC ? SBX_TXN_PATH_ATOMIC : SBX_TXN_PATH_PORTABLE};
	switch (k & ~ATOMIC) {
	case PLAIN_2PUT:
		put_plain(t, ka, "999");
		put_plain(t, kb, "1001");
		break;
	case PLAIN_2GET_2PUT:
		get_plain(t, ka);
		get_plain(t, kb);
		put_plain(t, ka, "999");
		put_plain(t, kb, "1001");
		break;
	case PLAIN_2INCR:
		incr_plain(t, ka, -1);
		incr_plain(t, kb, 1);
		break;
	case TXN_TRANSFER:
		x.reads = true;
		run_txn(db, &x);
		break;
	case TXN_2PUT:
		run_txn(db, &x);
		break;
	case PLAIN_1PUT:
		put_plain(t, ka, "999");
		break;
	case PLAIN_GET_PUT:
		get_plain(t, ka);
		put_plain(t, ka, "999");
		break;
	case TXN_1PUT:
		x.b = -1;
		run_txn(db, &x);
		break;
	case TXN_GET_PUT:
		x.b = -1;
		x.reads = true;
		run_txn(db, &x);
		break;
	default:
		die("op kind");
	}
}

/* Microseconds per operation of k, and of its reference ref, measured in
 * alternating rounds (so a busy neighbour slows both alike); medians over
 * 7 rounds, and the median of the per-round ratios. */
static void measure(double *us, double *ref_us, double *ratio, sbx_db *db,
		    sbx_table *t, op_kind k, op_kind ref, int ops)
{
	enum { ROUNDS = 7 };
	double v[ROUNDS], rv[ROUNDS], q[ROUNDS];
	for (int r = 0; r < ROUNDS; r++) {
		double t0 = now_s();
		for (int i = 0; i < ops; i++)
			one_op(db, t, ref, i + r * ops);
		double t1 = now_s();
		for (int i = 0; i < ops; i++)
			one_op(db, t, k, i + r * ops);
		double t2 = now_s();
		rv[r] = (t1 - t0) * 1e6 / ops;
		v[r] = (t2 - t1) * 1e6 / ops;
		q[r] = v[r] / rv[r];
	}
	*us = median(v, ROUNDS);
	*ref_us = median(rv, ROUNDS);
	*ratio = median(q, ROUNDS);
}

/* ---- zipfian contention -----------------------------------------------------
 */

typedef struct zipf {
	double *cdf;
	int n;
} zipf;

static void zipf_init(zipf *z, int n, double s)
{
	z->n = n;
	z->cdf = malloc((size_t)n * sizeof *z->cdf);
	double sum = 0;
	for (int i = 0; i < n; i++)
		sum += 1.0 / pow(i + 1, s);
	double acc = 0;
	for (int i = 0; i < n; i++) {
		acc += 1.0 / pow(i + 1, s) / sum;
		z->cdf[i] = acc;
	}
}

static int zipf_next(const zipf *z, unsigned *rng)
{
	*rng = *rng * 1103515245u + 12345u;
	double u = ((*rng >> 8) & 0xffffff) / (double)0x1000000;
	int lo = 0, hi = z->n - 1;
	while (lo < hi) {
		int mid = (lo + hi) / 2;
		if (z->cdf[mid] < u)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

typedef struct contender {
	sbx_db *db;
	sbx_table *t;
	const zipf *z;
	double until;
	sbx_txn_path path;
	unsigned rng;
	long commits, attempts, failures;
} contender;

static void *contend(void *arg)
{
	contender *c = arg;
	sbx_txn_options o;
	sbx_txn_options_init(&o);
	o.path = c->path;
	while (now_s() < c->until) {
		xfer x = {c->t, zipf_next(c->z, &c->rng), 0, true, c->path};
		do
			x.b = zipf_next(c->z, &c->rng);
		while (x.b == x.a);
		int attempts = 0;
		int rc = sbx_txn_run(&attempts, c->db, &o, transfer_fn, &x);
		c->attempts += attempts;
		if (rc == SBX_OK)
			c->commits++;
		else
			c->failures++;
	}
	return NULL;
}

static void contention(const char *backend, sbx_db *db, sbx_table *t,
		       double seconds, sbx_txn_path path)
{
	zipf z;
	zipf_init(&z, accounts, 0.99);
	contender c[4];
	pthread_t th[4];
	double t0 = now_s();
	for (int i = 0; i < 4; i++) {
		c[i] = (contender){db,	 t, &z, t0 + seconds, path,
				   1234u + (unsigned)i, 0, 0, 0};
		if (pthread_create(&th[i], NULL, contend, &c[i]))
			die("thread");
	}
	long commits = 0, attempts = 0, failures = 0;
	for (int i = 0; i < 4; i++) {
		pthread_join(th[i], NULL);
		commits += c[i].commits;
		attempts += c[i].attempts;
		failures += c[i].failures;
	}
	double dt = now_s() - t0;
	printf("%-9s %s zipfian(0.99, %d accounts), 4 threads: %.0f "
	       "transfers/s, abort rate %.2f%% (%ld of %ld transactions "
	       "retried), %ld gave up\n",
	       backend, path == SBX_TXN_PATH_ATOMIC ? "atomic  " : "portable",
	       accounts, commits / dt,
	       attempts ? 100.0 * (double)(attempts - commits - failures) /
			      (double)attempts
			: 0.0,
	       attempts - commits - failures, attempts, failures);
	free(z.cdf);
}

/* ---- one backend ----------------------------------------------------------
 */

static void bench_backend(const char *backend, sbx_db *db, int ops,
			  double seconds, bool atomic)
{
	sbx_family_desc f[2];
	sbx_txn_lock_family(&f[0]);
	sbx_family_desc_init(&f[1], "cf");
	if (sbx_table_create(db, "acct", f, 2))
		die("create");
	sbx_table *t;
	if (sbx_table_open(&t, db, "acct"))
		die("open");
	for (int i = 0; i < accounts; i++) {
		char k[16];
		key(k, i);
		put_plain(t, k, "1000");
	}
	/* warm up: every row gets its lock cell */
	for (int i = 0; i < accounts / 2; i++)
		one_op(db, t, TXN_2PUT, i);
	struct {
		op_kind k;
		const char *name;
		int ref; /* index of the reference row */
	} rows[] = {
	    {PLAIN_2PUT, "2 plain puts", 0},
	    {PLAIN_2GET_2PUT, "2 plain gets + 2 plain puts", 0},
	    {PLAIN_2INCR, "2 plain increments", 0},
	    {TXN_TRANSFER, "txn transfer: 2 gets + 2 puts", 0},
	    {TXN_TRANSFER | ATOMIC, "  atomic path", 0},
	    {TXN_TRANSFER, "txn transfer", 1},
	    {TXN_TRANSFER | ATOMIC, "  atomic path", 1},
	    {TXN_TRANSFER | ATOMIC, "txn transfer, atomic path", 2},
	    {TXN_2PUT, "txn 2 blind puts", 0},
	    {TXN_2PUT | ATOMIC, "  atomic path", 0},
	    {PLAIN_1PUT, "1 plain put", 10},
	    {PLAIN_GET_PUT, "plain get + put", 10},
	    {TXN_1PUT, "txn 1 blind put (one-row path)", 10},
	    {TXN_1PUT | ATOMIC, "  atomic path", 10},
	    {TXN_GET_PUT, "txn get + put (one-row path)", 10},
	    {TXN_GET_PUT | ATOMIC, "  atomic path", 10},
	};
	int nrows = (int)(sizeof rows / sizeof *rows);
	printf("%-9s %-34s %10s %10s %8s\n", "backend", "operation", "us/op",
	       "ref us/op", "x ref");
	for (int i = 0; i < nrows; i++) {
		if (rows[i].ref == i || (only >= 0 && i != only) ||
		    ((rows[i].k & ATOMIC) && !atomic))
			continue;
		/* the same start for each: earlier writes compacted away (the
		 * remote backend cannot compact; the store behind it is small) */
		sbx_table_major_compact(db, "acct");
		double us, ref_us, ratio;
		measure(&us, &ref_us, &ratio, db, t, rows[i].k,
			rows[rows[i].ref].k, ops);
		printf("%-9s %-34s %10.1f %10.1f %8.2f   (ref: %s)\n", backend,
		       rows[i].name, us, ref_us, ratio,
		       rows[rows[i].ref].name);
		fflush(stdout);
	}
	if (only < 0) {
		contention(backend, db, t, seconds, SBX_TXN_PATH_PORTABLE);
		if (atomic)
			contention(backend, db, t, seconds,
				   SBX_TXN_PATH_ATOMIC);
	}
	sbx_table_close(t);
}

int main(int argc, char **argv)
{
	int ops = 2000, remote_ops = 200;
	double seconds = 3;
	bool embedded = true, remote = true;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : "0";
		if (!strcmp(a, "--ops"))
			ops = atoi(v), i++;
		else if (!strcmp(a, "--remote-ops"))
			remote_ops = atoi(v), i++;
		else if (!strcmp(a, "--seconds"))
			seconds = atof(v), i++;
		else if (!strcmp(a, "--accounts"))
			accounts = atoi(v), i++;
		else if (!strcmp(a, "--only"))
			only = atoi(v), i++;
		else if (!strcmp(a, "--embedded-only"))
			remote = false;
		else if (!strcmp(a, "--remote-only"))
			embedded = false;
		else {
			fprintf(stderr,
				"usage: bench_txn [--ops N] [--remote-ops N] "
				"[--seconds S] [--accounts N] [--embedded-only "
				"| --remote-only]\n");
			return 2;
		}
	}
	if (ops < 1 || remote_ops < 1 || accounts < 4) {
		fprintf(stderr, "bench_txn: --ops, --remote-ops >= 1, "
				"--accounts >= 4\n");
		return 2;
	}
	char dir[] = "/tmp/bench_txn.XXXXXX";
	if (!mkdtemp(dir))
		die("mkdtemp");
	char path[64];
	printf("bench_txn: %d ops per round (%d over REST), 7 rounds each "
	       "alternating with its reference; medians; default durability "
	       "(SYNC_WAL)\n\n",
	       ops, remote_ops);
	if (embedded) {
		snprintf(path, sizeof path, "%s/embedded", dir);
		sbx_db *db;
		if (sbx_db_open(&db, path, NULL))
			die("open");
		bench_backend("embedded", db, ops, seconds, true);
		sbx_db_close(db);
		printf("\n");
	}
	if (remote) {
		snprintf(path, sizeof path, "%s/served", dir);
		sbx_db *local, *db;
		if (sbx_db_open(&local, path, NULL))
			die("open");
		sbx_server_opts so;
		sbx_server_opts_init(&so);
		so.port = 0;
		so.threads = 8;
		sbx_server *srv;
		if (sbx_server_start(&srv, local, &so))
			die("serve");
		char url[64];
		snprintf(url, sizeof url, "http://127.0.0.1:%d",
			 sbx_server_port(srv));
		if (sbx_db_connect(&db, url))
			die("connect");
		bench_backend("rest", db, remote_ops, seconds, false);
		sbx_db_close(db);
		sbx_server_stop(srv, 1000);
		sbx_db_close(local);
	}
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	return system(cmd) ? 1 : 0;
}
