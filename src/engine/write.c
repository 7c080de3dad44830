/*
 * write.c - the write path. A row's mutation runs under its row-stripe lock:
 * the stripe assigns a timestamp strictly greater than any it gave before
 * (so a delete and a put in the same millisecond never collide), reads what
 * increments, appends and latest-version deletes need, and commits every
 * cell of the row in one RocksDB write batch, so readers see all or none.
 * Conditional writes across rows (sbx_db_check_and_mutate_rows) lock every
 * row's stripe in ascending order and commit one write batch for all.
 */
#include "common/alloc.h"
#include "common/error.h"
#include "engine/cellkey.h"
#include "engine/engine.h"
#include "engine/reader.h"
#include "engine/rowcache.h"
#include "model/backend.h"
#include "model/mutation.h"
#include "model/result.h"
#include "model/rules.h"

#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

/* An increment's counter: 8 bytes, big-endian (HBase's Bytes.toLong). */
#define COUNTER_LEN 8

static unsigned stripe_of(const uint8_t *row, size_t n)
{
	return (unsigned)(XXH3_64bits(row, n) % ENGINE_ROW_STRIPES);
}

/* The row cache around a write (rowcache.h), REQUIRES: the stripes'
 * locks held. Before the RocksDB write: the stripes' seqlocks go odd. */
static void cache_write_begin(engine *e, const unsigned *stripes, size_t n)
{
	for (size_t i = 0; e->rowcache && i < n; i++)
		rowcache_write_begin(e->rowcache, stripes[i]);
}

/* The cache key of the row in t (its family left for the caller). */
static rowcache_key row_cache_key(table *t, const uint8_t *row, size_t len)
{
	return (rowcache_key){
		.row_hash = rowcache_row_hash(row, len),
		.epoch = atomic_load_explicit(&t->cache_epoch,
					      memory_order_acquire),
		.row = row,
		.row_len = len};
}

/* After it: the row's entries of every family of t are erased. */
static void cache_forget_row(engine *e, table *t, const uint8_t *row,
			     size_t len)
{
	if (!e->rowcache)
		return;
	rowcache_key k = row_cache_key(t, row, len);
	for (size_t i = 0; i < t->nfams; i++) {
		k.cf_name = t->fams[i]->cf_name;
		k.cf_len = strlen(k.cf_name);
		rowcache_erase(e->rowcache, &k);
	}
}

/* The cells a write batch puts, kept for the row cache: after the write
 * they are merged into the rows' cached entries (rowcache_update), so a
 * row a get cached stays cached across writes to it. */
typedef struct cache_log {
	rowbuf cells; /* full keys and values, in write order */
	family **fam; /* each cell's family */
	size_t *mut;  /* each cell's mutation (an index into the batch);
		       * mutations are built in ascending order, so this never
		       * decreases and a mutation's cells are one run */
	size_t cur;   /* the mutation being built */
	bool failed;  /* out of memory: the rows' entries are erased */
} cache_log;

/* The run of logged cells [*lo, *hi) of mutation mi (empty if none): a
 * binary search, so a batch of n mutations finds its runs in O(n log n),
 * not O(n^2). */
static void log_run(const cache_log *l, size_t mi, size_t *lo, size_t *hi)
{
	size_t a = 0, b = l->cells.n;
	while (a < b) { /* first cell of a mutation >= mi */
		size_t mid = a + (b - a) / 2;
		if (l->mut[mid] < mi)
			a = mid + 1;
		else
			b = mid;
	}
	*lo = a;
	for (b = l->cells.n; a < b;) { /* first cell of a mutation > mi */
		size_t mid = a + (b - a) / 2;
		if (l->mut[mid] <= mi)
			a = mid + 1;
		else
			b = mid;
	}
	*hi = a;
}

static void log_cell(cache_log *l, family *f, const uint8_t *k, size_t kl,
		     const uint8_t *v, size_t vl)
{
	if (!l || l->failed)
		return;
	rowbuf *b = &l->cells;
	if (b->n == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 16;
		rowbuf_ent *ne = sbx_realloc(b->ents, cap * sizeof *ne);
		family **nf = ne ? sbx_realloc(l->fam, cap * sizeof *nf) : NULL;
		size_t *nm = nf ? sbx_realloc(l->mut, cap * sizeof *nm) : NULL;
		if (ne)
			b->ents = ne;
		if (nf)
			l->fam = nf;
		if (!nm) {
			l->failed = true;
			return;
		}
		l->mut = nm;
		b->cap = cap;
	}
	size_t koff = b->arena.len;
	if (sbx_buf_append(&b->arena, k, kl) ||
	    sbx_buf_append(&b->arena, v, vl)) {
		l->failed = true;
		return;
	}
	b->ents[b->n] = (rowbuf_ent){.koff = koff, .klen = kl,
				     .voff = koff + kl, .vlen = vl};
	l->fam[b->n] = f;
	assert(b->n == 0 || l->mut[b->n - 1] <= l->cur);
	l->mut[b->n] = l->cur;
	b->n++;
}

static void log_free(cache_log *l)
{
	sbx_buf_free(&l->cells.arena);
	free(l->cells.ents);
	free(l->fam);
	free(l->mut);
}

typedef struct logged_key {
	const uint8_t *k;
	size_t kl, i;
} logged_key;

static int logged_key_order(const void *pa, const void *pb)
{
	const logged_key *a = pa, *b = pb;
	int d = memcmp(a->k, b->k, a->kl < b->kl ? a->kl : b->kl);
	if (d)
		return d;
	if (a->kl != b->kl)
		return a->kl < b->kl ? -1 : 1;
	return a->i < b->i ? -1 : a->i > b->i; /* write order */
}

/* After the write: mutation mi's logged cells merged into its row's cached
 * entries, family by family (a family it did not write keeps its entry);
 * without a log, the row's entries are erased. */
static void cache_write_row(engine *e, table *t, const uint8_t *row,
			    size_t len, cache_log *l, size_t mi)
{
	if (!e->rowcache)
		return;
	if (!l || l->failed) {
		cache_forget_row(e, t, row, len);
		return;
	}
	const rowbuf *b = &l->cells;
	size_t lo, hi;
	log_run(l, mi, &lo, &hi);
	size_t n = hi - lo;
	if (!n)
		return;
	logged_key *v = sbx_malloc(n * sizeof *v);
	size_t *idx = sbx_malloc(n * sizeof *idx);
	if (!v || !idx) {
		free(v), free(idx);
		cache_forget_row(e, t, row, len);
		return;
	}
	rowcache_key k = row_cache_key(t, row, len);
	for (size_t fi = 0; fi < t->nfams; fi++) {
		family *f = t->fams[fi];
		size_t m = 0, plen = 0;
		for (size_t i = lo; i < hi; i++)
			if (l->fam[i] == f)
				v[m++] = (logged_key){
				    b->arena.data + b->ents[i].koff,
				    b->ents[i].klen, i};
		if (!m)
			continue;
		qsort(v, m, sizeof *v, logged_key_order);
		size_t u = 0; /* of equal keys the last written wins */
		for (size_t i = 0; i < m; i++) {
			if (i + 1 < m && v[i].kl == v[i + 1].kl &&
			    !memcmp(v[i].k, v[i + 1].k, v[i].kl))
				continue;
			idx[u++] = v[i].i;
		}
		plen = cellkey_row_prefix_len(v[0].k, v[0].kl);
		k.cf_name = f->cf_name;
		k.cf_len = strlen(f->cf_name);
		if (plen)
			rowcache_update(e->rowcache, &k, plen, b, idx, u);
		else
			rowcache_erase(e->rowcache, &k);
	}
	free(v);
	free(idx);
}

/* Then the seqlocks go even again. */
static void cache_write_end(engine *e, const unsigned *stripes, size_t n)
{
	for (size_t i = 0; e->rowcache && i < n; i++)
		rowcache_write_end(e->rowcache, stripes[i]);
}

/* After a write to t: the iterator t's parked reader keeps (reader.c)
 * could no longer be reused, and would pin the memtable a flush replaces. */
static void drop_kept_iterator(table *t)
{
	table_drop_marked_iterators(t);
}

/* How far the persisted timestamp ceiling is raised past the timestamp
 * that needed it: one small WAL write per second of timestamps. */
#define TS_CEILING_STEP_MS 1000

/* Persist a ceiling above ts before ts is used: the write goes through the
 * WAL ahead of the data that carries ts, so a store recovered after a
 * crash holds the ceiling of every timestamp it holds. A failed write
 * leaves the ceiling as it was (the next timestamp tries again). */
static void raise_ts_ceiling(engine *e, int64_t ts)
{
	pthread_mutex_lock(&e->ts_lock);
	if (ts > e->ts_ceiling) {
		int64_t c = ts + TS_CEILING_STEP_MS;
		char buf[32], *err = NULL;
		int n = snprintf(buf, sizeof buf, "%lld", (long long)c);
		rocksdb_put_cf(e->db, e->wo_wal, e->meta_cf,
			       ENGINE_TS_CEILING_KEY,
			       strlen(ENGINE_TS_CEILING_KEY), buf, (size_t)n,
			       &err);
		if (err)
			free(err);
		else
			e->ts_ceiling = c;
	}
	pthread_mutex_unlock(&e->ts_lock);
}

/* The stripe's next server timestamp: the clock, or one past the stripe's
 * last when writes come faster than one a millisecond (so a stripe's
 * timestamps only grow), and never at or below one a previous open of the
 * store handed out (engine.h ts_ceiling). */
static int64_t next_ts(engine *e, unsigned s)
{
	ASSERT_LOCKED(&e->stripe_lock[s]);
	int64_t now = engine_now_ms();
	int64_t ts = e->stripe_ts[s] + 1;
	if (now > ts)
		ts = now;
	e->stripe_ts[s] = ts;
	if (ts > e->ts_ceiling)
		raise_ts_ceiling(e, ts);
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

/* One row's mutation on its way into a write batch. */
typedef struct row_batch {
	engine *e;
	table *t;
	const sbx_mutation *m;
	rocksdb_writebatch_t *wb;
	cache_log *log;  /* NULL: no row cache */
	sbx_buf key;     /* the cell key being written */
	sbx_buf cur;     /* a column's value read back (deletes, rmw) */
	rmw_value *vals; /* increments' and appends' results, in op order */
	size_t nvals, cap_vals;
	size_t *slots;   /* a hash of vals by column: index + 1, 0 empty */
	size_t nslots;   /* 0 or a power of two over twice nvals */
} row_batch;

static uint64_t rmw_hash(const sbx_mutation *m, const mut_op *op)
{
	uint64_t h = sbx_fnv1a(SBX_FNV1A_INIT, mut_family(m, op),
			       op->family_len);
	/* 0x100: no byte, so family | qualifier splits stay apart */
	return sbx_fnv1a((h ^ 0x100) * 1099511628211ull, mut_qual(m, op),
			 op->qual_len);
}

static bool same_column(const sbx_mutation *m, const mut_op *a,
			const mut_op *b)
{
	return a->family_len == b->family_len && a->qual_len == b->qual_len &&
	       !memcmp(mut_family(m, a), mut_family(m, b), a->family_len) &&
	       !memcmp(mut_qual(m, a), mut_qual(m, b), a->qual_len);
}

/* The value an earlier increment or append of op's column produced. A
 * hash lookup: a mutation may hold thousands of counters. */
static rmw_value *find_rmw(const row_batch *b, const mut_op *op)
{
	if (!b->nslots)
		return NULL;
	size_t mask = b->nslots - 1;
	for (size_t at = rmw_hash(b->m, op) & mask; b->slots[at];
	     at = (at + 1) & mask) {
		rmw_value *v = &b->vals[b->slots[at] - 1];
		if (same_column(b->m, v->op, op))
			return v;
	}
	return NULL;
}

static void rmw_slot(size_t *slots, size_t nslots, const row_batch *b,
		     size_t i)
{
	size_t mask = nslots - 1;
	size_t at = rmw_hash(b->m, b->vals[i].op) & mask;
	while (slots[at])
		at = (at + 1) & mask;
	slots[at] = i + 1;
}

/* A new value for a column no earlier op produced one for. */
static rmw_value *rmw_add(row_batch *b, const mut_op *op)
{
	if (b->nvals == b->cap_vals) {
		size_t cap = b->cap_vals ? b->cap_vals * 2 : 4;
		rmw_value *v = sbx_realloc(b->vals, cap * sizeof *v);
		if (!v)
			return NULL;
		b->vals = v;
		b->cap_vals = cap;
	}
	if ((b->nvals + 1) * 2 > b->nslots) { /* rehash into twice the room */
		size_t ns = b->nslots ? b->nslots * 2 : 16;
		size_t *slots = sbx_calloc(ns, sizeof *slots);
		if (!slots)
			return NULL;
		for (size_t i = 0; i < b->nvals; i++)
			rmw_slot(slots, ns, b, i);
		free(b->slots);
		b->slots = slots;
		b->nslots = ns;
	}
	rmw_value *v = &b->vals[b->nvals];
	memset(v, 0, sizeof *v);
	v->op = op;
	rmw_slot(b->slots, b->nslots, b, b->nvals++);
	return v;
}

/* Write one cell of the row to family f. */
static int put_cell(row_batch *b, family *f, const uint8_t *q, size_t ql,
		    int64_t ts, sbx_cell_type type, const uint8_t *v, size_t vl)
{
	b->key.len = 0;
	int rc = cellkey_encode(&b->key, mut_row(b->m), b->m->row_len, q, ql,
				ts, type);
	if (rc)
		return rc;
	rocksdb_writebatch_put_cf(b->wb, f->cf, (const char *)b->key.data,
				  b->key.len, (const char *)v, vl);
	log_cell(b->log, f, b->key.data, b->key.len, v, vl);
	return SBX_OK;
}

/* The family an operation names (check_mutation made sure it exists). */
static family *op_family(const row_batch *b, const mut_op *op)
{
	family *f = table_family(b->t, mut_family(b->m, op));
	assert(f);
	return f;
}

static int add_put(row_batch *b, const mut_op *op, int64_t ts)
{
	return put_cell(b, op_family(b, op), mut_qual(b->m, op), op->qual_len,
			ts, SBX_CELL_PUT, mut_value(b->m, op), op->value_len);
}

/* A delete marker of any of the four kinds. A Delete of the newest
 * version looks that version up, as HBase's prepareDeleteTimestamps. */
static int add_delete(row_batch *b, const mut_op *op, int64_t ts)
{
	family *f = op_family(b, op);
	const uint8_t *q = mut_qual(b->m, op);
	if (op->del_type == SBX_CELL_DELETE && op->ts == SBX_LATEST_TIMESTAMP) {
		bool found;
		int64_t newest;
		int rc = read_column(b->e, b->t, mut_row(b->m), b->m->row_len,
				     f->desc.name, q, op->qual_len, &found,
				     &newest, &b->cur);
		if (rc)
			return rc;
		if (found)
			ts = newest;
	}
	return put_cell(b, f, q, op->qual_len, ts, op->del_type, NULL, 0);
}

/* Delete the whole row: a DeleteFamily marker in every family. */
static int add_delete_row(row_batch *b, const mut_op *op, int64_t ts)
{
	(void)op;
	int rc = SBX_OK;
	for (size_t i = 0; !rc && i < b->t->nfams; i++)
		rc = put_cell(b, b->t->fams[i], NULL, 0, ts,
			      SBX_CELL_DELETE_FAMILY, NULL, 0);
	return rc;
}

/* Read-modify-write, first half: the column's current value into b->cur
 * (one produced earlier in this mutation, else the stored one) and *ts
 * raised above its timestamp (HBase: max(now, old ts + 1)). */
static int rmw_read(row_batch *b, const mut_op *op, const family *f,
		    int64_t *ts, rmw_value **prev, bool *found)
{
	*prev = find_rmw(b, op);
	*found = *prev != NULL;
	int64_t cts = *prev ? (*prev)->ts : 0;
	b->cur.len = 0;
	int rc = *prev ? sbx_buf_set(&b->cur, (*prev)->value.data,
				     (*prev)->value.len)
		       : read_column(b->e, b->t, mut_row(b->m), b->m->row_len,
				     f->desc.name, mut_qual(b->m, op),
				     op->qual_len, found, &cts, &b->cur);
	if (!rc && *found && cts >= *ts)
		*ts = cts + 1;
	return rc;
}

/* Second half: write b->cur as the new version and keep it for the
 * result and for a later operation on the same column. */
static int rmw_write(row_batch *b, const mut_op *op, family *f, int64_t ts,
		     rmw_value *prev)
{
	int rc = put_cell(b, f, mut_qual(b->m, op), op->qual_len, ts,
			  SBX_CELL_PUT, b->cur.data, b->cur.len);
	if (rc)
		return rc;
	if (!prev && !(prev = rmw_add(b, op)))
		return SBX_ENOMEM_SET();
	prev->op = op;
	prev->ts = ts;
	return sbx_buf_set(&prev->value, b->cur.data, b->cur.len);
}

/* Increment: the value is an 8-byte big-endian counter (absent = 0). */
static int add_increment(row_batch *b, const mut_op *op, int64_t ts)
{
	family *f = op_family(b, op);
	rmw_value *prev;
	bool found;
	int rc = rmw_read(b, op, f, &ts, &prev, &found);
	if (rc)
		return rc;
	if (found && b->cur.len != COUNTER_LEN)
		return sbx_error_set(SBX_EBADVALUE,
				     "cannot increment %s:%.*s: the stored "
				     "value is %zu bytes, not an 8-byte counter",
				     f->desc.name, (int)op->qual_len,
				     (const char *)mut_qual(b->m, op),
				     b->cur.len);
	uint64_t v = 0;
	for (size_t i = 0; found && i < COUNTER_LEN; i++)
		v = (v << 8) | b->cur.data[i];
	v += (uint64_t)op->delta;
	uint8_t be[COUNTER_LEN];
	for (int i = COUNTER_LEN - 1; i >= 0; i--, v >>= 8)
		be[i] = (uint8_t)v;
	rc = sbx_buf_set(&b->cur, be, COUNTER_LEN);
	return rc ? rc : rmw_write(b, op, f, ts, prev);
}

/* Append: the bytes go after the current value (absent = empty). */
static int add_append(row_batch *b, const mut_op *op, int64_t ts)
{
	family *f = op_family(b, op);
	rmw_value *prev;
	bool found;
	int rc = rmw_read(b, op, f, &ts, &prev, &found);
	if (!rc)
		rc = sbx_buf_append(&b->cur, mut_value(b->m, op),
				    op->value_len);
	if (rc)
		return rc;
	size_t max = b->e->opts.max_cell_size;
	if (max && b->cur.len + b->m->row_len + op->qual_len > max)
		return sbx_error_set(SBX_ETOOLARGE,
				     "append would make %s:%.*s %zu bytes, "
				     "over the maximum cell size",
				     f->desc.name, (int)op->qual_len,
				     (const char *)mut_qual(b->m, op),
				     b->cur.len);
	return rmw_write(b, op, f, ts, prev);
}

static int add_op(row_batch *b, const mut_op *op, int64_t ts)
{
	switch (op->kind) {
	case MUT_PUT:
		return add_put(b, op, ts);
	case MUT_DELETE:
		return add_delete(b, op, ts);
	case MUT_DELETE_ROW:
		return add_delete_row(b, op, ts);
	case MUT_INCREMENT:
		return add_increment(b, op, ts);
	case MUT_APPEND:
		return add_append(b, op, ts);
	}
	assert(!"unknown mutation kind");
	return sbx_error_set(SBX_EINVAL, "unknown mutation kind %d",
			     (int)op->kind);
}

/* Add m's cells to wb; with out, the result of its increments and
 * appends. REQUIRES: m's row stripe lock and t->lock (read) held. */
static int build_row_batch(engine *e, table *t, const sbx_mutation *m,
			   int64_t now_ts, rocksdb_writebatch_t *wb,
			   cache_log *log, sbx_result *out)
{
	ASSERT_LOCKED(&e->stripe_lock[stripe_of(mut_row(m), m->row_len)]);
	ASSERT_TABLE_LOCKED(t);
	row_batch b = {.e = e, .t = t, .m = m, .wb = wb,
		       .log = e->rowcache ? log : NULL};
	int rc = SBX_OK;
	for (size_t i = 0; !rc && i < m->nops; i++) {
		const mut_op *op = &m->ops[i];
		rc = add_op(&b, op,
			    op->ts == SBX_LATEST_TIMESTAMP ? now_ts : op->ts);
	}
	/* The result holds each counter's final value once, in op order. */
	for (size_t i = 0; !rc && out && i < b.nvals; i++) {
		const mut_op *op = b.vals[i].op;
		rc = result_add(out, mut_family(m, op), op->family_len,
				mut_qual(m, op), op->qual_len, b.vals[i].ts,
				SBX_CELL_PUT, b.vals[i].value.data,
				b.vals[i].value.len);
	}
	for (size_t i = 0; i < b.nvals; i++)
		sbx_buf_free(&b.vals[i].value);
	free(b.vals);
	free(b.slots);
	sbx_buf_free(&b.key);
	sbx_buf_free(&b.cur);
	return rc;
}

static int commit(engine *e, rocksdb_writebatch_t *wb, sbx_durability d)
{
	size_t size;
	rocksdb_writebatch_data(wb, &size);
	int rc = engine_space_check(e, size);
	if (rc)
		return rc;
	char *err = NULL;
	rocksdb_write(e->db, write_options(e, d), wb, &err);
	return err ? engine_rocks_error(err, "write") : SBX_OK;
}

/* Batches larger than this are destroyed rather than kept for reuse. */
#define SPARE_WB_MAX ((size_t)1 << 20)

/* This thread's spare slot (engine.h spare_wb): up to ENGINE_SPARE_WBS
 * writers each keep their own. */
static unsigned wb_slot(void)
{
	return engine_thread_index() % ENGINE_SPARE_WBS;
}

/* A write batch: this thread's spare (cleared, its buffer already grown),
 * or a new one. */
static rocksdb_writebatch_t *wb_take(engine *e)
{
	rocksdb_writebatch_t *wb = atomic_exchange_explicit(
		&e->spare_wb[wb_slot()].p, NULL, memory_order_acquire);
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
			    &e->spare_wb[wb_slot()].p, &none, wb,
			    memory_order_release,
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
	cache_log log = {0};
	rc = build_row_batch(e, t, m, next_ts(e, stripe), wb, &log, res);
	if (!rc) {
		cache_write_begin(e, &stripe, 1);
		rc = commit(e, wb, m->durability);
		cache_write_row(e, t, mut_row(m), m->row_len, rc ? NULL : &log,
				0);
		cache_write_end(e, &stripe, 1);
		drop_kept_iterator(t);
	}
	log_free(&log);
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
	table_rdunlock(h->t);
	if (due)
		regions_maybe_split(h->eng, h->t, mut_row(m), m->row_len);
	return rc;
}

static int cmp_unsigned(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
	return x < y ? -1 : x > y;
}

/* A batch whose plain rows lock at least BATCH_SPLIT_ROWS stripes, written
 * while another batch is being written, goes in up to BATCH_PARTS writes,
 * one per range of stripes (part_of), ranges in order; each row is still
 * written whole by one of them. The stripes of a batch's rows are locked
 * while it writes; the random rows of two large batches nearly always
 * share a stripe (200 rows cover a fifth of the 1024), so unsplit they
 * wrote one after the other however many threads wrote them. In parts,
 * two batches hold stripes of one range at a time each and follow one
 * another through the ranges, writing different ranges at once (RocksDB
 * joins their writes in one write group and inserts their memtable
 * entries in parallel). A batch alone is written whole: parts cost it
 * locality in the memtable (its rows' inserts walk the skip list once per
 * part; 256-row batches of ordered rows put 22 % slower in parts on one
 * thread). */
#define BATCH_SPLIT_ROWS 64
#define BATCH_PARTS 8

static unsigned part_of(unsigned stripe)
{
	return stripe * BATCH_PARTS / ENGINE_ROW_STRIPES;
}

/* Whether ms[i] is one of the rows a write of stripes lo..hi carries: a
 * plain row (not read-modify-write), not failed so far (st[i]), its
 * stripe in the range. */
static bool carried(sbx_mutation *const *ms, const int *st,
		    const unsigned *stripes, size_t i, unsigned lo, unsigned hi)
{
	return !st[i] && !ms[i]->has_rmw && stripes[i] >= lo &&
	       stripes[i] <= hi;
}

/* Write the plain rows of ms whose stripes are locked[0..nlocked) (sorted,
 * distinct; each row's stripe in stripes[]) as one write batch under
 * those locks; each such row's status into st (st[i] set before: not
 * written here). */
static void write_rows(engine *e, table *t, sbx_mutation *const *ms,
		       size_t n, int *st, const unsigned *stripes,
		       unsigned *locked, size_t nlocked, sbx_durability dur)
{
	unsigned lo = locked[0], hi = locked[nlocked - 1];
	for (size_t i = 0; i < nlocked; i++)
		pthread_mutex_lock(&e->stripe_lock[locked[i]]);
	rocksdb_writebatch_t *wb = wb_take(e);
	cache_log log = {0};
	bool any = false;
	for (size_t i = 0; i < n; i++) {
		if (!carried(ms, st, stripes, i, lo, hi))
			continue;
		size_t mark = rocksdb_writebatch_count(wb);
		size_t lmark = log.cells.n, amark = log.cells.arena.len;
		rocksdb_writebatch_set_save_point(wb);
		log.cur = i;
		st[i] = build_row_batch(e, t, ms[i], next_ts(e, stripes[i]),
					wb, &log, NULL);
		if (st[i]) {
			rocksdb_writebatch_rollback_to_save_point(wb, NULL);
			log.cells.n = lmark;
			log.cells.arena.len = amark;
		} else {
			any = any || rocksdb_writebatch_count(wb) > (int)mark;
		}
	}
	int crc = SBX_OK;
	if (any) {
		cache_write_begin(e, locked, nlocked);
		crc = commit(e, wb, dur);
		for (size_t i = 0; i < n; i++)
			if (carried(ms, st, stripes, i, lo, hi))
				cache_write_row(e, t, mut_row(ms[i]),
						ms[i]->row_len,
						crc ? NULL : &log, i);
		cache_write_end(e, locked, nlocked);
		drop_kept_iterator(t);
	}
	log_free(&log);
	wb_give(e, wb);
	for (size_t i = nlocked; i-- > 0;)
		pthread_mutex_unlock(&e->stripe_lock[locked[i]]);
	/* the rows this write carried take its status; a row that failed
	 * above keeps its own error */
	for (size_t i = 0; i < n; i++)
		if (carried(ms, st, stripes, i, lo, hi))
			st[i] = crc;
}

/*
 * Table.batch: each row atomically. Plain puts and deletes of all rows go in
 * one write batch under their stripe locks (taken in order, so batches
 * cannot deadlock), or in BATCH_PARTS of them for a large batch, one range
 * of stripes after another; read-modify-write mutations run one by one.
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
	int *st = sbx_calloc(n ? n : 1, sizeof *st);
	unsigned *stripes = sbx_calloc(n ? n : 1, sizeof *stripes);
	unsigned *locked = sbx_calloc(n ? n : 1, sizeof *locked);
	bool *due = sbx_calloc(n ? n : 1, sizeof *due);
	if (!st || !stripes || !locked || !due) {
		free(st), free(stripes), free(locked), free(due);
		table_rdunlock(h->t);
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
	/* the plain rows: in one write, or one write per range of stripes
	 * (locked[] is sorted, so each range is a run of it) */
	bool parts = atomic_fetch_add(&e->batches, 1) > 0 &&
		     nlocked >= BATCH_SPLIT_ROWS;
	for (size_t lo = 0, hi; lo < nlocked; lo = hi) {
		hi = lo + 1;
		while (hi < nlocked &&
		       (!parts || part_of(locked[hi]) == part_of(locked[lo])))
			hi++;
		write_rows(e, h->t, ms, n, st, stripes, locked + lo, hi - lo,
			   dur);
	}
	atomic_fetch_sub(&e->batches, 1);
	for (size_t i = 0; i < n; i++) {
		if (!st[i] && ms[i]->has_rmw) {
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
	table_rdunlock(h->t);
	for (size_t i = 0; i < n; i++) {
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
		table_rdunlock(h->t);
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
	table_rdunlock(h->t);
	sbx_buf_free(&stored);
	if (due)
		regions_maybe_split(e, h->t, mut_row(m), m->row_len);
	return rc;
}

/* ---- atomic conditional writes across rows (sbx_db_check_and_mutate_rows) */

/* A row of the call with what the engine needs of it. */
typedef struct multi_row {
	const sbx_backend_row_change *c;
	table_handle *h;
	unsigned stripe;
} multi_row;

static int multi_row_order(const void *pa, const void *pb)
{
	const multi_row *a = pa, *b = pb;
	if (a->h->t->id != b->h->t->id)
		return a->h->t->id < b->h->t->id ? -1 : 1;
	size_t n = a->c->row_len < b->c->row_len ? a->c->row_len
						 : b->c->row_len;
	int c = memcmp(a->c->row, b->c->row, n);
	if (c)
		return c;
	return a->c->row_len < b->c->row_len ? -1
					     : a->c->row_len > b->c->row_len;
}

/* Release the tables' read locks taken so far (v sorted by table). */
static void unlock_tables(multi_row *v, size_t upto)
{
	for (size_t i = upto; i-- > 0;)
		if (i == 0 || v[i - 1].h->t != v[i].h->t)
			table_rdunlock(v[i].h->t);
}

/* Everything that can be refused before the rows are locked: the tables
 * (enabled, not dropped; their read locks are then held), the families of
 * checks and mutations, duplicates. REQUIRES: v sorted. On error no table
 * lock is held. */
static int multi_prepare(engine *e, multi_row *v, size_t n)
{
	size_t locked = 0;
	int rc = SBX_OK;
	for (size_t i = 0; !rc && i < n; i++) {
		if (i && v[i - 1].h->t == v[i].h->t &&
		    !multi_row_order(&v[i - 1], &v[i])) {
			rc = sbx_error_set(SBX_EINVAL,
					   "check_and_mutate_rows: a row of "
					   "table '%s' appears twice",
					   v[i].h->t->name);
			break;
		}
		if (i == 0 || v[i - 1].h->t != v[i].h->t) {
			rc = table_lock_for_data(v[i].h->t, true);
			if (rc)
				break;
		}
		locked = i + 1;
		const sbx_check *k = v[i].c->check;
		if (k && !table_family(v[i].h->t, k->family))
			rc = sbx_error_set(SBX_ENOFAMILY,
					   "table '%s' has no family '%s'",
					   v[i].h->t->name, k->family);
		if (!rc && v[i].c->mutation)
			rc = check_mutation(e, v[i].h->t, v[i].c->mutation);
	}
	if (rc)
		unlock_tables(v, locked);
	return rc;
}

/*
 * The rows' stripes are locked in ascending order (the order engine_batch
 * uses, so neither can deadlock the other), every check is read under
 * them, and all mutations go into one write batch: the stripes are global
 * across tables, so ordering them orders every row of every table.
 */
int engine_check_and_mutate_rows(void *db, const sbx_backend_row_change *rows,
				 size_t n, bool *succeeded, size_t *failed)
{
	engine *e = db;
	*succeeded = false;
	*failed = SIZE_MAX;
	multi_row *v = sbx_calloc(n, sizeof *v);
	unsigned *stripes = sbx_calloc(n, sizeof *stripes);
	if (!v || !stripes) {
		free(v);
		free(stripes);
		return SBX_ENOMEM_SET();
	}
	for (size_t i = 0; i < n; i++) {
		v[i].c = &rows[i];
		v[i].h = rows[i].table;
		v[i].stripe = stripe_of(rows[i].row, rows[i].row_len);
	}
	qsort(v, n, sizeof *v, multi_row_order);
	int rc = multi_prepare(e, v, n);
	if (rc) {
		free(v);
		free(stripes);
		return rc;
	}
	for (size_t i = 0; i < n; i++)
		stripes[i] = v[i].stripe;
	qsort(stripes, n, sizeof *stripes, cmp_unsigned);
	size_t ns = 0;
	for (size_t i = 0; i < n; i++)
		if (ns == 0 || stripes[ns - 1] != stripes[i])
			stripes[ns++] = stripes[i];
	for (size_t i = 0; i < ns; i++)
		pthread_mutex_lock(&e->stripe_lock[stripes[i]]);

	/* the checks, in the caller's order */
	sbx_buf stored = {0};
	bool pass = true;
	for (size_t i = 0; !rc && pass && i < n; i++) {
		const sbx_check *k = rows[i].check;
		if (!k)
			continue;
		table_handle *h = rows[i].table;
		bool found = false;
		int64_t ts;
		rc = read_column(e, h->t, rows[i].row, rows[i].row_len,
				 k->family, k->qualifier, k->qualifier_len,
				 &found, &ts, &stored);
		if (!rc && !model_check_passes(k, found, stored.data,
					       stored.len)) {
			pass = false;
			*failed = i;
		}
	}
	sbx_buf_free(&stored);

	/* the mutations, in row order, as one write batch */
	rocksdb_writebatch_t *wb = NULL;
	sbx_durability dur = SBX_DURABILITY_SKIP_WAL;
	bool any = false;
	cache_log log = {0};
	if (!rc && pass) {
		wb = wb_take(e);
		for (size_t i = 0; !rc && i < n; i++) {
			const sbx_mutation *m = v[i].c->mutation;
			if (!m)
				continue;
			log.cur = i;
			rc = build_row_batch(e, v[i].h->t, m,
					     next_ts(e, v[i].stripe), wb, &log,
					     NULL);
			any = true;
			if (durability_rank(m->durability) >
			    durability_rank(dur))
				dur = m->durability;
		}
		if (!rc && any) {
			/* the rows' cached entries take the cells written, as
			 * for any write (a row read again stays cached) */
			cache_write_begin(e, stripes, ns);
			rc = commit(e, wb, dur);
			for (size_t i = 0; i < n; i++)
				if (v[i].c->mutation)
					cache_write_row(e, v[i].h->t,
							v[i].c->row,
							v[i].c->row_len,
							rc ? NULL : &log, i);
			cache_write_end(e, stripes, ns);
			for (size_t i = 0; i < n; i++)
				drop_kept_iterator(v[i].h->t);
		}
		wb_give(e, wb);
	}
	log_free(&log);
	for (size_t i = ns; i-- > 0;)
		pthread_mutex_unlock(&e->stripe_lock[stripes[i]]);
	*succeeded = !rc && pass;
	if (rc)
		*failed = SIZE_MAX;
	bool *due = NULL;
	if (*succeeded && e->opts.region_routing &&
	    (due = sbx_calloc(n, sizeof *due)))
		for (size_t i = 0; i < n; i++)
			due[i] = v[i].c->mutation &&
				 count_write(e, v[i].h->t, v[i].c->mutation);
	unlock_tables(v, n);
	for (size_t i = 0; *succeeded && i < n; i++) {
		const sbx_backend_row_change *c = v[i].c;
		if (!c->mutation)
			continue;
		if (due && due[i])
			regions_maybe_split(e, v[i].h->t, c->row, c->row_len);
	}
	free(due);
	free(v);
	free(stripes);
	return rc;
}
