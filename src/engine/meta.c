/*
 * meta.c - the catalog's records in the meta column family ("default"):
 * "ns:<name>", "table:<ns>:<qualifier>" (the JSON of catalog.c),
 * "regions:<ns>:<qualifier>" (regions.c's JSON), "next_table_id" and
 * "ts_ceiling" (write.c: above every timestamp handed out). Every record
 * but the ceiling (a WAL write ahead of the data it covers) is written
 * with a synced write. catalog_load reads them back into
 * the in-memory lists (tables.c) when the database opens.
 */
#include "engine/catalog.h"
#include "engine/engine.h"

#include "common/error.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NS_PREFIX "ns:"
#define TABLE_PREFIX "table:"
#define NEXT_ID_KEY "next_table_id"
/* Room for next_table_id in decimal (a uint64_t needs 21 with its NUL). */
#define ID_TEXT_CAP 32

int engine_meta_put(engine *e, const char *key, const char *value)
{
	char *err = NULL;
	rocksdb_put_cf(e->db, e->wo_meta, e->meta_cf, key, strlen(key), value,
		       strlen(value), &err);
	return err ? engine_rocks_error(err, "writing catalog") : SBX_OK;
}

int engine_meta_delete(engine *e, const char *key)
{
	char *err = NULL;
	rocksdb_delete_cf(e->db, e->wo_meta, e->meta_cf, key, strlen(key), &err);
	return err ? engine_rocks_error(err, "writing catalog") : SBX_OK;
}

void catalog_ns_key(char out[CATALOG_KEY_CAP], const char *ns)
{
	snprintf(out, CATALOG_KEY_CAP, NS_PREFIX "%s", ns);
}

void catalog_table_key(char out[CATALOG_KEY_CAP], const table *t)
{
	snprintf(out, CATALOG_KEY_CAP, TABLE_PREFIX "%s:%s", t->ns,
		 t->qualifier);
}

void catalog_regions_key(char out[CATALOG_KEY_CAP], const table *t)
{
	snprintf(out, CATALOG_KEY_CAP, CATALOG_REGIONS_PREFIX "%s:%s", t->ns,
		 t->qualifier);
}

int catalog_save_table(engine *e, const table *t)
{
	char key[CATALOG_KEY_CAP];
	catalog_table_key(key, t);
	char *json = table_to_json(t);
	if (!json)
		return SBX_ENOMEM_SET();
	int rc = engine_meta_put(e, key, json);
	free(json);
	return rc;
}

int catalog_save_next_id(engine *e)
{
	char buf[ID_TEXT_CAP];
	snprintf(buf, sizeof buf, "%llu", (unsigned long long)e->next_table_id);
	return engine_meta_put(e, NEXT_ID_KEY, buf);
}

/* Parse one table record into a table with families (CF handles unset). */
static int table_from_json(table **out, engine *e, const char *s, size_t n)
{
	json_error_t jerr;
	json_t *o = json_loadb(s, n, 0, &jerr);
	const char *ns = NULL, *q = NULL;
	json_int_t id = 0, seq = 0;
	int enabled = 1;
	json_t *fams = NULL;
	if (!o || json_unpack(o, "{s:s, s:s, s:I, s:I, s:b, s:o}", "namespace",
			      &ns, "qualifier", &q, "id", &id,
			      "next_family_seq", &seq, "enabled", &enabled,
			      "families", &fams) ||
	    !json_is_array(fams)) {
		json_decref(o);
		return sbx_error_set(SBX_EIO, "corrupt table record in catalog");
	}
	table *t = table_new(ns, q);
	int rc = t ? SBX_OK : SBX_ENOMEM_SET();
	if (t) {
		t->id = (uint64_t)id;
		t->next_family_seq = (uint32_t)seq;
		t->enabled = enabled;
	}
	for (size_t i = 0; !rc && i < json_array_size(fams); i++) {
		sbx_family_desc d;
		char cf[CF_NAME_CAP];
		rc = family_from_json(&d, cf, sizeof cf,
				      json_array_get(fams, i));
		family *f = rc ? NULL : family_new(e, &d, cf);
		if (!rc && !f)
			rc = SBX_ENOMEM_SET();
		if (!rc && (rc = table_add_family(t, f)))
			family_unref(f);
	}
	json_decref(o);
	if (rc) {
		if (t)
			table_unref(t);
		return rc;
	}
	*out = t;
	return SBX_OK;
}

static bool has_prefix(const char *k, size_t kl, const char *prefix)
{
	size_t n = strlen(prefix);
	return kl > n && !memcmp(k, prefix, n);
}

int catalog_load(engine *e, rocksdb_t *db,
		 rocksdb_column_family_handle_t *meta)
{
	rocksdb_readoptions_t *ro = rocksdb_readoptions_create();
	rocksdb_iterator_t *it = rocksdb_create_iterator_cf(db, ro, meta);
	const size_t ns_len = strlen(NS_PREFIX);
	int rc = SBX_OK;
	for (rocksdb_iter_seek_to_first(it); !rc && rocksdb_iter_valid(it);
	     rocksdb_iter_next(it)) {
		size_t kl, vl;
		const char *k = rocksdb_iter_key(it, &kl);
		const char *v = rocksdb_iter_value(it, &vl);
		if (has_prefix(k, kl, NS_PREFIX)) {
			char ns[SBX_MAX_TABLE_NAME + 1];
			if (kl - ns_len > SBX_MAX_TABLE_NAME) {
				rc = sbx_error_set(SBX_EIO, "corrupt catalog");
				break;
			}
			memcpy(ns, k + ns_len, kl - ns_len);
			ns[kl - ns_len] = 0;
			if (!engine_has_namespace(e, ns))
				rc = engine_add_namespace(e, ns);
		} else if (has_prefix(k, kl, TABLE_PREFIX)) {
			table *t = NULL;
			rc = table_from_json(&t, e, v, vl);
			if (!rc && (rc = engine_add_table(e, t)))
				table_unref(t);
		} else if (kl == strlen(ENGINE_TS_CEILING_KEY) &&
			   !memcmp(k, ENGINE_TS_CEILING_KEY, kl)) {
			char buf[ID_TEXT_CAP];
			size_t n = vl < sizeof buf - 1 ? vl : sizeof buf - 1;
			memcpy(buf, v, n);
			buf[n] = 0;
			int64_t c = strtoll(buf, NULL, 10);
			e->ts_ceiling = c;
			for (int i = 0; i < ENGINE_ROW_STRIPES; i++)
				e->stripe_ts[i] = c;
		} else if (kl == strlen(NEXT_ID_KEY) &&
			   !memcmp(k, NEXT_ID_KEY, kl)) {
			char buf[ID_TEXT_CAP];
			size_t n = vl < sizeof buf - 1 ? vl : sizeof buf - 1;
			memcpy(buf, v, n);
			buf[n] = 0;
			e->next_table_id = strtoull(buf, NULL, 10);
		}
	}
	char *err = NULL;
	rocksdb_iter_get_error(it, &err);
	if (err && !rc)
		rc = engine_rocks_error(err, "reading catalog");
	else
		free(err);
	rocksdb_iter_destroy(it);
	rocksdb_readoptions_destroy(ro);
	return rc;
}
