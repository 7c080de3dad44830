/*
 * regions.c - the region model every backend and keyviz share: split
 * policies (HBase's IncreasingToUpperBound and ConstantSize thresholds),
 * pre-split keys (RegionSplitter's algorithms), and the owners' free
 * functions for region and load lists.
 */
#include "saltbox/regions.h"
#include "common/alloc.h"
#include "common/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sbx_split_policy_init(sbx_split_policy *p)
{
	memset(p, 0, sizeof *p);
	p->kind = SBX_SPLIT_STEPPING;
	p->max_file_size = UINT64_C(10737418240); /* hbase.hregion.max.filesize */
	p->flush_size = UINT64_C(134217728); /* hbase.hregion.memstore.flush.size */
	p->delimiter = '_';
}

uint64_t sbx_split_threshold(const sbx_split_policy *p, int regions_on_server)
{
	uint64_t initial = 2 * p->flush_size;
	switch (p->kind) {
	case SBX_SPLIT_DISABLED:
		return UINT64_MAX;
	case SBX_SPLIT_CONSTANT_SIZE:
		return p->max_file_size;
	case SBX_SPLIT_STEPPING:
		return regions_on_server == 1 ? initial : p->max_file_size;
	default: { /* IncreasingToUpperBound and its KeyPrefix variants */
		if (regions_on_server <= 0 || regions_on_server > 100)
			return p->max_file_size;
		uint64_t r = (uint64_t)regions_on_server;
		uint64_t v = initial * r * r * r;
		if (v / (r * r * r) != initial) /* overflow */
			return p->max_file_size;
		return v < p->max_file_size ? v : p->max_file_size;
	}
	}
}

void sbx_split_keys_free(sbx_split_keys *k)
{
	if (!k)
		return;
	for (size_t i = 0; i < k->n; i++)
		free((void *)k->keys[i].data);
	free(k->keys);
	k->keys = NULL;
	k->n = 0;
}

int sbx_split_keys_compute(sbx_split_keys *out, sbx_split_algo algo,
			   int nregions)
{
	memset(out, 0, sizeof *out);
	if (nregions < 2 || nregions > 65536)
		return sbx_error_set(SBX_EINVAL,
				     "number of regions must be in [2, 65536], "
				     "got %d",
				     nregions);
	size_t n = (size_t)nregions - 1;
	out->keys = sbx_calloc(n, sizeof *out->keys);
	if (!out->keys)
		return SBX_ENOMEM_SET();
	for (size_t i = 1; i <= n; i++) {
		uint8_t *k = NULL;
		size_t len = 0;
		if (algo == SBX_SPLITALGO_UNIFORM) {
			/* Bytes.split over 00..FF x 8 */
			unsigned __int128 v = (unsigned __int128)UINT64_MAX * i /
					      (unsigned)nregions;
			uint64_t x = (uint64_t)v;
			k = sbx_malloc(8);
			len = 8;
			for (int b = 7; k && b >= 0; b--, x >>= 8)
				k[b] = (uint8_t)x;
		} else {
			/* NumberStringSplit: first + range * i / n, padded to 8 */
			bool hexa = algo == SBX_SPLITALGO_HEX_STRING;
			uint64_t range = hexa ? UINT64_C(0x100000000)
					      : UINT64_C(100000000);
			uint64_t v = range * i / (unsigned)nregions;
			k = sbx_malloc(9);
			len = 8;
			if (k)
				snprintf((char *)k, 9, hexa ? "%08llx" : "%08llu",
					 (unsigned long long)v);
		}
		if (!k) {
			sbx_split_keys_free(out);
			return SBX_ENOMEM_SET();
		}
		out->keys[out->n].data = k;
		out->keys[out->n].len = len;
		out->n++;
	}
	return SBX_OK;
}

void sbx_region_infos_free(sbx_region_info *r, size_t n)
{
	for (size_t i = 0; r && i < n; i++) {
		free(r[i].name);
		free(r[i].start_key);
		free(r[i].end_key);
	}
	free(r);
}

void sbx_region_loads_free(sbx_region_load *l, size_t n)
{
	for (size_t i = 0; l && i < n; i++) {
		free(l[i].start_key);
		free(l[i].end_key);
		free(l[i].buckets);
	}
	free(l);
}

