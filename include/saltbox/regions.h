/*
 * saltbox/regions.h - regions, split policies, the modelled cluster and
 * per-region metrics.
 *
 * Each table is range-partitioned into regions [start, end) kept in the
 * catalog, as HBase's hbase:meta. On the embedded backend all regions of a
 * table share its RocksDB column families, so splitting and merging move no
 * data: they change the region map. Regions are assigned to N *modelled*
 * region servers by a balancer in the spirit of HBase's (region count
 * first, then load) so a single-process store can tell what its load would
 * look like on a cluster. It is a model; nothing runs on other machines.
 *
 * Thread-safety: every call may run concurrently with reads and writes on
 * the same database.
 *
 * Errors common to the calls taking a table name: SBX_EINVAL (bad table
 * name, as db.h), SBX_ENOTFOUND (no such table), backend errors. The
 * remote backend lists regions but returns SBX_EUNSUPPORTED for pre-split,
 * split, merge, split policies and load history (HBase REST has no
 * endpoint for them).
 */
#ifndef SALTBOX_REGIONS_H
#define SALTBOX_REGIONS_H

#include "saltbox/db.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A byte string argument. */
typedef struct sbx_bytes {
	const void *data;
	size_t len;
} sbx_bytes;

/* HBase's split policies (hbase-semantics.md §3.1). */
typedef enum sbx_split_policy_kind {
	SBX_SPLIT_STEPPING = 0, /* default: 2 x flush size while the server
				   holds one region of the table, else max */
	SBX_SPLIT_CONSTANT_SIZE,
	SBX_SPLIT_INCREASING_TO_UPPER_BOUND,
	SBX_SPLIT_KEY_PREFIX,           /* split point cut to prefix_length */
	SBX_SPLIT_DELIMITED_KEY_PREFIX, /* cut at the first delimiter */
	SBX_SPLIT_DISABLED,             /* no automatic or manual splits */
} sbx_split_policy_kind;

typedef struct sbx_split_policy {
	sbx_split_policy_kind kind;
	uint64_t max_file_size;   /* hbase.hregion.max.filesize, default 10 GiB */
	uint64_t flush_size;      /* memstore flush size, default 128 MiB */
	size_t prefix_length;     /* KEY_PREFIX */
	char delimiter;           /* DELIMITED_KEY_PREFIX */
} sbx_split_policy;

/* The defaults in the comments above. Cannot fail. */
SBX_API void sbx_split_policy_init(sbx_split_policy *p);
/* Size at which a region splits under policy p when the region's server
 * hosts `regions_on_server` regions of the table (HBase's formulas,
 * without jitter). UINT64_MAX when the policy never splits. Cannot fail. */
SBX_API uint64_t sbx_split_threshold(const sbx_split_policy *p, int regions_on_server);

/* Pre-split algorithms (RegionSplitter): fill *out with n - 1 split keys for
 * n regions. Keys are owned by *out: sbx_split_keys_free(). */
typedef enum sbx_split_algo {
	SBX_SPLITALGO_HEX_STRING,     /* "00000000".."FFFFFFFF" (lowercase) */
	SBX_SPLITALGO_DECIMAL_STRING, /* "00000000".."99999999" */
	SBX_SPLITALGO_UNIFORM,        /* raw bytes 00..FF x 8 */
} sbx_split_algo;

typedef struct sbx_split_keys {
	sbx_bytes *keys;
	size_t n;
} sbx_split_keys;

/* Errors: SBX_EINVAL (nregions outside [2, 65536]); *out is empty (keys
 * NULL, n 0) on failure. */
SBX_API int sbx_split_keys_compute(sbx_split_keys *out, sbx_split_algo algo,
			   int nregions);
/* Free the keys and empty *k (NULL is ignored). Cannot fail. */
SBX_API void sbx_split_keys_free(sbx_split_keys *k);

/* Create a table pre-split at `splits` (sorted, distinct, non-empty).
 * Errors: as sbx_table_create, and SBX_EINVAL for splits NULL with
 * nsplits > 0 or a key empty, over SBX_MAX_ROW_LENGTH (SBX_EINVAL here,
 * where sbx_table_split says SBX_ETOOLARGE), unsorted or repeated;
 * remote: SBX_EUNSUPPORTED when nsplits > 0. */
SBX_API int sbx_table_create_presplit(sbx_db *db, const char *name,
			      const sbx_family_desc *families, size_t nfamilies,
			      const sbx_bytes *splits, size_t nsplits);

/* Errors: the common ones, SBX_EINVAL (unknown kind, max_file_size or
 * flush_size 0, KEY_PREFIX with prefix_length 0), SBX_EREADONLY. */
SBX_API int sbx_table_set_split_policy(sbx_db *db, const char *table,
			       const sbx_split_policy *p);
/* Errors: the common ones; *p is unchanged on failure. */
SBX_API int sbx_table_get_split_policy(sbx_split_policy *p, sbx_db *db,
			       const char *table);

/* Cumulative per-region counters, HBase's RegionMetrics names. A get
 * counts at once; a scan's rows are added when the scan moves to another
 * region, when the load bucket's second changes, and when the scanner is
 * closed (so an open, idle scanner's rows are not in them yet). */
typedef struct sbx_region_metrics {
	uint64_t read_request_count;
	uint64_t write_request_count;
	uint64_t filtered_read_request_count;
	uint64_t read_bytes;
	uint64_t write_bytes;
	uint64_t cells_written;
	uint64_t store_file_size;   /* bytes on disk (RocksDB estimate) */
	uint64_t memstore_size;     /* bytes written but not flushed (estimate) */
	/* Gets answered from the row cache, and gets that read RocksDB
	 * while the cache could have held the row (sbx_db_options
	 * .row_cache_bytes); 0 on backends without one. */
	uint64_t row_cache_hits;
	uint64_t row_cache_misses;
} sbx_region_metrics;

typedef struct sbx_region_info {
	char *name;          /* "table,start,id.encoded." as hbase:meta */
	char encoded[33];    /* MD5 hex of the rest, as HBase */
	uint64_t id;         /* creation time in ms */
	uint8_t *start_key;  /* empty = start of table */
	size_t start_len;
	uint8_t *end_key;    /* empty = end of table */
	size_t end_len;
	int server;          /* modelled region server, 0..servers-1 */
	sbx_region_metrics metrics;
} sbx_region_info;

/* The table's regions in key order. Owned by the caller. Errors: the
 * common ones. */
SBX_API int sbx_table_regions(sbx_region_info **out, size_t *n, sbx_db *db,
		      const char *table);
/* NULL is ignored. Cannot fail. */
SBX_API void sbx_region_infos_free(sbx_region_info *r, size_t n);

/* Split the region containing `row` at `split_key` (len 0: at the midpoint
 * of the region's data). Errors: the common ones, SBX_ETOOLARGE (key over
 * SBX_MAX_ROW_LENGTH), SBX_EINVAL (key already a boundary, a
 * DisabledRegionSplitPolicy table, no region with enough rows for a
 * midpoint), SBX_EREADONLY. */
SBX_API int sbx_table_split(sbx_db *db, const char *table, const void *split_key,
		    size_t split_key_len);
/* Merge the region starting at `start_key` with the region after it.
 * Errors: the common ones, SBX_EINVAL (no region starts there or it is the
 * last), SBX_EREADONLY. */
SBX_API int sbx_table_merge(sbx_db *db, const char *table, const void *start_key,
		    size_t start_key_len);

/* Load over time: per region, per time bucket. */
typedef struct sbx_load_bucket {
	int64_t start_ms;
	uint64_t reads, writes, read_bytes, write_bytes;
} sbx_load_bucket;

typedef struct sbx_region_load {
	uint8_t *start_key;
	size_t start_len;
	uint8_t *end_key;
	size_t end_len;
	int server;
	size_t nbuckets;
	sbx_load_bucket *buckets; /* oldest first */
} sbx_region_load;

/* The last `nbuckets` buckets (bucket width: sbx_db_options.metrics_bucket_ms)
 * of every region of the table. Owned by the caller. Errors: the common
 * ones, SBX_EINVAL (nbuckets 0). */
SBX_API int sbx_table_load(sbx_region_load **out, size_t *n, sbx_db *db,
		   const char *table, size_t nbuckets);
/* NULL is ignored. Cannot fail. */
SBX_API void sbx_region_loads_free(sbx_region_load *l, size_t n);

/* The modelled cluster: number of region servers (default 4), 0 when the
 * backend has no regions capability. Cannot fail: remote, the live servers
 * of /status/cluster (at least 1), 0 when the gateway cannot be read. */
SBX_API int sbx_db_region_servers(sbx_db *db);

#ifdef __cplusplus
}
#endif
#endif
