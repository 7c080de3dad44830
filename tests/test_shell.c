/*
 * test_shell.c - `saltbox shell`: the line parser (quoting, Ruby escapes,
 * numbers, hashes, arrays, incomplete input, errors with positions) and
 * end-to-end scripts run through the real binary (path in SBX_SALTBOX),
 * comparing its output, exit status and failing line with written-out text.
 */
#include "check.h"

#include "common/buf.h"
#include "shell/parse.h"

#include <ctype.h>
#include <sys/wait.h>

/* ---- parser -------------------------------------------------------------- */

static sbx_shell_cmd cmd;
static char err[256];
static size_t err_pos;

static int parse(const char *text)
{
	sbx_shell_cmd_free(&cmd);
	return sbx_shell_parse(&cmd, text, strlen(text), &err_pos, err,
			       sizeof err);
}

static void test_parse_basic(void)
{
	REQUIRE(parse("put 't1', 'r1', 'cf:a', 'v1'") == SBX_OK);
	CHECK_STR(cmd.name, "put");
	CHECK_INT(cmd.nargs, 4);
	CHECK_INT(cmd.args[0].type, SBX_SHV_STRING);
	CHECK_STR(cmd.args[2].str, "cf:a");
	CHECK_STR(cmd.args[3].str, "v1");

	REQUIRE(parse("  get('t', \"r\")  # trailing comment") == SBX_OK);
	CHECK_STR(cmd.name, "get");
	CHECK_INT(cmd.nargs, 2);
	CHECK_STR(cmd.args[1].str, "r");

	REQUIRE(parse("list") == SBX_OK);
	CHECK_STR(cmd.name, "list");
	CHECK_INT(cmd.nargs, 0);
	REQUIRE(parse("list()") == SBX_OK);
	CHECK_INT(cmd.nargs, 0);

	CHECK_INT(parse(""), SBX_SHELL_EMPTY);
	CHECK_INT(parse("   \t "), SBX_SHELL_EMPTY);
	CHECK_INT(parse("# just a comment"), SBX_SHELL_EMPTY);
}

static void test_parse_quoting(void)
{
	/* Single quotes are literal except \\ and \'. */
	REQUIRE(parse("x 'a\\x00b', 'it\\'s', 'a\\\\b', 'q\"q'") == SBX_OK);
	CHECK_MEM(cmd.args[0].str, cmd.args[0].len, "a\\x00b");
	CHECK_STR(cmd.args[1].str, "it's");
	CHECK_STR(cmd.args[2].str, "a\\b");
	CHECK_STR(cmd.args[3].str, "q\"q");

	/* Double quotes read Ruby's escapes. */
	REQUIRE(
	    parse("x \"a\\x00b\\xff\\x5C\", \"\\t\\n\\e\\s\", \"\\101\\0\"") ==
	    SBX_OK);
	CHECK_INT(cmd.args[0].len, 5);
	CHECK(!memcmp(cmd.args[0].str, "a\0b\xff\\", 5));
	CHECK_MEM(cmd.args[1].str, cmd.args[1].len, "\t\n\x1b ");
	CHECK_INT(cmd.args[2].len, 2);
	CHECK(!memcmp(cmd.args[2].str, "A\0", 2));

	REQUIRE(parse("x \"\\u00e9\\u{1F600}\", \"\\q\\\"\\#{x}\", \"\\xA\"") ==
		SBX_OK);
	CHECK_MEM(cmd.args[0].str, cmd.args[0].len, "\xc3\xa9\xf0\x9f\x98\x80");
	CHECK_STR(cmd.args[1].str, "q\"#{x}");
	CHECK_MEM(cmd.args[2].str, cmd.args[2].len, "\n");

	CHECK_INT(parse("x \"\\xZZ\""), SBX_EPARSE);
	CHECK_STR(err, "invalid hex escape: expected a hex digit after \\x");
	CHECK_INT(err_pos, 3);
	CHECK_INT(parse("x \"\\u12\""), SBX_EPARSE);
	CHECK_INT(parse("x \"\\uD800\""), SBX_EPARSE);
	CHECK_INT(parse("x \"a#{b}\""), SBX_EPARSE);
	CHECK_INT(err_pos, 4);
}

static void test_parse_numbers(void)
{
	REQUIRE(parse("x 42, -7, 0x1F, 1_000, 010, 0b101, +3") == SBX_OK);
	CHECK_INT(cmd.nargs, 7);
	CHECK_INT(cmd.args[0].num, 42);
	CHECK_INT(cmd.args[1].num, -7);
	CHECK_INT(cmd.args[2].num, 31);
	CHECK_INT(cmd.args[3].num, 1000);
	CHECK_INT(cmd.args[4].num, 8); /* Ruby: leading 0 is octal */
	CHECK_INT(cmd.args[5].num, 5);
	CHECK_INT(cmd.args[6].num, 3);
	REQUIRE(parse("x 9223372036854775807, -9223372036854775808") == SBX_OK);
	CHECK(cmd.args[0].num == INT64_MAX);
	CHECK(cmd.args[1].num == INT64_MIN);

	CHECK_INT(parse("x 9223372036854775808"), SBX_EPARSE);
	CHECK_STR(err, "integer out of range (64-bit signed)");
	CHECK_INT(parse("x 1.5"), SBX_EPARSE);
	CHECK_STR(err, "floating-point numbers are not supported here");
	CHECK_INT(parse("x 09"), SBX_EPARSE);
	CHECK_INT(parse("x 12abc"), SBX_EPARSE);
	CHECK_INT(err_pos, 4);
}

static void test_parse_hashes_arrays(void)
{
	REQUIRE(parse("create 't', {NAME => 'cf', VERSIONS => 3, "
		      "IN_MEMORY => true}, {NAME=>'cf2',}") == SBX_OK);
	CHECK_INT(cmd.nargs, 3);
	const sbx_shell_value *h = &cmd.args[1];
	CHECK_INT(h->type, SBX_SHV_HASH);
	CHECK_INT(h->n, 6);
	CHECK_STR(sbx_shell_hash_get(h, "NAME")->str, "cf");
	CHECK_INT(sbx_shell_hash_get(h, "VERSIONS")->num, 3);
	CHECK_INT(sbx_shell_hash_get(h, "IN_MEMORY")->type, SBX_SHV_BOOL);
	CHECK(sbx_shell_hash_get(h, "TTL") == NULL);
	CHECK_STR(sbx_shell_hash_get(&cmd.args[2], "NAME")->str, "cf2");

	/* A brace-less trailing hash, as Ruby allows. */
	REQUIRE(parse("create 't', 'cf', SPLITS => ['a', \"b\",], "
		      "'OWNER' => nil") == SBX_OK);
	CHECK_INT(cmd.nargs, 3);
	h = &cmd.args[2];
	CHECK_INT(h->type, SBX_SHV_HASH);
	const sbx_shell_value *splits = sbx_shell_hash_get(h, "SPLITS");
	REQUIRE(splits && splits->type == SBX_SHV_ARRAY);
	CHECK_INT(splits->n, 2);
	CHECK_STR(splits->items[1].str, "b");
	CHECK_INT(sbx_shell_hash_get(h, "OWNER")->type, SBX_SHV_NIL);

	REQUIRE(parse("x [[1, [2]], {}, []]") == SBX_OK);
	CHECK_INT(cmd.args[0].n, 3);
	CHECK_INT(cmd.args[0].items[0].items[1].items[0].num, 2);
	CHECK_INT(cmd.args[0].items[1].type, SBX_SHV_HASH);

	/* Multi-line statement joined by the reader. */
	REQUIRE(parse("scan 't',\n  {LIMIT => 2,\n   REVERSED => true}") ==
		SBX_OK);
	CHECK_INT(sbx_shell_hash_get(&cmd.args[1], "LIMIT")->num, 2);
}

static void test_parse_incomplete(void)
{
	CHECK_INT(parse("put 't',"), SBX_SHELL_INCOMPLETE);
	CHECK_INT(parse("put 't', 'abc"), SBX_SHELL_INCOMPLETE);
	CHECK_INT(parse("put 't', \"abc\\"), SBX_SHELL_INCOMPLETE);
	CHECK_INT(parse("scan 't', {LIMIT => 1"), SBX_SHELL_INCOMPLETE);
	CHECK_INT(parse("scan 't', {LIMIT =>"), SBX_SHELL_INCOMPLETE);
	CHECK_INT(parse("scan 't', {COLUMNS => ['a',"), SBX_SHELL_INCOMPLETE);
	CHECK_INT(parse("get('t', 'r'"), SBX_SHELL_INCOMPLETE);
	CHECK_INT(parse("create 't', NAME =>"), SBX_SHELL_INCOMPLETE);
	CHECK(cmd.name == NULL && cmd.nargs == 0);
}

static void test_parse_errors(void)
{
	CHECK_INT(parse("put 't' 'r'"), SBX_EPARSE);
	CHECK_STR(err, "expected ',' between arguments, got '''");
	CHECK_INT(err_pos, 8);
	CHECK_INT(parse("get 't', r1"), SBX_EPARSE);
	CHECK_STR(err, "unknown name 'r1' (strings need quotes: 'r1')");
	CHECK_INT(err_pos, 9);
	CHECK_INT(parse("scan 't', {LIMIT 10}"), SBX_EPARSE);
	CHECK_STR(err, "expected '=>' after hash key, got '1'");
	CHECK_INT(parse("scan 't', {LIMIT => 1 2}"), SBX_EPARSE);
	CHECK_STR(err, "expected ',' or '}' in hash, got '2'");
	CHECK_INT(parse("list; list"), SBX_EPARSE);
	CHECK_STR(err, "';' is not supported: write one command per line");
	CHECK_INT(parse("'t'"), SBX_EPARSE);
	CHECK_STR(err, "expected a command name, got '''");
	CHECK_INT(parse("get('t') x"), SBX_EPARSE);
	CHECK_INT(parse("scan 't', {FILTER => org.apache.Foo}"), SBX_EPARSE);
	CHECK_INT(parse("scan 't', FILTER => Java::Foo"), SBX_EPARSE);
	CHECK_INT(parse("x 'a' => 1, 'b', 'c'"), SBX_EPARSE);
	CHECK_STR(err, "expected '=>' after hash key, got ','");
	CHECK_INT(parse("x \x01"), SBX_EPARSE);
	CHECK_STR(err, "expected a value, got byte \\x01");

	/* Nesting is bounded. */
	char deep[200] = "x ";
	for (int i = 0; i < 40; i++)
		strcat(deep, "[");
	CHECK_INT(parse(deep), SBX_EPARSE);
	CHECK_STR(err, "nesting deeper than 32 levels");
	sbx_shell_cmd_free(&cmd);
}

static void test_binary_format(void)
{
	sbx_buf b = {0};
	REQUIRE(sbx_shell_append_binary(&b, "a b~\\\x00\x7f\xff\n", 9) == 0);
	CHECK_MEM(b.data, b.len, "a b~\\x5C\\x00\\x7F\\xFF\\x0A");
	sbx_buf_free(&b);

	/* Bytes.toBytesBinary, as SPLITS are read. */
	sbx_buf_reset(&b);
	REQUIRE(sbx_shell_from_binary(&b, "a\\x00\\xfFz\\xZ1\\x4", 17) == 0);
	CHECK_INT(b.len, 9);
	CHECK(b.len == 9 && !memcmp(b.data, "a\0\xffzxZ1x4", 9));
	sbx_buf_free(&b);
}

/* ---- end to end through the binary --------------------------------------- */

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return strdup("");
	sbx_buf b = {0};
	char chunk[4096];
	size_t n;
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
		sbx_buf_append(&b, chunk, n);
	sbx_buf_push(&b, 0);
	fclose(f);
	return (char *)b.data;
}

/* Drop the variable "Took N seconds" lines. */
static char *without_timing(char *s)
{
	char *w = s;
	for (char *line = s; *line;) {
		char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line + 1) : strlen(line);
		if (strncmp(line, "Took ", 5)) {
			memmove(w, line, len);
			w += len;
		}
		line += len;
	}
	*w = 0;
	return s;
}

typedef struct run {
	int status;
	char *out;
	char *err;
} run;

static char data_dir[4096];

static void fresh_dir(const char *name)
{
	snprintf(data_dir, sizeof data_dir, "%s", test_dir(name));
}

/* Run `saltbox shell --data <data_dir> [extra]` with `script` on stdin. */
static run run_shell_args(const char *script, const char *extra)
{
	run r = {-1, NULL, NULL};
	const char *bin = getenv("SBX_SALTBOX");
	char in[4200], out[4200], errf[4200];
	snprintf(in, sizeof in, "%s.in", data_dir);
	snprintf(out, sizeof out, "%s.out", data_dir);
	snprintf(errf, sizeof errf, "%s.err", data_dir);
	FILE *f = fopen(in, "w");
	if (!bin || !f) {
		if (f)
			fclose(f);
		fprintf(stderr, "SBX_SALTBOX not set or %s not writable\n", in);
		r.out = strdup("");
		r.err = strdup("");
		return r;
	}
	fputs(script, f);
	fclose(f);
	const char *fmt = "'%s' shell --data '%s' %s < '%s' > '%s' 2> '%s'";
	int len = snprintf(NULL, 0, fmt, bin, data_dir, extra ? extra : "", in,
			   out, errf);
	char *cmdline = malloc((size_t)len + 1);
	if (!cmdline)
		abort();
	snprintf(cmdline, (size_t)len + 1, fmt, bin, data_dir,
		 extra ? extra : "", in, out, errf);
	int st = system(cmdline);
	free(cmdline);
	r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	r.out = without_timing(slurp(out));
	r.err = slurp(errf);
	return r;
}

static run run_shell(const char *script)
{
	return run_shell_args(script, NULL);
}

static void run_free(run *r)
{
	free(r->out);
	free(r->err);
}

static void test_e2e_create_put_get_scan(void)
{
	fresh_dir("shell_basic");
	run r = run_shell("create 't1', 'cf'\n"
			  "put 't1', 'r1', 'cf:a', 'v1', 1700000000000\n"
			  "put 't1', 'r2', 'cf:b', 'v2', 1700000000001\n"
			  "put 't1', 'r1', 'cf:c', 42, 1700000000002\n"
			  "get 't1', 'r1'\n"
			  "scan 't1'\n"
			  "get 't1', 'nope'\n"
			  "count 't1'\n"
			  "list\n"
			  "exists 't1'\n"
			  "exists 'zz'\n"
			  "exit\n"
			  "put 't1', 'never', 'cf:a', 'x'\n");
	CHECK_INT(r.status, 0);
	CHECK_STR(r.err, "");
	CHECK_STR(r.out,
		  "Created table t1\n"
		  "=> Hbase::Table - t1\n"
		  "COLUMN                                   CELL\n"
		  " cf:a                                    "
		  "timestamp=1700000000000, value=v1\n"
		  " cf:c                                    "
		  "timestamp=1700000000002, value=42\n"
		  "1 row(s)\n"
		  "ROW                                      COLUMN+CELL\n"
		  " r1                                      column=cf:a, "
		  "timestamp=1700000000000, value=v1\n"
		  " r1                                      column=cf:c, "
		  "timestamp=1700000000002, value=42\n"
		  " r2                                      column=cf:b, "
		  "timestamp=1700000000001, value=v2\n"
		  "2 row(s)\n"
		  "COLUMN                                   CELL\n"
		  "0 row(s)\n"
		  "2 row(s)\n"
		  "=> 2\n"
		  "TABLE\n"
		  "t1\n"
		  "1 row(s)\n"
		  "=> [\"t1\"]\n"
		  "Table t1 does exist\n"
		  "=> true\n"
		  "Table zz does not exist\n"
		  "=> false\n");
	run_free(&r);
}

static void test_e2e_timing_line(void)
{
	fresh_dir("shell_timing");
	char out[4200];
	run r = run_shell("list\n");
	CHECK_INT(r.status, 0);
	run_free(&r);
	snprintf(out, sizeof out, "%s.out", data_dir);
	char *raw = slurp(out);
	/* "Took 0.0001 seconds" after the list output. */
	char *took = strstr(raw, "\nTook 0.");
	CHECK(took != NULL);
	CHECK(took && strstr(took, " seconds\n=> []\n") != NULL);
	free(raw);
}

static void test_e2e_binary_keys(void)
{
	fresh_dir("shell_binary");
	run r =
	    run_shell("create 't', 'cf'\n"
		      "put 't', \"k\\x00\\xff\", 'cf:q\\x01', \"v\\\\\\n\", 5\n"
		      "put 't', 'lit\\x00', 'cf:q', 'x', 6\n"
		      "scan 't'\n"
		      "get 't', \"k\\x00\\xFF\"\n");
	CHECK_INT(r.status, 0);
	CHECK_STR(r.out,
		  "Created table t\n"
		  "=> Hbase::Table - t\n"
		  "ROW                                      COLUMN+CELL\n"
		  " k\\x00\\xFF                               "
		  "column=cf:q\\x5Cx01, timestamp=5, value=v\\x5C\\x0A\n"
		  " lit\\x5Cx00                              column=cf:q, "
		  "timestamp=6, value=x\n"
		  "2 row(s)\n"
		  "COLUMN                                   CELL\n"
		  " cf:q\\x5Cx01                             timestamp=5, "
		  "value=v\\x5C\\x0A\n"
		  "1 row(s)\n");
	run_free(&r);
}

static void test_e2e_delete_is_delete_column(void)
{
	fresh_dir("shell_delete");
	run r = run_shell(
	    "create 't', {NAME => 'cf', VERSIONS => 5}\n"
	    "put 't', 'r', 'cf:a', 'one', 10\n"
	    "put 't', 'r', 'cf:a', 'two', 20\n"
	    "put 't', 'r', 'cf:a', 'three', 30\n"
	    "put 't', 'r', 'cf:b', 'b', 10\n"
	    "delete 't', 'r', 'cf:a', 20\n"
	    "get 't', 'r', {COLUMN => 'cf:a', VERSIONS => 5}\n"
	    "scan 't', {RAW => true, VERSIONS => 5, COLUMNS => 'cf'}\n"
	    "deleteall 't', 'r'\n"
	    "scan 't'\n");
	CHECK_INT(r.status, 0);
	CHECK_STR(r.err, "");
	CHECK_STR(r.out,
		  "Created table t\n"
		  "=> Hbase::Table - t\n"
		  "COLUMN                                   CELL\n"
		  " cf:a                                    timestamp=30, "
		  "value=three\n"
		  "1 row(s)\n"
		  "ROW                                      COLUMN+CELL\n"
		  " r                                       column=cf:a, "
		  "timestamp=30, value=three\n"
		  " r                                       column=cf:a, "
		  "timestamp=20, type=DeleteColumn\n"
		  " r                                       column=cf:a, "
		  "timestamp=20, value=two\n"
		  " r                                       column=cf:a, "
		  "timestamp=10, value=one\n"
		  " r                                       column=cf:b, "
		  "timestamp=10, value=b\n"
		  "1 row(s)\n"
		  "ROW                                      COLUMN+CELL\n"
		  "0 row(s)\n");
	run_free(&r);
}

static void test_e2e_scan_options(void)
{
	fresh_dir("shell_scan");
	run r = run_shell(
	    "create 't', 'cf', 'cf2'\n"
	    "put 't', 'a', 'cf:q', '1', 1\n"
	    "put 't', 'b', 'cf:q', '2', 1\n"
	    "put 't', 'b', 'cf2:z', 'z', 1\n"
	    "put 't', 'c1', 'cf:q', '3', 1\n"
	    "put 't', 'c2', 'cf:q', '4', 1\n"
	    "put 't', 'd', 'cf:q', '5', 1\n"
	    "scan 't', {STARTROW => 'b', STOPROW => 'd', COLUMNS => ['cf2']}\n"
	    "scan 't', {REVERSED => true, LIMIT => 2}\n"
	    "scan 't', {ROWPREFIXFILTER => 'c'}\n"
	    "scan 't', {FILTER => \"PrefixFilter('c2')\"}\n"
	    "count 't', {INTERVAL => 2}\n");
	CHECK_INT(r.status, 0);
	CHECK_STR(r.err, "");
	CHECK_STR(r.out,
		  "Created table t\n"
		  "=> Hbase::Table - t\n"
		  "ROW                                      COLUMN+CELL\n"
		  " b                                       column=cf2:z, "
		  "timestamp=1, value=z\n"
		  "1 row(s)\n"
		  "ROW                                      COLUMN+CELL\n"
		  " d                                       column=cf:q, "
		  "timestamp=1, value=5\n"
		  " c2                                      column=cf:q, "
		  "timestamp=1, value=4\n"
		  "2 row(s)\n"
		  "ROW                                      COLUMN+CELL\n"
		  " c1                                      column=cf:q, "
		  "timestamp=1, value=3\n"
		  " c2                                      column=cf:q, "
		  "timestamp=1, value=4\n"
		  "2 row(s)\n"
		  "ROW                                      COLUMN+CELL\n"
		  " c2                                      column=cf:q, "
		  "timestamp=1, value=4\n"
		  "1 row(s)\n"
		  "Current count: 2, row: b\n"
		  "Current count: 4, row: c2\n"
		  "5 row(s)\n"
		  "=> 5\n");
	run_free(&r);
}

static void test_e2e_get_options(void)
{
	fresh_dir("shell_get");
	run r = run_shell(
	    "create 't', {NAME => 'cf', VERSIONS => 3}\n"
	    "put 't', 'r', 'cf:a', 'a1', 100\n"
	    "put 't', 'r', 'cf:a', 'a2', 200\n"
	    "put 't', 'r', 'cf:b', 'b1', 150\n"
	    "get 't', 'r', {VERSIONS => 3}\n"
	    "get 't', 'r', {COLUMN => 'cf:a', TIMESTAMP => 100}\n"
	    "get 't', 'r', {TIMERANGE => [100, 200], VERSIONS => 3}\n"
	    "get 't', 'r', 'cf:b', 'cf:a'\n"
	    "get 't', 'r', {FILTER => \"ValueFilter(=, 'binary:b1')\"}\n");
	CHECK_INT(r.status, 0);
	CHECK_STR(r.err, "");
	CHECK_STR(
	    r.out,
	    "Created table t\n"
	    "=> Hbase::Table - t\n"
	    "COLUMN                                   CELL\n"
	    " cf:a                                    timestamp=200, value=a2\n"
	    " cf:a                                    timestamp=100, value=a1\n"
	    " cf:b                                    timestamp=150, value=b1\n"
	    "1 row(s)\n"
	    "COLUMN                                   CELL\n"
	    " cf:a                                    timestamp=100, value=a1\n"
	    "1 row(s)\n"
	    "COLUMN                                   CELL\n"
	    " cf:a                                    timestamp=100, value=a1\n"
	    " cf:b                                    timestamp=150, value=b1\n"
	    "1 row(s)\n"
	    "COLUMN                                   CELL\n"
	    " cf:a                                    timestamp=200, value=a2\n"
	    " cf:b                                    timestamp=150, value=b1\n"
	    "1 row(s)\n"
	    "COLUMN                                   CELL\n"
	    " cf:b                                    timestamp=150, value=b1\n"
	    "1 row(s)\n");
	run_free(&r);
}

static void test_e2e_schema(void)
{
	fresh_dir("shell_schema");
	run r =
	    run_shell("create 't', {NAME => 'cf', VERSIONS => 3, TTL => 60, "
		      "BLOOMFILTER => 'ROWCOL', COMPRESSION => 'zstd', "
		      "KEEP_DELETED_CELLS => true, IN_MEMORY => 'true'}, "
		      "SPLITS => ['m']\n"
		      "alter 't', NAME => 'cf', VERSIONS => 5\n"
		      "alter 't', 'cf2'\n"
		      "describe 't'\n"
		      "alter 't', NAME => 'cf2', METHOD => 'delete'\n"
		      "disable 't'\n"
		      "is_disabled 't'\n"
		      "describe 't'\n"
		      "enable 't'\n"
		      "truncate 't'\n");
	CHECK_INT(r.status, 0);
	CHECK_STR(r.err, "");
	CHECK_STR(
	    r.out,
	    "Created table t\n"
	    "=> Hbase::Table - t\n"
	    "Updating all regions with the new schema...\n"
	    "2/2 regions updated.\n"
	    "Done.\n"
	    "Updating all regions with the new schema...\n"
	    "2/2 regions updated.\n"
	    "Done.\n"
	    "Table t is ENABLED\n"
	    "t\n"
	    "COLUMN FAMILIES DESCRIPTION\n"
	    "{NAME => 'cf', BLOOMFILTER => 'ROWCOL', IN_MEMORY => 'true', "
	    "VERSIONS => '5', KEEP_DELETED_CELLS => 'TRUE', "
	    "DATA_BLOCK_ENCODING => 'NONE', COMPRESSION => 'ZSTD', "
	    "TTL => '60 SECONDS (1 MINUTE)', MIN_VERSIONS => '0', "
	    "BLOCKCACHE => 'true', BLOCKSIZE => '65536'}\n"
	    "{NAME => 'cf2', BLOOMFILTER => 'ROW', IN_MEMORY => 'false', "
	    "VERSIONS => '1', KEEP_DELETED_CELLS => 'FALSE', "
	    "DATA_BLOCK_ENCODING => 'NONE', COMPRESSION => 'NONE', "
	    "TTL => 'FOREVER', MIN_VERSIONS => '0', BLOCKCACHE => 'true', "
	    "BLOCKSIZE => '65536'}\n"
	    "2 row(s)\n"
	    "Updating all regions with the new schema...\n"
	    "2/2 regions updated.\n"
	    "Done.\n"
	    "true\n"
	    "=> true\n"
	    "Table t is DISABLED\n"
	    "t\n"
	    "COLUMN FAMILIES DESCRIPTION\n"
	    "{NAME => 'cf', BLOOMFILTER => 'ROWCOL', IN_MEMORY => 'true', "
	    "VERSIONS => '5', KEEP_DELETED_CELLS => 'TRUE', "
	    "DATA_BLOCK_ENCODING => 'NONE', COMPRESSION => 'ZSTD', "
	    "TTL => '60 SECONDS (1 MINUTE)', MIN_VERSIONS => '0', "
	    "BLOCKCACHE => 'true', BLOCKSIZE => '65536'}\n"
	    "1 row(s)\n"
	    "Truncating 't' table (it may take a while):\n"
	    "Truncating table...\n");
	run_free(&r);
}

static void test_e2e_regions(void)
{
	fresh_dir("shell_regions");
	run r = run_shell(
	    "create 't', 'cf', SPLITS => ['m', 'c', '\\x01z']\n"
	    "get_splits 't'\n"
	    "split 't', 'x'\n"
	    "get_splits 't'\n"
	    "put 't', 'd', 'cf:a', 'v', 3\n"
	    "put 't', 'y', 'cf:a', 'w', 4\n"
	    "scan 't'\n"
	    "create 'h', 'cf', {NUMREGIONS => 4, SPLITALGO => "
	    "'HexStringSplit'}\n"
	    "get_splits 'h'\n"
	    "create 'k', 'cf', SPLIT_POLICY => 'KeyPrefixRegionSplitPolicy', "
	    "METADATA => {'KeyPrefixRegionSplitPolicy.prefix_length' => "
	    "'2'}\n"
	    "alter 'k', MAX_FILESIZE => 1048576\n"
	    "status\n");
	CHECK_INT(r.status, 0);
	CHECK_STR(r.err, "");
	/* one line, as HBase's shell prints it */
	const char *status = "1 active master, 0 backup masters, 4 servers, "
			     "0 dead, 2.5000 average load\n";
	char expected[16384];
	snprintf(expected, sizeof expected,
		 "Created table t\n"
		 "=> Hbase::Table - t\n"
		 "Total number of splits = 4\n"
		 "\\x01z\n"
		 "c\n"
		 "m\n"
		 "=> [\"\\x01z\", \"c\", \"m\"]\n"
		 "Total number of splits = 5\n"
		 "\\x01z\n"
		 "c\n"
		 "m\n"
		 "x\n"
		 "=> [\"\\x01z\", \"c\", \"m\", \"x\"]\n"
		 "ROW                                      COLUMN+CELL\n"
		 " d                                       column=cf:a, "
		 "timestamp=3, value=v\n"
		 " y                                       column=cf:a, "
		 "timestamp=4, value=w\n"
		 "2 row(s)\n"
		 "Created table h\n"
		 "=> Hbase::Table - h\n"
		 "Total number of splits = 4\n"
		 "40000000\n"
		 "80000000\n"
		 "c0000000\n"
		 "=> [\"40000000\", \"80000000\", \"c0000000\"]\n"
		 "Created table k\n"
		 "=> Hbase::Table - k\n"
		 "%s",
		 status);
	CHECK_STR(r.out, expected);
	run_free(&r);
}

static void test_e2e_formatters(void)
{
	fresh_dir("shell_format");
	run r = run_shell(
	    "create 't', 'cf'\n"
	    "put 't', 'r', 'cf:n', "
	    "\"\\x00\\x00\\x00\\x00\\x00\\x00\\x01\\x02\", 1\n"
	    "put 't', 'r', 'cf:i', \"\\xff\\xff\\xff\\xfe\", 1\n"
	    "put 't', 'r', 'cf:s', 'hello world', 1\n"
	    "get 't', 'r', 'cf:n:toLong', 'cf:i:toInt', 'cf:s'\n"
	    "scan 't', {COLUMNS => ['cf:n:toHex', 'cf:s'], MAXLENGTH => 16}\n"
	    "get 't', 'r', {COLUMN => 'cf:s', FORMATTER => 'toString'}\n");
	CHECK_INT(r.status, 0);
	CHECK_STR(r.err, "");
	CHECK_STR(
	    r.out,
	    "Created table t\n"
	    "=> Hbase::Table - t\n"
	    "COLUMN                                   CELL\n"
	    " cf:i                                    timestamp=1, value=-2\n"
	    " cf:n                                    timestamp=1, value=258\n"
	    " cf:s                                    timestamp=1, value=hello "
	    "world\n"
	    "1 row(s)\n"
	    "ROW                                      COLUMN+CELL\n"
	    " r                                       column=cf:n, "
	    "timestamp=1, val\n"
	    " r                                       column=cf:s, "
	    "timestamp=1, val\n"
	    "1 row(s)\n"
	    "COLUMN                                   CELL\n"
	    " cf:s                                    timestamp=1, value=hello "
	    "world\n"
	    "1 row(s)\n");
	run_free(&r);
}

static void test_e2e_maintenance(void)
{
	fresh_dir("shell_maint");
	run r = run_shell("create 't', {NAME => 'cf', VERSIONS => 2}, "
			  "SPLITS => ['m']\n"
			  "put 't', 'r', 'cf:a', '1', 1\n"
			  "put 't', 'r', 'cf:a', '2', 2\n"
			  "put 't', 'r', 'cf:a', '3', 3\n"
			  "flush 't'\n"
			  "major_compact 't'\n"
			  "scan 't', {RAW => true, VERSIONS => 5}\n"
			  "delete 't', 'r', 'cf:a'\n"
			  "major_compact 't'\n"
			  "scan 't', {RAW => true, VERSIONS => 5}\n"
			  "put 't', 'z', 'cf:a', 'v', 1\n"
			  "truncate_preserve 't'\n"
			  "get_splits 't'\n"
			  "truncate 't'\n"
			  "get_splits 't'\n"
			  "describe_namespace 'default'\n");
	CHECK_INT(r.status, 0);
	CHECK_STR(r.err, "");
	CHECK_STR(r.out,
		  "Created table t\n"
		  "=> Hbase::Table - t\n"
		  "ROW                                      COLUMN+CELL\n"
		  " r                                       column=cf:a, "
		  "timestamp=3, value=3\n"
		  " r                                       column=cf:a, "
		  "timestamp=2, value=2\n"
		  "1 row(s)\n"
		  "ROW                                      COLUMN+CELL\n"
		  "0 row(s)\n"
		  "Truncating 't' table (it may take a while):\n"
		  "Truncating table...\n"
		  "Total number of splits = 2\n"
		  "m\n"
		  "=> [\"m\"]\n"
		  "Truncating 't' table (it may take a while):\n"
		  "Truncating table...\n"
		  "Total number of splits = 1\n"
		  "=> []\n"
		  "DESCRIPTION\n"
		  "{NAME => 'default'}\n");
	run_free(&r);
}

/* HBase's snapshot commands: the clone and the restored table read as the
 * table did when the snapshot was taken; restore wants a disabled table. */
static void test_e2e_snapshots(void)
{
	fresh_dir("shell_snap");
	run r = run_shell_args("create 't', {NAME => 'cf', VERSIONS => 2}, "
			       "SPLITS => ['m']\n"
			       "put 't', 'a', 'cf:q', '1', 1\n"
			       "put 't', 'a', 'cf:q', '2', 2\n"
			       "snapshot 't', 's1'\n"
			       "put 't', 'a', 'cf:q', '3', 3\n"
			       "put 't', 'z', 'cf:q', 'new', 4\n"
			       "clone_snapshot 's1', 'c'\n"
			       "scan 'c', {VERSIONS => 2}\n"
			       "get_splits 'c'\n"
			       "restore_snapshot 's1'\n"
			       "disable 't'\n"
			       "restore_snapshot 's1'\n"
			       "is_disabled 't'\n"
			       "enable 't'\n"
			       "scan 't'\n"
			       "snapshot 't', 's1'\n"
			       "list_snapshots\n"
			       "delete_snapshot 's1'\n"
			       "list_snapshots\n",
			       "--keep-going");
	CHECK_INT(r.status, 1);
	CHECK(strstr(r.out,
		     "Created table t\n"
		     "=> Hbase::Table - t\n"
		     "ROW                                      COLUMN+CELL\n"
		     " a                                       column=cf:q, "
		     "timestamp=2, value=2\n"
		     " a                                       column=cf:q, "
		     "timestamp=1, value=1\n"
		     "1 row(s)\n"
		     "Total number of splits = 2\n"
		     "m\n"
		     "=> [\"m\"]\n"
		     "true\n"
		     "=> true\n"
		     "ROW                                      COLUMN+CELL\n"
		     " a                                       column=cf:q, "
		     "timestamp=2, value=2\n"
		     "1 row(s)\n"
		     "SNAPSHOT                 TABLE + CREATION TIME\n"
		     " s1                      t (20") == r.out);
	CHECK(strstr(r.out, " UTC)\n1 row(s)\n"
			    "SNAPSHOT                 TABLE + CREATION TIME\n"
			    "0 row(s)\n") != NULL);
	CHECK(strstr(r.err, "table 't' must be disabled to restore snapshot "
			    "'s1' (line 10)\n") != NULL);
	CHECK(strstr(r.err, "snapshot 's1' already exists (line 16)\n") !=
	      NULL);
	run_free(&r);
}

static void test_e2e_namespaces(void)
{
	fresh_dir("shell_ns");
	run r = run_shell("create_namespace 'ns1'\n"
			  "create 'ns1:t', 'cf'\n"
			  "create 'plain', 'cf'\n"
			  "list_namespace\n"
			  "list_namespace_tables 'ns1'\n"
			  "list 'ns1:.*'\n"
			  "drop_namespace 'ns1'\n");
	CHECK_INT(r.status, 1);
	CHECK_STR(r.out, "Created table ns1:t\n"
			 "=> Hbase::Table - ns1:t\n"
			 "Created table plain\n"
			 "=> Hbase::Table - plain\n"
			 "NAMESPACE\n"
			 "default\n"
			 "hbase\n"
			 "ns1\n"
			 "3 row(s)\n"
			 "=> [\"default\", \"hbase\", \"ns1\"]\n"
			 "TABLE\n"
			 "t\n"
			 "1 row(s)\n"
			 "=> [\"t\"]\n"
			 "TABLE\n"
			 "ns1:t\n"
			 "1 row(s)\n"
			 "=> [\"ns1:t\"]\n");
	CHECK(strstr(r.err, "ERROR: ") == r.err);
	CHECK(strstr(r.err, "(line 7)\n") != NULL);
	run_free(&r);
}

static void test_e2e_counters(void)
{
	fresh_dir("shell_counters");
	run r = run_shell("create 't', 'cf'\n"
			  "incr 't', 'r', 'cf:n'\n"
			  "incr 't', 'r', 'cf:n', 41\n"
			  "incr 't', 'r', 'cf:n', -2\n"
			  "get_counter 't', 'r', 'cf:n'\n"
			  "get_counter 't', 'r', 'cf:none'\n"
			  "append 't', 'r', 'cf:s', 'ab'\n"
			  "append 't', 'r', 'cf:s', \"\\x00c\"\n");
	CHECK_INT(r.status, 0);
	CHECK_STR(r.err, "");
	CHECK_STR(r.out, "Created table t\n"
			 "=> Hbase::Table - t\n"
			 "COUNTER VALUE = 1\n"
			 "COUNTER VALUE = 42\n"
			 "COUNTER VALUE = 40\n"
			 "COUNTER VALUE = 40\n"
			 "No counter found at specified coordinates\n"
			 "CURRENT VALUE = ab\n"
			 "CURRENT VALUE = ab\\x00c\n");
	run_free(&r);
}

static void test_e2e_stops_at_first_error(void)
{
	fresh_dir("shell_error");
	run r = run_shell("create 't', 'cf'\n"
			  "put 't', 'r', 'cf:a', 'v', 1\n"
			  "\n"
			  "# a comment\n"
			  "put 't', 'r', 'nofam:a', 'v'\n"
			  "put 't', 'r2', 'cf:a', 'v'\n");
	CHECK_INT(r.status, 1);
	CHECK_STR(r.out, "Created table t\n=> Hbase::Table - t\n");
	CHECK(strstr(r.err, "ERROR: ") == r.err);
	CHECK(strstr(r.err, "nofam") != NULL);
	CHECK(strstr(r.err, "(line 5)\n") != NULL);
	run_free(&r);

	/* Nothing after the failure ran. */
	r = run_shell("scan 't'\n");
	CHECK_STR(r.out,
		  "ROW                                      COLUMN+CELL\n"
		  " r                                       column=cf:a, "
		  "timestamp=1, value=v\n"
		  "1 row(s)\n");
	run_free(&r);
}

static void test_e2e_keep_going(void)
{
	fresh_dir("shell_keep_going");
	run r = run_shell_args("create 't', 'cf'\n"
			       "put 't', 'r', 'nofam:a', 'v'\n"
			       "scan 't', {LIMIT => 'x'\n"
			       "  , REVERSED => true}\n"
			       "put 't', 'r', 'cf:a', 'v', 9\n"
			       "get 't', 'r'\n",
			       "--keep-going");
	CHECK_INT(r.status, 1);
	CHECK_STR(
	    r.out,
	    "Created table t\n"
	    "=> Hbase::Table - t\n"
	    "COLUMN                                   CELL\n"
	    " cf:a                                    timestamp=9, value=v\n"
	    "1 row(s)\n");
	CHECK(strstr(r.err, "(line 2)\nERROR: LIMIT must be an integer, got "
			    "a string (line 3)\n") != NULL);
	run_free(&r);
}

static void test_e2e_error_messages(void)
{
	static const struct {
		const char *script;
		const char *err;
	} cases[] = {
	    {"frobnicate 't'\n",
	     "ERROR: unknown command 'frobnicate'; type 'help' for the "
	     "list of commands (line 1)\n"},
	    {"list\nput 't', 'r'\n",
	     "ERROR: wrong number of arguments for 'put' (given 2, "
	     "expected 4 to 5); usage: put 't1', 'r1', 'cf:q', "
	     "'value'[, ts] (line 2)\n"},
	    {"create 't', 'cf'\nscan 't',\n  {LIMIT => 'x'}\n",
	     "ERROR: LIMIT must be an integer, got a string (line 2)\n"},
	    {"scan 't', {LIMIT => 1,\n  STOPROW 'x'}\n",
	     "ERROR: syntax error at column 11: expected '=>' after hash "
	     "key, got ''' (line 2)\n"},
	    {"scan 't', {LIMITS => 1}\n",
	     "ERROR: scan: unknown option 'LIMITS' (known: STARTROW, "
	     "STOPROW, ROWPREFIXFILTER, LIMIT, REVERSED, COLUMN, COLUMNS, "
	     "VERSIONS, TIMERANGE, TIMESTAMP, FILTER, RAW, CACHE, BATCH, "
	     "CACHE_BLOCKS, FORMATTER, MAXLENGTH) (line 1)\n"},
	    {"create 'd', 'cf', SPLITS => ['b', 'a', 'b']\n",
	     "ERROR: split key 'b' is given twice (line 1)\n"},
	    {"create 'd', 'cf', NUMREGIONS => 4\n",
	     "ERROR: NUMREGIONS and SPLITALGO go together, e.g. "
	     "NUMREGIONS => 16, SPLITALGO => 'HexStringSplit' (line 1)\n"},
	    {"create 'd', 'cf', SPLIT_POLICY => 'FooPolicy'\n",
	     "ERROR: unknown SPLIT_POLICY 'FooPolicy' (known: "
	     "SteppingSplitPolicy, ConstantSizeRegionSplitPolicy, "
	     "IncreasingToUpperBoundRegionSplitPolicy, "
	     "KeyPrefixRegionSplitPolicy, "
	     "DelimitedKeyPrefixRegionSplitPolicy, "
	     "DisabledRegionSplitPolicy) (line 1)\n"},
	    {"create 'd', 'cf', FOO => 1\n",
	     "ERROR: unknown table attribute 'FOO' (line 1)\n"},
	    {"get 'd', 'r', {FORMATTER => 'toLong'}\n",
	     "ERROR: FORMATTER must be 'toString' or 'toStringBinary' (per "
	     "column: 'cf:q:toLong'), got 'toLong' (line 1)\n"},
	    {"create 't'\n",
	     "ERROR: create needs at least one column family, e.g. create "
	     "'t', 'cf' (line 1)\n"},
	    {"create 't', {NAME => 'cf', BLOOMFILTER => 'FOO'}\n",
	     "ERROR: BLOOMFILTER 'FOO' is not supported (use one of: "
	     "NONE, ROW, ROWCOL) (line 1)\n"},
	    {"create 't', {NAME => 'cf', COLOUR => 1}\n",
	     "ERROR: unknown column family attribute 'COLOUR' (line 1)\n"},
	    {"create 't', 'cf'\nscan 't', {ROWPREFIXFILTER => 1}\n",
	     "ERROR: ROWPREFIXFILTER must be a string, got an integer "
	     "(line 2)\n"},
	    {"get 'nosuch', 'r'\n",
	     "ERROR: table 'nosuch' does not exist (line 1)\n"},
	    {"put 't', 'r', 'c:q', \"open\n",
	     "ERROR: unexpected end of input: unclosed string, bracket or "
	     "trailing comma (line 1)\n"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		fresh_dir("shell_errmsg");
		run r = run_shell(cases[i].script);
		CHECK_INT(r.status, 1);
		CHECK_STR(r.err, cases[i].err);
		run_free(&r);
	}
}

static void test_e2e_filter_errors(void)
{
	fresh_dir("shell_filter");
	run r = run_shell("create 't', 'cf'\n"
			  "scan 't', {FILTER => \"PrefixFilter('a'\"}\n");
	CHECK_INT(r.status, 1);
	CHECK(strstr(r.err, "ERROR: FILTER: ") == r.err);
	CHECK(strstr(r.err, "(line 2)\n") != NULL);
	run_free(&r);
}

static void test_e2e_script_file_and_help(void)
{
	fresh_dir("shell_file");
	char script[4200], extra[4300];
	snprintf(script, sizeof script, "%s.hb", data_dir);
	FILE *f = fopen(script, "w");
	REQUIRE(f);
	fputs("create 't', 'cf'\nput 't', 'r', 'cf:q', 'v', 7\n"
	      "get 't', 'r'\n",
	      f);
	fclose(f);
	snprintf(extra, sizeof extra, "'%s'", script);
	run r = run_shell_args("", extra);
	CHECK_INT(r.status, 0);
	CHECK_STR(
	    r.out,
	    "Created table t\n"
	    "=> Hbase::Table - t\n"
	    "COLUMN                                   CELL\n"
	    " cf:q                                    timestamp=7, value=v\n"
	    "1 row(s)\n");
	run_free(&r);

	r = run_shell_args("", "--help");
	CHECK_INT(r.status, 0);
	CHECK(strstr(r.out, "usage: saltbox shell [--data DIR | --connect URL] "
			    "[--keep-going] [FILE]") == r.out);
	run_free(&r);

	r = run_shell_args("", "--bogus");
	CHECK_INT(r.status, 2);
	CHECK(strstr(r.err, "unknown option '--bogus'") != NULL);
	run_free(&r);

	r = run_shell("help\nhelp 'scan'\n");
	CHECK_INT(r.status, 0);
	CHECK(strstr(r.out, "  Group name: dml\n  Commands: put, get, scan, "
			    "count, delete, deleteall, incr, get_counter, "
			    "append\n") != NULL);
	CHECK(strstr(r.out, "  scan 't1'[, {STARTROW => 'a'") != NULL);
	run_free(&r);
}

/* ---- random statements: never crash, only ERROR lines ---------------------
 */

static uint64_t rng_state = 0x9E3779B97F4A7C15u;

static unsigned rnd(unsigned n)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (unsigned)(rng_state % n);
}

#define PICK(arr) (arr)[rnd(sizeof(arr) / sizeof *(arr))]

static void random_value(sbx_buf *b, int depth)
{
	static const char *const strs[] = {
	    "'t'",
	    "'t2'",
	    "'cf'",
	    "'cf2'",
	    "'cf:a'",
	    "'cf2:c:toLong'",
	    "'r1'",
	    "\"r\\x00\"",
	    "''",
	    "'ns:t'",
	    "'ns'",
	    "'delete'",
	    "\"PrefixFilter('r')\"",
	    "\"PageFilter(1) AND KeyOnlyFilter()\"",
	    "\"ValueFilter(=, 'binary:v'\"",
	    "'HexStringSplit'",
	    "'ROWCOL'",
	    "'TTL'",
	    "'cf:'",
	    "'bad name!'",
	    "'m'"};
	static const char *const nums[] = {"0",
					   "1",
					   "3",
					   "-1",
					   "100",
					   "1700000000000",
					   "9223372036854775807",
					   "-9223372036854775808"};
	static const char *const keys[] = {"NAME",
					   "VERSIONS",
					   "TTL",
					   "COLUMNS",
					   "LIMIT",
					   "STARTROW",
					   "STOPROW",
					   "REVERSED",
					   "RAW",
					   "FILTER",
					   "TIMERANGE",
					   "TIMESTAMP",
					   "SPLITS",
					   "METHOD",
					   "ROWPREFIXFILTER",
					   "BATCH",
					   "INTERVAL",
					   "MAXLENGTH",
					   "FORMATTER",
					   "NUMREGIONS",
					   "SPLITALGO",
					   "SPLIT_POLICY",
					   "MAX_FILESIZE",
					   "METADATA",
					   "BLOOMFILTER",
					   "KEEP_DELETED_CELLS",
					   "MIN_VERSIONS",
					   "IN_MEMORY",
					   "'delete'"};
	unsigned r = rnd(100);
	const char *lit = NULL;
	if (r < 45 || depth > 2)
		lit = PICK(strs);
	else if (r < 65)
		lit = PICK(nums);
	else if (r < 72)
		lit = rnd(2) ? "true" : "nil";
	if (lit) {
		sbx_buf_append(b, lit, strlen(lit));
		return;
	}
	bool hash = r >= 82;
	sbx_buf_push(b, hash ? '{' : '[');
	for (unsigned i = 0, n = rnd(4); i < n; i++) {
		if (i)
			sbx_buf_append(b, ", ", 2);
		if (hash) {
			const char *k = PICK(keys);
			sbx_buf_append(b, k, strlen(k));
			sbx_buf_append(b, " => ", 4);
		}
		random_value(b, depth + 1);
	}
	sbx_buf_push(b, hash ? '}' : ']');
}

static void test_e2e_random_statements(void)
{
	static const struct {
		const char *name;
		unsigned min, max;
	} cmds[] = {{"create", 1, 4},
		    {"alter", 1, 3},
		    {"describe", 1, 1},
		    {"list", 0, 1},
		    {"disable", 1, 1},
		    {"enable", 1, 1},
		    {"drop", 1, 1},
		    {"truncate", 1, 1},
		    {"put", 4, 5},
		    {"get", 2, 4},
		    {"scan", 1, 2},
		    {"count", 1, 2},
		    {"delete", 3, 4},
		    {"deleteall", 2, 4},
		    {"incr", 3, 4},
		    {"get_counter", 3, 3},
		    {"append", 4, 4},
		    {"flush", 1, 1},
		    {"major_compact", 1, 1},
		    {"split", 1, 2},
		    {"status", 0, 1},
		    {"drop_namespace", 1, 1},
		    {"list_namespace_tables", 1, 1},
		    {"get_splits", 1, 1},
		    {"list_regions", 1, 1}};
	static const char *const tables[] = {"'t'", "'t2'", "'ns:t'", "'ns'"};
	static const char *const noise[] = {"'",  "\"", "{",  "[",
					    "=>", ",",	"\\", "#"};
	sbx_buf script = {0};
	const char *setup = "create 't', 'cf', {NAME => 'cf2', VERSIONS => 3}\n"
			    "create_namespace 'ns'\ncreate 'ns:t', 'cf'\n";
	sbx_buf_append(&script, setup, strlen(setup));
	for (int i = 0; i < 400; i++) {
		sbx_buf line = {0};
		unsigned c = rnd(sizeof cmds / sizeof *cmds);
		unsigned n = cmds[c].min + rnd(cmds[c].max - cmds[c].min + 1);
		sbx_buf_append(&line, cmds[c].name, strlen(cmds[c].name));
		for (unsigned a = 0; a < n; a++) {
			sbx_buf_append(&line, a ? ", " : " ", a ? 2 : 1);
			if (a == 0) {
				const char *t = PICK(tables);
				sbx_buf_append(&line, t, strlen(t));
			} else {
				random_value(&line, 0);
			}
		}
		if (rnd(20) == 0) { /* break the syntax somewhere */
			const char *x = PICK(noise);
			size_t at = rnd((unsigned)line.len);
			sbx_buf_reserve(&line, strlen(x));
			memmove(line.data + at + strlen(x), line.data + at,
				line.len - at);
			memcpy(line.data + at, x, strlen(x));
			line.len += strlen(x);
		}
		sbx_buf_append(&script, line.data, line.len);
		sbx_buf_push(&script, '\n');
		sbx_buf_free(&line);
	}
	sbx_buf_push(&script, 0);
	fresh_dir("shell_random");
	run r = run_shell_args((const char *)script.data, "--keep-going");
	CHECK(r.status == 0 || r.status == 1);
	/* Every stderr line is a reported error, none a sanitizer's. */
	size_t bad = 0;
	for (char *l = r.err; *l;) {
		char *nl = strchr(l, '\n');
		if (strncmp(l, "ERROR: ", 7) && bad++ < 5)
			fprintf(stderr, "unexpected stderr: %.200s\n", l);
		l = nl ? nl + 1 : l + strlen(l);
	}
	CHECK_INT(bad, 0);
	run_free(&r);
	sbx_buf_free(&script);
}

/* Region names hold their creation time and an MD5 ("t,m,1795672787383.
 * b92c...c4a3."): each "," digits "." 32 hex "." becomes ",ID." so the
 * output can be written out. */
static char *mask_region_ids(char *s)
{
	char *w = s;
	for (char *p = s; *p;) {
		if (*p == ',' && p[1] >= '0' && p[1] <= '9') {
			char *q = p + 1;
			while (*q >= '0' && *q <= '9')
				q++;
			size_t hex = 0;
			if (*q == '.')
				while (hex < 32 && isxdigit((unsigned char)q[1 + hex]))
					hex++;
			if (*q == '.' && hex == 32 && q[33] == '.') {
				memcpy(w, ",ID.", 4);
				w += 4;
				p = q + 34;
				continue;
			}
		}
		*w++ = *p++;
	}
	*w = 0;
	return s;
}

/* Issue 18.14: status 'simple' and 'detailed' print what HBase's shell
 * prints (admin.rb's status): the master, each live server with its load,
 * the aggregate; in 'detailed' the version, regions in transition and
 * each server's regions with theirs. */
static void test_e2e_status_formats(void)
{
	fresh_dir("shell_status");
	run r = run_shell("create 't', 'cf', 'cg', SPLITS => ['m']\n"
			  "put 't', 'a', 'cf:q', 'v'\n"
			  "put 't', 'b', 'cf:q', 'v'\n"
			  "get 't', 'a'\n"
			  "status 'simple'\n"
			  "status 'detailed'\n"
			  "status\n"
			  "status 'summary'\n");
	CHECK_INT(r.status, 0);
	CHECK_STR(r.err, "");
	const char *idle = "        requestsPerSecond=0.0, "
			   "numberOfOnlineRegions=0, usedHeapMB=0, "
			   "maxHeapMB=0, numberOfStores=0, "
			   "numberOfStorefiles=0, storefileSizeMB=0, "
			   "memstoreSizeMB=0, readRequestsCount=0, "
			   "filteredReadRequestsCount=0, writeRequestsCount=0\n";
	const char *s0 = "        requestsPerSecond=0.0, "
			 "numberOfOnlineRegions=1, usedHeapMB=0, maxHeapMB=0, "
			 "numberOfStores=2, numberOfStorefiles=2, "
			 "storefileSizeMB=0, memstoreSizeMB=0, "
			 "readRequestsCount=1, filteredReadRequestsCount=0, "
			 "writeRequestsCount=2\n";
	const char *s1 = "        requestsPerSecond=0.0, "
			 "numberOfOnlineRegions=1, usedHeapMB=0, maxHeapMB=0, "
			 "numberOfStores=2, numberOfStorefiles=2, "
			 "storefileSizeMB=0, memstoreSizeMB=0, "
			 "readRequestsCount=0, filteredReadRequestsCount=0, "
			 "writeRequestsCount=0\n";
	char want[16384];
	snprintf(want, sizeof want,
		 "Created table t\n"
		 "=> Hbase::Table - t\n"
		 "COLUMN                                   CELL\n"
		 " cf:q                                    timestamp=%s, "
		 "value=v\n"
		 "1 row(s)\n"
		 /* simple */
		 "active master:  saltbox:16000 0\n"
		 "0 backup masters\n"
		 "4 live servers\n"
		 "    server-0:16020 0\n%s"
		 "    server-1:16020 0\n%s"
		 "    server-2:16020 0\n%s"
		 "    server-3:16020 0\n%s"
		 "0 dead servers\n"
		 "Aggregate load: 3, regions: 2\n"
		 /* detailed */
		 "version 2.5.0\n"
		 "0 regionsInTransition\n"
		 "active master:  saltbox:16000 0\n"
		 "0 backup masters\n"
		 "master coprocessors: []\n"
		 "4 live servers\n"
		 "    server-0:16020 0\n%s"
		 "        \"t,,ID.\"\n"
		 "            numberOfStores=2, numberOfStorefiles=2, "
		 "storefileSizeMB=0, memstoreSizeMB=0, readRequestsCount=1, "
		 "filteredReadRequestsCount=0, writeRequestsCount=2\n"
		 "    server-1:16020 0\n%s"
		 "        \"t,m,ID.\"\n"
		 "            numberOfStores=2, numberOfStorefiles=2, "
		 "storefileSizeMB=0, memstoreSizeMB=0, readRequestsCount=0, "
		 "filteredReadRequestsCount=0, writeRequestsCount=0\n"
		 "    server-2:16020 0\n%s"
		 "    server-3:16020 0\n%s"
		 "0 dead servers\n"
		 /* summary, with and without the argument */
		 "1 active master, 0 backup masters, 4 servers, 0 dead, "
		 "0.5000 average load\n"
		 "1 active master, 0 backup masters, 4 servers, 0 dead, "
		 "0.5000 average load\n",
		 "TS", s0, s1, idle, idle, s0, s1, idle, idle);
	/* the get's timestamp varies: mask it too */
	char *ts = strstr(r.out, "timestamp=");
	if (ts) {
		char *e = ts + 10;
		while (*e >= '0' && *e <= '9')
			e++;
		memmove(ts + 12, e, strlen(e) + 1);
		memcpy(ts + 10, "TS", 2);
	}
	CHECK_STR(mask_region_ids(r.out), want);
	run_free(&r);
}

/* Issue 18.14: list_regions keeps its columns aligned when keys and
 * region names are long; alter reports every region of the table. */
static void test_e2e_list_regions_and_alter(void)
{
	fresh_dir("shell_listregions");
	run r = run_shell("create 't', 'cf', SPLITS => ['m', "
			  "'a-rather-long-split-key-0123456789']\n"
			  "list_regions 't'\n"
			  "alter 't', {NAME => 'cf', VERSIONS => 3}\n");
	CHECK_INT(r.status, 0);
	CHECK_STR(r.err, "");
	/* header and the three rows: every '|' at the same column */
	char *lines[5] = {0};
	int nl = 0;
	char *p = strstr(r.out, " SERVER_NAME |");
	REQUIRE(p);
	while (p && nl < 5) {
		lines[nl++] = p;
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
	REQUIRE(nl == 5);
	CHECK(!strncmp(lines[4], " 3 rows\n", 8));
	size_t len0 = (size_t)(strchr(lines[0], '\n') - lines[0]);
	for (int k = 1; k < 4; k++) {
		size_t len = (size_t)(strchr(lines[k], '\n') - lines[k]);
		CHECK_INT((int)len, (int)len0);
		for (size_t c = 0; c < len0 && c < len; c++)
			if ((lines[0][c] == '|') != (lines[k][c] == '|')) {
				fprintf(stderr, "list_regions: row %d has its "
						"'|' elsewhere at column %zu:"
						"\n%.*s\n%.*s\n",
					k, c, (int)len0, lines[0], (int)len,
					lines[k]);
				check_failures++;
				break;
			}
	}
	CHECK(strstr(lines[0], " SERVER_NAME | REGION_NAME ") != NULL);
	CHECK(strstr(lines[0], "|                          START_KEY |"
			       "                            END_KEY |     SIZE |"
			       "      REQ |\n") != NULL);
	CHECK(strstr(lines[2], "| a-rather-long-split-key-0123456789 |"
			       "                                  m |        0 |"
			       "        0 |\n") != NULL);
	CHECK(strstr(mask_region_ids(r.out),
		     " 3 rows\n"
		     "Updating all regions with the new schema...\n"
		     "3/3 regions updated.\n"
		     "Done.\n") != NULL);
	run_free(&r);
}

/* The prompts a documentation block shows, in order: each must be the
 * shell's own, numbered from 001. Returns how many were checked. */
static int check_doc_prompts(const char *path)
{
	char *text = slurp(path);
	int checked = 0, n = 0;
	bool in_block = false;
	for (char *line = text; line && *line;) {
		char *nl = strchr(line, '\n');
		if (nl)
			*nl = 0;
		if (!strncmp(line, "```", 3)) {
			in_block = !in_block;
			n = 0;
		} else if (in_block && (!strncmp(line, "hbase", 5) ||
					!strncmp(line, "saltbox:", 8))) {
			char want[32];
			snprintf(want, sizeof want, "saltbox:%03d:0> ", ++n);
			if (strncmp(line, want, strlen(want))) {
				fprintf(stderr, "%s: prompt '%s', the shell's "
						"would be '%s'\n",
					path, line, want);
				check_failures++;
			}
			checked++;
		}
		line = nl ? nl + 1 : NULL;
	}
	free(text);
	return checked;
}

/* Issue 18.14: the prompt the README and docs show is the shell's: the
 * shell on a terminal (script(1) gives it one) prints saltbox:NNN:0> ,
 * and saltbox:NNN:1* inside an unfinished statement. */
static void test_e2e_prompt_matches_docs(void)
{
	const char *src = getenv("SBX_SOURCE_DIR");
	REQUIRE(src);
	char path[4200];
	snprintf(path, sizeof path, "%s/README.md", src);
	CHECK(check_doc_prompts(path) >= 6);
	snprintf(path, sizeof path, "%s/docs/transactions.md", src);
	CHECK(check_doc_prompts(path) >= 5);
	if (system("command -v script >/dev/null 2>&1") != 0) {
		printf("skip: the interactive prompt needs script(1)\n");
		return;
	}
	fresh_dir("shell_prompt");
	char cmd[16384];
	snprintf(cmd, sizeof cmd,
		 "printf \"list\\nput 't',\\n'r'\\nexit\\n\" | timeout 60 "
		 "script -qec \"'%s' shell --data '%s'\" /dev/null > '%s.tty'",
		 getenv("SBX_SALTBOX"), data_dir, data_dir);
	CHECK_INT(system(cmd), 0);
	snprintf(path, sizeof path, "%s.tty", data_dir);
	char *out = slurp(path);
	CHECK(strstr(out, "\nsaltbox:001:0> list\r\n") != NULL);
	CHECK(strstr(out, "\nsaltbox:002:0> put 't',\r\nsaltbox:002:1* 'r'") !=
	      NULL);
	CHECK(strstr(out, "\nsaltbox:003:0> exit") != NULL);
	free(out);
}

/* Issue 18.14: `saltbox --help` keeps the summaries in one column; an
 * unknown command or verb is named as such everywhere. */
static void test_cli_help_and_unknown(void)
{
	const char *bin = getenv("SBX_SALTBOX");
	REQUIRE(bin);
	char cmd[16384], out[4200];
	snprintf(out, sizeof out, "%s.help", test_dir("cli_help"));
	snprintf(cmd, sizeof cmd, "'%s' --help > '%s' 2>&1", bin, out);
	CHECK_INT(system(cmd), 0);
	char *text = slurp(out);
	CHECK(strstr(text, "\n  completebulkload  load store files into a "
			   "table (HBase's)\n") != NULL);
	CHECK(strstr(text, "\n  shell             HBase-shell-compatible") !=
	      NULL);
	CHECK(strstr(text, "\n  import            cells from TSV") != NULL);
	free(text);
	static const struct {
		const char *args, *want;
	} cases[] = {
	    {"foo", "saltbox: unknown command 'foo'\n"},
	    {"key frob", "saltbox key: unknown verb 'frob' (explain, encode, "
			 "decode, lint, plan)\n"},
	    {"regions foo", "saltbox regions: unknown verb 'foo' (list, stats, "
			    "split, merge, export-splits)\n"},
	    {"keyviz foo", "saltbox keyviz: unknown verb 'foo'"},
	    {"txn foo", "saltbox txn: unknown verb 'foo' (prepare, locks, "
			"resolve, bank)\n"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		snprintf(cmd, sizeof cmd, "'%s' %s > '%s' 2>&1", bin,
			 cases[i].args, out);
		int st = system(cmd);
		CHECK_INT(WIFEXITED(st) ? WEXITSTATUS(st) : -1, 2);
		text = slurp(out);
		if (!strstr(text, cases[i].want)) {
			fprintf(stderr, "saltbox %s: want '%s' in:\n%s\n",
				cases[i].args, cases[i].want, text);
			check_failures++;
		}
		free(text);
	}
}

TEST_MAIN(T(test_parse_basic), T(test_parse_quoting), T(test_parse_numbers),
	  T(test_parse_hashes_arrays), T(test_parse_incomplete),
	  T(test_parse_errors), T(test_binary_format),
	  T(test_e2e_create_put_get_scan), T(test_e2e_timing_line),
	  T(test_e2e_binary_keys), T(test_e2e_delete_is_delete_column),
	  T(test_e2e_scan_options), T(test_e2e_get_options), T(test_e2e_schema),
	  T(test_e2e_regions), T(test_e2e_formatters), T(test_e2e_snapshots),
	  T(test_e2e_namespaces),
	  T(test_e2e_maintenance), T(test_e2e_counters),
	  T(test_e2e_stops_at_first_error), T(test_e2e_keep_going),
	  T(test_e2e_error_messages), T(test_e2e_filter_errors),
	  T(test_e2e_random_statements), T(test_e2e_script_file_and_help),
	  T(test_e2e_status_formats), T(test_e2e_list_regions_and_alter),
	  T(test_e2e_prompt_matches_docs), T(test_cli_help_and_unknown))
