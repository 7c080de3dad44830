/*
 * plan.c - scan planning: from equality conditions on leading fields and
 * an optional range on the next one, the exact [start, stop) row ranges a
 * scan must read, one per salt bucket when the salt is not fixed. Bounds
 * follow each field's order (descending codecs swap them) and each field's
 * framing (terminated, fixed, or last and unterminated).
 */
#include "common/alloc.h"
#include "common/bytes.h"
#include "common/error.h"
#include "rowkey/design.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sbx_keyplan_free(sbx_keyplan *plan)
{
	if (!plan)
		return;
	for (size_t i = 0; i < plan->count; i++) {
		free(plan->ranges[i].start);
		free(plan->ranges[i].stop);
	}
	free(plan->ranges);
	free(plan);
}

/* Smallest key greater than every key starting with b: drop trailing FF,
 * add one to the last byte. Empty = no bound (end of table). */
static void prefix_successor(sbx_buf *b)
{
	while (b->len && b->data[b->len - 1] == 0xFF)
		b->len--;
	if (b->len)
		b->data[b->len - 1]++;
}

typedef struct cond_set {
	const sbx_keycond **eq; /* per design field */
	const sbx_keycond *lo, *hi;
	int range_field;
	bool *used;
} cond_set;

static int collect(const sbx_keydesign *d, const sbx_keycond *conds, size_t n,
		   cond_set *cs)
{
	cs->range_field = -1;
	for (size_t i = 0; i < n; i++) {
		const sbx_keycond *c = &conds[i];
		if (!c->name || (!c->value && c->value_len))
			return sbx_error_set(SBX_EINVAL,
					     "condition %zu has no name or value",
					     i);
		int f = kd_field_index(d, c->name);
		if (f < 0)
			return sbx_error_set(SBX_EINVAL,
					     "design '%s' has no field '%s'",
					     d->name, c->name);
		if (c->op == SBX_KEYCOND_EQ) {
			if (cs->eq[f] || cs->range_field == f)
				return sbx_error_set(SBX_EINVAL,
						     "field '%s' has two "
						     "conditions", c->name);
			cs->eq[f] = c;
			continue;
		}
		if (c->op < SBX_KEYCOND_GE || c->op > SBX_KEYCOND_LE)
			return sbx_error_set(SBX_EINVAL, "unknown operator %d",
					     (int)c->op);
		if (d->fields[f].elem < 0)
			return sbx_error_set(SBX_EINVAL,
					     "field '%s' is only hashed, so it "
					     "has no range", c->name);
		if (cs->eq[f])
			return sbx_error_set(SBX_EINVAL,
					     "field '%s' has '=' and a range",
					     c->name);
		if (cs->range_field >= 0 && cs->range_field != f)
			return sbx_error_set(SBX_EINVAL,
					     "ranges on two fields ('%s' and "
					     "'%s'); a scan ranges over one",
					     d->fields[cs->range_field].name,
					     c->name);
		cs->range_field = f;
		bool low = c->op == SBX_KEYCOND_GE || c->op == SBX_KEYCOND_GT;
		const sbx_keycond **slot = low ? &cs->lo : &cs->hi;
		if (*slot)
			return sbx_error_set(SBX_EINVAL,
					     "field '%s' has two %s bounds",
					     c->name, low ? "lower" : "upper");
		*slot = c;
	}
	return SBX_OK;
}

static const char *cval(const sbx_keycond *c)
{
	return c->value ? c->value : "";
}

/* low(v): P + enc(v); high(v): exclusive bound of keys with F = v. */
static int bound(const kd_elem *e, bool last, const sbx_buf *prefix,
		 const sbx_keycond *c, bool high, sbx_buf *out)
{
	out->len = 0;
	int rc = sbx_buf_append(out, prefix->data, prefix->len);
	if (!rc)
		rc = kd_encode_field(e, cval(c), c->value_len, out);
	if (rc && rc != SBX_ENOMEM) {
		char m[900];
		snprintf(m, sizeof m, "%s", sbx_errmsg());
		return sbx_error_set(rc, "field '%s': %s", e->name, m);
	}
	if (rc)
		return rc;
	if (!high)
		return SBX_OK;
	bool open_end = last && !kd_elem_fixed_width(e) && !e->terminated;
	if (open_end)
		return sbx_buf_push(out, 0x00);
	prefix_successor(out);
	return SBX_OK;
}

static int range_bounds(const sbx_keydesign *d, size_t ei, const cond_set *cs,
			const sbx_buf *prefix, sbx_buf *start, sbx_buf *stop)
{
	const kd_elem *e = &d->elems[ei];
	sbx_keyorder order = kd_elem_order(e);
	if (order == SBX_ORDER_NONE)
		return sbx_error_set(SBX_EINVAL,
				     "field '%s' (%s) keeps no value order, so "
				     "only '=' can be planned on it", e->name,
				     e->type_text);
	if (e->type == KT_TEXT && e->delim >= 0)
		return sbx_error_set(SBX_EINVAL,
				     "a range on delimited text field '%s' is "
				     "not exact (bytes below '%c' sort wrong); "
				     "use str", e->name, e->delim);
	bool last = ei + 1 == d->n_elems;
	bool desc = order == SBX_ORDER_DESC;
	/* key-space lower bound comes from the value's lower bound when
	 * ascending, from its upper bound when descending. */
	const sbx_keycond *klo = desc ? cs->hi : cs->lo;
	const sbx_keycond *khi = desc ? cs->lo : cs->hi;
	int rc = SBX_OK;
	if (klo) {
		/* asc GE / desc LE: low(v); asc GT / desc LT: high(v) */
		bool incl = klo->op == SBX_KEYCOND_GE || klo->op == SBX_KEYCOND_LE;
		rc = bound(e, last, prefix, klo, !incl, start);
	} else {
		start->len = 0;
		rc = sbx_buf_append(start, prefix->data, prefix->len);
	}
	if (rc)
		return rc;
	if (khi) {
		bool incl = khi->op == SBX_KEYCOND_GE || khi->op == SBX_KEYCOND_LE;
		rc = bound(e, last, prefix, khi, incl, stop);
	} else {
		stop->len = 0;
		rc = sbx_buf_append(stop, prefix->data, prefix->len);
		if (!rc)
			prefix_successor(stop);
	}
	return rc;
}

static int add_range(sbx_keyplan *p, int bucket, const sbx_buf *salt,
		     const sbx_buf *start, const sbx_buf *stop)
{
	sbx_keyrange *r = &p->ranges[p->count];
	memset(r, 0, sizeof *r);
	r->bucket = bucket;
	sbx_buf s = {0}, e = {0};
	int rc = sbx_buf_append(&s, salt->data, salt->len);
	if (!rc)
		rc = sbx_buf_append(&s, start->data, start->len);
	if (!rc && stop->len) {
		rc = sbx_buf_append(&e, salt->data, salt->len);
		if (!rc)
			rc = sbx_buf_append(&e, stop->data, stop->len);
	} else if (!rc && salt->len) {
		/* open end inside a bucket: up to the next bucket */
		rc = sbx_buf_append(&e, salt->data, salt->len);
		if (!rc)
			prefix_successor(&e);
	}
	if (rc) {
		sbx_buf_free(&s);
		sbx_buf_free(&e);
		return rc;
	}
	/* an empty range (start >= stop) scans nothing: leave it out */
	if (e.len) {
		if (sbx_bytes_cmp(s.data, s.len, e.data, e.len) >= 0) {
			sbx_buf_free(&s);
			sbx_buf_free(&e);
			return SBX_OK;
		}
	}
	r->start = s.data ? s.data : sbx_malloc(1);
	r->start_len = s.len;
	r->stop = e.data ? e.data : sbx_malloc(1);
	r->stop_len = e.len;
	if (!r->start || !r->stop) {
		free(r->start);
		free(r->stop);
		return SBX_ENOMEM_SET();
	}
	p->count++;
	return SBX_OK;
}

/* Encode the whole key from equality conditions (a point plan). */
static int point_key(const sbx_keydesign *d, const cond_set *cs,
		     sbx_buf *key)
{
	sbx_keyvalue *vals =
	    sbx_calloc(d->n_fields ? d->n_fields : 1, sizeof *vals);
	if (!vals)
		return SBX_ENOMEM_SET();
	for (size_t f = 0; f < d->n_fields; f++) {
		vals[f].name = d->fields[f].name;
		vals[f].value = cval(cs->eq[f]);
		vals[f].value_len = cs->eq[f]->value_len;
	}
	int rc = sbx_keydesign_encode(key, d, vals, d->n_fields);
	free(vals);
	return rc;
}

static int plan_walk(const sbx_keydesign *d, cond_set *cs, sbx_keyplan *plan)
{
	sbx_buf prefix = {0}, start = {0}, stop = {0}, salt = {0}, in = {0};
	const kd_elem *salt_el = sbx_keydesign_buckets(d) ? &d->elems[0] : NULL;
	size_t ei = salt_el ? 1 : 0;
	int rc = SBX_OK;
	bool ranged = false, complete = false;
	const char *stopped_at = NULL;
	for (; !rc && ei < d->n_elems; ei++) {
		const kd_elem *e = &d->elems[ei];
		if (e->kind == KD_LITERAL) {
			rc = sbx_buf_append(&prefix, e->lit, e->lit_len);
			continue;
		}
		if (e->kind == KD_HASH) {
			bool all = true;
			for (size_t k = 0; k < e->n_of; k++)
				all = all && cs->eq[e->of_field[k]];
			if (!all) {
				stopped_at = e->name;
				break;
			}
			in.len = 0;
			for (size_t k = 0; !rc && k < e->n_of; k++) {
				int f = e->of_field[k];
				const kd_field *fd = &d->fields[f];
				cs->used[f] = true;
				rc = kd_hash_input(fd->elem >= 0 ? &d->elems[fd->elem]
								 : NULL,
						   cval(cs->eq[f]),
						   cs->eq[f]->value_len, &in);
			}
			if (!rc)
				rc = kd_hash_bytes(e, in.data, in.len, &prefix);
			continue;
		}
		int f = kd_field_index(d, e->name);
		if (cs->eq[f]) {
			cs->used[f] = true;
			rc = kd_encode_field(e, cval(cs->eq[f]),
					     cs->eq[f]->value_len, &prefix);
			if (rc && rc != SBX_ENOMEM) {
				char m[900];
				snprintf(m, sizeof m, "%s", sbx_errmsg());
				rc = sbx_error_set(rc, "field '%s': %s", e->name,
						   m);
			}
			continue;
		}
		if (cs->range_field == f) {
			cs->used[f] = true;
			ranged = true;
			rc = range_bounds(d, ei, cs, &prefix, &start, &stop);
			break;
		}
		stopped_at = e->name;
		break;
	}
	if (!rc && ei >= d->n_elems && !ranged)
		complete = true;
	if (salt_el && salt_el->n_of) {
		bool all = true;
		for (size_t k = 0; k < salt_el->n_of; k++)
			all = all && cs->eq[salt_el->of_field[k]];
		for (size_t k = 0; all && k < salt_el->n_of; k++)
			cs->used[salt_el->of_field[k]] = true;
	}
	for (size_t f = 0; !rc && !complete && f < d->n_fields; f++) {
		bool has = cs->eq[f] || (int)f == cs->range_field;
		if (!has || cs->used[f])
			continue;
		if (ranged)
			rc = sbx_error_set(SBX_EINVAL,
					   "cannot use the condition on '%s': "
					   "the scan already ranges over '%s', "
					   "which comes before it",
					   d->fields[f].name,
					   d->fields[cs->range_field].name);
		else
			rc = sbx_error_set(SBX_EINVAL,
					   "cannot use the condition on '%s': "
					   "'%s' comes before it in the key and "
					   "has no value (give it with '=')",
					   d->fields[f].name, stopped_at);
	}
	if (!rc && complete) {
		/* every element fixed: a Get of exactly one key */
		for (size_t f = 0; !rc && f < d->n_fields; f++)
			if (!cs->eq[f])
				rc = sbx_error_set(SBX_EINVAL,
						   "hash input '%s' needs a value",
						   d->fields[f].name);
		sbx_buf key = {0};
		if (!rc)
			rc = point_key(d, cs, &key);
		if (!rc) {
			size_t sl = salt_el ? kd_salt_width(salt_el) : 0;
			sbx_buf empty = {0};
			start.len = 0;
			rc = sbx_buf_append(&start, key.data, key.len);
			stop.len = 0;
			if (!rc)
				rc = sbx_buf_append(&stop, key.data, key.len);
			if (!rc)
				rc = sbx_buf_push(&stop, 0x00);
			plan->point = true;
			plan->salt_len = sl;
			int bucket = -1;
			if (!rc && salt_el) {
				sbx_keyrecord *r = NULL;
				rc = sbx_keydesign_decode(&r, d, key.data,
							  key.len);
				if (!rc)
					bucket = atoi(sbx_keyrecord_value(r, 0));
				sbx_keyrecord_free(r);
			}
			if (!rc)
				rc = add_range(plan, bucket, &empty, &start, &stop);
		}
		sbx_buf_free(&key);
		goto out;
	}
	if (!rc && !ranged) {
		start.len = 0;
		rc = sbx_buf_append(&start, prefix.data, prefix.len);
		stop.len = 0;
		if (!rc)
			rc = sbx_buf_append(&stop, prefix.data, prefix.len);
		if (!rc)
			prefix_successor(&stop);
	}
	if (rc)
		goto out;
	if (!salt_el) {
		sbx_buf empty = {0};
		rc = add_range(plan, -1, &empty, &start, &stop);
		goto out;
	}
	plan->salt_len = kd_salt_width(salt_el);
	bool fixed = salt_el->n_of > 0;
	for (size_t k = 0; k < salt_el->n_of; k++)
		fixed = fixed && cs->eq[salt_el->of_field[k]];
	if (fixed) {
		in.len = 0;
		for (size_t k = 0; !rc && k < salt_el->n_of; k++) {
			int f = salt_el->of_field[k];
			const kd_field *fd = &d->fields[f];
			rc = kd_hash_input(fd->elem >= 0 ? &d->elems[fd->elem] : NULL,
					   cval(cs->eq[f]), cs->eq[f]->value_len,
					   &in);
		}
		int b = rc ? 0 : sbx_phoenix_salt(in.data, in.len,
						  salt_el->buckets);
		if (!rc && b < 0)
			rc = b;
		if (!rc)
			rc = kd_salt_bytes(salt_el, b, &salt);
		if (!rc)
			rc = add_range(plan, b, &salt, &start, &stop);
		goto out;
	}
	for (int b = 0; !rc && b < salt_el->buckets; b++) {
		salt.len = 0;
		rc = kd_salt_bytes(salt_el, b, &salt);
		if (!rc)
			rc = add_range(plan, b, &salt, &start, &stop);
	}
out:
	sbx_buf_free(&prefix);
	sbx_buf_free(&start);
	sbx_buf_free(&stop);
	sbx_buf_free(&salt);
	sbx_buf_free(&in);
	return rc;
}

int sbx_keydesign_plan(sbx_keyplan **out, const sbx_keydesign *d,
		       const sbx_keycond *conds, size_t n)
{
	*out = NULL;
	if (!d || (n && !conds))
		return sbx_error_set(SBX_EINVAL, "NULL argument to plan");
	size_t nf = d->n_fields ? d->n_fields : 1;
	cond_set cs = {0};
	cs.eq = sbx_calloc(nf, sizeof *cs.eq);
	cs.used = sbx_calloc(nf, sizeof *cs.used);
	sbx_keyplan *plan = sbx_calloc(1, sizeof *plan);
	int nb = sbx_keydesign_buckets(d);
	if (plan)
		plan->ranges =
		    sbx_calloc(nb ? (size_t)nb : 1, sizeof *plan->ranges);
	int rc = (cs.eq && cs.used && plan && plan->ranges) ? SBX_OK
							    : SBX_ENOMEM_SET();
	if (!rc)
		rc = collect(d, conds, n, &cs);
	if (!rc)
		rc = plan_walk(d, &cs, plan);
	free(cs.eq);
	free(cs.used);
	if (rc) {
		sbx_keyplan_free(plan);
		return rc;
	}
	*out = plan;
	return SBX_OK;
}
