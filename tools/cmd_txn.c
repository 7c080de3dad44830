/*
 * cmd_txn.c - `saltbox txn`: the transaction layer's tools on an embedded
 * store (--data DIR) or a gateway (--connect URL).
 *
 *   saltbox txn prepare (--data DIR | --connect URL) TABLE...
 *       add the lock family to tables so transactions can use them
 *   saltbox txn locks   (--data DIR | --connect URL) TABLE
 *       list the locks that are not STABLE: in progress, committed but
 *       not yet applied, expired, or garbage
 *   saltbox txn resolve (--data DIR | --connect URL) [--reset-garbage]
 *                       TABLE [ROW]
 *       roll forward what committed, roll back what expired; with
 *       --reset-garbage also replace lock cells that are not locks
 *   saltbox txn bank ...  the bank-transfer proof (txn_bank.c)
 *
 * ROW is written as HBase prints bytes (\xHH escapes).
 */
#include "cli.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int usage(FILE *out, int status)
{
	fprintf(
	    out,
	    "usage: saltbox txn prepare (--data DIR | --connect URL) "
	    "TABLE...\n"
	    "       saltbox txn locks   (--data DIR | --connect URL) TABLE\n"
	    "       saltbox txn resolve (--data DIR | --connect URL) "
	    "[--reset-garbage] TABLE [ROW]\n"
	    "       saltbox txn bank    (--data DIR | --connect URL) "
	    "[--duration S] ... (see --help)\n\n"
	    "prepare  add the transaction lock family '%s' to tables\n"
	    "locks    list locks that are not stable (in progress, "
	    "committed and not yet\n"
	    "         applied, expired, garbage)\n"
	    "resolve  roll committed transactions forward and expired "
	    "ones back (one row,\n"
	    "         or every lock of the table); --reset-garbage also "
	    "replaces lock cells\n"
	    "         that are not locks (the row's data is left as it "
	    "is)\n"
	    "bank     random transfers with clients killed mid-commit, "
	    "then the invariants\n"
	    "ROW is written as HBase prints bytes (\\xHH escapes).\n",
	    SBX_TXN_LOCK_FAMILY);
	return status;
}

typedef struct txn_args {
	const char *data, *url;
	bool reset_garbage;
	const char *pos[64];
	int npos;
} txn_args;

static int parse(txn_args *a, int argc, char **argv)
{
	memset(a, 0, sizeof *a);
	for (int i = 1; i < argc; i++) {
		const char *s = argv[i];
		if (!strcmp(s, "-h") || !strcmp(s, "--help"))
			return -1;
		if (!strcmp(s, "--data") && i + 1 < argc)
			a->data = argv[++i];
		else if (!strcmp(s, "--connect") && i + 1 < argc)
			a->url = argv[++i];
		else if (!strcmp(s, "--reset-garbage"))
			a->reset_garbage = true;
		else if (s[0] == '-' && s[1]) {
			fprintf(stderr, "saltbox txn: unknown option '%s'\n",
				s);
			return 2;
		} else if (a->npos < 64)
			a->pos[a->npos++] = s;
	}
	if (!a->data == !a->url) {
		fprintf(stderr,
			"saltbox txn: give --data DIR or --connect URL\n");
		return 2;
	}
	return 0;
}

static sbx_db *open_db(const txn_args *a)
{
	return cli_open_store(a->data, a->url, "saltbox txn");
}

static void print_bytes(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] >= 0x20 && p[i] < 0x7f && p[i] != '\\')
			putchar(p[i]);
		else
			printf("\\x%02X", p[i]);
}

/* "abc\x00" -> bytes (HBase's toBytesBinary). */
static size_t parse_bytes(uint8_t *out, const char *s)
{
	size_t n = 0;
	for (size_t i = 0; s[i]; i++) {
		unsigned v;
		if (s[i] == '\\' && s[i + 1] == 'x' &&
		    sscanf(s + i + 2, "%2x", &v) == 1 && s[i + 2] && s[i + 3]) {
			out[n++] = (uint8_t)v;
			i += 3;
		} else {
			out[n++] = (uint8_t)s[i];
		}
	}
	return n;
}

static const char *state_name(sbx_txn_lock_state s)
{
	switch (s) {
	case SBX_TXN_LOCK_GARBAGE:
		return "GARBAGE";
	case SBX_TXN_LOCK_STABLE:
		return "STABLE";
	case SBX_TXN_LOCK_PREWRITTEN:
		return "PREWRITTEN";
	case SBX_TXN_LOCK_COMMITTED:
		return "COMMITTED";
	}
	return "?";
}

static int64_t wall_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int cmd_locks(sbx_db *db, const char *table)
{
	sbx_txn_lock_info *v;
	size_t n;
	if (sbx_txn_locks(&v, &n, db, table)) {
		fprintf(stderr, "saltbox txn locks: %s\n", sbx_errmsg());
		return 1;
	}
	int64_t now = wall_ms();
	printf("ROW  STATE  TXN  COMMIT_TS  EXPIRES  ROLE\n");
	for (size_t i = 0; i < n; i++) {
		const sbx_txn_lock_info *l = &v[i];
		print_bytes(l->row, l->row_len);
		printf("  %s", state_name(l->state));
		if (l->state == SBX_TXN_LOCK_GARBAGE) {
			printf("  (%zu bytes that are not a lock)\n",
			       l->value_len);
			continue;
		}
		printf("  %016" PRIx64 "  %" PRId64 "  ", l->txn_id,
		       l->commit_ts);
		if (l->expiry_ms < now)
			printf("expired %" PRId64 " ms ago",
			       now - l->expiry_ms);
		else
			printf("in %" PRId64 " ms", l->expiry_ms - now);
		if (l->primary)
			printf("  primary of %zu secondaries", l->secondaries);
		else {
			printf("  secondary of %s/", l->primary_table);
			print_bytes(l->primary_row, l->primary_row_len);
		}
		printf(", %zu operations\n", l->operations);
	}
	printf("%zu lock(s)\n", n);
	sbx_txn_lock_infos_free(v, n);
	return 0;
}

static int cmd_resolve(sbx_db *db, const txn_args *a)
{
	sbx_txn_options o;
	sbx_txn_options_init(&o);
	o.reset_garbage_locks = a->reset_garbage;
	const char *table = a->pos[0];
	if (a->npos == 2) {
		size_t len = strlen(a->pos[1]);
		uint8_t *row = malloc(len ? len : 1);
		if (!row)
			return 1;
		len = parse_bytes(row, a->pos[1]);
		sbx_txn_resolution how;
		int rc = sbx_txn_resolve(&how, db, table, row, len, &o);
		free(row);
		if (rc) {
			fprintf(stderr, "saltbox txn resolve: %s\n",
				sbx_errmsg());
			return 1;
		}
		printf("%s\n", sbx_txn_resolution_name(how));
		return 0;
	}
	size_t resolved, remaining;
	if (sbx_txn_resolve_table(&resolved, &remaining, db, table, &o)) {
		fprintf(stderr, "saltbox txn resolve: %s\n", sbx_errmsg());
		return 1;
	}
	printf("%zu lock(s) resolved, %zu left (not expired, or garbage)\n",
	       resolved, remaining);
	return 0;
}

int cmd_txn(int argc, char **argv)
{
	if (argc < 2)
		return usage(stderr, 2);
	const char *sub = argv[1];
	if (!strcmp(sub, "-h") || !strcmp(sub, "--help"))
		return usage(stdout, 0);
	if (!strcmp(sub, "bank"))
		return cmd_txn_bank(argc - 1, argv + 1);
	bool prepare = !strcmp(sub, "prepare"), locks = !strcmp(sub, "locks"),
	     resolve = !strcmp(sub, "resolve");
	if (!prepare && !locks && !resolve) {
		fprintf(stderr, "saltbox txn: unknown verb '%s' (prepare, locks, "
				"resolve, bank)\n", sub);
		return usage(stderr, 2);
	}
	txn_args a;
	int rc = parse(&a, argc - 1, argv + 1);
	if (rc)
		return rc < 0 ? usage(stdout, 0) : usage(stderr, rc);
	if (a.npos < 1 || (locks && a.npos != 1) || (resolve && a.npos > 2)) {
		fprintf(stderr, "saltbox txn %s: wrong arguments\n", sub);
		return usage(stderr, 2);
	}
	sbx_db *db = open_db(&a);
	if (!db)
		return 1;
	int status = 0;
	if (prepare) {
		for (int i = 0; i < a.npos; i++) {
			if (sbx_txn_prepare_table(db, a.pos[i])) {
				fprintf(stderr, "saltbox txn prepare: %s\n",
					sbx_errmsg());
				status = 1;
			} else {
				printf("%s: ready for transactions\n",
				       a.pos[i]);
			}
		}
	} else if (locks) {
		status = cmd_locks(db, a.pos[0]);
	} else {
		status = cmd_resolve(db, &a);
	}
	sbx_db_close(db);
	return status;
}
