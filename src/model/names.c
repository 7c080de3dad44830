/*
 * names.c - name validation as HBase's TableName and ColumnFamilyDescriptor
 * do it: namespaces [A-Za-z0-9_]+, table qualifiers [A-Za-z0-9_.-]+ not
 * starting with '.' or '-', families printable without ':', '/' or '\\',
 * not starting with '.' and not "recovered.edits". Names never become
 * file-system paths (tables map to numbered RocksDB column families), but
 * they are still checked strictly.
 */
#include "model/names.h"

#include "common/error.h"
#include "saltbox/db.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

static bool ns_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_';
}

int names_check_namespace(const char *ns)
{
	size_t n = ns ? strlen(ns) : 0;
	if (n == 0)
		return sbx_error_set(SBX_EINVAL, "namespace name is empty");
	if (n > SBX_MAX_TABLE_NAME)
		return sbx_error_set(SBX_EINVAL,
				     "namespace name is longer than %d bytes",
				     SBX_MAX_TABLE_NAME);
	for (size_t i = 0; i < n; i++)
		if (!ns_char(ns[i]))
			return sbx_error_set(
				SBX_EINVAL,
				"illegal character 0x%02x at %zu in namespace "
				"'%s': only [A-Za-z0-9_] are allowed",
				(unsigned char)ns[i], i, ns);
	return SBX_OK;
}

/* HBase's rules for a table qualifier (and a snapshot name): [A-Za-z0-9_.-],
 * not starting with '.' or '-'. `what` and `whole` word the error. */
static int check_qualifier(const char *what, const char *q, const char *whole)
{
	if (q[0] == '.' || q[0] == '-')
		return sbx_error_set(SBX_EINVAL,
				     "illegal first character '%c' in %s name "
				     "'%s': it may not start with '.' or '-'",
				     q[0], what, whole);
	for (size_t i = 0; q[i]; i++)
		if (!ns_char(q[i]) && q[i] != '.' && q[i] != '-')
			return sbx_error_set(
				SBX_EINVAL,
				"illegal character 0x%02x at %zu in %s name "
				"'%s': only [A-Za-z0-9_.-] are allowed",
				(unsigned char)q[i], i, what, whole);
	return SBX_OK;
}

int names_split_table(const char *name, char *ns, char *qualifier)
{
	assert(ns && qualifier);
	if (!name || !*name)
		return sbx_error_set(SBX_EINVAL, "table name is empty");
	const char *colon = strchr(name, ':');
	const char *q = name;
	if (colon) {
		size_t nl = (size_t)(colon - name);
		if (nl == 0 || nl > SBX_MAX_TABLE_NAME)
			return sbx_error_set(SBX_EINVAL,
					     "bad namespace in table name '%s'",
					     name);
		memcpy(ns, name, nl);
		ns[nl] = 0;
		int rc = names_check_namespace(ns);
		if (rc)
			return rc;
		q = colon + 1;
	} else {
		strcpy(ns, "default");
	}
	size_t n = strlen(q);
	if (n == 0)
		return sbx_error_set(SBX_EINVAL, "table qualifier is empty in '%s'",
				     name);
	if (n > SBX_MAX_TABLE_NAME)
		return sbx_error_set(SBX_EINVAL,
				     "table name is longer than %d bytes",
				     SBX_MAX_TABLE_NAME);
	int rc = check_qualifier("table", q, name);
	if (rc)
		return rc;
	memcpy(qualifier, q, n + 1);
	return SBX_OK;
}

int names_check_family(const char *family)
{
	size_t n = family ? strlen(family) : 0;
	if (n == 0)
		return sbx_error_set(SBX_EINVAL, "family name is empty");
	if (n > SBX_MAX_FAMILY_NAME)
		return sbx_error_set(SBX_EINVAL,
				     "family name is longer than %d bytes",
				     SBX_MAX_FAMILY_NAME);
	if (family[0] == '.')
		return sbx_error_set(SBX_EINVAL,
				     "family name '%s' may not start with '.'",
				     family);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)family[i];
		if (c < 0x21 || c > 0x7E || c == ':' || c == '/' || c == '\\')
			return sbx_error_set(
				SBX_EINVAL,
				"illegal character 0x%02x at %zu in family name "
				"'%s': printable characters other than ':', '/' "
				"and '\\' only", c, i, family);
	}
	if (!strcmp(family, "recovered.edits"))
		return sbx_error_set(SBX_EINVAL, "family name may not be "
						 "'recovered.edits'");
	return SBX_OK;
}

void names_canonical(char *out, size_t cap, const char *ns, const char *q)
{
	assert(out && cap > 0 && ns && q);
	if (!strcmp(ns, "default"))
		snprintf(out, cap, "%s", q);
	else
		snprintf(out, cap, "%s:%s", ns, q);
}

int names_check_snapshot(const char *name)
{
	size_t n = name ? strlen(name) : 0;
	if (n == 0)
		return sbx_error_set(SBX_EINVAL, "snapshot name is empty");
	if (n > SBX_MAX_TABLE_NAME)
		return sbx_error_set(SBX_EINVAL,
				     "snapshot name is longer than %d bytes",
				     SBX_MAX_TABLE_NAME);
	return check_qualifier("snapshot", name, name);
}
