/*
 * test_keyviz.c - the hotspot analyzer: a monotonically increasing key puts
 * all load on one modelled server while salted and hashed keys spread it;
 * workload and trace errors name their line; heatmap buckets hold equal
 * counts of keys and are labelled by prefix; splits follow the policy;
 * SVG/HTML are well-formed; JSON round-trips.
 */
#include "check.h"

#include "common/buf.h"
#include "saltbox/keyviz.h"

#include <math.h>

static sbx_workload *parse_w(const char *text)
{
	sbx_workload *w = NULL;
	int line;
	if (sbx_workload_parse(&w, text, strlen(text), &line))
		fprintf(stderr, "parse: %s\n", sbx_errmsg());
	return w;
}

static sbx_keyviz_result *run(const char *wtext, const char *design)
{
	sbx_workload *w = parse_w(wtext);
	if (!w)
		return NULL;
	sbx_keydesign *d = NULL;
	sbx_keyparse_pos pos;
	if (design && sbx_keydesign_parse(&d, design, strlen(design), &pos)) {
		fprintf(stderr, "design: %s\n", sbx_errmsg());
		sbx_workload_free(w);
		return NULL;
	}
	sbx_keyviz_result *r = NULL;
	if (sbx_keyviz_simulate(&r, w, d, NULL))
		fprintf(stderr, "simulate: %s\n", sbx_errmsg());
	sbx_keydesign_free(d);
	sbx_workload_free(w);
	return r;
}

#define SEQ_WORKLOAD                                                         \
	"ops 40000\n"                                                        \
	"rate 1000/s\n"                                                      \
	"value 100\n"                                                        \
	"field id sequence start=1\n"                                        \
	"servers 4\n"                                                        \
	"region_size 256KB\n"

static void test_monotonic_key_is_one_hot_server(void)
{
	sbx_keyviz_result *r = run(SEQ_WORKLOAD, "id:u64");
	REQUIRE(r);
	CHECK_INT(r->ops, 40000);
	CHECK_INT(r->puts, 40000);
	CHECK_INT(r->servers, 4);
	/* every interval's writes land on the one region holding the end */
	CHECK(r->busiest_share > 0.99);
	CHECK(r->score > 3.9 && r->score <= 4.0);
	CHECK(r->splits >= 10); /* 40000 x 132 B = 5 MB over 256 KB regions */
	CHECK_INT(r->nregions, r->splits + 1);
	/* the last region (the hot one) starts above every other */
	sbx_keyviz_region *last = &r->regions[r->nregions - 1];
	CHECK_INT(last->end_len, 0);
	CHECK(last->writes > 0);
	sbx_keyviz_result_free(r);
}

static void test_salted_and_hashed_keys_spread(void)
{
	sbx_keyviz_result *r = run(SEQ_WORKLOAD "presplit salt\n",
				   "salt(4) + id:u64");
	REQUIRE(r);
	CHECK(r->busiest_share < 0.30); /* even is 0.25 */
	CHECK(r->score < 1.2);
	CHECK(r->nregions >= 4);
	sbx_keyviz_result_free(r);
	/* a hash prefix, no pre-split: splits and the balancer spread it */
	r = run(SEQ_WORKLOAD, "md5(id, bytes=4) + id:u64");
	REQUIRE(r);
	CHECK(r->busiest_share < 0.40);
	CHECK(r->total_share < 0.35);
	CHECK(r->splits >= 8);
	sbx_keyviz_result_free(r);
}

static void test_split_policy_disabled_and_prefix(void)
{
	sbx_keyviz_result *r = run(SEQ_WORKLOAD "split_policy disabled\n",
				   "id:u64");
	REQUIRE(r);
	CHECK_INT(r->nregions, 1);
	CHECK_INT(r->splits, 0);
	CHECK(fabs(r->busiest_share - 1.0) < 1e-9);
	sbx_keyviz_result_free(r);
	/* KeyPrefix(2): split points are cut to the 2-byte prefix */
	r = run("ops 20000\nfield g uniform min=10 max=99\n"
		"field id sequence\nregion_size 128KB\n"
		"split_policy keyprefix:2\n",
		"g:dec(2) + id:u64");
	REQUIRE(r);
	CHECK(r->nregions > 4);
	for (size_t i = 1; i < r->nregions; i++)
		CHECK_INT(r->regions[i].start_len, 2);
	sbx_keyviz_result_free(r);
}

static void check_parse_error(const char *text, int line, const char *msg)
{
	sbx_workload *w = NULL;
	int got = -1;
	CHECK_INT(sbx_workload_parse(&w, text, strlen(text), &got),
		  SBX_EPARSE);
	CHECK(w == NULL);
	CHECK_INT(got, line);
	CHECK_STR(sbx_errmsg(), msg);
}

static void test_workload_errors_name_the_line(void)
{
	check_parse_error("ops 10\nfield a zipf n=10\n", 2,
			  "line 2: field 'a': unknown generator 'zipf' "
			  "(sequence, time, uniform, zipfian, latest, set, "
			  "const, random)");
	check_parse_error("# c\n\nops ten\n", 3,
			  "line 3: ops: expected a whole number, found 'ten'");
	check_parse_error("ops 10\nfield a uniform min=5 max=1\n", 2,
			  "line 2: field 'a': max (1) below min (5)");
	check_parse_error("ops 10\nfield a sequence\nfield a sequence\n", 3,
			  "line 3: field 'a' defined twice (first on line 2)");
	check_parse_error("ops 10\nfield a sequence\nsplits 3\n", 3,
			  "line 3: unknown directive 'splits' (name, ops, "
			  "duration, rate, start, seed, value, preload, mix, "
			  "read, scan, field, servers, region_size, flush_size, "
			  "split_policy, presplit)");
	check_parse_error("field a sequence\n", 2,
			  "line 2: no 'ops N' or 'duration D' line: how long "
			  "does the workload run?");
	check_parse_error("ops 5\nfield a sequence\nmix put=0 get=1\n", 3,
			  "line 3: mix: gets and scans read existing records, "
			  "but there are no puts and no preload");
	check_parse_error("ops 5\nfield a sequence\npresplit keys b a\n", 3,
			  "line 3: presplit keys: 'a' is not above the key "
			  "before it (keys must be sorted and distinct)");
	check_parse_error("ops 5\nrate 10/x\n", 2,
			  "line 2: rate: unknown unit in '10/x' (/s, /m, /h)");
	check_parse_error("ops 5\nfield t time format=yymmdd\n", 2,
			  "line 2: format: ms, s, us or a strftime pattern with "
			  "%, not 'yymmdd'");
	check_parse_error("ops 5\nname 'x\n", 2, "line 2: unterminated quote '");
	/* a design the workload cannot feed is named too */
	sbx_workload *w = parse_w("ops 5\nfield a sequence\n");
	REQUIRE(w);
	sbx_keydesign *d;
	REQUIRE(!sbx_keydesign_parse(&d, "a:u64 + b:u8", 12, NULL));
	sbx_keyviz_result *r;
	CHECK_INT(sbx_keyviz_simulate(&r, w, d, NULL), SBX_EINVAL);
	CHECK_STR(sbx_errmsg(), "design 'key' needs field 'b', which the "
				"workload does not generate (add a 'field b "
				"...' line)");
	sbx_keydesign_free(d);
	sbx_workload_free(w);
}

static void test_trace_errors_name_the_line(void)
{
	sbx_workload *w = NULL;
	int line;
	const char *t = "k1\nput\tk2\ndel\tk3\n";
	CHECK_INT(sbx_trace_parse(&w, t, strlen(t), false, 0, &line),
		  SBX_EPARSE);
	CHECK_INT(line, 3);
	CHECK_STR(sbx_errmsg(), "line 3: unknown operation 'del' before the "
				"tab (put, get, scan, region, split, "
				"merge)");
	t = "00ff\n0g\n";
	CHECK_INT(sbx_trace_parse(&w, t, strlen(t), true, 0, &line),
		  SBX_EPARSE);
	CHECK_STR(sbx_errmsg(), "line 2: bad hex digit in '0g'");
	/* a record the design rejects, at replay */
	t = "# records\nid=1\nid=x\n";
	REQUIRE(!sbx_trace_parse(&w, t, strlen(t), false, 0, &line));
	sbx_keydesign *d;
	REQUIRE(!sbx_keydesign_parse(&d, "id:u64", 6, NULL));
	sbx_keyviz_result *r;
	CHECK(sbx_keyviz_simulate(&r, w, d, NULL) < 0);
	CHECK(!strncmp(sbx_errmsg(), "trace line 3: ", 14));
	sbx_keydesign_free(d);
	sbx_workload_free(w);
}

static void test_heatmap_buckets_equal_count(void)
{
	/* 1000 distinct keys k0000..k0999 in shuffled order, 10 buckets */
	sbx_buf t = {0};
	char line[32];
	for (int i = 0; i < 1000; i++) {
		int k = (i * 337) % 1000;
		int n = snprintf(line, sizeof line, "k%04d\n", k);
		size_t old = t.len;
		t.data = realloc(t.data, old + (size_t)n);
		memcpy(t.data + old, line, (size_t)n);
		t.len = old + (size_t)n;
	}
	sbx_workload *w;
	REQUIRE(!sbx_trace_parse(&w, (char *)t.data, t.len, false, 100, NULL));
	sbx_keyviz_opts o;
	sbx_keyviz_opts_init(&o);
	o.key_buckets = 10;
	o.time_buckets = 5;
	sbx_keyviz_result *r;
	REQUIRE(!sbx_keyviz_simulate(&r, w, NULL, &o));
	CHECK_INT(r->key_buckets, 10);
	for (int k = 0; k < 10; k++) {
		uint64_t sum = 0;
		for (int c = 0; c < 5; c++)
			sum += r->heat[k * 5 + c];
		CHECK_INT(sum, 100);
	}
	CHECK_STR(r->bucket_starts[0], "k0000");
	CHECK_STR(r->bucket_starts[1], "k0100");
	CHECK_STR(r->bucket_starts[9], "k0900");
	CHECK_STR(r->labels[0], "k00");
	CHECK_STR(r->labels[1], "k01");
	CHECK_STR(r->labels[9], "k09");
	CHECK_INT(r->bucket_ms, 2000); /* 1000 ops at 100/s over 5 columns */
	sbx_keyviz_result_free(r);
	sbx_workload_free(w);
	free(t.data);
	/* fewer distinct keys than buckets: fewer buckets, never empty ones */
	const char *few = "a\nb\na\nb\n";
	REQUIRE(!sbx_trace_parse(&w, few, strlen(few), false, 0, NULL));
	REQUIRE(!sbx_keyviz_simulate(&r, w, NULL, &o));
	CHECK_INT(r->key_buckets, 2);
	CHECK_STR(r->labels[0], "a");
	CHECK_STR(r->labels[1], "b");
	sbx_keyviz_result_free(r);
	sbx_workload_free(w);
}

static void test_generator_is_deterministic(void)
{
	sbx_workload *w = parse_w(
		"ops 1000\nseed 7\nmix put=70 get=20 scan=10\nscan user\n"
		"field user zipfian n=1000 prefix=u pad=4\n"
		"field ts time\nfield kind set values=a,b,c "
		"weights=1,1,2\n");
	REQUIRE(w);
	sbx_keydesign *d;
	const char *ds = "user:str(5) + ts:rts64 + kind:str(1)";
	REQUIRE(!sbx_keydesign_parse(&d, ds, strlen(ds), NULL));
	sbx_workload_iter *a, *b;
	REQUIRE(!sbx_workload_iter_new(&a, w, d));
	REQUIRE(!sbx_workload_iter_new(&b, w, d));
	sbx_workload_op x, y;
	int n = 0, puts = 0, same = 1;
	while (!sbx_workload_iter_next(a, &x)) {
		CHECK_INT(sbx_workload_iter_next(b, &y), SBX_OK);
		same &= x.kind == y.kind && x.key_len == y.key_len &&
			!memcmp(x.key, y.key, x.key_len);
		puts += x.kind == SBX_OP_PUT;
		CHECK_INT(x.key_len, 14);
		n++;
	}
	CHECK(same);
	CHECK_INT(n, 1000);
	CHECK(puts > 650 && puts < 750);
	sbx_workload_iter_free(a);
	sbx_workload_iter_free(b);
	/* scans on the leading field: one region request each */
	sbx_keyviz_result *r;
	REQUIRE(!sbx_keyviz_simulate(&r, w, d, NULL));
	CHECK(r->scans > 50);
	CHECK_INT(r->scan_requests, r->scans);
	CHECK_INT(r->full_scans, 0);
	sbx_keyviz_result_free(r);
	sbx_keydesign_free(d);
	/* behind a salt a scan fans out to every bucket */
	ds = "salt(8) + user:str(5) + ts:rts64 + kind:str(1)";
	REQUIRE(!sbx_keydesign_parse(&d, ds, strlen(ds), NULL));
	REQUIRE(!sbx_keyviz_simulate(&r, w, d, NULL));
	CHECK_INT(r->scan_requests, 8 * r->scans);
	sbx_keyviz_result_free(r);
	sbx_keydesign_free(d);
	/* a scan field the key does not lead with: full table scans */
	ds = "ts:ts64 + user:str(5) + kind:str(1)";
	REQUIRE(!sbx_keydesign_parse(&d, ds, strlen(ds), NULL));
	REQUIRE(!sbx_keyviz_simulate(&r, w, d, NULL));
	CHECK_INT(r->full_scans, r->scans);
	sbx_keyviz_result_free(r);
	sbx_keydesign_free(d);
	sbx_workload_free(w);
}

static int write_file(const char *path, const sbx_buf *b)
{
	FILE *f = fopen(path, "wb");
	if (!f)
		return -1;
	fwrite(b->data, 1, b->len, f);
	return fclose(f);
}

static void test_svg_html_json(void)
{
	sbx_keyviz_result *r = run(SEQ_WORKLOAD "name a <b> & 'c'\n",
				   "id:u64");
	REQUIRE(r);
	sbx_buf svg = {0}, html = {0}, json = {0};
	CHECK_INT(sbx_keyviz_svg(&svg, r), SBX_OK);
	const sbx_keyviz_result *rs[2] = {r, r};
	CHECK_INT(sbx_keyviz_html(&html, rs, 2, "t <&>"), SBX_OK);
	CHECK_INT(sbx_keyviz_json(&json, r), SBX_OK);
	/* structure: one root, a rect per cell, escaped text */
	CHECK(!strncmp((char *)svg.data, "<?xml version=\"1.0\"", 19));
	REQUIRE(sbx_buf_push(&svg, 0) == SBX_OK);
	size_t rects = 0;
	for (const char *p = (char *)svg.data; (p = strstr(p, "<rect ")); p++)
		rects++;
	/* background + cells + legend + server strip + two frames */
	CHECK_INT(rects, 1 + (size_t)r->key_buckets * 60 + 10 + 4 * 60 + 2);
	svg.len--;
	const char *dir = test_dir("keyviz");
	mkdir(dir, 0755);
	char p1[4200], p2[4200], cmd[9000];
	snprintf(p1, sizeof p1, "%s/h.svg", dir);
	snprintf(p2, sizeof p2, "%s/h.html", dir);
	CHECK_INT(write_file(p1, &svg), 0);
	CHECK_INT(write_file(p2, &html), 0);
	if (system("command -v xmllint >/dev/null 2>&1") == 0) {
		snprintf(cmd, sizeof cmd, "xmllint --noout '%s' '%s'", p1, p2);
		CHECK_INT(system(cmd), 0);
	}
	sbx_buf_push(&html, 0);
	CHECK(strstr((char *)html.data, "<title>t &lt;&amp;&gt;</title>"));
	CHECK(strstr((char *)html.data, "id=\"heatmap-1\""));
	CHECK(strstr((char *)html.data, "</html>\n"));
	/* JSON back to the same result */
	sbx_keyviz_result *back;
	REQUIRE(!sbx_keyviz_result_from_json(&back, (char *)json.data,
					     json.len));
	CHECK_STR(back->design, r->design);
	CHECK_STR(back->workload, "a <b> & c");
	CHECK_INT(back->nregions, r->nregions);
	CHECK_INT(back->heat_max, r->heat_max);
	CHECK(fabs(back->score - r->score) < 1e-9);
	CHECK_INT(back->heat[5], r->heat[5]);
	CHECK_INT(back->regions[1].start_len, r->regions[1].start_len);
	CHECK(!memcmp(back->regions[1].start, r->regions[1].start,
		      r->regions[1].start_len));
	sbx_buf again = {0};
	CHECK_INT(sbx_keyviz_svg(&again, back), SBX_OK);
	CHECK_INT(again.len, svg.len);
	sbx_keyviz_result_free(back);
	CHECK_INT(sbx_keyviz_result_from_json(&back, "{\"design\":1}", 12),
		  SBX_EPARSE);
	sbx_buf_free(&again);
	sbx_buf_free(&svg);
	sbx_buf_free(&html);
	sbx_buf_free(&json);
	sbx_keyviz_result_free(r);
}

static sbx_keyviz_result *run_opts(const char *wtext, const char *design,
				   int fail_at)
{
	sbx_workload *w = parse_w(wtext);
	sbx_keydesign *d = NULL;
	sbx_keyparse_pos pos;
	sbx_keyviz_result *r = NULL;
	if (!w || sbx_keydesign_parse(&d, design, strlen(design), &pos)) {
		sbx_workload_free(w);
		return NULL;
	}
	sbx_keyviz_opts o;
	sbx_keyviz_opts_init(&o);
	sbx_workload_cluster_opts(w, &o);
	o.time_buckets = 40;
	o.fail_at = fail_at;
	if (sbx_keyviz_simulate(&r, w, d, &o))
		fprintf(stderr, "simulate: %s\n", sbx_errmsg());
	sbx_keydesign_free(d);
	sbx_workload_free(w);
	return r;
}

/* The summary's per-region attribution adds up to the per-server load:
 * requests count on the server that served the region at the time, not
 * where the region ends up (a region moved by the balancer). */
static void test_load_attributed_when_served(void)
{
	sbx_keyviz_result *r = run_opts(SEQ_WORKLOAD, "id:u64", 0);
	REQUIRE(r);
	uint64_t by_region[4] = {0}, by_server[4] = {0};
	int moved = 0;
	for (size_t i = 0; i < r->nregions; i++) {
		const sbx_keyviz_region *x = &r->regions[i];
		REQUIRE(x->served_by);
		for (int t = 0; t < r->time_buckets; t++) {
			if (x->load[t])
				REQUIRE(x->served_by[t] >= 0 &&
					x->served_by[t] < 4);
			if (x->load[t]) {
				by_region[x->served_by[t]] += x->load[t];
				moved += x->served_by[t] != x->server;
			}
		}
	}
	for (int t = 0; t < r->time_buckets; t++)
		for (int v = 0; v < 4; v++)
			by_server[v] += r->server_load[(size_t)t * 4 + v];
	for (int v = 0; v < 4; v++)
		CHECK_INT(by_region[v], by_server[v]);
	CHECK_INT(by_server[0] + by_server[1] + by_server[2] + by_server[3],
		  40000);
	/* the balancer moved regions after serving them: a region's end
	 * server is not where its load was */
	CHECK(moved > 0);
	CHECK_INT(r->nfailed, 0);
	CHECK_INT(r->unserved, 0);
	sbx_keyviz_result_free(r);
}

/* The domino effect: the busiest server goes down at bucket 20 of 40.
 * A sequential key's one hot region moves to the next server, which is
 * over twice the pre-failure mean (500 requests a bucket) and falls at
 * the next bucket, and so on until no server is left; a key salted over
 * 16 buckets spreads the failed server's load and nothing else falls. */
static void test_domino_effect(void)
{
	sbx_keyviz_result *r = run_opts(SEQ_WORKLOAD, "id:u64", 20);
	REQUIRE(r);
	CHECK_INT(r->fail_capacity, 500); /* 2 x 1000 requests / 4 servers */
	CHECK_INT(r->nfailed, 4);
	if (r->nfailed == 4) {
		CHECK_INT(r->failed_server[0], 0);
		CHECK_INT(r->failed_at[0], 20);
		/* each time to the live server with the fewest regions, the
		 * balancer running every 1/60 of the run (a period) */
		CHECK_INT(r->failed_server[1], 2);
		CHECK_INT(r->failed_at[1], 21);
		CHECK_INT(r->failed_server[2], 3);
		CHECK_INT(r->failed_at[2], 22);
		CHECK_INT(r->failed_server[3], 1);
		CHECK_INT(r->failed_at[3], 23);
	}
	/* buckets 23..39 (17 x 1000 requests) found no server */
	CHECK_INT(r->unserved, 17000);
	/* bucket 20: the whole load on server 2, none on the dead 0 */
	CHECK_INT(r->server_load[20 * 4 + 0], 0);
	CHECK_INT(r->server_load[20 * 4 + 2], 1000);
	sbx_keyviz_result_free(r);

	r = run_opts(SEQ_WORKLOAD "presplit salt\n",
		     "salt(16, of=id) + id:u64", 20);
	REQUIRE(r);
	CHECK_INT(r->fail_capacity, 500);
	CHECK_INT(r->nfailed, 1);
	if (r->nfailed == 1) {
		CHECK_INT(r->failed_server[0], 0);
		CHECK_INT(r->failed_at[0], 20);
	}
	CHECK_INT(r->unserved, 0);
	/* after the failure, the three live servers share every bucket and
	 * none goes over its capacity */
	for (int t = 20; t < 40; t++) {
		CHECK_INT(r->server_load[(size_t)t * 4 + 0], 0);
		for (int v = 1; v < 4; v++)
			CHECK(r->server_load[(size_t)t * 4 + v] <= 500);
	}
	sbx_keyviz_result_free(r);
}

TEST_MAIN(T(test_monotonic_key_is_one_hot_server),
	  T(test_salted_and_hashed_keys_spread),
	  T(test_split_policy_disabled_and_prefix),
	  T(test_workload_errors_name_the_line),
	  T(test_trace_errors_name_the_line),
	  T(test_heatmap_buckets_equal_count),
	  T(test_generator_is_deterministic), T(test_svg_html_json),
	  T(test_load_attributed_when_served), T(test_domino_effect))
