/*
 * name.c - names: a registered kind by number or name, and keys as text
 * ("Couple:7/Photo:3") for messages and views. Calls nothing else of the
 * datastore, so every other file may use it.
 */
#include "ds_int.h"

#include <string.h>

const ds_kind *ds_kind_find(const sbx_ds *ds, uint16_t kind)
{
	for (size_t i = 0; ds && i < ds->nkinds; i++)
		if (ds->kinds[i].kind == kind)
			return &ds->kinds[i];
	return NULL;
}

uint16_t sbx_ds_kind_by_name(const sbx_ds *ds, const char *name)
{
	for (size_t i = 0; ds && name && i < ds->nkinds; i++)
		if (!strcmp(ds->kinds[i].name, name))
			return ds->kinds[i].kind;
	return 0;
}

const char *sbx_ds_kind_name(const sbx_ds *ds, uint16_t kind)
{
	const ds_kind *k = ds_kind_find(ds, kind);
	return k ? k->name : NULL;
}

int ds_key_name(char *buf, size_t cap, const sbx_ds *ds, const sbx_ds_key *k)
{
	sbx_buf b = {0};
	if (sbx_ds_key_format(&b, ds, k) == SBX_OK)
		snprintf(buf, cap, "%.*s", (int)b.len, (const char *)b.data);
	else
		snprintf(buf, cap, "(key)");
	sbx_buf_free(&b);
	return SBX_OK;
}

int ds_elem_format(sbx_buf *out, const sbx_ds *ds, const ds_elem *e,
		   bool slash)
{
	size_t len0 = out->len;
	char tmp[64];
	const char *name = ds ? sbx_ds_kind_name(ds, e->kind) : NULL;
	if (name)
		snprintf(tmp, sizeof tmp, "%s%s:", slash ? "/" : "", name);
	else
		snprintf(tmp, sizeof tmp, "%s%u:", slash ? "/" : "",
			 (unsigned)e->kind);
	int rc = sbx_buf_append(out, tmp, strlen(tmp));
	if (rc == SBX_OK && !e->is_bytes) {
		snprintf(tmp, sizeof tmp, "%llu", (unsigned long long)e->id);
		rc = sbx_buf_append(out, tmp, strlen(tmp));
	} else if (rc == SBX_OK) {
		bool text = true;
		for (size_t j = 0; j < e->blen; j++)
			if (e->b[j] < 0x20 || e->b[j] > 0x7e || e->b[j] == '\'')
				text = false;
		if (text) {
			rc = sbx_buf_append(out, "'", 1);
			rc = rc ? rc : sbx_buf_append(out, e->b, e->blen);
			rc = rc ? rc : sbx_buf_append(out, "'", 1);
		} else {
			rc = sbx_buf_append(out, "0x", 2);
			rc = rc ? rc : sbx_key_put_hex(out, e->b, e->blen, true);
		}
	}
	if (rc)
		out->len = len0;
	return rc;
}

int sbx_ds_key_format(sbx_buf *out, const sbx_ds *ds, const sbx_ds_key *k)
{
	size_t len0 = out->len;
	int rc = SBX_OK;
	for (size_t i = 0; rc == SBX_OK && i < k->n; i++)
		rc = ds_elem_format(out, ds, &k->e[i], i > 0);
	if (rc)
		out->len = len0;
	return rc;
}
