/*
 * remote.h - internals of the remote backend: the table API over HBase's
 * REST gateway (reference/hbase-rest.md) with libcurl. http.c owns the
 * connection pool, retries and the mapping of HTTP statuses to SBX codes;
 * codec.c the JSON/base64/URL helpers; admin.c, data.c and scan.c the
 * backend operations; backend.c the ops table and remote_connect().
 */
#ifndef SBX_REMOTE_REMOTE_H
#define SBX_REMOTE_REMOTE_H

#include "common/buf.h"
#include "model/backend.h"

#include <jansson.h>
#include <pthread.h>
#include <stdbool.h>

/* Idle keep-alive handles kept for reuse (one per concurrent request). */
#define REMOTE_POOL_MAX 16
/* Attempts on a connection failure, with doubling backoff from 50 ms. */
#define REMOTE_ATTEMPTS 4
#define REMOTE_BACKOFF_MS 50

typedef struct remote_db {
	char *base;        /* "http://host:port" (no trailing '/') */
	char *auth_header; /* "Authorization: Bearer ..." or NULL */
	pthread_mutex_t pool_lock;
	void *pool[REMOTE_POOL_MAX]; /* idle CURL easy handles */
	size_t npool;
	int attempts;
	long timeout_ms;
} remote_db;

typedef struct remote_table {
	remote_db *db;
	char *name;     /* "t" or "ns:t" */
	char *path;     /* "/" + URL-encoded name */
} remote_table;

/* One HTTP exchange. The caller frees with remote_resp_free(). */
typedef struct remote_resp {
	long status;
	sbx_buf body;
	char *location;   /* Location header, or NULL */
	char *sbx_status; /* X-Saltbox-Status header, or NULL */
	bool out_of_memory; /* storing the body or a header failed */
} remote_resp;

void remote_resp_free(remote_resp *r);

/*
 * Send `method path` (path starts with '/', already URL-encoded) with an
 * optional body. Retries connection failures with backoff; after the last
 * attempt returns SBX_EREMOTE naming the URL. Any HTTP status is SBX_OK
 * here: callers decide which statuses are errors (remote_status_error).
 * `idempotent` allows retrying a request that may have reached the server.
 */
int remote_request(remote_db *db, const char *method, const char *path,
		   const char *content_type, const void *body, size_t len,
		   bool idempotent, remote_resp *out);
/* The same with one more request header ("Name: value"; NULL: none). */
int remote_request_hdr(remote_db *db, const char *method, const char *path,
		       const char *header, const char *content_type,
		       const void *body, size_t len, bool idempotent,
		       remote_resp *out);

/*
 * The transport seam, for fuzzing the parsing of server responses in
 * process (fuzz/fuzz_remote_response.c): when remote_transport_hook is set,
 * remote_request asks it instead of the network. It gets the request and
 * fills *status, the raw header block (lines "Name: value\r\n", parsed as
 * libcurl's would be) and the body; a non-zero return is a connection
 * failure. NULL (the default) in every program.
 */
typedef int (*remote_transport_fn)(void *ctx, const char *method,
				   const char *path, const void *body,
				   size_t len, long *status, sbx_buf *headers,
				   sbx_buf *resp_body);
extern remote_transport_fn remote_transport_hook;
extern void *remote_transport_ctx;

/* Turn a non-success response into an SBX code and message. `what`
 * names the object for messages ("table 't'"). */
int remote_status_error(remote_db *db, const remote_resp *r, const char *what);

/* The text of an error body (HBase: "Not found\r\n<message>\r\n"): the
 * message line when there is one, else the status line. Copied to out. */
void remote_error_text(const remote_resp *r, char *out, size_t cap);

/* ---- codec.c -------------------------------------------------------------- */

/* Append the percent-encoding of bytes (everything but A-Za-z0-9-._~). */
int remote_url_append(sbx_buf *out, const void *data, size_t len);
int remote_url_append_str(sbx_buf *out, const char *s);
/* NUL-terminate b (not counted in len) and return it as a string. */
const char *remote_cstr(sbx_buf *b);

/* Standard padded base64 as a new jansson string. */
json_t *remote_b64_json(const void *data, size_t len);
/* Decode base64 text into *out (replaced). SBX_EREMOTE if malformed. */
int remote_b64_decode(sbx_buf *out, const char *text);

/* Parse a JSON body; SBX_EREMOTE with a message when it is not JSON. */
int remote_json_parse(json_t **out, remote_db *db, const remote_resp *r);

/*
 * A parsed CellSet: rows in order, each with its cells. Consecutive Rows
 * with the same key are kept separate here; callers merge them.
 */
typedef struct remote_cell {
	char *family;
	uint8_t *qualifier;
	size_t qualifier_len;
	int64_t ts;
	uint8_t *value;
	size_t value_len;
} remote_cell;

typedef struct remote_row {
	uint8_t *key;
	size_t key_len;
	remote_cell *cells;
	size_t ncells;
} remote_row;

typedef struct remote_cellset {
	remote_row *rows;
	size_t nrows;
} remote_cellset;

int remote_cellset_parse(remote_cellset *out, remote_db *db,
			 const remote_resp *r);
void remote_cellset_free(remote_cellset *cs);

/* ---- admin.c / data.c / scan.c: the backend operations --------------------- */

int remote_namespace_create(void *db, const char *ns);
int remote_namespace_drop(void *db, const char *ns);
int remote_namespace_list(char ***out, void *db);
int remote_table_create(void *db, const char *name,
			const sbx_family_desc *families, size_t n,
			const sbx_bytes *splits, size_t nsplits);
int remote_table_exists(void *db, const char *name, bool *exists);
int remote_table_describe(sbx_table_info **out, void *db, const char *name);
int remote_table_list(char ***out, void *db);
int remote_table_alter_family(void *db, const char *table,
			      const sbx_family_desc *f);
int remote_table_delete_family(void *db, const char *table,
			       const char *family);
int remote_table_set_enabled(void *db, const char *name, bool enabled);
int remote_table_is_enabled(void *db, const char *name, bool *enabled);
int remote_table_truncate(void *db, const char *name);
int remote_table_drop(void *db, const char *name);
int remote_table_flush(void *db, const char *name);
int remote_table_major_compact(void *db, const char *name);
int remote_regions(sbx_region_info **out, size_t *n, void *db,
		   const char *table);
int remote_split(void *db, const char *table, const void *key, size_t len);
int remote_merge(void *db, const char *table, const void *start, size_t len);
int remote_set_split_policy(void *db, const char *table,
			    const sbx_split_policy *p);
int remote_get_split_policy(void *db, const char *table, sbx_split_policy *p);
int remote_load(sbx_region_load **out, size_t *n, void *db, const char *table,
		size_t nbuckets);
int remote_region_servers(void *db);

/* "/" + URL-encoded table name, as a new string. */
char *remote_table_path(const char *name);

int remote_table_open(void **out, void *db, const char *name);
void remote_table_close(void *t);
int remote_mutate(void *t, const sbx_mutation *m, sbx_result **out);
int remote_batch(void *t, sbx_mutation *const *ms, size_t n, int *statuses);
int remote_check_and_mutate(void *t, const sbx_check *check,
			    const sbx_mutation *m, bool *succeeded,
			    sbx_result **out);
int remote_get(sbx_result **out, void *t, const uint8_t *row, size_t row_len,
	       const sbx_read_opts *opts);

int remote_scanner_open(void **out, void *t, const sbx_scan_opts *opts);
int remote_scanner_next(void *s, sbx_result **out);
void remote_scanner_close(void *s);

/* A get done as a one-row scan (filters, or row keys a path cannot carry). */
int remote_get_by_scan(sbx_result **out, remote_table *t, const uint8_t *row,
		       size_t row_len, const sbx_read_opts *opts);

#endif
