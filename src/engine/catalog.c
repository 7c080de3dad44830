/*
 * catalog.c - table and family descriptors as JSON in the meta column
 * family ("default"): keys "ns:<name>" and "table:<ns>:<qualifier>", plus
 * "next_table_id". JSON keeps the catalog readable with RocksDB's own tools.
 * Family attributes go through the public text calls (saltbox/db.h), so
 * the catalog spells them as HBase and every other layer do.
 */
#include "engine/catalog.h"

#include "common/error.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every attribute under its HBase name, numbers and booleans as JSON's. */
json_t *family_to_json(const sbx_family_desc *d, const char *cf_name)
{
	json_t *o = json_pack("{s:s}", "NAME", d->name);
	sbx_family_attr a;
	for (size_t i = 0; o && sbx_family_desc_attr(&a, d, i) == SBX_OK; i++) {
		json_t *v = a.kind == SBX_ATTR_INTEGER
				    ? json_integer(strtoll(a.value, NULL, 10))
			    : a.kind == SBX_ATTR_BOOLEAN
				    ? json_boolean(!strcmp(a.value, "true"))
				    : json_string(a.value);
		if (json_object_set_new(o, a.name, v)) {
			json_decref(o);
			return NULL;
		}
	}
	if (o && cf_name)
		json_object_set_new(o, "cf", json_string(cf_name));
	return o;
}

/* One attribute from the record; every attribute must be there. */
static int attr_from_json(sbx_family_desc *d, const char *name,
			  const json_t *v)
{
	char text[SBX_FAMILY_ATTR_VALUE_MAX];
	if (json_is_integer(v))
		snprintf(text, sizeof text, "%lld",
			 (long long)json_integer_value(v));
	else if (json_is_boolean(v))
		snprintf(text, sizeof text, "%s", json_is_true(v) ? "true" : "false");
	else if (json_is_string(v))
		snprintf(text, sizeof text, "%s", json_string_value(v));
	else
		return SBX_EIO;
	return sbx_family_desc_set(d, name, text) ? SBX_EIO : SBX_OK;
}

int family_from_json(sbx_family_desc *d, char *cf_name, size_t cf_cap,
		     const json_t *o)
{
	memset(d, 0, sizeof *d);
	const char *name = NULL, *cf = NULL;
	if (json_unpack((json_t *)o, "{s:s, s?s}", "NAME", &name, "cf", &cf) ||
	    strlen(name) > SBX_MAX_FAMILY_NAME)
		return sbx_error_set(SBX_EIO, "corrupt family descriptor");
	strcpy(d->name, name);
	sbx_family_attr a;
	for (size_t i = 0; sbx_family_desc_attr(&a, d, i) == SBX_OK; i++) {
		const json_t *v = json_object_get(o, a.name);
		if (!v && !strcmp(a.name, "BLOCKCACHE")) {
			d->block_cache = true; /* records from before it */
			continue;
		}
		if (attr_from_json(d, a.name, v))
			return sbx_error_set(SBX_EIO, "corrupt family descriptor");
	}
	if (cf_name) {
		if (!cf || strlen(cf) >= cf_cap)
			return sbx_error_set(SBX_EIO, "corrupt family descriptor");
		strcpy(cf_name, cf);
	}
	return SBX_OK;
}

char *table_to_json(const table *t)
{
	json_t *fams = json_array();
	for (size_t i = 0; i < t->nfams; i++)
		json_array_append_new(fams, family_to_json(&t->fams[i]->desc,
							   t->fams[i]->cf_name));
	json_t *o = json_pack("{s:s, s:s, s:I, s:I, s:b, s:o}", "namespace",
			      t->ns, "qualifier", t->qualifier, "id",
			      (json_int_t)t->id, "next_family_seq",
			      (json_int_t)t->next_family_seq, "enabled",
			      t->enabled, "families", fams);
	char *s = o ? json_dumps(o, JSON_COMPACT) : NULL;
	json_decref(o);
	return s;
}
