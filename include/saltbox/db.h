/*
 * saltbox/db.h - opening a database, namespaces, and table administration.
 *
 * Thread-safety: an sbx_db handle is safe to share between threads; every
 * function here may be called concurrently on the same handle. Administrative
 * calls (create, alter, drop, ...) are serialized internally.
 */
#ifndef SALTBOX_DB_H
#define SALTBOX_DB_H

#include "saltbox/common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sbx_db sbx_db;

typedef struct sbx_db_options {
	bool create_if_missing; /* default true */
	bool read_only;         /* default false */
	/* Largest accepted cell value in bytes (hbase.client.keyvalue.maxsize,
	 * default 10 MiB). 0 means no limit. */
	size_t max_cell_size;
	/* Shared block cache in bytes (default 192 MiB). */
	size_t block_cache_bytes;
	/* Row cache in bytes (default 128 MiB; 0 turns it off): the raw cells
	 * of recently read rows, per family, so a repeated get skips RocksDB.
	 * Every write to a cached row merges its cells into the row's entry
	 * before the write returns (a row over 16 KiB a family is not
	 * cached, except that a pile of old versions of a hot column is
	 * cached trimmed to the newest VERSIONS for gets without filter or
	 * time range); reads still apply versions, delete markers, TTL,
	 * time ranges and filters to the cached cells, so results are the
	 * same cached or not. Only gets use it (not scans, nor raw reads); a family with
	 * BLOCKCACHE false stays out of it. Hits and misses are counted per
	 * region (sbx_region_metrics). */
	size_t row_cache_bytes;
	/* Modelled region servers regions are balanced over (default 4). */
	int region_servers;
	/* Width and count of per-region load buckets (default 1000 ms, 600). */
	int64_t metrics_bucket_ms;
	int metrics_buckets;
	/* Route writes and reads through the region map and count per-region
	 * load (default true; false exists to measure what routing costs). */
	bool region_routing;
	/* Record every operation's row key to this file (appended), one line
	 * each as keyviz reads traces: `put|get|scan<TAB>KEY` with KEY as
	 * HBase prints it (\xHH escapes). NULL (default) records nothing.
	 * Scans are recorded by their start row; scans from the table start
	 * are not recorded. The string is copied by sbx_db_open. */
	const char *trace_path;
	/* Free-space floor in bytes (default 256 MiB): writes are refused with
	 * SBX_EIO ("disk full: ...") while the store's file system has less
	 * free, before RocksDB meets a full disk (which Debian's RocksDB does
	 * not survive); reads go on, and writes resume once space is freed.
	 * The floor must hold what RocksDB still writes: memtable flushes (up
	 * to 64 MiB a family) and compactions. 0 turns the check off. */
	uint64_t min_free_bytes;
	/* Read store files through mmap (default false), as LevelDB does on
	 * 64-bit machines: a data block of a family without COMPRESSION is
	 * read where it lies in the OS page cache - no copy into a buffer, no
	 * allocation, no block cache entry (its checksum is still verified on
	 * every read) - which makes gets of a store larger than the block
	 * cache about a third faster (bench/RESULTS.md). The costs: such
	 * blocks bypass the block cache (compressed families, index and filter
	 * blocks still use it), the process's RSS counts the mapped store
	 * pages it touched (the kernel reclaims them as page cache), and an
	 * I/O error on a mapped file ends the process (SIGBUS) where a read
	 * would have returned SBX_EIO. */
	bool mmap_reads;
	/* Write-ahead log kept at most, all tables together (default 256
	 * MiB): past it the families whose unflushed writes hold the oldest
	 * log are flushed so it can be deleted. A table written seldom (or
	 * the store's own bookkeeping) otherwise keeps every log since the
	 * store opened - 1.5 GB after loading a million 10-cell rows - and
	 * the next open replays them all. 0 takes RocksDB's default (4 x the
	 * families' write buffers). */
	uint64_t max_wal_bytes;
} sbx_db_options;

/* Fill *opts with the defaults above. Cannot fail. */
SBX_API void sbx_db_options_init(sbx_db_options *opts);

/*
 * Open (or create) the embedded database in directory `path`. `opts` may be
 * NULL for defaults. On success *out is owned by the caller: sbx_db_close().
 * Errors: SBX_EINVAL (path NULL or empty), SBX_ENOTFOUND (no database there
 * and create_if_missing is false), SBX_EIO (the directory cannot be made,
 * the trace file cannot be opened, RocksDB cannot open: e.g. another
 * process holds it). *out is NULL on failure.
 */
SBX_API int sbx_db_open(sbx_db **out, const char *path, const sbx_db_options *opts);

/*
 * Connect to an HBase REST gateway ("http://host:port": a real HBase
 * cluster's `hbase rest`, or `saltbox serve`) and use it through the same
 * table API. Nothing is sent until the first call; a gateway that cannot be
 * reached then gives SBX_EREMOTE (after 4 attempts, 50/100/200 ms apart)
 * with the URL in the message. If the environment variable SALTBOX_TOKEN is
 * set, every request carries "Authorization: Bearer <token>". The handle
 * keeps a small pool of keep-alive connections and may be shared by threads.
 *
 * What HBase REST cannot express returns SBX_EUNSUPPORTED with the reason:
 * Delete of one version and DeleteFamilyVersion (its DELETE removes all
 * versions <= ts of a column, a family or a row), raw scans, enable/disable,
 * flush, compaction, pre-split, split/merge, split policies, load history,
 * filters made with sbx_filter_new(), reversed scans with a filter, and
 * check-and-put whose puts leave out the checked column. A mutation mixing
 * kinds is sent as one request per kind (increments, appends, deletes,
 * puts, in that order): each is atomic, the whole is not. Truncate is drop
 * and re-create (region boundaries are not kept); drop needs no disable.
 * "bigtable://PROJECT/INSTANCE" connects to Cloud Bigtable instead
 * (docs/bigtable.md; each call's deadline is a minute, or
 * SALTBOX_BIGTABLE_TIMEOUT_MS milliseconds from the environment).
 * Errors: SBX_EINVAL (url NULL, not http:// or https://, or without a
 * host; a SALTBOX_BIGTABLE_TIMEOUT_MS that is not 1..86400000);
 * SBX_EUNSUPPORTED when the program links libsaltbox-engine (the
 * embedded store alone: pkg-config saltbox-engine), which has no client
 * backends; nothing else, as nothing is sent. *out is NULL on failure.
 */
SBX_API int sbx_db_connect(sbx_db **out, const char *url);

/*
 * Record an operation trace of db, whatever its backend: every get and
 * scan, and every write that succeeded, appended to `path` as a line
 * `put|get|scan<TAB>KEY` (KEY as HBase prints bytes) that keyviz replays
 * (`saltbox keyviz simulate -t FILE`); sbx_db_options.trace_path does the
 * same for an embedded store from its open. With the operations go each
 * table's region boundaries where the backend lists regions: a line
 * `region<TAB>KEY` per boundary the first time the trace sees the table,
 * then `split<TAB>KEY` and `merge<TAB>KEY` for boundaries that appeared
 * or went, looked for every 1024 operations on the table (the traced
 * operation's error message is kept). A trace already open is
 * closed; NULL stops tracing. Lines are buffered and best effort: they
 * reach the file by sbx_db_close() at the latest. Call it while no other
 * thread uses db (the operations themselves may then run on any thread).
 * Errors: SBX_EIO when the file cannot be opened (the trace already open,
 * if any, stays).
 */
SBX_API int sbx_db_trace(sbx_db *db, const char *path);

/* Close and free. Tables and scanners opened from db must be closed first.
 * NULL is ignored. Cannot fail. */
SBX_API void sbx_db_close(sbx_db *db);

/* ---- namespaces ---------------------------------------------------------- */

/* Create namespace `ns`. "default" and "hbase" always exist.
 * Errors: SBX_EINVAL (ns NULL, not [A-Za-z0-9_]+ or over 255 bytes),
 * SBX_EEXISTS, backend errors (a read-only embedded database answers
 * SBX_EIO here, from RocksDB, not SBX_EREADONLY). */
SBX_API int sbx_namespace_create(sbx_db *db, const char *ns);
/* Drop an empty namespace.
 * Errors: SBX_EINVAL (bad name as above, or "default" / "hbase"),
 * SBX_ENOTFOUND, SBX_ENOTEMPTY (it holds tables), backend errors (as
 * create on a read-only database). */
SBX_API int sbx_namespace_drop(sbx_db *db, const char *ns);
/* List namespaces in name order. *out is a NULL-terminated array owned by
 * the caller: sbx_strv_free(). Errors: backend errors; *out NULL. */
SBX_API int sbx_namespace_list(char ***out, sbx_db *db);
/* Free a NULL-terminated string array returned by a *_list call (NULL is
 * ignored). Cannot fail. */
SBX_API void sbx_strv_free(char **v);

/* ---- table schema -------------------------------------------------------- */

typedef enum sbx_keep_deleted {
	SBX_KEEP_DELETED_FALSE = 0,
	SBX_KEEP_DELETED_TRUE,
	SBX_KEEP_DELETED_TTL,
} sbx_keep_deleted;

typedef enum sbx_bloom {
	SBX_BLOOM_NONE = 0,
	SBX_BLOOM_ROW,
	SBX_BLOOM_ROWCOL,
} sbx_bloom;

typedef enum sbx_compression {
	SBX_COMPRESSION_NONE = 0,
	SBX_COMPRESSION_SNAPPY,
	SBX_COMPRESSION_LZ4,
	SBX_COMPRESSION_ZSTD,
} sbx_compression;

typedef enum sbx_block_encoding {
	SBX_ENCODING_NONE = 0,
	SBX_ENCODING_PREFIX,
	SBX_ENCODING_DIFF,
	SBX_ENCODING_FAST_DIFF,
	SBX_ENCODING_ROW_INDEX_V1,
} sbx_block_encoding;

#define SBX_MAX_FAMILY_NAME 64

/* A column family and HBase's per-family attributes. */
typedef struct sbx_family_desc {
	char name[SBX_MAX_FAMILY_NAME + 1];
	int max_versions;      /* VERSIONS, default 1 */
	int min_versions;      /* MIN_VERSIONS, default 0 */
	int64_t ttl_seconds;   /* TTL, default SBX_TTL_FOREVER */
	sbx_keep_deleted keep_deleted_cells; /* default FALSE */
	sbx_bloom bloom_filter;              /* default ROW */
	int block_size;                      /* BLOCKSIZE, default 65536 */
	sbx_compression compression;         /* default NONE */
	sbx_block_encoding data_block_encoding; /* default NONE */
	bool in_memory;                      /* IN_MEMORY, default false */
	/* BLOCKCACHE, default true: reads of the family fill the block cache
	 * and gets enter the row cache (sbx_db_options.row_cache_bytes);
	 * false keeps a family that is rarely read twice out of both. */
	bool block_cache;
} sbx_family_desc;

/* Fill *f with HBase's defaults and the given name (NULL: an empty name
 * to fill in later). Errors: SBX_EINVAL for a name HBase rejects (empty,
 * over SBX_MAX_FAMILY_NAME bytes - never silently cut -, starting with
 * '.', holding ':' or a non-printable byte); *f then holds the defaults
 * with an empty name. */
SBX_API int sbx_family_desc_init(sbx_family_desc *f, const char *name);

/* Names of attributes, for describe output, e.g. "ROW", "FAST_DIFF".
 * Static strings; "?" for a value out of range. Cannot fail. */
SBX_API const char *sbx_bloom_name(sbx_bloom b);
SBX_API const char *sbx_compression_name(sbx_compression c);
SBX_API const char *sbx_encoding_name(sbx_block_encoding e);
SBX_API const char *sbx_keep_deleted_name(sbx_keep_deleted k);

/* ---- family attributes as HBase's text --------------------------------------
 *
 * The attributes of sbx_family_desc under HBase's names (VERSIONS,
 * MIN_VERSIONS, TTL, KEEP_DELETED_CELLS, BLOOMFILTER, COMPRESSION,
 * DATA_BLOCK_ENCODING, BLOCKSIZE, IN_MEMORY, BLOCKCACHE) with HBase's spellings of
 * their values, for anything that reads or writes schemas as text: the
 * shell, REST bodies, catalogs, scripts. Names and values match in any
 * case; values come out as HBase prints them. */

/* The kind of value an attribute takes, for typed formats (JSON). */
typedef enum sbx_family_attr_kind {
	SBX_ATTR_INTEGER, /* decimal: VERSIONS, MIN_VERSIONS, TTL, BLOCKSIZE */
	SBX_ATTR_BOOLEAN, /* "true" or "false": IN_MEMORY, BLOCKCACHE */
	SBX_ATTR_NAME,    /* an upper-case name: BLOOMFILTER, COMPRESSION,
			     DATA_BLOCK_ENCODING, KEEP_DELETED_CELLS */
} sbx_family_attr_kind;

/* Room for the longest value text, NUL included. */
#define SBX_FAMILY_ATTR_VALUE_MAX 24

/* One attribute of a family as text. The struct is the caller's; name
 * points to a static string. */
typedef struct sbx_family_attr {
	const char *name;                      /* e.g. "VERSIONS" */
	char value[SBX_FAMILY_ATTR_VALUE_MAX]; /* e.g. "3", "ROW", "true",
						  "2147483647" (TTL in
						  seconds, FOREVER as the
						  number, as HBase stores
						  it) */
	sbx_family_attr_kind kind;
	bool is_default; /* HBase's default (what sbx_family_desc_init sets) */
} sbx_family_attr;

/*
 * Set attribute `attr` of *f from its text `value`, as HBase's shell and
 * REST gateway accept it: "3"; TTL in seconds or "FOREVER"; IN_MEMORY
 * and BLOCKCACHE "true"/"false"; KEEP_DELETED_CELLS "true", "false" or "TTL";
 * BLOOMFILTER NONE, ROW, ROWCOL; COMPRESSION NONE, SNAPPY, LZ4, ZSTD;
 * DATA_BLOCK_ENCODING NONE, PREFIX, DIFF, FAST_DIFF, ROW_INDEX_V1.
 * Each value is checked on its own (VERSIONS >= 1, MIN_VERSIONS >= 0, TTL
 * in [1, 2147483647], BLOCKSIZE in [1024, 16777216]); MIN_VERSIONS <=
 * VERSIONS is checked when the family is created or altered.
 * Errors (f unchanged, sbx_errmsg() says what):
 *   SBX_EINVAL       a bad value, e.g. "TTL must be a number of seconds or
 *                    FOREVER, got 'abc'";
 *   SBX_EUNSUPPORTED an HBase attribute Saltbox does not model
 *                    (REPLICATION_SCOPE, CONFIGURATION, ...),
 *                    which a caller may ignore as HBase scripts set them;
 *   SBX_ENOTFOUND    no such family attribute ("unknown column family
 *                    attribute 'COLOUR'").
 * NAME is not an attribute: the name is sbx_family_desc_init's.
 */
SBX_API int sbx_family_desc_set(sbx_family_desc *f, const char *attr,
				const char *value);

/* Attribute `attr` of f into *out; the errors of sbx_family_desc_set for
 * a name that is not an attribute. */
SBX_API int sbx_family_desc_get(sbx_family_attr *out,
				const sbx_family_desc *f, const char *attr);

/*
 * The i-th attribute of f into *out, for i = 0, 1, ... until SBX_ITEROVER:
 * every attribute, in the order HBase's shell `describe` prints them
 * (BLOOMFILTER, IN_MEMORY, VERSIONS, KEEP_DELETED_CELLS,
 * DATA_BLOCK_ENCODING, COMPRESSION, TTL, MIN_VERSIONS, BLOCKCACHE,
 * BLOCKSIZE). Skip
 * those with is_default to print only what was set. Errors: none;
 * SBX_ITEROVER (not an error) past the last attribute.
 */
SBX_API int sbx_family_desc_attr(sbx_family_attr *out,
				 const sbx_family_desc *f, size_t i);

/* What describe returns. Owned by the caller: sbx_table_info_free(). */
typedef struct sbx_table_info {
	char *name;          /* "ns:table", or "table" in the default namespace */
	bool enabled;
	size_t nfamilies;
	sbx_family_desc *families; /* sorted by name */
} sbx_table_info;

/* NULL is ignored. Cannot fail. */
SBX_API void sbx_table_info_free(sbx_table_info *info);

/*
 * Create table `name` ("table" or "ns:table") with `nfamilies` families.
 * Errors: SBX_EINVAL (bad table/family name, duplicate family, no family,
 * bad attribute, a table in namespace "hbase" (embedded)), SBX_ENOTFOUND
 * (namespace missing), SBX_EEXISTS, SBX_EREADONLY, backend errors.
 *
 * Table names below: SBX_EINVAL for a name HBase rejects (NULL, empty,
 * namespace not [A-Za-z0-9_]+, qualifier not [A-Za-z0-9_.-]+ or starting
 * with '.' or '-', either part over 255 bytes); SBX_ENOTFOUND for a table
 * that does not exist. SBX_EREADONLY: a database opened read_only
 * (embedded) or a gateway that refuses writes.
 */
SBX_API int sbx_table_create(sbx_db *db, const char *name,
		     const sbx_family_desc *families, size_t nfamilies);

/* Errors: SBX_EINVAL (bad name), backend errors; a missing table (or
 * namespace) is *exists = false, not an error. *exists is false on
 * failure. */
SBX_API int sbx_table_exists(bool *exists, sbx_db *db, const char *name);
/* The schema. Errors: SBX_EINVAL, SBX_ENOTFOUND, backend errors. */
SBX_API int sbx_table_describe(sbx_table_info **out, sbx_db *db, const char *name);
/* All tables (every namespace), sorted, as "ns:t" except the default
 * namespace which is bare. NULL-terminated; sbx_strv_free().
 * Errors: backend errors. */
SBX_API int sbx_table_list(char ***out, sbx_db *db);

/* Add a family, or modify an existing one (matched by name).
 * Errors: SBX_EINVAL (bad table name or family description, as create),
 * SBX_ENOTFOUND, SBX_EREADONLY, backend errors. */
SBX_API int sbx_table_alter_family(sbx_db *db, const char *table,
			   const sbx_family_desc *family);
/* Remove a family and its data. Errors: SBX_EINVAL (bad names; the last
 * family cannot be removed), SBX_ENOTFOUND, SBX_ENOFAMILY, SBX_EREADONLY,
 * backend errors. */
SBX_API int sbx_table_delete_family(sbx_db *db, const char *table, const char *family);

/* Errors: SBX_EINVAL (bad name), SBX_ENOTFOUND, SBX_EREADONLY, backend
 * errors; disable of a disabled table is SBX_EDISABLED, enable of an
 * enabled one SBX_EINVAL. Remote: SBX_EUNSUPPORTED (REST cannot). */
SBX_API int sbx_table_disable(sbx_db *db, const char *name);
SBX_API int sbx_table_enable(sbx_db *db, const char *name);
/* Errors: SBX_EINVAL, SBX_ENOTFOUND, backend errors; *enabled is false on
 * failure. */
SBX_API int sbx_table_is_enabled(bool *enabled, sbx_db *db, const char *name);
/* Remove all data, keep the schema (HBase truncate). Table must exist.
 * Errors: SBX_EINVAL, SBX_ENOTFOUND, SBX_EREADONLY, backend errors. */
SBX_API int sbx_table_truncate(sbx_db *db, const char *name);
/* Drop a table; as HBase, it must be disabled first (SBX_ENOTDISABLED;
 * the remote backend's gateway disables it itself). Errors: SBX_EINVAL,
 * SBX_ENOTFOUND, SBX_ENOTDISABLED, SBX_EREADONLY, backend errors. */
SBX_API int sbx_table_drop(sbx_db *db, const char *name);

/* ---- maintenance --------------------------------------------------------- */

/* Flush memstores (RocksDB memtables) of the table to store files.
 * Errors (this and major_compact): SBX_EINVAL, SBX_ENOTFOUND,
 * SBX_EREADONLY (embedded read_only), SBX_EIO; remote: SBX_EUNSUPPORTED. */
SBX_API int sbx_table_flush(sbx_db *db, const char *name);
/* Major compaction: rewrite all store files, dropping deleted, expired and
 * excess versions and the markers that may go. Errors: as flush. */
SBX_API int sbx_table_major_compact(sbx_db *db, const char *name);

/* ---- snapshots (HBase's snapshot, list_snapshots, clone_snapshot,
 * restore_snapshot, delete_snapshot) ---------------------------------------
 *
 * A snapshot keeps one table as it was at one moment: its families with
 * their attributes, its region boundaries and every cell, delete markers
 * included. It lives in the database directory (snapshots/NAME: a RocksDB
 * checkpoint, so files are hard-linked, not copied). Snapshot names follow
 * HBase's rules for a table qualifier ([A-Za-z0-9_.-], not starting with
 * '.' or '-'). The remote backend returns SBX_EUNSUPPORTED: HBase's REST
 * gateway has no snapshot endpoints. Thread-safe, like every admin call.
 * Every call below may also return SBX_EINVAL (a bad table or snapshot
 * name), SBX_EIO, and (but list) SBX_EREADONLY on a read_only database. */

typedef struct sbx_snapshot_info {
	char *name;
	char *table;        /* the table it was taken of */
	int64_t created_ms; /* when, in ms since the epoch */
} sbx_snapshot_info;

/* Snapshot `table` (enabled or disabled) as `snapshot`. Errors:
 * SBX_EEXISTS (name taken), SBX_ENOTFOUND (no such table). */
SBX_API int sbx_snapshot_create(sbx_db *db, const char *table, const char *snapshot);
/* Every snapshot, sorted by name; *out is owned by the caller:
 * sbx_snapshot_infos_free(). Errors: as above; *out NULL, *n 0. */
SBX_API int sbx_snapshot_list(sbx_snapshot_info **out, size_t *n, sbx_db *db);
/* NULL is ignored. Cannot fail. */
SBX_API void sbx_snapshot_infos_free(sbx_snapshot_info *v, size_t n);
/* A new table `table` with the snapshot's schema, regions and cells (the
 * cells are copied). Errors: SBX_ENOTFOUND (no such snapshot, or the
 * table's namespace), SBX_EEXISTS (the table exists). */
SBX_API int sbx_snapshot_clone(sbx_db *db, const char *snapshot, const char *table);
/* Put the snapshot's table back as it was: it must be disabled, as HBase
 * requires, and stays disabled (enable it to use it); a table that no
 * longer exists is recreated, as HBase's restore clones it. Errors:
 * SBX_ENOTFOUND (no such snapshot), SBX_ENOTDISABLED (table enabled). */
SBX_API int sbx_snapshot_restore(sbx_db *db, const char *snapshot);
/* Delete a snapshot (tables cloned from it keep their cells). Errors:
 * SBX_ENOTFOUND (no such snapshot). */
SBX_API int sbx_snapshot_delete(sbx_db *db, const char *snapshot);

#ifdef __cplusplus
}
#endif
#endif
