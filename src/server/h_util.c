/*
 * h_util.c - helpers every endpoint family shares: opening the table of
 * the route (from the server's handle cache) with HBase's 404, method checks, body format checks, and the
 * region map.
 */
#include "server/handlers.h"

#include "common/buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int rest_open_table(sbx_table **out, rest_request *rq, rest_response *rs)
{
	int rc = rest_table_acquire(out, rq->srv, rq->route.table);
	if (rc == SBX_ENOTFOUND || rc == SBX_EINVAL)
		rest_error(rs, 404, "table '%s' not found", rq->route.table);
	else if (rc)
		rest_sbx_error(rs, rc);
	return rc;
}

bool rest_allow(rest_request *rq, rest_response *rs, unsigned methods)
{
	rest_method m = rq->method == METHOD_HEAD ? METHOD_GET : rq->method;
	if (methods & (1u << m))
		return true;
	rest_error(rs, 405, "method not allowed on this resource");
	return false;
}

bool rest_accept(rest_request *rq, rest_response *rs, const rest_fmt *produces,
		 size_t n, rest_fmt *fmt)
{
	bool ietf;
	*fmt = rest_negotiate(rq, produces, n, &ietf);
	if (*fmt == REST_FMT_NONE) {
		rest_error(rs, 406, "cannot produce any type in the Accept "
				    "header");
		return false;
	}
	rs->content_type = rest_fmt_mime(*fmt, ietf);
	return true;
}

bool rest_body_fmt(rest_request *rq, rest_response *rs, rest_fmt *fmt,
		   bool allow_binary)
{
	*fmt = rest_content_fmt(rq);
	if (*fmt == REST_FMT_JSON || *fmt == REST_FMT_XML || *fmt == REST_FMT_PB ||
	    (allow_binary && *fmt == REST_FMT_BINARY))
		return true;
	const char *ct = rest_header(rq, "Content-Type");
	rest_error(rs, 415, "unsupported Content-Type '%.64s' (use "
			    "application/json, text/xml or application/x-protobuf)",
		   ct ? ct : "");
	return false;
}

void rest_columns_to_sbx(sbx_column *cols, const rest_column *in, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		cols[i].family = in[i].family;
		cols[i].qualifier = in[i].has_qualifier
					    ? (in[i].qualifier ? (const void *)in[i].qualifier
							       : (const void *)"")
					    : NULL;
		cols[i].qualifier_len = in[i].qualifier_len;
	}
}

int rest_split_column(const uint8_t *col, size_t len, char *family,
		      const uint8_t **qualifier, size_t *qualifier_len)
{
	const uint8_t *colon = memchr(col, ':', len);
	if (!colon)
		return SBX_EPARSE;
	size_t flen = (size_t)(colon - col);
	if (flen == 0 || flen > SBX_MAX_FAMILY_NAME || memchr(col, 0, flen))
		return SBX_EINVAL;
	memcpy(family, col, flen);
	family[flen] = 0;
	*qualifier = colon + 1;
	*qualifier_len = len - flen - 1;
	return SBX_OK;
}

/* ---- regions ---------------------------------------------------------------- */

int rest_regions(rest_regions_list *out, sbx_db *db, const char *table)
{
	memset(out, 0, sizeof *out);
	return sbx_table_regions(&out->r, &out->n, db, table);
}

void rest_node_name(char *out, size_t cap, int server)
{
	snprintf(out, cap, "server-%d:%d", server, REST_NODE_PORT);
}

void rest_regions_free(rest_regions_list *l)
{
	if (l->r)
		sbx_region_infos_free(l->r, l->n);
	memset(l, 0, sizeof *l);
}
