/*
 * shell_regions.c - the shell's region side: table attributes that shape
 * regions (SPLITS, SPLITS_FILE, NUMREGIONS + SPLITALGO, SPLIT_POLICY,
 * MAX_FILESIZE, MEMSTORE_FLUSHSIZE, METADATA) for create and alter, and the
 * split, get_splits, list_regions and status commands.
 */
#include "shell.h"

#include "common/buf.h"
#include "common/bytes.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Attributes HBase tables have that Saltbox does not model. */
static const char *const ignored_table_attrs[] = {"READONLY",
						  "DURABILITY",
						  "REGION_REPLICATION",
						  "NORMALIZATION_ENABLED",
						  "OWNER",
						  "CONFIGURATION",
						  "PRIORITY",
						  "COMPACTION_ENABLED",
						  "SPLIT_ENABLED",
						  "MERGE_ENABLED",
						  "FLUSH_POLICY",
						  NULL};

void shell_table_setup_init(shell_table_setup *ts)
{
	memset(ts, 0, sizeof *ts);
	sbx_split_policy_init(&ts->policy);
}

void shell_table_setup_free(shell_table_setup *ts)
{
	for (size_t i = 0; i < ts->nsplits; i++)
		free(ts->splits[i].data);
	free(ts->splits);
	free(ts->algo);
	memset(ts, 0, sizeof *ts);
}

static int add_split(shell *sh, shell_table_setup *ts, const void *key,
		     size_t len)
{
	sbx_buf *grown = realloc(ts->splits, (ts->nsplits + 1) * sizeof *grown);
	if (!grown)
		return shell_fail(sh, "out of memory");
	ts->splits = grown;
	sbx_buf *b = &ts->splits[ts->nsplits++];
	memset(b, 0, sizeof *b);
	if (sbx_buf_append(b, key, len))
		return shell_fail(sh, "out of memory");
	return 0;
}

/* HBase reads split keys with Bytes.toBytesBinary: "\x00" is a byte even
 * inside single quotes. */
static int add_split_binary(shell *sh, shell_table_setup *ts, const char *s,
			    size_t len)
{
	sbx_buf b = {0};
	int rc = sbx_shell_from_binary(&b, s, len);
	if (!rc)
		rc = add_split(sh, ts, b.data ? (const void *)b.data : "",
			       b.len);
	else
		rc = shell_fail(sh, "out of memory");
	free(b.data);
	return rc;
}

static int splits_file(shell *sh, shell_table_setup *ts,
		       const sbx_shell_value *v)
{
	const char *path;
	if (shell_text(sh, v, "SPLITS_FILE", &path))
		return -1;
	FILE *f = fopen(path, "r");
	if (!f)
		return shell_fail(sh, "cannot read SPLITS_FILE '%s': %s", path,
				  strerror(errno));
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int rc = 0;
	while (!rc && (n = getline(&line, &cap, f)) >= 0) {
		while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			n--;
		rc = add_split_binary(sh, ts, line, (size_t)n);
	}
	free(line);
	fclose(f);
	return rc;
}

static int split_policy(shell *sh, shell_table_setup *ts,
			const sbx_shell_value *v)
{
	static const struct {
		const char *name;
		sbx_split_policy_kind kind;
	} policies[] = {
	    {"SteppingSplitPolicy", SBX_SPLIT_STEPPING},
	    {"ConstantSizeRegionSplitPolicy", SBX_SPLIT_CONSTANT_SIZE},
	    {"IncreasingToUpperBoundRegionSplitPolicy",
	     SBX_SPLIT_INCREASING_TO_UPPER_BOUND},
	    {"KeyPrefixRegionSplitPolicy", SBX_SPLIT_KEY_PREFIX},
	    {"DelimitedKeyPrefixRegionSplitPolicy",
	     SBX_SPLIT_DELIMITED_KEY_PREFIX},
	    {"DisabledRegionSplitPolicy", SBX_SPLIT_DISABLED},
	};
	const char *name;
	if (shell_text(sh, v, "SPLIT_POLICY", &name))
		return -1;
	const char *dot = strrchr(name, '.');
	const char *shortname = dot ? dot + 1 : name;
	for (size_t i = 0; i < sizeof policies / sizeof *policies; i++)
		if (!strcmp(shortname, policies[i].name)) {
			ts->policy.kind = policies[i].kind;
			ts->set_policy = true;
			return 0;
		}
	return shell_fail(sh,
			  "unknown SPLIT_POLICY '%.128s' (known: "
			  "SteppingSplitPolicy, "
			  "ConstantSizeRegionSplitPolicy, "
			  "IncreasingToUpperBoundRegionSplitPolicy, "
			  "KeyPrefixRegionSplitPolicy, "
			  "DelimitedKeyPrefixRegionSplitPolicy, "
			  "DisabledRegionSplitPolicy)",
			  name);
}

static int size_attr(shell *sh, const char *key, const sbx_shell_value *v,
		     uint64_t *out)
{
	int64_t n;
	if (shell_int(sh, v, key, &n))
		return -1;
	if (n <= 0)
		return shell_fail(sh, "%s must be a positive number of bytes",
				  key);
	*out = (uint64_t)n;
	return 0;
}

/* METADATA => {'KeyPrefixRegionSplitPolicy.prefix_length' => '4', ...} */
static int metadata(shell *sh, shell_table_setup *ts, const sbx_shell_value *v)
{
	if (v->type != SBX_SHV_HASH)
		return shell_fail(sh, "METADATA must be a hash");
	for (size_t i = 0; i + 1 < v->n; i += 2) {
		const sbx_shell_value *k = &v->items[i],
				      *val = &v->items[i + 1];
		if (!sbx_shell_is_text(k))
			return shell_fail(sh, "METADATA keys must be strings");
		if (!strcmp(k->str,
			    "KeyPrefixRegionSplitPolicy.prefix_length") ||
		    !strcmp(k->str, "prefix_split_key_policy.prefix_length")) {
			int64_t n;
			if (shell_int(sh, val, k->str, &n))
				return -1;
			if (n < 1 || n > SBX_MAX_ROW_LENGTH)
				return shell_fail(sh,
						  "%s must be between 1 "
						  "and %d",
						  k->str, SBX_MAX_ROW_LENGTH);
			ts->policy.prefix_length = (size_t)n;
			ts->set_policy = true;
		} else if (!strcmp(k->str,
				   "DelimitedKeyPrefixRegionSplitPolicy."
				   "delimiter")) {
			if (!sbx_shell_is_text(val) || val->len != 1)
				return shell_fail(sh,
						  "%s must be one "
						  "character",
						  k->str);
			ts->policy.delimiter = val->str[0];
			ts->set_policy = true;
		} else {
			fprintf(sh->out,
				"NOTE: METADATA key '%.64s' is not used by "
				"saltbox and was ignored\n",
				k->str);
		}
	}
	return 0;
}

int shell_table_attr(shell *sh, const char *key, const sbx_shell_value *v,
		     shell_table_setup *ts)
{
	if (!strcmp(key, "SPLITS")) {
		if (v->type != SBX_SHV_ARRAY)
			return shell_fail(sh, "SPLITS must be an array of "
					      "split keys");
		for (size_t j = 0; j < v->n; j++) {
			char num[24];
			const char *s;
			size_t len;
			if (shell_bytes(sh, &v->items[j], "split key", num, &s,
					&len) ||
			    add_split_binary(sh, ts, s, len))
				return -1;
		}
		ts->has_splits = true;
		return 0;
	}
	if (!strcmp(key, "SPLITS_FILE")) {
		ts->has_splits = true;
		return splits_file(sh, ts, v);
	}
	if (!strcmp(key, "NUMREGIONS")) {
		int64_t n;
		if (shell_int(sh, v, key, &n))
			return -1;
		if (n < 2 || n > 100000)
			return shell_fail(sh,
					  "NUMREGIONS must be between 2 and "
					  "100000, got %" PRId64,
					  n);
		ts->numregions = (int)n;
		return 0;
	}
	if (!strcmp(key, "SPLITALGO")) {
		const char *s;
		if (shell_text(sh, v, key, &s))
			return -1;
		free(ts->algo);
		ts->algo = strdup(s);
		return ts->algo ? 0 : shell_fail(sh, "out of memory");
	}
	if (!strcmp(key, "SPLIT_POLICY"))
		return split_policy(sh, ts, v);
	if (!strcmp(key, "MAX_FILESIZE")) {
		ts->set_policy = true;
		return size_attr(sh, key, v, &ts->policy.max_file_size);
	}
	if (!strcmp(key, "MEMSTORE_FLUSHSIZE")) {
		ts->set_policy = true;
		return size_attr(sh, key, v, &ts->policy.flush_size);
	}
	if (!strcmp(key, "METADATA"))
		return metadata(sh, ts, v);
	for (size_t i = 0; ignored_table_attrs[i]; i++)
		if (!strcmp(key, ignored_table_attrs[i])) {
			fprintf(sh->out,
				"NOTE: table attribute %s is not supported by "
				"saltbox and was ignored\n",
				key);
			return 0;
		}
	return shell_fail(sh, "unknown table attribute '%.64s'", key);
}

static int cmp_split(const void *a, const void *b)
{
	const sbx_buf *x = a, *y = b;
	return sbx_bytes_cmp(x->data, x->len, y->data, y->len);
}

/* NUMREGIONS + SPLITALGO to split keys; then sort and check them, as
 * HBase's Admin.createTable does. */
static int finish_splits(shell *sh, shell_table_setup *ts)
{
	if (ts->numregions || ts->algo) {
		if (!ts->numregions || !ts->algo)
			return shell_fail(sh, "NUMREGIONS and SPLITALGO go "
					      "together, e.g. NUMREGIONS => "
					      "16, SPLITALGO => "
					      "'HexStringSplit'");
		if (ts->has_splits)
			return shell_fail(sh, "give either SPLITS or "
					      "NUMREGIONS/SPLITALGO, not both");
		const char *dot = strrchr(ts->algo, '.');
		const char *name = dot ? dot + 1 : ts->algo;
		sbx_split_algo algo;
		if (!strcmp(name, "HexStringSplit"))
			algo = SBX_SPLITALGO_HEX_STRING;
		else if (!strcmp(name, "DecimalStringSplit"))
			algo = SBX_SPLITALGO_DECIMAL_STRING;
		else if (!strcmp(name, "UniformSplit"))
			algo = SBX_SPLITALGO_UNIFORM;
		else
			return shell_fail(sh,
					  "unknown SPLITALGO '%.64s' (use "
					  "HexStringSplit, "
					  "DecimalStringSplit or "
					  "UniformSplit)",
					  ts->algo);
		sbx_split_keys keys;
		int rc = sbx_split_keys_compute(&keys, algo, ts->numregions);
		if (rc)
			return shell_lib_fail(sh, rc, NULL);
		for (size_t i = 0; !rc && i < keys.n; i++)
			rc = add_split(sh, ts, keys.keys[i].data,
				       keys.keys[i].len);
		sbx_split_keys_free(&keys);
		if (rc)
			return -1;
	}
	if (ts->nsplits)
		qsort(ts->splits, ts->nsplits, sizeof *ts->splits, cmp_split);
	for (size_t i = 0; i < ts->nsplits; i++) {
		if (ts->splits[i].len == 0)
			return shell_fail(sh, "split keys must not be empty");
		if (i && !cmp_split(&ts->splits[i - 1], &ts->splits[i])) {
			sbx_buf shown = {0};
			sbx_shell_append_binary(&shown, ts->splits[i].data,
						ts->splits[i].len);
			shell_fail(sh, "split key '%.*s' is given twice",
				   (int)(shown.len > 200 ? 200 : shown.len),
				   shown.data ? (char *)shown.data : "");
			free(shown.data);
			return -1;
		}
	}
	return 0;
}

static int apply_policy(shell *sh, const char *table, shell_table_setup *ts)
{
	if (!ts->set_policy)
		return 0;
	int rc = sbx_table_set_split_policy(sh->db, table, &ts->policy);
	return rc ? shell_lib_fail(sh, rc, NULL) : 0;
}

int shell_create_table(shell *sh, const char *table,
		       const sbx_family_desc *fams, size_t nf,
		       shell_table_setup *ts)
{
	if (finish_splits(sh, ts))
		return -1;
	sbx_bytes *keys = calloc(ts->nsplits ? ts->nsplits : 1, sizeof *keys);
	if (!keys)
		return shell_fail(sh, "out of memory");
	for (size_t i = 0; i < ts->nsplits; i++) {
		keys[i].data = ts->splits[i].data;
		keys[i].len = ts->splits[i].len;
	}
	int rc = ts->nsplits ? sbx_table_create_presplit(sh->db, table, fams,
							 nf, keys, ts->nsplits)
			     : sbx_table_create(sh->db, table, fams, nf);
	free(keys);
	if (rc)
		return shell_lib_fail(sh, rc, NULL);
	return apply_policy(sh, table, ts);
}

int shell_alter_table_attrs(shell *sh, const char *table,
			    const sbx_shell_value *hash)
{
	shell_table_setup ts;
	shell_table_setup_init(&ts);
	int rc = sbx_table_get_split_policy(&ts.policy, sh->db, table);
	if (rc)
		return shell_lib_fail(sh, rc, NULL);
	int ret = 0;
	for (size_t i = 0; !ret && i + 1 < hash->n; i += 2) {
		const sbx_shell_value *k = &hash->items[i];
		if (!sbx_shell_is_text(k)) {
			ret = shell_fail(sh, "table attribute names must be "
					     "constants or strings");
			break;
		}
		if (!strcmp(k->str, "METHOD")) {
			const char *m;
			if (shell_text(sh, &hash->items[i + 1], "METHOD", &m))
				ret = -1;
			else if (strcmp(m, "table_att"))
				ret = shell_fail(sh,
						 "alter: METHOD '%.64s' is "
						 "not supported here",
						 m);
			continue;
		}
		ret = shell_table_attr(sh, k->str, &hash->items[i + 1], &ts);
	}
	if (!ret && (ts.nsplits || ts.numregions || ts.algo))
		ret = shell_fail(sh, "alter cannot pre-split an existing "
				     "table; use split 't', 'key'");
	if (!ret)
		ret = apply_policy(sh, table, &ts);
	shell_table_setup_free(&ts);
	return ret;
}

/* ---- commands ------------------------------------------------------------ */

int shell_cmd_split(shell *sh, const sbx_shell_cmd *c)
{
	const char *table, *key = NULL;
	char num[24];
	size_t len = 0;
	if (shell_text(sh, &c->args[0], "table name", &table))
		return -1;
	if (c->nargs > 1 &&
	    shell_bytes(sh, &c->args[1], "split key", num, &key, &len))
		return -1;
	if (c->nargs > 1 && len == 0)
		return shell_fail(sh, "split key must not be empty");
	int rc = sbx_table_split(sh->db, table, key, len);
	return rc ? shell_lib_fail(sh, rc, NULL) : 0;
}

int shell_cmd_get_splits(shell *sh, const sbx_shell_cmd *c)
{
	const char *table;
	sbx_region_info *r;
	size_t n;
	if (shell_text(sh, &c->args[0], "table name", &table))
		return -1;
	int rc = sbx_table_regions(&r, &n, sh->db, table);
	if (rc)
		return shell_lib_fail(sh, rc, NULL);
	fprintf(sh->out, "Total number of splits = %zu\n", n);
	sbx_buf_reset(&sh->ret);
	rc = sbx_buf_push(&sh->ret, '[');
	for (size_t i = 1; i < n; i++) {
		shell_print_binary(sh, r[i].start_key, r[i].start_len);
		fputc('\n', sh->out);
		if (!rc && i > 1)
			rc = sbx_buf_append(&sh->ret, ", ", 2);
		if (!rc)
			rc = sbx_buf_push(&sh->ret, '"');
		if (!rc)
			rc = sbx_shell_append_binary(&sh->ret, r[i].start_key,
						     r[i].start_len);
		if (!rc)
			rc = sbx_buf_push(&sh->ret, '"');
	}
	if (!rc)
		rc = sbx_buf_append(&sh->ret, "]", 2);
	sh->has_ret = rc == 0;
	sbx_region_infos_free(r, n);
	return 0;
}

/* A key as the shell prints bytes, into a fresh string ("" on failure). */
static char *key_cell(const uint8_t *key, size_t len)
{
	sbx_buf b = {0};
	if (sbx_shell_append_binary(&b, key, len) || sbx_buf_push(&b, 0)) {
		sbx_buf_free(&b);
		return strdup("");
	}
	return (char *)b.data;
}

static int max_int(int a, int b)
{
	return a > b ? a : b;
}

int shell_cmd_list_regions(shell *sh, const sbx_shell_cmd *c)
{
	const char *table;
	sbx_region_info *r;
	size_t n;
	if (shell_text(sh, &c->args[0], "table name", &table))
		return -1;
	int rc = sbx_table_regions(&r, &n, sh->db, table);
	if (rc)
		return shell_lib_fail(sh, rc, NULL);
	/* every column as wide as its widest cell, as HBase's list_regions
	 * sizes them, so long keys and names keep the columns aligned */
	char **start = calloc(n ? n : 1, sizeof *start);
	char **end = calloc(n ? n : 1, sizeof *end);
	int ws = 11, wn = 11, wk1 = 10, wk2 = 10;
	for (size_t i = 0; start && end && i < n; i++) {
		start[i] = key_cell(r[i].start_key, r[i].start_len);
		end[i] = key_cell(r[i].end_key, r[i].end_len);
		char server[32];
		int l = snprintf(server, sizeof server, "server-%d", r[i].server);
		ws = max_int(ws, l);
		wn = max_int(wn, (int)strlen(r[i].name));
		wk1 = max_int(wk1, start[i] ? (int)strlen(start[i]) : 0);
		wk2 = max_int(wk2, end[i] ? (int)strlen(end[i]) : 0);
	}
	fprintf(sh->out, " %*s | %-*s | %*s | %*s | %8s | %8s |\n", ws,
		"SERVER_NAME", wn, "REGION_NAME", wk1, "START_KEY", wk2,
		"END_KEY", "SIZE", "REQ");
	for (size_t i = 0; start && end && i < n; i++) {
		char server[32];
		const sbx_region_metrics *m = &r[i].metrics;
		snprintf(server, sizeof server, "server-%d", r[i].server);
		fprintf(sh->out,
			" %*s | %-*s | %*s | %*s | %8" PRIu64 " | %8" PRIu64
			" |\n",
			ws, server, wn, r[i].name, wk1,
			start[i] ? start[i] : "", wk2, end[i] ? end[i] : "",
			(m->store_file_size + m->memstore_size) >> 20,
			m->read_request_count + m->write_request_count);
	}
	fprintf(sh->out, " %zu rows\n", n);
	for (size_t i = 0; i < n; i++) {
		free(start ? start[i] : NULL);
		free(end ? end[i] : NULL);
	}
	free(start);
	free(end);
	sbx_region_infos_free(r, n);
	return 0;
}

/* What one modelled region server holds, summed over its regions. */
typedef struct server_load {
	size_t regions, stores;
	uint64_t reads, writes, filtered, storefile, memstore;
} server_load;

/* A region name as Ruby's String#dump prints it: quoted, escaped. */
static void print_dumped(shell *sh, const char *s)
{
	fputc('"', sh->out);
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;
		if (ch == '"' || ch == '\\')
			fprintf(sh->out, "\\%c", ch);
		else if (ch < 0x20 || ch >= 0x7f)
			fprintf(sh->out, "\\x%02X", ch);
		else
			fputc(ch, sh->out);
	}
	fputs("\"\n", sh->out);
}

/* HBase's ServerLoad / RegionLoad toString, the counters Saltbox keeps. */
static void print_server_load(shell *sh, const server_load *l)
{
	fprintf(sh->out,
		"        requestsPerSecond=0.0, numberOfOnlineRegions=%zu, "
		"usedHeapMB=0, maxHeapMB=0, numberOfStores=%zu, "
		"numberOfStorefiles=%zu, storefileSizeMB=%" PRIu64
		", memstoreSizeMB=%" PRIu64 ", readRequestsCount=%" PRIu64
		", filteredReadRequestsCount=%" PRIu64
		", writeRequestsCount=%" PRIu64 "\n",
		l->regions, l->stores, l->stores, l->storefile >> 20,
		l->memstore >> 20, l->reads, l->filtered, l->writes);
}

static void print_region_load(shell *sh, const sbx_region_info *r,
			      size_t stores)
{
	const sbx_region_metrics *m = &r->metrics;
	fprintf(sh->out, "        ");
	print_dumped(sh, r->name);
	fprintf(sh->out,
		"            numberOfStores=%zu, numberOfStorefiles=%zu, "
		"storefileSizeMB=%" PRIu64 ", memstoreSizeMB=%" PRIu64
		", readRequestsCount=%" PRIu64
		", filteredReadRequestsCount=%" PRIu64
		", writeRequestsCount=%" PRIu64 "\n",
		stores, stores, m->store_file_size >> 20,
		m->memstore_size >> 20, m->read_request_count,
		m->filtered_read_request_count, m->write_request_count);
}

/*
 * status ['summary' | 'simple' | 'detailed'], as HBase's shell prints
 * them (admin.rb): one line; the master, each live server with its load
 * and the aggregate; or the version, regions in transition, each server
 * with each of its regions. The servers are the modelled region servers
 * (server-N), the same that list_regions names and REST /status/cluster
 * lists as its LiveNodes; they have no start code, printed as 0.
 */
int shell_cmd_status(shell *sh, const sbx_shell_cmd *c)
{
	char **tables;
	const char *kind = "summary";
	if (c->nargs) {
		if (shell_text(sh, &c->args[0], "status format", &kind))
			return -1;
		if (strcmp(kind, "simple") && strcmp(kind, "summary") &&
		    strcmp(kind, "detailed"))
			return shell_fail(sh,
					  "status format must be 'summary', "
					  "'simple' or 'detailed'");
	}
	int rc = sbx_table_list(&tables, sh->db);
	if (rc)
		return shell_lib_fail(sh, rc, NULL);
	int servers = sbx_db_region_servers(sh->db);
	int ns = servers > 0 ? servers : 1;
	server_load *load = calloc((size_t)ns, sizeof *load);
	size_t nt = 0, nregions = 0;
	/* every table's regions, kept for 'detailed' */
	sbx_region_info **regs = NULL;
	size_t *nregs = NULL, *stores = NULL;
	for (; tables[nt]; nt++)
		;
	regs = calloc(nt ? nt : 1, sizeof *regs);
	nregs = calloc(nt ? nt : 1, sizeof *nregs);
	stores = calloc(nt ? nt : 1, sizeof *stores);
	if (!load || !regs || !nregs || !stores) {
		free(load);
		free(regs);
		free(nregs);
		free(stores);
		sbx_strv_free(tables);
		return shell_lib_fail(sh, SBX_ENOMEM, NULL);
	}
	for (size_t t = 0; t < nt; t++) {
		sbx_table_info *info;
		stores[t] = 1;
		if (sbx_table_describe(&info, sh->db, tables[t]) == SBX_OK) {
			stores[t] = info->nfamilies;
			sbx_table_info_free(info);
		}
		if (sbx_table_regions(&regs[t], &nregs[t], sh->db, tables[t]))
			continue; /* dropped meanwhile */
		nregions += nregs[t];
		for (size_t i = 0; i < nregs[t]; i++) {
			const sbx_region_info *r = &regs[t][i];
			server_load *l = &load[r->server >= 0 && r->server < ns
						       ? r->server
						       : 0];
			l->regions++;
			l->stores += stores[t];
			l->reads += r->metrics.read_request_count;
			l->writes += r->metrics.write_request_count;
			l->filtered += r->metrics.filtered_read_request_count;
			l->storefile += r->metrics.store_file_size;
			l->memstore += r->metrics.memstore_size;
		}
	}
	if (!strcmp(kind, "summary")) {
		fprintf(sh->out,
			"1 active master, 0 backup masters, %d servers, 0 dead, "
			"%.4f average load\n",
			servers, servers > 0 ? (double)nregions / servers : 0.0);
	} else {
		bool detailed = !strcmp(kind, "detailed");
		if (detailed)
			fprintf(sh->out, "version 2.5.0\n0 regionsInTransition\n");
		fprintf(sh->out, "active master:  saltbox:16000 0\n"
				 "0 backup masters\n");
		if (detailed)
			fprintf(sh->out, "master coprocessors: []\n");
		fprintf(sh->out, "%d live servers\n", servers);
		uint64_t aggregate = 0;
		for (int s = 0; s < servers; s++) {
			fprintf(sh->out, "    server-%d:16020 0\n", s);
			print_server_load(sh, &load[s]);
			aggregate += load[s].reads + load[s].writes;
			for (size_t t = 0; detailed && t < nt; t++)
				for (size_t i = 0; i < nregs[t]; i++)
					if (regs[t][i].server == s)
						print_region_load(
							sh, &regs[t][i],
							stores[t]);
		}
		fprintf(sh->out, "0 dead servers\n");
		if (!detailed)
			fprintf(sh->out,
				"Aggregate load: %" PRIu64 ", regions: %zu\n",
				aggregate, nregions);
	}
	for (size_t t = 0; t < nt; t++)
		sbx_region_infos_free(regs[t], nregs[t]);
	free(regs);
	free(nregs);
	free(stores);
	free(load);
	sbx_strv_free(tables);
	return 0;
}
