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
	const char *token;         /* bearer token for every request, NULL = none */
	bool public_read;          /* with a token: reads need none */
	size_t max_body_bytes;     /* 413 above this, default 64 MiB */
	size_t max_inflight_body_bytes; /* request bodies held at once, all
				    * requests together; 503 with Retry-After
				    * beyond it, default 256 MiB */
	size_t max_page_cells;     /* cells per scanner page, default 10000 */
	int threads;               /* worker threads, default 2 x CPUs */
	int64_t scanner_idle_ms;   /* idle scanners expire, default 60 s */
	size_t max_scanners;       /* open stateful scanners, default 10000 */
	size_t max_client_scanners;/* open scanners per client address, 100 */
	unsigned max_connections;  /* open connections in all, default 1000 */
	unsigned max_ip_connections; /* from one address, default 64 */
	unsigned header_timeout_s; /* idle limit before a request's headers
				    * are complete, default 10 */
	unsigned idle_timeout_s;   /* idle limit otherwise, default 120 */
	bool group_commit;         /* write concurrent PUTs and DELETEs
				    * together (commit.c), default true. Only
				    * for a db whose sbx_table_batch statuses
				    * are exact per row, as the embedded
				    * store's: a remote gateway's batch fails
				    * or succeeds per CellSet */
	int commit_threads;        /* group commits under way at once, each
				    * on its own core (1..64), default
				    * CPUs / 4, at least 1 */
} sbx_server_opts;

/* Most group commits under way at once (commit_threads). */
#define SBX_SERVER_MAX_COMMIT_THREADS 64

void sbx_server_opts_init(sbx_server_opts *o);

typedef struct rest_server sbx_server;

/* Start serving db (borrowed; must outlive the server). SBX_EIO with a
 * message (sbx_errmsg(): "... address already in use") if the address
 * cannot be bound; SBX_EINVAL for a bad bind address. */
int sbx_server_start(sbx_server **out, sbx_db *db, const sbx_server_opts *o);
/* The port actually bound (useful with port 0). */
int sbx_server_port(const sbx_server *s);
/* Graceful stop: requests whose headers arrive from now on are refused
 * (503, Retry-After: 1, Connection: close), requests already admitted finish
 * (up to drain_ms), then the listen socket closes; scanners closed, freed. */
void sbx_server_stop(sbx_server *s, int64_t drain_ms);

#endif
