/*
 * snapshot.c - HBase's table snapshots on RocksDB checkpoints. A snapshot is
 * DBDIR/snapshots/NAME: a checkpoint of the whole instance (memtables flushed,
 * store files hard-linked: one consistent moment) and snapshot.json (table,
 * families with attributes and column family names, region start keys). It is
 * built under snapshots/.NAME.tmp and renamed into place, so a crash never
 * leaves half a snapshot under a name.
 */
#include "common/alloc.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fs.h"
#include "engine/catalog.h"
#include "engine/engine.h"
#include "model/names.h"
#include "saltbox/rowkey.h"

#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Cells copied per write batch when cloning. */
#define CLONE_BATCH_BYTES ((size_t)1 << 20)

typedef struct snap_family {
	sbx_family_desc desc;
	char cf_name[CF_NAME_CAP];
} snap_family;

/* What snapshot.json records. */
typedef struct snap_meta {
	char *table;
	int64_t created_ms;
	snap_family *fams;
	size_t nfams;
	sbx_bytes *splits;
	size_t nsplits;
} snap_meta;

static void meta_free(snap_meta *m)
{
	free(m->table);
	free(m->fams);
	for (size_t i = 0; i < m->nsplits; i++)
		free((void *)m->splits[i].data);
	free(m->splits);
	memset(m, 0, sizeof *m);
}

static int snap_path(sbx_buf *out, const engine *e, const char *name,
		     const char *leaf)
{
	out->len = 0;
	int rc = sbx_buf_printf(out, "%s/snapshots", e->path);
	if (!rc && name)
		rc = sbx_buf_printf(out, "/%s", name);
	if (!rc && leaf)
		rc = sbx_buf_printf(out, "/%s", leaf);
	return rc;
}

/* ---- snapshot.json ---- */

static int meta_write(const table *t, const char *path, int64_t now)
{
	json_t *fams = json_array(), *splits = json_array();
	sbx_buf txt = {0};
	int rc = SBX_OK;
	for (size_t i = 0; fams && i < t->nfams; i++)
		json_array_append_new(fams, family_to_json(&t->fams[i]->desc,
							   t->fams[i]->cf_name));
	for (size_t i = 1; !rc && splits && i < t->nregions; i++) {
		/* region 0 starts at the table's start: no split key. Keys
		 * as HBase's binary strings (\xHH escapes), readable. */
		const sbx_buf *s = &t->regions[i]->start;
		txt.len = 0;
		rc = sbx_key_to_binary_string(&txt, s->data, s->len);
		if (!rc)
			json_array_append_new(
				splits, json_stringn((char *)txt.data, txt.len));
	}
	sbx_buf_free(&txt);
	if (rc) {
		json_decref(fams);
		json_decref(splits);
		return rc;
	}
	char name[2 * SBX_MAX_TABLE_NAME + 2];
	names_canonical(name, sizeof name, t->ns, t->qualifier);
	json_t *o = json_pack("{s:s, s:I, s:o, s:o}", "table", name,
			      "created_ms", (json_int_t)now, "families", fams,
			      "splits", splits);
	if (!o)
		return SBX_ENOMEM_SET();
	rc = json_dump_file(o, path, JSON_COMPACT) == 0
		     ? SBX_OK
		     : sbx_error_set(SBX_EIO, "cannot write '%s'", path);
	json_decref(o);
	return rc;
}

static int meta_read(snap_meta *m, const engine *e, const char *name)
{
	memset(m, 0, sizeof *m);
	sbx_buf p = {0};
	int rc = snap_path(&p, e, name, "snapshot.json");
	if (rc)
		return rc;
	json_error_t jerr;
	json_t *o = json_load_file((const char *)p.data, 0, &jerr);
	bool missing = !o && !sbx_path_exists((const char *)p.data);
	sbx_buf_free(&p);
	if (missing)
		return sbx_error_set(SBX_ENOTFOUND,
				     "snapshot '%s' does not exist", name);
	const char *table = NULL;
	json_int_t created = 0;
	json_t *fams = NULL, *splits = NULL;
	if (!o || json_unpack(o, "{s:s, s:I, s:o, s:o}", "table", &table,
			      "created_ms", &created, "families", &fams,
			      "splits", &splits) ||
	    !json_is_array(fams) || !json_is_array(splits) ||
	    json_array_size(fams) == 0) {
		json_decref(o);
		return sbx_error_set(SBX_EIO, "snapshot '%s' is corrupt", name);
	}
	m->table = sbx_strdup(table);
	m->created_ms = created;
	m->nfams = json_array_size(fams);
	m->fams = sbx_calloc(m->nfams, sizeof *m->fams);
	m->splits = sbx_calloc(json_array_size(splits) + 1, sizeof *m->splits);
	rc = m->table && m->fams && m->splits ? SBX_OK : SBX_ENOMEM_SET();
	for (size_t i = 0; !rc && i < m->nfams; i++)
		rc = family_from_json(&m->fams[i].desc, m->fams[i].cf_name,
				      sizeof m->fams[i].cf_name,
				      json_array_get(fams, i));
	for (size_t i = 0; !rc && i < json_array_size(splits); i++) {
		json_t *h = json_array_get(splits, i);
		sbx_buf k = {0};
		if (!json_is_string(h) ||
		    sbx_key_from_binary_string(&k, json_string_value(h),
					       json_string_length(h)) ||
		    k.len == 0) {
			sbx_buf_free(&k);
			rc = sbx_error_set(SBX_EIO, "snapshot '%s' is corrupt",
					   name);
			break;
		}
		m->splits[m->nsplits].data = k.data;
		m->splits[m->nsplits++].len = k.len;
	}
	json_decref(o);
	if (rc)
		meta_free(m);
	return rc;
}

/* ---- create ---- */

/* Take the snapshot; REQUIRES admin_lock (no schema change under us). */
static int create_locked(engine *e, const char *table_name, const char *name)
{
	table *t;
	int rc = engine_table_get(&t, e, table_name);
	if (rc)
		return rc;
	sbx_buf dir = {0}, fin = {0}, tmp = {0}, cp = {0}, js = {0};
	rc = snap_path(&dir, e, NULL, NULL);
	if (!rc)
		rc = snap_path(&fin, e, name, NULL);
	if (!rc)
		rc = sbx_buf_printf(&tmp, "%s/.%s.tmp", (char *)dir.data, name);
	if (!rc)
		rc = sbx_buf_printf(&cp, "%s/checkpoint", (char *)tmp.data);
	if (!rc)
		rc = sbx_buf_printf(&js, "%s/snapshot.json", (char *)tmp.data);
	if (!rc && mkdir((char *)dir.data, 0755) != 0 && errno != EEXIST)
		rc = sbx_error_set(SBX_EIO, "cannot create '%s': %s",
				   (char *)dir.data, strerror(errno));
	if (!rc && sbx_path_exists((char *)fin.data))
		rc = sbx_error_set(SBX_EEXISTS, "snapshot '%s' already exists",
				   name);
	if (!rc)
		rc = sbx_rmtree((char *)tmp.data); /* left by a crash */
	if (!rc && mkdir((char *)tmp.data, 0755) != 0)
		rc = sbx_error_set(SBX_EIO, "cannot create '%s': %s",
				   (char *)tmp.data, strerror(errno));
	if (!rc) {
		char *err = NULL;
		rocksdb_checkpoint_t *c = rocksdb_checkpoint_object_create(e->db,
									   &err);
		if (!err)
			rocksdb_checkpoint_create(c, (char *)cp.data, 0, &err);
		if (c)
			rocksdb_checkpoint_object_destroy(c);
		if (err)
			rc = engine_rocks_error(err, "taking a checkpoint");
	}
	if (!rc)
		rc = meta_write(t, (char *)js.data, engine_now_ms());
	if (!rc && rename((char *)tmp.data, (char *)fin.data) != 0)
		rc = sbx_error_set(SBX_EIO, "cannot rename '%s': %s",
				   (char *)tmp.data, strerror(errno));
	if (rc && tmp.data)
		sbx_rmtree((char *)tmp.data); /* nothing half-made stays */
	sbx_buf_free(&dir);
	sbx_buf_free(&fin);
	sbx_buf_free(&tmp);
	sbx_buf_free(&cp);
	sbx_buf_free(&js);
	table_unref(t);
	return rc;
}

int engine_snapshot_create(void *p, const char *table, const char *name)
{
	engine *e = p;
	if (e->opts.read_only)
		return sbx_error_set(SBX_EREADONLY, "database is read-only");
	pthread_mutex_lock(&e->admin_lock);
	int rc = create_locked(e, table, name);
	pthread_mutex_unlock(&e->admin_lock);
	return rc;
}

/* ---- list, delete ---- */

static int cmp_info(const void *a, const void *b)
{
	const sbx_snapshot_info *x = a, *y = b;
	return strcmp(x->name, y->name);
}

int engine_snapshot_list(sbx_snapshot_info **out, size_t *n, void *p)
{
	engine *e = p;
	sbx_buf dir = {0};
	int rc = snap_path(&dir, e, NULL, NULL);
	DIR *d = rc ? NULL : opendir((char *)dir.data);
	sbx_buf_free(&dir);
	if (rc || !d)
		return rc; /* no snapshots directory: none taken */
	sbx_snapshot_info *v = NULL;
	size_t cap = 0;
	struct dirent *de;
	while (!rc && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue; /* ".", "..", and unfinished ".NAME.tmp" */
		snap_meta m;
		if (meta_read(&m, e, de->d_name))
			continue; /* not a snapshot */
		if (*n == cap) {
			cap = cap ? 2 * cap : 8;
			sbx_snapshot_info *nv =
			    sbx_realloc(v, cap * sizeof *nv);
			if (!nv) {
				meta_free(&m);
				rc = SBX_ENOMEM_SET();
				break;
			}
			v = nv;
		}
		v[*n].name = sbx_strdup(de->d_name);
		v[*n].table = m.table;
		v[*n].created_ms = m.created_ms;
		m.table = NULL;
		meta_free(&m);
		if (!v[(*n)++].name)
			rc = SBX_ENOMEM_SET();
	}
	closedir(d);
	if (rc) {
		sbx_snapshot_infos_free(v, *n);
		*n = 0;
		return rc;
	}
	if (*n)
		qsort(v, *n, sizeof *v, cmp_info);
	*out = v;
	return SBX_OK;
}

static int delete_locked(engine *e, const char *name)
{
	sbx_buf fin = {0}, tmp = {0};
	int rc = snap_path(&fin, e, name, NULL);
	if (!rc)
		rc = snap_path(&tmp, e, NULL, NULL);
	if (!rc)
		rc = sbx_buf_printf(&tmp, "/.%s.tmp", name);
	if (!rc && !sbx_path_exists((char *)fin.data))
		rc = sbx_error_set(SBX_ENOTFOUND, "snapshot '%s' does not exist",
				   name);
	/* Out of sight at once, then removed. */
	if (!rc && (sbx_rmtree((char *)tmp.data) ||
		    rename((char *)fin.data, (char *)tmp.data) != 0))
		rc = sbx_error_set(SBX_EIO, "cannot remove snapshot '%s': %s",
				   name, strerror(errno));
	if (!rc)
		rc = sbx_rmtree((char *)tmp.data);
	sbx_buf_free(&fin);
	sbx_buf_free(&tmp);
	return rc;
}

int engine_snapshot_delete(void *p, const char *name)
{
	engine *e = p;
	if (e->opts.read_only)
		return sbx_error_set(SBX_EREADONLY, "database is read-only");
	pthread_mutex_lock(&e->admin_lock);
	int rc = delete_locked(e, name);
	pthread_mutex_unlock(&e->admin_lock);
	return rc;
}

/* ---- clone, restore ---- */

/* Copy every cell of the snapshot's families into table `dst`. */
static int copy_cells(engine *e, const snap_meta *m, const char *cpdir,
		      table *dst)
{
	size_t n = m->nfams + 1;
	const char **names = sbx_calloc(n, sizeof *names);
	const rocksdb_options_t **opts = sbx_calloc(n, sizeof *opts);
	rocksdb_column_family_handle_t **h = sbx_calloc(n, sizeof *h);
	int rc = names && opts && h ? SBX_OK : SBX_ENOMEM_SET();
	rocksdb_t *src = NULL;
	if (!rc) {
		names[0] = "default";
		opts[0] = e->dbopts;
		for (size_t i = 0; i < m->nfams; i++) {
			names[i + 1] = m->fams[i].cf_name;
			opts[i + 1] = e->dbopts;
		}
		char *err = NULL;
		src = rocksdb_open_for_read_only_column_families(
			e->dbopts, cpdir, (int)n, names, opts, h, 0, &err);
		if (err)
			rc = engine_rocks_error(err, "opening a snapshot");
	}
	rocksdb_readoptions_t *ro = rc ? NULL : rocksdb_readoptions_create();
	if (ro)
		rocksdb_readoptions_set_fill_cache(ro, 0);
	rocksdb_writebatch_t *wb = rc ? NULL : rocksdb_writebatch_create();
	table_rdlock(dst); /* table_family reads its families */
	for (size_t i = 0; !rc && i < m->nfams; i++) {
		family *f = table_family(dst, m->fams[i].desc.name);
		if (!f) {
			rc = sbx_error_set(SBX_EIO, "cloned table lacks family "
						    "'%s'",
					   m->fams[i].desc.name);
			break;
		}
		rocksdb_iterator_t *it = rocksdb_create_iterator_cf(src, ro,
								    h[i + 1]);
		size_t bytes = 0;
		for (rocksdb_iter_seek_to_first(it); !rc && rocksdb_iter_valid(it);
		     rocksdb_iter_next(it)) {
			size_t kl, vl;
			const char *k = rocksdb_iter_key(it, &kl);
			const char *v = rocksdb_iter_value(it, &vl);
			rocksdb_writebatch_put_cf(wb, f->cf, k, kl, v, vl);
			bytes += kl + vl;
			if (bytes >= CLONE_BATCH_BYTES) {
				char *err = NULL;
				rocksdb_write(e->db, e->wo_wal, wb, &err);
				rocksdb_writebatch_clear(wb);
				bytes = 0;
				if (err)
					rc = engine_rocks_error(err, "cloning");
			}
		}
		char *err = NULL;
		rocksdb_iter_get_error(it, &err);
		if (!err && !rc)
			rocksdb_write(e->db, e->wo_wal, wb, &err);
		rocksdb_writebatch_clear(wb);
		rocksdb_iter_destroy(it);
		if (err && !rc)
			rc = engine_rocks_error(err, "cloning");
	}
	table_rdunlock(dst);
	if (wb)
		rocksdb_writebatch_destroy(wb);
	if (ro)
		rocksdb_readoptions_destroy(ro);
	for (size_t i = 0; src && i < n; i++)
		if (h[i])
			rocksdb_column_family_handle_destroy(h[i]);
	if (src)
		rocksdb_close(src);
	free(names);
	free(opts);
	free(h);
	return rc;
}

/* Drop a table whatever its state (REQUIRES admin_lock not held). */
static void drop_table(engine *e, const char *name)
{
	engine_set_enabled(e, name, false);
	engine_drop(e, name);
}

/* Create `table` from snapshot `name`: a new table with the recorded schema
 * and regions, and every cell key and value of the checkpoint's column
 * families copied as they are (markers and versions too). On failure the
 * new table is dropped again. */
static int clone_as(engine *e, const char *name, const char *table_name)
{
	snap_meta m;
	int rc = meta_read(&m, e, name);
	if (rc)
		return rc;
	sbx_family_desc *descs = sbx_calloc(m.nfams, sizeof *descs);
	if (!descs) {
		meta_free(&m);
		return SBX_ENOMEM_SET();
	}
	for (size_t i = 0; i < m.nfams; i++)
		descs[i] = m.fams[i].desc;
	rc = engine_table_create(e, table_name, descs, m.nfams, m.splits,
				 m.nsplits);
	free(descs);
	table *t = NULL;
	if (!rc)
		rc = engine_table_get(&t, e, table_name);
	sbx_buf cp = {0};
	if (!rc)
		rc = snap_path(&cp, e, name, "checkpoint");
	if (!rc)
		rc = copy_cells(e, &m, (char *)cp.data, t);
	table_unref(t);
	if (rc && t)
		drop_table(e, table_name);
	if (!rc) /* store files, so split checks and sizes see the cells */
		rc = engine_flush(e, table_name);
	sbx_buf_free(&cp);
	meta_free(&m);
	return rc;
}

int engine_snapshot_clone(void *p, const char *name, const char *table)
{
	engine *e = p;
	if (e->opts.read_only)
		return sbx_error_set(SBX_EREADONLY, "database is read-only");
	return clone_as(e, name, table);
}

/* HBase's restore: the table must be disabled; it is replaced by a clone of
 * the snapshot under its own name and left disabled. A failsafe snapshot of
 * the table as it is is taken first and put back if the clone fails. */
int engine_snapshot_restore(void *p, const char *name)
{
	engine *e = p;
	if (e->opts.read_only)
		return sbx_error_set(SBX_EREADONLY, "database is read-only");
	snap_meta m;
	int rc = meta_read(&m, e, name);
	if (rc)
		return rc;
	bool exists = false, enabled = false;
	rc = engine_table_exists(e, m.table, &exists);
	if (!rc && exists)
		rc = engine_is_enabled(e, m.table, &enabled);
	if (!rc && enabled)
		rc = sbx_error_set(SBX_ENOTDISABLED,
				   "table '%s' must be disabled to restore "
				   "snapshot '%s'",
				   m.table, name);
	if (rc || !exists) { /* a dropped table is recreated, as HBase's */
		if (!rc)
			rc = clone_as(e, name, m.table);
		meta_free(&m);
		return rc;
	}
	/* The failsafe: the table as it is now, put back if the clone fails. */
	char failsafe[SBX_MAX_TABLE_NAME + 1];
	snprintf(failsafe, sizeof failsafe, "%.200s-failsafe-%lld", name,
		 (long long)engine_now_ms());
	rc = engine_snapshot_create(e, m.table, failsafe);
	if (!rc) {
		drop_table(e, m.table);
		rc = clone_as(e, name, m.table);
		if (rc) {
			int saved = rc;
			char msg[512];
			snprintf(msg, sizeof msg, "%s", sbx_errmsg());
			if (clone_as(e, failsafe, m.table) == SBX_OK)
				engine_set_enabled(e, m.table, false);
			rc = sbx_error_set(saved,
					   "%s (the table is back as it was; "
					   "snapshot '%s' keeps it too)",
					   msg, failsafe);
		} else {
			rc = engine_set_enabled(e, m.table, false);
			engine_snapshot_delete(e, failsafe);
		}
	}
	meta_free(&m);
	return rc;
}
