/*
 * scanner.h - the one iterator contract behind sbx_scanner (internal): a
 * backend's scanner, the salted-scan merge and any later composite scanner
 * all yield results through next/close, so callers never know which.
 */
#ifndef SBX_TABLE_SCANNER_H
#define SBX_TABLE_SCANNER_H

#include "saltbox/table.h"

typedef struct scanner_ops {
	int (*next)(void *impl, sbx_table *t, sbx_result **out);
	void (*close)(void *impl, sbx_table *t);
} scanner_ops;

struct sbx_scanner {
	sbx_table *t;
	const scanner_ops *ops;
	void *impl;
};

/* Wrap impl as an sbx_scanner. On failure impl is closed. */
int scanner_wrap(sbx_scanner **out, sbx_table *t, const scanner_ops *ops,
		 void *impl);
/* The checks sbx_scanner_open applies to scan options. */
int scanner_check_opts(const sbx_scan_opts *opts);

#endif
