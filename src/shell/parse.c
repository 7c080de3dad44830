/*
 * parse.c - the HBase shell's line syntax: a command name followed by Ruby
 * literals (quoted strings with Ruby's escapes, integers, true/false/nil,
 * constants, arrays, hashes, and a brace-less trailing hash). A statement
 * left open (string, bracket, trailing comma) reports SBX_SHELL_INCOMPLETE
 * so the reader can join the next line. Never reads past `len`.
 */
#include "common/bytes.h"
#include "shell/parse.h"

#include "common/alloc.h"
#include "common/buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct parser {
	const char *s;
	size_t len;
	size_t i;
	int depth;
	char *err;
	size_t errlen;
	size_t err_pos;
} parser;

static int fail(parser *p, size_t pos, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(parser *p, size_t pos, const char *fmt, ...)
{
	p->err_pos = pos;
	if (p->err && p->errlen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(p->err, p->errlen, fmt, ap);
		va_end(ap);
	}
	return SBX_EPARSE;
}

static bool at_end(const parser *p)
{
	return p->i >= p->len;
}

static char peek(const parser *p, size_t ahead)
{
	return p->i + ahead < p->len ? p->s[p->i + ahead] : '\0';
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_lower(char c)
{
	return (c >= 'a' && c <= 'z') || c == '_';
}

static bool is_upper(char c)
{
	return c >= 'A' && c <= 'Z';
}

static bool is_ident(char c)
{
	return is_lower(c) || is_upper(c) || is_digit(c);
}

/* Describe the character at i for "unexpected ..." messages. */
static const char *describe_char(const parser *p, char *buf, size_t cap)
{
	if (at_end(p))
		return "end of line";
	unsigned char c = (unsigned char)p->s[p->i];
	if (c >= 32 && c < 127)
		snprintf(buf, cap, "'%c'", c);
	else
		snprintf(buf, cap, "byte \\x%02X", c);
	return buf;
}

/* Whitespace, comments (# to end of line) and backslash-newline. */
static void skip_space(parser *p)
{
	while (!at_end(p)) {
		char c = p->s[p->i];
		if (c == ' ' || c == '\t' || c == '\r' || c == '\n' ||
		    c == '\f' || c == '\v') {
			p->i++;
		} else if (c == '\\' && peek(p, 1) == '\n') {
			p->i += 2;
		} else if (c == '#') {
			while (!at_end(p) && p->s[p->i] != '\n')
				p->i++;
		} else {
			return;
		}
	}
}

static int push_item(sbx_shell_value *v, sbx_shell_value **slot)
{
	sbx_shell_value *items =
	    sbx_realloc(v->items, (v->n + 1) * sizeof *v->items);
	if (!items)
		return SBX_ENOMEM;
	v->items = items;
	memset(&items[v->n], 0, sizeof *items);
	*slot = &items[v->n++];
	return SBX_OK;
}

static void value_free(sbx_shell_value *v)
{
	free(v->str);
	for (size_t i = 0; i < v->n; i++)
		value_free(&v->items[i]);
	free(v->items);
	memset(v, 0, sizeof *v);
}

/* Take over a buffer's bytes as the value's NUL-terminated string. */
static int set_str(sbx_shell_value *v, sbx_buf *b)
{
	if (sbx_buf_push(b, 0)) {
		free(b->data);
		return SBX_ENOMEM;
	}
	v->str = (char *)b->data;
	v->len = b->len - 1;
	return SBX_OK;
}

static int parse_single_quoted(parser *p, sbx_shell_value *v)
{
	sbx_buf b = {0};
	int rc = SBX_OK;
	p->i++;
	for (;;) {
		if (at_end(p)) {
			rc = SBX_SHELL_INCOMPLETE;
			break;
		}
		char c = p->s[p->i];
		if (c == '\'') {
			p->i++;
			break;
		}
		/* Ruby: only \\ and \' are escapes inside single quotes. */
		if (c == '\\' && (peek(p, 1) == '\\' || peek(p, 1) == '\'')) {
			c = p->s[p->i + 1];
			p->i++;
		}
		p->i++;
		if (sbx_buf_push(&b, (uint8_t)c)) {
			rc = SBX_ENOMEM;
			break;
		}
	}
	if (rc) {
		free(b.data);
		return rc;
	}
	v->type = SBX_SHV_STRING;
	return set_str(v, &b);
}

static int put_utf8(sbx_buf *b, uint32_t cp)
{
	uint8_t u[4];
	size_t n;
	if (cp < 0x80) {
		u[0] = (uint8_t)cp;
		n = 1;
	} else if (cp < 0x800) {
		u[0] = (uint8_t)(0xC0 | (cp >> 6));
		u[1] = (uint8_t)(0x80 | (cp & 0x3F));
		n = 2;
	} else if (cp < 0x10000) {
		u[0] = (uint8_t)(0xE0 | (cp >> 12));
		u[1] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
		u[2] = (uint8_t)(0x80 | (cp & 0x3F));
		n = 3;
	} else {
		u[0] = (uint8_t)(0xF0 | (cp >> 18));
		u[1] = (uint8_t)(0x80 | ((cp >> 12) & 0x3F));
		u[2] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
		u[3] = (uint8_t)(0x80 | (cp & 0x3F));
		n = 4;
	}
	return sbx_buf_append(b, u, n);
}

/* \uXXXX or \u{X..XXXXXX}; p->i is just after the 'u'. */
static int parse_unicode_escape(parser *p, size_t esc_pos, uint32_t *cp)
{
	bool braced = peek(p, 0) == '{';
	size_t max = braced ? 6 : 4, n = 0;
	uint32_t value = 0;
	if (braced)
		p->i++;
	while (n < max && !at_end(p) && sbx_hex_digit(p->s[p->i]) >= 0) {
		value = value * 16 + (uint32_t)sbx_hex_digit(p->s[p->i]);
		p->i++;
		n++;
	}
	if (braced) {
		if (at_end(p))
			return SBX_SHELL_INCOMPLETE;
		if (n == 0 || p->s[p->i] != '}')
			return fail(
			    p, esc_pos,
			    "invalid Unicode escape: expected \\u{hex}");
		p->i++;
	} else if (n != 4) {
		return fail(p, esc_pos,
			    "invalid Unicode escape: expected 4 hex digits "
			    "after \\u");
	}
	if (value > 0x10FFFF || (value >= 0xD800 && value <= 0xDFFF))
		return fail(p, esc_pos, "invalid Unicode code point U+%X",
			    (unsigned)value);
	*cp = value;
	return SBX_OK;
}

/* One escape inside double quotes; p->i is at the backslash. */
static int parse_escape(parser *p, sbx_buf *b)
{
	size_t esc_pos = p->i;
	p->i++;
	if (at_end(p))
		return SBX_SHELL_INCOMPLETE;
	char c = p->s[p->i++];
	uint8_t byte;
	switch (c) {
	case 'n':
		byte = '\n';
		break;
	case 't':
		byte = '\t';
		break;
	case 'r':
		byte = '\r';
		break;
	case 'a':
		byte = 7;
		break;
	case 'b':
		byte = 8;
		break;
	case 'e':
		byte = 27;
		break;
	case 'f':
		byte = 12;
		break;
	case 'v':
		byte = 11;
		break;
	case 's':
		byte = ' ';
		break;
	case '\n':
		return SBX_OK; /* line continuation */
	case 'x': {
		int hi = sbx_hex_digit(peek(p, 0));
		if (hi < 0)
			return fail(p, esc_pos,
				    "invalid hex escape: expected a hex digit "
				    "after \\x");
		p->i++;
		int lo = sbx_hex_digit(peek(p, 0));
		if (lo >= 0) {
			p->i++;
			hi = hi * 16 + lo;
		}
		byte = (uint8_t)hi;
		break;
	}
	case 'u': {
		uint32_t cp = 0;
		int rc = parse_unicode_escape(p, esc_pos, &cp);
		return rc ? rc : put_utf8(b, cp);
	}
	case 'c':
	case 'C':
	case 'M':
		return fail(p, esc_pos,
			    "control/meta escapes (\\%c) are not supported; "
			    "use \\xNN",
			    c);
	default:
		if (c >= '0' && c <= '7') {
			unsigned value = (unsigned)(c - '0');
			for (int k = 0;
			     k < 2 && peek(p, 0) >= '0' && peek(p, 0) <= '7';
			     k++)
				value =
				    value * 8 + (unsigned)(p->s[p->i++] - '0');
			byte = (uint8_t)(value & 0xFF);
		} else {
			byte = (uint8_t)c; /* Ruby: unknown escape = the char */
		}
	}
	return sbx_buf_push(b, byte);
}

static int parse_double_quoted(parser *p, sbx_shell_value *v)
{
	sbx_buf b = {0};
	int rc = SBX_OK;
	p->i++;
	for (;;) {
		if (at_end(p)) {
			rc = SBX_SHELL_INCOMPLETE;
			break;
		}
		char c = p->s[p->i];
		if (c == '"') {
			p->i++;
			break;
		}
		if (c == '\\') {
			if ((rc = parse_escape(p, &b)))
				break;
			continue;
		}
		if (c == '#' && peek(p, 1) == '{') {
			rc = fail(p, p->i,
				  "string interpolation #{...} is not "
				  "supported; write \\#{ for a literal #{");
			break;
		}
		p->i++;
		if (sbx_buf_push(&b, (uint8_t)c)) {
			rc = SBX_ENOMEM;
			break;
		}
	}
	if (rc) {
		free(b.data);
		return rc;
	}
	v->type = SBX_SHV_STRING;
	return set_str(v, &b);
}

/* Ruby integer literals: decimal, 0x hex, 0b binary, 0o / leading-0 octal,
 * with '_' between digits. */
static int parse_number(parser *p, sbx_shell_value *v)
{
	size_t start = p->i;
	bool negative = false;
	if (p->s[p->i] == '-' || p->s[p->i] == '+')
		negative = p->s[p->i++] == '-';
	unsigned base = 10;
	if (peek(p, 0) == '0' && (peek(p, 1) == 'x' || peek(p, 1) == 'X')) {
		base = 16;
		p->i += 2;
	} else if (peek(p, 0) == '0' &&
		   (peek(p, 1) == 'b' || peek(p, 1) == 'B')) {
		base = 2;
		p->i += 2;
	} else if (peek(p, 0) == '0' &&
		   (peek(p, 1) == 'o' || peek(p, 1) == 'O')) {
		base = 8;
		p->i += 2;
	} else if (peek(p, 0) == '0' &&
		   (is_digit(peek(p, 1)) || peek(p, 1) == '_')) {
		base = 8;
		p->i++;
	}
	uint64_t mag = 0;
	size_t ndigits = 0;
	bool overflow = false;
	for (;;) {
		char c = peek(p, 0);
		if (c == '_' && ndigits > 0 && sbx_hex_digit(peek(p, 1)) >= 0) {
			p->i++;
			continue;
		}
		int d = sbx_hex_digit(c);
		if (d < 0 || (base == 10 && !is_digit(c)) ||
		    (base != 16 && !is_digit(c)))
			break;
		if ((unsigned)d >= base)
			return fail(p, p->i, "invalid digit '%c' in %s number",
				    c, base == 8 ? "octal" : "binary");
		if (mag > (UINT64_MAX - (unsigned)d) / base)
			overflow = true;
		else
			mag = mag * base + (unsigned)d;
		p->i++;
		ndigits++;
	}
	if (ndigits == 0 && base != 8)
		return fail(p, start, "malformed number");
	if (peek(p, 0) == '.' && is_digit(peek(p, 1)))
		return fail(p, start,
			    "floating-point numbers are not supported here");
	if (is_ident(peek(p, 0)))
		return fail(p, p->i, "unexpected '%c' after number",
			    peek(p, 0));
	if (overflow || mag > (uint64_t)INT64_MAX + (negative ? 1 : 0))
		return fail(p, start, "integer out of range (64-bit signed)");
	v->type = SBX_SHV_INT;
	v->num = negative ? (int64_t)(0 - mag) : (int64_t)mag;
	return SBX_OK;
}

static int parse_name(parser *p, sbx_shell_value *v)
{
	size_t start = p->i;
	while (!at_end(p) && is_ident(p->s[p->i]))
		p->i++;
	size_t n = p->i - start;
	const char *w = p->s + start;
	if (is_upper(*w)) {
		if (peek(p, 0) == ':' && peek(p, 1) == ':')
			return fail(p, start,
				    "Ruby/Java class references are not "
				    "supported; write filters as strings, "
				    "e.g. FILTER => \"PrefixFilter('a')\"");
		if (peek(p, 0) == '.')
			return fail(p, start,
				    "Java objects are not supported; write "
				    "filters as strings");
		v->type = SBX_SHV_CONST;
		v->str = sbx_malloc(n + 1);
		if (!v->str)
			return SBX_ENOMEM;
		memcpy(v->str, w, n);
		v->str[n] = 0;
		v->len = n;
		return SBX_OK;
	}
	if (n == 4 && !memcmp(w, "true", 4)) {
		v->type = SBX_SHV_BOOL;
		v->num = 1;
	} else if (n == 5 && !memcmp(w, "false", 5)) {
		v->type = SBX_SHV_BOOL;
	} else if (n == 3 && !memcmp(w, "nil", 3)) {
		v->type = SBX_SHV_NIL;
	} else {
		return fail(p, start,
			    "unknown name '%.*s' (strings need quotes: "
			    "'%.*s')",
			    (int)(n > 64 ? 64 : n), w, (int)(n > 64 ? 64 : n),
			    w);
	}
	return SBX_OK;
}

static int parse_value(parser *p, sbx_shell_value *v);

/* After an item: ',' (then maybe the closer) or the closer. Returns 1 when
 * the list is closed, 0 to read another item. */
static int list_next(parser *p, char closer, const char *what)
{
	char buf[24];
	skip_space(p);
	if (at_end(p))
		return SBX_SHELL_INCOMPLETE;
	if (p->s[p->i] == closer) {
		p->i++;
		return 1;
	}
	if (p->s[p->i] != ',')
		return fail(p, p->i, "expected ',' or '%c' in %s, got %s",
			    closer, what, describe_char(p, buf, sizeof buf));
	p->i++;
	skip_space(p);
	if (at_end(p))
		return SBX_SHELL_INCOMPLETE;
	if (p->s[p->i] == closer) { /* trailing comma */
		p->i++;
		return 1;
	}
	return 0;
}

static int expect_arrow(parser *p)
{
	char buf[24];
	skip_space(p);
	if (at_end(p))
		return SBX_SHELL_INCOMPLETE;
	if (p->s[p->i] == '=' && peek(p, 1) == '>') {
		p->i += 2;
		return SBX_OK;
	}
	return fail(p, p->i, "expected '=>' after hash key, got %s",
		    describe_char(p, buf, sizeof buf));
}

/* key => value, appended to hash v. */
static int parse_pair(parser *p, sbx_shell_value *v, sbx_shell_value *key)
{
	sbx_shell_value *slot;
	int rc;
	if (!key) {
		if ((rc = push_item(v, &slot)))
			return rc;
		if ((rc = parse_value(p, slot)))
			return rc;
	}
	if ((rc = expect_arrow(p)))
		return rc;
	if ((rc = push_item(v, &slot)))
		return rc;
	return parse_value(p, slot);
}

static int parse_array(parser *p, sbx_shell_value *v)
{
	v->type = SBX_SHV_ARRAY;
	p->i++;
	skip_space(p);
	if (at_end(p))
		return SBX_SHELL_INCOMPLETE;
	if (p->s[p->i] == ']') {
		p->i++;
		return SBX_OK;
	}
	for (;;) {
		sbx_shell_value *slot;
		int rc = push_item(v, &slot);
		if (rc || (rc = parse_value(p, slot)))
			return rc;
		rc = list_next(p, ']', "array");
		if (rc)
			return rc == 1 ? SBX_OK : rc;
	}
}

static int parse_hash(parser *p, sbx_shell_value *v)
{
	v->type = SBX_SHV_HASH;
	p->i++;
	skip_space(p);
	if (at_end(p))
		return SBX_SHELL_INCOMPLETE;
	if (p->s[p->i] == '}') {
		p->i++;
		return SBX_OK;
	}
	for (;;) {
		int rc = parse_pair(p, v, NULL);
		if (rc)
			return rc;
		rc = list_next(p, '}', "hash");
		if (rc)
			return rc == 1 ? SBX_OK : rc;
	}
}

static int parse_value(parser *p, sbx_shell_value *v)
{
	char buf[24];
	skip_space(p);
	if (at_end(p))
		return SBX_SHELL_INCOMPLETE;
	v->pos = p->i;
	char c = p->s[p->i];
	if (c == '\'')
		return parse_single_quoted(p, v);
	if (c == '"')
		return parse_double_quoted(p, v);
	if (is_digit(c) || ((c == '-' || c == '+') && is_digit(peek(p, 1))))
		return parse_number(p, v);
	if (is_ident(c))
		return parse_name(p, v);
	if (c == '[' || c == '{') {
		if (p->depth >= SBX_SHELL_MAX_DEPTH)
			return fail(p, p->i, "nesting deeper than %d levels",
				    SBX_SHELL_MAX_DEPTH);
		p->depth++;
		int rc = c == '[' ? parse_array(p, v) : parse_hash(p, v);
		p->depth--;
		return rc;
	}
	if (c == ';')
		return fail(p, p->i,
			    "';' is not supported: write one command per line");
	return fail(p, p->i, "expected a value, got %s",
		    describe_char(p, buf, sizeof buf));
}

/* A brace-less hash (`put ..., NAME => 'x', VERSIONS => 2`): the key is
 * already parsed; the hash runs to the end of the argument list. */
static int parse_trailing_hash(parser *p, sbx_shell_cmd *c)
{
	sbx_shell_value *arg = &c->args[c->nargs - 1];
	sbx_shell_value key = *arg;
	memset(arg, 0, sizeof *arg);
	arg->type = SBX_SHV_HASH;
	arg->pos = key.pos;
	sbx_shell_value *slot;
	int rc = push_item(arg, &slot);
	if (rc) {
		value_free(&key);
		return rc;
	}
	*slot = key;
	if ((rc = parse_pair(p, arg, slot)))
		return rc;
	for (;;) {
		skip_space(p);
		if (at_end(p) || p->s[p->i] != ',')
			return SBX_OK;
		p->i++;
		if ((rc = parse_pair(p, arg, NULL)))
			return rc;
	}
}

static int push_arg(sbx_shell_cmd *c, sbx_shell_value **slot)
{
	sbx_shell_value *args = realloc(c->args, (c->nargs + 1) * sizeof *args);
	if (!args)
		return SBX_ENOMEM;
	c->args = args;
	memset(&args[c->nargs], 0, sizeof *args);
	*slot = &args[c->nargs++];
	return SBX_OK;
}

static int parse_args(parser *p, sbx_shell_cmd *c, bool parens)
{
	char buf[24];
	char closer = parens ? ')' : '\0';
	skip_space(p);
	if (parens && !at_end(p) && p->s[p->i] == ')') {
		p->i++;
		return SBX_OK;
	}
	if (at_end(p))
		return parens ? SBX_SHELL_INCOMPLETE : SBX_OK;
	for (;;) {
		sbx_shell_value *slot;
		int rc = push_arg(c, &slot);
		if (rc || (rc = parse_value(p, slot)))
			return rc;
		skip_space(p);
		bool hash = false;
		if (!at_end(p) && p->s[p->i] == '=' && peek(p, 1) == '>') {
			if ((rc = parse_trailing_hash(p, c)))
				return rc;
			hash = true;
			skip_space(p);
		}
		if (at_end(p))
			return parens ? SBX_SHELL_INCOMPLETE : SBX_OK;
		char ch = p->s[p->i];
		if (parens && ch == closer) {
			p->i++;
			return SBX_OK;
		}
		if (ch != ',' || hash) {
			if (ch == ';')
				return fail(p, p->i,
					    "';' is not supported: write one "
					    "command per line");
			return fail(p, p->i,
				    "expected ',' between arguments, got %s",
				    describe_char(p, buf, sizeof buf));
		}
		p->i++;
		skip_space(p);
		if (at_end(p))
			return SBX_SHELL_INCOMPLETE;
	}
}

int sbx_shell_parse(sbx_shell_cmd *out, const char *text, size_t len,
		    size_t *err_pos, char *err, size_t errlen)
{
	char buf[24];
	parser p = {.s = text, .len = len, .err = err, .errlen = errlen};
	memset(out, 0, sizeof *out);
	if (err && errlen)
		err[0] = 0;
	skip_space(&p);
	if (at_end(&p))
		return SBX_SHELL_EMPTY;
	size_t start = p.i;
	if (!is_lower(p.s[p.i]) && !is_upper(p.s[p.i])) {
		int rc = fail(&p, p.i, "expected a command name, got %s",
			      describe_char(&p, buf, sizeof buf));
		if (err_pos)
			*err_pos = p.err_pos;
		return rc;
	}
	while (!at_end(&p) && is_ident(p.s[p.i]))
		p.i++;
	if (!at_end(&p) && (p.s[p.i] == '?' || p.s[p.i] == '!'))
		p.i++;
	size_t n = p.i - start;
	out->name = malloc(n + 1);
	if (!out->name)
		return SBX_ENOMEM;
	memcpy(out->name, text + start, n);
	out->name[n] = 0;
	skip_space(&p);
	bool parens = !at_end(&p) && p.s[p.i] == '(';
	if (parens)
		p.i++;
	int rc = parse_args(&p, out, parens);
	if (rc == SBX_OK) {
		skip_space(&p);
		if (!at_end(&p))
			rc = fail(&p, p.i, "unexpected %s after the command",
				  describe_char(&p, buf, sizeof buf));
	}
	if (rc) {
		if (rc == SBX_SHELL_INCOMPLETE && err && errlen)
			snprintf(err, errlen, "unexpected end of input");
		if (err_pos)
			*err_pos = rc == SBX_SHELL_INCOMPLETE ? len : p.err_pos;
		sbx_shell_cmd_free(out);
		return rc;
	}
	return SBX_OK;
}

void sbx_shell_cmd_free(sbx_shell_cmd *c)
{
	for (size_t i = 0; i < c->nargs; i++)
		value_free(&c->args[i]);
	free(c->args);
	free(c->name);
	memset(c, 0, sizeof *c);
}

bool sbx_shell_is_text(const sbx_shell_value *v)
{
	return v && (v->type == SBX_SHV_STRING || v->type == SBX_SHV_CONST);
}

const sbx_shell_value *sbx_shell_hash_get(const sbx_shell_value *hash,
					  const char *key)
{
	if (!hash || hash->type != SBX_SHV_HASH)
		return NULL;
	size_t klen = strlen(key);
	for (size_t i = 0; i + 1 < hash->n; i += 2) {
		const sbx_shell_value *k = &hash->items[i];
		if (sbx_shell_is_text(k) && k->len == klen &&
		    !memcmp(k->str, key, klen))
			return &hash->items[i + 1];
	}
	return NULL;
}

const char *sbx_shell_type_name(const sbx_shell_value *v)
{
	switch (v->type) {
	case SBX_SHV_STRING:
		return "a string";
	case SBX_SHV_INT:
		return "an integer";
	case SBX_SHV_BOOL:
		return "a boolean";
	case SBX_SHV_NIL:
		return "nil";
	case SBX_SHV_CONST:
		return "a constant";
	case SBX_SHV_ARRAY:
		return "an array";
	case SBX_SHV_HASH:
		return "a hash";
	}
	return "a value";
}

int sbx_shell_append_binary(sbx_buf *out, const void *data, size_t len)
{
	return sbx_binary_string_append(out, data, len);
}

int sbx_shell_from_binary(sbx_buf *out, const char *text, size_t len)
{
	size_t unused;
	return sbx_binary_string_decode(out, text, len, false, &unused);
}
