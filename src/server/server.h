/*
 * server.h - the HBase REST server behind `saltbox serve` (internal to the
 * saltbox command; built into libsaltbox so tests and fuzzers link it).
 *
 * The server borrows an open sbx_db and serves it on a libmicrohttpd thread
 * pool. Thread-safety: start and stop from one thread; the server's own
 * threads only use the db through the public API.
 */
#ifndef SBX_SERVER_SERVER_H
#define SBX_SERVER_SERVER_H

#include "saltbox/db.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct sbx_server_opts {
	const char *bind;          /* default "127.0.0.1" */
	int port;                  /* default 8080; 0 = any free port */
	bool read_only;            /* 403 for every mutation */
	const char *token;         /* bearer token for mutations, NULL = none */
	size_t max_body_bytes;     /* 413 above this, default 64 MiB */
	size_t max_page_cells;     /* cells per scanner page, default 10000 */
	int threads;               /* worker threads, default 2 x CPUs */
	int64_t scanner_idle_ms;   /* idle scanners expire, default 1 h */
	size_t max_scanners;       /* open stateful scanners, default 10000 */
} sbx_server_opts;

void sbx_server_opts_init(sbx_server_opts *o);

typedef struct rest_server sbx_server;

/* Start serving db (borrowed; must outlive the server). SBX_EIO with a
 * message if the address cannot be bound. */
int sbx_server_start(sbx_server **out, sbx_db *db, const sbx_server_opts *o);
/* The port actually bound (useful with port 0). */
int sbx_server_port(const sbx_server *s);
/* Graceful stop: stop accepting, let requests being handled finish (up to
 * drain_ms), close scanners, free. */
void sbx_server_stop(sbx_server *s, int64_t drain_ms);

#endif
