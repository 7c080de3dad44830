/*
 * fuzz_importtsv.c - libFuzzer target for `saltbox importtsv`'s input
 * parsing: the first line is an importtsv.columns spec, the rest are data
 * lines. Any bytes either fail the spec with a reason, or split each line
 * into exactly the columns (or count it a bad line); fields stay inside
 * the line, the row key is never empty, timestamps are never negative.
 * Never crash, hang or leak.
 */
#include "../tools/cmd_bulk.c"

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
	tsv_opts o;
	memset(&o, 0, sizeof o);
	o.sep = size && (data[size - 1] & 1) ? ',' : '\t';
	o.ts = 7;
	o.columns = text;
	char err[512];
	if (parse_columns(&o, err, sizeof err) == 0) {
		if (o.row_col < 0 || (size_t)o.row_col >= o.ncols)
			abort();
		line l;
		memset(&l, 0, sizeof l);
		l.field = calloc(o.ncols, sizeof *l.field);
		l.len = calloc(o.ncols, sizeof *l.len);
		char *p = rest;
		while (l.field && l.len && *p) {
			char *end = strchr(p, '\n');
			if (end)
				*end = 0;
			l.text = p;
			size_t tl = strlen(p);
			if (split_line(&o, &l)) {
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
	}
	free(o.cols);
	free(text);
	return 0;
}
