/*
 * fuzz_rest_request.c - libFuzzer target for whole requests against a real
 * store, through the router as the HTTP layer drives it (rest_admit, then
 * rest_route_request): "METHOD TARGET" on the first line, "Name: value"
 * header lines up to an empty line, then the body. Covers framing and
 * token checks, query parsing, /ui routing, every handler and its body
 * codecs, scanners and streamed scans. Never a crash, a leak, or a status
 * outside 200..599.
 */
#include "rest_server_fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static rest_method method_of(const char *m)
{
	static const char *const names[] = {"GET", "HEAD", "PUT", "POST",
					    "DELETE"};
	for (int i = 0; i < 5; i++)
		if (!strcmp(m, names[i]))
			return (rest_method)i;
	return METHOD_OTHER;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	rest_server *srv = fuzz_server();
	char *text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = 0;
	char *line_end = strchr(text, '\n');
	if (line_end)
		*line_end = 0;
	char *target = strchr(text, ' ');
	if (target)
		*target++ = 0;
	else
		target = "/";
	char *query = strchr(target, '?');
	if (query)
		*query++ = 0;
	rest_kv headers[32];
	size_t nh = 0;
	char *p = line_end ? line_end + 1 : NULL;
	while (p && *p && *p != '\n' && nh < 32) {
		char *nl = strchr(p, '\n');
		if (nl)
			*nl = 0;
		char *colon = strchr(p, ':');
		if (colon) {
			*colon = 0;
			char *v = colon + 1;
			while (*v == ' ')
				v++;
			headers[nh++] = (rest_kv){p, v};
		}
		p = nl ? nl + 1 : NULL;
	}
	if (p && *p == '\n')
		p++;
	const char *body = p ? p : "";
	size_t body_len = p ? size - (size_t)(p - text) : 0;
	srv->opts.token = NULL;
	srv->opts.read_only = false;
	rest_request rq = {.srv = srv, .method = method_of(text),
			   .path = target, .query = query, .headers = headers,
			   .nheaders = nh, .client = "127.0.0.1",
			   .body = (const uint8_t *)body, .body_len = body_len};
	fuzz_serve(&rq);
	free(text);
	return 0;
}
