/*
 * cmd_export.c - `saltbox export` and `saltbox import`: a table's cells to
 * and from a text file, TSV or JSON, one line at a time.
 *
 *   saltbox export --data DIR [--format tsv|json] [--versions N] TABLE [FILE]
 *   saltbox import --data DIR [--format tsv|json] TABLE [FILE]
 *
 * TSV: one cell per line, "row TAB family:qualifier TAB timestamp TAB
 * value", the row, qualifier and value as HBase prints bytes
 * (Bytes.toStringBinary: printable ASCII as is, anything else and the
 * backslash as \xHH), so any bytes survive the round trip. JSON: one row
 * per line as an HBase REST CellSet ({"Row":[{"key":..,"Cell":[..]}]},
 * base64), the body curl would PUT to a REST gateway. FILE defaults to
 * stdout/stdin. Export writes the table's schema first (a
 * "#saltbox-schema" line, io/celllines.h), which import reads for
 * --create (make the table when it does not exist) and otherwise skips.
 * Import puts every cell with its timestamp; a line that does not parse is
 * a bad line: reported, counted and skipped, and the exit status is 1 when
 * there was any, unless --skip-bad. The line formats are the library's
 * (io/celllines.h); this file is the command.
 */
#include "cli.h"

#include "common/buf.h"
#include "io/celllines.h"
#include "saltbox.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

typedef struct xopts {
	const char *data, *url, *table, *file;
	bool json, create, skip_bad;
	int versions;
} xopts;

static int usage_to(FILE *out, int status)
{
	fprintf(out,
		"usage: saltbox export " CLI_STORE_USAGE " [--format tsv|json]\n"
		"                      [--versions N] TABLE [FILE]\n"
		"       saltbox import " CLI_STORE_USAGE " [--format tsv|json]\n"
		"                      [--create] [--skip-bad] TABLE [FILE]\n"
		CLI_STORE_HELP
		"TSV: row<TAB>family:qualifier<TAB>timestamp<TAB>value, bytes "
		"as HBase prints them\n(\\xHH escapes). JSON: one HBase REST "
		"CellSet per line. FILE defaults to\nstdout (export) or "
		"stdin (import). Export writes the table's schema first;\n"
		"import --create makes TABLE from it when TABLE does not "
		"exist. Import exits 1\nwhen any line was rejected, unless "
		"--skip-bad.\n");
	return status;
}

static int parse(int argc, char **argv, xopts *o, bool export)
{
	memset(o, 0, sizeof *o);
	o->versions = 1;
	const char *pos[2];
	int npos = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			return usage_to(stdout, 0) - 1; /* -1: done, exit 0 */
		} else if (!strcmp(a, "--data") && i + 1 < argc) {
			o->data = argv[++i];
		} else if (!strcmp(a, "--connect") && i + 1 < argc) {
			o->url = argv[++i];
		} else if (!strcmp(a, "--format") && i + 1 < argc) {
			const char *f = argv[++i];
			if (strcmp(f, "tsv") && strcmp(f, "json")) {
				fprintf(stderr, "saltbox: --format is tsv or "
						"json, not '%s'\n",
					f);
				return 2;
			}
			o->json = !strcmp(f, "json");
		} else if (export && !strcmp(a, "--versions") && i + 1 < argc) {
			char *end;
			long v = strtol(argv[++i], &end, 10);
			if (*end || v < 1 || v > 1000000) {
				fprintf(stderr, "saltbox: --versions wants a "
						"count >= 1\n");
				return 2;
			}
			o->versions = (int)v;
		} else if (!export && !strcmp(a, "--create")) {
			o->create = true;
		} else if (!export && !strcmp(a, "--skip-bad")) {
			o->skip_bad = true;
		} else if (a[0] == '-' && a[1]) {
			return usage_to(stderr, 2);
		} else if (npos < 2) {
			pos[npos++] = a;
		} else {
			return usage_to(stderr, 2);
		}
	}
	if (!o->data == !o->url || npos < 1)
		return usage_to(stderr, 2);
	o->table = pos[0];
	o->file = npos == 2 ? pos[1] : "-";
	return 0;
}

/* ---- export ---- */

int cmd_export(int argc, char **argv)
{
	xopts o;
	int rc = parse(argc, argv, &o, true);
	if (rc)
		return rc < 0 ? 0 : rc;
	sbx_db *db = cli_open_store(o.data, o.url, "saltbox");
	if (!db)
		return 1;
	FILE *f = strcmp(o.file, "-") ? fopen(o.file, "w") : stdout;
	sbx_table *t = NULL;
	sbx_scanner *s = NULL;
	if (!f) {
		fprintf(stderr, "saltbox: cannot write '%s': %s\n", o.file,
			strerror(errno));
		rc = 1;
	} else if (sbx_table_open(&t, db, o.table)) {
		fprintf(stderr, "saltbox: %s\n", sbx_errmsg());
		rc = 1;
	}
	sbx_buf line = {0};
	sbx_table_info *info = NULL;
	if (!rc && sbx_table_describe(&info, db, o.table)) {
		fprintf(stderr, "saltbox: %s\n", sbx_errmsg());
		rc = 1;
	} else if (!rc && (io_schema_line(&line, info) ||
			   fwrite(line.data, 1, line.len, f) != line.len)) {
		fprintf(stderr, "saltbox: cannot write '%s'\n", o.file);
		rc = 1;
	}
	sbx_table_info_free(info);
	sbx_scan_opts so;
	sbx_scan_opts_init(&so);
	so.read.max_versions = o.versions;
	if (!rc && sbx_scanner_open(&s, t, &so)) {
		fprintf(stderr, "saltbox: %s\n", sbx_errmsg());
		rc = 1;
	}
	uint64_t rows = 0, cells = 0;
	sbx_result *r;
	int srv;
	while (!rc && (srv = sbx_scanner_next(s, &r)) == SBX_OK) {
		line.len = 0;
		size_t n;
		const sbx_cell *c = sbx_result_cells(r, &n);
		if (o.json)
			rc = io_row_json_line(&line, r);
		for (size_t i = 0; !o.json && !rc && i < n; i++)
			rc = io_cell_tsv_line(&line, &c[i]);
		sbx_result_free(r);
		if (!rc && fwrite(line.data, 1, line.len, f) != line.len)
			rc = SBX_EIO;
		if (rc) {
			fprintf(stderr, "saltbox: cannot write '%s'\n", o.file);
			rc = 1;
		}
		rows++;
		cells += n;
	}
	if (!rc && srv != SBX_ITEROVER) {
		fprintf(stderr, "saltbox: %s\n", sbx_errmsg());
		rc = 1;
	}
	sbx_buf_free(&line);
	sbx_scanner_close(s);
	sbx_table_close(t);
	if (f && f != stdout && fclose(f) != 0 && !rc) {
		fprintf(stderr, "saltbox: cannot write '%s'\n", o.file);
		rc = 1;
	}
	if (!rc)
		fprintf(stderr, "export: %" PRIu64 " rows, %" PRIu64 " cells\n",
			rows, cells);
	sbx_db_close(db);
	return rc;
}

/* ---- import ---- */

/* The table to import into: opened, or made from the schema line first
 * when --create asks and it does not exist. 0 or 1 (reported). */
static int import_table(sbx_table **t, sbx_db *db, const xopts *o,
			const char *schema)
{
	bool exists = false;
	if (sbx_table_exists(&exists, db, o->table)) {
		fprintf(stderr, "saltbox: %s\n", sbx_errmsg());
		return 1;
	}
	if (!exists && o->create && !schema) {
		fprintf(stderr, "saltbox import: --create: '%s' has no schema "
				"line (the first line `saltbox export` "
				"writes); create table '%s' first\n",
			o->file, o->table);
		return 1;
	}
	if (!exists && o->create) {
		sbx_family_desc *fams;
		size_t n;
		int rc = io_schema_parse(&fams, &n, schema);
		if (!rc)
			rc = sbx_table_create(db, o->table, fams, n);
		free(fams);
		if (rc) {
			fprintf(stderr, "saltbox import: --create: %s\n",
				sbx_errmsg());
			return 1;
		}
		fprintf(stderr, "import: created table '%s' with %zu "
				"famil%s\n",
			o->table, n, n == 1 ? "y" : "ies");
	}
	if (sbx_table_open(t, db, o->table)) {
		fprintf(stderr, "saltbox: %s%s\n", sbx_errmsg(),
			exists ? ""
			       : " (--create makes it from the export's "
				 "schema)");
		return 1;
	}
	return 0;
}

int cmd_import(int argc, char **argv)
{
	xopts o;
	int rc = parse(argc, argv, &o, false);
	if (rc)
		return rc < 0 ? 0 : rc;
	sbx_db *db = cli_open_store(o.data, o.url, "saltbox");
	if (!db)
		return 1;
	FILE *f = strcmp(o.file, "-") ? fopen(o.file, "r") : stdin;
	sbx_table *t = NULL;
	if (!f) {
		fprintf(stderr, "saltbox: cannot read '%s': %s\n", o.file,
			strerror(errno));
		rc = 1;
	}
	char *buf = NULL;
	size_t cap = 0;
	ssize_t got;
	uint64_t lines = 0, bad = 0, rows = 0;
	while (!rc && (got = getline(&buf, &cap, f)) >= 0) {
		lines++;
		while (got > 0 && (buf[got - 1] == '\n' || buf[got - 1] == '\r'))
			buf[--got] = 0;
		bool schema = io_is_schema_line(buf);
		if (!t) { /* the first line: the schema, or a cell */
			rc = import_table(&t, db, &o, schema ? buf : NULL);
			if (rc)
				break;
		}
		if (got == 0 || schema)
			continue;
		sbx_mutation **ms;
		size_t n;
		if (io_line_mutations(&ms, &n, o.json, buf, (size_t)got)) {
			fprintf(stderr, "saltbox import: bad line %" PRIu64
					": %s\n",
				lines, sbx_errmsg());
			bad++;
			continue;
		}
		if (n && sbx_table_batch(NULL, t, ms, n)) {
			fprintf(stderr, "saltbox: line %" PRIu64 ": %s\n", lines,
				sbx_errmsg());
			rc = 1;
		}
		rows += n;
		for (size_t i = 0; i < n; i++)
			sbx_mutation_free(ms[i]);
		free(ms);
	}
	if (!rc && !t) /* an empty file: the table must still be there */
		rc = import_table(&t, db, &o, NULL);
	free(buf);
	if (f && f != stdin)
		fclose(f);
	sbx_table_close(t);
	if (!rc)
		fprintf(stderr, "import: %" PRIu64 " lines, %" PRIu64
				" bad lines, %" PRIu64 " mutations\n",
			lines, bad, rows);
	if (!rc && bad && !o.skip_bad) {
		fprintf(stderr, "saltbox import: %" PRIu64 " of %" PRIu64
				" lines rejected (--skip-bad imports the rest "
				"and exits 0)\n",
			bad, lines);
		rc = 1;
	}
	sbx_db_close(db);
	return rc;
}
