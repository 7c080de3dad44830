/*
 * importtsv.c - HBase ImportTsv's column spec and line splitting (see
 * importtsv.h). A parsed spec always names HBASE_ROW_KEY once; a split
 * line's fields all lie inside its text.
 */
#include "io/importtsv.h"

#include "common/alloc.h"
#include "common/error.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int io_tsv_spec_parse(io_tsv_spec *o, const char *columns, char sep,
		      int64_t ts)
{
	memset(o, 0, sizeof *o);
	o->sep = sep;
	o->ts = ts;
	o->row_col = o->ts_col = -1;
	size_t n = 1;
	for (const char *p = columns; *p; p++)
		n += *p == ',';
	o->cols = sbx_calloc(n, sizeof *o->cols);
	if (!o->cols)
		return SBX_ENOMEM_SET();
	const char *p = columns;
	for (size_t i = 0; i < n; i++) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		io_tsv_column *c = &o->cols[o->ncols++];
		if (len == 13 && !strncmp(p, "HBASE_ROW_KEY", 13)) {
			if (o->row_col >= 0)
				return sbx_error_set(SBX_EINVAL,
						     "importtsv.columns names "
						     "HBASE_ROW_KEY twice");
			c->kind = IO_TSV_ROW;
			o->row_col = (int)i;
		} else if (len == 12 && !strncmp(p, "HBASE_TS_KEY", 12)) {
			if (o->ts_col >= 0)
				return sbx_error_set(SBX_EINVAL,
						     "importtsv.columns names "
						     "HBASE_TS_KEY twice");
			c->kind = IO_TSV_TS;
			o->ts_col = (int)i;
		} else {
			const char *colon = memchr(p, ':', len);
			size_t fl = colon ? (size_t)(colon - p) : len;
			if (fl == 0 || fl > SBX_MAX_FAMILY_NAME)
				return sbx_error_set(SBX_EINVAL,
						     "bad column in "
						     "importtsv.columns: '%.*s'",
						     (int)(len > 200 ? 200 : len),
						     p);
			c->kind = IO_TSV_CELL;
			memcpy(c->family, p, fl);
			c->qual = colon ? colon + 1 : p + len;
			c->qual_len = colon ? len - fl - 1 : 0;
		}
		p = end ? end + 1 : p + len;
	}
	if (o->row_col < 0)
		return sbx_error_set(SBX_EINVAL,
				     "importtsv.columns must name HBASE_ROW_KEY");
	return SBX_OK;
}

void io_tsv_spec_free(io_tsv_spec *s)
{
	free(s->cols);
	s->cols = NULL;
	s->ncols = 0;
}

bool io_tsv_line_split(io_tsv_line *l, const io_tsv_spec *o, char *text)
{
	char *p = text;
	for (size_t i = 0; i < o->ncols; i++) {
		char *end = i + 1 < o->ncols ? strchr(p, o->sep) : NULL;
		if (i + 1 < o->ncols && !end)
			return false;
		l->field[i] = p;
		l->len[i] = end ? (size_t)(end - p) : strlen(p);
		if (end)
			p = end + 1;
	}
	if (memchr(l->field[o->ncols - 1], o->sep,
		   l->len[o->ncols - 1]) != NULL)
		return false; /* more fields than columns */
	l->row = l->field[o->row_col];
	l->row_len = l->len[o->row_col];
	if (l->row_len == 0 || l->row_len > SBX_MAX_ROW_LENGTH)
		return false;
	l->ts = o->ts;
	if (o->ts_col >= 0) {
		char *end;
		errno = 0;
		long long v = strtoll(l->field[o->ts_col], &end, 10);
		if (errno || end != l->field[o->ts_col] + l->len[o->ts_col] ||
		    l->len[o->ts_col] == 0 || v < 0)
			return false;
		l->ts = v;
	}
	return true;
}
