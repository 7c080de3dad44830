/*
 * hook.c - the filter object: a vtable of HBase Filter callbacks plus the
 * state they act on. NULL callbacks take HBase's FilterBase defaults.
 */
#include "common/alloc.h"
#include "common/error.h"
#include "filter/filter_int.h"
#include "saltbox/filter.h"

#include <stdlib.h>

struct sbx_filter {
	sbx_filter_ops ops;
	void *state;
};

int sbx_filter_new(sbx_filter **out, const sbx_filter_ops *ops, void *state)
{
	*out = NULL;
	sbx_filter *f = sbx_calloc(1, sizeof *f);
	if (!f) {
		if (ops && ops->destroy)
			ops->destroy(state);
		return SBX_ENOMEM_SET();
	}
	if (ops)
		f->ops = *ops;
	f->state = state;
	*out = f;
	return SBX_OK;
}

void sbx_filter_free(sbx_filter *f)
{
	if (!f)
		return;
	if (f->ops.destroy)
		f->ops.destroy(f->state);
	free(f);
}

void sbx_filter_reset(sbx_filter *f)
{
	if (f->ops.reset)
		f->ops.reset(f->state);
}

bool sbx_filter_all_remaining(sbx_filter *f)
{
	return f->ops.filter_all_remaining &&
	       f->ops.filter_all_remaining(f->state);
}

bool sbx_filter_row_key(sbx_filter *f, const uint8_t *row, size_t row_len)
{
	return f->ops.filter_row_key &&
	       f->ops.filter_row_key(f->state, row, row_len);
}

sbx_filter_code sbx_filter_cell(sbx_filter *f, const sbx_cell *cell)
{
	return f->ops.filter_cell ? f->ops.filter_cell(f->state, cell)
				  : SBX_FILTER_INCLUDE;
}

void sbx_filter_transform_cell(sbx_filter *f, const sbx_cell *in, sbx_cell *out)
{
	*out = *in;
	if (f->ops.transform_cell)
		f->ops.transform_cell(f->state, in, out);
}

void sbx_filter_row_cells(sbx_filter *f, sbx_cell *cells, size_t *n)
{
	if (f->ops.filter_row_cells)
		f->ops.filter_row_cells(f->state, cells, n);
}

bool sbx_filter_row(sbx_filter *f)
{
	return f->ops.filter_row && f->ops.filter_row(f->state);
}

bool sbx_filter_row_hint(sbx_filter *f, const uint8_t *row, size_t row_len,
			 sbx_filter_hint *hint)
{
	return f->ops.row_hint && f->ops.row_hint(f->state, row, row_len, hint);
}

bool sbx_filter_cell_hint(sbx_filter *f, const sbx_cell *cell,
			  sbx_filter_hint *hint)
{
	return f->ops.cell_hint && f->ops.cell_hint(f->state, cell, hint);
}

void sbx_filter_set_reversed(sbx_filter *f, bool reversed)
{
	if (f->ops.set_reversed)
		f->ops.set_reversed(f->state, reversed);
}

bool sbx_filter_has_filter_row(const sbx_filter *f)
{
	return f->ops.has_filter_row;
}

/* Internal (filter_int.h): how built-in filters recognise each other. */
void *flt_state_of(const sbx_filter *f)
{
	assert(f);
	return f->state;
}

const sbx_filter_ops *flt_ops_of(const sbx_filter *f)
{
	assert(f);
	return &f->ops;
}

void flt_set_has_filter_row(sbx_filter *f, bool has_filter_row)
{
	assert(f);
	f->ops.has_filter_row = has_filter_row;
}
