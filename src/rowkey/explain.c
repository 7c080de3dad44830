/*
 * explain.c - what a key design looks like on disk: per-element byte
 * layout, fixed or variable width, min/typical/max lengths, offsets, and
 * the order rows sort in, as structured info and as readable text.
 */
#include "common/error.h"
#include "rowkey/design.h"

#include <stdarg.h>
#include <stdio.h>
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

int sbx_keydesign_explain(sbx_buf *out, const sbx_keydesign *d)
{
	size_t start = out->len;
	int rc = sbx_buf_printf(out, "design %s\n  %s\n\n", d->name, d->text);
	if (!rc)
		rc = sbx_buf_printf(out, "  %-3s %-16s %-24s %-9s %-6s %-5s %s\n", "#",
			     "element", "type", "bytes", "offset", "order",
			     "layout");
	for (size_t i = 0; !rc && i < d->n_elems; i++) {
		sbx_keyelem_info info;
		sbx_keydesign_elem(&info, d, i);
		char name[80], bytes[32], off[24], mx[16];
		if (info.kind == SBX_KEYELEM_LITERAL) {
			sbx_buf q = {0};
			rc = sbx_key_to_binary_string(&q, d->elems[i].lit,
						      d->elems[i].lit_len);
			snprintf(name, sizeof name, "'%.*s'", (int)q.len,
				 q.data ? (char *)q.data : "");
			sbx_buf_free(&q);
		} else {
			snprintf(name, sizeof name, "%s", info.name);
		}
		len_text(mx, sizeof mx, info.max_len);
		if (info.fixed_width)
			snprintf(bytes, sizeof bytes, "%zu", info.min_len);
		else
			snprintf(bytes, sizeof bytes, "%zu..%s", info.min_len,
				 mx);
		if (info.offset >= 0)
			snprintf(off, sizeof off, "%ld", info.offset);
		else
			snprintf(off, sizeof off, "var");
		if (!rc)
			rc = sbx_buf_printf(out, "  %-3zu %-16s %-24s %-9s %-6s %-5s %s\n",
				     i + 1, name, info.type, bytes, off,
				     order_word(info.order), info.layout);
	}
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
