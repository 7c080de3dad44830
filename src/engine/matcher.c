/*
 * matcher.c - the general path of the cell matcher (matcher.h): column
 * selection, delete markers, TTL with MIN_VERSIONS, the time range, the
 * filter and the version count, for every cell the inline fast path does
 * not decide. Pure: the only memory it takes is to record version delete
 * markers, and it is kept from row to row.
 */
#include "engine/matcher.h"
#include "common/alloc.h"
#include "common/bytes.h"

#include <stdlib.h>
#include <string.h>

void matcher_free(matcher *m)
{
	free(m->family_versions.v);
	free(m->column_versions.v);
	memset(m, 0, sizeof *m);
}

size_t matcher_scratch_bytes(const matcher *m)
{
	return (m->family_versions.cap + m->column_versions.cap) *
	       sizeof(int64_t);
}

/* The first selected column after q (ncolumns if none): a binary search
 * over the sorted selection (a get naming many columns meets as many
 * unselected ones). */
static size_t first_column_after(const matcher *m, const uint8_t *q,
				 size_t ql)
{
	size_t lo = 0, hi = m->p.ncolumns;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const sbx_buf *col = &m->p.columns[mid];
		if (sbx_bytes_cmp(col->data, col->len, q, ql) > 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

bool matcher_column_selected(const matcher *m, const uint8_t *q, size_t ql)
{
	if (!m->p.columns)
		return true;
	size_t at = first_column_after(m, q, ql); /* q itself sorts before */
	return at > 0 && !sbx_bytes_cmp(m->p.columns[at - 1].data,
					m->p.columns[at - 1].len, q, ql);
}

/* The empty qualifier's column also holds the family markers, so it is
 * stepped through (MATCH_NEXT_COL), never sought past. */
match_code matcher_unselected_column(matcher *m, const uint8_t *q, size_t ql)
{
	if (ql == 0)
		return MATCH_NEXT_COL;
	size_t at = first_column_after(m, q, ql);
	if (at == m->p.ncolumns)
		return MATCH_NEXT_ROW; /* no selected column after this one */
	m->seek_column = &m->p.columns[at];
	return MATCH_SEEK_COL;
}

static bool ts_set_has(const ts_set *s, int64_t ts)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i] == ts)
			return true;
	return false;
}

static bool ts_set_add(ts_set *s, int64_t ts)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 8;
		int64_t *v = sbx_realloc(s->v, cap * sizeof *v);
		if (!v)
			return false;
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n++] = ts;
	return true;
}

/* A delete marker: put it in force. With KEEP_DELETED_CELLS a marker
 * outside the time range is ignored; without, one newer than the range
 * still masks (only markers older than the range cannot matter). */
static match_code record_marker(matcher *m, const sbx_cell *c, bool in_range)
{
	int64_t ts = c->timestamp;
	bool in_force = m->p.keep_deleted ? in_range : ts >= m->p.min_ts;
	if (!in_force)
		return MATCH_SKIP;
	bool ok = true;
	switch (c->type) {
	case SBX_CELL_DELETE_FAMILY:
		if (ts > m->family_delete)
			m->family_delete = ts;
		m->slow |= MATCH_SLOW_FAMILY_MARKERS;
		break;
	case SBX_CELL_DELETE_FAMILY_VERSION:
		ok = ts_set_add(&m->family_versions, ts);
		m->slow |= MATCH_SLOW_FAMILY_MARKERS;
		break;
	case SBX_CELL_DELETE_COLUMN:
		if (ts > m->column_delete)
			m->column_delete = ts;
		m->slow |= MATCH_SLOW_COLUMN_MARKERS;
		break;
	default: /* SBX_CELL_DELETE */
		ok = ts_set_add(&m->column_versions, ts);
		m->slow |= MATCH_SLOW_COLUMN_MARKERS;
	}
	return ok ? MATCH_SKIP : MATCH_ENOMEM;
}

static bool masked(const matcher *m, int64_t ts)
{
	return ts <= m->family_delete || ts <= m->column_delete ||
	       (m->family_versions.n && ts_set_has(&m->family_versions, ts)) ||
	       (m->column_versions.n && ts_set_has(&m->column_versions, ts));
}

match_code matcher_match_general(matcher *m, sbx_cell cell)
{
	const sbx_cell *c = &cell;
	int64_t ts = c->timestamp;
	bool in_range = ts >= m->p.min_ts && ts < m->p.max_ts;
	if (m->p.raw) {
		if (!in_range || m->included >= m->p.max_versions)
			return MATCH_SKIP;
		if (c->type == SBX_CELL_PUT)
			m->included++;
		return MATCH_INCLUDE;
	}
	if (c->type != SBX_CELL_PUT)
		return record_marker(m, c, in_range);
	if (masked(m, ts))
		return MATCH_SKIP;
	if (m->p.has_ttl && ts < m->p.ttl_cutoff_ms &&
	    m->live >= m->p.min_versions)
		return MATCH_NEXT_COL; /* older versions are expired too */
	m->live++;
	if (!in_range)
		return MATCH_SKIP;
	sbx_filter_code fc = m->p.filter ? sbx_filter_cell(m->p.filter, c)
					 : SBX_FILTER_INCLUDE;
	switch (fc) {
	case SBX_FILTER_SKIP:
		return MATCH_SKIP;
	case SBX_FILTER_NEXT_COL:
		return MATCH_NEXT_COL;
	case SBX_FILTER_NEXT_ROW:
		return MATCH_NEXT_ROW;
	case SBX_FILTER_SEEK_NEXT_USING_HINT:
		return MATCH_SEEK_HINT;
	default:
		break;
	}
	if (m->included >= m->p.max_versions)
		return MATCH_NEXT_COL;
	m->included++;
	if (fc == SBX_FILTER_INCLUDE_AND_NEXT_COL)
		return MATCH_INCLUDE_NEXT_COL;
	if (fc == SBX_FILTER_INCLUDE_AND_SEEK_NEXT_ROW)
		return MATCH_INCLUDE_NEXT_ROW;
	return MATCH_INCLUDE;
}
