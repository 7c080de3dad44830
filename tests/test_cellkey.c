/*
 * test_cellkey.c - the on-disk cell key: escaping round-trips, keys sort
 * in HBase's order under plain memcmp (row, then qualifier, timestamp
 * descending, type descending) for random rows and qualifiers drawn from
 * the troublesome bytes 00, 01, FF, and a row's keys never interleave with
 * another row's.
 */
#include "check.h"
#include "engine/cellkey.h"

static unsigned seed = 7;

static size_t random_bytes(uint8_t *out, size_t max)
{
	static const uint8_t alphabet[] = {0x00, 0x01, 0xFF, 'a', 'b'};
	seed = seed * 1103515245u + 12345u;
	size_t n = (seed >> 16) % (max + 1);
	for (size_t i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		out[i] = alphabet[(seed >> 16) % sizeof alphabet];
	}
	return n;
}

static int cmp_bytes(const uint8_t *a, size_t al, const uint8_t *b, size_t bl)
{
	size_t n = al < bl ? al : bl;
	int c = n ? memcmp(a, b, n) : 0;
	return c ? (c < 0 ? -1 : 1) : (al < bl ? -1 : al > bl);
}

static int sign(int c)
{
	return (c > 0) - (c < 0);
}

static void test_round_trip_and_order(void)
{
	for (int i = 0; i < 20000; i++) {
		uint8_t r1[8], r2[8], q1[6], q2[6];
		size_t r1l = random_bytes(r1, 8), r2l = random_bytes(r2, 8);
		size_t q1l = random_bytes(q1, 6), q2l = random_bytes(q2, 6);
		if (!r1l)
			r1[r1l++] = 'r';
		if (!r2l)
			r2[r2l++] = 'r';
		int64_t t1 = (int64_t)(seed % 5), t2 = (int64_t)((seed >> 8) % 5);
		sbx_buf k1 = {0}, k2 = {0}, row = {0}, qual = {0};
		REQUIRE(cellkey_encode(&k1, r1, r1l, q1, q1l, t1, SBX_CELL_PUT) == SBX_OK);
		REQUIRE(cellkey_encode(&k2, r2, r2l, q2, q2l, t2, SBX_CELL_DELETE) == SBX_OK);
		cellkey_parts p;
		CHECK_INT(cellkey_decode(k1.data, k1.len, &row, &qual, &p), SBX_OK);
		CHECK(row.len == r1l && !memcmp(row.data, r1, r1l));
		CHECK(qual.len == q1l && (!q1l || !memcmp(qual.data, q1, q1l)));
		CHECK_INT(p.ts, t1);
		CHECK_INT(p.type, SBX_CELL_PUT);
		CHECK_INT(cellkey_row_prefix_len(k1.data, k1.len), p.row_prefix_len);
		/* expected HBase order: row asc, qual asc, ts desc, type desc */
		int want = cmp_bytes(r1, r1l, r2, r2l);
		if (!want)
			want = cmp_bytes(q1, q1l, q2, q2l);
		if (!want)
			want = t1 > t2 ? -1 : t1 < t2; /* newer first */
		if (!want)
			want = 1; /* Put (4) sorts after Delete (8) */
		CHECK_INT(sign(cmp_bytes(k1.data, k1.len, k2.data, k2.len)), want);
		/* row bounds: E(row) prefixes its keys; the row end is past them */
		sbx_buf end = {0};
		cellkey_row_end(&end, r1, r1l);
		CHECK(cmp_bytes(k1.data, k1.len, end.data, end.len) < 0);
		if (cmp_bytes(r2, r2l, r1, r1l) > 0)
			CHECK(cmp_bytes(k2.data, k2.len, end.data, end.len) > 0);
		sbx_buf_free(&k1);
		sbx_buf_free(&k2);
		sbx_buf_free(&row);
		sbx_buf_free(&qual);
		sbx_buf_free(&end);
	}
}

static void test_malformed(void)
{
	sbx_buf row = {0}, qual = {0};
	cellkey_parts p;
	const uint8_t bad1[] = {'a', 0x00, 0x02, 0x00, 0x01};
	CHECK_INT(cellkey_decode(bad1, sizeof bad1, &row, &qual, &p), SBX_EIO);
	const uint8_t bad2[] = {'a', 0x00};
	CHECK_INT(cellkey_row_prefix_len(bad2, sizeof bad2), 0);
	const uint8_t esc[] = {0x00, 0xFF, 'x', 0x00, 0xFF, 0x00, 0x01};
	CHECK_INT(cellkey_unescape(esc, sizeof esc, &row), 7);
	CHECK_INT(row.len, 3);
	CHECK(row.data[0] == 0 && row.data[1] == 'x' && row.data[2] == 0);
	sbx_buf_free(&row);
	sbx_buf_free(&qual);
}

TEST_MAIN(T(test_round_trip_and_order), T(test_malformed))
