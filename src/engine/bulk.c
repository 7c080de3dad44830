/*
 * bulk.c - bulk load (HBase's HFileOutputFormat2 + completebulkload) on
 * RocksDB's SstFileWriter and IngestExternalFile. One writer per family,
 * with its column family's options, so loaded files read like flushed ones;
 * each cell key must sort after the family's previous one (HBase's order).
 * Ingested cells get newer RocksDB sequence numbers, but reads still decide
 * by the timestamp in the key.
 *
 * Files given to completebulkload come from outside: before a family's
 * files load, they are ingested (copied) into a scratch column family and
 * read back whole with checksums verified, and every key must be a cell
 * key (of one of HBase's five types, with a timestamp a stored cell can
 * have); a file RocksDB refuses, a corrupt block or a key that is not a cell
 * is SBX_EIO and nothing of the family is loaded. Before RocksDB sees a
 * file, sst_precheck (sstcheck.h) verifies the blocks RocksDB would parse
 * unverified (an assertion in Debian's RocksDB aborts on a corrupt
 * properties block; found by fuzz/fuzz_bulk_load.c). RocksDB itself only
 * checks a file's footer and properties on ingestion; the scratch read is
 * what catches corrupt data blocks and foreign keys.
 * A scratch family left by a crash is an orphan, dropped at the next open.
 */
#include "common/alloc.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fs.h"
#include "engine/cellkey.h"
#include "engine/engine.h"
#include "engine/sstcheck.h"
#include "model/names.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct bulk_family {
	family *fam;
	rocksdb_options_t *opts;
	rocksdb_sstfilewriter_t *w; /* NULL until its first cell */
	sbx_buf last;               /* the last key written */
	sbx_buf path;
} bulk_family;

typedef struct bulk_writer {
	engine *e;
	table *t;
	char *dir;
	int64_t now;
	rocksdb_envoptions_t *env;
	bulk_family *fams;
	size_t nfams;
	uint64_t count;
	sbx_buf key;
} bulk_writer;

static void writer_free(bulk_writer *b, bool remove_files)
{
	for (size_t i = 0; i < b->nfams; i++) {
		bulk_family *f = &b->fams[i];
		if (f->w)
			rocksdb_sstfilewriter_destroy(f->w);
		if (f->opts)
			rocksdb_options_destroy(f->opts);
		family_unref(f->fam);
		sbx_buf_free(&f->last);
		sbx_buf_free(&f->path);
	}
	if (remove_files && b->dir)
		sbx_rmtree(b->dir); /* best effort: the error is the caller's */
	free(b->fams);
	free(b->dir);
	if (b->env)
		rocksdb_envoptions_destroy(b->env);
	sbx_buf_free(&b->key);
	table_unref(b->t);
	free(b);
}

int engine_bulk_open(void **out, void *p, const char *table_name,
		     const char *dir)
{
	engine *e = p;
	*out = NULL;
	if (e->opts.read_only)
		return sbx_error_set(SBX_EREADONLY, "database is read-only");
	if (!dir || !*dir)
		return sbx_error_set(SBX_EINVAL, "bulk load directory is empty");
	table *t;
	int rc = engine_table_get(&t, e, table_name);
	if (rc)
		return rc;
	if (mkdir(dir, 0755) != 0) {
		int err = errno;
		table_unref(t);
		return sbx_error_set(err == EEXIST ? SBX_EEXISTS : SBX_EIO,
				     "cannot create '%s': %s", dir,
				     strerror(err));
	}
	bulk_writer *b = sbx_calloc(1, sizeof *b);
	if (!b) {
		rmdir(dir);
		table_unref(t);
		return SBX_ENOMEM_SET();
	}
	b->e = e;
	b->t = t;
	b->now = engine_now_ms();
	b->dir = sbx_strdup(dir);
	b->env = rocksdb_envoptions_create();
	table_rdlock(t); /* the family list */
	b->fams = sbx_calloc(t->nfams ? t->nfams : 1, sizeof *b->fams);
	rc = b->dir && b->env && b->fams ? SBX_OK : SBX_ENOMEM_SET();
	for (size_t i = 0; !rc && i < t->nfams; i++) {
		bulk_family *f = &b->fams[b->nfams++];
		f->fam = t->fams[i];
		atomic_fetch_add(&f->fam->refs, 1);
		gc_params *gc;
		f->opts = family_rocks_options(e, &f->fam->desc, &gc);
		if (!f->opts)
			rc = SBX_ENOMEM_SET();
	}
	table_rdunlock(t);
	if (rc) {
		writer_free(b, true);
		return rc;
	}
	*out = b;
	return SBX_OK;
}

static bulk_family *find_family(bulk_writer *b, const char *name)
{
	for (size_t i = 0; i < b->nfams; i++)
		if (!strcmp(b->fams[i].fam->desc.name, name))
			return &b->fams[i];
	return NULL;
}

/* The family's file: DIR/<family>/<table id>.sst, opened on first use. */
static int family_file(bulk_writer *b, bulk_family *f)
{
	if (f->w)
		return SBX_OK;
	f->path.len = 0;
	int rc = sbx_buf_printf(&f->path, "%s/%s", b->dir, f->fam->desc.name);
	if (rc)
		return rc;
	if (mkdir((char *)f->path.data, 0755) != 0 && errno != EEXIST)
		return sbx_error_set(SBX_EIO, "cannot create '%s': %s",
				     (char *)f->path.data, strerror(errno));
	rc = sbx_buf_printf(&f->path, "/%llu.sst",
			    (unsigned long long)b->t->id);
	if (rc)
		return rc;
	f->w = rocksdb_sstfilewriter_create(b->env, f->opts);
	char *err = NULL;
	rocksdb_sstfilewriter_open(f->w, (char *)f->path.data, &err);
	if (err) {
		rocksdb_sstfilewriter_destroy(f->w);
		f->w = NULL;
		return engine_rocks_error(err, "opening a bulk load file");
	}
	return SBX_OK;
}

static int cmp_key(const sbx_buf *a, const sbx_buf *b)
{
	size_t n = a->len < b->len ? a->len : b->len;
	int c = n ? memcmp(a->data, b->data, n) : 0;
	return c ? c : (a->len > b->len) - (a->len < b->len);
}

int engine_bulk_put(void *p, const uint8_t *row, size_t row_len,
		    const char *family_name, const uint8_t *qual,
		    size_t qual_len, int64_t ts, const uint8_t *value,
		    size_t value_len)
{
	bulk_writer *b = p;
	bulk_family *f = find_family(b, family_name);
	if (!f)
		return sbx_error_set(SBX_ENOFAMILY, "table '%s' has no family "
						    "'%s'",
				     b->t->name, family_name);
	size_t max = b->e->opts.max_cell_size;
	if (max && row_len + qual_len + value_len > max)
		return sbx_error_set(SBX_ETOOLARGE,
				     "cell of %zu bytes is over max_cell_size "
				     "(%zu)",
				     row_len + qual_len + value_len, max);
	if (ts == SBX_LATEST_TIMESTAMP)
		ts = b->now;
	b->key.len = 0;
	int rc = cellkey_encode(&b->key, row, row_len, qual, qual_len, ts,
				SBX_CELL_PUT);
	if (rc)
		return rc;
	if (f->last.len && cmp_key(&b->key, &f->last) <= 0)
		return sbx_error_set(
			SBX_EINVAL,
			"bulk load cells of family '%s' must come in HBase's "
			"order (row, qualifier ascending; timestamp "
			"descending): this one %s the previous",
			family_name,
			cmp_key(&b->key, &f->last) ? "sorts before" : "repeats");
	if ((rc = family_file(b, f)))
		return rc;
	char *err = NULL;
	rocksdb_sstfilewriter_put(f->w, (const char *)b->key.data, b->key.len,
				  (const char *)value, value_len, &err);
	if (err)
		return engine_rocks_error(err, "writing a bulk load file");
	if (sbx_buf_set(&f->last, b->key.data, b->key.len))
		return SBX_ENOMEM_SET();
	b->count++;
	return SBX_OK;
}

uint64_t engine_bulk_count(const void *p)
{
	const bulk_writer *b = p;
	return b->count;
}

int engine_bulk_finish(void *p)
{
	bulk_writer *b = p;
	int rc = SBX_OK;
	for (size_t i = 0; !rc && i < b->nfams; i++) {
		bulk_family *f = &b->fams[i];
		if (!f->w)
			continue;
		char *err = NULL;
		rocksdb_sstfilewriter_finish(f->w, &err);
		if (err)
			rc = engine_rocks_error(err, "finishing a bulk load file");
	}
	writer_free(b, rc != SBX_OK);
	return rc;
}

void engine_bulk_abort(void *p)
{
	writer_free(p, true);
}

/* The .sst files in one family directory (NULL-terminated, caller frees
 * each and the array). */
static int list_files(char ***out, size_t *n, const char *dir)
{
	*out = NULL;
	*n = 0;
	DIR *d = opendir(dir);
	if (!d)
		return sbx_error_set(SBX_EIO, "cannot read '%s': %s", dir,
				     strerror(errno));
	char **v = NULL;
	size_t cap = 0;
	int rc = SBX_OK;
	struct dirent *de;
	while (!rc && (de = readdir(d))) {
		size_t l = strlen(de->d_name);
		if (l < 5 || strcmp(de->d_name + l - 4, ".sst"))
			continue;
		if (*n + 1 >= cap) {
			cap = cap ? 2 * cap : 8;
			char **nv = sbx_realloc(v, cap * sizeof *nv);
			if (!nv) {
				rc = SBX_ENOMEM_SET();
				break;
			}
			v = nv;
		}
		sbx_buf p = {0};
		rc = sbx_buf_printf(&p, "%s/%s", dir, de->d_name);
		v[(*n)++] = (char *)p.data;
		v[*n] = NULL;
	}
	closedir(d);
	if (rc) {
		for (size_t i = 0; i < *n; i++)
			free(v[i]);
		free(v);
		*n = 0;
		return rc;
	}
	*out = v;
	return SBX_OK;
}

static void free_files(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* Whether a cell of type t can be stored (the five HBase types). */
static bool stored_type(sbx_cell_type t)
{
	switch (t) {
	case SBX_CELL_PUT:
	case SBX_CELL_DELETE:
	case SBX_CELL_DELETE_FAMILY_VERSION:
	case SBX_CELL_DELETE_COLUMN:
	case SBX_CELL_DELETE_FAMILY:
		return true;
	}
	return false;
}

/* Every key of the scratch column family a cell key of a stored type and
 * timestamp; iterator errors (checksums) as SBX_EIO. */
static int check_scratch(engine *e, rocksdb_column_family_handle_t *cf,
			 const char *dir)
{
	rocksdb_readoptions_t *ro = rocksdb_readoptions_create();
	rocksdb_readoptions_set_verify_checksums(ro, 1);
	rocksdb_readoptions_set_fill_cache(ro, 0);
	rocksdb_iterator_t *it = rocksdb_create_iterator_cf(e->db, ro, cf);
	sbx_buf row = {0}, qual = {0};
	int rc = SBX_OK;
	uint64_t n = 0;
	for (rocksdb_iter_seek_to_first(it); !rc && rocksdb_iter_valid(it);
	     rocksdb_iter_next(it), n++) {
		size_t kl;
		const char *k = rocksdb_iter_key(it, &kl);
		cellkey_parts parts;
		row.len = qual.len = 0;
		rc = cellkey_decode((const uint8_t *)k, kl, &row, &qual, &parts);
		if (rc == SBX_ENOMEM)
			break;
		if (rc || row.len == 0 || row.len > SBX_MAX_ROW_LENGTH)
			rc = sbx_error_set(SBX_EIO,
					   "'%s': key %" PRIu64 " of the store "
					   "files is not a Saltbox cell (files "
					   "written by saltbox importtsv or "
					   "sbx_bulk_writer load)",
					   dir, n + 1);
		else if (!stored_type(parts.type))
			rc = sbx_error_set(SBX_EIO,
					   "'%s': key %" PRIu64 " of the store "
					   "files has cell type %d, not one of "
					   "HBase's (put 4, delete 8, 10, 12, "
					   "14)",
					   dir, n + 1, (int)parts.type);
		else if (parts.ts < 0 || parts.ts == SBX_LATEST_TIMESTAMP)
			rc = sbx_error_set(SBX_EIO,
					   "'%s': key %" PRIu64 " of the store "
					   "files has timestamp %" PRId64
					   ", not a stored cell's (0 to "
					   "LATEST_TIMESTAMP - 1)",
					   dir, n + 1, parts.ts);
	}
	char *err = NULL;
	if (!rc)
		rocksdb_iter_get_error(it, &err);
	if (err)
		rc = engine_rocks_error(err, "reading the store files");
	sbx_buf_free(&row);
	sbx_buf_free(&qual);
	rocksdb_iter_destroy(it);
	rocksdb_readoptions_destroy(ro);
	return rc;
}

/* Load `files` into a scratch column family (copies) and read them back:
 * SBX_OK when RocksDB takes them and every key is a cell. */
static int validate_files(engine *e, const family *f, char **files, size_t n,
			  const char *dir)
{
	for (size_t i = 0; i < n; i++) {
		int rc = sst_precheck(files[i]);
		if (rc)
			return rc;
	}
	static unsigned long counter;
	char name[96];
	snprintf(name, sizeof name, "bulkcheck.%ld.%lu", (long)getpid(),
		 __atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED));
	rocksdb_options_t *o = rocksdb_options_create();
	char *err = NULL;
	rocksdb_column_family_handle_t *cf =
		rocksdb_create_column_family(e->db, o, name, &err);
	rocksdb_options_destroy(o);
	if (err)
		return engine_rocks_error(err, "checking the store files");
	rocksdb_ingestexternalfileoptions_t *io =
		rocksdb_ingestexternalfileoptions_create();
	rocksdb_ingestexternalfileoptions_set_move_files(io, 0);
	rocksdb_ingest_external_file_cf(e->db, cf, (const char *const *)files,
					n, io, &err);
	rocksdb_ingestexternalfileoptions_destroy(io);
	int rc = SBX_OK;
	if (err) {
		rc = sbx_error_set(SBX_EIO,
				   "'%s': not store files RocksDB can load "
				   "for family '%s': %s",
				   dir, f->desc.name, err);
		free(err);
		err = NULL;
	}
	if (!rc)
		rc = check_scratch(e, cf, dir);
	rocksdb_drop_column_family(e->db, cf, &err);
	free(err); /* an undropped scratch family is an orphan at next open */
	rocksdb_column_family_handle_destroy(cf);
	return rc;
}

int engine_bulk_load(void *p, const char *table_name, const char *dir)
{
	engine *e = p;
	if (e->opts.read_only)
		return sbx_error_set(SBX_EREADONLY, "database is read-only");
	table *t;
	int rc = engine_table_get(&t, e, table_name);
	if (rc)
		return rc;
	DIR *d = opendir(dir);
	if (!d) {
		table_unref(t);
		return sbx_error_set(errno == ENOENT ? SBX_ENOTFOUND : SBX_EIO,
				     "cannot read '%s': %s", dir,
				     strerror(errno));
	}
	/* Check every family directory before loading anything. */
	table_rdlock(t);
	rc = t->enabled ? SBX_OK
			: sbx_error_set(SBX_EDISABLED, "table '%s' is disabled",
					t->name);
	struct dirent *de;
	while (!rc && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (!table_family(t, de->d_name))
			rc = sbx_error_set(SBX_ENOFAMILY,
					   "'%s/%s': table '%s' has no family "
					   "'%s'",
					   dir, de->d_name, t->name, de->d_name);
	}
	rewinddir(d);
	rocksdb_ingestexternalfileoptions_t *io =
		rocksdb_ingestexternalfileoptions_create();
	rocksdb_ingestexternalfileoptions_set_move_files(io, 1);
	while (!rc && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		family *f = table_family(t, de->d_name);
		sbx_buf fd = {0};
		char **files = NULL;
		size_t n = 0;
		rc = sbx_buf_printf(&fd, "%s/%s", dir, de->d_name);
		if (!rc)
			rc = list_files(&files, &n, (char *)fd.data);
		if (!rc && n)
			rc = validate_files(e, f, files, n, (char *)fd.data);
		if (!rc && n) {
			char *err = NULL;
			rocksdb_ingest_external_file_cf(
				e->db, f->cf, (const char *const *)files, n, io,
				&err);
			/* after the cells are in: gets that read before
			 * cached under the old epoch (rowcache.h) */
			table_cache_forget(t);
			table_drop_kept_iterator(t);
			if (err)
				rc = engine_rocks_error(err, "loading files");
		}
		free_files(files, n);
		sbx_buf_free(&fd);
	}
	table_rdunlock(t);
	rocksdb_ingestexternalfileoptions_destroy(io);
	closedir(d);
	table_unref(t);
	return rc;
}
