/*
 * celllines.c - cells to and from lines of TSV or JSON CellSets (see
 * celllines.h). A line parses whole or not at all: on a bad line no
 * mutation is left behind.
 */
#include "io/celllines.h"

#include "common/alloc.h"
#include "common/buf.h"
#include "common/error.h"
#include "wire/cellset.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

int io_cell_tsv_line(sbx_buf *out, const sbx_cell *c)
{
	int rc = sbx_key_to_binary_string(out, c->row, c->row_len);
	rc = rc ? rc : sbx_buf_printf(out, "\t%.*s:", (int)c->family_len,
				      c->family);
	rc = rc ? rc
		: sbx_key_to_binary_string(out, c->qualifier, c->qualifier_len);
	rc = rc ? rc : sbx_buf_printf(out, "\t%lld\t", (long long)c->timestamp);
	rc = rc ? rc : sbx_key_to_binary_string(out, c->value, c->value_len);
	return rc ? rc : sbx_buf_push(out, '\n');
}

int io_row_json_line(sbx_buf *out, const sbx_result *r)
{
	rest_cellset_writer w;
	int rc = rest_cellset_open(&w, out, REST_FMT_JSON);
	rc = rc ? rc : rest_cellset_add(&w, out, r, 0, sbx_result_size(r));
	rc = rc ? rc : rest_cellset_close(&w, out);
	rest_cellset_writer_free(&w);
	return rc ? rc : sbx_buf_push(out, '\n');
}

/* One TSV line's fields; NULL or the reason it is a bad line. */
static const char *tsv_fields(char *text, sbx_buf *row, sbx_buf *qual,
			      sbx_buf *val, char *family, int64_t *ts)
{
	char *f[4];
	f[0] = text;
	for (int i = 1; i < 4; i++) {
		char *tab = strchr(f[i - 1], '\t');
		if (!tab)
			return "fewer than 4 fields";
		*tab = 0;
		f[i] = tab + 1;
	}
	if (strchr(f[3], '\t'))
		return "more than 4 fields";
	row->len = qual->len = val->len = 0;
	if (sbx_key_from_binary_string(row, f[0], strlen(f[0])) ||
	    row->len == 0)
		return "bad row";
	char *colon = strchr(f[1], ':');
	size_t fl = colon ? (size_t)(colon - f[1]) : 0;
	if (!colon || fl == 0 || fl > SBX_MAX_FAMILY_NAME)
		return "bad family:qualifier";
	memcpy(family, f[1], fl);
	family[fl] = 0;
	if (sbx_key_from_binary_string(qual, colon + 1, strlen(colon + 1)))
		return "bad qualifier";
	char *end;
	errno = 0;
	long long v = strtoll(f[2], &end, 10);
	if (errno || *end || end == f[2] || v < 0)
		return "bad timestamp";
	*ts = v;
	if (sbx_key_from_binary_string(val, f[3], strlen(f[3])))
		return "bad value";
	return NULL;
}

static int tsv_mutation(sbx_mutation **out, char *text)
{
	sbx_buf row = {0}, qual = {0}, val = {0};
	char family[SBX_MAX_FAMILY_NAME + 1];
	int64_t ts;
	const char *why = tsv_fields(text, &row, &qual, &val, family, &ts);
	int rc = why ? sbx_error_set(SBX_EPARSE, "%s", why)
		     : sbx_mutation_new(out, row.data, row.len);
	if (!why && !rc &&
	    (rc = sbx_mutation_put(*out, family, qual.data, qual.len, ts,
				   val.data, val.len))) {
		sbx_mutation_free(*out);
		*out = NULL;
	}
	sbx_buf_free(&row);
	sbx_buf_free(&qual);
	sbx_buf_free(&val);
	return rc;
}

/* One CellSet row's puts; SBX_EPARSE for a row without a key or a cell
 * without family:qualifier. */
static int row_mutation(sbx_mutation **out, const rest_row *r)
{
	int rc = r->has_key && r->key.len
			 ? sbx_mutation_new(out, r->key.data, r->key.len)
			 : SBX_EPARSE;
	for (size_t j = 0; !rc && j < r->ncells; j++) {
		const rest_cell *c = &r->cells[j];
		const uint8_t *col = c->column.data;
		const uint8_t *colon =
			c->has_column ? memchr(col, ':', c->column.len) : NULL;
		size_t fl = colon ? (size_t)(colon - col) : 0;
		char family[SBX_MAX_FAMILY_NAME + 1];
		if (!colon || fl == 0 || fl > SBX_MAX_FAMILY_NAME ||
		    memchr(col, 0, fl))
			return SBX_EPARSE;
		memcpy(family, col, fl);
		family[fl] = 0;
		rc = sbx_mutation_put(*out, family, colon + 1,
				      c->column.len - fl - 1,
				      c->has_timestamp ? c->timestamp
						       : SBX_LATEST_TIMESTAMP,
				      c->value.data, c->value.len);
	}
	return rc;
}

static int json_mutations(sbx_mutation ***out, size_t *n, char *text,
			  size_t len)
{
	rest_cellset cs;
	char err[REST_ERR_LEN] = "";
	int rc = rest_cellset_from_json(&cs, (const uint8_t *)text, len, err);
	if (rc == SBX_ENOMEM)
		return SBX_ENOMEM_SET();
	if (rc)
		return sbx_error_set(rc, "%s", err);
	sbx_mutation **v = sbx_calloc(cs.nrows ? cs.nrows : 1, sizeof *v);
	rc = v ? SBX_OK : SBX_ENOMEM_SET();
	for (size_t i = 0; !rc && i < cs.nrows; i++)
		rc = row_mutation(&v[i], &cs.rows[i]);
	if (rc == SBX_EPARSE)
		sbx_error_set(rc, "a row without a key or a cell without "
				  "family:qualifier");
	if (rc) {
		for (size_t i = 0; v && i < cs.nrows; i++)
			sbx_mutation_free(v[i]); /* calloc'd: unmade ones NULL */
		free(v);
	} else {
		*out = v;
		*n = cs.nrows;
	}
	rest_cellset_free(&cs);
	return rc;
}

int io_line_mutations(sbx_mutation ***out, size_t *n, bool json, char *text,
		      size_t len)
{
	*out = NULL;
	*n = 0;
	if (json)
		return json_mutations(out, n, text, len);
	sbx_mutation **v = sbx_calloc(1, sizeof *v);
	if (!v)
		return SBX_ENOMEM_SET();
	int rc = tsv_mutation(&v[0], text);
	if (rc) {
		free(v);
		return rc;
	}
	*out = v;
	*n = 1;
	return SBX_OK;
}

/* ---- the schema line ---- */

/* Append s as a JSON string (names and attribute values: printable). */
static int json_str(sbx_buf *out, const char *s)
{
	int rc = sbx_buf_push(out, '"');
	for (; !rc && *s; s++)
		rc = (*s == '"' || *s == '\\')
			     ? sbx_buf_printf(out, "\\%c", *s)
			     : ((unsigned char)*s < 0x20
					? sbx_buf_printf(out, "\\u%04x",
							 (unsigned char)*s)
					: sbx_buf_push(out, *s));
	return rc ? rc : sbx_buf_push(out, '"');
}

int io_schema_line(sbx_buf *out, const sbx_table_info *info)
{
	int rc = sbx_buf_printf(out, "%s{\"name\":", IO_SCHEMA_TAG);
	rc = rc ? rc : json_str(out, info->name);
	rc = rc ? rc : sbx_buf_printf(out, ",\"ColumnSchema\":[");
	for (size_t i = 0; !rc && i < info->nfamilies; i++) {
		const sbx_family_desc *f = &info->families[i];
		rc = sbx_buf_printf(out, "%s{\"name\":", i ? "," : "");
		rc = rc ? rc : json_str(out, f->name);
		sbx_family_attr a;
		for (size_t k = 0; !rc && sbx_family_desc_attr(&a, f, k) == SBX_OK;
		     k++) {
			if (a.is_default)
				continue;
			rc = sbx_buf_printf(out, ",\"%s\":", a.name);
			rc = rc ? rc : json_str(out, a.value);
		}
		rc = rc ? rc : sbx_buf_push(out, '}');
	}
	rc = rc ? rc : sbx_buf_printf(out, "]}\n");
	return rc;
}

bool io_is_schema_line(const char *text)
{
	return !strncmp(text, IO_SCHEMA_TAG, strlen(IO_SCHEMA_TAG));
}

/* Family i of the ColumnSchema array into *f; SBX_EPARSE with the reason. */
static int schema_family(sbx_family_desc *f, json_t *col)
{
	json_t *name = json_object_get(col, "name");
	if (!json_is_string(name))
		return sbx_error_set(SBX_EPARSE, "schema line: a ColumnSchema "
						 "without a name");
	if (sbx_family_desc_init(f, json_string_value(name)))
		return sbx_error_set(SBX_EPARSE, "schema line: %s",
				     sbx_errmsg());
	const char *k;
	json_t *v;
	json_object_foreach(col, k, v)
	{
		char num[32];
		const char *text = NULL;
		if (!strcmp(k, "name"))
			continue;
		if (json_is_string(v)) {
			text = json_string_value(v);
		} else if (json_is_integer(v)) {
			snprintf(num, sizeof num, "%lld",
				 (long long)json_integer_value(v));
			text = num;
		} else if (json_is_boolean(v)) {
			text = json_is_true(v) ? "true" : "false";
		}
		int rc = text ? sbx_family_desc_set(f, k, text) : SBX_EINVAL;
		if (rc == SBX_EUNSUPPORTED)
			continue; /* HBase's own, which Saltbox does not model */
		if (rc == SBX_ENOMEM)
			return rc;
		if (rc)
			return sbx_error_set(SBX_EPARSE,
					     "schema line: family '%s': %s",
					     f->name,
					     text ? sbx_errmsg()
						  : "an attribute value is "
						    "not a string");
	}
	return SBX_OK;
}

int io_schema_parse(sbx_family_desc **fams, size_t *n, const char *text)
{
	*fams = NULL;
	*n = 0;
	if (!io_is_schema_line(text))
		return sbx_error_set(SBX_EPARSE, "not a schema line");
	json_error_t jerr;
	json_t *root = json_loads(text + strlen(IO_SCHEMA_TAG), 0, &jerr);
	if (!root)
		return sbx_error_set(SBX_EPARSE, "schema line: malformed "
						 "JSON: %s", jerr.text);
	json_t *cols = json_object_get(root, "ColumnSchema");
	size_t nc = json_is_array(cols) ? json_array_size(cols) : 0;
	int rc = nc ? SBX_OK
		    : sbx_error_set(SBX_EPARSE, "schema line: no "
						"ColumnSchema");
	sbx_family_desc *v = rc ? NULL : sbx_calloc(nc, sizeof *v);
	if (!rc && !v)
		rc = SBX_ENOMEM_SET();
	for (size_t i = 0; !rc && i < nc; i++) {
		json_t *col = json_array_get(cols, i);
		rc = json_is_object(col)
			     ? schema_family(&v[i], col)
			     : sbx_error_set(SBX_EPARSE, "schema line: each "
							 "ColumnSchema must "
							 "be an object");
	}
	json_decref(root);
	if (rc) {
		free(v);
		return rc;
	}
	*fams = v;
	*n = nc;
	return SBX_OK;
}
