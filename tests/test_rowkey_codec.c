/*
 * test_rowkey_codec.c - the order-preserving codecs, hashes and salts:
 * exact bytes for known values, memcmp order over edge values equal to
 * value order, round trips, and rejection of bad input without writing.
 */
#include "check.h"
#include "common/buf.h"
#include "saltbox/rowkey.h"

#include <math.h>

/* memcmp order of two byte strings: <0, 0, >0 */
static int cmp_bytes(const uint8_t *a, size_t al, const uint8_t *b, size_t bl)
{
	size_t m = al < bl ? al : bl;
	int c = m ? memcmp(a, b, m) : 0;
	if (c)
		return c;
	return al < bl ? -1 : al > bl;
}

static void hex(char *out, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", p[i]);
	out[2 * n] = 0;
}

#define CHECK_HEX(buf, expected)                                             \
	do {                                                                 \
		char h_[512];                                                \
		hex(h_, (buf).data, (buf).len);                              \
		CHECK_STR(h_, expected);                                     \
	} while (0)

static void test_uint(void)
{
	sbx_buf b = {0};
	CHECK_INT(sbx_key_put_uint(&b, 0x1234, 2), SBX_OK);
	CHECK_HEX(b, "1234");
	b.len = 0;
	CHECK_INT(sbx_key_put_uint(&b, 1231231, 8), SBX_OK);
	CHECK_HEX(b, "000000000012c97f");
	b.len = 0;
	CHECK_INT(sbx_key_put_uint(&b, 256, 1), SBX_EINVAL);
	CHECK_INT(sbx_key_put_uint(&b, 1, 3), SBX_EINVAL);
	CHECK_INT(b.len, 0);
	const uint64_t vals[] = {0, 1, 255, 256, 65535, 65536, UINT32_MAX,
				 (uint64_t)UINT32_MAX + 1, UINT64_MAX - 1,
				 UINT64_MAX};
	sbx_buf prev = {0};
	for (size_t i = 0; i < sizeof vals / sizeof *vals; i++) {
		b.len = 0;
		REQUIRE(sbx_key_put_uint(&b, vals[i], 8) == SBX_OK);
		uint64_t back;
		size_t used;
		CHECK_INT(sbx_key_get_uint(&back, b.data, b.len, 8, &used),
			  SBX_OK);
		CHECK(back == vals[i]);
		CHECK_INT(used, 8);
		if (i)
			CHECK(cmp_bytes(prev.data, prev.len, b.data, b.len) < 0);
		sbx_buf_set(&prev, b.data, b.len);
	}
	uint64_t v;
	CHECK_INT(sbx_key_get_uint(&v, b.data, 7, 8, NULL), SBX_EINVAL);
	sbx_buf_free(&b);
	sbx_buf_free(&prev);
}

static void test_int_order(void)
{
	sbx_buf b = {0};
	CHECK_INT(sbx_key_put_int(&b, -1, 4), SBX_OK);
	CHECK_HEX(b, "7fffffff");
	b.len = 0;
	CHECK_INT(sbx_key_put_int(&b, 0, 2), SBX_OK);
	CHECK_HEX(b, "8000");
	b.len = 0;
	CHECK_INT(sbx_key_put_int(&b, INT64_MIN, 8), SBX_OK);
	CHECK_HEX(b, "0000000000000000");
	b.len = 0;
	CHECK_INT(sbx_key_put_int(&b, 128, 1), SBX_EINVAL);
	CHECK_INT(sbx_key_put_int(&b, -129, 1), SBX_EINVAL);
	CHECK_INT(b.len, 0);
	const int widths[] = {1, 2, 4, 8};
	for (size_t w = 0; w < 4; w++) {
		int width = widths[w];
		int64_t lim = width == 8 ? INT64_MAX
					 : (INT64_C(1) << (8 * width - 1)) - 1;
		int64_t lo = width == 8 ? INT64_MIN : -lim - 1;
		const int64_t vals[] = {lo, lo + 1, -2, -1, 0, 1, 2, lim - 1, lim};
		sbx_buf prev = {0};
		for (size_t i = 0; i < sizeof vals / sizeof *vals; i++) {
			b.len = 0;
			REQUIRE(sbx_key_put_int(&b, vals[i], width) == SBX_OK);
			CHECK_INT(b.len, width);
			int64_t back;
			CHECK_INT(sbx_key_get_int(&back, b.data, b.len, width,
						  NULL), SBX_OK);
			CHECK_INT(back, vals[i]);
			if (i)
				CHECK(cmp_bytes(prev.data, prev.len, b.data,
						b.len) < 0);
			sbx_buf_set(&prev, b.data, b.len);
		}
		sbx_buf_free(&prev);
	}
	sbx_buf_free(&b);
}

static void test_float_order(void)
{
	const double vals[] = {-INFINITY, -1e308, -1.5, -4.9e-324, -0.0, 0.0,
			       4.9e-324, 1.0, 1.5, 1e308, INFINITY, NAN};
	sbx_buf b = {0}, prev = {0};
	for (size_t i = 0; i < sizeof vals / sizeof *vals; i++) {
		b.len = 0;
		REQUIRE(sbx_key_put_f64(&b, vals[i]) == SBX_OK);
		double back;
		CHECK_INT(sbx_key_get_f64(&back, b.data, b.len, NULL), SBX_OK);
		if (isnan(vals[i]))
			CHECK(isnan(back));
		else
			CHECK(back == vals[i] &&
			      signbit(back) == signbit(vals[i]));
		if (i)
			CHECK(cmp_bytes(prev.data, prev.len, b.data, b.len) < 0);
		sbx_buf_set(&prev, b.data, b.len);
	}
	/* -NaN folds into NaN: equal to +NaN, after +inf */
	b.len = 0;
	sbx_key_put_f64(&b, -NAN);
	CHECK(cmp_bytes(prev.data, prev.len, b.data, b.len) == 0);
	b.len = 0;
	sbx_key_put_f64(&b, 0.0);
	CHECK_HEX(b, "8000000000000000");
	b.len = 0;
	sbx_key_put_f64(&b, -0.0);
	CHECK_HEX(b, "7fffffffffffffff");
	b.len = 0;
	sbx_key_put_f64(&b, 1.0);
	CHECK_HEX(b, "bff0000000000000");

	const float fv[] = {-INFINITY, -3.4e38f, -1.0f, -1e-45f, -0.0f, 0.0f,
			    1e-45f,    1.0f,     3.4e38f, INFINITY, NAN};
	prev.len = 0;
	for (size_t i = 0; i < sizeof fv / sizeof *fv; i++) {
		b.len = 0;
		REQUIRE(sbx_key_put_f32(&b, fv[i]) == SBX_OK);
		CHECK_INT(b.len, 4);
		float back;
		CHECK_INT(sbx_key_get_f32(&back, b.data, b.len, NULL), SBX_OK);
		if (isnan(fv[i]))
			CHECK(isnan(back));
		else
			CHECK(back == fv[i] && signbit(back) == signbit(fv[i]));
		if (i)
			CHECK(cmp_bytes(prev.data, prev.len, b.data, b.len) < 0);
		sbx_buf_set(&prev, b.data, b.len);
	}
	b.len = 0;
	sbx_key_put_f32(&b, -1.0f);
	CHECK_HEX(b, "407fffff");
	sbx_buf_free(&b);
	sbx_buf_free(&prev);
}

static void test_rts64(void)
{
	sbx_buf b = {0}, prev = {0};
	CHECK_INT(sbx_key_put_rts64(&b, 0), SBX_OK);
	CHECK_HEX(b, "7fffffffffffffff");
	b.len = 0;
	/* 2023-06-11 06:30:31 UTC in ms */
	CHECK_INT(sbx_key_put_rts64(&b, INT64_C(1686465031000)), SBX_OK);
	CHECK_HEX(b, "7ffffe7756d9d4a7");
	b.len = 0;
	CHECK_INT(sbx_key_put_rts64(&b, -1), SBX_EINVAL);
	CHECK_INT(b.len, 0);
	/* newer timestamps sort first */
	const int64_t ts[] = {INT64_MAX, INT64_C(1700000000000),
			      INT64_C(1686465031000), 1, 0};
	for (size_t i = 0; i < 5; i++) {
		b.len = 0;
		REQUIRE(sbx_key_put_rts64(&b, ts[i]) == SBX_OK);
		int64_t back;
		CHECK_INT(sbx_key_get_rts64(&back, b.data, b.len, NULL), SBX_OK);
		CHECK_INT(back, ts[i]);
		if (i)
			CHECK(cmp_bytes(prev.data, prev.len, b.data, b.len) < 0);
		sbx_buf_set(&prev, b.data, b.len);
	}
	const uint8_t bad[8] = {0x80, 0, 0, 0, 0, 0, 0, 0};
	int64_t t;
	CHECK_INT(sbx_key_get_rts64(&t, bad, 8, NULL), SBX_EINVAL);
	sbx_buf_free(&b);
	sbx_buf_free(&prev);
}

/* Edge values in value order (memcmp of the raw bytes, shorter first). */
static const struct {
	const char *s;
	size_t n;
} EDGE[] = {
	{"", 0},       {"\0", 1},   {"\0\0", 2}, {"\0\x01", 2}, {"\x01", 1},
	{"a", 1},      {"a\0", 2},  {"a\0b", 3}, {"a\x01", 2},  {"ab", 2},
	{"abc", 3},    {"b", 1},    {"\xfe", 1}, {"\xff", 1},   {"\xff\0", 2},
	{"\xff\xff", 2},
};
#define NEDGE (sizeof EDGE / sizeof *EDGE)

static void test_bytes_escape(void)
{
	sbx_buf b = {0};
	CHECK_INT(sbx_key_put_bytes(&b, "a\0b", 3, SBX_KEY_TERMINATED), SBX_OK);
	CHECK_HEX(b, "6100ff620001");
	b.len = 0;
	CHECK_INT(sbx_key_put_bytes(&b, "a\0b", 3, 0), SBX_OK);
	CHECK_HEX(b, "6100ff62");
	b.len = 0;
	CHECK_INT(sbx_key_put_bytes(&b, "a", 1, SBX_KEY_DESC), SBX_OK);
	CHECK_HEX(b, "9efffe");
	sbx_buf_free(&b);

	const unsigned modes[] = {SBX_KEY_TERMINATED, SBX_KEY_DESC};
	for (int m = 0; m < 2; m++) {
		sbx_buf enc[NEDGE];
		memset(enc, 0, sizeof enc);
		for (size_t i = 0; i < NEDGE; i++) {
			REQUIRE(sbx_key_put_bytes(&enc[i], EDGE[i].s, EDGE[i].n,
						  modes[m]) == SBX_OK);
			/* a following field must not change the order */
			sbx_buf_push(&enc[i], i % 2 ? 0x00 : 0xFF);
			sbx_buf v = {0};
			size_t used;
			CHECK_INT(sbx_key_get_bytes(&v, enc[i].data, enc[i].len,
						    modes[m], &used), SBX_OK);
			CHECK_INT(used, enc[i].len - 1);
			CHECK(v.len == EDGE[i].n &&
			      (!v.len || !memcmp(v.data, EDGE[i].s, v.len)));
			sbx_buf_free(&v);
		}
		for (size_t i = 0; i < NEDGE; i++)
			for (size_t j = 0; j < NEDGE; j++) {
				int c = cmp_bytes(enc[i].data, enc[i].len,
						  enc[j].data, enc[j].len);
				int want = (i > j) - (i < j);
				if (m == 1)
					want = -want;
				CHECK((c > 0) - (c < 0) == want);
			}
		for (size_t i = 0; i < NEDGE; i++)
			sbx_buf_free(&enc[i]);
	}
	/* last field, no terminator: still ordered, round-trips */
	sbx_buf prev = {0};
	for (size_t i = 0; i < NEDGE; i++) {
		sbx_buf e = {0}, v = {0};
		REQUIRE(sbx_key_put_bytes(&e, EDGE[i].s, EDGE[i].n, 0) == SBX_OK);
		CHECK_INT(sbx_key_get_bytes(&v, e.data, e.len, 0, NULL), SBX_OK);
		CHECK_INT(v.len, EDGE[i].n);
		if (i)
			CHECK(cmp_bytes(prev.data, prev.len, e.data, e.len) < 0);
		sbx_buf_set(&prev, e.data, e.len);
		sbx_buf_free(&e);
		sbx_buf_free(&v);
	}
	sbx_buf_free(&prev);
	/* malformed encodings are rejected and leave the output as it was */
	sbx_buf v = {0};
	sbx_buf_append(&v, "keep", 4);
	CHECK_INT(sbx_key_get_bytes(&v, (const uint8_t *)"ab", 2,
				    SBX_KEY_TERMINATED, NULL), SBX_EINVAL);
	CHECK_INT(sbx_key_get_bytes(&v, (const uint8_t *)"a\0\x05", 3,
				    SBX_KEY_TERMINATED, NULL), SBX_EINVAL);
	CHECK_INT(sbx_key_get_bytes(&v, (const uint8_t *)"a\0", 2, 0, NULL),
		  SBX_EINVAL);
	CHECK_MEM(v.data, v.len, "keep");
	sbx_buf_free(&v);
}

static void test_fixed_and_reverse(void)
{
	sbx_buf b = {0}, v = {0};
	CHECK_INT(sbx_key_put_fixed(&b, "p123", 4, 10, 0, false), SBX_OK);
	CHECK_HEX(b, "70313233000000000000");
	size_t used;
	CHECK_INT(sbx_key_get_fixed(&v, b.data, b.len, 10, 0, false, &used),
		  SBX_OK);
	CHECK_MEM(v.data, v.len, "p123");
	CHECK_INT(used, 10);
	b.len = 0;
	CHECK_INT(sbx_key_put_fixed(&b, "42", 2, 5, '0', true), SBX_OK);
	CHECK_MEM(b.data, b.len, "00042");
	/* never truncated, never ambiguous; buffer untouched on error */
	CHECK_INT(sbx_key_put_fixed(&b, "product-0001", 12, 10, 0, false),
		  SBX_EINVAL);
	CHECK_INT(sbx_key_put_fixed(&b, "ab ", 3, 10, ' ', false), SBX_EINVAL);
	CHECK_INT(sbx_key_put_fixed(&b, "042", 3, 5, '0', true), SBX_EINVAL);
	CHECK_MEM(b.data, b.len, "00042");
	/* padded order = value order for values not ending in the pad */
	const char *vals[] = {"", "a", "a\x01", "ab", "b", "zzzz"};
	sbx_buf prev = {0};
	for (size_t i = 0; i < 6; i++) {
		b.len = 0;
		REQUIRE(sbx_key_put_fixed(&b, vals[i], strlen(vals[i]), 4, 0,
					  false) == SBX_OK);
		if (i)
			CHECK(cmp_bytes(prev.data, prev.len, b.data, b.len) < 0);
		sbx_buf_set(&prev, b.data, b.len);
	}
	char phone[] = "13812345678";
	sbx_key_reverse((uint8_t *)phone, strlen(phone));
	CHECK_STR(phone, "87654321831");
	uint8_t inv[3] = {0x00, 0x7F, 0xFF};
	sbx_key_invert(inv, 3);
	CHECK(inv[0] == 0xFF && inv[1] == 0x80 && inv[2] == 0x00);
	sbx_buf_free(&b);
	sbx_buf_free(&v);
	sbx_buf_free(&prev);
}

static void test_desc_variant(void)
{
	/* descending u32: bigger values first */
	sbx_buf a = {0}, b = {0};
	sbx_key_put_uint(&a, 5, 4);
	sbx_key_put_uint(&b, 6, 4);
	sbx_key_invert(a.data, a.len);
	sbx_key_invert(b.data, b.len);
	CHECK(cmp_bytes(a.data, a.len, b.data, b.len) > 0);
	CHECK_HEX(a, "fffffffa");
	sbx_buf_free(&a);
	sbx_buf_free(&b);
}

static void test_md5_seed002(void)
{
	/* seed 002: MD5_function(message_id) for messages 1231231..1231235 */
	const char *ids[] = {"1231231", "1231232", "1231233", "1231234",
			     "1231235"};
	const char *want[] = {"8D4646EB2D7067126EB08ADB0672F7BB",
			      "715782C59C0561E9B6CE0F3D522C32F1",
			      "57F962C03EF3526EC6E95CEB50785C4C",
			      "8B353D5CC07E13577608711F4602FCB7",
			      "430EDB0C535BF08174E122EFECFA711D"};
	for (int i = 0; i < 5; i++) {
		uint8_t d[16];
		sbx_buf b = {0};
		CHECK_INT(sbx_hash(d, SBX_HASH_MD5, 0, ids[i], 7), SBX_OK);
		sbx_key_put_hex(&b, d, 16, true);
		CHECK_MEM(b.data, b.len, want[i]);
		sbx_buf_free(&b);
	}
}

static void test_murmur3_vectors(void)
{
	/* published MurmurHash3_x86_32 vectors */
	CHECK(sbx_murmur3_32("", 0, 0) == 0);
	CHECK(sbx_murmur3_32("", 0, 1) == 0x514E28B7u);
	CHECK(sbx_murmur3_32("", 0, 0xffffffffu) == 0x81F16F39u);
	CHECK(sbx_murmur3_32("\0\0\0\0", 4, 0) == 0x2362F9DEu);
	CHECK(sbx_murmur3_32("aaaa", 4, 0x9747b28cu) == 0x5A97808Au);
	CHECK(sbx_murmur3_32("abc", 3, 0) == 0xB3DD93FAu);
	CHECK(sbx_murmur3_32("Hello, world!", 13, 0x9747b28cu) == 0x24884CBAu);
	CHECK(sbx_murmur3_32("The quick brown fox jumps over the lazy dog", 43,
			     0x9747b28cu) == 0x2FA826CDu);
	/* x64_128: Guava's and mmh3's vectors */
	uint64_t h[2];
	sbx_murmur3_128(h, "", 0, 0);
	CHECK(h[0] == 0 && h[1] == 0);
	sbx_murmur3_128(h, "hello", 5, 0);
	CHECK(h[0] == UINT64_C(0xcbd8a7b341bd9b02));
	CHECK(h[1] == UINT64_C(0x5b1e906a48ae1d19));
	uint8_t d[16];
	sbx_hash(d, SBX_HASH_MURMUR3_128, 0,
		 "The quick brown fox jumps over the lazy dog", 43);
	sbx_buf b = {0};
	sbx_key_put_hex(&b, d, 16, false);
	CHECK_MEM(b.data, b.len, "6c1b07bc7bbc4be347939ac4a93c437a");
	b.len = 0;
	sbx_hash(d, SBX_HASH_MURMUR3_32, 0, "abc", 3);
	sbx_key_put_hex(&b, d, 4, false);
	CHECK_MEM(b.data, b.len, "fa93ddb3"); /* reference byte order */
	sbx_buf_free(&b);
}

static void test_xxhash_vectors(void)
{
	uint8_t d[8];
	sbx_buf b = {0};
	sbx_hash(d, SBX_HASH_XXH32, 0, "", 0);
	sbx_key_put_hex(&b, d, 4, false);
	CHECK_MEM(b.data, b.len, "02cc5d05");
	b.len = 0;
	sbx_hash(d, SBX_HASH_XXH64, 0, "", 0);
	sbx_key_put_hex(&b, d, 8, false);
	CHECK_MEM(b.data, b.len, "ef46db3751d8e999");
	b.len = 0;
	sbx_hash(d, SBX_HASH_XXH3, 0, "", 0);
	sbx_key_put_hex(&b, d, 8, false);
	CHECK_MEM(b.data, b.len, "2d06800538d394c2");
	CHECK_INT(sbx_hash_size(SBX_HASH_XXH3), 8);
	CHECK_INT(sbx_hash_size(SBX_HASH_MD5), 16);
	sbx_buf_free(&b);
}

static void test_phoenix_salt(void)
{
	/* h = 1; h = 31*h + (signed byte); bucket = abs(h % N).
	 * "a": 31 + 97 = 128; 128 % 16 = 0. */
	CHECK_INT(sbx_phoenix_salt("a", 1, 16), 0);
	/* "ab": 31*128 + 98 = 4066 = 16*254 + 2 */
	CHECK_INT(sbx_phoenix_salt("ab", 2, 16), 2);
	CHECK_INT(sbx_phoenix_salt("ab", 2, 256), 226); /* 4066 - 15*256 */
	/* 0xFF is -1 signed: 31 - 1 = 30; 30 % 16 = 14 */
	CHECK_INT(sbx_phoenix_salt("\xff", 1, 16), 14);
	/* 0x80 is -128: 31 - 128 = -97; Java -97 % 16 = -1; abs = 1 */
	CHECK_INT(sbx_phoenix_salt("\x80", 1, 16), 1);
	CHECK_INT(sbx_phoenix_salt("\x80", 1, 256), 97);
	/* "hello": Arrays.hashCode = 31^5 + "hello".hashCode()
	 * = 28629151 + 99162322 = 127791473 = 16*7986967 + 1 */
	CHECK_INT(sbx_phoenix_salt("hello", 5, 16), 1);
	/* "1231231" wraps past 2^31: h = -534082992 (=-33380187*16), so 0;
	 * mod 256: -534082992 = -2086261*256 - 176 -> 176 */
	CHECK_INT(sbx_phoenix_salt("1231231", 7, 16), 0);
	CHECK_INT(sbx_phoenix_salt("1231231", 7, 256), 176);
	/* eight 0xFF bytes: h = -172384639; % 16 = -15 -> 15 */
	CHECK_INT(sbx_phoenix_salt("\xff\xff\xff\xff\xff\xff\xff\xff", 8, 16),
		  15);
	/* empty input: h = 1 */
	CHECK_INT(sbx_phoenix_salt("", 0, 16), 1);
	CHECK_INT(sbx_phoenix_salt("a", 1, 1), 0);
	CHECK_INT(sbx_phoenix_salt("a", 1, 0), SBX_EINVAL);
	CHECK_INT(sbx_phoenix_salt("a", 1, 257), SBX_EINVAL);
}

static void test_binary_string(void)
{
	sbx_buf b = {0};
	CHECK_INT(sbx_key_to_binary_string(&b, (const uint8_t *)"a\0\xff\\z", 5),
		  SBX_OK);
	CHECK_MEM(b.data, b.len, "a\\x00\\xFF\\x5Cz");
	sbx_buf back = {0};
	CHECK_INT(sbx_key_from_binary_string(&back, (char *)b.data, b.len),
		  SBX_OK);
	CHECK(back.len == 5 && !memcmp(back.data, "a\0\xff\\z", 5));
	back.len = 0;
	CHECK_INT(sbx_key_from_binary_string(&back, "ab\\x4", 5), SBX_EINVAL);
	CHECK_INT(sbx_key_from_binary_string(&back, "\\q00", 4), SBX_EINVAL);
	CHECK_INT(back.len, 0);
	sbx_buf_free(&b);
	sbx_buf_free(&back);
}

TEST_MAIN(T(test_uint), T(test_int_order), T(test_float_order), T(test_rts64),
	  T(test_bytes_escape), T(test_fixed_and_reverse),
	  T(test_desc_variant), T(test_md5_seed002), T(test_murmur3_vectors),
	  T(test_xxhash_vectors), T(test_phoenix_salt), T(test_binary_string))
