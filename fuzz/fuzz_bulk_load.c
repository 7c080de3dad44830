/*
 * fuzz_bulk_load.c - libFuzzer target for store files given to
 * `saltbox completebulkload` (sbx_table_bulk_load, src/engine/bulk.c): the
 * input is written as one family's .sst file and loaded into a real store.
 * It must load (a valid file of Saltbox cells, then readable by a scan) or
 * fail with SBX_EIO and a message, the table unchanged; never crash, abort
 * inside RocksDB, hang or leak. Seeds: fuzz/corpus/bulk_load/ (files
 * written by sbx_bulk_writer, and a RocksDB file of foreign keys).
 *
 * Random bytes in a store file stop at its block checksums (src/engine/
 * sstcheck.c), so an input that starts with 'K' is instead key/value
 * records - [key length u8][key][value length u8][value], repeated -
 * that RocksDB's own SstFileWriter writes as a valid file (sorted,
 * duplicates dropped): the load's own checks of every key and cell then
 * meet arbitrary keys (fuzz/corpus/bulk_load/records_*).
 */
#include "saltbox.h"
#include "saltbox/bulk.h"

#include <rocksdb/c.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static sbx_db *db;
static char root[128];

/* The scratch store goes when the process ends. */
static void cleanup(void)
{
	char cmd[300];
	if (db)
		sbx_db_close(db);
	db = NULL;
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
	if (system(cmd))
		return;
}

static int setup(void)
{
	snprintf(root, sizeof root, "/tmp/fuzz_bulk_load.%ld", (long)getpid());
	char cmd[512];
	snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", root, root);
	if (system(cmd))
		return -1;
	char path[300];
	snprintf(path, sizeof path, "%s/db", root);
	if (sbx_db_open(&db, path, NULL))
		return -1;
	sbx_family_desc f;
	sbx_family_desc_init(&f, "cf");
	if (sbx_table_create(db, "t", &f, 1))
		return -1;
	atexit(cleanup);
	return 0;
}

typedef struct record {
	const uint8_t *k, *v;
	size_t kl, vl;
} record;

static int record_cmp(const void *a, const void *b)
{
	const record *x = a, *y = b;
	size_t n = x->kl < y->kl ? x->kl : y->kl;
	int d = n ? memcmp(x->k, y->k, n) : 0;
	return d ? d : (x->kl > y->kl) - (x->kl < y->kl);
}

/* Write the records of data[1..size) as a store file at `file`; false if
 * there are none (nothing written). */
static int write_records(const char *file, const uint8_t *data, size_t size)
{
	static record recs[512];
	size_t n = 0, p = 1;
	while (n < sizeof recs / sizeof *recs && p < size) {
		record r;
		r.kl = data[p++];
		if (r.kl > size - p)
			break;
		r.k = data + p;
		p += r.kl;
		r.vl = p < size ? data[p++] : 0;
		if (r.vl > size - p)
			r.vl = size - p;
		r.v = data + p;
		p += r.vl;
		recs[n++] = r;
	}
	if (!n)
		return 0;
	qsort(recs, n, sizeof *recs, record_cmp);
	rocksdb_envoptions_t *env = rocksdb_envoptions_create();
	rocksdb_options_t *o = rocksdb_options_create();
	rocksdb_sstfilewriter_t *w = rocksdb_sstfilewriter_create(env, o);
	char *err = NULL;
	rocksdb_sstfilewriter_open(w, file, &err);
	for (size_t i = 0; !err && i < n; i++)
		if (i == 0 || record_cmp(&recs[i - 1], &recs[i]))
			rocksdb_sstfilewriter_put(w, (const char *)recs[i].k,
						  recs[i].kl,
						  (const char *)recs[i].v,
						  recs[i].vl, &err);
	if (!err)
		rocksdb_sstfilewriter_finish(w, &err);
	rocksdb_sstfilewriter_destroy(w);
	rocksdb_options_destroy(o);
	rocksdb_envoptions_destroy(env);
	if (err)
		abort(); /* sorted, unique keys: RocksDB takes them */
	return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!db && setup())
		abort();
	char dir[300], fam[320], file[340];
	snprintf(dir, sizeof dir, "%s/load", root);
	snprintf(fam, sizeof fam, "%s/cf", dir);
	snprintf(file, sizeof file, "%s/in.sst", fam);
	mkdir(dir, 0755);
	mkdir(fam, 0755);
	if (size && data[0] == 'K') {
		if (!write_records(file, data, size))
			return 0;
	} else {
		FILE *f = fopen(file, "wb");
		if (!f || fwrite(data, 1, size, f) != size)
			abort();
		fclose(f);
	}
	int rc = sbx_table_bulk_load(db, "t", dir);
	if (rc == SBX_OK) {
		/* loaded: every cell reads back */
		sbx_scan_opts o;
		sbx_scan_opts_init(&o);
		sbx_table *t;
		sbx_scanner *s;
		sbx_result *r;
		if (sbx_table_open(&t, db, "t") != SBX_OK)
			abort();
		if (sbx_scanner_open(&s, t, &o) == SBX_OK) {
			while (sbx_scanner_next(s, &r) == SBX_OK)
				sbx_result_free(r);
			sbx_scanner_close(s);
		}
		sbx_table_close(t);
		sbx_table_truncate(db, "t");
	} else if (rc != SBX_EIO || !*sbx_errmsg()) {
		abort(); /* a bad file is SBX_EIO, with the reason */
	}
	unlink(file); /* left behind when refused (a load moves it) */
	return 0;
}
