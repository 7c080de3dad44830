/*
 * test_rank_race.c - the rank batch racing a comment's delete, with the
 * two transactions' commits put in a chosen order by the transaction
 * fault hook (both threads hold at their first commit step); the rank
 * batch committing in the middle of a top-10 read, run from the read's
 * test hook (cm_app.top_hook) after it has read rank 1 (run_top_race);
 * and an edit moving an index row while a list page scans
 * (test_list_race, cm_app.list_hook).
 *
 * Product p1 has five comments ranked 1..5; a sixth, o6, is posted with
 * the shortest content, so the next batch adds it as rank 6 and leaves
 * ranks 1..5 as they are. The batch (reads o6, writes rank 6) and the
 * delete of o6 (reads p1's ranks, deletes o6) then both run:
 *
 *   rank first:   the batch commits while the delete is held before its
 *                 commit. The delete must see the batch's new rank row as
 *                 a conflict and, retried, delete it too. Were the ranks
 *                 scanned, rank 6 would be a phantom to the delete and
 *                 stay, naming a comment that no longer exists (write skew;
 *                 once seen in comments_crash).
 *   delete first: the delete commits while the batch is held; the batch
 *                 read o6 and must conflict, and its retry ranks only 1..5.
 *
 * Each order runs on the embedded store's atomic commit path and on the
 * portable protocol. After each: o6 is gone, rank 6 does not exist, ranks
 * 1..5 name o1..o5, cm_check finds 0 problems, and a conflict was retried.
 */
#include "check.h"
#include "comments.h"

#include <pthread.h>

enum { ROLE_NONE, ROLE_RANK, ROLE_DELETE };
static _Thread_local int role;

typedef struct race {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int first;	     /* ROLE_RANK or ROLE_DELETE: commits first */
	bool held[3];	     /* a role has reached its first commit step */
	bool done[3];	     /* a role's operation has returned */
	cm_app *app;
	cm_result del;	     /* the delete's outcome */
	int rank_rc;
	long ranked;
} race;

/* The fault hook: the role that commits second waits at its first commit
 * step until the first one has finished; the first waits until the second
 * is held (so both have done their reads). Later steps and retries pass. */
static int hook(void *arg, sbx_txn_step step, size_t row)
{
	(void)step;
	(void)row;
	race *r = arg;
	if (role == ROLE_NONE)
		return 0;
	pthread_mutex_lock(&r->mu);
	if (!r->held[role]) {
		r->held[role] = true;
		pthread_cond_broadcast(&r->cv);
		int other = role == ROLE_RANK ? ROLE_DELETE : ROLE_RANK;
		if (role == r->first)
			while (!r->held[other])
				pthread_cond_wait(&r->cv, &r->mu);
		else
			while (!r->done[other])
				pthread_cond_wait(&r->cv, &r->mu);
	}
	pthread_mutex_unlock(&r->mu);
	return 0;
}

static void finish(race *r, int who)
{
	pthread_mutex_lock(&r->mu);
	r->done[who] = true;
	pthread_cond_broadcast(&r->cv);
	pthread_mutex_unlock(&r->mu);
}

static void *rank_thread(void *arg)
{
	race *r = arg;
	role = ROLE_RANK;
	r->rank_rc = cm_rank_run(&r->ranked, r->app);
	finish(r, ROLE_RANK);
	return NULL;
}

static void *delete_thread(void *arg)
{
	race *r = arg;
	role = ROLE_DELETE;
	cm_comment_delete(&r->del, r->app, "p1", "o6");
	finish(r, ROLE_DELETE);
	return NULL;
}

/* PUT-like helpers: a JSON body, its status checked. */
static int put(cm_app *app, int table, const char *id, const char *json)
{
	json_t *j = json_loads(json, 0, NULL);
	cm_result res = {0};
	cm_put_entity(&res, app, table, id, j);
	json_decref(j);
	json_decref(res.json);
	return res.status;
}

static int post_as(cm_app *app, const char *uid, const char *oid,
		   const char *content)
{
	char body[256];
	snprintf(body, sizeof body,
		 "{\"orderId\":\"%s\",\"userId\":\"%s\",\"content\":\"%s\"}",
		 oid, uid, content);
	json_t *j = json_loads(body, 0, NULL);
	cm_result res = {0};
	cm_comment_post(&res, app, "p1", j);
	json_decref(j);
	json_decref(res.json);
	return res.status;
}

static int post(cm_app *app, const char *oid, const char *content)
{
	return post_as(app, "u1", oid, content);
}

/* The comment key rank `rank` of p1 names, as "o<N>", or "" if none. */
static const char *rank_of(cm_app *app, unsigned rank, char *out)
{
	char rs[12]; /* any unsigned */
	snprintf(rs, sizeof rs, "%u", rank);
	sbx_buf k = {0};
	out[0] = '\0';
	if (cm_key(&k, app, CM_T_RANK, "product_id", "p1", "rank", rs, NULL))
		return "(bad key)";
	sbx_result *r = NULL;
	if (sbx_table_get(&r, app->t[CM_T_RANK], k.data, k.len, NULL) ==
	    SBX_OK) {
		const sbx_cell *v = sbx_result_get(r, "d", "c", 1);
		/* comment key: orderId(10) productId(10), zero padded */
		if (v && v->value_len == CM_COMMENT_KEY_LEN)
			snprintf(out, 16, "%.10s", (const char *)v->value);
	}
	sbx_result_free(r);
	sbx_buf_free(&k);
	return out;
}

/* A fresh store in dir with seller s1, product p1 and user u1, its
 * transactions on `path`. NULL when the store does not open. */
static sbx_db *shop(cm_app *app, const char *dir, sbx_txn_path path)
{
	sbx_db *db;
	if (sbx_db_open(&db, dir, NULL) != SBX_OK)
		return NULL;
	memset(app, 0, sizeof *app);
	if (cm_store_open(app, db, 1000) != 0) {
		sbx_db_close(db);
		return NULL;
	}
	app->txo.path = path;
	CHECK_INT(put(app, CM_T_SELLER, "s1", "{\"name\":\"Shop\"}"), 201);
	CHECK_INT(put(app, CM_T_PRODUCT, "p1",
		      "{\"sellerId\":\"s1\",\"content\":\"\"}"),
		  201);
	CHECK_INT(put(app, CM_T_USER, "u1",
		      "{\"name\":\"U\",\"nickname\":\"u\"}"),
		  201);
	return db;
}

/* shop() with user u1's orders o1..o<orders>, with comments on
 * o1..o<ranked> ranked 1..ranked by the batch (longer content ranks
 * higher, no votes: o1 is rank 1). NULL when the store does not open. */
static sbx_db *ranked_shop(cm_app *app, const char *dir, sbx_txn_path path,
			   int orders, int ranked)
{
	sbx_db *db = shop(app, dir, path);
	if (!db)
		return NULL;
	char oid[12], body[64], got[16];
	for (int i = 1; i <= orders; i++) {
		snprintf(oid, sizeof oid, "o%d", i);
		CHECK_INT(put(app, CM_T_ORDER, oid,
			      "{\"userId\":\"u1\",\"productIds\":[\"p1\"]}"),
			  201);
	}
	for (int i = 1; i <= ranked; i++) {
		snprintf(oid, sizeof oid, "o%d", i);
		snprintf(body, sizeof body, "%.*s", 40 - i,
			 "a comment of some length, longer than o6");
		CHECK_INT(post(app, oid, body), 201);
	}
	long products;
	CHECK_INT(cm_rank_run(&products, app), SBX_OK);
	CHECK_INT(products, 1);
	for (int k = 1; k <= ranked; k++) {
		snprintf(oid, sizeof oid, "o%d", k);
		CHECK_STR(rank_of(app, (unsigned)k, got), oid);
	}
	return db;
}

static void run_race(int first, sbx_txn_path path)
{
	const char *dir = test_dir(first == ROLE_RANK ? "rank_first"
						      : "delete_first");
	static cm_app app;
	sbx_db *db = ranked_shop(&app, dir, path, 6, 5);
	REQUIRE(db);
	char oid[8], got[16];
	long products;
	CHECK_INT(post(&app, "o6", "x"), 201); /* the shortest: rank 6 */

	race r = {.first = first, .app = &app};
	pthread_mutex_init(&r.mu, NULL);
	pthread_cond_init(&r.cv, NULL);
	app.txo.fault = hook;
	app.txo.fault_arg = &r;
	long retried_before = atomic_load(&app.conflicts_retried);
	pthread_t a, b;
	REQUIRE(pthread_create(&a, NULL, rank_thread, &r) == 0);
	REQUIRE(pthread_create(&b, NULL, delete_thread, &r) == 0);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	app.txo.fault = NULL;

	CHECK_INT(r.rank_rc, SBX_OK);
	CHECK_INT(r.ranked, 1);
	CHECK_INT(r.del.status, 204);
	json_decref(r.del.json);
	/* the second to commit conflicted and ran again (the batch's retry
	 * is not counted in conflicts_retried, the delete's is) */
	if (first == ROLE_RANK)
		CHECK(atomic_load(&app.conflicts_retried) > retried_before);
	cm_result g = {0};
	cm_comment_get(&g, &app, "p1", "o6");
	CHECK_INT(g.status, 404);
	json_decref(g.json);
	for (unsigned k = 1; k <= 5; k++) {
		snprintf(oid, sizeof oid, "o%u", k);
		CHECK_STR(rank_of(&app, k, got), oid);
	}
	CHECK_STR(rank_of(&app, 6, got), "");
	CHECK_INT(cm_check(&app, 0, false), 0);
	/* whatever the batch left pending, another run settles the same */
	CHECK_INT(cm_rank_run(&products, &app), SBX_OK);
	CHECK_STR(rank_of(&app, 6, got), "");
	CHECK_INT(cm_check(&app, 0, false), 0);

	pthread_mutex_destroy(&r.mu);
	pthread_cond_destroy(&r.cv);
	cm_store_close(&app);
	sbx_db_close(db);
}

/* ---- the top-10 read racing the rank batch ---------------------------- */

typedef struct top_race {
	cm_app *app;
	bool fired;
	int rank_rc;
	long ranked;
} top_race;

static void *batch_thread(void *arg)
{
	top_race *t = arg;
	t->rank_rc = cm_rank_run(&t->ranked, t->app);
	return NULL;
}

/* The top read's hook: once it has read rank 1 (the first time), the rank
 * batch runs to its commit, on a thread of its own like another client. */
static void after_rank(void *arg, unsigned rank)
{
	top_race *t = arg;
	if (rank != 1 || t->fired)
		return;
	t->fired = true;
	pthread_t th;
	REQUIRE(pthread_create(&th, NULL, batch_thread, t) == 0);
	pthread_join(th, NULL);
}

/* A client dying between its commit point and applying its rows. */
static int die_at_apply(void *arg, sbx_txn_step step, size_t row)
{
	(void)arg;
	(void)row;
	return step == SBX_TXN_STEP_APPLY_SECONDARY ? SBX_EIO : 0;
}

/* A client that rewrites p1's ranks 3 and 4 (the same values) on the
 * portable path and dies once it has committed: both rows keep its lock
 * (rank 3 the COMMITTED primary, rank 4 PREWRITTEN), for whoever reads
 * them next to roll forward. */
static void dead_rank_writer(cm_app *app)
{
	sbx_txn_options o = app->txo;
	o.path = SBX_TXN_PATH_PORTABLE;
	o.fault = die_at_apply;
	sbx_txn *w;
	REQUIRE(sbx_txn_begin_with(&w, app->db, &o) == SBX_OK);
	sbx_buf k = {0};
	for (unsigned rank = 3; rank <= 4; rank++) {
		char rs[8];
		snprintf(rs, sizeof rs, "%u", rank);
		REQUIRE(cm_key(&k, app, CM_T_RANK, "product_id", "p1", "rank",
			       rs, NULL) == SBX_OK);
		sbx_result *r = NULL;
		REQUIRE(sbx_txn_get(&r, w, app->t[CM_T_RANK], k.data, k.len,
				    NULL) == SBX_OK);
		const sbx_cell *v = sbx_result_get(r, "d", "c", 1);
		REQUIRE(v != NULL);
		sbx_mutation *m;
		REQUIRE(sbx_mutation_new(&m, k.data, k.len) == SBX_OK);
		REQUIRE(sbx_mutation_put(m, "d", "c", 1, SBX_LATEST_TIMESTAMP,
					 v->value, v->value_len) == SBX_OK);
		REQUIRE(sbx_txn_mutate(w, app->t[CM_T_RANK], m) == SBX_OK);
		sbx_mutation_free(m);
		sbx_result_free(r);
	}
	sbx_buf_free(&k);
	/* past the commit point the commit has succeeded, applied or not */
	CHECK_INT(sbx_txn_commit(w), SBX_OK);
	sbx_txn_lock_info *v = NULL;
	size_t n = 0;
	CHECK_INT(sbx_txn_locks(&v, &n, app->db, cm_table_names[CM_T_RANK]),
		  SBX_OK);
	CHECK_INT(n, 2);
	sbx_txn_lock_infos_free(v, n);
}

/* The comments' orderIds of a list reply, "o1,o3,o4". */
static const char *order_ids(const json_t *reply, char *out, size_t size)
{
	const json_t *list = json_object_get(reply, "comments");
	size_t i, n = 0;
	const json_t *c;
	out[0] = '\0';
	json_array_foreach(list, i, c)
	{
		const char *id =
		    json_string_value(json_object_get(c, "orderId"));
		n += (size_t)snprintf(out + n, size - n, "%s%s", i ? "," : "",
				      id ? id : "?");
		if (n >= size)
			break;
	}
	return out;
}

/*
 * The top-10 read (T) and the rank batch (R) closing a gap. p1's ranks
 * are {1:o1, 3:o3, 4:o4}: o2, rank 2, was deleted and the next batch
 * closes the gap. T reads rank 1; then R commits {1:o1, 2:o3, 3:o4} and
 * deletes rank 4; then T reads on. The top is o1, o3, o4 before R and
 * after it, so T must answer exactly that (a conflict and a retry may come
 * first). Were the ranks scanned, rank 2 would be a phantom: the scan
 * passes it empty, then meets rank 3 with R's o4 and rank 4 gone, and T
 * answers o1, o4 and commits, since every row it returned is unchanged.
 *
 * On the embedded store a scan reads from one snapshot, taken when it
 * opens, so a row it returns with a settled lock still holds its value
 * then and R's change to it is a conflict at T's commit. A row under
 * another transaction's lock, though, is read again by key when the scan
 * reaches it (to resolve the lock), after R: the way a scan on a backend
 * without snapshots (Bigtable, HBase across regions) reads every row. So a
 * client that committed ranks 3 and 4 and died before applying them
 * leaves them locked when T opens its scan; R, reading them first, rolls
 * them forward.
 */
static void run_top_race(sbx_txn_path path)
{
	const char *dir = test_dir(
	    path == SBX_TXN_PATH_PORTABLE ? "top_portable" : "top_atomic");
	static cm_app app;
	sbx_db *db = ranked_shop(&app, dir, path, 4, 4);
	REQUIRE(db);
	char got[16];
	cm_result d = {0};
	cm_comment_delete(&d, &app, "p1", "o2");
	CHECK_INT(d.status, 204);
	json_decref(d.json);
	CHECK_STR(rank_of(&app, 2, got), ""); /* the gap */
	dead_rank_writer(&app);

	top_race t = {.app = &app};
	app.top_hook = after_rank;
	app.top_hook_arg = &t;
	cm_result res = {0};
	cm_comment_top(&res, &app, "p1");
	app.top_hook = NULL;
	CHECK(t.fired);
	CHECK_INT(t.rank_rc, SBX_OK);
	CHECK_INT(t.ranked, 1);
	CHECK_INT(res.status, 200);
	char ids[64];
	CHECK_STR(order_ids(res.json, ids, sizeof ids), "o1,o3,o4");
	json_decref(res.json);

	/* R closed the gap */
	CHECK_STR(rank_of(&app, 1, got), "o1");
	CHECK_STR(rank_of(&app, 2, got), "o3");
	CHECK_STR(rank_of(&app, 3, got), "o4");
	CHECK_STR(rank_of(&app, 4, got), "");
	CHECK_INT(cm_check(&app, 0, false), 0);
	cm_store_close(&app);
	sbx_db_close(db);
}

static void test_top_atomic(void)
{
	run_top_race(SBX_TXN_PATH_AUTO);
}

/* ---- a list page racing an edit that moves an index row -------------- */

typedef struct list_race {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	cm_app *app;
	cm_app editor; /* the app as another client: portable, paused */
	pthread_t th;
	bool started, paused, go, edited;
	cm_result edit;
} list_race;

/* The editor's fault hook: before the first secondary prewrite that comes
 * after the old index row is locked (rows prewrite in key order, and the
 * shorter content's new row sorts after it), wait until the list's scan
 * is open - its snapshot then holds the old row locked and not the new
 * one. */
static int pause_between_prewrites(void *arg, sbx_txn_step step, size_t row)
{
	(void)row;
	list_race *l = arg;
	if (step != SBX_TXN_STEP_PREWRITE_SECONDARY || l->paused)
		return 0;
	sbx_txn_lock_info *v = NULL;
	size_t n = 0;
	if (sbx_txn_locks(&v, &n, l->app->db,
			  cm_table_names[CM_T_PRODUCT_COMMENT]) != SBX_OK)
		return 0;
	sbx_txn_lock_infos_free(v, n);
	if (n == 0)
		return 0;
	pthread_mutex_lock(&l->mu);
	l->paused = true;
	pthread_cond_broadcast(&l->cv);
	while (!l->go)
		pthread_cond_wait(&l->cv, &l->mu);
	pthread_mutex_unlock(&l->mu);
	return 0;
}

static void *edit_thread(void *arg)
{
	list_race *l = arg;
	json_t *j = json_loads("{\"content\":\"tiny\"}", 0, NULL);
	cm_comment_patch(&l->edit, &l->editor, "p1", "o2", j);
	json_decref(j);
	pthread_mutex_lock(&l->mu); /* a list waiting for a pause stops */
	l->edited = true;
	pthread_cond_broadcast(&l->cv);
	pthread_mutex_unlock(&l->mu);
	return NULL;
}

/* The list's hook: when it has read p1's row (stage 0), the edit starts and
 * runs until it is paused; once the scan is open (stage 1), the edit
 * finishes. Only on the list's first attempt. */
static void list_stage(void *arg, int stage)
{
	list_race *l = arg;
	if (stage == 0 && !l->started) {
		l->started = true;
		REQUIRE(pthread_create(&l->th, NULL, edit_thread, l) == 0);
		pthread_mutex_lock(&l->mu);
		while (!l->paused && !l->edited) /* an edit that never paused */
			pthread_cond_wait(&l->cv, &l->mu);
		pthread_mutex_unlock(&l->mu);
	} else if (stage == 1 && l->started && !l->go) {
		pthread_mutex_lock(&l->mu);
		l->go = true;
		pthread_cond_broadcast(&l->cv);
		pthread_mutex_unlock(&l->mu);
		pthread_join(l->th, NULL);
	}
}

static const char *list_p1(cm_app *app, char *out, size_t size)
{
	cm_result res = {0};
	cm_comment_list(&res, app, false, "p1", NULL, NULL);
	CHECK_INT(res.status, 200);
	order_ids(res.json, out, size);
	json_decref(res.json);
	return out;
}

/*
 * A page of p1's comments (L) and an edit (E) that shortens o2's content,
 * which moves o2's product-comment row to a later key: o1 and o2 were
 * posted in the same millisecond (o1's content longer, so first) and o3
 * a second before, so the page is o1, o2, o3 before E and after it. E runs
 * on the portable path, from another thread, and L's scan opens between
 * E's prewrite of the old row and of the new one: the scan's snapshot
 * holds the old row under E's lock and not the new row. When the scan
 * reaches the old row it reads it again by key (to resolve the lock),
 * after E: gone; the new row is not in the snapshot. Without more, L
 * answers o1, o3 and commits - every row it read is unchanged - though
 * o2 existed throughout (a phantom). E writes p1's row (`indexMoved`),
 * which L read before its scan, so L conflicts, is retried and answers
 * o1, o2, o3.
 */
static void test_list_race(void)
{
	static cm_app app;
	sbx_db *db = shop(&app, test_dir("list_race"), SBX_TXN_PATH_AUTO);
	REQUIRE(db);
	app.test_clock = true;
	CHECK_INT(put(&app, CM_T_USER, "u2", "{\"name\":\"V\",\"nickname\":\"v\"}"),
		  201);
	CHECK_INT(put(&app, CM_T_ORDER, "o1",
		      "{\"userId\":\"u1\",\"productIds\":[\"p1\"]}"),
		  201);
	CHECK_INT(put(&app, CM_T_ORDER, "o2",
		      "{\"userId\":\"u2\",\"productIds\":[\"p1\"]}"),
		  201);
	CHECK_INT(put(&app, CM_T_ORDER, "o3",
		      "{\"userId\":\"u1\",\"productIds\":[\"p1\"]}"),
		  201);
	atomic_store(&app.clock_ms, 1700000000000);
	CHECK_INT(post_as(&app, "u1", "o3", "the oldest"), 201);
	atomic_store(&app.clock_ms, 1700000001000);
	CHECK_INT(post_as(&app, "u1", "o1", "thirty bytes of content, o1.."),
		  201);
	CHECK_INT(post_as(&app, "u2", "o2", "twenty bytes for o2"), 201);
	char ids[64];
	CHECK_STR(list_p1(&app, ids, sizeof ids), "o1,o2,o3");

	static list_race l;
	pthread_mutex_init(&l.mu, NULL);
	pthread_cond_init(&l.cv, NULL);
	l.app = &app;
	l.editor = app; /* shares the store, tables and key designs */
	l.editor.txo.path = SBX_TXN_PATH_PORTABLE;
	l.editor.txo.fault = pause_between_prewrites;
	l.editor.txo.fault_arg = &l;
	app.list_hook = list_stage;
	app.list_hook_arg = &l;
	long retried_before = atomic_load(&app.conflicts_retried);
	CHECK_STR(list_p1(&app, ids, sizeof ids), "o1,o2,o3");
	app.list_hook = NULL;
	CHECK(l.started && l.paused && l.go);
	CHECK_INT(l.edit.status, 200);
	json_decref(l.edit.json);
	CHECK(atomic_load(&app.conflicts_retried) > retried_before);
	/* o2 moved: the same page, o2 with its new content */
	CHECK_STR(list_p1(&app, ids, sizeof ids), "o1,o2,o3");
	cm_result g = {0};
	cm_comment_get(&g, &app, "p1", "o2");
	CHECK_INT(g.status, 200);
	CHECK_STR(json_string_value(json_object_get(g.json, "content")),
		  "tiny");
	json_decref(g.json);
	CHECK_INT(cm_check(&app, 0, false), 0);

	pthread_mutex_destroy(&l.mu);
	pthread_cond_destroy(&l.cv);
	cm_store_close(&app);
	sbx_db_close(db);
}

static void test_top_portable(void)
{
	run_top_race(SBX_TXN_PATH_PORTABLE);
}

static void test_rank_first_atomic(void)
{
	run_race(ROLE_RANK, SBX_TXN_PATH_AUTO);
}

static void test_rank_first_portable(void)
{
	run_race(ROLE_RANK, SBX_TXN_PATH_PORTABLE);
}

static void test_delete_first_atomic(void)
{
	run_race(ROLE_DELETE, SBX_TXN_PATH_AUTO);
}

static void test_delete_first_portable(void)
{
	run_race(ROLE_DELETE, SBX_TXN_PATH_PORTABLE);
}

TEST_MAIN(T(test_rank_first_atomic), T(test_rank_first_portable),
	  T(test_delete_first_atomic), T(test_delete_first_portable),
	  T(test_top_atomic), T(test_top_portable), T(test_list_race))
