/*
 * api_tour.c - a complete tour of the Saltbox C API: open a store, create a
 * table with a versioned family, write, read, scan forward and reversed,
 * delete, count with an increment, and check-and-put. docs/api.md shows
 * this file verbatim; the test suite builds and runs it.
 */
#include <saltbox.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TRY(call)                                                            \
	do {                                                                 \
		int rc_ = (call);                                            \
		if (rc_ < 0) {                                               \
			fprintf(stderr, "%s failed: %s (%s)\n", #call,       \
				sbx_errmsg(), sbx_strerror(rc_));            \
			exit(1);                                             \
		}                                                            \
	} while (0)

static void print_result(const sbx_result *r)
{
	for (size_t i = 0; i < sbx_result_size(r); i++) {
		const sbx_cell *c = sbx_result_cell(r, i);
		printf("%.*s %s:%.*s @%lld = %.*s\n", (int)c->row_len,
		       (const char *)c->row, c->family, (int)c->qualifier_len,
		       (const char *)c->qualifier, (long long)c->timestamp,
		       (int)c->value_len, (const char *)c->value);
	}
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : "./tour-data";
	sbx_db *db;
	TRY(sbx_db_open(&db, dir, NULL)); /* created if missing */

	/* A table "messages" with one family "m" keeping 3 versions. */
	sbx_family_desc fam;
	TRY(sbx_family_desc_init(&fam, "m"));
	fam.max_versions = 3;
	fam.compression = SBX_COMPRESSION_LZ4;
	bool exists;
	TRY(sbx_table_exists(&exists, db, "messages"));
	if (!exists)
		TRY(sbx_table_create(db, "messages", &fam, 1));

	sbx_table *t;
	TRY(sbx_table_open(&t, db, "messages"));

	/* Put: one row, several cells, applied atomically. */
	const char *users[] = {"user1", "user2", "user3"};
	for (int i = 0; i < 3; i++) {
		sbx_mutation *m;
		TRY(sbx_mutation_new(&m, users[i], strlen(users[i])));
		TRY(sbx_mutation_put(m, "m", "text", 4, 1000 + i, "hello", 5));
		TRY(sbx_mutation_put(m, "m", "to", 2, 1000 + i, "kim", 3));
		TRY(sbx_table_mutate(NULL, t, m));
		sbx_mutation_free(m);
	}

	/* Get the newest version of every column of one row. */
	sbx_result *r;
	TRY(sbx_table_get(&r, t, "user2", 5, NULL));
	print_result(r);
	sbx_result_free(r);

	/* Scan [user1, user3) forward, then reversed from user3 down. */
	sbx_scan_opts so;
	sbx_scan_opts_init(&so);
	so.start_row = "user1";
	so.start_row_len = 5;
	so.stop_row = "user3";
	so.stop_row_len = 5;
	sbx_scanner *s;
	TRY(sbx_scanner_open(&s, t, &so));
	int rc;
	while ((rc = sbx_scanner_next(s, &r)) == SBX_OK) {
		print_result(r);
		sbx_result_free(r);
	}
	TRY(rc);
	sbx_scanner_close(s);

	sbx_scan_opts_init(&so);
	so.reversed = true; /* HBase order: start is the high bound */
	so.start_row = "user3";
	so.start_row_len = 5;
	so.limit = 2;
	TRY(sbx_scanner_open(&s, t, &so));
	while ((rc = sbx_scanner_next(s, &r)) == SBX_OK) {
		size_t n;
		const uint8_t *row = sbx_result_row(r, &n);
		printf("reversed: %.*s\n", (int)n, (const char *)row);
		sbx_result_free(r);
	}
	TRY(rc);
	sbx_scanner_close(s);

	/* Delete all versions of m:to in user1; count reads with a counter. */
	sbx_mutation *m;
	TRY(sbx_mutation_new(&m, "user1", 5));
	TRY(sbx_mutation_delete(m, SBX_CELL_DELETE_COLUMN, "m", "to", 2,
				SBX_LATEST_TIMESTAMP));
	TRY(sbx_mutation_increment(m, "m", "reads", 5, 1));
	TRY(sbx_table_mutate(&r, t, m)); /* r holds the counter's new value */
	printf("counter cells: %zu\n", sbx_result_size(r));
	sbx_result_free(r);
	sbx_mutation_free(m);

	/* Check-and-put: claim user3 only if nobody has (m:owner absent). */
	TRY(sbx_mutation_new(&m, "user3", 5));
	TRY(sbx_mutation_put(m, "m", "owner", 5, SBX_LATEST_TIMESTAMP, "me", 2));
	sbx_check absent = {"m", "owner", 5, SBX_CMP_EQUAL, NULL, 0};
	bool claimed;
	TRY(sbx_table_check_and_mutate(&claimed, NULL, t, "user3", 5, &absent,
				       m));
	printf("claimed: %s\n", claimed ? "yes" : "no (already owned)");
	sbx_mutation_free(m);

	sbx_table_close(t);
	sbx_db_close(db);
	return 0;
}
