/*
 * http.c - the libmicrohttpd glue: a thread pool serves connections; each
 * request is checked (read-only, bearer token, body size) before its body
 * is read, parsed into a route, handed to one handler, and the handler's
 * response (a buffer, or a stream for scans) is queued. Paths and query
 * arguments reach us still percent-encoded (a no-op unescaper) because
 * HBase splits the path on raw '/' and ',' before decoding.
 *
 * Shutdown: stop accepting, wait for the requests in flight (their writes
 * are applied before their response is queued), then stop the pool.
 */
#include "server/rest.h"
#include "server/ui.h"

#include "common/buf.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#if MHD_VERSION < 0x00097002
typedef int MHD_RESULT;
#else
typedef enum MHD_Result MHD_RESULT;
#endif

void sbx_server_opts_init(sbx_server_opts *o)
{
	memset(o, 0, sizeof *o);
	o->bind = "127.0.0.1";
	o->port = 8080;
	o->max_body_bytes = 64u << 20;
	o->max_page_cells = 10000;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	o->threads = cpus > 0 ? (int)(2 * cpus) : 4;
	o->scanner_idle_ms = 3600 * 1000;
	o->max_scanners = 10000;
}


static void response_free(rest_response *rs)
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

/* ---- per-request state ------------------------------------------------------ */

typedef struct request_ctx {
	sbx_buf body;
	bool rejected;    /* a response was queued before the body */
} request_ctx;

typedef struct stream_ctx {
	rest_stream stream;
	sbx_buf pending;
	size_t offset;
	bool done;
} stream_ctx;

static ssize_t stream_reader(void *cls, uint64_t pos, char *buf, size_t max)
{
	stream_ctx *s = cls;
	while (s->offset == s->pending.len) {
		if (s->done)
			return MHD_CONTENT_READER_END_OF_STREAM;
		s->pending.len = 0;
		s->offset = 0;
		int rc = s->stream.next(s->stream.state, &s->pending);
		if (rc < 0)
			return MHD_CONTENT_READER_END_WITH_ERROR;
		if (rc == 0)
			s->done = true;
	}
	size_t n = s->pending.len - s->offset;
	if (n > max)
		n = max;
	memcpy(buf, s->pending.data + s->offset, n);
	s->offset += n;
	return (ssize_t)n;
}

static void stream_free(void *cls)
{
	stream_ctx *s = cls;
	if (s->stream.free)
		s->stream.free(s->stream.state);
	sbx_buf_free(&s->pending);
	free(s);
}

static MHD_RESULT send_response(struct MHD_Connection *conn, rest_response *rs,
				bool head)
{
	struct MHD_Response *resp;
	if (rs->stream.next && !head) {
		stream_ctx *s = calloc(1, sizeof *s);
		if (!s)
			return MHD_NO;
		s->stream = rs->stream;
		s->pending = rs->body; /* already-written prefix */
		rs->body = (sbx_buf){0};
		memset(&rs->stream, 0, sizeof rs->stream);
		resp = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 32 * 1024,
							 stream_reader, s,
							 stream_free);
		if (!resp) {
			stream_free(s);
			return MHD_NO;
		}
	} else {
		resp = MHD_create_response_from_buffer(rs->body.len,
						       rs->body.data,
						       MHD_RESPMEM_MUST_FREE);
		if (!resp)
			return MHD_NO;
		rs->body = (sbx_buf){0};
	}
	if (rs->content_type)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE,
					rs->content_type);
	if (rs->no_cache)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL,
					"no-cache");
	for (size_t i = 0; i < rs->nheaders; i++)
		if (rs->header_names[i] && rs->header_values[i])
			MHD_add_response_header(resp, rs->header_names[i],
						rs->header_values[i]);
	MHD_RESULT ret = MHD_queue_response(conn, (unsigned)rs->status, resp);
	MHD_destroy_response(resp);
	return ret;
}

static MHD_RESULT quick_error(struct MHD_Connection *conn, int status,
			      const char *msg)
{
	rest_response rs = {0};
	rest_error(&rs, status, "%s", msg);
	if (status == 401)
		rest_set_header(&rs, MHD_HTTP_HEADER_WWW_AUTHENTICATE,
				"Bearer realm=\"saltbox\"");
	MHD_RESULT ret = send_response(conn, &rs, false);
	response_free(&rs);
	return ret;
}

static rest_method method_of(const char *m)
{
	if (!strcmp(m, "GET"))
		return METHOD_GET;
	if (!strcmp(m, "HEAD"))
		return METHOD_HEAD;
	if (!strcmp(m, "PUT"))
		return METHOD_PUT;
	if (!strcmp(m, "POST"))
		return METHOD_POST;
	if (!strcmp(m, "DELETE"))
		return METHOD_DELETE;
	return METHOD_OTHER;
}

/* Constant-time comparison of the bearer token. */
static bool token_ok(const rest_server *srv, struct MHD_Connection *conn)
{
	const char *auth = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
						       MHD_HTTP_HEADER_AUTHORIZATION);
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

/* Checks that need no body: 403 read-only, 401 token, 413 declared size. */
static MHD_RESULT precheck(rest_server *srv, struct MHD_Connection *conn,
			   rest_method m, bool *rejected)
{
	*rejected = true;
	bool mutating = m == METHOD_PUT || m == METHOD_POST || m == METHOD_DELETE;
	if (mutating && srv->opts.read_only)
		return quick_error(conn, 403, "this server is read-only");
	if (mutating && srv->opts.token && !token_ok(srv, conn))
		return quick_error(conn, 401, "a valid 'Authorization: Bearer "
					      "<token>' header is required");
	const char *cl = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
						     MHD_HTTP_HEADER_CONTENT_LENGTH);
	if (cl && strtoull(cl, NULL, 10) > srv->opts.max_body_bytes) {
		char msg[96];
		snprintf(msg, sizeof msg, "request body over the %zu-byte limit",
			 srv->opts.max_body_bytes);
		return quick_error(conn, 413, msg);
	}
	*rejected = false;
	return MHD_YES;
}

typedef struct arg_collect {
	rest_request *rq;
	int rc;
} arg_collect;

static MHD_RESULT collect_arg(void *cls, enum MHD_ValueKind kind,
			      const char *key, const char *value)
{
	arg_collect *ac = cls;
	rest_request *rq = ac->rq;
	rest_arg *args = realloc(rq->args, (rq->nargs + 1) * sizeof *args);
	if (!args) {
		ac->rc = SBX_ENOMEM;
		return MHD_NO;
	}
	rq->args = args;
	rest_arg *a = &args[rq->nargs];
	memset(a, 0, sizeof *a);
	sbx_buf k = {0};
	if (rest_url_decode(&k, key, strlen(key)) ||
	    rest_url_decode(&a->value, value ? value : "", value ? strlen(value) : 0)) {
		sbx_buf_free(&k);
		sbx_buf_free(&a->value);
		ac->rc = SBX_EPARSE;
		return MHD_NO;
	}
	a->key = (char *)k.data;
	rq->nargs++;
	return MHD_YES;
}

static void request_free(rest_request *rq)
{
	rest_route_free(&rq->route);
	for (size_t i = 0; i < rq->nargs; i++) {
		free(rq->args[i].key);
		sbx_buf_free(&rq->args[i].value);
	}
	free(rq->args);
}

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

static void dispatch(rest_request *rq, rest_response *rs)
{
	char err[REST_ERR_LEN] = "";
	if (rq->method == METHOD_OTHER)
		return rest_error(rs, 405, "method not supported");
	arg_collect ac = {rq, SBX_OK};
	MHD_get_connection_values(rq->conn, MHD_GET_ARGUMENT_KIND, collect_arg,
				  &ac);
	if (ac.rc)
		return rest_error(rs, 400, "malformed query string");
	if (ui_owns_path(rq->path)) /* the browser view, not HBase REST */
		return ui_handle(rq, rs);
	if (rest_route_parse(&rq->route, rq->path, strlen(rq->path), err))
		return rest_error(rs, 400, "%s", err);
	handlers[rq->route.kind](rq, rs);
}

static MHD_RESULT on_request(void *cls, struct MHD_Connection *conn,
			     const char *url, const char *method,
			     const char *version, const char *upload_data,
			     size_t *upload_size, void **con_cls)
{
	rest_server *srv = cls;
	request_ctx *ctx = *con_cls;
	rest_method m = method_of(method);
	if (!ctx) {
		ctx = calloc(1, sizeof *ctx);
		if (!ctx)
			return MHD_NO;
		*con_cls = ctx;
		atomic_fetch_add(&srv->in_flight, 1);
		atomic_fetch_add(&srv->requests, 1);
		return precheck(srv, conn, m, &ctx->rejected);
	}
	if (ctx->rejected) {
		*upload_size = 0; /* discard the body of a refused request */
		return MHD_YES;
	}
	if (*upload_size) {
		if (ctx->body.len + *upload_size > srv->opts.max_body_bytes) {
			ctx->rejected = true;
			*upload_size = 0;
			char msg[96];
			snprintf(msg, sizeof msg, "request body over the %zu-byte "
						  "limit", srv->opts.max_body_bytes);
			return quick_error(conn, 413, msg);
		}
		if (sbx_buf_append(&ctx->body, upload_data, *upload_size))
			return MHD_NO;
		*upload_size = 0;
		return MHD_YES;
	}
	rest_request rq = {.srv = srv, .conn = conn, .method = m, .path = url,
			   .body = ctx->body.data, .body_len = ctx->body.len};
	if (!rq.body)
		rq.body = (const uint8_t *)"";
	rest_response rs = {.status = 200};
	dispatch(&rq, &rs);
	MHD_RESULT ret = send_response(conn, &rs, m == METHOD_HEAD);
	response_free(&rs);
	request_free(&rq);
	return ret;
}

static void on_completed(void *cls, struct MHD_Connection *conn,
			 void **con_cls, enum MHD_RequestTerminationCode toe)
{
	rest_server *srv = cls;
	request_ctx *ctx = *con_cls;
	if (!ctx)
		return;
	sbx_buf_free(&ctx->body);
	free(ctx);
	*con_cls = NULL;
	atomic_fetch_sub(&srv->in_flight, 1);
}

/* Keep the path and arguments percent-encoded: see the file comment. */
static size_t no_unescape(void *cls, struct MHD_Connection *c, char *s)
{
	return strlen(s);
}

static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	(void)cls; /* MHD's own diagnostics are not user errors: drop them */
	(void)fmt;
	(void)ap;
}

int sbx_server_start(sbx_server **out, sbx_db *db, const sbx_server_opts *o)
{
	*out = NULL;
	rest_server *srv = calloc(1, sizeof *srv);
	if (!srv)
		return SBX_ENOMEM;
	srv->db = db;
	sbx_server_opts_init(&srv->opts);
	if (o)
		srv->opts = *o;
	srv->start_ms = rest_now_ms();
	int rc = rest_scanners_new(&srv->scanners);
	if (rc) {
		free(srv);
		return rc;
	}
	struct sockaddr_storage ss;
	memset(&ss, 0, sizeof ss);
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ITC |
			 MHD_USE_EPOLL_LINUX_ONLY | MHD_USE_ERROR_LOG;
	const char *bind = srv->opts.bind ? srv->opts.bind : "127.0.0.1";
	struct sockaddr_in *sin = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&ss;
	if (inet_pton(AF_INET, bind, &sin->sin_addr) == 1) {
		sin->sin_family = AF_INET;
		sin->sin_port = htons((uint16_t)srv->opts.port);
	} else if (inet_pton(AF_INET6, bind, &sin6->sin6_addr) == 1) {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons((uint16_t)srv->opts.port);
		flags |= MHD_USE_IPv6;
	} else {
		rest_scanners_free(srv->scanners);
		free(srv);
		return SBX_EINVAL;
	}
	int threads = srv->opts.threads > 0 ? srv->opts.threads : 4;
	srv->daemon = MHD_start_daemon(
		flags, (uint16_t)srv->opts.port, NULL, NULL, on_request, srv,
		MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
		MHD_OPTION_THREAD_POOL_SIZE, (unsigned)threads,
		MHD_OPTION_NOTIFY_COMPLETED, on_completed, srv,
		MHD_OPTION_UNESCAPE_CALLBACK, no_unescape, NULL,
		MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)120,
		MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)(256 * 1024),
		MHD_OPTION_LISTENING_ADDRESS_REUSE, (unsigned)1,
		MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL,
		MHD_OPTION_END);
	if (!srv->daemon) {
		rest_scanners_free(srv->scanners);
		free(srv);
		return SBX_EIO;
	}
	int port = sbx_server_port(srv);
	if (strchr(bind, ':'))
		snprintf(srv->host_port, sizeof srv->host_port, "[%s]:%d", bind,
			 port);
	else
		snprintf(srv->host_port, sizeof srv->host_port, "%s:%d", bind,
			 port);
	*out = srv;
	return SBX_OK;
}

int sbx_server_port(const sbx_server *s)
{
	const union MHD_DaemonInfo *info =
		MHD_get_daemon_info(s->daemon, MHD_DAEMON_INFO_BIND_PORT);
	return info ? info->port : s->opts.port;
}

void sbx_server_stop(sbx_server *s, int64_t drain_ms)
{
	if (!s)
		return;
	MHD_socket listen_fd = MHD_quiesce_daemon(s->daemon);
	int64_t deadline = rest_now_ms() + drain_ms;
	while (atomic_load(&s->in_flight) > 0 && rest_now_ms() < deadline) {
		struct timespec ts = {0, 5 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
	MHD_stop_daemon(s->daemon);
	if (listen_fd != MHD_INVALID_SOCKET)
		close(listen_fd);
	rest_scanners_free(s->scanners);
	free(s);
}
