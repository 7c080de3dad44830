/*
 * result.c - sbx_result: one row's cells in HBase order. Bytes live in one
 * arena; public views are fixed up by result_finish() so pointers stay valid
 * for the result's lifetime.
 */
#include "table/result.h"

#include "common/error.h"

#include <stdlib.h>

int result_new_sized(sbx_result **out, const uint8_t *row, size_t row_len,
		     size_t bytes, size_t cells)
{
	sbx_result *r = calloc(1, sizeof *r);
	if (!r)
		return SBX_ENOMEM_SET();
	if (sbx_buf_reserve(&r->arena, row_len + bytes + 1) ||
	    sbx_buf_append(&r->arena, row, row_len)) {
		free(r);
		return SBX_ENOMEM_SET();
	}
	if (cells) {
		r->offs = malloc(cells * sizeof *r->offs);
		r->cap = r->offs ? cells : 0;
	}
	r->row_len = row_len;
	*out = r;
	return SBX_OK;
}

int result_new(sbx_result **out, const uint8_t *row, size_t row_len)
{
	return result_new_sized(out, row, row_len, 0, 0);
}

int result_add(sbx_result *r, const char *family, size_t family_len,
	       const uint8_t *qual, size_t qual_len, int64_t ts,
	       sbx_cell_type type, const uint8_t *value, size_t value_len)
{
	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 8;
		result_cell_off *o = realloc(r->offs, cap * sizeof *o);
		if (!o)
			return SBX_ENOMEM_SET();
		r->offs = o;
		r->cap = cap;
	}
	result_cell_off *c = &r->offs[r->n];
	/* Reuse the previous cell's family bytes when they match. */
	if (r->n && r->offs[r->n - 1].fam_len == family_len &&
	    !memcmp(r->arena.data + r->offs[r->n - 1].fam_off, family,
		    family_len)) {
		c->fam_off = r->offs[r->n - 1].fam_off;
	} else {
		c->fam_off = r->arena.len;
		if (sbx_buf_append(&r->arena, family, family_len) ||
		    sbx_buf_push(&r->arena, 0))
			return SBX_ENOMEM_SET();
	}
	c->fam_len = family_len;
	if (sbx_buf_reserve(&r->arena, qual_len + value_len))
		return SBX_ENOMEM_SET();
	uint8_t *d = r->arena.data + r->arena.len;
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

int result_finish(sbx_result *r)
{
	free(r->cells);
	r->cells = NULL;
	if (r->n) {
		r->cells = malloc(r->n * sizeof *r->cells);
		if (!r->cells)
			return SBX_ENOMEM_SET();
	}
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
	sbx_buf_free(&r->arena);
	free(r->offs);
	free(r->cells);
	free(r);
}
