/*
 * test_export_cli.c - `saltbox export` and `saltbox import`: a table with
 * binary rows, qualifiers and values (zero bytes, tabs, newlines,
 * backslashes) and several versions goes out as TSV and as JSON CellSets
 * and comes back into another table cell for cell; bad lines are counted
 * and skipped; bad options are refused.
 */
#include "check.h"
#include "cli_util.h"

#include "common/buf.h"
#include "saltbox.h"

static void put(sbx_table *t, const char *row, size_t rl, const char *q,
		size_t ql, int64_t ts, const char *v, size_t vl)
{
	sbx_mutation *m;
	CHECK_INT(sbx_mutation_new(&m, row, rl), SBX_OK);
	CHECK_INT(sbx_mutation_put(m, "cf", q, ql, ts, v, vl), SBX_OK);
	CHECK_INT(sbx_table_mutate(NULL, t, m), SBX_OK);
	sbx_mutation_free(m);
}

/* Every cell of `table` (all versions) as printable text. */
static const char *dump(const char *data, const char *table)
{
	static char out[4096];
	out[0] = 0;
	sbx_db *db;
	if (sbx_db_open(&db, data, NULL))
		return "ERR open";
	sbx_table *t;
	if (sbx_table_open(&t, db, table)) {
		sbx_db_close(db);
		return "ERR table";
	}
	sbx_scan_opts o;
	sbx_scan_opts_init(&o);
	o.read.max_versions = 10;
	sbx_scanner *s;
	sbx_result *r;
	if (!sbx_scanner_open(&s, t, &o)) {
		while (sbx_scanner_next(s, &r) == SBX_OK) {
			size_t n;
			const sbx_cell *c = sbx_result_cells(r, &n);
			for (size_t i = 0; i < n; i++) {
				sbx_buf b = {0};
				sbx_key_to_binary_string(&b, c[i].row,
							 c[i].row_len);
				sbx_buf_printf(&b, "/");
				sbx_key_to_binary_string(&b, c[i].qualifier,
							 c[i].qualifier_len);
				sbx_buf_printf(&b, "@%lld=",
					       (long long)c[i].timestamp);
				sbx_key_to_binary_string(&b, c[i].value,
							 c[i].value_len);
				sbx_buf_printf(&b, ";");
				strncat(out, (char *)b.data,
					sizeof out - strlen(out) - 1);
				sbx_buf_free(&b);
			}
			sbx_result_free(r);
		}
		sbx_scanner_close(s);
	}
	sbx_table_close(t);
	sbx_db_close(db);
	return out;
}

static void setup(const char *data)
{
	char cmd[8192];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", data);
	CHECK_INT(system(cmd), 0);
	sbx_db *db;
	REQUIRE(sbx_db_open(&db, data, NULL) == SBX_OK);
	sbx_family_desc f;
	sbx_family_desc_init(&f, "cf");
	f.max_versions = 3;
	const char *names[] = {"src", "tsv", "json"};
	for (int i = 0; i < 3; i++)
		CHECK_INT(sbx_table_create(db, names[i], &f, 1), SBX_OK);
	sbx_table *t;
	REQUIRE(sbx_table_open(&t, db, "src") == SBX_OK);
	put(t, "r1", 2, "a", 1, 5, "v1", 2);
	put(t, "r1", 2, "a", 1, 6, "v2", 2);
	put(t, "r\0\t\\x", 5, "q\n", 2, 7, "tab\tnl\n\\x00", 11);
	put(t, "r2", 2, "", 0, 8, "", 0);
	sbx_table_close(t);
	sbx_db_close(db);
}

static void test_round_trips(void)
{
	char data[4096], file[4200], args[16384];
	snprintf(data, sizeof data, "%s", test_dir("exportcli"));
	setup(data);
	/* HBase's order: "r\0..." sorts before "r1" */
	const char *want = "r\\x00\\x09\\x5Cx/q\\x0A@7=tab\\x09nl\\x0A\\x5Cx00;"
			   "r1/a@6=v2;r1/a@5=v1;r2/@8=;";
	CHECK_STR(dump(data, "src"), want);
	const char *fmts[] = {"tsv", "json"};
	for (int i = 0; i < 2; i++) {
		snprintf(file, sizeof file, "%s.%s", data, fmts[i]);
		snprintf(args, sizeof args,
			 "export --data '%s' --format %s --versions 3 src '%s'",
			 data, fmts[i], file);
		CHECK_INT(run_saltbox(args), 0);
		CHECK_OUT("export: 3 rows, 4 cells");
		snprintf(args, sizeof args,
			 "import --data '%s' --format %s %s '%s'", data,
			 fmts[i], fmts[i], file);
		CHECK_INT(run_saltbox(args), 0);
		CHECK_OUT("0 bad lines");
		CHECK_STR(dump(data, fmts[i]), want);
	}
	/* the TSV as written, one cell per line */
	snprintf(args, sizeof args, "export --data '%s' src", data);
	CHECK_INT(run_saltbox(args), 0);
	CHECK_OUT("r1\tcf:a\t6\tv2\n");
	CHECK_OUT("r2\tcf:\t8\t\n");
	CHECK_OUT("r\\x00\\x09\\x5Cx\tcf:q\\x0A\t7\ttab\\x09nl\\x0A\\x5Cx00\n");
	CHECK(strstr(cli_out, "\tv1\n") == NULL); /* one version by default */
}

static void test_bad_lines_and_options(void)
{
	char data[4096], file[4200], args[16384];
	snprintf(data, sizeof data, "%s", test_dir("exportcli_bad"));
	setup(data);
	snprintf(file, sizeof file, "%s.in", data);
	FILE *f = fopen(file, "w");
	REQUIRE(f);
	fputs("ok\tcf:q\t1\tv\n"
	      "short\tcf:q\t1\n"
	      "\tcf:q\t1\tempty row\n"
	      "x\tnofamily\t1\tv\n"
	      "x\tcf:q\tnot-a-ts\tv\n"
	      "x\tcf:q\t-4\tv\n"
	      "x\tcf:q\t1\tv\textra\n"
	      "ok2\tzz:q\t1\tunknown family\n"
	      "ok3\tcf:q\t2\tw\n",
	      f);
	fclose(f);
	snprintf(args, sizeof args, "import --data '%s' tsv '%s'", data, file);
	CHECK_INT(run_saltbox(args), 1); /* the unknown family stops it */
	CHECK_OUT("bad line 2: fewer than 4 fields");
	CHECK_OUT("bad line 3: bad row");
	CHECK_OUT("bad line 4: bad family:qualifier");
	CHECK_OUT("bad line 5: bad timestamp");
	CHECK_OUT("bad line 6: bad timestamp");
	CHECK_OUT("bad line 7: more than 4 fields");
	CHECK_OUT("line 8: table 'tsv' has no family 'zz'");
	CHECK_STR(dump(data, "tsv"), "ok/q@1=v;");
	f = fopen(file, "w");
	REQUIRE(f);
	fputs("{\"Row\":[{\"key\":\"YQ==\",\"Cell\":[{\"column\":\"Y2Y6cQ==\","
	      "\"timestamp\":3,\"$\":\"dg==\"}]}]}\n"
	      "{\"Row\":[{\"Cell\":[]}]}\n"
	      "not json\n",
	      f);
	fclose(f);
	snprintf(args, sizeof args, "import --data '%s' --format json json '%s'",
		 data, file);
	CHECK_INT(run_saltbox(args), 0);
	CHECK_OUT("3 lines, 2 bad lines, 1 mutations");
	CHECK_OUT("bad line 3: malformed JSON");
	CHECK_STR(dump(data, "json"), "a/q@3=v;");

	snprintf(args, sizeof args, "export --data '%s' --format xml src", data);
	CHECK_INT(run_saltbox(args), 2);
	CHECK_OUT("--format is tsv or json");
	snprintf(args, sizeof args, "export --data '%s' nope", data);
	CHECK_INT(run_saltbox(args), 1);
	CHECK_OUT("does not exist");
	CHECK_INT(run_saltbox("export --help"), 0);
	CHECK_OUT("usage: saltbox export");
	CHECK_INT(run_saltbox("import --help"), 0);
	CHECK_INT(run_saltbox("import"), 2);
}

TEST_MAIN(T(test_round_trips), T(test_bad_lines_and_options))
