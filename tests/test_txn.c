/*
 * test_txn.c - multi-row transactions (include/saltbox/txn.h) on the
 * embedded store and, through tests/run_remote.sh, over `saltbox serve`:
 * commit and rollback, reading one's own writes, conflicts (write-write,
 * write skew, read-only validation), lost updates counted exactly, scans
 * and their phantoms, bad input, garbage lock cells, backend faults before
 * and after the commit point, locks left by a dead client resolved after
 * they expire, and the lock cell's codec.
 *
 * Every test runs on the commit path SBX_TEST_TXN_PATH names (portable,
 * atomic, or auto - the default: atomic on the embedded store, portable
 * over REST); ctest runs the binary on the embedded store with both, and
 * over `saltbox serve`. Dead clients are portable ones (only they leave
 * locks), met by transactions of the path under test; test_mixed_paths
 * runs both paths at once on one store, in-process and over REST.
 */
#include "common/alloc.h"
#include "common/clock.h"
#include "engine_util.h"
#include "server/server.h"
#include "txn/txn_int.h"

#include <pthread.h>

#define LOCK_TIMEOUT_MS 300

static sbx_db *db;
static sbx_table *tb;

/* The commit path under test (SBX_TEST_TXN_PATH). */
static sbx_txn_path txn_path(void)
{
	const char *p = getenv("SBX_TEST_TXN_PATH");
	if (p && !strcmp(p, "portable"))
		return SBX_TXN_PATH_PORTABLE;
	if (p && !strcmp(p, "atomic"))
		return SBX_TXN_PATH_ATOMIC;
	return SBX_TXN_PATH_AUTO;
}

/* Does the path under test commit atomically here? */
static bool atomic_here(void)
{
	return txn_path() != SBX_TXN_PATH_PORTABLE && !test_client();
}

static sbx_txn_options quick(void)
{
	sbx_txn_options o;
	sbx_txn_options_init(&o);
	o.path = txn_path();
	o.lock_timeout_ms = LOCK_TIMEOUT_MS;
	o.lock_wait_ms = 20;
	o.retry_budget_ms = 20000;
	return o;
}

static int make_txn_table(const char *name)
{
	sbx_family_desc f[2];
	sbx_txn_lock_family(&f[0]);
	sbx_family_desc_init(&f[1], "cf");
	f[1].max_versions = 3;
	return sbx_table_create(db, name, f, 2);
}

static bool setup(const char *name)
{
	db = open_fresh(name);
	tb = NULL;
	return db && make_txn_table("acct") == SBX_OK &&
	       sbx_table_open(&tb, db, "acct") == SBX_OK;
}

static void teardown(void)
{
	sbx_table_close(tb);
	sbx_db_close(db);
	tb = NULL;
	db = NULL;
}

static sbx_txn *begin(void)
{
	sbx_txn_options o = quick();
	sbx_txn *txn = NULL;
	if (sbx_txn_begin_with(&txn, db, &o))
		fprintf(stderr, "begin: %s\n", sbx_errmsg());
	return txn;
}

static int tput(sbx_txn *txn, sbx_table *t, const char *row, const char *q,
		const char *v)
{
	sbx_mutation *m;
	int rc = sbx_mutation_new(&m, row, strlen(row));
	rc = rc ? rc
		: sbx_mutation_put(m, "cf", q, strlen(q), SBX_LATEST_TIMESTAMP,
				   v, strlen(v));
	rc = rc ? rc : sbx_txn_mutate(txn, t, m);
	sbx_mutation_free(m);
	return rc;
}

static int tdel(sbx_txn *txn, sbx_table *t, const char *row, const char *q)
{
	sbx_mutation *m;
	int rc = sbx_mutation_new(&m, row, strlen(row));
	rc = rc	 ? rc
	     : q ? sbx_mutation_delete(m, SBX_CELL_DELETE_COLUMN, "cf", q,
				       strlen(q), SBX_LATEST_TIMESTAMP)
		 : sbx_mutation_delete_row(m, SBX_LATEST_TIMESTAMP);
	rc = rc ? rc : sbx_txn_mutate(txn, t, m);
	sbx_mutation_free(m);
	return rc;
}

/* A row through the transaction, "cf:q=v;..." without timestamps, read
 * with o (NULL: the defaults). */
static const char *tget_with(sbx_txn *txn, sbx_table *t, const char *row,
			     const sbx_read_opts *o)
{
	static char buf[4096];
	buf[0] = 0;
	sbx_result *r = NULL;
	int rc = sbx_txn_get(&r, txn, t, row, strlen(row), o);
	if (rc) {
		snprintf(buf, sizeof buf, "ERR %s", sbx_strerror(rc));
		return buf;
	}
	for (size_t i = 0; i < sbx_result_size(r); i++) {
		const sbx_cell *c = sbx_result_cell(r, i);
		size_t o = strlen(buf);
		snprintf(buf + o, sizeof buf - o, "%s:%.*s=", c->family,
			 (int)c->qualifier_len, (const char *)c->qualifier);
		put_bytes(buf, sizeof buf, c->value, c->value_len);
		strcat(buf, ";");
	}
	sbx_result_free(r);
	return buf;
}

static const char *tget(sbx_txn *txn, sbx_table *t, const char *row)
{
	return tget_with(txn, t, row, NULL);
}

/* The row's data as a plain read sees it (family cf only). */
static const char *plain(sbx_table *t, const char *row)
{
	sbx_column col = {"cf", NULL, 0};
	sbx_read_opts o;
	sbx_read_opts_init(&o);
	o.columns = &col;
	o.ncolumns = 1;
	return get_str(t, row, &o, false);
}

/* Unresolved locks of a table, as "row:STATE;" */
static const char *locks(const char *table)
{
	static char buf[4096];
	buf[0] = 0;
	sbx_txn_lock_info *v;
	size_t n;
	int rc = sbx_txn_locks(&v, &n, db, table);
	if (rc) {
		snprintf(buf, sizeof buf, "ERR %s", sbx_strerror(rc));
		return buf;
	}
	static const char *names[] = {"GARBAGE", "STABLE", "PREWRITTEN",
				      "COMMITTED"};
	for (size_t i = 0; i < n; i++) {
		size_t o = strlen(buf);
		snprintf(buf + o, sizeof buf - o, "%.*s:%s%s;",
			 (int)v[i].row_len, (const char *)v[i].row,
			 names[v[i].state], v[i].primary ? "(primary)" : "");
	}
	sbx_txn_lock_infos_free(v, n);
	return buf;
}

static void sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
}

/* ---- the lock cell ------------------------------------------------------- */

static void test_lock_codec(void)
{
	sbx_buf b = {0};
	tx_lock lk;
	CHECK_INT(lock_encode_stable(&b, 1234, 1236), SBX_OK);
	CHECK_INT(b.len, 24);
	CHECK_MEM(b.data, 4, "TX\x01\x01");
	CHECK_INT(lock_decode(&lk, b.data, b.len), SBX_OK);
	CHECK_INT(lk.state, TX_STABLE);
	CHECK_INT(lk.commit_ts, 1234);
	sbx_buf doc = {0}; /* the example in docs/transactions.md */
	CHECK_INT(lock_encode_stable(&doc, 1700000000000, 1700000000002),
		  SBX_OK);
	CHECK(doc.len == 24 &&
	      !memcmp(doc.data,
		      "TX\x01\x01\x00\x00\x01\x8b\xcf\xe5\x68\x00"
		      "\x00\x00\x01\x8b\xcf\xe5\x68\x02\x08\x90\x85\x9e",
		      24));
	sbx_buf_free(&doc);
	CHECK_INT(lk.version, 1236);

	tx_ref secs[2] = {{"t", 1, (const uint8_t *)"r2", 2},
			  {"ns:u", 4, (const uint8_t *)"r3", 2}};
	tx_op ops[2] = {{TX_PUT, "cf", 2, (const uint8_t *)"q", 1,
			 (const uint8_t *)"value", 5},
			{TX_DELETE_FAMILY, "cf", 2, NULL, 0, NULL, 0}};
	tx_lock in = {.state = TX_PREWRITTEN,
		      .commit_ts = 100,
		      .version = 100,
		      .txn_id = 0x0102030405060708ull,
		      .expiry_ms = 5100,
		      .primary = true,
		      .prev_commit_ts = 40,
		      .prev_version = 42,
		      .nsecondaries = 2,
		      .nops = 2};
	CHECK_INT(lock_encode(&b, &in, secs, ops), SBX_OK);
	/* 20 header + 8 id + 8 expiry + 1 role + 16 prev + 4 count + 2 refs
	 * (2+1+2+2, 2+4+2+2) + 4 count + put (1+1+2+4+1+4+5) + delete family
	 * (1+1+2) + 4 crc */
	CHECK_INT(b.len, 20 + 8 + 8 + 1 + 16 + 4 + 7 + 10 + 4 + 18 + 4 + 4);
	CHECK_INT(lock_decode(&lk, b.data, b.len), SBX_OK);
	CHECK_INT(lk.state, TX_PREWRITTEN);
	CHECK(lk.txn_id == 0x0102030405060708ull);
	CHECK_INT(lk.expiry_ms, 5100);
	CHECK(lk.primary);
	CHECK_INT(lk.prev_commit_ts, 40);
	CHECK_INT(lk.prev_version, 42);
	CHECK_INT(lk.nsecondaries, 2);
	CHECK_INT(lk.nops, 2);
	const uint8_t *at = lk.secondaries_at;
	tx_ref ref;
	lock_secondary(&lk, &at, &ref);
	CHECK_MEM(ref.table, ref.table_len, "t");
	lock_secondary(&lk, &at, &ref);
	CHECK_MEM(ref.table, ref.table_len, "ns:u");
	CHECK_MEM(ref.row, ref.row_len, "r3");
	at = lk.ops_at;
	tx_op op;
	lock_op(&lk, &at, &op);
	CHECK_INT(op.kind, TX_PUT);
	CHECK_MEM(op.value, op.value_len, "value");
	lock_op(&lk, &at, &op);
	CHECK_INT(op.kind, TX_DELETE_FAMILY);

	sbx_buf c = {0};
	CHECK_INT(lock_with_state(&c, b.data, b.len, TX_COMMITTED, 101),
		  SBX_OK);
	CHECK_INT(lock_decode(&lk, c.data, c.len), SBX_OK);
	CHECK_INT(lk.state, TX_COMMITTED);
	CHECK_INT(lk.version, 101);

	/* one flipped bit anywhere is garbage, never a different lock */
	for (size_t i = 0; i < b.len; i++) {
		b.data[i] ^= 0x10;
		CHECK_INT(lock_decode(&lk, b.data, b.len), SBX_EBADVALUE);
		b.data[i] ^= 0x10;
	}
	CHECK_INT(lock_decode(&lk, (const uint8_t *)"hello", 5), SBX_EBADVALUE);
	CHECK(strstr(sbx_errmsg(), "not a Saltbox transaction lock") != NULL);
	CHECK_INT(lock_decode(&lk, NULL, 0), SBX_OK); /* absent = STABLE */
	CHECK_INT(lk.state, TX_STABLE);
	sbx_buf_free(&b);
	sbx_buf_free(&c);
}

/* ---- API semantics ---------------------------------------------------------
 */

static void test_commit_and_read_own_writes(void)
{
	REQUIRE(setup("txn_commit"));
	CHECK_INT(put1(tb, "a", "cf", "x", SBX_LATEST_TIMESTAMP, "old"),
		  SBX_OK);
	sbx_txn *txn = begin();
	REQUIRE(txn);
	CHECK_STR(tget(txn, tb, "a"), "cf:x=old;");
	CHECK_STR(tget(txn, tb, "nope"), ""); /* a missing row: empty */
	CHECK_INT(tput(txn, tb, "a", "x", "new"), SBX_OK);
	CHECK_INT(tput(txn, tb, "a", "y", "1"), SBX_OK);
	CHECK_INT(tput(txn, tb, "b", "x", "2"), SBX_OK);
	CHECK_STR(tget(txn, tb, "a"), "cf:x=new;cf:y=1;");
	CHECK_STR(tget(txn, tb, "b"), "cf:x=2;");
	/* own writes carry SBX_LATEST_TIMESTAMP until commit */
	sbx_result *r;
	CHECK_INT(sbx_txn_get(&r, txn, tb, "b", 1, NULL), SBX_OK);
	CHECK(sbx_result_size(r) == 1 &&
	      sbx_result_cell(r, 0)->timestamp == SBX_LATEST_TIMESTAMP);
	sbx_result_free(r);
	/* nothing is visible outside before commit */
	CHECK_STR(plain(tb, "a"), "a/cf:x=old;");
	CHECK_STR(plain(tb, "b"), "");
	CHECK_INT(sbx_txn_commit(txn), SBX_OK);
	CHECK_STR(plain(tb, "a"), "a/cf:x=new;a/cf:y=1;");
	CHECK_STR(plain(tb, "b"), "b/cf:x=2;");
	CHECK_STR(locks("acct"), "");
	/* versions: the old value is still there below the new one */
	sbx_read_opts o;
	sbx_read_opts_init(&o);
	o.max_versions = 3;
	sbx_column col = {"cf", "x", 1};
	o.columns = &col;
	o.ncolumns = 1;
	CHECK_STR(get_str(tb, "a", &o, false), "a/cf:x=new;a/cf:x=old;");
	/* a gets through a transaction never shows the lock family */
	txn = begin();
	REQUIRE(txn);
	CHECK_STR(tget(txn, tb, "a"), "cf:x=new;cf:y=1;");
	CHECK_INT(sbx_txn_commit(txn), SBX_OK);
	teardown();
}

static void test_rollback_leaves_nothing(void)
{
	REQUIRE(setup("txn_rollback"));
	sbx_txn *txn = begin();
	REQUIRE(txn);
	CHECK_INT(tput(txn, tb, "a", "x", "1"), SBX_OK);
	CHECK_INT(tput(txn, tb, "b", "x", "1"), SBX_OK);
	sbx_txn_rollback(txn);
	sbx_txn_rollback(NULL);
	CHECK_STR(plain(tb, "a"), "");
	CHECK_STR(get_str(tb, "a", NULL, false), ""); /* no lock either */
	CHECK_STR(locks("acct"), "");
	teardown();
}

static void test_deletes_increments_appends(void)
{
	REQUIRE(setup("txn_ops"));
	CHECK_INT(put1(tb, "a", "cf", "x", SBX_LATEST_TIMESTAMP, "1"), SBX_OK);
	CHECK_INT(put1(tb, "a", "cf", "y", SBX_LATEST_TIMESTAMP, "2"), SBX_OK);
	CHECK_INT(put1(tb, "b", "cf", "x", SBX_LATEST_TIMESTAMP, "3"), SBX_OK);
	sbx_txn *txn = begin();
	REQUIRE(txn);
	CHECK_INT(tdel(txn, tb, "a", "x"), SBX_OK);
	CHECK_INT(tput(txn, tb, "a", "z", "new"), SBX_OK);
	CHECK_STR(tget(txn, tb, "a"), "cf:y=2;cf:z=new;");
	/* put, then delete: the delete wins; delete, then put: the put */
	CHECK_INT(tput(txn, tb, "a", "w", "gone"), SBX_OK);
	CHECK_INT(tdel(txn, tb, "a", "w"), SBX_OK);
	CHECK_INT(tdel(txn, tb, "a", "y"), SBX_OK);
	CHECK_INT(tput(txn, tb, "a", "y", "back"), SBX_OK);
	CHECK_STR(tget(txn, tb, "a"), "cf:y=back;cf:z=new;");
	CHECK_INT(tdel(txn, tb, "b", NULL), SBX_OK); /* whole row */
	CHECK_STR(tget(txn, tb, "b"), "");
	sbx_mutation *m;
	REQUIRE(sbx_mutation_new(&m, "c", 1) == SBX_OK);
	CHECK_INT(sbx_mutation_increment(m, "cf", "n", 1, 5), SBX_OK);
	CHECK_INT(sbx_mutation_increment(m, "cf", "n", 1, 2), SBX_OK);
	CHECK_INT(sbx_mutation_append(m, "cf", "s", 1, "ab", 2), SBX_OK);
	CHECK_INT(sbx_mutation_append(m, "cf", "s", 1, "cd", 2), SBX_OK);
	CHECK_INT(sbx_txn_mutate(txn, tb, m), SBX_OK);
	sbx_mutation_free(m);
	CHECK_STR(tget(txn, tb, "c"),
		  "cf:n=\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x07;cf:s=abcd;");
	CHECK_INT(sbx_txn_commit(txn), SBX_OK);
	CHECK_STR(plain(tb, "a"), "a/cf:y=back;a/cf:z=new;");
	CHECK_STR(plain(tb, "b"), "");
	CHECK_STR(
	    plain(tb, "c"),
	    "c/cf:n=\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x07;c/cf:s=abcd;");
	/* an increment of something that is not a counter changes nothing */
	txn = begin();
	REQUIRE(txn);
	REQUIRE(sbx_mutation_new(&m, "c", 1) == SBX_OK);
	CHECK_INT(
	    sbx_mutation_put(m, "cf", "t", 1, SBX_LATEST_TIMESTAMP, "x", 1),
	    SBX_OK);
	CHECK_INT(sbx_mutation_increment(m, "cf", "s", 1, 1), SBX_OK);
	CHECK_INT(sbx_txn_mutate(txn, tb, m), SBX_EBADVALUE);
	sbx_mutation_free(m);
	CHECK_STR(tget(txn, tb, "c"),
		  "cf:n=\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x07;cf:s=abcd;");
	sbx_txn_rollback(txn);
	teardown();
}

static void test_write_write_conflict(void)
{
	REQUIRE(setup("txn_ww"));
	CHECK_INT(put1(tb, "x", "cf", "v", SBX_LATEST_TIMESTAMP, "0"), SBX_OK);
	sbx_txn *t1 = begin(), *t2 = begin();
	REQUIRE(t1 && t2);
	CHECK_STR(tget(t1, tb, "x"), "cf:v=0;");
	CHECK_STR(tget(t2, tb, "x"), "cf:v=0;");
	CHECK_INT(tput(t1, tb, "x", "v", "1"), SBX_OK);
	CHECK_INT(tput(t2, tb, "x", "v", "2"), SBX_OK);
	CHECK_INT(sbx_txn_commit(t1), SBX_OK);
	CHECK_INT(sbx_txn_commit(t2), SBX_ECONFLICT);
	CHECK(strstr(sbx_errmsg(), "row 'x' of table 'acct'") != NULL);
	CHECK_STR(plain(tb, "x"), "x/cf:v=1;");
	/* two rows: the second transaction loses and leaves nothing */
	t1 = begin();
	t2 = begin();
	REQUIRE(t1 && t2);
	CHECK_STR(tget(t2, tb, "x"), "cf:v=1;");
	CHECK_INT(tput(t2, tb, "a", "v", "t2"), SBX_OK);
	CHECK_INT(tput(t2, tb, "x", "v", "t2"), SBX_OK);
	CHECK_INT(tput(t1, tb, "x", "v", "t1"), SBX_OK); /* blind */
	CHECK_INT(sbx_txn_commit(t1), SBX_OK);
	CHECK_INT(sbx_txn_commit(t2), SBX_ECONFLICT);
	CHECK_STR(plain(tb, "a"), "");
	CHECK_STR(plain(tb, "x"), "x/cf:v=t1;");
	CHECK_STR(locks("acct"), "");
	teardown();
}

static void test_write_skew_prevented(void)
{
	REQUIRE(setup("txn_skew"));
	/* two doctors on call; each transaction takes one off if the other
	 * is still on: run together, one must fail */
	CHECK_INT(put1(tb, "alice", "cf", "on", SBX_LATEST_TIMESTAMP, "1"),
		  SBX_OK);
	CHECK_INT(put1(tb, "bob", "cf", "on", SBX_LATEST_TIMESTAMP, "1"),
		  SBX_OK);
	sbx_txn *t1 = begin(), *t2 = begin();
	REQUIRE(t1 && t2);
	CHECK_STR(tget(t1, tb, "alice"), "cf:on=1;");
	CHECK_STR(tget(t1, tb, "bob"), "cf:on=1;");
	CHECK_STR(tget(t2, tb, "alice"), "cf:on=1;");
	CHECK_STR(tget(t2, tb, "bob"), "cf:on=1;");
	CHECK_INT(tput(t1, tb, "alice", "on", "0"), SBX_OK);
	CHECK_INT(tput(t2, tb, "bob", "on", "0"), SBX_OK);
	CHECK_INT(sbx_txn_commit(t1), SBX_OK);
	CHECK_INT(sbx_txn_commit(t2), SBX_ECONFLICT);
	CHECK_STR(plain(tb, "alice"), "alice/cf:on=0;");
	CHECK_STR(plain(tb, "bob"), "bob/cf:on=1;");
	teardown();
}

static void test_read_only_validation(void)
{
	REQUIRE(setup("txn_ro"));
	CHECK_INT(put1(tb, "x", "cf", "v", SBX_LATEST_TIMESTAMP, "1"), SBX_OK);
	CHECK_INT(put1(tb, "y", "cf", "v", SBX_LATEST_TIMESTAMP, "1"), SBX_OK);
	sbx_txn *ro = begin(), *w = begin();
	REQUIRE(ro && w);
	CHECK_STR(tget(ro, tb, "x"), "cf:v=1;");
	CHECK_INT(tput(w, tb, "x", "v", "2"), SBX_OK);
	CHECK_INT(tput(w, tb, "y", "v", "2"), SBX_OK);
	CHECK_INT(sbx_txn_commit(w), SBX_OK);
	/* ro saw x before and would see y after: it cannot commit */
	CHECK_STR(tget(ro, tb, "y"), "cf:v=2;");
	CHECK_INT(sbx_txn_commit(ro), SBX_ECONFLICT);
	/* rereading a row that changed fails at once */
	ro = begin();
	w = begin();
	REQUIRE(ro && w);
	CHECK_STR(tget(ro, tb, "x"), "cf:v=2;");
	CHECK_INT(tput(w, tb, "x", "v", "3"), SBX_OK);
	CHECK_INT(sbx_txn_commit(w), SBX_OK);
	CHECK_STR(tget(ro, tb, "x"), "ERR SBX_ECONFLICT");
	sbx_txn_rollback(ro);
	/* a read-only transaction of one row always commits */
	ro = begin();
	REQUIRE(ro);
	CHECK_STR(tget(ro, tb, "x"), "cf:v=3;");
	CHECK_INT(sbx_txn_commit(ro), SBX_OK);
	teardown();
}

/* ---- concurrency: lost updates
 * ------------------------------------------------ */

#define COUNTER_THREADS 4
#define COUNTER_INCREMENTS 25

static int add_one(sbx_txn *txn, void *arg)
{
	sbx_table *t = arg;
	sbx_result *r;
	int rc = sbx_txn_get(&r, txn, t, "counter", 7, NULL);
	if (rc)
		return rc;
	const sbx_cell *c = sbx_result_get(r, "cf", "n", 1);
	char num[32] = "0";
	if (c && c->value_len < sizeof num) {
		memcpy(num, c->value, c->value_len);
		num[c->value_len] = 0;
	}
	long n = strtol(num, NULL, 10);
	sbx_result_free(r);
	char v[32];
	snprintf(v, sizeof v, "%ld", n + 1);
	return tput(txn, t, "counter", "n", v);
}

static void *counter_thread(void *arg)
{
	(void)arg;
	sbx_txn_options o = quick();
	long failed = 0;
	for (int i = 0; i < COUNTER_INCREMENTS; i++)
		failed += sbx_txn_run(NULL, db, &o, add_one, tb) != SBX_OK;
	return (void *)failed;
}

static void test_lost_update_counts_exactly(void)
{
	REQUIRE(setup("txn_counter"));
	pthread_t th[COUNTER_THREADS];
	for (int i = 0; i < COUNTER_THREADS; i++)
		REQUIRE(pthread_create(&th[i], NULL, counter_thread, NULL) ==
			0);
	long failed = 0;
	for (int i = 0; i < COUNTER_THREADS; i++) {
		void *f;
		pthread_join(th[i], &f);
		failed += (long)f;
	}
	CHECK_INT(failed, 0);
	CHECK_STR(plain(tb, "counter"), "counter/cf:n=100;");
	CHECK_STR(locks("acct"), "");
	teardown();
}

/* Both paths at once on one store: threads of the atomic path and of
 * the portable path in this process, and portable clients over REST (an
 * in-process `saltbox serve` on the same store), each adding one to a
 * shared counter and moving 1 between two of five accounts in each
 * transaction. The counter counts every commit exactly, the accounts keep
 * their total, and no lock is left. */
#define MIX_ACCOUNTS 5

typedef struct mixer {
	sbx_db *db;
	sbx_table *t;
	sbx_txn_path path;
	unsigned rng;
	long failed;
} mixer;

static int read_num(long *out, sbx_txn *txn, sbx_table *t, const char *row,
		    const char *q)
{
	sbx_result *r;
	int rc = sbx_txn_get(&r, txn, t, row, strlen(row), NULL);
	if (rc)
		return rc;
	const sbx_cell *c = sbx_result_get(r, "cf", q, strlen(q));
	char num[32] = "0";
	if (c && c->value_len < sizeof num) {
		memcpy(num, c->value, c->value_len);
		num[c->value_len] = 0;
	}
	*out = strtol(num, NULL, 10);
	sbx_result_free(r);
	return SBX_OK;
}

static int mix_fn(sbx_txn *txn, void *arg)
{
	mixer *m = arg;
	unsigned x = m->rng;
	int from = (int)(x % MIX_ACCOUNTS),
	    to = (from + 1 + (int)(x / 7 % (MIX_ACCOUNTS - 1))) % MIX_ACCOUNTS;
	char kf[16], kt[16], v[32];
	snprintf(kf, sizeof kf, "acct%d", from);
	snprintf(kt, sizeof kt, "acct%d", to);
	long n, a, b;
	int rc = read_num(&n, txn, m->t, "counter", "n");
	rc = rc ? rc : read_num(&a, txn, m->t, kf, "v");
	rc = rc ? rc : read_num(&b, txn, m->t, kt, "v");
	if (rc)
		return rc;
	snprintf(v, sizeof v, "%ld", n + 1);
	rc = tput(txn, m->t, "counter", "n", v);
	snprintf(v, sizeof v, "%ld", a - 1);
	rc = rc ? rc : tput(txn, m->t, kf, "v", v);
	snprintf(v, sizeof v, "%ld", b + 1);
	return rc ? rc : tput(txn, m->t, kt, "v", v);
}

static void *mix_thread(void *arg)
{
	mixer *m = arg;
	sbx_txn_options o = quick();
	o.path = m->path;
	for (int i = 0; i < COUNTER_INCREMENTS; i++) {
		m->rng = m->rng * 1103515245u + 12345u;
		m->rng >>= 1;
		if (sbx_txn_run(NULL, m->db, &o, mix_fn, m) != SBX_OK) {
			fprintf(stderr, "mix: %s\n", sbx_errmsg());
			m->failed++;
		}
	}
	return NULL;
}

static void test_mixed_paths(void)
{
	SKIP_ON_REMOTE("serves its own store over REST");
	SKIP_ON_BIGTABLE("needs the embedded store's atomic path");
	REQUIRE(setup("txn_mixed"));
	for (int i = 0; i < MIX_ACCOUNTS; i++) {
		char k[16];
		snprintf(k, sizeof k, "acct%d", i);
		REQUIRE(put1(tb, k, "cf", "v", SBX_LATEST_TIMESTAMP, "100") ==
			SBX_OK);
	}
	sbx_server_opts so;
	sbx_server_opts_init(&so);
	so.port = 0;
	so.threads = 4;
	sbx_server *srv = NULL;
	REQUIRE(sbx_server_start(&srv, db, &so) == SBX_OK);
	char url[64];
	snprintf(url, sizeof url, "http://127.0.0.1:%d", sbx_server_port(srv));
	sbx_db *rdb = NULL;
	sbx_table *rt = NULL;
	if (sbx_db_connect(&rdb, url) || sbx_table_open(&rt, rdb, "acct")) {
		CHECK(!"connect");
		sbx_db_close(rdb);
		sbx_server_stop(srv, 1000);
		teardown();
		return;
	}
	mixer m[5] = {
	    {db, tb, SBX_TXN_PATH_ATOMIC, 1, 0},
	    {db, tb, SBX_TXN_PATH_ATOMIC, 2, 0},
	    {db, tb, SBX_TXN_PATH_PORTABLE, 3, 0},
	    {db, tb, SBX_TXN_PATH_PORTABLE, 4, 0},
	    {rdb, rt, SBX_TXN_PATH_AUTO, 5, 0}, /* portable over REST */
	};
	pthread_t th[5];
	for (int i = 0; i < 5; i++)
		REQUIRE(pthread_create(&th[i], NULL, mix_thread, &m[i]) == 0);
	long failed = 0;
	for (int i = 0; i < 5; i++) {
		pthread_join(th[i], NULL);
		failed += m[i].failed;
	}
	sbx_table_close(rt);
	sbx_db_close(rdb);
	sbx_server_stop(srv, 1000);
	CHECK_INT(failed, 0);
	char want[64];
	snprintf(want, sizeof want, "counter/cf:n=%d;", 5 * COUNTER_INCREMENTS);
	CHECK_STR(plain(tb, "counter"), want);
	long sum = 0;
	for (int i = 0; i < MIX_ACCOUNTS; i++) {
		char k[16];
		snprintf(k, sizeof k, "acct%d", i);
		const char *s = plain(tb, k);
		const char *eq = strchr(s, '=');
		sum += eq ? strtol(eq + 1, NULL, 10) : -1000;
	}
	CHECK_INT(sum, 100 * MIX_ACCOUNTS);
	CHECK_STR(locks("acct"), "");
	teardown();
}

/* ---- scans
 * -------------------------------------------------------------------- */

static const char *tscan(sbx_txn *txn, sbx_table *t, const sbx_scan_opts *o)
{
	static char buf[4096];
	buf[0] = 0;
	sbx_scanner *s;
	int rc = sbx_txn_scanner_open(&s, txn, t, o);
	if (rc) {
		snprintf(buf, sizeof buf, "ERR %s", sbx_strerror(rc));
		return buf;
	}
	sbx_result *r;
	while ((rc = sbx_scanner_next(s, &r)) == SBX_OK) {
		for (size_t i = 0; i < sbx_result_size(r); i++) {
			const sbx_cell *c = sbx_result_cell(r, i);
			size_t o = strlen(buf);
			snprintf(buf + o, sizeof buf - o, "%.*s/%.*s=%.*s;",
				 (int)c->row_len, (const char *)c->row,
				 (int)c->qualifier_len,
				 (const char *)c->qualifier, (int)c->value_len,
				 (const char *)c->value);
		}
		strcat(buf, "|");
		sbx_result_free(r);
	}
	if (rc != SBX_ITEROVER)
		snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "ERR %s",
			 sbx_strerror(rc));
	sbx_scanner_close(s);
	return buf;
}

static void test_scan_merges_own_writes(void)
{
	REQUIRE(setup("txn_scan"));
	CHECK_INT(put1(tb, "b", "cf", "v", SBX_LATEST_TIMESTAMP, "b0"), SBX_OK);
	CHECK_INT(put1(tb, "d", "cf", "v", SBX_LATEST_TIMESTAMP, "d0"), SBX_OK);
	CHECK_INT(put1(tb, "f", "cf", "v", SBX_LATEST_TIMESTAMP, "f0"), SBX_OK);
	sbx_txn *txn = begin();
	REQUIRE(txn);
	CHECK_INT(tput(txn, tb, "a", "v", "a1"), SBX_OK);
	CHECK_INT(tput(txn, tb, "d", "w", "d1"), SBX_OK);
	CHECK_INT(tdel(txn, tb, "f", NULL), SBX_OK);
	CHECK_INT(tput(txn, tb, "e", "v", "e1"), SBX_OK);
	CHECK_STR(tscan(txn, tb, NULL),
		  "a/v=a1;|b/v=b0;|d/v=d0;d/w=d1;|e/v=e1;|");
	sbx_scan_opts o;
	sbx_scan_opts_init(&o);
	o.reversed = true;
	o.limit = 3;
	CHECK_STR(tscan(txn, tb, &o), "e/v=e1;|d/v=d0;d/w=d1;|b/v=b0;|");
	sbx_scan_opts_init(&o);
	o.start_row = "b";
	o.start_row_len = 1;
	o.stop_row = "e";
	o.stop_row_len = 1;
	sbx_column col = {"cf", "w", 1};
	o.read.columns = &col;
	o.read.ncolumns = 1;
	CHECK_STR(tscan(txn, tb, &o), "d/w=d1;|");
	/* a filter over rows this transaction wrote is refused */
	sbx_filter *f;
	REQUIRE(sbx_filter_parse(&f, "PrefixFilter('d')", 17, NULL) == SBX_OK);
	sbx_scan_opts_init(&o);
	o.read.filter = f;
	CHECK_STR(tscan(txn, tb, &o), "ERR SBX_EUNSUPPORTED");
	o.batch = 1;
	o.read.filter = NULL;
	CHECK_STR(tscan(txn, tb, &o), "ERR SBX_EINVAL");
	/* a scanner still open blocks the commit (and frees the txn) */
	sbx_scanner *s;
	REQUIRE(sbx_txn_scanner_open(&s, txn, tb, NULL) == SBX_OK);
	sbx_txn *other = begin();
	REQUIRE(other);
	CHECK_INT(sbx_txn_commit(other), SBX_OK);
	sbx_scanner_close(s);
	CHECK_INT(sbx_txn_commit(txn), SBX_OK);
	CHECK_STR(plain(tb, "f"), "");
	CHECK_STR(plain(tb, "e"), "e/cf:v=e1;");
	/* a filtered scan with nothing written */
	txn = begin();
	REQUIRE(txn);
	sbx_scan_opts_init(&o);
	o.read.filter = f;
	CHECK_STR(tscan(txn, tb, &o), "d/v=d0;d/w=d1;|");
	CHECK_INT(sbx_txn_commit(txn), SBX_OK);
	sbx_filter_free(f);
	txn = begin();
	REQUIRE(sbx_txn_scanner_open(&s, txn, tb, NULL) == SBX_OK);
	CHECK_INT(sbx_txn_commit(txn), SBX_EINVAL);
	sbx_scanner_close(s);
	teardown();
}

static void test_scan_phantoms(void)
{
	REQUIRE(setup("txn_phantom"));
	CHECK_INT(put1(tb, "item1", "cf", "v", SBX_LATEST_TIMESTAMP, "1"),
		  SBX_OK);
	CHECK_INT(put1(tb, "item3", "cf", "v", SBX_LATEST_TIMESTAMP, "1"),
		  SBX_OK);
	/* T1 counts items and records the count; T2 inserts an item in
	 * between. Conflict-serializability covers rows read, not the range:
	 * T1 commits with a count that is already stale (a phantom). */
	sbx_scan_opts o;
	sbx_scan_opts_init(&o);
	uint8_t stop[8];
	sbx_scan_opts_set_prefix(&o, "item", 4, stop);
	sbx_txn *t1 = begin(), *t2 = begin();
	REQUIRE(t1 && t2);
	CHECK_STR(tscan(t1, tb, &o), "item1/v=1;|item3/v=1;|");
	CHECK_INT(tput(t2, tb, "item2", "v", "1"), SBX_OK);
	CHECK_INT(sbx_txn_commit(t2), SBX_OK);
	CHECK_INT(tput(t1, tb, "count", "n", "2"), SBX_OK);
	CHECK_INT(sbx_txn_commit(t1), SBX_OK); /* the phantom */
	/* a row the scan returned is protected like a row read by get */
	t1 = begin();
	t2 = begin();
	REQUIRE(t1 && t2);
	CHECK_STR(tscan(t1, tb, &o), "item1/v=1;|item2/v=1;|item3/v=1;|");
	CHECK_INT(tput(t2, tb, "item3", "v", "0"), SBX_OK);
	CHECK_INT(sbx_txn_commit(t2), SBX_OK);
	CHECK_INT(tput(t1, tb, "count", "n", "3"), SBX_OK);
	CHECK_INT(sbx_txn_commit(t1), SBX_ECONFLICT);
	CHECK_STR(plain(tb, "count"), "count/cf:n=2;");
	teardown();
}

/* Rows whose data transactions deleted keep a settled lock cell; a scan in a
 * transaction skips them without touching them, so many deleted rows do
 * not push a scan over SBX_TXN_MAX_ROWS (found by test_ds_kill: index
 * tables collect such rows). */
static void test_scan_skips_deleted_rows(void)
{
	REQUIRE(setup("txn_deleted"));
	const int n = SBX_TXN_MAX_ROWS + 100, per = 200;
	char row[16];
	for (int pass = 0; pass < 2; pass++) /* write, then delete them all */
		for (int i = 0; i < n; i += per) {
			sbx_txn *txn = begin();
			REQUIRE(txn);
			for (int j = i; j < i + per && j < n; j++) {
				snprintf(row, sizeof row, "d%05d", j);
				CHECK_INT(pass ? tdel(txn, tb, row, NULL)
					       : tput(txn, tb, row, "v", "1"),
					  SBX_OK);
			}
			CHECK_INT(sbx_txn_commit(txn), SBX_OK);
		}
	CHECK_INT(put1(tb, "e", "cf", "v", SBX_LATEST_TIMESTAMP, "1"), SBX_OK);
	sbx_txn *txn = begin();
	REQUIRE(txn);
	sbx_scan_opts o;
	sbx_scan_opts_init(&o);
	CHECK_STR(tscan(txn, tb, &o), "e/v=1;|");
	CHECK_INT(sbx_txn_commit(txn), SBX_OK);
	teardown();
}

/* ---- bad input
 * --------------------------------------------------------------- */

static void test_bad_input(void)
{
	REQUIRE(setup("txn_bad"));
	sbx_family_desc f;
	sbx_family_desc_init(&f, "cf");
	REQUIRE(sbx_table_create(db, "plain", &f, 1) == SBX_OK);
	sbx_table *pl;
	REQUIRE(sbx_table_open(&pl, db, "plain") == SBX_OK);
	sbx_txn *txn = begin();
	REQUIRE(txn);
	/* a table without the lock family */
	CHECK_STR(tget(txn, pl, "a"), "ERR SBX_ENOFAMILY");
	CHECK_INT(tput(txn, pl, "a", "x", "1"), SBX_ENOFAMILY);
	CHECK(strstr(sbx_errmsg(), "sbx_txn_prepare_table") != NULL);
	CHECK_INT(sbx_txn_prepare_table(db, "plain"), SBX_OK);
	CHECK_INT(sbx_txn_prepare_table(db, "plain"), SBX_OK);
	CHECK_INT(sbx_txn_prepare_table(db, "nosuch"), SBX_ENOTFOUND);
	sbx_txn_rollback(txn);
	txn = begin();
	REQUIRE(txn);
	CHECK_INT(tput(txn, pl, "a", "x", "1"), SBX_OK);
	/* what a transaction refuses, and nothing of it is buffered */
	sbx_mutation *m;
	REQUIRE(sbx_mutation_new(&m, "b", 1) == SBX_OK);
	CHECK_INT(
	    sbx_mutation_put(m, "cf", "x", 1, SBX_LATEST_TIMESTAMP, "1", 1),
	    SBX_OK);
	CHECK_INT(sbx_mutation_put(m, "cf", "y", 1, 42, "1", 1), SBX_OK);
	CHECK_INT(sbx_txn_mutate(txn, tb, m), SBX_EINVAL);
	sbx_mutation_free(m);
	REQUIRE(sbx_mutation_new(&m, "b", 1) == SBX_OK);
	CHECK_INT(sbx_mutation_delete(m, SBX_CELL_DELETE, "cf", "x", 1,
				      SBX_LATEST_TIMESTAMP),
		  SBX_OK);
	CHECK_INT(sbx_txn_mutate(txn, tb, m), SBX_EUNSUPPORTED);
	sbx_mutation_free(m);
	REQUIRE(sbx_mutation_new(&m, "b", 1) == SBX_OK);
	CHECK_INT(sbx_mutation_put(m, SBX_TXN_LOCK_FAMILY, "lock", 4,
				   SBX_LATEST_TIMESTAMP, "x", 1),
		  SBX_OK);
	CHECK_INT(sbx_txn_mutate(txn, tb, m), SBX_EINVAL);
	sbx_mutation_free(m);
	REQUIRE(sbx_mutation_new(&m, "b", 1) == SBX_OK);
	CHECK_INT(
	    sbx_mutation_put(m, "nofam", "x", 1, SBX_LATEST_TIMESTAMP, "1", 1),
	    SBX_OK);
	CHECK_INT(sbx_txn_mutate(txn, tb, m), SBX_ENOFAMILY);
	sbx_mutation_free(m);
	CHECK_STR(tget(txn, tb, "b"), "");
	sbx_result *r;
	CHECK_INT(sbx_txn_get(&r, txn, tb, "", 0, NULL), SBX_EINVAL);
	sbx_read_opts ro;
	sbx_read_opts_init(&ro);
	ro.raw = true;
	CHECK_INT(sbx_txn_get(&r, txn, tb, "b", 1, &ro), SBX_EINVAL);
	CHECK_INT(sbx_txn_mutate(txn, tb, NULL), SBX_EINVAL);
	CHECK_INT(sbx_txn_commit(txn), SBX_OK);
	CHECK_STR(plain(pl, "a"), "a/cf:x=1;");
	CHECK_STR(plain(tb, "b"), "");
	CHECK_INT(sbx_txn_commit(NULL), SBX_EINVAL);
	sbx_txn_options o = quick();
	o.lock_timeout_ms = 0;
	CHECK_INT(sbx_txn_begin_with(&txn, db, &o), SBX_EINVAL);

	/* more rows than the cap */
	txn = begin();
	REQUIRE(txn);
	int rc = SBX_OK;
	for (int i = 0; i <= SBX_TXN_MAX_ROWS && rc == SBX_OK; i++) {
		char row[16];
		snprintf(row, sizeof row, "r%05d", i);
		rc = tput(txn, tb, row, "x", "1");
		if (rc == SBX_OK)
			CHECK(i < SBX_TXN_MAX_ROWS);
	}
	CHECK_INT(rc, SBX_ETOOLARGE);
	CHECK(strstr(sbx_errmsg(), "1024") != NULL);
	sbx_txn_rollback(txn);
	CHECK_STR(plain(tb, "r00000"), "");
	sbx_table_close(pl);
	teardown();
}

/* The table a transaction writes is dropped before it commits: the
 * commit fails and the other table's row is left as it was. */
static void test_table_gone_mid_transaction(void)
{
	REQUIRE(setup("txn_gone"));
	REQUIRE(make_txn_table("zeta") == SBX_OK);
	sbx_table *z;
	REQUIRE(sbx_table_open(&z, db, "zeta") == SBX_OK);
	CHECK_INT(put1(tb, "a", "cf", "v", SBX_LATEST_TIMESTAMP, "0"), SBX_OK);
	sbx_txn *txn = begin();
	REQUIRE(txn);
	CHECK_INT(tput(txn, tb, "a", "v", "1"), SBX_OK);
	CHECK_INT(tput(txn, z, "a", "v", "1"), SBX_OK);
	if (!test_client()) /* the clients drop without a disable */
		CHECK_INT(sbx_table_disable(db, "zeta"), SBX_OK);
	CHECK_INT(sbx_table_drop(db, "zeta"), SBX_OK);
	int rc = sbx_txn_commit(txn);
	CHECK(rc == SBX_ENOTFOUND || rc == SBX_EDISABLED);
	CHECK(strstr(sbx_errmsg(), "zeta") != NULL);
	CHECK_STR(plain(tb, "a"), "a/cf:v=0;");
	CHECK_STR(locks("acct"), "");
	sbx_table_close(z);
	teardown();
}

static void test_garbage_lock(void)
{
	REQUIRE(setup("txn_garbage"));
	CHECK_INT(put1(tb, "g", "cf", "v", SBX_LATEST_TIMESTAMP, "0"), SBX_OK);
	CHECK_INT(put1(tb, "g", SBX_TXN_LOCK_FAMILY, "lock",
		       SBX_LATEST_TIMESTAMP, "garbage!"),
		  SBX_OK);
	sbx_txn *txn = begin();
	REQUIRE(txn);
	CHECK_STR(tget(txn, tb, "g"), "ERR SBX_EBADVALUE");
	CHECK(strstr(sbx_errmsg(), "row 'g' of table 'acct'") != NULL);
	CHECK(strstr(sbx_errmsg(), "not a Saltbox transaction lock") != NULL);
	sbx_txn_rollback(txn);
	txn = begin();
	REQUIRE(txn);
	CHECK_INT(tput(txn, tb, "a", "v", "1"), SBX_OK);
	CHECK_INT(tput(txn, tb, "g", "v", "1"), SBX_OK);
	CHECK_INT(sbx_txn_commit(txn), SBX_EBADVALUE);
	CHECK_STR(plain(tb, "a"), ""); /* nothing half-applied */
	CHECK_STR(plain(tb, "g"), "g/cf:v=0;");
	CHECK_STR(locks("acct"), "g:GARBAGE;");
	sbx_txn_resolution how;
	CHECK_INT(sbx_txn_resolve(&how, db, "acct", "g", 1, NULL),
		  SBX_EBADVALUE);
	sbx_txn_options o = quick();
	o.reset_garbage_locks = true;
	CHECK_INT(sbx_txn_resolve(&how, db, "acct", "g", 1, &o), SBX_OK);
	CHECK_INT(how, SBX_TXN_RESET);
	CHECK_STR(locks("acct"), "");
	txn = begin();
	REQUIRE(txn);
	CHECK_INT(tput(txn, tb, "g", "v", "1"), SBX_OK);
	CHECK_INT(sbx_txn_commit(txn), SBX_OK);
	CHECK_STR(plain(tb, "g"), "g/cf:v=1;");
	teardown();
}

/* ---- faults and dead clients ------------------------------------------------
 */

typedef struct fault_plan {
	sbx_txn_step step; /* fail from this step on ... */
	bool forever;	   /* ... and every later one (a dead client) */
	bool hit;
} fault_plan;

static int fault_at(void *arg, sbx_txn_step step, size_t row)
{
	(void)row;
	fault_plan *f = arg;
	if (step == f->step || (f->forever && f->hit)) {
		f->hit = true;
		return SBX_EIO;
	}
	return SBX_OK;
}

/* A transfer a, b (and a blind write of c) by a client of the portable
 * path (atomic: the atomic path) that fails as f says. */
static int transfer_with_fault_on(fault_plan *f, sbx_txn_path path)
{
	sbx_txn_options o = quick();
	o.path = path;
	o.fault = fault_at;
	o.fault_arg = f;
	sbx_txn *txn;
	if (sbx_txn_begin_with(&txn, db, &o))
		return -1;
	tget(txn, tb, "a");
	tget(txn, tb, "b");
	tput(txn, tb, "a", "v", "90");
	tput(txn, tb, "b", "v", "110");
	tput(txn, tb, "c", "v", "x");
	return sbx_txn_commit(txn);
}

static int transfer_with_fault(fault_plan *f)
{
	return transfer_with_fault_on(f, SBX_TXN_PATH_PORTABLE);
}

static void seed_ab(void)
{
	CHECK_INT(put1(tb, "a", "cf", "v", SBX_LATEST_TIMESTAMP, "100"),
		  SBX_OK);
	CHECK_INT(put1(tb, "b", "cf", "v", SBX_LATEST_TIMESTAMP, "100"),
		  SBX_OK);
}

static void test_fault_before_commit_point(void)
{
	static const sbx_txn_step steps[] = {SBX_TXN_STEP_PREWRITE_PRIMARY,
					     SBX_TXN_STEP_PREWRITE_SECONDARY,
					     SBX_TXN_STEP_COMMIT_PRIMARY};
	REQUIRE(setup("txn_fault_before"));
	seed_ab();
	for (size_t i = 0; i < sizeof steps / sizeof *steps; i++) {
		fault_plan f = {steps[i], false, false};
		CHECK_INT(transfer_with_fault(&f), SBX_EIO);
		CHECK(strstr(sbx_errmsg(), "injected fault") != NULL);
		CHECK(f.hit);
		CHECK_STR(plain(tb, "a"), "a/cf:v=100;");
		CHECK_STR(plain(tb, "b"), "b/cf:v=100;");
		CHECK_STR(plain(tb, "c"), "");
		CHECK_STR(locks("acct"), ""); /* rolled back */
	}
	teardown();
}

static void test_fault_after_commit_point(void)
{
	REQUIRE(setup("txn_fault_after"));
	seed_ab();
	/* the client stops right after the commit point: committed, and the
	 * next reader rolls it forward at once (no expiry needed) */
	fault_plan f = {SBX_TXN_STEP_APPLY_SECONDARY, true, false};
	CHECK_INT(transfer_with_fault(&f), SBX_OK);
	CHECK_STR(locks("acct"),
		  "a:COMMITTED(primary);b:PREWRITTEN;c:PREWRITTEN;");
	CHECK_STR(plain(tb, "b"), "b/cf:v=100;");
	sbx_txn *txn = begin();
	REQUIRE(txn);
	CHECK_STR(tget(txn, tb, "b"), "cf:v=110;");
	CHECK_INT(sbx_txn_commit(txn), SBX_OK);
	CHECK_STR(locks("acct"), "a:COMMITTED(primary);c:PREWRITTEN;");
	size_t resolved, remaining;
	CHECK_INT(
	    sbx_txn_resolve_table(&resolved, &remaining, db, "acct", NULL),
	    SBX_OK);
	CHECK_INT(resolved, 2); /* a, and c rolled forward with it */
	CHECK_INT(remaining, 0);
	CHECK_STR(locks("acct"), "");
	CHECK_STR(plain(tb, "a"), "a/cf:v=90;");
	CHECK_STR(plain(tb, "c"), "c/cf:v=x;");
	teardown();
}

static void test_dead_client_rolled_back_after_expiry(void)
{
	REQUIRE(setup("txn_dead"));
	seed_ab();
	/* dies at the commit point: every row prewritten, nothing decided */
	fault_plan f = {SBX_TXN_STEP_COMMIT_PRIMARY, true, false};
	CHECK_INT(transfer_with_fault(&f), SBX_EIO);
	CHECK_STR(locks("acct"),
		  "a:PREWRITTEN(primary);b:PREWRITTEN;c:PREWRITTEN;");
	/* before expiry: others wait lock_wait_ms, then conflict */
	sbx_txn *txn = begin();
	REQUIRE(txn);
	CHECK_STR(tget(txn, tb, "b"), "ERR SBX_ECONFLICT");
	CHECK(strstr(sbx_errmsg(), "in progress") != NULL);
	sbx_txn_rollback(txn);
	size_t resolved, remaining;
	CHECK_INT(
	    sbx_txn_resolve_table(&resolved, &remaining, db, "acct", NULL),
	    SBX_OK);
	CHECK_INT(resolved, 0);
	CHECK_INT(remaining, 3);
	sleep_ms(LOCK_TIMEOUT_MS + 100);
	/* after: the reader of a secondary rolls the whole thing back */
	txn = begin();
	REQUIRE(txn);
	CHECK_STR(tget(txn, tb, "b"), "cf:v=100;");
	CHECK_INT(sbx_txn_commit(txn), SBX_OK);
	CHECK_STR(locks("acct"), "");
	CHECK_STR(plain(tb, "a"), "a/cf:v=100;");
	CHECK_STR(plain(tb, "c"), "");

	/* a dead client's single prewritten primary, resolved by the CLI's
	 * call; and sbx_txn_resolve on a clean row */
	f = (fault_plan){SBX_TXN_STEP_PREWRITE_SECONDARY, true, false};
	CHECK_INT(transfer_with_fault(&f), SBX_EIO);
	CHECK_STR(locks("acct"), "a:PREWRITTEN(primary);");
	sbx_txn_resolution how;
	CHECK_INT(sbx_txn_resolve(&how, db, "acct", "a", 1, NULL), SBX_OK);
	CHECK_INT(how, SBX_TXN_NOT_EXPIRED);
	sleep_ms(LOCK_TIMEOUT_MS + 100);
	CHECK_INT(sbx_txn_resolve(&how, db, "acct", "a", 1, NULL), SBX_OK);
	CHECK_INT(how, SBX_TXN_ROLLED_BACK);
	CHECK_INT(sbx_txn_resolve(&how, db, "acct", "a", 1, NULL), SBX_OK);
	CHECK_INT(how, SBX_TXN_UNLOCKED);
	CHECK_STR(sbx_txn_resolution_name(SBX_TXN_ROLLED_FORWARD),
		  "rolled forward");
	CHECK_STR(plain(tb, "a"), "a/cf:v=100;");
	teardown();
}

/* The atomic path fails before its one write (a backend error, a client
 * killed there): nothing is visible and no lock is left - and where the
 * backend has no atomic call, SBX_TXN_PATH_ATOMIC commits nothing. */
static void test_fault_atomic_path(void)
{
	REQUIRE(setup("txn_fault_atomic"));
	seed_ab();
	if (test_client()) {
		fault_plan none = {0, false, false};
		CHECK_INT(transfer_with_fault_on(&none, SBX_TXN_PATH_ATOMIC),
			  SBX_EUNSUPPORTED);
		CHECK(strstr(sbx_errmsg(), "multi-row") != NULL);
	} else {
		static const sbx_txn_step steps[] = {SBX_TXN_STEP_LOCK_READ,
						     SBX_TXN_STEP_ATOMIC};
		for (size_t i = 0; i < sizeof steps / sizeof *steps; i++) {
			fault_plan f = {steps[i], false, false};
			CHECK_INT(
			    transfer_with_fault_on(&f, SBX_TXN_PATH_ATOMIC),
			    SBX_EIO);
			CHECK(f.hit);
		}
	}
	CHECK_STR(plain(tb, "a"), "a/cf:v=100;");
	CHECK_STR(plain(tb, "b"), "b/cf:v=100;");
	CHECK_STR(plain(tb, "c"), "");
	CHECK_STR(locks("acct"), "");
	/* and without a fault it commits (portable over REST under AUTO) */
	fault_plan none = {0, false, false};
	CHECK_INT(transfer_with_fault_on(&none, SBX_TXN_PATH_AUTO), SBX_OK);
	CHECK_STR(plain(tb, "a"), "a/cf:v=90;");
	CHECK_STR(plain(tb, "c"), "c/cf:v=x;");
	CHECK_STR(locks("acct"), "");
	/* under AUTO the embedded store takes the atomic path (no prewrite),
	 * REST the portable one (the same values again: nothing changes) */
	fault_plan pre = {SBX_TXN_STEP_PREWRITE_PRIMARY, false, false};
	CHECK_INT(transfer_with_fault_on(&pre, SBX_TXN_PATH_AUTO),
		  test_client() ? SBX_EIO : SBX_OK);
	CHECK(pre.hit == test_client());
	CHECK_STR(locks("acct"), "");
	CHECK_STR(plain(tb, "a"), "a/cf:v=90;");
	teardown();
}

/* A portable transaction prewrites a row; the atomic path's commit then
 * fails its check on that row (SBX_ECONFLICT), as a portable prewrite
 * would, and after the portable one commits, the atomic one's retry
 * reads its result: the two paths serialise on the lock cell. */
static void test_paths_see_each_other(void)
{
	if (!atomic_here()) {
		printf("  (skipped: needs the atomic path on the embedded "
		       "store)\n");
		return;
	}
	REQUIRE(setup("txn_paths_meet"));
	seed_ab();
	sbx_txn_options po = quick();
	po.path = SBX_TXN_PATH_PORTABLE;
	sbx_txn *portable = NULL, *atomic = begin();
	REQUIRE(atomic && sbx_txn_begin_with(&portable, db, &po) == SBX_OK);
	CHECK_STR(tget(atomic, tb, "a"), "cf:v=100;");
	CHECK_STR(tget(portable, tb, "a"), "cf:v=100;");
	CHECK_INT(tput(portable, tb, "a", "v", "1"), SBX_OK);
	CHECK_INT(tput(atomic, tb, "a", "v", "2"), SBX_OK);
	CHECK_INT(sbx_txn_commit(portable), SBX_OK);
	CHECK_INT(sbx_txn_commit(atomic), SBX_ECONFLICT);
	CHECK(strstr(sbx_errmsg(), "row 'a' of table 'acct'") != NULL);
	CHECK_STR(plain(tb, "a"), "a/cf:v=1;");
	/* the other way round: atomic first, the portable prewrite loses */
	atomic = begin();
	REQUIRE(atomic && sbx_txn_begin_with(&portable, db, &po) == SBX_OK);
	CHECK_STR(tget(portable, tb, "b"), "cf:v=100;");
	CHECK_STR(tget(atomic, tb, "b"), "cf:v=100;");
	CHECK_INT(tput(atomic, tb, "b", "v", "3"), SBX_OK);
	CHECK_INT(tput(portable, tb, "b", "v", "4"), SBX_OK);
	CHECK_INT(tput(portable, tb, "a", "v", "4"), SBX_OK);
	CHECK_INT(sbx_txn_commit(atomic), SBX_OK);
	CHECK_INT(sbx_txn_commit(portable), SBX_ECONFLICT);
	CHECK_STR(plain(tb, "a"), "a/cf:v=1;");
	CHECK_STR(plain(tb, "b"), "b/cf:v=3;");
	CHECK_STR(locks("acct"), "");
	/* a portable lock in progress: the atomic reader waits, then
	 * conflicts; once it expires, the atomic reader rolls it back */
	fault_plan f = {SBX_TXN_STEP_COMMIT_PRIMARY, true, false};
	CHECK_INT(transfer_with_fault(&f), SBX_EIO);
	atomic = begin();
	REQUIRE(atomic);
	CHECK_STR(tget(atomic, tb, "a"), "ERR SBX_ECONFLICT");
	sbx_txn_rollback(atomic);
	sleep_ms(LOCK_TIMEOUT_MS + 100);
	atomic = begin();
	REQUIRE(atomic);
	CHECK_STR(tget(atomic, tb, "a"), "cf:v=1;");
	CHECK_INT(tput(atomic, tb, "c", "v", "atomic"), SBX_OK);
	CHECK_INT(sbx_txn_commit(atomic), SBX_OK);
	CHECK_STR(plain(tb, "c"), "c/cf:v=atomic;");
	teardown();
}

/* Out of memory at each allocation of a transfer in turn (the allocation
 * seam, common/alloc.h): every failure is SBX_ENOMEM or comes after the
 * commit point, and once the locks left behind are resolved the transfer
 * is there exactly when commit said SBX_OK. A test clock makes the locks
 * expire at once. */
static int64_t fake_now;
static int64_t fake_clock(void)
{
	return fake_now;
}

static long balance(const char *row)
{
	const char *s = plain(tb, row); /* "a/cf:v=NNN;" */
	const char *eq = strchr(s, '=');
	return eq ? strtol(eq + 1, NULL, 10) : -1;
}

static void test_out_of_memory_everywhere(void)
{
	REQUIRE(setup("txn_oom"));
	seed_ab();
	fake_now = sbx_clock_now_ms() + 1000;
	sbx_clock_set(fake_clock);
	sbx_txn_options o = quick();
	long a = 100, transfers = 0, n;
	bool clean = false;
	for (n = 0; n < 5000 && !clean; n++) {
		sbx_alloc_fail_after(n);
		sbx_txn *txn = NULL;
		int rc = sbx_txn_begin_with(&txn, db, &o);
		char va[32], vb[32];
		snprintf(va, sizeof va, "%ld", a - 10);
		snprintf(vb, sizeof vb, "%ld", 200 - a + 10);
		if (rc == SBX_OK) {
			sbx_result *r = NULL;
			rc = sbx_txn_get(&r, txn, tb, "a", 1, NULL);
			sbx_result_free(r);
			rc = rc ? rc : tput(txn, tb, "a", "v", va);
			rc = rc ? rc : tput(txn, tb, "b", "v", vb);
			rc = rc ? rc : tdel(txn, tb, "c", "v");
			if (rc)
				sbx_txn_rollback(txn);
			else
				rc = sbx_txn_commit(txn);
		}
		long failed = sbx_alloc_failed();
		sbx_alloc_fail_after(-1);
		clean = rc == SBX_OK && failed == 0;
		if (rc != SBX_OK && rc != SBX_ENOMEM)
			fprintf(stderr, "n=%ld rc=%s %s\n", n, sbx_strerror(rc),
				sbx_errmsg());
		CHECK(rc == SBX_OK || rc == SBX_ENOMEM);
		fake_now += LOCK_TIMEOUT_MS + 1;
		size_t resolved, remaining;
		CHECK_INT(sbx_txn_resolve_table(&resolved, &remaining, db, "acct",
						NULL),
			  SBX_OK);
		CHECK_INT(remaining, 0);
		long now_a = balance("a");
		CHECK_INT(now_a + balance("b"), 200);
		if (rc == SBX_OK) {
			CHECK_INT(now_a, a - 10);
			transfers++;
		} else {
			CHECK_INT(now_a, a);
		}
		a = now_a;
	}
	sbx_clock_set(NULL);
	CHECK(clean);
	CHECK(n > 20); /* that many allocations failed, one by one */
	printf("out of memory at each of %ld allocations: %ld transfers "
	       "committed\n",
	       n - 1, transfers);
	CHECK_STR(locks("acct"), "");
	teardown();
}

/* ---- the retry helper and tables
 * ----------------------------------------------- */

static int conflict_twice(sbx_txn *txn, void *arg)
{
	int *calls = arg;
	if (++*calls <= 2)
		return SBX_ECONFLICT;
	return tput(txn, tb, "r", "v", "done");
}

static int fail_hard(sbx_txn *txn, void *arg)
{
	(void)arg;
	tput(txn, tb, "r", "v", "never");
	return SBX_EINVAL;
}

static void test_run_retries(void)
{
	REQUIRE(setup("txn_run"));
	int calls = 0, attempts = 0;
	sbx_txn_options o = quick();
	CHECK_INT(sbx_txn_run(&attempts, db, &o, conflict_twice, &calls),
		  SBX_OK);
	CHECK_INT(attempts, 3);
	CHECK_STR(plain(tb, "r"), "r/cf:v=done;");
	CHECK_INT(sbx_txn_run(&attempts, db, &o, fail_hard, NULL), SBX_EINVAL);
	CHECK_INT(attempts, 1);
	CHECK_STR(plain(tb, "r"), "r/cf:v=done;");
	calls = -1000000;
	o.retry_budget_ms = 30;
	CHECK_INT(sbx_txn_run(&attempts, db, &o, conflict_twice, &calls),
		  SBX_ECONFLICT);
	CHECK(attempts > 1);
	teardown();
}

static void test_two_tables(void)
{
	REQUIRE(setup("txn_tables"));
	REQUIRE(make_txn_table("ledger") == SBX_OK);
	sbx_table *ledger;
	REQUIRE(sbx_table_open(&ledger, db, "ledger") == SBX_OK);
	seed_ab();
	sbx_txn *txn = begin();
	REQUIRE(txn);
	CHECK_INT(tput(txn, tb, "a", "v", "70"), SBX_OK);
	CHECK_INT(tput(txn, ledger, "0001", "v", "a-30"), SBX_OK);
	CHECK_INT(sbx_txn_commit(txn), SBX_OK);
	CHECK_STR(plain(tb, "a"), "a/cf:v=70;");
	CHECK_STR(plain(ledger, "0001"), "0001/cf:v=a-30;");
	/* the same table under its full name is the same table */
	sbx_table *full;
	REQUIRE(sbx_table_open(&full, db, "default:acct") == SBX_OK);
	txn = begin();
	REQUIRE(txn);
	CHECK_INT(tput(txn, tb, "a", "v", "1"), SBX_OK);
	CHECK_INT(tput(txn, full, "a", "v", "2"), SBX_OK);
	CHECK_INT(sbx_txn_commit(txn), SBX_OK);
	CHECK_STR(plain(tb, "a"), "a/cf:v=2;");
	sbx_table_close(full);
	sbx_table_close(ledger);
	teardown();
}

/* A value written before the transaction began, with a timestamp ahead
 * of this client's clock (another machine's clock, or the embedded
 * store's row-stripe timestamps after a burst of writes to the row): a
 * blind put and a blind delete still win over it. Before commit read the
 * timestamps of the columns it writes, the put landed below it and
 * plain() kept answering 100 (as CI saw once after the out-of-memory
 * test's burst of writes to row "a"). */
static void test_blind_write_over_future_cell(void)
{
	REQUIRE(setup("txn_future"));
	int64_t ahead = sbx_clock_now_ms() + 60000;
	CHECK_INT(put1(tb, "a", "cf", "v", ahead, "100"), SBX_OK);
	CHECK_INT(put1(tb, "b", "cf", "v", ahead, "100"), SBX_OK);
	CHECK_INT(put1(tb, "c", "cf", "v", ahead, "100"), SBX_OK);
	sbx_txn *txn = begin(); /* one row, puts only: the fast path */
	REQUIRE(txn);
	CHECK_INT(tput(txn, tb, "a", "v", "70"), SBX_OK);
	CHECK_INT(sbx_txn_commit(txn), SBX_OK);
	CHECK_STR(plain(tb, "a"), "a/cf:v=70;");
	txn = begin(); /* two rows, puts only: the full protocol */
	REQUIRE(txn);
	CHECK_INT(tput(txn, tb, "b", "v", "130"), SBX_OK);
	CHECK_INT(tput(txn, tb, "d", "v", "1"), SBX_OK);
	CHECK_INT(sbx_txn_commit(txn), SBX_OK);
	CHECK_STR(plain(tb, "b"), "b/cf:v=130;");
	CHECK_STR(plain(tb, "d"), "d/cf:v=1;");
	txn = begin(); /* a delete */
	REQUIRE(txn);
	CHECK_INT(tdel(txn, tb, "c", "v"), SBX_OK);
	CHECK_INT(sbx_txn_commit(txn), SBX_OK);
	CHECK_STR(plain(tb, "c"), "");
	CHECK_STR(locks("acct"), "");
	teardown();
}

/* Random logs of puts, column deletes and row deletes over rows with
 * stored versions: what the transaction reads of its own row, and the row
 * after commit, are what a model says - the log applied in order (a put
 * replaces the column's own value; a delete drops the column's own value
 * and every stored version; a row delete every column), each column its
 * own value over its stored versions, newest first, three at most. The
 * log is normalized by sorting (txn.c); the model walks it in order. */
static void test_random_logs_match_model(void)
{
	REQUIRE(setup("txn_random_logs"));
	static const char *qs[] = {"a", "b", "c", "d"};
	enum { NQ = 4, ROUNDS = 40 };
	uint64_t seed = 12345;
#define RND(n) ((seed = seed * 6364136223846793005ull + 1442695040888963407ull), \
		(int)((seed >> 33) % (uint64_t)(n)))
	sbx_read_opts o;
	sbx_read_opts_init(&o);
	o.max_versions = 3;
	sbx_column col = {"cf", NULL, 0};
	o.columns = &col;
	o.ncolumns = 1;
	for (int round = 0; round < ROUNDS; round++) {
		char row[16], v[32];
		snprintf(row, sizeof row, "r%d", round);
		/* the model: stored versions (newest first) and own values */
		char base[NQ][3][32];
		int nbase[NQ] = {0};
		char own[NQ][32];
		bool has_own[NQ] = {false};
		for (int q = 0; q < NQ; q++) {
			int n = RND(4);
			for (int k = 0; k < n; k++) {
				snprintf(v, sizeof v, "s%d", k);
				CHECK_INT(put1(tb, row, "cf", qs[q], 10 + k, v),
					  SBX_OK);
			}
			for (int k = 0; k < n && k < 3; k++)
				snprintf(base[q][k], sizeof base[q][k], "s%d",
					 n - 1 - k);
			nbase[q] = n < 3 ? n : 3;
		}
		sbx_txn *txn = begin();
		REQUIRE(txn);
		int nops = 1 + RND(12);
		for (int k = 0; k < nops; k++) {
			int q = RND(NQ), what = RND(20);
			if (what < 12) {
				snprintf(v, sizeof v, "t%d", k);
				CHECK_INT(tput(txn, tb, row, qs[q], v), SBX_OK);
				snprintf(own[q], sizeof own[q], "%s", v);
				has_own[q] = true;
			} else if (what < 17) {
				CHECK_INT(tdel(txn, tb, row, qs[q]), SBX_OK);
				has_own[q] = false;
				nbase[q] = 0;
			} else {
				CHECK_INT(tdel(txn, tb, row, NULL), SBX_OK);
				for (int j = 0; j < NQ; j++)
					has_own[j] = false, nbase[j] = 0;
			}
		}
		char want[1024] = "", stored[1200] = "";
		for (int q = 0; q < NQ; q++) {
			int shown = 0;
			if (has_own[q]) {
				size_t at = strlen(want);
				snprintf(want + at, sizeof want - at, "cf:%s=%s;",
					 qs[q], own[q]);
				shown++;
			}
			for (int k = 0; k < nbase[q] && shown < 3; k++, shown++) {
				size_t at = strlen(want);
				snprintf(want + at, sizeof want - at, "cf:%s=%s;",
					 qs[q], base[q][k]);
			}
		}
		CHECK_STR(tget_with(txn, tb, row, &o), want);
		CHECK_INT(sbx_txn_commit(txn), SBX_OK);
		/* after commit: the same cells, as "row/cf:q=v;" */
		for (const char *p = want; *p;) {
			const char *end = strchr(p, ';');
			size_t at = strlen(stored);
			snprintf(stored + at, sizeof stored - at, "%s/%.*s;", row,
				 (int)(end - p), p);
			p = end + 1;
		}
		CHECK_STR(get_str(tb, row, &o, false), stored);
	}
#undef RND
	teardown();
}

TEST_MAIN(T(test_lock_codec), T(test_commit_and_read_own_writes),
	  T(test_rollback_leaves_nothing), T(test_deletes_increments_appends),
	  T(test_random_logs_match_model),
	  T(test_write_write_conflict), T(test_write_skew_prevented),
	  T(test_read_only_validation), T(test_lost_update_counts_exactly),
	  T(test_mixed_paths),
	  T(test_scan_merges_own_writes), T(test_scan_phantoms),
	  T(test_scan_skips_deleted_rows),
	  T(test_bad_input), T(test_table_gone_mid_transaction),
	  T(test_garbage_lock), T(test_fault_before_commit_point),
	  T(test_fault_after_commit_point),
	  T(test_dead_client_rolled_back_after_expiry),
	  T(test_fault_atomic_path), T(test_paths_see_each_other),
	  T(test_out_of_memory_everywhere), T(test_run_retries),
	  T(test_blind_write_over_future_cell),
	  T(test_two_tables))
