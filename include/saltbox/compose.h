/*
 * saltbox/compose.h - building blocks for layers built over the table API
 * (transactions, the datastore): read back what a mutation holds and make
 * a result from cells (an iterator of one's own becomes an sbx_scanner
 * with sbx_scanner_new, saltbox/table.h). With these a layer needs nothing
 * but the public headers, so it runs unchanged on every backend.
 *
 * Thread-safety: as the objects they touch (a mutation or result belongs
 * to one thread at a time).
 */
#ifndef SALTBOX_COMPOSE_H
#define SALTBOX_COMPOSE_H

#include "saltbox/table.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- reading a mutation back ----------------------------------------------
 */

/* What one operation of a mutation is, in the order it was added. */
typedef enum sbx_mutation_kind {
	SBX_MUTATION_PUT = 1,
	SBX_MUTATION_DELETE,	 /* delete_type says which marker */
	SBX_MUTATION_DELETE_ROW, /* sbx_mutation_delete_row */
	SBX_MUTATION_INCREMENT,
	SBX_MUTATION_APPEND,
} sbx_mutation_kind;

/* A read-only view of one operation. The pointers belong to the mutation
 * and stay valid until it is changed or freed. */
typedef struct sbx_mutation_op {
	sbx_mutation_kind kind;
	sbx_cell_type delete_type; /* SBX_MUTATION_DELETE only */
	const char *family;	   /* NUL-terminated; NULL for DELETE_ROW */
	const uint8_t *qualifier;
	size_t qualifier_len;
	int64_t ts;	      /* SBX_LATEST_TIMESTAMP = not given */
	const uint8_t *value; /* PUT and APPEND */
	size_t value_len;
	int64_t delta; /* INCREMENT */
} sbx_mutation_op;

/* The row the mutation changes (owned by the mutation). Cannot fail. */
SBX_API const uint8_t *sbx_mutation_row(const sbx_mutation *m, size_t *len);
/* Number of operations (0 for NULL). Cannot fail. */
SBX_API size_t sbx_mutation_size(const sbx_mutation *m);
/* Operation i (0 <= i < size) into *out. Errors: SBX_EINVAL if i is out
 * of range (*out is zeroed). */
SBX_API int sbx_mutation_op_at(sbx_mutation_op *out, const sbx_mutation *m,
			       size_t i);
/* The durability set with sbx_mutation_set_durability. Cannot fail. */
SBX_API sbx_durability sbx_mutation_durability(const sbx_mutation *m);

/* ---- making a result ---------------------------------------------------- */

/*
 * A new result for `row` holding copies of the n cells (their row fields
 * are ignored: every cell gets `row`). The caller passes them in HBase order
 * (family, qualifier, timestamp descending); *out is owned by the caller:
 * sbx_result_free(). n = 0 makes an empty result, as a get of a missing row
 * returns it. Errors: only SBX_ENOMEM.
 */
SBX_API int sbx_result_from_cells(sbx_result **out, const void *row,
				  size_t row_len, const sbx_cell *cells,
				  size_t n);

#ifdef __cplusplus
}
#endif
#endif
