/*
 * main.c - the couple app as a program: `couple DIR` (or `couple --connect
 * URL`) creates a couple with a random id, fills its tree and prints the
 * app's screens, then the row key to look at it with
 * `saltbox ds tree --data DIR couples ROW`.
 */
#include "couple.h"

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	sbx_db *db = NULL;
	int rc;
	if (argc == 3 && !strcmp(argv[1], "--connect"))
		rc = sbx_db_connect(&db, argv[2]);
	else if (argc == 2)
		rc = sbx_db_open(&db, argv[1], NULL);
	else {
		fprintf(stderr, "usage: couple DIR | couple --connect URL\n");
		return 2;
	}
	sbx_ds *ds = NULL;
	rc = rc ? rc : couple_open(&ds, db);
	uint64_t c = 0, a = 0, b = 0, photo = 0;
	rc = rc ? rc : sbx_ds_random_id(&a);
	rc = rc ? rc : sbx_ds_random_id(&b);
	rc = rc ? rc
		: couple_create(&c, ds, 0, "Alice & Bob", 20110101, a, "Alice",
				b, "Bob");
	rc = rc ? rc
		: couple_add_photo(&photo, ds, c, a, "beach", 201407010930);
	rc = rc ? rc : couple_add_photo(NULL, ds, c, b, "snow", 201401151200);
	rc = rc ? rc : couple_add_comment(NULL, ds, c, photo, b, "nice");
	rc = rc ? rc : couple_add_memo(NULL, ds, c, a, "buy flowers");
	rc = rc ? rc
		: couple_add_anniversary(NULL, ds, c, "first date", 20110101);
	rc = rc ? rc : couple_send_message(NULL, ds, c, a, "hi");
	sbx_buf out = {0};
	uint64_t nt, ni, found = 0;
	if (rc == SBX_OK) {
		printf("couple %llu\n", (unsigned long long)c);
		rc = screen_photos(&out, &nt, &ni, ds, c, 0, 0, 10);
		rc = rc ? rc : screen_photo(&out, ds, c, photo);
		rc = rc ? rc : screen_counts(&out, ds, c);
		rc = rc ? rc : screen_messages(&out, ds, c, 10);
		rc = rc ? rc : couple_of_user(&found, ds, b);
		fwrite(out.data, 1, out.len, stdout);
		printf("Bob's couple: %llu\n", (unsigned long long)found);
		sbx_ds_key *k = NULL;
		sbx_buf row = {0}, text = {0};
		if (sbx_ds_key_root(&k, K_COUPLE, c) == SBX_OK &&
		    sbx_ds_key_encode_row(&row, k) == SBX_OK &&
		    sbx_key_to_binary_string(&text, row.data, row.len) == SBX_OK)
			printf("row: %.*s\n", (int)text.len,
			       (const char *)text.data);
		sbx_buf_free(&row);
		sbx_buf_free(&text);
		sbx_ds_key_free(k);
	}
	if (rc)
		fprintf(stderr, "couple: %s\n", sbx_errmsg());
	sbx_buf_free(&out);
	sbx_ds_close(ds);
	sbx_db_close(db);
	return rc ? 1 : 0;
}
