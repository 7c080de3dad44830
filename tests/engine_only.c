/*
 * engine_only.c - a program linked with libsaltbox-engine alone (no
 * libcurl, no gRPC, no server): the embedded store works, and a URL for a
 * client backend is SBX_EUNSUPPORTED with a message that says what to link.
 * Built by tests/CMakeLists.txt against the saltbox_engine target only, so
 * the link itself proves the library needs neither client library.
 */
#include "check.h"
#include "saltbox.h"

static void test_embedded_store_works(void)
{
	char dir[512];
	snprintf(dir, sizeof dir, "%s/engine_only.%d",
		 getenv("SBX_TEST_TMP") ? getenv("SBX_TEST_TMP") : "/tmp",
		 (int)getpid());
	sbx_db *db;
	CHECK_INT(sbx_db_open(&db, dir, NULL), SBX_OK);
	sbx_family_desc f;
	sbx_family_desc_init(&f, "f");
	CHECK_INT(sbx_table_create(db, "t", &f, 1), SBX_OK);
	sbx_table *t;
	CHECK_INT(sbx_table_open(&t, db, "t"), SBX_OK);
	sbx_mutation *m;
	CHECK_INT(sbx_mutation_new(&m, "r1", 2), SBX_OK);
	CHECK_INT(sbx_mutation_put(m, "f", "q", 1, SBX_LATEST_TIMESTAMP,
				   "v1", 2),
		  SBX_OK);
	CHECK_INT(sbx_table_mutate(NULL, t, m), SBX_OK);
	sbx_mutation_free(m);
	sbx_result *r;
	CHECK_INT(sbx_table_get(&r, t, "r1", 2, NULL), SBX_OK);
	const sbx_cell *c = sbx_result_get(r, "f", "q", 1);
	CHECK(c != NULL);
	CHECK_MEM(c->value, c->value_len, "v1");
	sbx_result_free(r);
	sbx_table_close(t);
	sbx_db_close(db);
}

static void test_client_urls_unsupported(void)
{
	sbx_db *db = (sbx_db *)1;
	CHECK_INT(sbx_db_connect(&db, "http://127.0.0.1:1"), SBX_EUNSUPPORTED);
	CHECK(db == NULL);
	CHECK_STR(sbx_errmsg(),
		  "http://127.0.0.1:1: this program links libsaltbox-engine, "
		  "which has no HBase REST client (link libsaltbox for it)");
	db = (sbx_db *)1;
	CHECK_INT(sbx_db_connect(&db, "bigtable://p/i"), SBX_EUNSUPPORTED);
	CHECK(db == NULL);
	CHECK_STR(sbx_errmsg(),
		  "bigtable://p/i: this program links libsaltbox-engine, "
		  "which has no Cloud Bigtable client (link libsaltbox for it)");
}

TEST_MAIN(T(test_embedded_store_works), T(test_client_urls_unsupported))
