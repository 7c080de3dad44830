/*
 * test_bigtable_rows.c - MutateRows' streamed answers (src/bigtable/data.c)
 * with no server: Bigtable may answer one MutateRows in several responses,
 * each naming some of the request's entries by index; the backend records
 * every one (an index outside the request ignored), and only UNAVAILABLE,
 * DEADLINE_EXCEEDED and ABORTED are sent again. The emulator always answers
 * in one response, so this is where the streamed form is proven.
 */
#include "check.h"

#include "bigtable/bigtable.h"

static Sbxbt__MutateRowsResponse__Entry *entry(
    Sbxbt__MutateRowsResponse__Entry *e, Sbxbt__Status *st, int64_t index,
    int code, const char *text)
{
	sbxbt__mutate_rows_response__entry__init(e);
	sbxbt__status__init(st);
	e->index = index;
	st->code = code;
	st->message = (char *)text;
	e->status = st;
	return e;
}

static void test_entries_from_several_responses(void)
{
	int code[3];
	char *text[3] = {NULL, NULL, NULL};
	bt_rows_status st = {3, code, text};
	for (int i = 0; i < 3; i++)
		code[i] = -1;

	Sbxbt__MutateRowsResponse__Entry e[4];
	Sbxbt__Status s[4];
	Sbxbt__MutateRowsResponse__Entry *first[2] = {
	    entry(&e[0], &s[0], 0, 0, ""),
	    entry(&e[1], &s[1], 2, 14, "unavailable"),
	};
	Sbxbt__MutateRowsResponse r1 = SBXBT__MUTATE_ROWS_RESPONSE__INIT;
	r1.n_entries = 2;
	r1.entries = first;
	CHECK_INT(bt_rows_status_add(&st, &r1), SBX_OK);
	CHECK_INT(code[0], 0);
	CHECK_INT(code[1], -1); /* not named yet */
	CHECK_INT(code[2], 14);
	CHECK(text[0] == NULL);
	CHECK_STR(text[2], "unavailable");

	/* the second response: entry 1 failed for good; index 7 and -1 are
	 * outside the request and ignored; entry 2 named again, now done */
	Sbxbt__MutateRowsResponse__Entry *second[4] = {
	    entry(&e[0], &s[0], 1, 5, "table not found"),
	    entry(&e[1], &s[1], 7, 3, "bogus"),
	    entry(&e[2], &s[2], -1, 3, "bogus"),
	    entry(&e[3], &s[3], 2, 0, ""),
	};
	Sbxbt__MutateRowsResponse r2 = SBXBT__MUTATE_ROWS_RESPONSE__INIT;
	r2.n_entries = 4;
	r2.entries = second;
	CHECK_INT(bt_rows_status_add(&st, &r2), SBX_OK);
	CHECK_INT(code[0], 0);
	CHECK_INT(code[1], 5);
	CHECK_INT(code[2], 0);
	CHECK_STR(text[1], "table not found");
	CHECK(text[2] == NULL);
	/* an entry without a status is a success */
	e[0].status = NULL;
	e[0].index = 1;
	r2.n_entries = 1;
	CHECK_INT(bt_rows_status_add(&st, &r2), SBX_OK);
	CHECK_INT(code[1], 0);
	CHECK(text[1] == NULL);
	for (int i = 0; i < 3; i++)
		free(text[i]);
}

static void test_which_codes_are_sent_again(void)
{
	CHECK(bt_rows_code_retryable(14)); /* UNAVAILABLE */
	CHECK(bt_rows_code_retryable(4));  /* DEADLINE_EXCEEDED */
	CHECK(bt_rows_code_retryable(10)); /* ABORTED */
	CHECK(!bt_rows_code_retryable(0));
	CHECK(!bt_rows_code_retryable(3)); /* INVALID_ARGUMENT */
	CHECK(!bt_rows_code_retryable(5)); /* NOT_FOUND */
	CHECK(!bt_rows_code_retryable(8)); /* RESOURCE_EXHAUSTED */
}

TEST_MAIN(T(test_entries_from_several_responses),
	  T(test_which_codes_are_sent_again))
