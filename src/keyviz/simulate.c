/*
 * simulate.c - the modelled cluster: regions [start, end) on N servers,
 * split by HBase's policies (sbx_split_threshold) at the median of a sorted
 * reservoir sample of each region's keys, the balancer the engine's
 * modelled servers use too (placement.h: region counts, then load), and
 * the counters behind the heatmap. In memory
 * only; invariant: regions[] is sorted by start key and regions[0] starts
 * at the empty key.
 */
#include "keyviz_int.h"

#include "common/alloc.h"
#include "common/buf.h"
#include "common/bytes.h"
#include "common/error.h"
#include "placement/placement.h"
#include "saltbox/hotspot.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum {
	SAMPLE_CAP = 64,       /* keys sampled per region for split points */
	BOUNDS_SAMPLE = 16384, /* keys sampled for heatmap buckets */
	REGIONS_PER_SERVER_LIMIT = 1000, /* hbase.regionserver.regionSplitLimit */
	CELL_OVERHEAD = 24,    /* KeyValue framing + family/qualifier + ts */
	PROGRESS_EVERY = 65536,
	/* The run is cut into PERIODS equal slices of its operations: the
	 * balancer runs once per slice and the hotspot verdict is computed
	 * per slice, so neither depends on --time-buckets (the display). */
	PERIODS = 60,
};

typedef struct region {
	sbx_buf start;
	int server;
	int born;
	uint64_t size, next_check;
	uint64_t reads, writes, window;
	uint64_t *load;
	int *served_by;
	int nsample;
	uint64_t seen;
	sbx_buf sample[SAMPLE_CAP]; /* sorted */
} region;

typedef struct sim {
	const sbx_keyviz_opts *o;
	const sbx_workload *w;
	const sbx_keydesign *d;
	int S, T, B;
	region **r;
	size_t n, cap;
	int *nregions;       /* per server */
	uint64_t *window;    /* per server, scratch for the balancer */
	sbx_buf *bounds;     /* B - 1 heatmap bucket boundaries */
	size_t nbounds;
	uint64_t rng;
	int t;               /* current time bucket */
	int period;          /* current slice of the run (PERIODS) */
	uint64_t *vload;     /* [period * S + server] requests, verdict */
	bool *dead;          /* per server: down (the domino effect) */
	int nlive;
	size_t next_bound;   /* the trace's next layout event */
	sbx_keyviz_result *res;
	sbx_keycond *conds;
} sim;

void sbx_keyviz_opts_init(sbx_keyviz_opts *o)
{
	memset(o, 0, sizeof *o);
	o->servers = 4;
	sbx_split_policy_init(&o->policy);
	o->policy.max_file_size = 64u << 20;
	o->policy.flush_size = o->policy.max_file_size / 80;
	o->time_buckets = 60;
	o->key_buckets = 64;
	o->balance_every = 1;
	o->fail_headroom = 2.0;
}

static uint64_t rnd(sim *s)
{
	s->rng += 0x9E3779B97F4A7C15ull;
	return kv_mix64(s->rng);
}

static void region_free(region *r)
{
	if (!r)
		return;
	sbx_buf_free(&r->start);
	free(r->load);
	free(r->served_by);
	for (int i = 0; i < SAMPLE_CAP; i++)
		sbx_buf_free(&r->sample[i]);
	free(r);
}

static region *region_new(sim *s, const uint8_t *start, size_t len,
			  int server)
{
	region *r = sbx_calloc(1, sizeof *r);
	if (!r)
		return NULL;
	r->load = sbx_calloc((size_t)s->T, sizeof *r->load);
	r->served_by = sbx_malloc((size_t)s->T * sizeof *r->served_by);
	if (!r->load || !r->served_by || sbx_buf_set(&r->start, start, len)) {
		region_free(r);
		return NULL;
	}
	for (int t = 0; t < s->T; t++)
		r->served_by[t] = -1;
	r->server = server;
	r->born = s->t;
	return r;
}

/* Index of the region holding key: the last whose start <= key. */
static size_t region_for(const sim *s, const uint8_t *key, size_t len)
{
	size_t lo = 0, hi = s->n; /* regions[0] starts at "" <= any key */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		const region *r = s->r[mid];
		if (sbx_bytes_cmp(r->start.data, r->start.len, key, len) <= 0)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

static int bucket_for(const sim *s, const uint8_t *key, size_t len)
{
	size_t lo = 0, hi = s->nbounds; /* count of bounds <= key */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (sbx_bytes_cmp(s->bounds[mid].data, s->bounds[mid].len, key,
			    len) <= 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (int)lo;
}

static int insert_region(sim *s, size_t at, region *r)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		region **nr = sbx_realloc(s->r, cap * sizeof *nr);
		if (!nr)
			return SBX_ENOMEM_SET();
		s->r = nr;
		s->cap = cap;
	}
	memmove(&s->r[at + 1], &s->r[at], (s->n - at) * sizeof *s->r);
	s->r[at] = r;
	s->n++;
	s->nregions[r->server]++;
	return SBX_OK;
}

/* Keep a uniform sample of the region's keys, sorted. */
static int sample_key(sim *s, region *r, const uint8_t *key, size_t len)
{
	r->seen++;
	int slot;
	if (r->nsample < SAMPLE_CAP) {
		slot = r->nsample++;
	} else {
		uint64_t x = rnd(s) % r->seen;
		if (x >= SAMPLE_CAP)
			return SBX_OK;
		slot = (int)x;
	}
	sbx_buf b = r->sample[slot];
	if (sbx_buf_set(&b, key, len))
		return SBX_ENOMEM_SET();
	/* move the new key from `slot` to its sorted place */
	int n = r->nsample;
	int pos = 0, lo = 0, hi = n; /* position among the others */
	while (lo < hi) {
		int mid = (lo + hi) / 2;
		int m = mid >= slot ? mid + 1 : mid;
		if (m >= n) {
			hi = mid;
			continue;
		}
		if (sbx_bytes_cmp(r->sample[m].data, r->sample[m].len, key, len) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	pos = lo;
	if (pos < slot)
		memmove(&r->sample[pos + 1], &r->sample[pos],
			(size_t)(slot - pos) * sizeof(sbx_buf));
	else if (pos > slot)
		memmove(&r->sample[slot], &r->sample[slot + 1],
			(size_t)(pos - slot) * sizeof(sbx_buf));
	r->sample[pos] = b;
	return SBX_OK;
}

/* The split point as the policy restricts it (KeyPrefix, Delimited). */
static size_t restrict_split(const sbx_split_policy *p, const uint8_t *k,
			     size_t len)
{
	if (p->kind == SBX_SPLIT_KEY_PREFIX && p->prefix_length < len)
		return p->prefix_length;
	if (p->kind == SBX_SPLIT_DELIMITED_KEY_PREFIX) {
		const uint8_t *d = memchr(k, p->delimiter, len);
		if (d)
			return (size_t)(d - k);
	}
	return len;
}

static int split_region(sim *s, size_t idx, bool *did)
{
	*did = false;
	region *r = s->r[idx];
	if (r->nsample < 2)
		return SBX_OK;
	const sbx_buf *mid = &r->sample[r->nsample / 2];
	size_t ml = restrict_split(&s->o->policy, mid->data, mid->len);
	const region *next = idx + 1 < s->n ? s->r[idx + 1] : NULL;
	if (ml == 0 || sbx_bytes_cmp(mid->data, ml, r->start.data, r->start.len) <= 0 ||
	    (next && sbx_bytes_cmp(mid->data, ml, next->start.data,
			     next->start.len) >= 0))
		return SBX_OK; /* the data cannot be split here (yet) */
	region *right = region_new(s, mid->data, ml, r->server);
	if (!right)
		return SBX_ENOMEM_SET();
	int left_n = 0;
	while (left_n < r->nsample &&
	       sbx_bytes_cmp(r->sample[left_n].data, r->sample[left_n].len,
		       right->start.data, right->start.len) < 0)
		left_n++;
	int right_n = r->nsample - left_n;
	for (int i = 0; i < right_n; i++) {
		right->sample[i] = r->sample[left_n + i];
		memset(&r->sample[left_n + i], 0, sizeof(sbx_buf));
	}
	right->nsample = right_n;
	double frac = (double)right_n / r->nsample;
	right->size = (uint64_t)((double)r->size * frac);
	right->seen = (uint64_t)((double)r->seen * frac);
	r->size -= right->size;
	r->seen -= right->seen;
	r->nsample = left_n;
	r->next_check = right->next_check = 0;
	int rc = insert_region(s, idx + 1, right);
	if (rc) {
		region_free(right);
		return rc;
	}
	s->res->splits++;
	*did = true;
	return SBX_OK;
}

static void count(sim *s, region *r, int bucket, bool read)
{
	if (read)
		r->reads++;
	else
		r->writes++;
	r->window++;
	r->load[s->t]++;
	s->res->heat[(size_t)bucket * s->T + s->t]++;
	s->res->requests++;
	if (!s->nlive) { /* every server is down */
		s->res->unserved++;
		return;
	}
	/* the load is the server's that serves the region now */
	r->served_by[s->t] = r->server;
	s->res->server_load[(size_t)s->t * s->S + r->server]++;
	s->vload[(size_t)s->period * s->S + r->server]++;
}

static int do_put(sim *s, const sbx_workload_op *op)
{
	size_t idx = region_for(s, op->key, op->key_len);
	region *r = s->r[idx];
	count(s, r, bucket_for(s, op->key, op->key_len), false);
	r->size += op->key_len + op->value_bytes + CELL_OVERHEAD;
	int rc = sample_key(s, r, op->key, op->key_len);
	if (rc)
		return rc;
	uint64_t thr = sbx_split_threshold(&s->o->policy,
					   s->nregions[r->server]);
	if (r->size < thr || r->size < r->next_check ||
	    s->nregions[r->server] >= REGIONS_PER_SERVER_LIMIT)
		return SBX_OK;
	bool did;
	if ((rc = split_region(s, idx, &did)))
		return rc;
	if (!did)
		r->next_check = r->size + r->size / 4;
	return SBX_OK;
}

static const sbx_keyvalue *find_field(const sbx_workload_op *op,
				      const char *name)
{
	for (size_t i = 0; i < op->nfields; i++)
		if (!strcmp(op->fields[i].name, name))
			return &op->fields[i];
	return NULL;
}

static void full_scan(sim *s)
{
	for (size_t i = 0; i < s->n; i++) {
		region *r = s->r[i];
		count(s, r, i ? bucket_for(s, r->start.data, r->start.len) : 0,
		      true);
		s->res->scan_requests++;
	}
	s->res->full_scans++;
}

static void do_scan(sim *s, const sbx_workload_op *op)
{
	const sbx_workload *w = s->w;
	if (!s->d || !w->nscan_fields) { /* raw trace: the start row */
		region *r = s->r[region_for(s, op->key, op->key_len)];
		count(s, r, bucket_for(s, op->key, op->key_len), true);
		s->res->scan_requests++;
		return;
	}
	for (size_t i = 0; i < w->nscan_fields; i++) {
		const sbx_keyvalue *v = find_field(op, w->scan_fields[i]);
		if (!v) {
			full_scan(s);
			return;
		}
		s->conds[i].name = v->name;
		s->conds[i].op = SBX_KEYCOND_EQ;
		s->conds[i].value = v->value;
		s->conds[i].value_len = v->value_len;
	}
	sbx_keyplan *plan;
	if (sbx_keydesign_plan(&plan, s->d, s->conds, w->nscan_fields)) {
		full_scan(s);
		return;
	}
	for (size_t i = 0; i < plan->count; i++) {
		const sbx_keyrange *g = &plan->ranges[i];
		region *r = s->r[region_for(s, g->start, g->start_len)];
		count(s, r, bucket_for(s, g->start, g->start_len), true);
		s->res->scan_requests++;
	}
	sbx_keyplan_free(plan);
}

/* The shared balancer (placement.h) over the load of the last period. */
static int balance(sim *s)
{
	if (!s->nlive) {
		for (size_t i = 0; i < s->n; i++)
			s->r[i]->window = 0;
		return SBX_OK;
	}
	placement_region *pr = sbx_malloc((s->n ? s->n : 1) * sizeof *pr);
	/* the balancer sees the live servers only, numbered 0..nlive-1 */
	int *live = sbx_malloc((size_t)s->S * sizeof *live);
	int *index = sbx_malloc((size_t)s->S * sizeof *index);
	int *counts = sbx_malloc((size_t)s->S * sizeof *counts);
	if (!pr || !live || !index || !counts) {
		free(pr);
		free(live);
		free(index);
		free(counts);
		return SBX_ENOMEM_SET();
	}
	int nl = 0;
	for (int v = 0; v < s->S; v++) {
		index[v] = -1;
		if (!s->dead[v]) {
			index[v] = nl;
			counts[nl] = s->nregions[v];
			live[nl++] = v;
		}
	}
	for (size_t i = 0; i < s->n; i++)
		pr[i] = (placement_region){index[s->r[i]->server],
					   s->r[i]->window};
	s->res->moves += placement_balance(pr, s->n, counts, nl, s->window);
	for (size_t i = 0; i < s->n; i++) {
		s->r[i]->server = live[pr[i].server];
		s->r[i]->window = 0;
	}
	for (int v = 0; v < s->S; v++)
		s->nregions[v] = index[v] < 0 ? 0 : counts[index[v]];
	free(pr);
	free(live);
	free(index);
	free(counts);
	return SBX_OK;
}

/* Server v goes down at bucket t: its regions go, in key order, each to
 * the live server with the fewest regions (lowest number on a tie), as
 * HBase's crash recovery assigns a dead server's regions round-robin. */
static int server_down(sim *s, int v, int t)
{
	sbx_keyviz_result *res = s->res;
	int *fs = sbx_realloc(res->failed_server,
			      (size_t)(res->nfailed + 1) * sizeof *fs);
	if (!fs)
		return SBX_ENOMEM_SET();
	res->failed_server = fs;
	int *fa = sbx_realloc(res->failed_at,
			      (size_t)(res->nfailed + 1) * sizeof *fa);
	if (!fa)
		return SBX_ENOMEM_SET();
	res->failed_at = fa;
	fs[res->nfailed] = v;
	fa[res->nfailed++] = t;
	s->dead[v] = true;
	s->nlive--;
	if (!s->nlive)
		return SBX_OK; /* nowhere to go: the cluster is down */
	for (size_t i = 0; i < s->n; i++) {
		region *r = s->r[i];
		if (r->server != v)
			continue;
		int to = -1;
		for (int u = 0; u < s->S; u++)
			if (!s->dead[u] &&
			    (to < 0 || s->nregions[u] < s->nregions[to]))
				to = u;
		r->server = to;
		s->nregions[v]--;
		s->nregions[to]++;
		res->moves++;
	}
	return SBX_OK;
}

/* The domino effect, at the start of bucket t (prev: the bucket before):
 * first the busiest server of prev goes down (sbx_keyviz_opts.fail_at);
 * after that every live server over its capacity in prev does. */
static int dominoes(sim *s, int prev, int t)
{
	const sbx_keyviz_opts *o = s->o;
	sbx_keyviz_result *res = s->res;
	if (o->fail_at <= 0 || t < o->fail_at || !s->nlive)
		return SBX_OK;
	const uint64_t *load = &res->server_load[(size_t)prev * s->S];
	if (!res->nfailed) {
		uint64_t sum = 0;
		int busiest = -1;
		for (int v = 0; v < s->S; v++) {
			sum += load[v];
			if (!s->dead[v] && (busiest < 0 || load[v] > load[busiest]))
				busiest = v;
		}
		double headroom = o->fail_headroom > 0 ? o->fail_headroom : 2.0;
		res->fail_capacity =
		    (uint64_t)(headroom * (double)sum / (double)s->S);
		return server_down(s, busiest, t);
	}
	for (int v = 0; v < s->S; v++) {
		if (s->dead[v] || load[v] <= res->fail_capacity)
			continue;
		int rc = server_down(s, v, t);
		if (rc)
			return rc;
	}
	return SBX_OK;
}

static int buf_qsort_cmp(const void *a, const void *b)
{
	const sbx_buf *x = a, *y = b;
	return sbx_bytes_cmp(x->data, x->len, y->data, y->len);
}

/* Equal-count key buckets from a sample of the keys the table will hold:
 * records spread evenly over the run for workloads, lines for traces. */
static int make_bounds(sim *s)
{
	sbx_workload_iter *it;
	int rc = sbx_workload_iter_new(&it, s->w, s->d);
	if (rc)
		return rc;
	const sbx_workload *w = s->w;
	uint64_t total = w->is_trace ? w->ops : kv_iter_expected_records(it);
	size_t n = total < BOUNDS_SAMPLE ? (size_t)total : BOUNDS_SAMPLE;
	sbx_buf *keys = sbx_calloc(n ? n : 1, sizeof *keys);
	size_t got = 0;
	if (!keys)
		rc = SBX_ENOMEM_SET();
	bool puts_only = false;
	if (w->is_trace)
		for (uint64_t i = 0; i < w->ops && !puts_only; i++)
			puts_only = w->trace[i].kind == SBX_OP_PUT;
	for (size_t j = 0; j < n && !rc; j++) {
		uint64_t k = (uint64_t)(((double)j + 0.5) * (double)total /
					(double)n);
		const uint8_t *key;
		size_t len;
		if (w->is_trace) {
			if (puts_only && w->trace[k].kind != SBX_OP_PUT)
				continue;
			sbx_workload_op op;
			kv_iter_seek(it, k);
			rc = sbx_workload_iter_next(it, &op);
			key = op.key;
			len = op.key_len;
		} else {
			rc = kv_record_key(it, k, &key, &len);
		}
		if (!rc)
			rc = sbx_buf_set(&keys[got++], key, len);
	}
	sbx_workload_iter_free(it);
	if (!rc && got)
		qsort(keys, got, sizeof *keys, buf_qsort_cmp);
	int B = s->o->key_buckets > 0 ? s->o->key_buckets : 64;
	if (!rc) {
		s->bounds = sbx_calloc((size_t)B + 1, sizeof *s->bounds);
		if (!s->bounds)
			rc = SBX_ENOMEM_SET();
	}
	for (int b = 1; b < B && !rc && got; b++) {
		const sbx_buf *k = &keys[(size_t)b * got / (size_t)B];
		const sbx_buf *prev = s->nbounds ? &s->bounds[s->nbounds - 1]
						 : &keys[0];
		if (buf_qsort_cmp(k, prev) <= 0)
			continue; /* too few distinct keys: fewer buckets */
		rc = sbx_buf_set(&s->bounds[s->nbounds++], k->data, k->len);
	}
	s->B = (int)s->nbounds + 1;
	sbx_keyviz_result *res = s->res;
	if (!rc) {
		res->key_buckets = s->B;
		res->labels = sbx_calloc((size_t)s->B, sizeof *res->labels);
		res->bucket_starts =
		    sbx_calloc((size_t)s->B, sizeof *res->bucket_starts);
		res->heat = sbx_calloc((size_t)s->B * s->T, sizeof *res->heat);
		if (!res->labels || !res->bucket_starts || !res->heat)
			rc = SBX_ENOMEM_SET();
	}
	/* labels: whole design fields, else escaped bytes of one width */
	sbx_bytes *st = rc ? NULL : sbx_calloc((size_t)s->B, sizeof *st);
	if (!rc && !st)
		rc = SBX_ENOMEM_SET();
	for (int b = 0; b < s->B && !rc; b++) {
		const sbx_buf *k = b ? &s->bounds[b - 1] : got ? &keys[0] : NULL;
		st[b] = k ? (sbx_bytes){k->data, k->len} : (sbx_bytes){NULL, 0};
		sbx_buf full = {0};
		rc = sbx_key_to_binary_string(&full, st[b].data, st[b].len);
		if (!rc)
			rc = sbx_buf_push(&full, 0);
		res->bucket_starts[b] = (char *)full.data;
		if (rc)
			sbx_buf_free(&full), res->bucket_starts[b] = NULL;
	}
	char **labels = NULL;
	if (!rc)
		rc = sbx_key_labels(&labels, st, (size_t)s->B, s->d);
	for (int b = 0; b < s->B && !rc; b++) {
		res->labels[b] = labels[b];
		labels[b] = NULL;
	}
	sbx_labels_free(labels, labels ? (size_t)s->B : 0);
	free(st);
	for (size_t i = 0; i < n; i++)
		sbx_buf_free(&keys[i]);
	free(keys);
	return rc;
}

/* The trace's layout event b: a boundary appears (a split: the right
 * daughter stays on its parent's server, with the parent's sampled keys
 * above the boundary) or goes (a merge into the region before).
 * `server` >= 0 places a new region there instead (the layout at the
 * start). A boundary already there, or a merge of none, changes nothing. */
static int apply_bound(sim *s, const kv_trace_bound *b, int server)
{
	const uint8_t *key = s->w->arena.data + b->off;
	size_t idx = region_for(s, key, b->len);
	region *r = s->r[idx];
	bool at = sbx_bytes_cmp(r->start.data, r->start.len, key, b->len) == 0;
	if (b->merge) {
		if (!at || idx == 0)
			return SBX_OK;
		region *left = s->r[idx - 1];
		left->size += r->size;
		left->seen += r->seen;
		s->nregions[r->server]--;
		region_free(r);
		memmove(&s->r[idx], &s->r[idx + 1],
			(s->n - idx - 1) * sizeof *s->r);
		s->n--;
		s->res->layout_merges++;
		return SBX_OK;
	}
	if (at)
		return SBX_OK;
	region *right = region_new(s, key, b->len,
				   server >= 0 ? server : r->server);
	if (!right)
		return SBX_ENOMEM_SET();
	int left_n = 0;
	while (left_n < r->nsample &&
	       sbx_bytes_cmp(r->sample[left_n].data, r->sample[left_n].len, key,
			     b->len) < 0)
		left_n++;
	int right_n = r->nsample - left_n;
	for (int i = 0; i < right_n; i++) {
		right->sample[i] = r->sample[left_n + i];
		memset(&r->sample[left_n + i], 0, sizeof(sbx_buf));
	}
	right->nsample = right_n;
	if (r->nsample) {
		double frac = (double)right_n / r->nsample;
		right->size = (uint64_t)((double)r->size * frac);
		right->seen = (uint64_t)((double)r->seen * frac);
		r->size -= right->size;
		r->seen -= right->seen;
	}
	r->nsample = left_n;
	int rc = insert_region(s, idx + 1, right);
	if (rc) {
		region_free(right);
		return rc;
	}
	if (server >= 0)
		s->res->layout_bounds++;
	else
		s->res->layout_splits++;
	return SBX_OK;
}

static int presplit(sim *s)
{
	const sbx_keyviz_opts *o = s->o;
	sbx_split_keys algo = {0};
	sbx_keyplan *plan = NULL;
	const sbx_bytes *keys = NULL;
	sbx_bytes *owned = NULL;
	size_t n = 0;
	int rc = SBX_OK;
	switch (o->presplit) {
	case SBX_PRESPLIT_NONE:
		return SBX_OK;
	case SBX_PRESPLIT_TRACE: {
		/* the layout at the start, round-robin as a pre-split
		 * table's regions are assigned */
		const sbx_workload *w = s->w;
		while (!rc && s->next_bound < w->nbounds &&
		       w->bounds[s->next_bound].at == 0) {
			rc = apply_bound(s, &w->bounds[s->next_bound],
					 (int)(s->n % (size_t)s->S));
			s->next_bound++;
		}
		return rc;
	}
	case SBX_PRESPLIT_KEYS:
		keys = o->split_keys;
		n = o->nsplit_keys;
		break;
	case SBX_PRESPLIT_ALGO:
		if ((rc = sbx_split_keys_compute(&algo, o->algo,
						 o->presplit_regions)))
			return rc;
		keys = algo.keys;
		n = algo.n;
		break;
	case SBX_PRESPLIT_SALT:
		if (!s->d || sbx_keydesign_buckets(s->d) < 2)
			return sbx_error_set(SBX_EINVAL,
				"presplit salt: design '%s' has no salt buckets",
				s->d ? sbx_keydesign_name(s->d) : "raw");
		if ((rc = sbx_keydesign_plan(&plan, s->d, NULL, 0)))
			return rc;
		owned = sbx_calloc(plan->count, sizeof *owned);
		if (!owned) {
			sbx_keyplan_free(plan);
			return SBX_ENOMEM_SET();
		}
		for (size_t i = 1; i < plan->count; i++) {
			owned[n].data = plan->ranges[i].start;
			owned[n].len = plan->ranges[i].start_len;
			if (owned[n].len)
				n++;
		}
		keys = owned;
		break;
	}
	for (size_t i = 0; i < n && !rc; i++) {
		if (!keys[i].len || (i && sbx_bytes_cmp(keys[i - 1].data,
						  keys[i - 1].len, keys[i].data,
						  keys[i].len) >= 0)) {
			rc = sbx_error_set(SBX_EINVAL, "split keys must be "
						       "non-empty, sorted and "
						       "distinct");
			break;
		}
		/* new regions go round-robin, as a pre-split table's
		 * assignment by the balancer */
		region *r = region_new(s, keys[i].data, keys[i].len,
				       (int)((i + 1) % (size_t)s->S));
		if (!r)
			rc = SBX_ENOMEM_SET();
		else if ((rc = insert_region(s, s->n, r)))
			region_free(r);
	}
	sbx_split_keys_free(&algo);
	free(owned);
	sbx_keyplan_free(plan);
	return rc;
}

static void scores(sbx_keyviz_result *res, const uint64_t *vload)
{
	int S = res->servers;
	uint64_t *tot = sbx_calloc((size_t)S, sizeof *tot);
	uint64_t all = 0;
	for (int t = 0; tot && t < res->time_buckets; t++)
		for (int s = 0; s < S; s++)
			tot[s] += res->server_load[(size_t)t * S + s];
	/* the verdict's score: per slice of the run, not per display column */
	sbx_hotspot h;
	sbx_hotspot_compute(&h, vload, PERIODS, S);
	res->score = h.score;
	res->busiest_share = h.busiest_share;
	uint64_t mx = 0;
	for (int s = 0; tot && s < S; s++) {
		all += tot[s];
		if (tot[s] > mx)
			mx = tot[s];
	}
	res->total_score = all ? (double)mx / ((double)all / S) : 0;
	res->total_share = all ? (double)mx / (double)all : 0;
	free(tot);
	res->heat_max = 0;
	for (size_t i = 0; i < (size_t)res->key_buckets * res->time_buckets; i++)
		if (res->heat[i] > res->heat_max)
			res->heat_max = res->heat[i];
}

static char *dupstr(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = sbx_malloc(n);
	if (d)
		memcpy(d, s, n);
	return d;
}

static int export_regions(sim *s)
{
	sbx_keyviz_result *res = s->res;
	res->regions = sbx_calloc(s->n, sizeof *res->regions);
	if (!res->regions)
		return SBX_ENOMEM_SET();
	res->nregions = s->n;
	for (size_t i = 0; i < s->n; i++) {
		region *r = s->r[i];
		sbx_keyviz_region *x = &res->regions[i];
		x->start = r->start.data;
		x->start_len = r->start.len;
		r->start = (sbx_buf){0};
		if (i + 1 < s->n) {
			const sbx_buf *e = &s->r[i + 1]->start;
			x->end = sbx_malloc(e->len ? e->len : 1);
			if (!x->end)
				return SBX_ENOMEM_SET();
			memcpy(x->end, e->data, e->len);
			x->end_len = e->len;
		}
		x->server = r->server;
		x->size_bytes = r->size;
		x->reads = r->reads;
		x->writes = r->writes;
		x->born = r->born;
		x->load = r->load;
		r->load = NULL;
		x->served_by = r->served_by;
		r->served_by = NULL;
	}
	return SBX_OK;
}

static int run(sim *s)
{
	const sbx_workload *w = s->w;
	sbx_keyviz_result *res = s->res;
	sbx_workload_iter *it;
	int rc = sbx_workload_iter_new(&it, w, s->d);
	if (rc)
		return rc;
	uint64_t ops = w->ops, key_bytes = 0;
	int last_balance = 0;
	sbx_workload_op op;
	bool layout = s->o->presplit == SBX_PRESPLIT_TRACE;
	while ((rc = sbx_workload_iter_next(it, &op)) == SBX_OK) {
		int t = (int)(op.index * (uint64_t)s->T / ops);
		if (t != s->t) {
			int prev = s->t;
			s->t = t;
			if ((rc = dominoes(s, prev, t)))
				break;
		}
		int p = (int)(op.index * (uint64_t)PERIODS / ops);
		if (p != s->period) {
			s->period = p;
			if (p - last_balance >= s->o->balance_every) {
				if ((rc = balance(s)))
					break;
				last_balance = p;
			}
		}
		while (layout && s->next_bound < w->nbounds &&
		       w->bounds[s->next_bound].at <= op.index && !rc)
			rc = apply_bound(s, &w->bounds[s->next_bound++], -1);
		if (rc)
			break;
		if (op.index == 0)
			res->start_ms = op.time_ms;
		key_bytes += op.key_len;
		switch (op.kind) {
		case SBX_OP_PUT:
			res->puts++;
			rc = do_put(s, &op);
			break;
		case SBX_OP_GET: {
			res->gets++;
			region *r = s->r[region_for(s, op.key, op.key_len)];
			count(s, r, bucket_for(s, op.key, op.key_len), true);
			break;
		}
		case SBX_OP_SCAN:
			res->scans++;
			do_scan(s, &op);
			break;
		}
		if (rc)
			break;
		res->ops++;
		if (s->o->progress && res->ops % PROGRESS_EVERY == 0)
			s->o->progress(s->o->progress_ctx, res->ops, ops);
	}
	sbx_workload_iter_free(it);
	if (rc != SBX_ITEROVER)
		return rc;
	if (s->o->progress)
		s->o->progress(s->o->progress_ctx, res->ops, ops);
	res->avg_key_bytes = res->ops ? (double)key_bytes / res->ops : 0;
	double span_ms = (double)ops * 1000.0 / w->rate;
	res->bucket_ms = (int64_t)ceil(span_ms / s->T);
	return SBX_OK;
}

int sbx_keyviz_simulate(sbx_keyviz_result **out, const sbx_workload *w,
			const sbx_keydesign *design, const sbx_keyviz_opts *opts)
{
	*out = NULL;
	sbx_keyviz_opts def;
	if (!opts) {
		sbx_keyviz_opts_init(&def);
		sbx_workload_cluster_opts(w, &def);
		opts = &def;
	}
	if (opts->servers < 1 || opts->servers > 1024 ||
	    opts->time_buckets < 1 || opts->time_buckets > 10000 ||
	    opts->key_buckets < 1 || opts->key_buckets > 10000 ||
	    opts->balance_every < 1)
		return sbx_error_set(SBX_EINVAL, "servers must be 1..1024 and "
						 "time/key buckets 1..10000");
	if (!design && !w->is_trace)
		return sbx_error_set(SBX_EINVAL, "a generated workload needs a "
						 "key design");
	if (opts->presplit == SBX_PRESPLIT_TRACE && !w->nbounds)
		return sbx_error_set(SBX_EINVAL, "presplit trace: the input "
				     "records no region layout (record it "
				     "with `saltbox serve --trace`)");
	if (opts->fail_at < 0 || opts->fail_at >= opts->time_buckets)
		return sbx_error_set(SBX_EINVAL, "fail_at must be a time "
				     "bucket 1..%d (0: no failure)",
				     opts->time_buckets - 1);
	sim s = {.o = opts, .w = w, .d = design, .S = opts->servers,
		 .T = opts->time_buckets};
	s.rng = kv_mix64(w->seed ^ 0x73696dull);
	sbx_keyviz_result *res = sbx_calloc(1, sizeof *res);
	s.res = res;
	s.nregions = sbx_calloc((size_t)s.S, sizeof *s.nregions);
	s.window = sbx_calloc((size_t)s.S, sizeof *s.window);
	s.conds = sbx_calloc(w->nscan_fields + 1, sizeof *s.conds);
	s.vload = sbx_calloc((size_t)s.S * PERIODS, sizeof *s.vload);
	s.dead = sbx_calloc((size_t)s.S, sizeof *s.dead);
	s.nlive = s.S;
	int rc = SBX_OK;
	if (!res || !s.nregions || !s.window || !s.conds || !s.vload ||
	    !s.dead)
		rc = SBX_ENOMEM_SET();
	if (!rc) {
		res->servers = s.S;
		res->time_buckets = s.T;
		res->design = dupstr(design ? sbx_keydesign_name(design) : "raw");
		res->design_text = dupstr(design ? sbx_keydesign_text(design)
						 : "");
		res->workload = dupstr(w->name);
		res->server_load =
		    sbx_calloc((size_t)s.S * s.T, sizeof *res->server_load);
		if (!res->design || !res->design_text || !res->workload ||
		    !res->server_load)
			rc = SBX_ENOMEM_SET();
	}
	if (!rc)
		rc = make_bounds(&s);
	if (!rc) {
		region *first = region_new(&s, NULL, 0, 0);
		if (!first)
			rc = SBX_ENOMEM_SET();
		else if ((rc = insert_region(&s, 0, first)))
			region_free(first);
	}
	if (!rc)
		rc = presplit(&s);
	if (!rc)
		rc = run(&s);
	if (!rc)
		rc = export_regions(&s);
	if (!rc)
		scores(res, s.vload);
	for (size_t i = 0; i < s.n; i++)
		region_free(s.r[i]);
	free(s.r);
	for (size_t i = 0; i < s.nbounds; i++)
		sbx_buf_free(&s.bounds[i]);
	free(s.bounds);
	free(s.nregions);
	free(s.window);
	free(s.conds);
	free(s.vload);
	free(s.dead);
	if (rc) {
		sbx_keyviz_result_free(res);
		return rc;
	}
	*out = res;
	return SBX_OK;
}

void sbx_keyviz_result_free(sbx_keyviz_result *r)
{
	if (!r)
		return;
	free(r->design);
	free(r->design_text);
	free(r->workload);
	free(r->server_load);
	free(r->heat);
	for (int i = 0; r->labels && i < r->key_buckets; i++)
		free(r->labels[i]);
	free(r->labels);
	for (int i = 0; r->bucket_starts && i < r->key_buckets; i++)
		free(r->bucket_starts[i]);
	free(r->bucket_starts);
	for (size_t i = 0; i < r->nregions; i++) {
		free(r->regions[i].start);
		free(r->regions[i].end);
		free(r->regions[i].load);
		free(r->regions[i].served_by);
	}
	free(r->failed_server);
	free(r->failed_at);
	free(r->regions);
	free(r);
}
