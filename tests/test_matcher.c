/*
 * test_matcher.c - the read path's cell matcher (src/engine/matcher.h)
 * without RocksDB: hand-built cells of one family's row, in key order,
 * and the decision for each written out. A cell is "qualifier@ts", with
 * "/D", "/DC", "/DF" or "/DFV" for a delete marker (a family marker's
 * qualifier is empty: "@9/DF") and "=value" for a value.
 *
 * The driver plays the read path: a column starts where the qualifier
 * changes (family markers start none), after next-col the column's later
 * cells are not offered (family markers still are), after next-row
 * nothing is, and seek:q goes on at qualifier q. A cell not offered is "-".
 */
#include "check.h"
#include "engine/matcher.h"

typedef struct tcell {
	char q[64];
	int64_t ts;
	sbx_cell_type type;
	char v[64];
} tcell;

/* Parse "q@ts[/TYPE][=value]". */
static bool parse_cell(tcell *c, const char *tok, size_t len)
{
	char t[64];
	if (len >= sizeof t)
		return false;
	memcpy(t, tok, len);
	t[len] = 0;
	memset(c, 0, sizeof *c);
	c->type = SBX_CELL_PUT;
	char *eq = strchr(t, '=');
	if (eq) {
		*eq = 0;
		snprintf(c->v, sizeof c->v, "%s", eq + 1);
	}
	char *slash = strchr(t, '/');
	if (slash) {
		*slash = 0;
		static const struct {
			const char *name;
			sbx_cell_type type;
		} types[] = {{"D", SBX_CELL_DELETE},
			     {"DC", SBX_CELL_DELETE_COLUMN},
			     {"DF", SBX_CELL_DELETE_FAMILY},
			     {"DFV", SBX_CELL_DELETE_FAMILY_VERSION}};
		bool known = false;
		for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
			if (!strcmp(slash + 1, types[i].name)) {
				c->type = types[i].type;
				known = true;
			}
		if (!known)
			return false;
	}
	char *at = strchr(t, '@');
	if (!at)
		return false;
	*at = 0;
	snprintf(c->q, sizeof c->q, "%s", t);
	c->ts = strtoll(at + 1, NULL, 10);
	return true;
}

/* A plain read: every column, every time, VERSIONS as given. */
static match_params params(int max_versions)
{
	match_params p = {0};
	p.max_versions = max_versions;
	p.min_ts = 0;
	p.max_ts = SBX_LATEST_TIMESTAMP;
	return p;
}

static const char *code_name(match_code mc)
{
	switch (mc) {
	case MATCH_INCLUDE:
		return "include";
	case MATCH_SKIP:
		return "skip";
	case MATCH_NEXT_COL:
		return "next-col";
	case MATCH_INCLUDE_NEXT_COL:
		return "include+next-col";
	case MATCH_SEEK_COL:
		return "seek:";
	case MATCH_NEXT_ROW:
		return "next-row";
	case MATCH_INCLUDE_NEXT_ROW:
		return "include+next-row";
	case MATCH_SEEK_HINT:
		return "hint";
	case MATCH_ENOMEM:
		return "enomem";
	}
	return "?";
}

/* Offer the cells of `row` (tokens, space-separated) in order; the
 * decisions, space-separated. */
static const char *run(const match_params *p, const char *row)
{
	static char out[1024];
	out[0] = 0;
	matcher m = {0};
	matcher_begin_row(&m, p);
	char column[64] = "", seek_to[64] = "";
	bool have_column = false, seeking = false, skipping = false;
	bool done = false;
	for (const char *s = row; *s;) {
		size_t len = strcspn(s, " ");
		tcell t;
		if (!parse_cell(&t, s, len)) {
			snprintf(out, sizeof out, "bad cell '%.*s'", (int)len,
				 s);
			break;
		}
		s += len + (s[len] == ' ');
		size_t o = strlen(out);
		const char *sep = o ? " " : "";
		if (done || (seeking && strcmp(t.q, seek_to) < 0)) {
			snprintf(out + o, sizeof out - o, "%s-", sep);
			continue;
		}
		seeking = false;
		bool fam_marker = matcher_is_family_marker(t.type);
		bool new_column =
		    !fam_marker && (!have_column || strcmp(column, t.q));
		if (new_column) {
			memcpy(column, t.q, sizeof column);
			have_column = true;
			skipping = false;
		}
		if (skipping && !fam_marker) {
			snprintf(out + o, sizeof out - o, "%s-", sep);
			continue;
		}
		sbx_cell c = {.row = (const uint8_t *)"r",
			      .row_len = 1,
			      .family = "f",
			      .family_len = 1,
			      .qualifier = (const uint8_t *)t.q,
			      .qualifier_len = strlen(t.q),
			      .timestamp = t.ts,
			      .type = t.type,
			      .value = (const uint8_t *)t.v,
			      .value_len = strlen(t.v)};
		match_code mc = matcher_match(&m, &c, new_column);
		snprintf(out + o, sizeof out - o, "%s%s", sep, code_name(mc));
		switch (mc) {
		case MATCH_NEXT_COL:
		case MATCH_INCLUDE_NEXT_COL:
			skipping = true;
			break;
		case MATCH_NEXT_ROW:
		case MATCH_INCLUDE_NEXT_ROW:
			done = true;
			break;
		case MATCH_SEEK_COL:
			seeking = true;
			snprintf(seek_to, sizeof seek_to, "%.*s",
				 (int)m.seek_column->len,
				 (const char *)m.seek_column->data);
			o = strlen(out);
			snprintf(out + o, sizeof out - o, "%s", seek_to);
			break;
		default:
			break;
		}
	}
	matcher_free(&m);
	return out;
}

static void test_versions_limit(void)
{
	match_params p = params(2);
	CHECK_STR(run(&p, "a@5 a@4 a@3 a@2 b@2 b@1"),
		  "include include next-col - include include");
	p = params(1);
	CHECK_STR(run(&p, "a@5 a@4 b@9"), "include next-col include");
}

static void test_delete_family_masks_every_column(void)
{
	match_params p = params(3);
	/* DeleteFamily@9 masks puts at or before 9 in every column. */
	CHECK_STR(run(&p, "@9/DF a@10 a@9 a@8 b@12 b@7"),
		  "skip include skip skip include skip");
	/* The empty qualifier's own puts sort with the marker. */
	CHECK_STR(run(&p, "@10 @9/DF @9 a@1"), "include skip skip skip");
}

static void test_delete_column_masks_its_column(void)
{
	match_params p = params(3);
	CHECK_STR(run(&p, "a@7 a@6/DC a@6 a@5 b@5"),
		  "include skip skip skip include");
}

static void test_delete_masks_one_version(void)
{
	match_params p = params(3);
	/* At one timestamp a marker sorts before the put (type desc). */
	CHECK_STR(run(&p, "a@5/D a@5 a@4 b@5"), "skip skip include include");
}

static void test_delete_family_version_masks_one_timestamp(void)
{
	match_params p = params(3);
	CHECK_STR(run(&p, "@5/DFV a@5 a@4 b@5 b@3"),
		  "skip skip include skip include");
}

static void test_masked_versions_do_not_count(void)
{
	match_params p = params(1);
	/* The newest version is deleted: the next one is the one returned. */
	CHECK_STR(run(&p, "a@5/D a@5 a@4 a@3"), "skip skip include next-col");
}

static void test_time_range(void)
{
	match_params p = params(10);
	p.min_ts = 3;
	p.max_ts = 6; /* [3, 6) */
	CHECK_STR(run(&p, "a@7 a@6 a@5 a@3 a@2"),
		  "skip skip include include skip");
	p.max_versions = 1;
	CHECK_STR(run(&p, "a@7 a@5 a@4 a@1"), "skip include next-col -");
}

static void test_delete_after_time_range_still_masks(void)
{
	match_params p = params(3);
	p.max_ts = 6;
	/* KEEP_DELETED_CELLS FALSE: a marker newer than the range masks. */
	CHECK_STR(run(&p, "a@7/DC a@5"), "skip skip");
	CHECK_STR(run(&p, "@8/DF a@5"), "skip skip");
	/* ... but one older than the range cannot matter. */
	p.min_ts = 3;
	CHECK_STR(run(&p, "a@4 a@2/DC a@2"), "include skip skip");
}

static void test_keep_deleted_cells_reads_the_past(void)
{
	match_params p = params(3);
	p.keep_deleted = true;
	p.max_ts = 6;
	/* KEEP_DELETED_CELLS: a time range before the delete sees the cell. */
	CHECK_STR(run(&p, "a@7/DC a@5 a@4"), "skip include include");
	CHECK_STR(run(&p, "@8/DF a@5"), "skip include");
	/* A marker inside the range masks as usual. */
	CHECK_STR(run(&p, "a@5/DC a@5 a@4"), "skip skip skip");
}

static void test_ttl_and_min_versions(void)
{
	match_params p = params(3);
	p.has_ttl = true;
	p.ttl_cutoff_ms = 100; /* puts older than 100 are expired */
	CHECK_STR(run(&p, "a@150 a@90 a@80 b@99"),
		  "include next-col - next-col");
	/* MIN_VERSIONS 2: the newest two live versions outlive the TTL. */
	p.min_versions = 2;
	CHECK_STR(run(&p, "a@150 a@90 a@80 b@99 b@98 b@97"),
		  "include include next-col include include next-col");
	/* A deleted version is not live: it does not use up MIN_VERSIONS. */
	p.min_versions = 1;
	CHECK_STR(run(&p, "a@90/D a@90 a@80 a@70"),
		  "skip skip include next-col");
}

static void test_raw_returns_markers_and_masked_cells(void)
{
	match_params p = params(10);
	p.raw = true;
	CHECK_STR(run(&p, "@9/DF a@10 a@9 a@8/D a@8"),
		  "include include include include include");
	/* Puts count against the versions, markers do not; past the count
	 * every cell of the column is skipped (and stepped, not sought). */
	p.max_versions = 1;
	CHECK_STR(run(&p, "a@10/DC a@10 a@9/D a@9 b@3"),
		  "include include skip skip include");
	/* The time range still applies. */
	p.max_versions = 10;
	p.min_ts = 9;
	CHECK_STR(run(&p, "a@10 a@8/DC a@8"), "include skip skip");
}

static void test_selected_columns(void)
{
	sbx_buf cols[2] = {{(uint8_t *)"b", 1, 1}, {(uint8_t *)"d", 1, 1}};
	match_params p = params(3);
	p.columns = cols;
	p.ncolumns = 2;
	CHECK_STR(run(&p, "a@1 a@0 b@1 c@1 d@1 e@1"),
		  "seek:b - include seek:d include next-row");
	/* The empty qualifier's column is stepped through, not sought past:
	 * it holds the family markers, which still apply. */
	p.ncolumns = 1;
	CHECK_STR(run(&p, "@5 @4/DF @4 b@4 b@3"), "next-col skip - skip skip");

	/* Seven selected columns: an unselected one seeks to the first
	 * selected column after it wherever it falls (the search is binary):
	 * before the first, between two (a prefix of the next: "cc" < "ccc"),
	 * just past one ("e0" > "e"), and past the last. */
	sbx_buf many[7] = {{(uint8_t *)"b", 1, 1},   {(uint8_t *)"ccc", 3, 3},
			   {(uint8_t *)"e", 1, 1},   {(uint8_t *)"g", 1, 1},
			   {(uint8_t *)"h", 1, 1},   {(uint8_t *)"j", 1, 1},
			   {(uint8_t *)"m", 1, 1}};
	p.columns = many;
	p.ncolumns = 7;
	CHECK_STR(run(&p, "a@1 b@1 cc@1 ccc@1 e0@1 g@1 h@1 i@1 j@1 k@1 m@1"),
		  "seek:b include seek:ccc include seek:g include include "
		  "seek:j include seek:m include");
	CHECK_STR(run(&p, "a@1 n@1"), "seek:b next-row");
	CHECK_STR(run(&p, "m@2 m@1 n@1"), "include include next-row");
	p.ncolumns = 6; /* "k" is past the last selected column, "j" */
	CHECK_STR(run(&p, "j@1 k@1 m@1"), "include next-row -");
}

/* A filter whose filter_cell answers `code` for the cells whose value is
 * `value`, and INCLUDE for the rest. */
typedef struct scripted {
	const char *value;
	sbx_filter_code code;
	int calls;
} scripted;

static sbx_filter_code scripted_cell(void *state, const sbx_cell *c)
{
	scripted *s = state;
	s->calls++;
	bool hit = c->value_len == strlen(s->value) &&
		   !memcmp(c->value, s->value, c->value_len);
	return hit ? s->code : SBX_FILTER_INCLUDE;
}

static const char *run_filtered(int *calls, int versions, const char *value,
				sbx_filter_code code, const char *row)
{
	static scripted s;
	s = (scripted){value, code, 0};
	sbx_filter_ops ops = {0};
	ops.filter_cell = scripted_cell;
	sbx_filter *f = NULL;
	if (sbx_filter_new(&f, &ops, &s))
		return "no filter";
	match_params p = params(versions);
	p.filter = f;
	const char *out = run(&p, row);
	sbx_filter_free(f);
	if (calls)
		*calls = s.calls;
	return out;
}

static void test_filter_answers(void)
{
	CHECK_STR(run_filtered(NULL, 3, "x", SBX_FILTER_NEXT_ROW,
			       "a@1=v b@1=x c@1=v"),
		  "include next-row -");
	CHECK_STR(run_filtered(NULL, 3, "x",
			       SBX_FILTER_INCLUDE_AND_SEEK_NEXT_ROW,
			       "a@1=x b@1=v"),
		  "include+next-row -");
	CHECK_STR(run_filtered(NULL, 3, "x", SBX_FILTER_NEXT_COL,
			       "a@2=x a@1=v b@1=v"),
		  "next-col - include");
	CHECK_STR(run_filtered(NULL, 3, "x", SBX_FILTER_INCLUDE_AND_NEXT_COL,
			       "a@2=x a@1=v b@1=v"),
		  "include+next-col - include");
	CHECK_STR(run_filtered(NULL, 3, "x", SBX_FILTER_SEEK_NEXT_USING_HINT,
			       "a@2=x a@1=v"),
		  "hint include");
}

static void test_filter_sees_only_live_cells_in_range(void)
{
	/* Markers, masked and out-of-range cells never reach the filter;
	 * versions are counted after it (a skipped version is not one). */
	int calls = 0;
	CHECK_STR(run_filtered(&calls, 1, "x", SBX_FILTER_SKIP,
			       "a@9/D a@9=v a@8=x a@7=v a@6=v"),
		  "skip skip skip include next-col");
	CHECK_INT(calls, 3);
}

TEST_MAIN(T(test_versions_limit), T(test_delete_family_masks_every_column),
	  T(test_delete_column_masks_its_column),
	  T(test_delete_masks_one_version),
	  T(test_delete_family_version_masks_one_timestamp),
	  T(test_masked_versions_do_not_count), T(test_time_range),
	  T(test_delete_after_time_range_still_masks),
	  T(test_keep_deleted_cells_reads_the_past),
	  T(test_ttl_and_min_versions),
	  T(test_raw_returns_markers_and_masked_cells),
	  T(test_selected_columns), T(test_filter_answers),
	  T(test_filter_sees_only_live_cells_in_range))
