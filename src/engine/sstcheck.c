/*
 * sstcheck.c - the footer, metaindex and properties block of a block-based
 * table file checked before RocksDB parses the file (why: sstcheck.h).
 *
 * Facts of RocksDB's format used here (table/format.h, format.cc,
 * block_based/block_builder.cc in RocksDB 7.8):
 *  - the footer is the file's last 53 bytes: checksum type (1 byte), the
 *    metaindex and index block handles (varint64 offset, varint64 size
 *    each), zero padding to 41 bytes, format_version (fixed32) and the
 *    magic number 0x88e241b785f4cff7 (fixed64), little-endian;
 *  - every block is followed by a 5-byte trailer: compression type (1
 *    byte) and a fixed32 checksum of the block and that byte: masked
 *    CRC32C (type 1), XXH32 (2) or the low 32 bits of XXH64 (3), seed 0,
 *    over block + type byte; for XXH3 (4) the low 32 bits of XXH3_64bits
 *    of the block alone, xor (type byte * 0x6b9083d9);
 *  - a block is entries (shared, unshared and value lengths as varint32,
 *    the key's unshared bytes, the value) then a restart array of fixed32
 *    and its count (fixed32; the top bit flags a hash index, which meta
 *    blocks never have); the metaindex maps "rocksdb.properties" to the
 *    properties block's handle.
 */
#include "engine/sstcheck.h"

#include "common/alloc.h"
#include "common/error.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#define FOOTER_LEN 53
#define FOOTER_HANDLES_LEN 40 /* two handles, padded */
#define MAGIC 0x88e241b785f4cff7ull
#define TRAILER_LEN 5
#define META_BLOCK_MAX (16u << 20)
#define XXH3_LAST_BYTE_PRIME 0x6b9083d9u

enum { CK_NONE, CK_CRC32C, CK_XXH32, CK_XXH64, CK_XXH3 };

typedef struct handle {
	uint64_t off, size;
} handle;

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static uint64_t le64(const uint8_t *p)
{
	return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

/* Decode a varint of at most `max_bytes` from [*p, end); false if cut or
 * too long. */
static bool varint(uint64_t *v, const uint8_t **p, const uint8_t *end,
		   int max_bytes)
{
	*v = 0;
	for (int i = 0; i < max_bytes && *p < end; i++) {
		uint8_t b = *(*p)++;
		*v |= (uint64_t)(b & 0x7f) << (7 * i);
		if (!(b & 0x80))
			return true;
	}
	return false;
}

static bool get_handle(handle *h, const uint8_t **p, const uint8_t *end)
{
	return varint(&h->off, p, end, 10) && varint(&h->size, p, end, 10);
}

/* CRC-32C (Castagnoli, reflected 0x82F63B78), bytewise; meta blocks are
 * small. */
static uint32_t crc32c(const uint8_t *p, size_t n)
{
	uint32_t c = 0xffffffffu;
	for (size_t i = 0; i < n; i++) {
		c ^= p[i];
		for (int k = 0; k < 8; k++)
			c = (c >> 1) ^ (0x82f63b78u & (0u - (c & 1)));
	}
	return ~c;
}

/* The checksum RocksDB stores for block[0..n) followed by its type byte
 * block[n]. */
static uint32_t block_checksum(int type, const uint8_t *block, size_t n)
{
	switch (type) {
	case CK_CRC32C: {
		uint32_t c = crc32c(block, n + 1);
		return ((c >> 15) | (c << 17)) + 0xa282ead8u;
	}
	case CK_XXH32:
		return XXH32(block, n + 1, 0);
	case CK_XXH64:
		return (uint32_t)XXH64(block, n + 1, 0);
	default:
		return (uint32_t)XXH3_64bits(block, n) ^
		       (uint32_t)block[n] * XXH3_LAST_BYTE_PRIME;
	}
}

static int refuse(const char *path, const char *fmt, const char *what)
{
	return sbx_error_set(SBX_EIO,
			     "'%s': not store files RocksDB can load: %s%s",
			     path, fmt, what);
}

/* Read the block `h` and its trailer into *out (caller frees) and verify
 * its checksum and that it is a plain (uncompressed, no hash index)
 * block. */
static int read_block(uint8_t **out, int fd, const char *path, int ck,
		      handle h, uint64_t body_end, const char *name)
{
	*out = NULL;
	if (h.size < 4 || h.size > META_BLOCK_MAX || h.off > body_end ||
	    body_end - h.off < h.size + TRAILER_LEN)
		return refuse(path, "bad block handle for the ", name);
	size_t n = (size_t)h.size + TRAILER_LEN;
	uint8_t *b = sbx_malloc(n);
	if (!b)
		return SBX_ENOMEM_SET();
	ssize_t got = pread(fd, b, n, (off_t)h.off);
	if (got != (ssize_t)n) {
		free(b);
		return sbx_error_set(SBX_EIO, "'%s': cannot read the %s: %s",
				     path, name,
				     got < 0 ? strerror(errno) : "short read");
	}
	size_t sz = (size_t)h.size;
	if (block_checksum(ck, b, sz) != le32(b + sz + 1)) {
		free(b);
		return refuse(path, "checksum mismatch in the ", name);
	}
	uint32_t restarts = le32(b + sz - 4);
	if (b[sz] != 0 || (restarts & 0x80000000u) || restarts == 0 ||
	    (uint64_t)restarts > (sz - 4) / 4) {
		free(b);
		return refuse(path, "malformed ", name);
	}
	*out = b;
	return SBX_OK;
}

/* Find "rocksdb.properties" among the metaindex entries. */
static bool find_properties(handle *out, const uint8_t *b, size_t sz)
{
	static const char want[] = "rocksdb.properties";
	const size_t want_len = sizeof want - 1;
	uint32_t restarts = le32(b + sz - 4);
	const uint8_t *p = b, *end = b + sz - 4 - 4 * (size_t)restarts;
	uint8_t key[64];
	size_t key_len = 0;
	while (p < end) {
		uint64_t shared, unshared, vlen;
		if (!varint(&shared, &p, end, 5) ||
		    !varint(&unshared, &p, end, 5) ||
		    !varint(&vlen, &p, end, 5) || shared > key_len ||
		    unshared > (uint64_t)(end - p) ||
		    vlen > (uint64_t)(end - p) - unshared)
			return false;
		/* keys longer than our buffer are other meta blocks' names */
		bool fits = shared + unshared <= sizeof key;
		if (fits)
			memcpy(key + shared, p, (size_t)unshared);
		key_len = fits ? (size_t)(shared + unshared) : 0;
		p += unshared;
		const uint8_t *v = p;
		p += vlen;
		if (fits && key_len == want_len && !memcmp(key, want, want_len))
			return get_handle(out, &v, v + vlen);
	}
	return false;
}

int sst_precheck(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return sbx_error_set(SBX_EIO, "cannot open '%s': %s", path,
				     strerror(errno));
	struct stat st;
	uint8_t foot[FOOTER_LEN];
	int rc = SBX_OK;
	if (fstat(fd, &st) || st.st_size < FOOTER_LEN ||
	    pread(fd, foot, FOOTER_LEN, st.st_size - FOOTER_LEN) != FOOTER_LEN ||
	    le64(foot + FOOTER_LEN - 8) != MAGIC) {
		close(fd);
		return refuse(path, "no block-based table footer (bad magic "
				    "number)", "");
	}
	uint64_t body_end = (uint64_t)st.st_size - FOOTER_LEN;
	uint32_t version = le32(foot + FOOTER_LEN - 12);
	int ck = foot[0];
	const uint8_t *p = foot + 1, *end = foot + 1 + FOOTER_HANDLES_LEN;
	handle meta, index, props;
	uint8_t *mb = NULL, *pb = NULL;
	if (version < 1 || version > 5)
		rc = refuse(path, "unsupported format_version", "");
	else if (ck < CK_CRC32C || ck > CK_XXH3)
		rc = refuse(path, "blocks without a checksum RocksDB writes "
				  "(checksum type none or unknown)", "");
	else if (!get_handle(&meta, &p, end) || !get_handle(&index, &p, end))
		rc = refuse(path, "bad block handles in the footer", "");
	/* RocksDB allocates a block's size before it reads and verifies
	 * it, and the footer has no checksum: an index size past the file
	 * asks for terabytes (std::bad_alloc aborts; fuzz_bulk_load) */
	if (!rc && (index.size < 4 || index.size > body_end ||
		    index.off > body_end - index.size ||
		    body_end - index.off - index.size < TRAILER_LEN))
		rc = refuse(path, "bad block handle for the index block", "");
	if (!rc)
		rc = read_block(&mb, fd, path, ck, meta, body_end,
				"metaindex block");
	if (!rc && !find_properties(&props, mb, (size_t)meta.size))
		rc = refuse(path, "no properties block in the metaindex", "");
	if (!rc)
		rc = read_block(&pb, fd, path, ck, props, body_end,
				"properties block");
	free(mb);
	free(pb);
	close(fd);
	return rc;
}
