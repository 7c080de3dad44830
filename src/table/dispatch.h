/* dispatch.h - what the table layer's files share (internal). */
#ifndef SBX_TABLE_DISPATCH_H
#define SBX_TABLE_DISPATCH_H

#include "model/backend.h"

#include <assert.h>

/* SBX_EUNSUPPORTED with the one message for a capability the backend
 * leaves out: "the remote backend does not support snapshots (HBase's REST
 * gateway has no snapshot endpoints)". REQUIRES: db with its ops, and
 * capability and endpoint non-NULL. */
int table_unsupported(const sbx_db *db, const char *capability,
		      const char *endpoint);

#endif
