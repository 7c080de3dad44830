/*
 * fuzz_filter_json.c - libFuzzer target for HBase REST filter JSON:
 * any bytes either parse or fail with SBX_EPARSE (never crash or leak); a
 * filter that parses survives JSON round trip and runs over a few cells.
 */
#include "filter_drive.h"
#include "saltbox/filter.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	sbx_filter *f = NULL;
	int rc = sbx_filter_from_json(&f, (const char *)data, size);
	if (rc != SBX_OK) {
		if (rc != SBX_EPARSE || f != NULL)
			abort();
		return 0;
	}
	sbx_buf json = {0};
	if (sbx_filter_to_json(&json, f) == SBX_OK) {
		sbx_filter *g = NULL;
		if (sbx_filter_from_json(&g, (const char *)json.data,
					 json.len) != SBX_OK)
			abort(); /* what we write we must read */
		sbx_filter_free(g);
	}
	sbx_buf_free(&json);
	drive(f);
	sbx_filter_free(f);
	return 0;
}
