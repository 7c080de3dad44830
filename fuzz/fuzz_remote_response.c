/*
 * fuzz_remote_response.c - libFuzzer target for the remote backend's
 * parsing of what an HBase REST gateway answers (src/remote/): table and
 * namespace lists, schemas, CellSets of gets, scans and increments,
 * scanner Locations, region lists, /status/cluster, error bodies and
 * statuses. No network: the transport seam (remote_transport_hook) hands
 * the backend the fuzzed responses in turn while one operation, picked by
 * the first byte, runs through the public API.
 *
 * Input: an operation byte, then responses separated by 0x1E; each is a
 * status byte (an index into common HBase statuses), a header block ended
 * by an empty line ("Location: ...\r\n\r\n", optional) and the body. When
 * the responses run out the gateway is "unreachable". Any answer gives a
 * result or an error with a message; never a crash, hang or leak.
 */
#include "remote/remote.h"
#include "saltbox.h"

#include <stdlib.h>
#include <string.h>

typedef struct feed {
	const uint8_t *p, *end;
	int served;
} feed;

static const long statuses[] = {200, 201, 204, 304, 400, 401, 403, 404,
				405, 409, 413, 429, 500, 503, 200, 200};

static int serve(void *ctx, const char *method, const char *path,
		 const void *body, size_t len, long *status, sbx_buf *headers,
		 sbx_buf *resp_body)
{
	(void)method, (void)path, (void)body, (void)len;
	feed *f = ctx;
	if (f->p >= f->end || f->served++ > 64)
		return 1; /* unreachable: ends retry and paging loops */
	const uint8_t *sep = memchr(f->p, 0x1E, (size_t)(f->end - f->p));
	const uint8_t *stop = sep ? sep : f->end;
	const uint8_t *q = f->p;
	f->p = sep ? sep + 1 : f->end;
	*status = statuses[*q++ & 15];
	/* headers up to an empty line, when the response has one */
	for (const uint8_t *h = q; h + 4 <= stop; h++)
		if (!memcmp(h, "\r\n\r\n", 4)) {
			if (sbx_buf_append(headers, q, (size_t)(h - q) + 2))
				return 1;
			q = h + 4;
			break;
		}
	return q < stop && sbx_buf_append(resp_body, q, (size_t)(stop - q))
		       ? 1
		       : 0;
}

static void check_error(int rc)
{
	if (rc != SBX_OK && rc != SBX_ITEROVER && !*sbx_errmsg())
		abort(); /* every failure says why */
}

static void run_table_op(sbx_table *t, int op)
{
	sbx_result *r = NULL;
	sbx_mutation *m = NULL;
	int rc = SBX_OK;
	switch (op) {
	case 0: {
		rc = sbx_table_get(&r, t, "row", 3, NULL);
		break;
	}
	case 1: {
		sbx_scan_opts o;
		sbx_scan_opts_init(&o);
		sbx_scanner *s = NULL;
		rc = sbx_scanner_open(&s, t, &o);
		for (int i = 0; rc == SBX_OK && i < 100; i++) {
			rc = sbx_scanner_next(s, &r);
			if (rc == SBX_OK) {
				size_t n;
				sbx_result_cells(r, &n);
				sbx_result_free(r);
				r = NULL;
			}
		}
		sbx_scanner_close(s);
		break;
	}
	case 2:
		if (sbx_mutation_new(&m, "row", 3) == SBX_OK &&
		    sbx_mutation_increment(m, "cf", "n", 1, 5) == SBX_OK)
			rc = sbx_table_mutate(&r, t, m);
		break;
	case 3:
		if (sbx_mutation_new(&m, "row", 3) == SBX_OK &&
		    sbx_mutation_append(m, "cf", "a", 1, "x", 1) == SBX_OK)
			rc = sbx_table_mutate(&r, t, m);
		break;
	case 4: {
		bool ok;
		sbx_check c = {"cf", "q", 1, SBX_CMP_EQUAL, "v", 1};
		if (sbx_mutation_new(&m, "row", 3) == SBX_OK &&
		    sbx_mutation_put(m, "cf", "q", 1, SBX_LATEST_TIMESTAMP, "w",
				     1) == SBX_OK)
			rc = sbx_table_check_and_mutate(&ok, &r, t, "row", 3, &c,
							m);
		break;
	}
	default: {
		int st[2];
		sbx_mutation *ms[2] = {NULL, NULL};
		if (sbx_mutation_new(&ms[0], "a", 1) == SBX_OK &&
		    sbx_mutation_put(ms[0], "cf", "q", 1, 1, "v", 1) == SBX_OK &&
		    sbx_mutation_new(&ms[1], "b", 1) == SBX_OK &&
		    sbx_mutation_put(ms[1], "cf", "q", 1, 2, "w", 1) == SBX_OK)
			rc = sbx_table_batch(st, t, ms, 2);
		sbx_mutation_free(ms[0]);
		sbx_mutation_free(ms[1]);
		break;
	}
	}
	check_error(rc);
	if (r) {
		size_t n;
		sbx_result_cells(r, &n);
	}
	sbx_result_free(r);
	sbx_mutation_free(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	feed f = {data + 1, data + size, 0};
	remote_transport_hook = serve;
	remote_transport_ctx = &f;
	sbx_db *db;
	if (sbx_db_connect(&db, "http://fuzz.invalid:8080") != SBX_OK)
		abort();
	int op = data[0] % 16;
	int rc = SBX_OK;
	char **names = NULL;
	sbx_table_info *info = NULL;
	sbx_region_info *regions = NULL;
	sbx_region_load *load = NULL;
	size_t n = 0;
	bool b;
	switch (op) {
	case 0: rc = sbx_table_list(&names, db); break;
	case 1: rc = sbx_namespace_list(&names, db); break;
	case 2: rc = sbx_table_describe(&info, db, "t"); break;
	case 3: rc = sbx_table_exists(&b, db, "ns:t"); break;
	case 4: rc = sbx_table_is_enabled(&b, db, "t"); break;
	case 5: rc = sbx_table_regions(&regions, &n, db, "t"); break;
	case 6: (void)sbx_db_region_servers(db); break;
	case 7:
		rc = sbx_table_load(&load, &n, db, "t", 4);
		break;
	case 8: {
		sbx_family_desc fd;
		sbx_family_desc_init(&fd, "cf");
		rc = sbx_table_create(db, "t", &fd, 1);
		break;
	}
	case 9: rc = sbx_table_drop(db, "t"); break;
	default: {
		sbx_table *t = NULL;
		rc = sbx_table_open(&t, db, "t");
		if (rc == SBX_OK)
			run_table_op(t, op - 10);
		sbx_table_close(t);
		break;
	}
	}
	check_error(rc);
	sbx_strv_free(names);
	sbx_table_info_free(info);
	sbx_region_infos_free(regions, rc == SBX_OK ? n : 0);
	sbx_region_loads_free(load, rc == SBX_OK ? n : 0);
	sbx_db_close(db);
	remote_transport_hook = NULL;
	remote_transport_ctx = NULL;
	return 0;
}
