/*
 * placement.h - where regions live on the modelled region servers
 * (internal): the one balancer behind the engine's region map and keyviz's
 * simulated cluster, so the two models cannot drift apart. Pure
 * arithmetic over arrays the caller owns: no locks, no allocation, no
 * other layer (it sits beside common/, below the engine and keyviz).
 *
 * The policy, in HBase's terms: region counts first, as the
 * SimpleLoadBalancer (hbase.regions.slop = 0: every server within one
 * region of every other), moving the least-loaded region of the fullest
 * server; then load, in the spirit of the StochasticLoadBalancer's
 * request costs: moves and swaps between the busiest and the idlest
 * server while one lowers the larger of their two loads. Whole regions
 * move, so the load of one hot region is never split.
 */
#ifndef SBX_PLACEMENT_H
#define SBX_PLACEMENT_H

#include <stddef.h>
#include <stdint.h>

/* One region as the balancer sees it. */
typedef struct placement_region {
	int server;    /* in/out: the server it is on, 0 .. nservers-1 (or
			  < 0: not placed yet, for placement_pick_server) */
	uint64_t load; /* in: its requests over the period being balanced */
} placement_region;

/*
 * The server for a new region: the fewest regions (server_regions counts
 * every table's), then the least load from `regions` (the new region's
 * table), then the lowest number. REQUIRES: nservers >= 1.
 */
int placement_pick_server(const int *server_regions, int nservers,
			  const placement_region *regions, size_t n);

/*
 * Balance `regions` (one table's, or a whole simulated cluster's): counts
 * first, then load, as above. server_regions[s] counts the regions on
 * server s, every table's, and is kept up to date; only `regions` move
 * (counts off by more than one because of other tables stay so).
 * load_scratch holds nservers entries, the caller's, overwritten.
 * Returns the number of moves (a swap is two). REQUIRES: nservers >= 1
 * and every regions[i].server in 0 .. nservers-1.
 */
size_t placement_balance(placement_region *regions, size_t n,
			 int *server_regions, int nservers,
			 uint64_t *load_scratch);

#endif
