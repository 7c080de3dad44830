/*
 * view.c - entities and rows as text: the protobuf wire format read field
 * by field (named through a registered kind's descriptor, by number
 * otherwise), and a row printed as its entity tree (`saltbox ds tree`).
 */
#include "ds_int.h"

#include "common/alloc.h"
#include "common/bytes.h"
#include "common/error.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static int app(sbx_buf *o, const char *s)
{
	return sbx_buf_append(o, s, strlen(s));
}

static int get_varint(uint64_t *v, const uint8_t *p, size_t len, size_t *at)
{
	uint64_t x = 0;
	for (int shift = 0; shift < 64; shift += 7) {
		if (*at >= len)
			return sbx_error_set(SBX_EBADVALUE,
					     "byte %zu: a varint runs past the "
					     "end",
					     *at);
		uint8_t b = p[(*at)++];
		x |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*v = x;
			return SBX_OK;
		}
	}
	return sbx_error_set(SBX_EBADVALUE, "byte %zu: a varint over 10 bytes",
			     *at);
}

static bool printable(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((p[i] < 0x20 && p[i] != '\n' && p[i] != '\t') || p[i] == 0x7f)
			return false;
	return true;
}

static int put_quoted(sbx_buf *o, const uint8_t *p, size_t n)
{
	int rc = app(o, "\"");
	for (size_t i = 0; rc == SBX_OK && i < n; i++) {
		if (p[i] == '"' || p[i] == '\\') {
			rc = sbx_buf_append(o, "\\", 1);
			rc = rc ? rc : sbx_buf_append(o, &p[i], 1);
		} else if (p[i] == '\n') {
			rc = app(o, "\\n");
		} else if (p[i] == '\t') {
			rc = app(o, "\\t");
		} else {
			rc = sbx_buf_append(o, &p[i], 1);
		}
	}
	return rc ? rc : app(o, "\"");
}

static const ProtobufCFieldDescriptor *field_by_id(
    const ProtobufCMessageDescriptor *d, uint32_t id)
{
	for (unsigned i = 0; d && i < d->n_fields; i++)
		if (d->fields[i].id == id)
			return &d->fields[i];
	return NULL;
}

static int zigzag_text(char *num, size_t cap, uint64_t v,
		       const ProtobufCFieldDescriptor *fd)
{
	switch (fd ? fd->type : PROTOBUF_C_TYPE_UINT64) {
	case PROTOBUF_C_TYPE_INT32:
	case PROTOBUF_C_TYPE_ENUM:
		snprintf(num, cap, "%" PRId32, (int32_t)v);
		break;
	case PROTOBUF_C_TYPE_INT64:
		snprintf(num, cap, "%" PRId64, (int64_t)v);
		break;
	case PROTOBUF_C_TYPE_SINT32:
	case PROTOBUF_C_TYPE_SINT64:
		snprintf(num, cap, "%" PRId64,
			 (int64_t)(v >> 1) ^ -(int64_t)(v & 1));
		break;
	case PROTOBUF_C_TYPE_BOOL:
		snprintf(num, cap, "%s", v ? "true" : "false");
		break;
	default:
		snprintf(num, cap, "%" PRIu64, v);
	}
	return SBX_OK;
}

int sbx_ds_format_entity(sbx_buf *out, const sbx_ds *ds, const sbx_ds_key *key,
			 const uint8_t *p, size_t len)
{
	const ds_kind *k = key ? ds_kind_find(ds, sbx_ds_key_kind(key)) : NULL;
	const ProtobufCMessageDescriptor *d = k ? k->msg : NULL;
	size_t at = 0;
	int rc = app(out, "{");
	bool first = true;
	while (rc == SBX_OK && at < len) {
		size_t start = at;
		uint64_t tag = 0;
		rc = get_varint(&tag, p, len, &at);
		if (rc)
			break;
		uint32_t id = (uint32_t)(tag >> 3);
		unsigned wt = (unsigned)(tag & 7);
		if (id == 0 || tag >> 3 > 536870911u) {
			rc = sbx_error_set(SBX_EBADVALUE,
					   "byte %zu: field number %" PRIu64
					   " is out of range",
					   start, tag >> 3);
			break;
		}
		const ProtobufCFieldDescriptor *fd = field_by_id(d, id);
		char name[128];
		if (fd)
			snprintf(name, sizeof name, "%s%s: ", first ? "" : ", ",
				 fd->name);
		else
			snprintf(name, sizeof name, "%s%" PRIu32 ": ",
				 first ? "" : ", ", id);
		rc = app(out, name);
		first = false;
		char num[64];
		if (rc)
			break;
		switch (wt) {
		case 0: {
			uint64_t v = 0;
			rc = get_varint(&v, p, len, &at);
			if (rc == SBX_OK) {
				zigzag_text(num, sizeof num, v, fd);
				rc = app(out, num);
			}
			break;
		}
		case 1:
		case 5: {
			size_t w = wt == 1 ? 8 : 4;
			if (len - at < w) {
				rc = sbx_error_set(SBX_EBADVALUE,
						   "byte %zu: a %zu-byte field "
						   "runs past the end",
						   at, w);
				break;
			}
			uint64_t v = 0;
			for (size_t i = 0; i < w; i++)
				v |= (uint64_t)p[at + i] << (8 * i);
			at += w;
			if (fd && fd->type == PROTOBUF_C_TYPE_DOUBLE) {
				double x;
				memcpy(&x, &v, 8);
				snprintf(num, sizeof num, "%.17g", x);
			} else if (fd && fd->type == PROTOBUF_C_TYPE_FLOAT) {
				uint32_t u = (uint32_t)v;
				float x;
				memcpy(&x, &u, 4);
				snprintf(num, sizeof num, "%.9g", (double)x);
			} else if (fd && (fd->type == PROTOBUF_C_TYPE_SFIXED32)) {
				snprintf(num, sizeof num, "%" PRId32,
					 (int32_t)(uint32_t)v);
			} else if (fd && (fd->type == PROTOBUF_C_TYPE_SFIXED64)) {
				snprintf(num, sizeof num, "%" PRId64,
					 (int64_t)v);
			} else {
				snprintf(num, sizeof num, "%" PRIu64, v);
			}
			rc = app(out, num);
			break;
		}
		case 2: {
			uint64_t n = 0;
			rc = get_varint(&n, p, len, &at);
			if (rc)
				break;
			if (n > len - at) {
				rc = sbx_error_set(SBX_EBADVALUE,
						   "byte %zu: a field of %" PRIu64
						   " bytes runs past the end",
						   at, n);
				break;
			}
			if (printable(p + at, (size_t)n)) {
				rc = put_quoted(out, p + at, (size_t)n);
			} else {
				rc = app(out, "0x");
				rc = rc ? rc
					: sbx_key_put_hex(out, p + at,
							  (size_t)n, true);
			}
			at += (size_t)n;
			break;
		}
		default:
			rc = sbx_error_set(SBX_EBADVALUE,
					   "byte %zu: wire type %u is not "
					   "0, 1, 2 or 5",
					   start, wt);
		}
	}
	return rc ? rc : app(out, "}");
}

/* ---- a row as a tree --------------------------------------------------- */

typedef struct vent {
	sbx_ds_key *k; /* the entity, or the parent of a collection */
	bool meta;
	uint16_t meta_kind;
	const sbx_cell *c;
} vent;

/* tree order: element by element; a collection's metadata before the
 * items of its kind */
static int vent_cmp(const void *a, const void *b)
{
	const vent *x = a, *y = b;
	size_t nx = x->k->n + (x->meta ? 1 : 0);
	size_t ny = y->k->n + (y->meta ? 1 : 0);
	for (size_t i = 0; i < nx && i < ny; i++) {
		bool xm = x->meta && i == x->k->n;
		bool ym = y->meta && i == y->k->n;
		uint16_t xk = xm ? x->meta_kind : x->k->e[i].kind;
		uint16_t yk = ym ? y->meta_kind : y->k->e[i].kind;
		if (xk != yk)
			return xk < yk ? -1 : 1;
		if (xm || ym) {
			if (xm && ym)
				return 0;
			return xm ? -1 : 1;
		}
		int c = ds_elem_cmp(&x->k->e[i], &y->k->e[i]);
		if (c)
			return c;
	}
	return nx < ny ? -1 : nx > ny;
}

static int indent(sbx_buf *o, size_t depth)
{
	int rc = SBX_OK;
	for (size_t i = 1; rc == SBX_OK && i < depth; i++)
		rc = app(o, "  ");
	return rc;
}

int sbx_ds_format_row(sbx_buf *out, const sbx_ds *ds, const sbx_cell *cells,
		      size_t n)
{
	vent *v = sbx_calloc(n ? n : 1, sizeof *v);
	if (!v)
		return SBX_ENOMEM_SET();
	size_t nv = 0;
	int rc = SBX_OK;
	sbx_buf bad = {0};
	for (size_t i = 0; rc == SBX_OK && i < n; i++) {
		const sbx_cell *c = &cells[i];
		if (strcmp(c->family, SBX_DS_FAMILY))
			continue;
		vent e = {.c = c};
		int drc = sbx_ds_key_decode(&e.k, &e.meta, &e.meta_kind, ds,
					    c->row, c->row_len, c->qualifier,
					    c->qualifier_len);
		if (drc == SBX_ENOMEM) {
			rc = drc;
			break;
		}
		if (drc) {
			char msg[300];
			snprintf(msg, sizeof msg, "%s", sbx_errmsg());
			rc = app(&bad, "not a datastore column: ");
			rc = rc ? rc
				: sbx_key_to_binary_string(&bad, c->qualifier,
							   c->qualifier_len);
			rc = rc ? rc : app(&bad, " (");
			rc = rc ? rc : app(&bad, msg);
			rc = rc ? rc : app(&bad, ")\n");
			continue;
		}
		v[nv++] = e;
	}
	if (rc == SBX_OK)
		qsort(v, nv, sizeof *v, vent_cmp);
	for (size_t i = 0; rc == SBX_OK && i < nv; i++) {
		const vent *e = &v[i];
		if (e->meta) {
			rc = indent(out, e->k->n + 1);
			const char *kn = sbx_ds_kind_name(ds, e->meta_kind);
			char line[200];
			if (kn)
				snprintf(line, sizeof line, "%s: ", kn);
			else
				snprintf(line, sizeof line, "%u: ",
					 (unsigned)e->meta_kind);
			rc = rc ? rc : app(out, line);
			if (e->c->value_len == 16) {
				uint64_t a = 0, b = 0;
				for (int j = 0; j < 8; j++) {
					a = a << 8 | e->c->value[j];
					b = b << 8 | e->c->value[8 + j];
				}
				snprintf(line, sizeof line,
					 "count %" PRIu64 ", next id %" PRIu64
					 "\n",
					 a, b);
			} else {
				snprintf(line, sizeof line,
					 "metadata of %zu bytes, not 16\n",
					 e->c->value_len);
			}
			rc = rc ? rc : app(out, line);
			continue;
		}
		rc = indent(out, e->k->n);
		rc = rc ? rc : ds_elem_format(out, ds, &e->k->e[e->k->n - 1], false);
		rc = rc ? rc : app(out, " ");
		if (rc)
			break;
		size_t mark = out->len;
		int frc = sbx_ds_format_entity(out, ds, e->k, e->c->value,
					       e->c->value_len);
		if (frc == SBX_ENOMEM) {
			rc = frc;
			break;
		}
		if (frc) {
			char msg[300];
			snprintf(msg, sizeof msg, "%s", sbx_errmsg());
			out->len = mark;
			rc = app(out, "(malformed entity: ");
			rc = rc ? rc : app(out, msg);
			rc = rc ? rc : app(out, ")");
		}
		rc = rc ? rc : app(out, "\n");
	}
	if (rc == SBX_OK && bad.len)
		rc = sbx_buf_append(out, bad.data, bad.len);
	for (size_t i = 0; i < nv; i++)
		sbx_ds_key_free(v[i].k);
	free(v);
	sbx_buf_free(&bad);
	return rc;
}
