/*
 * bench_bigtable.c - what Saltbox's Bigtable backend costs over the
 * transport: single-row puts, single-row gets and 100-row scans through
 * the table API (sbx_db_connect "bigtable://p/i"), against the same calls
 * made with bare gRPC (the C core, the same protobuf-c messages, no HBase
 * semantics) to the same Bigtable emulator: MutateRow with one SetCell,
 * ReadRows of one row key keeping the newest version, ReadRows of a range
 * with rows_limit 100. The bare side packs each request, sends it on its
 * own call and unpacks every response, and does nothing else: the
 * transport's ceiling. Rounds alternate the two sides; the ratio printed is
 * the median of the per-round ratios.
 *
 * usage: BIGTABLE_EMULATOR_HOST=host:port bench_bigtable [--ops N]
 *        [--rounds R]
 * bench/bench_bigtable.sh starts Google's emulator on a free port and runs
 * it.
 */
#include "bench_util.h"
#include "saltbox.h"

#include "bigtable.pb-c.h"

#include <grpc/byte_buffer_reader.h>
#include <grpc/grpc.h>
#include <grpc/grpc_security.h>
#include <grpc/support/time.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TABLE_PATH "projects/p/instances/i/tables/bench"
#define ROUTE "table_name=projects%2Fp%2Finstances%2Fi%2Ftables%2Fbench"
#define VALUE_LEN 100
#define SCAN_ROWS 100

/* ---- bare gRPC -------------------------------------------------------- */

static grpc_channel *channel;

static void bare_die(const char *what)
{
	fprintf(stderr, "bench_bigtable: bare gRPC %s failed\n", what);
	exit(1);
}

static bool batch(grpc_call *call, grpc_completion_queue *cq,
		  const grpc_op *ops, size_t n)
{
	if (grpc_call_start_batch(call, ops, n, (void *)1, NULL) !=
	    GRPC_CALL_OK)
		return false;
	grpc_event ev = grpc_completion_queue_next(
		cq, gpr_inf_future(GPR_CLOCK_REALTIME), NULL);
	return ev.type == GRPC_OP_COMPLETE && ev.success;
}

/* One call: the request out, every response unpacked (and counted), the
 * status in. Returns the number of responses. */
static int bare_call(const char *method, const ProtobufCMessage *req,
		     const ProtobufCMessageDescriptor *resp_desc,
		     size_t *chunks)
{
	size_t len = protobuf_c_message_get_packed_size(req);
	uint8_t stackbuf[1024];
	uint8_t *buf = len <= sizeof stackbuf ? stackbuf : malloc(len);
	if (!buf)
		bare_die("malloc");
	protobuf_c_message_pack(req, buf);
	grpc_slice s = grpc_slice_from_copied_buffer((const char *)buf, len);
	if (buf != stackbuf)
		free(buf);
	grpc_byte_buffer *send = grpc_raw_byte_buffer_create(&s, 1);
	grpc_slice_unref(s);

	grpc_completion_queue *cq = grpc_completion_queue_create_for_next(NULL);
	grpc_call *call = grpc_channel_create_call(
		channel, NULL, GRPC_PROPAGATE_DEFAULTS, cq,
		grpc_slice_from_static_string(method), NULL,
		gpr_inf_future(GPR_CLOCK_REALTIME), NULL);
	grpc_metadata md;
	memset(&md, 0, sizeof md);
	md.key = grpc_slice_from_static_string("x-goog-request-params");
	md.value = grpc_slice_from_static_string(ROUTE);
	grpc_metadata_array initial, trailing;
	grpc_metadata_array_init(&initial);
	grpc_metadata_array_init(&trailing);
	grpc_op ops[4];
	memset(ops, 0, sizeof ops);
	ops[0].op = GRPC_OP_SEND_INITIAL_METADATA;
	ops[0].data.send_initial_metadata.count = 1;
	ops[0].data.send_initial_metadata.metadata = &md;
	ops[1].op = GRPC_OP_SEND_MESSAGE;
	ops[1].data.send_message.send_message = send;
	ops[2].op = GRPC_OP_SEND_CLOSE_FROM_CLIENT;
	ops[3].op = GRPC_OP_RECV_INITIAL_METADATA;
	ops[3].data.recv_initial_metadata.recv_initial_metadata = &initial;
	if (!batch(call, cq, ops, 4))
		bare_die(method);
	int n = 0;
	for (;;) {
		grpc_byte_buffer *recv = NULL;
		grpc_op op;
		memset(&op, 0, sizeof op);
		op.op = GRPC_OP_RECV_MESSAGE;
		op.data.recv_message.recv_message = &recv;
		if (!batch(call, cq, &op, 1) || !recv)
			break;
		grpc_byte_buffer_reader r;
		grpc_byte_buffer_reader_init(&r, recv);
		grpc_slice all = grpc_byte_buffer_reader_readall(&r);
		ProtobufCMessage *msg = protobuf_c_message_unpack(
			resp_desc, NULL, GRPC_SLICE_LENGTH(all),
			GRPC_SLICE_START_PTR(all));
		grpc_slice_unref(all);
		grpc_byte_buffer_reader_destroy(&r);
		grpc_byte_buffer_destroy(recv);
		if (!msg)
			bare_die("unpack");
		if (chunks && resp_desc == &sbxbt__read_rows_response__descriptor)
			*chunks += ((Sbxbt__ReadRowsResponse *)msg)->n_chunks;
		protobuf_c_message_free_unpacked(msg, NULL);
		n++;
	}
	grpc_status_code status;
	grpc_slice details;
	grpc_op st;
	memset(&st, 0, sizeof st);
	st.op = GRPC_OP_RECV_STATUS_ON_CLIENT;
	st.data.recv_status_on_client.trailing_metadata = &trailing;
	st.data.recv_status_on_client.status = &status;
	st.data.recv_status_on_client.status_details = &details;
	if (!batch(call, cq, &st, 1) || status != GRPC_STATUS_OK)
		bare_die(method);
	grpc_slice_unref(details);
	grpc_metadata_array_destroy(&initial);
	grpc_metadata_array_destroy(&trailing);
	grpc_byte_buffer_destroy(send);
	grpc_call_unref(call);
	grpc_completion_queue_shutdown(cq);
	while (grpc_completion_queue_next(cq, gpr_inf_future(GPR_CLOCK_REALTIME),
					  NULL)
		       .type != GRPC_QUEUE_SHUTDOWN)
		;
	grpc_completion_queue_destroy(cq);
	return n;
}

static void key_of(char *key, int i)
{
	snprintf(key, 16, "row%08d", i);
}

static void bare_put(int i, const char *value)
{
	char key[16];
	key_of(key, i);
	Sbxbt__Mutation__SetCell set = SBXBT__MUTATION__SET_CELL__INIT;
	set.family_name = "cf";
	set.column_qualifier.data = (uint8_t *)"q";
	set.column_qualifier.len = 1;
	set.timestamp_micros = (int64_t)(now_s() * 1e6) / 1000 * 1000;
	set.value.data = (uint8_t *)value;
	set.value.len = VALUE_LEN;
	Sbxbt__Mutation m = SBXBT__MUTATION__INIT;
	m.mutation_case = SBXBT__MUTATION__MUTATION_SET_CELL;
	m.set_cell = &set;
	Sbxbt__Mutation *ms[1] = {&m};
	Sbxbt__MutateRowRequest req = SBXBT__MUTATE_ROW_REQUEST__INIT;
	req.table_name = TABLE_PATH;
	req.row_key.data = (uint8_t *)key;
	req.row_key.len = strlen(key);
	req.n_mutations = 1;
	req.mutations = ms;
	bare_call("/google.bigtable.v2.Bigtable/MutateRow", &req.base,
		  &sbxbt__mutate_row_response__descriptor, NULL);
}

/* ReadRows of one key (limit rows) or of a range from it, newest version
 * of each column. Returns the chunks read. */
static size_t bare_read(int i, bool range, int limit)
{
	char key[16];
	key_of(key, i);
	ProtobufCBinaryData k = {strlen(key), (uint8_t *)key};
	Sbxbt__RowRange rr = SBXBT__ROW_RANGE__INIT;
	Sbxbt__RowRange *rrs[1] = {&rr};
	Sbxbt__RowSet set = SBXBT__ROW_SET__INIT;
	if (range) {
		rr.start_key_case = SBXBT__ROW_RANGE__START_KEY_START_KEY_CLOSED;
		rr.start_key_closed = k;
		set.n_row_ranges = 1;
		set.row_ranges = rrs;
	} else {
		set.n_row_keys = 1;
		set.row_keys = &k;
	}
	Sbxbt__RowFilter f = SBXBT__ROW_FILTER__INIT;
	f.filter_case = SBXBT__ROW_FILTER__FILTER_CELLS_PER_COLUMN_LIMIT_FILTER;
	f.cells_per_column_limit_filter = 1;
	Sbxbt__ReadRowsRequest req = SBXBT__READ_ROWS_REQUEST__INIT;
	req.table_name = TABLE_PATH;
	req.rows = &set;
	req.filter = &f;
	req.rows_limit = limit;
	size_t chunks = 0;
	bare_call("/google.bigtable.v2.Bigtable/ReadRows", &req.base,
		  &sbxbt__read_rows_response__descriptor, &chunks);
	return chunks;
}

/* ---- through Saltbox ---------------------------------------------------- */

static void sbx_put(sbx_table *t, int i, const char *value)
{
	char key[16];
	key_of(key, i);
	sbx_mutation *m;
	if (sbx_mutation_new(&m, key, strlen(key)) ||
	    sbx_mutation_put(m, "cf", "q", 1, SBX_LATEST_TIMESTAMP, value,
			     VALUE_LEN) ||
	    sbx_table_mutate(NULL, t, m))
		die("put");
	sbx_mutation_free(m);
}

static size_t sbx_get1(sbx_table *t, int i)
{
	char key[16];
	key_of(key, i);
	sbx_result *r;
	if (sbx_table_get(&r, t, key, strlen(key), NULL))
		die("get");
	size_t n = sbx_result_size(r);
	sbx_result_free(r);
	return n;
}

static size_t sbx_scan100(sbx_table *t, int i)
{
	char key[16];
	key_of(key, i);
	sbx_scan_opts o;
	sbx_scan_opts_init(&o);
	o.start_row = key;
	o.start_row_len = strlen(key);
	o.limit = SCAN_ROWS;
	o.caching = SCAN_ROWS;
	sbx_scanner *s;
	if (sbx_scanner_open(&s, t, &o))
		die("scan");
	size_t cells = 0;
	sbx_result *r;
	int rc;
	while ((rc = sbx_scanner_next(s, &r)) == SBX_OK) {
		cells += sbx_result_size(r);
		sbx_result_free(r);
	}
	if (rc != SBX_ITEROVER)
		die("scan next");
	sbx_scanner_close(s);
	return cells;
}

/* ---- the rounds ------------------------------------------------------- */

enum { OP_PUT, OP_GET, OP_SCAN, NOPS };
static const char *const op_name[NOPS] = {
	"put (1 row, 1 cell of 100 B)",
	"get (1 row)",
	"scan (100 rows)",
};

static double run_side(int op, bool bare, sbx_table *t, int ops, int rows,
		       unsigned *seed, const char *value)
{
	int n = op == OP_SCAN ? ops / 10 : ops;
	if (n < 1)
		n = 1;
	size_t sink = 0;
	double t0 = now_s();
	for (int k = 0; k < n; k++) {
		int i = (int)(rand_r(seed) % (unsigned)(op == OP_SCAN
								? rows - SCAN_ROWS
								: rows));
		switch (op) {
		case OP_PUT:
			if (bare)
				bare_put(i, value);
			else
				sbx_put(t, i, value);
			break;
		case OP_GET:
			sink += bare ? bare_read(i, false, 1) : sbx_get1(t, i);
			break;
		default:
			sink += bare ? bare_read(i, true, SCAN_ROWS)
				     : sbx_scan100(t, i);
		}
	}
	double us = (now_s() - t0) * 1e6 / n;
	if (op != OP_PUT && sink == 0) {
		fprintf(stderr, "bench_bigtable: %s read nothing\n",
			op_name[op]);
		exit(1);
	}
	return us;
}

int main(int argc, char **argv)
{
	int ops = 2000, rounds = 7, rows = 5000;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--ops") && i + 1 < argc)
			ops = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--rounds") && i + 1 < argc)
			rounds = atoi(argv[++i]);
		else {
			fprintf(stderr, "usage: bench_bigtable [--ops N] "
					"[--rounds R]\n");
			return 2;
		}
	}
	if (ops < 10 || rounds < 1 || rounds > 99) {
		fprintf(stderr, "bench_bigtable: --ops >= 10, 1 <= --rounds "
				"<= 99\n");
		return 2;
	}
	const char *host = getenv("BIGTABLE_EMULATOR_HOST");
	if (!host || !*host) {
		fprintf(stderr, "bench_bigtable: set BIGTABLE_EMULATOR_HOST "
				"(bench/bench_bigtable.sh starts Google's "
				"emulator and runs this)\n");
		return 2;
	}
	sbx_db *db;
	if (sbx_db_connect(&db, "bigtable://p/i"))
		die("connect");
	sbx_table_drop(db, "bench"); /* a rerun on the same emulator */
	sbx_family_desc f;
	sbx_family_desc_init(&f, "cf");
	if (sbx_table_create(db, "bench", &f, 1))
		die("create");
	sbx_table *t;
	if (sbx_table_open(&t, db, "bench"))
		die("open");
	grpc_init();
	grpc_channel_credentials *creds = grpc_insecure_credentials_create();
	channel = grpc_channel_create(host, creds, NULL);
	grpc_channel_credentials_release(creds);

	char value[VALUE_LEN];
	memset(value, 'v', sizeof value);
	for (int i = 0; i < rows; i++) /* load through the bare side */
		bare_put(i, value);

	printf("bench_bigtable: Bigtable emulator at %s, %d ops per round "
	       "(scans: %d), %d rounds alternating; medians\n\n",
	       host, ops, ops / 10, rounds);
	printf("%-30s %12s %12s %8s\n", "operation", "saltbox us", "bare us",
	       "x bare");
	unsigned seed = 42;
	for (int op = 0; op < NOPS; op++) {
		double s_us[99], b_us[99], ratio[99];
		for (int r = 0; r < rounds; r++) {
			/* which side goes first alternates */
			if (r % 2) {
				b_us[r] = run_side(op, true, t, ops, rows,
						   &seed, value);
				s_us[r] = run_side(op, false, t, ops, rows,
						   &seed, value);
			} else {
				s_us[r] = run_side(op, false, t, ops, rows,
						   &seed, value);
				b_us[r] = run_side(op, true, t, ops, rows,
						   &seed, value);
			}
			ratio[r] = s_us[r] / b_us[r];
		}
		printf("%-30s %12.1f %12.1f %8.2f\n", op_name[op],
		       median(s_us, rounds), median(b_us, rounds),
		       median(ratio, rounds));
		fflush(stdout);
	}
	grpc_channel_destroy(channel);
	grpc_shutdown();
	sbx_table_close(t);
	sbx_db_close(db);
	return 0;
}
