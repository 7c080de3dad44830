/*
 * codec.h - helpers shared by the body decoders (cellset.c, model.c):
 * jansson number/string coercions as Jackson does them, and expat set-up
 * that refuses DOCTYPEs (no entities, no external fetches).
 */
#ifndef SBX_SERVER_CODEC_H
#define SBX_SERVER_CODEC_H

#include "server/rest.h"

#include <expat.h>
#include <jansson.h>

/* A JSON integer, or a string holding one (node-hbase sends strings). */
int rest_json_int64(json_t *v, int64_t *out);
/* Decimal int64 text, optional leading '-'. */
int rest_parse_int64(const char *s, size_t len, int64_t *out);

/* Every XML decoder state starts with this. */
typedef struct rest_xml_base {
	XML_Parser parser;
	int rc;     /* first error seen by a handler */
	char *err;  /* REST_ERR_LEN bytes */
} rest_xml_base;

/* Stop parsing with rc (the first failure wins). */
void rest_xml_fail(rest_xml_base *x, int rc);
/* Parse body with the handlers; user data is x. */
int rest_xml_parse(rest_xml_base *x, const uint8_t *body, size_t len,
		   XML_StartElementHandler start, XML_EndElementHandler end,
		   XML_CharacterDataHandler chars);
/* The value of attribute `name`, or NULL. */
const char *rest_xml_attr(const XML_Char **attrs, const char *name);

#endif
