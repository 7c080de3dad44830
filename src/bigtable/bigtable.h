/*
 * bigtable.h - internals of the Cloud Bigtable backend: the table API over
 * Bigtable's gRPC data and table-admin APIs (docs/bigtable.md,
 * ../shared/docs/reference/bigtable.md), with gRPC's C core and protobuf-c
 * messages generated from the .proto files in proto/ at build time. rpc.c owns the
 * channel, calls and the mapping of gRPC statuses to SBX codes; merge.c
 * ReadRows' chunk merger; rowfilter.c the RowFilters the backend builds,
 * prefilter.c the HBase filters Bigtable can also run; admin.c, data.c and
 * scan.c the backend operations; backend.c the ops table and
 * bigtable_connect().
 *
 * Thread-safety: a bt_db may be shared (gRPC channels are thread-safe, each
 * call has its own completion queue); the schema cache has its own lock.
 */
#ifndef SBX_BIGTABLE_BIGTABLE_H
#define SBX_BIGTABLE_BIGTABLE_H

#include "common/buf.h"
#include "model/backend.h"

#include "admin.pb-c.h"
#include "bigtable.pb-c.h"

#include <pthread.h>
#include <stdbool.h>

/* The families of a table as reads need them: VERSIONS and TTL, which
 * Bigtable's lazy GC does not enforce on reads. */
typedef struct bt_schema {
	char *table;
	size_t n;
	sbx_family_desc *families; /* sorted by name */
	struct bt_schema *next;
} bt_schema;

typedef struct bt_db {
	void *channel;       /* grpc_channel */
	char *instance;      /* "projects/P/instances/I" */
	char *target;        /* host:port */
	long timeout_ms;
	size_t max_cell_size; /* as the engine's option (0 = none) */
	int64_t last_ts_ms;   /* the last "latest" timestamp given (lock) */
	pthread_mutex_t lock; /* guards schemas */
	bt_schema *schemas;
} bt_db;

typedef struct bt_table {
	bt_db *db;
	char *name;     /* the HBase name, "t" */
	char *path;     /* "projects/P/instances/I/tables/t" */
} bt_table;

/* ---- rpc.c ---------------------------------------------------------------- */

/* Called with each streamed response, which bt_call frees after fn returns
 * unless fn takes it (sets *msg = NULL); a nonzero return cancels the call
 * and is returned. */
typedef int (*bt_msg_fn)(void *ctx, ProtobufCMessage **msg);

/* One call to `method` (a full path, "/google.bigtable.v2.Bigtable/
 * MutateRow"), routed on `route` ("table_name=..." unencoded value after
 * '='): the request, then every response to fn. Errors map gRPC statuses
 * to SBX codes with the server's message. */
int bt_call(bt_db *db, const char *method, const char *route_key,
	    const char *route_value, const ProtobufCMessage *req,
	    const ProtobufCMessageDescriptor *resp_desc, bt_msg_fn fn,
	    void *ctx);
/* A unary call: *resp (free with protobuf_c_message_free_unpacked) or
 * NULL when resp is NULL. */
int bt_unary(bt_db *db, const char *method, const char *route_key,
	     const char *route_value, const ProtobufCMessage *req,
	     const ProtobufCMessageDescriptor *resp_desc,
	     ProtobufCMessage **resp);
int bt_rpc_open(bt_db *db, const char *target);
void bt_rpc_close(bt_db *db);

/* Messages nested deeper than this in a response are refused. */
#define BT_MAX_NESTING 100
/* A response's bytes as a message of type d (free with
 * protobuf_c_message_free_unpacked), or NULL: malformed (*too_deep false)
 * or with messages nested deeper than BT_MAX_NESTING (*too_deep true).
 * protobuf-c unpacks nested messages by recursion without a limit, so a
 * server's GC rule nested a million deep (a 4 MiB message) would overflow
 * the stack; the nesting is measured first, without recursion. */
ProtobufCMessage *bt_unpack(const ProtobufCMessageDescriptor *d, size_t len,
			    const uint8_t *data, bool *too_deep);

/* ---- MutateRows' streamed answers (data.c) ------------------------------ */

/* The entries of one MutateRows call: Bigtable answers in any number of
 * streamed responses, each naming some entries by their index in the
 * request with a google.rpc.Status. */
typedef struct bt_rows_status {
	size_t n;    /* entries sent */
	int *code;   /* gRPC code per entry; -1 until a response names it */
	char **text; /* the server's message for a failed entry (owned) */
} bt_rows_status;

/* Record one response's entries (an index outside the request is
 * ignored). SBX_ENOMEM only. */
int bt_rows_status_add(bt_rows_status *st,
		       const Sbxbt__MutateRowsResponse *resp);
/* Whether a failed entry may be sent again: UNAVAILABLE, DEADLINE_EXCEEDED
 * and ABORTED, as Google's clients retry them (the backend always sends
 * explicit timestamps, so a SetCell sent twice writes the same cell). */
bool bt_rows_code_retryable(int code);

/* ---- admin.c -------------------------------------------------------------- */

/* "projects/P/instances/I/tables/T" for an HBase name; SBX_EUNSUPPORTED
 * for a namespace other than default. *out is malloc'd. */
int bt_table_path(char **out, bt_db *db, const char *name);
/* The families (VERSIONS, TTL) of `table`, cached; copied into *out. */
int bt_schema_get(bt_db *db, const char *table, sbx_family_desc **out,
		  size_t *n);
/* A GetTable answer's families, sorted by name, with their GC rules read
 * as HBase's VERSIONS, MIN_VERSIONS and TTL (admin.c: gc_read says how a
 * rule HBase cannot hold is read), a family given twice once (the last).
 * *out (n + 1 entries) is the caller's to free. SBX_EREMOTE for a family
 * name HBase cannot hold, SBX_ENOMEM. */
int bt_families_of(const Sbxbta__Table *t, sbx_family_desc **out, size_t *n);
void bt_schema_forget(bt_db *db, const char *table);
void bt_schema_free_all(bt_db *db);

int bt_namespace_create(void *db, const char *ns);
int bt_namespace_drop(void *db, const char *ns);
int bt_namespace_list(char ***out, void *db);
int bt_table_create(void *db, const char *name, const sbx_family_desc *f,
		    size_t n, const sbx_bytes *splits, size_t nsplits);
int bt_table_exists(void *db, const char *name, bool *exists);
int bt_table_describe(sbx_table_info **out, void *db, const char *name);
int bt_table_list(char ***out, void *db);
int bt_table_alter_family(void *db, const char *table,
			  const sbx_family_desc *f);
int bt_table_delete_family(void *db, const char *table, const char *family);
int bt_table_set_enabled(void *db, const char *name, bool enabled);
int bt_table_is_enabled(void *db, const char *name, bool *enabled);
int bt_table_truncate(void *db, const char *name);
int bt_table_drop(void *db, const char *name);
int bt_table_flush(void *db, const char *name);
int bt_table_major_compact(void *db, const char *name);
int bt_table_open(void **out, void *db, const char *name);
void bt_table_close(void *t);
int bt_regions(sbx_region_info **out, size_t *n, void *db, const char *table);
/* SampleRowKeys' answers as they stream in: each message's key (the empty
 * key, the table's end, is left out) appended to keys. SBX_ENOMEM only. */
typedef struct bt_keys {
	sbx_buf *keys;
	size_t n, cap;
} bt_keys;
int bt_sample_add(bt_keys *c, const Sbxbt__SampleRowKeysResponse *r);
void bt_keys_free(bt_keys *c);
/* SampleRowKeys' keys as tablets of `table`: tablet i covers [key i-1,
 * key i), the first from the table's start, the last to its end. Keys out
 * of order or given twice are read sorted, each once (k is left so:
 * sorted, repeats dropped; the caller still frees it). SBX_ENOMEM only. */
int bt_regions_of(sbx_region_info **out, size_t *n, const char *table,
		  bt_keys *k);

/* ---- data.c --------------------------------------------------------------- */

int bt_mutate(void *t, const sbx_mutation *m, sbx_result **out);
int bt_batch(void *t, sbx_mutation *const *ms, size_t n, int *statuses);
int bt_check_and_mutate(void *t, const sbx_check *check, const sbx_mutation *m,
			bool *succeeded, sbx_result **out);
/* ---- rowfilter.c ------------------------------------------------------------ */

/* A filter selecting exactly family:qualifier (anchored, escaped regexes). */
int bt_filter_column(Sbxbt__RowFilter **out, const char *family,
		     const uint8_t *qual, size_t qual_len);
/* A filter selecting exactly `family` (NULL when out of memory). */
Sbxbt__RowFilter *bt_filter_family(const char *family);
void bt_filter_free(Sbxbt__RowFilter *f);
/* An empty RowFilter (NULL when out of memory). */
Sbxbt__RowFilter *bt_filter_new(void);
/* Chain (all) or interleave (any) of v[0..n), taking v's filters; a lone
 * filter stands alone. NULL members (failed allocations) give NULL. */
Sbxbt__RowFilter *bt_filter_combine(bool chain, Sbxbt__RowFilter **v,
				    size_t n);
/* Append an RE2 pattern matching exactly these bytes (Bigtable anchors
 * it), then a NUL (not part of the pattern). SBX_ENOMEM only. */
int bt_regex_exact(sbx_buf *b, const void *p, size_t len);

/* ---- prefilter.c ------------------------------------------------------------ */

/* The part of an HBase filter that Bigtable can apply before the client
 * runs the whole filter: a RowFilter keeping every cell the filter keeps
 * (PrefixFilter, RowFilter / FamilyFilter / QualifierFilter / ValueFilter
 * with EQUAL and a binary or binary-prefix comparator, ColumnPrefixFilter,
 * MultipleColumnPrefixFilter, a lone KeyOnlyFilter, and MUST_PASS_ALL lists
 * of these). *out NULL when nothing maps. SBX_ENOMEM only. */
int bt_prefilter(Sbxbt__RowFilter **out, const sbx_filter *f);

/* ---- scan.c --------------------------------------------------------------- */

/* Read one row with a Bigtable filter (NULL = all cells): fn sees it if
 * any cell survives. */
struct bt_row;
struct bt_merger;
/* Feed one ReadRows response's chunks, in order, to the merger m; each
 * committed row goes to fn. SBX_OK; SBX_EREMOTE with the error set for an
 * invalid stream (m is then unusable); SBX_ENOMEM; or fn's nonzero
 * return. The one path from the wire to the merger (fuzz_bigtable_response
 * drives it with arbitrary responses). */
int bt_read_rows_feed(struct bt_merger *m, const Sbxbt__ReadRowsResponse *resp,
		      int (*fn)(void *ctx, const struct bt_row *row),
		      void *ctx);
int bt_read_row(bt_table *t, const uint8_t *row, size_t row_len,
		Sbxbt__RowFilter *filter,
		int (*fn)(void *ctx, const struct bt_row *row), void *ctx);
int bt_get(sbx_result **out, void *t, const uint8_t *row, size_t row_len,
	   const sbx_read_opts *opts);
int bt_scanner_open(void **out, void *t, const sbx_scan_opts *opts);
int bt_scanner_next(void *s, sbx_result **out);
void bt_scanner_close(void *s);

/* HBase milliseconds to Bigtable microseconds: SBX_EINVAL when it does not
 * fit (ts > INT64_MAX / 1000). */
int bt_ts_micros(int64_t ts_ms, int64_t *out);

#endif
