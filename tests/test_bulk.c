/*
 * test_bulk.c - bulk load, as HBase's HFileOutputFormat2 + completebulkload:
 * cells written offline in HBase order, then loaded at once; loaded cells
 * read like written ones (versions by timestamp, masked by existing
 * markers). Bad input gets a specific error and changes nothing.
 */
#include "engine_util.h"

#include "saltbox/bulk.h"

#include <dirent.h>
#include <sys/stat.h>

static int bput(sbx_bulk_writer *w, const char *row, const char *fam,
		const char *q, int64_t ts, const char *v)
{
	return sbx_bulk_writer_put(w, row, strlen(row), fam, q, strlen(q), ts,
				   v, strlen(v));
}

static size_t count_files(const char *dir)
{
	DIR *d = opendir(dir);
	size_t n = 0;
	struct dirent *de;
	while (d && (de = readdir(d)))
		n += strstr(de->d_name, ".sst") != NULL;
	if (d)
		closedir(d);
	return n;
}

static void test_bulk_load(void)
{
	SKIP_ON_REMOTE("HBase's REST gateway cannot bulk load");
	const char *dir = test_dir("bulk");
	sbx_db *db = open_at(dir, true);
	REQUIRE(db);
	sbx_family_desc f[2];
	two_families(f);
	CHECK_INT(sbx_table_create(db, "t", f, 2), SBX_OK);
	sbx_table *t;
	CHECK_INT(sbx_table_open(&t, db, "t"), SBX_OK);
	REQUIRE(t);
	CHECK_INT(put1(t, "m", "a", "q", 5, "old"), SBX_OK);
	sbx_mutation *m;
	CHECK_INT(sbx_mutation_new(&m, "x", 1), SBX_OK);
	CHECK_INT(sbx_mutation_delete(m, SBX_CELL_DELETE_COLUMN, "a", "q", 1, 50),
		  SBX_OK);
	CHECK_INT(sbx_table_mutate(NULL, t, m), SBX_OK);
	sbx_mutation_free(m);

	char files[4200], other[4200];
	snprintf(files, sizeof files, "%s/load", dir);
	snprintf(other, sizeof other, "%s/other", dir);
	sbx_bulk_writer *w;
	CHECK_INT(sbx_bulk_writer_open(&w, db, "nope", files), SBX_ENOTFOUND);
	CHECK_INT(sbx_bulk_writer_open(&w, db, "t", files), SBX_OK);
	REQUIRE(w);
	sbx_bulk_writer *w2;
	CHECK_INT(sbx_bulk_writer_open(&w2, db, "t", files), SBX_EEXISTS);
	CHECK_INT(bput(w, "a", "a", "q", 20, "2"), SBX_OK);
	CHECK_INT(bput(w, "a", "a", "q", 10, "1"), SBX_OK);
	/* out of order, repeated, or bad: refused, nothing added */
	CHECK_INT(bput(w, "a", "a", "q", 30, "newer"), SBX_EINVAL);
	CHECK(strstr(sbx_errmsg(), "sorts before") != NULL);
	CHECK_INT(bput(w, "a", "a", "q", 10, "again"), SBX_EINVAL);
	CHECK(strstr(sbx_errmsg(), "repeats") != NULL);
	CHECK_INT(bput(w, "a", "zz", "q", 1, "v"), SBX_ENOFAMILY);
	CHECK_INT(bput(w, "b", "a", "q", -1, "v"), SBX_EINVAL);
	CHECK_INT(bput(w, "", "a", "q", 1, "v"), SBX_EINVAL);
	/* families keep their own order */
	CHECK_INT(bput(w, "b", "b", "y", 7, "y"), SBX_OK);
	CHECK_INT(bput(w, "m", "a", "q", 9, "new"), SBX_OK);
	CHECK_INT(bput(w, "x", "a", "q", 40, "masked"), SBX_OK);
	CHECK_INT(sbx_bulk_writer_count(w), 5);
	CHECK_INT(sbx_bulk_writer_finish(w), SBX_OK);

	sbx_scan_opts so;
	sbx_scan_opts_init(&so);
	const char *before = "m/a:q=old;";
	CHECK_STR(scan_str(t, &so, false), before); /* nothing loaded yet */

	/* a directory that is not a family: nothing loads */
	CHECK_INT(mkdir(other, 0755), 0);
	char zz[4300];
	snprintf(zz, sizeof zz, "%s/zz", other);
	CHECK_INT(mkdir(zz, 0755), 0);
	CHECK_INT(sbx_table_bulk_load(db, "t", other), SBX_ENOFAMILY);
	CHECK_INT(sbx_table_bulk_load(db, "t", "/nonexistent/dir"),
		  SBX_ENOTFOUND);
	CHECK_INT(sbx_table_disable(db, "t"), SBX_OK);
	CHECK_INT(sbx_table_bulk_load(db, "t", files), SBX_EDISABLED);
	CHECK_INT(sbx_table_enable(db, "t"), SBX_OK);
	CHECK_STR(scan_str(t, &so, false), before);

	CHECK_INT(sbx_table_bulk_load(db, "t", files), SBX_OK);
	/* x:q@40 stays masked by the DeleteColumn@50 already there */
	CHECK_STR(scan_str(t, &so, false),
		  "a/a:q=2;|b/b:y=y;|m/a:q=new;");
	sbx_read_opts ro;
	sbx_read_opts_init(&ro);
	ro.max_versions = 3;
	CHECK_STR(get_str(t, "a", &ro, true), "a/a:q@20=2;a/a:q@10=1;");
	CHECK_STR(get_str(t, "m", &ro, true), "m/a:q@9=new;m/a:q@5=old;");
	char fam_a[4300];
	snprintf(fam_a, sizeof fam_a, "%s/a", files);
	CHECK_INT(count_files(fam_a), 0); /* moved into the database */

	/* abort removes what was written */
	char aborted[4200];
	snprintf(aborted, sizeof aborted, "%s/aborted", dir);
	CHECK_INT(sbx_bulk_writer_open(&w, db, "t", aborted), SBX_OK);
	CHECK_INT(bput(w, "z", "a", "q", 1, "v"), SBX_OK);
	sbx_bulk_writer_abort(w);
	struct stat st;
	CHECK(stat(aborted, &st) != 0);

	/* loaded cells survive a reopen and a major compaction */
	sbx_table_close(t);
	sbx_db_close(db);
	REQUIRE((db = open_at(dir, false)) != NULL);
	CHECK_INT(sbx_table_major_compact(db, "t"), SBX_OK);
	CHECK_INT(sbx_table_open(&t, db, "t"), SBX_OK);
	REQUIRE(t);
	CHECK_STR(scan_str(t, &so, false), "a/a:q=2;|b/b:y=y;|m/a:q=new;");
	sbx_table_close(t);
	sbx_db_close(db);
}

TEST_MAIN(T(test_bulk_load))
