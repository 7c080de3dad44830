/*
 * codec.h - helpers shared by the body decoders (cellset_xml.c, model.c):
 * expat set-up that refuses DOCTYPEs (no entities, no external fetches).
 * The jansson number/string coercions as Jackson does them are
 * wire/cellset.h's.
 */
#ifndef SBX_SERVER_CODEC_H
#define SBX_SERVER_CODEC_H

#include "server/rest.h"

#include <expat.h>
#include <jansson.h>

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
