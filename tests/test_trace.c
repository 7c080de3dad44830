/*
 * test_trace.c - a store records its operations as a keyviz trace: one
 * `put|get|scan<TAB>KEY` line per operation, keys as HBase prints them,
 * which the keyviz trace parser reads back.
 */
#include "engine_util.h"
#include "saltbox/keyviz.h"

static void test_trace_recorded_and_replayable(void)
{
	SKIP_ON_REMOTE("the trace is recorded by the embedded engine");
	char path[4200];
	snprintf(path, sizeof path, "%s.trace", test_dir("trace"));
	unlink(path);
	sbx_db_options o;
	sbx_db_options_init(&o);
	o.trace_path = path;
	sbx_db *db;
	REQUIRE(sbx_db_open(&db, test_dir("trace"), &o) == SBX_OK);
	CHECK_INT(make_table(db, "t", "cf", 1), SBX_OK);
	sbx_table *t;
	CHECK_INT(sbx_table_open(&t, db, "t"), SBX_OK);
	CHECK_INT(put1(t, "user1", "cf", "q", 1, "v"), SBX_OK);
	CHECK_INT(put1(t, "a\x01z", "cf", "q", 1, "v"), SBX_OK);
	CHECK_INT(put1(t, "r", "nofam", "q", 1, "v"), SBX_ENOFAMILY);
	sbx_result *r;
	CHECK_INT(sbx_table_get(&r, t, "user1", 5, NULL), SBX_OK);
	sbx_result_free(r);
	sbx_scan_opts so;
	sbx_scan_opts_init(&so);
	so.start_row = "user";
	so.start_row_len = 4;
	CHECK_STR(scan_str(t, &so, false), "user1/cf:q=v;");
	sbx_table_close(t);
	sbx_db_close(db);

	FILE *f = fopen(path, "rb");
	REQUIRE(f);
	char text[512];
	size_t n = fread(text, 1, sizeof text - 1, f);
	fclose(f);
	text[n] = 0;
	/* the failed put is not recorded */
	CHECK_STR(text, "put\tuser1\nput\ta\\x01z\nget\tuser1\nscan\tuser\n");
	sbx_workload *w;
	int line = 0;
	CHECK_INT(sbx_trace_parse(&w, text, n, false, 1000, &line), SBX_OK);
	if (w) {
		CHECK_INT(sbx_workload_ops(w), 4);
		sbx_workload_free(w);
	}
}

TEST_MAIN(T(test_trace_recorded_and_replayable))
