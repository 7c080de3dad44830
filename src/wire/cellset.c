/*
 * cellset.c - HBase REST's CellSet, the body of every cell read and write,
 * in one copy for the server, the remote backend and `saltbox
 * import/export`: the model, decoders for JSON (jansson) and protobuf, and
 * a streaming writer for JSON, XML and protobuf. (The XML decoder needs
 * expat and lives with the server.) Keys, columns and values are base64
 * in JSON/XML and raw bytes in protobuf. Decoders keep "absent" apart from
 * "empty" because the URL fills absent keys and columns.
 */
#include "wire/cellset.h"

#include "common/alloc.h"
#include "common/base64.h"
#include "common/buf.h"
#include "wire/pb.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CS_ERR(err, ...) (snprintf((err), REST_ERR_LEN, __VA_ARGS__), SBX_EPARSE)

void rest_cellset_free(rest_cellset *cs)
{
	for (size_t i = 0; i < cs->nrows; i++) {
		rest_row *row = &cs->rows[i];
		sbx_buf_free(&row->key);
		for (size_t j = 0; j < row->ncells; j++) {
			sbx_buf_free(&row->cells[j].column);
			sbx_buf_free(&row->cells[j].value);
		}
		free(row->cells);
	}
	free(cs->rows);
	memset(cs, 0, sizeof *cs);
}

rest_row *rest_cellset_add_row(rest_cellset *cs)
{
	if (cs->nrows == cs->cap) {
		size_t cap = cs->cap ? cs->cap * 2 : 4;
		rest_row *rows = sbx_realloc(cs->rows, cap * sizeof *rows);
		if (!rows)
			return NULL;
		cs->rows = rows;
		cs->cap = cap;
	}
	rest_row *row = &cs->rows[cs->nrows++];
	memset(row, 0, sizeof *row);
	return row;
}

rest_cell *rest_row_add_cell(rest_row *row)
{
	if (row->ncells == row->cap) {
		size_t cap = row->cap ? row->cap * 2 : 4;
		rest_cell *cells = sbx_realloc(row->cells, cap * sizeof *cells);
		if (!cells)
			return NULL;
		row->cells = cells;
		row->cap = cap;
	}
	rest_cell *c = &row->cells[row->ncells++];
	memset(c, 0, sizeof *c);
	return c;
}

int rest_parse_int64(const char *s, size_t len, int64_t *out)
{
	if (len == 0 || len > 20)
		return SBX_EPARSE;
	char tmp[24];
	memcpy(tmp, s, len);
	tmp[len] = 0;
	char *end;
	long long v = strtoll(tmp, &end, 10);
	if (*end || end == tmp || tmp[0] == '+' || tmp[0] == ' ')
		return SBX_EPARSE;
	*out = v;
	return SBX_OK;
}

/* ---- JSON ----------------------------------------------------------------- */

static int json_b64_field(sbx_buf *out, bool *present, json_t *obj,
			  const char *key, char *err)
{
	json_t *v = json_object_get(obj, key);
	if (present)
		*present = v && !json_is_null(v);
	if (!v || json_is_null(v))
		return SBX_OK;
	if (!json_is_string(v))
		return CS_ERR(err, "'%s' must be a base64 string", key);
	int rc = sbx_base64_decode(out, json_string_value(v),
				   json_string_length(v), false);
	if (rc == SBX_ENOMEM)
		return rc; /* no room for the bytes: not the sender's fault */
	if (rc)
		return CS_ERR(err, "'%s' is not valid base64", key);
	return SBX_OK;
}

int rest_json_int64(json_t *v, int64_t *out)
{
	if (json_is_integer(v)) {
		*out = json_integer_value(v);
		return SBX_OK;
	}
	if (json_is_string(v))
		return rest_parse_int64(json_string_value(v), json_string_length(v),
				     out);
	return SBX_EPARSE;
}

static int json_cell(rest_row *row, json_t *jc, char *err)
{
	if (!json_is_object(jc))
		return CS_ERR(err, "each Cell must be an object");
	rest_cell *c = rest_row_add_cell(row);
	if (!c)
		return SBX_ENOMEM;
	int rc = json_b64_field(&c->column, &c->has_column, jc, "column", err);
	if (!rc)
		rc = json_b64_field(&c->value, NULL, jc, "$", err);
	if (rc)
		return rc;
	json_t *ts = json_object_get(jc, "timestamp");
	if (ts && !json_is_null(ts)) {
		if (rest_json_int64(ts, &c->timestamp))
			return CS_ERR(err, "'timestamp' must be an integer");
		c->has_timestamp = true;
	}
	return SBX_OK;
}

static int json_row(rest_cellset *cs, json_t *jr, char *err)
{
	if (!json_is_object(jr))
		return CS_ERR(err, "each Row must be an object");
	rest_row *row = rest_cellset_add_row(cs);
	if (!row)
		return SBX_ENOMEM;
	int rc = json_b64_field(&row->key, &row->has_key, jr, "key", err);
	if (rc)
		return rc;
	json_t *cells = json_object_get(jr, "Cell");
	if (json_is_object(cells))
		return json_cell(row, cells, err);
	if (cells && !json_is_array(cells))
		return CS_ERR(err, "'Cell' must be an array");
	size_t i;
	json_t *jc;
	json_array_foreach(cells, i, jc)
	{
		rc = json_cell(row, jc, err);
		if (rc)
			return rc;
	}
	return SBX_OK;
}

int rest_cellset_from_jansson(rest_cellset *cs, json_t *root, char *err)
{
	memset(cs, 0, sizeof *cs);
	int rc = SBX_OK;
	json_t *rows = json_is_object(root) ? json_object_get(root, "Row") : NULL;
	if (!json_is_object(root))
		rc = CS_ERR(err, "a CellSet must be a JSON object");
	else if (json_is_object(rows))
		rc = json_row(cs, rows, err);
	else if (!json_is_array(rows))
		rc = CS_ERR(err, "a CellSet needs a 'Row' array");
	else {
		size_t i;
		json_t *jr;
		json_array_foreach(rows, i, jr)
		{
			rc = json_row(cs, jr, err);
			if (rc)
				break;
		}
	}
	if (rc)
		rest_cellset_free(cs);
	return rc;
}

int rest_cellset_from_json(rest_cellset *cs, const uint8_t *body, size_t len,
			   char *err)
{
	memset(cs, 0, sizeof *cs);
	json_error_t jerr;
	json_t *root = json_loadb((const char *)body, len, JSON_REJECT_DUPLICATES,
				  &jerr);
	if (!root)
		return CS_ERR(err, "malformed JSON at line %d column %d: %s",
			      jerr.line, jerr.column, jerr.text);
	int rc = rest_cellset_from_jansson(cs, root, err);
	json_decref(root);
	return rc;
}

/* ---- protobuf ------------------------------------------------------------- */

static int pb_cell(rest_row *row, const uint8_t *data, size_t len, char *err)
{
	rest_cell *c = rest_row_add_cell(row);
	if (!c)
		return SBX_ENOMEM;
	pb_reader r = {data, data + len};
	pb_field f;
	int rc;
	while ((rc = pb_next(&r, &f)) == 1) {
		if (f.num == 2 && f.wire == 2) {
			c->has_column = true;
			if (sbx_buf_set(&c->column, f.data, f.len))
				return SBX_ENOMEM;
		} else if (f.num == 3 && f.wire == 0) {
			c->has_timestamp = true;
			c->timestamp = (int64_t)f.varint;
		} else if (f.num == 4 && f.wire == 2) {
			if (sbx_buf_set(&c->value, f.data, f.len))
				return SBX_ENOMEM;
		}
	}
	return rc < 0 ? CS_ERR(err, "malformed protobuf Cell") : SBX_OK;
}

static int pb_row(rest_cellset *cs, const uint8_t *data, size_t len, char *err)
{
	rest_row *row = rest_cellset_add_row(cs);
	if (!row)
		return SBX_ENOMEM;
	pb_reader r = {data, data + len};
	pb_field f;
	int rc;
	while ((rc = pb_next(&r, &f)) == 1) {
		if (f.num == 1 && f.wire == 2) {
			row->has_key = true;
			if (sbx_buf_set(&row->key, f.data, f.len))
				return SBX_ENOMEM;
		} else if (f.num == 2 && f.wire == 2) {
			int crc = pb_cell(row, f.data, f.len, err);
			if (crc)
				return crc;
		}
	}
	return rc < 0 ? CS_ERR(err, "malformed protobuf Row") : SBX_OK;
}

int rest_cellset_from_pb(rest_cellset *cs, const uint8_t *body, size_t len,
			 char *err)
{
	memset(cs, 0, sizeof *cs);
	pb_reader r = {body, body + len};
	pb_field f;
	int rc;
	while ((rc = pb_next(&r, &f)) == 1) {
		if (f.num == 1 && f.wire == 2 &&
		    (rc = pb_row(cs, f.data, f.len, err))) {
			rest_cellset_free(cs);
			return rc;
		}
	}
	if (rc < 0) {
		rest_cellset_free(cs);
		return CS_ERR(err, "malformed protobuf CellSet");
	}
	return SBX_OK;
}

/* ---- writer --------------------------------------------------------------- */

int rest_cellset_open(rest_cellset_writer *w, sbx_buf *out, rest_fmt f)
{
	memset(w, 0, sizeof *w);
	w->fmt = f;
	if (f == REST_FMT_JSON)
		return sbx_buf_puts(out, "{\"Row\":[");
	if (f == REST_FMT_XML)
		return sbx_buf_puts(out, "<?xml version=\"1.0\" encoding=\"UTF-8\" "
					  "standalone=\"yes\"?><CellSet>");
	return SBX_OK;
}

static int column_bytes(sbx_buf *b, const sbx_cell *c)
{
	b->len = 0;
	int rc = sbx_buf_append(b, c->family, c->family_len);
	if (!rc)
		rc = sbx_buf_push(b, ':');
	if (!rc)
		rc = sbx_buf_append(b, c->qualifier, c->qualifier_len);
	return rc;
}

static int add_json(rest_cellset_writer *w, sbx_buf *out, const sbx_result *r,
		    size_t first, size_t n)
{
	size_t key_len;
	const uint8_t *key = sbx_result_row(r, &key_len);
	int rc = sbx_buf_puts(out, w->rows ? ",{\"key\":\"" : "{\"key\":\"");
	rc = rc ? rc : sbx_base64_encode(out, key, key_len);
	rc = rc ? rc : sbx_buf_puts(out, "\",\"Cell\":[");
	for (size_t i = first; i < first + n && !rc; i++) {
		const sbx_cell *c = sbx_result_cell(r, i);
		rc = sbx_buf_puts(out, i > first ? ",{\"column\":\"" : "{\"column\":\"");
		rc = rc ? rc : column_bytes(&w->scratch, c);
		rc = rc ? rc : sbx_base64_encode(out, w->scratch.data, w->scratch.len);
		rc = rc ? rc : sbx_buf_printf(out, "\",\"timestamp\":%lld,\"$\":\"",
					       (long long)c->timestamp);
		rc = rc ? rc : sbx_base64_encode(out, c->value, c->value_len);
		rc = rc ? rc : sbx_buf_puts(out, "\"}");
	}
	return rc ? rc : sbx_buf_puts(out, "]}");
}

static int add_xml(rest_cellset_writer *w, sbx_buf *out, const sbx_result *r,
		   size_t first, size_t n)
{
	size_t key_len;
	const uint8_t *key = sbx_result_row(r, &key_len);
	int rc = sbx_buf_puts(out, "<Row key=\"");
	rc = rc ? rc : sbx_base64_encode(out, key, key_len);
	rc = rc ? rc : sbx_buf_puts(out, "\">");
	for (size_t i = first; i < first + n && !rc; i++) {
		const sbx_cell *c = sbx_result_cell(r, i);
		rc = sbx_buf_puts(out, "<Cell column=\"");
		rc = rc ? rc : column_bytes(&w->scratch, c);
		rc = rc ? rc : sbx_base64_encode(out, w->scratch.data, w->scratch.len);
		rc = rc ? rc : sbx_buf_printf(out, "\" timestamp=\"%lld\">",
					       (long long)c->timestamp);
		rc = rc ? rc : sbx_base64_encode(out, c->value, c->value_len);
		rc = rc ? rc : sbx_buf_puts(out, "</Cell>");
	}
	return rc ? rc : sbx_buf_puts(out, "</Row>");
}

static int add_pb(rest_cellset_writer *w, sbx_buf *out, const sbx_result *r,
		  size_t first, size_t n)
{
	size_t key_len;
	const uint8_t *key = sbx_result_row(r, &key_len);
	sbx_buf row = {0}, cell = {0};
	int rc = pb_put_bytes(&row, 1, key, key_len);
	for (size_t i = first; i < first + n && !rc; i++) {
		const sbx_cell *c = sbx_result_cell(r, i);
		cell.len = 0;
		rc = column_bytes(&w->scratch, c);
		rc = rc ? rc : pb_put_bytes(&cell, 2, w->scratch.data, w->scratch.len);
		rc = rc ? rc : pb_put_varint(&cell, 3, (uint64_t)c->timestamp);
		rc = rc ? rc : pb_put_bytes(&cell, 4, c->value, c->value_len);
		rc = rc ? rc : pb_put_bytes(&row, 2, cell.data, cell.len);
	}
	rc = rc ? rc : pb_put_bytes(out, 1, row.data, row.len);
	sbx_buf_free(&row);
	sbx_buf_free(&cell);
	return rc;
}

int rest_cellset_add(rest_cellset_writer *w, sbx_buf *out, const sbx_result *r,
		     size_t first, size_t n)
{
	int rc;
	if (w->fmt == REST_FMT_JSON)
		rc = add_json(w, out, r, first, n);
	else if (w->fmt == REST_FMT_XML)
		rc = add_xml(w, out, r, first, n);
	else
		rc = add_pb(w, out, r, first, n);
	w->rows++;
	return rc;
}

int rest_cellset_close(rest_cellset_writer *w, sbx_buf *out)
{
	if (w->fmt == REST_FMT_JSON)
		return sbx_buf_puts(out, "]}");
	if (w->fmt == REST_FMT_XML)
		return sbx_buf_puts(out, "</CellSet>");
	return SBX_OK;
}

void rest_cellset_writer_free(rest_cellset_writer *w)
{
	sbx_buf_free(&w->scratch);
}
