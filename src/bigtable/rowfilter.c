/*
 * rowfilter.c - Bigtable RowFilters as the backend builds them: exact
 * (escaped, anchored) regexes for families, qualifiers and bytes, a column
 * as family and qualifier, chains and interleaves. Used by reads (scan.c),
 * check-and-mutate (data.c) and the HBase-filter prefilter (prefilter.c).
 */
#include "bigtable/bigtable.h"

#include "common/alloc.h"
#include "common/error.h"

#include <string.h>

Sbxbt__RowFilter *bt_filter_new(void)
{
	Sbxbt__RowFilter *f = sbx_malloc(sizeof *f);
	if (f)
		sbxbt__row_filter__init(f);
	return f;
}

void bt_filter_free(Sbxbt__RowFilter *f)
{
	if (f)
		protobuf_c_message_free_unpacked(&f->base, NULL);
}

/* An RE2 pattern matching exactly these bytes (Bigtable anchors it). */
int bt_regex_exact(sbx_buf *b, const void *p, size_t len)
{
	const uint8_t *s = p;
	for (size_t i = 0; i < len; i++) {
		uint8_t c = s[i];
		bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			     (c >= '0' && c <= '9') || c == '_';
		int rc = plain ? sbx_buf_push(b, c)
			       : sbx_buf_printf(b, "\\x%02X", c);
		if (rc)
			return SBX_ENOMEM;
	}
	return sbx_buf_push(b, 0) ? SBX_ENOMEM : SBX_OK;
}

Sbxbt__RowFilter *bt_filter_family(const char *family)
{
	Sbxbt__RowFilter *f = bt_filter_new();
	sbx_buf b = {0};
	if (!f || bt_regex_exact(&b, family, strlen(family))) {
		free(f);
		sbx_buf_free(&b);
		return NULL;
	}
	f->filter_case = SBXBT__ROW_FILTER__FILTER_FAMILY_NAME_REGEX_FILTER;
	f->family_name_regex_filter = (char *)b.data; /* owned by f */
	return f;
}

static Sbxbt__RowFilter *filter_qualifier(const uint8_t *q, size_t len)
{
	Sbxbt__RowFilter *f = bt_filter_new();
	sbx_buf b = {0};
	if (!f || bt_regex_exact(&b, q, len)) {
		free(f);
		sbx_buf_free(&b);
		return NULL;
	}
	f->filter_case = SBXBT__ROW_FILTER__FILTER_COLUMN_QUALIFIER_REGEX_FILTER;
	f->column_qualifier_regex_filter.data = b.data;
	f->column_qualifier_regex_filter.len = b.len - 1;
	return f;
}

/* Chain (all) or interleave (any) of v[0..n); a lone filter stands alone
 * (the emulator refuses chains of one). Takes v's filters; NULL members
 * mean an allocation failed. */
Sbxbt__RowFilter *bt_filter_combine(bool chain, Sbxbt__RowFilter **v,
				    size_t n)
{
	bool ok = true;
	for (size_t i = 0; i < n; i++)
		ok = ok && v[i];
	if (ok && n == 1)
		return v[0];
	Sbxbt__RowFilter *f = ok && n ? bt_filter_new() : NULL;
	Sbxbt__RowFilter **copy = f ? sbx_malloc(n * sizeof *copy) : NULL;
	void *holder = copy ? sbx_malloc(sizeof(Sbxbt__RowFilter__Chain)) : NULL;
	if (!holder) {
		for (size_t i = 0; i < n; i++)
			bt_filter_free(v[i]);
		free(f);
		free(copy);
		return NULL;
	}
	memcpy(copy, v, n * sizeof *copy);
	if (chain) {
		Sbxbt__RowFilter__Chain *c = holder;
		sbxbt__row_filter__chain__init(c);
		c->n_filters = n;
		c->filters = copy;
		f->filter_case = SBXBT__ROW_FILTER__FILTER_CHAIN;
		f->chain = c;
	} else {
		Sbxbt__RowFilter__Interleave *c = holder;
		sbxbt__row_filter__interleave__init(c);
		c->n_filters = n;
		c->filters = copy;
		f->filter_case = SBXBT__ROW_FILTER__FILTER_INTERLEAVE;
		f->interleave = c;
	}
	return f;
}

int bt_filter_column(Sbxbt__RowFilter **out, const char *family,
		     const uint8_t *qual, size_t qual_len)
{
	Sbxbt__RowFilter *v[2] = {bt_filter_family(family),
				  filter_qualifier(qual, qual_len)};
	*out = bt_filter_combine(true, v, 2);
	return *out ? SBX_OK : SBX_ENOMEM_SET();
}
