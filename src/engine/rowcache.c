/*
 * rowcache.c - the row cache (rowcache.h): a sharded hash table of
 * entries, each one family's raw cells of one row, with an LRU list and a
 * byte bound per shard, and the per-stripe seqlocks that keep it
 * consistent with writes (the protocol is in rowcache.h).
 *
 * Under threads: a hit only takes a reference to its entry and sets its
 * reference bit under the shard's lock (no list change: the second-chance
 * "clock" approximation of LRU, so the hottest entries do not bounce the
 * list between cores), then copies the cells without the lock (entries
 * are immutable once linked); each shard's mutex is glibc's adaptive
 * one, which spins briefly before it sleeps, as its critical sections
 * are a hash probe. (Two threads on a zipfian read load ran at 0.4x one
 * thread with a plain mutex, LRU relinking and the copy under the lock.)
 */
#define _GNU_SOURCE /* PTHREAD_MUTEX_ADAPTIVE_NP */
#include "engine/rowcache.h"

#include "common/alloc.h"
#include "common/error.h"
#include "engine/cellkey.h"
#include "engine/reader.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#define RC_SHARDS 32

typedef struct rc_entry {
	struct rc_entry *hnext;       /* hash chain */
	struct rc_entry *prev, *next; /* clock list: head newest */
	atomic_bool ref;              /* hit since it last passed the tail */
	atomic_int refs; /* the cache's one while linked, plus each reader's */
	bool trimmed;    /* puts no plain read sees left out (rowcache.h) */
	uint64_t hash;
	uint64_t epoch;
	size_t charge; /* bytes counted against the bound */
	size_t cf_len, row_len;
	size_t n, data_len; /* cells, bytes of the packed cells */
	/* then: the cf name, the row, and the cells packed, each as
	 * u16 key length less the row's prefix, u32 value length, that
	 * part of the key, the value (the prefix, E(row), is stored once:
	 * it is the row's) */
} rc_entry;

#define CELL_HDR 6

/* The largest entry: a hit copies its entry whole (under the shard's
 * lock) and a write merging into one copies it too, where RocksDB's
 * iterator steps over a row in place. A larger row - a wide one, or a hot
 * column's pile of versions that compactions have not dropped yet - is
 * read from RocksDB (two threads copying 512 KiB piles of a hot row under
 * one lock ran at 0.4x one thread in bench_engine's C after A). */
#define RC_ENTRY_MAX ((size_t)16 << 10)

typedef struct rc_shard {
	pthread_mutex_t lock;
	rc_entry **buckets;
	size_t nbuckets; /* a power of two */
	size_t count;
	size_t bytes, capacity;
	rc_entry *head, *tail;
	uint64_t evictions, inserts, declined;
	/* The admission filter (a "doorkeeper", as in TinyLFU): once the
	 * shard is full, a row enters only if it missed recently before
	 * (both its bits set); cleared after dk_bits / 4 rows marked. */
	uint64_t *dk;
	size_t dk_bits, dk_adds; /* dk_bits a power of two */
	char pad[64];
} rc_shard;

/* Hits and misses, striped by thread slot (engine_thread_index) as the
 * region counters are: 128 bytes apart, so no two stripes' counters share
 * a cache line wherever the struct starts. */
#define RC_STAT_STRIPES 16
typedef struct rc_stats {
	_Atomic uint64_t hits, misses;
	char pad[128 - 2 * sizeof(uint64_t)];
} rc_stats;

struct rowcache {
	rc_shard shards[RC_SHARDS];
	size_t max_entry;
	_Atomic uint64_t seq[ENGINE_ROW_STRIPES];
	rc_stats stats[RC_STAT_STRIPES];
};

static const char *ent_cf(rc_entry *e)
{
	return (const char *)(e + 1);
}

static const uint8_t *ent_row(rc_entry *e)
{
	return (const uint8_t *)ent_cf(e) + e->cf_len;
}

static const uint8_t *ent_data(rc_entry *e)
{
	return ent_row(e) + e->row_len;
}

uint64_t rowcache_row_hash(const uint8_t *row, size_t len)
{
	return XXH3_64bits(row, len);
}

static uint64_t key_hash(const rowcache_key *k)
{
	uint64_t h = k->row_hash ^ XXH3_64bits_withSeed(k->cf_name, k->cf_len,
							k->epoch);
	return h * 0x9E3779B97F4A7C15ull;
}

rowcache *rowcache_new(size_t bytes)
{
	if (!bytes)
		return NULL;
	rowcache *c = sbx_calloc(1, sizeof *c);
	if (!c)
		return NULL;
	for (int i = 0; i < RC_SHARDS; i++) {
		rc_shard *s = &c->shards[i];
		pthread_mutexattr_t a;
		pthread_mutexattr_init(&a);
		pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ADAPTIVE_NP);
		pthread_mutex_init(&s->lock, &a);
		pthread_mutexattr_destroy(&a);
		s->capacity = bytes / RC_SHARDS;
		s->nbuckets = 64;
		s->buckets = sbx_calloc(s->nbuckets, sizeof *s->buckets);
		/* a bit per 64 bytes of capacity: ~20 per entry of a
		 * 10-cell row, so a window of ~5 shards' worth of rows */
		s->dk_bits = 4096;
		while (s->dk_bits < s->capacity / 64)
			s->dk_bits *= 2;
		s->dk = sbx_calloc(s->dk_bits / 64, sizeof *s->dk);
		if (!s->buckets || !s->dk) {
			rowcache_free(c);
			return NULL;
		}
	}
	/* an entry takes at most a quarter of its shard, and RC_ENTRY_MAX */
	c->max_entry = bytes / RC_SHARDS / 4;
	if (c->max_entry > RC_ENTRY_MAX)
		c->max_entry = RC_ENTRY_MAX;
	return c;
}

void rowcache_free(rowcache *c)
{
	if (!c)
		return;
	for (int i = 0; i < RC_SHARDS; i++) {
		rc_shard *s = &c->shards[i];
		for (rc_entry *e = s->head, *nx; e; e = nx) {
			nx = e->next;
			free(e);
		}
		free(s->buckets);
		free(s->dk);
		pthread_mutex_destroy(&s->lock);
	}
	free(c);
}

size_t rowcache_max_entry(const rowcache *c)
{
	return c->max_entry;
}

uint64_t rowcache_seq(const rowcache *c, unsigned stripe)
{
	return atomic_load_explicit(&c->seq[stripe], memory_order_acquire);
}

void rowcache_write_begin(rowcache *c, unsigned stripe)
{
	/* odd before the write: seq_cst orders it before the RocksDB write */
	atomic_fetch_add_explicit(&c->seq[stripe], 1, memory_order_seq_cst);
}

void rowcache_write_end(rowcache *c, unsigned stripe)
{
	atomic_fetch_add_explicit(&c->seq[stripe], 1, memory_order_seq_cst);
}

static rc_shard *shard_of(rowcache *c, uint64_t h)
{
	return &c->shards[h >> 59]; /* 32 shards: the top 5 bits */
}

static bool ent_is(rc_entry *e, uint64_t h, const rowcache_key *k)
{
	return e->hash == h && e->epoch == k->epoch &&
	       e->row_len == k->row_len && e->cf_len == k->cf_len &&
	       !memcmp(ent_row(e), k->row, k->row_len) &&
	       !memcmp(ent_cf(e), k->cf_name, k->cf_len);
}

/* The chain link pointing at k's entry (or at the chain's NULL end). */
static rc_entry **find_slot(rc_shard *s, uint64_t h, const rowcache_key *k)
{
	rc_entry **p = &s->buckets[h & (s->nbuckets - 1)];
	while (*p && !ent_is(*p, h, k))
		p = &(*p)->hnext;
	return p;
}

static void lru_unlink(rc_shard *s, rc_entry *e)
{
	if (e->prev)
		e->prev->next = e->next;
	else
		s->head = e->next;
	if (e->next)
		e->next->prev = e->prev;
	else
		s->tail = e->prev;
	e->prev = e->next = NULL;
}

static void lru_push_front(rc_shard *s, rc_entry *e)
{
	e->prev = NULL;
	e->next = s->head;
	if (s->head)
		s->head->prev = e;
	s->head = e;
	if (!s->tail)
		s->tail = e;
}

/* Drop a reference; the last one frees the entry. An entry's cells never
 * change once it is linked (a write links a new entry in its place), so a
 * reader holding a reference copies them without the shard's lock. */
static void ent_unref(rc_entry *e)
{
	if (atomic_fetch_sub_explicit(&e->refs, 1, memory_order_acq_rel) == 1)
		free(e);
}

/* Unlink e (found through slot p) and drop the cache's reference. */
static void remove_at(rc_shard *s, rc_entry **p)
{
	rc_entry *e = *p;
	*p = e->hnext;
	lru_unlink(s, e);
	s->count--;
	s->bytes -= e->charge;
	ent_unref(e);
}

/* Evict least recently used entries (never `keep`) until `more` bytes fit
 * under the shard's bound. */
static void evict_for(rc_shard *s, size_t more, const rc_entry *keep)
{
	while (s->tail && s->tail != keep && s->bytes + more > s->capacity) {
		rc_entry *v = s->tail;
		if (atomic_load_explicit(&v->ref, memory_order_relaxed)) {
			/* hit since it last came here: a second chance */
			atomic_store_explicit(&v->ref, false,
					      memory_order_relaxed);
			lru_unlink(s, v);
			lru_push_front(s, v);
			continue;
		}
		rc_entry **q = &s->buckets[v->hash & (s->nbuckets - 1)];
		while (*q != v)
			q = &(*q)->hnext;
		remove_at(s, q);
		s->evictions++;
	}
}

void rowcache_unpin(const void *pin)
{
	if (pin)
		ent_unref((rc_entry *)pin);
}

int rowcache_lookup(rowcache *c, const rowcache_key *k, const uint8_t *prefix,
		    size_t plen, bool all_cells, rowbuf *dst, const void **pin,
		    bool *hit)
{
	uint64_t h = key_hash(k);
	rc_shard *s = shard_of(c, h);
	*hit = false;
	if (pin)
		*pin = NULL;
	pthread_mutex_lock(&s->lock);
	rc_entry *e = *find_slot(s, h, k);
	if (e && e->trimmed && all_cells)
		e = NULL;
	if (e) {
		atomic_fetch_add_explicit(&e->refs, 1, memory_order_relaxed);
		if (!atomic_load_explicit(&e->ref, memory_order_relaxed))
			atomic_store_explicit(&e->ref, true,
					      memory_order_relaxed);
	}
	pthread_mutex_unlock(&s->lock);
	int rc = SBX_OK;
	if (e) {
		if (dst->n + e->n > dst->cap) {
			size_t cap = dst->cap ? dst->cap : 16;
			while (cap < dst->n + e->n)
				cap *= 2;
			rowbuf_ent *ne = sbx_realloc(dst->ents, cap * sizeof *ne);
			if (!ne)
				rc = SBX_ENOMEM_SET();
			else
				dst->ents = ne, dst->cap = cap;
		}
		/* (with a pin the values stay in the entry: less is used) */
		size_t need = e->data_len - e->n * CELL_HDR + e->n * plen;
		if (!rc && sbx_buf_reserve_inline(&dst->arena, need))
			rc = SBX_ENOMEM_SET();
		if (!rc && e->n) { /* an empty entry: the row has no cells */
			const uint8_t *p = ent_data(e);
			uint8_t *a = dst->arena.data;
			size_t off = dst->arena.len;
			rowbuf_ent *d = dst->ents + dst->n;
			for (size_t i = 0; i < e->n; i++) {
				uint16_t sl;
				uint32_t vl;
				memcpy(&sl, p, 2);
				memcpy(&vl, p + 2, 4);
				p += CELL_HDR;
				d[i].koff = off;
				d[i].klen = plen + sl;
				memcpy(a + off, prefix, plen);
				memcpy(a + off + plen, p, sl);
				off += plen + sl;
				p += sl;
				d[i].vlen = vl;
				if (pin) {
					d[i].voff = 0;
					d[i].vptr = p;
				} else {
					d[i].voff = off;
					d[i].vptr = NULL;
					memcpy(a + off, p, vl);
					off += vl;
				}
				p += vl;
			}
			dst->arena.len = off;
			dst->n += e->n;
		}
		*hit = rc == SBX_OK;
		if (*hit && pin)
			*pin = e; /* the reader's reference, until unpinned */
		else
			ent_unref(e);
	}
	return rc;
}

static void grow_buckets(rc_shard *s)
{
	size_t nb = s->nbuckets * 2;
	rc_entry **b = sbx_calloc(nb, sizeof *b);
	if (!b)
		return; /* chains just get longer */
	for (size_t i = 0; i < s->nbuckets; i++)
		for (rc_entry *e = s->buckets[i], *nx; e; e = nx) {
			nx = e->hnext;
			rc_entry **p = &b[e->hash & (nb - 1)];
			e->hnext = *p;
			*p = e;
		}
	free(s->buckets);
	s->buckets = b;
	s->nbuckets = nb;
}

/* Compare a packed cell's key suffix with a new cell's (less plen). */
static int suffix_cmp(const uint8_t *a, size_t al, const uint8_t *b,
		      size_t bl)
{
	int d = memcmp(a, b, al < bl ? al : bl);
	return d ? d : (al > bl) - (al < bl);
}

/* Append one packed cell at w; returns the end. */
static uint8_t *pack_cell(uint8_t *w, const uint8_t *k, size_t kl,
			  const uint8_t *v, size_t vl)
{
	uint16_t sl = (uint16_t)kl;
	uint32_t l = (uint32_t)vl;
	memcpy(w, &sl, 2);
	memcpy(w + 2, &l, 4);
	memcpy(w + CELL_HDR, k, kl);
	if (vl)
		memcpy(w + CELL_HDR + kl, v, vl);
	return w + CELL_HDR + kl + vl;
}

/* Whether a cell can be packed less plen bytes of prefix (CELL_HDR's
 * u16 key and u32 value lengths). */
static bool packable(const rowbuf_ent *x, size_t plen)
{
	return x->klen >= plen && x->klen - plen <= UINT16_MAX &&
	       x->vlen <= UINT32_MAX;
}

int rowcache_trim_versions(const sbx_family_desc *d)
{
	if (d->min_versions > 0 || d->keep_deleted_cells != SBX_KEEP_DELETED_FALSE)
		return 0;
	return d->max_versions > 0 ? d->max_versions : 0;
}

/* Whether a row that missed may enter the full shard s: yes if it missed
 * recently before, else it is marked (under the shard's lock). Scrambled
 * zipfian reads (YCSB's) spread half their rows over the whole key space:
 * rows read once would each evict a row read again. */
static bool admit(rc_shard *s, uint64_t h)
{
	uint64_t x = h * 0xff51afd7ed558ccdull;
	size_t b1 = (size_t)x & (s->dk_bits - 1);
	size_t b2 = (size_t)(x >> 32) & (s->dk_bits - 1);
	uint64_t m1 = 1ull << (b1 & 63), m2 = 1ull << (b2 & 63);
	if ((s->dk[b1 / 64] & m1) && (s->dk[b2 / 64] & m2))
		return true;
	s->dk[b1 / 64] |= m1;
	s->dk[b2 / 64] |= m2;
	if (++s->dk_adds >= s->dk_bits / 4) {
		memset(s->dk, 0, s->dk_bits / 8);
		s->dk_adds = 0;
	}
	return false;
}

void rowcache_insert(rowcache *c, const rowcache_key *k, uint64_t seq,
		     size_t plen, const rowbuf *src, size_t from, size_t to,
		     bool trimmed)
{
	if (seq & 1)
		return;
	size_t n = to - from, dlen = 0;
	for (size_t i = from; i < to; i++) {
		const rowbuf_ent *x = &src->ents[i];
		if (!packable(x, plen))
			return;
		dlen += CELL_HDR + x->klen - plen + x->vlen;
	}
	if (dlen > c->max_entry)
		return;
	size_t size = sizeof(rc_entry) + k->cf_len + k->row_len + dlen;
	uint64_t h = key_hash(k);
	rc_shard *s = shard_of(c, h);
	pthread_mutex_lock(&s->lock);
	bool in = s->bytes + size <= s->capacity || admit(s, h);
	s->declined += !in;
	pthread_mutex_unlock(&s->lock);
	if (!in)
		return;
	rc_entry *e = sbx_malloc(size);
	if (!e)
		return;
	memset(e, 0, sizeof *e);
	atomic_init(&e->ref, false);
	atomic_init(&e->refs, 1);
	e->trimmed = trimmed;
	e->epoch = k->epoch;
	e->charge = size;
	e->cf_len = k->cf_len;
	e->row_len = k->row_len;
	e->n = n;
	e->data_len = dlen;
	memcpy((char *)ent_cf(e), k->cf_name, k->cf_len);
	memcpy((uint8_t *)ent_row(e), k->row, k->row_len);
	uint8_t *w = (uint8_t *)ent_data(e);
	for (size_t i = from; i < to; i++) {
		const rowbuf_ent *x = &src->ents[i];
		w = pack_cell(w, src->arena.data + x->koff + plen,
			      x->klen - plen, rowbuf_value(src, x),
			      x->vlen);
	}
	e->hash = h;
	pthread_mutex_lock(&s->lock);
	/* Under the shard lock: a writer that erases after this sees the
	 * entry; one that began after our read moved the seqlock. */
	if (atomic_load_explicit(&c->seq[k->row_hash % ENGINE_ROW_STRIPES],
				 memory_order_seq_cst) != seq ||
	    size > s->capacity) {
		pthread_mutex_unlock(&s->lock);
		free(e);
		return;
	}
	rc_entry **p = find_slot(s, h, k);
	if (*p)
		remove_at(s, p);
	evict_for(s, size, NULL);
	/* At most one entry per two buckets: a lookup that misses walks
	 * every entry of its chain, a cache miss in memory each (4 % of a
	 * 1M-row get load at one per bucket). */
	if (s->count + 1 > s->nbuckets / 2)
		grow_buckets(s);
	p = &s->buckets[h & (s->nbuckets - 1)];
	e->hnext = *p;
	*p = e;
	lru_push_front(s, e);
	s->count++;
	s->bytes += size;
	s->inserts++;
	pthread_mutex_unlock(&s->lock);
}

void rowcache_erase(rowcache *c, const rowcache_key *k)
{
	uint64_t h = key_hash(k);
	rc_shard *s = shard_of(c, h);
	pthread_mutex_lock(&s->lock);
	rc_entry **p = find_slot(s, h, k);
	if (*p)
		remove_at(s, p);
	pthread_mutex_unlock(&s->lock);
}

/* Merge e's packed cells with new cells src->ents[idx[0..n)] (full keys,
 * plen bytes of prefix) in key order, a new cell replacing an old one of
 * the same key; written at w unless NULL. Returns the packed length and
 * the count in *cells. */
static size_t merge_cells(rc_entry *e, size_t plen, const rowbuf *src,
			  const size_t *idx, size_t n, uint8_t *w,
			  size_t *cells)
{
	const uint8_t *o = ent_data(e), *oend = o + e->data_len;
	size_t j = 0, len = 0;
	*cells = 0;
	while (o < oend || j < n) {
		const rowbuf_ent *x = j < n ? &src->ents[idx[j]] : NULL;
		uint16_t sl = 0;
		uint32_t vl = 0;
		int d = 1; /* > 0: the new cell comes first */
		if (o < oend) {
			memcpy(&sl, o, 2);
			memcpy(&vl, o + 2, 4);
			d = x ? suffix_cmp(o + CELL_HDR, sl,
					   src->arena.data + x->koff + plen,
					   x->klen - plen)
			      : -1;
		}
		size_t olen = CELL_HDR + sl + vl;
		if (d < 0) {
			if (w)
				memcpy(w + len, o, olen);
			len += olen;
			o += olen;
		} else {
			if (w)
				pack_cell(w + len, src->arena.data + x->koff + plen,
					  x->klen - plen,
					  rowbuf_value(src, x), x->vlen);
			len += CELL_HDR + x->klen - plen + x->vlen;
			if (d == 0) /* the same key: the new value replaces */
				o += olen;
			j++;
		}
		++*cells;
	}
	return len;
}

void rowcache_update(rowcache *c, const rowcache_key *k, size_t plen,
		     const rowbuf *src, const size_t *idx, size_t n)
{
	if (!c)
		return;
	bool version_marker = false;
	for (size_t i = 0; i < n; i++) {
		const rowbuf_ent *x = &src->ents[idx[i]];
		if (!packable(x, plen)) {
			rowcache_erase(c, k);
			return;
		}
		sbx_cell_type t = cellkey_type(src->arena.data + x->koff,
					       x->klen);
		version_marker = version_marker || t == SBX_CELL_DELETE ||
				 t == SBX_CELL_DELETE_FAMILY_VERSION;
	}
	uint64_t h = key_hash(k);
	rc_shard *s = shard_of(c, h);
	pthread_mutex_lock(&s->lock);
	rc_entry **p = find_slot(s, h, k);
	rc_entry *e = *p;
	if (!e) {
		pthread_mutex_unlock(&s->lock);
		return;
	}
	if (e->trimmed && version_marker) {
		/* it may uncover a version the entry left out */
		remove_at(s, p);
		pthread_mutex_unlock(&s->lock);
		return;
	}
	size_t cells, dlen = merge_cells(e, plen, src, idx, n, NULL, &cells);
	size_t size = sizeof(rc_entry) + e->cf_len + e->row_len + dlen;
	rc_entry *ne = dlen <= c->max_entry && size <= s->capacity
			   ? sbx_malloc(size)
			   : NULL;
	if (!ne) {
		remove_at(s, p);
		pthread_mutex_unlock(&s->lock);
		return;
	}
	memcpy(ne, e, sizeof *ne + e->cf_len + e->row_len);
	atomic_init(&ne->ref, atomic_load_explicit(&e->ref,
						   memory_order_relaxed));
	atomic_init(&ne->refs, 1);
	ne->charge = size;
	ne->n = cells;
	ne->data_len = dlen;
	merge_cells(e, plen, src, idx, n, (uint8_t *)ent_data(ne), &cells);
	/* ne takes e's place in its chain and in the LRU list */
	ne->hnext = e->hnext;
	*p = ne;
	if (e->prev)
		e->prev->next = ne;
	else
		s->head = ne;
	if (e->next)
		e->next->prev = ne;
	else
		s->tail = ne;
	s->bytes = s->bytes - e->charge + ne->charge;
	ent_unref(e);
	evict_for(s, 0, ne);
	pthread_mutex_unlock(&s->lock);
}

void rowcache_count(rowcache *c, uint64_t hits, uint64_t misses)
{
	rc_stats *st = &c->stats[engine_thread_index() % RC_STAT_STRIPES];
	if (hits)
		atomic_fetch_add_explicit(&st->hits, hits, memory_order_relaxed);
	if (misses)
		atomic_fetch_add_explicit(&st->misses, misses,
					  memory_order_relaxed);
}

void rowcache_get_stats(const rowcache *c, rowcache_stats *out)
{
	memset(out, 0, sizeof *out);
	if (!c)
		return;
	rowcache *m = (rowcache *)c;
	for (int i = 0; i < RC_STAT_STRIPES; i++) {
		out->hits += atomic_load(&m->stats[i].hits);
		out->misses += atomic_load(&m->stats[i].misses);
	}
	for (int i = 0; i < RC_SHARDS; i++) {
		rc_shard *s = &m->shards[i];
		pthread_mutex_lock(&s->lock);
		out->inserts += s->inserts;
		out->evictions += s->evictions;
		out->declined += s->declined;
		out->bytes += s->bytes;
		out->capacity += s->capacity;
		out->entries += s->count;
		pthread_mutex_unlock(&s->lock);
	}
}
