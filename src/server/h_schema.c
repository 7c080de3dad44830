/*
 * h_schema.c - /{t}/schema (describe, create-or-replace, update, drop),
 * /{t}/exists and /{t}/regions. Attribute values are strings, as HBase's
 * TableSchemaModel shows them.
 */
#include "server/handlers.h"

#include "common/alloc.h"
#include "common/buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const rest_fmt produces_xml_first[] = {REST_FMT_XML, REST_FMT_JSON,
					      REST_FMT_PB, REST_FMT_TEXT};

/* The family attributes HBase's REST gateway shows, in its order (HBase
 * 1's describe); REPLICATION_SCOPE is not modelled and shows HBase's
 * default. */
static size_t family_attrs(const sbx_family_desc *f, const char *keys[12],
			   char values[12][32])
{
	static const struct {
		const char *name, *fixed;
	} order[] = {{"BLOOMFILTER", NULL},	    {"VERSIONS", NULL},
		     {"IN_MEMORY", NULL},	    {"KEEP_DELETED_CELLS", NULL},
		     {"DATA_BLOCK_ENCODING", NULL}, {"TTL", NULL},
		     {"COMPRESSION", NULL},	    {"MIN_VERSIONS", NULL},
		     {"BLOCKCACHE", NULL},	    {"BLOCKSIZE", NULL},
		     {"REPLICATION_SCOPE", "0"}};
	size_t n = 0;
	for (size_t i = 0; i < sizeof order / sizeof *order; i++) {
		sbx_family_attr a = {0};
		if (!order[i].fixed &&
		    sbx_family_desc_get(&a, f, order[i].name) != SBX_OK)
			continue; /* cannot happen: every name is an attribute */
		keys[n] = order[i].name;
		snprintf(values[n++], 32, "%s",
			 order[i].fixed ? order[i].fixed : a.value);
	}
	return n;
}

static void schema_json(sbx_buf *b, const sbx_table_info *info)
{
	rest_buf_puts(b, "{\"name\":");
	rest_json_string(b, info->name, strlen(info->name));
	sbx_buf_printf(b, ",\"IS_META\":\"false\",\"READONLY\":\"false\","
			   "\"ENABLED\":\"%s\",\"ColumnSchema\":[",
			info->enabled ? "true" : "false");
	for (size_t i = 0; i < info->nfamilies; i++) {
		const char *keys[12];
		char values[12][32];
		size_t n = family_attrs(&info->families[i], keys, values);
		rest_buf_puts(b, i ? ",{\"name\":" : "{\"name\":");
		rest_json_string(b, info->families[i].name,
				 strlen(info->families[i].name));
		for (size_t j = 0; j < n; j++)
			sbx_buf_printf(b, ",\"%s\":\"%s\"", keys[j], values[j]);
		rest_buf_puts(b, "}");
	}
	rest_buf_puts(b, "]}");
}

static void schema_xml(sbx_buf *b, const sbx_table_info *info)
{
	rest_buf_puts(b, "<?xml version=\"1.0\" encoding=\"UTF-8\" "
			 "standalone=\"yes\"?><TableSchema name=\"");
	rest_xml_escape(b, info->name, strlen(info->name));
	sbx_buf_printf(b, "\" IS_META=\"false\" READONLY=\"false\" "
			   "ENABLED=\"%s\">", info->enabled ? "true" : "false");
	for (size_t i = 0; i < info->nfamilies; i++) {
		const char *keys[12];
		char values[12][32];
		size_t n = family_attrs(&info->families[i], keys, values);
		rest_buf_puts(b, "<ColumnSchema name=\"");
		rest_xml_escape(b, info->families[i].name,
				strlen(info->families[i].name));
		rest_buf_puts(b, "\"");
		for (size_t j = 0; j < n; j++)
			sbx_buf_printf(b, " %s=\"%s\"", keys[j], values[j]);
		rest_buf_puts(b, "/>");
	}
	rest_buf_puts(b, "</TableSchema>");
}

static void pb_attr(sbx_buf *b, const char *k, const char *v)
{
	sbx_buf a = {0};
	pb_put_bytes(&a, 1, k, strlen(k));
	pb_put_bytes(&a, 2, v, strlen(v));
	pb_put_bytes(b, 2, a.data, a.len);
	sbx_buf_free(&a);
}

static void schema_pb(sbx_buf *b, const sbx_table_info *info)
{
	pb_put_bytes(b, 1, info->name, strlen(info->name));
	pb_attr(b, "IS_META", "false");
	for (size_t i = 0; i < info->nfamilies; i++) {
		const sbx_family_desc *f = &info->families[i];
		const char *keys[12];
		char values[12][32];
		size_t n = family_attrs(f, keys, values);
		sbx_buf c = {0};
		pb_put_bytes(&c, 1, f->name, strlen(f->name));
		for (size_t j = 0; j < n; j++)
			pb_attr(&c, keys[j], values[j]);
		pb_put_varint(&c, 3, (uint64_t)(int64_t)(int32_t)f->ttl_seconds);
		pb_put_varint(&c, 4, (uint64_t)f->max_versions);
		const char *comp = sbx_compression_name(f->compression);
		pb_put_bytes(&c, 5, comp, strlen(comp));
		pb_put_bytes(b, 3, c.data, c.len);
		sbx_buf_free(&c);
	}
	pb_put_varint(b, 4, 0);
	pb_put_varint(b, 5, 0);
}

static void schema_text(sbx_buf *b, const sbx_table_info *info)
{
	sbx_buf_printf(b, "{ NAME=> '%s', IS_META => 'false', COLUMNS => [ ",
			info->name);
	for (size_t i = 0; i < info->nfamilies; i++) {
		const char *keys[12];
		char values[12][32];
		size_t n = family_attrs(&info->families[i], keys, values);
		sbx_buf_printf(b, "%s{ NAME => '%s'", i ? ", " : "",
				info->families[i].name);
		for (size_t j = 0; j < n; j++)
			sbx_buf_printf(b, ", %s => '%s'", keys[j], values[j]);
		rest_buf_puts(b, " }");
	}
	rest_buf_puts(b, " ] }\n");
}

static void schema_get(rest_request *rq, rest_response *rs)
{
	rest_fmt fmt;
	if (!rest_accept(rq, rs, produces_xml_first, 4, &fmt))
		return;
	sbx_table_info *info;
	int rc = sbx_table_describe(&info, rq->srv->db, rq->route.table);
	if (rc == SBX_ENOTFOUND || rc == SBX_EINVAL)
		return rest_error(rs, 404, "table '%s' not found", rq->route.table);
	if (rc)
		return rest_sbx_error(rs, rc);
	rs->no_cache = true;
	if (fmt == REST_FMT_JSON)
		schema_json(&rs->body, info);
	else if (fmt == REST_FMT_XML)
		schema_xml(&rs->body, info);
	else if (fmt == REST_FMT_PB)
		schema_pb(&rs->body, info);
	else
		schema_text(&rs->body, info);
	sbx_table_info_free(info);
}

static bool schema_has_family(const rest_table_schema *s, const char *name)
{
	for (size_t i = 0; i < s->nfamilies; i++)
		if (!strcmp(s->families[i].name, name))
			return true;
	return false;
}

/* PUT replaces the family set; POST only adds or modifies families. */
static int schema_update(rest_request *rq, rest_response *rs,
			 const rest_table_schema *s, const sbx_family_desc *descs,
			 bool replace)
{
	sbx_db *db = rq->srv->db;
	const char *t = rq->route.table;
	for (size_t i = 0; i < s->nfamilies; i++) {
		int rc = sbx_table_alter_family(db, t, &descs[i]);
		if (rc) {
			rest_sbx_error(rs, rc);
			return rc;
		}
	}
	if (!replace)
		return SBX_OK;
	sbx_table_info *info = NULL;
	int rc = sbx_table_describe(&info, db, t);
	for (size_t i = 0; rc == SBX_OK && i < info->nfamilies; i++)
		if (!schema_has_family(s, info->families[i].name))
			rc = sbx_table_delete_family(db, t, info->families[i].name);
	if (info)
		sbx_table_info_free(info);
	if (rc)
		rest_sbx_error(rs, rc);
	return rc;
}

static void schema_put_post(rest_request *rq, rest_response *rs)
{
	rest_fmt fmt;
	if (!rest_body_fmt(rq, rs, &fmt, false))
		return;
	char err[REST_ERR_LEN] = "";
	rest_table_schema s;
	if (rest_table_schema_decode(&s, fmt, rq->body, rq->body_len, err))
		return rest_error(rs, 400, "%s", err);
	sbx_family_desc *descs = sbx_calloc(s.nfamilies + 1, sizeof *descs);
	if (!descs) {
		rest_table_schema_free(&s);
		return rest_error(rs, 503, "out of memory");
	}
	int rc = SBX_OK;
	for (size_t i = 0; i < s.nfamilies && rc == SBX_OK; i++)
		if ((rc = rest_family_desc_from_schema(&descs[i], &s.families[i],
							err)))
			rest_error(rs, 400, "%s", err);
	bool exists = false;
	if (rc == SBX_OK &&
	    (rc = sbx_table_exists(&exists, rq->srv->db, rq->route.table)))
		rest_sbx_error(rs, rc);
	if (rc == SBX_OK && !exists) {
		rc = sbx_table_create(rq->srv->db, rq->route.table, descs,
				      s.nfamilies);
		rest_tables_invalidate(rq->srv);
		if (rc == SBX_EEXISTS)
			rest_empty(rs, 304); /* lost a create race, as HBase */
		else if (rc)
			rest_sbx_error(rs, rc);
		else {
			rest_empty(rs, 201);
			rest_location(rq, rs, rq->path);
		}
	} else if (rc == SBX_OK) {
		bool replace = rq->method == METHOD_PUT;
		int urc = schema_update(rq, rs, &s, descs, replace);
		rest_tables_invalidate(rq->srv); /* even a partial change */
		if (urc == SBX_OK) {
			rest_empty(rs, replace ? 201 : 200);
			if (replace)
				rest_location(rq, rs, rq->path);
		}
	}
	free(descs);
	rest_table_schema_free(&s);
}

static void schema_delete(rest_request *rq, rest_response *rs)
{
	sbx_db *db = rq->srv->db;
	const char *t = rq->route.table;
	/* HBase drops only a disabled table; a store with no disabled state
	 * (another gateway, Cloud Bigtable) drops it as it is */
	int rc = sbx_table_disable(db, t);
	if (rc == SBX_ENOTFOUND || rc == SBX_EINVAL)
		return rest_error(rs, 404, "table '%s' not found", t);
	if (rc && rc != SBX_EDISABLED && rc != SBX_EUNSUPPORTED)
		return rest_sbx_error(rs, rc);
	rc = sbx_table_drop(db, t);
	rest_tables_invalidate(rq->srv);
	if (rc == SBX_ENOTFOUND)
		return rest_error(rs, 404, "table '%s' not found", t);
	if (rc)
		return rest_sbx_error(rs, rc);
	rest_empty(rs, 200);
}

void h_schema(rest_request *rq, rest_response *rs)
{
	if (!rest_allow(rq, rs, ALLOW_GET | ALLOW_PUT | ALLOW_POST | ALLOW_DELETE))
		return;
	if (rq->method == METHOD_PUT || rq->method == METHOD_POST)
		schema_put_post(rq, rs);
	else if (rq->method == METHOD_DELETE)
		schema_delete(rq, rs);
	else
		schema_get(rq, rs);
}

void h_exists(rest_request *rq, rest_response *rs)
{
	if (!rest_allow(rq, rs, ALLOW_GET))
		return;
	bool exists = false;
	int rc = sbx_table_exists(&exists, rq->srv->db, rq->route.table);
	if (rc && rc != SBX_EINVAL && rc != SBX_ENOTFOUND)
		return rest_sbx_error(rs, rc);
	if (!exists)
		return rest_error(rs, 404, "table '%s' not found", rq->route.table);
	rs->no_cache = true;
	rest_empty(rs, 200);
}

void h_regions(rest_request *rq, rest_response *rs)
{
	static const rest_fmt produces[] = {REST_FMT_XML, REST_FMT_JSON,
					    REST_FMT_PB, REST_FMT_TEXT};
	rest_fmt fmt;
	if (!rest_allow(rq, rs, ALLOW_GET) || !rest_accept(rq, rs, produces, 4, &fmt))
		return;
	rest_regions_list l;
	int rc = rest_regions(&l, rq->srv->db, rq->route.table);
	if (rc == SBX_ENOTFOUND || rc == SBX_EINVAL)
		return rest_error(rs, 404, "table '%s' not found", rq->route.table);
	if (rc)
		return rest_sbx_error(rs, rc);
	sbx_buf *b = &rs->body;
	const char *t = rq->route.table;
	char loc[48];
	rs->no_cache = true;
	if (fmt == REST_FMT_JSON) {
		rest_buf_puts(b, "{\"name\":");
		rest_json_string(b, t, strlen(t));
		rest_buf_puts(b, ",\"Region\":[");
		for (size_t i = 0; i < l.n; i++) {
			const sbx_region_info *r = &l.r[i];
			rest_buf_puts(b, i ? ",{\"endKey\":\"" : "{\"endKey\":\"");
			rest_b64_encode(b, r->end_key, r->end_len);
			rest_node_name(loc, sizeof loc, r->server);
			sbx_buf_printf(b, "\",\"id\":%llu,\"location\":",
					(unsigned long long)r->id);
			rest_json_string(b, loc, strlen(loc));
			rest_buf_puts(b, ",\"name\":");
			rest_json_string(b, r->name, strlen(r->name));
			rest_buf_puts(b, ",\"startKey\":\"");
			rest_b64_encode(b, r->start_key, r->start_len);
			rest_buf_puts(b, "\"}");
		}
		rest_buf_puts(b, "]}");
	} else if (fmt == REST_FMT_XML) {
		rest_buf_puts(b, "<?xml version=\"1.0\" encoding=\"UTF-8\" "
				 "standalone=\"yes\"?><TableInfo name=\"");
		rest_xml_escape(b, t, strlen(t));
		rest_buf_puts(b, "\">");
		for (size_t i = 0; i < l.n; i++) {
			const sbx_region_info *r = &l.r[i];
			rest_node_name(loc, sizeof loc, r->server);
			rest_buf_puts(b, "<Region endKey=\"");
			rest_b64_encode(b, r->end_key, r->end_len);
			sbx_buf_printf(b, "\" id=\"%llu\" location=\"%s\" name=\"",
					(unsigned long long)r->id, loc);
			rest_xml_escape(b, r->name, strlen(r->name));
			rest_buf_puts(b, "\" startKey=\"");
			rest_b64_encode(b, r->start_key, r->start_len);
			rest_buf_puts(b, "\"/>");
		}
		rest_buf_puts(b, "</TableInfo>");
	} else if (fmt == REST_FMT_PB) {
		pb_put_bytes(b, 1, t, strlen(t));
		for (size_t i = 0; i < l.n; i++) {
			const sbx_region_info *r = &l.r[i];
			sbx_buf m = {0};
			rest_node_name(loc, sizeof loc, r->server);
			pb_put_bytes(&m, 1, r->name, strlen(r->name));
			pb_put_bytes(&m, 2, r->start_key, r->start_len);
			pb_put_bytes(&m, 3, r->end_key, r->end_len);
			pb_put_varint(&m, 4, r->id);
			pb_put_bytes(&m, 5, loc, strlen(loc));
			pb_put_bytes(b, 2, m.data, m.len);
			sbx_buf_free(&m);
		}
	} else {
		for (size_t i = 0; i < l.n; i++) {
			rest_node_name(loc, sizeof loc, l.r[i].server);
			sbx_buf_printf(b, "%s [location: %s]\n", l.r[i].name, loc);
		}
	}
	rest_regions_free(&l);
}
