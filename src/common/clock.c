/* clock.c - the library's clock seam (see clock.h). */
#include "common/clock.h"

#include <stdatomic.h>
#include <stddef.h>
#include <time.h>

typedef int64_t (*clock_fn)(void);
static _Atomic(clock_fn) test_clock;

static int64_t read_clock(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t sbx_clock_now_ms(void)
{
	clock_fn f = atomic_load_explicit(&test_clock, memory_order_relaxed);
	return f ? f() : read_clock(CLOCK_REALTIME);
}

int64_t sbx_clock_coarse_ms(void)
{
	clock_fn f = atomic_load_explicit(&test_clock, memory_order_relaxed);
	return f ? f() : read_clock(CLOCK_REALTIME_COARSE);
}

void sbx_clock_set(int64_t (*now_ms)(void))
{
	atomic_store(&test_clock, now_ms);
}
