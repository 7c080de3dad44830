/* names.h - HBase's rules for namespace, table and family names (internal). */
#ifndef SBX_MODEL_NAMES_H
#define SBX_MODEL_NAMES_H

#include <stdbool.h>
#include <stddef.h>

#define SBX_MAX_TABLE_NAME 255

/* Validate a namespace name; on error sets the message, returns SBX_EINVAL. */
int names_check_namespace(const char *ns);
/* Validate "table" or "ns:table"; splits into ns (default "default") and
 * qualifier, written to the caller's buffers of SBX_MAX_TABLE_NAME + 1.
 * REQUIRES: ns and qualifier non-NULL (name is the input checked). */
int names_split_table(const char *name, char *ns, char *qualifier);
/* Validate a snapshot name (HBase's rules for a table qualifier). */
int names_check_snapshot(const char *name);
/* Validate a family name. */
int names_check_family(const char *family);
/* The canonical form: "t" in the default namespace, "ns:t" otherwise.
 * REQUIRES: out non-NULL with cap > 0, ns and q non-NULL. */
void names_canonical(char *out, size_t cap, const char *ns, const char *q);

#endif
