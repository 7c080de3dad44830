/*
 * backend.c - the Bigtable backend's ops table and bigtable_connect():
 * parse "bigtable://PROJECT/INSTANCE", find the endpoint (the emulator at
 * BIGTABLE_EMULATOR_HOST, in plaintext with no credentials, as Google's
 * clients do) and open the gRPC channel. Production Bigtable needs TLS and
 * OAuth2, which this backend does not do yet: without the variable the
 * connect fails with SBX_EUNSUPPORTED saying so.
 */
#include "bigtable/bigtable.h"

#include "common/alloc.h"
#include "common/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static void bt_close(void *p)
{
	bt_db *db = p;
	if (!db)
		return;
	bt_rpc_close(db);
	bt_schema_free_all(db);
	pthread_mutex_destroy(&db->lock);
	free(db->instance);
	free(db->target);
	free(db);
}

/* Bigtable's tablets as regions: SampleRowKeys' keys are boundaries. */
static int bt_split(void *db, const char *table, const void *key, size_t len)
{
	(void)db;
	(void)table;
	(void)key;
	(void)len;
	return sbx_error_set(SBX_EUNSUPPORTED,
			     "the bigtable backend does not support splitting "
			     "(Bigtable splits and merges tablets itself)");
}

static int bt_merge(void *db, const char *table, const void *start, size_t len)
{
	return bt_split(db, table, start, len);
}

static int bt_set_split_policy(void *db, const char *table,
			       const sbx_split_policy *p)
{
	(void)p;
	return bt_split(db, table, NULL, 0);
}

static int bt_get_split_policy(void *db, const char *table,
			       sbx_split_policy *p)
{
	(void)p;
	return bt_split(db, table, NULL, 0);
}

static int bt_load(sbx_region_load **out, size_t *n, void *db,
		   const char *table, size_t nbuckets)
{
	(void)out;
	(void)n;
	(void)db;
	(void)table;
	(void)nbuckets;
	return sbx_error_set(SBX_EUNSUPPORTED,
			     "the bigtable backend has no per-region load "
			     "(Key Visualizer is Bigtable's own tool)");
}

static int bt_region_servers(void *db)
{
	(void)db;
	return 1;
}

static const sbx_backend_regions bt_regions_ops = {
    bt_regions,
    bt_split,
    bt_merge,
    bt_set_split_policy,
    bt_get_split_policy,
    bt_load,
    bt_region_servers,
};

const sbx_backend_ops bigtable_backend_ops = {
    .name = "bigtable",
    .protocol = "Cloud Bigtable's API",
    .close = bt_close,
    .namespace_create = bt_namespace_create,
    .namespace_drop = bt_namespace_drop,
    .namespace_list = bt_namespace_list,
    .table_create = bt_table_create,
    .table_exists = bt_table_exists,
    .table_describe = bt_table_describe,
    .table_list = bt_table_list,
    .table_alter_family = bt_table_alter_family,
    .table_delete_family = bt_table_delete_family,
    .table_set_enabled = bt_table_set_enabled,
    .table_is_enabled = bt_table_is_enabled,
    .table_truncate = bt_table_truncate,
    .table_drop = bt_table_drop,
    .table_flush = bt_table_flush,
    .table_major_compact = bt_table_major_compact,
    .table_open = bt_table_open,
    .table_close = bt_table_close,
    .mutate = bt_mutate,
    .batch = bt_batch,
    .check_and_mutate = bt_check_and_mutate,
    .get = bt_get,
    .scanner_open = bt_scanner_open,
    .scanner = {bt_scanner_next, bt_scanner_close},
    .regions = &bt_regions_ops,
    /* Bigtable's snapshot API is not in the emulator; bulk load has no
     * Bigtable counterpart (imports go through MutateRows) */
};

/* Each call's deadline: a minute by default; SALTBOX_BIGTABLE_TIMEOUT_MS
 * sets another (a test makes a stalled emulator fail fast). */
#define BT_DEFAULT_TIMEOUT_MS 60000
#define BT_MAX_TIMEOUT_MS 86400000 /* a day */

/* Digits only, 1..BT_MAX_TIMEOUT_MS. */
static bool parse_timeout(long *out, const char *s)
{
	long v = 0;
	if (!*s)
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return false;
		v = v * 10 + (*s - '0');
		if (v > BT_MAX_TIMEOUT_MS)
			return false;
	}
	if (v < 1)
		return false;
	*out = v;
	return true;
}

int bigtable_connect(void **out, const char *url)
{
	*out = NULL;
	const char *p = url && !strncasecmp(url, "bigtable://", 11) ? url + 11
								     : NULL;
	const char *slash = p ? strchr(p, '/') : NULL;
	if (!p || !slash || slash == p || !slash[1] || strchr(slash + 1, '/'))
		return sbx_error_set(SBX_EINVAL,
				     "'%s' is not a Bigtable URL (expected "
				     "bigtable://PROJECT/INSTANCE)",
				     url ? url : "");
	const char *host = getenv("BIGTABLE_EMULATOR_HOST");
	if (!host || !*host)
		return sbx_error_set(
			SBX_EUNSUPPORTED,
			"the bigtable backend reaches only the Bigtable "
			"emulator so far: set BIGTABLE_EMULATOR_HOST=host:port "
			"(production Bigtable needs TLS and OAuth2, not yet "
			"supported)");
	long timeout_ms = BT_DEFAULT_TIMEOUT_MS;
	const char *tv = getenv("SALTBOX_BIGTABLE_TIMEOUT_MS");
	if (tv && !parse_timeout(&timeout_ms, tv))
		return sbx_error_set(SBX_EINVAL,
				     "SALTBOX_BIGTABLE_TIMEOUT_MS='%s' is not a "
				     "number of milliseconds from 1 to %d",
				     tv, BT_MAX_TIMEOUT_MS);
	bt_db *db = sbx_calloc(1, sizeof *db);
	if (!db)
		return SBX_ENOMEM_SET();
	size_t len = strlen(p) + 32;
	db->instance = sbx_malloc(len);
	db->target = sbx_strdup(host);
	if (!db->instance || !db->target) {
		free(db->instance);
		free(db->target);
		free(db);
		return SBX_ENOMEM_SET();
	}
	snprintf(db->instance, len, "projects/%.*s/instances/%s",
		 (int)(slash - p), p, slash + 1);
	pthread_mutex_init(&db->lock, NULL);
	db->timeout_ms = timeout_ms;
	sbx_db_options defaults;
	sbx_db_options_init(&defaults);
	db->max_cell_size = defaults.max_cell_size;
	int rc = bt_rpc_open(db, host);
	if (rc) {
		bt_close(db);
		return rc;
	}
	*out = db;
	return SBX_OK;
}
