/*
 * compose.c - the building blocks of include/saltbox/compose.h: a mutation's
 * operations read back and a result made from cells. With them (and
 * sbx_scanner_new) layers above the table API (transactions, the
 * datastore) use only public headers.
 */
#include "saltbox/compose.h"

#include "common/error.h"
#include "model/mutation.h"
#include "model/result.h"

#include <string.h>

const uint8_t *sbx_mutation_row(const sbx_mutation *m, size_t *len)
{
	*len = m->row_len;
	return mut_row(m);
}

size_t sbx_mutation_size(const sbx_mutation *m)
{
	return m ? m->nops : 0;
}

sbx_durability sbx_mutation_durability(const sbx_mutation *m)
{
	return m->durability;
}

static sbx_mutation_kind kind_of(mut_kind k)
{
	switch (k) {
	case MUT_PUT:
		return SBX_MUTATION_PUT;
	case MUT_DELETE:
		return SBX_MUTATION_DELETE;
	case MUT_DELETE_ROW:
		return SBX_MUTATION_DELETE_ROW;
	case MUT_INCREMENT:
		return SBX_MUTATION_INCREMENT;
	case MUT_APPEND:
		break;
	}
	return SBX_MUTATION_APPEND;
}

int sbx_mutation_op_at(sbx_mutation_op *out, const sbx_mutation *m, size_t i)
{
	memset(out, 0, sizeof *out);
	if (!m || i >= m->nops)
		return sbx_error_set(SBX_EINVAL,
				     "mutation operation %zu out of range", i);
	const mut_op *op = &m->ops[i];
	out->kind = kind_of(op->kind);
	out->delete_type = op->del_type;
	out->family = op->kind == MUT_DELETE_ROW ? NULL : mut_family(m, op);
	out->qualifier = mut_qual(m, op);
	out->qualifier_len = op->qual_len;
	out->ts = op->ts;
	out->value = mut_value(m, op);
	out->value_len = op->value_len;
	out->delta = op->delta;
	return SBX_OK;
}

int sbx_result_from_cells(sbx_result **out, const void *row, size_t row_len,
			  const sbx_cell *cells, size_t n)
{
	*out = NULL;
	sbx_result *r = NULL; /* result_new_sized leaves it unset on failure */
	size_t bytes = 0;
	for (size_t i = 0; i < n; i++)
		bytes += cells[i].family_len + cells[i].qualifier_len +
			 cells[i].value_len;
	int rc = result_new_sized(&r, row, row_len, bytes, n);
	for (size_t i = 0; rc == SBX_OK && i < n; i++) {
		const sbx_cell *c = &cells[i];
		rc = result_add(r, c->family, c->family_len, c->qualifier,
				c->qualifier_len, c->timestamp, c->type,
				c->value, c->value_len);
	}
	if (rc == SBX_OK)
		rc = result_finish(r);
	if (rc) {
		sbx_result_free(r);
		return rc;
	}
	*out = r;
	return SBX_OK;
}
