/*
 * list.c - filters made of filters: FilterList (MUST_PASS_ALL takes the
 * largest step any member asks for, MUST_PASS_ONE the smallest, with
 * HBase's merge tables and its memory of each member's previous code),
 * SkipFilter and WhileMatchFilter.
 */
#include "common/alloc.h"
#include "filter/filter_int.h"

typedef sbx_filter_code code;
#define INCL SBX_FILTER_INCLUDE
#define INAC SBX_FILTER_INCLUDE_AND_NEXT_COL
#define IASR SBX_FILTER_INCLUDE_AND_SEEK_NEXT_ROW
#define SKIP SBX_FILTER_SKIP
#define NCOL SBX_FILTER_NEXT_COL
#define NROW SBX_FILTER_NEXT_ROW
#define SEEK SBX_FILTER_SEEK_NEXT_USING_HINT

static bool is_include(code c)
{
	return c == INCL || c == INAC || c == IASR;
}

/* MUST_PASS_ALL: the maximal step (FilterListWithAND.mergeReturnCode). */
static code merge_and(code rc, code local)
{
	if (rc == SEEK || local == SEEK)
		return SEEK;
	switch (local) {
	case INCL:
		return rc;
	case INAC:
		if (rc == INCL || rc == INAC)
			return INAC;
		if (rc == IASR)
			return IASR;
		return rc == NROW ? NROW : NCOL;
	case IASR:
		return is_include(rc) ? IASR : NROW;
	case SKIP:
		if (rc == INCL || rc == SKIP)
			return SKIP;
		return rc == INAC || rc == NCOL ? NCOL : NROW;
	case NCOL:
		return rc == IASR || rc == NROW ? NROW : NCOL;
	default:
		return NROW;
	}
}

/* MUST_PASS_ONE: the minimal step (FilterListWithOR.mergeReturnCode);
 * rc < 0 means no member has answered yet. */
static code merge_or(int rc, code local)
{
	if (rc < 0)
		return local;
	switch (local) {
	case INCL:
		return INCL;
	case INAC:
		return rc == INCL || rc == SKIP || rc == SEEK ? INCL : INAC;
	case IASR:
		if (rc == INCL || rc == SKIP || rc == SEEK)
			return INCL;
		return rc == INAC || rc == NCOL ? INAC : IASR;
	case SKIP:
		return is_include((code)rc) ? INCL : SKIP;
	case NCOL:
		if (rc == INCL)
			return INCL;
		if (rc == NCOL || rc == NROW)
			return NCOL;
		return rc == INAC || rc == IASR ? INAC : SKIP;
	case NROW:
		return rc == SEEK ? SKIP : (code)rc;
	default: /* SEEK */
		if (is_include((code)rc))
			return INCL;
		return rc == SEEK ? SEEK : SKIP;
	}
}

/* ---- FilterList ------------------------------------------------------------ */

static void child_clear(flt_list_child *c)
{
	c->included = c->seek = false;
	c->prev_rc = -1;
	c->has_prev_hint = false;
}

static void list_free(void *p)
{
	flt_list *s = p;
	for (size_t i = 0; i < s->n; i++) {
		flt_list_child *c = &s->c[i];
		sbx_filter_free(c->f);
		sbx_buf_free(&c->prev_family);
		sbx_buf_free(&c->prev_qualifier);
		sbx_buf_free(&c->prev_hint.row);
		sbx_buf_free(&c->prev_hint.qualifier);
	}
	free(s->c);
	sbx_buf_free(&s->tmp.row);
	sbx_buf_free(&s->tmp.qualifier);
	free(s);
}

static void list_reset(void *p)
{
	flt_list *s = p;
	for (size_t i = 0; i < s->n; i++) {
		sbx_filter_reset(s->c[i].f);
		child_clear(&s->c[i]);
	}
}

static bool list_all_remaining(void *p)
{
	flt_list *s = p;
	if (!s->n)
		return false;
	bool all = s->op == SBX_FILTER_MUST_PASS_ONE;
	for (size_t i = 0; i < s->n; i++) {
		bool done = sbx_filter_all_remaining(s->c[i].f);
		if (all && !done)
			return false;
		if (!all && done)
			return true;
	}
	return all;
}

/* Every member sees the row key (PrefixFilter & co. track rows there);
 * `seek` remembers which members rejected it. */
static bool list_row_key(void *p, const uint8_t *row, size_t len)
{
	flt_list *s = p;
	if (!s->n)
		return false;
	bool and = s->op == SBX_FILTER_MUST_PASS_ALL;
	bool rejected = !and;
	for (size_t i = 0; i < s->n; i++) {
		flt_list_child *c = &s->c[i];
		bool done = sbx_filter_all_remaining(c->f);
		c->seek = done || sbx_filter_row_key(c->f, row, len);
		if (and && c->seek)
			rejected = true;
		if (!and && !c->seek)
			rejected = false;
	}
	return rejected;
}

/* Keep the larger (AND) or smaller (OR) of s->tmp and *best. */
static void hint_merge(flt_list *s, sbx_filter_hint *best, bool *have)
{
	int c = *have ? flt_hint_cmp(&s->tmp, best, s->reversed) : 0;
	bool take = !*have || (s->op == SBX_FILTER_MUST_PASS_ALL ? c > 0
								 : c < 0);
	if (take && flt_hint_set(best, s->tmp.row.data, s->tmp.row.len,
				 s->tmp.qualifier.data, s->tmp.qualifier.len))
		*have = true;
}

static bool list_row_hint(void *p, const uint8_t *row, size_t len,
			  sbx_filter_hint *h)
{
	flt_list *s = p;
	bool have = false;
	for (size_t i = 0; i < s->n; i++) {
		flt_list_child *c = &s->c[i];
		if (!c->seek || sbx_filter_all_remaining(c->f))
			continue;
		if (!sbx_filter_row_hint(c->f, row, len, &s->tmp)) {
			if (s->op == SBX_FILTER_MUST_PASS_ONE)
				return false;
			continue;
		}
		hint_merge(s, h, &have);
	}
	return have;
}

static code list_cell_and(flt_list *s, const sbx_cell *cell)
{
	code rc = INCL;
	bool any_seek = false;
	for (size_t i = 0; i < s->n; i++)
		s->c[i].included = s->c[i].seek = false;
	for (size_t i = 0; i < s->n; i++) {
		flt_list_child *c = &s->c[i];
		if (sbx_filter_all_remaining(c->f))
			return NROW;
		code local = sbx_filter_cell(c->f, cell);
		rc = merge_and(rc, local);
		c->included = is_include(local);
		c->seek = local == SEEK;
		any_seek |= c->seek;
	}
	return any_seek ? SEEK : rc;
}

static bool same_bytes(const sbx_buf *b, const void *p, size_t len)
{
	return flt_bytes_eq(b->data, b->len, p, len);
}

/* The code a member would give for `cell` given its previous code in this
 * row, or -1 when it has to see the cell (HBASE-17678/18368). */
static int code_from_prev(flt_list *s, flt_list_child *c, const sbx_cell *cell)
{
	bool same_family =
		same_bytes(&c->prev_family, cell->family, cell->family_len);
	switch (c->prev_rc) {
	case SEEK: {
		if (!c->has_prev_hint)
			return -1;
		const sbx_buf *hr = &c->prev_hint.row;
		int r = sbx_bytes_cmp(cell->row, cell->row_len, hr->data,
				      hr->len);
		if (r)
			return (s->reversed ? r > 0 : r < 0) ? SEEK : -1;
		if (!same_family)
			return -1;
		return sbx_bytes_cmp(cell->qualifier, cell->qualifier_len,
				     c->prev_hint.qualifier.data,
				     c->prev_hint.qualifier.len) < 0
			       ? SEEK
			       : -1;
	}
	case NCOL:
	case INAC:
		return same_family && same_bytes(&c->prev_qualifier,
						 cell->qualifier,
						 cell->qualifier_len)
			       ? NCOL
			       : -1;
	case NROW:
	case IASR:
		return same_family ? NROW : -1;
	default:
		return -1;
	}
}

static code list_cell_or(flt_list *s, const sbx_cell *cell)
{
	int rc = -1;
	for (size_t i = 0; i < s->n; i++) {
		flt_list_child *c = &s->c[i];
		c->included = false;
		if (sbx_filter_all_remaining(c->f))
			continue;
		int local = code_from_prev(s, c, cell);
		if (local < 0) {
			local = sbx_filter_cell(c->f, cell);
			c->has_prev_hint =
				local == SEEK &&
				sbx_filter_cell_hint(c->f, cell, &c->prev_hint);
		}
		c->prev_rc = local;
		if (local != INCL && local != SKIP &&
		    (sbx_buf_set(&c->prev_family, cell->family,
				 cell->family_len) ||
		     sbx_buf_set(&c->prev_qualifier, cell->qualifier,
				 cell->qualifier_len)))
			c->prev_rc = -1; /* out of memory: just ask again */
		rc = merge_or(rc, (code)local);
		c->included = is_include((code)local);
	}
	return rc < 0 ? SKIP : (code)rc;
}

static code list_cell(void *p, const sbx_cell *cell)
{
	flt_list *s = p;
	if (!s->n)
		return INCL;
	return s->op == SBX_FILTER_MUST_PASS_ALL ? list_cell_and(s, cell)
						 : list_cell_or(s, cell);
}

static bool list_cell_hint(void *p, const sbx_cell *cell, sbx_filter_hint *h)
{
	flt_list *s = p;
	bool have = false;
	for (size_t i = 0; i < s->n; i++) {
		flt_list_child *c = &s->c[i];
		if (sbx_filter_all_remaining(c->f))
			continue;
		if (s->op == SBX_FILTER_MUST_PASS_ALL && !c->seek)
			continue;
		if (!sbx_filter_cell_hint(c->f, cell, &s->tmp)) {
			if (s->op == SBX_FILTER_MUST_PASS_ONE)
				return false;
			continue;
		}
		hint_merge(s, h, &have);
	}
	return have;
}

/* Members that included the cell transform it in turn (HBASE-18879). */
static void list_transform(void *p, const sbx_cell *in, sbx_cell *out)
{
	flt_list *s = p;
	const sbx_cell *cur = in;
	int k = 0;
	for (size_t i = 0; i < s->n; i++) {
		if (!s->c[i].included)
			continue;
		sbx_filter_transform_cell(s->c[i].f, cur, &s->xform[k]);
		cur = &s->xform[k];
		k ^= 1;
	}
	*out = *cur;
}

static void list_row_cells(void *p, sbx_cell *cells, size_t *n)
{
	flt_list *s = p;
	for (size_t i = 0; i < s->n; i++)
		sbx_filter_row_cells(s->c[i].f, cells, n);
}

static bool list_filter_row(void *p)
{
	flt_list *s = p;
	if (!s->n)
		return false;
	bool and = s->op == SBX_FILTER_MUST_PASS_ALL;
	for (size_t i = 0; i < s->n; i++) {
		bool r = sbx_filter_row(s->c[i].f);
		if (and && r)
			return true;
		if (!and && !r)
			return false;
	}
	return !and;
}

static void list_set_reversed(void *p, bool reversed)
{
	flt_list *s = p;
	s->reversed = reversed;
	for (size_t i = 0; i < s->n; i++) {
		sbx_filter_set_reversed(s->c[i].f, reversed);
		child_clear(&s->c[i]);
	}
}

int sbx_filter_new_list(sbx_filter **out, sbx_filter_list_op op,
			sbx_filter *const *filters, size_t n)
{
	*out = NULL;
	flt_list *s = sbx_calloc(1, sizeof *s);
	if (!s || (op != SBX_FILTER_MUST_PASS_ALL &&
		   op != SBX_FILTER_MUST_PASS_ONE)) {
		for (size_t i = 0; i < n; i++)
			sbx_filter_free(filters[i]);
		free(s);
		return s ? sbx_error_set(SBX_EINVAL,
					 "unknown FilterList operator %d",
					 (int)op)
			 : SBX_ENOMEM_SET();
	}
	s->b.kind = FLT_LIST;
	s->b.free_state = list_free;
	s->op = op;
	sbx_filter_ops ops = {
		.reset = list_reset,
		.filter_all_remaining = list_all_remaining,
		.filter_row_key = list_row_key,
		.filter_cell = list_cell,
		.transform_cell = list_transform,
		.filter_row_cells = list_row_cells,
		.filter_row = list_filter_row,
		.row_hint = list_row_hint,
		.cell_hint = list_cell_hint,
		.set_reversed = list_set_reversed,
	};
	int rc = flt_make(out, ops, &s->b);
	for (size_t i = 0; i < n; i++) {
		if (rc == SBX_OK)
			rc = sbx_filter_list_add(*out, filters[i]);
		else
			sbx_filter_free(filters[i]);
	}
	if (rc) {
		sbx_filter_free(*out);
		*out = NULL;
	}
	return rc;
}

int sbx_filter_list_add(sbx_filter *list, sbx_filter *f)
{
	const flt_base *b = flt_builtin(list);
	if (!b || b->kind != FLT_LIST || !f) {
		sbx_filter_free(f);
		return sbx_error_set(SBX_EINVAL,
				     "sbx_filter_list_add needs a FilterList "
				     "and a filter");
	}
	flt_list *s = flt_state_of(list);
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 4;
		flt_list_child *c = sbx_realloc(s->c, cap * sizeof *c);
		if (!c) {
			sbx_filter_free(f);
			return SBX_ENOMEM_SET();
		}
		s->c = c;
		s->cap = cap;
	}
	flt_list_child *c = &s->c[s->n++];
	memset(c, 0, sizeof *c);
	c->f = f;
	child_clear(c);
	sbx_filter_set_reversed(f, s->reversed);
	if (sbx_filter_has_filter_row(f))
		flt_set_has_filter_row(list, true);
	return SBX_OK;
}

/* ---- SkipFilter, WhileMatchFilter ----------------------------------------- */

static void wrap_free(void *p)
{
	flt_wrap *s = p;
	sbx_filter_free(s->inner);
	free(s);
}

static void skip_reset(void *p)
{
	flt_wrap *s = p;
	sbx_filter_reset(s->inner);
	s->flag = false;
}

/* Unlike HBase (whose SkipFilter hides the row key from the wrapped
 * filter, so SKIP PrefixFilter(..) drops every row), a row the wrapped
 * filter rejects by key is rejected, with its hint. */
static bool skip_row_key(void *p, const uint8_t *row, size_t len)
{
	flt_wrap *s = p;
	if (sbx_filter_row_key(s->inner, row, len))
		s->flag = true;
	return s->flag;
}

static code skip_cell(void *p, const sbx_cell *c)
{
	flt_wrap *s = p;
	code rc = sbx_filter_cell(s->inner, c);
	if (rc != INCL)
		s->flag = true;
	return rc;
}

static bool skip_filter_row(void *p)
{
	flt_wrap *s = p;
	return s->flag || sbx_filter_row(s->inner);
}

static bool wrap_all_remaining(void *p)
{
	flt_wrap *s = p;
	return (s->b.kind == FLT_WHILE_MATCH && s->flag) ||
	       sbx_filter_all_remaining(s->inner);
}

static void wrap_transform(void *p, const sbx_cell *in, sbx_cell *out)
{
	sbx_filter_transform_cell(((flt_wrap *)p)->inner, in, out);
}

static void wrap_row_cells(void *p, sbx_cell *cells, size_t *n)
{
	sbx_filter_row_cells(((flt_wrap *)p)->inner, cells, n);
}

static bool wrap_row_hint(void *p, const uint8_t *row, size_t len,
			  sbx_filter_hint *h)
{
	flt_wrap *s = p;
	if (s->b.kind == FLT_WHILE_MATCH)
		return false; /* the scan is over */
	return sbx_filter_row_hint(s->inner, row, len, h);
}

static bool wrap_cell_hint(void *p, const sbx_cell *c, sbx_filter_hint *h)
{
	return sbx_filter_cell_hint(((flt_wrap *)p)->inner, c, h);
}

static void wrap_set_reversed(void *p, bool reversed)
{
	flt_wrap *s = p;
	sbx_filter_set_reversed(s->inner, reversed);
	s->flag = false;
}

static void while_reset(void *p)
{
	sbx_filter_reset(((flt_wrap *)p)->inner);
}

static bool while_row_key(void *p, const uint8_t *row, size_t len)
{
	flt_wrap *s = p;
	if (wrap_all_remaining(s))
		return true;
	bool v = sbx_filter_row_key(s->inner, row, len);
	s->flag |= v;
	return v;
}

static code while_cell(void *p, const sbx_cell *c)
{
	flt_wrap *s = p;
	code rc = sbx_filter_cell(s->inner, c);
	s->flag |= rc != INCL;
	return rc;
}

static bool while_filter_row(void *p)
{
	flt_wrap *s = p;
	bool v = sbx_filter_row(s->inner);
	s->flag |= v;
	return v;
}

static int wrap_new(sbx_filter **out, flt_kind kind, sbx_filter *inner)
{
	*out = NULL;
	if (!inner)
		return sbx_error_set(SBX_EINVAL, "%s needs a filter to wrap",
				     kind == FLT_SKIP ? "SkipFilter"
						      : "WhileMatchFilter");
	flt_wrap *s = sbx_calloc(1, sizeof *s);
	if (!s) {
		sbx_filter_free(inner);
		return SBX_ENOMEM_SET();
	}
	s->b.kind = kind;
	s->b.free_state = wrap_free;
	s->inner = inner;
	sbx_filter_ops ops = {
		.filter_all_remaining = wrap_all_remaining,
		.transform_cell = wrap_transform,
		.filter_row_cells = wrap_row_cells,
		.row_hint = wrap_row_hint,
		.cell_hint = wrap_cell_hint,
		.set_reversed = wrap_set_reversed,
		.has_filter_row = true,
	};
	if (kind == FLT_SKIP) {
		ops.reset = skip_reset;
		ops.filter_row_key = skip_row_key;
		ops.filter_cell = skip_cell;
		ops.filter_row = skip_filter_row;
	} else {
		ops.reset = while_reset;
		ops.filter_row_key = while_row_key;
		ops.filter_cell = while_cell;
		ops.filter_row = while_filter_row;
	}
	return flt_make(out, ops, &s->b);
}

int sbx_filter_new_skip(sbx_filter **out, sbx_filter *inner)
{
	return wrap_new(out, FLT_SKIP, inner);
}

int sbx_filter_new_while_match(sbx_filter **out, sbx_filter *inner)
{
	return wrap_new(out, FLT_WHILE_MATCH, inner);
}
