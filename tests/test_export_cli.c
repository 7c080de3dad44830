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

/* The first line of file `path` is `want`. */
static void f_first_line_is(const char *path, const char *want)
{
	char line[4096] = "";
	FILE *f = fopen(path, "r");
	CHECK(f != NULL);
	if (f) {
		if (!fgets(line, sizeof line, f))
			line[0] = 0;
		fclose(f);
	}
	CHECK_STR(line, want);
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
	CHECK_INT(run_saltbox(args), 1); /* lines were rejected */
	CHECK_OUT("3 lines, 2 bad lines, 1 mutations");
	CHECK_OUT("bad line 3: malformed JSON");
	CHECK_OUT("saltbox import: 2 of 3 lines rejected (--skip-bad imports "
		  "the rest and exits 0)");
	CHECK_STR(dump(data, "json"), "a/q@3=v;");
	snprintf(args, sizeof args,
		 "import --data '%s' --format json --skip-bad json '%s'", data,
		 file);
	CHECK_INT(run_saltbox(args), 0);
	CHECK_OUT("3 lines, 2 bad lines, 1 mutations");
	CHECK(strstr(cli_out, "rejected") == NULL);

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

/* Issue 18.12: ten lines, ten bad: not a success. */
static void test_all_rejected_fails(void)
{
	char data[4096], file[4200], args[16384];
	snprintf(data, sizeof data, "%s", test_dir("exportcli_allbad"));
	setup(data);
	snprintf(file, sizeof file, "%s.in", data);
	FILE *f = fopen(file, "w");
	REQUIRE(f);
	for (int i = 0; i < 10; i++)
		fprintf(f, "row%d,cf:q,1,v\n", i); /* commas, not tabs */
	fclose(f);
	snprintf(args, sizeof args, "import --data '%s' tsv '%s'", data, file);
	CHECK_INT(run_saltbox(args), 1);
	CHECK_OUT("import: 10 lines, 10 bad lines, 0 mutations\n"
		  "saltbox import: 10 of 10 lines rejected (--skip-bad imports "
		  "the rest and exits 0)\n");
	snprintf(args, sizeof args, "import --data '%s' --skip-bad tsv '%s'",
		 data, file);
	CHECK_INT(run_saltbox(args), 0);
	CHECK_STR(dump(data, "tsv"), "");
}

/* Issue 18.12: export writes the schema first; import --create makes the
 * table from it (families and their attributes), a missing table without
 * --create says how. */
static void test_import_create(void)
{
	char data[4096], file[4200], args[16384];
	snprintf(data, sizeof data, "%s", test_dir("exportcli_create"));
	setup(data);
	const char *fmts[] = {"tsv", "json"};
	for (int i = 0; i < 2; i++) {
		snprintf(file, sizeof file, "%s.%s", data, fmts[i]);
		snprintf(args, sizeof args,
			 "export --data '%s' --format %s --versions 3 src '%s'",
			 data, fmts[i], file);
		CHECK_INT(run_saltbox(args), 0);
		f_first_line_is(file, "#saltbox-schema\t{\"name\":\"src\","
				      "\"ColumnSchema\":[{\"name\":\"cf\","
				      "\"VERSIONS\":\"3\"}]}\n");
		snprintf(args, sizeof args,
			 "import --data '%s' --format %s copy_%s '%s'", data,
			 fmts[i], fmts[i], file);
		CHECK_INT(run_saltbox(args), 1);
		CHECK_OUT("table 'copy_");
		CHECK_OUT("does not exist (--create makes it from the "
			  "export's schema)");
		snprintf(args, sizeof args,
			 "import --data '%s' --format %s --create copy_%s '%s'",
			 data, fmts[i], fmts[i], file);
		CHECK_INT(run_saltbox(args), 0);
		CHECK_OUT("import: created table 'copy_");
		CHECK_OUT("' with 1 family\n");
		CHECK_OUT(i ? "import: 4 lines, 0 bad lines, 3 mutations"
			    : "import: 5 lines, 0 bad lines, 4 mutations");
		char copy[32];
		snprintf(copy, sizeof copy, "copy_%s", fmts[i]);
		CHECK_STR(dump(data, copy), dump(data, "src"));
		sbx_db *db;
		REQUIRE(sbx_db_open(&db, data, NULL) == SBX_OK);
		sbx_table_info *info;
		REQUIRE(sbx_table_describe(&info, db, copy) == SBX_OK);
		CHECK_INT((int)info->nfamilies, 1);
		CHECK_STR(info->families[0].name, "cf");
		CHECK_INT(info->families[0].max_versions, 3);
		sbx_table_info_free(info);
		sbx_db_close(db);
		/* again into the table now there: imported, not re-created */
		CHECK_INT(run_saltbox(args), 0);
		CHECK(strstr(cli_out, "created table") == NULL);
	}
	/* --create on a file without the schema line */
	snprintf(file, sizeof file, "%s.noschema", data);
	FILE *f = fopen(file, "w");
	REQUIRE(f);
	fputs("r\tcf:q\t1\tv\n", f);
	fclose(f);
	snprintf(args, sizeof args, "import --data '%s' --create fresh '%s'",
		 data, file);
	CHECK_INT(run_saltbox(args), 1);
	CHECK_OUT("has no schema line");
}

/* Issue 18.12: the README's export/import example, run verbatim in a
 * directory laid out as the README assumes (./build/saltbox, and a
 * ./saltbox-data holding 'messages'). */
static void test_readme_example(void)
{
	const char *src = getenv("SBX_SOURCE_DIR");
	REQUIRE(src);
	char path[4200], dir[4096], cmd[16384];
	snprintf(path, sizeof path, "%s/README.md", src);
	FILE *f = fopen(path, "r");
	REQUIRE(f);
	static char readme[1 << 17];
	size_t n = fread(readme, 1, sizeof readme - 1, f);
	readme[n] = 0;
	fclose(f);
	const char *intro = strstr(readme, "`saltbox export` and `saltbox "
					   "import` move");
	REQUIRE(intro);
	const char *open = strstr(intro, "```sh\n");
	REQUIRE(open);
	open += 6;
	const char *close = strstr(open, "```");
	REQUIRE(close);
	char block[4096];
	snprintf(block, sizeof block, "%.*s", (int)(close - open), open);
	CHECK(strstr(block, "saltbox export") != NULL);
	CHECK(strstr(block, "saltbox import") != NULL);

	snprintf(dir, sizeof dir, "%s", test_dir("readme_export"));
	snprintf(cmd, sizeof cmd,
		 "rm -rf '%s' && mkdir -p '%s/build' && ln -s '%s' "
		 "'%s/build/saltbox'",
		 dir, dir, getenv("SBX_SALTBOX"), dir);
	REQUIRE(system(cmd) == 0);
	snprintf(path, sizeof path, "%s/saltbox-data", dir);
	sbx_db *db;
	REQUIRE(sbx_db_open(&db, path, NULL) == SBX_OK);
	sbx_family_desc fam;
	sbx_family_desc_init(&fam, "m");
	fam.max_versions = 3;
	CHECK_INT(sbx_table_create(db, "messages", &fam, 1), SBX_OK);
	sbx_table *t;
	REQUIRE(sbx_table_open(&t, db, "messages") == SBX_OK);
	const char *rows[] = {"user1", "user2"};
	for (int i = 0; i < 2; i++) {
		sbx_mutation *m;
		CHECK_INT(sbx_mutation_new(&m, rows[i], 5), SBX_OK);
		CHECK_INT(sbx_mutation_put(m, "m", "text", 4, 100 + i, "hi", 2),
			  SBX_OK);
		CHECK_INT(sbx_mutation_put(m, "m", "text", 4, 200 + i, "hello",
					   5),
			  SBX_OK);
		CHECK_INT(sbx_table_mutate(NULL, t, m), SBX_OK);
		sbx_mutation_free(m);
	}
	sbx_table_close(t);
	sbx_db_close(db);
	/* the block as written, each command must succeed */
	snprintf(path, sizeof path, "%s/block.sh", dir);
	f = fopen(path, "w");
	REQUIRE(f);
	fputs(block, f);
	fclose(f);
	snprintf(cmd, sizeof cmd, "cd '%s' && sh -e block.sh 2>&1", dir);
	CHECK_INT(system(cmd), 0);
	snprintf(path, sizeof path, "%s/saltbox-data", dir);
	char want[4096];
	snprintf(want, sizeof want, "%s", dump(path, "messages"));
	CHECK_STR(want, "user1/text@200=hello;user1/text@100=hi;"
			"user2/text@201=hello;user2/text@101=hi;");
	CHECK_STR(dump(path, "messages_copy"), want);
}

TEST_MAIN(T(test_round_trips), T(test_bad_lines_and_options),
	  T(test_all_rejected_fails), T(test_import_create),
	  T(test_readme_example))
