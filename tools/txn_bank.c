/*
 * txn_bank.c - `saltbox txn bank`: the proof that transactions keep their
 * promises under concurrency and crashes. Accounts (default 50, 1000
 * each) in table `bank`, random transfers between them (read two
 * balances, write both, and a record row in `bank_xfers` keyed by the
 * transfer id) for a given time.
 *
 *  --data DIR     8 threads in one process, then --kill-rounds rounds in
 *                 which a child process runs them and is SIGKILLed inside
 *                 a commit (a fault hook kills it at a random commit step)
 *                 and the store is reopened;
 *  --connect URL  --clients processes (default 4) against a running
 *                 gateway; some are SIGKILLed inside a commit and
 *                 replaced while the server stays up.
 *  --path P       the commit path: auto (default), portable, atomic
 *                 (embedded only), or mixed (embedded: even threads
 *                 atomic, odd ones portable, on one store at once). Where
 *                 the atomic path runs, every other kill round SIGKILLs
 *                 the process at a random instant rather than at a commit
 *                 step, so a kill can land inside RocksDB's write of the
 *                 one batch.
 *
 * Every client logs to its own file "intent ID FROM TO AMOUNT" before
 * commit and "ack ID" after commit returned SBX_OK (fsync'd: the
 * acknowledgement). After each phase, once the dead clients' locks have
 * expired, every lock is resolved and the invariants are checked and
 * written out: total unchanged, no negative balance, no lock left, every
 * acknowledged transfer committed, every committed transfer logged as an
 * intent, and each balance equal to 1000 plus the transfers committed -
 * the acknowledged ones and those whose client died before it could
 * acknowledge (the record row tells).
 */
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define ACCOUNTS_TABLE "bank"
#define XFERS_TABLE "bank_xfers"
#define INITIAL 1000

typedef struct bank_opts {
	const char *data, *url, *logdir;
	int accounts, threads, clients, kill_rounds;
	double duration_s;
	int64_t lock_timeout_ms;
	unsigned seed;
	int path; /* an sbx_txn_path, or PATH_MIXED */
} bank_opts;

#define PATH_MIXED (-1)

typedef struct worker {
	const bank_opts *o;
	sbx_db *db;
	int client, thread;
	int log_fd;
	double deadline;
	atomic_bool *armed; /* kill this process at a commit step */
	bool kill_at_step;  /* else the armer kills at once */
	unsigned rng;
	uint64_t seq;
	long committed, skipped, attempts, failed;
	char failure[256];
} worker;

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static unsigned next_rand(unsigned *s)
{
	*s = *s * 1103515245u + 12345u;
	return (*s >> 8) & 0xffffff;
}

static void account_key(char out[16], int i)
{
	snprintf(out, 16, "acct%03d", i);
}

static sbx_db *open_bank_store(const bank_opts *o)
{
	sbx_db *db = NULL;
	int rc = o->url ? sbx_db_connect(&db, o->url)
			: sbx_db_open(&db, o->data, NULL);
	if (rc)
		fprintf(stderr, "saltbox txn bank: %s\n", sbx_errmsg());
	return db;
}

/* ---- one transfer ----------------------------------------------------------
 */

typedef struct transfer {
	worker *w;
	sbx_table *acct, *xfers;
	int from, to;
	long want;
	char id[48];
	bool moved;
} transfer;

static int read_balance(long *out, sbx_txn *txn, sbx_table *t, int i)
{
	char key[16];
	account_key(key, i);
	sbx_result *r;
	int rc = sbx_txn_get(&r, txn, t, key, strlen(key), NULL);
	if (rc)
		return rc;
	const sbx_cell *c = sbx_result_get(r, "cf", "bal", 3);
	char num[32] = "0";
	if (c && c->value_len < sizeof num) {
		memcpy(num, c->value, c->value_len);
		num[c->value_len] = 0;
	}
	*out = c ? strtol(num, NULL, 10) : 0;
	sbx_result_free(r);
	return SBX_OK;
}

static int put_text(sbx_txn *txn, sbx_table *t, const char *row, const char *q,
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

static int write_all(int fd, const char *s)
{
	size_t n = strlen(s);
	while (n) {
		ssize_t k = write(fd, s, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		s += k;
		n -= (size_t)k;
	}
	return 0;
}

static int transfer_fn(sbx_txn *txn, void *arg)
{
	transfer *x = arg;
	x->moved = false;
	long a, b;
	int rc = read_balance(&a, txn, x->acct, x->from);
	rc = rc ? rc : read_balance(&b, txn, x->acct, x->to);
	if (rc)
		return rc;
	long amount = x->want < a ? x->want : a;
	if (amount <= 0)
		return SBX_OK; /* nothing to move: a read-only transaction */
	char ka[16], kb[16], va[32], vb[32], rec[64];
	account_key(ka, x->from);
	account_key(kb, x->to);
	snprintf(va, sizeof va, "%ld", a - amount);
	snprintf(vb, sizeof vb, "%ld", b + amount);
	snprintf(rec, sizeof rec, "%d %d %ld", x->from, x->to, amount);
	rc = put_text(txn, x->acct, ka, "bal", va);
	rc = rc ? rc : put_text(txn, x->acct, kb, "bal", vb);
	rc = rc ? rc : put_text(txn, x->xfers, x->id, "t", rec);
	if (rc)
		return rc;
	char line[128];
	snprintf(line, sizeof line, "intent %s %s\n", x->id, rec);
	if (write_all(x->w->log_fd, line))
		return SBX_EIO;
	x->moved = true;
	return SBX_OK;
}

/* The fault hook: once armed, die at a random commit step. */
static int kill_hook(void *arg, sbx_txn_step step, size_t row)
{
	(void)step;
	(void)row;
	worker *w = arg;
	if (w->kill_at_step && atomic_load(w->armed) &&
	    next_rand(&w->rng) % 3 == 0)
		kill(getpid(), SIGKILL);
	return SBX_OK;
}

static void *worker_run(void *arg)
{
	worker *w = arg;
	sbx_table *acct = NULL, *xfers = NULL;
	if (sbx_table_open(&acct, w->db, ACCOUNTS_TABLE) ||
	    sbx_table_open(&xfers, w->db, XFERS_TABLE)) {
		snprintf(w->failure, sizeof w->failure, "open: %s",
			 sbx_errmsg());
		sbx_table_close(acct);
		return NULL;
	}
	sbx_txn_options opts;
	sbx_txn_options_init(&opts);
	opts.lock_timeout_ms = w->o->lock_timeout_ms;
	opts.lock_wait_ms = 50;
	opts.retry_budget_ms = 2000;
	opts.path = w->o->path == PATH_MIXED
			? (w->thread % 2 ? SBX_TXN_PATH_PORTABLE
					 : SBX_TXN_PATH_ATOMIC)
			: (sbx_txn_path)w->o->path;
	if (w->armed) {
		opts.fault = kill_hook;
		opts.fault_arg = w;
	}
	/* a process to be killed keeps going until it is (on a loaded
	 * machine the kill may come due after the deadline), for at most
	 * 10 s more */
	while (now_s() < w->deadline + (w->armed ? 10.0 : 0.0)) {
		transfer x = {.w = w, .acct = acct, .xfers = xfers};
		x.from = (int)(next_rand(&w->rng) % (unsigned)w->o->accounts);
		x.to =
		    (int)(next_rand(&w->rng) % (unsigned)(w->o->accounts - 1));
		if (x.to >= x.from)
			x.to++;
		x.want = 1 + (long)(next_rand(&w->rng) % 100);
		snprintf(x.id, sizeof x.id, "c%04d-t%02d-%08" PRIu64, w->client,
			 w->thread, ++w->seq);
		int attempts = 0;
		int rc = sbx_txn_run(&attempts, w->db, &opts, transfer_fn, &x);
		w->attempts += attempts;
		if (rc == SBX_OK && x.moved) {
			char line[80];
			snprintf(line, sizeof line, "ack %s\n", x.id);
			if (write_all(w->log_fd, line) || fsync(w->log_fd)) {
				snprintf(w->failure, sizeof w->failure,
					 "log: %s", strerror(errno));
				break;
			}
			w->committed++;
		} else if (rc == SBX_OK) {
			w->skipped++;
		} else if (rc == SBX_ECONFLICT) {
			/* SBX_ECONFLICT promises nothing of it is visible */
			char line[80];
			snprintf(line, sizeof line, "conflict %s\n", x.id);
			write_all(w->log_fd, line);
			w->failed++;
		} else {
			w->failed++; /* gave up or unknown: not acknowledged */
		}
	}
	sbx_table_close(acct);
	sbx_table_close(xfers);
	return NULL;
}

static int open_log(const bank_opts *o, int client, int thread)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/c%04d-t%02d.log", o->logdir, client,
		 thread);
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
	if (fd < 0)
		fprintf(stderr, "saltbox txn bank: cannot open %s: %s\n", path,
			strerror(errno));
	return fd;
}

typedef struct armer {
	atomic_bool *armed;
	double delay_s;
	bool kill_now; /* kill the process when the time comes */
} armer;

static void *arm_later(void *arg)
{
	armer *a = arg;
	struct timespec ts = {
	    (time_t)a->delay_s,
	    (long)((a->delay_s - (double)(time_t)a->delay_s) * 1e9)};
	nanosleep(&ts, NULL);
	if (a->kill_now)
		kill(getpid(), SIGKILL); /* wherever the workers are */
	atomic_store(a->armed, true);
	return NULL;
}

/* Run `threads` workers of client `client` on db until `seconds` pass; if
 * kill_after_s >= 0, the process is killed after that: inside a commit
 * (at a commit step), or, with kill_now, wherever it is. */
static int run_workers(const bank_opts *o, sbx_db *db, int client, int threads,
		       double seconds, double kill_after_s, bool kill_now,
		       long *committed, long *attempts)
{
	worker *w = calloc((size_t)threads, sizeof *w);
	pthread_t *th = calloc((size_t)threads, sizeof *th);
	atomic_bool armed = false;
	if (!w || !th) {
		free(w);
		free(th);
		return 1;
	}
	double deadline = now_s() + seconds;
	int status = 0, started = 0;
	for (int i = 0; i < threads; i++) {
		w[i] =
		    (worker){.o = o,
			     .db = db,
			     .client = client,
			     .thread = i,
			     .deadline = deadline,
			     .armed = kill_after_s >= 0 ? &armed : NULL,
			     .kill_at_step = !kill_now,
			     .rng = o->seed * 7919u + (unsigned)client * 131u +
				    (unsigned)i * 17u + 1u};
		w[i].log_fd = open_log(o, client, i);
		if (w[i].log_fd < 0) {
			status = 1;
			break;
		}
		if (pthread_create(&th[i], NULL, worker_run, &w[i])) {
			close(w[i].log_fd);
			status = 1;
			break;
		}
		started++;
	}
	pthread_t arm_thread;
	armer arm = {&armed, kill_after_s, kill_now};
	bool arming = kill_after_s >= 0 && started &&
		      !pthread_create(&arm_thread, NULL, arm_later, &arm);
	for (int i = 0; i < started; i++) {
		pthread_join(th[i], NULL);
		close(w[i].log_fd);
		*committed += w[i].committed;
		*attempts += w[i].attempts;
		if (w[i].failure[0]) {
			fprintf(stderr,
				"saltbox txn bank: client %d thread %d: %s\n",
				client, i, w[i].failure);
			status = 1;
		}
	}
	if (arming)
		pthread_join(arm_thread, NULL);
	free(w);
	free(th);
	return status;
}

/* ---- set-up
 * ------------------------------------------------------------------- */

static int make_table(sbx_db *db, const char *name)
{
	bool exists = false;
	int rc = sbx_table_exists(&exists, db, name);
	if (rc == SBX_OK && exists) {
		rc = sbx_table_disable(db, name);
		if (rc == SBX_EUNSUPPORTED)
			rc = SBX_OK; /* REST drops without disabling */
		rc = rc ? rc : sbx_table_drop(db, name);
	}
	sbx_family_desc f[2];
	sbx_txn_lock_family(&f[0]);
	sbx_family_desc_init(&f[1], "cf");
	return rc ? rc : sbx_table_create(db, name, f, 2);
}

static int clear_logs(const char *dir)
{
	if (mkdir(dir, 0755) && errno != EEXIST) {
		fprintf(stderr, "saltbox txn bank: cannot create %s: %s\n", dir,
			strerror(errno));
		return 1;
	}
	char cmd[4200];
	snprintf(cmd, sizeof cmd, "rm -f '%s'/c*.log '%s'/report.txt", dir,
		 dir);
	return system(cmd) ? 1 : 0;
}

static int setup(const bank_opts *o)
{
	sbx_db *db = open_bank_store(o);
	if (!db)
		return 1;
	int rc = make_table(db, ACCOUNTS_TABLE);
	rc = rc ? rc : make_table(db, XFERS_TABLE);
	sbx_table *t = NULL;
	rc = rc ? rc : sbx_table_open(&t, db, ACCOUNTS_TABLE);
	for (int i = 0; rc == SBX_OK && i < o->accounts; i++) {
		char key[16], v[16];
		account_key(key, i);
		snprintf(v, sizeof v, "%d", INITIAL);
		sbx_mutation *m;
		rc = sbx_mutation_new(&m, key, strlen(key));
		rc = rc ? rc
			: sbx_mutation_put(m, "cf", "bal", 3,
					   SBX_LATEST_TIMESTAMP, v, strlen(v));
		rc = rc ? rc : sbx_table_mutate(NULL, t, m);
		sbx_mutation_free(m);
	}
	if (rc)
		fprintf(stderr, "saltbox txn bank: set-up: %s\n", sbx_errmsg());
	sbx_table_close(t);
	sbx_db_close(db);
	return rc ? 1 : clear_logs(o->logdir);
}

/* ---- verification
 * ------------------------------------------------------------- */

typedef struct xfer {
	char *id;
	int from, to;
	long amount;
	bool acked, intended, recorded, conflicted;
} xfer;

typedef struct ledger {
	xfer *v;
	size_t n, cap;
	bool sorted;
} ledger;

static int xfer_cmp(const void *a, const void *b)
{
	return strcmp(((const xfer *)a)->id, ((const xfer *)b)->id);
}

static xfer *ledger_find(ledger *l, const char *id)
{
	if (!l->n)
		return NULL;
	if (!l->sorted) {
		qsort(l->v, l->n, sizeof *l->v, xfer_cmp);
		l->sorted = true;
	}
	xfer key = {.id = (char *)id};
	return bsearch(&key, l->v, l->n, sizeof *l->v, xfer_cmp);
}

/* The entry for id, added if new. */
static xfer *ledger_get(ledger *l, const char *id)
{
	xfer *x = ledger_find(l, id);
	if (x)
		return x;
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 1024;
		void *v = realloc(l->v, cap * sizeof *l->v);
		if (!v)
			return NULL;
		l->v = v;
		l->cap = cap;
	}
	x = &l->v[l->n++];
	memset(x, 0, sizeof *x);
	x->id = strdup(id);
	l->sorted = false;
	return x->id ? x : NULL;
}

static void ledger_free(ledger *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i].id);
	free(l->v);
}

/* Read every client log: intents and acknowledgements. */
static int read_logs(ledger *l, const char *dir, long *bad)
{
	char cmd[4200];
	snprintf(cmd, sizeof cmd, "cat '%s'/c*.log 2>/dev/null", dir);
	FILE *p = popen(cmd, "r");
	if (!p)
		return 1;
	char line[256];
	while (fgets(line, sizeof line, p)) {
		char kind[16], id[64];
		int from, to;
		long amount;
		int n = sscanf(line, "%15s %63s %d %d %ld", kind, id, &from,
			       &to, &amount);
		xfer *x = n >= 2 ? ledger_get(l, id) : NULL;
		if (x && !strcmp(kind, "ack") && n == 2) {
			x->acked = true;
		} else if (x && !strcmp(kind, "conflict") && n == 2) {
			x->conflicted = true;
		} else if (x && !strcmp(kind, "intent") && n == 5) {
			x->intended = true;
		} else if (strchr(line, '\n')) {
			(*bad)++; /* a torn last line of a killed client is
				     only possible without a newline */
		}
	}
	pclose(p);
	return 0;
}

typedef struct report {
	long total, expected_total, min_balance, mismatched_accounts;
	long acked, in_doubt_committed, intents_not_committed;
	long lost_acked, unexplained, conflict_visible, bad_lines;
	size_t locks_left, locks_resolved;
	bool ok;
} report;

static int scan_all(sbx_table *t, int (*each)(void *, const sbx_result *),
		    void *arg)
{
	sbx_column col = {"cf", NULL, 0};
	sbx_scan_opts o;
	sbx_scan_opts_init(&o);
	o.read.columns = &col;
	o.read.ncolumns = 1;
	sbx_scanner *s;
	int rc = sbx_scanner_open(&s, t, &o);
	sbx_result *r;
	while (rc == SBX_OK && (rc = sbx_scanner_next(s, &r)) == SBX_OK) {
		rc = each(arg, r);
		sbx_result_free(r);
	}
	if (rc == SBX_ITEROVER)
		rc = SBX_OK;
	if (s)
		sbx_scanner_close(s);
	return rc;
}

typedef struct balances {
	long *v;
	int n;
} balances;

static long cell_long(const sbx_result *r, const char *q, bool *ok)
{
	const sbx_cell *c = sbx_result_get(r, "cf", q, strlen(q));
	char num[64];
	if (!c || c->value_len >= sizeof num) {
		*ok = false;
		return 0;
	}
	memcpy(num, c->value, c->value_len);
	num[c->value_len] = 0;
	return strtol(num, NULL, 10);
}

static int each_balance(void *arg, const sbx_result *r)
{
	balances *b = arg;
	size_t len;
	const uint8_t *row = sbx_result_row(r, &len);
	int i = len == 7 ? atoi((const char *)row + 4) : -1;
	bool ok = true;
	long v = cell_long(r, "bal", &ok);
	if (i >= 0 && i < b->n && ok)
		b->v[i] = v;
	return SBX_OK;
}

static int each_record(void *arg, const sbx_result *r)
{
	ledger *l = arg;
	size_t len;
	const uint8_t *row = sbx_result_row(r, &len);
	const sbx_cell *c = sbx_result_get(r, "cf", "t", 1);
	char id[64], rec[64];
	if (!c || len >= sizeof id || c->value_len >= sizeof rec)
		return SBX_OK;
	memcpy(id, row, len);
	id[len] = 0;
	memcpy(rec, c->value, c->value_len);
	rec[c->value_len] = 0;
	xfer *x = ledger_get(l, id);
	if (!x)
		return SBX_ENOMEM;
	x->recorded =
	    sscanf(rec, "%d %d %ld", &x->from, &x->to, &x->amount) == 3;
	return SBX_OK;
}

/* Resolve every lock (waiting for the dead clients' to expire). */
static int resolve_all(sbx_db *db, const bank_opts *o, report *rep)
{
	sbx_txn_options opts;
	sbx_txn_options_init(&opts);
	const char *tables[] = {ACCOUNTS_TABLE, XFERS_TABLE};
	double give_up = now_s() + (double)o->lock_timeout_ms / 1000.0 * 3 + 5;
	for (;;) {
		size_t left = 0;
		for (int i = 0; i < 2; i++) {
			size_t resolved = 0, remaining = 0;
			int rc = sbx_txn_resolve_table(&resolved, &remaining,
						       db, tables[i], &opts);
			if (rc)
				return rc;
			rep->locks_resolved += resolved;
			left += remaining;
		}
		rep->locks_left = left;
		if (!left || now_s() > give_up)
			return SBX_OK;
		struct timespec ts = {0, 50 * 1000000L};
		nanosleep(&ts, NULL);
	}
}

static int verify(const bank_opts *o, const char *phase, report *rep)
{
	memset(rep, 0, sizeof *rep);
	sbx_db *db = open_bank_store(o);
	if (!db)
		return 1;
	sbx_table *acct = NULL, *xfers = NULL;
	balances b = {calloc((size_t)o->accounts, sizeof(long)), o->accounts};
	ledger l = {0};
	int rc = b.v ? SBX_OK : SBX_ENOMEM;
	rc = rc ? rc : resolve_all(db, o, rep);
	rc = rc ? rc : sbx_table_open(&acct, db, ACCOUNTS_TABLE);
	rc = rc ? rc : sbx_table_open(&xfers, db, XFERS_TABLE);
	rc = rc ? rc : scan_all(acct, each_balance, &b);
	rc = rc ? rc : scan_all(xfers, each_record, &l);
	if (rc == SBX_OK && read_logs(&l, o->logdir, &rep->bad_lines))
		rc = SBX_EIO;
	if (rc) {
		fprintf(stderr, "saltbox txn bank: verify: %s\n", sbx_errmsg());
		free(b.v);
		ledger_free(&l);
		sbx_table_close(acct);
		sbx_table_close(xfers);
		sbx_db_close(db);
		return 1;
	}
	long *expect = calloc((size_t)o->accounts, sizeof *expect);
	for (int i = 0; expect && i < o->accounts; i++)
		expect[i] = INITIAL;
	for (size_t i = 0; expect && i < l.n; i++) {
		xfer *x = &l.v[i];
		if (x->acked)
			rep->acked++;
		if (x->acked && !x->recorded)
			rep->lost_acked++;
		if (x->recorded && !x->intended)
			rep->unexplained++;
		if (x->recorded && x->conflicted)
			rep->conflict_visible++;
		if (x->recorded && !x->acked)
			rep->in_doubt_committed++;
		if (x->intended && !x->recorded && !x->acked)
			rep->intents_not_committed++;
		if (x->recorded && x->from >= 0 && x->from < o->accounts &&
		    x->to >= 0 && x->to < o->accounts) {
			expect[x->from] -= x->amount;
			expect[x->to] += x->amount;
		}
	}
	rep->expected_total = (long)o->accounts * INITIAL;
	rep->min_balance = o->accounts ? b.v[0] : 0;
	for (int i = 0; i < o->accounts; i++) {
		rep->total += b.v[i];
		if (b.v[i] < rep->min_balance)
			rep->min_balance = b.v[i];
		if (!expect || expect[i] != b.v[i])
			rep->mismatched_accounts++;
	}
	rep->ok = rep->total == rep->expected_total && rep->min_balance >= 0 &&
		  rep->mismatched_accounts == 0 && rep->lost_acked == 0 &&
		  rep->unexplained == 0 && rep->conflict_visible == 0 &&
		  rep->locks_left == 0 && rep->bad_lines == 0;
	char text[1024];
	snprintf(text, sizeof text,
		 "%s: total %ld (expected %ld), lowest balance %ld, accounts "
		 "off the log %ld; transfers acknowledged %ld, committed by a "
		 "client killed before its ack %ld, intents not committed %ld, "
		 "acknowledged but lost %ld, committed but never logged %ld, "
		 "visible after SBX_ECONFLICT %ld; locks resolved %zu, left "
		 "%zu; invariants: %s\n",
		 phase, rep->total, rep->expected_total, rep->min_balance,
		 rep->mismatched_accounts, rep->acked, rep->in_doubt_committed,
		 rep->intents_not_committed, rep->lost_acked, rep->unexplained,
		 rep->conflict_visible, rep->locks_resolved, rep->locks_left,
		 rep->ok ? "ok" : "VIOLATED");
	fputs(text, stdout);
	fflush(stdout);
	char path[4096];
	snprintf(path, sizeof path, "%s/report.txt", o->logdir);
	FILE *f = fopen(path, "a");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
	free(expect);
	free(b.v);
	ledger_free(&l);
	sbx_table_close(acct);
	sbx_table_close(xfers);
	sbx_db_close(db);
	return rep->ok ? 0 : 1;
}

/* ---- the two modes
 * --------------------------------------------------------------- */

static void report_rate(const char *what, long committed, long attempts,
			double seconds)
{
	printf("%s: %ld transfers committed in %.1f s (%.0f/s), %ld "
	       "transactions run (%.1f%% conflicts retried)\n",
	       what, committed, seconds,
	       committed / (seconds > 0 ? seconds : 1), attempts,
	       attempts
		   ? 100.0 * (double)(attempts - committed) / (double)attempts
		   : 0.0);
	fflush(stdout);
}

static int embedded(const bank_opts *o)
{
	report rep;
	int status = 0;
	double phase = o->duration_s / (o->kill_rounds + 1);
	sbx_db *db = open_bank_store(o);
	if (!db)
		return 1;
	long committed = 0, attempts = 0;
	double t0 = now_s();
	status |= run_workers(o, db, 0, o->threads, phase, -1, false,
			      &committed, &attempts);
	sbx_db_close(db);
	report_rate("threads", committed, attempts, now_s() - t0);
	status |= verify(o, "after the threads", &rep);
	unsigned rng = o->seed ^ 0x5bd1e995u;
	for (int round = 1; round <= o->kill_rounds && !status; round++) {
		double kill_after = 0.05 + (phase * 0.8 - 0.05) *
					       (next_rand(&rng) % 1000) /
					       1000.0;
		/* the atomic path writes once: also kill at random instants,
		 * to land inside that write */
		bool kill_now = o->path != SBX_TXN_PATH_PORTABLE &&
				round % 2 == 0;
		fflush(stdout);
		pid_t pid = fork();
		if (pid < 0)
			return 1;
		if (pid == 0) {
			sbx_db *cdb = open_bank_store(o);
			long c = 0, a = 0;
			int st = cdb ? run_workers(o, cdb, round, o->threads,
						   phase, kill_after, kill_now,
						   &c, &a)
				     : 1;
			_exit(st ? 3 : 0); /* lived to the end: no kill */
		}
		int ws;
		waitpid(pid, &ws, 0);
		bool killed = WIFSIGNALED(ws) && WTERMSIG(ws) == SIGKILL;
		printf("round %d: the process was %s after %.2f s\n", round,
		       !killed	  ? "not killed"
		       : kill_now ? "SIGKILLed at a random instant"
				  : "SIGKILLed inside a commit",
		       kill_after);
		if (!killed)
			status = 1;
		char name[64];
		snprintf(name, sizeof name, "after kill round %d", round);
		status |= verify(o, name, &rep);
	}
	return status;
}

static pid_t spawn_client(const bank_opts *o, int client, double seconds,
			  double kill_after)
{
	fflush(stdout);
	pid_t pid = fork();
	if (pid != 0)
		return pid;
	sbx_db *db = open_bank_store(o);
	long c = 0, a = 0;
	int st = db ? run_workers(o, db, client, o->threads, seconds,
				  kill_after, false, &c, &a)
		    : 1;
	if (db)
		sbx_db_close(db);
	printf("client %d: %ld transfers committed, %ld transactions run\n",
	       client, c, a);
	fflush(stdout);
	_exit(st ? 3 : 0);
}

static int remote(const bank_opts *o)
{
	double t0 = now_s(), end = t0 + o->duration_s;
	unsigned rng = o->seed ^ 0x27d4eb2du;
	int next_id = 0, killed = 0, status = 0, running = 0;
	pid_t *pids = calloc((size_t)o->clients, sizeof *pids);
	if (!pids)
		return 1;
	/* half the clients (at least one) are killed at a random moment
	 * inside a commit and replaced while time remains */
	for (int i = 0; i < o->clients; i++) {
		double kill_after =
		    i % 2 == 0 ? 0.2 + (o->duration_s * 0.7) *
					   (next_rand(&rng) % 1000) / 1000.0
			       : -1;
		pids[i] = spawn_client(o, next_id++, o->duration_s, kill_after);
		running += pids[i] > 0;
	}
	while (running) {
		int ws;
		pid_t pid = wait(&ws);
		if (pid < 0)
			break;
		running--;
		if (WIFSIGNALED(ws) && WTERMSIG(ws) == SIGKILL) {
			killed++;
			double left = end - now_s();
			if (left > 0.3) {
				double kill_after =
				    next_rand(&rng) % 2 ? 0.1 + left * 0.5 : -1;
				if (spawn_client(o, next_id++, left,
						 kill_after) > 0)
					running++;
			}
		} else if (!WIFEXITED(ws) || WEXITSTATUS(ws)) {
			status = 1;
		}
	}
	free(pids);
	printf("clients: %d processes, %d SIGKILLed inside a commit, the "
	       "server stayed up\n",
	       next_id, killed);
	if (!killed)
		status = 1;
	report rep;
	status |= verify(o, "after the clients", &rep);
	return status;
}

/* ---- options
 * ------------------------------------------------------------------ */

static int usage(FILE *out, int status)
{
	fprintf(out, "usage: saltbox txn bank (--data DIR | --connect URL) "
		     "[--duration S] [--threads N]\n"
		     "         [--clients N] [--kill-rounds N] [--accounts N] "
		     "[--lock-timeout-ms MS]\n"
		     "         [--seed N] [--log DIR] [--path P]\n\n"
		     "Random transfers between accounts in transactions, with "
		     "clients SIGKILLed\ninside commits, then the invariants "
		     "checked and written out (also to\nLOG/report.txt). The "
		     "tables bank and bank_xfers are created afresh.\n\n"
		     "  --data DIR         embedded store: --threads threads "
		     "(default 8), then\n"
		     "                     --kill-rounds rounds (default 3) "
		     "in a child process\n"
		     "                     SIGKILLed mid-commit\n"
		     "  --connect URL      a running gateway (saltbox serve): "
		     "--clients processes\n"
		     "                     (default 4, one thread each), half "
		     "of them killed\n"
		     "  --duration S       total time (default 10)\n"
		     "  --accounts N       default 50, 1000 each\n"
		     "  --lock-timeout-ms  lock expiry (default 1000)\n"
		     "  --path P           commit path: auto (default), "
		     "portable, atomic, or mixed\n"
		     "                     (half the threads each; atomic "
		     "and mixed: --data only)\n"
		     "  --log DIR          client logs (default DIR.banklog or "
		     "./saltbox-banklog)\n"
		     "Exit status 0 when every invariant holds.\n");
	return status;
}

static bool int_arg(const char *s, long lo, long hi, long *out)
{
	char *end;
	long v = strtol(s, &end, 10);
	if (*end || v < lo || v > hi)
		return false;
	*out = v;
	return true;
}

int cmd_txn_bank(int argc, char **argv)
{
	bank_opts o = {.accounts = 50,
		       .threads = -1,
		       .clients = 4,
		       .kill_rounds = 3,
		       .duration_s = 10,
		       .lock_timeout_ms = 1000,
		       .seed = 1};
	static char logbuf[4096];
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		long n;
		if (!strcmp(a, "-h") || !strcmp(a, "--help"))
			return usage(stdout, 0);
		if (!v)
			return usage(stderr, 2);
		i++;
		if (!strcmp(a, "--data"))
			o.data = v;
		else if (!strcmp(a, "--connect"))
			o.url = v;
		else if (!strcmp(a, "--log"))
			o.logdir = v;
		else if (!strcmp(a, "--duration") &&
			 int_arg(v, 1, 86400 * 7, &n))
			o.duration_s = (double)n;
		else if (!strcmp(a, "--threads") && int_arg(v, 1, 256, &n))
			o.threads = (int)n;
		else if (!strcmp(a, "--clients") && int_arg(v, 1, 256, &n))
			o.clients = (int)n;
		else if (!strcmp(a, "--kill-rounds") && int_arg(v, 0, 1000, &n))
			o.kill_rounds = (int)n;
		else if (!strcmp(a, "--accounts") && int_arg(v, 2, 100000, &n))
			o.accounts = (int)n;
		else if (!strcmp(a, "--lock-timeout-ms") &&
			 int_arg(v, 10, 3600000, &n))
			o.lock_timeout_ms = n;
		else if (!strcmp(a, "--seed") && int_arg(v, 0, INT32_MAX, &n))
			o.seed = (unsigned)n;
		else if (!strcmp(a, "--path") && !strcmp(v, "auto"))
			o.path = SBX_TXN_PATH_AUTO;
		else if (!strcmp(a, "--path") && !strcmp(v, "portable"))
			o.path = SBX_TXN_PATH_PORTABLE;
		else if (!strcmp(a, "--path") && !strcmp(v, "atomic"))
			o.path = SBX_TXN_PATH_ATOMIC;
		else if (!strcmp(a, "--path") && !strcmp(v, "mixed"))
			o.path = PATH_MIXED;
		else {
			fprintf(stderr,
				"saltbox txn bank: bad option or value: "
				"%s %s\n",
				a, v);
			return usage(stderr, 2);
		}
	}
	if (!o.data == !o.url) {
		fprintf(stderr,
			"saltbox txn bank: give --data DIR or --connect "
			"URL\n");
		return usage(stderr, 2);
	}
	if (o.url && (o.path == SBX_TXN_PATH_ATOMIC || o.path == PATH_MIXED)) {
		fprintf(stderr, "saltbox txn bank: --path atomic and mixed "
				"need --data (the atomic path is the embedded "
				"store's)\n");
		return usage(stderr, 2);
	}
	if (o.threads < 0)
		o.threads = o.url ? 1 : 8;
	if (!o.logdir) {
		if (o.data)
			snprintf(logbuf, sizeof logbuf, "%s.banklog", o.data);
		else
			snprintf(logbuf, sizeof logbuf, "saltbox-banklog");
		o.logdir = logbuf;
	}
	static const char *paths[] = {"auto", "portable", "atomic"};
	printf("bank: %d accounts of %d, %s %s, %.0f s, lock timeout %lld ms, "
	       "path %s, logs in %s\n",
	       o.accounts, INITIAL, o.url ? "gateway" : "store",
	       o.url ? o.url : o.data, o.duration_s,
	       (long long)o.lock_timeout_ms,
	       o.path == PATH_MIXED ? "mixed" : paths[o.path], o.logdir);
	fflush(stdout);
	if (setup(&o))
		return 1;
	int status = o.url ? remote(&o) : embedded(&o);
	printf("bank: %s\n", status ? "FAILED" : "every invariant held");
	return status;
}
