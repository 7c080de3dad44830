/*
 * catalog.c - table and family descriptors as JSON in the meta column
 * family ("default"): keys "ns:<name>" and "table:<ns>:<qualifier>", plus
 * "next_table_id". JSON keeps the catalog readable with RocksDB's own tools.
 */
#include "engine/catalog.h"

#include "common/error.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static const char *const bloom_names[] = {"NONE", "ROW", "ROWCOL"};
static const char *const comp_names[] = {"NONE", "SNAPPY", "LZ4", "ZSTD"};
static const char *const enc_names[] = {"NONE", "PREFIX", "DIFF", "FAST_DIFF",
					"ROW_INDEX_V1"};
static const char *const kdc_names[] = {"FALSE", "TRUE", "TTL"};

static int lookup(const char *const *names, int n, const char *s)
{
	for (int i = 0; s && i < n; i++)
		if (!strcmp(names[i], s))
			return i;
	return -1;
}

json_t *family_to_json(const sbx_family_desc *d, const char *cf_name)
{
	json_t *o = json_pack(
		"{s:s, s:i, s:i, s:I, s:s, s:s, s:i, s:s, s:s, s:b}", "NAME",
		d->name, "VERSIONS", d->max_versions, "MIN_VERSIONS",
		d->min_versions, "TTL", (json_int_t)d->ttl_seconds,
		"KEEP_DELETED_CELLS", kdc_names[d->keep_deleted_cells],
		"BLOOMFILTER", bloom_names[d->bloom_filter], "BLOCKSIZE",
		d->block_size, "COMPRESSION", comp_names[d->compression],
		"DATA_BLOCK_ENCODING", enc_names[d->data_block_encoding],
		"IN_MEMORY", d->in_memory);
	if (o && cf_name)
		json_object_set_new(o, "cf", json_string(cf_name));
	return o;
}

int family_from_json(sbx_family_desc *d, char *cf_name, size_t cf_cap,
		     const json_t *o)
{
	memset(d, 0, sizeof *d);
	const char *name = NULL, *kdc = NULL, *bloom = NULL, *comp = NULL,
		   *enc = NULL, *cf = NULL;
	json_int_t ttl = 0;
	int in_memory = 0;
	if (json_unpack((json_t *)o,
			"{s:s, s:i, s:i, s:I, s:s, s:s, s:i, s:s, s:s, s:b, s?s}",
			"NAME", &name, "VERSIONS", &d->max_versions,
			"MIN_VERSIONS", &d->min_versions, "TTL", &ttl,
			"KEEP_DELETED_CELLS", &kdc, "BLOOMFILTER", &bloom,
			"BLOCKSIZE", &d->block_size, "COMPRESSION", &comp,
			"DATA_BLOCK_ENCODING", &enc, "IN_MEMORY", &in_memory,
			"cf", &cf))
		return sbx_error_set(SBX_EIO, "corrupt family descriptor");
	int k = lookup(kdc_names, 3, kdc), b = lookup(bloom_names, 3, bloom),
	    c = lookup(comp_names, 4, comp), e = lookup(enc_names, 5, enc);
	if (k < 0 || b < 0 || c < 0 || e < 0 ||
	    strlen(name) > SBX_MAX_FAMILY_NAME)
		return sbx_error_set(SBX_EIO, "corrupt family descriptor");
	strcpy(d->name, name);
	d->ttl_seconds = ttl;
	d->keep_deleted_cells = (sbx_keep_deleted)k;
	d->bloom_filter = (sbx_bloom)b;
	d->compression = (sbx_compression)c;
	d->data_block_encoding = (sbx_block_encoding)e;
	d->in_memory = in_memory;
	if (cf_name) {
		if (!cf || strlen(cf) >= cf_cap)
			return sbx_error_set(SBX_EIO, "corrupt family descriptor");
		strcpy(cf_name, cf);
	}
	return SBX_OK;
}

char *table_to_json(const table *t)
{
	json_t *fams = json_array();
	for (size_t i = 0; i < t->nfams; i++)
		json_array_append_new(fams, family_to_json(&t->fams[i]->desc,
							   t->fams[i]->cf_name));
	json_t *o = json_pack("{s:s, s:s, s:I, s:I, s:b, s:o}", "namespace",
			      t->ns, "qualifier", t->qualifier, "id",
			      (json_int_t)t->id, "next_family_seq",
			      (json_int_t)t->next_family_seq, "enabled",
			      t->enabled, "families", fams);
	char *s = o ? json_dumps(o, JSON_COMPACT) : NULL;
	json_decref(o);
	return s;
}
