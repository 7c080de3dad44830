/*
 * cmd_keyviz.c - `saltbox keyviz simulate|compare|render`: replay a
 * workload or a trace through one or several key designs on a modelled
 * cluster, print a summary (with progress on a terminal), and write the
 * Key Visualizer-style heatmaps as SVG, HTML and JSON.
 */
#include "cli.h"
#include "common/buf.h"
#include "saltbox/hotspot.h"
#include "keyviz_report.h"
#include "saltbox/keyviz.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { MAX_INPUT = 256 << 20, MAX_DESIGNS = 64 };

typedef struct kv_opts {
	const char *verb;
	const char *workload, *trace;
	bool hex, quiet;
	double rate;
	const char *designs[MAX_DESIGNS]; /* inline */
	int ndesigns;
	const char *file;
	const char *names[MAX_DESIGNS];
	int nnames;
	const char *svg, *html, *json, *svg_dir, *title;
	const char *servers, *region_size, *policy, *presplit, *tb, *kb;
	const char *fail, *headroom, *report;
	char **args;
	int nargs;
} kv_opts;

static void usage(FILE *out)
{
	fprintf(out,
		"usage: saltbox keyviz <verb> [options]\n"
		"\n"
		"The hotspot analyzer: replay a workload (or a trace of keys)\n"
		"through key designs onto a MODELLED cluster of region servers\n"
		"and draw the load as Cloud Bigtable's Key Visualizer does.\n"
		"Formats: docs/hotspots.md.\n"
		"\n"
		"verbs:\n"
		"  simulate        one design: summary, heatmap (--svg/--html)\n"
		"  compare         several designs on the same workload: one\n"
		"                  table, one page of heatmaps\n"
		"  render FILE...  draw results saved with --json again\n"
		"\n"
		"input (one of):\n"
		"  -w, --workload FILE     workload file (fields, mix, duration)\n"
		"  -t, --trace FILE        one key per line, [put|get|scan<TAB>]KEY;\n"
		"                          KEY as HBase prints it (\\xHH); with a\n"
		"                          design, a record 'field=value ...'\n"
		"      --hex               trace keys are hex\n"
		"      --rate N            trace operations per second (1000)\n"
		"\n"
		"designs:\n"
		"  -d, --design TEXT       inline design (repeatable in compare)\n"
		"  -f, --file FILE         design file; -n NAME picks designs\n"
		"                          (compare uses all when none is named)\n"
		"\n"
		"cluster (override the workload file):\n"
		"  --servers N             modelled region servers (4)\n"
		"  --region-size SIZE      hbase.hregion.max.filesize (64MB); the\n"
		"                          flush size is 1/80 of it, as 10GB:128MB\n"
		"  --split-policy P        stepping, constant, increasing,\n"
		"                          keyprefix:N, delimited:C, disabled\n"
		"  --presplit SPEC         none, salt, hex:N, decimal:N, uniform:N,\n"
		"                          keys:K1,K2,..., trace (a trace from\n"
		"                          `saltbox serve --trace` replays the\n"
		"                          store's real regions and splits: the\n"
		"                          default for such a trace)\n"
		"  --fail-server AT        the domino effect: at time bucket AT\n"
		"                          (or AT%% of the run) the busiest server\n"
		"                          goes down, its regions are reassigned;\n"
		"                          a server then over --headroom times the\n"
		"                          mean load before the failure goes down\n"
		"  --headroom X            a server's capacity over the mean (2)\n"
		"  --time-buckets N        heatmap columns (60)\n"
		"  --key-buckets N         heatmap rows, equal-count (64)\n"
		"\n"
		"output:\n"
		"  --svg FILE              heatmap as SVG (simulate, render)\n"
		"  --svg-dir DIR           compare: DIR/<design>.svg each\n"
		"  --html FILE             self-contained HTML page\n"
		"  --report FILE           compare: one self-contained HTML report\n"
		"                          to hand round (designs side by side,\n"
		"                          verdicts, lint findings, key layouts)\n"
		"  --json FILE             the full result (render reads it)\n"
		"  --title TEXT            HTML page title\n"
		"  -q, --quiet             no summary\n"
		"  -h, --help              this help\n"
		"\n"
		"examples:\n"
		"  saltbox keyviz simulate -w examples/workloads/chat.workload \\\n"
		"      -f examples/workloads/chat.design -n chat_md5 --svg md5.svg\n"
		"  saltbox keyviz compare -w examples/workloads/chat.workload \\\n"
		"      -f examples/workloads/chat.design --html chat.html\n");
}

static int fail(const char *fmt, const char *a)
{
	fprintf(stderr, "saltbox keyviz: ");
	fprintf(stderr, fmt, a);
	fputc('\n', stderr);
	return 1;
}

static const char **value_slot(kv_opts *o, const char *a)
{
	static const struct {
		const char *s, *l;
		size_t off;
	} map[] = {
		{"-w", "--workload", offsetof(kv_opts, workload)},
		{"-t", "--trace", offsetof(kv_opts, trace)},
		{"-f", "--file", offsetof(kv_opts, file)},
		{NULL, "--svg", offsetof(kv_opts, svg)},
		{NULL, "--svg-dir", offsetof(kv_opts, svg_dir)},
		{NULL, "--html", offsetof(kv_opts, html)},
		{NULL, "--json", offsetof(kv_opts, json)},
		{NULL, "--title", offsetof(kv_opts, title)},
		{NULL, "--servers", offsetof(kv_opts, servers)},
		{NULL, "--region-size", offsetof(kv_opts, region_size)},
		{NULL, "--split-policy", offsetof(kv_opts, policy)},
		{NULL, "--presplit", offsetof(kv_opts, presplit)},
		{NULL, "--time-buckets", offsetof(kv_opts, tb)},
		{NULL, "--key-buckets", offsetof(kv_opts, kb)},
		{NULL, "--fail-server", offsetof(kv_opts, fail)},
		{NULL, "--headroom", offsetof(kv_opts, headroom)},
		{NULL, "--report", offsetof(kv_opts, report)},
	};
	for (size_t i = 0; i < sizeof map / sizeof *map; i++)
		if ((map[i].s && !strcmp(a, map[i].s)) || !strcmp(a, map[i].l))
			return (const char **)((char *)o + map[i].off);
	return NULL;
}

static int parse_opts(int argc, char **argv, kv_opts *o)
{
	memset(o, 0, sizeof *o);
	o->args = calloc((size_t)argc + 1, sizeof *o->args);
	if (!o->args)
		return 1;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (a[0] != '-' || !a[1]) {
			if (!o->verb)
				o->verb = a;
			else
				o->args[o->nargs++] = argv[i];
			continue;
		}
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return -1;
		}
		if (!strcmp(a, "--hex")) {
			o->hex = true;
			continue;
		}
		if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
			o->quiet = true;
			continue;
		}
		const char **slot = value_slot(o, a);
		bool multi = !strcmp(a, "-d") || !strcmp(a, "--design") ||
			     !strcmp(a, "-n") || !strcmp(a, "--name");
		bool rate = !strcmp(a, "--rate");
		if (!slot && !multi && !rate) {
			fprintf(stderr, "saltbox keyviz: unknown option '%s' "
					"(see --help)\n", a);
			return 2;
		}
		if (i + 1 >= argc) {
			fprintf(stderr, "saltbox keyviz: %s needs a value\n", a);
			return 2;
		}
		const char *v = argv[++i];
		if (slot) {
			*slot = v;
		} else if (rate) {
			char *end;
			o->rate = strtod(v, &end);
			if (*end || !(o->rate > 0)) {
				fprintf(stderr, "saltbox keyviz: --rate needs a "
						"positive number\n");
				return 2;
			}
		} else if (a[1] == 'd' || !strcmp(a, "--design")) {
			if (o->ndesigns == MAX_DESIGNS)
				return 2;
			o->designs[o->ndesigns++] = v;
		} else {
			if (o->nnames == MAX_DESIGNS)
				return 2;
			o->names[o->nnames++] = v;
		}
	}
	return 0;
}

static int read_file(const char *path, char **out, size_t *len)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
	if (!f) {
		fprintf(stderr, "saltbox keyviz: cannot read '%s': %s\n", path,
			strerror(errno));
		return 1;
	}
	sbx_buf b = {0};
	char chunk[65536];
	size_t n;
	int rc = 0;
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
		if (b.len + n > MAX_INPUT || sbx_buf_append(&b, chunk, n)) {
			fprintf(stderr, "saltbox keyviz: '%s' is too large\n",
				path);
			rc = 1;
			break;
		}
	}
	if (f != stdin)
		fclose(f);
	if (!rc && sbx_buf_push(&b, 0))
		rc = 1;
	if (rc) {
		sbx_buf_free(&b);
		return rc;
	}
	*out = (char *)b.data;
	*len = b.len - 1;
	return 0;
}

static int write_file(const char *path, const sbx_buf *b)
{
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(b->data, 1, b->len, f) != b->len) {
		if (f)
			fclose(f);
		fprintf(stderr, "saltbox keyviz: cannot write '%s': %s\n", path,
			strerror(errno));
		return 1;
	}
	if (fclose(f)) {
		fprintf(stderr, "saltbox keyviz: cannot write '%s'\n", path);
		return 1;
	}
	return 0;
}

static int parse_count(const char *what, const char *s, int lo, int hi,
		       int *out)
{
	char *end;
	long v = strtol(s, &end, 10);
	if (*end || end == s || v < lo || v > hi) {
		fprintf(stderr, "saltbox keyviz: %s must be %d..%d, not '%s'\n",
			what, lo, hi, s);
		return 2;
	}
	*out = (int)v;
	return 0;
}

static int parse_size(const char *s, uint64_t *out)
{
	char *end;
	double v = strtod(s, &end);
	double mul = 1;
	switch (*end) {
	case 'k': case 'K': mul = 1024.0; end++; break;
	case 'm': case 'M': mul = 1048576.0; end++; break;
	case 'g': case 'G': mul = 1073741824.0; end++; break;
	default: break;
	}
	if (*end == 'i')
		end++;
	if (*end == 'B' || *end == 'b')
		end++;
	if (*end || end == s || !(v > 0) || v * mul < 1024 || v * mul > 1e18) {
		fprintf(stderr, "saltbox keyviz: --region-size: expected a size "
				"like 64MB (at least 1KB), not '%s'\n", s);
		return 2;
	}
	*out = (uint64_t)(v * mul);
	return 0;
}

static int parse_policy(const char *s, sbx_split_policy *p)
{
	const char *colon = strchr(s, ':');
	size_t kl = colon ? (size_t)(colon - s) : strlen(s);
#define IS(n) (kl == strlen(n) && !strncmp(s, n, kl))
	if (IS("stepping"))
		p->kind = SBX_SPLIT_STEPPING;
	else if (IS("constant"))
		p->kind = SBX_SPLIT_CONSTANT_SIZE;
	else if (IS("increasing"))
		p->kind = SBX_SPLIT_INCREASING_TO_UPPER_BOUND;
	else if (IS("disabled"))
		p->kind = SBX_SPLIT_DISABLED;
	else if (IS("keyprefix") && colon && atoi(colon + 1) > 0) {
		p->kind = SBX_SPLIT_KEY_PREFIX;
		p->prefix_length = (size_t)atoi(colon + 1);
		return 0;
	} else if (IS("delimited") && colon && strlen(colon + 1) == 1) {
		p->kind = SBX_SPLIT_DELIMITED_KEY_PREFIX;
		p->delimiter = colon[1];
		return 0;
	} else
		return fail("--split-policy: unknown '%s' (stepping, constant, "
			    "increasing, keyprefix:N, delimited:C, disabled)", s);
#undef IS
	return colon ? fail("--split-policy '%s' takes no argument", s) : 0;
}

/* Split keys for --presplit keys:K1,K2 (escaped as HBase prints). */
typedef struct owned_keys {
	sbx_bytes *k;
	size_t n;
} owned_keys;

static void owned_keys_free(owned_keys *k)
{
	for (size_t i = 0; i < k->n; i++)
		free((void *)k->k[i].data);
	free(k->k);
}

static int parse_presplit(const char *s, sbx_keyviz_opts *o, owned_keys *keys)
{
	if (!strcmp(s, "none")) {
		o->presplit = SBX_PRESPLIT_NONE;
		return 0;
	}
	if (!strcmp(s, "salt")) {
		o->presplit = SBX_PRESPLIT_SALT;
		return 0;
	}
	if (!strcmp(s, "trace")) {
		o->presplit = SBX_PRESPLIT_TRACE;
		return 0;
	}
	const char *colon = strchr(s, ':');
	if (!colon)
		return fail("--presplit: none, salt, hex:N, decimal:N, "
			    "uniform:N or keys:K1,K2 (not '%s')", s);
	size_t kl = (size_t)(colon - s);
	if (kl == 4 && !strncmp(s, "keys", 4)) {
		const char *a = colon + 1;
		size_t cap = 1;
		for (const char *c = a; *c; c++)
			cap += *c == ',';
		keys->k = calloc(cap, sizeof *keys->k);
		if (!keys->k)
			return 1;
		for (;;) {
			const char *c = strchr(a, ',');
			size_t len = c ? (size_t)(c - a) : strlen(a);
			sbx_buf b = {0};
			if (sbx_key_from_binary_string(&b, a, len) || !b.len) {
				sbx_buf_free(&b);
				return fail("--presplit keys: bad key in '%s'", s);
			}
			keys->k[keys->n].data = b.data;
			keys->k[keys->n++].len = b.len;
			if (!c)
				break;
			a = c + 1;
		}
		o->presplit = SBX_PRESPLIT_KEYS;
		o->split_keys = keys->k;
		o->nsplit_keys = keys->n;
		return 0;
	}
	int n;
	if (parse_count("--presplit regions", colon + 1, 2, 10000, &n))
		return 2;
	if (kl == 3 && !strncmp(s, "hex", 3))
		o->algo = SBX_SPLITALGO_HEX_STRING;
	else if (kl == 7 && !strncmp(s, "decimal", 7))
		o->algo = SBX_SPLITALGO_DECIMAL_STRING;
	else if (kl == 7 && !strncmp(s, "uniform", 7))
		o->algo = SBX_SPLITALGO_UNIFORM;
	else
		return fail("--presplit: unknown algorithm in '%s'", s);
	o->presplit = SBX_PRESPLIT_ALGO;
	o->presplit_regions = n;
	return 0;
}

static void progress(void *ctx, uint64_t done, uint64_t total)
{
	const char *name = ctx;
	fprintf(stderr, "\r  simulating %s: %3.0f%% (%llu/%llu ops)", name,
		total ? 100.0 * (double)done / (double)total : 100.0,
		(unsigned long long)done, (unsigned long long)total);
	if (done >= total)
		fprintf(stderr, "\r\033[K");
	fflush(stderr);
}

static const char *verdict_word(const sbx_keyviz_result *r)
{
	sbx_hotspot h;
	sbx_keyviz_hotspot(&h, r);
	return h.word;
}

static const char *verdict_of(const sbx_keyviz_result *r)
{
	static char out[256];
	sbx_hotspot h;
	sbx_keyviz_hotspot(&h, r);
	sbx_buf b = {0};
	out[0] = 0;
	if (!sbx_hotspot_text(&b, &h, NULL) && !sbx_buf_push(&b, 0))
		snprintf(out, sizeof out, "%s", (const char *)b.data);
	sbx_buf_free(&b);
	return out;
}

/* "server 1 212000, server 3 43378 (now on 3)": a region's requests
 * by the server that served them at the time, busiest first. */
static void region_servers(sbx_buf *out, const sbx_keyviz_result *r,
			   const sbx_keyviz_region *x)
{
	uint64_t by[1024] = {0};
	uint64_t none = 0;
	for (int t = 0; x->load && t < r->time_buckets; t++) {
		int v = x->served_by ? x->served_by[t] : x->server;
		if (v >= 0 && v < r->servers && v < 1024)
			by[v] += x->load[t];
		else
			none += x->load[t];
	}
	int shown = 0;
	for (;;) {
		int best = -1;
		for (int v = 0; v < r->servers && v < 1024; v++)
			if (by[v] && (best < 0 || by[v] > by[best]))
				best = v;
		if (best < 0)
			break;
		sbx_buf_printf(out, "%sserver %d %llu", shown++ ? ", " : "",
			       best, (unsigned long long)by[best]);
		by[best] = 0;
	}
	if (none)
		sbx_buf_printf(out, "%sunserved %llu", shown++ ? ", " : "",
			       (unsigned long long)none);
	if (!shown)
		sbx_buf_printf(out, "no requests");
	sbx_buf_printf(out, " (now on server %d)", x->server);
	sbx_buf_push(out, 0);
}

static void print_summary(const sbx_keyviz_result *r)
{
	printf("design %s\n", r->design);
	if (*r->design_text)
		printf("  key      %s\n", r->design_text);
	printf("  ops      %llu (%llu puts, %llu gets, %llu scans) -> %llu "
	       "region requests\n",
	       (unsigned long long)r->ops, (unsigned long long)r->puts,
	       (unsigned long long)r->gets, (unsigned long long)r->scans,
	       (unsigned long long)r->requests);
	printf("  key      %.1f bytes on average\n", r->avg_key_bytes);
	printf("  regions  %zu at the end (%llu splits, %llu balancer moves)\n",
	       r->nregions, (unsigned long long)r->splits,
	       (unsigned long long)r->moves);
	if (r->scans)
		printf("  scans    %.1f requests per scan%s\n",
		       (double)r->scan_requests / (double)r->scans,
		       r->full_scans ? " (the design cannot narrow them: "
				       "full table scans)" : "");
	printf("  hotspot  score %.2f (busiest server's load / mean, per "
	       "interval; 1 = even, %d = one server)\n",
	       r->score, r->servers);
	printf("           busiest server's share %.1f%% (even: %.1f%%); "
	       "whole run: score %.2f, share %.1f%%\n",
	       r->busiest_share * 100, 100.0 / r->servers, r->total_score,
	       r->total_share * 100);
	printf("  verdict  %s\n", verdict_of(r));
	uint64_t total = 0;
	for (size_t i = 0; i < (size_t)r->servers * r->time_buckets; i++)
		total += r->server_load[i];
	if (r->layout_bounds || r->layout_splits || r->layout_merges)
		printf("  layout   the store's real regions from the trace: %zu "
		       "boundaries at the start, %zu splits and %zu merges "
		       "replayed\n",
		       r->layout_bounds, r->layout_splits, r->layout_merges);
	printf("  server  requests served  share  regions at the end\n");
	for (int s = 0; s < r->servers; s++) {
		uint64_t v = 0;
		int n = 0, down = -1;
		for (int t = 0; t < r->time_buckets; t++)
			v += r->server_load[(size_t)t * r->servers + s];
		for (size_t i = 0; i < r->nregions; i++)
			n += r->regions[i].server == s;
		for (int i = 0; i < r->nfailed; i++)
			if (r->failed_server[i] == s)
				down = r->failed_at[i];
		if (down >= 0)
			printf("  %-6d  %-15llu %5.1f%%  down at time bucket %d\n",
			       s, (unsigned long long)v,
			       total ? 100.0 * (double)v / (double)total : 0,
			       down);
		else
			printf("  %-6d  %-15llu %5.1f%%  %d\n", s,
			       (unsigned long long)v,
			       total ? 100.0 * (double)v / (double)total : 0, n);
	}
	if (r->nfailed) {
		printf("  domino   capacity %llu requests per server per time "
		       "bucket; down in turn:",
		       (unsigned long long)r->fail_capacity);
		for (int i = 0; i < r->nfailed; i++)
			printf("%s server %d (bucket %d)", i ? "," : "",
			       r->failed_server[i], r->failed_at[i]);
		printf("\n           %s", r->nfailed == 1
				      ? "the next server did not fall: the "
					"load the failed one had spread over "
					"the rest"
				      : r->nfailed >= r->servers
				      ? "every server fell in turn: the whole "
					"cluster is down"
				      : "the next server fell too: the hot "
					"region moved with the load");
		if (r->unserved)
			printf(" (%llu requests found no server)",
			       (unsigned long long)r->unserved);
		printf("\n");
	}
	/* the hottest regions */
	size_t order[5];
	size_t no = 0;
	for (size_t i = 0; i < r->nregions; i++) {
		uint64_t v = r->regions[i].reads + r->regions[i].writes;
		size_t at = no;
		while (at > 0 && r->regions[order[at - 1]].reads +
						 r->regions[order[at - 1]].writes <
					 v)
			at--;
		if (at >= 5)
			continue;
		if (no < 5)
			no++;
		memmove(&order[at + 1], &order[at], (no - 1 - at) * sizeof *order);
		order[at] = i;
	}
	printf("  hottest regions (requests since created, by the server "
	       "that served them then):\n");
	for (size_t i = 0; i < no; i++) {
		const sbx_keyviz_region *x = &r->regions[order[i]];
		sbx_buf a = {0}, b = {0}, by = {0};
		sbx_key_to_binary_string(&a, x->start, x->start_len);
		sbx_key_to_binary_string(&b, x->end, x->end_len);
		region_servers(&by, r, x);
		printf("    [%.*s%s, %.*s%s) %llu: %s\n",
		       (int)(a.len > 24 ? 24 : a.len), a.data ? (char *)a.data : "",
		       a.len > 24 ? "..." : "", (int)(b.len > 24 ? 24 : b.len),
		       b.data ? (char *)b.data : "", b.len > 24 ? "..." : "",
		       (unsigned long long)(x->reads + x->writes),
		       by.data ? (char *)by.data : "");
		sbx_buf_free(&a);
		sbx_buf_free(&b);
		sbx_buf_free(&by);
	}
}

static void print_table(sbx_keyviz_result **r, int n)
{
	printf("%-20s %9s %7s %8s %8s %7s %9s  %s\n", "design", "key bytes",
	       "score", "busiest", "regions", "splits", "req/scan",
	       "verdict");
	for (int i = 0; i < n; i++)
		printf("%-20s %9.1f %7.2f %7.1f%% %8zu %7llu %9.1f  %s\n",
		       r[i]->design, r[i]->avg_key_bytes, r[i]->score,
		       r[i]->busiest_share * 100, r[i]->nregions,
		       (unsigned long long)r[i]->splits,
		       r[i]->scans ? (double)r[i]->scan_requests /
					     (double)r[i]->scans
				   : 0.0,
		       verdict_word(r[i]));
}

/* Designs: each -d, then -n names from -f (all designs if none named). */
typedef struct designs {
	sbx_keyset *set;
	sbx_keydesign *inl[MAX_DESIGNS];
	const sbx_keydesign *use[2 * MAX_DESIGNS];
	int n, ninl;
} designs;

static void designs_free(designs *d)
{
	for (int i = 0; i < d->ninl; i++)
		sbx_keydesign_free(d->inl[i]);
	sbx_keyset_free(d->set);
}

static int load_designs(const kv_opts *o, designs *d, bool all)
{
	for (int i = 0; i < o->ndesigns; i++) {
		sbx_keyparse_pos pos;
		if (sbx_keydesign_parse(&d->inl[d->ninl], o->designs[i],
					strlen(o->designs[i]), &pos))
			return fail("design: %s", sbx_errmsg());
		d->use[d->n++] = d->inl[d->ninl++];
	}
	if (o->file) {
		char *text;
		size_t len;
		if (read_file(o->file, &text, &len))
			return 1;
		sbx_keyparse_pos pos;
		int rc = sbx_keyset_parse(&d->set, text, len, &pos);
		free(text);
		if (rc) {
			fprintf(stderr, "saltbox keyviz: %s: %s\n", o->file,
				sbx_errmsg());
			return 1;
		}
		for (int i = 0; i < o->nnames; i++) {
			const sbx_keydesign *k = sbx_keyset_find(d->set,
								 o->names[i]);
			if (!k)
				return fail("no design named '%s' in the file",
					    o->names[i]);
			d->use[d->n++] = k;
		}
		if (!o->nnames) {
			size_t n = sbx_keyset_count(d->set);
			if (!all && n > 1)
				return fail("%s holds several designs: pick one "
					    "with -n NAME", o->file);
			for (size_t i = 0; i < n && d->n < 2 * MAX_DESIGNS; i++)
				d->use[d->n++] = sbx_keyset_at(d->set, i);
		}
	} else if (o->nnames) {
		return fail("-n %s needs a design file (-f)", o->names[0]);
	}
	return 0;
}

static int load_workload(const kv_opts *o, sbx_workload **w)
{
	if (!!o->workload == !!o->trace)
		return fail("%s", "give a workload (-w FILE) or a trace "
				  "(-t FILE)");
	const char *path = o->workload ? o->workload : o->trace;
	char *text;
	size_t len;
	if (read_file(path, &text, &len))
		return 1;
	int line, rc;
	if (o->workload)
		rc = sbx_workload_parse(w, text, len, &line);
	else
		rc = sbx_trace_parse(w, text, len, o->hex, o->rate, &line);
	free(text);
	if (rc) {
		fprintf(stderr, "saltbox keyviz: %s: %s\n", path, sbx_errmsg());
		return 1;
	}
	return 0;
}

static int cluster_opts(const kv_opts *o, const sbx_workload *w,
			sbx_keyviz_opts *ko, owned_keys *keys)
{
	sbx_keyviz_opts_init(ko);
	sbx_workload_cluster_opts(w, ko);
	if (o->servers && parse_count("--servers", o->servers, 1, 1024,
				      &ko->servers))
		return 2;
	if (o->region_size) {
		if (parse_size(o->region_size, &ko->policy.max_file_size))
			return 2;
		ko->policy.flush_size = ko->policy.max_file_size / 80;
	}
	if (o->policy && parse_policy(o->policy, &ko->policy))
		return 2;
	if (o->presplit && parse_presplit(o->presplit, ko, keys))
		return 2;
	if (o->tb && parse_count("--time-buckets", o->tb, 1, 10000,
				 &ko->time_buckets))
		return 2;
	if (o->kb && parse_count("--key-buckets", o->kb, 1, 10000,
				 &ko->key_buckets))
		return 2;
	if (o->fail) {
		size_t fl = strlen(o->fail);
		char at[32];
		int pct = fl && o->fail[fl - 1] == '%';
		snprintf(at, sizeof at, "%.*s", (int)(fl - (size_t)pct), o->fail);
		int v;
		if (parse_count(pct ? "--fail-server (percent of the run)"
				    : "--fail-server (time bucket)",
				at, 1, pct ? 99 : ko->time_buckets - 1, &v))
			return 2;
		ko->fail_at = pct ? (v * ko->time_buckets + 50) / 100 : v;
		if (ko->fail_at < 1)
			ko->fail_at = 1;
	}
	if (o->headroom) {
		char *end;
		ko->fail_headroom = strtod(o->headroom, &end);
		if (*end || !(ko->fail_headroom >= 1 &&
			      ko->fail_headroom <= 1000)) {
			fprintf(stderr, "saltbox keyviz: --headroom must be a "
					"number 1..1000, not '%s'\n",
				o->headroom);
			return 2;
		}
	}
	return 0;
}

static int write_outputs(const kv_opts *o, sbx_keyviz_result **res, int n)
{
	int rc = 0;
	sbx_buf b = {0};
	if (o->svg && n == 1) {
		if (sbx_keyviz_svg(&b, res[0]) || write_file(o->svg, &b))
			rc = 1;
		b.len = 0;
	}
	if (o->svg_dir) {
		mkdir(o->svg_dir, 0755);
		for (int i = 0; i < n && !rc; i++) {
			char path[4096];
			snprintf(path, sizeof path, "%s/%s.svg", o->svg_dir,
				 res[i]->design);
			if (sbx_keyviz_svg(&b, res[i]) || write_file(path, &b))
				rc = 1;
			b.len = 0;
		}
	}
	if (o->html && !rc) {
		char title[512];
		snprintf(title, sizeof title, "keyviz: %s",
			 o->title ? o->title
				  : *res[0]->workload ? res[0]->workload
						      : res[0]->design);
		if (sbx_keyviz_html(&b, (const sbx_keyviz_result *const *)res,
				    (size_t)n, title) ||
		    write_file(o->html, &b))
			rc = 1;
		b.len = 0;
	}
	if (o->json && !rc) {
		/* one result per line (JSON Lines) */
		for (int i = 0; i < n && !rc; i++)
			rc = sbx_keyviz_json(&b, res[i]) ? 1 : 0;
		if (!rc)
			rc = write_file(o->json, &b);
	}
	sbx_buf_free(&b);
	return rc;
}

static int write_report(const kv_opts *o, sbx_keyviz_result **res,
			const sbx_keydesign *const *given, int n)
{
	char title[512];
	snprintf(title, sizeof title, "Row-key report: %s",
		 o->title ? o->title
			  : *res[0]->workload ? res[0]->workload
					      : res[0]->design);
	/* results read back from JSON carry their design's text: parse it
	 * again for the byte layout and the lint findings */
	sbx_keydesign *parsed[2 * MAX_DESIGNS] = {0};
	const sbx_keydesign *use[2 * MAX_DESIGNS] = {0};
	for (int i = 0; i < n; i++) {
		const char *t = res[i]->design_text;
		if (given)
			use[i] = given[i];
		else if (*t && !sbx_keydesign_parse(&parsed[i], t, strlen(t),
						    NULL))
			use[i] = parsed[i];
	}
	sbx_buf b = {0};
	int rc = keyviz_report(&b, res, use, n, title)
		     ? fail("%s", "out of memory writing the report")
		     : write_file(o->report, &b);
	sbx_buf_free(&b);
	for (int i = 0; i < n; i++)
		sbx_keydesign_free(parsed[i]);
	return rc;
}

static int simulate_cmd(const kv_opts *o, bool compare)
{
	sbx_workload *w = NULL;
	designs d = {0};
	owned_keys keys = {0};
	sbx_keyviz_result *res[2 * MAX_DESIGNS] = {0};
	int nres = 0, rc = 0;
	if ((rc = load_workload(o, &w)) || (rc = load_designs(o, &d, compare)))
		goto out;
	if (!compare && d.n > 1) {
		rc = fail("%s", "simulate takes one design (use compare for "
				"several)");
		goto out;
	}
	if (d.n == 0 && sbx_workload_needs_design(w)) {
		rc = fail("%s", "a workload needs a key design (-d or -f)");
		goto out;
	}
	sbx_keyviz_opts ko;
	if ((rc = cluster_opts(o, w, &ko, &keys)))
		goto out;
	bool tty = isatty(STDERR_FILENO) && !o->quiet;
	int runs = d.n ? d.n : 1;
	for (int i = 0; i < runs; i++) {
		const sbx_keydesign *k = d.n ? d.use[i] : NULL;
		ko.progress = tty ? progress : NULL;
		ko.progress_ctx = (void *)(k ? sbx_keydesign_name(k) : "raw");
		if (sbx_keyviz_simulate(&res[nres], w, k, &ko)) {
			/* name the design once: the message may already */
			const char *dn = k ? sbx_keydesign_name(k) : "raw";
			char named[160];
			snprintf(named, sizeof named, "design '%s'", dn);
			bool has = strstr(sbx_errmsg(), named) != NULL;
			fprintf(stderr, "%ssaltbox keyviz: %s%s%s\n",
				tty ? "\r\033[K" : "", has ? "" : named,
				has ? "" : ": ", sbx_errmsg());
			rc = 1;
			goto out;
		}
		nres++;
	}
	if (!o->quiet) {
		printf("workload %s: %llu ops on %d modelled region servers\n",
		       *sbx_workload_name(w) ? sbx_workload_name(w) : "(unnamed)",
		       (unsigned long long)sbx_workload_ops(w), ko.servers);
		if (compare)
			print_table(res, nres);
		else
			print_summary(res[0]);
	}
	rc = write_outputs(o, res, nres);
	if (!rc && o->report)
		rc = write_report(o, res, d.n ? d.use : NULL, nres);
out:
	for (int i = 0; i < nres; i++)
		sbx_keyviz_result_free(res[i]);
	designs_free(&d);
	owned_keys_free(&keys);
	sbx_workload_free(w);
	return rc;
}

static int render_cmd(const kv_opts *o)
{
	if (!o->nargs)
		return fail("%s", "render needs result files (from --json)");
	sbx_keyviz_result *res[2 * MAX_DESIGNS] = {0};
	int n = 0, rc = 0;
	for (int i = 0; i < o->nargs && !rc; i++) {
		char *text;
		size_t len;
		if (read_file(o->args[i], &text, &len)) {
			rc = 1;
			break;
		}
		char *line = text;
		while (line && *line && !rc) {
			char *nl = strchr(line, '\n');
			size_t ll = nl ? (size_t)(nl - line) : strlen(line);
			if (ll && n < 2 * MAX_DESIGNS) {
				if (sbx_keyviz_result_from_json(&res[n], line,
								ll)) {
					fprintf(stderr, "saltbox keyviz: %s: %s\n",
						o->args[i], sbx_errmsg());
					rc = 1;
				} else {
					n++;
				}
			}
			line = nl ? nl + 1 : NULL;
		}
		free(text);
	}
	if (!rc && !n)
		rc = fail("%s", "no results in the given files");
	if (!rc && o->svg && n > 1)
		rc = fail("%s", "--svg draws one result; use --svg-dir or --html");
	if (!rc && !o->svg && !o->html && !o->svg_dir && !o->report &&
	    !o->quiet)
		print_table(res, n);
	if (!rc)
		rc = write_outputs(o, res, n);
	if (!rc && o->report)
		rc = write_report(o, res, NULL, n);
	for (int i = 0; i < n; i++)
		sbx_keyviz_result_free(res[i]);
	return rc;
}

int cmd_keyviz(int argc, char **argv)
{
	kv_opts o;
	int rc = parse_opts(argc, argv, &o);
	if (rc) {
		free(o.args);
		return rc < 0 ? 0 : rc;
	}
	if (!o.verb) {
		usage(stderr);
		rc = 2;
	} else if (!strcmp(o.verb, "simulate")) {
		rc = simulate_cmd(&o, false);
	} else if (!strcmp(o.verb, "compare")) {
		rc = simulate_cmd(&o, true);
	} else if (!strcmp(o.verb, "render")) {
		rc = render_cmd(&o);
	} else {
		fprintf(stderr, "saltbox keyviz: unknown verb '%s' (simulate, "
				"compare, render)\n", o.verb);
		rc = 2;
	}
	free(o.args);
	return rc;
}
