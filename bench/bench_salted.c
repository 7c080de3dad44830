/*
 * bench_salted.c - what salting costs a range read: the same rows stored
 * under `user_id:str(8) + seq:str(8)` (unsalted) and under the same design
 * salted into 16 buckets, read in full and as a 10% slice, forward and
 * reversed; the salted table through the merged scan (one scanner per
 * bucket). Prints rows/s and the salted/unsalted time ratio (target <= 1.3).
 *
 * usage: bench_salted [--rows N] [--rounds R]
 */
#include "bench_util.h"
#include "saltbox.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static sbx_keydesign *design(const char *text)
{
	sbx_keydesign *d;
	sbx_keyparse_pos pos;
	if (sbx_keydesign_parse(&d, text, strlen(text), &pos))
		die("design");
	return d;
}

static void load(sbx_table *t, const sbx_keydesign *d, int rows)
{
	char val[100];
	memset(val, 'v', sizeof val);
	sbx_mutation *batch[256];
	int nb = 0;
	for (int i = 0; i < rows; i++) {
		char user[16], seq[16];
		snprintf(user, sizeof user, "u%07d", i / 100);
		snprintf(seq, sizeof seq, "%08d", i % 100);
		sbx_keyvalue v[2] = {{"user_id", user, 8}, {"seq", seq, 8}};
		sbx_buf key = {0};
		if (sbx_keydesign_encode(&key, d, v, 2))
			die("encode");
		sbx_mutation_new(&batch[nb], key.data, key.len);
		sbx_mutation_put(batch[nb], "cf", "v", 1, 1, val, sizeof val);
		sbx_buf_free(&key);
		if (++nb == 256 || i == rows - 1) {
			if (sbx_table_batch(NULL, t, batch, (size_t)nb))
				die("batch");
			for (int k = 0; k < nb; k++)
				sbx_mutation_free(batch[k]);
			nb = 0;
		}
	}
}

/* Seconds to read the plan's rows (merged when salted); *n gets the count. */
static double read_plan(sbx_table *t, const sbx_keyplan *p, bool reversed,
			long *n)
{
	sbx_scan_opts o;
	sbx_scan_opts_init(&o);
	o.reversed = reversed;
	sbx_scanner *s;
	double t0 = now_s();
	if (sbx_scanner_open_plan(&s, t, p, &o))
		die("scan");
	sbx_result *r;
	*n = 0;
	while (sbx_scanner_next(s, &r) == SBX_OK) {
		(*n)++;
		sbx_result_free(r);
	}
	sbx_scanner_close(s);
	return now_s() - t0;
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
	if (rounds < 1 || rounds > 64)
		rounds = 5;
	char dir[128], cmd[160];
	snprintf(dir, sizeof dir, "/tmp/bench_salted.%d", (int)getpid());
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd))
		return 1;
	sbx_db *db;
	if (sbx_db_open(&db, dir, NULL))
		die("open");
	sbx_family_desc f;
	sbx_family_desc_init(&f, "cf");
	sbx_keydesign *plain = design("user_id:str(8) + seq:str(8)");
	sbx_keydesign *salted =
		design("salt(16) + user_id:str(8) + seq:str(8)");
	sbx_table *tp = NULL, *ts = NULL;
	if (sbx_table_create(db, "plain", &f, 1) ||
	    sbx_table_create(db, "salted", &f, 1) ||
	    sbx_table_open(&tp, db, "plain") ||
	    sbx_table_open(&ts, db, "salted"))
		die("create");
	load(tp, plain, rows);
	load(ts, salted, rows);
	sbx_table_flush(db, "plain");
	sbx_table_flush(db, "salted");
	/* whole table, and the slice of users [u0000100, u0000300) = 10% */
	char lo[16], hi[16];
	snprintf(lo, sizeof lo, "u%07d", rows / 100 / 10);
	snprintf(hi, sizeof hi, "u%07d", rows / 100 / 10 * 2);
	sbx_keycond slice[2] = {{"user_id", SBX_KEYCOND_GE, lo, 8},
				{"user_id", SBX_KEYCOND_LT, hi, 8}};
	printf("salted (16 buckets, merged) vs unsalted scan of the same %d "
	       "rows, median of %d rounds\n\n",
	       rows, rounds);
	printf("%-22s %12s %12s %8s\n", "read", "unsalted r/s", "salted r/s",
	       "time x");
	for (int q = 0; q < 4; q++) {
		bool reversed = q % 2;
		size_t nc = q < 2 ? 0 : 2;
		sbx_keyplan *pp, *ps;
		if (sbx_keydesign_plan(&pp, plain, nc ? slice : NULL, nc) ||
		    sbx_keydesign_plan(&ps, salted, nc ? slice : NULL, nc))
			die("plan");
		double tpv[64], tsv[64];
		long np = 0, ns = 0;
		for (int r = 0; r < rounds; r++) {
			tpv[r] = read_plan(tp, pp, reversed, &np);
			tsv[r] = read_plan(ts, ps, reversed, &ns);
		}
		if (np != ns) {
			fprintf(stderr, "row counts differ: %ld vs %ld\n", np, ns);
			return 1;
		}
		qsort(tpv, (size_t)rounds, sizeof *tpv, cmp_double);
		qsort(tsv, (size_t)rounds, sizeof *tsv, cmp_double);
		double a = tpv[rounds / 2], b = tsv[rounds / 2];
		char label[64];
		snprintf(label, sizeof label, "%s, %s",
			 q < 2 ? "full table" : "10% slice",
			 reversed ? "reversed" : "forward");
		printf("%-22s %12.0f %12.0f %8.2f\n", label, np / a, ns / b, b / a);
		sbx_keyplan_free(pp);
		sbx_keyplan_free(ps);
	}
	printf("\ntarget: salted time <= 1.3x unsalted\n");
	sbx_keydesign_free(plain);
	sbx_keydesign_free(salted);
	sbx_table_close(tp);
	sbx_table_close(ts);
	sbx_db_close(db);
	return system(cmd) ? 1 : 0;
}
