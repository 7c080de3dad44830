/*
 * fuzz_rest_path.c - libFuzzer target for the REST request path parser
 * (HBase RowSpec rules) and the multiget row spec: any bytes either parse
 * into a route whose byte strings stay in bounds, or fail with SBX_EPARSE
 * and a message; never crash or leak.
 */
#include "server/rest.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[REST_ERR_LEN] = "";
	rest_route r;
	int rc = rest_route_parse(&r, (const char *)data, size, err);
	if (rc != SBX_OK && (rc != SBX_EPARSE || !err[0]))
		abort();
	if (rc == SBX_OK) {
		/* Touch every decoded byte so ASan checks the lengths. */
		volatile uint8_t sink = 0;
		for (size_t i = 0; i < r.spec.row.len; i++)
			sink ^= r.spec.row.data[i];
		for (size_t c = 0; c < r.spec.ncolumns; c++) {
			sink ^= (uint8_t)strlen(r.spec.columns[c].family);
			for (size_t i = 0; i < r.spec.columns[c].qualifier_len; i++)
				sink ^= r.spec.columns[c].qualifier[i];
		}
		if (r.spec.has_ts && r.spec.start_ts > r.spec.end_ts)
			abort();
		(void)sink;
	}
	rest_route_free(&r);
	rest_rowspec s;
	err[0] = 0;
	rc = rest_rowspec_parse(&s, (const char *)data, size, false, err);
	if (rc != SBX_OK && (rc != SBX_EPARSE || !err[0]))
		abort();
	rest_rowspec_free(&s);
	return 0;
}
