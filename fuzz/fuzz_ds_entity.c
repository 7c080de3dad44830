/*
 * fuzz_ds_entity.c - libFuzzer target for what the datastore parses from
 * the store: a column's row key and qualifier (sbx_ds_key_decode), an
 * index row's key reference, and an entity's bytes - decoded as a
 * registered kind's message (malformed bytes must be a clear
 * SBX_EBADVALUE, never a crash) and printed from the wire format, alone
 * and as a row's tree. Input: byte 0 = row length, byte 1 = qualifier
 * length, then row, qualifier, and the entity bytes.
 */
#include "datastore/ds_int.h"
#include "ds_test.pb-c.h"

#include <stdlib.h>
#include <string.h>

static sbx_ds *ds;

static void setup(void)
{
	static sbx_db *db; /* never opened: the datastore is not prepared */
	if (ds)
		return;
	db = (sbx_db *)&db; /* sbx_ds_open only keeps the pointer */
	if (sbx_ds_open(&ds, db, "t", NULL))
		abort();
	sbx_ds_kind_desc k[] = {
	    {1, "Couple", &dstest__couple__descriptor, NULL, NULL},
	    {3, "Photo", &dstest__photo__descriptor, NULL, NULL},
	    {4, "Comment", &dstest__comment__descriptor, NULL, NULL},
	    {9, "Salted", &dstest__couple__descriptor, "other",
	     "salt(4) + id:u64"},
	};
	for (size_t i = 0; i < sizeof k / sizeof *k; i++)
		if (sbx_ds_register_kind(ds, &k[i]))
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	setup();
	if (size < 2)
		return 0;
	size_t rl = data[0], ql = data[1];
	const uint8_t *p = data + 2;
	size_t left = size - 2;
	if (rl > left)
		rl = left;
	const uint8_t *row = p;
	p += rl;
	left -= rl;
	if (ql > left)
		ql = left;
	const uint8_t *q = p;
	p += ql;
	left -= ql;

	sbx_ds_key *k = NULL;
	bool meta = false;
	uint16_t mk = 0;
	int rc = sbx_ds_key_decode(&k, &meta, &mk, ds, row, rl, q, ql);
	if (rc == SBX_OK) {
		/* a decoded key encodes back to the same qualifier */
		sbx_buf b = {0};
		if (meta)
			rc = sbx_ds_key_encode_meta(&b, k, mk);
		else
			rc = sbx_ds_key_encode_qualifier(&b, k);
		if (rc || b.len != ql || memcmp(b.data, q, ql))
			abort();
		sbx_buf_free(&b);
		ProtobufCMessage *m = NULL;
		rc = sbx_ds_entity_decode(&m, ds, k, p, left);
		if (rc != SBX_OK && rc != SBX_EBADVALUE && rc != SBX_EINVAL)
			abort();
		if (rc == SBX_OK && !m)
			abort();
		sbx_ds_entity_free(m);
	} else if (k) {
		abort();
	}
	sbx_buf out = {0};
	(void)sbx_ds_format_entity(&out, ds, k, p, left);
	sbx_ds_key_free(k);
	sbx_ds_key *ref = NULL;
	if (ds_ref_decode(&ref, ds, data, size) == SBX_OK)
		sbx_ds_key_free(ref);
	else if (ref)
		abort();
	sbx_cell cells[2] = {
	    {row, rl, SBX_DS_FAMILY, 1, q, ql, 1, SBX_CELL_PUT, p, left},
	    {row, rl, SBX_DS_FAMILY, 1, (const uint8_t *)"\0\0", 2, 1,
	     SBX_CELL_PUT, p, left},
	};
	out.len = 0;
	if (sbx_ds_format_row(&out, ds, cells, 2) != SBX_OK)
		abort();
	sbx_buf_free(&out);
	return 0;
}
