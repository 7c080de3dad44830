/*
 * fuzz_bigtable_response.c - what a Bigtable server (or whatever answers in
 * its place) sends the Bigtable backend: ReadRows response streams through
 * the chunk merger (bt_read_rows_feed, the backend's own path from the
 * wire), GetTable answers read as HBase families (bt_families_of), and
 * SampleRowKeys streams read as tablets (bt_sample_add, bt_regions_of).
 *
 * Input: byte 0 picks the kind (its low two bits: 0 ReadRows, 2 ReadRows
 * reversed, 1 GetTable, 3 SampleRowKeys); the rest is a sequence of
 * messages (GetTable reads the first), each a 2-byte
 * big-endian length and that many bytes of protobuf, unpacked by the RPC
 * layer's own bt_unpack (a message that does not parse, or nests deeper
 * than BT_MAX_NESTING, is skipped, as the RPC layer would fail the call).
 * Checked:
 * every committed row has a key and cells whose bytes lie in its arena,
 * keys strictly in the read's order, every answer SBX_OK or SBX_EREMOTE
 * with a message (never a crash, a leak or a huge allocation); every
 * family named, with VERSIONS >= 1, MIN_VERSIONS >= 0, a TTL in [1,
 * FOREVER], and no name twice; tablets that tile the table, each start
 * below its end.
 */
#include "bigtable/bigtable.h"
#include "bigtable/merge.h"
#include "common/bytes.h"

#include <saltbox.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct rows_seen {
	bool reversed, have_last;
	sbx_buf last;
} rows_seen;

static bool within(const bt_row *row, size_t off, size_t len)
{
	return off <= row->arena.len && len <= row->arena.len - off;
}

static int on_row(void *p, const bt_row *row)
{
	rows_seen *s = p;
	if (!row->key.len || !row->n)
		abort();
	for (size_t i = 0; i < row->n; i++) {
		const bt_cell *c = &row->cells[i];
		if (!within(row, c->family_off, c->family_len) ||
		    !within(row, c->qual_off, c->qual_len) ||
		    !within(row, c->label_off, c->label_len) ||
		    !within(row, c->value_off, c->value_len))
			abort();
	}
	if (s->have_last) {
		int d = sbx_bytes_cmp(row->key.data, row->key.len,
				      s->last.data, s->last.len);
		if (s->reversed ? d >= 0 : d <= 0)
			abort();
	}
	if (sbx_buf_set(&s->last, row->key.data, row->key.len))
		return SBX_ENOMEM;
	s->have_last = true;
	return SBX_OK;
}

static void check_answer(int rc)
{
	if (rc == SBX_EREMOTE && !sbx_errmsg()[0])
		abort();
	if (rc != SBX_OK && rc != SBX_EREMOTE && rc != SBX_ENOMEM)
		abort();
}

/* The next message of the input: its bytes and length (cut at the input's
 * end); false when none is left. */
static bool next_message(const uint8_t **p, size_t *n, const uint8_t **msg,
			 size_t *len)
{
	if (*n < 2)
		return false;
	*len = (size_t)(*p)[0] << 8 | (*p)[1];
	*p += 2, *n -= 2;
	if (*len > *n)
		*len = *n;
	*msg = *p;
	*p += *len, *n -= *len;
	return true;
}

static void read_rows(const uint8_t *p, size_t n, bool reversed)
{
	bt_merger m;
	bt_merger_init(&m, reversed);
	rows_seen seen = {.reversed = reversed};
	int rc = SBX_OK;
	const uint8_t *msg;
	size_t len;
	while (!rc && next_message(&p, &n, &msg, &len)) {
		bool deep;
		Sbxbt__ReadRowsResponse *r = (Sbxbt__ReadRowsResponse *)bt_unpack(
			&sbxbt__read_rows_response__descriptor, len, msg, &deep);
		if (!r)
			continue;
		rc = bt_read_rows_feed(&m, r, on_row, &seen);
		protobuf_c_message_free_unpacked(&r->base, NULL);
	}
	if (!rc)
		rc = bt_merger_finish(&m);
	check_answer(rc);
	bt_merger_free(&m);
	sbx_buf_free(&seen.last);
}

static void get_table(const uint8_t *p, size_t n)
{
	const uint8_t *msg;
	size_t len;
	if (!next_message(&p, &n, &msg, &len))
		return;
	bool deep;
	Sbxbta__Table *t = (Sbxbta__Table *)bt_unpack(
		&sbxbta__table__descriptor, len, msg, &deep);
	if (!t)
		return;
	sbx_family_desc *f;
	size_t nf;
	int rc = bt_families_of(t, &f, &nf);
	check_answer(rc);
	for (size_t i = 0; !rc && i < nf; i++) {
		if (!f[i].name[0] || f[i].max_versions < 1 ||
		    f[i].min_versions < 0 || f[i].ttl_seconds < 1 ||
		    f[i].ttl_seconds > SBX_TTL_FOREVER)
			abort();
		if (i && strcmp(f[i - 1].name, f[i].name) >= 0)
			abort(); /* sorted, each name once */
	}
	if (!rc)
		free(f);
	protobuf_c_message_free_unpacked(&t->base, NULL);
}

static void sample_row_keys(const uint8_t *p, size_t n)
{
	bt_keys keys = {0};
	int rc = SBX_OK;
	const uint8_t *msg;
	size_t len;
	while (!rc && next_message(&p, &n, &msg, &len)) {
		bool deep;
		Sbxbt__SampleRowKeysResponse *r =
			(Sbxbt__SampleRowKeysResponse *)bt_unpack(
				&sbxbt__sample_row_keys_response__descriptor,
				len, msg, &deep);
		if (!r)
			continue;
		rc = bt_sample_add(&keys, r);
		protobuf_c_message_free_unpacked(&r->base, NULL);
	}
	sbx_region_info *r = NULL;
	size_t nr = 0;
	if (!rc)
		rc = bt_regions_of(&r, &nr, "t", &keys);
	bt_keys_free(&keys);
	check_answer(rc);
	if (rc)
		return;
	if (!nr || r[0].start_len || r[nr - 1].end_len)
		abort(); /* from the table's start to its end */
	for (size_t i = 0; i < nr; i++) {
		if (i + 1 < nr &&
		    (!r[i].end_len ||
		     sbx_bytes_cmp(r[i].end_key, r[i].end_len, r[i + 1].start_key,
				   r[i + 1].start_len)))
			abort(); /* each tablet ends where the next starts */
		if (i && i + 1 < nr &&
		    sbx_bytes_cmp(r[i].start_key, r[i].start_len, r[i].end_key,
				  r[i].end_len) >= 0)
			abort();
		if (!r[i].name)
			abort();
	}
	sbx_region_infos_free(r, nr);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	switch (data[0] & 3) {
	case 1:
		get_table(data + 1, size - 1);
		break;
	case 3:
		sample_row_keys(data + 1, size - 1);
		break;
	default:
		read_rows(data + 1, size - 1, data[0] & 2);
		break;
	}
	return 0;
}
