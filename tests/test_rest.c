/*
 * test_rest.c - the REST server's parsers (RowSpec paths, base64, CellSet
 * and scanner bodies) and its behaviour under load and shutdown: 64
 * connections mixing puts, gets and scanners for a few seconds, after which
 * every acknowledged write must be readable; the cache of open table
 * handles across drop and recreate under load; and SIGTERM on a real
 * `saltbox serve` process while writes are in flight, after which every
 * acknowledged write must be in the store.
 */
#include "check.h"

#include "saltbox.h"
#include "server/rest.h"
#include "server/server.h"

#include "common/buf.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>

/* ---- a small HTTP/1.1 client (keep-alive, Content-Length or chunked) ---- */

typedef struct http_conn {
	int fd;
	int port;
	char buf[1 << 16];
	size_t len, pos;
} http_conn;

static int http_open(http_conn *c, int port)
{
	memset(c, 0, sizeof *c);
	c->port = port;
	c->fd = socket(AF_INET, SOCK_STREAM, 0);
	if (c->fd < 0)
		return -1;
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	int one = 1;
	setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	struct timeval tv = {10, 0};
	setsockopt(c->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	if (connect(c->fd, (struct sockaddr *)&sa, sizeof sa)) {
		close(c->fd);
		c->fd = -1;
		return -1;
	}
	return 0;
}

static void http_close(http_conn *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
}

static int fill(http_conn *c)
{
	if (c->pos > 0) {
		memmove(c->buf, c->buf + c->pos, c->len - c->pos);
		c->len -= c->pos;
		c->pos = 0;
	}
	if (c->len == sizeof c->buf)
		return -1;
	ssize_t n = recv(c->fd, c->buf + c->len, sizeof c->buf - c->len, 0);
	if (n <= 0)
		return -1;
	c->len += (size_t)n;
	return 0;
}

/* Read one line (without CRLF) into out. */
static int read_line(http_conn *c, char *out, size_t cap)
{
	for (;;) {
		char *nl = memchr(c->buf + c->pos, '\n', c->len - c->pos);
		if (nl) {
			size_t n = (size_t)(nl - (c->buf + c->pos));
			size_t copy = n && nl[-1] == '\r' ? n - 1 : n;
			if (copy >= cap)
				copy = cap - 1;
			memcpy(out, c->buf + c->pos, copy);
			out[copy] = 0;
			c->pos += n + 1;
			return 0;
		}
		if (fill(c))
			return -1;
	}
}

static int read_bytes(http_conn *c, sbx_buf *out, size_t n)
{
	while (n > 0) {
		if (c->pos == c->len && fill(c))
			return -1;
		size_t take = c->len - c->pos < n ? c->len - c->pos : n;
		if (out)
			sbx_buf_append(out, c->buf + c->pos, take);
		c->pos += take;
		n -= take;
	}
	return 0;
}

typedef struct http_reply {
	int status;
	sbx_buf body;
	char location[1100];
} http_reply;

/* One request; returns -1 on a connection error (then reconnect). */
static int http_do(http_conn *c, const char *method, const char *path,
		   const char *content_type, const void *body, size_t body_len,
		   http_reply *r)
{
	r->status = 0;
	r->body.len = 0;
	r->location[0] = 0;
	if (c->fd < 0 && http_open(c, c->port))
		return -1;
	char head[1024];
	int n = snprintf(head, sizeof head,
			 "%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\n"
			 "Accept: application/json\r\n%s%s%sContent-Length: %zu\r\n\r\n",
			 method, path, content_type ? "Content-Type: " : "",
			 content_type ? content_type : "", content_type ? "\r\n" : "",
			 body_len);
	if (send(c->fd, head, (size_t)n, MSG_NOSIGNAL) != n ||
	    (body_len && send(c->fd, body, body_len, MSG_NOSIGNAL) != (ssize_t)body_len))
		goto broken;
	char line[1024];
	if (read_line(c, line, sizeof line) || sscanf(line, "HTTP/1.1 %d", &r->status) != 1)
		goto broken;
	long long clen = -1;
	bool chunked = false;
	for (;;) {
		if (read_line(c, line, sizeof line))
			goto broken;
		if (!line[0])
			break;
		if (!strncasecmp(line, "Content-Length:", 15))
			clen = atoll(line + 15);
		else if (!strncasecmp(line, "Transfer-Encoding:", 18) && strstr(line, "chunked"))
			chunked = true;
		else if (!strncasecmp(line, "Location:", 9))
			snprintf(r->location, sizeof r->location, "%s", line + 10);
	}
	if (chunked) {
		for (;;) {
			if (read_line(c, line, sizeof line))
				goto broken;
			size_t sz = strtoul(line, NULL, 16);
			if (sz == 0) {
				if (read_line(c, line, sizeof line))
					goto broken;
				break;
			}
			if (read_bytes(c, &r->body, sz) || read_line(c, line, sizeof line))
				goto broken;
		}
	} else if (clen > 0 && read_bytes(c, &r->body, (size_t)clen)) {
		goto broken;
	}
	sbx_buf_push(&r->body, 0);
	r->body.len--;
	return 0;
broken:
	http_close(c);
	return -1;
}

/* ---- parsers ------------------------------------------------------------- */

static void test_route_parse(void)
{
	char err[REST_ERR_LEN];
	rest_route r;
	const char *p = "/t/a%2Fb%2Cc/cf:q%3Ax,cf2/100,200";
	CHECK_INT(rest_route_parse(&r, p, strlen(p), err), SBX_OK);
	CHECK_INT(r.kind, ROUTE_ROW);
	CHECK_STR(r.table, "t");
	CHECK_MEM(r.spec.row.data, r.spec.row.len, "a/b,c");
	CHECK_INT(r.spec.ncolumns, 2);
	CHECK_STR(r.spec.columns[0].family, "cf");
	CHECK_MEM(r.spec.columns[0].qualifier, r.spec.columns[0].qualifier_len, "q:x");
	CHECK(!r.spec.columns[1].has_qualifier);
	CHECK_INT(r.spec.start_ts, 100);
	CHECK_INT(r.spec.end_ts, 200);
	rest_route_free(&r);

	p = "/ns:t/r1,r9";
	CHECK_INT(rest_route_parse(&r, p, strlen(p), err), SBX_OK);
	CHECK_STR(r.table, "ns:t");
	CHECK(r.spec.is_range);
	CHECK_MEM(r.spec.end_row.data, r.spec.end_row.len, "r9");
	rest_route_free(&r);

	p = "/t/pre*";
	CHECK_INT(rest_route_parse(&r, p, strlen(p), err), SBX_OK);
	CHECK_INT(r.kind, ROUTE_SCAN);
	CHECK_MEM(r.spec.row.data, r.spec.row.len, "pre");
	rest_route_free(&r);

	p = "/t/pre*/cf:";
	CHECK_INT(rest_route_parse(&r, p, strlen(p), err), SBX_OK);
	CHECK_INT(r.kind, ROUTE_ROW);
	CHECK(r.spec.is_glob);
	CHECK(r.spec.columns[0].has_qualifier);
	CHECK_INT(r.spec.columns[0].qualifier_len, 0);
	rest_route_free(&r);

	p = "/t/scanner/123abc";
	CHECK_INT(rest_route_parse(&r, p, strlen(p), err), SBX_OK);
	CHECK_INT(r.kind, ROUTE_SCANNER_ID);
	CHECK_STR(r.name, "123abc");
	rest_route_free(&r);

	static const struct {
		const char *path;
		rest_route_kind kind;
	} kinds[] = {
		{"/", ROUTE_ROOT}, {"/version", ROUTE_VERSION},
		{"/version/rest", ROUTE_VERSION}, {"/version/cluster", ROUTE_CLUSTER_VERSION},
		{"/status/cluster", ROUTE_CLUSTER_STATUS}, {"/namespaces", ROUTE_NAMESPACES},
		{"/namespaces/n", ROUTE_NAMESPACE}, {"/namespaces/n/tables", ROUTE_NAMESPACE_TABLES},
		{"/t/schema", ROUTE_SCHEMA}, {"/t/exists", ROUTE_EXISTS},
		{"/t/regions", ROUTE_REGIONS}, {"/t/scanner", ROUTE_SCANNER},
		{"/t/multiget", ROUTE_MULTIGET}, {"/t/*", ROUTE_SCAN},
	};
	for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++) {
		CHECK_INT(rest_route_parse(&r, kinds[i].path, strlen(kinds[i].path), err), SBX_OK);
		CHECK_INT(r.kind, kinds[i].kind);
		rest_route_free(&r);
	}
	static const char *const bad[] = {
		"", "x", "/t", "/t/r%zz", "/t/r%2", "/t/r*,z", "/t/r/cf/abc",
		"/t/r/cf/1,x", "/t/r/:q", "/t/r/cf/9,1", "/t/r/cf/1/extra",
		"/namespaces/a/b", "/version/x", "/t/multiget/cf/x",
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		err[0] = 0;
		int rc = rest_route_parse(&r, bad[i], strlen(bad[i]), err);
		if (rc != SBX_EPARSE)
			fprintf(stderr, "path '%s' was accepted\n", bad[i]);
		CHECK_INT(rc, SBX_EPARSE);
		CHECK(err[0] != 0);
		rest_route_free(&r);
	}
}

static void test_base64(void)
{
	sbx_buf b = {0};
	CHECK_INT(rest_b64_decode(&b, "aGVsbG8=", 8), SBX_OK);
	CHECK_MEM(b.data, b.len, "hello");
	CHECK_INT(rest_b64_decode(&b, "aGVsbG8", 7), SBX_OK);
	CHECK_MEM(b.data, b.len, "hello");
	CHECK_INT(rest_b64_decode(&b, "", 0), SBX_OK);
	CHECK_INT(b.len, 0);
	CHECK_INT(rest_b64_decode(&b, "aGVsbG9=", 8), SBX_EPARSE); /* non-zero pad bits */
	CHECK_INT(rest_b64_decode(&b, "a GVs", 5), SBX_EPARSE);
	CHECK_INT(rest_b64_decode(&b, "aGV=bG8=", 8), SBX_EPARSE);
	CHECK_INT(rest_b64_decode(&b, "a", 1), SBX_EPARSE);
	CHECK_INT(rest_b64_decode(&b, "-_==", 4), SBX_EPARSE);
	b.len = 0;
	CHECK_INT(rest_b64_encode(&b, "testrow1", 8), SBX_OK);
	CHECK_MEM(b.data, b.len, "dGVzdHJvdzE=");
	sbx_buf_free(&b);
}

static void test_cellset_codecs(void)
{
	char err[REST_ERR_LEN];
	rest_cellset cs;
	/* TestCellSetModel's JSON and protobuf (hbase-rest.md §3 case 3). */
	const char *json =
		"{\"Row\":[{\"key\":\"dGVzdHJvdzE=\",\"Cell\":[{\"column\":\"dGVzdGNvbHVtbjE=\","
		"\"timestamp\":1245219839331,\"$\":\"dGVzdHZhbHVlMQ==\"}]},{\"key\":\"dGVzdHJvdzE=\","
		"\"Cell\":[{\"column\":\"dGVzdGNvbHVtbjI=\",\"timestamp\":1245239813319,"
		"\"$\":\"dGVzdHZhbHVlMg==\"},{\"column\":\"dGVzdGNvbHVtbjM=\",\"timestamp\":"
		"1245393318192,\"$\":\"dGVzdHZhbHVlMw==\"}]}]}";
	CHECK_INT(rest_cellset_from_json(&cs, (const uint8_t *)json, strlen(json), err), SBX_OK);
	CHECK_INT(cs.nrows, 2);
	CHECK_MEM(cs.rows[1].key.data, cs.rows[1].key.len, "testrow1");
	CHECK_INT(cs.rows[1].ncells, 2);
	CHECK_MEM(cs.rows[1].cells[1].column.data, cs.rows[1].cells[1].column.len, "testcolumn3");
	CHECK_INT(cs.rows[1].cells[1].timestamp, 1245393318192);
	CHECK_MEM(cs.rows[1].cells[1].value.data, cs.rows[1].cells[1].value.len, "testvalue3");
	rest_cellset_free(&cs);

	const char *pb64 = "CiwKCHRlc3Ryb3cxEiASC3Rlc3Rjb2x1bW4xGOO6i+eeJCIKdGVzdHZhbHVlMQpOCgh0ZXN0cm93"
			   "MRIgEgt0ZXN0Y29sdW1uMhjHyc7wniQiCnRlc3R2YWx1ZTISIBILdGVzdGNvbHVtbjMYsOLnuZ8kIgp0"
			   "ZXN0dmFsdWUz";
	sbx_buf pb = {0};
	CHECK_INT(rest_b64_decode(&pb, pb64, strlen(pb64)), SBX_OK);
	CHECK_INT(rest_cellset_from_pb(&cs, pb.data, pb.len, err), SBX_OK);
	CHECK_INT(cs.nrows, 2);
	CHECK_INT(cs.rows[0].cells[0].timestamp, 1245219839331);
	CHECK_MEM(cs.rows[0].cells[0].value.data, cs.rows[0].cells[0].value.len, "testvalue1");
	rest_cellset_free(&cs);
	/* Every truncation of valid protobuf is refused or parsed, never read past. */
	for (size_t n = 0; n < pb.len; n++)
		if (rest_cellset_from_pb(&cs, pb.data, n, err) == SBX_OK)
			rest_cellset_free(&cs);
	sbx_buf_free(&pb);

	const char *xml = "<CellSet><Row key=\"dGVzdHJvdzE=\"><Cell column=\"dGVzdGNvbHVtbjE=\" "
			  "timestamp=\"1245219839331\">dGVzdHZhbHVlMQ==</Cell></Row></CellSet>";
	CHECK_INT(rest_cellset_from_xml(&cs, (const uint8_t *)xml, strlen(xml), err), SBX_OK);
	CHECK_INT(cs.nrows, 1);
	CHECK_MEM(cs.rows[0].cells[0].value.data, cs.rows[0].cells[0].value.len, "testvalue1");
	rest_cellset_free(&cs);

	static const char *const bad_json[] = {
		"", "[]", "{\"Row\":5}", "{\"Row\":[{\"key\":1}]}",
		"{\"Row\":[{\"key\":\"@@\"}]}", "{\"Row\":[{\"Cell\":[{\"timestamp\":\"x\"}]}]}",
		"{\"Row\":[{\"Cell\":[5]}]}",
	};
	for (size_t i = 0; i < sizeof bad_json / sizeof *bad_json; i++)
		CHECK_INT(rest_cellset_from_json(&cs, (const uint8_t *)bad_json[i],
						 strlen(bad_json[i]), err), SBX_EPARSE);
}

static void test_scanner_spec(void)
{
	char err[REST_ERR_LEN];
	rest_scan_spec s;
	/* TestScannerModel's JSON. */
	const char *json = "{\"batch\":100,\"caching\":1000,\"cacheBlocks\":false,\"endRow\":"
			   "\"enp5eng=\",\"endTime\":1245393318192,\"maxVersions\":2147483647,"
			   "\"startRow\":\"YWJyYWNhZGFicmE=\",\"startTime\":1245219839331,"
			   "\"column\":[\"Y29sdW1uMQ==\",\"Y29sdW1uMjpmb28=\"],\"labels\":"
			   "[\"private\",\"public\"]}";
	CHECK_INT(rest_scan_spec_decode(&s, REST_FMT_JSON, (const uint8_t *)json,
					strlen(json), err), SBX_OK);
	CHECK_INT(s.batch, 100);
	CHECK_MEM(s.start_row.data, s.start_row.len, "abracadabra");
	CHECK_MEM(s.end_row.data, s.end_row.len, "zzyzx");
	CHECK_INT(s.ncolumns, 2);
	CHECK_STR(s.columns[1].family, "column2");
	CHECK_INT(s.end_time, 1245393318192);
	CHECK(!s.cache_blocks);
	rest_scan_spec_free(&s);
	/* ... and its protobuf. */
	const char *pb64 = "CgthYnJhY2FkYWJyYRIFenp5engaB2NvbHVtbjEaC2NvbHVtbjI6Zm9vIGQo47qL554kMLDi57mf"
			   "JDj/////B0joB1IHcHJpdmF0ZVIGcHVibGljWAA=";
	sbx_buf pb = {0};
	CHECK_INT(rest_b64_decode(&pb, pb64, strlen(pb64)), SBX_OK);
	CHECK_INT(rest_scan_spec_decode(&s, REST_FMT_PB, pb.data, pb.len, err), SBX_OK);
	CHECK_INT(s.batch, 100);
	CHECK_INT(s.max_versions, INT32_MAX);
	CHECK_INT(s.start_time, 1245219839331);
	CHECK_MEM(s.columns[1].qualifier, s.columns[1].qualifier_len, "foo");
	rest_scan_spec_free(&s);
	sbx_buf_free(&pb);
	const char *xml = "<Scanner batch=\"5\" startRow=\"YQ==\"><column>Yjpj</column>"
			  "<filter>{\"type\":\"FirstKeyOnlyFilter\"}</filter></Scanner>";
	CHECK_INT(rest_scan_spec_decode(&s, REST_FMT_XML, (const uint8_t *)xml,
					strlen(xml), err), SBX_OK);
	CHECK_INT(s.batch, 5);
	CHECK_STR(s.filter, "{\"type\":\"FirstKeyOnlyFilter\"}");
	rest_scan_spec_free(&s);
	const char *bad = "{\"batch\":\"many\"}";
	CHECK_INT(rest_scan_spec_decode(&s, REST_FMT_JSON, (const uint8_t *)bad,
					strlen(bad), err), SBX_EPARSE);
}

/* ---- load: 64 connections for a few seconds ------------------------------- */

#define LOAD_CLIENTS 64
#define LOAD_SECONDS 3
#define MAX_ACKED 100000

typedef struct load_client {
	int id;
	int port;
	int acked;           /* writes answered 200, keys w<id>-0 .. w<id>-(acked-1) */
	int gets, scans, errors;
	char first_error[200];
} load_client;

static atomic_bool load_stop;

static void load_fail(load_client *lc, const char *what, int status)
{
	if (lc->errors++ == 0)
		snprintf(lc->first_error, sizeof lc->first_error, "client %d: %s -> %d",
			 lc->id, what, status);
}

static void *load_run(void *arg)
{
	load_client *lc = arg;
	http_conn *c = malloc(sizeof *c);
	http_reply r = {0};
	if (!c || http_open(c, lc->port)) {
		load_fail(lc, "connect", -1);
		free(c);
		return NULL;
	}
	char path[256], body[512];
	for (int i = 0; !atomic_load(&load_stop); i++) {
		int op = i % 5;
		if (op < 2 || lc->acked == 0) {
			snprintf(path, sizeof path, "/load/w%d-%d/f:q", lc->id, lc->acked);
			snprintf(body, sizeof body, "value-%d-%d", lc->id, lc->acked);
			if (http_do(c, "PUT", path, "application/octet-stream", body,
				    strlen(body), &r) == 0 && r.status == 200)
				lc->acked++;
			else
				load_fail(lc, "put", r.status);
		} else if (op < 4) {
			int k = (i * 7919) % lc->acked;
			snprintf(path, sizeof path, "/load/w%d-%d", lc->id, k);
			snprintf(body, sizeof body, "value-%d-%d", lc->id, k);
			sbx_buf b64 = {0};
			rest_b64_encode(&b64, body, strlen(body));
			sbx_buf_push(&b64, 0);
			if (http_do(c, "GET", path, NULL, NULL, 0, &r) || r.status != 200 ||
			    !strstr((char *)r.body.data, (char *)b64.data))
				load_fail(lc, "get", r.status);
			sbx_buf_free(&b64);
			lc->gets++;
		} else if (i % 10 == 4) {
			/* A stateful scanner over this client's rows: create, page, delete. */
			snprintf(body, sizeof body, "{\"batch\":5,\"startRow\":\"");
			sbx_buf spec = {0};
			rest_buf_puts(&spec, body);
			snprintf(path, sizeof path, "w%d-", lc->id);
			rest_b64_encode(&spec, path, strlen(path));
			rest_buf_puts(&spec, "\"}");
			int rc = http_do(c, "PUT", "/load/scanner", "application/json",
					 spec.data, spec.len, &r);
			sbx_buf_free(&spec);
			if (rc || r.status != 201 || !strstr(r.location, "/scanner/")) {
				load_fail(lc, "scanner create", r.status);
				continue;
			}
			snprintf(path, sizeof path, "%s", strstr(r.location, "/load/scanner/"));
			if (http_do(c, "GET", path, NULL, NULL, 0, &r) || r.status != 200)
				load_fail(lc, "scanner next", r.status);
			if (http_do(c, "DELETE", path, NULL, NULL, 0, &r) || r.status != 200)
				load_fail(lc, "scanner delete", r.status);
			lc->scans++;
		} else {
			snprintf(path, sizeof path, "/load/w%d-*?limit=10", lc->id);
			if (http_do(c, "GET", path, NULL, NULL, 0, &r) || r.status != 200)
				load_fail(lc, "stateless scan", r.status);
			lc->scans++;
		}
	}
	sbx_buf_free(&r.body);
	http_close(c);
	free(c);
	return NULL;
}

static int make_table(sbx_db *db, const char *name)
{
	sbx_family_desc f;
	sbx_family_desc_init(&f, "f");
	return sbx_table_create(db, name, &f, 1);
}

/* Every acknowledged write of every client is readable with its value. */
static void check_acked(sbx_db *db, const load_client *lc, int n, const char *table)
{
	sbx_table *t;
	REQUIRE(sbx_table_open(&t, db, table) == SBX_OK);
	long missing = 0, total = 0;
	for (int i = 0; i < n; i++)
		for (int k = 0; k < lc[i].acked; k++) {
			char row[64], value[64];
			snprintf(row, sizeof row, "w%d-%d", lc[i].id, k);
			snprintf(value, sizeof value, "value-%d-%d", lc[i].id, k);
			sbx_result *r;
			REQUIRE(sbx_table_get(&r, t, row, strlen(row), NULL) == SBX_OK);
			const sbx_cell *c = sbx_result_get(r, "f", "q", 1);
			if (!c || c->value_len != strlen(value) || memcmp(c->value, value, c->value_len))
				missing++;
			total++;
			sbx_result_free(r);
		}
	CHECK_INT(missing, 0);
	CHECK(total > 0);
	sbx_table_close(t);
}

static void test_load(void)
{
	const char *dir = test_dir("rest_load");
	sbx_db *db;
	REQUIRE(sbx_db_open(&db, dir, NULL) == SBX_OK);
	REQUIRE(make_table(db, "load") == SBX_OK);
	sbx_server_opts o;
	sbx_server_opts_init(&o);
	o.port = 0;
	o.threads = 8;
	sbx_server *srv;
	REQUIRE(sbx_server_start(&srv, db, &o) == SBX_OK);
	load_client lc[LOAD_CLIENTS];
	pthread_t th[LOAD_CLIENTS];
	atomic_store(&load_stop, false);
	for (int i = 0; i < LOAD_CLIENTS; i++) {
		memset(&lc[i], 0, sizeof lc[i]);
		lc[i].id = i;
		lc[i].port = sbx_server_port(srv);
		pthread_create(&th[i], NULL, load_run, &lc[i]);
	}
	sleep(LOAD_SECONDS);
	atomic_store(&load_stop, true);
	long puts = 0, gets = 0, scans = 0, errors = 0;
	for (int i = 0; i < LOAD_CLIENTS; i++) {
		pthread_join(th[i], NULL);
		puts += lc[i].acked;
		gets += lc[i].gets;
		scans += lc[i].scans;
		errors += lc[i].errors;
		if (lc[i].errors)
			fprintf(stderr, "%s (%d errors)\n", lc[i].first_error, lc[i].errors);
	}
	fprintf(stderr, "load: %d clients, %ds: %ld puts, %ld gets, %ld scans, %ld errors\n",
		LOAD_CLIENTS, LOAD_SECONDS, puts, gets, scans, errors);
	CHECK_INT(errors, 0);
	CHECK(puts > LOAD_CLIENTS);
	CHECK(scans > 0);
	sbx_server_stop(srv, 5000);
	check_acked(db, lc, LOAD_CLIENTS, "load");
	sbx_db_close(db);
}

/* ---- the server's cache of open table handles ------------------------------ */

#define CACHE_CLIENTS 8

typedef struct cache_client {
	int port, id;
	long ok, gone, odd; /* 200s; 404/503 while the table is away; others */
	int first_odd;
} cache_client;

static atomic_bool cache_stop;

/* Reads and writes on table "cache" while the main thread drops and
 * recreates it: every answer is a success or "not there (now)". */
static void *cache_run(void *arg)
{
	cache_client *cc = arg;
	http_conn *c = malloc(sizeof *c);
	http_reply r = {0};
	if (!c || http_open(c, cc->port)) {
		cc->odd++;
		free(c);
		return NULL;
	}
	char path[128];
	for (long i = 0; !atomic_load(&cache_stop); i++) {
		const char *fam = i % 2 ? "a" : "b";
		int rc;
		if (i % 3 == 0) {
			snprintf(path, sizeof path, "/cache/c%d-%ld/%s:q", cc->id, i % 50, fam);
			rc = http_do(c, "PUT", path, "application/octet-stream", "v", 1, &r);
		} else if (i % 3 == 1) {
			snprintf(path, sizeof path, "/cache/c%d-%ld", cc->id, i % 50);
			rc = http_do(c, "GET", path, NULL, NULL, 0, &r);
		} else {
			snprintf(path, sizeof path, "/cache/c%d-*?limit=5", cc->id);
			rc = http_do(c, "GET", path, NULL, NULL, 0, &r);
		}
		if (rc) {
			/* A streamed scan whose table goes away mid-stream can
			 * only cut the response (its status is sent); any other
			 * request must get an answer. */
			if (i % 3 == 2)
				cc->gone++;
			else if (!cc->odd++)
				fprintf(stderr, "no answer to %s\n", path);
			continue;
		}
		if (r.status == 200)
			cc->ok++;
		else if (r.status == 404 || r.status == 503)
			cc->gone++;
		else if (!cc->odd++)
			cc->first_odd = r.status;
	}
	sbx_buf_free(&r.body);
	http_close(c);
	free(c);
	return NULL;
}

static void test_table_cache(void)
{
	const char *dir = test_dir("rest_cache");
	sbx_db *db;
	REQUIRE(sbx_db_open(&db, dir, NULL) == SBX_OK);
	sbx_server_opts o;
	sbx_server_opts_init(&o);
	o.port = 0;
	o.threads = 4;
	sbx_server *srv;
	REQUIRE(sbx_server_start(&srv, db, &o) == SBX_OK);
	http_conn *c = malloc(sizeof *c);
	REQUIRE(c && http_open(c, sbx_server_port(srv)) == 0);
	http_reply r = {0};
	static const char schema_a[] = "{\"name\":\"cache\",\"ColumnSchema\":[{\"name\":\"a\"}]}";
	static const char schema_b[] = "{\"name\":\"cache\",\"ColumnSchema\":[{\"name\":\"b\"}]}";
	REQUIRE(http_do(c, "PUT", "/cache/schema", "application/json", schema_a,
			strlen(schema_a), &r) == 0);
	CHECK_INT(r.status, 201);
	REQUIRE(http_do(c, "PUT", "/cache/r1/a:x", "application/octet-stream", "one", 3, &r) == 0);
	CHECK_INT(r.status, 200);
	for (int i = 0; i < 3; i++) { /* served from one cached handle */
		REQUIRE(http_do(c, "GET", "/cache/r1", NULL, NULL, 0, &r) == 0);
		CHECK_INT(r.status, 200);
		CHECK(strstr((char *)r.body.data, "\"YTp4\"") != NULL); /* a:x */
		CHECK(strstr((char *)r.body.data, "\"b25l\"") != NULL); /* one */
	}
	unsigned long long hits, misses;
	rest_tables_stats(srv, &hits, &misses);
	CHECK_INT((long long)misses, 1);
	CHECK_INT((long long)hits, 3);

	/* Drop and recreate it with the other family, again and again, under
	 * concurrent requests (ASan: no handle is closed under a user). */
	cache_client cc[CACHE_CLIENTS];
	pthread_t th[CACHE_CLIENTS];
	atomic_store(&cache_stop, false);
	for (int i = 0; i < CACHE_CLIENTS; i++) {
		memset(&cc[i], 0, sizeof cc[i]);
		cc[i].id = i;
		cc[i].port = sbx_server_port(srv);
		pthread_create(&th[i], NULL, cache_run, &cc[i]);
	}
	for (int round = 0; round < 6; round++) {
		struct timespec ts = {0, 50 * 1000 * 1000};
		nanosleep(&ts, NULL);
		REQUIRE(http_do(c, "DELETE", "/cache/schema", NULL, NULL, 0, &r) == 0);
		CHECK_INT(r.status, 200);
		const char *sch = round % 2 ? schema_b : schema_a; /* b last */
		REQUIRE(http_do(c, "PUT", "/cache/schema", "application/json", sch,
				strlen(sch), &r) == 0);
		CHECK_INT(r.status, 201);
	}
	struct timespec ts = {0, 100 * 1000 * 1000};
	nanosleep(&ts, NULL);
	atomic_store(&cache_stop, true);
	long ok = 0, odd = 0;
	for (int i = 0; i < CACHE_CLIENTS; i++) {
		pthread_join(th[i], NULL);
		ok += cc[i].ok;
		odd += cc[i].odd;
		if (cc[i].odd)
			fprintf(stderr, "cache client %d: first odd status %d\n", i,
				cc[i].first_odd);
	}
	CHECK_INT(odd, 0);
	CHECK(ok > 0);

	/* The last schema (family b, the table empty again) is what the next
	 * requests see, not the first table's handle. */
	REQUIRE(http_do(c, "GET", "/cache/r1", NULL, NULL, 0, &r) == 0);
	CHECK_INT(r.status, 404);
	REQUIRE(http_do(c, "PUT", "/cache/r1/a:x", "application/octet-stream", "one", 3, &r) == 0);
	CHECK_INT(r.status, 404);
	REQUIRE(http_do(c, "PUT", "/cache/r1/b:y", "application/octet-stream", "two", 3, &r) == 0);
	CHECK_INT(r.status, 200);
	REQUIRE(http_do(c, "GET", "/cache/r1", NULL, NULL, 0, &r) == 0);
	CHECK_INT(r.status, 200);
	CHECK(strstr((char *)r.body.data, "\"Yjp5\"") != NULL); /* b:y */
	CHECK(strstr((char *)r.body.data, "\"dHdv\"") != NULL); /* two */
	CHECK(strstr((char *)r.body.data, "\"YTp4\"") == NULL);
	REQUIRE(http_do(c, "GET", "/cache/schema", NULL, NULL, 0, &r) == 0);
	CHECK_INT(r.status, 200);
	CHECK(strstr((char *)r.body.data, "\"name\":\"b\"") != NULL);
	CHECK(strstr((char *)r.body.data, "\"name\":\"a\"") == NULL);

	/* A stateful scanner keeps its handle across a drop: its pages report
	 * the table gone, nothing is freed under it. */
	static const char spec[] = "{\"batch\":5}";
	REQUIRE(http_do(c, "PUT", "/cache/scanner", "application/json", spec,
			strlen(spec), &r) == 0);
	CHECK_INT(r.status, 201);
	char loc[256];
	snprintf(loc, sizeof loc, "%s", strstr(r.location, "/cache/scanner/"));
	REQUIRE(http_do(c, "DELETE", "/cache/schema", NULL, NULL, 0, &r) == 0);
	CHECK_INT(r.status, 200);
	REQUIRE(http_do(c, "GET", loc, NULL, NULL, 0, &r) == 0);
	CHECK_INT(r.status, 410); /* HBase's answer for a scanner gone */
	REQUIRE(http_do(c, "GET", "/cache/r1", NULL, NULL, 0, &r) == 0);
	CHECK_INT(r.status, 404);

	/* Many tables (the cache is hashed by name and by handle): each
	 * answers with its own row; the second round is served from their
	 * cached handles; a drop makes every cached handle stale, so the next
	 * GET opens again. */
	enum { MANY = 24 };
	char path[64], body[16];
	sbx_family_desc fam;
	sbx_family_desc_init(&fam, "f");
	for (int i = 0; i < MANY; i++) {
		char name[16];
		snprintf(name, sizeof name, "m%03d", i);
		REQUIRE(sbx_table_create(db, name, &fam, 1) == SBX_OK);
		snprintf(path, sizeof path, "/%s/row/f:q", name);
		snprintf(body, sizeof body, "v%03d", i);
		REQUIRE(http_do(c, "PUT", path, "application/octet-stream", body,
				strlen(body), &r) == 0);
		CHECK_INT(r.status, 200);
	}
	unsigned long long h0, m0, h1, m1;
	for (int round = 0; round < 2; round++) {
		rest_tables_stats(srv, &h0, &m0);
		for (int i = 0; i < MANY; i++) {
			snprintf(path, sizeof path, "/m%03d/row/f:q", i);
			snprintf(body, sizeof body, "v%03d", i);
			REQUIRE(http_do(c, "GET", path, NULL, NULL, 0, &r) == 0);
			CHECK_INT(r.status, 200);
			sbx_buf b64 = {0};
			rest_b64_encode(&b64, body, strlen(body));
			sbx_buf_push(&b64, 0);
			CHECK(strstr((char *)r.body.data, (char *)b64.data));
			sbx_buf_free(&b64);
		}
		rest_tables_stats(srv, &h1, &m1);
	}
	CHECK_INT((long long)(h1 - h0), MANY);
	CHECK_INT((long long)(m1 - m0), 0);
	REQUIRE(http_do(c, "DELETE", "/m000/schema", NULL, NULL, 0, &r) == 0);
	CHECK_INT(r.status, 200);
	rest_tables_stats(srv, &h0, &m0);
	REQUIRE(http_do(c, "GET", "/m001/row/f:q", NULL, NULL, 0, &r) == 0);
	CHECK_INT(r.status, 200);
	REQUIRE(http_do(c, "GET", "/m001/row/f:q", NULL, NULL, 0, &r) == 0);
	rest_tables_stats(srv, &h1, &m1);
	CHECK_INT((long long)(m1 - m0), 1);
	CHECK_INT((long long)(h1 - h0), 1);
	REQUIRE(http_do(c, "GET", "/m000/row/f:q", NULL, NULL, 0, &r) == 0);
	CHECK_INT(r.status, 404);
	sbx_buf_free(&r.body);
	http_close(c);
	free(c);
	sbx_server_stop(srv, 5000);
	sbx_db_close(db);
}

/* ---- SIGTERM while writes are in flight ------------------------------------ */

#define TERM_CLIENTS 16

static void *term_run(void *arg)
{
	load_client *lc = arg;
	http_conn *c = malloc(sizeof *c);
	http_reply r = {0};
	if (!c || http_open(c, lc->port)) {
		free(c);
		return NULL;
	}
	char path[128], body[64];
	for (;;) {
		snprintf(path, sizeof path, "/term/w%d-%d/f:q", lc->id, lc->acked);
		snprintf(body, sizeof body, "value-%d-%d", lc->id, lc->acked);
		if (http_do(c, "PUT", path, "application/octet-stream", body, strlen(body), &r))
			break; /* the server went away: this write is not acknowledged */
		if (r.status != 200)
			break;
		lc->acked++;
	}
	sbx_buf_free(&r.body);
	http_close(c);
	free(c);
	return NULL;
}

static void test_sigterm(void)
{
	const char *bin = getenv("SBX_SALTBOX");
	if (!bin) {
		fprintf(stderr, "test_sigterm: SBX_SALTBOX not set, skipped\n");
		return;
	}
	const char *dir = test_dir("rest_term");
	{
		sbx_db *db;
		REQUIRE(sbx_db_open(&db, dir, NULL) == SBX_OK);
		REQUIRE(make_table(db, "term") == SBX_OK);
		sbx_db_close(db);
	}
	int out[2];
	REQUIRE(pipe(out) == 0);
	pid_t pid = fork();
	REQUIRE(pid >= 0);
	if (pid == 0) {
		dup2(out[1], 1);
		close(out[0]);
		execl(bin, bin, "serve", "--data", dir, "--port", "0", (char *)NULL);
		_exit(127);
	}
	close(out[1]);
	FILE *f = fdopen(out[0], "r");
	char line[512];
	int port = 0;
	while (!port && fgets(line, sizeof line, f)) {
		char *p = strstr(line, "http://127.0.0.1:");
		if (p)
			port = atoi(p + strlen("http://127.0.0.1:"));
	}
	REQUIRE(port > 0);
	load_client lc[TERM_CLIENTS];
	pthread_t th[TERM_CLIENTS];
	for (int i = 0; i < TERM_CLIENTS; i++) {
		memset(&lc[i], 0, sizeof lc[i]);
		lc[i].id = i;
		lc[i].port = port;
		pthread_create(&th[i], NULL, term_run, &lc[i]);
	}
	struct timespec ts = {1, 0};
	nanosleep(&ts, NULL);
	kill(pid, SIGTERM);
	long acked = 0;
	for (int i = 0; i < TERM_CLIENTS; i++) {
		pthread_join(th[i], NULL);
		acked += lc[i].acked;
	}
	int status = 0;
	waitpid(pid, &status, 0);
	fclose(f);
	CHECK(WIFEXITED(status));
	CHECK_INT(WEXITSTATUS(status), 0);
	fprintf(stderr, "sigterm: %ld writes acknowledged before shutdown\n", acked);
	CHECK(acked > 0);
	sbx_db *db;
	REQUIRE(sbx_db_open(&db, dir, NULL) == SBX_OK);
	check_acked(db, lc, TERM_CLIENTS, "term");
	sbx_db_close(db);
}

TEST_MAIN(T(test_route_parse), T(test_base64), T(test_cellset_codecs),
	  T(test_scanner_spec), T(test_load), T(test_table_cache),
	  T(test_sigterm))
