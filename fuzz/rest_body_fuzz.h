/*
 * rest_body_fuzz.h - shared by the REST body fuzz targets: the same bytes
 * go to the CellSet, scanner-spec and table-schema decoders of one format;
 * each either succeeds or fails with SBX_EPARSE and a message, and never
 * crashes or leaks.
 */
#ifndef SBX_FUZZ_REST_BODY_H
#define SBX_FUZZ_REST_BODY_H

#include "server/rest.h"

#include <stdlib.h>

static void expect(int rc, const char *err)
{
	if (rc != SBX_OK && (rc != SBX_EPARSE || !err[0]))
		abort();
}

/* Decode data as a CellSet, a scanner spec and a table schema in fmt. */
static int fuzz_rest_bodies(const uint8_t *data, size_t size, rest_fmt fmt)
{
	char err[REST_ERR_LEN] = "";
	rest_cellset cs;
	int rc = rest_cellset_decode(&cs, fmt, data, size, err);
	expect(rc, err);
	if (rc == SBX_OK)
		rest_cellset_free(&cs);
	err[0] = 0;
	rest_scan_spec spec;
	rc = rest_scan_spec_decode(&spec, fmt, data, size, err);
	expect(rc, err);
	if (rc == SBX_OK)
		rest_scan_spec_free(&spec);
	err[0] = 0;
	rest_table_schema schema;
	rc = rest_table_schema_decode(&schema, fmt, data, size, err);
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

#endif
