/*
 * celllines.h - a table's cells as lines of text (internal), the formats
 * of `saltbox export` and `saltbox import`:
 *   TSV   one cell a line: row TAB family:qualifier TAB timestamp TAB
 *         value, the row, qualifier and value as HBase prints bytes
 *         (Bytes.toStringBinary), so every byte survives;
 *   JSON  one row a line as an HBase REST CellSet (base64), the body curl
 *         would PUT to a REST gateway.
 * The import side is also the fuzz target's (fuzz/fuzz_import_line.c).
 */
#ifndef SBX_IO_CELLLINES_H
#define SBX_IO_CELLLINES_H

#include "saltbox.h"

/* Append one cell as a TSV line, newline included. SBX_OK or SBX_ENOMEM. */
int io_cell_tsv_line(sbx_buf *out, const sbx_cell *c);
/* Append one row (every cell of r) as a JSON CellSet line, newline
 * included. SBX_OK or SBX_ENOMEM. */
int io_row_json_line(sbx_buf *out, const sbx_result *r);

/*
 * The mutations one line asks for: one put for a TSV line, one per row
 * for a JSON line, each cell with its timestamp (JSON cells without one
 * get the server's). `text` (len bytes, no line end) is NUL-terminated
 * and may be modified. On SBX_OK *out is an array of *n mutations, the
 * caller's: sbx_mutation_free() each, then free(*out). Otherwise the line
 * is bad: nothing is returned and sbx_errmsg() says why ("fewer than 4
 * fields", "bad timestamp", the JSON error, ...).
 */
int io_line_mutations(sbx_mutation ***out, size_t *n, bool json, char *text,
		      size_t len);

/*
 * The schema line `saltbox export` writes first, in both formats, so that
 * `saltbox import --create` can make the table: "#saltbox-schema", a TAB,
 * then the table as an HBase REST TableSchema in JSON with the attributes
 * that differ from HBase's defaults, values as strings:
 *   #saltbox-schema<TAB>{"name":"t","ColumnSchema":[{"name":"m","VERSIONS":"3"}]}
 * No cell line can look like it (a TSV cell has 4 fields, a CellSet line
 * starts with '{').
 */
#define IO_SCHEMA_TAG "#saltbox-schema\t"

/* Append the schema line of `info`, newline included. SBX_OK or
 * SBX_ENOMEM. */
int io_schema_line(sbx_buf *out, const sbx_table_info *info);
/* Whether a line (no line end) is a schema line. */
bool io_is_schema_line(const char *text);
/* The families of schema line `text` (no line end) into *fams (*n of
 * them, the caller's: free()). SBX_OK; SBX_EPARSE (sbx_errmsg() says why:
 * malformed JSON, no ColumnSchema, a bad attribute). */
int io_schema_parse(sbx_family_desc **fams, size_t *n, const char *text);

#endif
