/*
 * trace.h - the operation trace of a database handle (trace.c): a keyviz
 * trace of every operation's row key, for every backend.
 */
#ifndef SBX_TABLE_TRACE_H
#define SBX_TABLE_TRACE_H

#include "model/backend.h"

/* Start appending to `path` (replacing a trace already open), or stop
 * with NULL. SBX_EIO with the reason when the file cannot be opened (the
 * trace already open, if any, stays). */
int table_trace_open(sbx_db *db, const char *path);
void table_trace_close(sbx_db *db);
/* One line `op<TAB>KEY`; nothing when no trace is open or row is empty.
 * `table` (NULL: unknown) lets the trace record the table's region
 * layout before the operation: its boundaries the first time, then the
 * splits and merges since (trace.c). */
void table_trace_op(sbx_db *db, const char *table, const char *op,
		    const void *row, size_t len);

#endif
