/*
 * result.h - building sbx_result objects (internal). Cells are appended with
 * their bytes copied into one arena; result_finish() fixes up the public
 * cell views once the arena no longer moves.
 */
#ifndef SBX_TABLE_RESULT_H
#define SBX_TABLE_RESULT_H

#include "common/buf.h"
#include "saltbox/table.h"

typedef struct result_cell_off {
	size_t fam_off, fam_len, qual_off, qual_len, value_off, value_len;
	int64_t ts;
	sbx_cell_type type;
} result_cell_off;

/* offs and cells share one block of cap entries each: offs first, then the
 * public views result_finish() fills. The block and the arena start inside
 * the result's own allocation (inline_*) and move out only if they outgrow
 * it. The arena is never grown with sbx_buf's functions. */
struct sbx_result {
	sbx_buf arena; /* row bytes first, then families, qualifiers, values */
	size_t row_len;
	result_cell_off *offs;
	sbx_cell *cells;
	size_t n, cap;
	size_t fam_off, fam_len; /* family of the cells result_add_cell adds */
	bool finished;
	bool inline_cells, inline_arena;
};

/* A new empty result for `row`. */
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
int result_add_cell(sbx_result *r, const uint8_t *qual, size_t qual_len,
		    int64_t ts, sbx_cell_type type, const uint8_t *value,
		    size_t value_len);
/* Make the public views valid. Call once, after the last result_add. */
int result_finish(sbx_result *r);
/* Drop every cell (keeps the row). */
void result_clear(sbx_result *r);

#endif
