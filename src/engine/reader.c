/*
 * reader.c - a reader's life: set up for one get or scan (the selected
 * families' cursors and what the read asks of each, RocksDB's iterate
 * bounds, one iterator per family over one consistent view), and closed
 * again. A closed reader parks its scratch memory in the table for the
 * same thread's next read (a slot a thread: engine_thread_index), emptied;
 * the per-read fields are zeroed before it is reused.
 */
#include "engine/reader.h"

#include "common/alloc.h"
#include "common/error.h"
#include "engine/cellkey.h"
#include "model/result.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

static int cmp_buf(const void *a, const void *b)
{
	const sbx_buf *x = a, *y = b;
	return cmp_bytes(x->data, x->len, y->data, y->len);
}

static int add_famcur(reader *r, family *f, const sbx_read_opts *o)
{
	famcur *c = &r->fc[r->nfc++];
	sbx_buf row = c->row; /* scratch kept from an earlier use */
	memset(c, 0, sizeof *c);
	c->row = row;
	c->row.len = 0;
	if (!r->point_get) /* a get holds t's lock throughout: no reference */
		atomic_fetch_add(&f->refs, 1);
	c->fam = f;
	c->fam_len = strlen(f->desc.name);
	int req = o->max_versions <= 0 ? INT32_MAX : o->max_versions;
	c->match.max_versions = r->raw || req < f->desc.max_versions
					? req
					: f->desc.max_versions;
	c->match.raw = r->raw;
	c->match.min_ts = r->min_ts;
	c->match.max_ts = r->max_ts;
	c->match.filter = r->filter;
	bool whole = false;
	size_t n = 0;
	for (size_t i = 0; i < o->ncolumns; i++)
		if (!strcmp(o->columns[i].family, f->desc.name)) {
			if (!o->columns[i].qualifier)
				whole = true;
			else
				n++;
		}
	if (whole || n == 0)
		return SBX_OK;
	c->quals = sbx_calloc(n, sizeof *c->quals);
	if (!c->quals)
		return SBX_ENOMEM_SET();
	for (size_t i = 0; i < o->ncolumns; i++)
		if (!strcmp(o->columns[i].family, f->desc.name) &&
		    o->columns[i].qualifier &&
		    sbx_buf_set(&c->quals[c->nquals++], o->columns[i].qualifier,
				o->columns[i].qualifier_len))
			return SBX_ENOMEM_SET();
	qsort(c->quals, c->nquals, sizeof *c->quals, cmp_buf);
	c->match.columns = c->quals;
	c->match.ncolumns = c->nquals;
	return SBX_OK;
}

static int set_bounds(reader *r, const sbx_scan_opts *o)
{
	const uint8_t *lo = o->start_row, *hi = o->stop_row;
	size_t lol = o->start_row_len, hil = o->stop_row_len;
	bool lo_incl = o->start_inclusive, hi_incl = o->stop_inclusive;
	if (o->reversed) { /* HBase: start is the high bound */
		lo = o->stop_row, lol = o->stop_row_len, lo_incl = o->stop_inclusive;
		hi = o->start_row, hil = o->start_row_len, hi_incl = o->start_inclusive;
	}
	int rc = SBX_OK;
	if (lol) {
		r->has_lower = true;
		rc = lo_incl ? cellkey_row_start(&r->lower, lo, lol)
			     : cellkey_row_end(&r->lower, lo, lol);
	}
	if (!rc && hil) {
		r->has_upper = true;
		rc = hi_incl ? cellkey_row_end(&r->upper, hi, hil)
			     : cellkey_row_start(&r->upper, hi, hil);
	}
	if (rc)
		return rc;
	if (r->has_lower && r->has_upper &&
	    cmp_bytes(r->lower.data, r->lower.len, r->upper.data,
		      r->upper.len) >= 0)
		r->done = true; /* empty range */
	return SBX_OK;
}

/* Rows larger than this do not size later reads' first results. */
#define HINT_MAX_BYTES ((size_t)64 << 10)
#define HINT_MAX_CELLS ((size_t)1024)

/* Leave the last row's size as the table's hint (stored only when it
 * changes: the line is shared by every reader of the table). */
static void store_size_hint(reader *r)
{
	table *t = r->tab;
	size_t b = r->last_bytes, c = r->last_cells;
	if (!c || b > HINT_MAX_BYTES || c > HINT_MAX_CELLS)
		return;
	if (atomic_load_explicit(&t->row_bytes_hint, memory_order_relaxed) != b)
		atomic_store_explicit(&t->row_bytes_hint, b,
				      memory_order_relaxed);
	if (atomic_load_explicit(&t->row_cells_hint, memory_order_relaxed) != c)
		atomic_store_explicit(&t->row_cells_hint, c,
				      memory_order_relaxed);
}

/* Scratch a parked reader may keep; a reader that grew more is freed. */
#define PARK_MAX_BYTES ((size_t)256 << 10)

/* The scratch buffers a reader keeps between uses. */
#define READER_BUFS(X)                                                        \
	X(lower) X(upper) X(prefix) X(qual) X(colkey) X(seek)               \
	X(hint.row) X(hint.qualifier) X(rb.arena) X(row) X(cnt_row)
#define COUNT_BUF(f) +1
enum { READER_NBUFS = 0 READER_BUFS(COUNT_BUF) };
#undef COUNT_BUF

static size_t reader_scratch_bytes(const reader *r)
{
	size_t n = matcher_scratch_bytes(&r->m) +
		   r->rb.cap * sizeof(rowbuf_ent);
	for (size_t i = 0; i < r->fc_cap; i++)
		n += r->fc[i].row.cap;
#define ADD_CAP(f) n += r->f.cap;
	READER_BUFS(ADD_CAP)
#undef ADD_CAP
	return n;
}

static void drop_kept(reader *r)
{
	if (r->kept_it) {
		rocksdb_iter_destroy(r->kept_it);
		r->kept_it = NULL;
	}
}

static void reader_free(reader *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->fc_cap; i++)
		sbx_buf_free(&r->fc[i].row);
	free(r->fc);
	drop_kept(r); /* before r->ro: it reads its bounds */
	if (r->ro)
		rocksdb_readoptions_destroy(r->ro);
#define FREE_BUF(f) sbx_buf_free(&r->f);
	READER_BUFS(FREE_BUF)
#undef FREE_BUF
	matcher_free(&r->m);
	free(r->rb.ents);
	free(r);
}

static void reader_release(parked_reader *p)
{
	reader_free((reader *)p);
}

static void reader_drop_iterator(parked_reader *p)
{
	drop_kept((reader *)p);
}

/* Zero every field but the scratch memory, which is kept, emptied. */
static void reader_reset(reader *r)
{
	/* Only what is kept is saved (not the whole reader: a get pays for
	 * every byte copied here). */
	parked_reader park = r->park;
	famcur *fc = r->fc;
	size_t fc_cap = r->fc_cap;
	rocksdb_readoptions_t *ro = r->ro;
	rocksdb_iterator_t *kept_it = r->kept_it;
	rocksdb_column_family_handle_t *it_cf = r->it_cf;
	uint64_t it_seq = r->it_seq, it_epoch = r->it_epoch;
	int64_t it_ms = r->it_ms;
	bool it_fill = r->it_fill;
	ts_set fam_ver = r->m.family_versions, col_ver = r->m.column_versions;
	rowbuf_ent *ents = r->rb.ents;
	size_t ents_cap = r->rb.cap;
	sbx_buf bufs[READER_NBUFS];
	size_t nb = 0;
#define SAVE_BUF(f) bufs[nb++] = r->f;
	READER_BUFS(SAVE_BUF)
#undef SAVE_BUF
	memset(r, 0, sizeof *r);
	r->park = park;
	r->fc = fc;
	r->fc_cap = fc_cap;
	r->ro = ro;
	r->kept_it = kept_it;
	r->it_cf = it_cf;
	r->it_seq = it_seq;
	r->it_epoch = it_epoch;
	r->it_ms = it_ms;
	r->it_fill = it_fill;
	for (size_t i = 0; i < r->fc_cap; i++) {
		sbx_buf row = r->fc[i].row;
		memset(&r->fc[i], 0, sizeof r->fc[i]);
		r->fc[i].row = row;
		r->fc[i].row.len = 0;
	}
	nb = 0;
#define KEEP_BUF(f) r->f = bufs[nb++], r->f.len = 0;
	READER_BUFS(KEEP_BUF)
#undef KEEP_BUF
	r->m.family_versions = fam_ver; /* matcher_begin_row empties them */
	r->m.column_versions = col_ver;
	r->rb.ents = ents;
	r->rb.cap = ents_cap;
}

/* The table's parked reader, or a new one; room for nfc cursors. */
static reader *reader_alloc(table *t, size_t nfc)
{
	/* (a taken reader's slot stays marked if it kept an iterator, until
	 * a reader parks there again or a write's sweep finds it empty) */
	reader *r = (reader *)atomic_exchange_explicit(
		&t->spare_reader[engine_thread_index() % TABLE_SPARE_READERS].p,
		NULL, memory_order_acquire);
	if (!r) {
		if (!(r = sbx_calloc(1, sizeof *r)))
			return NULL;
		r->park.release = reader_release;
		r->park.drop_iterator = reader_drop_iterator;
	}
	if (r->fc_cap < nfc) {
		famcur *fc = sbx_realloc(r->fc, nfc * sizeof *fc);
		if (!fc) {
			reader_free(r);
			return NULL;
		}
		memset(fc + r->fc_cap, 0, (nfc - r->fc_cap) * sizeof *fc);
		r->fc = fc;
		r->fc_cap = nfc;
	}
	return r;
}

/*
 * A point get's iterator is kept with the parked reader and reused by the
 * thread's next get of the table (a new RocksDB iterator and its teardown
 * were 6 % of a get that misses the row cache). An iterator reads the store as it was
 * when it was made, so it is reused only while nothing has changed since:
 * the store's latest sequence number (every write, any table) and the
 * table's cache epoch (bulk loads, admin calls) are as they were when it
 * was made, the family and BLOCKCACHE setting the same. Its bounds are
 * the read options' slices, which RocksDB reads through pointers: a
 * reused iterator is seeked after they are set for the new row (RocksDB
 * rechecks bounds at each seek). Only a get with both bounds keeps one
 * (setting a bound NULL would leave it an empty slice), and none older
 * than KEPT_ITERATOR_MS is reused. While parked it pins the memtables
 * and store files of its moment: the thread's next get of the table (if
 * it is too old by then), a write to the table (which sweeps the slots
 * marked in spare_iterators), an admin call, bulk load, flush or
 * compaction, and the database's close drop it (table_drop_kept_iterator,
 * every slot); a background
 * compaction that ends while the table sees none of these keeps its
 * input files on disk until one comes.
 */
static bool get_keeps_iterator(const reader *r)
{
	return r->tab && r->point_get && r->nfc == 1 && r->has_lower &&
	       r->has_upper;
}

/* Whether the iterator r->it_* describe still sees the store as it is,
 * and is young enough: flushes and compactions replace store files
 * without a new sequence number (RocksDB's C API does not tell when, but
 * for a property read under the database's mutex), and an iterator would
 * keep reading the files replaced. */
#define KEPT_ITERATOR_MS 100

static bool kept_current(const reader *r)
{
	return r->now_ms >= r->it_ms &&
	       r->now_ms - r->it_ms < KEPT_ITERATOR_MS &&
	       r->it_epoch == atomic_load_explicit(&r->tab->cache_epoch,
						   memory_order_acquire) &&
	       r->it_seq == rocksdb_get_latest_sequence_number(r->eng->db);
}

void reader_close(reader *r)
{
	if (!r)
		return;
	table *t = r->tab;
	bool counted = !r->point_get; /* t and the families referenced */
	if (t)
		store_size_hint(r);
	/* fc[0]'s iterator (kept or made by reader_iterators) waits for the
	 * next get; it_* describe it already */
	if (get_keeps_iterator(r) && r->fc[0].it) {
		assert(!r->kept_it); /* reused or dropped when it was made */
		r->kept_it = r->fc[0].it;
		r->fc[0].it = NULL;
	}
	for (size_t i = 0; i < r->nfc; i++) {
		famcur *c = &r->fc[i];
		if (c->it)
			rocksdb_iter_destroy(c->it);
		for (size_t j = 0; j < c->nquals; j++)
			sbx_buf_free(&c->quals[j]);
		free(c->quals);
		if (counted)
			family_unref(c->fam);
	}
	sbx_result_free(r->pending);
	/* Park the memory in the table for the next read: a point get then
	 * allocates none of its scratch buffers. */
	parked_reader *none = NULL;
	if (t && reader_scratch_bytes(r) <= PARK_MAX_BYTES) {
		if (r->kept_it && !kept_current(r))
			drop_kept(r);
		bool kept = r->kept_it != NULL;
		reader_reset(r);
		unsigned slot = engine_thread_index() % TABLE_SPARE_READERS;
		if (atomic_compare_exchange_strong_explicit(
			    &t->spare_reader[slot].p, &none, &r->park,
			    memory_order_release, memory_order_relaxed)) {
			r = NULL;
			/* the slot's mark follows what it now keeps (after the
			 * park: a sweep between finds the reader) */
			unsigned bit = 1u << slot;
			bool marked = atomic_load_explicit(&t->spare_iterators,
							   memory_order_relaxed) &
				      bit;
			if (kept && !marked)
				atomic_fetch_or_explicit(&t->spare_iterators,
							 bit,
							 memory_order_relaxed);
			else if (!kept && marked)
				atomic_fetch_and_explicit(&t->spare_iterators,
							  ~bit,
							  memory_order_relaxed);
		}
	}
	reader_free(r);
	if (counted)
		table_unref(t);
}

int reader_setup(reader **out, engine *e, table *t, const sbx_scan_opts *o,
		 bool point_get)
{
	ASSERT_TABLE_LOCKED(t);
	*out = NULL;
	const sbx_read_opts *ro = &o->read;
	for (size_t i = 0; i < ro->ncolumns; i++)
		if (!table_family(t, ro->columns[i].family))
			return sbx_error_set(SBX_ENOFAMILY,
					     "table '%s' has no family '%s'",
					     t->name, ro->columns[i].family);
	reader *r = reader_alloc(t, t->nfams ? t->nfams : 1);
	if (!r)
		return SBX_ENOMEM_SET();
	/* A point get runs and closes under t's read lock (engine_read_row),
	 * which keeps t and its families: it takes no reference to them, as
	 * a scan, which outlives the lock between rows, does (every get
	 * writing the same counters was a cache line all threads shared). */
	r->point_get = point_get;
	if (!point_get)
		atomic_fetch_add(&t->refs, 1);
	r->eng = e;
	r->tab = t;
	r->reversed = o->reversed;
	r->raw = ro->raw;
	r->min_ts = ro->min_ts;
	r->max_ts = ro->max_ts;
	r->limit = o->limit;
	r->batch = o->batch;
	r->filter = ro->filter;
	r->now_ms = engine_now_ms();
	r->last_bytes = atomic_load_explicit(&t->row_bytes_hint,
					     memory_order_relaxed);
	r->last_cells = atomic_load_explicit(&t->row_cells_hint,
					     memory_order_relaxed);
	int rc = SBX_OK;
	for (size_t i = 0; !rc && i < t->nfams; i++) {
		bool selected = ro->ncolumns == 0;
		for (size_t j = 0; j < ro->ncolumns; j++)
			if (!strcmp(ro->columns[j].family, t->fams[i]->desc.name))
				selected = true;
		if (selected)
			rc = add_famcur(r, t->fams[i], ro);
	}
	if (!rc)
		rc = set_bounds(r, o);
	if (rc) {
		reader_close(r);
		return rc;
	}
	if (r->filter)
		sbx_filter_set_reversed(r->filter, r->reversed);
	if (!point_get && (rc = reader_iterators(r))) {
		reader_close(r);
		return rc;
	}
	*out = r;
	return SBX_OK;
}

int reader_iterators(reader *r)
{
	engine *e = r->eng;
	/* A parked reader brings its read options: every field used is set
	 * here (a NULL bound clears the previous use's). */
	if (!r->ro && !(r->ro = rocksdb_readoptions_create()))
		return SBX_ENOMEM_SET();
	rocksdb_readoptions_set_iterate_lower_bound(
		r->ro, r->has_lower ? (const char *)r->lower.data : NULL,
		r->lower.len);
	rocksdb_readoptions_set_iterate_upper_bound(
		r->ro, r->has_upper ? (const char *)r->upper.data : NULL,
		r->upper.len);
	/* Point gets may use the row-prefix bloom; scans cross rows. */
	rocksdb_readoptions_set_total_order_seek(r->ro, !r->point_get);
	/* BLOCKCACHE false on every family read: leave the block cache */
	bool fill = r->nfc == 0;
	for (size_t i = 0; i < r->nfc; i++)
		fill = fill || r->fc[i].fam->desc.block_cache;
	rocksdb_readoptions_set_fill_cache(r->ro, fill);
	if (get_keeps_iterator(r)) {
		/* the kept iterator, or a new one to keep (above) */
		rocksdb_column_family_handle_t *cf = r->fc[0].fam->cf;
		if (r->kept_it && r->it_cf == cf && r->it_fill == fill &&
		    kept_current(r)) {
			r->fc[0].it = r->kept_it;
			r->kept_it = NULL;
			return SBX_OK;
		}
		drop_kept(r);
		/* read before the iterator takes its view: a write between
		 * makes the recorded sequence older than the view, so the
		 * iterator is not reused (never the other way) */
		r->it_seq = rocksdb_get_latest_sequence_number(e->db);
		r->it_epoch = atomic_load_explicit(&r->tab->cache_epoch,
						   memory_order_acquire);
		r->it_cf = cf;
		r->it_ms = r->now_ms;
		r->it_fill = fill;
		r->fc[0].it = rocksdb_create_iterator_cf(e->db, r->ro, cf);
	} else if (r->nfc == 1) {
		r->fc[0].it = rocksdb_create_iterator_cf(e->db, r->ro,
							 r->fc[0].fam->cf);
	} else if (r->nfc > 1) {
		rocksdb_column_family_handle_t **cfs =
		    sbx_calloc(r->nfc, sizeof *cfs);
		rocksdb_iterator_t **its = sbx_calloc(r->nfc, sizeof *its);
		char *err = NULL;
		if (cfs && its) {
			for (size_t i = 0; i < r->nfc; i++)
				cfs[i] = r->fc[i].fam->cf;
			rocksdb_create_iterators(e->db, r->ro, cfs, its, r->nfc,
						 &err);
			for (size_t i = 0; !err && i < r->nfc; i++)
				r->fc[i].it = its[i];
		}
		free(cfs);
		free(its);
		if (err || !r->fc[0].it)
			return err ? engine_rocks_error(err, "creating iterators")
				   : SBX_ENOMEM_SET();
	}
	return SBX_OK;
}

int reader_open(reader **out, engine *e, table *t, const sbx_scan_opts *o)
{
	ASSERT_TABLE_LOCKED(t);
	return reader_setup(out, e, t, o, false);
}
