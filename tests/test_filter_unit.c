/*
 * test_filter_unit.c - each built-in filter driven through its callbacks
 * with synthetic cells, checked against the return codes, hints and row
 * verdicts HBase gives for the same input.
 */
#include "check.h"
#include "saltbox/filter.h"

enum {
	INCL = SBX_FILTER_INCLUDE,
	INAC = SBX_FILTER_INCLUDE_AND_NEXT_COL,
	IASR = SBX_FILTER_INCLUDE_AND_SEEK_NEXT_ROW,
	SKIP = SBX_FILTER_SKIP,
	NCOL = SBX_FILTER_NEXT_COL,
	NROW = SBX_FILTER_NEXT_ROW,
	SEEK = SBX_FILTER_SEEK_NEXT_USING_HINT,
};

static sbx_cell mk(const char *row, const char *fam, const char *qual,
		   int64_t ts, const char *val)
{
	sbx_cell c = {0};
	c.row = (const uint8_t *)row;
	c.row_len = strlen(row);
	c.family = fam;
	c.family_len = strlen(fam);
	c.qualifier = (const uint8_t *)qual;
	c.qualifier_len = strlen(qual);
	c.timestamp = ts;
	c.type = SBX_CELL_PUT;
	c.value = (const uint8_t *)val;
	c.value_len = strlen(val);
	return c;
}

static sbx_comparator *cmp(sbx_comparator_type t, const char *v)
{
	sbx_comparator *c = NULL;
	if (sbx_comparator_new(&c, t, v, strlen(v)) != SBX_OK)
		fprintf(stderr, "comparator: %s\n", sbx_errmsg());
	return c;
}

static int code(sbx_filter *f, const char *row, const char *fam,
		const char *qual, int64_t ts, const char *val)
{
	sbx_cell c = mk(row, fam, qual, ts, val);
	return sbx_filter_cell(f, &c);
}

static bool row_key(sbx_filter *f, const char *row)
{
	sbx_filter_reset(f);
	return sbx_filter_row_key(f, (const uint8_t *)row, strlen(row));
}

/* The row hint after `row` was rejected, as a C string ("" = none). */
static const char *row_hint(sbx_filter *f, const char *row)
{
	static char out[64];
	sbx_filter_hint h = {{0}, {0}};
	out[0] = 0;
	if (sbx_filter_row_hint(f, (const uint8_t *)row, strlen(row), &h)) {
		for (size_t i = 0; i < h.row.len && i < sizeof out - 1; i++)
			out[i] = h.row.data[i] ? (char)h.row.data[i] : '0';
		out[h.row.len < sizeof out ? h.row.len : sizeof out - 1] = 0;
		if (!h.row.len)
			strcpy(out, "<empty>");
	}
	sbx_buf_free(&h.row);
	sbx_buf_free(&h.qualifier);
	return out;
}

/* The cell hint's qualifier ("" = no hint). */
static const char *cell_hint(sbx_filter *f, const char *row, const char *qual)
{
	static char out[64];
	sbx_filter_hint h = {{0}, {0}};
	sbx_cell c = mk(row, "f", qual, 1, "");
	out[0] = 0;
	if (sbx_filter_cell_hint(f, &c, &h))
		snprintf(out, sizeof out, "%.*s/%.*s", (int)h.row.len,
			 (const char *)h.row.data, (int)h.qualifier.len,
			 (const char *)h.qualifier.data);
	sbx_buf_free(&h.row);
	sbx_buf_free(&h.qualifier);
	return out;
}

static sbx_filter *value_filter(sbx_compare_op op, sbx_comparator_type t,
				const char *v)
{
	sbx_filter *f = NULL;
	sbx_filter_new_value(&f, op, cmp(t, v));
	return f;
}

static void test_compare_ops_direction(void)
{
	/* cell OP operand: LESS keeps values below the operand. */
	struct {
		sbx_compare_op op;
		int a, m, z;
	} t[] = {
		{SBX_CMP_LESS, INCL, SKIP, SKIP},
		{SBX_CMP_LESS_OR_EQUAL, INCL, INCL, SKIP},
		{SBX_CMP_EQUAL, SKIP, INCL, SKIP},
		{SBX_CMP_NOT_EQUAL, INCL, SKIP, INCL},
		{SBX_CMP_GREATER_OR_EQUAL, SKIP, INCL, INCL},
		{SBX_CMP_GREATER, SKIP, SKIP, INCL},
		{SBX_CMP_NO_OP, SKIP, SKIP, SKIP},
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		sbx_filter *f = value_filter(t[i].op, SBX_COMPARATOR_BINARY,
					     "m");
		REQUIRE(f);
		CHECK_INT(code(f, "r", "f", "q", 1, "a"), t[i].a);
		CHECK_INT(code(f, "r", "f", "q", 1, "m"), t[i].m);
		CHECK_INT(code(f, "r", "f", "q", 1, "z"), t[i].z);
		sbx_filter_free(f);
	}
}

static void test_comparators(void)
{
	sbx_comparator *c = cmp(SBX_COMPARATOR_BINARY_PREFIX, "abc");
	CHECK_INT(sbx_comparator_compare(c, "abcdef", 6), 0);
	CHECK(sbx_comparator_compare(c, "ab", 2) > 0);
	CHECK(sbx_comparator_compare(c, "abd", 3) < 0);
	sbx_comparator_free(c);

	c = cmp(SBX_COMPARATOR_REGEX, "b.d");
	CHECK_INT(sbx_comparator_compare(c, "abcde", 5), 0); /* unanchored */
	CHECK_INT(sbx_comparator_compare(c, "bd", 2), 1);
	CHECK_INT(sbx_comparator_compare(c, "ab\nd", 4), 0); /* DOTALL */
	sbx_comparator_free(c);
	c = cmp(SBX_COMPARATOR_REGEX, "x\\d+$");
	CHECK_INT(sbx_comparator_compare(c, "\0\0x42", 5), 0); /* NULs */
	CHECK_INT(sbx_comparator_compare(c, "x42y", 4), 1);
	sbx_comparator_free(c);
	c = NULL;
	CHECK_INT(sbx_comparator_new(&c, SBX_COMPARATOR_REGEX, "(", 1),
		  SBX_EINVAL);
	CHECK(strstr(sbx_errmsg(), "regular expression") != NULL);

	c = cmp(SBX_COMPARATOR_SUBSTRING, "COL");
	CHECK_INT(sbx_comparator_compare(c, "my_column", 9), 0);
	CHECK_INT(sbx_comparator_compare(c, "co-l", 4), 1);
	sbx_comparator_free(c);

	static const uint8_t five[8] = {0, 0, 0, 0, 0, 0, 0, 5};
	static const uint8_t seven[8] = {0, 0, 0, 0, 0, 0, 0, 7};
	CHECK_INT(sbx_comparator_new(&c, SBX_COMPARATOR_LONG, five, 8), SBX_OK);
	CHECK(sbx_comparator_compare(c, seven, 8) < 0);
	CHECK(sbx_compare_passes(SBX_CMP_GREATER, c, seven, 8));
	sbx_comparator_free(c);

	static const uint8_t mask = 0x04, v1 = 0x05, v2 = 0x02;
	CHECK_INT(sbx_comparator_new(&c, SBX_COMPARATOR_BIT_AND, &mask, 1),
		  SBX_OK);
	CHECK_INT(sbx_comparator_compare(c, &v1, 1), 0);
	CHECK_INT(sbx_comparator_compare(c, &v2, 1), 1);
	sbx_comparator_free(c);
}

static void test_prefix(void)
{
	sbx_filter *f;
	REQUIRE(sbx_filter_new_prefix(&f, "ab", 2) == SBX_OK);
	sbx_filter_set_reversed(f, false);
	CHECK(row_key(f, "a"));
	CHECK_STR(row_hint(f, "a"), "ab");
	CHECK(!row_key(f, "ab"));
	CHECK_INT(code(f, "ab", "f", "q", 1, "v"), INCL);
	CHECK(!sbx_filter_row(f));
	CHECK(!row_key(f, "abz"));
	CHECK(!sbx_filter_all_remaining(f));
	CHECK(row_key(f, "b"));
	CHECK(sbx_filter_all_remaining(f));

	sbx_filter_set_reversed(f, true); /* a new read: state cleared */
	CHECK(!sbx_filter_all_remaining(f));
	CHECK(row_key(f, "b"));
	CHECK_STR(row_hint(f, "b"), "ac");
	CHECK(!row_key(f, "abc"));
	CHECK(row_key(f, "aa"));
	CHECK(sbx_filter_all_remaining(f));
	sbx_filter_free(f);
}

static void test_row_family_qualifier(void)
{
	sbx_filter *f;
	REQUIRE(sbx_filter_new_row(&f, SBX_CMP_LESS_OR_EQUAL,
				   cmp(SBX_COMPARATOR_BINARY, "m")) == SBX_OK);
	CHECK(!row_key(f, "a"));
	CHECK_INT(code(f, "a", "f", "q", 1, "v"), INCL);
	CHECK(row_key(f, "n"));
	CHECK_INT(code(f, "n", "f", "q", 1, "v"), NROW);
	CHECK(sbx_filter_row(f));
	sbx_filter_free(f);

	REQUIRE(sbx_filter_new_family(&f, SBX_CMP_EQUAL,
				      cmp(SBX_COMPARATOR_BINARY, "b")) ==
		SBX_OK);
	CHECK_INT(code(f, "r", "a", "q", 1, "v"), NROW); /* rest of family */
	CHECK_INT(code(f, "r", "b", "q", 1, "v"), INCL);
	sbx_filter_free(f);

	REQUIRE(sbx_filter_new_qualifier(&f, SBX_CMP_EQUAL,
					 cmp(SBX_COMPARATOR_SUBSTRING,
					     "COL")) == SBX_OK);
	CHECK_INT(code(f, "r", "f", "my_col", 1, "v"), INCL);
	CHECK_INT(code(f, "r", "f", "other", 1, "v"), SKIP);
	sbx_filter_free(f);
}

static void test_column_prefixes(void)
{
	sbx_filter *f;
	REQUIRE(sbx_filter_new_column_prefix(&f, "col", 3) == SBX_OK);
	CHECK_INT(code(f, "r", "f", "a", 1, ""), SEEK);
	CHECK_STR(cell_hint(f, "r", "a"), "r/col");
	CHECK_INT(code(f, "r", "f", "co", 1, ""), SEEK);
	CHECK_INT(code(f, "r", "f", "col1", 1, ""), INCL);
	CHECK_INT(code(f, "r", "f", "d", 1, ""), NROW);
	sbx_filter_free(f);

	const void *ps[] = {"d", "ab", "a"};
	size_t lens[] = {1, 2, 1};
	REQUIRE(sbx_filter_new_multiple_column_prefix(&f, ps, lens, 3) ==
		SBX_OK);
	CHECK_INT(code(f, "r", "f", "0", 1, ""), SEEK);
	CHECK_STR(cell_hint(f, "r", "0"), "r/a");
	CHECK_INT(code(f, "r", "f", "ab1", 1, ""), INCL);
	CHECK_INT(code(f, "r", "f", "ac", 1, ""), INCL); /* covered by 'a' */
	CHECK_INT(code(f, "r", "f", "c", 1, ""), SEEK);
	CHECK_STR(cell_hint(f, "r", "c"), "r/d");
	CHECK_INT(code(f, "r", "f", "dz", 1, ""), INCL);
	CHECK_INT(code(f, "r", "f", "e", 1, ""), NROW);
	sbx_filter_free(f);
}

static void test_column_range(void)
{
	sbx_filter *f;
	REQUIRE(sbx_filter_new_column_range(&f, "b", 1, false, "d", 1, true) ==
		SBX_OK);
	CHECK_INT(code(f, "r", "f", "a", 1, ""), SEEK);
	CHECK_STR(cell_hint(f, "r", "a"), "r/b");
	CHECK_INT(code(f, "r", "f", "b", 1, ""), NCOL);
	CHECK_INT(code(f, "r", "f", "c", 1, ""), INCL);
	CHECK_INT(code(f, "r", "f", "d", 1, ""), INCL);
	CHECK_INT(code(f, "r", "f", "e", 1, ""), NROW);
	sbx_filter_free(f);

	REQUIRE(sbx_filter_new_column_range(&f, NULL, 0, false, "c", 1,
					    false) == SBX_OK);
	CHECK_INT(code(f, "r", "f", "", 1, ""), INCL);
	CHECK_INT(code(f, "r", "f", "b", 1, ""), INCL);
	CHECK_INT(code(f, "r", "f", "c", 1, ""), NROW);
	sbx_filter_free(f);
}

static void test_single_column_value(void)
{
	sbx_filter *f;
	REQUIRE(sbx_filter_new_single_column_value(
			&f, "f", "q", 1, SBX_CMP_EQUAL,
			cmp(SBX_COMPARATOR_BINARY, "x"), false, true) ==
		SBX_OK);
	CHECK(sbx_filter_has_filter_row(f));
	/* the tested column matches: whole row kept */
	row_key(f, "r1");
	CHECK_INT(code(f, "r1", "f", "a", 1, "1"), INCL);
	CHECK_INT(code(f, "r1", "f", "q", 2, "x"), INCL);
	CHECK_INT(code(f, "r1", "f", "z", 1, "1"), INCL);
	CHECK(!sbx_filter_row(f));
	/* newest version does not match: rest of row skipped, row dropped */
	row_key(f, "r2");
	CHECK_INT(code(f, "r2", "f", "a", 1, "1"), INCL);
	CHECK_INT(code(f, "r2", "f", "q", 2, "y"), NROW);
	CHECK(sbx_filter_row(f));
	/* column missing: the row is emitted (filterIfMissing = false) */
	row_key(f, "r3");
	CHECK_INT(code(f, "r3", "f", "a", 1, "1"), INCL);
	CHECK(!sbx_filter_row(f));
	sbx_filter_free(f);

	REQUIRE(sbx_filter_new_single_column_value(
			&f, "f", "q", 1, SBX_CMP_EQUAL,
			cmp(SBX_COMPARATOR_BINARY, "x"), true, false) ==
		SBX_OK);
	row_key(f, "r3");
	CHECK_INT(code(f, "r3", "f", "a", 1, "1"), INCL);
	CHECK(sbx_filter_row(f)); /* filterIfMissing */
	/* latestVersionOnly = false: an older version may match */
	row_key(f, "r4");
	CHECK_INT(code(f, "r4", "f", "q", 3, "y"), INCL);
	CHECK_INT(code(f, "r4", "f", "q", 2, "x"), INCL);
	CHECK(!sbx_filter_row(f));
	sbx_filter_free(f);

	REQUIRE(sbx_filter_new_single_column_value_exclude(
			&f, "f", "q", 1, SBX_CMP_EQUAL,
			cmp(SBX_COMPARATOR_BINARY, "x"), false, true) ==
		SBX_OK);
	row_key(f, "r1");
	sbx_cell cells[3] = {mk("r1", "f", "a", 1, "1"),
			     mk("r1", "f", "q", 1, "x"),
			     mk("r1", "g", "q", 1, "x")};
	for (int i = 0; i < 3; i++)
		sbx_filter_cell(f, &cells[i]);
	size_t n = 3;
	sbx_filter_row_cells(f, cells, &n);
	CHECK_INT(n, 2);
	CHECK_MEM(cells[0].qualifier, cells[0].qualifier_len, "a");
	CHECK_STR(cells[1].family, "g");
	CHECK(!sbx_filter_row(f));
	sbx_filter_free(f);
}

static void test_dependent_and_column_value(void)
{
	sbx_filter *f;
	REQUIRE(sbx_filter_new_dependent_column(&f, "f", "ref", 3, false,
						SBX_CMP_NO_OP, NULL) == SBX_OK);
	row_key(f, "r");
	sbx_cell cells[4] = {mk("r", "f", "a", 5, "1"), mk("r", "f", "a", 4, "2"),
			     mk("r", "f", "ref", 5, "x"),
			     mk("r", "g", "b", 3, "3")};
	int expect[4] = {INCL, INCL, INCL, INCL};
	for (int i = 0; i < 4; i++)
		CHECK_INT(sbx_filter_cell(f, &cells[i]), expect[i]);
	size_t n = 4;
	sbx_filter_row_cells(f, cells, &n);
	CHECK_INT(n, 2); /* f:a@5 and f:ref@5 */
	CHECK_INT(cells[0].timestamp, 5);
	CHECK_MEM(cells[1].qualifier, cells[1].qualifier_len, "ref");
	sbx_filter_free(f);

	REQUIRE(sbx_filter_new_dependent_column(&f, "f", "ref", 3, true,
						SBX_CMP_EQUAL,
						cmp(SBX_COMPARATOR_BINARY,
						    "x")) == SBX_OK);
	row_key(f, "r");
	CHECK_INT(code(f, "r", "f", "ref", 5, "x"), SKIP); /* dropped */
	CHECK_INT(code(f, "r", "f", "ref", 4, "y"), SKIP); /* fails value */
	sbx_filter_free(f);

	REQUIRE(sbx_filter_new_column_value(&f, "f", "q", 1, SBX_CMP_EQUAL,
					    cmp(SBX_COMPARATOR_BINARY, "x")) ==
		SBX_OK);
	row_key(f, "r");
	CHECK_INT(code(f, "r", "f", "a", 1, "x"), NCOL);
	CHECK_INT(code(f, "r", "f", "q", 2, "y"), SKIP);
	CHECK_INT(code(f, "r", "f", "q", 1, "x"), INCL);
	CHECK_INT(code(f, "r", "f", "z", 1, "x"), NROW);
	sbx_filter_free(f);
}

static void test_counting_filters(void)
{
	sbx_filter *f;
	REQUIRE(sbx_filter_new_page(&f, 2) == SBX_OK);
	sbx_filter_set_reversed(f, false);
	for (int i = 0; i < 2; i++) {
		CHECK(!sbx_filter_all_remaining(f));
		CHECK(!row_key(f, "r"));
		CHECK(!sbx_filter_row(f));
	}
	CHECK(sbx_filter_all_remaining(f));
	sbx_filter_set_reversed(f, false);
	CHECK(!sbx_filter_all_remaining(f));
	sbx_filter_free(f);

	REQUIRE(sbx_filter_new_first_key_only(&f) == SBX_OK);
	row_key(f, "r");
	CHECK_INT(code(f, "r", "f", "a", 1, ""), INCL);
	CHECK_INT(code(f, "r", "f", "b", 1, ""), NROW);
	row_key(f, "s");
	CHECK_INT(code(f, "s", "f", "a", 1, ""), INCL);
	sbx_filter_free(f);

	REQUIRE(sbx_filter_new_key_only(&f, true) == SBX_OK);
	sbx_cell in = mk("r", "f", "q", 1, "hello"), out;
	sbx_filter_transform_cell(f, &in, &out);
	CHECK_INT(out.value_len, 4);
	CHECK(out.value[0] == 0 && out.value[3] == 5);
	CHECK_MEM(out.qualifier, out.qualifier_len, "q");
	sbx_filter_free(f);
	REQUIRE(sbx_filter_new_key_only(&f, false) == SBX_OK);
	sbx_filter_transform_cell(f, &in, &out);
	CHECK_INT(out.value_len, 0);
	sbx_filter_free(f);

	REQUIRE(sbx_filter_new_column_pagination(&f, 2, 1) == SBX_OK);
	row_key(f, "r");
	CHECK_INT(code(f, "r", "f", "a", 1, ""), NCOL);
	CHECK_INT(code(f, "r", "f", "b", 1, ""), INAC);
	CHECK_INT(code(f, "r", "f", "c", 1, ""), INAC);
	CHECK_INT(code(f, "r", "f", "d", 1, ""), NROW);
	sbx_filter_free(f);
	REQUIRE(sbx_filter_new_column_pagination_from(&f, 1, "c", 1) == SBX_OK);
	row_key(f, "r");
	CHECK_INT(code(f, "r", "f", "a", 1, ""), SEEK);
	CHECK_STR(cell_hint(f, "r", "a"), "r/c");
	CHECK_INT(code(f, "r", "f", "c", 1, ""), INAC);
	CHECK_INT(code(f, "r", "f", "d", 1, ""), NROW);
	sbx_filter_free(f);

	REQUIRE(sbx_filter_new_column_count_get(&f, 2) == SBX_OK);
	row_key(f, "r");
	CHECK_INT(code(f, "r", "f", "a", 1, ""), INAC);
	CHECK_INT(code(f, "r", "f", "b", 1, ""), INAC);
	CHECK(!sbx_filter_all_remaining(f));
	CHECK_INT(code(f, "r", "f", "c", 1, ""), NCOL);
	CHECK(sbx_filter_all_remaining(f));
	sbx_filter_free(f);

	CHECK_INT(sbx_filter_new_page(&f, -1), SBX_EINVAL);
	CHECK(f == NULL);
}

static void test_timestamps_stop_random(void)
{
	sbx_filter *f;
	int64_t ts[] = {6, 5, 6};
	REQUIRE(sbx_filter_new_timestamps(&f, ts, 3) == SBX_OK);
	CHECK_INT(code(f, "r", "f", "q", 7, ""), SKIP);
	CHECK_INT(code(f, "r", "f", "q", 6, ""), INCL);
	CHECK_INT(code(f, "r", "f", "q", 5, ""), INCL);
	CHECK_INT(code(f, "r", "f", "q", 4, ""), NCOL);
	sbx_filter_free(f);
	int64_t neg = -1;
	CHECK_INT(sbx_filter_new_timestamps(&f, &neg, 1), SBX_EINVAL);

	REQUIRE(sbx_filter_new_inclusive_stop(&f, "b", 1) == SBX_OK);
	sbx_filter_set_reversed(f, false);
	CHECK(!row_key(f, "a"));
	CHECK(!row_key(f, "b"));
	CHECK(row_key(f, "ba"));
	CHECK(sbx_filter_all_remaining(f));
	sbx_filter_set_reversed(f, true);
	CHECK(!row_key(f, "c"));
	CHECK(!row_key(f, "b"));
	CHECK(row_key(f, "a"));
	CHECK(sbx_filter_all_remaining(f));
	sbx_filter_free(f);

	REQUIRE(sbx_filter_new_random_row(&f, 0.0f) == SBX_OK);
	CHECK(row_key(f, "r"));
	CHECK_INT(code(f, "r", "f", "q", 1, ""), NROW);
	sbx_filter_free(f);
	REQUIRE(sbx_filter_new_random_row(&f, 1.0f) == SBX_OK);
	CHECK(!row_key(f, "r"));
	sbx_filter_free(f);
	REQUIRE(sbx_filter_new_random_row(&f, 0.5f) == SBX_OK);
	int kept = 0;
	for (int i = 0; i < 2000; i++)
		kept += !row_key(f, "r");
	CHECK(kept > 800 && kept < 1200);
	sbx_filter_free(f);
}

static void test_multi_row_range(void)
{
	sbx_row_range r[] = {
		{"c", 1, true, "f", 1, true},   /* merges with [b, d) */
		{"b", 1, true, "d", 1, false},
		{"m", 1, false, "p", 1, true},
		{"x", 1, true, NULL, 0, false}, /* to the end */
	};
	sbx_filter *f;
	REQUIRE(sbx_filter_new_multi_row_range(&f, r, 4) == SBX_OK);
	sbx_filter_set_reversed(f, false);
	CHECK(row_key(f, "a"));
	CHECK_STR(row_hint(f, "a"), "b");
	CHECK(!row_key(f, "b"));
	CHECK(!row_key(f, "e"));
	CHECK(!row_key(f, "f"));
	CHECK(row_key(f, "g"));
	CHECK_STR(row_hint(f, "g"), "m0"); /* exclusive start: m\0 */
	CHECK(row_key(f, "m"));
	CHECK(!row_key(f, "n"));
	CHECK(row_key(f, "q"));
	CHECK_STR(row_hint(f, "q"), "x");
	CHECK(!row_key(f, "zzz"));
	CHECK(!sbx_filter_all_remaining(f));

	sbx_filter_set_reversed(f, true);
	CHECK(row_key(f, "q"));
	CHECK_STR(row_hint(f, "q"), "p");
	CHECK(row_key(f, "h"));
	CHECK_STR(row_hint(f, "h"), "f");
	CHECK(row_key(f, "a"));
	CHECK(sbx_filter_all_remaining(f));
	sbx_filter_free(f);

	sbx_row_range bad = {"z", 1, true, "a", 1, false};
	CHECK_INT(sbx_filter_new_multi_row_range(&f, &bad, 1), SBX_EINVAL);
}

static void test_fuzzy_row(void)
{
	sbx_fuzzy_key k = {"\0\0_1", "\1\1\0\0", 4};
	sbx_filter *f;
	REQUIRE(sbx_filter_new_fuzzy_row(&f, &k, 1) == SBX_OK);
	sbx_filter_set_reversed(f, false);
	CHECK(!row_key(f, "ab_1"));
	CHECK(!row_key(f, "zz_1xyz"));
	CHECK(!row_key(f, "a")); /* only min(row, key) bytes are checked */
	CHECK(row_key(f, "ab_0"));
	CHECK_STR(row_hint(f, "ab_0"), "ab_1");
	CHECK(row_key(f, "ab_2"));
	CHECK_STR(row_hint(f, "ab_2"), "ac");
	CHECK(row_key(f, "ab-"));
	CHECK_STR(row_hint(f, "ab-"), "ab_");
	CHECK(!sbx_filter_all_remaining(f));
	CHECK(row_key(f, "\xff\xff_2"));
	CHECK(sbx_filter_all_remaining(f));

	sbx_filter_set_reversed(f, true);
	CHECK(row_key(f, "ab_9"));
	CHECK_STR(row_hint(f, "ab_9"), "ab_2");
	CHECK(row_key(f, "ab_0"));
	CHECK_STR(row_hint(f, "ab_0"), "ab_");
	sbx_filter_free(f);
}

static void test_skip_and_while(void)
{
	sbx_filter *f;
	REQUIRE(sbx_filter_new_skip(&f, value_filter(SBX_CMP_NOT_EQUAL,
						     SBX_COMPARATOR_BINARY,
						     "0")) == SBX_OK);
	CHECK(sbx_filter_has_filter_row(f));
	row_key(f, "r1");
	CHECK_INT(code(f, "r1", "f", "a", 1, "5"), INCL);
	CHECK_INT(code(f, "r1", "f", "b", 1, "0"), SKIP);
	CHECK(sbx_filter_row(f));
	row_key(f, "r2");
	CHECK_INT(code(f, "r2", "f", "a", 1, "5"), INCL);
	CHECK(!sbx_filter_row(f));
	sbx_filter_free(f);

	sbx_filter *inner;
	REQUIRE(sbx_filter_new_row(&inner, SBX_CMP_LESS,
				   cmp(SBX_COMPARATOR_BINARY, "c")) == SBX_OK);
	REQUIRE(sbx_filter_new_while_match(&f, inner) == SBX_OK);
	sbx_filter_set_reversed(f, false);
	CHECK(!row_key(f, "a"));
	CHECK(!sbx_filter_all_remaining(f));
	CHECK(row_key(f, "c"));
	CHECK(sbx_filter_all_remaining(f));
	sbx_filter_free(f);

	REQUIRE(sbx_filter_new_while_match(
			&f, value_filter(SBX_CMP_EQUAL, SBX_COMPARATOR_BINARY,
					 "v")) == SBX_OK);
	row_key(f, "a");
	CHECK_INT(code(f, "a", "f", "q", 1, "v"), INCL);
	CHECK_INT(code(f, "a", "f", "q", 1, "w"), SKIP);
	CHECK(sbx_filter_all_remaining(f));
	sbx_filter_free(f);
}

/* A filter answering fixed codes and hints, counting its calls. */
typedef struct fixed {
	int code;
	const char *hint;
	int calls;
} fixed;

static sbx_filter_code fixed_cell(void *p, const sbx_cell *c)
{
	fixed *x = p;
	x->calls++;
	return (sbx_filter_code)x->code;
}

static void set_buf(sbx_buf *b, const void *p, size_t len)
{
	free(b->data);
	b->data = malloc(len + 1);
	memcpy(b->data, p, len);
	b->len = b->cap = len;
}

static bool fixed_hint(void *p, const sbx_cell *c, sbx_filter_hint *h)
{
	fixed *x = p;
	if (!x->hint)
		return false;
	set_buf(&h->row, c->row, c->row_len);
	set_buf(&h->qualifier, x->hint, strlen(x->hint));
	return true;
}

static sbx_filter *fixed_new(fixed *x)
{
	sbx_filter_ops ops = {.filter_cell = fixed_cell, .cell_hint = fixed_hint};
	sbx_filter *f = NULL;
	sbx_filter_new(&f, &ops, x);
	return f;
}

static int merged(sbx_filter_list_op op, int a, int b)
{
	fixed x = {a, NULL, 0}, y = {b, NULL, 0};
	sbx_filter *fs[2] = {fixed_new(&x), fixed_new(&y)}, *l;
	if (sbx_filter_new_list(&l, op, fs, 2))
		return -1;
	row_key(l, "r");
	int rc = code(l, "r", "f", "q", 1, "");
	sbx_filter_free(l);
	return rc;
}

static void test_list_merge_tables(void)
{
	const sbx_filter_list_op AND = SBX_FILTER_MUST_PASS_ALL;
	const sbx_filter_list_op OR = SBX_FILTER_MUST_PASS_ONE;
	CHECK_INT(merged(AND, INCL, INAC), INAC);
	CHECK_INT(merged(AND, SKIP, INAC), NCOL);
	CHECK_INT(merged(AND, INAC, IASR), IASR);
	CHECK_INT(merged(AND, SKIP, IASR), NROW);
	CHECK_INT(merged(AND, NCOL, SKIP), NCOL);
	CHECK_INT(merged(AND, INCL, NROW), NROW);
	CHECK_INT(merged(AND, NROW, SEEK), SEEK);
	CHECK_INT(merged(OR, NROW, INCL), INCL);
	CHECK_INT(merged(OR, SKIP, NCOL), SKIP);
	CHECK_INT(merged(OR, NROW, NCOL), NCOL);
	CHECK_INT(merged(OR, INAC, IASR), INAC);
	CHECK_INT(merged(OR, IASR, NROW), IASR);
	CHECK_INT(merged(OR, SEEK, NROW), SKIP);
	CHECK_INT(merged(OR, SEEK, INAC), INCL);
	CHECK_INT(merged(OR, SEEK, SEEK), SEEK);

	sbx_filter *empty;
	REQUIRE(sbx_filter_new_list(&empty, AND, NULL, 0) == SBX_OK);
	CHECK_INT(code(empty, "r", "f", "q", 1, ""), INCL);
	CHECK(!sbx_filter_row(empty));
	sbx_filter_free(empty);
}

static void test_list_hints_and_memory(void)
{
	/* AND: the furthest hint; OR: the nearest. */
	fixed x = {SEEK, "c", 0}, y = {SEEK, "e", 0};
	sbx_filter *fs[2] = {fixed_new(&x), fixed_new(&y)}, *l;
	REQUIRE(sbx_filter_new_list(&l, SBX_FILTER_MUST_PASS_ALL, fs, 2) ==
		SBX_OK);
	row_key(l, "r");
	CHECK_INT(code(l, "r", "f", "a", 1, ""), SEEK);
	CHECK_STR(cell_hint(l, "r", "a"), "r/e");
	sbx_filter_free(l);
	x.calls = y.calls = 0;
	fs[0] = fixed_new(&x);
	fs[1] = fixed_new(&y);
	REQUIRE(sbx_filter_new_list(&l, SBX_FILTER_MUST_PASS_ONE, fs, 2) ==
		SBX_OK);
	row_key(l, "r");
	CHECK_INT(code(l, "r", "f", "a", 1, ""), SEEK);
	CHECK_STR(cell_hint(l, "r", "a"), "r/c");
	/* a member that asked to seek to 'e' is not asked again before 'e' */
	CHECK_INT(code(l, "r", "f", "d", 1, ""), SEEK);
	CHECK_INT(y.calls, 1);
	CHECK_INT(x.calls, 2);
	sbx_filter_free(l);

	/* OR: a member that said NEXT_COL does not see that column again */
	fixed a = {NCOL, NULL, 0}, b = {SKIP, NULL, 0};
	fs[0] = fixed_new(&a);
	fs[1] = fixed_new(&b);
	REQUIRE(sbx_filter_new_list(&l, SBX_FILTER_MUST_PASS_ONE, fs, 2) ==
		SBX_OK);
	row_key(l, "r");
	CHECK_INT(code(l, "r", "f", "q", 3, ""), SKIP);
	CHECK_INT(code(l, "r", "f", "q", 2, ""), SKIP);
	CHECK_INT(a.calls, 1);
	CHECK_INT(code(l, "r", "f", "q2", 2, ""), SKIP);
	CHECK_INT(a.calls, 2);
	sbx_filter_free(l);

	/* AND of row filters: hint = the furthest, scan ends with either */
	sbx_filter *p1, *p2;
	REQUIRE(sbx_filter_new_prefix(&p1, "b", 1) == SBX_OK);
	sbx_row_range rr = {"bb", 2, true, "bd", 2, false};
	REQUIRE(sbx_filter_new_multi_row_range(&p2, &rr, 1) == SBX_OK);
	sbx_filter *fl[2] = {p1, p2};
	REQUIRE(sbx_filter_new_list(&l, SBX_FILTER_MUST_PASS_ALL, fl, 2) ==
		SBX_OK);
	sbx_filter_set_reversed(l, false);
	CHECK(row_key(l, "a"));
	CHECK_STR(row_hint(l, "a"), "bb");
	CHECK(!row_key(l, "bc"));
	CHECK(row_key(l, "bd"));
	CHECK(sbx_filter_all_remaining(l));
	sbx_filter_free(l);

	/* OR of row filters: the nearest hint */
	REQUIRE(sbx_filter_new_prefix(&p1, "m", 1) == SBX_OK);
	REQUIRE(sbx_filter_new_prefix(&p2, "k", 1) == SBX_OK);
	fl[0] = p1;
	fl[1] = p2;
	REQUIRE(sbx_filter_new_list(&l, SBX_FILTER_MUST_PASS_ONE, fl, 2) ==
		SBX_OK);
	sbx_filter_set_reversed(l, false);
	CHECK(row_key(l, "a"));
	CHECK_STR(row_hint(l, "a"), "k");
	CHECK(!row_key(l, "k1"));
	CHECK_INT(code(l, "k1", "f", "q", 1, ""), INCL);
	CHECK(!row_key(l, "m1"));
	CHECK(row_key(l, "z"));
	CHECK(sbx_filter_all_remaining(l));
	sbx_filter_free(l);
}

static void test_list_transform_and_rows(void)
{
	sbx_filter *ko, *vf, *l;
	REQUIRE(sbx_filter_new_key_only(&ko, true) == SBX_OK);
	vf = value_filter(SBX_CMP_EQUAL, SBX_COMPARATOR_BINARY, "hello");
	sbx_filter *fl[2] = {vf, ko};
	REQUIRE(sbx_filter_new_list(&l, SBX_FILTER_MUST_PASS_ALL, fl, 2) ==
		SBX_OK);
	sbx_cell in = mk("r", "f", "q", 1, "hello"), out;
	row_key(l, "r");
	CHECK_INT(sbx_filter_cell(l, &in), INCL);
	sbx_filter_transform_cell(l, &in, &out);
	CHECK_INT(out.value_len, 4);
	CHECK_INT(out.value[3], 5);
	sbx_filter_free(l);

	/* has_filter_row propagates from members added later */
	REQUIRE(sbx_filter_new_list(&l, SBX_FILTER_MUST_PASS_ONE, NULL, 0) ==
		SBX_OK);
	CHECK(!sbx_filter_has_filter_row(l));
	sbx_filter *pg;
	REQUIRE(sbx_filter_new_page(&pg, 1) == SBX_OK);
	CHECK_INT(sbx_filter_list_add(l, pg), SBX_OK);
	CHECK(sbx_filter_has_filter_row(l));
	sbx_filter_free(l);

	sbx_filter *notlist;
	REQUIRE(sbx_filter_new_first_key_only(&notlist) == SBX_OK);
	REQUIRE(sbx_filter_new_first_key_only(&pg) == SBX_OK);
	CHECK_INT(sbx_filter_list_add(notlist, pg), SBX_EINVAL);
	sbx_filter_free(notlist);
}

TEST_MAIN(T(test_compare_ops_direction), T(test_comparators), T(test_prefix),
	  T(test_row_family_qualifier), T(test_column_prefixes),
	  T(test_column_range), T(test_single_column_value),
	  T(test_dependent_and_column_value), T(test_counting_filters),
	  T(test_timestamps_stop_random), T(test_multi_row_range),
	  T(test_fuzzy_row), T(test_skip_and_while),
	  T(test_list_merge_tables), T(test_list_hints_and_memory),
	  T(test_list_transform_and_rows))
