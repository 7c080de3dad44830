/*
 * iter.c - reading many entities: a collection's siblings in a range
 * (forward or reverse, limited, read in batches of columns), a subtree,
 * every entity of a kind (a table scan), and an index's entities (one
 * scan per salt bucket, merged). Each iterator runs in the caller's
 * transaction or in its own, ended when the iterator is closed; the
 * multi-row ones renew their own every DS_ROWS_PER_TXN rows. An entity a
 * reference index row names but that is missing is a conflict when the
 * row changed since the scan read it (a concurrent delete), an error only
 * when the row dangles.
 */
#include "ds_int.h"

#include "common/alloc.h"
#include "common/bytes.h"
#include "common/error.h"

#include <stdlib.h>
#include <string.h>

typedef enum { IT_ROW, IT_TABLE, IT_INDEX } it_type;

typedef struct pend {
	sbx_ds_key *k;
	uint8_t *v;
	size_t vlen;
	ProtobufCMessage *msg; /* already decoded (reference lookups) */
} pend;

/* One range of rows, reopened after the iterator renews its transaction */
typedef struct rscan {
	sbx_buf start, stop;
	sbx_buf last;
	bool have_last, done;
	sbx_scanner *s;
	sbx_result *head;
} rscan;

struct sbx_ds_iter {
	sbx_ds *ds;
	sbx_txn *txn;
	bool own;
	int err;
	it_type type;
	sbx_ds_key *cur;
	pend *q;
	size_t qn, qi, qcap;
	size_t yielded, limit;
	bool reverse;
	/* IT_ROW */
	sbx_table *t;
	sbx_buf row;
	ds_elem root;
	sbx_buf lo, hi;
	bool lo_incl, hi_incl, has_hi, row_done;
	int batch;
	sbx_ds_key *under;  /* tree: keep this key and what is below */
	sbx_ds_key *parent; /* siblings */
	uint16_t kind;
	/* IT_TABLE, IT_INDEX */
	rscan *rs;
	size_t nrs, salt_len, rows_in_txn;
	uint16_t root_kind;
	const ds_index *ix;
};

static void pend_free(pend *p)
{
	sbx_ds_key_free(p->k);
	free(p->v);
	sbx_ds_entity_free(p->msg);
	memset(p, 0, sizeof *p);
}

static int push(sbx_ds_iter *it, sbx_ds_key *k, const uint8_t *v, size_t vlen,
		ProtobufCMessage *msg)
{
	if (it->qn == it->qcap) {
		size_t cap = it->qcap ? 2 * it->qcap : 16;
		pend *q = sbx_realloc(it->q, cap * sizeof *q);
		if (!q)
			goto nomem;
		it->q = q;
		it->qcap = cap;
	}
	pend p = {k, NULL, vlen, msg};
	if (v) {
		p.v = sbx_malloc(vlen ? vlen : 1);
		if (!p.v)
			goto nomem;
		memcpy(p.v, v, vlen);
	}
	it->q[it->qn++] = p;
	return SBX_OK;
nomem:
	sbx_ds_key_free(k);
	sbx_ds_entity_free(msg);
	return SBX_ENOMEM_SET();
}

static void queue_reset(sbx_ds_iter *it)
{
	for (size_t i = it->qi; i < it->qn; i++)
		pend_free(&it->q[i]);
	it->qn = it->qi = 0;
}

static int new_iter(sbx_ds_iter **out, sbx_ds *ds, sbx_txn *txn, it_type type)
{
	*out = NULL;
	int rc = ds_need_prepared(ds);
	if (rc)
		return rc;
	sbx_ds_iter *it = sbx_calloc(1, sizeof *it);
	if (!it)
		return SBX_ENOMEM_SET();
	it->ds = ds;
	it->type = type;
	it->txn = txn;
	if (!txn) {
		rc = ds_begin(&it->txn, ds);
		if (rc) {
			free(it);
			return rc;
		}
		it->own = true;
	}
	*out = it;
	return SBX_OK;
}

static void rscan_close(rscan *r)
{
	sbx_scanner_close(r->s);
	r->s = NULL;
}

void sbx_ds_iter_close(sbx_ds_iter *it)
{
	if (!it)
		return;
	for (size_t i = 0; i < it->nrs; i++) {
		rscan_close(&it->rs[i]);
		sbx_result_free(it->rs[i].head);
		sbx_buf_free(&it->rs[i].start);
		sbx_buf_free(&it->rs[i].stop);
		sbx_buf_free(&it->rs[i].last);
	}
	free(it->rs);
	if (it->own)
		sbx_txn_rollback(it->txn); /* it only read */
	queue_reset(it);
	free(it->q);
	sbx_ds_key_free(it->cur);
	sbx_buf_free(&it->row);
	sbx_buf_free(&it->lo);
	sbx_buf_free(&it->hi);
	free(it->root.b);
	sbx_ds_key_free(it->under);
	sbx_ds_key_free(it->parent);
	free(it);
}

/* ---- one row, in batches of columns ----------------------------------- */

static bool below_lo(const sbx_ds_iter *it, const uint8_t *q, size_t n)
{
	int c = sbx_bytes_cmp(q, n, it->lo.data, it->lo.len);
	return c < 0 || (c == 0 && !it->lo_incl);
}

static bool above_hi(const sbx_ds_iter *it, const uint8_t *q, size_t n)
{
	if (!it->has_hi)
		return false;
	int c = sbx_bytes_cmp(q, n, it->hi.data, it->hi.len);
	return c > 0 || (c == 0 && !it->hi_incl);
}

static bool wanted(const sbx_ds_iter *it, const sbx_ds_key *k)
{
	if (it->under)
		return ds_key_is_prefix(it->under, k);
	return k->n == it->parent->n + 1 && ds_key_is_prefix(it->parent, k) &&
	       sbx_ds_key_kind(k) == it->kind;
}

/* keep only the last `limit` entities of a reverse range */
static void trim(sbx_ds_iter *it)
{
	if (!it->reverse || !it->limit || it->qn <= it->limit)
		return;
	size_t drop = it->qn - it->limit;
	for (size_t i = 0; i < drop; i++)
		pend_free(&it->q[i]);
	memmove(it->q, it->q + drop, it->limit * sizeof *it->q);
	it->qn = it->limit;
}

static int row_batch(sbx_ds_iter *it)
{
	/* forward with a limit: no more columns than entities still wanted */
	int batch = it->batch;
	if (!it->reverse && it->limit) {
		size_t want = it->limit - it->yielded;
		if (want < (size_t)batch)
			batch = want ? (int)want : 1;
	}
	sbx_buf off = {0};
	sbx_filter *f = NULL;
	sbx_result *res = NULL;
	int rc = sbx_buf_append(&off, it->lo.data, it->lo.len);
	if (rc == SBX_OK && !it->lo_incl)
		rc = sbx_buf_append(&off, "", 1);
	rc = rc ? rc
		: sbx_filter_new_column_pagination_from(&f, batch, off.data,
							off.len);
	sbx_column fam = {SBX_DS_FAMILY, NULL, 0};
	sbx_read_opts o;
	sbx_read_opts_init(&o);
	o.columns = &fam;
	o.ncolumns = 1;
	o.filter = f;
	bool whole = false;
	if (rc == SBX_OK) {
		rc = sbx_txn_get(&res, it->txn, it->t, it->row.data,
				 it->row.len, &o);
		if (rc == SBX_EUNSUPPORTED) {
			/* a row this transaction wrote: read it whole */
			o.filter = NULL;
			whole = true;
			rc = sbx_txn_get(&res, it->txn, it->t, it->row.data,
					 it->row.len, &o);
		}
	}
	size_t n = rc ? 0 : sbx_result_size(res);
	for (size_t i = 0; rc == SBX_OK && i < n; i++) {
		const sbx_cell *c = sbx_result_cell(res, i);
		if (below_lo(it, c->qualifier, c->qualifier_len))
			continue;
		if (above_hi(it, c->qualifier, c->qualifier_len)) {
			it->row_done = true;
			break;
		}
		sbx_ds_key *k = NULL;
		bool meta;
		rc = ds_parse_qualifier(&k, &meta, NULL, &it->root,
					c->qualifier, c->qualifier_len);
		if (rc == SBX_ENOMEM)
			break;
		if (rc) {
			char msg[300];
			snprintf(msg, sizeof msg, "%s", sbx_errmsg());
			sbx_buf row = {0}, q = {0};
			if (sbx_key_to_binary_string(&row, it->row.data,
						     it->row.len) ||
			    sbx_key_to_binary_string(&q, c->qualifier,
						     c->qualifier_len))
				rc = SBX_ENOMEM_SET();
			else
				rc = sbx_error_set(
				    SBX_EBADVALUE,
				    "row '%.*s': column '%.*s' is not a "
				    "datastore column: %s",
				    (int)row.len, (const char *)row.data,
				    (int)q.len, (const char *)q.data, msg);
			sbx_buf_free(&row);
			sbx_buf_free(&q);
			break;
		}
		if (meta || !wanted(it, k)) {
			sbx_ds_key_free(k);
			continue;
		}
		rc = push(it, k, c->value, c->value_len, NULL);
		trim(it);
	}
	if (rc == SBX_OK && (whole || n < (size_t)batch))
		it->row_done = true;
	if (rc == SBX_OK && n) {
		const sbx_cell *c = sbx_result_cell(res, n - 1);
		it->lo.len = 0;
		rc = sbx_buf_append(&it->lo, c->qualifier, c->qualifier_len);
		it->lo_incl = false;
	}
	sbx_filter_free(f);
	sbx_result_free(res);
	sbx_buf_free(&off);
	return rc;
}

static int row_fill(sbx_ds_iter *it)
{
	if (!it->reverse)
		return it->row_done ? SBX_ITEROVER : row_batch(it);
	if (it->row_done)
		return SBX_ITEROVER;
	int rc = SBX_OK;
	while (rc == SBX_OK && !it->row_done)
		rc = row_batch(it);
	for (size_t i = 0; rc == SBX_OK && i < it->qn / 2; i++) {
		pend t = it->q[i];
		it->q[i] = it->q[it->qn - 1 - i];
		it->q[it->qn - 1 - i] = t;
	}
	return rc;
}

static int row_setup(sbx_ds_iter *it, const sbx_ds_key *k)
{
	it->t = ds_table_for(it->ds, k);
	int rc = ds_row_key(&it->row, it->ds, k);
	if (rc)
		return rc;
	it->root = k->e[0];
	it->root.b = NULL;
	if (k->e[0].is_bytes) {
		it->root.b = sbx_malloc(k->e[0].blen);
		if (!it->root.b)
			return SBX_ENOMEM_SET();
		memcpy(it->root.b, k->e[0].b, k->e[0].blen);
	}
	if (it->batch <= 0)
		it->batch = DS_DEFAULT_BATCH;
	it->lo_incl = true;
	return SBX_OK;
}

void sbx_ds_range_init(sbx_ds_range *r)
{
	memset(r, 0, sizeof *r);
	r->from_inclusive = true;
	r->to_inclusive = true;
}

static int check_sibling(const sbx_ds *ds, const sbx_ds_key *parent,
			 uint16_t kind, const sbx_ds_key *k, const char *which)
{
	if (!k || (k->n == parent->n + 1 && ds_key_is_prefix(parent, k) &&
		   sbx_ds_key_kind(k) == kind))
		return SBX_OK;
	char a[300], b[300];
	ds_key_name(a, sizeof a, ds, k);
	ds_key_name(b, sizeof b, ds, parent);
	return sbx_error_set(SBX_EINVAL,
			     "sibling range: %s key %s is not an item of "
			     "kind %u under %s",
			     which, a, (unsigned)kind, b);
}

int sbx_ds_scan_siblings(sbx_ds_iter **out, sbx_ds *ds, sbx_txn *txn,
			 const sbx_ds_key *parent, uint16_t kind,
			 const sbx_ds_range *r)
{
	*out = NULL;
	sbx_ds_range defaults;
	if (!r) {
		sbx_ds_range_init(&defaults);
		r = &defaults;
	}
	int rc = ds_need_prepared(ds);
	if (rc == SBX_OK && (!parent || kind == 0 || r->batch < 0))
		rc = sbx_error_set(SBX_EINVAL,
				   "sibling range: needs a parent, a kind "
				   "1..65535 and a batch >= 0");
	rc = rc ? rc : check_sibling(ds, parent, kind, r->from, "from");
	rc = rc ? rc : check_sibling(ds, parent, kind, r->to, "to");
	if (rc == SBX_OK && !ds_kind_find(ds, parent->e[0].kind))
		rc = sbx_error_set(SBX_EINVAL, "root kind %u is not registered",
				   (unsigned)parent->e[0].kind);
	sbx_ds_iter *it = NULL;
	rc = rc ? rc : new_iter(&it, ds, txn, IT_ROW);
	if (rc)
		return rc;
	it->batch = r->batch;
	it->reverse = r->reverse;
	it->limit = r->limit;
	it->kind = kind;
	rc = row_setup(it, parent);
	rc = rc ? rc : sbx_ds_key_copy(&it->parent, parent);
	/* items: kind + path + 01 + id; the collection ends before ... 02 */
	sbx_buf coll = {0};
	rc = rc ? rc : sbx_ds_key_encode_meta(&coll, parent, kind);
	if (rc == SBX_OK) {
		coll.data[coll.len - 1] = SBX_DS_FLAG_ITEM;
		if (r->from) {
			rc = sbx_ds_key_encode_qualifier(&it->lo, r->from);
			it->lo_incl = r->from_inclusive;
		} else {
			rc = sbx_buf_append(&it->lo, coll.data, coll.len);
		}
		it->has_hi = true;
		if (rc == SBX_OK && r->to) {
			rc = sbx_ds_key_encode_qualifier(&it->hi, r->to);
			it->hi_incl = r->to_inclusive;
		} else if (rc == SBX_OK) {
			coll.data[coll.len - 1] = SBX_DS_FLAG_ITEM + 1;
			rc = sbx_buf_append(&it->hi, coll.data, coll.len);
			it->hi_incl = false;
		}
	}
	sbx_buf_free(&coll);
	if (rc) {
		sbx_ds_iter_close(it);
		return rc;
	}
	*out = it;
	return SBX_OK;
}

int sbx_ds_get_tree(sbx_ds_iter **out, sbx_ds *ds, sbx_txn *txn,
		    const sbx_ds_key *key)
{
	*out = NULL;
	int rc = ds_need_prepared(ds);
	if (rc == SBX_OK && !key)
		rc = sbx_error_set(SBX_EINVAL, "sbx_ds_get_tree: no key");
	if (rc == SBX_OK && !ds_kind_find(ds, key->e[0].kind))
		rc = sbx_error_set(SBX_EINVAL, "root kind %u is not registered",
				   (unsigned)key->e[0].kind);
	sbx_ds_iter *it = NULL;
	rc = rc ? rc : new_iter(&it, ds, txn, IT_ROW);
	if (rc)
		return rc;
	rc = row_setup(it, key);
	rc = rc ? rc : sbx_ds_key_copy(&it->under, key);
	if (rc) {
		sbx_ds_iter_close(it);
		return rc;
	}
	*out = it;
	return SBX_OK;
}

/* ---- many rows --------------------------------------------------------- */

static int renew(sbx_ds_iter *it)
{
	if (!it->own || it->rows_in_txn < DS_ROWS_PER_TXN)
		return SBX_OK;
	for (size_t i = 0; i < it->nrs; i++)
		rscan_close(&it->rs[i]);
	sbx_txn_rollback(it->txn);
	it->txn = NULL;
	it->rows_in_txn = 0;
	return ds_begin(&it->txn, it->ds);
}

/* make sure r->head holds r's next row (or r->done) */
static int rscan_head(sbx_ds_iter *it, rscan *r)
{
	if (r->head || r->done)
		return SBX_OK;
	int rc = renew(it);
	if (rc)
		return rc;
	if (!r->s) {
		sbx_column fam = {SBX_DS_FAMILY, NULL, 0};
		sbx_scan_opts o;
		sbx_scan_opts_init(&o);
		o.read.columns = &fam;
		o.read.ncolumns = 1;
		o.reversed = it->reverse;
		if (!it->reverse) {
			o.start_row = r->have_last ? r->last.data : r->start.data;
			o.start_row_len = r->have_last ? r->last.len : r->start.len;
			o.start_inclusive = !r->have_last;
			o.stop_row = r->stop.data;
			o.stop_row_len = r->stop.len;
		} else {
			o.start_row = r->have_last ? r->last.data : r->stop.data;
			o.start_row_len = r->have_last ? r->last.len : r->stop.len;
			o.start_inclusive = false;
			o.stop_row = r->start.data;
			o.stop_row_len = r->start.len;
			o.stop_inclusive = true;
		}
		rc = sbx_txn_scanner_open(&r->s, it->txn, it->t, &o);
		if (rc)
			return rc;
	}
	rc = sbx_scanner_next(r->s, &r->head);
	if (rc == SBX_ITEROVER) {
		r->done = true;
		rscan_close(r);
		return SBX_OK;
	}
	if (rc)
		return rc;
	it->rows_in_txn++;
	size_t len;
	const uint8_t *row = sbx_result_row(r->head, &len);
	r->last.len = 0;
	r->have_last = true;
	return sbx_buf_append(&r->last, row, len);
}

/* the next row of the merged ranges, or NULL at the end */
static int next_row(sbx_result **out, sbx_ds_iter *it)
{
	*out = NULL;
	rscan *best = NULL;
	const uint8_t *bk = NULL;
	size_t bl = 0;
	for (size_t i = 0; i < it->nrs; i++) {
		int rc = rscan_head(it, &it->rs[i]);
		if (rc)
			return rc;
	}
	for (size_t i = 0; i < it->nrs; i++) {
		rscan *r = &it->rs[i];
		if (!r->head)
			continue;
		size_t len;
		const uint8_t *row = sbx_result_row(r->head, &len);
		size_t s = it->salt_len < len ? it->salt_len : len;
		if (best) {
			int c = sbx_bytes_cmp(row + s, len - s, bk, bl);
			if (it->reverse ? c <= 0 : c >= 0)
				continue;
		}
		best = r;
		bk = row + s;
		bl = len - s;
	}
	if (best) {
		*out = best->head;
		best->head = NULL;
	}
	return SBX_OK;
}

static int add_range(sbx_ds_iter *it, const uint8_t *start, size_t slen,
		     const uint8_t *stop, size_t stlen)
{
	rscan *v = sbx_realloc(it->rs, (it->nrs + 1) * sizeof *v);
	if (!v)
		return SBX_ENOMEM_SET();
	it->rs = v;
	rscan *r = &v[it->nrs++];
	memset(r, 0, sizeof *r);
	int rc = sbx_buf_append(&r->start, start, slen);
	return rc ? rc : sbx_buf_append(&r->stop, stop, stlen);
}

/* the error `rc` just set, as SBX_EBADVALUE naming the row (SBX_ENOMEM
 * stays itself) */
static int bad_row(int rc, const sbx_result *res, const char *what)
{
	if (rc == SBX_ENOMEM)
		return rc;
	char msg[300];
	snprintf(msg, sizeof msg, "%s", sbx_errmsg());
	size_t len;
	const uint8_t *row = sbx_result_row(res, &len);
	sbx_buf s = {0};
	if (sbx_key_to_binary_string(&s, row, len))
		rc = SBX_ENOMEM_SET();
	else
		rc = sbx_error_set(SBX_EBADVALUE, "%s row '%.*s': %s", what,
				   (int)s.len, (const char *)s.data, msg);
	sbx_buf_free(&s);
	return rc;
}

static int table_fill(sbx_ds_iter *it)
{
	for (;;) {
		sbx_result *res;
		int rc = next_row(&res, it);
		if (rc)
			return rc;
		if (!res)
			return SBX_ITEROVER;
		size_t n = sbx_result_size(res);
		size_t rowlen;
		const uint8_t *row = sbx_result_row(res, &rowlen);
		for (size_t i = 0; rc == SBX_OK && i < n; i++) {
			const sbx_cell *c = sbx_result_cell(res, i);
			sbx_ds_key *k;
			bool meta;
			rc = sbx_ds_key_decode(&k, &meta, NULL, it->ds, row,
					       rowlen, c->qualifier,
					       c->qualifier_len);
			if (rc) {
				rc = bad_row(rc, res, "datastore");
				break;
			}
			if (meta || k->e[0].kind != it->root_kind ||
			    sbx_ds_key_kind(k) != it->kind) {
				sbx_ds_key_free(k);
				continue;
			}
			rc = push(it, k, c->value, c->value_len, NULL);
		}
		sbx_result_free(res);
		if (rc || it->qn)
			return rc;
	}
}

int sbx_ds_scan_kind(sbx_ds_iter **out, sbx_ds *ds, sbx_txn *txn,
		     uint16_t kind, uint16_t root_kind)
{
	*out = NULL;
	int rc = ds_need_prepared(ds);
	const ds_kind *rk = rc ? NULL : ds_kind_find(ds, root_kind);
	if (rc == SBX_OK && (!rk || !ds_kind_find(ds, kind)))
		rc = sbx_error_set(SBX_EINVAL,
				   "sbx_ds_scan_kind: kind %u or root kind %u "
				   "is not registered",
				   (unsigned)kind, (unsigned)root_kind);
	sbx_ds_iter *it = NULL;
	rc = rc ? rc : new_iter(&it, ds, txn, IT_TABLE);
	if (rc)
		return rc;
	it->kind = kind;
	it->root_kind = root_kind;
	it->t = ds->tables[rk->table].t;
	rc = add_range(it, NULL, 0, NULL, 0);
	if (rc) {
		sbx_ds_iter_close(it);
		return rc;
	}
	*out = it;
	return SBX_OK;
}

/* A reference index row whose entity k the transaction found missing: a
 * damaged index (the row dangles), or another transaction deleted the
 * entity, and the row with it, after the scan read the row. Read the row
 * again by key in the same transaction to tell: a row the scan returned
 * and another transaction has changed since is SBX_ECONFLICT (the reads of
 * one row agree within a transaction, docs/transactions.md), which
 * sbx_txn_run retries; a row gone or different although this transaction
 * has not read it before (its own transaction renewed in between) is the
 * same race. Only the row still there as read is SBX_EBADVALUE. */
static int entity_missing(sbx_ds_iter *it, const sbx_result *res,
			  const sbx_cell *kc, const sbx_ds_key *k,
			  const char *what)
{
	char name[300];
	ds_key_name(name, sizeof name, it->ds, k);
	sbx_buf row = {0}; /* a view of the row's key, not owned */
	row.data = (uint8_t *)sbx_result_row(res, &row.len);
	const sbx_buf *q[1] = {&ds_ref_qualifier};
	sbx_result *again = NULL;
	int rc = ds_read_cols(&again, it->txn, it->t, &row, q, 1);
	const sbx_cell *now =
	    rc ? NULL : sbx_result_get(again, SBX_DS_FAMILY, "k", 1);
	bool same = now && now->value_len == kc->value_len &&
		    !memcmp(now->value, kc->value, kc->value_len);
	sbx_result_free(again);
	if (rc == SBX_ECONFLICT) {
		char msg[1024]; /* the row's name: sbx_errmsg's whole length */
		snprintf(msg, sizeof msg, "%s", sbx_errmsg());
		return sbx_error_set(SBX_ECONFLICT,
				     "%s %s is missing, and another "
				     "transaction has changed its index row "
				     "since the scan read it: %s",
				     what, name, msg);
	}
	if (rc)
		return rc;
	if (!same)
		return sbx_error_set(SBX_ECONFLICT,
				     "%s %s is missing, and another "
				     "transaction has deleted or changed its "
				     "index row since the scan read it",
				     what, name);
	return bad_row(sbx_error_set(SBX_EBADVALUE,
				     "it refers to %s, which does not exist",
				     name),
		       res, what);
}

static int index_fill(sbx_ds_iter *it)
{
	sbx_result *res;
	int rc = next_row(&res, it);
	if (rc)
		return rc;
	if (!res)
		return SBX_ITEROVER;
	const sbx_cell *kc = sbx_result_get(res, SBX_DS_FAMILY, "k", 1);
	const sbx_cell *vc = sbx_result_get(res, SBX_DS_FAMILY, "v", 1);
	sbx_ds_key *k = NULL;
	char what[300];
	snprintf(what, sizeof what, "index %s:", it->ix->name);
	if (!kc || (it->ix->type == SBX_DS_INDEX_CLUSTERED && !vc)) {
		rc = bad_row(sbx_error_set(SBX_EBADVALUE, "a cell is missing"),
			     res, what);
	} else if ((rc = ds_ref_decode(&k, it->ds, kc->value,
				       kc->value_len)) != SBX_OK) {
		rc = bad_row(rc, res, what);
	} else if (it->ix->type == SBX_DS_INDEX_CLUSTERED) {
		rc = push(it, k, vc->value, vc->value_len, NULL);
	} else {
		ProtobufCMessage *m = NULL;
		rc = sbx_ds_get(&m, it->ds, it->txn, k);
		it->rows_in_txn++;
		if (rc == SBX_OK && !m)
			rc = entity_missing(it, res, kc, k, what);
		if (rc == SBX_OK)
			rc = push(it, k, NULL, 0, m);
		else
			sbx_ds_key_free(k);
	}
	sbx_result_free(res);
	return rc;
}

int sbx_ds_index_scan(sbx_ds_iter **out, sbx_ds *ds, sbx_txn *txn,
		      const char *index, const sbx_keycond *conds, size_t n,
		      bool reverse, size_t limit)
{
	*out = NULL;
	int rc = ds_need_prepared(ds);
	const ds_index *ix = NULL;
	for (size_t i = 0; rc == SBX_OK && index && i < ds->nindexes; i++)
		if (!strcmp(ds->indexes[i].name, index))
			ix = &ds->indexes[i];
	if (rc == SBX_OK && !ix)
		rc = sbx_error_set(SBX_EINVAL, "no index named %s",
				   index ? index : "(null)");
	sbx_keyplan *plan = NULL;
	rc = rc ? rc : sbx_keydesign_plan(&plan, ix->design, conds, n);
	sbx_ds_iter *it = NULL;
	rc = rc ? rc : new_iter(&it, ds, txn, IT_INDEX);
	if (rc) {
		sbx_keyplan_free(plan);
		return rc;
	}
	it->ix = ix;
	it->reverse = reverse;
	it->limit = limit;
	it->t = ds->tables[ix->table].t;
	it->salt_len = plan->salt_len;
	for (size_t i = 0; rc == SBX_OK && i < plan->count; i++)
		rc = add_range(it, plan->ranges[i].start,
			       plan->ranges[i].start_len, plan->ranges[i].stop,
			       plan->ranges[i].stop_len);
	sbx_keyplan_free(plan);
	if (rc) {
		sbx_ds_iter_close(it);
		return rc;
	}
	*out = it;
	return SBX_OK;
}

/* ---- next ---------------------------------------------------------------- */

int sbx_ds_iter_next(sbx_ds_iter *it, const sbx_ds_key **key,
		     ProtobufCMessage **msg)
{
	if (key)
		*key = NULL;
	if (msg)
		*msg = NULL;
	if (!it)
		return sbx_error_set(SBX_EINVAL, "no iterator");
	if (it->err)
		return it->err == SBX_ITEROVER
			   ? SBX_ITEROVER
			   : sbx_error_set(it->err,
					   "the iterator stopped at an "
					   "earlier error");
	if (it->limit && it->yielded >= it->limit)
		return SBX_ITEROVER;
	int rc = SBX_OK;
	while (it->qi == it->qn) {
		queue_reset(it);
		switch (it->type) {
		case IT_ROW:
			rc = row_fill(it);
			break;
		case IT_TABLE:
			rc = table_fill(it);
			break;
		case IT_INDEX:
			rc = index_fill(it);
			break;
		}
		if (rc) {
			it->err = rc;
			return rc;
		}
	}
	pend *p = &it->q[it->qi++];
	sbx_ds_key_free(it->cur);
	it->cur = p->k;
	p->k = NULL;
	if (msg) {
		if (p->msg) {
			*msg = p->msg;
			p->msg = NULL;
		} else {
			rc = sbx_ds_entity_decode(msg, it->ds, it->cur, p->v,
						  p->vlen);
		}
	}
	pend_free(p);
	if (rc) {
		it->err = rc;
		return rc;
	}
	it->yielded++;
	if (key)
		*key = it->cur;
	return SBX_OK;
}
