/*
 * cmd_bulk.c - `saltbox importtsv` and `saltbox completebulkload`, HBase's
 * ImportTsv and LoadIncrementalHFiles tools on an embedded store.
 *
 *   saltbox importtsv --data DIR -Dimporttsv.columns=HBASE_ROW_KEY,cf:a,...
 *       [-Dimporttsv.separator=C] [-Dimporttsv.timestamp=MS]
 *       [-Dimporttsv.bulk.output=OUTDIR] TABLE FILE
 *   saltbox completebulkload --data DIR OUTDIR TABLE
 *
 * Without bulk.output every line becomes a put (batched). With it the lines
 * are sorted by row in memory and written as store files under OUTDIR for
 * completebulkload, as ImportTsv's HFileOutputFormat2 mode. Lines with the
 * wrong number of fields, an empty row key or a bad HBASE_TS_KEY are bad
 * lines: counted, reported and skipped, as ImportTsv does by default. The
 * column spec and the line splitting are the library's (io/importtsv.h).
 */
#include "cli.h"

#include "common/buf.h"
#include "common/bytes.h"
#include "io/importtsv.h"
#include "saltbox.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BATCH 256

typedef struct tsv_opts {
	const char *data, *columns, *out, *table, *file;
	char sep;
	int64_t ts;
	io_tsv_spec spec;
} tsv_opts;

/* One input line, split in place (io/importtsv.h). */
typedef struct line {
	char *text;
	io_tsv_line f;
	uint64_t no;
} line;

static int fail(const char *fmt, const char *what)
{
	fprintf(stderr, "saltbox: ");
	fprintf(stderr, fmt, what);
	fputc('\n', stderr);
	return 1;
}

static int usage_to(FILE *out, int status)
{
	fprintf(out,
		"usage: saltbox importtsv --data DIR "
		"-Dimporttsv.columns=HBASE_ROW_KEY,cf:a,...\n"
		"           [-Dimporttsv.separator=C] "
		"[-Dimporttsv.timestamp=MS]\n"
		"           [-Dimporttsv.bulk.output=OUTDIR] TABLE FILE\n"
		"       saltbox completebulkload --data DIR OUTDIR TABLE\n"
		"Columns: HBASE_ROW_KEY (once), HBASE_TS_KEY (at most once), "
		"family:qualifier\nor family (empty qualifier). The separator "
		"defaults to a tab.\n");
	return status;
}

static int usage(void)
{
	return usage_to(stderr, 2);
}

static bool help_asked(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			return true;
	return false;
}

static int parse_args(int argc, char **argv, tsv_opts *o)
{
	memset(o, 0, sizeof *o);
	o->sep = '\t';
	o->ts = SBX_LATEST_TIMESTAMP;
	const char *pos[2];
	int npos = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--data") && i + 1 < argc) {
			o->data = argv[++i];
		} else if (!strncmp(a, "-Dimporttsv.columns=", 20)) {
			o->columns = a + 20;
		} else if (!strncmp(a, "-Dimporttsv.separator=", 22)) {
			if (strlen(a + 22) != 1)
				return fail("importtsv.separator must be one "
					    "byte, got '%s'",
					    a + 22);
			o->sep = a[22];
		} else if (!strncmp(a, "-Dimporttsv.timestamp=", 22)) {
			char *end;
			errno = 0;
			long long v = strtoll(a + 22, &end, 10);
			if (errno || *end || end == a + 22 || v < 0)
				return fail("bad importtsv.timestamp '%s'",
					    a + 22);
			o->ts = v;
		} else if (!strncmp(a, "-Dimporttsv.bulk.output=", 24)) {
			o->out = a + 24;
		} else if (a[0] == '-') {
			return usage();
		} else if (npos < 2) {
			pos[npos++] = a;
		} else {
			return usage();
		}
	}
	if (!o->data || !o->columns || npos != 2)
		return usage();
	o->table = pos[0];
	o->file = pos[1];
	return io_tsv_spec_parse(&o->spec, o->columns, o->sep, o->ts)
		       ? fail("%s", sbx_errmsg())
		       : 0;
}

static int cmp_line(const void *a, const void *b)
{
	const line *x = a, *y = b;
	int c = sbx_bytes_cmp(x->f.row, x->f.row_len, y->f.row, y->f.row_len);
	return c ? c : (x->no > y->no) - (x->no < y->no);
}

/* One cell of a row being written in bulk. */
typedef struct bcell {
	const io_tsv_column *col;
	const char *val;
	size_t val_len;
	int64_t ts;
	uint64_t no;
} bcell;

static int cmp_bcell(const void *a, const void *b)
{
	const bcell *x = a, *y = b;
	int c = strcmp(x->col->family, y->col->family);
	if (c)
		return c;
	c = sbx_bytes_cmp(x->col->qual, x->col->qual_len, y->col->qual,
			  y->col->qual_len);
	if (!c) /* newest first */
		c = (x->ts < y->ts) - (x->ts > y->ts);
	if (!c) /* then input order: line, then field (one columns array) */
		c = (x->no > y->no) - (x->no < y->no);
	return c ? c : (x->col > y->col) - (x->col < y->col);
}

static bool same_column(const io_tsv_column *a, const io_tsv_column *b)
{
	return !strcmp(a->family, b->family) && a->qual_len == b->qual_len &&
	       (a->qual_len == 0 || !memcmp(a->qual, b->qual, a->qual_len));
}

/* Lines sorted by row; one row's cells in HBase order, a later line's
 * value winning at the same column and timestamp (as puts would). */
static int write_bulk(const tsv_opts *o, sbx_db *db, line *lines, size_t n,
		      uint64_t *cells)
{
	sbx_bulk_writer *w;
	if (sbx_bulk_writer_open(&w, db, o->table, o->out))
		return fail("%s", sbx_errmsg());
	qsort(lines, n, sizeof *lines, cmp_line);
	bcell *cs = malloc((o->spec.ncols * (n ? n : 1)) * sizeof *cs);
	if (!cs) {
		sbx_bulk_writer_abort(w);
		return fail("%s", "out of memory");
	}
	int rc = 0;
	for (size_t i = 0; !rc && i < n;) {
		size_t j = i, nc = 0;
		for (; j < n && lines[j].f.row_len == lines[i].f.row_len &&
		       !memcmp(lines[j].f.row, lines[i].f.row, lines[i].f.row_len);
		     j++)
			for (size_t k = 0; k < o->spec.ncols; k++)
				if (o->spec.cols[k].kind == IO_TSV_CELL)
					cs[nc++] = (bcell){&o->spec.cols[k],
							   lines[j].f.field[k],
							   lines[j].f.len[k],
							   lines[j].f.ts,
							   lines[j].no};
		qsort(cs, nc, sizeof *cs, cmp_bcell);
		for (size_t k = 0; !rc && k < nc; k++) {
			if (k + 1 < nc && cs[k].ts == cs[k + 1].ts &&
			    same_column(cs[k].col, cs[k + 1].col))
				continue; /* a later line (or column) has it */
			if (sbx_bulk_writer_put(w, lines[i].f.row,
						lines[i].f.row_len,
						cs[k].col->family, cs[k].col->qual,
						cs[k].col->qual_len, cs[k].ts,
						cs[k].val, cs[k].val_len))
				rc = fail("%s", sbx_errmsg());
		}
		i = j;
	}
	free(cs);
	*cells = sbx_bulk_writer_count(w);
	if (rc) {
		sbx_bulk_writer_abort(w);
		return rc;
	}
	if (sbx_bulk_writer_finish(w))
		return fail("%s", sbx_errmsg());
	return 0;
}

/* Put each line as a mutation, BATCH rows per call. */
static int write_puts(const tsv_opts *o, sbx_table *t, line *lines, size_t n,
		      uint64_t *cells)
{
	sbx_mutation *ms[BATCH];
	int st[BATCH];
	int rc = 0;
	for (size_t i = 0; !rc && i < n; i += BATCH) {
		size_t nb = n - i < BATCH ? n - i : BATCH, k = 0;
		for (; !rc && k < nb; k++) {
			const io_tsv_line *l = &lines[i + k].f;
			if (sbx_mutation_new(&ms[k], l->row, l->row_len))
				rc = fail("%s", sbx_errmsg());
			for (size_t c = 0; !rc && c < o->spec.ncols; c++) {
				const io_tsv_column *col = &o->spec.cols[c];
				if (col->kind != IO_TSV_CELL)
					continue;
				if (sbx_mutation_put(ms[k], col->family,
						     col->qual, col->qual_len,
						     l->ts, l->field[c],
						     l->len[c]))
					rc = fail("%s", sbx_errmsg());
				else
					(*cells)++;
			}
		}
		if (!rc && sbx_table_batch(st, t, ms, nb))
			rc = fail("%s", sbx_errmsg());
		for (size_t m = 0; m < k; m++)
			sbx_mutation_free(ms[m]);
	}
	return rc;
}

/* Every family the columns name must be the table's. */
static int check_families(const tsv_opts *o, sbx_db *db)
{
	sbx_table_info *info;
	if (sbx_table_describe(&info, db, o->table))
		return fail("%s", sbx_errmsg());
	int rc = 0;
	for (size_t i = 0; !rc && i < o->spec.ncols; i++) {
		if (o->spec.cols[i].kind != IO_TSV_CELL)
			continue;
		bool found = false;
		for (size_t f = 0; f < info->nfamilies; f++)
			found = found ||
				!strcmp(info->families[f].name, o->spec.cols[i].family);
		if (!found)
			rc = fail("table has no family '%s'", o->spec.cols[i].family);
	}
	sbx_table_info_free(info);
	return rc;
}

static int read_lines(const tsv_opts *o, line **out, size_t *n,
		      uint64_t *read, uint64_t *bad)
{
	FILE *f = strcmp(o->file, "-") ? fopen(o->file, "r") : stdin;
	if (!f)
		return fail("cannot open '%s'", o->file);
	line *v = NULL;
	size_t cap = 0;
	char *buf = NULL;
	size_t bcap = 0;
	ssize_t got;
	int rc = 0;
	while (!rc && (got = getline(&buf, &bcap, f)) >= 0) {
		(*read)++;
		while (got > 0 && (buf[got - 1] == '\n' || buf[got - 1] == '\r'))
			buf[--got] = 0;
		if (*n == cap) {
			cap = cap ? 2 * cap : 1024;
			line *nv = realloc(v, cap * sizeof *nv);
			if (!nv) {
				rc = fail("%s", "out of memory");
				break;
			}
			v = nv;
		}
		line *l = &v[*n];
		l->text = strdup(buf);
		l->f.field = calloc(o->spec.ncols, sizeof *l->f.field);
		l->f.len = calloc(o->spec.ncols, sizeof *l->f.len);
		l->no = *read;
		if (!l->text || !l->f.field || !l->f.len) {
			free(l->text);
			free(l->f.field);
			free(l->f.len);
			rc = fail("%s", "out of memory");
		} else if (!io_tsv_line_split(&l->f, &o->spec, l->text)) {
			/* as HBase prints bytes: the line may be binary */
			sbx_buf esc = {0};
			int erc = sbx_key_to_binary_string(
				&esc, (const uint8_t *)buf, (size_t)got);
			fprintf(stderr, "saltbox importtsv: bad line %" PRIu64
					": %.*s\n",
				*read, erc ? 0 : (int)esc.len,
				erc ? "" : (const char *)esc.data);
			sbx_buf_free(&esc);
			(*bad)++;
			free(l->text);
			free(l->f.field);
			free(l->f.len);
		} else {
			(*n)++;
		}
	}
	free(buf);
	if (f != stdin)
		fclose(f);
	*out = v;
	return rc;
}

static void free_lines(line *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].text);
		free(v[i].f.field);
		free(v[i].f.len);
	}
	free(v);
}

int cmd_importtsv(int argc, char **argv)
{
	if (help_asked(argc, argv))
		return usage_to(stdout, 0);
	tsv_opts o;
	int rc = parse_args(argc, argv, &o);
	if (rc) {
		io_tsv_spec_free(&o.spec);
		return rc;
	}
	sbx_db *db = cli_open_store(o.data, NULL, "saltbox");
	if (!db) {
		io_tsv_spec_free(&o.spec);
		return 1;
	}
	line *lines = NULL;
	size_t n = 0;
	uint64_t nread = 0, bad = 0, cells = 0;
	rc = check_families(&o, db);
	if (!rc)
		rc = read_lines(&o, &lines, &n, &nread, &bad);
	if (!rc && o.out) {
		rc = write_bulk(&o, db, lines, n, &cells);
	} else if (!rc) {
		sbx_table *t;
		if (sbx_table_open(&t, db, o.table))
			rc = fail("%s", sbx_errmsg());
		else
			rc = write_puts(&o, t, lines, n, &cells);
		if (!rc)
			sbx_table_close(t);
	}
	if (!rc)
		printf("ImportTsv: %" PRIu64 " lines read, %" PRIu64
		       " bad lines, %" PRIu64 " cells %s\n",
		       nread, bad, cells,
		       o.out ? "written for completebulkload" : "put");
	if (!rc && o.out)
		printf("next: saltbox completebulkload --data %s %s %s\n",
		       o.data, o.out, o.table);
	free_lines(lines, n);
	io_tsv_spec_free(&o.spec);
	sbx_db_close(db);
	return rc;
}

int cmd_completebulkload(int argc, char **argv)
{
	if (help_asked(argc, argv))
		return usage_to(stdout, 0);
	const char *data = NULL, *pos[2];
	int npos = 0;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--data") && i + 1 < argc)
			data = argv[++i];
		else if (argv[i][0] == '-' || npos == 2)
			return usage();
		else
			pos[npos++] = argv[i];
	}
	if (!data || npos != 2)
		return usage();
	sbx_db *db = cli_open_store(data, NULL, "saltbox");
	if (!db)
		return 1;
	int rc = sbx_table_bulk_load(db, pos[1], pos[0]);
	if (rc)
		rc = fail("%s", sbx_errmsg());
	else
		printf("loaded the files under %s into %s\n", pos[0], pos[1]);
	sbx_db_close(db);
	return rc;
}
