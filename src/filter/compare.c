/*
 * compare.c - HBase's comparators (Binary, BinaryPrefix, RegexString,
 * Substring, Long, Null, Bit) and CompareFilter's operator test, plus the
 * small helpers every built-in filter shares. Regexes use PCRE2: Java-like
 * syntax, binary-safe subjects and a match limit against hostile patterns.
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "common/alloc.h"
#include "filter/filter_int.h"

#include <ctype.h>
#include <pcre2.h>

/* Bounds on one regex match: hostile patterns from REST or the shell fail
 * (as "no match") instead of backtracking for minutes. */
#define FLT_REGEX_MATCH_LIMIT 1000000u
#define FLT_REGEX_DEPTH_LIMIT 10000u

struct sbx_comparator {
	sbx_comparator_type type;
	uint8_t *value;
	size_t len;
	uint8_t *lower; /* SUBSTRING: value lowercased */
	pcre2_code *re;
	pcre2_match_data *md;
	pcre2_match_context *mctx;
};

int sbx_comparator_new(sbx_comparator **out, sbx_comparator_type type,
		       const void *value, size_t len)
{
	*out = NULL;
	if ((unsigned)type > SBX_COMPARATOR_BIT_XOR)
		return sbx_error_set(SBX_EINVAL, "unknown comparator type %d",
				     (int)type);
	if (type == SBX_COMPARATOR_LONG && len != 8)
		return sbx_error_set(SBX_EINVAL,
				     "LongComparator needs 8 bytes, got %zu",
				     len);
	sbx_comparator *c = sbx_calloc(1, sizeof *c);
	bool ok = true;
	if (!c)
		return SBX_ENOMEM_SET();
	c->type = type;
	c->len = type == SBX_COMPARATOR_NULL ? 0 : len;
	c->value = flt_dup(value, c->len, &ok);
	if (ok && type == SBX_COMPARATOR_SUBSTRING) {
		c->lower = flt_dup(value, len, &ok);
		for (size_t i = 0; ok && i < len; i++)
			c->lower[i] = (uint8_t)tolower(c->lower[i]);
	}
	if (!ok) {
		sbx_comparator_free(c);
		return SBX_ENOMEM_SET();
	}
	if (type == SBX_COMPARATOR_REGEX) {
		int err;
		PCRE2_SIZE off;
		c->re = pcre2_compile((PCRE2_SPTR)c->value, len,
				      PCRE2_DOTALL | PCRE2_UTF |
					      PCRE2_MATCH_INVALID_UTF,
				      &err, &off, NULL);
		if (!c->re) {
			PCRE2_UCHAR msg[160];
			pcre2_get_error_message(err, msg, sizeof msg);
			sbx_comparator_free(c);
			return sbx_error_set(SBX_EINVAL,
					     "bad regular expression at "
					     "offset %zu: %s",
					     (size_t)off, (const char *)msg);
		}
		c->md = pcre2_match_data_create_from_pattern(c->re, NULL);
		c->mctx = pcre2_match_context_create(NULL);
		if (!c->md || !c->mctx) {
			sbx_comparator_free(c);
			return SBX_ENOMEM_SET();
		}
		pcre2_set_match_limit(c->mctx, FLT_REGEX_MATCH_LIMIT);
		pcre2_set_depth_limit(c->mctx, FLT_REGEX_DEPTH_LIMIT);
	}
	*out = c;
	return SBX_OK;
}

void sbx_comparator_free(sbx_comparator *c)
{
	if (!c)
		return;
	pcre2_match_context_free(c->mctx);
	pcre2_match_data_free(c->md);
	pcre2_code_free(c->re);
	free(c->lower);
	free(c->value);
	free(c);
}

sbx_comparator *flt_comparator_clone(const sbx_comparator *c)
{
	assert(c);
	sbx_comparator *n = NULL;
	if (sbx_comparator_new(&n, c->type, c->value, c->len))
		return NULL;
	return n;
}

sbx_comparator_type sbx_comparator_get_type(const sbx_comparator *c)
{
	return c->type;
}

const uint8_t *sbx_comparator_value(const sbx_comparator *c, size_t *len)
{
	*len = c->len;
	return c->value;
}

static bool contains_nocase(const uint8_t *hay, size_t hlen,
			    const uint8_t *needle, size_t nlen)
{
	if (nlen == 0)
		return true;
	for (size_t i = 0; i + nlen <= hlen; i++) {
		size_t j = 0;
		while (j < nlen && (uint8_t)tolower(hay[i + j]) == needle[j])
			j++;
		if (j == nlen)
			return true;
	}
	return false;
}

static int bit_compare(const sbx_comparator *c, const uint8_t *f, size_t len)
{
	if (len != c->len)
		return 1;
	for (size_t i = 0; i < len; i++) {
		uint8_t b = c->type == SBX_COMPARATOR_BIT_AND  ? c->value[i] & f[i]
			    : c->type == SBX_COMPARATOR_BIT_OR ? c->value[i] | f[i]
							       : c->value[i] ^ f[i];
		if (b)
			return 0;
	}
	return 1;
}

static int64_t be64(const uint8_t *p)
{
	uint64_t v = 0;
	for (int i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return (int64_t)v;
}

int sbx_comparator_compare(sbx_comparator *c, const void *field, size_t len)
{
	const uint8_t *f = field;
	switch (c->type) {
	case SBX_COMPARATOR_BINARY:
		return sbx_bytes_cmp(c->value, c->len, f, len);
	case SBX_COMPARATOR_BINARY_PREFIX:
		return sbx_bytes_cmp(c->value, c->len, f,
				     len < c->len ? len : c->len);
	case SBX_COMPARATOR_REGEX: {
		static const uint8_t empty[1];
		int rc = pcre2_match(c->re, len ? f : empty, len, 0, 0, c->md,
				     c->mctx);
		return rc >= 0 ? 0 : 1;
	}
	case SBX_COMPARATOR_SUBSTRING:
		return contains_nocase(f, len, c->lower, c->len) ? 0 : 1;
	case SBX_COMPARATOR_LONG: {
		if (len != 8)
			return 1;
		int64_t a = be64(c->value), b = be64(f);
		return a < b ? -1 : a > b ? 1 : 0;
	}
	case SBX_COMPARATOR_NULL:
		return 1; /* a cell's value is never null */
	case SBX_COMPARATOR_BIT_AND:
	case SBX_COMPARATOR_BIT_OR:
	case SBX_COMPARATOR_BIT_XOR:
		return bit_compare(c, f, len);
	}
	return 1;
}

bool flt_cmp_rejects(sbx_compare_op op, sbx_comparator *c, const void *field,
		     size_t len)
{
	assert(c && (field || !len));
	if (op == SBX_CMP_NO_OP)
		return true;
	int r = sbx_comparator_compare(c, field, len);
	switch (op) {
	case SBX_CMP_LESS:
		return r <= 0;
	case SBX_CMP_LESS_OR_EQUAL:
		return r < 0;
	case SBX_CMP_EQUAL:
		return r != 0;
	case SBX_CMP_NOT_EQUAL:
		return r == 0;
	case SBX_CMP_GREATER_OR_EQUAL:
		return r > 0;
	case SBX_CMP_GREATER:
		return r >= 0;
	default:
		return true;
	}
}

bool sbx_compare_passes(sbx_compare_op op, sbx_comparator *c,
			const void *field, size_t len)
{
	return !flt_cmp_rejects(op, c, field, len);
}

/* ---- shared helpers ------------------------------------------------------- */

uint8_t *flt_dup(const void *p, size_t len, bool *ok)
{
	assert(ok && (p || !len));
	uint8_t *d = sbx_malloc(len ? len : 1);
	if (!d) {
		*ok = false;
		return NULL;
	}
	if (len)
		memcpy(d, p, len);
	return d;
}

int flt_bytes_set(flt_bytes *b, const void *p, size_t len)
{
	assert(b);
	bool ok = true;
	uint8_t *d = flt_dup(p, len, &ok);
	if (!ok)
		return SBX_ENOMEM_SET();
	free(b->data);
	b->data = d;
	b->len = len;
	return SBX_OK;
}

bool flt_hint_set(sbx_filter_hint *h, const uint8_t *row, size_t row_len,
		  const uint8_t *qual, size_t qual_len)
{
	assert(h);
	return sbx_buf_set(&h->row, row, row_len) == SBX_OK &&
	       sbx_buf_set(&h->qualifier, qual, qual_len) == SBX_OK;
}

int flt_hint_cmp(const sbx_filter_hint *a, const sbx_filter_hint *b,
		 bool reversed)
{
	assert(a && b);
	int c = sbx_bytes_cmp(a->row.data, a->row.len, b->row.data, b->row.len);
	if (c)
		return reversed ? -c : c;
	return sbx_bytes_cmp(a->qualifier.data, a->qualifier.len,
			     b->qualifier.data, b->qualifier.len);
}

void flt_destroy(void *state)
{
	flt_base *b = state;
	if (b)
		b->free_state(b);
}

const flt_base *flt_builtin(const sbx_filter *f)
{
	if (!f || flt_ops_of(f)->destroy != flt_destroy)
		return NULL;
	return flt_state_of(f);
}

int flt_make(sbx_filter **out, sbx_filter_ops ops, flt_base *state)
{
	assert(out && state && state->free_state);
	ops.destroy = flt_destroy;
	return sbx_filter_new(out, &ops, state);
}
