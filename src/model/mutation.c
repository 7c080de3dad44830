/*
 * mutation.c - the mutation builder (HBase's Put/Delete/Increment/Append
 * on one row): operations are recorded in one arena, checked as they are
 * added, and applied later by a backend as one atomic row change.
 */
#include "model/mutation.h"
#include "common/alloc.h"
#include "common/error.h"
#include "model/names.h"
#include "model/rules.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

int sbx_mutation_new(sbx_mutation **out, const void *row, size_t row_len)
{
	*out = NULL;
	int rc = model_check_row(row, row_len);
	if (rc)
		return rc;
	sbx_mutation *m = sbx_calloc(1, sizeof *m);
	/* room for the row and a few cells up front: regrowing from the
	 * buffer's 64 bytes costs a realloc per doubling */
	if (!m || sbx_buf_reserve(&m->arena, row_len + 512) ||
	    sbx_buf_append(&m->arena, row, row_len)) {
		if (m)
			sbx_buf_free(&m->arena);
		free(m);
		return SBX_ENOMEM_SET();
	}
	m->row_len = row_len;
	*out = m;
	return SBX_OK;
}

void sbx_mutation_free(sbx_mutation *m)
{
	if (!m)
		return;
	sbx_buf_free(&m->arena);
	free(m->ops);
	free(m);
}

void sbx_mutation_set_durability(sbx_mutation *m, sbx_durability d)
{
	assert(m); /* REQUIRES: a mutation */
	m->durability = d;
}

/* Record one operation. REQUIRES: m != NULL with its ops within cap
 * (every builder call; the caller's arguments are checked here). */
static int add_op(sbx_mutation *m, mut_kind kind, const char *family,
		  const void *qual, size_t qual_len, const void *value,
		  size_t value_len, int64_t ts)
{
	assert(m && m->nops <= m->cap);
	if (family) {
		int rc = names_check_family(family);
		if (rc)
			return rc;
	}
	if (qual_len && !qual)
		return sbx_error_set(SBX_EINVAL, "qualifier is NULL");
	if (value_len && !value)
		return sbx_error_set(SBX_EINVAL, "value is NULL");
	if (ts < 0)
		return sbx_error_set(SBX_EINVAL,
				     "timestamp %lld is negative",
				     (long long)ts);
	if (m->nops == m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 4;
		mut_op *ops = sbx_realloc(m->ops, cap * sizeof *ops);
		if (!ops)
			return SBX_ENOMEM_SET();
		m->ops = ops;
		m->cap = cap;
	}
	mut_op op = {.kind = kind, .ts = ts};
	size_t mark = m->arena.len;
	size_t fl = family ? strlen(family) : 0;
	op.family_off = m->arena.len;
	op.family_len = fl;
	if (sbx_buf_append(&m->arena, family ? family : "", fl) ||
	    sbx_buf_push(&m->arena, 0))
		goto nomem;
	op.qual_off = m->arena.len;
	op.qual_len = qual_len;
	if (sbx_buf_append(&m->arena, qual, qual_len))
		goto nomem;
	op.value_off = m->arena.len;
	op.value_len = value_len;
	if (sbx_buf_append(&m->arena, value, value_len))
		goto nomem;
	m->ops[m->nops++] = op;
	return SBX_OK;
nomem:
	m->arena.len = mark;
	return SBX_ENOMEM_SET();
}

int sbx_mutation_put(sbx_mutation *m, const char *family, const void *qualifier,
		     size_t qualifier_len, int64_t ts, const void *value,
		     size_t value_len)
{
	if (!family)
		return sbx_error_set(SBX_EINVAL, "put needs a family");
	return add_op(m, MUT_PUT, family, qualifier, qualifier_len, value,
		      value_len, ts);
}

int sbx_mutation_delete(sbx_mutation *m, sbx_cell_type type,
			const char *family, const void *qualifier,
			size_t qualifier_len, int64_t ts)
{
	if (!family)
		return sbx_error_set(SBX_EINVAL, "delete needs a family");
	switch (type) {
	case SBX_CELL_DELETE:
	case SBX_CELL_DELETE_COLUMN:
		break;
	case SBX_CELL_DELETE_FAMILY:
		qualifier_len = 0;
		break;
	case SBX_CELL_DELETE_FAMILY_VERSION:
		qualifier_len = 0;
		if (ts == SBX_LATEST_TIMESTAMP)
			return sbx_error_set(SBX_EINVAL,
					     "DeleteFamilyVersion needs an "
					     "explicit timestamp");
		break;
	default:
		return sbx_error_set(SBX_EINVAL, "%d is not a delete type",
				     (int)type);
	}
	int rc = add_op(m, MUT_DELETE, family, qualifier, qualifier_len, NULL,
			0, ts);
	if (rc)
		return rc;
	m->ops[m->nops - 1].del_type = type;
	if (type == SBX_CELL_DELETE && ts == SBX_LATEST_TIMESTAMP)
		m->has_rmw = true;
	return SBX_OK;
}

int sbx_mutation_delete_row(sbx_mutation *m, int64_t ts)
{
	return add_op(m, MUT_DELETE_ROW, NULL, NULL, 0, NULL, 0, ts);
}

int sbx_mutation_increment(sbx_mutation *m, const char *family,
			   const void *qualifier, size_t qualifier_len,
			   int64_t delta)
{
	if (!family)
		return sbx_error_set(SBX_EINVAL, "increment needs a family");
	int rc = add_op(m, MUT_INCREMENT, family, qualifier, qualifier_len,
			NULL, 0, SBX_LATEST_TIMESTAMP);
	if (rc)
		return rc;
	m->ops[m->nops - 1].delta = delta;
	m->has_rmw = true;
	return SBX_OK;
}

int sbx_mutation_append(sbx_mutation *m, const char *family,
			const void *qualifier, size_t qualifier_len,
			const void *value, size_t value_len)
{
	if (!family)
		return sbx_error_set(SBX_EINVAL, "append needs a family");
	int rc = add_op(m, MUT_APPEND, family, qualifier, qualifier_len, value,
			value_len, SBX_LATEST_TIMESTAMP);
	if (!rc)
		m->has_rmw = true;
	return rc;
}
