/*
 * index.c - secondary indexes: an entity's index row key made by the
 * index's key design from its fields, the reference an index row holds,
 * and the upkeep a put or delete does in its own transaction (the old row
 * deleted, the new one written).
 */
#include "ds_int.h"

#include "common/alloc.h"
#include "common/error.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The column of an index row that holds the reference ("k"). */
const sbx_buf ds_ref_qualifier = {(uint8_t *)"k", 1, 0};

/* The reference: each element of the path as its 2-byte kind and id. */
int ds_ref_encode(sbx_buf *out, const sbx_ds *ds, const sbx_ds_key *k)
{
	(void)ds;
	size_t len0 = out->len;
	int rc = SBX_OK;
	for (size_t i = 0; rc == SBX_OK && i < k->n; i++) {
		uint8_t x[2] = {(uint8_t)(k->e[i].kind >> 8),
				(uint8_t)k->e[i].kind};
		rc = sbx_buf_append(out, x, 2);
		rc = rc ? rc : ds_put_id(out, &k->e[i]);
	}
	if (rc)
		out->len = len0;
	return rc;
}

int ds_ref_decode(sbx_ds_key **out, const sbx_ds *ds, const uint8_t *p,
		  size_t len)
{
	(void)ds;
	*out = NULL;
	ds_elem v[SBX_DS_MAX_DEPTH];
	size_t n = 0, at = 0;
	int rc = SBX_OK;
	while (rc == SBX_OK && at < len) {
		if (n == SBX_DS_MAX_DEPTH || len - at < 3) {
			rc = sbx_error_set(SBX_EINVAL,
					   "byte %zu: not a key reference", at);
			break;
		}
		uint16_t kind = (uint16_t)(p[at] << 8 | p[at + 1]);
		size_t used;
		rc = ds_get_id(&v[n], p + at + 2, len - at - 2, &used);
		if (rc == SBX_OK && kind == 0) {
			free(v[n].b);
			rc = sbx_error_set(SBX_EINVAL, "byte %zu: kind 0", at);
		}
		if (rc)
			break;
		v[n++].kind = kind;
		at += 2 + used;
	}
	if (rc == SBX_OK && n == 0)
		rc = sbx_error_set(SBX_EINVAL, "an empty key reference");
	sbx_ds_key *k = NULL;
	rc = rc ? rc : ds_key_alloc(&k, n);
	if (rc) {
		for (size_t i = 0; i < n; i++)
			free(v[i].b);
		return rc;
	}
	memcpy(k->e, v, n * sizeof *v);
	*out = k;
	return SBX_OK;
}

static int id_text(sbx_buf *out, const ds_elem *e, bool hex)
{
	if (!e->is_bytes) {
		char num[32];
		snprintf(num, sizeof num, "%" PRIu64, e->id);
		return sbx_buf_append(out, num, strlen(num));
	}
	return hex ? sbx_key_put_hex(out, e->b, e->blen, false)
		   : sbx_buf_append(out, e->b, e->blen);
}

/* A message field's value as the key design's text; *present false when
 * an optional field is not set. */
static int field_text(sbx_buf *out, bool *present, const ProtobufCMessage *m,
		      const ds_ifield *f)
{
	const ProtobufCFieldDescriptor *fd = f->fd;
	const char *base = (const char *)m;
	const void *p = base + fd->offset;
	*present = true;
	if (fd->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) {
		uint32_t c;
		memcpy(&c, base + fd->quantifier_offset, sizeof c);
		if (c != fd->id)
			*present = false;
	} else if (fd->label == PROTOBUF_C_LABEL_OPTIONAL &&
		   fd->type != PROTOBUF_C_TYPE_STRING &&
		   fd->type != PROTOBUF_C_TYPE_MESSAGE) {
		protobuf_c_boolean has;
		memcpy(&has, base + fd->quantifier_offset, sizeof has);
		if (!has)
			*present = false;
	}
	if (!*present)
		return SBX_OK;
	char num[64];
	switch (fd->type) {
	case PROTOBUF_C_TYPE_INT32:
	case PROTOBUF_C_TYPE_SINT32:
	case PROTOBUF_C_TYPE_SFIXED32:
	case PROTOBUF_C_TYPE_ENUM: {
		int32_t v;
		memcpy(&v, p, sizeof v);
		snprintf(num, sizeof num, "%" PRId32, v);
		break;
	}
	case PROTOBUF_C_TYPE_UINT32:
	case PROTOBUF_C_TYPE_FIXED32: {
		uint32_t v;
		memcpy(&v, p, sizeof v);
		snprintf(num, sizeof num, "%" PRIu32, v);
		break;
	}
	case PROTOBUF_C_TYPE_INT64:
	case PROTOBUF_C_TYPE_SINT64:
	case PROTOBUF_C_TYPE_SFIXED64: {
		int64_t v;
		memcpy(&v, p, sizeof v);
		snprintf(num, sizeof num, "%" PRId64, v);
		break;
	}
	case PROTOBUF_C_TYPE_UINT64:
	case PROTOBUF_C_TYPE_FIXED64: {
		uint64_t v;
		memcpy(&v, p, sizeof v);
		snprintf(num, sizeof num, "%" PRIu64, v);
		break;
	}
	case PROTOBUF_C_TYPE_BOOL: {
		protobuf_c_boolean v;
		memcpy(&v, p, sizeof v);
		snprintf(num, sizeof num, "%d", v ? 1 : 0);
		break;
	}
	case PROTOBUF_C_TYPE_FLOAT: {
		float v;
		memcpy(&v, p, sizeof v);
		snprintf(num, sizeof num, "%.9g", (double)v);
		break;
	}
	case PROTOBUF_C_TYPE_DOUBLE: {
		double v;
		memcpy(&v, p, sizeof v);
		snprintf(num, sizeof num, "%.17g", v);
		break;
	}
	case PROTOBUF_C_TYPE_STRING: {
		const char *s;
		memcpy(&s, p, sizeof s);
		if (!s) {
			*present = false;
			return SBX_OK;
		}
		return f->hex ? sbx_key_put_hex(out, (const uint8_t *)s,
						strlen(s), false)
			      : sbx_buf_append(out, s, strlen(s));
	}
	case PROTOBUF_C_TYPE_BYTES: {
		ProtobufCBinaryData d;
		memcpy(&d, p, sizeof d);
		return f->hex ? sbx_key_put_hex(out, d.data, d.len, false)
			      : sbx_buf_append(out, d.data, d.len);
	}
	default:
		*present = false;
		return SBX_OK;
	}
	return sbx_buf_append(out, num, strlen(num));
}

int ds_index_row(sbx_buf *out, bool *indexed, const sbx_ds *ds,
		 const ds_index *ix, const sbx_ds_key *k,
		 const ProtobufCMessage *m)
{
	*indexed = false;
	sbx_buf *texts = sbx_calloc(ix->nfields ? ix->nfields : 1,
				    sizeof *texts);
	sbx_keyvalue *vals = sbx_calloc(ix->nfields ? ix->nfields : 1,
					sizeof *vals);
	int rc = texts && vals ? SBX_OK : SBX_ENOMEM_SET();
	bool all = true;
	for (size_t i = 0; rc == SBX_OK && all && i < ix->nfields; i++) {
		const ds_ifield *f = &ix->fields[i];
		switch (f->src) {
		case DS_F_ROOT:
			rc = id_text(&texts[i], &k->e[0], f->hex);
			break;
		case DS_F_ID:
			rc = id_text(&texts[i], &k->e[k->n - 1], f->hex);
			break;
		case DS_F_KEY: {
			sbx_buf ref = {0};
			rc = ds_ref_encode(&ref, ds, k);
			rc = rc ? rc
				: sbx_key_put_hex(&texts[i], ref.data, ref.len,
						  false);
			sbx_buf_free(&ref);
			break;
		}
		case DS_F_MSG:
			rc = field_text(&texts[i], &all, m, f);
			break;
		}
		vals[i] = (sbx_keyvalue){f->name, (const char *)texts[i].data,
					 texts[i].len};
		if (!vals[i].value)
			vals[i].value = "";
	}
	if (rc == SBX_OK && all) {
		rc = sbx_keydesign_encode(out, ix->design, vals, ix->nfields);
		if (rc) {
			char name[300], msg[300];
			snprintf(msg, sizeof msg, "%s", sbx_errmsg());
			ds_key_name(name, sizeof name, ds, k);
			rc = sbx_error_set(rc, "index %s of %s: %s", ix->name,
					   name, msg);
		} else {
			*indexed = true;
		}
	}
	for (size_t i = 0; texts && i < ix->nfields; i++)
		sbx_buf_free(&texts[i]);
	free(texts);
	free(vals);
	return rc;
}

/* The index row `row` (k's new one) must not name another entity: a
 * design that gives two entities one row cannot hold both, and writing
 * over the other's reference would lose it without a word. Read by key in
 * the transaction, so a concurrent put of the other entity is a conflict,
 * not a phantom. */
static int index_row_free(sbx_ds *ds, sbx_txn *txn, const ds_index *ix,
			  sbx_table *t, const sbx_buf *row, const sbx_buf *ref,
			  const sbx_ds_key *k)
{
	/* (not ds_read_cols: ops.c calls this file, not the other way) */
	sbx_column col = {SBX_DS_FAMILY, ds_ref_qualifier.data,
			  ds_ref_qualifier.len};
	sbx_read_opts o;
	sbx_read_opts_init(&o);
	o.columns = &col;
	o.ncolumns = 1;
	sbx_result *r = NULL;
	int rc = sbx_txn_get(&r, txn, t, row->data, row->len, &o);
	const sbx_cell *c =
	    rc ? NULL : sbx_result_get(r, SBX_DS_FAMILY, "k", 1);
	if (c && (c->value_len != ref->len ||
		  memcmp(c->value, ref->data, ref->len))) {
		char mine[300], other[300] = "an entity it cannot name";
		ds_key_name(mine, sizeof mine, ds, k);
		sbx_ds_key *ok = NULL;
		if (ds_ref_decode(&ok, ds, c->value, c->value_len) == SBX_OK) {
			ds_key_name(other, sizeof other, ds, ok);
			sbx_ds_key_free(ok);
		}
		rc = sbx_error_set(SBX_EEXISTS,
				   "index %s: %s would take the row that "
				   "already refers to %s (the index's design "
				   "does not tell them apart)",
				   ix->name, mine, other);
	}
	sbx_result_free(r);
	return rc;
}

static int index_one(sbx_ds *ds, sbx_txn *txn, const ds_index *ix,
		     const sbx_ds_key *k, const ProtobufCMessage *old_msg,
		     const ProtobufCMessage *new_msg, const uint8_t *bytes,
		     size_t len)
{
	sbx_buf orow = {0}, nrow = {0}, ref = {0};
	bool oin = false, nin = false;
	sbx_table *t = ds->tables[ix->table].t;
	sbx_mutation *m = NULL;
	int rc = SBX_OK;
	if (old_msg)
		rc = ds_index_row(&orow, &oin, ds, ix, k, old_msg);
	if (rc == SBX_OK && new_msg)
		rc = ds_index_row(&nrow, &nin, ds, ix, k, new_msg);
	bool same = oin && nin && orow.len == nrow.len &&
		    !memcmp(orow.data, nrow.data, orow.len);
	if (rc == SBX_OK && oin && !same) {
		rc = sbx_mutation_new(&m, orow.data, orow.len);
		rc = rc ? rc
			: sbx_mutation_delete(m, SBX_CELL_DELETE_FAMILY,
					      SBX_DS_FAMILY, NULL, 0,
					      SBX_LATEST_TIMESTAMP);
		rc = rc ? rc : sbx_txn_mutate(txn, t, m);
		sbx_mutation_free(m);
		m = NULL;
	}
	if (rc == SBX_OK && nin &&
	    (!same || ix->type == SBX_DS_INDEX_CLUSTERED)) {
		rc = ds_ref_encode(&ref, ds, k);
		if (rc == SBX_OK && !same)
			rc = index_row_free(ds, txn, ix, t, &nrow, &ref, k);
		rc = rc ? rc : sbx_mutation_new(&m, nrow.data, nrow.len);
		rc = rc ? rc
			: sbx_mutation_put(m, SBX_DS_FAMILY, "k", 1,
					   SBX_LATEST_TIMESTAMP, ref.data,
					   ref.len);
		if (rc == SBX_OK && ix->type == SBX_DS_INDEX_CLUSTERED)
			rc = sbx_mutation_put(m, SBX_DS_FAMILY, "v", 1,
					      SBX_LATEST_TIMESTAMP, bytes, len);
		rc = rc ? rc : sbx_txn_mutate(txn, t, m);
	}
	sbx_mutation_free(m);
	sbx_buf_free(&orow);
	sbx_buf_free(&nrow);
	sbx_buf_free(&ref);
	return rc;
}

int ds_index_apply(sbx_ds *ds, sbx_txn *txn, const sbx_ds_key *k,
		   const ProtobufCMessage *old_msg,
		   const ProtobufCMessage *new_msg, const uint8_t *new_bytes,
		   size_t new_len)
{
	uint16_t kind = sbx_ds_key_kind(k);
	for (size_t i = 0; i < ds->nindexes; i++) {
		if (ds->indexes[i].kind != kind)
			continue;
		int rc = index_one(ds, txn, &ds->indexes[i], k, old_msg,
				   new_msg, new_bytes, new_len);
		if (rc)
			return rc;
	}
	return SBX_OK;
}
