/*
 * couple.h - seed 001's couple app on the datastore: a couple is one tree
 * in one row of table `couples`,
 *
 *   Couple:cid
 *     User:uid            the two users
 *     Photo:pid           photos; Comment:n under each
 *     Memo:n, Anniversary:n, Message:n
 *
 * with two indexes: photos by date (newest first, reference) and the
 * couple of a user (reference). The app's screens are the functions
 * below; each runs in one transaction.
 */
#ifndef COUPLE_APP_H
#define COUPLE_APP_H

#include "couple.pb-c.h"
#include "saltbox.h"

enum {
	K_COUPLE = 1,
	K_USER = 2,
	K_PHOTO = 3,
	K_COMMENT = 4,
	K_MEMO = 5,
	K_ANNIVERSARY = 6,
	K_MESSAGE = 7,
};

/* Open the app's datastore on db (tables created if missing). */
int couple_open(sbx_ds **out, sbx_db *db);

/* A new couple with two users; couple_id 0 = a random one. *out_id gets
 * the couple's id (0 on failure). A user is in one couple: a user already
 * in one is SBX_EEXISTS (the user_couple index's row is taken) and
 * nothing is written. */
int couple_create(uint64_t *out_id, sbx_ds *ds, uint64_t couple_id,
		  const char *name, uint64_t since, uint64_t user_a,
		  const char *nick_a, uint64_t user_b, const char *nick_b);

/* Add an item; *out_id (may be NULL) gets its id in its collection. */
int couple_add_photo(uint64_t *out_id, sbx_ds *ds, uint64_t couple,
		     uint64_t uploader, const char *caption, uint64_t taken);
int couple_add_comment(uint64_t *out_id, sbx_ds *ds, uint64_t couple,
		       uint64_t photo, uint64_t user, const char *text);
int couple_add_memo(uint64_t *out_id, sbx_ds *ds, uint64_t couple,
		    uint64_t user, const char *text);
int couple_add_anniversary(uint64_t *out_id, sbx_ds *ds, uint64_t couple,
			   const char *title, uint64_t date);
int couple_send_message(uint64_t *out_id, sbx_ds *ds, uint64_t couple,
			uint64_t sender, const char *text);
int couple_delete_photo(sbx_ds *ds, uint64_t couple, uint64_t photo);

/* Screens. Each appends text lines to out. */

/* A page of photos by date, newest first: `n` photos taken before the
 * cursor (after_taken, after_id) exclusive (0, 0 = from the newest).
 * *next_taken and *next_id get the cursor of the next page (0, 0 when this
 * was the last page). Lines: "PID TAKEN CAPTION". */
int screen_photos(sbx_buf *out, uint64_t *next_taken, uint64_t *next_id,
		  sbx_ds *ds, uint64_t couple, uint64_t after_taken,
		  uint64_t after_id, size_t n);
/* The photos in upload order, newest first, `n` per page, before photo
 * id `before` (0 = from the newest): the seed's subSibling. */
int screen_photos_uploaded(sbx_buf *out, sbx_ds *ds, uint64_t couple,
			   uint64_t before, size_t n);
/* A photo and its comments: "photo PID CAPTION" then "  NICK: TEXT". */
int screen_photo(sbx_buf *out, sbx_ds *ds, uint64_t couple, uint64_t photo);
/* The counts of the couple's collections, read from their metadata
 * (nothing is scanned): "photos N memos N anniversaries N messages N". */
int screen_counts(sbx_buf *out, sbx_ds *ds, uint64_t couple);
/* The couple of a user, through the user index: *couple (0 if none). */
int couple_of_user(uint64_t *couple, sbx_ds *ds, uint64_t user);
/* The last n messages, newest first: "NICK: TEXT". */
int screen_messages(sbx_buf *out, sbx_ds *ds, uint64_t couple, size_t n);

#endif
