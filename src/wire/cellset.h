/*
 * cellset.h - HBase REST's CellSet, the body of every cell read and write
 * (internal), in one copy below the server, the remote backend and the
 * import/export lines: the model, the JSON and protobuf decoders and the
 * streaming writer (JSON, XML, protobuf). Nothing here touches a store.
 */
#ifndef SBX_WIRE_CELLSET_H
#define SBX_WIRE_CELLSET_H

#include "saltbox.h"

#include <jansson.h>

/* Room for one user-facing error message. */
#define REST_ERR_LEN 256

/* The media types of HBase REST bodies. */
typedef enum rest_fmt {
	REST_FMT_NONE = 0,
	REST_FMT_TEXT,
	REST_FMT_XML,
	REST_FMT_JSON,
	REST_FMT_PB,
	REST_FMT_BINARY,
} rest_fmt;

typedef struct rest_cell {
	sbx_buf column;   /* "cf:q" bytes */
	bool has_column;
	int64_t timestamp;
	bool has_timestamp;
	sbx_buf value;
} rest_cell;

typedef struct rest_row {
	sbx_buf key;
	bool has_key;
	rest_cell *cells;
	size_t ncells, cap;
} rest_row;

/* A decoded CellSet; every buffer is owned here: rest_cellset_free(). */
typedef struct rest_cellset {
	rest_row *rows;
	size_t nrows, cap;
} rest_cellset;

void rest_cellset_free(rest_cellset *cs);
/* A new zeroed row / cell at the end, for decoders; NULL on ENOMEM. */
rest_row *rest_cellset_add_row(rest_cellset *cs);
rest_cell *rest_row_add_cell(rest_row *row);

/* Decoders: SBX_OK, or SBX_EPARSE with a message in err (REST_ERR_LEN
 * bytes), or SBX_ENOMEM; on failure *out holds nothing. */
int rest_cellset_from_json(rest_cellset *out, const uint8_t *body, size_t len,
			   char *err);
/* The same from a parsed document (borrowed). */
int rest_cellset_from_jansson(rest_cellset *out, json_t *root, char *err);
int rest_cellset_from_pb(rest_cellset *out, const uint8_t *body, size_t len,
			 char *err);

/* A JSON integer, or a string holding one (node-hbase sends strings). */
int rest_json_int64(json_t *v, int64_t *out);
/* Decimal int64 text, optional leading '-'. */
int rest_parse_int64(const char *s, size_t len, int64_t *out);

/* Writer for CellSet responses: open, one call per result, close. Rows are
 * written as they come, so a scan can stream. */
typedef struct rest_cellset_writer {
	rest_fmt fmt;
	size_t rows;
	sbx_buf scratch; /* protobuf row under construction */
} rest_cellset_writer;

int rest_cellset_open(rest_cellset_writer *w, sbx_buf *out, rest_fmt f);
/* Write cells [first, first + n) of r as one Row. */
int rest_cellset_add(rest_cellset_writer *w, sbx_buf *out, const sbx_result *r,
		     size_t first, size_t n);
int rest_cellset_close(rest_cellset_writer *w, sbx_buf *out);
void rest_cellset_writer_free(rest_cellset_writer *w);

#endif
