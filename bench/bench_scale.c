/*
 * bench_scale.c - how the cost per item grows with the size of one call,
 * where a call takes many items at once: a batch of n rows (the row cache
 * on, as shipped), one mutation of n counters, a get naming half of a
 * row's n columns, a transaction writing n cells to one row (read back,
 * then committed). Each runs at n, 4n and 16n; the reference is the same
 * operation's cost per item at n, measured in the same run, so a linear
 * (or n log n) path prints ratios near 1 and a quadratic one about 4 and 16.
 *
 * usage: bench_scale [--n N] [--rounds R]     (defaults 2000, 3)
 * Each size runs R times into a fresh store; medians printed.
 */
#include "bench_util.h"

#include <string.h>
#include <unistd.h>

static char g_tmp[256];

static sbx_db *fresh(const char *name, sbx_table **t)
{
	char cmd[1100], dir[512];
	snprintf(dir, sizeof dir, "%s/%s", g_tmp, name);
	snprintf(cmd, sizeof cmd, "rm -rf %s && mkdir -p %s", dir, g_tmp);
	if (system(cmd))
		exit(1);
	sbx_db *db;
	if (sbx_db_open(&db, dir, NULL))
		die("open");
	sbx_family_desc f[2];
	sbx_txn_lock_family(&f[0]);
	sbx_family_desc_init(&f[1], "f");
	if (sbx_table_create(db, "t", f, 2) || sbx_txn_prepare_table(db, "t") ||
	    sbx_table_open(t, db, "t"))
		die("table");
	return db;
}

static void close_db(sbx_db *db, sbx_table *t)
{
	sbx_table_close(t);
	sbx_db_close(db);
}

static void qual(char *q, size_t cap, long i)
{
	snprintf(q, cap, "q%07ld", i);
}

/* sbx_table_batch of n one-cell rows; seconds. */
static double run_batch(long n)
{
	sbx_table *t;
	sbx_db *db = fresh("batch", &t);
	sbx_mutation **ms = malloc((size_t)n * sizeof *ms);
	if (!ms)
		die("out of memory");
	char row[32];
	for (long i = 0; i < n; i++) {
		snprintf(row, sizeof row, "row%09ld", i * 7919 % n);
		if (sbx_mutation_new(&ms[i], row, strlen(row)) ||
		    sbx_mutation_put(ms[i], "f", "q", 1, SBX_LATEST_TIMESTAMP,
				     "value", 5))
			die("mutation");
	}
	double t0 = now_s();
	if (sbx_table_batch(NULL, t, ms, (size_t)n))
		die("batch");
	double el = now_s() - t0;
	for (long i = 0; i < n; i++)
		sbx_mutation_free(ms[i]);
	free(ms);
	close_db(db, t);
	return el;
}

/* One mutation of row "row" touching columns f:q0000000.. f:q<n-1>: an
 * increment of each (counters) or a put of "v". */
static sbx_mutation *wide_mutation(long n, bool counters)
{
	sbx_mutation *m;
	if (sbx_mutation_new(&m, "row", 3))
		die("mutation");
	char q[32];
	for (long i = 0; i < n; i++) {
		qual(q, sizeof q, i);
		if (counters ? sbx_mutation_increment(m, "f", q, strlen(q), 1)
			     : sbx_mutation_put(m, "f", q, strlen(q),
						SBX_LATEST_TIMESTAMP, "v", 1))
			die(counters ? "increment" : "put");
	}
	return m;
}

/* One mutation of n increments of distinct columns; seconds. */
static double run_counters(long n)
{
	sbx_table *t;
	sbx_db *db = fresh("counters", &t);
	sbx_mutation *m = wide_mutation(n, true);
	double t0 = now_s();
	sbx_result *r;
	if (sbx_table_mutate(&r, t, m))
		die("mutate");
	double el = now_s() - t0;
	sbx_result_free(r);
	sbx_mutation_free(m);
	close_db(db, t);
	return el;
}

/* A get naming every other column of a row of n columns; seconds. */
static double run_named_get(long n)
{
	sbx_table *t;
	sbx_db *db = fresh("named", &t);
	sbx_mutation *m = wide_mutation(n, false);
	if (sbx_table_mutate(NULL, t, m))
		die("mutate");
	sbx_mutation_free(m);
	long k = n / 2;
	sbx_column *cols = malloc((size_t)k * sizeof *cols);
	char (*names)[24] = malloc((size_t)k * sizeof *names);
	if (!cols || !names)
		die("out of memory");
	for (long i = 0; i < k; i++) {
		qual(names[i], sizeof names[i], 2 * i);
		cols[i] = (sbx_column){"f", names[i], strlen(names[i])};
	}
	sbx_read_opts o;
	sbx_read_opts_init(&o);
	o.columns = cols;
	o.ncolumns = (size_t)k;
	double t0 = now_s();
	sbx_result *r;
	if (sbx_table_get(&r, t, "row", 3, &o))
		die("get");
	double el = now_s() - t0;
	if (sbx_result_size(r) != (size_t)k)
		die("get: wrong cell count");
	sbx_result_free(r);
	free(cols);
	free(names);
	close_db(db, t);
	return el;
}

/* A transaction putting n cells to one row, reading it back and
 * committing; seconds for the read and the commit. */
static double run_txn(long n)
{
	sbx_table *t;
	sbx_db *db = fresh("txn", &t);
	sbx_txn *x;
	if (sbx_txn_begin(&x, db))
		die("begin");
	char q[32];
	for (long i = 0; i < n; i++) {
		sbx_mutation *m;
		qual(q, sizeof q, i);
		if (sbx_mutation_new(&m, "row", 3) ||
		    sbx_mutation_put(m, "f", q, strlen(q), SBX_LATEST_TIMESTAMP,
				     "v", 1) ||
		    sbx_txn_mutate(x, t, m))
			die("txn mutate");
		sbx_mutation_free(m);
	}
	double t0 = now_s();
	sbx_result *r;
	if (sbx_txn_get(&r, x, t, "row", 3, NULL))
		die("txn get");
	sbx_result_free(r);
	if (sbx_txn_commit(x))
		die("commit");
	double el = now_s() - t0;
	close_db(db, t);
	return el;
}

typedef struct scale_case {
	const char *name;
	const char *unit;
	double (*run)(long n);
} scale_case;

int main(int argc, char **argv)
{
	long n0 = 2000;
	int rounds = 3;
	for (int i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--n"))
			n0 = atol(argv[i + 1]);
		else if (!strcmp(argv[i], "--rounds"))
			rounds = atoi(argv[i + 1]);
	}
	if (n0 < 2 || n0 > 10000000 || rounds < 1 || rounds > 32) {
		fprintf(stderr, "usage: bench_scale [--n N] [--rounds R]\n");
		return 2;
	}
	snprintf(g_tmp, sizeof g_tmp, "/tmp/bench_scale.%d", (int)getpid());
	static const scale_case cases[] = {
		{"batch of n rows (row cache on)", "row", run_batch},
		{"one mutation of n counters", "counter", run_counters},
		{"get naming n/2 of n columns", "column", run_named_get},
		{"txn: n cells to one row, read+commit", "cell", run_txn},
	};
	printf("bench_scale: cost per item at n, 4n and 16n (n = %ld), median "
	       "of %d rounds; x = cost per item / cost per item at n\n\n",
	       n0, rounds);
	printf("%-38s %16s %10s %6s %10s %6s\n", "", "n", "4n", "x", "16n", "x");
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		double per[3];
		for (int s = 0; s < 3; s++) {
			long n = n0 << (2 * s);
			double v[32];
			for (int r = 0; r < rounds; r++)
				v[r] = cases[c].run(n);
			per[s] = median(v, rounds) / (double)n * 1e6;
		}
		char a[32], b[32], d[32];
		snprintf(a, sizeof a, "%.2f us/%s", per[0], cases[c].unit);
		snprintf(b, sizeof b, "%.2f us", per[1]);
		snprintf(d, sizeof d, "%.2f us", per[2]);
		printf("%-38s %16s %10s %6.2f %10s %6.2f\n", cases[c].name, a,
		       b, per[1] / per[0], d, per[2] / per[0]);
	}
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf %s", g_tmp);
	return system(cmd) ? 1 : 0;
}
