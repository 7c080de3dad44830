/*
 * tables.c - the in-memory tables: family and table objects with their
 * reference counts and locks, and the engine's lists of namespaces and
 * tables that name them. Invariants: a table's families stay sorted by
 * name; the lists change only under admin_lock plus catalog_lock (write),
 * so catalog_lock (read) or admin_lock alone is enough to read them.
 */
#include "engine/engine.h"

#include "common/alloc.h"
#include "common/error.h"
#include "model/names.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- families and tables ---- */

family *family_new(engine *e, const sbx_family_desc *d, const char *cf_name)
{
	family *f = sbx_calloc(1, sizeof *f);
	if (!f)
		return NULL;
	atomic_init(&f->refs, 1);
	f->desc = *d;
	snprintf(f->cf_name, sizeof f->cf_name, "%s", cf_name);
	f->eng = e;
	return f;
}

void family_unref(family *f)
{
	if (f && atomic_fetch_sub(&f->refs, 1) == 1) {
		if (f->cf)
			rocksdb_column_family_handle_destroy(f->cf);
		free(f);
	}
}

table *table_new(const char *ns, const char *q)
{
	table *t = sbx_calloc(1, sizeof *t);
	if (!t)
		return NULL;
	atomic_init(&t->refs, 1);
	t->lock = aligned_alloc(_Alignof(table_lock_stripe),
				TABLE_LOCK_STRIPES * sizeof *t->lock);
	if (!t->lock) {
		free(t);
		return NULL;
	}
	for (int i = 0; i < TABLE_LOCK_STRIPES; i++)
		pthread_rwlock_init(&t->lock[i].l, NULL);
	snprintf(t->ns, sizeof t->ns, "%s", ns);
	snprintf(t->qualifier, sizeof t->qualifier, "%s", q);
	names_canonical(t->name, sizeof t->name, ns, q);
	t->enabled = true;
	t->next_family_seq = 1;
	return t;
}

void table_cache_forget(table *t)
{
	atomic_fetch_add_explicit(&t->cache_epoch, 1, memory_order_seq_cst);
}

/* Regions are made by regions.c and freed here, with their table. */
void region_free(region *r)
{
	if (!r)
		return;
	sbx_buf_free(&r->start);
	sbx_buf_free(&r->end);
	free(r->slots);
	pthread_mutex_destroy(&r->slots_lock);
	free(r->stripes);
	free(r);
}

static void table_free_families(table *t)
{
	for (size_t i = 0; i < t->nfams; i++)
		family_unref(t->fams[i]);
	free(t->fams);
	t->fams = NULL;
	t->nfams = 0;
}

void table_unref(table *t)
{
	if (t && atomic_fetch_sub(&t->refs, 1) == 1) {
		for (int i = 0; i < TABLE_SPARE_READERS; i++) {
			parked_reader *p = atomic_load(&t->spare_reader[i].p);
			if (p)
				p->release(p);
		}
		table_free_families(t);
		for (size_t i = 0; i < t->nregions; i++)
			region_free(t->regions[i]);
		free(t->regions);
		for (int i = 0; i < TABLE_LOCK_STRIPES; i++)
			pthread_rwlock_destroy(&t->lock[i].l);
		free(t->lock);
		free(t);
	}
}

family *table_family(const table *t, const char *name)
{
	for (size_t i = 0; i < t->nfams; i++)
		if (!strcmp(t->fams[i]->desc.name, name))
			return t->fams[i];
	return NULL;
}

static int cmp_family_ptr(const void *a, const void *b)
{
	return strcmp((*(family *const *)a)->desc.name,
		      (*(family *const *)b)->desc.name);
}

int table_add_family(table *t, family *f)
{
	assert(!table_family(t, f->desc.name));
	family **fams = sbx_realloc(t->fams, (t->nfams + 1) * sizeof *fams);
	if (!fams)
		return SBX_ENOMEM_SET();
	t->fams = fams;
	t->fams[t->nfams++] = f;
	qsort(t->fams, t->nfams, sizeof *t->fams, cmp_family_ptr);
	return SBX_OK;
}

void table_remove_family(table *t, const family *f)
{
	for (size_t i = 0; i < t->nfams; i++)
		if (t->fams[i] == f) {
			memmove(&t->fams[i], &t->fams[i + 1],
				(t->nfams - i - 1) * sizeof *t->fams);
			t->nfams--;
			return;
		}
}

/*
 * RocksDB counts into a per-thread perf context on every iterator step,
 * get and write at its default perf level (counts on): each count is a
 * call for the thread-local context of a shared library, about 8 % of a
 * short scan's time. Saltbox reads none of those counters, so a thread's
 * first data call turns them off for that thread (RocksDB's perf level is
 * per thread; docs/api.md says so for programs that use RocksDB directly
 * too).
 */
static void quiet_rocksdb_counters(void)
{
	static _Thread_local bool quiet;
	if (!quiet) {
		rocksdb_set_perf_level(rocksdb_disable);
		quiet = true;
	}
}

pthread_rwlock_t *table_lock_of(table *t)
{
	return &t->lock[engine_thread_index() % TABLE_LOCK_STRIPES].l;
}

void table_rdlock(table *t)
{
	pthread_rwlock_rdlock(table_lock_of(t));
}

void table_rdunlock(table *t)
{
	pthread_rwlock_unlock(table_lock_of(t));
}

void table_wrlock(table *t)
{
	for (int i = 0; i < TABLE_LOCK_STRIPES; i++)
		pthread_rwlock_wrlock(&t->lock[i].l);
}

void table_wrunlock(table *t)
{
	for (int i = TABLE_LOCK_STRIPES; i-- > 0;)
		pthread_rwlock_unlock(&t->lock[i].l);
}

int table_lock_for_data(table *t, bool need_enabled)
{
	quiet_rocksdb_counters();
	table_rdlock(t);
	if (t->dropped) {
		table_rdunlock(t);
		return sbx_error_set(SBX_ENOTFOUND, "table '%s' was dropped",
				     t->name);
	}
	if (need_enabled && !t->enabled) {
		table_rdunlock(t);
		return sbx_error_set(SBX_EDISABLED, "table '%s' is disabled",
				     t->name);
	}
	return SBX_OK;
}

/* ---- the engine's lists ---- */

table *engine_find_table(engine *e, const char *ns, const char *q)
{
	for (size_t i = 0; i < e->ntables; i++)
		if (!strcmp(e->tables[i]->ns, ns) &&
		    !strcmp(e->tables[i]->qualifier, q))
			return e->tables[i];
	return NULL;
}

bool engine_has_namespace(engine *e, const char *ns)
{
	for (size_t i = 0; i < e->nnamespaces; i++)
		if (!strcmp(e->namespaces[i], ns))
			return true;
	return false;
}

int engine_add_namespace(engine *e, const char *ns)
{
	char **v = sbx_realloc(e->namespaces, (e->nnamespaces + 1) * sizeof *v);
	if (!v)
		return SBX_ENOMEM_SET();
	e->namespaces = v;
	if (!(v[e->nnamespaces] = sbx_strdup(ns)))
		return SBX_ENOMEM_SET();
	e->nnamespaces++;
	return SBX_OK;
}

void engine_remove_namespace(engine *e, const char *ns)
{
	for (size_t i = 0; i < e->nnamespaces; i++)
		if (!strcmp(e->namespaces[i], ns)) {
			free(e->namespaces[i]);
			e->namespaces[i] = e->namespaces[--e->nnamespaces];
			return;
		}
}

int engine_add_table(engine *e, table *t)
{
	table **v = sbx_realloc(e->tables, (e->ntables + 1) * sizeof *v);
	if (!v)
		return SBX_ENOMEM_SET();
	e->tables = v;
	v[e->ntables++] = t;
	return SBX_OK;
}

void engine_remove_table(engine *e, table *t)
{
	for (size_t i = 0; i < e->ntables; i++)
		if (e->tables[i] == t) {
			e->tables[i] = e->tables[--e->ntables];
			return;
		}
}

int engine_table_get(table **out, engine *e, const char *name)
{
	char ns[SBX_MAX_TABLE_NAME + 1], q[SBX_MAX_TABLE_NAME + 1];
	*out = NULL;
	int rc = names_split_table(name, ns, q);
	if (rc)
		return rc;
	pthread_rwlock_rdlock(&e->catalog_lock);
	table *t = engine_find_table(e, ns, q);
	if (t)
		atomic_fetch_add(&t->refs, 1);
	pthread_rwlock_unlock(&e->catalog_lock);
	if (!t)
		return sbx_error_set(SBX_ENOTFOUND, "table '%s' does not exist",
				     name);
	*out = t;
	return SBX_OK;
}

/* Take each parked reader of the slots in `mask` out, drop its iterator
 * and park it again (or free it, if another was parked meanwhile). */
static void drop_slots(table *t, unsigned mask)
{
	atomic_fetch_and_explicit(&t->spare_iterators, ~mask,
				  memory_order_relaxed);
	for (unsigned i = 0; i < TABLE_SPARE_READERS; i++) {
		if (!(mask & 1u << i) ||
		    !atomic_load_explicit(&t->spare_reader[i].p,
					  memory_order_relaxed))
			continue;
		parked_reader *p = atomic_exchange_explicit(
		    &t->spare_reader[i].p, NULL, memory_order_acquire);
		if (!p)
			continue;
		p->drop_iterator(p);
		parked_reader *none = NULL;
		if (!atomic_compare_exchange_strong_explicit(
			    &t->spare_reader[i].p, &none, p,
			    memory_order_release, memory_order_relaxed))
			p->release(p);
	}
}

void table_drop_kept_iterator(table *t)
{
	drop_slots(t, (1u << TABLE_SPARE_READERS) - 1);
}

void table_drop_marked_iterators(table *t)
{
	unsigned m = atomic_load_explicit(&t->spare_iterators,
					  memory_order_relaxed);
	if (m)
		drop_slots(t, m);
}

unsigned engine_thread_index(void)
{
	static _Atomic unsigned next;
	static _Thread_local unsigned index1; /* the index + 1; 0: none yet */
	if (!index1)
		index1 = atomic_fetch_add_explicit(&next, 1,
						   memory_order_relaxed) + 1;
	return index1 - 1;
}

/* ---- a step on one table, under its locks ---- */

/* fn under the admin lock and t's lock, write (exclusive) or read. */
static int with_table_admin(engine *e, const char *name, table_fn fn,
			    const void *arg, bool exclusive)
{
	if (e->opts.read_only)
		return sbx_error_set(SBX_EREADONLY, "database is read-only");
	table *t;
	int rc = engine_table_get(&t, e, name);
	if (rc)
		return rc;
	pthread_mutex_lock(&e->admin_lock);
	if (exclusive)
		table_wrlock(t);
	else
		table_rdlock(t);
	/* The parked get iterator goes first when exclusive (no read runs
	 * meanwhile to park another, and fn may drop its column family),
	 * else after fn (it would pin the files fn replaced). */
	if (exclusive)
		table_drop_kept_iterator(t);
	rc = t->dropped ? sbx_error_set(SBX_ENOTFOUND,
					"table '%s' does not exist", name)
			: fn(e, t, arg);
	/* A schema change, truncate, flush or compaction: the row cache
	 * forgets the table. Under the write lock no read runs; under the
	 * read lock (flush, compaction: what a read returns is the same
	 * before and after) a read that filled an entry meanwhile filled
	 * it under the old epoch, which no later read looks up. */
	table_cache_forget(t);
	if (!exclusive)
		table_drop_kept_iterator(t);
	if (exclusive)
		table_wrunlock(t);
	else
		table_rdunlock(t);
	pthread_mutex_unlock(&e->admin_lock);
	table_unref(t);
	return rc;
}

int engine_with_table_admin(engine *e, const char *name, table_fn fn,
			    const void *arg)
{
	return with_table_admin(e, name, fn, arg, true);
}

int engine_with_table_maintenance(engine *e, const char *name, table_fn fn,
				  const void *arg)
{
	return with_table_admin(e, name, fn, arg, false);
}

int engine_with_table_read(engine *e, const char *name, table_fn fn,
			   const void *arg)
{
	table *t;
	int rc = engine_table_get(&t, e, name);
	if (rc)
		return rc;
	table_rdlock(t);
	rc = fn(e, t, arg);
	table_rdunlock(t);
	table_unref(t);
	return rc;
}
