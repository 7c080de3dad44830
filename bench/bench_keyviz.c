/*
 * bench_keyviz.c - the simulator's replay rate against the bare
 * key-encoding rate of the same workload, in one run: generating the
 * records and encoding their keys (what any client must do) versus that
 * plus the modelled cluster (routing, splits, balancer, heatmap).
 * Target (issue 5): replay >= 0.3x encoding. Prints a ratio, never fails.
 */
#include "bench_util.h"
#include "saltbox/keyviz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *WORKLOAD =
	"name bench: seed 002 chat messages, 80% puts\n"
	"ops 1000000\n"
	"rate 2000/s\n"
	"start 2023-06-11T06:30:31Z\n"
	"value 200\n"
	"mix put=80 get=15 scan=5\n"
	"read latest\n"
	"scan message_id rows=20\n"
	"field message_id sequence start=1231231\n"
	"field date time format=%y%m%d\n"
	"field time time format=%H%M%S\n"
	"region_size 64MB\n";

static const char *DESIGNS[] = {
	"chat_time = date:str(6) + ':' + time:str(6) + ':' + message_id:dec",
	"chat_md5  = md5(message_id) + ':' + date:str(6) + ':' + time:str(6) "
	"+ ':' + message_id:dec",
	"salted    = salt(16, of=message_id) + date:str(6) + time:str(6) + "
	"message_id:u64",
};

int main(int argc, char **argv)
{
	int reps = argc > 1 ? atoi(argv[1]) : 3;
	if (reps < 1)
		reps = 1;
	sbx_workload *w;
	int line;
	if (sbx_workload_parse(&w, WORKLOAD, strlen(WORKLOAD), &line)) {
		fprintf(stderr, "workload: %s\n", sbx_errmsg());
		return 1;
	}
	uint64_t ops = sbx_workload_ops(w);
	printf("bench_keyviz: %llu ops (80%% put, 15%% get, 5%% scan), best of "
	       "%d\n",
	       (unsigned long long)ops, reps);
	printf("%-10s %14s %14s %7s\n", "design", "encode ops/s",
	       "replay ops/s", "ratio");
	for (size_t i = 0; i < sizeof DESIGNS / sizeof *DESIGNS; i++) {
		sbx_keydesign *d;
		if (sbx_keydesign_parse(&d, DESIGNS[i], strlen(DESIGNS[i]),
					NULL)) {
			fprintf(stderr, "design: %s\n", sbx_errmsg());
			return 1;
		}
		double enc = 1e30, sim = 1e30;
		uint64_t sink = 0;
		for (int r = 0; r < reps; r++) {
			double t0 = now_s();
			sbx_workload_iter *it;
			if (sbx_workload_iter_new(&it, w, d))
				return 1;
			sbx_workload_op op;
			while (!sbx_workload_iter_next(it, &op))
				sink += op.key_len;
			sbx_workload_iter_free(it);
			double t1 = now_s();
			sbx_keyviz_result *res;
			if (sbx_keyviz_simulate(&res, w, d, NULL)) {
				fprintf(stderr, "simulate: %s\n", sbx_errmsg());
				return 1;
			}
			double t2 = now_s();
			sink += res->splits;
			sbx_keyviz_result_free(res);
			if (t1 - t0 < enc)
				enc = t1 - t0;
			if (t2 - t1 < sim)
				sim = t2 - t1;
		}
		printf("%-10s %14.0f %14.0f %6.2fx\n", sbx_keydesign_name(d),
		       ops / enc, ops / sim, enc / sim);
		sbx_keydesign_free(d);
		if (sink == 42)
			printf(" ");
	}
	sbx_workload_free(w);
	return 0;
}
