/*
 * loadgen.c - `saltbox-comments load`: drive a running service over HTTP
 * at a target rate. Users and products are created first; then each
 * thread paces its share of the rate and picks an operation from the mix:
 * post (an order for a product, then its comment), edit, read a product's
 * comments (and sometimes the next page), read a user's comments, read a
 * product's top list, vote. Products are picked with zipfian popularity
 * (p0 the most popular). A progress line each second; at the end latency
 * percentiles per operation and the statuses seen.
 */
#include "comments.h"

#include <curl/curl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum {
	OP_POST,
	OP_EDIT,
	OP_READ,
	OP_NEXT,
	OP_USER,
	OP_TOP,
	OP_VOTE,
	OP_ORDER,
	NOPS
};
static const char *const op_names[NOPS] = {"post", "edit", "read", "read-next",
					   "user", "top",  "vote", "order"};
static const int default_mix[OP_VOTE + 1] = {20, 5, 40, 0, 10, 10, 15};

typedef struct lg_opts {
	const char *url;
	double rate, duration, zipf;
	int threads, users, products;
	uint64_t seed;
	bool setup;
	double end; /* when the workers stop (set before they start) */
} lg_opts;

typedef struct lat {
	double *v;
	size_t n, cap;
	long errors;
} lat;

typedef struct posted {
	char pid[12], oid[12];
} posted;

typedef struct worker {
	const lg_opts *o;
	const double *cdf;
	int id;
	uint64_t rng;
	CURL *curl;
	char *buf;
	size_t len, cap;
	long status;
	lat lat[NOPS];
	long statuses[6]; /* 000 2xx 3xx 4xx(other) 409 5xx */
	posted *mine;
	size_t nmine, capmine;
	_Atomic long *done;
	pthread_t th;
} worker;

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint64_t rnd(uint64_t *s)
{
	/* splitmix64 */
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}
static double unit(uint64_t *s)
{
	return (double)(rnd(s) >> 11) / 9007199254740992.0;
}

static size_t on_body(char *p, size_t size, size_t n, void *arg)
{
	worker *w = arg;
	size_t len = size * n;
	if (w->len + len + 1 > w->cap) {
		size_t cap = (w->len + len + 1) * 2;
		char *b = realloc(w->buf, cap);
		if (!b)
			return 0;
		w->buf = b;
		w->cap = cap;
	}
	memcpy(w->buf + w->len, p, len);
	w->len += len;
	w->buf[w->len] = '\0';
	return len;
}

/* One request; returns the HTTP status (0 when none came). */
static long request(worker *w, const char *method, const char *path,
		    const char *body)
{
	char url[512];
	snprintf(url, sizeof url, "%s%s", w->o->url, path);
	w->len = 0;
	if (w->buf)
		w->buf[0] = '\0';
	curl_easy_setopt(w->curl, CURLOPT_URL, url);
	curl_easy_setopt(w->curl, CURLOPT_CUSTOMREQUEST, method);
	curl_easy_setopt(w->curl, CURLOPT_POSTFIELDS, body);
	if (!body)
		curl_easy_setopt(w->curl, CURLOPT_HTTPGET, 1L);
	curl_easy_setopt(w->curl, CURLOPT_CUSTOMREQUEST, method);
	long status = 0;
	if (curl_easy_perform(w->curl) == CURLE_OK)
		curl_easy_getinfo(w->curl, CURLINFO_RESPONSE_CODE, &status);
	w->status = status;
	return status;
}

static void record(worker *w, int op, double secs, long status, bool ok409)
{
	lat *l = &w->lat[op];
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 1024;
		double *v = realloc(l->v, l->cap * sizeof *v);
		if (!v)
			return;
		l->v = v;
	}
	l->v[l->n++] = secs * 1000.0;
	int k = status == 0	? 0
		: status == 409 ? 4
		: status >= 500 ? 5
		: status >= 400 ? 3
		: status >= 300 ? 2
				: 1;
	w->statuses[k]++;
	if (status == 0 || status >= 500 || (status == 409 && !ok409) ||
	    (status >= 400 && status != 409 && status != 404))
		l->errors++;
}

static int pick_product(worker *w)
{
	double u = unit(&w->rng);
	int lo = 0, hi = w->o->products - 1;
	while (lo < hi) {
		int mid = (lo + hi) / 2;
		if (w->cdf[mid] < u)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void random_id(worker *w, char *out, char prefix)
{
	static const char al[] = "0123456789abcdefghijklmnopqrstuvwxyz";
	out[0] = prefix;
	for (int i = 1; i < 10; i++)
		out[i] = al[rnd(&w->rng) % 36];
	out[10] = '\0';
}

static void content(worker *w, char *out, size_t cap)
{
	/* 10..400 bytes: lengths vary, as the seed's reverse length expects */
	size_t n = 10 + rnd(&w->rng) % 391;
	if (n >= cap)
		n = cap - 1;
	for (size_t i = 0; i < n; i++)
		out[i] = (char)('a' + rnd(&w->rng) % 26);
	for (size_t i = 7; i < n; i += 8)
		out[i] = ' ';
	out[n] = '\0';
}

static void one_op(worker *w)
{
	int total = 0;
	for (int i = 0; i <= OP_VOTE; i++)
		total += default_mix[i];
	int r = (int)(rnd(&w->rng) % (uint64_t)total), op = 0;
	while (r >= default_mix[op])
		r -= default_mix[op++];
	if ((op == OP_EDIT || op == OP_VOTE) && !w->nmine)
		op = OP_POST;
	char path[256], body[1024], text[512];
	double t0 = now_s();
	long st;
	switch (op) {
	case OP_POST: {
		int p = pick_product(w);
		char oid[12], pid[12], uid[12];
		snprintf(pid, sizeof pid, "p%d", p);
		snprintf(uid, sizeof uid, "u%d",
			 (int)(rnd(&w->rng) % (uint64_t)w->o->users));
		random_id(w, oid, 'o');
		snprintf(path, sizeof path, "/orders/%s", oid);
		snprintf(body, sizeof body,
			 "{\"userId\":\"%s\",\"productIds\":[\"%s\"]}", uid,
			 pid);
		st = request(w, "PUT", path, body);
		record(w, OP_ORDER, now_s() - t0, st, false);
		t0 = now_s();
		content(w, text, sizeof text);
		snprintf(path, sizeof path, "/products/%s/comments", pid);
		snprintf(
		    body, sizeof body,
		    "{\"orderId\":\"%s\",\"userId\":\"%s\",\"content\":\"%s\"}",
		    oid, uid, text);
		st = request(w, "POST", path, body);
		record(w, OP_POST, now_s() - t0, st, false);
		if (st == 201) {
			if (w->nmine == w->capmine) {
				w->capmine = w->capmine ? 2 * w->capmine : 256;
				posted *m =
				    realloc(w->mine, w->capmine * sizeof *m);
				if (!m)
					return;
				w->mine = m;
			}
			snprintf(w->mine[w->nmine].pid, 12, "%s", pid);
			snprintf(w->mine[w->nmine].oid, 12, "%s", oid);
			w->nmine++;
		}
		break;
	}
	case OP_EDIT: {
		posted *m = &w->mine[rnd(&w->rng) % w->nmine];
		content(w, text, sizeof text);
		snprintf(path, sizeof path, "/products/%s/comments/%s", m->pid,
			 m->oid);
		snprintf(body, sizeof body, "{\"content\":\"%s\"}", text);
		st = request(w, "PATCH", path, body);
		record(w, op, now_s() - t0, st, false);
		break;
	}
	case OP_READ: {
		int p = pick_product(w);
		snprintf(path, sizeof path, "/products/p%d/comments?limit=10",
			 p);
		st = request(w, "GET", path, NULL);
		record(w, op, now_s() - t0, st, false);
		if (st != 200 || rnd(&w->rng) % 4)
			break;
		/* one reader in four reads the next page */
		json_t *j = json_loads(w->buf ? w->buf : "", 0, NULL);
		const char *next =
		    json_string_value(json_object_get(j, "next"));
		if (next) {
			snprintf(path, sizeof path,
				 "/products/p%d/comments?limit=10&cursor=%s", p,
				 next);
			t0 = now_s();
			st = request(w, "GET", path, NULL);
			record(w, OP_NEXT, now_s() - t0, st, false);
		}
		json_decref(j);
		break;
	}
	case OP_USER:
		snprintf(path, sizeof path, "/users/u%d/comments?limit=10",
			 (int)(rnd(&w->rng) % (uint64_t)w->o->users));
		st = request(w, "GET", path, NULL);
		record(w, op, now_s() - t0, st, false);
		break;
	case OP_TOP:
		snprintf(path, sizeof path, "/products/p%d/comments/top",
			 pick_product(w));
		st = request(w, "GET", path, NULL);
		record(w, op, now_s() - t0, st, false);
		break;
	case OP_VOTE: {
		posted *m = &w->mine[rnd(&w->rng) % w->nmine];
		snprintf(path, sizeof path, "/products/%s/comments/%s/helpful",
			 m->pid, m->oid);
		snprintf(body, sizeof body, "{\"userId\":\"u%d\"}",
			 (int)(rnd(&w->rng) % (uint64_t)w->o->users));
		st = request(w, "POST", path, body);
		record(w, op, now_s() - t0, st, true); /* a second vote: 409 */
		break;
	}
	}
	atomic_fetch_add(w->done, 1);
}

static void *worker_main(void *arg)
{
	worker *w = arg;
	double interval = w->o->threads / w->o->rate;
	double next = now_s() + interval * unit(&w->rng);
	while (next < w->o->end) {
		double t = now_s();
		if (next > t) {
			double d = next - t;
			struct timespec ts = {(time_t)d,
					      (long)((d - (time_t)d) * 1e9)};
			nanosleep(&ts, NULL);
		} else if (t - next > 1.0) {
			next = t; /* too far behind: do not burst to catch up */
		}
		one_op(w);
		next += interval;
	}
	return NULL;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double pct(const double *v, size_t n, double p)
{
	if (!n)
		return 0;
	size_t i = (size_t)ceil(p / 100.0 * (double)n);
	return v[i ? i - 1 : 0];
}

static CURL *new_curl(worker *w)
{
	CURL *c = curl_easy_init();
	if (!c)
		return NULL;
	static struct curl_slist *hdr;
	if (!hdr)
		hdr = curl_slist_append(NULL, "Content-Type: application/json");
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdr);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, w);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, 30L);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	return c;
}

int cm_load(int argc, char **argv)
{
	lg_opts o = {.rate = 200,
		     .duration = 10,
		     .zipf = 0.99,
		     .threads = 8,
		     .users = 1000,
		     .products = 1000,
		     .seed = 3,
		     .setup = true};
	for (int i = 2; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "--no-setup")) {
			o.setup = false;
			continue;
		}
		if (!v)
			goto usage;
		i++;
		if (!strcmp(a, "--url"))
			o.url = v;
		else if (!strcmp(a, "--rate"))
			o.rate = atof(v);
		else if (!strcmp(a, "--duration"))
			o.duration = atof(v);
		else if (!strcmp(a, "--threads"))
			o.threads = atoi(v);
		else if (!strcmp(a, "--users"))
			o.users = atoi(v);
		else if (!strcmp(a, "--products"))
			o.products = atoi(v);
		else if (!strcmp(a, "--zipf"))
			o.zipf = atof(v);
		else if (!strcmp(a, "--seed"))
			o.seed = strtoull(v, NULL, 10);
		else
			goto usage;
	}
	if (!o.url || o.rate <= 0 || o.duration <= 0 || o.threads < 1 ||
	    o.threads > 256 || o.users < 1 || o.products < 1 || o.zipf < 0 ||
	    o.users > 100000000 || o.products > 100000000)
		goto usage;
	curl_global_init(CURL_GLOBAL_DEFAULT);
	double *cdf = malloc((size_t)o.products * sizeof *cdf), sum = 0;
	worker *ws = calloc((size_t)o.threads, sizeof *ws);
	if (!cdf || !ws)
		return 1;
	for (int i = 0; i < o.products; i++)
		sum += 1.0 / pow(i + 1, o.zipf);
	double acc = 0;
	for (int i = 0; i < o.products; i++) {
		acc += 1.0 / pow(i + 1, o.zipf) / sum;
		cdf[i] = acc;
	}
	cdf[o.products - 1] = 1.0;
	_Atomic long done = 0;
	for (int i = 0; i < o.threads; i++) {
		ws[i].o = &o;
		ws[i].cdf = cdf;
		ws[i].id = i;
		ws[i].rng = o.seed * 1000003u + (uint64_t)i * 7919u + 1;
		ws[i].done = &done;
		ws[i].curl = new_curl(&ws[i]);
		if (!ws[i].curl)
			return 1;
	}
	if (o.setup) {
		fprintf(stderr,
			"load: creating seller s1, %d products, %d users\n",
			o.products, o.users);
		worker *w = &ws[0];
		long st =
		    request(w, "PUT", "/sellers/s1", "{\"name\":\"load\"}");
		if (st != 200 && st != 201) {
			fprintf(stderr,
				"load: PUT /sellers/s1 answered %ld: %s\n", st,
				w->buf ? w->buf : "");
			return 1;
		}
		char path[64];
		for (int i = 0; i < o.products && st < 300; i++) {
			snprintf(path, sizeof path, "/products/p%d", i);
			st = request(w, "PUT", path,
				     "{\"sellerId\":\"s1\",\"content\":\"\"}");
		}
		for (int i = 0; i < o.users && st < 300; i++) {
			snprintf(path, sizeof path, "/users/u%d", i);
			st = request(w, "PUT", path,
				     "{\"name\":\"load\",\"nickname\":\"l\"}");
		}
		if (st >= 300) {
			fprintf(stderr, "load: setup failed with %ld: %s\n", st,
				w->buf ? w->buf : "");
			return 1;
		}
	}
	fprintf(stderr,
		"load: %s at %.0f ops/s for %.0f s, %d threads, "
		"zipf %.2f over %d products\n",
		o.url, o.rate, o.duration, o.threads, o.zipf, o.products);
	double start = now_s();
	o.end = start + o.duration;
	for (int i = 0; i < o.threads; i++)
		pthread_create(&ws[i].th, NULL, worker_main, &ws[i]);
	long last = 0;
	for (int s = 1; now_s() < o.end; s++) {
		double wake = start + s;
		while (now_s() < wake && now_s() < o.end) {
			struct timespec ts = {0, 50000000};
			nanosleep(&ts, NULL);
		}
		long d = atomic_load(&done);
		fprintf(stderr, "load: %3ds  %8ld ops  %6ld ops/s\n", s, d,
			d - last);
		last = d;
	}
	for (int i = 0; i < o.threads; i++)
		pthread_join(ws[i].th, NULL);
	double secs = now_s() - start;
	long total = atomic_load(&done);
	printf("load: %ld operations in %.1f s: %.0f ops/s (target %.0f)\n",
	       total, secs, (double)total / secs, o.rate);
	printf("%-10s %8s %9s %9s %9s %9s %7s\n", "op", "count", "p50 ms",
	       "p90 ms", "p99 ms", "max ms", "errors");
	long st[6] = {0}, errors = 0;
	for (int op = 0; op < NOPS; op++) {
		size_t n = 0;
		long err = 0;
		for (int i = 0; i < o.threads; i++) {
			n += ws[i].lat[op].n;
			err += ws[i].lat[op].errors;
		}
		double *all = malloc((n ? n : 1) * sizeof *all);
		size_t k = 0;
		for (int i = 0; i < o.threads && all; i++) {
			if (ws[i].lat[op].n)
				memcpy(all + k, ws[i].lat[op].v,
				       ws[i].lat[op].n * sizeof *all);
			k += ws[i].lat[op].n;
		}
		if (all && n)
			qsort(all, n, sizeof *all, cmp_d);
		if (n)
			printf("%-10s %8zu %9.2f %9.2f %9.2f %9.2f %7ld\n",
			       op_names[op], n, pct(all, n, 50),
			       pct(all, n, 90), pct(all, n, 99), all[n - 1],
			       err);
		free(all);
		errors += err;
	}
	for (int i = 0; i < o.threads; i++)
		for (int k = 0; k < 6; k++)
			st[k] += ws[i].statuses[k];
	printf("statuses: 2xx %ld, 404 or 400 %ld, 409 %ld, 5xx %ld, none %ld; "
	       "errors %ld\n",
	       st[1], st[3], st[4], st[5], st[0], errors);
	for (int i = 0; i < o.threads; i++) {
		curl_easy_cleanup(ws[i].curl);
		free(ws[i].buf);
		free(ws[i].mine);
		for (int op = 0; op < NOPS; op++)
			free(ws[i].lat[op].v);
	}
	free(ws);
	free(cdf);
	curl_global_cleanup();
	return errors ? 1 : 0;
usage:
	fprintf(stderr,
		"usage: saltbox-comments load --url URL [--rate OPS/S] "
		"[--duration S] [--threads N]\n"
		"       [--users N] [--products N] [--zipf S] [--seed N] "
		"[--no-setup]\n");
	return 2;
}
