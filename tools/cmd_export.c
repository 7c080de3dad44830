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
 * stdout/stdin. Import puts every cell with its timestamp; a line that
 * does not parse is a bad line: reported, counted and skipped.
 */
#include "cli.h"

#include "common/buf.h"
#include "saltbox.h"
#include "server/rest.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

typedef struct xopts {
	const char *data, *table, *file;
	bool json;
	int versions;
} xopts;

static int usage_to(FILE *out, int status)
{
	fprintf(out,
		"usage: saltbox export --data DIR [--format tsv|json] "
		"[--versions N] TABLE [FILE]\n"
		"       saltbox import --data DIR [--format tsv|json] TABLE "
		"[FILE]\n"
		"TSV: row<TAB>family:qualifier<TAB>timestamp<TAB>value, bytes "
		"as HBase prints them\n(\\xHH escapes). JSON: one HBase REST "
		"CellSet per line. FILE defaults to\nstdout (export) or "
		"stdin (import).\n");
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
		} else if (a[0] == '-' && a[1]) {
			return usage_to(stderr, 2);
		} else if (npos < 2) {
			pos[npos++] = a;
		} else {
			return usage_to(stderr, 2);
		}
	}
	if (!o->data || npos < 1)
		return usage_to(stderr, 2);
	o->table = pos[0];
	o->file = npos == 2 ? pos[1] : "-";
	return 0;
}

/* ---- export ---- */

static int tsv_cell(sbx_buf *out, const sbx_cell *c)
{
	int rc = sbx_key_to_binary_string(out, c->row, c->row_len);
	rc = rc ? rc : sbx_buf_printf(out, "\t%.*s:", (int)c->family_len,
				      c->family);
	rc = rc ? rc
		: sbx_key_to_binary_string(out, c->qualifier, c->qualifier_len);
	rc = rc ? rc : sbx_buf_printf(out, "\t%lld\t", (long long)c->timestamp);
	rc = rc ? rc : sbx_key_to_binary_string(out, c->value, c->value_len);
	return rc ? rc : sbx_buf_push(out, '\n');
}

static int json_row(sbx_buf *out, const sbx_result *r)
{
	rest_cellset_writer w;
	int rc = rest_cellset_open(&w, out, REST_FMT_JSON);
	rc = rc ? rc : rest_cellset_add(&w, out, r, 0, sbx_result_size(r));
	rc = rc ? rc : rest_cellset_close(&w, out);
	rest_cellset_writer_free(&w);
	return rc ? rc : sbx_buf_push(out, '\n');
}

int cmd_export(int argc, char **argv)
{
	xopts o;
	int rc = parse(argc, argv, &o, true);
	if (rc)
		return rc < 0 ? 0 : rc;
	sbx_db *db = cli_open_store(o.data, "saltbox");
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
	sbx_scan_opts so;
	sbx_scan_opts_init(&so);
	so.read.max_versions = o.versions;
	if (!rc && sbx_scanner_open(&s, t, &so)) {
		fprintf(stderr, "saltbox: %s\n", sbx_errmsg());
		rc = 1;
	}
	sbx_buf line = {0};
	uint64_t rows = 0, cells = 0;
	sbx_result *r;
	int srv;
	while (!rc && (srv = sbx_scanner_next(s, &r)) == SBX_OK) {
		line.len = 0;
		size_t n;
		const sbx_cell *c = sbx_result_cells(r, &n);
		if (o.json)
			rc = json_row(&line, r);
		for (size_t i = 0; !o.json && !rc && i < n; i++)
			rc = tsv_cell(&line, &c[i]);
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

/* One TSV line into a mutation; false for a bad line (*why says what). */
static bool tsv_line(char *text, sbx_buf *row, sbx_buf *qual, sbx_buf *val,
		     char *family, int64_t *ts, const char **why)
{
	char *f[4];
	f[0] = text;
	for (int i = 1; i < 4; i++) {
		char *tab = strchr(f[i - 1], '\t');
		if (!tab) {
			*why = "fewer than 4 fields";
			return false;
		}
		*tab = 0;
		f[i] = tab + 1;
	}
	if (strchr(f[3], '\t')) {
		*why = "more than 4 fields";
		return false;
	}
	row->len = qual->len = val->len = 0;
	if (sbx_key_from_binary_string(row, f[0], strlen(f[0])) ||
	    row->len == 0) {
		*why = "bad row";
		return false;
	}
	char *colon = strchr(f[1], ':');
	size_t fl = colon ? (size_t)(colon - f[1]) : 0;
	if (!colon || fl == 0 || fl > SBX_MAX_FAMILY_NAME) {
		*why = "bad family:qualifier";
		return false;
	}
	memcpy(family, f[1], fl);
	family[fl] = 0;
	if (sbx_key_from_binary_string(qual, colon + 1, strlen(colon + 1))) {
		*why = "bad qualifier";
		return false;
	}
	char *end;
	errno = 0;
	long long v = strtoll(f[2], &end, 10);
	if (errno || *end || end == f[2] || v < 0) {
		*why = "bad timestamp";
		return false;
	}
	*ts = v;
	if (sbx_key_from_binary_string(val, f[3], strlen(f[3]))) {
		*why = "bad value";
		return false;
	}
	return true;
}

/* The mutations of one line: one for TSV, one per row for JSON. */
static int line_mutations(const xopts *o, char *text, size_t len,
			  sbx_mutation ***out, size_t *n, const char **why,
			  char *err)
{
	*out = NULL;
	*n = 0;
	if (!o->json) {
		sbx_buf row = {0}, qual = {0}, val = {0};
		char family[SBX_MAX_FAMILY_NAME + 1];
		int64_t ts;
		int rc = SBX_EPARSE;
		sbx_mutation **v = calloc(1, sizeof *v);
		if (v && tsv_line(text, &row, &qual, &val, family, &ts, why)) {
			rc = sbx_mutation_new(&v[0], row.data, row.len);
			if (!rc)
				rc = sbx_mutation_put(v[0], family, qual.data,
						      qual.len, ts, val.data,
						      val.len);
			if (rc) {
				*why = sbx_errmsg();
				sbx_mutation_free(v[0]);
			}
		}
		sbx_buf_free(&row);
		sbx_buf_free(&qual);
		sbx_buf_free(&val);
		if (rc) {
			free(v);
			return rc;
		}
		*out = v;
		*n = 1;
		return SBX_OK;
	}
	rest_cellset cs;
	int rc = rest_cellset_from_json(&cs, (const uint8_t *)text, len, err);
	if (rc) {
		*why = err;
		return rc;
	}
	sbx_mutation **v = calloc(cs.nrows ? cs.nrows : 1, sizeof *v);
	rc = v ? SBX_OK : SBX_ENOMEM;
	for (size_t i = 0; !rc && i < cs.nrows; i++) {
		const rest_row *r = &cs.rows[i];
		rc = r->has_key && r->key.len ? sbx_mutation_new(&v[i], r->key.data,
							       r->key.len)
					      : SBX_EPARSE;
		for (size_t j = 0; !rc && j < r->ncells; j++) {
			const rest_cell *c = &r->cells[j];
			const uint8_t *col = c->column.data;
			const uint8_t *colon =
				c->has_column ? memchr(col, ':', c->column.len)
					      : NULL;
			size_t fl = colon ? (size_t)(colon - col) : 0;
			char family[SBX_MAX_FAMILY_NAME + 1];
			if (!colon || fl == 0 || fl > SBX_MAX_FAMILY_NAME ||
			    memchr(col, 0, fl)) {
				rc = SBX_EPARSE;
				break;
			}
			memcpy(family, col, fl);
			family[fl] = 0;
			rc = sbx_mutation_put(
				v[i], family, colon + 1, c->column.len - fl - 1,
				c->has_timestamp ? c->timestamp
						 : SBX_LATEST_TIMESTAMP,
				c->value.data, c->value.len);
		}
	}
	if (rc) {
		*why = rc == SBX_EPARSE ? "a row without a key or a cell "
					  "without family:qualifier"
					: sbx_errmsg();
		for (size_t i = 0; v && i < cs.nrows; i++)
			sbx_mutation_free(v[i]); /* calloc'd: unmade ones NULL */
		free(v);
	} else {
		*out = v;
		*n = cs.nrows;
	}
	rest_cellset_free(&cs);
	return rc;
}

int cmd_import(int argc, char **argv)
{
	xopts o;
	int rc = parse(argc, argv, &o, false);
	if (rc)
		return rc < 0 ? 0 : rc;
	sbx_db *db = cli_open_store(o.data, "saltbox");
	if (!db)
		return 1;
	FILE *f = strcmp(o.file, "-") ? fopen(o.file, "r") : stdin;
	sbx_table *t = NULL;
	if (!f) {
		fprintf(stderr, "saltbox: cannot read '%s': %s\n", o.file,
			strerror(errno));
		rc = 1;
	} else if (sbx_table_open(&t, db, o.table)) {
		fprintf(stderr, "saltbox: %s\n", sbx_errmsg());
		rc = 1;
	}
	char *buf = NULL;
	size_t cap = 0;
	ssize_t got;
	uint64_t lines = 0, bad = 0, rows = 0;
	char err[REST_ERR_LEN];
	while (!rc && (got = getline(&buf, &cap, f)) >= 0) {
		lines++;
		while (got > 0 && (buf[got - 1] == '\n' || buf[got - 1] == '\r'))
			buf[--got] = 0;
		if (got == 0)
			continue;
		sbx_mutation **ms;
		size_t n;
		const char *why = "";
		if (line_mutations(&o, buf, (size_t)got, &ms, &n, &why, err)) {
			fprintf(stderr, "saltbox import: bad line %" PRIu64
					": %s\n",
				lines, why);
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
	free(buf);
	if (f && f != stdin)
		fclose(f);
	sbx_table_close(t);
	if (!rc)
		fprintf(stderr, "import: %" PRIu64 " lines, %" PRIu64
				" bad lines, %" PRIu64 " mutations\n",
			lines, bad, rows);
	sbx_db_close(db);
	return rc;
}
