/*
 * options.c - the transaction layer's defaults and names: option defaults,
 * the lock family's descriptor, resolution names. A leaf the other files
 * of the layer call.
 */
#include "txn/txn_int.h"

#include <string.h>

void sbx_txn_options_init(sbx_txn_options *o)
{
	memset(o, 0, sizeof *o);
	o->lock_timeout_ms = 5000;
	o->lock_wait_ms = 100;
	o->retry_budget_ms = 5000;
}

void sbx_txn_lock_family(sbx_family_desc *out)
{
	sbx_family_desc_init(out, SBX_TXN_LOCK_FAMILY);
	out->max_versions = 1;
}

const char *sbx_txn_resolution_name(sbx_txn_resolution r)
{
	switch (r) {
	case SBX_TXN_UNLOCKED:
		return "unlocked";
	case SBX_TXN_ROLLED_FORWARD:
		return "rolled forward";
	case SBX_TXN_ROLLED_BACK:
		return "rolled back";
	case SBX_TXN_NOT_EXPIRED:
		return "not expired";
	case SBX_TXN_RESET:
		return "reset";
	}
	return "?";
}
