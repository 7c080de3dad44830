/*
 * test_bigtable.c - what only the Bigtable backend has: VERSIONS/TTL as GC
 * rules read back by describe, family changes, reversed scans through the
 * bigtable-features header, and interop with Google's own `cbt`: cells
 * Saltbox writes are read by `cbt read`, cells `cbt set` writes are read by
 * Saltbox, and the same with Google's Node.js client (bigtable_node). Runs
 * under tests/run_bigtable.sh (test_bigtable_bigtable); run
 * alone (no emulator) it says it is skipped.
 */
#include "engine_util.h"

static sbx_db *db;

static void test_schema_as_gc_rules(void)
{
	sbx_family_desc f[2];
	sbx_family_desc_init(&f[0], "a");
	f[0].max_versions = 3;
	sbx_family_desc_init(&f[1], "b");
	f[1].ttl_seconds = 3600;
	f[1].min_versions = 1;
	CHECK_INT(sbx_table_create(db, "gc", f, 2), SBX_OK);
	CHECK_INT(sbx_table_create(db, "gc", f, 2), SBX_EEXISTS);
	sbx_table_info *info = NULL;
	CHECK_INT(sbx_table_describe(&info, db, "gc"), SBX_OK);
	REQUIRE(info && info->nfamilies == 2);
	CHECK_STR(info->families[0].name, "a");
	CHECK_INT(info->families[0].max_versions, 3);
	CHECK_INT(info->families[1].max_versions, 1);
	CHECK_INT(info->families[1].ttl_seconds, 3600);
	CHECK_INT(info->families[1].min_versions, 1);
	sbx_table_info_free(info);
	/* alter adds a family, then changes it; delete drops it */
	sbx_family_desc c;
	sbx_family_desc_init(&c, "c");
	c.max_versions = 2;
	CHECK_INT(sbx_table_alter_family(db, "gc", &c), SBX_OK);
	c.max_versions = 5;
	CHECK_INT(sbx_table_alter_family(db, "gc", &c), SBX_OK);
	CHECK_INT(sbx_table_describe(&info, db, "gc"), SBX_OK);
	REQUIRE(info && info->nfamilies == 3);
	CHECK_INT(info->families[2].max_versions, 5);
	sbx_table_info_free(info);
	CHECK_INT(sbx_table_delete_family(db, "gc", "c"), SBX_OK);
	CHECK_INT(sbx_table_delete_family(db, "gc", "c"), SBX_ENOFAMILY);
	char **names = NULL;
	CHECK_INT(sbx_table_list(&names, db), SBX_OK);
	REQUIRE(names);
	CHECK_STR(names[0], "gc");
	sbx_strv_free(names);
	/* what Bigtable cannot keep is refused, saying why */
	CHECK_INT(sbx_namespace_create(db, "ns"), SBX_EUNSUPPORTED);
	sbx_family_desc k;
	sbx_family_desc_init(&k, "k");
	k.keep_deleted_cells = SBX_KEEP_DELETED_TRUE;
	CHECK_INT(sbx_table_create(db, "kdc", &k, 1), SBX_EUNSUPPORTED);
	CHECK(strstr(sbx_errmsg(), "delete markers") != NULL);
	CHECK_INT(sbx_table_drop(db, "gc"), SBX_OK);
	CHECK_INT(sbx_table_drop(db, "gc"), SBX_ENOTFOUND);
}

static void test_reversed_and_limits(void)
{
	CHECK_INT(make_table(db, "rev", "cf", 1), SBX_OK);
	sbx_table *t = NULL;
	CHECK_INT(sbx_table_open(&t, db, "rev"), SBX_OK);
	REQUIRE(t);
	for (int i = 1; i <= 4; i++) {
		char row[8];
		snprintf(row, sizeof row, "r%d", i);
		CHECK_INT(put1(t, row, "cf", "q", 7, row), SBX_OK);
	}
	sbx_scan_opts so;
	sbx_scan_opts_init(&so);
	so.reversed = true;
	so.start_row = "r3";
	so.start_row_len = 2;
	so.stop_row = "r1";
	so.stop_row_len = 2;
	CHECK_STR(scan_str(t, &so, true), "r3/cf:q@7=r3;|r2/cf:q@7=r2;");
	so.limit = 1;
	CHECK_STR(scan_str(t, &so, true), "r3/cf:q@7=r3;");
	sbx_scan_opts_init(&so);
	so.caching = 1; /* one row per ReadRows: paging resumes after the last key */
	CHECK_STR(scan_str(t, &so, false),
		  "r1/cf:q=r1;|r2/cf:q=r2;|r3/cf:q=r3;|r4/cf:q=r4;");
	sbx_table_close(t);
}

static bool run(const char *cmd, char *out, size_t cap)
{
	FILE *p = popen(cmd, "r");
	if (!p)
		return false;
	size_t n = fread(out, 1, cap - 1, p);
	out[n] = 0;
	return pclose(p) == 0;
}

static void test_cbt_interop(void)
{
	if (system("command -v cbt >/dev/null 2>&1") != 0) {
		printf("skip [%s]: Google's cbt is not installed\n", check_current);
		return;
	}
	CHECK_INT(make_table(db, "interop", "cf", 1), SBX_OK);
	sbx_table *t = NULL;
	CHECK_INT(sbx_table_open(&t, db, "interop"), SBX_OK);
	REQUIRE(t);
	CHECK_INT(put1(t, "from-saltbox", "cf", "greeting", 1234, "hello cbt"),
		  SBX_OK);
	char out[8192];
	CHECK(run("cbt -project p -instance i read interop 2>&1", out, sizeof out));
	/* cbt prints the row, the column and the value; the time is ours in
	 * ms as Bigtable's microseconds (1234 ms = 1.234 s after the epoch) */
	CHECK(strstr(out, "from-saltbox") != NULL);
	CHECK(strstr(out, "cf:greeting") != NULL);
	CHECK(strstr(out, "\"hello cbt\"") != NULL);
	CHECK(strstr(out, "1970/01/01-00:00:01.234000") != NULL);
	if (check_failures)
		fprintf(stderr, "cbt read said:\n%s\n", out);
	/* and the other way */
	CHECK(run("cbt -project p -instance i set interop from-cbt "
		  "cf:note=written-by-cbt@5000000 2>&1",
		  out, sizeof out));
	sbx_read_opts o;
	sbx_read_opts_init(&o);
	CHECK_STR(get_str(t, "from-cbt", &o, true),
		  "from-cbt/cf:note@5000=written-by-cbt;");
	sbx_table_close(t);
}

/* The same both ways with Google's Node.js client (tests/bigtable_node/
 * run.sh installs it and sets SBX_BT_NODE to its interop.js). */
static void test_node_client_interop(void)
{
	const char *js = getenv("SBX_BT_NODE");
	if (!js) {
		printf("skip [%s]: runs from tests/bigtable_node/run.sh (ctest "
		       "bigtable_node), which installs @google-cloud/bigtable\n",
		       check_current);
		return;
	}
	CHECK_INT(make_table(db, "nodejs", "cf", 3), SBX_OK);
	sbx_table *t = NULL;
	CHECK_INT(sbx_table_open(&t, db, "nodejs"), SBX_OK);
	REQUIRE(t);
	CHECK_INT(put1(t, "a-saltbox", "cf", "greeting", 1234, "hello node"),
		  SBX_OK);
	CHECK_INT(put1(t, "a-saltbox", "cf", "greeting", 1500, "newer"),
		  SBX_OK);
	CHECK_INT(put1(t, "b-saltbox", "cf", "x", 7, "seven"), SBX_OK);
	char cmd[8192], out[8192], err[1024];
	snprintf(err, sizeof err, "%s/node.err",
		 getenv("SBX_TEST_TMP") ? getenv("SBX_TEST_TMP") : "/tmp");
	/* stderr apart: the client warns that it finds no GCE metadata */
	snprintf(cmd, sizeof cmd, "node '%s' read nodejs 2>>'%s'", js, err);
	CHECK(run(cmd, out, sizeof out));
	/* HBase milliseconds are Bigtable's microseconds / 1000; versions
	 * newest first */
	CHECK_STR(out, "a-saltbox/cf:greeting@1500000=newer\n"
		       "a-saltbox/cf:greeting@1234000=hello node\n"
		       "b-saltbox/cf:x@7000=seven\n");
	snprintf(cmd, sizeof cmd,
		 "node '%s' write nodejs c-node cf note 5000000 written-by-node "
		 "2>>'%s'",
		 js, err);
	CHECK(run(cmd, out, sizeof out));
	sbx_read_opts o;
	sbx_read_opts_init(&o);
	CHECK_STR(get_str(t, "c-node", &o, true),
		  "c-node/cf:note@5000=written-by-node;");
	if (check_failures) {
		snprintf(cmd, sizeof cmd, "cat '%s' >&2", err);
		if (system(cmd) != 0)
			fprintf(stderr, "(no %s)\n", err);
	}
	sbx_table_close(t);
}

int main(void)
{
	if (!test_bigtable()) {
		printf("skip test_bigtable: runs against the Bigtable emulator "
		       "(ctest test_bigtable_bigtable, tests/run_bigtable.sh)\n");
		return 0;
	}
	db = open_fresh("bigtable");
	if (!db)
		return 1;
	static const struct { const char *name; void (*fn)(void); } tests[] = {
		T(test_schema_as_gc_rules),
		T(test_reversed_and_limits),
		T(test_cbt_interop),
		T(test_node_client_interop),
	};
	int failed = 0;
	for (size_t i = 0; i < sizeof tests / sizeof *tests; i++) {
		int before = check_failures;
		check_current = tests[i].name;
		tests[i].fn();
		printf("%s %s\n", check_failures == before ? "ok  " : "FAIL",
		       tests[i].name);
		failed += check_failures != before;
	}
	sbx_db_close(db);
	return failed ? 1 : 0;
}
