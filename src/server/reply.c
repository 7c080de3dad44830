/*
 * reply.c - what every handler uses to read a request and build a reply:
 * headers, query arguments, content negotiation, JSON/XML escaping, and
 * HBase REST's error bodies. The transport (http.c: the daemon, routing,
 * streaming) is the top of the server, which nothing calls.
 */
#include "server/rest.h"

#include "common/alloc.h"
#include "common/buf.h"
#include "common/clock.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

int64_t rest_now_ms(void)
{
	return sbx_clock_now_ms();
}

/* ---- small text helpers ---------------------------------------------------- */

int rest_buf_puts(sbx_buf *out, const char *s)
{
	return sbx_buf_append(out, s, strlen(s));
}

int rest_json_string(sbx_buf *out, const char *s, size_t len)
{
	int rc = sbx_buf_push(out, '"');
	for (size_t i = 0; i < len && !rc; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '"' || c == '\\') {
			char esc[2] = {'\\', (char)c};
			rc = sbx_buf_append(out, esc, 2);
		} else if (c < 0x20) {
			rc = sbx_buf_printf(out, "\\u%04x", c);
		} else {
			rc = sbx_buf_push(out, c);
		}
	}
	return rc ? rc : sbx_buf_push(out, '"');
}

int rest_xml_escape(sbx_buf *out, const char *s, size_t len)
{
	int rc = SBX_OK;
	for (size_t i = 0; i < len && !rc; i++) {
		switch (s[i]) {
		case '<': rc = rest_buf_puts(out, "&lt;"); break;
		case '>': rc = rest_buf_puts(out, "&gt;"); break;
		case '&': rc = rest_buf_puts(out, "&amp;"); break;
		case '"': rc = rest_buf_puts(out, "&quot;"); break;
		case '\'': rc = rest_buf_puts(out, "&apos;"); break;
		default: rc = sbx_buf_push(out, (uint8_t)s[i]);
		}
	}
	return rc;
}

/* ---- media types ----------------------------------------------------------- */

rest_fmt rest_fmt_of(const char *media, size_t len, bool *ietf)
{
	while (len && (*media == ' ' || *media == '\t'))
		media++, len--;
	const char *semi = memchr(media, ';', len);
	if (semi)
		len = (size_t)(semi - media);
	while (len && (media[len - 1] == ' ' || media[len - 1] == '\t'))
		len--;
	static const struct {
		const char *name;
		rest_fmt fmt;
		bool ietf;
	} types[] = {
		{"application/json", REST_FMT_JSON, false},
		{"text/xml", REST_FMT_XML, false},
		{"application/xml", REST_FMT_XML, false},
		{"application/x-protobuf", REST_FMT_PB, false},
		{"application/protobuf", REST_FMT_PB, true},
		{"application/octet-stream", REST_FMT_BINARY, false},
		{"text/plain", REST_FMT_TEXT, false},
	};
	for (size_t i = 0; i < sizeof types / sizeof *types; i++)
		if (strlen(types[i].name) == len &&
		    !strncasecmp(media, types[i].name, len)) {
			if (ietf)
				*ietf = types[i].ietf;
			return types[i].fmt;
		}
	return REST_FMT_NONE;
}

const char *rest_fmt_mime(rest_fmt f, bool ietf)
{
	switch (f) {
	case REST_FMT_TEXT: return "text/plain";
	case REST_FMT_XML: return "text/xml";
	case REST_FMT_JSON: return "application/json";
	case REST_FMT_PB: return ietf ? "application/protobuf" : "application/x-protobuf";
	case REST_FMT_BINARY: return "application/octet-stream";
	default: return NULL;
	}
}

const char *rest_header(const rest_request *rq, const char *name)
{
	for (size_t i = 0; i < rq->nheaders; i++)
		if (!strcasecmp(rq->headers[i].name, name))
			return rq->headers[i].value;
	return NULL;
}

size_t rest_header_count(const rest_request *rq, const char *name)
{
	size_t n = 0;
	for (size_t i = 0; i < rq->nheaders; i++)
		n += !strcasecmp(rq->headers[i].name, name);
	return n;
}

rest_fmt rest_negotiate(const rest_request *rq, const rest_fmt *produces,
			size_t n, bool *ietf)
{
	*ietf = false;
	const char *accept = rest_header(rq, "Accept");
	if (!accept || !*accept)
		return produces[0];
	bool any = false;
	const char *p = accept;
	while (*p) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		bool is_ietf = false;
		rest_fmt f = rest_fmt_of(p, len, &is_ietf);
		for (size_t i = 0; i < n; i++)
			if (f != REST_FMT_NONE && produces[i] == f) {
				*ietf = is_ietf;
				return f;
			}
		const char *t = p;
		while (t < p + len && *t == ' ')
			t++;
		if (!strncmp(t, "*/*", 3) || !strncmp(t, "application/*", 13) ||
		    !strncmp(t, "text/*", 6))
			any = true;
		p = comma ? comma + 1 : p + len;
	}
	return any ? produces[0] : REST_FMT_NONE;
}

rest_fmt rest_content_fmt(const rest_request *rq)
{
	const char *ct = rest_header(rq, "Content-Type");
	if (!ct)
		return REST_FMT_NONE;
	bool ietf;
	return rest_fmt_of(ct, strlen(ct), &ietf);
}

const rest_arg *rest_query(const rest_request *rq, const char *key)
{
	for (size_t i = 0; i < rq->nargs; i++)
		if (!strcmp(rq->args[i].key, key))
			return &rq->args[i];
	return NULL;
}

static int query_add(rest_request *rq, const char *key, size_t klen,
		     const char *value, size_t vlen, size_t *cap)
{
	if (rq->nargs == *cap) {
		size_t ncap = *cap ? 2 * *cap : 8;
		rest_arg *args = sbx_realloc(rq->args, ncap * sizeof *args);
		if (!args)
			return SBX_ENOMEM;
		rq->args = args;
		*cap = ncap;
	}
	rest_arg *a = &rq->args[rq->nargs];
	memset(a, 0, sizeof *a);
	sbx_buf k = {0};
	if (rest_url_decode(&k, key, klen) ||
	    rest_url_decode(&a->value, value, vlen)) {
		sbx_buf_free(&k);
		sbx_buf_free(&a->value);
		return SBX_EPARSE;
	}
	a->key = (char *)k.data;
	rq->nargs++;
	return SBX_OK;
}

int rest_query_parse(rest_request *rq, const char *query)
{
	size_t cap = rq->nargs;
	for (const char *p = query; p && *p;) {
		const char *amp = strchr(p, '&');
		size_t len = amp ? (size_t)(amp - p) : strlen(p);
		const char *eq = memchr(p, '=', len);
		size_t klen = eq ? (size_t)(eq - p) : len;
		const char *v = eq ? eq + 1 : p + len;
		size_t vlen = eq ? len - klen - 1 : 0;
		if (len) {
			int rc = query_add(rq, p, klen, v, vlen, &cap);
			if (rc)
				return rc;
		}
		p = amp ? amp + 1 : p + len;
	}
	return SBX_OK;
}

void rest_request_free(rest_request *rq)
{
	rest_route_free(&rq->route);
	for (size_t i = 0; i < rq->nargs; i++) {
		free(rq->args[i].key);
		sbx_buf_free(&rq->args[i].value);
	}
	free(rq->args);
	rq->args = NULL;
	rq->nargs = 0;
}

int rest_query_int64(const rest_request *rq, const char *key, int64_t *out,
		     char *err)
{
	const rest_arg *a = rest_query(rq, key);
	if (!a)
		return SBX_OK;
	const char *s = (const char *)a->value.data;
	char *end;
	long long v = s ? strtoll(s, &end, 10) : 0;
	if (!s || !*s || *end || s[0] == ' ' || s[0] == '+') {
		snprintf(err, REST_ERR_LEN, "query parameter %s must be an "
					    "integer", key);
		return SBX_EPARSE;
	}
	*out = v;
	return SBX_OK;
}

/* ---- responses ------------------------------------------------------------- */

void rest_set_header(rest_response *rs, const char *name, const char *value)
{
	if (rs->nheaders == REST_MAX_HEADERS)
		return;
	rs->header_names[rs->nheaders] = sbx_strdup(name);
	rs->header_values[rs->nheaders] = sbx_strdup(value);
	rs->nheaders++;
}

static const char *status_text(int status)
{
	switch (status) {
	case 400: return "Bad request";
	case 401: return "Unauthorized";
	case 403: return "Forbidden";
	case 404: return "Not found";
	case 405: return "Method not allowed";
	case 406: return "Not acceptable";
	case 410: return "Gone";
	case 413: return "Request entity too large";
	case 414: return "URI too long";
	case 415: return "Unsupported media type";
	case 429: return "Too many requests";
	case 501: return "Not implemented";
	default: return status >= 500 ? "Unavailable" : "Error";
	}
}

void rest_error(rest_response *rs, int status, const char *fmt, ...)
{
	rs->status = status;
	rs->content_type = "text/plain";
	rs->body.len = 0;
	sbx_buf_printf(&rs->body, "%s\r\n", status_text(status));
	if (fmt && *fmt) {
		char msg[512];
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(msg, sizeof msg, fmt, ap);
		va_end(ap);
		sbx_buf_printf(&rs->body, "%s\r\n", msg);
	}
}

void rest_sbx_error(rest_response *rs, int rc)
{
	int status;
	switch (rc) {
	case SBX_ENOTFOUND:
	case SBX_ENOFAMILY:
		status = 404;
		break;
	case SBX_EINVAL:
	case SBX_EPARSE:
	case SBX_ETOOLARGE:
	case SBX_EBADVALUE:
		status = 400;
		break;
	case SBX_EREADONLY:
		status = 403;
		break;
	default:
		status = 503;
	}
	rest_error(rs, status, "%s", sbx_errmsg());
	rs->sbx_status = rc;
	/* HBase's statuses are coarse (404 = no table or no family); Saltbox
	 * clients read the exact code from here. */
	rest_set_header(rs, "X-Saltbox-Status", sbx_strerror(rc));
}

void rest_empty(rest_response *rs, int status)
{
	rs->status = status;
	rs->content_type = NULL;
	rs->body.len = 0;
}
void rest_location(rest_request *rq, rest_response *rs, const char *path)
{
	const char *host = rest_header(rq, "Host");
	sbx_buf b = {0};
	sbx_buf_printf(&b, "http://%s%s", host && *host ? host : rq->srv->host_port,
			path);
	sbx_buf_push(&b, 0);
	if (b.data)
		rest_set_header(rs, "Location", (const char *)b.data);
	sbx_buf_free(&b);
}

