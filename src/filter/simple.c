/*
 * simple.c - the built-in filters that test one row key or one cell at a
 * time: Prefix, InclusiveStop, Row/Family/Qualifier/Value (CompareFilter),
 * ColumnPrefix, MultipleColumnPrefix, ColumnRange, Page, FirstKeyOnly,
 * KeyOnly, ColumnPagination, ColumnCountGet, Timestamps and RandomRow, each
 * with the return codes and hints of its HBase namesake.
 */
#include "common/alloc.h"
#include "filter/filter_int.h"

#include <time.h>

static void *state_new(size_t size, flt_kind kind, void (*free_state)(void *))
{
	flt_base *b = sbx_calloc(1, size);
	if (!b)
		return NULL;
	b->kind = kind;
	b->free_state = free_state;
	return b;
}

/* ---- PrefixFilter, ColumnPrefixFilter, InclusiveStopFilter ---------------- */

static void prefix_free(void *p)
{
	flt_prefix *s = p;
	free(s->prefix.data);
	free(s);
}

/* Compare row with the prefix over the prefix's length; a row that is a
 * proper prefix of `prefix` sorts before it. */
static int prefix_cmp(const flt_prefix *s, const uint8_t *row, size_t len)
{
	size_t n = len < s->prefix.len ? len : s->prefix.len;
	int c = n ? memcmp(row, s->prefix.data, n) : 0;
	if (c == 0 && len < s->prefix.len)
		return -1;
	return c;
}

static bool prefix_row_key(void *p, const uint8_t *row, size_t len)
{
	flt_prefix *s = p;
	if (s->done)
		return true;
	int c = prefix_cmp(s, row, len);
	if ((!s->reversed && c > 0) || (s->reversed && c < 0))
		s->done = true;
	s->filter_row = c != 0;
	return s->filter_row;
}

static bool prefix_row_hint(void *p, const uint8_t *row, size_t len,
			    sbx_filter_hint *h)
{
	flt_prefix *s = p;
	int c = prefix_cmp(s, row, len);
	if (!s->reversed)
		return c < 0 && flt_hint_set(h, s->prefix.data, s->prefix.len,
					     NULL, 0);
	if (c <= 0)
		return false;
	/* Reversed: the first row <= the prefix's successor. */
	size_t n = s->prefix.len;
	while (n && s->prefix.data[n - 1] == 0xFF)
		n--;
	if (!n || sbx_buf_set(&h->row, s->prefix.data, n))
		return false;
	h->row.data[n - 1]++;
	sbx_buf_reset(&h->qualifier);
	return true;
}

static sbx_filter_code prefix_cell(void *p, const sbx_cell *c)
{
	flt_prefix *s = p;
	return s->filter_row ? SBX_FILTER_NEXT_ROW : SBX_FILTER_INCLUDE;
}

static bool prefix_filter_row(void *p)
{
	return ((flt_prefix *)p)->filter_row;
}

static void prefix_reset(void *p)
{
	((flt_prefix *)p)->filter_row = true;
}

static bool prefix_all_remaining(void *p)
{
	return ((flt_prefix *)p)->done;
}

static void prefix_set_reversed(void *p, bool reversed)
{
	flt_prefix *s = p;
	s->reversed = reversed;
	s->done = false;
}

static int prefix_state(flt_prefix **out, flt_kind kind, const void *bytes,
			size_t len)
{
	flt_prefix *s = state_new(sizeof *s, kind, prefix_free);
	if (!s || flt_bytes_set(&s->prefix, bytes, len)) {
		free(s);
		return SBX_ENOMEM_SET();
	}
	s->filter_row = true;
	*out = s;
	return SBX_OK;
}

int sbx_filter_new_prefix(sbx_filter **out, const void *prefix, size_t len)
{
	*out = NULL;
	flt_prefix *s = NULL;
	int rc = prefix_state(&s, FLT_PREFIX, prefix, len);
	if (rc)
		return rc;
	sbx_filter_ops ops = {
		.reset = prefix_reset,
		.filter_all_remaining = prefix_all_remaining,
		.filter_row_key = prefix_row_key,
		.filter_cell = prefix_cell,
		.filter_row = prefix_filter_row,
		.row_hint = prefix_row_hint,
		.set_reversed = prefix_set_reversed,
	};
	return flt_make(out, ops, &s->b);
}

static bool stop_row_key(void *p, const uint8_t *row, size_t len)
{
	flt_prefix *s = p;
	if (s->done)
		return true;
	int c = sbx_bytes_cmp(s->prefix.data, s->prefix.len, row, len);
	s->done = s->reversed ? c > 0 : c < 0;
	return s->done;
}

static sbx_filter_code stop_cell(void *p, const sbx_cell *c)
{
	return ((flt_prefix *)p)->done ? SBX_FILTER_NEXT_ROW
				       : SBX_FILTER_INCLUDE;
}

int sbx_filter_new_inclusive_stop(sbx_filter **out, const void *stop_row,
				  size_t len)
{
	*out = NULL;
	flt_prefix *s = NULL;
	int rc = prefix_state(&s, FLT_INCLUSIVE_STOP, stop_row, len);
	if (rc)
		return rc;
	s->filter_row = false;
	sbx_filter_ops ops = {
		.filter_all_remaining = prefix_all_remaining,
		.filter_row_key = stop_row_key,
		.filter_cell = stop_cell,
		.set_reversed = prefix_set_reversed,
	};
	return flt_make(out, ops, &s->b);
}

static sbx_filter_code column_prefix_cell(void *p, const sbx_cell *c)
{
	flt_prefix *s = p;
	size_t n = c->qualifier_len < s->prefix.len ? c->qualifier_len
						    : s->prefix.len;
	int cmp = n ? memcmp(c->qualifier, s->prefix.data, n) : 0;
	if (c->qualifier_len < s->prefix.len)
		return cmp <= 0 ? SBX_FILTER_SEEK_NEXT_USING_HINT
				: SBX_FILTER_NEXT_ROW;
	if (cmp < 0)
		return SBX_FILTER_SEEK_NEXT_USING_HINT;
	return cmp > 0 ? SBX_FILTER_NEXT_ROW : SBX_FILTER_INCLUDE;
}

static bool column_prefix_hint(void *p, const sbx_cell *c, sbx_filter_hint *h)
{
	flt_prefix *s = p;
	return flt_hint_set(h, c->row, c->row_len, s->prefix.data,
			    s->prefix.len);
}

int sbx_filter_new_column_prefix(sbx_filter **out, const void *prefix,
				 size_t len)
{
	*out = NULL;
	flt_prefix *s = NULL;
	int rc = prefix_state(&s, FLT_COLUMN_PREFIX, prefix, len);
	if (rc)
		return rc;
	sbx_filter_ops ops = {
		.filter_cell = column_prefix_cell,
		.cell_hint = column_prefix_hint,
	};
	return flt_make(out, ops, &s->b);
}

/* ---- Row/Family/Qualifier/ValueFilter ------------------------------------ */

static void compare_free(void *p)
{
	flt_compare *s = p;
	sbx_comparator_free(s->cmp);
	free(s);
}

static bool row_cmp_row_key(void *p, const uint8_t *row, size_t len)
{
	flt_compare *s = p;
	if (flt_cmp_rejects(s->op, s->cmp, row, len))
		s->filter_out_row = true;
	return s->filter_out_row;
}

static sbx_filter_code row_cmp_cell(void *p, const sbx_cell *c)
{
	return ((flt_compare *)p)->filter_out_row ? SBX_FILTER_NEXT_ROW
						  : SBX_FILTER_INCLUDE;
}

static bool row_cmp_filter_row(void *p)
{
	return ((flt_compare *)p)->filter_out_row;
}

static void row_cmp_reset(void *p)
{
	((flt_compare *)p)->filter_out_row = false;
}

static sbx_filter_code family_cell(void *p, const sbx_cell *c)
{
	flt_compare *s = p;
	if (c->family_len > 0 &&
	    flt_cmp_rejects(s->op, s->cmp, c->family, c->family_len))
		return SBX_FILTER_NEXT_ROW;
	return SBX_FILTER_INCLUDE;
}

static sbx_filter_code qualifier_cell(void *p, const sbx_cell *c)
{
	flt_compare *s = p;
	return flt_cmp_rejects(s->op, s->cmp, c->qualifier, c->qualifier_len)
		       ? SBX_FILTER_SKIP
		       : SBX_FILTER_INCLUDE;
}

static sbx_filter_code value_cell(void *p, const sbx_cell *c)
{
	flt_compare *s = p;
	return flt_cmp_rejects(s->op, s->cmp, c->value, c->value_len)
		       ? SBX_FILTER_SKIP
		       : SBX_FILTER_INCLUDE;
}

static int compare_new(sbx_filter **out, flt_kind kind, sbx_compare_op op,
		       sbx_comparator *cmp)
{
	*out = NULL;
	if (!cmp)
		return sbx_error_set(SBX_EINVAL, "filter needs a comparator");
	if ((unsigned)op > SBX_CMP_NO_OP) {
		sbx_comparator_free(cmp);
		return sbx_error_set(SBX_EINVAL, "unknown compare op %d",
				     (int)op);
	}
	flt_compare *s = state_new(sizeof *s, kind, compare_free);
	if (!s) {
		sbx_comparator_free(cmp);
		return SBX_ENOMEM_SET();
	}
	s->op = op;
	s->cmp = cmp;
	sbx_filter_ops ops = {0};
	switch (kind) {
	case FLT_ROW:
		ops.reset = row_cmp_reset;
		ops.filter_row_key = row_cmp_row_key;
		ops.filter_cell = row_cmp_cell;
		ops.filter_row = row_cmp_filter_row;
		break;
	case FLT_FAMILY:
		ops.filter_cell = family_cell;
		break;
	case FLT_QUALIFIER:
		ops.filter_cell = qualifier_cell;
		break;
	default:
		ops.filter_cell = value_cell;
		break;
	}
	return flt_make(out, ops, &s->b);
}

int sbx_filter_new_row(sbx_filter **out, sbx_compare_op op,
		       sbx_comparator *cmp)
{
	return compare_new(out, FLT_ROW, op, cmp);
}

int sbx_filter_new_family(sbx_filter **out, sbx_compare_op op,
			  sbx_comparator *cmp)
{
	return compare_new(out, FLT_FAMILY, op, cmp);
}

int sbx_filter_new_qualifier(sbx_filter **out, sbx_compare_op op,
			     sbx_comparator *cmp)
{
	return compare_new(out, FLT_QUALIFIER, op, cmp);
}

int sbx_filter_new_value(sbx_filter **out, sbx_compare_op op,
			 sbx_comparator *cmp)
{
	return compare_new(out, FLT_VALUE, op, cmp);
}

/* ---- MultipleColumnPrefixFilter ------------------------------------------ */

static void multi_prefix_free(void *p)
{
	flt_multi_prefix *s = p;
	for (size_t i = 0; i < s->ngiven; i++)
		free(s->given[i].data);
	free(s->given);
	free(s->sorted);
	free(s);
}

static int bytes_qsort_cmp(const void *a, const void *b)
{
	const flt_bytes *x = a, *y = b;
	return sbx_bytes_cmp(x->data, x->len, y->data, y->len);
}

static bool starts_with(const uint8_t *s, size_t len, const flt_bytes *p)
{
	return len >= p->len && (p->len == 0 || !memcmp(s, p->data, p->len));
}

/* Index of the last prefix <= qualifier, or -1. */
static long multi_prefix_floor(const flt_multi_prefix *s, const uint8_t *q,
			       size_t qlen)
{
	long lo = 0, hi = (long)s->nsorted - 1, found = -1;
	while (lo <= hi) {
		long mid = lo + (hi - lo) / 2;
		const flt_bytes *p = &s->sorted[mid];
		if (sbx_bytes_cmp(p->data, p->len, q, qlen) <= 0) {
			found = mid;
			lo = mid + 1;
		} else {
			hi = mid - 1;
		}
	}
	return found;
}

static sbx_filter_code multi_prefix_cell(void *p, const sbx_cell *c)
{
	flt_multi_prefix *s = p;
	if (!s->nsorted)
		return SBX_FILTER_NEXT_ROW;
	long i = multi_prefix_floor(s, c->qualifier, c->qualifier_len);
	if (i >= 0 && starts_with(c->qualifier, c->qualifier_len, &s->sorted[i]))
		return SBX_FILTER_INCLUDE;
	if (i == (long)s->nsorted - 1)
		return SBX_FILTER_NEXT_ROW;
	return SBX_FILTER_SEEK_NEXT_USING_HINT;
}

static bool multi_prefix_hint(void *p, const sbx_cell *c, sbx_filter_hint *h)
{
	flt_multi_prefix *s = p;
	long i = multi_prefix_floor(s, c->qualifier, c->qualifier_len) + 1;
	if (i >= (long)s->nsorted)
		return false;
	return flt_hint_set(h, c->row, c->row_len, s->sorted[i].data,
			    s->sorted[i].len);
}

int sbx_filter_new_multiple_column_prefix(sbx_filter **out,
					  const void *const *prefixes,
					  const size_t *lens, size_t n)
{
	*out = NULL;
	flt_multi_prefix *s = state_new(sizeof *s, FLT_MULTIPLE_COLUMN_PREFIX,
					multi_prefix_free);
	if (!s)
		return SBX_ENOMEM_SET();
	s->given = sbx_calloc(n ? n : 1, sizeof *s->given);
	s->sorted = sbx_calloc(n ? n : 1, sizeof *s->sorted);
	if (!s->given || !s->sorted) {
		multi_prefix_free(s);
		return SBX_ENOMEM_SET();
	}
	for (size_t i = 0; i < n; i++, s->ngiven++) {
		if (flt_bytes_set(&s->given[i], prefixes[i], lens[i])) {
			multi_prefix_free(s);
			return SBX_ENOMEM;
		}
	}
	/* Sorted and prefix-free: a prefix covered by a shorter one goes, so
	 * the floor lookup is exact (HBase misses "ac" with {"a","ab"}). */
	flt_bytes *tmp = sbx_malloc((n ? n : 1) * sizeof *tmp);
	if (!tmp) {
		multi_prefix_free(s);
		return SBX_ENOMEM_SET();
	}
	if (n)
		memcpy(tmp, s->given, n * sizeof *tmp);
	qsort(tmp, n, sizeof *tmp, bytes_qsort_cmp);
	for (size_t i = 0; i < n; i++) {
		if (s->nsorted &&
		    starts_with(tmp[i].data, tmp[i].len,
				&s->sorted[s->nsorted - 1]))
			continue;
		s->sorted[s->nsorted++] = tmp[i];
	}
	free(tmp);
	sbx_filter_ops ops = {
		.filter_cell = multi_prefix_cell,
		.cell_hint = multi_prefix_hint,
	};
	return flt_make(out, ops, &s->b);
}

/* ---- ColumnRangeFilter ---------------------------------------------------- */

static void column_range_free(void *p)
{
	flt_column_range *s = p;
	free(s->min.data);
	free(s->max.data);
	free(s);
}

static sbx_filter_code column_range_cell(void *p, const sbx_cell *c)
{
	flt_column_range *s = p;
	int cmp_min = 1;
	if (s->has_min)
		cmp_min = sbx_bytes_cmp(c->qualifier, c->qualifier_len,
					s->min.data, s->min.len);
	if (cmp_min < 0)
		return SBX_FILTER_SEEK_NEXT_USING_HINT;
	if (!s->min_inclusive && cmp_min == 0)
		return SBX_FILTER_NEXT_COL;
	if (!s->has_max)
		return SBX_FILTER_INCLUDE;
	int cmp_max = sbx_bytes_cmp(c->qualifier, c->qualifier_len,
				    s->max.data, s->max.len);
	if ((s->max_inclusive && cmp_max <= 0) ||
	    (!s->max_inclusive && cmp_max < 0))
		return SBX_FILTER_INCLUDE;
	return SBX_FILTER_NEXT_ROW;
}

static bool column_range_hint(void *p, const sbx_cell *c, sbx_filter_hint *h)
{
	flt_column_range *s = p;
	return s->has_min &&
	       flt_hint_set(h, c->row, c->row_len, s->min.data, s->min.len);
}

int sbx_filter_new_column_range(sbx_filter **out, const void *min,
				size_t min_len, bool min_inclusive,
				const void *max, size_t max_len,
				bool max_inclusive)
{
	*out = NULL;
	flt_column_range *s =
		state_new(sizeof *s, FLT_COLUMN_RANGE, column_range_free);
	if (!s)
		return SBX_ENOMEM_SET();
	s->has_min = min != NULL;
	s->has_max = max != NULL;
	s->min_inclusive = min_inclusive;
	s->max_inclusive = max_inclusive;
	if ((min && flt_bytes_set(&s->min, min, min_len)) ||
	    (max && flt_bytes_set(&s->max, max, max_len))) {
		column_range_free(s);
		return SBX_ENOMEM;
	}
	sbx_filter_ops ops = {
		.filter_cell = column_range_cell,
		.cell_hint = column_range_hint,
	};
	return flt_make(out, ops, &s->b);
}

/* ---- Page, FirstKeyOnly, KeyOnly, ColumnPagination, ColumnCountGet -------- */

static void counter_free(void *p)
{
	flt_counter *s = p;
	free(s->column_offset.data);
	free(s);
}

static void counter_reset(void *p)
{
	((flt_counter *)p)->count = 0;
}

static void counter_set_reversed(void *p, bool reversed)
{
	((flt_counter *)p)->count = 0;
}

static flt_counter *counter_new(flt_kind kind)
{
	return state_new(sizeof(flt_counter), kind, counter_free);
}

static bool page_all_remaining(void *p)
{
	flt_counter *s = p;
	return s->count >= s->limit;
}

static bool page_row_key(void *p, const uint8_t *row, size_t len)
{
	return page_all_remaining(p);
}

static bool page_filter_row(void *p)
{
	flt_counter *s = p;
	s->count++;
	return s->count > s->limit;
}

int sbx_filter_new_page(sbx_filter **out, int64_t page_size)
{
	*out = NULL;
	if (page_size < 0)
		return sbx_error_set(SBX_EINVAL,
				     "PageFilter page size must be >= 0, "
				     "got %lld",
				     (long long)page_size);
	flt_counter *s = counter_new(FLT_PAGE);
	if (!s)
		return SBX_ENOMEM_SET();
	s->limit = page_size;
	sbx_filter_ops ops = {
		.filter_all_remaining = page_all_remaining,
		.filter_row_key = page_row_key,
		.filter_row = page_filter_row,
		.set_reversed = counter_set_reversed,
		.has_filter_row = true,
	};
	return flt_make(out, ops, &s->b);
}

static sbx_filter_code first_key_cell(void *p, const sbx_cell *c)
{
	flt_counter *s = p;
	if (s->count)
		return SBX_FILTER_NEXT_ROW;
	s->count = 1;
	return SBX_FILTER_INCLUDE;
}

int sbx_filter_new_first_key_only(sbx_filter **out)
{
	*out = NULL;
	flt_counter *s = counter_new(FLT_FIRST_KEY_ONLY);
	if (!s)
		return SBX_ENOMEM_SET();
	sbx_filter_ops ops = {
		.reset = counter_reset,
		.filter_cell = first_key_cell,
	};
	return flt_make(out, ops, &s->b);
}

static void key_only_transform(void *p, const sbx_cell *in, sbx_cell *out)
{
	flt_counter *s = p;
	*out = *in;
	out->value = s->len_buf;
	out->value_len = 0;
	if (s->len_as_value) {
		uint32_t n = (uint32_t)in->value_len;
		s->len_buf[0] = (uint8_t)(n >> 24);
		s->len_buf[1] = (uint8_t)(n >> 16);
		s->len_buf[2] = (uint8_t)(n >> 8);
		s->len_buf[3] = (uint8_t)n;
		out->value_len = 4;
	}
}

int sbx_filter_new_key_only(sbx_filter **out, bool len_as_value)
{
	*out = NULL;
	flt_counter *s = counter_new(FLT_KEY_ONLY);
	if (!s)
		return SBX_ENOMEM_SET();
	s->len_as_value = len_as_value;
	sbx_filter_ops ops = {.transform_cell = key_only_transform};
	return flt_make(out, ops, &s->b);
}

static sbx_filter_code pagination_cell(void *p, const sbx_cell *c)
{
	flt_counter *s = p;
	if (s->has_column_offset) {
		if (s->count >= s->limit)
			return SBX_FILTER_NEXT_ROW;
		if (s->count == 0 &&
		    sbx_bytes_cmp(c->qualifier, c->qualifier_len,
				  s->column_offset.data,
				  s->column_offset.len) < 0)
			return SBX_FILTER_SEEK_NEXT_USING_HINT;
		s->count++;
		return SBX_FILTER_INCLUDE_AND_NEXT_COL;
	}
	if (s->count >= s->offset + s->limit)
		return SBX_FILTER_NEXT_ROW;
	sbx_filter_code code = s->count < s->offset
				       ? SBX_FILTER_NEXT_COL
				       : SBX_FILTER_INCLUDE_AND_NEXT_COL;
	s->count++;
	return code;
}

static bool pagination_hint(void *p, const sbx_cell *c, sbx_filter_hint *h)
{
	flt_counter *s = p;
	return s->has_column_offset &&
	       flt_hint_set(h, c->row, c->row_len, s->column_offset.data,
			    s->column_offset.len);
}

static int pagination_new(sbx_filter **out, int32_t limit, int32_t offset,
			  const void *column_offset, size_t len)
{
	*out = NULL;
	if (limit < 0 || offset < 0)
		return sbx_error_set(SBX_EINVAL,
				     "ColumnPaginationFilter limit and offset "
				     "must be >= 0");
	flt_counter *s = counter_new(FLT_COLUMN_PAGINATION);
	if (!s)
		return SBX_ENOMEM_SET();
	s->limit = limit;
	s->offset = offset;
	if (column_offset) {
		s->has_column_offset = true;
		if (flt_bytes_set(&s->column_offset, column_offset, len)) {
			counter_free(s);
			return SBX_ENOMEM;
		}
	}
	sbx_filter_ops ops = {
		.reset = counter_reset,
		.filter_cell = pagination_cell,
		.cell_hint = pagination_hint,
	};
	return flt_make(out, ops, &s->b);
}

int sbx_filter_new_column_pagination(sbx_filter **out, int32_t limit,
				     int32_t offset)
{
	return pagination_new(out, limit, offset, NULL, 0);
}

int sbx_filter_new_column_pagination_from(sbx_filter **out, int32_t limit,
					  const void *column_offset,
					  size_t len)
{
	static const uint8_t empty[1];
	return pagination_new(out, limit, 0,
			      column_offset ? column_offset : empty, len);
}

static bool count_get_all_remaining(void *p)
{
	flt_counter *s = p;
	return s->count > s->limit;
}

static sbx_filter_code count_get_cell(void *p, const sbx_cell *c)
{
	flt_counter *s = p;
	s->count++;
	return s->count > s->limit ? SBX_FILTER_NEXT_COL
				   : SBX_FILTER_INCLUDE_AND_NEXT_COL;
}

int sbx_filter_new_column_count_get(sbx_filter **out, int32_t limit)
{
	*out = NULL;
	if (limit < 0)
		return sbx_error_set(SBX_EINVAL,
				     "ColumnCountGetFilter limit must be >= 0");
	flt_counter *s = counter_new(FLT_COLUMN_COUNT_GET);
	if (!s)
		return SBX_ENOMEM_SET();
	s->limit = limit;
	sbx_filter_ops ops = {
		.reset = counter_reset,
		.filter_all_remaining = count_get_all_remaining,
		.filter_cell = count_get_cell,
		.set_reversed = counter_set_reversed,
	};
	return flt_make(out, ops, &s->b);
}

/* ---- TimestampsFilter ----------------------------------------------------- */

static void timestamps_free(void *p)
{
	flt_timestamps *s = p;
	free(s->ts);
	free(s);
}

static int i64_cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

static sbx_filter_code timestamps_cell(void *p, const sbx_cell *c)
{
	flt_timestamps *s = p;
	if (bsearch(&c->timestamp, s->ts, s->n, sizeof *s->ts, i64_cmp))
		return SBX_FILTER_INCLUDE;
	/* Versions come newest first: nothing older can match. */
	if (s->n == 0 || c->timestamp < s->ts[0])
		return SBX_FILTER_NEXT_COL;
	return SBX_FILTER_SKIP;
}

int sbx_filter_new_timestamps(sbx_filter **out, const int64_t *timestamps,
			      size_t n)
{
	*out = NULL;
	for (size_t i = 0; i < n; i++)
		if (timestamps[i] < 0)
			return sbx_error_set(SBX_EINVAL,
					     "TimestampsFilter: timestamp "
					     "%lld is negative",
					     (long long)timestamps[i]);
	flt_timestamps *s =
		state_new(sizeof *s, FLT_TIMESTAMPS, timestamps_free);
	if (!s || !(s->ts = sbx_malloc((n ? n : 1) * sizeof *s->ts))) {
		free(s);
		return SBX_ENOMEM_SET();
	}
	if (n)
		memcpy(s->ts, timestamps, n * sizeof *s->ts);
	qsort(s->ts, n, sizeof *s->ts, i64_cmp);
	for (size_t i = 0; i < n; i++)
		if (s->n == 0 || s->ts[s->n - 1] != s->ts[i])
			s->ts[s->n++] = s->ts[i];
	sbx_filter_ops ops = {.filter_cell = timestamps_cell};
	return flt_make(out, ops, &s->b);
}

/* ---- RandomRowFilter ------------------------------------------------------ */

static void random_free(void *p)
{
	free(p);
}

/* xorshift64*: a float in [0, 1). */
static float random_next(flt_random_row *s)
{
	s->rng ^= s->rng >> 12;
	s->rng ^= s->rng << 25;
	s->rng ^= s->rng >> 27;
	uint64_t r = s->rng * UINT64_C(2685821657736338717);
	return (float)(r >> 40) / (float)(1u << 24);
}

static bool random_row_key(void *p, const uint8_t *row, size_t len)
{
	flt_random_row *s = p;
	if (s->chance < 0)
		s->filter_out_row = true;
	else if (s->chance > 1)
		s->filter_out_row = false;
	else
		s->filter_out_row = !(random_next(s) < s->chance);
	return s->filter_out_row;
}

static sbx_filter_code random_cell(void *p, const sbx_cell *c)
{
	return ((flt_random_row *)p)->filter_out_row ? SBX_FILTER_NEXT_ROW
						     : SBX_FILTER_INCLUDE;
}

static bool random_filter_row(void *p)
{
	return ((flt_random_row *)p)->filter_out_row;
}

static void random_reset(void *p)
{
	((flt_random_row *)p)->filter_out_row = false;
}

int sbx_filter_new_random_row(sbx_filter **out, float chance)
{
	*out = NULL;
	flt_random_row *s = state_new(sizeof *s, FLT_RANDOM_ROW, random_free);
	if (!s)
		return SBX_ENOMEM_SET();
	s->chance = chance;
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	s->rng = ((uint64_t)ts.tv_nsec << 20) ^ (uint64_t)ts.tv_sec ^
		 (uint64_t)(uintptr_t)s;
	if (!s->rng)
		s->rng = 0x9E3779B97F4A7C15u;
	sbx_filter_ops ops = {
		.reset = random_reset,
		.filter_row_key = random_row_key,
		.filter_cell = random_cell,
		.filter_row = random_filter_row,
		.has_filter_row = true,
	};
	return flt_make(out, ops, &s->b);
}
