/*
 * result.h - building sbx_result objects (internal). Cells are appended with
 * their bytes copied into one arena and their public views (sbx_cell) filled
 * at once; if the arena has to move, the views are rebased onto the new
 * block, so they are valid at every step.
 */
#ifndef SBX_MODEL_RESULT_H
#define SBX_MODEL_RESULT_H

#include "common/buf.h"
#include "saltbox/table.h"

#include <assert.h>

/* The cell views and the arena start inside the result's own allocation
 * (inline_*) and move out only if they outgrow it: a row read with the
 * previous row's size costs one malloc. The arena is never grown with
 * sbx_buf's functions (it may not be a heap block of its own). */
struct sbx_result {
	sbx_buf arena; /* row bytes first, then families, qualifiers, values */
	size_t row_len;
	sbx_cell *cells;
	size_t n, cap;
	size_t fam_off, fam_len; /* family of the cells result_add_cell adds */
	size_t block_size; /* bytes of the allocation the result starts */
	bool finished;
	bool inline_cells, inline_arena;
};

/* A new empty result for `row`.
 * REQUIRES (every builder below): out or r not NULL; pointers to bytes
 * non-NULL unless their length is 0; cells are added only to a result
 * that is not finished, after result_begin_family named their family. */
int result_new(sbx_result **out, const uint8_t *row, size_t row_len);
/* The same, with room reserved for about `bytes` of cell data and `cells`
 * cells (e.g. the previous row's size), to spare regrowth. */
int result_new_sized(sbx_result **out, const uint8_t *row, size_t row_len,
		     size_t bytes, size_t cells);
/* Append a cell (copies every byte). */
int result_add(sbx_result *r, const char *family, size_t family_len,
	       const uint8_t *qual, size_t qual_len, int64_t ts,
	       sbx_cell_type type, const uint8_t *value, size_t value_len);
/* The same in two steps, for many cells of one family: name the family
 * once, then add its cells. */
int result_begin_family(sbx_result *r, const char *family, size_t family_len);
int result_add_cell_slow(sbx_result *r, const uint8_t *qual, size_t qual_len,
			 int64_t ts, sbx_cell_type type, const uint8_t *value,
			 size_t value_len);

/* Always inline: the read path adds every cell it returns through here. */
static inline __attribute__((always_inline)) int result_add_cell(sbx_result *r, const uint8_t *qual,
				  size_t qual_len, int64_t ts,
				  sbx_cell_type type, const uint8_t *value,
				  size_t value_len)
{
	assert(r && !r->finished && r->arena.len <= r->arena.cap &&
	       r->n <= r->cap);
	assert((qual || !qual_len) && (value || !value_len));
	size_t room = r->arena.cap - r->arena.len;
	if (r->n == r->cap || qual_len > room || value_len > room - qual_len)
		return result_add_cell_slow(r, qual, qual_len, ts, type, value,
					    value_len);
	uint8_t *base = r->arena.data, *d = base + r->arena.len;
	sbx_cell *c = &r->cells[r->n++];
	c->row = base;
	c->row_len = r->row_len;
	c->family = (const char *)base + r->fam_off;
	c->family_len = r->fam_len;
	c->qualifier = d;
	c->qualifier_len = qual_len;
	c->timestamp = ts;
	c->type = type;
	c->value = d + qual_len;
	c->value_len = value_len;
	sbx_bytes_copy(d, qual, qual_len);
	if (value_len)
		memcpy(d + qual_len, value, value_len);
	r->arena.len += qual_len + value_len;
	return SBX_OK;
}

/* Mark the result complete (its views are valid all along). Call once,
 * after the last result_add. REQUIRES: r not finished yet. */
int result_finish(sbx_result *r);
/* Drop every cell (keeps the row). */
void result_clear(sbx_result *r);

/* Scan.setBatch for a backend that reads a row whole: the next `batch`
 * cells of *pending from *pos on, as a result of their own in *out; once
 * the last cell is handed out, *pending is freed and set NULL.
 * REQUIRES: *pending, batch > 0. SBX_ENOMEM (message set; nothing moved). */
int result_take_batch(sbx_result **out, sbx_result **pending, size_t *pos,
		      size_t batch);

#endif
