/*
 * fuzz_shell_line.c - libFuzzer target for the `saltbox shell` line parser:
 * any bytes parse, report an incomplete statement, or fail with SBX_EPARSE
 * and a position inside the input; never crash, hang or leak. Parsed values
 * are walked and printed the way the shell prints bytes.
 */
#include "shell/parse.h"

#include "common/buf.h"

#include <stdlib.h>
#include <string.h>

static void walk(const sbx_shell_value *v, sbx_buf *out, size_t size)
{
	if (v->pos > size)
		abort();
	switch (v->type) {
	case SBX_SHV_STRING:
	case SBX_SHV_CONST:
		if (!v->str || v->str[v->len] != 0)
			abort();
		sbx_shell_append_binary(out, v->str, v->len);
		break;
	case SBX_SHV_HASH:
		if (v->n % 2)
			abort();
		/* fall through */
	case SBX_SHV_ARRAY:
		for (size_t i = 0; i < v->n; i++)
			walk(&v->items[i], out, size);
		if (v->type == SBX_SHV_HASH)
			(void)sbx_shell_hash_get(v, "NAME");
		break;
	default:
		break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	sbx_shell_cmd c;
	char err[256];
	size_t pos = 0;
	int rc = sbx_shell_parse(&c, (const char *)data, size, &pos, err,
				 sizeof err);
	if (rc == SBX_OK) {
		sbx_buf out = {0};
		if (!c.name || !*c.name)
			abort();
		for (size_t i = 0; i < c.nargs; i++)
			walk(&c.args[i], &out, size);
		free(out.data);
		sbx_shell_cmd_free(&c);
	} else if (rc == SBX_EPARSE) {
		if (pos > size || !err[0] || c.name || c.args)
			abort();
	} else if (rc != SBX_SHELL_EMPTY && rc != SBX_SHELL_INCOMPLETE &&
		   rc != SBX_ENOMEM) {
		abort();
	}
	return 0;
}
