/* filter_int.h - what the built-in filters share (internal): the state
 * header every built-in filter starts with, byte helpers and the merged
 * hint comparison. */
#ifndef SBX_FILTER_INT_H
#define SBX_FILTER_INT_H

#include "common/buf.h"
#include "common/bytes.h"
#include "common/error.h"
#include "saltbox/filter.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

typedef enum flt_kind {
	FLT_PREFIX,
	FLT_ROW,
	FLT_FAMILY,
	FLT_QUALIFIER,
	FLT_VALUE,
	FLT_COLUMN_PREFIX,
	FLT_MULTIPLE_COLUMN_PREFIX,
	FLT_COLUMN_RANGE,
	FLT_SINGLE_COLUMN_VALUE,
	FLT_SINGLE_COLUMN_VALUE_EXCLUDE,
	FLT_DEPENDENT_COLUMN,
	FLT_COLUMN_VALUE,
	FLT_PAGE,
	FLT_FIRST_KEY_ONLY,
	FLT_KEY_ONLY,
	FLT_COLUMN_PAGINATION,
	FLT_COLUMN_COUNT_GET,
	FLT_TIMESTAMPS,
	FLT_INCLUSIVE_STOP,
	FLT_RANDOM_ROW,
	FLT_MULTI_ROW_RANGE,
	FLT_FUZZY_ROW,
	FLT_SKIP,
	FLT_WHILE_MATCH,
	FLT_LIST,
} flt_kind;

/* First member of every built-in filter's state. */
typedef struct flt_base {
	flt_kind kind;
	void (*free_state)(void *state); /* releases the whole state */
} flt_base;

/* From hook.c. REQUIRES: f != NULL (as every flt_ call on a filter). */
void *flt_state_of(const sbx_filter *f);
const sbx_filter_ops *flt_ops_of(const sbx_filter *f);

/* The destroy callback every built-in filter uses (calls free_state). */
void flt_destroy(void *state);
/* The built-in state of f, or NULL for a filter made from user callbacks. */
const flt_base *flt_builtin(const sbx_filter *f);
/* sbx_filter_new for a built-in state; ops->destroy is forced to
 * flt_destroy. The state is released on failure. REQUIRES: out and state
 * non-NULL, state->free_state set. */
int flt_make(sbx_filter **out, sbx_filter_ops ops, flt_base *state);

static inline bool flt_bytes_eq(const uint8_t *a, size_t alen,
				const uint8_t *b, size_t blen)
{
	assert((a || !alen) && (b || !blen));
	return alen == blen && (alen == 0 || memcmp(a, b, alen) == 0);
}

/* A malloc'ed copy of len bytes (never NULL for len 0 unless out of
 * memory); *ok is cleared on failure. REQUIRES: ok != NULL, p != NULL
 * unless len is 0. */
uint8_t *flt_dup(const void *p, size_t len, bool *ok);

/* Fill a hint. Returns false (no hint) when out of memory. REQUIRES: h
 * != NULL, row and qual non-NULL unless their length is 0. */
bool flt_hint_set(sbx_filter_hint *h, const uint8_t *row, size_t row_len,
		  const uint8_t *qual, size_t qual_len);

/* Order two hints taken at the same cell: by row in the scan direction,
 * then by qualifier ascending. REQUIRES: a and b non-NULL. */
int flt_hint_cmp(const sbx_filter_hint *a, const sbx_filter_hint *b,
		 bool reversed);

/* The comparator's field test, HBase CompareFilter.compare: true = the
 * field does NOT pass (filter it out). REQUIRES: c != NULL, field non-NULL
 * unless len is 0. */
bool flt_cmp_rejects(sbx_compare_op op, sbx_comparator *c, const void *field,
		     size_t len);

/* Comparator internals used by the JSON writer and the parser. REQUIRES:
 * c != NULL. */
sbx_comparator *flt_comparator_clone(const sbx_comparator *c);

/* True if the cell is family:qualifier. REQUIRES: c != NULL. */
static inline bool flt_cell_is_column(const sbx_cell *c, const char *family,
				      size_t family_len, const uint8_t *qual,
				      size_t qual_len)
{
	assert(c);
	return flt_bytes_eq((const uint8_t *)c->family, c->family_len,
			    (const uint8_t *)family, family_len) &&
	       flt_bytes_eq(c->qualifier, c->qualifier_len, qual, qual_len);
}

/* Mark whether a list needs whole rows (hook.c). */
void flt_set_has_filter_row(sbx_filter *f, bool has_filter_row);

/* ---- built-in states (read by the JSON writer) ---------------------------- */

typedef struct flt_bytes {
	uint8_t *data;
	size_t len;
} flt_bytes;

/* Copy len bytes into b (allocates even for len 0). REQUIRES: b != NULL,
 * p != NULL unless len is 0. */
int flt_bytes_set(flt_bytes *b, const void *p, size_t len);

/* PREFIX, COLUMN_PREFIX, INCLUSIVE_STOP */
typedef struct flt_prefix {
	flt_base b;
	flt_bytes prefix;
	bool reversed;
	bool filter_row; /* current row rejected */
	bool done;       /* past the prefix / stop row: end of scan */
} flt_prefix;

/* ROW, FAMILY, QUALIFIER, VALUE */
typedef struct flt_compare {
	flt_base b;
	sbx_compare_op op;
	sbx_comparator *cmp;
	bool filter_out_row;
} flt_compare;

typedef struct flt_multi_prefix {
	flt_base b;
	flt_bytes *given; /* as constructed, for JSON */
	size_t ngiven;
	flt_bytes *sorted; /* sorted, none a prefix of another */
	size_t nsorted;
} flt_multi_prefix;

typedef struct flt_column_range {
	flt_base b;
	bool has_min, min_inclusive, has_max, max_inclusive;
	flt_bytes min, max;
} flt_column_range;

/* SINGLE_COLUMN_VALUE(_EXCLUDE), COLUMN_VALUE, DEPENDENT_COLUMN */
typedef struct flt_column_value {
	flt_base b;
	flt_bytes family;
	flt_bytes qualifier;
	sbx_compare_op op;
	sbx_comparator *cmp; /* NULL only for DEPENDENT_COLUMN */
	bool filter_if_missing;
	bool latest_version_only;
	bool drop_dependent;
	/* per row */
	bool found, matched;
	int64_t *stamps; /* DEPENDENT_COLUMN: reference timestamps */
	size_t nstamps, stamps_cap;
	bool column_done; /* COLUMN_VALUE: passed the column */
} flt_column_value;

/* PAGE, FIRST_KEY_ONLY, KEY_ONLY, COLUMN_PAGINATION, COLUMN_COUNT_GET */
typedef struct flt_counter {
	flt_base b;
	int64_t limit;
	int64_t offset;
	bool has_column_offset;
	flt_bytes column_offset;
	bool len_as_value;
	int64_t count; /* rows (PAGE) or columns in this row */
	uint8_t len_buf[4];
} flt_counter;

typedef struct flt_timestamps {
	flt_base b;
	int64_t *ts; /* ascending, unique */
	size_t n;
} flt_timestamps;

typedef struct flt_random_row {
	flt_base b;
	float chance;
	bool filter_out_row;
	uint64_t rng;
} flt_random_row;

typedef struct flt_range {
	flt_bytes start; /* len 0 = table start */
	bool start_inclusive;
	flt_bytes stop; /* len 0 = table end */
	bool stop_inclusive;
} flt_range;

typedef struct flt_multi_row_range {
	flt_base b;
	flt_range *ranges; /* sorted and merged */
	size_t n;
	bool reversed;
	bool done;
	bool filter_row;
} flt_multi_row_range;

typedef struct flt_fuzzy_row {
	flt_base b;
	flt_bytes *keys;
	flt_bytes *masks;
	size_t n;
	bool reversed;
	bool done;
} flt_fuzzy_row;

/* SKIP, WHILE_MATCH */
typedef struct flt_wrap {
	flt_base b;
	sbx_filter *inner;
	bool flag; /* SKIP: row rejected; WHILE: scan done */
} flt_wrap;

typedef struct flt_list_child {
	sbx_filter *f;
	bool included; /* its last filter_cell was INCLUDE* */
	bool seek;     /* its last filter_cell was SEEK_NEXT_USING_HINT */
	int prev_rc;   /* OR: previous return code in this row, -1 = none */
	sbx_buf prev_family, prev_qualifier;
	bool has_prev_hint;
	sbx_filter_hint prev_hint;
} flt_list_child;

typedef struct flt_list {
	flt_base b;
	sbx_filter_list_op op;
	flt_list_child *c;
	size_t n, cap;
	bool reversed;
	sbx_filter_hint tmp; /* scratch for merging hints */
	sbx_cell xform[2];   /* scratch for chained transforms */
} flt_list;

#endif
