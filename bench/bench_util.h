/*
 * bench_util.h - what every benchmark here needs: a monotonic clock,
 * medians of repeated rounds, and a fatal error that prints the library's
 * message.
 */
#ifndef SBX_BENCH_UTIL_H
#define SBX_BENCH_UTIL_H

#include "saltbox.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static inline double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static inline int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The median of n values (sorts them in place). */
static inline double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, cmp_double);
	return v[n / 2];
}

static inline void die(const char *what)
{
	fprintf(stderr, "%s: %s\n", what, sbx_errmsg());
	exit(1);
}

#endif
