/*
 * test_datastore.c - the datastore (include/saltbox/datastore.h) on the
 * embedded store and, through tests/run_remote.sh, over `saltbox serve`:
 * seed 001's layout byte for byte, put/get/delete with collection
 * metadata, sibling ranges (bounds, reverse, limit, batches, inside a
 * transaction that wrote the row), subtrees, transactions, unknown fields
 * kept across a v1 read-modify-write, malformed entities, triggers, and
 * secondary indexes (reference, clustered, salted, reversed; an entity
 * deleted between a scan's reads of its index row and of it: a conflict;
 * a dangling index row: an error).
 */
#include "cli_util.h"
#include "engine_util.h"

#include "common/alloc.h"
#include "common/clock.h"

#include "ds_test.pb-c.h"
#include "ds_test_v2.pb-c.h"
#include "saltbox/datastore.h"

enum { COUPLE = 1, USER = 2, PHOTO = 3, COMMENT = 4 };

static sbx_db *db;
static sbx_ds *ds;

static sbx_txn_options quick(void)
{
	sbx_txn_options o;
	sbx_txn_options_init(&o);
	o.lock_timeout_ms = 300;
	o.lock_wait_ms = 50;
	o.retry_budget_ms = 20000;
	return o;
}

static int trig_puts, trig_deletes, trig_fail;

static int count_trigger(sbx_ds *d, sbx_txn *txn, sbx_ds_event ev,
			 const sbx_ds_key *key, const ProtobufCMessage *o,
			 const ProtobufCMessage *n, void *arg)
{
	(void)d, (void)txn, (void)key, (void)arg;
	if (trig_fail)
		return trig_fail;
	if (ev == SBX_DS_ON_PUT) {
		trig_puts++;
		CHECK(n != NULL);
	} else {
		trig_deletes++;
		CHECK(o != NULL && n == NULL);
	}
	return SBX_OK;
}

/* A fresh store with the four kinds; with indexes, by_taken, by_owner and
 * the trigger, and `extra` (may be NULL) as a third index. */
static bool setup_with(const char *name, bool indexes,
		       const sbx_ds_index_desc *extra)
{
	db = open_fresh(name);
	if (!db)
		return false;
	sbx_txn_options o = quick();
	if (sbx_ds_open(&ds, db, "couples", &o))
		return false;
	sbx_ds_kind_desc k[] = {
	    {COUPLE, "Couple", &dstest__couple__descriptor, NULL, NULL},
	    {USER, "User", &dstest__user__descriptor, "users", NULL},
	    {PHOTO, "Photo", &dstest__photo__descriptor, NULL, NULL},
	    {COMMENT, "Comment", &dstest__comment__descriptor, NULL, NULL},
	};
	for (size_t i = 0; i < 4; i++)
		if (sbx_ds_register_kind(ds, &k[i])) {
			fprintf(stderr, "register: %s\n", sbx_errmsg());
			return false;
		}
	if (indexes) {
		sbx_ds_index_desc ix[] = {
		    {"by_taken", PHOTO, "root:u64 + taken:u64 desc + id:u64",
		     SBX_DS_INDEX_REFERENCE, NULL},
		    {"by_owner", PHOTO, "salt(4) + owner:str + key:bytes",
		     SBX_DS_INDEX_CLUSTERED, NULL},
		};
		for (size_t i = 0; i < 3; i++)
			if ((i < 2 || extra) &&
			    sbx_ds_add_index(ds, i < 2 ? &ix[i] : extra)) {
				fprintf(stderr, "index: %s\n", sbx_errmsg());
				return false;
			}
		if (sbx_ds_add_trigger(ds, PHOTO,
				       SBX_DS_ON_PUT | SBX_DS_ON_DELETE,
				       count_trigger, NULL))
			return false;
	}
	trig_puts = trig_deletes = trig_fail = 0;
	if (sbx_ds_prepare(ds)) {
		fprintf(stderr, "prepare: %s\n", sbx_errmsg());
		return false;
	}
	return true;
}

static bool setup(const char *name, bool indexes)
{
	return setup_with(name, indexes, NULL);
}

static void teardown(void)
{
	sbx_ds_close(ds);
	sbx_db_close(db);
	ds = NULL;
	db = NULL;
}

static char *hex(const sbx_buf *b)
{
	static char out[1024];
	size_t n = 0;
	for (size_t i = 0; i < b->len && n + 3 < sizeof out; i++)
		n += (size_t)snprintf(out + n, sizeof out - n, "%02x",
				      b->data[i]);
	out[n] = 0;
	return out;
}

static sbx_ds_key *root(uint64_t id)
{
	sbx_ds_key *k = NULL;
	CHECK_INT(sbx_ds_key_root(&k, COUPLE, id), SBX_OK);
	return k;
}

static sbx_ds_key *child(const sbx_ds_key *p, uint16_t kind, uint64_t id)
{
	sbx_ds_key *k = NULL;
	CHECK_INT(sbx_ds_key_child(&k, p, kind, id), SBX_OK);
	return k;
}

static int put_photo(sbx_txn *txn, const sbx_ds_key *k, const char *caption,
		     uint64_t taken, const char *owner)
{
	Dstest__Photo p = DSTEST__PHOTO__INIT;
	p.caption = (char *)caption;
	p.has_taken = true;
	p.taken = taken;
	p.owner = (char *)owner;
	return sbx_ds_put(ds, txn, k, &p.base);
}

static const char *caption_of(ProtobufCMessage *m)
{
	static char s[100];
	snprintf(s, sizeof s, "%s",
		 m ? ((Dstest__Photo *)m)->caption : "(none)");
	sbx_ds_entity_free(m);
	return s;
}

/* the keys an iterator returns, "3,4,5" (last ids) */
static const char *ids_of(sbx_ds_iter *it)
{
	static char s[2000];
	size_t n = 0;
	s[0] = 0;
	const sbx_ds_key *k;
	ProtobufCMessage *m;
	int rc;
	while ((rc = sbx_ds_iter_next(it, &k, &m)) == SBX_OK) {
		n += (size_t)snprintf(s + n, sizeof s - n, "%s%llu",
				      n ? "," : "",
				      (unsigned long long)sbx_ds_key_id(k));
		sbx_ds_entity_free(m);
	}
	if (rc != SBX_ITEROVER)
		snprintf(s + n, sizeof s - n, "!%s", sbx_errmsg());
	sbx_ds_iter_close(it);
	return s;
}

static void test_layout(void)
{
	sbx_ds_key *c = root(7), *p = child(c, PHOTO, 3),
		   *cm = child(p, COMMENT, 2), *u = NULL, *back = NULL;
	CHECK_INT(sbx_ds_key_root_bytes(&u, USER, "bob", 3), SBX_OK);
	sbx_buf b = {0};
	CHECK_INT(sbx_ds_key_encode_row(&b, c), SBX_OK);
	CHECK_STR(hex(&b), "0001010000000000000007");
	b.len = 0;
	CHECK_INT(sbx_ds_key_encode_row(&b, cm), SBX_OK);
	CHECK_STR(hex(&b), "0001010000000000000007");
	b.len = 0;
	CHECK_INT(sbx_ds_key_encode_qualifier(&b, c), SBX_OK);
	CHECK_STR(hex(&b), "0000");
	b.len = 0;
	CHECK_INT(sbx_ds_key_encode_qualifier(&b, p), SBX_OK);
	CHECK_STR(hex(&b), "000301010000000000000003");
	b.len = 0;
	CHECK_INT(sbx_ds_key_encode_meta(&b, c, PHOTO), SBX_OK);
	CHECK_STR(hex(&b), "000300");
	b.len = 0;
	CHECK_INT(sbx_ds_key_encode_qualifier(&b, cm), SBX_OK);
	CHECK_STR(hex(&b),
		  "00040200030100000000000000030101" "0000000000000002");
	sbx_buf row = {0};
	CHECK_INT(sbx_ds_key_encode_row(&row, cm), SBX_OK);
	CHECK_INT(sbx_ds_key_decode(&back, NULL, NULL, NULL, row.data,
				    row.len, b.data, b.len),
		  SBX_OK);
	CHECK(back && sbx_ds_key_compare(back, cm) == 0);
	CHECK_INT(sbx_ds_key_depth(back), 3);
	sbx_ds_key_free(back);
	b.len = 0;
	CHECK_INT(sbx_ds_key_encode_meta(&b, p, COMMENT), SBX_OK);
	CHECK_STR(hex(&b), "0004020003010000000000000003" "00");
	bool meta = false;
	uint16_t mk = 0;
	CHECK_INT(sbx_ds_key_decode(&back, &meta, &mk, NULL, row.data,
				    row.len, b.data, b.len),
		  SBX_OK);
	CHECK(meta);
	CHECK_INT(mk, COMMENT);
	CHECK(back && sbx_ds_key_compare(back, p) == 0);
	sbx_ds_key_free(back);
	/* without is_meta a metadata column is not an entity */
	CHECK_INT(sbx_ds_key_decode(&back, NULL, NULL, NULL, row.data,
				    row.len, b.data, b.len),
		  SBX_EINVAL);
	b.len = 0;
	CHECK_INT(sbx_ds_key_encode_row(&b, u), SBX_OK);
	CHECK_STR(hex(&b), "000202626f620001");
	/* the metadata sorts before the items, photos before comments */
	sbx_buf m1 = {0}, i1 = {0};
	sbx_ds_key_encode_meta(&m1, c, PHOTO);
	sbx_ds_key_encode_qualifier(&i1, p);
	CHECK(memcmp(m1.data, i1.data, m1.len) < 0);
	CHECK(sbx_ds_key_compare(p, cm) < 0);
	/* siblings sort by id */
	sbx_ds_key *p9 = child(c, PHOTO, 9), *p300 = child(c, PHOTO, 300);
	CHECK(sbx_ds_key_compare(p9, p300) < 0);
	CHECK(sbx_ds_key_compare(p300, p9) > 0);
	/* bad columns: a clear error, nothing returned */
	CHECK_INT(sbx_ds_key_decode(&back, NULL, NULL, NULL, row.data,
				    row.len, (const uint8_t *)"\x00\x03\x07",
				    3),
		  SBX_EINVAL);
	CHECK(back == NULL);
	CHECK(strstr(sbx_errmsg(), "flag 0x07") != NULL);
	CHECK_INT(sbx_ds_key_decode(&back, NULL, NULL, NULL, row.data,
				    row.len, (const uint8_t *)"\x00\x03\x01\x01\x00",
				    5),
		  SBX_EINVAL);
	CHECK(strstr(sbx_errmsg(), "8 bytes") != NULL);
	CHECK_INT(sbx_ds_key_decode(&back, NULL, NULL, NULL,
				    (const uint8_t *)"\x00", 1, b.data, b.len),
		  SBX_EINVAL);
	sbx_buf f = {0};
	CHECK_INT(sbx_ds_key_format(&f, NULL, cm), SBX_OK);
	CHECK_MEM(f.data, f.len, "1:7/3:3/4:2");
	f.len = 0;
	CHECK_INT(sbx_ds_key_format(&f, NULL, u), SBX_OK);
	CHECK_MEM(f.data, f.len, "2:'bob'");
	CHECK_INT(sbx_ds_key_root(&back, 0, 1), SBX_EINVAL);
	CHECK_INT(sbx_ds_key_child_bytes(&back, c, PHOTO, "", 0), SBX_EINVAL);
	sbx_buf_free(&f);
	sbx_buf_free(&m1);
	sbx_buf_free(&i1);
	sbx_buf_free(&b);
	sbx_buf_free(&row);
	sbx_ds_key_free(c);
	sbx_ds_key_free(p);
	sbx_ds_key_free(cm);
	sbx_ds_key_free(u);
	sbx_ds_key_free(p9);
	sbx_ds_key_free(p300);
}

static void test_put_get_delete(void)
{
	REQUIRE(setup("ds_crud", false));
	sbx_ds_key *c = root(7), *p = child(c, PHOTO, 3), *u = NULL;
	Dstest__Couple cp = DSTEST__COUPLE__INIT;
	cp.name = "alice+bob";
	CHECK_INT(sbx_ds_put(ds, NULL, c, &cp.base), SBX_OK);
	CHECK_INT(put_photo(NULL, p, "beach", 1000, "alice"), SBX_OK);
	ProtobufCMessage *m = NULL;
	CHECK_INT(sbx_ds_get(&m, ds, NULL, p), SBX_OK);
	CHECK_STR(caption_of(m), "beach");
	CHECK_INT(sbx_ds_get(&m, ds, NULL, c), SBX_OK);
	CHECK(m && !strcmp(((Dstest__Couple *)m)->name, "alice+bob"));
	sbx_ds_entity_free(m);
	uint64_t count = 9, next = 9;
	CHECK_INT(sbx_ds_collection_info(&count, &next, ds, NULL, c, PHOTO),
		  SBX_OK);
	CHECK_INT(count, 1);
	CHECK_INT(next, 4);
	/* replacing does not count again */
	CHECK_INT(put_photo(NULL, p, "beach 2", 1000, "alice"), SBX_OK);
	CHECK_INT(sbx_ds_collection_info(&count, &next, ds, NULL, c, PHOTO),
		  SBX_OK);
	CHECK_INT(count, 1);
	uint64_t id = 0;
	CHECK_INT(sbx_ds_allocate_id(&id, ds, NULL, c, PHOTO), SBX_OK);
	CHECK_INT(id, 4);
	CHECK_INT(sbx_ds_allocate_id(&id, ds, NULL, c, PHOTO), SBX_OK);
	CHECK_INT(id, 5);
	/* a wrong message type */
	CHECK_INT(sbx_ds_put(ds, NULL, p, &cp.base), SBX_EINVAL);
	CHECK(strstr(sbx_errmsg(), "dstest.Couple") != NULL);
	/* a bytes-id root in its own table */
	CHECK_INT(sbx_ds_key_root_bytes(&u, USER, "bob", 3), SBX_OK);
	Dstest__User us = DSTEST__USER__INIT;
	us.nickname = "Bob";
	CHECK_INT(sbx_ds_put(ds, NULL, u, &us.base), SBX_OK);
	CHECK_INT(sbx_ds_get(&m, ds, NULL, u), SBX_OK);
	CHECK(m && !strcmp(((Dstest__User *)m)->nickname, "Bob"));
	sbx_ds_entity_free(m);
	sbx_table *ut = NULL;
	CHECK_INT(sbx_table_open(&ut, db, "users"), SBX_OK);
	sbx_result *r = NULL;
	CHECK_INT(sbx_table_get(&r, ut, "\x00\x02\x02" "bob\x00\x01", 8, NULL),
		  SBX_OK);
	CHECK(sbx_result_get(r, SBX_DS_FAMILY, "\x00\x00", 2) != NULL);
	sbx_result_free(r);
	sbx_table_close(ut);
	/* delete */
	bool existed = false;
	CHECK_INT(sbx_ds_delete(&existed, ds, NULL, p), SBX_OK);
	CHECK(existed);
	CHECK_INT(sbx_ds_delete(&existed, ds, NULL, p), SBX_OK);
	CHECK(!existed);
	CHECK_INT(sbx_ds_get(&m, ds, NULL, p), SBX_OK);
	CHECK(m == NULL);
	CHECK_INT(sbx_ds_collection_info(&count, &next, ds, NULL, c, PHOTO),
		  SBX_OK);
	CHECK_INT(count, 0);
	CHECK_INT(next, 6);
	/* an unregistered kind */
	sbx_ds_key *x = child(c, 99, 1);
	CHECK_INT(sbx_ds_get(&m, ds, NULL, x), SBX_EINVAL);
	CHECK(strstr(sbx_errmsg(), "kind 99 is not registered") != NULL);
	sbx_ds_key_free(x);
	sbx_ds_key_free(c);
	sbx_ds_key_free(p);
	sbx_ds_key_free(u);
	teardown();
}

static void test_siblings(void)
{
	REQUIRE(setup("ds_siblings", false));
	sbx_ds_key *c = root(42), *k[13] = {0};
	sbx_txn *txn = NULL;
	sbx_txn_options o = quick();
	CHECK_INT(sbx_txn_begin_with(&txn, db, &o), SBX_OK);
	for (uint64_t i = 1; i <= 12; i++) {
		k[i] = child(c, PHOTO, i * 10);
		char cap[20];
		snprintf(cap, sizeof cap, "p%llu", (unsigned long long)i * 10);
		CHECK_INT(put_photo(txn, k[i], cap, i, "a"), SBX_OK);
	}
	/* inside the transaction that wrote the row */
	sbx_ds_iter *it = NULL;
	sbx_ds_range r;
	sbx_ds_range_init(&r);
	r.batch = 5;
	CHECK_INT(sbx_ds_scan_siblings(&it, ds, txn, c, PHOTO, &r), SBX_OK);
	CHECK_STR(ids_of(it), "10,20,30,40,50,60,70,80,90,100,110,120");
	CHECK_INT(sbx_txn_commit(txn), SBX_OK);
	/* comments under photo 20, and under photo 30, between the photos
	 * and nothing else in the row */
	sbx_ds_key *cm1 = child(k[2], COMMENT, 1), *cm2 = child(k[3], COMMENT, 1);
	Dstest__Comment cm = DSTEST__COMMENT__INIT;
	cm.text = "nice";
	CHECK_INT(sbx_ds_put(ds, NULL, cm1, &cm.base), SBX_OK);
	CHECK_INT(sbx_ds_put(ds, NULL, cm2, &cm.base), SBX_OK);
	CHECK_INT(sbx_ds_scan_siblings(&it, ds, NULL, c, PHOTO, &r), SBX_OK);
	CHECK_STR(ids_of(it), "10,20,30,40,50,60,70,80,90,100,110,120");
	r.from = k[3];
	r.to = k[7];
	CHECK_INT(sbx_ds_scan_siblings(&it, ds, NULL, c, PHOTO, &r), SBX_OK);
	CHECK_STR(ids_of(it), "30,40,50,60,70");
	r.from_inclusive = false;
	r.to_inclusive = false;
	CHECK_INT(sbx_ds_scan_siblings(&it, ds, NULL, c, PHOTO, &r), SBX_OK);
	CHECK_STR(ids_of(it), "40,50,60");
	r.reverse = true;
	CHECK_INT(sbx_ds_scan_siblings(&it, ds, NULL, c, PHOTO, &r), SBX_OK);
	CHECK_STR(ids_of(it), "60,50,40");
	sbx_ds_range_init(&r);
	r.reverse = true;
	r.limit = 4;
	r.batch = 3;
	CHECK_INT(sbx_ds_scan_siblings(&it, ds, NULL, c, PHOTO, &r), SBX_OK);
	CHECK_STR(ids_of(it), "120,110,100,90");
	/* paging newest first: the next page starts below the last id */
	r.to = k[8];
	r.to_inclusive = false;
	CHECK_INT(sbx_ds_scan_siblings(&it, ds, NULL, c, PHOTO, &r), SBX_OK);
	CHECK_STR(ids_of(it), "70,60,50,40");
	sbx_ds_range_init(&r);
	r.limit = 2;
	r.batch = 1;
	CHECK_INT(sbx_ds_scan_siblings(&it, ds, NULL, c, PHOTO, &r), SBX_OK);
	CHECK_STR(ids_of(it), "10,20");
	/* a limit below the batch: the last read asks for fewer columns */
	sbx_ds_range_init(&r);
	r.from = k[4];
	r.limit = 3;
	CHECK_INT(sbx_ds_scan_siblings(&it, ds, NULL, c, PHOTO, &r), SBX_OK);
	CHECK_STR(ids_of(it), "40,50,60");
	r.batch = 2;
	r.limit = 5;
	CHECK_INT(sbx_ds_scan_siblings(&it, ds, NULL, c, PHOTO, &r), SBX_OK);
	CHECK_STR(ids_of(it), "40,50,60,70,80");
	/* the comments of photo 20 */
	CHECK_INT(sbx_ds_scan_siblings(&it, ds, NULL, k[2], COMMENT, NULL),
		  SBX_OK);
	CHECK_STR(ids_of(it), "1");
	/* an empty collection */
	CHECK_INT(sbx_ds_scan_siblings(&it, ds, NULL, k[5], COMMENT, NULL),
		  SBX_OK);
	CHECK_STR(ids_of(it), "");
	/* from must be an item of the collection */
	sbx_ds_range_init(&r);
	r.from = cm1;
	CHECK_INT(sbx_ds_scan_siblings(&it, ds, NULL, c, PHOTO, &r),
		  SBX_EINVAL);
	CHECK(it == NULL);
	/* subtrees: photo 20 with its comment; the whole row */
	CHECK_INT(sbx_ds_get_tree(&it, ds, NULL, k[2]), SBX_OK);
	CHECK_STR(ids_of(it), "20,1");
	CHECK_INT(sbx_ds_get_tree(&it, ds, NULL, c), SBX_OK);
	CHECK_STR(ids_of(it), "10,20,30,40,50,60,70,80,90,100,110,120,1,1");
	for (int i = 1; i <= 12; i++)
		sbx_ds_key_free(k[i]);
	sbx_ds_key_free(cm1);
	sbx_ds_key_free(cm2);
	sbx_ds_key_free(c);
	teardown();
}

static void test_txn(void)
{
	REQUIRE(setup("ds_txn", false));
	sbx_ds_key *c = root(5), *p = child(c, PHOTO, 1);
	sbx_txn_options o = quick();
	sbx_txn *t1 = NULL, *t2 = NULL;
	CHECK_INT(sbx_txn_begin_with(&t1, db, &o), SBX_OK);
	CHECK_INT(put_photo(t1, p, "draft", 1, "a"), SBX_OK);
	ProtobufCMessage *m = NULL;
	CHECK_INT(sbx_ds_get(&m, ds, t1, p), SBX_OK); /* own write */
	CHECK_STR(caption_of(m), "draft");
	uint64_t count = 0;
	CHECK_INT(sbx_ds_collection_info(&count, NULL, ds, t1, c, PHOTO),
		  SBX_OK);
	CHECK_INT(count, 1);
	sbx_txn_rollback(t1);
	CHECK_INT(sbx_ds_get(&m, ds, NULL, p), SBX_OK);
	CHECK(m == NULL);
	CHECK_INT(sbx_ds_collection_info(&count, NULL, ds, NULL, c, PHOTO),
		  SBX_OK);
	CHECK_INT(count, 0);
	/* two transactions write the same collection: one conflicts */
	sbx_ds_key *p2 = child(c, PHOTO, 2);
	CHECK_INT(sbx_txn_begin_with(&t1, db, &o), SBX_OK);
	CHECK_INT(sbx_txn_begin_with(&t2, db, &o), SBX_OK);
	CHECK_INT(put_photo(t1, p, "one", 1, "a"), SBX_OK);
	CHECK_INT(put_photo(t2, p2, "two", 2, "a"), SBX_OK);
	CHECK_INT(sbx_txn_commit(t1), SBX_OK);
	CHECK_INT(sbx_txn_commit(t2), SBX_ECONFLICT);
	CHECK_INT(sbx_ds_collection_info(&count, NULL, ds, NULL, c, PHOTO),
		  SBX_OK);
	CHECK_INT(count, 1);
	sbx_ds_key_free(p2);
	sbx_ds_key_free(p);
	sbx_ds_key_free(c);
	teardown();
}

static void test_unknown_fields(void)
{
	REQUIRE(setup("ds_unknown", false));
	sbx_ds_key *c = root(1), *p = child(c, PHOTO, 1);
	/* v2 writes location (field 4) */
	Dstest2__Photo v2 = DSTEST2__PHOTO__INIT;
	v2.caption = "sunset";
	v2.location = "Jeju";
	v2.has_taken = true;
	v2.taken = 77;
	sbx_buf bytes = {0};
	REQUIRE(sbx_buf_reserve(&bytes, 256) == SBX_OK);
	bytes.len = protobuf_c_message_pack(&v2.base, bytes.data);
	Dstest__Photo *v1 =
	    dstest__photo__unpack(NULL, bytes.len, bytes.data);
	REQUIRE(v1 != NULL);
	CHECK_INT(v1->base.n_unknown_fields, 1);
	CHECK_INT(sbx_ds_put(ds, NULL, p, &v1->base), SBX_OK);
	dstest__photo__free_unpacked(v1, NULL);
	/* a v1 program reads it, changes the caption and writes it back */
	ProtobufCMessage *m = NULL;
	CHECK_INT(sbx_ds_get(&m, ds, NULL, p), SBX_OK);
	REQUIRE(m != NULL);
	Dstest__Photo *old = (Dstest__Photo *)m;
	CHECK_INT(old->base.n_unknown_fields, 1);
	Dstest__Photo upd = *old;
	upd.caption = "sunset at Jeju";
	CHECK_INT(sbx_ds_put(ds, NULL, p, &upd.base), SBX_OK);
	sbx_ds_entity_free(m);
	/* v2 reads it back: location is intact */
	sbx_table *t = NULL;
	sbx_buf row = {0}, q = {0};
	sbx_ds_key_encode_row(&row, p);
	sbx_ds_key_encode_qualifier(&q, p);
	CHECK_INT(sbx_table_open(&t, db, "couples"), SBX_OK);
	sbx_result *r = NULL;
	CHECK_INT(sbx_table_get(&r, t, row.data, row.len, NULL), SBX_OK);
	const sbx_cell *cell = sbx_result_get(r, SBX_DS_FAMILY, q.data, q.len);
	REQUIRE(cell != NULL);
	Dstest2__Photo *back =
	    dstest2__photo__unpack(NULL, cell->value_len, cell->value);
	REQUIRE(back != NULL);
	CHECK_STR(back->caption, "sunset at Jeju");
	CHECK_STR(back->location, "Jeju");
	CHECK_INT(back->taken, 77);
	dstest2__photo__free_unpacked(back, NULL);
	/* malformed bytes in the column: a clear error naming the key */
	sbx_txn_options o = quick();
	sbx_txn *txn = NULL;
	sbx_mutation *mu = NULL;
	CHECK_INT(sbx_txn_begin_with(&txn, db, &o), SBX_OK);
	CHECK_INT(sbx_mutation_new(&mu, row.data, row.len), SBX_OK);
	CHECK_INT(sbx_mutation_put(mu, SBX_DS_FAMILY, q.data, q.len,
				   SBX_LATEST_TIMESTAMP, "\x0a\xff\x01", 3),
		  SBX_OK);
	CHECK_INT(sbx_txn_mutate(txn, t, mu), SBX_OK);
	CHECK_INT(sbx_txn_commit(txn), SBX_OK);
	sbx_mutation_free(mu);
	CHECK_INT(sbx_ds_get(&m, ds, NULL, p), SBX_EBADVALUE);
	CHECK(m == NULL);
	CHECK_STR(sbx_errmsg(), "Couple:1/Photo:1: the stored entity (3 "
				"bytes) is not a valid dstest.Photo message");
	sbx_ds_iter *it = NULL;
	CHECK_INT(sbx_ds_get_tree(&it, ds, NULL, c), SBX_OK);
	CHECK_STR(ids_of(it), "!Couple:1/Photo:1: the stored entity (3 "
			      "bytes) is not a valid dstest.Photo message");
	CHECK_INT(sbx_ds_get_tree(&it, ds, NULL, c), SBX_OK);
	const sbx_ds_key *k;
	CHECK_INT(sbx_ds_iter_next(it, &k, &m), SBX_EBADVALUE);
	CHECK(strstr(sbx_errmsg(), "Couple:1/Photo:1") != NULL);
	CHECK_INT(sbx_ds_iter_next(it, &k, &m), SBX_EBADVALUE);
	CHECK_STR(sbx_errmsg(), "the iterator stopped at an earlier error");
	sbx_ds_iter_close(it);
	sbx_result_free(r);
	sbx_table_close(t);
	sbx_buf_free(&row);
	sbx_buf_free(&q);
	sbx_buf_free(&bytes);
	sbx_ds_key_free(p);
	sbx_ds_key_free(c);
	teardown();
}

static const char *owners_of(sbx_ds_iter *it)
{
	static char s[2000];
	size_t n = 0;
	s[0] = 0;
	const sbx_ds_key *k;
	ProtobufCMessage *m;
	int rc;
	while ((rc = sbx_ds_iter_next(it, &k, &m)) == SBX_OK) {
		Dstest__Photo *p = (Dstest__Photo *)m;
		n += (size_t)snprintf(s + n, sizeof s - n, "%s%llu:%s:%llu",
				      n ? "," : "",
				      (unsigned long long)sbx_ds_key_id(k),
				      p->owner,
				      (unsigned long long)p->taken);
		sbx_ds_entity_free(m);
	}
	if (rc != SBX_ITEROVER)
		snprintf(s + n, sizeof s - n, "!%s", sbx_errmsg());
	sbx_ds_iter_close(it);
	return s;
}

static void test_indexes(void)
{
	REQUIRE(setup("ds_index", true));
	sbx_ds_key *c = root(9), *c2 = root(10), *p[6] = {0};
	const char *owner[6] = {"", "bob", "alice", "bob", "carol", "alice"};
	uint64_t taken[6] = {0, 500, 300, 900, 100, 700};
	for (int i = 1; i <= 5; i++) {
		p[i] = child(i == 4 ? c2 : c, PHOTO, (uint64_t)i);
		CHECK_INT(put_photo(NULL, p[i], "x", taken[i], owner[i]),
			  SBX_OK);
	}
	CHECK_INT(trig_puts, 5);
	/* photos of couple 9, newest first: taken is descending in the key */
	sbx_keycond cond = {"root", SBX_KEYCOND_EQ, "9", 1};
	sbx_ds_iter *it = NULL;
	CHECK_INT(sbx_ds_index_scan(&it, ds, NULL, "by_taken", &cond, 1, false,
				    0),
		  SBX_OK);
	CHECK_STR(owners_of(it), "3:bob:900,5:alice:700,1:bob:500,2:alice:300");
	CHECK_INT(sbx_ds_index_scan(&it, ds, NULL, "by_taken", &cond, 1, true,
				    2),
		  SBX_OK);
	CHECK_STR(owners_of(it), "2:alice:300,1:bob:500");
	sbx_keycond range[2] = {{"root", SBX_KEYCOND_EQ, "9", 1},
				{"taken", SBX_KEYCOND_LT, "700", 3}};
	CHECK_INT(sbx_ds_index_scan(&it, ds, NULL, "by_taken", range, 2,
				    false, 0),
		  SBX_OK);
	CHECK_STR(owners_of(it), "1:bob:500,2:alice:300");
	/* the salted clustered index, merged back into owner order */
	CHECK_INT(sbx_ds_index_scan(&it, ds, NULL, "by_owner", NULL, 0, false,
				    0),
		  SBX_OK);
	CHECK_STR(owners_of(it),
		  "2:alice:300,5:alice:700,1:bob:500,3:bob:900,4:carol:100");
	sbx_keycond bob = {"owner", SBX_KEYCOND_EQ, "bob", 3};
	CHECK_INT(sbx_ds_index_scan(&it, ds, NULL, "by_owner", &bob, 1, true,
				    0),
		  SBX_OK);
	CHECK_STR(owners_of(it), "3:bob:900,1:bob:500");
	/* an update moves the entity in both indexes */
	CHECK_INT(put_photo(NULL, p[1], "x", 1000, "carol"), SBX_OK);
	CHECK_INT(sbx_ds_index_scan(&it, ds, NULL, "by_taken", &cond, 1, false,
				    0),
		  SBX_OK);
	CHECK_STR(owners_of(it),
		  "1:carol:1000,3:bob:900,5:alice:700,2:alice:300");
	CHECK_INT(sbx_ds_index_scan(&it, ds, NULL, "by_owner", &bob, 1, false,
				    0),
		  SBX_OK);
	CHECK_STR(owners_of(it), "3:bob:900");
	/* a photo without an owner is not in by_owner */
	Dstest__Photo np = DSTEST__PHOTO__INIT;
	np.has_taken = true;
	np.taken = 50;
	sbx_ds_key *p6 = child(c, PHOTO, 6);
	CHECK_INT(sbx_ds_put(ds, NULL, p6, &np.base), SBX_OK);
	CHECK_INT(sbx_ds_index_scan(&it, ds, NULL, "by_owner", NULL, 0, false,
				    0),
		  SBX_OK);
	CHECK_STR(owners_of(it),
		  "2:alice:300,5:alice:700,3:bob:900,1:carol:1000,4:carol:100");
	/* delete removes the index rows, in the same transaction */
	bool existed;
	CHECK_INT(sbx_ds_delete(&existed, ds, NULL, p[3]), SBX_OK);
	CHECK_INT(trig_deletes, 1);
	CHECK_INT(sbx_ds_index_scan(&it, ds, NULL, "by_taken", &cond, 1, false,
				    0),
		  SBX_OK);
	CHECK_STR(ids_of(it), "1,5,2,6");
	/* inside a transaction, an index scan sees its own writes */
	sbx_txn_options to = quick();
	sbx_txn *txn = NULL;
	CHECK_INT(sbx_txn_begin_with(&txn, db, &to), SBX_OK);
	sbx_ds_key *p7 = child(c, PHOTO, 7);
	CHECK_INT(put_photo(txn, p7, "x", 9999, "dave"), SBX_OK);
	CHECK_INT(sbx_ds_index_scan(&it, ds, txn, "by_taken", &cond, 1, false,
				    2),
		  SBX_OK);
	CHECK_STR(owners_of(it), "7:dave:9999,1:carol:1000");
	sbx_txn_rollback(txn);
	sbx_ds_key_free(p7);
	CHECK_INT(sbx_ds_index_scan(&it, ds, NULL, "by_taken", &cond, 1, false,
				    1),
		  SBX_OK);
	CHECK_STR(owners_of(it), "1:carol:1000");
	/* a failing trigger fails the write: nothing of it is visible */
	trig_fail = SBX_EBADVALUE;
	CHECK_INT(put_photo(NULL, p[2], "x", 1, "zed"), SBX_EBADVALUE);
	trig_fail = 0;
	CHECK_INT(sbx_ds_index_scan(&it, ds, NULL, "by_owner", &bob, 1, false,
				    0),
		  SBX_OK);
	CHECK_STR(owners_of(it), "");
	sbx_keycond zed = {"owner", SBX_KEYCOND_EQ, "zed", 3};
	CHECK_INT(sbx_ds_index_scan(&it, ds, NULL, "by_owner", &zed, 1, false,
				    0),
		  SBX_OK);
	CHECK_STR(owners_of(it), "");
	/* the full scan agrees */
	CHECK_INT(sbx_ds_scan_kind(&it, ds, NULL, PHOTO, COUPLE), SBX_OK);
	CHECK_STR(ids_of(it), "1,2,5,6,4");
	/* bad declarations and queries */
	CHECK_INT(sbx_ds_index_scan(&it, ds, NULL, "nope", NULL, 0, false, 0),
		  SBX_EINVAL);
	sbx_keycond badc = {"color", SBX_KEYCOND_EQ, "red", 3};
	CHECK_INT(sbx_ds_index_scan(&it, ds, NULL, "by_owner", &badc, 1, false,
				    0),
		  SBX_EINVAL);
	sbx_ds_index_desc late = {"late", PHOTO, "id:u64",
				  SBX_DS_INDEX_REFERENCE, NULL};
	CHECK_INT(sbx_ds_add_index(ds, &late), SBX_EBUSY);
	for (int i = 1; i <= 5; i++)
		sbx_ds_key_free(p[i]);
	sbx_ds_key_free(p6);
	sbx_ds_key_free(c);
	sbx_ds_key_free(c2);
	teardown();
}

/* A reference index over photos of many couples (one row each). */
static const sbx_ds_index_desc by_owner_ref = {"by_owner_ref", PHOTO,
					       "owner:str + key:bytes",
					       SBX_DS_INDEX_REFERENCE, NULL};

/* sbx_txn_run's function: the ids by_owner_ref lists for bob; on the
 * first attempt, once it has the first, another transaction deletes
 * `victim` (committed before the iterator reads on). */
typedef struct scan_run {
	const sbx_ds_key *victim;
	int attempts;
	char ids[100];
} scan_run;

static int scan_and_delete(sbx_txn *txn, void *arg)
{
	scan_run *r = arg;
	r->attempts++;
	r->ids[0] = 0;
	sbx_keycond bob = {"owner", SBX_KEYCOND_EQ, "bob", 3};
	sbx_ds_iter *it = NULL;
	int rc =
	    sbx_ds_index_scan(&it, ds, txn, "by_owner_ref", &bob, 1, false, 0);
	const sbx_ds_key *k;
	ProtobufCMessage *m;
	size_t n = 0;
	while (rc == SBX_OK && (rc = sbx_ds_iter_next(it, &k, &m)) == SBX_OK) {
		n += (size_t)snprintf(r->ids + n, sizeof r->ids - n, "%s%llu",
				      n ? "," : "",
				      (unsigned long long)sbx_ds_key_id(k));
		sbx_ds_entity_free(m);
		if (r->attempts == 1 && r->victim) {
			bool existed = false;
			CHECK_INT(sbx_ds_delete(&existed, ds, NULL, r->victim),
				  SBX_OK);
			CHECK(existed);
			r->victim = NULL;
		}
	}
	sbx_ds_iter_close(it);
	return rc == SBX_ITEROVER ? SBX_OK : rc;
}

/*
 * A reference index scan reads an index row, then its entity. An entity
 * deleted by another transaction in between (its index row with it) is a
 * race, not a damaged index: SBX_ECONFLICT, which sbx_txn_run retries.
 * Only an index row whose entity is missing while the row itself is
 * unchanged is SBX_EBADVALUE. Each photo here is in a couple row of its
 * own, which the scan has not read before it reads the photo (within one
 * couple's row, the photo read before already put the row in the read
 * set, and the delete was a conflict on it). The order is exact: the scan
 * has read the next index row before the delete commits (the embedded
 * store's scan reads the snapshot taken when it opened; over REST, the
 * page fetched then), and reads the entity after it.
 */
static void test_index_entity_deleted(void)
{
	REQUIRE(setup_with("ds_index_deleted", true, &by_owner_ref));
	sbx_ds_key *c[5] = {0}, *p[5] = {0};
	for (int i = 1; i <= 4; i++) {
		c[i] = root((uint64_t)i);
		p[i] = child(c[i], PHOTO, (uint64_t)i);
		CHECK_INT(put_photo(NULL, p[i], "x", 100, "bob"), SBX_OK);
	}
	sbx_keycond bob = {"owner", SBX_KEYCOND_EQ, "bob", 3};
	const sbx_ds_key *k;
	ProtobufCMessage *m = NULL;
	bool existed = false;
	sbx_ds_iter *it = NULL;
	CHECK_INT(sbx_ds_index_scan(&it, ds, NULL, "by_owner_ref", &bob, 1,
				    false, 0),
		  SBX_OK);
	CHECK_STR(ids_of(it), "1,2,3,4");
	/* in the caller's transaction: photo 2 goes after photo 1 was read */
	sbx_txn_options to = quick();
	sbx_txn *txn = NULL;
	CHECK_INT(sbx_txn_begin_with(&txn, db, &to), SBX_OK);
	CHECK_INT(sbx_ds_index_scan(&it, ds, txn, "by_owner_ref", &bob, 1,
				    false, 0),
		  SBX_OK);
	CHECK_INT(sbx_ds_iter_next(it, &k, &m), SBX_OK);
	CHECK_INT(sbx_ds_key_id(k), 1);
	sbx_ds_entity_free(m);
	CHECK_INT(sbx_ds_delete(&existed, ds, NULL, p[2]), SBX_OK);
	CHECK(existed);
	CHECK_INT(sbx_ds_iter_next(it, &k, &m), SBX_ECONFLICT);
	CHECK(strstr(sbx_errmsg(), "Couple:2/Photo:2") != NULL);
	CHECK(strstr(sbx_errmsg(),
		     "changed since this transaction first read it") != NULL);
	sbx_ds_iter_close(it);
	sbx_txn_rollback(txn);
	/* through sbx_txn_run: the conflict is retried, photo 3 is gone */
	scan_run run = {.victim = p[3]};
	int attempts = 0;
	CHECK_INT(sbx_txn_run(&attempts, db, &to, scan_and_delete, &run),
		  SBX_OK);
	CHECK_INT(attempts, 2);
	CHECK_INT(run.attempts, 2);
	CHECK_STR(run.ids, "1,4");
	/* in the iterator's own transaction: the same conflict */
	CHECK_INT(sbx_ds_index_scan(&it, ds, NULL, "by_owner_ref", &bob, 1,
				    false, 0),
		  SBX_OK);
	CHECK_INT(sbx_ds_iter_next(it, &k, &m), SBX_OK);
	CHECK_INT(sbx_ds_key_id(k), 1);
	sbx_ds_entity_free(m);
	CHECK_INT(sbx_ds_delete(&existed, ds, NULL, p[4]), SBX_OK);
	CHECK_INT(sbx_ds_iter_next(it, &k, &m), SBX_ECONFLICT);
	sbx_ds_iter_close(it);
	/* photo 1's column deleted behind the datastore's back: its index
	 * row dangles, unchanged, and that is SBX_EBADVALUE */
	sbx_table *t = NULL;
	sbx_buf row = {0}, q = {0};
	CHECK_INT(sbx_ds_key_encode_row(&row, p[1]), SBX_OK);
	CHECK_INT(sbx_ds_key_encode_qualifier(&q, p[1]), SBX_OK);
	CHECK_INT(sbx_table_open(&t, db, "couples"), SBX_OK);
	sbx_mutation *mu = NULL;
	CHECK_INT(sbx_txn_begin_with(&txn, db, &to), SBX_OK);
	CHECK_INT(sbx_mutation_new(&mu, row.data, row.len), SBX_OK);
	CHECK_INT(sbx_mutation_delete(mu, SBX_CELL_DELETE_COLUMN,
				      SBX_DS_FAMILY, q.data, q.len,
				      SBX_LATEST_TIMESTAMP),
		  SBX_OK);
	CHECK_INT(sbx_txn_mutate(txn, t, mu), SBX_OK);
	CHECK_INT(sbx_txn_commit(txn), SBX_OK);
	sbx_mutation_free(mu);
	CHECK_INT(sbx_ds_index_scan(&it, ds, NULL, "by_owner_ref", &bob, 1,
				    false, 0),
		  SBX_OK);
	CHECK_INT(sbx_ds_iter_next(it, &k, &m), SBX_EBADVALUE);
	CHECK(strstr(sbx_errmsg(), "index by_owner_ref: row ") != NULL);
	CHECK(strstr(sbx_errmsg(),
		     "it refers to Couple:1/Photo:1, which does not exist") !=
	      NULL);
	sbx_ds_iter_close(it);
	sbx_table_close(t);
	sbx_buf_free(&row);
	sbx_buf_free(&q);
	for (int i = 1; i <= 4; i++) {
		sbx_ds_key_free(p[i]);
		sbx_ds_key_free(c[i]);
	}
	teardown();
}

/* An index whose design gives two entities one row: `id` is the last
 * element's id, unique only among its siblings (the couple example's
 * user index is such a design: a user id in two couples). */
static const sbx_ds_index_desc by_id_only = {"by_id_only", PHOTO, "id:u64",
					     SBX_DS_INDEX_REFERENCE, NULL};

/*
 * A put whose index row already refers to another entity is refused
 * (SBX_EEXISTS, naming both, nothing of the put written): writing over the
 * other entity's reference would lose it silently. The entity's own row
 * (a re-put) is not a clash, and a row freed by a delete can be taken.
 */
static void test_index_row_taken(void)
{
	REQUIRE(setup_with("ds_index_taken", true, &by_id_only));
	sbx_ds_key *c1 = root(1), *c2 = root(2);
	sbx_ds_key *a = child(c1, PHOTO, 7), *b = child(c2, PHOTO, 7);
	sbx_keycond seven = {"id", SBX_KEYCOND_EQ, "7", 1};
	sbx_ds_iter *it = NULL;
	ProtobufCMessage *m = NULL;
	const sbx_ds_key *k;
	CHECK_INT(put_photo(NULL, a, "first", 100, "bob"), SBX_OK);
	CHECK_INT(put_photo(NULL, a, "again", 100, "bob"), SBX_OK); /* own */
	CHECK_INT(put_photo(NULL, b, "second", 200, "eve"), SBX_EEXISTS);
	CHECK(strstr(sbx_errmsg(), "index by_id_only") != NULL);
	CHECK(strstr(sbx_errmsg(), "already refers to") != NULL);
	/* nothing of the refused put: no entity, the row still a's */
	CHECK_INT(sbx_ds_get(&m, ds, NULL, b), SBX_OK);
	CHECK(m == NULL);
	CHECK_INT(sbx_ds_index_scan(&it, ds, NULL, "by_id_only", &seven, 1,
				    false, 0),
		  SBX_OK);
	CHECK_INT(sbx_ds_iter_next(it, &k, &m), SBX_OK);
	sbx_ds_key *r = NULL;
	CHECK(sbx_ds_key_prefix(&r, k, 1) == SBX_OK && sbx_ds_key_id(r) == 1);
	sbx_ds_key_free(r);
	CHECK_STR(caption_of(m), "again");
	sbx_ds_iter_close(it);
	/* a deleted: its row goes with it, and b can take it */
	bool existed = false;
	CHECK_INT(sbx_ds_delete(&existed, ds, NULL, a), SBX_OK);
	CHECK(existed);
	CHECK_INT(put_photo(NULL, b, "second", 200, "eve"), SBX_OK);
	CHECK_INT(sbx_ds_index_scan(&it, ds, NULL, "by_id_only", &seven, 1,
				    false, 0),
		  SBX_OK);
	CHECK_INT(sbx_ds_iter_next(it, &k, &m), SBX_OK);
	r = NULL;
	CHECK(sbx_ds_key_prefix(&r, k, 1) == SBX_OK && sbx_ds_key_id(r) == 2);
	sbx_ds_key_free(r);
	CHECK_STR(caption_of(m), "second");
	sbx_ds_iter_close(it);
	sbx_ds_key_free(a);
	sbx_ds_key_free(b);
	sbx_ds_key_free(c1);
	sbx_ds_key_free(c2);
	teardown();
}

static void test_declarations(void)
{
	sbx_db *d = open_fresh("ds_decl");
	REQUIRE(d != NULL);
	sbx_ds *x = NULL;
	CHECK_INT(sbx_ds_open(&x, d, "t", NULL), SBX_OK);
	sbx_ds_kind_desc k = {PHOTO, "Photo", &dstest__photo__descriptor, NULL,
			      NULL};
	CHECK_INT(sbx_ds_register_kind(x, &k), SBX_OK);
	CHECK_INT(sbx_ds_register_kind(x, &k), SBX_EINVAL);
	sbx_ds_kind_desc k2 = {COUPLE, "Couple", &dstest__couple__descriptor,
			       NULL, "salt(8) + id:u64 + name:str"};
	CHECK_INT(sbx_ds_register_kind(x, &k2), SBX_EINVAL);
	CHECK(strstr(sbx_errmsg(), "name") != NULL);
	k2.row_design = "salt(8) + id:u64";
	CHECK_INT(sbx_ds_register_kind(x, &k2), SBX_OK);
	sbx_ds_index_desc ix = {"i", PHOTO, "taken:u64", SBX_DS_INDEX_REFERENCE,
				NULL};
	CHECK_INT(sbx_ds_add_index(x, &ix), SBX_EINVAL);
	CHECK(strstr(sbx_errmsg(), "must use id or key") != NULL);
	ix.design = "color:str + id:u64";
	CHECK_INT(sbx_ds_add_index(x, &ix), SBX_EINVAL);
	CHECK_STR(sbx_errmsg(),
		  "index i: 'color' is not a field of message dstest.Photo");
	ix.design = "taken:u64 +";
	CHECK_INT(sbx_ds_add_index(x, &ix), SBX_EINVAL);
	ix.design = "md5(owner) + taken:u64 + id:u64";
	CHECK_INT(sbx_ds_add_index(x, &ix), SBX_OK);
	sbx_ds_index_desc ix2 = {"j", PHOTO,
				 "salt(4, of=owner) + owner:str + "
				 "md5(owner, id, bytes=4) + id:u64",
				 SBX_DS_INDEX_CLUSTERED, NULL};
	CHECK_INT(sbx_ds_add_index(x, &ix2), SBX_OK);
	/* not prepared yet */
	sbx_ds_key *c = NULL;
	CHECK_INT(sbx_ds_key_root(&c, COUPLE, 12345), SBX_OK);
	ProtobufCMessage *m;
	CHECK_INT(sbx_ds_get(&m, x, NULL, c), SBX_EINVAL);
	CHECK_INT(sbx_ds_prepare(x), SBX_OK);
	CHECK_INT(sbx_ds_prepare(x), SBX_EBUSY);
	/* a designed row key: the salt first, decoded back */
	Dstest__Couple cp = DSTEST__COUPLE__INIT;
	cp.name = "c";
	CHECK_INT(sbx_ds_put(x, NULL, c, &cp.base), SBX_OK);
	sbx_ds_key *p = child(c, PHOTO, 2);
	Dstest__Photo ph = DSTEST__PHOTO__INIT;
	ph.owner = "o";
	ph.has_taken = true;
	ph.taken = 3;
	CHECK_INT(sbx_ds_put(x, NULL, p, &ph.base), SBX_OK);
	sbx_ds_iter *it = NULL;
	CHECK_INT(sbx_ds_scan_kind(&it, x, NULL, PHOTO, COUPLE), SBX_OK);
	CHECK_STR(ids_of(it), "2");
	CHECK_INT(sbx_ds_index_scan(&it, x, NULL, "i", NULL, 0, false, 0),
		  SBX_OK);
	CHECK_STR(ids_of(it), "2");
	sbx_keycond o = {"owner", SBX_KEYCOND_EQ, "o", 1};
	CHECK_INT(sbx_ds_index_scan(&it, x, NULL, "j", &o, 1, false, 0),
		  SBX_OK);
	CHECK_STR(ids_of(it), "2");
	sbx_table *t = NULL;
	CHECK_INT(sbx_table_open(&t, d, "t"), SBX_OK);
	sbx_scanner *s = NULL;
	CHECK_INT(sbx_scanner_open(&s, t, NULL), SBX_OK);
	sbx_result *r = NULL;
	CHECK_INT(sbx_scanner_next(s, &r), SBX_OK);
	size_t len = 0;
	const uint8_t *row = sbx_result_row(r, &len);
	CHECK_INT(len, 9); /* salt byte + 8-byte id */
	CHECK(len == 9 && row[1] == 0 && row[8] == 0x39); /* 12345 = 0x3039 */
	sbx_ds_key *back = NULL;
	CHECK_INT(sbx_ds_key_decode(&back, NULL, NULL, x, row, len,
				    (const uint8_t *)"\x00\x00", 2),
		  SBX_OK);
	CHECK_INT(sbx_ds_key_id(back), 12345);
	sbx_ds_key_free(back);
	sbx_result_free(r);
	sbx_scanner_close(s);
	sbx_table_close(t);
	uint64_t rid = 0;
	CHECK_INT(sbx_ds_random_id(&rid), SBX_OK);
	sbx_ds_key *rk = NULL;
	CHECK_INT(sbx_ds_key_root_random(&rk, COUPLE), SBX_OK);
	CHECK(rk && sbx_ds_key_id(rk) != rid); /* 1 in 2^64 */
	sbx_ds_key_free(rk);
	sbx_ds_key_free(p);
	sbx_ds_key_free(c);
	sbx_ds_close(x);
	sbx_db_close(d);
}

static void test_view(void)
{
	REQUIRE(setup("ds_view", false));
	sbx_ds_key *c = root(7), *p1 = child(c, PHOTO, 1), *p2 = child(c, PHOTO, 2),
		   *cm = child(p1, COMMENT, 1);
	Dstest__Couple cp = DSTEST__COUPLE__INIT;
	cp.name = "alice+bob";
	cp.has_since = true;
	cp.since = 20110101;
	CHECK_INT(sbx_ds_put(ds, NULL, c, &cp.base), SBX_OK);
	CHECK_INT(put_photo(NULL, p1, "beach", 1000, "alice"), SBX_OK);
	CHECK_INT(put_photo(NULL, p2, "say \"hi\"", 2000, "bob"), SBX_OK);
	Dstest__Comment co = DSTEST__COMMENT__INIT;
	co.text = "nice";
	CHECK_INT(sbx_ds_put(ds, NULL, cm, &co.base), SBX_OK);
	sbx_table *t = NULL;
	sbx_buf row = {0}, out = {0};
	sbx_ds_key_encode_row(&row, c);
	CHECK_INT(sbx_table_open(&t, db, "couples"), SBX_OK);
	sbx_column fam = {SBX_DS_FAMILY, NULL, 0};
	sbx_read_opts o;
	sbx_read_opts_init(&o);
	o.columns = &fam;
	o.ncolumns = 1;
	sbx_result *r = NULL;
	CHECK_INT(sbx_table_get(&r, t, row.data, row.len, &o), SBX_OK);
	size_t n = 0;
	const sbx_cell *cells = sbx_result_cells(r, &n);
	CHECK_INT(n, 6);
	CHECK_INT(sbx_ds_format_row(&out, ds, cells, n), SBX_OK);
	CHECK_MEM(out.data, out.len,
		  "Couple:7 {name: \"alice+bob\", since: 20110101}\n"
		  "  Photo: count 2, next id 3\n"
		  "  Photo:1 {caption: \"beach\", taken: 1000, owner: \"alice\"}\n"
		  "    Comment: count 1, next id 2\n"
		  "    Comment:1 {text: \"nice\"}\n"
		  "  Photo:2 {caption: \"say \\\"hi\\\"\", taken: 2000, owner: "
		  "\"bob\"}\n");
	/* without a datastore: kinds and fields by number */
	out.len = 0;
	CHECK_INT(sbx_ds_format_row(&out, NULL, cells, 2), SBX_OK);
	CHECK_MEM(out.data, out.len,
		  "1:7 {1: \"alice+bob\", 2: 20110101}\n"
		  "  3: count 2, next id 3\n");
	/* bytes that are not protobuf, a column that is not the datastore's */
	out.len = 0;
	CHECK_INT(sbx_ds_format_entity(&out, NULL, NULL,
				       (const uint8_t *)"\x08\x96\x01\x12\x02\x00\x01", 7),
		  SBX_OK);
	CHECK_MEM(out.data, out.len, "{1: 150, 2: 0x0001}");
	out.len = 0;
	CHECK_INT(sbx_ds_format_entity(&out, NULL, NULL,
				       (const uint8_t *)"\x0a\x05" "ab", 4),
		  SBX_EBADVALUE);
	CHECK_STR(sbx_errmsg(), "byte 2: a field of 5 bytes runs past the end");
	sbx_cell odd = cells[0];
	odd.qualifier = (const uint8_t *)"zz";
	odd.qualifier_len = 2;
	sbx_cell two[2] = {cells[0], odd};
	two[0].value = (const uint8_t *)"\x0f";
	two[0].value_len = 1;
	out.len = 0;
	CHECK_INT(sbx_ds_format_row(&out, ds, two, 2), SBX_OK);
	CHECK_MEM(out.data, out.len,
		  "Couple:7 (malformed entity: byte 0: wire type 7 is not 0, 1, "
		  "2 or 5)\n"
		  "not a datastore column: zz (byte 2: the qualifier ends "
		  "before its flag byte)\n");
	sbx_result_free(r);
	sbx_table_close(t);
	sbx_buf_free(&row);
	sbx_buf_free(&out);
	sbx_ds_key_free(c);
	sbx_ds_key_free(p1);
	sbx_ds_key_free(p2);
	sbx_ds_key_free(cm);
	teardown();
}

/* `saltbox ds tree` on a store this test wrote, and its usage errors */
static void test_cli(void)
{
	char dir[4096], store[4200];
	snprintf(dir, sizeof dir, "%s", test_dir("ds_cli"));
	/* the command reaches the store the test uses: a directory, or the
	 * gateway or Bigtable instance by URL */
	if (test_client())
		snprintf(store, sizeof store, "--connect '%s'",
			 getenv("SBX_TEST_URL"));
	else
		snprintf(store, sizeof store, "--data '%s'", dir);
	db = open_at(dir, true);
	REQUIRE(db != NULL);
	sbx_txn_options o = quick();
	REQUIRE(sbx_ds_open(&ds, db, "couples", &o) == SBX_OK);
	sbx_ds_kind_desc k[] = {
	    {COUPLE, "Couple", &dstest__couple__descriptor, NULL, NULL},
	    {PHOTO, "Photo", &dstest__photo__descriptor, NULL, NULL},
	};
	REQUIRE(sbx_ds_register_kind(ds, &k[0]) == SBX_OK);
	REQUIRE(sbx_ds_register_kind(ds, &k[1]) == SBX_OK);
	REQUIRE(sbx_ds_prepare(ds) == SBX_OK);
	sbx_ds_key *c = root(7), *p = child(c, PHOTO, 1);
	CHECK_INT(put_photo(NULL, p, "beach", 1000, "alice"), SBX_OK);
	sbx_ds_key_free(p);
	sbx_ds_key_free(c);
	teardown();
	char args[4400];
	snprintf(args, sizeof args, "ds tree %s --kinds 3=Photo couples "
		 "'\\x00\\x01\\x01\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x07'",
		 store);
	CHECK_INT(run_saltbox(args), 0);
	CHECK_STR(cli_out, "  Photo: count 1, next id 2\n"
			   "  Photo:1 {1: \"beach\", 2: 1000, 3: \"alice\"}\n");
	snprintf(args, sizeof args, "ds tree %s couples --root 1:8",
		 store);
	CHECK_INT(run_saltbox(args), 1);
	CHECK_OUT("saltbox ds: no such row in couples");
	snprintf(args, sizeof args, "ds tree %s couples --root x",
		 store);
	CHECK_INT(run_saltbox(args), 2);
	CHECK_OUT("--root wants KIND:ID");
	snprintf(args, sizeof args,
		 "ds tree %s --kinds Photo couples --root 1:7", store);
	CHECK_INT(run_saltbox(args), 1);
	CHECK_OUT("--kinds wants N=Name");
	CHECK_INT(run_saltbox("ds tree couples"), 2);
	CHECK_OUT("usage: saltbox ds tree");
	CHECK_INT(run_saltbox("ds --help"), 0);
	CHECK_OUT("print a row as its entity tree");
}

static int64_t fake_now;
static int64_t fake_clock(void) { return fake_now; }

/* Allocation failures at each allocation of an indexed put, one by one:
 * every call fails cleanly (SBX_ENOMEM) or succeeds, and afterwards the
 * entity and both indexes agree (ASan: nothing leaks). */
static void test_out_of_memory(void)
{
	SKIP_ON_REMOTE("allocation failures in the REST client read as "
		       "SBX_EREMOTE");
	REQUIRE(setup("ds_oom", true));
	sbx_ds_key *c = root(9), *p = child(c, PHOTO, 1);
	REQUIRE(put_photo(NULL, p, "x", 1, "bob") == SBX_OK);
	fake_now = sbx_clock_now_ms() + 1000;
	sbx_clock_set(fake_clock);
	sbx_keycond cond = {"root", SBX_KEYCOND_EQ, "9", 1};
	long n;
	bool clean = false;
	for (n = 0; n < 5000 && !clean; n++) {
		sbx_alloc_fail_after(n);
		int rc = put_photo(NULL, p, "x", 100 + (uint64_t)n,
				   n % 2 ? "alice" : "carol");
		sbx_ds_iter *it = NULL;
		if (rc == SBX_OK)
			rc = sbx_ds_get_tree(&it, ds, NULL, c);
		if (rc == SBX_OK) {
			const sbx_ds_key *k;
			ProtobufCMessage *m = NULL;
			while ((rc = sbx_ds_iter_next(it, &k, &m)) == SBX_OK)
				sbx_ds_entity_free(m);
			if (rc == SBX_ITEROVER)
				rc = SBX_OK;
		}
		sbx_ds_iter_close(it);
		long failed = sbx_alloc_failed();
		sbx_alloc_fail_after(-1);
		clean = rc == SBX_OK && failed == 0;
		if (rc != SBX_OK && rc != SBX_ENOMEM)
			fprintf(stderr, "n=%ld rc=%s %s\n", n, sbx_strerror(rc),
				sbx_errmsg());
		CHECK(rc == SBX_OK || rc == SBX_ENOMEM);
		fake_now += 301; /* locks a failed commit left expire */
		/* the entity and its index rows agree */
		ProtobufCMessage *m = NULL;
		CHECK_INT(sbx_ds_get(&m, ds, NULL, p), SBX_OK);
		char want[100];
		snprintf(want, sizeof want, "1:%s:%llu",
			 m ? ((Dstest__Photo *)m)->owner : "?",
			 m ? (unsigned long long)((Dstest__Photo *)m)->taken
			   : 0ULL);
		sbx_ds_entity_free(m);
		sbx_ds_iter *it2 = NULL;
		CHECK_INT(sbx_ds_index_scan(&it2, ds, NULL, "by_taken", &cond, 1,
					    false, 0),
			  SBX_OK);
		CHECK_STR(owners_of(it2), want);
		CHECK_INT(sbx_ds_index_scan(&it2, ds, NULL, "by_owner", NULL, 0,
					    false, 0),
			  SBX_OK);
		CHECK_STR(owners_of(it2), want);
	}
	sbx_clock_set(NULL);
	CHECK(clean);
	CHECK(n > 20);
	printf("[%s] out of memory at each of %ld allocations, then clean\n",
	       check_current, n - 1);
	sbx_ds_key_free(p);
	sbx_ds_key_free(c);
	teardown();
}

TEST_MAIN(T(test_layout), T(test_view), T(test_cli), T(test_out_of_memory), T(test_put_get_delete), T(test_siblings),
	  T(test_txn), T(test_unknown_fields), T(test_indexes),
	  T(test_index_entity_deleted), T(test_index_row_taken),
	  T(test_declarations))
