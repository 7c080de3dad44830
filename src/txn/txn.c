/*
 * txn.c - the transaction object: the rows it touched (a hash on table and
 * row), reads that note each row's lock and see the transaction's own
 * writes, and the write buffer. Writes are kept per row as an append-only
 * log of puts and deletes (so a failed sbx_txn_mutate is undone by cutting
 * the log back); tx_normalize() turns a log into what commit writes: the
 * deletes, then the last put of each column that no later delete covers.
 */
#include "txn/txn_int.h"

#include "common/bytes.h"
#include "common/error.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

/* Transaction ids: SplitMix64 over a per-thread state seeded once from
 * getrandom (a system call per transaction showed in the atomic path's
 * profile). A forked child re-seeds: fork bumps the generation. */
static atomic_uint fork_generation = 1;
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

static void after_fork_child(void)
{
	atomic_fetch_add(&fork_generation, 1);
}

static void register_atfork(void)
{
	pthread_atfork(NULL, NULL, after_fork_child);
}

static uint64_t random_id(void)
{
	static _Thread_local uint64_t state;
	static _Thread_local unsigned seeded_in;
	pthread_once(&atfork_once, register_atfork);
	unsigned gen = atomic_load(&fork_generation);
	if (seeded_in != gen) {
		uint64_t v = 0;
		if (getrandom(&v, sizeof v, 0) != (ssize_t)sizeof v) {
			struct timespec ts;
			clock_gettime(CLOCK_REALTIME, &ts);
			v = (uint64_t)ts.tv_nsec * 0x9E3779B97F4A7C15ull ^
			    (uint64_t)ts.tv_sec << 20 ^ (uint64_t)getpid();
		}
		state = v;
		seeded_in = gen;
	}
	uint64_t z = (state += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	z ^= z >> 31;
	return z ? z : 1;
}

int sbx_txn_begin_with(sbx_txn **out, sbx_db *db, const sbx_txn_options *opts)
{
	*out = NULL;
	if (!db)
		return sbx_error_set(SBX_EINVAL, "sbx_txn_begin: no database");
	sbx_txn_options defaults;
	if (!opts) {
		sbx_txn_options_init(&defaults);
		opts = &defaults;
	}
	if (opts->lock_timeout_ms <= 0 || opts->lock_wait_ms < 0 ||
	    opts->retry_budget_ms < 0)
		return sbx_error_set(
		    SBX_EINVAL, "transaction options: lock_timeout_ms must "
				"be > 0, lock_wait_ms and retry_budget_ms "
				">= 0");
	if ((unsigned)opts->path > SBX_TXN_PATH_ATOMIC)
		return sbx_error_set(SBX_EINVAL,
				     "transaction options: unknown path %d",
				     (int)opts->path);
	sbx_txn *txn = sbx_calloc(1, sizeof *txn);
	if (!txn)
		return SBX_ENOMEM_SET();
	txn->db = db;
	txn->opts = *opts;
	txn->id = random_id();
	tx_tables_init(&txn->tables, db);
	*out = txn;
	return SBX_OK;
}

int sbx_txn_begin(sbx_txn **out, sbx_db *db)
{
	return sbx_txn_begin_with(out, db, NULL);
}

uint64_t sbx_txn_id(const sbx_txn *txn)
{
	return txn ? txn->id : 0;
}

static void op_free(tx_op *op)
{
	free((void *)op->family);
	free((void *)op->qualifier);
	free((void *)op->value);
}

static void row_free(tx_row *r)
{
	for (size_t i = 0; i < r->nops; i++)
		op_free(&r->ops[i]);
	free(r->ops);
	free(r->row);
	tx_seen_free(&r->lock);
	sbx_buf_free(&r->wrote);
	free(r);
}

void tx_free(sbx_txn *txn)
{
	for (tx_scan_link *l = txn->scans; l; l = l->next)
		l->txn = NULL; /* their next() now fails */
	for (size_t i = 0; i < txn->nrows; i++)
		row_free(txn->rows[i]);
	free(txn->rows);
	free(txn->index);
	tx_tables_free(&txn->tables);
	free(txn);
}

void sbx_txn_rollback(sbx_txn *txn)
{
	if (txn)
		tx_free(txn);
}

int tx_fault(sbx_txn *txn, sbx_txn_step step, size_t row)
{
	if (!txn->opts.fault)
		return SBX_OK;
	int rc = txn->opts.fault(txn->opts.fault_arg, step, row);
	return rc ? sbx_error_set(rc,
				  "injected fault at commit step %d, "
				  "row %zu",
				  (int)step, row)
		  : SBX_OK;
}

/* ---- the row set -----------------------------------------------------------
 */

static uint32_t row_hash(size_t table, const uint8_t *row, size_t len)
{
	uint32_t h = 2166136261u ^ (uint32_t)table;
	for (size_t i = 0; i < len; i++)
		h = (h ^ row[i]) * 16777619u;
	return h;
}

static int index_grow(sbx_txn *txn)
{
	size_t cap = txn->index_cap ? txn->index_cap * 2 : 64;
	size_t *ix = sbx_calloc(cap, sizeof *ix);
	if (!ix)
		return SBX_ENOMEM_SET();
	for (size_t i = 0; i < txn->nrows; i++) {
		size_t at = txn->rows[i]->hash & (cap - 1);
		while (ix[at])
			at = (at + 1) & (cap - 1);
		ix[at] = i + 1;
	}
	free(txn->index);
	txn->index = ix;
	txn->index_cap = cap;
	return SBX_OK;
}

int tx_row_get(tx_row **out, sbx_txn *txn, size_t table, const void *row,
	       size_t row_len, bool add)
{
	*out = NULL;
	uint32_t h = row_hash(table, row, row_len);
	for (size_t at = txn->index_cap ? h & (txn->index_cap - 1) : 0;
	     txn->index_cap && txn->index[at];
	     at = (at + 1) & (txn->index_cap - 1)) {
		tx_row *r = txn->rows[txn->index[at] - 1];
		if (r->hash == h && r->table == table &&
		    r->row_len == row_len && !memcmp(r->row, row, row_len)) {
			*out = r;
			return SBX_OK;
		}
	}
	if (!add)
		return SBX_OK;
	if (txn->nrows >= SBX_TXN_MAX_ROWS)
		return sbx_error_set(SBX_ETOOLARGE,
				     "a transaction may touch at most %d rows "
				     "(SBX_TXN_MAX_ROWS)",
				     SBX_TXN_MAX_ROWS);
	if ((txn->nrows + 1) * 2 > txn->index_cap && index_grow(txn))
		return SBX_ENOMEM;
	if (txn->nrows == txn->cap) {
		size_t cap = txn->cap ? txn->cap * 2 : 8;
		void *v = sbx_realloc(txn->rows, cap * sizeof *txn->rows);
		if (!v)
			return SBX_ENOMEM_SET();
		txn->rows = v;
		txn->cap = cap;
	}
	tx_row *r = sbx_calloc(1, sizeof *r);
	if (!r || !(r->row = sbx_malloc(row_len ? row_len : 1))) {
		free(r);
		return SBX_ENOMEM_SET();
	}
	memcpy(r->row, row, row_len);
	r->row_len = row_len;
	r->table = table;
	r->hash = h;
	txn->rows[txn->nrows++] = r;
	size_t at = h & (txn->index_cap - 1);
	while (txn->index[at])
		at = (at + 1) & (txn->index_cap - 1);
	txn->index[at] = txn->nrows;
	*out = r;
	return SBX_OK;
}

static int usable(sbx_txn *txn, const char *what)
{
	if (!txn)
		return sbx_error_set(SBX_EINVAL, "%s: no transaction", what);
	if (txn->state == TX_FAILED)
		return sbx_error_set(SBX_EINVAL,
				     "%s: the transaction failed earlier (out "
				     "of memory); roll it back",
				     what);
	return SBX_OK;
}

/* ---- the write log and its normal form ------------------------------------
 */

static bool same_family(const tx_op *a, const tx_op *b)
{
	return a->family_len == b->family_len &&
	       !memcmp(a->family, b->family, a->family_len);
}

static bool same_column(const tx_op *a, const tx_op *b)
{
	return same_family(a, b) && a->qualifier_len == b->qualifier_len &&
	       (!a->qualifier_len ||
		!memcmp(a->qualifier, b->qualifier, a->qualifier_len));
}

/* An op and its position in its row's log; sorted by column (family, then
 * qualifier; a DeleteFamily's empty qualifier sorts with the family's
 * empty-qualifier column), then position, so a column's ops are one run
 * and a family's columns are one run. */
typedef struct op_ref {
	const tx_op *op;
	size_t pos;
} op_ref;

static int cmp_column(const tx_op *op, const char *family, size_t family_len,
		      const uint8_t *q, size_t ql)
{
	int c = sbx_bytes_cmp(op->family, op->family_len, family, family_len);
	return c ? c : sbx_bytes_cmp(op->qualifier, op->qualifier_len, q, ql);
}

static int op_ref_order(const void *pa, const void *pb)
{
	const op_ref *a = pa, *b = pb;
	int c = cmp_column(a->op, b->op->family, b->op->family_len,
			   b->op->qualifier, b->op->qualifier_len);
	if (c)
		return c;
	return a->pos < b->pos ? -1 : a->pos > b->pos;
}

static int op_refs_sorted(op_ref **out, const tx_op *ops, size_t n)
{
	op_ref *v = sbx_malloc((n ? n : 1) * sizeof *v);
	if (!v)
		return SBX_ENOMEM_SET();
	for (size_t i = 0; i < n; i++)
		v[i] = (op_ref){&ops[i], i};
	qsort(v, n, sizeof *v, op_ref_order);
	*out = v;
	return SBX_OK;
}

/* The first of the sorted refs whose column is at or after (family, q). */
static size_t op_refs_find(const op_ref *v, size_t n, const char *family,
			   size_t family_len, const uint8_t *q, size_t ql)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (cmp_column(v[mid].op, family, family_len, q, ql) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * A log entry is dropped when a later one covers it: a later DeleteFamily
 * covers every op of its family, a later DeleteColumn every op of its
 * column but a DeleteFamily, a later put an earlier put of its column.
 * Found over the ops sorted by column (O(n log n): a transaction writing
 * thousands of cells to one row read and committed in quadratic time
 * when each op looked at every later one).
 */
int tx_normalize(tx_op **out, size_t *n, const tx_row *r)
{
	*out = NULL;
	*n = 0;
	if (!r->nops)
		return SBX_OK;
	size_t nops = r->nops;
	op_ref *refs;
	int rc = op_refs_sorted(&refs, r->ops, nops);
	if (rc)
		return rc;
	bool *keep = sbx_malloc(nops * sizeof *keep);
	tx_op *v = keep ? sbx_malloc(nops * sizeof *v) : NULL;
	if (!v) {
		free(refs);
		free(keep);
		return SBX_ENOMEM_SET();
	}
	for (size_t f = 0, fend; f < nops; f = fend) {
		size_t last_df = 0; /* 1 + the family's last DeleteFamily */
		for (fend = f; fend < nops && same_family(refs[fend].op,
							  refs[f].op);
		     fend++)
			if (refs[fend].op->kind == TX_DELETE_FAMILY &&
			    refs[fend].pos + 1 > last_df)
				last_df = refs[fend].pos + 1;
		for (size_t c = f, cend; c < fend; c = cend) {
			for (cend = c; cend < fend &&
				       same_column(refs[cend].op, refs[c].op);
			     cend++)
				;
			bool later_dc = false, later_put = false;
			for (size_t k = cend; k-- > c;) { /* latest first */
				const tx_op *op = refs[k].op;
				size_t pos = refs[k].pos;
				keep[pos] = !(last_df > pos + 1 ||
					      (op->kind != TX_DELETE_FAMILY &&
					       later_dc) ||
					      (op->kind == TX_PUT && later_put));
				later_dc = later_dc ||
					   op->kind == TX_DELETE_COLUMN;
				later_put = later_put || op->kind == TX_PUT;
			}
		}
	}
	size_t k = 0;
	for (size_t i = 0; i < nops; i++)
		if (keep[i])
			v[k++] = r->ops[i];
	free(refs);
	free(keep);
	*out = v;
	*n = k;
	return SBX_OK;
}

static int log_push(tx_row *r, tx_op_kind kind, const char *family,
		    const uint8_t *q, size_t qlen, const uint8_t *v,
		    size_t vlen)
{
	if (r->nops == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 4;
		void *p = sbx_realloc(r->ops, cap * sizeof *r->ops);
		if (!p)
			return SBX_ENOMEM_SET();
		r->ops = p;
		r->cap = cap;
	}
	tx_op op = {.kind = kind, .family_len = strlen(family)};
	char *f = sbx_strdup(family);
	uint8_t *qc = sbx_malloc(qlen ? qlen : 1), *vc = sbx_malloc(vlen ? vlen : 1);
	if (!f || !qc || !vc) {
		free(f);
		free(qc);
		free(vc);
		return SBX_ENOMEM_SET();
	}
	if (qlen)
		memcpy(qc, q, qlen);
	if (vlen)
		memcpy(vc, v, vlen);
	op.family = f;
	op.qualifier = qc;
	op.qualifier_len = qlen;
	op.value = vc;
	op.value_len = vlen;
	r->ops[r->nops++] = op;
	return SBX_OK;
}

static void log_truncate(tx_row *r, size_t n)
{
	while (r->nops > n)
		op_free(&r->ops[--r->nops]);
}

/* ---- reads ----------------------------------------------------------------
 */

static bool selected(const sbx_read_opts *o, const tx_op *op)
{
	if (!o->ncolumns)
		return true;
	for (size_t i = 0; i < o->ncolumns; i++) {
		const sbx_column *c = &o->columns[i];
		if (strlen(c->family) != op->family_len ||
		    memcmp(c->family, op->family, op->family_len))
			continue;
		if (!c->qualifier ||
		    (c->qualifier_len == op->qualifier_len &&
		     (!op->qualifier_len ||
		      !memcmp(c->qualifier, op->qualifier, op->qualifier_len))))
			return true;
	}
	return false;
}

static bool is_lock_cell(const sbx_cell *c)
{
	return c->family_len == sizeof SBX_TXN_LOCK_FAMILY - 1 &&
	       !memcmp(c->family, SBX_TXN_LOCK_FAMILY, c->family_len);
}

static int cell_order(const void *pa, const void *pb)
{
	return sbx_cell_cmp(pa, pb);
}

int tx_merge(sbx_result **out, const tx_row *r, const uint8_t *row,
	     size_t row_len, const sbx_result *base, const sbx_read_opts *o)
{
	*out = NULL;
	tx_op *ops;
	size_t nops;
	int rc = tx_normalize(&ops, &nops, r);
	if (rc)
		return rc;
	size_t nbase;
	const sbx_cell *bc = sbx_result_cells(base, &nbase);
	sbx_cell *cells = sbx_malloc((nbase + nops + 1) * sizeof *cells);
	/* per op (by its position): the stored versions of its column kept */
	size_t *kept = sbx_calloc(nops ? nops : 1, sizeof *kept);
	op_ref *refs = NULL;
	if (!cells || !kept || op_refs_sorted(&refs, ops, nops)) {
		free(cells);
		free(kept);
		free(ops);
		return SBX_ENOMEM_SET();
	}
	bool own_visible = o->min_ts == 0 && o->max_ts == INT64_MAX;
	size_t n = 0;
	for (size_t i = 0; i < nbase; i++) {
		const sbx_cell *c = &bc[i];
		if (is_lock_cell(c))
			continue;
		/* normalized, a column has at most a DeleteFamily (in the
		 * family's empty-qualifier column), a DeleteColumn and a put */
		bool deleted = false;
		const tx_op *put = NULL;
		size_t put_pos = 0;
		for (size_t k = op_refs_find(refs, nops, c->family,
					     c->family_len, NULL, 0);
		     k < nops && !cmp_column(refs[k].op, c->family,
					     c->family_len, NULL, 0);
		     k++)
			deleted = deleted ||
				  refs[k].op->kind == TX_DELETE_FAMILY;
		for (size_t k = op_refs_find(refs, nops, c->family,
					     c->family_len, c->qualifier,
					     c->qualifier_len);
		     k < nops && !cmp_column(refs[k].op, c->family,
					     c->family_len, c->qualifier,
					     c->qualifier_len);
		     k++) {
			if (refs[k].op->kind == TX_DELETE_COLUMN)
				deleted = true;
			else if (refs[k].op->kind == TX_PUT) {
				put = refs[k].op;
				put_pos = refs[k].pos;
			}
		}
		if (deleted)
			continue;
		/* a put of ours is the newest version: one fewer old one */
		if (put && own_visible && selected(o, put) &&
		    o->max_versions > 0 &&
		    (int)kept[put_pos] + 1 >= o->max_versions)
			continue;
		if (put)
			kept[put_pos]++;
		cells[n++] = *c;
	}
	free(refs);
	free(kept);
	for (size_t k = 0; own_visible && k < nops; k++) {
		if (ops[k].kind != TX_PUT || !selected(o, &ops[k]))
			continue;
		sbx_cell c = {row,
			      row_len,
			      ops[k].family,
			      ops[k].family_len,
			      ops[k].qualifier,
			      ops[k].qualifier_len,
			      SBX_LATEST_TIMESTAMP,
			      SBX_CELL_PUT,
			      ops[k].value,
			      ops[k].value_len};
		cells[n++] = c;
	}
	qsort(cells, n, sizeof *cells, cell_order);
	rc = sbx_result_from_cells(out, row, row_len, cells, n);
	free(cells);
	free(ops);
	return rc;
}

void tx_note_timestamps(tx_row *r, const sbx_result *res)
{
	size_t n;
	const sbx_cell *c = sbx_result_cells(res, &n);
	for (size_t i = 0; i < n; i++)
		if (c[i].timestamp > r->newest_ts &&
		    c[i].timestamp != SBX_LATEST_TIMESTAMP)
			r->newest_ts = c[i].timestamp;
}

int tx_note_lock(sbx_txn *txn, tx_row *r, const tx_seen *seen)
{
	if (!r->seen) {
		int rc = tx_seen_copy(&r->lock, seen);
		if (rc == SBX_OK)
			r->seen = true;
		return rc;
	}
	if (tx_seen_equal(&r->lock, seen))
		return SBX_OK;
	char name[200];
	return sbx_error_set(
	    SBX_ECONFLICT, "%s changed since this transaction first read it",
	    tx_row_name(name, sizeof name, txn->tables.v[r->table].name, r->row,
			r->row_len));
}

bool tx_wait_more(int64_t started_ms, int64_t wait_ms, int *round)
{
	if (tx_now_ms() - started_ms >= wait_ms)
		return false;
	int ms = *round < 4 ? 1 << *round : 10;
	(*round)++;
	struct timespec ts = {0, (long)ms * 1000000L};
	nanosleep(&ts, NULL);
	return true;
}

int tx_meet_lock(sbx_txn *txn, size_t table, const uint8_t *row, size_t row_len,
		 const tx_seen *seen, int64_t started_ms, int *round)
{
	tx_lock lk;
	int rc = lock_decode(&lk, seen->bytes.data,
			     seen->present ? seen->bytes.len : 0);
	if (rc)
		return rc;
	tx_meet meet;
	rc = tx_resolve_seen(&meet, NULL, &txn->tables, txn->tables.v[table].t,
			     row, row_len, seen, &lk);
	if (rc || meet == TX_MEET_RESOLVED)
		return rc;
	if (tx_wait_more(started_ms, txn->opts.lock_wait_ms, round))
		return SBX_OK;
	char name[200];
	return sbx_error_set(
	    SBX_ECONFLICT,
	    "%s is locked by transaction %016llx, in progress (expires in "
	    "%lld ms)",
	    tx_row_name(name, sizeof name, txn->tables.v[table].name, row,
			row_len),
	    (unsigned long long)lk.txn_id,
	    (long long)(lk.expiry_ms - tx_now_ms()));
}

static int bad_lock_here(sbx_txn *txn, size_t table, const uint8_t *row,
			 size_t row_len)
{
	char name[200], msg[400];
	snprintf(msg, sizeof msg, "%s", sbx_errmsg());
	return sbx_error_set(SBX_EBADVALUE, "%s: %s",
			     tx_row_name(name, sizeof name,
					 txn->tables.v[table].name, row,
					 row_len),
			     msg);
}

/* Read lock and data of a row: in one get when the lock cell is sure to
 * come back with the data (no filter, no time range), else the lock, the
 * data and the lock again (equal: the data belongs to that lock). */
static int read_row(sbx_result **res, tx_seen *seen, bool *torn, sbx_table *t,
		    const uint8_t *row, size_t row_len, const sbx_read_opts *o)
{
	*torn = false;
	if (!o->filter && o->min_ts == 0 && o->max_ts == INT64_MAX) {
		sbx_read_opts with = *o;
		sbx_column *cols = NULL;
		if (o->ncolumns) {
			cols = sbx_malloc((o->ncolumns + 1) * sizeof *cols);
			if (!cols)
				return SBX_ENOMEM_SET();
			memcpy(cols, o->columns, o->ncolumns * sizeof *cols);
			cols[o->ncolumns] = (sbx_column){
			    SBX_TXN_LOCK_FAMILY, SBX_TXN_LOCK_QUALIFIER, 4};
			with.columns = cols;
			with.ncolumns = o->ncolumns + 1;
		}
		int rc = sbx_table_get(res, t, row, row_len, &with);
		free(cols);
		return rc ? rc : tx_seen_from_result(seen, *res);
	}
	tx_seen after = {0};
	int rc = tx_read_lock(seen, t, row, row_len);
	rc = rc ? rc : sbx_table_get(res, t, row, row_len, o);
	rc = rc ? rc : tx_read_lock(&after, t, row, row_len);
	if (rc == SBX_OK)
		*torn = !tx_seen_equal(seen, &after);
	tx_seen_free(&after);
	return rc;
}

#define READ_ATTEMPTS 1000

int tx_get_row(sbx_result **out, sbx_txn *txn, size_t table, const void *row,
	       size_t row_len, const sbx_read_opts *opts)
{
	*out = NULL;
	sbx_read_opts defaults;
	if (!opts) {
		sbx_read_opts_init(&defaults);
		opts = &defaults;
	}
	if (opts->raw)
		return sbx_error_set(
		    SBX_EINVAL, "raw reads cannot go through a transaction");
	tx_row *r;
	int rc = tx_row_get(&r, txn, table, row, row_len, true);
	if (rc)
		return rc;
	if (opts->filter && r->nops)
		return sbx_error_set(SBX_EUNSUPPORTED,
				     "a filter on a row this transaction has "
				     "written is not supported: read it "
				     "without the filter");
	sbx_table *t = txn->tables.v[table].t;
	int64_t started = tx_now_ms();
	int round = 0;
	tx_seen seen = {0};
	for (int attempt = 0; rc == SBX_OK && attempt < READ_ATTEMPTS;
	     attempt++) {
		sbx_result *res = NULL;
		bool torn;
		rc = read_row(&res, &seen, &torn, t, row, row_len, opts);
		tx_lock lk;
		if (rc == SBX_OK &&
		    lock_decode(&lk, seen.bytes.data,
				seen.present ? seen.bytes.len : 0))
			rc = bad_lock_here(txn, table, row, row_len);
		if (rc || torn) {
			sbx_result_free(res);
			continue;
		}
		if (lk.state != TX_STABLE) {
			sbx_result_free(res);
			if (r->seen) /* it cannot be what we saw again */
				rc = tx_note_lock(txn, r, &seen);
			else
				rc = tx_meet_lock(txn, table, row, row_len,
						  &seen, started, &round);
			continue;
		}
		rc = tx_check_lock_family(txn, table, &seen);
		rc = rc ? rc : tx_note_lock(txn, r, &seen);
		if (rc == SBX_OK) {
			r->read = true;
			tx_note_timestamps(r, res);
			rc = tx_merge(out, r, row, row_len, res, opts);
		}
		sbx_result_free(res);
		tx_seen_free(&seen);
		return rc;
	}
	tx_seen_free(&seen);
	return rc ? rc
		  : sbx_error_set(SBX_ECONFLICT,
				  "row kept changing while it was read (%d "
				  "attempts)",
				  READ_ATTEMPTS);
}

static int check_row_arg(const void *row, size_t row_len)
{
	if (!row || row_len == 0)
		return sbx_error_set(SBX_EINVAL, "row key is empty");
	if (row_len > SBX_MAX_ROW_LENGTH)
		return sbx_error_set(SBX_ETOOLARGE,
				     "row key is longer than %d bytes",
				     SBX_MAX_ROW_LENGTH);
	return SBX_OK;
}

int sbx_txn_get(sbx_result **out, sbx_txn *txn, sbx_table *t, const void *row,
		size_t row_len, const sbx_read_opts *opts)
{
	*out = NULL;
	size_t table;
	int rc = usable(txn, "sbx_txn_get");
	rc = rc ? rc : check_row_arg(row, row_len);
	if (rc == SBX_OK && !t)
		rc = sbx_error_set(SBX_EINVAL, "sbx_txn_get: no table");
	rc = rc ? rc : tx_tables_add(&table, &txn->tables, t);
	return rc ? rc : tx_get_row(out, txn, table, row, row_len, opts);
}

/* ---- writes -------------------------------------------------------------- */

/* The families of a table (not the lock family), NULL-terminated; the
 * caller frees with sbx_strv_free. */
static int describe_families(char ***out, sbx_db *db, const char *table)
{
	*out = NULL;
	sbx_table_info *info;
	int rc = sbx_table_describe(&info, db, table);
	if (rc)
		return rc;
	char **v = sbx_calloc(info->nfamilies + 1, sizeof *v);
	size_t k = 0;
	bool has_lock = false;
	for (size_t i = 0; v && i < info->nfamilies; i++) {
		if (!strcmp(info->families[i].name, SBX_TXN_LOCK_FAMILY)) {
			has_lock = true;
			continue;
		}
		if (!(v[k++] = sbx_strdup(info->families[i].name))) {
			sbx_strv_free(v);
			v = NULL;
		}
	}
	sbx_table_info_free(info);
	if (!v)
		return SBX_ENOMEM_SET();
	if (!has_lock) {
		sbx_strv_free(v);
		return sbx_error_set(
		    SBX_ENOFAMILY,
		    "table '%s' has no transaction lock family "
		    "'%s': add it with sbx_txn_prepare_table() "
		    "(saltbox txn prepare)",
		    table, SBX_TXN_LOCK_FAMILY);
	}
	*out = v;
	return SBX_OK;
}

/* The same, looked up once per transaction and table. */
static int table_families(char ***out, sbx_txn *txn, size_t table)
{
	struct tx_table_entry *e = &txn->tables.v[table];
	int rc = e->families ? SBX_OK
			     : describe_families(&e->families, txn->db,
						 sbx_table_name(e->t));
	*out = e->families;
	return rc;
}

int tx_check_lock_family(sbx_txn *txn, size_t table, const tx_seen *seen)
{
	struct tx_table_entry *e = &txn->tables.v[table];
	if (seen->present)
		e->has_lock_family = true;
	if (e->has_lock_family)
		return SBX_OK;
	char **fams;
	int rc = table_families(&fams, txn, table);
	if (rc == SBX_OK)
		e->has_lock_family = true;
	return rc;
}

static bool has_family(char **fams, const char *f)
{
	for (char **p = fams; *p; p++)
		if (!strcmp(*p, f))
			return true;
	return false;
}

/* Operations the transaction layer can buffer and undo. */
static int check_op(const sbx_mutation_op *op, char **fams, const char *table)
{
	if (op->ts != SBX_LATEST_TIMESTAMP)
		return sbx_error_set(SBX_EINVAL,
				     "a transaction chooses its timestamps: "
				     "leave them SBX_LATEST_TIMESTAMP");
	if (op->kind == SBX_MUTATION_DELETE &&
	    op->delete_type != SBX_CELL_DELETE_COLUMN &&
	    op->delete_type != SBX_CELL_DELETE_FAMILY)
		return sbx_error_set(SBX_EUNSUPPORTED,
				     "a transaction deletes whole columns "
				     "(DeleteColumn) or families, not one "
				     "version");
	if (op->kind == SBX_MUTATION_DELETE_ROW)
		return SBX_OK;
	if (!strcmp(op->family, SBX_TXN_LOCK_FAMILY))
		return sbx_error_set(SBX_EINVAL,
				     "family '%s' holds the transaction locks; "
				     "it cannot be written",
				     SBX_TXN_LOCK_FAMILY);
	if (!has_family(fams, op->family))
		return sbx_error_set(SBX_ENOFAMILY,
				     "table '%s' has no family '%s'", table,
				     op->family);
	return SBX_OK;
}

static void put_be64(uint8_t *p, uint64_t v)
{
	for (int i = 7; i >= 0; i--, v >>= 8)
		p[i] = (uint8_t)v;
}

/* Increment or append: read the column through the transaction, buffer
 * the new value as a put. */
static int read_modify_write(sbx_txn *txn, size_t table, tx_row *r,
			     const sbx_mutation_op *op)
{
	sbx_column col = {op->family, op->qualifier, op->qualifier_len};
	sbx_read_opts o;
	sbx_read_opts_init(&o);
	o.columns = &col;
	o.ncolumns = 1;
	sbx_result *res;
	int rc = tx_get_row(&res, txn, table, r->row, r->row_len, &o);
	if (rc)
		return rc;
	const sbx_cell *c =
	    sbx_result_get(res, op->family, op->qualifier, op->qualifier_len);
	if (op->kind == SBX_MUTATION_INCREMENT) {
		uint64_t v = 0;
		if (c && c->value_len != 8)
			rc = sbx_error_set(
			    SBX_EBADVALUE,
			    "increment: %s:%.*s holds %zu bytes, "
			    "not an 8-byte counter",
			    op->family, (int)op->qualifier_len,
			    (const char *)op->qualifier, c->value_len);
		for (size_t i = 0; c && !rc && i < 8; i++)
			v = v << 8 | c->value[i];
		uint8_t be[8];
		put_be64(be, v + (uint64_t)op->delta);
		if (!rc)
			rc = log_push(r, TX_PUT, op->family, op->qualifier,
				      op->qualifier_len, be, 8);
	} else {
		sbx_buf v = {0};
		if (c)
			rc = sbx_buf_append(&v, c->value, c->value_len);
		rc = rc ? rc : sbx_buf_append(&v, op->value, op->value_len);
		if (!rc)
			rc = log_push(r, TX_PUT, op->family, op->qualifier,
				      op->qualifier_len, v.data, v.len);
		sbx_buf_free(&v);
	}
	sbx_result_free(res);
	return rc;
}

static int buffer_op(sbx_txn *txn, size_t table, tx_row *r,
		     const sbx_mutation_op *op, char **fams)
{
	switch (op->kind) {
	case SBX_MUTATION_PUT:
		return log_push(r, TX_PUT, op->family, op->qualifier,
				op->qualifier_len, op->value, op->value_len);
	case SBX_MUTATION_DELETE:
		if (op->delete_type == SBX_CELL_DELETE_FAMILY)
			return log_push(r, TX_DELETE_FAMILY, op->family, NULL,
					0, NULL, 0);
		return log_push(r, TX_DELETE_COLUMN, op->family, op->qualifier,
				op->qualifier_len, NULL, 0);
	case SBX_MUTATION_DELETE_ROW:
		for (char **f = fams; *f; f++) {
			int rc =
			    log_push(r, TX_DELETE_FAMILY, *f, NULL, 0, NULL, 0);
			if (rc)
				return rc;
		}
		return SBX_OK;
	case SBX_MUTATION_INCREMENT:
	case SBX_MUTATION_APPEND:
		return read_modify_write(txn, table, r, op);
	}
	return sbx_error_set(SBX_EINVAL, "unknown mutation operation");
}

int sbx_txn_mutate(sbx_txn *txn, sbx_table *t, const sbx_mutation *m)
{
	int rc = usable(txn, "sbx_txn_mutate");
	if (rc == SBX_OK && (!t || !m || !sbx_mutation_size(m)))
		rc = sbx_error_set(SBX_EINVAL,
				   "sbx_txn_mutate: needs a table and a "
				   "mutation with operations");
	if (rc)
		return rc;
	size_t row_len, table, n = sbx_mutation_size(m);
	const uint8_t *row = sbx_mutation_row(m, &row_len);
	char **fams = NULL;
	tx_row *r = NULL;
	rc = tx_tables_add(&table, &txn->tables, t);
	rc = rc ? rc : table_families(&fams, txn, table);
	for (size_t i = 0; rc == SBX_OK && i < n; i++) {
		sbx_mutation_op op;
		rc = sbx_mutation_op_at(&op, m, i);
		rc = rc ? rc : check_op(&op, fams, sbx_table_name(t));
	}
	rc = rc ? rc : tx_row_get(&r, txn, table, row, row_len, true);
	size_t before = r ? r->nops : 0;
	for (size_t i = 0; rc == SBX_OK && i < n; i++) {
		sbx_mutation_op op;
		sbx_mutation_op_at(&op, m, i);
		rc = buffer_op(txn, table, r, &op, fams);
	}
	if (rc && r)
		log_truncate(r, before); /* all of m or none of it */
	return rc;
}
