/*
 * check.c - `saltbox-comments check`: first resolve the locks dead
 * clients left (rolled forward or back once they expire, waiting for the
 * unexpired), then check that the index rows and the comments agree:
 * every comment has its user-comment and product-comment rows pointing at
 * it with its user, time and content length, every index row points at a
 * comment that matches its key, and every rank row at a comment of its
 * product. The SIGKILL test runs it after killing the service.
 */
#include "comments.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct ent {
	uint8_t key[CM_COMMENT_KEY_LEN];
	char user[CM_ID_MAX + 1];
	int64_t ts;
	size_t len;
	int seen[CM_NTABLES]; /* index rows pointing at it, per table */
} ent;

static int ent_cmp(const void *a, const void *b)
{
	return memcmp(((const ent *)a)->key, ((const ent *)b)->key,
		      CM_COMMENT_KEY_LEN);
}

/* The problems found so far; the first 20 are printed unless verbose. */
typedef struct tally {
	long problems;
	bool verbose;
} tally;

static void problem(tally *y, const char *fmt, const uint8_t *key, size_t len)
{
	y->problems++;
	if (!y->verbose && y->problems > 20)
		return;
	char hex[2 * 64 + 1] = "";
	for (size_t i = 0; i < len && i < 64; i++) {
		unsigned char c = key[i];
		if (c >= 0x21 && c < 0x7F && c != '\\')
			snprintf(hex + strlen(hex), 3, "%c", c);
		else
			snprintf(hex + strlen(hex), 5, "\\x%02X", c);
		if (strlen(hex) > 100)
			break;
	}
	printf("problem: %s: %s\n", fmt, hex);
}

static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
}

static int open_scan(sbx_scanner **s, sbx_table *t)
{
	sbx_scan_opts so;
	sbx_scan_opts_init(&so);
	sbx_column col = {"d", NULL, 0};
	so.read.columns = &col;
	so.read.ncolumns = 1;
	return sbx_scanner_open(s, t, &so);
}

static ent *find(ent *all, size_t n, const uint8_t *key, size_t len)
{
	if (len != CM_COMMENT_KEY_LEN)
		return NULL;
	ent k;
	memcpy(k.key, key, len);
	return bsearch(&k, all, n, sizeof *all, ent_cmp);
}

static void id_of(char out[CM_ID_MAX + 1], const uint8_t *p)
{
	size_t n = 0;
	while (n < CM_ID_MAX && p[n])
		n++;
	memcpy(out, p, n);
	out[n] = '\0';
}

/* Check the rows of index table t against the comments. */
static int check_index(tally *y, long *rows, cm_app *app, int t, ent *all,
		       size_t n)
{
	sbx_scanner *s;
	int rc = open_scan(&s, app->t[t]);
	*rows = 0;
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
		if (!v) {
			sbx_result_free(r);
			continue;
		}
		(*rows)++;
		ent *e = find(all, n, v->value, v->value_len);
		char id[CM_ID_MAX + 1];
		id_of(id, row);
		if (e)
			e->seen[t]++;
		if (!e) {
			problem(y, "index row points at a missing comment", row,
				rl);
		} else if (t == CM_T_USER_COMMENT) {
			int64_t ts = INT64_MAX - (int64_t)cm_get_be64(row + 10);
			if (rl != CM_UC_KEY_LEN || strcmp(id, e->user) ||
			    ts != e->ts)
				problem(y,
					"user-comment row does not match its "
					"comment",
					row, rl);
		} else if (t == CM_T_PRODUCT_COMMENT) {
			int64_t ts = INT64_MAX - (int64_t)cm_get_be64(row + 11);
			uint32_t rlen = (uint32_t)row[19] << 24 |
					(uint32_t)row[20] << 16 |
					(uint32_t)row[21] << 8 | row[22];
			size_t len = (size_t)(INT32_MAX - (int64_t)rlen);
			if (rl != CM_PC_KEY_LEN ||
			    memcmp(row, e->key + CM_ID_MAX, CM_ID_MAX) ||
			    row[10] != 'c' || ts != e->ts || len != e->len)
				problem(y,
					"product-comment row does not match "
					"its comment",
					row, rl);
		} else if (t == CM_T_RANK) {
			if (rl != 13 ||
			    memcmp(row, e->key + CM_ID_MAX, CM_ID_MAX))
				problem(y,
					"rank row points at another product's "
					"comment",
					row, rl);
		}
		sbx_result_free(r);
	}
	sbx_scanner_close(s);
	return rc;
}

long cm_check(cm_app *app, int64_t wait_ms, bool verbose)
{
	tally tl = {0, verbose}, *y = &tl;
	/* 1. locks */
	size_t resolved_total = 0, remaining = 0;
	for (int64_t waited = 0;; waited += 100) {
		remaining = 0;
		for (int t = 0; t < CM_NTABLES; t++) {
			size_t res = 0, rem = 0;
			int rc = sbx_txn_resolve_table(
			    &res, &rem, app->db, cm_table_names[t], &app->txo);
			if (rc) {
				fprintf(stderr, "check: resolving %s: %s\n",
					cm_table_names[t], sbx_errmsg());
				return -1;
			}
			resolved_total += res;
			remaining += rem;
		}
		if (!remaining || waited >= wait_ms)
			break;
		sleep_ms(100);
	}
	printf("locks: %zu resolved, %zu remaining\n", resolved_total,
	       remaining);
	if (remaining)
		y->problems += (long)remaining;

	/* 2. the comments */
	sbx_scanner *s;
	int rc = open_scan(&s, app->t[CM_T_COMMENT]);
	ent *all = NULL;
	size_t n = 0, cap = 0;
	while (rc == SBX_OK) {
		sbx_result *r;
		int st = sbx_scanner_next(s, &r);
		if (st == SBX_ITEROVER)
			break;
		if (st) {
			rc = st;
			break;
		}
		cm_comment c;
		if (cm_comment_from_result(&c, r)) {
			if (n == cap) {
				cap = cap ? 2 * cap : 256;
				all = realloc(all, cap * sizeof *all);
				if (!all) {
					fprintf(stderr,
						"check: out of memory\n");
					exit(1);
				}
			}
			size_t rl;
			const uint8_t *row = sbx_result_row(r, &rl);
			memcpy(all[n].key, row, CM_COMMENT_KEY_LEN);
			snprintf(all[n].user, sizeof all[n].user, "%s",
				 c.user_id);
			all[n].ts = c.timestamp;
			all[n].len = c.content_len;
			memset(all[n].seen, 0, sizeof all[n].seen);
			n++;
		} else if (sbx_result_size(r)) {
			size_t rl;
			const uint8_t *row = sbx_result_row(r, &rl);
			problem(y, "comment row is incomplete", row, rl);
		}
		cm_comment_clear(&c);
		sbx_result_free(r);
	}
	sbx_scanner_close(s);
	/* 3. the index rows */
	long uc = 0, pc = 0, rk = 0;
	rc = rc ? rc : check_index(y, &uc, app, CM_T_USER_COMMENT, all, n);
	rc = rc ? rc : check_index(y, &pc, app, CM_T_PRODUCT_COMMENT, all, n);
	rc = rc ? rc : check_index(y, &rk, app, CM_T_RANK, all, n);
	if (rc) {
		fprintf(stderr, "check: %s\n", sbx_errmsg());
		free(all);
		return -1;
	}
	/* each comment is pointed at by exactly one row of each index */
	for (size_t i = 0; i < n; i++) {
		if (all[i].seen[CM_T_USER_COMMENT] != 1)
			problem(y,
				"comment without exactly one user-comment row",
				all[i].key, CM_COMMENT_KEY_LEN);
		if (all[i].seen[CM_T_PRODUCT_COMMENT] != 1)
			problem(y,
				"comment without exactly one product-comment "
				"row",
				all[i].key, CM_COMMENT_KEY_LEN);
	}
	printf("check: %zu comments, %ld user-comment rows, %ld "
	       "product-comment rows, %ld rank rows: %ld problem(s)\n",
	       n, uc, pc, rk, y->problems);
	free(all);
	return y->problems;
}
