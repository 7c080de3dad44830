/* design.h - the parsed form of a key design, shared by the parser, the
 * encoder/decoder, explain, plan and lint (internal). */
#ifndef SBX_ROWKEY_DESIGN_H
#define SBX_ROWKEY_DESIGN_H

#include "common/buf.h"
#include "saltbox/rowkey.h"

#include <assert.h>

/* Field types (codecs). */
typedef enum kd_type {
	KT_UINT,   /* u8..u64 */
	KT_INT,    /* i8..i64 */
	KT_F32,
	KT_F64,
	KT_TS64,   /* non-negative int64 ms, 8 B big-endian (Bytes.toBytes) */
	KT_RTS64,  /* INT64_MAX - ts, 8 B */
	KT_RTSDEC, /* INT64_MAX - ts as 19 decimal digits */
	KT_RLEN32, /* INT32_MAX - n, 4 B */
	KT_STR,    /* escaped variable, or fixed width (width > 0) */
	KT_BYTES,  /* like str, value given as hex */
	KT_TEXT,   /* raw text ended by the next literal's first byte */
	KT_DEC,    /* decimal digits: delimited like text, or zero-padded */
} kd_type;

typedef enum kd_kind {
	KD_LITERAL = SBX_KEYELEM_LITERAL,
	KD_FIELD = SBX_KEYELEM_FIELD,
	KD_SALT = SBX_KEYELEM_SALT,
	KD_HASH = SBX_KEYELEM_HASH,
} kd_kind;

typedef enum kd_salt_fmt {
	SALT_BYTE,   /* one raw byte 0..N-1 (Phoenix) */
	SALT_LETTER, /* 'a' + bucket (seed 000's a-, b-, ...) */
	SALT_HEX,    /* lower-case hex digits, width of N-1 */
	SALT_DEC,    /* decimal digits, width of N-1 */
} kd_salt_fmt;

typedef enum kd_hash_fmt {
	HASH_HEX_UPPER, /* default: seed 002's 8D4646EB... */
	HASH_HEX_LOWER,
	HASH_RAW,
} kd_hash_fmt;

typedef struct kd_elem {
	kd_kind kind;
	char *name;   /* field / element name; NULL for literals */
	char *type_text; /* canonical type, for explain */
	int line, column;

	/* literal */
	uint8_t *lit;
	size_t lit_len;

	/* field */
	kd_type type;
	int int_width;     /* KT_UINT / KT_INT: 1, 2, 4, 8 */
	size_t width;      /* fixed width for str/bytes/dec/rstr; 0 = var */
	size_t max_len;    /* var: max value bytes, 0 = unbounded */
	size_t typical;    /* var: typical value bytes */
	uint8_t pad;
	bool right_align;
	bool desc;
	bool reversed;     /* rstr / rdec */
	bool mono;         /* declared (or inferred) monotonically increasing */
	bool random;       /* declared random (overrides inference) */
	bool terminated;   /* escaped var field that carries 00 01 */
	int delim;         /* text/dec var: delimiter byte, -1 = runs to end */

	/* salt / hash */
	int buckets;
	kd_salt_fmt salt_fmt;
	sbx_hash_algo algo;
	kd_hash_fmt hash_fmt;
	size_t hash_bytes; /* digest bytes kept */
	uint64_t seed;
	char **of;         /* input field names; salt with none = rest of key */
	size_t n_of;
	int *of_field;     /* index into design->fields for each input */
} kd_elem;

/* A value field known to the design: in the key, or only a hash input. */
typedef struct kd_field {
	char *name;
	int elem;   /* index of its element, or -1 (hash input only) */
} kd_field;

typedef struct kd_option_list {
	char **items;
	size_t n;
} kd_option_list;

/* Most arguments one call takes (`family(a, b, ...)`); an option's list
 * may hold more, given in several clauses. */
#define KD_MAX_ARGS 16

struct sbx_keydesign {
	char *name;
	char *text;   /* canonical form */
	char *order;  /* order sentence */
	int line;
	kd_elem *elems;
	size_t n_elems;
	kd_field *fields;
	size_t n_fields;
	/* with-options */
	kd_option_list scan, identity, family, qualifier, allow;
	int regions;  /* 0 = not declared */
};

struct sbx_keyset {
	sbx_keydesign **designs;
	size_t n;
};

void kd_design_free(sbx_keydesign *d);
/* Finish a parsed design: resolve hash inputs, delimiters, terminators,
 * canonical text and order sentence. Returns SBX_OK or an error with the
 * element's position already in the message. */
int kd_design_finish(sbx_keydesign *d, sbx_keyparse_pos *pos);

/* Encode one field's value (text) into out.
 * REQUIRES (this and the three below): out != NULL, v or in non-NULL
 * unless n is 0; e != NULL except for kd_hash_input (NULL: raw bytes). */
int kd_encode_field(const kd_elem *e, const char *v, size_t n, sbx_buf *out);
/* Bytes a hash or salt reads for field `e` with value v (appended). */
int kd_hash_input(const kd_elem *e, const char *v, size_t n, sbx_buf *out);
/* Digest of a hash element over `in`, formatted as in the key. */
int kd_hash_bytes(const kd_elem *e, const uint8_t *in, size_t n,
		  sbx_buf *out);
/* Salt bucket text/byte for bucket b. REQUIRES: e is a salt element and
 * 0 <= bucket < e->buckets. */
int kd_salt_bytes(const kd_elem *e, int bucket, sbx_buf *out);
/* Width of the salt element in bytes. */
size_t kd_salt_width(const kd_elem *e);
/* Width of a hash element in bytes. */
size_t kd_hash_width(const kd_elem *e);
/* Element's fixed width, or 0 if variable. */
size_t kd_elem_fixed_width(const kd_elem *e);
/* The order an element contributes. */
sbx_keyorder kd_elem_order(const kd_elem *e);
/* Is `name` a salt/hash function? Sets *algo for hashes. */
bool kd_is_salt_name(const char *name);
bool kd_hash_from_name(const char *name, sbx_hash_algo *algo);
const char *kd_hash_name(sbx_hash_algo algo);

/* A lint rule (lint_rules.c): id, level, and the seed section it cites. */
typedef struct kd_lint_rule {
	const char *id;
	sbx_lint_level level;
	const char *cite;
} kd_lint_rule;
/* The rule with this id, or NULL. */
const kd_lint_rule *kd_lint_rule_find(const char *id);
/* Index of a field by name, or -1. REQUIRES: d and name non-NULL. */
int kd_field_index(const sbx_keydesign *d, const char *name);
bool kd_option_has(const kd_option_list *l, const char *item);

#endif
