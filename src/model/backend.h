/*
 * backend.h - the interface between the public table API (src/table/api.c)
 * and a backend: the embedded engine (src/engine) or the remote HBase REST
 * client. Callers above the table API never see it. Every operation takes
 * the backend's own handle; the API layer validates arguments that do not
 * depend on the backend.
 */
#ifndef SBX_MODEL_BACKEND_H
#define SBX_MODEL_BACKEND_H

#include "saltbox/bulk.h"
#include "saltbox/db.h"
#include "saltbox/regions.h"
#include "saltbox/table.h"

typedef struct sbx_backend_ops {
	const char *name;
	void (*close)(void *db);

	int (*namespace_create)(void *db, const char *ns);
	int (*namespace_drop)(void *db, const char *ns);
	int (*namespace_list)(char ***out, void *db);

	int (*table_create)(void *db, const char *name,
			    const sbx_family_desc *families, size_t n,
			    const sbx_bytes *splits, size_t nsplits);
	int (*table_exists)(void *db, const char *name, bool *exists);
	int (*table_describe)(sbx_table_info **out, void *db, const char *name);
	int (*table_list)(char ***out, void *db);
	int (*table_alter_family)(void *db, const char *table,
				  const sbx_family_desc *f);
	int (*table_delete_family)(void *db, const char *table,
				   const char *family);
	int (*table_set_enabled)(void *db, const char *name, bool enabled);
	int (*table_is_enabled)(void *db, const char *name, bool *enabled);
	int (*table_truncate)(void *db, const char *name);
	int (*table_drop)(void *db, const char *name);
	int (*table_flush)(void *db, const char *name);
	int (*table_major_compact)(void *db, const char *name);

	/* Regions (include/saltbox/regions.h). */
	int (*regions)(sbx_region_info **out, size_t *n, void *db,
		       const char *table);
	int (*split)(void *db, const char *table, const void *key, size_t len);
	int (*merge)(void *db, const char *table, const void *start,
		     size_t len);
	int (*set_split_policy)(void *db, const char *table,
				const sbx_split_policy *p);
	int (*get_split_policy)(void *db, const char *table,
				sbx_split_policy *p);
	int (*load)(sbx_region_load **out, size_t *n, void *db,
		    const char *table, size_t nbuckets);
	int (*region_servers)(void *db);

	/* Snapshots (include/saltbox/db.h); NULL: not supported. */
	int (*snapshot_create)(void *db, const char *table, const char *name);
	int (*snapshot_list)(sbx_snapshot_info **out, size_t *n, void *db);
	int (*snapshot_clone)(void *db, const char *name, const char *table);
	int (*snapshot_restore)(void *db, const char *name);
	int (*snapshot_delete)(void *db, const char *name);

	/* Bulk load (include/saltbox/bulk.h); NULL: not supported. *w is
	 * the backend's writer. */
	int (*bulk_open)(void **w, void *db, const char *table,
			 const char *dir);
	int (*bulk_put)(void *w, const uint8_t *row, size_t row_len,
			const char *family, const uint8_t *qual, size_t qual_len,
			int64_t ts, const uint8_t *value, size_t value_len);
	uint64_t (*bulk_count)(const void *w);
	int (*bulk_finish)(void *w);
	void (*bulk_abort)(void *w);
	int (*bulk_load)(void *db, const char *table, const char *dir);

	/* Table handles: *out is the backend's handle for sbx_table. */
	int (*table_open)(void **out, void *db, const char *name);
	void (*table_close)(void *t);

	int (*mutate)(void *t, const sbx_mutation *m, sbx_result **out);
	int (*batch)(void *t, sbx_mutation *const *ms, size_t n, int *statuses);
	int (*check_and_mutate)(void *t, const sbx_check *check,
				const sbx_mutation *m, bool *succeeded,
				sbx_result **out);
	int (*get)(sbx_result **out, void *t, const uint8_t *row,
		   size_t row_len, const sbx_read_opts *opts);

	int (*scanner_open)(void **out, void *t, const sbx_scan_opts *opts);
	/* The backend's open scanners, behind the public scanner contract. */
	sbx_scanner_ops scanner;
} sbx_backend_ops;

struct sbx_db {
	const sbx_backend_ops *ops;
	void *impl;
};

/* The embedded engine's entry point (src/engine/engine.c). */
int engine_open(void **out, const char *path, const sbx_db_options *opts);
extern const sbx_backend_ops engine_backend_ops;

/* The remote backend's entry point (src/remote/backend.c). */
int remote_connect(void **out, const char *url);
extern const sbx_backend_ops remote_backend_ops;

#endif
