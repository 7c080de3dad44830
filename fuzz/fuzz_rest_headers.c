/*
 * fuzz_rest_headers.c - libFuzzer target for the headers of a binary put
 * (X-Row, X-Column, X-Timestamp, one a line, then the value) against a real
 * store: PUT /t/row/f:q with Content-Type application/octet-stream through
 * the router. Any bytes are stored or refused with a 4xx; never a crash.
 */
#include "rest_server_fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	rest_server *srv = fuzz_server();
	char *text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = 0;
	char *field[3] = {NULL, NULL, NULL};
	char *p = text;
	for (int i = 0; i < 3 && p; i++) {
		field[i] = p;
		p = strchr(p, '\n');
		if (p)
			*p++ = 0;
	}
	const char *names[3] = {"X-Row", "X-Column", "X-Timestamp"};
	rest_kv headers[4] = {{"Content-Type", "application/octet-stream"}};
	size_t nh = 1;
	for (int i = 0; i < 3; i++)
		if (field[i] && *field[i])
			headers[nh++] = (rest_kv){names[i], field[i]};
	const char *body = p ? p : "";
	rest_request rq = {.srv = srv, .method = METHOD_PUT,
			   .path = "/t/row/f:q", .headers = headers,
			   .nheaders = nh, .client = "127.0.0.1",
			   .body = (const uint8_t *)body,
			   .body_len = strlen(body)};
	fuzz_serve(&rq);
	free(text);
	return 0;
}
