/*
 * http.c - the libmicrohttpd glue: a thread pool serves connections; for
 * each request the headers are collected and the router admits it
 * (router.c: framing, token, read-only, body size) before its body is
 * read, then routes it to one handler, and the handler's response (a
 * buffer, or a stream for scans) is queued. Paths and query arguments
 * reach us still percent-encoded (a no-op unescaper, and the raw query is
 * taken from the request line) because HBase splits the path on raw '/'
 * and ',' before decoding.
 *
 * Connection limits: a total cap, a per-address cap, and a short idle
 * timeout until a request's headers are complete (longer once they are).
 *
 * A PUT may wait for a group commit (commit.c): its connection is
 * suspended, and resumed with the answer filled in; the handler then runs
 * once more and queues that answer.
 *
 * Shutdown: stop accepting, wait for the requests in flight (their writes
 * are applied before their response is queued) and for the group commit
 * to go idle, then stop the pool.
 */
#include "server/rest.h"
#include "saltbox/hotspot.h"

#include "common/alloc.h"
#include "common/buf.h"
#include "common/error.h"

#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <malloc.h>
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

/* A request whose body held this much gives freed memory back on its way
 * out (malloc_trim). */
#define REST_TRIM_BYTES ((size_t)1 << 20)

void sbx_server_opts_init(sbx_server_opts *o)
{
	memset(o, 0, sizeof *o);
	o->bind = "127.0.0.1";
	o->port = 8080;
	o->max_body_bytes = 64u << 20;
	o->max_inflight_body_bytes = 256u << 20;
	o->max_page_cells = 10000;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	o->threads = cpus > 0 ? (int)(2 * cpus) : 4;
	o->scanner_idle_ms = 60 * 1000;
	o->max_scanners = 10000;
	o->max_client_scanners = 100;
	o->max_connections = 1000;
	o->max_ip_connections = 64;
	o->header_timeout_s = 10;
	o->idle_timeout_s = 120;
	o->group_commit = true;
	o->commit_threads = cpus / 4 > 1 ? (int)(cpus / 4) : 1;
	if (o->commit_threads > SBX_SERVER_MAX_COMMIT_THREADS)
		o->commit_threads = SBX_SERVER_MAX_COMMIT_THREADS;
}


/* ---- per-request state ------------------------------------------------------ */

/* Made by the URI callback when the request line arrives; freed when the
 * request completes. The header pointers are MHD's, valid until then. */
typedef struct request_ctx {
	sbx_buf body;
	char *query;      /* raw text after '?', or NULL */
	size_t uri_len;
	bool admitted;    /* the access handler has run once */
	bool rejected;    /* a response was queued before the body */
	bool authed;
	size_t reserved;  /* bytes of srv->inflight_body this request holds */
	rest_kv *headers;
	size_t nheaders, headers_cap;
	char client[INET6_ADDRSTRLEN];
	bool deferred;    /* suspended for a group commit (commit.c) */
	rest_response answer; /* its answer, filled before the resume */
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
				bool head, bool close)
{
	struct MHD_Response *resp;
	if (rs->stream.next && !head) {
		stream_ctx *s = sbx_calloc(1, sizeof *s);
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
	if (close)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_CONNECTION, "close");
	MHD_RESULT ret = MHD_queue_response(conn, (unsigned)rs->status, resp);
	MHD_destroy_response(resp);
	return ret;
}

static MHD_RESULT quick_error(struct MHD_Connection *conn, int status,
			      const char *msg)
{
	rest_response rs = {0};
	rest_error(&rs, status, "%s", msg);
	MHD_RESULT ret = send_response(conn, &rs, false, false);
	rest_response_free(&rs);
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

static MHD_RESULT collect_header(void *cls, enum MHD_ValueKind kind,
				 const char *key, const char *value)
{
	request_ctx *ctx = cls;
	(void)kind;
	if (ctx->nheaders == ctx->headers_cap) {
		size_t cap = ctx->headers_cap ? 2 * ctx->headers_cap : 16;
		rest_kv *h = sbx_realloc(ctx->headers, cap * sizeof *h);
		if (!h)
			return MHD_NO;
		ctx->headers = h;
		ctx->headers_cap = cap;
	}
	ctx->headers[ctx->nheaders++] = (rest_kv){key, value ? value : ""};
	return MHD_YES;
}

static void peer_address(struct MHD_Connection *conn, char *out, size_t cap)
{
	out[0] = 0;
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	if (!ci || !ci->client_addr)
		return;
	const struct sockaddr *sa = ci->client_addr;
	if (sa->sa_family == AF_INET)
		inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr,
			  out, (socklen_t)cap);
	else if (sa->sa_family == AF_INET6)
		inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)sa)->sin6_addr,
			  out, (socklen_t)cap);
}

static void suspend_conn(void *conn)
{
	MHD_suspend_connection(conn);
}

static void resume_conn(void *conn)
{
	MHD_resume_connection(conn);
}

static rest_request request_of(rest_server *srv, request_ctx *ctx,
			       const char *url, rest_method m)
{
	return (rest_request){.srv = srv, .method = m, .path = url,
			      .query = ctx->query, .headers = ctx->headers,
			      .nheaders = ctx->nheaders, .client = ctx->client,
			      .authed = ctx->authed};
}

/* Take `n` more bytes of the in-flight body budget for ctx; false (nothing
 * taken) when that would pass the cap. */
static bool body_reserve(rest_server *srv, request_ctx *ctx, size_t n)
{
	size_t cap = srv->opts.max_inflight_body_bytes;
	size_t cur = atomic_load(&srv->inflight_body);
	do {
		if (cap && (n > cap || cur > cap - n))
			return false;
	} while (!atomic_compare_exchange_weak(&srv->inflight_body, &cur,
					       cur + n));
	ctx->reserved += n;
	return true;
}

/* Give the budget back; after a large body, hand freed memory back to the
 * system (glibc keeps freed heap pages of its arenas otherwise). */
static void body_release(rest_server *srv, request_ctx *ctx)
{
	if (!ctx->reserved)
		return;
	atomic_fetch_sub(&srv->inflight_body, ctx->reserved);
	if (ctx->reserved >= REST_TRIM_BYTES)
		malloc_trim(0);
	ctx->reserved = 0;
}

/* 503 for a body the budget cannot hold now: the client retries. */
static MHD_RESULT body_busy(rest_server *srv, struct MHD_Connection *conn,
			    request_ctx *ctx, size_t want)
{
	ctx->rejected = true;
	rest_response rs = {0};
	rest_error(&rs, 503, "request bodies in flight would pass the "
			     "server's %zu-byte limit (this one: %zu bytes); "
			     "retry later",
		   srv->opts.max_inflight_body_bytes, want);
	rest_set_header(&rs, "Retry-After", "1");
	MHD_RESULT ret = send_response(conn, &rs, false, true);
	rest_response_free(&rs);
	return ret;
}

/* First call, headers complete: admit or refuse before any body is read. */
static MHD_RESULT admit(rest_server *srv, struct MHD_Connection *conn,
			request_ctx *ctx, const char *url, rest_method m)
{
	ctx->admitted = true;
	/* the headers are in: from now on the ordinary idle limit */
	MHD_set_connection_option(conn, MHD_CONNECTION_OPTION_TIMEOUT,
				  srv->opts.idle_timeout_s);
	if (MHD_get_connection_values(conn, MHD_HEADER_KIND, collect_header,
				      ctx) < 0)
		return MHD_NO;
	peer_address(conn, ctx->client, sizeof ctx->client);
	rest_request rq = request_of(srv, ctx, url, m);
	rest_response rs = {.status = 200};
	bool close = false;
	if (atomic_load(&srv->stopping)) {
		rest_error(&rs, 503, "the server is shutting down");
		rest_set_header(&rs, "Retry-After", "1");
		close = true;
	} else if (ctx->uri_len > REST_MAX_URI_BYTES) {
		rest_error(&rs, 414, "request target of %zu bytes is over the "
				     "%d-byte limit", ctx->uri_len,
			   REST_MAX_URI_BYTES);
		close = true;
	} else if (rest_admit(&rq, &rs, &close)) {
		ctx->authed = rq.authed;
		/* a declared body is reserved whole before a byte of it is
		 * read, and its buffer made once at its size */
		const char *cl = rest_header(&rq, "Content-Length");
		size_t len = cl ? (size_t)strtoull(cl, NULL, 10) : 0;
		if (len && !body_reserve(srv, ctx, len))
			return body_busy(srv, conn, ctx, len);
		if (len && sbx_buf_reserve(&ctx->body, len))
			return MHD_NO;
		return MHD_YES;
	}
	ctx->rejected = true;
	MHD_RESULT ret = send_response(conn, &rs, false, close);
	rest_response_free(&rs);
	return ret;
}

static MHD_RESULT on_request(void *cls, struct MHD_Connection *conn,
			     const char *url, const char *method,
			     const char *version, const char *upload_data,
			     size_t *upload_size, void **con_cls)
{
	rest_server *srv = cls;
	request_ctx *ctx = *con_cls;
	rest_method m = method_of(method);
	(void)version;
	if (!ctx)
		return MHD_NO; /* on_uri could not allocate */
	if (!ctx->admitted)
		return admit(srv, conn, ctx, url, m);
	if (ctx->deferred) { /* resumed: the group commit answered */
		ctx->deferred = false;
		MHD_RESULT ret = send_response(conn, &ctx->answer,
					       m == METHOD_HEAD, false);
		rest_response_free(&ctx->answer);
		return ret;
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
		/* a chunked body reserves as it comes */
		size_t need = ctx->body.len + *upload_size;
		if (need > ctx->reserved &&
		    !body_reserve(srv, ctx, need - ctx->reserved)) {
			*upload_size = 0;
			return body_busy(srv, conn, ctx, need);
		}
		if (sbx_buf_append(&ctx->body, upload_data, *upload_size))
			return MHD_NO;
		*upload_size = 0;
		return MHD_YES;
	}
	rest_request rq = request_of(srv, ctx, url, m);
	rq.body = ctx->body.data ? ctx->body.data : (const uint8_t *)"";
	rq.body_len = ctx->body.len;
	rq.defer = (rest_defer){.suspend = suspend_conn, .resume = resume_conn,
				.conn = conn, .answer = &ctx->answer};
	rest_response rs = {.status = 200};
	rest_route_request(&rq, &rs);
	if (rs.deferred) { /* suspended; on_request runs again on resume */
		ctx->deferred = true;
		rest_response_free(&rs);
		rest_request_free(&rq);
		return MHD_YES;
	}
	MHD_RESULT ret = send_response(conn, &rs, m == METHOD_HEAD, false);
	rest_response_free(&rs);
	rest_request_free(&rq);
	return ret;
}

/* The request line has arrived: keep its raw query (MHD's own parse of
 * the arguments is not used; see the file comment). */
static void *on_uri(void *cls, const char *uri_const,
		    struct MHD_Connection *conn)
{
	rest_server *srv = cls;
	(void)conn;
	request_ctx *ctx = sbx_calloc(1, sizeof *ctx);
	if (!ctx)
		return NULL;
	char *uri = (char *)uri_const;
	ctx->uri_len = strlen(uri);
	char *q = strchr(uri, '?');
	if (q && ctx->uri_len <= REST_MAX_URI_BYTES &&
	    !(ctx->query = sbx_strdup(q + 1))) {
		free(ctx);
		return NULL;
	}
	/* MHD splits the arguments into its per-connection pool right after
	 * this call; thousands of tiny ones ("a&a&...") exhaust it and MHD
	 * then never answers. We parse our copy, so hand MHD an empty query:
	 * `uri` is MHD's own writable read buffer (const only in the API). */
	if (q)
		q[1] = '\0';
	atomic_fetch_add(&srv->in_flight, 1);
	atomic_fetch_add(&srv->requests, 1);
	return ctx;
}

static void on_completed(void *cls, struct MHD_Connection *conn,
			 void **con_cls, enum MHD_RequestTerminationCode toe)
{
	rest_server *srv = cls;
	request_ctx *ctx = *con_cls;
	if (!ctx)
		return;
	sbx_buf_free(&ctx->body);
	rest_response_free(&ctx->answer);
	body_release(srv, ctx);
	free(ctx->query);
	free(ctx->headers);
	free(ctx);
	*con_cls = NULL;
	atomic_fetch_sub(&srv->in_flight, 1);
	/* back to the short limit while the next request's headers arrive */
	if (toe == MHD_REQUEST_TERMINATED_COMPLETED_OK)
		MHD_set_connection_option(conn, MHD_CONNECTION_OPTION_TIMEOUT,
					  srv->opts.header_timeout_s);
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

/* Bind and listen ourselves (no SO_REUSEPORT: a second server on a port
 * in use must fail, not share the traffic), so the error can say why. */
static int listen_on(int *fd_out, const struct sockaddr *sa, socklen_t len,
		     const char *bind_addr, int port)
{
	int fd = socket(sa->sa_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return sbx_error_set(SBX_EIO, "socket: %s", strerror(errno));
	int one = 1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	if (sa->sa_family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
	if (bind(fd, sa, len) != 0 || listen(fd, 1024) != 0) {
		int err = errno;
		close(fd);
		if (err == EADDRINUSE)
			return sbx_error_set(SBX_EIO, "cannot listen on %s port "
					     "%d: address already in use",
					     bind_addr, port);
		return sbx_error_set(SBX_EIO, "cannot listen on %s port %d: %s",
				     bind_addr, port, strerror(err));
	}
	*fd_out = fd;
	return SBX_OK;
}

/* What sbx_server_start made (parts not made yet are NULL); the daemon
 * is stopped already. */
static void server_free(rest_server *srv)
{
	rest_scanners_free(srv->scanners); /* gives back their table handles */
	rest_tables_free(srv->tables);
	rest_commit_free(srv->commit);
	free(srv);
}

int sbx_server_start(sbx_server **out, sbx_db *db, const sbx_server_opts *o)
{
	*out = NULL;
	rest_server *srv = sbx_calloc(1, sizeof *srv);
	if (!srv)
		return SBX_ENOMEM_SET();
	srv->db = db;
	sbx_server_opts_init(&srv->opts);
	if (o)
		srv->opts = *o;
	srv->start_ms = rest_now_ms();
	/* /ui's heatmap by key: sample every table's row keys (bounded:
	 * docs/hotspots.md); a caller may have turned it on already */
	(void)sbx_db_keysample(db, NULL); /* best effort */
	int rc = rest_scanners_new(&srv->scanners);
	if (!rc)
		rc = rest_tables_new(&srv->tables);
	if (!rc && srv->opts.group_commit)
		rc = rest_commit_new(&srv->commit, srv,
				     srv->opts.commit_threads);
	if (rc) {
		server_free(srv);
		return rc;
	}
	struct sockaddr_storage ss;
	memset(&ss, 0, sizeof ss);
	socklen_t sslen = sizeof(struct sockaddr_in);
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ITC |
			 MHD_USE_EPOLL_LINUX_ONLY | MHD_USE_ERROR_LOG |
			 MHD_ALLOW_SUSPEND_RESUME; /* group commit */
	const char *bind = srv->opts.bind ? srv->opts.bind : "127.0.0.1";
	struct sockaddr_in *sin = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&ss;
	if (inet_pton(AF_INET, bind, &sin->sin_addr) == 1) {
		sin->sin_family = AF_INET;
		sin->sin_port = htons((uint16_t)srv->opts.port);
	} else if (inet_pton(AF_INET6, bind, &sin6->sin6_addr) == 1) {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons((uint16_t)srv->opts.port);
		sslen = sizeof *sin6;
		flags |= MHD_USE_IPv6;
	} else {
		server_free(srv);
		return sbx_error_set(SBX_EINVAL, "bad bind address '%s'", bind);
	}
	int fd = -1;
	rc = listen_on(&fd, (struct sockaddr *)&ss, sslen, bind, srv->opts.port);
	if (rc) {
		server_free(srv);
		return rc;
	}
	int threads = srv->opts.threads > 0 ? srv->opts.threads : 4;
	unsigned max_conn = srv->opts.max_connections;
	if (max_conn < (unsigned)threads)
		max_conn = (unsigned)threads; /* each worker takes a share */
	srv->daemon = MHD_start_daemon(
		flags, (uint16_t)srv->opts.port, NULL, NULL, on_request, srv,
		MHD_OPTION_LISTEN_SOCKET, (MHD_socket)fd,
		MHD_OPTION_THREAD_POOL_SIZE, (unsigned)threads,
		MHD_OPTION_NOTIFY_COMPLETED, on_completed, srv,
		MHD_OPTION_URI_LOG_CALLBACK, on_uri, srv,
		MHD_OPTION_UNESCAPE_CALLBACK, no_unescape, NULL,
		MHD_OPTION_CONNECTION_TIMEOUT, srv->opts.header_timeout_s,
		MHD_OPTION_CONNECTION_LIMIT, max_conn,
		MHD_OPTION_PER_IP_CONNECTION_LIMIT, srv->opts.max_ip_connections,
		/* zeroed whole before every request (MHD_pool_reset): big
		 * enough for a 32 KiB target and headers, and no bigger */
		MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)(64 * 1024),
		MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL,
		MHD_OPTION_END);
	if (!srv->daemon) {
		close(fd);
		rc = sbx_error_set(SBX_EIO, "cannot start the HTTP server on "
				   "%s port %d", bind, srv->opts.port);
		server_free(srv);
		return rc;
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
	/* Not MHD_quiesce_daemon(): in libmicrohttpd 0.9.75 it aborts the
	 * process when a pool worker takes the listen socket out of its epoll
	 * set (at the connection limit) at the same moment. Requests not yet
	 * admitted are refused instead (admit()), and MHD_stop_daemon closes
	 * the listen socket. */
	atomic_store(&s->stopping, true);
	int64_t deadline = rest_now_ms() + drain_ms;
	while (atomic_load(&s->in_flight) > 0 && rest_now_ms() < deadline) {
		struct timespec ts = {0, 5 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
	/* libmicrohttpd aborts when it stops with a connection suspended:
	 * let the group commit answer every queued PUT first */
	rest_commit_close(s->commit);
	MHD_stop_daemon(s->daemon);
	server_free(s);
}
