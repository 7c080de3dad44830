/*
 * matcher.h - HBase's UserScanQueryMatcher as a pure decision. The read
 * path (read.c) offers each cell of one family's row, in key order, and
 * the matcher says what to do with it: include it, skip it, skip the rest
 * of its column, seek to a selected column, end the family's row, or ask
 * the filter for a seek hint. It keeps the row's delete markers and the
 * column's version counts; it never touches RocksDB and does no I/O.
 *
 * Per cell, in HBase's order: column selection, then (not raw) delete
 * markers are recorded and masked puts dropped, TTL with MIN_VERSIONS, the
 * time range, the filter, and last the version count (after the filter,
 * as HBase counts versions).
 */
#ifndef SBX_ENGINE_MATCHER_H
#define SBX_ENGINE_MATCHER_H

#include "saltbox/common.h"
#include "saltbox/filter.h"

#include <assert.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What the read path does with the cell it offered. */
typedef enum match_code {
	MATCH_INCLUDE,          /* put the cell in the result; next cell */
	MATCH_SKIP,             /* next cell */
	MATCH_NEXT_COL,         /* next cell, and none of this column's later
				 * ones (step or seek past them); family
				 * markers among them are still offered */
	MATCH_INCLUDE_NEXT_COL, /* MATCH_INCLUDE, then as MATCH_NEXT_COL */
	MATCH_SEEK_COL,         /* the column is not selected: seek to the
				 * selected qualifier m->seek_column */
	MATCH_NEXT_ROW,         /* nothing more in this family's row */
	MATCH_INCLUDE_NEXT_ROW, /* MATCH_INCLUDE, then as MATCH_NEXT_ROW */
	MATCH_SEEK_HINT,        /* the filter wants to seek: ask it where
				 * (sbx_filter_cell_hint) */
	MATCH_ENOMEM,           /* no memory to record a delete marker */
} match_code;

/* What a read asks of one family. reader.c fills it when the read opens;
 * read.c refreshes the family's attributes (MIN_VERSIONS, TTL,
 * KEEP_DELETED_CELLS) at each row, as an alter may come between two calls
 * of a scan. */
typedef struct match_params {
	int max_versions;  /* versions per column returned: min(asked,
			    * VERSIONS); raw reads: as asked. >= 1 */
	int min_versions;  /* MIN_VERSIONS: the newest this many live
			    * versions of a column outlive the TTL */
	bool has_ttl;      /* the family's TTL is not FOREVER */
	int64_t ttl_cutoff_ms; /* with has_ttl: puts older are expired */
	bool keep_deleted; /* KEEP_DELETED_CELLS TRUE or TTL: a marker
			    * masks only inside the time range, so a read
			    * of the past sees cells deleted later */
	bool raw;          /* raw read: markers and masked cells are
			    * returned, nothing is masked or expired; puts
			    * count against max_versions, markers do not */
	int64_t min_ts, max_ts;  /* the time range [min_ts, max_ts) */
	sbx_filter *filter;      /* or NULL; offered each live put in range */
	const sbx_buf *columns;  /* selected qualifiers, sorted bytewise;
				  * NULL: every column */
	size_t ncolumns;
} match_params;

/* A set of timestamps (delete markers of one version). Grown on demand;
 * the memory is kept from row to row. */
typedef struct ts_set {
	int64_t *v;
	size_t n, cap;
} ts_set;

/* Why a put cannot be decided by the inline fast path (matcher.slow). */
enum {
	MATCH_SLOW_READ = 1,           /* raw, a TTL or a filter */
	MATCH_SLOW_FAMILY_MARKERS = 2, /* a family marker is in force */
	MATCH_SLOW_COLUMN_MARKERS = 4, /* a column marker is in force */
};

/*
 * The state of one family's row. Markers are in force from where they
 * appear to the end of the row (family markers, which sort first in the
 * empty qualifier's column) or of their column (column markers). No
 * delete marker is -1: a put's timestamp is never negative. Without
 * MATCH_SLOW_COLUMN_MARKERS, column_delete is -1 and column_versions empty.
 */
typedef struct matcher {
	match_params p; /* a copy: the fast path reads it next to the state */
	unsigned slow;         /* MATCH_SLOW_* bits; 0: a put in the time
				* range under the version count is included
				* at once */
	/* row: the family's markers */
	int64_t family_delete; /* newest DeleteFamily: masks puts <= it */
	ts_set family_versions; /* DeleteFamilyVersion: mask puts at exactly
				 * these timestamps, in every column */
	/* the current column */
	int64_t column_delete; /* newest DeleteColumn: masks puts <= it */
	ts_set column_versions; /* Delete: mask puts at exactly these */
	int live;     /* puts not masked and not expired, for MIN_VERSIONS
		       * (counted when a TTL applies: MATCH_SLOW_READ) */
	int included; /* versions in the result (raw: puts only) */
	/* out: MATCH_SEEK_COL's target (one of p.columns) */
	const sbx_buf *seek_column;
} matcher;

/* A zeroed matcher is ready for matcher_begin_row; matcher_free releases
 * its memory (and zeroes it again). */
void matcher_free(matcher *m);
/* Bytes of memory held (for the read path's scratch accounting). */
size_t matcher_scratch_bytes(const matcher *m);

/* Start a family's row: the parameters are copied, markers and counts
 * cleared (memory kept). REQUIRES: p->max_versions >= 1. */
static inline void matcher_begin_row(matcher *m, const match_params *p)
{
	assert(p->max_versions >= 1);
	assert(p->columns || !p->ncolumns);
	m->p = *p;
	m->slow = p->raw || p->has_ttl || p->filter ? MATCH_SLOW_READ : 0;
	m->family_delete = m->column_delete = -1;
	m->family_versions.n = m->column_versions.n = 0;
	m->live = m->included = 0;
	m->seek_column = NULL;
}

static inline bool matcher_is_family_marker(sbx_cell_type t)
{
	return t == SBX_CELL_DELETE_FAMILY ||
	       t == SBX_CELL_DELETE_FAMILY_VERSION;
}

/* The out-of-line parts of matcher_match (matcher.c). */
bool matcher_column_selected(const matcher *m, const uint8_t *q, size_t ql);
match_code matcher_unselected_column(matcher *m, const uint8_t *q, size_t ql);
/* c by value: the read path's cell then never has its address taken and
 * stays in registers on the inline path. */
match_code matcher_match_general(matcher *m, sbx_cell c);

/*
 * Decide one cell. c is the cell as the filter sees it: a family marker
 * has an empty qualifier. new_column is true for the first cell of a
 * column other than the previous cell's (family markers never start a
 * column: they belong to no column). REQUIRES: the family's cells offered
 * in key order (qualifier, then timestamp descending, type descending).
 *
 * Inline, with the common cell decided here: a put in a plain read with
 * no marker in force, in the time range and under the version count.
 */
static inline match_code matcher_match(matcher *m, const sbx_cell *c,
				       bool new_column)
{
	assert(!(new_column && matcher_is_family_marker(c->type)));
	if (new_column) {
		if (m->slow & MATCH_SLOW_COLUMN_MARKERS) {
			m->slow &= ~(unsigned)MATCH_SLOW_COLUMN_MARKERS;
			m->column_delete = -1;
			m->column_versions.n = 0;
		}
		m->live = m->included = 0;
		if (m->p.columns &&
		    !matcher_column_selected(m, c->qualifier, c->qualifier_len))
			return matcher_unselected_column(m, c->qualifier,
							 c->qualifier_len);
	}
	int64_t ts = c->timestamp;
	if (c->type == SBX_CELL_PUT && !m->slow && ts >= m->p.min_ts &&
	    ts < m->p.max_ts && m->included < m->p.max_versions) {
		m->included++;
		return MATCH_INCLUDE;
	}
	return matcher_match_general(m, *c);
}

#endif
