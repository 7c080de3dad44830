/*
 * store.c - what every participant does to a row's lock cell through the
 * public table API: read it, compare-and-set it (with the row's data in the
 * same check-and-mutate), and the two ends of a transaction's row: roll
 * forward (apply the operations the lock carries and make it STABLE) and
 * roll back (make it STABLE at the commit timestamp it had before). Every
 * write is guarded by the exact lock bytes last read, so a participant that
 * lost a race changes nothing.
 */
#include "txn/txn_int.h"

#include "common/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const sbx_column lock_column = {SBX_TXN_LOCK_FAMILY,
				       SBX_TXN_LOCK_QUALIFIER, 4};

void tx_seen_free(tx_seen *s)
{
	sbx_buf_free(&s->bytes);
	memset(s, 0, sizeof *s);
}

int tx_seen_copy(tx_seen *dst, const tx_seen *src)
{
	dst->present = src->present;
	dst->ts = src->ts;
	return sbx_buf_set(&dst->bytes, src->bytes.data, src->bytes.len)
		   ? SBX_ENOMEM_SET()
		   : SBX_OK;
}

bool tx_seen_equal(const tx_seen *a, const tx_seen *b)
{
	size_t la = a->present ? a->bytes.len : 0,
	       lb = b->present ? b->bytes.len : 0;
	return la == lb &&
	       (la == 0 || !memcmp(a->bytes.data, b->bytes.data, la));
}

int tx_seen_from_result(tx_seen *out, const sbx_result *r)
{
	const sbx_cell *c =
	    sbx_result_get(r, SBX_TXN_LOCK_FAMILY, SBX_TXN_LOCK_QUALIFIER, 4);
	out->present = c != NULL;
	out->ts = c ? c->timestamp : 0;
	out->bytes.len = 0;
	if (c && sbx_buf_append(&out->bytes, c->value, c->value_len))
		return SBX_ENOMEM_SET();
	return SBX_OK;
}

int tx_read_lock(tx_seen *out, sbx_table *t, const void *row, size_t row_len)
{
	sbx_read_opts o;
	sbx_read_opts_init(&o);
	o.columns = &lock_column;
	o.ncolumns = 1;
	sbx_result *r = NULL;
	int rc = sbx_table_get(&r, t, row, row_len, &o);
	if (rc == SBX_OK)
		rc = tx_seen_from_result(out, r);
	sbx_result_free(r);
	return rc;
}

const char *tx_row_name(char *buf, size_t cap, const char *table,
			const uint8_t *row, size_t row_len)
{
	size_t at = (size_t)snprintf(buf, cap, "row '");
	for (size_t i = 0; i < row_len && at + 8 < cap; i++) {
		uint8_t c = row[i];
		if (c >= 0x20 && c < 0x7f && c != '\\' && c != '\'')
			buf[at++] = (char)c;
		else
			at +=
			    (size_t)snprintf(buf + at, cap - at, "\\x%02X", c);
	}
	if (at < cap)
		snprintf(buf + at, cap - at, "' of table '%s'", table);
	return buf;
}

/* ---- compare-and-set -------------------------------------------------------
 */

/* A family name from an op (not NUL-terminated in a lock) as a string. */
static void op_family(char out[SBX_MAX_FAMILY_NAME + 1], const tx_op *op)
{
	size_t n = op->family_len > SBX_MAX_FAMILY_NAME ? SBX_MAX_FAMILY_NAME
							: op->family_len;
	memcpy(out, op->family, n);
	out[n] = 0;
}

static int add_deletes(sbx_mutation *m, const tx_op *ops, size_t nops,
		       int64_t ts)
{
	int rc = SBX_OK;
	for (size_t i = 0; !rc && i < nops; i++) {
		char fam[SBX_MAX_FAMILY_NAME + 1];
		op_family(fam, &ops[i]);
		if (ops[i].kind == TX_DELETE_COLUMN)
			rc = sbx_mutation_delete(m, SBX_CELL_DELETE_COLUMN, fam,
						 ops[i].qualifier,
						 ops[i].qualifier_len, ts);
		else if (ops[i].kind == TX_DELETE_FAMILY)
			rc = sbx_mutation_delete(m, SBX_CELL_DELETE_FAMILY, fam,
						 NULL, 0, ts);
	}
	return rc;
}

static int add_puts(sbx_mutation *m, const tx_op *ops, size_t nops, int64_t ts)
{
	int rc = SBX_OK;
	for (size_t i = 0; !rc && i < nops; i++) {
		if (ops[i].kind != TX_PUT)
			continue;
		char fam[SBX_MAX_FAMILY_NAME + 1];
		op_family(fam, &ops[i]);
		rc = sbx_mutation_put(m, fam, ops[i].qualifier,
				      ops[i].qualifier_len, ts, ops[i].value,
				      ops[i].value_len);
	}
	return rc;
}

void tx_lock_check(sbx_check *c, const tx_seen *expect)
{
	bool present = expect->present && expect->bytes.len;
	*c = (sbx_check){SBX_TXN_LOCK_FAMILY,
			 SBX_TXN_LOCK_QUALIFIER,
			 4,
			 SBX_CMP_EQUAL,
			 present ? expect->bytes.data : NULL,
			 present ? expect->bytes.len : 0};
}

static int cam(bool *ok, sbx_table *t, const uint8_t *row, size_t row_len,
	       const tx_seen *expect, sbx_mutation *m)
{
	sbx_check c;
	tx_lock_check(&c, expect);
	return tx_cam(ok, t, row, row_len, &c, m);
}

int tx_row_mutation(sbx_mutation **out, const uint8_t *row, size_t row_len,
		    const uint8_t *lock, size_t lock_len, int64_t lock_ts,
		    const tx_op *ops, size_t nops, int64_t data_ts)
{
	sbx_mutation *m = NULL;
	int rc = sbx_mutation_new(&m, row, row_len);
	rc = rc ? rc : add_deletes(m, ops, nops, data_ts - 1);
	rc = rc ? rc
		: sbx_mutation_put(m, SBX_TXN_LOCK_FAMILY,
				   SBX_TXN_LOCK_QUALIFIER, 4, lock_ts, lock,
				   lock_len);
	rc = rc ? rc : add_puts(m, ops, nops, data_ts);
	if (rc) {
		sbx_mutation_free(m);
		m = NULL;
	}
	*out = m;
	return rc;
}

/*
 * A row's deletes and its puts in two calls, for a backend that cannot
 * check, delete and put in one (HBase REST: check=put takes only puts, and
 * its check=delete deletes ONE version of a column - RowResource uses
 * Delete.addColumn - not all of them). The deletes go as a plain delete of
 * every version <= data_ts - 1, then the puts and the new lock as a
 * check-and-put. The deletes need no guard: they run only for a committed
 * transaction (roll-forward), and repeating them, even after the row has
 * moved on, changes nothing - they cover exactly the versions up to
 * commit_ts - 1, which this transaction's own deletes already cover, and
 * every later write is newer. The lock is read first only to spare a
 * helper that lost the race the work.
 */
static int deletes_then_puts(bool *ok, sbx_table *t, const uint8_t *row,
			     size_t row_len, const tx_seen *expect,
			     const tx_op *ops, size_t nops, int64_t data_ts,
			     sbx_mutation *puts)
{
	tx_seen now = {0};
	int rc = tx_read_lock(&now, t, row, row_len);
	bool same = rc == SBX_OK && tx_seen_equal(&now, expect);
	tx_seen_free(&now);
	if (rc || !same) {
		*ok = false;
		return rc;
	}
	sbx_mutation *dels = NULL;
	rc = sbx_mutation_new(&dels, row, row_len);
	rc = rc ? rc : add_deletes(dels, ops, nops, data_ts - 1);
	rc = rc ? rc : sbx_table_mutate(NULL, t, dels);
	sbx_mutation_free(dels);
	return rc ? rc : cam(ok, t, row, row_len, expect, puts);
}

int tx_lock_cas(bool *ok, sbx_table *t, const uint8_t *row, size_t row_len,
		const tx_seen *expect, const uint8_t *lock, size_t lock_len,
		int64_t lock_ts, const tx_op *ops, size_t nops, int64_t data_ts,
		bool atomic)
{
	*ok = false;
	bool deletes = false;
	for (size_t i = 0; i < nops; i++)
		deletes |= ops[i].kind != TX_PUT;
	sbx_mutation *m = NULL;
	int rc = sbx_mutation_new(&m, row, row_len);
	rc = rc ? rc
		: sbx_mutation_put(m, SBX_TXN_LOCK_FAMILY,
				   SBX_TXN_LOCK_QUALIFIER, 4, lock_ts, lock,
				   lock_len);
	rc = rc ? rc : add_puts(m, ops, nops, data_ts);
	if (rc == SBX_OK && deletes) {
		/* one check-and-mutate where the backend can (the embedded
		 * store); else the deletes first, then the puts */
		sbx_mutation *both = NULL;
		rc = tx_row_mutation(&both, row, row_len, lock, lock_len,
				     lock_ts, ops, nops, data_ts);
		rc = rc ? rc : cam(ok, t, row, row_len, expect, both);
		sbx_mutation_free(both);
		if (rc == SBX_EUNSUPPORTED && !atomic)
			rc = deletes_then_puts(ok, t, row, row_len, expect, ops,
					       nops, data_ts, m);
	} else if (rc == SBX_OK) {
		rc = cam(ok, t, row, row_len, expect, m);
	}
	sbx_mutation_free(m);
	return rc;
}

/* ---- rolling a row forward or back --------------------------------------- */

/* The operations a lock carries, as an array (views into the lock). */
static int lock_ops(tx_op **out, const tx_lock *lk)
{
	*out = NULL;
	if (!lk->nops)
		return SBX_OK;
	tx_op *ops = sbx_calloc(lk->nops, sizeof *ops);
	if (!ops)
		return SBX_ENOMEM_SET();
	const uint8_t *at = lk->ops_at;
	for (size_t i = 0; i < lk->nops; i++)
		lock_op(lk, &at, &ops[i]);
	*out = ops;
	return SBX_OK;
}

int tx_roll_forward_row(bool *ok, sbx_table *t, const uint8_t *row,
			size_t row_len, const tx_seen *seen, const tx_lock *lk)
{
	tx_op *ops;
	int rc = lock_ops(&ops, lk);
	if (rc)
		return rc;
	sbx_buf stable = {0};
	int64_t version = lk->commit_ts + 2;
	rc = lock_encode_stable(&stable, lk->commit_ts, version);
	rc =
	    rc ? rc
	       : tx_lock_cas(ok, t, row, row_len, seen, stable.data, stable.len,
			     version, ops, lk->nops, lk->commit_ts, false);
	sbx_buf_free(&stable);
	free(ops);
	return rc;
}

int tx_roll_back_row(bool *ok, sbx_table *t, const uint8_t *row, size_t row_len,
		     const tx_seen *seen, const tx_lock *lk)
{
	sbx_buf stable = {0};
	int64_t version = lk->commit_ts + 2;
	int rc = lock_encode_stable(&stable, lk->prev_commit_ts, version);
	rc = rc ? rc
		: tx_lock_cas(ok, t, row, row_len, seen, stable.data,
			      stable.len, version, NULL, 0, 0, false);
	sbx_buf_free(&stable);
	return rc;
}

/* ---- tables by name ----------------------------------------------------- */

void tx_tables_init(tx_tables *ts, sbx_db *db)
{
	memset(ts, 0, sizeof *ts);
	ts->db = db;
}

void tx_tables_free(tx_tables *ts)
{
	for (size_t i = 0; i < ts->n; i++) {
		if (ts->v[i].owned)
			sbx_table_close(ts->v[i].t);
		free(ts->v[i].name);
		sbx_strv_free(ts->v[i].families);
	}
	free(ts->v);
	memset(ts, 0, sizeof *ts);
}

/* "default:t" and "t" are one table: locks and the commit order use the
 * short form. */
static void canonical(const char **name, size_t *len)
{
	if (*len > 8 && !memcmp(*name, "default:", 8)) {
		*name += 8;
		*len -= 8;
	}
}

const char *tx_canonical_name(const char *name)
{
	size_t len = strlen(name);
	canonical(&name, &len);
	return name;
}

static int tables_push(tx_tables *ts, const char *name, size_t len,
		       sbx_table *t, bool owned)
{
	if (ts->n == ts->cap) {
		size_t cap = ts->cap ? ts->cap * 2 : 4;
		void *v = sbx_realloc(ts->v, cap * sizeof *ts->v);
		if (!v)
			return SBX_ENOMEM_SET();
		ts->v = v;
		ts->cap = cap;
	}
	char *copy = sbx_malloc(len + 1);
	if (!copy)
		return SBX_ENOMEM_SET();
	memcpy(copy, name, len);
	copy[len] = 0;
	ts->v[ts->n].name = copy;
	ts->v[ts->n].t = t;
	ts->v[ts->n].owned = owned;
	ts->v[ts->n].families = NULL;
	ts->v[ts->n].has_lock_family = false;
	ts->n++;
	return SBX_OK;
}

static size_t tables_find(const tx_tables *ts, const char *name, size_t len)
{
	canonical(&name, &len);
	for (size_t i = 0; i < ts->n; i++)
		if (strlen(ts->v[i].name) == len &&
		    !memcmp(ts->v[i].name, name, len))
			return i;
	return SIZE_MAX;
}

int tx_tables_get(sbx_table **out, tx_tables *ts, const char *name, size_t len)
{
	*out = NULL;
	size_t i = tables_find(ts, name, len);
	if (i != SIZE_MAX) {
		*out = ts->v[i].t;
		return SBX_OK;
	}
	char copy[512];
	if (len >= sizeof copy || memchr(name, 0, len))
		return sbx_error_set(SBX_EBADVALUE,
				     "a lock names a table that cannot exist "
				     "(%zu bytes)",
				     len);
	memcpy(copy, name, len);
	copy[len] = 0;
	sbx_table *t;
	int rc = sbx_table_open(&t, ts->db, copy);
	if (rc)
		return rc;
	canonical(&name, &len);
	rc = tables_push(ts, name, len, t, true);
	if (rc) {
		sbx_table_close(t);
		return rc;
	}
	*out = t;
	return SBX_OK;
}

int tx_tables_add(size_t *index, tx_tables *ts, sbx_table *t)
{
	const char *name = tx_canonical_name(sbx_table_name(t));
	size_t len = strlen(name);
	size_t i = tables_find(ts, name, len);
	if (i != SIZE_MAX) {
		*index = i;
		return SBX_OK;
	}
	int rc = tables_push(ts, name, len, t, false);
	if (rc == SBX_OK)
		*index = ts->n - 1;
	return rc;
}
