/*
 * rules.h - rules both backends and the dispatch layer share (one copy):
 * argument checks, check-and-mutate's comparison, a get as a one-row scan.
 * Each check returns SBX_OK or an error code with the message set.
 */
#ifndef SBX_MODEL_RULES_H
#define SBX_MODEL_RULES_H

#include "saltbox/db.h"
#include "saltbox/table.h"

/* Every function here REQUIRES non-NULL pointer arguments (the caller's
 * values in them are what the checks check), and for byte arguments a
 * pointer unless the length is 0; debug builds assert it. */

/* A row key: non-empty, at most SBX_MAX_ROW_LENGTH bytes. */
int model_check_row(const void *row, size_t row_len);
/* A family description: a valid name and every attribute in range. */
int model_check_family_desc(const sbx_family_desc *f);
/* Read options: time range, column selectors (raw reads select families). */
int model_check_read_opts(const sbx_read_opts *o);
/* Scan options: the read options, bound lengths, limit/batch/caching, and
 * no batch with a filter that needs whole rows. */
int model_check_scan_opts(const sbx_scan_opts *opts);

/* Check-and-mutate's comparison, as HBase does it: `check->value OP
 * stored`; a NULL or empty check value means "absent or empty" (and with
 * NOT_EQUAL "present and non-empty"); a missing cell fails every other
 * operator but NOT_EQUAL. */
bool model_check_passes(const sbx_check *check, bool found,
			const uint8_t *stored, size_t stored_len);

/* A Get as HBase runs it: a scan of [row, row] with the get's options.
 * so borrows row and o's pointers. */
void model_get_scan_opts(sbx_scan_opts *so, const uint8_t *row,
			 size_t row_len, const sbx_read_opts *o);
/* A Get's answer when that scan found no cells: an empty result. */
int model_get_empty_result(sbx_result **out, const uint8_t *row,
			   size_t row_len);

#endif
