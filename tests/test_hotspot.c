/*
 * test_hotspot.c - issue 17: the one hotspot verdict (sbx_hotspot_compute),
 * key-bucket labels, the bounded key sampler behind the live heatmap by key
 * (1M distinct keys: memory under its bound, equal-count buckets within
 * 25%, per-access cost), the table layer feeding it (30,000 increasing keys
 * into a one-region table: "hot", the bug of the issue), and the one
 * renderer's units, axis title, boundaries and verdict colour.
 */
#include "check.h"
#include "engine_util.h"

#include "common/buf.h"

#include "saltbox/hotspot.h"
#include "saltbox/keyviz.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static char *verdict_text(const sbx_hotspot *h, const char *prefix)
{
	static char out[512];
	sbx_buf b = {0};
	out[0] = 0;
	if (!sbx_hotspot_text(&b, h, prefix) && !sbx_buf_push(&b, 0))
		snprintf(out, sizeof out, "%s", (const char *)b.data);
	sbx_buf_free(&b);
	return out;
}

static void test_verdict_one_server_takes_everything(void)
{
	/* 3 intervals x 4 servers, every request on server 1 */
	const uint64_t load[] = {0, 500, 0, 0, 0, 700, 0, 0, 0, 300, 0, 0};
	sbx_hotspot h;
	CHECK_INT(sbx_hotspot_compute(&h, load, 3, 4), SBX_OK);
	CHECK_INT(h.level, SBX_HOTSPOT_HOT);
	CHECK_STR(h.word, "hot");
	CHECK_STR(h.color, "#d32f2f"); /* red */
	CHECK(fabs(h.score - 4.0) < 1e-12);
	CHECK(fabs(h.busiest_share - 1.0) < 1e-12);
	CHECK_INT(h.busiest_server, 1);
	CHECK_INT(h.total, 1500);
	CHECK_STR(verdict_text(&h, NULL),
		  "hot: server 1 served 100% of the load; hotspot score 4.00 "
		  "of 4 (1 = even, hot from 2.00)");
	CHECK_STR(verdict_text(&h, "server-"),
		  "hot: server-1 served 100% of the load; hotspot score 4.00 "
		  "of 4 (1 = even, hot from 2.00)");
}

static void test_verdict_levels(void)
{
	sbx_hotspot h;
	const uint64_t even[] = {10, 10, 10, 10};
	CHECK_INT(sbx_hotspot_compute(&h, even, 1, 4), SBX_OK);
	CHECK_STR(h.word, "even");
	CHECK_STR(h.color, "#2e7d32");
	CHECK(fabs(h.score - 1.0) < 1e-12);
	/* busiest 40%: score 1.6, from 1.5 (halfway to 2) uneven */
	const uint64_t uneven[] = {40, 20, 20, 20};
	CHECK_INT(sbx_hotspot_compute(&h, uneven, 1, 4), SBX_OK);
	CHECK_STR(h.word, "uneven");
	CHECK_STR(h.color, "#ef6c00");
	CHECK(fabs(h.score - 1.6) < 1e-12);
	const uint64_t half[] = {50, 20, 20, 10};
	CHECK_INT(sbx_hotspot_compute(&h, half, 1, 4), SBX_OK);
	CHECK_STR(h.word, "hot");
	/* a moving hotspot: each interval one server, the totals even */
	const uint64_t moving[] = {90, 0, 0, 0, 0, 90, 0, 0,
				   0, 0, 90, 0, 0, 0, 0, 90};
	CHECK_INT(sbx_hotspot_compute(&h, moving, 4, 4), SBX_OK);
	CHECK_STR(h.word, "hot");
	CHECK(fabs(h.score - 4.0) < 1e-12);
	CHECK(fabs(h.busiest_server_share - 0.25) < 1e-12);
	/* a trickle, one request at a time round the servers: intervals are
	 * grouped to 10 x N = 40 requests, so it is even, not hot */
	uint64_t trickle[4 * 48] = {0};
	for (int t = 0; t < 48; t++)
		trickle[t * 4 + t % 4] = 1;
	CHECK_INT(sbx_hotspot_compute(&h, trickle, 48, 4), SBX_OK);
	CHECK_STR(h.word, "even");
	CHECK(fabs(h.score - 1.0) < 1e-12); /* one group of 48: 12 each */
	/* 41 requests then 7: the short last group joins the first */
	const uint64_t tail[] = {41, 0, 0, 0, 0, 7, 0, 0};
	CHECK_INT(sbx_hotspot_compute(&h, tail, 2, 4), SBX_OK);
	CHECK(fabs(h.score - 4.0 * 41 / 48) < 1e-12);
	/* two servers: hot from 1.5 (75%) */
	CHECK(fabs(sbx_hotspot_hot_score(2) - 1.5) < 1e-12);
	CHECK(fabs(sbx_hotspot_hot_score(3) - 2.0) < 1e-12);
	CHECK(fabs(sbx_hotspot_hot_score(100) - 2.0) < 1e-12);
	const uint64_t two[] = {75, 25};
	CHECK_INT(sbx_hotspot_compute(&h, two, 1, 2), SBX_OK);
	CHECK_STR(h.word, "hot");
	/* one server: nothing to spread over */
	const uint64_t one[] = {99};
	CHECK_INT(sbx_hotspot_compute(&h, one, 1, 1), SBX_OK);
	CHECK_STR(h.word, "even");
	CHECK_STR(verdict_text(&h, NULL),
		  "even: one server, nothing to spread the load over");
	const uint64_t none[] = {0, 0};
	CHECK_INT(sbx_hotspot_compute(&h, none, 1, 2), SBX_OK);
	CHECK_STR(h.word, "idle");
	CHECK_STR(verdict_text(&h, NULL), "idle: no load");
	CHECK_INT(sbx_hotspot_compute(&h, NULL, 2, 2), SBX_EINVAL);
	CHECK_INT(sbx_hotspot_compute(&h, even, 1, 0), SBX_EINVAL);
}

/* The keyviz score does not depend on the heatmap's columns (the bug of
 * the issue: chat_md5 1.18 at 40 columns, 1.10 at 60). */
static void test_keyviz_score_independent_of_time_buckets(void)
{
	const char *wl = "name t\nops 40000\nrate 2000/s\nseed 3\n"
			 "mix put=80 get=20\nread zipfian\n"
			 "field id uniform n=1000000\n";
	const char *dt = "md5(id, bytes=4) + id:dec";
	sbx_workload *w = NULL;
	sbx_keydesign *d = NULL;
	REQUIRE(sbx_workload_parse(&w, wl, strlen(wl), NULL) == SBX_OK);
	REQUIRE(sbx_keydesign_parse(&d, dt, strlen(dt), NULL) == SBX_OK);
	double first = -1;
	const int cols[] = {17, 40, 60, 100};
	for (size_t i = 0; i < 4; i++) {
		sbx_keyviz_opts o;
		sbx_keyviz_opts_init(&o);
		sbx_workload_cluster_opts(w, &o);
		o.policy.max_file_size = 1 << 20;
		o.policy.flush_size = o.policy.max_file_size / 80;
		o.time_buckets = cols[i];
		sbx_keyviz_result *r = NULL;
		CHECK_INT(sbx_keyviz_simulate(&r, w, d, &o), SBX_OK);
		if (!r)
			continue;
		if (first < 0)
			first = r->score;
		else
			CHECK(fabs(r->score - first) < 1e-12);
		CHECK(r->score > 1 && r->score < 2);
		sbx_keyviz_result_free(r);
	}
	sbx_keydesign_free(d);
	sbx_workload_free(w);
}

static void test_labels_fixed_width_or_whole_fields(void)
{
	/* no design: one width for all, the longest distinguishing prefix */
	const char *k[] = {"230611:063031", "230611:06303", "230611:063049",
			   "230611:0631"};
	sbx_bytes keys[4];
	for (int i = 0; i < 4; i++)
		keys[i] = (sbx_bytes){k[i], strlen(k[i])};
	char **l = NULL;
	REQUIRE(sbx_key_labels(&l, keys, 4, NULL) == SBX_OK);
	CHECK_STR(l[0], "230611:06303");
	CHECK_STR(l[1], "230611:06303");
	CHECK_STR(l[2], "230611:06304");
	CHECK_STR(l[3], "230611:0631");
	sbx_labels_free(l, 4);
	/* binary keys: escaped, the empty key is the table's start */
	const uint8_t b1[] = {0x00, 0x01, 0xff}, b2[] = {0x00, 0x02, 0x00};
	sbx_bytes bk[3] = {{"", 0}, {b1, 3}, {b2, 3}};
	REQUIRE(sbx_key_labels(&l, bk, 3, NULL) == SBX_OK);
	CHECK_STR(l[0], "(start)");
	CHECK_STR(l[1], "\\x00\\x01");
	CHECK_STR(l[2], "\\x00\\x02");
	sbx_labels_free(l, 3);
	/* a design: whole fields up to the first that differs */
	const char *dt = "date:str(6) + ':' + time:str(6) + ':' + id:dec";
	sbx_keydesign *d = NULL;
	REQUIRE(sbx_keydesign_parse(&d, dt, strlen(dt), NULL) == SBX_OK);
	const char *dk[] = {"230611:063031:17", "230611:063031:200",
			    "230611:063049:5", "230612:000000:9"};
	sbx_bytes dkeys[4];
	for (int i = 0; i < 4; i++)
		dkeys[i] = (sbx_bytes){dk[i], strlen(dk[i])};
	REQUIRE(sbx_key_labels(&l, dkeys, 4, d) == SBX_OK);
	CHECK_STR(l[0], "230611:063031:17");
	CHECK_STR(l[1], "230611:063031:200");
	CHECK_STR(l[2], "230611:063049");
	CHECK_STR(l[3], "230612");
	sbx_labels_free(l, 4);
	sbx_keydesign_free(d);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The number in a key "k0123456" (not NUL-terminated). */
static long key_number(const sbx_bytes *k)
{
	char t[32] = {0};
	memcpy(t, k->data, k->len < 31 ? k->len : 31);
	return strtol(t + 1, NULL, 10);
}

/* 1M distinct keys in one minute (docs/hotspots.md's bound): memory is the
 * bound and does not grow; 32 buckets each hold 1M/32 keys within 25%. */
static void test_sampler_million_keys_bounded(void)
{
	sbx_keysampler_opts o;
	sbx_keysampler_opts_init(&o);
	CHECK_INT(o.column_ms, 1000);
	CHECK_INT(o.columns, 600);
	CHECK_INT(o.samples, 128);
	CHECK_INT(o.key_max, 32);
	size_t bound = sbx_keysampler_bound(&o);
	/* 600 x 128 samples x (32 key bytes + 8) + 600 columns x 40 + head */
	CHECK(bound <= 3100000);
	CHECK(bound >= 600u * 128 * 40 + 600 * 40);
	sbx_keysampler *s = NULL;
	REQUIRE(sbx_keysampler_new(&s, &o) == SBX_OK);
	size_t before = sbx_keysampler_memory(s);
	CHECK_INT(before, bound);
	enum { N = 1000000, ROWS = 32 };
	int64_t t0 = 1700000000000;
	char key[32];
	double start = now_s();
	for (uint32_t i = 0; i < N; i++) {
		/* keys k0000000..k0999999 in a scattered order, 60 s */
		uint32_t id = (uint32_t)(((uint64_t)i * 480881u) % N);
		int len = snprintf(key, sizeof key, "k%07u", id);
		sbx_keysampler_record(s, t0 + (int64_t)i * 60000 / N, key,
				      (size_t)len, i % 4 != 0, 100);
	}
	double per_op_ns = (now_s() - start) * 1e9 / N;
	printf("key sampler: %.0f ns per access (snprintf included), "
	       "%zu bytes\n", per_op_ns, sbx_keysampler_memory(s));
	CHECK(per_op_ns < 5000);
	CHECK_INT(sbx_keysampler_memory(s), before);
	sbx_keyheat *h = NULL;
	REQUIRE(sbx_keysampler_heat(&h, s, t0 + 59999, 60, ROWS) == SBX_OK);
	CHECK_INT(h->rows, ROWS);
	CHECK_INT(h->cols, 60);
	CHECK_INT(h->column_ms, 1000);
	CHECK_INT(h->start_ms, t0);
	CHECK_INT(h->distinct, 60 * 128); /* every sample a distinct key */
	double reads = 0, writes = 0, bytes = 0;
	for (size_t i = 0; i < h->rows * h->cols; i++) {
		reads += h->reads[i];
		writes += h->writes[i];
		bytes += h->bytes[i];
	}
	/* each column's totals are exact; the samples share them out */
	CHECK(fabs(reads - N / 4) < 1);
	CHECK(fabs(writes - 3 * N / 4) < 1);
	CHECK(fabs(bytes - 100.0 * N) < 100);
	/* equal-count: the true number of keys in each bucket */
	int worst = 0;
	for (size_t b = 0; b < h->rows; b++) {
		long lo = b ? key_number(&h->starts[b]) : 0;
		long hi = b + 1 < h->rows ? key_number(&h->starts[b + 1]) : N;
		long want = N / ROWS, dev = labs((hi - lo) - want);
		if (dev * 100 / want > worst)
			worst = (int)(dev * 100 / want);
		CHECK(dev * 4 <= want); /* within 25% */
	}
	printf("equal-count buckets: worst %d%% off 1M/32\n", worst);
	sbx_keyheat_free(h);
	CHECK_INT(sbx_keysampler_heat(&h, s, t0, 601, 8), SBX_EINVAL);
	CHECK_INT(sbx_keysampler_heat(&h, s, t0, 10, 0), SBX_EINVAL);
	sbx_keysampler_free(s);
	o.samples = 0;
	CHECK_INT(sbx_keysampler_new(&s, &o), SBX_EINVAL);
}

/* Issue 17's bug: 30,000 increasing keys into a one-region table. The
 * verdict over the table's load is hot, and the key heatmap has the
 * diagonal: later columns hold later keys. */
static void test_sequential_keys_one_region_is_hot(void)
{
	sbx_db *db = open_fresh("hotspot_seq");
	REQUIRE(db);
	CHECK_INT(sbx_db_keysample(db, NULL), SBX_OK);
	CHECK_INT(sbx_db_keysample(db, NULL), SBX_EINVAL); /* on already */
	sbx_family_desc f;
	sbx_family_desc_init(&f, "cf");
	REQUIRE(sbx_table_create(db, "seq", &f, 1) == SBX_OK);
	sbx_table *t = NULL;
	REQUIRE(sbx_table_open(&t, db, "seq") == SBX_OK);
	for (int i = 0; i < 30000; i++) {
		char row[16];
		int len = snprintf(row, sizeof row, "%08d", i);
		sbx_mutation *m = NULL;
		REQUIRE(sbx_mutation_new(&m, row, (size_t)len) == SBX_OK);
		sbx_mutation_put(m, "cf", "q", 1, SBX_LATEST_TIMESTAMP, "v", 1);
		CHECK_INT(sbx_table_mutate(NULL, t, m), SBX_OK);
		sbx_mutation_free(m);
	}
	sbx_region_load *l = NULL;
	size_t n = 0;
	REQUIRE(sbx_table_load(&l, &n, db, "seq", 60) == SBX_OK);
	CHECK_INT(n, 1);
	int S = sbx_db_region_servers(db);
	CHECK_INT(S, 4);
	uint64_t *m = calloc(60 * (size_t)S, sizeof *m);
	REQUIRE(m);
	for (size_t k = 0; k < l[0].nbuckets; k++)
		m[k * (size_t)S + (size_t)l[0].server] = l[0].buckets[k].writes;
	sbx_hotspot h;
	CHECK_INT(sbx_hotspot_compute(&h, m, 60, S), SBX_OK);
	CHECK_INT(h.total, 30000);
	CHECK_STR(h.word, "hot");
	CHECK_STR(h.color, "#d32f2f");
	CHECK(fabs(h.score - 4.0) < 1e-12);
	free(m);
	sbx_region_loads_free(l, n);
	sbx_keyheat *kh = NULL;
	REQUIRE(sbx_table_keyheat(&kh, db, "seq", 600, 16) == SBX_OK);
	CHECK_INT(kh->rows, 16);
	double w = 0;
	for (size_t i = 0; i < kh->rows * kh->cols; i++)
		w += kh->writes[i];
	CHECK(fabs(w - 30000) < 1e-6);
	/* the diagonal: the bucket of the first key is written no later
	 * than the bucket of the last key */
	size_t first_col = SIZE_MAX, last_col = 0;
	for (size_t c = 0; c < kh->cols; c++) {
		if (kh->writes[c] > 0 && first_col == SIZE_MAX)
			first_col = c;
		if (kh->writes[(kh->rows - 1) * kh->cols + c] > 0)
			last_col = c;
	}
	CHECK(first_col <= last_col);
	/* buckets in key order, over the keys written ("0000...".."0002...") */
	for (size_t b = 0; b + 1 < kh->rows; b++)
		CHECK(memcmp(kh->starts[b].data, kh->starts[b + 1].data, 8) < 0);
	CHECK_MEM(kh->starts[0].data, 4, "0000");
	CHECK_MEM(kh->starts[kh->rows - 1].data, 3, "000");
	CHECK(((const char *)kh->starts[kh->rows - 1].data)[3] == '2');
	sbx_keyheat_free(kh);
	CHECK_INT(sbx_table_keyheat(&kh, db, "seq", 601, 16), SBX_EINVAL);
	sbx_table_close(t);
	sbx_db_close(db);
}

static void test_heatgrid_units_axis_boundaries(void)
{
	const char *labels[] = {"aa", "ab", "b"};
	const char *ranges[] = {"[aa, ab)", "[ab, b)", "[b, (end))"};
	const double vals[] = {0, 1, 2, 3, 4, 5};
	const double bounds[] = {1, 2};
	const uint64_t load[] = {1, 0, 2, 0};
	sbx_hotspot v;
	REQUIRE(sbx_hotspot_compute(&v, load, 2, 2) == SBX_OK);
	sbx_heatgrid g = {
	    .title = "t <1>",
	    .rows = 3,
	    .cols = 2,
	    .labels = labels,
	    .ranges = ranges,
	    .values = vals,
	    .unit = "ops per 1 s column",
	    .time_title = "time",
	    .column_ms = 1000,
	    .live = true,
	    .boundaries = bounds,
	    .nboundaries = 2,
	    .server_load = load,
	    .servers = 2,
	    .server_unit = "ops",
	    .verdict = &v,
	};
	sbx_buf b = {0};
	REQUIRE(sbx_heatgrid_svg(&b, &g, "x") == SBX_OK);
	REQUIRE(sbx_buf_push(&b, 0) == SBX_OK);
	const char *svg = (const char *)b.data;
	CHECK(strstr(svg, "t &lt;1&gt;") != NULL);
	CHECK(strstr(svg, ">colour scale: 0 to 5 ops per 1 s column (the "
			  "brightest cell)</text>") != NULL);
	CHECK(strstr(svg, "load per region server (0 to 2 ops per column)") !=
	      NULL);
	CHECK(strstr(svg, "<text class=\"verdict\" data-verdict=\"hot\" "
			  "x=\"120\" y=\"32\" font-size=\"11\" "
			  "font-weight=\"bold\" fill=\"#d32f2f\">hot: server "
			  "0 served 100% of the load") != NULL);
	/* the key-axis title runs vertically at x = 14, left of the labels,
	 * which end at x = 115: no overlap */
	CHECK(strstr(svg, "<text class=\"axis-title\" transform=\"translate(14 "
			  "98.0) rotate(-90)\"") != NULL);
	CHECK(strstr(svg, "<text class=\"key-label\" x=\"115\" y=\"77.0\" "
			  "text-anchor=\"end\" font-family=\"monospace\" "
			  "font-size=\"9\">aa</text>") != NULL);
	int lines = 0;
	for (const char *p = svg; (p = strstr(p, "class=\"region-boundary\""));
	     p++)
		lines++;
	CHECK_INT(lines, 2);
	CHECK(strstr(svg, "<title>[ab, b)\n-1 s: 3 ops per 1 s column"
			  "</title>") != NULL);
	CHECK(strstr(svg, ">-2 s</text>") != NULL);
	CHECK(strstr(svg, ">now</text>") != NULL);
	sbx_buf_free(&b);
}

TEST_MAIN(T(test_verdict_one_server_takes_everything),
	  T(test_verdict_levels),
	  T(test_keyviz_score_independent_of_time_buckets),
	  T(test_labels_fixed_width_or_whole_fields),
	  T(test_sampler_million_keys_bounded),
	  T(test_sequential_keys_one_region_is_hot),
	  T(test_heatgrid_units_axis_boundaries))
