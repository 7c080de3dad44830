/*
 * hotspot.c - the one hotspot verdict (score, busiest share, level, words
 * and colour) that every view of load computes the same way, and the
 * labels of key buckets (whole key-design fields, or escaped bytes of one
 * fixed width). Formula: docs/hotspots.md "The hotspot verdict".
 */
#include "saltbox/hotspot.h"

#include "common/alloc.h"
#include "common/buf.h"
#include "common/error.h"

#include <stdbool.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

double sbx_hotspot_hot_score(int servers)
{
	if (servers < 2)
		return 0; /* never hot: nothing to spread over */
	double h = (servers + 1) / 2.0;
	return h < 2 ? h : 2;
}

int sbx_hotspot_compute(sbx_hotspot *out, const uint64_t *load,
			size_t intervals, int servers)
{
	memset(out, 0, sizeof *out);
	out->level = SBX_HOTSPOT_IDLE;
	out->word = "idle";
	out->color = "#757575";
	out->busiest_server = -1;
	out->servers = servers;
	if (servers < 1 || (!load && intervals))
		return sbx_error_set(SBX_EINVAL, "hotspot verdict: servers "
						 "must be >= 1 and load given");
	out->intervals = intervals;
	uint64_t *cur = sbx_calloc((size_t)servers * 2, sizeof *cur);
	if (!cur)
		return SBX_ENOMEM_SET();
	uint64_t *prev = cur + servers; /* the last closed group */
	uint64_t busiest_sum = 0, best = 0, cur_sum = 0, prev_max = 0;
	uint64_t min_group = SBX_HOTSPOT_MIN_GROUP * (uint64_t)servers;
	bool have_prev = false;
	/* intervals, in order, merged into groups of at least min_group
	 * requests: with fewer, an interval's busiest server is busy by
	 * chance (one request at a time is not a hotspot) */
	for (size_t t = 0; t < intervals; t++) {
		for (int s = 0; s < servers; s++) {
			uint64_t v = load[t * (size_t)servers + (size_t)s];
			cur[s] += v;
			cur_sum += v;
			out->total += v;
		}
		if (cur_sum < min_group)
			continue;
		uint64_t mx = 0;
		for (int s = 0; s < servers; s++)
			mx = cur[s] > mx ? cur[s] : mx;
		busiest_sum += mx;
		memcpy(prev, cur, (size_t)servers * sizeof *cur);
		memset(cur, 0, (size_t)servers * sizeof *cur);
		prev_max = mx;
		have_prev = true;
		cur_sum = 0;
	}
	if (cur_sum) { /* a short last group joins the one before it */
		uint64_t mx = 0;
		if (have_prev)
			busiest_sum -= prev_max;
		for (int s = 0; s < servers; s++) {
			uint64_t v = cur[s] + (have_prev ? prev[s] : 0);
			mx = v > mx ? v : mx;
		}
		busiest_sum += mx;
	}
	free(cur);
	if (!out->total)
		return SBX_OK;
	for (int s = 0; s < servers; s++) {
		uint64_t v = 0;
		for (size_t t = 0; t < intervals; t++)
			v += load[t * (size_t)servers + (size_t)s];
		if (v > best) {
			best = v;
			out->busiest_server = s;
		}
	}
	out->busiest_server_share = (double)best / (double)out->total;
	out->busiest_share = (double)busiest_sum / (double)out->total;
	out->score = out->busiest_share * servers;
	sbx_hotspot_classify(out);
	return SBX_OK;
}

int sbx_hotspot_text(sbx_buf *out, const sbx_hotspot *h,
		     const char *server_prefix)
{
	const char *p = server_prefix ? server_prefix : "server ";
	size_t mark = out->len;
	int rc;
	if (h->level == SBX_HOTSPOT_IDLE)
		rc = sbx_buf_printf(out, "idle: no load");
	else if (h->servers < 2)
		rc = sbx_buf_printf(out, "even: one server, nothing to spread "
					 "the load over");
	else {
		rc = sbx_buf_printf(out,
				    "%s: %s%d served %.0f%% of the load; "
				    "hotspot score %.2f of %d (1 = even, hot "
				    "from %.2f)",
				    h->word, p, h->busiest_server,
				    100 * h->busiest_server_share, h->score,
				    h->servers,
				    sbx_hotspot_hot_score(h->servers));
	}
	if (rc)
		out->len = mark;
	return rc;
}

/* ---- labels -------------------------------------------------------------- */

enum { LABEL_BYTES_MAX = 12 };

void sbx_labels_free(char **labels, size_t n)
{
	for (size_t i = 0; labels && i < n; i++)
		free(labels[i]);
	free(labels);
}

static size_t lcp(const sbx_bytes *a, const sbx_bytes *b)
{
	const uint8_t *x = a->data, *y = b->data;
	size_t n = a->len < b->len ? a->len : b->len, i = 0;
	while (i < n && x[i] == y[i])
		i++;
	return i;
}

static char *finish(sbx_buf *t)
{
	if (sbx_buf_push(t, 0)) {
		sbx_buf_free(t);
		return NULL;
	}
	return (char *)t->data;
}

/* First field where two records differ (count when equal). */
static size_t first_diff(const sbx_keyrecord *a, const sbx_keyrecord *b)
{
	size_t n = sbx_keyrecord_count(a), m = sbx_keyrecord_count(b), i = 0;
	for (; i < n && i < m; i++) {
		size_t la = sbx_keyrecord_value_len(a, i),
		       lb = sbx_keyrecord_value_len(b, i);
		if (la != lb || memcmp(sbx_keyrecord_value(a, i),
				       sbx_keyrecord_value(b, i), la))
			return i;
	}
	return i;
}

static int design_labels(char **out, const sbx_bytes *keys, size_t n,
			 const sbx_keydesign *d)
{
	sbx_keyrecord **rec = sbx_calloc(n ? n : 1, sizeof *rec);
	if (!rec)
		return SBX_ENOMEM_SET();
	int rc = SBX_OK;
	bool ok = true;
	for (size_t i = 0; i < n && ok; i++)
		if (keys[i].len &&
		    sbx_keydesign_decode(&rec[i], d, keys[i].data, keys[i].len))
			ok = false;
	for (size_t i = 0; i < n && ok && !rc; i++) {
		sbx_buf t = {0};
		if (!keys[i].len) {
			rc = sbx_buf_printf(&t, "(start)");
		} else {
			size_t need = 0, cnt = sbx_keyrecord_count(rec[i]);
			if (i > 0 && rec[i - 1]) {
				size_t f = first_diff(rec[i - 1], rec[i]);
				need = f > need ? f : need;
			}
			if (i + 1 < n && rec[i + 1]) {
				size_t f = first_diff(rec[i], rec[i + 1]);
				need = f > need ? f : need;
			}
			if (need >= cnt)
				need = cnt ? cnt - 1 : 0;
			for (size_t f = 0; f <= need && f < cnt && !rc; f++) {
				if (f)
					rc = sbx_buf_push(&t, ':');
				sbx_buf v = {0};
				rc = rc ? rc
					: sbx_key_to_binary_string(
					      &v,
					      (const uint8_t *)
						  sbx_keyrecord_value(rec[i], f),
					      sbx_keyrecord_value_len(rec[i], f));
				rc = rc ? rc : sbx_buf_append(&t, v.data, v.len);
				sbx_buf_free(&v);
			}
		}
		out[i] = rc ? NULL : finish(&t);
		if (!rc && !out[i])
			rc = SBX_ENOMEM_SET();
		if (rc)
			sbx_buf_free(&t);
	}
	for (size_t i = 0; i < n; i++)
		sbx_keyrecord_free(rec[i]);
	free(rec);
	if (!rc && !ok)
		return SBX_EINVAL; /* fall back to bytes */
	return rc;
}

int sbx_key_labels(char ***out, const sbx_bytes *keys, size_t n,
		   const sbx_keydesign *design)
{
	*out = NULL;
	char **l = sbx_calloc(n ? n : 1, sizeof *l);
	if (!l)
		return SBX_ENOMEM_SET();
	int rc = design ? design_labels(l, keys, n, design) : SBX_EINVAL;
	if (rc == SBX_ENOMEM) {
		sbx_labels_free(l, n);
		return rc;
	}
	if (rc == SBX_OK) {
		*out = l;
		return SBX_OK;
	}
	for (size_t i = 0; i < n; i++) {
		free(l[i]);
		l[i] = NULL;
	}
	/* one width for every label: the longest distinguishing prefix */
	size_t w = 1;
	for (size_t i = 0; i + 1 < n; i++) {
		size_t p = lcp(&keys[i], &keys[i + 1]) + 1;
		if (p > w)
			w = p;
	}
	if (w > LABEL_BYTES_MAX)
		w = LABEL_BYTES_MAX;
	rc = SBX_OK;
	for (size_t i = 0; i < n && !rc; i++) {
		sbx_buf t = {0};
		if (!keys[i].len)
			rc = sbx_buf_printf(&t, "(start)");
		else
			rc = sbx_key_to_binary_string(
			    &t, keys[i].data, keys[i].len < w ? keys[i].len : w);
		l[i] = rc ? NULL : finish(&t);
		if (!rc && !l[i])
			rc = SBX_ENOMEM_SET();
		if (rc)
			sbx_buf_free(&t);
	}
	if (rc) {
		sbx_labels_free(l, n);
		return rc;
	}
	*out = l;
	return SBX_OK;
}

void sbx_hotspot_classify(sbx_hotspot *h)
{
	double hot = sbx_hotspot_hot_score(h->servers);
	if (!h->total || !(h->score > 0)) {
		h->level = SBX_HOTSPOT_IDLE;
		h->word = "idle";
		h->color = "#757575";
	} else if (h->servers >= 2 && h->score >= hot - 1e-9) {
		h->level = SBX_HOTSPOT_HOT;
		h->word = "hot";
		h->color = "#d32f2f";
	} else if (h->servers >= 2 && h->score >= 1 + (hot - 1) / 2 - 1e-9) {
		h->level = SBX_HOTSPOT_UNEVEN;
		h->word = "uneven";
		h->color = "#ef6c00";
	} else {
		h->level = SBX_HOTSPOT_EVEN;
		h->word = "even";
		h->color = "#2e7d32";
	}
}
