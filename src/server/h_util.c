/*
 * h_util.c - helpers every endpoint family shares: opening the table of
 * the route with HBase's 404, method checks, body format checks, and the
 * region map (sbx_table_regions when the library has it; otherwise the
 * one-region-per-table form HBase shows for an unsplit table).
 */
#include "server/handlers.h"

#include "common/buf.h"

#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int rest_open_table(sbx_table **out, rest_request *rq, rest_response *rs)
{
	int rc = sbx_table_open(out, rq->srv->db, rq->route.table);
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

#pragma weak sbx_table_regions
#pragma weak sbx_region_infos_free

static void md5_hex(char out[33], const void *data, size_t len)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int n = 0;
	EVP_Digest(data, len, md, &n, EVP_md5(), NULL);
	for (unsigned i = 0; i < 16; i++)
		snprintf(out + 2 * i, 3, "%02x", md[i]);
}

int rest_regions(rest_regions_list *out, sbx_db *db, const char *table)
{
	memset(out, 0, sizeof *out);
	if (sbx_table_regions) {
		int rc = sbx_table_regions(&out->r, &out->n, db, table);
		if (rc != SBX_EUNSUPPORTED) {
			out->from_library = rc == SBX_OK;
			return rc;
		}
	}
	bool exists = false;
	int rc = sbx_table_exists(db, table, &exists);
	if (rc)
		return rc;
	if (!exists)
		return SBX_ENOTFOUND;
	out->r = calloc(1, sizeof *out->r);
	if (!out->r)
		return SBX_ENOMEM;
	out->n = 1;
	sbx_region_info *ri = out->r;
	ri->id = 0;
	char base[512];
	int blen = snprintf(base, sizeof base, "%s,,0", table);
	md5_hex(ri->encoded, base, (size_t)blen);
	size_t nlen = strlen(base) + 40;
	ri->name = malloc(nlen);
	if (!ri->name)
		return SBX_ENOMEM;
	snprintf(ri->name, nlen, "%s.%s.", base, ri->encoded);
	return SBX_OK;
}

void rest_regions_free(rest_regions_list *l)
{
	if (l->from_library && sbx_region_infos_free) {
		sbx_region_infos_free(l->r, l->n);
	} else if (l->r) {
		for (size_t i = 0; i < l->n; i++) {
			free(l->r[i].name);
			free(l->r[i].start_key);
			free(l->r[i].end_key);
		}
		free(l->r);
	}
	memset(l, 0, sizeof *l);
}
