/*
 * test_rowkey_plan.c - scan planning: exact [start, stop) ranges for
 * prefixes, ranges on ascending and descending fields, one range per salt
 * bucket, point lookups, and conditions that cannot be planned. Every
 * plan is also checked against encoded keys: rows that match lie inside a
 * range and rows that do not lie outside all ranges.
 */
#include "check.h"
#include "common/buf.h"
#include "saltbox/rowkey.h"

static sbx_keydesign *parse(const char *text)
{
	sbx_keydesign *d = NULL;
	if (sbx_keydesign_parse(&d, text, strlen(text), NULL))
		fprintf(stderr, "parse: %s\n", sbx_errmsg());
	return d;
}

static void hexstr(char *out, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", p[i]);
	out[2 * n] = 0;
}

#define CHECK_RANGE(r, start_hex, stop_hex)                                  \
	do {                                                                 \
		char h_[256];                                                \
		hexstr(h_, (r).start, (r).start_len);                        \
		CHECK_STR(h_, start_hex);                                    \
		hexstr(h_, (r).stop, (r).stop_len);                          \
		CHECK_STR(h_, stop_hex);                                     \
	} while (0)

#define COND(n, op, v) {n, op, v, sizeof(v) - 1}

static bool in_range(const sbx_keyrange *r, const uint8_t *k, size_t n)
{
	size_t m = n < r->start_len ? n : r->start_len;
	int c = memcmp(k, r->start, m);
	if (c < 0 || (c == 0 && n < r->start_len))
		return false;
	if (!r->stop_len)
		return true;
	m = n < r->stop_len ? n : r->stop_len;
	c = memcmp(k, r->stop, m);
	return c < 0 || (c == 0 && n < r->stop_len);
}

static bool in_plan(const sbx_keyplan *p, const uint8_t *k, size_t n)
{
	for (size_t i = 0; i < p->count; i++)
		if (in_range(&p->ranges[i], k, n))
			return true;
	return false;
}

static void test_prefix_and_rts_range(void)
{
	sbx_keydesign *d = parse("uc = user_id:str(4) + ts:rts64");
	REQUIRE(d);
	sbx_keyplan *p = NULL;
	sbx_keycond eq[] = {COND("user_id", SBX_KEYCOND_EQ, "u1")};
	CHECK_INT(sbx_keydesign_plan(&p, d, eq, 1), SBX_OK);
	REQUIRE(p && p->count == 1);
	CHECK_INT(p->ranges[0].bucket, -1);
	CHECK_INT(p->salt_len, 0);
	CHECK(!p->point);
	CHECK_RANGE(p->ranges[0], "75310000", "75310001");
	sbx_keyplan_free(p);

	/* ts in [1000, 2000): reverse timestamps flip the bounds */
	sbx_keycond rng[] = {COND("user_id", SBX_KEYCOND_EQ, "u1"),
			     COND("ts", SBX_KEYCOND_GE, "1000"),
			     COND("ts", SBX_KEYCOND_LT, "2000")};
	CHECK_INT(sbx_keydesign_plan(&p, d, rng, 3), SBX_OK);
	REQUIRE(p && p->count == 1);
	/* start = succ(u1 + rts(2000)), stop = succ(u1 + rts(1000)) */
	CHECK_RANGE(p->ranges[0], "753100007ffffffffffff830",
		    "753100007ffffffffffffc18");
	sbx_buf k = {0};
	const char *ts[] = {"999", "1000", "1500", "1999", "2000", "2001"};
	const bool want[] = {false, true, true, true, false, false};
	for (int i = 0; i < 6; i++) {
		sbx_keyvalue v[] = {{"user_id", "u1", 2},
				    {"ts", ts[i], strlen(ts[i])}};
		k.len = 0;
		REQUIRE(sbx_keydesign_encode(&k, d, v, 2) == SBX_OK);
		CHECK(in_plan(p, k.data, k.len) == want[i]);
	}
	sbx_keyplan_free(p);

	/* ts > 1000 and ts <= 2000 */
	sbx_keycond rng2[] = {COND("user_id", SBX_KEYCOND_EQ, "u1"),
			      COND("ts", SBX_KEYCOND_GT, "1000"),
			      COND("ts", SBX_KEYCOND_LE, "2000")};
	CHECK_INT(sbx_keydesign_plan(&p, d, rng2, 3), SBX_OK);
	const bool want2[] = {false, false, true, true, true, false};
	for (int i = 0; i < 6; i++) {
		sbx_keyvalue v[] = {{"user_id", "u1", 2},
				    {"ts", ts[i], strlen(ts[i])}};
		k.len = 0;
		REQUIRE(sbx_keydesign_encode(&k, d, v, 2) == SBX_OK);
		CHECK(in_plan(p, k.data, k.len) == want2[i]);
	}
	sbx_keyplan_free(p);
	sbx_buf_free(&k);
	sbx_keydesign_free(d);
}

static void test_ascending_ranges(void)
{
	/* a variable-length last field and an ascending int */
	sbx_keydesign *d = parse("k = dev:u16 + ':' + name:str");
	REQUIRE(d);
	sbx_keyplan *p = NULL;
	sbx_keycond c[] = {COND("dev", SBX_KEYCOND_EQ, "7"),
			   COND("name", SBX_KEYCOND_GE, "b"),
			   COND("name", SBX_KEYCOND_LE, "d")};
	CHECK_INT(sbx_keydesign_plan(&p, d, c, 3), SBX_OK);
	REQUIRE(p && p->count == 1);
	/* [07 : b, 07 : d 00): "d" included, "d\0" and "da" excluded */
	CHECK_RANGE(p->ranges[0], "00073a62", "00073a6400");
	const char *names[] = {"a", "azz", "b", "b\0", "c", "d", "d\0", "da"};
	const size_t lens[] = {1, 3, 1, 2, 1, 1, 2, 2};
	const bool want[] = {false, false, true, true, true, true, false,
			     false};
	sbx_buf k = {0};
	for (int i = 0; i < 8; i++) {
		sbx_keyvalue v[] = {{"dev", "7", 1}, {"name", names[i], lens[i]}};
		k.len = 0;
		REQUIRE(sbx_keydesign_encode(&k, d, v, 2) == SBX_OK);
		CHECK(in_plan(p, k.data, k.len) == want[i]);
	}
	sbx_keyplan_free(p);

	/* only a lower bound on the first field: open to the end */
	sbx_keycond lo[] = {COND("dev", SBX_KEYCOND_GT, "65534")};
	CHECK_INT(sbx_keydesign_plan(&p, d, lo, 1), SBX_OK);
	REQUIRE(p && p->count == 1);
	CHECK_RANGE(p->ranges[0], "ffff", "");
	sbx_keyplan_free(p);
	/* an empty range plans no scan at all */
	sbx_keycond empty[] = {COND("dev", SBX_KEYCOND_GE, "9"),
			       COND("dev", SBX_KEYCOND_LT, "9")};
	CHECK_INT(sbx_keydesign_plan(&p, d, empty, 2), SBX_OK);
	CHECK_INT(p->count, 0);
	sbx_keyplan_free(p);
	/* no conditions: the whole table */
	CHECK_INT(sbx_keydesign_plan(&p, d, NULL, 0), SBX_OK);
	REQUIRE(p && p->count == 1);
	CHECK_RANGE(p->ranges[0], "", "");
	sbx_keyplan_free(p);
	sbx_buf_free(&k);
	sbx_keydesign_free(d);
}

static void test_salted_fanout(void)
{
	sbx_keydesign *d = parse("s = salt(4) + user_id:str(2) + ts:ts64");
	REQUIRE(d);
	sbx_keyplan *p = NULL;
	sbx_keycond c[] = {COND("user_id", SBX_KEYCOND_EQ, "ab")};
	CHECK_INT(sbx_keydesign_plan(&p, d, c, 1), SBX_OK);
	REQUIRE(p && p->count == 4);
	CHECK_INT(p->salt_len, 1);
	CHECK_RANGE(p->ranges[0], "006162", "006163");
	CHECK_RANGE(p->ranges[3], "036162", "036163");
	for (int b = 0; b < 4; b++)
		CHECK_INT(p->ranges[b].bucket, b);
	/* every row of user ab, wherever its salt put it, is in the plan */
	sbx_buf k = {0};
	const char *ts[] = {"1", "2", "3", "4", "5", "6", "7", "8"};
	for (int i = 0; i < 8; i++) {
		sbx_keyvalue v[] = {{"user_id", "ab", 2}, {"ts", ts[i], 1}};
		k.len = 0;
		REQUIRE(sbx_keydesign_encode(&k, d, v, 2) == SBX_OK);
		CHECK(in_plan(p, k.data, k.len));
		sbx_keyvalue w[] = {{"user_id", "ac", 2}, {"ts", ts[i], 1}};
		k.len = 0;
		REQUIRE(sbx_keydesign_encode(&k, d, w, 2) == SBX_OK);
		CHECK(!in_plan(p, k.data, k.len));
	}
	sbx_keyplan_free(p);
	/* no conditions: one whole bucket each */
	CHECK_INT(sbx_keydesign_plan(&p, d, NULL, 0), SBX_OK);
	REQUIRE(p && p->count == 4);
	CHECK_RANGE(p->ranges[1], "01", "02");
	sbx_keyplan_free(p);
	/* the full key: one Get in the key's own bucket */
	sbx_keycond all[] = {COND("user_id", SBX_KEYCOND_EQ, "ab"),
			     COND("ts", SBX_KEYCOND_EQ, "5")};
	CHECK_INT(sbx_keydesign_plan(&p, d, all, 2), SBX_OK);
	REQUIRE(p && p->count == 1);
	CHECK(p->point);
	sbx_keyvalue v[] = {{"user_id", "ab", 2}, {"ts", "5", 1}};
	k.len = 0;
	sbx_keydesign_encode(&k, d, v, 2);
	CHECK_INT(p->ranges[0].bucket, k.data[0]);
	CHECK_INT(p->ranges[0].start_len, k.len);
	CHECK(!memcmp(p->ranges[0].start, k.data, k.len));
	CHECK_INT(p->ranges[0].stop_len, k.len + 1);
	sbx_keyplan_free(p);
	sbx_buf_free(&k);
	sbx_keydesign_free(d);

	/* salted on the user only: the bucket is known, one range */
	d = parse("s = salt(16, of=user_id) + user_id:str(2) + ts:ts64");
	REQUIRE(d);
	CHECK_INT(sbx_keydesign_plan(&p, d, c, 1), SBX_OK);
	REQUIRE(p && p->count == 1);
	/* Phoenix hash of "ab" = 4066 -> bucket 2 */
	CHECK_INT(p->ranges[0].bucket, 2);
	CHECK_RANGE(p->ranges[0], "026162", "026163");
	sbx_keyplan_free(p);
	sbx_keydesign_free(d);

	/* letter salts: the bucket's open end is the next letter */
	d = parse("s = salt(4, format=letter) + '-' + key:text");
	REQUIRE(d);
	CHECK_INT(sbx_keydesign_plan(&p, d, NULL, 0), SBX_OK);
	REQUIRE(p && p->count == 4);
	CHECK_RANGE(p->ranges[0], "612d", "612e");
	CHECK_RANGE(p->ranges[3], "642d", "642e");
	sbx_keyplan_free(p);
	sbx_keydesign_free(d);
}

static void test_hash_prefix(void)
{
	sbx_keydesign *d = parse("m = md5(message_id) + ':' + date:str(6) + "
				 "':' + time:str(6) + ':' + message_id:dec");
	REQUIRE(d);
	sbx_keyplan *p = NULL;
	sbx_keycond c[] = {COND("message_id", SBX_KEYCOND_EQ, "1231231")};
	CHECK_INT(sbx_keydesign_plan(&p, d, c, 1), SBX_OK);
	REQUIRE(p && p->count == 1);
	CHECK_INT(p->ranges[0].start_len, 33);
	CHECK(!memcmp(p->ranges[0].start, "8D4646EB2D7067126EB08ADB0672F7BB:",
		      33));
	CHECK(!memcmp(p->ranges[0].stop, "8D4646EB2D7067126EB08ADB0672F7BB;",
		      33));
	sbx_keyplan_free(p);
	/* a date without the hashed message_id cannot be located */
	sbx_keycond bad[] = {COND("date", SBX_KEYCOND_EQ, "230611")};
	CHECK_INT(sbx_keydesign_plan(&p, d, bad, 1), SBX_EINVAL);
	CHECK(p == NULL);
	CHECK(strstr(sbx_errmsg(), "'md5' comes before it") != NULL);
	sbx_keydesign_free(d);
}

static void test_plan_errors(void)
{
	sbx_keydesign *d = parse("k = phone:rstr(11) + ts:ts64 + n:u8");
	REQUIRE(d);
	sbx_keyplan *p = NULL;
	sbx_keycond c1[] = {COND("phone", SBX_KEYCOND_GE, "138")};
	CHECK_INT(sbx_keydesign_plan(&p, d, c1, 1), SBX_EINVAL);
	CHECK(strstr(sbx_errmsg(), "only '=' can be planned") != NULL);
	sbx_keycond c2[] = {COND("ts", SBX_KEYCOND_EQ, "5")};
	CHECK_INT(sbx_keydesign_plan(&p, d, c2, 1), SBX_EINVAL);
	CHECK(strstr(sbx_errmsg(), "'phone' comes before it") != NULL);
	sbx_keycond c3[] = {COND("phone", SBX_KEYCOND_EQ, "1"),
			    COND("ts", SBX_KEYCOND_GE, "5"),
			    COND("n", SBX_KEYCOND_GE, "1")};
	CHECK_INT(sbx_keydesign_plan(&p, d, c3, 3), SBX_EINVAL);
	CHECK(strstr(sbx_errmsg(), "two fields") != NULL);
	sbx_keycond c4[] = {COND("phone", SBX_KEYCOND_EQ, "1"),
			    COND("phone", SBX_KEYCOND_EQ, "2")};
	CHECK_INT(sbx_keydesign_plan(&p, d, c4, 2), SBX_EINVAL);
	sbx_keycond c5[] = {COND("nope", SBX_KEYCOND_EQ, "1")};
	CHECK_INT(sbx_keydesign_plan(&p, d, c5, 1), SBX_EINVAL);
	sbx_keycond c6[] = {COND("phone", SBX_KEYCOND_EQ, "123456789012")};
	CHECK_INT(sbx_keydesign_plan(&p, d, c6, 1), SBX_EINVAL);
	CHECK(strstr(sbx_errmsg(), "field 'phone'") != NULL);
	sbx_keycond c7[] = {COND("phone", SBX_KEYCOND_EQ, "1"),
			    COND("n", SBX_KEYCOND_EQ, "1")};
	CHECK_INT(sbx_keydesign_plan(&p, d, c7, 2), SBX_EINVAL);
	CHECK(strstr(sbx_errmsg(), "'ts' comes before it") != NULL);
	CHECK(p == NULL);
	sbx_keydesign_free(d);
}

TEST_MAIN(T(test_prefix_and_rts_range), T(test_ascending_ranges),
	  T(test_salted_fanout), T(test_hash_prefix), T(test_plan_errors))
