/*
 * test_filter_parse.c - the HBase filter language: every example of
 * hbase-semantics.md §2.3, precedence and flattening, quoting, and errors
 * that name the byte offset and what was expected. A parsed filter is
 * checked through its REST JSON form, which shows its whole structure.
 */
#include "check.h"
#include "saltbox/filter.h"

/* The parsed filter as JSON, or "ERROR@<pos>: <message>". */
static const char *parsed(const char *text)
{
	static char out[2048];
	sbx_filter *f = NULL;
	size_t pos = 9999;
	int rc = sbx_filter_parse(&f, text, strlen(text), &pos);
	if (rc) {
		snprintf(out, sizeof out, "ERROR@%zu: %s", pos, sbx_errmsg());
		return out;
	}
	sbx_buf b = {0};
	if (sbx_filter_to_json(&b, f) != SBX_OK)
		snprintf(out, sizeof out, "TOJSON: %s", sbx_errmsg());
	else
		snprintf(out, sizeof out, "%.*s", (int)b.len,
			 (const char *)b.data);
	sbx_buf_free(&b);
	sbx_filter_free(f);
	return out;
}

static void test_book_examples(void)
{
	CHECK_STR(parsed("KeyOnlyFilter()"), "{\"type\":\"KeyOnlyFilter\"}");
	CHECK_STR(parsed("KeyOnlyFilter(true)"),
		  "{\"type\":\"KeyOnlyFilter\",\"lenAsVal\":true}");
	CHECK_STR(parsed("FirstKeyOnlyFilter()"),
		  "{\"type\":\"FirstKeyOnlyFilter\"}");
	CHECK_STR(parsed("PrefixFilter('row')"),
		  "{\"type\":\"PrefixFilter\",\"value\":\"cm93\"}");
	CHECK_STR(parsed("ColumnPrefixFilter('c')"),
		  "{\"type\":\"ColumnPrefixFilter\",\"value\":\"Yw==\"}");
	CHECK_STR(parsed("MultipleColumnPrefixFilter('a','b')"),
		  "{\"type\":\"MultipleColumnPrefixFilter\",\"prefixes\":"
		  "[\"YQ==\",\"Yg==\"]}");
	CHECK_STR(parsed("ColumnCountGetFilter(4)"),
		  "{\"type\":\"ColumnCountGetFilter\",\"limit\":4}");
	CHECK_STR(parsed("PageFilter(2)"),
		  "{\"type\":\"PageFilter\",\"value\":\"2\"}");
	CHECK_STR(parsed("ColumnPaginationFilter(3,5)"),
		  "{\"type\":\"ColumnPaginationFilter\",\"limit\":3,"
		  "\"offset\":5}");
	CHECK_STR(parsed("InclusiveStopFilter('r9')"),
		  "{\"type\":\"InclusiveStopFilter\",\"value\":\"cjk=\"}");
	CHECK_STR(parsed("TimestampsFilter(5,6)"),
		  "{\"type\":\"TimestampsFilter\",\"timestamps\":[5,6]}");
	CHECK_STR(parsed("RowFilter(<=,'binary:xyz')"),
		  "{\"type\":\"RowFilter\",\"op\":\"LESS_OR_EQUAL\","
		  "\"comparator\":{\"type\":\"BinaryComparator\","
		  "\"value\":\"eHl6\"}}");
	CHECK_STR(parsed("QualifierFilter(=,'substring:col')"),
		  "{\"type\":\"QualifierFilter\",\"op\":\"EQUAL\","
		  "\"comparator\":{\"type\":\"SubstringComparator\","
		  "\"value\":\"col\"}}");
	CHECK_STR(parsed("ValueFilter(!=,'binary:v')"),
		  "{\"type\":\"ValueFilter\",\"op\":\"NOT_EQUAL\","
		  "\"comparator\":{\"type\":\"BinaryComparator\","
		  "\"value\":\"dg==\"}}");
	CHECK_STR(parsed("DependentColumnFilter('f','q',false,>=,'binary:z')"),
		  "{\"type\":\"DependentColumnFilter\",\"family\":\"Zg==\","
		  "\"qualifier\":\"cQ==\",\"op\":\"GREATER_OR_EQUAL\","
		  "\"comparator\":{\"type\":\"BinaryComparator\","
		  "\"value\":\"eg==\"},\"dropDependentColumn\":false}");
	CHECK_STR(parsed("SingleColumnValueFilter('f','q',<=,'binary:abc',"
			 "true,false)"),
		  "{\"type\":\"SingleColumnValueFilter\",\"family\":\"Zg==\","
		  "\"qualifier\":\"cQ==\",\"op\":\"LESS_OR_EQUAL\","
		  "\"comparator\":{\"type\":\"BinaryComparator\","
		  "\"value\":\"YWJj\"},\"ifMissing\":true,"
		  "\"latestVersion\":false}");
	/* 4 arguments: filterIfMissing false, latestVersionOnly true */
	CHECK_STR(parsed("SingleColumnValueExcludeFilter('f','q',=,"
			 "'binaryprefix:a')"),
		  "{\"type\":\"SingleColumnValueExcludeFilter\",\"family\":"
		  "\"Zg==\",\"qualifier\":\"cQ==\",\"op\":\"EQUAL\","
		  "\"comparator\":{\"type\":\"BinaryPrefixComparator\","
		  "\"value\":\"YQ==\"},\"ifMissing\":false,"
		  "\"latestVersion\":true}");
	CHECK_STR(parsed("ColumnRangeFilter('abc',true,'xyz',false)"),
		  "{\"type\":\"ColumnRangeFilter\",\"minColumn\":\"YWJj\","
		  "\"minColumnInclusive\":true,\"maxColumn\":\"eHl6\","
		  "\"maxColumnInclusive\":false}");
	CHECK_STR(parsed("ColumnValueFilter('f','q',>,'binary:1')"),
		  "{\"type\":\"ColumnValueFilter\",\"family\":\"Zg==\","
		  "\"qualifier\":\"cQ==\",\"op\":\"GREATER\",\"comparator\":"
		  "{\"type\":\"BinaryComparator\",\"value\":\"MQ==\"}}");
	CHECK_STR(parsed("PrefixFilter('abc') AND "
			 "ColumnRangeFilter('a',true,'m',false)"),
		  "{\"type\":\"FilterList\",\"op\":\"MUST_PASS_ALL\","
		  "\"filters\":[{\"type\":\"PrefixFilter\",\"value\":"
		  "\"YWJj\"},{\"type\":\"ColumnRangeFilter\",\"minColumn\":"
		  "\"YQ==\",\"minColumnInclusive\":true,\"maxColumn\":"
		  "\"bQ==\",\"maxColumnInclusive\":false}]}");
	CHECK_STR(parsed("(RowFilter(=,'binary:r1') AND TimestampsFilter(1,2))"
			 " OR ColumnRangeFilter('a',true,'z',false)"),
		  "{\"type\":\"FilterList\",\"op\":\"MUST_PASS_ONE\","
		  "\"filters\":[{\"type\":\"FilterList\",\"op\":"
		  "\"MUST_PASS_ALL\",\"filters\":[{\"type\":\"RowFilter\","
		  "\"op\":\"EQUAL\",\"comparator\":{\"type\":"
		  "\"BinaryComparator\",\"value\":\"cjE=\"}},{\"type\":"
		  "\"TimestampsFilter\",\"timestamps\":[1,2]}]},{\"type\":"
		  "\"ColumnRangeFilter\",\"minColumn\":\"YQ==\","
		  "\"minColumnInclusive\":true,\"maxColumn\":\"eg==\","
		  "\"maxColumnInclusive\":false}]}");
	/* The book's "SKIP ValueFilter(0)" is shorthand HBase rejects too:
	 * ValueFilter needs an operator and a comparator. */
	CHECK_STR(parsed("SKIP ValueFilter(0)"),
		  "ERROR@5: filter string: at byte 5: ValueFilter expects 2 "
		  "arguments (compare operator, comparator), got 1 argument");
	CHECK_STR(parsed("SKIP ValueFilter(!=,'binary:0')"),
		  "{\"type\":\"SkipFilter\",\"filters\":[{\"type\":"
		  "\"ValueFilter\",\"op\":\"NOT_EQUAL\",\"comparator\":{"
		  "\"type\":\"BinaryComparator\",\"value\":\"MA==\"}}]}");
}

static void test_precedence(void)
{
	/* AND binds tighter than OR */
	CHECK_STR(parsed("PrefixFilter('a') OR PrefixFilter('b') AND "
			 "PageFilter(1)"),
		  "{\"type\":\"FilterList\",\"op\":\"MUST_PASS_ONE\","
		  "\"filters\":[{\"type\":\"PrefixFilter\",\"value\":\"YQ==\"},"
		  "{\"type\":\"FilterList\",\"op\":\"MUST_PASS_ALL\","
		  "\"filters\":[{\"type\":\"PrefixFilter\",\"value\":\"Yg==\"},"
		  "{\"type\":\"PageFilter\",\"value\":\"1\"}]}]}");
	/* SKIP/WHILE bind tighter than AND */
	CHECK_STR(parsed("SKIP PageFilter(1) AND WHILE PageFilter(2)"),
		  "{\"type\":\"FilterList\",\"op\":\"MUST_PASS_ALL\","
		  "\"filters\":[{\"type\":\"SkipFilter\",\"filters\":[{"
		  "\"type\":\"PageFilter\",\"value\":\"1\"}]},{\"type\":"
		  "\"WhileMatchFilter\",\"filters\":[{\"type\":\"PageFilter\","
		  "\"value\":\"2\"}]}]}");
	/* runs of one operator flatten; parentheses do not */
	CHECK_STR(parsed("PageFilter(1) AND PageFilter(2) AND PageFilter(3)"),
		  "{\"type\":\"FilterList\",\"op\":\"MUST_PASS_ALL\","
		  "\"filters\":[{\"type\":\"PageFilter\",\"value\":\"1\"},{"
		  "\"type\":\"PageFilter\",\"value\":\"2\"},{\"type\":"
		  "\"PageFilter\",\"value\":\"3\"}]}");
	CHECK_STR(parsed("PageFilter(1) AND (PageFilter(2) AND PageFilter(3))"),
		  "{\"type\":\"FilterList\",\"op\":\"MUST_PASS_ALL\","
		  "\"filters\":[{\"type\":\"PageFilter\",\"value\":\"1\"},{"
		  "\"type\":\"FilterList\",\"op\":\"MUST_PASS_ALL\","
		  "\"filters\":[{\"type\":\"PageFilter\",\"value\":\"2\"},{"
		  "\"type\":\"PageFilter\",\"value\":\"3\"}]}]}");
	CHECK_STR(parsed("WHILE(PageFilter(1) OR PageFilter(2))"),
		  "{\"type\":\"WhileMatchFilter\",\"filters\":[{\"type\":"
		  "\"FilterList\",\"op\":\"MUST_PASS_ONE\",\"filters\":[{"
		  "\"type\":\"PageFilter\",\"value\":\"1\"},{\"type\":"
		  "\"PageFilter\",\"value\":\"2\"}]}]}");
	CHECK_STR(parsed("  ((PageFilter ( 7 )))\t"),
		  "{\"type\":\"PageFilter\",\"value\":\"7\"}");
}

static void test_quoting(void)
{
	CHECK_STR(parsed("PrefixFilter('it''s')"),
		  "{\"type\":\"PrefixFilter\",\"value\":\"aXQncw==\"}");
	CHECK_STR(parsed("PrefixFilter('''')"),
		  "{\"type\":\"PrefixFilter\",\"value\":\"Jw==\"}");
	CHECK_STR(parsed("PrefixFilter('a) AND (b')"),
		  "{\"type\":\"PrefixFilter\",\"value\":\"YSkgQU5EIChi\"}");
	CHECK_STR(parsed("RowFilter(=,'binary:a:b')"),
		  "{\"type\":\"RowFilter\",\"op\":\"EQUAL\",\"comparator\":{"
		  "\"type\":\"BinaryComparator\",\"value\":\"YTpi\"}}");
	CHECK_STR(parsed("RowFilter(!=,'regexstring:^r[0-9]+$')"),
		  "{\"type\":\"RowFilter\",\"op\":\"NOT_EQUAL\","
		  "\"comparator\":{\"type\":\"RegexStringComparator\","
		  "\"value\":\"^r[0-9]+$\"}}");
	/* an empty ColumnRangeFilter bound is no bound */
	CHECK_STR(parsed("ColumnRangeFilter('',false,'m',TRUE)"),
		  "{\"type\":\"ColumnRangeFilter\",\"minColumnInclusive\":"
		  "false,\"maxColumn\":\"bQ==\",\"maxColumnInclusive\":true}");
	/* arbitrary bytes inside quotes, length-delimited */
	sbx_filter *f;
	CHECK_INT(sbx_filter_parse(&f, "PrefixFilter('\0\xff')", 18, NULL),
		  SBX_OK);
	sbx_buf b = {0};
	CHECK_INT(sbx_filter_to_json(&b, f), SBX_OK);
	CHECK_MEM(b.data, b.len, "{\"type\":\"PrefixFilter\",\"value\":\"AP8=\"}");
	sbx_buf_free(&b);
	sbx_filter_free(f);
}

static void test_errors_name_position(void)
{
	CHECK_STR(parsed(""), "ERROR@0: filter string: at byte 0: expected a "
			      "filter expression, found an empty string");
	CHECK_STR(parsed("PrefixFilter('a'"),
		  "ERROR@16: filter string: at byte 16: expected ',' or ')' "
		  "after an argument, found end of string");
	CHECK_STR(parsed("PrefixFilter('abc)"),
		  "ERROR@13: filter string: at byte 13: unterminated quoted "
		  "string (a quote inside is written '')");
	CHECK_STR(parsed("Foo('a')"),
		  "ERROR@0: filter string: at byte 0: unknown filter 'Foo'");
	CHECK_STR(parsed("TimeStampsFilter(1)"),
		  "ERROR@0: filter string: at byte 0: unknown filter "
		  "'TimeStampsFilter' (names are case-sensitive: did you mean "
		  "TimestampsFilter?)");
	CHECK_STR(parsed("FuzzyRowFilter('a','b')"),
		  "ERROR@0: filter string: at byte 0: FuzzyRowFilter is not "
		  "part of HBase's filter language (use the C API or filter "
		  "JSON)");
	CHECK_STR(parsed("RowFilter(<, 'regexstring:a')"),
		  "ERROR@13: filter string: at byte 13: a regexstring "
		  "comparator works only with = and !=");
	CHECK_STR(parsed("RowFilter(=, 'nope:a')"),
		  "ERROR@13: filter string: at byte 13: unknown comparator "
		  "type 'nope' (binary, binaryprefix, regexstring or "
		  "substring)");
	CHECK_STR(parsed("RowFilter(=, 'binary')"),
		  "ERROR@13: filter string: at byte 13: argument 2 of "
		  "RowFilter must be a comparator 'type:value' (binary, "
		  "binaryprefix, regexstring or substring)");
	CHECK_STR(parsed("RowFilter(==, 'binary:a')"),
		  "ERROR@10: filter string: at byte 10: argument 1 of "
		  "RowFilter must be a compare operator (<, <=, =, !=, >=, >)");
	CHECK_STR(parsed("PageFilter(-1)"),
		  "ERROR@11: filter string: at byte 11: argument 1 of "
		  "PageFilter must be an integer from 0 to "
		  "9223372036854775807");
	CHECK_STR(parsed("PageFilter(99999999999999999999)"),
		  "ERROR@11: filter string: at byte 11: argument 1 of "
		  "PageFilter must be an integer from 0 to "
		  "9223372036854775807");
	CHECK_STR(parsed("PrefixFilter(abc)"),
		  "ERROR@13: filter string: at byte 13: argument 1 of "
		  "PrefixFilter must be a quoted string ('...')");
	CHECK_STR(parsed("ColumnRangeFilter('a', maybe, 'b', true)"),
		  "ERROR@23: filter string: at byte 23: argument 2 of "
		  "ColumnRangeFilter must be true or false");
	CHECK_STR(parsed("PrefixFilter('a') AND"),
		  "ERROR@21: filter string: at byte 21: expected a filter "
		  "(Name(args...)), '(', SKIP or WHILE, found end of string");
	CHECK_STR(parsed("PrefixFilter('a') and PrefixFilter('b')"),
		  "ERROR@18: filter string: at byte 18: expected AND, OR or "
		  "the end of the filter, found 'a'");
	CHECK_STR(parsed("PrefixFilter('a') ANDPrefixFilter('b')"),
		  "ERROR@18: filter string: at byte 18: expected AND, OR or "
		  "the end of the filter, found 'A'");
	CHECK_STR(parsed("(PrefixFilter('a')"),
		  "ERROR@18: filter string: at byte 18: expected AND, OR or "
		  "')' to close the '(' at byte 0, found end of string");
	CHECK_STR(parsed("PrefixFilter('a'))"),
		  "ERROR@17: filter string: at byte 17: expected AND, OR or "
		  "the end of the filter, found ')'");
	CHECK_STR(parsed("PrefixFilter 'a'"),
		  "ERROR@13: filter string: at byte 13: expected '(' after "
		  "PrefixFilter, found '''");
	CHECK_STR(parsed("SingleColumnValueFilter('f','q',=)"),
		  "ERROR@0: filter string: at byte 0: SingleColumnValueFilter "
		  "expects 4 or 6 arguments (family, qualifier, operator, "
		  "comparator[, filterIfMissing, latestVersionOnly]), got 3 "
		  "arguments");
	CHECK(strstr(parsed("RowFilter(=,'regexstring:(')"),
		     "ERROR@12: filter string: at byte 12: argument 2 of "
		     "RowFilter: bad regular expression") != NULL);
	char deep[300];
	memset(deep, '(', 100);
	strcpy(deep + 100, "PageFilter(1)");
	CHECK(strstr(parsed(deep), "nested more than 64 deep") != NULL);
	sbx_filter *f = (sbx_filter *)1;
	CHECK_INT(sbx_filter_parse(&f, NULL, 0, NULL), SBX_EPARSE);
	CHECK(f == NULL);
}

TEST_MAIN(T(test_book_examples), T(test_precedence), T(test_quoting),
	  T(test_errors_name_position))
