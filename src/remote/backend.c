/*
 * backend.c - the remote backend's ops table and remote_connect(): parse
 * and check the gateway URL, read the optional bearer token from
 * SALTBOX_TOKEN, and make the handle sbx_db_connect() wraps. Every
 * operation goes through the keep-alive handle pool in http.c.
 */
#include "remote/remote.h"

#include "common/alloc.h"
#include "common/error.h"

#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static void remote_close(void *p)
{
	remote_db *db = p;
	if (!db)
		return;
	for (size_t i = 0; i < db->npool; i++)
		curl_easy_cleanup(db->pool[i]);
	pthread_mutex_destroy(&db->pool_lock);
	free(db->base);
	free(db->auth_header);
	free(db);
}

static const sbx_backend_regions remote_regions_ops = {
    remote_regions,
    remote_split,
    remote_merge,
    remote_set_split_policy,
    remote_get_split_policy,
    remote_load,
    remote_region_servers,
};

const sbx_backend_ops remote_backend_ops = {
    .name = "remote",
    .protocol = "HBase's REST gateway",
    .close = remote_close,
    .namespace_create = remote_namespace_create,
    .namespace_drop = remote_namespace_drop,
    .namespace_list = remote_namespace_list,
    .table_create = remote_table_create,
    .table_exists = remote_table_exists,
    .table_describe = remote_table_describe,
    .table_list = remote_table_list,
    .table_alter_family = remote_table_alter_family,
    .table_delete_family = remote_table_delete_family,
    .table_set_enabled = remote_table_set_enabled,
    .table_is_enabled = remote_table_is_enabled,
    .table_truncate = remote_table_truncate,
    .table_drop = remote_table_drop,
    .table_flush = remote_table_flush,
    .table_major_compact = remote_table_major_compact,
    .table_open = remote_table_open,
    .table_close = remote_table_close,
    .mutate = remote_mutate,
    .batch = remote_batch,
    .check_and_mutate = remote_check_and_mutate,
    .get = remote_get,
    .scanner_open = remote_scanner_open,
    .scanner = {remote_scanner_next, remote_scanner_close},
    .regions = &remote_regions_ops,
    /* HBase's REST gateway has no snapshot or bulk-load endpoints */
};

int remote_connect(void **out, const char *url)
{
	*out = NULL;
	if (!url || (strncasecmp(url, "http://", 7) && strncasecmp(url, "https://", 8)))
		return sbx_error_set(SBX_EINVAL,
				     "'%s' is not an HBase REST URL "
				     "(expected http://host:port)",
				     url ? url : "");
	const char *host = strstr(url, "://") + 3;
	if (!*host || *host == '/')
		return sbx_error_set(SBX_EINVAL, "URL '%s' has no host", url);
	remote_db *db = sbx_calloc(1, sizeof *db);
	if (!db || !(db->base = sbx_strdup(url))) {
		free(db);
		return SBX_ENOMEM_SET();
	}
	size_t n = strlen(db->base);
	while (n > 0 && db->base[n - 1] == '/')
		db->base[--n] = 0;
	const char *token = getenv("SALTBOX_TOKEN");
	if (token && *token) {
		size_t len = strlen(token) + 32;
		db->auth_header = sbx_malloc(len);
		if (!db->auth_header) {
			free(db->base);
			free(db);
			return SBX_ENOMEM_SET();
		}
		snprintf(db->auth_header, len, "Authorization: Bearer %s", token);
	}
	pthread_mutex_init(&db->pool_lock, NULL);
	db->attempts = REMOTE_ATTEMPTS;
	db->timeout_ms = 600000;
	*out = db;
	return SBX_OK;
}
