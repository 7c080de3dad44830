/*
 * h_scan.c - scans: the streamed CellSet writer shared with range GETs, the
 * stateless scanner (GET /{t}/STAR?startrow=..&filter=<filter language>), and
 * HBase's stateful scanners (PUT /{t}/scanner -> 201 + Location; GET pages
 * of at most `batch` cells; 204 when exhausted; DELETE), which expire when
 * idle and are bounded in number.
 */
#include "server/handlers.h"

#include "common/alloc.h"
#include "common/buf.h"
#include "common/bytes.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>

/* ---- streaming ------------------------------------------------------------------ */

/* Rows written per chunk of a streamed response. */
#define STREAM_ROWS_PER_CHUNK 64

typedef struct scan_stream {
	rest_server *srv; /* t is borrowed from its handle cache */
	sbx_table *t;
	sbx_scanner *s;
	sbx_filter *f;
	sbx_result *pending;
	rest_cellset_writer w;
	bool pb_frames;
	bool closed;
} scan_stream;

static int scan_stream_next(void *state, sbx_buf *out)
{
	scan_stream *st = state;
	if (st->closed)
		return 0;
	for (int i = 0; i < STREAM_ROWS_PER_CHUNK; i++) {
		sbx_result *r = st->pending;
		st->pending = NULL;
		int rc = r ? SBX_OK : sbx_scanner_next(st->s, &r);
		if (rc == SBX_ITEROVER) {
			st->closed = true;
			return rest_cellset_close(&st->w, out) ? -1 : 0;
		}
		if (rc)
			return -1;
		size_t n = sbx_result_size(r);
		if (st->pb_frames) {
			sbx_buf frame = {0};
			rest_cellset_writer fw = {.fmt = REST_FMT_PB};
			rc = rest_cellset_add(&fw, &frame, r, 0, n);
			rest_cellset_writer_free(&fw);
			if (rc == SBX_OK && frame.len <= 0xffff) {
				uint8_t len[2] = {(uint8_t)(frame.len >> 8),
						  (uint8_t)frame.len};
				rc = sbx_buf_append(out, len, 2);
				rc = rc ? rc : sbx_buf_append(out, frame.data, frame.len);
			} else if (rc == SBX_OK) {
				rc = SBX_ETOOLARGE; /* a frame has a 16-bit length */
			}
			sbx_buf_free(&frame);
		} else if (n > 0) {
			rc = rest_cellset_add(&st->w, out, r, 0, n);
		}
		sbx_result_free(r);
		if (rc)
			return -1;
	}
	return 1;
}

static void scan_stream_free(void *state)
{
	scan_stream *st = state;
	sbx_result_free(st->pending);
	sbx_scanner_close(st->s);
	sbx_filter_free(st->f);
	rest_table_release(st->srv, st->t, false);
	rest_cellset_writer_free(&st->w);
	free(st);
}

void rest_stream_scan(rest_server *srv, rest_response *rs, rest_fmt fmt,
		      bool pb_frames, sbx_table *t, sbx_scanner *s,
		      sbx_filter *f, sbx_result *first)
{
	scan_stream *st = sbx_calloc(1, sizeof *st);
	if (!st) {
		sbx_result_free(first);
		sbx_scanner_close(s);
		sbx_filter_free(f);
		rest_table_release(srv, t, false);
		return rest_error(rs, 503, "out of memory");
	}
	st->srv = srv;
	st->t = t;
	st->s = s;
	st->f = f;
	st->pending = first;
	st->pb_frames = pb_frames && fmt == REST_FMT_PB;
	rs->body.len = 0;
	rest_cellset_open(&st->w, &rs->body, fmt);
	rs->stream = (rest_stream){scan_stream_next, scan_stream_free, st};
}

/* ---- filters ----------------------------------------------------------------------- */

/* AND a PrefixFilter onto an optional filter (the prefix scan route). */
static int add_prefix_filter(sbx_filter **f, const void *prefix, size_t len)
{
	sbx_filter *pf;
	int rc = sbx_filter_new_prefix(&pf, prefix, len);
	if (rc || !*f) {
		*f = rc ? *f : pf;
		return rc;
	}
	sbx_filter *both[2] = {pf, *f};
	sbx_filter *list;
	rc = sbx_filter_new_list(&list, SBX_FILTER_MUST_PASS_ALL, both, 2);
	*f = rc ? NULL : list; /* the list owns both, even on failure */
	return rc;
}

/* The key right after every key with this prefix ("" if none exists). */
static size_t prefix_successor(uint8_t *out, const uint8_t *prefix, size_t len)
{
	memcpy(out, prefix, len);
	while (len > 0 && out[len - 1] == 0xff)
		len--;
	if (len > 0)
		out[len - 1]++;
	return len;
}

/* ---- stateless scan ------------------------------------------------------------------ */

static bool query_bool(const rest_request *rq, const char *key)
{
	const rest_arg *a = rest_query(rq, key);
	return a && !strcasecmp((const char *)a->value.data, "true");
}

void h_scan(rest_request *rq, rest_response *rs)
{
	static const rest_fmt produces[] = {REST_FMT_XML, REST_FMT_JSON,
					    REST_FMT_PB};
	rest_fmt fmt;
	if (!rest_allow(rq, rs, ALLOW_GET) || !rest_accept(rq, rs, produces, 3, &fmt))
		return;
	char err[REST_ERR_LEN] = "";
	int64_t start_time = 0, end_time = INT64_MAX, versions = 1, limit = 0,
		batch = 0;
	if (rest_query_int64(rq, "starttime", &start_time, err) ||
	    rest_query_int64(rq, "endtime", &end_time, err) ||
	    rest_query_int64(rq, "maxversions", &versions, err) ||
	    rest_query_int64(rq, "limit", &limit, err) ||
	    rest_query_int64(rq, "batchsize", &batch, err))
		return rest_error(rs, 400, "%s", err);
	if (versions < 1 || versions > INT32_MAX || limit < 0 || batch < 0 ||
	    batch > INT32_MAX || start_time < 0 || start_time > end_time)
		return rest_error(rs, 400, "maxversions, limit, batchsize or time "
					   "range out of range");
	/* Columns: every column= argument. */
	size_t ncols = 0;
	rest_column *cols = sbx_calloc(rq->nargs + 1, sizeof *cols);
	sbx_column *scols = sbx_calloc(rq->nargs + 1, sizeof *scols);
	sbx_filter *filter = NULL;
	sbx_table *t = NULL;
	uint8_t *succ = NULL;
	if (!cols || !scols) {
		rest_error(rs, 503, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < rq->nargs; i++) {
		if (strcmp(rq->args[i].key, "column"))
			continue;
		if (rest_column_parse(&cols[ncols], rq->args[i].value.data,
				      rq->args[i].value.len, err)) {
			rest_error(rs, 400, "%s", err);
			goto out;
		}
		ncols++;
	}
	const rest_arg *fa = rest_query(rq, "filter");
	if (fa && fa->value.len) {
		size_t pos = 0;
		if (sbx_filter_parse(&filter, (const char *)fa->value.data,
				     fa->value.len, &pos)) {
			rest_error(rs, 400, "bad filter: %s", sbx_errmsg());
			goto out;
		}
	}
	const sbx_buf *prefix = &rq->route.spec.row;
	if (prefix->len && add_prefix_filter(&filter, prefix->data, prefix->len)) {
		rest_sbx_error(rs, SBX_ENOMEM);
		goto out;
	}
	if (rest_open_table(&t, rq, rs))
		goto out;
	sbx_scan_opts so;
	sbx_scan_opts_init(&so);
	rest_columns_to_sbx(scols, cols, ncols);
	so.read.columns = ncols ? scols : NULL;
	so.read.ncolumns = ncols;
	so.read.max_versions = (int)versions;
	so.read.min_ts = start_time;
	so.read.max_ts = end_time;
	so.read.filter = filter;
	so.reversed = query_bool(rq, "reversed");
	so.limit = limit;
	if (!filter || !sbx_filter_has_filter_row(filter))
		so.batch = (int)batch;
	const rest_arg *sr = rest_query(rq, "startrow");
	const rest_arg *er = rest_query(rq, "endrow");
	if (sr) {
		so.start_row = sr->value.data;
		so.start_row_len = sr->value.len;
	}
	if (er) {
		so.stop_row = er->value.data;
		so.stop_row_len = er->value.len;
	}
	if (prefix->len && !sr && !er) {
		succ = sbx_malloc(prefix->len);
		if (!succ) {
			rest_error(rs, 503, "out of memory");
			goto out;
		}
		size_t slen = prefix_successor(succ, prefix->data, prefix->len);
		if (!so.reversed) {
			so.start_row = prefix->data;
			so.start_row_len = prefix->len;
			so.stop_row = succ;
			so.stop_row_len = slen;
		} else {
			so.start_row = succ;
			so.start_row_len = slen;
			so.start_inclusive = false;
			so.stop_row = prefix->data;
			so.stop_row_len = prefix->len;
			so.stop_inclusive = true;
		}
	}
	sbx_scanner *s;
	int rc = sbx_scanner_open(&s, t, &so);
	if (rc == SBX_ENOFAMILY) {
		/* As HBase's TableScanResource: an unknown column finds no cells. */
		rest_cellset_writer w;
		rest_cellset_open(&w, &rs->body, fmt);
		rest_cellset_close(&w, &rs->body);
		rest_cellset_writer_free(&w);
		goto out;
	}
	if (rc) {
		rest_sbx_error(rs, rc);
		goto out;
	}
	rest_stream_scan(rq->srv, rs, fmt, true, t, s, filter, NULL);
	t = NULL;
	filter = NULL;
out:
	free(succ);
	rest_table_release(rq->srv, t, rs->sbx_status == SBX_ENOTFOUND);
	sbx_filter_free(filter);
	for (size_t i = 0; i < ncols; i++)
		rest_column_free(&cols[i]);
	free(cols);
	free(scols);
}

/* ---- stateful scanners ------------------------------------------------------------------ */

/*
 * The registry: a hash of the open scanners by id, the same entries on a
 * list ordered by last use (expiry takes the idle ones from its old end),
 * and a hash of per-client counts. Every step is O(1) in the number of
 * open scanners (up to max_scanners, 10,000 by default): a linear list
 * walked three times a request made each page cost 17x more with 9,000
 * scanners open (wrk: 43k -> 2.6k pages/s).
 */
typedef struct client_count {
	char client[64];
	size_t n;
	struct client_count *next; /* in its hash bucket */
} client_count;

typedef struct scanner_entry {
	char id[48];           /* 128 random bits in hex: unguessable */
	rest_server *srv;      /* t is borrowed from its handle cache */
	client_count *client;  /* the address that opened it, and its count */
	bool authed;           /* opened with the token: only it pages it */
	sbx_table *t;
	sbx_scanner *s;
	sbx_filter *f;
	sbx_result *cur;       /* a result partly sent on the previous page */
	size_t cur_pos;
	int batch;             /* cells per page, 0 = server limit */
	int open_error;        /* HBase 2.x opens lazily: report on first GET */
	char open_msg[REST_ERR_LEN];
	int64_t last_used_ms;
	int refs;              /* requests using it (under the registry lock) */
	bool removed;
	pthread_mutex_t lock;  /* one page at a time */
	struct scanner_entry *hnext;         /* in its hash bucket */
	struct scanner_entry *newer, *older; /* the use-ordered list */
} scanner_entry;

struct rest_scanners {
	pthread_mutex_t lock;
	scanner_entry **ids;       /* hash buckets by id */
	size_t nids;               /* a power of two, or 0 */
	scanner_entry *newest, *oldest;
	client_count **clients;    /* hash buckets by client */
	size_t nclients;           /* a power of two, or 0 */
	size_t count;              /* open scanners */
	size_t client_keys;        /* clients with a count */
};

static uint64_t str_hash(const char *s)
{
	return sbx_fnv1a(SBX_FNV1A_INIT, s, strlen(s));
}

int rest_scanners_new(struct rest_scanners **out)
{
	*out = sbx_calloc(1, sizeof **out);
	if (!*out)
		return SBX_ENOMEM;
	pthread_mutex_init(&(*out)->lock, NULL);
	return SBX_OK;
}

static void entry_free(scanner_entry *e)
{
	sbx_result_free(e->cur);
	sbx_scanner_close(e->s);
	sbx_filter_free(e->f);
	if (e->t)
		rest_table_release(e->srv, e->t, false);
	pthread_mutex_destroy(&e->lock);
	free(e);
}

void rest_scanners_free(struct rest_scanners *s)
{
	if (!s)
		return;
	for (scanner_entry *e = s->newest, *next; e; e = next) {
		next = e->older;
		entry_free(e);
	}
	for (size_t i = 0; i < s->nclients; i++)
		for (client_count *c = s->clients[i], *next; c; c = next) {
			next = c->next;
			free(c);
		}
	free(s->ids);
	free(s->clients);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

size_t rest_scanners_open(struct rest_scanners *s)
{
	pthread_mutex_lock(&s->lock);
	size_t n = s->count;
	pthread_mutex_unlock(&s->lock);
	return n;
}

/* Twice the buckets once a table holds as many keys as buckets (a failed
 * allocation keeps the table: longer chains, still correct). */
static void ids_grow(struct rest_scanners *reg)
{
	if (reg->count < reg->nids)
		return;
	size_t n = reg->nids ? reg->nids * 2 : 64;
	scanner_entry **b = sbx_calloc(n, sizeof *b);
	if (!b)
		return;
	for (size_t i = 0; i < reg->nids; i++)
		for (scanner_entry *e = reg->ids[i], *next; e; e = next) {
			next = e->hnext;
			size_t at = str_hash(e->id) & (n - 1);
			e->hnext = b[at];
			b[at] = e;
		}
	free(reg->ids);
	reg->ids = b;
	reg->nids = n;
}

static void clients_grow(struct rest_scanners *reg)
{
	if (reg->client_keys < reg->nclients)
		return;
	size_t n = reg->nclients ? reg->nclients * 2 : 64;
	client_count **b = sbx_calloc(n, sizeof *b);
	if (!b)
		return;
	for (size_t i = 0; i < reg->nclients; i++)
		for (client_count *c = reg->clients[i], *next; c; c = next) {
			next = c->next;
			size_t at = str_hash(c->client) & (n - 1);
			c->next = b[at];
			b[at] = c;
		}
	free(reg->clients);
	reg->clients = b;
	reg->nclients = n;
}

/* The client's count (created at 0 when `create`; NULL if absent or out
 * of memory). */
static client_count *client_get(struct rest_scanners *reg, const char *client,
				bool create)
{
	if (create)
		clients_grow(reg);
	if (!reg->nclients)
		return NULL;
	client_count **b = &reg->clients[str_hash(client) & (reg->nclients - 1)];
	for (client_count *c = *b; c; c = c->next)
		if (!strcmp(c->client, client))
			return c;
	if (!create)
		return NULL;
	client_count *c = sbx_calloc(1, sizeof *c);
	if (!c)
		return NULL;
	snprintf(c->client, sizeof c->client, "%s", client);
	c->next = *b;
	*b = c;
	reg->client_keys++;
	return c;
}

/* Forget a client with no scanner open. */
static void client_forget_idle(struct rest_scanners *reg, client_count *cc)
{
	if (cc->n)
		return;
	client_count **p =
	    &reg->clients[str_hash(cc->client) & (reg->nclients - 1)];
	while (*p != cc)
		p = &(*p)->next;
	*p = cc->next;
	reg->client_keys--;
	free(cc);
}

/* One scanner fewer for a client. */
static void client_drop(struct rest_scanners *reg, client_count *cc)
{
	cc->n--;
	client_forget_idle(reg, cc);
}

static void lru_unlink(struct rest_scanners *reg, scanner_entry *e)
{
	if (e->newer)
		e->newer->older = e->older;
	else
		reg->newest = e->older;
	if (e->older)
		e->older->newer = e->newer;
	else
		reg->oldest = e->newer;
	e->newer = e->older = NULL;
}

static void lru_push(struct rest_scanners *reg, scanner_entry *e)
{
	e->newer = NULL;
	e->older = reg->newest;
	if (reg->newest)
		reg->newest->newer = e;
	else
		reg->oldest = e;
	reg->newest = e;
}

/* Unlink e (registry lock held); free it now if no request uses it. */
static void entry_unlink_locked(struct rest_scanners *reg, scanner_entry *e)
{
	scanner_entry **p = &reg->ids[str_hash(e->id) & (reg->nids - 1)];
	while (*p != e)
		p = &(*p)->hnext;
	*p = e->hnext;
	lru_unlink(reg, e);
	reg->count--;
	client_drop(reg, e->client);
	e->client = NULL;
	e->removed = true;
	if (e->refs == 0)
		entry_free(e);
}

/* Scanners idle past idle_ms, from the old end of the use-ordered list:
 * only the expired ones and those in use (skipped) are visited. */
static void expire_locked(struct rest_scanners *reg, int64_t idle_ms)
{
	int64_t now = rest_now_ms();
	scanner_entry *e = reg->oldest;
	while (e && now - e->last_used_ms > idle_ms) {
		scanner_entry *newer = e->newer;
		if (e->refs == 0)
			entry_unlink_locked(reg, e);
		e = newer;
	}
}

static scanner_entry *entry_acquire(rest_request *rq, const char *table,
				    const char *id)
{
	rest_server *srv = rq->srv;
	struct rest_scanners *reg = srv->scanners;
	pthread_mutex_lock(&reg->lock);
	expire_locked(reg, srv->opts.scanner_idle_ms);
	scanner_entry *e =
	    reg->nids ? reg->ids[str_hash(id) & (reg->nids - 1)] : NULL;
	while (e && strcmp(e->id, id))
		e = e->hnext;
	if (e && e->t && strcmp(sbx_table_name(e->t), table))
		e = NULL; /* the id belongs to another table */
	if (e && e->authed != rq->authed)
		e = NULL; /* bound to the credential that opened it */
	if (e)
		e->refs++;
	pthread_mutex_unlock(&reg->lock);
	return e;
}

static void entry_release(rest_server *srv, scanner_entry *e, bool remove)
{
	struct rest_scanners *reg = srv->scanners;
	pthread_mutex_lock(&reg->lock);
	e->refs--;
	e->last_used_ms = rest_now_ms();
	if (!e->removed) { /* the newest use */
		lru_unlink(reg, e);
		lru_push(reg, e);
	}
	if (remove && !e->removed)
		entry_unlink_locked(reg, e);
	else if (e->removed && e->refs == 0)
		entry_free(e);
	pthread_mutex_unlock(&reg->lock);
}

/* 128 bits from the kernel's CSPRNG, as 32 hex digits. */
static int scanner_id(char *out, size_t cap)
{
	uint8_t raw[16];
	size_t got = 0;
	while (got < sizeof raw) {
		ssize_t n = getrandom(raw + got, sizeof raw - got, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return SBX_EIO;
		got += (size_t)n;
	}
	for (size_t i = 0; i < sizeof raw && 2 * i + 2 < cap; i++)
		snprintf(out + 2 * i, 3, "%02x", raw[i]);
	return SBX_OK;
}

static int open_scanner(scanner_entry *e, rest_request *rq, rest_response *rs,
			rest_scan_spec *spec)
{
	if (spec->filter && *spec->filter &&
	    sbx_filter_from_json(&e->f, spec->filter, strlen(spec->filter))) {
		rest_error(rs, 400, "bad filter: %s", sbx_errmsg());
		return SBX_EPARSE;
	}
	e->srv = rq->srv;
	int rc = rest_table_acquire(&e->t, rq->srv, rq->route.table);
	if (rc) {
		/* As HBase 2.x: created now, 404 on the first GET. */
		e->t = NULL;
		e->open_error = 404;
		snprintf(e->open_msg, sizeof e->open_msg, "table '%s' not found",
			 rq->route.table);
		return SBX_OK;
	}
	sbx_column *cols = sbx_calloc(spec->ncolumns + 1, sizeof *cols);
	if (!cols)
		return SBX_ENOMEM;
	sbx_scan_opts so;
	sbx_scan_opts_init(&so);
	rest_columns_to_sbx(cols, spec->columns, spec->ncolumns);
	so.read.columns = spec->ncolumns ? cols : NULL;
	so.read.ncolumns = spec->ncolumns;
	so.read.max_versions = spec->max_versions;
	so.read.min_ts = spec->start_time;
	so.read.max_ts = spec->end_time;
	so.read.filter = e->f;
	so.start_row = spec->start_row.data;
	so.start_row_len = spec->start_row.len;
	so.stop_row = spec->end_row.data;
	so.stop_row_len = spec->end_row.len;
	int limit = (int)rq->srv->opts.max_page_cells;
	e->batch = spec->batch > 0 && spec->batch < limit ? spec->batch : limit;
	/* Let the engine cut huge rows so a page never holds a whole one. */
	if (!e->f || !sbx_filter_has_filter_row(e->f))
		so.batch = e->batch;
	rc = sbx_scanner_open(&e->s, e->t, &so);
	free(cols);
	if (rc)
		rest_sbx_error(rs, rc);
	return rc;
}

static void scanner_create(rest_request *rq, rest_response *rs)
{
	rest_fmt fmt;
	if (!rest_body_fmt(rq, rs, &fmt, false))
		return;
	char err[REST_ERR_LEN] = "";
	rest_scan_spec spec;
	if (rest_scan_spec_decode(&spec, fmt, rq->body, rq->body_len, err))
		return rest_error(rs, 400, "%s", err);
	if (spec.batch < 0 || spec.max_versions < 0 || spec.start_time < 0 ||
	    spec.start_time > spec.end_time) {
		rest_scan_spec_free(&spec);
		return rest_error(rs, 400, "batch, maxVersions or time range out "
					   "of range");
	}
	scanner_entry *e = sbx_calloc(1, sizeof *e);
	if (!e) {
		rest_scan_spec_free(&spec);
		return rest_error(rs, 503, "out of memory");
	}
	pthread_mutex_init(&e->lock, NULL);
	int rc = open_scanner(e, rq, rs, &spec);
	rest_scan_spec_free(&spec);
	if (rc) {
		if (rs->status == 200)
			rest_error(rs, 503, "cannot open scanner");
		entry_free(e);
		return;
	}
	struct rest_scanners *reg = rq->srv->scanners;
	pthread_mutex_lock(&reg->lock);
	expire_locked(reg, rq->srv->opts.scanner_idle_ms);
	if (reg->count >= rq->srv->opts.max_scanners) {
		pthread_mutex_unlock(&reg->lock);
		entry_free(e);
		return rest_error(rs, 503, "too many open scanners (%zu); delete "
					   "finished ones", rq->srv->opts.max_scanners);
	}
	client_count *cc = client_get(reg, rq->client ? rq->client : "", true);
	if (!cc) {
		pthread_mutex_unlock(&reg->lock);
		entry_free(e);
		return rest_error(rs, 503, "cannot open scanner: out of memory");
	}
	if (cc->n >= rq->srv->opts.max_client_scanners) {
		client_forget_idle(reg, cc);
		pthread_mutex_unlock(&reg->lock);
		entry_free(e);
		rest_set_header(rs, "Retry-After", "1");
		return rest_error(rs, 429, "this client has %zu open scanners, "
					   "the most allowed; delete finished "
					   "ones", rq->srv->opts.max_client_scanners);
	}
	ids_grow(reg);
	if (!reg->nids || scanner_id(e->id, sizeof e->id)) {
		client_forget_idle(reg, cc);
		pthread_mutex_unlock(&reg->lock);
		entry_free(e);
		return rest_error(rs, 503, reg->nids ? "no randomness for a "
						       "scanner id"
						     : "cannot open scanner: "
						       "out of memory");
	}
	e->authed = rq->authed;
	e->last_used_ms = rest_now_ms();
	e->client = cc;
	cc->n++;
	size_t at = str_hash(e->id) & (reg->nids - 1);
	e->hnext = reg->ids[at];
	reg->ids[at] = e;
	lru_push(reg, e);
	reg->count++;
	char path[600];
	snprintf(path, sizeof path, "/%s/scanner/%s", rq->route.table, e->id);
	pthread_mutex_unlock(&reg->lock);
	rest_empty(rs, 201);
	rest_location(rq, rs, path);
}

void h_scanner(rest_request *rq, rest_response *rs)
{
	if (rest_allow(rq, rs, ALLOW_PUT | ALLOW_POST))
		scanner_create(rq, rs);
}

/* Write one page of at most `cells` cells and `rows` rows; *sent = cells. */
static int scanner_page(scanner_entry *e, rest_response *rs, rest_fmt fmt,
			size_t cells, size_t rows, size_t *sent)
{
	rest_cellset_writer w;
	rest_cellset_open(&w, &rs->body, fmt);
	*sent = 0;
	int rc = SBX_OK;
	for (size_t nrows = 0; *sent < cells && nrows < rows;) {
		if (!e->cur) {
			rc = sbx_scanner_next(e->s, &e->cur);
			if (rc == SBX_ITEROVER) {
				rc = SBX_OK;
				break;
			}
			if (rc)
				break;
			e->cur_pos = 0;
		}
		size_t avail = sbx_result_size(e->cur) - e->cur_pos;
		size_t take = avail < cells - *sent ? avail : cells - *sent;
		if (take)
			rest_cellset_add(&w, &rs->body, e->cur, e->cur_pos, take);
		*sent += take;
		e->cur_pos += take;
		nrows++;
		if (e->cur_pos == sbx_result_size(e->cur)) {
			sbx_result_free(e->cur);
			e->cur = NULL;
		}
	}
	rest_cellset_close(&w, &rs->body);
	rest_cellset_writer_free(&w);
	return rc;
}

static void scanner_next_binary(scanner_entry *e, rest_response *rs, bool *gone)
{
	if (!e->cur) {
		int rc = sbx_scanner_next(e->s, &e->cur);
		e->cur_pos = 0;
		if (rc == SBX_ITEROVER)
			return rest_empty(rs, 204);
		if (rc) {
			*gone = true;
			return rest_error(rs, 410, "%s", sbx_errmsg());
		}
	}
	const sbx_cell *c = sbx_result_cell(e->cur, e->cur_pos++);
	sbx_buf b = {0};
	rest_b64_encode(&b, c->row, c->row_len);
	sbx_buf_push(&b, 0);
	rest_set_header(rs, "X-Row", (const char *)b.data);
	b.len = 0;
	sbx_buf col = {0};
	sbx_buf_append(&col, c->family, c->family_len);
	sbx_buf_push(&col, ':');
	sbx_buf_append(&col, c->qualifier, c->qualifier_len);
	rest_b64_encode(&b, col.data, col.len);
	sbx_buf_push(&b, 0);
	rest_set_header(rs, "X-Column", (const char *)b.data);
	char ts[24];
	snprintf(ts, sizeof ts, "%lld", (long long)c->timestamp);
	rest_set_header(rs, "X-Timestamp", ts);
	sbx_buf_set(&rs->body, c->value, c->value_len);
	sbx_buf_free(&b);
	sbx_buf_free(&col);
	if (e->cur_pos == sbx_result_size(e->cur)) {
		sbx_result_free(e->cur);
		e->cur = NULL;
	}
}

static void scanner_get(rest_request *rq, rest_response *rs, scanner_entry *e,
			bool *remove)
{
	static const rest_fmt produces[] = {REST_FMT_XML, REST_FMT_JSON,
					    REST_FMT_PB, REST_FMT_BINARY};
	rest_fmt fmt;
	if (!rest_accept(rq, rs, produces, 4, &fmt))
		return;
	if (e->open_error) {
		*remove = true;
		return rest_error(rs, e->open_error, "%s", e->open_msg);
	}
	rs->no_cache = true;
	if (fmt == REST_FMT_BINARY)
		return scanner_next_binary(e, rs, remove);
	char err[REST_ERR_LEN];
	int64_t cells = e->batch, rows = INT64_MAX;
	if (rest_query_int64(rq, "c", &cells, err) ||
	    rest_query_int64(rq, "n", &rows, err))
		return rest_error(rs, 400, "%s", err);
	int64_t max = (int64_t)rq->srv->opts.max_page_cells;
	if (cells <= 0 || cells > max)
		cells = max;
	if (rows <= 0)
		rows = INT64_MAX;
	size_t sent;
	int rc = scanner_page(e, rs, fmt, (size_t)cells, (size_t)rows, &sent);
	if (rc == SBX_ENOTFOUND || rc == SBX_EDISABLED) {
		*remove = true;
		return rest_error(rs, 410, "%s", sbx_errmsg());
	}
	if (rc)
		return rest_sbx_error(rs, rc);
	if (sent == 0) {
		rs->content_type = NULL;
		rest_empty(rs, 204);
	}
}

void h_scanner_id(rest_request *rq, rest_response *rs)
{
	if (!rest_allow(rq, rs, ALLOW_GET | ALLOW_DELETE))
		return;
	scanner_entry *e = entry_acquire(rq, rq->route.table, rq->route.name);
	if (!e) {
		if (rq->method == METHOD_DELETE)
			return rest_empty(rs, 200); /* as HBase: unknown id is fine */
		return rest_error(rs, 404, "scanner '%s' not found (deleted or "
					   "expired)", rq->route.name);
	}
	bool remove = rq->method == METHOD_DELETE;
	if (remove) {
		rest_empty(rs, 200);
	} else {
		pthread_mutex_lock(&e->lock);
		scanner_get(rq, rs, e, &remove);
		pthread_mutex_unlock(&e->lock);
	}
	entry_release(rq->srv, e, remove);
}
