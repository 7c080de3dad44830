/*
 * util.c - the small helpers every engine file uses: the clock (the one
 * place the engine reads the time, through the library's seam in
 * common/clock.h, so tests can set it) and RocksDB error strings turned
 * into an SBX_EIO with a message. Nothing here calls back into the engine.
 */
#include "engine/engine.h"

#include "common/clock.h"
#include "common/error.h"

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
