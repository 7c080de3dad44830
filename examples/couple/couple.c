/*
 * couple.c - seed 001's couple app (couple.h) on the datastore: the
 * kinds and indexes, the writes, and the screens.
 */
#include "couple.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int couple_open(sbx_ds **out, sbx_db *db)
{
	sbx_txn_options o;
	sbx_txn_options_init(&o);
	o.lock_timeout_ms = 2000;
	int rc = sbx_ds_open(out, db, "couples", &o);
	sbx_ds_kind_desc kinds[] = {
	    {K_COUPLE, "Couple", &couple__couple__descriptor, NULL, NULL},
	    {K_USER, "User", &couple__user__descriptor, NULL, NULL},
	    {K_PHOTO, "Photo", &couple__photo__descriptor, NULL, NULL},
	    {K_COMMENT, "Comment", &couple__comment__descriptor, NULL, NULL},
	    {K_MEMO, "Memo", &couple__memo__descriptor, NULL, NULL},
	    {K_ANNIVERSARY, "Anniversary", &couple__anniversary__descriptor,
	     NULL, NULL},
	    {K_MESSAGE, "Message", &couple__message__descriptor, NULL, NULL},
	};
	for (size_t i = 0; rc == SBX_OK && i < sizeof kinds / sizeof *kinds;
	     i++)
		rc = sbx_ds_register_kind(*out, &kinds[i]);
	/* photos of a couple by date, newest first; a user's couple */
	sbx_ds_index_desc by_date = {"photos_by_date", K_PHOTO,
				     "root:u64 + taken:u64 desc + id:u64",
				     SBX_DS_INDEX_REFERENCE, NULL};
	sbx_ds_index_desc user = {"user_couple", K_USER, "id:u64",
				  SBX_DS_INDEX_REFERENCE, NULL};
	rc = rc ? rc : sbx_ds_add_index(*out, &by_date);
	rc = rc ? rc : sbx_ds_add_index(*out, &user);
	rc = rc ? rc : sbx_ds_prepare(*out);
	return rc;
}

static sbx_ds_key *key1(uint64_t couple)
{
	sbx_ds_key *k = NULL;
	sbx_ds_key_root(&k, K_COUPLE, couple);
	return k;
}

static sbx_ds_key *key2(uint64_t couple, uint16_t kind, uint64_t id)
{
	sbx_ds_key *r = key1(couple), *k = NULL;
	if (r)
		sbx_ds_key_child(&k, r, kind, id);
	sbx_ds_key_free(r);
	return k;
}

typedef struct create_args {
	uint64_t couple, since, users[2];
	const char *name, *nicks[2];
} create_args;

static int create_body(sbx_txn *txn, void *arg)
{
	void **a = arg;
	sbx_ds *ds = a[0];
	create_args *c = a[1];
	sbx_ds_key *r = key1(c->couple);
	Couple__Couple cp = COUPLE__COUPLE__INIT;
	cp.name = (char *)c->name;
	cp.has_since = true;
	cp.since = c->since;
	int rc = r ? sbx_ds_put(ds, txn, r, &cp.base) : SBX_ENOMEM;
	for (int i = 0; rc == SBX_OK && i < 2; i++) {
		sbx_ds_key *u = key2(c->couple, K_USER, c->users[i]);
		Couple__User us = COUPLE__USER__INIT;
		us.nickname = (char *)c->nicks[i];
		rc = u ? sbx_ds_put(ds, txn, u, &us.base) : SBX_ENOMEM;
		sbx_ds_key_free(u);
	}
	sbx_ds_key_free(r);
	return rc;
}

/* run fn(txn, {ds, arg}) in a transaction, retried on conflict */
static int in_txn(sbx_ds *ds, sbx_txn_fn fn, void *arg)
{
	void *a[2] = {ds, arg};
	return sbx_txn_run(NULL, sbx_ds_db(ds), NULL, fn, a);
}


int couple_create(uint64_t *out_id, sbx_ds *ds, uint64_t couple_id,
		  const char *name, uint64_t since, uint64_t user_a,
		  const char *nick_a, uint64_t user_b, const char *nick_b)
{
	create_args c = {couple_id, since, {user_a, user_b}, name,
			 {nick_a, nick_b}};
	int rc = SBX_OK;
	if (!c.couple)
		rc = sbx_ds_random_id(&c.couple);
	rc = rc ? rc : in_txn(ds, create_body, &c);
	*out_id = rc ? 0 : c.couple;
	return rc;
}

/* add one child entity with the collection's next id */
typedef struct add_args {
	uint64_t couple, photo; /* photo: comments go under it */
	uint16_t kind;
	ProtobufCMessage *msg;
	uint64_t id;
} add_args;

static int add_body(sbx_txn *txn, void *arg)
{
	void **a = arg;
	sbx_ds *ds = a[0];
	add_args *c = a[1];
	sbx_ds_key *parent = c->photo ? key2(c->couple, K_PHOTO, c->photo)
				      : key1(c->couple);
	sbx_ds_key *k = NULL;
	int rc = parent ? SBX_OK : SBX_ENOMEM;
	rc = rc ? rc : sbx_ds_allocate_id(&c->id, ds, txn, parent, c->kind);
	rc = rc ? rc : sbx_ds_key_child(&k, parent, c->kind, c->id);
	rc = rc ? rc : sbx_ds_put(ds, txn, k, c->msg);
	sbx_ds_key_free(k);
	sbx_ds_key_free(parent);
	return rc;
}

static int add(uint64_t *out_id, sbx_ds *ds, uint64_t couple, uint64_t photo,
	       uint16_t kind, ProtobufCMessage *msg)
{
	add_args c = {couple, photo, kind, msg, 0};
	int rc = in_txn(ds, add_body, &c);
	if (out_id)
		*out_id = rc ? 0 : c.id;
	return rc;
}

int couple_add_photo(uint64_t *out_id, sbx_ds *ds, uint64_t couple,
		     uint64_t uploader, const char *caption, uint64_t taken)
{
	Couple__Photo p = COUPLE__PHOTO__INIT;
	p.caption = (char *)caption;
	p.has_taken = true;
	p.taken = taken;
	p.has_uploader = true;
	p.uploader = uploader;
	return add(out_id, ds, couple, 0, K_PHOTO, &p.base);
}

int couple_add_comment(uint64_t *out_id, sbx_ds *ds, uint64_t couple,
		       uint64_t photo, uint64_t user, const char *text)
{
	Couple__Comment c = COUPLE__COMMENT__INIT;
	c.has_user = true;
	c.user = user;
	c.text = (char *)text;
	return add(out_id, ds, couple, photo, K_COMMENT, &c.base);
}

int couple_add_memo(uint64_t *out_id, sbx_ds *ds, uint64_t couple,
		    uint64_t user, const char *text)
{
	Couple__Memo m = COUPLE__MEMO__INIT;
	m.has_user = true;
	m.user = user;
	m.text = (char *)text;
	return add(out_id, ds, couple, 0, K_MEMO, &m.base);
}

int couple_add_anniversary(uint64_t *out_id, sbx_ds *ds, uint64_t couple,
			   const char *title, uint64_t date)
{
	Couple__Anniversary a = COUPLE__ANNIVERSARY__INIT;
	a.title = (char *)title;
	a.has_date = true;
	a.date = date;
	return add(out_id, ds, couple, 0, K_ANNIVERSARY, &a.base);
}

int couple_send_message(uint64_t *out_id, sbx_ds *ds, uint64_t couple,
			uint64_t sender, const char *text)
{
	Couple__Message m = COUPLE__MESSAGE__INIT;
	m.has_sender = true;
	m.sender = sender;
	m.text = (char *)text;
	return add(out_id, ds, couple, 0, K_MESSAGE, &m.base);
}

int couple_delete_photo(sbx_ds *ds, uint64_t couple, uint64_t photo)
{
	sbx_ds_key *k = key2(couple, K_PHOTO, photo);
	int rc = k ? sbx_ds_delete(NULL, ds, NULL, k) : SBX_ENOMEM;
	sbx_ds_key_free(k);
	return rc;
}

static int line(sbx_buf *out, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int line(sbx_buf *out, const char *fmt, ...)
{
	char s[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(s, sizeof s, fmt, ap);
	va_end(ap);
	return sbx_buf_append(out, s, strlen(s));
}

int screen_photos(sbx_buf *out, uint64_t *next_taken, uint64_t *next_id,
		  sbx_ds *ds, uint64_t couple, uint64_t after_taken,
		  uint64_t after_id, size_t n)
{
	*next_taken = *next_id = 0;
	char root[24], taken[24];
	snprintf(root, sizeof root, "%llu", (unsigned long long)couple);
	snprintf(taken, sizeof taken, "%llu", (unsigned long long)after_taken);
	sbx_keycond c[2] = {{"root", SBX_KEYCOND_EQ, root, strlen(root)},
			    {"taken", SBX_KEYCOND_LE, taken, strlen(taken)}};
	sbx_ds_iter *it = NULL;
	int rc = sbx_ds_index_scan(&it, ds, NULL, "photos_by_date", c,
				   after_id ? 2 : 1, false, 0);
	size_t got = 0;
	const sbx_ds_key *k;
	ProtobufCMessage *m;
	while (rc == SBX_OK && (rc = sbx_ds_iter_next(it, &k, &m)) == SBX_OK) {
		Couple__Photo *p = (Couple__Photo *)m;
		uint64_t id = sbx_ds_key_id(k);
		bool skip = after_id && p->taken == after_taken && id <= after_id;
		if (!skip && got == n) { /* one more: there is a next page */
			sbx_ds_entity_free(m);
			break;
		}
		if (!skip) {
			rc = line(out, "%llu %llu %s\n", (unsigned long long)id,
				  (unsigned long long)p->taken, p->caption);
			got++;
			*next_taken = p->taken;
			*next_id = id;
		}
		sbx_ds_entity_free(m);
	}
	if (rc == SBX_ITEROVER) { /* the last page */
		rc = SBX_OK;
		*next_taken = *next_id = 0;
	}
	sbx_ds_iter_close(it);
	return rc;
}

int screen_photos_uploaded(sbx_buf *out, sbx_ds *ds, uint64_t couple,
			   uint64_t before, size_t n)
{
	sbx_ds_key *r = key1(couple), *b = before ? key2(couple, K_PHOTO, before)
						: NULL;
	sbx_ds_range range;
	sbx_ds_range_init(&range);
	range.to = b;
	range.to_inclusive = false;
	range.reverse = true;
	range.limit = n;
	sbx_ds_iter *it = NULL;
	int rc = sbx_ds_scan_siblings(&it, ds, NULL, r, K_PHOTO, &range);
	const sbx_ds_key *k;
	ProtobufCMessage *m;
	while (rc == SBX_OK && (rc = sbx_ds_iter_next(it, &k, &m)) == SBX_OK) {
		rc = line(out, "%llu %s\n",
			  (unsigned long long)sbx_ds_key_id(k),
			  ((Couple__Photo *)m)->caption);
		sbx_ds_entity_free(m);
	}
	sbx_ds_iter_close(it);
	sbx_ds_key_free(r);
	sbx_ds_key_free(b);
	return rc == SBX_ITEROVER ? SBX_OK : rc;
}

static void nick(char *buf, size_t cap, sbx_ds *ds, sbx_txn *txn,
		 uint64_t couple, uint64_t user)
{
	sbx_ds_key *k = key2(couple, K_USER, user);
	ProtobufCMessage *m = NULL;
	if (k && sbx_ds_get(&m, ds, txn, k) == SBX_OK && m)
		snprintf(buf, cap, "%s", ((Couple__User *)m)->nickname);
	else
		snprintf(buf, cap, "user %llu", (unsigned long long)user);
	sbx_ds_entity_free(m);
	sbx_ds_key_free(k);
}

int screen_photo(sbx_buf *out, sbx_ds *ds, uint64_t couple, uint64_t photo)
{
	sbx_txn *txn = NULL;
	sbx_ds_key *k = key2(couple, K_PHOTO, photo);
	int rc = sbx_txn_begin(&txn, sbx_ds_db(ds));
	sbx_ds_iter *it = NULL;
	rc = rc ? rc : sbx_ds_get_tree(&it, ds, txn, k);
	const sbx_ds_key *ek;
	ProtobufCMessage *m;
	bool any = false;
	while (rc == SBX_OK && (rc = sbx_ds_iter_next(it, &ek, &m)) == SBX_OK) {
		any = true;
		if (sbx_ds_key_kind(ek) == K_PHOTO) {
			rc = line(out, "photo %llu %s\n",
				  (unsigned long long)photo,
				  ((Couple__Photo *)m)->caption);
		} else if (sbx_ds_key_kind(ek) == K_COMMENT) {
			Couple__Comment *c = (Couple__Comment *)m;
			char who[100];
			nick(who, sizeof who, ds, txn, couple, c->user);
			rc = line(out, "  %s: %s\n", who, c->text);
		}
		sbx_ds_entity_free(m);
	}
	sbx_ds_iter_close(it);
	if (rc == SBX_ITEROVER)
		rc = any ? SBX_OK : SBX_ENOTFOUND;
	if (txn)
		rc = rc ? (sbx_txn_rollback(txn), rc) : sbx_txn_commit(txn);
	sbx_ds_key_free(k);
	return rc;
}

int screen_counts(sbx_buf *out, sbx_ds *ds, uint64_t couple)
{
	sbx_ds_key *r = key1(couple);
	uint64_t n[4] = {0};
	uint16_t kinds[4] = {K_PHOTO, K_MEMO, K_ANNIVERSARY, K_MESSAGE};
	sbx_txn *txn = NULL;
	int rc = sbx_txn_begin(&txn, sbx_ds_db(ds));
	for (int i = 0; rc == SBX_OK && i < 4; i++)
		rc = sbx_ds_collection_info(&n[i], NULL, ds, txn, r, kinds[i]);
	if (txn)
		rc = rc ? (sbx_txn_rollback(txn), rc) : sbx_txn_commit(txn);
	rc = rc ? rc
		: line(out, "photos %llu memos %llu anniversaries %llu "
			    "messages %llu\n",
		       (unsigned long long)n[0], (unsigned long long)n[1],
		       (unsigned long long)n[2], (unsigned long long)n[3]);
	sbx_ds_key_free(r);
	return rc;
}

int couple_of_user(uint64_t *couple, sbx_ds *ds, uint64_t user)
{
	*couple = 0;
	char id[24];
	snprintf(id, sizeof id, "%llu", (unsigned long long)user);
	sbx_keycond c = {"id", SBX_KEYCOND_EQ, id, strlen(id)};
	sbx_ds_iter *it = NULL;
	int rc = sbx_ds_index_scan(&it, ds, NULL, "user_couple", &c, 1, false,
				   1);
	const sbx_ds_key *k;
	rc = rc ? rc : sbx_ds_iter_next(it, &k, NULL);
	if (rc == SBX_OK) {
		sbx_ds_key *r = NULL;
		rc = sbx_ds_key_prefix(&r, k, 1);
		*couple = rc ? 0 : sbx_ds_key_id(r);
		sbx_ds_key_free(r);
	}
	sbx_ds_iter_close(it);
	return rc == SBX_ITEROVER ? SBX_OK : rc;
}

int screen_messages(sbx_buf *out, sbx_ds *ds, uint64_t couple, size_t n)
{
	sbx_ds_key *r = key1(couple);
	sbx_ds_range range;
	sbx_ds_range_init(&range);
	range.reverse = true;
	range.limit = n;
	sbx_txn *txn = NULL;
	int rc = sbx_txn_begin(&txn, sbx_ds_db(ds));
	sbx_ds_iter *it = NULL;
	rc = rc ? rc : sbx_ds_scan_siblings(&it, ds, txn, r, K_MESSAGE, &range);
	const sbx_ds_key *k;
	ProtobufCMessage *m;
	while (rc == SBX_OK && (rc = sbx_ds_iter_next(it, &k, &m)) == SBX_OK) {
		Couple__Message *msg = (Couple__Message *)m;
		char who[100];
		nick(who, sizeof who, ds, txn, couple, msg->sender);
		rc = line(out, "%s: %s\n", who, msg->text);
		sbx_ds_entity_free(m);
	}
	sbx_ds_iter_close(it);
	if (rc == SBX_ITEROVER)
		rc = SBX_OK;
	if (txn)
		rc = rc ? (sbx_txn_rollback(txn), rc) : sbx_txn_commit(txn);
	sbx_ds_key_free(r);
	return rc;
}
