/*
 * saltbox/salted.h - reading tables whose row keys follow a key design
 * (saltbox/rowkey.h), through the table API on any backend.
 *
 * A salted design spreads rows over buckets, so a range of the logical key
 * order lives in one range per bucket. sbx_scanner_open_plan opens one
 * scanner per range of a plan and merges their rows back into the order of
 * the key without its salt (as Phoenix's MergeSortRowKeyResultIterator), so
 * a salted table reads as if it were not salted.
 *
 * Thread-safety: as sbx_scanner.
 */
#ifndef SALTBOX_SALTED_H
#define SALTBOX_SALTED_H

#include "saltbox/regions.h"
#include "saltbox/rowkey.h"
#include "saltbox/table.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Scan the rows of `plan` (from sbx_keydesign_plan) merged into unsalted
 * key order: ascending, or descending when opts->reversed. From opts the
 * read options, reversed, limit (rows of the merged result), batch and
 * caching apply; start/stop rows are taken from the plan's ranges. The
 * plan is copied; opts->read.filter stays borrowed (a filter holds per-scan
 * state, so it must not be given here: SBX_EINVAL — filter each range
 * yourself with separate filters if needed).
 * Errors: SBX_EINVAL (plan NULL or without ranges, a filter given), what
 * sbx_scanner_open and sbx_scanner_next return for any range (each range's
 * scanner is opened and its first rows read here). *out is NULL on failure.
 */
SBX_API int sbx_scanner_open_plan(sbx_scanner **out, sbx_table *t,
			  const sbx_keyplan *plan, const sbx_scan_opts *opts);

/* Get the row of a design's record: the key (salt and hashes included) is
 * rebuilt from the field values, then read. Errors: as
 * sbx_keydesign_encode, then as sbx_table_get; *out is NULL on failure. */
SBX_API int sbx_table_get_record(sbx_result **out, sbx_table *t,
			 const sbx_keydesign *d, const sbx_keyvalue *values,
			 size_t n, const sbx_read_opts *opts);

/* Split keys that give each salt bucket of a salted design its own region
 * (the start of buckets 1..N-1, as Phoenix pre-splits SALT_BUCKETS), for
 * sbx_table_create_presplit. Errors: SBX_EINVAL (the design has no salt of
 * 2 or more buckets); *out is empty on failure. */
SBX_API int sbx_keydesign_split_keys(sbx_split_keys *out, const sbx_keydesign *d);

#ifdef __cplusplus
}
#endif
#endif
