/*
 * test_filter_json.c - HBase REST's filter JSON (hbase-rest.md §1.11):
 * the real client payloads parse, every filter survives a round trip
 * string -> filter -> JSON -> filter -> JSON, and bad payloads get errors
 * naming the field.
 */
#include "check.h"
#include "saltbox/filter.h"

static bool sbx_buf_append_nul(sbx_buf *b)
{
	uint8_t *p = realloc(b->data, b->len + 1);
	if (!p)
		return false;
	p[b->len] = 0;
	b->data = p;
	b->cap = b->len + 1;
	return true;
}

/* JSON in -> filter -> JSON out, or "ERROR: <message>". */
static const char *through(const char *json)
{
	static char out[4096];
	sbx_filter *f = NULL;
	if (sbx_filter_from_json(&f, json, strlen(json))) {
		snprintf(out, sizeof out, "ERROR: %s", sbx_errmsg());
		return out;
	}
	sbx_buf b = {0};
	if (sbx_filter_to_json(&b, f))
		snprintf(out, sizeof out, "TOJSON: %s", sbx_errmsg());
	else
		snprintf(out, sizeof out, "%.*s", (int)b.len,
			 (const char *)b.data);
	sbx_buf_free(&b);
	sbx_filter_free(f);
	return out;
}

static void test_client_payloads(void)
{
	/* node-hbase's test payloads */
	CHECK_STR(through("{\"op\":\"LESS\",\"type\":\"RowFilter\","
			  "\"comparator\":{\"value\":\"dGVzdFJvd09uZS0y\","
			  "\"type\":\"BinaryComparator\"}}"),
		  "{\"type\":\"RowFilter\",\"op\":\"LESS\",\"comparator\":{"
		  "\"type\":\"BinaryComparator\",\"value\":"
		  "\"dGVzdFJvd09uZS0y\"}}");
	CHECK_STR(through("{\"type\":\"SkipFilter\",\"filters\":[{\"op\":"
			  "\"NOT_EQUAL\",\"type\":\"QualifierFilter\","
			  "\"comparator\":{\"value\":"
			  "\"dGVzdFF1YWxpZmllck9uZS0y\",\"type\":"
			  "\"BinaryComparator\"}}]}"),
		  "{\"type\":\"SkipFilter\",\"filters\":[{\"type\":"
		  "\"QualifierFilter\",\"op\":\"NOT_EQUAL\",\"comparator\":{"
		  "\"type\":\"BinaryComparator\",\"value\":"
		  "\"dGVzdFF1YWxpZmllck9uZS0y\"}}]}");
	CHECK_STR(through("{\"op\":\"MUST_PASS_ONE\",\"type\":\"FilterList\","
			  "\"filters\":[{\"op\":\"EQUAL\",\"type\":"
			  "\"RowFilter\",\"comparator\":{\"value\":"
			  "\".+Two.+\",\"type\":\"RegexStringComparator\"}},"
			  "{\"op\":\"EQUAL\",\"type\":\"ValueFilter\","
			  "\"comparator\":{\"value\":\"one\",\"type\":"
			  "\"SubstringComparator\"}}]}"),
		  "{\"type\":\"FilterList\",\"op\":\"MUST_PASS_ONE\","
		  "\"filters\":[{\"type\":\"RowFilter\",\"op\":\"EQUAL\","
		  "\"comparator\":{\"type\":\"RegexStringComparator\","
		  "\"value\":\".+Two.+\"}},{\"type\":\"ValueFilter\",\"op\":"
		  "\"EQUAL\",\"comparator\":{\"type\":\"SubstringComparator\","
		  "\"value\":\"one\"}}]}");
	/* PageFilter's value is a string in HBase's model; numbers work too */
	CHECK_STR(through("{\"type\":\"PageFilter\",\"value\":\"2\"}"),
		  "{\"type\":\"PageFilter\",\"value\":\"2\"}");
	CHECK_STR(through("{\"type\":\"PageFilter\",\"value\":2}"),
		  "{\"type\":\"PageFilter\",\"value\":\"2\"}");
	CHECK_STR(through("{\"type\":\"FirstKeyOnlyFilter\"}"),
		  "{\"type\":\"FirstKeyOnlyFilter\"}");
	/* FilterList op defaults to MUST_PASS_ALL */
	CHECK_STR(through("{\"type\":\"FilterList\",\"filters\":[]}"),
		  "{\"type\":\"FilterList\",\"op\":\"MUST_PASS_ALL\","
		  "\"filters\":[]}");
}

static void test_json_only_filters(void)
{
	CHECK_STR(through("{\"type\":\"MultiRowRangeFilter\",\"ranges\":["
			  "{\"startRow\":\"Yw==\",\"startRowInclusive\":true,"
			  "\"stopRow\":\"Zg==\",\"stopRowInclusive\":false},"
			  "{\"startRow\":\"YQ==\",\"startRowInclusive\":true,"
			  "\"stopRow\":\"ZA==\",\"stopRowInclusive\":false}]}"),
		  "{\"type\":\"MultiRowRangeFilter\",\"ranges\":[{"
		  "\"startRow\":\"YQ==\",\"startRowInclusive\":true,"
		  "\"stopRow\":\"Zg==\",\"stopRowInclusive\":false}]}");
	CHECK_STR(through("{\"type\":\"FuzzyRowFilter\",\"fuzzyKeys\":[{"
			  "\"key\":\"AABfMQ==\",\"mask\":\"AQEAAA==\"}]}"),
		  "{\"type\":\"FuzzyRowFilter\",\"fuzzyKeys\":[{\"key\":"
		  "\"AABfMQ==\",\"mask\":\"AQEAAA==\"}]}");
	CHECK_STR(through("{\"type\":\"RandomRowFilter\",\"chance\":0.5}"),
		  "{\"type\":\"RandomRowFilter\",\"chance\":0.5}");
	CHECK_STR(through("{\"type\":\"ValueFilter\",\"op\":\"EQUAL\","
			  "\"comparator\":{\"type\":\"BitComparator\","
			  "\"value\":\"BA==\",\"op\":\"AND\"}}"),
		  "{\"type\":\"ValueFilter\",\"op\":\"EQUAL\",\"comparator\":{"
		  "\"type\":\"BitComparator\",\"op\":\"AND\",\"value\":"
		  "\"BA==\"}}");
	CHECK_STR(through("{\"type\":\"SingleColumnValueFilter\",\"family\":"
			  "\"Zg==\",\"qualifier\":\"cQ==\",\"op\":\"EQUAL\","
			  "\"comparator\":{\"type\":\"NullComparator\"}}"),
		  "{\"type\":\"SingleColumnValueFilter\",\"family\":\"Zg==\","
		  "\"qualifier\":\"cQ==\",\"op\":\"EQUAL\",\"comparator\":{"
		  "\"type\":\"NullComparator\"},\"ifMissing\":false,"
		  "\"latestVersion\":true}");
	CHECK_STR(through("{\"type\":\"DependentColumnFilter\",\"family\":"
			  "\"Zg==\",\"qualifier\":\"cQ==\"}"),
		  "{\"type\":\"DependentColumnFilter\",\"family\":\"Zg==\","
		  "\"qualifier\":\"cQ==\",\"dropDependentColumn\":false}");
	CHECK_STR(through("{\"type\":\"ColumnPaginationFilter\",\"limit\":2,"
			  "\"columnOffset\":\"Yw==\"}"),
		  "{\"type\":\"ColumnPaginationFilter\",\"limit\":2,"
		  "\"columnOffset\":\"Yw==\"}");
}

/* A filter string and the JSON it becomes give the same JSON again. */
static void test_round_trip(void)
{
	static const char *const strings[] = {
		"KeyOnlyFilter(true) AND FirstKeyOnlyFilter()",
		"MultipleColumnPrefixFilter('b','a') OR ColumnPrefixFilter('x')",
		"ColumnCountGetFilter(3) AND PageFilter(10)",
		"ColumnPaginationFilter(1,2) AND InclusiveStopFilter('z')",
		"TimestampsFilter(9,1,5)",
		"SKIP (FamilyFilter(>=,'binaryprefix:f') OR "
		"QualifierFilter(<,'binary:q'))",
		"WHILE ValueFilter(=,'substring:Hello')",
		"ColumnRangeFilter('a',false,'',true)",
		"SingleColumnValueExcludeFilter('cf','col',!=,"
		"'regexstring:^a.*z$',true,true)",
		"DependentColumnFilter('f','q',true)",
		"ColumnValueFilter('f','q',<=,'binary:5')",
	};
	for (size_t i = 0; i < sizeof strings / sizeof strings[0]; i++) {
		sbx_filter *f, *g;
		sbx_buf a = {0}, b = {0};
		REQUIRE(sbx_filter_parse(&f, strings[i], strlen(strings[i]),
					 NULL) == SBX_OK);
		REQUIRE(sbx_filter_to_json(&a, f) == SBX_OK);
		REQUIRE(sbx_filter_from_json(&g, (const char *)a.data, a.len) ==
			SBX_OK);
		REQUIRE(sbx_filter_to_json(&b, g) == SBX_OK);
		REQUIRE(sbx_buf_append_nul(&a));
		CHECK_MEM(b.data, b.len, (const char *)a.data);
		sbx_buf_free(&a);
		sbx_buf_free(&b);
		sbx_filter_free(f);
		sbx_filter_free(g);
	}
}

static void test_errors(void)
{
	/* jansson's own wording varies by version; the place does not */
	CHECK(!strncmp(through("{\"type\":"),
		       "ERROR: filter JSON: line 1, column 8: ", 38));
	CHECK_STR(through("[1]"),
		  "ERROR: filter JSON: top level: a filter must be a JSON "
		  "object");
	CHECK_STR(through("{\"type\":\"NoSuchFilter\"}"),
		  "ERROR: filter JSON: top level: unknown filter type "
		  "'NoSuchFilter'");
	CHECK_STR(through("{\"type\":\"RowFilter\",\"comparator\":{\"type\":"
			  "\"BinaryComparator\",\"value\":\"YQ==\"}}"),
		  "ERROR: filter JSON: top level: field 'op' must be one of "
		  "LESS, LESS_OR_EQUAL, EQUAL, NOT_EQUAL, GREATER_OR_EQUAL, "
		  "GREATER, NO_OP");
	CHECK_STR(through("{\"type\":\"FilterList\",\"filters\":[{\"type\":"
			  "\"PrefixFilter\",\"value\":\"!!\"}]}"),
		  "ERROR: filter JSON: filters[0]: field 'value' must be a "
		  "base64 string");
	CHECK_STR(through("{\"type\":\"FilterList\",\"filters\":[{\"type\":"
			  "\"ValueFilter\",\"op\":\"EQUAL\",\"comparator\":{"
			  "\"type\":\"RegexStringComparator\",\"value\":"
			  "\"(\"}}]}"),
		  "ERROR: filter JSON: filters[0].comparator: bad regular "
		  "expression at offset 1: missing closing parenthesis");
	CHECK_STR(through("{\"type\":\"SkipFilter\",\"filters\":[]}"),
		  "ERROR: filter JSON: top level: field 'filters' must hold "
		  "exactly one filter");
	CHECK_STR(through("{\"type\":\"FilterList\",\"op\":\"XOR\","
			  "\"filters\":[]}"),
		  "ERROR: filter JSON: top level: field 'op' must be "
		  "MUST_PASS_ALL or MUST_PASS_ONE");
	CHECK_STR(through("{\"type\":\"PageFilter\",\"value\":\"ten\"}"),
		  "ERROR: filter JSON: top level: field 'value' must be an "
		  "integer from 0 to 9223372036854775807");
	CHECK_STR(through("{\"type\":\"MultiRowRangeFilter\",\"ranges\":[{"
			  "\"startRow\":\"eg==\",\"stopRow\":\"YQ==\"}]}"),
		  "ERROR: filter JSON: top level: MultiRowRangeFilter: range "
		  "0 has its start after its stop");
	CHECK_STR(through("{\"type\":\"FuzzyRowFilter\",\"fuzzyKeys\":[{"
			  "\"key\":\"YQ==\",\"mask\":\"AAA=\"}]}"),
		  "ERROR: filter JSON: top level: fuzzyKeys[0]: key and mask "
		  "differ in length");

	/* a filter made from callbacks has no JSON form */
	sbx_filter_ops ops = {0};
	sbx_filter *f;
	REQUIRE(sbx_filter_new(&f, &ops, NULL) == SBX_OK);
	sbx_buf b = {0};
	CHECK_INT(sbx_filter_to_json(&b, f), SBX_EUNSUPPORTED);
	sbx_filter_free(f);
}

TEST_MAIN(T(test_client_payloads), T(test_json_only_filters),
	  T(test_round_trip), T(test_errors))
