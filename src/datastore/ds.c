/*
 * ds.c - the datastore handle: opening, registering kinds, triggers and
 * indexes, preparing the tables, and the entity codec (protobuf-c, its
 * memory through the library's allocation seam).
 */
#include "ds_int.h"

#include "common/alloc.h"
#include "common/error.h"

#include <stdlib.h>
#include <string.h>

/* set when protobuf-c's last allocation on this thread failed, so an
 * unpack that fails for want of memory is SBX_ENOMEM, not "malformed" */
static _Thread_local bool pb_oom;

static void *pb_alloc(void *data, size_t size)
{
	(void)data;
	void *p = sbx_malloc(size ? size : 1);
	if (!p)
		pb_oom = true;
	return p;
}

static void pb_free(void *data, void *p)
{
	(void)data;
	free(p);
}

ProtobufCAllocator ds_pb_alloc = {pb_alloc, pb_free, NULL};

int sbx_ds_open(sbx_ds **out, sbx_db *db, const char *table,
		const sbx_txn_options *opts)
{
	*out = NULL;
	if (!db)
		return sbx_error_set(SBX_EINVAL, "sbx_ds_open: no database");
	if (!table || !*table)
		return sbx_error_set(SBX_EINVAL, "sbx_ds_open: no table name");
	sbx_ds *ds = sbx_calloc(1, sizeof *ds);
	if (!ds)
		return SBX_ENOMEM_SET();
	ds->db = db;
	if (opts)
		ds->opts = *opts;
	else
		sbx_txn_options_init(&ds->opts);
	ds->tables = sbx_calloc(1, sizeof *ds->tables);
	if (ds->tables)
		ds->tables[0].name = sbx_strdup(table);
	if (!ds->tables || !ds->tables[0].name) {
		free(ds->tables);
		free(ds);
		return SBX_ENOMEM_SET();
	}
	ds->ntables = 1;
	*out = ds;
	return SBX_OK;
}

void sbx_ds_close(sbx_ds *ds)
{
	if (!ds)
		return;
	for (size_t i = 0; i < ds->ntables; i++) {
		sbx_table_close(ds->tables[i].t);
		free(ds->tables[i].name);
	}
	free(ds->tables);
	for (size_t i = 0; i < ds->nkinds; i++) {
		free(ds->kinds[i].name);
		sbx_keydesign_free(ds->kinds[i].row_design);
	}
	free(ds->kinds);
	free(ds->triggers);
	for (size_t i = 0; i < ds->nindexes; i++) {
		ds_index *x = &ds->indexes[i];
		free(x->name);
		sbx_keydesign_free(x->design);
		for (size_t j = 0; j < x->nfields; j++)
			free(x->fields[j].name);
		free(x->fields);
	}
	free(ds->indexes);
	free(ds);
}

sbx_db *sbx_ds_db(const sbx_ds *ds)
{
	return ds ? ds->db : NULL;
}

int ds_need_prepared(const sbx_ds *ds)
{
	if (!ds)
		return sbx_error_set(SBX_EINVAL, "no datastore");
	if (!ds->prepared)
		return sbx_error_set(SBX_EINVAL,
				     "the datastore is not prepared: call "
				     "sbx_ds_prepare first");
	return SBX_OK;
}

static int not_yet(const sbx_ds *ds, const char *what)
{
	if (!ds)
		return sbx_error_set(SBX_EINVAL, "%s: no datastore", what);
	if (ds->prepared)
		return sbx_error_set(SBX_EBUSY,
				     "%s: the datastore is already prepared "
				     "(register everything before "
				     "sbx_ds_prepare)",
				     what);
	return SBX_OK;
}

static int table_slot(size_t *out, sbx_ds *ds, const char *name)
{
	if (!name) {
		*out = 0;
		return SBX_OK;
	}
	for (size_t i = 0; i < ds->ntables; i++)
		if (!strcmp(ds->tables[i].name, name)) {
			*out = i;
			return SBX_OK;
		}
	ds_table *v =
	    sbx_realloc(ds->tables, (ds->ntables + 1) * sizeof *ds->tables);
	if (!v)
		return SBX_ENOMEM_SET();
	ds->tables = v;
	v[ds->ntables] = (ds_table){sbx_strdup(name), NULL};
	if (!v[ds->ntables].name)
		return SBX_ENOMEM_SET();
	*out = ds->ntables++;
	return SBX_OK;
}

/* The names of the fields a design's element reads: a field's own name,
 * or the inputs of a salt (of=...) or hash, from its type text. */
typedef int (*name_fn)(void *arg, const char *name, size_t len,
		       const sbx_keyelem_info *info);

static int design_names(const sbx_keydesign *d, name_fn fn, void *arg)
{
	size_t n = sbx_keydesign_elem_count(d);
	for (size_t i = 0; i < n; i++) {
		sbx_keyelem_info info;
		int rc = sbx_keydesign_elem(&info, d, i);
		if (rc)
			return rc;
		if (info.kind == SBX_KEYELEM_FIELD) {
			rc = fn(arg, info.name, strlen(info.name), &info);
			if (rc)
				return rc;
			continue;
		}
		if (info.kind != SBX_KEYELEM_SALT &&
		    info.kind != SBX_KEYELEM_HASH)
			continue;
		const char *p = strchr(info.type, '(');
		while (p && *p && *p != ')') {
			p++;
			while (*p == ' ')
				p++;
			size_t start = 0, n = 0, eq = 0;
			bool has_eq = false;
			while (p[n] && p[n] != ',' && p[n] != ')') {
				if (p[n] == '=' && !has_eq) {
					has_eq = true;
					eq = n;
				}
				n++;
			}
			const char *s = p;
			p += n;
			while (n > 0 && s[n - 1] == ' ')
				n--;
			if (has_eq) {
				if (eq != 2 || strncmp(s, "of", 2))
					continue;
				start = eq + 1;
			}
			if (start < n &&
			    (s[start] == '_' ||
			     (s[start] >= 'A' && s[start] <= 'Z') ||
			     (s[start] >= 'a' && s[start] <= 'z'))) {
				rc = fn(arg, s + start, n - start, NULL);
				if (rc)
					return rc;
			}
		}
	}
	return SBX_OK;
}

typedef struct row_check {
	bool id, kind, hex;
} row_check;

static int row_name(void *arg, const char *name, size_t len,
		    const sbx_keyelem_info *info)
{
	row_check *c = arg;
	if (len == 2 && !memcmp(name, "id", 2)) {
		c->id = true;
		if (info && !strncmp(info->type, "bytes", 5))
			c->hex = true;
		return SBX_OK;
	}
	if (len == 4 && !memcmp(name, "kind", 4)) {
		c->kind = true;
		return SBX_OK;
	}
	return sbx_error_set(SBX_EINVAL,
			     "row design: field '%.*s' (a row design may only "
			     "use id and kind)",
			     (int)len, name);
}

int sbx_ds_register_kind(sbx_ds *ds, const sbx_ds_kind_desc *d)
{
	int rc = not_yet(ds, "sbx_ds_register_kind");
	if (rc)
		return rc;
	if (!d || d->kind == 0 || !d->name || !*d->name)
		return sbx_error_set(SBX_EINVAL,
				     "sbx_ds_register_kind: a kind needs a "
				     "number 1..65535 and a name");
	if (d->message && d->message->magic != PROTOBUF_C__MESSAGE_DESCRIPTOR_MAGIC)
		return sbx_error_set(SBX_EINVAL,
				     "kind %s: the message descriptor is not a "
				     "protobuf-c message descriptor",
				     d->name);
	if (ds_kind_find(ds, d->kind) || sbx_ds_kind_by_name(ds, d->name))
		return sbx_error_set(SBX_EINVAL,
				     "kind %s (%u): already registered",
				     d->name, (unsigned)d->kind);
	ds_kind k = {.kind = d->kind, .msg = d->message};
	rc = table_slot(&k.table, ds, d->table);
	if (rc)
		return rc;
	if (d->row_design) {
		sbx_keyparse_pos pos;
		rc = sbx_keydesign_parse(&k.row_design, d->row_design,
					 strlen(d->row_design), &pos);
		if (rc == SBX_ENOMEM)
			return rc;
		if (rc) {
			char msg[300];
			snprintf(msg, sizeof msg, "%s", sbx_errmsg());
			return sbx_error_set(SBX_EINVAL,
					     "kind %s: row design: %s", d->name,
					     msg);
		}
		row_check c = {0};
		rc = design_names(k.row_design, row_name, &c);
		if (rc == SBX_OK && !c.id)
			rc = sbx_error_set(SBX_EINVAL,
					   "kind %s: the row design does not "
					   "use the field id",
					   d->name);
		if (rc) {
			sbx_keydesign_free(k.row_design);
			return rc;
		}
		k.design_has_kind = c.kind;
		k.design_id_hex = c.hex;
	}
	k.name = sbx_strdup(d->name);
	ds_kind *v = k.name ? sbx_realloc(ds->kinds,
					  (ds->nkinds + 1) * sizeof *v)
			    : NULL;
	if (!v) {
		free(k.name);
		sbx_keydesign_free(k.row_design);
		return SBX_ENOMEM_SET();
	}
	ds->kinds = v;
	v[ds->nkinds++] = k;
	return SBX_OK;
}

int sbx_ds_add_trigger(sbx_ds *ds, uint16_t kind, unsigned events,
		       sbx_ds_trigger_fn fn, void *arg)
{
	int rc = not_yet(ds, "sbx_ds_add_trigger");
	if (rc)
		return rc;
	if (!fn || !(events & (SBX_DS_ON_PUT | SBX_DS_ON_DELETE)))
		return sbx_error_set(SBX_EINVAL,
				     "sbx_ds_add_trigger: no function or no "
				     "events");
	if (!ds_kind_find(ds, kind))
		return sbx_error_set(SBX_EINVAL,
				     "sbx_ds_add_trigger: kind %u is not "
				     "registered",
				     (unsigned)kind);
	ds_trigger *v =
	    sbx_realloc(ds->triggers, (ds->ntriggers + 1) * sizeof *v);
	if (!v)
		return SBX_ENOMEM_SET();
	ds->triggers = v;
	v[ds->ntriggers++] = (ds_trigger){kind, events, fn, arg};
	return SBX_OK;
}

typedef struct ix_check {
	ds_index *ix;
	const ProtobufCMessageDescriptor *msg;
	bool unique;
} ix_check;

static int ix_name(void *arg, const char *name, size_t len,
		   const sbx_keyelem_info *info)
{
	ix_check *c = arg;
	ds_index *ix = c->ix;
	for (size_t i = 0; i < ix->nfields; i++)
		if (strlen(ix->fields[i].name) == len &&
		    !memcmp(ix->fields[i].name, name, len))
			return SBX_OK; /* a hash of a field in the key */
	ds_ifield f = {0};
	f.name = sbx_strndup(name, len);
	if (!f.name)
		return SBX_ENOMEM_SET();
	f.hex = info && !strncmp(info->type, "bytes", 5);
	if (!strcmp(f.name, "root")) {
		f.src = DS_F_ROOT;
	} else if (!strcmp(f.name, "id")) {
		f.src = DS_F_ID;
		c->unique = true;
	} else if (!strcmp(f.name, "key")) {
		f.src = DS_F_KEY;
		f.hex = true;
		c->unique = true;
		if (!info || strncmp(info->type, "bytes", 5)) {
			free(f.name);
			return sbx_error_set(SBX_EINVAL,
					     "index %s: the field key is bytes "
					     "(key:bytes)",
					     ix->name);
		}
	} else {
		f.src = DS_F_MSG;
		f.fd = protobuf_c_message_descriptor_get_field_by_name(c->msg,
								       f.name);
		const char *why = NULL;
		if (!f.fd)
			why = "is not a field of";
		else if (f.fd->label == PROTOBUF_C_LABEL_REPEATED)
			why = "is repeated in";
		else if (f.fd->type == PROTOBUF_C_TYPE_MESSAGE)
			why = "is a message in";
		if (why) {
			int rc = sbx_error_set(SBX_EINVAL,
					       "index %s: '%s' %s message %s",
					       ix->name, f.name, why,
					       c->msg->name);
			free(f.name);
			return rc;
		}
	}
	ds_ifield *v = sbx_realloc(ix->fields, (ix->nfields + 1) * sizeof *v);
	if (!v) {
		free(f.name);
		return SBX_ENOMEM_SET();
	}
	ix->fields = v;
	v[ix->nfields++] = f;
	return SBX_OK;
}

static void index_free(ds_index *x)
{
	free(x->name);
	sbx_keydesign_free(x->design);
	for (size_t j = 0; j < x->nfields; j++)
		free(x->fields[j].name);
	free(x->fields);
}

int sbx_ds_add_index(sbx_ds *ds, const sbx_ds_index_desc *d)
{
	int rc = not_yet(ds, "sbx_ds_add_index");
	if (rc)
		return rc;
	if (!d || !d->name || !*d->name || !d->design)
		return sbx_error_set(SBX_EINVAL,
				     "sbx_ds_add_index: an index needs a name "
				     "and a design");
	const ds_kind *k = ds_kind_find(ds, d->kind);
	if (!k || !k->msg)
		return sbx_error_set(SBX_EINVAL,
				     "index %s: kind %u is not registered "
				     "with a message",
				     d->name, (unsigned)d->kind);
	for (size_t i = 0; i < ds->nindexes; i++)
		if (!strcmp(ds->indexes[i].name, d->name))
			return sbx_error_set(SBX_EINVAL,
					     "index %s: already declared",
					     d->name);
	if (d->type != SBX_DS_INDEX_REFERENCE &&
	    d->type != SBX_DS_INDEX_CLUSTERED)
		return sbx_error_set(SBX_EINVAL, "index %s: unknown type %d",
				     d->name, (int)d->type);
	ds_index ix = {.kind = d->kind, .type = d->type};
	ix.name = sbx_strdup(d->name);
	if (!ix.name)
		return SBX_ENOMEM_SET();
	sbx_keyparse_pos pos;
	rc = sbx_keydesign_parse(&ix.design, d->design, strlen(d->design),
				 &pos);
	if (rc && rc != SBX_ENOMEM) {
		char msg[300];
		snprintf(msg, sizeof msg, "%s", sbx_errmsg());
		rc = sbx_error_set(SBX_EINVAL, "index %s: design: %s", d->name,
				   msg);
	}
	ix_check c = {&ix, k->msg, false};
	rc = rc ? rc : design_names(ix.design, ix_name, &c);
	if (rc == SBX_OK && !c.unique)
		rc = sbx_error_set(SBX_EINVAL,
				   "index %s: the design must use id or key, "
				   "so each entity has its own index row",
				   d->name);
	char defname[300];
	snprintf(defname, sizeof defname, "%s_%s", ds->tables[0].name,
		 d->name);
	rc = rc ? rc : table_slot(&ix.table, ds, d->table ? d->table : defname);
	ds_index *v = rc ? NULL
			 : sbx_realloc(ds->indexes,
				       (ds->nindexes + 1) * sizeof *v);
	if (!v) {
		index_free(&ix);
		return rc ? rc : SBX_ENOMEM_SET();
	}
	ds->indexes = v;
	v[ds->nindexes++] = ix;
	return SBX_OK;
}

int sbx_ds_prepare(sbx_ds *ds)
{
	int rc = not_yet(ds, "sbx_ds_prepare");
	for (size_t i = 0; rc == SBX_OK && i < ds->ntables; i++) {
		ds_table *t = &ds->tables[i];
		bool exists = false;
		rc = sbx_table_exists(&exists, ds->db, t->name);
		if (rc == SBX_OK && !exists) {
			sbx_family_desc f[2];
			sbx_txn_lock_family(&f[0]);
			rc = sbx_family_desc_init(&f[1], SBX_DS_FAMILY);
			rc = rc ? rc : sbx_table_create(ds->db, t->name, f, 2);
			if (rc == SBX_EEXISTS) /* another client won */
				rc = SBX_OK;
		}
		rc = rc ? rc : sbx_txn_prepare_table(ds->db, t->name);
		rc = rc ? rc : sbx_table_open(&t->t, ds->db, t->name);
	}
	if (rc == SBX_OK)
		ds->prepared = true;
	return rc;
}

sbx_table *ds_table_for(const sbx_ds *ds, const sbx_ds_key *k)
{
	const ds_kind *kd = ds_kind_find(ds, k->e[0].kind);
	return ds->tables[kd ? kd->table : 0].t;
}

int ds_row_key(sbx_buf *out, const sbx_ds *ds, const sbx_ds_key *k)
{
	const ds_kind *kd = ds_kind_find(ds, k->e[0].kind);
	if (!kd || !kd->row_design)
		return sbx_ds_key_encode_row(out, k);
	const ds_elem *r = &k->e[0];
	sbx_buf idtext = {0};
	char num[32];
	int rc = SBX_OK;
	if (!r->is_bytes) {
		snprintf(num, sizeof num, "%llu", (unsigned long long)r->id);
		rc = sbx_buf_append(&idtext, num, strlen(num));
	} else if (kd->design_id_hex) {
		rc = sbx_key_put_hex(&idtext, r->b, r->blen, false);
	} else {
		rc = sbx_buf_append(&idtext, r->b, r->blen);
	}
	snprintf(num, sizeof num, "%u", (unsigned)r->kind);
	sbx_keyvalue v[2] = {
	    {"id", (const char *)idtext.data, idtext.len},
	    {"kind", num, strlen(num)},
	};
	rc = rc ? rc
		: sbx_keydesign_encode(out, kd->row_design, v,
				       kd->design_has_kind ? 2 : 1);
	sbx_buf_free(&idtext);
	return rc;
}

int ds_pack(sbx_buf *out, const ProtobufCMessage *m)
{
	size_t n = protobuf_c_message_get_packed_size(m);
	int rc = sbx_buf_reserve(out, n + 1);
	if (rc)
		return rc;
	size_t w = protobuf_c_message_pack(m, out->data + out->len);
	out->len += w;
	return SBX_OK;
}

int sbx_ds_entity_decode(ProtobufCMessage **out, const sbx_ds *ds,
			 const sbx_ds_key *key, const uint8_t *bytes,
			 size_t len)
{
	*out = NULL;
	const ds_kind *k = ds_kind_find(ds, sbx_ds_key_kind(key));
	char name[300];
	if (!k || !k->msg) {
		ds_key_name(name, sizeof name, ds, key);
		return sbx_error_set(SBX_EINVAL,
				     "%s: kind %u is not registered with a "
				     "message",
				     name, (unsigned)sbx_ds_key_kind(key));
	}
	pb_oom = false;
	ProtobufCMessage *m =
	    protobuf_c_message_unpack(k->msg, &ds_pb_alloc, len, bytes);
	if (!m && pb_oom)
		return SBX_ENOMEM_SET();
	if (!m) {
		ds_key_name(name, sizeof name, ds, key);
		return sbx_error_set(SBX_EBADVALUE,
				     "%s: the stored entity (%zu bytes) is not "
				     "a valid %s message",
				     name, len, k->msg->name);
	}
	*out = m;
	return SBX_OK;
}

void sbx_ds_entity_free(ProtobufCMessage *msg)
{
	if (msg)
		protobuf_c_message_free_unpacked(msg, &ds_pb_alloc);
}
