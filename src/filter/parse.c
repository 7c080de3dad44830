/*
 * parse.c - HBase's filter language (ParseFilter) by recursive descent:
 *   expr := and ('OR' and)* ; and := unary ('AND' unary)*
 *   unary := ('SKIP' | 'WHILE') unary | '(' expr ')' | Name '(' args ')'
 * Runs of one operator flatten into one FilterList, as HBase. Every error
 * names the byte offset and what was expected there.
 */
#include "common/alloc.h"
#include "filter/filter_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <strings.h>

#define MAX_DEPTH 64
#define MAX_ARGS 4096

typedef struct arg {
	bool quoted;
	uint8_t *data; /* unescaped; NUL-terminated for convenience */
	size_t len;
	size_t pos;
} arg;

typedef struct parser {
	const uint8_t *s;
	size_t len, pos;
	size_t err_pos;
	int depth;
} parser;

static int perr(parser *p, size_t pos, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int perr(parser *p, size_t pos, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	p->err_pos = pos;
	return sbx_error_set(SBX_EPARSE, "filter string: at byte %zu: %s", pos,
			     msg);
}

/* What is at pos, for messages. */
static const char *found(const parser *p, size_t pos, char buf[16])
{
	if (pos >= p->len)
		return "end of string";
	uint8_t c = p->s[pos];
	if (c >= 0x21 && c < 0x7F)
		snprintf(buf, 16, "'%c'", c);
	else
		snprintf(buf, 16, "byte 0x%02X", c);
	return buf;
}

static bool is_space(uint8_t c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static void skip_ws(parser *p)
{
	while (p->pos < p->len && is_space(p->s[p->pos]))
		p->pos++;
}

/* A keyword at pos, bounded by whitespace or '(' (or the end, which then
 * fails later with a clear "expected a filter" error). */
static bool at_keyword(const parser *p, const char *kw)
{
	size_t n = strlen(kw);
	if (p->len - p->pos < n || memcmp(p->s + p->pos, kw, n) != 0)
		return false;
	size_t e = p->pos + n;
	return e == p->len || is_space(p->s[e]) || p->s[e] == '(';
}

static void args_free(arg *a, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(a[i].data);
	free(a);
}

/* One argument: 'quoted with '' escapes' or a bare token. */
static int parse_arg(parser *p, arg *a)
{
	char fb[16];
	a->pos = p->pos;
	if (p->pos < p->len && p->s[p->pos] == '\'') {
		size_t start = p->pos++;
		sbx_buf b = {0};
		for (;;) {
			if (p->pos >= p->len) {
				sbx_buf_free(&b);
				return perr(p, start,
					    "unterminated quoted string (a "
					    "quote inside is written '')");
			}
			uint8_t c = p->s[p->pos++];
			if (c == '\'') {
				if (p->pos < p->len && p->s[p->pos] == '\'')
					p->pos++;
				else
					break;
			}
			if (sbx_buf_push(&b, c)) {
				sbx_buf_free(&b);
				return SBX_ENOMEM;
			}
		}
		if (sbx_buf_push(&b, 0)) {
			sbx_buf_free(&b);
			return SBX_ENOMEM;
		}
		a->quoted = true;
		a->data = b.data;
		a->len = b.len - 1;
		return SBX_OK;
	}
	size_t start = p->pos;
	while (p->pos < p->len) {
		uint8_t c = p->s[p->pos];
		if (is_space(c) || c == ',' || c == ')' || c == '(' ||
		    c == '\'')
			break;
		p->pos++;
	}
	if (p->pos == start)
		return perr(p, start,
			    "expected an argument (a 'quoted string', a "
			    "number, true/false or a compare operator), "
			    "found %s",
			    found(p, start, fb));
	a->quoted = false;
	a->len = p->pos - start;
	a->data = sbx_malloc(a->len + 1);
	if (!a->data)
		return SBX_ENOMEM_SET();
	memcpy(a->data, p->s + start, a->len);
	a->data[a->len] = 0;
	return SBX_OK;
}

static int parse_args(parser *p, arg **out, size_t *n)
{
	char fb[16];
	*out = NULL;
	*n = 0;
	size_t cap = 0;
	skip_ws(p);
	if (p->pos < p->len && p->s[p->pos] == ')') {
		p->pos++;
		return SBX_OK;
	}
	for (;;) {
		skip_ws(p);
		if (*n == cap) {
			if (cap >= MAX_ARGS) {
				args_free(*out, *n);
				*out = NULL;
				return perr(p, p->pos, "too many arguments");
			}
			cap = cap ? cap * 2 : 4;
			arg *na = sbx_realloc(*out, cap * sizeof *na);
			if (!na) {
				args_free(*out, *n);
				*out = NULL;
				return SBX_ENOMEM_SET();
			}
			*out = na;
		}
		int rc = parse_arg(p, &(*out)[*n]);
		if (rc) {
			args_free(*out, *n);
			*out = NULL;
			return rc;
		}
		(*n)++;
		skip_ws(p);
		if (p->pos < p->len && p->s[p->pos] == ',') {
			p->pos++;
			continue;
		}
		if (p->pos < p->len && p->s[p->pos] == ')') {
			p->pos++;
			return SBX_OK;
		}
		size_t at = p->pos;
		args_free(*out, *n);
		*out = NULL;
		return perr(p, at, "expected ',' or ')' after an argument, "
				   "found %s",
			    found(p, at, fb));
	}
}

/* ---- argument conversion --------------------------------------------------- */

typedef struct call {
	parser *p;
	const char *name;
	size_t name_pos;
	arg *a;
	size_t n;
} call;

static int want_count(call *c, size_t lo, size_t hi, const char *shape)
{
	if (c->n >= lo && c->n <= hi)
		return SBX_OK;
	return perr(c->p, c->name_pos, "%s expects %s, got %zu argument%s",
		    c->name, shape, c->n, c->n == 1 ? "" : "s");
}

static int want_quoted(call *c, size_t i)
{
	if (c->a[i].quoted)
		return SBX_OK;
	return perr(c->p, c->a[i].pos,
		    "argument %zu of %s must be a quoted string ('...')",
		    i + 1, c->name);
}

static int want_bool(call *c, size_t i, bool *v)
{
	const arg *a = &c->a[i];
	if (!a->quoted && !strcasecmp((const char *)a->data, "true"))
		*v = true;
	else if (!a->quoted && !strcasecmp((const char *)a->data, "false"))
		*v = false;
	else
		return perr(c->p, a->pos,
			    "argument %zu of %s must be true or false", i + 1,
			    c->name);
	return SBX_OK;
}

static int want_long(call *c, size_t i, int64_t lo, int64_t hi, int64_t *v)
{
	const arg *a = &c->a[i];
	size_t k = 0;
	bool neg = false;
	uint64_t r = 0;
	if (!a->quoted && a->len && a->data[0] == '-') {
		neg = true;
		k = 1;
	}
	bool ok = !a->quoted && k < a->len;
	for (; ok && k < a->len; k++) {
		uint8_t d = a->data[k];
		if (d < '0' || d > '9' || r > (UINT64_C(1) << 63) / 10)
			ok = false;
		else
			r = r * 10 + (d - '0');
	}
	if (ok && r > (uint64_t)INT64_MAX + (neg ? 1 : 0))
		ok = false;
	int64_t x = 0;
	if (ok)
		x = neg ? (int64_t)(0 - r) : (int64_t)r;
	if (!ok || x < lo || x > hi)
		return perr(c->p, a->pos,
			    "argument %zu of %s must be an integer from %lld "
			    "to %lld",
			    i + 1, c->name, (long long)lo, (long long)hi);
	*v = x;
	return SBX_OK;
}

static int want_op(call *c, size_t i, sbx_compare_op *op)
{
	static const struct {
		const char *s;
		sbx_compare_op op;
	} ops[] = {
		{"<", SBX_CMP_LESS},
		{"<=", SBX_CMP_LESS_OR_EQUAL},
		{"=", SBX_CMP_EQUAL},
		{"!=", SBX_CMP_NOT_EQUAL},
		{">=", SBX_CMP_GREATER_OR_EQUAL},
		{">", SBX_CMP_GREATER},
	};
	const arg *a = &c->a[i];
	for (size_t k = 0; !a->quoted && k < sizeof ops / sizeof ops[0]; k++)
		if (!strcmp((const char *)a->data, ops[k].s)) {
			*op = ops[k].op;
			return SBX_OK;
		}
	return perr(c->p, a->pos,
		    "argument %zu of %s must be a compare operator (<, <=, =, "
		    "!=, >=, >)",
		    i + 1, c->name);
}

/* 'type:value' with type binary, binaryprefix, regexstring or substring;
 * regexstring and substring only with = and != (as HBase). */
static int want_comparator(call *c, size_t i, sbx_compare_op op,
			   sbx_comparator **out)
{
	static const struct {
		const char *s;
		sbx_comparator_type t;
	} types[] = {
		{"binary", SBX_COMPARATOR_BINARY},
		{"binaryprefix", SBX_COMPARATOR_BINARY_PREFIX},
		{"regexstring", SBX_COMPARATOR_REGEX},
		{"substring", SBX_COMPARATOR_SUBSTRING},
	};
	*out = NULL;
	int rc = want_quoted(c, i);
	if (rc)
		return rc;
	const arg *a = &c->a[i];
	const uint8_t *colon = memchr(a->data, ':', a->len);
	if (!colon)
		return perr(c->p, a->pos,
			    "argument %zu of %s must be a comparator "
			    "'type:value' (binary, binaryprefix, regexstring "
			    "or substring)",
			    i + 1, c->name);
	size_t tlen = (size_t)(colon - a->data);
	for (size_t k = 0; k < sizeof types / sizeof types[0]; k++) {
		if (tlen != strlen(types[k].s) ||
		    memcmp(a->data, types[k].s, tlen))
			continue;
		sbx_comparator_type t = types[k].t;
		if ((t == SBX_COMPARATOR_REGEX ||
		     t == SBX_COMPARATOR_SUBSTRING) &&
		    op != SBX_CMP_EQUAL && op != SBX_CMP_NOT_EQUAL)
			return perr(c->p, a->pos,
				    "a %s comparator works only with = and "
				    "!=",
				    types[k].s);
		rc = sbx_comparator_new(out, t, colon + 1, a->len - tlen - 1);
		if (rc == SBX_EINVAL)
			return perr(c->p, a->pos, "argument %zu of %s: %s",
				    i + 1, c->name, sbx_errmsg());
		return rc;
	}
	return perr(c->p, a->pos,
		    "unknown comparator type '%.*s' (binary, binaryprefix, "
		    "regexstring or substring)",
		    (int)(tlen > 40 ? 40 : tlen), (const char *)a->data);
}

static int want_family(call *c, size_t i)
{
	int rc = want_quoted(c, i);
	if (rc)
		return rc;
	if (memchr(c->a[i].data, 0, c->a[i].len))
		return perr(c->p, c->a[i].pos,
			    "a family name cannot hold a NUL byte");
	return SBX_OK;
}

/* ---- one filter per registered name ---------------------------------------- */

static int build_bytes1(call *c, sbx_filter **out,
			int (*make)(sbx_filter **, const void *, size_t))
{
	int rc = want_count(c, 1, 1, "1 argument");
	if (!rc)
		rc = want_quoted(c, 0);
	return rc ? rc : make(out, c->a[0].data, c->a[0].len);
}

static int build_prefix(call *c, sbx_filter **out)
{
	return build_bytes1(c, out, sbx_filter_new_prefix);
}

static int build_column_prefix(call *c, sbx_filter **out)
{
	return build_bytes1(c, out, sbx_filter_new_column_prefix);
}

static int build_inclusive_stop(call *c, sbx_filter **out)
{
	return build_bytes1(c, out, sbx_filter_new_inclusive_stop);
}

static int build_key_only(call *c, sbx_filter **out)
{
	bool len_as_value = false;
	int rc = want_count(c, 0, 1, "0 or 1 argument (lenAsVal)");
	if (!rc && c->n == 1)
		rc = want_bool(c, 0, &len_as_value);
	return rc ? rc : sbx_filter_new_key_only(out, len_as_value);
}

static int build_first_key_only(call *c, sbx_filter **out)
{
	int rc = want_count(c, 0, 0, "no arguments");
	return rc ? rc : sbx_filter_new_first_key_only(out);
}

static int build_multiple_column_prefix(call *c, sbx_filter **out)
{
	int rc = want_count(c, 1, MAX_ARGS, "at least 1 argument");
	if (rc)
		return rc;
	const void **ps = sbx_calloc(c->n, sizeof *ps);
	size_t *lens = sbx_calloc(c->n, sizeof *lens);
	if (!ps || !lens)
		rc = SBX_ENOMEM_SET();
	for (size_t i = 0; !rc && i < c->n; i++) {
		rc = want_quoted(c, i);
		ps[i] = c->a[i].data;
		lens[i] = c->a[i].len;
	}
	if (!rc)
		rc = sbx_filter_new_multiple_column_prefix(out, ps, lens, c->n);
	free(ps);
	free(lens);
	return rc;
}

static int build_column_count_get(call *c, sbx_filter **out)
{
	int64_t v;
	int rc = want_count(c, 1, 1, "1 argument");
	if (!rc)
		rc = want_long(c, 0, 0, INT32_MAX, &v);
	return rc ? rc : sbx_filter_new_column_count_get(out, (int32_t)v);
}

static int build_page(call *c, sbx_filter **out)
{
	int64_t v;
	int rc = want_count(c, 1, 1, "1 argument");
	if (!rc)
		rc = want_long(c, 0, 0, INT64_MAX, &v);
	return rc ? rc : sbx_filter_new_page(out, v);
}

static int build_column_pagination(call *c, sbx_filter **out)
{
	int64_t limit, offset;
	int rc = want_count(c, 2, 2, "2 arguments (limit, offset)");
	if (!rc)
		rc = want_long(c, 0, 0, INT32_MAX, &limit);
	if (!rc)
		rc = want_long(c, 1, 0, INT32_MAX, &offset);
	return rc ? rc
		  : sbx_filter_new_column_pagination(out, (int32_t)limit,
						     (int32_t)offset);
}

static int build_timestamps(call *c, sbx_filter **out)
{
	int64_t *ts = sbx_malloc((c->n ? c->n : 1) * sizeof *ts);
	int rc = ts ? SBX_OK : SBX_ENOMEM_SET();
	for (size_t i = 0; !rc && i < c->n; i++)
		rc = want_long(c, i, 0, INT64_MAX, &ts[i]);
	if (!rc)
		rc = sbx_filter_new_timestamps(out, ts, c->n);
	free(ts);
	return rc;
}

static int build_compare(call *c, sbx_filter **out,
			 int (*make)(sbx_filter **, sbx_compare_op,
				     sbx_comparator *))
{
	sbx_compare_op op = 0;
	sbx_comparator *cmp;
	int rc = want_count(c, 2, 2, "2 arguments (compare operator, "
				     "comparator)");
	if (!rc)
		rc = want_op(c, 0, &op);
	if (!rc)
		rc = want_comparator(c, 1, op, &cmp);
	return rc ? rc : make(out, op, cmp);
}

static int build_row(call *c, sbx_filter **out)
{
	return build_compare(c, out, sbx_filter_new_row);
}

static int build_family(call *c, sbx_filter **out)
{
	return build_compare(c, out, sbx_filter_new_family);
}

static int build_qualifier(call *c, sbx_filter **out)
{
	return build_compare(c, out, sbx_filter_new_qualifier);
}

static int build_value(call *c, sbx_filter **out)
{
	return build_compare(c, out, sbx_filter_new_value);
}

static int build_column_range(call *c, sbx_filter **out)
{
	bool min_incl = false, max_incl = false;
	int rc = want_count(c, 4, 4,
			    "4 arguments (min, minInclusive, max, "
			    "maxInclusive)");
	if (!rc)
		rc = want_quoted(c, 0);
	if (!rc)
		rc = want_bool(c, 1, &min_incl);
	if (!rc)
		rc = want_quoted(c, 2);
	if (!rc)
		rc = want_bool(c, 3, &max_incl);
	if (rc)
		return rc;
	/* An empty bound is no bound, as HBase. */
	return sbx_filter_new_column_range(
		out, c->a[0].len ? c->a[0].data : NULL, c->a[0].len, min_incl,
		c->a[2].len ? c->a[2].data : NULL, c->a[2].len, max_incl);
}

/* 'family', 'qualifier', op, 'comparator' at args 0..3. */
static int column_args(call *c, sbx_compare_op *op, sbx_comparator **cmp)
{
	int rc = want_family(c, 0);
	if (!rc)
		rc = want_quoted(c, 1);
	if (!rc)
		rc = want_op(c, 2, op);
	if (!rc)
		rc = want_comparator(c, 3, *op, cmp);
	return rc;
}

static int build_scv(call *c, sbx_filter **out, bool exclude)
{
	sbx_compare_op op;
	sbx_comparator *cmp = NULL;
	bool if_missing = false, latest = true;
	int rc = c->n == 4 || c->n == 6
			 ? SBX_OK
			 : want_count(c, 4, 4,
				      "4 or 6 arguments (family, qualifier, "
				      "operator, comparator[, "
				      "filterIfMissing, latestVersionOnly])");
	if (!rc && c->n == 6)
		rc = want_bool(c, 4, &if_missing);
	if (!rc && c->n == 6)
		rc = want_bool(c, 5, &latest);
	if (!rc)
		rc = column_args(c, &op, &cmp);
	if (rc)
		return rc;
	const char *fam = (const char *)c->a[0].data;
	return exclude ? sbx_filter_new_single_column_value_exclude(
				 out, fam, c->a[1].data, c->a[1].len, op, cmp,
				 if_missing, latest)
		       : sbx_filter_new_single_column_value(
				 out, fam, c->a[1].data, c->a[1].len, op, cmp,
				 if_missing, latest);
}

static int build_single_column_value(call *c, sbx_filter **out)
{
	return build_scv(c, out, false);
}

static int build_single_column_value_exclude(call *c, sbx_filter **out)
{
	return build_scv(c, out, true);
}

static int build_dependent_column(call *c, sbx_filter **out)
{
	bool drop = false;
	sbx_compare_op op = SBX_CMP_NO_OP;
	sbx_comparator *cmp = NULL;
	int rc = c->n == 2 || c->n == 3 || c->n == 5
			 ? SBX_OK
			 : want_count(c, 2, 2,
				      "2, 3 or 5 arguments (family, "
				      "qualifier[, dropDependentColumn[, "
				      "operator, comparator]])");
	if (!rc)
		rc = want_family(c, 0);
	if (!rc)
		rc = want_quoted(c, 1);
	if (!rc && c->n >= 3)
		rc = want_bool(c, 2, &drop);
	if (!rc && c->n == 5)
		rc = want_op(c, 3, &op);
	if (!rc && c->n == 5)
		rc = want_comparator(c, 4, op, &cmp);
	if (rc)
		return rc;
	return sbx_filter_new_dependent_column(
		out, (const char *)c->a[0].data, c->a[1].data, c->a[1].len,
		drop, op, cmp);
}

static int build_column_value(call *c, sbx_filter **out)
{
	sbx_compare_op op;
	sbx_comparator *cmp = NULL;
	int rc = want_count(c, 4, 4,
			    "4 arguments (family, qualifier, operator, "
			    "comparator)");
	if (!rc)
		rc = column_args(c, &op, &cmp);
	return rc ? rc
		  : sbx_filter_new_column_value(out,
						(const char *)c->a[0].data,
						c->a[1].data, c->a[1].len, op,
						cmp);
}

static const struct {
	const char *name;
	int (*build)(call *c, sbx_filter **out);
} registry[] = {
	{"KeyOnlyFilter", build_key_only},
	{"FirstKeyOnlyFilter", build_first_key_only},
	{"PrefixFilter", build_prefix},
	{"ColumnPrefixFilter", build_column_prefix},
	{"MultipleColumnPrefixFilter", build_multiple_column_prefix},
	{"ColumnCountGetFilter", build_column_count_get},
	{"PageFilter", build_page},
	{"ColumnPaginationFilter", build_column_pagination},
	{"InclusiveStopFilter", build_inclusive_stop},
	{"TimestampsFilter", build_timestamps},
	{"RowFilter", build_row},
	{"FamilyFilter", build_family},
	{"QualifierFilter", build_qualifier},
	{"ValueFilter", build_value},
	{"ColumnRangeFilter", build_column_range},
	{"SingleColumnValueFilter", build_single_column_value},
	{"SingleColumnValueExcludeFilter", build_single_column_value_exclude},
	{"DependentColumnFilter", build_dependent_column},
	{"ColumnValueFilter", build_column_value},
};

static int unknown_filter(parser *p, size_t pos, const char *name, size_t n)
{
	int shown = (int)(n > 60 ? 60 : n);
	for (size_t i = 0; i < sizeof registry / sizeof registry[0]; i++)
		if (strlen(registry[i].name) == n &&
		    !strncasecmp(registry[i].name, name, n))
			return perr(p, pos,
				    "unknown filter '%.*s' (names are "
				    "case-sensitive: did you mean %s?)",
				    shown, name, registry[i].name);
	if ((n == 14 && !memcmp(name, "FuzzyRowFilter", 14)) ||
	    (n == 19 && !memcmp(name, "MultiRowRangeFilter", 19)))
		return perr(p, pos,
			    "%.*s is not part of HBase's filter language "
			    "(use the C API or filter JSON)",
			    shown, name);
	return perr(p, pos, "unknown filter '%.*s'", shown, name);
}

static bool is_name_char(uint8_t c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '$';
}

static int parse_simple(parser *p, sbx_filter **out)
{
	char fb[16];
	size_t start = p->pos;
	while (p->pos < p->len && is_name_char(p->s[p->pos]))
		p->pos++;
	size_t n = p->pos - start;
	if (n == 0)
		return perr(p, start,
			    "expected a filter (Name(args...)), '(', SKIP or "
			    "WHILE, found %s",
			    found(p, start, fb));
	const char *name = (const char *)p->s + start;
	size_t k = 0;
	while (k < sizeof registry / sizeof registry[0] &&
	       (strlen(registry[k].name) != n ||
		memcmp(registry[k].name, name, n)))
		k++;
	if (k == sizeof registry / sizeof registry[0])
		return unknown_filter(p, start, name, n);
	skip_ws(p);
	if (p->pos >= p->len || p->s[p->pos] != '(')
		return perr(p, p->pos, "expected '(' after %s, found %s",
			    registry[k].name, found(p, p->pos, fb));
	p->pos++;
	call c = {.p = p, .name = registry[k].name, .name_pos = start};
	int rc = parse_args(p, &c.a, &c.n);
	if (rc)
		return rc;
	rc = registry[k].build(&c, out);
	if (rc && rc != SBX_EPARSE && rc != SBX_ENOMEM)
		rc = perr(p, start, "%s: %s", registry[k].name, sbx_errmsg());
	args_free(c.a, c.n);
	return rc;
}

static int parse_or(parser *p, sbx_filter **out);

static int parse_unary(parser *p, sbx_filter **out)
{
	char fb[16];
	*out = NULL;
	skip_ws(p);
	if (++p->depth > MAX_DEPTH) {
		p->depth--;
		return perr(p, p->pos, "expression nested more than %d deep",
			    MAX_DEPTH);
	}
	int rc;
	bool skip = at_keyword(p, "SKIP");
	if (skip || at_keyword(p, "WHILE")) {
		p->pos += skip ? 4 : 5;
		sbx_filter *inner;
		rc = parse_unary(p, &inner);
		if (!rc)
			rc = skip ? sbx_filter_new_skip(out, inner)
				  : sbx_filter_new_while_match(out, inner);
	} else if (p->pos < p->len && p->s[p->pos] == '(') {
		size_t open = p->pos++;
		rc = parse_or(p, out);
		skip_ws(p);
		if (!rc && (p->pos >= p->len || p->s[p->pos] != ')')) {
			rc = perr(p, p->pos,
				  "expected AND, OR or ')' to close the '(' "
				  "at byte %zu, found %s",
				  open, found(p, p->pos, fb));
			sbx_filter_free(*out);
			*out = NULL;
		} else if (!rc) {
			p->pos++;
		}
	} else {
		rc = parse_simple(p, out);
	}
	p->depth--;
	return rc;
}

/* A run of `kw`-joined operands: one operand as is, more as one list. */
static int parse_run(parser *p, sbx_filter **out, const char *kw,
		     sbx_filter_list_op op,
		     int (*operand)(parser *, sbx_filter **))
{
	sbx_filter *first;
	int rc = operand(p, &first);
	if (rc)
		return rc;
	skip_ws(p);
	if (!at_keyword(p, kw)) {
		*out = first;
		return SBX_OK;
	}
	rc = sbx_filter_new_list(out, op, &first, 1);
	while (!rc && at_keyword(p, kw)) {
		p->pos += strlen(kw);
		sbx_filter *next;
		rc = operand(p, &next);
		if (!rc)
			rc = sbx_filter_list_add(*out, next);
		skip_ws(p);
	}
	if (rc) {
		sbx_filter_free(*out);
		*out = NULL;
	}
	return rc;
}

static int parse_and(parser *p, sbx_filter **out)
{
	return parse_run(p, out, "AND", SBX_FILTER_MUST_PASS_ALL, parse_unary);
}

static int parse_or(parser *p, sbx_filter **out)
{
	return parse_run(p, out, "OR", SBX_FILTER_MUST_PASS_ONE, parse_and);
}

int sbx_filter_parse(sbx_filter **out, const char *text, size_t len,
		     size_t *err_pos)
{
	char fb[16];
	*out = NULL;
	parser p = {.s = (const uint8_t *)(text ? text : ""),
		    .len = text ? len : 0};
	skip_ws(&p);
	int rc = p.pos == p.len
			 ? perr(&p, p.pos, "expected a filter expression, "
					   "found an empty string")
			 : parse_or(&p, out);
	if (!rc) {
		skip_ws(&p);
		if (p.pos < p.len) {
			rc = perr(&p, p.pos,
				  "expected AND, OR or the end of the "
				  "filter, found %s",
				  found(&p, p.pos, fb));
			sbx_filter_free(*out);
			*out = NULL;
		}
	}
	if (rc && err_pos)
		*err_pos = p.err_pos;
	return rc;
}
