/*
 * cellset_xml.c - the CellSet's XML decoder (expat, so it stays with the
 * server: libsaltbox needs no expat), the expat set-up every XML body
 * decoder shares (DOCTYPEs refused: no entities, no external fetches), and
 * the decoder for a body by its media type. The CellSet model and its JSON
 * and protobuf codecs are wire/cellset.c.
 */
#include "server/rest.h"

#include "server/codec.h"

#include "common/buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CS_ERR(err, ...) (snprintf((err), REST_ERR_LEN, __VA_ARGS__), SBX_EPARSE)

/* ---- XML ------------------------------------------------------------------ */

typedef struct xml_state {
	rest_xml_base base;
	rest_cellset *cs;
	int depth;
	bool in_cell;
	sbx_buf text;
} xml_state;

void rest_xml_fail(rest_xml_base *x, int rc)
{
	if (x->rc == SBX_OK)
		x->rc = rc;
	XML_StopParser(x->parser, XML_FALSE);
}

const char *rest_xml_attr(const XML_Char **attrs, const char *name)
{
	for (size_t i = 0; attrs[i]; i += 2)
		if (!strcmp(attrs[i], name))
			return attrs[i + 1];
	return NULL;
}

static void xml_fail(xml_state *x, int rc)
{
	rest_xml_fail(&x->base, rc);
}

static void xml_start(void *ud, const XML_Char *name, const XML_Char **attrs)
{
	xml_state *x = ud;
	x->depth++;
	if (x->depth == 1) {
		if (strcmp(name, "CellSet"))
			xml_fail(x, CS_ERR(x->base.err, "expected <CellSet>, got <%.32s>",
					   name));
		return;
	}
	if (x->depth == 2 && !strcmp(name, "Row")) {
		rest_row *row = rest_cellset_add_row(x->cs);
		if (!row)
			return xml_fail(x, SBX_ENOMEM);
		const char *key = rest_xml_attr(attrs, "key");
		if (key) {
			row->has_key = true;
			if (rest_b64_decode(&row->key, key, strlen(key)))
				xml_fail(x, CS_ERR(x->base.err, "Row key is not valid base64"));
		}
		return;
	}
	if (x->depth == 3 && !strcmp(name, "Cell") && x->cs->nrows > 0) {
		rest_cell *c = rest_row_add_cell(&x->cs->rows[x->cs->nrows - 1]);
		if (!c)
			return xml_fail(x, SBX_ENOMEM);
		const char *col = rest_xml_attr(attrs, "column");
		const char *ts = rest_xml_attr(attrs, "timestamp");
		if (col) {
			c->has_column = true;
			if (rest_b64_decode(&c->column, col, strlen(col)))
				return xml_fail(x, CS_ERR(x->base.err, "Cell column is "
								  "not valid base64"));
		}
		if (ts) {
			c->has_timestamp = true;
			if (rest_parse_int64(ts, strlen(ts), &c->timestamp))
				return xml_fail(x, CS_ERR(x->base.err, "Cell timestamp "
								  "is not an integer"));
		}
		x->in_cell = true;
		x->text.len = 0;
		return;
	}
	xml_fail(x, CS_ERR(x->base.err, "unexpected element <%.32s>", name));
}

static void xml_end(void *ud, const XML_Char *name)
{
	xml_state *x = ud;
	if (x->depth == 3 && x->in_cell) {
		rest_row *row = &x->cs->rows[x->cs->nrows - 1];
		rest_cell *c = &row->cells[row->ncells - 1];
		if (rest_b64_decode(&c->value, (const char *)x->text.data,
				    x->text.len))
			xml_fail(x, CS_ERR(x->base.err, "Cell value is not valid base64"));
		x->in_cell = false;
	}
	x->depth--;
}

static void xml_chars(void *ud, const XML_Char *s, int len)
{
	xml_state *x = ud;
	if (!x->in_cell)
		return; /* whitespace between elements */
	if (sbx_buf_append(&x->text, s, (size_t)len))
		xml_fail(x, SBX_ENOMEM);
}

static void xml_no_doctype(void *ud, const XML_Char *name, const XML_Char *sys,
			   const XML_Char *pub, int internal)
{
	rest_xml_base *x = ud;
	rest_xml_fail(x, CS_ERR(x->err, "DOCTYPE declarations are not accepted"));
}

int rest_xml_parse(rest_xml_base *x, const uint8_t *body, size_t len,
		   XML_StartElementHandler start, XML_EndElementHandler end,
		   XML_CharacterDataHandler chars)
{
	XML_Parser p = XML_ParserCreate("UTF-8");
	if (!p)
		return SBX_ENOMEM;
	x->parser = p;
	x->rc = SBX_OK;
	XML_SetUserData(p, x);
	XML_SetElementHandler(p, start, end);
	XML_SetCharacterDataHandler(p, chars);
	XML_SetStartDoctypeDeclHandler(p, xml_no_doctype);
	int rc;
	if (len > INT32_MAX)
		rc = CS_ERR(x->err, "XML body too large");
	else if (XML_Parse(p, (const char *)body, (int)len, XML_TRUE) ==
		 XML_STATUS_ERROR && x->rc == SBX_OK)
		rc = CS_ERR(x->err, "malformed XML at line %lu: %s",
			    (unsigned long)XML_GetCurrentLineNumber(p),
			    XML_ErrorString(XML_GetErrorCode(p)));
	else
		rc = x->rc;
	XML_ParserFree(p);
	return rc;
}

int rest_cellset_from_xml(rest_cellset *cs, const uint8_t *body, size_t len,
			  char *err)
{
	memset(cs, 0, sizeof *cs);
	xml_state x = {.base.err = err, .cs = cs};
	int rc = rest_xml_parse(&x.base, body, len, xml_start, xml_end, xml_chars);
	sbx_buf_free(&x.text);
	if (rc)
		rest_cellset_free(cs);
	return rc;
}

int rest_cellset_decode(rest_cellset *out, rest_fmt f, const uint8_t *body,
			size_t len, char *err)
{
	switch (f) {
	case REST_FMT_JSON:
		return rest_cellset_from_json(out, body, len, err);
	case REST_FMT_XML:
		return rest_cellset_from_xml(out, body, len, err);
	case REST_FMT_PB:
		return rest_cellset_from_pb(out, body, len, err);
	default:
		memset(out, 0, sizeof *out);
		return CS_ERR(err, "unsupported Content-Type for cells");
	}
}
