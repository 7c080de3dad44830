/*
 * prefilter.c - HBase filters that Bigtable can run on the server. The
 * client still runs every filter through HBase's pipeline on each merged
 * row (scan.c), so what is sent here only has to keep every cell the
 * filter would keep: it saves transfer and never changes a result. The
 * filter is read through its public JSON form (sbx_filter_to_json, HBase
 * REST's), and only filters whose meaning is one cell (or one row key) at
 * a time map; anything with state, row-level decisions or ordering
 * (PageFilter, SingleColumnValueFilter, FirstKeyOnlyFilter, OR lists, ...)
 * is left to the client whole.
 */
#include "bigtable/bigtable.h"

#include "common/alloc.h"
#include "common/base64.h"
#include "common/error.h"

#include "saltbox/filter.h"

#include <jansson.h>
#include <string.h>

typedef enum { ON_ROW, ON_FAMILY, ON_QUALIFIER, ON_VALUE } target;

/* A regex filter on `on` matching `bytes` exactly, or as a prefix. */
static int regex_filter(Sbxbt__RowFilter **out, target on, const void *bytes,
			size_t len, bool prefix)
{
	*out = NULL;
	sbx_buf b = {0};
	if (bt_regex_exact(&b, bytes, len))
		return SBX_ENOMEM_SET();
	b.len--; /* the NUL */
	if ((prefix && sbx_buf_append(&b, "\\C*", 3)) || sbx_buf_push(&b, 0)) {
		sbx_buf_free(&b);
		return SBX_ENOMEM_SET();
	}
	Sbxbt__RowFilter *f = bt_filter_new();
	if (!f) {
		sbx_buf_free(&b);
		return SBX_ENOMEM_SET();
	}
	ProtobufCBinaryData re = {b.len - 1, b.data}; /* owned by f */
	switch (on) {
	case ON_ROW:
		f->filter_case = SBXBT__ROW_FILTER__FILTER_ROW_KEY_REGEX_FILTER;
		f->row_key_regex_filter = re;
		break;
	case ON_FAMILY:
		f->filter_case = SBXBT__ROW_FILTER__FILTER_FAMILY_NAME_REGEX_FILTER;
		f->family_name_regex_filter = (char *)b.data;
		break;
	case ON_QUALIFIER:
		f->filter_case =
		    SBXBT__ROW_FILTER__FILTER_COLUMN_QUALIFIER_REGEX_FILTER;
		f->column_qualifier_regex_filter = re;
		break;
	case ON_VALUE:
		f->filter_case = SBXBT__ROW_FILTER__FILTER_VALUE_REGEX_FILTER;
		f->value_regex_filter = re;
		break;
	}
	*out = f;
	return SBX_OK;
}

/* The bytes of a base64 JSON string member; false when absent or bad. */
static bool b64_member(sbx_buf *out, json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	return json_is_string(v) &&
	       sbx_base64_decode(out, json_string_value(v),
				 json_string_length(v), false) == SBX_OK;
}

static int map_one(Sbxbt__RowFilter **out, json_t *o, bool alone);

/* `{"type": ..., "op": "EQUAL", "comparator": {"type":
 * "BinaryComparator" | "BinaryPrefixComparator", "value": b64}}` */
static int map_compare(Sbxbt__RowFilter **out, json_t *o, target on)
{
	json_t *c = json_object_get(o, "comparator");
	const char *op = json_string_value(json_object_get(o, "op"));
	const char *ct = json_string_value(json_object_get(c, "type"));
	if (!op || strcmp(op, "EQUAL") || !ct)
		return SBX_OK;
	bool prefix = !strcmp(ct, "BinaryPrefixComparator");
	if (!prefix && strcmp(ct, "BinaryComparator"))
		return SBX_OK;
	sbx_buf v = {0};
	int rc = SBX_OK;
	if (b64_member(&v, c, "value"))
		rc = regex_filter(out, on, v.data, v.len, prefix);
	sbx_buf_free(&v);
	return rc;
}

static int map_list(Sbxbt__RowFilter **out, json_t *o)
{
	const char *op = json_string_value(json_object_get(o, "op"));
	json_t *fs = json_object_get(o, "filters");
	size_t n = json_array_size(fs);
	if (!op || strcmp(op, "MUST_PASS_ALL") || n == 0 || n > 64)
		return SBX_OK;
	Sbxbt__RowFilter *v[64];
	size_t k = 0;
	int rc = SBX_OK;
	/* every member must map: an unmapped one may hold state (a page
	 * count, a row decision) that a narrower input would change */
	for (size_t i = 0; i < n; i++) {
		Sbxbt__RowFilter *f = NULL;
		rc = map_one(&f, json_array_get(fs, i), false);
		if (rc || !f) {
			for (size_t j = 0; j < k; j++)
				bt_filter_free(v[j]);
			return rc;
		}
		v[k++] = f;
	}
	*out = bt_filter_combine(true, v, k);
	return *out ? SBX_OK : SBX_ENOMEM_SET();
}

static int map_one(Sbxbt__RowFilter **out, json_t *o, bool alone)
{
	*out = NULL;
	const char *t = json_string_value(json_object_get(o, "type"));
	if (!t)
		return SBX_OK;
	sbx_buf v = {0};
	int rc = SBX_OK;
	if (!strcmp(t, "PrefixFilter") || !strcmp(t, "ColumnPrefixFilter")) {
		if (b64_member(&v, o, "value"))
			rc = regex_filter(out, t[0] == 'P' ? ON_ROW : ON_QUALIFIER,
					  v.data, v.len, true);
	} else if (!strcmp(t, "RowFilter")) {
		rc = map_compare(out, o, ON_ROW);
	} else if (!strcmp(t, "FamilyFilter")) {
		rc = map_compare(out, o, ON_FAMILY);
	} else if (!strcmp(t, "QualifierFilter")) {
		rc = map_compare(out, o, ON_QUALIFIER);
	} else if (!strcmp(t, "ValueFilter")) {
		rc = map_compare(out, o, ON_VALUE);
	} else if (!strcmp(t, "MultipleColumnPrefixFilter")) {
		json_t *ps = json_object_get(o, "prefixes");
		size_t n = json_array_size(ps);
		Sbxbt__RowFilter **fs = n ? sbx_calloc(n, sizeof *fs) : NULL;
		if (n && !fs)
			return SBX_ENOMEM_SET();
		size_t k = 0;
		for (size_t i = 0; !rc && i < n; i++) {
			json_t *p = json_array_get(ps, i);
			sbx_buf_reset(&v);
			if (!json_is_string(p) ||
			    sbx_base64_decode(&v, json_string_value(p),
					      json_string_length(p), false))
				break;
			rc = regex_filter(&fs[k], ON_QUALIFIER, v.data, v.len,
					  true);
			if (!rc)
				k++;
		}
		if (!rc && k == n && n)
			*out = bt_filter_combine(false, fs, k);
		else
			for (size_t i = 0; i < k; i++)
				bt_filter_free(fs[i]);
		if (!rc && k == n && n && !*out)
			rc = SBX_ENOMEM_SET();
		free(fs);
	} else if (!strcmp(t, "KeyOnlyFilter") && alone) {
		/* alone only: in a list, later members would see no values */
		json_t *lav = json_object_get(o, "lenAsVal");
		if (!json_is_true(lav)) {
			if (!(*out = bt_filter_new()))
				rc = SBX_ENOMEM_SET();
			else {
				(*out)->filter_case =
				    SBXBT__ROW_FILTER__FILTER_STRIP_VALUE_TRANSFORMER;
				(*out)->strip_value_transformer = true;
			}
		}
	} else if (!strcmp(t, "FilterList")) {
		rc = map_list(out, o);
	}
	sbx_buf_free(&v);
	return rc;
}

int bt_prefilter(Sbxbt__RowFilter **out, const sbx_filter *f)
{
	*out = NULL;
	sbx_buf text = {0};
	int rc = sbx_filter_to_json(&text, f);
	if (rc) { /* a filter with no JSON form (sbx_filter_new): client only */
		sbx_buf_free(&text);
		return rc == SBX_ENOMEM ? rc : SBX_OK;
	}
	json_t *o = json_loadb((const char *)text.data, text.len, 0, NULL);
	sbx_buf_free(&text);
	if (!o)
		return SBX_OK;
	rc = map_one(out, o, true);
	json_decref(o);
	return rc;
}
