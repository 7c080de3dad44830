/*
 * json.c - filters as HBase REST's filter JSON (ScannerModel.FilterModel):
 * reading it into filter objects and writing built-in filters back out.
 * Byte fields are base64; regex and substring comparator values are plain
 * text, as the REST gateway sends them. Errors name the field's path.
 */
#include "common/alloc.h"
#include "common/base64.h"
#include "filter/filter_int.h"

#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>

#define MAX_DEPTH 64

/* ---- base64 (common/base64.c; lenient: filter JSON is written by hand) -- */

static bool b64_decode(const char *s, size_t len, sbx_buf *out)
{
	return sbx_base64_decode(out, s, len, true) == SBX_OK;
}

/* A JSON string holding the base64 of p; NULL on ENOMEM. */
static json_t *b64_json(const uint8_t *p, size_t len)
{
	char *s = sbx_base64_string(p, len);
	json_t *j = s ? json_string(s) : NULL;
	free(s);
	return j;
}

/* ---- reading ------------------------------------------------------------------ */

typedef struct reader {
	char path[256]; /* where we are, for messages */
	int depth;
} reader;

static int jerr(reader *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int jerr(reader *r, const char *fmt, ...)
{
	char msg[320];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return sbx_error_set(SBX_EPARSE, "filter JSON: %s: %s",
			     r->path[0] ? r->path : "top level", msg);
}

/* A base64 field into *out (cleared first). Missing: *present = false. */
static int get_b64(reader *r, json_t *o, const char *key, sbx_buf *out,
		   bool required, bool *present)
{
	json_t *v = json_object_get(o, key);
	sbx_buf_reset(out);
	if (present)
		*present = v && !json_is_null(v);
	if (!v || json_is_null(v))
		return required ? jerr(r, "missing field '%s'", key) : SBX_OK;
	if (!json_is_string(v) ||
	    !b64_decode(json_string_value(v), json_string_length(v), out))
		return jerr(r, "field '%s' must be a base64 string", key);
	return SBX_OK;
}

static int get_bool(reader *r, json_t *o, const char *key, bool dflt,
		    bool *out)
{
	json_t *v = json_object_get(o, key);
	*out = dflt;
	if (!v || json_is_null(v))
		return SBX_OK;
	if (json_is_boolean(v)) {
		*out = json_is_true(v);
		return SBX_OK;
	}
	if (json_is_string(v)) {
		const char *s = json_string_value(v);
		if (!strcmp(s, "true") || !strcmp(s, "false")) {
			*out = s[0] == 't';
			return SBX_OK;
		}
	}
	return jerr(r, "field '%s' must be true or false", key);
}

/* A long given as a JSON integer or a string of digits (Jackson takes
 * both: PageFilter's "value" is a string in HBase's own model). */
static int int_value(reader *r, json_t *v, const char *key, int64_t lo,
		     int64_t hi, int64_t *out)
{
	bool ok = false;
	if (json_is_integer(v)) {
		*out = json_integer_value(v);
		ok = true;
	} else if (json_is_string(v)) {
		const char *s = json_string_value(v);
		char *end;
		errno = 0;
		long long x = strtoll(s, &end, 10);
		ok = *s && !*end && errno == 0 && s[0] != ' ';
		*out = x;
	}
	if (!ok || *out < lo || *out > hi)
		return jerr(r, "field '%s' must be an integer from %lld to %lld",
			    key, (long long)lo, (long long)hi);
	return SBX_OK;
}

static int get_int(reader *r, json_t *o, const char *key, int64_t lo,
		   int64_t hi, int64_t *out)
{
	json_t *v = json_object_get(o, key);
	if (!v)
		return jerr(r, "missing field '%s'", key);
	return int_value(r, v, key, lo, hi, out);
}

static const char *const op_names[] = {
	"LESS",	     "LESS_OR_EQUAL", "EQUAL", "NOT_EQUAL",
	"GREATER_OR_EQUAL", "GREATER",	"NO_OP",
};

static int get_op(reader *r, json_t *o, sbx_compare_op *op)
{
	const char *s = json_string_value(json_object_get(o, "op"));
	for (int i = 0; s && i <= SBX_CMP_NO_OP; i++)
		if (!strcmp(s, op_names[i])) {
			*op = (sbx_compare_op)i;
			return SBX_OK;
		}
	return jerr(r, "field 'op' must be one of LESS, LESS_OR_EQUAL, EQUAL, "
		       "NOT_EQUAL, GREATER_OR_EQUAL, GREATER, NO_OP");
}

static int get_comparator(reader *r, json_t *o, bool required,
			  sbx_comparator **out)
{
	*out = NULL;
	json_t *c = json_object_get(o, "comparator");
	if (!c || json_is_null(c))
		return required ? jerr(r, "missing field 'comparator'")
				: SBX_OK;
	size_t plen = strlen(r->path);
	snprintf(r->path + plen, sizeof r->path - plen, "%scomparator",
		 plen ? "." : "");
	int rc = SBX_OK;
	const char *type = json_string_value(json_object_get(c, "type"));
	json_t *v = json_object_get(c, "value");
	sbx_buf val = {0};
	sbx_comparator_type t = SBX_COMPARATOR_BINARY;
	if (!json_is_object(c) || !type) {
		rc = jerr(r, "must be an object with a 'type'");
	} else if (!strcmp(type, "RegexStringComparator") ||
		   !strcmp(type, "SubstringComparator")) {
		t = type[0] == 'R' ? SBX_COMPARATOR_REGEX
				   : SBX_COMPARATOR_SUBSTRING;
		if (!json_is_string(v))
			rc = jerr(r, "field 'value' must be a string");
		else
			rc = sbx_buf_set(&val, json_string_value(v),
					 json_string_length(v));
	} else if (!strcmp(type, "NullComparator")) {
		t = SBX_COMPARATOR_NULL;
	} else {
		if (!strcmp(type, "BinaryComparator"))
			t = SBX_COMPARATOR_BINARY;
		else if (!strcmp(type, "BinaryPrefixComparator"))
			t = SBX_COMPARATOR_BINARY_PREFIX;
		else if (!strcmp(type, "LongComparator"))
			t = SBX_COMPARATOR_LONG;
		else if (!strcmp(type, "BitComparator")) {
			const char *bop =
				json_string_value(json_object_get(c, "op"));
			if (bop && !strcmp(bop, "AND"))
				t = SBX_COMPARATOR_BIT_AND;
			else if (bop && !strcmp(bop, "OR"))
				t = SBX_COMPARATOR_BIT_OR;
			else if (bop && !strcmp(bop, "XOR"))
				t = SBX_COMPARATOR_BIT_XOR;
			else
				rc = jerr(r, "BitComparator needs 'op' AND, "
					     "OR or XOR");
		} else {
			rc = jerr(r, "unknown comparator type '%.60s'", type);
		}
		if (!rc)
			rc = get_b64(r, c, "value", &val, true, NULL);
	}
	if (!rc) {
		rc = sbx_comparator_new(out, t, val.data, val.len);
		if (rc == SBX_EINVAL)
			rc = jerr(r, "%s", sbx_errmsg());
	}
	sbx_buf_free(&val);
	r->path[plen] = 0;
	return rc;
}

/* family (NUL-free) and qualifier fields into fam (NUL-terminated) / qual. */
static int get_column(reader *r, json_t *o, sbx_buf *fam, sbx_buf *qual)
{
	int rc = get_b64(r, o, "family", fam, true, NULL);
	if (!rc && fam->len && memchr(fam->data, 0, fam->len))
		rc = jerr(r, "field 'family' cannot hold a NUL byte");
	if (!rc)
		rc = sbx_buf_push(fam, 0);
	if (!rc)
		rc = get_b64(r, o, "qualifier", qual, true, NULL);
	return rc;
}

static int read_filter(reader *r, json_t *o, sbx_filter **out);

static int read_children(reader *r, json_t *o, sbx_filter *list,
			 sbx_filter **only)
{
	json_t *fs = json_object_get(o, "filters");
	if (!json_is_array(fs))
		return jerr(r, "field 'filters' must be an array");
	if (only && json_array_size(fs) != 1)
		return jerr(r, "field 'filters' must hold exactly one filter");
	size_t plen = strlen(r->path);
	int rc = SBX_OK;
	for (size_t i = 0; !rc && i < json_array_size(fs); i++) {
		snprintf(r->path + plen, sizeof r->path - plen,
			 "%sfilters[%zu]", plen ? "." : "", i);
		sbx_filter *f;
		rc = read_filter(r, json_array_get(fs, i), &f);
		if (!rc && only)
			*only = f;
		else if (!rc)
			rc = sbx_filter_list_add(list, f);
	}
	r->path[plen] = 0;
	return rc;
}

static int read_compare(reader *r, json_t *o, const char *type,
			sbx_filter **out)
{
	sbx_compare_op op = 0;
	sbx_comparator *cmp;
	int rc = get_op(r, o, &op);
	if (!rc)
		rc = get_comparator(r, o, true, &cmp);
	if (rc)
		return rc;
	switch (type[0]) {
	case 'R':
		return sbx_filter_new_row(out, op, cmp);
	case 'F':
		return sbx_filter_new_family(out, op, cmp);
	case 'Q':
		return sbx_filter_new_qualifier(out, op, cmp);
	default:
		return sbx_filter_new_value(out, op, cmp);
	}
}

static int read_column_filter(reader *r, json_t *o, const char *type,
			      sbx_filter **out)
{
	sbx_buf fam = {0}, qual = {0};
	sbx_compare_op op = SBX_CMP_NO_OP;
	sbx_comparator *cmp = NULL;
	bool dep = !strcmp(type, "DependentColumnFilter");
	bool a = false, b = true;
	int rc = get_column(r, o, &fam, &qual);
	if (!rc && (!dep || json_object_get(o, "op")))
		rc = get_op(r, o, &op);
	if (!rc)
		rc = get_comparator(r, o, !dep, &cmp);
	if (!rc && dep)
		rc = get_bool(r, o, "dropDependentColumn", false, &a);
	if (!rc && !dep) {
		rc = get_bool(r, o, "ifMissing", false, &a);
		if (!rc)
			rc = get_bool(r, o, "latestVersion", true, &b);
	}
	const char *f = (const char *)fam.data;
	if (rc)
		sbx_comparator_free(cmp);
	else if (dep)
		rc = sbx_filter_new_dependent_column(out, f, qual.data,
						     qual.len, a, op, cmp);
	else if (!strcmp(type, "ColumnValueFilter"))
		rc = sbx_filter_new_column_value(out, f, qual.data, qual.len,
						 op, cmp);
	else if (!strcmp(type, "SingleColumnValueFilter"))
		rc = sbx_filter_new_single_column_value(
			out, f, qual.data, qual.len, op, cmp, a, b);
	else
		rc = sbx_filter_new_single_column_value_exclude(
			out, f, qual.data, qual.len, op, cmp, a, b);
	sbx_buf_free(&fam);
	sbx_buf_free(&qual);
	return rc;
}

static int read_multiple_prefix(reader *r, json_t *o, sbx_filter **out)
{
	json_t *ps = json_object_get(o, "prefixes");
	if (!json_is_array(ps))
		return jerr(r, "field 'prefixes' must be an array");
	size_t n = json_array_size(ps);
	sbx_buf *bufs = sbx_calloc(n ? n : 1, sizeof *bufs);
	const void **ptrs = sbx_calloc(n ? n : 1, sizeof *ptrs);
	size_t *lens = sbx_calloc(n ? n : 1, sizeof *lens);
	int rc = bufs && ptrs && lens ? SBX_OK : SBX_ENOMEM_SET();
	for (size_t i = 0; !rc && i < n; i++) {
		json_t *v = json_array_get(ps, i);
		if (!json_is_string(v) ||
		    !b64_decode(json_string_value(v), json_string_length(v),
				&bufs[i]))
			rc = jerr(r, "prefixes[%zu] must be a base64 string",
				  i);
		ptrs[i] = bufs[i].data ? (const void *)bufs[i].data : "";
		lens[i] = bufs[i].len;
	}
	if (!rc)
		rc = sbx_filter_new_multiple_column_prefix(out, ptrs, lens, n);
	for (size_t i = 0; bufs && i < n; i++)
		sbx_buf_free(&bufs[i]);
	free(bufs);
	free(ptrs);
	free(lens);
	return rc;
}

static int read_column_range(reader *r, json_t *o, sbx_filter **out)
{
	sbx_buf min = {0}, max = {0};
	bool has_min, has_max, min_incl, max_incl;
	int rc = get_b64(r, o, "minColumn", &min, false, &has_min);
	if (!rc)
		rc = get_b64(r, o, "maxColumn", &max, false, &has_max);
	if (!rc)
		rc = get_bool(r, o, "minColumnInclusive", true, &min_incl);
	if (!rc)
		rc = get_bool(r, o, "maxColumnInclusive", false, &max_incl);
	/* As in the filter language, an empty bound is no bound. */
	if (!rc)
		rc = sbx_filter_new_column_range(
			out, has_min && min.len ? min.data : NULL, min.len,
			min_incl, has_max && max.len ? max.data : NULL,
			max.len, max_incl);
	sbx_buf_free(&min);
	sbx_buf_free(&max);
	return rc;
}

static int read_timestamps(reader *r, json_t *o, sbx_filter **out)
{
	json_t *ts = json_object_get(o, "timestamps");
	if (!json_is_array(ts))
		return jerr(r, "field 'timestamps' must be an array");
	size_t n = json_array_size(ts);
	int64_t *v = sbx_malloc((n ? n : 1) * sizeof *v);
	int rc = v ? SBX_OK : SBX_ENOMEM_SET();
	for (size_t i = 0; !rc && i < n; i++)
		rc = int_value(r, json_array_get(ts, i), "timestamps", 0,
			       INT64_MAX, &v[i]);
	if (!rc)
		rc = sbx_filter_new_timestamps(out, v, n);
	free(v);
	return rc;
}

static int read_ranges(reader *r, json_t *o, sbx_filter **out)
{
	json_t *rs = json_object_get(o, "ranges");
	if (!json_is_array(rs))
		return jerr(r, "field 'ranges' must be an array");
	size_t n = json_array_size(rs);
	sbx_row_range *rr = sbx_calloc(n ? n : 1, sizeof *rr);
	sbx_buf *bufs = sbx_calloc(2 * (n ? n : 1), sizeof *bufs);
	int rc = rr && bufs ? SBX_OK : SBX_ENOMEM_SET();
	for (size_t i = 0; !rc && i < n; i++) {
		json_t *e = json_array_get(rs, i);
		if (!json_is_object(e)) {
			rc = jerr(r, "ranges[%zu] must be an object", i);
			break;
		}
		rc = get_b64(r, e, "startRow", &bufs[2 * i], false, NULL);
		if (!rc)
			rc = get_b64(r, e, "stopRow", &bufs[2 * i + 1], false,
				     NULL);
		if (!rc)
			rc = get_bool(r, e, "startRowInclusive", true,
				      &rr[i].start_inclusive);
		if (!rc)
			rc = get_bool(r, e, "stopRowInclusive", false,
				      &rr[i].stop_inclusive);
		rr[i].start = bufs[2 * i].data;
		rr[i].start_len = bufs[2 * i].len;
		rr[i].stop = bufs[2 * i + 1].data;
		rr[i].stop_len = bufs[2 * i + 1].len;
	}
	if (!rc) {
		rc = sbx_filter_new_multi_row_range(out, rr, n);
		if (rc == SBX_EINVAL)
			rc = jerr(r, "%s", sbx_errmsg());
	}
	for (size_t i = 0; bufs && i < 2 * n; i++)
		sbx_buf_free(&bufs[i]);
	free(bufs);
	free(rr);
	return rc;
}

static int read_fuzzy(reader *r, json_t *o, sbx_filter **out)
{
	json_t *ks = json_object_get(o, "fuzzyKeys");
	if (!json_is_array(ks))
		return jerr(r, "field 'fuzzyKeys' must be an array");
	size_t n = json_array_size(ks);
	sbx_fuzzy_key *fk = sbx_calloc(n ? n : 1, sizeof *fk);
	sbx_buf *bufs = sbx_calloc(2 * (n ? n : 1), sizeof *bufs);
	int rc = fk && bufs ? SBX_OK : SBX_ENOMEM_SET();
	for (size_t i = 0; !rc && i < n; i++) {
		json_t *e = json_array_get(ks, i);
		if (!json_is_object(e)) {
			rc = jerr(r, "fuzzyKeys[%zu] must be an object", i);
			break;
		}
		rc = get_b64(r, e, "key", &bufs[2 * i], true, NULL);
		if (!rc)
			rc = get_b64(r, e, "mask", &bufs[2 * i + 1], true,
				     NULL);
		if (!rc && bufs[2 * i].len != bufs[2 * i + 1].len)
			rc = jerr(r, "fuzzyKeys[%zu]: key and mask differ in "
				     "length",
				  i);
		fk[i].key = bufs[2 * i].data;
		fk[i].mask = bufs[2 * i + 1].data;
		fk[i].len = bufs[2 * i].len;
	}
	if (!rc)
		rc = sbx_filter_new_fuzzy_row(out, fk, n);
	for (size_t i = 0; bufs && i < 2 * n; i++)
		sbx_buf_free(&bufs[i]);
	free(bufs);
	free(fk);
	return rc;
}

static int read_bytes1(reader *r, json_t *o, sbx_filter **out,
		       int (*make)(sbx_filter **, const void *, size_t))
{
	sbx_buf b = {0};
	int rc = get_b64(r, o, "value", &b, true, NULL);
	if (!rc)
		rc = make(out, b.data ? (const void *)b.data : "", b.len);
	sbx_buf_free(&b);
	return rc;
}

static int read_filter_type(reader *r, json_t *o, const char *t,
			    sbx_filter **out)
{
	int64_t a, b;
	int rc;
	if (!strcmp(t, "RowFilter") || !strcmp(t, "FamilyFilter") ||
	    !strcmp(t, "QualifierFilter") || !strcmp(t, "ValueFilter"))
		return read_compare(r, o, t, out);
	if (!strcmp(t, "PrefixFilter"))
		return read_bytes1(r, o, out, sbx_filter_new_prefix);
	if (!strcmp(t, "ColumnPrefixFilter"))
		return read_bytes1(r, o, out, sbx_filter_new_column_prefix);
	if (!strcmp(t, "InclusiveStopFilter"))
		return read_bytes1(r, o, out, sbx_filter_new_inclusive_stop);
	if (!strcmp(t, "MultipleColumnPrefixFilter"))
		return read_multiple_prefix(r, o, out);
	if (!strcmp(t, "ColumnRangeFilter"))
		return read_column_range(r, o, out);
	if (!strcmp(t, "PageFilter")) {
		rc = get_int(r, o, "value", 0, INT64_MAX, &a);
		return rc ? rc : sbx_filter_new_page(out, a);
	}
	if (!strcmp(t, "ColumnCountGetFilter")) {
		rc = get_int(r, o, "limit", 0, INT32_MAX, &a);
		return rc ? rc : sbx_filter_new_column_count_get(out, (int)a);
	}
	if (!strcmp(t, "ColumnPaginationFilter")) {
		rc = get_int(r, o, "limit", 0, INT32_MAX, &a);
		if (rc)
			return rc;
		if (json_object_get(o, "columnOffset")) {
			sbx_buf col = {0};
			rc = get_b64(r, o, "columnOffset", &col, true, NULL);
			if (!rc)
				rc = sbx_filter_new_column_pagination_from(
					out, (int32_t)a, col.data, col.len);
			sbx_buf_free(&col);
			return rc;
		}
		rc = get_int(r, o, "offset", 0, INT32_MAX, &b);
		return rc ? rc
			  : sbx_filter_new_column_pagination(out, (int32_t)a,
							     (int32_t)b);
	}
	if (!strcmp(t, "FirstKeyOnlyFilter"))
		return sbx_filter_new_first_key_only(out);
	if (!strcmp(t, "KeyOnlyFilter")) {
		bool lav;
		rc = get_bool(r, o, "lenAsVal", false, &lav);
		return rc ? rc : sbx_filter_new_key_only(out, lav);
	}
	if (!strcmp(t, "RandomRowFilter")) {
		json_t *c = json_object_get(o, "chance");
		if (!json_is_number(c))
			return jerr(r, "field 'chance' must be a number");
		return sbx_filter_new_random_row(out,
						 (float)json_number_value(c));
	}
	if (!strcmp(t, "TimestampsFilter"))
		return read_timestamps(r, o, out);
	if (!strcmp(t, "SingleColumnValueFilter") ||
	    !strcmp(t, "SingleColumnValueExcludeFilter") ||
	    !strcmp(t, "DependentColumnFilter") ||
	    !strcmp(t, "ColumnValueFilter"))
		return read_column_filter(r, o, t, out);
	if (!strcmp(t, "MultiRowRangeFilter"))
		return read_ranges(r, o, out);
	if (!strcmp(t, "FuzzyRowFilter"))
		return read_fuzzy(r, o, out);
	if (!strcmp(t, "SkipFilter") || !strcmp(t, "WhileMatchFilter")) {
		sbx_filter *inner = NULL;
		rc = read_children(r, o, NULL, &inner);
		if (rc)
			return rc;
		return t[0] == 'S' ? sbx_filter_new_skip(out, inner)
				   : sbx_filter_new_while_match(out, inner);
	}
	if (!strcmp(t, "FilterList")) {
		const char *op = json_string_value(json_object_get(o, "op"));
		sbx_filter_list_op lop = SBX_FILTER_MUST_PASS_ALL;
		if (op && !strcmp(op, "MUST_PASS_ONE"))
			lop = SBX_FILTER_MUST_PASS_ONE;
		else if (op && strcmp(op, "MUST_PASS_ALL"))
			return jerr(r, "field 'op' must be MUST_PASS_ALL or "
				       "MUST_PASS_ONE");
		rc = sbx_filter_new_list(out, lop, NULL, 0);
		if (!rc)
			rc = read_children(r, o, *out, NULL);
		if (rc) {
			sbx_filter_free(*out);
			*out = NULL;
		}
		return rc;
	}
	return jerr(r, "unknown filter type '%.60s'", t);
}

static int read_filter(reader *r, json_t *o, sbx_filter **out)
{
	*out = NULL;
	if (!json_is_object(o))
		return jerr(r, "a filter must be a JSON object");
	const char *t = json_string_value(json_object_get(o, "type"));
	if (!t)
		return jerr(r, "missing string field 'type'");
	if (++r->depth > MAX_DEPTH) {
		r->depth--;
		return jerr(r, "filters nested more than %d deep", MAX_DEPTH);
	}
	int rc = read_filter_type(r, o, t, out);
	r->depth--;
	if (rc == SBX_EINVAL)
		rc = jerr(r, "%s", sbx_errmsg());
	return rc;
}

int sbx_filter_from_json(sbx_filter **out, const char *json, size_t len)
{
	*out = NULL;
	json_error_t e;
	json_t *root = json_loadb(json ? json : "", json ? len : 0,
				  JSON_DECODE_ANY | JSON_ALLOW_NUL, &e);
	if (!root)
		return sbx_error_set(SBX_EPARSE,
				     "filter JSON: line %d, column %d: %s",
				     e.line, e.column, e.text);
	reader r = {{0}, 0};
	int rc = read_filter(&r, root, out);
	json_decref(root);
	return rc;
}

/* ---- writing ------------------------------------------------------------------ */

static int put_b64(json_t *o, const char *key, const uint8_t *p, size_t len)
{
	json_t *s = b64_json(p, len);
	return !s || json_object_set_new(o, key, s) ? SBX_ENOMEM_SET() : SBX_OK;
}

static int put_comparator(json_t *o, const sbx_comparator *c)
{
	static const char *const names[] = {
		"BinaryComparator", "BinaryPrefixComparator",
		"RegexStringComparator", "SubstringComparator",
		"LongComparator", "NullComparator",
		"BitComparator", "BitComparator",
		"BitComparator",
	};
	sbx_comparator_type t = sbx_comparator_get_type(c);
	size_t len;
	const uint8_t *v = sbx_comparator_value(c, &len);
	json_t *j = json_object();
	if (!j || json_object_set_new(o, "comparator", j) ||
	    json_object_set_new(j, "type", json_string(names[t])))
		return SBX_ENOMEM_SET();
	if (t == SBX_COMPARATOR_NULL)
		return SBX_OK;
	if (t == SBX_COMPARATOR_REGEX || t == SBX_COMPARATOR_SUBSTRING) {
		json_t *s = json_stringn((const char *)v, len);
		if (!s)
			return sbx_error_set(SBX_EINVAL,
					     "comparator value is not valid "
					     "UTF-8");
		return json_object_set_new(j, "value", s) ? SBX_ENOMEM_SET()
							  : SBX_OK;
	}
	if (t >= SBX_COMPARATOR_BIT_AND) {
		const char *bop = t == SBX_COMPARATOR_BIT_AND  ? "AND"
				  : t == SBX_COMPARATOR_BIT_OR ? "OR"
							       : "XOR";
		if (json_object_set_new(j, "op", json_string(bop)))
			return SBX_ENOMEM_SET();
	}
	return put_b64(j, "value", v, len);
}

static int put_compare(json_t *o, sbx_compare_op op, const sbx_comparator *c)
{
	if (json_object_set_new(o, "op", json_string(op_names[op])))
		return SBX_ENOMEM_SET();
	return c ? put_comparator(o, c) : SBX_OK;
}

static int put_bool(json_t *o, const char *key, bool v)
{
	return json_object_set_new(o, key, json_boolean(v)) ? SBX_ENOMEM_SET()
							    : SBX_OK;
}

static int put_int(json_t *o, const char *key, int64_t v)
{
	return json_object_set_new(o, key, json_integer(v)) ? SBX_ENOMEM_SET()
							    : SBX_OK;
}

static int write_filter(json_t **out, const sbx_filter *f, int depth);

static int put_children(json_t *o, sbx_filter *const *fs, size_t n,
			size_t stride, int depth)
{
	json_t *a = json_array();
	if (!a || json_object_set_new(o, "filters", a))
		return SBX_ENOMEM_SET();
	for (size_t i = 0; i < n; i++) {
		json_t *j;
		const sbx_filter *f =
			*(sbx_filter *const *)((const char *)fs + i * stride);
		int rc = write_filter(&j, f, depth + 1);
		if (rc)
			return rc;
		if (json_array_append_new(a, j))
			return SBX_ENOMEM_SET();
	}
	return SBX_OK;
}

static int write_column_value(json_t *o, const flt_column_value *s)
{
	int rc = put_b64(o, "family", s->family.data, s->family.len);
	if (!rc)
		rc = put_b64(o, "qualifier", s->qualifier.data,
			     s->qualifier.len);
	if (!rc && (s->cmp || s->b.kind != FLT_DEPENDENT_COLUMN))
		rc = put_compare(o, s->op, s->cmp);
	if (rc)
		return rc;
	switch (s->b.kind) {
	case FLT_DEPENDENT_COLUMN:
		return put_bool(o, "dropDependentColumn", s->drop_dependent);
	case FLT_COLUMN_VALUE:
		return SBX_OK;
	default:
		rc = put_bool(o, "ifMissing", s->filter_if_missing);
		return rc ? rc
			  : put_bool(o, "latestVersion",
				     s->latest_version_only);
	}
}

static int write_body(json_t *o, const flt_base *b, int depth)
{
	int rc = SBX_OK;
	switch (b->kind) {
	case FLT_PREFIX:
	case FLT_COLUMN_PREFIX:
	case FLT_INCLUSIVE_STOP: {
		const flt_prefix *s = (const flt_prefix *)b;
		return put_b64(o, "value", s->prefix.data, s->prefix.len);
	}
	case FLT_ROW:
	case FLT_FAMILY:
	case FLT_QUALIFIER:
	case FLT_VALUE: {
		const flt_compare *s = (const flt_compare *)b;
		return put_compare(o, s->op, s->cmp);
	}
	case FLT_MULTIPLE_COLUMN_PREFIX: {
		const flt_multi_prefix *s = (const flt_multi_prefix *)b;
		json_t *a = json_array();
		if (!a || json_object_set_new(o, "prefixes", a))
			return SBX_ENOMEM_SET();
		for (size_t i = 0; !rc && i < s->ngiven; i++) {
			json_t *e = b64_json(s->given[i].data, s->given[i].len);
			if (!e || json_array_append_new(a, e))
				rc = SBX_ENOMEM_SET();
		}
		return rc;
	}
	case FLT_COLUMN_RANGE: {
		const flt_column_range *s = (const flt_column_range *)b;
		if (s->has_min)
			rc = put_b64(o, "minColumn", s->min.data, s->min.len);
		if (!rc)
			rc = put_bool(o, "minColumnInclusive",
				      s->min_inclusive);
		if (!rc && s->has_max)
			rc = put_b64(o, "maxColumn", s->max.data, s->max.len);
		return rc ? rc
			  : put_bool(o, "maxColumnInclusive",
				     s->max_inclusive);
	}
	case FLT_SINGLE_COLUMN_VALUE:
	case FLT_SINGLE_COLUMN_VALUE_EXCLUDE:
	case FLT_DEPENDENT_COLUMN:
	case FLT_COLUMN_VALUE:
		return write_column_value(o, (const flt_column_value *)b);
	case FLT_PAGE: {
		/* HBase's own model sends the page size as a string. */
		char num[32];
		snprintf(num, sizeof num, "%lld",
			 (long long)((const flt_counter *)b)->limit);
		return json_object_set_new(o, "value", json_string(num))
			       ? SBX_ENOMEM_SET()
			       : SBX_OK;
	}
	case FLT_FIRST_KEY_ONLY:
		return SBX_OK;
	case FLT_KEY_ONLY:
		return ((const flt_counter *)b)->len_as_value
			       ? put_bool(o, "lenAsVal", true)
			       : SBX_OK;
	case FLT_COLUMN_PAGINATION: {
		const flt_counter *s = (const flt_counter *)b;
		rc = put_int(o, "limit", s->limit);
		if (!rc && s->has_column_offset)
			return put_b64(o, "columnOffset", s->column_offset.data,
				       s->column_offset.len);
		return rc ? rc : put_int(o, "offset", s->offset);
	}
	case FLT_COLUMN_COUNT_GET:
		return put_int(o, "limit", ((const flt_counter *)b)->limit);
	case FLT_TIMESTAMPS: {
		const flt_timestamps *s = (const flt_timestamps *)b;
		json_t *a = json_array();
		if (!a || json_object_set_new(o, "timestamps", a))
			return SBX_ENOMEM_SET();
		for (size_t i = 0; i < s->n; i++)
			if (json_array_append_new(a, json_integer(s->ts[i])))
				return SBX_ENOMEM_SET();
		return SBX_OK;
	}
	case FLT_RANDOM_ROW:
		return json_object_set_new(
			       o, "chance",
			       json_real(((const flt_random_row *)b)->chance))
			       ? SBX_ENOMEM_SET()
			       : SBX_OK;
	case FLT_MULTI_ROW_RANGE: {
		const flt_multi_row_range *s = (const flt_multi_row_range *)b;
		json_t *a = json_array();
		if (!a || json_object_set_new(o, "ranges", a))
			return SBX_ENOMEM_SET();
		for (size_t i = 0; !rc && i < s->n; i++) {
			const flt_range *g = &s->ranges[i];
			json_t *e = json_object();
			if (!e || json_array_append_new(a, e))
				return SBX_ENOMEM_SET();
			rc = put_b64(e, "startRow", g->start.data, g->start.len);
			if (!rc)
				rc = put_bool(e, "startRowInclusive",
					      g->start_inclusive);
			if (!rc)
				rc = put_b64(e, "stopRow", g->stop.data,
					     g->stop.len);
			if (!rc)
				rc = put_bool(e, "stopRowInclusive",
					      g->stop_inclusive);
		}
		return rc;
	}
	case FLT_FUZZY_ROW: {
		const flt_fuzzy_row *s = (const flt_fuzzy_row *)b;
		json_t *a = json_array();
		if (!a || json_object_set_new(o, "fuzzyKeys", a))
			return SBX_ENOMEM_SET();
		for (size_t i = 0; !rc && i < s->n; i++) {
			json_t *e = json_object();
			if (!e || json_array_append_new(a, e))
				return SBX_ENOMEM_SET();
			rc = put_b64(e, "key", s->keys[i].data, s->keys[i].len);
			if (!rc)
				rc = put_b64(e, "mask", s->masks[i].data,
					     s->masks[i].len);
		}
		return rc;
	}
	case FLT_SKIP:
	case FLT_WHILE_MATCH: {
		const flt_wrap *s = (const flt_wrap *)b;
		return put_children(o, &s->inner, 1, sizeof s->inner, depth);
	}
	case FLT_LIST: {
		const flt_list *s = (const flt_list *)b;
		rc = json_object_set_new(
			o, "op",
			json_string(s->op == SBX_FILTER_MUST_PASS_ALL
					    ? "MUST_PASS_ALL"
					    : "MUST_PASS_ONE"));
		if (rc)
			return SBX_ENOMEM_SET();
		return put_children(o, s->n ? &s->c[0].f : NULL, s->n,
				    sizeof s->c[0], depth);
	}
	}
	return SBX_OK;
}

static const char *type_name(flt_kind k)
{
	static const char *const names[] = {
		[FLT_PREFIX] = "PrefixFilter",
		[FLT_ROW] = "RowFilter",
		[FLT_FAMILY] = "FamilyFilter",
		[FLT_QUALIFIER] = "QualifierFilter",
		[FLT_VALUE] = "ValueFilter",
		[FLT_COLUMN_PREFIX] = "ColumnPrefixFilter",
		[FLT_MULTIPLE_COLUMN_PREFIX] = "MultipleColumnPrefixFilter",
		[FLT_COLUMN_RANGE] = "ColumnRangeFilter",
		[FLT_SINGLE_COLUMN_VALUE] = "SingleColumnValueFilter",
		[FLT_SINGLE_COLUMN_VALUE_EXCLUDE] =
			"SingleColumnValueExcludeFilter",
		[FLT_DEPENDENT_COLUMN] = "DependentColumnFilter",
		[FLT_COLUMN_VALUE] = "ColumnValueFilter",
		[FLT_PAGE] = "PageFilter",
		[FLT_FIRST_KEY_ONLY] = "FirstKeyOnlyFilter",
		[FLT_KEY_ONLY] = "KeyOnlyFilter",
		[FLT_COLUMN_PAGINATION] = "ColumnPaginationFilter",
		[FLT_COLUMN_COUNT_GET] = "ColumnCountGetFilter",
		[FLT_TIMESTAMPS] = "TimestampsFilter",
		[FLT_INCLUSIVE_STOP] = "InclusiveStopFilter",
		[FLT_RANDOM_ROW] = "RandomRowFilter",
		[FLT_MULTI_ROW_RANGE] = "MultiRowRangeFilter",
		[FLT_FUZZY_ROW] = "FuzzyRowFilter",
		[FLT_SKIP] = "SkipFilter",
		[FLT_WHILE_MATCH] = "WhileMatchFilter",
		[FLT_LIST] = "FilterList",
	};
	return names[k];
}

static int write_filter(json_t **out, const sbx_filter *f, int depth)
{
	*out = NULL;
	const flt_base *b = flt_builtin(f);
	if (!b)
		return sbx_error_set(SBX_EUNSUPPORTED,
				     "a filter made from callbacks has no JSON "
				     "form");
	if (depth > 1000)
		return sbx_error_set(SBX_EUNSUPPORTED, "filter nested too deep");
	json_t *o = json_object();
	if (!o || json_object_set_new(o, "type", json_string(type_name(b->kind)))) {
		json_decref(o);
		return SBX_ENOMEM_SET();
	}
	int rc = write_body(o, b, depth);
	if (rc) {
		json_decref(o);
		return rc;
	}
	*out = o;
	return SBX_OK;
}

int sbx_filter_to_json(sbx_buf *out, const sbx_filter *f)
{
	json_t *o;
	int rc = write_filter(&o, f, 0);
	if (rc)
		return rc;
	char *s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(o);
	if (!s)
		return SBX_ENOMEM_SET();
	rc = sbx_buf_append(out, s, strlen(s));
	free(s);
	return rc;
}
