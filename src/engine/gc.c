/*
 * gc.c - per-family RocksDB options and the compaction filter doing HBase's
 * store-file garbage collection: expired cells (TTL, keeping MIN_VERSIONS),
 * versions beyond VERSIONS and masked cells go in every compaction, the
 * markers themselves only in a major one (HBase's minor compactions keep
 * deletes). Keys come sorted, so one pass with per-row state suffices; the
 * engine never enables subcompactions, which would split a row's state.
 */
#include "common/alloc.h"
#include "engine/cellkey.h"
#include "engine/engine.h"

#include <stdlib.h>
#include <string.h>

void gc_params_update(gc_params *gc, const sbx_family_desc *d)
{
	pthread_mutex_lock(&gc->lock);
	gc->max_versions = d->max_versions;
	gc->min_versions = d->min_versions;
	gc->ttl_seconds = d->ttl_seconds;
	gc->keep_deleted = d->keep_deleted_cells;
	pthread_mutex_unlock(&gc->lock);
}

typedef struct ts_set {
	int64_t *v;
	size_t n, cap;
} ts_set;

static bool ts_set_has(const ts_set *s, int64_t ts)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i] == ts)
			return true;
	return false;
}

static void ts_set_add(ts_set *s, int64_t ts)
{
	if (ts_set_has(s, ts))
		return;
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 8;
		int64_t *v = sbx_realloc(s->v, cap * sizeof *v);
		if (!v)
			return; /* keeping more cells is always safe */
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n++] = ts;
}

typedef struct gc_filter {
	int max_versions, min_versions;
	int64_t ttl_ms;
	bool has_ttl;
	sbx_keep_deleted keep_deleted;
	bool major;
	int64_t now_ms;
	sbx_buf row;  /* escaped row prefix of the current row */
	sbx_buf qual; /* escaped row+qualifier prefix of the current column */
	int64_t fam_del_ts;
	ts_set fam_ver;
	int64_t col_del_ts;
	ts_set col_ver;
	int versions; /* puts kept in the current column */
} gc_filter;

static void gc_filter_destroy(void *p)
{
	gc_filter *f = p;
	sbx_buf_free(&f->row);
	sbx_buf_free(&f->qual);
	free(f->fam_ver.v);
	free(f->col_ver.v);
	free(f);
}

static const char *gc_filter_name(void *p)
{
	(void)p;
	return "saltbox.hbase_gc";
}

static void reset_column(gc_filter *f)
{
	f->col_del_ts = -1;
	f->col_ver.n = 0;
	f->versions = 0;
}

/* Returns 1 to remove the key. */
static unsigned char gc_filter_key(void *p, int level, const char *k,
				   size_t klen, const char *v, size_t vlen,
				   char **nv, size_t *nvlen, unsigned char *chg)
{
	(void)level, (void)v, (void)vlen, (void)nv, (void)nvlen;
	*chg = 0;
	gc_filter *f = p;
	const uint8_t *key = (const uint8_t *)k;
	cellkey_parts parts;
	if (cellkey_decode(key, klen, NULL, NULL, &parts))
		return 0; /* never drop what we do not understand */
	if (f->row.len != parts.row_prefix_len ||
	    memcmp(f->row.data, key, parts.row_prefix_len)) {
		sbx_buf_set(&f->row, key, parts.row_prefix_len);
		f->fam_del_ts = -1;
		f->fam_ver.n = 0;
		f->qual.len = 0;
		reset_column(f);
	}
	bool family_marker = parts.type == SBX_CELL_DELETE_FAMILY ||
			     parts.type == SBX_CELL_DELETE_FAMILY_VERSION;
	if (!family_marker && (f->qual.len != parts.qual_prefix_len ||
			       memcmp(f->qual.data, key, parts.qual_prefix_len))) {
		sbx_buf_set(&f->qual, key, parts.qual_prefix_len);
		reset_column(f);
	}
	int64_t ts = parts.ts;
	bool expired = f->has_ttl && ts < f->now_ms - f->ttl_ms;
	if (parts.type != SBX_CELL_PUT) {
		switch (parts.type) {
		case SBX_CELL_DELETE_FAMILY:
			if (ts > f->fam_del_ts)
				f->fam_del_ts = ts;
			break;
		case SBX_CELL_DELETE_FAMILY_VERSION:
			ts_set_add(&f->fam_ver, ts);
			break;
		case SBX_CELL_DELETE_COLUMN:
			if (ts > f->col_del_ts)
				f->col_del_ts = ts;
			break;
		default:
			ts_set_add(&f->col_ver, ts);
			break;
		}
		if (!f->major || ts > f->now_ms)
			return 0; /* minor compactions keep markers */
		if (f->keep_deleted == SBX_KEEP_DELETED_TRUE)
			return 0;
		if (f->keep_deleted == SBX_KEEP_DELETED_TTL && !expired)
			return 0;
		return 1;
	}
	bool masked = ts <= f->fam_del_ts || ts <= f->col_del_ts ||
		      ts_set_has(&f->fam_ver, ts) || ts_set_has(&f->col_ver, ts);
	if (masked) {
		if (f->keep_deleted == SBX_KEEP_DELETED_FALSE)
			return 1;
		if (f->keep_deleted == SBX_KEEP_DELETED_TTL && expired)
			return 1;
	}
	if (expired && f->versions >= f->min_versions)
		return 1;
	if (f->versions >= f->max_versions)
		return 1;
	f->versions++;
	return 0;
}

static rocksdb_compactionfilter_t *
gc_create_filter(void *state, rocksdb_compactionfiltercontext_t *ctx)
{
	gc_params *gc = state;
	gc_filter *f = sbx_calloc(1, sizeof *f);
	if (!f)
		return NULL;
	pthread_mutex_lock(&gc->lock);
	f->max_versions = gc->max_versions;
	f->min_versions = gc->min_versions;
	f->has_ttl = gc->ttl_seconds < SBX_TTL_FOREVER;
	f->ttl_ms = gc->ttl_seconds * 1000;
	f->keep_deleted = gc->keep_deleted;
	pthread_mutex_unlock(&gc->lock);
	f->major = rocksdb_compactionfiltercontext_is_full_compaction(ctx);
	f->now_ms = engine_now_ms();
	f->fam_del_ts = f->col_del_ts = -1;
	return rocksdb_compactionfilter_create(f, gc_filter_destroy,
					       gc_filter_key, gc_filter_name);
}

static void gc_params_destroy(void *p)
{
	gc_params *gc = p;
	pthread_mutex_destroy(&gc->lock);
	free(gc);
}

static const char *gc_factory_name(void *p)
{
	(void)p;
	return "saltbox.hbase_gc_factory";
}

/* Row prefix extractor (layout AP): the key up to and including the first
 * 00 01, found with a plain byte loop as reference/key-encoding.md advises. */
static char *row_prefix(void *s, const char *key, size_t n, size_t *dst_len)
{
	(void)s;
	*dst_len = cellkey_row_prefix_len((const uint8_t *)key, n);
	return (char *)key;
}

static unsigned char row_prefix_in_domain(void *s, const char *key, size_t n)
{
	(void)s;
	return cellkey_row_prefix_len((const uint8_t *)key, n) != 0;
}

static unsigned char row_prefix_in_range(void *s, const char *key, size_t n)
{
	(void)s, (void)key, (void)n;
	return 0;
}

static const char *row_prefix_name(void *s)
{
	(void)s;
	return "saltbox.row_prefix";
}

static void noop_destroy(void *s)
{
	(void)s;
}

rocksdb_options_t *family_rocks_options(engine *e, const sbx_family_desc *d,
					gc_params **gc_out)
{
	rocksdb_options_t *o = rocksdb_options_create();
	rocksdb_block_based_table_options_t *bb =
		rocksdb_block_based_options_create();
	rocksdb_block_based_options_set_block_cache(bb, e->cache);
	rocksdb_block_based_options_set_block_size(bb, (size_t)d->block_size);
	rocksdb_block_based_options_set_format_version(bb, 5);
	if (d->bloom_filter != SBX_BLOOM_NONE) {
		rocksdb_block_based_options_set_filter_policy(
			bb, rocksdb_filterpolicy_create_bloom_full(10));
		rocksdb_block_based_options_set_whole_key_filtering(
			bb, d->bloom_filter == SBX_BLOOM_ROWCOL);
		rocksdb_options_set_prefix_extractor(
			o, rocksdb_slicetransform_create(
				   NULL, noop_destroy, row_prefix,
				   row_prefix_in_domain, row_prefix_in_range,
				   row_prefix_name));
		/* A point get's seek skips the memtable when the row's
		 * prefix is not in it (most gets of a loaded store). */
		rocksdb_options_set_memtable_prefix_bloom_size_ratio(o, 0.05);
	}
	if (d->data_block_encoding == SBX_ENCODING_ROW_INDEX_V1)
		rocksdb_block_based_options_set_data_block_index_type(
			bb, rocksdb_block_based_table_data_block_index_type_binary_search_and_hash);
	if (d->in_memory)
		rocksdb_block_based_options_set_pin_l0_filter_and_index_blocks_in_cache(
			bb, 1);
	rocksdb_options_set_block_based_table_factory(o, bb);
	rocksdb_block_based_options_destroy(bb);

	static const int comp[] = {
		[SBX_COMPRESSION_NONE] = rocksdb_no_compression,
		[SBX_COMPRESSION_SNAPPY] = rocksdb_snappy_compression,
		[SBX_COMPRESSION_LZ4] = rocksdb_lz4_compression,
		[SBX_COMPRESSION_ZSTD] = rocksdb_zstd_compression,
	};
	rocksdb_options_set_compression(o, comp[d->compression]);
	rocksdb_options_set_write_buffer_size(o, 64u << 20);

	gc_params *gc = sbx_calloc(1, sizeof *gc);
	if (gc) {
		pthread_mutex_init(&gc->lock, NULL);
		gc_params_update(gc, d);
		rocksdb_compactionfilterfactory_t *ff =
			rocksdb_compactionfilterfactory_create(
				gc, gc_params_destroy, gc_create_filter,
				gc_factory_name);
		rocksdb_options_set_compaction_filter_factory(o, ff);
	}
	*gc_out = gc;
	return o;
}
