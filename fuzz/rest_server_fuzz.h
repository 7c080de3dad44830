/*
 * rest_server_fuzz.h - a real store and a REST server without a socket,
 * shared by the fuzz targets that drive whole requests through the router
 * (rest_admit + rest_route_request, router.c): a temporary store with
 * table 't' (family 'f'), made on the first input and removed at exit.
 */
#ifndef SBX_FUZZ_REST_SERVER_FUZZ_H
#define SBX_FUZZ_REST_SERVER_FUZZ_H

#include "saltbox.h"
#include "server/rest.h"

#include "common/buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static rest_server fuzz_srv;
static char fuzz_dir[64];

static void fuzz_server_cleanup(void)
{
	rest_scanners_free(fuzz_srv.scanners);
	sbx_db_close(fuzz_srv.db);
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", fuzz_dir);
	if (system(cmd) != 0)
		fprintf(stderr, "fuzz: could not remove %s\n", fuzz_dir);
}

static rest_server *fuzz_server(void)
{
	if (fuzz_srv.db)
		return &fuzz_srv;
	snprintf(fuzz_dir, sizeof fuzz_dir, "/tmp/sbx-fuzz-XXXXXX");
	if (!mkdtemp(fuzz_dir) || sbx_db_open(&fuzz_srv.db, fuzz_dir, NULL))
		abort();
	sbx_family_desc f;
	sbx_family_desc_init(&f, "f");
	if (sbx_table_create(fuzz_srv.db, "t", &f, 1))
		abort();
	sbx_server_opts_init(&fuzz_srv.opts);
	fuzz_srv.opts.max_body_bytes = 1 << 20;
	fuzz_srv.opts.max_page_cells = 100;
	if (rest_scanners_new(&fuzz_srv.scanners))
		abort();
	snprintf(fuzz_srv.host_port, sizeof fuzz_srv.host_port, "127.0.0.1:0");
	atexit(fuzz_server_cleanup);
	return &fuzz_srv;
}

/* Admit and route rq as the transport would, drain a streamed body, and
 * check the answer is an HTTP status. */
static void fuzz_serve(rest_request *rq)
{
	rest_response rs = {.status = 200};
	bool close = false;
	if (rest_admit(rq, &rs, &close))
		rest_route_request(rq, &rs);
	if (rs.status < 200 || rs.status > 599)
		abort();
	if (rs.stream.next) {
		for (int i = 0; i < 1000; i++) {
			int rc = rs.stream.next(rs.stream.state, &rs.body);
			if (rc <= 0)
				break;
		}
	}
	rest_response_free(&rs);
	rest_request_free(rq);
}

#endif
