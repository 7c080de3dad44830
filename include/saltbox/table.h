/*
 * saltbox/table.h - the table API: mutations, get and scan, with HBase's
 * semantics. This is the interface every higher layer (row-key toolkit,
 * transactions, datastore, server) uses, so it behaves the same on the
 * embedded and the remote backend.
 *
 * Thread-safety: an sbx_table handle may be shared between threads. An
 * sbx_mutation, sbx_result or sbx_scanner belongs to one thread at a time.
 */
#ifndef SALTBOX_TABLE_H
#define SALTBOX_TABLE_H

#include "saltbox/common.h"
#include "saltbox/db.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sbx_table sbx_table;
typedef struct sbx_mutation sbx_mutation;
typedef struct sbx_result sbx_result;
typedef struct sbx_scanner sbx_scanner;
typedef struct sbx_filter sbx_filter; /* see saltbox/filter.h */

/* Open a handle on table `name`. The handle borrows db, which must outlive
 * it. Free with sbx_table_close(). Errors: SBX_EINVAL (bad table name, as
 * db.h), SBX_ENOTFOUND (no such table), backend errors; *out is NULL. */
SBX_API int sbx_table_open(sbx_table **out, sbx_db *db, const char *name);
/* NULL is ignored. Cannot fail. */
SBX_API void sbx_table_close(sbx_table *t);
/* The table's name as given to open. Owned by the handle. Cannot fail. */
SBX_API const char *sbx_table_name(const sbx_table *t);

/* ---- mutations ------------------------------------------------------------ */

/* Durability of a mutation, as HBase's Durability. */
typedef enum sbx_durability {
	SBX_DURABILITY_DEFAULT = 0, /* = SYNC_WAL */
	SBX_DURABILITY_SKIP_WAL,    /* no WAL: lost on crash until flushed */
	SBX_DURABILITY_ASYNC_WAL,   /* WAL written, not synced */
	SBX_DURABILITY_SYNC_WAL,    /* WAL written to the OS before ack */
	SBX_DURABILITY_FSYNC_WAL,   /* WAL fsynced before ack */
} sbx_durability;

/*
 * A set of changes to one row, applied atomically by sbx_table_mutate().
 * Puts and deletes become new cells; increments and appends read the row
 * under its lock and write the new value. The builder copies every argument.
 *
 * Errors of sbx_mutation_new: SBX_EINVAL (row NULL or empty), SBX_ETOOLARGE
 * (row over SBX_MAX_ROW_LENGTH); *out is NULL. The builder's calls below
 * return SBX_EINVAL for a family that is NULL or not a valid family name,
 * a NULL qualifier or value with a non-zero length, or a negative
 * timestamp, and leave m as it was. Whether the table has the family is
 * checked by sbx_table_mutate (SBX_ENOFAMILY).
 */
SBX_API int sbx_mutation_new(sbx_mutation **out, const void *row, size_t row_len);
/* NULL is ignored. Cannot fail. */
SBX_API void sbx_mutation_free(sbx_mutation *m);
/* Cannot fail. */
SBX_API void sbx_mutation_set_durability(sbx_mutation *m, sbx_durability d);

/* Put a cell. ts = SBX_LATEST_TIMESTAMP lets the server assign it.
 * Errors: SBX_EINVAL, as above. */
SBX_API int sbx_mutation_put(sbx_mutation *m, const char *family, const void *qualifier,
		     size_t qualifier_len, int64_t ts, const void *value,
		     size_t value_len);

/*
 * Delete markers, as HBase's Delete builder:
 *  - SBX_CELL_DELETE (addColumn): one version of family:qualifier at ts; with
 *    ts = SBX_LATEST_TIMESTAMP the newest version is looked up and deleted.
 *  - SBX_CELL_DELETE_COLUMN (addColumns): all versions <= ts.
 *  - SBX_CELL_DELETE_FAMILY (addFamily): all columns of the family <= ts
 *    (qualifier ignored).
 *  - SBX_CELL_DELETE_FAMILY_VERSION (addFamilyVersion): all columns of the
 *    family with exactly ts (ts required).
 * Errors: SBX_EINVAL as above, and for a type that is not one of these or a
 * DELETE_FAMILY_VERSION at SBX_LATEST_TIMESTAMP.
 */
SBX_API int sbx_mutation_delete(sbx_mutation *m, sbx_cell_type type,
			const char *family, const void *qualifier,
			size_t qualifier_len, int64_t ts);
/* Whole-row delete (new Delete(row, ts)): a DeleteFamily in every family.
 * Errors: SBX_EINVAL (negative ts). */
SBX_API int sbx_mutation_delete_row(sbx_mutation *m, int64_t ts);
/* Add `delta` to an 8-byte big-endian counter (missing = 0). Errors:
 * SBX_EINVAL, as above (a stored value that is not 8 bytes is SBX_EBADVALUE
 * from sbx_table_mutate). */
SBX_API int sbx_mutation_increment(sbx_mutation *m, const char *family,
			   const void *qualifier, size_t qualifier_len,
			   int64_t delta);
/* Append bytes to the current value (missing = empty). Errors: SBX_EINVAL,
 * as above. */
SBX_API int sbx_mutation_append(sbx_mutation *m, const char *family,
			const void *qualifier, size_t qualifier_len,
			const void *value, size_t value_len);

/*
 * Apply all changes of `m` atomically: readers see all or none of them.
 * When m holds increments or appends and out_result is not NULL, *out_result
 * receives the new cells (caller frees with sbx_result_free()).
 * Nothing is written if any part is invalid.
 *
 * Errors: SBX_EINVAL (m NULL or empty), SBX_ENOTFOUND (table dropped since
 * it was opened), SBX_EDISABLED, SBX_ENOFAMILY, SBX_ETOOLARGE (a cell, or
 * an append's result, over max_cell_size), SBX_EBADVALUE (increment of a
 * value that is not 8 bytes), SBX_EREADONLY, backend errors. Remote:
 * SBX_EUNSUPPORTED for a Delete of one version, a DeleteFamilyVersion, or
 * a delete of a row whose key would name another REST resource; the
 * gateway decides SBX_ETOOLARGE. *out_result is NULL on failure.
 */
SBX_API int sbx_table_mutate(sbx_result **out_result, sbx_table *t,
		     const sbx_mutation *m);

/*
 * Apply n mutations (HBase Table.batch): each row atomically, not across
 * rows. statuses (may be NULL) receives one status per mutation. Returns
 * SBX_OK if all succeeded, else the first error. Errors: as
 * sbx_table_mutate, per mutation; a NULL or empty mutation anywhere is
 * SBX_EINVAL for every status and nothing is applied.
 */
SBX_API int sbx_table_batch(int *statuses, sbx_table *t, sbx_mutation *const *ms,
		    size_t n);

/*
 * A check for check-and-mutate: compares the newest visible value of
 * family:qualifier. HBase's operand order: op applies as `value OP stored`,
 * so SBX_CMP_GREATER passes when `value` is greater than the stored value.
 * value == NULL means "the column is absent" (ifNotExists).
 */
typedef struct sbx_check {
	const char *family;
	const void *qualifier;
	size_t qualifier_len;
	sbx_compare_op op;
	const void *value; /* NULL = absent */
	size_t value_len;
} sbx_check;

/* Atomically: if the check passes, apply m (same row as the check, else
 * SBX_EINVAL). *succeeded tells whether it was applied; a failing check is
 * SBX_OK with *succeeded false. Errors: SBX_EINVAL (bad row, m NULL or
 * empty or for another row, check NULL, bad check family, op out of
 * range), SBX_ETOOLARGE (row), SBX_ENOFAMILY (check's or m's family), and
 * as sbx_table_mutate. Remote: SBX_EUNSUPPORTED (NO_OP, puts that leave out
 * the checked column, anything but only puts or only deletes),
 * SBX_ECONFLICT (an operator other than EQUAL runs as read, decide and
 * compare-and-set, and gives up when the value keeps changing).
 * *succeeded is false and *out_result NULL on failure. */
SBX_API int sbx_table_check_and_mutate(bool *succeeded, sbx_result **out_result,
			       sbx_table *t, const void *row, size_t row_len,
			       const sbx_check *check, const sbx_mutation *m);

/* One row of sbx_db_check_and_mutate_rows(): a check, a mutation, or both,
 * on (table, row). The mutation's row must be `row`. */
typedef struct sbx_row_change {
	sbx_table *table;
	const void *row;
	size_t row_len;
	const sbx_check *check;	      /* NULL: no condition on this row */
	const sbx_mutation *mutation; /* NULL: the row is only checked */
} sbx_row_change;

/* Most rows one sbx_db_check_and_mutate_rows() call takes. */
#define SBX_MAX_ROW_CHANGES 4096

/*
 * Atomic conditional write across rows and tables of one database, the
 * analogue of HBase's MultiRowMutationEndpoint with conditions (its
 * coprocessor mutates several rows of one region atomically; this call is
 * not limited to one region or one table). Every check of rows[0..n) is
 * evaluated and, if all pass, every mutation is applied as one atomic
 * write: a reader, and a crash, sees all of them or none. A failing check
 * is SBX_OK with *succeeded false and *failed the index of the first
 * failing row (in the caller's order); nothing is written. On success
 * *failed is SIZE_MAX. Checks compare as sbx_table_check_and_mutate's;
 * each row appears at most once. Optional: the embedded backend implements
 * it (row locks taken in one global order, then one RocksDB write batch);
 * the remote (HBase REST) and Bigtable backends answer SBX_EUNSUPPORTED,
 * as HBase's REST gateway has no such endpoint. Thread-safe as the other
 * data calls. Errors: SBX_EINVAL (n == 0, rows NULL, a row without a
 * table, a bad or empty row key, neither check nor mutation, an empty
 * mutation or one for another row, a check without a family or with a bad
 * operator, tables of different databases, the same row twice),
 * SBX_ETOOLARGE (n over SBX_MAX_ROW_CHANGES, a row key too long),
 * SBX_EUNSUPPORTED (the backend cannot), SBX_ENOTFOUND, SBX_EDISABLED,
 * SBX_ENOFAMILY (a check's or mutation's family), and those of
 * sbx_table_mutate. On any error nothing is written, *succeeded is false
 * and *failed SIZE_MAX.
 */
SBX_API int sbx_db_check_and_mutate_rows(bool *succeeded, size_t *failed,
					 sbx_db *db, const sbx_row_change *rows,
					 size_t n);

/* ---- results ------------------------------------------------------------- */

/* The cells of one row (or of part of a row when a scan uses batch), in
 * HBase order. Owned by the caller: sbx_result_free(). Cannot fail (none
 * of the calls on a result): a NULL result reads as empty. */
SBX_API size_t sbx_result_size(const sbx_result *r);
/* Cell i (0 <= i < size; else NULL). The view is valid until the result is
 * freed. Cannot fail. */
SBX_API const sbx_cell *sbx_result_cell(const sbx_result *r, size_t i);
/* All cells as one array of *n (HBase's Result.rawCells()), or NULL with *n
 * 0 for an empty result. Valid until the result is freed. Cannot fail. */
SBX_API const sbx_cell *sbx_result_cells(const sbx_result *r, size_t *n);
/* The row key, or NULL with *len 0 for an empty result. Cannot fail. */
SBX_API const uint8_t *sbx_result_row(const sbx_result *r, size_t *len);
/* The newest value of family:qualifier in the result, or NULL. Cannot
 * fail. */
SBX_API const sbx_cell *sbx_result_get(const sbx_result *r, const char *family,
			       const void *qualifier, size_t qualifier_len);
/* NULL is ignored. Cannot fail. */
SBX_API void sbx_result_free(sbx_result *r);

/* ---- reads ---------------------------------------------------------------- */

/* A column selector: a whole family (qualifier == NULL) or one column. */
typedef struct sbx_column {
	const char *family;
	const void *qualifier;
	size_t qualifier_len;
} sbx_column;

/* Options shared by get and scan. Initialise with sbx_read_opts_init(). */
typedef struct sbx_read_opts {
	const sbx_column *columns; /* NULL = all families */
	size_t ncolumns;
	int max_versions; /* default 1; 0 or less = all versions */
	int64_t min_ts;   /* time range [min_ts, max_ts), default [0, INT64_MAX) */
	int64_t max_ts;
	bool raw;         /* show delete markers and deleted cells (scan only) */
	sbx_filter *filter; /* borrowed for the duration of the read, may be NULL */
} sbx_read_opts;

/* Cannot fail. */
SBX_API void sbx_read_opts_init(sbx_read_opts *o);

/* Get one row. *out is an empty result (size 0) if nothing matches.
 * Errors: SBX_EINVAL (row NULL or empty; read options: min_ts < 0, max_ts <
 * min_ts, columns NULL with ncolumns > 0, a bad family name, raw with a
 * qualifier), SBX_ETOOLARGE (row), SBX_ENOTFOUND (table dropped),
 * SBX_EDISABLED, SBX_ENOFAMILY (a selected family the table lacks),
 * backend errors. Remote: SBX_EUNSUPPORTED (raw, or a filter made with
 * sbx_filter_new()). *out is NULL on failure. */
SBX_API int sbx_table_get(sbx_result **out, sbx_table *t, const void *row,
		  size_t row_len, const sbx_read_opts *opts);

/* Get n rows; out[i] receives the result for rows[i]. Errors: as
 * sbx_table_get for the first row that fails; then every out[i] is NULL. */
SBX_API int sbx_table_get_many(sbx_result **out, sbx_table *t,
		       const void *const *rows, const size_t *row_lens,
		       size_t n, const sbx_read_opts *opts);

typedef struct sbx_scan_opts {
	sbx_read_opts read;
	/* Bounds. Forward: start is the low bound (inclusive by default), stop
	 * the high bound (exclusive by default). Reversed (HBase order): start
	 * is the HIGH bound, stop the LOW bound. Empty = table start/end. */
	const void *start_row;
	size_t start_row_len;
	bool start_inclusive; /* default true */
	const void *stop_row;
	size_t stop_row_len;
	bool stop_inclusive;  /* default false */
	bool reversed;
	int64_t limit;  /* rows, 0 = no limit */
	int batch;      /* max cells per result, 0 = whole rows */
	int caching;    /* rows fetched per round trip (remote), 0 = default */
} sbx_scan_opts;

/* Cannot fail. */
SBX_API void sbx_scan_opts_init(sbx_scan_opts *o);
/* Set start/stop for a prefix scan as Scan.setStartStopRowForPrefixScan. The
 * computed stop row is written to `stop_buf` (caller-provided, at least
 * prefix_len bytes); o then points at `prefix` and `stop_buf`, so both must
 * stay valid until sbx_scanner_open() returns, which copies the bounds.
 * Cannot fail. */
SBX_API void sbx_scan_opts_set_prefix(sbx_scan_opts *o, const void *prefix,
			      size_t prefix_len, uint8_t *stop_buf);

/* Open a scanner. opts is copied (bound bytes too); filter stays borrowed.
 * Errors: SBX_EINVAL (read options as sbx_table_get; limit, batch or
 * caching negative; batch with a filter that needs whole rows),
 * SBX_ETOOLARGE (a bound over SBX_MAX_ROW_LENGTH), SBX_ENOTFOUND,
 * SBX_EDISABLED, SBX_ENOFAMILY, backend errors. Remote: SBX_EUNSUPPORTED
 * (raw; a filter made with sbx_filter_new(); a reversed scan with a
 * filter). *out is NULL on failure. */
SBX_API int sbx_scanner_open(sbx_scanner **out, sbx_table *t, const sbx_scan_opts *opts);
/* Next result: SBX_OK with *out set (caller frees), SBX_ITEROVER at the end,
 * or an error: SBX_ENOTFOUND / SBX_EDISABLED (embedded: the table was
 * dropped or disabled since), backend errors, or what a scanner made with
 * sbx_scanner_new returns. *out is NULL unless SBX_OK. */
SBX_API int sbx_scanner_next(sbx_scanner *s, sbx_result **out);
/* NULL is ignored. Cannot fail. */
SBX_API void sbx_scanner_close(sbx_scanner *s);

/*
 * Implementing a scanner. Every scan reaches its caller through this one
 * contract: each backend's scans, the salted merge (saltbox/salted.h), and
 * the layers above the table API (transactions, the datastore), which
 * compose scanners out of other scanners.
 */
typedef struct sbx_scanner_ops {
	/* As sbx_scanner_next: SBX_OK with *out set (the caller of
	 * sbx_scanner_next owns it), SBX_ITEROVER at the end, or an error. */
	int (*next)(void *state, sbx_result **out);
	/* Release state; called exactly once, by sbx_scanner_close(). */
	void (*close)(void *state);
} sbx_scanner_ops;

/* A scanner over `state`. ops is borrowed and must outlive the scanner;
 * state is owned by the new scanner from this call on: if the call fails
 * (SBX_ENOMEM, its only error), ops->close(state) has already been called.
 * *out is NULL on failure. */
SBX_API int sbx_scanner_new(sbx_scanner **out, const sbx_scanner_ops *ops,
		    void *state);

#ifdef __cplusplus
}
#endif
#endif
