/*
 * keysample.c - the bounded key sampler behind the live heatmap by key.
 *
 * A ring of `columns` time columns; each keeps exact totals (accesses,
 * reads, writes, bytes) and a reservoir of `samples` accesses (Vitter's
 * algorithm R: every access of the column is in the reservoir with the
 * same probability samples / accesses), each the first `key_max` bytes of
 * its row key, its kind and its bytes. Everything is allocated up front,
 * so memory is a constant of the options (sbx_keysampler_bound) however
 * many keys arrive; recording is O(1) under one mutex, with no
 * allocation. The heatmap splits the distinct sampled keys of the window
 * into equal-count buckets and scales each sample by its column's
 * total / samples of its kind. docs/hotspots.md "The live heatmap by key".
 */
#include "saltbox/hotspot.h"

#include "common/alloc.h"
#include "common/error.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef struct ks_col {
	int64_t id; /* column number (now / column_ms); -1 unused */
	uint64_t n; /* accesses this column */
	uint64_t reads, writes, bytes;
} ks_col;

typedef struct ks_meta {
	uint32_t bytes;
	uint16_t len;
	uint8_t write;
	uint8_t pad;
} ks_meta;

struct sbx_keysampler {
	sbx_keysampler_opts o;
	pthread_mutex_t mu;
	uint64_t rng;
	ks_col *cols;
	ks_meta *meta; /* [col * samples + i] */
	uint8_t *keys; /* [(col * samples + i) * key_max] */
};

void sbx_keysampler_opts_init(sbx_keysampler_opts *o)
{
	o->column_ms = 1000;
	o->columns = 600;
	o->samples = 128;
	o->key_max = 32;
}

size_t sbx_keysampler_bound(const sbx_keysampler_opts *o)
{
	size_t slots = (size_t)o->columns * (size_t)o->samples;
	return sizeof(struct sbx_keysampler) +
	       (size_t)o->columns * sizeof(ks_col) + slots * sizeof(ks_meta) +
	       slots * (size_t)o->key_max;
}

int sbx_keysampler_new(sbx_keysampler **out, const sbx_keysampler_opts *o)
{
	*out = NULL;
	sbx_keysampler_opts d;
	if (!o) {
		sbx_keysampler_opts_init(&d);
		o = &d;
	}
	if (o->column_ms < 1 || o->columns < 1 || o->columns > 100000 ||
	    o->samples < 1 || o->samples > 65536 || o->key_max < 1 ||
	    o->key_max > 4096)
		return sbx_error_set(SBX_EINVAL,
				     "key sampler: column_ms >= 1, columns "
				     "1..100000, samples 1..65536, key_max "
				     "1..4096");
	sbx_keysampler *s = sbx_calloc(1, sizeof *s);
	if (!s)
		return SBX_ENOMEM_SET();
	size_t slots = (size_t)o->columns * (size_t)o->samples;
	s->o = *o;
	s->rng = 0x6b65797361ull;
	s->cols = sbx_calloc((size_t)o->columns, sizeof *s->cols);
	s->meta = sbx_calloc(slots, sizeof *s->meta);
	s->keys = sbx_malloc(slots * (size_t)o->key_max);
	if (!s->cols || !s->meta || !s->keys ||
	    pthread_mutex_init(&s->mu, NULL)) {
		free(s->cols);
		free(s->meta);
		free(s->keys);
		free(s);
		return SBX_ENOMEM_SET();
	}
	for (int i = 0; i < o->columns; i++)
		s->cols[i].id = -1;
	*out = s;
	return SBX_OK;
}

void sbx_keysampler_free(sbx_keysampler *s)
{
	if (!s)
		return;
	pthread_mutex_destroy(&s->mu);
	free(s->cols);
	free(s->meta);
	free(s->keys);
	free(s);
}

size_t sbx_keysampler_memory(const sbx_keysampler *s)
{
	/* everything was allocated by sbx_keysampler_new */
	return sbx_keysampler_bound(&s->o);
}

static uint64_t next_rand(sbx_keysampler *s)
{
	uint64_t x = (s->rng += 0x9E3779B97F4A7C15ull);
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
	return x ^ (x >> 31);
}

void sbx_keysampler_record(sbx_keysampler *s, int64_t now_ms, const void *key,
			   size_t len, bool write, uint64_t bytes)
{
	if (!s || now_ms < 0)
		return;
	int64_t id = now_ms / s->o.column_ms;
	size_t c = (size_t)(id % s->o.columns);
	pthread_mutex_lock(&s->mu);
	ks_col *col = &s->cols[c];
	if (col->id != id) {
		if (col->id > id) { /* older than the ring */
			pthread_mutex_unlock(&s->mu);
			return;
		}
		memset(col, 0, sizeof *col);
		col->id = id;
	}
	col->n++;
	if (write)
		col->writes++;
	else
		col->reads++;
	col->bytes += bytes;
	uint64_t m = (uint64_t)s->o.samples, slot = col->n - 1;
	if (slot >= m) {
		slot = next_rand(s) % col->n;
		if (slot >= m) {
			pthread_mutex_unlock(&s->mu);
			return;
		}
	}
	size_t i = c * (size_t)s->o.samples + (size_t)slot;
	size_t kl = len < (size_t)s->o.key_max ? len : (size_t)s->o.key_max;
	if (kl)
		memcpy(s->keys + i * (size_t)s->o.key_max, key, kl);
	s->meta[i] = (ks_meta){.bytes = bytes > UINT32_MAX ? UINT32_MAX
							  : (uint32_t)bytes,
			       .len = (uint16_t)kl,
			       .write = write};
	pthread_mutex_unlock(&s->mu);
}

/* ---- the heatmap ---------------------------------------------------------- */

typedef struct ks_ref {
	const uint8_t *key;
	uint16_t len;
	uint8_t write;
	uint32_t bytes;
	uint32_t col; /* 0 .. cols-1 in the window */
} ks_ref;

static int ref_cmp(const void *a, const void *b)
{
	const ks_ref *x = a, *y = b;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = n ? memcmp(x->key, y->key, n) : 0;
	if (c)
		return c;
	return (x->len > y->len) - (x->len < y->len);
}

void sbx_keyheat_free(sbx_keyheat *h)
{
	if (!h)
		return;
	for (size_t i = 0; h->starts && i < h->rows; i++)
		free((void *)h->starts[i].data);
	free(h->starts);
	free(h->reads);
	free(h->writes);
	free(h->bytes);
	free(h->col_reads);
	free(h->col_writes);
	free(h->col_bytes);
	free(h);
}

int sbx_keysampler_heat(sbx_keyheat **out, sbx_keysampler *s, int64_t now_ms,
			size_t columns, size_t rows)
{
	*out = NULL;
	if (!columns || !rows || columns > (size_t)s->o.columns)
		return sbx_error_set(SBX_EINVAL,
				     "key heatmap: columns 1..%d and rows >= 1",
				     s->o.columns);
	size_t K = (size_t)s->o.key_max, M = (size_t)s->o.samples;
	sbx_keyheat *h = sbx_calloc(1, sizeof *h);
	ks_ref *refs = sbx_calloc(columns * M, sizeof *refs);
	uint8_t *keys = sbx_malloc(columns * M * K);
	double *sr = sbx_calloc(columns * 3, sizeof *sr); /* sampled r/w/b */
	if (h) {
		h->cols = columns;
		h->column_ms = s->o.column_ms;
		h->col_reads = sbx_calloc(columns, sizeof *h->col_reads);
		h->col_writes = sbx_calloc(columns, sizeof *h->col_writes);
		h->col_bytes = sbx_calloc(columns, sizeof *h->col_bytes);
	}
	if (!h || !refs || !keys || !sr || !h->col_reads || !h->col_writes ||
	    !h->col_bytes) {
		free(refs);
		free(keys);
		free(sr);
		sbx_keyheat_free(h);
		return SBX_ENOMEM_SET();
	}
	int64_t cur = now_ms < 0 ? 0 : now_ms / s->o.column_ms;
	int64_t first = cur - (int64_t)columns + 1;
	h->start_ms = first * s->o.column_ms;
	size_t nref = 0;
	pthread_mutex_lock(&s->mu);
	for (size_t k = 0; k < columns; k++) {
		int64_t id = first + (int64_t)k;
		if (id < 0)
			continue;
		size_t c = (size_t)(id % s->o.columns);
		const ks_col *col = &s->cols[c];
		if (col->id != id)
			continue;
		h->col_reads[k] = col->reads;
		h->col_writes[k] = col->writes;
		h->col_bytes[k] = col->bytes;
		size_t held = col->n < M ? (size_t)col->n : M;
		for (size_t i = 0; i < held; i++) {
			size_t at = c * M + i;
			uint8_t *dst = keys + nref * K;
			memcpy(dst, s->keys + at * K, s->meta[at].len);
			refs[nref] = (ks_ref){dst, s->meta[at].len,
					      s->meta[at].write,
					      s->meta[at].bytes, (uint32_t)k};
			sr[k * 3 + (s->meta[at].write ? 1 : 0)] += 1;
			sr[k * 3 + 2] += s->meta[at].bytes;
			nref++;
		}
	}
	pthread_mutex_unlock(&s->mu);
	qsort(refs, nref, sizeof *refs, ref_cmp);
	size_t distinct = 0;
	for (size_t i = 0; i < nref; i++)
		if (!i || ref_cmp(&refs[i - 1], &refs[i]))
			distinct++;
	h->distinct = distinct;
	size_t R = distinct < rows ? distinct : rows;
	int rc = SBX_OK;
	if (!R)
		R = 1; /* one empty bucket over the whole key space */
	h->rows = R;
	h->starts = sbx_calloc(R, sizeof *h->starts);
	h->reads = sbx_calloc(R * columns, sizeof *h->reads);
	h->writes = sbx_calloc(R * columns, sizeof *h->writes);
	h->bytes = sbx_calloc(R * columns, sizeof *h->bytes);
	if (!h->starts || !h->reads || !h->writes || !h->bytes)
		rc = SBX_ENOMEM_SET();
	/* bucket b starts at distinct key floor(b * D / R) */
	size_t d = 0, b = 0;
	for (size_t i = 0; i < nref && !rc; i++) {
		if (i && ref_cmp(&refs[i - 1], &refs[i]))
			d++;
		while (b + 1 < R && d >= (b + 1) * distinct / R)
			b++;
		if (d == b * distinct / R &&
		    (!i || ref_cmp(&refs[i - 1], &refs[i])) &&
		    !h->starts[b].data) {
			uint8_t *k = sbx_malloc(refs[i].len ? refs[i].len : 1);
			if (!k) {
				rc = SBX_ENOMEM_SET();
				break;
			}
			memcpy(k, refs[i].key, refs[i].len);
			h->starts[b] = (sbx_bytes){k, refs[i].len};
		}
		size_t c = refs[i].col, at = b * columns + c;
		if (refs[i].write)
			h->writes[at] += (double)h->col_writes[c] / sr[c * 3 + 1];
		else
			h->reads[at] += (double)h->col_reads[c] / sr[c * 3];
		if (sr[c * 3 + 2] > 0)
			h->bytes[at] += (double)refs[i].bytes *
					(double)h->col_bytes[c] / sr[c * 3 + 2];
	}
	for (size_t i = 0; i < R && !rc; i++)
		if (!h->starts[i].data) { /* empty window: the empty key */
			h->starts[i].data = sbx_calloc(1, 1);
			if (!h->starts[i].data)
				rc = SBX_ENOMEM_SET();
		}
	free(refs);
	free(keys);
	free(sr);
	if (rc) {
		sbx_keyheat_free(h);
		return rc;
	}
	*out = h;
	return SBX_OK;
}
