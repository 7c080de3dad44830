/*
 * test_docs.c - the documentation stays true: docs/api.md shows
 * examples/api_tour.c verbatim (the example itself is built and run as the
 * example_api_tour test), and every public call in the headers of include/saltbox/
 * documents its error returns.
 */
#include "check.h"

#include <dirent.h>
#include <stdbool.h>

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

/* Start of the line holding text[i]. */
static size_t line_start(const char *text, size_t i)
{
	while (i > 0 && text[i - 1] != '\n')
		i--;
	return i;
}

static bool is_decl_line(const char *text, size_t i)
{
	return !strncmp(text + i, "SBX_API ", 8);
}

/*
 * The comment that documents the SBX_API declaration starting at `decl`:
 * the nearest comment above it with only other SBX_API declarations (a
 * group the comment covers) in between. Writes its bounds; false if none.
 */
static bool decl_comment(const char *text, size_t decl, size_t *from,
			 size_t *to)
{
	size_t e = decl;
	for (;;) {
		while (e > 0 && strchr(" \t\n", text[e - 1]))
			e--;
		if (e >= 2 && text[e - 2] == '*' && text[e - 1] == '/') {
			size_t b = e - 2;
			while (b > 0 && !(text[b - 1] == '/' && text[b] == '*'))
				b--;
			if (b == 0)
				return false;
			*from = b - 1;
			*to = e;
			return true;
		}
		if (e == 0 || text[e - 1] != ';')
			return false;
		/* One earlier declaration of the group: back to its first
		 * line, which must be an SBX_API line with no other ';'. */
		size_t ls = line_start(text, e - 1);
		while (ls > 0 && !is_decl_line(text, ls)) {
			if (memchr(text + ls, ';', e - 1 - ls) ||
			    !strncmp(text + ls, "/*", 2) ||
			    strchr("#}", text[ls]))
				return false;
			ls = line_start(text, ls - 1);
		}
		if (!is_decl_line(text, ls) || memchr(text + ls, ';', e - 1 - ls))
			return false;
		e = ls;
	}
}

/* Whether comment c[0..n) names errors, read as one line (the words may
 * be broken over lines, each continued by " * "). */
static bool mentions_errors(const char *c, size_t n)
{
	char *flat = malloc(n + 1);
	size_t m = 0;
	for (size_t i = 0; flat && i < n; i++) {
		if (c[i] != '\n') {
			flat[m++] = c[i];
			continue;
		}
		while (i + 1 < n && strchr(" \t*", c[i + 1]) && c[i + 1] != '/')
			i++;
		flat[m++] = ' ';
	}
	if (!flat)
		return false;
	flat[m] = 0;
	bool found = strstr(flat, "rror") || strstr(flat, "annot fail") ||
		     strstr(flat, "SBX_E");
	free(flat);
	return found;
}

/* Each public call says what it returns on failure, or that it cannot
 * fail (issue 11, point 5): in its own comment or its group's. */
static void test_every_public_call_documents_its_errors(void)
{
	const char *src = getenv("SBX_SOURCE_DIR");
	char dirpath[4096];
	snprintf(dirpath, sizeof dirpath, "%s/include/saltbox",
		 src ? src : ".");
	DIR *d = opendir(dirpath);
	REQUIRE(d);
	int headers = 0, decls = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		size_t nl = strlen(de->d_name);
		if (nl < 3 || strcmp(de->d_name + nl - 2, ".h"))
			continue;
		char rel[512];
		snprintf(rel, sizeof rel, "include/saltbox/%s", de->d_name);
		char *text = slurp(rel);
		REQUIRE(text);
		headers++;
		for (const char *line = text, *next; line; line = next) {
			next = strchr(line, '\n');
			if (next)
				next++;
			size_t i = (size_t)(line - text);
			if (!is_decl_line(text, i))
				continue;
			decls++;
			size_t from, to;
			bool ok = decl_comment(text, i, &from, &to) &&
				  mentions_errors(text + from, to - from);
			if (!ok) {
				const char *eol = strchr(text + i, '\n');
				fprintf(stderr,
					"%s: no \"Errors\" or \"cannot fail\" "
					"in the comment of: %.*s\n",
					rel, (int)(eol ? eol - (text + i) : 80),
					text + i);
			}
			CHECK(ok);
		}
		free(text);
	}
	closedir(d);
	CHECK(headers >= 9);
	CHECK(decls >= 200);
}

TEST_MAIN(T(test_api_doc_shows_the_tour),
	  T(test_every_public_call_documents_its_errors))
