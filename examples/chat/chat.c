/*
 * chat.c - `saltbox-chat`: seed 002's chat message store on Saltbox's
 * public API. The seed's three message keys (date:time:message_id,
 * message_id:date:time, md5(message_id):date:time:message_id), a salted
 * variant and a room_id + reverse timestamp key, each its own table; a
 * writer at a target rate writes every message into every table through
 * the table API (and records each table's row keys as a keyviz trace);
 * then "latest N messages of a room" and "messages of one day" are read
 * from each design the way its key allows - one range scan, a scan per
 * salt bucket or per room, or a full scan - and their cost (scans, rows
 * read, time) is measured and printed, with a check that every design
 * returned the same messages.
 *
 * The MD5 key's blind spot - it cannot list a room's messages without a
 * full scan - is solved with a room index table (room_id + reverse ts ->
 * the message's MD5 row key) written with the message in one transaction,
 * so the message rows stay spread and a room's latest N is one index scan
 * and N gets.
 *
 *   saltbox-chat run (--data DIR | --connect URL) [--messages N]
 *       [--rate MSG/S] [--rooms N] [--days N] [--latest N] [--trace-dir DIR]
 *   saltbox-chat designs
 */
#include <saltbox.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char designs_text[] =
    "# The chat-message article's message keys, a salted variant, and a "
    "room-first key.\n"
    "chat_time = date:str(6) + ':' + time:str(6) + ':' + message_id:dec\n"
    "chat_id   = message_id:dec mono + ':' + date:str(6) + ':' + "
    "time:str(6)\n"
    "chat_md5  = md5(message_id) + ':' + date:str(6) + ':' + time:str(6) "
    "+ ':' + message_id:dec\n"
    "chat_salt = salt(16, of=message_id) + date:str(6) + time:str(6) + "
    "message_id:u64\n"
    "chat_room = room_id:str(8) + ts:rts64 + message_id:u64\n"
    "# The MD5 key's room index: room_id + reverse ts -> the MD5 row key.\n"
    "chat_md5_room = room_id:str(8) + ts:rts64 + message_id:u64\n";

enum { D_TIME, D_ID, D_MD5, D_SALT, D_ROOM, D_IDX, ND };
static const char *const names[ND] = {"chat_time", "chat_id",
				      "chat_md5",  "chat_salt",
				      "chat_room", "chat_md5_room"};
/* the fields each design takes (NULL-ended) */
static const char *const fields[ND][5] = {
    {"date", "time", "message_id", NULL},
    {"message_id", "date", "time", NULL},
    {"message_id", "date", "time", NULL},
    {"message_id", "date", "time", NULL},
    {"room_id", "ts", "message_id", NULL},
    {"room_id", "ts", "message_id", NULL},
};
#define SALT_BUCKETS 16
#define FIRST_ID 1231231ull /* the seed's first message id */

typedef struct msg {
	uint64_t id;
	int64_t ts;
	char room[9];
	char date[7], time[7];
} msg;

typedef struct app {
	sbx_db *db;
	sbx_keyset *keys;
	const sbx_keydesign *d[ND];
	sbx_table *t[ND];
	FILE *trace[ND];
} app;

#define TRY(call)                                                              \
	do {                                                                   \
		int rc_ = (call);                                              \
		if (rc_ != SBX_OK) {                                           \
			fprintf(stderr, "saltbox-chat: %s: %s (%s)\n", #call,  \
				sbx_errmsg(), sbx_strerror(rc_));              \
			exit(1);                                               \
		}                                                              \
	} while (0)

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void fill_msg(msg *m, uint64_t id, int64_t ts, int room)
{
	m->id = id;
	m->ts = ts;
	snprintf(m->room, sizeof m->room, "r%04d", room);
	time_t s = (time_t)(ts / 1000);
	struct tm tm;
	gmtime_r(&s, &tm);
	strftime(m->date, sizeof m->date, "%y%m%d", &tm);
	strftime(m->time, sizeof m->time, "%H%M%S", &tm);
}

/* The key of m under design i. */
static void key_of(sbx_buf *out, const app *a, int i, const msg *m)
{
	char id[24], ts[24];
	snprintf(id, sizeof id, "%llu", (unsigned long long)m->id);
	snprintf(ts, sizeof ts, "%lld", (long long)m->ts);
	sbx_keyvalue v[4];
	size_t n = 0;
	for (int f = 0; fields[i][f]; f++) {
		const char *name = fields[i][f];
		const char *val = !strcmp(name, "date")	     ? m->date
				  : !strcmp(name, "time")    ? m->time
				  : !strcmp(name, "room_id") ? m->room
				  : !strcmp(name, "ts")	     ? ts
							     : id;
		v[n++] = (sbx_keyvalue){name, val, strlen(val)};
	}
	out->len = 0;
	TRY(sbx_keydesign_encode(out, a->d[i], v, n));
}

static void trace_key(FILE *f, const char *op, const uint8_t *k, size_t n)
{
	if (!f)
		return;
	fprintf(f, "%s\t", op);
	for (size_t i = 0; i < n; i++) {
		if (k[i] >= 0x20 && k[i] < 0x7F && k[i] != '\\')
			fputc(k[i], f);
		else
			fprintf(f, "\\x%02X", k[i]);
	}
	fputc('\n', f);
}

static int put_msg(sbx_table *t, sbx_txn *txn, const sbx_buf *k, const msg *m,
		   const sbx_buf *value_key)
{
	char id[24], ts[24];
	snprintf(id, sizeof id, "%llu", (unsigned long long)m->id);
	snprintf(ts, sizeof ts, "%lld", (long long)m->ts);
	sbx_mutation *mu;
	int rc = sbx_mutation_new(&mu, k->data, k->len);
	if (value_key) {
		rc =
		    rc ? rc
		       : sbx_mutation_put(mu, "m", "k", 1, SBX_LATEST_TIMESTAMP,
					  value_key->data, value_key->len);
	} else {
		char text[64];
		snprintf(text, sizeof text, "message %llu in %s",
			 (unsigned long long)m->id, m->room);
		rc =
		    rc ? rc
		       : sbx_mutation_put(mu, "m", "id", 2,
					  SBX_LATEST_TIMESTAMP, id, strlen(id));
		rc = rc ? rc
			: sbx_mutation_put(mu, "m", "room", 4,
					   SBX_LATEST_TIMESTAMP, m->room,
					   strlen(m->room));
		rc =
		    rc ? rc
		       : sbx_mutation_put(mu, "m", "ts", 2,
					  SBX_LATEST_TIMESTAMP, ts, strlen(ts));
		rc = rc ? rc
			: sbx_mutation_put(mu, "m", "text", 4,
					   SBX_LATEST_TIMESTAMP, text,
					   strlen(text));
	}
	if (rc == SBX_OK)
		rc = txn ? sbx_txn_mutate(txn, t, mu)
			 : sbx_table_mutate(NULL, t, mu);
	sbx_mutation_free(mu);
	return rc;
}

typedef struct md5_write {
	app *a;
	const msg *m;
	sbx_buf k, ik;
} md5_write;

/* The MD5 row and its room index row, in one transaction. */
static int md5_fn(sbx_txn *txn, void *arg)
{
	md5_write *w = arg;
	int rc = put_msg(w->a->t[D_MD5], txn, &w->k, w->m, NULL);
	return rc ? rc : put_msg(w->a->t[D_IDX], txn, &w->ik, w->m, &w->k);
}

/* ---- reads -----------------------------------------------------------------
 */

typedef struct cost {
	long scans, gets, rows;
	double ms;
} cost;

typedef struct found {
	uint64_t *ids;
	size_t n, cap;
} found;

static void add_id(found *f, uint64_t id)
{
	if (f->n == f->cap) {
		f->cap = f->cap ? 2 * f->cap : 64;
		f->ids = realloc(f->ids, f->cap * sizeof *f->ids);
		if (!f->ids)
			exit(1);
	}
	f->ids[f->n++] = id;
}

static int cmp_desc(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? 1 : x > y ? -1 : 0;
}

/* A message row's fields. */
static bool row_msg(const sbx_result *r, uint64_t *id, char room[9])
{
	const sbx_cell *c = sbx_result_get(r, "m", "id", 2);
	const sbx_cell *rm = sbx_result_get(r, "m", "room", 4);
	if (!c || !rm || c->value_len > 20 || rm->value_len > 8)
		return false;
	char buf[24];
	memcpy(buf, c->value, c->value_len);
	buf[c->value_len] = '\0';
	*id = strtoull(buf, NULL, 10);
	memcpy(room, rm->value, rm->value_len);
	room[rm->value_len] = '\0';
	return true;
}

static bool row_date(const sbx_result *r, const char *date)
{
	const sbx_cell *c = sbx_result_get(r, "m", "ts", 2);
	if (!c || c->value_len > 20)
		return false;
	char buf[24];
	memcpy(buf, c->value, c->value_len);
	buf[c->value_len] = '\0';
	msg m;
	fill_msg(&m, 0, strtoll(buf, NULL, 10), 0);
	return !strcmp(m.date, date);
}

/* One scan [start, stop) (prefix when stop is NULL and plen > 0), reversed
 * or not; each row to fn until it returns false. */
typedef bool (*row_fn)(void *arg, const sbx_result *r);
static void scan(cost *c, sbx_table *t, const uint8_t *start, size_t slen,
		 const uint8_t *stop, size_t stlen, bool prefix, bool reversed,
		 row_fn fn, void *arg)
{
	sbx_scan_opts so;
	sbx_scan_opts_init(&so);
	sbx_column col = {"m", NULL, 0};
	so.read.columns = &col;
	so.read.ncolumns = 1;
	uint8_t stop_buf[64];
	if (prefix && slen) {
		sbx_scan_opts_set_prefix(&so, start, slen, stop_buf);
	} else {
		so.start_row = start;
		so.start_row_len = slen;
		so.stop_row = stop;
		so.stop_row_len = stlen;
	}
	so.reversed = reversed;
	if (reversed && prefix && slen) {
		/* HBase order: start is the high bound */
		const void *lo = so.start_row;
		size_t lol = so.start_row_len;
		so.start_row = so.stop_row;
		so.start_row_len = so.stop_row_len;
		so.stop_row = lo;
		so.stop_row_len = lol;
		so.stop_inclusive = true;
		so.start_inclusive = false;
	}
	sbx_scanner *s;
	TRY(sbx_scanner_open(&s, t, &so));
	c->scans++;
	for (;;) {
		sbx_result *r;
		int rc = sbx_scanner_next(s, &r);
		if (rc == SBX_ITEROVER)
			break;
		TRY(rc);
		c->rows++;
		bool more = fn(arg, r);
		sbx_result_free(r);
		if (!more)
			break;
	}
	sbx_scanner_close(s);
}

typedef struct latest_q {
	const char *room;
	size_t want;
	found *f;
	bool stop_early; /* rows come newest first */
} latest_q;

static bool latest_row(void *arg, const sbx_result *r)
{
	latest_q *q = arg;
	uint64_t id;
	char room[9];
	if (row_msg(r, &id, room) && !strcmp(room, q->room))
		add_id(q->f, id);
	return !(q->stop_early && q->f->n >= q->want);
}

typedef struct day_q {
	const char *date;
	found *f;
} day_q;

static bool day_row(void *arg, const sbx_result *r)
{
	day_q *q = arg;
	uint64_t id;
	char room[9];
	if (row_date(r, q->date) && row_msg(r, &id, room))
		add_id(q->f, id);
	return true;
}

typedef struct idx_q {
	app *a;
	cost *c;
	found *f;
	size_t want;
} idx_q;

/* An index row: get the MD5 row it names. */
static bool idx_row(void *arg, const sbx_result *r)
{
	idx_q *q = arg;
	const sbx_cell *k = sbx_result_get(r, "m", "k", 1);
	if (!k)
		return true;
	sbx_result *m;
	TRY(sbx_table_get(&m, q->a->t[D_MD5], k->value, k->value_len, NULL));
	q->c->gets++;
	uint64_t id;
	char room[9];
	if (row_msg(m, &id, room))
		add_id(q->f, id);
	sbx_result_free(m);
	return q->f->n < q->want;
}

/* The latest `want` messages of room through design i (D_IDX: the MD5
 * table through its room index). */
static void latest(found *f, cost *c, app *a, int i, const char *room,
		   size_t want)
{
	double t0 = now_s();
	latest_q q = {room, want, f, true};
	uint8_t prefix[8] = {0};
	memcpy(prefix, room, strlen(room));
	switch (i) {
	case D_TIME: /* time order: newest first from the end */
	case D_ID:   /* increasing ids: the same */
		scan(c, a->t[i], NULL, 0, NULL, 0, false, true, latest_row, &q);
		break;
	case D_MD5: /* no order: everything */
		q.stop_early = false;
		scan(c, a->t[i], NULL, 0, NULL, 0, false, false, latest_row,
		     &q);
		break;
	case D_SALT: /* each bucket newest first, then merged */
		for (int b = 0; b < SALT_BUCKETS; b++) {
			found fb = {0};
			latest_q qb = {room, want, &fb, true};
			uint8_t p = (uint8_t)b;
			scan(c, a->t[i], &p, 1, NULL, 0, true, true, latest_row,
			     &qb);
			for (size_t k = 0; k < fb.n; k++)
				add_id(f, fb.ids[k]);
			free(fb.ids);
		}
		break;
	case D_ROOM: /* one range scan */
		scan(c, a->t[i], prefix, 8, NULL, 0, true, false, latest_row,
		     &q);
		break;
	case D_IDX: {
		idx_q iq = {a, c, f, want};
		scan(c, a->t[D_IDX], prefix, 8, NULL, 0, true, false, idx_row,
		     &iq);
		break;
	}
	}
	if (f->n > 1)
		qsort(f->ids, f->n, sizeof *f->ids, cmp_desc);
	if (f->n > want)
		f->n = want;
	c->ms = (now_s() - t0) * 1000;
}

/* The messages of one day (yymmdd) through design i. */
static void one_day(found *f, cost *c, app *a, int i, const char *date,
		    int rooms, int64_t day_start_ms)
{
	double t0 = now_s();
	day_q q = {date, f};
	switch (i) {
	case D_TIME: { /* one range scan: the date leads */
		uint8_t p[7];
		memcpy(p, date, 6);
		p[6] = ':';
		scan(c, a->t[i], p, 7, NULL, 0, true, false, day_row, &q);
		break;
	}
	case D_ID:
	case D_MD5: /* the date is not first: a full scan */
		scan(c, a->t[i], NULL, 0, NULL, 0, false, false, day_row, &q);
		break;
	case D_SALT: /* one range scan per bucket */
		for (int b = 0; b < SALT_BUCKETS; b++) {
			uint8_t p[7];
			p[0] = (uint8_t)b;
			memcpy(p + 1, date, 6);
			scan(c, a->t[i], p, 7, NULL, 0, true, false, day_row,
			     &q);
		}
		break;
	case D_ROOM: /* one range scan per room over the day's times */
		for (int r = 0; r < rooms; r++) {
			msg lo, hi;
			fill_msg(&lo, 0, day_start_ms + 86400000 - 1, r);
			fill_msg(&hi, UINT64_MAX, day_start_ms, r);
			sbx_buf kl = {0}, kh = {0};
			/* newest first: the day's end is the lower key */
			key_of(&kl, a, D_ROOM, &lo);
			kl.len -= 8; /* keep room + rts: from the first id */
			key_of(&kh, a, D_ROOM, &hi);
			scan(c, a->t[i], kl.data, kl.len, kh.data, kh.len,
			     false, false, day_row, &q);
			sbx_buf_free(&kl);
			sbx_buf_free(&kh);
		}
		break;
	}
	if (f->n > 1)
		qsort(f->ids, f->n, sizeof *f->ids, cmp_desc);
	c->ms = (now_s() - t0) * 1000;
}

static bool same(const found *a, const found *b)
{
	return a->n == b->n &&
	       (!a->n || !memcmp(a->ids, b->ids, a->n * sizeof *a->ids));
}

static int run(int argc, char **argv)
{
	const char *data = NULL, *url = NULL, *trace_dir = NULL;
	long messages = 20000, rooms = 100, days = 3, want = 20;
	double rate = 0;
	for (int i = 2; i + 1 < argc; i += 2) {
		const char *k = argv[i], *v = argv[i + 1];
		if (!strcmp(k, "--data"))
			data = v;
		else if (!strcmp(k, "--connect"))
			url = v;
		else if (!strcmp(k, "--trace-dir"))
			trace_dir = v;
		else if (!strcmp(k, "--messages"))
			messages = atol(v);
		else if (!strcmp(k, "--rooms"))
			rooms = atol(v);
		else if (!strcmp(k, "--days"))
			days = atol(v);
		else if (!strcmp(k, "--latest"))
			want = atol(v);
		else if (!strcmp(k, "--rate"))
			rate = atof(v);
		else {
			fprintf(stderr, "saltbox-chat: unknown option %s\n", k);
			return 2;
		}
	}
	if (!data == !url || messages < 1 || rooms < 1 || rooms > 9999 ||
	    days < 1 || want < 1 || rate < 0) {
		fprintf(stderr,
			"usage: saltbox-chat run (--data DIR | --connect "
			"URL) [--messages N] [--rate MSG/S] [--rooms N] "
			"[--days N] [--latest N] [--trace-dir DIR]\n");
		return 2;
	}
	app a = {0};
	if (url)
		TRY(sbx_db_connect(&a.db, url));
	else
		TRY(sbx_db_open(&a.db, data, NULL));
	TRY(sbx_keyset_parse(&a.keys, designs_text, strlen(designs_text),
			     NULL));
	for (int i = 0; i < ND; i++) {
		a.d[i] = sbx_keyset_find(a.keys, names[i]);
		bool exists;
		TRY(sbx_table_exists(&exists, a.db, names[i]));
		if (exists) {
			int rc = sbx_table_disable(a.db, names[i]);
			if (rc != SBX_OK && rc != SBX_EUNSUPPORTED)
				TRY(rc);
			TRY(sbx_table_drop(a.db, names[i]));
		}
		sbx_family_desc f[2];
		sbx_txn_lock_family(&f[0]);
		TRY(sbx_family_desc_init(&f[1], "m"));
		TRY(sbx_table_create(a.db, names[i], f, 2));
		TRY(sbx_table_open(&a.t[i], a.db, names[i]));
		if (trace_dir) {
			char path[4096];
			snprintf(path, sizeof path, "%s/%s.trace", trace_dir,
				 names[i]);
			a.trace[i] = fopen(path, "w");
			if (!a.trace[i]) {
				fprintf(stderr,
					"saltbox-chat: cannot write %s\n",
					path);
				return 1;
			}
		}
	}
	/* ---- write: message ids increase, time runs over `days` days,
	 * rooms zipfian (room r0000 the busiest) */
	int64_t t0 = 1686465031000; /* 2023-06-11 06:30:31 UTC, the seed's */
	int64_t step = days * 86400000 / messages;
	if (step < 1)
		step = 1;
	double *cdf = malloc((size_t)rooms * sizeof *cdf), sum = 0, acc = 0;
	if (!cdf)
		return 1;
	for (long r = 0; r < rooms; r++)
		sum += 1.0 / (double)(r + 1);
	for (long r = 0; r < rooms; r++)
		cdf[r] = (acc += 1.0 / (double)(r + 1) / sum);
	uint64_t rng = 2;
	double w_ms[ND] = {0};
	double start = now_s();
	sbx_buf k = {0};
	for (long i = 0; i < messages; i++) {
		if (rate > 0) {
			double due = start + (double)i / rate, t = now_s();
			if (due > t) {
				struct timespec ts = {
				    (time_t)(due - t),
				    (long)(fmod(due - t, 1.0) * 1e9)};
				nanosleep(&ts, NULL);
			}
		}
		rng = rng * 6364136223846793005ull + 1442695040888963407ull;
		double u = (double)(rng >> 11) / 9007199254740992.0;
		long room = 0;
		while (room < rooms - 1 && cdf[room] < u)
			room++;
		msg m;
		fill_msg(&m, FIRST_ID + (uint64_t)i, t0 + i * step, (int)room);
		for (int d = 0; d < ND; d++) {
			if (d == D_IDX)
				continue;
			double w0 = now_s();
			if (d == D_MD5) {
				md5_write w = {.a = &a, .m = &m};
				key_of(&w.k, &a, D_MD5, &m);
				key_of(&w.ik, &a, D_IDX, &m);
				TRY(sbx_txn_run(NULL, a.db, NULL, md5_fn, &w));
				trace_key(a.trace[D_MD5], "put", w.k.data,
					  w.k.len);
				trace_key(a.trace[D_IDX], "put", w.ik.data,
					  w.ik.len);
				sbx_buf_free(&w.k);
				sbx_buf_free(&w.ik);
			} else {
				key_of(&k, &a, d, &m);
				TRY(put_msg(a.t[d], NULL, &k, &m, NULL));
				trace_key(a.trace[d], "put", k.data, k.len);
			}
			w_ms[d] += (now_s() - w0) * 1000;
		}
		if ((i + 1) % 5000 == 0 || i + 1 == messages)
			fprintf(stderr,
				"saltbox-chat: %ld messages written, %.0f/s\n",
				i + 1, (double)(i + 1) / (now_s() - start));
	}
	free(cdf);
	sbx_buf_free(&k);
	double secs = now_s() - start;
	printf("wrote %ld messages in %.1f s (%.0f/s%s), %ld rooms, %ld days\n",
	       messages, secs, (double)messages / secs,
	       rate > 0 ? ", paced" : ", as fast as it goes", rooms, days);

	/* ---- read: the busiest room's latest messages, and the second day */
	msg day;
	fill_msg(&day, 0, t0 + 86400000, 0);
	struct tm tm;
	time_t ds = (time_t)((t0 + 86400000) / 1000);
	gmtime_r(&ds, &tm);
	int64_t day_start =
	    (int64_t)(ds - (tm.tm_hour * 3600 + tm.tm_min * 60 + tm.tm_sec)) *
	    1000;
	const char *room = "r0000";
	printf("\n%-14s %9s | latest %ld of room %s        | messages of %s\n",
	       "design", "write ms", want, room, day.date);
	printf("%-14s %9s | %5s %5s %8s %8s | %5s %8s %8s\n", "", "per msg",
	       "scans", "gets", "rows", "ms", "scans", "rows", "ms");
	found ref_l = {0}, ref_d = {0};
	bool agree = true;
	static const int order[] = {D_TIME, D_ID, D_MD5, D_SALT, D_ROOM, D_IDX};
	for (int oi = 0; oi < ND; oi++) {
		int i = order[oi];
		found fl = {0}, fd = {0};
		cost cl = {0}, cd = {0};
		latest(&fl, &cl, &a, i, room, (size_t)want);
		char wms[16];
		snprintf(wms, sizeof wms, "%.3f", w_ms[i] / (double)messages);
		if (i == D_IDX) {
			printf(
			    "%-14s %9s | %5ld %5ld %8ld %8.1f | %5s %8s %8s\n",
			    "chat_md5+index", "(in md5)", cl.scans, cl.gets,
			    cl.rows, cl.ms, "-", "-", "-");
		} else {
			one_day(&fd, &cd, &a, i, day.date, (int)rooms,
				day_start);
			printf("%-14s %9s | %5ld %5ld %8ld %8.1f | %5ld %8ld "
			       "%8.1f\n",
			       names[i], wms, cl.scans, cl.gets, cl.rows, cl.ms,
			       cd.scans, cd.rows, cd.ms);
		}
		if (oi == 0) {
			ref_l = fl;
			ref_d = fd;
			continue;
		}
		if (!same(&fl, &ref_l)) {
			printf("  %s: latest %zu messages differ from "
			       "chat_time's\n",
			       names[i], fl.n);
			agree = false;
		}
		if (i != D_IDX && !same(&fd, &ref_d)) {
			printf("  %s: the day's %zu messages differ from "
			       "chat_time's\n",
			       names[i], fd.n);
			agree = false;
		}
		free(fl.ids);
		free(fd.ids);
	}
	printf("\nlatest %zu of %s: ids %llu..%llu; %zu messages on %s\n",
	       ref_l.n, room,
	       ref_l.n ? (unsigned long long)ref_l.ids[ref_l.n - 1] : 0ull,
	       ref_l.n ? (unsigned long long)ref_l.ids[0] : 0ull, ref_d.n,
	       day.date);
	printf("%s\n", agree ? "every design returned the same messages"
			     : "DESIGNS DISAGREE");
	free(ref_l.ids);
	free(ref_d.ids);
	for (int i = 0; i < ND; i++) {
		sbx_table_close(a.t[i]);
		if (a.trace[i])
			fclose(a.trace[i]);
	}
	sbx_keyset_free(a.keys);
	sbx_db_close(a.db);
	return agree ? 0 : 1;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "designs")) {
		fputs(designs_text, stdout);
		return 0;
	}
	if (argc >= 2 && !strcmp(argv[1], "run"))
		return run(argc, argv);
	fprintf(stderr, "usage: saltbox-chat run (--data DIR | --connect URL) "
			"[--messages N] [--rate MSG/S] [--rooms N] [--days N] "
			"[--latest N] [--trace-dir DIR]\n"
			"       saltbox-chat designs\n");
	return 2;
}
