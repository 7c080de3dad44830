/*
 * codec.c - what the remote backend puts on and takes off the wire: URL
 * percent-encoding for path segments and query values, base64 (the
 * library's, common/base64.c) for the keys, columns and values in JSON
 * bodies, and the CellSet
 * JSON of HBase REST ({"Row":[{"key":..,"Cell":[{"column":..}]}]}).
 */
#include "common/base64.h"
#include "common/bytes.h"
#include "remote/remote.h"

#include "common/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int remote_url_append(sbx_buf *out, const void *data, size_t len)
{
	const char *hex = sbx_hex_upper;
	const uint8_t *p = data;
	if (sbx_buf_reserve(out, len * 3 + 1))
		return SBX_ENOMEM_SET();
	for (size_t i = 0; i < len; i++) {
		uint8_t c = p[i];
		if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
		    (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' ||
		    c == '~') {
			out->data[out->len++] = c;
		} else {
			out->data[out->len++] = '%';
			out->data[out->len++] = (uint8_t)hex[c >> 4];
			out->data[out->len++] = (uint8_t)hex[c & 15];
		}
	}
	return SBX_OK;
}

int remote_url_append_str(sbx_buf *out, const char *s)
{
	return remote_url_append(out, s, strlen(s));
}

const char *remote_cstr(sbx_buf *b)
{
	if (sbx_buf_reserve(b, 1))
		return "";
	b->data[b->len] = 0;
	return (const char *)b->data;
}

json_t *remote_b64_json(const void *data, size_t len)
{
	char *s = sbx_base64_string(data, len);
	json_t *j = s ? json_string(s) : NULL;
	free(s);
	return j;
}

int remote_b64_decode(sbx_buf *out, const char *text)
{
	int rc = sbx_base64_decode(out, text, strlen(text), false);
	if (rc == SBX_EPARSE)
		return sbx_error_set(SBX_EREMOTE,
				     "the gateway sent malformed base64");
	return rc ? SBX_ENOMEM_SET() : SBX_OK;
}

int remote_json_parse(json_t **out, remote_db *db, const remote_resp *r)
{
	json_error_t err;
	*out = json_loadb(r->body.data ? (const char *)r->body.data : "",
			  r->body.len, JSON_DECODE_ANY, &err);
	if (!*out)
		return sbx_error_set(SBX_EREMOTE,
				     "%s sent a body that is not JSON (%s at "
				     "line %d)",
				     db->base, err.text, err.line);
	return SBX_OK;
}

static void cell_free(remote_cell *c)
{
	free(c->family);
	free(c->qualifier);
	free(c->value);
}

void remote_cellset_free(remote_cellset *cs)
{
	for (size_t i = 0; i < cs->nrows; i++) {
		for (size_t j = 0; j < cs->rows[i].ncells; j++)
			cell_free(&cs->rows[i].cells[j]);
		free(cs->rows[i].cells);
		free(cs->rows[i].key);
	}
	free(cs->rows);
	memset(cs, 0, sizeof *cs);
}

static uint8_t *take_buf(sbx_buf *b, size_t *len)
{
	*len = b->len;
	uint8_t *p = malloc(b->len + 1);
	if (p && b->len)
		memcpy(p, b->data, b->len);
	return p;
}

static int bad_cellset(remote_db *db, const char *why)
{
	return sbx_error_set(SBX_EREMOTE, "%s sent a malformed CellSet: %s",
			     db->base, why);
}

static int parse_cell(remote_cell *c, remote_db *db, json_t *jc, sbx_buf *tmp)
{
	json_t *col = json_object_get(jc, "column");
	json_t *ts = json_object_get(jc, "timestamp");
	json_t *val = json_object_get(jc, "$");
	if (!json_is_string(col))
		return bad_cellset(db, "a cell has no column");
	int rc = remote_b64_decode(tmp, json_string_value(col));
	if (rc)
		return rc;
	uint8_t *colon = tmp->len ? memchr(tmp->data, ':', tmp->len) : NULL;
	if (!colon)
		return bad_cellset(db, "a cell's column is not family:qualifier");
	size_t flen = (size_t)(colon - tmp->data);
	c->family = strndup((const char *)tmp->data, flen);
	c->qualifier_len = tmp->len - flen - 1;
	c->qualifier = malloc(c->qualifier_len + 1);
	if (!c->family || !c->qualifier)
		return SBX_ENOMEM_SET();
	memcpy(c->qualifier, colon + 1, c->qualifier_len);
	if (json_is_integer(ts))
		c->ts = (int64_t)json_integer_value(ts);
	else if (json_is_string(ts))
		c->ts = strtoll(json_string_value(ts), NULL, 10);
	else
		return bad_cellset(db, "a cell has no timestamp");
	if (json_is_string(val)) {
		if ((rc = remote_b64_decode(tmp, json_string_value(val))))
			return rc;
	} else {
		tmp->len = 0;
	}
	c->value = take_buf(tmp, &c->value_len);
	return c->value ? SBX_OK : SBX_ENOMEM_SET();
}

int remote_cellset_parse(remote_cellset *out, remote_db *db,
			 const remote_resp *r)
{
	memset(out, 0, sizeof *out);
	json_t *root;
	int rc = remote_json_parse(&root, db, r);
	if (rc)
		return rc;
	json_t *rows = json_object_get(root, "Row");
	if (!rows) {
		json_decref(root);
		return SBX_OK; /* an empty CellSet: {} */
	}
	if (!json_is_array(rows)) {
		json_decref(root);
		return bad_cellset(db, "Row is not an array");
	}
	sbx_buf tmp = {0};
	out->rows = calloc(json_array_size(rows) + 1, sizeof *out->rows);
	if (!out->rows)
		rc = SBX_ENOMEM_SET();
	for (size_t i = 0; rc == SBX_OK && i < json_array_size(rows); i++) {
		json_t *jr = json_array_get(rows, i);
		json_t *key = json_object_get(jr, "key");
		json_t *cells = json_object_get(jr, "Cell");
		remote_row *row = &out->rows[out->nrows++];
		if (!json_is_string(key)) {
			rc = bad_cellset(db, "a row has no key");
			break;
		}
		if ((rc = remote_b64_decode(&tmp, json_string_value(key))))
			break;
		if (!(row->key = take_buf(&tmp, &row->key_len))) {
			rc = SBX_ENOMEM_SET();
			break;
		}
		size_t n = json_is_array(cells) ? json_array_size(cells) : 0;
		row->cells = calloc(n + 1, sizeof *row->cells);
		if (!row->cells) {
			rc = SBX_ENOMEM_SET();
			break;
		}
		for (size_t j = 0; rc == SBX_OK && j < n; j++) {
			rc = parse_cell(&row->cells[row->ncells], db,
					json_array_get(cells, j), &tmp);
			row->ncells++;
		}
	}
	sbx_buf_free(&tmp);
	json_decref(root);
	if (rc)
		remote_cellset_free(out);
	return rc;
}
