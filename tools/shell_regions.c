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

static void print_key_cell(shell *sh, const uint8_t *key, size_t len, int width)
{
	sbx_buf b = {0};
	sbx_shell_append_binary(&b, key, len);
	fprintf(sh->out, " %*.*s |", width, (int)b.len,
		b.data ? (char *)b.data : "");
	free(b.data);
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
	fprintf(sh->out, " %11s | %-60s | %10s | %10s | %8s | %8s |\n",
		"SERVER_NAME", "REGION_NAME", "START_KEY", "END_KEY", "SIZE",
		"REQ");
	for (size_t i = 0; i < n; i++) {
		char server[32];
		const sbx_region_metrics *m = &r[i].metrics;
		snprintf(server, sizeof server, "server-%d", r[i].server);
		fprintf(sh->out, " %11s | %-60s |", server, r[i].name);
		print_key_cell(sh, r[i].start_key, r[i].start_len, 10);
		print_key_cell(sh, r[i].end_key, r[i].end_len, 10);
		fprintf(sh->out, " %8" PRIu64 " | %8" PRIu64 " |\n",
			(m->store_file_size + m->memstore_size) >> 20,
			m->read_request_count + m->write_request_count);
	}
	fprintf(sh->out, " %zu rows\n", n);
	sbx_region_infos_free(r, n);
	return 0;
}

int shell_cmd_status(shell *sh, const sbx_shell_cmd *c)
{
	char **tables;
	if (c->nargs) {
		const char *kind;
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
	size_t nt = 0, nregions = 0;
	for (; tables[nt]; nt++) {
		sbx_region_info *r;
		size_t n;
		if (sbx_table_regions(&r, &n, sh->db, tables[nt]) == 0) {
			nregions += n;
			sbx_region_infos_free(r, n);
		}
	}
	int servers = sbx_db_region_servers(sh->db);
	fprintf(sh->out,
		"1 active master, 0 backup masters, %d servers, 0 dead, "
		"%.4f average load\n",
		servers, servers > 0 ? (double)nregions / servers : 0.0);
	fprintf(sh->out,
		"embedded store at %s: %zu table(s), %zu region(s) "
		"on %d modelled region servers\n",
		sh->data_dir, nt, nregions, servers);
	sbx_strv_free(tables);
	return 0;
}
