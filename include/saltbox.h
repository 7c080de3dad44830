/*
 * saltbox.h - the whole public API of libsaltbox.
 *
 * Saltbox is HBase's data model (namespaces, tables, column families,
 * versioned cells, delete markers, filters) embedded in C on RocksDB, plus
 * the row-key toolkit. Start with docs/api.md.
 */
#ifndef SALTBOX_H
#define SALTBOX_H

#include "saltbox/bulk.h"
#include "saltbox/common.h"
#include "saltbox/compose.h"
#include "saltbox/datastore.h"
#include "saltbox/db.h"
#include "saltbox/filter.h"
#include "saltbox/regions.h"
#include "saltbox/rowkey.h"
#include "saltbox/salted.h"
#include "saltbox/table.h"
#include "saltbox/txn.h"

#endif
