/*
 * result.c - sbx_result: one row's cells in HBase order. Bytes live in one
 * arena; public views are fixed up by result_finish() so pointers stay valid
 * for the result's lifetime.
 *
 * A result sized up front (result_new_sized: the read path passes the
 * previous row's size) is one allocation: the struct, then room for its
 * cells, then its arena. Either part moves to a block of its own only if the
 * row outgrows it, so a scan costs one malloc and one free per row.
 */
#include "table/result.h"

#include "common/error.h"

#include <stdint.h>
#include <stdlib.h>

/* Bytes of one cell's entry: its offsets and its public view. */
#define CELL_ENTRY (sizeof(result_cell_off) + sizeof(sbx_cell))

static void place_cells(sbx_result *r, void *block, size_t cap)
{
	r->offs = block;
	r->cells = (sbx_cell *)(r->offs + cap);
	r->cap = cap;
}

int result_new_sized(sbx_result **out, const uint8_t *row, size_t row_len,
		     size_t bytes, size_t cells)
{
	size_t head = sizeof(sbx_result);
	if (cells > (SIZE_MAX / 2 - head) / CELL_ENTRY ||
	    bytes > SIZE_MAX / 4 || row_len > SIZE_MAX / 4)
		return sbx_error_set(SBX_ENOMEM, "result too large");
	size_t cells_bytes = cells * CELL_ENTRY;
	size_t arena_cap = row_len + bytes + 1;
	sbx_result *r = malloc(head + cells_bytes + arena_cap);
	if (!r)
		return SBX_ENOMEM_SET();
	memset(r, 0, sizeof *r);
	if (cells) {
		place_cells(r, r + 1, cells);
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
	if (cap > SIZE_MAX / CELL_ENTRY)
		return sbx_error_set(SBX_ENOMEM, "result too large");
	void *block;
	if (r->inline_cells) {
		block = malloc(cap * CELL_ENTRY);
		if (block && r->n)
			memcpy(block, r->offs, r->n * sizeof *r->offs);
	} else {
		block = realloc(r->offs, cap * CELL_ENTRY);
	}
	if (!block)
		return SBX_ENOMEM_SET();
	r->inline_cells = false;
	place_cells(r, block, cap);
	return SBX_OK;
}

/* Room for `extra` more arena bytes (the arena may live in the struct's
 * block, so never sbx_buf's realloc). */
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
	uint8_t *p;
	if (r->inline_arena) {
		p = malloc(cap);
		if (p && a->len)
			memcpy(p, a->data, a->len);
	} else {
		p = realloc(a->data, cap);
	}
	if (!p)
		return SBX_ENOMEM_SET();
	r->inline_arena = false;
	a->data = p;
	a->cap = cap;
	return SBX_OK;
}

int result_begin_family(sbx_result *r, const char *family, size_t family_len)
{
	/* Reuse the previous cell's family bytes when they match. */
	if (r->n && r->offs[r->n - 1].fam_len == family_len &&
	    !memcmp(r->arena.data + r->offs[r->n - 1].fam_off, family,
		    family_len)) {
		r->fam_off = r->offs[r->n - 1].fam_off;
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

int result_add_cell(sbx_result *r, const uint8_t *qual, size_t qual_len,
		    int64_t ts, sbx_cell_type type, const uint8_t *value,
		    size_t value_len)
{
	if (r->n == r->cap && grow_cells(r))
		return SBX_ENOMEM_SET();
	if (qual_len > SIZE_MAX / 4 || value_len > SIZE_MAX / 4 ||
	    arena_reserve(r, qual_len + value_len))
		return SBX_ENOMEM_SET();
	result_cell_off *c = &r->offs[r->n];
	uint8_t *d = r->arena.data + r->arena.len;
	c->fam_off = r->fam_off;
	c->fam_len = r->fam_len;
	c->qual_off = r->arena.len;
	c->qual_len = qual_len;
	if (qual_len)
		memcpy(d, qual, qual_len);
	c->value_off = c->qual_off + qual_len;
	c->value_len = value_len;
	if (value_len)
		memcpy(d + qual_len, value, value_len);
	r->arena.len += qual_len + value_len;
	c->ts = ts;
	c->type = type;
	r->n++;
	r->finished = false;
	return SBX_OK;
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
	const uint8_t *base = r->arena.data;
	for (size_t i = 0; i < r->n; i++) {
		const result_cell_off *o = &r->offs[i];
		sbx_cell *c = &r->cells[i];
		c->row = base;
		c->row_len = r->row_len;
		c->family = (const char *)base + o->fam_off;
		c->family_len = o->fam_len;
		c->qualifier = base + o->qual_off;
		c->qualifier_len = o->qual_len;
		c->timestamp = o->ts;
		c->type = o->type;
		c->value = base + o->value_off;
		c->value_len = o->value_len;
	}
	r->finished = true;
	return SBX_OK;
}

void result_clear(sbx_result *r)
{
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
		free(r->offs);
	free(r);
}
