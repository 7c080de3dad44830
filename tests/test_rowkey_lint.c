/*
 * test_rowkey_lint.c - each lint rule on a design that triggers it and on
 * one that does not, the citation it carries, and allow(...) silencing.
 */
#include "check.h"
#include "saltbox/rowkey.h"

/* Findings of `rule` when linting `text` (-1 if the design fails). */
static int count_rule(const char *text, const char *rule, const char **cite)
{
	sbx_keydesign *d = NULL;
	if (sbx_keydesign_parse(&d, text, strlen(text), NULL)) {
		fprintf(stderr, "parse '%s': %s\n", text, sbx_errmsg());
		return -1;
	}
	sbx_keylint *rep = NULL;
	if (sbx_keydesign_lint(&rep, d)) {
		sbx_keydesign_free(d);
		return -1;
	}
	int n = 0;
	for (size_t i = 0; i < rep->count; i++)
		if (!strcmp(rep->findings[i].rule, rule)) {
			n++;
			if (cite) {
				static char keep[512];
				snprintf(keep, sizeof keep, "%s",
					 rep->findings[i].cite);
				*cite = keep;
			}
		}
	sbx_keylint_free(rep);
	sbx_keydesign_free(d);
	return n;
}

#define TRIGGERS(text, rule) CHECK_INT(count_rule(text, rule, NULL), 1)
#define CLEAN(text, rule) CHECK_INT(count_rule(text, rule, NULL), 0)

static void test_monotonic_leading_field(void)
{
	const char *cite = NULL;
	/* seed 002: date:time:message_id, and message_id first */
	CHECK_INT(count_rule("date:str(6) + ':' + time:str(6) + ':' + "
			     "message_id:dec",
			     "monotonic-leading-field", &cite), 1);
	CHECK_STR(cite, "HBase Reference Guide, \"Hotspotting\" and \"Monotonically "
		  "Increasing Row Keys/Timeseries Data\"; \"HBase Row Key "
		  "Design\" (the chat-message key article) "
		  "(date:time:message_id); \"HBase的rowKey设计技巧\", rowkey散列原则");
	TRIGGERS("message_id:u64 mono + ':' + date:str(6)",
		 "monotonic-leading-field");
	TRIGGERS("ts:ts64 + user_id:str(10)", "monotonic-leading-field");
	TRIGGERS("created_at:u64 + user_id:str(10)", "monotonic-leading-field");
	/* the remedies: a spread field, a hash or a salt first */
	CLEAN("user_id:str(10) + ts:ts64", "monotonic-leading-field");
	CLEAN("md5(message_id) + ':' + date:str(6) + ':' + message_id:dec",
	      "monotonic-leading-field");
	CLEAN("salt(16) + ts:ts64", "monotonic-leading-field");
	CLEAN("ts:u64 random + x:u8", "monotonic-leading-field");
}

static void test_prefix_breaks_range_scan(void)
{
	const char *cite = NULL;
	CHECK_INT(count_rule("salt(16) + user_id:str(4) + ts:ts64 with "
			     "scan(ts)",
			     "prefix-breaks-range-scan", &cite), 1);
	CHECK(cite && strstr(cite, "HBase Reference Guide, \"Hotspotting\": Salting"));
	TRIGGERS("md5(user_id, ts) + user_id:str(4) + ts:ts64 with scan(ts)",
		 "prefix-breaks-range-scan");
	/* a salt or hash over fields the scan fixes keeps ranges intact */
	CLEAN("salt(16, of=user_id) + user_id:str(4) + ts:ts64 with scan(ts)",
	      "prefix-breaks-range-scan");
	CLEAN("md5(user_id, bytes=2) + user_id:str(4) + ts:ts64 with "
	      "scan(ts)",
	      "prefix-breaks-range-scan");
	CLEAN("salt(16) + user_id:str(4) + ts:ts64", /* no scans declared */
	      "prefix-breaks-range-scan");
}

static void test_unordered_scan_field(void)
{
	TRIGGERS("phone:rstr(11) + ts:ts64 with scan(phone)",
		 "unordered-scan-field");
	CLEAN("phone:str(11) + ts:ts64 with scan(phone)",
	      "unordered-scan-field");
}

static void test_key_length(void)
{
	const char *cite = NULL;
	/* seed 003's product-comment key is 23 bytes */
	CHECK_INT(count_rule("product_id:str(10) + 'c' + ts:rts64 + "
			     "content_len:rlen32",
			     "key-too-long", &cite), 1);
	CHECK(cite && strstr(cite, "\"Try to minimize row and column sizes\""));
	TRIGGERS("user_id:str(20)", "key-too-long");
	CLEAN("user_id:u64 + ts:ts64", "key-too-long"); /* exactly 16 */
	CLEAN("user_id:str(max=4) + ts:u32", "key-too-long");
	TRIGGERS("user_id:str + ts:u32", "key-not-fixed-width");
	CLEAN("user_id:str(10) + ts:u32", "key-not-fixed-width");
}

static void test_long_column_names(void)
{
	TRIGGERS("u:u64 with family(user_information)", "long-column-names");
	TRIGGERS("u:u64 with family(u), qualifier(name, nickname_long)",
		 "long-column-names");
	CLEAN("u:u64 with family(u), qualifier(n, nick)", "long-column-names");
}

static void test_identity_not_unique(void)
{
	const char *cite = NULL;
	/* seed 003: a comment is unique by order and product */
	CHECK_INT(count_rule("product_id:str(10) with identity(order_id, "
			     "product_id)",
			     "identity-not-unique", &cite), 1);
	CHECK(cite && strstr(cite, "\"HBase的rowKey设计技巧\", rowkey唯一原则"));
	TRIGGERS("md5(order_id, bytes=4) + product_id:str(10) with "
		 "identity(order_id, product_id)",
		 "identity-not-unique");
	CLEAN("order_id:str(10) + product_id:str(10) with identity(order_id, "
	      "product_id)",
	      "identity-not-unique");
}

static void test_reverse_timestamp(void)
{
	const char *cite = NULL;
	CHECK_INT(count_rule("user_id:str(10) + ts:rts64", "reverse-timestamp",
			     &cite), 1);
	CHECK(cite && strstr(cite, "HBase Reference Guide, \"Reverse Timestamps\""));
	CLEAN("user_id:str(10) + ts:ts64", "reverse-timestamp");
	CLEAN("user_id:str(10) + ts:rts64 with allow(reverse-timestamp)",
	      "reverse-timestamp");
}

static void test_salt_buckets_vs_regions(void)
{
	TRIGGERS("salt(16) + id:u64 with regions(10)",
		 "salt-buckets-vs-regions");
	TRIGGERS("salt(16) + id:u64 with regions(4)",
		 "salt-buckets-vs-regions");
	CLEAN("salt(16) + id:u64 with regions(16)", "salt-buckets-vs-regions");
	CLEAN("salt(16) + id:u64", "salt-buckets-vs-regions");
}

static void test_unpadded_number(void)
{
	TRIGGERS("message_id:dec + ':' + date:str(6)", "unpadded-number");
	CLEAN("message_id:dec(10) + ':' + date:str(6)", "unpadded-number");
	/* last, not scanned: seed 002's trailing message_id is fine */
	CLEAN("date:str(6) + ':' + message_id:dec", "unpadded-number");
}

static void test_report_shape(void)
{
	const char *t = "date:str(6) + ':' + message_id:dec";
	sbx_keydesign *d = NULL;
	REQUIRE(sbx_keydesign_parse(&d, t, strlen(t), NULL) == SBX_OK);
	sbx_keylint *rep = NULL;
	REQUIRE(sbx_keydesign_lint(&rep, d) == SBX_OK);
	REQUIRE(rep->count >= 1);
	CHECK_STR(rep->findings[0].rule, "monotonic-leading-field");
	CHECK_INT(rep->findings[0].level, SBX_LINT_WARN);
	CHECK(strstr(rep->findings[0].message, "'date'") != NULL);
	sbx_keylint_free(rep);
	sbx_keydesign_free(d);
}

/* The first finding's message for design t. */
static void first_message(const char *t, char *out, size_t cap)
{
	sbx_keydesign *d = NULL;
	out[0] = 0;
	REQUIRE(sbx_keydesign_parse(&d, t, strlen(t), NULL) == SBX_OK);
	sbx_keylint *rep = NULL;
	REQUIRE(sbx_keydesign_lint(&rep, d) == SBX_OK);
	REQUIRE(rep->count >= 1);
	CHECK_STR(rep->findings[0].rule, "monotonic-leading-field");
	snprintf(out, cap, "%s", rep->findings[0].message);
	sbx_keylint_free(rep);
	sbx_keydesign_free(d);
}

/* A growing key's new rows land in the last region; a decreasing one's
 * (a reverse timestamp first) in the first region. */
static void test_monotonic_region_named(void)
{
	char m[1024];
	first_message("ts:ts64 + user_id:str(10)", m, sizeof m);
	CHECK_STR(m, "the key starts with 'ts' (ts64), which only ever grows: "
		     "every new row lands in the last region, a write hotspot. "
		     "Put a well-spread field before it (e.g. user_id + ts), "
		     "or a salt or hash prefix");
	first_message("ts:rts64 + user_id:str(10)", m, sizeof m);
	CHECK_STR(m, "the key starts with 'ts' (rts64), which only ever "
		     "decreases: every new row lands in the first region, a "
		     "write hotspot. Put a well-spread field before it (e.g. "
		     "user_id + ts), or a salt or hash prefix");
}

TEST_MAIN(T(test_monotonic_leading_field), T(test_prefix_breaks_range_scan),
	  T(test_unordered_scan_field), T(test_key_length),
	  T(test_long_column_names), T(test_identity_not_unique),
	  T(test_reverse_timestamp), T(test_salt_buckets_vs_regions),
	  T(test_unpadded_number), T(test_report_shape),
	  T(test_monotonic_region_named))
