/*
 * saltbox/bulk.h - bulk load, as HBase's HFileOutputFormat2 and
 * completebulkload: write a table's cells into store files offline, in
 * HBase's order, then load the files into the table in one step (RocksDB
 * SST ingestion: no memtable, no write-ahead log, no per-cell write path).
 *
 * The writer puts one store file per family under DIR/<family>/, the
 * layout completebulkload takes. Embedded backend only: the remote backend
 * returns SBX_EUNSUPPORTED (HBase's REST gateway cannot load files).
 *
 * Thread-safety: a writer belongs to one thread at a time; the functions
 * taking an sbx_db are thread-safe.
 */
#ifndef SALTBOX_BULK_H
#define SALTBOX_BULK_H

#include "saltbox/common.h"
#include "saltbox/db.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sbx_bulk_writer sbx_bulk_writer;

/* A writer for `table`'s families, writing under `dir` (created; it must
 * not exist yet). The families' attributes (block size, compression,
 * bloom filter) shape the files. On success *out is owned by the caller:
 * sbx_bulk_writer_finish() or sbx_bulk_writer_abort(). Errors: SBX_EINVAL
 * (bad table name, dir NULL or empty), SBX_ENOTFOUND (no such table),
 * SBX_EEXISTS (dir exists), SBX_EREADONLY, SBX_EIO; remote:
 * SBX_EUNSUPPORTED. *out is NULL on failure. */
SBX_API int sbx_bulk_writer_open(sbx_bulk_writer **out, sbx_db *db, const char *table,
			 const char *dir);

/* Add one put. Within each family, cells must come in HBase's order: row
 * ascending (unsigned bytes), then qualifier ascending, then timestamp
 * descending; a cell out of order or repeated is SBX_EINVAL and adds
 * nothing (the writer stays usable). SBX_LATEST_TIMESTAMP means the time
 * the writer was opened. Rows are limited to SBX_MAX_ROW_LENGTH bytes and
 * cells to the database's max_cell_size (SBX_ETOOLARGE). Errors also:
 * SBX_EINVAL (row NULL or empty, family NULL, qualifier or value NULL with
 * a length, negative ts), SBX_ENOFAMILY (not a family of the table),
 * SBX_EIO (writing the store file). */
SBX_API int sbx_bulk_writer_put(sbx_bulk_writer *w, const void *row, size_t row_len,
			const char *family, const void *qualifier,
			size_t qualifier_len, int64_t ts, const void *value,
			size_t value_len);

/* Cells added so far (0 for NULL). Cannot fail. */
SBX_API uint64_t sbx_bulk_writer_count(const sbx_bulk_writer *w);

/* Close the files; the writer is freed whatever the result. Errors:
 * SBX_EIO (RocksDB cannot finish a file). */
SBX_API int sbx_bulk_writer_finish(sbx_bulk_writer *w);

/* Free the writer and remove what it wrote. NULL is ignored. Cannot
 * fail. */
SBX_API void sbx_bulk_writer_abort(sbx_bulk_writer *w);

/* completebulkload: load every file under dir/<family>/ into `table`
 * (enabled). The files are moved into the database (dir keeps nothing it
 * loaded); each family's files load atomically. Every directory must name
 * one of the table's families (else SBX_ENOFAMILY and nothing is loaded). Loaded cells count as any other: their timestamps
 * decide versions, and markers already in the table mask them by HBase's
 * rules. Errors: SBX_EINVAL (bad table name, dir NULL or empty),
 * SBX_ENOTFOUND (no such table, or dir missing), SBX_EDISABLED,
 * SBX_ENOFAMILY, SBX_EREADONLY, SBX_EIO; remote: SBX_EUNSUPPORTED. */
SBX_API int sbx_table_bulk_load(sbx_db *db, const char *table, const char *dir);

#ifdef __cplusplus
}
#endif

#endif
