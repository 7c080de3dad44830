/*
 * shell_args.c - turning parsed shell values into what the table API takes
 * (bytes, names, integers, flags, column selectors, filters), each with an
 * error that names the argument and what was expected.
 */
#include "shell.h"

#include "common/buf.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int shell_fail(shell *sh, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(sh->err, sizeof sh->err, fmt, ap);
	va_end(ap);
	return -1;
}

int shell_lib_fail(shell *sh, int rc, const char *what)
{
	const char *msg = sbx_errmsg();
	if (!msg || !*msg)
		msg = sbx_strerror(rc);
	if (what)
		return shell_fail(sh, "%s: %s", what, msg);
	return shell_fail(sh, "%s", msg);
}

void shell_set_ret(shell *sh, const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	sbx_buf_reset(&sh->ret);
	sh->has_ret = sbx_buf_append(&sh->ret, line, strlen(line) + 1) == 0;
}

int shell_bytes(shell *sh, const sbx_shell_value *v, const char *what,
		char num[24], const char **out, size_t *len)
{
	if (!v)
		return shell_fail(sh, "missing %s", what);
	if (v->type == SBX_SHV_INT) {
		snprintf(num, 24, "%" PRId64, v->num);
		*out = num;
		*len = strlen(num);
		return 0;
	}
	if (!sbx_shell_is_text(v))
		return shell_fail(sh, "%s must be a string, got %s", what,
				  sbx_shell_type_name(v));
	*out = v->str;
	*len = v->len;
	return 0;
}

int shell_text(shell *sh, const sbx_shell_value *v, const char *what,
	       const char **out)
{
	if (!v)
		return shell_fail(sh, "missing %s", what);
	if (!sbx_shell_is_text(v))
		return shell_fail(sh, "%s must be a string, got %s", what,
				  sbx_shell_type_name(v));
	if (strlen(v->str) != v->len)
		return shell_fail(sh, "%s must not contain a NUL byte", what);
	*out = v->str;
	return 0;
}

int shell_int(shell *sh, const sbx_shell_value *v, const char *what,
	      int64_t *out)
{
	if (!v)
		return shell_fail(sh, "missing %s", what);
	if (v->type == SBX_SHV_INT) {
		*out = v->num;
		return 0;
	}
	/* HBase accepts numeric attributes as strings too: VERSIONS => '3'. */
	if (v->type == SBX_SHV_STRING && v->len > 0 && v->len < 21) {
		char *end;
		errno = 0;
		long long n = strtoll(v->str, &end, 10);
		if (!errno && *end == 0) {
			*out = n;
			return 0;
		}
	}
	return shell_fail(sh, "%s must be an integer, got %s", what,
			  sbx_shell_type_name(v));
}

int shell_bool(shell *sh, const sbx_shell_value *v, const char *what, bool *out)
{
	if (!v)
		return shell_fail(sh, "missing %s", what);
	if (v->type == SBX_SHV_BOOL) {
		*out = v->num != 0;
		return 0;
	}
	if (v->type == SBX_SHV_STRING &&
	    (!strcasecmp(v->str, "true") || !strcasecmp(v->str, "false"))) {
		*out = !strcasecmp(v->str, "true");
		return 0;
	}
	return shell_fail(sh, "%s must be true or false, got %s", what,
			  sbx_shell_type_name(v));
}

int shell_check_keys(shell *sh, const sbx_shell_value *hash,
		     const char *const *allowed, const char *cmd)
{
	for (size_t i = 0; i + 1 < hash->n; i += 2) {
		const sbx_shell_value *k = &hash->items[i];
		if (!sbx_shell_is_text(k))
			return shell_fail(sh,
					  "%s: option names must be constants "
					  "or strings, got %s",
					  cmd, sbx_shell_type_name(k));
		bool ok = false;
		for (size_t j = 0; allowed[j] && !ok; j++)
			ok = !strcmp(k->str, allowed[j]);
		if (!ok) {
			char list[512] = "";
			for (size_t j = 0; allowed[j]; j++) {
				if (j)
					strncat(list, ", ",
						sizeof list - strlen(list) - 1);
				strncat(list, allowed[j],
					sizeof list - strlen(list) - 1);
			}
			return shell_fail(sh,
					  "%s: unknown option '%.64s' "
					  "(known: %s)",
					  cmd, k->str, list);
		}
	}
	return 0;
}

int shell_parse_column(shell *sh, const sbx_shell_value *v, shell_column *out)
{
	char num[24];
	const char *s = NULL;
	size_t len = 0;
	if (shell_bytes(sh, v, "column", num, &s, &len))
		return -1;
	const char *colon = memchr(s, ':', len);
	size_t flen = colon ? (size_t)(colon - s) : len;
	if (flen == 0)
		return shell_fail(sh, "column '%.*s' has no family name",
				  (int)(len > 64 ? 64 : len), s);
	if (flen > SBX_MAX_FAMILY_NAME)
		return shell_fail(sh, "family name longer than %d bytes",
				  SBX_MAX_FAMILY_NAME);
	if (memchr(s, 0, flen))
		return shell_fail(sh, "family name must not contain a NUL "
				      "byte");
	memcpy(out->family, s, flen);
	out->family[flen] = 0;
	out->format = SHELL_FMT_BINARY;
	if (colon) {
		out->qualifier = (const uint8_t *)colon + 1;
		out->qualifier_len = len - flen - 1;
	} else {
		out->qualifier = NULL;
		out->qualifier_len = 0;
	}
	return 0;
}

static int push_column(shell *sh, const sbx_shell_value *v, shell_column **cols,
		       size_t *n)
{
	shell_column *grown = realloc(*cols, (*n + 1) * sizeof **cols);
	if (!grown)
		return shell_fail(sh, "out of memory");
	*cols = grown;
	if (shell_parse_column(sh, v, &grown[*n]))
		return -1;
	(*n)++;
	return 0;
}

int shell_format_from_name(const char *name, size_t len)
{
	static const struct {
		const char *name;
		shell_format format;
	} names[] = {
	    {"toStringBinary", SHELL_FMT_BINARY},
	    {"toString", SHELL_FMT_STRING},
	    {"toLong", SHELL_FMT_LONG},
	    {"toInt", SHELL_FMT_INT},
	    {"toShort", SHELL_FMT_SHORT},
	    {"toFloat", SHELL_FMT_FLOAT},
	    {"toDouble", SHELL_FMT_DOUBLE},
	    {"toBoolean", SHELL_FMT_BOOLEAN},
	    {"toHex", SHELL_FMT_HEX},
	};
	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		if (strlen(names[i].name) == len &&
		    !memcmp(names[i].name, name, len))
			return (int)names[i].format;
	return -1;
}

/* 'cf:q:toLong': split off a known converter name after the last ':'. */
static void split_converter(shell_column *col)
{
	col->format = SHELL_FMT_BINARY;
	if (!col->qualifier)
		return;
	const uint8_t *q = col->qualifier;
	for (size_t i = col->qualifier_len; i-- > 0;) {
		if (q[i] != ':')
			continue;
		int f = shell_format_from_name((const char *)q + i + 1,
					       col->qualifier_len - i - 1);
		if (f >= 0) {
			col->format = (shell_format)f;
			col->qualifier_len = i;
		}
		return;
	}
}

int shell_columns(shell *sh, const sbx_shell_value *v, shell_column **cols,
		  size_t *n)
{
	size_t first = *n;
	if (v->type != SBX_SHV_ARRAY) {
		if (push_column(sh, v, cols, n))
			return -1;
	} else {
		for (size_t i = 0; i < v->n; i++)
			if (push_column(sh, &v->items[i], cols, n))
				return -1;
	}
	for (size_t i = first; i < *n; i++)
		split_converter(&(*cols)[i]);
	return 0;
}

int shell_open_table(shell *sh, const sbx_shell_value *name, sbx_table **t)
{
	const char *s = NULL;
	if (shell_text(sh, name, "table name", &s))
		return -1;
	int rc = sbx_table_open(t, sh->db, s);
	if (rc) {
		*t = NULL;
		return shell_lib_fail(sh, rc, NULL);
	}
	return 0;
}

/* FILTER => "PrefixFilter('a') AND ..." through HBase's filter language. */
int shell_filter(shell *sh, const sbx_shell_value *v, sbx_filter **out)
{
	*out = NULL;
	if (!v)
		return 0;
	if (v->type != SBX_SHV_STRING)
		return shell_fail(sh,
				  "FILTER must be a filter string such as "
				  "\"PrefixFilter('a')\", got %s",
				  sbx_shell_type_name(v));
	size_t pos = 0;
	int rc = sbx_filter_parse(out, v->str, v->len, &pos);
	if (rc) {
		*out = NULL;
		return shell_lib_fail(sh, rc, "FILTER");
	}
	return 0;
}
