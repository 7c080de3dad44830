/*
 * test_bytes.c - the shared byte helpers of src/common/bytes.h: HBase's
 * byte order, hex digits and strings, HBase's binary strings, strict
 * (row keys) and lenient (the shell, as Bytes.toBytesBinary), and the read
 * path's inline equality, copy and zero-byte search (every length 0..40,
 * every position of a difference or a zero, against memcmp, memcpy and
 * memchr).
 */
#include "check.h"
#include "common/base64.h"
#include "common/buf.h"
#include "common/bytes.h"

/* CHECK_MEM for expected bytes that hold NULs: the literal's own size. */
#define CHECK_BYTES(ptr, len, lit)                                           \
	do {                                                                 \
		CHECK_INT((len), sizeof(lit) - 1);                           \
		CHECK((len) == sizeof(lit) - 1 &&                            \
		      memcmp((ptr), (lit), sizeof(lit) - 1) == 0);           \
	} while (0)

static int sign(int c)
{
	return c < 0 ? -1 : c > 0;
}

static void test_bytes_cmp_is_hbase_order(void)
{
	CHECK_INT(sign(sbx_bytes_cmp("a", 1, "b", 1)), -1);
	CHECK_INT(sign(sbx_bytes_cmp("b", 1, "a", 1)), 1);
	CHECK_INT(sbx_bytes_cmp("ab", 2, "ab", 2), 0);
	/* a proper prefix sorts first; the empty string before everything */
	CHECK_INT(sign(sbx_bytes_cmp("ab", 2, "abc", 3)), -1);
	CHECK_INT(sign(sbx_bytes_cmp("abc", 3, "ab", 2)), 1);
	CHECK_INT(sign(sbx_bytes_cmp(NULL, 0, "\x00", 1)), -1);
	CHECK_INT(sbx_bytes_cmp(NULL, 0, NULL, 0), 0);
	/* unsigned bytes: 0xFF after 0x7F */
	CHECK_INT(sign(sbx_bytes_cmp("\xff", 1, "\x7f", 1)), 1);
}

static void test_hex_digits_and_strings(void)
{
	CHECK_INT(sbx_hex_digit('0'), 0);
	CHECK_INT(sbx_hex_digit('9'), 9);
	CHECK_INT(sbx_hex_digit('a'), 10);
	CHECK_INT(sbx_hex_digit('F'), 15);
	CHECK_INT(sbx_hex_digit('g'), -1);
	CHECK_INT(sbx_hex_digit('\xff'), -1);
	sbx_buf b = {0};
	CHECK_INT(sbx_hex_append(&b, "\x00\x1f\xab", 3, false), SBX_OK);
	CHECK_MEM(b.data, b.len, "001fab");
	CHECK_INT(sbx_hex_append(&b, "\xab", 1, true), SBX_OK);
	CHECK_MEM(b.data, b.len, "001fabAB");
	sbx_buf_reset(&b);
	size_t bad = 99;
	CHECK_INT(sbx_hex_decode(&b, "00fFa0", 6, &bad), SBX_OK);
	CHECK_BYTES(b.data, b.len, "\x00\xff\xa0");
	CHECK_INT(sbx_hex_decode(&b, "abc", 3, &bad), SBX_EINVAL);
	CHECK_INT(bad, 3);
	CHECK_INT(sbx_hex_decode(&b, "ab0g", 4, &bad), SBX_EINVAL);
	CHECK_INT(bad, 2);
	CHECK_INT(b.len, 3); /* a failed decode appends nothing */
	sbx_buf_free(&b);
}

static void test_binary_strings(void)
{
	sbx_buf b = {0};
	CHECK_INT(sbx_binary_string_append(&b, "a b~\\\x00\x7f\xff\n", 9),
		  SBX_OK);
	CHECK_MEM(b.data, b.len, "a b~\\x5C\\x00\\x7F\\xFF\\x0A");
	sbx_buf_reset(&b);
	size_t bad = 99;
	CHECK_INT(sbx_binary_string_decode(&b, "a\\x00\\xfFz", 10, true, &bad),
		  SBX_OK);
	CHECK_BYTES(b.data, b.len, "a\x00\xffz");
	/* strict: a backslash that is not \xHH is an error, at its offset */
	CHECK_INT(sbx_binary_string_decode(&b, "ok\\n", 4, true, &bad),
		  SBX_EINVAL);
	CHECK_INT(bad, 2);
	CHECK_INT(sbx_binary_string_decode(&b, "\\x4", 3, true, &bad),
		  SBX_EINVAL);
	CHECK_INT(bad, 0);
	CHECK_INT(b.len, 4);
	/* lenient, HBase's toBytesBinary: a bogus \x loses its backslash,
	 * another backslash stays */
	sbx_buf_reset(&b);
	CHECK_INT(sbx_binary_string_decode(&b, "\\xZ1\\n\\x4", 9, false, &bad),
		  SBX_OK);
	CHECK_MEM(b.data, b.len, "xZ1\\nx4");
	sbx_buf_free(&b);
}

static void test_base64_strict_and_lenient(void)
{
	sbx_buf b = {0};
	CHECK_INT(sbx_base64_encode(&b, "\xfb\xff", 2), SBX_OK);
	CHECK_MEM(b.data, b.len, "+/8=");
	char *s = sbx_base64_string("hello", 5);
	CHECK_STR(s, "aGVsbG8=");
	free(s);
	CHECK_INT(sbx_base64_decode(&b, "+/8=", 4, false), SBX_OK);
	CHECK_BYTES(b.data, b.len, "\xfb\xff");
	/* URL-safe letters and stray padding: only the lenient form */
	CHECK_INT(sbx_base64_decode(&b, "-_8", 3, false), SBX_EPARSE);
	CHECK_INT(sbx_base64_decode(&b, "-_8", 3, true), SBX_OK);
	CHECK_BYTES(b.data, b.len, "\xfb\xff");
	CHECK_INT(sbx_base64_decode(&b, "aGVsbG8===", 10, false), SBX_EPARSE);
	CHECK_INT(sbx_base64_decode(&b, "aGVsbG8===", 10, true), SBX_OK);
	CHECK_MEM(b.data, b.len, "hello");
	/* unused bits set: not canonical, so strict refuses it */
	CHECK_INT(sbx_base64_decode(&b, "aGVsbG9=", 8, false), SBX_EPARSE);
	CHECK_INT(sbx_base64_decode(&b, "aGVsbG9=", 8, true), SBX_OK);
	CHECK_MEM(b.data, b.len, "hello");
	CHECK_INT(sbx_base64_decode(&b, "a", 1, true), SBX_EPARSE);
	sbx_buf_free(&b);
}

static void test_url_encoding(void)
{
	sbx_buf b = {0};
	/* RFC 3986 unreserved bytes as they are, every other byte %HH */
	CHECK_INT(sbx_url_append(&b, "aZ09-._~", 8), SBX_OK);
	CHECK_MEM(b.data, b.len, "aZ09-._~");
	sbx_buf_reset(&b);
	CHECK_INT(sbx_url_append(&b, "a b/\x00\xff%", 7), SBX_OK);
	CHECK_MEM(b.data, b.len, "a%20b%2F%00%FF%25");
	sbx_buf_reset(&b);
	CHECK_INT(sbx_url_append(&b, "", 0), SBX_OK);
	CHECK_INT(b.len, 0);
	sbx_buf_free(&b);
}

static void test_cell_order_is_hbase_order(void)
{
	/* family, qualifier, newest first, a delete marker before a put at
	 * one timestamp (CellComparator within a row) */
	sbx_cell a = {.family = "f", .family_len = 1, .qualifier = (const uint8_t *)"q",
		      .qualifier_len = 1, .timestamp = 5, .type = SBX_CELL_PUT};
	sbx_cell b = a;
	CHECK_INT(sbx_cell_cmp(&a, &b), 0);
	b.timestamp = 4;
	CHECK_INT(sign(sbx_cell_cmp(&a, &b)), -1);
	b.timestamp = 5;
	b.type = SBX_CELL_DELETE_COLUMN;
	CHECK_INT(sign(sbx_cell_cmp(&a, &b)), 1);
	b = a;
	b.qualifier = (const uint8_t *)"qq";
	b.qualifier_len = 2;
	CHECK_INT(sign(sbx_cell_cmp(&a, &b)), -1);
	b = a;
	b.family = "e";
	CHECK_INT(sign(sbx_cell_cmp(&a, &b)), 1);
}

/* The word-at-a-time helpers read their last word overlapping the one
 * before it: every length and every position checked, each at an odd
 * address, with guard bytes around the copy's destination. */
static void test_inline_eq_copy_zero(void)
{
	uint8_t a[48], b[48], d[64];
	int wrong_eq = 0, wrong_copy = 0, wrong_zero = 0;
	for (size_t n = 0; n <= 40; n++) {
		for (size_t i = 0; i < sizeof a; i++)
			a[i] = b[i] = (uint8_t)(0x41 + i % 23);
		const uint8_t *x = a + 1, *y = b + 1;
		if (!sbx_bytes_eq(x, y, n))
			wrong_eq++;
		for (size_t at = 0; at < n; at++) { /* one byte differs */
			b[1 + at] ^= 0x80;
			if (sbx_bytes_eq(x, y, n) != !memcmp(x, y, n))
				wrong_eq++;
			b[1 + at] ^= 0x80;
		}
		b[1 + n] ^= 0x80; /* past the end: not looked at */
		if (!sbx_bytes_eq(x, y, n))
			wrong_eq++;
		b[1 + n] ^= 0x80;

		memset(d, 0xEE, sizeof d);
		sbx_bytes_copy(d + 3, x, n);
		if (memcmp(d + 3, x, n) || d[2] != 0xEE || d[3 + n] != 0xEE)
			wrong_copy++;

		if (sbx_bytes_has_zero(x, n)) /* no zero among the bytes */
			wrong_zero++;
		for (size_t at = 0; at < n; at++) {
			a[1 + at] = 0;
			if (!sbx_bytes_has_zero(x, n) || !memchr(x, 0, n))
				wrong_zero++;
			a[1 + at] = (uint8_t)(0x41 + (1 + at) % 23);
		}
		a[1 + n] = 0; /* a zero just past the end does not count */
		if (sbx_bytes_has_zero(x, n))
			wrong_zero++;
		/* bytes whose word test borrows (0x01 before 0x80) */
		memset(a, 0x01, sizeof a);
		if (sbx_bytes_has_zero(x, n))
			wrong_zero++;
		memset(a, 0x80, sizeof a);
		if (sbx_bytes_has_zero(x, n))
			wrong_zero++;
	}
	CHECK_INT(wrong_eq, 0);
	CHECK_INT(wrong_copy, 0);
	CHECK_INT(wrong_zero, 0);
}

TEST_MAIN(T(test_bytes_cmp_is_hbase_order), T(test_inline_eq_copy_zero), T(test_hex_digits_and_strings),
	  T(test_binary_strings), T(test_base64_strict_and_lenient),
	  T(test_url_encoding), T(test_cell_order_is_hbase_order))
