/*
 * shell.c - `saltbox shell`: reads HBase shell statements (interactively
 * with libedit line editing and history, or from a file / stdin), joins
 * lines until a statement is complete, dispatches it through the command
 * table and prints HBase's "Took N seconds" line. A script stops at the
 * first failed command with "ERROR: ... (line N)" and exit status 1.
 */
#include "shell.h"
#include "cli.h"

#include "common/buf.h"

#include <editline/readline.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Longest statement accepted (cells may be up to 10 MiB, quoted). */
#define MAX_STATEMENT_BYTES (64u << 20)

typedef struct command {
	const char *name;
	shell_handler run;
	int min_args;
	int max_args; /* -1 = any */
	const char *group;
	const char *usage;
} command;

static int cmd_help(shell *sh, const sbx_shell_cmd *c);
static int cmd_exit(shell *sh, const sbx_shell_cmd *c);
static int cmd_version(shell *sh, const sbx_shell_cmd *c);
static int cmd_show_filters(shell *sh, const sbx_shell_cmd *c);

static const command commands[] = {
    {"help", cmd_help, 0, 1, "general", "help ['command' | 'group']"},
    {"status", shell_cmd_status, 0, 1, "general",
     "status ['summary' | 'simple' | 'detailed']"},
    {"version", cmd_version, 0, 0, "general", "version"},
    {"show_filters", cmd_show_filters, 0, 0, "general",
     "show_filters   (names usable in FILTER => \"...\")"},
    {"exit", cmd_exit, 0, 0, "general", "exit"},
    {"quit", cmd_exit, 0, 0, "general", "quit"},
    {"create", shell_cmd_create, 1, -1, "ddl",
     "create 't1', 'cf1'[, 'cf2', ...]\n"
     "  create 'ns1:t1', {NAME => 'cf', VERSIONS => 3, TTL => 60, "
     "BLOOMFILTER => 'ROWCOL',\n"
     "         COMPRESSION => 'ZSTD', KEEP_DELETED_CELLS => true}, "
     "{NAME => 'cf2'}\n"
     "  create 't1', 'cf', SPLITS => ['10', '20']\n"
     "  create 't1', 'cf', {NUMREGIONS => 16, SPLITALGO => "
     "'HexStringSplit'}\n"
     "  create 't1', 'cf', SPLITS_FILE => 'splits.txt', SPLIT_POLICY => "
     "'KeyPrefixRegionSplitPolicy',\n"
     "         METADATA => {'KeyPrefixRegionSplitPolicy.prefix_length' => "
     "'4'}, MAX_FILESIZE => 1073741824"},
    {"alter", shell_cmd_alter, 1, -1, "ddl",
     "alter 't1', NAME => 'cf', VERSIONS => 5   (add or modify a "
     "family)\n"
     "  alter 't1', 'cf2'                        (add a family)\n"
     "  alter 't1', NAME => 'cf2', METHOD => 'delete'\n"
     "  alter 't1', 'delete' => 'cf2'\n"
     "  alter 't1', MAX_FILESIZE => 268435456, SPLIT_POLICY => "
     "'ConstantSizeRegionSplitPolicy'"},
    {"describe", shell_cmd_describe, 1, 1, "ddl", "describe 't1'"},
    {"desc", shell_cmd_describe, 1, 1, "ddl", "desc 't1'"},
    {"list", shell_cmd_list, 0, 1, "ddl", "list ['regex']"},
    {"exists", shell_cmd_exists, 1, 1, "ddl", "exists 't1'"},
    {"disable", shell_cmd_disable, 1, 1, "ddl", "disable 't1'"},
    {"enable", shell_cmd_enable, 1, 1, "ddl", "enable 't1'"},
    {"is_enabled", shell_cmd_is_enabled, 1, 1, "ddl", "is_enabled 't1'"},
    {"is_disabled", shell_cmd_is_disabled, 1, 1, "ddl", "is_disabled 't1'"},
    {"drop", shell_cmd_drop, 1, 1, "ddl", "drop 't1'   (disable it first)"},
    {"truncate", shell_cmd_truncate, 1, 1, "ddl",
     "truncate 't1'   (drops the data and the pre-splits)"},
    {"truncate_preserve", shell_cmd_truncate_preserve, 1, 1, "ddl",
     "truncate_preserve 't1'   (drops the data, keeps the regions)"},
    {"create_namespace", shell_cmd_create_namespace, 1, 2, "namespace",
     "create_namespace 'ns1'"},
    {"drop_namespace", shell_cmd_drop_namespace, 1, 1, "namespace",
     "drop_namespace 'ns1'"},
    {"describe_namespace", shell_cmd_describe_namespace, 1, 1, "namespace",
     "describe_namespace 'ns1'"},
    {"list_namespace", shell_cmd_list_namespace, 0, 1, "namespace",
     "list_namespace ['regex']"},
    {"list_namespace_tables", shell_cmd_list_namespace_tables, 1, 1,
     "namespace", "list_namespace_tables 'ns1'"},
    {"put", shell_cmd_put, 4, 5, "dml",
     "put 't1', 'r1', 'cf:q', 'value'[, ts]"},
    {"get", shell_cmd_get, 2, -1, "dml",
     "get 't1', 'r1'[, 'cf:q', ...]\n"
     "  get 't1', 'r1', {COLUMN => ['cf:a', 'cf2'], VERSIONS => 3, "
     "TIMERANGE => [ts1, ts2],\n"
     "                   TIMESTAMP => ts, FILTER => \"ValueFilter(=, "
     "'binary:v')\"}"},
    {"scan", shell_cmd_scan, 1, 2, "dml",
     "scan 't1'[, {STARTROW => 'a', STOPROW => 'z', ROWPREFIXFILTER => "
     "'p', LIMIT => 10,\n"
     "             REVERSED => true, COLUMNS => ['cf:q'], VERSIONS => 2, "
     "TIMERANGE => [a, b],\n"
     "             FILTER => \"PrefixFilter('a')\", RAW => true, CACHE => "
     "100, BATCH => 10}]"},
    {"count", shell_cmd_count, 1, 2, "dml",
     "count 't1'[, {INTERVAL => 1000, CACHE => 100, FILTER => \"...\"}]"},
    {"delete", shell_cmd_delete, 3, 4, "dml",
     "delete 't1', 'r1', 'cf:q'[, ts]   (all versions <= ts, as HBase)"},
    {"deleteall", shell_cmd_deleteall, 2, 4, "dml",
     "deleteall 't1', 'r1'[, 'cf:q'][, ts]\n"
     "  deleteall 't1', {ROWPREFIXFILTER => 'p'}[, 'cf:q'][, ts]"},
    {"incr", shell_cmd_incr, 3, 4, "dml", "incr 't1', 'r1', 'cf:q'[, n]"},
    {"get_counter", shell_cmd_get_counter, 3, 3, "dml",
     "get_counter 't1', 'r1', 'cf:q'"},
    {"append", shell_cmd_append, 4, 4, "dml",
     "append 't1', 'r1', 'cf:q', 'value'"},
    {"flush", shell_cmd_flush, 1, 1, "tools", "flush 't1'"},
    {"major_compact", shell_cmd_major_compact, 1, 1, "tools",
     "major_compact 't1'"},
    {"split", shell_cmd_split, 1, 2, "tools",
     "split 't1'[, 'splitKey']   (no key: every region at its midpoint)"},
    {"get_splits", shell_cmd_get_splits, 1, 1, "tools", "get_splits 't1'"},
    {"list_regions", shell_cmd_list_regions, 1, 1, "tools",
     "list_regions 't1'"},
    {"snapshot", shell_cmd_snapshot, 2, 2, "snapshots",
     "snapshot 't1', 'snap1'"},
    {"list_snapshots", shell_cmd_list_snapshots, 0, 0, "snapshots",
     "list_snapshots"},
    {"clone_snapshot", shell_cmd_clone_snapshot, 2, 2, "snapshots",
     "clone_snapshot 'snap1', 't2'   (a new table as the snapshot has it)"},
    {"restore_snapshot", shell_cmd_restore_snapshot, 1, 1, "snapshots",
     "restore_snapshot 'snap1'   (disable the table first)"},
    {"delete_snapshot", shell_cmd_delete_snapshot, 1, 1, "snapshots",
     "delete_snapshot 'snap1'"},
    {"begin", shell_cmd_begin, 0, 1, "transactions",
     "begin [{LOCK_TIMEOUT => 5000}]   then put/get/scan/delete/deleteall/"
     "incr/append\n"
     "  go through the transaction until commit or rollback"},
    {"commit", shell_cmd_commit, 0, 0, "transactions", "commit"},
    {"rollback", shell_cmd_rollback, 0, 0, "transactions", "rollback"},
    {"txn_locks", shell_cmd_txn_locks, 1, 1, "transactions",
     "txn_locks 't1'   (locks not stable: in progress, committed, garbage)"},
    {"txn_resolve", shell_cmd_txn_resolve, 1, 2, "transactions",
     "txn_resolve 't1'[, 'row']   (roll forward committed, back expired)"},
};

#define NCOMMANDS (sizeof commands / sizeof *commands)

static const char *const groups[] = {"general", "ddl",	  "namespace",
				     "dml",	"tools", "snapshots",
				     "transactions"};

static const command *find_command(const char *name)
{
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

static int cmd_help(shell *sh, const sbx_shell_cmd *c)
{
	const char *topic = NULL;
	if (c->nargs && shell_text(sh, &c->args[0], "help topic", &topic))
		return -1;
	if (topic) {
		const command *cmd = find_command(topic);
		if (cmd) {
			fprintf(sh->out, "  %s\n", cmd->usage);
			return 0;
		}
		bool group = false;
		for (size_t i = 0; i < NCOMMANDS; i++)
			if (!strcmp(commands[i].group, topic)) {
				fprintf(sh->out, "  %s\n", commands[i].usage);
				group = true;
			}
		return group ? 0
			     : shell_fail(sh,
					  "no command or group named "
					  "'%s'; try help",
					  topic);
	}
	fprintf(sh->out,
		"Saltbox shell: HBase shell syntax on an embedded store.\n"
		"Type 'help \"COMMAND\"' (e.g. 'help \"get\"') for one "
		"command, 'help \"GROUP\"' for a group.\n\n"
		"COMMAND GROUPS:\n");
	for (size_t g = 0; g < sizeof groups / sizeof *groups; g++) {
		fprintf(sh->out, "  Group name: %s\n  Commands: ", groups[g]);
		bool first = true;
		for (size_t i = 0; i < NCOMMANDS; i++)
			if (!strcmp(commands[i].group, groups[g])) {
				fprintf(sh->out, "%s%s", first ? "" : ", ",
					commands[i].name);
				first = false;
			}
		fprintf(sh->out, "\n\n");
	}
	fprintf(sh->out,
		"SHELL USAGE:\n"
		"Quote all names and values: 't1', \"r\\x00\" (double quotes "
		"read \\xNN escapes,\nsingle quotes are literal). Options are "
		"hashes: {LIMIT => 10, REVERSED => true}.\nOutput shows bytes "
		"as Bytes.toStringBinary does (\\xNN outside printable "
		"ASCII).\n");
	return 0;
}

static int cmd_exit(shell *sh, const sbx_shell_cmd *c)
{
	(void)c;
	sh->quit = true;
	return 0;
}

static int cmd_version(shell *sh, const sbx_shell_cmd *c)
{
	(void)c;
	fprintf(sh->out, "saltbox 0.1.0, HBase shell syntax\n");
	return 0;
}

/* The one piece of process-wide state: a signal handler can only talk
 * through a flag. */
static volatile sig_atomic_t interrupted;

static void on_sigint(int sig)
{
	(void)sig;
	interrupted = 1;
}

bool shell_interrupted(void)
{
	return interrupted != 0;
}

/* The names HBase's ParseFilter registers, as its show_filters lists. */
static int cmd_show_filters(shell *sh, const sbx_shell_cmd *c)
{
	static const char *const names[] = {"DependentColumnFilter",
					    "KeyOnlyFilter",
					    "ColumnCountGetFilter",
					    "SingleColumnValueFilter",
					    "PrefixFilter",
					    "SingleColumnValueExcludeFilter",
					    "FirstKeyOnlyFilter",
					    "ColumnRangeFilter",
					    "ColumnValueFilter",
					    "TimestampsFilter",
					    "FamilyFilter",
					    "QualifierFilter",
					    "ColumnPrefixFilter",
					    "RowFilter",
					    "MultipleColumnPrefixFilter",
					    "InclusiveStopFilter",
					    "PageFilter",
					    "ValueFilter",
					    "ColumnPaginationFilter"};
	(void)c;
	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		fprintf(sh->out, "%s\n", names[i]);
	return 0;
}

static double now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int dispatch(shell *sh, const sbx_shell_cmd *c)
{
	const command *cmd = find_command(c->name);
	if (!cmd)
		return shell_fail(sh,
				  "unknown command '%.64s'; type 'help' "
				  "for the list of commands",
				  c->name);
	int n = (int)c->nargs;
	if (n < cmd->min_args || (cmd->max_args >= 0 && n > cmd->max_args)) {
		char expected[32];
		if (cmd->min_args == cmd->max_args)
			snprintf(expected, sizeof expected, "%d",
				 cmd->min_args);
		else if (cmd->max_args < 0)
			snprintf(expected, sizeof expected, "at least %d",
				 cmd->min_args);
		else
			snprintf(expected, sizeof expected, "%d to %d",
				 cmd->min_args, cmd->max_args);
		/* The first usage line; help 'cmd' shows them all. */
		int first = (int)strcspn(cmd->usage, "\n");
		return shell_fail(sh,
				  "wrong number of arguments for '%s' "
				  "(given %d, expected %s); usage: %.*s",
				  cmd->name, n, expected, first, cmd->usage);
	}
	sh->has_ret = false;
	double start = now_seconds();
	shell_handler in_txn = shell_txn_handler(sh, cmd->name);
	if ((in_txn ? in_txn : cmd->run)(sh, c))
		return -1;
	if (cmd->run != cmd_exit && cmd->run != cmd_help) {
		fprintf(sh->out, "Took %.4f seconds\n", now_seconds() - start);
		if (sh->has_ret)
			fprintf(sh->out, "=> %s\n", (char *)sh->ret.data);
	}
	fflush(sh->out);
	return 0;
}

/* Parse and run one statement. SBX_SHELL_INCOMPLETE asks for more lines;
 * -1 is a failure whose message is in sh->err. */
static int run_statement(shell *sh, const char *text, size_t len)
{
	sbx_shell_cmd c;
	size_t pos = 0;
	sh->err_line = 0;
	char msg[512];
	int rc = sbx_shell_parse(&c, text, len, &pos, msg, sizeof msg);
	if (rc == SBX_SHELL_EMPTY)
		return 0;
	if (rc == SBX_SHELL_INCOMPLETE)
		return rc;
	if (rc == SBX_ENOMEM)
		return shell_fail(sh, "out of memory");
	if (rc) {
		size_t line_start = pos;
		while (line_start > 0 && text[line_start - 1] != '\n')
			line_start--;
		for (size_t i = 0; i < line_start; i++)
			sh->err_line += text[i] == '\n';
		return shell_fail(sh, "syntax error at column %zu: %s",
				  pos - line_start + 1, msg);
	}
	rc = dispatch(sh, &c);
	sbx_shell_cmd_free(&c);
	return rc;
}

/* ---- input --------------------------------------------------------------- */

static void history_path(char *out, size_t cap)
{
	const char *home = getenv("HOME");
	if (home && *home)
		snprintf(out, cap, "%s/.saltbox_history", home);
	else
		out[0] = 0;
}

/* Tab completion: command names first on the line, table names after.
 * readline's callbacks carry no context, hence these two statics (only
 * the interactive loop sets them). */
static shell *completion_shell;
static char **completion_names;

static char **command_names(void)
{
	char **v = calloc(NCOMMANDS + 1, sizeof *v);
	for (size_t i = 0; v && i < NCOMMANDS; i++)
		v[i] = strdup(commands[i].name);
	return v;
}

static char *complete_next(const char *text, int state)
{
	static size_t next;
	if (!state)
		next = 0;
	size_t len = strlen(text);
	while (completion_names && completion_names[next]) {
		const char *name = completion_names[next++];
		if (!strncmp(name, text, len))
			return strdup(name);
	}
	return NULL;
}

static char **complete(const char *text, int start, int end)
{
	(void)end;
	bool first_word = true;
	for (int i = 0; i < start && rl_line_buffer[i]; i++)
		if (rl_line_buffer[i] != ' ' && rl_line_buffer[i] != '\t')
			first_word = false;
	sbx_strv_free(completion_names);
	completion_names = NULL;
	if (first_word) {
		completion_names = command_names();
		rl_completion_append_character = ' ';
	} else if (sbx_table_list(&completion_names, completion_shell->db)) {
		completion_names = NULL;
	} else {
		rl_completion_append_character = '\'';
	}
	rl_attempted_completion_over = 1;
	return rl_completion_matches(text, complete_next);
}

static int interactive_loop(shell *sh)
{
	char hist[4096], prompt[64];
	sbx_buf stmt = {0};
	unsigned counter = 1;
	history_path(hist, sizeof hist);
	using_history();
	stifle_history(1000);
	completion_shell = sh;
	rl_attempted_completion_function = complete;
	if (hist[0])
		read_history(hist);
	/* Ctrl-C stops the running command or clears the line, never the
	 * shell (no SA_RESTART, so a blocked read returns). */
	struct sigaction sa = {.sa_handler = on_sigint};
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	printf("Saltbox shell on %s (HBase shell syntax)\n"
	       "Type 'help' for the list of commands, 'exit' to leave.\n",
	       sh->data_dir);
	while (!sh->quit) {
		snprintf(prompt, sizeof prompt, "saltbox:%03u:%d%c ",
			 counter % 1000, stmt.len ? 1 : 0,
			 stmt.len ? '*' : '>');
		interrupted = 0;
		char *line = readline(prompt);
		if (interrupted) {
			free(line);
			putchar('\n');
			sbx_buf_reset(&stmt);
			continue;
		}
		if (!line) {
			putchar('\n');
			break;
		}
		if (stmt.len)
			sbx_buf_push(&stmt, '\n');
		sbx_buf_append(&stmt, line, strlen(line));
		free(line);
		int rc = run_statement(sh, (const char *)stmt.data, stmt.len);
		if (rc == SBX_SHELL_INCOMPLETE)
			continue;
		if (stmt.len && stmt.data[0] != ' ') {
			sbx_buf_push(&stmt, 0);
			add_history((const char *)stmt.data);
		}
		if (rc) {
			fflush(stdout);
			fprintf(stderr, "ERROR: %s\n", sh->err);
			fflush(stderr);
		}
		sbx_buf_reset(&stmt);
		counter++;
	}
	if (hist[0])
		write_history(hist);
	sbx_strv_free(completion_names);
	completion_names = NULL;
	free(stmt.data);
	return 0;
}

static void report_script_error(shell *sh, size_t line)
{
	fflush(sh->out);
	fprintf(stderr, "ERROR: %s (line %zu)\n", sh->err, line);
	fflush(stderr);
}

/* Scripts: stop at the first failure (unless keep_going), naming the line
 * the failing statement is on. */
static int script_loop(shell *sh, FILE *in, const char *name, bool keep_going)
{
	sbx_buf stmt = {0};
	char *line = NULL;
	size_t cap = 0, lineno = 0, start_line = 0;
	ssize_t n;
	int status = 0;
	bool fatal = false;
	while (!sh->quit && !fatal && (n = getline(&line, &cap, in)) >= 0) {
		lineno++;
		if (n > 0 && line[n - 1] == '\n')
			n--;
		if (stmt.len == 0)
			start_line = lineno;
		else
			sbx_buf_push(&stmt, '\n');
		int rc;
		sh->err_line = 0;
		if (stmt.len + (size_t)n > MAX_STATEMENT_BYTES)
			rc = shell_fail(sh, "statement longer than %u bytes",
					MAX_STATEMENT_BYTES);
		else if (sbx_buf_append(&stmt, line, (size_t)n))
			rc = shell_fail(sh, "out of memory");
		else
			rc = run_statement(sh, (const char *)stmt.data,
					   stmt.len);
		if (rc == SBX_SHELL_INCOMPLETE)
			continue;
		sbx_buf_reset(&stmt);
		if (rc) {
			status = 1;
			fatal = !keep_going;
			report_script_error(sh, start_line + sh->err_line);
		}
	}
	if (!fatal && ferror(in)) {
		shell_fail(sh, "cannot read %s: %s", name, strerror(errno));
		report_script_error(sh, lineno);
		status = 1;
	} else if (!fatal && stmt.len) {
		shell_fail(sh, "unexpected end of input: unclosed string, "
			       "bracket or trailing comma");
		report_script_error(sh, start_line);
		status = 1;
	}
	free(line);
	free(stmt.data);
	return status;
}

static void usage(FILE *out)
{
	fprintf(out,
		"usage: saltbox shell [--data DIR | --connect URL] [--keep-going] "
		"[FILE]\n\n"
		"HBase-shell-compatible shell on the embedded store in DIR\n"
		"(default ./saltbox-data, created if missing), or on a running\n"
		"store: an HBase REST gateway (--connect http://host:port, e.g.\n"
		"saltbox serve) or Cloud Bigtable (--connect "
		"bigtable://PROJECT/INSTANCE).\n\n"
		"With FILE (or '-' / a non-terminal stdin) the statements are "
		"run as a\nscript: the first failing command stops it with "
		"'ERROR: ... (line N)'\nand exit status 1. On a terminal the "
		"shell is interactive, with line\nediting and history in "
		"~/.saltbox_history. Type 'help' inside the shell\nfor its "
		"commands.\n\n"
		"options:\n"
		"  --data DIR   database directory (default ./saltbox-data)\n"
		"  --connect URL\n"
		"               a running store instead (see above; what the\n"
		"               store cannot express is refused with the reason)\n"
		"  -k, --keep-going\n"
		"               in a script, report a failed command and go "
		"on;\n"
		"               the exit status is still 1 if any failed\n"
		"  -h, --help   show this help\n");
}

int cmd_shell(int argc, char **argv)
{
	const char *dir = "./saltbox-data", *file = NULL, *url = NULL;
	bool keep_going = false;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(argv[i], "--data") ||
			   !strcmp(argv[i], "-d")) {
			if (++i >= argc) {
				fprintf(stderr, "saltbox shell: --data needs a "
						"directory\n");
				return 2;
			}
			dir = argv[i];
		} else if (!strcmp(argv[i], "--connect")) {
			if (++i >= argc) {
				fprintf(stderr, "saltbox shell: --connect needs a "
						"URL\n");
				return 2;
			}
			url = argv[i];
		} else if (!strcmp(argv[i], "-k") ||
			   !strcmp(argv[i], "--keep-going")) {
			keep_going = true;
		} else if (!strncmp(argv[i], "--data=", 7)) {
			dir = argv[i] + 7;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			fprintf(stderr, "saltbox shell: unknown option '%s'\n",
				argv[i]);
			usage(stderr);
			return 2;
		} else if (file) {
			fprintf(stderr, "saltbox shell: only one script file "
					"may be given\n");
			return 2;
		} else {
			file = argv[i];
		}
	}
	FILE *in = stdin;
	if (file && strcmp(file, "-") && !(in = fopen(file, "r"))) {
		fprintf(stderr, "saltbox shell: cannot open '%s': %s\n", file,
			strerror(errno));
		return 2;
	}
	shell sh = {.data_dir = url ? url : dir, .out = stdout};
	int rc = url ? sbx_db_connect(&sh.db, url) : sbx_db_open(&sh.db, dir, NULL);
	if (rc) {
		fprintf(stderr,
			"saltbox shell: cannot open database '%s': %s\n",
			sh.data_dir, sbx_errmsg());
		if (in != stdin)
			fclose(in);
		return 1;
	}
	int status =
	    !file && isatty(STDIN_FILENO)
		? interactive_loop(&sh)
		: script_loop(&sh, in, file ? file : "stdin", keep_going);
	if (in != stdin)
		fclose(in);
	shell_txn_end(&sh);
	sbx_db_close(sh.db);
	free(sh.ret.data);
	return status;
}
