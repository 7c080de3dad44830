/*
 * result.c - sbx_result: one row's cells in HBase order. Bytes live in one
 * arena; public views are fixed up by result_finish() so pointers stay valid
 * for the result's lifetime.
 *
 * A result sized up front (result_new_sized: the read path passes the
 * previous row's size) is one allocation: the struct, then room for its
 * cells, then its arena. Either part moves to a block of its own only if the
 * row outgrows it. A freed result's block waits in a one-block cache per
 * thread for the next result that fits, so a scan, which frees each row's
 * result about when it asks for the next, costs no malloc per row at all:
 * glibc serves blocks over 1 KiB from its slower bins.
 */
#include "model/result.h"

#include "common/alloc.h"
#include "common/error.h"

#include <assert.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

/* ---- the per-thread spare block ---- */

/* Blocks kept: smaller ones glibc's tcache serves fast anyway, larger
 * ones are not worth holding on to. */
#define SPARE_MIN ((size_t)1 << 10)
#define SPARE_MAX ((size_t)64 << 10)

/* Under AddressSanitizer the spare block is poisoned while it waits, so a
 * use of a freed result is still reported. */
#if defined(__SANITIZE_ADDRESS__)
#define SBX_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SBX_ASAN 1
#endif
#endif
#ifdef SBX_ASAN
#include <sanitizer/asan_interface.h>
#define POISON(p, n) __asan_poison_memory_region((p), (n))
#define UNPOISON(p, n) __asan_unpoison_memory_region((p), (n))
#else
#define POISON(p, n) ((void)(p), (void)(n))
#define UNPOISON(p, n) ((void)(p), (void)(n))
#endif

static _Thread_local void *spare_block; /* reachable while the thread lives */
static _Thread_local size_t spare_size;
static _Thread_local bool spare_registered;
static pthread_key_t spare_key;
static pthread_once_t spare_once = PTHREAD_ONCE_INIT;
static bool spare_key_ok;

/* Thread exit: the key's destructor frees the thread's block. */
static void spare_drop(void *unused)
{
	(void)unused;
	if (spare_block)
		UNPOISON(spare_block, spare_size);
	free(spare_block);
	spare_block = NULL;
}

static void spare_init(void)
{
	spare_key_ok = pthread_key_create(&spare_key, spare_drop) == 0;
}

/* Keep `block` of `size` bytes as this thread's spare; false if the caller
 * must free it. */
static bool spare_keep(void *block, size_t size)
{
	if (size < SPARE_MIN || size > SPARE_MAX ||
	    (spare_block && spare_size >= size))
		return false;
	if (!spare_registered) {
		if (pthread_once(&spare_once, spare_init) || !spare_key_ok ||
		    pthread_setspecific(spare_key, &spare_block))
			return false;
		spare_registered = true;
	}
	if (spare_block) { /* the larger block stays */
		UNPOISON(spare_block, spare_size);
		free(spare_block);
	}
	POISON(block, size);
	spare_block = block;
	spare_size = size;
	return true;
}

/* A block of at least `need` bytes (*size: its real size), or NULL. */
static void *block_get(size_t need, size_t *size)
{
	if (spare_block && spare_size >= need) {
		void *b = spare_block;
		*size = spare_size;
		spare_block = NULL;
		UNPOISON(b, *size);
		return b;
	}
	*size = need;
	return sbx_malloc(need);
}

/* ---- results ---- */

int result_new_sized(sbx_result **out, const uint8_t *row, size_t row_len,
		     size_t bytes, size_t cells)
{
	assert(out && (row || row_len == 0));
	*out = NULL; /* callers free *out on failure */
	size_t head = sizeof(sbx_result);
	if (cells > (SIZE_MAX / 4 - head) / sizeof(sbx_cell) ||
	    bytes > SIZE_MAX / 4 || row_len > SIZE_MAX / 4)
		return sbx_error_set(SBX_ENOMEM, "result too large");
	size_t cells_bytes = cells * sizeof(sbx_cell);
	size_t size;
	sbx_result *r = block_get(head + cells_bytes + row_len + bytes + 1, &size);
	if (!r)
		return SBX_ENOMEM_SET();
	memset(r, 0, sizeof *r);
	r->block_size = size;
	size_t arena_cap = size - head - cells_bytes; /* all the rest */
	if (cells) {
		r->cells = (sbx_cell *)(r + 1);
		r->cap = cells;
		r->inline_cells = true;
	}
	r->arena.data = (uint8_t *)(r + 1) + cells_bytes;
	r->arena.cap = arena_cap;
	r->inline_arena = true;
	if (row_len)
		memcpy(r->arena.data, row, row_len);
	r->arena.len = row_len;
	r->row_len = row_len;
	*out = r;
	return SBX_OK;
}

int result_new(sbx_result **out, const uint8_t *row, size_t row_len)
{
	return result_new_sized(out, row, row_len, 0, 0);
}

static int grow_cells(sbx_result *r)
{
	size_t cap = r->cap ? r->cap * 2 : 8;
	if (cap > SIZE_MAX / sizeof(sbx_cell))
		return sbx_error_set(SBX_ENOMEM, "result too large");
	sbx_cell *cells;
	if (r->inline_cells) {
		cells = sbx_malloc(cap * sizeof *cells);
		if (cells && r->n)
			memcpy(cells, r->cells, r->n * sizeof *cells);
	} else {
		cells = sbx_realloc(r->cells, cap * sizeof *cells);
	}
	if (!cells)
		return SBX_ENOMEM_SET();
	r->inline_cells = false;
	r->cells = cells;
	r->cap = cap;
	return SBX_OK;
}

/* Room for `extra` more arena bytes. The arena moves to a new block and
 * every view is rebased onto it while the old block still exists (never
 * realloc: pointers into a freed block may not even be compared). */
static int arena_reserve(sbx_result *r, size_t extra)
{
	sbx_buf *a = &r->arena;
	if (a->cap - a->len >= extra)
		return SBX_OK;
	if (extra > SIZE_MAX / 4 - a->len)
		return sbx_error_set(SBX_ENOMEM, "result too large");
	size_t cap = a->cap ? a->cap * 2 : 64;
	while (cap < a->len + extra)
		cap *= 2;
	uint8_t *p = sbx_malloc(cap);
	if (!p)
		return SBX_ENOMEM_SET();
	const uint8_t *old = a->data;
	if (a->len)
		memcpy(p, old, a->len);
	for (size_t i = 0; i < r->n; i++) {
		sbx_cell *c = &r->cells[i];
		c->row = p;
		c->family = (const char *)p + (c->family - (const char *)old);
		c->qualifier = p + (c->qualifier - old);
		c->value = p + (c->value - old);
	}
	if (!r->inline_arena)
		free(a->data);
	r->inline_arena = false;
	a->data = p;
	a->cap = cap;
	return SBX_OK;
}

int result_begin_family(sbx_result *r, const char *family, size_t family_len)
{
	assert(r && !r->finished && (family || family_len == 0));
	/* Reuse the previous cell's family bytes when they match. */
	const sbx_cell *last = r->n ? &r->cells[r->n - 1] : NULL;
	if (last && last->family_len == family_len &&
	    !memcmp(last->family, family, family_len)) {
		r->fam_off = (size_t)((const uint8_t *)last->family -
				      r->arena.data);
		r->fam_len = family_len;
		return SBX_OK;
	}
	if (arena_reserve(r, family_len + 1))
		return SBX_ENOMEM_SET();
	r->fam_off = r->arena.len;
	r->fam_len = family_len;
	if (family_len)
		memcpy(r->arena.data + r->arena.len, family, family_len);
	r->arena.len += family_len;
	r->arena.data[r->arena.len++] = 0;
	return SBX_OK;
}

int result_add_cell_slow(sbx_result *r, const uint8_t *qual, size_t qual_len,
			 int64_t ts, sbx_cell_type type, const uint8_t *value,
			 size_t value_len)
{
	if (r->n == r->cap && grow_cells(r))
		return SBX_ENOMEM_SET();
	if (qual_len > SIZE_MAX / 4 || value_len > SIZE_MAX / 4 ||
	    arena_reserve(r, qual_len + value_len))
		return SBX_ENOMEM_SET();
	return result_add_cell(r, qual, qual_len, ts, type, value, value_len);
}

int result_add(sbx_result *r, const char *family, size_t family_len,
	       const uint8_t *qual, size_t qual_len, int64_t ts,
	       sbx_cell_type type, const uint8_t *value, size_t value_len)
{
	int rc = result_begin_family(r, family, family_len);
	return rc ? rc
		  : result_add_cell(r, qual, qual_len, ts, type, value,
				    value_len);
}

int result_finish(sbx_result *r)
{
	assert(r && !r->finished);
	r->finished = true;
	return SBX_OK;
}

/* REQUIRES: r != NULL, the row still at the arena's start. */
void result_clear(sbx_result *r)
{
	assert(r && r->row_len <= r->arena.len);
	r->arena.len = r->row_len;
	r->n = 0;
	r->finished = false;
}

size_t sbx_result_size(const sbx_result *r)
{
	return r ? r->n : 0;
}

const sbx_cell *sbx_result_cell(const sbx_result *r, size_t i)
{
	if (!r || i >= r->n || !r->finished)
		return NULL;
	return &r->cells[i];
}

const sbx_cell *sbx_result_cells(const sbx_result *r, size_t *n)
{
	if (!r || !r->finished || r->n == 0) {
		if (n)
			*n = 0;
		return NULL;
	}
	if (n)
		*n = r->n;
	return r->cells;
}

const uint8_t *sbx_result_row(const sbx_result *r, size_t *len)
{
	if (!r || r->n == 0) {
		if (len)
			*len = 0;
		return NULL;
	}
	if (len)
		*len = r->row_len;
	return r->arena.data;
}

const sbx_cell *sbx_result_get(const sbx_result *r, const char *family,
			       const void *qualifier, size_t qualifier_len)
{
	if (!r || !r->finished)
		return NULL;
	size_t fl = strlen(family);
	for (size_t i = 0; i < r->n; i++) {
		const sbx_cell *c = &r->cells[i];
		if (c->type == SBX_CELL_PUT && c->family_len == fl &&
		    !memcmp(c->family, family, fl) &&
		    c->qualifier_len == qualifier_len &&
		    (qualifier_len == 0 ||
		     !memcmp(c->qualifier, qualifier, qualifier_len)))
			return c; /* versions are newest first */
	}
	return NULL;
}

void sbx_result_free(sbx_result *r)
{
	if (!r)
		return;
	if (!r->inline_arena)
		free(r->arena.data);
	if (!r->inline_cells)
		free(r->cells);
	if (!spare_keep(r, r->block_size))
		free(r);
}

int result_take_batch(sbx_result **out, sbx_result **pending, size_t *pos,
		      size_t batch)
{
	assert(*pending && batch > 0); /* REQUIRES */
	*out = NULL;
	sbx_result *p = *pending;
	size_t n = p->n - *pos;
	if (n > batch)
		n = batch;
	sbx_result *res;
	int rc = result_new(&res, p->arena.data, p->row_len);
	for (size_t i = 0; !rc && i < n; i++) {
		const sbx_cell *c = &p->cells[*pos + i];
		rc = result_add(res, c->family, c->family_len, c->qualifier,
				c->qualifier_len, c->timestamp, c->type,
				c->value, c->value_len);
	}
	if (!rc)
		rc = result_finish(res);
	if (rc) {
		sbx_result_free(res);
		return rc;
	}
	*pos += n;
	if (*pos >= p->n) {
		sbx_result_free(p);
		*pending = NULL;
	}
	*out = res;
	return SBX_OK;
}
