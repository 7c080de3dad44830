/*
 * explain.c - what a key design looks like on disk: per-element byte
 * layout, fixed or variable width, min/typical/max lengths, offsets, and
 * the order rows sort in, as structured info and as readable text.
 */
#include "common/alloc.h"
#include "common/error.h"
#include "rowkey/design.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *order_word(sbx_keyorder o)
{
	switch (o) {
	case SBX_ORDER_ASC: return "asc";
	case SBX_ORDER_DESC: return "desc";
	case SBX_ORDER_NONE: return "none";
	case SBX_ORDER_FIXED: return "-";
	}
	return "?";
}

static void len_text(char *out, size_t n, size_t v)
{
	if (v == SBX_KEYLEN_UNBOUNDED)
		snprintf(out, n, "unbounded");
	else
		snprintf(out, n, "%zu", v);
}

/* One row of the element table, as text. */
typedef struct explain_row {
	char no[24], name[80], type[64], bytes[48], off[24];
	const char *order, *layout;
} explain_row;

#define EXPLAIN_COLS 6

static const char *row_col(const explain_row *r, int c)
{
	const char *v[EXPLAIN_COLS] = {r->no, r->name, r->type,
				       r->bytes, r->off, r->order};
	return v[c];
}

static void explain_elem(explain_row *r, const sbx_keydesign *d, size_t i)
{
	sbx_keyelem_info info;
	sbx_keydesign_elem(&info, d, i);
	char mx[16];
	snprintf(r->no, sizeof r->no, "%zu", i + 1);
	if (info.kind == SBX_KEYELEM_LITERAL) {
		sbx_buf q = {0};
		if (sbx_key_to_binary_string(&q, d->elems[i].lit,
					     d->elems[i].lit_len))
			q.len = 0;
		snprintf(r->name, sizeof r->name, "'%.*s'", (int)q.len,
			 q.data ? (char *)q.data : "");
		sbx_buf_free(&q);
	} else {
		snprintf(r->name, sizeof r->name, "%s", info.name);
	}
	snprintf(r->type, sizeof r->type, "%s", info.type);
	len_text(mx, sizeof mx, info.max_len);
	if (info.fixed_width)
		snprintf(r->bytes, sizeof r->bytes, "%zu", info.min_len);
	else
		snprintf(r->bytes, sizeof r->bytes, "%zu..%s", info.min_len,
			 mx);
	if (info.offset >= 0)
		snprintf(r->off, sizeof r->off, "%ld", info.offset);
	else
		snprintf(r->off, sizeof r->off, "var");
	r->order = order_word(info.order);
	r->layout = info.layout;
}

int sbx_keydesign_explain(sbx_buf *out, const sbx_keydesign *d)
{
	size_t start = out->len;
	int rc = sbx_buf_printf(out, "design %s\n  %s\n\n", d->name, d->text);
	/* the columns as wide as their widest cell (names and unbounded
	 * lengths run long), header included */
	explain_row head = {"#",      "element", "type",  "bytes",
			    "offset", "order",   "layout"};
	explain_row *rows =
		d->n_elems ? sbx_calloc(d->n_elems, sizeof *rows) : NULL;
	if (!rc && d->n_elems && !rows)
		rc = SBX_ENOMEM_SET();
	int w[EXPLAIN_COLS];
	for (int c = 0; c < EXPLAIN_COLS; c++)
		w[c] = (int)strlen(row_col(&head, c));
	for (size_t i = 0; !rc && i < d->n_elems; i++) {
		explain_elem(&rows[i], d, i);
		for (int c = 0; c < EXPLAIN_COLS; c++) {
			int l = (int)strlen(row_col(&rows[i], c));
			w[c] = l > w[c] ? l : w[c];
		}
	}
	for (size_t i = 0; !rc && i <= d->n_elems; i++) {
		const explain_row *r = i ? &rows[i - 1] : &head;
		rc = sbx_buf_printf(out, " ");
		for (int c = 0; !rc && c < EXPLAIN_COLS; c++)
			rc = sbx_buf_printf(out, " %-*s", w[c], row_col(r, c));
		rc = rc ? rc : sbx_buf_printf(out, " %s\n", r->layout);
	}
	free(rows);
	size_t mn, typ, mx;
	sbx_keydesign_length(&mn, &typ, &mx, d);
	char mxs[16];
	len_text(mxs, sizeof mxs, mx);
	if (!rc && mn == mx)
		rc = sbx_buf_printf(out, "\n  length: %zu bytes, fixed width\n", mn);
	else if (!rc)
		rc = sbx_buf_printf(out, "\n  length: min %zu, typical %zu, max %s "
				  "bytes (variable width)\n", mn, typ, mxs);
	if (!rc)
		rc = sbx_buf_printf(out, "  order:  %s\n", d->order);
	int nb = sbx_keydesign_buckets(d);
	if (!rc && nb)
		rc = sbx_buf_printf(out, "  salt:   %d buckets; a scan becomes %d "
				  "ranges merged in key order; pre-split the "
				  "table at each bucket's first key\n", nb, nb);
	if (rc)
		out->len = start;
	return rc;
}
