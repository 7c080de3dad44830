/*
 * bench_seeds.c - the row-key articles' storage claims measured on the
 * real embedded engine (not keyviz's model), for docs/hotspots.md §6:
 *  a) the same rows with 16- against 64-byte keys and one-letter against
 *     long family/qualifier names: store bytes after a major compaction,
 *     memstore bytes, block cache hit rate, put/get/scan speed
 *     (HBase Reference Guide, "Try to minimize row and column sizes");
 *  b) "the newest N events of a user": a reverse-timestamp key scanned
 *     forward against a timestamp key scanned reversed, cost per query
 *     (HBase Reference Guide, "Reverse Timestamps");
 *  c) BLOCKSIZE 4/16/64 KiB x COMPRESSION NONE/LZ4/ZSTD on random gets and
 *     scans (the same guide section's block size and compression advice).
 * The block cache hit rate comes from RocksDB's perf context of the
 * calling thread (the embedded engine reads on it): hits / (hits + block
 * reads). Every table is one region (splits disabled) so a region's
 * metrics are the table's.
 * usage: bench_seeds [--rows N] [--dir DIR] [--part a|b|c]...
 */
#include "bench_util.h"

#include <rocksdb/c.h>
#include <stdint.h>
#include <string.h>

static const char *g_dir = "/tmp/bench_seeds";
static long g_rows = 1000000;

static uint64_t mix64(uint64_t x)
{
	x += 0x9E3779B97F4A7C15ull;
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
	return x ^ (x >> 31);
}

typedef struct store {
	sbx_db *db;
	sbx_table *t;
} store;

static void store_open(store *s, const char *name, const sbx_family_desc *f,
		       size_t cache_bytes)
{
	char path[1024], cmd[1100];
	snprintf(path, sizeof path, "%s/%s", g_dir, name);
	snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", path, g_dir);
	if (system(cmd))
		die("rm");
	sbx_db_options o;
	sbx_db_options_init(&o);
	o.block_cache_bytes = cache_bytes;
	o.min_free_bytes = 0;
	if (sbx_db_open(&s->db, path, &o))
		die("open");
	if (sbx_table_create(s->db, "t", f, 1))
		die("create");
	sbx_split_policy p;
	sbx_split_policy_init(&p);
	p.kind = SBX_SPLIT_DISABLED;
	if (sbx_table_set_split_policy(s->db, "t", &p))
		die("split policy");
	if (sbx_table_open(&s->t, s->db, "t"))
		die("table");
}

static void store_close(store *s)
{
	sbx_table_close(s->t);
	sbx_db_close(s->db);
}

static sbx_region_metrics metrics(store *s)
{
	sbx_region_info *r;
	size_t n;
	sbx_region_metrics m = {0};
	if (sbx_table_regions(&r, &n, s->db, "t"))
		die("regions");
	for (size_t i = 0; i < n; i++) {
		m.store_file_size += r[i].metrics.store_file_size;
		m.memstore_size += r[i].metrics.memstore_size;
	}
	sbx_region_infos_free(r, n);
	return m;
}

/* Bytes of the store's SST files on disk. */
static uint64_t sst_bytes(const char *name)
{
	char cmd[1200];
	snprintf(cmd, sizeof cmd,
		 "find '%s/%s' -name '*.sst' -printf '%%s\\n' | "
		 "awk '{s+=$1} END {print s+0}'", g_dir, name);
	FILE *p = popen(cmd, "r");
	unsigned long long v = 0;
	if (!p || fscanf(p, "%llu", &v) != 1)
		v = 0;
	if (p)
		pclose(p);
	return v;
}

/* ---- perf context: block cache hits and misses of this thread ---- */

static rocksdb_perfcontext_t *g_perf;

static void perf_start(void)
{
	if (!g_perf) {
		rocksdb_set_perf_level(rocksdb_enable_count);
		g_perf = rocksdb_perfcontext_create();
	}
	rocksdb_perfcontext_reset(g_perf);
}

static double perf_hit_rate(uint64_t *reads)
{
	uint64_t h = rocksdb_perfcontext_metric(g_perf,
						rocksdb_block_cache_hit_count);
	uint64_t m = rocksdb_perfcontext_metric(g_perf, rocksdb_block_read_count);
	if (reads)
		*reads = m;
	return h + m ? (double)h / (double)(h + m) : 0;
}

/* ---- a) key and column-name sizes ---- */

typedef struct shape {
	const char *name;
	int key_bytes;
	const char *family, *q1, *q2;
} shape;

/* Row i's key: a 16-digit id spread over the key space (writes arrive
 * in random order), padded to key_bytes with hex of its hash. */
static size_t make_key(char *k, int key_bytes, long i)
{
	uint64_t id = mix64((uint64_t)i) % 10000000000000000ull;
	snprintf(k, 17, "%016llu", (unsigned long long)id);
	for (int j = 16; j < key_bytes; j += 16) {
		char h[17];
		snprintf(h, sizeof h, "%016llx",
			 (unsigned long long)mix64(id + (uint64_t)j));
		memcpy(k + j, h, (size_t)(key_bytes - j < 16 ? key_bytes - j : 16));
	}
	return (size_t)key_bytes;
}

static void load(store *s, long from, long to, int key_bytes, const char *fam,
		 const char *q1, const char *q2, int value_bytes)
{
	enum { BATCH = 500 };
	sbx_mutation *ms[BATCH];
	int st[BATCH];
	char key[80], val[256];
	int nb = 0;
	for (long i = from; i < to; i++) {
		size_t kl = make_key(key, key_bytes, i);
		for (int j = 0; j < value_bytes; j++)
			val[j] = (char)('a' + (mix64((uint64_t)(i * 31 + j)) % 8));
		if (sbx_mutation_new(&ms[nb], key, kl) ||
		    sbx_mutation_put(ms[nb], fam, q1, strlen(q1),
				     SBX_LATEST_TIMESTAMP, val,
				     (size_t)value_bytes) ||
		    sbx_mutation_put(ms[nb], fam, q2, strlen(q2),
				     SBX_LATEST_TIMESTAMP, val + 8,
				     (size_t)value_bytes))
			die("mutation");
		if (++nb == BATCH || i + 1 == to) {
			if (sbx_table_batch(st, s->t, ms, (size_t)nb))
				die("batch");
			for (int j = 0; j < nb; j++)
				sbx_mutation_free(ms[j]);
			nb = 0;
		}
	}
}

typedef struct reads {
	double get_per_s, scan_rows_per_s, hit_rate;
	uint64_t block_reads;
} reads;

static reads measure_reads(store *s, int key_bytes, long rows, long ngets)
{
	reads r = {0};
	char key[80];
	perf_start();
	double t0 = now_s();
	for (long i = 0; i < ngets; i++) {
		long row = (long)(mix64((uint64_t)i ^ 0xabcdefull) % (uint64_t)rows);
		size_t kl = make_key(key, key_bytes, row);
		sbx_result *res;
		if (sbx_table_get(&res, s->t, key, kl, NULL))
			die("get");
		if (sbx_result_size(res) != 2)
			die("get: row missing");
		sbx_result_free(res);
	}
	r.get_per_s = (double)ngets / (now_s() - t0);
	r.hit_rate = perf_hit_rate(&r.block_reads);
	sbx_scanner *sc;
	if (sbx_scanner_open(&sc, s->t, NULL))
		die("scan");
	long n = 0;
	t0 = now_s();
	sbx_result *res;
	while (sbx_scanner_next(sc, &res) == SBX_OK && res) {
		n++;
		sbx_result_free(res);
	}
	r.scan_rows_per_s = (double)n / (now_s() - t0);
	sbx_scanner_close(sc);
	if (n != rows)
		die("scan: row count");
	return r;
}

static void part_a(void)
{
	static const shape shapes[] = {
		{"16 B key, f:a/b", 16, "f", "a", "b"},
		{"16 B key, long names", 16, "user_information", "display_name",
		 "email_address"},
		{"64 B key, f:a/b", 64, "f", "a", "b"},
		{"64 B key, long names", 64, "user_information", "display_name",
		 "email_address"},
	};
	long mem_rows = g_rows < 100000 ? g_rows : 100000;
	printf("\n## a) key and column-name sizes: %ld rows x 2 cells of 16 B "
	       "values, random order; 8 MiB block cache; %ld random gets\n\n",
	       g_rows, g_rows / 10);
	printf("| shape | put rows/s | memstore B/row (first %ld rows) | "
	       "SST bytes after major compaction | B/row | get/s | block "
	       "cache hit rate | scan rows/s |\n|---|---|---|---|---|---|---|"
	       "---|\n", mem_rows);
	for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
		const shape *sh = &shapes[i];
		sbx_family_desc f;
		sbx_family_desc_init(&f, sh->family);
		char name[32];
		snprintf(name, sizeof name, "a%zu", i);
		store s;
		store_open(&s, name, &f, 8u << 20);
		double t0 = now_s();
		load(&s, 0, mem_rows, sh->key_bytes, sh->family, sh->q1, sh->q2,
		     16);
		double t_mem = now_s() - t0;
		uint64_t mem = metrics(&s).memstore_size;
		t0 = now_s();
		load(&s, mem_rows, g_rows, sh->key_bytes, sh->family, sh->q1,
		     sh->q2, 16);
		double put_s = t_mem + (now_s() - t0);
		if (sbx_table_flush(s.db, "t") || sbx_table_major_compact(s.db, "t"))
			die("compact");
		uint64_t sst = sst_bytes(name);
		reads r = measure_reads(&s, sh->key_bytes, g_rows, g_rows / 10);
		printf("| %s | %.0f | %.1f | %llu | %.1f | %.0f | %.1f%% | %.0f "
		       "|\n", sh->name, (double)g_rows / put_s,
		       (double)mem / (double)mem_rows, (unsigned long long)sst,
		       (double)sst / (double)g_rows, r.get_per_s,
		       r.hit_rate * 100, r.scan_rows_per_s);
		fflush(stdout);
		store_close(&s);
	}
}

/* ---- b) newest N events of a user ---- */

static void be64(uint8_t *p, uint64_t v)
{
	for (int i = 7; i >= 0; i--, v >>= 8)
		p[i] = (uint8_t)v;
}

static void part_b(void)
{
	const int users = 10000, newest = 10;
	long events = g_rows / users;
	if (events < newest)
		events = newest;
	long queries = 20000;
	printf("\n## b) newest %d events of a user: %d users x %ld events "
	       "(8-byte user + 8-byte time key), %ld queries of random "
	       "users\n\n",
	       newest, users, events, queries);
	printf("| key | scan | queries/s | us/query | rows read/query |\n"
	       "|---|---|---|---|---|\n");
	for (int rev = 0; rev < 2; rev++) {
		sbx_family_desc f;
		sbx_family_desc_init(&f, "e");
		store s;
		store_open(&s, rev ? "b_ts" : "b_rts", &f, 64u << 20);
		enum { BATCH = 500 };
		sbx_mutation *ms[BATCH];
		int st[BATCH], nb = 0;
		const int64_t t0ms = 1686465031000;
		for (long e = 0; e < events; e++)
			for (int u = 0; u < users; u++) {
				uint8_t k[16];
				be64(k, (uint64_t)u * 2654435761u);
				uint64_t ts = (uint64_t)(t0ms + e * 1000 + u % 1000);
				be64(k + 8, rev ? ts : (uint64_t)INT64_MAX - ts);
				if (sbx_mutation_new(&ms[nb], k, 16) ||
				    sbx_mutation_put(ms[nb], "e", "v", 1,
						     SBX_LATEST_TIMESTAMP,
						     "payload-of-an-event", 19))
					die("mutation");
				if (++nb == BATCH) {
					if (sbx_table_batch(st, s.t, ms, BATCH))
						die("batch");
					for (int j = 0; j < nb; j++)
						sbx_mutation_free(ms[j]);
					nb = 0;
				}
			}
		if (nb && sbx_table_batch(st, s.t, ms, (size_t)nb))
			die("batch");
		for (int j = 0; j < nb; j++)
			sbx_mutation_free(ms[j]);
		if (sbx_table_flush(s.db, "t") || sbx_table_major_compact(s.db, "t"))
			die("compact");
		long rows = 0;
		double t0 = now_s();
		for (long q = 0; q < queries; q++) {
			int u = (int)(mix64((uint64_t)q) % (uint64_t)users);
			uint8_t pre[8], stop[8], hi[9];
			be64(pre, (uint64_t)u * 2654435761u);
			sbx_scan_opts so;
			sbx_scan_opts_init(&so);
			so.limit = newest;
			if (!rev) { /* reverse timestamps: newest first, forward */
				sbx_scan_opts_set_prefix(&so, pre, 8, stop);
			} else { /* timestamps: from the user's end, reversed */
				memcpy(hi, pre, 8);
				hi[8] = 0xff; /* above every key of the user */
				so.reversed = true;
				so.start_row = hi;
				so.start_row_len = 9;
				so.stop_row = pre;
				so.stop_row_len = 8;
				so.stop_inclusive = true;
			}
			sbx_scanner *sc;
			if (sbx_scanner_open(&sc, s.t, &so))
				die("scan");
			sbx_result *res;
			int got = 0;
			uint64_t last = 0;
			while (sbx_scanner_next(sc, &res) == SBX_OK && res) {
				/* newest first either way: check it */
				size_t kl;
				const uint8_t *k = sbx_result_row(res, &kl);
				uint64_t v = 0;
				for (int i = 8; i < 16; i++)
					v = v << 8 | k[i];
				uint64_t ts = rev ? v : (uint64_t)INT64_MAX - v;
				if (got && ts > last)
					die("order: not newest first");
				last = ts;
				got++;
				sbx_result_free(res);
			}
			sbx_scanner_close(sc);
			if (got != newest)
				die("scan: wrong count");
			rows += got;
		}
		double dt = now_s() - t0;
		printf("| %s | %s | %.0f | %.1f | %.1f |\n",
		       rev ? "user + ts64" : "user + (Long.MAX_VALUE - ts)",
		       rev ? "reversed, from the user's end" : "forward, prefix",
		       (double)queries / dt, dt * 1e6 / (double)queries,
		       (double)rows / (double)queries);
		fflush(stdout);
		store_close(&s);
	}
}

/* ---- c) block size and compression ---- */

static void part_c(void)
{
	static const int sizes[] = {4096, 16384, 65536};
	static const sbx_compression comps[] = {
		SBX_COMPRESSION_NONE, SBX_COMPRESSION_LZ4, SBX_COMPRESSION_ZSTD};
	long rows = g_rows / 2;
	printf("\n## c) BLOCKSIZE x COMPRESSION: %ld rows (16 B keys, 2 cells "
	       "of 64 B text-like values), 8 MiB block cache, %ld random "
	       "gets\n\n", rows, rows / 10);
	printf("| BLOCKSIZE | COMPRESSION | SST bytes | get/s | block cache "
	       "hit rate | blocks read from disk | scan rows/s |\n"
	       "|---|---|---|---|---|---|---|\n");
	for (size_t i = 0; i < 3; i++)
		for (size_t j = 0; j < 3; j++) {
			sbx_family_desc f;
			sbx_family_desc_init(&f, "f");
			f.block_size = sizes[i];
			f.compression = comps[j];
			char name[32];
			snprintf(name, sizeof name, "c%zu%zu", i, j);
			store s;
			store_open(&s, name, &f, 8u << 20);
			load(&s, 0, rows, 16, "f", "a", "b", 64);
			if (sbx_table_flush(s.db, "t") ||
			    sbx_table_major_compact(s.db, "t"))
				die("compact");
			uint64_t sst = sst_bytes(name);
			reads r = measure_reads(&s, 16, rows, rows / 10);
			printf("| %d KiB | %s | %llu | %.0f | %.1f%% | %llu | "
			       "%.0f |\n", sizes[i] / 1024,
			       sbx_compression_name(comps[j]),
			       (unsigned long long)sst, r.get_per_s,
			       r.hit_rate * 100,
			       (unsigned long long)r.block_reads,
			       r.scan_rows_per_s);
			fflush(stdout);
			store_close(&s);
		}
}

int main(int argc, char **argv)
{
	char parts[8] = "";
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--rows") && i + 1 < argc)
			g_rows = atol(argv[++i]);
		else if (!strcmp(argv[i], "--dir") && i + 1 < argc)
			g_dir = argv[++i];
		else if (!strcmp(argv[i], "--part") && i + 1 < argc &&
			 strlen(parts) < 6)
			strncat(parts, argv[++i], 1);
		else {
			fprintf(stderr, "usage: bench_seeds [--rows N] [--dir DIR] "
					"[--part a|b|c]...\n");
			return 2;
		}
	}
	if (g_rows < 10000) {
		fprintf(stderr, "bench_seeds: --rows at least 10000\n");
		return 2;
	}
	if (!*parts)
		strcpy(parts, "abc");
	printf("# bench_seeds: %ld rows, store under %s\n", g_rows, g_dir);
	if (strchr(parts, 'a'))
		part_a();
	if (strchr(parts, 'b'))
		part_b();
	if (strchr(parts, 'c'))
		part_c();
	if (g_perf)
		rocksdb_perfcontext_destroy(g_perf);
	return 0;
}
