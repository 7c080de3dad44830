/*
 * schema.c - the schema model every backend shares: database and family
 * option defaults (a family's come from family_attrs.c), and the owners'
 * free functions for names lists, table descriptions and snapshot lists.
 */
#include "model/family_attrs.h"
#include "model/names.h"
#include "saltbox/db.h"

#include <stdlib.h>
#include <string.h>

void sbx_db_options_init(sbx_db_options *o)
{
	memset(o, 0, sizeof *o);
	o->create_if_missing = true;
	o->max_cell_size = 10 * 1024 * 1024;
	/* 320 MiB of cache in all; rows read again are worth more as rows
	 * (a hit skips RocksDB) than as the blocks holding them. */
	o->block_cache_bytes = (size_t)192 << 20;
	o->row_cache_bytes = (size_t)128 << 20;
	o->min_free_bytes = (uint64_t)256 << 20;
	o->max_wal_bytes = (uint64_t)256 << 20;
	o->region_servers = 4;
	o->metrics_bucket_ms = 1000;
	o->metrics_buckets = 600;
	o->region_routing = true;
}

void sbx_strv_free(char **v)
{
	if (!v)
		return;
	for (char **p = v; *p; p++)
		free(*p);
	free(v);
}

int sbx_family_desc_init(sbx_family_desc *f, const char *name)
{
	memset(f, 0, sizeof *f);
	sbx_family_desc_defaults(f);
	if (!name)
		return SBX_OK;
	int rc = names_check_family(name);
	if (rc)
		return rc;
	memcpy(f->name, name, strlen(name) + 1);
	return SBX_OK;
}

void sbx_table_info_free(sbx_table_info *info)
{
	if (!info)
		return;
	free(info->name);
	free(info->families);
	free(info);
}


void sbx_snapshot_infos_free(sbx_snapshot_info *v, size_t n)
{
	for (size_t i = 0; v && i < n; i++) {
		free(v[i].name);
		free(v[i].table);
	}
	free(v);
}
