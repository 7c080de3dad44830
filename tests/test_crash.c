/*
 * test_crash.c - kill -9 a writer mid-load, many times, and check what it
 * was told was written. Two kinds of round:
 *
 *  - the library killed: a child process opens the store and writes rows
 *    of five equal cells under SYNC_WAL (single mutations and multi-row
 *    batches), overwriting rows it wrote before with newer values;
 *  - the server killed: `saltbox serve` (the binary in $SBX_SALTBOX) on
 *    the store, REST_WRITERS children writing the same kind of rows as
 *    JSON CellSets over REST at once (so the server's group commit,
 *    src/server/commit.c, writes many requests in one batch), and the
 *    server SIGKILLed under them. Each writer has rows of its own.
 *
 * Every write carries a generation number in its value; the writer reports
 * each acknowledged (row, generation) through a pipe. After each kill the
 * parent reopens the store and scans it: every acknowledged row is there
 * with its acknowledged value or a newer one (an unacknowledged write may
 * or may not have landed), no row is torn (its five cells agree), and the
 * store opens cleanly every time.
 *
 * Rounds: SBX_CRASH_ROUNDS library rounds and SBX_CRASH_SERVER_ROUNDS
 * server rounds (defaults 12 and 4, a few seconds in CI); `make soak` runs
 * hundreds of each.
 */
#include "engine_util.h"
#include "http_util.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define COLS 5
#define NROWS 4000 /* the row ids writes pick from: overwrites are common */
#define REST_WRITERS 4 /* concurrent REST writers in a server round */

typedef struct ack {
	int32_t row;
	int32_t gen;
} ack;

static int env_int(const char *name, int dflt)
{
	const char *v = getenv(name);
	return v && atoi(v) > 0 ? atoi(v) : dflt;
}

static void row_key(char *out, size_t cap, int id)
{
	snprintf(out, cap, "row%05d", id);
}

static void value_of(char *out, size_t cap, int id, int gen)
{
	snprintf(out, cap, "g%d:r%d", gen, id);
}

/* ---- the library killed ---------------------------------------------------- */

static void child_writer(const char *dir, int fd, int gen, unsigned seed)
{
	sbx_db *db;
	sbx_table *t;
	if (sbx_db_open(&db, dir, NULL) || sbx_table_open(&t, db, "t"))
		_exit(3);
	srand(seed);
	for (long i = 0;; i++) {
		sbx_mutation *ms[4];
		int ids[4];
		for (int k = 0; k < 4; k++) {
			char row[32], val[32];
			/* distinct rows in a batch, in key order */
			ids[k] = (rand() % (NROWS / 4)) * 4 + k;
			row_key(row, sizeof row, ids[k]);
			value_of(val, sizeof val, ids[k], gen);
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
		if (i % 2 == 0) {
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
		ack a[4];
		for (int k = 0; k < 4; k++)
			a[k] = (ack){ids[k], gen};
		if (write(fd, a, sizeof a) != sizeof a)
			_exit(5);
		gen++;
	}
}

/* ---- the server killed ------------------------------------------------------ */

static int connect_port(int port)
{
	return http_connect(port, 10);
}

/* Writer w of REST_WRITERS: batches of 4 rows among its own (a row's
 * generations then come from one writer, in order). */
static void child_rest_writer(int port, int fd, int gen, unsigned seed, int w)
{
	srand(seed);
	int c = -1;
	for (;;) {
		if (c < 0 && (c = connect_port(port)) < 0)
			_exit(6); /* the server is gone */
		char body[4096];
		size_t n = (size_t)sprintf(body, "{\"Row\":[");
		int ids[4];
		for (int k = 0; k < 4; k++) {
			char row[32], val[32], r64[48], v64[48], c64[16];
			ids[k] = ((rand() % (NROWS / 4 / REST_WRITERS)) *
				  REST_WRITERS + w) * 4 + k;
			row_key(row, sizeof row, ids[k]);
			value_of(val, sizeof val, ids[k], gen);
			http_b64(r64, row, strlen(row));
			http_b64(v64, val, strlen(val));
			n += (size_t)sprintf(body + n, "%s{\"key\":\"%s\",\"Cell\":[",
					     k ? "," : "", r64);
			for (int q = 0; q < COLS; q++) {
				char col[8] = {'c', 'f', ':', 'c', (char)('0' + q), 0};
				http_b64(c64, col, strlen(col));
				n += (size_t)sprintf(body + n,
						     "%s{\"column\":\"%s\",\"$\":"
						     "\"%s\"}",
						     q ? "," : "", c64, v64);
			}
			n += (size_t)sprintf(body + n, "]}");
		}
		sprintf(body + n, "]}");
		int st = http_put(c, "/t/fakerow", "application/json", body,
				  NULL, 0);
		if (st < 0) {
			close(c);
			c = -1;
			continue;
		}
		if (st != 200)
			_exit(7);
		ack a[4];
		for (int k = 0; k < 4; k++)
			a[k] = (ack){ids[k], gen};
		if (write(fd, a, sizeof a) != sizeof a)
			_exit(5);
		gen++;
	}
}

static int free_port(void)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in sa = {.sin_family = AF_INET};
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	socklen_t l = sizeof sa;
	int p = -1;
	if (!bind(fd, (struct sockaddr *)&sa, sizeof sa) &&
	    !getsockname(fd, (struct sockaddr *)&sa, &l))
		p = ntohs(sa.sin_port);
	close(fd);
	return p;
}

/* Start `saltbox serve` on dir; its pid, or -1. */
static pid_t start_server(const char *dir, int *port)
{
	const char *bin = getenv("SBX_SALTBOX");
	if (!bin)
		return -1;
	*port = free_port();
	char portarg[16];
	snprintf(portarg, sizeof portarg, "%d", *port);
	pid_t pid = fork();
	if (pid == 0) {
		freopen("/dev/null", "w", stdout);
		freopen("/dev/null", "w", stderr);
		execl(bin, bin, "serve", "--data", dir, "--port", portarg,
		      (char *)NULL);
		_exit(127);
	}
	for (int i = 0; i < 600; i++) { /* up to 60 s on a busy machine */
		int fd = connect_port(*port);
		if (fd >= 0) {
			close(fd);
			return pid;
		}
		struct timespec ts = {0, 100000000};
		nanosleep(&ts, NULL);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return -1;
}

/* ---- the check ---------------------------------------------------------------- */

/* Scan the store: every acknowledged row present with its acknowledged
 * generation or a newer one, no row torn. *top_out: the highest
 * generation seen (the next round writes above it). */
static void verify(int *top_out, const char *dir, const int *acked,
		   int round, const char *who)
{
	sbx_db *db;
	REQUIRE(sbx_db_open(&db, dir, NULL) == SBX_OK);
	sbx_table *t;
	REQUIRE(sbx_table_open(&t, db, "t") == SBX_OK);
	int *found = malloc(NROWS * sizeof *found);
	REQUIRE(found);
	for (int i = 0; i < NROWS; i++)
		found[i] = -1;
	int top = -1;
	long torn = 0, lost = 0, stale = 0;
	sbx_scanner *s;
	CHECK_INT(sbx_scanner_open(&s, t, NULL), SBX_OK);
	sbx_result *r;
	while (sbx_scanner_next(s, &r) == SBX_OK) {
		size_t n, rl;
		const sbx_cell *c = sbx_result_cells(r, &n);
		const uint8_t *row = sbx_result_row(r, &rl);
		int id = atoi((const char *)row + 3);
		int gen = -1, rid = -1;
		if (n != COLS)
			torn++;
		for (size_t k = 0; k < n; k++) {
			char v[64];
			snprintf(v, sizeof v, "%.*s", (int)c[k].value_len,
				 (const char *)c[k].value);
			int g = -2, ri = -2;
			if (sscanf(v, "g%d:r%d", &g, &ri) != 2 || ri != id ||
			    (k && g != gen))
				torn++;
			gen = g;
			rid = ri;
		}
		(void)rid;
		if (id >= 0 && id < NROWS)
			found[id] = gen;
		top = gen > top ? gen : top;
		sbx_result_free(r);
	}
	sbx_scanner_close(s);
	for (int i = 0; i < NROWS; i++) {
		if (acked[i] < 0)
			continue;
		if (found[i] < 0)
			lost++;
		else if (found[i] < acked[i])
			stale++;
		top = acked[i] > top ? acked[i] : top;
	}
	if (torn || lost || stale)
		fprintf(stderr, "%s round %d: %ld torn, %ld acknowledged rows "
				"lost, %ld with an older value than "
				"acknowledged\n",
			who, round, torn, lost, stale);
	CHECK_INT(torn, 0);
	CHECK_INT(lost, 0);
	CHECK_INT(stale, 0);
	free(found);
	sbx_table_close(t);
	sbx_db_close(db);
	*top_out = top;
}

/* Read acknowledgements from fd until it ends, into acked. */
static long drain_acks(int fd, int *acked, int limit)
{
	ack a[4];
	long n = 0;
	while ((limit < 0 || n < limit) && read(fd, a, sizeof a) == sizeof a) {
		for (int k = 0; k < 4; k++)
			if (a[k].row >= 0 && a[k].row < NROWS &&
			    a[k].gen > acked[a[k].row])
				acked[a[k].row] = a[k].gen;
		n++;
	}
	return n;
}

static void test_kill9(void)
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
	int lib_rounds = env_int("SBX_CRASH_ROUNDS", 12);
	int srv_rounds = env_int("SBX_CRASH_SERVER_ROUNDS", 4);
	if (!getenv("SBX_SALTBOX")) {
		printf("skip: the server rounds need SBX_SALTBOX\n");
		srv_rounds = 0;
	}
	int *acked = malloc(NROWS * sizeof *acked);
	REQUIRE(acked);
	for (int i = 0; i < NROWS; i++)
		acked[i] = -1;
	srand(42);
	int gen = 0;
	long total_acks = 0;
	int rounds = lib_rounds + srv_rounds;
	for (int round = 0; round < rounds; round++) {
		/* server rounds spread among the library ones */
		bool server_round = srv_rounds && round % (rounds / srv_rounds) ==
							  (rounds / srv_rounds) - 1;
		int p[2];
		REQUIRE(pipe(p) == 0);
		int port = 0;
		pid_t srv = -1;
		if (server_round) {
			srv = start_server(dir, &port);
			REQUIRE(srv > 0);
		}
		int nw = server_round ? REST_WRITERS : 1;
		pid_t pids[REST_WRITERS];
		for (int w = 0; w < nw; w++) {
			unsigned seed = (unsigned)rand();
			pids[w] = fork();
			REQUIRE(pids[w] >= 0);
			if (pids[w] == 0) {
				close(p[0]);
				if (server_round)
					child_rest_writer(port, p[1], gen, seed,
							  w);
				else
					child_writer(dir, p[1], gen, seed);
			}
		}
		close(p[1]);
		/* kill at a random point once the writers are under way (a
		 * busy machine may take a while to start them) */
		total_acks += drain_acks(p[0], acked, 8);
		usleep((useconds_t)(rand() % 300000));
		kill(server_round ? srv : pids[0], SIGKILL);
		int status;
		waitpid(server_round ? srv : pids[0], &status, 0);
		CHECK(WIFSIGNALED(status));
		if (server_round) { /* the writers lose their server */
			for (int w = 0; w < nw; w++) {
				kill(pids[w], SIGKILL);
				waitpid(pids[w], NULL, 0);
			}
		}
		total_acks += drain_acks(p[0], acked, -1);
		close(p[0]);
		int top = gen;
		verify(&top, dir, acked, round,
		       server_round ? "server" : "library");
		gen = top + 1;
	}
	printf("%d library and %d server rounds killed, %ld acknowledged "
	       "writes of 4 rows, every one read back\n",
	       lib_rounds, srv_rounds, total_acks);
	CHECK(total_acks >= rounds * 8);
	free(acked);
}

TEST_MAIN(T(test_kill9))
