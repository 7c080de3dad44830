/*
 * test_ds_kill.c - the secondary-index proof (issue 13.4): writers update
 * indexed fields of photos (two photos of two couples per transaction,
 * sometimes deleting and re-creating one) while some of them are
 * SIGKILLed inside a commit; once the dead writers' locks have expired,
 * each index scan must return exactly the live entities, checked against
 * a full scan of the entity table.
 *
 * Over `saltbox serve` (SBX_TEST_BACKEND=remote): 4 writer processes; once
 * two have finished, the parent signals the other two one after the
 * other, and each kills itself inside its next commit (a fault hook at a
 * chosen step past the primary's prewrite), the server staying up. Embedded (one process owns a RocksDB
 * directory): rounds in which a child process runs 4 writer threads and
 * is SIGKILLed mid-commit by one of them, then the store is reopened.
 */
#include "engine_util.h"

#include "ds_test.pb-c.h"
#include "saltbox/datastore.h"

#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>

enum { COUPLE = 1, PHOTO = 3 };
#define COUPLES 4
#define PHOTOS 10 /* per couple */
#define LOCK_MS 300
#define RUN_MS 1500

static const char *owners[] = {"alice", "bob", "carol", "dave", "erin"};

/* where a killed writer dies: before a secondary's prewrite (the primary
 * is locked: rolled back), before the commit point (rolled back), before
 * applying a secondary or the primary (committed: rolled forward) */
static const int kill_steps[] = {
    SBX_TXN_STEP_PREWRITE_SECONDARY, SBX_TXN_STEP_COMMIT_PRIMARY,
    SBX_TXN_STEP_APPLY_SECONDARY, SBX_TXN_STEP_APPLY_PRIMARY};

typedef struct writer {
	sbx_db *db;
	unsigned seed;
	bool killer;
	int64_t die_after_ms;
	int64_t started_ms;
	int target_step;
	long commits;
	int64_t run_ms; /* 0 = RUN_MS */
} writer;

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* remote killers die once the parent says so (SIGUSR1) */
static volatile sig_atomic_t die_now;

static void on_usr1(int sig)
{
	(void)sig;
	die_now = 1;
}

static int die_hook(void *arg, sbx_txn_step step, size_t row)
{
	writer *w = arg;
	(void)row;
	/* after the deadline (or the parent's signal), at the chosen step of
	 * the next commit: always after the primary's prewrite, so the
	 * commit leaves locks behind */
	bool due = w->die_after_ms ? now_ms() - w->started_ms > w->die_after_ms
				   : die_now != 0;
	if (w->killer && due && (int)step == w->target_step)
		kill(getpid(), SIGKILL);
	return SBX_OK;
}

static sbx_txn_options txn_opts(writer *w)
{
	sbx_txn_options o;
	sbx_txn_options_init(&o);
	o.lock_timeout_ms = LOCK_MS;
	o.lock_wait_ms = 50;
	o.retry_budget_ms = 20000;
	if (w) {
		o.fault = die_hook;
		o.fault_arg = w;
		/* the kills land at the portable protocol's steps, which leave
		 * locks to recover; the embedded store's atomic path writes
		 * data and locks in one batch (killed inside it: test_multirow,
		 * txn_bank_atomic) */
		o.path = SBX_TXN_PATH_PORTABLE;
	}
	return o;
}

static int open_ds(sbx_ds **out, sbx_db *db, writer *w)
{
	sbx_txn_options o = txn_opts(w);
	int rc = sbx_ds_open(out, db, "couples", &o);
	sbx_ds_kind_desc c = {COUPLE, "Couple", &dstest__couple__descriptor,
			      NULL, NULL};
	sbx_ds_kind_desc p = {PHOTO, "Photo", &dstest__photo__descriptor, NULL,
			      NULL};
	sbx_ds_index_desc a = {"by_taken", PHOTO,
			       "root:u64 + taken:u64 desc + id:u64",
			       SBX_DS_INDEX_REFERENCE, NULL};
	sbx_ds_index_desc b = {"by_owner", PHOTO,
			       "salt(4) + owner:str + key:bytes",
			       SBX_DS_INDEX_CLUSTERED, NULL};
	rc = rc ? rc : sbx_ds_register_kind(*out, &c);
	rc = rc ? rc : sbx_ds_register_kind(*out, &p);
	rc = rc ? rc : sbx_ds_add_index(*out, &a);
	rc = rc ? rc : sbx_ds_add_index(*out, &b);
	rc = rc ? rc : sbx_ds_prepare(*out);
	if (rc)
		fprintf(stderr, "open_ds: %s\n", sbx_errmsg());
	return rc;
}

typedef struct step_arg {
	sbx_ds *ds;
	writer *w;
} step_arg;

/* one transaction: two photos of two couples get new indexed fields, or
 * one is deleted */
static int step(sbx_txn *txn, void *arg)
{
	step_arg *s = arg;
	writer *w = s->w;
	int rc = SBX_OK;
	unsigned c1 = (unsigned)rand_r(&w->seed) % COUPLES;
	unsigned c2 = (c1 + 1 + (unsigned)rand_r(&w->seed) % (COUPLES - 1)) %
		      COUPLES;
	unsigned cs[2] = {c1, c2};
	for (int i = 0; rc == SBX_OK && i < 2; i++) {
		sbx_ds_key *r = NULL, *p = NULL;
		rc = sbx_ds_key_root(&r, COUPLE, 100 + cs[i]);
		rc = rc ? rc
			: sbx_ds_key_child(&p, r, PHOTO,
					   1 + (unsigned)rand_r(&w->seed) %
						   PHOTOS);
		ProtobufCMessage *m = NULL;
		rc = rc ? rc : sbx_ds_get(&m, s->ds, txn, p);
		if (rc == SBX_OK && m && rand_r(&w->seed) % 8 == 0) {
			rc = sbx_ds_delete(NULL, s->ds, txn, p);
		} else if (rc == SBX_OK) {
			Dstest__Photo ph = DSTEST__PHOTO__INIT;
			ph.caption = "w";
			ph.has_taken = true;
			ph.taken = (uint64_t)(rand_r(&w->seed) % 1000);
			ph.owner = (char *)owners[rand_r(&w->seed) % 5];
			rc = sbx_ds_put(s->ds, txn, p, &ph.base);
		}
		sbx_ds_entity_free(m);
		sbx_ds_key_free(p);
		sbx_ds_key_free(r);
	}
	return rc;
}

static int run_writer(writer *w)
{
	sbx_ds *ds = NULL;
	int rc = open_ds(&ds, w->db, w);
	w->started_ms = now_ms();
	step_arg a = {ds, w};
	sbx_txn_options o = txn_opts(w);
	int64_t run_ms = w->run_ms ? w->run_ms : RUN_MS;
	while (rc == SBX_OK && now_ms() - w->started_ms < run_ms) {
		rc = sbx_txn_run(NULL, w->db, &o, step, &a);
		if (rc == SBX_ECONFLICT)
			rc = SBX_OK;
		if (rc == SBX_OK)
			w->commits++;
	}
	if (rc)
		fprintf(stderr, "writer: %s\n", sbx_errmsg());
	sbx_ds_close(ds);
	return rc;
}

static void *writer_thread(void *arg)
{
	writer *w = arg;
	return run_writer(w) ? arg : NULL;
}

/* the entities, each "root/id taken owner", sorted, one per line */
static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static char *collect(sbx_ds_iter *it, size_t *count)
{
	char **v = NULL;
	size_t n = 0, total = 1;
	const sbx_ds_key *k;
	ProtobufCMessage *m;
	int rc;
	while ((rc = sbx_ds_iter_next(it, &k, &m)) == SBX_OK) {
		sbx_ds_key *r = NULL;
		sbx_ds_key_prefix(&r, k, 1);
		Dstest__Photo *p = (Dstest__Photo *)m;
		char line[200];
		snprintf(line, sizeof line, "%llu/%llu %llu %s\n",
			 (unsigned long long)sbx_ds_key_id(r),
			 (unsigned long long)sbx_ds_key_id(k),
			 (unsigned long long)p->taken, p->owner);
		sbx_ds_key_free(r);
		sbx_ds_entity_free(m);
		v = realloc(v, (n + 1) * sizeof *v);
		v[n++] = strdup(line);
		total += strlen(line);
	}
	if (rc != SBX_ITEROVER)
		fprintf(stderr, "[%s] scan: %s\n", check_current, sbx_errmsg());
	CHECK_INT(rc, SBX_ITEROVER);
	sbx_ds_iter_close(it);
	qsort(v, n, sizeof *v, cmp_str);
	char *out = calloc(1, total);
	for (size_t i = 0; i < n; i++) {
		strcat(out, v[i]);
		free(v[i]);
	}
	free(v);
	*count = n;
	return out;
}

/* the by_taken order of the full scan's entities: root ascending, taken
 * descending, id ascending - checked on the index's own output */
static void check_order(sbx_ds *ds)
{
	sbx_ds_iter *it = NULL;
	CHECK_INT(sbx_ds_index_scan(&it, ds, NULL, "by_taken", NULL, 0, false,
				    0),
		  SBX_OK);
	uint64_t pr = 0, pt = UINT64_MAX, pid = 0;
	const sbx_ds_key *k;
	ProtobufCMessage *m;
	while (it && sbx_ds_iter_next(it, &k, &m) == SBX_OK) {
		Dstest__Photo *p = (Dstest__Photo *)m;
		sbx_ds_key *r = NULL;
		sbx_ds_key_prefix(&r, k, 1);
		uint64_t root = sbx_ds_key_id(r), id = sbx_ds_key_id(k);
		bool ok = root > pr ||
			  (root == pr &&
			   (p->taken < pt || (p->taken == pt && id > pid)));
		CHECK(ok);
		pr = root;
		pt = p->taken;
		pid = id;
		sbx_ds_key_free(r);
		sbx_ds_entity_free(m);
	}
	sbx_ds_iter_close(it);
}

/* locks that are not stable, in the entity table and both index tables */
static size_t open_locks(sbx_db *db)
{
	const char *tables[] = {"couples", "couples_by_taken",
				"couples_by_owner"};
	size_t total = 0;
	for (int i = 0; i < 3; i++) {
		sbx_txn_lock_info *v = NULL;
		size_t n = 0;
		CHECK_INT(sbx_txn_locks(&v, &n, db, tables[i]), SBX_OK);
		total += n;
		sbx_txn_lock_infos_free(v, n);
	}
	return total;
}

static size_t verify(sbx_db *db)
{
	struct timespec ts = {0, (LOCK_MS + 200) * 1000000L};
	nanosleep(&ts, NULL); /* the dead writers' locks expire */
	size_t left = open_locks(db);
	printf("[%s] %zu locks left by the killed writers\n", check_current,
	       left);
	sbx_ds *ds = NULL;
	if (open_ds(&ds, db, NULL) != SBX_OK) {
		CHECK(!"open_ds");
		return left;
	}
	sbx_ds_iter *it = NULL;
	size_t nfull = 0, na = 0, nb = 0;
	CHECK_INT(sbx_ds_scan_kind(&it, ds, NULL, PHOTO, COUPLE), SBX_OK);
	char *full = collect(it, &nfull);
	CHECK_INT(sbx_ds_index_scan(&it, ds, NULL, "by_taken", NULL, 0, false,
				    0),
		  SBX_OK);
	char *a = collect(it, &na);
	CHECK_INT(sbx_ds_index_scan(&it, ds, NULL, "by_owner", NULL, 0, true,
				    0),
		  SBX_OK);
	char *b = collect(it, &nb);
	CHECK(nfull > 0);
	CHECK_INT(na, nfull);
	CHECK_INT(nb, nfull);
	CHECK_STR(a, full);
	CHECK_STR(b, full);
	check_order(ds);
	/* and the collection metadata counts exactly the live photos */
	uint64_t total = 0;
	for (int c = 0; c < COUPLES; c++) {
		sbx_ds_key *r = NULL;
		uint64_t n = 0;
		sbx_ds_key_root(&r, COUPLE, 100 + (uint64_t)c);
		CHECK_INT(sbx_ds_collection_info(&n, NULL, ds, NULL, r, PHOTO),
			  SBX_OK);
		total += n;
		sbx_ds_key_free(r);
	}
	CHECK_INT(total, nfull);
	printf("[%s] %zu live photos: by_taken and by_owner match the full "
	       "scan\n",
	       check_current, nfull);
	/* reading met every lock and resolved it */
	CHECK_INT(open_locks(db), 0);
	free(full);
	free(a);
	free(b);
	sbx_ds_close(ds);
	return left;
}

static void test_remote_writers_killed(void)
{
	if (!test_remote()) {
		printf("skip [%s]: over saltbox serve only (run_remote.sh)\n",
		       check_current);
		return;
	}
	sbx_db *db = open_fresh("ds_kill");
	REQUIRE(db != NULL);
	sbx_ds *ds = NULL;
	REQUIRE(open_ds(&ds, db, NULL) == SBX_OK); /* creates the tables */
	sbx_ds_close(ds);
	pid_t pids[4];
	for (int i = 0; i < 4; i++) {
		fflush(NULL);
		pids[i] = fork();
		REQUIRE(pids[i] >= 0);
		if (pids[i] == 0) {
			sbx_db *cdb = NULL;
			if (sbx_db_connect(&cdb, getenv("SBX_TEST_URL")))
				_exit(2);
			/* writers 2 and 3 stop at RUN_MS; 0 and 1 go on
			 * until the parent, once 2 and 3 have exited, tells
			 * them to die, so no writer is left to meet the last
			 * locks they leave */
			signal(SIGUSR1, on_usr1);
			writer w = {cdb, (unsigned)(getpid() * 7919 + i),
				    i < 2, 0, 0, kill_steps[i], 0,
				    i < 2 ? 20 * RUN_MS : 0};
			int rc = run_writer(&w);
			sbx_db_close(cdb);
			_exit(rc ? 1 : 0);
		}
	}
	int killed = 0, failed = 0;
	for (int j = 0; j < 4; j++) {
		int i = 3 - j; /* the survivors first, then killer 1, then 0 */
		if (i < 2)
			kill(pids[i], SIGUSR1);
		int ws = 0;
		waitpid(pids[i], &ws, 0);
		if (WIFSIGNALED(ws) && WTERMSIG(ws) == SIGKILL)
			killed++;
		else if (!WIFEXITED(ws) || WEXITSTATUS(ws) != 0)
			failed++;
	}
	printf("[%s] 4 writer processes, %d SIGKILLed inside a commit\n",
	       check_current, killed);
	CHECK_INT(killed, 2);
	CHECK_INT(failed, 0);
	CHECK(verify(db) > 0); /* the kills left locks to recover */
	sbx_db_close(db);
}

static void test_embedded_writers_killed(void)
{
	if (test_client()) {
		printf("skip [%s]: embedded only\n", check_current);
		return;
	}
	const char *dir = test_dir("ds_kill");
	char path[4096];
	snprintf(path, sizeof path, "%s", dir);
	sbx_db *db = open_at(path, true);
	REQUIRE(db != NULL);
	sbx_ds *ds = NULL;
	REQUIRE(open_ds(&ds, db, NULL) == SBX_OK);
	sbx_ds_close(ds);
	sbx_db_close(db);
	int killed = 0;
	for (int round = 0; round < 3; round++) {
		fflush(NULL);
		pid_t pid = fork();
		REQUIRE(pid >= 0);
		if (pid == 0) {
			sbx_db *cdb = NULL;
			if (sbx_db_open(&cdb, path, NULL))
				_exit(2);
			writer w[4];
			pthread_t th[4];
			for (int i = 0; i < 4; i++) {
				w[i] = (writer){cdb,
						(unsigned)(getpid() * 31 + i),
						i == 0,
						300 + 200 * round,
						0,
						kill_steps[round % 4],
						0,
						0};
				pthread_create(&th[i], NULL, writer_thread,
					       &w[i]);
			}
			int bad = 0;
			for (int i = 0; i < 4; i++) {
				void *r;
				pthread_join(th[i], &r);
				bad += r != NULL;
			}
			sbx_db_close(cdb);
			_exit(bad ? 1 : 0);
		}
		int ws = 0;
		waitpid(pid, &ws, 0);
		if (WIFSIGNALED(ws) && WTERMSIG(ws) == SIGKILL)
			killed++;
		else
			CHECK(WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
		db = open_at(path, false);
		REQUIRE(db != NULL);
		size_t left = verify(db);
		/* A kill before the commit point leaves a primary that only
		 * expires: locks to recover. Past it (APPLY_SECONDARY) the
		 * others roll a committed transaction forward at once when
		 * they meet one of its rows, so a killer held up between its
		 * commit and the kill (a loaded machine) can leave none. */
		if (kill_steps[round % 4] != SBX_TXN_STEP_APPLY_SECONDARY)
			CHECK(left > 0);
		sbx_db_close(db);
	}
	printf("[%s] 3 rounds of 4 writer threads, %d processes SIGKILLed "
	       "inside a commit\n",
	       check_current, killed);
	CHECK_INT(killed, 3);
}

TEST_MAIN(T(test_embedded_writers_killed), T(test_remote_writers_killed))
