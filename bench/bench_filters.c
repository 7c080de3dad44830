/*
 * bench_filters.c - filters that can skip ahead must seek, not read and
 * discard: over a large table, a full-table scan with a PrefixFilter, and
 * one with a MultiRowRangeFilter of two small ranges, should cost about
 * what bounded scans of the same slices cost. A ValueFilter scan (which
 * must read everything) is shown for contrast. Prints each scan's time and
 * its ratio to the bounded scan.
 *
 * usage: bench_filters [--rows N] [--rounds R]
 */
#include "bench_util.h"
#include "saltbox.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Seconds for one scan; *rows gets the rows returned. */
static double scan(sbx_table *t, const sbx_scan_opts *o, long *rows)
{
	double t0 = now_s();
	sbx_scanner *s;
	if (sbx_scanner_open(&s, t, o))
		die("scan");
	sbx_result *r;
	*rows = 0;
	while (sbx_scanner_next(s, &r) == SBX_OK) {
		(*rows)++;
		sbx_result_free(r);
	}
	sbx_scanner_close(s);
	return now_s() - t0;
}

typedef struct variant {
	const char *name;
	sbx_scan_opts opts;
	sbx_filter *filter;
} variant;

int main(int argc, char **argv)
{
	int rows = 500000, rounds = 7;
	for (int i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--rows"))
			rows = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--rounds"))
			rounds = atoi(argv[i + 1]);
	}
	if (rounds < 1 || rounds > 64)
		rounds = 7;
	char dir[128], cmd[160];
	snprintf(dir, sizeof dir, "/tmp/bench_filters.%d", (int)getpid());
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd))
		return 1;
	sbx_db *db;
	sbx_family_desc f;
	sbx_family_desc_init(&f, "cf");
	sbx_table *t;
	if (sbx_db_open(&db, dir, NULL) || sbx_table_create(db, "t", &f, 1) ||
	    sbx_table_open(&t, db, "t"))
		die("setup");
	char val[100];
	memset(val, 'v', sizeof val);
	sbx_mutation *batch[500];
	int nb = 0;
	for (int i = 0; i < rows; i++) {
		char row[32];
		snprintf(row, sizeof row, "row%08d", i);
		sbx_mutation_new(&batch[nb], row, strlen(row));
		sbx_mutation_put(batch[nb], "cf", "q", 1, 1, val, sizeof val);
		if (++nb == 500 || i == rows - 1) {
			if (sbx_table_batch(NULL, t, batch, (size_t)nb))
				die("load");
			for (int k = 0; k < nb; k++)
				sbx_mutation_free(batch[k]);
			nb = 0;
		}
	}
	sbx_table_flush(db, "t");
	/* the prefix slice: rows row0025xxxx (10,000 rows); the two ranges:
	 * 500 rows each */
	const char *prefix = "row0025";
	uint8_t stop[16];
	variant v[5];
	for (int i = 0; i < 5; i++) {
		sbx_scan_opts_init(&v[i].opts);
		v[i].filter = NULL;
	}
	v[0].name = "bounded scan (ref)";
	sbx_scan_opts_set_prefix(&v[0].opts, prefix, 7, stop);
	v[1].name = "PrefixFilter";
	if (sbx_filter_new_prefix(&v[1].filter, prefix, 7))
		die("prefix filter");
	sbx_row_range ranges[2] = {
		{"row00120000", 11, true, "row00120500", 11, false},
		{"row00250000", 11, true, "row00250500", 11, false}};
	v[2].name = "bounded x2 (ref)";
	v[3].name = "MultiRowRangeFilter";
	if (sbx_filter_new_multi_row_range(&v[3].filter, ranges, 2))
		die("multi row range filter");
	v[4].name = "ValueFilter (reads all)";
	if (sbx_filter_parse(&v[4].filter, "ValueFilter(=, 'binary:nope')", 29,
			     NULL))
		die("value filter");
	for (int i = 1; i < 5; i++)
		v[i].opts.read.filter = v[i].filter;
	printf("%d rows; prefix slice 10,000 rows, two ranges of 500 rows; "
	       "median of %d rounds\n\n",
	       rows, rounds);
	printf("%-26s %10s %8s %8s\n", "scan", "ms", "rows", "x ref");
	double ref1 = 0, ref2 = 0;
	for (int i = 0; i < 5; i++) {
		double ts[64];
		long n = 0;
		for (int r = 0; r < rounds; r++) {
			if (i == 2) { /* two bounded scans, one per range */
				long a, b;
				sbx_scan_opts o1, o2;
				sbx_scan_opts_init(&o1);
				sbx_scan_opts_init(&o2);
				o1.start_row = ranges[0].start;
				o1.start_row_len = 11;
				o1.stop_row = ranges[0].stop;
				o1.stop_row_len = 11;
				o2.start_row = ranges[1].start;
				o2.start_row_len = 11;
				o2.stop_row = ranges[1].stop;
				o2.stop_row_len = 11;
				ts[r] = scan(t, &o1, &a) + scan(t, &o2, &b);
				n = a + b;
			} else {
				ts[r] = scan(t, &v[i].opts, &n);
			}
		}
		qsort(ts, (size_t)rounds, sizeof *ts, cmp_double);
		double m = ts[rounds / 2];
		if (i == 0)
			ref1 = m;
		if (i == 2)
			ref2 = m;
		double ref = i < 2 ? ref1 : ref2;
		printf("%-26s %10.3f %8ld %8.2f\n", v[i].name, m * 1e3, n, m / ref);
	}
	printf("\ntarget: PrefixFilter and MultiRowRangeFilter within ~1.5x of "
	       "the bounded scans of the same rows\n");
	for (int i = 0; i < 5; i++)
		sbx_filter_free(v[i].filter);
	sbx_table_close(t);
	sbx_db_close(db);
	return system(cmd) ? 1 : 0;
}
