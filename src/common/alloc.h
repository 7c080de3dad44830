/*
 * alloc.h - the library's allocation seam, as SQLite's sqlite3Malloc: every
 * malloc, calloc, realloc and strdup of the library goes through these, so
 * a test can make allocations fail on purpose and check that each failure
 * surfaces as SBX_ENOMEM with a message and leaves nothing half-written.
 * When no failure is armed the cost is one relaxed atomic load.
 */
#ifndef SBX_COMMON_ALLOC_H
#define SBX_COMMON_ALLOC_H

#include <assert.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* Tests: after `n` more allocations succeed, every later one fails until
 * sbx_alloc_fail_after(-1) disarms it. Process-wide: arm it only while one
 * thread uses the library. */
void sbx_alloc_fail_after(long n);
/* Allocations that failed on purpose since the last arming. */
long sbx_alloc_failed(void);

extern atomic_bool sbx_alloc_armed;
/* The slow path: counts down, then refuses (returns false). */
bool sbx_alloc_allow(void);

static inline void *sbx_malloc(size_t n)
{
	if (atomic_load_explicit(&sbx_alloc_armed, memory_order_relaxed) &&
	    !sbx_alloc_allow())
		return NULL;
	return malloc(n);
}

static inline void *sbx_calloc(size_t n, size_t size)
{
	if (atomic_load_explicit(&sbx_alloc_armed, memory_order_relaxed) &&
	    !sbx_alloc_allow())
		return NULL;
	return calloc(n, size);
}

static inline void *sbx_realloc(void *p, size_t n)
{
	if (atomic_load_explicit(&sbx_alloc_armed, memory_order_relaxed) &&
	    !sbx_alloc_allow())
		return NULL;
	return realloc(p, n);
}

/* REQUIRES: s != NULL (as strdup). */
static inline char *sbx_strdup(const char *s)
{
	assert(s);
	size_t n = strlen(s) + 1;
	char *p = sbx_malloc(n);
	return p ? memcpy(p, s, n) : NULL;
}

/* REQUIRES: s != NULL (as strndup). */
static inline char *sbx_strndup(const char *s, size_t max)
{
	assert(s);
	size_t n = strnlen(s, max);
	char *p = sbx_malloc(n + 1);
	if (!p)
		return NULL;
	memcpy(p, s, n);
	p[n] = 0;
	return p;
}

#endif
