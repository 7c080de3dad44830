/*
 * keyviz_report.c - `saltbox keyviz compare --report FILE`: one HTML page
 * a team can hand round. Everything is inline (styles, the heatmaps as
 * SVG, no script, no link to anything outside the file), so it opens
 * offline: the verdict on each design in words, a comparison table, then
 * the designs side by side, each with its key's byte layout, its heatmap,
 * the requests every modelled server served, its lint findings with the
 * sources they come from, and the explanation `saltbox key explain` prints.
 */
#include "keyviz_report.h"

#include <stdio.h>
#include <string.h>

static int esc(sbx_buf *b, const char *s)
{
	int rc = 0;
	for (; *s && !rc; s++) {
		switch (*s) {
		case '<': rc = sbx_buf_append(b, "&lt;", 4); break;
		case '>': rc = sbx_buf_append(b, "&gt;", 4); break;
		case '&': rc = sbx_buf_append(b, "&amp;", 5); break;
		case '"': rc = sbx_buf_append(b, "&quot;", 6); break;
		default: rc = sbx_buf_push(b, (uint8_t)*s); break;
		}
	}
	return rc;
}

static double req_per_scan(const sbx_keyviz_result *r)
{
	return r->scans ? (double)r->scan_requests / (double)r->scans : 0;
}

const char *keyviz_verdict(sbx_buf *out, const sbx_keyviz_result *r)
{
	double even = 100.0 / r->servers, share = r->busiest_share * 100;
	sbx_hotspot h;
	sbx_keyviz_hotspot(&h, r);
	const char *cls = h.word;
	if (h.level == SBX_HOTSPOT_HOT) {
		sbx_buf_printf(out, "Hot: one server takes %.0f%% of the "
			       "requests of every interval (even would be "
			       "%.0f%%), a hotspot: the other servers idle "
			       "while it works.", share, even);
	} else if (h.level == SBX_HOTSPOT_UNEVEN) {
		sbx_buf_printf(out, "Uneven: the busiest server takes %.0f%% of "
			       "an interval's requests, %.1f times its fair "
			       "share of %.0f%%.", share, r->score, even);
	} else {
		sbx_buf_printf(out, "Even: the busiest server takes %.0f%% of an "
			       "interval's requests (even: %.0f%%).", share,
			       even);
	}
	if (r->full_scans)
		sbx_buf_printf(out, " Scans cannot use the key: each becomes a "
			       "full table scan (%.1f requests per scan).",
			       req_per_scan(r));
	else if (r->scans && req_per_scan(r) > 1.5)
		sbx_buf_printf(out, " A scan costs %.1f requests (one per salt "
			       "bucket or region it must visit).",
			       req_per_scan(r));
	if (r->nfailed == 1)
		sbx_buf_printf(out, " When the busiest server failed, the "
			       "others absorbed its regions: no other server "
			       "fell.");
	else if (r->nfailed > 1)
		sbx_buf_printf(out, " When the busiest server failed, %d more "
			       "fell in turn (the domino effect)%s.",
			       r->nfailed - 1, r->nfailed >= r->servers
						   ? ": the whole cluster went "
						     "down"
						   : "");
	sbx_buf_push(out, 0);
	return cls;
}

/* The key's bytes as a bar: one box per element, as wide as its typical
 * length, labelled with its name, type, offset and order. */
static int byte_layout(sbx_buf *b, const sbx_keydesign *d)
{
	if (!d)
		return sbx_buf_printf(b, "<p>Raw keys from a trace: no design.</p>");
	size_t mn, typ, mx;
	sbx_keydesign_length(&mn, &typ, &mx, d);
	int rc = sbx_buf_printf(b, "<div class=\"bytes\">");
	size_t n = sbx_keydesign_elem_count(d);
	for (size_t i = 0; i < n && !rc; i++) {
		sbx_keyelem_info e;
		if (sbx_keydesign_elem(&e, d, i))
			continue;
		static const char *const ord[] = {"asc", "desc", "scattered",
						  "fixed"};
		double w = typ ? 100.0 * (double)e.typical_len / (double)typ : 0;
		rc = sbx_buf_printf(b, "<div class=\"el o-%s\" style=\"width:"
				    "%.1f%%\" title=\"", ord[e.order], w);
		rc = rc ? rc : esc(b, e.layout ? e.layout : "");
		rc = rc ? rc : sbx_buf_printf(b, "\"><b>");
		rc = rc ? rc : esc(b, *e.name ? e.name : "literal");
		rc = rc ? rc : sbx_buf_printf(b, "</b><br>");
		rc = rc ? rc : esc(b, e.type ? e.type : "");
		if (!rc && e.offset >= 0)
			rc = sbx_buf_printf(b, "<br>@%ld", e.offset);
		rc = rc ? rc : sbx_buf_printf(b, "<br>%zu B %s</div>",
					      e.typical_len, ord[e.order]);
	}
	char mxs[32];
	if (mx == SBX_KEYLEN_UNBOUNDED)
		snprintf(mxs, sizeof mxs, "unbounded");
	else
		snprintf(mxs, sizeof mxs, "%zu", mx);
	if (!rc)
		rc = sbx_buf_printf(b, "</div><p class=\"note\">%zu bytes "
				    "typical (%zu..%s); the order: ", typ, mn,
				    mxs);
	rc = rc ? rc : esc(b, sbx_keydesign_order(d));
	return rc ? rc : sbx_buf_printf(b, "</p>");
}

static int server_table(sbx_buf *b, const sbx_keyviz_result *r)
{
	uint64_t total = 0;
	for (size_t i = 0; i < (size_t)r->servers * r->time_buckets; i++)
		total += r->server_load[i];
	int rc = sbx_buf_printf(b, "<table class=\"servers\"><tr><th>server"
				"</th><th>requests served</th><th>share</th>"
				"<th></th></tr>");
	for (int s = 0; s < r->servers && !rc; s++) {
		uint64_t v = 0;
		for (int t = 0; t < r->time_buckets; t++)
			v += r->server_load[(size_t)t * r->servers + s];
		double pct = total ? 100.0 * (double)v / (double)total : 0;
		int down = -1;
		for (int i = 0; i < r->nfailed; i++)
			if (r->failed_server[i] == s)
				down = r->failed_at[i];
		rc = sbx_buf_printf(b, "<tr><td>%d%s</td><td>%llu</td><td>"
				    "%.1f%%</td><td><div class=\"bar\" style="
				    "\"width:%.0fpx\"></div></td></tr>",
				    s, down >= 0 ? " (down)" : "",
				    (unsigned long long)v, pct, pct * 2);
	}
	return rc ? rc : sbx_buf_printf(b, "</table>");
}

static int lint_list(sbx_buf *b, const sbx_keydesign *d)
{
	if (!d)
		return 0;
	sbx_keylint *rep = NULL;
	if (sbx_keydesign_lint(&rep, d))
		return SBX_ENOMEM;
	int rc = sbx_buf_printf(b, "<h4>Lint findings (%zu)</h4>", rep->count);
	if (!rc && !rep->count)
		rc = sbx_buf_printf(b, "<p class=\"note\">none</p>");
	for (size_t i = 0; i < rep->count && !rc; i++) {
		const sbx_lint_finding *f = &rep->findings[i];
		rc = sbx_buf_printf(b, "<div class=\"lint %s\"><b>%s [",
				    f->level == SBX_LINT_WARN ? "warn" : "info",
				    f->level == SBX_LINT_WARN ? "warning"
							      : "info");
		rc = rc ? rc : esc(b, f->rule);
		rc = rc ? rc : sbx_buf_printf(b, "]</b> ");
		rc = rc ? rc : esc(b, f->message);
		rc = rc ? rc : sbx_buf_printf(b, "<br><i>Source: ");
		rc = rc ? rc : esc(b, f->cite);
		rc = rc ? rc : sbx_buf_printf(b, "</i></div>");
	}
	sbx_keylint_free(rep);
	return rc;
}

static int heatmap(sbx_buf *b, const sbx_keyviz_result *r)
{
	sbx_buf svg = {0};
	int rc = sbx_keyviz_svg(&svg, r);
	if (!rc) {
		const char *s = (const char *)svg.data;
		const char *start = svg.len ? strstr(s, "<svg") : NULL;
		if (start)
			rc = sbx_buf_append(b, start,
					    svg.len - (size_t)(start - s));
	}
	sbx_buf_free(&svg);
	return rc;
}

int keyviz_report(sbx_buf *out, sbx_keyviz_result *const *res,
		  const sbx_keydesign *const *designs, int n,
		  const char *title)
{
	sbx_buf b = {0}, v = {0};
	int rc = sbx_buf_printf(&b,
		"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
		"<title>");
	rc = rc ? rc : esc(&b, title);
	rc = rc ? rc : sbx_buf_printf(&b,
		"</title><style>\n"
		"body{font:14px system-ui,sans-serif;margin:16px;color:#222}\n"
		"h1{font-size:20px}h2{font-size:17px;margin-top:24px}"
		"h3{margin:4px 0}h4{margin:10px 0 4px}\n"
		"table{border-collapse:collapse}td,th{border:1px solid #ccc;"
		"padding:3px 7px;text-align:right}th{background:#eee}"
		"td:first-child{text-align:left}\n"
		".verdict{padding:6px 10px;margin:4px 0;border-radius:4px}\n"
		".verdict-hot{background:#fdd;border-left:6px solid #c00}\n"
		".verdict-uneven{background:#ffe9c4;border-left:6px solid #d80}\n"
		".verdict-even{background:#dfd;border-left:6px solid #080}\n"
		".verdict-idle{background:#eee;border-left:6px solid #888}\n"
		".side{display:grid;grid-template-columns:repeat(%d,minmax(380px,"
		"1fr));gap:14px;overflow-x:auto}\n"
		".design{border:1px solid #ccc;border-radius:6px;padding:8px;"
		"min-width:0}\n.design svg{max-width:100%%;height:auto}\n"
		".bytes{display:flex;border:1px solid #888;font-size:11px}"
		".el{border-right:1px solid #888;padding:3px;overflow:hidden;"
		"min-width:46px;box-sizing:border-box}\n"
		".o-asc{background:#fcd}.o-desc{background:#fdc}"
		".o-scattered{background:#cef}.o-fixed{background:#eee}\n"
		".bar{height:10px;background:#47a}.note{color:#555;font-size:12px}"
		"\n.lint{font-size:12px;margin:4px 0;padding:4px;border-radius:3px}"
		".warn{background:#fff1d6}.info{background:#eef}\n"
		"pre{font-size:11px;background:#f6f6f6;padding:6px;overflow-x:auto}"
		"\n</style></head><body>\n<h1>",
		n < 4 ? n : 4);
	rc = rc ? rc : esc(&b, title);
	rc = rc ? rc : sbx_buf_printf(&b, "</h1>\n<p class=\"note\">Workload ");
	rc = rc ? rc : esc(&b, *res[0]->workload ? res[0]->workload
						 : "(unnamed)");
	rc = rc ? rc : sbx_buf_printf(&b,
		": %llu operations replayed through %d key design%s on %d "
		"<b>modelled</b> region servers (saltbox keyviz: a model of "
		"HBase's regions, splits and balancer, not a measured "
		"cluster).</p>\n<h2>Verdict</h2>\n",
		(unsigned long long)res[0]->ops, n, n == 1 ? "" : "s",
		res[0]->servers);
	int best = 0;
	for (int i = 1; i < n; i++)
		if (res[i]->score < res[best]->score)
			best = i;
	for (int i = 0; i < n && !rc; i++) {
		v.len = 0;
		const char *cls = keyviz_verdict(&v, res[i]);
		rc = sbx_buf_printf(&b, "<div class=\"verdict verdict-%s\" "
				    "id=\"verdict-", cls);
		rc = rc ? rc : esc(&b, res[i]->design);
		rc = rc ? rc : sbx_buf_printf(&b, "\"><b>");
		rc = rc ? rc : esc(&b, res[i]->design);
		rc = rc ? rc : sbx_buf_printf(&b, "</b>: ");
		rc = rc ? rc : esc(&b, (const char *)v.data);
		rc = rc ? rc : sbx_buf_printf(&b, "</div>\n");
	}
	if (!rc && n > 1) {
		rc = sbx_buf_printf(&b, "<p>The most even load: <b>");
		rc = rc ? rc : esc(&b, res[best]->design);
		rc = rc ? rc : sbx_buf_printf(&b, "</b> (score %.2f; 1 is "
					      "even, %d is one server).</p>\n",
					      res[best]->score, res[best]->servers);
	}
	rc = rc ? rc : sbx_buf_printf(&b,
		"<h2>Comparison</h2>\n<table><tr><th>design</th><th>key bytes"
		"</th><th>score</th><th>busiest share</th><th>regions</th>"
		"<th>splits</th><th>requests per scan</th></tr>\n");
	for (int i = 0; i < n && !rc; i++) {
		rc = sbx_buf_printf(&b, "<tr><td>");
		rc = rc ? rc : esc(&b, res[i]->design);
		rc = rc ? rc : sbx_buf_printf(&b,
			"</td><td>%.1f</td><td>%.2f</td><td>%.1f%%</td><td>%zu"
			"</td><td>%llu</td><td>%.1f</td></tr>\n",
			res[i]->avg_key_bytes, res[i]->score,
			res[i]->busiest_share * 100, res[i]->nregions,
			(unsigned long long)res[i]->splits, req_per_scan(res[i]));
	}
	rc = rc ? rc : sbx_buf_printf(&b, "</table>\n<h2>Designs side by side"
				      "</h2>\n<div class=\"side\">\n");
	for (int i = 0; i < n && !rc; i++) {
		const sbx_keydesign *d = designs[i];
		rc = sbx_buf_printf(&b, "<div class=\"design\" id=\"design-");
		rc = rc ? rc : esc(&b, res[i]->design);
		rc = rc ? rc : sbx_buf_printf(&b, "\"><h3>");
		rc = rc ? rc : esc(&b, res[i]->design);
		rc = rc ? rc : sbx_buf_printf(&b, "</h3><code>");
		rc = rc ? rc : esc(&b, res[i]->design_text);
		rc = rc ? rc : sbx_buf_printf(&b, "</code><h4>Byte layout of "
					      "the key</h4>");
		rc = rc ? rc : byte_layout(&b, d);
		rc = rc ? rc : sbx_buf_printf(&b, "<h4>Heatmap: requests by "
					      "key range (rows) over time "
					      "(columns)</h4>");
		rc = rc ? rc : heatmap(&b, res[i]);
		rc = rc ? rc : sbx_buf_printf(&b, "<h4>Requests per server"
					      "</h4>");
		rc = rc ? rc : server_table(&b, res[i]);
		rc = rc ? rc : lint_list(&b, d);
		if (!rc && d) {
			sbx_buf x = {0};
			rc = sbx_keydesign_explain(&x, d);
			if (!rc)
				rc = sbx_buf_push(&x, 0);
			rc = rc ? rc : sbx_buf_printf(&b, "<h4>saltbox key "
						      "explain</h4><pre>");
			rc = rc ? rc : esc(&b, (const char *)x.data);
			rc = rc ? rc : sbx_buf_printf(&b, "</pre>");
			sbx_buf_free(&x);
		}
		rc = rc ? rc : sbx_buf_printf(&b, "</div>\n");
	}
	rc = rc ? rc : sbx_buf_printf(&b,
		"</div>\n<h2>Reading this report</h2>\n<p>The <b>score</b> is, "
		"per time interval, the busiest server's requests over the "
		"mean server's, averaged over the intervals weighted by their "
		"requests: 1 is even, the server count means one server does "
		"everything. The <b>busiest share</b> is that server's share of "
		"the interval's requests. Sources: the HBase Reference Guide, "
		"\"Rowkey Design\": \"Hotspotting\", \"Monotonically Increasing "
		"Row Keys/Timeseries Data\", \"Try to minimize row and column "
		"sizes\", \"Reverse Timestamps\"; the articles \"[HBase] HBase "
		"Row Key Design\" (Hyunjun Kim) and \"HBase的rowKey设计技巧\"; "
		"Google Cloud's \"Key Visualizer overview\" for the heatmap."
		"</p>\n</body></html>\n");
	sbx_buf_free(&v);
	if (!rc)
		rc = sbx_buf_append(out, b.data, b.len);
	sbx_buf_free(&b);
	return rc;
}
