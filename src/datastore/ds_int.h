/*
 * ds_int.h - the datastore's internals (src/datastore): keys, the
 * registered kinds, triggers and indexes, the column codec and the
 * helpers the files share. Only the public API is below this layer.
 */
#ifndef SBX_DS_INT_H
#define SBX_DS_INT_H

#include "saltbox.h"
#include "saltbox/datastore.h"

#include <protobuf-c/protobuf-c.h>
#include <stdio.h>

#define DS_MAX_ID_BYTES 1024
#define DS_DEFAULT_BATCH 100
#define DS_ROWS_PER_TXN 256

typedef struct ds_elem {
	uint16_t kind;
	bool is_bytes;
	uint64_t id;
	uint8_t *b; /* bytes id, owned */
	size_t blen;
} ds_elem;

struct sbx_ds_key {
	size_t n;
	ds_elem e[];
};

typedef struct ds_trigger {
	uint16_t kind;
	unsigned events;
	sbx_ds_trigger_fn fn;
	void *arg;
} ds_trigger;

typedef struct ds_table {
	char *name;
	sbx_table *t;
} ds_table;

typedef struct ds_kind {
	uint16_t kind;
	char *name;
	const ProtobufCMessageDescriptor *msg;
	size_t table; /* index into ds->tables */
	sbx_keydesign *row_design;
	bool design_has_kind, design_id_hex;
} ds_kind;

/* one value the index design needs */
typedef enum { DS_F_MSG, DS_F_ROOT, DS_F_ID, DS_F_KEY } ds_field_src;
typedef struct ds_ifield {
	char *name;
	ds_field_src src;
	const ProtobufCFieldDescriptor *fd; /* DS_F_MSG */
	bool hex;			    /* the design field is bytes: hex */
} ds_ifield;

typedef struct ds_index {
	char *name;
	uint16_t kind;
	sbx_keydesign *design;
	sbx_ds_index_type type;
	size_t table;
	ds_ifield *fields;
	size_t nfields;
} ds_index;

struct sbx_ds {
	sbx_db *db;
	sbx_txn_options opts;
	bool prepared;
	ds_table *tables; /* [0] = the datastore's own */
	size_t ntables;
	ds_kind *kinds;
	size_t nkinds;
	ds_trigger *triggers;
	size_t ntriggers;
	ds_index *indexes;
	size_t nindexes;
};

/* key.c */
int ds_key_alloc(sbx_ds_key **out, size_t n);
int ds_put_id(sbx_buf *b, const ds_elem *e);
int ds_get_id(ds_elem *e, const uint8_t *p, size_t len, size_t *used);
int ds_parse_qualifier(sbx_ds_key **out, bool *is_meta, uint16_t *meta_kind,
		       const ds_elem *root, const uint8_t *q, size_t qlen);
bool ds_key_is_prefix(const sbx_ds_key *prefix, const sbx_ds_key *k);
int ds_elem_cmp(const ds_elem *a, const ds_elem *b);
int ds_elem_format(sbx_buf *out, const sbx_ds *ds, const ds_elem *e,
		   bool slash);

/* ds.c */
const ds_kind *ds_kind_find(const sbx_ds *ds, uint16_t kind);
int ds_need_prepared(const sbx_ds *ds);
/* The table of the key's root kind (ds's own when unregistered) */
sbx_table *ds_table_for(const sbx_ds *ds, const sbx_ds_key *k);
int ds_row_key(sbx_buf *out, const sbx_ds *ds, const sbx_ds_key *k);
extern ProtobufCAllocator ds_pb_alloc;
int ds_pack(sbx_buf *out, const ProtobufCMessage *m);
int ds_key_name(char *buf, size_t cap, const sbx_ds *ds, const sbx_ds_key *k);

/* ops.c */
int ds_begin(sbx_txn **out, sbx_ds *ds);
/* read one column of a row through txn: *val (appended) and *found */
int ds_read_cols(sbx_result **out, sbx_txn *txn, sbx_table *t,
		 const sbx_buf *row, const sbx_buf *const *quals, size_t n);

/* index.c */
/* The column of an index row that holds the reference ("k"). */
extern const sbx_buf ds_ref_qualifier;
int ds_index_row(sbx_buf *out, bool *indexed, const sbx_ds *ds,
		 const ds_index *ix, const sbx_ds_key *k,
		 const ProtobufCMessage *m);
int ds_index_apply(sbx_ds *ds, sbx_txn *txn, const sbx_ds_key *k,
		   const ProtobufCMessage *old_msg,
		   const ProtobufCMessage *new_msg, const uint8_t *new_bytes,
		   size_t new_len);
int ds_ref_encode(sbx_buf *out, const sbx_ds *ds, const sbx_ds_key *k);
int ds_ref_decode(sbx_ds_key **out, const sbx_ds *ds, const uint8_t *p,
		  size_t len);

#endif
