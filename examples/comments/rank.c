/*
 * rank.c - seed 003's batch that picks each product's top 10 comments:
 * by helpful votes, then longer content, then newer (then the comment's
 * row key, so the order is total). Ranks 1..n are upserted into
 * product-comment-rank (`productId 'r' rank`), n <= 10; a product with fewer
 * comments keeps fewer ranks and stale ranks are removed.
 *
 * Incremental: every comment write marks its product in rank-pending (in
 * the same transaction), with the transaction's id as the value. A run
 * reads the marks, ranks only those products, and removes a mark in the
 * rank transaction only if it still holds the id it read - a mark written
 * again meanwhile stays for the next run.
 */
#include "comments.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PENDING_MAX 500 /* marks cleared per product per run */
#define CHUNK 400	/* index rows read per read-only transaction */

typedef struct cand {
	uint8_t key[CM_COMMENT_KEY_LEN];
	int64_t helpful, ts;
	size_t len;
} cand;

typedef struct mark {
	uint8_t key[CM_COMMENT_KEY_LEN];
	uint8_t token[8];
} mark;

static int cand_cmp(const void *pa, const void *pb)
{
	const cand *a = pa, *b = pb;
	if (a->helpful != b->helpful)
		return a->helpful > b->helpful ? -1 : 1;
	if (a->len != b->len)
		return a->len > b->len ? -1 : 1;
	if (a->ts != b->ts)
		return a->ts > b->ts ? -1 : 1;
	return memcmp(a->key, b->key, sizeof a->key);
}

static void open_opts(sbx_scan_opts *so, sbx_column *col, const uint8_t *prefix,
		      size_t plen, uint8_t *stop)
{
	sbx_scan_opts_init(so);
	sbx_scan_opts_set_prefix(so, prefix, plen, stop);
	*col = (sbx_column){"d", NULL, 0};
	so->read.columns = col;
	so->read.ncolumns = 1;
}

/* Every comment of the product, through read-only transactions of up to
 * CHUNK index rows each (a transaction touches at most SBX_TXN_MAX_ROWS). */
static int read_candidates(cand **out, size_t *n, cm_app *app,
			   const uint8_t pid[CM_ID_MAX])
{
	uint8_t prefix[11], stop[11], last[CM_PC_KEY_LEN];
	memcpy(prefix, pid, CM_ID_MAX);
	prefix[10] = 'c';
	bool have_last = false;
	size_t cap = 0;
	*out = NULL;
	*n = 0;
	for (;;) {
		sbx_txn *txn;
		int rc = sbx_txn_begin_with(&txn, app->db, &app->txo);
		if (rc)
			return rc;
		sbx_scan_opts so;
		sbx_column col;
		open_opts(&so, &col, prefix, 11, stop);
		if (have_last) {
			so.start_row = last;
			so.start_row_len = sizeof last;
			so.start_inclusive = false;
		}
		so.limit = CHUNK;
		sbx_scanner *s;
		rc = sbx_txn_scanner_open(&s, txn, app->t[CM_T_PRODUCT_COMMENT],
					  &so);
		int rows = 0;
		while (rc == SBX_OK) {
			sbx_result *r;
			int st = sbx_scanner_next(s, &r);
			if (st == SBX_ITEROVER)
				break;
			if (st) {
				rc = st;
				break;
			}
			rows++;
			size_t rl;
			const uint8_t *row = sbx_result_row(r, &rl);
			if (rl == CM_PC_KEY_LEN) {
				memcpy(last, row, rl);
				have_last = true;
			}
			const sbx_cell *v = sbx_result_get(r, "d", "c", 1);
			cm_comment c;
			bool found = false;
			if (v)
				rc = cm_comment_read(&c, &found, app, txn,
						     v->value, v->value_len);
			if (rc == SBX_OK && found &&
			    v->value_len == CM_COMMENT_KEY_LEN) {
				if (*n == cap) {
					cap = cap ? 2 * cap : 64;
					cand *g =
					    realloc(*out, cap * sizeof *g);
					if (!g)
						rc = SBX_ENOMEM;
					else
						*out = g;
				}
				if (rc == SBX_OK) {
					cand *x = &(*out)[(*n)++];
					memcpy(x->key, v->value, sizeof x->key);
					x->helpful = c.helpful;
					x->ts = c.timestamp;
					x->len = c.content_len;
				}
			}
			if (found)
				cm_comment_clear(&c);
			sbx_result_free(r);
		}
		if (s)
			sbx_scanner_close(s);
		sbx_txn_rollback(txn); /* read only */
		if (rc)
			return rc;
		if (rows < CHUNK)
			return SBX_OK;
	}
}

typedef struct rank_op {
	cm_app *app;
	char pid[CM_ID_MAX + 1];
	const cand *all; /* every candidate, best first */
	size_t nall;
	const cand *top[CM_TOP]; /* those that still exist, in this txn */
	size_t ntop;
	const mark *marks;
	size_t nmarks;
} rank_op;

/* The best CM_TOP candidates that still exist, read inside the rank
 * transaction: the candidates were read by earlier read-only transactions,
 * and a comment deleted since (its delete removes the rank rows pointing at
 * it, but cannot see ranks not written yet) must not be ranked. Reading it
 * here makes a delete that commits before this transaction does a conflict
 * (rows only read are checked at commit), so sbx_txn_run retries; a delete
 * that commits after it reads every rank row by key (store.c delete_fn), so
 * the rank rows written here are a conflict for it in turn. */
static int pick_top(sbx_txn *txn, rank_op *o)
{
	o->ntop = 0;
	for (size_t i = 0; i < o->nall && o->ntop < CM_TOP; i++) {
		sbx_result *r;
		int rc = sbx_txn_get(&r, txn, o->app->t[CM_T_COMMENT],
				     o->all[i].key, CM_COMMENT_KEY_LEN, NULL);
		if (rc)
			return rc;
		if (sbx_result_size(r))
			o->top[o->ntop++] = &o->all[i];
		sbx_result_free(r);
	}
	return SBX_OK;
}

static int put_c(sbx_txn *txn, sbx_table *t, const sbx_buf *k, const void *v,
		 size_t len, const char *q)
{
	sbx_mutation *m;
	int rc = sbx_mutation_new(&m, k->data, k->len);
	rc = rc ? rc
		: sbx_mutation_put(m, "d", q, strlen(q), SBX_LATEST_TIMESTAMP,
				   v, len);
	rc = rc ? rc : sbx_txn_mutate(txn, t, m);
	sbx_mutation_free(m);
	return rc;
}

static int del_row(sbx_txn *txn, sbx_table *t, const void *key, size_t len)
{
	sbx_mutation *m;
	int rc = sbx_mutation_new(&m, key, len);
	rc = rc ? rc : sbx_mutation_delete_row(m, SBX_LATEST_TIMESTAMP);
	rc = rc ? rc : sbx_txn_mutate(txn, t, m);
	sbx_mutation_free(m);
	return rc;
}

static int rank_fn(sbx_txn *txn, void *arg)
{
	rank_op *o = arg;
	cm_app *app = o->app;
	int rc = pick_top(txn, o);
	if (rc)
		return rc;
	/* the ranks there now */
	uint8_t prefix[11], stop[11];
	memset(prefix, 0, sizeof prefix);
	memcpy(prefix, o->pid, strlen(o->pid));
	prefix[10] = 'r';
	sbx_scan_opts so;
	sbx_column col;
	open_opts(&so, &col, prefix, 11, stop);
	sbx_scanner *s;
	rc = sbx_txn_scanner_open(&s, txn, app->t[CM_T_RANK], &so);
	if (rc)
		return rc;
	/* rank number -> value held (20 B), for ranks up to 64 */
	uint8_t held[65][CM_COMMENT_KEY_LEN];
	bool has[65] = {0};
	uint16_t extra[64];
	size_t nextra = 0;
	while (rc == SBX_OK) {
		sbx_result *r;
		int st = sbx_scanner_next(s, &r);
		if (st == SBX_ITEROVER)
			break;
		if (st) {
			rc = st;
			break;
		}
		size_t rl;
		const uint8_t *row = sbx_result_row(r, &rl);
		const sbx_cell *v = sbx_result_get(r, "d", "c", 1);
		if (rl == 13) {
			unsigned rank = (unsigned)row[11] << 8 | row[12];
			if (rank >= 1 && rank <= 64 && v &&
			    v->value_len == CM_COMMENT_KEY_LEN) {
				memcpy(held[rank], v->value,
				       CM_COMMENT_KEY_LEN);
				has[rank] = true;
			}
			if (rank > o->ntop && nextra < 64)
				extra[nextra++] = (uint16_t)rank;
		}
		sbx_result_free(r);
	}
	sbx_scanner_close(s);
	sbx_buf k = {0};
	for (size_t i = 0; rc == SBX_OK && i < o->ntop; i++) {
		unsigned rank = (unsigned)i + 1;
		if (has[rank] &&
		    !memcmp(held[rank], o->top[i]->key, CM_COMMENT_KEY_LEN))
			continue; /* unchanged */
		char rs[8];
		snprintf(rs, sizeof rs, "%u", rank);
		rc = cm_key(&k, app, CM_T_RANK, "product_id", o->pid, "rank",
			    rs, NULL);
		rc = rc ? rc
			: put_c(txn, app->t[CM_T_RANK], &k, o->top[i]->key,
				CM_COMMENT_KEY_LEN, "c");
	}
	for (size_t i = 0; rc == SBX_OK && i < nextra; i++) {
		char rs[8];
		snprintf(rs, sizeof rs, "%u", (unsigned)extra[i]);
		rc = cm_key(&k, app, CM_T_RANK, "product_id", o->pid, "rank",
			    rs, NULL);
		rc = rc ? rc : del_row(txn, app->t[CM_T_RANK], k.data, k.len);
	}
	sbx_buf_free(&k);
	/* the marks: cleared only if no write came after the one we saw */
	for (size_t i = 0; rc == SBX_OK && i < o->nmarks; i++) {
		sbx_result *r;
		rc = sbx_txn_get(&r, txn, app->t[CM_T_PENDING], o->marks[i].key,
				 CM_COMMENT_KEY_LEN, NULL);
		if (rc)
			break;
		const sbx_cell *v = sbx_result_get(r, "d", "p", 1);
		if (v && v->value_len == 8 &&
		    !memcmp(v->value, o->marks[i].token, 8))
			rc = del_row(txn, app->t[CM_T_PENDING], o->marks[i].key,
				     CM_COMMENT_KEY_LEN);
		sbx_result_free(r);
	}
	return rc;
}

static int rank_product(cm_app *app, const mark *marks, size_t nmarks)
{
	rank_op o = {.app = app, .marks = marks, .nmarks = nmarks};
	size_t n = 0;
	while (n < CM_ID_MAX && marks[0].key[n])
		n++;
	memcpy(o.pid, marks[0].key, n);
	o.pid[n] = '\0';
	cand *all;
	size_t nall;
	int rc = read_candidates(&all, &nall, app, marks[0].key);
	if (rc) {
		free(all);
		return rc;
	}
	if (nall > 1)
		qsort(all, nall, sizeof *all, cand_cmp);
	o.all = all;
	o.nall = nall;
	rc = sbx_txn_run(NULL, app->db, &app->txo, rank_fn, &o);
	free(all);
	return rc;
}

int cm_rank_run(long *products, cm_app *app)
{
	*products = 0;
	pthread_mutex_lock(&app->rank_lock);
	/* the marks, read plainly: a mark seen late waits for the next run;
	 * at most PENDING_MAX per product (the rest wait too) */
	sbx_scan_opts so;
	sbx_scan_opts_init(&so);
	sbx_column col = {"d", NULL, 0};
	so.read.columns = &col;
	so.read.ncolumns = 1;
	sbx_scanner *s;
	int rc = sbx_scanner_open(&s, app->t[CM_T_PENDING], &so);
	mark *marks = NULL;
	size_t n = 0, cap = 0, same = 0;
	while (rc == SBX_OK) {
		sbx_result *r;
		int st = sbx_scanner_next(s, &r);
		if (st == SBX_ITEROVER)
			break;
		if (st) {
			rc = st;
			break;
		}
		size_t rl;
		const uint8_t *row = sbx_result_row(r, &rl);
		const sbx_cell *v = sbx_result_get(r, "d", "p", 1);
		if (rl == CM_COMMENT_KEY_LEN && v && v->value_len == 8) {
			if (n && !memcmp(marks[n - 1].key, row, CM_ID_MAX))
				same++;
			else
				same = 1;
			if (same <= PENDING_MAX && n == cap) {
				cap = cap ? 2 * cap : 64;
				mark *g = realloc(marks, cap * sizeof *g);
				if (!g)
					rc = SBX_ENOMEM;
				else
					marks = g;
			}
			if (rc == SBX_OK && same <= PENDING_MAX) {
				memcpy(marks[n].key, row, CM_COMMENT_KEY_LEN);
				memcpy(marks[n].token, v->value, 8);
				n++;
			}
		}
		sbx_result_free(r);
	}
	if (s)
		sbx_scanner_close(s);
	for (size_t i = 0; rc == SBX_OK && i < n;) {
		size_t j = i + 1;
		while (j < n && !memcmp(marks[i].key, marks[j].key, CM_ID_MAX))
			j++;
		rc = rank_product(app, marks + i, j - i);
		(*products)++;
		i = j;
	}
	free(marks);
	pthread_mutex_unlock(&app->rank_lock);
	return rc;
}
