/*
 * ranges.c - row-key filters that jump: MultiRowRangeFilter (a sorted,
 * merged union of row ranges) and FuzzyRowFilter (fixed/any byte masks).
 * A rejected row yields a row hint to the next row that can match, in the
 * scan's direction, and the scan ends when no further row can match.
 */
#include "common/alloc.h"
#include "filter/filter_int.h"

/* ---- MultiRowRangeFilter -------------------------------------------------- */

static void mrr_free(void *p)
{
	flt_multi_row_range *s = p;
	for (size_t i = 0; i < s->n; i++) {
		free(s->ranges[i].start.data);
		free(s->ranges[i].stop.data);
	}
	free(s->ranges);
	free(s);
}

/* Order of range starts: empty (table start) first, inclusive before
 * exclusive at equal bytes. */
static int start_cmp(const flt_range *a, const flt_range *b)
{
	if (!a->start.len || !b->start.len)
		return (a->start.len != 0) - (b->start.len != 0);
	int c = sbx_bytes_cmp(a->start.data, a->start.len, b->start.data,
			      b->start.len);
	if (c)
		return c;
	return (int)b->start_inclusive - (int)a->start_inclusive;
}

static int range_qsort_cmp(const void *a, const void *b)
{
	return start_cmp(a, b);
}

static bool above_start(const flt_range *r, const uint8_t *row, size_t len)
{
	if (!r->start.len)
		return true;
	int c = sbx_bytes_cmp(row, len, r->start.data, r->start.len);
	return c > 0 || (c == 0 && r->start_inclusive);
}

static bool below_stop(const flt_range *r, const uint8_t *row, size_t len)
{
	if (!r->stop.len)
		return true;
	int c = sbx_bytes_cmp(row, len, r->stop.data, r->stop.len);
	return c < 0 || (c == 0 && r->stop_inclusive);
}

/* Number of ranges whose start the row satisfies (monotone in i). */
static size_t ranges_started(const flt_multi_row_range *s, const uint8_t *row,
			     size_t len)
{
	size_t lo = 0, hi = s->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (above_start(&s->ranges[mid], row, len))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static bool mrr_row_key(void *p, const uint8_t *row, size_t len)
{
	flt_multi_row_range *s = p;
	s->filter_row = true;
	if (s->done)
		return true;
	size_t i = ranges_started(s, row, len);
	if (i > 0 && below_stop(&s->ranges[i - 1], row, len)) {
		s->filter_row = false;
		return false;
	}
	if ((!s->reversed && i == s->n) || (s->reversed && i == 0))
		s->done = true;
	return true;
}

static void mrr_reset(void *p)
{
	((flt_multi_row_range *)p)->filter_row = false;
}

static sbx_filter_code mrr_cell(void *p, const sbx_cell *c)
{
	return ((flt_multi_row_range *)p)->filter_row ? SBX_FILTER_NEXT_ROW
						      : SBX_FILTER_INCLUDE;
}

static bool mrr_filter_row(void *p)
{
	return ((flt_multi_row_range *)p)->filter_row;
}

static bool mrr_row_hint(void *p, const uint8_t *row, size_t len,
			 sbx_filter_hint *h)
{
	flt_multi_row_range *s = p;
	if (s->done)
		return false;
	size_t i = ranges_started(s, row, len);
	if (!s->reversed) {
		if (i >= s->n)
			return false;
		const flt_range *r = &s->ranges[i];
		if (!flt_hint_set(h, r->start.data, r->start.len, NULL, 0))
			return false;
		/* exclusive start: the first row after it */
		return r->start_inclusive || sbx_buf_push(&h->row, 0) == SBX_OK;
	}
	if (i == 0 || !s->ranges[i - 1].stop.len)
		return false;
	const flt_range *r = &s->ranges[i - 1];
	return flt_hint_set(h, r->stop.data, r->stop.len, NULL, 0);
}

static void mrr_set_reversed(void *p, bool reversed)
{
	flt_multi_row_range *s = p;
	s->reversed = reversed;
	s->done = s->n == 0;
}

static bool mrr_all_remaining(void *p)
{
	return ((flt_multi_row_range *)p)->done;
}

int sbx_filter_new_multi_row_range(sbx_filter **out,
				   const sbx_row_range *ranges, size_t n)
{
	*out = NULL;
	for (size_t i = 0; i < n; i++) {
		const sbx_row_range *r = &ranges[i];
		if (!r->start_len || !r->stop_len)
			continue;
		int c = sbx_bytes_cmp(r->start, r->start_len, r->stop,
				      r->stop_len);
		if (c > 0 || (c == 0 && !r->stop_inclusive))
			return sbx_error_set(SBX_EINVAL,
					     "MultiRowRangeFilter: range %zu "
					     "has its start after its stop",
					     i);
	}
	flt_multi_row_range *s = sbx_calloc(1, sizeof *s);
	if (!s || !(s->ranges = sbx_calloc(n ? n : 1, sizeof *s->ranges))) {
		free(s);
		return SBX_ENOMEM_SET();
	}
	s->b.kind = FLT_MULTI_ROW_RANGE;
	s->b.free_state = mrr_free;
	for (; s->n < n; s->n++) {
		const sbx_row_range *r = &ranges[s->n];
		flt_range *d = &s->ranges[s->n];
		static const uint8_t empty[1];
		d->start_inclusive = r->start_len ? r->start_inclusive : true;
		d->stop_inclusive = r->stop_inclusive;
		if (flt_bytes_set(&d->start, r->start_len ? r->start : empty,
				  r->start_len) ||
		    flt_bytes_set(&d->stop, r->stop_len ? r->stop : empty,
				  r->stop_len)) {
			s->n++;
			mrr_free(s);
			return SBX_ENOMEM;
		}
	}
	qsort(s->ranges, s->n, sizeof *s->ranges, range_qsort_cmp);
	/* Merge overlapping or touching ranges. */
	size_t k = 0;
	for (size_t i = 0; i < s->n; i++) {
		flt_range *nx = &s->ranges[i];
		flt_range *cur = k ? &s->ranges[k - 1] : NULL;
		bool joins = false;
		if (cur) {
			int c = 0;
			if (cur->stop.len)
				c = sbx_bytes_cmp(nx->start.data, nx->start.len,
						  cur->stop.data,
						  cur->stop.len);
			joins = !cur->stop.len || c < 0 ||
				(c == 0 &&
				 (cur->stop_inclusive || nx->start_inclusive));
		}
		if (!joins) {
			s->ranges[k++] = *nx;
			continue;
		}
		int c = 0;
		if (cur->stop.len && nx->stop.len)
			c = sbx_bytes_cmp(nx->stop.data, nx->stop.len,
					  cur->stop.data, cur->stop.len);
		if (cur->stop.len && (!nx->stop.len || c > 0)) {
			free(cur->stop.data);
			cur->stop = nx->stop;
			cur->stop_inclusive = nx->stop_inclusive;
		} else {
			if (c == 0 && nx->stop.len)
				cur->stop_inclusive |= nx->stop_inclusive;
			free(nx->stop.data);
		}
		free(nx->start.data);
	}
	s->n = k;
	s->done = s->n == 0;
	sbx_filter_ops ops = {
		.reset = mrr_reset,
		.filter_all_remaining = mrr_all_remaining,
		.filter_row_key = mrr_row_key,
		.filter_cell = mrr_cell,
		.filter_row = mrr_filter_row,
		.row_hint = mrr_row_hint,
		.set_reversed = mrr_set_reversed,
	};
	return flt_make(out, ops, &s->b);
}

/* ---- FuzzyRowFilter ------------------------------------------------------- */

typedef struct fuzzy_state {
	flt_fuzzy_row pub;
	bool filter_row;
	sbx_buf next, cand;
	bool has_next;
} fuzzy_state;

static void fuzzy_free(void *p)
{
	fuzzy_state *s = p;
	for (size_t i = 0; i < s->pub.n; i++) {
		free(s->pub.keys[i].data);
		free(s->pub.masks[i].data);
	}
	free(s->pub.keys);
	free(s->pub.masks);
	sbx_buf_free(&s->next);
	sbx_buf_free(&s->cand);
	free(s);
}

/* The first fixed byte of the rule the row gets wrong, or -1 if the row
 * matches (only the first min(row, key) bytes are checked, as HBase). */
static long fuzzy_mismatch(const flt_bytes *key, const flt_bytes *mask,
			   const uint8_t *row, size_t len)
{
	for (size_t i = 0; i < key->len && i < len; i++)
		if (mask->data[i] == 0 && row[i] != key->data[i])
			return (long)i;
	return -1;
}

/* The nearest row past `row` (in the scan direction) that can match the
 * rule, into s->cand. Forward it is the least such row; reversed it is a
 * bound the read path seeks down to ("first row <= it"). */
static bool fuzzy_candidate(fuzzy_state *s, size_t r, const uint8_t *row,
			    size_t len, long i)
{
	const flt_bytes *key = &s->pub.keys[r], *mask = &s->pub.masks[r];
	sbx_buf *c = &s->cand;
	uint8_t k = key->data[i];
	if (!s->pub.reversed) {
		if (row[i] < k)
			return !sbx_buf_set(c, row, (size_t)i) &&
			       !sbx_buf_push(c, k);
		for (long j = i - 1; j >= 0; j--)
			if (mask->data[j] != 0 && row[j] != 0xFF)
				return !sbx_buf_set(c, row, (size_t)j) &&
				       !sbx_buf_push(c, (uint8_t)(row[j] + 1));
		return false;
	}
	if (row[i] > k)
		return !sbx_buf_set(c, row, (size_t)i) &&
		       !sbx_buf_push(c, (uint8_t)(k + 1));
	return i > 0 && !sbx_buf_set(c, row, (size_t)i);
}

static bool fuzzy_row_key(void *p, const uint8_t *row, size_t len)
{
	fuzzy_state *s = p;
	if (s->pub.done)
		return true;
	s->has_next = false;
	for (size_t r = 0; r < s->pub.n; r++) {
		long i = fuzzy_mismatch(&s->pub.keys[r], &s->pub.masks[r], row,
					len);
		if (i < 0) {
			s->filter_row = false;
			return false;
		}
		if (!fuzzy_candidate(s, r, row, len, i))
			continue;
		int c = sbx_bytes_cmp(s->cand.data, s->cand.len, s->next.data,
				      s->next.len);
		if (!s->has_next || (s->pub.reversed ? c > 0 : c < 0)) {
			if (sbx_buf_set(&s->next, s->cand.data, s->cand.len))
				continue;
			s->has_next = true;
		}
	}
	if (!s->has_next)
		s->pub.done = true;
	s->filter_row = true;
	return true;
}

static bool fuzzy_row_hint(void *p, const uint8_t *row, size_t len,
			   sbx_filter_hint *h)
{
	fuzzy_state *s = p;
	return s->has_next && !s->pub.done &&
	       flt_hint_set(h, s->next.data, s->next.len, NULL, 0);
}

static void fuzzy_set_reversed(void *p, bool reversed)
{
	fuzzy_state *s = p;
	s->pub.reversed = reversed;
	s->pub.done = s->pub.n == 0;
}

static bool fuzzy_all_remaining(void *p)
{
	return ((fuzzy_state *)p)->pub.done;
}

static void fuzzy_reset(void *p)
{
	((fuzzy_state *)p)->filter_row = false;
}

static sbx_filter_code fuzzy_cell(void *p, const sbx_cell *c)
{
	return ((fuzzy_state *)p)->filter_row ? SBX_FILTER_NEXT_ROW
					      : SBX_FILTER_INCLUDE;
}

static bool fuzzy_filter_row(void *p)
{
	return ((fuzzy_state *)p)->filter_row;
}

int sbx_filter_new_fuzzy_row(sbx_filter **out, const sbx_fuzzy_key *keys,
			     size_t n)
{
	*out = NULL;
	fuzzy_state *s = sbx_calloc(1, sizeof *s);
	if (!s)
		return SBX_ENOMEM_SET();
	s->pub.b.kind = FLT_FUZZY_ROW;
	s->pub.b.free_state = fuzzy_free;
	s->pub.keys = sbx_calloc(n ? n : 1, sizeof *s->pub.keys);
	s->pub.masks = sbx_calloc(n ? n : 1, sizeof *s->pub.masks);
	if (!s->pub.keys || !s->pub.masks) {
		fuzzy_free(s);
		return SBX_ENOMEM_SET();
	}
	for (; s->pub.n < n; s->pub.n++) {
		const sbx_fuzzy_key *k = &keys[s->pub.n];
		if (flt_bytes_set(&s->pub.keys[s->pub.n], k->key, k->len) ||
		    flt_bytes_set(&s->pub.masks[s->pub.n], k->mask, k->len)) {
			s->pub.n++;
			fuzzy_free(s);
			return SBX_ENOMEM;
		}
	}
	s->pub.done = n == 0;
	sbx_filter_ops ops = {
		.reset = fuzzy_reset,
		.filter_all_remaining = fuzzy_all_remaining,
		.filter_row_key = fuzzy_row_key,
		.filter_cell = fuzzy_cell,
		.filter_row = fuzzy_filter_row,
		.row_hint = fuzzy_row_hint,
		.set_reversed = fuzzy_set_reversed,
	};
	return flt_make(out, ops, &s->pub.b);
}
