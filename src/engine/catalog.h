/* catalog.h - JSON forms of table and family descriptors (internal). */
#ifndef SBX_ENGINE_CATALOG_H
#define SBX_ENGINE_CATALOG_H

#include "engine/engine.h"

#include <jansson.h>

json_t *family_to_json(const sbx_family_desc *d, const char *cf_name);
int family_from_json(sbx_family_desc *d, char *cf_name, size_t cf_cap,
		     const json_t *o);
/* The table's catalog record; caller frees with free(). NULL on ENOMEM. */
char *table_to_json(const table *t);

#endif
