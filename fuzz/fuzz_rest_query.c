/*
 * fuzz_rest_query.c - libFuzzer target for the query string and its
 * parameters: the first line is a raw query string (rest_query_parse, then
 * the integer and lookup helpers handlers use), the second an Accept header
 * (rest_negotiate). Every argument is a NUL-terminated key and a decoded
 * value that stays in bounds, or the parse fails with SBX_EPARSE.
 */
#include "server/rest.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = 0;
	char *accept = strchr(text, '\n');
	if (accept)
		*accept++ = 0;
	rest_kv headers[1] = {{"Accept", accept ? accept : ""}};
	rest_request rq = {.path = "/", .query = text, .headers = headers,
			   .nheaders = 1, .client = ""};
	int rc = rest_query_parse(&rq, text);
	if (rc != SBX_OK && rc != SBX_EPARSE)
		abort();
	volatile uint8_t sink = 0;
	for (size_t i = 0; i < rq.nargs; i++) {
		sink ^= (uint8_t)strlen(rq.args[i].key);
		for (size_t j = 0; j < rq.args[i].value.len; j++)
			sink ^= rq.args[i].value.data[j];
		if (rq.args[i].value.data &&
		    rq.args[i].value.data[rq.args[i].value.len] != 0)
			abort(); /* values are NUL-terminated */
	}
	(void)sink;
	char err[REST_ERR_LEN] = "";
	int64_t v = 7;
	static const char *const keys[] = {"c", "n", "limit", "v", "row"};
	for (size_t k = 0; k < sizeof keys / sizeof *keys; k++) {
		err[0] = 0;
		if (rest_query_int64(&rq, keys[k], &v, err) && !err[0])
			abort();
		(void)rest_query(&rq, keys[k]);
	}
	static const rest_fmt produces[] = {REST_FMT_XML, REST_FMT_JSON,
					    REST_FMT_PB, REST_FMT_BINARY};
	bool ietf;
	rest_fmt f = rest_negotiate(&rq, produces, 4, &ietf);
	if (f != REST_FMT_NONE && !rest_fmt_mime(f, ietf))
		abort();
	rest_request_free(&rq);
	free(text);
	return 0;
}
