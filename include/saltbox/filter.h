/*
 * saltbox/filter.h - server-side filters, as HBase's Filter.
 *
 * A filter is a set of callbacks the read path calls per row and per cell,
 * in HBase's order: reset -> filter_all_remaining -> filter_row_key ->
 * filter_cell (per cell that survived delete masking, TTL, time range and
 * column selection) -> transform_cell -> filter_row_cells -> filter_row.
 * Versions are counted after filter_cell, as in HBase.
 *
 * Built-in filters (PrefixFilter, ValueFilter, FilterList, ...) and the
 * filter language are built on this hook; applications can write their own.
 *
 * Thread-safety: a filter holds per-scan state; use one filter object per
 * concurrent read.
 */
#ifndef SALTBOX_FILTER_H
#define SALTBOX_FILTER_H

#include "saltbox/common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sbx_filter sbx_filter;

/* HBase's Filter.ReturnCode. */
typedef enum sbx_filter_code {
	SBX_FILTER_INCLUDE = 0,
	SBX_FILTER_INCLUDE_AND_NEXT_COL,
	SBX_FILTER_INCLUDE_AND_SEEK_NEXT_ROW,
	SBX_FILTER_SKIP,
	SBX_FILTER_NEXT_COL,
	SBX_FILTER_NEXT_ROW,
	SBX_FILTER_SEEK_NEXT_USING_HINT,
} sbx_filter_code;

/*
 * Where to seek next. If `row` equals the current row, the read path seeks
 * within the current family to `qualifier` (the first cell >= it, in the
 * scan's direction); otherwise it seeks to `row` (forward: first row >= row;
 * reversed: first row <= row) and `qualifier` is ignored. A hint that does
 * not move forward is treated as SKIP.
 */
typedef struct sbx_filter_hint {
	sbx_buf row;
	sbx_buf qualifier;
} sbx_filter_hint;

/* Callbacks. Every member may be NULL, meaning HBase's default (include /
 * do not filter / no hint). `state` is the pointer given to sbx_filter_new. */
typedef struct sbx_filter_ops {
	void (*reset)(void *state);
	bool (*filter_all_remaining)(void *state);
	/* true = drop this row */
	bool (*filter_row_key)(void *state, const uint8_t *row, size_t row_len);
	sbx_filter_code (*filter_cell)(void *state, const sbx_cell *cell);
	/* Rewrite an included cell (KeyOnlyFilter). Write the new cell to *out;
	 * pointers in *out must stay valid until the next call on this filter. */
	void (*transform_cell)(void *state, const sbx_cell *in, sbx_cell *out);
	/* Drop cells from the assembled row: compact cells[] in place, update *n. */
	void (*filter_row_cells)(void *state, sbx_cell *cells, size_t *n);
	/* true = drop the whole row (last veto) */
	bool (*filter_row)(void *state);
	/* After filter_row_key rejected `row`: fill hint->row with the next row
	 * worth reading and return true, or return false for "the next row". */
	bool (*row_hint)(void *state, const uint8_t *row, size_t row_len,
			 sbx_filter_hint *hint);
	/* For SBX_FILTER_SEEK_NEXT_USING_HINT: fill *hint, return true. */
	bool (*cell_hint)(void *state, const sbx_cell *cell,
			  sbx_filter_hint *hint);
	void (*set_reversed)(void *state, bool reversed);
	void (*destroy)(void *state);
	/* HBase's hasFilterRow(): the filter needs whole rows (then a scan
	 * cannot use batch). */
	bool has_filter_row;
} sbx_filter_ops;

/* Make a filter from callbacks. `ops` is copied; `state` is owned by the
 * filter from now on and released by ops->destroy (if set) when the filter
 * is freed, even when this call fails. Errors: SBX_ENOMEM only; *out is
 * NULL on failure. */
SBX_API int sbx_filter_new(sbx_filter **out, const sbx_filter_ops *ops, void *state);
/* NULL is ignored. Cannot fail. */
SBX_API void sbx_filter_free(sbx_filter *f);

/* The read path's entry points (also used by composite filters). Cannot
 * fail (none of them): each returns the callback's answer or HBase's
 * default. */
SBX_API void sbx_filter_reset(sbx_filter *f);
SBX_API bool sbx_filter_all_remaining(sbx_filter *f);
SBX_API bool sbx_filter_row_key(sbx_filter *f, const uint8_t *row, size_t row_len);
SBX_API sbx_filter_code sbx_filter_cell(sbx_filter *f, const sbx_cell *cell);
SBX_API void sbx_filter_transform_cell(sbx_filter *f, const sbx_cell *in, sbx_cell *out);
SBX_API void sbx_filter_row_cells(sbx_filter *f, sbx_cell *cells, size_t *n);
SBX_API bool sbx_filter_row(sbx_filter *f);
SBX_API bool sbx_filter_row_hint(sbx_filter *f, const uint8_t *row, size_t row_len,
			 sbx_filter_hint *hint);
SBX_API bool sbx_filter_cell_hint(sbx_filter *f, const sbx_cell *cell,
			  sbx_filter_hint *hint);
SBX_API void sbx_filter_set_reversed(sbx_filter *f, bool reversed);
SBX_API bool sbx_filter_has_filter_row(const sbx_filter *f);

/* ---- built-in filters and the filter language: see below ---------------- */

/*
 * Notes for the read path (HBase's StoreScanner/RegionScanner behaviour the
 * built-in filters rely on):
 *  - NEXT_ROW and INCLUDE_AND_SEEK_NEXT_ROW end the row *in the current
 *    family* only (HBase runs one store scanner per family); cells of the
 *    row's later families are still offered to filter_cell.
 *  - sbx_filter_hint buffers belong to the caller: the filter replaces their
 *    contents (growing them as needed) and the caller frees them with
 *    sbx_buf_free().
 *  - filter_row is called only for rows that still have cells after
 *    filter_row_cells (PageFilter counts rows there).
 *  - sbx_filter_set_reversed() is called once when a read starts, forward
 *    reads included; built-in filters also clear their per-scan state there
 *    (page counts, "scan is done" flags), so one filter object can serve
 *    several reads one after the other.
 */

/* ---- comparators (HBase ByteArrayComparable) ------------------------------ */

typedef struct sbx_comparator sbx_comparator;

typedef enum sbx_comparator_type {
	SBX_COMPARATOR_BINARY,        /* BinaryComparator: whole value */
	SBX_COMPARATOR_BINARY_PREFIX, /* BinaryPrefixComparator: first len bytes */
	SBX_COMPARATOR_REGEX,         /* RegexStringComparator: unanchored search,
				       * Java/PCRE syntax, DOTALL */
	SBX_COMPARATOR_SUBSTRING,     /* SubstringComparator: ASCII case-
				       * insensitive "contains" */
	SBX_COMPARATOR_LONG,          /* LongComparator: 8-byte big-endian long */
	SBX_COMPARATOR_NULL,          /* NullComparator (value ignored) */
	SBX_COMPARATOR_BIT_AND,       /* BitComparator with BitwiseOp AND */
	SBX_COMPARATOR_BIT_OR,        /* ... OR */
	SBX_COMPARATOR_BIT_XOR,       /* ... XOR */
} sbx_comparator_type;

/*
 * Make a comparator; `value` (len bytes) is copied. REGEX and SUBSTRING take
 * the value as text (UTF-8); LONG needs exactly 8 bytes. SBX_EINVAL for a
 * pattern that does not compile (the message gives its offset) or a bad
 * length, and for an unknown type; *out is NULL on failure. Free with
 * sbx_comparator_free() unless it was handed to a filter constructor.
 */
SBX_API int sbx_comparator_new(sbx_comparator **out, sbx_comparator_type type,
		       const void *value, size_t len);
/* Cannot fail (free ignores NULL). */
SBX_API void sbx_comparator_free(sbx_comparator *c);
SBX_API sbx_comparator_type sbx_comparator_get_type(const sbx_comparator *c);
/* The operand as given to sbx_comparator_new (owned by c). Cannot fail. */
SBX_API const uint8_t *sbx_comparator_value(const sbx_comparator *c, size_t *len);
/* HBase's comparator.compareTo(field): <0, 0 or >0 comparing the operand
 * with the field (regex/substring/bit/null: 0 = match, 1 = no match).
 * Cannot fail. */
SBX_API int sbx_comparator_compare(sbx_comparator *c, const void *field, size_t len);
/* CompareFilter's test: true when `field OP operand` holds (the cell
 * passes). SBX_CMP_NO_OP never passes. Cannot fail. */
SBX_API bool sbx_compare_passes(sbx_compare_op op, sbx_comparator *c,
			const void *field, size_t len);

/* ---- the catalogue --------------------------------------------------------
 * Every constructor returns SBX_OK and a new filter in *out (free with
 * sbx_filter_free()), or an error with *out = NULL. Byte arguments are
 * copied. A comparator or filter passed in is owned by the new filter from
 * then on, even when the constructor fails.
 * Errors: SBX_EINVAL where a constructor's comment says so ("EINVAL: ..."),
 * SBX_ENOMEM for every one ("ENOMEM only": no other error).
 */

/* PrefixFilter: rows whose key starts with prefix; seeks to the prefix and
 * ends the scan after it. Errors: ENOMEM only. */
SBX_API int sbx_filter_new_prefix(sbx_filter **out, const void *prefix, size_t len);
/* RowFilter / FamilyFilter / QualifierFilter / ValueFilter: keep rows /
 * cells whose row key / family / qualifier / value satisfies
 * `field OP comparator`. Errors: EINVAL: cmp NULL, op out of range. */
SBX_API int sbx_filter_new_row(sbx_filter **out, sbx_compare_op op,
		       sbx_comparator *cmp);
SBX_API int sbx_filter_new_family(sbx_filter **out, sbx_compare_op op,
			  sbx_comparator *cmp);
SBX_API int sbx_filter_new_qualifier(sbx_filter **out, sbx_compare_op op,
			     sbx_comparator *cmp);
SBX_API int sbx_filter_new_value(sbx_filter **out, sbx_compare_op op,
			 sbx_comparator *cmp);
/* ColumnPrefixFilter: qualifiers starting with prefix (seeks to it).
 * Errors: ENOMEM only. */
SBX_API int sbx_filter_new_column_prefix(sbx_filter **out, const void *prefix,
				 size_t len);
/* MultipleColumnPrefixFilter: qualifiers starting with any of n prefixes.
 * Errors: ENOMEM only. */
SBX_API int sbx_filter_new_multiple_column_prefix(sbx_filter **out,
					  const void *const *prefixes,
					  const size_t *lens, size_t n);
/* ColumnRangeFilter: qualifiers between min and max; NULL = unbounded.
 * Errors: ENOMEM only. */
SBX_API int sbx_filter_new_column_range(sbx_filter **out, const void *min,
				size_t min_len, bool min_inclusive,
				const void *max, size_t max_len,
				bool max_inclusive);
/* SingleColumnValueFilter: keep the whole row iff family:qualifier passes
 * `value OP cmp`. A row without the column is kept unless filter_if_missing.
 * latest_version_only (HBase default true) tests only the newest version.
 * Errors (this and the next two): EINVAL: family or cmp NULL, op out of
 * range. */
SBX_API int sbx_filter_new_single_column_value(sbx_filter **out, const char *family,
				       const void *qualifier,
				       size_t qualifier_len, sbx_compare_op op,
				       sbx_comparator *cmp,
				       bool filter_if_missing,
				       bool latest_version_only);
/* SingleColumnValueExcludeFilter: as above, without the tested column.
 * Errors: as above. */
SBX_API int sbx_filter_new_single_column_value_exclude(
	sbx_filter **out, const char *family, const void *qualifier,
	size_t qualifier_len, sbx_compare_op op, sbx_comparator *cmp,
	bool filter_if_missing, bool latest_version_only);
/* DependentColumnFilter: keep cells whose timestamp equals that of a version
 * of family:qualifier (passing `value OP cmp` when cmp is not NULL); drop
 * the reference column itself when drop_dependent. Errors: EINVAL: family
 * NULL, op out of range (cmp may be NULL). */
SBX_API int sbx_filter_new_dependent_column(sbx_filter **out, const char *family,
				    const void *qualifier,
				    size_t qualifier_len, bool drop_dependent,
				    sbx_compare_op op, sbx_comparator *cmp);
/* ColumnValueFilter: only the cells of family:qualifier passing
 * `value OP cmp`. Errors: as SingleColumnValueFilter. */
SBX_API int sbx_filter_new_column_value(sbx_filter **out, const char *family,
				const void *qualifier, size_t qualifier_len,
				sbx_compare_op op, sbx_comparator *cmp);
/* PageFilter: at most page_size rows (per read), then the scan ends.
 * Errors: EINVAL: page_size < 0. */
SBX_API int sbx_filter_new_page(sbx_filter **out, int64_t page_size);
/* FirstKeyOnlyFilter: only the first cell of each row. Errors: ENOMEM
 * only. */
SBX_API int sbx_filter_new_first_key_only(sbx_filter **out);
/* KeyOnlyFilter: empty values, or with len_as_value the value's length as a
 * 4-byte big-endian int. Errors: ENOMEM only. */
SBX_API int sbx_filter_new_key_only(sbx_filter **out, bool len_as_value);
/* ColumnPaginationFilter: per row, skip `offset` columns, return `limit`.
 * Errors (this and the next): EINVAL: limit or offset < 0. */
SBX_API int sbx_filter_new_column_pagination(sbx_filter **out, int32_t limit,
				     int32_t offset);
/* ... or return `limit` columns starting at qualifier column_offset.
 * Errors: EINVAL: limit < 0. */
SBX_API int sbx_filter_new_column_pagination_from(sbx_filter **out, int32_t limit,
					  const void *column_offset,
					  size_t len);
/* ColumnCountGetFilter: the first `limit` columns, then ends the read
 * (meant for Get). Errors: EINVAL: limit < 0. */
SBX_API int sbx_filter_new_column_count_get(sbx_filter **out, int32_t limit);
/* TimestampsFilter: only cells with one of the n timestamps. Errors:
 * EINVAL: a timestamp < 0. */
SBX_API int sbx_filter_new_timestamps(sbx_filter **out, const int64_t *timestamps,
			      size_t n);
/* InclusiveStopFilter: rows up to and including stop_row (reversed: down
 * to it), then ends the scan. Errors: ENOMEM only. */
SBX_API int sbx_filter_new_inclusive_stop(sbx_filter **out, const void *stop_row,
				  size_t len);
/* RandomRowFilter: keep each row with probability `chance` (<= 0: none,
 * >= 1: all). Errors: ENOMEM only. */
SBX_API int sbx_filter_new_random_row(sbx_filter **out, float chance);

/* One range of MultiRowRangeFilter; an empty start/stop is the table's
 * start/end. */
typedef struct sbx_row_range {
	const void *start;
	size_t start_len;
	bool start_inclusive;
	const void *stop;
	size_t stop_len;
	bool stop_inclusive;
} sbx_row_range;
/* MultiRowRangeFilter: rows in the union of the ranges; seeks between them.
 * Errors: EINVAL: a range whose start is after its stop (or equal, with an
 * exclusive stop). */
SBX_API int sbx_filter_new_multi_row_range(sbx_filter **out,
				   const sbx_row_range *ranges, size_t n);

/* One rule of FuzzyRowFilter: mask byte 0 = the row byte must equal the key
 * byte, anything else = any byte. key and mask are len bytes. */
typedef struct sbx_fuzzy_key {
	const void *key;
	const void *mask;
	size_t len;
} sbx_fuzzy_key;
/* FuzzyRowFilter: rows matching any rule (on their first min(row, key)
 * bytes); seeks to the next possible match. Errors: ENOMEM only. */
SBX_API int sbx_filter_new_fuzzy_row(sbx_filter **out, const sbx_fuzzy_key *keys,
			     size_t n);

/* SkipFilter: drop the whole row if `inner` rejects any of its cells.
 * Errors (this and the next): EINVAL: inner NULL. */
SBX_API int sbx_filter_new_skip(sbx_filter **out, sbx_filter *inner);
/* WhileMatchFilter: end the whole scan the first time `inner` rejects a
 * row or a cell. Errors: EINVAL: inner NULL. */
SBX_API int sbx_filter_new_while_match(sbx_filter **out, sbx_filter *inner);

typedef enum sbx_filter_list_op {
	SBX_FILTER_MUST_PASS_ALL, /* AND */
	SBX_FILTER_MUST_PASS_ONE, /* OR */
} sbx_filter_list_op;
/* FilterList over n filters (taken over; n may be 0), with HBase's merging
 * of return codes. Errors: EINVAL: op not a sbx_filter_list_op. */
SBX_API int sbx_filter_new_list(sbx_filter **out, sbx_filter_list_op op,
			sbx_filter *const *filters, size_t n);
/* Append a filter (taken over, even on failure) to a list made by
 * sbx_filter_new_list. Errors: SBX_EINVAL (`list` is not a FilterList, or
 * f is NULL), SBX_ENOMEM. The list is unchanged on failure. */
SBX_API int sbx_filter_list_add(sbx_filter *list, sbx_filter *f);

/* ---- the filter language and JSON -------------------------------------- */

/*
 * Parse an HBase filter string (ParseFilter), e.g.
 *   PrefixFilter('a') AND ColumnRangeFilter('x', true, 'z', false)
 * `text` is `len` bytes (quoted arguments may hold any byte). On SBX_EPARSE
 * the message names the byte offset and what was expected there, and
 * *err_pos (if not NULL) receives that offset. Errors: SBX_EPARSE (also for
 * arguments a constructor rejects: a bad regex, a negative page size),
 * SBX_ENOMEM. *out is NULL on failure.
 */
SBX_API int sbx_filter_parse(sbx_filter **out, const char *text, size_t len,
		     size_t *err_pos);

/*
 * Parse HBase REST's filter JSON (ScannerModel.FilterModel), e.g.
 *   {"type":"PrefixFilter","value":"YQ=="}
 * Byte fields are base64 except regex/substring comparator values.
 * Errors: SBX_EPARSE for bad JSON (the message names line and column) or an
 * unknown/ill-formed filter (the message names its JSON path), SBX_ENOMEM.
 * *out is NULL on failure.
 */
SBX_API int sbx_filter_from_json(sbx_filter **out, const char *json, size_t len);

/*
 * Append the filter's REST JSON to *out (as sbx_filter_from_json reads it).
 * Errors: SBX_EUNSUPPORTED (a filter made with sbx_filter_new(), in it, or
 * lists nested over 1000 deep), SBX_EINVAL (a regex or substring operand
 * that is not UTF-8), SBX_ENOMEM. Nothing is appended on failure.
 */
SBX_API int sbx_filter_to_json(sbx_buf *out, const sbx_filter *f);

#ifdef __cplusplus
}
#endif
#endif
