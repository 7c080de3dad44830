/*
 * couple_test.c - the couple app's screens with their expected values
 * written out, on the embedded store (argv[1] = a fresh directory) or,
 * with SBX_TEST_BACKEND=remote, over `saltbox serve` at SBX_TEST_URL
 * (tests/run_remote.sh).
 */
#include "couple.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

static void expect(const char *what, int rc, sbx_buf *b, const char *want)
{
	if (rc != SBX_OK) {
		fprintf(stderr, "%s: %s (%s)\n", what, sbx_strerror(rc),
			sbx_errmsg());
		failures++;
	} else if (b->len != strlen(want) || memcmp(b->data, want, b->len)) {
		fprintf(stderr, "%s: got\n%.*s\nwant\n%s\n", what, (int)b->len,
			(const char *)b->data, want);
		failures++;
	}
	b->len = 0;
}

static void expect_u64(const char *what, uint64_t got, uint64_t want)
{
	if (got != want) {
		fprintf(stderr, "%s: got %llu, want %llu\n", what,
			(unsigned long long)got, (unsigned long long)want);
		failures++;
	}
}

static void ok(const char *what, int rc)
{
	if (rc != SBX_OK) {
		fprintf(stderr, "%s: %s (%s)\n", what, sbx_strerror(rc),
			sbx_errmsg());
		failures++;
	}
}

int main(int argc, char **argv)
{
	const char *backend = getenv("SBX_TEST_BACKEND");
	sbx_db *db = NULL;
	int rc;
	if (backend && !strcmp(backend, "remote"))
		rc = sbx_db_connect(&db, getenv("SBX_TEST_URL"));
	else if (argc > 1)
		rc = sbx_db_open(&db, argv[1], NULL);
	else
		rc = SBX_EINVAL;
	if (rc) {
		fprintf(stderr, "usage: couple_test DIR (%s)\n", sbx_errmsg());
		return 2;
	}
	sbx_ds *ds = NULL;
	ok("open", couple_open(&ds, db));
	if (!ds)
		return 1;
	uint64_t c = 0, c2 = 0, id = 0;
	ok("create", couple_create(&c, ds, 1001, "Alice & Bob", 20110101, 11,
				   "Alice", 12, "Bob"));
	ok("create 2", couple_create(&c2, ds, 2002, "Carol & Dan", 20120202,
				     21, "Carol", 22, "Dan"));
	expect_u64("couple id", c, 1001);
	ok("photo", couple_add_photo(&id, ds, c, 11, "new year", 201401011200));
	expect_u64("first photo id", id, 1);
	ok("photo", couple_add_photo(NULL, ds, c, 12, "xmas", 201312251900));
	ok("photo", couple_add_photo(NULL, ds, c, 11, "valentine", 201402141800));
	ok("photo", couple_add_photo(NULL, ds, c, 12, "xmas tree", 201312251900));
	ok("photo", couple_add_photo(&id, ds, c, 11, "spring", 201403011000));
	expect_u64("fifth photo id", id, 5);
	ok("photo", couple_add_photo(NULL, ds, c2, 21, "elsewhere", 201501010000));
	ok("comment", couple_add_comment(&id, ds, c, 2, 11, "so pretty"));
	expect_u64("comment id", id, 1);
	ok("comment", couple_add_comment(&id, ds, c, 2, 12, "merry xmas"));
	expect_u64("comment id", id, 2);
	ok("memo", couple_add_memo(NULL, ds, c, 11, "buy flowers"));
	ok("memo", couple_add_memo(NULL, ds, c, 12, "book a table"));
	ok("anniversary",
	   couple_add_anniversary(NULL, ds, c, "first date", 20110101));
	ok("message", couple_send_message(NULL, ds, c, 11, "hi"));
	ok("message", couple_send_message(NULL, ds, c, 12, "see you at 7"));
	ok("message", couple_send_message(&id, ds, c, 11, "on my way"));
	expect_u64("message id", id, 3);

	sbx_buf b = {0};
	uint64_t nt = 0, ni = 0;
	/* photos by date, newest first, two per page; ties by id */
	rc = screen_photos(&b, &nt, &ni, ds, c, 0, 0, 2);
	expect("photos page 1", rc, &b,
	       "5 201403011000 spring\n3 201402141800 valentine\n");
	expect_u64("page 1 cursor taken", nt, 201402141800);
	expect_u64("page 1 cursor id", ni, 3);
	rc = screen_photos(&b, &nt, &ni, ds, c, nt, ni, 2);
	expect("photos page 2", rc, &b,
	       "1 201401011200 new year\n2 201312251900 xmas\n");
	expect_u64("page 2 cursor id", ni, 2);
	rc = screen_photos(&b, &nt, &ni, ds, c, nt, ni, 2);
	expect("photos page 3", rc, &b, "4 201312251900 xmas tree\n");
	expect_u64("no page 4", nt + ni, 0);
	/* upload order (the seed's subSibling), newest first */
	rc = screen_photos_uploaded(&b, ds, c, 0, 2);
	expect("uploaded page 1", rc, &b, "5 spring\n4 xmas tree\n");
	rc = screen_photos_uploaded(&b, ds, c, 4, 2);
	expect("uploaded page 2", rc, &b, "3 valentine\n2 xmas\n");
	/* a photo with its comments */
	rc = screen_photo(&b, ds, c, 2);
	expect("photo 2", rc, &b,
	       "photo 2 xmas\n  Alice: so pretty\n  Bob: merry xmas\n");
	rc = screen_photo(&b, ds, c, 9);
	if (rc != SBX_ENOTFOUND) {
		fprintf(stderr, "photo 9: %s, want SBX_ENOTFOUND\n",
			sbx_strerror(rc));
		failures++;
	}
	/* counts from the collections' metadata */
	rc = screen_counts(&b, ds, c);
	expect("counts", rc, &b,
	       "photos 5 memos 2 anniversaries 1 messages 3\n");
	rc = screen_messages(&b, ds, c, 2);
	expect("messages", rc, &b, "Alice: on my way\nBob: see you at 7\n");
	/* a user's couple through the index */
	uint64_t found = 0;
	ok("couple of 12", couple_of_user(&found, ds, 12));
	expect_u64("couple of user 12", found, 1001);
	ok("couple of 21", couple_of_user(&found, ds, 21));
	expect_u64("couple of user 21", found, 2002);
	ok("couple of 99", couple_of_user(&found, ds, 99));
	expect_u64("couple of user 99", found, 0);
	/* a user is in one couple: the user index has one row a user, and a
	 * second couple naming user 12 is refused whole (nothing written) */
	uint64_t c3 = 7;
	rc = couple_create(&c3, ds, 3003, "Bob & Eve", 20150505, 12, "Bob",
			   31, "Eve");
	if (rc != SBX_EEXISTS || !strstr(sbx_errmsg(), "user_couple")) {
		fprintf(stderr, "second couple of user 12: %s (%s)\n",
			sbx_strerror(rc), sbx_errmsg());
		failures++;
	}
	expect_u64("refused couple id", c3, 0);
	ok("couple of 12 after", couple_of_user(&found, ds, 12));
	expect_u64("couple of user 12 after", found, 1001);
	ok("couple of 31", couple_of_user(&found, ds, 31));
	expect_u64("couple of user 31 (refused couple)", found, 0);
	/* deleting a photo: gone from the index, the count follows */
	ok("delete", couple_delete_photo(ds, c, 3));
	rc = screen_photos(&b, &nt, &ni, ds, c, 0, 0, 3);
	expect("photos after delete", rc, &b,
	       "5 201403011000 spring\n1 201401011200 new year\n"
	       "2 201312251900 xmas\n");
	rc = screen_counts(&b, ds, c);
	expect("counts after delete", rc, &b,
	       "photos 4 memos 2 anniversaries 1 messages 3\n");
	rc = screen_photos(&b, &nt, &ni, ds, c2, 0, 0, 10);
	expect("the other couple's photos", rc, &b,
	       "1 201501010000 elsewhere\n");
	sbx_buf_free(&b);
	sbx_ds_close(ds);
	sbx_db_close(db);
	if (failures) {
		fprintf(stderr, "couple: %d check(s) failed\n", failures);
		return 1;
	}
	printf("couple: every screen as expected\n");
	return 0;
}
