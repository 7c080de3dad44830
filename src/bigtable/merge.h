/*
 * merge.h - ReadRows' chunk merger, as Google's clients do it: a pure state
 * machine (NEW_ROW, ROW_IN_PROGRESS, CELL_IN_PROGRESS) fed one CellChunk at
 * a time, across response messages, that hands out committed rows and
 * rejects every malformed stream (docs/bigtable.md, "Reading"). It knows
 * nothing of gRPC or protobuf, so tests/test_bigtable_merge.c drives it
 * with written-out chunk sequences and no server.
 */
#ifndef SBX_BIGTABLE_MERGE_H
#define SBX_BIGTABLE_MERGE_H

#include "common/buf.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One CellChunk. Absent wrapper fields (family, qualifier) have has_* false;
 * an absent row key has row_key_len 0. Pointers are borrowed for the call. */
typedef struct bt_chunk {
	const uint8_t *row_key;
	size_t row_key_len;
	bool has_family;
	const char *family;
	size_t family_len;
	bool has_qualifier;
	const uint8_t *qualifier;
	size_t qualifier_len;
	int64_t timestamp_micros;
	const char *label; /* the first label, NULL if none */
	size_t label_len;
	size_t nlabels;
	const uint8_t *value;
	size_t value_len;
	int32_t value_size;
	bool reset_row;
	bool commit_row;
} bt_chunk;

/* A cell of a merged row: offsets into bt_row.arena. */
typedef struct bt_cell {
	size_t family_off, family_len;
	size_t qual_off, qual_len;
	size_t label_off, label_len;
	size_t value_off, value_len;
	int64_t timestamp_micros;
} bt_cell;

/* A committed row, in the order the server sent its cells. */
typedef struct bt_row {
	sbx_buf key;
	sbx_buf arena;
	bt_cell *cells;
	size_t n, cap;
} bt_row;

/* Called for each committed row; the row is valid only during the call.
 * A nonzero return stops the merge and is returned by bt_merger_chunk. */
typedef int (*bt_row_fn)(void *ctx, const bt_row *row);

typedef enum bt_merge_state {
	BT_NEW_ROW,
	BT_ROW_IN_PROGRESS,
	BT_CELL_IN_PROGRESS,
} bt_merge_state;

typedef struct bt_merger {
	bt_merge_state state;
	bool reversed;       /* rows arrive in descending key order */
	bool have_last;
	sbx_buf last_key;    /* the last committed key */
	bt_row row;          /* the row being built */
	/* the family and qualifier the next cell inherits (in row.arena) */
	size_t fam_off, fam_len, qual_off, qual_len;
	bool have_qual;
	char why[128];       /* what was wrong, after SBX_EREMOTE */
} bt_merger;

void bt_merger_init(bt_merger *m, bool reversed);
void bt_merger_free(bt_merger *m);
/* Feed one chunk. SBX_OK, SBX_EREMOTE for an invalid stream (m->why says
 * why; the merger is then unusable), SBX_ENOMEM, or fn's nonzero return. */
int bt_merger_chunk(bt_merger *m, const bt_chunk *c, bt_row_fn fn, void *ctx);
/* The stream ended with status OK: SBX_EREMOTE if a row is uncommitted. */
int bt_merger_finish(bt_merger *m);
/* The last committed key (NULL if none): where a retry resumes. */
const uint8_t *bt_merger_last_key(const bt_merger *m, size_t *len);

#endif
