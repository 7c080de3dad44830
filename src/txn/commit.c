/*
 * commit.c - sbx_txn_commit(): the portable commit protocol.
 *
 *   written rows, in a fixed global order (table name, then row bytes);
 *   the first is the primary.
 *   1. one row, puts only, nothing else read: one check-and-mutate writes
 *      the data and a new STABLE lock (the fast path);
 *   2. otherwise prewrite the primary, then each secondary: its lock turns
 *      PREWRITTEN, carrying the row's operations, compared against the
 *      exact lock bytes this transaction first saw;
 *   3. rows only read: their lock must still be the one first seen;
 *   4. the primary's lock turns COMMITTED - the commit point;
 *   5. each secondary, then the primary: operations applied, lock STABLE.
 * A failure before 4 rolls back what was prewritten; after 4 the
 * transaction has committed whatever happens, and whoever meets a lock
 * left behind finishes step 5 (recover.c).
 *
 * Where the backend offers sbx_db_check_and_mutate_rows (the embedded
 * store) and the options allow, steps 1-5 are instead one atomic call
 * (commit_atomic): every touched row's lock checked, all data and new
 * STABLE locks written at once. Timestamps: commit_ts is above
 * every written row's lock version and every cell timestamp the
 * transaction saw in it and above the newest cell of every column it
 * writes (read_written_timestamps), deletes are written at commit_ts - 1,
 * puts at commit_ts, locks at commit_ts (+1 committed, +2 stable).
 */
#include "txn/txn_int.h"

#include "common/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct wrow {
	tx_row *r;
	const char *table;
	tx_op *ops; /* normalised; views into r's log */
	size_t nops;
} wrow;

typedef struct plan {
	sbx_txn *txn;
	wrow *w; /* written rows in commit order; w[0] is the primary */
	size_t nw;
	tx_row **ro; /* rows only read */
	size_t nro;
	int64_t commit_ts, expiry_ms;
	sbx_buf committed; /* the primary's COMMITTED lock */
} plan;

static int wrow_order(const void *pa, const void *pb)
{
	const wrow *a = pa, *b = pb;
	int c = strcmp(a->table, b->table);
	if (c)
		return c;
	size_t n =
	    a->r->row_len < b->r->row_len ? a->r->row_len : b->r->row_len;
	c = memcmp(a->r->row, b->r->row, n);
	if (c)
		return c;
	return a->r->row_len < b->r->row_len ? -1
					     : a->r->row_len > b->r->row_len;
}

static sbx_table *table_of(const plan *p, const tx_row *r)
{
	return p->txn->tables.v[r->table].t;
}

static const char *row_name(char *buf, size_t cap, const plan *p,
			    const tx_row *r)
{
	return tx_row_name(buf, cap, p->txn->tables.v[r->table].name, r->row,
			   r->row_len);
}

static void plan_free(plan *p)
{
	for (size_t i = 0; i < p->nw; i++)
		free(p->w[i].ops);
	free(p->w);
	free(p->ro);
	sbx_buf_free(&p->committed);
}

static int plan_make(plan *p, sbx_txn *txn)
{
	memset(p, 0, sizeof *p);
	p->txn = txn;
	p->w = sbx_calloc(txn->nrows ? txn->nrows : 1, sizeof *p->w);
	p->ro = sbx_calloc(txn->nrows ? txn->nrows : 1, sizeof *p->ro);
	if (!p->w || !p->ro)
		return SBX_ENOMEM_SET();
	for (size_t i = 0; i < txn->nrows; i++) {
		tx_row *r = txn->rows[i];
		if (r->nops) {
			wrow *w = &p->w[p->nw++];
			w->r = r;
			w->table = txn->tables.v[r->table].name;
			int rc = tx_normalize(&w->ops, &w->nops, r);
			if (rc)
				return rc;
		} else if (r->read) {
			p->ro[p->nro++] = r;
		}
	}
	qsort(p->w, p->nw, sizeof *p->w, wrow_order);
	return SBX_OK;
}

static int conflict(const plan *p, const tx_row *r, const char *why)
{
	char name[200];
	return sbx_error_set(SBX_ECONFLICT, "%s %s",
			     row_name(name, sizeof name, p, r), why);
}

/* The lock of a row written blind (never read): read it now. */
static int fetch_lock(plan *p, tx_row *r, size_t idx)
{
	int64_t started = tx_now_ms();
	int round = 0, rc = SBX_OK;
	tx_seen seen = {0};
	for (;;) {
		rc = tx_fault(p->txn, SBX_TXN_STEP_LOCK_READ, idx);
		rc = rc ? rc
			: tx_read_lock(&seen, table_of(p, r), r->row,
				       r->row_len);
		tx_lock lk;
		if (rc == SBX_OK &&
		    lock_decode(&lk, seen.bytes.data,
				seen.present ? seen.bytes.len : 0)) {
			char name[200], msg[400];
			snprintf(msg, sizeof msg, "%s", sbx_errmsg());
			rc = sbx_error_set(SBX_EBADVALUE, "%s: %s",
					   row_name(name, sizeof name, p, r),
					   msg);
		}
		if (rc)
			break;
		if (lk.state == TX_STABLE) {
			rc = tx_check_lock_family(p->txn, r->table, &seen);
			rc = rc ? rc : tx_note_lock(p->txn, r, &seen);
			break;
		}
		rc = tx_meet_lock(p->txn, r->table, r->row, r->row_len, &seen,
				  started, &round);
		if (rc)
			break;
	}
	tx_seen_free(&seen);
	return rc;
}

/* A row this transaction writes: the newest timestamp of every column and
 * family it writes, so its puts land above them and its delete markers
 * cover them. A server's timestamps may run ahead of this clock (another
 * machine's clock, or the embedded store's per-row-stripe timestamps,
 * which step past the clock when a row takes more than one write a
 * millisecond): without this a put written blind could land below a value
 * written before the transaction began, and never be seen. */
static int read_written_timestamps(plan *p, wrow *w)
{
	sbx_column *cols = sbx_calloc(w->nops, sizeof *cols);
	char(*fams)[SBX_MAX_FAMILY_NAME + 1] = sbx_calloc(w->nops, sizeof *fams);
	size_t n = 0;
	int rc = cols && fams ? SBX_OK : SBX_ENOMEM;
	for (size_t i = 0; rc == SBX_OK && i < w->nops; i++) {
		const tx_op *op = &w->ops[i];
		memcpy(fams[n], op->family, op->family_len);
		fams[n][op->family_len] = 0;
		cols[n].family = fams[n];
		if (op->kind != TX_DELETE_FAMILY) {
			cols[n].qualifier = op->qualifier;
			cols[n].qualifier_len = op->qualifier_len;
		}
		n++;
	}
	sbx_result *res = NULL;
	if (rc == SBX_OK && n) {
		sbx_read_opts o;
		sbx_read_opts_init(&o);
		o.columns = cols;
		o.ncolumns = n;
		rc = sbx_table_get(&res, table_of(p, w->r), w->r->row,
				   w->r->row_len, &o);
		if (rc == SBX_OK)
			tx_note_timestamps(w->r, res);
	}
	sbx_result_free(res);
	free(cols);
	free(fams);
	return rc == SBX_ENOMEM ? SBX_ENOMEM_SET() : rc;
}

static int64_t seen_version(const tx_row *r)
{
	tx_lock lk;
	if (lock_decode(&lk, r->lock.bytes.data,
			r->lock.present ? r->lock.bytes.len : 0))
		return 0; /* never noted: garbage is refused on reading */
	return lk.version;
}

static int commit_one_row(plan *p, bool *unsupported)
{
	wrow *w = &p->w[0];
	sbx_buf stable = {0};
	int64_t c = p->commit_ts;
	bool ok = false;
	*unsupported = false;
	int rc = lock_encode_stable(&stable, c, c);
	rc = rc ? rc : tx_fault(p->txn, SBX_TXN_STEP_ONE_ROW, 0);
	rc = rc ? rc
		: tx_lock_cas(&ok, table_of(p, w->r), w->r->row, w->r->row_len,
			      &w->r->lock, stable.data, stable.len, c, w->ops,
			      w->nops, c, true);
	sbx_buf_free(&stable);
	if (rc == SBX_EUNSUPPORTED) {
		*unsupported = true;
		return SBX_OK;
	}
	if (rc == SBX_OK && !ok)
		rc =
		    conflict(p, w->r, "changed since this transaction read it");
	return rc;
}

static int prewrite(plan *p, size_t i)
{
	wrow *w = &p->w[i];
	tx_lock prev;
	if (lock_decode(&prev, w->r->lock.bytes.data,
			w->r->lock.present ? w->r->lock.bytes.len : 0))
		memset(&prev, 0, sizeof prev);
	tx_lock lk = {
	    .state = TX_PREWRITTEN,
	    .commit_ts = p->commit_ts,
	    .version = p->commit_ts,
	    .txn_id = p->txn->id,
	    .expiry_ms = p->expiry_ms,
	    .primary = i == 0,
	    .prev_commit_ts = prev.commit_ts,
	    .prev_version = prev.version,
	    .primary_ref = {p->w[0].table, strlen(p->w[0].table),
			    p->w[0].r->row, p->w[0].r->row_len},
	    .nsecondaries = i == 0 ? p->nw - 1 : 0,
	    .nops = w->nops,
	};
	tx_ref *secs = NULL;
	if (i == 0 && p->nw > 1) {
		secs = sbx_malloc((p->nw - 1) * sizeof *secs);
		if (!secs)
			return SBX_ENOMEM_SET();
		for (size_t k = 1; k < p->nw; k++)
			secs[k - 1] =
			    (tx_ref){p->w[k].table, strlen(p->w[k].table),
				     p->w[k].r->row, p->w[k].r->row_len};
	}
	int rc = lock_encode(&w->r->wrote, &lk, secs, w->ops);
	free(secs);
	bool ok = false;
	rc = rc ? rc
		: tx_fault(p->txn,
			   i ? SBX_TXN_STEP_PREWRITE_SECONDARY
			     : SBX_TXN_STEP_PREWRITE_PRIMARY,
			   i);
	rc = rc ? rc
		: tx_lock_cas(&ok, table_of(p, w->r), w->r->row, w->r->row_len,
			      &w->r->lock, w->r->wrote.data, w->r->wrote.len,
			      p->commit_ts, NULL, 0, 0, false);
	if (rc == SBX_OK && ok)
		w->r->prewritten = true;
	else if (rc == SBX_OK)
		rc = conflict(p, w->r,
			      "was changed or locked by another transaction");
	return rc;
}

static int validate(plan *p, size_t i)
{
	tx_row *r = p->ro[i];
	tx_seen now = {0};
	int rc = tx_fault(p->txn, SBX_TXN_STEP_VALIDATE, p->nw + i);
	rc = rc ? rc : tx_read_lock(&now, table_of(p, r), r->row, r->row_len);
	if (rc == SBX_OK && !tx_seen_equal(&now, &r->lock))
		rc = conflict(p, r, "changed since this transaction read it");
	tx_seen_free(&now);
	return rc;
}

/* The lock bytes this transaction wrote on row i, as a tx_seen. */
static tx_seen wrote_seen(const wrow *w)
{
	tx_seen s = {true, w->r->wrote, 0};
	return s;
}

/* Undo the prewrites (primary first: then nobody can think it commits).
 * Failures leave locks that expire and are rolled back by whoever meets
 * them; rc, the error that caused the rollback, is the one reported. */
static int roll_back(plan *p, int rc)
{
	char msg[1024];
	snprintf(msg, sizeof msg, "%s", sbx_errmsg());
	for (size_t i = 0; i < p->nw; i++) {
		wrow *w = &p->w[i];
		if (!w->r->prewritten)
			continue;
		if (tx_fault(p->txn, SBX_TXN_STEP_ROLLBACK, i))
			continue;
		tx_seen seen = wrote_seen(w);
		tx_lock lk;
		bool ok;
		if (lock_decode(&lk, seen.bytes.data, seen.bytes.len) == SBX_OK)
			tx_roll_back_row(&ok, table_of(p, w->r), w->r->row,
					 w->r->row_len, &seen, &lk);
	}
	return sbx_error_set(rc, "%s", msg);
}

/* Step 4. On an error the outcome is read back from the primary's lock. */
static int commit_point(plan *p)
{
	wrow *w = &p->w[0];
	int64_t version = p->commit_ts + 1;
	tx_seen seen = wrote_seen(w);
	bool ok = false;
	int rc = lock_with_state(&p->committed, w->r->wrote.data,
				 w->r->wrote.len, TX_COMMITTED, version);
	if (rc)
		return rc;
	rc = tx_fault(p->txn, SBX_TXN_STEP_COMMIT_PRIMARY, 0);
	rc = rc ? rc
		: tx_lock_cas(&ok, table_of(p, w->r), w->r->row, w->r->row_len,
			      &seen, p->committed.data, p->committed.len,
			      version, NULL, 0, 0, false);
	if (rc) {
		char msg[1024];
		snprintf(msg, sizeof msg, "%s", sbx_errmsg());
		tx_seen now = {0};
		tx_seen done = {true, p->committed, 0};
		int rrc = tx_read_lock(&now, table_of(p, w->r), w->r->row,
				       w->r->row_len);
		bool committed = rrc == SBX_OK && tx_seen_equal(&now, &done);
		bool pending = rrc == SBX_OK && tx_seen_equal(&now, &seen);
		tx_seen_free(&now);
		if (committed)
			return SBX_OK;
		if (pending || rrc == SBX_OK)
			return sbx_error_set(rc, "%s", msg);
		return sbx_error_set(rc,
				     "%s; whether the transaction committed is "
				     "unknown (its primary lock could not be "
				     "read back): recovery decides once its "
				     "locks expire",
				     msg);
	}
	if (!ok)
		return conflict(p, w->r,
				"(the primary) was rolled back by another "
				"client: this transaction's locks expired "
				"(lock_timeout_ms) before it committed");
	return SBX_OK;
}

/* Step 5: secondaries, then the primary, and only if every secondary is
 * done - a primary no longer this transaction's tells recovery that its
 * secondaries are finished. Anything left is finished by recovery. */
static void apply(plan *p)
{
	for (size_t i = 1; i < p->nw; i++) {
		wrow *w = &p->w[i];
		tx_seen seen = wrote_seen(w);
		tx_lock lk;
		bool ok;
		if (tx_fault(p->txn, SBX_TXN_STEP_APPLY_SECONDARY, i) ||
		    lock_decode(&lk, seen.bytes.data, seen.bytes.len) ||
		    tx_roll_forward_row(&ok, table_of(p, w->r), w->r->row,
					w->r->row_len, &seen, &lk))
			return;
	}
	wrow *w = &p->w[0];
	tx_seen seen = {true, p->committed, 0};
	tx_lock lk;
	bool ok;
	if (tx_fault(p->txn, SBX_TXN_STEP_APPLY_PRIMARY, 0) ||
	    lock_decode(&lk, seen.bytes.data, seen.bytes.len))
		return;
	tx_roll_forward_row(&ok, table_of(p, w->r), w->r->row, w->r->row_len,
			    &seen, &lk);
}

/*
 * The atomic path: one sbx_db_check_and_mutate_rows call. Its checks: the
 * lock of every row touched is still the one this transaction first saw.
 * Its writes: each written row's data (deletes at commit_ts - 1, puts at
 * commit_ts) and a new STABLE lock at commit_ts - a new version, so a
 * transaction of either path that read the row before sees the change.
 * Nothing is left to roll forward: the lock is STABLE at once. A row
 * another transaction has locked since fails its check: SBX_ECONFLICT, as
 * a portable prewrite would. *unsupported: the backend has no such call
 * and the path is AUTO (nothing written; the portable protocol follows).
 */
static int commit_atomic(plan *p, bool *unsupported)
{
	*unsupported = false;
	size_t n = p->nw + p->nro;
	sbx_row_change *rows = sbx_calloc(n, sizeof *rows);
	sbx_check *checks = sbx_calloc(n, sizeof *checks);
	sbx_buf stable = {0};
	int64_t c = p->commit_ts;
	int rc = !rows || !checks ? SBX_ENOMEM_SET()
		 : p->nw	  ? lock_encode_stable(&stable, c, c)
				  : SBX_OK;
	for (size_t i = 0; rc == SBX_OK && i < n; i++) {
		tx_row *r = i < p->nw ? p->w[i].r : p->ro[i - p->nw];
		tx_lock_check(&checks[i], &r->lock);
		rows[i] = (sbx_row_change){table_of(p, r), r->row, r->row_len,
					   &checks[i], NULL};
		if (i < p->nw) {
			sbx_mutation *m = NULL;
			rc = tx_row_mutation(&m, r->row, r->row_len,
					     stable.data, stable.len, c,
					     p->w[i].ops, p->w[i].nops, c);
			rows[i].mutation = m;
		}
	}
	rc = rc ? rc : tx_fault(p->txn, SBX_TXN_STEP_ATOMIC, 0);
	bool ok = false;
	size_t failed = SIZE_MAX;
	rc = rc ? rc
		: sbx_db_check_and_mutate_rows(&ok, &failed, p->txn->db, rows,
					       n);
	if (rc == SBX_EUNSUPPORTED &&
	    p->txn->opts.path == SBX_TXN_PATH_AUTO) {
		*unsupported = true;
		rc = SBX_OK;
	} else if (rc == SBX_OK && !ok) {
		rc = conflict(p,
			      failed < p->nw ? p->w[failed].r
					     : p->ro[failed - p->nw],
			      "was changed or locked by another transaction "
			      "since this transaction read it");
	}
	for (size_t i = 0; rows && i < p->nw; i++)
		sbx_mutation_free((sbx_mutation *)rows[i].mutation);
	free(rows);
	free(checks);
	sbx_buf_free(&stable);
	return rc;
}

static int commit_rows(plan *p)
{
	sbx_txn *txn = p->txn;
	bool atomic = txn->opts.path != SBX_TXN_PATH_PORTABLE;
	int rc = SBX_OK;
	if (p->nw == 0) {
		/* read-only: one row is consistent by itself */
		if (p->nro <= 1)
			return SBX_OK;
		if (atomic) {
			bool unsupported;
			rc = commit_atomic(p, &unsupported);
			if (rc || !unsupported)
				return rc;
		}
		for (size_t i = 0; rc == SBX_OK && i < p->nro; i++)
			rc = validate(p, i);
		return rc;
	}
	for (size_t i = 0; rc == SBX_OK && i < p->nw; i++)
		if (!p->w[i].r->seen)
			rc = fetch_lock(p, p->w[i].r, i);
	if (rc)
		return rc;
	for (size_t i = 0; rc == SBX_OK && i < p->nw; i++)
		rc = read_written_timestamps(p, &p->w[i]);
	if (rc)
		return rc;
	int64_t now = tx_now_ms(), top = 0;
	for (size_t i = 0; i < p->nw; i++) {
		int64_t v = seen_version(p->w[i].r);
		top = v > top ? v : top;
		top = p->w[i].r->newest_ts > top ? p->w[i].r->newest_ts : top;
	}
	p->commit_ts = now > top ? now : top + 1;
	p->expiry_ms = now + txn->opts.lock_timeout_ms;

	if (atomic) {
		bool unsupported;
		rc = commit_atomic(p, &unsupported);
		if (rc || !unsupported)
			return rc;
	}
	bool puts_only = true;
	for (size_t k = 0; k < p->w[0].nops; k++)
		puts_only &= p->w[0].ops[k].kind == TX_PUT;
	if (p->nw == 1 && p->nro == 0 && puts_only) {
		bool unsupported;
		rc = commit_one_row(p, &unsupported);
		if (rc || !unsupported)
			return rc;
	}
	for (size_t i = 0; rc == SBX_OK && i < p->nw; i++)
		rc = prewrite(p, i);
	for (size_t i = 0; rc == SBX_OK && i < p->nro; i++)
		rc = validate(p, i);
	rc = rc ? rc : commit_point(p);
	if (rc)
		return roll_back(p, rc);
	apply(p);
	return SBX_OK;
}

int sbx_txn_commit(sbx_txn *txn)
{
	if (!txn)
		return sbx_error_set(SBX_EINVAL,
				     "sbx_txn_commit: no transaction");
	int rc = SBX_OK;
	if (txn->scanners)
		rc = sbx_error_set(SBX_EINVAL,
				   "sbx_txn_commit: %d scanner(s) of this "
				   "transaction are still open; nothing was "
				   "committed",
				   txn->scanners);
	else if (txn->state == TX_FAILED)
		rc = sbx_error_set(SBX_EINVAL,
				   "sbx_txn_commit: the transaction failed "
				   "earlier; nothing was committed");
	plan p;
	if (rc == SBX_OK) {
		rc = plan_make(&p, txn);
		rc = rc ? rc : commit_rows(&p);
		plan_free(&p);
	}
	tx_free(txn);
	return rc;
}
