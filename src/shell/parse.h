/*
 * parse.h - the HBase shell's line syntax (a small subset of Ruby) parsed
 * into a command name and a tree of argument values (internal; used by the
 * `saltbox shell` command, its tests and its fuzz target).
 */
#ifndef SBX_SHELL_PARSE_H
#define SBX_SHELL_PARSE_H

#include "saltbox/common.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum sbx_shell_vtype {
	SBX_SHV_STRING, /* 'single' or "double" quoted bytes */
	SBX_SHV_INT,	/* 42, -7, 0x1F, 1_000 */
	SBX_SHV_BOOL,	/* true / false */
	SBX_SHV_NIL,	/* nil */
	SBX_SHV_CONST,	/* a Ruby constant such as VERSIONS or NAME */
	SBX_SHV_ARRAY,	/* [a, b, ...] */
	SBX_SHV_HASH,	/* {K => v, ...} (also a brace-less trailing hash) */
} sbx_shell_vtype;

/*
 * One parsed value. `str` is NUL-terminated (bytes may contain NULs, so use
 * `len`). An ARRAY holds n items; a HASH holds n pairs stored as 2n items,
 * key then value. `pos` is the byte offset in the parsed text.
 */
typedef struct sbx_shell_value {
	sbx_shell_vtype type;
	char *str;
	size_t len;
	int64_t num; /* INT value; BOOL as 0 / 1 */
	struct sbx_shell_value *items;
	size_t n;
	size_t pos;
} sbx_shell_value;

/* A parsed command line: `name arg, arg, ...` or `name(arg, ...)`. */
typedef struct sbx_shell_cmd {
	char *name;
	sbx_shell_value *args;
	size_t nargs;
} sbx_shell_cmd;

/* Results of sbx_shell_parse besides SBX_OK and SBX_EPARSE / SBX_ENOMEM. */
enum {
	SBX_SHELL_EMPTY = 1,	  /* blank line or comment only */
	SBX_SHELL_INCOMPLETE = 2, /* unclosed string/bracket or trailing ',' */
};

/* Deepest nesting of arrays and hashes accepted. */
#define SBX_SHELL_MAX_DEPTH 32

/*
 * Parse `len` bytes of `text` (one statement, which may span lines joined
 * with '\n'). On SBX_OK *out holds the command (free with
 * sbx_shell_cmd_free). On SBX_EPARSE, `err` (errlen bytes) receives the
 * message and *err_pos the byte offset it refers to; *out is left empty.
 */
int sbx_shell_parse(sbx_shell_cmd *out, const char *text, size_t len,
		    size_t *err_pos, char *err, size_t errlen);
void sbx_shell_cmd_free(sbx_shell_cmd *c);

/* STRING or CONST (HBase's constants are strings equal to their name). */
bool sbx_shell_is_text(const sbx_shell_value *v);
/* The value stored under key `key` (a CONST or STRING) in a HASH, or NULL. */
const sbx_shell_value *sbx_shell_hash_get(const sbx_shell_value *hash,
					  const char *key);
/* A short name of a value's type for error messages ("a string", ...). */
const char *sbx_shell_type_name(const sbx_shell_value *v);

/*
 * Append bytes as HBase's Bytes.toStringBinary prints them: printable ASCII
 * (32..126) except '\' as is, everything else as \xNN (upper-case hex).
 */
int sbx_shell_append_binary(sbx_buf *out, const void *data, size_t len);

/*
 * Append text read as HBase's Bytes.toBytesBinary: "\xNN" (two hex digits,
 * any case) is one byte, every other character is itself; a "\x" without
 * two hex digits loses only its backslash.
 */
int sbx_shell_from_binary(sbx_buf *out, const char *text, size_t len);

#endif
