/*
 * rest.h - internals of `saltbox serve`, HBase's REST protocol over the
 * public table API (reference/hbase-rest.md). Shared by the HTTP glue
 * (http.c), the path parser (path.c), the body codecs (cellset_xml.c,
 * model.c; the CellSet model, JSON and protobuf are wire/, base64 is
 * common/base64.c) and the endpoint handlers (h_*.c).
 *
 * Handlers are thin: they read a parsed rest_request and fill a
 * rest_response; the HTTP layer owns both and turns the response into MHD
 * calls. Nothing here touches src/engine or src/table internals.
 */
#ifndef SBX_SERVER_REST_H
#define SBX_SERVER_REST_H

#include "common/base64.h"
#include "saltbox.h"
#include "server/server.h"
#include "wire/cellset.h"
#include "wire/pb.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- base64 (common/base64.c) -------------------------------------------- */

/* Append the standard, padded base64 of data to *out. */
static inline int rest_b64_encode(sbx_buf *out, const void *data, size_t len)
{
	return sbx_base64_encode(out, data, len);
}
/* Strict decode (standard alphabet; padding optional but, when present,
 * exact; no whitespace). Returns SBX_OK or SBX_EPARSE. *out is replaced. */
static inline int rest_b64_decode(sbx_buf *out, const char *text, size_t len)
{
	return sbx_base64_decode(out, text, len, false);
}

/* ---- media types --------------------------------------------------------- */

/* The media type of a Content-Type / Accept item (parameters ignored);
 * *ietf tells application/protobuf from application/x-protobuf. */
rest_fmt rest_fmt_of(const char *media, size_t len, bool *ietf);
const char *rest_fmt_mime(rest_fmt f, bool ietf);

/* ---- paths (path.c) ------------------------------------------------------ */

typedef enum rest_route_kind {
	ROUTE_ROOT,            /* GET /                    table list   */
	ROUTE_VERSION,         /* /version, /version/rest               */
	ROUTE_CLUSTER_VERSION, /* /version/cluster                      */
	ROUTE_CLUSTER_STATUS,  /* /status/cluster                       */
	ROUTE_NAMESPACES,      /* /namespaces                           */
	ROUTE_NAMESPACE,       /* /namespaces/{ns}                      */
	ROUTE_NAMESPACE_TABLES,/* /namespaces/{ns}/tables               */
	ROUTE_SCHEMA,          /* /{t}/schema                           */
	ROUTE_EXISTS,          /* /{t}/exists                           */
	ROUTE_REGIONS,         /* /{t}/regions                          */
	ROUTE_SCANNER,         /* /{t}/scanner                          */
	ROUTE_SCANNER_ID,      /* /{t}/scanner/{id}                     */
	ROUTE_MULTIGET,        /* /{t}/multiget[/{cols}]                */
	ROUTE_SCAN,            /* /{t}/STAR or /{t}/{prefix}STAR: stateless */
	ROUTE_ROW,             /* /{t}/{rowspec}                        */
} rest_route_kind;

/* One column of a path or a scan: family alone (has_qualifier false), or
 * family:qualifier (qualifier may be empty: "cf:"). */
typedef struct rest_column {
	char *family;
	uint8_t *qualifier;
	size_t qualifier_len;
	bool has_qualifier;
} rest_column;

/*
 * HBase's RowSpec: row, or start,end range, or prefix* glob; columns;
 * [start,]end time range. Every byte string is URL-decoded and owned here.
 */
typedef struct rest_rowspec {
	sbx_buf row;       /* the row, the range start, or the glob prefix */
	sbx_buf end_row;   /* range end (exclusive) when is_range */
	bool is_range;
	bool is_glob;
	rest_column *columns;
	size_t ncolumns;
	int64_t start_ts;  /* [start_ts, end_ts) */
	int64_t end_ts;
	bool has_ts;
	int max_versions;  /* ?v=N, default 1 */
} rest_rowspec;

typedef struct rest_route {
	rest_route_kind kind;
	char *table;    /* "t" or "ns:t"; NULL for cluster routes */
	char *name;     /* namespace name, or scanner id */
	rest_rowspec spec;
} rest_route;

/*
 * Parse a raw (still percent-encoded) request path. On SBX_EPARSE, err
 * holds a message for a 400 reply. The route owns its strings:
 * rest_route_free().
 */
int rest_route_parse(rest_route *out, const char *path, size_t len, char *err);
void rest_route_free(rest_route *r);
/* Parse one RowSpec ("row[/cols[/ts]]") as multiget's row= values are. */
int rest_rowspec_parse(rest_rowspec *out, const char *text, size_t len,
		       bool allow_glob, char *err);
void rest_rowspec_free(rest_rowspec *s);
/* Java URLDecoder: %XX and '+' = space. SBX_EPARSE on a bad escape. */
int rest_url_decode(sbx_buf *out, const char *text, size_t len);
/* Split decoded "cf[:q]" into a column (first ':'). */
int rest_column_parse(rest_column *out, const uint8_t *text, size_t len,
		      char *err);
void rest_column_free(rest_column *c);

/* ---- CellSet bodies (the model and the JSON and protobuf codecs are
 * wire/cellset.h; XML needs expat and is here: cellset_xml.c) ---------- */

int rest_cellset_from_xml(rest_cellset *out, const uint8_t *body, size_t len,
			  char *err);
int rest_cellset_decode(rest_cellset *out, rest_fmt f, const uint8_t *body,
			size_t len, char *err);

/* ---- scanner spec and schema models (model.c) ---------------------------- */

typedef struct rest_scan_spec {
	sbx_buf start_row, end_row;
	rest_column *columns;
	size_t ncolumns;
	int32_t batch;         /* 0 = unset */
	int64_t start_time;    /* default 0 */
	int64_t end_time;      /* default INT64_MAX */
	int32_t max_versions;  /* default INT32_MAX */
	char *filter;          /* filter JSON text or NULL */
	int32_t caching;
	bool cache_blocks;
} rest_scan_spec;

void rest_scan_spec_init(rest_scan_spec *s);
void rest_scan_spec_free(rest_scan_spec *s);
int rest_scan_spec_decode(rest_scan_spec *out, rest_fmt f, const uint8_t *body,
			  size_t len, char *err);

typedef struct rest_attr {
	char *key, *value;
} rest_attr;

typedef struct rest_family_schema {
	char *name;
	rest_attr *attrs;
	size_t nattrs;
} rest_family_schema;

typedef struct rest_table_schema {
	char *name;
	rest_attr *attrs;
	size_t nattrs;
	rest_family_schema *families;
	size_t nfamilies;
} rest_table_schema;

void rest_table_schema_free(rest_table_schema *s);
int rest_table_schema_decode(rest_table_schema *out, rest_fmt f,
			     const uint8_t *body, size_t len, char *err);
/* Turn a family schema into a descriptor (HBase attribute names). */
int rest_family_desc_from_schema(sbx_family_desc *out,
				 const rest_family_schema *fs, char *err);

/* ---- requests and responses (http.c) ------------------------------------- */

typedef enum rest_method {
	METHOD_GET,
	METHOD_HEAD,
	METHOD_PUT,
	METHOD_POST,
	METHOD_DELETE,
	METHOD_OTHER,
} rest_method;

typedef struct rest_arg {
	char *key;
	sbx_buf value; /* URL-decoded, NUL-terminated (len excludes it) */
} rest_arg;

typedef struct rest_server rest_server;

/* One request header as received (names compare case-insensitively). */
typedef struct rest_kv {
	const char *name, *value;
} rest_kv;

/* How the transport lets a request wait for a group commit (commit.c): the
 * connection is suspended before the request is queued and resumed once
 * `answer` holds its response. suspend == NULL: the request cannot wait
 * (a router called without a socket): its write runs inline. */
typedef struct rest_defer {
	void (*suspend)(void *conn);
	void (*resume)(void *conn);
	void *conn;
	struct rest_response *answer;
} rest_defer;

/* What the transport hands the router: nothing here depends on MHD, so
 * tests and fuzzers can build one by hand (rest_route_request). */
typedef struct rest_request {
	rest_server *srv;
	rest_method method;
	const char *path;        /* raw, percent-encoded, without '?' */
	const char *query;       /* raw text after '?', or NULL */
	const rest_kv *headers;  /* borrowed for the request's lifetime */
	size_t nheaders;
	const char *client;      /* the peer's address ("127.0.0.1"), or "" */
	bool authed;             /* carried the server's bearer token */
	rest_route route;
	rest_arg *args;          /* parsed from query by the router */
	size_t nargs;
	const uint8_t *body;
	size_t body_len;
	rest_defer defer;
} rest_request;

/* A streamed body: next() appends to *out; returns 1 for more, 0 at the
 * end, negative on error (the connection is then cut). free() runs once. */
typedef struct rest_stream {
	int (*next)(void *state, sbx_buf *out);
	void (*free)(void *state);
	void *state;
} rest_stream;

#define REST_MAX_HEADERS 4

typedef struct rest_response {
	int status;
	const char *content_type; /* static string, NULL = none */
	sbx_buf body;
	rest_stream stream;       /* used when stream.next != NULL */
	char *header_names[REST_MAX_HEADERS];
	char *header_values[REST_MAX_HEADERS];
	size_t nheaders;
	bool no_cache;            /* Cache-Control: no-cache */
	int sbx_status;           /* the code rest_sbx_error reported, or 0 */
	bool deferred;            /* queued for a group commit: the answer
				   * comes in rq->defer.answer (commit.c) */
} rest_response;

/* A request header's value (the first of its name), or NULL. */
const char *rest_header(const rest_request *rq, const char *name);
/* How many headers named `name` the request has. */
size_t rest_header_count(const rest_request *rq, const char *name);
/* Split a raw query string on '&' and '=' and URL-decode each part into
 * rq->args (a key without '=' gets ""). SBX_EPARSE on a bad escape. */
int rest_query_parse(rest_request *rq, const char *query);
/* Free rq's route and arguments (not what it borrows). */
void rest_request_free(rest_request *rq);
/* The first query argument `key` (decoded), or NULL. */
const rest_arg *rest_query(const rest_request *rq, const char *key);
/* Parse an integer query argument; missing = *out unchanged. */
int rest_query_int64(const rest_request *rq, const char *key, int64_t *out,
		     char *err);
/* The response format the client accepts among `produces` (the first is the
 * default for no Accept or any type); REST_FMT_NONE if none is acceptable. */
rest_fmt rest_negotiate(const rest_request *rq, const rest_fmt *produces,
			size_t n, bool *ietf);
/* The body's format from Content-Type (NONE if missing). */
rest_fmt rest_content_fmt(const rest_request *rq);

void rest_set_header(rest_response *rs, const char *name, const char *value);
/* text/plain error body "Bad request\r\n<message>\r\n". */
void rest_error(rest_response *rs, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Map an sbx status (with sbx_errmsg()) to HBase's status code. */
void rest_sbx_error(rest_response *rs, int rc);
/* A status with an empty body. */
void rest_empty(rest_response *rs, int status);

/* ---- the router (router.c): everything between transport and handler --- */

/* Longest request target (path and query) answered; 414 above. */
#define REST_MAX_URI_BYTES (32 * 1024)

/*
 * Checks that need only the request line and headers, run before any body
 * is read: HTTP framing (RFC 9112 §6.3), the bearer token, read-only mode,
 * the declared body size. On refusal fills rs and returns false; *close
 * says the connection must be closed after the answer (framing errors,
 * after which the rest of the stream cannot be trusted).
 */
bool rest_admit(rest_request *rq, rest_response *rs, bool *close);
/* Route one admitted request with its body to its handler; fills rs. */
void rest_route_request(rest_request *rq, rest_response *rs);
void rest_response_free(rest_response *rs);
/* The constant-time check of an Authorization header against the token. */
bool rest_token_ok(const rest_server *srv, const char *authorization);

/* The server: shared state handlers may use. */
struct rest_server {
	sbx_db *db;
	sbx_server_opts opts;
	char host_port[128];     /* for Location headers and cluster status */
	int64_t start_ms;
	struct rest_scanners *scanners;
	struct rest_tables *tables; /* open table handles (tables.c); NULL:
				     * every request opens its own */
	struct rest_commit *commit; /* group commit of PUTs (commit.c); NULL:
				     * each writes alone */
	void *daemon;            /* struct MHD_Daemon */
	_Atomic long in_flight;  /* requests being handled */
	_Atomic bool stopping;   /* sbx_server_stop began: refuse new requests */
	_Atomic size_t inflight_body; /* body bytes reserved by requests in
				       * flight (opts.max_inflight_body_bytes) */
	_Atomic long long requests;
};

/* ---- group commit of PUTs (commit.c) -------------------------------------- */

typedef struct rest_commit rest_commit;
typedef struct rest_commit_stats {
	unsigned long long batches;  /* sbx_table_batch calls made */
	unsigned long long requests; /* requests they carried */
	unsigned long long largest;  /* most requests in one call */
	unsigned long long handoffs; /* leads a commit thread took over */
} rest_commit_stats;

/* Starts `leaders` commit threads, up to that many commits running at
 * once (1..SBX_SERVER_MAX_COMMIT_THREADS, else SBX_EINVAL); srv: whose table
 * handles the jobs hold. */
int rest_commit_new(rest_commit **out, rest_server *srv, int leaders);
/* Wait until no commit is under way or queued; from then on every PUT
 * writes inline (the transport may stop: nothing stays suspended). */
void rest_commit_close(rest_commit *c);
void rest_commit_free(rest_commit *c);
rest_commit_stats rest_commit_get_stats(rest_commit *c);
/* Fill a write's answer from its status; runs on the thread that wrote,
 * so sbx_errmsg() is the status's message. */
typedef void (*rest_answer_fn)(rest_response *rs, int rc);
/* A write's usual answer: 200, or rest_sbx_error. */
void rest_write_answer(rest_response *rs, int rc);
/*
 * Write the mutations ms[0..n) of table t (puts and deletes: no increment,
 * append or check) and answer rs through answer (NULL:
 * rest_write_answer): inline, or together with other requests' (the file
 * comment of commit.c). When it returns with rs->deferred set, the request
 * waits: ms (the array and the mutations) and the table handle t now
 * belong to the commit, which frees them and answers in rq->defer.answer;
 * otherwise the caller keeps both.
 */
void rest_commit_write(rest_request *rq, rest_response *rs, sbx_table *t,
		       sbx_mutation **ms, size_t n, rest_answer_fn answer);

/* ---- open table handles (tables.c) ---------------------------------------- */

struct rest_tables;
int rest_tables_new(struct rest_tables **out);
/* REQUIRES: no handle is still acquired (the server has stopped). */
void rest_tables_free(struct rest_tables *c);
/* Borrow the handle of table `name` (opened on first use, then shared by
 * every worker). Errors: those of sbx_table_open; *out is NULL. Give it
 * back with rest_table_release, once. */
int rest_table_acquire(sbx_table **out, rest_server *srv, const char *name);
/* Give back a handle from rest_table_acquire (NULL ignored). gone: a call
 * on it found the table dropped (SBX_ENOTFOUND): the cached handle is
 * retired so the next request opens the table again. */
void rest_table_release(rest_server *srv, sbx_table *t, bool gone);
/* Retire every cached handle: a table was created or dropped or its schema
 * changed. Handles in use stay valid until released. */
void rest_tables_invalidate(rest_server *srv);
/* Lookups served from the cache and those that opened a handle. */
void rest_tables_stats(rest_server *srv, unsigned long long *hits,
		       unsigned long long *misses);

/* ---- handlers (h_*.c): each fills rs from rq ----------------------------- */

typedef void (*rest_handler)(rest_request *rq, rest_response *rs);

void h_root(rest_request *rq, rest_response *rs);
void h_version(rest_request *rq, rest_response *rs);
void h_cluster_version(rest_request *rq, rest_response *rs);
void h_cluster_status(rest_request *rq, rest_response *rs);
void h_namespaces(rest_request *rq, rest_response *rs);
void h_namespace(rest_request *rq, rest_response *rs);
void h_namespace_tables(rest_request *rq, rest_response *rs);
void h_schema(rest_request *rq, rest_response *rs);
void h_exists(rest_request *rq, rest_response *rs);
void h_regions(rest_request *rq, rest_response *rs);
void h_row(rest_request *rq, rest_response *rs);
void h_multiget(rest_request *rq, rest_response *rs);
void h_scan(rest_request *rq, rest_response *rs);
void h_scanner(rest_request *rq, rest_response *rs);
void h_scanner_id(rest_request *rq, rest_response *rs);

/* Stateful scanner registry (h_scanner.c). */
int rest_scanners_new(struct rest_scanners **out);
void rest_scanners_free(struct rest_scanners *s);
/* Stateful scanners open now. */
size_t rest_scanners_open(struct rest_scanners *s);

/* Shared helpers (h_util.c). The route's table from the handle cache
 * (404 / error reply in rs on failure); give it back with
 * rest_table_release. */
int rest_open_table(sbx_table **out, rest_request *rq, rest_response *rs);
/* Fill read options' columns from rest columns; cols is caller storage. */
void rest_columns_to_sbx(sbx_column *cols, const rest_column *in, size_t n);
/* JSON / XML text helpers. */
int rest_json_string(sbx_buf *out, const char *s, size_t len);
int rest_xml_escape(sbx_buf *out, const char *s, size_t len);
int rest_buf_puts(sbx_buf *out, const char *s);
int64_t rest_now_ms(void);

#endif
