/*
 * api.c - the JSON API of saltbox-comments (openapi.yaml describes it):
 * split the path, parse the body, call store.c, and turn its result into a
 * reply. Errors are {"error":"..."} with a specific message.
 */
#include "comments.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void reply_json(cm_reply *out, int status, json_t *j)
{
	out->status = status;
	out->type = "application/json";
	out->body =
	    j ? json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
	out->body_len = out->body ? strlen(out->body) : 0;
}

static void reply_error(cm_reply *out, int status, const char *msg)
{
	json_t *j = json_pack("{s:s}", "error", msg);
	if (!j) {
		/* msg echoes a path, method or id that is not UTF-8: show its
		 * bytes outside printable ASCII as '?' */
		char clean[512];
		size_t n = 0;
		for (; msg[n] && n < sizeof clean - 1; n++) {
			unsigned char c = (unsigned char)msg[n];
			clean[n] = c >= 0x20 && c < 0x7F ? (char)c : '?';
		}
		clean[n] = '\0';
		j = json_pack("{s:s}", "error", clean);
	}
	reply_json(out, status, j);
	json_decref(j);
}

static void reply_result(cm_reply *out, cm_result *res)
{
	if (res->status >= 400 || !res->status) {
		reply_error(out, res->status ? res->status : 500,
			    res->error[0] ? res->error : "internal error");
	} else if (res->status == 204) {
		out->status = 204;
		out->type = "application/json";
		out->body = NULL;
		out->body_len = 0;
	} else {
		reply_json(out, res->status, res->json);
	}
	json_decref(res->json);
	res->json = NULL;
}

/* Parse a JSON body: NULL with a 400 reply when it is not JSON. */
static json_t *parse_body(cm_reply *out, const char *body, size_t len)
{
	json_error_t err;
	if (!len) {
		reply_error(out, 400, "the request needs a JSON body");
		return NULL;
	}
	json_t *j = json_loadb(body, len, 0, &err);
	if (!j) {
		char msg[300];
		snprintf(msg, sizeof msg, "bad JSON at line %d, column %d: %s",
			 err.line, err.column, err.text);
		reply_error(out, 400, msg);
	}
	return j;
}

#define MAXSEG 8

static void method_not_allowed(cm_reply *out, const char *method,
			       const char *path)
{
	char msg[300];
	snprintf(msg, sizeof msg, "method %s is not allowed on %.200s", method,
		 path);
	reply_error(out, 405, msg);
}

static void admin_clock(cm_reply *out, cm_app *app, json_t *body)
{
	json_t *now = json_object_get(body, "now");
	/* bounded: timestamps + a few ms must stay far from INT64_MAX */
	if (!json_is_integer(now) || json_integer_value(now) < 0 ||
	    json_integer_value(now) > INT64_C(253402300799999)) {
		reply_error(out, 400,
			    "'now' must be milliseconds since 1970, at most "
			    "the end of year 9999");
		return;
	}
	atomic_store(&app->clock_ms, (int64_t)json_integer_value(now));
	json_t *j = json_pack("{s:I}", "now", json_integer_value(now));
	reply_json(out, 200, j);
	json_decref(j);
}

void cm_handle(cm_reply *out, cm_app *app, const char *method, const char *path,
	       cm_query_fn query, void *query_arg, const char *body,
	       size_t body_len)
{
	memset(out, 0, sizeof *out);
	atomic_fetch_add(&app->requests, 1);
	/* split the path on '/' */
	char buf[512];
	if (strlen(path) >= sizeof buf || path[0] != '/') {
		reply_error(out, 404, "no such resource");
		return;
	}
	strcpy(buf, path);
	char *seg[MAXSEG];
	int n = 0;
	char *p = buf + 1;
	while (*p && n < MAXSEG) {
		seg[n++] = p;
		char *slash = strchr(p, '/');
		if (!slash)
			break;
		*slash = '\0';
		p = slash + 1;
		if (!*p) /* a trailing slash */
			break;
	}
	bool GET = !strcmp(method, "GET"), PUT = !strcmp(method, "PUT"),
	     POST = !strcmp(method, "POST"), PATCH = !strcmp(method, "PATCH"),
	     DELETE = !strcmp(method, "DELETE");
	cm_result res = {0};

	if (n == 0 || (n == 1 && !strcmp(seg[0], "ui"))) {
		if (!GET)
			return method_not_allowed(out, method, path);
		out->status = 200;
		out->type = "text/html; charset=utf-8";
		out->body = strdup(cm_page_html);
		out->body_len = strlen(cm_page_html);
		return;
	}
	static const char *const entities[] = {"users", "sellers", "products",
					       "orders"};
	for (int t = 0; t < 4 && n == 2; t++) {
		if (strcmp(seg[0], entities[t]))
			continue;
		if (PUT) {
			json_t *j = parse_body(out, body, body_len);
			if (!j)
				return;
			cm_put_entity(&res, app, t, seg[1], j);
			json_decref(j);
		} else if (GET) {
			cm_get_entity(&res, app, t, seg[1]);
		} else {
			return method_not_allowed(out, method, path);
		}
		return reply_result(out, &res);
	}
	if (n == 3 && !strcmp(seg[0], "users") && !strcmp(seg[2], "comments")) {
		if (!GET)
			return method_not_allowed(out, method, path);
		cm_comment_list(&res, app, true, seg[1],
				query(query_arg, "limit"),
				query(query_arg, "cursor"));
		return reply_result(out, &res);
	}
	if (n >= 3 && !strcmp(seg[0], "products") &&
	    !strcmp(seg[2], "comments")) {
		const char *pid = seg[1];
		if (n == 3) {
			if (GET) {
				cm_comment_list(&res, app, false, pid,
						query(query_arg, "limit"),
						query(query_arg, "cursor"));
			} else if (POST) {
				json_t *j = parse_body(out, body, body_len);
				if (!j)
					return;
				cm_comment_post(&res, app, pid, j);
				json_decref(j);
			} else {
				return method_not_allowed(out, method, path);
			}
			return reply_result(out, &res);
		}
		if (n == 4 && !strcmp(seg[3], "top") && GET) {
			cm_comment_top(&res, app, pid);
			return reply_result(out, &res);
		}
		if (n == 4) {
			if (GET) {
				cm_comment_get(&res, app, pid, seg[3]);
			} else if (PATCH) {
				json_t *j = parse_body(out, body, body_len);
				if (!j)
					return;
				cm_comment_patch(&res, app, pid, seg[3], j);
				json_decref(j);
			} else if (DELETE) {
				cm_comment_delete(&res, app, pid, seg[3]);
			} else {
				return method_not_allowed(out, method, path);
			}
			return reply_result(out, &res);
		}
		if (n == 5 && !strcmp(seg[4], "helpful")) {
			if (!POST)
				return method_not_allowed(out, method, path);
			json_t *j = parse_body(out, body, body_len);
			if (!j)
				return;
			cm_comment_vote(&res, app, pid, seg[3], j);
			json_decref(j);
			return reply_result(out, &res);
		}
	}
	if (n == 2 && !strcmp(seg[0], "admin") && !strcmp(seg[1], "rank")) {
		if (!POST)
			return method_not_allowed(out, method, path);
		long products = 0;
		int rc = cm_rank_run(&products, app);
		if (rc) {
			cm_result_store_error(&res, rc);
			return reply_result(out, &res);
		}
		json_t *j = json_pack("{s:i}", "products", (int)products);
		reply_json(out, 200, j);
		json_decref(j);
		return;
	}
	if (n == 2 && !strcmp(seg[0], "admin") && !strcmp(seg[1], "clock") &&
	    app->test_clock) {
		if (!PUT)
			return method_not_allowed(out, method, path);
		json_t *j = parse_body(out, body, body_len);
		if (!j)
			return;
		admin_clock(out, app, j);
		json_decref(j);
		return;
	}
	char msg[300];
	snprintf(msg, sizeof msg, "no such resource: %.200s", path);
	reply_error(out, 404, msg);
}
