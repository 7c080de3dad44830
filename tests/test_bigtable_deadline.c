/*
 * test_bigtable_deadline.c - the Bigtable backend's per-call deadline
 * (SALTBOX_BIGTABLE_TIMEOUT_MS): a bad value is refused by the connect
 * with nothing sent, and a server that accepts the connection but never
 * answers (a stalled emulator) fails a call after the deadline, with an
 * error that says so, instead of hanging. No emulator needed: the silent
 * server is a listening socket of this process that nobody reads.
 */
#include "check.h"

#include <saltbox.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <time.h>

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void test_bad_values_refused(void)
{
	setenv("BIGTABLE_EMULATOR_HOST", "127.0.0.1:9", 1);
	static const char *const bad[] = {"",	 "abc", "0",	     "-5",
					  "10x", " 10", "86400001", "99999999999999999999"};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		setenv("SALTBOX_BIGTABLE_TIMEOUT_MS", bad[i], 1);
		sbx_db *db = (sbx_db *)1;
		CHECK_INT(sbx_db_connect(&db, "bigtable://p/i"), SBX_EINVAL);
		CHECK(db == NULL);
		CHECK(strstr(sbx_errmsg(), "SALTBOX_BIGTABLE_TIMEOUT_MS") !=
		      NULL);
	}
	/* the bounds themselves are taken */
	static const char *const good[] = {"1", "86400000", "250"};
	for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
		setenv("SALTBOX_BIGTABLE_TIMEOUT_MS", good[i], 1);
		sbx_db *db = NULL;
		CHECK_INT(sbx_db_connect(&db, "bigtable://p/i"), SBX_OK);
		sbx_db_close(db);
	}
	unsetenv("SALTBOX_BIGTABLE_TIMEOUT_MS");
}

static void test_silent_server_times_out(void)
{
	int ls = socket(AF_INET, SOCK_STREAM, 0);
	REQUIRE(ls >= 0);
	struct sockaddr_in a = {.sin_family = AF_INET,
				.sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t al = sizeof a;
	REQUIRE(bind(ls, (struct sockaddr *)&a, sizeof a) == 0);
	REQUIRE(listen(ls, 16) == 0);
	REQUIRE(getsockname(ls, (struct sockaddr *)&a, &al) == 0);
	char host[64];
	snprintf(host, sizeof host, "127.0.0.1:%d", (int)ntohs(a.sin_port));
	setenv("BIGTABLE_EMULATOR_HOST", host, 1);
	setenv("SALTBOX_BIGTABLE_TIMEOUT_MS", "300", 1);
	sbx_db *db = NULL;
	REQUIRE(sbx_db_connect(&db, "bigtable://p/i") == SBX_OK);
	double t0 = now_s();
	bool exists = true;
	int rc = sbx_table_exists(&exists, db, "t");
	double took = now_s() - t0;
	CHECK_INT(rc, SBX_EREMOTE);
	CHECK(strstr(sbx_errmsg(), "did not answer") != NULL);
	CHECK(strstr(sbx_errmsg(), "within 300 ms") != NULL);
	/* the deadline, not the default minute (generous for a loaded
	 * machine and a sanitizer build) */
	CHECK(took >= 0.25);
	CHECK(took < 20);
	if (rc != SBX_EREMOTE || took >= 20)
		fprintf(stderr, "took %.2f s: %s\n", took, sbx_errmsg());
	sbx_db_close(db);
	close(ls);
	unsetenv("SALTBOX_BIGTABLE_TIMEOUT_MS");
}

TEST_MAIN(T(test_bad_values_refused), T(test_silent_server_times_out))
