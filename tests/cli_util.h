/*
 * cli_util.h - running the `saltbox` binary (path in $SBX_SALTBOX) the way
 * a user would, for the CLI tests: its stdout and stderr land in cli_out,
 * and CHECK_OUT asserts that a piece of text is in them.
 */
#ifndef SBX_TEST_CLI_UTIL_H
#define SBX_TEST_CLI_UTIL_H

#include "check.h"

#include <sys/wait.h>

static char cli_out[65536];

/* Run `saltbox ARGS` (shell syntax); returns its exit status, -1 if it
 * could not run or died from a signal. */
static int run_saltbox(const char *args)
{
	const char *bin = getenv("SBX_SALTBOX");
	if (!bin)
		bin = "./saltbox";
	size_t len = strlen(bin) + strlen(args) + 16;
	char *cmd = malloc(len);
	if (!cmd)
		return -1;
	snprintf(cmd, len, "'%s' %s 2>&1", bin, args);
	FILE *p = popen(cmd, "r");
	free(cmd);
	if (!p)
		return -1;
	size_t n = fread(cli_out, 1, sizeof cli_out - 1, p);
	cli_out[n] = 0;
	int st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

#define CHECK_OUT(substr)                                                    \
	do {                                                                 \
		if (!strstr(cli_out, substr)) {                              \
			fprintf(stderr, "%s:%d: output lacks '%s':\n%s\n",   \
				__FILE__, __LINE__, substr, cli_out);        \
			check_failures++;                                    \
		}                                                            \
	} while (0)

#endif
