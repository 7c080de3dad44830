/*
 * util.c - the small helpers every engine file uses: the clock (the one
 * place the engine reads the time, through the library's seam in
 * common/clock.h, so tests can set it), RocksDB error strings turned into
 * an SBX_EIO with a message, and the optional operation trace. Nothing here
 * calls back into the engine.
 */
#include "engine/engine.h"

#include "common/clock.h"
#include "common/error.h"
#include "saltbox/rowkey.h"

#include <stdlib.h>

int64_t engine_now_ms(void)
{
	return sbx_clock_now_ms();
}

int engine_rocks_error(char *err, const char *what)
{
	int rc = sbx_error_set(SBX_EIO, "%s: %s", what, err ? err : "?");
	free(err);
	return rc;
}

void engine_trace(engine *e, const char *op, const uint8_t *row, size_t len)
{
	if (!e->trace || !len)
		return;
	sbx_buf line = {0};
	if (!sbx_buf_printf(&line, "%s\t", op) &&
	    !sbx_key_to_binary_string(&line, row, len) &&
	    !sbx_buf_push(&line, '\n')) {
		pthread_mutex_lock(&e->trace_lock);
		fwrite(line.data, 1, line.len, e->trace); /* best effort */
		pthread_mutex_unlock(&e->trace_lock);
	}
	sbx_buf_free(&line);
}
