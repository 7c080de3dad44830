/*
 * router.c - everything between the transport and a handler: the checks a
 * request must pass on its headers alone (framing, token, read-only, body
 * size), then query parsing, the route, and the handler. Nothing here
 * knows libmicrohttpd, so tests and fuzzers drive whole requests through
 * rest_admit + rest_route_request without a socket.
 */
#include "server/rest.h"
#include "server/ui.h"

#include "common/buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const rest_handler handlers[] = {
	[ROUTE_ROOT] = h_root,
	[ROUTE_VERSION] = h_version,
	[ROUTE_CLUSTER_VERSION] = h_cluster_version,
	[ROUTE_CLUSTER_STATUS] = h_cluster_status,
	[ROUTE_NAMESPACES] = h_namespaces,
	[ROUTE_NAMESPACE] = h_namespace,
	[ROUTE_NAMESPACE_TABLES] = h_namespace_tables,
	[ROUTE_SCHEMA] = h_schema,
	[ROUTE_EXISTS] = h_exists,
	[ROUTE_REGIONS] = h_regions,
	[ROUTE_SCANNER] = h_scanner,
	[ROUTE_SCANNER_ID] = h_scanner_id,
	[ROUTE_MULTIGET] = h_multiget,
	[ROUTE_SCAN] = h_scan,
	[ROUTE_ROW] = h_row,
};

void rest_response_free(rest_response *rs)
{
	sbx_buf_free(&rs->body);
	for (size_t i = 0; i < rs->nheaders; i++) {
		free(rs->header_names[i]);
		free(rs->header_values[i]);
	}
	if (rs->stream.free)
		rs->stream.free(rs->stream.state);
	memset(rs, 0, sizeof *rs);
}

/* Constant-time in the token's length: a wrong guess learns nothing. */
bool rest_token_ok(const rest_server *srv, const char *auth)
{
	if (!auth || strncasecmp(auth, "Bearer ", 7))
		return false;
	const char *given = auth + 7;
	while (*given == ' ')
		given++;
	size_t glen = strlen(given), tlen = strlen(srv->opts.token);
	unsigned char diff = glen != tlen;
	for (size_t i = 0; i < tlen; i++)
		diff |= (unsigned char)(given[i < glen ? i : 0] ^ srv->opts.token[i]);
	return diff == 0;
}

/* "/{t}/scanner" or "/{t}/scanner/{id}": opening, paging and deleting a
 * scanner read the table, whatever the method. */
static bool scanner_path(const char *path)
{
	const char *p = path[0] == '/' ? path + 1 : path;
	const char *slash = strchr(p, '/');
	if (!slash || slash == p)
		return false;
	p = slash + 1;
	if (strncmp(p, "scanner", 7))
		return false;
	return p[7] == 0 || (p[7] == '/' && p[8] && !strchr(p + 8, '/'));
}

static bool is_read(const rest_request *rq)
{
	if (rq->method == METHOD_GET || rq->method == METHOD_HEAD)
		return true;
	return rq->method != METHOD_OTHER && scanner_path(rq->path);
}

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

/* RFC 9112 §6.3: a message with both framings, several differing lengths,
 * or a coding we cannot undo cannot be delimited: answer and close. */
static bool framing_ok(const rest_request *rq, rest_response *rs)
{
	size_t nte = rest_header_count(rq, "Transfer-Encoding");
	size_t ncl = rest_header_count(rq, "Content-Length");
	if (nte && ncl) {
		rest_error(rs, 400, "both Content-Length and Transfer-Encoding "
				    "given");
		return false;
	}
	if (nte > 1) {
		rest_error(rs, 400, "more than one Transfer-Encoding header");
		return false;
	}
	if (nte) {
		const char *te = rest_header(rq, "Transfer-Encoding");
		if (strcasecmp(te, "chunked")) {
			rest_error(rs, 501, "Transfer-Encoding '%.64s' is not "
					    "supported (only chunked)", te);
			return false;
		}
	}
	const char *first = NULL;
	for (size_t i = 0; i < rq->nheaders; i++) {
		if (strcasecmp(rq->headers[i].name, "Content-Length"))
			continue;
		const char *v = rq->headers[i].value;
		if (!all_digits(v) || strlen(v) > 19) {
			rest_error(rs, 400, "malformed Content-Length '%.32s'", v);
			return false;
		}
		if (first && strcmp(first, v)) {
			rest_error(rs, 400, "conflicting Content-Length headers");
			return false;
		}
		first = v;
	}
	return true;
}

bool rest_admit(rest_request *rq, rest_response *rs, bool *close)
{
	const rest_server *srv = rq->srv;
	*close = true;
	if (!framing_ok(rq, rs))
		return false;
	size_t uri = strlen(rq->path) + (rq->query ? strlen(rq->query) + 1 : 0);
	if (uri > REST_MAX_URI_BYTES) {
		rest_error(rs, 414, "request target of %zu bytes is over the "
				    "%d-byte limit", uri, REST_MAX_URI_BYTES);
		return false;
	}
	*close = false;
	bool read = is_read(rq);
	rq->authed = srv->opts.token &&
		     rest_token_ok(srv, rest_header(rq, "Authorization"));
	if (srv->opts.token && !rq->authed && !(read && srv->opts.public_read)) {
		rest_error(rs, 401, "a valid 'Authorization: Bearer <token>' "
				    "header is required");
		rest_set_header(rs, "WWW-Authenticate", "Bearer realm=\"saltbox\"");
		return false;
	}
	/* As HBase's hbase.rest.readonly: every PUT, POST and DELETE, even a
	 * scanner's, is refused. */
	if (rq->method != METHOD_GET && rq->method != METHOD_HEAD &&
	    srv->opts.read_only) {
		rest_error(rs, 403, "this server is read-only");
		return false;
	}
	const char *cl = rest_header(rq, "Content-Length");
	if (cl && strtoull(cl, NULL, 10) > srv->opts.max_body_bytes) {
		rest_error(rs, 413, "request body over the %zu-byte limit",
			   srv->opts.max_body_bytes);
		return false;
	}
	return true;
}

void rest_route_request(rest_request *rq, rest_response *rs)
{
	char err[REST_ERR_LEN] = "";
	if (rq->method == METHOD_OTHER)
		return rest_error(rs, 405, "method not supported");
	if (rest_query_parse(rq, rq->query))
		return rest_error(rs, 400, "malformed query string");
	if (ui_owns_path(rq->path)) /* the browser view, not HBase REST */
		return ui_handle(rq, rs);
	if (rest_route_parse(&rq->route, rq->path, strlen(rq->path), err))
		return rest_error(rs, 400, "%s", err);
	/* DELETE /{t}/<star> is a row delete naming its row in X-Saltbox-Row
	 * (h_row.c), not the stateless scanner */
	if (rq->route.kind == ROUTE_SCAN && rq->method == METHOD_DELETE &&
	    rq->route.spec.row.len == 0)
		rq->route.kind = ROUTE_ROW;
	handlers[rq->route.kind](rq, rs);
}
