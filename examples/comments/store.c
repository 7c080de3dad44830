/*
 * store.c - the comment system's tables and every read and write of them.
 *
 * The tables and row keys are seed 003's, written as key designs
 * (cm_designs_text, shown by `saltbox-comments keys` and explained in
 * README.md). Every write runs in one transaction (sbx_txn_run, retried on
 * conflicts): a comment and all of its index rows are written, edited and
 * deleted together, so no index row ever points at a missing or stale
 * comment - the consistency seed 003 had to give up. Reads run in
 * transactions too, so they wait out (or resolve) other writers' locks.
 *
 * Row layout (family d unless said):
 *   user/seller/product/order  d:object  the object as JSON
 *   user, product              d:indexMoved  when an edit last moved one
 *                              of its comments' index rows (8 B: the
 *                              lists' guard, mark_list_moved)
 *   comment                    d:userId d:content d:timestamp (8 B)
 *                              d:isEdited (1 B) d:helpful (8 B); v:<userId>
 *                              one cell per helpful vote
 *   user-comment, product-comment, product-comment-rank
 *                              d:c  the comment's row key
 *   rank-pending               d:p  the id of the last transaction that
 *                              touched the comment (rank.c's work list)
 */
#include "comments.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const cm_table_names[CM_NTABLES] = {
    "user",	    "seller",	    "product",	       "order",
    "comment",	    "user-comment", "product-comment", "product-comment-rank",
    "rank-pending",
};

const char *const cm_design_names[CM_NTABLES] = {
    "user",	    "seller",	    "product",	       "order",
    "comment",	    "user_comment", "product_comment", "product_comment_rank",
    "rank_pending",
};

const char cm_designs_text[] =
    "# The article “[HBase 실습] Coupang” (Hyunjun Kim): the row key of each "
    "table.\n"
    "user                 = user_id:str(max=10)\n"
    "seller               = seller_id:str(max=10)\n"
    "product              = product_id:str(max=10)\n"
    "order                = order_id:str(max=10)\n"
    "comment              = order_id:str(10) + product_id:str(10)\n"
    "user_comment         = user_id:str(10) + ts:rts64\n"
    "product_comment      = product_id:str(10) + 'c' + ts:rts64 + "
    "content_len:rlen32\n"
    "product_comment_rank = product_id:str(10) + 'r' + rank:u16\n"
    "# Not in the article: the rank batch's list of products with activity.\n"
    "rank_pending         = product_id:str(10) + order_id:str(10)\n";

static const char F[] = "d";

int cm_store_open(cm_app *app, sbx_db *db, int64_t lock_timeout_ms)
{
	app->db = db;
	sbx_txn_options_init(&app->txo);
	if (lock_timeout_ms > 0)
		app->txo.lock_timeout_ms = lock_timeout_ms;
	app->txo.retry_budget_ms = 10000;
	pthread_mutex_init(&app->rank_lock, NULL);
	sbx_keyparse_pos pos;
	int rc = sbx_keyset_parse(&app->keys, cm_designs_text,
				  strlen(cm_designs_text), &pos);
	if (rc) {
		fprintf(stderr, "saltbox-comments: key designs: %s\n",
			sbx_errmsg());
		return -1;
	}
	for (int i = 0; i < CM_NTABLES; i++) {
		app->k[i] = sbx_keyset_find(app->keys, cm_design_names[i]);
		bool exists;
		rc = sbx_table_exists(&exists, db, cm_table_names[i]);
		if (rc == SBX_OK && !exists) {
			sbx_family_desc f[3];
			size_t n = 2;
			sbx_txn_lock_family(&f[0]);
			sbx_family_desc_init(&f[1], F);
			if (i == CM_T_COMMENT)
				sbx_family_desc_init(&f[n++], "v");
			rc = sbx_table_create(db, cm_table_names[i], f, n);
			if (rc == SBX_EEXISTS) /* another service won */
				rc = SBX_OK;
		}
		if (rc == SBX_OK)
			rc = sbx_table_open(&app->t[i], db, cm_table_names[i]);
		if (rc) {
			fprintf(stderr, "saltbox-comments: table %s: %s\n",
				cm_table_names[i], sbx_errmsg());
			return -1;
		}
	}
	return 0;
}

void cm_store_close(cm_app *app)
{
	for (int i = 0; i < CM_NTABLES; i++) {
		sbx_table_close(app->t[i]);
		app->t[i] = NULL;
	}
	sbx_keyset_free(app->keys);
	app->keys = NULL;
	pthread_mutex_destroy(&app->rank_lock);
}

int cm_key(sbx_buf *out, const cm_app *app, int which, ...)
{
	sbx_keyvalue v[4];
	size_t n = 0;
	va_list ap;
	va_start(ap, which);
	const char *name;
	while (n < 4 && (name = va_arg(ap, const char *))) {
		const char *value = va_arg(ap, const char *);
		v[n++] = (sbx_keyvalue){name, value, strlen(value)};
	}
	va_end(ap);
	out->len = 0;
	return sbx_keydesign_encode(out, app->k[which], v, n);
}

/* ---- small helpers
 * ----------------------------------------------------------- */

static int read_row(sbx_result **r, sbx_txn *txn, sbx_table *t, const void *key,
		    size_t len, const char *family, const char *qual)
{
	sbx_read_opts o;
	sbx_read_opts_init(&o);
	sbx_column col = {family, qual, qual ? strlen(qual) : 0};
	if (family) {
		o.columns = &col;
		o.ncolumns = 1;
	}
	return txn ? sbx_txn_get(r, txn, t, key, len, &o)
		   : sbx_table_get(r, t, key, len, &o);
}

/* Put n (qualifier, value, length) triples into one row of family fam. */
static int put_cells(sbx_txn *txn, sbx_table *t, const void *key, size_t len,
		     const char *fam, int n, ...)
{
	sbx_mutation *m;
	int rc = sbx_mutation_new(&m, key, len);
	va_list ap;
	va_start(ap, n);
	for (int i = 0; rc == SBX_OK && i < n; i++) {
		const char *q = va_arg(ap, const char *);
		const void *v = va_arg(ap, const void *);
		size_t vl = va_arg(ap, size_t);
		rc = sbx_mutation_put(m, fam, q, strlen(q),
				      SBX_LATEST_TIMESTAMP, v, vl);
	}
	va_end(ap);
	if (rc == SBX_OK)
		rc = sbx_txn_mutate(txn, t, m);
	sbx_mutation_free(m);
	return rc;
}

static int delete_row(sbx_txn *txn, sbx_table *t, const void *key, size_t len)
{
	sbx_mutation *m;
	int rc = sbx_mutation_new(&m, key, len);
	if (rc == SBX_OK)
		rc = sbx_mutation_delete_row(m, SBX_LATEST_TIMESTAMP);
	if (rc == SBX_OK)
		rc = sbx_txn_mutate(txn, t, m);
	sbx_mutation_free(m);
	return rc;
}

/* The value of fam:qual in r, or NULL. */
static const sbx_cell *cell(const sbx_result *r, const char *fam,
			    const char *qual)
{
	return r ? sbx_result_get(r, fam, qual, strlen(qual)) : NULL;
}

/* An entity's stored JSON object (NULL: missing or not JSON). */
static int read_entity(json_t **out, sbx_txn *txn, cm_app *app, int table,
		       const char *id)
{
	*out = NULL;
	sbx_buf k = {0};
	/* the entity designs' one field is <design>_id */
	char field[32];
	snprintf(field, sizeof field, "%s_id", cm_design_names[table]);
	int rc = cm_key(&k, app, table, field, id, NULL);
	sbx_result *r = NULL;
	if (rc == SBX_OK)
		rc = read_row(&r, txn, app->t[table], k.data, k.len, F,
			      "object");
	const sbx_cell *c = cell(r, F, "object");
	if (rc == SBX_OK && c)
		*out =
		    json_loadb((const char *)c->value, c->value_len, 0, NULL);
	sbx_result_free(r);
	sbx_buf_free(&k);
	return rc;
}

static void pad_id(char out[CM_ID_MAX + 1], const uint8_t *p)
{
	size_t n = 0;
	while (n < CM_ID_MAX && p[n])
		n++;
	memcpy(out, p, n);
	out[n] = '\0';
}

/* ---- comments
 * ----------------------------------------------------------------- */

bool cm_comment_from_result(cm_comment *c, const sbx_result *r)
{
	memset(c, 0, sizeof *c);
	size_t klen;
	const uint8_t *key = sbx_result_row(r, &klen);
	const sbx_cell *u = cell(r, F, "userId"), *ct = cell(r, F, "content"),
		       *ts = cell(r, F, "timestamp"),
		       *ed = cell(r, F, "isEdited"), *h = cell(r, F, "helpful");
	if (!key || klen != CM_COMMENT_KEY_LEN || !u || !ct || !ts ||
	    ts->value_len != 8 || u->value_len > CM_ID_MAX)
		return false;
	pad_id(c->order_id, key);
	pad_id(c->product_id, key + CM_ID_MAX);
	memcpy(c->user_id, u->value, u->value_len);
	c->user_id[u->value_len] = '\0';
	c->content = malloc(ct->value_len + 1);
	if (!c->content)
		return false;
	memcpy(c->content, ct->value, ct->value_len);
	c->content[ct->value_len] = '\0';
	c->content_len = ct->value_len;
	c->timestamp = (int64_t)cm_get_be64(ts->value);
	c->edited = ed && ed->value_len == 1 && ed->value[0];
	c->helpful =
	    h && h->value_len == 8 ? (int64_t)cm_get_be64(h->value) : 0;
	return true;
}

void cm_comment_clear(cm_comment *c)
{
	free(c->content);
	c->content = NULL;
}

json_t *cm_comment_json(const cm_comment *c)
{
	return json_pack("{s:s,s:s,s:s,s:s%,s:I,s:b,s:I}", "orderId",
			 c->order_id, "productId", c->product_id, "userId",
			 c->user_id, "content", c->content, c->content_len,
			 "timestamp", (json_int_t)c->timestamp, "isEdited",
			 c->edited, "helpful", (json_int_t)c->helpful);
}

int cm_comment_read(cm_comment *c, bool *found, cm_app *app, sbx_txn *txn,
		    const uint8_t *key, size_t key_len)
{
	sbx_result *r;
	*found = false;
	memset(c, 0, sizeof *c);
	int rc = read_row(&r, txn, app->t[CM_T_COMMENT], key, key_len, F, NULL);
	if (rc)
		return rc;
	*found = cm_comment_from_result(c, r);
	sbx_result_free(r);
	return SBX_OK;
}

/* ---- one transaction's state
 * ---------------------------------------------------- */

typedef struct op {
	cm_app *app;
	cm_result *res;
	int table;
	const char *id, *pid, *oid, *uid;
	json_t *body;
	const char *content;
	size_t content_len;
	/* lists */
	bool by_user;
	int limit;
	const uint8_t *cursor;
	size_t cursor_len;
	/* for the trace: the comment's index key fields before the write */
	int64_t old_ts, old_len;
} op;

void cm_trace(cm_app *app, const char *kind, const char *pid, int64_t ts,
	      int64_t len)
{
	if (!app->trace)
		return;
	pthread_mutex_lock(&app->trace_mu);
	fprintf(app->trace, "%s\tproduct_id=%s ts=%lld content_len=%lld\n",
		kind, pid, (long long)ts, (long long)len);
	pthread_mutex_unlock(&app->trace_mu);
}

static void res_reset(cm_result *res)
{
	res->status = 0;
	res->error[0] = '\0';
	if (res->json) {
		json_decref(res->json);
		res->json = NULL;
	}
}

/* A refusal (4xx) ends the transaction through this code; run() reports
 * res's status rather than a store error. */
#define ABORT SBX_EINVAL

static void run(cm_result *res, cm_app *app, sbx_txn_fn fn, op *o)
{
	int attempts = 0;
	int rc = sbx_txn_run(&attempts, app->db, &app->txo, fn, o);
	if (attempts > 1)
		atomic_fetch_add(&app->conflicts_retried, attempts - 1);
	if (res->status >= 400)
		return;
	if (rc)
		cm_result_store_error(res, rc);
}

/* Mark the product as having activity on this comment, for the rank batch:
 * the value is this transaction's id, so the batch can tell a newer mark
 * from the one it saw. */
static int mark_pending(op *o, sbx_txn *txn)
{
	sbx_buf k = {0};
	int rc = cm_key(&k, o->app, CM_T_PENDING, "product_id", o->pid,
			"order_id", o->oid, NULL);
	uint8_t id[8];
	cm_put_be64(id, sbx_txn_id(txn));
	if (rc == SBX_OK)
		rc = put_cells(txn, o->app->t[CM_T_PENDING], k.data, k.len, F,
			       1, "p", id, (size_t)8);
	sbx_buf_free(&k);
	return rc;
}

/* ---- users, sellers, products, orders
 * --------------------------------------------- */

static const char *str_field(json_t *body, const char *name)
{
	json_t *v = json_object_get(body, name);
	return json_is_string(v) ? json_string_value(v) : NULL;
}

/* The fields each entity takes: NULL-ended. */
static const char *const entity_fields[4][3] = {
    {"name", "nickname", NULL},
    {"name", NULL, NULL},
    {"sellerId", "content", NULL},
    {"userId", "productIds", NULL},
};
static const char *const entity_word[4] = {"user", "seller", "product",
					   "order"};

/* Check a PUT body before any transaction: 400 with a message, or 0. */
static int check_entity_body(cm_result *res, int table, json_t *body)
{
	if (!json_is_object(body)) {
		cm_result_error(res, 400, "the body must be a JSON object");
		return 400;
	}
	const char *key;
	json_t *v;
	json_object_foreach(body, key, v)
	{
		bool known = false;
		for (int i = 0; entity_fields[table][i]; i++)
			known |= !strcmp(key, entity_fields[table][i]);
		if (!known) {
			cm_result_error(res, 400, "unknown field '%s'", key);
			return 400;
		}
	}
	for (int i = 0; entity_fields[table][i]; i++) {
		const char *f = entity_fields[table][i];
		json_t *x = json_object_get(body, f);
		if (!x) {
			cm_result_error(res, 400, "missing field '%s'", f);
			return 400;
		}
		if (!strcmp(f, "productIds")) {
			size_t n = json_array_size(x);
			if (!json_is_array(x) || n < 1 || n > 100) {
				cm_result_error(res, 400,
						"'productIds' must be an array "
						"of 1-100 product ids");
				return 400;
			}
			for (size_t j = 0; j < n; j++) {
				json_t *e = json_array_get(x, j);
				if (!json_is_string(e) ||
				    !cm_id_ok(json_string_value(e))) {
					cm_result_error(
					    res, 400,
					    "'productIds'[%zu] is not a "
					    "product id (1-10 printable "
					    "ASCII bytes, no '/')",
					    j);
					return 400;
				}
			}
			continue;
		}
		if (!json_is_string(x)) {
			cm_result_error(res, 400, "'%s' must be a string", f);
			return 400;
		}
		if ((!strcmp(f, "sellerId") || !strcmp(f, "userId")) &&
		    !cm_id_ok(json_string_value(x))) {
			cm_result_error(res, 400,
					"'%s' is not an id (1-10 printable "
					"ASCII bytes, no '/')",
					f);
			return 400;
		}
		if (!strcmp(f, "content")) {
			uint8_t *raw;
			size_t rl;
			if (!cm_base64_decode(&raw, &rl, json_string_value(x),
					      json_string_length(x))) {
				cm_result_error(res, 400,
						"'content' is not base64");
				return 400;
			}
			free(raw);
		}
	}
	return 0;
}

static int put_entity_fn(sbx_txn *txn, void *arg)
{
	op *o = arg;
	cm_app *app = o->app;
	res_reset(o->res);
	/* the referenced user or seller must exist */
	int ref = o->table == CM_T_PRODUCT ? CM_T_SELLER
		  : o->table == CM_T_ORDER ? CM_T_USER
					   : -1;
	int rc;
	if (ref >= 0) {
		const char *rid = str_field(
		    o->body, ref == CM_T_SELLER ? "sellerId" : "userId");
		json_t *x;
		rc = read_entity(&x, txn, app, ref, rid);
		if (rc)
			return rc;
		if (!x) {
			cm_result_error(o->res, 404, "%s '%s' not found",
					entity_word[ref], rid);
			return ABORT;
		}
		json_decref(x);
	}
	json_t *old;
	rc = read_entity(&old, txn, app, o->table, o->id);
	if (rc)
		return rc;
	json_t *obj = json_pack("{s:s}", "id", o->id);
	const char *key;
	json_t *v;
	for (int i = 0; entity_fields[o->table][i]; i++) {
		key = entity_fields[o->table][i];
		v = json_object_get(o->body, key);
		json_object_set(obj, key, v);
	}
	if (o->table == CM_T_PRODUCT) {
		int64_t now = cm_now_ms(app);
		json_t *c = old ? json_object_get(old, "createdAt") : NULL;
		json_object_set_new(obj, "createdAt",
				    json_is_integer(c)
					? json_integer(json_integer_value(c))
					: json_integer(now));
		json_object_set_new(obj, "updatedAt", json_integer(now));
	}
	o->res->status = old ? 200 : 201;
	json_decref(old);
	char *text = json_dumps(obj, JSON_COMPACT | JSON_PRESERVE_ORDER);
	sbx_buf k = {0};
	char field[32];
	snprintf(field, sizeof field, "%s_id", cm_design_names[o->table]);
	rc = text ? cm_key(&k, app, o->table, field, o->id, NULL) : SBX_ENOMEM;
	if (rc == SBX_OK)
		rc = put_cells(txn, app->t[o->table], k.data, k.len, F, 1,
			       "object", text, strlen(text));
	free(text);
	sbx_buf_free(&k);
	o->res->json = obj;
	return rc;
}

void cm_put_entity(cm_result *res, cm_app *app, int table, const char *id,
		   json_t *body)
{
	if (!cm_id_ok(id)) {
		cm_result_error(res, 400,
				"bad %s id '%s': 1-10 printable ASCII bytes, "
				"no '/'",
				entity_word[table], id);
		return;
	}
	if (check_entity_body(res, table, body))
		return;
	op o = {.app = app, .res = res, .table = table, .id = id, .body = body};
	run(res, app, put_entity_fn, &o);
}

static int get_entity_fn(sbx_txn *txn, void *arg)
{
	op *o = arg;
	res_reset(o->res);
	json_t *x;
	int rc = read_entity(&x, txn, o->app, o->table, o->id);
	if (rc)
		return rc;
	if (!x) {
		cm_result_error(o->res, 404, "%s '%s' not found",
				entity_word[o->table], o->id);
		return ABORT;
	}
	o->res->status = 200;
	o->res->json = x;
	return SBX_OK;
}

void cm_get_entity(cm_result *res, cm_app *app, int table, const char *id)
{
	if (!cm_id_ok(id)) {
		cm_result_error(res, 400,
				"bad %s id '%s': 1-10 printable ASCII bytes, "
				"no '/'",
				entity_word[table], id);
		return;
	}
	op o = {.app = app, .res = res, .table = table, .id = id};
	run(res, app, get_entity_fn, &o);
}

/* ---- comment keys
 * -------------------------------------------------------------- */

static int comment_key(sbx_buf *k, cm_app *app, const char *oid,
		       const char *pid)
{
	return cm_key(k, app, CM_T_COMMENT, "order_id", oid, "product_id", pid,
		      NULL);
}

static int uc_key(sbx_buf *k, cm_app *app, const char *uid, int64_t ts)
{
	char t[24];
	snprintf(t, sizeof t, "%lld", (long long)ts);
	return cm_key(k, app, CM_T_USER_COMMENT, "user_id", uid, "ts", t, NULL);
}

static int pc_key(sbx_buf *k, cm_app *app, const char *pid, int64_t ts,
		  size_t len)
{
	char t[24], l[24];
	snprintf(t, sizeof t, "%lld", (long long)ts);
	snprintf(l, sizeof l, "%zu", len);
	return cm_key(k, app, CM_T_PRODUCT_COMMENT, "product_id", pid, "ts", t,
		      "content_len", l, NULL);
}

/* Does the index row exist (through txn)? */
static int row_exists(bool *yes, sbx_txn *txn, sbx_table *t, const sbx_buf *k)
{
	sbx_result *r;
	int rc = read_row(&r, txn, t, k->data, k->len, F, "c");
	*yes = rc == SBX_OK && sbx_result_size(r) > 0;
	sbx_result_free(r);
	return rc;
}

/* The first time >= ts at which neither the user's index row (unless
 * keep_uc: it stays at ts) nor the product's row for this content length is
 * taken. The seed's keys are unique only to the millisecond (and content
 * length); a clash takes the next millisecond, inside the transaction. */
static int free_slot(int64_t *out, sbx_txn *txn, cm_app *app, const char *uid,
		     const char *pid, int64_t ts, size_t len, int64_t keep_ts)
{
	sbx_buf k = {0};
	int rc = SBX_OK;
	for (int i = 0; i < 1000; i++, ts++) {
		bool taken = false;
		if (ts != keep_ts) {
			rc = uc_key(&k, app, uid, ts);
			rc = rc ? rc
				: row_exists(&taken, txn,
					     app->t[CM_T_USER_COMMENT], &k);
		}
		if (rc == SBX_OK && !taken) {
			rc = pc_key(&k, app, pid, ts, len);
			rc = rc ? rc
				: row_exists(&taken, txn,
					     app->t[CM_T_PRODUCT_COMMENT], &k);
		}
		if (rc || !taken)
			break;
	}
	sbx_buf_free(&k);
	*out = ts;
	return rc;
}

static int write_comment(sbx_txn *txn, cm_app *app, const sbx_buf *ck,
			 const cm_comment *c)
{
	uint8_t ts[8], h[8], ed = c->edited ? 1 : 0;
	cm_put_be64(ts, (uint64_t)c->timestamp);
	cm_put_be64(h, (uint64_t)c->helpful);
	return put_cells(txn, app->t[CM_T_COMMENT], ck->data, ck->len, F, 5,
			 "userId", c->user_id, strlen(c->user_id), "content",
			 c->content, c->content_len, "timestamp", ts, (size_t)8,
			 "isEdited", &ed, (size_t)1, "helpful", h, (size_t)8);
}

static int put_index(sbx_txn *txn, sbx_table *t, const sbx_buf *k,
		     const sbx_buf *ck)
{
	return put_cells(txn, t, k->data, k->len, F, 1, "c", ck->data, ck->len);
}

/* Check a comment's content: 400 or 0. */
static int check_content(cm_result *res, json_t *v)
{
	if (!v) {
		cm_result_error(res, 400, "missing field 'content'");
		return 400;
	}
	if (!json_is_string(v)) {
		cm_result_error(res, 400, "'content' must be a string");
		return 400;
	}
	size_t n = json_string_length(v);
	if (n == 0) {
		cm_result_error(res, 400, "'content' is empty");
		return 400;
	}
	if (n > CM_CONTENT_MAX) {
		cm_result_error(res, 400,
				"'content' is %zu bytes, over the limit of %d",
				n, CM_CONTENT_MAX);
		return 400;
	}
	if (memchr(json_string_value(v), 0, n)) {
		cm_result_error(res, 400, "'content' holds a NUL character");
		return 400;
	}
	return 0;
}

/* Fields of a body: exactly these, all strings. */
static int check_body_fields(cm_result *res, json_t *body,
			     const char *const *fields)
{
	if (!json_is_object(body)) {
		cm_result_error(res, 400, "the body must be a JSON object");
		return 400;
	}
	const char *key;
	json_t *v;
	json_object_foreach(body, key, v)
	{
		bool known = false;
		for (int i = 0; fields[i]; i++)
			known |= !strcmp(key, fields[i]);
		if (!known) {
			cm_result_error(res, 400, "unknown field '%s'", key);
			return 400;
		}
	}
	for (int i = 0; fields[i]; i++) {
		v = json_object_get(body, fields[i]);
		if (!strcmp(fields[i], "content")) {
			if (check_content(res, v))
				return 400;
			continue;
		}
		if (!v) {
			cm_result_error(res, 400, "missing field '%s'",
					fields[i]);
			return 400;
		}
		if (!json_is_string(v) || !cm_id_ok(json_string_value(v))) {
			cm_result_error(res, 400,
					"'%s' is not an id (1-10 printable "
					"ASCII bytes, no '/')",
					fields[i]);
			return 400;
		}
	}
	return 0;
}

static int bad_path_id(cm_result *res, const char *what, const char *id)
{
	if (cm_id_ok(id))
		return 0;
	cm_result_error(res, 400,
			"bad %s id '%s': 1-10 printable ASCII bytes, no '/'",
			what, id);
	return 400;
}

/* ---- POST /products/{pid}/comments
 * --------------------------------------------- */

static int post_fn(sbx_txn *txn, void *arg)
{
	op *o = arg;
	cm_app *app = o->app;
	res_reset(o->res);
	json_t *product = NULL, *order = NULL;
	int rc = read_entity(&product, txn, app, CM_T_PRODUCT, o->pid);
	if (rc)
		return rc;
	if (!product) {
		cm_result_error(o->res, 404, "product '%s' not found", o->pid);
		return ABORT;
	}
	json_decref(product);
	rc = read_entity(&order, txn, app, CM_T_ORDER, o->oid);
	if (rc)
		return rc;
	if (!order) {
		cm_result_error(o->res, 404, "order '%s' not found", o->oid);
		return ABORT;
	}
	const char *owner = str_field(order, "userId");
	if (!owner || strcmp(owner, o->uid)) {
		cm_result_error(o->res, 403, "order '%s' is not user '%s''s",
				o->oid, o->uid);
		json_decref(order);
		return ABORT;
	}
	json_t *ids = json_object_get(order, "productIds"), *e;
	size_t i;
	bool has = false;
	json_array_foreach(ids, i, e)
	{
		has |=
		    json_is_string(e) && !strcmp(json_string_value(e), o->pid);
	}
	json_decref(order);
	if (!has) {
		cm_result_error(o->res, 403,
				"order '%s' does not contain product '%s'",
				o->oid, o->pid);
		return ABORT;
	}
	sbx_buf ck = {0}, k = {0};
	cm_comment c;
	bool found;
	rc = comment_key(&ck, app, o->oid, o->pid);
	rc = rc ? rc : cm_comment_read(&c, &found, app, txn, ck.data, ck.len);
	if (rc == SBX_OK && found) {
		cm_comment_clear(&c);
		cm_result_error(o->res, 409,
				"order '%s' already commented product '%s'",
				o->oid, o->pid);
		rc = ABORT;
	}
	if (rc == SBX_OK) {
		memset(&c, 0, sizeof c);
		snprintf(c.order_id, sizeof c.order_id, "%s", o->oid);
		snprintf(c.product_id, sizeof c.product_id, "%s", o->pid);
		snprintf(c.user_id, sizeof c.user_id, "%s", o->uid);
		c.content = (char *)o->content;
		c.content_len = o->content_len;
		rc = free_slot(&c.timestamp, txn, app, o->uid, o->pid,
			       cm_now_ms(app), o->content_len, -1);
	}
	rc = rc ? rc : write_comment(txn, app, &ck, &c);
	rc = rc ? rc : uc_key(&k, app, o->uid, c.timestamp);
	rc = rc ? rc : put_index(txn, app->t[CM_T_USER_COMMENT], &k, &ck);
	rc = rc ? rc : pc_key(&k, app, o->pid, c.timestamp, c.content_len);
	rc = rc ? rc : put_index(txn, app->t[CM_T_PRODUCT_COMMENT], &k, &ck);
	rc = rc ? rc : mark_pending(o, txn);
	if (rc == SBX_OK) {
		o->res->status = 201;
		o->res->json = cm_comment_json(&c);
	}
	sbx_buf_free(&ck);
	sbx_buf_free(&k);
	return rc;
}

void cm_comment_post(cm_result *res, cm_app *app, const char *product_id,
		     json_t *body)
{
	static const char *const fields[] = {"orderId", "userId", "content",
					     NULL};
	if (bad_path_id(res, "product", product_id) ||
	    check_body_fields(res, body, fields))
		return;
	json_t *ct = json_object_get(body, "content");
	op o = {.app = app,
		.res = res,
		.pid = product_id,
		.oid = str_field(body, "orderId"),
		.uid = str_field(body, "userId"),
		.content = json_string_value(ct),
		.content_len = json_string_length(ct)};
	run(res, app, post_fn, &o);
	if (res->status == 201)
		cm_trace(
		    app, "put", product_id,
		    json_integer_value(json_object_get(res->json, "timestamp")),
		    (int64_t)o.content_len);
}

/* ---- GET, PATCH, DELETE /products/{pid}/comments/{oid}
 * ----------------------------- */

/* Read the comment of o->pid/o->oid into *c; 404 when missing. */
static int load_comment(cm_comment *c, sbx_buf *ck, op *o, sbx_txn *txn)
{
	bool found;
	int rc = comment_key(ck, o->app, o->oid, o->pid);
	rc = rc ? rc
		: cm_comment_read(c, &found, o->app, txn, ck->data, ck->len);
	if (rc == SBX_OK && !found) {
		cm_result_error(o->res, 404,
				"no comment of order '%s' on product '%s'",
				o->oid, o->pid);
		rc = ABORT;
	}
	return rc;
}

static int get_fn(sbx_txn *txn, void *arg)
{
	op *o = arg;
	res_reset(o->res);
	cm_comment c;
	sbx_buf ck = {0};
	int rc = load_comment(&c, &ck, o, txn);
	sbx_buf_free(&ck);
	if (rc)
		return rc;
	o->res->status = 200;
	o->res->json = cm_comment_json(&c);
	cm_comment_clear(&c);
	return SBX_OK;
}

void cm_comment_get(cm_result *res, cm_app *app, const char *product_id,
		    const char *order_id)
{
	if (bad_path_id(res, "product", product_id) ||
	    bad_path_id(res, "order", order_id))
		return;
	op o = {.app = app, .res = res, .pid = product_id, .oid = order_id};
	run(res, app, get_fn, &o);
}

/* An edit that moves one of a comment's index rows writes `indexMoved`
 * (the time, 8 bytes) into the product's row (or, for a user-comment row,
 * the user's). A list reads that row before it scans the index, so an edit
 * committing while the scan runs changes a row the list read - a conflict
 * at the list's commit, and a retry - instead of moving the comment from a
 * place the scan has yet to reach to one the scan cannot see (a phantom:
 * README, Transactions; tests/test_rank_race.c test_list_race). */
static int mark_list_moved(sbx_txn *txn, cm_app *app, int table,
			   const char *id)
{
	char field[32];
	snprintf(field, sizeof field, "%s_id", cm_design_names[table]);
	uint8_t t[8];
	cm_put_be64(t, (uint64_t)cm_now_ms(app));
	sbx_buf k = {0};
	int rc = cm_key(&k, app, table, field, id, NULL);
	rc = rc ? rc
		: put_cells(txn, app->t[table], k.data, k.len, F, 1,
			    "indexMoved", t, (size_t)8);
	sbx_buf_free(&k);
	return rc;
}

static int patch_fn(sbx_txn *txn, void *arg)
{
	op *o = arg;
	cm_app *app = o->app;
	res_reset(o->res);
	cm_comment c;
	sbx_buf ck = {0}, k = {0};
	int rc = load_comment(&c, &ck, o, txn);
	if (rc) {
		sbx_buf_free(&ck);
		return rc;
	}
	int64_t ts = c.timestamp;
	o->old_ts = c.timestamp;
	o->old_len = (int64_t)c.content_len;
	if (o->content_len != c.content_len) {
		/* the product index row moves: its key holds the length */
		rc = free_slot(&ts, txn, app, c.user_id, o->pid, c.timestamp,
			       o->content_len, c.timestamp);
		rc = rc ? rc
			: pc_key(&k, app, o->pid, c.timestamp, c.content_len);
		rc = rc ? rc
			: delete_row(txn, app->t[CM_T_PRODUCT_COMMENT], k.data,
				     k.len);
		rc = rc ? rc : pc_key(&k, app, o->pid, ts, o->content_len);
		rc = rc ? rc
			: put_index(txn, app->t[CM_T_PRODUCT_COMMENT], &k, &ck);
		rc = rc ? rc : mark_list_moved(txn, app, CM_T_PRODUCT, o->pid);
		if (rc == SBX_OK && ts != c.timestamp) {
			rc = uc_key(&k, app, c.user_id, c.timestamp);
			rc = rc ? rc
				: delete_row(txn, app->t[CM_T_USER_COMMENT],
					     k.data, k.len);
			rc = rc ? rc : uc_key(&k, app, c.user_id, ts);
			rc = rc ? rc
				: put_index(txn, app->t[CM_T_USER_COMMENT], &k,
					    &ck);
			rc = rc ? rc
				: mark_list_moved(txn, app, CM_T_USER,
						  c.user_id);
		}
	}
	free(c.content);
	c.content = (char *)o->content;
	c.content_len = o->content_len;
	c.timestamp = ts;
	c.edited = true;
	rc = rc ? rc : write_comment(txn, app, &ck, &c);
	rc = rc ? rc : mark_pending(o, txn);
	if (rc == SBX_OK) {
		o->res->status = 200;
		o->res->json = cm_comment_json(&c);
	}
	sbx_buf_free(&ck);
	sbx_buf_free(&k);
	return rc;
}

void cm_comment_patch(cm_result *res, cm_app *app, const char *product_id,
		      const char *order_id, json_t *body)
{
	static const char *const fields[] = {"content", NULL};
	if (bad_path_id(res, "product", product_id) ||
	    bad_path_id(res, "order", order_id) ||
	    check_body_fields(res, body, fields))
		return;
	json_t *ct = json_object_get(body, "content");
	op o = {.app = app,
		.res = res,
		.pid = product_id,
		.oid = order_id,
		.content = json_string_value(ct),
		.content_len = json_string_length(ct)};
	run(res, app, patch_fn, &o);
	if (res->status == 200) {
		int64_t ts =
		    json_integer_value(json_object_get(res->json, "timestamp"));
		if (ts != o.old_ts || (int64_t)o.content_len != o.old_len) {
			cm_trace(app, "put", product_id, o.old_ts, o.old_len);
			cm_trace(app, "put", product_id, ts,
				 (int64_t)o.content_len);
		}
	}
}

/* Open a transaction's scan over the rows starting with prefix (from
 * `start` when given), family d. */
static int scan_prefix(sbx_scanner **s, sbx_txn *txn, sbx_table *t,
		       const uint8_t *prefix, size_t plen, const uint8_t *start,
		       size_t slen, int64_t limit, uint8_t *stop_buf)
{
	sbx_scan_opts so;
	sbx_scan_opts_init(&so);
	sbx_scan_opts_set_prefix(&so, prefix, plen, stop_buf);
	if (start) {
		so.start_row = start;
		so.start_row_len = slen;
	}
	sbx_column col = {F, NULL, 0};
	so.read.columns = &col;
	so.read.ncolumns = 1;
	so.limit = limit;
	return txn ? sbx_txn_scanner_open(s, txn, t, &so)
		   : sbx_scanner_open(s, t, &so);
}

static int delete_fn(sbx_txn *txn, void *arg)
{
	op *o = arg;
	cm_app *app = o->app;
	res_reset(o->res);
	cm_comment c;
	sbx_buf ck = {0}, k = {0};
	int rc = load_comment(&c, &ck, o, txn);
	if (rc) {
		sbx_buf_free(&ck);
		return rc;
	}
	o->old_ts = c.timestamp;
	o->old_len = (int64_t)c.content_len;
	rc = delete_row(txn, app->t[CM_T_COMMENT], ck.data, ck.len);
	rc = rc ? rc : uc_key(&k, app, c.user_id, c.timestamp);
	rc =
	    rc ? rc : delete_row(txn, app->t[CM_T_USER_COMMENT], k.data, k.len);
	rc = rc ? rc : pc_key(&k, app, o->pid, c.timestamp, c.content_len);
	rc = rc ? rc
		: delete_row(txn, app->t[CM_T_PRODUCT_COMMENT], k.data, k.len);
	cm_comment_clear(&c);
	/* Rank rows pointing at it go too; the next batch closes the gap.
	 * Each rank the batch can write (1..CM_TOP) is read by key, not
	 * scanned: a missing row read by key is in the read set, a row missing
	 * from a scanned range is not (phantoms). A rank batch that read this
	 * comment and commits a new rank row to it first is then a conflict
	 * here, and the retry sees and deletes that row; a scan would miss it
	 * and leave a rank row naming a deleted comment (write skew). */
	for (unsigned rank = 1; rc == SBX_OK && rank <= CM_TOP; rank++) {
		char rs[8];
		snprintf(rs, sizeof rs, "%u", rank);
		rc = cm_key(&k, app, CM_T_RANK, "product_id", o->pid, "rank", rs,
			    NULL);
		sbx_result *r = NULL;
		rc = rc ? rc
			: sbx_txn_get(&r, txn, app->t[CM_T_RANK], k.data, k.len,
				      NULL);
		const sbx_cell *v = rc ? NULL : cell(r, F, "c");
		bool points_here = v && v->value_len == ck.len &&
				   !memcmp(v->value, ck.data, ck.len);
		sbx_result_free(r);
		if (points_here)
			rc = delete_row(txn, app->t[CM_T_RANK], k.data, k.len);
	}
	rc = rc ? rc : mark_pending(o, txn);
	if (rc == SBX_OK)
		o->res->status = 204;
	sbx_buf_free(&ck);
	sbx_buf_free(&k);
	return rc;
}

void cm_comment_delete(cm_result *res, cm_app *app, const char *product_id,
		       const char *order_id)
{
	if (bad_path_id(res, "product", product_id) ||
	    bad_path_id(res, "order", order_id))
		return;
	op o = {.app = app, .res = res, .pid = product_id, .oid = order_id};
	run(res, app, delete_fn, &o);
	if (res->status == 204)
		cm_trace(app, "put", product_id, o.old_ts, o.old_len);
}

/* ---- POST .../helpful
 * ------------------------------------------------------------- */

static int vote_fn(sbx_txn *txn, void *arg)
{
	op *o = arg;
	cm_app *app = o->app;
	res_reset(o->res);
	cm_comment c;
	sbx_buf ck = {0};
	int rc = load_comment(&c, &ck, o, txn);
	if (rc) {
		sbx_buf_free(&ck);
		return rc;
	}
	json_t *user = NULL;
	rc = read_entity(&user, txn, app, CM_T_USER, o->uid);
	if (rc == SBX_OK && !user) {
		cm_result_error(o->res, 404, "user '%s' not found", o->uid);
		rc = ABORT;
	}
	json_decref(user);
	sbx_result *r = NULL;
	rc = rc ? rc
		: read_row(&r, txn, app->t[CM_T_COMMENT], ck.data, ck.len, "v",
			   o->uid);
	if (rc == SBX_OK && sbx_result_size(r) > 0) {
		cm_result_error(o->res, 409,
				"user '%s' already voted for this comment",
				o->uid);
		rc = ABORT;
	}
	sbx_result_free(r);
	uint8_t h[8];
	cm_put_be64(h, (uint64_t)(c.helpful + 1));
	rc = rc ? rc
		: put_cells(txn, app->t[CM_T_COMMENT], ck.data, ck.len, "v", 1,
			    o->uid, "1", (size_t)1);
	rc = rc ? rc
		: put_cells(txn, app->t[CM_T_COMMENT], ck.data, ck.len, F, 1,
			    "helpful", h, (size_t)8);
	rc = rc ? rc : mark_pending(o, txn);
	if (rc == SBX_OK) {
		o->res->status = 200;
		o->res->json =
		    json_pack("{s:I}", "helpful", (json_int_t)(c.helpful + 1));
	}
	cm_comment_clear(&c);
	sbx_buf_free(&ck);
	return rc;
}

void cm_comment_vote(cm_result *res, cm_app *app, const char *product_id,
		     const char *order_id, json_t *body)
{
	static const char *const fields[] = {"userId", NULL};
	if (bad_path_id(res, "product", product_id) ||
	    bad_path_id(res, "order", order_id) ||
	    check_body_fields(res, body, fields))
		return;
	op o = {.app = app,
		.res = res,
		.pid = product_id,
		.oid = order_id,
		.uid = str_field(body, "userId")};
	run(res, app, vote_fn, &o);
}

/* ---- lists
 * ---------------------------------------------------------------------------
 */

/* Read the comments the index rows of a scan point at: up to o->limit,
 * then the next row's key as the cursor. */
static int list_fn(sbx_txn *txn, void *arg)
{
	op *o = arg;
	cm_app *app = o->app;
	res_reset(o->res);
	int entity = o->by_user ? CM_T_USER : CM_T_PRODUCT;
	json_t *x;
	int rc = read_entity(&x, txn, app, entity, o->id);
	if (rc)
		return rc;
	if (!x) {
		cm_result_error(o->res, 404, "%s '%s' not found",
				entity_word[entity], o->id);
		return ABORT;
	}
	json_decref(x);
	if (app->list_hook)
		app->list_hook(app->list_hook_arg, 0);
	int idx = o->by_user ? CM_T_USER_COMMENT : CM_T_PRODUCT_COMMENT;
	uint8_t prefix[11], stop[11];
	size_t plen = o->by_user ? 10 : 11;
	memset(prefix, 0, sizeof prefix);
	memcpy(prefix, o->id, strlen(o->id));
	prefix[10] = 'c';
	sbx_scanner *s;
	rc = scan_prefix(&s, txn, app->t[idx], prefix, plen, o->cursor,
			 o->cursor_len, o->limit + 1, stop);
	if (rc)
		return rc;
	if (app->list_hook)
		app->list_hook(app->list_hook_arg, 1);
	/* keys first, comments after: a scanner must be closed before...
	 * nothing here writes, so reading while scanning is fine */
	json_t *list = json_array();
	json_t *next = json_null();
	int n = 0;
	while (rc == SBX_OK) {
		sbx_result *r;
		int st = sbx_scanner_next(s, &r);
		if (st == SBX_ITEROVER)
			break;
		if (st) {
			rc = st;
			break;
		}
		const sbx_cell *v = cell(r, F, "c");
		size_t rl;
		const uint8_t *row = sbx_result_row(r, &rl);
		if (v && n == o->limit) {
			char *cur = cm_base64_encode(row, rl, true);
			json_decref(next);
			next = json_string(cur);
			free(cur);
			sbx_result_free(r);
			break;
		}
		if (v) {
			cm_comment c;
			bool found;
			rc = cm_comment_read(&c, &found, app, txn, v->value,
					     v->value_len);
			if (rc == SBX_OK && found) {
				json_array_append_new(list,
						      cm_comment_json(&c));
				n++;
			}
			cm_comment_clear(&c);
		}
		sbx_result_free(r);
	}
	sbx_scanner_close(s);
	if (rc) {
		json_decref(list);
		json_decref(next);
		return rc;
	}
	o->res->status = 200;
	o->res->json = json_pack("{s:o,s:o}", "comments", list, "next", next);
	return SBX_OK;
}

void cm_comment_list(cm_result *res, cm_app *app, bool by_user, const char *id,
		     const char *limit, const char *cursor)
{
	if (bad_path_id(res, by_user ? "user" : "product", id))
		return;
	int lim = 20;
	if (limit) {
		char *end;
		long v = strtol(limit, &end, 10);
		if (!*limit || *end || limit[0] == '+' || limit[0] == '-' ||
		    v < 1 || v > 100) {
			cm_result_error(res, 400,
					"limit must be a whole number from 1 "
					"to 100, not '%s'",
					limit);
			return;
		}
		lim = (int)v;
	}
	uint8_t *cur = NULL;
	size_t clen = 0;
	if (cursor) {
		size_t want = by_user ? CM_UC_KEY_LEN : CM_PC_KEY_LEN;
		uint8_t prefix[11] = {0};
		memcpy(prefix, id, strlen(id));
		prefix[10] = 'c';
		size_t plen = by_user ? 10 : 11;
		if (!cm_base64url_decode(&cur, &clen, cursor, strlen(cursor)) ||
		    clen != want || memcmp(cur, prefix, plen)) {
			free(cur);
			cm_result_error(res, 400,
					"bad cursor: pass the 'next' value of "
					"the previous page as it came");
			return;
		}
	}
	op o = {.app = app,
		.res = res,
		.by_user = by_user,
		.id = id,
		.limit = lim,
		.cursor = cur,
		.cursor_len = clen};
	run(res, app, list_fn, &o);
	if (res->status == 200 && !by_user) {
		/* the scan's start row as a record: the product's newest key,
		 * or the cursor's */
		int64_t ts = INT64_MAX, len = INT32_MAX;
		if (cur) {
			/* unsigned: a forged cursor's stamp above INT64_MAX
			 * must not overflow (the trace shows what it gets) */
			ts = (int64_t)((uint64_t)INT64_MAX -
				       cm_get_be64(cur + 11));
			len = INT32_MAX - (int64_t)((uint32_t)cur[19] << 24 |
						    (uint32_t)cur[20] << 16 |
						    (uint32_t)cur[21] << 8 |
						    cur[22]);
		}
		cm_trace(app, "scan", id, ts, len);
	}
	free(cur);
}

static int top_fn(sbx_txn *txn, void *arg)
{
	op *o = arg;
	cm_app *app = o->app;
	res_reset(o->res);
	json_t *x;
	int rc = read_entity(&x, txn, app, CM_T_PRODUCT, o->pid);
	if (rc)
		return rc;
	if (!x) {
		cm_result_error(o->res, 404, "product '%s' not found", o->pid);
		return ABORT;
	}
	json_decref(x);
	/* Ranks 1..CM_TOP, each read by key in order and a missing one
	 * skipped (a delete leaves a gap for the next batch), not scanned: a
	 * rank row missing from a scanned range is not in the read set
	 * (phantoms), a missing row read by key is. Scanned, a rank the batch
	 * fills after the scan passed it empty was missed while the ranks
	 * after it, read later, already held the batch's values (a comment in
	 * the top both before and after left out, and the read committed);
	 * by key, that batch is a conflict here and sbx_txn_run retries. */
	json_t *list = json_array();
	sbx_buf k = {0};
	for (unsigned rank = 1; rc == SBX_OK && rank <= CM_TOP; rank++) {
		char rs[8];
		snprintf(rs, sizeof rs, "%u", rank);
		rc = cm_key(&k, app, CM_T_RANK, "product_id", o->pid, "rank",
			    rs, NULL);
		sbx_result *r = NULL;
		rc = rc ? rc
			: read_row(&r, txn, app->t[CM_T_RANK], k.data, k.len, F,
				   NULL);
		const sbx_cell *v = rc ? NULL : cell(r, F, "c");
		if (v) {
			cm_comment c;
			bool found;
			rc = cm_comment_read(&c, &found, app, txn, v->value,
					     v->value_len);
			if (rc == SBX_OK && found)
				json_array_append_new(list,
						      cm_comment_json(&c));
			cm_comment_clear(&c);
		}
		sbx_result_free(r);
		if (rc == SBX_OK && app->top_hook)
			app->top_hook(app->top_hook_arg, rank);
	}
	sbx_buf_free(&k);
	if (rc) {
		json_decref(list);
		return rc;
	}
	o->res->status = 200;
	o->res->json = json_pack("{s:o}", "comments", list);
	return SBX_OK;
}

void cm_comment_top(cm_result *res, cm_app *app, const char *product_id)
{
	if (bad_path_id(res, "product", product_id))
		return;
	op o = {.app = app, .res = res, .pid = product_id};
	run(res, app, top_fn, &o);
}
