/*
 * ui.c - /ui: the embedded page and the JSON API it polls.
 *
 *   GET /ui, /ui/, /ui/<asset>             the page (files in src/server/ui/)
 *   GET /ui/api/tables                      tables, families, region counts
 *   GET /ui/api/server                      the server's group commit
 *                                           counters and open scanners
 *   GET /ui/api/table/<t>/regions           the region map with its metrics
 *   GET /ui/api/table/<t>/heatmap?buckets=N&metric=M
 *                                           per-region load over the last N
 *                                           time buckets, per-server totals,
 *                                           the hotspot verdict, and which
 *                                           regions are hot
 *   GET /ui/api/table/<t>/keyheat?buckets=N&metric=M&rows=R
 *                                           the heatmap by key (SVG): R
 *                                           equal-count key buckets of the
 *                                           sampled keys, region boundaries,
 *                                           drawn by sbx_heatgrid_svg, the
 *                                           renderer `saltbox keyviz` uses
 *
 * Keys are printed as HBase prints them (Bytes.toStringBinary). The
 * verdict is sbx_hotspot_compute over the window's fixed-width buckets
 * per modelled server (docs/hotspots.md), as everywhere else. A region is
 * "hot" when its load over the window is at least twice the mean region's
 * (a bright horizontal band in Key Visualizer terms), or when it is the
 * busiest region and the verdict is "hot" (one region on one server: the
 * sequential-key case); the busiest hot region is the table's "hottest".
 * Everything comes from the public region and key-sampling API.
 */
#include "server/ui.h"

#include "saltbox/hotspot.h"

#include "common/alloc.h"
#include "common/buf.h"
#include "common/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define UI_DEFAULT_BUCKETS 60
#define UI_MAX_BUCKETS 3600

/* ---- JSON output with a sticky error ------------------------------------- */

typedef struct json_out {
	sbx_buf *b;
	int rc;
} json_out;

#define J_PRINTF(j, ...)                                                       \
	do {                                                                   \
		if (!(j)->rc)                                                  \
			(j)->rc = sbx_buf_printf((j)->b, __VA_ARGS__);        \
	} while (0)

static void j_str(json_out *j, const char *s)
{
	if (!j->rc)
		j->rc = rest_json_string(j->b, s, strlen(s));
}

/* A row key as a JSON string of its Bytes.toStringBinary form. */
static void j_key(json_out *j, const uint8_t *key, size_t len)
{
	sbx_buf text = {0};
	if (!j->rc)
		j->rc = sbx_key_to_binary_string(&text, key, len);
	if (!j->rc)
		j->rc =
		    rest_json_string(j->b, (const char *)text.data, text.len);
	sbx_buf_free(&text);
}

static void ui_json_error(rest_response *rs, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void ui_json_error(rest_response *rs, int status, const char *fmt, ...)
{
	char msg[REST_ERR_LEN];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	rs->status = status;
	rs->content_type = "application/json";
	rs->no_cache = true;
	rs->body.len = 0;
	json_out j = {&rs->body, SBX_OK};
	J_PRINTF(&j, "{\"error\":");
	j_str(&j, msg);
	J_PRINTF(&j, "}");
}

/* A library error on table t as the API's reply. */
static void ui_lib_error(rest_response *rs, int rc, const char *table)
{
	if (rc == SBX_ENOTFOUND || rc == SBX_EINVAL)
		ui_json_error(rs, 404, "table '%s' not found", table);
	else
		ui_json_error(rs, 503, "%s", sbx_errmsg());
}

/* Finish a JSON reply: 200, or 503 if building the body failed. */
static void ui_json_done(rest_response *rs, json_out *j)
{
	if (j->rc)
		return ui_json_error(rs, 503,
				     "out of memory building the reply");
	rs->status = 200;
	rs->content_type = "application/json";
	rs->no_cache = true;
}

/* ---- /ui/api/tables ------------------------------------------------------ */

static void j_table_entry(json_out *j, sbx_db *db, const char *name)
{
	sbx_table_info *info = NULL;
	sbx_region_info *r = NULL;
	size_t n = 0;
	sbx_table_describe(&info, db, name);
	sbx_table_regions(&r, &n, db, name);
	J_PRINTF(j, "{\"name\":");
	j_str(j, name);
	J_PRINTF(j, ",\"enabled\":%s,\"families\":[",
		 info && info->enabled ? "true" : "false");
	for (size_t i = 0; info && i < info->nfamilies; i++) {
		if (i)
			J_PRINTF(j, ",");
		j_str(j, info->families[i].name);
	}
	J_PRINTF(j, "],\"regions\":%zu}", n);
	sbx_region_infos_free(r, n);
	sbx_table_info_free(info);
}

static void api_tables(rest_request *rq, rest_response *rs)
{
	sbx_db *db = rq->srv->db;
	char **tables = NULL;
	int rc = sbx_table_list(&tables, db);
	if (rc)
		return ui_json_error(rs, 503, "%s", sbx_errmsg());
	json_out j = {&rs->body, SBX_OK};
	J_PRINTF(&j, "{\"servers\":%d,\"tables\":[", sbx_db_region_servers(db));
	for (size_t i = 0; tables[i]; i++) {
		if (i)
			J_PRINTF(&j, ",");
		j_table_entry(&j, db, tables[i]);
	}
	J_PRINTF(&j, "]}");
	sbx_strv_free(tables);
	ui_json_done(rs, &j);
}

/* ---- /ui/api/server ------------------------------------------------------ */

/* Group commit (commit.c): requests written, the sbx_table_batch calls
 * that carried them, the most in one call, leads the commit thread took
 * over; "enabled" false (and zeros) when the server writes each request
 * alone (`--connect`). */
static void api_server(rest_request *rq, rest_response *rs)
{
	rest_server *srv = rq->srv;
	rest_commit_stats st = {0};
	if (srv->commit)
		st = rest_commit_get_stats(srv->commit);
	json_out j = {&rs->body, SBX_OK};
	J_PRINTF(&j,
		 "{\"group_commit\":{\"enabled\":%s,\"requests\":%llu,"
		 "\"batches\":%llu,\"largest\":%llu,\"handoffs\":%llu},"
		 "\"scanners\":{\"open\":%zu,\"max\":%zu,"
		 "\"max_per_client\":%zu}}",
		 srv->commit ? "true" : "false", st.requests, st.batches,
		 st.largest, st.handoffs, rest_scanners_open(srv->scanners),
		 srv->opts.max_scanners, srv->opts.max_client_scanners);
	ui_json_done(rs, &j);
}

/* ---- /ui/api/table/<t>/regions ------------------------------------------- */

static void j_region(json_out *j, const sbx_region_info *r)
{
	const sbx_region_metrics *m = &r->metrics;
	J_PRINTF(j, "{\"name\":");
	j_str(j, r->name);
	J_PRINTF(j,
		 ",\"encoded\":\"%s\",\"id\":%llu,\"start_key\":", r->encoded,
		 (unsigned long long)r->id);
	j_key(j, r->start_key, r->start_len);
	J_PRINTF(j, ",\"end_key\":");
	j_key(j, r->end_key, r->end_len);
	J_PRINTF(j,
		 ",\"server\":\"server-%d\",\"read_request_count\":%llu,"
		 "\"write_request_count\":%llu,"
		 "\"filtered_read_request_count\":%llu,\"read_bytes\":%llu,"
		 "\"write_bytes\":%llu,\"cells_written\":%llu,"
		 "\"store_file_size\":%llu,\"memstore_size\":%llu,"
		 "\"row_cache_hits\":%llu,\"row_cache_misses\":%llu}",
		 r->server, (unsigned long long)m->read_request_count,
		 (unsigned long long)m->write_request_count,
		 (unsigned long long)m->filtered_read_request_count,
		 (unsigned long long)m->read_bytes,
		 (unsigned long long)m->write_bytes,
		 (unsigned long long)m->cells_written,
		 (unsigned long long)m->store_file_size,
		 (unsigned long long)m->memstore_size,
		 (unsigned long long)m->row_cache_hits,
		 (unsigned long long)m->row_cache_misses);
}

static void api_regions(rest_request *rq, rest_response *rs, const char *table)
{
	sbx_db *db = rq->srv->db;
	sbx_region_info *r;
	size_t n;
	int rc = sbx_table_regions(&r, &n, db, table);
	if (rc)
		return ui_lib_error(rs, rc, table);
	json_out j = {&rs->body, SBX_OK};
	J_PRINTF(&j, "{\"table\":");
	j_str(&j, table);
	J_PRINTF(&j, ",\"servers\":%d,\"regions\":[",
		 sbx_db_region_servers(db));
	for (size_t i = 0; i < n; i++) {
		if (i)
			J_PRINTF(&j, ",");
		j_region(&j, &r[i]);
	}
	J_PRINTF(&j, "]}");
	sbx_region_infos_free(r, n);
	ui_json_done(rs, &j);
}

/* ---- /ui/api/table/<t>/heatmap ------------------------------------------- */

typedef enum ui_metric {
	METRIC_OPS,
	METRIC_READS,
	METRIC_WRITES,
	METRIC_BYTES,
	METRIC_READ_BYTES,
	METRIC_WRITE_BYTES,
} ui_metric;

static const char *const metric_names[] = {
    [METRIC_OPS] = "ops",
    [METRIC_READS] = "reads",
    [METRIC_WRITES] = "writes",
    [METRIC_BYTES] = "bytes",
    [METRIC_READ_BYTES] = "read_bytes",
    [METRIC_WRITE_BYTES] = "write_bytes",
};

static uint64_t metric_value(const sbx_load_bucket *b, ui_metric m)
{
	switch (m) {
	case METRIC_READS:
		return b->reads;
	case METRIC_WRITES:
		return b->writes;
	case METRIC_BYTES:
		return b->read_bytes + b->write_bytes;
	case METRIC_READ_BYTES:
		return b->read_bytes;
	case METRIC_WRITE_BYTES:
		return b->write_bytes;
	default:
		return b->reads + b->writes;
	}
}

/* The window shown: the last `shown` of each region's nbuckets. */
typedef struct heat_view {
	ui_metric metric;
	size_t shown, skip;
	int64_t bucket_ms;
	uint64_t *totals; /* per region over the window */
	uint64_t max_cell, sum;
	size_t hottest;	      /* index, or SIZE_MAX when nothing is hot */
	double region_score;  /* busiest region / mean region over the window */
	sbx_hotspot verdict;  /* sbx_hotspot_compute over the buckets */
	size_t busiest;	      /* the region with the most load */
	int nservers;
	uint64_t *server_totals;
	size_t *server_regions;
} heat_view;

static void heat_view_free(heat_view *v)
{
	free(v->totals);
	free(v->server_totals);
	free(v->server_regions);
}

/* A region is hot when its load is at least twice the mean region's, or
 * when it is the busiest and the verdict says hot. */
static bool is_hot(const heat_view *v, size_t i, size_t n)
{
	if (!v->totals[i])
		return false;
	if (n > 1 && v->totals[i] * n >= 2 * v->sum)
		return true;
	return v->verdict.level == SBX_HOTSPOT_HOT && i == v->busiest;
}

/* Per bucket of the window, per modelled server: the load (the verdict's
 * input, [k * nservers + s]). */
static uint64_t *server_matrix(const heat_view *v, const sbx_region_load *l,
			       size_t n)
{
	size_t nb = n ? l[0].nbuckets : 0;
	uint64_t *m = sbx_calloc(v->shown ? v->shown * (size_t)v->nservers : 1,
				 sizeof *m);
	for (size_t k = v->skip; m && k < nb; k++)
		for (size_t i = 0; i < n; i++)
			if (l[i].server >= 0 && k < l[i].nbuckets)
				m[(k - v->skip) * (size_t)v->nservers +
				  (size_t)l[i].server] +=
				    metric_value(&l[i].buckets[k], v->metric);
	return m;
}

static int heat_view_compute(heat_view *v, const sbx_region_load *l, size_t n,
			     size_t want, int nservers)
{
	size_t nb = n ? l[0].nbuckets : 0;
	v->shown = want < nb ? want : nb;
	v->skip = nb - v->shown;
	v->bucket_ms =
	    nb >= 2 ? l[0].buckets[1].start_ms - l[0].buckets[0].start_ms : 0;
	v->nservers = nservers > 0 ? nservers : 1;
	for (size_t i = 0; i < n; i++)
		if (l[i].server >= v->nservers)
			v->nservers = l[i].server + 1;
	v->totals = sbx_calloc(n ? n : 1, sizeof *v->totals);
	v->server_totals =
	    sbx_calloc((size_t)v->nservers, sizeof *v->server_totals);
	v->server_regions =
	    sbx_calloc((size_t)v->nservers, sizeof *v->server_regions);
	if (!v->totals || !v->server_totals || !v->server_regions)
		return SBX_ENOMEM;
	uint64_t max_total = 0;
	for (size_t i = 0; i < n; i++) {
		for (size_t k = v->skip; k < l[i].nbuckets; k++) {
			uint64_t x = metric_value(&l[i].buckets[k], v->metric);
			v->totals[i] += x;
			if (x > v->max_cell)
				v->max_cell = x;
		}
		v->sum += v->totals[i];
		if (l[i].server >= 0) {
			v->server_totals[l[i].server] += v->totals[i];
			v->server_regions[l[i].server]++;
		}
		if (v->totals[i] > max_total) {
			max_total = v->totals[i];
			v->hottest = i;
		}
	}
	v->region_score =
	    v->sum ? (double)max_total * (double)n / (double)v->sum : 0;
	uint64_t *m = server_matrix(v, l, n);
	if (!m)
		return SBX_ENOMEM;
	int rc = sbx_hotspot_compute(&v->verdict, m, v->shown, v->nservers);
	free(m);
	if (rc)
		return rc;
	v->busiest = v->hottest;
	if (!max_total || !is_hot(v, v->hottest, n))
		v->hottest = SIZE_MAX;
	return SBX_OK;
}

/* The verdict as JSON: level word, colour, figures and the sentence. */
static void j_verdict(json_out *j, const sbx_hotspot *h)
{
	sbx_buf t = {0};
	if (!j->rc)
		j->rc = sbx_hotspot_text(&t, h, "server-");
	J_PRINTF(j,
		 "{\"level\":\"%s\",\"color\":\"%s\",\"score\":%.2f,"
		 "\"busiest_share\":%.4f,\"busiest_server\":%d,"
		 "\"hot_from\":%.2f,\"text\":",
		 h->word, h->color, h->score, h->busiest_share,
		 h->busiest_server, sbx_hotspot_hot_score(h->servers));
	if (!j->rc)
		j->rc = rest_json_string(j->b, (const char *)t.data, t.len);
	J_PRINTF(j, "}");
	sbx_buf_free(&t);
}

static void j_heat_row(json_out *j, const heat_view *v,
		       const sbx_region_load *r, size_t i, size_t n)
{
	J_PRINTF(j, "{\"start_key\":");
	j_key(j, r->start_key, r->start_len);
	J_PRINTF(j, ",\"end_key\":");
	j_key(j, r->end_key, r->end_len);
	J_PRINTF(j,
		 ",\"server\":\"server-%d\",\"total\":%llu,\"hot\":%s,"
		 "\"values\":[",
		 r->server, (unsigned long long)v->totals[i],
		 is_hot(v, i, n) ? "true" : "false");
	for (size_t k = v->skip; k < r->nbuckets; k++)
		J_PRINTF(j, "%s%llu", k > v->skip ? "," : "",
			 (unsigned long long)metric_value(&r->buckets[k],
							  v->metric));
	J_PRINTF(j, "]}");
}

static void j_heatmap(json_out *j, const heat_view *v, const char *table,
		      const sbx_region_load *l, size_t n)
{
	int64_t first = n && v->shown ? l[0].buckets[v->skip].start_ms : 0;
	J_PRINTF(j, "{\"table\":");
	j_str(j, table);
	J_PRINTF(j,
		 ",\"metric\":\"%s\",\"bucket_ms\":%lld,\"buckets\":%zu,"
		 "\"start_ms\":%lld,\"max\":%llu,\"total\":%llu,"
		 "\"score\":%.2f,\"busiest_share\":%.2f,"
		 "\"region_score\":%.2f,\"verdict\":",
		 metric_names[v->metric], (long long)v->bucket_ms, v->shown,
		 (long long)first, (unsigned long long)v->max_cell,
		 (unsigned long long)v->sum, v->verdict.score,
		 v->verdict.busiest_share, v->region_score);
	j_verdict(j, &v->verdict);
	J_PRINTF(j, ",\"hottest\":");
	if (v->hottest == SIZE_MAX)
		J_PRINTF(j, "null");
	else
		J_PRINTF(j, "%zu", v->hottest);
	J_PRINTF(j, ",\"rows\":[");
	for (size_t i = 0; i < n; i++) {
		if (i)
			J_PRINTF(j, ",");
		j_heat_row(j, v, &l[i], i, n);
	}
	J_PRINTF(j, "],\"servers\":[");
	for (int s = 0; s < v->nservers; s++)
		J_PRINTF(
		    j,
		    "%s{\"name\":\"server-%d\",\"regions\":%zu,\"total\":%llu}",
		    s ? "," : "", s, v->server_regions[s],
		    (unsigned long long)v->server_totals[s]);
	J_PRINTF(j, "]}");
}

static bool parse_heat_args(rest_request *rq, rest_response *rs,
			    size_t *buckets, ui_metric *metric)
{
	char err[REST_ERR_LEN];
	int64_t b = UI_DEFAULT_BUCKETS;
	if (rest_query_int64(rq, "buckets", &b, err)) {
		ui_json_error(rs, 400, "%s", err);
		return false;
	}
	if (b < 1 || b > UI_MAX_BUCKETS) {
		ui_json_error(rs, 400, "buckets must be between 1 and %d",
			      UI_MAX_BUCKETS);
		return false;
	}
	*buckets = (size_t)b;
	*metric = METRIC_OPS;
	const rest_arg *m = rest_query(rq, "metric");
	if (!m)
		return true;
	for (size_t i = 0; i < sizeof metric_names / sizeof *metric_names; i++)
		if (!strcmp((const char *)m->value.data, metric_names[i])) {
			*metric = (ui_metric)i;
			return true;
		}
	ui_json_error(rs, 400,
		      "unknown metric '%.64s' (ops, reads, writes, "
		      "bytes, read_bytes or write_bytes)",
		      (const char *)m->value.data);
	return false;
}

static void api_heatmap(rest_request *rq, rest_response *rs, const char *table)
{
	heat_view v = {0};
	if (!parse_heat_args(rq, rs, &v.shown, &v.metric))
		return;
	sbx_db *db = rq->srv->db;
	sbx_region_load *l;
	size_t n;
	/* at least two buckets, so the bucket width shows in their starts */
	int rc = sbx_table_load(&l, &n, db, table, v.shown < 2 ? 2 : v.shown);
	if (rc)
		return ui_lib_error(rs, rc, table);
	rc = heat_view_compute(&v, l, n, v.shown, sbx_db_region_servers(db));
	json_out j = {&rs->body, rc};
	j_heatmap(&j, &v, table, l, n);
	heat_view_free(&v);
	sbx_region_loads_free(l, n);
	ui_json_done(rs, &j);
}

/* ---- /ui/api/table/<t>/keyheat -------------------------------------------- */

#define UI_DEFAULT_KEY_ROWS 32
#define UI_MAX_KEY_ROWS 256

typedef struct key_view {
	sbx_keyheat *h;
	char **labels;
	char **ranges;
	double *values;
	double *bounds;
	size_t nbounds;
	uint64_t *server_load;
	int nservers;
	sbx_hotspot verdict;
} key_view;

/* Byte order of row keys (the server sees only the public API). */
static int key_cmp(const void *a, size_t alen, const void *b,
			     size_t blen)
{
	size_t n = alen < blen ? alen : blen;
	int c = n ? memcmp(a, b, n) : 0;
	return c ? c : (alen > blen) - (alen < blen);
}

static void key_view_free(key_view *k)
{
	if (k->h) {
		sbx_labels_free(k->labels, k->h->rows);
		for (size_t i = 0; k->ranges && i < k->h->rows; i++)
			free(k->ranges[i]);
	}
	free(k->ranges);
	free(k->values);
	free(k->bounds);
	free(k->server_load);
	sbx_keyheat_free(k->h);
}

static char *key_text(const void *key, size_t len)
{
	sbx_buf t = {0};
	if (!len)
		return NULL;
	if (sbx_key_to_binary_string(&t, key, len) || sbx_buf_push(&t, 0)) {
		sbx_buf_free(&t);
		return NULL;
	}
	return (char *)t.data;
}

/* Hover text of each key bucket, its values in the metric, and the
 * region boundaries as row positions (the first bucket starting at or
 * after each region's start key). */
static int key_view_build(key_view *k, ui_metric metric,
			  const sbx_region_info *r, size_t nr)
{
	sbx_keyheat *h = k->h;
	int rc = sbx_key_labels(&k->labels, h->starts, h->rows, NULL);
	if (rc)
		return rc;
	k->ranges = sbx_calloc(h->rows, sizeof *k->ranges);
	k->values = sbx_calloc(h->rows * h->cols, sizeof *k->values);
	k->bounds = sbx_calloc(nr ? nr : 1, sizeof *k->bounds);
	if (!k->ranges || !k->values || !k->bounds)
		return SBX_ENOMEM_SET();
	for (size_t i = 0; i < h->rows; i++) {
		char *a = key_text(h->starts[i].data, h->starts[i].len);
		char *b = i + 1 < h->rows ? key_text(h->starts[i + 1].data,
						     h->starts[i + 1].len)
					  : NULL;
		sbx_buf t = {0};
		rc = sbx_buf_printf(&t, "keys [%s, %s)", a ? a : "(start)",
				    b ? b : "(end)");
		free(a);
		free(b);
		rc = rc ? rc : sbx_buf_push(&t, 0);
		if (rc) {
			sbx_buf_free(&t);
			return rc;
		}
		k->ranges[i] = (char *)t.data;
	}
	for (size_t i = 0; i < h->rows * h->cols; i++) {
		double v;
		switch (metric) {
		case METRIC_READS: v = h->reads[i]; break;
		case METRIC_WRITES: v = h->writes[i]; break;
		case METRIC_BYTES:
		case METRIC_READ_BYTES:
		case METRIC_WRITE_BYTES: v = h->bytes[i]; break;
		default: v = h->reads[i] + h->writes[i];
		}
		k->values[i] = v;
	}
	for (size_t j = 1; j < nr; j++) {
		size_t row = 0;
		while (row < h->rows &&
		       key_cmp(h->starts[row].data, h->starts[row].len,
					 r[j].start_key, r[j].start_len) < 0)
			row++;
		k->bounds[k->nbounds++] = (double)row;
	}
	return SBX_OK;
}

static bool parse_key_args(rest_request *rq, rest_response *rs, size_t *rows)
{
	char err[REST_ERR_LEN];
	int64_t r = UI_DEFAULT_KEY_ROWS;
	if (rest_query_int64(rq, "rows", &r, err)) {
		ui_json_error(rs, 400, "%s", err);
		return false;
	}
	if (r < 1 || r > UI_MAX_KEY_ROWS) {
		ui_json_error(rs, 400, "rows must be between 1 and %d",
			      UI_MAX_KEY_ROWS);
		return false;
	}
	*rows = (size_t)r;
	return true;
}

static void api_keyheat(rest_request *rq, rest_response *rs, const char *table)
{
	heat_view v = {0};
	size_t rows;
	if (!parse_heat_args(rq, rs, &v.shown, &v.metric) ||
	    !parse_key_args(rq, rs, &rows))
		return;
	sbx_db *db = rq->srv->db;
	sbx_keysampler_opts ko;
	sbx_keysampler_opts_init(&ko);
	size_t cols = v.shown < 2 ? 2 : v.shown;
	if (cols > (size_t)ko.columns)
		cols = (size_t)ko.columns;
	sbx_region_load *l = NULL;
	sbx_region_info *ri = NULL;
	size_t n = 0, nr = 0;
	key_view k = {0};
	int rc = sbx_table_load(&l, &n, db, table, cols);
	if (!rc)
		rc = sbx_table_regions(&ri, &nr, db, table);
	if (rc) {
		sbx_region_loads_free(l, n);
		return ui_lib_error(rs, rc, table);
	}
	rc = heat_view_compute(&v, l, n, cols, sbx_db_region_servers(db));
	if (!rc)
		rc = sbx_table_keyheat(&k.h, db, table, cols, rows);
	if (!rc)
		rc = key_view_build(&k, v.metric, ri, nr);
	/* the per-server strip only when its buckets are the key columns */
	if (!rc && v.bucket_ms == k.h->column_ms) {
		k.server_load = server_matrix(&v, l, n);
		if (!k.server_load)
			rc = SBX_ENOMEM_SET();
	}
	if (!rc) {
		char unit[64], title[300];
		snprintf(unit, sizeof unit, "%s per %lld ms column",
			 v.metric >= METRIC_BYTES ? "bytes"
						  : metric_names[v.metric],
			 (long long)k.h->column_ms);
		if (k.h->column_ms % 1000 == 0)
			snprintf(unit, sizeof unit, "%s per %lld s column",
				 v.metric >= METRIC_BYTES
				     ? "bytes"
				     : metric_names[v.metric],
				 (long long)(k.h->column_ms / 1000));
		snprintf(title, sizeof title,
			 "%.200s: %s by key, %zu key buckets of %zu sampled "
			 "keys, %zu region%s",
			 table, metric_names[v.metric], k.h->rows,
			 k.h->distinct, nr, nr == 1 ? "" : "s");
		sbx_heatgrid g = {
		    .title = title,
		    .rows = k.h->rows,
		    .cols = k.h->cols,
		    .labels = (const char *const *)k.labels,
		    .ranges = (const char *const *)k.ranges,
		    .values = k.values,
		    .reads = k.h->reads,
		    .writes = k.h->writes,
		    .bytes = k.h->bytes,
		    .unit = unit,
		    .time_title = "time",
		    .start_ms = k.h->start_ms,
		    .column_ms = k.h->column_ms,
		    .live = true,
		    .boundaries = k.bounds,
		    .nboundaries = k.nbounds,
		    .server_load = k.server_load,
		    .servers = v.nservers,
		    .server_unit = metric_names[v.metric],
		    .verdict = &v.verdict,
		    .server_prefix = "server-",
		};
		rc = sbx_heatgrid_svg(&rs->body, &g, "keyheat-svg");
	}
	key_view_free(&k);
	heat_view_free(&v);
	sbx_region_loads_free(l, n);
	sbx_region_infos_free(ri, nr);
	if (rc == SBX_ENOMEM)
		return ui_json_error(rs, 503, "out of memory building the "
					      "reply");
	if (rc)
		return ui_lib_error(rs, rc, table);
	rs->status = 200;
	rs->content_type = "image/svg+xml";
	rs->no_cache = true;
}

/* ---- routing ------------------------------------------------------------- */

static const ui_asset *find_asset(const char *name)
{
	for (size_t i = 0; i < ui_nassets; i++)
		if (!strcmp(ui_assets[i].name, name))
			return &ui_assets[i];
	return NULL;
}

bool ui_owns_path(const char *path)
{
	if (strncmp(path, "/ui", 3))
		return false;
	const char *rest = path + 3;
	if (!*rest || !strcmp(rest, "/"))
		return true;
	if (*rest != '/')
		return false; /* "/uix...": another table */
	rest++;
	return !strcmp(rest, "api") || !strncmp(rest, "api/", 4) ||
	       find_asset(rest) != NULL;
}

static void serve_asset(rest_response *rs, const ui_asset *a)
{
	if (sbx_buf_set(&rs->body, a->data, a->len))
		return ui_json_error(rs, 503, "out of memory");
	rs->status = 200;
	rs->content_type = a->mime;
	rs->no_cache = true;
}

/* "table/<t>/<what>" (t percent-encoded). */
static void api_table(rest_request *rq, rest_response *rs, const char *sub)
{
	const char *slash = strchr(sub, '/');
	sbx_buf name = {0};
	if (!slash || slash == sub ||
	    rest_url_decode(&name, sub, (size_t)(slash - sub)) ||
	    memchr(name.data, 0, name.len)) {
		sbx_buf_free(&name);
		return ui_json_error(rs, 400,
				     "expected /ui/api/table/<table>/"
				     "regions or .../heatmap");
	}
	const char *table = (const char *)name.data;
	const char *what = slash + 1;
	if (!strcmp(what, "regions"))
		api_regions(rq, rs, table);
	else if (!strcmp(what, "heatmap"))
		api_heatmap(rq, rs, table);
	else if (!strcmp(what, "keyheat"))
		api_keyheat(rq, rs, table);
	else
		ui_json_error(
		    rs, 404, "no such view '%.64s' (regions, heatmap or "
			"keyheat)", what);
	sbx_buf_free(&name);
}

void ui_handle(rest_request *rq, rest_response *rs)
{
	if (rq->method != METHOD_GET && rq->method != METHOD_HEAD)
		return ui_json_error(rs, 405, "the UI is read-only: GET only");
	const char *rest = rq->path + 3; /* after "/ui" */
	if (*rest == '/')
		rest++;
	if (!*rest)
		rest = "index.html";
	if (!strcmp(rest, "api/tables"))
		return api_tables(rq, rs);
	if (!strcmp(rest, "api/server"))
		return api_server(rq, rs);
	if (!strncmp(rest, "api/table/", 10))
		return api_table(rq, rs, rest + 10);
	if (!strcmp(rest, "api") || !strncmp(rest, "api/", 4))
		return ui_json_error(rs, 404, "unknown API path '%.128s'",
				     rq->path);
	const ui_asset *a = find_asset(rest);
	if (!a)
		return ui_json_error(rs, 404, "no such file '%.128s'",
				     rq->path);
	serve_asset(rs, a);
}
