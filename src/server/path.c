/*
 * path.c - request paths to routes, with HBase's RowSpec rules: split the
 * raw path on '/', the row segment on the first ',' (range), columns and
 * timestamps on ','; only then URL-decode each token, so %2F and %2C are
 * safe inside keys. A decoded row ending in '*' is a prefix glob.
 */
#include "common/bytes.h"
#include "server/rest.h"

#include "common/alloc.h"
#include "common/buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PATH_ERR(err, ...) \
	(snprintf((err), REST_ERR_LEN, __VA_ARGS__), SBX_EPARSE)

int rest_url_decode(sbx_buf *out, const char *text, size_t len)
{
	out->len = 0;
	int rc = sbx_buf_reserve(out, len + 1);
	if (rc)
		return rc;
	for (size_t i = 0; i < len; i++) {
		char c = text[i];
		if (c == '%') {
			if (i + 2 >= len)
				return SBX_EPARSE;
			int hi = sbx_hex_digit(text[i + 1]), lo = sbx_hex_digit(text[i + 2]);
			if (hi < 0 || lo < 0)
				return SBX_EPARSE;
			out->data[out->len++] = (uint8_t)(hi << 4 | lo);
			i += 2;
		} else {
			out->data[out->len++] = c == '+' ? ' ' : (uint8_t)c;
		}
	}
	out->data[out->len] = 0; /* NUL-terminated for convenience */
	return SBX_OK;
}

void rest_column_free(rest_column *c)
{
	free(c->family);
	free(c->qualifier);
	memset(c, 0, sizeof *c);
}

int rest_column_parse(rest_column *out, const uint8_t *text, size_t len,
		      char *err)
{
	memset(out, 0, sizeof *out);
	const uint8_t *colon = memchr(text, ':', len);
	size_t flen = colon ? (size_t)(colon - text) : len;
	if (flen == 0)
		return PATH_ERR(err, "empty column family in column '%.*s'",
				(int)(len > 64 ? 64 : len), (const char *)text);
	if (memchr(text, 0, flen))
		return PATH_ERR(err, "column family contains a NUL byte");
	out->family = sbx_strndup((const char *)text, flen);
	if (!out->family)
		return SBX_ENOMEM;
	if (colon) {
		out->has_qualifier = true;
		out->qualifier_len = len - flen - 1;
		out->qualifier = sbx_malloc(out->qualifier_len + 1);
		if (!out->qualifier) {
			rest_column_free(out);
			return SBX_ENOMEM;
		}
		memcpy(out->qualifier, colon + 1, out->qualifier_len);
	}
	return SBX_OK;
}

void rest_rowspec_free(rest_rowspec *s)
{
	sbx_buf_free(&s->row);
	sbx_buf_free(&s->end_row);
	for (size_t i = 0; i < s->ncolumns; i++)
		rest_column_free(&s->columns[i]);
	free(s->columns);
	memset(s, 0, sizeof *s);
}

static int parse_int64(const char *text, size_t len, int64_t *out)
{
	if (len == 0 || len > 19)
		return SBX_EPARSE;
	int64_t v = 0;
	for (size_t i = 0; i < len; i++) {
		if (text[i] < '0' || text[i] > '9')
			return SBX_EPARSE;
		if (v > (INT64_MAX - (text[i] - '0')) / 10)
			return SBX_EPARSE;
		v = v * 10 + (text[i] - '0');
	}
	*out = v;
	return SBX_OK;
}

static int parse_row_segment(rest_rowspec *s, const char *seg, size_t len,
			     bool allow_glob, char *err)
{
	const char *comma = memchr(seg, ',', len);
	size_t start_len = comma ? (size_t)(comma - seg) : len;
	if (rest_url_decode(&s->row, seg, start_len))
		return PATH_ERR(err, "malformed %%-escape in row key");
	if (comma) {
		s->is_range = true;
		if (rest_url_decode(&s->end_row, comma + 1, len - start_len - 1))
			return PATH_ERR(err, "malformed %%-escape in end row");
	}
	if (s->row.len > 0 && s->row.data[s->row.len - 1] == '*') {
		if (!allow_glob)
			return PATH_ERR(err, "row globs are not allowed here");
		if (comma)
			return PATH_ERR(err, "invalid path: start row specified "
					     "with wildcard");
		s->is_glob = true;
		s->row.len--;
	}
	if (s->row.len > SBX_MAX_ROW_LENGTH || s->end_row.len > SBX_MAX_ROW_LENGTH)
		return PATH_ERR(err, "row key longer than %d bytes",
				SBX_MAX_ROW_LENGTH);
	return SBX_OK;
}

static int parse_columns_segment(rest_rowspec *s, const char *seg, size_t len,
				 char *err)
{
	size_t n = 1;
	for (size_t i = 0; i < len; i++)
		n += seg[i] == ',';
	s->columns = sbx_calloc(n, sizeof *s->columns);
	if (!s->columns)
		return SBX_ENOMEM;
	sbx_buf tok = {0};
	int rc = SBX_OK;
	size_t start = 0;
	for (size_t i = 0; i <= len && rc == SBX_OK; i++) {
		if (i < len && seg[i] != ',')
			continue;
		if (i > start) {
			if (rest_url_decode(&tok, seg + start, i - start))
				rc = PATH_ERR(err, "malformed %%-escape in column");
			else
				rc = rest_column_parse(&s->columns[s->ncolumns],
						       tok.data, tok.len, err);
			if (rc == SBX_OK)
				s->ncolumns++;
		}
		start = i + 1;
	}
	sbx_buf_free(&tok);
	return rc;
}

static int parse_ts_segment(rest_rowspec *s, const char *seg, size_t len,
			    char *err)
{
	const char *comma = memchr(seg, ',', len);
	s->has_ts = true;
	if (!comma) {
		if (parse_int64(seg, len, &s->end_ts))
			return PATH_ERR(err, "bad timestamp '%.*s'",
					(int)(len > 32 ? 32 : len), seg);
		s->start_ts = 0;
		return SBX_OK;
	}
	size_t a = (size_t)(comma - seg);
	if (parse_int64(seg, a, &s->start_ts) ||
	    parse_int64(comma + 1, len - a - 1, &s->end_ts))
		return PATH_ERR(err, "bad time range '%.*s'",
				(int)(len > 64 ? 64 : len), seg);
	if (s->start_ts > s->end_ts)
		return PATH_ERR(err, "time range start is after its end");
	return SBX_OK;
}

int rest_rowspec_parse(rest_rowspec *s, const char *text, size_t len,
		       bool allow_glob, char *err)
{
	memset(s, 0, sizeof *s);
	s->start_ts = 0;
	s->end_ts = INT64_MAX;
	s->max_versions = 1;
	const char *segs[3];
	size_t lens[3], nseg = 0;
	size_t start = 0;
	for (size_t i = 0; i <= len; i++) {
		if (i < len && text[i] != '/')
			continue;
		if (nseg == 3) {
			if (i > start)
				return PATH_ERR(err, "too many path segments "
						     "after the row");
		} else {
			segs[nseg] = text + start;
			lens[nseg++] = i - start;
		}
		start = i + 1;
	}
	if (nseg == 0 || lens[0] == 0)
		return PATH_ERR(err, "missing row key");
	int rc = parse_row_segment(s, segs[0], lens[0], allow_glob, err);
	if (rc == SBX_OK && nseg > 1 && lens[1] > 0)
		rc = parse_columns_segment(s, segs[1], lens[1], err);
	if (rc == SBX_OK && nseg > 2 && lens[2] > 0)
		rc = parse_ts_segment(s, segs[2], lens[2], err);
	return rc;
}

void rest_route_free(rest_route *r)
{
	free(r->table);
	free(r->name);
	rest_rowspec_free(&r->spec);
	memset(r, 0, sizeof *r);
}

static bool seg_is(const char *seg, size_t len, const char *word)
{
	return strlen(word) == len && memcmp(seg, word, len) == 0;
}

/* Decode one segment into a NUL-terminated string without NUL bytes. */
static int decode_name(char **out, const char *seg, size_t len, char *err,
		       const char *what)
{
	sbx_buf b = {0};
	if (rest_url_decode(&b, seg, len)) {
		sbx_buf_free(&b);
		return PATH_ERR(err, "malformed %%-escape in %s", what);
	}
	if (b.len == 0 || memchr(b.data, 0, b.len)) {
		sbx_buf_free(&b);
		return PATH_ERR(err, "empty or invalid %s", what);
	}
	*out = (char *)b.data; /* NUL-terminated by rest_url_decode */
	return SBX_OK;
}

static int route_cluster(rest_route *r, const char **segs, const size_t *lens,
			 size_t nseg, char *err, bool *matched)
{
	*matched = true;
	if (seg_is(segs[0], lens[0], "version")) {
		if (nseg == 1 || (nseg == 2 && seg_is(segs[1], lens[1], "rest"))) {
			r->kind = ROUTE_VERSION;
			return SBX_OK;
		}
		if (nseg == 2 && seg_is(segs[1], lens[1], "cluster")) {
			r->kind = ROUTE_CLUSTER_VERSION;
			return SBX_OK;
		}
		return PATH_ERR(err, "unknown version resource");
	}
	if (seg_is(segs[0], lens[0], "status") && nseg == 2 &&
	    seg_is(segs[1], lens[1], "cluster")) {
		r->kind = ROUTE_CLUSTER_STATUS;
		return SBX_OK;
	}
	if (seg_is(segs[0], lens[0], "namespaces")) {
		if (nseg == 1) {
			r->kind = ROUTE_NAMESPACES;
			return SBX_OK;
		}
		if (nseg > 3 || (nseg == 3 && !seg_is(segs[2], lens[2], "tables")))
			return PATH_ERR(err, "unknown namespace resource");
		r->kind = nseg == 2 ? ROUTE_NAMESPACE : ROUTE_NAMESPACE_TABLES;
		return decode_name(&r->name, segs[1], lens[1], err,
				   "namespace name");
	}
	*matched = false;
	return SBX_OK;
}

int rest_route_parse(rest_route *r, const char *path, size_t len, char *err)
{
	memset(r, 0, sizeof *r);
	r->spec.max_versions = 1;
	r->spec.end_ts = INT64_MAX;
	if (len == 0 || path[0] != '/')
		return PATH_ERR(err, "path must start with '/'");
	path++;
	len--;
	/* A trailing '/' is ignored, as JAX-RS does. */
	while (len > 0 && path[len - 1] == '/')
		len--;
	if (len == 0) {
		r->kind = ROUTE_ROOT;
		return SBX_OK;
	}
	/* The first four segments decide the route; the row spec keeps the
	 * rest of the raw path. */
	const char *segs[4];
	size_t lens[4], nseg = 0, start = 0;
	const char *rest_after_table = NULL;
	for (size_t i = 0; i <= len && nseg < 4; i++) {
		if (i < len && path[i] != '/')
			continue;
		segs[nseg] = path + start;
		lens[nseg++] = i - start;
		if (nseg == 1)
			rest_after_table = i < len ? path + i + 1 : NULL;
		start = i + 1;
	}
	bool more = start < len && nseg == 4;
	size_t total_segs = nseg + (more ? 1 : 0);
	if (lens[0] == 0)
		return PATH_ERR(err, "empty table name");
	bool matched;
	int rc = route_cluster(r, segs, lens, total_segs, err, &matched);
	if (rc || matched)
		return rc;
	rc = decode_name(&r->table, segs[0], lens[0], err, "table name");
	if (rc)
		return rc;
	if (total_segs == 1)
		return PATH_ERR(err, "missing row key or resource after "
				     "table '%s'", r->table);
	const char *s1 = segs[1];
	size_t l1 = lens[1];
	if (total_segs == 2 && seg_is(s1, l1, "schema")) {
		r->kind = ROUTE_SCHEMA;
		return SBX_OK;
	}
	if (total_segs == 2 && seg_is(s1, l1, "exists")) {
		r->kind = ROUTE_EXISTS;
		return SBX_OK;
	}
	if (total_segs == 2 && seg_is(s1, l1, "regions")) {
		r->kind = ROUTE_REGIONS;
		return SBX_OK;
	}
	if (seg_is(s1, l1, "scanner") && total_segs <= 3) {
		if (total_segs == 2) {
			r->kind = ROUTE_SCANNER;
			return SBX_OK;
		}
		r->kind = ROUTE_SCANNER_ID;
		return decode_name(&r->name, segs[2], lens[2], err,
				   "scanner id");
	}
	size_t rest_len = (size_t)(path + len - rest_after_table);
	if (seg_is(s1, l1, "multiget")) {
		r->kind = ROUTE_MULTIGET;
		if (total_segs > 3)
			return PATH_ERR(err, "multiget takes only a column list");
		if (total_segs == 3 && lens[2] > 0)
			return parse_columns_segment(&r->spec, segs[2], lens[2],
						     err);
		return SBX_OK;
	}
	/* "/t/prefix*" with nothing after it is the stateless scanner. */
	if (total_segs == 2 && l1 > 0 && s1[l1 - 1] == '*') {
		r->kind = ROUTE_SCAN;
		rc = parse_row_segment(&r->spec, s1, l1, true, err);
		if (rc == SBX_OK && (r->spec.is_range || !r->spec.is_glob))
			return PATH_ERR(err, "a scan path must end in '*'");
		return rc;
	}
	r->kind = ROUTE_ROW;
	return rest_rowspec_parse(&r->spec, rest_after_table, rest_len, true,
				  err);
}
