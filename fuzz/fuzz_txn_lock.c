/*
 * fuzz_txn_lock.c - libFuzzer target for the transaction lock cell's
 * decoder (src/txn/lock.c): a row's `!txn!:lock` cell is read from the
 * store, where anything may have written it. Any bytes either decode -
 * then every secondary and operation can be walked, and encoding the
 * decoded lock gives back exactly the same bytes - or are refused as
 * garbage with a message; never crash, hang or leak.
 */
#include "txn/txn_int.h"

#include "common/error.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	tx_lock lk;
	if (lock_decode(&lk, data, size) != SBX_OK) {
		if (!*sbx_errmsg())
			abort(); /* garbage always says why */
		return 0;
	}
	if (size == 0 || lk.state == TX_STABLE)
		return 0; /* empty, or the fixed 24 bytes */
	tx_ref *secs = calloc(lk.nsecondaries + 1, sizeof *secs);
	tx_op *ops = calloc(lk.nops + 1, sizeof *ops);
	if (!secs || !ops)
		abort();
	const uint8_t *at = lk.secondaries_at;
	for (size_t i = 0; lk.primary && i < lk.nsecondaries; i++)
		lock_secondary(&lk, &at, &secs[i]);
	at = lk.ops_at;
	for (size_t i = 0; i < lk.nops; i++)
		lock_op(&lk, &at, &ops[i]);
	sbx_buf again = {0};
	if (lock_encode(&again, &lk, secs, ops) != SBX_OK ||
	    again.len != size || memcmp(again.data, data, size))
		abort(); /* decode and encode disagree */
	sbx_buf_free(&again);
	free(secs);
	free(ops);
	return 0;
}
