/*
 * http.c - the HTTP server of saltbox-comments on libmicrohttpd: a pool of
 * threads, each request's body gathered (at most 1 MiB), then answered by
 * api.c. Its own small glue: the example does not use Saltbox's server
 * internals.
 */
#include "comments.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#if MHD_VERSION < 0x00097002
typedef int MHD_RESULT;
#else
typedef enum MHD_Result MHD_RESULT;
#endif

#define MAX_BODY (1u << 20)

struct cm_server {
	struct MHD_Daemon *d;
	cm_app *app;
};

typedef struct req {
	char *body;
	size_t len, cap;
	bool too_large;
} req;

static const char *query_get(void *arg, const char *name)
{
	return MHD_lookup_connection_value(arg, MHD_GET_ARGUMENT_KIND, name);
}

static MHD_RESULT send_reply(struct MHD_Connection *conn, cm_reply *r)
{
	struct MHD_Response *resp = MHD_create_response_from_buffer(
	    r->body_len, r->body ? r->body : (char *)"",
	    r->body ? MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_PERSISTENT);
	if (!resp) {
		free(r->body);
		return MHD_NO;
	}
	if (r->status != 204)
		MHD_add_response_header(resp, "Content-Type", r->type);
	MHD_add_response_header(resp, "Cache-Control", "no-store");
	MHD_RESULT ret = MHD_queue_response(conn, (unsigned)r->status, resp);
	MHD_destroy_response(resp);
	return ret;
}

static MHD_RESULT on_request(void *cls, struct MHD_Connection *conn,
			     const char *url, const char *method,
			     const char *version, const char *upload,
			     size_t *upload_size, void **con_cls)
{
	(void)version;
	cm_server *s = cls;
	req *q = *con_cls;
	if (!q) {
		q = calloc(1, sizeof *q);
		if (!q)
			return MHD_NO;
		*con_cls = q;
		return MHD_YES;
	}
	if (*upload_size) {
		if (q->len + *upload_size > MAX_BODY) {
			q->too_large = true;
		} else {
			if (q->len + *upload_size + 1 > q->cap) {
				size_t cap = (q->len + *upload_size + 1) * 2;
				char *b = realloc(q->body, cap);
				if (!b)
					return MHD_NO;
				q->body = b;
				q->cap = cap;
			}
			memcpy(q->body + q->len, upload, *upload_size);
			q->len += *upload_size;
		}
		*upload_size = 0;
		return MHD_YES;
	}
	cm_reply r;
	if (q->too_large) {
		memset(&r, 0, sizeof r);
		r.status = 413;
		r.type = "application/json";
		r.body = strdup("{\"error\":\"the body is over 1 MiB\"}");
		r.body_len = strlen(r.body);
	} else {
		cm_handle(&r, s->app, method, url, query_get, conn, q->body,
			  q->len);
	}
	return send_reply(conn, &r);
}

static void on_done(void *cls, struct MHD_Connection *conn, void **con_cls,
		    enum MHD_RequestTerminationCode code)
{
	(void)cls;
	(void)conn;
	(void)code;
	req *q = *con_cls;
	if (q) {
		free(q->body);
		free(q);
		*con_cls = NULL;
	}
}

cm_server *cm_server_start(cm_app *app, const char *bind, int *port,
			   int threads)
{
	struct sockaddr_in sa;
	memset(&sa, 0, sizeof sa);
	sa.sin_family = AF_INET;
	sa.sin_port = htons((uint16_t)*port);
	if (inet_pton(AF_INET, bind, &sa.sin_addr) != 1) {
		fprintf(stderr,
			"saltbox-comments: --bind %s is not an IPv4 "
			"address\n",
			bind);
		return NULL;
	}
	cm_server *s = calloc(1, sizeof *s);
	if (!s)
		return NULL;
	s->app = app;
	s->d = MHD_start_daemon(
	    MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL, (uint16_t)*port,
	    NULL, NULL, on_request, s, MHD_OPTION_SOCK_ADDR, &sa,
	    MHD_OPTION_THREAD_POOL_SIZE, (unsigned)threads,
	    MHD_OPTION_NOTIFY_COMPLETED, on_done, s,
	    MHD_OPTION_CONNECTION_TIMEOUT, 120u, MHD_OPTION_END);
	if (!s->d) {
		fprintf(stderr, "saltbox-comments: cannot listen on %s:%d\n",
			bind, *port);
		free(s);
		return NULL;
	}
	const union MHD_DaemonInfo *info =
	    MHD_get_daemon_info(s->d, MHD_DAEMON_INFO_BIND_PORT);
	if (info)
		*port = info->port;
	return s;
}

void cm_server_stop(cm_server *s)
{
	if (!s)
		return;
	MHD_stop_daemon(s->d);
	free(s);
}
