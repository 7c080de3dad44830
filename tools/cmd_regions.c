/*
 * cmd_regions.c - `saltbox regions list|stats|split|merge|export-splits`:
 * a table's regions, their HBase-named metrics and the modelled servers
 * they sit on, manual split and merge, and the HBase shell `create` with
 * SPLITS that recreates the table's families and boundaries on a cluster.
 */
#include "cli.h"
#include "common/buf.h"
#include "saltbox/db.h"
#include "saltbox/hotspot.h"
#include "saltbox/regions.h"
#include "saltbox/rowkey.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct reg_opts {
	const char *verb, *data, *url, *table;
	const char *create_on; /* export-splits: make the table there too */
	bool json;
	int buckets;
	const char *args[4];
	int nargs;
} reg_opts;

static void usage(FILE *out)
{
	fprintf(out,
		"usage: saltbox regions <verb> " CLI_STORE_USAGE " TABLE [ARGS] [options]\n"
		"\n"
		"A table's regions [start, end) and the modelled region servers\n"
		"they are balanced over (a model of a cluster, in one process).\n"
		"\n"
		"verbs:\n"
		"  list                  regions, servers, store size, requests\n"
		"  stats                 HBase RegionMetrics per region, totals\n"
		"                        per server and the busiest server's share\n"
		"  split [KEY]           split the region holding KEY at KEY, or\n"
		"                        without KEY the first region at the\n"
		"                        midpoint of its data\n"
		"  merge START           merge the region starting at START with\n"
		"                        the next one ('' = the first region)\n"
		"  export-splits         the HBase shell `create` with SPLITS;\n"
		"                        with --create-on URL, also create the\n"
		"                        table, pre-split the same, on that store\n"
		"                        (e.g. bigtable://PROJECT/INSTANCE)\n"
		"\n"
		"Keys are written as HBase prints them: printable ASCII, other\n"
		"bytes as \\xHH.\n"
		"\n"
		"options:\n"
		"  --data DIR            the database directory\n"
		"  --connect URL         instead: a running store - `saltbox serve` or\n"
		"                        an HBase REST gateway (http://host:port),\n"
		"                        whose live region metrics list and stats\n"
		"                        then show, or bigtable://PROJECT/INSTANCE\n"
		"  --json                list, stats: JSON\n"
		"  --buckets N           stats --json: also the last N load buckets\n"
		"  -h, --help            this help\n");
}

static int fail(const char *fmt, const char *a)
{
	fprintf(stderr, "saltbox regions: ");
	fprintf(stderr, fmt, a);
	fputc('\n', stderr);
	return 1;
}

static int parse(int argc, char **argv, reg_opts *o)
{
	memset(o, 0, sizeof *o);
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return -1;
		} else if (!strcmp(a, "--json")) {
			o->json = true;
		} else if (!strcmp(a, "--data") || !strcmp(a, "--buckets") ||
			   !strcmp(a, "--connect") || !strcmp(a, "--create-on")) {
			if (i + 1 >= argc) {
				fprintf(stderr, "saltbox regions: %s needs a "
						"value\n", a);
				return 2;
			}
			if (a[2] == 'd') {
				o->data = argv[++i];
			} else if (!strcmp(a, "--connect")) {
				o->url = argv[++i];
			} else if (a[2] == 'c') {
				o->create_on = argv[++i];
			} else {
				char *end;
				long n = strtol(argv[++i], &end, 10);
				if (*end || n < 1 || n > 100000) {
					fprintf(stderr, "saltbox regions: "
							"--buckets: 1..100000\n");
					return 2;
				}
				o->buckets = (int)n;
			}
		} else if (a[0] == '-' && a[1] && strcmp(a, "--")) {
			fprintf(stderr, "saltbox regions: unknown option '%s' "
					"(see --help)\n", a);
			return 2;
		} else if (!o->verb) {
			o->verb = a;
		} else if (!o->table) {
			o->table = a;
		} else if (o->nargs < 4) {
			o->args[o->nargs++] = a;
		} else {
			fprintf(stderr, "saltbox regions: too many arguments\n");
			return 2;
		}
	}
	if (!o->verb) {
		usage(stderr);
		return 2;
	}
	static const char *const verbs[] = {"list", "stats", "split", "merge",
					    "export-splits"};
	bool known = false;
	for (size_t i = 0; i < sizeof verbs / sizeof *verbs; i++)
		known = known || !strcmp(o->verb, verbs[i]);
	if (!known) {
		fprintf(stderr, "saltbox regions: unknown verb '%s' (list, stats, "
				"split, merge, export-splits)\n", o->verb);
		return 2;
	}
	if (o->create_on && strcmp(o->verb, "export-splits")) {
		fprintf(stderr, "saltbox regions: --create-on is for "
				"export-splits\n");
		return 2;
	}
	if (!o->data == !o->url || !o->table) {
		fprintf(stderr, "saltbox regions: %s needs --data DIR or "
				"--connect URL, and a TABLE\n", o->verb);
		return 2;
	}
	return 0;
}

/* HBase-style printable key into a fresh NUL-terminated string. */
static char *key_text(const uint8_t *k, size_t len)
{
	sbx_buf b = {0};
	if (sbx_key_to_binary_string(&b, k, len) || sbx_buf_push(&b, 0)) {
		sbx_buf_free(&b);
		return NULL;
	}
	return (char *)b.data;
}

static int list_cmd(sbx_db *db, const reg_opts *o)
{
	sbx_region_info *r;
	size_t n;
	if (sbx_table_regions(&r, &n, db, o->table))
		return fail("%s", sbx_errmsg());
	json_t *arr = o->json ? json_array() : NULL;
	if (!o->json)
		printf("%-4s %-20s %-20s %6s %12s %12s %12s  %s\n", "#", "start",
		       "end", "server", "store_size", "reads", "writes",
		       "encoded");
	for (size_t i = 0; i < n; i++) {
		char *s = key_text(r[i].start_key, r[i].start_len);
		char *e = key_text(r[i].end_key, r[i].end_len);
		const sbx_region_metrics *m = &r[i].metrics;
		if (o->json) {
			json_t *x = json_pack(
				"{s:s, s:s, s:s, s:s, s:i, s:I, s:I, s:I, s:I}",
				"name", r[i].name, "encoded", r[i].encoded,
				"start", s ? s : "", "end", e ? e : "",
				"server", r[i].server, "store_file_size",
				(json_int_t)m->store_file_size, "memstore_size",
				(json_int_t)m->memstore_size,
				"read_request_count",
				(json_int_t)m->read_request_count,
				"write_request_count",
				(json_int_t)m->write_request_count);
			json_array_append_new(arr, x);
		} else {
			printf("%-4zu %-20s %-20s %6d %12llu %12llu %12llu  %s\n",
			       i, s && *s ? s : "''", e && *e ? e : "''",
			       r[i].server,
			       (unsigned long long)(m->store_file_size +
						    m->memstore_size),
			       (unsigned long long)m->read_request_count,
			       (unsigned long long)m->write_request_count,
			       r[i].encoded);
		}
		free(s);
		free(e);
	}
	if (o->json) {
		char *txt = json_dumps(arr, JSON_INDENT(2));
		printf("%s\n", txt ? txt : "[]");
		free(txt);
		json_decref(arr);
	} else {
		printf("%zu regions on %d modelled servers\n", n,
		       sbx_db_region_servers(db));
	}
	sbx_region_infos_free(r, n);
	return 0;
}

static int stats_cmd(sbx_db *db, const reg_opts *o)
{
	sbx_region_info *r;
	size_t n;
	if (sbx_table_regions(&r, &n, db, o->table))
		return fail("%s", sbx_errmsg());
	int S = sbx_db_region_servers(db);
	if (S < 1)
		S = 1;
	uint64_t *req = calloc((size_t)S, sizeof *req);
	int *cnt = calloc((size_t)S, sizeof *cnt);
	sbx_region_load *loads = NULL;
	size_t nl = 0;
	if (!req || !cnt) {
		free(req);
		free(cnt);
		sbx_region_infos_free(r, n);
		return fail("%s", "out of memory");
	}
	if (o->json && o->buckets &&
	    sbx_table_load(&loads, &nl, db, o->table, (size_t)o->buckets)) {
		free(req);
		free(cnt);
		sbx_region_infos_free(r, n);
		return fail("%s", sbx_errmsg());
	}
	uint64_t total = 0;
	json_t *arr = o->json ? json_array() : NULL;
	if (!o->json)
		printf("%-20s %6s %10s %10s %12s %12s %10s %12s\n", "start",
		       "server", "readReq", "writeReq", "readBytes",
		       "writeBytes", "cells", "storeSize");
	for (size_t i = 0; i < n; i++) {
		const sbx_region_metrics *m = &r[i].metrics;
		int s = r[i].server >= 0 && r[i].server < S ? r[i].server : 0;
		req[s] += m->read_request_count + m->write_request_count;
		cnt[s]++;
		total += m->read_request_count + m->write_request_count;
		char *st = key_text(r[i].start_key, r[i].start_len);
		if (o->json) {
			json_t *x = json_pack(
				"{s:s, s:i, s:I, s:I, s:I, s:I, s:I, s:I, s:I, "
				"s:I}",
				"start", st ? st : "", "server", r[i].server,
				"readRequestCount",
				(json_int_t)m->read_request_count,
				"writeRequestCount",
				(json_int_t)m->write_request_count,
				"filteredReadRequestCount",
				(json_int_t)m->filtered_read_request_count,
				"readBytes", (json_int_t)m->read_bytes,
				"writeBytes", (json_int_t)m->write_bytes,
				"cellsWritten", (json_int_t)m->cells_written,
				"storeFileSize", (json_int_t)m->store_file_size,
				"memStoreSize", (json_int_t)m->memstore_size);
			if (i < nl) {
				json_t *b = json_array();
				for (size_t k = 0; k < loads[i].nbuckets; k++) {
					const sbx_load_bucket *lb =
						&loads[i].buckets[k];
					json_array_append_new(
						b, json_pack("{s:I, s:I, s:I}",
							     "start_ms",
							     (json_int_t)lb->start_ms,
							     "reads",
							     (json_int_t)lb->reads,
							     "writes",
							     (json_int_t)lb->writes));
				}
				json_object_set_new(x, "buckets", b);
			}
			json_array_append_new(arr, x);
		} else {
			printf("%-20s %6d %10llu %10llu %12llu %12llu %10llu "
			       "%12llu\n",
			       st && *st ? st : "''", r[i].server,
			       (unsigned long long)m->read_request_count,
			       (unsigned long long)m->write_request_count,
			       (unsigned long long)m->read_bytes,
			       (unsigned long long)m->write_bytes,
			       (unsigned long long)m->cells_written,
			       (unsigned long long)(m->store_file_size +
						    m->memstore_size));
		}
		free(st);
	}
	uint64_t mx = 0;
	for (int s = 0; s < S; s++)
		if (req[s] > mx)
			mx = req[s];
	double share = total ? (double)mx / (double)total : 0;
	/* the one verdict (docs/hotspots.md) over the regions' counters since
	 * they opened: one interval, per modelled server */
	sbx_hotspot verdict;
	sbx_hotspot_compute(&verdict, req, 1, S);
	sbx_buf vtext = {0};
	if (sbx_hotspot_text(&vtext, &verdict, NULL) || sbx_buf_push(&vtext, 0))
		sbx_buf_free(&vtext);
	const char *vt = vtext.data ? (const char *)vtext.data : "";
	if (o->json) {
		json_t *servers = json_array();
		for (int s = 0; s < S; s++)
			json_array_append_new(servers,
				json_pack("{s:i, s:i, s:I}", "server", s,
					  "regions", cnt[s], "requests",
					  (json_int_t)req[s]));
		json_t *doc = json_pack(
			"{s:s, s:o, s:o, s:f, s:{s:s, s:s, s:f, s:f, s:i, s:s}}",
			"table", o->table, "regions", arr, "servers", servers,
			"busiest_share", share, "verdict", "level",
			verdict.word, "color", verdict.color, "score",
			verdict.score, "busiest_share", verdict.busiest_share,
			"busiest_server", verdict.busiest_server, "text", vt);
		char *txt = json_dumps(doc, JSON_INDENT(2));
		printf("%s\n", txt ? txt : "{}");
		free(txt);
		json_decref(doc);
	} else {
		printf("\n%-6s %7s %12s %7s\n", "server", "regions", "requests",
		       "share");
		for (int s = 0; s < S; s++)
			printf("%-6d %7d %12llu %6.1f%%\n", s, cnt[s],
			       (unsigned long long)req[s],
			       total ? 100.0 * (double)req[s] / (double)total
				     : 0.0);
		printf("busiest server's share: %.1f%% (even: %.1f%%)\n",
		       share * 100, 100.0 / S);
		printf("verdict: %s\n", vt);
	}
	sbx_buf_free(&vtext);
	sbx_region_loads_free(loads, nl);
	free(req);
	free(cnt);
	sbx_region_infos_free(r, n);
	return 0;
}

/* A key as a Ruby double-quoted string the HBase shell reads back:
 * \xNN for bytes outside printable ASCII, \" \\ and \# escaped. */
static void ruby_key(sbx_buf *b, const uint8_t *k, size_t len)
{
	sbx_buf_push(b, '"');
	for (size_t i = 0; i < len; i++) {
		uint8_t c = k[i];
		char tmp[8];
		if (c == '"' || c == '\\' || c == '#') {
			tmp[0] = '\\';
			tmp[1] = (char)c;
			sbx_buf_append(b, tmp, 2);
		} else if (c < 0x20 || c >= 0x7f) {
			snprintf(tmp, sizeof tmp, "\\x%02X", c);
			sbx_buf_append(b, tmp, 4);
		} else {
			sbx_buf_push(b, c);
		}
	}
	sbx_buf_push(b, '"');
}

/* The family as the shell's create takes it: the attributes that differ
 * from HBase's defaults, numbers bare and names quoted. */
static void family_attrs(sbx_buf *b, const sbx_family_desc *f)
{
	sbx_buf_printf(b, "{NAME => '%s'", f->name);
	sbx_family_attr a;
	for (size_t i = 0; sbx_family_desc_attr(&a, f, i) == SBX_OK; i++)
		if (!a.is_default)
			sbx_buf_printf(b, a.kind == SBX_ATTR_INTEGER
						  ? ", %s => %s"
						  : ", %s => '%s'",
				       a.name, a.value);
	sbx_buf_printf(b, "}");
}

static const char *policy_class(sbx_split_policy_kind k)
{
	switch (k) {
	case SBX_SPLIT_STEPPING: return "SteppingSplitPolicy";
	case SBX_SPLIT_CONSTANT_SIZE: return "ConstantSizeRegionSplitPolicy";
	case SBX_SPLIT_INCREASING_TO_UPPER_BOUND:
		return "IncreasingToUpperBoundRegionSplitPolicy";
	case SBX_SPLIT_KEY_PREFIX: return "KeyPrefixRegionSplitPolicy";
	case SBX_SPLIT_DELIMITED_KEY_PREFIX:
		return "DelimitedKeyPrefixRegionSplitPolicy";
	case SBX_SPLIT_DISABLED: return "DisabledRegionSplitPolicy";
	}
	return "SteppingSplitPolicy";
}

/* export-splits --create-on URL: the same table, families and region
 * boundaries, created on another store (a Bigtable instance pre-split from
 * a design tried on the embedded store). */
static int create_on(const reg_opts *o, const sbx_table_info *info,
		     const sbx_region_info *r, size_t n)
{
	sbx_db *to = cli_open_store(NULL, o->create_on, "saltbox regions");
	if (!to)
		return 1;
	sbx_bytes *splits = calloc(n ? n : 1, sizeof *splits);
	int rc = 0;
	if (!splits) {
		rc = fail("%s", "out of memory");
	} else {
		for (size_t i = 1; i < n; i++)
			splits[i - 1] = (sbx_bytes){r[i].start_key, r[i].start_len};
		if (sbx_table_create_presplit(to, info->name, info->families,
					      info->nfamilies, splits,
					      n ? n - 1 : 0))
			rc = fail("%s", sbx_errmsg());
		else
			fprintf(stderr, "saltbox regions: created '%s' with %zu "
					"region%s on %s\n",
				info->name, n ? n : 1, n == 1 ? "" : "s",
				o->create_on);
	}
	free(splits);
	sbx_db_close(to);
	return rc;
}

static int export_cmd(sbx_db *db, const reg_opts *o)
{
	sbx_table_info *info;
	if (sbx_table_describe(&info, db, o->table))
		return fail("%s", sbx_errmsg());
	sbx_region_info *r;
	size_t n;
	if (sbx_table_regions(&r, &n, db, o->table)) {
		sbx_table_info_free(info);
		return fail("%s", sbx_errmsg());
	}
	sbx_split_policy pol, def;
	sbx_split_policy_init(&def);
	bool has_pol = !sbx_table_get_split_policy(&pol, db, o->table);
	sbx_buf b = {0};
	char tmp[512];
	snprintf(tmp, sizeof tmp, "create '%s'", info->name);
	sbx_buf_append(&b, tmp, strlen(tmp));
	for (size_t i = 0; i < info->nfamilies; i++) {
		sbx_buf_append(&b, ", ", 2);
		family_attrs(&b, &info->families[i]);
	}
	if (n > 1) {
		sbx_buf_append(&b, ", SPLITS => [", 13);
		for (size_t i = 1; i < n; i++) {
			if (i > 1)
				sbx_buf_append(&b, ", ", 2);
			ruby_key(&b, r[i].start_key, r[i].start_len);
		}
		sbx_buf_push(&b, ']');
	}
	if (has_pol && pol.kind != def.kind) {
		snprintf(tmp, sizeof tmp,
			 ", SPLIT_POLICY => 'org.apache.hadoop.hbase."
			 "regionserver.%s'",
			 policy_class(pol.kind));
		sbx_buf_append(&b, tmp, strlen(tmp));
		if (pol.kind == SBX_SPLIT_KEY_PREFIX) {
			snprintf(tmp, sizeof tmp,
				 ", CONFIGURATION => {'KeyPrefixRegionSplitPolicy"
				 ".prefix_length' => '%zu'}",
				 pol.prefix_length);
			sbx_buf_append(&b, tmp, strlen(tmp));
		} else if (pol.kind == SBX_SPLIT_DELIMITED_KEY_PREFIX) {
			sbx_buf_append(&b, ", CONFIGURATION => "
					   "{'DelimitedKeyPrefixRegionSplitPolicy"
					   ".delimiter' => ",
				       strlen(", CONFIGURATION => "
					      "{'DelimitedKeyPrefixRegionSplitPolicy"
					      ".delimiter' => "));
			ruby_key(&b, (const uint8_t *)&pol.delimiter, 1);
			sbx_buf_push(&b, '}');
		}
	}
	if (has_pol && pol.max_file_size != def.max_file_size) {
		snprintf(tmp, sizeof tmp, ", MAX_FILESIZE => '%llu'",
			 (unsigned long long)pol.max_file_size);
		sbx_buf_append(&b, tmp, strlen(tmp));
	}
	printf("%.*s\n", (int)b.len, (const char *)b.data);
	fflush(stdout); /* before what create_on says on stderr */
	sbx_buf_free(&b);
	int rc = o->create_on ? create_on(o, info, r, n) : 0;
	sbx_region_infos_free(r, n);
	sbx_table_info_free(info);
	return rc;
}

static int key_arg(const char *text, sbx_buf *out)
{
	if (sbx_key_from_binary_string(out, text, strlen(text)))
		return fail("bad key '%s' (use \\xHH escapes)", text);
	return 0;
}

int cmd_regions(int argc, char **argv)
{
	reg_opts o;
	int rc = parse(argc, argv, &o);
	if (rc)
		return rc < 0 ? 0 : rc;
	sbx_db *db = cli_open_store(o.data, o.url, "saltbox regions");
	if (!db)
		return 1;
	sbx_buf key = {0};
	if (!strcmp(o.verb, "list")) {
		rc = list_cmd(db, &o);
	} else if (!strcmp(o.verb, "stats")) {
		rc = stats_cmd(db, &o);
	} else if (!strcmp(o.verb, "export-splits")) {
		rc = export_cmd(db, &o);
	} else if (!strcmp(o.verb, "split")) {
		if (o.nargs > 1)
			rc = fail("%s", "split takes at most one KEY");
		else if (o.nargs == 1 && !(rc = key_arg(o.args[0], &key)) &&
			 key.len == 0)
			rc = fail("%s", "split: the key is empty");
		if (!rc && sbx_table_split(db, o.table, key.data, key.len))
			rc = fail("%s", sbx_errmsg());
		if (!rc)
			rc = list_cmd(db, &o);
	} else {
		if (o.nargs != 1)
			rc = fail("%s", "merge takes the START key of the first "
					"region ('' for the first)");
		else
			rc = key_arg(o.args[0], &key);
		if (!rc && sbx_table_merge(db, o.table, key.data, key.len))
			rc = fail("%s", sbx_errmsg());
		if (!rc)
			rc = list_cmd(db, &o);
	}
	sbx_buf_free(&key);
	sbx_db_close(db);
	return rc;
}
