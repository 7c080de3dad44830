/*
 * cmd_ds.c - `saltbox ds`: the datastore's tools on an embedded store
 * (--data DIR) or a gateway (--connect URL).
 *
 *   saltbox ds tree (--data DIR | --connect URL) [--kinds N=Name,...]
 *                   TABLE (ROW | --root KIND:ID)
 *       print one row as its entity tree (docs/datastore.md): each
 *       entity's key and fields (by number: the command knows no
 *       schema), each collection's count and next id
 *
 * ROW is written as HBase prints bytes (\xHH escapes); --root KIND:ID
 * builds the default row key of a root with an integer id.
 */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

static int usage(FILE *out, int status)
{
	fprintf(out,
		"usage: saltbox ds tree (--data DIR | --connect URL) "
		"[--kinds N=Name,...]\n"
		"                       TABLE (ROW | --root KIND:ID)\n\n"
		"tree   print a row as its entity tree: keys, fields by "
		"number, and each\n"
		"       collection's count and next id\n"
		"ROW is written as HBase prints bytes (\\xHH escapes); "
		"--root 1:7 is the\n"
		"default row key of the root of kind 1 with id 7.\n");
	return status;
}

/* "1=Couple,3=Photo": view-only kinds, so the tree shows names */
static int add_kinds(sbx_ds *ds, const char *spec)
{
	char *copy = strdup(spec), *save = NULL;
	int rc = copy ? SBX_OK : SBX_ENOMEM;
	for (char *t = copy ? strtok_r(copy, ",", &save) : NULL;
	     rc == SBX_OK && t; t = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(t, '=');
		char *end = NULL;
		unsigned long k = eq ? strtoul(t, &end, 10) : 0;
		if (!eq || end != eq || k == 0 || k > 65535 || !eq[1]) {
			fprintf(stderr,
				"saltbox ds: --kinds wants N=Name,... with N "
				"1..65535, not '%s'\n",
				t);
			rc = SBX_EINVAL;
			break;
		}
		sbx_ds_kind_desc d = {(uint16_t)k, eq + 1, NULL, NULL, NULL};
		rc = sbx_ds_register_kind(ds, &d);
		if (rc)
			fprintf(stderr, "saltbox ds: %s\n", sbx_errmsg());
	}
	free(copy);
	return rc;
}

int cmd_ds(int argc, char **argv)
{
	const char *data = NULL, *url = NULL, *kinds = NULL, *root = NULL;
	const char *pos[3];
	int npos = 0;
	for (int i = 1; i < argc; i++) {
		const char *s = argv[i];
		if (!strcmp(s, "-h") || !strcmp(s, "--help"))
			return usage(stdout, 0);
		if (!strcmp(s, "--data") && i + 1 < argc)
			data = argv[++i];
		else if (!strcmp(s, "--connect") && i + 1 < argc)
			url = argv[++i];
		else if (!strcmp(s, "--kinds") && i + 1 < argc)
			kinds = argv[++i];
		else if (!strcmp(s, "--root") && i + 1 < argc)
			root = argv[++i];
		else if (s[0] == '-' && s[1]) {
			fprintf(stderr, "saltbox ds: unknown option '%s'\n", s);
			return usage(stderr, 2);
		} else if (npos < 3)
			pos[npos++] = s;
		else
			return usage(stderr, 2);
	}
	if (!data == !url || npos < 2 || strcmp(pos[0], "tree") ||
	    (npos == 3) == (root != NULL) || (npos == 2 && !root))
		return usage(stderr, 2);
	sbx_buf row = {0};
	if (root) {
		char *end;
		unsigned long k = strtoul(root, &end, 10);
		unsigned long long id = 0;
		if (*end == ':')
			id = strtoull(end + 1, &end, 10);
		sbx_ds_key *key = NULL;
		if (*end || k == 0 || k > 65535 ||
		    sbx_ds_key_root(&key, (uint16_t)k, id) ||
		    sbx_ds_key_encode_row(&row, key)) {
			fprintf(stderr,
				"saltbox ds: --root wants KIND:ID, e.g. 1:7\n");
			sbx_ds_key_free(key);
			return 2;
		}
		sbx_ds_key_free(key);
	} else if (sbx_key_from_binary_string(&row, pos[2], strlen(pos[2]))) {
		fprintf(stderr, "saltbox ds: ROW: %s\n", sbx_errmsg());
		return 2;
	}
	sbx_db *db = cli_open_store(data, data ? NULL : url, "saltbox ds");
	int status = 1;
	sbx_ds *ds = NULL;
	sbx_table *t = NULL;
	sbx_result *r = NULL;
	sbx_buf out = {0};
	if (!db)
		goto done;
	if (sbx_ds_open(&ds, db, pos[1], NULL) ||
	    (kinds && add_kinds(ds, kinds))) {
		fprintf(stderr, "saltbox ds: %s\n", sbx_errmsg());
		goto done;
	}
	sbx_column fam = {SBX_DS_FAMILY, NULL, 0};
	sbx_read_opts o;
	sbx_read_opts_init(&o);
	o.columns = &fam;
	o.ncolumns = 1;
	if (sbx_table_open(&t, db, pos[1]) ||
	    sbx_table_get(&r, t, row.data, row.len, &o)) {
		fprintf(stderr, "saltbox ds: %s\n", sbx_errmsg());
		goto done;
	}
	size_t n = 0;
	const sbx_cell *cells = sbx_result_cells(r, &n);
	if (n == 0) {
		fprintf(stderr, "saltbox ds: no such row in %s\n", pos[1]);
		goto done;
	}
	if (sbx_ds_format_row(&out, ds, cells, n)) {
		fprintf(stderr, "saltbox ds: %s\n", sbx_errmsg());
		goto done;
	}
	fwrite(out.data, 1, out.len, stdout);
	status = 0;
done:
	sbx_buf_free(&out);
	sbx_buf_free(&row);
	sbx_result_free(r);
	sbx_table_close(t);
	sbx_ds_close(ds);
	sbx_db_close(db);
	return status;
}
