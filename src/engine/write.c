/*
 * write.c - the write path. A row's mutation runs under its row-stripe lock:
 * the stripe assigns a timestamp strictly greater than any it gave before
 * (so a delete and a put in the same millisecond never collide), reads what
 * increments, appends and latest-version deletes need, and commits every
 * cell of the row in one RocksDB write batch, so readers see all or none.
 */
#include "common/error.h"
#include "engine/cellkey.h"
#include "engine/engine.h"
#include "model/mutation.h"
#include "model/result.h"
#include "model/rules.h"

#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

static unsigned stripe_of(const uint8_t *row, size_t n)
{
	return (unsigned)(XXH3_64bits(row, n) % ENGINE_ROW_STRIPES);
}

/* REQUIRES: stripe lock s held. */
static int64_t next_ts(engine *e, unsigned s)
{
	int64_t now = engine_now_ms();
	int64_t ts = e->stripe_ts[s] + 1;
	if (now > ts)
		ts = now;
	e->stripe_ts[s] = ts;
	return ts;
}

static int check_mutation(engine *e, table *t, const sbx_mutation *m)
{
	if (e->opts.read_only)
		return sbx_error_set(SBX_EREADONLY, "database is read-only");
	for (size_t i = 0; i < m->nops; i++) {
		const mut_op *op = &m->ops[i];
		if (op->kind == MUT_DELETE_ROW)
			continue;
		const char *fam = mut_family(m, op);
		if (!table_family(t, fam))
			return sbx_error_set(SBX_ENOFAMILY,
					     "table '%s' has no family '%s'",
					     t->name, fam);
		size_t cell = m->row_len + op->family_len + op->qual_len +
			      op->value_len;
		if (e->opts.max_cell_size && cell > e->opts.max_cell_size)
			return sbx_error_set(
				SBX_ETOOLARGE,
				"cell %s:%.*s of %zu bytes exceeds the maximum "
				"cell size of %zu bytes",
				fam, (int)(op->qual_len > 64 ? 64 : op->qual_len),
				(const char *)mut_qual(m, op), cell,
				e->opts.max_cell_size);
	}
	return SBX_OK;
}

static rocksdb_writeoptions_t *write_options(engine *e, sbx_durability d)
{
	switch (d) {
	case SBX_DURABILITY_SKIP_WAL:
		return e->wo_nowal;
	case SBX_DURABILITY_FSYNC_WAL:
		return e->wo_fsync;
	default: /* SYNC_WAL and ASYNC_WAL: WAL in the OS before the ack */
		return e->wo_wal;
	}
}

static int durability_rank(sbx_durability d)
{
	switch (d) {
	case SBX_DURABILITY_SKIP_WAL: return 0;
	case SBX_DURABILITY_ASYNC_WAL: return 1;
	case SBX_DURABILITY_FSYNC_WAL: return 3;
	default: return 2;
	}
}

/* Newest visible cell of family:qual (under the row lock). *found false if
 * the column is absent. value copied into *value. */
static int read_column(engine *e, table *t, const uint8_t *row, size_t rl,
		       const char *fam, const uint8_t *q, size_t ql,
		       bool *found, int64_t *ts, sbx_buf *value)
{
	sbx_column col = {fam, q ? (const void *)q : (const void *)"", ql};
	sbx_read_opts o;
	sbx_read_opts_init(&o);
	o.columns = &col;
	o.ncolumns = 1;
	sbx_result *res;
	int rc = engine_read_row(&res, e, t, row, rl, &o);
	if (rc)
		return rc;
	*found = res->n > 0;
	if (*found) {
		*ts = res->cells[0].timestamp;
		rc = sbx_buf_set(value, res->cells[0].value,
				 res->cells[0].value_len);
	}
	sbx_result_free(res);
	return rc;
}

/* A value produced earlier in the same mutation (for repeated counters). */
typedef struct rmw_value {
	const mut_op *op;
	sbx_buf value;
	int64_t ts;
} rmw_value;

static rmw_value *find_rmw(rmw_value *vals, size_t n, const sbx_mutation *m,
			   const mut_op *op)
{
	for (size_t i = n; i-- > 0;) {
		const mut_op *o = vals[i].op;
		if (o->family_len == op->family_len &&
		    o->qual_len == op->qual_len &&
		    !memcmp(mut_family(m, o), mut_family(m, op), op->family_len) &&
		    !memcmp(mut_qual(m, o), mut_qual(m, op), op->qual_len))
			return &vals[i];
	}
	return NULL;
}

static int put_cell(rocksdb_writebatch_t *wb, sbx_buf *key, family *f,
		    const uint8_t *row, size_t rl, const uint8_t *q, size_t ql,
		    int64_t ts, sbx_cell_type type, const uint8_t *v, size_t vl)
{
	key->len = 0;
	int rc = cellkey_encode(key, row, rl, q, ql, ts, type);
	if (rc)
		return rc;
	rocksdb_writebatch_put_cf(wb, f->cf, (const char *)key->data, key->len,
				  (const char *)v, vl);
	return SBX_OK;
}

/* Add m's cells to wb. REQUIRES: row stripe lock and t->lock (read) held. */
static int build_row_batch(engine *e, table *t, const sbx_mutation *m,
			   int64_t now_ts, rocksdb_writebatch_t *wb,
			   sbx_result *out)
{
	const uint8_t *row = mut_row(m);
	size_t rl = m->row_len;
	sbx_buf key = {0}, cur = {0};
	rmw_value *vals = NULL;
	size_t nvals = 0;
	int rc = SBX_OK;
	for (size_t i = 0; !rc && i < m->nops; i++) {
		const mut_op *op = &m->ops[i];
		int64_t ts = op->ts == SBX_LATEST_TIMESTAMP ? now_ts : op->ts;
		family *f = op->kind == MUT_DELETE_ROW
				    ? NULL
				    : table_family(t, mut_family(m, op));
		const uint8_t *q = mut_qual(m, op);
		switch (op->kind) {
		case MUT_PUT:
			rc = put_cell(wb, &key, f, row, rl, q, op->qual_len, ts,
				      SBX_CELL_PUT, mut_value(m, op),
				      op->value_len);
			break;
		case MUT_DELETE_ROW:
			for (size_t j = 0; !rc && j < t->nfams; j++)
				rc = put_cell(wb, &key, t->fams[j], row, rl,
					      NULL, 0, ts,
					      SBX_CELL_DELETE_FAMILY, NULL, 0);
			break;
		case MUT_DELETE:
			if (op->del_type == SBX_CELL_DELETE &&
			    op->ts == SBX_LATEST_TIMESTAMP) {
				/* Delete of the newest version: look it up,
				 * as HBase's prepareDeleteTimestamps. */
				bool found;
				int64_t cts;
				rc = read_column(e, t, row, rl, f->desc.name, q,
						 op->qual_len, &found, &cts, &cur);
				if (!rc && found)
					ts = cts;
			}
			if (!rc)
				rc = put_cell(wb, &key, f, row, rl, q,
					      op->qual_len, ts, op->del_type,
					      NULL, 0);
			break;
		case MUT_INCREMENT:
		case MUT_APPEND: {
			rmw_value *prev = find_rmw(vals, nvals, m, op);
			bool found = prev != NULL;
			int64_t cts = prev ? prev->ts : 0;
			cur.len = 0;
			if (prev)
				rc = sbx_buf_set(&cur, prev->value.data,
						 prev->value.len);
			else
				rc = read_column(e, t, row, rl, f->desc.name, q,
						 op->qual_len, &found, &cts,
						 &cur);
			if (rc)
				break;
			if (found && cts >= ts)
				ts = cts + 1; /* HBase: max(now, old ts + 1) */
			if (op->kind == MUT_INCREMENT) {
				if (found && cur.len != 8) {
					rc = sbx_error_set(
						SBX_EBADVALUE,
						"cannot increment %s:%.*s: the "
						"stored value is %zu bytes, not "
						"an 8-byte counter",
						f->desc.name, (int)op->qual_len,
						(const char *)q, cur.len);
					break;
				}
				uint64_t v = 0;
				for (size_t b = 0; found && b < 8; b++)
					v = (v << 8) | cur.data[b];
				v += (uint64_t)op->delta;
				uint8_t be[8];
				for (int b = 7; b >= 0; b--, v >>= 8)
					be[b] = (uint8_t)v;
				rc = sbx_buf_set(&cur, be, 8);
			} else {
				rc = sbx_buf_append(&cur, mut_value(m, op),
						    op->value_len);
				if (!rc && e->opts.max_cell_size &&
				    cur.len + rl + op->qual_len >
					    e->opts.max_cell_size)
					rc = sbx_error_set(
						SBX_ETOOLARGE,
						"append would make %s:%.*s %zu "
						"bytes, over the maximum cell "
						"size",
						f->desc.name, (int)op->qual_len,
						(const char *)q, cur.len);
			}
			if (rc)
				break;
			rc = put_cell(wb, &key, f, row, rl, q, op->qual_len, ts,
				      SBX_CELL_PUT, cur.data, cur.len);
			if (rc)
				break;
			if (!prev) {
				rmw_value *nv = realloc(vals, (nvals + 1) *
								      sizeof *nv);
				if (!nv) {
					rc = SBX_ENOMEM_SET();
					break;
				}
				vals = nv;
				prev = &vals[nvals++];
				memset(prev, 0, sizeof *prev);
			}
			prev->op = op;
			prev->ts = ts;
			rc = sbx_buf_set(&prev->value, cur.data, cur.len);
			break;
		}
		}
	}
	/* The result holds each counter's final value once, in op order. */
	for (size_t i = 0; !rc && out && i < nvals; i++) {
		const mut_op *op = vals[i].op;
		rc = result_add(out, mut_family(m, op), op->family_len,
				mut_qual(m, op), op->qual_len, vals[i].ts,
				SBX_CELL_PUT, vals[i].value.data,
				vals[i].value.len);
	}
	for (size_t i = 0; i < nvals; i++)
		sbx_buf_free(&vals[i].value);
	free(vals);
	sbx_buf_free(&key);
	sbx_buf_free(&cur);
	return rc;
}

static int commit(engine *e, rocksdb_writebatch_t *wb, sbx_durability d)
{
	char *err = NULL;
	rocksdb_write(e->db, write_options(e, d), wb, &err);
	return err ? engine_rocks_error(err, "write") : SBX_OK;
}

/* Batches larger than this are destroyed rather than kept for reuse. */
#define SPARE_WB_MAX ((size_t)1 << 20)

/* A write batch: the engine's spare (cleared, its buffer already grown),
 * or a new one. */
static rocksdb_writebatch_t *wb_take(engine *e)
{
	rocksdb_writebatch_t *wb = atomic_exchange_explicit(
		&e->spare_wb, NULL, memory_order_acquire);
	return wb ? wb : rocksdb_writebatch_create();
}

/* Give a batch back: it becomes the spare if the slot is free and it is
 * not too large, else it is destroyed. */
static void wb_give(engine *e, rocksdb_writebatch_t *wb)
{
	size_t size;
	rocksdb_writebatch_data(wb, &size);
	if (size <= SPARE_WB_MAX) {
		rocksdb_writebatch_clear(wb);
		rocksdb_writebatch_t *none = NULL;
		if (atomic_compare_exchange_strong_explicit(
			    &e->spare_wb, &none, wb, memory_order_release,
			    memory_order_relaxed))
			return;
	}
	rocksdb_writebatch_destroy(wb);
}

/* Route an applied mutation to its region's load counters (t->lock held);
 * true when the region is due a split check. */
static bool count_write(engine *e, table *t, const sbx_mutation *m)
{
	if (!e->opts.region_routing)
		return false;
	region *r = region_for_row(t, mut_row(m), m->row_len);
	return r && region_count_write(e, r, m->arena.len, m->nops);
}

/* Apply one row's mutation with the stripe lock held. */
static int apply_locked(engine *e, table *t, const sbx_mutation *m,
			unsigned stripe, sbx_result **out)
{
	sbx_result *res = NULL;
	int rc = SBX_OK;
	if (out && (rc = result_new(&res, mut_row(m), m->row_len)))
		return rc;
	rocksdb_writebatch_t *wb = wb_take(e);
	rc = build_row_batch(e, t, m, next_ts(e, stripe), wb, res);
	if (!rc)
		rc = commit(e, wb, m->durability);
	wb_give(e, wb);
	if (!rc && res)
		rc = result_finish(res);
	if (rc) {
		sbx_result_free(res);
		return rc;
	}
	if (out)
		*out = res;
	return SBX_OK;
}

int engine_mutate(void *p, const sbx_mutation *m, sbx_result **out)
{
	table_handle *h = p;
	int rc = table_lock_for_data(h->t, true);
	if (rc)
		return rc;
	rc = check_mutation(h->eng, h->t, m);
	if (!rc) {
		unsigned s = stripe_of(mut_row(m), m->row_len);
		pthread_mutex_lock(&h->eng->stripe_lock[s]);
		rc = apply_locked(h->eng, h->t, m, s, m->has_rmw ? out : NULL);
		pthread_mutex_unlock(&h->eng->stripe_lock[s]);
	}
	bool due = !rc && count_write(h->eng, h->t, m);
	pthread_rwlock_unlock(&h->t->lock);
	if (!rc)
		engine_trace(h->eng, "put", mut_row(m), m->row_len);
	if (due)
		regions_maybe_split(h->eng, h->t, mut_row(m), m->row_len);
	return rc;
}

static int cmp_unsigned(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
	return x < y ? -1 : x > y;
}

/*
 * Table.batch: each row atomically. Plain puts and deletes of all rows go in
 * one write batch under their stripe locks (taken in order, so batches
 * cannot deadlock); read-modify-write mutations run one by one.
 */
int engine_batch(void *p, sbx_mutation *const *ms, size_t n, int *statuses)
{
	table_handle *h = p;
	engine *e = h->eng;
	int rc = table_lock_for_data(h->t, true);
	if (rc) {
		for (size_t i = 0; statuses && i < n; i++)
			statuses[i] = rc;
		return rc;
	}
	int first_err = SBX_OK;
	int *st = calloc(n ? n : 1, sizeof *st);
	unsigned *stripes = calloc(n ? n : 1, sizeof *stripes);
	unsigned *locked = calloc(n ? n : 1, sizeof *locked);
	bool *due = calloc(n ? n : 1, sizeof *due);
	if (!st || !stripes || !locked || !due) {
		free(st), free(stripes), free(locked), free(due);
		pthread_rwlock_unlock(&h->t->lock);
		return SBX_ENOMEM_SET();
	}
	size_t nlocked = 0;
	sbx_durability dur = SBX_DURABILITY_SKIP_WAL;
	for (size_t i = 0; i < n; i++) {
		st[i] = check_mutation(e, h->t, ms[i]);
		stripes[i] = stripe_of(mut_row(ms[i]), ms[i]->row_len);
		if (st[i] || ms[i]->has_rmw)
			continue;
		locked[nlocked++] = stripes[i];
		if (durability_rank(ms[i]->durability) > durability_rank(dur))
			dur = ms[i]->durability;
	}
	qsort(locked, nlocked, sizeof *locked, cmp_unsigned);
	size_t u = 0;
	for (size_t i = 0; i < nlocked; i++)
		if (u == 0 || locked[u - 1] != locked[i])
			locked[u++] = locked[i];
	nlocked = u;
	for (size_t i = 0; i < nlocked; i++)
		pthread_mutex_lock(&e->stripe_lock[locked[i]]);
	rocksdb_writebatch_t *wb = wb_take(e);
	bool any = false;
	for (size_t i = 0; i < n; i++) {
		if (st[i] || ms[i]->has_rmw)
			continue;
		size_t mark = rocksdb_writebatch_count(wb);
		rocksdb_writebatch_set_save_point(wb);
		st[i] = build_row_batch(e, h->t, ms[i],
					next_ts(e, stripes[i]), wb, NULL);
		if (st[i])
			rocksdb_writebatch_rollback_to_save_point(wb, NULL);
		else
			any = any || rocksdb_writebatch_count(wb) > (int)mark;
	}
	int crc = any ? commit(e, wb, dur) : SBX_OK;
	wb_give(e, wb);
	for (size_t i = nlocked; i-- > 0;)
		pthread_mutex_unlock(&e->stripe_lock[locked[i]]);
	for (size_t i = 0; i < n; i++) {
		if (!st[i] && !ms[i]->has_rmw)
			st[i] = crc;
		else if (!st[i]) {
			unsigned s = stripes[i];
			pthread_mutex_lock(&e->stripe_lock[s]);
			st[i] = apply_locked(e, h->t, ms[i], s, NULL);
			pthread_mutex_unlock(&e->stripe_lock[s]);
		}
		if (st[i] && !first_err)
			first_err = st[i];
		if (statuses)
			statuses[i] = st[i];
		if (!st[i] && count_write(e, h->t, ms[i]))
			due[i] = true;
	}
	pthread_rwlock_unlock(&h->t->lock);
	for (size_t i = 0; i < n; i++) {
		if (!st[i])
			engine_trace(e, "put", mut_row(ms[i]), ms[i]->row_len);
		if (due[i])
			regions_maybe_split(e, h->t, mut_row(ms[i]), ms[i]->row_len);
	}
	free(st), free(stripes), free(locked), free(due);
	return first_err;
}

int engine_check_and_mutate(void *p, const sbx_check *check,
			    const sbx_mutation *m, bool *succeeded,
			    sbx_result **out)
{
	table_handle *h = p;
	engine *e = h->eng;
	int rc = table_lock_for_data(h->t, true);
	if (rc)
		return rc;
	if (!table_family(h->t, check->family))
		rc = sbx_error_set(SBX_ENOFAMILY, "table '%s' has no family '%s'",
				   h->t->name, check->family);
	if (!rc)
		rc = check_mutation(e, h->t, m);
	if (rc) {
		pthread_rwlock_unlock(&h->t->lock);
		return rc;
	}
	unsigned s = stripe_of(mut_row(m), m->row_len);
	pthread_mutex_lock(&e->stripe_lock[s]);
	bool found = false, due = false;
	int64_t ts;
	sbx_buf stored = {0};
	rc = read_column(e, h->t, mut_row(m), m->row_len, check->family,
			 check->qualifier, check->qualifier_len, &found, &ts,
			 &stored);
	if (!rc && model_check_passes(check, found, stored.data, stored.len)) {
		rc = apply_locked(e, h->t, m, s, m->has_rmw ? out : NULL);
		*succeeded = rc == SBX_OK;
		if (!rc && count_write(e, h->t, m))
			due = true;
	}
	pthread_mutex_unlock(&e->stripe_lock[s]);
	pthread_rwlock_unlock(&h->t->lock);
	sbx_buf_free(&stored);
	if (*succeeded)
		engine_trace(e, "put", mut_row(m), m->row_len);
	if (due)
		regions_maybe_split(e, h->t, mut_row(m), m->row_len);
	return rc;
}
