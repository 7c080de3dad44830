/*
 * test_rest_guard.c - `saltbox serve` against what an attacker or a careless
 * second start does (issue 18): a port or store directory already in use,
 * HTTP framing that could smuggle a request (RFC 9112), the bearer token on
 * every endpoint and scanners bound to it, per-client scanner caps, slow
 * connections that must not starve other clients, and names and headers
 * HBase refuses. Requests go over raw sockets so nothing is normalised.
 */
#include "check.h"

#include "saltbox.h"
#include "common/buf.h"
#include "model/names.h"
#include "server/rest.h"
#include "server/server.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>

/* ---- raw HTTP ------------------------------------------------------------ */

static int connect_from(int port, const char *src, bool nonblock)
{
	int fd = socket(AF_INET, SOCK_STREAM | (nonblock ? SOCK_NONBLOCK : 0), 0);
	if (fd < 0)
		return -1;
	if (src) {
		struct sockaddr_in me = {.sin_family = AF_INET};
		inet_pton(AF_INET, src, &me.sin_addr);
		if (bind(fd, (struct sockaddr *)&me, sizeof me)) {
			close(fd);
			return -1;
		}
	}
	struct timeval tv = {5, 0};
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	struct sockaddr_in sa = {.sin_family = AF_INET,
				 .sin_port = htons((uint16_t)port)};
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (connect(fd, (struct sockaddr *)&sa, sizeof sa) && errno != EINPROGRESS) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Send raw bytes, read until the server closes or 5 s pass. The reply
 * (NUL-terminated) goes to out; *closed says the server closed. Returns
 * the status of the first response, or -1. */
static int raw(int port, const char *req, size_t len, char *out, size_t cap,
	       bool *closed)
{
	int fd = connect_from(port, NULL, false);
	if (fd < 0)
		return -1;
	send(fd, req, len, MSG_NOSIGNAL);
	size_t got = 0;
	*closed = false;
	for (;;) {
		ssize_t n = recv(fd, out + got, cap - 1 - got, 0);
		if (n == 0)
			*closed = true;
		if (n <= 0)
			break;
		got += (size_t)n;
		if (got == cap - 1)
			break;
	}
	out[got] = 0;
	close(fd);
	int status = -1;
	if (sscanf(out, "HTTP/1.1 %d", &status) != 1)
		return -1;
	return status;
}

/* One request with "Connection: close"; headers is "" or lines with CRLF. */
static int req(int port, const char *method, const char *path,
	       const char *headers, const char *body, char *out, size_t cap)
{
	char buf[4096];
	int n = snprintf(buf, sizeof buf,
			 "%s %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n%s"
			 "Content-Length: %zu\r\n\r\n%s",
			 method, path, headers, strlen(body), body);
	bool closed;
	return raw(port, buf, (size_t)n, out, cap, &closed);
}

static char reply[1 << 16];

static sbx_server *serve(sbx_db *db, sbx_server_opts *o, int *port)
{
	sbx_server *srv = NULL;
	if (sbx_server_start(&srv, db, o) != SBX_OK)
		return NULL;
	*port = sbx_server_port(srv);
	return srv;
}

static sbx_db *fresh_db(const char *name)
{
	sbx_db *db = NULL;
	if (sbx_db_open(&db, test_dir(name), NULL))
		return NULL;
	sbx_family_desc fd;
	sbx_family_desc_init(&fd, "f");
	if (sbx_table_create(db, "t", &fd, 1)) {
		sbx_db_close(db);
		return NULL;
	}
	return db;
}

/* ---- 1. a port or a directory in use ------------------------------------- */

static void test_port_in_use(void)
{
	sbx_db *db = fresh_db("guard_port");
	REQUIRE(db);
	sbx_server_opts o;
	sbx_server_opts_init(&o);
	o.port = 0;
	int port;
	sbx_server *a = serve(db, &o, &port);
	REQUIRE(a);
	o.port = port;
	sbx_server *b = NULL;
	CHECK_INT(sbx_server_start(&b, db, &o), SBX_EIO);
	char want[128];
	snprintf(want, sizeof want, "cannot listen on 127.0.0.1 port %d: "
				    "address already in use", port);
	CHECK_STR(sbx_errmsg(), want);
	CHECK(b == NULL);
	const char *bin = getenv("SBX_SALTBOX");
	if (bin) { /* the command: non-zero exit, the reason on stderr */
		char cmd[9000];
		snprintf(cmd, sizeof cmd, "'%s' serve --data '%s' --port %d 2>&1",
			 bin, test_dir("guard_port_cli"), port);
		FILE *p = popen(cmd, "r");
		REQUIRE(p);
		char out[512] = "";
		size_t n = fread(out, 1, sizeof out - 1, p);
		out[n] = 0;
		int st = pclose(p);
		CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 1);
		snprintf(want, sizeof want, "saltbox serve: cannot listen on "
			 "127.0.0.1 port %d: address already in use\n", port);
		CHECK_STR(out, want);
	}
	sbx_server_stop(a, 1000);
	sbx_db_close(db);
}

static void test_dir_in_use(void)
{
	const char *dir = test_dir("guard_dir");
	char path[4096];
	snprintf(path, sizeof path, "%s", dir);
	int ready[2], hold[2];
	REQUIRE(pipe(ready) == 0 && pipe(hold) == 0);
	pid_t pid = fork();
	REQUIRE(pid >= 0);
	if (pid == 0) {
		sbx_db *db;
		char c = sbx_db_open(&db, path, NULL) == SBX_OK ? 'y' : 'n';
		if (write(ready[1], &c, 1) != 1)
			_exit(1);
		close(hold[1]);
		while (read(hold[0], &c, 1) > 0) /* until the parent is done */
			;
		if (c == 'y')
			sbx_db_close(db);
		_exit(0);
	}
	close(hold[0]);
	char c = 0;
	CHECK_INT(read(ready[0], &c, 1), 1);
	CHECK_INT(c, 'y');
	char want[4200];
	snprintf(want, sizeof want,
		 "%s is in use by another saltbox process (pid %d)", path,
		 (int)pid);
	sbx_db *db = NULL;
	CHECK_INT(sbx_db_open(&db, path, NULL), SBX_EBUSY);
	CHECK_STR(sbx_errmsg(), want);
	const char *bin = getenv("SBX_SALTBOX");
	if (bin) { /* a subcommand says the same */
		char cmd[5000];
		snprintf(cmd, sizeof cmd, "'%s' serve --data '%s' --port 0 2>&1",
			 bin, path);
		FILE *p = popen(cmd, "r");
		REQUIRE(p);
		char out[5000] = "";
		size_t n = fread(out, 1, sizeof out - 1, p);
		out[n] = 0;
		int st = pclose(p);
		CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 1);
		char line[9000];
		snprintf(line, sizeof line, "saltbox serve: cannot open '%s': %s\n",
			 path, want);
		CHECK_STR(out, line);
	}
	close(hold[1]);
	waitpid(pid, NULL, 0);
	/* the holder is gone: the lock went with it */
	CHECK_INT(sbx_db_open(&db, path, NULL), SBX_OK);
	if (db)
		sbx_db_close(db);
}

/* ---- 7. framing: answer and close, never run the bytes after ------------- */

static void test_framing(void)
{
	sbx_db *db = fresh_db("guard_framing");
	REQUIRE(db);
	sbx_server_opts o;
	sbx_server_opts_init(&o);
	o.port = 0;
	int port;
	sbx_server *srv = serve(db, &o, &port);
	REQUIRE(srv);
	bool closed;
	/* both framings, with a DELETE of the table smuggled behind */
	static const char smuggle[] =
		"PUT /t/r/f:q HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n"
		"Transfer-Encoding: chunked\r\n"
		"Content-Type: application/octet-stream\r\n\r\n"
		"0\r\n\r\nDELETE /t/schema HTTP/1.1\r\nHost: x\r\n\r\n";
	CHECK_INT(raw(port, smuggle, sizeof smuggle - 1, reply, sizeof reply,
		      &closed), 400);
	CHECK(closed);
	CHECK(strstr(reply, "both Content-Length and Transfer-Encoding given"));
	CHECK(!strstr(reply + 10, "HTTP/1.1")); /* one response only */
	sbx_table *t;
	CHECK_INT(sbx_table_open(&t, db, "t"), SBX_OK); /* not dropped */
	if (t)
		sbx_table_close(t);

	static const char two_lengths[] =
		"PUT /t/r/f:q HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n"
		"Content-Length: 2\r\nContent-Type: application/octet-stream"
		"\r\n\r\nab";
	CHECK_INT(raw(port, two_lengths, sizeof two_lengths - 1, reply,
		      sizeof reply, &closed), 400);
	CHECK(closed);
	CHECK(strstr(reply, "\r\n\r\nBad request\r\nconflicting "
			    "Content-Length headers\r\n"));

	static const char xchunked[] =
		"PUT /t/r/f:q HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: "
		"xchunked\r\nContent-Type: application/octet-stream\r\n\r\nab";
	CHECK_INT(raw(port, xchunked, sizeof xchunked - 1, reply, sizeof reply,
		      &closed), 501);
	CHECK(closed);
	CHECK(strstr(reply, "Transfer-Encoding 'xchunked' is not supported "
			    "(only chunked)"));

	/* a 38 KB query string, as one value and as 9,500 small ones */
	sbx_buf big = {0};
	sbx_buf_printf(&big, "GET /version?a=");
	for (int i = 0; i < 38000; i++)
		sbx_buf_push(&big, 'b');
	sbx_buf_printf(&big, " HTTP/1.1\r\nHost: x\r\n\r\n");
	CHECK_INT(raw(port, (const char *)big.data, big.len, reply, sizeof reply,
		      &closed), 414);
	CHECK(closed);
	CHECK(strstr(reply, "request target of 38011 bytes is over the "
			    "32768-byte limit"));
	big.len = 0;
	sbx_buf_printf(&big, "GET /version?");
	for (int i = 0; i < 9500; i++)
		sbx_buf_printf(&big, "a=b&");
	sbx_buf_printf(&big, " HTTP/1.1\r\nHost: x\r\n\r\n");
	CHECK_INT(raw(port, (const char *)big.data, big.len, reply, sizeof reply,
		      &closed), 414);
	/* a target just under the limit fits the connection's 64 KiB
	 * buffer with its headers: answered */
	big.len = 0;
	sbx_buf_printf(&big, "GET /version?a=");
	for (int i = 0; i < 32700; i++)
		sbx_buf_push(&big, 'b');
	sbx_buf_printf(&big, " HTTP/1.1\r\nHost: x\r\nX-Pad: ");
	for (int i = 0; i < 8000; i++)
		sbx_buf_push(&big, 'p');
	sbx_buf_printf(&big, "\r\nConnection: close\r\n\r\n");
	CHECK_INT(raw(port, (const char *)big.data, big.len, reply, sizeof reply,
		      &closed), 200);
	/* 4,000 small arguments fit: answered, not dropped */
	big.len = 0;
	sbx_buf_printf(&big, "GET /version?");
	for (int i = 0; i < 4000; i++)
		sbx_buf_printf(&big, "a&");
	sbx_buf_printf(&big, " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
	CHECK_INT(raw(port, (const char *)big.data, big.len, reply, sizeof reply,
		      &closed), 200);
	sbx_buf_free(&big);
	sbx_server_stop(srv, 1000);
	sbx_db_close(db);
}

/* ---- 5. the token guards everything; scanners are bound to it ------------ */

static const char *location_id(const char *r)
{
	const char *loc = strstr(r, "Location: ");
	const char *id = loc ? strstr(loc, "/scanner/") : NULL;
	static char out[128];
	out[0] = 0;
	if (id)
		sscanf(id + 9, "%127[^\r\n]", out);
	return out;
}

static void test_token(void)
{
	sbx_db *db = fresh_db("guard_token");
	REQUIRE(db);
	sbx_server_opts o;
	sbx_server_opts_init(&o);
	o.port = 0;
	o.token = "s3cret";
	int port;
	sbx_server *srv = serve(db, &o, &port);
	REQUIRE(srv);
	static const char *const reads[] = {"/", "/version", "/status/cluster",
					    "/ui", "/t/schema", "/t/r",
					    "/t/*", "/namespaces"};
	for (size_t i = 0; i < sizeof reads / sizeof *reads; i++) {
		CHECK_INT(req(port, "GET", reads[i], "", "", reply, sizeof reply),
			  401);
		CHECK(strstr(reply, "WWW-Authenticate: Bearer realm=\"saltbox\""));
	}
	static const char *auth = "Authorization: Bearer s3cret\r\n";
	CHECK_INT(req(port, "GET", "/", auth, "", reply, sizeof reply), 200);
	CHECK_INT(req(port, "GET", "/", "Authorization: Bearer s3cre\r\n", "",
		      reply, sizeof reply), 401);
	CHECK_INT(req(port, "PUT", "/t/scanner",
		      "Content-Type: application/json\r\n", "{}", reply,
		      sizeof reply), 401);
	sbx_server_stop(srv, 1000);

	/* --public-read: reads are open, writes are not, scanners are bound */
	o.public_read = true;
	srv = serve(db, &o, &port);
	REQUIRE(srv);
	CHECK_INT(req(port, "GET", "/", "", "", reply, sizeof reply), 200);
	CHECK_INT(req(port, "GET", "/status/cluster", "", "", reply,
		      sizeof reply), 200);
	CHECK_INT(req(port, "PUT", "/t/r/f:q",
		      "Content-Type: application/octet-stream\r\n", "v", reply,
		      sizeof reply), 401);
	char hdr[256];
	snprintf(hdr, sizeof hdr, "%sContent-Type: application/octet-stream\r\n",
		 auth);
	CHECK_INT(req(port, "PUT", "/t/r/f:q", hdr, "v", reply, sizeof reply), 200);
	snprintf(hdr, sizeof hdr, "%sContent-Type: application/json\r\n", auth);
	CHECK_INT(req(port, "PUT", "/t/scanner", hdr, "{}", reply, sizeof reply),
		  201);
	char id[128];
	snprintf(id, sizeof id, "%s", location_id(reply));
	CHECK_INT(strlen(id), 32); /* 128 bits in hex */
	CHECK_INT(strspn(id, "0123456789abcdef"), 32);
	char path[256];
	snprintf(path, sizeof path, "/t/scanner/%s", id);
	CHECK_INT(req(port, "GET", path, "Accept: application/json\r\n", "",
		      reply, sizeof reply), 404); /* not without the token */
	snprintf(hdr, sizeof hdr, "%sAccept: application/json\r\n", auth);
	CHECK_INT(req(port, "GET", path, hdr, "", reply, sizeof reply), 200);
	CHECK(strstr(reply, "\"key\":\"cg==\"")); /* row "r" */
	/* an anonymous scanner is not the token holder's either */
	CHECK_INT(req(port, "PUT", "/t/scanner",
		      "Content-Type: application/json\r\n", "{}", reply,
		      sizeof reply), 201);
	snprintf(path, sizeof path, "/t/scanner/%s", location_id(reply));
	CHECK_INT(req(port, "GET", path, hdr, "", reply, sizeof reply), 404);
	CHECK_INT(req(port, "GET", path, "Accept: application/json\r\n", "",
		      reply, sizeof reply), 200);
	sbx_server_stop(srv, 1000);
	sbx_db_close(db);
}

/* ---- 6. per-client scanner caps, idle expiry ----------------------------- */

static void test_scanner_caps(void)
{
	sbx_server_opts o;
	sbx_server_opts_init(&o);
	CHECK_INT(o.scanner_idle_ms, 60000);
	CHECK_INT(o.max_client_scanners, 100);
	sbx_db *db = fresh_db("guard_scanners");
	REQUIRE(db);
	o.port = 0;
	o.max_client_scanners = 3;
	int port;
	sbx_server *srv = serve(db, &o, &port);
	REQUIRE(srv);
	const char *ct = "Content-Type: application/json\r\n";
	char first[256] = "";
	for (int i = 0; i < 3; i++) {
		CHECK_INT(req(port, "PUT", "/t/scanner", ct, "{}", reply,
			      sizeof reply), 201);
		if (i == 0)
			snprintf(first, sizeof first, "/t/scanner/%s",
				 location_id(reply));
	}
	CHECK_INT(req(port, "PUT", "/t/scanner", ct, "{}", reply, sizeof reply),
		  429);
	CHECK(strstr(reply, "this client has 3 open scanners, the most "
			    "allowed; delete finished ones"));
	CHECK_INT(req(port, "DELETE", first, "", "", reply, sizeof reply), 200);
	CHECK_INT(req(port, "PUT", "/t/scanner", ct, "{}", reply, sizeof reply),
		  201);
	sbx_server_stop(srv, 1000);

	o.scanner_idle_ms = 300;
	srv = serve(db, &o, &port);
	REQUIRE(srv);
	CHECK_INT(req(port, "PUT", "/t/scanner", ct, "{}", reply, sizeof reply),
		  201);
	char path[256];
	snprintf(path, sizeof path, "/t/scanner/%s", location_id(reply));
	struct timespec ts = {0, 700 * 1000 * 1000};
	nanosleep(&ts, NULL);
	CHECK_INT(req(port, "GET", path, "", "", reply, sizeof reply), 404);
	sbx_server_stop(srv, 1000);
	sbx_db_close(db);
}

/* The scanner registry at scale (a hash by id, a use-ordered list for
 * expiry, per-client counts): 300 scanners open at once, each found by its
 * id; deleting half frees their ids and the client's count; the total cap
 * holds; a scanner used recently outlives older idle ones, and the expired
 * give their client's count back. */
static void test_scanner_registry(void)
{
	sbx_db *db = fresh_db("guard_registry");
	REQUIRE(db);
	sbx_server_opts o;
	sbx_server_opts_init(&o);
	o.port = 0;
	o.max_scanners = 300;
	o.max_client_scanners = 300;
	int port;
	sbx_server *srv = serve(db, &o, &port);
	REQUIRE(srv);
	const char *ct = "Content-Type: application/json\r\n";
	static char paths[300][128];
	for (int i = 0; i < 300; i++) {
		CHECK_INT(req(port, "PUT", "/t/scanner", ct, "{}", reply,
			      sizeof reply), 201);
		snprintf(paths[i], sizeof paths[i], "/t/scanner/%s",
			 location_id(reply));
	}
	CHECK_INT(req(port, "PUT", "/t/scanner", ct, "{}", reply, sizeof reply),
		  503);
	CHECK(strstr(reply, "too many open scanners (300)"));
	for (int i = 0; i < 300; i++) /* each found: the empty table's 204 */
		CHECK_INT(req(port, "GET", paths[i], "", "", reply,
			      sizeof reply), 204);
	for (int i = 0; i < 300; i += 2)
		CHECK_INT(req(port, "DELETE", paths[i], "", "", reply,
			      sizeof reply), 200);
	for (int i = 0; i < 300; i++)
		CHECK_INT(req(port, "GET", paths[i], "", "", reply,
			      sizeof reply), i % 2 ? 204 : 404);
	for (int i = 0; i < 150; i++)
		CHECK_INT(req(port, "PUT", "/t/scanner", ct, "{}", reply,
			      sizeof reply), 201);
	CHECK_INT(req(port, "PUT", "/t/scanner", ct, "{}", reply, sizeof reply),
		  503);
	sbx_server_stop(srv, 1000);

	o.scanner_idle_ms = 1000;
	o.max_client_scanners = 3;
	srv = serve(db, &o, &port);
	REQUIRE(srv);
	char abc[3][128];
	for (int i = 0; i < 3; i++) {
		CHECK_INT(req(port, "PUT", "/t/scanner", ct, "{}", reply,
			      sizeof reply), 201);
		snprintf(abc[i], sizeof abc[i], "/t/scanner/%s",
			 location_id(reply));
	}
	struct timespec ts = {0, 600 * 1000 * 1000};
	nanosleep(&ts, NULL);
	CHECK_INT(req(port, "GET", abc[0], "", "", reply, sizeof reply), 204);
	nanosleep(&ts, NULL); /* b and c idle 1.2 s, a 0.6 s */
	CHECK_INT(req(port, "GET", abc[1], "", "", reply, sizeof reply), 404);
	CHECK_INT(req(port, "GET", abc[2], "", "", reply, sizeof reply), 404);
	CHECK_INT(req(port, "GET", abc[0], "", "", reply, sizeof reply), 204);
	for (int i = 0; i < 2; i++)
		CHECK_INT(req(port, "PUT", "/t/scanner", ct, "{}", reply,
			      sizeof reply), 201);
	CHECK_INT(req(port, "PUT", "/t/scanner", ct, "{}", reply, sizeof reply),
		  429);
	sbx_server_stop(srv, 1000);
	sbx_db_close(db);
}

/* ---- 8. names and headers HBase refuses ---------------------------------- */

static void test_names_and_headers(void)
{
	CHECK_INT(names_check_family("a/b"), SBX_EINVAL);
	CHECK_STR(sbx_errmsg(), "illegal character 0x2f at 1 in family name "
				"'a/b': printable characters other than ':', "
				"'/' and '\\' only");
	CHECK_INT(names_check_family("a\\b"), SBX_EINVAL);
	CHECK_INT(names_check_family("recovered.edits"), SBX_EINVAL);
	CHECK_INT(names_check_family("a.b-c_d"), SBX_OK);
	sbx_db *db = fresh_db("guard_names");
	REQUIRE(db);
	sbx_server_opts o;
	sbx_server_opts_init(&o);
	o.port = 0;
	int port;
	sbx_server *srv = serve(db, &o, &port);
	REQUIRE(srv);
	CHECK_INT(req(port, "PUT", "/u/schema",
		      "Content-Type: application/json\r\n",
		      "{\"name\":\"u\",\"ColumnSchema\":[{\"name\":\"a/b\"}]}",
		      reply, sizeof reply), 400);
	CHECK(strstr(reply, "invalid column family name 'a/b'"));
	CHECK_INT(req(port, "PUT", "/t/r/f:q",
		      "Content-Type: application/octet-stream\r\n"
		      "X-Timestamp: 99999999999999999999\r\n", "v", reply,
		      sizeof reply), 400);
	CHECK(strstr(reply, "\r\n\r\nBad request\r\nX-Timestamp "
			    "99999999999999999999 is out of range "
			    "(0 to 9223372036854775807)\r\n"));
	CHECK_INT(req(port, "PUT", "/t/r/f:q",
		      "Content-Type: application/octet-stream\r\n"
		      "X-Timestamp: 9223372036854775807\r\n", "v", reply,
		      sizeof reply), 200);
	sbx_server_stop(srv, 1000);
	sbx_db_close(db);
}

/* ---- 4. slow connections do not starve other clients --------------------- */

static void test_slow_connections(void)
{
	struct rlimit rl;
	getrlimit(RLIMIT_NOFILE, &rl);
	rl.rlim_cur = rl.rlim_max;
	setrlimit(RLIMIT_NOFILE, &rl);
	getrlimit(RLIMIT_NOFILE, &rl);
	int want = 2000;
	if (rl.rlim_cur < (rlim_t)want * 2 + 200)
		want = (int)(rl.rlim_cur - 200) / 2; /* ours and the server's */
	fprintf(stderr, "slow connections: %d (fd limit %llu)\n", want,
		(unsigned long long)rl.rlim_cur);
	sbx_db *db = fresh_db("guard_slow");
	REQUIRE(db);
	sbx_server_opts o;
	sbx_server_opts_init(&o);
	o.port = 0;
	o.threads = 2;
	int port;
	sbx_server *srv = serve(db, &o, &port);
	REQUIRE(srv);
	int *fds = calloc((size_t)want, sizeof *fds);
	REQUIRE(fds);
	static const char partial[] = "GET /version HTTP/1.1\r\nHost: x\r\n";
	int opened = 0;
	for (int i = 0; i < want; i++) {
		char src[32]; /* a few client addresses, none of them ours */
		snprintf(src, sizeof src, "127.0.0.%d", 2 + i % 4);
		fds[i] = connect_from(port, src, true);
		opened += fds[i] >= 0;
	}
	struct timespec ts = {0, 300 * 1000 * 1000};
	nanosleep(&ts, NULL);
	for (int i = 0; i < want; i++)
		if (fds[i] >= 0)
			send(fds[i], partial, sizeof partial - 1, MSG_NOSIGNAL);
	CHECK(opened >= want - 10);
	/* another client is served at once */
	int64_t t0 = rest_now_ms();
	for (int i = 0; i < 5; i++)
		CHECK_INT(req(port, "GET", "/version", "", "", reply,
			      sizeof reply), 200);
	int64_t took = rest_now_ms() - t0;
	fprintf(stderr, "slow connections: 5 requests took %lld ms\n",
		(long long)took);
	CHECK(took < 3000);
	for (int i = 0; i < want; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	free(fds);
	sbx_server_stop(srv, 1000);

	/* an unfinished header is cut after --header-timeout */
	o.header_timeout_s = 1;
	srv = serve(db, &o, &port);
	REQUIRE(srv);
	int fd = connect_from(port, NULL, false);
	REQUIRE(fd >= 0);
	send(fd, partial, sizeof partial - 1, MSG_NOSIGNAL);
	char c;
	t0 = rest_now_ms();
	CHECK_INT(recv(fd, &c, 1, 0), 0); /* closed, within SO_RCVTIMEO 5 s */
	took = rest_now_ms() - t0;
	CHECK(took < 4000);
	close(fd);
	sbx_server_stop(srv, 1000);
	sbx_db_close(db);
}

/* ---- 5. a stop while the workers sit at their connection limit ---------- */

/* libmicrohttpd 0.9.75's MHD_quiesce_daemon() aborts the process ("Failed
 * to remove listen FD from epoll set") when a worker takes its listen socket
 * out of its epoll set at the connection limit at the same moment: seen in
 * CI right after test_slow_connections closed its 2000 sockets. The stop
 * must survive connections closing under it, however the race falls. */
struct stop_args {
	sbx_server *srv;
	int64_t drain_ms;
	_Atomic int done;
};

static void *stop_thread(void *arg)
{
	struct stop_args *a = arg;
	sbx_server_stop(a->srv, a->drain_ms);
	atomic_store(&a->done, 1);
	return NULL;
}

static void test_stop_at_connection_limit(void)
{
	sbx_db *db = fresh_db("guard_stop");
	REQUIRE(db);
	sbx_server_opts o;
	sbx_server_opts_init(&o);
	o.port = 0;
	o.threads = 4;
	o.max_connections = 8;
	static const char partial[] = "GET /version HTTP/1.1\r\nHost: x\r\n";
	for (int round = 0; round < 40; round++) {
		int port;
		sbx_server *srv = serve(db, &o, &port);
		REQUIRE(srv);
		int fds[24];
		for (int i = 0; i < 24; i++) {
			fds[i] = connect_from(port, NULL, true);
			if (fds[i] >= 0)
				send(fds[i], partial, sizeof partial - 1,
				     MSG_NOSIGNAL);
		}
		struct timespec ts = {0, (round % 4) * 1000 * 1000};
		nanosleep(&ts, NULL);
		for (int i = 0; i < 24; i++)
			if (fds[i] >= 0)
				close(fds[i]);
		sbx_server_stop(srv, 50);
	}
	/* while the server drains, a new request is refused with 503 and
	 * Connection: close, and the stop waits for the one in flight */
	int port;
	sbx_server *srv = serve(db, &o, &port);
	REQUIRE(srv);
	int slow = connect_from(port, NULL, false);
	REQUIRE(slow >= 0);
	send(slow, partial, sizeof partial - 1, MSG_NOSIGNAL);
	struct timespec ts = {0, 100 * 1000 * 1000};
	nanosleep(&ts, NULL);
	pthread_t stopper;
	struct stop_args sa = {srv, 3000, 0};
	REQUIRE(pthread_create(&stopper, NULL, stop_thread, &sa) == 0);
	nanosleep(&ts, NULL);
	bool closed = false;
	static const char get[] = "GET /version HTTP/1.1\r\nHost: x\r\n\r\n";
	CHECK_INT(raw(port, get, sizeof get - 1, reply, sizeof reply, &closed),
		  503);
	CHECK(closed);
	CHECK(strstr(reply, "Retry-After") != NULL);
	CHECK(atomic_load(&sa.done) == 0); /* still draining */
	close(slow);
	pthread_join(stopper, NULL);
	CHECK(atomic_load(&sa.done) == 1);
	sbx_db_close(db);
}

TEST_MAIN(T(test_port_in_use), T(test_dir_in_use), T(test_framing),
	  T(test_token), T(test_scanner_caps), T(test_scanner_registry), T(test_names_and_headers),
	  T(test_slow_connections), T(test_stop_at_connection_limit))
