/*
 * pb.h - the protobuf wire format for HBase REST's few small messages
 * (internal): a strict reader and writer of varints and length-delimited
 * fields.
 */
#ifndef SBX_WIRE_PB_H
#define SBX_WIRE_PB_H

#include "saltbox/common.h"

typedef struct pb_reader {
	const uint8_t *p, *end;
} pb_reader;

/* Next field: *field and *wire; for length-delimited fields *data and *len; for
 * varints *varint. Returns 1 for a field, 0 at the end, SBX_EPARSE on bad
 * input (unknown wire types 3/4, truncation, overlong varints). */
int pb_next(pb_reader *r, uint32_t *field, int *wire, uint64_t *varint,
	    const uint8_t **data, size_t *len);
int pb_put_varint(sbx_buf *b, uint32_t field, uint64_t v);
int pb_put_bytes(sbx_buf *b, uint32_t field, const void *data, size_t len);
int pb_put_raw_varint(sbx_buf *b, uint64_t v);

#endif
