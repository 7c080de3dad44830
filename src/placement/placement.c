/*
 * placement.c - the modelled cluster's balancer (see placement.h): new
 * regions to the emptiest server, region counts evened to within one,
 * then the busiest server's load lowered by moving or swapping regions.
 * Deterministic: ties go to the lower server number and the earlier
 * region, so a simulation replays exactly.
 */
#include "placement/placement.h"

#include <assert.h>
#include <stdbool.h>
#include <string.h>

int placement_pick_server(const int *server_regions, int nservers,
			  const placement_region *regions, size_t n)
{
	assert(nservers >= 1);
	int best = 0;
	uint64_t best_load = UINT64_MAX;
	for (int s = 0; s < nservers; s++) {
		uint64_t load = 0;
		for (size_t i = 0; i < n; i++)
			if (regions[i].server == s)
				load += regions[i].load;
		if (server_regions[s] < server_regions[best] ||
		    (server_regions[s] == server_regions[best] &&
		     load < best_load)) {
			best = s;
			best_load = load;
		}
	}
	return best;
}

/* Move the least-loaded region of the fullest server to the emptiest
 * until no two servers differ by more than one region. Each move lowers
 * the sum of squared counts, so this ends. */
static size_t even_counts(placement_region *r, size_t n, int *count, int S)
{
	size_t moves = 0;
	for (;;) {
		int hi = 0, lo = 0;
		for (int s = 1; s < S; s++) {
			if (count[s] > count[hi])
				hi = s;
			if (count[s] < count[lo])
				lo = s;
		}
		if (count[hi] - count[lo] <= 1)
			break;
		placement_region *pick = NULL;
		for (size_t i = 0; i < n; i++)
			if (r[i].server == hi && (!pick || r[i].load < pick->load))
				pick = &r[i];
		if (!pick)
			break; /* the excess belongs to other tables */
		pick->server = lo;
		count[hi]--;
		count[lo]++;
		moves++;
	}
	return moves;
}

/* The best move of one region from A to B (when A has more regions) or
 * swap of x on A with a lighter y on B: the one that makes the larger of
 * the two loads smallest, if any lowers it below A's. */
static void best_exchange(placement_region *r, size_t n, const uint64_t *load,
			  const int *count, int A, int B,
			  placement_region **ra, placement_region **rb)
{
	uint64_t la = load[A], lb = load[B], best = la;
	bool can_move = count[A] > count[B];
	*ra = *rb = NULL;
	for (size_t i = 0; i < n; i++) {
		placement_region *x = &r[i];
		if (x->server != A || !x->load)
			continue;
		if (can_move) {
			uint64_t na = la - x->load, nb = lb + x->load;
			uint64_t m = na > nb ? na : nb;
			if (m < best) {
				best = m;
				*ra = x;
				*rb = NULL;
			}
		}
		for (size_t j = 0; j < n; j++) {
			placement_region *y = &r[j];
			if (y->server != B || y->load >= x->load)
				continue;
			uint64_t na = la - x->load + y->load;
			uint64_t nb = lb + x->load - y->load;
			uint64_t m = na > nb ? na : nb;
			if (m < best) {
				best = m;
				*ra = x;
				*rb = y;
			}
		}
	}
}

static size_t even_load(placement_region *r, size_t n, int *count, int S,
			uint64_t *load)
{
	size_t moves = 0;
	memset(load, 0, (size_t)S * sizeof *load);
	for (size_t i = 0; i < n; i++)
		load[r[i].server] += r[i].load;
	for (int iter = 0; iter < 2 * S; iter++) {
		int A = 0, B = 0;
		for (int s = 1; s < S; s++) {
			if (load[s] > load[A])
				A = s;
			if (load[s] < load[B])
				B = s;
		}
		if (A == B)
			break;
		placement_region *ra, *rb;
		best_exchange(r, n, load, count, A, B, &ra, &rb);
		if (!ra)
			break;
		ra->server = B;
		load[A] -= ra->load;
		load[B] += ra->load;
		moves++;
		if (rb) {
			rb->server = A;
			load[B] -= rb->load;
			load[A] += rb->load;
			moves++;
		} else {
			count[A]--;
			count[B]++;
		}
	}
	return moves;
}

size_t placement_balance(placement_region *regions, size_t n,
			 int *server_regions, int nservers,
			 uint64_t *load_scratch)
{
	assert(nservers >= 1);
	size_t moves = even_counts(regions, n, server_regions, nservers);
	return moves + even_load(regions, n, server_regions, nservers,
				 load_scratch);
}
