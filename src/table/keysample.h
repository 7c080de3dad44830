/* keysample.h - per-table key samplers of a database handle (keysample.c):
 * every access's row key, for the live heatmap by key (internal). */
#ifndef SBX_TABLE_KEYSAMPLE_H
#define SBX_TABLE_KEYSAMPLE_H

#include "common/clock.h"
#include "model/backend.h"
#include "saltbox/hotspot.h"

/* The sampler of `table` (created on first use), or NULL when sampling is
 * off, the table name is too long, or KEYSAMPLE_MAX_TABLES tables are
 * sampled already. Thread-safe. */
sbx_keysampler *table_keysampler(sbx_db *db, const char *table);
/* Free every sampler of db (sbx_db_close). */
void table_keysamples_free(sbx_db *db);

/* One access; nothing when s is NULL or the row empty. */
static inline void table_keysample(sbx_keysampler *s, bool write,
				   const void *row, size_t len, uint64_t bytes)
{
	if (s && len)
		sbx_keysampler_record(s, sbx_clock_coarse_ms(), row, len,
				      write, bytes);
}

#endif
