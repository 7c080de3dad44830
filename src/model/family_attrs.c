/*
 * family_attrs.c - a column family's HBase attributes as text: HBase's
 * names and value spellings onto sbx_family_desc and back, each
 * attribute's default and range. One table serves the catalog, both
 * backends, the REST server, the shell and the CLI, so they cannot
 * disagree on a name, a spelling or a limit. Setting is all or nothing:
 * a rejected value leaves the descriptor as it was.
 */
#include "model/family_attrs.h"

#include "common/error.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const bloom_names[] = {"NONE", "ROW", "ROWCOL", NULL};
static const char *const compression_names[] = {"NONE", "SNAPPY", "LZ4",
						"ZSTD", NULL};
static const char *const encoding_names[] = {
	"NONE", "PREFIX", "DIFF", "FAST_DIFF", "ROW_INDEX_V1", NULL};
static const char *const keep_deleted_names[] = {"FALSE", "TRUE", "TTL",
						 NULL};

/* HBase has these per-family attributes; Saltbox does not model them
 * (SBX_EUNSUPPORTED, so callers can accept HBase scripts with a note). */
static const char *const unmodelled[] = {
	"REPLICATION_SCOPE",     "CACHE_DATA_ON_WRITE",
	"CACHE_INDEX_ON_WRITE", "CACHE_BLOOMS_ON_WRITE", "EVICT_BLOCKS_ON_CLOSE",
	"PREFETCH_BLOCKS_ON_OPEN", "COMPRESSION_COMPACT", "CONFIGURATION",
	"METADATA",	      "DFS_REPLICATION",       "STORAGE_POLICY",
	NULL};

typedef enum field {
	F_VERSIONS,
	F_MIN_VERSIONS,
	F_TTL,
	F_BLOCKSIZE,
	F_IN_MEMORY,
	F_BLOOM,
	F_COMPRESSION,
	F_ENCODING,
	F_KEEP_DELETED,
	F_BLOCK_CACHE,
} field;

typedef struct attr_def {
	const char *name;
	sbx_family_attr_kind kind;
	field field;
	int64_t def;              /* HBase's default */
	int64_t min, max;         /* INTEGER: the accepted range */
	const char *unit;         /* INTEGER: after the range in messages */
	const char *const *names; /* NAME: the values, in enum order */
} attr_def;

/* In the order HBase's shell `describe` prints them. */
static const attr_def attrs[] = {
	{"BLOOMFILTER", SBX_ATTR_NAME, F_BLOOM, SBX_BLOOM_ROW, 0, 0, NULL,
	 bloom_names},
	{"IN_MEMORY", SBX_ATTR_BOOLEAN, F_IN_MEMORY, 0, 0, 1, NULL, NULL},
	{"VERSIONS", SBX_ATTR_INTEGER, F_VERSIONS, 1, 1, INT32_MAX, "", NULL},
	{"KEEP_DELETED_CELLS", SBX_ATTR_NAME, F_KEEP_DELETED,
	 SBX_KEEP_DELETED_FALSE, 0, 0, NULL, keep_deleted_names},
	{"DATA_BLOCK_ENCODING", SBX_ATTR_NAME, F_ENCODING, SBX_ENCODING_NONE, 0,
	 0, NULL, encoding_names},
	{"COMPRESSION", SBX_ATTR_NAME, F_COMPRESSION, SBX_COMPRESSION_NONE, 0, 0,
	 NULL, compression_names},
	{"TTL", SBX_ATTR_INTEGER, F_TTL, SBX_TTL_FOREVER, 1, SBX_TTL_FOREVER,
	 " seconds", NULL},
	{"MIN_VERSIONS", SBX_ATTR_INTEGER, F_MIN_VERSIONS, 0, 0, INT32_MAX, "",
	 NULL},
	{"BLOCKCACHE", SBX_ATTR_BOOLEAN, F_BLOCK_CACHE, 1, 0, 1, NULL, NULL},
	{"BLOCKSIZE", SBX_ATTR_INTEGER, F_BLOCKSIZE, 65536, 1024, 16 << 20, "",
	 NULL},
};
enum { NATTRS = sizeof attrs / sizeof attrs[0] };

static size_t count_names(const char *const *names)
{
	size_t n = 0;
	while (names[n])
		n++;
	return n;
}

static const char *name_of(const char *const *names, int64_t v)
{
	return v >= 0 && (size_t)v < count_names(names) ? names[v] : "?";
}

const char *sbx_bloom_name(sbx_bloom b)
{
	return name_of(bloom_names, b);
}

const char *sbx_compression_name(sbx_compression c)
{
	return name_of(compression_names, c);
}

const char *sbx_encoding_name(sbx_block_encoding e)
{
	return name_of(encoding_names, e);
}

const char *sbx_keep_deleted_name(sbx_keep_deleted k)
{
	return name_of(keep_deleted_names, k);
}

static int64_t get_field(const sbx_family_desc *f, field x)
{
	switch (x) {
	case F_VERSIONS: return f->max_versions;
	case F_MIN_VERSIONS: return f->min_versions;
	case F_TTL: return f->ttl_seconds;
	case F_BLOCKSIZE: return f->block_size;
	case F_IN_MEMORY: return f->in_memory;
	case F_BLOOM: return f->bloom_filter;
	case F_COMPRESSION: return f->compression;
	case F_ENCODING: return f->data_block_encoding;
	case F_KEEP_DELETED: return f->keep_deleted_cells;
	case F_BLOCK_CACHE: return f->block_cache;
	}
	return 0;
}

/* REQUIRES: v within the attribute's range (checked by the callers). */
static void set_field(sbx_family_desc *f, field x, int64_t v)
{
	switch (x) {
	case F_VERSIONS: f->max_versions = (int)v; break;
	case F_MIN_VERSIONS: f->min_versions = (int)v; break;
	case F_TTL: f->ttl_seconds = v; break;
	case F_BLOCKSIZE: f->block_size = (int)v; break;
	case F_IN_MEMORY: f->in_memory = v != 0; break;
	case F_BLOOM: f->bloom_filter = (sbx_bloom)v; break;
	case F_COMPRESSION: f->compression = (sbx_compression)v; break;
	case F_ENCODING: f->data_block_encoding = (sbx_block_encoding)v; break;
	case F_KEEP_DELETED: f->keep_deleted_cells = (sbx_keep_deleted)v; break;
	case F_BLOCK_CACHE: f->block_cache = v != 0; break;
	}
}

void sbx_family_desc_defaults(sbx_family_desc *f)
{
	for (size_t i = 0; i < NATTRS; i++)
		set_field(f, attrs[i].field, attrs[i].def);
}

static const attr_def *find(const char *name)
{
	for (size_t i = 0; name && i < NATTRS; i++)
		if (!strcasecmp(attrs[i].name, name))
			return &attrs[i];
	return NULL;
}

/* The attribute `name` or SBX_EUNSUPPORTED / SBX_ENOTFOUND, message set. */
static int lookup(const attr_def **out, const char *name)
{
	if ((*out = find(name)))
		return SBX_OK;
	for (size_t i = 0; name && unmodelled[i]; i++)
		if (!strcasecmp(unmodelled[i], name))
			return sbx_error_set(SBX_EUNSUPPORTED,
					     "family attribute %s is not "
					     "supported by saltbox",
					     unmodelled[i]);
	return sbx_error_set(SBX_ENOTFOUND,
			     "unknown column family attribute '%.64s'",
			     name ? name : "");
}

/* The range rule of an INTEGER attribute: SBX_OK or SBX_EINVAL with the
 * message after `prefix` ("" or "family 'x': "). */
static int check_range(const attr_def *a, int64_t v, const char *prefix)
{
	if (v >= a->min && v <= a->max)
		return SBX_OK;
	if (v < a->min && !*a->unit && a->max == INT32_MAX)
		return sbx_error_set(SBX_EINVAL, "%s%s must be >= %lld, got %lld",
				     prefix, a->name, (long long)a->min,
				     (long long)v);
	return sbx_error_set(SBX_EINVAL, "%s%s must be in [%lld, %lld]%s, got %lld",
			     prefix, a->name, (long long)a->min,
			     (long long)a->max, a->unit, (long long)v);
}

/* Decimal, optional sign, nothing else (Java's Long.parseLong). */
static bool parse_int64(const char *s, int64_t *out)
{
	if (!*s || (!(*s >= '0' && *s <= '9') && *s != '-' && *s != '+'))
		return false;
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (errno || *end || end == s || !(end[-1] >= '0' && end[-1] <= '9'))
		return false;
	*out = v;
	return true;
}

static int parse_value(const attr_def *a, const char *value, int64_t *out)
{
	switch (a->kind) {
	case SBX_ATTR_INTEGER:
		if (a->field == F_TTL && !strcasecmp(value, "FOREVER")) {
			*out = SBX_TTL_FOREVER;
			return SBX_OK;
		}
		if (!parse_int64(value, out))
			return sbx_error_set(SBX_EINVAL, "%s must be %s, got '%.64s'",
					     a->name,
					     a->field == F_TTL
						     ? "a number of seconds or FOREVER"
						     : "an integer",
					     value);
		return check_range(a, *out, "");
	case SBX_ATTR_BOOLEAN:
		if (strcasecmp(value, "true") && strcasecmp(value, "false"))
			return sbx_error_set(SBX_EINVAL,
					     "%s must be true or false, got "
					     "'%.64s'",
					     a->name, value);
		*out = !strcasecmp(value, "true");
		return SBX_OK;
	case SBX_ATTR_NAME:
		break;
	}
	char known[128] = "";
	for (size_t i = 0; a->names[i]; i++) {
		if (!strcasecmp(value, a->names[i])) {
			*out = (int64_t)i;
			return SBX_OK;
		}
		strncat(known, i ? ", " : "", sizeof known - strlen(known) - 1);
		strncat(known, a->names[i], sizeof known - strlen(known) - 1);
	}
	return sbx_error_set(SBX_EINVAL, "%s '%.64s' is not supported (use one "
					 "of: %s)",
			     a->name, value, known);
}

int sbx_family_desc_set(sbx_family_desc *f, const char *attr,
			const char *value)
{
	const attr_def *a;
	int rc = lookup(&a, attr);
	if (rc)
		return rc;
	int64_t v = 0;
	if ((rc = parse_value(a, value ? value : "", &v)))
		return rc;
	set_field(f, a->field, v);
	return SBX_OK;
}

static void describe(sbx_family_attr *out, const sbx_family_desc *f,
		     const attr_def *a)
{
	int64_t v = get_field(f, a->field);
	out->name = a->name;
	out->kind = a->kind;
	out->is_default = v == a->def;
	if (a->kind == SBX_ATTR_INTEGER)
		snprintf(out->value, sizeof out->value, "%lld", (long long)v);
	else if (a->kind == SBX_ATTR_BOOLEAN)
		snprintf(out->value, sizeof out->value, "%s", v ? "true" : "false");
	else
		snprintf(out->value, sizeof out->value, "%s", name_of(a->names, v));
}

int sbx_family_desc_attr(sbx_family_attr *out, const sbx_family_desc *f,
			 size_t i)
{
	if (i >= NATTRS)
		return SBX_ITEROVER;
	describe(out, f, &attrs[i]);
	return SBX_OK;
}

int sbx_family_desc_get(sbx_family_attr *out, const sbx_family_desc *f,
			const char *attr)
{
	const attr_def *a;
	int rc = lookup(&a, attr);
	if (rc)
		return rc;
	describe(out, f, a);
	return SBX_OK;
}

static const attr_def *attr_for(field x)
{
	for (size_t i = 0; i < NATTRS; i++)
		if (attrs[i].field == x)
			return &attrs[i];
	return NULL;
}

int sbx_family_desc_validate(const sbx_family_desc *f)
{
	char prefix[SBX_MAX_FAMILY_NAME + 16];
	snprintf(prefix, sizeof prefix, "family '%s': ", f->name);
	int rc = check_range(attr_for(F_VERSIONS), f->max_versions, prefix);
	if (rc)
		return rc;
	if (f->min_versions < 0 || f->min_versions > f->max_versions)
		return sbx_error_set(SBX_EINVAL,
				     "%sMIN_VERSIONS must be in [0, VERSIONS=%d], "
				     "got %d",
				     prefix, f->max_versions, f->min_versions);
	if ((rc = check_range(attr_for(F_TTL), f->ttl_seconds, prefix)) ||
	    (rc = check_range(attr_for(F_BLOCKSIZE), f->block_size, prefix)))
		return rc;
	for (size_t i = 0; i < NATTRS; i++) {
		const attr_def *a = &attrs[i];
		int64_t v = get_field(f, a->field);
		if (a->kind == SBX_ATTR_NAME &&
		    (v < 0 || (size_t)v >= count_names(a->names)))
			return sbx_error_set(SBX_EINVAL,
					     "%sattribute out of range", prefix);
	}
	return SBX_OK;
}
