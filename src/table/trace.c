/*
 * trace.c - the operation trace of a database handle, whatever its backend:
 * every get and scan, and every write that succeeded, appended as a line
 * `put|get|scan<TAB>KEY` (KEY as HBase prints bytes) for keyviz to replay
 * (`saltbox keyviz simulate -t FILE`). Opened by sbx_db_trace() or
 * sbx_db_options.trace_path; writes are best effort (a full disk loses
 * trace lines, never an operation).
 */
#include "table/trace.h"

#include "common/buf.h"
#include "common/error.h"
#include "saltbox/rowkey.h"

#include <errno.h>
#include <string.h>

int table_trace_open(sbx_db *db, const char *path)
{
	FILE *f = NULL;
	if (path && !(f = fopen(path, "a"))) {
		int err = errno;
		return sbx_error_set(SBX_EIO, "cannot open trace file '%s': %s",
				     path, strerror(err));
	}
	table_trace_close(db);
	if (f) {
		pthread_mutex_init(&db->trace_lock, NULL);
		db->trace = f;
	}
	return SBX_OK;
}

void table_trace_close(sbx_db *db)
{
	if (!db->trace)
		return;
	fclose(db->trace);
	db->trace = NULL;
	pthread_mutex_destroy(&db->trace_lock);
}

void table_trace_op(sbx_db *db, const char *op, const void *row, size_t len)
{
	if (!db->trace || !len)
		return;
	sbx_buf line = {0};
	if (!sbx_buf_printf(&line, "%s\t", op) &&
	    !sbx_key_to_binary_string(&line, row, len) &&
	    !sbx_buf_push(&line, '\n')) {
		pthread_mutex_lock(&db->trace_lock);
		fwrite(line.data, 1, line.len, db->trace); /* best effort */
		pthread_mutex_unlock(&db->trace_lock);
	}
	sbx_buf_free(&line);
}
