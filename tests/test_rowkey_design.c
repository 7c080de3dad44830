/*
 * test_rowkey_design.c - the key design language: every seed's row key
 * written as a design and encoded to the exact bytes, decoded back, the
 * order rows sort in, explain's layout, and parse/encode/decode errors
 * (with line and column) that leave nothing half-written.
 */
#include "check.h"
#include "common/buf.h"
#include "saltbox/rowkey.h"

static const char SEEDS[] =
	"# seed 002: message keys\n"
	"chat_time = date:str(6) + ':' + time:str(6) + ':' + message_id:dec\n"
	"chat_id   = message_id:dec mono + ':' + date:str(6) + ':' + "
	"time:str(6)\n"
	"chat_md5  = md5(message_id) \xC2\xB7 ':' \xC2\xB7 date:str(6) "
	"\xC2\xB7 ':' \xC2\xB7 time:str(6) \xC2\xB7 ':' \xC2\xB7 "
	"message_id:dec\n"
	"# seed 003: Coupang comments\n"
	"comment = order_id:str(10) + product_id:str(10)\n"
	"user_comment = user_id:str(10) + ts:rts64\n"
	"product_comment = product_id:str(10) + 'c' + ts:rts64\n"
	"                + content_len:rlen32\n"
	"product_rank = product_id:str(10) + 'r' + rank:u16\n"
	"# seed 000\n"
	"user_ts = user_id:text + ':' + ts:dec(13)\n"
	"user_rts = user_id:text + ':' + ts:rtsdec\n"
	"salted = salt(4, format=letter) + '-' + key:text\n"
	"# seed 004: reversed phone number, newest call first\n"
	"calls = phone:rstr(11) + ts:rts64;\n";

static sbx_keyset *seeds(void)
{
	sbx_keyset *set = NULL;
	sbx_keyparse_pos pos;
	int rc = sbx_keyset_parse(&set, SEEDS, strlen(SEEDS), &pos);
	if (rc)
		fprintf(stderr, "seed designs: %s\n", sbx_errmsg());
	return set;
}

#define KV(n, v) {n, v, sizeof(v) - 1}

static int encode(const sbx_keydesign *d, const sbx_keyvalue *v, size_t n,
		  sbx_buf *out)
{
	out->len = 0;
	return sbx_keydesign_encode(out, d, v, n);
}

static void hexstr(char *out, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", p[i]);
	out[2 * n] = 0;
}

static void test_seed002(void)
{
	sbx_keyset *set = seeds();
	REQUIRE(set);
	CHECK_INT(sbx_keyset_count(set), 11);
	const sbx_keydesign *md5 = sbx_keyset_find(set, "chat_md5");
	REQUIRE(md5);
	const char *ids[] = {"1231231", "1231232", "1231233", "1231234",
			     "1231235"};
	const char *times[] = {"063031", "063032", "063032", "063033",
			       "063033"};
	const char *want[] = {
		"8D4646EB2D7067126EB08ADB0672F7BB:230611:063031:1231231",
		"715782C59C0561E9B6CE0F3D522C32F1:230611:063032:1231232",
		"57F962C03EF3526EC6E95CEB50785C4C:230611:063032:1231233",
		"8B353D5CC07E13577608711F4602FCB7:230611:063033:1231234",
		"430EDB0C535BF08174E122EFECFA711D:230611:063033:1231235"};
	sbx_buf k = {0};
	for (int i = 0; i < 5; i++) {
		sbx_keyvalue v[] = {{"message_id", ids[i], 7},
				    KV("date", "230611"),
				    {"time", times[i], 6}};
		CHECK_INT(encode(md5, v, 3, &k), SBX_OK);
		CHECK_MEM(k.data, k.len, want[i]);
		sbx_keyrecord *r = NULL;
		CHECK_INT(sbx_keydesign_decode(&r, md5, k.data, k.len), SBX_OK);
		REQUIRE(r);
		CHECK_INT(sbx_keyrecord_count(r), 4);
		CHECK_STR(sbx_keyrecord_name(r, 0), "md5");
		CHECK(!memcmp(sbx_keyrecord_value(r, 0), want[i], 32));
		CHECK_STR(sbx_keyrecord_get(r, "message_id"), ids[i]);
		CHECK_STR(sbx_keyrecord_get(r, "time"), times[i]);
		sbx_keyrecord_free(r);
	}
	sbx_keyvalue v[] = {KV("message_id", "1231231"), KV("date", "230611"),
			    KV("time", "063031")};
	CHECK_INT(encode(sbx_keyset_find(set, "chat_time"), v, 3, &k), SBX_OK);
	CHECK_MEM(k.data, k.len, "230611:063031:1231231");
	CHECK_INT(encode(sbx_keyset_find(set, "chat_id"), v, 3, &k), SBX_OK);
	CHECK_MEM(k.data, k.len, "1231231:230611:063031");
	/* a tampered hash prefix is caught on decode */
	const char *bad = "8D4646EB2D7067126EB08ADB0672F7BB:230611:063031:1231232";
	sbx_keyrecord *r = NULL;
	CHECK_INT(
	    sbx_keydesign_decode(&r, md5, (const uint8_t *)bad, strlen(bad)),
	    SBX_EINVAL);
	CHECK(r == NULL);
	CHECK(strstr(sbx_errmsg(), "md5") != NULL);
	sbx_buf_free(&k);
	sbx_keyset_free(set);
}

static void test_seed003(void)
{
	sbx_keyset *set = seeds();
	REQUIRE(set);
	sbx_buf k = {0};
	char h[256];
	sbx_keyvalue c[] = {KV("order_id", "o000000042"),
			    KV("product_id", "p000000007")};
	CHECK_INT(encode(sbx_keyset_find(set, "comment"), c, 2, &k), SBX_OK);
	CHECK_MEM(k.data, k.len, "o000000042p000000007");

	const sbx_keydesign *uc = sbx_keyset_find(set, "user_comment");
	sbx_keyvalue u[] = {KV("user_id", "u42"), KV("ts", "1686465031000")};
	CHECK_INT(encode(uc, u, 2, &k), SBX_OK);
	hexstr(h, k.data, k.len);
	CHECK_STR(h, "753432000000000000007ffffe7756d9d4a7");
	CHECK_INT(k.len, 18);

	const sbx_keydesign *pc = sbx_keyset_find(set, "product_comment");
	sbx_keyvalue p[] = {KV("product_id", "p000000007"),
			    KV("ts", "1686465031000"),
			    KV("content_len", "120")};
	CHECK_INT(encode(pc, p, 3, &k), SBX_OK);
	hexstr(h, k.data, k.len);
	CHECK_STR(h, "70303030303030303037" "63" "7ffffe7756d9d4a7"
		     "7fffff87");
	sbx_keyrecord *r = NULL;
	CHECK_INT(sbx_keydesign_decode(&r, pc, k.data, k.len), SBX_OK);
	CHECK_STR(sbx_keyrecord_get(r, "ts"), "1686465031000");
	CHECK_STR(sbx_keyrecord_get(r, "content_len"), "120");
	CHECK_STR(sbx_keyrecord_get(r, "product_id"), "p000000007");
	sbx_keyrecord_free(r);

	/* newest first, then longer content first, within a product */
	const char *rows[][3] = {{"p1", "2000", "5"},
				 {"p1", "1000", "900"},
				 {"p1", "1000", "10"},
				 {"p1", "999", "10"},
				 {"p2", "5000", "1"}};
	sbx_buf prev = {0};
	for (int i = 0; i < 5; i++) {
		sbx_keyvalue v[] = {{"product_id", rows[i][0], 2},
				    {"ts", rows[i][1], strlen(rows[i][1])},
				    {"content_len", rows[i][2],
				     strlen(rows[i][2])}};
		REQUIRE(encode(pc, v, 3, &k) == SBX_OK);
		if (i)
			CHECK(memcmp(prev.data, k.data, k.len) < 0);
		sbx_buf_set(&prev, k.data, k.len);
	}
	sbx_keyvalue rk[] = {KV("product_id", "p000000007"), KV("rank", "3")};
	CHECK_INT(encode(sbx_keyset_find(set, "product_rank"), rk, 2, &k),
		  SBX_OK);
	hexstr(h, k.data, k.len);
	CHECK_STR(h, "70303030303030303037720003");
	sbx_buf_free(&prev);
	sbx_buf_free(&k);
	sbx_keyset_free(set);
}

static void test_seed000_and_004(void)
{
	sbx_keyset *set = seeds();
	REQUIRE(set);
	sbx_buf k = {0};
	sbx_keyvalue u[] = {KV("user_id", "alice"), KV("ts", "1686465031000")};
	CHECK_INT(encode(sbx_keyset_find(set, "user_ts"), u, 2, &k), SBX_OK);
	CHECK_MEM(k.data, k.len, "alice:1686465031000");
	/* rowkey = user_id + ":" + (Long.MAX_VALUE - timestamp) */
	CHECK_INT(encode(sbx_keyset_find(set, "user_rts"), u, 2, &k), SBX_OK);
	CHECK_MEM(k.data, k.len, "alice:9223370350389744807");
	sbx_keyrecord *r = NULL;
	CHECK_INT(sbx_keydesign_decode(&r, sbx_keyset_find(set, "user_rts"),
				       k.data, k.len),
		  SBX_OK);
	CHECK_STR(sbx_keyrecord_get(r, "user_id"), "alice");
	CHECK_STR(sbx_keyrecord_get(r, "ts"), "1686465031000");
	sbx_keyrecord_free(r);

	/* seed 000's a-, b-, ... prefixes, here from the Phoenix hash of
	 * the rest of the key (so Gets can rebuild them) */
	const sbx_keydesign *salted = sbx_keyset_find(set, "salted");
	const char *keys[] = {"foo0001", "foo0002", "foo0003", "foo0004"};
	const char *want[] = {"b-foo0001", "a-foo0002", "d-foo0003",
			      "c-foo0004"};
	for (int i = 0; i < 4; i++) {
		sbx_keyvalue v[] = {{"key", keys[i], 7}};
		CHECK_INT(encode(salted, v, 1, &k), SBX_OK);
		CHECK_MEM(k.data, k.len, want[i]);
	}
	CHECK_INT(sbx_keydesign_buckets(salted), 4);
	CHECK_INT(
	    sbx_keydesign_decode(&r, salted, (const uint8_t *)"a-foo0003", 9),
	    SBX_EINVAL);
	CHECK(strstr(sbx_errmsg(), "salt") != NULL);

	const sbx_keydesign *calls = sbx_keyset_find(set, "calls");
	sbx_keyvalue c[] = {KV("phone", "13812345678"), KV("ts", "0")};
	CHECK_INT(encode(calls, c, 2, &k), SBX_OK);
	CHECK_INT(k.len, 19);
	CHECK_MEM(k.data, 11, "87654321831");
	CHECK_INT(sbx_keydesign_decode(&r, calls, k.data, k.len), SBX_OK);
	CHECK_STR(sbx_keyrecord_get(r, "phone"), "13812345678");
	sbx_keyrecord_free(r);
	sbx_buf_free(&k);
	sbx_keyset_free(set);
}

static void test_types_roundtrip(void)
{
	const char *text =
		"all = a:u8 + b:i16 desc + c:f64 + d:f32 desc + e:ts64 + "
		"f:bytes + g:bytes(2) + h:str desc + i:dec(5) + j:rdec(4) + "
		"k:str(3, pad=' ', align=right) + l:i64 + m:str";
	sbx_keydesign *d = NULL;
	REQUIRE(sbx_keydesign_parse(&d, text, strlen(text), NULL) == SBX_OK);
	sbx_keyvalue v[] = {KV("a", "255"),   KV("b", "-300"),
			    KV("c", "-0.5"),  KV("d", "inf"),
			    KV("e", "17"),    KV("f", "00ff00"),
			    KV("g", "abcd"),  KV("h", "x\0y"),
			    KV("i", "42"),    KV("j", "12"),
			    KV("k", "ab"),    KV("l", "-9223372036854775808"),
			    KV("m", "tail\0")};
	sbx_buf k = {0};
	REQUIRE(encode(d, v, 13, &k) == SBX_OK);
	sbx_keyrecord *r = NULL;
	REQUIRE(sbx_keydesign_decode(&r, d, k.data, k.len) == SBX_OK);
	const char *want[] = {"255", "-300", "-0.5",  "inf", "17",
			      "00ff00", "abcd", NULL,  "42",  "12",
			      "ab",  "-9223372036854775808", NULL};
	for (int i = 0; i < 13; i++)
		if (want[i])
			CHECK_STR(sbx_keyrecord_value(r, (size_t)i), want[i]);
	CHECK_INT(sbx_keyrecord_value_len(r, 7), 3);
	CHECK(!memcmp(sbx_keyrecord_value(r, 7), "x\0y", 3));
	CHECK_INT(sbx_keyrecord_value_len(r, 12), 5);
	sbx_keyrecord_free(r);
	/* dec(5) zero-pads, rdec(4) pads then reverses */
	bool found = false;
	for (size_t i = 0; i + 9 <= k.len; i++)
		found = found || !memcmp(k.data + i, "000422100", 9);
	CHECK(found);
	sbx_buf_free(&k);
	sbx_keydesign_free(d);
}

static void test_parse_errors(void)
{
	struct {
		const char *text;
		int line, column;
		const char *msg;
	} cases[] = {
		{"a = user_id:str(10) + ts:rts64\nb = user_id:strr", 2, 13,
		 "unknown type 'strr'"},
		{"md5(message_id) : date:str(6)", 1, 17, "quote it"},
		{"k = order_id:product_id", 1, 14, "unknown type"},
		{"k = user_id", 1, 5, "needs a type"},
		{"k = a:str(10) + 'c", 1, 17, "unterminated"},
		{"k = salt(300) + a:u8", 1, 10, "1..256"},
		{"k = a:u8 + salt(4)", 1, 12, "salt must be the first"},
		{"k = a:text + b:u8", 1, 5, "followed by a quoted delimiter"},
		{"k = a:u8 + a:u16", 1, 12, "appears twice"},
		{"k = md5() + a:u8", 1, 5, "needs the fields"},
		{"k = a:u8 b:u8", 1, 10, "unexpected 'b'"},
		{"k = a:u8 with scan(b)", 1, 5, "scan(b)"},
		{"k = a:u8 with allow(no-such-rule)", 1, 5, "no lint rule"},
		{"k = a:u8\nk = b:u8", 2, 1, "defined twice"},
		{"k = 'x'", 1, 5, "only literals"},
		{"k = a:u8 +", 1, 11, "expected a field"},
		{"k = a:str(10, max=4)", 1, 10, "fixed"},
		{"k = a:u8 with regions(0)", 1, 23, "regions"},
		{"k = a:u8 \x01", 1, 10, "0x01"},
		{"", 1, 1, "no key design"},
		{"k = a:text desc", 1, 7, "desc"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		sbx_keyset *set = (sbx_keyset *)1;
		sbx_keyparse_pos pos = {0, 0};
		int rc = sbx_keyset_parse(&set, cases[i].text,
					  strlen(cases[i].text), &pos);
		CHECK_INT(rc, SBX_EPARSE);
		CHECK(set == NULL);
		if (pos.line != cases[i].line || pos.column != cases[i].column ||
		    !strstr(sbx_errmsg(), cases[i].msg)) {
			fprintf(stderr, "case %zu: %d:%d %s\n", i, pos.line,
				pos.column, sbx_errmsg());
			check_failures++;
		}
	}
	/* the message itself carries line and column */
	sbx_keyset *set;
	sbx_keyset_parse(&set, "k = a:u8\n  + b:nope", 19, NULL);
	CHECK(strstr(sbx_errmsg(), "line 2, column 7") != NULL);
	/* sbx_keydesign_parse wants exactly one design */
	sbx_keydesign *d = NULL;
	CHECK_INT(sbx_keydesign_parse(&d, "a = x:u8\nb = y:u8", 17, NULL),
		  SBX_EINVAL);
	CHECK(d == NULL);
	/* an anonymous design is named "key" */
	CHECK_INT(sbx_keydesign_parse(&d, "x:u8", 4, NULL), SBX_OK);
	CHECK_STR(sbx_keydesign_name(d), "key");
	CHECK_STR(sbx_keydesign_text(d), "key = x:u8");
	sbx_keydesign_free(d);
}

static void test_encode_errors(void)
{
	const char *text = "k = id:str(10) + ':' + name:text + '/' + n:u8";
	sbx_keydesign *d = NULL;
	REQUIRE(sbx_keydesign_parse(&d, text, strlen(text), NULL) == SBX_OK);
	sbx_buf k = {0};
	sbx_buf_append(&k, "prefix", 6);
	sbx_keyvalue too_long[] = {KV("id", "product-0001"), KV("name", "x"),
				   KV("n", "1")};
	CHECK_INT(sbx_keydesign_encode(&k, d, too_long, 3), SBX_EINVAL);
	CHECK(strstr(sbx_errmsg(), "field 'id'") != NULL);
	sbx_keyvalue delim[] = {KV("id", "p1"), KV("name", "a/b"),
				KV("n", "1")};
	CHECK_INT(sbx_keydesign_encode(&k, d, delim, 3), SBX_EINVAL);
	CHECK(strstr(sbx_errmsg(), "delimiter") != NULL);
	sbx_keyvalue range[] = {KV("id", "p1"), KV("name", "a"),
				KV("n", "256")};
	CHECK_INT(sbx_keydesign_encode(&k, d, range, 3), SBX_EINVAL);
	sbx_keyvalue missing[] = {KV("id", "p1"), KV("name", "a")};
	CHECK_INT(sbx_keydesign_encode(&k, d, missing, 2), SBX_EINVAL);
	CHECK(strstr(sbx_errmsg(), "needs field 'n'") != NULL);
	sbx_keyvalue unknown[] = {KV("id", "p1"), KV("name", "a"),
				  KV("n", "1"), KV("x", "1")};
	CHECK_INT(sbx_keydesign_encode(&k, d, unknown, 4), SBX_EINVAL);
	sbx_keyvalue twice[] = {KV("id", "p1"), KV("id", "p2"),
				KV("name", "a"), KV("n", "1")};
	CHECK_INT(sbx_keydesign_encode(&k, d, twice, 4), SBX_EINVAL);
	sbx_keyvalue notnum[] = {KV("id", "p1"), KV("name", "a"),
				 KV("n", "1x")};
	CHECK_INT(sbx_keydesign_encode(&k, d, notnum, 3), SBX_EINVAL);
	CHECK_MEM(k.data, k.len, "prefix"); /* nothing partially written */

	/* decode errors */
	sbx_keyrecord *r = NULL;
	const char *keys[] = {"p1", "p1\0\0\0\0\0\0\0\0:ab", "p1\0\0\0\0\0\0\0\0;a/\x01",
			      "p1\0\0\0\0\0\0\0\0:a/\x01x"};
	const size_t lens[] = {2, 14, 15, 16};
	const char *msgs[] = {"ends early", "no '/' delimiter", "literal",
			      "left over"};
	for (int i = 0; i < 4; i++) {
		CHECK_INT(sbx_keydesign_decode(&r, d, (const uint8_t *)keys[i],
					       lens[i]),
			  SBX_EINVAL);
		CHECK(r == NULL);
		if (!strstr(sbx_errmsg(), msgs[i])) {
			fprintf(stderr, "decode %d: %s\n", i, sbx_errmsg());
			check_failures++;
		}
	}
	sbx_buf_free(&k);
	sbx_keydesign_free(d);
}

static void test_explain(void)
{
	sbx_keyset *set = seeds();
	REQUIRE(set);
	const sbx_keydesign *pc = sbx_keyset_find(set, "product_comment");
	CHECK_INT(sbx_keydesign_elem_count(pc), 4);
	sbx_keyelem_info info;
	CHECK_INT(sbx_keydesign_elem(&info, pc, 2), SBX_OK);
	CHECK_STR(info.name, "ts");
	CHECK_STR(info.type, "rts64");
	CHECK_INT(info.offset, 11);
	CHECK_INT(info.min_len, 8);
	CHECK_INT(info.order, SBX_ORDER_DESC);
	CHECK(info.fixed_width);
	size_t mn, typ, mx;
	sbx_keydesign_length(&mn, &typ, &mx, pc);
	CHECK(mn == 23 && typ == 23 && mx == 23);
	CHECK_STR(sbx_keydesign_order(pc),
		  "rows sort by product_id ascending, then ts descending "
		  "(newest first), then content_len descending");
	CHECK_STR(sbx_keydesign_text(pc),
		  "product_comment = product_id:str(10) + 'c' + ts:rts64 + "
		  "content_len:rlen32");
	sbx_buf out = {0};
	CHECK_INT(sbx_keydesign_explain(&out, pc), SBX_OK);
	sbx_buf_push(&out, 0);
	CHECK(strstr((char *)out.data, "length: 23 bytes, fixed width") != NULL);

	const sbx_keydesign *md5 = sbx_keyset_find(set, "chat_md5");
	sbx_keydesign_length(&mn, &typ, &mx, md5);
	CHECK_INT(mn, 32 + 1 + 6 + 1 + 6 + 1 + 1);
	CHECK(mx == SBX_KEYLEN_UNBOUNDED);
	CHECK_INT(sbx_keydesign_elem(&info, md5, 0), SBX_OK);
	CHECK_INT(info.kind, SBX_KEYELEM_HASH);
	CHECK_STR(info.type, "md5(message_id)");
	CHECK_INT(info.max_len, 32);
	CHECK_INT(sbx_keydesign_elem(&info, md5, 6), SBX_OK);
	CHECK_INT(info.offset, 47);
	CHECK(!info.fixed_width);
	CHECK_INT(sbx_keydesign_elem(&info, md5, 7), SBX_EINVAL);
	sbx_buf_free(&out);
	sbx_keyset_free(set);
}

/* A design's canonical text parses back to the same design. */
static void test_canonical_text(void)
{
	sbx_keyset *set = seeds();
	REQUIRE(set);
	for (size_t i = 0; i < sbx_keyset_count(set); i++) {
		const char *t = sbx_keydesign_text(sbx_keyset_at(set, i));
		sbx_keydesign *d = NULL;
		CHECK_INT(sbx_keydesign_parse(&d, t, strlen(t), NULL), SBX_OK);
		if (d)
			CHECK_STR(sbx_keydesign_text(d), t);
		sbx_keydesign_free(d);
	}
	CHECK_STR(sbx_keydesign_text(sbx_keyset_find(set, "chat_md5")),
		  "chat_md5 = md5(message_id) + ':' + date:str(6) + ':' + "
		  "time:str(6) + ':' + message_id:dec");
	const char *t = "k = s:salt(8, of=a, format=hex) + a:str(3, pad=' ', "
			"align=right) + '\\x00\\'' + h:xxh3(a, bytes=2, "
			"format=raw, seed=9) + b:i8 desc mono with scan(b), "
			"regions(8), allow(key-too-long)";
	sbx_keyset_free(set);
	sbx_keydesign *d = NULL;
	CHECK_INT(sbx_keydesign_parse(&d, t, strlen(t), NULL), SBX_OK);
	if (!d) {
		fprintf(stderr, "%s\n", sbx_errmsg());
		return;
	}
	CHECK_STR(sbx_keydesign_text(d), t);
	sbx_keydesign_free(d);
}

/* An option given in several clauses (one takes at most 16 items) keeps
 * its items in order; the canonical text gives them 16 a clause, so it
 * parses back (a 17-item family() once printed as one clause did not). */
static void test_long_option_lists(void)
{
	const char *in = "k = a:u8 with family(f0), family(f1, f2, f3, f4, f5, "
			 "f6, f7, f8, f9, f10, f11, f12, f13, f14, f15, f16), "
			 "scan(a)";
	const char *want = "k = a:u8 with scan(a), family(f0, f1, f2, f3, f4, "
			   "f5, f6, f7, f8, f9, f10, f11, f12, f13, f14, "
			   "f15), family(f16)";
	sbx_keydesign *d = NULL, *again = NULL;
	CHECK_INT(sbx_keydesign_parse(&d, in, strlen(in), NULL), SBX_OK);
	REQUIRE(d);
	CHECK_STR(sbx_keydesign_text(d), want);
	CHECK_INT(sbx_keydesign_parse(&again, want, strlen(want), NULL), SBX_OK);
	if (again)
		CHECK_STR(sbx_keydesign_text(again), want);
	sbx_keydesign_free(again);
	sbx_keydesign_free(d);
	/* one clause of 17 is still refused, with the reason */
	const char *one = "k = a:u8 with family(f0, f1, f2, f3, f4, f5, f6, f7, "
			  "f8, f9, f10, f11, f12, f13, f14, f15, f16)";
	d = NULL;
	CHECK_INT(sbx_keydesign_parse(&d, one, strlen(one), NULL), SBX_EPARSE);
	CHECK(strstr(sbx_errmsg(), "more than 16 arguments") != NULL);
	sbx_keydesign_free(d);
}

TEST_MAIN(T(test_seed002), T(test_canonical_text), T(test_seed003), T(test_seed000_and_004),
	  T(test_types_roundtrip), T(test_parse_errors), T(test_encode_errors),
	  T(test_explain), T(test_long_option_lists))
