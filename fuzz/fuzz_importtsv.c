/*
 * fuzz_importtsv.c - libFuzzer target for `saltbox importtsv`'s input
 * parsing (io/importtsv.h): the first line is an importtsv.columns spec,
 * the rest are data lines. Any bytes either fail the spec with a reason,
 * or split each line into exactly the columns (or count it a bad line);
 * fields stay inside the line, the row key is never empty, timestamps are
 * never negative. Never crash, hang or leak.
 */
#include "io/importtsv.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = 0;
	char *nl = strchr(text, '\n');
	char *rest = nl ? nl + 1 : text + strlen(text);
	if (nl)
		*nl = 0;
	char sep = size && (data[size - 1] & 1) ? ',' : '\t';
	io_tsv_spec o;
	if (io_tsv_spec_parse(&o, text, sep, 7) == SBX_OK) {
		if (o.row_col < 0 || (size_t)o.row_col >= o.ncols)
			abort();
		io_tsv_line l;
		memset(&l, 0, sizeof l);
		l.field = calloc(o.ncols, sizeof *l.field);
		l.len = calloc(o.ncols, sizeof *l.len);
		char *p = rest;
		while (l.field && l.len && *p) {
			char *end = strchr(p, '\n');
			if (end)
				*end = 0;
			size_t tl = strlen(p);
			if (io_tsv_line_split(&l, &o, p)) {
				for (size_t i = 0; i < o.ncols; i++)
					if (l.field[i] < p ||
					    l.field[i] + l.len[i] > p + tl)
						abort();
				if (l.row_len == 0 || l.ts < 0)
					abort();
			}
			if (!end)
				break;
			p = end + 1;
		}
		free(l.field);
		free(l.len);
	} else if (!*sbx_errmsg()) {
		abort(); /* a bad spec always says why */
	}
	io_tsv_spec_free(&o);
	free(text);
	return 0;
}
