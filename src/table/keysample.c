/*
 * keysample.c - the key samplers of a database handle: one bounded
 * sbx_keysampler per table (at most KEYSAMPLE_MAX_TABLES), created on a
 * table's first open once sbx_db_keysample() turned sampling on, fed by
 * the table API's data path (api.c) whatever the backend, and read by
 * sbx_table_keyheat() for /ui's heatmap by key.
 */
#include "table/keysample.h"

#include "common/alloc.h"
#include "common/error.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

enum { KEYSAMPLE_MAX_TABLES = 64 };

typedef struct ks_entry {
	char *name;
	sbx_keysampler *s;
} ks_entry;

struct table_keysamples {
	pthread_mutex_t mu;
	sbx_keysampler_opts o;
	ks_entry e[KEYSAMPLE_MAX_TABLES];
	size_t n;
};

int sbx_db_keysample(sbx_db *db, const sbx_keysampler_opts *o)
{
	sbx_keysampler_opts d;
	if (!o) {
		sbx_keysampler_opts_init(&d);
		o = &d;
	}
	/* validate the options once, with the sampler's own message */
	sbx_keysampler *probe;
	sbx_keysampler_opts tiny = *o;
	tiny.columns = o->columns >= 1 && o->columns <= 100000 ? 1 : o->columns;
	tiny.samples = o->samples >= 1 && o->samples <= 65536 ? 1 : o->samples;
	int rc = sbx_keysampler_new(&probe, &tiny);
	if (rc)
		return rc;
	sbx_keysampler_free(probe);
	if (db->keysamples)
		return sbx_error_set(SBX_EINVAL, "key sampling is on already");
	struct table_keysamples *k = sbx_calloc(1, sizeof *k);
	if (!k)
		return SBX_ENOMEM_SET();
	if (pthread_mutex_init(&k->mu, NULL)) {
		free(k);
		return SBX_ENOMEM_SET();
	}
	k->o = *o;
	db->keysamples = k;
	return SBX_OK;
}

sbx_keysampler *table_keysampler(sbx_db *db, const char *table)
{
	struct table_keysamples *k = db->keysamples;
	if (!k)
		return NULL;
	sbx_keysampler *s = NULL;
	pthread_mutex_lock(&k->mu);
	for (size_t i = 0; i < k->n && !s; i++)
		if (!strcmp(k->e[i].name, table))
			s = k->e[i].s;
	if (!s && k->n < KEYSAMPLE_MAX_TABLES) {
		char *name = sbx_strdup(table);
		if (name && !sbx_keysampler_new(&s, &k->o)) {
			k->e[k->n++] = (ks_entry){name, s};
		} else {
			free(name);
			s = NULL; /* sampling is best effort */
		}
	}
	pthread_mutex_unlock(&k->mu);
	return s;
}

void table_keysamples_free(sbx_db *db)
{
	struct table_keysamples *k = db->keysamples;
	if (!k)
		return;
	for (size_t i = 0; i < k->n; i++) {
		free(k->e[i].name);
		sbx_keysampler_free(k->e[i].s);
	}
	pthread_mutex_destroy(&k->mu);
	free(k);
	db->keysamples = NULL;
}

int sbx_table_keyheat(sbx_keyheat **out, sbx_db *db, const char *table,
		      size_t columns, size_t rows)
{
	*out = NULL;
	if (!db->keysamples)
		return sbx_error_set(SBX_EINVAL, "key sampling is off "
						 "(sbx_db_keysample)");
	sbx_keysampler *s = table_keysampler(db, table);
	if (!s)
		return sbx_error_set(SBX_ENOTFOUND,
				     "table '%s' is not key-sampled (at most "
				     "%d tables are)",
				     table, KEYSAMPLE_MAX_TABLES);
	return sbx_keysampler_heat(out, s, sbx_clock_coarse_ms(), columns,
				   rows);
}
