/*
 * test_rowkey_cli.c - `saltbox key ...` run as a user would (the binary in
 * $SBX_SALTBOX): encode/decode the seed keys, explain and plan as text and
 * JSON, lint exit codes, design files with several designs, and errors.
 */
#include "cli_util.h"

#include <jansson.h>
#include <stdbool.h>

/* Run `saltbox key ARGS`. */
static int run(const char *args)
{
	char cmd[16384];
	snprintf(cmd, sizeof cmd, "key %s", args);
	return run_saltbox(cmd);
}

#define SEED002                                                              \
	"'md5(message_id) + \":\" + date:str(6) + \":\" + time:str(6) + "     \
	"\":\" + message_id:dec'"

static void test_encode_decode(void)
{
	CHECK_INT(run("encode " SEED002 " message_id=1231231 date=230611 "
		      "time=063031"), 0);
	CHECK_OUT("key:    8D4646EB2D7067126EB08ADB0672F7BB:230611:063031:"
		  "1231231\n");
	CHECK_OUT("length: 54 bytes\n");
	CHECK_INT(run("encode --hex 'user_id:str(4) + ts:rts64' user_id=u1 "
		      "ts=0"), 0);
	CHECK_STR(cli_out, "753100007fffffffffffffff\n");
	CHECK_INT(run("decode " SEED002 " "
		      "8D4646EB2D7067126EB08ADB0672F7BB:230611:063031:1231231"),
		  0);
	CHECK_STR(cli_out, "md5              8D4646EB2D7067126EB08ADB0672F7BB\n"
		       "date             230611\n"
		       "time             063031\n"
		       "message_id       1231231\n");
	CHECK_INT(run("decode 'user_id:str(4) + ts:rts64' "
		      "'u1\\x00\\x00\\x7F\\xFF\\xFF\\xFF\\xFF\\xFF\\xFF\\xFE'"),
		  0);
	CHECK_OUT("ts               1\n");
	CHECK_INT(run("decode --hex --json 'user_id:str(4) + ts:rts64' "
		      "753100007ffffffffffffffe"), 0);
	json_error_t err;
	json_t *j = json_loads(cli_out, 0, &err);
	REQUIRE(j);
	json_t *f = json_array_get(json_object_get(j, "fields"), 0);
	CHECK_STR(json_string_value(json_object_get(f, "value")), "u1");
	json_decref(j);
	/* a bad value is an error on stderr, with the field named */
	CHECK_INT(run("encode 'id:str(4)' id=toolong"), 1);
	CHECK_OUT("field 'id'");
	CHECK_OUT("fixed width is 4");
}

static void test_explain_json(void)
{
	CHECK_INT(run("explain --json 'pc = product_id:str(10) + \"c\" + "
		      "ts:rts64 + content_len:rlen32'"), 0);
	json_error_t err;
	json_t *j = json_loads(cli_out, 0, &err);
	REQUIRE(j);
	CHECK_STR(json_string_value(json_object_get(j, "name")), "pc");
	json_t *len = json_object_get(j, "length");
	CHECK_INT(json_integer_value(json_object_get(len, "min")), 23);
	CHECK(json_is_true(json_object_get(len, "fixed_width")));
	json_t *ts = json_array_get(json_object_get(j, "elements"), 2);
	CHECK_STR(json_string_value(json_object_get(ts, "order")), "desc");
	CHECK_INT(json_integer_value(json_object_get(ts, "offset")), 11);
	json_decref(j);
	CHECK_INT(run("explain 'salt(16) + id:u64'"), 0);
	CHECK_OUT("length: 9 bytes, fixed width");
	CHECK_OUT("salt:   16 buckets");
}

static void test_lint_exit_codes(void)
{
	CHECK_INT(run("lint 'date:str(6) + \":\" + id:u32'"), 0);
	CHECK_OUT("warning [monotonic-leading-field]");
	CHECK_OUT("\"HBase Row Key Design\" (the chat-message key article)");
	CHECK(!strstr(cli_out, "seed 0"));
	CHECK_INT(run("lint --strict 'date:str(6) + \":\" + id:u32'"), 1);
	CHECK_INT(run("lint --strict 'user_id:u64 + ts:ts64'"), 0);
	CHECK_STR(cli_out, "key: no findings\n");
	CHECK_INT(run("lint --json 'user_id:str(10) + ts:rts64'"), 0);
	json_error_t err;
	json_t *j = json_loads(cli_out, 0, &err);
	REQUIRE(j);
	json_t *fs = json_object_get(json_array_get(j, 0), "findings");
	bool found = false;
	for (size_t i = 0; i < json_array_size(fs); i++)
		found = found ||
			!strcmp(json_string_value(json_object_get(
					json_array_get(fs, i), "rule")),
				"reverse-timestamp");
	CHECK(found);
	json_decref(j);
}

static void test_file_and_plan(void)
{
	const char *dir = test_dir("rowkey_cli");
	mkdir(dir, 0755);
	char path[4200], args[8192];
	snprintf(path, sizeof path, "%s/keys.design", dir);
	FILE *fp = fopen(path, "w");
	REQUIRE(fp);
	fputs("# seed 003\n"
	      "user_comment = user_id:str(4) + ts:rts64\n"
	      "salted = salt(4) + user_id:str(2)\n"
	      "         + ts:ts64 with scan(ts)\n",
	      fp);
	fclose(fp);
	snprintf(args, sizeof args, "plan -f '%s' -n user_comment user_id=u1 "
				    "'ts>=1000' 'ts<2000'", path);
	CHECK_INT(run(args), 0);
	CHECK_OUT("design user_comment: 1 range\n");
	CHECK_OUT("-       u1\\x00\\x00\\x7F\\xFF\\xFF\\xFF\\xFF\\xFF\\xF8"
		  "0 ");
	CHECK_OUT(" u1\\x00\\x00\\x7F\\xFF\\xFF\\xFF\\xFF\\xFF\\xFC\\x18\n");
	snprintf(args, sizeof args, "plan --json -f '%s' -n salted user_id=ab",
		 path);
	CHECK_INT(run(args), 0);
	json_error_t err;
	json_t *j = json_loads(cli_out, 0, &err);
	REQUIRE(j);
	CHECK_INT(json_integer_value(json_object_get(j, "salt_len")), 1);
	json_t *rs = json_object_get(j, "ranges");
	CHECK_INT(json_array_size(rs), 4);
	json_t *r3 = json_array_get(rs, 3);
	CHECK_INT(json_integer_value(json_object_get(r3, "bucket")), 3);
	CHECK_STR(json_string_value(json_object_get(
			  json_object_get(r3, "start"), "hex")), "036162");
	json_t *rev = json_object_get(r3, "reversed");
	CHECK_STR(json_string_value(json_object_get(
			  json_object_get(rev, "start"), "hex")), "036163");
	CHECK(json_is_false(json_object_get(json_object_get(rev, "start"),
					    "inclusive")));
	json_decref(j);
	/* several designs: explain and lint take them all, encode needs -n */
	snprintf(args, sizeof args, "explain -f '%s'", path);
	CHECK_INT(run(args), 0);
	CHECK_OUT("design user_comment");
	CHECK_OUT("design salted");
	snprintf(args, sizeof args, "encode -f '%s' user_id=u1 ts=1", path);
	CHECK_INT(run(args), 1);
	CHECK_OUT("--name");
	snprintf(args, sizeof args, "lint -f '%s'", path);
	CHECK_INT(run(args), 0);
	CHECK_OUT("salted: warning [prefix-breaks-range-scan]");
	snprintf(args, sizeof args, "plan -f '%s' -n nope", path);
	CHECK_INT(run(args), 1);
	CHECK_OUT("no design named 'nope'");
}

static void test_errors_and_help(void)
{
	CHECK_INT(run("--help"), 0);
	CHECK_OUT("usage: saltbox key <verb>");
	CHECK_INT(run("explain 'a = x:u8\nb = y:nope'"), 1);
	CHECK_OUT("line 2, column 7: unknown type 'nope'");
	CHECK_INT(run("frobnicate 'x:u8'"), 2);
	CHECK_OUT("unknown verb");
	CHECK_INT(run("encode"), 2);
	CHECK_INT(run("explain -f /nonexistent/keys.design"), 1);
	CHECK_OUT("cannot read design file");
	CHECK_INT(run("plan 'a:u8 + b:u8' b=1"), 1);
	CHECK_OUT("'a' comes before it");
	CHECK_INT(run("decode 'a:u8' '\\x0'"), 1);
	CHECK_OUT("bad KEY");
	CHECK_INT(run("encode 'a:u8' a"), 1);
	CHECK_OUT("not FIELD=VALUE");
}

/* Issue 18.14: a verb is checked before the design is asked for; the
 * order flag is given once; explain's columns fit their widest cell. */
static void test_shell_habits(void)
{
	CHECK_INT(run("frob"), 2);
	CHECK_OUT("saltbox key: unknown verb 'frob' (explain, encode, decode, "
		  "lint, plan)\n");
	CHECK_INT(run("explain 'x:u8 desc desc'"), 1);
	CHECK_OUT("line 1, column 11: 'desc': the order of a field is given "
		  "once (asc or desc)");
	CHECK_INT(run("explain 'x:u8 asc desc'"), 1);
	CHECK_OUT("the order of a field is given once");
	CHECK_INT(run("explain 'x:u64 mono mono'"), 1);
	CHECK_OUT("flag 'mono' is given twice");
	CHECK_INT(run("explain 'k = user:str + averyveryverylongelementname:"
		      "bytes + ts:u64 desc'"),
		  0);
	CHECK_OUT("design k\n"
		  "  k = user:str + averyveryverylongelementname:bytes + "
		  "ts:u64 desc\n"
		  "\n"
		  "  # element                      type  bytes        offset "
		  "order layout\n"
		  "  1 user                         str   2..unbounded 0      "
		  "asc   00 escaped as 00 FF, terminator 00 01\n"
		  "  2 averyveryverylongelementname bytes 2..unbounded var    "
		  "asc   00 escaped as 00 FF, terminator 00 01\n"
		  "  3 ts                           u64   8            var    "
		  "desc  big-endian unsigned, inverted (desc)\n");
}

TEST_MAIN(T(test_shell_habits), T(test_encode_decode), T(test_explain_json), T(test_lint_exit_codes),
	  T(test_file_and_plan), T(test_errors_and_help))
