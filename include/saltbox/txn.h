/*
 * saltbox/txn.h - multi-row, multi-table ACID transactions in the manner of
 * Haeinsa: built only on the table API's single-row check-and-mutate, so
 * they run on the embedded store and over any HBase REST gateway (a real
 * cluster's, or `saltbox serve`). docs/transactions.md describes the
 * protocol, the lock cell byte by byte, the isolation level and recovery.
 *
 * In short: reads go to the store at once and note each row's lock cell;
 * writes are buffered in the transaction; sbx_txn_commit() locks every
 * written row (check-and-mutate against the lock bytes first seen), checks
 * that rows only read are unchanged, and commits at one atomic point: the
 * primary row's lock turning COMMITTED. A client that dies mid-commit leaves
 * locks that whoever meets them after they expire rolls forward (the
 * primary committed) or back (it did not).
 *
 * The atomic path: where the backend offers sbx_db_check_and_mutate_rows
 * (the embedded store), a commit is instead one atomic call whose checks
 * are "every row's lock is still the one this transaction read" and whose
 * writes are the buffered data plus a new lock on each written row; it
 * leaves no lock behind, and transactions of either path (other threads,
 * or remote clients of `saltbox serve` on the same store) detect each
 * other's conflicts. sbx_txn_options.path chooses.
 *
 * Isolation: conflict-serializable for every row a transaction gets,
 * scans or writes (write skew is prevented); rows inserted into a range a
 * transaction scanned are not detected (phantoms), as in Haeinsa.
 *
 * Tables: a table joins transactions once it has the lock family
 * SBX_TXN_LOCK_FAMILY (sbx_txn_prepare_table() adds it, or create the table
 * with sbx_txn_lock_family()). Write a transactional table's rows only
 * through transactions: a plain put bypasses the locks.
 *
 * Ownership: sbx_txn_commit() and sbx_txn_rollback() free the transaction.
 * The sbx_db and every sbx_table passed to a transaction must outlive it.
 *
 * Thread-safety: an sbx_txn belongs to one thread at a time; any number of
 * transactions (threads or processes) may run against the same tables.
 */
#ifndef SALTBOX_TXN_H
#define SALTBOX_TXN_H

#include "saltbox/common.h"
#include "saltbox/db.h"
#include "saltbox/table.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The family holding one lock cell per row ('!' sorts before every other
 * printable family name, so the lock is a row's first cell), and its
 * column. Gets and scans through a transaction never show it; plain reads
 * do. */
#define SBX_TXN_LOCK_FAMILY "!txn!"
#define SBX_TXN_LOCK_QUALIFIER "lock"

/* Most rows one transaction may touch (get, scan or write); one more gives
 * SBX_ETOOLARGE. The primary's lock lists every written row, so the cap
 * also bounds the size of that cell. */
#define SBX_TXN_MAX_ROWS 1024

typedef struct sbx_txn sbx_txn;

/* The writes sbx_txn_commit() makes, named for the fault hook below. */
typedef enum sbx_txn_step {
	SBX_TXN_STEP_LOCK_READ = 1, /* reading a written row's lock */
	SBX_TXN_STEP_ONE_ROW,	    /* the one-row fast path's write */
	SBX_TXN_STEP_PREWRITE_PRIMARY,
	SBX_TXN_STEP_PREWRITE_SECONDARY,
	SBX_TXN_STEP_VALIDATE,	     /* re-reading a row only read */
	SBX_TXN_STEP_COMMIT_PRIMARY, /* the commit point */
	SBX_TXN_STEP_APPLY_SECONDARY,
	SBX_TXN_STEP_APPLY_PRIMARY,
	SBX_TXN_STEP_ROLLBACK,
	/* the atomic path's one call (also under SBX_TXN_PATH_AUTO on a
	 * backend that then turns out not to offer it) */
	SBX_TXN_STEP_ATOMIC,
} sbx_txn_step;

/* How sbx_txn_commit() commits (docs/transactions.md, "The atomic path"). */
typedef enum sbx_txn_path {
	/* The atomic path where the backend offers
	 * sbx_db_check_and_mutate_rows (the embedded store), else the
	 * portable protocol. */
	SBX_TXN_PATH_AUTO = 0,
	/* Always the portable protocol (every backend). */
	SBX_TXN_PATH_PORTABLE,
	/* Always the atomic path: a commit on a backend without it fails
	 * with SBX_EUNSUPPORTED, nothing written. */
	SBX_TXN_PATH_ATOMIC,
} sbx_txn_path;

typedef struct sbx_txn_options {
	/* How long this transaction's locks protect it: another client that
	 * meets one older than this rolls it forward or back. Must exceed the
	 * longest commit plus the clock skew between clients. Default 5000. */
	int64_t lock_timeout_ms;
	/* How long a read or a commit waits for another transaction's lock
	 * that has not expired before giving up with SBX_ECONFLICT. Default
	 * 100. */
	int64_t lock_wait_ms;
	/* sbx_txn_run(): how long to keep retrying a conflicting transaction,
	 * with exponential backoff from 1 ms to 100 ms. Default 5000. */
	int64_t retry_budget_ms;
	/* Resolving only (sbx_txn_resolve*): replace a lock cell that is not a
	 * Saltbox lock by an empty one. Default false: such a cell is an
	 * SBX_EBADVALUE error everywhere. */
	bool reset_garbage_locks;
	/* Fault injection for tests: called before each write or read the
	 * commit makes; a non-zero return is taken as that call's result (an
	 * SBX_E* code), as if the backend had failed. row is the index of the
	 * row in commit order (0 = primary). NULL in normal use. */
	int (*fault)(void *arg, sbx_txn_step step, size_t row);
	void *fault_arg;
	/* The commit path (above). Default SBX_TXN_PATH_AUTO. Both paths
	 * may run at once on one store: they see each other's locks. */
	sbx_txn_path path;
} sbx_txn_options;

/* Fill *o with the defaults above. Cannot fail. */
SBX_API void sbx_txn_options_init(sbx_txn_options *o);

/* ---- tables -----------------------------------------------------------------
 */

/* The lock family's descriptor (VERSIONS 1), to list among a new table's
 * families. Cannot fail. */
SBX_API void sbx_txn_lock_family(sbx_family_desc *out);
/* Add the lock family to an existing table if it lacks it (alter; a
 * table that has it is left alone). Errors: SBX_ENOTFOUND (no such table),
 * SBX_EINVAL (bad name), and what sbx_table_alter_family returns. */
SBX_API int sbx_txn_prepare_table(sbx_db *db, const char *table);

/* ---- transactions ------------------------------------------------------- */

/* Start a transaction with default options (or `opts`, copied; NULL =
 * defaults). Nothing is sent to the store. *out is owned by the caller
 * until sbx_txn_commit or sbx_txn_rollback. Errors: SBX_EINVAL (no db;
 * lock_timeout_ms <= 0, lock_wait_ms or retry_budget_ms < 0, an unknown
 * path). */
SBX_API int sbx_txn_begin(sbx_txn **out, sbx_db *db);
SBX_API int sbx_txn_begin_with(sbx_txn **out, sbx_db *db,
			       const sbx_txn_options *opts);

/* A random 64-bit id, written into this transaction's locks (0 for
 * NULL). Cannot fail. */
SBX_API uint64_t sbx_txn_id(const sbx_txn *txn);

/*
 * Get one row as sbx_table_get() does (opts may be NULL), seeing this
 * transaction's own buffered writes: they show with timestamp
 * SBX_LATEST_TIMESTAMP and only when the time range is the default one. A
 * missing row is an empty result. The row's lock is remembered and checked
 * again at commit. Errors: SBX_ECONFLICT if the row is locked by another
 * transaction that has not expired (after waiting lock_wait_ms) or changed
 * since this transaction first read it; SBX_ENOFAMILY if the table lacks
 * the lock family; SBX_EUNSUPPORTED for a filter on a row this transaction
 * has written; SBX_EINVAL for raw reads or an empty row;
 * SBX_ETOOLARGE past SBX_TXN_MAX_ROWS rows; SBX_EBADVALUE if the row's lock
 * cell is garbage; the errors of sbx_table_get.
 */
SBX_API int sbx_txn_get(sbx_result **out, sbx_txn *txn, sbx_table *t,
			const void *row, size_t row_len,
			const sbx_read_opts *opts);

/*
 * Buffer the operations of m until commit: puts, DeleteColumn, DeleteFamily,
 * whole-row deletes, increments and appends (the last two read the column
 * through the transaction now and buffer the new value). Timestamps are the
 * transaction's to choose: an explicit one is SBX_EINVAL. Delete of one
 * version and DeleteFamilyVersion are SBX_EUNSUPPORTED (an abort could not
 * undo them over HBase REST). m is only read; the caller still frees it.
 * All of m is buffered or none of it. Errors: SBX_EINVAL (no table, an
 * empty mutation, an explicit timestamp, a write to the lock family),
 * SBX_EUNSUPPORTED (see above), SBX_ENOFAMILY (the table lacks the family
 * or the lock family), SBX_ETOOLARGE past SBX_TXN_MAX_ROWS rows; for
 * increments and appends the errors of sbx_txn_get, and SBX_EBADVALUE for
 * an increment of a value that is not 8 bytes.
 */
SBX_API int sbx_txn_mutate(sbx_txn *txn, sbx_table *t, const sbx_mutation *m);

/*
 * Scan through the transaction: rows as sbx_scanner_open() returns them
 * (opts may be NULL), this transaction's writes merged in (rows it put
 * appear, rows it deleted do not), each row's lock remembered and checked
 * at commit. Rows others insert into the range are not detected
 * (phantoms). batch must be 0; raw is SBX_EINVAL; a filter together with
 * rows this transaction wrote in the table is SBX_EUNSUPPORTED. The
 * scanner borrows txn and t: close it before commit or rollback (after
 * them its next() fails with SBX_EINVAL). Errors: SBX_EINVAL (raw, batch,
 * no transaction or table), SBX_EUNSUPPORTED (above), SBX_ETOOLARGE (a
 * scan with a filter or time range finding more than SBX_TXN_MAX_ROWS
 * rows), and those of sbx_scanner_open; sbx_scanner_next() returns those of
 * sbx_txn_get().
 */
SBX_API int sbx_txn_scanner_open(sbx_scanner **out, sbx_txn *txn, sbx_table *t,
				 const sbx_scan_opts *opts);

/*
 * Commit and free the transaction. SBX_OK: every write is durable and
 * visible. SBX_ECONFLICT: another transaction won a race; nothing of this
 * one is visible (retry it, e.g. with sbx_txn_run). Another error (the
 * backend failed, a lock cell is garbage): nothing is visible, and locks it
 * could not remove are rolled back by whoever meets them after they
 * expire. A transaction that neither wrote nor read commits at once.
 * Errors: SBX_ECONFLICT (above); SBX_EINVAL (NULL, a scanner of it still
 * open - nothing is committed); SBX_EUNSUPPORTED (path
 * SBX_TXN_PATH_ATOMIC on a backend without the atomic call - nothing is
 * committed); SBX_EBADVALUE (a written row's lock cell is garbage);
 * SBX_ENOTFOUND / SBX_EDISABLED (a table gone); the backend's errors,
 * the message saying when the outcome is unknown (the commit point's
 * answer was lost and could not be read back).
 */
SBX_API int sbx_txn_commit(sbx_txn *txn);

/* Drop the buffered writes and free the transaction (NULL is a no-op).
 * Cannot fail. */
SBX_API void sbx_txn_rollback(sbx_txn *txn);

/* The body of a transaction for sbx_txn_run: SBX_OK to commit, an error to
 * roll back (SBX_ECONFLICT: run again). */
typedef int (*sbx_txn_fn)(sbx_txn *txn, void *arg);

/*
 * Run fn(txn, arg) in a new transaction and commit it; on SBX_ECONFLICT
 * (from fn or from the commit) start over after a backoff (1 ms doubling to
 * 100 ms, with jitter) until opts->retry_budget_ms has passed. Any other
 * error from fn rolls back and is returned. fn must not commit or roll back
 * itself. *attempts (may be NULL) receives how many transactions ran.
 * Errors: SBX_ECONFLICT when the budget ran out (the message gives the
 * last conflict), SBX_EINVAL (no fn, bad options), else what fn or the
 * commit returned.
 */
SBX_API int sbx_txn_run(int *attempts, sbx_db *db, const sbx_txn_options *opts,
			sbx_txn_fn fn, void *arg);

/* ---- locks: listing and recovery ---------------------------------------- */

typedef enum sbx_txn_lock_state {
	SBX_TXN_LOCK_GARBAGE = 0, /* the cell is not a Saltbox lock */
	SBX_TXN_LOCK_STABLE = 1,
	SBX_TXN_LOCK_PREWRITTEN = 2,
	SBX_TXN_LOCK_COMMITTED = 3,
} sbx_txn_lock_state;

/* One lock cell as sbx_txn_locks() reports it. */
typedef struct sbx_txn_lock_info {
	uint8_t *row;
	size_t row_len;
	sbx_txn_lock_state state;
	uint64_t txn_id;
	int64_t commit_ts;
	int64_t expiry_ms; /* ms since the epoch */
	bool primary;	   /* else primary_table/primary_row name it */
	char *primary_table;
	uint8_t *primary_row;
	size_t primary_row_len;
	size_t secondaries; /* rows a primary lists */
	size_t operations;  /* buffered operations the lock carries */
	size_t value_len;   /* bytes of the lock cell */
} sbx_txn_lock_info;

/* Every lock of `table` that is not STABLE (in progress, committed but not
 * yet applied, or garbage), in row order. *out is owned by the caller:
 * sbx_txn_lock_infos_free(). Errors: SBX_ENOTFOUND (no such table), those
 * of sbx_scanner_open. */
SBX_API int sbx_txn_locks(sbx_txn_lock_info **out, size_t *n, sbx_db *db,
			  const char *table);
/* Free what sbx_txn_locks returned (NULL is a no-op). Cannot fail. */
SBX_API void sbx_txn_lock_infos_free(sbx_txn_lock_info *v, size_t n);

typedef enum sbx_txn_resolution {
	SBX_TXN_UNLOCKED = 0,	/* nothing to do: the lock is stable */
	SBX_TXN_ROLLED_FORWARD, /* its transaction had committed */
	SBX_TXN_ROLLED_BACK,	/* its transaction had not */
	SBX_TXN_NOT_EXPIRED,	/* still in progress: left alone */
	SBX_TXN_RESET,		/* garbage replaced (reset_garbage_locks) */
} sbx_txn_resolution;

/* "rolled back" and so on (a static string). Cannot fail. */
SBX_API const char *sbx_txn_resolution_name(sbx_txn_resolution r);

/* Resolve the lock of one row: roll its transaction forward if its primary
 * committed (at once), back if the lock expired without committing.
 * opts may be NULL. Errors: SBX_ENOTFOUND (no such table), SBX_EBADVALUE
 * (the row's lock, or its primary's, is garbage and reset_garbage_locks is
 * off), the backend's errors. */
SBX_API int sbx_txn_resolve(sbx_txn_resolution *out, sbx_db *db,
			    const char *table, const void *row, size_t row_len,
			    const sbx_txn_options *opts);
/* The same for every lock sbx_txn_locks() lists in `table`: *resolved
 * counts those no longer locked afterwards (rolled forward, back, reset,
 * or resolved with another row of their transaction), *remaining those
 * left: not expired, or garbage when reset_garbage_locks is off. Either
 * pointer may be NULL. Errors: as sbx_txn_resolve, for the first lock that
 * fails. */
SBX_API int sbx_txn_resolve_table(size_t *resolved, size_t *remaining,
				  sbx_db *db, const char *table,
				  const sbx_txn_options *opts);

#ifdef __cplusplus
}
#endif
#endif
