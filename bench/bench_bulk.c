/*
 * bench_bulk.c - bulk load (sbx_bulk_writer + sbx_table_bulk_load, HBase's
 * HFileOutputFormat2 + completebulkload) against raw RocksDB doing the same
 * (an SstFileWriter with the family's options, then IngestExternalFile),
 * and against loading the same rows through the put path (sbx_table_batch,
 * --batch rows a call). Rows as bench_engine's: "user" + 19 digits, 10
 * fields x 100 B.
 *
 * usage: bench_bulk [--rows N] [--rounds R] [--batch B]
 *        (defaults 100000, 5, 256)
 * Each round loads every engine into a fresh directory; medians printed.
 */
#include "bench_util.h"

#include <rocksdb/c.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NFIELDS 10
#define VALUE_LEN 100

static char g_tmp[256];
static uint8_t g_value[VALUE_LEN];

static void row_key(char *out, long i)
{
	snprintf(out, 24, "user%019ld", i); /* sorted by i */
}

static const char *field(int f)
{
	static char names[NFIELDS][8];
	snprintf(names[f], sizeof names[f], "field%d", f);
	return names[f];
}

static void rocks_check(char *err, const char *what)
{
	if (err) {
		fprintf(stderr, "rocksdb: %s: %s\n", what, err);
		exit(1);
	}
}

/* Raw RocksDB: key row||field, one SST file, ingested (moved). */
static double load_raw(const char *dir, long rows)
{
	rocksdb_options_t *o = rocksdb_options_create();
	rocksdb_options_set_create_if_missing(o, 1);
	rocksdb_options_set_compression(o, rocksdb_no_compression);
	rocksdb_options_set_prefix_extractor(
		o, rocksdb_slicetransform_create_fixed_prefix(23));
	rocksdb_block_based_table_options_t *bb =
		rocksdb_block_based_options_create();
	rocksdb_block_based_options_set_block_size(bb, 64 * 1024);
	rocksdb_block_based_options_set_format_version(bb, 5);
	rocksdb_block_based_options_set_filter_policy(
		bb, rocksdb_filterpolicy_create_bloom_full(10));
	rocksdb_block_based_options_set_whole_key_filtering(bb, 0);
	rocksdb_options_set_block_based_table_factory(o, bb);
	rocksdb_block_based_options_destroy(bb);
	char *err = NULL;
	rocksdb_t *db = rocksdb_open(o, dir, &err);
	rocks_check(err, "open");
	char sst[600];
	snprintf(sst, sizeof sst, "%s.sst", dir);
	double t0 = now_s();
	rocksdb_envoptions_t *env = rocksdb_envoptions_create();
	rocksdb_sstfilewriter_t *w = rocksdb_sstfilewriter_create(env, o);
	rocksdb_sstfilewriter_open(w, sst, &err);
	rocks_check(err, "sst open");
	char key[40];
	for (long i = 0; i < rows; i++) {
		row_key(key, i);
		for (int f = 0; f < NFIELDS; f++) {
			memcpy(key + 23, field(f), 6);
			rocksdb_sstfilewriter_put(w, key, 29,
						  (const char *)g_value,
						  VALUE_LEN, &err);
			rocks_check(err, "sst put");
		}
	}
	rocksdb_sstfilewriter_finish(w, &err);
	rocks_check(err, "sst finish");
	rocksdb_ingestexternalfileoptions_t *io =
		rocksdb_ingestexternalfileoptions_create();
	rocksdb_ingestexternalfileoptions_set_move_files(io, 1);
	const char *files[] = {sst};
	rocksdb_ingest_external_file(db, files, 1, io, &err);
	rocks_check(err, "ingest");
	double t = now_s() - t0;
	rocksdb_ingestexternalfileoptions_destroy(io);
	rocksdb_sstfilewriter_destroy(w);
	rocksdb_envoptions_destroy(env);
	rocksdb_close(db);
	rocksdb_options_destroy(o);
	return t;
}

static sbx_db *open_table(const char *dir)
{
	sbx_db *db;
	if (sbx_db_open(&db, dir, NULL))
		die("open");
	sbx_family_desc f;
	sbx_family_desc_init(&f, "f");
	f.compression = SBX_COMPRESSION_NONE;
	f.block_size = 64 * 1024;
	if (sbx_table_create(db, "usertable", &f, 1))
		die("create");
	return db;
}

static double load_bulk(const char *dir, long rows)
{
	sbx_db *db = open_table(dir);
	char files[600];
	snprintf(files, sizeof files, "%s.files", dir);
	double t0 = now_s();
	sbx_bulk_writer *w;
	if (sbx_bulk_writer_open(&w, db, "usertable", files))
		die("bulk open");
	char key[32];
	for (long i = 0; i < rows; i++) {
		row_key(key, i);
		for (int f = 0; f < NFIELDS; f++)
			if (sbx_bulk_writer_put(w, key, 23, "f", field(f), 6,
						1000, g_value, VALUE_LEN))
				die("bulk put");
	}
	if (sbx_bulk_writer_finish(w) ||
	    sbx_table_bulk_load(db, "usertable", files))
		die("bulk load");
	double t = now_s() - t0;
	sbx_db_close(db);
	return t;
}

static double load_puts(const char *dir, long rows, long batch)
{
	sbx_db *db = open_table(dir);
	sbx_table *t;
	if (sbx_table_open(&t, db, "usertable"))
		die("table open");
	double t0 = now_s();
	sbx_mutation **ms = malloc((size_t)batch * sizeof *ms);
	if (!ms)
		die("out of memory");
	char key[32];
	for (long i = 0; i < rows;) {
		size_t n = 0;
		for (; n < (size_t)batch && i < rows; n++, i++) {
			row_key(key, i);
			if (sbx_mutation_new(&ms[n], key, 23))
				die("mutation");
			for (int f = 0; f < NFIELDS; f++)
				if (sbx_mutation_put(ms[n], "f", field(f), 6,
						     1000, g_value, VALUE_LEN))
					die("put");
		}
		if (sbx_table_batch(NULL, t, ms, n))
			die("batch");
		for (size_t k = 0; k < n; k++)
			sbx_mutation_free(ms[k]);
	}
	if (sbx_table_flush(db, "usertable")) /* as durable as the files */
		die("flush");
	double el = now_s() - t0;
	free(ms);
	sbx_table_close(t);
	sbx_db_close(db);
	return el;
}

int main(int argc, char **argv)
{
	long rows = 100000;
	int rounds = 5;
	long batch = 256;
	for (int i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--rows"))
			rows = atol(argv[i + 1]);
		else if (!strcmp(argv[i], "--rounds"))
			rounds = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--batch"))
			batch = atol(argv[i + 1]);
	}
	if (rows < 1 || rounds < 1 || rounds > 32 || batch < 1 ||
	    batch > 1000000) {
		fprintf(stderr, "usage: bench_bulk [--rows N] [--rounds R] "
				"[--batch B]\n");
		return 2;
	}
	for (int i = 0; i < VALUE_LEN; i++)
		g_value[i] = (uint8_t)(i * 37 + 11);
	snprintf(g_tmp, sizeof g_tmp, "/tmp/bench_bulk.%d", (int)getpid());
	double raw[32], bulk[32], puts[32];
	char cmd[600], dir[512];
	for (int r = 0; r < rounds; r++) { /* the three take turns */
		snprintf(cmd, sizeof cmd, "rm -rf %s && mkdir -p %s", g_tmp,
			 g_tmp);
		if (system(cmd))
			return 1;
		snprintf(dir, sizeof dir, "%s/raw", g_tmp);
		raw[r] = load_raw(dir, rows);
		snprintf(dir, sizeof dir, "%s/bulk", g_tmp);
		bulk[r] = load_bulk(dir, rows);
		snprintf(dir, sizeof dir, "%s/puts", g_tmp);
		puts[r] = load_puts(dir, rows, batch);
	}
	snprintf(cmd, sizeof cmd, "rm -rf %s", g_tmp);
	if (system(cmd))
		return 1;
	double cells = (double)rows * NFIELDS;
	double a = median(raw, rounds), b = median(bulk, rounds),
	       c = median(puts, rounds);
	printf("bulk load of %ld rows x %d fields x %d B, median of %d rounds\n\n",
	       rows, NFIELDS, VALUE_LEN, rounds);
	printf("%-34s %12s %8s\n", "", "cells/s", "x raw");
	printf("%-34s %12.0f %8.2f\n", "raw RocksDB SST write + ingest (ref)",
	       cells / a, 1.0);
	printf("%-34s %12.0f %8.2f\n", "saltbox bulk writer + bulk load",
	       cells / b, a / b);
	char label[64];
	snprintf(label, sizeof label, "saltbox puts (batches of %ld rows)",
		 batch);
	printf("%-34s %12.0f %8.2f\n", label, cells / c, a / c);
	return 0;
}
