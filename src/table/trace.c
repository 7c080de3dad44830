/*
 * trace.c - the operation trace of a database handle, whatever its backend:
 * every get and scan, and every write that succeeded, appended as a line
 * `put|get|scan<TAB>KEY` (KEY as HBase prints bytes) for keyviz to replay
 * (`saltbox keyviz simulate -t FILE`). With the operations goes the
 * tables' real region layout, so the replay starts from the store's
 * pre-splits rather than one region: the first time the trace sees a
 * table, a `region<TAB>KEY` line per region boundary; then, every
 * TRACE_LAYOUT_EVERY operations on the table, a `split<TAB>KEY` per new
 * boundary and a `merge<TAB>KEY` per one gone since. Opened by
 * sbx_db_trace() or sbx_db_options.trace_path; writes are best effort (a
 * full disk loses trace lines, never an operation; a backend that cannot
 * list regions gives a trace without layout lines).
 */
#include "table/trace.h"

#include "common/alloc.h"
#include "common/buf.h"
#include "common/bytes.h"
#include "common/error.h"
#include "saltbox/regions.h"
#include "saltbox/rowkey.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { TRACE_LAYOUT_EVERY = 1024 };

/* One table's region boundaries as last written to the trace. */
typedef struct trace_table {
	char *name;
	sbx_buf *bounds; /* sorted non-empty region start keys */
	size_t n;
	uint64_t ops;
} trace_table;

struct table_trace_layout {
	trace_table *t;
	size_t n;
};

static void layout_free(struct table_trace_layout *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->n; i++) {
		free(l->t[i].name);
		for (size_t j = 0; j < l->t[i].n; j++)
			sbx_buf_free(&l->t[i].bounds[j]);
		free(l->t[i].bounds);
	}
	free(l->t);
	free(l);
}

int table_trace_open(sbx_db *db, const char *path)
{
	FILE *f = NULL;
	if (path && !(f = fopen(path, "a"))) {
		int err = errno;
		return sbx_error_set(SBX_EIO, "cannot open trace file '%s': %s",
				     path, strerror(err));
	}
	table_trace_close(db);
	if (f) {
		pthread_mutex_init(&db->trace_lock, NULL);
		db->trace = f;
	}
	return SBX_OK;
}

void table_trace_close(sbx_db *db)
{
	if (!db->trace)
		return;
	fclose(db->trace);
	db->trace = NULL;
	layout_free(db->trace_layout);
	db->trace_layout = NULL;
	pthread_mutex_destroy(&db->trace_lock);
}

static void write_line(sbx_db *db, const char *op, const void *key,
		       size_t len)
{
	sbx_buf line = {0};
	if (!sbx_buf_printf(&line, "%s\t", op) &&
	    !sbx_key_to_binary_string(&line, key, len) &&
	    !sbx_buf_push(&line, '\n'))
		fwrite(line.data, 1, line.len, db->trace); /* best effort */
	sbx_buf_free(&line);
}

static bool has_bound(const sbx_buf *b, size_t n, const uint8_t *k,
		      size_t len)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = sbx_bytes_cmp(b[mid].data, b[mid].len, k, len);
		if (!c)
			return true;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

/* Read the table's regions now and write what changed since the last
 * look (`first`: every boundary, as `region` lines). Under trace_lock.
 * The caller's error message is kept: the operation traced may have
 * failed, and its message is the one the caller reads. */
static void layout_update(sbx_db *db, trace_table *tt, bool first)
{
	if (!db->ops->regions)
		return;
	const char *saved = sbx_errmsg();
	char keep[1024];
	snprintf(keep, sizeof keep, "%s", saved ? saved : "");
	sbx_region_info *r = NULL;
	size_t n = 0;
	int rc = db->ops->regions->regions(&r, &n, db->impl, tt->name);
	if (*keep)
		sbx_error_set(SBX_EIO, "%s", keep);
	if (rc)
		return;
	sbx_buf *nb = sbx_calloc(n ? n : 1, sizeof *nb);
	size_t nn = 0;
	for (size_t i = 0; nb && i < n; i++) {
		if (!r[i].start_len)
			continue;
		if (sbx_buf_set(&nb[nn], r[i].start_key, r[i].start_len))
			break;
		nn++;
	}
	if (nb) {
		for (size_t i = 0; i < nn; i++)
			if (first || !has_bound(tt->bounds, tt->n, nb[i].data,
						nb[i].len))
				write_line(db, first ? "region" : "split",
					   nb[i].data, nb[i].len);
		for (size_t i = 0; !first && i < tt->n; i++)
			if (!has_bound(nb, nn, tt->bounds[i].data,
				       tt->bounds[i].len))
				write_line(db, "merge", tt->bounds[i].data,
					   tt->bounds[i].len);
		for (size_t j = 0; j < tt->n; j++)
			sbx_buf_free(&tt->bounds[j]);
		free(tt->bounds);
		tt->bounds = nb;
		tt->n = nn;
	}
	sbx_region_infos_free(r, n);
}

/* The table's layout state, made (and its boundaries written) the first
 * time the trace sees it. Under trace_lock. */
static void layout_check(sbx_db *db, const char *table)
{
	struct table_trace_layout *l = db->trace_layout;
	if (!l && !(l = db->trace_layout = sbx_calloc(1, sizeof *l)))
		return;
	for (size_t i = 0; i < l->n; i++) {
		trace_table *tt = &l->t[i];
		if (strcmp(tt->name, table))
			continue;
		if (++tt->ops % TRACE_LAYOUT_EVERY == 0)
			layout_update(db, tt, false);
		return;
	}
	trace_table *nt = sbx_realloc(l->t, (l->n + 1) * sizeof *nt);
	if (!nt)
		return;
	l->t = nt;
	trace_table *tt = &l->t[l->n];
	memset(tt, 0, sizeof *tt);
	if (!(tt->name = sbx_strdup(table)))
		return;
	l->n++;
	layout_update(db, tt, true);
}

void table_trace_op(sbx_db *db, const char *table, const char *op,
		    const void *row, size_t len)
{
	if (!db->trace || !len)
		return;
	pthread_mutex_lock(&db->trace_lock);
	if (table)
		layout_check(db, table);
	write_line(db, op, row, len);
	pthread_mutex_unlock(&db->trace_lock);
}
