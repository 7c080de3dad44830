/*
 * test_scan_paths.c - the read path's two loops agree (src/engine/read.c):
 * a forward scan reads a plain row's puts in read_plain_puts and hands the
 * rest of the row to the matcher's general loop at the first cell it cannot
 * decide alone (a delete marker, a version past the count, a qualifier with
 * an escaped zero, a put outside the time range); a reversed scan and a get
 * answered from the row cache read every cell through the general loop.
 * Checked: each hand-over point with its expected cells written out, by a
 * forward scan, a reversed scan and a get; then 300 rows of random puts and
 * markers of every kind (qualifiers empty, plain and with zero bytes), read
 * under three read options, forward scans equal to reversed scans and to
 * gets row by row.
 */
#include "engine_util.h"

static sbx_db *db;
static sbx_table *t;

static int put_q(const char *row, const void *q, size_t ql, int64_t ts,
		 const char *v)
{
	sbx_mutation *m;
	int rc = sbx_mutation_new(&m, row, strlen(row));
	if (rc)
		return rc;
	rc = sbx_mutation_put(m, "cf", q, ql, ts, v, strlen(v));
	if (!rc)
		rc = sbx_table_mutate(NULL, t, m);
	sbx_mutation_free(m);
	return rc;
}

static int del_q(const char *row, sbx_cell_type type, const void *q,
		 size_t ql, int64_t ts)
{
	sbx_mutation *m;
	int rc = sbx_mutation_new(&m, row, strlen(row));
	if (rc)
		return rc;
	rc = sbx_mutation_delete(m, type, "cf", q, ql, ts);
	if (!rc)
		rc = sbx_table_mutate(NULL, t, m);
	sbx_mutation_free(m);
	return rc;
}

#define MAX_ROWS 400
#define ROW_TEXT 4096

/* Every row a scan returns, rendered, in the order returned. */
typedef struct rows {
	char text[MAX_ROWS][ROW_TEXT];
	size_t n;
	int rc; /* the scan's end: SBX_ITEROVER when it ended well */
} rows;

static rows fwd, rev;

static void scan_rows(rows *out, const sbx_read_opts *ro, bool reversed)
{
	out->n = 0;
	sbx_scan_opts o;
	sbx_scan_opts_init(&o);
	o.read = *ro;
	o.reversed = reversed;
	sbx_scanner *s = NULL;
	out->rc = sbx_scanner_open(&s, t, &o);
	if (out->rc)
		return;
	sbx_result *r;
	while ((out->rc = sbx_scanner_next(s, &r)) == SBX_OK) {
		if (out->n < MAX_ROWS) {
			out->text[out->n][0] = 0;
			render_result(out->text[out->n], ROW_TEXT, r, true);
		}
		out->n++;
		sbx_result_free(r);
	}
	sbx_scanner_close(s);
}

/* The one row "r" (between rows "q" and "s") by all three ways. */
static void check_row(const char *expected, const sbx_read_opts *ro)
{
	scan_rows(&fwd, ro, false);
	scan_rows(&rev, ro, true);
	CHECK_INT(fwd.rc, SBX_ITEROVER);
	CHECK_INT(rev.rc, SBX_ITEROVER);
	REQUIRE(fwd.n == 3 && rev.n == 3);
	CHECK_STR(fwd.text[0], "q/cf:x@1=q;");
	CHECK_STR(fwd.text[1], expected);
	CHECK_STR(fwd.text[2], "s/cf:x@1=s;");
	CHECK_STR(rev.text[1], expected);
	CHECK_STR(get_str(t, "r", ro, true), expected);
}

static void fresh(const char *name, int versions)
{
	open_fresh_table(&db, &t, name, versions);
	REQUIRE(t);
	CHECK_INT(put_q("q", "x", 1, 1, "q"), SBX_OK);
	CHECK_INT(put_q("s", "x", 1, 1, "s"), SBX_OK);
}

static void test_hand_over_points(void)
{
	SKIP_ON_BIGTABLE("Bigtable keeps no delete markers");
	SKIP_ON_REMOTE("HBase REST cannot express Delete (one version)");
	sbx_read_opts o;
	sbx_read_opts_init(&o);
	o.max_versions = 0; /* all the family keeps (a get's default: 1) */

	/* versions past the count (VERSIONS 2) */
	fresh("paths_versions", 2);
	for (int ts = 10; ts <= 30; ts += 10)
		CHECK_INT(put_q("r", "a", 1, ts, "a"), SBX_OK);
	CHECK_INT(put_q("r", "b", 1, 5, "b"), SBX_OK);
	check_row("r/cf:a@30=a;r/cf:a@20=a;r/cf:b@5=b;", &o);
	o.max_versions = 1;
	check_row("r/cf:a@30=a;r/cf:b@5=b;", &o);
	o.max_versions = 0;
	close_table_db(&db, &t);

	/* a Delete of one version after a version was taken */
	fresh("paths_delete", 3);
	for (int ts = 10; ts <= 30; ts += 10)
		CHECK_INT(put_q("r", "a", 1, ts, "a"), SBX_OK);
	CHECK_INT(put_q("r", "b", 1, 20, "b"), SBX_OK);
	CHECK_INT(del_q("r", SBX_CELL_DELETE, "a", 1, 20), SBX_OK);
	check_row("r/cf:a@30=a;r/cf:a@10=a;r/cf:b@20=b;", &o);
	/* a DeleteColumn in the middle of the column */
	CHECK_INT(del_q("r", SBX_CELL_DELETE_COLUMN, "b", 1, 25), SBX_OK);
	CHECK_INT(put_q("r", "b", 1, 30, "b30"), SBX_OK);
	check_row("r/cf:a@30=a;r/cf:a@10=a;r/cf:b@30=b30;", &o);
	close_table_db(&db, &t);

	/* family markers sort first: the general loop from the first cell;
	 * a put in the empty qualifier's column before one */
	fresh("paths_family", 3);
	CHECK_INT(put_q("r", "", 0, 30, "e"), SBX_OK);
	CHECK_INT(put_q("r", "a", 1, 20, "a"), SBX_OK);
	CHECK_INT(put_q("r", "a", 1, 10, "a"), SBX_OK);
	CHECK_INT(put_q("r", "b", 1, 12, "b"), SBX_OK);
	CHECK_INT(del_q("r", SBX_CELL_DELETE_FAMILY, NULL, 0, 15), SBX_OK);
	check_row("r/cf:@30=e;r/cf:a@20=a;", &o);
	CHECK_INT(del_q("r", SBX_CELL_DELETE_FAMILY_VERSION, NULL, 0, 20),
		  SBX_OK);
	check_row("r/cf:@30=e;", &o);
	close_table_db(&db, &t);

	/* a qualifier with a zero byte between plain ones */
	fresh("paths_escaped", 1);
	CHECK_INT(put_q("r", "a", 1, 10, "1"), SBX_OK);
	CHECK_INT(put_q("r", "b\0c", 3, 10, "2"), SBX_OK);
	CHECK_INT(put_q("r", "b\0c", 3, 5, "old"), SBX_OK);
	CHECK_INT(put_q("r", "d", 1, 10, "3"), SBX_OK);
	CHECK_INT(put_q("r", "d", 1, 5, "old"), SBX_OK);
	check_row("r/cf:a@10=1;r/cf:b\\x00c@10=2;r/cf:d@10=3;", &o);
	close_table_db(&db, &t);

	/* a time range: puts outside it hand over */
	fresh("paths_range", 3);
	for (int ts = 10; ts <= 40; ts += 10) {
		CHECK_INT(put_q("r", "a", 1, ts, "a"), SBX_OK);
		CHECK_INT(put_q("r", "b", 1, ts, "b"), SBX_OK);
	}
	o.min_ts = 15;
	o.max_ts = 35;
	/* q and s (ts 1) are outside too: the rows between, by hand */
	scan_rows(&fwd, &o, false);
	scan_rows(&rev, &o, true);
	CHECK_INT((long long)fwd.n, 1);
	CHECK_INT((long long)rev.n, 1);
	CHECK_STR(fwd.text[0], "r/cf:a@30=a;r/cf:a@20=a;r/cf:b@30=b;r/cf:b@20=b;");
	CHECK_STR(rev.text[0], fwd.text[0]);
	CHECK_STR(get_str(t, "r", &o, true), fwd.text[0]);
	close_table_db(&db, &t);
}

/* xorshift64*: the same rows on every run */
static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static unsigned rnd(unsigned n)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (unsigned)((rng_state * 0x2545F4914F6CDD1Dull) >> 33) % n;
}

static void test_random_rows_agree(void)
{
	SKIP_ON_BIGTABLE("Bigtable keeps no delete markers");
	SKIP_ON_REMOTE("HBase REST cannot express Delete (one version)");
	open_fresh_table(&db, &t, "paths_random", 2);
	REQUIRE(t);
	static const struct {
		const char *q;
		size_t len;
	} quals[] = {{"", 0}, {"a", 1}, {"b", 1}, {"b\0c", 3},
		     {"\0", 1}, {"zz", 2}};
	const size_t nq = sizeof quals / sizeof quals[0];
	int failed = 0;
	for (int i = 0; i < 300; i++) {
		char row[16];
		snprintf(row, sizeof row, "r%03d", i);
		int ops = 1 + (int)rnd(12);
		for (int j = 0; j < ops; j++) {
			unsigned k = rnd(nq), what = rnd(100);
			int64_t ts = 10 * (1 + (int64_t)rnd(4));
			int rc;
			if (what < 70)
				rc = put_q(row, quals[k].q, quals[k].len, ts,
					   what & 1 ? "v" : "w");
			else if (what < 78)
				rc = del_q(row, SBX_CELL_DELETE, quals[k].q,
					   quals[k].len, ts);
			else if (what < 86)
				rc = del_q(row, SBX_CELL_DELETE_COLUMN,
					   quals[k].q, quals[k].len, ts);
			else if (what < 93)
				rc = del_q(row, SBX_CELL_DELETE_FAMILY, NULL,
					   0, ts);
			else
				rc = del_q(row, SBX_CELL_DELETE_FAMILY_VERSION,
					   NULL, 0, ts);
			failed += rc != SBX_OK;
		}
	}
	CHECK_INT(failed, 0);
	for (int variant = 0; variant < 3; variant++) {
		sbx_read_opts o;
		sbx_read_opts_init(&o);
		o.max_versions = variant == 1 ? 1 : 0;
		if (variant == 2) {
			o.min_ts = 15;
			o.max_ts = 35;
		}
		scan_rows(&fwd, &o, false);
		scan_rows(&rev, &o, true);
		CHECK_INT(fwd.rc, SBX_ITEROVER);
		CHECK_INT(rev.rc, SBX_ITEROVER);
		CHECK_INT((long long)fwd.n, (long long)rev.n);
		CHECK(fwd.n > 100 && fwd.n <= MAX_ROWS);
		int differ = 0, get_differ = 0;
		for (size_t i = 0; i < fwd.n && fwd.n == rev.n; i++) {
			if (strcmp(fwd.text[i], rev.text[fwd.n - 1 - i]))
				differ++;
			char row[16];
			size_t rl = strcspn(fwd.text[i], "/");
			snprintf(row, sizeof row, "%.*s", (int)rl, fwd.text[i]);
			if (strcmp(get_str(t, row, &o, true), fwd.text[i]))
				get_differ++;
		}
		printf("  read options %d: %zu rows, %d differ reversed, %d "
		       "differ by get\n", variant, fwd.n, differ, get_differ);
		CHECK_INT(differ, 0);
		CHECK_INT(get_differ, 0);
	}
	close_table_db(&db, &t);
}

TEST_MAIN(T(test_hand_over_points), T(test_random_rows_agree))
