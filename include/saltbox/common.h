/*
 * saltbox/common.h - status codes, error messages, byte buffers and the
 * cell view shared by every part of the public API.
 *
 * Conventions (see docs/api.md):
 *  - Every function that can fail returns an int: SBX_OK (0) on success or a
 *    negative SBX_E* code; sbx_errmsg() then describes the failure.
 *  - Out-parameters come first. An object returned through an out-parameter
 *    is owned by the caller and released with the matching *_free().
 *  - Borrowed pointers (const arguments) are only read during the call unless
 *    a comment says otherwise.
 *  - Each declaration's comment lists its "Errors:". SBX_ENOMEM (allocation
 *    failed) is left out of those lists: any call that allocates may return
 *    it. "Backend errors" means what any call through an sbx_db may also
 *    return: SBX_EIO (RocksDB or the file system, embedded) or SBX_EREMOTE
 *    (gateway unreachable or failing, remote; a gateway refusing the token
 *    gives SBX_EREADONLY). "Cannot fail" marks calls with no error return.
 *    Handles and out-pointers must not be NULL unless a comment says so
 *    (debug builds assert some of this; it is not an error return).
 *  - On failure an object out-parameter is set to NULL (and a count beside
 *    it to 0), and nothing is appended to an sbx_buf out-parameter, unless
 *    the comment says otherwise.
 */
#ifndef SALTBOX_COMMON_H
#define SALTBOX_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* SBX_API marks every function of the public API. The library is built with
 * hidden visibility and its installed archive keeps only these symbols
 * global, so no internal name can collide with an embedding program's. */
#if defined(__GNUC__) || defined(__clang__)
#define SBX_API __attribute__((visibility("default")))
#else
#define SBX_API
#endif

/* The library's version, "MAJOR.MINOR.PATCH" (a static string). Cannot
 * fail. */
SBX_API const char *sbx_version(void);

/* Status codes. Positive values are not errors. */
enum {
	SBX_OK = 0,
	SBX_ITEROVER = 1,       /* an iterator has no more items */
	SBX_ENOTFOUND = -1,     /* table, namespace or family does not exist */
	SBX_EEXISTS = -2,       /* table or namespace already exists */
	SBX_EINVAL = -3,        /* invalid argument (name, option, key, ...) */
	SBX_ENOFAMILY = -4,     /* table has no such column family */
	SBX_EDISABLED = -5,     /* table is disabled */
	SBX_ENOTDISABLED = -6,  /* operation needs a disabled table */
	SBX_ETOOLARGE = -7,     /* row, cell or request over its limit */
	SBX_EBADVALUE = -8,     /* stored value has the wrong shape (increment,
				   a transaction lock cell that is garbage) */
	SBX_ENOTEMPTY = -9,     /* namespace still holds tables */
	SBX_EIO = -10,          /* storage error (RocksDB, file system) */
	SBX_ENOMEM = -11,       /* allocation failed */
	SBX_EUNSUPPORTED = -12, /* valid request this backend cannot do */
	SBX_EPARSE = -13,       /* malformed text (filter string, design, ...) */
	SBX_EREMOTE = -14,      /* remote server failed or unreachable */
	SBX_EREADONLY = -15,    /* database opened read-only */
	/* Another client won a race: a transaction's commit (or read) found
	 * a row changed or locked by another transaction, and nothing of
	 * this one is visible - run it again (sbx_txn_run does); also a
	 * remote check-and-mutate whose value kept changing. txn.h. */
	SBX_ECONFLICT = -16,
	SBX_EBUSY = -17,        /* resource in use */
};

/*
 * The message of the last failing call on this thread. Never NULL; the
 * string is owned by the library and valid until the next failing call on
 * the same thread. Cannot fail.
 */
SBX_API const char *sbx_errmsg(void);

/* A short constant name for a status code, e.g. "SBX_ENOTFOUND"; "SBX_E?"
 * for a code that is not one of these. Cannot fail. */
SBX_API const char *sbx_strerror(int code);

/* HBase's "latest timestamp": ask the server to assign the time. */
#define SBX_LATEST_TIMESTAMP INT64_MAX
/* HBase's FOREVER TTL (Integer.MAX_VALUE seconds). */
#define SBX_TTL_FOREVER INT64_C(2147483647)
/* Longest row key HBase accepts (HConstants.MAX_ROW_LENGTH). */
#define SBX_MAX_ROW_LENGTH 32767

/* Cell types, with HBase's type codes. */
typedef enum sbx_cell_type {
	SBX_CELL_PUT = 4,
	SBX_CELL_DELETE = 8,               /* one version of a column */
	SBX_CELL_DELETE_FAMILY_VERSION = 10, /* all columns of a family at ts */
	SBX_CELL_DELETE_COLUMN = 12,       /* all versions of a column <= ts */
	SBX_CELL_DELETE_FAMILY = 14,       /* all columns of a family <= ts */
} sbx_cell_type;

/*
 * A read-only view of one cell. The pointers belong to the object the view
 * came from (a result) and stay valid as long as that object lives. The
 * family is printable text and is NUL-terminated; row, qualifier and value
 * are arbitrary bytes.
 */
typedef struct sbx_cell {
	const uint8_t *row;
	size_t row_len;
	const char *family;
	size_t family_len;
	const uint8_t *qualifier;
	size_t qualifier_len;
	int64_t timestamp;
	sbx_cell_type type;
	const uint8_t *value;
	size_t value_len;
} sbx_cell;

/*
 * A growable byte buffer: encoders append to one the caller passes, and
 * callers may build their own. Start from a zeroed struct (sbx_buf b =
 * {0}); data holds len bytes and has room for cap. The memory belongs to
 * the buffer: growing may move data (pointers into it are then stale), and
 * sbx_buf_free() releases it. Not thread-safe: one buffer, one thread at a
 * time.
 */
typedef struct sbx_buf {
	uint8_t *data;
	size_t len;
	size_t cap;
} sbx_buf;

/* Append len bytes from data (which may be NULL when len is 0). SBX_OK,
 * or SBX_ENOMEM with the buffer unchanged. */
SBX_API int sbx_buf_append(sbx_buf *b, const void *data, size_t len);
/* Make room for `extra` more bytes without changing len, so that the next
 * appends of up to `extra` bytes cannot fail. SBX_OK or SBX_ENOMEM. */
SBX_API int sbx_buf_reserve(sbx_buf *b, size_t extra);
/* Empty the buffer (len = 0), keeping its memory for the next appends.
 * Cannot fail. */
SBX_API void sbx_buf_reset(sbx_buf *b);
/* Release the memory and zero the struct, which may then be reused. NULL
 * is a no-op. Cannot fail. */
SBX_API void sbx_buf_free(sbx_buf *buf);

/* HBase compare operators, as CompareOperator. */
typedef enum sbx_compare_op {
	SBX_CMP_LESS,
	SBX_CMP_LESS_OR_EQUAL,
	SBX_CMP_EQUAL,
	SBX_CMP_NOT_EQUAL,
	SBX_CMP_GREATER_OR_EQUAL,
	SBX_CMP_GREATER,
	SBX_CMP_NO_OP,
} sbx_compare_op;

#ifdef __cplusplus
}
#endif
#endif
