/*
 * importtsv.h - HBase ImportTsv's input (internal): the importtsv.columns
 * spec (HBASE_ROW_KEY, HBASE_TS_KEY, family[:qualifier]) and splitting one
 * line into exactly its columns. `saltbox importtsv` and the fuzz target
 * share it. Nothing here prints or allocates per line.
 */
#ifndef SBX_IO_IMPORTTSV_H
#define SBX_IO_IMPORTTSV_H

#include "saltbox.h"

typedef enum io_tsv_kind { IO_TSV_ROW, IO_TSV_TS, IO_TSV_CELL } io_tsv_kind;

typedef struct io_tsv_column {
	io_tsv_kind kind;
	char family[SBX_MAX_FAMILY_NAME + 1]; /* IO_TSV_CELL */
	const char *qual; /* into the spec's columns text, qual_len bytes */
	size_t qual_len;
} io_tsv_column;

typedef struct io_tsv_spec {
	io_tsv_column *cols; /* ncols, owned: io_tsv_spec_free() */
	size_t ncols;
	int row_col;         /* the HBASE_ROW_KEY column */
	int ts_col;          /* the HBASE_TS_KEY column, or -1 */
	char sep;            /* field separator */
	int64_t ts;          /* timestamp of lines without HBASE_TS_KEY */
} io_tsv_spec;

/*
 * Parse importtsv.columns. `columns` is borrowed for the spec's life
 * (qualifiers point into it). SBX_OK; SBX_EINVAL with the reason in
 * sbx_errmsg() ("importtsv.columns must name HBASE_ROW_KEY"); SBX_ENOMEM.
 * The spec is to be freed either way.
 */
int io_tsv_spec_parse(io_tsv_spec *out, const char *columns, char sep,
		      int64_t ts);
void io_tsv_spec_free(io_tsv_spec *s);

/* One line split into its fields, in place. */
typedef struct io_tsv_line {
	char **field;    /* ncols entries, the caller's; into the text */
	size_t *len;
	const char *row; /* the HBASE_ROW_KEY field */
	size_t row_len;
	int64_t ts;      /* HBASE_TS_KEY's or the spec's */
} io_tsv_line;

/*
 * Split `text` (NUL-terminated, no line end) into exactly s->ncols fields
 * into l->field/l->len; false for a bad line, as ImportTsv counts them: a
 * field too many or too few, an empty or over-long row key, an
 * HBASE_TS_KEY that is not a non-negative integer.
 */
bool io_tsv_line_split(io_tsv_line *l, const io_tsv_spec *s, char *text);

#endif
