/*
 * fuzz_comments_request.c - libFuzzer target for saltbox-comments' request
 * handling (examples/comments/api.c and store.c) against a real embedded
 * store: "METHOD PATH[?QUERY]" on the first line, the body after it. Covers
 * routing, path ids, query limits and cursors (base64url), JSON bodies,
 * base64 product content, every endpoint's checks and transactions. Never
 * a crash, a leak, a status outside 200..599, or an error reply that is
 * not {"error":"..."}.
 */
#include "comments.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

const char cm_page_html[] = "<!doctype html>";

static cm_app app;
static char dir[64];

static void cleanup(void)
{
	cm_store_close(&app);
	sbx_db_close(app.db);
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "fuzz: could not remove %s\n", dir);
}

static const char *query(void *arg, const char *name)
{
	/* "limit=..&cursor=.." split into a static copy per call */
	static char buf[4096];
	const char *q = arg;
	if (!q)
		return NULL;
	size_t n = strlen(name);
	for (const char *p = q; p && *p;) {
		const char *amp = strchr(p, '&');
		size_t len = amp ? (size_t)(amp - p) : strlen(p);
		if (len > n && !strncmp(p, name, n) && p[n] == '=' &&
		    len - n - 1 < sizeof buf) {
			memcpy(buf, p + n + 1, len - n - 1);
			buf[len - n - 1] = '\0';
			return buf;
		}
		p = amp ? amp + 1 : NULL;
	}
	return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!app.db) {
		snprintf(dir, sizeof dir, "/tmp/sbx-fuzz-comments-XXXXXX");
		sbx_db *db;
		if (!mkdtemp(dir) || sbx_db_open(&db, dir, NULL) ||
		    cm_store_open(&app, db, 1000))
			abort();
		app.test_clock = true;
		atomic_store(&app.clock_ms, 1700000000000);
		atexit(cleanup);
	}
	char *text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = 0;
	char *body = strchr(text, '\n');
	if (body)
		*body++ = 0;
	char *path = strchr(text, ' ');
	if (path)
		*path++ = 0;
	else
		path = "/";
	char *q = strchr(path, '?');
	if (q)
		*q++ = 0;
	size_t body_len = body ? size - (size_t)(body - text) : 0;
	cm_reply r;
	cm_handle(&r, &app, text, path, query, q, body, body_len);
	if (r.status < 200 || r.status > 599)
		abort();
	if (r.status >= 400 &&
	    (!r.body || strncmp(r.body, "{\"error\":\"", 10)))
		abort();
	free(r.body);
	free(text);
	return 0;
}
