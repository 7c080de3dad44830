/*
 * generate.c - turning a workload into a deterministic stream of operations
 * with encoded keys. Record k's fields are a pure function of (seed, k), as
 * in YCSB, so a get can rebuild the key of any record written before it;
 * traces are replayed line by line, raw or as records through a design.
 */
#include "keyviz_int.h"

#include "common/alloc.h"
#include "common/buf.h"
#include "common/bytes.h"
#include "common/error.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { ZETA_EXACT = 2000, VAL_CAP = 256 };

double kv_zeta(uint64_t n, double theta)
{
	uint64_t m = n < ZETA_EXACT ? n : ZETA_EXACT;
	double s = 0;
	for (uint64_t i = 1; i <= m; i++)
		s += pow((double)i, -theta);
	if (n > m) /* Euler-Maclaurin tail of sum_{m+1}^{n} i^-theta */
		s += (pow((double)n, 1 - theta) - pow((double)m, 1 - theta)) /
			     (1 - theta) +
		     (pow((double)n, -theta) - pow((double)m, -theta)) / 2;
	return s;
}

uint64_t kv_zipf(uint64_t n, double theta, double zeta_n, double u)
{
	assert(u >= 0 && u < 1);
	if (n <= 1)
		return 0;
	double uz = u * zeta_n;
	if (uz < 1)
		return 0;
	double zeta2 = 1 + pow(0.5, theta);
	if (uz < zeta2)
		return 1;
	double alpha = 1 / (1 - theta);
	double eta = (1 - pow(2.0 / (double)n, 1 - theta)) / (1 - zeta2 / zeta_n);
	double v = (double)n * pow(eta * u - eta + 1, alpha);
	uint64_t r = v < 0 ? 0 : (uint64_t)v;
	return r >= n ? n - 1 : r;
}

/* A zeta(n) that is recomputed only when n has grown by 1%. */
typedef struct zeta_cache {
	uint64_t n;
	double zeta;
} zeta_cache;

static double zeta_for(zeta_cache *c, uint64_t n, double theta)
{
	if (!c->n || n < c->n || n > c->n + c->n / 100) {
		c->n = n;
		c->zeta = kv_zeta(n, theta);
	}
	return c->zeta;
}

/* Is `name` an input of a salt or hash whose type reads like
 * "md5(a, b, bytes=4)" or "salt(16, of=a, of=b)"? */
static bool type_has_input(const char *type, const char *name)
{
	const char *s = strchr(type, '(');
	if (!s)
		return false;
	size_t nl = strlen(name);
	for (s++; *s && *s != ')';) {
		while (*s == ' ' || *s == ',')
			s++;
		const char *e = s;
		while (*e && *e != ',' && *e != ')')
			e++;
		const char *a = s;
		if (!strncmp(a, "of=", 3))
			a += 3;
		if ((size_t)(e - a) == nl && !strncmp(a, name, nl))
			return true;
		s = e;
	}
	return false;
}

bool kv_design_uses(const sbx_keydesign *design, const char *name)
{
	assert(design && name);
	size_t n = sbx_keydesign_elem_count(design);
	for (size_t i = 0; i < n; i++) {
		sbx_keyelem_info e;
		if (sbx_keydesign_elem(&e, design, i))
			continue;
		if (e.kind == SBX_KEYELEM_FIELD && !strcmp(e.name, name))
			return true;
		if ((e.kind == SBX_KEYELEM_SALT ||
		     e.kind == SBX_KEYELEM_HASH) &&
		    type_has_input(e.type, name))
			return true;
	}
	return false;
}

struct sbx_workload_iter {
	const sbx_workload *w;
	const sbx_keydesign *d;
	uint64_t i, records, expected_records;
	uint64_t rng;
	double w_total, put_rate;
	size_t nused;
	int *used;          /* workload field index per key value */
	sbx_keyvalue *kv;   /* nused */
	char (*vals)[VAL_CAP];
	int64_t *cache_sec; /* strftime cache per field */
	zeta_cache *zc;     /* latest fields */
	zeta_cache read_zc;
	sbx_buf key, scratch;
	sbx_keyvalue *tkv;
	size_t tkv_cap, tkv_n;
};

void sbx_workload_iter_free(sbx_workload_iter *it)
{
	if (!it)
		return;
	free(it->used);
	free(it->kv);
	free(it->vals);
	free(it->cache_sec);
	free(it->zc);
	free(it->tkv);
	sbx_buf_free(&it->key);
	sbx_buf_free(&it->scratch);
	free(it);
}

int sbx_workload_iter_new(sbx_workload_iter **out, const sbx_workload *w,
			  const sbx_keydesign *design)
{
	*out = NULL;
	if (!w->is_trace && !design)
		return sbx_error_set(SBX_EINVAL, "a generated workload needs a "
						 "key design to make keys");
	sbx_workload_iter *it = sbx_calloc(1, sizeof *it);
	if (!it)
		return SBX_ENOMEM_SET();
	it->w = w;
	it->d = design;
	it->rng = kv_mix64(w->seed ^ 0x6b657976697aull);
	it->w_total = w->w_put + w->w_get + w->w_scan;
	it->records = w->preload;
	double put_frac = it->w_total > 0 ? w->w_put / it->w_total : 1;
	it->put_rate = w->rate * (put_frac > 0 ? put_frac : 1);
	it->expected_records = w->preload + (uint64_t)((double)w->ops * put_frac);
	if (it->expected_records == 0)
		it->expected_records = 1;
	size_t nf = w->nfields ? w->nfields : 1;
	it->used = sbx_calloc(nf, sizeof *it->used);
	it->kv = sbx_calloc(nf, sizeof *it->kv);
	it->vals = sbx_calloc(nf, sizeof *it->vals);
	it->cache_sec = sbx_calloc(nf, sizeof *it->cache_sec);
	it->zc = sbx_calloc(nf, sizeof *it->zc);
	if (!it->used || !it->kv || !it->vals || !it->cache_sec || !it->zc) {
		sbx_workload_iter_free(it);
		return SBX_ENOMEM_SET();
	}
	for (size_t i = 0; i < w->nfields; i++) {
		it->cache_sec[i] = INT64_MIN;
		if (design && kv_design_uses(design, w->fields[i].name)) {
			it->used[it->nused] = (int)i;
			it->kv[it->nused].name = w->fields[i].name;
			it->nused++;
		}
	}
	if (!w->is_trace && design) {
		/* every field of the design must be generated */
		sbx_buf probe = {0};
		int rc = SBX_OK;
		size_t n = sbx_keydesign_elem_count(design);
		for (size_t i = 0; i < n && !rc; i++) {
			sbx_keyelem_info e;
			if (sbx_keydesign_elem(&e, design, i) ||
			    e.kind != SBX_KEYELEM_FIELD)
				continue;
			bool found = false;
			for (size_t j = 0; j < w->nfields; j++)
				found |= !strcmp(w->fields[j].name, e.name);
			if (!found)
				rc = sbx_error_set(SBX_EINVAL,
					"design '%s' needs field '%s', which the "
					"workload does not generate (add a "
					"'field %s ...' line)",
					sbx_keydesign_name(design), e.name,
					e.name);
		}
		sbx_buf_free(&probe);
		if (rc) {
			sbx_workload_iter_free(it);
			return rc;
		}
	}
	*out = it;
	return SBX_OK;
}

static uint64_t next_rand(sbx_workload_iter *it)
{
	it->rng += 0x9E3779B97F4A7C15ull;
	uint64_t x = it->rng;
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
	return x ^ (x >> 31);
}

static int64_t record_time_ms(const sbx_workload_iter *it, uint64_t k)
{
	double rel = (double)k - (double)it->w->preload;
	return it->w->start_ms + (int64_t)floor(rel * 1000.0 / it->put_rate);
}

static size_t fmt_number(char *out, const kv_field *f, int64_t v)
{
	int n = snprintf(out, VAL_CAP, "%s%0*lld", f->prefix ? f->prefix : "",
			 f->pad, (long long)v);
	return n < 0 ? 0 : (size_t)n >= VAL_CAP ? VAL_CAP - 1 : (size_t)n;
}

/* a + b in two's complement, wrapping: defined for every input (signed
 * overflow is not), the same value as a + b wherever that fits. */
static int64_t add_wrap(int64_t a, uint64_t b)
{
	return (int64_t)((uint64_t)a + b);
}

/* Field fi of record k, as text into it->vals[fi]. */
static size_t gen_field(sbx_workload_iter *it, size_t fi, uint64_t k)
{
	const kv_field *f = &it->w->fields[fi];
	char *out = it->vals[fi];
	uint64_t r = kv_mix64(it->w->seed * 0x100000001B3ull ^
			      kv_mix64(k ^ ((uint64_t)(fi + 1) << 56)));
	uint64_t span = (uint64_t)f->max - (uint64_t)f->min + 1;
	switch (f->kind) {
	case GEN_SEQUENCE:
		/* wraps modulo 2^64 (a huge step may pass INT64_MAX) */
		return fmt_number(out, f, add_wrap(f->start, k * (uint64_t)f->step));
	case GEN_UNIFORM:
		return fmt_number(out, f, add_wrap(f->min, r % span));
	case GEN_ZIPFIAN: {
		uint64_t z = kv_zipf(span, f->theta, f->zeta_n, kv_unit(r));
		if (f->scramble)
			z = kv_mix64(z ^ 0x5eed) % span;
		return fmt_number(out, f, add_wrap(f->min, z));
	}
	case GEN_LATEST: {
		/* ids appear over the run; the newest are the most used */
		uint64_t top = (uint64_t)((double)k / (double)it->expected_records *
					  (double)span);
		if (top >= span)
			top = span - 1;
		double zeta = zeta_for(&it->zc[fi], top + 1, f->theta);
		uint64_t z = kv_zipf(top + 1, f->theta, zeta, kv_unit(r));
		return fmt_number(out, f, add_wrap(f->min, top - z));
	}
	case GEN_TIME: {
		int64_t t = record_time_ms(it, k);
		if (!f->format || !strcmp(f->format, "ms"))
			return (size_t)snprintf(out, VAL_CAP, "%lld",
						(long long)t);
		if (!strcmp(f->format, "s"))
			return (size_t)snprintf(out, VAL_CAP, "%lld",
						(long long)(t / 1000));
		if (!strcmp(f->format, "us"))
			return (size_t)snprintf(out, VAL_CAP, "%lld",
						(long long)t * 1000);
		int64_t sec = t >= 0 ? t / 1000 : -((-t + 999) / 1000);
		if (sec == it->cache_sec[fi])
			return strlen(out);
		it->cache_sec[fi] = sec;
		time_t tt = (time_t)sec;
		struct tm tm;
		gmtime_r(&tt, &tm);
		size_t n = strftime(out, VAL_CAP, f->format, &tm);
		out[n] = 0;
		return n;
	}
	case GEN_SET: {
		size_t idx = (size_t)(r % f->nvalues);
		if (f->cum_weights) {
			double u = kv_unit(r) * f->cum_weights[f->nvalues - 1];
			idx = 0;
			while (idx + 1 < f->nvalues && u >= f->cum_weights[idx])
				idx++;
		}
		size_t n = strlen(f->values[idx]);
		if (n >= VAL_CAP)
			n = VAL_CAP - 1;
		memcpy(out, f->values[idx], n);
		out[n] = 0;
		return n;
	}
	case GEN_CONST: {
		size_t n = strlen(f->values[0]);
		if (n >= VAL_CAP)
			n = VAL_CAP - 1;
		memcpy(out, f->values[0], n);
		out[n] = 0;
		return n;
	}
	case GEN_RANDOM: {
		const char *hex = sbx_hex_lower;
		for (int i = 0; i < f->bytes; i++) {
			if (i % 8 == 0 && i)
				r = kv_mix64(r);
			uint8_t b = (uint8_t)(r >> ((i % 8) * 8));
			out[2 * i] = hex[b >> 4];
			out[2 * i + 1] = hex[b & 15];
		}
		out[2 * f->bytes] = 0;
		return (size_t)(2 * f->bytes);
	}
	}
	return 0;
}

static int gen_record(sbx_workload_iter *it, uint64_t k)
{
	for (size_t j = 0; j < it->nused; j++) {
		size_t fi = (size_t)it->used[j];
		it->kv[j].value_len = gen_field(it, fi, k);
		it->kv[j].value = it->vals[fi];
	}
	sbx_buf_reset(&it->key);
	return sbx_keydesign_encode(&it->key, it->d, it->kv, it->nused);
}

static uint64_t pick_existing(sbx_workload_iter *it)
{
	uint64_t n = it->records;
	uint64_t r = next_rand(it);
	switch (it->w->read) {
	case READ_UNIFORM:
		return r % n;
	case READ_ZIPFIAN: {
		double z = zeta_for(&it->read_zc, n, 0.99);
		uint64_t v = kv_zipf(n, 0.99, z, kv_unit(r));
		return kv_mix64(v ^ 0x7ead) % n;
	}
	case READ_LATEST: {
		double z = zeta_for(&it->read_zc, n, 0.99);
		return n - 1 - kv_zipf(n, 0.99, z, kv_unit(r));
	}
	}
	return 0;
}

/* A trace line "a=1 b=x" through the design. */
static int trace_record(sbx_workload_iter *it, const kv_trace_op *t)
{
	const sbx_workload *w = it->w;
	sbx_buf_reset(&it->scratch);
	int rc = sbx_buf_append(&it->scratch, w->arena.data + t->off, t->len);
	if (!rc)
		rc = sbx_buf_push(&it->scratch, 0);
	if (rc)
		return rc;
	char *s = (char *)it->scratch.data;
	size_t n = 0;
	while (*s) {
		while (*s == ' ')
			s++;
		if (!*s)
			break;
		char *e = s;
		while (*e && *e != ' ')
			e++;
		char *eq = memchr(s, '=', (size_t)(e - s));
		if (!eq || eq == s)
			return sbx_error_set(SBX_EPARSE,
				"trace line %d: expected field=value, found "
				"'%.*s'", t->line, (int)(e - s > 40 ? 40 : e - s),
				s);
		if (n == it->tkv_cap) {
			size_t cap = it->tkv_cap ? it->tkv_cap * 2 : 8;
			sbx_keyvalue *nk =
			    sbx_realloc(it->tkv, cap * sizeof *nk);
			if (!nk)
				return SBX_ENOMEM_SET();
			it->tkv = nk;
			it->tkv_cap = cap;
		}
		*eq = 0;
		it->tkv[n].name = s;
		it->tkv[n].value = eq + 1;
		it->tkv[n].value_len = (size_t)(e - eq - 1);
		n++;
		bool end = !*e;
		*e = 0;
		s = end ? e : e + 1;
	}
	sbx_buf_reset(&it->key);
	rc = sbx_keydesign_encode(&it->key, it->d, it->tkv, n);
	if (rc)
		return sbx_error_set(rc, "trace line %d: %s", t->line,
				     sbx_errmsg());
	it->tkv_n = n;
	return SBX_OK;
}

static int next_trace(sbx_workload_iter *it, sbx_workload_op *op)
{
	const sbx_workload *w = it->w;
	const kv_trace_op *t = &w->trace[it->i];
	op->kind = t->kind;
	op->line = t->line;
	op->fields = NULL;
	op->nfields = 0;
	int rc;
	if (it->d) {
		if ((rc = trace_record(it, t)))
			return rc;
		op->fields = it->tkv;
		op->nfields = it->tkv_n;
		op->key = it->key.data;
		op->key_len = it->key.len;
	} else if (w->trace_hex) {
		op->key = w->arena.data + t->off;
		op->key_len = t->len;
	} else {
		sbx_buf_reset(&it->key);
		rc = sbx_key_from_binary_string(
			&it->key, (const char *)w->arena.data + t->off, t->len);
		if (rc)
			return sbx_error_set(SBX_EPARSE, "trace line %d: bad "
							 "key: %s",
					     t->line, sbx_errmsg());
		op->key = it->key.data;
		op->key_len = it->key.len;
	}
	if (op->key_len == 0)
		return sbx_error_set(SBX_EPARSE, "trace line %d: empty key",
				     t->line);
	return SBX_OK;
}

int sbx_workload_iter_next(sbx_workload_iter *it, sbx_workload_op *op)
{
	const sbx_workload *w = it->w;
	if (it->i >= w->ops)
		return SBX_ITEROVER;
	memset(op, 0, sizeof *op);
	op->index = it->i;
	op->time_ms = w->start_ms + (int64_t)((double)it->i * 1000.0 / w->rate);
	op->value_bytes = w->value_bytes;
	int rc;
	if (w->is_trace) {
		rc = next_trace(it, op);
		if (rc)
			return rc;
		it->i++;
		return SBX_OK;
	}
	double u = kv_unit(next_rand(it)) * it->w_total;
	uint64_t k;
	if (u < w->w_put || it->records == 0) {
		op->kind = SBX_OP_PUT;
		k = it->records++;
	} else {
		op->kind = u < w->w_put + w->w_get ? SBX_OP_GET : SBX_OP_SCAN;
		k = pick_existing(it);
	}
	rc = gen_record(it, k);
	if (rc)
		return sbx_error_set(rc, "record %llu: %s",
				     (unsigned long long)k, sbx_errmsg());
	op->key = it->key.data;
	op->key_len = it->key.len;
	op->fields = it->kv;
	op->nfields = it->nused;
	it->i++;
	return SBX_OK;
}

/* For the simulator: the key of record k (data the table holds), used to
 * sample the key space for equal-count heatmap buckets. */
int kv_record_key(sbx_workload_iter *it, uint64_t k, const uint8_t **key,
		  size_t *len)
{
	assert(it && it->d && !it->w->is_trace && key && len);
	int rc = gen_record(it, k);
	*key = it->key.data;
	*len = it->key.len;
	return rc;
}

void kv_iter_seek(sbx_workload_iter *it, uint64_t i)
{
	assert(it && it->w->is_trace && i <= it->w->ops);
	it->i = i;
}

uint64_t kv_iter_expected_records(const sbx_workload_iter *it)
{
	return it->expected_records;
}
