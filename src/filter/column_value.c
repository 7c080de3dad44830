/*
 * column_value.c - filters that decide on one reference column's value:
 * SingleColumnValueFilter (keep or drop the whole row), its Exclude variant
 * (drops the tested column from the row), ColumnValueFilter (only the
 * matching column) and DependentColumnFilter (cells stamped like the
 * reference column).
 */
#include "common/alloc.h"
#include "filter/filter_int.h"

static void column_value_free(void *p)
{
	flt_column_value *s = p;
	sbx_comparator_free(s->cmp);
	free(s->family.data);
	free(s->qualifier.data);
	free(s->stamps);
	free(s);
}

static bool is_ref_column(const flt_column_value *s, const sbx_cell *c)
{
	return flt_cell_is_column(c, (const char *)s->family.data,
				  s->family.len, s->qualifier.data,
				  s->qualifier.len);
}

static void cv_reset(void *p)
{
	flt_column_value *s = p;
	s->found = s->matched = false;
	s->nstamps = 0;
}

/* SingleColumnValueFilter.filterCell. */
static sbx_filter_code scv_cell(void *p, const sbx_cell *c)
{
	flt_column_value *s = p;
	if (s->matched)
		return SBX_FILTER_INCLUDE;
	if (s->latest_version_only && s->found)
		return SBX_FILTER_NEXT_ROW;
	if (!is_ref_column(s, c))
		return SBX_FILTER_INCLUDE;
	s->found = true;
	if (flt_cmp_rejects(s->op, s->cmp, c->value, c->value_len))
		return s->latest_version_only ? SBX_FILTER_NEXT_ROW
					      : SBX_FILTER_INCLUDE;
	s->matched = true;
	return SBX_FILTER_INCLUDE;
}

static bool scv_filter_row(void *p)
{
	flt_column_value *s = p;
	return s->found ? !s->matched : s->filter_if_missing;
}

static void scv_exclude_row_cells(void *p, sbx_cell *cells, size_t *n)
{
	flt_column_value *s = p;
	size_t k = 0;
	for (size_t i = 0; i < *n; i++)
		if (!is_ref_column(s, &cells[i]))
			cells[k++] = cells[i];
	*n = k;
}

/* ColumnValueFilter.filterCell. */
static sbx_filter_code column_value_cell(void *p, const sbx_cell *c)
{
	flt_column_value *s = p;
	if (!is_ref_column(s, c))
		return s->found ? SBX_FILTER_NEXT_ROW : SBX_FILTER_NEXT_COL;
	s->found = true;
	return flt_cmp_rejects(s->op, s->cmp, c->value, c->value_len)
		       ? SBX_FILTER_SKIP
		       : SBX_FILTER_INCLUDE;
}

/* DependentColumnFilter.filterCell: remember the reference stamps; the
 * other cells are judged in filter_row_cells once the row is complete. */
static sbx_filter_code dependent_cell(void *p, const sbx_cell *c)
{
	flt_column_value *s = p;
	if (!is_ref_column(s, c))
		return SBX_FILTER_INCLUDE;
	if (s->cmp && flt_cmp_rejects(s->op, s->cmp, c->value, c->value_len))
		return SBX_FILTER_SKIP;
	if (s->nstamps == s->stamps_cap) {
		size_t cap = s->stamps_cap ? s->stamps_cap * 2 : 8;
		int64_t *n = sbx_realloc(s->stamps, cap * sizeof *n);
		if (!n)
			return SBX_FILTER_SKIP; /* out of memory: drop it */
		s->stamps = n;
		s->stamps_cap = cap;
	}
	s->stamps[s->nstamps++] = c->timestamp;
	return s->drop_dependent ? SBX_FILTER_SKIP : SBX_FILTER_INCLUDE;
}

static void dependent_row_cells(void *p, sbx_cell *cells, size_t *n)
{
	flt_column_value *s = p;
	size_t k = 0;
	for (size_t i = 0; i < *n; i++) {
		bool keep = false;
		for (size_t j = 0; j < s->nstamps && !keep; j++)
			keep = s->stamps[j] == cells[i].timestamp;
		if (keep)
			cells[k++] = cells[i];
	}
	*n = k;
}

static int column_value_new(sbx_filter **out, flt_kind kind,
			    const char *family, const void *qualifier,
			    size_t qualifier_len, sbx_compare_op op,
			    sbx_comparator *cmp, flt_column_value **state)
{
	*out = NULL;
	if ((!cmp && kind != FLT_DEPENDENT_COLUMN) || !family) {
		sbx_comparator_free(cmp);
		return sbx_error_set(SBX_EINVAL,
				     "filter needs a family and a comparator");
	}
	if ((unsigned)op > SBX_CMP_NO_OP) {
		sbx_comparator_free(cmp);
		return sbx_error_set(SBX_EINVAL, "unknown compare op %d",
				     (int)op);
	}
	flt_column_value *s = sbx_calloc(1, sizeof *s);
	if (!s) {
		sbx_comparator_free(cmp);
		return SBX_ENOMEM_SET();
	}
	s->b.kind = kind;
	s->b.free_state = column_value_free;
	s->op = op;
	s->cmp = cmp;
	static const uint8_t empty[1];
	if (flt_bytes_set(&s->family, family, strlen(family)) ||
	    flt_bytes_set(&s->qualifier, qualifier ? qualifier : empty,
			  qualifier_len)) {
		column_value_free(s);
		return SBX_ENOMEM;
	}
	*state = s;
	return SBX_OK;
}

static int scv_new(sbx_filter **out, flt_kind kind, const char *family,
		   const void *qualifier, size_t qualifier_len,
		   sbx_compare_op op, sbx_comparator *cmp,
		   bool filter_if_missing, bool latest_version_only)
{
	flt_column_value *s = NULL;
	int rc = column_value_new(out, kind, family, qualifier, qualifier_len,
				  op, cmp, &s);
	if (rc)
		return rc;
	s->filter_if_missing = filter_if_missing;
	s->latest_version_only = latest_version_only;
	sbx_filter_ops ops = {
		.reset = cv_reset,
		.filter_cell = scv_cell,
		.filter_row = scv_filter_row,
		.has_filter_row = true,
	};
	if (kind == FLT_SINGLE_COLUMN_VALUE_EXCLUDE)
		ops.filter_row_cells = scv_exclude_row_cells;
	return flt_make(out, ops, &s->b);
}

int sbx_filter_new_single_column_value(sbx_filter **out, const char *family,
				       const void *qualifier,
				       size_t qualifier_len, sbx_compare_op op,
				       sbx_comparator *cmp,
				       bool filter_if_missing,
				       bool latest_version_only)
{
	return scv_new(out, FLT_SINGLE_COLUMN_VALUE, family, qualifier,
		       qualifier_len, op, cmp, filter_if_missing,
		       latest_version_only);
}

int sbx_filter_new_single_column_value_exclude(
	sbx_filter **out, const char *family, const void *qualifier,
	size_t qualifier_len, sbx_compare_op op, sbx_comparator *cmp,
	bool filter_if_missing, bool latest_version_only)
{
	return scv_new(out, FLT_SINGLE_COLUMN_VALUE_EXCLUDE, family, qualifier,
		       qualifier_len, op, cmp, filter_if_missing,
		       latest_version_only);
}

int sbx_filter_new_column_value(sbx_filter **out, const char *family,
				const void *qualifier, size_t qualifier_len,
				sbx_compare_op op, sbx_comparator *cmp)
{
	flt_column_value *s = NULL;
	int rc = column_value_new(out, FLT_COLUMN_VALUE, family, qualifier,
				  qualifier_len, op, cmp, &s);
	if (rc)
		return rc;
	sbx_filter_ops ops = {
		.reset = cv_reset,
		.filter_cell = column_value_cell,
	};
	return flt_make(out, ops, &s->b);
}

int sbx_filter_new_dependent_column(sbx_filter **out, const char *family,
				    const void *qualifier,
				    size_t qualifier_len, bool drop_dependent,
				    sbx_compare_op op, sbx_comparator *cmp)
{
	flt_column_value *s = NULL;
	int rc = column_value_new(out, FLT_DEPENDENT_COLUMN, family, qualifier,
				  qualifier_len, op, cmp, &s);
	if (rc)
		return rc;
	s->drop_dependent = drop_dependent;
	sbx_filter_ops ops = {
		.reset = cv_reset,
		.filter_cell = dependent_cell,
		.filter_row_cells = dependent_row_cells,
		.has_filter_row = true,
	};
	return flt_make(out, ops, &s->b);
}
