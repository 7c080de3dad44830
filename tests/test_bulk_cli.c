/*
 * test_bulk_cli.c - `saltbox importtsv` (puts, or store files with
 * importtsv.bulk.output) and `saltbox completebulkload`, run as a user
 * would: the rows read back in order, a later line wins at the same cell,
 * bad lines are counted and skipped, and bad options are refused.
 */
#include "check.h"
#include "cli_util.h"

#include "saltbox.h"

/* The rows of table `users`, one "row=name@ts;" each. */
static const char *dump(const char *data)
{
	static char out[1024];
	out[0] = 0;
	sbx_db *db;
	if (sbx_db_open(&db, data, NULL))
		return "ERR open";
	sbx_table *t;
	if (sbx_table_open(&t, db, "users")) {
		sbx_db_close(db);
		return "ERR table";
	}
	sbx_scanner *s;
	sbx_result *r;
	if (!sbx_scanner_open(&s, t, NULL)) {
		while (sbx_scanner_next(s, &r) == SBX_OK) {
			size_t n;
			const sbx_cell *c = sbx_result_cells(r, &n);
			for (size_t i = 0; i < n; i++) {
				char cell[128];
				snprintf(cell, sizeof cell, "%.*s=%.*s@%lld;",
					 (int)c[i].row_len, (const char *)c[i].row,
					 (int)c[i].value_len,
					 (const char *)c[i].value,
					 (long long)c[i].timestamp);
				strncat(out, cell, sizeof out - strlen(out) - 1);
			}
			sbx_result_free(r);
		}
		sbx_scanner_close(s);
	}
	sbx_table_close(t);
	sbx_db_close(db);
	return out;
}

static void setup(const char *data, const char *tsv)
{
	char cmd[8192];
	snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", data, data);
	CHECK_INT(system(cmd), 0);
	sbx_db *db;
	REQUIRE(sbx_db_open(&db, data, NULL) == SBX_OK);
	sbx_family_desc f;
	sbx_family_desc_init(&f, "p");
	CHECK_INT(sbx_table_create(db, "users", &f, 1), SBX_OK);
	sbx_db_close(db);
	FILE *in = fopen(tsv, "w");
	REQUIRE(in);
	fputs("u3\tCarol\t30\nu1\tAlice\t10\nbad\x01line\xff\\\nu2\tBob\t20\n"
	      "u1\tAlicia\t10\n\tnokey\t5\nu4\tDan\tlater\n",
	      in);
	fclose(in);
}

static void test_importtsv_bulk_and_puts(void)
{
	char data[4096], tsv[4200], out[4200], args[16384];
	snprintf(data, sizeof data, "%s", test_dir("bulkcli"));
	snprintf(tsv, sizeof tsv, "%s.tsv", data);
	snprintf(out, sizeof out, "%s.out", data);
	const char *expect = "u1=Alicia@10;u2=Bob@20;u3=Carol@30;";

	/* store files, then completebulkload */
	setup(data, tsv);
	snprintf(args, sizeof args, "rm -rf '%s'", out); /* from a rerun */
	CHECK_INT(system(args), 0);
	snprintf(args, sizeof args,
		 "importtsv --data '%s' "
		 "-Dimporttsv.columns=HBASE_ROW_KEY,p:name,HBASE_TS_KEY "
		 "-Dimporttsv.bulk.output='%s' users '%s'",
		 data, out, tsv);
	CHECK_INT(run_saltbox(args), 0);
	CHECK_OUT("ImportTsv: 7 lines read, 3 bad lines, 3 cells written "
		  "for completebulkload");
	/* a rejected line is printed as HBase prints bytes, not raw */
	CHECK_OUT("bad line 3: bad\\x01line\\xFF\\x5C\n");
	CHECK_OUT("bad line 6:");
	CHECK_OUT("bad line 7: u4");
	CHECK_STR(dump(data), ""); /* nothing loaded yet */
	snprintf(args, sizeof args, "completebulkload --data '%s' '%s' users",
		 data, out);
	CHECK_INT(run_saltbox(args), 0);
	CHECK_OUT("loaded the files under");
	CHECK_STR(dump(data), expect);

	/* the same file as puts */
	setup(data, tsv);
	snprintf(args, sizeof args,
		 "importtsv --data '%s' "
		 "-Dimporttsv.columns=HBASE_ROW_KEY,p:name,HBASE_TS_KEY "
		 "users '%s'",
		 data, tsv);
	CHECK_INT(run_saltbox(args), 0);
	CHECK_OUT("ImportTsv: 7 lines read, 3 bad lines, 4 cells put");
	CHECK_STR(dump(data), expect);

	/* a separator and a fixed timestamp */
	setup(data, tsv);
	FILE *in = fopen(tsv, "w");
	REQUIRE(in);
	fputs("b,Bea\na,Al\n", in);
	fclose(in);
	snprintf(args, sizeof args,
		 "importtsv --data '%s' -Dimporttsv.separator=, "
		 "-Dimporttsv.timestamp=7 "
		 "-Dimporttsv.columns=HBASE_ROW_KEY,p:name users '%s'",
		 data, tsv);
	CHECK_INT(run_saltbox(args), 0);
	CHECK_STR(dump(data), "a=Al@7;b=Bea@7;");

	/* the same column named twice: the later field wins, as puts */
	setup(data, tsv);
	in = fopen(tsv, "w");
	REQUIRE(in);
	fputs("r,first,second\n", in);
	fclose(in);
	snprintf(args, sizeof args, "rm -rf '%s'", out);
	CHECK_INT(system(args), 0);
	snprintf(args, sizeof args,
		 "importtsv --data '%s' -Dimporttsv.separator=, "
		 "-Dimporttsv.timestamp=3 -Dimporttsv.bulk.output='%s' "
		 "-Dimporttsv.columns=HBASE_ROW_KEY,p:name,p:name users '%s'",
		 data, out, tsv);
	CHECK_INT(run_saltbox(args), 0);
	snprintf(args, sizeof args, "completebulkload --data '%s' '%s' users",
		 data, out);
	CHECK_INT(run_saltbox(args), 0);
	CHECK_STR(dump(data), "r=second@3;");
}

static void test_importtsv_errors(void)
{
	char data[4096], tsv[4200], args[16384];
	snprintf(data, sizeof data, "%s", test_dir("bulkcli_err"));
	snprintf(tsv, sizeof tsv, "%s.tsv", data);
	setup(data, tsv);
	const char *cases[][2] = {
	    {"-Dimporttsv.columns=p:name", "must name HBASE_ROW_KEY"},
	    {"-Dimporttsv.columns=HBASE_ROW_KEY,HBASE_ROW_KEY",
	     "HBASE_ROW_KEY twice"},
	    {"-Dimporttsv.columns=HBASE_ROW_KEY,zz:q", "no family 'zz'"},
	    {"-Dimporttsv.columns=HBASE_ROW_KEY,:q", "bad column"},
	    {"-Dimporttsv.columns=HBASE_ROW_KEY,p:a -Dimporttsv.separator=ab",
	     "one byte"},
	    {"-Dimporttsv.columns=HBASE_ROW_KEY,p:a -Dimporttsv.timestamp=x",
	     "bad importtsv.timestamp"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		snprintf(args, sizeof args, "importtsv --data '%s' %s users '%s'",
			 data, cases[i][0], tsv);
		CHECK(run_saltbox(args) != 0);
		CHECK_OUT(cases[i][1]);
	}
	CHECK_STR(dump(data), ""); /* none of them wrote anything */
	snprintf(args, sizeof args, "importtsv --data '%s' users", data);
	CHECK_INT(run_saltbox(args), 2);
	CHECK_OUT("usage: saltbox importtsv");
	CHECK_INT(run_saltbox("importtsv --help"), 0);
	CHECK_OUT("usage: saltbox importtsv");
	CHECK_INT(run_saltbox("completebulkload --help"), 0);
	CHECK_OUT("saltbox completebulkload --data DIR OUTDIR TABLE");
	snprintf(args, sizeof args, "completebulkload --data '%s' /no/such users",
		 data);
	CHECK_INT(run_saltbox(args), 1);
	CHECK_OUT("cannot read '/no/such'");
}

TEST_MAIN(T(test_importtsv_bulk_and_puts), T(test_importtsv_errors))
