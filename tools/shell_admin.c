/*
 * shell_admin.c - the shell's schema and maintenance commands: create,
 * alter, describe, list, exists, enable/disable, drop, truncate, flush,
 * major_compact and the namespace commands. Family
 * attributes are read from HBase's hash syntax in one place (apply_attrs).
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "shell.h"

#include "common/buf.h"

#include <inttypes.h>
#include <pcre2.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* One attribute of a family hash applied to *f through the library's
 * text setter; NAME/METHOD are handled by the callers. Attributes HBase
 * has that Saltbox does not model are accepted with a note so HBase
 * scripts run, never silently. */
static int apply_attr(shell *sh, const char *key, const sbx_shell_value *v,
		      sbx_family_desc *f)
{
	sbx_family_attr cur;
	int rc = sbx_family_desc_get(&cur, f, key);
	if (rc == SBX_EUNSUPPORTED) {
		fprintf(sh->out,
			"NOTE: family attribute %s is not supported by "
			"saltbox and was ignored\n",
			key);
		return 0;
	}
	if (rc)
		return shell_lib_fail(sh, rc, NULL);
	char num[24];
	const char *text;
	if (v->type == SBX_SHV_INT) {
		snprintf(num, sizeof num, "%lld", (long long)v->num);
		text = num;
	} else if (v->type == SBX_SHV_BOOL) {
		text = v->num ? "true" : "false";
	} else if (shell_text(sh, v, key, &text)) {
		return -1;
	}
	rc = sbx_family_desc_set(f, key, text);
	return rc ? shell_lib_fail(sh, rc, NULL) : 0;
}

static int apply_attrs(shell *sh, const sbx_shell_value *hash,
		       sbx_family_desc *f)
{
	for (size_t i = 0; i + 1 < hash->n; i += 2) {
		const sbx_shell_value *k = &hash->items[i];
		if (!sbx_shell_is_text(k))
			return shell_fail(sh, "attribute names must be "
					      "constants or strings");
		if (!strcmp(k->str, "NAME") || !strcmp(k->str, "METHOD"))
			continue;
		if (apply_attr(sh, k->str, &hash->items[i + 1], f))
			return -1;
	}
	return 0;
}

static int family_name(shell *sh, const sbx_shell_value *v, const char **out)
{
	if (shell_text(sh, v, "column family name", out))
		return -1;
	if (strlen(*out) > SBX_MAX_FAMILY_NAME)
		return shell_fail(sh,
				  "column family name '%.64s...' is longer "
				  "than %d bytes",
				  *out, SBX_MAX_FAMILY_NAME);
	return 0;
}

static int new_family(shell *sh, const char *name, sbx_family_desc *f)
{
	int rc = sbx_family_desc_init(f, name);
	return rc ? shell_lib_fail(sh, rc, NULL) : 0;
}

/* create 't', 'cf' | {NAME => 'cf', ...} ... [, {SPLITS => [...], ...}] */
int shell_cmd_create(shell *sh, const sbx_shell_cmd *c)
{
	const char *table;
	if (shell_text(sh, &c->args[0], "table name", &table))
		return -1;
	sbx_family_desc *fams = calloc(c->nargs, sizeof *fams);
	size_t nf = 0;
	int ret = -1;
	shell_table_setup ts;
	shell_table_setup_init(&ts);
	if (!fams)
		return shell_fail(sh, "out of memory");
	for (size_t i = 1; i < c->nargs; i++) {
		const sbx_shell_value *a = &c->args[i];
		const char *name;
		const sbx_shell_value *nv = sbx_shell_hash_get(a, "NAME");
		if (a->type == SBX_SHV_HASH && !nv) {
			for (size_t k = 0; k + 1 < a->n; k += 2) {
				if (!sbx_shell_is_text(&a->items[k])) {
					shell_fail(sh, "table attribute names "
						       "must be constants or "
						       "strings");
					goto out;
				}
				if (shell_table_attr(sh, a->items[k].str,
						     &a->items[k + 1], &ts))
					goto out;
			}
			continue;
		}
		if (family_name(sh, a->type == SBX_SHV_HASH ? nv : a, &name) ||
		    new_family(sh, name, &fams[nf]) ||
		    (a->type == SBX_SHV_HASH && apply_attrs(sh, a, &fams[nf])))
			goto out;
		nf++;
	}
	if (nf == 0) {
		shell_fail(sh,
			   "create needs at least one column family, e.g. "
			   "create '%s', 'cf'",
			   table);
		goto out;
	}
	if (shell_create_table(sh, table, fams, nf, &ts))
		goto out;
	fprintf(sh->out, "Created table %s\n", table);
	shell_set_ret(sh, "Hbase::Table - %s", table);
	ret = 0;
out:
	shell_table_setup_free(&ts);
	free(fams);
	return ret;
}

/* As HBase's alter_status: every region of the table counted (a backend
 * without regions has the one). */
static void print_schema_update(shell *sh, const char *table)
{
	sbx_region_info *r;
	size_t n = 1;
	if (sbx_table_regions(&r, &n, sh->db, table) == SBX_OK)
		sbx_region_infos_free(r, n);
	else
		n = 1;
	if (n == 0)
		n = 1;
	fprintf(sh->out, "Updating all regions with the new schema...\n"
			 "%zu/%zu regions updated.\nDone.\n", n, n);
}

static int alter_delete(shell *sh, const char *table,
			const sbx_shell_value *family)
{
	const char *name;
	if (family_name(sh, family, &name))
		return -1;
	int rc = sbx_table_delete_family(sh->db, table, name);
	if (rc)
		return shell_lib_fail(sh, rc, NULL);
	print_schema_update(sh, table);
	return 0;
}

/* Add `name` (from defaults) or modify it starting from its current
 * attributes, as HBase's alter does; `hash` may be NULL. */
static int alter_family(shell *sh, const char *table,
			const sbx_table_info *info, const char *name,
			const sbx_shell_value *hash)
{
	sbx_family_desc f;
	bool found = false;
	for (size_t i = 0; i < info->nfamilies && !found; i++)
		if (!strcmp(info->families[i].name, name)) {
			f = info->families[i];
			found = true;
		}
	if (!found && new_family(sh, name, &f))
		return -1;
	if (hash && apply_attrs(sh, hash, &f))
		return -1;
	int rc = sbx_table_alter_family(sh->db, table, &f);
	if (rc)
		return shell_lib_fail(sh, rc, NULL);
	print_schema_update(sh, table);
	return 0;
}

static int alter_one(shell *sh, const char *table, const sbx_shell_value *a)
{
	sbx_table_info *info = NULL;
	int rc = sbx_table_describe(&info, sh->db, table);
	if (rc)
		return shell_lib_fail(sh, rc, NULL);
	const char *name;
	int ret = -1;
	if (a->type != SBX_SHV_HASH) {
		if (!family_name(sh, a, &name))
			ret = alter_family(sh, table, info, name, NULL);
		goto out;
	}
	const sbx_shell_value *nv = sbx_shell_hash_get(a, "NAME");
	const sbx_shell_value *method = sbx_shell_hash_get(a, "METHOD");
	const sbx_shell_value *del = sbx_shell_hash_get(a, "delete");
	if (del && !nv) {
		ret = alter_delete(sh, table, del);
	} else if (nv && method) {
		const char *m;
		if (shell_text(sh, method, "METHOD", &m))
			goto out;
		if (strcmp(m, "delete")) {
			shell_fail(sh,
				   "alter: METHOD '%.64s' is not supported "
				   "with NAME (use METHOD => 'delete')",
				   m);
			goto out;
		}
		ret = alter_delete(sh, table, nv);
	} else if (nv) {
		if (!family_name(sh, nv, &name))
			ret = alter_family(sh, table, info, name, a);
	} else {
		ret = shell_alter_table_attrs(sh, table, a);
	}
out:
	sbx_table_info_free(info);
	return ret;
}

int shell_cmd_alter(shell *sh, const sbx_shell_cmd *c)
{
	const char *table;
	if (shell_text(sh, &c->args[0], "table name", &table))
		return -1;
	if (c->nargs < 2)
		return shell_fail(sh,
				  "alter needs a change, e.g. alter '%s', "
				  "NAME => 'cf', VERSIONS => 3",
				  table);
	for (size_t i = 1; i < c->nargs; i++)
		if (alter_one(sh, table, &c->args[i]))
			return -1;
	return 0;
}

/* As HBase's describe: every attribute, TTL in words. */
static void print_family(shell *sh, const sbx_family_desc *f)
{
	fprintf(sh->out, "{NAME => '%s'", f->name);
	sbx_family_attr a;
	for (size_t i = 0; sbx_family_desc_attr(&a, f, i) == SBX_OK; i++) {
		char ttl[96];
		if (!strcmp(a.name, "TTL"))
			shell_format_ttl(ttl, sizeof ttl, f->ttl_seconds);
		fprintf(sh->out, ", %s => '%s'", a.name,
			strcmp(a.name, "TTL") ? a.value : ttl);
	}
	fprintf(sh->out, "}\n");
}

int shell_cmd_describe(shell *sh, const sbx_shell_cmd *c)
{
	const char *table;
	sbx_table_info *info;
	if (shell_text(sh, &c->args[0], "table name", &table))
		return -1;
	int rc = sbx_table_describe(&info, sh->db, table);
	if (rc)
		return shell_lib_fail(sh, rc, NULL);
	fprintf(sh->out, "Table %s is %s\n%s\nCOLUMN FAMILIES DESCRIPTION\n",
		info->name, info->enabled ? "ENABLED" : "DISABLED", info->name);
	for (size_t i = 0; i < info->nfamilies; i++)
		print_family(sh, &info->families[i]);
	fprintf(sh->out, "%zu row(s)\n", info->nfamilies);
	sbx_table_info_free(info);
	return 0;
}

/* Keep the names fully matching `pattern` (Java's Pattern.matches). */
static int filter_names(shell *sh, char **names, const sbx_shell_value *pat)
{
	const char *p;
	if (!pat)
		return 0;
	if (shell_text(sh, pat, "name pattern", &p))
		return -1;
	int errcode;
	PCRE2_SIZE erroff;
	pcre2_code *re = pcre2_compile((PCRE2_SPTR)p, PCRE2_ZERO_TERMINATED,
				       PCRE2_ANCHORED | PCRE2_ENDANCHORED,
				       &errcode, &erroff, NULL);
	if (!re) {
		PCRE2_UCHAR msg[256];
		pcre2_get_error_message(errcode, msg, sizeof msg);
		return shell_fail(sh,
				  "bad regular expression '%.64s' at %zu: "
				  "%s",
				  p, (size_t)erroff, (char *)msg);
	}
	pcre2_match_data *md = pcre2_match_data_create_from_pattern(re, NULL);
	size_t keep = 0;
	for (size_t i = 0; names[i]; i++) {
		if (md &&
		    pcre2_match(re, (PCRE2_SPTR)names[i], PCRE2_ZERO_TERMINATED,
				0, 0, md, NULL) >= 0)
			names[keep++] = names[i];
		else
			free(names[i]);
	}
	names[keep] = NULL;
	pcre2_match_data_free(md);
	pcre2_code_free(re);
	return 0;
}

/* HEADER, one name per line, "N row(s)", and => ["a", "b"]. */
static void print_names(shell *sh, const char *header, char **names)
{
	size_t n = 0;
	fprintf(sh->out, "%s\n", header);
	sbx_buf_reset(&sh->ret);
	int rc = sbx_buf_push(&sh->ret, '[');
	for (; names[n]; n++) {
		fprintf(sh->out, "%s\n", names[n]);
		if (!rc && n)
			rc = sbx_buf_append(&sh->ret, ", ", 2);
		if (!rc)
			rc = sbx_buf_push(&sh->ret, '"');
		if (!rc)
			rc = sbx_buf_append(&sh->ret, names[n],
					    strlen(names[n]));
		if (!rc)
			rc = sbx_buf_push(&sh->ret, '"');
	}
	if (!rc)
		rc = sbx_buf_append(&sh->ret, "]", 2);
	sh->has_ret = rc == 0;
	fprintf(sh->out, "%zu row(s)\n", n);
}

/* list and list_namespace: the names, kept by the optional regex. */
static int list_names(shell *sh, const sbx_shell_cmd *c,
		      int (*lister)(char ***, sbx_db *), const char *header)
{
	char **names;
	int rc = lister(&names, sh->db);
	if (rc)
		return shell_lib_fail(sh, rc, NULL);
	if (filter_names(sh, names, c->nargs ? &c->args[0] : NULL)) {
		sbx_strv_free(names);
		return -1;
	}
	print_names(sh, header, names);
	sbx_strv_free(names);
	return 0;
}

int shell_cmd_list(shell *sh, const sbx_shell_cmd *c)
{
	return list_names(sh, c, sbx_table_list, "TABLE");
}

int shell_cmd_exists(shell *sh, const sbx_shell_cmd *c)
{
	const char *table;
	bool exists;
	if (shell_text(sh, &c->args[0], "table name", &table))
		return -1;
	int rc = sbx_table_exists(&exists, sh->db, table);
	if (rc)
		return shell_lib_fail(sh, rc, NULL);
	fprintf(sh->out, "Table %s does %sexist\n", table,
		exists ? "" : "not ");
	shell_set_ret(sh, "%s", exists ? "true" : "false");
	return 0;
}

/* The commands that take one name (`what`: "table name", "snapshot
 * name") and call one library function. */
int shell_name_op(shell *sh, const sbx_shell_cmd *c, const char *what,
		  int (*op)(sbx_db *, const char *))
{
	const char *name;
	if (shell_text(sh, &c->args[0], what, &name))
		return -1;
	int rc = op(sh->db, name);
	return rc ? shell_lib_fail(sh, rc, NULL) : 0;
}

static int table_op(shell *sh, const sbx_shell_cmd *c,
		    int (*op)(sbx_db *, const char *))
{
	return shell_name_op(sh, c, "table name", op);
}

int shell_cmd_disable(shell *sh, const sbx_shell_cmd *c)
{
	return table_op(sh, c, sbx_table_disable);
}

int shell_cmd_enable(shell *sh, const sbx_shell_cmd *c)
{
	return table_op(sh, c, sbx_table_enable);
}

int shell_cmd_drop(shell *sh, const sbx_shell_cmd *c)
{
	return table_op(sh, c, sbx_table_drop);
}

int shell_cmd_flush(shell *sh, const sbx_shell_cmd *c)
{
	return table_op(sh, c, sbx_table_flush);
}

int shell_cmd_major_compact(shell *sh, const sbx_shell_cmd *c)
{
	return table_op(sh, c, sbx_table_major_compact);
}

/* truncate drops the data and, as HBase's, the pre-splits (the empty
 * table is one region again); truncate_preserve keeps the regions. */
static int truncate_table(shell *sh, const sbx_shell_cmd *c, bool preserve)
{
	const char *table;
	if (shell_text(sh, &c->args[0], "table name", &table))
		return -1;
	fprintf(sh->out, "Truncating '%s' table (it may take a while):\n",
		table);
	int rc = sbx_table_truncate(sh->db, table);
	if (rc)
		return shell_lib_fail(sh, rc, NULL);
	sbx_region_info *r;
	size_t n;
	if (!preserve && !(rc = sbx_table_regions(&r, &n, sh->db, table))) {
		sbx_region_infos_free(r, n);
		for (size_t i = 1; !rc && i < n; i++)
			rc = sbx_table_merge(sh->db, table, "", 0);
	}
	if (rc)
		return shell_lib_fail(sh, rc, NULL);
	fprintf(sh->out, "Truncating table...\n");
	return 0;
}

int shell_cmd_truncate(shell *sh, const sbx_shell_cmd *c)
{
	return truncate_table(sh, c, false);
}

int shell_cmd_truncate_preserve(shell *sh, const sbx_shell_cmd *c)
{
	return truncate_table(sh, c, true);
}

static int enabled_query(shell *sh, const sbx_shell_cmd *c, bool want)
{
	const char *table;
	bool enabled;
	if (shell_text(sh, &c->args[0], "table name", &table))
		return -1;
	int rc = sbx_table_is_enabled(&enabled, sh->db, table);
	if (rc)
		return shell_lib_fail(sh, rc, NULL);
	const char *answer = enabled == want ? "true" : "false";
	fprintf(sh->out, "%s\n", answer);
	shell_set_ret(sh, "%s", answer);
	return 0;
}

int shell_cmd_is_enabled(shell *sh, const sbx_shell_cmd *c)
{
	return enabled_query(sh, c, true);
}

int shell_cmd_is_disabled(shell *sh, const sbx_shell_cmd *c)
{
	return enabled_query(sh, c, false);
}

static int namespace_arg(shell *sh, const sbx_shell_cmd *c, const char **ns)
{
	if (shell_text(sh, &c->args[0], "namespace name", ns))
		return -1;
	if (c->nargs > 1)
		fprintf(sh->out, "NOTE: namespace properties are not "
				 "supported by saltbox and were ignored\n");
	return 0;
}

int shell_cmd_create_namespace(shell *sh, const sbx_shell_cmd *c)
{
	const char *ns;
	if (namespace_arg(sh, c, &ns))
		return -1;
	int rc = sbx_namespace_create(sh->db, ns);
	return rc ? shell_lib_fail(sh, rc, NULL) : 0;
}

int shell_cmd_drop_namespace(shell *sh, const sbx_shell_cmd *c)
{
	const char *ns;
	if (shell_text(sh, &c->args[0], "namespace name", &ns))
		return -1;
	int rc = sbx_namespace_drop(sh->db, ns);
	return rc ? shell_lib_fail(sh, rc, NULL) : 0;
}

static int namespace_exists(shell *sh, const char *ns, bool *found)
{
	char **spaces;
	int rc = sbx_namespace_list(&spaces, sh->db);
	if (rc)
		return shell_lib_fail(sh, rc, NULL);
	*found = false;
	for (size_t i = 0; spaces[i]; i++)
		*found = *found || !strcmp(spaces[i], ns);
	sbx_strv_free(spaces);
	return 0;
}

int shell_cmd_describe_namespace(shell *sh, const sbx_shell_cmd *c)
{
	const char *ns;
	bool found = false;
	if (shell_text(sh, &c->args[0], "namespace name", &ns) ||
	    namespace_exists(sh, ns, &found))
		return -1;
	if (!found)
		return shell_fail(sh, "namespace '%s' does not exist", ns);
	fprintf(sh->out, "DESCRIPTION\n{NAME => '%s'}\n", ns);
	return 0;
}

int shell_cmd_list_namespace(shell *sh, const sbx_shell_cmd *c)
{
	return list_names(sh, c, sbx_namespace_list, "NAMESPACE");
}

int shell_cmd_list_namespace_tables(shell *sh, const sbx_shell_cmd *c)
{
	const char *ns;
	char **tables;
	bool found = false;
	if (shell_text(sh, &c->args[0], "namespace name", &ns) ||
	    namespace_exists(sh, ns, &found))
		return -1;
	if (!found)
		return shell_fail(sh, "namespace '%s' does not exist", ns);
	int rc = sbx_table_list(&tables, sh->db);
	if (rc)
		return shell_lib_fail(sh, rc, NULL);
	size_t keep = 0, nslen = strlen(ns);
	bool is_default = !strcmp(ns, "default");
	for (size_t i = 0; tables[i]; i++) {
		char *t = tables[i];
		char *colon = strchr(t, ':');
		bool mine = is_default
				? !colon
				: (colon && (size_t)(colon - t) == nslen &&
				   !strncmp(t, ns, nslen));
		if (mine) {
			if (colon)
				memmove(t, colon + 1, strlen(colon + 1) + 1);
			tables[keep++] = t;
		} else {
			free(t);
		}
	}
	tables[keep] = NULL;
	print_names(sh, "TABLE", tables);
	sbx_strv_free(tables);
	return 0;
}
