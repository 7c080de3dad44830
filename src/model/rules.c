/*
 * rules.c - the rules every backend must apply the same way, in one copy:
 * argument checks (row keys, family descriptions, read and scan options),
 * check-and-mutate's comparison, and a get as a one-row scan.
 */
#include "common/bytes.h"
#include "common/error.h"
#include "model/family_attrs.h"
#include "model/names.h"
#include "model/result.h"
#include "model/rules.h"
#include "saltbox/filter.h"

#include <assert.h>
#include <string.h>

int model_check_row(const void *row, size_t row_len)
{
	if (row_len == 0 || !row)
		return sbx_error_set(SBX_EINVAL, "row key is empty");
	if (row_len > SBX_MAX_ROW_LENGTH)
		return sbx_error_set(SBX_ETOOLARGE,
				     "row key is %zu bytes; the limit is %d",
				     row_len, SBX_MAX_ROW_LENGTH);
	return SBX_OK;
}

int model_check_family_desc(const sbx_family_desc *f)
{
	assert(f);
	int rc = names_check_family(f->name);
	return rc ? rc : sbx_family_desc_validate(f);
}

int model_check_read_opts(const sbx_read_opts *o)
{
	assert(o);
	if (o->min_ts < 0 || o->max_ts < o->min_ts)
		return sbx_error_set(SBX_EINVAL,
				     "bad time range [%lld, %lld)",
				     (long long)o->min_ts, (long long)o->max_ts);
	if (o->ncolumns && !o->columns)
		return sbx_error_set(SBX_EINVAL, "columns is NULL");
	for (size_t i = 0; i < o->ncolumns; i++) {
		int rc = names_check_family(o->columns[i].family);
		if (rc)
			return rc;
		if (o->raw && o->columns[i].qualifier)
			return sbx_error_set(SBX_EINVAL,
					     "a raw scan cannot select columns "
					     "(only whole families)");
	}
	return SBX_OK;
}

int model_check_scan_opts(const sbx_scan_opts *opts)
{
	assert(opts);
	int rc = model_check_read_opts(&opts->read);
	if (rc)
		return rc;
	if (opts->start_row_len > SBX_MAX_ROW_LENGTH ||
	    opts->stop_row_len > SBX_MAX_ROW_LENGTH)
		return sbx_error_set(SBX_ETOOLARGE,
				     "scan bound is longer than %d bytes",
				     SBX_MAX_ROW_LENGTH);
	if (opts->limit < 0 || opts->batch < 0 || opts->caching < 0)
		return sbx_error_set(SBX_EINVAL,
				     "limit, batch and caching must be >= 0");
	if (opts->batch > 0 && opts->read.filter &&
	    sbx_filter_has_filter_row(opts->read.filter))
		return sbx_error_set(SBX_EINVAL,
				     "cannot set batch on a scan using a filter "
				     "that needs whole rows (hasFilterRow)");
	return SBX_OK;
}

bool model_check_passes(const sbx_check *c, bool found, const uint8_t *stored,
			size_t stored_len)
{
	assert(c && (stored || stored_len == 0));
	bool expect_null = !c->value || c->value_len == 0;
	if (expect_null) {
		bool empty = !found || stored_len == 0;
		return c->op == SBX_CMP_NOT_EQUAL ? !empty : empty;
	}
	if (!found)
		return c->op == SBX_CMP_NOT_EQUAL;
	int r = sbx_bytes_cmp(c->value, c->value_len, stored, stored_len);
	switch (c->op) {
	case SBX_CMP_LESS: return r < 0;
	case SBX_CMP_LESS_OR_EQUAL: return r <= 0;
	case SBX_CMP_EQUAL: return r == 0;
	case SBX_CMP_NOT_EQUAL: return r != 0;
	case SBX_CMP_GREATER_OR_EQUAL: return r >= 0;
	case SBX_CMP_GREATER: return r > 0;
	default: return true;
	}
}

void model_get_scan_opts(sbx_scan_opts *so, const uint8_t *row,
			 size_t row_len, const sbx_read_opts *o)
{
	assert(so && o && (row || row_len == 0));
	sbx_scan_opts_init(so);
	so->read = *o;
	so->start_row = row;
	so->start_row_len = row_len;
	so->stop_row = row;
	so->stop_row_len = row_len;
	so->stop_inclusive = true;
}

int model_get_empty_result(sbx_result **out, const uint8_t *row,
			   size_t row_len)
{
	assert(out && (row || row_len == 0));
	*out = NULL;
	sbx_result *r;
	int rc = result_new(&r, row, row_len);
	if (rc)
		return rc;
	if ((rc = result_finish(r))) {
		sbx_result_free(r);
		return rc;
	}
	*out = r;
	return SBX_OK;
}
