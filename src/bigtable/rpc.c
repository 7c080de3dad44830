/*
 * rpc.c - the gRPC side of the Bigtable backend: one channel per database
 * (plaintext to BIGTABLE_EMULATOR_HOST), and bt_call(), which runs one call
 * on its own completion queue: request metadata (the routing header,
 * bigtable-features for reversed reads), one request, each response to a
 * callback, then the status mapped to an SBX code with the server's text.
 */
#include "bigtable/bigtable.h"

#include "common/alloc.h"
#include "common/bytes.h"
#include "common/error.h"

#include <grpc/byte_buffer_reader.h>
#include <grpc/grpc.h>
#include <grpc/grpc_security.h>
#include <grpc/support/alloc.h>
#include <grpc/support/time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int bt_rpc_open(bt_db *db, const char *target)
{
	grpc_init();
	grpc_arg args[2];
	args[0].type = GRPC_ARG_INTEGER;
	args[0].key = (char *)GRPC_ARG_MAX_RECEIVE_MESSAGE_LENGTH;
	args[0].value.integer = -1; /* the emulator sends a row per message */
	args[1].type = GRPC_ARG_STRING;
	args[1].key = (char *)GRPC_ARG_PRIMARY_USER_AGENT_STRING;
	args[1].value.string = (char *)"saltbox";
	grpc_channel_args cargs = {2, args};
	grpc_channel_credentials *creds = grpc_insecure_credentials_create();
	db->channel = grpc_channel_create(target, creds, &cargs);
	grpc_channel_credentials_release(creds);
	if (!db->channel) {
		grpc_shutdown();
		return sbx_error_set(SBX_EREMOTE,
				     "cannot make a gRPC channel to '%s'",
				     target);
	}
	return SBX_OK;
}

void bt_rpc_close(bt_db *db)
{
	if (db->channel) {
		grpc_channel_destroy(db->channel);
		db->channel = NULL;
		grpc_shutdown();
	}
}

/* x-goog-request-params: key=URL-encoded value. */
static int route_header(sbx_buf *b, const char *key, const char *value)
{
	if (sbx_buf_printf(b, "%s=", key) ||
	    sbx_url_append(b, value, strlen(value)))
		return SBX_ENOMEM;
	return SBX_OK;
}

static int map_status(grpc_status_code st, const char *method,
		      const char *details)
{
	const char *m = strrchr(method, '/');
	m = m ? m + 1 : method;
	int code;
	switch (st) {
	case GRPC_STATUS_NOT_FOUND: code = SBX_ENOTFOUND; break;
	case GRPC_STATUS_ALREADY_EXISTS: code = SBX_EEXISTS; break;
	case GRPC_STATUS_INVALID_ARGUMENT: code = SBX_EINVAL; break;
	case GRPC_STATUS_UNIMPLEMENTED: code = SBX_EUNSUPPORTED; break;
	case GRPC_STATUS_RESOURCE_EXHAUSTED: code = SBX_ETOOLARGE; break;
	default: code = SBX_EREMOTE;
	}
	/* the emulator answers these UNKNOWN, production INVALID_ARGUMENT */
	if (strstr(details, "unknown family"))
		code = SBX_ENOFAMILY;
	else if (strstr(details, "non-64-bit"))
		code = SBX_EBADVALUE;
	else if (st == GRPC_STATUS_UNKNOWN && strstr(details, "invalid"))
		code = SBX_EINVAL;
	return sbx_error_set(code, "Bigtable %s: %s (gRPC status %d)", m,
			     details, (int)st);
}

static grpc_byte_buffer *pack(const ProtobufCMessage *req)
{
	size_t len = protobuf_c_message_get_packed_size(req);
	uint8_t *buf = sbx_malloc(len ? len : 1);
	if (!buf)
		return NULL;
	protobuf_c_message_pack(req, buf);
	grpc_slice s = grpc_slice_from_copied_buffer((const char *)buf, len);
	free(buf);
	grpc_byte_buffer *bb = grpc_raw_byte_buffer_create(&s, 1);
	grpc_slice_unref(s);
	return bb;
}

/* A varint at *p (before end): its value, *p past it; false if cut short
 * or longer than 10 bytes. */
static bool read_varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	*v = 0;
	for (unsigned shift = 0; shift < 70 && *p < end; shift += 7) {
		uint8_t b = *(*p)++;
		*v |= (uint64_t)(b & 0x7f) << (shift < 64 ? shift : 63);
		if (!(b & 0x80))
			return true;
	}
	return false;
}

/* Whether the message of type d in p[0..n) nests messages deeper than
 * BT_MAX_NESTING (the top message is level 1). Walks the wire format with
 * its own stack, descending into the fields d's descriptors say are
 * messages (map entries included); malformed bytes end the walk with
 * false, for protobuf-c to refuse. */
static bool nested_too_deep(const ProtobufCMessageDescriptor *d,
			    const uint8_t *p, size_t n)
{
	struct {
		const uint8_t *p, *end;
		const ProtobufCMessageDescriptor *d;
	} st[BT_MAX_NESTING];
	int top = 0;
	st[0].p = p, st[0].end = p + n, st[0].d = d;
	while (top >= 0) {
		if (st[top].p >= st[top].end) {
			top--;
			continue;
		}
		const uint8_t **q = &st[top].p, *end = st[top].end;
		uint64_t key, v;
		if (!read_varint(q, end, &key))
			return false;
		switch (key & 7) {
		case 0: /* varint */
			if (!read_varint(q, end, &v))
				return false;
			break;
		case 1: /* 64-bit */
		case 5: /* 32-bit */
			v = (key & 7) == 1 ? 8 : 4;
			if ((uint64_t)(end - *q) < v)
				return false;
			*q += v;
			break;
		case 2: { /* length-delimited */
			if (!read_varint(q, end, &v) ||
			    v > (uint64_t)(end - *q))
				return false;
			const uint8_t *body = *q;
			*q += v;
			const ProtobufCFieldDescriptor *f =
				key >> 3 <= UINT32_MAX
					? protobuf_c_message_descriptor_get_field(
						  st[top].d, (unsigned)(key >> 3))
					: NULL;
			if (!f || f->type != PROTOBUF_C_TYPE_MESSAGE)
				break;
			if (top + 1 >= BT_MAX_NESTING)
				return true;
			top++;
			st[top].p = body, st[top].end = body + v;
			st[top].d = f->descriptor;
			break;
		}
		default: /* groups and the rest: protobuf-c refuses them */
			return false;
		}
	}
	return false;
}

ProtobufCMessage *bt_unpack(const ProtobufCMessageDescriptor *d, size_t len,
			    const uint8_t *data, bool *too_deep)
{
	*too_deep = nested_too_deep(d, data, len);
	return *too_deep ? NULL : protobuf_c_message_unpack(d, NULL, len, data);
}

static ProtobufCMessage *unpack(grpc_byte_buffer *bb,
				const ProtobufCMessageDescriptor *d,
				bool *too_deep)
{
	*too_deep = false;
	grpc_byte_buffer_reader r;
	if (!grpc_byte_buffer_reader_init(&r, bb))
		return NULL;
	grpc_slice s = grpc_byte_buffer_reader_readall(&r);
	ProtobufCMessage *msg = bt_unpack(d, GRPC_SLICE_LENGTH(s),
					  GRPC_SLICE_START_PTR(s), too_deep);
	grpc_slice_unref(s);
	grpc_byte_buffer_reader_destroy(&r);
	return msg;
}

/* Run one batch and wait for its event. */
static bool run_batch(grpc_call *call, grpc_completion_queue *cq,
		      const grpc_op *ops, size_t n, void *tag)
{
	if (grpc_call_start_batch(call, ops, n, tag, NULL) != GRPC_CALL_OK)
		return false;
	grpc_event ev = grpc_completion_queue_next(
		cq, gpr_inf_future(GPR_CLOCK_REALTIME), NULL);
	return ev.type == GRPC_OP_COMPLETE && ev.tag == tag && ev.success;
}

int bt_call(bt_db *db, const char *method, const char *route_key,
	    const char *route_value, const ProtobufCMessage *req,
	    const ProtobufCMessageDescriptor *resp_desc, bt_msg_fn fn,
	    void *ctx)
{
	sbx_buf route = {0};
	if (route_header(&route, route_key, route_value) ||
	    sbx_buf_push(&route, 0)) {
		sbx_buf_free(&route);
		return SBX_ENOMEM_SET();
	}
	grpc_byte_buffer *send = pack(req);
	if (!send) {
		sbx_buf_free(&route);
		return SBX_ENOMEM_SET();
	}
	grpc_completion_queue *cq = grpc_completion_queue_create_for_next(NULL);
	grpc_slice mslice = grpc_slice_from_static_string(method);
	gpr_timespec deadline = gpr_time_add(
		gpr_now(GPR_CLOCK_REALTIME),
		gpr_time_from_millis(db->timeout_ms, GPR_TIMESPAN));
	grpc_call *call = grpc_channel_create_call(
		db->channel, NULL, GRPC_PROPAGATE_DEFAULTS, cq, mslice, NULL,
		deadline, NULL);

	grpc_metadata md[2];
	memset(md, 0, sizeof md);
	md[0].key = grpc_slice_from_static_string("x-goog-request-params");
	md[0].value = grpc_slice_from_static_string((const char *)route.data);
	/* FeatureFlags{reverse_scans: true}, web-safe base64 of 08 01 */
	md[1].key = grpc_slice_from_static_string("bigtable-features");
	md[1].value = grpc_slice_from_static_string("CAE=");

	grpc_metadata_array initial, trailing;
	grpc_metadata_array_init(&initial);
	grpc_metadata_array_init(&trailing);
	grpc_status_code status = GRPC_STATUS_UNKNOWN;
	grpc_slice details = grpc_empty_slice();
	int rc = SBX_OK;

	grpc_op ops[4];
	memset(ops, 0, sizeof ops);
	ops[0].op = GRPC_OP_SEND_INITIAL_METADATA;
	ops[0].data.send_initial_metadata.count = 2;
	ops[0].data.send_initial_metadata.metadata = md;
	ops[1].op = GRPC_OP_SEND_MESSAGE;
	ops[1].data.send_message.send_message = send;
	ops[2].op = GRPC_OP_SEND_CLOSE_FROM_CLIENT;
	ops[3].op = GRPC_OP_RECV_INITIAL_METADATA;
	ops[3].data.recv_initial_metadata.recv_initial_metadata = &initial;
	bool ok = run_batch(call, cq, ops, 4, (void *)1);
	while (ok && rc == SBX_OK) {
		grpc_byte_buffer *recv = NULL;
		grpc_op op;
		memset(&op, 0, sizeof op);
		op.op = GRPC_OP_RECV_MESSAGE;
		op.data.recv_message.recv_message = &recv;
		if (!run_batch(call, cq, &op, 1, (void *)2) || !recv)
			break; /* end of stream (or failure: see the status) */
		bool too_deep;
		ProtobufCMessage *msg = unpack(recv, resp_desc, &too_deep);
		grpc_byte_buffer_destroy(recv);
		if (!msg) {
			rc = too_deep ? sbx_error_set(SBX_EREMOTE,
					   "Bigtable %s: a response with "
					   "messages nested deeper than %d",
					   method, BT_MAX_NESTING)
				      : sbx_error_set(SBX_EREMOTE,
					   "Bigtable %s: a malformed response",
					   method);
			break;
		}
		rc = fn ? fn(ctx, &msg) : SBX_OK;
		if (msg)
			protobuf_c_message_free_unpacked(msg, NULL);
	}
	if (rc)
		grpc_call_cancel(call, NULL);
	grpc_op st;
	memset(&st, 0, sizeof st);
	st.op = GRPC_OP_RECV_STATUS_ON_CLIENT;
	st.data.recv_status_on_client.trailing_metadata = &trailing;
	st.data.recv_status_on_client.status = &status;
	st.data.recv_status_on_client.status_details = &details;
	bool got_status = run_batch(call, cq, &st, 1, (void *)3);
	if (rc == SBX_OK) {
		if (!got_status)
			rc = sbx_error_set(SBX_EREMOTE,
					   "Bigtable at %s: the call %s failed",
					   db->target, method);
		else if (status != GRPC_STATUS_OK) {
			char *text = grpc_slice_to_c_string(details);
			rc = map_status(status, method, text ? text : "");
			if (status == GRPC_STATUS_UNAVAILABLE)
				sbx_error_set(SBX_EREMOTE,
					      "Bigtable at %s is unreachable: %s",
					      db->target, text ? text : "");
			else if (status == GRPC_STATUS_DEADLINE_EXCEEDED)
				sbx_error_set(SBX_EREMOTE,
					      "Bigtable at %s did not answer %s "
					      "within %lld ms "
					      "(SALTBOX_BIGTABLE_TIMEOUT_MS)",
					      db->target, method,
					      (long long)db->timeout_ms);
			gpr_free(text);
		}
	}
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
	sbx_buf_free(&route);
	return rc;
}

typedef struct unary_ctx {
	ProtobufCMessage **out;
} unary_ctx;

static int keep_first(void *p, ProtobufCMessage **msg)
{
	unary_ctx *u = p;
	if (u->out && !*u->out) {
		*u->out = *msg; /* taken: bt_call frees only what is left */
		*msg = NULL;
	}
	return SBX_OK;
}

int bt_unary(bt_db *db, const char *method, const char *route_key,
	     const char *route_value, const ProtobufCMessage *req,
	     const ProtobufCMessageDescriptor *resp_desc,
	     ProtobufCMessage **resp)
{
	if (resp)
		*resp = NULL;
	unary_ctx u = {resp};
	int rc = bt_call(db, method, route_key, route_value, req, resp_desc,
			 keep_first, &u);
	if (rc == SBX_OK && resp && !*resp)
		rc = sbx_error_set(SBX_EREMOTE, "Bigtable %s: no response",
				   method);
	if (rc && resp && *resp) {
		protobuf_c_message_free_unpacked(*resp, NULL);
		*resp = NULL;
	}
	return rc;
}
