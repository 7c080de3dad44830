/*
 * tables.c - the server's cache of open table handles: a request borrows
 * the handle of its table instead of opening (and closing) one of its own.
 *
 * An entry is counted: every request, stateless scan stream and stateful
 * scanner that holds the handle counts once. Invalidation (a table
 * created, dropped or its schema changed through the server, or a data
 * call that found the table gone) marks every entry stale: the next
 * request opens a fresh handle, and a stale handle is closed when its last
 * holder releases it, never under a request that still uses it.
 * Entries are hashed twice: by name (live ones only: a request's lookup)
 * and by handle (every entry until it is closed: the release), so both
 * cost the same with 1 table cached or 256 (a list walked twice per
 * request cost a GET a third of its speed at 250 tables).
 * Thread-safety: every call may run on any worker thread; one mutex guards
 * the hashes (held for a lookup, never across a table call other than open
 * and close).
 */
#include "server/rest.h"

#include "common/alloc.h"
#include "common/bytes.h"
#include "common/error.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Distinct table names cached at once; beyond it a request opens and
 * closes a handle of its own, as before the cache. */
#define REST_TABLES_MAX 256
#define TABLE_BUCKETS 512 /* a power of two, twice REST_TABLES_MAX */

typedef struct table_entry {
	char *name;
	sbx_table *t;
	long refs;  /* holders, plus one while the entry is not stale */
	bool stale; /* out of the name hash: closed when refs reaches 0 */
	struct table_entry *by_name;   /* next in its name bucket */
	struct table_entry *by_handle; /* next in its handle bucket */
} table_entry;

struct rest_tables {
	pthread_mutex_t lock;
	table_entry *names[TABLE_BUCKETS];   /* live entries */
	table_entry *handles[TABLE_BUCKETS]; /* every entry not yet closed */
	size_t live; /* entries not stale */
	unsigned long long generation; /* invalidations so far */
	_Atomic unsigned long long hits, misses;
};

int rest_tables_new(struct rest_tables **out)
{
	*out = sbx_calloc(1, sizeof **out);
	if (!*out)
		return SBX_ENOMEM_SET();
	pthread_mutex_init(&(*out)->lock, NULL);
	return SBX_OK;
}

static void entry_close(table_entry *e)
{
	sbx_table_close(e->t);
	free(e->name);
	free(e);
}

void rest_tables_free(struct rest_tables *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < TABLE_BUCKETS; i++)
		for (table_entry *e = c->handles[i], *next; e; e = next) {
			next = e->by_handle;
			entry_close(e);
		}
	pthread_mutex_destroy(&c->lock);
	free(c);
}

static table_entry **name_bucket(struct rest_tables *c, const char *name)
{
	uint64_t h = sbx_fnv1a(SBX_FNV1A_INIT, name, strlen(name));
	return &c->names[h & (TABLE_BUCKETS - 1)];
}

static table_entry **handle_bucket(struct rest_tables *c, const sbx_table *t)
{
	uint64_t h = (uint64_t)(uintptr_t)t * 0x9E3779B97F4A7C15ull;
	return &c->handles[(h >> 32) & (TABLE_BUCKETS - 1)];
}

/* The live entry named `name`, or NULL. */
static table_entry *find_name(struct rest_tables *c, const char *name)
{
	table_entry *e = *name_bucket(c, name);
	while (e && strcmp(e->name, name))
		e = e->by_name;
	return e;
}

static void unlink_name(struct rest_tables *c, table_entry *e)
{
	table_entry **p = name_bucket(c, e->name);
	while (*p != e)
		p = &(*p)->by_name;
	*p = e->by_name;
}

static void unlink_handle(struct rest_tables *c, table_entry *e)
{
	table_entry **p = handle_bucket(c, e->t);
	while (*p != e)
		p = &(*p)->by_handle;
	*p = e->by_handle;
}

/* Drop the cache's own reference of e (under the lock); returns e when it
 * is to be closed by the caller, outside the lock. */
static table_entry *retire_locked(struct rest_tables *c, table_entry *e)
{
	if (e->stale)
		return NULL;
	e->stale = true;
	unlink_name(c, e);
	c->live--;
	if (--e->refs > 0)
		return NULL;
	unlink_handle(c, e);
	return e;
}

void rest_tables_invalidate(rest_server *srv)
{
	struct rest_tables *c = srv->tables;
	if (!c)
		return;
	table_entry *doomed = NULL;
	pthread_mutex_lock(&c->lock);
	c->generation++;
	for (size_t i = 0; i < TABLE_BUCKETS; i++)
		for (table_entry *e = c->handles[i], *next; e; e = next) {
			next = e->by_handle;
			table_entry *d = retire_locked(c, e);
			if (d) { /* out of the hashes: its link is free */
				d->by_handle = doomed;
				doomed = d;
			}
		}
	pthread_mutex_unlock(&c->lock);
	for (table_entry *next; doomed; doomed = next) {
		next = doomed->by_handle;
		entry_close(doomed);
	}
}

int rest_table_acquire(sbx_table **out, rest_server *srv, const char *name)
{
	struct rest_tables *c = srv->tables;
	*out = NULL;
	if (!c)
		return sbx_table_open(out, srv->db, name);
	pthread_mutex_lock(&c->lock);
	unsigned long long gen = c->generation;
	table_entry *hit = find_name(c, name);
	if (hit) {
		hit->refs++;
		*out = hit->t;
		pthread_mutex_unlock(&c->lock);
		atomic_fetch_add(&c->hits, 1);
		return SBX_OK;
	}
	pthread_mutex_unlock(&c->lock);
	atomic_fetch_add(&c->misses, 1);
	/* Open outside the lock (it reads the catalog); two requests may race
	 * to open the same table: the loser keeps its handle uncached, as does
	 * one that opened it before an invalidation (it may be the old
	 * table's). */
	sbx_table *t;
	int rc = sbx_table_open(&t, srv->db, name);
	if (rc)
		return rc;
	table_entry *e = sbx_calloc(1, sizeof *e);
	if (e && !(e->name = sbx_strdup(name))) {
		free(e);
		e = NULL;
	}
	*out = t;
	if (!e)
		return SBX_OK; /* uncached: rest_table_release closes it */
	e->t = t;
	e->refs = 2; /* the cache's and the caller's */
	pthread_mutex_lock(&c->lock);
	if (!find_name(c, name) && gen == c->generation &&
	    c->live < REST_TABLES_MAX) {
		table_entry **nb = name_bucket(c, name), **hb = handle_bucket(c, t);
		e->by_name = *nb;
		*nb = e;
		e->by_handle = *hb;
		*hb = e;
		c->live++;
		e = NULL;
	}
	pthread_mutex_unlock(&c->lock);
	if (e) {
		free(e->name);
		free(e);
	}
	return SBX_OK;
}

void rest_table_release(rest_server *srv, sbx_table *t, bool gone)
{
	if (!t)
		return;
	struct rest_tables *c = srv->tables;
	table_entry *found = NULL, *doomed = NULL;
	if (c) {
		pthread_mutex_lock(&c->lock);
		found = *handle_bucket(c, t);
		while (found && found->t != t)
			found = found->by_handle;
		if (found) {
			if (gone)
				doomed = retire_locked(c, found);
			if (!doomed && --found->refs == 0) { /* stale: retired */
				unlink_handle(c, found);
				doomed = found;
			}
		}
		pthread_mutex_unlock(&c->lock);
	}
	if (!found) /* not cached: the caller's own handle */
		sbx_table_close(t);
	else if (doomed)
		entry_close(doomed);
}

void rest_tables_stats(rest_server *srv, unsigned long long *hits,
		       unsigned long long *misses)
{
	struct rest_tables *c = srv->tables;
	*hits = c ? atomic_load(&c->hits) : 0;
	*misses = c ? atomic_load(&c->misses) : 0;
}
