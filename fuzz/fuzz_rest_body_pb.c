/*
 * fuzz_rest_body_pb.c - libFuzzer target for the REST body decoders in
 * pb: the same bytes go to the CellSet, scanner-spec and table-schema
 * decoders. Each either succeeds or fails with SBX_EPARSE and a message;
 * never crashes or leaks.
 */
#include "rest_body_fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_rest_bodies(data, size, REST_FMT_PB);
}
