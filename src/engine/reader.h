/*
 * reader.h - the state of one get or scan on the engine (internal to
 * reader.c, which opens, parks and closes readers, and read.c, which moves
 * their iterators and assembles rows). A reader is used by one thread at a
 * time, under the table's read lock (engine.h: reader_open).
 */
#ifndef SBX_ENGINE_READER_H
#define SBX_ENGINE_READER_H

#include "engine/engine.h"
#include "engine/matcher.h"
#include "saltbox/filter.h"

#include <string.h>

/* One selected family: its iterator and which qualifiers are wanted. */
typedef struct famcur {
	family *fam;
	size_t fam_len; /* strlen of the family name */
	rocksdb_iterator_t *it;
	sbx_buf *quals; /* the selected qualifiers, sorted (none: all) */
	size_t nquals;
	match_params match; /* what the read asks of this family */
	sbx_buf row;      /* decoded row at the iterator, when row_valid */
	bool row_valid;
	size_t cstart, cend; /* a cached get: its cells in the reader's rb */
	const void *pin;     /* a cached get: the entry its values are in */
} famcur;

/* One family's cells of one row, copied while stepping backwards, so a
 * reversed scan reads each row without seeking (entries in key order). */
typedef struct rowbuf_ent {
	size_t koff, klen, voff, vlen;
	const uint8_t *vptr; /* or NULL: the value is in the arena at voff
			      * (a row cache hit points into its pinned
			      * entry instead of copying; rowcache.h) */
} rowbuf_ent;

typedef struct rowbuf {
	sbx_buf arena;
	rowbuf_ent *ents;
	size_t n, cap, pos;
	bool active; /* read_family_row reads from here, not the iterator */
} rowbuf;

struct reader {
	parked_reader park; /* first: a parked reader is its reader */
	engine *eng;
	table *tab;
	famcur *fc;
	size_t nfc, fc_cap; /* cursors in use, allocated */
	rocksdb_readoptions_t *ro;
	sbx_buf lower, upper; /* iterator bounds; must outlive iterators */
	bool has_lower, has_upper;
	bool reversed;
	bool raw;
	int64_t min_ts, max_ts;
	int64_t limit, returned;
	int batch;
	sbx_filter *filter;
	int64_t now_ms;
	bool done;
	bool started;
	/* per-row scratch */
	sbx_buf prefix; /* E(row) of the row being assembled */
	sbx_buf qual;   /* the current column's qualifier, when it had escapes */
	const uint8_t *cq; /* the current column's qualifier (colkey or qual) */
	size_t cq_len;
	sbx_buf colkey; /* escaped qualifier segment of the current column */
	sbx_buf seek;
	matcher m; /* the family being read */
	/* a whole row split into batch-sized results */
	sbx_result *pending;
	size_t pending_pos;
	sbx_filter_hint hint; /* the filter's seek hint */
	rowbuf rb;
	bool fam_begun; /* the result names the family being read */
	size_t last_bytes, last_cells; /* the previous row's result size */
	sbx_buf row; /* the row being assembled */
	/* A get that missed the row cache fills it (rowcache.h): each
	 * family's cells are read whole into rb, inserted if the stripe's
	 * seqlock is still fill_seq. */
	bool point_get;
	bool fill;
	bool row_seen; /* next_row_key found the row */
	uint64_t fill_seq, row_hash;
	uint64_t cache_epoch; /* the table's, read before the lookups */
	const uint8_t *get_row; /* a point get: its row, the only one it
				 * reads (next_row_key) */
	size_t get_row_len;
	/* A point get's iterator, kept with the parked reader for the next
	 * get of the table (reader.c: reused only while the store has not
	 * advanced). it_* describe fc[0].it while a get runs, kept_it's
	 * afterwards. */
	rocksdb_iterator_t *kept_it;
	rocksdb_column_family_handle_t *it_cf;
	uint64_t it_seq, it_epoch;
	int64_t it_ms; /* when it was made (now_ms) */
	bool it_fill;
	/* A scan's rows counted for their region but not added to it yet
	 * (read.c, count_row): cnt_reg and the table's region_gen then, the
	 * first of those rows, the load bucket [cnt_start, cnt_end), the
	 * counts. */
	region *cnt_reg;
	sbx_buf cnt_row;
	uint64_t cnt_gen;
	int64_t cnt_start, cnt_end;
	uint64_t cnt_reads, cnt_bytes, cnt_filtered;
};

/* Where entry x's value is. */
static inline const uint8_t *rowbuf_value(const rowbuf *b, const rowbuf_ent *x)
{
	return x->vptr ? x->vptr : b->arena.data + x->voff;
}

/* Bytewise order of two byte strings (a shorter prefix first). */
static inline int cmp_bytes(const uint8_t *a, size_t al, const uint8_t *b, size_t bl)
{
	size_t n = al < bl ? al : bl;
	int c = n ? memcmp(a, b, n) : 0;
	if (c)
		return c;
	return al < bl ? -1 : al > bl;
}

/* Set a reader up for o's rows of t; a point get may use the row-prefix
 * bloom filters, and its iterators are left to reader_iterators (a get
 * the row cache answers needs none). REQUIRES: t->lock held for reading. */
int reader_setup(reader **out, engine *e, table *t, const sbx_scan_opts *o,
		 bool point_get);
/* Create a point get's iterators (one consistent view). On error the
 * reader is left for reader_close. */
int reader_iterators(reader *r);

#endif
