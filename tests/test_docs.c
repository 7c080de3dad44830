/*
 * test_docs.c - the documentation stays true: docs/api.md shows
 * examples/api_tour.c verbatim (the example itself is built and run as the
 * example_api_tour test).
 */
#include "check.h"

static char *slurp(const char *rel)
{
	char path[4096];
	const char *src = getenv("SBX_SOURCE_DIR");
	snprintf(path, sizeof path, "%s/%s", src ? src : ".", rel);
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *buf = malloc((size_t)n + 1);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	if (buf)
		buf[n] = 0;
	fclose(f);
	return buf;
}

static void test_api_doc_shows_the_tour(void)
{
	char *doc = slurp("docs/api.md");
	char *tour = slurp("examples/api_tour.c");
	REQUIRE(doc && tour);
	CHECK(strstr(doc, tour) != NULL);
	free(doc);
	free(tour);
}

TEST_MAIN(T(test_api_doc_shows_the_tour))
