/*
 * test_snapshot.c - HBase's snapshots: snapshot, list_snapshots,
 * clone_snapshot, restore_snapshot, delete_snapshot. A snapshot keeps the
 * table as it was (schema, regions, every version and delete marker) while
 * the table moves on; a clone is a new table in that state; a restore needs
 * a disabled table and puts it back, or recreates a dropped one. Bad input
 * gets a specific error and changes nothing.
 */
#include "engine_util.h"

#include "saltbox/regions.h"

/* Put a:q@ts=v (or b:x when fam is "b"). */
static int put_ts(sbx_table *t, const char *row, const char *fam,
		  const char *q, int64_t ts, const char *v)
{
	return put1(t, row, fam, q, ts, v);
}

static const char *raw_scan(sbx_table *t)
{
	sbx_scan_opts o;
	sbx_scan_opts_init(&o);
	o.read.raw = true;
	o.read.max_versions = 10;
	return scan_str(t, &o, true);
}

/* The table as the snapshot must keep it, raw (markers and versions). */
static const char *const AT_SNAPSHOT =
	"a/a:q@20=2;a/a:q@10=1;|" /* newest first */
	"b/b:x@5!DeleteColumn=;b/b:x@5=gone;b/b:y@7=kept;|"
	"n/a:q@30=north;";

static void fill(sbx_table *t)
{
	CHECK_INT(put_ts(t, "a", "a", "q", 10, "1"), SBX_OK);
	CHECK_INT(put_ts(t, "a", "a", "q", 20, "2"), SBX_OK);
	CHECK_INT(put_ts(t, "b", "b", "x", 5, "gone"), SBX_OK);
	CHECK_INT(put_ts(t, "b", "b", "y", 7, "kept"), SBX_OK);
	CHECK_INT(put_ts(t, "n", "a", "q", 30, "north"), SBX_OK);
	sbx_mutation *m;
	CHECK_INT(sbx_mutation_new(&m, "b", 1), SBX_OK);
	CHECK_INT(sbx_mutation_delete(m, SBX_CELL_DELETE_COLUMN, "b", "x", 1, 5),
		  SBX_OK);
	CHECK_INT(sbx_table_mutate(NULL, t, m), SBX_OK);
	sbx_mutation_free(m);
}

static void check_schema(sbx_db *db, const char *name)
{
	sbx_table_info *info;
	CHECK_INT(sbx_table_describe(&info, db, name), SBX_OK);
	if (!info)
		return;
	CHECK_INT(info->nfamilies, 2);
	CHECK_STR(info->families[0].name, "a");
	CHECK_INT(info->families[0].max_versions, 3);
	CHECK_STR(info->families[1].name, "b");
	CHECK_INT(info->families[1].compression, SBX_COMPRESSION_LZ4);
	sbx_table_info_free(info);
	sbx_region_info *r;
	size_t n;
	CHECK_INT(sbx_table_regions(&r, &n, db, name), SBX_OK);
	CHECK_INT(n, 2);
	if (n == 2)
		CHECK_MEM(r[1].start_key, r[1].start_len, "m");
	sbx_region_infos_free(r, n);
}

static void test_snapshot_clone_restore(void)
{
	const char *dir = test_dir("snap");
	sbx_db *db = open_at(dir, true);
	REQUIRE(db);
	sbx_family_desc f[2];
	two_families(f);
	sbx_bytes split = {"m", 1};
	CHECK_INT(sbx_table_create_presplit(db, "t", f, 2, &split, 1), SBX_OK);
	sbx_table *t;
	CHECK_INT(sbx_table_open(&t, db, "t"), SBX_OK);
	REQUIRE(t);
	fill(t);
	CHECK_STR(raw_scan(t), AT_SNAPSHOT);

	/* take it; bad input changes nothing */
	CHECK_INT(sbx_snapshot_create(db, "t", "s1"), SBX_OK);
	CHECK_INT(sbx_snapshot_create(db, "t", "s1"), SBX_EEXISTS);
	CHECK_INT(sbx_snapshot_create(db, "nope", "s2"), SBX_ENOTFOUND);
	CHECK_INT(sbx_snapshot_create(db, "t", ".hidden"), SBX_EINVAL);
	CHECK_INT(sbx_snapshot_create(db, "t", "a/b"), SBX_EINVAL);
	CHECK_INT(sbx_snapshot_create(db, "t", "ns:s"), SBX_EINVAL);
	CHECK_INT(sbx_snapshot_create(db, "t", ""), SBX_EINVAL);
	sbx_snapshot_info *v;
	size_t n;
	CHECK_INT(sbx_snapshot_list(&v, &n, db), SBX_OK);
	CHECK_INT(n, 1);
	if (n == 1) {
		CHECK_STR(v[0].name, "s1");
		CHECK_STR(v[0].table, "t");
		CHECK(v[0].created_ms > 1700000000000LL);
	}
	sbx_snapshot_infos_free(v, n);

	/* the table moves on */
	CHECK_INT(put_ts(t, "a", "a", "q", 40, "3"), SBX_OK);
	CHECK_INT(put_ts(t, "z", "b", "y", 1, "new"), SBX_OK);
	sbx_mutation *m;
	CHECK_INT(sbx_mutation_new(&m, "n", 1), SBX_OK);
	CHECK_INT(sbx_mutation_delete_row(m, 100), SBX_OK);
	CHECK_INT(sbx_table_mutate(NULL, t, m), SBX_OK);
	sbx_mutation_free(m);
	const char *moved = "a/a:q=3;|b/b:y=kept;|z/b:y=new;";
	sbx_scan_opts so;
	sbx_scan_opts_init(&so);
	CHECK_STR(scan_str(t, &so, false), moved);

	/* clone: a new table as the snapshot has it */
	CHECK_INT(sbx_snapshot_clone(db, "s1", "t2"), SBX_OK);
	CHECK_INT(sbx_snapshot_clone(db, "s1", "t2"), SBX_EEXISTS);
	CHECK_INT(sbx_snapshot_clone(db, "s1", "t"), SBX_EEXISTS);
	CHECK_INT(sbx_snapshot_clone(db, "nope", "t3"), SBX_ENOTFOUND);
	CHECK_INT(sbx_snapshot_clone(db, "s1", "bad name"), SBX_EINVAL);
	bool exists = true;
	CHECK_INT(sbx_table_exists(&exists, db, "t3"), SBX_OK);
	CHECK(!exists);
	sbx_table *t2;
	CHECK_INT(sbx_table_open(&t2, db, "t2"), SBX_OK);
	REQUIRE(t2);
	CHECK_STR(raw_scan(t2), AT_SNAPSHOT);
	sbx_read_opts ro;
	sbx_read_opts_init(&ro);
	ro.max_versions = 3;
	CHECK_STR(get_str(t2, "a", &ro, true), "a/a:q@20=2;a/a:q@10=1;");
	check_schema(db, "t2");
	CHECK_STR(scan_str(t, &so, false), moved); /* the source is untouched */

	/* restore: HBase's rule, the table must be disabled */
	CHECK_INT(sbx_snapshot_restore(db, "s1"), SBX_ENOTDISABLED);
	CHECK_STR(scan_str(t, &so, false), moved);
	CHECK_INT(sbx_snapshot_restore(db, "nope"), SBX_ENOTFOUND);
	CHECK_INT(sbx_table_disable(db, "t"), SBX_OK);
	CHECK_INT(sbx_snapshot_restore(db, "s1"), SBX_OK);
	bool enabled = true;
	CHECK_INT(sbx_table_is_enabled(&enabled, db, "t"), SBX_OK);
	CHECK(!enabled); /* left disabled, as HBase leaves it */
	CHECK_INT(sbx_table_enable(db, "t"), SBX_OK);
	sbx_table_close(t); /* a handle from before the restore */
	CHECK_INT(sbx_table_open(&t, db, "t"), SBX_OK);
	REQUIRE(t);
	CHECK_STR(raw_scan(t), AT_SNAPSHOT);
	check_schema(db, "t");
	CHECK_INT(sbx_snapshot_list(&v, &n, db), SBX_OK);
	CHECK_INT(n, 1); /* the failsafe snapshot is gone again */
	sbx_snapshot_infos_free(v, n);

	/* restore of a dropped table recreates it */
	sbx_table_close(t);
	CHECK_INT(sbx_table_disable(db, "t"), SBX_OK);
	CHECK_INT(sbx_table_drop(db, "t"), SBX_OK);
	CHECK_INT(sbx_snapshot_restore(db, "s1"), SBX_OK);
	CHECK_INT(sbx_table_open(&t, db, "t"), SBX_OK);
	REQUIRE(t);
	CHECK_STR(raw_scan(t), AT_SNAPSHOT);

	/* snapshots outlive a reopen; deleting one keeps its clones */
	sbx_table_close(t);
	sbx_table_close(t2);
	sbx_db_close(db);
	REQUIRE((db = open_at(dir, false)) != NULL);
	CHECK_INT(sbx_snapshot_list(&v, &n, db), SBX_OK);
	CHECK_INT(n, 1);
	sbx_snapshot_infos_free(v, n);
	CHECK_INT(sbx_snapshot_delete(db, "s1"), SBX_OK);
	CHECK_INT(sbx_snapshot_delete(db, "s1"), SBX_ENOTFOUND);
	CHECK_INT(sbx_snapshot_delete(db, "-x"), SBX_EINVAL);
	CHECK_INT(sbx_snapshot_list(&v, &n, db), SBX_OK);
	CHECK_INT(n, 0);
	sbx_snapshot_infos_free(v, n);
	CHECK_INT(sbx_snapshot_clone(db, "s1", "t4"), SBX_ENOTFOUND);
	CHECK_INT(sbx_table_open(&t2, db, "t2"), SBX_OK);
	REQUIRE(t2);
	CHECK_STR(raw_scan(t2), AT_SNAPSHOT);
	sbx_table_close(t2);
	sbx_db_close(db);
}

/* A database that never took a snapshot lists none. */
static void test_no_snapshots(void)
{
	sbx_db *db = open_fresh("snap_none");
	REQUIRE(db);
	sbx_snapshot_info *v = (sbx_snapshot_info *)1;
	size_t n = 9;
	CHECK_INT(sbx_snapshot_list(&v, &n, db), SBX_OK);
	CHECK_INT(n, 0);
	CHECK(v == NULL);
	CHECK_INT(sbx_snapshot_restore(db, "s"), SBX_ENOTFOUND);
	sbx_db_close(db);
}

TEST_MAIN(T(test_snapshot_clone_restore), T(test_no_snapshots))
