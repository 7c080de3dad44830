/*
 * fuzz_filter_parse.c - libFuzzer target for the HBase filter language:
 * any bytes either parse or fail with SBX_EPARSE (never crash or leak); a
 * filter that parses survives JSON round trip and runs over a few cells.
 */
#include "saltbox/filter.h"

#include <stdlib.h>
#include <string.h>

static void drive(sbx_filter *f)
{
	static const char *const rows[] = {"a", "ab", "abc", "b", "r1", "zz"};
	static const char *const quals[] = {"", "a", "col", "q", "z"};
	sbx_filter_hint h = {{0}, {0}};
	for (int rev = 0; rev < 2; rev++) {
		sbx_filter_set_reversed(f, rev);
		for (size_t r = 0; r < 6; r++) {
			if (sbx_filter_all_remaining(f))
				break;
			const char *row = rows[rev ? 5 - r : r];
			size_t rl = strlen(row);
			sbx_filter_reset(f);
			if (sbx_filter_row_key(f, (const uint8_t *)row, rl)) {
				sbx_filter_row_hint(f, (const uint8_t *)row, rl,
						    &h);
				continue;
			}
			sbx_cell cells[5];
			size_t n = 0;
			for (size_t q = 0; q < 5; q++) {
				sbx_cell c = {(const uint8_t *)row, rl, "f", 1,
					      (const uint8_t *)quals[q],
					      strlen(quals[q]), 10 - (int64_t)q,
					      SBX_CELL_PUT,
					      (const uint8_t *)"val", 3};
				sbx_filter_code code = sbx_filter_cell(f, &c);
				if (code == SBX_FILTER_SEEK_NEXT_USING_HINT)
					sbx_filter_cell_hint(f, &c, &h);
				if (code <= SBX_FILTER_INCLUDE_AND_SEEK_NEXT_ROW)
					sbx_filter_transform_cell(f, &c,
								  &cells[n++]);
			}
			sbx_filter_row_cells(f, cells, &n);
			if (n)
				sbx_filter_row(f);
		}
	}
	sbx_buf_free(&h.row);
	sbx_buf_free(&h.qualifier);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	sbx_filter *f = NULL;
	size_t pos = 0;
	int rc = sbx_filter_parse(&f, (const char *)data, size, &pos);
	if (rc != SBX_OK) {
		if (rc != SBX_EPARSE || f != NULL || pos > size)
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
