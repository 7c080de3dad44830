/*
 * recover.c - what a client does with a lock another transaction left:
 * the primary's lock decides. COMMITTED there: the transaction committed,
 * so its rows are rolled forward at once (secondaries first, the primary
 * last, so a primary that is no longer this transaction's always means its
 * secondaries are done or were never to be). PREWRITTEN and expired: the
 * primary is rolled back first (after that the transaction can never
 * commit: its commit is a compare-and-set on the PREWRITTEN bytes), then
 * its secondaries. A secondary whose primary no longer holds its
 * transaction's lock is rolled back. Also the public lock listing and
 * resolving calls (saltbox txn locks / resolve).
 */
#include "txn/txn_int.h"

#include "common/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RETRIES 8

static bool expired(const tx_lock *lk)
{
	return lk->expiry_ms < tx_now_ms();
}

static bool same_txn(const tx_lock *a, const tx_lock *b)
{
	return a->state != TX_STABLE && b->state != TX_STABLE &&
	       a->txn_id == b->txn_id && a->commit_ts == b->commit_ts;
}

static int bad_lock(int rc, const char *table, const uint8_t *row,
		    size_t row_len)
{
	char name[200];
	tx_row_name(name, sizeof name, table, row, row_len);
	char msg[600];
	snprintf(msg, sizeof msg, "%s", sbx_errmsg());
	return sbx_error_set(rc, "%s: %s", name, msg);
}

/* Read and decode the lock of (t, row); garbage is an error naming it. */
static int read_decoded(tx_seen *seen, tx_lock *lk, sbx_table *t,
			const uint8_t *row, size_t row_len)
{
	int rc = tx_read_lock(seen, t, row, row_len);
	if (rc == SBX_OK &&
	    (rc = lock_decode(lk, seen->bytes.data,
			      seen->present ? seen->bytes.len : 0)))
		rc = bad_lock(rc, sbx_table_name(t), row, row_len);
	return rc;
}

/* Roll forward every row of a committed transaction whose primary lock
 * (on (pt, prow)) is `pseen`. */
static int roll_forward_txn(tx_tables *ts, sbx_table *pt, const uint8_t *prow,
			    size_t prow_len, const tx_seen *pseen,
			    const tx_lock *pl)
{
	const uint8_t *at = pl->secondaries_at;
	tx_seen seen = {0};
	int rc = SBX_OK;
	for (size_t i = 0; rc == SBX_OK && i < pl->nsecondaries; i++) {
		tx_ref ref;
		lock_secondary(pl, &at, &ref);
		sbx_table *t;
		rc = tx_tables_get(&t, ts, ref.table, ref.table_len);
		if (rc == SBX_ENOTFOUND) { /* dropped with its rows */
			rc = SBX_OK;
			continue;
		}
		for (int k = 0; rc == SBX_OK && k < RETRIES; k++) {
			tx_lock lk;
			rc = read_decoded(&seen, &lk, t, ref.row, ref.row_len);
			if (rc || !same_txn(&lk, pl))
				break; /* done, by us or another */
			bool ok;
			rc = tx_roll_forward_row(&ok, t, ref.row, ref.row_len,
						 &seen, &lk);
			if (rc || ok)
				break;
		}
	}
	tx_seen_free(&seen);
	bool ok;
	return rc ? rc
		  : tx_roll_forward_row(&ok, pt, prow, prow_len, pseen, pl);
}

/* Roll back the expired, uncommitted transaction whose primary lock is
 * pseen; *ok false if the primary had moved on (decided by another). */
static int roll_back_txn(bool *ok, tx_tables *ts, sbx_table *pt,
			 const uint8_t *prow, size_t prow_len,
			 const tx_seen *pseen, const tx_lock *pl)
{
	int rc = tx_roll_back_row(ok, pt, prow, prow_len, pseen, pl);
	if (rc || !*ok)
		return rc;
	const uint8_t *at = pl->secondaries_at;
	tx_seen seen = {0};
	for (size_t i = 0; rc == SBX_OK && i < pl->nsecondaries; i++) {
		tx_ref ref;
		lock_secondary(pl, &at, &ref);
		sbx_table *t;
		rc = tx_tables_get(&t, ts, ref.table, ref.table_len);
		if (rc == SBX_ENOTFOUND) {
			rc = SBX_OK;
			continue;
		}
		tx_lock lk;
		rc =
		    rc ? rc : read_decoded(&seen, &lk, t, ref.row, ref.row_len);
		bool done;
		if (rc == SBX_OK && same_txn(&lk, pl))
			rc = tx_roll_back_row(&done, t, ref.row, ref.row_len,
					      &seen, &lk);
		if (rc == SBX_EBADVALUE)
			rc = SBX_OK; /* not ours any more; left to its owner */
	}
	tx_seen_free(&seen);
	return rc;
}

/* A secondary: ask its primary. */
static int resolve_secondary(tx_meet *out, sbx_txn_resolution *how,
			     tx_tables *ts, sbx_table *t, const uint8_t *row,
			     size_t row_len, const tx_seen *seen,
			     const tx_lock *lk)
{
	sbx_table *pt;
	tx_seen pseen = {0};
	tx_lock pl;
	bool ok = false;
	int rc = tx_tables_get(&pt, ts, lk->primary_ref.table,
			       lk->primary_ref.table_len);
	if (rc == SBX_OK)
		rc = read_decoded(&pseen, &pl, pt, lk->primary_ref.row,
				  lk->primary_ref.row_len);
	if (rc == SBX_ENOTFOUND) { /* the primary's table is gone */
		pl.state = TX_STABLE;
		rc = SBX_OK;
	}
	if (rc == SBX_OK && same_txn(&pl, lk) && pl.state == TX_COMMITTED) {
		*how = SBX_TXN_ROLLED_FORWARD;
		rc = tx_roll_forward_row(&ok, t, row, row_len, seen, lk);
	} else if (rc == SBX_OK && same_txn(&pl, lk)) {
		if (!expired(&pl)) {
			*out = TX_MEET_BUSY;
			*how = SBX_TXN_NOT_EXPIRED;
			tx_seen_free(&pseen);
			return SBX_OK;
		}
		*how = SBX_TXN_ROLLED_BACK;
		rc = roll_back_txn(&ok, ts, pt, lk->primary_ref.row,
				   lk->primary_ref.row_len, &pseen, &pl);
	} else if (rc == SBX_OK) {
		/* the primary is not this transaction's any more: it was
		 * rolled back (a committed one is made stable last) */
		*how = SBX_TXN_ROLLED_BACK;
		rc = tx_roll_back_row(&ok, t, row, row_len, seen, lk);
	}
	tx_seen_free(&pseen);
	*out = TX_MEET_RESOLVED;
	if (!ok)
		*how = SBX_TXN_UNLOCKED; /* another client got there first */
	return rc;
}

int tx_resolve_seen(tx_meet *out, sbx_txn_resolution *how_out, tx_tables *ts,
		    sbx_table *t, const uint8_t *row, size_t row_len,
		    const tx_seen *seen, const tx_lock *lk)
{
	sbx_txn_resolution how_local, *how = how_out ? how_out : &how_local;
	*out = TX_MEET_RESOLVED;
	*how = SBX_TXN_UNLOCKED;
	bool ok = false;
	int rc = SBX_OK;
	if (lk->state == TX_STABLE)
		return SBX_OK;
	if (!lk->primary)
		return resolve_secondary(out, how, ts, t, row, row_len, seen,
					 lk);
	if (lk->state == TX_COMMITTED) {
		*how = SBX_TXN_ROLLED_FORWARD;
		return roll_forward_txn(ts, t, row, row_len, seen, lk);
	}
	if (!expired(lk)) {
		*out = TX_MEET_BUSY;
		*how = SBX_TXN_NOT_EXPIRED;
		return SBX_OK;
	}
	*how = SBX_TXN_ROLLED_BACK;
	rc = roll_back_txn(&ok, ts, t, row, row_len, seen, lk);
	if (!ok)
		*how = SBX_TXN_UNLOCKED;
	return rc;
}

/* ---- public: resolving and listing ------------------------------------- */

/* Replace a garbage lock `seen` by an empty STABLE one. */
static int reset_garbage(sbx_table *t, const uint8_t *row, size_t row_len,
			 const tx_seen *seen, bool *ok)
{
	sbx_buf stable = {0};
	int64_t version = tx_now_ms();
	if (seen->ts >= version)
		version = seen->ts + 1;
	int rc = lock_encode_stable(&stable, 0, version);
	rc = rc ? rc
		: tx_lock_cas(ok, t, row, row_len, seen, stable.data,
			      stable.len, version, NULL, 0, 0, false);
	sbx_buf_free(&stable);
	return rc;
}

static int resolve_row(sbx_txn_resolution *out, tx_tables *ts, sbx_table *t,
		       const uint8_t *row, size_t row_len,
		       const sbx_txn_options *o)
{
	*out = SBX_TXN_UNLOCKED;
	tx_seen seen = {0};
	tx_lock lk;
	int rc = tx_read_lock(&seen, t, row, row_len);
	if (rc == SBX_OK && lock_decode(&lk, seen.bytes.data,
					seen.present ? seen.bytes.len : 0)) {
		bool ok = false;
		if (o->reset_garbage_locks) {
			rc = reset_garbage(t, row, row_len, &seen, &ok);
			*out = ok ? SBX_TXN_RESET : SBX_TXN_UNLOCKED;
		} else {
			rc = bad_lock(SBX_EBADVALUE, sbx_table_name(t), row,
				      row_len);
		}
	} else if (rc == SBX_OK) {
		tx_meet meet;
		rc = tx_resolve_seen(&meet, out, ts, t, row, row_len, &seen,
				     &lk);
	}
	tx_seen_free(&seen);
	return rc;
}

int sbx_txn_resolve(sbx_txn_resolution *out, sbx_db *db, const char *table,
		    const void *row, size_t row_len,
		    const sbx_txn_options *opts)
{
	*out = SBX_TXN_UNLOCKED;
	sbx_txn_options defaults;
	if (!opts) {
		sbx_txn_options_init(&defaults);
		opts = &defaults;
	}
	tx_tables ts;
	tx_tables_init(&ts, db);
	sbx_table *t;
	int rc = tx_tables_get(&t, &ts, table, strlen(table));
	rc = rc ? rc : resolve_row(out, &ts, t, row, row_len, opts);
	tx_tables_free(&ts);
	return rc;
}

static int lock_info(sbx_txn_lock_info *info, const sbx_result *r)
{
	memset(info, 0, sizeof *info);
	size_t row_len;
	const uint8_t *row = sbx_result_row(r, &row_len);
	const sbx_cell *c =
	    sbx_result_get(r, SBX_TXN_LOCK_FAMILY, SBX_TXN_LOCK_QUALIFIER, 4);
	info->row = sbx_malloc(row_len ? row_len : 1);
	if (!info->row)
		return SBX_ENOMEM_SET();
	memcpy(info->row, row, row_len);
	info->row_len = row_len;
	info->value_len = c->value_len;
	tx_lock lk;
	if (lock_decode(&lk, c->value, c->value_len)) {
		info->state = SBX_TXN_LOCK_GARBAGE;
		return SBX_OK;
	}
	info->state = (sbx_txn_lock_state)lk.state;
	info->txn_id = lk.txn_id;
	info->commit_ts = lk.commit_ts;
	info->expiry_ms = lk.expiry_ms;
	info->primary = lk.primary;
	info->secondaries = lk.nsecondaries;
	info->operations = lk.nops;
	if (!lk.primary && lk.state != TX_STABLE) {
		info->primary_table = sbx_malloc(lk.primary_ref.table_len + 1);
		info->primary_row = sbx_malloc(lk.primary_ref.row_len);
		if (!info->primary_table || !info->primary_row)
			return SBX_ENOMEM_SET();
		memcpy(info->primary_table, lk.primary_ref.table,
		       lk.primary_ref.table_len);
		info->primary_table[lk.primary_ref.table_len] = 0;
		memcpy(info->primary_row, lk.primary_ref.row,
		       lk.primary_ref.row_len);
		info->primary_row_len = lk.primary_ref.row_len;
	}
	return SBX_OK;
}

void sbx_txn_lock_infos_free(sbx_txn_lock_info *v, size_t n)
{
	for (size_t i = 0; v && i < n; i++) {
		free(v[i].row);
		free(v[i].primary_table);
		free(v[i].primary_row);
	}
	free(v);
}

int sbx_txn_locks(sbx_txn_lock_info **out, size_t *n, sbx_db *db,
		  const char *table)
{
	*out = NULL;
	*n = 0;
	sbx_table *t;
	int rc = sbx_table_open(&t, db, table);
	if (rc)
		return rc;
	sbx_column col = {SBX_TXN_LOCK_FAMILY, SBX_TXN_LOCK_QUALIFIER, 4};
	sbx_scan_opts o;
	sbx_scan_opts_init(&o);
	o.read.columns = &col;
	o.read.ncolumns = 1;
	sbx_scanner *s;
	rc = sbx_scanner_open(&s, t, &o);
	sbx_txn_lock_info *v = NULL;
	size_t count = 0, cap = 0;
	sbx_result *r;
	while (rc == SBX_OK && (rc = sbx_scanner_next(s, &r)) == SBX_OK) {
		const sbx_cell *c = sbx_result_get(r, SBX_TXN_LOCK_FAMILY,
						   SBX_TXN_LOCK_QUALIFIER, 4);
		tx_lock lk;
		bool keep = c && (lock_decode(&lk, c->value, c->value_len) ||
				  lk.state != TX_STABLE);
		if (keep && count == cap) {
			size_t ncap = cap ? cap * 2 : 16;
			void *nv = sbx_realloc(v, ncap * sizeof *v);
			if (!nv)
				rc = SBX_ENOMEM_SET();
			else {
				v = nv;
				cap = ncap;
			}
		}
		if (keep && rc == SBX_OK) {
			rc = lock_info(&v[count], r);
			count++;
		}
		sbx_result_free(r);
	}
	if (rc == SBX_ITEROVER)
		rc = SBX_OK;
	if (s)
		sbx_scanner_close(s);
	sbx_table_close(t);
	if (rc) {
		sbx_txn_lock_infos_free(v, count);
		return rc;
	}
	*out = v;
	*n = count;
	return SBX_OK;
}

int sbx_txn_resolve_table(size_t *resolved, size_t *remaining, sbx_db *db,
			  const char *table, const sbx_txn_options *opts)
{
	size_t done = 0, left = 0;
	if (resolved)
		*resolved = 0;
	if (remaining)
		*remaining = 0;
	sbx_txn_options defaults;
	if (!opts) {
		sbx_txn_options_init(&defaults);
		opts = &defaults;
	}
	sbx_txn_lock_info *v;
	size_t n;
	int rc = sbx_txn_locks(&v, &n, db, table);
	if (rc)
		return rc;
	tx_tables ts;
	tx_tables_init(&ts, db);
	sbx_table *t;
	rc = tx_tables_get(&t, &ts, table, strlen(table));
	for (size_t i = 0; rc == SBX_OK && i < n; i++) {
		sbx_txn_resolution how;
		if (v[i].state == SBX_TXN_LOCK_GARBAGE &&
		    !opts->reset_garbage_locks) {
			left++; /* reported by sbx_txn_locks, left alone */
			continue;
		}
		rc = resolve_row(&how, &ts, t, v[i].row, v[i].row_len, opts);
		/* UNLOCKED: gone already, resolved with an earlier row's
		 * transaction (or by another client) */
		if (rc == SBX_OK && how == SBX_TXN_NOT_EXPIRED)
			left++;
		else if (rc == SBX_OK)
			done++;
	}
	tx_tables_free(&ts);
	sbx_txn_lock_infos_free(v, n);
	if (resolved)
		*resolved = done;
	if (remaining)
		*remaining = left;
	return rc;
}
