/*
 * lint.c - checks a key design against the row-key rules of the seed
 * articles. Each rule has a stable id, a level and the seed and section it
 * comes from; a design silences a rule with `with allow(rule-id)`.
 */
#include "common/alloc.h"
#include "common/error.h"
#include "rowkey/design.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { IDEAL_KEY_BYTES = 16, MAX_FAMILY = 2, MAX_QUALIFIER = 8 };

typedef struct linter {
	const sbx_keydesign *d;
	sbx_keylint *report;
	size_t cap;
	int rc;
} linter;

static void report(linter *l, const char *id, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void report(linter *l, const char *id, const char *fmt, ...)
{
	if (l->rc || kd_option_has(&l->d->allow, id))
		return;
	const kd_lint_rule *r = kd_lint_rule_find(id);
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	sbx_keylint *rep = l->report;
	if (rep->count == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 8;
		sbx_lint_finding *f =
		    sbx_realloc(rep->findings, cap * sizeof *f);
		if (!f) {
			l->rc = SBX_ENOMEM_SET();
			return;
		}
		rep->findings = f;
		l->cap = cap;
	}
	char *m = sbx_strdup(msg);
	if (!m) {
		l->rc = SBX_ENOMEM_SET();
		return;
	}
	rep->findings[rep->count++] = (sbx_lint_finding){
		.rule = r->id, .level = r->level, .message = m, .cite = r->cite};
}

/* Does the name read like a time or a sequence? (ts, created_at) */
static bool name_looks_monotonic(const char *name)
{
	static const char *const words[] = {
		"ts",      "time",    "timestamp", "date",  "datetime", "seq",
		"sequence", "created", "updated",  "epoch", "millis"};
	char buf[80];
	snprintf(buf, sizeof buf, "%s", name);
	for (char *p = buf; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	char *save = NULL;
	for (char *w = strtok_r(buf, "_-", &save); w;
	     w = strtok_r(NULL, "_-", &save))
		for (size_t i = 0; i < sizeof words / sizeof *words; i++)
			if (!strcmp(w, words[i]))
				return true;
	return false;
}

static bool elem_monotonic(const kd_elem *e)
{
	if (e->random)
		return false;
	if (e->mono)
		return true;
	if (e->type == KT_TS64 || e->type == KT_RTS64 || e->type == KT_RTSDEC)
		return true;
	if (e->reversed)
		return false;
	return name_looks_monotonic(e->name);
}

static void rule_monotonic(linter *l)
{
	const sbx_keydesign *d = l->d;
	for (size_t i = 0; i < d->n_elems; i++) {
		const kd_elem *e = &d->elems[i];
		if (e->kind == KD_LITERAL)
			continue;
		/* a growing key's new rows sort last, a decreasing one's
		 * (reverse timestamps) first */
		bool down = e->type == KT_RTS64 || e->type == KT_RTSDEC;
		if (e->kind == KD_FIELD && elem_monotonic(e))
			report(l, "monotonic-leading-field",
			       "the key starts with '%s' (%s), which %s: every "
			       "new row lands in the %s region, a write "
			       "hotspot. Put a well-spread field before it "
			       "(e.g. user_id + %s), or a salt or hash prefix",
			       e->name, e->type_text,
			       down ? "only ever decreases" : "only ever grows",
			       down ? "first" : "last", e->name);
		return;
	}
}

/* Is field index f, or any field after element position `at`, an input of
 * element e (a salt with no of= reads the whole rest of the key)? */
static bool prefix_depends(const sbx_keydesign *d, const kd_elem *e,
			   size_t at)
{
	if (e->kind == KD_SALT && !e->n_of)
		return true;
	for (size_t k = 0; k < e->n_of; k++) {
		int el = d->fields[e->of_field[k]].elem;
		if (el < 0 || (size_t)el >= at)
			return true;
	}
	return false;
}

static void rule_scans(linter *l)
{
	const sbx_keydesign *d = l->d;
	for (size_t s = 0; s < d->scan.n; s++) {
		int f = kd_field_index(d, d->scan.items[s]);
		int at = d->fields[f].elem;
		if (at < 0) {
			report(l, "prefix-breaks-range-scan",
			       "scan(%s) but '%s' is only hashed, not stored: "
			       "no range over it is possible",
			       d->scan.items[s], d->scan.items[s]);
			continue;
		}
		for (int i = 0; i < at; i++) {
			const kd_elem *e = &d->elems[i];
			if ((e->kind == KD_SALT || e->kind == KD_HASH) &&
			    prefix_depends(d, e, (size_t)at)) {
				if (e->kind == KD_SALT)
					report(l, "prefix-breaks-range-scan",
					       "scan(%s): the salt before it "
					       "scatters a range over %d "
					       "buckets, so every range scan "
					       "becomes %d scans merged; salt "
					       "only on fields the scan fixes "
					       "(salt(%d, of=...)) or drop the "
					       "salt",
					       d->scan.items[s], e->buckets,
					       e->buckets, e->buckets);
				else
					report(l, "prefix-breaks-range-scan",
					       "scan(%s): %s comes before it and "
					       "hashes values the scan does not "
					       "fix, so a range over '%s' is a "
					       "full table scan",
					       d->scan.items[s], e->type_text,
					       d->scan.items[s]);
				break;
			}
		}
		const kd_elem *fe = &d->elems[at];
		if (kd_elem_order(fe) == SBX_ORDER_NONE)
			report(l, "unordered-scan-field",
			       "scan(%s) but %s keeps no value order (%s); "
			       "only equality lookups work on it",
			       d->scan.items[s], fe->type_text,
			       fe->reversed ? "reversed" : "text digits");
	}
}

static void rule_length(linter *l)
{
	size_t mn, typ, mx;
	sbx_keydesign_length(&mn, &typ, &mx, l->d);
	bool fixed = mn == mx;
	if (fixed && mx > IDEAL_KEY_BYTES)
		report(l, "key-too-long",
		       "the key is %zu bytes; every cell repeats it in store "
		       "files, block indexes and the memstore. Aim for <= %d "
		       "(raw hashes, binary numbers, short ids)",
		       mx, IDEAL_KEY_BYTES);
	else if (!fixed && typ > IDEAL_KEY_BYTES)
		report(l, "key-too-long",
		       "a typical key is about %zu bytes (max %s); every cell "
		       "repeats it. Aim for <= %d", typ,
		       mx == SBX_KEYLEN_UNBOUNDED ? "unbounded" : "bounded",
		       IDEAL_KEY_BYTES);
	if (!fixed) {
		const char *which = "";
		for (size_t i = 0; i < l->d->n_elems; i++)
			if (!kd_elem_fixed_width(&l->d->elems[i])) {
				which = l->d->elems[i].name;
				break;
			}
		report(l, "key-not-fixed-width",
		       "the key is %zu..%s bytes because '%s' has no fixed "
		       "width; fixed-width keys split and scan predictably "
		       "(use str(N), dec(N) or a number type)",
		       mn, mx == SBX_KEYLEN_UNBOUNDED ? "unbounded" : "N",
		       which);
	}
}

static void rule_names(linter *l)
{
	for (size_t i = 0; i < l->d->family.n; i++) {
		const char *f = l->d->family.items[i];
		if (strlen(f) > MAX_FAMILY)
			report(l, "long-column-names",
			       "family '%s' is %zu characters; it is stored in "
			       "every cell: use one character (e.g. '%c')",
			       f, strlen(f), f[0]);
	}
	for (size_t i = 0; i < l->d->qualifier.n; i++) {
		const char *q = l->d->qualifier.items[i];
		if (strlen(q) > MAX_QUALIFIER)
			report(l, "long-column-names",
			       "qualifier '%s' is %zu characters (over %d); it "
			       "is stored in every cell: abbreviate (u:n, not "
			       "user_information:name)",
			       q, strlen(q), MAX_QUALIFIER);
	}
}

static void rule_identity(linter *l)
{
	const sbx_keydesign *d = l->d;
	for (size_t i = 0; i < d->identity.n; i++) {
		const char *name = d->identity.items[i];
		int f = kd_field_index(d, name);
		if (f < 0)
			report(l, "identity-not-unique",
			       "identity field '%s' is not in the key: two "
			       "records that differ only in '%s' get the same "
			       "key and overwrite each other. Add it "
			       "(e.g. %s:str(10))", name, name, name);
		else if (d->fields[f].elem < 0)
			report(l, "identity-not-unique",
			       "identity field '%s' is only hashed into the "
			       "key: records that differ in it share a key "
			       "once the hash collides or is truncated. Store "
			       "it in the key too", name);
	}
}

static void rule_reverse_ts(linter *l)
{
	for (size_t i = 0; i < l->d->n_elems; i++) {
		const kd_elem *e = &l->d->elems[i];
		if (e->kind == KD_FIELD &&
		    (e->type == KT_RTS64 || e->type == KT_RTSDEC))
			report(l, "reverse-timestamp",
			       "'%s' is a reverse timestamp; a reversed scan "
			       "(HBase 0.98+) reads newest first from a plain "
			       "ts64 and keeps forward time ranges simple. "
			       "Keep it only if readers need newest-first "
			       "forward scans (with allow(reverse-timestamp))",
			       e->name);
	}
}

static void rule_salt_regions(linter *l)
{
	int nb = sbx_keydesign_buckets(l->d);
	int nr = l->d->regions;
	if (!nb || !nr || nb == nr)
		return;
	bool even = nr % nb == 0 || nb % nr == 0;
	report(l, "salt-buckets-vs-regions",
	       "%d salt buckets on %d regions: %s. Use as many buckets as "
	       "regions (salt(%d)) and pre-split at each bucket",
	       nb, nr,
	       even ? (nb > nr ? "several buckets share a region, so writes "
				 "spread over fewer servers than the salt "
				 "promises"
			       : "each bucket spans several regions, and only "
				 "the newest region of each takes writes")
		    : "buckets do not divide evenly over regions, so some "
		      "regions take more writes than others",
	       nr);
}

static void rule_unpadded(linter *l)
{
	const sbx_keydesign *d = l->d;
	for (size_t i = 0; i < d->n_elems; i++) {
		const kd_elem *e = &d->elems[i];
		if (e->kind != KD_FIELD || e->type != KT_DEC || e->width)
			continue;
		bool last = i + 1 == d->n_elems;
		if (!last || kd_option_has(&d->scan, e->name))
			report(l, "unpadded-number",
			       "'%s' is an unpadded decimal: \"10\" sorts "
			       "before \"9\", so rows after it are not in "
			       "numeric order. Use dec(N) (zero-padded) or "
			       "u64", e->name);
	}
}

int sbx_keydesign_lint(sbx_keylint **out, const sbx_keydesign *d)
{
	*out = NULL;
	if (!d)
		return sbx_error_set(SBX_EINVAL, "NULL design");
	sbx_keylint *rep = sbx_calloc(1, sizeof *rep);
	if (!rep)
		return SBX_ENOMEM_SET();
	linter l = {.d = d, .report = rep};
	rule_monotonic(&l);
	rule_scans(&l);
	rule_length(&l);
	rule_names(&l);
	rule_identity(&l);
	rule_reverse_ts(&l);
	rule_salt_regions(&l);
	rule_unpadded(&l);
	if (l.rc) {
		sbx_keylint_free(rep);
		return l.rc;
	}
	*out = rep;
	return SBX_OK;
}

void sbx_keylint_free(sbx_keylint *report)
{
	if (!report)
		return;
	for (size_t i = 0; i < report->count; i++)
		free((char *)report->findings[i].message);
	free(report->findings);
	free(report);
}
