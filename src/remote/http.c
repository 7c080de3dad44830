/*
 * http.c - the remote backend's HTTP layer: a small pool of keep-alive
 * libcurl easy handles shared by every thread using the sbx_db, retries
 * with doubling backoff when the gateway cannot be reached, and the map
 * from HBase REST's status codes (and the error text) to SBX codes.
 */
#define _GNU_SOURCE /* strcasestr */
#include "remote/remote.h"

#include "common/alloc.h"
#include "common/error.h"

#include <curl/curl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static CURLcode curl_init_rc;

static void curl_init(void)
{
	curl_init_rc = curl_global_init(CURL_GLOBAL_DEFAULT);
}

void remote_resp_free(remote_resp *r)
{
	sbx_buf_free(&r->body);
	free(r->location);
	free(r->sbx_status);
	memset(r, 0, sizeof *r);
}

static CURL *pool_take(remote_db *db)
{
	CURL *h = NULL;
	pthread_mutex_lock(&db->pool_lock);
	if (db->npool)
		h = db->pool[--db->npool];
	pthread_mutex_unlock(&db->pool_lock);
	if (h) {
		curl_easy_reset(h); /* keeps the connection cache */
		return h;
	}
	return curl_easy_init();
}

static void pool_put(remote_db *db, CURL *h)
{
	pthread_mutex_lock(&db->pool_lock);
	if (db->npool < REMOTE_POOL_MAX) {
		db->pool[db->npool++] = h;
		h = NULL;
	}
	pthread_mutex_unlock(&db->pool_lock);
	if (h)
		curl_easy_cleanup(h);
}

/* Storing the answer: an allocation failure stops the transfer (libcurl's
 * CURLE_WRITE_ERROR) and is reported as SBX_ENOMEM, not as the gateway's
 * failure. */
static size_t on_body(char *data, size_t size, size_t n, void *arg)
{
	remote_resp *r = arg;
	if (sbx_buf_append(&r->body, data, size * n)) {
		r->out_of_memory = true;
		return 0;
	}
	return size * n;
}

/* A header's value (trimmed) when `line` is "name: value". */
static char *header_value(const char *line, size_t len, const char *name,
			  bool *found)
{
	size_t nl = strlen(name);
	*found = false;
	if (len <= nl + 1 || strncasecmp(line, name, nl) || line[nl] != ':')
		return NULL;
	*found = true;
	const char *v = line + nl + 1;
	const char *end = line + len;
	while (v < end && (*v == ' ' || *v == '\t'))
		v++;
	while (end > v && (end[-1] == '\r' || end[-1] == '\n' || end[-1] == ' '))
		end--;
	return sbx_strndup(v, (size_t)(end - v));
}

static size_t on_header(char *line, size_t size, size_t n, void *arg)
{
	remote_resp *r = arg;
	size_t len = size * n;
	bool found;
	char *v;
	if ((v = header_value(line, len, "Location", &found)) || found) {
		free(r->location);
		r->location = v;
	} else if ((v = header_value(line, len, "X-Saltbox-Status", &found)) ||
		   found) {
		free(r->sbx_status);
		r->sbx_status = v;
	}
	if (found && !v) { /* the header's copy failed */
		r->out_of_memory = true;
		return 0;
	}
	return len;
}

remote_transport_fn remote_transport_hook;
void *remote_transport_ctx;

/* The seam's exchange: the hook's header block through on_header, line by
 * line, as libcurl hands them over. */
static int hooked_request(const char *method, const char *path,
			  const void *body, size_t len, remote_resp *out)
{
	sbx_buf hdrs = {0};
	int rc = remote_transport_hook(remote_transport_ctx, method, path, body,
				       len, &out->status, &hdrs, &out->body);
	for (size_t i = 0; !rc && i < hdrs.len;) {
		const uint8_t *nl = memchr(hdrs.data + i, '\n', hdrs.len - i);
		size_t l = nl ? (size_t)(nl - (hdrs.data + i)) + 1 : hdrs.len - i;
		on_header((char *)hdrs.data + i, 1, l, out);
		i += l;
	}
	sbx_buf_free(&hdrs);
	if (rc) {
		remote_resp_free(out);
		return sbx_error_set(SBX_EREMOTE, "cannot reach the HBase REST "
						  "gateway (%s %s)",
				     method, path);
	}
	return SBX_OK;
}

/* Failures where the request never reached the server, or the reply was
 * lost: worth another attempt after a pause. */
static bool is_retryable(CURLcode c, bool idempotent)
{
	switch (c) {
	case CURLE_COULDNT_CONNECT:
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_COULDNT_RESOLVE_PROXY:
		return true;
	case CURLE_SEND_ERROR:
	case CURLE_RECV_ERROR:
	case CURLE_GOT_NOTHING:
	case CURLE_OPERATION_TIMEDOUT:
	case CURLE_PARTIAL_FILE:
		return idempotent;
	default:
		return false;
	}
}

static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
}

static CURLcode perform_once(remote_db *db, CURL *h, const char *method,
			     const char *url, const char *header,
			     const char *content_type, const void *body,
			     size_t len, remote_resp *out, char *errbuf)
{
	struct curl_slist *hdrs = NULL;
	hdrs = curl_slist_append(hdrs, "Accept: application/json");
	if (header)
		hdrs = curl_slist_append(hdrs, header);
	if (content_type) {
		char ct[128];
		snprintf(ct, sizeof ct, "Content-Type: %s", content_type);
		hdrs = curl_slist_append(hdrs, ct);
	}
	if (db->auth_header)
		hdrs = curl_slist_append(hdrs, db->auth_header);
	hdrs = curl_slist_append(hdrs, "Expect:"); /* no 100-continue pause */
	curl_easy_setopt(h, CURLOPT_URL, url);
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdrs);
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_TCP_KEEPALIVE, 1L);
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, 5000L);
	curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, db->timeout_ms);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, out);
	curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(h, CURLOPT_HEADERDATA, out);
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
	if (!strcmp(method, "GET")) {
		curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
	} else {
		curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, method);
		if (body || !strcmp(method, "PUT") || !strcmp(method, "POST")) {
			curl_easy_setopt(h, CURLOPT_POSTFIELDS, body ? body : "");
			curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE,
					 (curl_off_t)len);
		}
	}
	errbuf[0] = 0;
	CURLcode c = curl_easy_perform(h);
	if (c == CURLE_OK)
		curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &out->status);
	curl_slist_free_all(hdrs);
	return c;
}

int remote_request(remote_db *db, const char *method, const char *path,
		   const char *content_type, const void *body, size_t len,
		   bool idempotent, remote_resp *out)
{
	return remote_request_hdr(db, method, path, NULL, content_type, body,
				  len, idempotent, out);
}

int remote_request_hdr(remote_db *db, const char *method, const char *path,
		       const char *header, const char *content_type,
		       const void *body, size_t len, bool idempotent,
		       remote_resp *out)
{
	memset(out, 0, sizeof *out);
	if (remote_transport_hook)
		return hooked_request(method, path, body, len, out);
	pthread_once(&curl_once, curl_init);
	if (curl_init_rc != CURLE_OK)
		return sbx_error_set(SBX_EREMOTE, "libcurl failed to initialise: %s",
				     curl_easy_strerror(curl_init_rc));
	sbx_buf url = {0};
	if (sbx_buf_printf(&url, "%s%s", db->base, path))
		return SBX_ENOMEM_SET();
	CURL *h = pool_take(db);
	if (!h) {
		sbx_buf_free(&url);
		return sbx_error_set(SBX_EREMOTE, "libcurl: cannot make a handle");
	}
	char errbuf[CURL_ERROR_SIZE];
	CURLcode c = CURLE_OK;
	int attempt = 0;
	long backoff = REMOTE_BACKOFF_MS;
	for (;;) {
		attempt++;
		c = perform_once(db, h, method, remote_cstr(&url), header,
				 content_type, body, len, out, errbuf);
		if (c == CURLE_OK || attempt >= db->attempts ||
		    !is_retryable(c, idempotent))
			break;
		remote_resp_free(out);
		sleep_ms(backoff);
		backoff = backoff * 2 > 2000 ? 2000 : backoff * 2;
	}
	int rc = SBX_OK;
	if (c == CURLE_WRITE_ERROR && out->out_of_memory) {
		rc = sbx_error_set(SBX_ENOMEM,
				   "out of memory storing the answer of the "
				   "HBase REST gateway at %s (%s %s)",
				   db->base, method, path);
		remote_resp_free(out);
		curl_easy_cleanup(h); /* the answer was cut off mid-transfer */
	} else if (c != CURLE_OK) {
		rc = sbx_error_set(SBX_EREMOTE,
				   "cannot reach the HBase REST gateway at %s "
				   "(%s %s): %s; gave up after %d attempt%s",
				   db->base, method, path,
				   errbuf[0] ? errbuf : curl_easy_strerror(c),
				   attempt, attempt == 1 ? "" : "s");
		remote_resp_free(out);
		curl_easy_cleanup(h); /* its connection is suspect */
	} else {
		pool_put(db, h);
	}
	sbx_buf_free(&url);
	return rc;
}

void remote_error_text(const remote_resp *r, char *out, size_t cap)
{
	out[0] = 0;
	if (!r->body.data || !r->body.len || cap == 0)
		return;
	/* HBase: "<Status text>\r\n<message>\r\n[stack trace]". */
	const char *p = (const char *)r->body.data;
	const char *end = p + r->body.len;
	const char *nl = memchr(p, '\n', (size_t)(end - p));
	const char *line = p, *line_end = nl ? nl : end;
	if (nl && nl + 1 < end) {
		const char *next = nl + 1;
		const char *nl2 = memchr(next, '\n', (size_t)(end - next));
		const char *e2 = nl2 ? nl2 : end;
		while (e2 > next && (e2[-1] == '\r' || e2[-1] == ' '))
			e2--;
		if (e2 > next) {
			line = next;
			line_end = e2;
		}
	}
	while (line_end > line && (line_end[-1] == '\r' || line_end[-1] == ' '))
		line_end--;
	size_t n = (size_t)(line_end - line);
	if (n >= cap)
		n = cap - 1;
	memcpy(out, line, n);
	out[n] = 0;
}

static bool has(const char *hay, const char *needle)
{
	return strcasestr(hay, needle) != NULL;
}

/* The code a Saltbox server names in X-Saltbox-Status, if any. */
static int code_from_header(const char *name)
{
	static const int codes[] = {
		SBX_ENOTFOUND, SBX_EEXISTS,      SBX_EINVAL,   SBX_ENOFAMILY,
		SBX_EDISABLED, SBX_ENOTDISABLED, SBX_ETOOLARGE, SBX_EBADVALUE,
		SBX_ENOTEMPTY, SBX_EIO,          SBX_ENOMEM,   SBX_EUNSUPPORTED,
		SBX_EPARSE,    SBX_EREMOTE,      SBX_EREADONLY, SBX_ECONFLICT,
		SBX_EBUSY};
	for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++)
		if (!strcmp(name, sbx_strerror(codes[i])))
			return codes[i];
	return 0;
}

/*
 * HBase's statuses say little (400 is any RuntimeException, 503 any other
 * IOException), so the message refines them where HBase's and Saltbox's
 * texts are specific.
 */
static int code_for(long status, const char *msg)
{
	if (has(msg, "read-only") || has(msg, "readonly"))
		return SBX_EREADONLY;
	if (has(msg, "is disabled") || has(msg, "TableNotEnabled"))
		return SBX_EDISABLED;
	if (has(msg, "must be disabled") || has(msg, "TableNotDisabled"))
		return SBX_ENOTDISABLED;
	if (has(msg, "still holds") || has(msg, "not empty") ||
	    has(msg, "ConstraintException"))
		return SBX_ENOTEMPTY;
	if (has(msg, "cannot increment") || has(msg, "not a long"))
		return SBX_EBADVALUE;
	if (status == 413 || has(msg, "exceeds the maximum") ||
	    has(msg, "over the maximum") || has(msg, "KeyValue size too large"))
		return SBX_ETOOLARGE;
	if (has(msg, "already exists"))
		return SBX_EEXISTS;
	switch (status) {
	case 400:
	case 405:
	case 406:
	case 415:
		return SBX_EINVAL;
	case 401:
	case 403:
		return SBX_EREADONLY;
	case 404:
	case 410:
		if (has(msg, "famil"))
			return SBX_ENOFAMILY;
		return SBX_ENOTFOUND;
	default:
		return SBX_EREMOTE;
	}
}

int remote_status_error(remote_db *db, const remote_resp *r, const char *what)
{
	char msg[512];
	remote_error_text(r, msg, sizeof msg);
	int code = r->sbx_status ? code_from_header(r->sbx_status) : 0;
	if (!code)
		code = code_for(r->status, msg);
	if (r->status == 401 || (r->status == 403 && has(msg, "token")))
		return sbx_error_set(SBX_EREADONLY,
				     "%s refused the request (HTTP %ld: %s); "
				     "set SALTBOX_TOKEN to its bearer token",
				     db->base, r->status, msg);
	/* A Saltbox server's message is already specific ("table 't' has no
	 * family 'x'"); HBase's bare status lines get the context added. */
	static const char *bare[] = {"Not found", "Bad request", "Forbidden",
				     "Unavailable", "Gone", ""};
	for (size_t i = 0; i < sizeof bare / sizeof bare[0]; i++)
		if (!strcasecmp(msg, bare[i]))
			return sbx_error_set(code, "%s: HTTP %ld %s from %s", what,
					     r->status, msg[0] ? msg : "error",
					     db->base);
	if (code == SBX_EREMOTE)
		return sbx_error_set(code, "%s: HTTP %ld from %s: %s", what,
				     r->status, db->base, msg);
	return sbx_error_set(code, "%s", msg);
}
