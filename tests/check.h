/*
 * check.h - the tiny test harness every tests/test_*.c uses: CHECK macros
 * that report file:line and keep going, a per-test temporary directory, and
 * a main() that runs the listed tests and fails if any check failed.
 */
#ifndef SBX_CHECK_H
#define SBX_CHECK_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int check_failures;
static const char *check_current = "";

#define CHECK(cond)                                                          \
	do {                                                                 \
		if (!(cond)) {                                               \
			fprintf(stderr, "%s:%d: [%s] CHECK failed: %s\n",    \
				__FILE__, __LINE__, check_current, #cond);   \
			check_failures++;                                    \
		}                                                            \
	} while (0)

#define CHECK_INT(actual, expected)                                          \
	do {                                                                 \
		long long a_ = (long long)(actual), e_ = (long long)(expected); \
		if (a_ != e_) {                                              \
			fprintf(stderr,                                      \
				"%s:%d: [%s] %s = %lld, expected %lld\n",    \
				__FILE__, __LINE__, check_current, #actual,  \
				a_, e_);                                     \
			check_failures++;                                    \
		}                                                            \
	} while (0)

/* Compare a (ptr,len) byte string with a C string literal. */
#define CHECK_MEM(ptr, len, str)                                             \
	do {                                                                 \
		size_t l_ = (len), el_ = strlen(str);                        \
		if (l_ != el_ || (l_ && memcmp((ptr), (str), l_) != 0)) {    \
			fprintf(stderr,                                      \
				"%s:%d: [%s] %s = '%.*s', expected '%s'\n",  \
				__FILE__, __LINE__, check_current, #ptr,     \
				(int)l_, (const char *)(ptr), str);          \
			check_failures++;                                    \
		}                                                            \
	} while (0)

#define CHECK_STR(actual, expected)                                          \
	do {                                                                 \
		const char *a_ = (actual), *e_ = (expected);                 \
		if (!a_ || strcmp(a_, e_) != 0) {                            \
			fprintf(stderr,                                      \
				"%s:%d: [%s] %s = '%s', expected '%s'\n",    \
				__FILE__, __LINE__, check_current, #actual,  \
				a_ ? a_ : "(null)", e_);                     \
			check_failures++;                                    \
		}                                                            \
	} while (0)

/* Abort the current test function when a setup step fails. */
#define REQUIRE(cond)                                                        \
	do {                                                                 \
		if (!(cond)) {                                               \
			fprintf(stderr, "%s:%d: [%s] REQUIRE failed: %s\n",  \
				__FILE__, __LINE__, check_current, #cond);   \
			check_failures++;                                    \
			return;                                              \
		}                                                            \
	} while (0)

/* A fresh, empty directory for one test; the returned string is static. */
static inline const char *test_dir(const char *name)
{
	static char path[4096];
	const char *base = getenv("SBX_TEST_TMP");
	if (!base)
		base = "/tmp";
	mkdir(base, 0755);
	snprintf(path, sizeof path, "%s/%s.%d", base, name, (int)getpid());
	char cmd[4200];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", path);
	if (system(cmd) != 0)
		fprintf(stderr, "warning: could not clean %s\n", path);
	return path;
}

typedef struct check_test {
	const char *name;
	void (*fn)(void);
} check_test;

#define TEST_MAIN(...)                                                       \
	int main(int argc, char **argv)                                      \
	{                                                                    \
		static const check_test tests_[] = {__VA_ARGS__};            \
		size_t n_ = sizeof tests_ / sizeof tests_[0];                \
		for (size_t i_ = 0; i_ < n_; i_++) {                         \
			if (argc > 1 && strcmp(argv[1], tests_[i_].name))    \
				continue;                                    \
			check_current = tests_[i_].name;                     \
			int before_ = check_failures;                        \
			tests_[i_].fn();                                     \
			printf("%s %s\n",                                    \
			       check_failures == before_ ? "ok  " : "FAIL",  \
			       tests_[i_].name);                             \
		}                                                            \
		return check_failures ? 1 : 0;                               \
	}

#define T(fn) {#fn, fn}

#endif
