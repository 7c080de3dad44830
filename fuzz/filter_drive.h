/*
 * filter_drive.h - shared by the filter fuzz targets: run a parsed filter
 * over a few rows and cells, forward and reversed, through every callback
 * the read path uses, so a filter that parses also gets exercised.
 */
#ifndef SBX_FUZZ_FILTER_DRIVE_H
#define SBX_FUZZ_FILTER_DRIVE_H

#include "saltbox/filter.h"

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

#endif
