/*
 * fuzz_import_line.c - libFuzzer target for `saltbox import`'s line
 * parsing (io/celllines.h): TSV cells (row, family:qualifier, timestamp,
 * value with \xHH escapes) or JSON CellSets, picked by the first byte,
 * and the "#saltbox-schema" line `import --create` reads.
 * Any bytes either give mutations (then freed) or a bad line with a
 * reason; never crash, hang or leak.
 */
#include "io/celllines.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	bool json = data[0] & 1;
	char *text = malloc(size);
	if (!text)
		return 0;
	memcpy(text, data + 1, size - 1);
	text[size - 1] = 0;
	sbx_family_desc *fams;
	size_t nf;
	if (io_is_schema_line(text)) {
		if (io_schema_parse(&fams, &nf, text) == SBX_OK) {
			if (nf == 0)
				abort(); /* a schema has a family */
			free(fams);
		} else if (!*sbx_errmsg()) {
			abort();
		}
	}
	sbx_mutation **ms;
	size_t n;
	if (io_line_mutations(&ms, &n, json, text, strlen(text)) == SBX_OK) {
		for (size_t i = 0; i < n; i++)
			sbx_mutation_free(ms[i]);
		free(ms);
	} else if (!*sbx_errmsg()) {
		abort(); /* a bad line always says why */
	}
	free(text);
	return 0;
}
