/*
 * family_attrs.h - the rules of a column family's attributes shared below
 * both backends (internal; the text calls are public in saltbox/db.h):
 * HBase's defaults, and the check create and alter run on a whole
 * descriptor.
 */
#ifndef SBX_MODEL_FAMILY_ATTRS_H
#define SBX_MODEL_FAMILY_ATTRS_H

#include "saltbox/db.h"

/* Set every attribute of *f to HBase's default; the name is untouched. */
void sbx_family_desc_defaults(sbx_family_desc *f);

/* SBX_OK, or SBX_EINVAL with "family 'NAME': ..." when an attribute is
 * out of its range or MIN_VERSIONS exceeds VERSIONS. The name itself is
 * checked by the caller (names_check_family). */
int sbx_family_desc_validate(const sbx_family_desc *f);

#endif
