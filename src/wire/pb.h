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

/* One field as read: its number and wire type; data/len for
 * length-delimited fields (wire 2, pointing into the message), varint for
 * the others (wire 0, 1, 5). */
typedef struct pb_field {
	uint32_t num;
	int wire;
	uint64_t varint;
	const uint8_t *data;
	size_t len;
} pb_field;

/* The next field into *f. Returns 1 for a field, 0 at the end, SBX_EPARSE
 * on bad input (unknown wire types 3/4, truncation, overlong varints). */
int pb_next(pb_reader *r, pb_field *f);
int pb_put_varint(sbx_buf *b, uint32_t field, uint64_t v);
int pb_put_bytes(sbx_buf *b, uint32_t field, const void *data, size_t len);
int pb_put_raw_varint(sbx_buf *b, uint64_t v);

#endif
