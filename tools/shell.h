/*
 * shell.h - shared state and helpers of `saltbox shell`: the command table
 * (shell.c), argument helpers (shell_args.c), output formatting
 * (shell_out.c) and the handlers (shell_admin.c, shell_data.c).
 */
#ifndef SBX_TOOLS_SHELL_H
#define SBX_TOOLS_SHELL_H

#include "shell/parse.h"

#include <saltbox.h>

#include <stdarg.h>
#include <stdio.h>

typedef struct shell {
	sbx_db *db;
	const char *data_dir;
	FILE *out;
	char err[2048]; /* message of the failed command */
	sbx_buf ret;	/* "=> ..." line printed after the timing line */
	bool has_ret;
	bool quit;	 /* exit / quit was run */
	size_t err_line; /* lines into the statement the error is on */
	sbx_txn *txn;	 /* open transaction block (shell_txn.c), or NULL */
	struct shell_txn_tables *txn_tables;
} shell;

typedef int (*shell_handler)(shell *sh, const sbx_shell_cmd *c);

/* ---- errors (all return -1 so handlers can `return shell_fail(...)`) ----- */
int shell_fail(shell *sh, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* The library's last error (sbx_errmsg), prefixed by `what` if not NULL. */
int shell_lib_fail(shell *sh, int rc, const char *what);
/* Set the "=> ..." result line. */
void shell_set_ret(shell *sh, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* ---- arguments ----------------------------------------------------------- */

/* Bytes of a string argument (integers are taken as their decimal text, as
 * Ruby's to_s). `num` is scratch space for that text. */
int shell_bytes(shell *sh, const sbx_shell_value *v, const char *what,
		char num[24], const char **out, size_t *len);
/* A NUL-free string (table, family, namespace names). */
int shell_text(shell *sh, const sbx_shell_value *v, const char *what,
	       const char **out);
int shell_int(shell *sh, const sbx_shell_value *v, const char *what,
	      int64_t *out);
/* true/false, 'true'/'false' (any case). */
int shell_bool(shell *sh, const sbx_shell_value *v, const char *what,
	       bool *out);
/* Check that every key of `hash` is one of the NULL-terminated `allowed`
 * names; names the offending key and the command otherwise. */
int shell_check_keys(shell *sh, const sbx_shell_value *hash,
		     const char *const *allowed, const char *cmd);

/* "family" or "family:qualifier" split into a column selector whose family
 * points into `fam` (cap SBX_MAX_FAMILY_NAME + 1) and qualifier into the
 * value's bytes. */
/* How values are printed: HBase's Bytes.toX converters, chosen with
 * FORMATTER => 'toString' or per column as 'cf:q:toLong'. */
typedef enum shell_format {
	SHELL_FMT_BINARY = 0, /* toStringBinary, the default */
	SHELL_FMT_STRING,
	SHELL_FMT_LONG,
	SHELL_FMT_INT,
	SHELL_FMT_SHORT,
	SHELL_FMT_FLOAT,
	SHELL_FMT_DOUBLE,
	SHELL_FMT_BOOLEAN,
	SHELL_FMT_HEX,
} shell_format;

/* "toLong" -> SHELL_FMT_LONG; -1 for a name that is not a converter. */
int shell_format_from_name(const char *name, size_t len);

typedef struct shell_column {
	char family[SBX_MAX_FAMILY_NAME + 1];
	const uint8_t *qualifier; /* NULL = whole family */
	size_t qualifier_len;
	shell_format format; /* from a 'cf:q:toLong' suffix (get/scan) */
} shell_column;
int shell_parse_column(shell *sh, const sbx_shell_value *v, shell_column *out);

/* Columns from a string, or an array of strings, appended to cols/n (the
 * array is grown with realloc; free it with free()). A trailing
 * ':toLong'-style converter is split off into .format, as HBase's get and
 * scan do. */
int shell_columns(shell *sh, const sbx_shell_value *v, shell_column **cols,
		  size_t *n);

/* Open table `name`, or fail with the library's message. */
int shell_open_table(shell *sh, const sbx_shell_value *name, sbx_table **t);

/* FILTER => "..." to a filter (NULL when v is NULL). */
int shell_filter(shell *sh, const sbx_shell_value *v, sbx_filter **out);

/* True once Ctrl-C was pressed during the running command (interactive
 * only); long loops (scan, count) stop with "interrupted". */
bool shell_interrupted(void);

/* ---- output -------------------------------------------------------------- */

/* Print bytes as Bytes.toStringBinary does. */
void shell_print_binary(shell *sh, const void *data, size_t len);
/* The two-column table rows HBase's formatter prints. */
void shell_print_header(shell *sh, const char *left, const char *right);
/* One cell: " <left>   column=cf:q, timestamp=..., value=..." (scan) or
 * " cf:q   timestamp=..., value=..." (get, row_mode false). The value is
 * printed in `format`; maxlength > 0 cuts the "timestamp=..." part to that
 * many bytes (MAXLENGTH). */
void shell_print_cell(shell *sh, const sbx_cell *cell, bool row_mode,
		      shell_format format, int64_t maxlength);
/* HBase's human-readable TTL: "FOREVER", "60 SECONDS (1 MINUTE)". */
void shell_format_ttl(char *out, size_t cap, int64_t ttl_seconds);

/* ---- table attributes and regions (shell_regions.c) ---------------------- */

/* What create/alter collect from table-level hashes. */
typedef struct shell_table_setup {
	sbx_buf *splits; /* split keys (SPLITS, SPLITS_FILE, NUMREGIONS) */
	size_t nsplits;
	bool has_splits;
	int numregions;
	char *algo; /* SPLITALGO */
	bool set_policy;
	sbx_split_policy policy;
} shell_table_setup;

void shell_table_setup_init(shell_table_setup *ts);
void shell_table_setup_free(shell_table_setup *ts);
/* One table attribute (SPLITS, MAX_FILESIZE, ...) into *ts. */
int shell_table_attr(shell *sh, const char *key, const sbx_shell_value *v,
		     shell_table_setup *ts);
/* Create the table, pre-split as *ts says, then set its split policy. */
int shell_create_table(shell *sh, const char *table,
		       const sbx_family_desc *fams, size_t nf,
		       shell_table_setup *ts);
/* alter 't', MAX_FILESIZE => ..., SPLIT_POLICY => ... */
int shell_alter_table_attrs(shell *sh, const char *table,
			    const sbx_shell_value *hash);

/* ---- handlers ------------------------------------------------------------ */

int shell_cmd_create(shell *sh, const sbx_shell_cmd *c);
int shell_cmd_alter(shell *sh, const sbx_shell_cmd *c);
int shell_cmd_describe(shell *sh, const sbx_shell_cmd *c);
int shell_cmd_list(shell *sh, const sbx_shell_cmd *c);
int shell_cmd_exists(shell *sh, const sbx_shell_cmd *c);
int shell_cmd_disable(shell *sh, const sbx_shell_cmd *c);
int shell_cmd_enable(shell *sh, const sbx_shell_cmd *c);
int shell_cmd_is_enabled(shell *sh, const sbx_shell_cmd *c);
int shell_cmd_is_disabled(shell *sh, const sbx_shell_cmd *c);
int shell_cmd_drop(shell *sh, const sbx_shell_cmd *c);
int shell_cmd_truncate(shell *sh, const sbx_shell_cmd *c);
int shell_cmd_truncate_preserve(shell *sh, const sbx_shell_cmd *c);
int shell_cmd_flush(shell *sh, const sbx_shell_cmd *c);
int shell_cmd_major_compact(shell *sh, const sbx_shell_cmd *c);
int shell_cmd_split(shell *sh, const sbx_shell_cmd *c);
int shell_cmd_get_splits(shell *sh, const sbx_shell_cmd *c);
int shell_cmd_list_regions(shell *sh, const sbx_shell_cmd *c);
/* One name argument (`what` words the error), one library call. */
int shell_name_op(shell *sh, const sbx_shell_cmd *c, const char *what,
		  int (*op)(sbx_db *, const char *));
/* shell_snapshot.c */
int shell_cmd_snapshot(shell *sh, const sbx_shell_cmd *c);
int shell_cmd_list_snapshots(shell *sh, const sbx_shell_cmd *c);
int shell_cmd_clone_snapshot(shell *sh, const sbx_shell_cmd *c);
int shell_cmd_restore_snapshot(shell *sh, const sbx_shell_cmd *c);
int shell_cmd_delete_snapshot(shell *sh, const sbx_shell_cmd *c);
int shell_cmd_status(shell *sh, const sbx_shell_cmd *c);
int shell_cmd_create_namespace(shell *sh, const sbx_shell_cmd *c);
int shell_cmd_drop_namespace(shell *sh, const sbx_shell_cmd *c);
int shell_cmd_list_namespace(shell *sh, const sbx_shell_cmd *c);
int shell_cmd_describe_namespace(shell *sh, const sbx_shell_cmd *c);
int shell_cmd_list_namespace_tables(shell *sh, const sbx_shell_cmd *c);

int shell_cmd_put(shell *sh, const sbx_shell_cmd *c);
int shell_cmd_get(shell *sh, const sbx_shell_cmd *c);
int shell_cmd_scan(shell *sh, const sbx_shell_cmd *c);
int shell_cmd_count(shell *sh, const sbx_shell_cmd *c);
int shell_cmd_delete(shell *sh, const sbx_shell_cmd *c);
int shell_cmd_deleteall(shell *sh, const sbx_shell_cmd *c);
int shell_cmd_incr(shell *sh, const sbx_shell_cmd *c);
int shell_cmd_get_counter(shell *sh, const sbx_shell_cmd *c);
int shell_cmd_append(shell *sh, const sbx_shell_cmd *c);

/* shell_txn.c: transaction blocks (begin ... commit/rollback) */
int shell_cmd_begin(shell *sh, const sbx_shell_cmd *c);
int shell_cmd_commit(shell *sh, const sbx_shell_cmd *c);
int shell_cmd_rollback(shell *sh, const sbx_shell_cmd *c);
int shell_cmd_txn_locks(shell *sh, const sbx_shell_cmd *c);
int shell_cmd_txn_resolve(shell *sh, const sbx_shell_cmd *c);
/* Inside a block, the handler that runs data command `name` through the
 * transaction; NULL outside a block or for other commands. */
shell_handler shell_txn_handler(const shell *sh, const char *name);
/* Roll back a block left open (the shell is exiting). */
void shell_txn_end(shell *sh);

#endif
