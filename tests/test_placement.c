/*
 * test_placement.c - the one balancer of the modelled cluster
 * (src/placement/), which the engine's region map and keyviz share: new
 * regions go to the emptiest server, counts are evened to within one by
 * moving the coldest region, then moves and swaps lower the busiest
 * server's load; other tables' regions count but do not move.
 */
#include "check.h"
#include "placement/placement.h"

/* "s0 s1 ..." of the regions' servers, for compact expected values. */
static const char *servers(const placement_region *r, size_t n)
{
	static char out[256];
	out[0] = 0;
	for (size_t i = 0; i < n; i++)
		snprintf(out + strlen(out), sizeof out - strlen(out), "%s%d",
			 i ? " " : "", r[i].server);
	return out;
}

static void test_pick_server_fewest_then_least_loaded(void)
{
	int count[3] = {2, 1, 1};
	placement_region r[] = {{0, 5}, {0, 5}, {1, 9}, {2, 3}};
	CHECK_INT(placement_pick_server(count, 3, r, 4), 2);
	count[2] = 2;
	CHECK_INT(placement_pick_server(count, 3, r, 4), 1);
	/* all equal, no load: the lowest number */
	int even[3] = {0, 0, 0};
	CHECK_INT(placement_pick_server(even, 3, NULL, 0), 0);
}

static void test_counts_even_moving_coldest(void)
{
	/* five regions on server 0, none elsewhere, no load yet */
	placement_region r[] = {{0, 4}, {0, 1}, {0, 3}, {0, 2}, {0, 5}};
	int count[2] = {5, 0};
	uint64_t scratch[2];
	size_t moves = placement_balance(r, 5, count, 2, scratch);
	/* counts: the coldest (1, then 2) move to server 1; then load: 12
	 * against 3, and moving the 4 gives max(8, 7) = 8 (the 5 would give
	 * max(7, 8), not better); after it no move or swap beats 8 */
	CHECK_STR(servers(r, 5), "1 1 0 1 0");
	CHECK_INT(count[0], 2);
	CHECK_INT(count[1], 3);
	CHECK_INT(moves, 3);
}

static void test_swap_lowers_the_busiest(void)
{
	/* equal counts, server 0 hot: a move would unbalance counts, so the
	 * hot region swaps with the cold one */
	placement_region r[] = {{0, 100}, {0, 10}, {1, 1}, {1, 1}};
	int count[2] = {2, 2};
	uint64_t scratch[2];
	CHECK_INT(placement_balance(r, 4, count, 2, scratch), 2);
	CHECK_STR(servers(r, 4), "1 0 0 1");
	CHECK_INT(count[0], 2);
	CHECK_INT(count[1], 2);
	/* balanced already: nothing moves */
	CHECK_INT(placement_balance(r, 4, count, 2, scratch), 0);
	CHECK_STR(servers(r, 4), "1 0 0 1");
}

static void test_other_tables_count_but_stay(void)
{
	/* server 0 holds 4 regions of other tables: this table's region
	 * there leaves for the emptiest server; the rest of the excess is
	 * not this table's to move */
	placement_region r[] = {{0, 0}, {1, 0}};
	int count[3] = {5, 1, 0};
	uint64_t scratch[3];
	CHECK_INT(placement_balance(r, 2, count, 3, scratch), 1);
	CHECK_STR(servers(r, 2), "2 1");
	CHECK_INT(count[0], 4);
	CHECK_INT(count[2], 1);
}

TEST_MAIN(T(test_pick_server_fewest_then_least_loaded),
	  T(test_counts_even_moving_coldest), T(test_swap_lowers_the_busiest),
	  T(test_other_tables_count_but_stay))
