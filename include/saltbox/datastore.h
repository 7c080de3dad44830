/*
 * saltbox/datastore.h - the Datastore of Between (VCNC's article "HBase
 * schema in Between"): trees of entities stored one tree per row, on the
 * table API and transactions (txn.h), so it runs on every backend.
 * docs/datastore.md gives the layout byte by byte.
 *
 * A key is a path: a root (kind, id), then (kind, id) pairs down to the
 * entity. The root's kind and id make the row key (or a key design of the
 * row-key language does, saltbox/rowkey.h); every entity below the root is
 * a column of that row, its qualifier the child's kind first, then the
 * path of its parent below the root, then a flag byte (00 = the
 * collection's metadata, 01 = an item) and the child's id, in encodings
 * that sort as the ids do. The children of one kind under one parent are a
 * collection: one contiguous run of columns, its metadata (count, next id)
 * first, kept in the same transaction as the items.
 *
 * Entities are protobuf messages (protobuf-c): each kind is registered
 * with its message descriptor. Fields a reader's schema does not know are
 * kept by protobuf-c in the message's unknown_fields and written back on
 * the next put, so a read-modify-write by an older program keeps them.
 *
 * Every call takes an sbx_txn (it then runs inside that transaction, which
 * the caller commits) or NULL (auto-commit: the call runs in a transaction
 * of its own, retried on conflict as sbx_txn_run does). Triggers and
 * secondary indexes run inside the same transaction as the write. A write
 * that fails in the caller's transaction may have buffered part of itself
 * there (the entity before an index or trigger refused it): roll that
 * transaction back; auto-commit writes nothing.
 *
 * Ownership: keys and entities returned through out-parameters belong to
 * the caller (sbx_ds_key_free, sbx_ds_entity_free). The sbx_db must outlive
 * the datastore.
 *
 * Thread-safety: register kinds, triggers and indexes, then call
 * sbx_ds_prepare, from one thread; after that an sbx_ds may be shared by
 * any number of threads. Keys are immutable and may be shared. An iterator
 * belongs to one thread at a time.
 */
#ifndef SALTBOX_DATASTORE_H
#define SALTBOX_DATASTORE_H

#include "saltbox/common.h"
#include "saltbox/db.h"
#include "saltbox/rowkey.h"
#include "saltbox/txn.h"

#ifdef __cplusplus
extern "C" {
#endif

/* protobuf-c's types (<protobuf-c/protobuf-c.h>), named by their struct
 * tags so this header does not need protobuf-c's. */
struct ProtobufCMessage;
struct ProtobufCMessageDescriptor;

/* The column family holding entities and index entries. */
#define SBX_DS_FAMILY "e"
/* Flag bytes of a qualifier (docs/datastore.md). */
#define SBX_DS_FLAG_META 0x00
#define SBX_DS_FLAG_ITEM 0x01
#define SBX_DS_FLAG_PATH 0x02
/* Id tags: an integer id is 01 + 8 bytes big-endian; a bytes id is 02 +
 * the bytes with 00 escaped as 00 FF + the terminator 00 01. */
#define SBX_DS_ID_INT 0x01
#define SBX_DS_ID_BYTES 0x02
/* Deepest key (root included). */
#define SBX_DS_MAX_DEPTH 16

typedef struct sbx_ds sbx_ds;
typedef struct sbx_ds_key sbx_ds_key;
typedef struct sbx_ds_iter sbx_ds_iter;

/* ---- keys ---------------------------------------------------------------- */

/* A root key (kind, integer id). kind is 1..65535 (0 is the root's own
 * column). *out is the caller's: sbx_ds_key_free. Errors: SBX_EINVAL
 * (kind 0). */
SBX_API int sbx_ds_key_root(sbx_ds_key **out, uint16_t kind, uint64_t id);
/* A root key with a random 64-bit id (getrandom), so new roots spread
 * over the regions (as Between does). Errors: SBX_EINVAL (kind 0), SBX_EIO (no
 * randomness). */
SBX_API int sbx_ds_key_root_random(sbx_ds_key **out, uint16_t kind);
/* A root key with a bytes id (1..1024 bytes). Errors: SBX_EINVAL (kind 0,
 * empty or longer id). */
SBX_API int sbx_ds_key_root_bytes(sbx_ds_key **out, uint16_t kind,
				  const void *id, size_t id_len);
/* A child of `parent` (copied) with an integer id. Errors: SBX_EINVAL
 * (no parent, kind 0, deeper than SBX_DS_MAX_DEPTH). */
SBX_API int sbx_ds_key_child(sbx_ds_key **out, const sbx_ds_key *parent,
			     uint16_t kind, uint64_t id);
/* The same with a bytes id. Errors: SBX_EINVAL (as above; an id empty or
 * over 1024 bytes). */
SBX_API int sbx_ds_key_child_bytes(sbx_ds_key **out, const sbx_ds_key *parent,
				   uint16_t kind, const void *id,
				   size_t id_len);
/* A copy. Errors: SBX_ENOMEM only. */
SBX_API int sbx_ds_key_copy(sbx_ds_key **out, const sbx_ds_key *k);
/* NULL is ignored. Cannot fail. */
SBX_API void sbx_ds_key_free(sbx_ds_key *k);

/* The number of levels: 1 for a root. Cannot fail. */
SBX_API size_t sbx_ds_key_depth(const sbx_ds_key *k);
/* The kind of the key's last element. Cannot fail. */
SBX_API uint16_t sbx_ds_key_kind(const sbx_ds_key *k);
/* Whether the last element's id is bytes. Cannot fail. */
SBX_API bool sbx_ds_key_has_bytes_id(const sbx_ds_key *k);
/* The last element's integer id (0 for a bytes id). Cannot fail. */
SBX_API uint64_t sbx_ds_key_id(const sbx_ds_key *k);
/* The last element's bytes id (owned by k), or NULL with *len 0 for an
 * integer id. Cannot fail. */
SBX_API const uint8_t *sbx_ds_key_id_bytes(const sbx_ds_key *k, size_t *len);
/* The ancestor at depth d (1 = the root) as a new key. Errors: SBX_EINVAL
 * (d 0 or deeper than k). */
SBX_API int sbx_ds_key_prefix(sbx_ds_key **out, const sbx_ds_key *k, size_t d);
/* Order of two keys: the order of their columns in one row (roots by row
 * key, default layout). <0, 0, >0. Cannot fail. */
SBX_API int sbx_ds_key_compare(const sbx_ds_key *a, const sbx_ds_key *b);
/* Append the key as text, "Couple:7/Photo:3" (kinds as numbers when ds is
 * NULL or a kind is not registered; bytes ids as 'text' or 0xHEX).
 * Errors: SBX_ENOMEM only. */
SBX_API int sbx_ds_key_format(sbx_buf *out, const sbx_ds *ds,
			      const sbx_ds_key *k);

/* The default row key of a key's row (its root: kind big-endian in 2
 * bytes, then the id), appended. Errors: SBX_ENOMEM only. */
SBX_API int sbx_ds_key_encode_row(sbx_buf *out, const sbx_ds_key *k);
/* The qualifier of the key's column, appended (a root's own column is
 * 00 00). Errors: SBX_ENOMEM only. */
SBX_API int sbx_ds_key_encode_qualifier(sbx_buf *out, const sbx_ds_key *k);
/* The qualifier of the metadata column of the collection of `kind` under
 * parent. Errors: SBX_EINVAL (kind 0), SBX_ENOMEM. */
SBX_API int sbx_ds_key_encode_meta(sbx_buf *out, const sbx_ds_key *parent,
				   uint16_t kind);
/*
 * Decode a column back into its key: row in the default layout (or, with a
 * datastore, in a registered root kind's row design), qualifier as above.
 * *is_meta tells a collection's metadata column (then *out is the parent
 * and *meta_kind the collection's kind); may be NULL when the caller wants
 * items only (a metadata column is then SBX_EINVAL). Errors: SBX_EINVAL
 * (bytes that are not a datastore column: the message says which byte is
 * wrong). Never reads past the lengths.
 */
SBX_API int sbx_ds_key_decode(sbx_ds_key **out, bool *is_meta,
			      uint16_t *meta_kind, const sbx_ds *ds,
			      const uint8_t *row, size_t row_len,
			      const uint8_t *qualifier, size_t qualifier_len);

/* ---- the datastore ------------------------------------------------------- */

/* How a root kind's rows are keyed, and which message its entities are. */
typedef struct sbx_ds_kind_desc {
	uint16_t kind;	  /* 1..65535, unique */
	const char *name; /* unique, e.g. "Photo" (copied) */
	/* The entity's message (borrowed: a generated descriptor lives for
	 * the program's life). NULL: a kind that is only named, for viewing
	 * (sbx_ds_format_row); its entities cannot be put or got. */
	const struct ProtobufCMessageDescriptor *message;
	/* Roots of this kind: the table of their rows (NULL = the
	 * datastore's table) and a key design for the row key whose fields
	 * are `id` (integer ids as decimal, bytes ids as hex for a bytes
	 * field, else as text) and optionally `kind` (NULL = the default
	 * layout: kind in 2 bytes, then the id). E.g. "salt(16) + id:u64". */
	const char *table;
	const char *row_design;
} sbx_ds_kind_desc;

/* Open a datastore whose entities live in `table` (created by
 * sbx_ds_prepare if missing). Nothing is read yet. opts (copied; NULL =
 * defaults) are the options of the transactions it runs itself.
 * Errors: SBX_EINVAL (no db, bad table name). */
SBX_API int sbx_ds_open(sbx_ds **out, sbx_db *db, const char *table,
			const sbx_txn_options *opts);
/* NULL is ignored. Cannot fail. */
SBX_API void sbx_ds_close(sbx_ds *ds);
/* The database the datastore was opened on (to begin transactions for
 * it). Cannot fail. */
SBX_API sbx_db *sbx_ds_db(const sbx_ds *ds);

/* Register a kind. Errors: SBX_EINVAL (kind 0, no name, a kind
 * or name already registered, a bad table name, a row design that does
 * not parse or uses fields other than id and kind), SBX_EBUSY (after
 * sbx_ds_prepare). */
SBX_API int sbx_ds_register_kind(sbx_ds *ds, const sbx_ds_kind_desc *d);
/* The registered kind with this name, 0 if none. Cannot fail. */
SBX_API uint16_t sbx_ds_kind_by_name(const sbx_ds *ds, const char *name);
/* The name of a registered kind (owned by ds), NULL if none. Cannot
 * fail. */
SBX_API const char *sbx_ds_kind_name(const sbx_ds *ds, uint16_t kind);

typedef enum sbx_ds_event {
	SBX_DS_ON_PUT = 1,    /* an entity was inserted or replaced */
	SBX_DS_ON_DELETE = 2, /* an existing entity was deleted */
} sbx_ds_event;

/* A trigger: runs inside the write's transaction, after the write is
 * buffered. old_msg is the entity before (NULL for an insert), new_msg
 * after (NULL for a delete). It may read and write through txn (other
 * entities included); a non-zero return fails the write (and rolls back
 * an auto-committed one). */
typedef int (*sbx_ds_trigger_fn)(sbx_ds *ds, sbx_txn *txn, sbx_ds_event ev,
				 const sbx_ds_key *key,
				 const struct ProtobufCMessage *old_msg,
				 const struct ProtobufCMessage *new_msg,
				 void *arg);

/* Run fn on the events (an OR of sbx_ds_event) of entities of `kind`, in
 * the order added. Errors: SBX_EINVAL (no fn, no events, kind not
 * registered), SBX_EBUSY (after sbx_ds_prepare). */
SBX_API int sbx_ds_add_trigger(sbx_ds *ds, uint16_t kind, unsigned events,
			       sbx_ds_trigger_fn fn, void *arg);

typedef enum sbx_ds_index_type {
	SBX_DS_INDEX_REFERENCE = 0, /* the index row holds the entity's key */
	SBX_DS_INDEX_CLUSTERED = 1, /* ... and a copy of the entity */
} sbx_ds_index_type;

/*
 * A secondary index of one kind, kept by triggers in the writes'
 * transactions. Each entity that has every field the design names gets
 * one index row, its row key made by the key design from the entity's
 * fields (integers as decimal, strings as text, bytes as hex) and the
 * implicit fields `root` (the root's id), `id` (the entity's own id) and
 * `key` (the entity's whole key, bytes). The design must make the key
 * unique per entity: it must use `id` or `key` (`id` alone is unique only
 * among one parent's children, so `root` + `id` only for the root's own
 * children; `key` always is). A put whose index row already refers to
 * another entity fails with SBX_EEXISTS rather than take it. A salted
 * design is a salted index, `desc` a reversed one:
 *   "salt(8) + taken:u64 desc + key:bytes"
 */
typedef struct sbx_ds_index_desc {
	const char *name;   /* unique (copied) */
	uint16_t kind;	    /* a registered kind */
	const char *design; /* key design text (copied) */
	sbx_ds_index_type type;
	const char *table; /* NULL = "<datastore table>_<name>" */
} sbx_ds_index_desc;

/* Declare an index. Errors: SBX_EINVAL (no name, kind not registered, a
 * name already used, a design that does not parse (the message has the
 * parse error), uses neither id nor key, or names a field the kind's
 * message lacks or that is repeated or a message), SBX_EBUSY (after
 * sbx_ds_prepare). */
SBX_API int sbx_ds_add_index(sbx_ds *ds, const sbx_ds_index_desc *d);

/* Create the tables it needs that are missing (with the lock family and
 * SBX_DS_FAMILY), add the lock family where it lacks, and open them.
 * Needed once before any read or write; registration ends here.
 * Errors: SBX_EBUSY (called twice), those of sbx_table_create,
 * sbx_txn_prepare_table and sbx_table_open. */
SBX_API int sbx_ds_prepare(sbx_ds *ds);

/* ---- entities ------------------------------------------------------------ */

/*
 * Insert or replace the entity at key: msg's descriptor must be its kind's.
 * A new entity below the root counts in its collection's metadata (and
 * raises its next id above an integer id); triggers and indexes of the kind
 * run in the same transaction. Errors: SBX_EINVAL (kind not registered,
 * msg of another message type, not prepared), SBX_ETOOLARGE (entity or
 * key over the store's limits), SBX_EBADVALUE (the entity it replaces is
 * malformed and the kind has triggers or indexes, which need it; delete
 * it first), SBX_EEXISTS (an index row the entity would take refers to
 * another entity: the index's design does not tell them apart), a
 * trigger's error, the errors of
 * sbx_txn_get and sbx_txn_mutate; auto-commit also those of
 * sbx_txn_commit (SBX_ECONFLICT once the retry budget is spent).
 */
SBX_API int sbx_ds_put(sbx_ds *ds, sbx_txn *txn, const sbx_ds_key *key,
		       const struct ProtobufCMessage *msg);
/* Read the entity at key: *out is the caller's (sbx_ds_entity_free), NULL
 * with SBX_OK when there is none. Errors: SBX_EINVAL (kind not registered,
 * not prepared), SBX_EBADVALUE (the stored bytes are not the kind's
 * message: the message names the key), the errors of sbx_txn_get. */
SBX_API int sbx_ds_get(struct ProtobufCMessage **out, sbx_ds *ds,
		       sbx_txn *txn, const sbx_ds_key *key);
/* Delete the entity at key (its children stay); *existed (may be NULL)
 * tells whether there was one. Errors: as sbx_ds_put; SBX_EBADVALUE when
 * the old entity, which triggers and indexes need, is malformed. */
SBX_API int sbx_ds_delete(bool *existed, sbx_ds *ds, sbx_txn *txn,
			  const sbx_ds_key *key);
/* Free an entity that sbx_ds_get or an iterator returned (NULL is
 * ignored). Cannot fail. */
SBX_API void sbx_ds_entity_free(struct ProtobufCMessage *msg);
/* Decode bytes as the entity of kind `kind` at key (for tools, and what
 * every read does). Errors: SBX_EINVAL (kind not registered),
 * SBX_EBADVALUE (not that message; the message names the key). */
SBX_API int sbx_ds_entity_decode(struct ProtobufCMessage **out,
				 const sbx_ds *ds, const sbx_ds_key *key,
				 const uint8_t *bytes, size_t len);

/* The metadata of the collection of `kind` under parent: how many items
 * it holds and the next id sbx_ds_allocate_id gives (0 and 1 for an empty
 * collection). Either out may be NULL. Errors: SBX_EINVAL (kind 0, not
 * prepared), SBX_EBADVALUE (a metadata cell that is not 16 bytes), the
 * errors of sbx_txn_get. */
SBX_API int sbx_ds_collection_info(uint64_t *count, uint64_t *next_id,
				   sbx_ds *ds, sbx_txn *txn,
				   const sbx_ds_key *parent, uint16_t kind);
/* Take the collection's next integer id (1, 2, ...) and advance it, in
 * the transaction. Errors: as sbx_ds_collection_info, and those of
 * sbx_txn_mutate. */
SBX_API int sbx_ds_allocate_id(uint64_t *out, sbx_ds *ds, sbx_txn *txn,
			       const sbx_ds_key *parent, uint16_t kind);

/* ---- iteration ----------------------------------------------------------- */

/*
 * Next entity: *key is borrowed (valid until the next call or close),
 * *msg the caller's (sbx_ds_entity_free); msg may be NULL to skip decoding.
 * SBX_ITEROVER at the end. Errors: SBX_EBADVALUE (a malformed entity or
 * index row, naming its key), the errors of the reads (sbx_txn_get,
 * sbx_scanner_next); the iterator then stays at its error.
 */
SBX_API int sbx_ds_iter_next(sbx_ds_iter *it, const sbx_ds_key **key,
			     struct ProtobufCMessage **msg);
/* Close the iterator (and the transaction it ran in when it ran its own).
 * NULL is ignored. Cannot fail. */
SBX_API void sbx_ds_iter_close(sbx_ds_iter *it);

/* A range of siblings, as seed 001's subSibling(from, fromInclusive, to,
 * toInclusive). Start from sbx_ds_range_init. */
typedef struct sbx_ds_range {
	const sbx_ds_key *from; /* NULL = the collection's first item */
	bool from_inclusive;	/* default true */
	const sbx_ds_key *to;	/* NULL = the collection's last item */
	bool to_inclusive;	/* default true */
	bool reverse;		/* highest id first */
	size_t limit;		/* most entities, 0 = all */
	int batch;		/* columns per read, 0 = 100 */
} sbx_ds_range;

/* Cannot fail. */
SBX_API void sbx_ds_range_init(sbx_ds_range *r);

/*
 * Iterate the collection of `kind` under parent, in id order (reverse:
 * descending), reading `batch` columns per read (a ColumnPaginationFilter
 * from the last qualifier seen). A reversed range reads forward too (HBase
 * keeps no reverse order inside a row) and keeps only the last `limit`
 * entities. txn NULL: the iterator runs in its own read-only transaction,
 * ended by sbx_ds_iter_close. Errors: SBX_EINVAL (kind 0, from or to not
 * an item of that collection, batch < 0, not prepared), the errors of
 * sbx_txn_begin.
 */
SBX_API int sbx_ds_scan_siblings(sbx_ds_iter **out, sbx_ds *ds, sbx_txn *txn,
				 const sbx_ds_key *parent, uint16_t kind,
				 const sbx_ds_range *r);
/* Every entity of the subtree under key (key's own entity first, then its
 * descendants in column order), read from key's row in batches. Errors:
 * as sbx_ds_scan_siblings. */
SBX_API int sbx_ds_get_tree(sbx_ds_iter **out, sbx_ds *ds, sbx_txn *txn,
			    const sbx_ds_key *key);
/* Every entity of `kind` below roots of `root_kind` (kind == root_kind:
 * the roots themselves), from a full scan of root_kind's table: rows in
 * order, columns in order. txn NULL: read in short transactions of at
 * most 256 rows each. Errors: SBX_EINVAL (either kind not registered, not
 * prepared), those of sbx_txn_scanner_open; sbx_ds_iter_next:
 * SBX_EBADVALUE for a column that is not a datastore column (naming its
 * row). */
SBX_API int sbx_ds_scan_kind(sbx_ds_iter **out, sbx_ds *ds, sbx_txn *txn,
			     uint16_t kind, uint16_t root_kind);

/*
 * The entities an index lists, in index order (reverse: backwards), whose
 * fields match conds (as sbx_keydesign_plan: equality on leading fields,
 * a range on the next; n 0 = the whole index). A salted index is read one
 * range per bucket, merged. Reference indexes read each entity through
 * the transaction; clustered ones return the copy. limit 0 = all. txn
 * NULL: short transactions of at most 256 rows each. Errors: SBX_EINVAL
 * (no such index, conditions the design cannot plan), the errors of
 * sbx_txn_scanner_open; sbx_ds_iter_next: SBX_EBADVALUE for an index row
 * whose entity is malformed, or missing while the row itself is still as
 * the scan read it (a damaged index); SBX_ECONFLICT for an entity another
 * transaction deleted (with its index row) after the scan read the row,
 * a race and not damage: run the transaction again (sbx_txn_run does;
 * with txn NULL, open the scan again).
 */
SBX_API int sbx_ds_index_scan(sbx_ds_iter **out, sbx_ds *ds, sbx_txn *txn,
			      const char *index, const sbx_keycond *conds,
			      size_t n, bool reverse, size_t limit);

/* ---- viewing ------------------------------------------------------------- */

/*
 * Append an entity's bytes as text: with its kind registered in ds (may be
 * NULL), the message's fields by name, `{caption: "beach", taken: 1000}`,
 * and fields its schema does not know by number; otherwise every field by
 * number from the protobuf wire format, `{1: "beach", 2: 1000}`
 * (length-delimited fields as text when printable, else 0xHEX). Errors:
 * SBX_EBADVALUE (not protobuf: the message gives the byte offset; out
 * keeps what was appended before the bad byte), SBX_ENOMEM.
 */
SBX_API int sbx_ds_format_entity(sbx_buf *out, const sbx_ds *ds,
				 const sbx_ds_key *key, const uint8_t *bytes,
				 size_t len);
/*
 * Append one row as its entity tree, one line per entity or collection,
 * indented by depth, in the tree's order (a parent, then its collections
 * kind by kind, each collection's metadata before its items):
 *   Couple:7 {name: "alice+bob"}
 *     Photo: count 2, next id 3
 *     Photo:1 {caption: "beach"}
 *       Comment: count 1, next id 2
 *       Comment:1 {text: "nice"}
 * cells are the row's cells (family SBX_DS_FAMILY; others are skipped);
 * a column that is not a datastore column or an entity that does not
 * decode is shown as such on its line, never fatal. ds may be NULL (kinds
 * by number). Errors: SBX_ENOMEM only.
 */
SBX_API int sbx_ds_format_row(sbx_buf *out, const sbx_ds *ds,
			      const sbx_cell *cells, size_t n);

/* The random 64-bit id sbx_ds_key_root_random uses. Errors: SBX_EIO. */
SBX_API int sbx_ds_random_id(uint64_t *out);

#ifdef __cplusplus
}
#endif
#endif
