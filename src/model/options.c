/*
 * options.c - defaults for read and scan options, and the prefix-scan
 * bounds (Scan.setStartStopRowForPrefixScan).
 */
#include "saltbox/table.h"

#include <string.h>

void sbx_read_opts_init(sbx_read_opts *o)
{
	memset(o, 0, sizeof *o);
	o->max_versions = 1;
	o->min_ts = 0;
	o->max_ts = INT64_MAX;
}

void sbx_scan_opts_init(sbx_scan_opts *o)
{
	memset(o, 0, sizeof *o);
	sbx_read_opts_init(&o->read);
	o->start_inclusive = true;
	o->stop_inclusive = false;
}

void sbx_scan_opts_set_prefix(sbx_scan_opts *o, const void *prefix,
			      size_t prefix_len, uint8_t *stop_buf)
{
	o->start_row = prefix;
	o->start_row_len = prefix_len;
	o->start_inclusive = true;
	/* Scan.setStartStopRowForPrefixScan: drop trailing 0xFF bytes, then
	 * increment the last byte; an all-0xFF prefix scans to the end. */
	size_t n = prefix_len;
	const uint8_t *p = prefix;
	while (n > 0 && p[n - 1] == 0xFF)
		n--;
	if (n == 0) {
		o->stop_row = NULL;
		o->stop_row_len = 0;
	} else {
		memcpy(stop_buf, p, n);
		stop_buf[n - 1]++;
		o->stop_row = stop_buf;
		o->stop_row_len = n;
	}
	o->stop_inclusive = false;
}
