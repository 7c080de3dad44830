/*
 * txn_transfer.c - move money between two accounts atomically, the example
 * of docs/transactions.md (ctest builds and runs it).
 *
 *   txn_transfer DIR            an embedded store in DIR
 *   txn_transfer http://HOST:PORT   any HBase REST gateway (saltbox serve)
 */
#include <saltbox.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TRY(call)                                                              \
	do {                                                                   \
		int rc_ = (call);                                              \
		if (rc_ != SBX_OK) {                                           \
			fprintf(stderr, "%s: %s (%s)\n", #call, sbx_errmsg(),  \
				sbx_strerror(rc_));                            \
			exit(1);                                               \
		}                                                              \
	} while (0)

/* The balance in cf:bal (decimal text), 0 for a missing account. */
static int get_balance(long *out, sbx_txn *txn, sbx_table *t, const char *who)
{
	sbx_result *r;
	int rc = sbx_txn_get(&r, txn, t, who, strlen(who), NULL);
	if (rc)
		return rc;
	const sbx_cell *c = sbx_result_get(r, "cf", "bal", 3);
	char text[32] = "0";
	if (c && c->value_len < sizeof text) {
		memcpy(text, c->value, c->value_len);
		text[c->value_len] = '\0';
	}
	*out = strtol(text, NULL, 10);
	sbx_result_free(r);
	return SBX_OK;
}

static int set_balance(sbx_txn *txn, sbx_table *t, const char *who, long v)
{
	char text[32];
	snprintf(text, sizeof text, "%ld", v);
	sbx_mutation *m;
	int rc = sbx_mutation_new(&m, who, strlen(who));
	if (rc == SBX_OK)
		rc = sbx_mutation_put(m, "cf", "bal", 3, SBX_LATEST_TIMESTAMP,
				      text, strlen(text));
	if (rc == SBX_OK)
		rc = sbx_txn_mutate(txn, t, m); /* buffered until commit */
	sbx_mutation_free(m);
	return rc;
}

typedef struct transfer {
	sbx_table *accounts;
	const char *from, *to;
	long amount;
} transfer;

/* The body of the transaction. sbx_txn_run() commits it, and runs it
 * again from the start when another transaction won a race. */
static int move_money(sbx_txn *txn, void *arg)
{
	const transfer *x = arg;
	long a, b;
	int rc = get_balance(&a, txn, x->accounts, x->from);
	if (rc == SBX_OK)
		rc = get_balance(&b, txn, x->accounts, x->to);
	if (rc != SBX_OK)
		return rc;
	if (a < x->amount)
		return SBX_EINVAL; /* rolled back: nothing is written */
	rc = set_balance(txn, x->accounts, x->from, a - x->amount);
	if (rc == SBX_OK)
		rc = set_balance(txn, x->accounts, x->to, b + x->amount);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: txn_transfer DIR | http://HOST:PORT\n");
		return 2;
	}
	sbx_db *db;
	if (!strncmp(argv[1], "http://", 7))
		TRY(sbx_db_connect(&db, argv[1]));
	else
		TRY(sbx_db_open(&db, argv[1], NULL));

	/* A table joins transactions by having the lock family. */
	sbx_family_desc families[2];
	sbx_txn_lock_family(&families[0]);
	TRY(sbx_family_desc_init(&families[1], "cf"));
	TRY(sbx_table_create(db, "accounts", families, 2));
	sbx_table *accounts;
	TRY(sbx_table_open(&accounts, db, "accounts"));

	/* Open the accounts in one transaction too. */
	sbx_txn *txn;
	TRY(sbx_txn_begin(&txn, db));
	TRY(set_balance(txn, accounts, "alice", 100));
	TRY(set_balance(txn, accounts, "bob", 50));
	TRY(sbx_txn_commit(txn)); /* frees txn */

	/* Move 30 from alice to bob, retrying on conflicts for up to 5 s. */
	sbx_txn_options opts;
	sbx_txn_options_init(&opts);
	transfer x = {accounts, "alice", "bob", 30};
	int attempts;
	TRY(sbx_txn_run(&attempts, db, &opts, move_money, &x));

	/* Too much: the callback refuses, the transaction is rolled back. */
	transfer too_much = {accounts, "alice", "bob", 1000};
	int rc = sbx_txn_run(NULL, db, &opts, move_money, &too_much);
	printf("moving 1000: %s\n", sbx_strerror(rc));

	/* Read both balances in one read-only transaction. */
	long alice, bob;
	TRY(sbx_txn_begin(&txn, db));
	TRY(get_balance(&alice, txn, accounts, "alice"));
	TRY(get_balance(&bob, txn, accounts, "bob"));
	TRY(sbx_txn_commit(txn));
	printf("after %d attempt(s): alice=%ld bob=%ld total=%ld\n", attempts,
	       alice, bob, alice + bob);

	sbx_table_close(accounts);
	sbx_db_close(db);
	return 0;
}
