/*
 * comments.h - what the files of `saltbox-comments` share: the service's
 * state (the store, its tables, the seed's key designs, the clock), the
 * reply a request gets, and the entry points of each file.
 *
 *   store.c  tables, row keys and every read and write (transactions)
 *   api.c    the JSON API: routing a request to store.c, replies
 *   rank.c   the top-10 rank batch (incremental)
 *   check.c  the consistency check of index rows against comments
 *   http.c   libmicrohttpd glue: the listening server
 *   page.c   the web page at / (text)
 *   util.c   base64, ids, JSON replies, the clock
 *   main.c   the command line
 *
 * Only Saltbox's public API (include/saltbox/) is used, so the service
 * runs on the embedded store and over any HBase REST gateway.
 */
#ifndef SALTBOX_COMMENTS_H
#define SALTBOX_COMMENTS_H

#include <saltbox.h>

#include <jansson.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define CM_ID_MAX 10	      /* ids: 1-10 printable ASCII bytes */
#define CM_CONTENT_MAX 10000  /* comment content, bytes */
#define CM_COMMENT_KEY_LEN 20 /* orderId(10) productId(10) */
#define CM_PC_KEY_LEN 23      /* productId(10) 'c' rts(8) rlen(4) */
#define CM_UC_KEY_LEN 18      /* userId(10) rts(8) */
#define CM_TOP 10	      /* ranks kept per product */

/* The tables, in the order cm_app.t holds them. */
enum {
	CM_T_USER,
	CM_T_SELLER,
	CM_T_PRODUCT,
	CM_T_ORDER,
	CM_T_COMMENT,
	CM_T_USER_COMMENT,
	CM_T_PRODUCT_COMMENT,
	CM_T_RANK,
	CM_T_PENDING,
	CM_NTABLES
};

/* Table names (as the issue names them) and their key designs' names. */
extern const char *const cm_table_names[CM_NTABLES];
extern const char *const cm_design_names[CM_NTABLES];
/* The key designs, in saltbox's key design language (docs/keys.md). */
extern const char cm_designs_text[];

typedef struct cm_app {
	sbx_db *db;
	sbx_table *t[CM_NTABLES];
	sbx_keyset *keys;
	const sbx_keydesign *k[CM_NTABLES];
	sbx_txn_options txo;
	/* --test-clock: the time stands still at clock_ms until PUT
	 * /admin/clock moves it; otherwise the real clock. */
	bool test_clock;
	_Atomic int64_t clock_ms;
	pthread_mutex_t rank_lock; /* one rank batch at a time */
	/* --trace: product-comment index operations as keyviz records */
	FILE *trace;
	pthread_mutex_t trace_mu;
	/* Counters for the log line. */
	_Atomic long requests, conflicts_retried;
	/* Tests only, NULL otherwise: the top-10 read calls it after each
	 * rank it has read (found or not), so a test can commit another
	 * transaction between two of those reads; nothing else the read does
	 * calls back (tests/test_rank_race.c). */
	void (*top_hook)(void *arg, unsigned rank);
	void *top_hook_arg;
	/* Tests only, NULL otherwise: a list calls it with stage 0 once it
	 * has read the product's (or user's) row, and with 1 once its scan
	 * of the index is open (tests/test_rank_race.c). */
	void (*list_hook)(void *arg, int stage);
	void *list_hook_arg;
} cm_app;

/* A reply: HTTP status, body (malloc'd, owned), content type (static). */
typedef struct cm_reply {
	int status;
	char *body;
	size_t body_len;
	const char *type;
} cm_reply;

/* ---- store.c ---------------------------------------------------------------
 */

/* Open the tables (creating any that is missing, each with the lock
 * family) and parse the key designs. 0, or -1 with a message on stderr. */
int cm_store_open(cm_app *app, sbx_db *db, int64_t lock_timeout_ms);
void cm_store_close(cm_app *app);

/* Encode a key with design `which` from name=value pairs (NULL-ended).
 * SBX_OK or the encoder's error (a bad id: SBX_EINVAL). */
int cm_key(sbx_buf *out, const cm_app *app, int which, ...);

/* The outcome of a store operation: HTTP status and either a JSON body
 * (owned) or an error message. */
typedef struct cm_result {
	int status;
	json_t *json;
	char error[512];
} cm_result;

void cm_put_entity(cm_result *res, cm_app *app, int table, const char *id,
		   json_t *body);
void cm_get_entity(cm_result *res, cm_app *app, int table, const char *id);
void cm_comment_post(cm_result *res, cm_app *app, const char *product_id,
		     json_t *body);
void cm_comment_get(cm_result *res, cm_app *app, const char *product_id,
		    const char *order_id);
void cm_comment_patch(cm_result *res, cm_app *app, const char *product_id,
		      const char *order_id, json_t *body);
void cm_comment_delete(cm_result *res, cm_app *app, const char *product_id,
		       const char *order_id);
void cm_comment_vote(cm_result *res, cm_app *app, const char *product_id,
		     const char *order_id, json_t *body);
/* by_user false: a product's comments; true: a user's. */
void cm_comment_list(cm_result *res, cm_app *app, bool by_user, const char *id,
		     const char *limit, const char *cursor);
void cm_comment_top(cm_result *res, cm_app *app, const char *product_id);

/* Comment row helpers shared with rank.c and check.c. */
typedef struct cm_comment {
	char order_id[CM_ID_MAX + 1], product_id[CM_ID_MAX + 1];
	char user_id[CM_ID_MAX + 1];
	char *content; /* malloc'd */
	size_t content_len;
	int64_t timestamp;
	bool edited;
	int64_t helpful;
} cm_comment;
/* Fill *c from a comment row's result; false if the row has no comment. */
bool cm_comment_from_result(cm_comment *c, const sbx_result *r);
void cm_comment_clear(cm_comment *c);
json_t *cm_comment_json(const cm_comment *c);
/* Get a comment by its row key through txn (or plainly when txn is NULL).
 * *found false when it is missing. */
int cm_comment_read(cm_comment *c, bool *found, cm_app *app, sbx_txn *txn,
		    const uint8_t *key, size_t key_len);

/* Append `KIND<TAB>product_id=P ts=T content_len=L` to the record trace
 * (nothing without --trace). */
void cm_trace(cm_app *app, const char *kind, const char *pid, int64_t ts,
	      int64_t len);
bool cm_base64url_decode(uint8_t **out, size_t *out_len, const char *in,
			 size_t len);

/* ---- rank.c
 * ------------------------------------------------------------------ */

/* Run the batch over the products with activity since the last run.
 * *products gets how many. SBX_OK or an error (message in sbx_errmsg). */
int cm_rank_run(long *products, cm_app *app);

/* ---- check.c
 * ----------------------------------------------------------------- */

/* Resolve expired locks (waiting up to wait_ms for unexpired ones), then
 * check every index row against the comments. Prints a summary; returns
 * the number of problems, or -1 when the store fails. */
long cm_check(cm_app *app, int64_t wait_ms, bool verbose);

/* ---- api.c
 * -------------------------------------------------------------------- */

/* Answer one request. query_get(arg, name) returns a query argument or
 * NULL. */
typedef const char *(*cm_query_fn)(void *arg, const char *name);
void cm_handle(cm_reply *out, cm_app *app, const char *method, const char *path,
	       cm_query_fn query, void *query_arg, const char *body,
	       size_t body_len);

/* ---- http.c
 * ------------------------------------------------------------------- */

typedef struct cm_server cm_server;
/* Start listening; *port gets the bound port (port 0 = any free one).
 * NULL with a message on stderr when it cannot. */
cm_server *cm_server_start(cm_app *app, const char *bind, int *port,
			   int threads);
void cm_server_stop(cm_server *s);

/* ---- loadgen.c
 * ---------------------------------------------------------------- */

/* `saltbox-comments load ...` (argv[1] is "load"). */
int cm_load(int argc, char **argv);

/* ---- page.c
 * ------------------------------------------------------------------- */

extern const char cm_page_html[];

/* ---- util.c
 * ------------------------------------------------------------------- */

int64_t cm_now_ms(cm_app *app);
/* 1-10 bytes of printable ASCII (0x21-0x7E) other than '/'. */
bool cm_id_ok(const char *id);
/* Strict base64 (RFC 4648, padded); malloc'd result, false if malformed. */
bool cm_base64_decode(uint8_t **out, size_t *out_len, const char *in,
		      size_t len);
char *cm_base64_encode(const uint8_t *in, size_t len, bool url);
void cm_result_error(cm_result *res, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The store failed: 503 for a conflict that outlived its retries, 500
 * otherwise, with sbx_errmsg(). */
void cm_result_store_error(cm_result *res, int rc);
void cm_put_be64(uint8_t *p, uint64_t v);
uint64_t cm_get_be64(const uint8_t *p);

#endif
