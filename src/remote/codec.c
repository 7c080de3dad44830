/*
 * codec.c - what the remote backend puts on and takes off the wire: URL
 * percent-encoding for path segments and query values, base64 (the
 * library's, common/base64.c) for the keys, columns and values in JSON
 * bodies, and the CellSet JSON of HBase REST
 * ({"Row":[{"key":..,"Cell":[{"column":..}]}]}) through the server's own
 * codec (wire/cellset.c).
 */
#include "remote/remote.h"

#include "common/alloc.h"
#include "common/base64.h"
#include "common/bytes.h"
#include "common/error.h"
#include "wire/cellset.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int remote_url_append(sbx_buf *out, const void *data, size_t len)
{
	return sbx_url_append(out, data, len);
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

static uint8_t *take_buf(const sbx_buf *b, size_t *len)
{
	*len = b->len;
	uint8_t *p = sbx_malloc(b->len + 1);
	if (p && b->len)
		memcpy(p, b->data, b->len);
	return p;
}

static int bad_cellset(remote_db *db, const char *why)
{
	return sbx_error_set(SBX_EREMOTE, "%s sent a malformed CellSet: %s",
			     db->base, why);
}

/* A decoded cell as the backend keeps it: what a gateway's answer must
 * hold (family:qualifier and a timestamp), split and copied. */
static int take_cell(remote_cell *c, remote_db *db, const rest_cell *rc)
{
	const uint8_t *col = rc->column.data;
	const uint8_t *colon = rc->has_column && rc->column.len
				       ? memchr(col, ':', rc->column.len)
				       : NULL;
	if (!colon)
		return bad_cellset(db, "a cell's column is not family:qualifier");
	if (!rc->has_timestamp)
		return bad_cellset(db, "a cell has no timestamp");
	size_t flen = (size_t)(colon - col);
	c->family = sbx_strndup((const char *)col, flen);
	c->qualifier_len = rc->column.len - flen - 1;
	c->qualifier = sbx_malloc(c->qualifier_len + 1);
	c->ts = rc->timestamp;
	c->value = take_buf(&rc->value, &c->value_len);
	if (!c->family || !c->qualifier || !c->value)
		return SBX_ENOMEM_SET();
	memcpy(c->qualifier, colon + 1, c->qualifier_len);
	return SBX_OK;
}

static int take_rows(remote_cellset *out, remote_db *db, const rest_cellset *cs)
{
	out->rows = sbx_calloc(cs->nrows + 1, sizeof *out->rows);
	if (!out->rows)
		return SBX_ENOMEM_SET();
	for (size_t i = 0; i < cs->nrows; i++) {
		const rest_row *in = &cs->rows[i];
		remote_row *row = &out->rows[out->nrows++];
		if (!in->has_key)
			return bad_cellset(db, "a row has no key");
		row->key = take_buf(&in->key, &row->key_len);
		row->cells = sbx_calloc(in->ncells + 1, sizeof *row->cells);
		if (!row->key || !row->cells)
			return SBX_ENOMEM_SET();
		for (size_t j = 0; j < in->ncells; j++) {
			int rc = take_cell(&row->cells[row->ncells++], db,
					   &in->cells[j]);
			if (rc)
				return rc;
		}
	}
	return SBX_OK;
}

/* The CellSet codec is the one the server uses (wire/cellset.c); this
 * only adds what a gateway's answer must hold. */
int remote_cellset_parse(remote_cellset *out, remote_db *db,
			 const remote_resp *r)
{
	memset(out, 0, sizeof *out);
	json_t *root;
	int rc = remote_json_parse(&root, db, r);
	if (rc)
		return rc;
	if (!json_object_get(root, "Row")) {
		json_decref(root);
		return SBX_OK; /* an empty CellSet: {} */
	}
	rest_cellset cs;
	char err[REST_ERR_LEN] = "";
	rc = rest_cellset_from_jansson(&cs, root, err);
	json_decref(root);
	if (rc)
		return rc == SBX_ENOMEM ? SBX_ENOMEM_SET() : bad_cellset(db, err);
	rc = take_rows(out, db, &cs);
	rest_cellset_free(&cs);
	if (rc)
		remote_cellset_free(out);
	return rc;
}
