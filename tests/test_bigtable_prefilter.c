/*
 * test_bigtable_prefilter.c - which HBase filters the Bigtable backend also
 * sends to Bigtable as a RowFilter (src/bigtable/prefilter.c), with no
 * server: each filter written in HBase's filter language and the RowFilter
 * expected written out as text. What is sent must keep every cell the HBase
 * filter keeps (the client still runs the whole filter), so anything with
 * state, row decisions or OR logic maps to nothing. Results through the
 * emulator: test_filter_scan_bigtable.
 */
#include "check.h"

#include "bigtable/bigtable.h"
#include "saltbox/filter.h"

static void put_bytes(char *out, size_t cap, const uint8_t *p, size_t n)
{
	size_t len = strlen(out);
	for (size_t i = 0; i < n && len + 1 < cap; i++)
		out[len++] = (char)p[i];
	out[len] = 0;
}

/* The RowFilter as text: row~RE fam~RE qual~RE val~RE strip, chain(...),
 * interleave(...). */
static void render(char *out, size_t cap, const Sbxbt__RowFilter *f)
{
	switch (f->filter_case) {
	case SBXBT__ROW_FILTER__FILTER_ROW_KEY_REGEX_FILTER:
		strncat(out, "row~", cap - strlen(out) - 1);
		put_bytes(out, cap, f->row_key_regex_filter.data,
			  f->row_key_regex_filter.len);
		break;
	case SBXBT__ROW_FILTER__FILTER_FAMILY_NAME_REGEX_FILTER:
		strncat(out, "fam~", cap - strlen(out) - 1);
		strncat(out, f->family_name_regex_filter, cap - strlen(out) - 1);
		break;
	case SBXBT__ROW_FILTER__FILTER_COLUMN_QUALIFIER_REGEX_FILTER:
		strncat(out, "qual~", cap - strlen(out) - 1);
		put_bytes(out, cap, f->column_qualifier_regex_filter.data,
			  f->column_qualifier_regex_filter.len);
		break;
	case SBXBT__ROW_FILTER__FILTER_VALUE_REGEX_FILTER:
		strncat(out, "val~", cap - strlen(out) - 1);
		put_bytes(out, cap, f->value_regex_filter.data,
			  f->value_regex_filter.len);
		break;
	case SBXBT__ROW_FILTER__FILTER_STRIP_VALUE_TRANSFORMER:
		strncat(out, "strip", cap - strlen(out) - 1);
		break;
	case SBXBT__ROW_FILTER__FILTER_CHAIN:
	case SBXBT__ROW_FILTER__FILTER_INTERLEAVE: {
		bool chain = f->filter_case == SBXBT__ROW_FILTER__FILTER_CHAIN;
		size_t n = chain ? f->chain->n_filters : f->interleave->n_filters;
		Sbxbt__RowFilter **v =
		    chain ? f->chain->filters : f->interleave->filters;
		strncat(out, chain ? "chain(" : "interleave(",
			cap - strlen(out) - 1);
		for (size_t i = 0; i < n; i++) {
			if (i)
				strncat(out, ", ", cap - strlen(out) - 1);
			render(out, cap, v[i]);
		}
		strncat(out, ")", cap - strlen(out) - 1);
		break;
	}
	default:
		strncat(out, "?", cap - strlen(out) - 1);
	}
}

/* The prefilter of an HBase filter-language string, as text ("" = none). */
static const char *prefilter(const char *hbase)
{
	static char out[1024];
	out[0] = 0;
	sbx_filter *f = NULL;
	if (sbx_filter_parse(&f, hbase, strlen(hbase), NULL)) {
		snprintf(out, sizeof out, "parse: %s", sbx_errmsg());
		return out;
	}
	Sbxbt__RowFilter *pf = NULL;
	int rc = bt_prefilter(&pf, f);
	if (rc)
		snprintf(out, sizeof out, "ERR %d", rc);
	else if (pf)
		render(out, sizeof out, pf);
	bt_filter_free(pf);
	sbx_filter_free(f);
	return out;
}

static void test_what_maps(void)
{
	CHECK_STR(prefilter("PrefixFilter('ab')"), "row~ab\\C*");
	CHECK_STR(prefilter("RowFilter(=, 'binary:k.1')"), "row~k\\x2E1");
	CHECK_STR(prefilter("RowFilter(=, 'binaryprefix:k')"), "row~k\\C*");
	CHECK_STR(prefilter("FamilyFilter(=, 'binary:cf')"), "fam~cf");
	CHECK_STR(prefilter("QualifierFilter(=, 'binary:q')"), "qual~q");
	CHECK_STR(prefilter("ValueFilter(=, 'binary:x y')"), "val~x\\x20y");
	CHECK_STR(prefilter("ColumnPrefixFilter('c')"), "qual~c\\C*");
	CHECK_STR(prefilter("MultipleColumnPrefixFilter('a', 'b')"),
		  "interleave(qual~a\\C*, qual~b\\C*)");
	CHECK_STR(prefilter("KeyOnlyFilter()"), "strip");
	CHECK_STR(prefilter("PrefixFilter('a') AND QualifierFilter(=, "
			    "'binaryprefix:q')"),
		  "chain(row~a\\C*, qual~q\\C*)");
}

static void test_what_stays_in_the_client(void)
{
	/* comparisons other than EQUAL, and comparators other than binary */
	CHECK_STR(prefilter("ValueFilter(>, 'binary:5')"), "");
	CHECK_STR(prefilter("RowFilter(=, 'regexstring:^a.*')"), "");
	CHECK_STR(prefilter("ValueFilter(=, 'substring:x')"), "");
	/* state or row decisions */
	CHECK_STR(prefilter("PageFilter(2)"), "");
	CHECK_STR(prefilter("FirstKeyOnlyFilter()"), "");
	CHECK_STR(prefilter("SingleColumnValueFilter('f', 'q', =, "
			    "'binary:v')"),
		  "");
	/* an AND list with one member that stays: nothing of it is sent */
	CHECK_STR(prefilter("PrefixFilter('a') AND PageFilter(1)"), "");
	/* OR lists */
	CHECK_STR(prefilter("PrefixFilter('a') OR PrefixFilter('b')"), "");
	/* KeyOnlyFilter with lenAsVal, or beside others that read values */
	CHECK_STR(prefilter("KeyOnlyFilter(true)"), "");
	CHECK_STR(prefilter("KeyOnlyFilter() AND ValueFilter(=, 'binary:v')"),
		  "");
}

TEST_MAIN(T(test_what_maps), T(test_what_stays_in_the_client))
