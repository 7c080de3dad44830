/*
 * handlers.h - helpers shared by the endpoint handlers (h_*.c), so each
 * handler stays a short sequence of checks and one table-API call.
 */
#ifndef SBX_SERVER_HANDLERS_H
#define SBX_SERVER_HANDLERS_H

#include "server/rest.h"

#define ALLOW_GET (1u << METHOD_GET)
#define ALLOW_PUT (1u << METHOD_PUT)
#define ALLOW_POST (1u << METHOD_POST)
#define ALLOW_DELETE (1u << METHOD_DELETE)

/* false (with 405 in rs) unless rq's method is in `methods`. */
bool rest_allow(rest_request *rq, rest_response *rs, unsigned methods);
/* Pick the response format (sets rs->content_type), or 406. */
bool rest_accept(rest_request *rq, rest_response *rs, const rest_fmt *produces,
		 size_t n, rest_fmt *fmt);
/* The body's format: JSON, XML, protobuf (and octet-stream if allowed),
 * or 415. */
bool rest_body_fmt(rest_request *rq, rest_response *rs, rest_fmt *fmt,
		   bool allow_binary);
/* Split "cf:q" bytes at the first ':' into family (NUL-terminated, at
 * most SBX_MAX_FAMILY_NAME) and qualifier (points into col). SBX_EPARSE if
 * there is no ':', SBX_EINVAL for a bad family. */
int rest_split_column(const uint8_t *col, size_t len, char *family,
		      const uint8_t **qualifier, size_t *qualifier_len);

typedef struct rest_regions_list {
	sbx_region_info *r;
	size_t n;
} rest_regions_list;

int rest_regions(rest_regions_list *out, sbx_db *db, const char *table);
void rest_regions_free(rest_regions_list *l);

/* The name of modelled region server `server` as the gateway reports it
 * (a region's location, a LiveNode of /status/cluster): "server-N:16020",
 * the server-N that the shell's list_regions and status print. */
#define REST_NODE_PORT 16020
void rest_node_name(char *out, size_t cap, int server);

/*
 * Stream the rows of an open scanner as a CellSet (the response takes
 * over t, s, f and first, which may be NULL; t is released to srv's handle
 * cache, rest_table_release). pb_frames: HBase's stateless protobuf framing
 * (2-byte length + CellSet per row).
 */
void rest_stream_scan(rest_server *srv, rest_response *rs, rest_fmt fmt,
		      bool pb_frames, sbx_table *t, sbx_scanner *s,
		      sbx_filter *f, sbx_result *first);

/* The Location of a new resource: http://<Host header or bind>/<path>. */
void rest_location(rest_request *rq, rest_response *rs, const char *path);

#endif
