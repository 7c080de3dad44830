/*
 * render.c - drawing a simulation: the Key Visualizer-style heatmap as SVG
 * (time across, equal-count key buckets down, brightness = requests over
 * the maximum), a per-server strip under it, a self-contained HTML page for
 * one or several designs, and the result as JSON and back.
 */
#include "keyviz_int.h"

#include "common/alloc.h"
#include "common/buf.h"
#include "common/bytes.h"
#include "common/error.h"
#include "saltbox/hotspot.h"

#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* XML-escaped text. */
static int esc(sbx_buf *b, const char *s)
{
	int rc = SBX_OK;
	for (; *s && !rc; s++) {
		switch (*s) {
		case '&': rc = sbx_buf_append(b, "&amp;", 5); break;
		case '<': rc = sbx_buf_append(b, "&lt;", 4); break;
		case '>': rc = sbx_buf_append(b, "&gt;", 4); break;
		case '"': rc = sbx_buf_append(b, "&quot;", 6); break;
		case '\'': rc = sbx_buf_append(b, "&#39;", 5); break;
		default:
			if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
				rc = sbx_buf_printf(b, "\\x%02X", (unsigned char)*s);
			else
				rc = sbx_buf_push(b, (uint8_t)*s);
		}
	}
	return rc;
}

/* Dark to bright, as Key Visualizer: black, blue, purple, red, orange,
 * yellow, white. */
static void color(double v, char out[8])
{
	static const double stops[][3] = {
		{0, 0, 0},       {20, 20, 90},   {110, 30, 140}, {200, 40, 60},
		{240, 120, 20},  {250, 220, 40}, {255, 255, 255},
	};
	const int n = (int)(sizeof stops / sizeof *stops) - 1;
	if (!(v > 0))
		v = 0;
	if (v > 1)
		v = 1;
	double x = v * n;
	int i = (int)x;
	if (i >= n)
		i = n - 1;
	double f = x - i;
	int c[3];
	for (int k = 0; k < 3; k++)
		c[k] = (int)lround(stops[i][k] + (stops[i + 1][k] - stops[i][k]) * f);
	snprintf(out, 8, "#%02x%02x%02x", c[0], c[1], c[2]);
}

static void fmt_clock(char *out, size_t cap, int64_t ms)
{
	int64_t s = ms / 1000;
	if (s >= 3600)
		snprintf(out, cap, "%lldh%02lldm", (long long)(s / 3600),
			 (long long)(s / 60 % 60));
	else
		snprintf(out, cap, "%lldm%02llds", (long long)(s / 60),
			 (long long)(s % 60));
}

/* A column width in words: "1 s", "10 s", "2 min", "250 ms". */
static void fmt_span(char *out, size_t cap, int64_t ms)
{
	if (ms >= 60000 && ms % 60000 == 0)
		snprintf(out, cap, "%lld min", (long long)(ms / 60000));
	else if (ms >= 1000 && ms % 1000 == 0)
		snprintf(out, cap, "%lld s", (long long)(ms / 1000));
	else if (ms >= 1000)
		snprintf(out, cap, "%.1f s", (double)ms / 1000);
	else
		snprintf(out, cap, "%lld ms", (long long)ms);
}

/* Bytes in words (B, KiB, MiB, GiB). */
static void fmt_bytes(char *out, size_t cap, double v)
{
	static const char *const u[] = {"B", "KiB", "MiB", "GiB", "TiB"};
	int i = 0;
	while (v >= 1024 && i < 4) {
		v /= 1024;
		i++;
	}
	if (i)
		snprintf(out, cap, "%.1f %s", v, u[i]);
	else
		snprintf(out, cap, "%.0f B", v);
}

enum { TOP = 62, PLOT_W = 720, RIGHT = 90, LABEL_CHAR_W = 6 };

int sbx_heatgrid_svg(sbx_buf *b, const sbx_heatgrid *g, const char *id)
{
	size_t mark = b->len;
	int T = (int)(g->cols ? g->cols : 1), K = (int)(g->rows ? g->rows : 1);
	int S = g->server_load ? g->servers : 0;
	/* the label column is as wide as the longest label, and the key-axis
	 * title runs vertically left of it: they never overlap */
	size_t maxlab = 4;
	for (size_t k = 0; k < g->rows; k++)
		if (g->labels && g->labels[k] && strlen(g->labels[k]) > maxlab)
			maxlab = strlen(g->labels[k]);
	int LEFT = 34 + (int)maxlab * LABEL_CHAR_W;
	if (LEFT < 120)
		LEFT = 120;
	double cw = (double)PLOT_W / T;
	double ch = K >= 96 ? 4 : K >= 48 ? 7 : 480.0 / K > 24 ? 24 : 480.0 / K;
	double plot_h = ch * K;
	double sh = 12; /* server strip row height */
	double strip_y = TOP + plot_h + 62;
	double H = (S ? strip_y + sh * S + 30 : TOP + plot_h + 58);
	double W = LEFT + PLOT_W + RIGHT;
	double mx = 0;
	for (size_t i = 0; i < g->rows * g->cols; i++)
		if (g->values[i] > mx)
			mx = g->values[i];
	int rc = sbx_buf_printf(b, "<svg xmlns=\"http://www.w3.org/2000/svg\" "
				   "id=\"%s\" class=\"heatgrid\" width=\"%.0f\" "
				   "height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
				   "font-family=\"sans-serif\" font-size=\"10\">\n"
				   "<rect width=\"%.0f\" height=\"%.0f\" "
				   "fill=\"#ffffff\"/>\n",
				id, W, H, W, H, W, H);
	if (g->title) {
		rc = rc ? rc : sbx_buf_printf(b, "<text x=\"%d\" y=\"16\" "
						 "font-size=\"14\" "
						 "font-weight=\"bold\">",
					      LEFT);
		rc = rc ? rc : esc(b, g->title);
		rc = rc ? rc : sbx_buf_printf(b, "</text>\n");
	}
	if (g->verdict) {
		rc = rc ? rc : sbx_buf_printf(b, "<text class=\"verdict\" "
						 "data-verdict=\"%s\" x=\"%d\" "
						 "y=\"32\" font-size=\"11\" "
						 "font-weight=\"bold\" "
						 "fill=\"%s\">",
					      g->verdict->word, LEFT,
					      g->verdict->color);
		sbx_buf t = {0};
		rc = rc ? rc : sbx_hotspot_text(&t, g->verdict, g->server_prefix);
		rc = rc ? rc : sbx_buf_push(&t, 0);
		rc = rc ? rc : esc(b, (const char *)t.data);
		sbx_buf_free(&t);
		rc = rc ? rc : sbx_buf_printf(b, "</text>\n");
	}
	if (g->subtitle) {
		rc = rc ? rc : sbx_buf_printf(b, "<text x=\"%d\" y=\"46\" "
						 "font-size=\"9\" "
						 "fill=\"#555\">",
					      LEFT);
		rc = rc ? rc : esc(b, g->subtitle);
		rc = rc ? rc : sbx_buf_printf(b, "</text>\n");
	}
	rc = rc ? rc : sbx_buf_printf(b, "<g class=\"cells\" "
					 "shape-rendering=\"crispEdges\">\n");
	for (int k = 0; k < K && !rc && g->rows; k++) {
		rc = sbx_buf_printf(b, "<g class=\"key-row\" data-row=\"%d\">\n",
				    k);
		for (int t = 0; t < T && !rc; t++) {
			size_t at = (size_t)k * g->cols + (size_t)t;
			char c[8];
			color(mx > 0 ? g->values[at] / mx : 0, c);
			rc = sbx_buf_printf(b, "<rect x=\"%.2f\" y=\"%.2f\" "
					       "width=\"%.2f\" height=\"%.2f\" "
					       "fill=\"%s\"><title>",
					    LEFT + t * cw, TOP + k * ch,
					    cw + 0.3, ch + 0.3, c);
			if (g->ranges && g->ranges[k])
				rc = rc ? rc : esc(b, g->ranges[k]);
			char clk[32];
			int64_t off = (int64_t)t * g->column_ms;
			if (g->live)
				snprintf(clk, sizeof clk, "-%lld s",
					 (long long)((int64_t)(T - t) *
						     g->column_ms / 1000));
			else
				fmt_clock(clk, sizeof clk, off);
			rc = rc ? rc : sbx_buf_printf(b, "\n%s%s: ",
						      g->live ? "" : "+", clk);
			if (g->reads && g->writes && g->bytes) {
				char by[32];
				fmt_bytes(by, sizeof by, g->bytes[at]);
				rc = rc ? rc
					: sbx_buf_printf(
					      b, "%.0f reads, %.0f writes, %s",
					      g->reads[at], g->writes[at], by);
			} else {
				rc = rc ? rc
					: sbx_buf_printf(b, "%.0f ",
							 g->values[at]);
				rc = rc ? rc : esc(b, g->unit ? g->unit : "");
			}
			rc = rc ? rc : sbx_buf_printf(b, "</title></rect>\n");
		}
		rc = rc ? rc : sbx_buf_printf(b, "</g>\n");
	}
	rc = rc ? rc : sbx_buf_printf(b, "</g>\n<rect x=\"%d\" y=\"%d\" "
					 "width=\"%d\" height=\"%.1f\" "
					 "fill=\"none\" stroke=\"#888\"/>\n",
				      LEFT, TOP, PLOT_W, plot_h);
	/* region boundaries over the key buckets */
	for (size_t i = 0; i < g->nboundaries && !rc; i++) {
		double y = TOP + g->boundaries[i] * ch;
		rc = sbx_buf_printf(b, "<line class=\"region-boundary\" "
				       "x1=\"%d\" x2=\"%d\" y1=\"%.1f\" "
				       "y2=\"%.1f\" stroke=\"#00e5ff\" "
				       "stroke-width=\"1\" "
				       "stroke-dasharray=\"4 3\"/>\n",
				    LEFT - 3, LEFT + PLOT_W + 3, y, y);
	}
	/* key labels: every bucket when they fit, else every few */
	int every = (int)ceil(11.0 / ch);
	if (every < 1)
		every = 1;
	for (int k = 0; k < K && !rc && g->rows; k += every) {
		rc = sbx_buf_printf(b, "<text class=\"key-label\" x=\"%d\" "
				       "y=\"%.1f\" text-anchor=\"end\" "
				       "font-family=\"monospace\" "
				       "font-size=\"9\">",
				    LEFT - 5,
				    TOP + k * ch + (ch < 9 ? 8 : ch / 2 + 3));
		rc = rc ? rc : esc(b, g->labels && g->labels[k] ? g->labels[k]
							       : "");
		rc = rc ? rc : sbx_buf_printf(b, "</text>\n");
	}
	/* the key-axis title, vertical, left of the labels */
	rc = rc ? rc : sbx_buf_printf(b, "<text class=\"axis-title\" "
					 "transform=\"translate(14 %.1f) "
					 "rotate(-90)\" text-anchor=\"middle\" "
					 "fill=\"#555\">key range &#8595; "
					 "(equal-count buckets)</text>\n",
				      TOP + plot_h / 2);
	/* time axis */
	int tick = T >= 10 ? T / 6 : 1;
	for (int t = 0; t <= T && !rc; t += tick) {
		char clk[32];
		if (g->live) {
			int64_t ago = (int64_t)(T - t) * g->column_ms;
			if (!ago)
				snprintf(clk, sizeof clk, "now");
			else {
				clk[0] = '-';
				fmt_span(clk + 1, sizeof clk - 1, ago);
			}
		} else {
			clk[0] = '+';
			fmt_clock(clk + 1, sizeof clk - 1,
				  (int64_t)t * g->column_ms);
		}
		rc = sbx_buf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" "
				       "text-anchor=\"%s\">%s</text>\n",
				    LEFT + t * cw, TOP + plot_h + 12,
				    t == 0 ? "start" : t == T ? "end" : "middle",
				    clk);
	}
	char span[32];
	fmt_span(span, sizeof span, g->column_ms > 0 ? g->column_ms : 1);
	rc = rc ? rc : sbx_buf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" "
					 "text-anchor=\"middle\" "
					 "fill=\"#555\">",
				      LEFT + PLOT_W / 2.0, TOP + plot_h + 25);
	rc = rc ? rc : esc(b, g->time_title ? g->time_title : "time");
	rc = rc ? rc : sbx_buf_printf(b, " &#8594; (columns of %s)</text>\n",
				      span);
	/* the colour scale and its unit */
	for (int i = 0; i < 10 && !rc; i++) {
		char c[8];
		color(i / 9.0, c);
		rc = sbx_buf_printf(b, "<rect x=\"%d\" y=\"%.1f\" width=\"10\" "
				       "height=\"%.1f\" fill=\"%s\"/>\n",
				    LEFT + PLOT_W + 10,
				    TOP + plot_h - (i + 1) * plot_h / 10,
				    plot_h / 10, c);
	}
	rc = rc ? rc : sbx_buf_printf(b, "<text x=\"%d\" y=\"%d\">%.0f</text>\n"
					 "<text x=\"%d\" y=\"%.0f\">0</text>\n",
				      LEFT + PLOT_W + 23, TOP + 8, mx,
				      LEFT + PLOT_W + 23, TOP + plot_h);
	rc = rc ? rc : sbx_buf_printf(b, "<text class=\"scale-unit\" x=\"%d\" "
					 "y=\"%.1f\" fill=\"#555\">colour "
					 "scale: 0 to %.0f ",
				      LEFT, TOP + plot_h + 40, mx);
	rc = rc ? rc : esc(b, g->unit ? g->unit : "");
	rc = rc ? rc : sbx_buf_printf(b, " (the brightest cell)</text>\n");
	if (S) {
		uint64_t smax = 1;
		for (size_t i = 0; i < (size_t)S * (size_t)T; i++)
			if (g->server_load[i] > smax)
				smax = g->server_load[i];
		rc = rc ? rc : sbx_buf_printf(b, "<text x=\"%d\" y=\"%.0f\" "
						 "fill=\"#555\">load per region "
						 "server (0 to %llu ",
					      LEFT, strip_y - 5,
					      (unsigned long long)smax);
		rc = rc ? rc : esc(b, g->server_unit ? g->server_unit : "");
		rc = rc ? rc : sbx_buf_printf(b, " per column)</text>\n<g "
						 "shape-rendering=\"crispEdges\">"
						 "\n");
		for (int s = 0; s < S && !rc; s++) {
			rc = sbx_buf_printf(b, "<text x=\"%d\" y=\"%.1f\" "
					       "text-anchor=\"end\" "
					       "font-size=\"9\">%s%d</text>\n",
					    LEFT - 5, strip_y + s * sh + 9,
					    g->server_prefix ? g->server_prefix
							     : "server ",
					    s);
			for (int t = 0; t < T && !rc; t++) {
				char c[8];
				uint64_t v = g->server_load[(size_t)t * S + s];
				color((double)v / (double)smax, c);
				rc = sbx_buf_printf(
				    b,
				    "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" "
				    "height=\"%.1f\" fill=\"%s\"/>\n",
				    LEFT + t * cw, strip_y + s * sh, cw + 0.3,
				    sh - 1, c);
			}
		}
		rc = rc ? rc : sbx_buf_printf(b, "</g>\n<rect x=\"%d\" "
						 "y=\"%.1f\" width=\"%d\" "
						 "height=\"%.1f\" fill=\"none\" "
						 "stroke=\"#888\"/>\n",
					      LEFT, strip_y, PLOT_W, sh * S);
	}
	rc = rc ? rc : sbx_buf_printf(b, "</svg>\n");
	if (rc)
		b->len = mark;
	return rc;
}

/* The verdict of a simulation: its score (over fixed periods of the run,
 * simulate.c) classified as everywhere else. */
void sbx_keyviz_hotspot(sbx_hotspot *h, const sbx_keyviz_result *r)
{
	memset(h, 0, sizeof *h);
	h->servers = r->servers;
	h->score = r->score;
	h->busiest_share = r->busiest_share;
	h->busiest_server = -1;
	uint64_t best = 0;
	for (int s = 0; s < r->servers; s++) {
		uint64_t v = 0;
		for (int t = 0; t < r->time_buckets; t++)
			v += r->server_load[(size_t)t * r->servers + s];
		h->total += v;
		if (v > best) {
			best = v;
			h->busiest_server = s;
		}
	}
	h->busiest_server_share = h->total ? (double)best / h->total : 0;
	sbx_hotspot_classify(h);
}

/* Row position of each region boundary: the first key bucket starting at
 * or after it (bucket starts as HBase prints keys). */
static int region_rows(double **out, size_t *n, const sbx_keyviz_result *r)
{
	*out = NULL;
	*n = 0;
	if (r->nregions < 2)
		return SBX_OK;
	double *pos = sbx_calloc(r->nregions, sizeof *pos);
	sbx_buf *st = sbx_calloc((size_t)r->key_buckets, sizeof *st);
	int rc = pos && st ? SBX_OK : SBX_ENOMEM_SET();
	for (int k = 0; k < r->key_buckets && !rc; k++)
		rc = sbx_key_from_binary_string(&st[k], r->bucket_starts[k],
						strlen(r->bucket_starts[k]));
	for (size_t i = 1; i < r->nregions && !rc; i++) {
		const sbx_keyviz_region *x = &r->regions[i];
		int k = 0;
		while (k < r->key_buckets &&
		       sbx_bytes_cmp(st[k].data, st[k].len, x->start,
				     x->start_len) < 0)
			k++;
		pos[(*n)++] = k;
	}
	for (int k = 0; st && k < r->key_buckets; k++)
		sbx_buf_free(&st[k]);
	free(st);
	if (rc) {
		free(pos);
		*n = 0;
		return rc;
	}
	*out = pos;
	return SBX_OK;
}

/* The SVG body (no XML declaration) so HTML can inline it: the result as
 * a heat grid, drawn by the one renderer. */
static int svg_body(sbx_buf *b, const sbx_keyviz_result *r, const char *id)
{
	size_t K = (size_t)r->key_buckets, T = (size_t)r->time_buckets;
	double *vals = sbx_calloc(K * T > 0 ? K * T : 1, sizeof *vals);
	char **ranges = sbx_calloc(K ? K : 1, sizeof *ranges);
	double *bounds = NULL;
	size_t nb = 0;
	int rc = vals && ranges ? SBX_OK : SBX_ENOMEM_SET();
	for (size_t i = 0; i < K * T && !rc; i++)
		vals[i] = (double)r->heat[i];
	for (size_t k = 0; k < K && !rc; k++) {
		sbx_buf t = {0};
		rc = sbx_buf_printf(&t, "[%s, %s)",
				    *r->bucket_starts[k] ? r->bucket_starts[k]
							 : "(start)",
				    k + 1 < K ? r->bucket_starts[k + 1]
					      : "(end)");
		rc = rc ? rc : sbx_buf_push(&t, 0);
		ranges[k] = (char *)t.data;
		if (rc)
			sbx_buf_free(&t), ranges[k] = NULL;
	}
	rc = rc ? rc : region_rows(&bounds, &nb, r);
	sbx_hotspot v;
	sbx_keyviz_hotspot(&v, r);
	char span[32], unit[64], title[160];
	fmt_span(span, sizeof span, r->bucket_ms > 0 ? r->bucket_ms : 1);
	snprintf(unit, sizeof unit, "requests per %s column", span);
	snprintf(title, sizeof title, "%s  (%zu regions, %llu splits)",
		 r->design, r->nregions, (unsigned long long)r->splits);
	sbx_heatgrid g = {
	    .title = title,
	    .subtitle = r->design_text,
	    .rows = K,
	    .cols = T,
	    .labels = (const char *const *)r->labels,
	    .ranges = (const char *const *)ranges,
	    .values = vals,
	    .unit = unit,
	    .time_title = "time (simulated)",
	    .start_ms = r->start_ms,
	    .column_ms = r->bucket_ms,
	    .boundaries = bounds,
	    .nboundaries = nb,
	    .server_load = r->server_load,
	    .servers = r->servers,
	    .server_unit = "requests",
	    .verdict = &v,
	};
	rc = rc ? rc : sbx_heatgrid_svg(b, &g, id);
	for (size_t k = 0; ranges && k < K; k++)
		free(ranges[k]);
	free(ranges);
	free(vals);
	free(bounds);
	return rc;
}

int sbx_keyviz_svg(sbx_buf *out, const sbx_keyviz_result *r)
{
	size_t mark = out->len;
	int rc = sbx_buf_printf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	if (!rc)
		rc = svg_body(out, r, "keyviz");
	if (rc)
		out->len = mark;
	return rc;
}

static int summary_row(sbx_buf *b, const sbx_keyviz_result *r)
{
	int rc = sbx_buf_printf(b, "<tr><td><a href=\"#");
	rc = rc ? rc : esc(b, r->design);
	rc = rc ? rc : sbx_buf_printf(b, "\">");
	rc = rc ? rc : esc(b, r->design);
	rc = rc ? rc : sbx_buf_printf(b, "</a></td><td class=\"k\">");
	rc = rc ? rc : esc(b, r->design_text);
	double fan = r->scans ? (double)r->scan_requests / r->scans : 0;
	rc = rc ? rc : sbx_buf_printf(b, "</td><td>%.1f</td><td>%.2f</td><td>%.0f%%</td>"
			      "<td>%zu</td><td>%llu</td><td>%llu</td>"
			      "<td>%.1f</td></tr>\n",
			   r->avg_key_bytes, r->score, r->busiest_share * 100,
			   r->nregions, (unsigned long long)r->splits,
			   (unsigned long long)r->moves, fan);
	return rc;
}

int sbx_keyviz_html(sbx_buf *out, const sbx_keyviz_result *const *r,
		    size_t n, const char *title)
{
	size_t mark = out->len;
	int rc = sbx_buf_printf(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta "
			  "charset=\"utf-8\"/>\n<title>");
	rc = rc ? rc : esc(out, title);
	rc = rc ? rc : sbx_buf_printf(out,
		"</title>\n<style>\nbody{font-family:sans-serif;margin:24px;"
		"color:#222}\ntable{border-collapse:collapse;margin:12px 0}\n"
		"td,th{border:1px solid #ccc;padding:3px 8px;text-align:right;"
		"font-size:13px}\nth{background:#f3f3f3}\n"
		"td.k{text-align:left;font-family:monospace;font-size:11px}\n"
		"td:first-child{text-align:left}\nsection{margin:28px 0}\n"
		"</style>\n</head>\n<body>\n<h1>");
	rc = rc ? rc : esc(out, title);
	rc = rc ? rc : sbx_buf_printf(out, "</h1>\n<p>Simulated on a modelled cluster of "
				"%d region servers (a model, not a "
				"cluster): ",
			   n ? r[0]->servers : 0);
	if (n && !rc) {
		rc = sbx_buf_printf(out, "%llu operations (%llu puts, %llu gets, %llu "
			      "scans). The hotspot score is the busiest "
			      "server's load over the mean, per time "
			      "bucket, weighted by requests: 1 is even, %d "
			      "is one server doing everything.</p>\n",
			 (unsigned long long)r[0]->ops,
			 (unsigned long long)r[0]->puts,
			 (unsigned long long)r[0]->gets,
			 (unsigned long long)r[0]->scans, r[0]->servers);
	}
	rc = rc ? rc : sbx_buf_printf(out, "<table>\n<tr><th>design</th><th>key</th>"
				"<th>key bytes</th><th>score</th>"
				"<th>busiest</th><th>regions</th>"
				"<th>splits</th><th>moves</th>"
				"<th>requests/scan</th></tr>\n");
	for (size_t i = 0; i < n && !rc; i++)
		rc = summary_row(out, r[i]);
	rc = rc ? rc : sbx_buf_printf(out, "</table>\n");
	for (size_t i = 0; i < n && !rc; i++) {
		rc = sbx_buf_printf(out, "<section id=\"");
		rc = rc ? rc : esc(out, r[i]->design);
		rc = rc ? rc : sbx_buf_printf(out, "\">\n");
		char id[32];
		snprintf(id, sizeof id, "heatmap-%zu", i);
		rc = rc ? rc : svg_body(out, r[i], id);
		rc = rc ? rc : sbx_buf_printf(out, "<table>\n<tr><th>server</th>"
					"<th>requests</th><th>share</th>"
					"<th>regions</th></tr>\n");
		const sbx_keyviz_result *x = r[i];
		uint64_t total = 0;
		for (size_t j = 0; j < (size_t)x->servers * x->time_buckets; j++)
			total += x->server_load[j];
		for (int s = 0; s < x->servers && !rc; s++) {
			uint64_t v = 0;
			int nreg = 0;
			for (int t = 0; t < x->time_buckets; t++)
				v += x->server_load[(size_t)t * x->servers + s];
			for (size_t j = 0; j < x->nregions; j++)
				nreg += x->regions[j].server == s;
			rc = sbx_buf_printf(out, "<tr><td>%d</td><td>%llu</td>"
				      "<td>%.1f%%</td><td>%d</td></tr>\n",
				 s, (unsigned long long)v,
				 total ? 100.0 * v / total : 0, nreg);
		}
		rc = rc ? rc : sbx_buf_printf(out, "</table>\n</section>\n");
	}
	rc = rc ? rc : sbx_buf_printf(out, "</body>\n</html>\n");
	if (rc)
		out->len = mark;
	return rc;
}

/* ---- JSON ---- */

static json_t *u64_array(const uint64_t *v, size_t n)
{
	json_t *a = json_array();
	for (size_t i = 0; a && i < n; i++)
		json_array_append_new(a, json_integer((json_int_t)v[i]));
	return a;
}

static json_t *key_json(const uint8_t *k, size_t len)
{
	sbx_buf t = {0};
	if (sbx_key_to_binary_string(&t, k, len)) {
		sbx_buf_free(&t);
		return NULL;
	}
	json_t *s = json_stringn(t.data ? (const char *)t.data : "", t.len);
	sbx_buf_free(&t);
	return s;
}

int sbx_keyviz_json(sbx_buf *out, const sbx_keyviz_result *r)
{
	json_t *j = json_object();
	if (!j)
		return SBX_ENOMEM_SET();
	json_object_set_new(j, "design", json_string(r->design));
	json_object_set_new(j, "design_text", json_string(r->design_text));
	json_object_set_new(j, "workload", json_string(r->workload));
	json_object_set_new(j, "servers", json_integer(r->servers));
	json_object_set_new(j, "time_buckets", json_integer(r->time_buckets));
	json_object_set_new(j, "key_buckets", json_integer(r->key_buckets));
	json_object_set_new(j, "start_ms", json_integer(r->start_ms));
	json_object_set_new(j, "bucket_ms", json_integer(r->bucket_ms));
#define NUM(f) json_object_set_new(j, #f, json_integer((json_int_t)r->f))
	NUM(ops); NUM(puts); NUM(gets); NUM(scans); NUM(requests);
	NUM(scan_requests); NUM(full_scans); NUM(splits); NUM(moves);
	NUM(heat_max);
#undef NUM
	json_object_set_new(j, "avg_key_bytes", json_real(r->avg_key_bytes));
	json_object_set_new(j, "score", json_real(r->score));
	json_object_set_new(j, "busiest_share", json_real(r->busiest_share));
	json_object_set_new(j, "total_score", json_real(r->total_score));
	json_object_set_new(j, "total_share", json_real(r->total_share));
	json_object_set_new(j, "server_load",
			    u64_array(r->server_load,
				      (size_t)r->servers * r->time_buckets));
	json_t *heat = json_array(), *labels = json_array(),
	       *starts = json_array();
	for (int k = 0; k < r->key_buckets; k++) {
		json_array_append_new(heat, u64_array(r->heat + (size_t)k *
								r->time_buckets,
						      (size_t)r->time_buckets));
		json_array_append_new(labels, json_string(r->labels[k]));
		json_array_append_new(starts, json_string(r->bucket_starts[k]));
	}
	json_object_set_new(j, "heat", heat);
	json_object_set_new(j, "labels", labels);
	json_object_set_new(j, "bucket_starts", starts);
	json_t *regs = json_array();
	for (size_t i = 0; i < r->nregions; i++) {
		const sbx_keyviz_region *x = &r->regions[i];
		json_t *o = json_object();
		json_object_set_new(o, "start", key_json(x->start, x->start_len));
		json_object_set_new(o, "end", key_json(x->end, x->end_len));
		json_object_set_new(o, "server", json_integer(x->server));
		json_object_set_new(o, "size_bytes",
				    json_integer((json_int_t)x->size_bytes));
		json_object_set_new(o, "reads", json_integer((json_int_t)x->reads));
		json_object_set_new(o, "writes",
				    json_integer((json_int_t)x->writes));
		json_object_set_new(o, "born", json_integer(x->born));
		json_object_set_new(o, "load",
				    u64_array(x->load, (size_t)r->time_buckets));
		json_array_append_new(regs, o);
	}
	json_object_set_new(j, "regions", regs);
	char *s = json_dumps(j, JSON_COMPACT);
	json_decref(j);
	if (!s)
		return SBX_ENOMEM_SET();
	int rc = sbx_buf_append(out, s, strlen(s));
	if (!rc)
		rc = sbx_buf_push(out, '\n');
	free(s);
	return rc;
}

static char *jdup(json_t *j, const char *key)
{
	const char *s = json_string_value(json_object_get(j, key));
	if (!s)
		return NULL;
	size_t n = strlen(s) + 1;
	char *d = sbx_malloc(n);
	if (d)
		memcpy(d, s, n);
	return d;
}

static int juint(json_t *j, const char *key, uint64_t *out)
{
	json_t *v = json_object_get(j, key);
	if (!json_is_integer(v) || json_integer_value(v) < 0)
		return sbx_error_set(SBX_EPARSE, "result JSON: '%s' is not a "
						 "count",
				     key);
	*out = (uint64_t)json_integer_value(v);
	return SBX_OK;
}

static int jarray_u64(json_t *a, uint64_t *out, size_t n, const char *what)
{
	if (!json_is_array(a) || json_array_size(a) != n)
		return sbx_error_set(SBX_EPARSE, "result JSON: '%s' should hold "
						 "%zu numbers",
				     what, n);
	for (size_t i = 0; i < n; i++) {
		json_t *v = json_array_get(a, i);
		if (!json_is_integer(v) || json_integer_value(v) < 0)
			return sbx_error_set(SBX_EPARSE, "result JSON: '%s' "
							 "holds a non-count",
					     what);
		out[i] = (uint64_t)json_integer_value(v);
	}
	return SBX_OK;
}

static int jkey(json_t *o, const char *key, uint8_t **out, size_t *len)
{
	const char *s = json_string_value(json_object_get(o, key));
	if (!s)
		return sbx_error_set(SBX_EPARSE, "result JSON: region without "
						 "'%s'", key);
	sbx_buf b = {0};
	int rc = sbx_key_from_binary_string(&b, s, strlen(s));
	*out = b.data;
	*len = b.len;
	return rc;
}

static int from_json(sbx_keyviz_result *r, json_t *j)
{
	uint64_t v = 0;
	int rc;
	if (!json_is_object(j))
		return sbx_error_set(SBX_EPARSE, "result JSON: not an object");
	r->design = jdup(j, "design");
	r->design_text = jdup(j, "design_text");
	r->workload = jdup(j, "workload");
	if (!r->design || !r->design_text || !r->workload)
		return sbx_error_set(SBX_EPARSE, "result JSON: missing design, "
						 "design_text or workload");
#define GETU(f, lim)                                                         \
	do {                                                                 \
		if ((rc = juint(j, #f, &v)))                                 \
			return rc;                                           \
		if (v > (lim))                                               \
			return sbx_error_set(SBX_EPARSE,                     \
					     "result JSON: '" #f "' too large"); \
		r->f = (__typeof__(r->f))v;                                  \
	} while (0)
	GETU(servers, 1024);
	GETU(time_buckets, 10000);
	GETU(key_buckets, 10000);
	GETU(bucket_ms, INT64_MAX);
	GETU(ops, UINT64_MAX); GETU(puts, UINT64_MAX); GETU(gets, UINT64_MAX);
	GETU(scans, UINT64_MAX); GETU(requests, UINT64_MAX);
	GETU(scan_requests, UINT64_MAX); GETU(full_scans, UINT64_MAX);
	GETU(splits, UINT64_MAX); GETU(moves, UINT64_MAX);
	GETU(heat_max, UINT64_MAX);
#undef GETU
	if (r->servers < 1 || r->time_buckets < 1 || r->key_buckets < 1)
		return sbx_error_set(SBX_EPARSE, "result JSON: servers and "
						 "buckets must be >= 1");
	r->start_ms = json_integer_value(json_object_get(j, "start_ms"));
	r->avg_key_bytes = json_number_value(json_object_get(j, "avg_key_bytes"));
	r->score = json_number_value(json_object_get(j, "score"));
	r->busiest_share = json_number_value(json_object_get(j, "busiest_share"));
	r->total_score = json_number_value(json_object_get(j, "total_score"));
	r->total_share = json_number_value(json_object_get(j, "total_share"));
	size_t T = (size_t)r->time_buckets, K = (size_t)r->key_buckets;
	r->server_load = sbx_calloc((size_t)r->servers * T, sizeof(uint64_t));
	r->heat = sbx_calloc(K * T, sizeof(uint64_t));
	r->labels = sbx_calloc(K, sizeof(char *));
	r->bucket_starts = sbx_calloc(K, sizeof(char *));
	if (!r->server_load || !r->heat || !r->labels || !r->bucket_starts)
		return SBX_ENOMEM_SET();
	if ((rc = jarray_u64(json_object_get(j, "server_load"), r->server_load,
			     (size_t)r->servers * T, "server_load")))
		return rc;
	json_t *heat = json_object_get(j, "heat"),
	       *labels = json_object_get(j, "labels"),
	       *starts = json_object_get(j, "bucket_starts");
	if (!json_is_array(heat) || json_array_size(heat) != K ||
	    !json_is_array(labels) || json_array_size(labels) != K ||
	    !json_is_array(starts) || json_array_size(starts) != K)
		return sbx_error_set(SBX_EPARSE, "result JSON: heat, labels and "
						 "bucket_starts need one entry "
						 "per key bucket");
	for (size_t k = 0; k < K; k++) {
		if ((rc = jarray_u64(json_array_get(heat, k), r->heat + k * T, T,
				     "heat")))
			return rc;
		const char *l = json_string_value(json_array_get(labels, k));
		const char *s = json_string_value(json_array_get(starts, k));
		if (!l || !s)
			return sbx_error_set(SBX_EPARSE, "result JSON: labels "
							 "must be strings");
		r->labels[k] = sbx_malloc(strlen(l) + 1);
		r->bucket_starts[k] = sbx_malloc(strlen(s) + 1);
		if (!r->labels[k] || !r->bucket_starts[k])
			return SBX_ENOMEM_SET();
		strcpy(r->labels[k], l);
		strcpy(r->bucket_starts[k], s);
	}
	json_t *regs = json_object_get(j, "regions");
	if (!json_is_array(regs))
		return sbx_error_set(SBX_EPARSE, "result JSON: no regions");
	size_t nr = json_array_size(regs);
	r->regions = sbx_calloc(nr ? nr : 1, sizeof *r->regions);
	if (!r->regions)
		return SBX_ENOMEM_SET();
	for (size_t i = 0; i < nr; i++) {
		json_t *o = json_array_get(regs, i);
		sbx_keyviz_region *x = &r->regions[i];
		r->nregions = i + 1;
		x->load = sbx_calloc(T, sizeof *x->load);
		if (!x->load)
			return SBX_ENOMEM_SET();
		if ((rc = jkey(o, "start", &x->start, &x->start_len)) ||
		    (rc = jkey(o, "end", &x->end, &x->end_len)))
			return rc;
		json_int_t srv = json_integer_value(json_object_get(o, "server"));
		if (srv < 0 || srv >= r->servers)
			return sbx_error_set(SBX_EPARSE, "result JSON: region "
							 "server out of range");
		x->server = (int)srv;
		if ((rc = juint(o, "size_bytes", &x->size_bytes)) ||
		    (rc = juint(o, "reads", &x->reads)) ||
		    (rc = juint(o, "writes", &x->writes)) ||
		    (rc = jarray_u64(json_object_get(o, "load"), x->load, T,
				     "load")))
			return rc;
		x->born = (int)json_integer_value(json_object_get(o, "born"));
	}
	return SBX_OK;
}

int sbx_keyviz_result_from_json(sbx_keyviz_result **out, const char *text,
				size_t len)
{
	*out = NULL;
	json_error_t err;
	json_t *j = json_loadb(text, len, 0, &err);
	if (!j)
		return sbx_error_set(SBX_EPARSE, "result JSON line %d: %s",
				     err.line, err.text);
	sbx_keyviz_result *r = sbx_calloc(1, sizeof *r);
	int rc = r ? from_json(r, j) : SBX_ENOMEM_SET();
	json_decref(j);
	if (rc) {
		sbx_keyviz_result_free(r);
		return rc;
	}
	*out = r;
	return SBX_OK;
}
