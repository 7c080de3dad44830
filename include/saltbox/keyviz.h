/*
 * saltbox/keyviz.h - the hotspot analyzer: a workload model (or a trace of
 * keys) replayed through a key design onto a MODELLED cluster, and the
 * Key Visualizer-style heatmap of what it did. Format: docs/hotspots.md.
 *
 * The cluster is a pure in-memory model, not RocksDB: N region servers,
 * regions [start, end) that split by HBase's policies at the median key of
 * a sorted sample of their data, and a balancer (region count first, then
 * load). Nothing is stored; only keys, sizes and request counts are kept.
 *
 * Conventions are those of saltbox/common.h. Thread-safety: a parsed
 * sbx_workload is immutable and may be shared; an iterator and a result
 * belong to one thread at a time.
 */
#ifndef SALTBOX_KEYVIZ_H
#define SALTBOX_KEYVIZ_H

#include "saltbox/common.h"
#include "saltbox/regions.h"
#include "saltbox/rowkey.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------
 * Workloads and traces.
 * ------------------------------------------------------------------- */

typedef struct sbx_workload sbx_workload;

/*
 * Parse a workload file (docs/hotspots.md §2). On SBX_EPARSE *line (if not
 * NULL) gets the 1-based line and sbx_errmsg() reads "line L: ...".
 * *out is the caller's: sbx_workload_free(). Errors: SBX_EPARSE (every
 * rejection of the text, semantic ones included), SBX_ENOMEM; *out is
 * NULL and *line 0 unless SBX_EPARSE.
 */
SBX_API int sbx_workload_parse(sbx_workload **out, const char *text, size_t len,
		       int *line);

/*
 * Parse a trace: one operation per line, `[put|get|scan<TAB>]KEY`. KEY is
 * written as HBase prints it (`\xHH` escapes) or, with `hex`, as hex
 * digits. When the trace is replayed through a design, KEY is instead a
 * record: `field=value` pairs separated by spaces. Operations are spaced
 * at `rate_per_s` (<= 0: 1000/s). Lines `region<TAB>KEY` and
 * `split<TAB>KEY` (a region boundary appears) and `merge<TAB>KEY` (one
 * goes), as sbx_db_trace writes them, are the store's real layout, not
 * operations: sbx_workload_cluster_opts then chooses SBX_PRESPLIT_TRACE
 * with splitting disabled. Errors: as sbx_workload_parse (an
 * unknown operation, an empty key, a NUL byte); keys themselves are
 * decoded, and rejected, by the iterator (SBX_EPARSE naming the line).
 */
SBX_API int sbx_trace_parse(sbx_workload **out, const char *text, size_t len,
		    bool hex, double rate_per_s, int *line);

/* NULL is ignored. Cannot fail. */
SBX_API void sbx_workload_free(sbx_workload *w);

/* Whether the workload's keys come from records (a design is needed) or
 * are raw trace keys. A trace of records needs a design too. Cannot fail. */
SBX_API bool sbx_workload_needs_design(const sbx_workload *w);
/* Total operations the workload replays; its label ("" if none, owned).
 * Cannot fail. */
SBX_API uint64_t sbx_workload_ops(const sbx_workload *w);
SBX_API const char *sbx_workload_name(const sbx_workload *w);

typedef enum sbx_op_kind {
	SBX_OP_PUT,
	SBX_OP_GET,
	SBX_OP_SCAN,
} sbx_op_kind;

/* One operation; every pointer is borrowed from the iterator and valid
 * until its next call. */
typedef struct sbx_workload_op {
	sbx_op_kind kind;
	uint64_t index;       /* 0-based position in the workload */
	int64_t time_ms;      /* simulated clock */
	const uint8_t *key;   /* encoded row key (start row for a scan) */
	size_t key_len;
	const sbx_keyvalue *fields; /* the record (NULL for raw keys) */
	size_t nfields;
	uint32_t value_bytes; /* bytes written by a put */
	int line;             /* trace line, 0 for generated workloads */
} sbx_workload_op;

typedef struct sbx_workload_iter sbx_workload_iter;

/*
 * Iterate the workload's operations, keys encoded through `design`
 * (borrowed; NULL for a trace of raw keys). Generation is deterministic:
 * the same workload gives the same operations every time. Errors:
 * SBX_EINVAL (a generated workload without a design, or a design needing a
 * field the workload does not generate), SBX_ENOMEM; *out NULL.
 */
SBX_API int sbx_workload_iter_new(sbx_workload_iter **out, const sbx_workload *w,
			  const sbx_keydesign *design);
/* SBX_OK with *op filled, SBX_ITEROVER at the end, or an error: what
 * sbx_keydesign_encode returns for a record the design rejects (the
 * message names the field and, for traces, the line), SBX_EPARSE for a
 * trace line that is not field=value pairs or a bad raw key, SBX_ENOMEM. */
SBX_API int sbx_workload_iter_next(sbx_workload_iter *it, sbx_workload_op *op);
/* NULL is ignored. Cannot fail. */
SBX_API void sbx_workload_iter_free(sbx_workload_iter *it);

/* ---------------------------------------------------------------------
 * The modelled cluster and the simulation.
 * ------------------------------------------------------------------- */

typedef enum sbx_presplit_kind {
	SBX_PRESPLIT_NONE,
	SBX_PRESPLIT_KEYS,  /* explicit split keys */
	SBX_PRESPLIT_ALGO,  /* RegionSplitter algorithm with a region count */
	SBX_PRESPLIT_SALT,  /* one region per salt bucket of the design */
	SBX_PRESPLIT_TRACE, /* the layout a trace recorded (`region` and
			       `split` lines): its boundaries at the start,
			       its splits and merges where they happened */
} sbx_presplit_kind;

typedef struct sbx_keyviz_opts {
	int servers;              /* modelled region servers, default 4 */
	sbx_split_policy policy;  /* default Stepping, region size 64 MiB */
	sbx_presplit_kind presplit;
	sbx_split_algo algo;      /* PRESPLIT_ALGO */
	int presplit_regions;     /* PRESPLIT_ALGO: region count */
	sbx_bytes *split_keys;    /* PRESPLIT_KEYS: borrowed, sorted */
	size_t nsplit_keys;
	int time_buckets;         /* heatmap columns, default 60 */
	int key_buckets;          /* heatmap rows, default 64 */
	int balance_every;        /* balancer period in time buckets, default 1 */
	/* Called about every 64K operations; may be NULL. */
	void (*progress)(void *ctx, uint64_t done, uint64_t total);
	void *progress_ctx;
	/* The domino effect: at the start of time bucket fail_at (0: never)
	 * the server busiest in the bucket before goes down; its regions go
	 * to the live servers with the fewest regions (HBase's crash
	 * recovery assigns them round-robin), and the balancer then works
	 * over the live servers only. From then on a live server whose
	 * requests in a bucket exceed fail_headroom (default 2) times the
	 * per-server mean of the bucket before the failure is overloaded
	 * and goes down too, at the next bucket. With no server left the
	 * requests are counted as unserved. */
	int fail_at;
	double fail_headroom;
} sbx_keyviz_opts;

/* Defaults as above. Cannot fail. */
SBX_API void sbx_keyviz_opts_init(sbx_keyviz_opts *o);
/* Apply the cluster settings the workload file gives (servers,
 * region_size, flush_size, split_policy, presplit). Split keys stay owned
 * by the workload. Call before overriding with command-line options.
 * Cannot fail. */
SBX_API void sbx_workload_cluster_opts(const sbx_workload *w, sbx_keyviz_opts *o);

/* A region at the end of the run. */
typedef struct sbx_keyviz_region {
	uint8_t *start;     /* empty: start of table */
	size_t start_len;
	uint8_t *end;       /* empty: end of table */
	size_t end_len;
	int server;
	uint64_t size_bytes;
	uint64_t reads, writes; /* requests since the region was born */
	int born;           /* time bucket the region was created in */
	uint64_t *load;     /* requests per time bucket [time_buckets] */
	int *served_by;     /* the server that served those requests, per
			       time bucket (-1: none); NULL when read back
			       from JSON */
} sbx_keyviz_region;

/* What a simulation measured. Plain data, owned by the caller:
 * sbx_keyviz_result_free(). */
typedef struct sbx_keyviz_result {
	char *design;           /* design name ("raw" for raw keys) */
	char *design_text;      /* canonical design text ("" for raw keys) */
	char *workload;         /* workload label */
	int servers;
	int time_buckets;
	int key_buckets;        /* rows actually used (<= requested) */
	int64_t start_ms;       /* simulated clock of the first operation */
	int64_t bucket_ms;      /* simulated time per column */
	uint64_t ops, puts, gets, scans;
	uint64_t requests;      /* region requests (a scan may make many) */
	uint64_t scan_requests; /* requests made by scans */
	uint64_t full_scans;    /* scans the design could not narrow */
	uint64_t splits, moves;
	double avg_key_bytes;
	uint64_t *server_load;  /* [t * servers + s] requests */
	uint64_t *heat;         /* [k * time_buckets + t] requests */
	uint64_t heat_max;
	char **labels;          /* key_buckets labels: start-key prefixes */
	char **bucket_starts;   /* key_buckets start keys, as HBase prints */
	size_t nregions;
	sbx_keyviz_region *regions; /* final regions in key order */
	/* The hotspot score: per time bucket the busiest server's load over
	 * the mean (1 = even, N = all on one), and its share of the bucket's
	 * requests (1/N .. 1), each averaged over buckets weighted by
	 * requests; and the same over the whole run. */
	double score, busiest_share;
	double total_score, total_share;
	/* The domino effect (sbx_keyviz_opts.fail_at): the servers that went
	 * down in order, the time bucket each went down at, the capacity a
	 * server had (requests per bucket), and the requests no server was
	 * left to serve. nfailed 0 without a failure. */
	int nfailed;
	int *failed_server, *failed_at;
	uint64_t fail_capacity, unserved;
	/* A trace's recorded layout replayed (SBX_PRESPLIT_TRACE): region
	 * boundaries at the start, and splits and merges during the run. */
	size_t layout_bounds, layout_splits, layout_merges;
} sbx_keyviz_result;

/*
 * Replay `w` through `design` (NULL only for raw-key traces) on the
 * modelled cluster `o` (NULL: defaults plus the workload's settings).
 * *out is the caller's. Errors: SBX_EINVAL (servers outside 1..1024, time
 * or key buckets outside 1..10000, balance_every < 1, no design for a
 * generated workload, presplit salt with an unsalted design, split keys
 * empty, unsorted or repeated), what the iterator returns, SBX_ENOMEM;
 * *out is NULL on failure.
 */
SBX_API int sbx_keyviz_simulate(sbx_keyviz_result **out, const sbx_workload *w,
			const sbx_keydesign *design, const sbx_keyviz_opts *o);
/* NULL is ignored. Cannot fail. */
SBX_API void sbx_keyviz_result_free(sbx_keyviz_result *r);

/* ---------------------------------------------------------------------
 * Rendering. Each appends to `out`; out is unchanged on failure.
 * ------------------------------------------------------------------- */

/* The heatmap (x = time, y = equal-count key buckets labelled by key
 * prefix, color = requests relative to the maximum) and a per-server
 * strip below it, as a standalone SVG document. Errors: SBX_ENOMEM only. */
SBX_API int sbx_keyviz_svg(sbx_buf *out, const sbx_keyviz_result *r);
/* A self-contained HTML page: a comparison table and one heatmap per
 * result (results are borrowed). Errors: SBX_ENOMEM only. */
SBX_API int sbx_keyviz_html(sbx_buf *out, const sbx_keyviz_result *const *r,
		    size_t n, const char *title);
/* The result as JSON, and back (for `saltbox keyviz render`). Errors:
 * SBX_ENOMEM only (out may then keep the JSON without its final newline);
 * reading back: SBX_EPARSE (bad JSON, with its line, or a field of the
 * wrong shape), SBX_ENOMEM, *out NULL on failure. */
SBX_API int sbx_keyviz_json(sbx_buf *out, const sbx_keyviz_result *r);
SBX_API int sbx_keyviz_result_from_json(sbx_keyviz_result **out, const char *text,
				size_t len);

#ifdef __cplusplus
}
#endif
#endif
