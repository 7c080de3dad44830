/*
 * test_family_attrs.c - a family's attributes as HBase's text through the
 * public calls of saltbox/db.h: every name and value spelling HBase's
 * shell and REST gateway use, the text they print, the errors for a bad
 * value or an unknown attribute, and the order describe shows.
 */
#include "check.h"
#include "saltbox.h"

static sbx_family_desc fresh(void)
{
	sbx_family_desc f;
	sbx_family_desc_init(&f, "cf");
	return f;
}

static const char *get(const sbx_family_desc *f, const char *attr)
{
	static sbx_family_attr a;
	return sbx_family_desc_get(&a, f, attr) == SBX_OK ? a.value : "(error)";
}

static void test_set_takes_hbase_spellings(void)
{
	sbx_family_desc f = fresh();
	CHECK_INT(sbx_family_desc_set(&f, "VERSIONS", "3"), SBX_OK);
	CHECK_INT(f.max_versions, 3);
	CHECK_INT(sbx_family_desc_set(&f, "min_versions", "1"), SBX_OK);
	CHECK_INT(f.min_versions, 1);
	CHECK_INT(sbx_family_desc_set(&f, "TTL", "86400"), SBX_OK);
	CHECK_INT(f.ttl_seconds, 86400);
	CHECK_INT(sbx_family_desc_set(&f, "TTL", "forever"), SBX_OK);
	CHECK_INT(f.ttl_seconds, SBX_TTL_FOREVER);
	CHECK_INT(sbx_family_desc_set(&f, "KEEP_DELETED_CELLS", "true"), SBX_OK);
	CHECK_INT(f.keep_deleted_cells, SBX_KEEP_DELETED_TRUE);
	CHECK_INT(sbx_family_desc_set(&f, "KEEP_DELETED_CELLS", "ttl"), SBX_OK);
	CHECK_INT(f.keep_deleted_cells, SBX_KEEP_DELETED_TTL);
	CHECK_INT(sbx_family_desc_set(&f, "BLOOMFILTER", "rowcol"), SBX_OK);
	CHECK_INT(f.bloom_filter, SBX_BLOOM_ROWCOL);
	CHECK_INT(sbx_family_desc_set(&f, "COMPRESSION", "ZSTD"), SBX_OK);
	CHECK_INT(f.compression, SBX_COMPRESSION_ZSTD);
	CHECK_INT(sbx_family_desc_set(&f, "DATA_BLOCK_ENCODING", "FAST_DIFF"),
		  SBX_OK);
	CHECK_INT(f.data_block_encoding, SBX_ENCODING_FAST_DIFF);
	CHECK_INT(sbx_family_desc_set(&f, "BLOCKSIZE", "16384"), SBX_OK);
	CHECK_INT(f.block_size, 16384);
	CHECK_INT(sbx_family_desc_set(&f, "IN_MEMORY", "TRUE"), SBX_OK);
	CHECK(f.in_memory);
	CHECK_STR(f.name, "cf");
}

static void test_get_prints_as_hbase(void)
{
	sbx_family_desc f = fresh();
	CHECK_STR(get(&f, "VERSIONS"), "1");
	CHECK_STR(get(&f, "TTL"), "2147483647");
	CHECK_STR(get(&f, "BLOOMFILTER"), "ROW");
	CHECK_STR(get(&f, "KEEP_DELETED_CELLS"), "FALSE");
	CHECK_STR(get(&f, "IN_MEMORY"), "false");
	CHECK_STR(get(&f, "BLOCKSIZE"), "65536");
	f.compression = SBX_COMPRESSION_LZ4;
	f.keep_deleted_cells = SBX_KEEP_DELETED_TTL;
	CHECK_STR(get(&f, "compression"), "LZ4");
	CHECK_STR(get(&f, "KEEP_DELETED_CELLS"), "TTL");
	sbx_family_attr a;
	CHECK_INT(sbx_family_desc_get(&a, &f, "COMPRESSION"), SBX_OK);
	CHECK_STR(a.name, "COMPRESSION");
	CHECK_INT(a.kind, SBX_ATTR_NAME);
	CHECK(!a.is_default);
	CHECK_INT(sbx_family_desc_get(&a, &f, "IN_MEMORY"), SBX_OK);
	CHECK_INT(a.kind, SBX_ATTR_BOOLEAN);
	CHECK(a.is_default);
}

static void test_iterator_is_describe_order(void)
{
	sbx_family_desc f = fresh();
	f.max_versions = 5;
	f.ttl_seconds = 60;
	char line[512] = "";
	sbx_family_attr a;
	size_t i = 0;
	for (; sbx_family_desc_attr(&a, &f, i) == SBX_OK; i++) {
		char one[64];
		snprintf(one, sizeof one, "%s%s=%s%s", i ? " " : "", a.name,
			 a.value, a.is_default ? "" : "*");
		strncat(line, one, sizeof line - strlen(line) - 1);
	}
	CHECK_INT(i, 10);
	CHECK_STR(line, "BLOOMFILTER=ROW IN_MEMORY=false VERSIONS=5* "
			"KEEP_DELETED_CELLS=FALSE DATA_BLOCK_ENCODING=NONE "
			"COMPRESSION=NONE TTL=60* MIN_VERSIONS=0 "
			"BLOCKCACHE=true BLOCKSIZE=65536");
	CHECK_INT(sbx_family_desc_attr(&a, &f, 10), SBX_ITEROVER);
	/* what the iterator prints, the setter takes back */
	sbx_family_desc g = fresh();
	for (i = 0; sbx_family_desc_attr(&a, &f, i) == SBX_OK; i++)
		CHECK_INT(sbx_family_desc_set(&g, a.name, a.value), SBX_OK);
	CHECK(memcmp(&f, &g, sizeof f) == 0);
}

static void check_bad(const char *attr, const char *value, int code,
		      const char *msg)
{
	sbx_family_desc f = fresh(), before = f;
	CHECK_INT(sbx_family_desc_set(&f, attr, value), code);
	CHECK_STR(sbx_errmsg(), msg);
	CHECK(memcmp(&f, &before, sizeof f) == 0); /* unchanged */
}

static void test_errors_say_what_is_wrong(void)
{
	check_bad("TTL", "abc", SBX_EINVAL,
		  "TTL must be a number of seconds or FOREVER, got 'abc'");
	check_bad("TTL", "0", SBX_EINVAL,
		  "TTL must be in [1, 2147483647] seconds, got 0");
	check_bad("VERSIONS", "0", SBX_EINVAL, "VERSIONS must be >= 1, got 0");
	check_bad("VERSIONS", "3x", SBX_EINVAL,
		  "VERSIONS must be an integer, got '3x'");
	check_bad("VERSIONS", "99999999999", SBX_EINVAL,
		  "VERSIONS must be in [1, 2147483647], got 99999999999");
	check_bad("MIN_VERSIONS", "-1", SBX_EINVAL,
		  "MIN_VERSIONS must be >= 0, got -1");
	check_bad("BLOCKSIZE", "100", SBX_EINVAL,
		  "BLOCKSIZE must be in [1024, 16777216], got 100");
	check_bad("IN_MEMORY", "yes", SBX_EINVAL,
		  "IN_MEMORY must be true or false, got 'yes'");
	check_bad("BLOOMFILTER", "FOO", SBX_EINVAL,
		  "BLOOMFILTER 'FOO' is not supported (use one of: NONE, ROW, "
		  "ROWCOL)");
	check_bad("COMPRESSION", "GZ", SBX_EINVAL,
		  "COMPRESSION 'GZ' is not supported (use one of: NONE, "
		  "SNAPPY, LZ4, ZSTD)");
	check_bad("KEEP_DELETED_CELLS", "maybe", SBX_EINVAL,
		  "KEEP_DELETED_CELLS 'maybe' is not supported (use one of: "
		  "FALSE, TRUE, TTL)");
	check_bad("BLOCKCACHE", "sometimes", SBX_EINVAL,
		  "BLOCKCACHE must be true or false, got 'sometimes'");
	check_bad("REPLICATION_SCOPE", "1", SBX_EUNSUPPORTED,
		  "family attribute REPLICATION_SCOPE is not supported by "
		  "saltbox");
	check_bad("COLOUR", "red", SBX_ENOTFOUND,
		  "unknown column family attribute 'COLOUR'");
	check_bad("NAME", "x", SBX_ENOTFOUND,
		  "unknown column family attribute 'NAME'");
	sbx_family_attr a;
	CHECK_INT(sbx_family_desc_get(&a, &(sbx_family_desc){0}, "COLOUR"),
		  SBX_ENOTFOUND);
}

static void test_create_checks_the_whole_family(void)
{
	/* each value alone is fine; together MIN_VERSIONS > VERSIONS is not */
	sbx_family_desc f = fresh();
	CHECK_INT(sbx_family_desc_set(&f, "MIN_VERSIONS", "4"), SBX_OK);
	const char *dir = test_dir("family_attrs");
	sbx_db *db;
	REQUIRE(sbx_db_open(&db, dir, NULL) == SBX_OK);
	CHECK_INT(sbx_table_create(db, "t", &f, 1), SBX_EINVAL);
	CHECK_STR(sbx_errmsg(), "family 'cf': MIN_VERSIONS must be in [0, "
				"VERSIONS=1], got 4");
	CHECK_INT(sbx_family_desc_set(&f, "VERSIONS", "4"), SBX_OK);
	CHECK_INT(sbx_table_create(db, "t", &f, 1), SBX_OK);
	sbx_table_info *info;
	REQUIRE(sbx_table_describe(&info, db, "t") == SBX_OK);
	CHECK_STR(get(&info->families[0], "MIN_VERSIONS"), "4");
	CHECK_STR(get(&info->families[0], "VERSIONS"), "4");
	sbx_table_info_free(info);
	sbx_db_close(db);
}

TEST_MAIN(T(test_set_takes_hbase_spellings), T(test_get_prints_as_hbase),
	  T(test_iterator_is_describe_order), T(test_errors_say_what_is_wrong),
	  T(test_create_checks_the_whole_family))
