/*
 * http_util.h - raw HTTP/1.1 over loopback for the tests that drive
 * `saltbox serve` without a client library (test_crash, test_rest_commit,
 * test_rest_memory): a connection with timeouts, one request on a
 * keep-alive connection, base64 for CellSet bodies.
 */
#ifndef SBX_TEST_HTTP_UTIL_H
#define SBX_TEST_HTTP_UTIL_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

/* A connection to 127.0.0.1:port whose sends and receives give up after
 * timeout_s; -1 if it cannot connect. */
static inline int http_connect(int port, int timeout_s)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0)
		return -1;
	struct timeval tv = {timeout_s, 0};
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
	struct sockaddr_in sa = {.sin_family = AF_INET,
				 .sin_port = htons((uint16_t)port)};
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (connect(fd, (struct sockaddr *)&sa, sizeof sa)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* The number in header `name` (with its colon) of a response head, or
 * 0 when it has none. */
static inline size_t http_header_size(const char *head, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = head; (p = strstr(p, "\r\n")); p += 2)
		if (!strncasecmp(p + 2, name, n))
			return (size_t)atol(p + 2 + n);
	return 0;
}

static inline int http_read_answer(int fd, char *out, size_t cap);

/* One request on keep-alive connection fd, sent whole in one send (no
 * Nagle wait between head and body); ctype NULL: no body. The answer's
 * status, its body (NUL-ended, cut to cap) in out if out is not NULL; -1
 * when the connection broke. */
static inline int http_request(int fd, const char *method, const char *path,
			       const char *ctype, const char *body, char *out,
			       size_t cap)
{
	if (!ctype)
		body = "";
	size_t blen = strlen(body), rcap = blen + strlen(path) + 256;
	char *req = malloc(rcap);
	if (!req)
		return -1;
	int n = ctype ? snprintf(req, rcap,
				 "%s %s HTTP/1.1\r\nHost: x\r\n"
				 "Content-Type: %s\r\n"
				 "Content-Length: %zu\r\n\r\n%s",
				 method, path, ctype, blen, body)
		      : snprintf(req, rcap, "%s %s HTTP/1.1\r\nHost: x\r\n\r\n",
				 method, path);
	ssize_t sent = n > 0 && (size_t)n < rcap ?
			       send(fd, req, (size_t)n, MSG_NOSIGNAL) : -1;
	free(req);
	if (sent != n)
		return -1;
	return http_read_answer(fd, out, cap);
}

static inline int http_put(int fd, const char *path, const char *ctype,
			   const char *body, char *out, size_t cap)
{
	return http_request(fd, "PUT", path, ctype, body, out, cap);
}

/* Read one answer on fd: its status, its body (NUL-ended, cut to cap) in
 * out if out is not NULL; -1 when the connection broke. */
static inline int http_read_answer(int fd, char *out, size_t cap)
{
	char buf[8192];
	size_t got = 0, hlen = 0, want = 0;
	for (;;) { /* the head, then Content-Length bytes */
		ssize_t r = recv(fd, buf + got, sizeof buf - 1 - got, 0);
		if (r <= 0)
			return -1;
		got += (size_t)r;
		buf[got] = 0;
		char *e = strstr(buf, "\r\n\r\n");
		if (!e)
			continue;
		hlen = (size_t)(e + 4 - buf);
		want = http_header_size(buf, "Content-Length:");
		if (got >= hlen + want || got == sizeof buf - 1)
			break;
	}
	int status = -1;
	sscanf(buf, "HTTP/1.1 %d", &status);
	if (out)
		snprintf(out, cap, "%.*s", (int)(got - hlen), buf + hlen);
	return status;
}

/* Standard base64 of in[0..n) into out (4 * ceil(n / 3) + 1 bytes). */
static inline void http_b64(char *out, const void *in, size_t n)
{
	static const char t[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnop"
				"qrstuvwxyz0123456789+/";
	const unsigned char *p = in;
	size_t o = 0;
	for (size_t i = 0; i < n; i += 3) {
		unsigned v = (unsigned)p[i] << 16;
		if (i + 1 < n)
			v |= (unsigned)p[i + 1] << 8;
		if (i + 2 < n)
			v |= p[i + 2];
		out[o++] = t[(v >> 18) & 63];
		out[o++] = t[(v >> 12) & 63];
		out[o++] = i + 1 < n ? t[(v >> 6) & 63] : '=';
		out[o++] = i + 2 < n ? t[v & 63] : '=';
	}
	out[o] = 0;
}

#endif
