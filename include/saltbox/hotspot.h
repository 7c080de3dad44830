/*
 * saltbox/hotspot.h - hotspot analysis shared by every view of load: the
 * one hotspot verdict (`saltbox keyviz`, /ui, `saltbox regions stats`, the
 * REST cluster status all call sbx_hotspot_compute), the bounded key
 * sampler behind the live heatmap by key, key-bucket labels, and the one
 * heatmap renderer (sbx_heatgrid_svg) that draws both the offline
 * simulation and the live server. Formulas and bounds: docs/hotspots.md.
 *
 * Conventions are those of saltbox/common.h.
 */
#ifndef SALTBOX_HOTSPOT_H
#define SALTBOX_HOTSPOT_H

#include "saltbox/common.h"
#include "saltbox/db.h"
#include "saltbox/keyviz.h"
#include "saltbox/regions.h"
#include "saltbox/rowkey.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------
 * The verdict.
 * ------------------------------------------------------------------- */

typedef enum sbx_hotspot_level {
	SBX_HOTSPOT_IDLE,   /* no load at all */
	SBX_HOTSPOT_EVEN,   /* spread (or a single server: nothing to spread) */
	SBX_HOTSPOT_UNEVEN, /* one server clearly busier, below "hot" */
	SBX_HOTSPOT_HOT,    /* one server does most of the work */
} sbx_hotspot_level;

typedef struct sbx_hotspot {
	sbx_hotspot_level level;
	int servers;          /* N */
	size_t intervals;     /* fixed-width intervals the load came in */
	uint64_t total;       /* all load */
	/* score = N * sum_g max_s L[g][s] / sum_g sum_s L[g][s] over the
	 * groups g of intervals (SBX_HOTSPOT_MIN_GROUP): 1 = even, N = one
	 * server does everything in every group */
	double score;
	double busiest_share; /* score / N: 1/N .. 1 */
	int busiest_server;   /* most load over all intervals; -1 when idle */
	double busiest_server_share; /* its share of the total */
	const char *word;     /* "hot", "uneven", "even", "idle" (static) */
	const char *color;    /* "#d32f2f" red, "#ef6c00" amber, "#2e7d32"
				 green, "#757575" grey (static) */
} sbx_hotspot;

/* The score at or above which the verdict is "hot": min(2, (N + 1) / 2)
 * for N >= 2 servers (never for one server); "uneven" from halfway
 * between 1 and that. Cannot fail. */
SBX_API double sbx_hotspot_hot_score(int servers);

/* Intervals are merged, in order, into groups of at least this many
 * requests per server (10 x N in all); a short last group joins the one
 * before it. */
#define SBX_HOTSPOT_MIN_GROUP 10

/*
 * The verdict over `load[t * servers + s]`: load of server s in interval t,
 * for `intervals` intervals OF FIXED WIDTH (never the display's columns,
 * so the verdict does not change with the resolution drawn). With one
 * interval it is computed from whole totals. Errors: SBX_EINVAL (servers
 * < 1, or load NULL with intervals > 0), SBX_ENOMEM; *out is zeroed,
 * idle, first.
 */
SBX_API int sbx_hotspot_compute(sbx_hotspot *out, const uint64_t *load,
				size_t intervals, int servers);

/* Set level, word and colour from score, servers and total (what
 * sbx_hotspot_compute does last), for a score computed elsewhere, e.g.
 * read back from JSON. Cannot fail. */
SBX_API void sbx_hotspot_classify(sbx_hotspot *h);

/* The verdict of a simulation (`saltbox keyviz`): its score and busiest
 * share over the run's fixed slices (sbx_keyviz_result.score), the busiest
 * server over the whole run, classified as sbx_hotspot_compute does.
 * Cannot fail. */
SBX_API void sbx_keyviz_hotspot(sbx_hotspot *out,
				const sbx_keyviz_result *r);

/*
 * The verdict in words, appended to out, e.g. "hot: server 1 served 100%
 * of the load; hotspot score 4.00 of 4 (1 = even, hot from 2.00)". `server_prefix` names servers ("server " if NULL).
 * Errors: SBX_ENOMEM (out unchanged).
 */
SBX_API int sbx_hotspot_text(sbx_buf *out, const sbx_hotspot *h,
			     const char *server_prefix);

/* ---------------------------------------------------------------------
 * Key-bucket labels.
 * ------------------------------------------------------------------- */

/*
 * Labels for n sorted bucket start keys: the shortest prefix that tells
 * each from its neighbours, never cut mid-field. With a design (may be
 * NULL) that decodes every key, whole fields "f1:f2" up to the first one
 * that differs from a neighbour; otherwise every label is the same number
 * of key bytes (the longest distinguishing prefix, at most 12 bytes),
 * written as HBase prints keys (\xHH escapes). An empty key is "(start)".
 * *out (n strings) is the caller's: sbx_labels_free(). Errors: SBX_ENOMEM;
 * *out NULL.
 */
SBX_API int sbx_key_labels(char ***out, const sbx_bytes *keys, size_t n,
			   const sbx_keydesign *design);
/* NULL is ignored. Cannot fail. */
SBX_API void sbx_labels_free(char **labels, size_t n);

/* ---------------------------------------------------------------------
 * The key sampler (the live heatmap by key).
 * ------------------------------------------------------------------- */

typedef struct sbx_keysampler sbx_keysampler;

typedef struct sbx_keysampler_opts {
	int64_t column_ms; /* time per column, default 1000 */
	int columns;       /* columns kept (a ring), default 600 */
	int samples;       /* reservoir per column, default 128 */
	int key_max;       /* bytes kept of a sampled key, default 48 */
} sbx_keysampler_opts;

/* Defaults as above. Cannot fail. */
SBX_API void sbx_keysampler_opts_init(sbx_keysampler_opts *o);
/* The memory a sampler with these options holds, in bytes, whatever it is
 * fed (everything is allocated by sbx_keysampler_new). Cannot fail. */
SBX_API size_t sbx_keysampler_bound(const sbx_keysampler_opts *o);

/* A sampler (o NULL: defaults). *out is the caller's. Errors: SBX_EINVAL
 * (column_ms < 1, columns 1..100000, samples 1..65536, key_max 1..4096
 * violated), SBX_ENOMEM; *out NULL. */
SBX_API int sbx_keysampler_new(sbx_keysampler **out,
			       const sbx_keysampler_opts *o);
/* NULL is ignored. Cannot fail. */
SBX_API void sbx_keysampler_free(sbx_keysampler *s);
/* Bytes held now (<= sbx_keysampler_bound of its options). Thread-safe.
 * Cannot fail. */
SBX_API size_t sbx_keysampler_memory(const sbx_keysampler *s);

/*
 * Record one access at `now_ms`: a read or a write of `bytes` bytes to
 * row `key`. Exact per-column totals; the key enters the column's
 * reservoir (Vitter's algorithm R, each access of the column kept with
 * equal probability). O(1), no allocation; thread-safe (one mutex).
 * Accesses older than the ring are dropped. Cannot fail.
 */
SBX_API void sbx_keysampler_record(sbx_keysampler *s, int64_t now_ms,
				   const void *key, size_t len, bool write,
				   uint64_t bytes);

/* The heatmap by key of the last `columns` columns up to now_ms. */
typedef struct sbx_keyheat {
	size_t rows, cols;
	int64_t start_ms;     /* start of the first column */
	int64_t column_ms;
	sbx_bytes *starts;    /* rows: first key of each bucket (owned) */
	double *reads, *writes, *bytes; /* [row * cols + col], estimates */
	uint64_t *col_reads, *col_writes, *col_bytes; /* exact, per column */
	size_t distinct;      /* distinct sampled keys the buckets split */
} sbx_keyheat;

/*
 * Equal-count key buckets (at most `rows`, fewer when fewer distinct keys
 * were sampled) over the distinct keys sampled in the window, and per
 * bucket and column the reads, writes and bytes, each sample standing for
 * (column total / column samples) accesses of its kind. Thread-safe.
 * *out is the caller's: sbx_keyheat_free(). Errors: SBX_EINVAL (columns
 * or rows 0, columns above the ring), SBX_ENOMEM; *out NULL.
 */
SBX_API int sbx_keysampler_heat(sbx_keyheat **out, sbx_keysampler *s,
				int64_t now_ms, size_t columns, size_t rows);
/* NULL is ignored. Cannot fail. */
SBX_API void sbx_keyheat_free(sbx_keyheat *h);

/*
 * Sample the row keys of every table of db from now on, whatever the
 * backend: each get, each row a scanner returns, each write that
 * succeeded (bytes: the mutation's or the result's), into one sampler per
 * table with options o (NULL: defaults), created on the table's first
 * open; at most 64 tables are sampled, so memory stays under 64 x
 * sbx_keysampler_bound(o). Call it while no other thread uses db, before
 * opening the tables to sample. Errors: SBX_EINVAL (options out of range,
 * as sbx_keysampler_new; sampling already on), SBX_ENOMEM.
 */
SBX_API int sbx_db_keysample(sbx_db *db, const sbx_keysampler_opts *o);

/*
 * The heatmap by key of `table` over the last `columns` columns up to now
 * (sbx_keysampler_heat). Thread-safe. *out is the caller's. Errors:
 * SBX_EINVAL (sampling off, columns or rows out of range), SBX_ENOTFOUND
 * (the table is not sampled: the 64-table cap), SBX_ENOMEM; *out NULL.
 */
SBX_API int sbx_table_keyheat(sbx_keyheat **out, sbx_db *db,
			      const char *table, size_t columns, size_t rows);

/* ---------------------------------------------------------------------
 * The heatmap renderer (offline keyviz and live /ui).
 * ------------------------------------------------------------------- */

typedef struct sbx_heatgrid {
	const char *title;        /* bold first line (may be NULL) */
	const char *subtitle;     /* small grey line (may be NULL) */
	size_t rows, cols;
	const char *const *labels;     /* rows: key-axis labels */
	const char *const *ranges;     /* rows: hover "[start, end)" */
	const double *values;          /* [row * cols + col]: colour */
	const double *reads, *writes, *bytes; /* hover figures, may be NULL */
	const char *unit;         /* colour scale unit, e.g. "ops per 1 s" */
	const char *time_title;   /* x-axis title */
	int64_t start_ms, column_ms;
	bool live;                /* x labels "-60 s" .. "now", else "+1m00s" */
	const double *boundaries; /* region boundaries as row positions */
	size_t nboundaries;
	const uint64_t *server_load; /* [col * servers + s], may be NULL */
	int servers;
	const char *server_unit;  /* the strip's unit, e.g. "requests" */
	const sbx_hotspot *verdict; /* may be NULL */
	const char *server_prefix;  /* "server " when NULL; "server-" live */
} sbx_heatgrid;

/*
 * The heatmap as an <svg> element (no XML declaration) with id `id`:
 * x = time, y = key buckets labelled on the left under a key-axis title
 * that never overlaps them, each cell's <title> its key range and
 * figures, region boundaries as lines (class "region-boundary"), a colour
 * scale with its unit, the verdict line in its colour (class "verdict",
 * attribute data-verdict) and, if server_load, one strip per server.
 * Errors: SBX_ENOMEM (out unchanged).
 */
SBX_API int sbx_heatgrid_svg(sbx_buf *out, const sbx_heatgrid *g,
			     const char *id);

#ifdef __cplusplus
}
#endif
#endif
