/*
 * key.c - datastore keys: building them, their encodings (row key,
 * qualifier, collection metadata, the path an index row refers to) and
 * decoding columns back into keys. docs/datastore.md has the bytes.
 */
#include "ds_int.h"

#include "common/alloc.h"
#include "common/bytes.h"
#include "common/error.h"

#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

int ds_key_alloc(sbx_ds_key **out, size_t n)
{
	*out = sbx_calloc(1, sizeof(sbx_ds_key) + n * sizeof(ds_elem));
	if (!*out)
		return SBX_ENOMEM_SET();
	(*out)->n = n;
	return SBX_OK;
}

void sbx_ds_key_free(sbx_ds_key *k)
{
	if (!k)
		return;
	for (size_t i = 0; i < k->n; i++)
		free(k->e[i].b);
	free(k);
}

static int elem_copy(ds_elem *dst, const ds_elem *src)
{
	*dst = *src;
	dst->b = NULL;
	if (src->is_bytes) {
		dst->b = sbx_malloc(src->blen);
		if (!dst->b)
			return SBX_ENOMEM_SET();
		memcpy(dst->b, src->b, src->blen);
	}
	return SBX_OK;
}

static int make(sbx_ds_key **out, const sbx_ds_key *parent, uint16_t kind,
		bool is_bytes, uint64_t id, const void *b, size_t blen)
{
	*out = NULL;
	if (kind == 0)
		return sbx_error_set(SBX_EINVAL, "datastore key: kind 0 is "
						 "reserved (kinds are 1..65535)");
	if (is_bytes && (!b || blen == 0 || blen > DS_MAX_ID_BYTES))
		return sbx_error_set(SBX_EINVAL,
				     "datastore key: a bytes id must hold 1 to "
				     "%d bytes",
				     DS_MAX_ID_BYTES);
	size_t n = parent ? parent->n + 1 : 1;
	if (n > SBX_DS_MAX_DEPTH)
		return sbx_error_set(SBX_EINVAL,
				     "datastore key: deeper than %d levels",
				     SBX_DS_MAX_DEPTH);
	sbx_ds_key *k;
	int rc = ds_key_alloc(&k, n);
	for (size_t i = 0; rc == SBX_OK && i + 1 < n; i++)
		rc = elem_copy(&k->e[i], &parent->e[i]);
	if (rc == SBX_OK) {
		ds_elem e = {kind, is_bytes, is_bytes ? 0 : id, (uint8_t *)b,
			     blen};
		rc = elem_copy(&k->e[n - 1], &e);
	}
	if (rc) {
		sbx_ds_key_free(k);
		return rc;
	}
	*out = k;
	return SBX_OK;
}

int sbx_ds_key_root(sbx_ds_key **out, uint16_t kind, uint64_t id)
{
	return make(out, NULL, kind, false, id, NULL, 0);
}

int sbx_ds_random_id(uint64_t *out)
{
	uint64_t v;
	if (getrandom(&v, sizeof v, 0) != (ssize_t)sizeof v)
		return sbx_error_set(SBX_EIO, "getrandom failed");
	*out = v;
	return SBX_OK;
}

int sbx_ds_key_root_random(sbx_ds_key **out, uint16_t kind)
{
	*out = NULL;
	uint64_t id;
	int rc = sbx_ds_random_id(&id);
	return rc ? rc : sbx_ds_key_root(out, kind, id);
}

int sbx_ds_key_root_bytes(sbx_ds_key **out, uint16_t kind, const void *id,
			  size_t id_len)
{
	return make(out, NULL, kind, true, 0, id, id_len);
}

int sbx_ds_key_child(sbx_ds_key **out, const sbx_ds_key *parent,
		     uint16_t kind, uint64_t id)
{
	if (!parent) {
		*out = NULL;
		return sbx_error_set(SBX_EINVAL, "datastore key: no parent");
	}
	return make(out, parent, kind, false, id, NULL, 0);
}

int sbx_ds_key_child_bytes(sbx_ds_key **out, const sbx_ds_key *parent,
			   uint16_t kind, const void *id, size_t id_len)
{
	if (!parent) {
		*out = NULL;
		return sbx_error_set(SBX_EINVAL, "datastore key: no parent");
	}
	return make(out, parent, kind, true, 0, id, id_len);
}

int sbx_ds_key_prefix(sbx_ds_key **out, const sbx_ds_key *k, size_t d)
{
	*out = NULL;
	if (d == 0 || d > k->n)
		return sbx_error_set(SBX_EINVAL,
				     "datastore key: no ancestor at depth %zu "
				     "(the key has %zu levels)",
				     d, k->n);
	sbx_ds_key *p;
	int rc = ds_key_alloc(&p, d);
	for (size_t i = 0; rc == SBX_OK && i < d; i++)
		rc = elem_copy(&p->e[i], &k->e[i]);
	if (rc) {
		sbx_ds_key_free(p);
		return rc;
	}
	*out = p;
	return SBX_OK;
}

int sbx_ds_key_copy(sbx_ds_key **out, const sbx_ds_key *k)
{
	return sbx_ds_key_prefix(out, k, k->n);
}

size_t sbx_ds_key_depth(const sbx_ds_key *k) { return k ? k->n : 0; }
uint16_t sbx_ds_key_kind(const sbx_ds_key *k)
{
	return k && k->n ? k->e[k->n - 1].kind : 0;
}
bool sbx_ds_key_has_bytes_id(const sbx_ds_key *k)
{
	return k && k->n && k->e[k->n - 1].is_bytes;
}
uint64_t sbx_ds_key_id(const sbx_ds_key *k)
{
	return k && k->n ? k->e[k->n - 1].id : 0;
}
const uint8_t *sbx_ds_key_id_bytes(const sbx_ds_key *k, size_t *len)
{
	if (!k || !k->n || !k->e[k->n - 1].is_bytes) {
		*len = 0;
		return NULL;
	}
	*len = k->e[k->n - 1].blen;
	return k->e[k->n - 1].b;
}

/* ---- encodings ------------------------------------------------------- */

static int put_u16(sbx_buf *b, uint16_t v)
{
	uint8_t x[2] = {(uint8_t)(v >> 8), (uint8_t)v};
	return sbx_buf_append(b, x, 2);
}

int ds_put_id(sbx_buf *b, const ds_elem *e)
{
	size_t len0 = b->len;
	int rc;
	if (!e->is_bytes) {
		uint8_t x[9] = {SBX_DS_ID_INT};
		for (int i = 0; i < 8; i++)
			x[1 + i] = (uint8_t)(e->id >> (56 - 8 * i));
		return sbx_buf_append(b, x, 9);
	}
	uint8_t tag = SBX_DS_ID_BYTES;
	rc = sbx_buf_append(b, &tag, 1);
	rc = rc ? rc
		: sbx_key_put_bytes(b, e->b, e->blen, SBX_KEY_TERMINATED);
	if (rc)
		b->len = len0;
	return rc;
}

int ds_get_id(ds_elem *e, const uint8_t *p, size_t len, size_t *used)
{
	if (len < 1)
		return sbx_error_set(SBX_EINVAL, "an id is missing");
	if (p[0] == SBX_DS_ID_INT) {
		if (len < 9)
			return sbx_error_set(SBX_EINVAL,
					     "an integer id needs 8 bytes, "
					     "%zu are left",
					     len - 1);
		uint64_t v = 0;
		for (int i = 0; i < 8; i++)
			v = v << 8 | p[1 + i];
		*e = (ds_elem){.is_bytes = false, .id = v};
		*used = 9;
		return SBX_OK;
	}
	if (p[0] != SBX_DS_ID_BYTES)
		return sbx_error_set(SBX_EINVAL,
				     "id tag 0x%02X is neither 01 (integer) "
				     "nor 02 (bytes)",
				     p[0]);
	sbx_buf v = {0};
	size_t u;
	int rc = sbx_key_get_bytes(&v, p + 1, len - 1, SBX_KEY_TERMINATED, &u);
	if (rc == SBX_OK && (v.len == 0 || v.len > DS_MAX_ID_BYTES))
		rc = sbx_error_set(SBX_EINVAL,
				   "a bytes id of %zu bytes (1..%d allowed)",
				   v.len, DS_MAX_ID_BYTES);
	if (rc) {
		sbx_buf_free(&v);
		return rc;
	}
	*e = (ds_elem){.is_bytes = true, .b = v.data, .blen = v.len};
	*used = 1 + u;
	return SBX_OK;
}

int sbx_ds_key_encode_row(sbx_buf *out, const sbx_ds_key *k)
{
	size_t len0 = out->len;
	int rc = put_u16(out, k->e[0].kind);
	rc = rc ? rc : ds_put_id(out, &k->e[0]);
	if (rc)
		out->len = len0;
	return rc;
}

/* kind, then the path below the root of the first `upto` elements */
static int put_coll(sbx_buf *out, const sbx_ds_key *k, size_t upto,
		    uint16_t kind)
{
	int rc = put_u16(out, kind);
	for (size_t i = 1; rc == SBX_OK && i < upto; i++) {
		uint8_t f = SBX_DS_FLAG_PATH;
		rc = sbx_buf_append(out, &f, 1);
		rc = rc ? rc : put_u16(out, k->e[i].kind);
		rc = rc ? rc : ds_put_id(out, &k->e[i]);
	}
	return rc;
}

int sbx_ds_key_encode_qualifier(sbx_buf *out, const sbx_ds_key *k)
{
	size_t len0 = out->len;
	int rc;
	if (k->n == 1) {
		rc = put_u16(out, 0);
	} else {
		uint8_t f = SBX_DS_FLAG_ITEM;
		rc = put_coll(out, k, k->n - 1, k->e[k->n - 1].kind);
		rc = rc ? rc : sbx_buf_append(out, &f, 1);
		rc = rc ? rc : ds_put_id(out, &k->e[k->n - 1]);
	}
	if (rc)
		out->len = len0;
	return rc;
}

int sbx_ds_key_encode_meta(sbx_buf *out, const sbx_ds_key *parent,
			   uint16_t kind)
{
	if (kind == 0)
		return sbx_error_set(SBX_EINVAL, "collection kind 0 is reserved");
	size_t len0 = out->len;
	uint8_t f = SBX_DS_FLAG_META;
	int rc = put_coll(out, parent, parent->n, kind);
	rc = rc ? rc : sbx_buf_append(out, &f, 1);
	if (rc)
		out->len = len0;
	return rc;
}

/* ---- decoding -------------------------------------------------------- */

static void elems_free(ds_elem *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].b);
}

int ds_parse_qualifier(sbx_ds_key **out, bool *is_meta, uint16_t *meta_kind,
		       const ds_elem *root, const uint8_t *q, size_t qlen)
{
	*out = NULL;
	ds_elem path[SBX_DS_MAX_DEPTH];
	size_t n = 0;
	int rc = SBX_OK;
	bool meta = false;
	uint16_t kind = 0;
	if (qlen < 2)
		return sbx_error_set(SBX_EINVAL,
				     "qualifier of %zu bytes: a datastore "
				     "qualifier starts with a 2-byte kind",
				     qlen);
	kind = (uint16_t)(q[0] << 8 | q[1]);
	size_t at = 2;
	if (kind == 0) {
		if (qlen != 2)
			return sbx_error_set(SBX_EINVAL,
					     "byte 2: a root column (kind 0) "
					     "has nothing after the kind");
	} else {
		for (;;) {
			if (at >= qlen) {
				rc = sbx_error_set(SBX_EINVAL,
						   "byte %zu: the qualifier ends "
						   "before its flag byte",
						   at);
				break;
			}
			uint8_t f = q[at++];
			if (f == SBX_DS_FLAG_META) {
				meta = true;
				if (at != qlen)
					rc = sbx_error_set(
					    SBX_EINVAL,
					    "byte %zu: bytes after a "
					    "metadata flag",
					    at);
				break;
			}
			if (f != SBX_DS_FLAG_ITEM && f != SBX_DS_FLAG_PATH) {
				rc = sbx_error_set(SBX_EINVAL,
						   "byte %zu: flag 0x%02X is not "
						   "00, 01 or 02",
						   at - 1, f);
				break;
			}
			if (n + 2 >= SBX_DS_MAX_DEPTH) {
				rc = sbx_error_set(SBX_EINVAL,
						   "byte %zu: deeper than %d "
						   "levels",
						   at, SBX_DS_MAX_DEPTH);
				break;
			}
			uint16_t ek = kind;
			if (f == SBX_DS_FLAG_PATH) {
				if (qlen - at < 2) {
					rc = sbx_error_set(SBX_EINVAL,
							   "byte %zu: a path "
							   "kind is cut short",
							   at);
					break;
				}
				ek = (uint16_t)(q[at] << 8 | q[at + 1]);
				at += 2;
				if (ek == 0) {
					rc = sbx_error_set(SBX_EINVAL,
							   "byte %zu: kind 0 "
							   "in a path",
							   at - 2);
					break;
				}
			}
			size_t used;
			char msg[256];
			rc = ds_get_id(&path[n], q + at, qlen - at, &used);
			if (rc) {
				snprintf(msg, sizeof msg, "%s", sbx_errmsg());
				rc = sbx_error_set(rc, "byte %zu: %s", at, msg);
				break;
			}
			path[n++].kind = ek;
			at += used;
			if (f == SBX_DS_FLAG_ITEM) {
				if (at != qlen)
					rc = sbx_error_set(
					    SBX_EINVAL,
					    "byte %zu: bytes after the item's "
					    "id",
					    at);
				break;
			}
		}
	}
	if (rc == SBX_OK && meta && !is_meta)
		rc = sbx_error_set(SBX_EINVAL,
				   "a collection's metadata column, not an "
				   "entity");
	sbx_ds_key *k = NULL;
	rc = rc ? rc : ds_key_alloc(&k, 1 + n);
	if (rc == SBX_OK) {
		rc = elem_copy(&k->e[0], root);
		for (size_t i = 0; i < n; i++) {
			k->e[1 + i] = path[i];
			path[i].b = NULL;
		}
		n = 0;
	}
	elems_free(path, n);
	if (rc) {
		sbx_ds_key_free(k);
		return rc;
	}
	if (is_meta)
		*is_meta = meta;
	if (meta_kind)
		*meta_kind = meta ? kind : 0;
	*out = k;
	return SBX_OK;
}

static int parse_default_row(ds_elem *root, const uint8_t *row, size_t len)
{
	if (len < 3)
		return sbx_error_set(SBX_EINVAL,
				     "row key of %zu bytes: a datastore row is "
				     "a 2-byte kind and an id",
				     len);
	uint16_t kind = (uint16_t)(row[0] << 8 | row[1]);
	if (kind == 0)
		return sbx_error_set(SBX_EINVAL, "row key: kind 0");
	size_t used;
	int rc = ds_get_id(root, row + 2, len - 2, &used);
	if (rc == SBX_OK && used != len - 2) {
		free(root->b);
		rc = sbx_error_set(SBX_EINVAL,
				   "row key: %zu bytes after the root's id",
				   len - 2 - used);
	}
	if (rc == SBX_OK)
		root->kind = kind;
	return rc;
}

static int parse_design_row(ds_elem *root, const sbx_ds *ds,
			    const uint8_t *row, size_t len)
{
	for (size_t i = 0; ds && i < ds->nkinds; i++) {
		const ds_kind *k = &ds->kinds[i];
		if (!k->row_design)
			continue;
		sbx_keyrecord *r;
		if (sbx_keydesign_decode(&r, k->row_design, row, len))
			continue;
		const char *id = sbx_keyrecord_get(r, "id");
		const char *kd = sbx_keyrecord_get(r, "kind");
		int rc = SBX_EINVAL;
		if (id && (!kd || strtoul(kd, NULL, 10) == k->kind)) {
			*root = (ds_elem){.kind = k->kind};
			if (k->design_id_hex) {
				size_t hl = strlen(id);
				root->is_bytes = true;
				root->b = sbx_malloc(hl / 2 + 1);
				root->blen = hl / 2;
				for (size_t j = 0; root->b && j < hl / 2; j++)
					root->b[j] = (uint8_t)strtoul(
					    (char[3]){id[2 * j], id[2 * j + 1],
						      0},
					    NULL, 16);
				rc = root->b ? SBX_OK : SBX_ENOMEM_SET();
			} else {
				char *end;
				root->id = strtoull(id, &end, 10);
				if (*end) { /* a text id */
					root->is_bytes = true;
					root->blen = strlen(id);
					root->b = (uint8_t *)sbx_strdup(id);
					rc = root->b ? SBX_OK
						     : SBX_ENOMEM_SET();
				} else {
					rc = SBX_OK;
				}
			}
		}
		sbx_keyrecord_free(r);
		if (rc == SBX_OK)
			return SBX_OK;
	}
	return SBX_EINVAL;
}

int sbx_ds_key_decode(sbx_ds_key **out, bool *is_meta, uint16_t *meta_kind,
		      const sbx_ds *ds, const uint8_t *row, size_t row_len,
		      const uint8_t *qualifier, size_t qualifier_len)
{
	*out = NULL;
	ds_elem root = {0};
	int rc = parse_default_row(&root, row, row_len);
	if (rc && rc != SBX_ENOMEM && ds) {
		char msg[300];
		snprintf(msg, sizeof msg, "%s", sbx_errmsg());
		if (parse_design_row(&root, ds, row, row_len) == SBX_OK)
			rc = SBX_OK;
		else
			sbx_error_set(SBX_EINVAL, "%s (and no registered row "
						  "design decodes it)",
				      msg);
	}
	if (rc)
		return rc;
	rc = ds_parse_qualifier(out, is_meta, meta_kind, &root, qualifier,
				qualifier_len);
	free(root.b);
	return rc;
}

/* ---- comparing and printing ------------------------------------------- */

int ds_elem_cmp(const ds_elem *a, const ds_elem *b)
{
	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	if (a->is_bytes != b->is_bytes)
		return a->is_bytes ? 1 : -1;
	if (!a->is_bytes)
		return a->id < b->id ? -1 : a->id > b->id;
	size_t n = a->blen < b->blen ? a->blen : b->blen;
	int c = memcmp(a->b, b->b, n);
	return c ? c : (a->blen < b->blen ? -1 : a->blen > b->blen);
}

bool ds_key_is_prefix(const sbx_ds_key *prefix, const sbx_ds_key *k)
{
	if (prefix->n > k->n)
		return false;
	for (size_t i = 0; i < prefix->n; i++)
		if (ds_elem_cmp(&prefix->e[i], &k->e[i]))
			return false;
	return true;
}

int sbx_ds_key_compare(const sbx_ds_key *a, const sbx_ds_key *b)
{
	sbx_buf x = {0}, y = {0};
	int c = 0;
	if (sbx_ds_key_encode_row(&x, a) || sbx_ds_key_encode_row(&y, b))
		goto out;
	c = sbx_bytes_cmp(x.data, x.len, y.data, y.len);
	if (c)
		goto out;
	x.len = y.len = 0;
	if (sbx_ds_key_encode_qualifier(&x, a) ||
	    sbx_ds_key_encode_qualifier(&y, b))
		goto out;
	c = sbx_bytes_cmp(x.data, x.len, y.data, y.len);
out:
	sbx_buf_free(&x);
	sbx_buf_free(&y);
	return c;
}
