/*
 * schema.c - the schema model every backend shares: database and family
 * option defaults, HBase's names for family attributes, and the owners'
 * free functions for names lists, table descriptions and snapshot lists.
 */
#include "model/names.h"
#include "saltbox/db.h"

#include <stdlib.h>
#include <string.h>

void sbx_db_options_init(sbx_db_options *o)
{
	memset(o, 0, sizeof *o);
	o->create_if_missing = true;
	o->max_cell_size = 10 * 1024 * 1024;
	o->block_cache_bytes = 256u * 1024 * 1024;
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
	f->max_versions = 1;
	f->min_versions = 0;
	f->ttl_seconds = SBX_TTL_FOREVER;
	f->keep_deleted_cells = SBX_KEEP_DELETED_FALSE;
	f->bloom_filter = SBX_BLOOM_ROW;
	f->block_size = 65536;
	f->compression = SBX_COMPRESSION_NONE;
	f->data_block_encoding = SBX_ENCODING_NONE;
	f->in_memory = false;
	if (!name)
		return SBX_OK;
	int rc = names_check_family(name);
	if (rc)
		return rc;
	memcpy(f->name, name, strlen(name) + 1);
	return SBX_OK;
}

const char *sbx_bloom_name(sbx_bloom b)
{
	static const char *n[] = {"NONE", "ROW", "ROWCOL"};
	return (unsigned)b < 3 ? n[b] : "?";
}

const char *sbx_compression_name(sbx_compression c)
{
	static const char *n[] = {"NONE", "SNAPPY", "LZ4", "ZSTD"};
	return (unsigned)c < 4 ? n[c] : "?";
}

const char *sbx_encoding_name(sbx_block_encoding e)
{
	static const char *n[] = {"NONE", "PREFIX", "DIFF", "FAST_DIFF",
				  "ROW_INDEX_V1"};
	return (unsigned)e < 5 ? n[e] : "?";
}

const char *sbx_keep_deleted_name(sbx_keep_deleted k)
{
	static const char *n[] = {"FALSE", "TRUE", "TTL"};
	return (unsigned)k < 3 ? n[k] : "?";
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
