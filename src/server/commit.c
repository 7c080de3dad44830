/*
 * commit.c - group commit of the server's writes: the mutations of many
 * concurrent PUT and DELETE requests go into the store as one
 * sbx_table_batch call per table, so one WAL write and one RocksDB write
 * group serve them all.
 *
 * Up to `leaders` commits run at once (sbx_server_opts.commit_threads).
 * A write that finds fewer under way becomes a leader: it writes its own
 * mutations, then what was queued meanwhile. A write that finds them all
 * at work queues its mutations and its connection is suspended (the
 * transport's `defer`), so the worker thread goes on reading other
 * connections instead of waiting in RocksDB's write group; a leader fills
 * the queued request's answer and resumes it. If more were queued
 * meanwhile, a worker thread does not go on leading (its own request and
 * connections would wait): it hands its lead to one of the commit threads
 * (as many as leaders), which writes until the queue is empty. Under a
 * steady stream of writes those threads write and the workers serve HTTP.
 * The queue is non-empty only while every lead is taken: a leader gives
 * its lead up only when it finds the queue empty.
 * Several leaders let the server's per-request work of a commit (the
 * mutations into the store's batch, the answers, the resumes) run on
 * several cores, and RocksDB joins their writes into one write group with
 * its memtable inserts in parallel; one leader serializes all of it.
 * Nothing is answered before its mutations are written, so an answered
 * write is as durable as one written alone.
 *
 * Per request, the answer is what its own sbx_table_batch call would have
 * said: each row is atomic (Table.batch), timestamps come from the rows'
 * stripes in batch order (two requests to one row get two increasing
 * timestamps), and a request with a failed row gets that failure's error.
 * The failed rows of a request are written once more by themselves, for
 * the error's message (sbx_errmsg is per thread) - a row that fails when
 * written with others was not written, so nothing is applied twice. That
 * needs statuses exact per row, as the embedded store's: the server runs
 * without group commit on other backends (sbx_server_opts.group_commit).
 *
 * Stop: rest_commit_close waits until the queue is empty and refuses new
 * deferrals, so no connection stays suspended when libmicrohttpd stops.
 */
#include "server/rest.h"

#include "common/alloc.h"
#include "common/error.h"

#include <assert.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef struct commit_job {
	sbx_table *t;
	sbx_mutation **ms;
	size_t n;
	rest_response *rs;   /* where the answer goes */
	rest_answer_fn answer; /* how (NULL: rest_write_answer) */
	rest_defer defer;    /* how to resume the request; none for the leader's */
	bool own;            /* the leader's own request (its caller cleans up) */
	struct commit_job *next;
} commit_job;

struct rest_commit {
	rest_server *srv;
	pthread_mutex_t lock;
	pthread_cond_t idle;  /* signalled when the commit goes idle */
	pthread_cond_t work;  /* signalled when a lead is handed over */
	commit_job *head, **tail;
	int max_leaders;      /* commits under way at once, at most */
	int leaders;          /* commits under way (handed leads included) */
	int handed;           /* leads handed to the commit threads, not yet
			       * taken up */
	bool closed;          /* rest_commit_close ran: nothing is deferred */
	bool quit;            /* the commit threads end */
	int nthreads;         /* commit threads started */
	pthread_t *threads;
	rest_commit_stats stats;
};

static void *commit_thread(void *arg);

int rest_commit_new(rest_commit **out, rest_server *srv, int leaders)
{
	if (leaders < 1 || leaders > SBX_SERVER_MAX_COMMIT_THREADS)
		return sbx_error_set(SBX_EINVAL, "commit threads: %d is not "
				     "between 1 and %d", leaders,
				     SBX_SERVER_MAX_COMMIT_THREADS);
	rest_commit *c = sbx_calloc(1, sizeof *c);
	pthread_t *threads = sbx_calloc((size_t)leaders, sizeof *threads);
	if (!c || !threads) {
		free(c);
		free(threads);
		return SBX_ENOMEM_SET();
	}
	c->srv = srv;
	c->max_leaders = leaders;
	c->threads = threads;
	pthread_mutex_init(&c->lock, NULL);
	pthread_cond_init(&c->idle, NULL);
	pthread_cond_init(&c->work, NULL);
	c->tail = &c->head;
	for (; c->nthreads < leaders; c->nthreads++) {
		int err = pthread_create(&c->threads[c->nthreads], NULL,
					 commit_thread, c);
		if (err) {
			rest_commit_free(c);
			return sbx_error_set(SBX_EIO, "cannot start a commit "
					     "thread: %s", strerror(err));
		}
	}
	*out = c;
	return SBX_OK;
}

void rest_commit_close(rest_commit *c)
{
	if (!c)
		return;
	pthread_mutex_lock(&c->lock);
	c->closed = true;
	while (c->leaders || c->head)
		pthread_cond_wait(&c->idle, &c->lock);
	pthread_mutex_unlock(&c->lock);
}

void rest_commit_free(rest_commit *c)
{
	if (!c)
		return;
	rest_commit_close(c);
	pthread_mutex_lock(&c->lock);
	c->quit = true;
	pthread_cond_broadcast(&c->work);
	pthread_mutex_unlock(&c->lock);
	for (int i = 0; i < c->nthreads; i++)
		pthread_join(c->threads[i], NULL);
	pthread_mutex_destroy(&c->lock);
	pthread_cond_destroy(&c->idle);
	pthread_cond_destroy(&c->work);
	free(c->threads);
	free(c);
}

rest_commit_stats rest_commit_get_stats(rest_commit *c)
{
	pthread_mutex_lock(&c->lock);
	rest_commit_stats s = c->stats;
	pthread_mutex_unlock(&c->lock);
	return s;
}

void rest_write_answer(rest_response *rs, int rc)
{
	if (rc)
		rest_sbx_error(rs, rc);
	else
		rest_empty(rs, 200);
}

static void reply(rest_answer_fn fn, rest_response *rs, int rc)
{
	(fn ? fn : rest_write_answer)(rs, rc);
}

/* A job's outcome: its rows' statuses from the group's batch; rows that
 * failed are written again by themselves (see the file comment). */
static int job_status(commit_job *j, const int *st)
{
	size_t nfail = 0;
	int first = SBX_OK;
	for (size_t i = 0; i < j->n; i++)
		if (st[i]) {
			nfail++;
			if (!first)
				first = st[i];
		}
	if (!nfail)
		return SBX_OK;
	sbx_mutation **failed = sbx_calloc(nfail, sizeof *failed);
	if (!failed)
		return first;
	size_t k = 0;
	for (size_t i = 0; i < j->n; i++)
		if (st[i])
			failed[k++] = j->ms[i];
	int rc = sbx_table_batch(NULL, j->t, failed, nfail);
	free(failed);
	return rc;
}

/* Answer a job; a queued one's holdings are released and its request
 * resumed. The answer is complete before the resume: the request's thread
 * reads it next. */
static void finish(rest_server *srv, commit_job *j, int rc)
{
	reply(j->answer, j->rs, rc);
	if (j->own)
		return;
	rest_table_release(srv, j->t, rc == SBX_ENOTFOUND);
	for (size_t i = 0; i < j->n; i++)
		sbx_mutation_free(j->ms[i]);
	free(j->ms);
	rest_defer d = j->defer;
	free(j);
	d.resume(d.conn);
}

/* Write a list of jobs of one table as one batch and answer each. */
static void commit_table(rest_server *srv, commit_job *list,
			 rest_commit_stats *stats)
{
	sbx_table *t = list->t;
	size_t total = 0, njobs = 0;
	for (commit_job *j = list; j; j = j->next)
		total += j->n, njobs++;
	sbx_mutation **all = sbx_calloc(total ? total : 1, sizeof *all);
	int *st = sbx_calloc(total ? total : 1, sizeof *st);
	if (!all || !st) { /* out of memory: each job by itself */
		free(all), free(st);
		for (commit_job *j = list, *next; j; j = next) {
			next = j->next; /* finish frees a queued job */
			finish(srv, j, sbx_table_batch(NULL, t, j->ms, j->n));
		}
		return;
	}
	size_t k = 0;
	for (commit_job *j = list; j; j = j->next) {
		memcpy(all + k, j->ms, j->n * sizeof *all);
		k += j->n;
	}
	(void)sbx_table_batch(st, t, all, total);
	stats->batches++;
	stats->requests += njobs;
	if (njobs > stats->largest)
		stats->largest = njobs;
	k = 0;
	for (commit_job *j = list, *next; j; j = next) {
		next = j->next;
		size_t at = k;
		k += j->n;
		finish(srv, j, job_status(j, st + at));
	}
	free(all);
	free(st);
}

/* Commit a list of jobs: one batch per table, tables in order of first
 * appearance, each table's jobs in their order. */
static void commit_list(rest_server *srv, commit_job *list,
			rest_commit_stats *stats)
{
	while (list) {
		sbx_table *t = list->t;
		commit_job *mine = NULL, **mt = &mine;
		commit_job *rest = NULL, **rt = &rest;
		for (commit_job *j = list, *next; j; j = next) {
			next = j->next;
			if (j->t == t) {
				*mt = j;
				mt = &j->next;
			} else {
				*rt = j;
				rt = &j->next;
			}
		}
		*mt = NULL;
		*rt = NULL;
		commit_table(srv, mine, stats);
		list = rest;
	}
}

static commit_job *take_all(rest_commit *c)
{
	commit_job *list = c->head;
	c->head = NULL;
	c->tail = &c->head;
	return list;
}

static void add_stats(rest_commit *c, const rest_commit_stats *s)
{
	c->stats.batches += s->batches;
	c->stats.requests += s->requests;
	if (s->largest > c->stats.largest)
		c->stats.largest = s->largest;
	c->stats.handoffs += s->handoffs;
}

/*
 * Lead: write `list`, then what was queued meanwhile. Called and returns
 * with c->lock held (released while writing). A worker thread (worker
 * true) writes once and hands its lead, with what is queued then, to a
 * commit thread; a commit thread writes until the queue is empty.
 */
static void lead(rest_commit *c, commit_job *list, bool worker)
{
	rest_commit_stats stats = {0};
	for (;;) {
		pthread_mutex_unlock(&c->lock);
		commit_list(c->srv, list, &stats);
		pthread_mutex_lock(&c->lock);
		if (!c->head) {
			if (--c->leaders == 0)
				pthread_cond_broadcast(&c->idle);
			break;
		}
		if (worker) { /* still leading: a commit thread's now */
			c->handed++;
			stats.handoffs++;
			pthread_cond_signal(&c->work);
			break;
		}
		list = take_all(c);
	}
	add_stats(c, &stats);
}

static void *commit_thread(void *arg)
{
	rest_commit *c = arg;
	pthread_mutex_lock(&c->lock);
	for (;;) {
		while (!c->handed && !c->quit)
			pthread_cond_wait(&c->work, &c->lock);
		if (!c->handed)
			break;
		c->handed--;
		/* another leader may have emptied the queue since: then this
		 * lead writes nothing and ends */
		lead(c, take_all(c), false);
	}
	pthread_mutex_unlock(&c->lock);
	return NULL;
}

void rest_commit_write(rest_request *rq, rest_response *rs, sbx_table *t,
		       sbx_mutation **ms, size_t n, rest_answer_fn answer)
{
	rest_commit *c = rq->srv ? rq->srv->commit : NULL;
	if (!c || !rq->defer.suspend)
		return reply(answer, rs, sbx_table_batch(NULL, t, ms, n));
	pthread_mutex_lock(&c->lock);
	if (c->closed) {
		pthread_mutex_unlock(&c->lock);
		return reply(answer, rs, sbx_table_batch(NULL, t, ms, n));
	}
	if (c->leaders == c->max_leaders) {
		commit_job *j = sbx_calloc(1, sizeof *j);
		if (!j) {
			pthread_mutex_unlock(&c->lock);
			return reply(answer, rs,
				     sbx_table_batch(NULL, t, ms, n));
		}
		*j = (commit_job){.t = t, .ms = ms, .n = n,
				  .rs = rq->defer.answer, .answer = answer,
				  .defer = rq->defer};
		/* suspended before it is queued: the leader can only resume
		 * a suspended request */
		rq->defer.suspend(rq->defer.conn);
		*c->tail = j;
		c->tail = &j->next;
		pthread_mutex_unlock(&c->lock);
		rs->deferred = true;
		return;
	}
	c->leaders++;
	/* requests queue only while every lead is taken, and a leader
	 * gives its lead up only when the queue is empty */
	assert(!c->head);
	commit_job own = {.t = t, .ms = ms, .n = n, .rs = rs, .answer = answer,
			  .own = true};
	lead(c, &own, true);
	pthread_mutex_unlock(&c->lock);
}
