/*
 * workload.c - parsing workload files and traces for the hotspot analyzer.
 * A workload is line-oriented: `directive args...`, `#` comments; every
 * error names its line. The grammar is documented in docs/hotspots.md §2.
 * Parsing only validates and records; generation lives in generate.c.
 */
#include "keyviz_int.h"

#include "common/alloc.h"
#include "common/buf.h"
#include "common/bytes.h"
#include "common/error.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { MAX_TOKENS = 64, MAX_FIELDS = 64, MAX_OPS = 1000000000 };

typedef struct tok {
	char *s; /* NUL-terminated, quotes removed, escapes kept */
	bool quoted;
} tok;

typedef struct parser {
	sbx_workload *w;
	int line;
	bool has_ops, has_duration, has_rate, has_mix;
	double duration_s;
	int mix_line, scan_line;
} parser;

static int perr(parser *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int perr(parser *p, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return sbx_error_set(SBX_EPARSE, "line %d: %s", p->line, msg);
}

static char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = sbx_malloc(n);
	if (d)
		memcpy(d, s, n);
	return d;
}

/* Split a line into tokens in place; `#` outside quotes ends the line. */
static int tokenize(parser *p, char *s, tok *t, int *n)
{
	*n = 0;
	for (;;) {
		while (*s == ' ' || *s == '\t' || *s == '\r')
			s++;
		if (!*s || *s == '#')
			return SBX_OK;
		if (*n == MAX_TOKENS)
			return perr(p, "too many words (at most %d)", MAX_TOKENS);
		tok *k = &t[(*n)++];
		k->quoted = false;
		k->s = s;
		char *o = s;
		while (*s && *s != ' ' && *s != '\t' && *s != '\r') {
			if (*s == '\'' || *s == '"') {
				char q = *s++;
				k->quoted = true;
				while (*s && *s != q) {
					if (*s == '\\' && s[1] == q)
						s++;
					*o++ = *s++;
				}
				if (!*s)
					return perr(p, "unterminated quote %c", q);
				s++;
				continue;
			}
			*o++ = *s++;
		}
		bool end = !*s;
		*o = 0;
		if (end)
			return SBX_OK;
		s++;
		if (o >= s) /* never: o trails s */
			return perr(p, "internal tokenizer error");
	}
}

static int parse_u64(parser *p, const char *what, const char *s, uint64_t *out)
{
	char *end;
	errno = 0;
	if (!isdigit((unsigned char)*s))
		return perr(p, "%s: expected a whole number, found '%s'", what, s);
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || *end)
		return perr(p, "%s: expected a whole number, found '%s'", what, s);
	*out = v;
	return SBX_OK;
}

static int parse_i64(parser *p, const char *what, const char *s, int64_t *out)
{
	char *end;
	errno = 0;
	if (!*s)
		return perr(p, "%s: empty number", what);
	long long v = strtoll(s, &end, 10);
	if (errno || *end)
		return perr(p, "%s: expected an integer, found '%s'", what, s);
	*out = v;
	return SBX_OK;
}

static int parse_double(parser *p, const char *what, const char *s,
			double *out)
{
	char *end;
	errno = 0;
	if (!*s)
		return perr(p, "%s: empty number", what);
	double v = strtod(s, &end);
	if (errno || *end || !isfinite(v) || v < 0)
		return perr(p, "%s: expected a number >= 0, found '%s'", what, s);
	*out = v;
	return SBX_OK;
}

/* 64MB, 64MiB, 10k, 1G, 4096 (bytes). */
static int parse_size(parser *p, const char *what, const char *s,
		      uint64_t *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || v < 0 || !isfinite(v))
		return perr(p, "%s: expected a size like 64MB, found '%s'",
			    what, s);
	double mul = 1;
	char u = (char)toupper((unsigned char)*end);
	if (u == 'K')
		mul = 1024.0;
	else if (u == 'M')
		mul = 1024.0 * 1024;
	else if (u == 'G')
		mul = 1024.0 * 1024 * 1024;
	else if (u == 'T')
		mul = 1024.0 * 1024 * 1024 * 1024;
	else if (u == 'B' || !u)
		mul = 1;
	else
		return perr(p, "%s: unknown size unit in '%s' (B, KB, MB, GB, "
			       "TB)", what, s);
	if (u && u != 'B') {
		end++;
		if (*end == 'i' || *end == 'I')
			end++;
		if (*end == 'B' || *end == 'b')
			end++;
	} else if (u == 'B') {
		end++;
	}
	if (*end)
		return perr(p, "%s: unknown size unit in '%s' (B, KB, MB, GB, "
			       "TB)", what, s);
	double b = v * mul;
	if (b >= 1.8e19)
		return perr(p, "%s: size '%s' too large", what, s);
	*out = (uint64_t)b;
	return SBX_OK;
}

/* 10m, 30s, 1h, 500ms, 2d -> seconds. */
static int parse_duration(parser *p, const char *s, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || v < 0 || !isfinite(v))
		return perr(p, "duration: expected e.g. 10m or 30s, found '%s'",
			    s);
	double mul;
	if (!strcmp(end, "ms"))
		mul = 0.001;
	else if (!strcmp(end, "s") || !*end)
		mul = 1;
	else if (!strcmp(end, "m"))
		mul = 60;
	else if (!strcmp(end, "h"))
		mul = 3600;
	else if (!strcmp(end, "d"))
		mul = 86400;
	else
		return perr(p, "duration: unknown unit in '%s' (ms, s, m, h, d)",
			    s);
	*out = v * mul;
	return SBX_OK;
}

/* 2000/s, 120/m, 10/h, 2000 -> per second. */
static int parse_rate(parser *p, const char *s, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || !(v > 0) || !isfinite(v))
		return perr(p, "rate: expected e.g. 2000/s, found '%s'", s);
	double div = 1;
	if (!strcmp(end, "/s") || !*end)
		div = 1;
	else if (!strcmp(end, "/m"))
		div = 60;
	else if (!strcmp(end, "/h"))
		div = 3600;
	else
		return perr(p, "rate: unknown unit in '%s' (/s, /m, /h)", s);
	*out = v / div;
	return SBX_OK;
}

/* Epoch ms, or ISO 8601 UTC: 2023-06-11T06:30:31Z (or a date alone). */
static int parse_start(parser *p, const char *s, int64_t *out)
{
	if (isdigit((unsigned char)*s) && !strchr(s, '-'))
		return parse_i64(p, "start", s, out);
	struct tm tm;
	memset(&tm, 0, sizeof tm);
	int n = 0;
	int got = sscanf(s, "%4d-%2d-%2d%n", &tm.tm_year, &tm.tm_mon,
			 &tm.tm_mday, &n);
	if (got != 3)
		return perr(p, "start: expected epoch ms or "
			       "YYYY-MM-DDTHH:MM:SSZ, found '%s'", s);
	const char *r = s + n;
	if (*r == 'T' || *r == ' ') {
		int m = 0;
		if (sscanf(r + 1, "%2d:%2d:%2d%n", &tm.tm_hour, &tm.tm_min,
			   &tm.tm_sec, &m) != 3)
			return perr(p, "start: bad time in '%s'", s);
		r += 1 + m;
	}
	if (*r == 'Z')
		r++;
	if (*r || tm.tm_mon < 1 || tm.tm_mon > 12 || tm.tm_mday < 1 ||
	    tm.tm_mday > 31 || tm.tm_hour > 23 || tm.tm_min > 59 ||
	    tm.tm_sec > 60 || tm.tm_year < 1970 || tm.tm_year > 9999)
		return perr(p, "start: bad date/time '%s'", s);
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	*out = (int64_t)timegm(&tm) * 1000;
	return SBX_OK;
}

static bool valid_name(const char *s)
{
	if (!isalpha((unsigned char)*s) && *s != '_')
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_' && *s != '-')
			return false;
	return true;
}

/* Split "k=v" tokens; returns the value or NULL when the key differs. */
static const char *kv_arg(const tok *t, const char *key)
{
	size_t n = strlen(key);
	if (!strncmp(t->s, key, n) && t->s[n] == '=')
		return t->s + n + 1;
	return NULL;
}

static int split_list(parser *p, const char *what, const char *s,
		      char ***out, size_t *n)
{
	*out = NULL;
	*n = 0;
	if (!*s)
		return perr(p, "%s: empty list", what);
	size_t cap = 1;
	for (const char *c = s; *c; c++)
		cap += *c == ',';
	char **v = calloc(cap, sizeof *v);
	if (!v)
		return SBX_ENOMEM_SET();
	const char *a = s;
	for (;;) {
		const char *c = strchr(a, ',');
		size_t len = c ? (size_t)(c - a) : strlen(a);
		v[*n] = malloc(len + 1);
		if (!v[*n]) {
			*out = v;
			return SBX_ENOMEM_SET();
		}
		memcpy(v[*n], a, len);
		v[*n][len] = 0;
		(*n)++;
		if (!c)
			break;
		a = c + 1;
	}
	*out = v;
	return SBX_OK;
}

static void free_list(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static const char *const GEN_NAMES[] = {
	"sequence", "time", "uniform", "zipfian", "latest", "set", "const",
	"random",
};
#define GEN_LIST "sequence, time, uniform, zipfian, latest, set, const, random"

static int field_arg(parser *p, kv_field *f, const tok *t)
{
	const char *v;
	int rc;
	char *eq = strchr(t->s, '=');
	if (!eq)
		return perr(p, "field '%s': expected key=value, found '%s'",
			    f->name, t->s);
	char key[32];
	size_t kl = (size_t)(eq - t->s);
	if (kl >= sizeof key)
		kl = sizeof key - 1;
	memcpy(key, t->s, kl);
	key[kl] = 0;
	v = eq + 1;
	bool num = f->kind == GEN_SEQUENCE || f->kind == GEN_UNIFORM ||
		   f->kind == GEN_ZIPFIAN || f->kind == GEN_LATEST;
	if (f->kind == GEN_SEQUENCE && !strcmp(key, "start"))
		return parse_i64(p, "start", v, &f->start);
	if (f->kind == GEN_SEQUENCE && !strcmp(key, "step"))
		return parse_i64(p, "step", v, &f->step);
	if ((f->kind == GEN_UNIFORM || f->kind == GEN_ZIPFIAN ||
	     f->kind == GEN_LATEST) && !strcmp(key, "min"))
		return parse_i64(p, "min", v, &f->min);
	if ((f->kind == GEN_UNIFORM || f->kind == GEN_ZIPFIAN ||
	     f->kind == GEN_LATEST) && !strcmp(key, "max"))
		return parse_i64(p, "max", v, &f->max);
	if ((f->kind == GEN_UNIFORM || f->kind == GEN_ZIPFIAN ||
	     f->kind == GEN_LATEST) && !strcmp(key, "n")) {
		uint64_t n;
		if ((rc = parse_u64(p, "n", v, &n)))
			return rc;
		if (n == 0 || n > (uint64_t)INT64_MAX / 2)
			return perr(p, "field '%s': n must be 1..2^62", f->name);
		f->max = f->min + (int64_t)n - 1;
		return SBX_OK;
	}
	if ((f->kind == GEN_ZIPFIAN || f->kind == GEN_LATEST) &&
	    !strcmp(key, "theta")) {
		if ((rc = parse_double(p, "theta", v, &f->theta)))
			return rc;
		if (!(f->theta > 0 && f->theta < 1))
			return perr(p, "field '%s': theta must be in (0, 1)",
				    f->name);
		return SBX_OK;
	}
	if (f->kind == GEN_ZIPFIAN && !strcmp(key, "scramble")) {
		if (strcmp(v, "yes") && strcmp(v, "no"))
			return perr(p, "scramble: yes or no, not '%s'", v);
		f->scramble = !strcmp(v, "yes");
		return SBX_OK;
	}
	if (num && !strcmp(key, "prefix")) {
		free(f->prefix);
		f->prefix = xstrdup(v);
		return f->prefix ? SBX_OK : SBX_ENOMEM_SET();
	}
	if (num && !strcmp(key, "pad")) {
		uint64_t pad;
		if ((rc = parse_u64(p, "pad", v, &pad)))
			return rc;
		if (pad > 40)
			return perr(p, "pad: at most 40 digits");
		f->pad = (int)pad;
		return SBX_OK;
	}
	if (f->kind == GEN_TIME && !strcmp(key, "format")) {
		if (strcmp(v, "ms") && strcmp(v, "s") && strcmp(v, "us") &&
		    !strchr(v, '%'))
			return perr(p, "format: ms, s, us or a strftime pattern "
				       "with %%, not '%s'", v);
		if (strlen(v) > 64)
			return perr(p, "format: pattern too long");
		free(f->format);
		f->format = xstrdup(v);
		return f->format ? SBX_OK : SBX_ENOMEM_SET();
	}
	if ((f->kind == GEN_SET || f->kind == GEN_CONST) &&
	    (!strcmp(key, "values") || !strcmp(key, "value"))) {
		if (f->values)
			return perr(p, "field '%s': values given twice", f->name);
		if (f->kind == GEN_CONST) {
			f->values = calloc(1, sizeof *f->values);
			if (!f->values || !(f->values[0] = xstrdup(v)))
				return SBX_ENOMEM_SET();
			f->nvalues = 1;
			return SBX_OK;
		}
		return split_list(p, "values", v, &f->values, &f->nvalues);
	}
	if (f->kind == GEN_SET && !strcmp(key, "weights")) {
		char **ws;
		size_t nw;
		if ((rc = split_list(p, "weights", v, &ws, &nw)))
			return rc;
		free(f->cum_weights);
		f->cum_weights = calloc(nw, sizeof(double));
		if (!f->cum_weights) {
			free_list(ws, nw);
			return SBX_ENOMEM_SET();
		}
		double sum = 0;
		for (size_t i = 0; i < nw && !rc; i++) {
			double x = 0;
			rc = parse_double(p, "weights", ws[i], &x);
			sum += x;
			f->cum_weights[i] = sum;
		}
		free_list(ws, nw);
		if (rc)
			return rc;
		if (!(sum > 0))
			return perr(p, "weights: the sum must be > 0");
		/* the count is checked against values at the end */
		f->bytes = (int)nw;
		return SBX_OK;
	}
	if (f->kind == GEN_RANDOM && !strcmp(key, "bytes")) {
		uint64_t b;
		if ((rc = parse_u64(p, "bytes", v, &b)))
			return rc;
		if (b < 1 || b > 64)
			return perr(p, "bytes: 1..64");
		f->bytes = (int)b;
		return SBX_OK;
	}
	return perr(p, "field '%s': unknown option '%s' for a %s generator",
		    f->name, key, GEN_NAMES[f->kind]);
}

static int finish_field(parser *p, kv_field *f)
{
	switch (f->kind) {
	case GEN_UNIFORM:
	case GEN_ZIPFIAN:
	case GEN_LATEST:
		if (f->max < f->min)
			return perr(p, "field '%s': max (%lld) below min (%lld)",
				    f->name, (long long)f->max,
				    (long long)f->min);
		if ((uint64_t)(f->max - f->min) >= (uint64_t)INT64_MAX / 2)
			return perr(p, "field '%s': range too large", f->name);
		if (f->kind == GEN_ZIPFIAN)
			f->zeta_n = kv_zeta((uint64_t)(f->max - f->min) + 1,
					    f->theta);
		break;
	case GEN_SET:
		if (!f->values)
			return perr(p, "field '%s': a set needs values=a,b,...",
				    f->name);
		if (f->cum_weights && (size_t)f->bytes != f->nvalues)
			return perr(p, "field '%s': %d weights for %zu values",
				    f->name, f->bytes, f->nvalues);
		break;
	case GEN_CONST:
		if (!f->values)
			return perr(p, "field '%s': const needs value=...",
				    f->name);
		break;
	default:
		break;
	}
	return SBX_OK;
}

static int dir_field(parser *p, tok *t, int n)
{
	sbx_workload *w = p->w;
	if (n < 3)
		return perr(p, "field: expected 'field NAME GENERATOR "
			       "[key=value ...]'");
	if (!valid_name(t[1].s))
		return perr(p, "field: bad name '%s'", t[1].s);
	for (size_t i = 0; i < w->nfields; i++)
		if (!strcmp(w->fields[i].name, t[1].s))
			return perr(p, "field '%s' defined twice (first on line "
				       "%d)", t[1].s, w->fields[i].line);
	if (w->nfields == MAX_FIELDS)
		return perr(p, "too many fields (at most %d)", MAX_FIELDS);
	int kind = -1;
	for (int i = 0; i < (int)(sizeof GEN_NAMES / sizeof *GEN_NAMES); i++)
		if (!strcmp(t[2].s, GEN_NAMES[i]))
			kind = i;
	if (kind < 0)
		return perr(p, "field '%s': unknown generator '%s' (%s)",
			    t[1].s, t[2].s, GEN_LIST);
	kv_field *f = &w->fields[w->nfields];
	memset(f, 0, sizeof *f);
	f->name = xstrdup(t[1].s);
	if (!f->name)
		return SBX_ENOMEM_SET();
	w->nfields++;
	f->kind = (kv_gen_kind)kind;
	f->line = p->line;
	f->step = 1;
	f->min = 1;
	f->max = 1000000;
	f->theta = 0.99;
	f->scramble = true;
	f->bytes = kind == GEN_RANDOM ? 8 : 0;
	for (int i = 3; i < n; i++) {
		int rc = field_arg(p, f, &t[i]);
		if (rc)
			return rc;
	}
	return finish_field(p, f);
}

static int dir_mix(parser *p, tok *t, int n)
{
	sbx_workload *w = p->w;
	if (n < 2)
		return perr(p, "mix: expected e.g. 'mix put=90 get=10 scan=0'");
	w->w_put = w->w_get = w->w_scan = 0;
	for (int i = 1; i < n; i++) {
		const char *v;
		double *dst;
		if ((v = kv_arg(&t[i], "put")))
			dst = &w->w_put;
		else if ((v = kv_arg(&t[i], "get")))
			dst = &w->w_get;
		else if ((v = kv_arg(&t[i], "scan")))
			dst = &w->w_scan;
		else
			return perr(p, "mix: expected put=, get= or scan=, found "
				       "'%s'", t[i].s);
		int rc = parse_double(p, "mix", v, dst);
		if (rc)
			return rc;
	}
	if (!(w->w_put + w->w_get + w->w_scan > 0))
		return perr(p, "mix: the weights add up to 0");
	p->has_mix = true;
	p->mix_line = p->line;
	return SBX_OK;
}

static int dir_policy(parser *p, const char *s)
{
	sbx_workload *w = p->w;
	sbx_split_policy *pol = &w->policy;
	const char *colon = strchr(s, ':');
	size_t kl = colon ? (size_t)(colon - s) : strlen(s);
	w->has_policy = true;
	if (!strncmp(s, "stepping", kl) && kl == 8)
		pol->kind = SBX_SPLIT_STEPPING;
	else if (!strncmp(s, "constant", kl) && kl == 8)
		pol->kind = SBX_SPLIT_CONSTANT_SIZE;
	else if (!strncmp(s, "increasing", kl) && kl == 10)
		pol->kind = SBX_SPLIT_INCREASING_TO_UPPER_BOUND;
	else if (!strncmp(s, "disabled", kl) && kl == 8)
		pol->kind = SBX_SPLIT_DISABLED;
	else if (!strncmp(s, "keyprefix", kl) && kl == 9) {
		uint64_t n;
		if (!colon)
			return perr(p, "split_policy keyprefix:N needs a length");
		int rc = parse_u64(p, "keyprefix", colon + 1, &n);
		if (rc)
			return rc;
		if (n < 1 || n > 4096)
			return perr(p, "keyprefix: length 1..4096");
		pol->kind = SBX_SPLIT_KEY_PREFIX;
		pol->prefix_length = (size_t)n;
		return SBX_OK;
	} else if (!strncmp(s, "delimited", kl) && kl == 9) {
		if (!colon || strlen(colon + 1) != 1)
			return perr(p, "split_policy delimited:C needs one "
				       "delimiter character");
		pol->kind = SBX_SPLIT_DELIMITED_KEY_PREFIX;
		pol->delimiter = colon[1];
		return SBX_OK;
	} else
		return perr(p, "split_policy: unknown '%s' (stepping, constant, "
			       "increasing, keyprefix:N, delimited:C, "
			       "disabled)", s);
	if (colon)
		return perr(p, "split_policy '%.*s' takes no argument", (int)kl,
			    s);
	return SBX_OK;
}

static int key_cmp(const sbx_bytes *a, const sbx_bytes *b)
{
	return sbx_bytes_cmp(a->data, a->len, b->data, b->len);
}

static int dir_presplit(parser *p, tok *t, int n)
{
	sbx_workload *w = p->w;
	if (n < 2)
		return perr(p, "presplit: none, salt, hex N, decimal N, "
			       "uniform N or keys K1 K2 ...");
	if (w->split_keys) {
		for (size_t i = 0; i < w->nsplit_keys; i++)
			free((void *)w->split_keys[i].data);
		free(w->split_keys);
		w->split_keys = NULL;
		w->nsplit_keys = 0;
	}
	const char *k = t[1].s;
	if (!strcmp(k, "none") || !strcmp(k, "salt")) {
		if (n != 2)
			return perr(p, "presplit %s takes no argument", k);
		w->presplit = *k == 'n' ? SBX_PRESPLIT_NONE : SBX_PRESPLIT_SALT;
		return SBX_OK;
	}
	if (!strcmp(k, "hex") || !strcmp(k, "decimal") ||
	    !strcmp(k, "uniform")) {
		uint64_t r;
		if (n != 3)
			return perr(p, "presplit %s N: one region count", k);
		int rc = parse_u64(p, "presplit", t[2].s, &r);
		if (rc)
			return rc;
		if (r < 2 || r > 10000)
			return perr(p, "presplit: 2..10000 regions");
		w->presplit = SBX_PRESPLIT_ALGO;
		w->algo = *k == 'h' ? SBX_SPLITALGO_HEX_STRING
				    : *k == 'd' ? SBX_SPLITALGO_DECIMAL_STRING
						: SBX_SPLITALGO_UNIFORM;
		w->presplit_regions = (int)r;
		return SBX_OK;
	}
	if (strcmp(k, "keys"))
		return perr(p, "presplit: unknown '%s' (none, salt, hex, "
			       "decimal, uniform, keys)", k);
	if (n < 3)
		return perr(p, "presplit keys: at least one key");
	w->split_keys = calloc((size_t)n, sizeof *w->split_keys);
	if (!w->split_keys)
		return SBX_ENOMEM_SET();
	for (int i = 2; i < n; i++) {
		sbx_buf b = {0};
		int rc = sbx_key_from_binary_string(&b, t[i].s, strlen(t[i].s));
		if (rc || b.len == 0) {
			sbx_buf_free(&b);
			return perr(p, "presplit keys: bad key '%s' (use \\xHH "
				       "escapes; keys are not empty)", t[i].s);
		}
		w->split_keys[w->nsplit_keys].data = b.data;
		w->split_keys[w->nsplit_keys].len = b.len;
		w->nsplit_keys++;
		if (w->nsplit_keys > 1 &&
		    key_cmp(&w->split_keys[w->nsplit_keys - 2],
			    &w->split_keys[w->nsplit_keys - 1]) >= 0)
			return perr(p, "presplit keys: '%s' is not above the key "
				       "before it (keys must be sorted and "
				       "distinct)", t[i].s);
	}
	w->presplit = SBX_PRESPLIT_KEYS;
	return SBX_OK;
}

static int dir_scan(parser *p, tok *t, int n)
{
	sbx_workload *w = p->w;
	if (w->scan_fields)
		return perr(p, "scan given twice");
	w->scan_fields = calloc((size_t)n, sizeof *w->scan_fields);
	if (!w->scan_fields)
		return SBX_ENOMEM_SET();
	for (int i = 1; i < n; i++) {
		const char *v = kv_arg(&t[i], "rows");
		if (v) {
			uint64_t r;
			int rc = parse_u64(p, "rows", v, &r);
			if (rc)
				return rc;
			if (r < 1 || r > 1000000)
				return perr(p, "scan rows: 1..1000000");
			w->scan_rows = (uint32_t)r;
			continue;
		}
		if (!valid_name(t[i].s))
			return perr(p, "scan: expected field names and rows=N, "
				       "found '%s'", t[i].s);
		if (!(w->scan_fields[w->nscan_fields++] = xstrdup(t[i].s)))
			return SBX_ENOMEM_SET();
	}
	p->scan_line = p->line;
	return SBX_OK;
}

static int one_arg(parser *p, int n, const char *d)
{
	if (n != 2)
		return perr(p, "%s takes exactly one value", d);
	return SBX_OK;
}

static int directive(parser *p, tok *t, int n)
{
	sbx_workload *w = p->w;
	const char *d = t[0].s;
	int rc;
	if (!strcmp(d, "field"))
		return dir_field(p, t, n);
	if (!strcmp(d, "mix"))
		return dir_mix(p, t, n);
	if (!strcmp(d, "presplit"))
		return dir_presplit(p, t, n);
	if (!strcmp(d, "scan"))
		return dir_scan(p, t, n);
	if (!strcmp(d, "name")) {
		if (n < 2)
			return perr(p, "name: expected a label");
		free(w->name);
		size_t len = 0;
		for (int i = 1; i < n; i++)
			len += strlen(t[i].s) + 1;
		if (!(w->name = malloc(len)))
			return SBX_ENOMEM_SET();
		w->name[0] = 0;
		for (int i = 1; i < n; i++) {
			if (i > 1)
				strcat(w->name, " ");
			strcat(w->name, t[i].s);
		}
		return SBX_OK;
	}
	static const char *const single[] = {
		"ops", "rate", "duration", "start", "seed", "value", "preload",
		"read", "servers", "region_size", "flush_size", "split_policy",
	};
	bool known = false;
	for (size_t i = 0; i < sizeof single / sizeof *single; i++)
		known |= !strcmp(d, single[i]);
	if (!known)
		return perr(p, "unknown directive '%s' (name, ops, duration, "
			       "rate, start, seed, value, preload, mix, read, "
			       "scan, field, servers, region_size, "
			       "flush_size, split_policy, presplit)", d);
	if ((rc = one_arg(p, n, d)))
		return rc;
	const char *v = t[1].s;
	uint64_t u;
	if (!strcmp(d, "ops")) {
		if ((rc = parse_u64(p, "ops", v, &w->ops)))
			return rc;
		if (w->ops < 1 || w->ops > MAX_OPS)
			return perr(p, "ops: 1..%d", MAX_OPS);
		p->has_ops = true;
	} else if (!strcmp(d, "duration")) {
		if ((rc = parse_duration(p, v, &p->duration_s)))
			return rc;
		p->has_duration = true;
	} else if (!strcmp(d, "rate")) {
		if ((rc = parse_rate(p, v, &w->rate)))
			return rc;
		p->has_rate = true;
	} else if (!strcmp(d, "start")) {
		return parse_start(p, v, &w->start_ms);
	} else if (!strcmp(d, "seed")) {
		return parse_u64(p, "seed", v, &w->seed);
	} else if (!strcmp(d, "value")) {
		if ((rc = parse_size(p, "value", v, &u)))
			return rc;
		if (u > (64u << 20))
			return perr(p, "value: at most 64MB");
		w->value_bytes = (uint32_t)u;
	} else if (!strcmp(d, "preload")) {
		if ((rc = parse_u64(p, "preload", v, &w->preload)))
			return rc;
		if (w->preload > MAX_OPS)
			return perr(p, "preload: at most %d", MAX_OPS);
	} else if (!strcmp(d, "read")) {
		if (!strcmp(v, "uniform"))
			w->read = READ_UNIFORM;
		else if (!strcmp(v, "zipfian"))
			w->read = READ_ZIPFIAN;
		else if (!strcmp(v, "latest"))
			w->read = READ_LATEST;
		else
			return perr(p, "read: uniform, zipfian or latest, not "
				       "'%s'", v);
	} else if (!strcmp(d, "servers")) {
		if ((rc = parse_u64(p, "servers", v, &u)))
			return rc;
		if (u < 1 || u > 1024)
			return perr(p, "servers: 1..1024");
		w->servers = (int)u;
	} else if (!strcmp(d, "region_size") || !strcmp(d, "flush_size")) {
		if ((rc = parse_size(p, d, v, &u)))
			return rc;
		if (u < 1024)
			return perr(p, "%s: at least 1KB", d);
		if (*d == 'r')
			w->region_size = u;
		else
			w->flush_size = u;
	} else if (!strcmp(d, "split_policy")) {
		return dir_policy(p, v);
	}
	return SBX_OK;
}

static sbx_workload *workload_new(void)
{
	sbx_workload *w = calloc(1, sizeof *w);
	if (!w)
		return NULL;
	w->fields = calloc(MAX_FIELDS, sizeof *w->fields);
	w->name = xstrdup("");
	if (!w->fields || !w->name) {
		sbx_workload_free(w);
		return NULL;
	}
	w->rate = 1000;
	w->start_ms = INT64_C(1686441600000); /* 2023-06-11T00:00:00Z */
	w->seed = 1;
	w->value_bytes = 100;
	w->w_put = 1;
	w->scan_rows = 20;
	sbx_split_policy_init(&w->policy);
	return w;
}

static int finish(parser *p)
{
	sbx_workload *w = p->w;
	if (p->has_ops && p->has_duration)
		return perr(p, "give ops or duration, not both");
	if (p->has_duration) {
		double ops = p->duration_s * w->rate;
		if (ops < 1 || ops > MAX_OPS)
			return perr(p, "duration x rate gives %.0f operations "
				       "(1..%d)", ops, MAX_OPS);
		w->ops = (uint64_t)ops;
	} else if (!p->has_ops) {
		return perr(p, "no 'ops N' or 'duration D' line: how long does "
			       "the workload run?");
	}
	if (!w->nfields)
		return perr(p, "no 'field' lines: a workload generates records "
			       "of fields");
	if (w->w_put == 0 && w->preload == 0) {
		p->line = p->mix_line;
		return perr(p, "mix: gets and scans read existing records, but "
			       "there are no puts and no preload");
	}
	if (w->w_scan > 0 && !w->scan_fields) {
		p->line = p->mix_line;
		return perr(p, "mix has scans but no 'scan FIELD ...' line says "
			       "which fields a scan holds equal");
	}
	for (size_t i = 0; i < w->nscan_fields; i++) {
		bool found = false;
		for (size_t j = 0; j < w->nfields; j++)
			found |= !strcmp(w->scan_fields[i], w->fields[j].name);
		if (!found) {
			p->line = p->scan_line;
			return perr(p, "scan: no field '%s'", w->scan_fields[i]);
		}
	}
	return SBX_OK;
}

int sbx_workload_parse(sbx_workload **out, const char *text, size_t len,
		       int *line)
{
	*out = NULL;
	if (line)
		*line = 0;
	sbx_workload *w = workload_new();
	if (!w)
		return SBX_ENOMEM_SET();
	parser p = {.w = w};
	tok t[MAX_TOKENS];
	int rc = SBX_OK;
	size_t pos = 0;
	char *buf = NULL;
	while (pos < len && !rc) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t ll = nl ? (size_t)(nl - (text + pos)) : len - pos;
		p.line++;
		char *nb = realloc(buf, ll + 1);
		if (!nb) {
			rc = SBX_ENOMEM_SET();
			break;
		}
		buf = nb;
		memcpy(buf, text + pos, ll);
		buf[ll] = 0;
		pos += ll + 1;
		if (memchr(buf, 0, ll)) {
			rc = perr(&p, "NUL byte in the workload");
			break;
		}
		int n;
		if ((rc = tokenize(&p, buf, t, &n)) || n == 0)
			continue;
		rc = directive(&p, t, n);
	}
	free(buf);
	if (!rc) {
		p.line++; /* errors about the whole file point past its end */
		rc = finish(&p);
	}
	if (rc) {
		if (line)
			*line = p.line;
		sbx_workload_free(w);
		return rc;
	}
	*out = w;
	return SBX_OK;
}

/* Append a trace key (hex or as HBase prints it) to the arena. */
static int trace_key(parser *p, sbx_workload *w, const char *s, size_t ll,
		     bool hex)
{
	int rc = SBX_OK;
	if (!hex)
		return sbx_buf_append(&w->arena, s, ll);
	if (ll % 2)
		return perr(p, "odd number of hex digits");
	for (size_t i = 0; i < ll && !rc; i += 2) {
		char h[3] = {s[i], s[i + 1], 0};
		char *e;
		if (!isxdigit((unsigned char)h[0]) ||
		    !isxdigit((unsigned char)h[1]))
			rc = perr(p, "bad hex digit in '%.2s'", h);
		else
			rc = sbx_buf_push(&w->arena, (uint8_t)strtoul(h, &e, 16));
	}
	return rc;
}

/* A `region`, `split` or `merge` line: a region boundary of the store's
 * real layout (sbx_db_trace writes them), before operation w->ops. */
static int trace_bound(parser *p, sbx_workload *w, const char *s, size_t ll,
		       bool hex, bool merge)
{
	if (ll == 0)
		return perr(p, "a region boundary needs a key");
	if (memchr(s, 0, ll))
		return perr(p, "NUL byte in the trace (write bytes as \\x00)");
	kv_trace_bound *nb = realloc(w->bounds, (w->nbounds + 1) * sizeof *nb);
	if (!nb)
		return SBX_ENOMEM_SET();
	w->bounds = nb;
	kv_trace_bound *b = &w->bounds[w->nbounds];
	b->at = w->ops;
	b->merge = merge;
	b->off = w->arena.len;
	int rc;
	if (hex) {
		rc = trace_key(p, w, s, ll, hex);
	} else { /* decoded now: operations' keys are when replayed */
		sbx_buf k = {0};
		rc = sbx_key_from_binary_string(&k, s, ll);
		if (rc)
			rc = perr(p, "bad key '%.*s' (write bytes as \\xHH)",
				  (int)(ll > 40 ? 40 : ll), s);
		else
			rc = sbx_buf_append(&w->arena, k.data, k.len);
		sbx_buf_free(&k);
	}
	if (rc)
		return rc;
	b->len = w->arena.len - b->off;
	if (b->len > SBX_MAX_ROW_LENGTH)
		return perr(p, "key longer than %d bytes", SBX_MAX_ROW_LENGTH);
	w->nbounds++;
	return SBX_OK;
}

int sbx_trace_parse(sbx_workload **out, const char *text, size_t len,
		    bool hex, double rate_per_s, int *line)
{
	*out = NULL;
	if (line)
		*line = 0;
	sbx_workload *w = workload_new();
	if (!w)
		return SBX_ENOMEM_SET();
	w->is_trace = true;
	w->trace_hex = hex;
	if (rate_per_s > 0)
		w->rate = rate_per_s;
	parser p = {.w = w};
	size_t cap = 0, pos = 0;
	int rc = SBX_OK;
	while (pos < len && !rc) {
		const char *s = text + pos;
		const char *nl = memchr(s, '\n', len - pos);
		size_t ll = nl ? (size_t)(nl - s) : len - pos;
		pos += ll + 1;
		p.line++;
		if (ll && s[ll - 1] == '\r')
			ll--;
		if (ll == 0 || s[0] == '#')
			continue;
		sbx_op_kind kind = SBX_OP_PUT;
		int layout = 0; /* 1: a boundary appears, 2: one goes */
		const char *tab = memchr(s, '\t', ll);
		if (tab) {
			size_t ol = (size_t)(tab - s);
			if ((ol == 6 && !memcmp(s, "region", 6)) ||
			    (ol == 5 && !memcmp(s, "split", 5)))
				layout = 1;
			else if (ol == 5 && !memcmp(s, "merge", 5))
				layout = 2;
			else if (ol == 3 && !memcmp(s, "put", 3))
				kind = SBX_OP_PUT;
			else if (ol == 3 && !memcmp(s, "get", 3))
				kind = SBX_OP_GET;
			else if (ol == 4 && !memcmp(s, "scan", 4))
				kind = SBX_OP_SCAN;
			else {
				rc = perr(&p, "unknown operation '%.*s' before the "
					      "tab (put, get, scan, region, "
					      "split, merge)",
					  (int)(ol > 20 ? 20 : ol), s);
				break;
			}
			ll -= ol + 1;
			s = tab + 1;
		}
		if (ll == 0) {
			rc = perr(&p, "empty key");
			break;
		}
		if (memchr(s, 0, ll)) {
			rc = perr(&p, "NUL byte in the trace (write bytes as "
				      "\\x00)");
			break;
		}
		if (layout) {
			rc = trace_bound(&p, w, s, ll, hex, layout == 2);
			if (rc)
				break;
			continue;
		}
		if (w->ops == cap) {
			cap = cap ? cap * 2 : 1024;
			kv_trace_op *nt = realloc(w->trace, cap * sizeof *nt);
			if (!nt) {
				rc = SBX_ENOMEM_SET();
				break;
			}
			w->trace = nt;
		}
		kv_trace_op *op = &w->trace[w->ops];
		op->kind = kind;
		op->line = p.line;
		op->off = w->arena.len;
		rc = trace_key(&p, w, s, ll, hex);
		if (rc)
			break;
		op->len = w->arena.len - op->off;
		if (op->len > SBX_MAX_ROW_LENGTH) {
			rc = perr(&p, "key longer than %d bytes",
				  SBX_MAX_ROW_LENGTH);
			break;
		}
		w->ops++;
	}
	if (!rc && w->ops == 0) {
		p.line++;
		rc = perr(&p, "the trace holds no keys");
	}
	if (rc) {
		if (line)
			*line = p.line;
		sbx_workload_free(w);
		return rc;
	}
	*out = w;
	return SBX_OK;
}

void sbx_workload_free(sbx_workload *w)
{
	if (!w)
		return;
	free(w->name);
	for (size_t i = 0; i < w->nfields; i++) {
		kv_field *f = &w->fields[i];
		free(f->name);
		free(f->prefix);
		free(f->format);
		free_list(f->values, f->nvalues);
		free(f->cum_weights);
	}
	free(w->fields);
	free_list(w->scan_fields, w->nscan_fields);
	for (size_t i = 0; i < w->nsplit_keys; i++)
		free((void *)w->split_keys[i].data);
	free(w->split_keys);
	free(w->trace);
	free(w->bounds);
	sbx_buf_free(&w->arena);
	free(w);
}

bool sbx_workload_needs_design(const sbx_workload *w)
{
	return !w->is_trace;
}

uint64_t sbx_workload_ops(const sbx_workload *w)
{
	return w->ops;
}

const char *sbx_workload_name(const sbx_workload *w)
{
	return w->name;
}

void sbx_workload_cluster_opts(const sbx_workload *w, sbx_keyviz_opts *o)
{
	if (w->servers)
		o->servers = w->servers;
	if (w->has_policy) {
		o->policy.kind = w->policy.kind;
		o->policy.prefix_length = w->policy.prefix_length;
		o->policy.delimiter = w->policy.delimiter;
	}
	if (w->region_size) {
		o->policy.max_file_size = w->region_size;
		o->policy.flush_size = w->region_size / 80;
	}
	if (w->flush_size)
		o->policy.flush_size = w->flush_size;
	if (w->is_trace && w->nbounds) {
		/* a trace with the store's real layout replays it, rather
		 * than modelling splits (options may still override) */
		o->presplit = SBX_PRESPLIT_TRACE;
		o->policy.kind = SBX_SPLIT_DISABLED;
	}
	if (w->presplit != SBX_PRESPLIT_NONE) {
		o->presplit = w->presplit;
		o->algo = w->algo;
		o->presplit_regions = w->presplit_regions;
		o->split_keys = w->split_keys;
		o->nsplit_keys = w->nsplit_keys;
	}
}
