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
 * Thread-safety: every call may run on any worker thread; one mutex guards
 * the list (held for a lookup, never across a table call other than open
 * and close).
 */
#include "server/rest.h"

#include "common/alloc.h"
#include "common/error.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* Distinct table names cached at once; beyond it a request opens and
 * closes a handle of its own, as before the cache. */
#define REST_TABLES_MAX 256

typedef struct table_entry {
	char *name;
	sbx_table *t;
	long refs;  /* holders, plus one while the entry is not stale */
	bool stale; /* out of the lookup: closed when refs reaches 0 */
	struct table_entry *next;
} table_entry;

struct rest_tables {
	pthread_mutex_t lock;
	table_entry *head;
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
	for (table_entry *e = c->head, *next; e; e = next) {
		next = e->next;
		entry_close(e);
	}
	pthread_mutex_destroy(&c->lock);
	free(c);
}

static void unlink_entry(struct rest_tables *c, table_entry *e)
{
	for (table_entry **p = &c->head; *p; p = &(*p)->next)
		if (*p == e) {
			*p = e->next;
			return;
		}
}

/* Drop the cache's own reference of e (under the lock); returns e when it
 * is to be closed by the caller, outside the lock. */
static table_entry *retire_locked(struct rest_tables *c, table_entry *e)
{
	if (e->stale)
		return NULL;
	e->stale = true;
	c->live--;
	if (--e->refs > 0)
		return NULL;
	unlink_entry(c, e);
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
	for (table_entry *e = c->head, *next; e; e = next) {
		next = e->next;
		table_entry *d = retire_locked(c, e);
		if (d) {
			d->next = doomed;
			doomed = d;
		}
	}
	pthread_mutex_unlock(&c->lock);
	for (table_entry *next; doomed; doomed = next) {
		next = doomed->next;
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
	for (table_entry *e = c->head; e; e = e->next)
		if (!e->stale && !strcmp(e->name, name)) {
			e->refs++;
			*out = e->t;
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
	bool have = false;
	for (table_entry *o = c->head; o && !have; o = o->next)
		have = !o->stale && !strcmp(o->name, name);
	if (!have && gen == c->generation && c->live < REST_TABLES_MAX) {
		e->next = c->head;
		c->head = e;
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
		for (table_entry *e = c->head; e && !found; e = e->next)
			if (e->t == t)
				found = e;
		if (found) {
			if (gone)
				doomed = retire_locked(c, found);
			if (!doomed && --found->refs == 0) {
				unlink_entry(c, found);
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
