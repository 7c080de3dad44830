/*
 * bench_regions.c - what region routing costs on the engine's put path:
 * the same single-row puts into a table pre-split into 16 regions, with
 * routing (region lookup, per-region counters and load buckets, split
 * checks) on and off, interleaved rounds in one run. Prints puts/s and the
 * ratio; the target is routing within 5% of no routing.
 *
 * usage: bench_regions [--rows N] [--rounds R]
 */
#include "bench_util.h"
#include "saltbox.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double run(bool routing, int rows, int round)
{
	char dir[256];
	snprintf(dir, sizeof dir, "/tmp/bench_regions.%d.%d.%d", (int)getpid(),
		 routing, round);
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd))
		return 0;
	sbx_db_options o;
	sbx_db_options_init(&o);
	o.region_routing = routing;
	sbx_db *db;
	if (sbx_db_open(&db, dir, &o)) {
		fprintf(stderr, "open: %s\n", sbx_errmsg());
		exit(1);
	}
	sbx_family_desc f;
	sbx_family_desc_init(&f, "cf");
	sbx_split_keys k;
	sbx_split_keys_compute(&k, SBX_SPLITALGO_HEX_STRING, 16);
	sbx_table_create_presplit(db, "t", &f, 1, k.keys, k.n);
	sbx_split_keys_free(&k);
	sbx_table *t;
	sbx_table_open(&t, db, "t");
	char val[100];
	memset(val, 'v', sizeof val);
	unsigned seed = 12345;
	double t0 = now_s();
	for (int i = 0; i < rows; i++) {
		char row[16];
		seed = seed * 1103515245u + 12345u;
		snprintf(row, sizeof row, "%08x", seed);
		sbx_mutation *m;
		sbx_mutation_new(&m, row, 8);
		sbx_mutation_put(m, "cf", "q", 1, SBX_LATEST_TIMESTAMP, val,
				 sizeof val);
		if (sbx_table_mutate(NULL, t, m)) {
			fprintf(stderr, "put: %s\n", sbx_errmsg());
			exit(1);
		}
		sbx_mutation_free(m);
	}
	double dt = now_s() - t0;
	sbx_table_close(t);
	sbx_db_close(db);
	if (system(cmd))
		return 0;
	return rows / dt;
}

int main(int argc, char **argv)
{
	int rows = 200000, rounds = 5;
	for (int i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--rows"))
			rows = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--rounds"))
			rounds = atoi(argv[i + 1]);
	}
	if (rounds > 32)
		rounds = 32;
	double on[32], off[32];
	for (int r = 0; r < rounds; r++) { /* interleaved to share noise */
		off[r] = run(false, rows, r);
		on[r] = run(true, rows, r);
		printf("round %d: routing off %.0f puts/s, on %.0f puts/s\n", r,
		       off[r], on[r]);
	}
	qsort(on, (size_t)rounds, sizeof *on, cmp_double);
	qsort(off, (size_t)rounds, sizeof *off, cmp_double);
	double mon = on[rounds / 2], moff = off[rounds / 2];
	printf("\nsingle-row puts, 16 regions, %d rows, median of %d rounds\n",
	       rows, rounds);
	printf("%-22s %12s %8s\n", "", "puts/s", "ratio");
	printf("%-22s %12.0f %8.3f\n", "routing off (ref)", moff, 1.0);
	printf("%-22s %12.0f %8.3f   (target >= 0.95)\n", "routing on", mon,
	       mon / moff);
	return 0;
}
