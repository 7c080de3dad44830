/*
 * shell_txn.c - transaction blocks in `saltbox shell`, for trying by hand
 * what an application does with include/saltbox/txn.h:
 *
 *   begin                       (or begin {LOCK_TIMEOUT => 5000,
 *                                PATH => 'portable' | 'atomic' | 'auto'})
 *   get 'acct', 'alice'         reads see the block's own writes
 *   put 'acct', 'alice', 'cf:bal', '90'
 *   put 'acct', 'bob', 'cf:bal', '110'
 *   commit                      (or rollback)
 *
 * Between begin and commit/rollback, put, get, scan, delete, deleteall,
 * incr, append and get_counter go through the transaction (shell.c asks
 * shell_txn_handler() for them); nothing is visible to others before
 * commit, and a commit that lost a race reports the conflict and leaves
 * nothing. Timestamps cannot be given inside a block (the transaction
 * chooses them); cells it wrote show timestamp=9223372036854775807 until
 * commit. txn_locks and txn_resolve list and resolve a table's locks.
 */
#include "shell.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Tables the block has used: a transaction borrows its table handles
 * until it ends. */
struct shell_txn_tables {
	char **names;
	sbx_table **t;
	size_t n;
};

static void tables_close(shell *sh)
{
	struct shell_txn_tables *tt = sh->txn_tables;
	if (!tt)
		return;
	for (size_t i = 0; i < tt->n; i++) {
		sbx_table_close(tt->t[i]);
		free(tt->names[i]);
	}
	free(tt->names);
	free(tt->t);
	free(tt);
	sh->txn_tables = NULL;
}

static int block_table(shell *sh, const sbx_shell_value *name, sbx_table **t)
{
	const char *s;
	if (shell_text(sh, name, "table name", &s))
		return -1;
	struct shell_txn_tables *tt = sh->txn_tables;
	for (size_t i = 0; i < tt->n; i++)
		if (!strcmp(tt->names[i], s)) {
			*t = tt->t[i];
			return 0;
		}
	char **names = realloc(tt->names, (tt->n + 1) * sizeof *names);
	if (names)
		tt->names = names;
	sbx_table **ts = realloc(tt->t, (tt->n + 1) * sizeof *ts);
	if (ts)
		tt->t = ts;
	char *copy = strdup(s);
	if (!names || !ts || !copy) {
		free(copy);
		return shell_fail(sh, "out of memory");
	}
	int rc = sbx_table_open(t, sh->db, s);
	if (rc) {
		free(copy);
		return shell_lib_fail(sh, rc, NULL);
	}
	tt->names[tt->n] = copy;
	tt->t[tt->n++] = *t;
	return 0;
}

static void end_block(shell *sh)
{
	sh->txn = NULL;
	tables_close(sh);
}

void shell_txn_end(shell *sh)
{
	if (!sh->txn)
		return;
	sbx_txn_rollback(sh->txn);
	end_block(sh);
	fprintf(sh->out, "(the open transaction was rolled back)\n");
}

/* ---- begin / commit / rollback ---------------------------------------- */

int shell_cmd_begin(shell *sh, const sbx_shell_cmd *c)
{
	if (sh->txn)
		return shell_fail(sh,
				  "a transaction is already open: commit or "
				  "rollback it first");
	sbx_txn_options o;
	sbx_txn_options_init(&o);
	if (c->nargs) {
		static const char *const keys[] = {"LOCK_TIMEOUT", "PATH",
						   NULL};
		const sbx_shell_value *h = &c->args[0];
		if (h->type != SBX_SHV_HASH)
			return shell_fail(sh, "begin takes options as a hash: "
					      "begin {LOCK_TIMEOUT => 5000}");
		const sbx_shell_value *v =
		    sbx_shell_hash_get(h, "LOCK_TIMEOUT");
		if (shell_check_keys(sh, h, keys, "begin") ||
		    (v && shell_int(sh, v, "LOCK_TIMEOUT", &o.lock_timeout_ms)))
			return -1;
		if (o.lock_timeout_ms < 1)
			return shell_fail(sh,
					  "LOCK_TIMEOUT must be at least 1 ms");
		const sbx_shell_value *p = sbx_shell_hash_get(h, "PATH");
		static const char *const paths[] = {"auto", "portable",
						    "atomic"};
		bool known = !p;
		for (int i = 0; p && p->type == SBX_SHV_STRING && i < 3; i++)
			if (strlen(paths[i]) == p->len &&
			    !memcmp(paths[i], p->str, p->len)) {
				o.path = (sbx_txn_path)i;
				known = true;
			}
		if (!known)
			return shell_fail(sh, "PATH must be 'auto', 'portable' "
					      "or 'atomic'");
	}
	sh->txn_tables = calloc(1, sizeof *sh->txn_tables);
	if (!sh->txn_tables)
		return shell_fail(sh, "out of memory");
	int rc = sbx_txn_begin_with(&sh->txn, sh->db, &o);
	if (rc) {
		end_block(sh);
		return shell_lib_fail(sh, rc, NULL);
	}
	fprintf(sh->out,
		"Transaction %016" PRIx64 " open: put, get, scan, delete, "
		"deleteall, incr, append and get_counter\ngo through it until "
		"commit or rollback.\n",
		sbx_txn_id(sh->txn));
	return 0;
}

int shell_cmd_commit(shell *sh, const sbx_shell_cmd *c)
{
	(void)c;
	if (!sh->txn)
		return shell_fail(sh,
				  "no transaction is open (begin one first)");
	int rc = sbx_txn_commit(sh->txn);
	end_block(sh);
	if (rc == SBX_ECONFLICT)
		return shell_fail(sh,
				  "transaction conflict, nothing was written: "
				  "%s. Run the block again.",
				  sbx_errmsg());
	if (rc)
		return shell_lib_fail(sh, rc,
				      "commit failed, nothing was written");
	fprintf(sh->out, "Committed\n");
	return 0;
}

int shell_cmd_rollback(shell *sh, const sbx_shell_cmd *c)
{
	(void)c;
	if (!sh->txn)
		return shell_fail(sh, "no transaction is open");
	sbx_txn_rollback(sh->txn);
	end_block(sh);
	fprintf(sh->out, "Rolled back\n");
	return 0;
}

/* ---- the data commands inside a block ------------------------------------ */

static int no_timestamp(shell *sh, const sbx_shell_cmd *c, size_t from)
{
	if (c->nargs > from)
		return shell_fail(sh,
				  "%s inside a transaction takes no timestamp "
				  "or options: the transaction chooses "
				  "timestamps",
				  c->name);
	return 0;
}

static int row_of(shell *sh, const sbx_shell_cmd *c, char num[24],
		  const char **row, size_t *len)
{
	if (c->nargs < 2)
		return shell_fail(sh, "%s needs a table and a row key",
				  c->name);
	return shell_bytes(sh, &c->args[1], "row key", num, row, len);
}

/* Build a one-row mutation with `add`, buffer it in the block. */
static int buffer(shell *sh, const sbx_shell_cmd *c,
		  int (*add)(sbx_mutation *m, const void *arg), const void *arg)
{
	char num[24];
	const char *row;
	size_t len;
	sbx_table *t;
	if (row_of(sh, c, num, &row, &len) || block_table(sh, &c->args[0], &t))
		return -1;
	sbx_mutation *m;
	int rc = sbx_mutation_new(&m, row, len);
	rc = rc ? rc : add(m, arg);
	rc = rc ? rc : sbx_txn_mutate(sh->txn, t, m);
	sbx_mutation_free(m);
	return rc ? shell_lib_fail(sh, rc, NULL) : 0;
}

typedef struct cell_arg {
	shell_column col;
	const char *value;
	size_t value_len;
	int64_t delta;
} cell_arg;

static int add_put(sbx_mutation *m, const void *p)
{
	const cell_arg *a = p;
	return sbx_mutation_put(
	    m, a->col.family,
	    a->col.qualifier ? a->col.qualifier : (const uint8_t *)"",
	    a->col.qualifier_len, SBX_LATEST_TIMESTAMP, a->value, a->value_len);
}

static int add_delete(sbx_mutation *m, const void *p)
{
	const cell_arg *a = p;
	if (!a)
		return sbx_mutation_delete_row(m, SBX_LATEST_TIMESTAMP);
	if (!a->col.qualifier)
		return sbx_mutation_delete(m, SBX_CELL_DELETE_FAMILY,
					   a->col.family, NULL, 0,
					   SBX_LATEST_TIMESTAMP);
	return sbx_mutation_delete(m, SBX_CELL_DELETE_COLUMN, a->col.family,
				   a->col.qualifier, a->col.qualifier_len,
				   SBX_LATEST_TIMESTAMP);
}

static int add_incr(sbx_mutation *m, const void *p)
{
	const cell_arg *a = p;
	return sbx_mutation_increment(m, a->col.family, a->col.qualifier,
				      a->col.qualifier_len, a->delta);
}

static int add_append(sbx_mutation *m, const void *p)
{
	const cell_arg *a = p;
	return sbx_mutation_append(m, a->col.family, a->col.qualifier,
				   a->col.qualifier_len, a->value,
				   a->value_len);
}

static int txn_put(shell *sh, const sbx_shell_cmd *c)
{
	cell_arg a = {0};
	char num[24];
	if (c->nargs < 4)
		return shell_fail(sh,
				  "put needs a table, row, column and value");
	if (no_timestamp(sh, c, 4) ||
	    shell_parse_column(sh, &c->args[2], &a.col) ||
	    shell_bytes(sh, &c->args[3], "value", num, &a.value, &a.value_len))
		return -1;
	return buffer(sh, c, add_put, &a);
}

static int txn_delete(shell *sh, const sbx_shell_cmd *c)
{
	cell_arg a = {0};
	if (c->nargs < 3)
		return shell_fail(sh, "delete needs a table, row and column");
	if (no_timestamp(sh, c, 3) ||
	    shell_parse_column(sh, &c->args[2], &a.col))
		return -1;
	return buffer(sh, c, add_delete, &a);
}

static int txn_deleteall(shell *sh, const sbx_shell_cmd *c)
{
	cell_arg a = {0};
	if (c->nargs > 1 && c->args[1].type == SBX_SHV_HASH)
		return shell_fail(sh, "deleteall with ROWPREFIXFILTER is not "
				      "supported inside a transaction");
	if (no_timestamp(sh, c, 3))
		return -1;
	if (c->nargs == 3 && shell_parse_column(sh, &c->args[2], &a.col))
		return -1;
	return buffer(sh, c, add_delete, c->nargs == 3 ? &a : NULL);
}

/* The new value of one column, read back through the block. */
static int print_column(shell *sh, sbx_table *t, const char *row, size_t len,
			const shell_column *col, bool counter)
{
	sbx_column sel = {col->family, col->qualifier, col->qualifier_len};
	sbx_read_opts o;
	sbx_read_opts_init(&o);
	o.columns = &sel;
	o.ncolumns = 1;
	sbx_result *r;
	int rc = sbx_txn_get(&r, sh->txn, t, row, len, &o);
	if (rc)
		return shell_lib_fail(sh, rc, NULL);
	const sbx_cell *cell =
	    sbx_result_get(r, col->family, col->qualifier, col->qualifier_len);
	if (!cell) {
		fprintf(sh->out, "No counter found at specified coordinates\n");
	} else if (counter && cell->value_len == 8) {
		uint64_t n = 0;
		for (int i = 0; i < 8; i++)
			n = n << 8 | cell->value[i];
		fprintf(sh->out, "COUNTER VALUE = %" PRId64 "\n", (int64_t)n);
	} else if (counter) {
		sbx_result_free(r);
		return shell_fail(sh,
				  "the value is %zu bytes long, not an "
				  "8-byte counter",
				  cell->value_len);
	} else {
		fprintf(sh->out, "CURRENT VALUE = ");
		shell_print_binary(sh, cell->value, cell->value_len);
		fputc('\n', sh->out);
	}
	sbx_result_free(r);
	return 0;
}

static int column_command(shell *sh, const sbx_shell_cmd *c, int kind)
{
	/* kind: 0 incr, 1 append, 2 get_counter */
	cell_arg a = {.delta = 1};
	char num[24], vnum[24];
	const char *row;
	size_t len;
	sbx_table *t;
	if (c->nargs < 3 || (kind == 1 && c->nargs < 4))
		return shell_fail(sh, "%s needs a table, row and column%s",
				  c->name, kind == 1 ? " and value" : "");
	if (c->nargs > (kind == 2 ? 3u : 4u))
		return shell_fail(sh, "%s: too many arguments", c->name);
	if (shell_parse_column(sh, &c->args[2], &a.col))
		return -1;
	if (!a.col.qualifier)
		return shell_fail(sh, "%s needs a column 'family:qualifier'",
				  c->name);
	if (kind == 0 && c->nargs == 4 &&
	    shell_int(sh, &c->args[3], "increment", &a.delta))
		return -1;
	if (kind == 1 &&
	    shell_bytes(sh, &c->args[3], "value", vnum, &a.value, &a.value_len))
		return -1;
	if (kind != 2 && buffer(sh, c, kind == 0 ? add_incr : add_append, &a))
		return -1;
	if (row_of(sh, c, num, &row, &len) || block_table(sh, &c->args[0], &t))
		return -1;
	return print_column(sh, t, row, len, &a.col, kind != 1);
}

static int txn_incr(shell *sh, const sbx_shell_cmd *c)
{
	return column_command(sh, c, 0);
}

static int txn_append(shell *sh, const sbx_shell_cmd *c)
{
	return column_command(sh, c, 1);
}

static int txn_get_counter(shell *sh, const sbx_shell_cmd *c)
{
	return column_command(sh, c, 2);
}

/* Columns from the arguments after the row (strings, arrays, or a hash
 * with COLUMN(S)). */
static int get_columns(shell *sh, const sbx_shell_cmd *c, shell_column **cols,
		       size_t *n)
{
	static const char *const keys[] = {"COLUMN", "COLUMNS", NULL};
	for (size_t i = 2; i < c->nargs; i++) {
		const sbx_shell_value *a = &c->args[i];
		if (a->type != SBX_SHV_HASH) {
			if (shell_columns(sh, a, cols, n))
				return -1;
			continue;
		}
		if (shell_check_keys(sh, a, keys, "get inside a transaction"))
			return -1;
		for (size_t k = 0; k + 1 < a->n; k += 2)
			if (shell_columns(sh, &a->items[k + 1], cols, n))
				return -1;
	}
	return 0;
}

static int selectors(shell *sh, const shell_column *cols, size_t n,
		     sbx_column **out)
{
	*out = calloc(n ? n : 1, sizeof **out);
	if (!*out)
		return shell_fail(sh, "out of memory");
	for (size_t i = 0; i < n; i++)
		(*out)[i] = (sbx_column){cols[i].family, cols[i].qualifier,
					 cols[i].qualifier_len};
	return 0;
}

static int txn_get(shell *sh, const sbx_shell_cmd *c)
{
	char num[24];
	const char *row;
	size_t len, ncols = 0;
	sbx_table *t;
	shell_column *cols = NULL;
	sbx_column *sel = NULL;
	sbx_result *r = NULL;
	int ret = -1;
	if (row_of(sh, c, num, &row, &len) ||
	    get_columns(sh, c, &cols, &ncols) ||
	    selectors(sh, cols, ncols, &sel) ||
	    block_table(sh, &c->args[0], &t))
		goto out;
	sbx_read_opts o;
	sbx_read_opts_init(&o);
	o.columns = sel;
	o.ncolumns = ncols;
	int rc = sbx_txn_get(&r, sh->txn, t, row, len, &o);
	if (rc) {
		shell_lib_fail(sh, rc, NULL);
		goto out;
	}
	shell_print_header(sh, "COLUMN", "CELL");
	size_t n = sbx_result_size(r);
	for (size_t i = 0; i < n; i++)
		shell_print_cell(sh, sbx_result_cell(r, i), false,
				 SHELL_FMT_BINARY, 0);
	fprintf(sh->out, "%d row(s)\n", n ? 1 : 0);
	ret = 0;
out:
	sbx_result_free(r);
	free(sel);
	free(cols);
	return ret;
}

static int scan_bound(shell *sh, const sbx_shell_value *v, const char *key,
		      const void **out, size_t *len)
{
	if (!sbx_shell_is_text(v))
		return shell_fail(sh, "%s must be a string", key);
	*out = v->str;
	*len = v->len;
	return 0;
}

static int txn_scan(shell *sh, const sbx_shell_cmd *c)
{
	static const char *const keys[] = {
	    "STARTROW", "STOPROW", "ROWPREFIXFILTER", "LIMIT",
	    "REVERSED", "COLUMN",  "COLUMNS",	      NULL};
	sbx_scan_opts o;
	sbx_scan_opts_init(&o);
	shell_column *cols = NULL;
	sbx_column *sel = NULL;
	size_t ncols = 0;
	uint8_t *stop = NULL;
	sbx_table *t;
	sbx_scanner *s = NULL;
	int ret = -1, rc;
	const sbx_shell_value *h = c->nargs > 1 ? &c->args[1] : NULL;
	if (c->nargs > 2 || (h && h->type != SBX_SHV_HASH)) {
		shell_fail(sh, "scan inside a transaction takes one hash of "
			       "STARTROW, STOPROW, ROWPREFIXFILTER, LIMIT, "
			       "REVERSED, COLUMNS");
		goto out;
	}
	if (h && shell_check_keys(sh, h, keys, "scan inside a transaction"))
		goto out;
	for (size_t k = 0; h && k + 1 < h->n; k += 2) {
		const char *key = h->items[k].str;
		const sbx_shell_value *v = &h->items[k + 1];
		int64_t n;
		if (!strcmp(key, "STARTROW"))
			rc = scan_bound(sh, v, key, &o.start_row,
					&o.start_row_len);
		else if (!strcmp(key, "STOPROW"))
			rc = scan_bound(sh, v, key, &o.stop_row,
					&o.stop_row_len);
		else if (!strcmp(key, "ROWPREFIXFILTER")) {
			const void *p = NULL;
			size_t len = 0;
			rc = scan_bound(sh, v, key, &p, &len);
			if (!rc && !(stop = malloc(len + 1)))
				rc = shell_fail(sh, "out of memory");
			if (!rc)
				sbx_scan_opts_set_prefix(&o, p, len, stop);
		} else if (!strcmp(key, "LIMIT")) {
			rc = shell_int(sh, v, key, &n);
			o.limit = n;
			if (!rc && n < 1)
				rc = shell_fail(sh, "LIMIT must be at least 1");
		} else if (!strcmp(key, "REVERSED")) {
			rc = shell_bool(sh, v, key, &o.reversed);
		} else {
			rc = shell_columns(sh, v, &cols, &ncols);
		}
		if (rc)
			goto out;
	}
	if (selectors(sh, cols, ncols, &sel) ||
	    block_table(sh, &c->args[0], &t))
		goto out;
	o.read.columns = sel;
	o.read.ncolumns = ncols;
	if ((rc = sbx_txn_scanner_open(&s, sh->txn, t, &o))) {
		shell_lib_fail(sh, rc, NULL);
		goto out;
	}
	shell_print_header(sh, "ROW", "COLUMN+CELL");
	size_t rows = 0;
	sbx_result *r;
	while ((rc = sbx_scanner_next(s, &r)) == SBX_OK) {
		rows++;
		for (size_t i = 0; i < sbx_result_size(r); i++)
			shell_print_cell(sh, sbx_result_cell(r, i), true,
					 SHELL_FMT_BINARY, 0);
		sbx_result_free(r);
	}
	if (rc != SBX_ITEROVER) {
		shell_lib_fail(sh, rc, NULL);
		goto out;
	}
	fprintf(sh->out, "%zu row(s)\n", rows);
	ret = 0;
out:
	sbx_scanner_close(s);
	free(stop);
	free(sel);
	free(cols);
	return ret;
}

shell_handler shell_txn_handler(const shell *sh, const char *name)
{
	static const struct {
		const char *name;
		shell_handler run;
	} verbs[] = {{"put", txn_put},
		     {"get", txn_get},
		     {"scan", txn_scan},
		     {"delete", txn_delete},
		     {"deleteall", txn_deleteall},
		     {"incr", txn_incr},
		     {"append", txn_append},
		     {"get_counter", txn_get_counter}};
	if (!sh->txn)
		return NULL;
	for (size_t i = 0; i < sizeof verbs / sizeof *verbs; i++)
		if (!strcmp(verbs[i].name, name))
			return verbs[i].run;
	return NULL;
}

/* ---- locks --------------------------------------------------------------- */

int shell_cmd_txn_locks(shell *sh, const sbx_shell_cmd *c)
{
	const char *table;
	if (shell_text(sh, &c->args[0], "table name", &table))
		return -1;
	sbx_txn_lock_info *v;
	size_t n;
	int rc = sbx_txn_locks(&v, &n, sh->db, table);
	if (rc)
		return shell_lib_fail(sh, rc, NULL);
	static const char *const states[] = {"GARBAGE", "STABLE", "PREWRITTEN",
					     "COMMITTED"};
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	int64_t now_ms = (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
	shell_print_header(sh, "ROW", "LOCK");
	for (size_t i = 0; i < n; i++) {
		fputc(' ', sh->out);
		shell_print_binary(sh, v[i].row, v[i].row_len);
		fprintf(sh->out, "   state=%s", states[v[i].state]);
		if (v[i].state != SBX_TXN_LOCK_GARBAGE)
			fprintf(
			    sh->out,
			    ", txn=%016" PRIx64 ", commit_ts=%" PRId64
			    ", %s %" PRId64 " ms, %s",
			    v[i].txn_id, v[i].commit_ts,
			    v[i].expiry_ms < now_ms ? "expired" : "expires in",
			    v[i].expiry_ms < now_ms ? now_ms - v[i].expiry_ms
						    : v[i].expiry_ms - now_ms,
			    v[i].primary ? "primary" : "secondary");
		fputc('\n', sh->out);
	}
	fprintf(sh->out, "%zu lock(s)\n", n);
	sbx_txn_lock_infos_free(v, n);
	return 0;
}

int shell_cmd_txn_resolve(shell *sh, const sbx_shell_cmd *c)
{
	const char *table;
	if (shell_text(sh, &c->args[0], "table name", &table))
		return -1;
	if (c->nargs == 2) {
		char num[24];
		const char *row;
		size_t len;
		if (shell_bytes(sh, &c->args[1], "row key", num, &row, &len))
			return -1;
		sbx_txn_resolution how;
		int rc = sbx_txn_resolve(&how, sh->db, table, row, len, NULL);
		if (rc)
			return shell_lib_fail(sh, rc, NULL);
		fprintf(sh->out, "%s\n", sbx_txn_resolution_name(how));
		return 0;
	}
	size_t resolved, remaining;
	int rc =
	    sbx_txn_resolve_table(&resolved, &remaining, sh->db, table, NULL);
	if (rc)
		return shell_lib_fail(sh, rc, NULL);
	fprintf(sh->out,
		"%zu lock(s) resolved, %zu left (not expired, or "
		"garbage)\n",
		resolved, remaining);
	return 0;
}
