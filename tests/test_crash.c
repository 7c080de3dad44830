/*
 * test_crash.c - kill -9 a writer mid-load, many times. The child process
 * writes rows of five equal cells under SYNC_WAL (single mutations and
 * multi-row batches) and reports each acknowledged row id through a pipe;
 * the parent kills it at a random moment, reopens the store and checks that
 * every acknowledged row is there, no row is half-applied, and the store
 * opens cleanly each time.
 */
#include "engine_util.h"

#include <signal.h>
#include <sys/wait.h>

#define ROUNDS 12
#define COLS 5

static void child_writer(const char *dir, int fd, long base)
{
	sbx_db *db;
	sbx_table *t;
	if (sbx_db_open(&db, dir, NULL) || sbx_table_open(&t, db, "t"))
		_exit(3);
	for (long i = base;; i += 4) {
		sbx_mutation *ms[4];
		for (int k = 0; k < 4; k++) {
			char row[32], val[32];
			snprintf(row, sizeof row, "row%08ld", i + k);
			snprintf(val, sizeof val, "v%ld", i + k);
			sbx_mutation_new(&ms[k], row, strlen(row));
			sbx_mutation_set_durability(ms[k], SBX_DURABILITY_SYNC_WAL);
			for (int c = 0; c < COLS; c++) {
				char q[4] = {'c', (char)('0' + c), 0};
				sbx_mutation_put(ms[k], "cf", q, 2,
						 SBX_LATEST_TIMESTAMP, val,
						 strlen(val));
			}
		}
		int rc;
		if ((i / 4) % 2 == 0) {
			rc = sbx_table_batch(NULL, t, ms, 4);
		} else {
			rc = SBX_OK;
			for (int k = 0; k < 4 && !rc; k++)
				rc = sbx_table_mutate(NULL, t, ms[k]);
		}
		for (int k = 0; k < 4; k++)
			sbx_mutation_free(ms[k]);
		if (rc)
			_exit(4);
		long acked = i + 3;
		if (write(fd, &acked, sizeof acked) != sizeof acked)
			_exit(5);
	}
}

static void test_kill9_during_writes(void)
{
	const char *dir0 = test_dir("crash");
	char dir[4096];
	snprintf(dir, sizeof dir, "%s", dir0);
	sbx_db *db;
	REQUIRE(sbx_db_open(&db, dir, NULL) == SBX_OK);
	sbx_family_desc f;
	sbx_family_desc_init(&f, "cf");
	CHECK_INT(sbx_table_create(db, "t", &f, 1), SBX_OK);
	sbx_db_close(db);
	srand(42);
	long next = 0;
	for (int round = 0; round < ROUNDS; round++) {
		int p[2];
		REQUIRE(pipe(p) == 0);
		pid_t pid = fork();
		REQUIRE(pid >= 0);
		if (pid == 0) {
			close(p[0]);
			child_writer(dir, p[1], next);
		}
		close(p[1]);
		/* kill at a random point once the writer is under way (a busy
		 * machine may take a while to start it) */
		long acked = next - 1, v;
		for (int got = 0; got < 8 &&
				  read(p[0], &v, sizeof v) == sizeof v;
		     got++)
			acked = v;
		usleep((useconds_t)(rand() % 300000));
		kill(pid, SIGKILL);
		int status;
		waitpid(pid, &status, 0);
		CHECK(WIFSIGNALED(status));
		while (read(p[0], &v, sizeof v) == sizeof v)
			acked = v;
		close(p[0]);

		REQUIRE(sbx_db_open(&db, dir, NULL) == SBX_OK);
		sbx_table *t;
		REQUIRE(sbx_table_open(&t, db, "t") == SBX_OK);
		/* one scan: no row is half-applied, and every acknowledged
		 * row is present */
		size_t cap = (size_t)acked + 1024;
		unsigned char *seen = calloc(cap, 1);
		REQUIRE(seen);
		sbx_scanner *s;
		CHECK_INT(sbx_scanner_open(&s, t, NULL), SBX_OK);
		sbx_result *r;
		while (sbx_scanner_next(s, &r) == SBX_OK) {
			CHECK_INT(sbx_result_size(r), COLS);
			size_t n;
			const uint8_t *row = sbx_result_row(r, &n);
			long id = strtol((const char *)row + 3, NULL, 10);
			if (id >= 0 && (size_t)id < cap)
				seen[id] = 1;
			sbx_result_free(r);
		}
		sbx_scanner_close(s);
		long missing = 0;
		for (long i = 0; i <= acked; i++)
			missing += !seen[i];
		if (missing)
			fprintf(stderr, "round %d: %ld acknowledged rows lost\n",
				round, missing);
		CHECK_INT(missing, 0);
		free(seen);
		if (acked >= 0)
			next = acked + 1; /* rewrite any unacknowledged tail */
		sbx_table_close(t);
		sbx_db_close(db);
	}
	CHECK(next > ROUNDS * 4);
}

TEST_MAIN(T(test_kill9_during_writes))
