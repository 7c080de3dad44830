/*
 * bench_rowkey.c - encode and decode rates of each row-key codec, hash and
 * salt, and of whole seed designs; the reference beside each fixed-width
 * codec is writing the same value as decimal text with snprintf, the key
 * people write without a codec (and that does not sort numerically).
 *
 * usage: bench_rowkey [--n N]
 */
#include "bench_util.h"
#include "saltbox.h"
#include "common/buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile uint64_t sink;

static void report(const char *name, long n, double enc_s, double dec_s,
		   double ref_rate)
{
	double e = n / enc_s;
	char ratio[16] = "-", d[16] = "-";
	if (ref_rate > 0)
		snprintf(ratio, sizeof ratio, "%.2f", e / ref_rate);
	if (dec_s > 0)
		snprintf(d, sizeof d, "%.1f", n / dec_s / 1e6);
	printf("%-30s %12.1f %12s %9s\n", name, e / 1e6, d, ratio);
}

int main(int argc, char **argv)
{
	long n = 2000000;
	for (int i = 1; i + 1 < argc; i += 2)
		if (!strcmp(argv[i], "--n"))
			n = atol(argv[i + 1]);
	sbx_buf b = {0};
	sbx_buf_reserve(&b, 4096);
	double t0, enc, dec;
	/* the reference: the same number as decimal text */
	t0 = now_s();
	for (long i = 0; i < n; i++) {
		b.len = (size_t)snprintf((char *)b.data, 32, "%020llu",
					 (unsigned long long)i);
		sink += b.data[19];
	}
	double ref = n / (now_s() - t0);
	printf("%ld operations each; rates in millions/s; 'x text' = encode "
	       "rate / snprintf(\"%%020llu\") of the same value (%.1f M/s)\n\n",
	       n, ref / 1e6);
	printf("%-30s %12s %12s %9s\n", "codec", "encode M/s", "decode M/s",
	       "x text");

	t0 = now_s();
	for (long i = 0; i < n; i++) {
		b.len = 0;
		sbx_key_put_uint(&b, (uint64_t)i, 8);
	}
	enc = now_s() - t0;
	t0 = now_s();
	for (long i = 0; i < n; i++) {
		uint64_t v;
		sbx_key_get_uint(&v, b.data, 8, 8, NULL);
		sink += v;
	}
	dec = now_s() - t0;
	report("uint64 (big-endian)", n, enc, dec, ref);

	t0 = now_s();
	for (long i = 0; i < n; i++) {
		b.len = 0;
		sbx_key_put_int(&b, -i, 8);
	}
	enc = now_s() - t0;
	t0 = now_s();
	for (long i = 0; i < n; i++) {
		int64_t v;
		sbx_key_get_int(&v, b.data, 8, 8, NULL);
		sink += (uint64_t)v;
	}
	dec = now_s() - t0;
	report("int64 (sign flipped)", n, enc, dec, ref);

	t0 = now_s();
	for (long i = 0; i < n; i++) {
		b.len = 0;
		sbx_key_put_f64(&b, (double)i * -1.5);
	}
	enc = now_s() - t0;
	t0 = now_s();
	for (long i = 0; i < n; i++) {
		double v;
		sbx_key_get_f64(&v, b.data, 8, NULL);
		sink += (uint64_t)v;
	}
	dec = now_s() - t0;
	report("float64 (total order)", n, enc, dec, ref);

	t0 = now_s();
	for (long i = 0; i < n; i++) {
		b.len = 0;
		sbx_key_put_rts64(&b, 1700000000000 + i);
	}
	enc = now_s() - t0;
	t0 = now_s();
	for (long i = 0; i < n; i++) {
		int64_t v;
		sbx_key_get_rts64(&v, b.data, 8, NULL);
		sink += (uint64_t)v;
	}
	dec = now_s() - t0;
	report("reverse timestamp", n, enc, dec, ref);

	const char *text = "user\0name-0042"; /* 14 bytes with a zero */
	t0 = now_s();
	for (long i = 0; i < n; i++) {
		b.len = 0;
		sbx_key_put_bytes(&b, text, 14, SBX_KEY_TERMINATED);
	}
	enc = now_s() - t0;
	size_t elen = b.len;
	sbx_buf v = {0};
	t0 = now_s();
	for (long i = 0; i < n; i++) {
		v.len = 0;
		sbx_key_get_bytes(&v, b.data, elen, SBX_KEY_TERMINATED, NULL);
		sink += v.len;
	}
	dec = now_s() - t0;
	report("escaped bytes (14 B)", n, enc, dec, 0);

	t0 = now_s();
	for (long i = 0; i < n; i++) {
		b.len = 0;
		sbx_key_put_fixed(&b, "P000123", 7, 10, ' ', false);
	}
	enc = now_s() - t0;
	t0 = now_s();
	for (long i = 0; i < n; i++) {
		v.len = 0;
		sbx_key_get_fixed(&v, b.data, 10, 10, ' ', false, NULL);
		sink += v.len;
	}
	dec = now_s() - t0;
	report("fixed str(10)", n, enc, dec, 0);

	static const struct {
		const char *name;
		sbx_hash_algo algo;
	} hashes[] = {{"md5 (16 B digest)", SBX_HASH_MD5},
		      {"murmur3_32", SBX_HASH_MURMUR3_32},
		      {"murmur3_128", SBX_HASH_MURMUR3_128},
		      {"xxh32", SBX_HASH_XXH32},
		      {"xxh64", SBX_HASH_XXH64},
		      {"xxh3", SBX_HASH_XXH3}};
	uint8_t dig[16];
	for (size_t h = 0; h < sizeof hashes / sizeof *hashes; h++) {
		t0 = now_s();
		for (long i = 0; i < n; i++) {
			sbx_hash(dig, hashes[h].algo, 0, "1231231", 7);
			sink += dig[0];
		}
		report(hashes[h].name, n, now_s() - t0, 0, 0);
	}
	t0 = now_s();
	for (long i = 0; i < n; i++)
		sink += (uint64_t)sbx_phoenix_salt("user00001234", 12, 16);
	report("phoenix salt (12 B, 16)", n, now_s() - t0, 0, 0);

	/* whole designs from the seeds */
	static const struct {
		const char *name, *design;
		sbx_keyvalue v[4];
		size_t nv;
	} designs[] = {
		{"seed 002 md5:date:time:id",
		 "md5(message_id) + ':' + date:str(6) + ':' + time:str(6) + ':' "
		 "+ message_id:dec",
		 {{"message_id", "1231231", 7},
		  {"date", "230611", 6},
		  {"time", "063031", 6}},
		 3},
		{"seed 003 product_comment",
		 "product_id:str(10) + 'c' + ts:rts64 + content_len:rlen32",
		 {{"product_id", "P000000042", 10},
		  {"ts", "1700000000000", 13},
		  {"content_len", "120", 3}},
		 3},
		{"salt(16) + user:str(8) + seq", "salt(16) + user:str(8) + seq:u64",
		 {{"user", "u0000042", 8}, {"seq", "12345", 5}},
		 2},
	};
	for (size_t d = 0; d < sizeof designs / sizeof *designs; d++) {
		sbx_keydesign *kd;
		sbx_keyparse_pos pos;
		if (sbx_keydesign_parse(&kd, designs[d].design,
					strlen(designs[d].design), &pos)) {
			fprintf(stderr, "%s: %s\n", designs[d].name, sbx_errmsg());
			return 1;
		}
		t0 = now_s();
		long m = n / 4;
		for (long i = 0; i < m; i++) {
			b.len = 0;
			if (sbx_keydesign_encode(&b, kd, designs[d].v,
						 designs[d].nv)) {
				fprintf(stderr, "%s: %s\n", designs[d].name,
					sbx_errmsg());
				return 1;
			}
		}
		enc = now_s() - t0;
		t0 = now_s();
		for (long i = 0; i < m; i++) {
			sbx_keyrecord *r;
			if (sbx_keydesign_decode(&r, kd, b.data, b.len) ==
			    SBX_OK) {
				sink += sbx_keyrecord_count(r);
				sbx_keyrecord_free(r);
			}
		}
		dec = now_s() - t0;
		report(designs[d].name, m, enc, dec, 0);
		sbx_keydesign_free(kd);
	}
	sbx_buf_free(&b);
	sbx_buf_free(&v);
	return sink == 42;
}
