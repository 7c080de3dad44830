/*
 * admin.c - table admin over Bigtable's BigtableTableAdmin service: HBase
 * names to table paths (the default namespace only: Bigtable has none),
 * VERSIONS/MIN_VERSIONS/TTL as GC rules and back, create (with initial
 * splits), describe, list, alter and delete families, truncate as
 * DropRowRange, and the per-database cache of the families reads need.
 */
#include "bigtable/bigtable.h"

#include "common/alloc.h"
#include "common/bytes.h"
#include "common/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ADMIN "/google.bigtable.admin.v2.BigtableTableAdmin/"

static int unsupported(const char *what, const char *why)
{
	return sbx_error_set(SBX_EUNSUPPORTED,
			     "the bigtable backend does not support %s (%s)",
			     what, why);
}

int bt_table_path(char **out, bt_db *db, const char *name)
{
	*out = NULL;
	const char *colon = strchr(name, ':');
	if (colon) {
		if (!strncmp(name, "hbase:", 6))
			return sbx_error_set(SBX_EINVAL,
					     "'%s' is in HBase's system "
					     "namespace",
					     name);
		if (strncmp(name, "default:", 8))
			return unsupported("namespaces",
					   "Bigtable has no namespaces; use "
					   "the default one");
		name = colon + 1;
	}
	size_t len = strlen(db->instance) + strlen(name) + 16;
	if (!(*out = sbx_malloc(len)))
		return SBX_ENOMEM_SET();
	snprintf(*out, len, "%s/tables/%s", db->instance, name);
	return SBX_OK;
}

/* ---- GC rules -------------------------------------------------------------- */

static Sbxbta__GcRule *gc_versions(int n)
{
	Sbxbta__GcRule *r = sbx_malloc(sizeof *r);
	if (!r)
		return NULL;
	sbxbta__gc_rule__init(r);
	r->rule_case = SBXBTA__GC_RULE__RULE_MAX_NUM_VERSIONS;
	r->max_num_versions = n;
	return r;
}

static Sbxbta__GcRule *gc_age(int64_t seconds)
{
	Sbxbta__GcRule *r = sbx_malloc(sizeof *r);
	Sbxbta__Duration *d = sbx_malloc(sizeof *d);
	if (!r || !d) {
		free(r);
		free(d);
		return NULL;
	}
	sbxbta__gc_rule__init(r);
	sbxbta__duration__init(d);
	d->seconds = seconds;
	r->rule_case = SBXBTA__GC_RULE__RULE_MAX_AGE;
	r->max_age = d;
	return r;
}

/* A rule over two sub-rules (takes both, NULL-safe). */
static Sbxbta__GcRule *gc_pair(bool union_, Sbxbta__GcRule *a,
			       Sbxbta__GcRule *b)
{
	Sbxbta__GcRule *r = sbx_malloc(sizeof *r);
	Sbxbta__GcRule **v = sbx_malloc(2 * sizeof *v);
	void *holder = union_ ? (void *)sbx_malloc(sizeof(Sbxbta__GcRule__Union))
			      : (void *)sbx_malloc(sizeof(Sbxbta__GcRule__Intersection));
	if (!r || !v || !holder || !a || !b) {
		free(r);
		free(v);
		free(holder);
		if (a)
			protobuf_c_message_free_unpacked(&a->base, NULL);
		if (b)
			protobuf_c_message_free_unpacked(&b->base, NULL);
		return NULL;
	}
	sbxbta__gc_rule__init(r);
	v[0] = a;
	v[1] = b;
	if (union_) {
		Sbxbta__GcRule__Union *u = holder;
		sbxbta__gc_rule__union__init(u);
		u->n_rules = 2;
		u->rules = v;
		r->rule_case = SBXBTA__GC_RULE__RULE_UNION;
		r->union_ = u;
	} else {
		Sbxbta__GcRule__Intersection *x = holder;
		sbxbta__gc_rule__intersection__init(x);
		x->n_rules = 2;
		x->rules = v;
		r->rule_case = SBXBTA__GC_RULE__RULE_INTERSECTION;
		r->intersection = x;
	}
	return r;
}

/* HBase drops a cell over VERSIONS, or past TTL unless it is among the
 * MIN_VERSIONS newest: union(versions, intersection(age, min_versions)). */
static Sbxbta__GcRule *gc_rule(const sbx_family_desc *f)
{
	Sbxbta__GcRule *v = gc_versions(f->max_versions);
	if (f->ttl_seconds == SBX_TTL_FOREVER || f->ttl_seconds <= 0)
		return v;
	Sbxbta__GcRule *age = gc_age(f->ttl_seconds);
	if (f->min_versions > 0)
		age = gc_pair(false, age, gc_versions(f->min_versions));
	return gc_pair(true, v, age);
}

/* GC rules are built with malloc (not protobuf-c's allocator), which is
 * what protobuf_c_message_free_unpacked frees with by default. */
static void gc_free(Sbxbta__GcRule *r)
{
	if (r)
		protobuf_c_message_free_unpacked(&r->base, NULL);
}

/* A rule as the server sent it, into HBase's attributes. What HBase cannot
 * hold is read as the nearest it can: a version count below 1 keeps no
 * rule (HBase's VERSIONS and MIN_VERSIONS are positive), an age of zero or
 * less none either, an age past HBase's FOREVER (2^31 - 1 s, 68 years) is
 * FOREVER, and a fraction of a second rounds up: a server's odd rule never
 * reaches the read path as a count or a cutoff it cannot compute. */
static void gc_read(const Sbxbta__GcRule *r, sbx_family_desc *f, bool inside)
{
	if (!r)
		return;
	switch (r->rule_case) {
	case SBXBTA__GC_RULE__RULE_MAX_NUM_VERSIONS:
		if (r->max_num_versions < 1)
			break;
		if (inside)
			f->min_versions = r->max_num_versions;
		else
			f->max_versions = r->max_num_versions;
		break;
	case SBXBTA__GC_RULE__RULE_MAX_AGE: {
		const Sbxbta__Duration *d = r->max_age;
		if (!d || d->seconds < 0 || (d->seconds == 0 && d->nanos <= 0))
			break;
		f->ttl_seconds = d->seconds < SBX_TTL_FOREVER
					 ? d->seconds + (d->nanos > 0)
					 : SBX_TTL_FOREVER;
		break;
	}
	case SBXBTA__GC_RULE__RULE_UNION:
		for (size_t i = 0; i < r->union_->n_rules; i++)
			gc_read(r->union_->rules[i], f, inside);
		break;
	case SBXBTA__GC_RULE__RULE_INTERSECTION:
		for (size_t i = 0; i < r->intersection->n_rules; i++)
			gc_read(r->intersection->rules[i], f, true);
		break;
	default:
		break;
	}
}

/* Families Bigtable cannot keep as asked: a semantic attribute is refused,
 * storage tuning (compression, bloom, block size, encoding, in-memory) is
 * Bigtable's own business and is dropped (docs/bigtable.md). */
static int check_family(const sbx_family_desc *f)
{
	if (f->keep_deleted_cells != SBX_KEEP_DELETED_FALSE)
		return unsupported("KEEP_DELETED_CELLS",
				   "Bigtable deletes remove cells at once; it "
				   "keeps no delete markers");
	if (f->max_versions <= 0 || f->max_versions > INT32_MAX / 2)
		return sbx_error_set(SBX_EINVAL, "family '%s': bad VERSIONS",
				     f->name);
	return SBX_OK;
}

/* ---- schema cache ---------------------------------------------------------- */

static int cmp_family(const void *a, const void *b)
{
	return strcmp(((const sbx_family_desc *)a)->name,
		      ((const sbx_family_desc *)b)->name);
}

static int get_table(Sbxbta__Table **out, bt_db *db, const char *name)
{
	char *path;
	int rc = bt_table_path(&path, db, name);
	if (rc)
		return rc;
	Sbxbta__GetTableRequest req = SBXBTA__GET_TABLE_REQUEST__INIT;
	req.name = path;
	req.view = 2; /* SCHEMA_VIEW */
	rc = bt_unary(db, ADMIN "GetTable", "name", path, &req.base,
		      &sbxbta__table__descriptor, (ProtobufCMessage **)out);
	if (rc == SBX_ENOTFOUND)
		rc = sbx_error_set(SBX_ENOTFOUND, "table '%s' does not exist",
				   name);
	free(path);
	return rc;
}

/* A family read from the answer, and where it stood in it. */
typedef struct read_family {
	sbx_family_desc f;
	size_t at;
} read_family;

static int cmp_read_family(const void *a, const void *b)
{
	const read_family *x = a, *y = b;
	int c = cmp_family(&x->f, &y->f);
	return c ? c : (x->at > y->at) - (x->at < y->at);
}

int bt_families_of(const Sbxbta__Table *t, sbx_family_desc **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	size_t nf = t->n_column_families;
	read_family *v = sbx_calloc(nf + 1, sizeof *v);
	sbx_family_desc *f = sbx_calloc(nf + 1, sizeof *f);
	if (!v || !f) {
		free(v);
		free(f);
		return SBX_ENOMEM_SET();
	}
	for (size_t i = 0; i < nf; i++) {
		const Sbxbta__Table__ColumnFamiliesEntry *e =
			t->column_families[i];
		/* Bigtable's family names ([-_.a-zA-Z0-9], 64 at most) are all
		 * HBase names: another is a broken answer, not a family */
		if (sbx_family_desc_init(&v[i].f, e->key)) {
			char why[256]; /* the message is rewritten below */
			snprintf(why, sizeof why, "%s", sbx_errmsg());
			int rc = sbx_error_set(SBX_EREMOTE,
					       "Bigtable answered a column family "
					       "name HBase cannot hold (%s)",
					       why);
			free(v);
			free(f);
			return rc;
		}
		v[i].at = i;
		v[i].f.max_versions = INT32_MAX; /* no rule: keep everything */
		if (e->value && e->value->gc_rule)
			gc_read(e->value->gc_rule, &v[i].f, false);
	}
	/* A map entry given twice counts once, the last one (protobuf's rule
	 * for maps) */
	qsort(v, nf, sizeof *v, cmp_read_family);
	size_t k = 0;
	for (size_t i = 0; i < nf; i++)
		if (i + 1 == nf || cmp_family(&v[i].f, &v[i + 1].f))
			f[k++] = v[i].f;
	free(v);
	*out = f;
	*n = k;
	return SBX_OK;
}

int bt_schema_get(bt_db *db, const char *table, sbx_family_desc **out,
		  size_t *n)
{
	*out = NULL;
	*n = 0;
	pthread_mutex_lock(&db->lock);
	for (bt_schema *s = db->schemas; s; s = s->next)
		if (!strcmp(s->table, table)) {
			*out = sbx_malloc((s->n + 1) * sizeof **out);
			if (*out) {
				memcpy(*out, s->families, s->n * sizeof **out);
				*n = s->n;
			}
			pthread_mutex_unlock(&db->lock);
			return *out ? SBX_OK : SBX_ENOMEM_SET();
		}
	pthread_mutex_unlock(&db->lock);
	Sbxbta__Table *t;
	int rc = get_table(&t, db, table);
	if (rc)
		return rc;
	rc = bt_families_of(t, out, n);
	protobuf_c_message_free_unpacked(&t->base, NULL);
	if (rc)
		return rc;
	bt_schema *s = sbx_calloc(1, sizeof *s);
	if (s && (s->table = sbx_strdup(table)) &&
	    (s->families = sbx_malloc((*n + 1) * sizeof *s->families))) {
		memcpy(s->families, *out, *n * sizeof *s->families);
		s->n = *n;
		pthread_mutex_lock(&db->lock);
		s->next = db->schemas;
		db->schemas = s;
		pthread_mutex_unlock(&db->lock);
	} else if (s) {
		free(s->table);
		free(s);
	}
	return SBX_OK;
}

void bt_schema_forget(bt_db *db, const char *table)
{
	pthread_mutex_lock(&db->lock);
	for (bt_schema **p = &db->schemas; *p;) {
		bt_schema *s = *p;
		if (!strcmp(s->table, table)) {
			*p = s->next;
			free(s->table);
			free(s->families);
			free(s);
		} else {
			p = &s->next;
		}
	}
	pthread_mutex_unlock(&db->lock);
}

void bt_schema_free_all(bt_db *db)
{
	while (db->schemas) {
		bt_schema *s = db->schemas;
		db->schemas = s->next;
		free(s->table);
		free(s->families);
		free(s);
	}
}

/* ---- namespaces -------------------------------------------------------------- */

int bt_namespace_create(void *db, const char *ns)
{
	(void)db;
	(void)ns;
	return unsupported("namespaces", "Bigtable has no namespaces");
}

int bt_namespace_drop(void *db, const char *ns)
{
	(void)db;
	(void)ns;
	return unsupported("namespaces", "Bigtable has no namespaces");
}

int bt_namespace_list(char ***out, void *db)
{
	(void)db;
	char **v = sbx_calloc(2, sizeof *v);
	if (!v || !(v[0] = sbx_strdup("default"))) {
		free(v);
		return SBX_ENOMEM_SET();
	}
	*out = v;
	return SBX_OK;
}

/* ---- tables ------------------------------------------------------------------ */

int bt_table_create(void *p, const char *name, const sbx_family_desc *f,
		    size_t n, const sbx_bytes *splits, size_t nsplits)
{
	bt_db *db = p;
	int rc;
	for (size_t i = 0; i < n; i++)
		if ((rc = check_family(&f[i])))
			return rc;
	for (size_t i = 0; i < nsplits; i++) {
		if (splits[i].len == 0 || splits[i].len > SBX_MAX_ROW_LENGTH)
			return sbx_error_set(SBX_EINVAL,
					     "split key %zu is empty or too long",
					     i);
		size_t a = i ? splits[i - 1].len : 0, b = splits[i].len;
		int c = i ? memcmp(splits[i - 1].data, splits[i].data,
				   a < b ? a : b)
			  : -1;
		if (i && (c > 0 || (c == 0 && a >= b)))
			return sbx_error_set(SBX_EINVAL,
					     "split keys must be sorted and "
					     "distinct");
	}
	char *path;
	if ((rc = bt_table_path(&path, db, name)))
		return rc;
	const char *id = strrchr(path, '/') + 1;
	Sbxbta__Table table = SBXBTA__TABLE__INIT;
	Sbxbta__Table__ColumnFamiliesEntry *entries = sbx_calloc(n, sizeof *entries);
	Sbxbta__Table__ColumnFamiliesEntry **ep = sbx_calloc(n, sizeof *ep);
	Sbxbta__ColumnFamily *cfs = sbx_calloc(n, sizeof *cfs);
	Sbxbta__CreateTableRequest__Split *sp = sbx_calloc(nsplits + 1, sizeof *sp);
	Sbxbta__CreateTableRequest__Split **spp = sbx_calloc(nsplits + 1, sizeof *spp);
	rc = entries && ep && cfs && sp && spp ? SBX_OK : SBX_ENOMEM_SET();
	for (size_t i = 0; !rc && i < n; i++) {
		sbxbta__table__column_families_entry__init(&entries[i]);
		sbxbta__column_family__init(&cfs[i]);
		entries[i].key = (char *)f[i].name;
		entries[i].value = &cfs[i];
		if (!(cfs[i].gc_rule = gc_rule(&f[i])))
			rc = SBX_ENOMEM_SET();
		ep[i] = &entries[i];
	}
	for (size_t i = 0; !rc && i < nsplits; i++) {
		sbxbta__create_table_request__split__init(&sp[i]);
		sp[i].key.data = (uint8_t *)splits[i].data;
		sp[i].key.len = splits[i].len;
		spp[i] = &sp[i];
	}
	if (!rc) {
		table.n_column_families = n;
		table.column_families = ep;
		Sbxbta__CreateTableRequest req = SBXBTA__CREATE_TABLE_REQUEST__INIT;
		req.parent = db->instance;
		req.table_id = (char *)id;
		req.table = &table;
		req.n_initial_splits = nsplits;
		req.initial_splits = spp;
		rc = bt_unary(db, ADMIN "CreateTable", "parent", db->instance,
			      &req.base, &sbxbta__table__descriptor, NULL);
		if (rc == SBX_EEXISTS)
			rc = sbx_error_set(SBX_EEXISTS,
					   "table '%s' already exists", name);
	}
	for (size_t i = 0; cfs && i < n; i++)
		gc_free(cfs[i].gc_rule);
	free(entries);
	free(ep);
	free(cfs);
	free(sp);
	free(spp);
	free(path);
	bt_schema_forget(db, name);
	return rc;
}

int bt_table_exists(void *p, const char *name, bool *exists)
{
	*exists = false;
	Sbxbta__Table *t;
	int rc = get_table(&t, p, name);
	if (rc == SBX_ENOTFOUND) {
		return SBX_OK;
	}
	if (rc)
		return rc;
	protobuf_c_message_free_unpacked(&t->base, NULL);
	*exists = true;
	return SBX_OK;
}

int bt_table_describe(sbx_table_info **out, void *p, const char *name)
{
	*out = NULL;
	Sbxbta__Table *t;
	int rc = get_table(&t, p, name);
	if (rc)
		return rc;
	sbx_table_info *info = sbx_calloc(1, sizeof *info);
	if (!info || !(info->name = sbx_strdup(name)))
		rc = SBX_ENOMEM_SET();
	else
		rc = bt_families_of(t, &info->families, &info->nfamilies);
	protobuf_c_message_free_unpacked(&t->base, NULL);
	if (rc) {
		sbx_table_info_free(info);
		return rc;
	}
	info->enabled = true;
	*out = info;
	return SBX_OK;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int bt_table_list(char ***out, void *p)
{
	bt_db *db = p;
	*out = NULL;
	Sbxbta__ListTablesRequest req = SBXBTA__LIST_TABLES_REQUEST__INIT;
	req.parent = db->instance;
	req.view = 1; /* NAME_ONLY */
	Sbxbta__ListTablesResponse *resp;
	int rc = bt_unary(db, ADMIN "ListTables", "parent", db->instance,
			  &req.base, &sbxbta__list_tables_response__descriptor,
			  (ProtobufCMessage **)&resp);
	if (rc)
		return rc;
	/* the emulator ignores paging; production pages at its default size,
	 * which the next_page_token loop below would need (docs/bigtable.md) */
	char **v = sbx_calloc(resp->n_tables + 1, sizeof *v);
	size_t k = 0;
	for (size_t i = 0; v && i < resp->n_tables; i++) {
		const char *n = strrchr(resp->tables[i]->name, '/');
		if (!(v[k++] = sbx_strdup(n ? n + 1 : resp->tables[i]->name))) {
			sbx_strv_free(v);
			v = NULL;
		}
	}
	protobuf_c_message_free_unpacked(&resp->base, NULL);
	if (!v)
		return SBX_ENOMEM_SET();
	qsort(v, k, sizeof *v, cmp_str);
	*out = v;
	return SBX_OK;
}

static int modify(bt_db *db, const char *table, const char *family,
		  int kind /* 2 create, 3 update, 4 drop */,
		  const sbx_family_desc *f)
{
	char *path;
	int rc = bt_table_path(&path, db, table);
	if (rc)
		return rc;
	Sbxbta__ModifyColumnFamiliesRequest__Modification mod =
		SBXBTA__MODIFY_COLUMN_FAMILIES_REQUEST__MODIFICATION__INIT;
	Sbxbta__ModifyColumnFamiliesRequest__Modification *mp = &mod;
	Sbxbta__ColumnFamily cf = SBXBTA__COLUMN_FAMILY__INIT;
	mod.id = (char *)family;
	if (kind == 4) {
		mod.mod_case = SBXBTA__MODIFY_COLUMN_FAMILIES_REQUEST__MODIFICATION__MOD_DROP;
		mod.drop = true;
	} else {
		if (!(cf.gc_rule = gc_rule(f))) {
			free(path);
			return SBX_ENOMEM_SET();
		}
		mod.mod_case = kind;
		if (kind == 2)
			mod.create = &cf;
		else
			mod.update = &cf;
	}
	Sbxbta__ModifyColumnFamiliesRequest req =
		SBXBTA__MODIFY_COLUMN_FAMILIES_REQUEST__INIT;
	req.name = path;
	req.n_modifications = 1;
	req.modifications = &mp;
	rc = bt_unary(db, ADMIN "ModifyColumnFamilies", "name", path,
		      &req.base, &sbxbta__table__descriptor, NULL);
	gc_free(cf.gc_rule);
	free(path);
	bt_schema_forget(db, table);
	return rc;
}

static int find_family(bt_db *db, const char *table, const char *family,
		       bool *found)
{
	sbx_family_desc *f;
	size_t n;
	bt_schema_forget(db, table);
	int rc = bt_schema_get(db, table, &f, &n);
	if (rc)
		return rc;
	*found = false;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(f[i].name, family))
			*found = true;
	free(f);
	return SBX_OK;
}

int bt_table_alter_family(void *p, const char *table, const sbx_family_desc *f)
{
	int rc = check_family(f);
	bool found;
	if (rc || (rc = find_family(p, table, f->name, &found)))
		return rc;
	return modify(p, table, f->name, found ? 3 : 2, f);
}

int bt_table_delete_family(void *p, const char *table, const char *family)
{
	bool found;
	int rc = find_family(p, table, family, &found);
	if (rc)
		return rc;
	if (!found)
		return sbx_error_set(SBX_ENOFAMILY,
				     "table '%s' has no family '%s'", table,
				     family);
	return modify(p, table, family, 4, NULL);
}

int bt_table_set_enabled(void *p, const char *name, bool enabled)
{
	bool exists;
	int rc = bt_table_exists(p, name, &exists);
	if (rc)
		return rc;
	if (!exists)
		return sbx_error_set(SBX_ENOTFOUND, "table '%s' does not exist",
				     name);
	if (!enabled)
		return unsupported("disabling tables",
				   "Bigtable tables are always served");
	return SBX_OK;
}

int bt_table_is_enabled(void *p, const char *name, bool *enabled)
{
	bool exists;
	int rc = bt_table_exists(p, name, &exists);
	*enabled = exists;
	if (!rc && !exists)
		rc = sbx_error_set(SBX_ENOTFOUND, "table '%s' does not exist",
				   name);
	return rc;
}

int bt_table_truncate(void *p, const char *name)
{
	bt_db *db = p;
	char *path;
	int rc = bt_table_path(&path, db, name);
	if (rc)
		return rc;
	Sbxbta__DropRowRangeRequest req = SBXBTA__DROP_ROW_RANGE_REQUEST__INIT;
	req.name = path;
	req.target_case = SBXBTA__DROP_ROW_RANGE_REQUEST__TARGET_DELETE_ALL_DATA_FROM_TABLE;
	req.delete_all_data_from_table = true;
	rc = bt_unary(db, ADMIN "DropRowRange", "name", path, &req.base,
		      &sbxbta__empty__descriptor, NULL);
	if (rc == SBX_ENOTFOUND)
		rc = sbx_error_set(SBX_ENOTFOUND, "table '%s' does not exist",
				   name);
	free(path);
	return rc;
}

int bt_table_drop(void *p, const char *name)
{
	bt_db *db = p;
	char *path;
	int rc = bt_table_path(&path, db, name);
	if (rc)
		return rc;
	Sbxbta__DeleteTableRequest req = SBXBTA__DELETE_TABLE_REQUEST__INIT;
	req.name = path;
	rc = bt_unary(db, ADMIN "DeleteTable", "name", path, &req.base,
		      &sbxbta__empty__descriptor, NULL);
	if (rc == SBX_ENOTFOUND)
		rc = sbx_error_set(SBX_ENOTFOUND, "table '%s' does not exist",
				   name);
	free(path);
	bt_schema_forget(db, name);
	return rc;
}

int bt_table_flush(void *p, const char *name)
{
	/* an acknowledged Bigtable write is durable: nothing to flush */
	bool exists;
	int rc = bt_table_exists(p, name, &exists);
	if (!rc && !exists)
		rc = sbx_error_set(SBX_ENOTFOUND, "table '%s' does not exist",
				   name);
	return rc;
}

int bt_table_major_compact(void *p, const char *name)
{
	(void)p;
	(void)name;
	return unsupported("major compaction",
			   "Bigtable compacts and collects garbage on its own "
			   "schedule");
}

int bt_table_open(void **out, void *p, const char *name)
{
	bt_db *db = p;
	*out = NULL;
	bt_table *t = sbx_calloc(1, sizeof *t);
	int rc = t && (t->name = sbx_strdup(name)) ? SBX_OK : SBX_ENOMEM_SET();
	if (!rc)
		rc = bt_table_path(&t->path, db, name);
	if (!rc) { /* open fails on a missing table, as the other backends */
		sbx_family_desc *f;
		size_t n;
		bt_schema_forget(db, name);
		if (!(rc = bt_schema_get(db, name, &f, &n)))
			free(f);
	}
	if (rc) {
		bt_table_close(t);
		return rc;
	}
	t->db = db;
	*out = t;
	return SBX_OK;
}

void bt_table_close(void *p)
{
	bt_table *t = p;
	if (!t)
		return;
	free(t->name);
	free(t->path);
	free(t);
}

/* ---- regions: tablets from SampleRowKeys ------------------------------------ */

int bt_sample_add(bt_keys *c, const Sbxbt__SampleRowKeysResponse *r)
{
	if (!r->row_key.len)
		return SBX_OK; /* "" = the end of the table */
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 16;
		sbx_buf *v = sbx_realloc(c->keys, cap * sizeof *v);
		if (!v)
			return SBX_ENOMEM_SET();
		c->keys = v;
		c->cap = cap;
	}
	sbx_buf *b = &c->keys[c->n++];
	memset(b, 0, sizeof *b);
	return sbx_buf_set(b, r->row_key.data, r->row_key.len) ? SBX_ENOMEM_SET()
								 : SBX_OK;
}

void bt_keys_free(bt_keys *c)
{
	for (size_t i = 0; i < c->n; i++)
		sbx_buf_free(&c->keys[i]);
	free(c->keys);
	memset(c, 0, sizeof *c);
}

static int on_sample(void *p, ProtobufCMessage **msg)
{
	return bt_sample_add(p, (const void *)*msg);
}

static uint8_t *copy_key(const sbx_buf *b, size_t *len)
{
	*len = b ? b->len : 0;
	uint8_t *d = sbx_malloc(*len + 1);
	if (d && *len)
		memcpy(d, b->data, *len);
	return d;
}

static int cmp_buf(const void *a, const void *b)
{
	const sbx_buf *x = a, *y = b;
	return sbx_bytes_cmp(x->data, x->len, y->data, y->len);
}

int bt_regions_of(sbx_region_info **out, size_t *n, const char *table,
		  bt_keys *keyset)
{
	*out = NULL;
	*n = 0;
	/* Bigtable answers the keys in order, each once; one that does not
	 * is read in order, each key once, so tablets never overlap */
	sbx_buf *keys = keyset->keys;
	if (keyset->n)
		qsort(keys, keyset->n, sizeof *keys, cmp_buf);
	size_t k = 0;
	for (size_t i = 0; i < keyset->n; i++)
		if (!k || cmp_buf(&keys[k - 1], &keys[i]))
			keys[k++] = keys[i];
		else
			sbx_buf_free(&keys[i]);
	keyset->n = k;
	/* tablet i covers [key i-1, key i): the sample keys end tablets */
	sbx_region_info *r = sbx_calloc(k + 1, sizeof *r);
	for (size_t i = 0; r && i <= k; i++) {
		r[i].start_key = copy_key(i ? &keys[i - 1] : NULL,
					  &r[i].start_len);
		r[i].end_key = copy_key(i < k ? &keys[i] : NULL, &r[i].end_len);
		size_t len = strlen(table) + 64;
		r[i].name = sbx_malloc(len);
		if (!r[i].start_key || !r[i].end_key || !r[i].name) {
			sbx_region_infos_free(r, i + 1);
			r = NULL;
			break;
		}
		snprintf(r[i].name, len, "%s,tablet-%zu", table, i);
		snprintf(r[i].encoded, sizeof r[i].encoded, "%032zx", i);
		r[i].id = i;
	}
	if (!r)
		return SBX_ENOMEM_SET();
	*out = r;
	*n = k + 1;
	return SBX_OK;
}

int bt_regions(sbx_region_info **out, size_t *n, void *p, const char *table)
{
	bt_db *db = p;
	*out = NULL;
	*n = 0;
	char *path;
	int rc = bt_table_path(&path, db, table);
	if (rc)
		return rc;
	Sbxbt__SampleRowKeysRequest req = SBXBT__SAMPLE_ROW_KEYS_REQUEST__INIT;
	req.table_name = path;
	bt_keys c = {0};
	rc = bt_call(db, "/google.bigtable.v2.Bigtable/SampleRowKeys",
		     "table_name", path, &req.base,
		     &sbxbt__sample_row_keys_response__descriptor, on_sample, &c);
	if (rc == SBX_ENOTFOUND)
		rc = sbx_error_set(SBX_ENOTFOUND, "table '%s' does not exist",
				   table);
	if (!rc)
		rc = bt_regions_of(out, n, table, &c);
	bt_keys_free(&c);
	free(path);
	return rc;
}
