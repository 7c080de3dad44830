/*
 * mutation.h - the in-memory form of sbx_mutation shared by both backends:
 * one row and a list of operations whose byte arguments live in one arena.
 */
#ifndef SBX_MODEL_MUTATION_H
#define SBX_MODEL_MUTATION_H

#include "common/buf.h"
#include "saltbox/table.h"

#include <assert.h>

typedef enum mut_kind {
	MUT_PUT,
	MUT_DELETE,     /* del_type says which marker */
	MUT_DELETE_ROW, /* DeleteFamily in every family */
	MUT_INCREMENT,
	MUT_APPEND,
} mut_kind;

typedef struct mut_op {
	mut_kind kind;
	sbx_cell_type del_type;
	size_t family_off, family_len; /* NUL-terminated in the arena */
	size_t qual_off, qual_len;
	size_t value_off, value_len;
	int64_t ts;
	int64_t delta;
} mut_op;

struct sbx_mutation {
	sbx_buf arena; /* row at offset 0, then op arguments */
	size_t row_len;
	sbx_durability durability;
	mut_op *ops;
	size_t nops, cap;
	bool has_rmw; /* increments, appends or latest-version deletes */
};

/* The bytes of a mutation's row and of its operations' arguments.
 * REQUIRES: m != NULL; op is one of m's operations (its bytes lie in m's
 * arena). */
static inline const uint8_t *mut_row(const sbx_mutation *m)
{
	assert(m && m->row_len <= m->arena.len);
	return m->arena.data;
}
static inline const char *mut_family(const sbx_mutation *m, const mut_op *op)
{
	assert(m && op && op->family_off + op->family_len < m->arena.len);
	return (const char *)m->arena.data + op->family_off;
}
static inline const uint8_t *mut_qual(const sbx_mutation *m, const mut_op *op)
{
	assert(m && op && op->qual_off + op->qual_len <= m->arena.len);
	return m->arena.data + op->qual_off;
}
static inline const uint8_t *mut_value(const sbx_mutation *m, const mut_op *op)
{
	assert(m && op && op->value_off + op->value_len <= m->arena.len);
	return m->arena.data + op->value_off;
}

#endif
