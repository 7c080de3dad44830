/*
 * test_rest_memory.c - issue 18.2: request bodies are bounded. A real
 * `saltbox serve` (the binary in $SBX_SALTBOX, its own process so its
 * /proc/PID/status is its own) gets eight concurrent ~48 MiB bodies (JSON
 * CellSets of 36 one-MiB cells, as a bulk PUT would send) with a
 * 64 MiB per-request cap and a 128 MiB cap on the bodies held at once:
 * those over the budget get 503 with Retry-After, the rest are stored,
 * the server's peak RSS (VmHWM) stays under a stated bound, and its RSS
 * afterwards falls back near where it started (the memory is returned).
 * A body over the per-request cap is 413 before it is read.
 */
#include "check.h"
#include "http_util.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdbool.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NCLIENTS 8
#define MIB ((size_t)1 << 20)

/* Sanitizer builds keep freed memory in quarantine and never trim: the
 * bounds below are for the allocator the server really runs with, and
 * ASan's own overhead (shadow memory, redzones) is allowed for. */
#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#else
#define SANITIZED 0
#endif
/* Peak: the admitted bodies (at most 128 MiB), one copy of a body as the
 * cell (memtable and WAL), RocksDB and the threads. */
#define PEAK_BOUND_MIB (SANITIZED ? 1024 : 640)
/* After: everything a body held handed back; the memtable keeps its
 * cells until a flush. */
#define AFTER_BOUND_MIB (SANITIZED ? 640 : 320)

static int port;
static pid_t server;

static long proc_kib(pid_t pid, const char *field)
{
	char path[64], line[256];
	snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	long v = -1;
	size_t fl = strlen(field);
	while (fgets(line, sizeof line, f))
		if (!strncmp(line, field, fl) && line[fl] == ':')
			v = atol(line + fl + 1);
	fclose(f);
	return v;
}

static int connect_port(void)
{
	return http_connect(port, 60);
}

/* Read until the end of a response head (or the connection's end) into
 * out at *got. */
static void read_head(int fd, char *out, size_t cap, size_t *got)
{
	while (*got < cap - 1) {
		out[*got] = 0;
		char *e = strstr(out, "\r\n\r\n");
		if (e && (strncmp(out, "HTTP/1.1 100", 12) || e + 4 < out + *got))
			break;
		if (e && !strncmp(out, "HTTP/1.1 100", 12))
			break;
		ssize_t r = recv(fd, out + *got, cap - 1 - *got, 0);
		if (r <= 0)
			break;
		*got += (size_t)r;
	}
	out[*got] = 0;
}

/* Send a request as curl does (Expect: 100-continue: the body goes only
 * once the server has said so): `len` body bytes from `body`, or of 'x'
 * when body is NULL. The final reply head lands in out. Returns its
 * status or -1. */
static int send_body(const char *method, const char *path, const char *body,
		     size_t len, const char *ctype, char *out, size_t cap)
{
	int fd = connect_port();
	if (fd < 0)
		return -1;
	char head[512];
	int n = snprintf(head, sizeof head,
			 "%s %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
			 "Content-Type: %s\r\nContent-Length: %zu\r\n%s\r\n",
			 method, path, ctype, len,
			 len ? "Expect: 100-continue\r\n" : "");
	send(fd, head, (size_t)n, MSG_NOSIGNAL);
	size_t got = 0;
	if (len) {
		read_head(fd, out, cap, &got);
		if (strncmp(out, "HTTP/1.1 100", 12))
			goto done; /* refused before the body */
		got = 0;
		char buf[1 << 16];
		memset(buf, 'x', sizeof buf);
		for (size_t sent = 0; sent < len;) {
			size_t k = len - sent < sizeof buf ? len - sent
							   : sizeof buf;
			ssize_t w = send(fd, body ? body + sent : buf, k,
					 MSG_NOSIGNAL);
			if (w <= 0)
				break;
			sent += (size_t)w;
		}
	}
	read_head(fd, out, cap, &got);
done:
	close(fd);
	int status = -1;
	if (sscanf(out, "HTTP/1.1 %d", &status) != 1)
		return -1;
	return status;
}

/* The CellSet every client PUTs: NCELLS rows of one 1 MiB cell each,
 * base64 as HBase REST's JSON has it. */
#define NCELLS 36
static char *cellset;
static size_t cellset_len;

static void make_cellset(void)
{
	size_t cell = MIB;
	unsigned char *raw = malloc(cell);
	char *enc = malloc(cell / 3 * 4 + 8);
	REQUIRE(raw && enc);
	for (size_t i = 0; i < cell; i++)
		raw[i] = (unsigned char)(i * 7);
	http_b64(enc, raw, cell);
	size_t cap = NCELLS * (strlen(enc) + 128) + 64;
	cellset = malloc(cap);
	REQUIRE(cellset);
	size_t n = (size_t)sprintf(cellset, "{\"Row\":[");
	for (int i = 0; i < NCELLS; i++) {
		char key[16], k64[32];
		snprintf(key, sizeof key, "row%03d", i);
		http_b64(k64, key, strlen(key));
		n += (size_t)sprintf(cellset + n,
				     "%s{\"key\":\"%s\",\"Cell\":[{\"column\":"
				     "\"Y2Y6cQ==\",\"$\":\"%s\"}]}",
				     i ? "," : "", k64, enc);
	}
	n += (size_t)sprintf(cellset + n, "]}");
	cellset_len = n;
	free(raw);
	free(enc);
}

static int send_request(const char *method, const char *path, size_t len,
			const char *ctype, char *out, size_t cap)
{
	return send_body(method, path, NULL, len, ctype, out, cap);
}

typedef struct client {
	int id, status;
	bool retry_after;
} client;

static void *put_body(void *arg)
{
	client *c = arg;
	char path[64], out[4096];
	snprintf(path, sizeof path, "/t/fakerow%d", c->id);
	c->status = send_body("PUT", path, cellset, cellset_len,
			      "application/json", out, sizeof out);
	if (c->status != 200 && c->status != 503)
		fprintf(stderr, "client %d: %s\n", c->id, out);
	c->retry_after = strstr(out, "Retry-After: 1\r\n") != NULL;
	return NULL;
}

static int free_port(void)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in sa = {.sin_family = AF_INET};
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	socklen_t l = sizeof sa;
	if (bind(fd, (struct sockaddr *)&sa, sizeof sa) ||
	    getsockname(fd, (struct sockaddr *)&sa, &l)) {
		close(fd);
		return -1;
	}
	int p = ntohs(sa.sin_port);
	close(fd);
	return p;
}

static void start_server(const char *data)
{
	const char *bin = getenv("SBX_SALTBOX");
	REQUIRE(bin);
	port = free_port();
	REQUIRE(port > 0);
	char portarg[16];
	snprintf(portarg, sizeof portarg, "%d", port);
	server = fork();
	REQUIRE(server >= 0);
	if (server == 0) {
		freopen("/dev/null", "w", stdout);
		execl(bin, bin, "serve", "--data", data, "--port", portarg,
		      "--threads", "8", "--max-body", "67108864",
		      "--max-inflight-body", "134217728", (char *)NULL);
		_exit(127);
	}
	for (int i = 0; i < 300; i++) { /* up to 30 s */
		char out[4096];
		if (send_request("GET", "/version/cluster", 0, "text/plain", out,
				 sizeof out) == 200)
			return;
		struct timespec ts = {0, 100000000};
		nanosleep(&ts, NULL);
	}
	REQUIRE(!"the server did not start");
}

static void test_bounded_bodies(void)
{
	char data[4200];
	snprintf(data, sizeof data, "%s", test_dir("rest_memory"));
	char cmd[8400];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", data);
	REQUIRE(system(cmd) == 0);
	start_server(data);
	char out[4096];
	const char *schema = "{\"ColumnSchema\":[{\"name\":\"cf\"}]}";
	{
		int fd = connect_port();
		REQUIRE(fd >= 0);
		char req[512];
		int n = snprintf(req, sizeof req,
				 "PUT /t/schema HTTP/1.1\r\nHost: x\r\n"
				 "Connection: close\r\nContent-Type: "
				 "application/json\r\nContent-Length: %zu\r\n"
				 "\r\n%s",
				 strlen(schema), schema);
		send(fd, req, (size_t)n, MSG_NOSIGNAL);
		ssize_t r = recv(fd, out, sizeof out - 1, 0);
		out[r > 0 ? r : 0] = 0;
		close(fd);
		CHECK(!strncmp(out, "HTTP/1.1 201", 12) ||
		      !strncmp(out, "HTTP/1.1 200", 12));
	}
	long rss0 = proc_kib(server, "VmRSS");
	CHECK(rss0 > 0);

	/* over the per-request cap: 413 before the body is read */
	CHECK_INT(send_request("PUT", "/t/big/cf:q", 80 * MIB,
			       "application/octet-stream", out, sizeof out),
		  413);

	make_cellset();
	CHECK(cellset_len > 40 * MIB && cellset_len < 64 * MIB);
	pthread_t th[NCLIENTS];
	client c[NCLIENTS];
	for (int i = 0; i < NCLIENTS; i++) {
		c[i] = (client){.id = i};
		pthread_create(&th[i], NULL, put_body, &c[i]);
	}
	for (int i = 0; i < NCLIENTS; i++)
		pthread_join(th[i], NULL);
	int stored = 0, busy = 0;
	for (int i = 0; i < NCLIENTS; i++) {
		if (c[i].status == 200) {
			stored++;
		} else if (c[i].status == 503) {
			busy++;
			CHECK(c[i].retry_after);
		} else {
			fprintf(stderr, "client %d: status %d\n", i,
				c[i].status);
			check_failures++;
		}
	}
	CHECK(stored >= 1);
	CHECK(busy >= 1); /* 8 x 48 MiB cannot all fit in 128 MiB at once */
	long hwm = proc_kib(server, "VmHWM");
	struct timespec ts = {1, 0};
	nanosleep(&ts, NULL);
	long rss1 = proc_kib(server, "VmRSS");
	printf("server RSS: %ld MiB before, peak %ld MiB, %ld MiB after; "
	       "%d stored, %d told to retry (bounds: peak %d, after %d MiB)\n",
	       rss0 >> 10, hwm >> 10, rss1 >> 10, stored, busy,
	       PEAK_BOUND_MIB, AFTER_BOUND_MIB);
	CHECK(hwm > 0 && hwm < (long)PEAK_BOUND_MIB << 10);
	CHECK(rss1 > 0 && rss1 < (long)AFTER_BOUND_MIB << 10);
	/* a stored body reads back whole: a 1 MiB cell of the last row */
	if (stored) {
		int fd = connect_port();
		REQUIRE(fd >= 0);
		const char *req = "GET /t/row035/cf:q HTTP/1.1\r\nHost: x\r\n"
				  "Accept: application/octet-stream\r\n"
				  "Connection: close\r\n\r\n";
		send(fd, req, strlen(req), MSG_NOSIGNAL);
		static char body[4 << 20];
		size_t got = 0;
		ssize_t r;
		while ((r = recv(fd, body + got, sizeof body - 1 - got, 0)) > 0)
			got += (size_t)r;
		body[got] = 0;
		close(fd);
		char *hdr_end = strstr(body, "\r\n\r\n");
		CHECK(hdr_end != NULL);
		if (hdr_end)
			CHECK_INT((int)(got - (size_t)(hdr_end + 4 - body)),
				  (int)MIB);
	}
	kill(server, SIGTERM);
	int st;
	waitpid(server, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	free(cellset);
}

TEST_MAIN(T(test_bounded_bodies))
