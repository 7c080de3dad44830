/*
 * h_cluster.c - cluster-level resources: REST and cluster version, cluster
 * status (one live node: this server, holding every region), the table
 * list, and namespaces. Key sets follow HBase's models exactly because
 * clients check them (node-hbase asserts the version and status keys).
 */
#include "server/handlers.h"

#include "common/alloc.h"
#include "common/buf.h"
#include "saltbox/hotspot.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#define CLUSTER_VERSION "2.5.0"
#define REST_VERSION "0.0.3"

static const rest_fmt produces_text_first[] = {REST_FMT_TEXT, REST_FMT_XML,
					       REST_FMT_JSON, REST_FMT_PB};
static const rest_fmt produces_xml_first[] = {REST_FMT_XML, REST_FMT_JSON,
					      REST_FMT_PB, REST_FMT_TEXT};

/* A list of names in one of the four list shapes HBase uses. */
typedef struct name_list_shape {
	const char *json_key;    /* {"table":[{"name":..}]} or {"Namespace":[..]} */
	bool json_objects;       /* names wrapped as {"name":..} */
	const char *xml_root;    /* <TableList> / <Namespaces> */
	const char *xml_item;    /* <table name=".."/> or <Namespace>..</Namespace> */
	bool xml_attr;
} name_list_shape;

static const name_list_shape table_list_shape = {"table", true, "TableList",
						 "table", true};
static const name_list_shape namespace_list_shape = {"Namespace", false,
						     "Namespaces", "Namespace",
						     false};

static void write_name_list(rest_response *rs, rest_fmt fmt,
			    const name_list_shape *sh, char **names)
{
	sbx_buf *b = &rs->body;
	if (fmt == REST_FMT_JSON) {
		sbx_buf_printf(b, "{\"%s\":[", sh->json_key);
		for (size_t i = 0; names[i]; i++) {
			if (i)
				sbx_buf_push(b, ',');
			if (sh->json_objects)
				rest_buf_puts(b, "{\"name\":");
			rest_json_string(b, names[i], strlen(names[i]));
			if (sh->json_objects)
				sbx_buf_push(b, '}');
		}
		rest_buf_puts(b, "]}");
	} else if (fmt == REST_FMT_XML) {
		sbx_buf_printf(b, "<?xml version=\"1.0\" encoding=\"UTF-8\" "
				   "standalone=\"yes\"?><%s>", sh->xml_root);
		for (size_t i = 0; names[i]; i++) {
			if (sh->xml_attr) {
				sbx_buf_printf(b, "<%s name=\"", sh->xml_item);
				rest_xml_escape(b, names[i], strlen(names[i]));
				rest_buf_puts(b, "\"/>");
			} else {
				sbx_buf_printf(b, "<%s>", sh->xml_item);
				rest_xml_escape(b, names[i], strlen(names[i]));
				sbx_buf_printf(b, "</%s>", sh->xml_item);
			}
		}
		sbx_buf_printf(b, "</%s>", sh->xml_root);
	} else if (fmt == REST_FMT_PB) {
		for (size_t i = 0; names[i]; i++)
			pb_put_bytes(b, 1, names[i], strlen(names[i]));
	} else {
		for (size_t i = 0; names[i]; i++)
			sbx_buf_printf(b, "%s\n", names[i]);
	}
}

/* Tables of namespace `ns` (qualifier only) or every table (ns NULL). */
static int list_tables(char ***out, sbx_db *db, const char *ns)
{
	char **all;
	int rc = sbx_table_list(&all, db);
	if (rc || !ns) {
		*out = rc ? NULL : all;
		return rc;
	}
	size_t n = 0, k = 0;
	while (all[n])
		n++;
	char **sel = sbx_calloc(n + 1, sizeof *sel);
	if (!sel) {
		sbx_strv_free(all);
		return SBX_ENOMEM;
	}
	bool is_default = !strcmp(ns, "default");
	size_t nslen = strlen(ns);
	for (size_t i = 0; i < n; i++) {
		const char *colon = strchr(all[i], ':');
		bool match = is_default ? !colon
					: colon && (size_t)(colon - all[i]) == nslen &&
						  !strncmp(all[i], ns, nslen);
		if (match &&
		    !(sel[k++] = sbx_strdup(colon ? colon + 1 : all[i]))) {
			sbx_strv_free(sel);
			sbx_strv_free(all);
			return SBX_ENOMEM;
		}
	}
	sbx_strv_free(all);
	*out = sel;
	return SBX_OK;
}

void h_root(rest_request *rq, rest_response *rs)
{
	rest_fmt fmt;
	if (!rest_allow(rq, rs, ALLOW_GET) ||
	    !rest_accept(rq, rs, produces_text_first, 4, &fmt))
		return;
	char **names;
	int rc = list_tables(&names, rq->srv->db, NULL);
	if (rc)
		return rest_sbx_error(rs, rc);
	rs->no_cache = true;
	write_name_list(rs, fmt, &table_list_shape, names);
	sbx_strv_free(names);
}

void h_version(rest_request *rq, rest_response *rs)
{
	rest_fmt fmt;
	if (!rest_allow(rq, rs, ALLOW_GET) ||
	    !rest_accept(rq, rs, produces_text_first, 4, &fmt))
		return;
	struct utsname u;
	char os[200] = "unknown";
	if (uname(&u) == 0)
		snprintf(os, sizeof os, "%s %s %s", u.sysname, u.release, u.machine);
	const char *jvm = "none (saltbox is C11)";
	const char *jersey = "none";
	const char *server = "saltbox 0.1.0 (libmicrohttpd)";
	sbx_buf *b = &rs->body;
	rs->no_cache = true;
	if (fmt == REST_FMT_JSON) {
		rest_buf_puts(b, "{\"JVM\":");
		rest_json_string(b, jvm, strlen(jvm));
		rest_buf_puts(b, ",\"Jersey\":");
		rest_json_string(b, jersey, strlen(jersey));
		rest_buf_puts(b, ",\"OS\":");
		rest_json_string(b, os, strlen(os));
		rest_buf_puts(b, ",\"REST\":\"" REST_VERSION "\",\"Server\":");
		rest_json_string(b, server, strlen(server));
		rest_buf_puts(b, "}");
	} else if (fmt == REST_FMT_XML) {
		rest_buf_puts(b, "<?xml version=\"1.0\" encoding=\"UTF-8\" "
				 "standalone=\"yes\"?><Version JVM=\"");
		rest_xml_escape(b, jvm, strlen(jvm));
		rest_buf_puts(b, "\" Jersey=\"");
		rest_xml_escape(b, jersey, strlen(jersey));
		rest_buf_puts(b, "\" OS=\"");
		rest_xml_escape(b, os, strlen(os));
		rest_buf_puts(b, "\" REST=\"" REST_VERSION "\" Server=\"");
		rest_xml_escape(b, server, strlen(server));
		rest_buf_puts(b, "\"/>");
	} else if (fmt == REST_FMT_PB) {
		pb_put_bytes(b, 1, REST_VERSION, strlen(REST_VERSION));
		pb_put_bytes(b, 2, jvm, strlen(jvm));
		pb_put_bytes(b, 3, os, strlen(os));
		pb_put_bytes(b, 4, server, strlen(server));
		pb_put_bytes(b, 5, jersey, strlen(jersey));
	} else {
		sbx_buf_printf(b, "rest " REST_VERSION " [JVM: %s] [OS: %s] "
				   "[Server: %s] [Jersey: %s]\n",
				jvm, os, server, jersey);
	}
}

void h_cluster_version(rest_request *rq, rest_response *rs)
{
	static const rest_fmt produces[] = {REST_FMT_TEXT, REST_FMT_XML,
					    REST_FMT_JSON};
	rest_fmt fmt;
	if (!rest_allow(rq, rs, ALLOW_GET) || !rest_accept(rq, rs, produces, 3, &fmt))
		return;
	rs->no_cache = true;
	if (fmt == REST_FMT_JSON)
		rest_buf_puts(&rs->body, "\"" CLUSTER_VERSION "\"");
	else if (fmt == REST_FMT_XML)
		rest_buf_puts(&rs->body, "<?xml version=\"1.0\" encoding=\"UTF-8\" "
					 "standalone=\"yes\"?><ClusterVersion>"
					 CLUSTER_VERSION "</ClusterVersion>");
	else
		rest_buf_puts(&rs->body, CLUSTER_VERSION "\n");
}

/* ---- cluster status ----------------------------------------------------------- */

typedef struct status_region {
	char *name;
	size_t name_len;
	int stores;
	int server;
	sbx_region_metrics m;
} status_region;

static unsigned long long region_requests(const status_region *r)
{
	return (unsigned long long)(r->m.read_request_count +
				    r->m.write_request_count);
}

static void status_region_json(sbx_buf *b, const status_region *r, bool first)
{
	rest_buf_puts(b, first ? "{\"name\":\"" : ",{\"name\":\"");
	rest_b64_encode(b, r->name, r->name_len);
	sbx_buf_printf(b, "\",\"stores\":%d,\"storefiles\":%d,"
			   "\"storefileSizeMB\":%llu,\"memStoreSizeMB\":%llu,"
			   "\"storefileIndexSizeKB\":0,\"readRequestsCount\":%llu,"
			   "\"cpRequestsCount\":0,\"writeRequestsCount\":%llu,"
			   "\"rootIndexSizeKB\":0,\"totalStaticIndexSizeKB\":0,"
			   "\"totalStaticBloomSizeKB\":0,\"totalCompactingKVs\":0,"
			   "\"currentCompactedKVs\":0}",
			r->stores, r->stores,
			(unsigned long long)(r->m.store_file_size >> 20),
			(unsigned long long)(r->m.memstore_size >> 20),
			(unsigned long long)r->m.read_request_count,
			(unsigned long long)r->m.write_request_count);
}

static void status_region_xml(sbx_buf *b, const status_region *r)
{
	rest_buf_puts(b, "<Region name=\"");
	rest_b64_encode(b, r->name, r->name_len);
	sbx_buf_printf(b, "\" stores=\"%d\" storefiles=\"%d\" "
			   "storefileSizeMB=\"%llu\" memStoreSizeMB=\"%llu\" "
			   "readRequestsCount=\"%llu\" writeRequestsCount=\"%llu\"/>",
			r->stores, r->stores,
			(unsigned long long)(r->m.store_file_size >> 20),
			(unsigned long long)(r->m.memstore_size >> 20),
			(unsigned long long)r->m.read_request_count,
			(unsigned long long)r->m.write_request_count);
}

/* Every region of every table with the modelled server it is on. */
static int status_regions(status_region **out, size_t *n, sbx_db *db)
{
	char **tables;
	*out = NULL;
	*n = 0;
	int rc = sbx_table_list(&tables, db);
	if (rc)
		return rc;
	status_region *regions = NULL;
	size_t nregions = 0;
	for (size_t i = 0; !rc && tables[i]; i++) {
		rest_regions_list l;
		sbx_table_info *info = NULL;
		if (rest_regions(&l, db, tables[i]))
			continue; /* dropped meanwhile */
		sbx_table_describe(&info, db, tables[i]);
		status_region *nr =
		    sbx_realloc(regions, (nregions + l.n + 1) * sizeof *nr);
		if (!nr)
			rc = SBX_ENOMEM;
		for (size_t j = 0; nr && j < l.n; j++) {
			regions = nr;
			status_region *r = &regions[nregions++];
			r->name = sbx_strdup(l.r[j].name);
			r->name_len = r->name ? strlen(r->name) : 0;
			r->stores = info ? (int)info->nfamilies : 1;
			r->server = l.r[j].server;
			r->m = l.r[j].metrics;
		}
		if (nr)
			regions = nr;
		sbx_table_info_free(info);
		rest_regions_free(&l);
	}
	sbx_strv_free(tables);
	*out = regions;
	*n = nregions;
	return rc;
}

void h_cluster_status(rest_request *rq, rest_response *rs)
{
	static const rest_fmt produces[] = {REST_FMT_TEXT, REST_FMT_XML,
					    REST_FMT_JSON};
	rest_fmt fmt;
	if (!rest_allow(rq, rs, ALLOW_GET) || !rest_accept(rq, rs, produces, 3, &fmt))
		return;
	status_region *regions;
	size_t nregions;
	int rc = status_regions(&regions, &nregions, rq->srv->db);
	if (rc) {
		for (size_t i = 0; i < nregions; i++)
			free(regions[i].name);
		free(regions);
		return rest_sbx_error(rs, rc);
	}
	/* the live nodes: the modelled region servers; a server's requests
	 * are its regions' read and write requests (HBase's
	 * ServerLoad.getNumberOfRequests), the cluster's their sum, the
	 * average load regions per server */
	int servers = sbx_db_region_servers(rq->srv->db);
	if (servers < 1)
		servers = 1;
	unsigned long long total = 0;
	for (size_t i = 0; i < nregions; i++) {
		if (regions[i].server < 0 || regions[i].server >= servers)
			regions[i].server = 0;
		total += region_requests(&regions[i]);
	}
	char load[32];
	snprintf(load, sizeof load, "%.4f", (double)nregions / servers);
	/* the one hotspot verdict (docs/hotspots.md) over each server's
	 * requests since its regions opened (one interval) */
	uint64_t *per = sbx_calloc((size_t)servers, sizeof *per);
	sbx_hotspot verdict;
	sbx_buf vtext = {0};
	for (size_t i = 0; per && i < nregions; i++)
		per[regions[i].server] += region_requests(&regions[i]);
	sbx_hotspot_compute(&verdict, per, per ? 1 : 0, servers);
	free(per);
	if (sbx_hotspot_text(&vtext, &verdict, "server-") ||
	    sbx_buf_push(&vtext, 0))
		sbx_buf_free(&vtext);
	sbx_buf *b = &rs->body;
	rs->no_cache = true;
	long long start = (long long)rq->srv->start_ms;
	if (fmt == REST_FMT_JSON) {
		sbx_buf_printf(b, "{\"regions\":%zu,\"requests\":%llu,"
				   "\"averageLoad\":%s,\"LiveNodes\":[",
				nregions, total, load);
	} else if (fmt == REST_FMT_XML) {
		sbx_buf_printf(b, "<?xml version=\"1.0\" encoding=\"UTF-8\" "
				   "standalone=\"yes\"?><ClusterStatus "
				   "averageLoad=\"%s\" regions=\"%zu\" "
				   "requests=\"%llu\" hotspot=\"%s\" "
				   "hotspotScore=\"%.2f\"><DeadNodes/>"
				   "<LiveNodes>",
				load, nregions, total, verdict.word,
				verdict.score);
	} else {
		sbx_buf_printf(b, "%d live servers, 0 dead servers, %s average "
				   "load\n\n%d live servers\n",
				servers, load, servers);
	}
	for (int s = 0; s < servers; s++) {
		char node[48];
		rest_node_name(node, sizeof node, s);
		unsigned long long req = 0;
		size_t held = 0;
		for (size_t i = 0; i < nregions; i++)
			if (regions[i].server == s) {
				req += region_requests(&regions[i]);
				held++;
			}
		if (fmt == REST_FMT_JSON) {
			rest_buf_puts(b, s ? ",{\"name\":" : "{\"name\":");
			rest_json_string(b, node, strlen(node));
			rest_buf_puts(b, ",\"Region\":[");
			bool first = true;
			for (size_t i = 0; i < nregions; i++)
				if (regions[i].server == s) {
					status_region_json(b, &regions[i], first);
					first = false;
				}
			sbx_buf_printf(b, "],\"requests\":%llu,\"startCode\":%lld,"
					   "\"heapSizeMB\":0,\"maxHeapSizeMB\":0}",
					req, start);
		} else if (fmt == REST_FMT_XML) {
			sbx_buf_printf(b, "<Node name=\"%s\" startCode=\"%lld\" "
					   "requests=\"%llu\" heapSizeMB=\"0\" "
					   "maxHeapSizeMB=\"0\">",
					node, start, req);
			for (size_t i = 0; i < nregions; i++)
				if (regions[i].server == s)
					status_region_xml(b, &regions[i]);
			rest_buf_puts(b, "</Node>");
		} else {
			sbx_buf_printf(b, "    %s %lld\n        requests=%llu, "
					   "regions=%zu\n",
					node, start, req, held);
			for (size_t i = 0; i < nregions; i++)
				if (regions[i].server == s)
					sbx_buf_printf(b, "        %s\n",
						       regions[i].name);
		}
	}
	const char *vt = vtext.data ? (const char *)vtext.data : "";
	if (fmt == REST_FMT_JSON) {
		sbx_buf_printf(b, "],\"DeadNodes\":[],\"hotspot\":{\"level\":"
				   "\"%s\",\"color\":\"%s\",\"score\":%.2f,"
				   "\"busiest_share\":%.4f,"
				   "\"busiest_server\":%d,\"text\":",
				verdict.word, verdict.color, verdict.score,
				verdict.busiest_share, verdict.busiest_server);
		rest_json_string(b, vt, strlen(vt));
		rest_buf_puts(b, "}}");
	} else if (fmt == REST_FMT_XML) {
		rest_buf_puts(b, "</LiveNodes></ClusterStatus>");
	} else {
		rest_buf_puts(b, "\n0 dead servers\n");
		sbx_buf_printf(b, "\nhotspot %s\n", vt);
	}
	sbx_buf_free(&vtext);
	for (size_t i = 0; i < nregions; i++)
		free(regions[i].name);
	free(regions);
}

/* ---- namespaces ----------------------------------------------------------------- */

static int namespace_exists(sbx_db *db, const char *ns, bool *exists)
{
	char **all;
	int rc = sbx_namespace_list(&all, db);
	if (rc)
		return rc;
	*exists = false;
	for (size_t i = 0; all[i]; i++)
		if (!strcmp(all[i], ns))
			*exists = true;
	sbx_strv_free(all);
	return SBX_OK;
}

void h_namespaces(rest_request *rq, rest_response *rs)
{
	rest_fmt fmt;
	if (!rest_allow(rq, rs, ALLOW_GET) ||
	    !rest_accept(rq, rs, produces_xml_first, 4, &fmt))
		return;
	char **names;
	int rc = sbx_namespace_list(&names, rq->srv->db);
	if (rc)
		return rest_sbx_error(rs, rc);
	write_name_list(rs, fmt, &namespace_list_shape, names);
	sbx_strv_free(names);
}

static void namespace_get(rest_request *rq, rest_response *rs)
{
	rest_fmt fmt;
	if (!rest_accept(rq, rs, produces_xml_first, 4, &fmt))
		return;
	bool exists;
	int rc = namespace_exists(rq->srv->db, rq->route.name, &exists);
	if (rc)
		return rest_sbx_error(rs, rc);
	if (!exists)
		return rest_error(rs, 404, "namespace '%s' not found",
				  rq->route.name);
	/* Saltbox namespaces carry no properties. */
	if (fmt == REST_FMT_JSON)
		rest_buf_puts(&rs->body, "{\"properties\":{}}");
	else if (fmt == REST_FMT_XML)
		rest_buf_puts(&rs->body, "<?xml version=\"1.0\" encoding=\"UTF-8\" "
					 "standalone=\"yes\"?><NamespaceProperties/>");
	else if (fmt == REST_FMT_TEXT)
		sbx_buf_printf(&rs->body, "{NAME => '%s'}\n", rq->route.name);
}

void h_namespace(rest_request *rq, rest_response *rs)
{
	if (!rest_allow(rq, rs, ALLOW_GET | ALLOW_PUT | ALLOW_POST | ALLOW_DELETE))
		return;
	sbx_db *db = rq->srv->db;
	const char *ns = rq->route.name;
	int rc;
	switch (rq->method) {
	case METHOD_POST:
		rc = sbx_namespace_create(db, ns);
		if (rc == SBX_EEXISTS)
			return rest_error(rs, 403, "namespace '%s' already exists",
					  ns);
		if (rc)
			return rest_sbx_error(rs, rc);
		rest_empty(rs, 201);
		rest_location(rq, rs, rq->path);
		return;
	case METHOD_PUT: {
		bool exists;
		rc = namespace_exists(db, ns, &exists);
		if (rc)
			return rest_sbx_error(rs, rc);
		if (!exists)
			return rest_error(rs, 403, "namespace '%s' does not exist",
					  ns);
		return rest_empty(rs, 200); /* no properties to change */
	}
	case METHOD_DELETE:
		rc = sbx_namespace_drop(db, ns);
		rest_tables_invalidate(rq->srv);
		if (rc == SBX_ENOTFOUND)
			return rest_error(rs, 404, "namespace '%s' not found", ns);
		if (rc == SBX_ENOTEMPTY || rc == SBX_EINVAL)
			return rest_error(rs, 403, "%s", sbx_errmsg());
		if (rc)
			return rest_sbx_error(rs, rc);
		return rest_empty(rs, 200);
	default:
		return namespace_get(rq, rs);
	}
}

void h_namespace_tables(rest_request *rq, rest_response *rs)
{
	rest_fmt fmt;
	if (!rest_allow(rq, rs, ALLOW_GET) ||
	    !rest_accept(rq, rs, produces_xml_first, 4, &fmt))
		return;
	bool exists;
	int rc = namespace_exists(rq->srv->db, rq->route.name, &exists);
	if (rc)
		return rest_sbx_error(rs, rc);
	if (!exists)
		return rest_error(rs, 404, "namespace '%s' not found",
				  rq->route.name);
	char **names;
	rc = list_tables(&names, rq->srv->db, rq->route.name);
	if (rc)
		return rest_sbx_error(rs, rc);
	write_name_list(rs, fmt, &table_list_shape, names);
	sbx_strv_free(names);
}
