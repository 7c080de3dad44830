/*
 * test_txn_cli.c - transactions from the command line: a transaction block
 * in `saltbox shell` (begin ... commit / rollback, reads seeing the block's
 * writes, nothing visible before commit, a block left open rolled back,
 * the commit path chosen with begin {PATH => ...}),
 * and `saltbox txn prepare / locks / resolve` on the locks a dead client
 * left behind.
 */
#include "cli_util.h"
#include "engine_util.h"

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void test_shell_block(void)
{
	const char *dir = test_dir("txn_shell");
	char script[4200], args[8600];
	snprintf(script, sizeof script, "%s.rb", dir);
	write_file(script, "create 'acct', 'cf'\n"
			   "put 'acct', 'alice', 'cf:bal', '100'\n"
			   "put 'acct', 'bob', 'cf:bal', '100'\n"
			   "begin\n"
			   "get 'acct', 'alice'\n"
			   "put 'acct', 'alice', 'cf:bal', '90'\n"
			   "put 'acct', 'bob', 'cf:bal', '110'\n"
			   "get 'acct', 'alice'\n"
			   "commit\n");
	snprintf(args, sizeof args, "shell --data '%s' '%s'", dir, script);
	/* the table has no lock family yet */
	CHECK_INT(run_saltbox(args), 1);
	CHECK_OUT("ERROR: table 'acct' has no transaction lock family '!txn!'");
	snprintf(args, sizeof args, "txn prepare --data '%s' acct", dir);
	CHECK_INT(run_saltbox(args), 0);
	CHECK_OUT("acct: ready for transactions");

	write_file(script, "begin\n"
			   "get 'acct', 'alice'\n"
			   "put 'acct', 'alice', 'cf:bal', '90'\n"
			   "put 'acct', 'bob', 'cf:bal', '110'\n"
			   "get 'acct', 'alice', 'cf:bal'\n"
			   "incr 'acct', 'count', 'cf:n', 2\n"
			   "scan 'acct', {COLUMNS => 'cf', LIMIT => 2}\n"
			   "commit\n"
			   "scan 'acct', {COLUMNS => ['cf:bal']}\n"
			   "begin\n"
			   "delete 'acct', 'bob', 'cf:bal'\n"
			   "get 'acct', 'bob'\n"
			   "rollback\n"
			   "get 'acct', 'bob', 'cf:bal'\n"
			   "begin {LOCK_TIMEOUT => 2000}\n"
			   "put 'acct', 'carol', 'cf:bal', '5'\n");
	snprintf(args, sizeof args, "shell --data '%s' '%s'", dir, script);
	CHECK_INT(run_saltbox(args), 0);
	CHECK_OUT("Transaction ");
	CHECK_OUT(" cf:bal                                  timestamp="
		  "9223372036854775807, value=90\n");
	CHECK_OUT("COUNTER VALUE = 2\n");
	CHECK_OUT(" alice                                   column=cf:bal, "
		  "timestamp=9223372036854775807, value=90\n"
		  " bob                                     column=cf:bal, "
		  "timestamp=9223372036854775807, value=110\n"
		  "2 row(s)\n");
	CHECK_OUT("Committed\n");
	CHECK_OUT("COLUMN                                   CELL\n"
		  "0 row(s)\n"); /* bob's delete, seen inside the block */
	CHECK_OUT("Rolled back\n");
	CHECK_OUT("value=110\n1 row(s)\n");
	CHECK_OUT("(the open transaction was rolled back)");

	write_file(script, "scan 'acct', {COLUMNS => 'cf'}\ncommit\n");
	CHECK_INT(run_saltbox(args), 1);
	CHECK_OUT(" alice                                   column=cf:bal, "
		  "timestamp=");
	CHECK_OUT("value=\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x02\n3 row(s)");
	CHECK_OUT("ERROR: no transaction is open (begin one first) (line 2)");

	write_file(script, "begin\nput 'acct', 'x', 'cf:q', 'v', 42\n");
	CHECK_INT(run_saltbox(args), 1);
	CHECK_OUT("takes no timestamp");

	/* the commit path, chosen per block */
	write_file(script, "begin {PATH => 'portable'}\n"
			   "put 'acct', 'p', 'cf:q', 'portable'\n"
			   "commit\n"
			   "begin {PATH => 'atomic', LOCK_TIMEOUT => 1000}\n"
			   "put 'acct', 'a', 'cf:q', 'atomic'\n"
			   "commit\n"
			   "scan 'acct', {COLUMNS => ['cf:q']}\n");
	CHECK_INT(run_saltbox(args), 0);
	CHECK_OUT("Committed\n");
	CHECK_OUT(" a                                       column=cf:q, ");
	CHECK_OUT("value=atomic\n p ");
	CHECK_OUT("value=portable\n2 row(s)");
	write_file(script, "begin {PATH => 'fast'}\n");
	CHECK_INT(run_saltbox(args), 1);
	CHECK_OUT("PATH must be 'auto', 'portable' or 'atomic'");
	snprintf(args, sizeof args, "rm -rf '%s' '%s'", dir, script);
	CHECK_INT(system(args), 0);
}

typedef struct dead {
	bool hit;
} dead;

/* A client that dies at the commit point: every later step fails. */
static int die_at_commit(void *arg, sbx_txn_step step, size_t row)
{
	(void)row;
	dead *d = arg;
	if (step == SBX_TXN_STEP_COMMIT_PRIMARY)
		d->hit = true;
	return d->hit ? SBX_EIO : SBX_OK;
}

static void test_locks_and_resolve(void)
{
	const char *dir0 = test_dir("txn_locks");
	char dir[4096], args[8600];
	snprintf(dir, sizeof dir, "%s", dir0);
	sbx_db *db;
	REQUIRE(sbx_db_open(&db, dir, NULL) == SBX_OK);
	sbx_family_desc f[2];
	sbx_txn_lock_family(&f[0]);
	sbx_family_desc_init(&f[1], "cf");
	REQUIRE(sbx_table_create(db, "acct", f, 2) == SBX_OK);
	sbx_table *t;
	REQUIRE(sbx_table_open(&t, db, "acct") == SBX_OK);
	dead d = {false};
	sbx_txn_options o;
	sbx_txn_options_init(&o);
	o.lock_timeout_ms = 300;
	o.path = SBX_TXN_PATH_PORTABLE; /* only its locks outlive a client */
	o.fault = die_at_commit;
	o.fault_arg = &d;
	sbx_txn *txn;
	REQUIRE(sbx_txn_begin_with(&txn, db, &o) == SBX_OK);
	const char *rows[] = {"a", "b\x01"};
	for (int i = 0; i < 2; i++) {
		sbx_mutation *m;
		REQUIRE(sbx_mutation_new(&m, rows[i], strlen(rows[i])) ==
			SBX_OK);
		CHECK_INT(sbx_mutation_put(m, "cf", "q", 1,
					   SBX_LATEST_TIMESTAMP, "v", 1),
			  SBX_OK);
		CHECK_INT(sbx_txn_mutate(txn, t, m), SBX_OK);
		sbx_mutation_free(m);
	}
	CHECK_INT(sbx_txn_commit(txn), SBX_EIO);
	size_t resolved, remaining;
	CHECK_INT(
	    sbx_txn_resolve_table(&resolved, &remaining, db, "acct", NULL),
	    SBX_OK);
	CHECK_INT(resolved, 0);
	CHECK_INT(remaining, 2); /* not expired yet: left alone */
	CHECK_INT(put1(t, "g", SBX_TXN_LOCK_FAMILY, "lock",
		       SBX_LATEST_TIMESTAMP, "junk"),
		  SBX_OK);
	sbx_table_close(t);
	sbx_db_close(db);

	snprintf(args, sizeof args, "txn locks --data '%s' acct", dir);
	CHECK_INT(run_saltbox(args), 0);
	CHECK_OUT("a  PREWRITTEN  ");
	CHECK_OUT("  primary of 1 secondaries, 1 operations\n");
	CHECK_OUT("b\\x01  PREWRITTEN  ");
	CHECK_OUT("  secondary of acct/a, 1 operations\n");
	CHECK_OUT("g  GARBAGE  (4 bytes that are not a lock)\n");
	CHECK_OUT("3 lock(s)\n");
	usleep(400 * 1000); /* the dead client's locks expire */
	snprintf(args, sizeof args, "txn resolve --data '%s' acct", dir);
	CHECK_INT(run_saltbox(args), 0);
	CHECK_OUT("2 lock(s) resolved, 1 left (not expired, or garbage)\n");
	snprintf(args, sizeof args, "txn resolve --data '%s' acct g", dir);
	CHECK_INT(run_saltbox(args), 1);
	CHECK_OUT("row 'g' of table 'acct': the lock cell (4 bytes) is not a "
		  "Saltbox transaction lock");
	snprintf(args, sizeof args,
		 "txn resolve --data '%s' --reset-garbage acct g", dir);
	CHECK_INT(run_saltbox(args), 0);
	CHECK_OUT("reset\n");
	snprintf(args, sizeof args, "txn locks --data '%s' acct", dir);
	CHECK_INT(run_saltbox(args), 0);
	CHECK_OUT("0 lock(s)\n");
	CHECK_INT(run_saltbox("txn locks acct"), 2);
	CHECK_OUT("give --data DIR or --connect URL");
	CHECK_INT(run_saltbox("txn frob"), 2);
	CHECK_OUT("unknown verb 'frob' (prepare, locks, resolve, bank)");
	snprintf(args, sizeof args, "txn locks --data '%s' nosuch", dir);
	CHECK_INT(run_saltbox(args), 1);
	CHECK_OUT("saltbox txn locks: ");
}

static char *slurp(const char *rel)
{
	char path[4096];
	const char *src = getenv("SBX_SOURCE_DIR");
	snprintf(path, sizeof path, "%s/%s", src ? src : ".", rel);
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *buf = malloc((size_t)n + 1);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	if (buf)
		buf[n] = 0;
	fclose(f);
	return buf;
}

/* docs/transactions.md shows examples/txn_transfer.c verbatim, and names
 * the lock family the header defines. */
static void test_doc_shows_the_example(void)
{
	char *doc = slurp("docs/transactions.md");
	char *ex = slurp("examples/txn_transfer.c");
	REQUIRE(doc && ex);
	CHECK(strstr(doc, ex) != NULL);
	CHECK(strstr(doc, "**`" SBX_TXN_LOCK_FAMILY "`**") != NULL);
	free(doc);
	free(ex);
}

TEST_MAIN(T(test_shell_block), T(test_locks_and_resolve),
	  T(test_doc_shows_the_example))
