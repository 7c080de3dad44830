/*
 * fuzz_keydesign.c - libFuzzer target for the key design language. Any
 * input must parse or fail cleanly; every design that parses must survive
 * explain, lint, plan and decoding the input as a key, and its canonical
 * text must parse again to the same text.
 */
#include "saltbox/rowkey.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void exercise(const sbx_keydesign *d, const uint8_t *data, size_t size)
{
	sbx_buf b = {0};
	if (sbx_keydesign_explain(&b, d) != SBX_OK)
		abort();
	sbx_buf_free(&b);

	sbx_keylint *lint = NULL;
	if (sbx_keydesign_lint(&lint, d) == SBX_OK)
		sbx_keylint_free(lint);

	sbx_keyplan *plan = NULL;
	if (sbx_keydesign_plan(&plan, d, NULL, 0) == SBX_OK)
		sbx_keyplan_free(plan);

	sbx_keyrecord *r = NULL;
	if (sbx_keydesign_decode(&r, d, data, size) == SBX_OK) {
		/* a key that decodes re-encodes to the same bytes */
		size_t n = sbx_keyrecord_count(r);
		sbx_keyvalue *v = calloc(n ? n : 1, sizeof *v);
		size_t k = 0;
		bool nan = false;
		for (size_t i = 0; v && i < n; i++) {
			sbx_keyelem_info info;
			const char *name = sbx_keyrecord_name(r, i);
			bool is_field = false;
			for (size_t e = 0; e < sbx_keydesign_elem_count(d); e++)
				if (!sbx_keydesign_elem(&info, d, e) &&
				    info.kind == SBX_KEYELEM_FIELD &&
				    !strcmp(info.name, name))
					is_field = true;
			nan = nan || strstr(sbx_keyrecord_value(r, i), "nan");
			if (is_field)
				v[k++] = (sbx_keyvalue){
					name, sbx_keyrecord_value(r, i),
					sbx_keyrecord_value_len(r, i)};
		}
		sbx_buf key = {0};
		if (v && !nan &&
		    sbx_keydesign_encode(&key, d, v, k) == SBX_OK &&
		    (key.len != size || memcmp(key.data, data, size)))
			abort(); /* decode/encode disagree */
		sbx_buf_free(&key);
		free(v);
		sbx_keyrecord_free(r);
	}

	const char *text = sbx_keydesign_text(d);
	sbx_keydesign *again = NULL;
	if (sbx_keydesign_parse(&again, text, strlen(text), NULL) != SBX_OK) {
		fprintf(stderr, "canonical text does not parse: %s\n%s\n", text,
			sbx_errmsg());
		abort();
	}
	if (strcmp(sbx_keydesign_text(again), text))
		abort();
	sbx_keydesign_free(again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	sbx_keyset *set = NULL;
	if (sbx_keyset_parse(&set, (const char *)data, size, NULL) != SBX_OK)
		return 0;
	for (size_t i = 0; i < sbx_keyset_count(set); i++)
		exercise(sbx_keyset_at(set, i), data, size);
	sbx_keyset_free(set);
	return 0;
}
