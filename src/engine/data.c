/*
 * data.c - the data path's entry points from the table API: table handles
 * (a counted reference to a table), get and scanners. Each call takes the
 * table's read lock, checks it is still there and enabled, and hands the
 * read to read.c; writes enter through write.c.
 */
#include "engine/engine.h"

#include "common/alloc.h"
#include "common/error.h"

#include <stdlib.h>

int engine_table_open(void **out, void *p, const char *name)
{
	table_handle *h = sbx_calloc(1, sizeof *h);
	if (!h)
		return SBX_ENOMEM_SET();
	int rc = engine_table_get(&h->t, p, name);
	if (rc) {
		free(h);
		return rc;
	}
	h->eng = p;
	*out = h;
	return SBX_OK;
}

void engine_table_close(void *p)
{
	table_handle *h = p;
	table_unref(h->t);
	free(h);
}

int engine_get(sbx_result **out, void *p, const uint8_t *row, size_t row_len,
	       const sbx_read_opts *o)
{
	table_handle *h = p;
	int rc = table_lock_for_data(h->t, true);
	if (rc)
		return rc;
	rc = engine_read_row(out, h->eng, h->t, row, row_len, o);
	table_rdunlock(h->t);
	return rc;
}

typedef struct engine_scanner {
	table_handle *h;
	reader *r;
} engine_scanner;

int engine_scanner_open(void **out, void *p, const sbx_scan_opts *o)
{
	table_handle *h = p;
	engine_scanner *s = sbx_calloc(1, sizeof *s);
	if (!s)
		return SBX_ENOMEM_SET();
	int rc = table_lock_for_data(h->t, true);
	if (!rc) {
		rc = reader_open(&s->r, h->eng, h->t, o);
		table_rdunlock(h->t);
	}
	if (rc) {
		free(s);
		return rc;
	}
	s->h = h;
	*out = s;
	return SBX_OK;
}

int engine_scanner_next(void *p, sbx_result **out)
{
	engine_scanner *s = p;
	int rc = table_lock_for_data(s->h->t, true);
	if (rc)
		return rc;
	rc = reader_next(s->r, out);
	table_rdunlock(s->h->t);
	return rc;
}

void engine_scanner_close(void *p)
{
	engine_scanner *s = p;
	reader_counts_flush_unlocked(s->r);
	reader_close(s->r);
	free(s);
}

