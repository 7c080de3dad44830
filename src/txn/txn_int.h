/*
 * txn_int.h - the transaction layer's private parts: the lock cell's codec
 * (lock.c), the store operations every participant makes on lock cells
 * (store.c: read, compare-and-set, roll forward, roll back), resolving a
 * lock another client left (recover.c), and the transaction object itself
 * (txn.c, commit.c, scan.c). Built only on the public API.
 */
#ifndef SBX_TXN_INT_H
#define SBX_TXN_INT_H

#include "common/alloc.h"
#include "common/buf.h"
#include "saltbox/compose.h"
#include "saltbox/txn.h"

#include <stdbool.h>
#include <stdint.h>

static inline int tx_cam(bool *ok, sbx_table *t, const void *row,
			 size_t row_len, const sbx_check *c,
			 const sbx_mutation *m)
{
	return sbx_table_check_and_mutate(ok, NULL, t, row, row_len, c, m);
}

/* ---- buffered operations ------------------------------------------------- */

/* What a transaction writes to one column or family, as it is kept in the
 * buffer and in a lock cell. Deletes are written at commit_ts - 1, puts at
 * commit_ts, so a delete followed by a put of the same column keeps the put
 * (the buffer drops a put that a later delete covers). */
typedef enum tx_op_kind {
	TX_PUT = 1,
	TX_DELETE_COLUMN = 2, /* every version of family:qualifier */
	TX_DELETE_FAMILY = 3, /* every column of family */
} tx_op_kind;

/* One operation. In the buffer every pointer is owned (malloc); decoded
 * from a lock cell they point into the cell's bytes (family not
 * NUL-terminated there). */
typedef struct tx_op {
	tx_op_kind kind;
	const char *family;
	size_t family_len;
	const uint8_t *qualifier;
	size_t qualifier_len;
	const uint8_t *value;
	size_t value_len;
} tx_op;

/* A (table, row) a lock names: the primary of a secondary, or one of a
 * primary's secondaries. Views into the lock's bytes or the caller's. */
typedef struct tx_ref {
	const char *table;
	size_t table_len;
	const uint8_t *row;
	size_t row_len;
} tx_ref;

/* ---- the lock cell (lock.c; format in docs/transactions.md) ---------------
 */

#define TX_STABLE SBX_TXN_LOCK_STABLE
#define TX_PREWRITTEN SBX_TXN_LOCK_PREWRITTEN
#define TX_COMMITTED SBX_TXN_LOCK_COMMITTED

/* A decoded lock. Pointers are views into the bytes it was decoded from.
 * `version` is the timestamp the lock cell is written at: every write of a
 * row's lock uses a larger one, so equal bytes mean the same write. */
typedef struct tx_lock {
	int state;
	int64_t commit_ts;
	int64_t version;
	/* the rest only when state != TX_STABLE */
	uint64_t txn_id;
	int64_t expiry_ms;
	bool primary;
	int64_t prev_commit_ts; /* the STABLE lock this one replaced */
	int64_t prev_version;
	tx_ref primary_ref;  /* secondaries */
	size_t nsecondaries; /* primaries */
	const uint8_t *secondaries_at;
	size_t nops;
	const uint8_t *ops_at;
	const uint8_t *end; /* of the fields (before the checksum) */
} tx_lock;

/* Decode; SBX_EBADVALUE (with a message naming table and row) if the bytes
 * are not a lock. An empty cell is STABLE at commit_ts 0. */
int lock_decode(tx_lock *out, const uint8_t *p, size_t n);
/* Iterate a primary's secondaries / a lock's operations (decode checked
 * their shape; call exactly nsecondaries / nops times). */
void lock_secondary(const tx_lock *lk, const uint8_t **cursor, tx_ref *out);
void lock_op(const tx_lock *lk, const uint8_t **cursor, tx_op *out);

int lock_encode_stable(sbx_buf *out, int64_t commit_ts, int64_t version);
/* A PREWRITTEN or COMMITTED lock from lk's scalar fields: a primary
 * (lk->primary) lists lk->nsecondaries rows of secs, a secondary names
 * lk->primary_ref; both carry lk->nops operations of ops. */
int lock_encode(sbx_buf *out, const tx_lock *lk, const tx_ref *secs,
		const tx_op *ops);
/* The same lock with another state and version (the commit point). */
int lock_with_state(sbx_buf *out, const uint8_t *p, size_t n, int state,
		    int64_t version);

int64_t tx_now_ms(void);

/* ---- store operations (store.c) -------------------------------------------
 */

/* A lock as read from the store: its bytes and the cell's timestamp. */
typedef struct tx_seen {
	bool present;
	sbx_buf bytes;
	int64_t ts; /* 0 when absent */
} tx_seen;

void tx_seen_free(tx_seen *s);
int tx_seen_copy(tx_seen *dst, const tx_seen *src);
bool tx_seen_equal(const tx_seen *a, const tx_seen *b);
/* Take the lock cell out of a result (the first cell of the lock family). */
int tx_seen_from_result(tx_seen *out, const sbx_result *r);
/* Read only the lock cell of (t, row). */
int tx_read_lock(tx_seen *out, sbx_table *t, const void *row, size_t row_len);

/* Compare-and-set a row's lock: if its lock cell is exactly `expect`
 * (absent when !expect->present), write `lock` at lock_ts and the puts of
 * ops at data_ts, and (deletes) DeleteColumn/DeleteFamily at data_ts - 1.
 * *ok tells whether the lock matched. When a backend cannot check-and-put
 * and delete in one call (HBase REST), the deletes go first as a plain
 * delete (safe unguarded: see store.c), then the check-and-put - unless
 * `atomic`, when such a backend gives SBX_EUNSUPPORTED and nothing is
 * written. Deletes are only ever applied for a committed transaction. */
int tx_lock_cas(bool *ok, sbx_table *t, const uint8_t *row, size_t row_len,
		const tx_seen *expect, const uint8_t *lock, size_t lock_len,
		int64_t lock_ts, const tx_op *ops, size_t nops, int64_t data_ts,
		bool atomic);

/* The check that (t, row)'s lock cell is exactly `expect` (absent when
 * !expect->present); *c points into expect. */
void tx_lock_check(sbx_check *c, const tx_seen *expect);
/* A row's whole write as one mutation: `lock` put at lock_ts, the deletes
 * of ops at data_ts - 1, the puts at data_ts. */
int tx_row_mutation(sbx_mutation **out, const uint8_t *row, size_t row_len,
		    const uint8_t *lock, size_t lock_len, int64_t lock_ts,
		    const tx_op *ops, size_t nops, int64_t data_ts);

/* Open tables by name for the life of one operation or transaction. */
typedef struct tx_tables {
	sbx_db *db;
	struct tx_table_entry {
		char *name;
		sbx_table *t;
		bool owned;
		char **families; /* without the lock family; loaded lazily */
		bool has_lock_family; /* known to have it */
	} * v;
	size_t n, cap;
} tx_tables;

void tx_tables_init(tx_tables *ts, sbx_db *db);
void tx_tables_free(tx_tables *ts);
/* Index of table `name` (len bytes), opening it if new. */
int tx_tables_get(sbx_table **out, tx_tables *ts, const char *name, size_t len);
/* "t" for "default:t" (a pointer into name). */
const char *tx_canonical_name(const char *name);
/* Register a caller's handle (borrowed) under its name. */
int tx_tables_add(size_t *index, tx_tables *ts, sbx_table *t);

/* ---- meeting another transaction's lock (recover.c) ------------------------
 */

typedef enum tx_meet {
	TX_MEET_RESOLVED, /* rolled forward or back: read the row again */
	TX_MEET_BUSY,	  /* in progress and not expired */
} tx_meet;

/*
 * A row's lock `seen` is not STABLE: resolve it if its transaction is
 * decided (primary COMMITTED: roll forward, at once) or expired (roll
 * back), else report BUSY. *how (may be NULL) says what was done.
 */
int tx_resolve_seen(tx_meet *out, sbx_txn_resolution *how, tx_tables *ts,
		    sbx_table *t, const uint8_t *row, size_t row_len,
		    const tx_seen *seen, const tx_lock *lk);
/* Roll forward a committed transaction's row whose lock is `seen` (lk
 * decoded from it): its operations applied, the lock STABLE at lk's commit
 * timestamp. *ok is false when the lock had moved on (someone else did it,
 * or more). */
int tx_roll_forward_row(bool *ok, sbx_table *t, const uint8_t *row,
			size_t row_len, const tx_seen *seen, const tx_lock *lk);
/* Roll back a row whose lock is `seen`: STABLE again at the commit
 * timestamp it had before, nothing applied. */
int tx_roll_back_row(bool *ok, sbx_table *t, const uint8_t *row, size_t row_len,
		     const tx_seen *seen, const tx_lock *lk);

/* Name a row in messages: "row 'abc' of table 't'" (bytes escaped). */
const char *tx_row_name(char *buf, size_t cap, const char *table,
			const uint8_t *row, size_t row_len);

/* ---- the transaction --------------------------------------------------- */

/* One row the transaction touched. */
typedef struct tx_row {
	size_t table; /* index into txn->tables */
	uint8_t *row;
	size_t row_len;
	bool seen;    /* lock noted (read, or fetched at commit) */
	tx_seen lock; /* as first seen */
	bool read;    /* got or scanned: validate at commit if not written */
	tx_op *ops;   /* buffered writes, normalised */
	size_t nops, cap;
	/* commit state */
	sbx_buf wrote; /* the lock bytes this transaction wrote */
	bool prewritten;
	uint32_t hash;
	/* the newest cell timestamp seen in the row: commit_ts goes above it,
	 * so the transaction's deletes cover cells written outside
	 * transactions too (say, loaded with plain puts a moment before) */
	int64_t newest_ts;
} tx_row;

enum tx_state { TX_ACTIVE, TX_FAILED };

/* An open scanner in its transaction's list; tx_free() cuts them loose
 * (link.txn = NULL) so a scanner closed after the transaction ended
 * neither touches it nor crashes. */
typedef struct tx_scan_link {
	struct tx_scan_link *next, *prev;
	sbx_txn *txn;
} tx_scan_link;

struct sbx_txn {
	sbx_db *db;
	sbx_txn_options opts;
	uint64_t id;
	tx_tables tables;
	tx_row **rows;
	size_t nrows, cap;
	size_t *index; /* open-addressing hash of rows, 0 = empty, else i+1 */
	size_t index_cap;
	int state;
	int scanners;	     /* open scanners */
	tx_scan_link *scans; /* ... in a list */
};

/* The row (t, row), added if new (SBX_ETOOLARGE past the cap). */
int tx_row_get(tx_row **out, sbx_txn *txn, size_t table, const void *row,
	       size_t row_len, bool add);
/* Read a row through the transaction (lock check, own writes merged):
 * the engine of sbx_txn_get, also used by scans for rows they must re-read. */
int tx_get_row(sbx_result **out, sbx_txn *txn, size_t table, const void *row,
	       size_t row_len, const sbx_read_opts *opts);
/* The write log of r in the form commit writes it: each delete once, then
 * the puts no later delete or put covers (views into r's log; free the
 * array only). */
int tx_normalize(tx_op **out, size_t *n, const tx_row *r);
/* Merge the buffered ops of r over `base` (cells of the store, lock family
 * removed) into a new result. */
int tx_merge(sbx_result **out, const tx_row *r, const uint8_t *row,
	     size_t row_len, const sbx_result *base, const sbx_read_opts *o);
/* Raise r->newest_ts to the newest cell of res. */
void tx_note_timestamps(tx_row *r, const sbx_result *res);
/* Note a lock seen for r (first time) or compare it with the noted one
 * (SBX_ECONFLICT if it changed). */
int tx_note_lock(sbx_txn *txn, tx_row *r, const tx_seen *seen);
/* Wait for a non-stable lock as lock_wait_ms allows: sleep a little.
 * Returns false when the wait is over. */
bool tx_wait_more(int64_t started_ms, int64_t wait_ms, int *round);
/* Resolve a foreign lock seen on (table, row), as reads and commits do. */
int tx_meet_lock(sbx_txn *txn, size_t table, const uint8_t *row, size_t row_len,
		 const tx_seen *seen, int64_t started_ms, int *round);
void tx_free(sbx_txn *txn);
/* A read found no lock cell: make sure the table has the lock family
 * (SBX_ENOFAMILY otherwise), looking it up once per transaction. */
int tx_check_lock_family(sbx_txn *txn, size_t table, const tx_seen *seen);
/* Cut the transaction's open scanners loose (their next() then fails). */
void tx_detach_scanners(sbx_txn *txn);
int tx_fault(sbx_txn *txn, sbx_txn_step step, size_t row);

#endif
