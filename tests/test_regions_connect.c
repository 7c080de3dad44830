/*
 * test_regions_connect.c - issue 18.13: the load of a store that `saltbox
 * serve` holds is read from the running server. A table of three regions
 * gets writes and a read through REST; then `saltbox regions stats
 * --connect URL`, the shell's `status 'simple'` over --connect and REST's
 * /status/cluster must report the same four modelled servers with the
 * same requests per server (and `regions stats --data` on the held store
 * says who holds it).
 */
#include "check.h"
#include "cli_util.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

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

/* `curl ARGS` (shell syntax), its output into out. Exit status. */
static int curl(const char *args, char *out, size_t cap)
{
	char cmd[16600];
	snprintf(cmd, sizeof cmd, "curl -s --max-time 20 %s", args);
	FILE *p = popen(cmd, "r");
	if (!p)
		return -1;
	size_t n = fread(out, 1, cap - 1, p);
	out[n] = 0;
	return pclose(p);
}

static void test_live_metrics(void)
{
	if (system("command -v curl >/dev/null 2>&1") != 0) {
		printf("skip: curl is needed (scripts/bootstrap.sh test)\n");
		return;
	}
	char data[4200], args[16384], url[64], out[65536];
	snprintf(data, sizeof data, "%s", test_dir("regions_connect"));
	snprintf(args, sizeof args, "rm -rf '%s'", data);
	REQUIRE(system(args) == 0);
	char script[4300];
	snprintf(script, sizeof script, "%s.hbase", data);
	FILE *f = fopen(script, "w");
	REQUIRE(f);
	fputs("create 't', 'cf', SPLITS => ['g', 'p']\n", f);
	fclose(f);
	snprintf(args, sizeof args, "shell --data '%s' '%s'", data, script);
	REQUIRE(run_saltbox(args) == 0);

	int port = free_port();
	REQUIRE(port > 0);
	snprintf(url, sizeof url, "http://127.0.0.1:%d", port);
	char portarg[16];
	snprintf(portarg, sizeof portarg, "%d", port);
	const char *bin = getenv("SBX_SALTBOX");
	REQUIRE(bin);
	pid_t srv = fork();
	REQUIRE(srv >= 0);
	if (srv == 0) {
		freopen("/dev/null", "w", stdout);
		execl(bin, bin, "serve", "--data", data, "--port", portarg,
		      (char *)NULL);
		_exit(127);
	}
	bool up = false;
	for (int i = 0; i < 300 && !up; i++) {
		snprintf(args, sizeof args, "%s/version/cluster", url);
		up = curl(args, out, sizeof out) == 0 && strstr(out, "2.5.0");
		if (!up) {
			struct timespec ts = {0, 100000000};
			nanosleep(&ts, NULL);
		}
	}
	REQUIRE(up);
	/* load: 2 writes on the first region, 1 on the second, 3 writes and a
	 * read on the third (as the table splits over servers 0, 1, 2) */
	const char *rows[] = {"a", "b", "h", "q", "r", "s"};
	for (int i = 0; i < 6; i++) {
		snprintf(args, sizeof args,
			 "-X PUT -H 'Content-Type: application/octet-stream' "
			 "--data-binary v %s/t/%s/cf:q",
			 url, rows[i]);
		CHECK_INT(curl(args, out, sizeof out), 0);
	}
	snprintf(args, sizeof args, "-H 'Accept: application/octet-stream' %s/t/q/cf:q", url);
	CHECK_INT(curl(args, out, sizeof out), 0);
	CHECK_STR(out, "v");

	/* the CLI, from the running server */
	snprintf(args, sizeof args, "regions stats --connect %s t", url);
	CHECK_INT(run_saltbox(args), 0);
	CHECK_OUT("\nserver regions     requests   share\n"
		  "0            1            2   28.6%\n"
		  "1            1            1   14.3%\n"
		  "2            1            4   57.1%\n"
		  "3            0            0    0.0%\n"
		  "busiest server's share: 57.1% (even: 25.0%)\n"
		  /* issue 17: the one verdict, computed as /ui and keyviz */
		  "verdict: hot: server 2 served 57% of the load; hotspot "
		  "score 2.29 of 4 (1 = even, hot from 2.00)\n");
	CHECK_OUT("''                        0          0          2 ");
	CHECK_OUT("p                         2          1          3 ");
	/* the store itself is the server's */
	snprintf(args, sizeof args, "regions stats --data '%s' t", data);
	CHECK_INT(run_saltbox(args), 1);
	CHECK_OUT("is in use by another saltbox process");

	/* the shell over REST: the same servers and load */
	f = fopen(script, "w");
	REQUIRE(f);
	fputs("status 'simple'\nstatus\n", f);
	fclose(f);
	snprintf(args, sizeof args, "shell --connect %s '%s'", url, script);
	CHECK_INT(run_saltbox(args), 0);
	CHECK_OUT("4 live servers\n    server-0:16020 0\n");
	CHECK_OUT("    server-2:16020 0\n        requestsPerSecond=0.0, "
		  "numberOfOnlineRegions=1, usedHeapMB=0, maxHeapMB=0, "
		  "numberOfStores=1, numberOfStorefiles=1, storefileSizeMB=0, "
		  "memstoreSizeMB=0, readRequestsCount=1, "
		  "filteredReadRequestsCount=0, writeRequestsCount=3\n");
	CHECK_OUT("Aggregate load: 7, regions: 3\n");
	CHECK_OUT("1 active master, 0 backup masters, 4 servers, 0 dead, "
		  "0.7500 average load\n");

	/* REST /status/cluster: the same */
	snprintf(args, sizeof args, "%s/status/cluster", url);
	CHECK_INT(curl(args, out, sizeof out), 0);
	char *p = out;
	/* drop the start codes, which vary */
	for (char *s = strstr(p, "16020 "); s; s = strstr(s, "16020 ")) {
		char *e = s + 6;
		while (*e >= '0' && *e <= '9')
			e++;
		memmove(s + 6, e, strlen(e) + 1);
		s += 6;
	}
	if (!strstr(out, "4 live servers, 0 dead servers, 0.7500 average "
			 "load\n\n4 live servers\n"
			 "    server-0:16020 \n        requests=2, regions=1\n") ||
	    !strstr(out, "    server-1:16020 \n        requests=1, regions=1\n") ||
	    !strstr(out, "    server-2:16020 \n        requests=4, regions=1\n") ||
	    !strstr(out, "    server-3:16020 \n        requests=0, regions=0\n"
			 "\n0 dead servers\n") ||
	    /* issue 17: the verdict over the same per-server requests */
	    !strstr(out, "\nhotspot hot: server-2 served 57% of the load; "
			 "hotspot score 2.29 of 4 (1 = even, hot from 2.00)\n")) {
		fprintf(stderr, "/status/cluster:\n%s\n", out);
		check_failures++;
	}
	snprintf(args, sizeof args, "-H 'Accept: application/json' "
		 "%s/status/cluster", url);
	CHECK_INT(curl(args, out, sizeof out), 0);
	CHECK(strstr(out, "{\"regions\":3,\"requests\":7,\"averageLoad\":0.7500,"
			  "\"LiveNodes\":[{\"name\":\"server-0:16020\"") != NULL);
	snprintf(args, sizeof args, "-H 'Accept: application/json' %s/t/regions",
		 url);
	CHECK_INT(curl(args, out, sizeof out), 0);
	CHECK(strstr(out, "\"location\":\"server-2:16020\"") != NULL);

	kill(srv, SIGTERM);
	int st;
	waitpid(srv, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

TEST_MAIN(T(test_live_metrics))
