/*
 * fuzz_workload.c - libFuzzer target for the keyviz workload and trace
 * parsers: any input either parses or fails with a message naming its
 * line; what parses is replayed (capped) through a small design; a
 * trace with its region layout lines, and a modelled server failure.
 */
#include "saltbox/keyviz.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 1 << 16)
		return 0;
	const char *text = (const char *)data;
	sbx_workload *w = NULL;
	int line = 0;
	int rc = sbx_workload_parse(&w, text, size, &line);
	if (rc) {
		if (strncmp(sbx_errmsg(), "line ", 5) != 0 &&
		    rc != SBX_ENOMEM)
			abort(); /* every parse error names its line */
	} else if (sbx_workload_ops(w) <= 2000) {
		/* replay small workloads through a design using common names */
		sbx_keydesign *d;
		const char *ds = "id:u64";
		if (!sbx_keydesign_parse(&d, ds, strlen(ds), NULL)) {
			sbx_keyviz_opts o;
			sbx_keyviz_opts_init(&o);
			sbx_workload_cluster_opts(w, &o);
			o.time_buckets = 4;
			o.key_buckets = 4;
			sbx_keyviz_result *r;
			if (!sbx_keyviz_simulate(&r, w, d, &o))
				sbx_keyviz_result_free(r);
			sbx_keydesign_free(d);
		}
	}
	sbx_workload_free(w);
	/* the same bytes as a trace of raw keys */
	rc = sbx_trace_parse(&w, text, size, size & 1, 0, &line);
	if (!rc) {
		if (sbx_workload_ops(w) <= 2000) {
			/* the trace's layout lines replayed, and a server
			 * failure half way */
			sbx_keyviz_opts o;
			sbx_keyviz_opts_init(&o);
			sbx_workload_cluster_opts(w, &o);
			o.time_buckets = 3;
			o.key_buckets = 5;
			o.fail_at = (int)(size % 3);
			sbx_keyviz_result *r;
			if (!sbx_keyviz_simulate(&r, w, NULL, &o))
				sbx_keyviz_result_free(r);
		}
		sbx_workload_free(w);
	}
	return 0;
}
