/*
 * fuzz_rest_body_json.c - libFuzzer target for the REST body decoders in
 * json: the same bytes go to the CellSet, scanner-spec and table-schema
 * decoders. Each either succeeds or fails with SBX_EPARSE and a message;
 * never crashes or leaks.
 */
#include "server/rest.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void expect(int rc, const char *err)
{
	if (rc != SBX_OK && (rc != SBX_EPARSE || !err[0]))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[REST_ERR_LEN] = "";
	rest_cellset cs;
	int rc = rest_cellset_decode(&cs, REST_FMT_JSON, data, size, err);
	expect(rc, err);
	if (rc == SBX_OK)
		rest_cellset_free(&cs);
	err[0] = 0;
	rest_scan_spec spec;
	rc = rest_scan_spec_decode(&spec, REST_FMT_JSON, data, size, err);
	expect(rc, err);
	if (rc == SBX_OK)
		rest_scan_spec_free(&spec);
	err[0] = 0;
	rest_table_schema schema;
	rc = rest_table_schema_decode(&schema, REST_FMT_JSON, data, size, err);
	expect(rc, err);
	if (rc == SBX_OK) {
		for (size_t i = 0; i < schema.nfamilies; i++) {
			sbx_family_desc d;
			err[0] = 0;
			expect(rest_family_desc_from_schema(&d, &schema.families[i], err), err);
		}
		rest_table_schema_free(&schema);
	}
	return 0;
}
