/*
 * engine_util.h - helpers shared by the engine tests: open a fresh database,
 * create a table, put/delete one cell, and render a result or a whole scan
 * as one string ("row/fam:qual@ts=value;...") so expected values can be
 * written out in full.
 */
#ifndef SBX_TEST_ENGINE_UTIL_H
#define SBX_TEST_ENGINE_UTIL_H

#include "check.h"
#include <time.h>
#include "saltbox.h"

/*
 * The backend under test: embedded (default), or with SBX_TEST_BACKEND=remote
 * the HBase REST gateway at SBX_TEST_URL (tests/run_remote.sh starts
 * `saltbox serve` and sets both), or with SBX_TEST_BACKEND=bigtable Google's
 * Bigtable emulator at SBX_TEST_URL=bigtable://p/i (tests/run_bigtable.sh),
 * so one binary checks every backend with the same expected values.
 */
static inline bool test_bigtable(void)
{
	const char *b = getenv("SBX_TEST_BACKEND");
	return b && !strcmp(b, "bigtable");
}

/* A client backend (REST or Bigtable): connect rather than open a dir. */
static inline bool test_client(void)
{
	const char *b = getenv("SBX_TEST_BACKEND");
	return b && (!strcmp(b, "remote") || !strcmp(b, "bigtable"));
}

static inline bool test_remote(void)
{
	const char *b = getenv("SBX_TEST_BACKEND");
	return b && !strcmp(b, "remote");
}

/* Print why the rest of a check cannot hold on the remote backend and
 * return true there, so callers write `if (!skip_on_remote("..."))`. */
static inline bool skip_on_remote(const char *why)
{
	if (!test_remote())
		return false;
	printf("skip [%s] on remote: %s\n", check_current, why);
	return true;
}

/* The same for the Bigtable backend: what Bigtable cannot express. */
static inline bool skip_on_bigtable(const char *why)
{
	if (!test_bigtable())
		return false;
	printf("skip [%s] on bigtable: %s\n", check_current, why);
	return true;
}

#define SKIP_ON_BIGTABLE(why)                                                \
	do {                                                                 \
		if (skip_on_bigtable(why))                                   \
			return;                                              \
	} while (0)

/* Skip the whole test function on the remote backend, saying why. */
#define SKIP_ON_REMOTE(why)                                                  \
	do {                                                                 \
		if (skip_on_remote(why))                                     \
			return;                                              \
	} while (0)

/* Remote: drop every table and user namespace, leaving an empty store. */
static inline void remote_wipe(sbx_db *db)
{
	char **v = NULL;
	if (sbx_table_list(&v, db) == SBX_OK)
		for (char **p = v; *p; p++)
			if (sbx_table_drop(db, *p))
				fprintf(stderr, "wipe %s: %s\n", *p, sbx_errmsg());
	sbx_strv_free(v);
	v = NULL;
	if (sbx_namespace_list(&v, db) == SBX_OK)
		for (char **p = v; *p; p++)
			if (strcmp(*p, "default") && strcmp(*p, "hbase"))
				sbx_namespace_drop(db, *p);
	sbx_strv_free(v);
}

/* Open the database kept in `dir` (from test_dir()). On the remote backend
 * the gateway's store plays that part: `fresh` empties it first, reopening
 * (fresh = false) just connects again. */
static inline sbx_db *open_at(const char *dir, bool fresh)
{
	sbx_db *db = NULL;
	int rc;
	if (test_client()) {
		const char *url = getenv("SBX_TEST_URL");
		rc = sbx_db_connect(&db, url ? url : "http://127.0.0.1:8080");
		if (rc == SBX_OK && fresh)
			remote_wipe(db);
	} else {
		rc = sbx_db_open(&db, dir, NULL);
	}
	if (rc)
		fprintf(stderr, "open: %s\n", sbx_errmsg());
	return db;
}

static inline sbx_db *open_fresh(const char *name)
{
	return open_at(test_dir(name), true);
}

/* Two families with attributes that must survive a copy: "a" with
 * VERSIONS 3, "b" with LZ4 compression. */
static inline void two_families(sbx_family_desc f[2])
{
	sbx_family_desc_init(&f[0], "a");
	f[0].max_versions = 3;
	sbx_family_desc_init(&f[1], "b");
	f[1].compression = SBX_COMPRESSION_LZ4;
}

/* Create `name` with one family `cf` and the given VERSIONS. */
static inline int make_table(sbx_db *db, const char *name, const char *cf,
			     int versions)
{
	sbx_family_desc f;
	sbx_family_desc_init(&f, cf);
	f.max_versions = versions;
	return sbx_table_create(db, name, &f, 1);
}

/* A fresh store `name` with table "t" (one family "cf", the given
 * VERSIONS), opened: *db and *t (*t NULL if the store would not open;
 * failures counted). Close both with close_table_db. */
static inline void open_fresh_table(sbx_db **db, sbx_table **t,
				    const char *name, int versions)
{
	*db = open_fresh(name);
	*t = NULL;
	if (!*db)
		return;
	CHECK_INT(make_table(*db, "t", "cf", versions), SBX_OK);
	CHECK_INT(sbx_table_open(t, *db, "t"), SBX_OK);
}

static inline void close_table_db(sbx_db **db, sbx_table **t)
{
	sbx_table_close(*t);
	sbx_db_close(*db);
	*t = NULL;
	*db = NULL;
}

static inline int put1(sbx_table *t, const char *row, const char *cf,
		       const char *q, int64_t ts, const char *v)
{
	sbx_mutation *m;
	int rc = sbx_mutation_new(&m, row, strlen(row));
	if (rc)
		return rc;
	rc = sbx_mutation_put(m, cf, q, strlen(q), ts, v, strlen(v));
	if (!rc)
		rc = sbx_table_mutate(NULL, t, m);
	sbx_mutation_free(m);
	return rc;
}

static inline int del1(sbx_table *t, const char *row, sbx_cell_type type,
		       const char *cf, const char *q, int64_t ts)
{
	sbx_mutation *m;
	int rc = sbx_mutation_new(&m, row, strlen(row));
	if (rc)
		return rc;
	rc = sbx_mutation_delete(m, type, cf, q, q ? strlen(q) : 0, ts);
	if (!rc)
		rc = sbx_table_mutate(NULL, t, m);
	sbx_mutation_free(m);
	return rc;
}

static inline const char *type_tag(sbx_cell_type t)
{
	switch (t) {
	case SBX_CELL_PUT: return "";
	case SBX_CELL_DELETE: return "!Delete";
	case SBX_CELL_DELETE_COLUMN: return "!DeleteColumn";
	case SBX_CELL_DELETE_FAMILY: return "!DeleteFamily";
	case SBX_CELL_DELETE_FAMILY_VERSION: return "!DeleteFamilyVersion";
	}
	return "!?";
}

/* Printable form of bytes: \xNN for anything outside 0x21..0x7e. */
static inline void put_bytes(char *out, size_t cap, const uint8_t *p, size_t n)
{
	size_t o = strlen(out);
	for (size_t i = 0; i < n && o + 5 < cap; i++) {
		if (p[i] > 0x20 && p[i] < 0x7f)
			out[o++] = (char)p[i];
		else
			o += (size_t)snprintf(out + o, cap - o, "\\x%02X", p[i]);
	}
	out[o] = 0;
}

/* Append "row/cf:q@ts=value;" for every cell; timestamps shown unless
 * show_ts is false. */
static inline void render_result(char *out, size_t cap, const sbx_result *r,
				 bool show_ts)
{
	for (size_t i = 0; i < sbx_result_size(r); i++) {
		const sbx_cell *c = sbx_result_cell(r, i);
		put_bytes(out, cap, c->row, c->row_len);
		size_t o = strlen(out);
		snprintf(out + o, cap - o, "/%s:", c->family);
		put_bytes(out, cap, c->qualifier, c->qualifier_len);
		o = strlen(out);
		if (show_ts)
			snprintf(out + o, cap - o, "@%lld", (long long)c->timestamp);
		o = strlen(out);
		snprintf(out + o, cap - o, "%s=", type_tag(c->type));
		put_bytes(out, cap, c->value, c->value_len);
		o = strlen(out);
		snprintf(out + o, cap - o, ";");
	}
}

static inline const char *get_str(sbx_table *t, const char *row,
				  const sbx_read_opts *o, bool show_ts)
{
	static char buf[8192];
	buf[0] = 0;
	sbx_result *r = NULL;
	int rc = sbx_table_get(&r, t, row, strlen(row), o);
	if (rc) {
		snprintf(buf, sizeof buf, "ERR %s", sbx_strerror(rc));
		return buf;
	}
	render_result(buf, sizeof buf, r, show_ts);
	sbx_result_free(r);
	return buf;
}

/* Every result of a scan, results separated by '|'. */
static inline const char *scan_str(sbx_table *t, const sbx_scan_opts *o,
				   bool show_ts)
{
	static char buf[65536];
	buf[0] = 0;
	sbx_scanner *s = NULL;
	int rc = sbx_scanner_open(&s, t, o);
	if (rc) {
		snprintf(buf, sizeof buf, "ERR %s", sbx_strerror(rc));
		return buf;
	}
	sbx_result *r;
	bool first = true;
	while ((rc = sbx_scanner_next(s, &r)) == SBX_OK) {
		if (!first)
			strcat(buf, "|");
		first = false;
		render_result(buf, sizeof buf, r, show_ts);
		sbx_result_free(r);
	}
	if (rc != SBX_ITEROVER)
		snprintf(buf, sizeof buf, "ERR %s", sbx_strerror(rc));
	sbx_scanner_close(s);
	return buf;
}

#endif
