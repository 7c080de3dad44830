/*
 * util.c - the small helpers every engine file uses: the clock (the one
 * place the engine reads the time, through the library's seam in
 * common/clock.h, so tests can set it), RocksDB error strings turned into
 * an SBX_EIO with a message, and the free-space floor every write passes
 * (sbx_db_options.min_free_bytes). Nothing here calls back into the
 * engine.
 */
#include "engine/engine.h"

#include "common/clock.h"
#include "common/error.h"

#include <inttypes.h>
#include <stdlib.h>
#include <sys/statvfs.h>

int64_t engine_now_ms(void)
{
	return sbx_clock_now_ms();
}

int engine_space_check(engine *e, size_t bytes)
{
	uint64_t floor = e->opts.min_free_bytes;
	if (!floor)
		return SBX_OK;
	int64_t now = sbx_clock_now_ms();
	uint64_t written = atomic_load(&e->space_written);
	uint64_t free_b = atomic_load(&e->space_free);
	/* read the file system again when the reading is old, much has been
	 * written since, or this write would be refused on it (space may
	 * have been freed meanwhile) */
	if (now - atomic_load(&e->space_checked_ms) >= 100 ||
	    written + bytes >= floor / 8 ||
	    free_b < written + floor + bytes) {
		struct statvfs sv;
		if (statvfs(e->path, &sv) == 0) {
			free_b = (uint64_t)sv.f_bavail * sv.f_frsize;
			atomic_store(&e->space_free, free_b);
			atomic_store(&e->space_checked_ms, now);
			atomic_store(&e->space_written, 0);
			written = 0;
		} /* else: keep the last reading */
	}
	uint64_t left = free_b > written ? free_b - written : 0;
	if (left >= floor + bytes) {
		atomic_fetch_add(&e->space_written, bytes);
		return SBX_OK;
	}
	return sbx_error_set(SBX_EIO,
			     "disk full: %" PRIu64 " bytes free under '%s', "
			     "below the floor of %" PRIu64 " "
			     "(sbx_db_options.min_free_bytes); writes are "
			     "refused until space is freed, reads go on",
			     left, e->path, floor);
}

int engine_rocks_error(char *err, const char *what)
{
	int rc = sbx_error_set(SBX_EIO, "%s: %s", what, err ? err : "?");
	free(err);
	return rc;
}
