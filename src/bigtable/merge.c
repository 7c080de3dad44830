/*
 * merge.c - ReadRows' chunk merger (merge.h): the three-state machine of
 * Google's clients (nodejs-bigtable's chunktransformer, the CellChunk
 * comments in bigtable.proto), with the key-order check flipped for
 * reversed reads. Invariant: the cell being built is always the last one
 * in row.cells and its value is the tail of row.arena, so split values
 * append in place.
 */
#include "bigtable/merge.h"

#include "common/alloc.h"
#include "common/bytes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void bt_merger_init(bt_merger *m, bool reversed)
{
	memset(m, 0, sizeof *m);
	m->reversed = reversed;
	m->state = BT_NEW_ROW;
}

void bt_merger_free(bt_merger *m)
{
	sbx_buf_free(&m->last_key);
	sbx_buf_free(&m->row.key);
	sbx_buf_free(&m->row.arena);
	free(m->row.cells);
	memset(m, 0, sizeof *m);
}

/* The most a split cell's announced size reserves (start_cell). */
#define RESERVE_MAX ((size_t)1 << 20)

static int bad(bt_merger *m, const char *why)
{
	snprintf(m->why, sizeof m->why, "%s", why);
	return SBX_EREMOTE;
}

static void reset_row(bt_merger *m)
{
	m->row.key.len = 0;
	m->row.arena.len = 0;
	m->row.n = 0;
	m->have_qual = false;
	m->fam_len = m->qual_len = 0;
	m->state = BT_NEW_ROW;
}

static int append(bt_merger *m, const void *p, size_t len, size_t *off)
{
	*off = m->row.arena.len;
	return len && sbx_buf_append(&m->row.arena, p, len) ? SBX_ENOMEM : 0;
}

/* Start a cell from c (family/qualifier given or inherited). */
static int start_cell(bt_merger *m, const bt_chunk *c)
{
	if (c->has_family) {
		if (!c->has_qualifier)
			return bad(m, "a new column family must come with a "
				      "qualifier");
		if (append(m, c->family, c->family_len, &m->fam_off))
			return SBX_ENOMEM;
		m->fam_len = c->family_len;
	}
	if (c->has_qualifier) {
		if (append(m, c->qualifier, c->qualifier_len, &m->qual_off))
			return SBX_ENOMEM;
		m->qual_len = c->qualifier_len;
		m->have_qual = true;
	}
	if (!m->have_qual)
		return bad(m, "a cell without family and qualifier");
	if (m->row.n == m->row.cap) {
		size_t cap = m->row.cap ? 2 * m->row.cap : 16;
		bt_cell *v = sbx_realloc(m->row.cells, cap * sizeof *v);
		if (!v)
			return SBX_ENOMEM;
		m->row.cells = v;
		m->row.cap = cap;
	}
	bt_cell *cell = &m->row.cells[m->row.n++];
	memset(cell, 0, sizeof *cell);
	cell->family_off = m->fam_off;
	cell->family_len = m->fam_len;
	cell->qual_off = m->qual_off;
	cell->qual_len = m->qual_len;
	cell->timestamp_micros = c->timestamp_micros;
	if (c->nlabels && append(m, c->label, c->label_len, &cell->label_off))
		return SBX_ENOMEM;
	cell->label_len = c->nlabels ? c->label_len : 0;
	/* value_size is the server's word for the whole value: room for it
	 * up front, up to a bound (a value past it grows as it arrives), so
	 * a wrong size cannot make the client allocate gigabytes */
	if (c->value_size > 0 &&
	    sbx_buf_reserve(&m->row.arena, (size_t)c->value_size < RESERVE_MAX
						 ? (size_t)c->value_size
						 : RESERVE_MAX))
		return SBX_ENOMEM;
	if (append(m, c->value, c->value_len, &cell->value_off))
		return SBX_ENOMEM;
	cell->value_len = c->value_len;
	return SBX_OK;
}

static bool bare(const bt_chunk *c)
{
	return !c->row_key_len && !c->has_family && !c->has_qualifier &&
	       !c->value_len && c->timestamp_micros == 0 && !c->nlabels;
}

/* A reset chunk drops the row read so far; it carries nothing else. */
static int reset(bt_merger *m, const bt_chunk *c)
{
	if (!bare(c))
		return bad(m, "a reset chunk carries data");
	reset_row(m);
	return SBX_OK;
}

/* A chunk inside a row names that row or none. */
static bool other_row(const bt_merger *m, const bt_chunk *c)
{
	return c->row_key_len &&
	       sbx_bytes_cmp(c->row_key, c->row_key_len, m->row.key.data,
			     m->row.key.len);
}

int bt_merger_chunk(bt_merger *m, const bt_chunk *c, bt_row_fn fn, void *ctx)
{
	int rc;
	if (c->reset_row && c->commit_row)
		return bad(m, "a chunk both resets and commits");
	switch (m->state) {
	case BT_NEW_ROW:
		if (c->reset_row)
			return bad(m, "reset with no row in progress");
		if (!c->row_key_len)
			return bad(m, "a new row without a row key");
		if (!c->has_family || !c->has_qualifier)
			return bad(m, "a new row without family and qualifier");
		if (m->have_last) {
			int d = sbx_bytes_cmp(c->row_key, c->row_key_len,
					  m->last_key.data, m->last_key.len);
			if (d == 0)
				return bad(m, "duplicate row key");
			if (m->reversed ? d > 0 : d < 0)
				return bad(m, "row keys out of order");
		}
		if (sbx_buf_set(&m->row.key, c->row_key, c->row_key_len))
			return SBX_ENOMEM;
		if ((rc = start_cell(m, c)))
			return rc;
		break;
	case BT_ROW_IN_PROGRESS:
		if (c->reset_row)
			return reset(m, c);
		if (other_row(m, c))
			return bad(m, "a new row key before the commit");
		if ((rc = start_cell(m, c)))
			return rc;
		break;
	case BT_CELL_IN_PROGRESS:
		if (c->reset_row)
			return reset(m, c);
		if (other_row(m, c))
			return bad(m, "a new row key inside a split cell");
		if (c->has_family || c->has_qualifier || c->timestamp_micros ||
		    c->nlabels)
			return bad(m, "a split cell's continuation names a cell");
		if (c->value_len) {
			if (sbx_buf_append(&m->row.arena, c->value, c->value_len))
				return SBX_ENOMEM;
			m->row.cells[m->row.n - 1].value_len += c->value_len;
		}
		break;
	}
	if (c->commit_row) {
		if (c->value_size > 0)
			return bad(m, "a commit inside a split cell");
		if (sbx_buf_set(&m->last_key, m->row.key.data, m->row.key.len))
			return SBX_ENOMEM;
		m->have_last = true;
		rc = fn ? fn(ctx, &m->row) : SBX_OK;
		reset_row(m);
		return rc;
	}
	m->state = c->value_size > 0 ? BT_CELL_IN_PROGRESS : BT_ROW_IN_PROGRESS;
	return SBX_OK;
}

int bt_merger_finish(bt_merger *m)
{
	if (m->state != BT_NEW_ROW)
		return bad(m, "the stream ended inside a row (no commit)");
	return SBX_OK;
}

const uint8_t *bt_merger_last_key(const bt_merger *m, size_t *len)
{
	*len = m->have_last ? m->last_key.len : 0;
	return m->have_last ? m->last_key.data : NULL;
}
