/*
 * rowcache.h - the row cache (internal to the engine): each family's raw
 * cells of a row, as a get read them (every version, delete marker and
 * expired cell), kept in memory so the next get of that row reads them
 * without RocksDB. The matcher still runs on them at read time, so
 * versions, markers, TTL, time ranges and filters answer exactly as they
 * do uncached. Bounded in bytes (sbx_db_options.row_cache_bytes), in 32
 * shards, evicted by clock (a reference bit, second chance). Once a shard
 * is full, a row enters only on its second miss within a window (an
 * admission filter, TinyLFU's "doorkeeper"), so rows read once do not
 * push out rows read again.
 *
 * Consistency: a per-row-stripe sequence number (a seqlock, indexed as
 * write.c's row-stripe locks). A writer, holding the stripe lock, makes it
 * odd before its RocksDB write, after it merges the cells it wrote into
 * the row's entries (or erases them), and makes it even again. A get
 * reads it before its lookups and after them
 * and uses the cache only when it was even and unchanged; a get that read
 * RocksDB inserts what it read only if the number is still the even one it
 * read before creating its iterators. So no entry older than a write
 * survives the write's return, and a get never mixes families from both
 * sides of one write. Bulk loads and schema changes move the table's
 * cache epoch (part of every key) instead.
 */
#ifndef SBX_ENGINE_ROWCACHE_H
#define SBX_ENGINE_ROWCACHE_H

#include "engine/engine.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Cells as read_family_row walks them (reader.h's rowbuf). */
struct rowbuf;

/* One entry's key: a family of a table (its column family's name, unique
 * to that family's life), the table's cache epoch, and the row. */
typedef struct rowcache_key {
	uint64_t row_hash; /* XXH3 of the row: stripe = row_hash % stripes */
	uint64_t epoch;
	const char *cf_name;
	size_t cf_len;
	const uint8_t *row;
	size_t row_len;
} rowcache_key;

/* A cache of `bytes` (NULL for 0, or on ENOMEM: no cache). */
rowcache *rowcache_new(size_t bytes);
void rowcache_free(rowcache *c);

/* The row hash used by keys and stripes (write.c's stripe_of). */
uint64_t rowcache_row_hash(const uint8_t *row, size_t len);

/* The seqlock of a stripe: read it (odd: a write is in progress). */
uint64_t rowcache_seq(const rowcache *c, unsigned stripe);
/* A writer holding the stripe's lock: before its write / after it. */
void rowcache_write_begin(rowcache *c, unsigned stripe);
void rowcache_write_end(rowcache *c, unsigned stripe);

/* Append the entry's cells to *dst, each key as `prefix` (plen bytes: the
 * row's E(row), which the entry does not store) and the rest of the key;
 * *hit false if there is none, or if it is trimmed and the read needs
 * `all_cells` (dst unchanged). SBX_ENOMEM if dst cannot grow.
 *
 * pin NULL: the values are copied into dst's arena too. Else the values
 * are not copied: dst's entries point into the cache entry (vptr), which
 * stays valid, whatever writes and evictions do meanwhile, until the
 * caller passes *pin to rowcache_unpin (on a hit only; else *pin NULL). */
int rowcache_lookup(rowcache *c, const rowcache_key *k, const uint8_t *prefix,
		    size_t plen, bool all_cells, struct rowbuf *dst,
		    const void **pin, bool *hit);
/* Release what rowcache_lookup pinned (NULL: nothing). */
void rowcache_unpin(const void *pin);
/* Insert cells [from, to) of src as k's entry, less the first plen bytes
 * of every key (the row's prefix), if the stripe's seqlock is still `seq`
 * (even), the entry fits and, in a full shard, the row missed recently
 * before (admission); best effort (no error).
 *
 * `trimmed`: the cells are the row's less puts no plain read can see (a
 * column's puts older than its newest VERSIONS, in a row without
 * one-version markers; read.c, rowcache_trim_versions). Such an entry
 * answers only reads that do not ask for all_cells, and a write of a
 * one-version marker (SBX_CELL_DELETE, SBX_CELL_DELETE_FAMILY_VERSION)
 * erases it instead of merging. */
void rowcache_insert(rowcache *c, const rowcache_key *k, uint64_t seq,
		     size_t plen, const struct rowbuf *src, size_t from,
		     size_t to, bool trimmed);
/* Erase k's entry, if any. */
void rowcache_erase(rowcache *c, const rowcache_key *k);
/* A writer, between rowcache_write_begin and _end, after its RocksDB
 * write succeeded: merge the cells it wrote to k's family of k's row into
 * k's entry, if there is one (a row no get has cached stays uncached).
 * The cells are src's entries idx[0..n), full keys (the row's prefix,
 * plen bytes, first) in key order, no key twice. The entry becomes what a
 * read of RocksDB would now find: same keys replaced, new ones inserted
 * in order. Erased instead when the merged entry would pass the entry
 * bound (rowcache_max_entry: 16 KiB at most) or memory runs out. */
void rowcache_update(rowcache *c, const rowcache_key *k, size_t plen,
		     const struct rowbuf *src, const size_t *idx, size_t n);
/* For trimmed entries: how many puts per column a plain read of family
 * `d` can see (VERSIONS), or 0 when nothing may be trimmed (MIN_VERSIONS
 * keeps expired versions, KEEP_DELETED_CELLS lets deleted ones show). */
int rowcache_trim_versions(const sbx_family_desc *d);

/* The largest entry kept, in bytes of packed cells. */
size_t rowcache_max_entry(const rowcache *c);

/* Counters and size, for metrics. */
typedef struct rowcache_stats {
	uint64_t hits, misses, inserts, evictions;
	uint64_t declined; /* inserts refused by admission (rowcache.c) */
	uint64_t bytes, capacity, entries;
} rowcache_stats;
void rowcache_get_stats(const rowcache *c, rowcache_stats *out);
void rowcache_count(rowcache *c, uint64_t hits, uint64_t misses);

#endif
