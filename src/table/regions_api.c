/*
 * regions_api.c - dispatch of the public region calls to the backend's
 * regions capability (model/backend.h); the split-policy and pre-split
 * arithmetic they share with keyviz is in src/model/regions.c.
 */
#include "common/error.h"
#include "model/names.h"
#include "table/dispatch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK_NAME(name)                                                       \
	do {                                                                   \
		char ns_[SBX_MAX_TABLE_NAME + 1], q_[SBX_MAX_TABLE_NAME + 1];  \
		int rc_ = names_split_table((name), ns_, q_);                  \
		if (rc_)                                                       \
			return rc_;                                            \
		if (!db->ops->regions)                                         \
			return table_unsupported(db, "regions", "region");     \
	} while (0)

int sbx_table_regions(sbx_region_info **out, size_t *n, sbx_db *db,
		      const char *table)
{
	*out = NULL;
	*n = 0;
	CHECK_NAME(table);
	return db->ops->regions->regions(out, n, db->impl, table);
}

int sbx_table_split(sbx_db *db, const char *table, const void *split_key,
		    size_t split_key_len)
{
	CHECK_NAME(table);
	if (split_key_len > SBX_MAX_ROW_LENGTH)
		return sbx_error_set(SBX_ETOOLARGE, "split key longer than %d bytes",
				     SBX_MAX_ROW_LENGTH);
	return db->ops->regions->split(db->impl, table, split_key,
				       split_key_len);
}

int sbx_table_merge(sbx_db *db, const char *table, const void *start_key,
		    size_t start_key_len)
{
	CHECK_NAME(table);
	return db->ops->regions->merge(db->impl, table, start_key,
				       start_key_len);
}

int sbx_table_set_split_policy(sbx_db *db, const char *table,
			       const sbx_split_policy *p)
{
	CHECK_NAME(table);
	if ((unsigned)p->kind > SBX_SPLIT_DISABLED)
		return sbx_error_set(SBX_EINVAL, "unknown split policy %d",
				     (int)p->kind);
	if (p->max_file_size == 0 || p->flush_size == 0)
		return sbx_error_set(SBX_EINVAL,
				     "max_file_size and flush_size must be > 0");
	if (p->kind == SBX_SPLIT_KEY_PREFIX && p->prefix_length == 0)
		return sbx_error_set(SBX_EINVAL,
				     "KeyPrefixRegionSplitPolicy needs "
				     "prefix_length > 0");
	return db->ops->regions->set_split_policy(db->impl, table, p);
}

int sbx_table_get_split_policy(sbx_split_policy *p, sbx_db *db,
			       const char *table)
{
	CHECK_NAME(table);
	return db->ops->regions->get_split_policy(db->impl, table, p);
}

int sbx_table_load(sbx_region_load **out, size_t *n, sbx_db *db,
		   const char *table, size_t nbuckets)
{
	*out = NULL;
	*n = 0;
	CHECK_NAME(table);
	if (nbuckets == 0)
		return sbx_error_set(SBX_EINVAL, "nbuckets must be > 0");
	return db->ops->regions->load(out, n, db->impl, table, nbuckets);
}

int sbx_db_region_servers(sbx_db *db)
{
	return db->ops->regions ? db->ops->regions->region_servers(db->impl)
				: 0;
}
