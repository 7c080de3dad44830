/*
 * scan.c - scanning through a transaction. Without a filter or time range
 * the underlying scan also returns each row's lock cell, so a row and its
 * lock are read together: the lock is noted for commit (or, when another
 * transaction holds it, the row is read again through tx_get_row, which
 * resolves or waits). With a filter or a time range the lock cell may not
 * come back, so the scan only finds the rows (its keys, at most
 * SBX_TXN_MAX_ROWS) and each is then read as sbx_txn_get reads it: lock,
 * row, lock. Rows this transaction wrote in the range are merged in, in
 * scan order. Rows others insert into the range are not noticed at commit
 * (phantoms), as in Haeinsa.
 */
#include "txn/txn_int.h"

#include "common/error.h"

#include <stdlib.h>
#include <string.h>

typedef struct txscan {
	tx_scan_link link; /* first: the transaction's list of its scanners */
	sbx_txn *txn;	   /* NULL once the transaction ended */
	size_t table;
	sbx_scanner *s;	   /* the store's scanner (NULL once drained) */
	sbx_result *ahead; /* its next row, not yet handled */
	bool keys_only;	   /* filter or time range: re-read every row */
	uint8_t **keys;	   /* keys_only: the rows found, in scan order */
	size_t *key_lens, nkeys, key_at;
	sbx_read_opts read; /* the caller's read options (columns copied) */
	sbx_column *cols;
	bool reversed;
	int64_t limit, emitted;
	tx_row **own; /* rows this transaction wrote in range, scan order */
	size_t nown, own_at;
} txscan;

static int cmp_key(const uint8_t *a, size_t al, const uint8_t *b, size_t bl)
{
	size_t n = al < bl ? al : bl;
	int c = n ? memcmp(a, b, n) : 0;
	return c ? c : (al < bl ? -1 : al > bl);
}

static bool in_range(const sbx_scan_opts *o, const uint8_t *k, size_t kl)
{
	const uint8_t *lo = o->start_row, *hi = o->stop_row;
	size_t lol = o->start_row_len, hil = o->stop_row_len;
	bool lo_in = o->start_inclusive, hi_in = o->stop_inclusive;
	if (o->reversed) {
		lo = o->stop_row, lol = o->stop_row_len,
		lo_in = o->stop_inclusive;
		hi = o->start_row, hil = o->start_row_len,
		hi_in = o->start_inclusive;
	}
	int c;
	if (lol && ((c = cmp_key(k, kl, lo, lol)) < 0 || (c == 0 && !lo_in)))
		return false;
	if (hil && ((c = cmp_key(k, kl, hi, hil)) > 0 || (c == 0 && !hi_in)))
		return false;
	return true;
}

static int own_order(const void *pa, const void *pb)
{
	const tx_row *a = *(tx_row *const *)pa, *b = *(tx_row *const *)pb;
	return cmp_key(a->row, a->row_len, b->row, b->row_len);
}

static void txscan_free(txscan *x)
{
	if (!x)
		return;
	sbx_scanner_close(x->s);
	sbx_result_free(x->ahead);
	for (size_t i = 0; i < x->nkeys; i++)
		free(x->keys[i]);
	free(x->keys);
	free(x->key_lens);
	for (size_t i = 0; x->cols && i < x->read.ncolumns; i++) {
		free((void *)x->cols[i].family);
		free((void *)x->cols[i].qualifier);
	}
	free(x->cols);
	free(x->own);
	if (x->link.txn) {
		x->link.txn->scanners--;
		if (x->link.prev)
			x->link.prev->next = x->link.next;
		else
			x->link.txn->scans = x->link.next;
		if (x->link.next)
			x->link.next->prev = x->link.prev;
	}
	free(x);
}

static void txscan_close(void *p)
{
	txscan_free(p);
}

/* The next row key in scan order from the store: from the key list, or the
 * scanner's next result (kept in x->ahead). */
static int store_next(txscan *x, const uint8_t **key, size_t *len)
{
	*key = NULL;
	*len = 0;
	if (x->keys_only) {
		if (x->key_at < x->nkeys) {
			*key = x->keys[x->key_at];
			*len = x->key_lens[x->key_at];
		}
		return SBX_OK;
	}
	if (!x->ahead && x->s) {
		int rc = sbx_scanner_next(x->s, &x->ahead);
		if (rc == SBX_ITEROVER) {
			sbx_scanner_close(x->s);
			x->s = NULL;
		} else if (rc) {
			return rc;
		}
	}
	if (x->ahead)
		*key = sbx_result_row(x->ahead, len);
	return SBX_OK;
}

/* Whether every cell of the row is the transaction layer's lock. */
static bool only_lock(const sbx_result *res)
{
	size_t n;
	const sbx_cell *c = sbx_result_cells(res, &n);
	for (size_t i = 0; i < n; i++)
		if (c[i].family_len != sizeof SBX_TXN_LOCK_FAMILY - 1 ||
		    memcmp(c[i].family, SBX_TXN_LOCK_FAMILY, c[i].family_len))
			return false;
	return true;
}

/* The row the store returned with its lock cell: note the lock and merge
 * our writes; a lock another transaction holds sends it to tx_get_row. */
static int from_scanned(sbx_result **out, txscan *x)
{
	sbx_result *res = x->ahead;
	x->ahead = NULL;
	size_t len;
	const uint8_t *key = sbx_result_row(res, &len);
	tx_seen seen = {0};
	tx_row *r = NULL;
	tx_lock lk;
	int rc = tx_seen_from_result(&seen, res);
	bool stable =
	    rc == SBX_OK &&
	    lock_decode(&lk, seen.bytes.data,
			seen.present ? seen.bytes.len : 0) == SBX_OK &&
	    lk.state == TX_STABLE;
	/* A row holding nothing but a settled lock (a committed delete left
	 * it) is absent: not touched, as a missing row is not (phantoms,
	 * above), so deleted rows do not count toward SBX_TXN_MAX_ROWS. */
	if (rc == SBX_OK && stable && only_lock(res) &&
	    (rc = tx_row_get(&r, x->txn, x->table, key, len, false)) == SBX_OK &&
	    !r) {
		tx_seen_free(&seen);
		sbx_result_free(res);
		return SBX_OK; /* *out stays NULL: nothing to return */
	}
	rc = rc ? rc : tx_row_get(&r, x->txn, x->table, key, len, true);
	if (rc == SBX_OK && !stable) {
		rc = tx_get_row(out, x->txn, x->table, key, len, &x->read);
	} else if (rc == SBX_OK) {
		rc = tx_check_lock_family(x->txn, x->table, &seen);
		rc = rc ? rc : tx_note_lock(x->txn, r, &seen);
		if (rc == SBX_OK) {
			r->read = true;
			tx_note_timestamps(r, res);
			rc = tx_merge(out, r, key, len, res, &x->read);
		}
	}
	tx_seen_free(&seen);
	sbx_result_free(res);
	return rc;
}

static int txscan_next(void *p, sbx_result **out)
{
	txscan *x = p;
	*out = NULL;
	if (!x->link.txn)
		return sbx_error_set(SBX_EINVAL,
				     "the scanner's transaction has ended");
	for (;;) {
		if (x->limit && x->emitted >= x->limit)
			return SBX_ITEROVER;
		const uint8_t *key;
		size_t len;
		int rc = store_next(x, &key, &len);
		if (rc)
			return rc;
		tx_row *own = x->own_at < x->nown ? x->own[x->own_at] : NULL;
		if (!key && !own)
			return SBX_ITEROVER;
		int c = !key   ? 1
			: !own ? -1
			       : cmp_key(key, len, own->row, own->row_len);
		if (x->reversed && key && own)
			c = -c;
		sbx_result *res = NULL;
		if (c > 0) { /* a row only we wrote */
			x->own_at++;
			rc = tx_get_row(&res, x->txn, x->table, own->row,
					own->row_len, &x->read);
		} else {
			if (c == 0)
				x->own_at++;
			if (x->keys_only) {
				x->key_at++;
				rc = tx_get_row(&res, x->txn, x->table, key,
						len, &x->read);
			} else {
				rc = from_scanned(&res, x);
			}
		}
		if (rc)
			return rc;
		if (sbx_result_size(res) == 0) {
			sbx_result_free(res);
			continue;
		}
		x->emitted++;
		*out = res;
		return SBX_OK;
	}
}

static int copy_columns(txscan *x, const sbx_read_opts *o)
{
	x->read = *o;
	x->read.columns = NULL;
	x->read.ncolumns = 0;
	if (!o->ncolumns)
		return SBX_OK;
	x->cols = sbx_calloc(o->ncolumns, sizeof *x->cols);
	if (!x->cols)
		return SBX_ENOMEM_SET();
	x->read.columns = x->cols;
	x->read.ncolumns = o->ncolumns;
	for (size_t i = 0; i < o->ncolumns; i++) {
		const sbx_column *c = &o->columns[i];
		x->cols[i].family = sbx_strdup(c->family ? c->family : "");
		x->cols[i].qualifier_len = c->qualifier ? c->qualifier_len : 0;
		if (c->qualifier) {
			uint8_t *q =
			    sbx_malloc(c->qualifier_len ? c->qualifier_len : 1);
			if (q && c->qualifier_len)
				memcpy(q, c->qualifier, c->qualifier_len);
			x->cols[i].qualifier = q;
			if (!q)
				return SBX_ENOMEM_SET();
		}
		if (!x->cols[i].family)
			return SBX_ENOMEM_SET();
	}
	return SBX_OK;
}

/* Rows this transaction wrote in the table and the scan's range. */
static int collect_own(txscan *x, const sbx_scan_opts *o)
{
	sbx_txn *txn = x->txn;
	x->own = sbx_calloc(txn->nrows ? txn->nrows : 1, sizeof *x->own);
	if (!x->own)
		return SBX_ENOMEM_SET();
	for (size_t i = 0; i < txn->nrows; i++) {
		tx_row *r = txn->rows[i];
		if (r->table == x->table && r->nops &&
		    in_range(o, r->row, r->row_len))
			x->own[x->nown++] = r;
	}
	qsort(x->own, x->nown, sizeof *x->own, own_order);
	if (o->reversed)
		for (size_t i = 0; i < x->nown / 2; i++) {
			tx_row *t = x->own[i];
			x->own[i] = x->own[x->nown - 1 - i];
			x->own[x->nown - 1 - i] = t;
		}
	return SBX_OK;
}

/* keys_only: run the scan now and keep the row keys it finds. */
static int collect_keys(txscan *x, sbx_table *t, const sbx_scan_opts *o)
{
	sbx_scanner *s;
	int rc = sbx_scanner_open(&s, t, o);
	if (rc)
		return rc;
	size_t cap = 0;
	sbx_result *r;
	while ((rc = sbx_scanner_next(s, &r)) == SBX_OK) {
		size_t len;
		const uint8_t *k = sbx_result_row(r, &len);
		bool same = x->nkeys && !cmp_key(k, len, x->keys[x->nkeys - 1],
						 x->key_lens[x->nkeys - 1]);
		if (!same && x->nkeys >= SBX_TXN_MAX_ROWS)
			rc = sbx_error_set(SBX_ETOOLARGE,
					   "the scan finds more than %d rows, "
					   "the most a transaction may touch "
					   "(SBX_TXN_MAX_ROWS): narrow it or "
					   "set a limit",
					   SBX_TXN_MAX_ROWS);
		if (!same && !rc && x->nkeys == cap) {
			cap = cap ? cap * 2 : 64;
			void *a = sbx_realloc(x->keys, cap * sizeof *x->keys);
			void *b =
			    a ? sbx_realloc(x->key_lens, cap * sizeof *x->key_lens)
			      : NULL;
			if (a)
				x->keys = a;
			if (b)
				x->key_lens = b;
			if (!a || !b)
				rc = SBX_ENOMEM_SET();
		}
		if (!same && !rc) {
			uint8_t *copy = sbx_malloc(len ? len : 1);
			if (!copy) {
				rc = SBX_ENOMEM_SET();
			} else {
				memcpy(copy, k, len);
				x->keys[x->nkeys] = copy;
				x->key_lens[x->nkeys++] = len;
			}
		}
		sbx_result_free(r);
		if (rc)
			break;
	}
	sbx_scanner_close(s);
	return rc == SBX_ITEROVER ? SBX_OK : rc;
}

int sbx_txn_scanner_open(sbx_scanner **out, sbx_txn *txn, sbx_table *t,
			 const sbx_scan_opts *opts)
{
	*out = NULL;
	if (!txn || !t)
		return sbx_error_set(
		    SBX_EINVAL, "sbx_txn_scanner_open: needs a transaction "
				"and a table");
	if (txn->state == TX_FAILED)
		return sbx_error_set(SBX_EINVAL,
				     "sbx_txn_scanner_open: the transaction "
				     "failed earlier");
	sbx_scan_opts defaults;
	if (!opts) {
		sbx_scan_opts_init(&defaults);
		opts = &defaults;
	}
	if (opts->read.raw)
		return sbx_error_set(
		    SBX_EINVAL, "raw scans cannot go through a transaction");
	if (opts->batch)
		return sbx_error_set(SBX_EINVAL,
				     "a transaction scans whole rows: batch "
				     "must be 0");
	txscan *x = sbx_calloc(1, sizeof *x);
	if (!x)
		return SBX_ENOMEM_SET();
	x->txn = txn;
	x->link.txn = txn;
	txn->scanners++;
	x->link.next = txn->scans;
	if (txn->scans)
		txn->scans->prev = &x->link;
	txn->scans = &x->link;
	x->reversed = opts->reversed;
	x->limit = opts->limit;
	x->keys_only = opts->read.filter || opts->read.min_ts != 0 ||
		       opts->read.max_ts != INT64_MAX;
	int rc = tx_tables_add(&x->table, &txn->tables, t);
	rc = rc ? rc : copy_columns(x, &opts->read);
	rc = rc ? rc : collect_own(x, opts);
	if (rc == SBX_OK && x->keys_only && opts->read.filter && x->nown)
		rc = sbx_error_set(SBX_EUNSUPPORTED,
				   "a filtered scan over rows this transaction "
				   "has written is not supported: scan without "
				   "the filter");
	sbx_column *with = NULL;
	if (rc == SBX_OK && x->keys_only) {
		rc = collect_keys(x, t, opts);
	} else if (rc == SBX_OK) {
		sbx_scan_opts o = *opts;
		o.limit = 0; /* rows with only a lock cell are not returned */
		if (o.read.ncolumns) {
			with = sbx_malloc((o.read.ncolumns + 1) * sizeof *with);
			if (!with) {
				rc = SBX_ENOMEM_SET();
			} else {
				memcpy(with, o.read.columns,
				       o.read.ncolumns * sizeof *with);
				with[o.read.ncolumns] =
				    (sbx_column){SBX_TXN_LOCK_FAMILY,
						 SBX_TXN_LOCK_QUALIFIER, 4};
				o.read.columns = with;
				o.read.ncolumns++;
			}
		}
		rc = rc ? rc : sbx_scanner_open(&x->s, t, &o);
	}
	free(with);
	if (rc) {
		txscan_free(x);
		return rc;
	}
	static const sbx_scanner_ops ops = {txscan_next, txscan_close};
	return sbx_scanner_new(out, &ops, x);
}
