/*
 * saltbox/rowkey.h - the row-key toolkit: order-preserving codecs, hash
 * prefixes and salts, and the key design language (parse once, then encode,
 * decode, explain, lint and plan scans). Grammar and reference: docs/keys.md.
 *
 * Conventions are those of saltbox/common.h. Every encoder appends to a
 * caller-owned sbx_buf; on failure the buffer's length is left exactly as it
 * was (nothing is partially written). Decoders never read past `len`.
 * Errors of the codecs: SBX_EINVAL for a value the encoding cannot hold
 * and for input that is not a valid encoding (the message says why and,
 * for variable-length fields, at which byte), SBX_ENOMEM when appending
 * fails. A decoder leaves *value and *used as they were on failure
 * (appended-to buffers keep their length).
 *
 * Thread-safety: a parsed sbx_keydesign / sbx_keyset is immutable and may be
 * used from many threads at once. Results (records, plans, lint reports)
 * belong to the caller and are not shared.
 */
#ifndef SALTBOX_ROWKEY_H
#define SALTBOX_ROWKEY_H

#include "saltbox/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------
 * Codecs. Each encoding sorts (memcmp, unsigned bytes) exactly like the
 * value it encodes, unless noted.
 * ------------------------------------------------------------------- */

/* Unsigned big-endian integer of `width` bytes (1, 2, 4 or 8). Errors:
 * SBX_EINVAL (another width, or a value that does not fit it). */
SBX_API int sbx_key_put_uint(sbx_buf *out, uint64_t value, int width);
/* Decode `width` bytes from in[0..len). *used (may be NULL) gets `width`.
 * Errors: SBX_EINVAL (bad width, fewer than width bytes left). */
SBX_API int sbx_key_get_uint(uint64_t *value, const uint8_t *in, size_t len,
		     int width, size_t *used);

/* Signed integer: big-endian two's complement with the sign bit flipped,
 * so negatives sort first (Phoenix INTEGER/BIGINT). Errors: as the
 * unsigned pair. */
SBX_API int sbx_key_put_int(sbx_buf *out, int64_t value, int width);
SBX_API int sbx_key_get_int(int64_t *value, const uint8_t *in, size_t len, int width,
		    size_t *used);

/* IEEE-754 floats in total order: -NaN is folded into NaN, so
 * -inf < ... < -0.0 < +0.0 < ... < +inf < NaN (NaN last). 4 / 8 bytes.
 * Errors: put: SBX_ENOMEM only; get: SBX_EINVAL (too few bytes left). */
SBX_API int sbx_key_put_f32(sbx_buf *out, float value);
SBX_API int sbx_key_get_f32(float *value, const uint8_t *in, size_t len, size_t *used);
SBX_API int sbx_key_put_f64(sbx_buf *out, double value);
SBX_API int sbx_key_get_f64(double *value, const uint8_t *in, size_t len,
		    size_t *used);

/* Reverse timestamp, HBase style: 8-byte big-endian INT64_MAX - ts, so the
 * newest row sorts first. ts must be >= 0 (HBase timestamps are).
 * Errors: SBX_EINVAL (put: ts < 0; get: fewer than 8 bytes, or bytes above
 * INT64_MAX). */
SBX_API int sbx_key_put_rts64(sbx_buf *out, int64_t ts);
SBX_API int sbx_key_get_rts64(int64_t *ts, const uint8_t *in, size_t len,
		      size_t *used);

/* Flags for the variable-length byte codec. */
enum {
	SBX_KEY_TERMINATED = 1, /* append the 00 01 terminator */
	SBX_KEY_DESC = 2,       /* descending: every byte inverted */
};

/* Variable-length bytes: each 00 becomes 00 FF; with SBX_KEY_TERMINATED the
 * terminator 00 01 follows (needed unless the field is last in the key;
 * SBX_KEY_DESC implies it). Order-preserving and prefix-free when
 * terminated. Errors: SBX_ENOMEM only. */
SBX_API int sbx_key_put_bytes(sbx_buf *out, const void *data, size_t len,
		      unsigned flags);
/* Decode into `value` (appended). Without SBX_KEY_TERMINATED the whole of
 * in[0..len) is the field. *used gets the encoded length consumed.
 * Errors: SBX_EINVAL (no terminator where one is needed, a bad 00 escape,
 * with the byte offset). */
SBX_API int sbx_key_get_bytes(sbx_buf *value, const uint8_t *in, size_t len,
		      unsigned flags, size_t *used);

/* Fixed-width string: `len` <= width bytes, padded with `pad` to width
 * (right_align: padding first). A value longer than width, or one that
 * begins (right_align) / ends (left) with the pad byte, is rejected:
 * nothing is truncated or made ambiguous (SBX_EINVAL). */
SBX_API int sbx_key_put_fixed(sbx_buf *out, const void *data, size_t len,
		      size_t width, uint8_t pad, bool right_align);
/* Decode `width` bytes, stripping the padding; appended to `value`.
 * Errors: SBX_EINVAL (fewer than width bytes left). */
SBX_API int sbx_key_get_fixed(sbx_buf *value, const uint8_t *in, size_t len,
		      size_t width, uint8_t pad, bool right_align,
		      size_t *used);

/* Descending variant of any codec: invert bytes in place (b ^ 0xFF).
 * Cannot fail. */
SBX_API void sbx_key_invert(uint8_t *bytes, size_t len);
/* Reverse bytes in place (reversed strings and numbers, e.g. phone
 * numbers: "13812345678" -> "87654321831"). Destroys order by design.
 * Cannot fail. */
SBX_API void sbx_key_reverse(uint8_t *bytes, size_t len);

/* ---------------------------------------------------------------------
 * Hashes and salts.
 * ------------------------------------------------------------------- */

typedef enum sbx_hash_algo {
	SBX_HASH_MD5,         /* 16 bytes, RFC 1321 (OpenSSL) */
	SBX_HASH_MURMUR3_32,  /* 4 bytes, MurmurHash3_x86_32, little-endian
				 bytes as the reference code stores them */
	SBX_HASH_MURMUR3_128, /* 16 bytes, MurmurHash3_x64_128 (h1, h2 little-
				 endian: the bytes of Guava and mmh3) */
	SBX_HASH_XXH32,       /* 4 bytes, xxHash canonical (big-endian) */
	SBX_HASH_XXH64,       /* 8 bytes, canonical */
	SBX_HASH_XXH3,        /* 8 bytes, XXH3_64bits, canonical */
} sbx_hash_algo;

/* Digest size in bytes of an algorithm (0 for an unknown one). Cannot
 * fail. */
SBX_API size_t sbx_hash_size(sbx_hash_algo algo);
/* Hash data into out (sbx_hash_size(algo) bytes). `seed` is ignored by MD5;
 * MurmurHash3 uses its low 32 bits. Errors: SBX_EINVAL (unknown algorithm;
 * also, oddly, OpenSSL failing to compute MD5). */
SBX_API int sbx_hash(uint8_t *out, sbx_hash_algo algo, uint64_t seed, const void *data,
	     size_t len);
/* The two MurmurHash3 variants directly. Cannot fail. */
SBX_API uint32_t sbx_murmur3_32(const void *data, size_t len, uint32_t seed);
SBX_API void sbx_murmur3_128(uint64_t out[2], const void *data, size_t len,
		     uint32_t seed);

/* Phoenix salt bucket: abs(h % buckets) with h = 1, h = 31*h + b over the
 * signed bytes, 32-bit wrap-around (Java Arrays.hashCode). buckets 1..256.
 * Returns the bucket (0..buckets-1), or SBX_EINVAL (buckets outside
 * 1..256). */
SBX_API int sbx_phoenix_salt(const void *data, size_t len, int buckets);

/* Append `bytes` as hex (upper or lower case). Errors: SBX_ENOMEM only. */
SBX_API int sbx_key_put_hex(sbx_buf *out, const uint8_t *bytes, size_t len,
		    bool upper);

/* ---------------------------------------------------------------------
 * Key designs.
 * ------------------------------------------------------------------- */

/* One parsed design: immutable, thread-safe to share. */
typedef struct sbx_keydesign sbx_keydesign;
/* A design file: several named designs. Owns its designs. */
typedef struct sbx_keyset sbx_keyset;

/* Where a parse error is (1-based; column counts characters). */
typedef struct sbx_keyparse_pos {
	int line;
	int column;
} sbx_keyparse_pos;

/*
 * Parse design text (one or more `name = key [with ...]` statements, see
 * docs/keys.md). A text holding a single design may leave out `name =`
 * (its name is then "key"). On SBX_EPARSE, *pos (if not NULL) gets the
 * line and column and sbx_errmsg() reads "line L, column C: ...".
 * *out is the caller's; free with sbx_keyset_free().
 * Errors: SBX_EPARSE (also for a semantic error such as a duplicate design
 * name), SBX_EINVAL (text NULL with len > 0), SBX_ENOMEM; *out is NULL and
 * *pos 0:0 unless SBX_EPARSE.
 */
SBX_API int sbx_keyset_parse(sbx_keyset **out, const char *text, size_t len,
		     sbx_keyparse_pos *pos);
/* NULL is ignored. Cannot fail. */
SBX_API void sbx_keyset_free(sbx_keyset *set);
/* 0 for NULL. Cannot fail. */
SBX_API size_t sbx_keyset_count(const sbx_keyset *set);
/* Borrowed from the set; valid until sbx_keyset_free(). NULL if absent.
 * Cannot fail. */
SBX_API const sbx_keydesign *sbx_keyset_at(const sbx_keyset *set, size_t i);
SBX_API const sbx_keydesign *sbx_keyset_find(const sbx_keyset *set, const char *name);

/* Parse text that holds exactly one design. Free with sbx_keydesign_free.
 * Errors: as sbx_keyset_parse, and SBX_EINVAL if it holds several. */
SBX_API int sbx_keydesign_parse(sbx_keydesign **out, const char *text, size_t len,
			sbx_keyparse_pos *pos);
/* Frees a design from sbx_keydesign_parse (never one borrowed from a set).
 * Cannot fail. */
SBX_API void sbx_keydesign_free(sbx_keydesign *d);

/* The design's name (owned by the design). Cannot fail. */
SBX_API const char *sbx_keydesign_name(const sbx_keydesign *d);
/* The design written back in canonical syntax (owned by the design).
 * Cannot fail. */
SBX_API const char *sbx_keydesign_text(const sbx_keydesign *d);

/* A field value given by the caller: `value` need not be NUL-terminated.
 * Values are text: numbers in decimal, floats as strtod reads them,
 * `bytes` fields as hex digits. */
typedef struct sbx_keyvalue {
	const char *name;
	const char *value;
	size_t value_len;
} sbx_keyvalue;

/* Encode a record into a row key appended to `out`. Every field the design
 * uses (including inputs of hashes) must be given exactly once, and no
 * other. Salts and hashes are computed. Errors: SBX_EINVAL (out or d NULL,
 * values NULL with n > 0, a field missing, repeated or unknown, a value
 * its type rejects: the message names the field), SBX_ETOOLARGE (the key
 * is over SBX_MAX_ROW_LENGTH), SBX_ENOMEM; out is unchanged on failure. */
SBX_API int sbx_keydesign_encode(sbx_buf *out, const sbx_keydesign *d,
			 const sbx_keyvalue *values, size_t n);

typedef struct sbx_keyrecord sbx_keyrecord;
/* A decoded key: the fields in key order, then hash inputs that are not in
 * the key are absent. Salts and hashes appear under their element names
 * ("salt", "md5", ...) with their text (bucket number, hex digest).
 * Errors: SBX_EINVAL (d NULL, key NULL with len > 0, a key the design did
 * not make: the message names the byte offset), SBX_ENOMEM; *out is NULL.
 */
SBX_API int sbx_keydesign_decode(sbx_keyrecord **out, const sbx_keydesign *d,
			 const uint8_t *key, size_t len);
/* The record's accessors cannot fail: NULL or out of range gives NULL / 0. */
SBX_API size_t sbx_keyrecord_count(const sbx_keyrecord *r);
/* Borrowed, NUL-terminated, valid until sbx_keyrecord_free(). Binary
 * values (`bytes` fields) are hex. Cannot fail (NULL out of range). */
SBX_API const char *sbx_keyrecord_name(const sbx_keyrecord *r, size_t i);
SBX_API const char *sbx_keyrecord_value(const sbx_keyrecord *r, size_t i);
/* Length of value i in bytes (a `str` value may hold 00 bytes). Cannot
 * fail. */
SBX_API size_t sbx_keyrecord_value_len(const sbx_keyrecord *r, size_t i);
/* The value of a named field, or NULL. Cannot fail. */
SBX_API const char *sbx_keyrecord_get(const sbx_keyrecord *r, const char *name);
/* NULL is ignored. Cannot fail. */
SBX_API void sbx_keyrecord_free(sbx_keyrecord *r);

/* --- explain --- */

typedef enum sbx_keyelem_kind {
	SBX_KEYELEM_LITERAL,
	SBX_KEYELEM_FIELD,
	SBX_KEYELEM_SALT,
	SBX_KEYELEM_HASH,
} sbx_keyelem_kind;

typedef enum sbx_keyorder {
	SBX_ORDER_ASC,  /* keys sort as the values */
	SBX_ORDER_DESC, /* keys sort opposite to the values */
	SBX_ORDER_NONE, /* scattered: hash, salt, reversed text */
	SBX_ORDER_FIXED /* a literal */
} sbx_keyorder;

#define SBX_KEYLEN_UNBOUNDED ((size_t)SBX_MAX_ROW_LENGTH)

/* One element of a design. Strings are borrowed from the design. */
typedef struct sbx_keyelem_info {
	sbx_keyelem_kind kind;
	const char *name;     /* field or element name; "" for literals */
	const char *type;     /* e.g. "str(10)", "rts64", "md5(message_id)" */
	const char *layout;   /* how the bytes are made, one line */
	sbx_keyorder order;
	bool fixed_width;
	size_t min_len, typical_len, max_len; /* bytes; max may be UNBOUNDED */
	long offset;          /* byte offset if all before are fixed, else -1 */
} sbx_keyelem_info;

/* Number of elements. Cannot fail. */
SBX_API size_t sbx_keydesign_elem_count(const sbx_keydesign *d);
/* Element i. Errors: SBX_EINVAL (NULL argument, i out of range); *info is
 * unchanged on failure. */
SBX_API int sbx_keydesign_elem(sbx_keyelem_info *info, const sbx_keydesign *d,
		       size_t i);
/* Whole-key lengths in bytes (max may be SBX_KEYLEN_UNBOUNDED). Cannot
 * fail. */
SBX_API void sbx_keydesign_length(size_t *min, size_t *typical, size_t *max,
			  const sbx_keydesign *d);
/* Salt bucket count, 0 if unsalted. Cannot fail. */
SBX_API int sbx_keydesign_buckets(const sbx_keydesign *d);
/* One sentence on the order rows sort in (owned by the design). Cannot
 * fail. */
SBX_API const char *sbx_keydesign_order(const sbx_keydesign *d);
/* Append a human-readable explanation (layout table, lengths, order).
 * Errors: SBX_ENOMEM only; out is unchanged on failure. */
SBX_API int sbx_keydesign_explain(sbx_buf *out, const sbx_keydesign *d);

/* --- plan --- */

typedef enum sbx_keycond_op {
	SBX_KEYCOND_EQ, /* field = value (leading fields) */
	SBX_KEYCOND_GE,
	SBX_KEYCOND_GT,
	SBX_KEYCOND_LT,
	SBX_KEYCOND_LE,
} sbx_keycond_op;

/* A condition: equality on leading fields; at most one field may carry a
 * range (GE/GT and/or LT/LE), and it must come right after them. */
typedef struct sbx_keycond {
	const char *name;
	sbx_keycond_op op;
	const char *value;
	size_t value_len;
} sbx_keycond;

/*
 * One scan range. Forward (HBase default): rows in [start, stop), start
 * inclusive, stop exclusive; an empty stop is the end of the table. The
 * same rows read reversed, in HBase's order (start = the high bound): start
 * = `stop` exclusive (withStartRow(stop, false)), stop = `start` inclusive
 * (withStopRow(start, true)); an empty start then means the end of table.
 */
typedef struct sbx_keyrange {
	int bucket; /* salt bucket, -1 if the design is unsalted */
	uint8_t *start;
	size_t start_len;
	uint8_t *stop;
	size_t stop_len;
} sbx_keyrange;

/*
 * A plan: one range per salt bucket when the salt is not fixed by the
 * conditions, else one. A salted-scan merger opens one scanner per range
 * and merges rows by comparing keys after the first `salt_len` bytes
 * (ascending forward, descending reversed); that yields the unsalted key
 * order. Owned by the caller; free with sbx_keyplan_free().
 */
typedef struct sbx_keyplan {
	size_t count;
	sbx_keyrange *ranges; /* ordered by bucket */
	size_t salt_len;      /* bytes to skip when merging; 0 if unsalted */
	bool point;           /* the conditions give a whole key (a Get) */
} sbx_keyplan;

/* Errors: SBX_EINVAL (NULL argument, a condition on an unknown field, two
 * on one field, ranges on two fields, a range on a field that keeps no
 * order, a condition the key order cannot use, a value its field rejects;
 * the message names the field), SBX_ENOMEM; *out is NULL on failure. */
SBX_API int sbx_keydesign_plan(sbx_keyplan **out, const sbx_keydesign *d,
		       const sbx_keycond *conds, size_t n);
/* NULL is ignored. Cannot fail. */
SBX_API void sbx_keyplan_free(sbx_keyplan *plan);

/* --- lint --- */

typedef enum sbx_lint_level {
	SBX_LINT_INFO,
	SBX_LINT_WARN,
} sbx_lint_level;

typedef struct sbx_lint_finding {
	const char *rule;     /* stable id, e.g. "monotonic-leading-field" */
	sbx_lint_level level;
	const char *message;  /* what is wrong in this design and what to do */
	const char *cite;     /* where it comes from, by section or title */
} sbx_lint_finding;

/* Lint report: owned by the caller, free with sbx_keylint_free(). */
typedef struct sbx_keylint {
	size_t count;
	sbx_lint_finding *findings;
} sbx_keylint;

/* Errors: SBX_EINVAL (d NULL), SBX_ENOMEM; *out is NULL on failure. A
 * design with findings is SBX_OK. */
SBX_API int sbx_keydesign_lint(sbx_keylint **out, const sbx_keydesign *d);
/* NULL is ignored. Cannot fail. */
SBX_API void sbx_keylint_free(sbx_keylint *report);

/* Row keys as HBase prints them (Bytes.toStringBinary): printable ASCII
 * as is, other bytes as \xHH (upper case). Appended to out (no NUL).
 * Errors: SBX_ENOMEM only. */
SBX_API int sbx_key_to_binary_string(sbx_buf *out, const uint8_t *key, size_t len);
/* The inverse: \xHH escapes (either case) and plain characters. Errors:
 * SBX_EINVAL (a backslash not followed by xHH; the message gives the
 * character position), SBX_ENOMEM (here without setting sbx_errmsg()). */
SBX_API int sbx_key_from_binary_string(sbx_buf *out, const char *text, size_t len);

#ifdef __cplusplus
}
#endif
#endif
