/*
 * admin.c - namespaces, table schemas and regions over HBase REST's
 * /namespaces, /{t}/schema, /{t}/exists, /{t}/regions and /status/cluster.
 * What the protocol has no endpoint for (enable/disable, flush, compaction,
 * pre-split, split/merge, split policies, load history) is SBX_EUNSUPPORTED
 * with a message saying so.
 */
#define _GNU_SOURCE /* strcasestr */
#include "remote/remote.h"

#include "common/alloc.h"
#include "common/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

char *remote_table_path(const char *name)
{
	sbx_buf b = {0};
	if (sbx_buf_push(&b, '/') || remote_url_append_str(&b, name)) {
		sbx_buf_free(&b);
		return NULL;
	}
	remote_cstr(&b);
	return (char *)b.data;
}

/* A path "/<enc name><suffix>" in b. */
static const char *table_path(sbx_buf *b, const char *name, const char *suffix)
{
	b->len = 0;
	sbx_buf_push(b, '/');
	remote_url_append_str(b, name);
	sbx_buf_printf(b, "%s", suffix);
	return remote_cstr(b);
}

static const char *ns_path(sbx_buf *b, const char *ns, const char *suffix)
{
	b->len = 0;
	sbx_buf_printf(b, "/namespaces/");
	remote_url_append_str(b, ns);
	sbx_buf_printf(b, "%s", suffix);
	return remote_cstr(b);
}

static int unsupported(const char *what)
{
	return sbx_error_set(SBX_EUNSUPPORTED,
			     "%s is not possible over HBase REST (the protocol "
			     "has no endpoint for it); use the HBase shell or "
			     "an embedded database",
			     what);
}

/* GET a JSON document; SBX_ENOTFOUND-style errors from the status. */
static int get_json(json_t **out, remote_db *db, const char *path,
		    const char *what)
{
	*out = NULL;
	remote_resp r;
	int rc = remote_request(db, "GET", path, NULL, NULL, 0, true, &r);
	if (rc)
		return rc;
	if (r.status != 200)
		rc = remote_status_error(db, &r, what);
	else
		rc = remote_json_parse(out, db, &r);
	remote_resp_free(&r);
	return rc;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A NULL-terminated, sorted copy of the strings in a JSON array (items are
 * strings, or objects whose `key` member is one). */
static int strv_from_json(char ***out, json_t *arr, const char *key)
{
	size_t n = json_is_array(arr) ? json_array_size(arr) : 0;
	char **v = sbx_calloc(n + 1, sizeof *v);
	if (!v)
		return SBX_ENOMEM_SET();
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		json_t *it = json_array_get(arr, i);
		if (key)
			it = json_object_get(it, key);
		if (!json_is_string(it))
			continue;
		if (!(v[k++] = sbx_strdup(json_string_value(it)))) {
			sbx_strv_free(v);
			return SBX_ENOMEM_SET();
		}
	}
	qsort(v, k, sizeof *v, cmp_str);
	*out = v;
	return SBX_OK;
}

/* ---- namespaces ------------------------------------------------------------ */

int remote_namespace_create(void *p, const char *ns)
{
	remote_db *db = p;
	sbx_buf path = {0};
	remote_resp r;
	int rc = remote_request(db, "POST", ns_path(&path, ns, ""), NULL, NULL, 0,
				false, &r);
	sbx_buf_free(&path);
	if (rc)
		return rc;
	char what[300];
	snprintf(what, sizeof what, "namespace '%.120s'", ns);
	if (r.status == 403) {
		/* HBase answers 403 when the namespace exists. */
		char msg[256];
		remote_error_text(&r, msg, sizeof msg);
		rc = strcasestr(msg, "read-only")
			     ? remote_status_error(db, &r, what)
			     : sbx_error_set(SBX_EEXISTS,
					     "namespace '%s' already exists", ns);
	} else if (r.status != 200 && r.status != 201) {
		rc = remote_status_error(db, &r, what);
	}
	remote_resp_free(&r);
	return rc;
}

int remote_namespace_drop(void *p, const char *ns)
{
	remote_db *db = p;
	if (!strcmp(ns, "default") || !strcmp(ns, "hbase"))
		return sbx_error_set(SBX_EINVAL, "namespace '%s' cannot be dropped",
				     ns);
	sbx_buf path = {0};
	remote_resp r;
	int rc = remote_request(db, "DELETE", ns_path(&path, ns, ""), NULL, NULL,
				0, true, &r);
	sbx_buf_free(&path);
	if (rc)
		return rc;
	if (r.status != 200) {
		char what[300];
		snprintf(what, sizeof what, "namespace '%.120s'", ns);
		rc = remote_status_error(db, &r, what);
		/* HBase refuses to drop a namespace holding tables with an
		 * IOException (503) or 403 from a Saltbox server. */
		if (rc == SBX_EREADONLY && !strcasestr(sbx_errmsg(), "read-only"))
			rc = sbx_error_set(SBX_ENOTEMPTY, "%s", sbx_errmsg());
	}
	remote_resp_free(&r);
	return rc;
}

int remote_namespace_list(char ***out, void *p)
{
	*out = NULL;
	json_t *j;
	int rc = get_json(&j, p, "/namespaces", "namespace list");
	if (rc)
		return rc;
	rc = strv_from_json(out, json_object_get(j, "Namespace"), NULL);
	json_decref(j);
	return rc;
}

/* ---- schemas -------------------------------------------------------------- */

static void set_str(json_t *o, const char *k, const char *v)
{
	json_object_set_new(o, k, json_string(v));
}

/* A ColumnSchema with HBase's attribute names, values as strings. */
static json_t *family_json(const sbx_family_desc *f)
{
	json_t *o = json_object();
	if (!o)
		return NULL;
	set_str(o, "name", f->name);
	sbx_family_attr a;
	for (size_t i = 0; sbx_family_desc_attr(&a, f, i) == SBX_OK; i++)
		set_str(o, a.name, a.value);
	return o;
}

static json_t *schema_json(const char *name, const sbx_family_desc *fs,
			   size_t n)
{
	json_t *cols = json_array();
	for (size_t i = 0; cols && i < n; i++)
		json_array_append_new(cols, family_json(&fs[i]));
	return json_pack("{s:s, s:o}", "name", name, "ColumnSchema", cols);
}

/* PUT (create or replace) or POST (add/modify families) a schema. */
static int send_schema(remote_db *db, const char *method, const char *name,
		       const sbx_family_desc *fs, size_t n)
{
	json_t *j = schema_json(name, fs, n);
	char *body = j ? json_dumps(j, JSON_COMPACT) : NULL;
	json_decref(j);
	if (!body)
		return SBX_ENOMEM_SET();
	sbx_buf path = {0};
	remote_resp r;
	int rc = remote_request(db, method, table_path(&path, name, "/schema"),
				"application/json", body, strlen(body), true, &r);
	free(body);
	sbx_buf_free(&path);
	if (rc)
		return rc;
	char what[300];
	snprintf(what, sizeof what, "table '%.200s'", name);
	if (r.status == 304)
		rc = sbx_error_set(SBX_EEXISTS, "table '%s' already exists", name);
	else if (r.status != 200 && r.status != 201)
		rc = remote_status_error(db, &r, what);
	remote_resp_free(&r);
	return rc;
}

static int namespace_exists(remote_db *db, const char *ns, bool *exists)
{
	sbx_buf path = {0};
	remote_resp r;
	int rc = remote_request(db, "GET", ns_path(&path, ns, ""), NULL, NULL, 0,
				true, &r);
	sbx_buf_free(&path);
	if (rc)
		return rc;
	*exists = r.status == 200;
	if (r.status != 200 && r.status != 404) {
		char what[300];
		snprintf(what, sizeof what, "namespace '%.120s'", ns);
		rc = remote_status_error(db, &r, what);
	}
	remote_resp_free(&r);
	return rc;
}

int remote_table_exists(void *p, const char *name, bool *exists)
{
	remote_db *db = p;
	sbx_buf path = {0};
	remote_resp r;
	int rc = remote_request(db, "GET", table_path(&path, name, "/exists"),
				NULL, NULL, 0, true, &r);
	sbx_buf_free(&path);
	if (rc)
		return rc;
	*exists = r.status == 200;
	if (r.status != 200 && r.status != 404) {
		char what[300];
		snprintf(what, sizeof what, "table '%.200s'", name);
		rc = remote_status_error(db, &r, what);
	}
	remote_resp_free(&r);
	return rc;
}

int remote_table_create(void *p, const char *name,
			const sbx_family_desc *families, size_t n,
			const sbx_bytes *splits, size_t nsplits)
{
	remote_db *db = p;
	if (nsplits)
		return unsupported("creating a pre-split table (the schema "
				   "resource takes no split keys)");
	/* PUT /schema replaces an existing table: check first (a create race
	 * still ends in 304 = SBX_EEXISTS). */
	bool exists;
	int rc = remote_table_exists(db, name, &exists);
	if (rc)
		return rc;
	if (exists)
		return sbx_error_set(SBX_EEXISTS, "table '%s' already exists", name);
	const char *colon = strchr(name, ':');
	if (colon) {
		char ns[256];
		int nslen = (int)(colon - name);
		snprintf(ns, sizeof ns, "%.*s", nslen > 200 ? 200 : nslen, name);
		bool ns_exists;
		if ((rc = namespace_exists(db, ns, &ns_exists)))
			return rc;
		if (!ns_exists)
			return sbx_error_set(SBX_ENOTFOUND,
					     "namespace '%s' does not exist", ns);
	}
	return send_schema(db, "PUT", name, families, n);
}

/* A family descriptor from a ColumnSchema object; unknown attributes and
 * values this library cannot take keep their defaults. */
static void family_from_json(sbx_family_desc *f, json_t *o)
{
	json_t *name = json_object_get(o, "name");
	sbx_family_desc_init(f, NULL);
	if (json_is_string(name))
		snprintf(f->name, sizeof f->name, "%s", json_string_value(name));
	const char *k;
	json_t *v;
	json_object_foreach(o, k, v)
	{
		char text[64];
		if (json_is_string(v))
			snprintf(text, sizeof text, "%s", json_string_value(v));
		else if (json_is_integer(v))
			snprintf(text, sizeof text, "%lld",
				 (long long)json_integer_value(v));
		else if (json_is_boolean(v))
			snprintf(text, sizeof text, "%s",
				 json_is_true(v) ? "true" : "false");
		else
			continue;
		if (strcmp(k, "name"))
			(void)sbx_family_desc_set(f, k, text);
	}
}

static int cmp_family(const void *a, const void *b)
{
	return strcmp(((const sbx_family_desc *)a)->name,
		      ((const sbx_family_desc *)b)->name);
}

int remote_table_describe(sbx_table_info **out, void *p, const char *name)
{
	*out = NULL;
	remote_db *db = p;
	sbx_buf path = {0};
	char what[300];
	snprintf(what, sizeof what, "table '%.200s'", name);
	json_t *j;
	int rc = get_json(&j, db, table_path(&path, name, "/schema"), what);
	sbx_buf_free(&path);
	if (rc == SBX_ENOTFOUND)
		return sbx_error_set(SBX_ENOTFOUND, "table '%s' does not exist",
				     name);
	if (rc)
		return rc;
	json_t *cols = json_object_get(j, "ColumnSchema");
	size_t n = json_is_array(cols) ? json_array_size(cols) : 0;
	sbx_table_info *info = sbx_calloc(1, sizeof *info);
	if (!info || !(info->name = sbx_strdup(name)) ||
	    !(info->families = sbx_calloc(n + 1, sizeof *info->families))) {
		sbx_table_info_free(info);
		json_decref(j);
		return SBX_ENOMEM_SET();
	}
	for (size_t i = 0; i < n; i++)
		family_from_json(&info->families[i], json_array_get(cols, i));
	info->nfamilies = n;
	qsort(info->families, n, sizeof *info->families, cmp_family);
	/* HBase's schema has no enabled flag; a Saltbox server adds ENABLED. */
	json_t *en = json_object_get(j, "ENABLED");
	info->enabled = !json_is_string(en) ||
			strcasecmp(json_string_value(en), "false") != 0;
	json_decref(j);
	*out = info;
	return SBX_OK;
}

int remote_table_list(char ***out, void *p)
{
	*out = NULL;
	json_t *j;
	int rc = get_json(&j, p, "/", "table list");
	if (rc)
		return rc;
	rc = strv_from_json(out, json_object_get(j, "table"), "name");
	json_decref(j);
	return rc;
}

int remote_table_alter_family(void *p, const char *table,
			      const sbx_family_desc *f)
{
	remote_db *db = p;
	/* POST on a missing table would create it. */
	bool exists;
	int rc = remote_table_exists(db, table, &exists);
	if (rc)
		return rc;
	if (!exists)
		return sbx_error_set(SBX_ENOTFOUND, "table '%s' does not exist",
				     table);
	return send_schema(db, "POST", table, f, 1);
}

int remote_table_delete_family(void *p, const char *table, const char *family)
{
	remote_db *db = p;
	sbx_table_info *info;
	int rc = remote_table_describe(&info, db, table);
	if (rc)
		return rc;
	size_t k = 0;
	bool found = false;
	for (size_t i = 0; i < info->nfamilies; i++) {
		if (!strcmp(info->families[i].name, family))
			found = true;
		else
			info->families[k++] = info->families[i];
	}
	if (!found)
		rc = sbx_error_set(SBX_ENOFAMILY, "table '%s' has no family '%s'",
				   table, family);
	else if (k == 0)
		rc = sbx_error_set(SBX_EINVAL,
				   "cannot delete family '%s': it is the last "
				   "family of table '%s'",
				   family, table);
	else
		rc = send_schema(db, "PUT", table, info->families, k);
	sbx_table_info_free(info);
	return rc;
}

int remote_table_set_enabled(void *p, const char *name, bool enabled)
{
	(void)p;
	(void)name;
	return unsupported(enabled ? "enabling a table" : "disabling a table");
}

int remote_table_is_enabled(void *p, const char *name, bool *enabled)
{
	sbx_table_info *info;
	int rc = remote_table_describe(&info, p, name);
	if (rc)
		return rc;
	*enabled = info->enabled;
	sbx_table_info_free(info);
	return SBX_OK;
}

int remote_table_drop(void *p, const char *name)
{
	remote_db *db = p;
	sbx_buf path = {0};
	remote_resp r;
	/* The gateway disables the table itself before deleting it. */
	int rc = remote_request(db, "DELETE", table_path(&path, name, "/schema"),
				NULL, NULL, 0, true, &r);
	sbx_buf_free(&path);
	if (rc)
		return rc;
	if (r.status == 404)
		rc = sbx_error_set(SBX_ENOTFOUND, "table '%s' does not exist", name);
	else if (r.status != 200) {
		char what[300];
		snprintf(what, sizeof what, "table '%.200s'", name);
		rc = remote_status_error(db, &r, what);
	}
	remote_resp_free(&r);
	return rc;
}

/* HBase's truncate is disable + drop + create with the same schema; over
 * REST the same steps run from here (region boundaries are not kept). */
int remote_table_truncate(void *p, const char *name)
{
	sbx_table_info *info;
	int rc = remote_table_describe(&info, p, name);
	if (rc)
		return rc;
	rc = remote_table_drop(p, name);
	if (rc == SBX_OK)
		rc = send_schema(p, "PUT", name, info->families, info->nfamilies);
	sbx_table_info_free(info);
	return rc;
}

int remote_table_flush(void *p, const char *name)
{
	(void)p;
	(void)name;
	return unsupported("flushing a table");
}

int remote_table_major_compact(void *p, const char *name)
{
	(void)p;
	(void)name;
	return unsupported("major compaction");
}

/* ---- regions --------------------------------------------------------------- */

static int b64_field(uint8_t **out, size_t *len, json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);
	sbx_buf b = {0};
	*out = NULL;
	*len = 0;
	int rc = json_is_string(v) ? remote_b64_decode(&b, json_string_value(v))
				   : SBX_OK;
	if (rc == SBX_OK && b.len) {
		*out = b.data;
		*len = b.len;
		return SBX_OK;
	}
	sbx_buf_free(&b);
	return rc;
}

/* Per-region counters from /status/cluster, matched by region name; the
 * server index is the position of the region's live node. */
static void add_cluster_metrics(remote_db *db, sbx_region_info *r, size_t n)
{
	json_t *j;
	if (get_json(&j, db, "/status/cluster", "cluster status"))
		return;
	json_t *nodes = json_object_get(j, "LiveNodes");
	sbx_buf name = {0};
	for (size_t ni = 0; ni < json_array_size(nodes); ni++) {
		json_t *regions = json_object_get(json_array_get(nodes, ni), "Region");
		for (size_t k = 0; k < json_array_size(regions); k++) {
			json_t *jr = json_array_get(regions, k);
			json_t *nm = json_object_get(jr, "name");
			if (!json_is_string(nm) ||
			    remote_b64_decode(&name, json_string_value(nm)))
				continue;
			for (size_t i = 0; i < n; i++) {
				if (strlen(r[i].name) != name.len ||
				    memcmp(r[i].name, name.data, name.len))
					continue;
				sbx_region_metrics *m = &r[i].metrics;
				m->read_request_count = (uint64_t)json_integer_value(
					json_object_get(jr, "readRequestsCount"));
				m->write_request_count = (uint64_t)json_integer_value(
					json_object_get(jr, "writeRequestsCount"));
				m->store_file_size = (uint64_t)json_integer_value(
					json_object_get(jr, "storefileSizeMB")) << 20;
				m->memstore_size = (uint64_t)json_integer_value(
					json_object_get(jr, "memStoreSizeMB")) << 20;
			}
		}
	}
	sbx_buf_free(&name);
	json_decref(j);
}

int remote_regions(sbx_region_info **out, size_t *n, void *p, const char *table)
{
	*out = NULL;
	*n = 0;
	remote_db *db = p;
	sbx_buf path = {0};
	char what[300];
	snprintf(what, sizeof what, "table '%.200s'", table);
	json_t *j;
	int rc = get_json(&j, db, table_path(&path, table, "/regions"), what);
	sbx_buf_free(&path);
	if (rc == SBX_ENOTFOUND)
		return sbx_error_set(SBX_ENOTFOUND, "table '%s' does not exist",
				     table);
	if (rc)
		return rc;
	json_t *regions = json_object_get(j, "Region");
	size_t count = json_array_size(regions);
	sbx_region_info *r = sbx_calloc(count + 1, sizeof *r);
	char **locations = sbx_calloc(count + 1, sizeof *locations);
	size_t nloc = 0;
	if (!r || !locations)
		rc = SBX_ENOMEM_SET();
	for (size_t i = 0; rc == SBX_OK && i < count; i++) {
		json_t *jr = json_array_get(regions, i);
		json_t *nm = json_object_get(jr, "name");
		json_t *loc = json_object_get(jr, "location");
		r[i].name =
		    sbx_strdup(json_is_string(nm) ? json_string_value(nm) : "");
		r[i].id = (uint64_t)json_integer_value(json_object_get(jr, "id"));
		if (!r[i].name) {
			rc = SBX_ENOMEM_SET();
			break;
		}
		/* "table,start,id.ENCODED." */
		size_t nl = strlen(r[i].name);
		if (nl >= 34 && r[i].name[nl - 1] == '.' && r[i].name[nl - 34] == '.')
			memcpy(r[i].encoded, r[i].name + nl - 33, 32);
		rc = b64_field(&r[i].start_key, &r[i].start_len, jr, "startKey");
		if (rc == SBX_OK)
			rc = b64_field(&r[i].end_key, &r[i].end_len, jr, "endKey");
		const char *ls = json_is_string(loc) ? json_string_value(loc) : "";
		/* a saltbox gateway names its modelled servers "server-N:port"
		 * (N is the server, as /status/cluster lists them); any other
		 * gateway: servers numbered by first appearance */
		int modelled = -1, used = 0;
		if (sscanf(ls, "server-%d:%*d%n", &modelled, &used) == 1 &&
		    used > 0 && !ls[used] && modelled >= 0 && modelled < 100000) {
			r[i].server = modelled;
			continue;
		}
		size_t s = 0;
		while (s < nloc && strcmp(locations[s], ls))
			s++;
		if (s == nloc)
			locations[nloc++] = (char *)ls;
		r[i].server = (int)s;
	}
	free(locations);
	json_decref(j);
	if (rc) {
		sbx_region_infos_free(r, count);
		return rc;
	}
	add_cluster_metrics(db, r, count);
	*out = r;
	*n = count;
	return SBX_OK;
}

int remote_split(void *p, const char *table, const void *key, size_t len)
{
	(void)p, (void)table, (void)key, (void)len;
	return unsupported("splitting a region");
}

int remote_merge(void *p, const char *table, const void *start, size_t len)
{
	(void)p, (void)table, (void)start, (void)len;
	return unsupported("merging regions");
}

int remote_set_split_policy(void *p, const char *table,
			    const sbx_split_policy *sp)
{
	(void)p, (void)table, (void)sp;
	return unsupported("setting a split policy");
}

int remote_get_split_policy(void *p, const char *table, sbx_split_policy *sp)
{
	(void)p, (void)table, (void)sp;
	return unsupported("reading a split policy");
}

int remote_load(sbx_region_load **out, size_t *n, void *p, const char *table,
		size_t nbuckets)
{
	(void)p, (void)table, (void)nbuckets;
	*out = NULL;
	*n = 0;
	return unsupported("per-region load history");
}

/* Live region servers in /status/cluster (at least 1 if reachable). */
int remote_region_servers(void *p)
{
	json_t *j;
	if (get_json(&j, p, "/status/cluster", "cluster status"))
		return 0;
	size_t n = json_array_size(json_object_get(j, "LiveNodes"));
	json_decref(j);
	return n ? (int)n : 1;
}
