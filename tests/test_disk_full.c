/*
 * test_disk_full.c - issue 18.3: a full disk. Debian's RocksDB aborts when
 * its write-ahead log meets ENOSPC (WritableFileWriter's assertion), so the
 * engine refuses writes below a free-space floor instead. On a 64 MiB
 * tmpfs holding a 16 MiB ballast file, with a 24 MiB floor: rows are
 * written until a write fails with SBX_EIO "disk full: ..."; the process
 * is alive, reads go on, further writes keep failing cleanly; the ballast
 * is deleted and writes resume; the store closes and reopens with every
 * acknowledged row. Skipped, with the reason, where no tmpfs can be
 * mounted (not root, or no CAP_SYS_ADMIN).
 */
#include "engine_util.h"

#include <sys/stat.h>
#include <unistd.h>

#define VALUE_BYTES (64 * 1024)
#define MAX_ROWS 4000

static char mnt[4096];
static bool mounted;

static void unmount(void)
{
	if (!mounted)
		return;
	char cmd[8400];
	snprintf(cmd, sizeof cmd, "umount '%s' 2>/dev/null || umount -l '%s'",
		 mnt, mnt);
	if (system(cmd) == 0)
		mounted = false;
}

static int put_row(sbx_table *t, int i, const char *val)
{
	char row[32];
	snprintf(row, sizeof row, "row%05d", i);
	sbx_mutation *m;
	int rc = sbx_mutation_new(&m, row, strlen(row));
	if (rc)
		return rc;
	sbx_mutation_set_durability(m, SBX_DURABILITY_SYNC_WAL);
	rc = sbx_mutation_put(m, "cf", "q", 1, SBX_LATEST_TIMESTAMP, val,
			      VALUE_BYTES);
	rc = rc ? rc : sbx_table_mutate(NULL, t, m);
	sbx_mutation_free(m);
	return rc;
}

static size_t row_size(sbx_table *t, int i)
{
	char row[32];
	snprintf(row, sizeof row, "row%05d", i);
	sbx_result *r;
	if (sbx_table_get(&r, t, row, strlen(row), NULL))
		return 0;
	const sbx_cell *c = sbx_result_get(r, "cf", "q", 1);
	size_t n = c ? c->value_len : 0;
	sbx_result_free(r);
	return n;
}

static void test_full_disk(void)
{
	SKIP_ON_REMOTE("the store's disk is the server's");
	snprintf(mnt, sizeof mnt, "%s", test_dir("disk_full"));
	char cmd[16800];
	snprintf(cmd, sizeof cmd,
		 "umount '%s' 2>/dev/null; rm -rf '%s' && mkdir -p '%s' && "
		 "mount -t tmpfs -o size=64m tmpfs '%s' 2>/dev/null",
		 mnt, mnt, mnt, mnt);
	if (geteuid() != 0 || system(cmd) != 0) {
		printf("skip: cannot mount a tmpfs here (needs root and "
		       "CAP_SYS_ADMIN)\n");
		return;
	}
	mounted = true;
	atexit(unmount);
	char ballast[4200], dir[4200];
	snprintf(ballast, sizeof ballast, "%s/ballast", mnt);
	snprintf(dir, sizeof dir, "%s/db", mnt);
	snprintf(cmd, sizeof cmd,
		 "dd if=/dev/zero of='%s' bs=1M count=16 2>/dev/null", ballast);
	REQUIRE(system(cmd) == 0);

	sbx_db_options o;
	sbx_db_options_init(&o);
	CHECK(o.min_free_bytes == (uint64_t)256 << 20); /* the default */
	o.min_free_bytes = (uint64_t)24 << 20;
	sbx_db *db;
	REQUIRE(sbx_db_open(&db, dir, &o) == SBX_OK);
	sbx_family_desc f;
	sbx_family_desc_init(&f, "cf");
	CHECK_INT(sbx_table_create(db, "t", &f, 1), SBX_OK);
	sbx_table *t;
	REQUIRE(sbx_table_open(&t, db, "t") == SBX_OK);
	static char val[VALUE_BYTES];
	memset(val, 'v', sizeof val);

	int acked = 0, rc = SBX_OK;
	while (acked < MAX_ROWS && (rc = put_row(t, acked, val)) == SBX_OK)
		acked++;
	CHECK_INT(rc, SBX_EIO);
	CHECK(strstr(sbx_errmsg(), "disk full: ") != NULL);
	CHECK(strstr(sbx_errmsg(), "below the floor of 25165824") != NULL);
	printf("refused after %d rows of 64 KiB: %s\n", acked, sbx_errmsg());
	CHECK(acked > 100 && acked < 600); /* ~24 MiB fit */
	/* still alive: reads go on, writes keep failing cleanly */
	CHECK_INT((int)row_size(t, 0), VALUE_BYTES);
	CHECK_INT((int)row_size(t, acked - 1), VALUE_BYTES);
	CHECK_INT(put_row(t, acked, val), SBX_EIO);
	CHECK_INT(put_row(t, acked, val), SBX_EIO);

	/* space freed: writes resume */
	REQUIRE(unlink(ballast) == 0);
	int more = 0;
	while (more < 20 && put_row(t, acked, val) == SBX_OK) {
		acked++;
		more++;
	}
	CHECK_INT(more, 20);

	/* nothing acknowledged is lost across a close and a reopen */
	sbx_table_close(t);
	sbx_db_close(db);
	REQUIRE(sbx_db_open(&db, dir, &o) == SBX_OK);
	REQUIRE(sbx_table_open(&t, db, "t") == SBX_OK);
	int lost = 0;
	for (int i = 0; i < acked; i++)
		lost += row_size(t, i) != VALUE_BYTES;
	CHECK_INT(lost, 0);
	sbx_table_close(t);
	sbx_db_close(db);
	unmount();
}

TEST_MAIN(T(test_full_disk))
