/*
 * bench_datastore.c - what the datastore costs (issue 13.6) on the
 * embedded store, each operation against the plain table operations it
 * stands for:
 *  - entity put (a new photo: count and next id in the same transaction;
 *    and a replace) against one plain put of the same bytes;
 *  - entity get against one plain get of that column;
 *  - subtree read (a couple with 50 photos and 50 comments, all 102
 *    entities decoded) against one plain get of the whole row;
 *  - sibling range (20 photos) against one plain get of those columns;
 *  - indexed put (an update that moves the photo in a reference index:
 *    3 rows - entity, old and new index row - in one transaction)
 *    against the three plain mutations it expands to.
 * Prints microseconds per operation, its reference's, and their ratio,
 * each measured in 7 rounds alternating with its reference (medians), so
 * a busy machine slows both alike.
 *
 * usage: bench_datastore [--ops N] [--dir DIR]
 */
#include "bench_util.h"
#include "ds_test.pb-c.h"
#include "saltbox.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { COUPLE = 1, PHOTO = 3, COMMENT = 4, IPHOTO = 5 };

static sbx_db *db;
static sbx_ds *ds;
static sbx_table *tb, *ix;
static int ops = 1000;

typedef enum {
	DS_PUT_NEW, PLAIN_PUT, DS_PUT_REPLACE, DS_GET, PLAIN_GET, DS_TREE,
	PLAIN_ROW, DS_RANGE, PLAIN_RANGE, DS_PUT_INDEXED, PLAIN_PUT3,
} op_kind;

static const char *names[] = {
    "entity put (new, auto-commit)", "plain put of the cell",
    "entity put (replace)", "entity get", "plain get of the column",
    "subtree read (102 entities)", "plain get of the row",
    "sibling range (20 photos)", "plain get of 20 columns",
    "indexed put (moves index row)", "3 plain mutations",
};

static sbx_ds_key *key(uint64_t root, uint16_t kind, uint64_t id)
{
	sbx_ds_key *r = NULL, *k = NULL;
	if (sbx_ds_key_root(&r, COUPLE, root))
		die("key");
	if (!kind)
		return r;
	if (sbx_ds_key_child(&k, r, kind, id))
		die("key");
	sbx_ds_key_free(r);
	return k;
}

static void photo(Dstest__Photo *p, uint64_t taken)
{
	dstest__photo__init(p);
	p->caption = "a photo at the beach, with a caption of some length";
	p->has_taken = true;
	p->taken = taken;
	p->owner = "alice";
}

static void plain_put(const sbx_buf *row, const sbx_buf *q, const void *v,
		      size_t n)
{
	sbx_mutation *m;
	if (sbx_mutation_new(&m, row->data, row->len) ||
	    sbx_mutation_put(m, SBX_DS_FAMILY, q->data, q->len,
			     SBX_LATEST_TIMESTAMP, v, n) ||
	    sbx_table_mutate(NULL, tb, m))
		die("plain put");
	sbx_mutation_free(m);
}

static void one_op(op_kind k, int i)
{
	Dstest__Photo p;
	photo(&p, (uint64_t)i);
	uint8_t bytes[256];
	size_t n = dstest__photo__pack(&p, bytes);
	sbx_buf row = {0}, q = {0};
	sbx_ds_key *key1 = NULL;
	ProtobufCMessage *m = NULL;
	sbx_result *r = NULL;
	sbx_ds_iter *it = NULL;
	const sbx_ds_key *ek;
	switch (k) {
	case DS_PUT_NEW: /* a fresh root per op, one photo under it */
		key1 = key(1000000 + (uint64_t)i, PHOTO, 1);
		if (sbx_ds_put(ds, NULL, key1, &p.base))
			die("ds put");
		break;
	case PLAIN_PUT:
	case DS_PUT_REPLACE:
		key1 = key(2000000 + (uint64_t)(i % 100), PHOTO, 1);
		if (k == DS_PUT_REPLACE) {
			if (sbx_ds_put(ds, NULL, key1, &p.base))
				die("ds put");
			break;
		}
		sbx_ds_key_encode_row(&row, key1);
		sbx_ds_key_encode_qualifier(&q, key1);
		plain_put(&row, &q, bytes, n);
		break;
	case DS_GET:
	case PLAIN_GET:
		key1 = key(7, PHOTO, 1 + (uint64_t)(i % 50));
		if (k == DS_GET) {
			if (sbx_ds_get(&m, ds, NULL, key1) || !m)
				die("ds get");
			break;
		}
		sbx_ds_key_encode_row(&row, key1);
		sbx_ds_key_encode_qualifier(&q, key1);
		{
			sbx_column c = {SBX_DS_FAMILY, q.data, q.len};
			sbx_read_opts o;
			sbx_read_opts_init(&o);
			o.columns = &c;
			o.ncolumns = 1;
			if (sbx_table_get(&r, tb, row.data, row.len, &o) ||
			    !sbx_result_size(r))
				die("plain get");
		}
		break;
	case DS_TREE:
		key1 = key(7, 0, 0);
		if (sbx_ds_get_tree(&it, ds, NULL, key1))
			die("tree");
		while (sbx_ds_iter_next(it, &ek, &m) == SBX_OK) {
			sbx_ds_entity_free(m);
			m = NULL;
		}
		break;
	case PLAIN_ROW:
		key1 = key(7, 0, 0);
		sbx_ds_key_encode_row(&row, key1);
		if (sbx_table_get(&r, tb, row.data, row.len, NULL))
			die("row");
		break;
	case DS_RANGE: {
		key1 = key(7, 0, 0);
		sbx_ds_range rg;
		sbx_ds_range_init(&rg);
		rg.limit = 20;
		rg.batch = 20;
		if (sbx_ds_scan_siblings(&it, ds, NULL, key1, PHOTO, &rg))
			die("range");
		while (sbx_ds_iter_next(it, &ek, &m) == SBX_OK) {
			sbx_ds_entity_free(m);
			m = NULL;
		}
		break;
	}
	case PLAIN_RANGE: {
		key1 = key(7, 0, 0);
		sbx_ds_key_encode_row(&row, key1);
		sbx_filter *f;
		sbx_ds_key *first = key(7, PHOTO, 1);
		sbx_ds_key_encode_qualifier(&q, first);
		sbx_ds_key_free(first);
		if (sbx_filter_new_column_pagination_from(&f, 20, q.data, q.len))
			die("filter");
		sbx_read_opts o;
		sbx_read_opts_init(&o);
		o.filter = f;
		if (sbx_table_get(&r, tb, row.data, row.len, &o) ||
		    sbx_result_size(r) != 20)
			die("plain range");
		sbx_filter_free(f);
		break;
	}
	case DS_PUT_INDEXED: /* taken changes every time: the index row moves */
		key1 = key(8, IPHOTO, 1 + (uint64_t)(i % 50));
		{
			Dstest__Photo ip;
			photo(&ip, (uint64_t)i + 1000000);
			if (sbx_ds_put(ds, NULL, key1, &ip.base))
				die("indexed put");
		}
		break;
	case PLAIN_PUT3: {
		key1 = key(9, PHOTO, 1 + (uint64_t)(i % 50));
		sbx_ds_key_encode_row(&row, key1);
		sbx_ds_key_encode_qualifier(&q, key1);
		plain_put(&row, &q, bytes, n);
		char irow[32];
		snprintf(irow, sizeof irow, "idx%08d", i);
		sbx_mutation *mu;
		if (sbx_mutation_new(&mu, irow, strlen(irow)) ||
		    sbx_mutation_put(mu, SBX_DS_FAMILY, "k", 1,
				     SBX_LATEST_TIMESTAMP, row.data, row.len) ||
		    sbx_table_mutate(NULL, ix, mu))
			die("plain index put");
		sbx_mutation_free(mu);
		snprintf(irow, sizeof irow, "idx%08d", i - 1);
		if (sbx_mutation_new(&mu, irow, strlen(irow)) ||
		    sbx_mutation_delete(mu, SBX_CELL_DELETE_FAMILY,
					SBX_DS_FAMILY, NULL, 0,
					SBX_LATEST_TIMESTAMP) ||
		    sbx_table_mutate(NULL, ix, mu))
			die("plain index delete");
		sbx_mutation_free(mu);
		break;
	}
	}
	sbx_ds_iter_close(it);
	sbx_ds_entity_free(m);
	sbx_result_free(r);
	sbx_ds_key_free(key1);
	sbx_buf_free(&row);
	sbx_buf_free(&q);
}

static void measure(op_kind k, op_kind ref)
{
	enum { ROUNDS = 7 };
	double v[ROUNDS], rv[ROUNDS], q[ROUNDS];
	for (int r = 0; r < ROUNDS; r++) {
		double t0 = now_s();
		for (int i = 0; i < ops; i++)
			one_op(ref, i + r * ops);
		double t1 = now_s();
		for (int i = 0; i < ops; i++)
			one_op(k, i + r * ops);
		double t2 = now_s();
		rv[r] = (t1 - t0) * 1e6 / ops;
		v[r] = (t2 - t1) * 1e6 / ops;
		q[r] = v[r] / rv[r];
	}
	printf("%-34s %9.1f %10.1f %8.2f   (ref: %s)\n", names[k],
	       median(v, ROUNDS), median(rv, ROUNDS), median(q, ROUNDS),
	       names[ref]);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	char dir[256];
	snprintf(dir, sizeof dir, "/tmp/bench_datastore.%d", (int)getpid());
	const char *d = dir;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--ops") && i + 1 < argc)
			ops = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--dir") && i + 1 < argc)
			d = argv[++i];
		else {
			fprintf(stderr, "usage: bench_datastore [--ops N] "
					"[--dir DIR]\n");
			return 2;
		}
	}
	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", d);
	if (system(cmd))
		return 1;
	if (sbx_db_open(&db, d, NULL) || sbx_ds_open(&ds, db, "couples", NULL))
		die("open");
	sbx_ds_kind_desc kinds[] = {
	    {COUPLE, "Couple", &dstest__couple__descriptor, NULL, NULL},
	    {PHOTO, "Photo", &dstest__photo__descriptor, NULL, NULL},
	    {COMMENT, "Comment", &dstest__comment__descriptor, NULL, NULL},
	    {IPHOTO, "IndexedPhoto", &dstest__photo__descriptor, NULL, NULL},
	};
	for (size_t i = 0; i < 4; i++)
		if (sbx_ds_register_kind(ds, &kinds[i]))
			die("register");
	sbx_ds_index_desc by_taken = {"by_taken", IPHOTO,
				      "root:u64 + taken:u64 desc + id:u64",
				      SBX_DS_INDEX_REFERENCE, NULL};
	if (sbx_ds_add_index(ds, &by_taken) || sbx_ds_prepare(ds) ||
	    sbx_table_open(&tb, db, "couples") ||
	    sbx_table_open(&ix, db, "couples_by_taken"))
		die("prepare");
	/* couple 7: 50 photos, a comment under each */
	for (uint64_t i = 1; i <= 50; i++) {
		sbx_ds_key *p = key(7, PHOTO, i), *c = NULL;
		Dstest__Photo ph;
		photo(&ph, i);
		Dstest__Comment cm = DSTEST__COMMENT__INIT;
		cm.text = "nice one";
		if (sbx_ds_put(ds, NULL, p, &ph.base) ||
		    sbx_ds_key_child(&c, p, COMMENT, 1) ||
		    sbx_ds_put(ds, NULL, c, &cm.base))
			die("load");
		sbx_ds_key_free(p);
		sbx_ds_key_free(c);
	}
	sbx_ds_key *root = key(7, 0, 0);
	Dstest__Couple cp = DSTEST__COUPLE__INIT;
	cp.name = "alice+bob";
	if (sbx_ds_put(ds, NULL, root, &cp.base))
		die("load");
	sbx_ds_key_free(root);
	printf("bench_datastore: embedded store, %d ops per round, 7 rounds "
	       "each alternating with its reference; medians; default "
	       "durability (SYNC_WAL)\n\n",
	       ops);
	printf("%-34s %9s %10s %8s\n", "operation", "us/op", "ref us/op",
	       "x ref");
	measure(DS_PUT_NEW, PLAIN_PUT);
	measure(DS_PUT_REPLACE, PLAIN_PUT);
	measure(DS_GET, PLAIN_GET);
	measure(DS_TREE, PLAIN_ROW);
	measure(DS_RANGE, PLAIN_RANGE);
	measure(DS_PUT_INDEXED, PLAIN_PUT3);
	sbx_table_close(tb);
	sbx_table_close(ix);
	sbx_ds_close(ds);
	sbx_db_close(db);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", d);
	return system(cmd) ? 1 : 0;
}
