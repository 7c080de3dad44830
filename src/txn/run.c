/*
 * run.c - the retry helper (sbx_txn_run: a callback rerun in fresh
 * transactions with exponential backoff and jitter until it commits or a
 * time budget is spent) and sbx_txn_prepare_table (adding the lock family
 * to an existing table).
 */
#include "txn/txn_int.h"

#include "common/error.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

static void sleep_ms(int64_t ms)
{
	struct timespec ts = {(time_t)(ms / 1000),
			      (long)(ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
}

int sbx_txn_run(int *attempts, sbx_db *db, const sbx_txn_options *opts,
		sbx_txn_fn fn, void *arg)
{
	if (attempts)
		*attempts = 0;
	sbx_txn_options defaults;
	if (!opts) {
		sbx_txn_options_init(&defaults);
		opts = &defaults;
	}
	if (!fn)
		return sbx_error_set(SBX_EINVAL, "sbx_txn_run: no function");
	int64_t deadline = tx_now_ms() + opts->retry_budget_ms, backoff = 1;
	/* jitter from the transaction ids: no shared random state */
	for (int n = 1;; n++) {
		if (attempts)
			*attempts = n;
		sbx_txn *txn;
		int rc = sbx_txn_begin_with(&txn, db, opts);
		if (rc)
			return rc;
		uint64_t jitter = sbx_txn_id(txn);
		rc = fn(txn, arg);
		if (rc == SBX_OK)
			rc = sbx_txn_commit(txn);
		else
			sbx_txn_rollback(txn);
		if (rc != SBX_ECONFLICT)
			return rc;
		int64_t now = tx_now_ms();
		if (now >= deadline)
			return sbx_error_set(
			    SBX_ECONFLICT,
			    "transaction still conflicting "
			    "after %d attempts in %lld ms: %s",
			    n, (long long)opts->retry_budget_ms, sbx_errmsg());
		int64_t wait =
		    backoff / 2 + (int64_t)(jitter % (uint64_t)backoff) + 1;
		if (now + wait > deadline)
			wait = deadline - now;
		sleep_ms(wait);
		backoff = backoff < 100 ? backoff * 2 : 100;
	}
}

int sbx_txn_prepare_table(sbx_db *db, const char *table)
{
	sbx_table_info *info;
	int rc = sbx_table_describe(&info, db, table);
	if (rc)
		return rc;
	bool has = false;
	for (size_t i = 0; i < info->nfamilies; i++)
		has |= !strcmp(info->families[i].name, SBX_TXN_LOCK_FAMILY);
	sbx_table_info_free(info);
	if (has)
		return SBX_OK;
	sbx_family_desc f;
	sbx_txn_lock_family(&f);
	return sbx_table_alter_family(db, table, &f);
}
