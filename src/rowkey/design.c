/*
 * design.c - what a parsed key design does with values: resolving names
 * after parsing (hash inputs, delimiters, terminators), encoding a record
 * into a row key and decoding a row key back into fields, with salts and
 * hashes computed on encode and verified on decode. An encode either
 * appends the whole key or leaves the output buffer as it was.
 */
#include "rowkey/design.h"
#include "common/alloc.h"
#include "common/bytes.h"
#include "common/error.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int elem_err(sbx_keyparse_pos *pos, const kd_elem *e, const char *fmt,
		    ...) __attribute__((format(printf, 3, 4)));

static int elem_err(sbx_keyparse_pos *pos, const kd_elem *e, const char *fmt,
		    ...)
{
	char msg[768];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (pos) {
		pos->line = e->line;
		pos->column = e->column;
	}
	return sbx_error_set(SBX_EPARSE, "line %d, column %d: %s", e->line,
			     e->column, msg);
}

/* Prefix the current error message with the field it is about. */
static int field_err(int rc, const char *field)
{
	char msg[1024];
	snprintf(msg, sizeof msg, "%s", sbx_errmsg());
	return sbx_error_set(rc, "field '%s': %s", field, msg);
}

int kd_field_index(const sbx_keydesign *d, const char *name)
{
	assert(d && name);
	for (size_t i = 0; i < d->n_fields; i++)
		if (!strcmp(d->fields[i].name, name))
			return (int)i;
	return -1;
}

bool kd_option_has(const kd_option_list *l, const char *item)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->items[i], item))
			return true;
	return false;
}

static int add_field(sbx_keydesign *d, const char *name, int elem)
{
	kd_field *f = sbx_realloc(d->fields, (d->n_fields + 1) * sizeof *f);
	if (!f)
		return SBX_ENOMEM_SET();
	d->fields = f;
	if (!(f[d->n_fields].name = sbx_strdup(name)))
		return SBX_ENOMEM_SET();
	f[d->n_fields].elem = elem;
	d->n_fields++;
	return SBX_OK;
}

size_t kd_salt_width(const kd_elem *e)
{
	if (e->salt_fmt == SALT_BYTE || e->salt_fmt == SALT_LETTER)
		return 1;
	size_t w = 1;
	int base = e->salt_fmt == SALT_HEX ? 16 : 10;
	for (int v = e->buckets - 1; v >= base; v /= base)
		w++;
	return w;
}

size_t kd_hash_width(const kd_elem *e)
{
	return e->hash_fmt == HASH_RAW ? e->hash_bytes : 2 * e->hash_bytes;
}

size_t kd_elem_fixed_width(const kd_elem *e)
{
	switch (e->kind) {
	case KD_LITERAL: return e->lit_len;
	case KD_SALT: return kd_salt_width(e);
	case KD_HASH: return kd_hash_width(e);
	case KD_FIELD: break;
	}
	switch (e->type) {
	case KT_UINT:
	case KT_INT: return (size_t)e->int_width;
	case KT_F32:
	case KT_RLEN32: return 4;
	case KT_F64:
	case KT_TS64:
	case KT_RTS64: return 8;
	case KT_RTSDEC: return 19;
	case KT_STR:
	case KT_BYTES:
	case KT_DEC: return e->width;
	case KT_TEXT: return 0;
	}
	return 0;
}

sbx_keyorder kd_elem_order(const kd_elem *e)
{
	if (e->kind == KD_LITERAL)
		return SBX_ORDER_FIXED;
	if (e->kind != KD_FIELD || e->reversed)
		return SBX_ORDER_NONE;
	if (e->type == KT_DEC && !e->width)
		return SBX_ORDER_NONE; /* "10" < "9" */
	bool desc = e->desc;
	if (e->type == KT_RTS64 || e->type == KT_RTSDEC ||
	    e->type == KT_RLEN32)
		desc = !desc;
	return desc ? SBX_ORDER_DESC : SBX_ORDER_ASC;
}

/* ---- canonical text ---- */

static int put_str(sbx_buf *b, const char *s)
{
	return sbx_buf_append(b, s, strlen(s));
}

static int put_quoted(sbx_buf *b, const uint8_t *s, size_t n)
{
	int rc = sbx_buf_push(b, '\'');
	for (size_t i = 0; !rc && i < n; i++) {
		if (s[i] == '\'' || s[i] == '\\')
			rc = sbx_buf_printf(b, "\\%c", s[i]);
		else if (s[i] >= 0x20 && s[i] < 0x7F)
			rc = sbx_buf_push(b, s[i]);
		else
			rc = sbx_buf_printf(b, "\\x%02X", s[i]);
	}
	return rc ? rc : sbx_buf_push(b, '\'');
}

static const char *type_base(const kd_elem *e)
{
	static const char *const uints[] = {"", "u8", "u16", "", "u32",
					    "", "",   "",    "u64"};
	static const char *const ints[] = {"", "i8", "i16", "", "i32",
					   "", "",   "",    "i64"};
	switch (e->type) {
	case KT_UINT: return uints[e->int_width];
	case KT_INT: return ints[e->int_width];
	case KT_F32: return "f32";
	case KT_F64: return "f64";
	case KT_TS64: return "ts64";
	case KT_RTS64: return "rts64";
	case KT_RTSDEC: return "rtsdec";
	case KT_RLEN32: return "rlen32";
	case KT_STR: return e->reversed ? "rstr" : "str";
	case KT_BYTES: return "bytes";
	case KT_TEXT: return "text";
	case KT_DEC: return e->reversed ? "rdec" : "dec";
	}
	return "?";
}

static int type_text(const kd_elem *e, sbx_buf *b)
{
	int rc = SBX_OK;
	if (e->kind == KD_SALT) {
		static const char *const fmts[] = {"byte", "letter", "hex",
						   "dec"};
		rc = sbx_buf_printf(b, "salt(%d", e->buckets);
		for (size_t i = 0; !rc && i < e->n_of; i++)
			rc = sbx_buf_printf(b, ", of=%s", e->of[i]);
		if (!rc && e->salt_fmt != SALT_BYTE)
			rc = sbx_buf_printf(b, ", format=%s", fmts[e->salt_fmt]);
		return rc ? rc : sbx_buf_push(b, ')');
	}
	if (e->kind == KD_HASH) {
		rc = sbx_buf_printf(b, "%s(", kd_hash_name(e->algo));
		for (size_t i = 0; !rc && i < e->n_of; i++)
			rc = sbx_buf_printf(b, "%s%s", i ? ", " : "", e->of[i]);
		if (!rc && e->hash_bytes != sbx_hash_size(e->algo))
			rc = sbx_buf_printf(b, ", bytes=%zu", e->hash_bytes);
		if (!rc && e->hash_fmt != HASH_HEX_UPPER)
			rc = put_str(b, e->hash_fmt == HASH_RAW
						? ", format=raw"
						: ", format=hex");
		if (!rc && e->seed)
			rc = sbx_buf_printf(b, ", seed=%llu",
				     (unsigned long long)e->seed);
		return rc ? rc : sbx_buf_push(b, ')');
	}
	rc = put_str(b, type_base(e));
	bool args = false;
#define ARG_SEP (args ? ", " : (args = true, "("))
	if (!rc && e->width)
		rc = sbx_buf_printf(b, "%s%zu", ARG_SEP, e->width);
	if (!rc && e->type == KT_STR && e->pad != 0) {
		rc = put_str(b, ARG_SEP);
		if (!rc)
			rc = put_str(b, "pad=");
		if (!rc)
			rc = put_quoted(b, &e->pad, 1);
	}
	if (!rc && e->type == KT_STR && e->right_align)
		rc = sbx_buf_printf(b, "%salign=right", ARG_SEP);
	if (!rc && e->max_len)
		rc = sbx_buf_printf(b, "%smax=%zu", ARG_SEP, e->max_len);
	if (!rc && e->typical)
		rc = sbx_buf_printf(b, "%styp=%zu", ARG_SEP, e->typical);
#undef ARG_SEP
	if (!rc && args)
		rc = sbx_buf_push(b, ')');
	return rc;
}

static char *buf_cstr(sbx_buf *b)
{
	if (sbx_buf_push(b, 0)) {
		sbx_buf_free(b);
		return NULL;
	}
	return (char *)b->data;
}

/* An option's items, KD_MAX_ARGS a clause (`family(a, ...), family(q)`):
 * one clause takes no more, and repeated clauses add up, so the text
 * parses back to the same list. */
static int option_text(sbx_buf *b, const char *name, const kd_option_list *l,
		       bool *first)
{
	int rc = SBX_OK;
	for (size_t i = 0; !rc && i < l->n; i++) {
		if (i % KD_MAX_ARGS == 0) {
			rc = sbx_buf_printf(b, "%s%s%s(", i ? ")" : "",
					    *first ? " with " : ", ", name);
			*first = false;
		} else {
			rc = sbx_buf_printf(b, ", ");
		}
		if (!rc)
			rc = sbx_buf_printf(b, "%s", l->items[i]);
	}
	return rc || !l->n ? rc : sbx_buf_push(b, ')');
}

static int design_text(sbx_keydesign *d)
{
	sbx_buf b = {0};
	int rc = sbx_buf_printf(&b, "%s = ", d->name);
	for (size_t i = 0; !rc && i < d->n_elems; i++) {
		const kd_elem *e = &d->elems[i];
		if (i)
			rc = put_str(&b, " + ");
		if (rc)
			break;
		if (e->kind == KD_LITERAL) {
			rc = put_quoted(&b, e->lit, e->lit_len);
			continue;
		}
		bool default_name =
			(e->kind == KD_SALT && !strcmp(e->name, "salt")) ||
			(e->kind == KD_HASH &&
			 !strcmp(e->name, kd_hash_name(e->algo)));
		if (!default_name)
			rc = sbx_buf_printf(&b, "%s:", e->name);
		if (!rc)
			rc = put_str(&b, e->type_text);
		if (!rc && e->kind == KD_FIELD) {
			if (e->desc)
				rc = put_str(&b, " desc");
			if (!rc && e->mono)
				rc = put_str(&b, " mono");
			if (!rc && e->random)
				rc = put_str(&b, " random");
		}
	}
	bool first = true;
	if (!rc)
		rc = option_text(&b, "scan", &d->scan, &first);
	if (!rc)
		rc = option_text(&b, "identity", &d->identity, &first);
	if (!rc && d->regions)
		rc = sbx_buf_printf(&b, "%sregions(%d)", first ? " with " : ", ",
			     d->regions), first = false;
	if (!rc)
		rc = option_text(&b, "family", &d->family, &first);
	if (!rc)
		rc = option_text(&b, "qualifier", &d->qualifier, &first);
	if (!rc)
		rc = option_text(&b, "allow", &d->allow, &first);
	if (rc) {
		sbx_buf_free(&b);
		return rc;
	}
	if (!(d->text = buf_cstr(&b)))
		return SBX_ENOMEM_SET();
	return SBX_OK;
}

static int order_text(sbx_keydesign *d)
{
	sbx_buf b = {0};
	int rc = put_str(&b, "rows sort by ");
	bool first = true;
	for (size_t i = 0; !rc && i < d->n_elems; i++) {
		const kd_elem *e = &d->elems[i];
		if (e->kind == KD_LITERAL)
			continue;
		rc = put_str(&b, first ? "" : ", then ");
		first = false;
		if (rc)
			break;
		if (e->kind == KD_SALT) {
			rc = sbx_buf_printf(&b, "salt bucket (%d buckets; a scan "
					 "reads every bucket and merges)",
				     e->buckets);
			continue;
		}
		if (e->kind == KD_HASH) {
			rc = sbx_buf_printf(&b, "%s (scattered, no range order)",
				     e->type_text);
			continue;
		}
		switch (kd_elem_order(e)) {
		case SBX_ORDER_ASC:
			rc = sbx_buf_printf(&b, "%s ascending", e->name);
			break;
		case SBX_ORDER_DESC:
			rc = sbx_buf_printf(&b, "%s descending%s", e->name,
				     e->type == KT_RTS64 ||
						     e->type == KT_RTSDEC
					     ? " (newest first)"
					     : "");
			break;
		default:
			rc = sbx_buf_printf(&b, "%s as %s (no numeric order)",
				     e->name, e->reversed ? "reversed text"
							  : "text");
		}
	}
	if (rc) {
		sbx_buf_free(&b);
		return rc;
	}
	if (!(d->order = buf_cstr(&b)))
		return SBX_ENOMEM_SET();
	return SBX_OK;
}

static bool is_text_like(const kd_elem *e)
{
	return e->kind == KD_FIELD &&
	       (e->type == KT_TEXT || (e->type == KT_DEC && !e->width));
}

static int check_options(sbx_keydesign *d, sbx_keyparse_pos *pos)
{
	const kd_elem *first = &d->elems[0];
	for (size_t i = 0; i < d->scan.n; i++)
		if (kd_field_index(d, d->scan.items[i]) < 0)
			return elem_err(pos, first,
					"design '%s': scan(%s) names no field "
					"of the key", d->name, d->scan.items[i]);
	for (size_t i = 0; i < d->allow.n; i++)
		if (!kd_lint_rule_find(d->allow.items[i]))
			return elem_err(pos, first,
					"design '%s': allow(%s) names no lint "
					"rule", d->name, d->allow.items[i]);
	return SBX_OK;
}

int kd_design_finish(sbx_keydesign *d, sbx_keyparse_pos *pos)
{
	int rc;
	bool has_value = false;
	for (size_t i = 0; i < d->n_elems; i++) {
		kd_elem *e = &d->elems[i];
		if (e->kind == KD_LITERAL)
			continue;
		has_value = true;
		if (e->kind == KD_SALT && i != 0)
			return elem_err(pos, e, "salt must be the first element "
						"of the key (it picks the "
						"region)");
		for (size_t j = 0; j < i; j++)
			if (d->elems[j].name && !strcmp(d->elems[j].name, e->name)) {
				if (e->kind == KD_HASH &&
				    !strcmp(e->name, kd_hash_name(e->algo)))
					return elem_err(pos, e,
							"a second %s(...) needs "
							"its own name, e.g. "
							"h2:%s(...)", e->name,
							e->name);
				return elem_err(pos, e, "'%s' appears twice in "
							"the key", e->name);
			}
		if (e->kind == KD_FIELD && (rc = add_field(d, e->name, (int)i)))
			return rc;
	}
	if (!has_value)
		return elem_err(pos, &d->elems[0], "design '%s' has only "
						   "literals; add a field",
				d->name);
	/* hash / salt inputs */
	for (size_t i = 0; i < d->n_elems; i++) {
		kd_elem *e = &d->elems[i];
		if (e->kind != KD_SALT && e->kind != KD_HASH)
			continue;
		if (e->n_of &&
		    !(e->of_field = sbx_calloc(e->n_of, sizeof(int))))
			return SBX_ENOMEM_SET();
		for (size_t k = 0; k < e->n_of; k++) {
			for (size_t j = 0; j < d->n_elems; j++)
				if (d->elems[j].kind != KD_FIELD &&
				    d->elems[j].name &&
				    !strcmp(d->elems[j].name, e->of[k]))
					return elem_err(pos, e,
							"%s cannot hash '%s': "
							"it is a salt or hash, "
							"not a field",
							e->name, e->of[k]);
			int f = kd_field_index(d, e->of[k]);
			if (f < 0) {
				if ((rc = add_field(d, e->of[k], -1)))
					return rc;
				f = (int)d->n_fields - 1;
			}
			e->of_field[k] = f;
		}
	}
	/* terminators and delimiters */
	for (size_t i = 0; i < d->n_elems; i++) {
		kd_elem *e = &d->elems[i];
		if (e->kind != KD_FIELD)
			continue;
		bool last = i + 1 == d->n_elems;
		if ((e->type == KT_STR || e->type == KT_BYTES) && !e->width)
			e->terminated = e->desc || !last;
		e->delim = -1;
		if (is_text_like(e) && !last) {
			const kd_elem *n = &d->elems[i + 1];
			if (n->kind != KD_LITERAL)
				return elem_err(pos, e,
						"%s field '%s' must be followed "
						"by a quoted delimiter (e.g. "
						"':') or be last; use str for "
						"an escaped field",
						type_base(e), e->name);
			e->delim = n->lit[0];
			if (e->type == KT_DEC && n->lit[0] >= '0' &&
			    n->lit[0] <= '9')
				return elem_err(pos, e,
						"dec field '%s' cannot be "
						"delimited by a digit",
						e->name);
		}
	}
	for (size_t i = 0; i < d->n_elems; i++) {
		kd_elem *e = &d->elems[i];
		if (e->kind == KD_LITERAL)
			continue;
		sbx_buf b = {0};
		if ((rc = type_text(e, &b))) {
			sbx_buf_free(&b);
			return rc;
		}
		if (!(e->type_text = buf_cstr(&b)))
			return SBX_ENOMEM_SET();
	}
	if ((rc = check_options(d, pos)))
		return rc;
	if ((rc = design_text(d)) || (rc = order_text(d)))
		return rc;
	return SBX_OK;
}

const char *sbx_keydesign_name(const sbx_keydesign *d)
{
	return d->name;
}

const char *sbx_keydesign_text(const sbx_keydesign *d)
{
	return d->text;
}

/* ---- value parsing ---- */

static int parse_i64(const char *v, size_t n, int64_t *out)
{
	char tmp[32];
	if (n == 0 || n >= sizeof tmp)
		return sbx_error_set(SBX_EINVAL, "'%.*s' is not an integer",
				     (int)(n < 40 ? n : 40), v);
	memcpy(tmp, v, n);
	tmp[n] = 0;
	const char *s = tmp[0] == '-' ? tmp + 1 : tmp;
	if (!*s || strspn(s, "0123456789") != strlen(s))
		return sbx_error_set(SBX_EINVAL, "'%s' is not an integer", tmp);
	errno = 0;
	long long x = strtoll(tmp, NULL, 10);
	if (errno == ERANGE)
		return sbx_error_set(SBX_EINVAL, "%s is out of the 64-bit "
					       "range", tmp);
	*out = x;
	return SBX_OK;
}

static int parse_u64(const char *v, size_t n, uint64_t *out)
{
	char tmp[32];
	if (n == 0 || n >= sizeof tmp || strspn(v, "0123456789") < n)
		return sbx_error_set(SBX_EINVAL,
				     "'%.*s' is not an unsigned integer",
				     (int)(n < 40 ? n : 40), v);
	memcpy(tmp, v, n);
	tmp[n] = 0;
	errno = 0;
	unsigned long long x = strtoull(tmp, NULL, 10);
	if (errno == ERANGE)
		return sbx_error_set(SBX_EINVAL, "%s is out of the 64-bit "
					       "range", tmp);
	*out = x;
	return SBX_OK;
}

static int parse_double(const char *v, size_t n, bool f32, double *out)
{
	char tmp[64];
	if (n == 0 || n >= sizeof tmp || memchr(v, 0, n) ||
	    strchr(" \t\n\r\f\v", v[0]))
		return sbx_error_set(SBX_EINVAL, "'%.*s' is not a number",
				     (int)(n < 40 ? n : 40), v);
	memcpy(tmp, v, n);
	tmp[n] = 0;
	char *end;
	errno = 0;
	double x = f32 ? (double)strtof(tmp, &end) : strtod(tmp, &end);
	if (*end || end == tmp)
		return sbx_error_set(SBX_EINVAL, "'%s' is not a number", tmp);
	if (errno == ERANGE && isinf(x))
		return sbx_error_set(SBX_EINVAL, "%s overflows %s", tmp,
				     f32 ? "f32" : "f64");
	*out = x;
	return SBX_OK;
}

static int hex_decode(const char *v, size_t n, sbx_buf *out)
{
	size_t bad_at;
	int rc = sbx_hex_decode(out, v, n, &bad_at);
	if (rc == SBX_EINVAL && bad_at == n)
		return sbx_error_set(SBX_EINVAL, "bytes are given as hex "
					       "digits; '%.*s' has an odd "
					       "count", (int)(n < 40 ? n : 40), v);
	if (rc == SBX_EINVAL)
		return sbx_error_set(SBX_EINVAL, "'%.2s' is not hex",
				     v + bad_at);
	return rc;
}

static bool all_digits(const char *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] < '0' || v[i] > '9')
			return false;
	return n > 0;
}

/* Canonical digits of a dec value: leading zeros stripped ("0" stays). */
static int dec_canonical(const kd_elem *e, const char *v, size_t n,
			 const char **digits, size_t *len)
{
	if (!all_digits(v, n))
		return sbx_error_set(SBX_EINVAL, "'%.*s' is not a decimal "
					       "number (digits only)",
				     (int)(n < 40 ? n : 40), v);
	size_t z = 0;
	while (z + 1 < n && v[z] == '0')
		z++;
	if (z && !e->width)
		return sbx_error_set(SBX_EINVAL,
				     "'%.*s' has leading zeros; a variable "
				     "dec would not give it back (use dec(N))",
				     (int)(n < 40 ? n : 40), v);
	*digits = v + z;
	*len = n - z;
	return SBX_OK;
}

int kd_encode_field(const kd_elem *e, const char *v, size_t n, sbx_buf *out)
{
	assert(e && out && (v || !n));
	size_t start = out->len;
	int rc = SBX_OK;
	int64_t i64;
	uint64_t u64 = 0;
	double dbl;
	switch (e->type) {
	case KT_UINT:
		if (!(rc = parse_u64(v, n, &u64)))
			rc = sbx_key_put_uint(out, u64, e->int_width);
		break;
	case KT_INT:
		if (!(rc = parse_i64(v, n, &i64)))
			rc = sbx_key_put_int(out, i64, e->int_width);
		break;
	case KT_F32:
		if (!(rc = parse_double(v, n, true, &dbl)))
			rc = sbx_key_put_f32(out, (float)dbl);
		break;
	case KT_F64:
		if (!(rc = parse_double(v, n, false, &dbl)))
			rc = sbx_key_put_f64(out, dbl);
		break;
	case KT_TS64:
		if (!(rc = parse_i64(v, n, &i64))) {
			if (i64 < 0)
				rc = sbx_error_set(SBX_EINVAL,
						   "timestamp %lld is negative",
						   (long long)i64);
			else
				rc = sbx_key_put_uint(out, (uint64_t)i64, 8);
		}
		break;
	case KT_RTS64:
		if (!(rc = parse_i64(v, n, &i64)))
			rc = sbx_key_put_rts64(out, i64);
		break;
	case KT_RTSDEC:
		if (!(rc = parse_i64(v, n, &i64))) {
			char tmp[24];
			if (i64 < 0)
				rc = sbx_error_set(SBX_EINVAL,
						   "timestamp %lld is negative; "
						   "a reverse timestamp needs "
						   "ts >= 0", (long long)i64);
			else {
				snprintf(tmp, sizeof tmp, "%019lld",
					 (long long)(INT64_MAX - i64));
				rc = sbx_buf_append(out, tmp, 19);
			}
		}
		break;
	case KT_RLEN32:
		if (!(rc = parse_i64(v, n, &i64))) {
			if (i64 < 0 || i64 > INT32_MAX)
				rc = sbx_error_set(SBX_EINVAL,
						   "%lld is outside 0..%d",
						   (long long)i64, INT32_MAX);
			else
				rc = sbx_key_put_uint(
					out, (uint64_t)(INT32_MAX - i64), 4);
		}
		break;
	case KT_STR:
	case KT_BYTES: {
		sbx_buf tmp = {0};
		if (e->type == KT_BYTES)
			rc = hex_decode(v, n, &tmp);
		else
			rc = sbx_buf_append(&tmp, v, n);
		if (!rc && e->reversed)
			sbx_key_reverse(tmp.data, tmp.len);
		if (rc) {
		} else if (e->max_len && tmp.len > e->max_len) {
			rc = sbx_error_set(SBX_EINVAL,
					   "value is %zu bytes, over max=%zu",
					   tmp.len, e->max_len);
		} else if (e->width && e->type == KT_BYTES) {
			if (tmp.len != e->width)
				rc = sbx_error_set(SBX_EINVAL,
						   "bytes(%zu) needs exactly %zu "
						   "bytes, got %zu", e->width,
						   e->width, tmp.len);
			else
				rc = sbx_buf_append(out, tmp.data, tmp.len);
		} else if (e->width) {
			rc = sbx_key_put_fixed(out, tmp.data, tmp.len, e->width,
					       e->pad, e->right_align);
		} else {
			unsigned fl = (e->terminated ? SBX_KEY_TERMINATED : 0) |
				      (e->desc ? SBX_KEY_DESC : 0);
			rc = sbx_key_put_bytes(out, tmp.data, tmp.len, fl);
			sbx_buf_free(&tmp);
			return rc; /* put_bytes handled desc */
		}
		sbx_buf_free(&tmp);
		break;
	}
	case KT_TEXT:
		if (e->max_len && n > e->max_len)
			rc = sbx_error_set(SBX_EINVAL,
					   "value is %zu bytes, over max=%zu", n,
					   e->max_len);
		else if (e->delim >= 0 && memchr(v, e->delim, n))
			rc = sbx_error_set(SBX_EINVAL,
					   "value contains the delimiter '%c' "
					   "that ends this text field",
					   e->delim);
		else
			rc = sbx_buf_append(out, v, n);
		break;
	case KT_DEC: {
		const char *dg;
		size_t dn;
		if ((rc = dec_canonical(e, v, n, &dg, &dn)))
			break;
		if (e->max_len && dn > e->max_len) {
			rc = sbx_error_set(SBX_EINVAL,
					   "%zu digits, over max=%zu", dn,
					   e->max_len);
			break;
		}
		if (e->width && dn > e->width) {
			rc = sbx_error_set(SBX_EINVAL,
					   "%zu digits do not fit dec(%zu) "
					   "(never truncated)", dn, e->width);
			break;
		}
		size_t w = e->width ? e->width : dn;
		if ((rc = sbx_buf_reserve(out, w)))
			break;
		memset(out->data + out->len, '0', w - dn);
		memcpy(out->data + out->len + (w - dn), dg, dn);
		if (e->reversed)
			sbx_key_reverse(out->data + out->len, w);
		out->len += w;
		break;
	}
	}
	if (rc) {
		out->len = start;
		return rc;
	}
	if (e->desc)
		sbx_key_invert(out->data + start, out->len - start);
	return SBX_OK;
}

int kd_hash_input(const kd_elem *e, const char *v, size_t n, sbx_buf *out)
{
	assert(out && (v || !n));
	if (!e || e->type == KT_STR || e->type == KT_TEXT)
		return sbx_buf_append(out, v, n);
	if (e->type == KT_BYTES)
		return hex_decode(v, n, out);
	if (e->type == KT_DEC) {
		const char *dg;
		size_t dn;
		int rc = dec_canonical(e, v, n, &dg, &dn);
		return rc ? rc : sbx_buf_append(out, dg, dn);
	}
	return kd_encode_field(e, v, n, out);
}

int kd_hash_bytes(const kd_elem *e, const uint8_t *in, size_t n,
		  sbx_buf *out)
{
	assert(e && e->kind == KD_HASH && out && (in || !n));
	uint8_t digest[16];
	int rc = sbx_hash(digest, e->algo, e->seed, in, n);
	if (rc)
		return rc;
	if (e->hash_fmt == HASH_RAW)
		return sbx_buf_append(out, digest, e->hash_bytes);
	return sbx_key_put_hex(out, digest, e->hash_bytes,
			       e->hash_fmt == HASH_HEX_UPPER);
}

int kd_salt_bytes(const kd_elem *e, int bucket, sbx_buf *out)
{
	assert(e && e->kind == KD_SALT && out);
	assert(bucket >= 0 && bucket < e->buckets);
	char tmp[8];
	size_t w = kd_salt_width(e);
	switch (e->salt_fmt) {
	case SALT_BYTE:
		return sbx_buf_push(out, (uint8_t)bucket);
	case SALT_LETTER:
		return sbx_buf_push(out, (uint8_t)('a' + bucket));
	case SALT_HEX:
		snprintf(tmp, sizeof tmp, "%0*x", (int)w, bucket);
		return sbx_buf_append(out, tmp, w);
	case SALT_DEC:
		snprintf(tmp, sizeof tmp, "%0*d", (int)w, bucket);
		return sbx_buf_append(out, tmp, w);
	}
	return SBX_EINVAL;
}

/* ---- encode ---- */

/* For each design field, the index of its value in `values`. */
static int match_values(const sbx_keydesign *d, const sbx_keyvalue *values,
			size_t n, size_t *idx)
{
	for (size_t f = 0; f < d->n_fields; f++)
		idx[f] = SIZE_MAX;
	for (size_t i = 0; i < n; i++) {
		if (!values[i].name || (!values[i].value && values[i].value_len))
			return sbx_error_set(SBX_EINVAL, "value %zu has no name "
						       "or no text", i);
		int f = kd_field_index(d, values[i].name);
		if (f < 0)
			return sbx_error_set(SBX_EINVAL,
					     "design '%s' has no field '%s'",
					     d->name, values[i].name);
		if (idx[f] != SIZE_MAX)
			return sbx_error_set(SBX_EINVAL,
					     "field '%s' is given twice",
					     values[i].name);
		idx[f] = i;
	}
	return SBX_OK;
}

/* Input bytes of a salt or hash from the values (of= fields). */
static int element_input(const sbx_keydesign *d, const kd_elem *e,
			 const sbx_keyvalue *values, const size_t *idx,
			 sbx_buf *in)
{
	for (size_t k = 0; k < e->n_of; k++) {
		const kd_field *f = &d->fields[e->of_field[k]];
		const sbx_keyvalue *v = &values[idx[e->of_field[k]]];
		const kd_elem *fe = f->elem >= 0 ? &d->elems[f->elem] : NULL;
		int rc = kd_hash_input(fe, v->value ? v->value : "",
				       v->value_len, in);
		if (rc)
			return field_err(rc, f->name);
	}
	return SBX_OK;
}

int sbx_keydesign_encode(sbx_buf *out, const sbx_keydesign *d,
			 const sbx_keyvalue *values, size_t n)
{
	if (!d || !out || (n && !values))
		return sbx_error_set(SBX_EINVAL, "NULL argument to encode");
	size_t *idx = sbx_malloc((d->n_fields ? d->n_fields : 1) * sizeof *idx);
	if (!idx)
		return SBX_ENOMEM_SET();
	sbx_buf rest = {0}, in = {0}, salt = {0};
	int rc = match_values(d, values, n, idx);
	for (size_t f = 0; !rc && f < d->n_fields; f++)
		if (idx[f] == SIZE_MAX)
			rc = sbx_error_set(SBX_EINVAL,
					   "design '%s' needs field '%s'",
					   d->name, d->fields[f].name);
	const kd_elem *salt_el = NULL;
	for (size_t i = 0; !rc && i < d->n_elems; i++) {
		const kd_elem *e = &d->elems[i];
		switch (e->kind) {
		case KD_LITERAL:
			rc = sbx_buf_append(&rest, e->lit, e->lit_len);
			break;
		case KD_FIELD: {
			const sbx_keyvalue *v =
				&values[idx[kd_field_index(d, e->name)]];
			rc = kd_encode_field(e, v->value ? v->value : "",
					     v->value_len, &rest);
			if (rc)
				rc = field_err(rc, e->name);
			break;
		}
		case KD_HASH:
			in.len = 0;
			rc = element_input(d, e, values, idx, &in);
			if (!rc)
				rc = kd_hash_bytes(e, in.data, in.len, &rest);
			break;
		case KD_SALT:
			salt_el = e;
			break;
		}
	}
	if (!rc && salt_el) {
		in.len = 0;
		if (salt_el->n_of)
			rc = element_input(d, salt_el, values, idx, &in);
		else
			rc = sbx_buf_append(&in, rest.data, rest.len);
		int bucket = rc ? 0 : sbx_phoenix_salt(in.data, in.len,
						       salt_el->buckets);
		if (!rc && bucket < 0)
			rc = bucket;
		if (!rc)
			rc = kd_salt_bytes(salt_el, bucket, &salt);
	}
	if (!rc && salt.len + rest.len > SBX_MAX_ROW_LENGTH)
		rc = sbx_error_set(SBX_ETOOLARGE,
				   "key is %zu bytes, over HBase's row limit "
				   "of %d", salt.len + rest.len,
				   SBX_MAX_ROW_LENGTH);
	if (!rc) {
		size_t start = out->len;
		rc = sbx_buf_append(out, salt.data, salt.len);
		if (!rc)
			rc = sbx_buf_append(out, rest.data, rest.len);
		if (rc)
			out->len = start;
	}
	free(idx);
	sbx_buf_free(&rest);
	sbx_buf_free(&in);
	sbx_buf_free(&salt);
	return rc;
}

/* ---- records ---- */

struct sbx_keyrecord {
	size_t n;
	char **names;
	char **values;
	size_t *lens;
};

static int record_add(sbx_keyrecord *r, const char *name, const void *v,
		      size_t len)
{
	char **names = sbx_realloc(r->names, (r->n + 1) * sizeof *names);
	if (!names)
		return SBX_ENOMEM_SET();
	r->names = names;
	char **values = sbx_realloc(r->values, (r->n + 1) * sizeof *values);
	if (!values)
		return SBX_ENOMEM_SET();
	r->values = values;
	size_t *lens = sbx_realloc(r->lens, (r->n + 1) * sizeof *lens);
	if (!lens)
		return SBX_ENOMEM_SET();
	r->lens = lens;
	char *nm = sbx_strdup(name);
	char *val = sbx_malloc(len + 1);
	if (!nm || !val) {
		free(nm);
		free(val);
		return SBX_ENOMEM_SET();
	}
	if (len)
		memcpy(val, v, len);
	val[len] = 0;
	r->names[r->n] = nm;
	r->values[r->n] = val;
	r->lens[r->n] = len;
	r->n++;
	return SBX_OK;
}

void sbx_keyrecord_free(sbx_keyrecord *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n; i++) {
		free(r->names[i]);
		free(r->values[i]);
	}
	free(r->names);
	free(r->values);
	free(r->lens);
	free(r);
}

size_t sbx_keyrecord_count(const sbx_keyrecord *r)
{
	return r ? r->n : 0;
}

const char *sbx_keyrecord_name(const sbx_keyrecord *r, size_t i)
{
	return r && i < r->n ? r->names[i] : NULL;
}

const char *sbx_keyrecord_value(const sbx_keyrecord *r, size_t i)
{
	return r && i < r->n ? r->values[i] : NULL;
}

size_t sbx_keyrecord_value_len(const sbx_keyrecord *r, size_t i)
{
	return r && i < r->n ? r->lens[i] : 0;
}

const char *sbx_keyrecord_get(const sbx_keyrecord *r, const char *name)
{
	for (size_t i = 0; r && name && i < r->n; i++)
		if (!strcmp(r->names[i], name))
			return r->values[i];
	return NULL;
}

/* ---- decode ---- */

static int decode_field(const kd_elem *e, const uint8_t *in, size_t len,
			size_t *used, sbx_buf *val)
{
	size_t fw = kd_elem_fixed_width(e);
	uint8_t tmp[32];
	const uint8_t *p = in;
	char num[48];
	int rc;
	if (fw && fw <= sizeof tmp && e->type != KT_STR &&
	    e->type != KT_BYTES && e->type != KT_DEC) {
		if (len < fw)
			return sbx_error_set(SBX_EINVAL,
					     "key ends early: %zu bytes needed, "
					     "%zu left", fw, len);
		memcpy(tmp, in, fw);
		if (e->desc)
			sbx_key_invert(tmp, fw);
		p = tmp;
		*used = fw;
	}
	uint64_t u;
	int64_t s;
	switch (e->type) {
	case KT_UINT:
		sbx_key_get_uint(&u, p, fw, e->int_width, NULL);
		snprintf(num, sizeof num, "%llu", (unsigned long long)u);
		return put_str(val, num);
	case KT_INT:
		sbx_key_get_int(&s, p, fw, e->int_width, NULL);
		snprintf(num, sizeof num, "%lld", (long long)s);
		return put_str(val, num);
	case KT_F32: {
		float f;
		sbx_key_get_f32(&f, p, fw, NULL);
		snprintf(num, sizeof num, "%.9g", (double)f);
		return put_str(val, num);
	}
	case KT_F64: {
		double f;
		sbx_key_get_f64(&f, p, fw, NULL);
		snprintf(num, sizeof num, "%.17g", f);
		return put_str(val, num);
	}
	case KT_TS64:
		sbx_key_get_uint(&u, p, fw, 8, NULL);
		if (u > (uint64_t)INT64_MAX)
			return sbx_error_set(SBX_EINVAL,
					     "%016llx is not a timestamp (top bit "
					     "set)", (unsigned long long)u);
		snprintf(num, sizeof num, "%llu", (unsigned long long)u);
		return put_str(val, num);
	case KT_RTS64:
		if ((rc = sbx_key_get_rts64(&s, p, fw, NULL)))
			return rc;
		snprintf(num, sizeof num, "%lld", (long long)s);
		return put_str(val, num);
	case KT_RTSDEC: {
		if (!all_digits((const char *)p, 19))
			return sbx_error_set(SBX_EINVAL,
					     "'%.19s' is not 19 digits",
					     (const char *)p);
		memcpy(num, p, 19);
		num[19] = 0;
		unsigned long long x = strtoull(num, NULL, 10);
		if (x > (unsigned long long)INT64_MAX)
			return sbx_error_set(SBX_EINVAL, "%s is above "
						       "Long.MAX_VALUE", num);
		snprintf(num, sizeof num, "%lld",
			 (long long)(INT64_MAX - (int64_t)x));
		return put_str(val, num);
	}
	case KT_RLEN32:
		sbx_key_get_uint(&u, p, fw, 4, NULL);
		if (u > INT32_MAX)
			return sbx_error_set(SBX_EINVAL,
					     "%08llx is not a reverse length",
					     (unsigned long long)u);
		snprintf(num, sizeof num, "%lld", (long long)(INT32_MAX - u));
		return put_str(val, num);
	case KT_STR:
	case KT_BYTES: {
		sbx_buf raw = {0};
		if (e->width) {
			if (len < e->width)
				return sbx_error_set(SBX_EINVAL,
						     "key ends early: %zu bytes "
						     "needed, %zu left", e->width,
						     len);
			rc = sbx_buf_append(&raw, in, e->width);
			if (!rc && e->desc)
				sbx_key_invert(raw.data, raw.len);
			if (!rc && e->type == KT_STR) {
				sbx_buf stripped = {0};
				rc = sbx_key_get_fixed(&stripped, raw.data,
						       raw.len, e->width, e->pad,
						       e->right_align, NULL);
				sbx_buf_free(&raw);
				raw = stripped;
			}
			*used = e->width;
		} else {
			unsigned fl = (e->terminated ? SBX_KEY_TERMINATED : 0) |
				      (e->desc ? SBX_KEY_DESC : 0);
			rc = sbx_key_get_bytes(&raw, in, len, fl, used);
		}
		if (!rc && e->reversed && raw.len)
			sbx_key_reverse(raw.data, raw.len);
		if (!rc && e->type == KT_BYTES)
			rc = sbx_key_put_hex(val, raw.data, raw.len, false);
		else if (!rc)
			rc = sbx_buf_append(val, raw.data, raw.len);
		sbx_buf_free(&raw);
		return rc;
	}
	case KT_TEXT:
	case KT_DEC: {
		size_t n;
		if (e->width) {
			if (len < e->width)
				return sbx_error_set(SBX_EINVAL,
						     "key ends early: %zu bytes "
						     "needed, %zu left", e->width,
						     len);
			n = e->width;
		} else if (e->delim >= 0) {
			const uint8_t *q = memchr(in, e->delim, len);
			if (!q)
				return sbx_error_set(SBX_EINVAL,
						     "no '%c' delimiter after the "
						     "field", e->delim);
			n = (size_t)(q - in);
		} else {
			n = len;
		}
		if (e->type == KT_TEXT) {
			*used = n;
			return sbx_buf_append(val, in, n);
		}
		sbx_buf dg = {0};
		if ((rc = sbx_buf_append(&dg, in, n)))
			return rc;
		if (e->desc)
			sbx_key_invert(dg.data, dg.len);
		if (e->reversed && dg.len)
			sbx_key_reverse(dg.data, dg.len);
		if (!all_digits((const char *)dg.data, dg.len)) {
			sbx_buf_free(&dg);
			return sbx_error_set(SBX_EINVAL, "'%.*s' is not decimal "
						       "digits", (int)(n < 40 ? n : 40),
					     (const char *)in);
		}
		size_t z = 0;
		while (z + 1 < dg.len && dg.data[z] == '0')
			z++;
		if (z && !e->width) {
			sbx_buf_free(&dg);
			return sbx_error_set(SBX_EINVAL,
					     "'%.*s' has leading zeros",
					     (int)(n < 40 ? n : 40),
					     (const char *)in);
		}
		rc = sbx_buf_append(val, dg.data + z, dg.len - z);
		sbx_buf_free(&dg);
		*used = n;
		return rc;
	}
	}
	return SBX_EINVAL;
}

static int hex_check(const uint8_t *p, size_t n, kd_hash_fmt fmt)
{
	for (size_t i = 0; i < n; i++) {
		uint8_t c = p[i];
		bool ok = (c >= '0' && c <= '9') ||
			  (fmt == HASH_HEX_UPPER ? (c >= 'A' && c <= 'F')
						 : (c >= 'a' && c <= 'f'));
		if (!ok)
			return sbx_error_set(SBX_EINVAL,
					     "byte %zu of the hash is '%c', not "
					     "%s hex", i, c >= 0x20 && c < 0x7F ? c : '?',
					     fmt == HASH_HEX_UPPER ? "upper-case"
								   : "lower-case");
	}
	return SBX_OK;
}

/* Recompute salts and hashes whose inputs the key holds; compare. */
static int verify(const sbx_keydesign *d, const uint8_t *key, size_t len,
		  const sbx_keyrecord *r, const size_t *elem_pos,
		  const size_t *elem_len)
{
	int rc = SBX_OK;
	sbx_buf in = {0}, got = {0};
	for (size_t i = 0; !rc && i < d->n_elems; i++) {
		const kd_elem *e = &d->elems[i];
		if (e->kind != KD_SALT && e->kind != KD_HASH)
			continue;
		bool have = true;
		in.len = 0;
		for (size_t k = 0; k < e->n_of && have; k++) {
			const kd_field *f = &d->fields[e->of_field[k]];
			if (f->elem < 0) {
				have = false;
				break;
			}
			const kd_elem *fe = &d->elems[f->elem];
			size_t ri = 0;
			while (ri < r->n && strcmp(r->names[ri], f->name))
				ri++;
			rc = kd_hash_input(fe, r->values[ri], r->lens[ri], &in);
			if (rc)
				have = false;
		}
		if (!have)
			continue;
		got.len = 0;
		if (e->kind == KD_HASH) {
			rc = kd_hash_bytes(e, in.data, in.len, &got);
		} else {
			if (!e->n_of)
				rc = sbx_buf_append(&in, key + elem_len[0],
						    len - elem_len[0]);
			int b = rc ? 0 : sbx_phoenix_salt(in.data, in.len,
							  e->buckets);
			rc = rc ? rc : b < 0 ? b : kd_salt_bytes(e, b, &got);
		}
		if (!rc && (got.len != elem_len[i] ||
			    memcmp(got.data, key + elem_pos[i], got.len)))
			rc = sbx_error_set(SBX_EINVAL,
					   "%s at byte %zu does not match the "
					   "key's %s (expected %.*s%s)", e->name,
					   elem_pos[i],
					   e->n_of ? "fields" : "remaining bytes",
					   e->kind == KD_HASH &&
							   e->hash_fmt != HASH_RAW
						   ? (int)got.len
						   : 0,
					   (const char *)got.data,
					   e->kind == KD_HASH &&
							   e->hash_fmt != HASH_RAW
						   ? ""
						   : "another bucket");
	}
	sbx_buf_free(&in);
	sbx_buf_free(&got);
	return rc;
}

int sbx_keydesign_decode(sbx_keyrecord **out, const sbx_keydesign *d,
			 const uint8_t *key, size_t len)
{
	*out = NULL;
	if (!d || (!key && len))
		return sbx_error_set(SBX_EINVAL, "NULL argument to decode");
	static const uint8_t empty[1];
	if (!key)
		key = empty; /* len is 0: never read, but never NULL either */
	sbx_keyrecord *r = sbx_calloc(1, sizeof *r);
	size_t *elem_pos = sbx_calloc(d->n_elems, sizeof *elem_pos);
	size_t *elem_len = sbx_calloc(d->n_elems, sizeof *elem_len);
	sbx_buf val = {0};
	int rc = (r && elem_pos && elem_len) ? SBX_OK : SBX_ENOMEM_SET();
	size_t pos = 0;
	for (size_t i = 0; !rc && i < d->n_elems; i++) {
		const kd_elem *e = &d->elems[i];
		size_t left = len - pos, used = 0;
		const uint8_t *p = key + pos;
		val.len = 0;
		elem_pos[i] = pos;
		if (e->kind == KD_LITERAL) {
			if (left < e->lit_len ||
			    memcmp(p, e->lit, e->lit_len)) {
				sbx_buf q = {0};
				put_quoted(&q, e->lit, e->lit_len);
				rc = sbx_error_set(SBX_EINVAL,
						   "byte %zu: expected the "
						   "literal %.*s", pos,
						   (int)q.len,
						   q.data ? (char *)q.data : "");
				sbx_buf_free(&q);
				break;
			}
			used = e->lit_len;
		} else if (e->kind == KD_SALT) {
			size_t w = kd_salt_width(e);
			int b = -1;
			if (left < w) {
				rc = sbx_error_set(SBX_EINVAL,
						   "key is shorter than its "
						   "salt");
				break;
			}
			if (e->salt_fmt == SALT_BYTE)
				b = p[0];
			else if (e->salt_fmt == SALT_LETTER)
				b = p[0] >= 'a' && p[0] <= 'z' ? p[0] - 'a' : -1;
			else {
				char tmp[8];
				memcpy(tmp, p, w);
				tmp[w] = 0;
				char *end;
				bool ok = strspn(tmp, e->salt_fmt == SALT_HEX
							      ? "0123456789abcdef"
							      : "0123456789") == w;
				long v = strtol(tmp, &end,
						e->salt_fmt == SALT_HEX ? 16 : 10);
				b = ok ? (int)v : -1;
			}
			if (b < 0 || b >= e->buckets) {
				rc = sbx_error_set(SBX_EINVAL,
						   "salt at byte 0 is not a "
						   "bucket 0..%d",
						   e->buckets - 1);
				break;
			}
			used = w;
			char num[16];
			snprintf(num, sizeof num, "%d", b);
			rc = put_str(&val, num);
		} else if (e->kind == KD_HASH) {
			size_t w = kd_hash_width(e);
			if (left < w) {
				rc = sbx_error_set(SBX_EINVAL,
						   "key ends inside %s at byte "
						   "%zu", e->name, pos);
				break;
			}
			if (e->hash_fmt == HASH_RAW)
				rc = sbx_key_put_hex(&val, p, w, false);
			else if (!(rc = hex_check(p, w, e->hash_fmt)))
				rc = sbx_buf_append(&val, p, w);
			used = w;
		} else {
			rc = decode_field(e, p, left, &used, &val);
			if (rc)
				rc = field_err(rc, e->name);
		}
		if (!rc && e->kind != KD_LITERAL)
			rc = record_add(r, e->name, val.data ? (char *)val.data : "",
					val.len);
		elem_len[i] = used;
		pos += used;
	}
	if (!rc && pos != len)
		rc = sbx_error_set(SBX_EINVAL,
				   "%zu bytes left over after the last element "
				   "(key is %zu bytes, design '%s' read %zu)",
				   len - pos, len, d->name, pos);
	if (!rc)
		rc = verify(d, key, len, r, elem_pos, elem_len);
	sbx_buf_free(&val);
	free(elem_pos);
	free(elem_len);
	if (rc) {
		sbx_keyrecord_free(r);
		return rc;
	}
	*out = r;
	return SBX_OK;
}
