/*
 * sstcheck.h - the check a store file from outside passes before RocksDB
 * parses it (completebulkload, src/engine/bulk.c).
 *
 * RocksDB reads a table's properties block before it verifies that block's
 * checksum (the block holds a sequence number that ingestion may rewrite
 * in place, so the checksum is checked after parsing with that field
 * masked), and a file whose footer says "no checksums" has nothing
 * verified at all. Debian's librocksdb is built with assertions, so a
 * corrupt properties block, or any corrupt block of an unchecksummed file,
 * aborts the process inside RocksDB instead of returning Corruption. And
 * the footer itself has no checksum, while RocksDB allocates a block's
 * size before reading it: a corrupt index handle asks for terabytes, and
 * the failed allocation aborts too. This check closes those doors: a
 * block-based table footer (format_version 1..5), a real checksum type, an
 * index handle inside the file, and the metaindex and properties blocks'
 * checksums verified here. Every other block RocksDB verifies itself before
 * it parses it, and their handles are inside checksummed blocks.
 *
 * What stays trusted: a file crafted with valid checksums around malformed
 * blocks (not corruption but a forgery) can still trip RocksDB's
 * assertions; load files you or your tools wrote.
 */
#ifndef SBX_ENGINE_SSTCHECK_H
#define SBX_ENGINE_SSTCHECK_H

/* SBX_OK when `path` passes; else SBX_EIO (message names the file and what
 * is wrong) or SBX_ENOMEM. */
int sst_precheck(const char *path);

#endif
