/*
 * backend.h - the interface between the public table API (src/table/) and
 * a backend: the embedded engine (src/engine) or the remote HBase REST
 * client. A backend implements the required part (admin and data path) and
 * any of the optional capability tables. Callers above the table API never
 * see it. Every operation takes the backend's own handle; the API layer
 * validates arguments that do not depend on the backend.
 */
#ifndef SBX_MODEL_BACKEND_H
#define SBX_MODEL_BACKEND_H

#include "saltbox/bulk.h"
#include "saltbox/db.h"
#include "saltbox/regions.h"
#include "saltbox/table.h"

#include <pthread.h>
#include <stdio.h>

/* Optional capabilities: a backend points at a table of these, or leaves
 * the pointer NULL, and the table layer answers SBX_EUNSUPPORTED for it
 * (one message, in src/table/api.c). Every member of a table is set. */

/* Regions (include/saltbox/regions.h). */
typedef struct sbx_backend_regions {
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
} sbx_backend_regions;

/* Snapshots (include/saltbox/db.h). */
typedef struct sbx_backend_snapshots {
	int (*create)(void *db, const char *table, const char *name);
	int (*list)(sbx_snapshot_info **out, size_t *n, void *db);
	int (*clone)(void *db, const char *name, const char *table);
	int (*restore)(void *db, const char *name);
	int (*drop)(void *db, const char *name);
} sbx_backend_snapshots;

/* Bulk load (include/saltbox/bulk.h); *w is the backend's writer. */
typedef struct sbx_backend_bulk {
	int (*open)(void **w, void *db, const char *table, const char *dir);
	int (*put)(void *w, const uint8_t *row, size_t row_len,
		   const char *family, const uint8_t *qual, size_t qual_len,
		   int64_t ts, const uint8_t *value, size_t value_len);
	uint64_t (*count)(const void *w);
	int (*finish)(void *w);
	void (*abort)(void *w);
	int (*load)(void *db, const char *table, const char *dir);
} sbx_backend_bulk;

/* Atomic conditional writes across rows and tables
 * (sbx_db_check_and_mutate_rows, include/saltbox/table.h). The table layer
 * has checked the arguments but not the families, nor that no row appears
 * twice: rows[i].table is the backend's table handle. */
typedef struct sbx_backend_row_change {
	void *table;
	const uint8_t *row;
	size_t row_len;
	const sbx_check *check;	      /* NULL: none */
	const sbx_mutation *mutation; /* NULL: none */
} sbx_backend_row_change;

typedef struct sbx_backend_multirow {
	int (*check_and_mutate_rows)(void *db,
				     const sbx_backend_row_change *rows,
				     size_t n, bool *succeeded, size_t *failed);
} sbx_backend_multirow;

/* What every backend implements: the data path and table admin. */
typedef struct sbx_backend_ops {
	const char *name;
	/* The protocol a client backend speaks, named in its "not supported"
	 * errors ("HBase's REST gateway"); NULL for the embedded engine. */
	const char *protocol;
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

	/* Optional capabilities; NULL: SBX_EUNSUPPORTED. */
	const sbx_backend_regions *regions;
	const sbx_backend_snapshots *snapshots;
	const sbx_backend_bulk *bulk;
	const sbx_backend_multirow *multirow;
} sbx_backend_ops;

struct sbx_db {
	const sbx_backend_ops *ops;
	void *impl;
	FILE *trace; /* the operation trace (src/table/trace.c), or NULL */
	pthread_mutex_t trace_lock;
	/* per-table key samplers (src/table/keysample.c), or NULL */
	struct table_keysamples *keysamples;
	struct table_trace_layout *trace_layout; /* trace.c's, under the lock */
};

/* The embedded engine's entry point (src/engine/db.c; its ops in backend.c). */
int engine_open(void **out, const char *path, const sbx_db_options *opts);
extern const sbx_backend_ops engine_backend_ops;

/* The remote backend's entry point (src/remote/backend.c). */
int remote_connect(void **out, const char *url);
extern const sbx_backend_ops remote_backend_ops;

/* The Cloud Bigtable backend's entry point (src/bigtable/backend.c). */
int bigtable_connect(void **out, const char *url);
extern const sbx_backend_ops bigtable_backend_ops;

#endif
