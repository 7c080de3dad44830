/* alloc.c - the allocation seam's fault injection (see alloc.h). */
#include "common/alloc.h"

atomic_bool sbx_alloc_armed;
static atomic_long budget;
static atomic_long failed;

void sbx_alloc_fail_after(long n)
{
	atomic_store(&failed, 0);
	atomic_store(&budget, n);
	atomic_store(&sbx_alloc_armed, n >= 0);
}

long sbx_alloc_failed(void)
{
	return atomic_load(&failed);
}

bool sbx_alloc_allow(void)
{
	if (atomic_fetch_sub(&budget, 1) > 0)
		return true;
	atomic_fetch_add(&failed, 1);
	return false;
}
