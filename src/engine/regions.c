/*
 * regions.c - the region map of each table: routing rows to regions,
 * per-region load counters in time buckets, automatic splits by HBase's
 * policies at the midpoint of the region's data, manual split and merge,
 * and the placement of regions on the modelled region servers by the
 * balancer keyviz shares (src/placement/). Regions are logical ranges over
 * the table's column families, so a split or merge moves no cell: it swaps
 * the map under the table's write lock.
 */
#include "common/alloc.h"
#include "common/bytes.h"
#include "common/clock.h"
#include "common/error.h"
#include "engine/cellkey.h"
#include "engine/engine.h"
#include "placement/placement.h"

#include <jansson.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static region *region_new(engine *e, const uint8_t *s, size_t sl,
			  const uint8_t *en, size_t el, uint64_t id, int server)
{
	region *r = sbx_calloc(1, sizeof *r);
	if (!r)
		return NULL;
	r->nslots = e->opts.metrics_buckets > 0 ? e->opts.metrics_buckets : 1;
	r->slots = sbx_calloc((size_t)r->nslots, sizeof *r->slots);
	pthread_mutex_init(&r->slots_lock, NULL);
	r->stripes = aligned_alloc(_Alignof(region_stripe),
				   REGION_STRIPES * sizeof *r->stripes);
	if (r->stripes)
		memset(r->stripes, 0, REGION_STRIPES * sizeof *r->stripes);
	if (!r->slots || !r->stripes || sbx_buf_set(&r->start, s, sl) ||
	    sbx_buf_set(&r->end, en, el)) {
		region_free(r);
		return NULL;
	}
	r->id = id;
	r->server = server;
	atomic_init(&r->check_every, SPLIT_CHECK_FLOOR_BYTES);
	return r;
}

region *region_for_row(const table *t, const uint8_t *row, size_t len)
{
	size_t lo = 0, hi = t->nregions;
	while (hi - lo > 1) { /* last region whose start <= row */
		size_t mid = (lo + hi) / 2;
		const sbx_buf *s = &t->regions[mid]->start;
		if (sbx_bytes_cmp(s->data, s->len, row, len) <= 0)
			lo = mid;
		else
			hi = mid;
	}
	return t->nregions ? t->regions[lo] : NULL;
}

/* Load buckets are a second wide: the coarse clock (a few ms of
 * resolution, no syscall) is plenty and is read on every routed row. */
static int64_t coarse_now_ms(void)
{
	return sbx_clock_coarse_ms();
}

static int64_t bucket_width(const engine *e)
{
	return e->opts.metrics_bucket_ms > 0 ? e->opts.metrics_bucket_ms : 1000;
}

/* r->slot_hint packs the bucket last counted in (its number, now / w), so
 * a row counted within the same bucket finds its start by a
 * multiplication and a compare instead of a division (it runs for every
 * row a scan returns). Written only when the bucket changes, so the
 * threads counting in a region share its line read-only. */
static int64_t current_bucket(engine *e, region *r)
{
	int64_t w = bucket_width(e);
	int64_t now = coarse_now_ms();
	uint64_t hint = atomic_load_explicit(&r->slot_hint,
					     memory_order_relaxed);
	int64_t start = (int64_t)hint * w;
	if (!hint || now < start || now - start >= w) {
		int64_t q = now / w;
		start = q * w;
		if (q > 0)
			atomic_store_explicit(&r->slot_hint, (uint64_t)q,
					      memory_order_relaxed);
	}
	return start;
}

/* Add counts to the slot of the bucket starting at `start`, emptied first
 * if it last held an older bucket; dropped if it holds a newer one (the
 * bucket is older than the whole history). Under the region's slots_lock:
 * a slot is emptied and added to in one step, so no count lands between
 * another thread's emptying and its new start (stripes fold about once a
 * second each, so the lock is rarely contended). */
static void slot_add(engine *e, region *r, int64_t start, uint64_t reads,
		     uint64_t writes, uint64_t read_bytes, uint64_t write_bytes)
{
	load_slot *s = &r->slots[(start / bucket_width(e)) % r->nslots];
	pthread_mutex_lock(&r->slots_lock);
	int64_t seen = atomic_load(&s->start_ms);
	if (seen < start) {
		atomic_store(&s->reads, 0);
		atomic_store(&s->writes, 0);
		atomic_store(&s->read_bytes, 0);
		atomic_store(&s->write_bytes, 0);
		atomic_store(&s->start_ms, start);
		seen = start;
	}
	if (seen == start) {
		atomic_fetch_add(&s->reads, reads);
		atomic_fetch_add(&s->writes, writes);
		atomic_fetch_add(&s->read_bytes, read_bytes);
		atomic_fetch_add(&s->write_bytes, write_bytes);
	}
	pthread_mutex_unlock(&r->slots_lock);
}

/* Move a stripe's counts of its bucket into that bucket's slot, and start
 * counting the bucket at `start` (0: none). A thread sharing the stripe
 * (more threads than stripes) may count into the old bucket's counts
 * between the two steps: its count lands in the old second, not lost. */
static void stripe_fold(engine *e, region *r, region_stripe *st,
			int64_t start)
{
	int64_t old = atomic_load(&st->bucket_start);
	if (old == start ||
	    !atomic_compare_exchange_strong(&st->bucket_start, &old, start))
		return; /* unchanged, or another thread moved it */
	uint64_t rd = atomic_exchange(&st->b_reads, 0);
	uint64_t wr = atomic_exchange(&st->b_writes, 0);
	uint64_t rb = atomic_exchange(&st->b_read_bytes, 0);
	uint64_t wb = atomic_exchange(&st->b_write_bytes, 0);
	if (old > 0 && (rd || wr))
		slot_add(e, r, old, rd, wr, rb, wb);
}

/* The calling thread's stripe. */
static region_stripe *my_stripe(region *r)
{
	return &r->stripes[engine_thread_index() % REGION_STRIPES];
}

/* Make st count the current bucket. */
static void stripe_now(engine *e, region *r, region_stripe *st)
{
	int64_t start = current_bucket(e, r);
	if (atomic_load_explicit(&st->bucket_start, memory_order_relaxed) !=
	    start)
		stripe_fold(e, r, st, start);
}

/* Every stripe's bucket counts into the slots. REQUIRES: t->lock held
 * for writing (nothing counts meanwhile). */
static void stripes_fold_all(engine *e, region *r)
{
	for (int i = 0; i < REGION_STRIPES; i++)
		stripe_fold(e, r, &r->stripes[i], 0);
}

/* The sum of one counter over a region's stripes. */
#define STRIPES_SUM(r, field)                                              \
	({                                                                 \
		uint64_t sum_ = 0;                                         \
		for (int i_ = 0; i_ < REGION_STRIPES; i_++)                \
			sum_ += atomic_load_explicit(&(r)->stripes[i_].field, \
						     memory_order_relaxed);  \
		sum_;                                                      \
	})

/* Relaxed adds: each is a count on its own, read by summing. */
#define ADD(field, v) \
	atomic_fetch_add_explicit(&(field), (v), memory_order_relaxed)

bool region_count_write(engine *e, region *r, uint64_t bytes, uint64_t cells)
{
	region_stripe *st = my_stripe(r);
	stripe_now(e, r, st);
	ADD(st->writes, 1);
	ADD(st->write_bytes, bytes);
	ADD(st->cells, cells);
	ADD(st->b_writes, 1);
	ADD(st->b_write_bytes, bytes);
	ADD(st->unflushed, bytes);
	/* the region's shared count moves once per 1/16 of the interval */
	uint64_t every = atomic_load_explicit(&r->check_every,
					      memory_order_relaxed);
	uint64_t chunk = every / REGION_STRIPES ? every / REGION_STRIPES : 1;
	if (ADD(st->since, bytes) + bytes < chunk)
		return false;
	uint64_t mine = atomic_exchange(&st->since, 0);
	return atomic_fetch_add(&r->since_check, mine) + mine >= every;
}

void region_count_read(engine *e, region *r, uint64_t bytes, bool filtered)
{
	region_count_reads(e, r, current_bucket(e, r), !filtered,
			   filtered ? 0 : bytes, filtered);
}

int64_t region_bucket(const engine *e, int64_t now_ms, int64_t *end)
{
	int64_t w = bucket_width(e);
	*end = now_ms / w * w + w;
	return *end - w;
}

void region_count_reads(engine *e, region *r, int64_t start, uint64_t reads,
			uint64_t bytes, uint64_t filtered)
{
	region_stripe *st = my_stripe(r);
	ADD(st->filtered, filtered);
	if (!reads)
		return;
	ADD(st->reads, reads);
	ADD(st->read_bytes, bytes);
	int64_t cur = atomic_load_explicit(&st->bucket_start,
					   memory_order_relaxed);
	if (start < cur) { /* counted before the stripe's bucket: its slot */
		slot_add(e, r, start, reads, 0, bytes, 0);
		return;
	}
	if (start > cur)
		stripe_fold(e, r, st, start);
	ADD(st->b_reads, reads);
	ADD(st->b_read_bytes, bytes);
}

uint64_t region_unflushed(const region *r)
{
	return STRIPES_SUM(r, unflushed);
}

void region_set_unflushed(region *r, uint64_t bytes)
{
	for (int i = 0; i < REGION_STRIPES; i++)
		atomic_store(&r->stripes[i].unflushed, i ? 0 : bytes);
}

void region_count_cache(region *r, bool hit)
{
	region_stripe *st = my_stripe(r);
	ADD(*(hit ? &st->cache_hits : &st->cache_misses), 1);
}
#undef ADD

/* ---- placement: the shared balancer (placement.h) ---- */

static uint64_t recent_load(const region *r)
{
	return STRIPES_SUM(r, reads) + STRIPES_SUM(r, writes);
}

/* This table's regions as the balancer sees them; NULL on ENOMEM. */
static placement_region *placement_of(const table *t)
{
	placement_region *pr =
	    sbx_malloc((t->nregions ? t->nregions : 1) * sizeof *pr);
	for (size_t i = 0; pr && i < t->nregions; i++)
		pr[i] = (placement_region){t->regions[i]->server,
					   recent_load(t->regions[i])};
	return pr;
}

/* The server for a new region. REQUIRES: admin_lock. */
static int pick_server(engine *e, const table *t)
{
	placement_region *pr = placement_of(t);
	int s = pr ? placement_pick_server(e->server_regions, e->nservers, pr,
					   t->nregions)
		   : 0; /* no memory for the model: any server will do */
	free(pr);
	return s;
}

/* Rebalance after the map changed. Without memory for the model the
 * placement stays as it is, which is still a valid map.
 * REQUIRES: admin_lock and t->lock (write). */
static void balance(engine *e, table *t)
{
	placement_region *pr = placement_of(t);
	if (!pr)
		return;
	uint64_t load[ENGINE_MAX_SERVERS];
	placement_balance(pr, t->nregions, e->server_regions, e->nservers,
			  load);
	for (size_t i = 0; i < t->nregions; i++)
		t->regions[i]->server = pr[i].server;
	free(pr);
}

/* ---- catalog ---- */

/* A start key as lower-case hex, NUL-terminated; free(). NULL: ENOMEM. */
static char *hex(const uint8_t *p, size_t n)
{
	sbx_buf b = {0};
	if (sbx_hex_append(&b, p, n, false) || sbx_buf_push(&b, 0)) {
		sbx_buf_free(&b);
		return NULL;
	}
	return (char *)b.data;
}

static int unhex(sbx_buf *out, const char *s)
{
	size_t bad_at;
	out->len = 0;
	return sbx_hex_decode(out, s, strlen(s), &bad_at) ? SBX_EIO : SBX_OK;
}

static const char *const policy_names[] = {
	"SteppingSplitPolicy", "ConstantSizeRegionSplitPolicy",
	"IncreasingToUpperBoundRegionSplitPolicy", "KeyPrefixRegionSplitPolicy",
	"DelimitedKeyPrefixRegionSplitPolicy", "DisabledRegionSplitPolicy"};

char *regions_to_json(const table *t)
{
	json_t *arr = json_array();
	for (size_t i = 0; arr && i < t->nregions; i++) {
		char *h = hex(t->regions[i]->start.data, t->regions[i]->start.len);
		json_array_append_new(arr, json_pack("{s:s, s:I, s:i}", "start",
						     h ? h : "", "id",
						     (json_int_t)t->regions[i]->id,
						     "server", t->regions[i]->server));
		free(h);
	}
	char delim[2] = {t->policy.delimiter, 0};
	json_t *o = json_pack("{s:o, s:{s:s, s:I, s:I, s:I, s:s}}", "regions",
			      arr, "policy", "name",
			      policy_names[t->policy.kind], "max_file_size",
			      (json_int_t)t->policy.max_file_size, "flush_size",
			      (json_int_t)t->policy.flush_size, "prefix_length",
			      (json_int_t)t->policy.prefix_length, "delimiter",
			      delim);
	char *s = o ? json_dumps(o, JSON_COMPACT) : NULL;
	json_decref(o);
	return s;
}

void regions_clear(engine *e, table *t)
{
	for (size_t i = 0; i < t->nregions; i++) {
		if (t->regions[i]->server < e->nservers)
			e->server_regions[t->regions[i]->server]--;
		region_free(t->regions[i]);
	}
	free(t->regions);
	t->regions = NULL;
	t->nregions = 0;
	t->region_gen++;
}

/* Build t->regions from sorted start keys (the first must be empty). */
static int regions_set(engine *e, table *t, sbx_buf *starts, uint64_t *ids,
		       int *servers, size_t n)
{
	region **rs = sbx_calloc(n, sizeof *rs);
	if (!rs)
		return SBX_ENOMEM_SET();
	for (size_t i = 0; i < n; i++) {
		const sbx_buf *end = i + 1 < n ? &starts[i + 1] : NULL;
		int server = servers ? servers[i] % e->nservers : -1;
		rs[i] = region_new(e, starts[i].data, starts[i].len,
				   end ? end->data : NULL, end ? end->len : 0,
				   ids[i], server);
		if (!rs[i]) {
			while (i-- > 0)
				region_free(rs[i]);
			free(rs);
			return SBX_ENOMEM_SET();
		}
	}
	regions_clear(e, t);
	t->regions = rs;
	t->nregions = n;
	for (size_t i = 0; i < n; i++) {
		if (rs[i]->server < 0)
			rs[i]->server = pick_server(e, t);
		e->server_regions[rs[i]->server]++;
	}
	return SBX_OK;
}

int regions_from_json(engine *e, table *t, const char *s, size_t n)
{
	json_t *o = json_loadb(s, n, 0, NULL), *arr = NULL;
	const char *pname = NULL, *delim = NULL;
	json_int_t maxf = 0, flush = 0, plen = 0;
	if (!o || json_unpack(o, "{s:o, s:{s:s, s:I, s:I, s:I, s:s}}", "regions",
			      &arr, "policy", "name", &pname, "max_file_size",
			      &maxf, "flush_size", &flush, "prefix_length",
			      &plen, "delimiter", &delim) ||
	    !json_is_array(arr) || json_array_size(arr) == 0) {
		json_decref(o);
		return sbx_error_set(SBX_EIO, "corrupt region record");
	}
	int kind = -1;
	for (int i = 0; i < 6; i++)
		if (!strcmp(pname, policy_names[i]))
			kind = i;
	size_t cnt = json_array_size(arr);
	sbx_buf *starts = sbx_calloc(cnt, sizeof *starts);
	uint64_t *ids = sbx_calloc(cnt, sizeof *ids);
	int *servers = sbx_calloc(cnt, sizeof *servers);
	int rc = kind < 0 || !starts || !ids || !servers
			 ? sbx_error_set(SBX_EIO, "corrupt region record")
			 : SBX_OK;
	for (size_t i = 0; !rc && i < cnt; i++) {
		const char *h = NULL;
		json_int_t id = 0;
		int server = 0;
		if (json_unpack(json_array_get(arr, i), "{s:s, s:I, s:i}",
				"start", &h, "id", &id, "server", &server) ||
		    unhex(&starts[i], h) || server < 0)
			rc = sbx_error_set(SBX_EIO, "corrupt region record");
		ids[i] = (uint64_t)id;
		servers[i] = server;
	}
	if (!rc) {
		t->policy.kind = (sbx_split_policy_kind)kind;
		t->policy.max_file_size = (uint64_t)maxf;
		t->policy.flush_size = (uint64_t)flush;
		t->policy.prefix_length = (size_t)plen;
		t->policy.delimiter = delim[0];
		rc = regions_set(e, t, starts, ids, servers, cnt);
	}
	for (size_t i = 0; starts && i < cnt; i++)
		sbx_buf_free(&starts[i]);
	free(starts);
	free(ids);
	free(servers);
	json_decref(o);
	return rc;
}

int regions_save(engine *e, const table *t)
{
	char key[CATALOG_KEY_CAP];
	catalog_regions_key(key, t);
	char *json = regions_to_json(t);
	if (!json)
		return SBX_ENOMEM_SET();
	int rc = engine_meta_put(e, key, json);
	free(json);
	return rc;
}

int regions_init(engine *e, table *t, const sbx_bytes *splits, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (splits[i].len == 0 || splits[i].len > SBX_MAX_ROW_LENGTH)
			return sbx_error_set(SBX_EINVAL,
					     "split key %zu is empty or longer "
					     "than %d bytes",
					     i, SBX_MAX_ROW_LENGTH);
		if (i && sbx_bytes_cmp(splits[i - 1].data, splits[i - 1].len,
				   splits[i].data, splits[i].len) >= 0)
			return sbx_error_set(SBX_EINVAL,
					     "split keys must be sorted and "
					     "distinct (key %zu)",
					     i);
	}
	sbx_split_policy_init(&t->policy);
	sbx_buf *starts = sbx_calloc(n + 1, sizeof *starts);
	uint64_t *ids = sbx_calloc(n + 1, sizeof *ids);
	int rc = starts && ids ? SBX_OK : SBX_ENOMEM_SET();
	uint64_t now = (uint64_t)engine_now_ms();
	for (size_t i = 0; !rc && i <= n; i++) {
		ids[i] = now;
		if (i)
			rc = sbx_buf_set(&starts[i], splits[i - 1].data,
					 splits[i - 1].len);
	}
	if (!rc) /* REQUIRES: admin_lock, held by table creation */
		rc = regions_set(e, t, starts, ids, NULL, n + 1);
	for (size_t i = 0; starts && i <= n; i++)
		sbx_buf_free(&starts[i]);
	free(starts);
	free(ids);
	return rc;
}

/* ---- size estimates and the split point ---- */

static void region_key_range(const region *r, sbx_buf *lo, sbx_buf *hi)
{
	lo->len = hi->len = 0;
	if (r->start.len)
		cellkey_row_start(lo, r->start.data, r->start.len);
	if (r->end.len) {
		cellkey_row_start(hi, r->end.data, r->end.len);
	} else {
		uint8_t ff[32];
		memset(ff, 0xFF, sizeof ff);
		sbx_buf_append(hi, ff, sizeof ff);
	}
}

/* RocksDB's estimate of f's store-file bytes in [a, b). */
static uint64_t bytes_between(engine *e, family *f, const sbx_buf *a,
			      const sbx_buf *b)
{
	const char *sk = (const char *)a->data, *lk = (const char *)b->data;
	size_t sl = a->len, ll = b->len;
	uint64_t size = 0;
	char *err = NULL;
	rocksdb_approximate_sizes_cf(e->db, f->cf, 1, &sk, &sl, &lk, &ll,
				     &size, &err);
	free(err);
	return size;
}

/* Bytes in store files for the region (all families; RocksDB's estimate,
 * which ignores memtables) plus the region's unflushed writes. */
static uint64_t region_size(engine *e, const table *t, region *r)
{
	sbx_buf lo = {0}, hi = {0};
	region_key_range(r, &lo, &hi);
	uint64_t total = 0;
	for (size_t i = 0; i < t->nfams; i++)
		total += bytes_between(e, t->fams[i], &lo, &hi);
	sbx_buf_free(&lo);
	sbx_buf_free(&hi);
	return total + region_unflushed(r);
}

/* A flush empties memtables: when the table's memtable bytes drop, the
 * regions' unflushed estimates are reset (RocksDB's C API has no listener). */
static void notice_flush(engine *e, table *t)
{
	uint64_t mem = 0;
	for (size_t i = 0; i < t->nfams; i++) {
		uint64_t v = 0;
		if (!rocksdb_property_int_cf(e->db, t->fams[i]->cf,
					     "rocksdb.cur-size-all-mem-tables", &v))
			mem += v;
	}
	uint64_t seen = atomic_exchange(&t->memtable_seen, mem);
	if (mem < seen || mem == 0)
		for (size_t i = 0; i < t->nregions; i++)
			region_set_unflushed(t->regions[i], 0);
}

typedef struct mid_sample {
	sbx_buf row;
	uint64_t at;
} mid_sample;

#define MID_SAMPLES 256

/* A family with at least this many bytes of store files in the range is
 * split where RocksDB's size estimate halves (family_midpoint_estimated)
 * instead of being read whole: a region due a split at a million rows is
 * hundreds of MB, and the write that found it due waited for the read. */
#define MID_ESTIMATE_MIN ((uint64_t)64 << 20)
/* Halvings of the key range; the estimate counts whole 64 KiB blocks,
 * which 32 halvings of a range already resolve. */
#define MID_BISECTIONS 32

/* The key halfway between a and b, read as base-256 fractions (a < b):
 * one byte longer than the longer, so a < *out < b. */
static int key_between(sbx_buf *out, const sbx_buf *a, const sbx_buf *b)
{
	size_t n = (a->len > b->len ? a->len : b->len) + 1;
	uint8_t *s = sbx_calloc(n + 1, 1); /* s[0]: the sum's carry */
	if (!s)
		return SBX_ENOMEM_SET();
	unsigned carry = 0;
	for (size_t i = n; i-- > 0;) {
		unsigned v = (i < a->len ? a->data[i] : 0) +
			     (i < b->len ? b->data[i] : 0) + carry;
		s[i + 1] = (uint8_t)v;
		carry = v >> 8;
	}
	s[0] = (uint8_t)carry;
	unsigned rem = 0;
	for (size_t i = 0; i <= n; i++) {
		unsigned v = rem * 256 + s[i];
		s[i] = (uint8_t)(v / 2);
		rem = v % 2;
	}
	int rc = sbx_buf_set(out, s + 1, n);
	free(s);
	return rc;
}

/* The row of the first cell at or after key in [.., hi), into row; false
 * if there is none. */
static bool row_at(rocksdb_iterator_t *it, const sbx_buf *key, sbx_buf *row)
{
	rocksdb_iter_seek(it, (const char *)key->data, key->len);
	if (!rocksdb_iter_valid(it))
		return false;
	size_t kl;
	const uint8_t *k = (const uint8_t *)rocksdb_iter_key(it, &kl);
	row->len = 0;
	return cellkey_row_prefix_len(k, kl) && cellkey_unescape(k, kl, row);
}

/* The row where f's bytes in [lo, hi) halve by RocksDB's estimate, found
 * by bisecting the key range (the estimate reads index blocks, not data),
 * as HBase takes the middle key of the largest store file's block index.
 * Memtables are not in the estimate. *mid empty: no row there but the
 * first (the caller reads the range instead). */
static int family_midpoint_estimated(engine *e, family *f,
				     rocksdb_iterator_t *it,
				     const sbx_buf *lo, const sbx_buf *hi,
				     uint64_t total, sbx_buf *first,
				     sbx_buf *mid)
{
	/* from the range's first key to its last: their common prefix costs
	 * no halvings */
	sbx_buf a = {0}, b = {0}, m = {0};
	int rc = SBX_OK;
	size_t kl;
	const char *k;
	rocksdb_iter_seek(it, (const char *)lo->data, lo->len);
	if (rocksdb_iter_valid(it) && (k = rocksdb_iter_key(it, &kl)))
		rc = sbx_buf_set(&a, k, kl);
	rocksdb_iter_seek_to_last(it);
	if (!rc && rocksdb_iter_valid(it) && (k = rocksdb_iter_key(it, &kl)))
		rc = sbx_buf_set(&b, k, kl);
	if (!rc && (!a.len || !b.len ||
		    sbx_bytes_cmp(a.data, a.len, b.data, b.len) >= 0))
		a.len = b.len = 0; /* one key or none: nothing to halve */
	for (int i = 0; !rc && b.len && i < MID_BISECTIONS; i++) {
		rc = key_between(&m, &a, &b);
		if (rc)
			break;
		sbx_buf *side = bytes_between(e, f, lo, &m) < total / 2 ? &a
									  : &b;
		rc = sbx_buf_set(side, m.data, m.len);
	}
	first->len = mid->len = 0;
	if (!rc && b.len && row_at(it, lo, first) && !row_at(it, &b, mid))
		mid->len = 0;
	if (mid->len && sbx_bytes_cmp(mid->data, mid->len, first->data,
				      first->len) == 0)
		mid->len = 0;
	sbx_buf_free(&a);
	sbx_buf_free(&b);
	sbx_buf_free(&m);
	return rc;
}

/* The row at the middle of one family's bytes in [lo, hi): estimated for
 * a large range (above), else one pass keeping at most MID_SAMPLES evenly
 * spaced row starts. */
static int family_midpoint(engine *e, family *f, const sbx_buf *lo,
			   const sbx_buf *hi, sbx_buf *first, sbx_buf *mid,
			   uint64_t *total)
{
	rocksdb_readoptions_t *ro = rocksdb_readoptions_create();
	rocksdb_readoptions_set_total_order_seek(ro, 1);
	rocksdb_readoptions_set_fill_cache(ro, 0);
	if (lo->len)
		rocksdb_readoptions_set_iterate_lower_bound(ro, (const char *)lo->data, lo->len);
	rocksdb_readoptions_set_iterate_upper_bound(ro, (const char *)hi->data, hi->len);
	rocksdb_iterator_t *it = rocksdb_create_iterator_cf(e->db, ro, f->cf);
	uint64_t stored = bytes_between(e, f, lo, hi);
	if (stored >= MID_ESTIMATE_MIN) {
		int rc = family_midpoint_estimated(e, f, it, lo, hi, stored,
						   first, mid);
		if (rc || mid->len) {
			*total = stored;
			rocksdb_iter_destroy(it);
			rocksdb_readoptions_destroy(ro);
			return rc;
		}
	}
	mid_sample *smp = sbx_calloc(MID_SAMPLES, sizeof *smp);
	size_t ns = 0;
	uint64_t step = 4096, next = 0, cum = 0;
	sbx_buf prev = {0};
	int rc = smp ? SBX_OK : SBX_ENOMEM_SET();
	first->len = mid->len = 0;
	for (rocksdb_iter_seek_to_first(it); !rc && rocksdb_iter_valid(it);
	     rocksdb_iter_next(it)) {
		size_t kl, vl;
		const uint8_t *k = (const uint8_t *)rocksdb_iter_key(it, &kl);
		rocksdb_iter_value(it, &vl);
		size_t pl = cellkey_row_prefix_len(k, kl);
		if (pl && (prev.len != pl || memcmp(prev.data, k, pl))) {
			sbx_buf_set(&prev, k, pl);
			if (!first->len)
				cellkey_unescape(k, kl, first);
			if (cum >= next) {
				if (ns == MID_SAMPLES) { /* thin out, widen */
					for (size_t i = 0; i < ns / 2; i++) {
						sbx_buf tmp = smp[i].row;
						smp[i].row = smp[2 * i].row;
						smp[2 * i].row = tmp;
						smp[i].at = smp[2 * i].at;
					}
					for (size_t i = ns / 2; i < ns; i++)
						smp[i].row.len = 0;
					ns /= 2;
					step *= 2;
				}
				smp[ns].row.len = 0;
				cellkey_unescape(k, kl, &smp[ns].row);
				smp[ns].at = cum;
				ns++;
				next = cum + step;
			}
		}
		cum += kl + vl;
	}
	*total = cum;
	/* the sample nearest the middle that is not the first row */
	uint64_t best = UINT64_MAX;
	for (size_t i = 0; !rc && i < ns; i++) {
		uint64_t d = smp[i].at > cum / 2 ? smp[i].at - cum / 2
						 : cum / 2 - smp[i].at;
		if (d < best && sbx_bytes_cmp(smp[i].row.data, smp[i].row.len,
					  first->data, first->len) != 0) {
			best = d;
			rc = sbx_buf_set(mid, smp[i].row.data, smp[i].row.len);
		}
	}
	for (size_t i = 0; smp && i < MID_SAMPLES; i++)
		sbx_buf_free(&smp[i].row);
	free(smp);
	sbx_buf_free(&prev);
	rocksdb_iter_destroy(it);
	rocksdb_readoptions_destroy(ro);
	return rc;
}

/* HBase: the split point comes from the largest store, then the split
 * restriction (KeyPrefix / DelimitedKeyPrefix) cuts it. Empty *mid: the
 * region cannot split. families[] must stay referenced by the caller. */
static int region_midpoint(engine *e, family **fams, size_t nfams,
			   const sbx_split_policy *pol, const sbx_buf *start,
			   const sbx_buf *end, sbx_buf *mid)
{
	region tmp = {.start = *start, .end = *end};
	sbx_buf lo = {0}, hi = {0}, first = {0}, cand = {0};
	region_key_range(&tmp, &lo, &hi);
	uint64_t best = 0;
	int rc = SBX_OK;
	mid->len = 0;
	for (size_t i = 0; !rc && i < nfams; i++) {
		uint64_t total;
		rc = family_midpoint(e, fams[i], &lo, &hi, &first, &cand, &total);
		if (!rc && cand.len && total > best) {
			best = total;
			rc = sbx_buf_set(mid, cand.data, cand.len);
		}
	}
	if (!rc && mid->len) {
		if (pol->kind == SBX_SPLIT_KEY_PREFIX && pol->prefix_length &&
		    mid->len > pol->prefix_length)
			mid->len = pol->prefix_length;
		if (pol->kind == SBX_SPLIT_DELIMITED_KEY_PREFIX) {
			uint8_t *d = memchr(mid->data, pol->delimiter, mid->len);
			if (d)
				mid->len = (size_t)(d - mid->data);
		}
		/* the point must fall strictly inside the region */
		if (mid->len == 0 ||
		    sbx_bytes_cmp(mid->data, mid->len, start->data, start->len) <= 0 ||
		    (end->len &&
		     sbx_bytes_cmp(mid->data, mid->len, end->data, end->len) >= 0))
			mid->len = 0;
	}
	sbx_buf_free(&lo);
	sbx_buf_free(&hi);
	sbx_buf_free(&first);
	sbx_buf_free(&cand);
	return rc;
}

/* Load history into a new region: dst = (reset ? 0 : dst) + src / div.
 * REQUIRES: t->lock held for writing. */
static void slots_blend(engine *e, region *dst, region *src, uint64_t div,
			bool reset)
{
	stripes_fold_all(e, src);
	for (int i = 0; i < dst->nslots && i < src->nslots; i++) {
		load_slot *d = &dst->slots[i], *s = &src->slots[i];
		if (reset)
			atomic_store(&d->start_ms, atomic_load(&s->start_ms));
		else if (atomic_load(&d->start_ms) != atomic_load(&s->start_ms))
			continue; /* different seconds: keep the newer-looking one */
		uint64_t keep = reset ? 0 : 1;
		atomic_store(&d->reads, keep * atomic_load(&d->reads) +
					       atomic_load(&s->reads) / div);
		atomic_store(&d->writes, keep * atomic_load(&d->writes) +
						atomic_load(&s->writes) / div);
		atomic_store(&d->read_bytes,
			     keep * atomic_load(&d->read_bytes) +
				     atomic_load(&s->read_bytes) / div);
		atomic_store(&d->write_bytes,
			     keep * atomic_load(&d->write_bytes) +
				     atomic_load(&s->write_bytes) / div);
	}
}

/* Replace region idx by [start, key) and [key, end). REQUIRES: admin_lock
 * and t->lock (write). */
static int split_at(engine *e, table *t, size_t idx, const uint8_t *key,
		    size_t len)
{
	region *p = t->regions[idx];
	uint64_t now = (uint64_t)engine_now_ms();
	if (now <= p->id)
		now = p->id + 1;
	region *a = region_new(e, p->start.data, p->start.len, key, len, now, p->server);
	region *b = region_new(e, key, len, p->end.data, p->end.len, now, 0);
	region **rs = sbx_realloc(t->regions, (t->nregions + 1) * sizeof *rs);
	if (!a || !b || !rs) {
		region_free(a);
		region_free(b);
		if (rs)
			t->regions = rs;
		return SBX_ENOMEM_SET();
	}
	t->regions = rs;
	/* daughters inherit half of the parent's load history each */
	slots_blend(e, a, p, 2, 1);
	slots_blend(e, b, p, 2, 1);
	uint64_t half = region_unflushed(p) / 2;
	region_set_unflushed(a, half);
	region_set_unflushed(b, half);
	memmove(&rs[idx + 2], &rs[idx + 1], (t->nregions - idx - 1) * sizeof *rs);
	rs[idx] = a;
	rs[idx + 1] = b;
	t->nregions++;
	e->server_regions[p->server]--;
	e->server_regions[a->server]++;
	b->server = pick_server(e, t);
	e->server_regions[b->server]++;
	region_free(p);
	t->region_gen++;
	balance(e, t);
	return regions_save(e, t);
}

static size_t region_index(const table *t, const region *r)
{
	for (size_t i = 0; i < t->nregions; i++)
		if (t->regions[i] == r)
			return i;
	return SIZE_MAX;
}

static family **ref_families(table *t, size_t *n)
{
	family **fams = sbx_calloc(t->nfams ? t->nfams : 1, sizeof *fams);
	for (size_t i = 0; fams && i < t->nfams; i++) {
		fams[i] = t->fams[i];
		atomic_fetch_add(&fams[i]->refs, 1);
	}
	*n = fams ? t->nfams : 0;
	return fams;
}

static void unref_families(family **fams, size_t n)
{
	for (size_t i = 0; i < n; i++)
		family_unref(fams[i]);
	free(fams);
}

/* Split the region with this id at its midpoint if it is still there. */
static int split_region_at_midpoint(engine *e, table *t, uint64_t id,
				    bool *split)
{
	*split = false;
	table_rdlock(t);
	region *r = NULL;
	for (size_t i = 0; i < t->nregions; i++)
		if (t->regions[i]->id == id)
			r = t->regions[i];
	sbx_buf start = {0}, end = {0}, mid = {0};
	size_t nf = 0;
	family **fams = NULL;
	sbx_split_policy pol = t->policy;
	if (r) {
		sbx_buf_set(&start, r->start.data, r->start.len);
		sbx_buf_set(&end, r->end.data, r->end.len);
		fams = ref_families(t, &nf);
	}
	table_rdunlock(t);
	int rc = SBX_OK;
	if (r)
		rc = region_midpoint(e, fams, nf, &pol, &start, &end, &mid);
	if (!rc && mid.len) {
		pthread_mutex_lock(&e->admin_lock);
		table_wrlock(t);
		region *now = t->dropped ? NULL : region_for_row(t, mid.data, mid.len);
		if (now && now->id == id) {
			rc = split_at(e, t, region_index(t, now), mid.data, mid.len);
			*split = rc == SBX_OK;
		}
		table_wrunlock(t);
		pthread_mutex_unlock(&e->admin_lock);
	}
	unref_families(fams, nf);
	sbx_buf_free(&start);
	sbx_buf_free(&end);
	sbx_buf_free(&mid);
	return rc;
}

void regions_maybe_split(engine *e, table *t, const uint8_t *row, size_t len)
{
	table_rdlock(t);
	if (t->dropped || t->policy.kind == SBX_SPLIT_DISABLED) {
		table_rdunlock(t);
		return;
	}
	region *r = region_for_row(t, row, len);
	int on_server = 0;
	for (size_t i = 0; i < t->nregions; i++)
		on_server += t->regions[i]->server == r->server;
	uint64_t thr = sbx_split_threshold(&t->policy, on_server);
	uint64_t every = thr / SPLIT_CHECK_DIVISOR;
	if (every < SPLIT_CHECK_FLOOR_BYTES)
		every = SPLIT_CHECK_FLOOR_BYTES;
	if (every > SPLIT_CHECK_CEILING_BYTES)
		every = SPLIT_CHECK_CEILING_BYTES;
	atomic_store(&r->check_every, every);
	bool check = atomic_load(&r->since_check) >= every;
	uint64_t size = 0, id = r->id;
	if (check) {
		atomic_store(&r->since_check, 0);
		notice_flush(e, t);
		size = region_size(e, t, r);
	}
	table_rdunlock(t);
	if (!check || size < thr || atomic_exchange(&t->splitting, true))
		return;
	bool split;
	split_region_at_midpoint(e, t, id, &split);
	atomic_store(&t->splitting, false);
}

/* ---- the backend's region operations ---- */

typedef struct key_arg {
	const void *key;
	size_t len;
} key_arg;

static void region_name(char *out, size_t cap, const table *t, const region *r,
			char encoded[33])
{
	char start[512];
	size_t o = 0;
	for (size_t i = 0; i < r->start.len && o + 5 < sizeof start; i++) {
		uint8_t c = r->start.data[i];
		if (c >= 0x20 && c < 0x7f && c != '\\')
			start[o++] = (char)c;
		else
			o += (size_t)snprintf(start + o, sizeof start - o, "\\x%02X", c);
	}
	start[o] = 0;
	char base[1200];
	snprintf(base, sizeof base, "%s,%s,%llu", t->name, start,
		 (unsigned long long)r->id);
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;
	EVP_Digest(base, strlen(base), md, &mdlen, EVP_md5(), NULL);
	for (unsigned i = 0; i < 16; i++)
		snprintf(encoded + 2 * i, 3, "%02x", md[i]);
	snprintf(out, cap, "%s.%s.", base, encoded);
}

static uint8_t *dup_bytes(const sbx_buf *b)
{
	uint8_t *p = sbx_malloc(b->len ? b->len : 1);
	if (p && b->len)
		memcpy(p, b->data, b->len);
	return p;
}

int engine_regions(sbx_region_info **out, size_t *n, void *p, const char *name)
{
	engine *e = p;
	table *t;
	*out = NULL;
	*n = 0;
	int rc = engine_table_get(&t, e, name);
	if (rc)
		return rc;
	table_rdlock(t);
	notice_flush(e, t);
	sbx_region_info *v =
	    sbx_calloc(t->nregions ? t->nregions : 1, sizeof *v);
	for (size_t i = 0; v && i < t->nregions; i++) {
		region *r = t->regions[i];
		char nm[1400];
		region_name(nm, sizeof nm, t, r, v[i].encoded);
		v[i].name = sbx_strdup(nm);
		v[i].id = r->id;
		v[i].start_key = dup_bytes(&r->start);
		v[i].start_len = r->start.len;
		v[i].end_key = dup_bytes(&r->end);
		v[i].end_len = r->end.len;
		v[i].server = r->server;
		sbx_region_metrics *m = &v[i].metrics;
		m->read_request_count = STRIPES_SUM(r, reads);
		m->write_request_count = STRIPES_SUM(r, writes);
		m->filtered_read_request_count = STRIPES_SUM(r, filtered);
		m->read_bytes = STRIPES_SUM(r, read_bytes);
		m->write_bytes = STRIPES_SUM(r, write_bytes);
		m->cells_written = STRIPES_SUM(r, cells);
		m->memstore_size = region_unflushed(r);
		m->row_cache_hits = STRIPES_SUM(r, cache_hits);
		m->row_cache_misses = STRIPES_SUM(r, cache_misses);
		m->store_file_size = region_size(e, t, r) - m->memstore_size;
		if (!v[i].name || !v[i].start_key || !v[i].end_key)
			rc = SBX_ENOMEM_SET();
	}
	size_t cnt = t->nregions;
	table_rdunlock(t);
	table_unref(t);
	if (!v || rc) {
		sbx_region_infos_free(v, cnt);
		return rc ? rc : SBX_ENOMEM_SET();
	}
	*out = v;
	*n = cnt;
	return SBX_OK;
}

static int do_split_at_key(engine *e, table *t, const void *arg)
{
	const key_arg *k = arg;
	region *r = region_for_row(t, k->key, k->len);
	if (sbx_bytes_cmp(k->key, k->len, r->start.data, r->start.len) == 0)
		return sbx_error_set(SBX_EINVAL,
				     "split key is already a region boundary "
				     "of table '%s'",
				     t->name);
	return split_at(e, t, region_index(t, r), k->key, k->len);
}

int engine_split(void *p, const char *name, const void *key, size_t len)
{
	engine *e = p;
	table *t;
	int rc = engine_table_get(&t, e, name);
	if (rc)
		return rc;
	table_rdlock(t);
	bool disabled = t->policy.kind == SBX_SPLIT_DISABLED;
	size_t n = t->nregions;
	uint64_t *ids = sbx_calloc(n ? n : 1, sizeof *ids);
	for (size_t i = 0; ids && i < n; i++)
		ids[i] = t->regions[i]->id;
	table_rdunlock(t);
	if (!ids)
		rc = SBX_ENOMEM_SET();
	else if (disabled)
		rc = sbx_error_set(SBX_EINVAL,
				   "table '%s' uses DisabledRegionSplitPolicy, "
				   "which blocks manual splits too",
				   name);
	else if (len) {
		key_arg k = {key, len};
		rc = engine_with_table_admin(e, name, do_split_at_key, &k);
	} else {
		size_t done = 0;
		for (size_t i = 0; !rc && i < n; i++) {
			bool split;
			rc = split_region_at_midpoint(e, t, ids[i], &split);
			done += split;
		}
		if (!rc && !done)
			rc = sbx_error_set(SBX_EINVAL,
					   "no region of table '%s' holds enough "
					   "rows to split at a midpoint",
					   name);
	}
	free(ids);
	table_unref(t);
	return rc;
}

static int do_merge(engine *e, table *t, const void *arg)
{
	const key_arg *k = arg;
	size_t idx = SIZE_MAX;
	for (size_t i = 0; i < t->nregions; i++)
		if (!sbx_bytes_cmp(t->regions[i]->start.data, t->regions[i]->start.len,
			       k->key, k->len))
			idx = i;
	if (idx == SIZE_MAX || idx + 1 >= t->nregions)
		return sbx_error_set(SBX_EINVAL,
				     "table '%s' has no region starting at the "
				     "given key with a region after it",
				     t->name);
	region *a = t->regions[idx], *b = t->regions[idx + 1];
	uint64_t id = (uint64_t)engine_now_ms();
	region *m = region_new(e, a->start.data, a->start.len, b->end.data,
			       b->end.len, id > b->id ? id : b->id + 1,
			       a->server);
	if (!m)
		return SBX_ENOMEM_SET();
	slots_blend(e, m, a, 1, 1);
	slots_blend(e, m, b, 1, 0);
	region_set_unflushed(m, region_unflushed(a) + region_unflushed(b));
	e->server_regions[a->server]--;
	e->server_regions[b->server]--;
	e->server_regions[m->server]++;
	t->regions[idx] = m;
	memmove(&t->regions[idx + 1], &t->regions[idx + 2],
		(t->nregions - idx - 2) * sizeof *t->regions);
	t->nregions--;
	region_free(a);
	region_free(b);
	t->region_gen++;
	balance(e, t);
	return regions_save(e, t);
}

int engine_merge(void *p, const char *name, const void *start, size_t len)
{
	key_arg k = {start, len};
	return engine_with_table_admin(p, name, do_merge, &k);
}

static int do_set_split_policy(engine *e, table *t, const void *arg)
{
	sbx_split_policy old = t->policy;
	t->policy = *(const sbx_split_policy *)arg;
	int rc = regions_save(e, t);
	if (rc)
		t->policy = old;
	return rc;
}

int engine_set_split_policy(void *p, const char *name, const sbx_split_policy *pol)
{
	return engine_with_table_admin(p, name, do_set_split_policy, pol);
}

static int read_split_policy(engine *e, table *t, const void *arg)
{
	(void)e;
	*(sbx_split_policy *)arg = t->policy;
	return SBX_OK;
}

int engine_get_split_policy(void *p, const char *name, sbx_split_policy *pol)
{
	return engine_with_table_read(p, name, read_split_policy, pol);
}

int engine_load(sbx_region_load **out, size_t *n, void *p, const char *name,
		size_t nbuckets)
{
	engine *e = p;
	table *t;
	*out = NULL;
	*n = 0;
	int rc = engine_table_get(&t, e, name);
	if (rc)
		return rc;
	int64_t w = e->opts.metrics_bucket_ms > 0 ? e->opts.metrics_bucket_ms : 1000;
	int64_t cur = coarse_now_ms() / w * w;
	table_rdlock(t);
	size_t cnt = t->nregions;
	sbx_region_load *v = sbx_calloc(cnt ? cnt : 1, sizeof *v);
	for (size_t i = 0; v && !rc && i < cnt; i++) {
		region *r = t->regions[i];
		size_t nb = nbuckets < (size_t)r->nslots ? nbuckets : (size_t)r->nslots;
		v[i].start_key = dup_bytes(&r->start);
		v[i].start_len = r->start.len;
		v[i].end_key = dup_bytes(&r->end);
		v[i].end_len = r->end.len;
		v[i].server = r->server;
		v[i].nbuckets = nb;
		v[i].buckets = sbx_calloc(nb ? nb : 1, sizeof *v[i].buckets);
		if (!v[i].start_key || !v[i].end_key || !v[i].buckets) {
			rc = SBX_ENOMEM_SET();
			break;
		}
		for (size_t k = 0; k < nb; k++) {
			int64_t start = cur - (int64_t)(nb - 1 - k) * w;
			load_slot *s = &r->slots[(start / w) % r->nslots];
			sbx_load_bucket *b = &v[i].buckets[k];
			b->start_ms = start;
			if (atomic_load(&s->start_ms) == start) {
				b->reads = atomic_load(&s->reads);
				b->writes = atomic_load(&s->writes);
				b->read_bytes = atomic_load(&s->read_bytes);
				b->write_bytes = atomic_load(&s->write_bytes);
			}
			/* and the stripes' counts not folded in yet */
			for (int j = 0; j < REGION_STRIPES; j++) {
				region_stripe *st = &r->stripes[j];
				if (atomic_load(&st->bucket_start) != start)
					continue;
				b->reads += atomic_load(&st->b_reads);
				b->writes += atomic_load(&st->b_writes);
				b->read_bytes += atomic_load(&st->b_read_bytes);
				b->write_bytes +=
				    atomic_load(&st->b_write_bytes);
			}
		}
	}
	table_rdunlock(t);
	table_unref(t);
	if (!v || rc) {
		sbx_region_loads_free(v, cnt);
		return rc ? rc : SBX_ENOMEM_SET();
	}
	*out = v;
	*n = cnt;
	return SBX_OK;
}

int engine_region_servers(void *p)
{
	return ((engine *)p)->nservers;
}
