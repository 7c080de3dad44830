/*
 * shell_data.c - the shell's data commands: put, get, scan, count, delete,
 * deleteall, incr, get_counter and append. Get and scan share one reader of
 * HBase's option hash (read_spec); mutations share one row opener and one
 * apply step.
 */
#include "shell.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* ---- shared: table + row, mutations -------------------------------------- */

typedef struct row_target {
	sbx_table *t;
	const char *row;
	size_t row_len;
	char num[24];
} row_target;

static int open_row(shell *sh, const sbx_shell_cmd *c, row_target *rt)
{
	memset(rt, 0, sizeof *rt);
	if (c->nargs < 2)
		return shell_fail(sh, "%s needs a table and a row key",
				  c->name);
	if (shell_bytes(sh, &c->args[1], "row key", rt->num, &rt->row,
			&rt->row_len))
		return -1;
	return shell_open_table(sh, &c->args[0], &rt->t);
}

/* Apply and free m; *res (optional) receives the increment/append cells. */
static int apply(shell *sh, row_target *rt, sbx_mutation *m, int rc,
		 sbx_result **res)
{
	if (!rc)
		rc = sbx_table_mutate(res, rt->t, m);
	sbx_mutation_free(m);
	return rc ? shell_lib_fail(sh, rc, NULL) : 0;
}

static int new_mutation(shell *sh, row_target *rt, sbx_mutation **m)
{
	int rc = sbx_mutation_new(m, rt->row, rt->row_len);
	return rc ? shell_lib_fail(sh, rc, NULL) : 0;
}

/* An optional trailing timestamp argument at index i. */
static int opt_timestamp(shell *sh, const sbx_shell_cmd *c, size_t i,
			 int64_t *ts)
{
	*ts = SBX_LATEST_TIMESTAMP;
	if (i >= c->nargs)
		return 0;
	if (c->args[i].type == SBX_SHV_HASH)
		return shell_fail(sh,
				  "%s: options (ATTRIBUTES, VISIBILITY, "
				  "TTL) are not supported",
				  c->name);
	if (shell_int(sh, &c->args[i], "timestamp", ts))
		return -1;
	if (*ts < 0)
		return shell_fail(sh,
				  "timestamp must not be negative, got "
				  "%" PRId64,
				  *ts);
	if (i + 1 < c->nargs)
		return shell_fail(sh, "%s: too many arguments", c->name);
	return 0;
}

int shell_cmd_put(shell *sh, const sbx_shell_cmd *c)
{
	row_target rt;
	shell_column col;
	char num[24];
	const char *value;
	size_t value_len;
	int64_t ts;
	sbx_mutation *m;
	if (c->nargs < 4)
		return shell_fail(sh, "put needs a table, row, column and "
				      "value: put 't', 'r', 'cf:q', 'v'");
	if (shell_parse_column(sh, &c->args[2], &col) ||
	    shell_bytes(sh, &c->args[3], "value", num, &value, &value_len) ||
	    opt_timestamp(sh, c, 4, &ts) || open_row(sh, c, &rt))
		return -1;
	int ret = new_mutation(sh, &rt, &m);
	if (!ret) {
		int rc = sbx_mutation_put(
		    m, col.family,
		    col.qualifier ? col.qualifier : (const uint8_t *)"",
		    col.qualifier_len, ts, value, value_len);
		ret = apply(sh, &rt, m, rc, NULL);
	}
	sbx_table_close(rt.t);
	return ret;
}

/* delete and deleteall with a column: DeleteColumn (all versions <= ts)
 * for family:qualifier, DeleteFamily for a bare family, as HBase's shell. */
static int delete_column(shell *sh, sbx_mutation *m, const shell_column *col,
			 int64_t ts)
{
	int rc;
	if (col->qualifier)
		rc =
		    sbx_mutation_delete(m, SBX_CELL_DELETE_COLUMN, col->family,
					col->qualifier, col->qualifier_len, ts);
	else
		rc = sbx_mutation_delete(m, SBX_CELL_DELETE_FAMILY, col->family,
					 NULL, 0, ts);
	return rc;
}

int shell_cmd_delete(shell *sh, const sbx_shell_cmd *c)
{
	row_target rt;
	shell_column col;
	int64_t ts;
	sbx_mutation *m;
	if (c->nargs < 3)
		return shell_fail(sh, "delete needs a table, row and column: "
				      "delete 't', 'r', 'cf:q'");
	if (shell_parse_column(sh, &c->args[2], &col) ||
	    opt_timestamp(sh, c, 3, &ts) || open_row(sh, c, &rt))
		return -1;
	int ret = new_mutation(sh, &rt, &m);
	if (!ret)
		ret = apply(sh, &rt, m, delete_column(sh, m, &col, ts), NULL);
	sbx_table_close(rt.t);
	return ret;
}

static int deleteall_row(shell *sh, row_target *rt, const shell_column *col,
			 int64_t ts)
{
	sbx_mutation *m;
	if (new_mutation(sh, rt, &m))
		return -1;
	int rc = col ? delete_column(sh, m, col, ts)
		     : sbx_mutation_delete_row(m, ts);
	return apply(sh, rt, m, rc, NULL);
}

/* deleteall 't', {ROWPREFIXFILTER => 'p'}[, col][, ts]: every row with the
 * prefix. */
static int deleteall_prefix(shell *sh, row_target *rt,
			    const sbx_shell_value *hash,
			    const shell_column *col, int64_t ts)
{
	static const char *const keys[] = {"ROWPREFIXFILTER", NULL};
	char num[24];
	const char *prefix;
	size_t len;
	if (shell_check_keys(sh, hash, keys, "deleteall") ||
	    shell_bytes(sh, sbx_shell_hash_get(hash, "ROWPREFIXFILTER"),
			"ROWPREFIXFILTER", num, &prefix, &len))
		return -1;
	sbx_scan_opts o;
	sbx_scan_opts_init(&o);
	uint8_t *stop = malloc(len + 1);
	sbx_scanner *s;
	if (!stop)
		return shell_fail(sh, "out of memory");
	sbx_scan_opts_set_prefix(&o, prefix, len, stop);
	int rc = sbx_scanner_open(&s, rt->t, &o);
	free(stop);
	if (rc)
		return shell_lib_fail(sh, rc, NULL);
	sbx_result *r;
	int ret = 0;
	while (!ret && (rc = sbx_scanner_next(s, &r)) == SBX_OK) {
		rt->row = (const char *)sbx_result_row(r, &rt->row_len);
		ret = deleteall_row(sh, rt, col, ts);
		sbx_result_free(r);
	}
	sbx_scanner_close(s);
	if (!ret && rc != SBX_ITEROVER)
		ret = shell_lib_fail(sh, rc, NULL);
	return ret;
}

int shell_cmd_deleteall(shell *sh, const sbx_shell_cmd *c)
{
	row_target rt = {0};
	shell_column col;
	int64_t ts = SBX_LATEST_TIMESTAMP;
	size_t next = 2;
	bool has_col = false,
	     prefix = c->nargs > 1 && c->args[1].type == SBX_SHV_HASH;
	if (c->nargs < 2)
		return shell_fail(sh, "deleteall needs a table and a row: "
				      "deleteall 't', 'r'");
	if (next < c->nargs && c->args[next].type != SBX_SHV_INT) {
		if (shell_parse_column(sh, &c->args[next], &col))
			return -1;
		has_col = true;
		next++;
	}
	if (opt_timestamp(sh, c, next, &ts))
		return -1;
	if (prefix) {
		if (shell_open_table(sh, &c->args[0], &rt.t))
			return -1;
	} else if (open_row(sh, c, &rt)) {
		return -1;
	}
	int ret = prefix ? deleteall_prefix(sh, &rt, &c->args[1],
					    has_col ? &col : NULL, ts)
			 : deleteall_row(sh, &rt, has_col ? &col : NULL, ts);
	sbx_table_close(rt.t);
	return ret;
}

static int64_t decode_counter(const uint8_t *v)
{
	uint64_t n = 0;
	for (int i = 0; i < 8; i++)
		n = n << 8 | v[i];
	return (int64_t)n;
}

/* incr and append: one read-modify-write on one column, printing the new
 * value under `label`. */
static int rmw_column(shell *sh, const sbx_shell_cmd *c, bool is_incr)
{
	row_target rt;
	shell_column col;
	int64_t delta = 1;
	char num[24];
	const char *value = NULL;
	size_t value_len = 0;
	sbx_mutation *m;
	sbx_result *res = NULL;
	if (c->nargs < (is_incr ? 3u : 4u))
		return shell_fail(
		    sh, is_incr ? "incr needs a table, row and column: "
				  "incr 't', 'r', 'cf:q'[, n]"
				: "append needs a table, row, column "
				  "and value: append 't', 'r', "
				  "'cf:q', 'v'");
	if (c->nargs > (is_incr ? 4u : 4u) ||
	    (c->nargs == 4 && c->args[3].type == SBX_SHV_HASH))
		return shell_fail(sh,
				  "%s: too many arguments (options such as "
				  "ATTRIBUTES are not supported)",
				  c->name);
	if (shell_parse_column(sh, &c->args[2], &col))
		return -1;
	if (!col.qualifier)
		return shell_fail(sh,
				  "%s needs a column 'family:qualifier', "
				  "not just a family",
				  c->name);
	if (is_incr && c->nargs == 4 &&
	    shell_int(sh, &c->args[3], "increment", &delta))
		return -1;
	if (!is_incr &&
	    shell_bytes(sh, &c->args[3], "value", num, &value, &value_len))
		return -1;
	if (open_row(sh, c, &rt))
		return -1;
	int ret = new_mutation(sh, &rt, &m);
	if (!ret) {
		int rc =
		    is_incr
			? sbx_mutation_increment(m, col.family, col.qualifier,
						 col.qualifier_len, delta)
			: sbx_mutation_append(m, col.family, col.qualifier,
					      col.qualifier_len, value,
					      value_len);
		ret = apply(sh, &rt, m, rc, &res);
	}
	const sbx_cell *cell =
	    res ? sbx_result_get(res, col.family, col.qualifier,
				 col.qualifier_len)
		: NULL;
	if (!ret && is_incr && cell && cell->value_len == 8) {
		int64_t n = decode_counter(cell->value);
		fprintf(sh->out, "COUNTER VALUE = %" PRId64 "\n", n);
	} else if (!ret && !is_incr && cell) {
		fprintf(sh->out, "CURRENT VALUE = ");
		shell_print_binary(sh, cell->value, cell->value_len);
		fputc('\n', sh->out);
	}
	sbx_result_free(res);
	sbx_table_close(rt.t);
	return ret;
}

int shell_cmd_incr(shell *sh, const sbx_shell_cmd *c)
{
	return rmw_column(sh, c, true);
}

int shell_cmd_append(shell *sh, const sbx_shell_cmd *c)
{
	return rmw_column(sh, c, false);
}

int shell_cmd_get_counter(shell *sh, const sbx_shell_cmd *c)
{
	row_target rt;
	shell_column col;
	sbx_result *res = NULL;
	if (c->nargs != 3)
		return shell_fail(sh, "get_counter needs a table, row and "
				      "column: get_counter 't', 'r', 'cf:q'");
	if (shell_parse_column(sh, &c->args[2], &col))
		return -1;
	if (!col.qualifier)
		return shell_fail(sh, "get_counter needs a column "
				      "'family:qualifier'");
	if (open_row(sh, c, &rt))
		return -1;
	sbx_column sel = {col.family, col.qualifier, col.qualifier_len};
	sbx_read_opts o;
	sbx_read_opts_init(&o);
	o.columns = &sel;
	o.ncolumns = 1;
	int ret = 0, rc = sbx_table_get(&res, rt.t, rt.row, rt.row_len, &o);
	const sbx_cell *cell =
	    rc ? NULL
	       : sbx_result_get(res, col.family, col.qualifier,
				col.qualifier_len);
	if (rc) {
		ret = shell_lib_fail(sh, rc, NULL);
	} else if (!cell) {
		fprintf(sh->out, "No counter found at specified coordinates\n");
	} else if (cell->value_len != 8) {
		ret = shell_fail(sh,
				 "the value at %s:%.*s is %zu bytes long, "
				 "not an 8-byte counter",
				 col.family, (int)col.qualifier_len,
				 (const char *)col.qualifier, cell->value_len);
	} else {
		int64_t n = decode_counter(cell->value);
		fprintf(sh->out, "COUNTER VALUE = %" PRId64 "\n", n);
	}
	sbx_result_free(res);
	sbx_table_close(rt.t);
	return ret;
}

/* ---- get / scan / count -------------------------------------------------- */

/* What get and scan read: options, the column selectors they point into,
 * the filter and the prefix-scan stop buffer. */
typedef struct read_spec {
	sbx_scan_opts scan;
	shell_column *cols;
	sbx_column *sel;
	size_t ncols;
	sbx_filter *filter;
	uint8_t *prefix_stop;
	int64_t interval;    /* count only */
	shell_format format; /* FORMATTER */
	int64_t maxlength;   /* MAXLENGTH, 0 = whole */
} read_spec;

/* The format for a cell: its column's 'cf:q:toX' converter, else the
 * FORMATTER. */
static shell_format format_for(const read_spec *r, const sbx_cell *cell)
{
	for (size_t i = 0; i < r->ncols; i++) {
		const shell_column *c = &r->cols[i];
		if (c->qualifier && c->qualifier_len == cell->qualifier_len &&
		    !strcmp(c->family, cell->family) &&
		    !memcmp(c->qualifier, cell->qualifier, c->qualifier_len))
			return c->format;
	}
	return r->format;
}

static void print_cell(shell *sh, const read_spec *r, const sbx_cell *cell,
		       bool row_mode)
{
	shell_print_cell(sh, cell, row_mode, format_for(r, cell), r->maxlength);
}

static void read_spec_free(read_spec *r)
{
	free(r->cols);
	free(r->sel);
	free(r->prefix_stop);
	sbx_filter_free(r->filter);
}

static int set_columns(shell *sh, read_spec *r, const sbx_shell_value *v)
{
	if (shell_columns(sh, v, &r->cols, &r->ncols))
		return -1;
	free(r->sel);
	r->sel = calloc(r->ncols ? r->ncols : 1, sizeof *r->sel);
	if (!r->sel)
		return shell_fail(sh, "out of memory");
	for (size_t i = 0; i < r->ncols; i++) {
		r->sel[i].family = r->cols[i].family;
		r->sel[i].qualifier = r->cols[i].qualifier;
		r->sel[i].qualifier_len = r->cols[i].qualifier_len;
	}
	r->scan.read.columns = r->sel;
	r->scan.read.ncolumns = r->ncols;
	return 0;
}

static int time_range(shell *sh, const sbx_shell_value *v, read_spec *r)
{
	if (v->type != SBX_SHV_ARRAY || v->n != 2)
		return shell_fail(sh, "TIMERANGE must be [min, max] "
				      "(milliseconds, max exclusive)");
	if (shell_int(sh, &v->items[0], "TIMERANGE min",
		      &r->scan.read.min_ts) ||
	    shell_int(sh, &v->items[1], "TIMERANGE max", &r->scan.read.max_ts))
		return -1;
	if (r->scan.read.min_ts < 0 ||
	    r->scan.read.max_ts < r->scan.read.min_ts)
		return shell_fail(sh,
				  "TIMERANGE [%" PRId64 ", %" PRId64 "] "
				  "is not a valid range",
				  r->scan.read.min_ts, r->scan.read.max_ts);
	return 0;
}

static int positive(shell *sh, const sbx_shell_value *v, const char *what,
		    int64_t max, int64_t *out)
{
	if (shell_int(sh, v, what, out))
		return -1;
	if (*out < 1 || *out > max)
		return shell_fail(
		    sh, "%s must be between 1 and %" PRId64 ", got %" PRId64,
		    what, max, *out);
	return 0;
}

/* One option of get's or scan's hash. */
static int read_option(shell *sh, const char *key, const sbx_shell_value *v,
		       read_spec *r)
{
	sbx_read_opts *o = &r->scan.read;
	sbx_scan_opts *s = &r->scan;
	int64_t n;
	const char *b;
	size_t len;
	if (!strcmp(key, "COLUMN") || !strcmp(key, "COLUMNS"))
		return set_columns(sh, r, v);
	if (!strcmp(key, "VERSIONS")) {
		if (positive(sh, v, key, INT32_MAX, &n))
			return -1;
		o->max_versions = (int)n;
		return 0;
	}
	if (!strcmp(key, "TIMERANGE"))
		return time_range(sh, v, r);
	if (!strcmp(key, "TIMESTAMP")) {
		if (shell_int(sh, v, key, &n))
			return -1;
		if (n < 0 || n == INT64_MAX)
			return shell_fail(
			    sh, "TIMESTAMP %" PRId64 " is out of range", n);
		o->min_ts = n;
		o->max_ts = n + 1;
		return 0;
	}
	if (!strcmp(key, "FILTER")) {
		sbx_filter_free(r->filter);
		if (shell_filter(sh, v, &r->filter))
			return -1;
		o->filter = r->filter;
		return 0;
	}
	if (!strcmp(key, "RAW"))
		return shell_bool(sh, v, key, &o->raw);
	if (!strcmp(key, "REVERSED"))
		return shell_bool(sh, v, key, &s->reversed);
	if (!strcmp(key, "STARTROW") || !strcmp(key, "STOPROW")) {
		if (!sbx_shell_is_text(v))
			return shell_fail(sh, "%s must be a string, got %s",
					  key, sbx_shell_type_name(v));
		b = v->str;
		len = v->len;
		if (key[2] == 'A') {
			s->start_row = b;
			s->start_row_len = len;
		} else {
			s->stop_row = b;
			s->stop_row_len = len;
		}
		return 0;
	}
	if (!strcmp(key, "ROWPREFIXFILTER"))
		return 0; /* applied after the bounds, see scan_spec */
	if (!strcmp(key, "LIMIT"))
		return positive(sh, v, key, INT64_MAX, &s->limit);
	if (!strcmp(key, "CACHE") || !strcmp(key, "BATCH")) {
		if (positive(sh, v, key, INT32_MAX, &n))
			return -1;
		*(key[0] == 'C' ? &s->caching : &s->batch) = (int)n;
		return 0;
	}
	if (!strcmp(key, "INTERVAL"))
		return positive(sh, v, key, INT64_MAX, &r->interval);
	if (!strcmp(key, "MAXLENGTH"))
		return positive(sh, v, key, INT32_MAX, &r->maxlength);
	if (!strcmp(key, "FORMATTER")) {
		if (shell_text(sh, v, key, &b))
			return -1;
		if (strcmp(b, "toString") && strcmp(b, "toStringBinary"))
			return shell_fail(sh,
					  "FORMATTER must be 'toString' or "
					  "'toStringBinary' (per column: "
					  "'cf:q:toLong'), got '%.64s'",
					  b);
		r->format = shell_format_from_name(b, strlen(b));
		return 0;
	}
	if (!strcmp(key, "CACHE_BLOCKS"))
		return shell_bool(sh, v, key, &(bool){false});
	return shell_fail(sh, "option %s is not handled", key);
}

static int read_options(shell *sh, const sbx_shell_value *hash, read_spec *r,
			const char *const *allowed, const char *cmd)
{
	if (shell_check_keys(sh, hash, allowed, cmd))
		return -1;
	for (size_t i = 0; i + 1 < hash->n; i += 2)
		if (read_option(sh, hash->items[i].str, &hash->items[i + 1], r))
			return -1;
	return 0;
}

static const char *const get_keys[] = {"COLUMN",    "COLUMNS",	 "VERSIONS",
				       "TIMERANGE", "TIMESTAMP", "FILTER",
				       "FORMATTER", "MAXLENGTH", NULL};

int shell_cmd_get(shell *sh, const sbx_shell_cmd *c)
{
	row_target rt;
	read_spec r = {0};
	sbx_result *res = NULL;
	int ret = -1;
	sbx_read_opts_init(&r.scan.read);
	for (size_t i = 2; i < c->nargs; i++) {
		const sbx_shell_value *a = &c->args[i];
		int rc = a->type == SBX_SHV_HASH
			     ? read_options(sh, a, &r, get_keys, "get")
			     : set_columns(sh, &r, a);
		if (rc)
			goto out;
	}
	if (open_row(sh, c, &rt))
		goto out;
	int rc = sbx_table_get(&res, rt.t, rt.row, rt.row_len, &r.scan.read);
	if (rc) {
		shell_lib_fail(sh, rc, NULL);
	} else {
		shell_print_header(sh, "COLUMN", "CELL");
		size_t n = sbx_result_size(res);
		for (size_t i = 0; i < n; i++)
			print_cell(sh, &r, sbx_result_cell(res, i), false);
		fprintf(sh->out, "%d row(s)\n", n ? 1 : 0);
		ret = 0;
	}
	sbx_result_free(res);
	sbx_table_close(rt.t);
out:
	read_spec_free(&r);
	return ret;
}

static const char *const scan_keys[] = {
    "STARTROW",	 "STOPROW",   "ROWPREFIXFILTER", "LIMIT",
    "REVERSED",	 "COLUMN",    "COLUMNS",	 "VERSIONS",
    "TIMERANGE", "TIMESTAMP", "FILTER",		 "RAW",
    "CACHE",	 "BATCH",     "CACHE_BLOCKS",	 "FORMATTER",
    "MAXLENGTH", NULL};

static const char *const count_keys[] = {
    "INTERVAL", "CACHE",	   "FILTER",	   "STARTROW",
    "STOPROW",	"ROWPREFIXFILTER", "COLUMNS",	   "LIMIT",
    "REVERSED", "TIMERANGE",	   "CACHE_BLOCKS", NULL};

/* Options of scan/count from args[1] (a hash), then open the scanner. */
static int scan_spec(shell *sh, const sbx_shell_cmd *c, read_spec *r,
		     const char *const *allowed, sbx_table **t, sbx_scanner **s)
{
	sbx_scan_opts_init(&r->scan);
	*t = NULL;
	*s = NULL;
	const sbx_shell_value *h = c->nargs > 1 ? &c->args[1] : NULL;
	if (h && h->type != SBX_SHV_HASH)
		return shell_fail(sh,
				  "%s options must be a hash such as "
				  "{LIMIT => 10}, got %s",
				  c->name, sbx_shell_type_name(h));
	if (c->nargs > 2)
		return shell_fail(sh, "%s: too many arguments", c->name);
	if (h && read_options(sh, h, r, allowed, c->name))
		return -1;
	const sbx_shell_value *p = sbx_shell_hash_get(h, "ROWPREFIXFILTER");
	if (p) {
		/* Bounds are kept by pointer until the scanner opens, so they
		 * must be string values, never the scratch text of a number. */
		if (!sbx_shell_is_text(p))
			return shell_fail(sh,
					  "ROWPREFIXFILTER must be a string, "
					  "got %s",
					  sbx_shell_type_name(p));
		const char *b = p->str;
		size_t len = p->len;
		r->prefix_stop = malloc(len + 1);
		if (!r->prefix_stop)
			return shell_fail(sh, "out of memory");
		sbx_scan_opts_set_prefix(&r->scan, b, len, r->prefix_stop);
	}
	/* count reads only each row's first cell, as HBase's count does
	 * with a FirstKeyOnlyFilter. */
	if (allowed == count_keys && !r->filter) {
		int frc = sbx_filter_new_first_key_only(&r->filter);
		if (frc)
			return shell_lib_fail(sh, frc, NULL);
		r->scan.read.filter = r->filter;
	}
	if (shell_open_table(sh, &c->args[0], t))
		return -1;
	int rc = sbx_scanner_open(s, *t, &r->scan);
	if (rc) {
		*s = NULL;
		return shell_lib_fail(sh, rc, NULL);
	}
	return 0;
}

int shell_cmd_scan(shell *sh, const sbx_shell_cmd *c)
{
	read_spec r = {0};
	sbx_table *t;
	sbx_scanner *s;
	sbx_result *res;
	int ret = -1, rc = SBX_ITEROVER;
	size_t rows = 0;
	if (scan_spec(sh, c, &r, scan_keys, &t, &s))
		goto out;
	shell_print_header(sh, "ROW", "COLUMN+CELL");
	const uint8_t *last = NULL;
	size_t last_len = 0;
	uint8_t *prev = NULL;
	while (!shell_interrupted() &&
	       (rc = sbx_scanner_next(s, &res)) == SBX_OK) {
		size_t n = sbx_result_size(res), len;
		const uint8_t *row = sbx_result_row(res, &len);
		/* With BATCH one row can come in several results. */
		if (!last || len != last_len || memcmp(row, last, len)) {
			rows++;
			free(prev);
			prev = malloc(len ? len : 1);
			if (prev && len)
				memcpy(prev, row, len);
			last = prev;
			last_len = len;
		}
		for (size_t i = 0; i < n; i++)
			print_cell(sh, &r, sbx_result_cell(res, i), true);
		sbx_result_free(res);
	}
	free(prev);
	if (shell_interrupted()) {
		fprintf(sh->out, "%zu row(s) before the interrupt\n", rows);
		shell_fail(sh, "interrupted");
		goto out;
	}
	if (rc != SBX_ITEROVER) {
		shell_lib_fail(sh, rc, NULL);
		goto out;
	}
	fprintf(sh->out, "%zu row(s)\n", rows);
	ret = 0;
out:
	sbx_scanner_close(s);
	sbx_table_close(t);
	read_spec_free(&r);
	return ret;
}

int shell_cmd_count(shell *sh, const sbx_shell_cmd *c)
{
	read_spec r = {.interval = 1000};
	sbx_table *t;
	sbx_scanner *s;
	sbx_result *res;
	int ret = -1, rc = SBX_ITEROVER;
	int64_t rows = 0;
	if (scan_spec(sh, c, &r, count_keys, &t, &s))
		goto out;
	while (!shell_interrupted() &&
	       (rc = sbx_scanner_next(s, &res)) == SBX_OK) {
		if (++rows % r.interval == 0) {
			size_t len;
			const uint8_t *row = sbx_result_row(res, &len);
			fprintf(sh->out,
				"Current count: %" PRId64 ", row: ", rows);
			shell_print_binary(sh, row, len);
			fputc('\n', sh->out);
		}
		sbx_result_free(res);
	}
	if (shell_interrupted()) {
		shell_fail(sh, "interrupted after %" PRId64 " row(s)", rows);
		goto out;
	}
	if (rc != SBX_ITEROVER) {
		shell_lib_fail(sh, rc, NULL);
		goto out;
	}
	fprintf(sh->out, "%" PRId64 " row(s)\n", rows);
	shell_set_ret(sh, "%" PRId64, rows);
	ret = 0;
out:
	sbx_scanner_close(s);
	sbx_table_close(t);
	read_spec_free(&r);
	return ret;
}
