/*
 * ops.c - entity writes and reads: put, get and delete of one entity, a
 * collection's metadata (count, next id) kept in the same transaction as
 * its items, triggers and index upkeep, and auto-commit (a transaction of
 * the call's own, retried on conflict).
 */
#include "ds_int.h"

#include "common/alloc.h"
#include "common/error.h"

#include <stdlib.h>
#include <string.h>

int ds_begin(sbx_txn **out, sbx_ds *ds)
{
	return sbx_txn_begin_with(out, ds->db, &ds->opts);
}

int ds_read_cols(sbx_result **out, sbx_txn *txn, sbx_table *t,
		 const sbx_buf *row, const sbx_buf *const *quals, size_t n)
{
	sbx_column cols[2];
	for (size_t i = 0; i < n && i < 2; i++)
		cols[i] = (sbx_column){SBX_DS_FAMILY, quals[i]->data,
				       quals[i]->len};
	sbx_read_opts o;
	sbx_read_opts_init(&o);
	o.columns = cols;
	o.ncolumns = n;
	return sbx_txn_get(out, txn, t, row->data, row->len, &o);
}

static const sbx_cell *cell_of(const sbx_result *r, const sbx_buf *q)
{
	return sbx_result_get(r, SBX_DS_FAMILY, q->data, q->len);
}

/* the metadata cell: count and next id, 8 bytes big-endian each */
static int meta_decode(uint64_t *count, uint64_t *next, const sbx_cell *c,
		       const sbx_ds *ds, const sbx_ds_key *parent,
		       uint16_t kind)
{
	*count = 0;
	*next = 1;
	if (!c)
		return SBX_OK;
	if (c->value_len != 16) {
		char name[300];
		ds_key_name(name, sizeof name, ds, parent);
		return sbx_error_set(SBX_EBADVALUE,
				     "%s: the metadata of its collection of "
				     "kind %u is %zu bytes, not 16",
				     name, (unsigned)kind, c->value_len);
	}
	uint64_t a = 0, b = 0;
	for (int i = 0; i < 8; i++) {
		a = a << 8 | c->value[i];
		b = b << 8 | c->value[8 + i];
	}
	*count = a;
	*next = b;
	return SBX_OK;
}

static void meta_encode(uint8_t v[16], uint64_t count, uint64_t next)
{
	for (int i = 0; i < 8; i++) {
		v[i] = (uint8_t)(count >> (56 - 8 * i));
		v[8 + i] = (uint8_t)(next >> (56 - 8 * i));
	}
}

typedef int (*ds_body)(sbx_ds *ds, sbx_txn *txn, void *arg);

typedef struct auto_ctx {
	sbx_ds *ds;
	ds_body fn;
	void *arg;
} auto_ctx;

static int auto_fn(sbx_txn *txn, void *arg)
{
	auto_ctx *c = arg;
	return c->fn(c->ds, txn, c->arg);
}

static int run(sbx_ds *ds, sbx_txn *txn, ds_body fn, void *arg)
{
	if (txn)
		return fn(ds, txn, arg);
	auto_ctx c = {ds, fn, arg};
	return sbx_txn_run(NULL, ds->db, &ds->opts, auto_fn, &c);
}

static bool kind_watched(const sbx_ds *ds, uint16_t kind, unsigned ev)
{
	for (size_t i = 0; i < ds->ntriggers; i++)
		if (ds->triggers[i].kind == kind && (ds->triggers[i].events & ev))
			return true;
	for (size_t i = 0; i < ds->nindexes; i++)
		if (ds->indexes[i].kind == kind)
			return true;
	return false;
}

static int fire(sbx_ds *ds, sbx_txn *txn, sbx_ds_event ev,
		const sbx_ds_key *k, const ProtobufCMessage *old_msg,
		const ProtobufCMessage *new_msg)
{
	uint16_t kind = sbx_ds_key_kind(k);
	for (size_t i = 0; i < ds->ntriggers; i++) {
		const ds_trigger *t = &ds->triggers[i];
		if (t->kind != kind || !(t->events & ev))
			continue;
		int rc = t->fn(ds, txn, ev, k, old_msg, new_msg, t->arg);
		if (rc)
			return rc;
	}
	return SBX_OK;
}

/* what a write needs to know about the column it changes */
typedef struct wctx {
	const sbx_ds_key *key;
	const ProtobufCMessage *msg; /* put */
	bool existed;		     /* delete: out */
	const ds_kind *kind;
	sbx_table *t;
	sbx_buf row, qual, meta;
} wctx;

static int wctx_init(wctx *w, sbx_ds *ds, const sbx_ds_key *key)
{
	int rc = ds_need_prepared(ds);
	if (rc)
		return rc;
	if (!key)
		return sbx_error_set(SBX_EINVAL, "no key");
	w->kind = ds_kind_find(ds, sbx_ds_key_kind(key));
	const ds_kind *root = ds_kind_find(ds, key->e[0].kind);
	if (!w->kind || !root) {
		char name[300];
		ds_key_name(name, sizeof name, ds, key);
		return sbx_error_set(SBX_EINVAL,
				     "%s: kind %u is not registered", name,
				     (unsigned)(w->kind ? key->e[0].kind
							: sbx_ds_key_kind(key)));
	}
	w->t = ds_table_for(ds, key);
	rc = ds_row_key(&w->row, ds, key);
	rc = rc ? rc : sbx_ds_key_encode_qualifier(&w->qual, key);
	if (rc == SBX_OK && key->n > 1) {
		sbx_ds_key *parent;
		rc = sbx_ds_key_prefix(&parent, key, key->n - 1);
		rc = rc ? rc
			: sbx_ds_key_encode_meta(&w->meta, parent,
						 sbx_ds_key_kind(key));
		sbx_ds_key_free(parent);
	}
	return rc;
}

static void wctx_free(wctx *w)
{
	sbx_buf_free(&w->row);
	sbx_buf_free(&w->qual);
	sbx_buf_free(&w->meta);
}

/* read the entity's column (and its collection's metadata) */
static int read_current(sbx_result **res, sbx_txn *txn, const wctx *w)
{
	const sbx_buf *q[2] = {&w->qual, &w->meta};
	return ds_read_cols(res, txn, w->t, &w->row, q, w->key->n > 1 ? 2 : 1);
}

static int put_body(sbx_ds *ds, sbx_txn *txn, void *arg)
{
	wctx *w = arg;
	sbx_result *cur = NULL;
	ProtobufCMessage *old = NULL;
	sbx_mutation *m = NULL;
	sbx_buf val = {0};
	int rc = read_current(&cur, txn, w);
	const sbx_cell *oc = rc ? NULL : cell_of(cur, &w->qual);
	bool watched = kind_watched(ds, w->kind->kind, SBX_DS_ON_PUT);
	if (rc == SBX_OK && oc && watched)
		rc = sbx_ds_entity_decode(&old, ds, w->key, oc->value,
					  oc->value_len);
	rc = rc ? rc : ds_pack(&val, w->msg);
	rc = rc ? rc : sbx_mutation_new(&m, w->row.data, w->row.len);
	rc = rc ? rc
		: sbx_mutation_put(m, SBX_DS_FAMILY, w->qual.data, w->qual.len,
				   SBX_LATEST_TIMESTAMP, val.data, val.len);
	if (rc == SBX_OK && !oc && w->key->n > 1) {
		uint64_t count, next;
		rc = meta_decode(&count, &next, cell_of(cur, &w->meta), ds,
				 w->key, w->kind->kind);
		const ds_elem *e = &w->key->e[w->key->n - 1];
		if (!e->is_bytes && e->id >= next && e->id != UINT64_MAX)
			next = e->id + 1;
		uint8_t mv[16];
		meta_encode(mv, count + 1, next);
		rc = rc ? rc
			: sbx_mutation_put(m, SBX_DS_FAMILY, w->meta.data,
					   w->meta.len, SBX_LATEST_TIMESTAMP,
					   mv, 16);
	}
	rc = rc ? rc : sbx_txn_mutate(txn, w->t, m);
	if (rc == SBX_OK && watched) {
		rc = ds_index_apply(ds, txn, w->key, old, w->msg, val.data,
				    val.len);
		rc = rc ? rc : fire(ds, txn, SBX_DS_ON_PUT, w->key, old, w->msg);
	}
	sbx_mutation_free(m);
	sbx_buf_free(&val);
	sbx_ds_entity_free(old);
	sbx_result_free(cur);
	return rc;
}

int sbx_ds_put(sbx_ds *ds, sbx_txn *txn, const sbx_ds_key *key,
	       const ProtobufCMessage *msg)
{
	wctx w = {.key = key, .msg = msg};
	int rc = wctx_init(&w, ds, key);
	if (rc == SBX_OK &&
	    (!msg || !w.kind->msg || msg->descriptor != w.kind->msg)) {
		char name[300];
		ds_key_name(name, sizeof name, ds, key);
		rc = sbx_error_set(SBX_EINVAL,
				   "%s: the entity is %s, kind %s holds %s",
				   name,
				   msg ? msg->descriptor->name : "missing",
				   w.kind->name,
				   w.kind->msg ? w.kind->msg->name
					       : "no message (view only)");
	}
	rc = rc ? rc : run(ds, txn, put_body, &w);
	wctx_free(&w);
	return rc;
}

static int delete_body(sbx_ds *ds, sbx_txn *txn, void *arg)
{
	wctx *w = arg;
	sbx_result *cur = NULL;
	ProtobufCMessage *old = NULL;
	sbx_mutation *m = NULL;
	w->existed = false;
	int rc = read_current(&cur, txn, w);
	const sbx_cell *oc = rc ? NULL : cell_of(cur, &w->qual);
	if (rc || !oc) {
		sbx_result_free(cur);
		return rc;
	}
	bool watched = kind_watched(ds, w->kind->kind, SBX_DS_ON_DELETE);
	if (watched)
		rc = sbx_ds_entity_decode(&old, ds, w->key, oc->value,
					  oc->value_len);
	rc = rc ? rc : sbx_mutation_new(&m, w->row.data, w->row.len);
	rc = rc ? rc
		: sbx_mutation_delete(m, SBX_CELL_DELETE_COLUMN, SBX_DS_FAMILY,
				      w->qual.data, w->qual.len,
				      SBX_LATEST_TIMESTAMP);
	if (rc == SBX_OK && w->key->n > 1) {
		uint64_t count, next;
		rc = meta_decode(&count, &next, cell_of(cur, &w->meta), ds,
				 w->key, w->kind->kind);
		uint8_t mv[16];
		meta_encode(mv, count ? count - 1 : 0, next);
		rc = rc ? rc
			: sbx_mutation_put(m, SBX_DS_FAMILY, w->meta.data,
					   w->meta.len, SBX_LATEST_TIMESTAMP,
					   mv, 16);
	}
	rc = rc ? rc : sbx_txn_mutate(txn, w->t, m);
	if (rc == SBX_OK && watched) {
		rc = ds_index_apply(ds, txn, w->key, old, NULL, NULL, 0);
		rc = rc ? rc
			: fire(ds, txn, SBX_DS_ON_DELETE, w->key, old, NULL);
	}
	if (rc == SBX_OK)
		w->existed = true;
	sbx_mutation_free(m);
	sbx_ds_entity_free(old);
	sbx_result_free(cur);
	return rc;
}

int sbx_ds_delete(bool *existed, sbx_ds *ds, sbx_txn *txn,
		  const sbx_ds_key *key)
{
	if (existed)
		*existed = false;
	wctx w = {.key = key};
	int rc = wctx_init(&w, ds, key);
	rc = rc ? rc : run(ds, txn, delete_body, &w);
	if (rc == SBX_OK && existed)
		*existed = w.existed;
	wctx_free(&w);
	return rc;
}

typedef struct get_ctx {
	wctx w;
	ProtobufCMessage *out;
} get_ctx;

static int get_body(sbx_ds *ds, sbx_txn *txn, void *arg)
{
	get_ctx *g = arg;
	sbx_result *cur = NULL;
	const sbx_buf *q[1] = {&g->w.qual};
	sbx_ds_entity_free(g->out);
	g->out = NULL;
	int rc = ds_read_cols(&cur, txn, g->w.t, &g->w.row, q, 1);
	const sbx_cell *c = rc ? NULL : cell_of(cur, &g->w.qual);
	if (c)
		rc = sbx_ds_entity_decode(&g->out, ds, g->w.key, c->value,
					  c->value_len);
	sbx_result_free(cur);
	return rc;
}

int sbx_ds_get(ProtobufCMessage **out, sbx_ds *ds, sbx_txn *txn,
	       const sbx_ds_key *key)
{
	*out = NULL;
	get_ctx g = {.w = {.key = key}};
	int rc = wctx_init(&g.w, ds, key);
	rc = rc ? rc : run(ds, txn, get_body, &g);
	if (rc == SBX_OK)
		*out = g.out;
	else
		sbx_ds_entity_free(g.out);
	wctx_free(&g.w);
	return rc;
}

typedef struct coll_ctx {
	const sbx_ds_key *parent;
	uint16_t kind;
	bool advance;
	sbx_table *t;
	sbx_buf row, meta;
	uint64_t count, next;
} coll_ctx;

static int coll_body(sbx_ds *ds, sbx_txn *txn, void *arg)
{
	coll_ctx *c = arg;
	sbx_result *cur = NULL;
	sbx_mutation *m = NULL;
	const sbx_buf *q[1] = {&c->meta};
	int rc = ds_read_cols(&cur, txn, c->t, &c->row, q, 1);
	rc = rc ? rc
		: meta_decode(&c->count, &c->next, cell_of(cur, &c->meta), ds,
			      c->parent, c->kind);
	if (rc == SBX_OK && c->advance) {
		uint8_t mv[16];
		meta_encode(mv, c->count, c->next + 1);
		rc = sbx_mutation_new(&m, c->row.data, c->row.len);
		rc = rc ? rc
			: sbx_mutation_put(m, SBX_DS_FAMILY, c->meta.data,
					   c->meta.len, SBX_LATEST_TIMESTAMP,
					   mv, 16);
		rc = rc ? rc : sbx_txn_mutate(txn, c->t, m);
	}
	sbx_mutation_free(m);
	sbx_result_free(cur);
	return rc;
}

static int coll(coll_ctx *c, sbx_ds *ds, sbx_txn *txn)
{
	int rc = ds_need_prepared(ds);
	if (rc == SBX_OK && !c->parent)
		rc = sbx_error_set(SBX_EINVAL, "no parent key");
	if (rc == SBX_OK && !ds_kind_find(ds, c->parent->e[0].kind))
		rc = sbx_error_set(SBX_EINVAL, "root kind %u is not registered",
				   (unsigned)c->parent->e[0].kind);
	if (rc == SBX_OK)
		c->t = ds_table_for(ds, c->parent);
	rc = rc ? rc : ds_row_key(&c->row, ds, c->parent);
	rc = rc ? rc : sbx_ds_key_encode_meta(&c->meta, c->parent, c->kind);
	rc = rc ? rc : run(ds, txn, coll_body, c);
	sbx_buf_free(&c->row);
	sbx_buf_free(&c->meta);
	return rc;
}

int sbx_ds_collection_info(uint64_t *count, uint64_t *next_id, sbx_ds *ds,
			   sbx_txn *txn, const sbx_ds_key *parent,
			   uint16_t kind)
{
	coll_ctx c = {.parent = parent, .kind = kind};
	int rc = coll(&c, ds, txn);
	if (count)
		*count = rc ? 0 : c.count;
	if (next_id)
		*next_id = rc ? 0 : c.next;
	return rc;
}

int sbx_ds_allocate_id(uint64_t *out, sbx_ds *ds, sbx_txn *txn,
		       const sbx_ds_key *parent, uint16_t kind)
{
	coll_ctx c = {.parent = parent, .kind = kind, .advance = true};
	int rc = coll(&c, ds, txn);
	*out = rc ? 0 : c.next;
	return rc;
}
