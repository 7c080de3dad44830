/*
 * parse.c - the key design language: a tokenizer with line/column
 * positions and a recursive-descent parser turning `name = element + ... 
 * [with option, ...]` statements into sbx_keydesign values. Grammar in
 * docs/keys.md. Every error names the line and column; nothing half-built
 * escapes (all allocations are released on failure).
 */
#include "common/alloc.h"
#include "common/bytes.h"
#include "common/error.h"
#include "rowkey/design.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
	MAX_ELEMS = 64,
	MAX_NAME = 64,
	MAX_LITERAL = 256,
	MAX_DESIGNS = 1024,
	MAX_ARGS = KD_MAX_ARGS,
	MAX_OPTION_ITEMS = 64,
};

typedef enum tok_type {
	TK_EOF,
	TK_NL,
	TK_NAME,
	TK_INT,
	TK_STRING,
	TK_EQ,
	TK_COLON,
	TK_LP,
	TK_RP,
	TK_COMMA,
	TK_SEMI,
	TK_SEP,
} tok_type;

typedef struct token {
	tok_type type;
	int line, column;
	const char *start;
	size_t len;
	uint64_t ival;
	uint8_t *sval; /* decoded string literal (owned by the token list) */
	size_t slen;
} token;

typedef struct parser {
	token *toks;
	size_t n, cap, i;
	sbx_keyparse_pos *pos;
} parser;

static const char *tok_desc(tok_type t)
{
	switch (t) {
	case TK_EOF: return "end of text";
	case TK_NL: return "end of line";
	case TK_NAME: return "a name";
	case TK_INT: return "a number";
	case TK_STRING: return "a quoted literal";
	case TK_EQ: return "'='";
	case TK_COLON: return "':'";
	case TK_LP: return "'('";
	case TK_RP: return "')'";
	case TK_COMMA: return "','";
	case TK_SEMI: return "';'";
	case TK_SEP: return "'+'";
	}
	return "?";
}

static int err_at(sbx_keyparse_pos *pos, int line, int column, const char *fmt,
		  ...) __attribute__((format(printf, 4, 5)));

static int err_at(sbx_keyparse_pos *pos, int line, int column, const char *fmt,
		  ...)
{
	char msg[768];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (pos) {
		pos->line = line;
		pos->column = column;
	}
	return sbx_error_set(SBX_EPARSE, "line %d, column %d: %s", line,
			     column, msg);
}

#define PERR(p, t, ...) err_at((p)->pos, (t)->line, (t)->column, __VA_ARGS__)

/* ---- tokenizer ---- */

static bool name_start(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool name_char(int c)
{
	return name_start(c) || (c >= '0' && c <= '9') || c == '-';
}

static void free_tokens(parser *p)
{
	for (size_t i = 0; i < p->n; i++)
		free(p->toks[i].sval);
	free(p->toks);
	p->toks = NULL;
	p->n = p->cap = 0;
}

static token *push_tok(parser *p)
{
	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 64;
		token *t = sbx_realloc(p->toks, cap * sizeof *t);
		if (!t)
			return NULL;
		p->toks = t;
		p->cap = cap;
	}
	token *t = &p->toks[p->n++];
	memset(t, 0, sizeof *t);
	return t;
}

static int lex_string(parser *p, token *t, const char *s, size_t len,
		      size_t *i, int *col)
{
	char q = s[*i];
	size_t j = *i + 1;
	int c = *col + 1;
	sbx_buf b = {0};
	for (;;) {
		if (j >= len || s[j] == '\n') {
			sbx_buf_free(&b);
			return err_at(p->pos, t->line, t->column,
				      "unterminated quoted literal (missing "
				      "closing %c)", q);
		}
		uint8_t ch = (uint8_t)s[j];
		if (ch == (uint8_t)q) {
			j++;
			c++;
			break;
		}
		if (ch == '\\') {
			if (j + 1 >= len) {
				sbx_buf_free(&b);
				return err_at(p->pos, t->line, c,
					      "backslash at end of text");
			}
			char e = s[j + 1];
			int hi, lo;
			switch (e) {
			case 'n': ch = '\n'; break;
			case 't': ch = '\t'; break;
			case 'r': ch = '\r'; break;
			case '0': ch = 0; break;
			case '\\': case '\'': case '"': ch = (uint8_t)e; break;
			case 'x':
				if (j + 3 >= len ||
				    (hi = sbx_hex_digit(s[j + 2])) < 0 ||
				    (lo = sbx_hex_digit(s[j + 3])) < 0) {
					sbx_buf_free(&b);
					return err_at(p->pos, t->line, c,
						      "\\x needs two hex "
						      "digits");
				}
				ch = (uint8_t)(hi << 4 | lo);
				j += 2;
				c += 2;
				break;
			default:
				sbx_buf_free(&b);
				return err_at(p->pos, t->line, c,
					      "unknown escape \\%c (use \\\\, "
					      "\\', \\\", \\n, \\t, \\r, \\0 "
					      "or \\xHH)", e > 32 && e < 127 ? e : '?');
			}
			j += 2;
			c += 2;
		} else {
			j++;
			if ((ch & 0xC0) != 0x80)
				c++;
		}
		if (b.len >= MAX_LITERAL) {
			sbx_buf_free(&b);
			return err_at(p->pos, t->line, t->column,
				      "literal longer than %d bytes",
				      MAX_LITERAL);
		}
		if (sbx_buf_push(&b, ch)) {
			sbx_buf_free(&b);
			return SBX_ENOMEM;
		}
	}
	t->type = TK_STRING;
	t->sval = b.data;
	t->slen = b.len;
	if (!t->sval) { /* empty literal: keep a non-NULL pointer */
		t->sval = sbx_malloc(1);
		if (!t->sval)
			return SBX_ENOMEM_SET();
	}
	*i = j;
	*col = c;
	return SBX_OK;
}

static int tokenize(parser *p, const char *s, size_t len)
{
	size_t i = 0;
	int line = 1, col = 1;
	for (;;) {
		while (i < len && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r')) {
			i++;
			col++;
		}
		if (i < len && s[i] == '#') {
			while (i < len && s[i] != '\n')
				i++;
		}
		token *t = push_tok(p);
		if (!t)
			return SBX_ENOMEM_SET();
		t->line = line;
		t->column = col;
		t->start = s + i;
		if (i >= len) {
			t->type = TK_EOF;
			return SBX_OK;
		}
		unsigned char c = (unsigned char)s[i];
		if (c == '\n') {
			t->type = TK_NL;
			t->len = 1;
			i++;
			line++;
			col = 1;
			continue;
		}
		if (c == 0xC2 && i + 1 < len && (unsigned char)s[i + 1] == 0xB7) {
			t->type = TK_SEP; /* U+00B7 middle dot */
			t->len = 2;
			i += 2;
			col++;
			continue;
		}
		if (name_start(c)) {
			size_t j = i;
			while (j < len && name_char((unsigned char)s[j]))
				j++;
			if (j - i > MAX_NAME)
				return err_at(p->pos, line, col,
					      "name longer than %d characters",
					      MAX_NAME);
			t->type = TK_NAME;
			t->len = j - i;
			col += (int)(j - i);
			i = j;
			continue;
		}
		if (c >= '0' && c <= '9') {
			size_t j = i;
			uint64_t v = 0;
			bool hex = c == '0' && i + 1 < len &&
				   (s[i + 1] == 'x' || s[i + 1] == 'X');
			if (hex)
				j += 2;
			size_t digits = 0;
			while (j < len) {
				int d = hex ? sbx_hex_digit(s[j])
					    : (s[j] >= '0' && s[j] <= '9'
						       ? s[j] - '0'
						       : -1);
				if (d < 0)
					break;
				uint64_t base = hex ? 16 : 10;
				if (v > (UINT64_MAX - (uint64_t)d) / base)
					return err_at(p->pos, line, col,
						      "number too large");
				v = v * base + (uint64_t)d;
				j++;
				digits++;
			}
			if (!digits || (j < len && name_char((unsigned char)s[j])))
				return err_at(p->pos, line, col,
					      "malformed number '%.*s'",
					      (int)(j - i + (j < len)),
					      s + i);
			t->type = TK_INT;
			t->ival = v;
			t->len = j - i;
			col += (int)(j - i);
			i = j;
			continue;
		}
		if (c == '\'' || c == '"') {
			int rc = lex_string(p, t, s, len, &i, &col);
			if (rc)
				return rc;
			continue;
		}
		tok_type tt;
		switch (c) {
		case '=': tt = TK_EQ; break;
		case ':': tt = TK_COLON; break;
		case '(': tt = TK_LP; break;
		case ')': tt = TK_RP; break;
		case ',': tt = TK_COMMA; break;
		case ';': tt = TK_SEMI; break;
		case '+': tt = TK_SEP; break;
		default:
			if (c >= 0x20 && c < 0x7F)
				return err_at(p->pos, line, col,
					      "unexpected character '%c'", c);
			return err_at(p->pos, line, col,
				      "unexpected byte 0x%02X (separate "
				      "elements with '+' or U+00B7 '\xC2\xB7')",
				      c);
		}
		t->type = tt;
		t->len = 1;
		i++;
		col++;
	}
}

/* ---- parser helpers ---- */

static token *cur(parser *p)
{
	return &p->toks[p->i];
}

static token *peek_at(parser *p, size_t k)
{
	size_t j = p->i + k;
	return &p->toks[j < p->n ? j : p->n - 1];
}

static void advance(parser *p)
{
	if (p->toks[p->i].type != TK_EOF)
		p->i++;
}

static void skip_nl(parser *p)
{
	while (cur(p)->type == TK_NL)
		advance(p);
}

/* The next token after any newlines. */
static token *next_non_nl(parser *p)
{
	size_t j = p->i;
	while (j < p->n - 1 && p->toks[j].type == TK_NL)
		j++;
	return &p->toks[j];
}

static bool is_name(const token *t, const char *s)
{
	return t->type == TK_NAME && t->len == strlen(s) &&
	       !memcmp(t->start, s, t->len);
}

static char *tok_strdup(const token *t)
{
	char *s = malloc(t->len + 1);
	if (s) {
		memcpy(s, t->start, t->len);
		s[t->len] = 0;
	}
	return s;
}

static int expect(parser *p, tok_type type, const char *what)
{
	token *t = cur(p);
	if (t->type != type)
		return PERR(p, t, "expected %s, found %s", what,
			    tok_desc(t->type));
	advance(p);
	return SBX_OK;
}

/* ---- arguments: f(a, key=value, ...) ---- */

typedef struct arg {
	token *key; /* NULL when positional */
	token *val;
} arg;

static int parse_args(parser *p, arg *args, size_t *nargs)
{
	*nargs = 0;
	int rc = expect(p, TK_LP, "'('");
	if (rc)
		return rc;
	skip_nl(p);
	if (cur(p)->type == TK_RP) {
		advance(p);
		return SBX_OK;
	}
	for (;;) {
		skip_nl(p);
		if (*nargs == MAX_ARGS)
			return PERR(p, cur(p), "more than %d arguments",
				    MAX_ARGS);
		arg *a = &args[(*nargs)++];
		a->key = NULL;
		if (cur(p)->type == TK_NAME && peek_at(p, 1)->type == TK_EQ) {
			a->key = cur(p);
			advance(p);
			advance(p);
			skip_nl(p);
		}
		token *v = cur(p);
		if (v->type != TK_NAME && v->type != TK_INT &&
		    v->type != TK_STRING)
			return PERR(p, v, "expected an argument (name, number "
					  "or quoted text), found %s",
				    tok_desc(v->type));
		a->val = v;
		advance(p);
		skip_nl(p);
		if (cur(p)->type == TK_COMMA) {
			advance(p);
			continue;
		}
		if (cur(p)->type == TK_RP) {
			advance(p);
			return SBX_OK;
		}
		return PERR(p, cur(p), "expected ',' or ')' in argument list, "
				       "found %s", tok_desc(cur(p)->type));
	}
}

static int arg_int(parser *p, const arg *a, uint64_t lo, uint64_t hi,
		   const char *what, uint64_t *out)
{
	if (a->val->type != TK_INT)
		return PERR(p, a->val, "%s must be a number", what);
	if (a->val->ival < lo || a->val->ival > hi)
		return PERR(p, a->val, "%s must be %llu..%llu, got %llu", what,
			    (unsigned long long)lo, (unsigned long long)hi,
			    (unsigned long long)a->val->ival);
	*out = a->val->ival;
	return SBX_OK;
}

/* ---- types ---- */

typedef struct type_def {
	const char *name;
	kd_type type;
	int int_width;
	bool sized;    /* takes (N) */
	bool reversed;
} type_def;

static const type_def TYPES[] = {
	{"u8", KT_UINT, 1, false, false},    {"u16", KT_UINT, 2, false, false},
	{"u32", KT_UINT, 4, false, false},   {"u64", KT_UINT, 8, false, false},
	{"i8", KT_INT, 1, false, false},     {"i16", KT_INT, 2, false, false},
	{"i32", KT_INT, 4, false, false},    {"i64", KT_INT, 8, false, false},
	{"f32", KT_F32, 0, false, false},    {"f64", KT_F64, 0, false, false},
	{"ts64", KT_TS64, 0, false, false},  {"ts", KT_TS64, 0, false, false},
	{"rts64", KT_RTS64, 0, false, false}, {"rts", KT_RTS64, 0, false, false},
	{"rtsdec", KT_RTSDEC, 0, false, false},
	{"rlen32", KT_RLEN32, 0, false, false},
	{"str", KT_STR, 0, true, false},     {"bytes", KT_BYTES, 0, true, false},
	{"text", KT_TEXT, 0, false, false},  {"dec", KT_DEC, 0, true, false},
	{"rstr", KT_STR, 0, true, true},     {"rdec", KT_DEC, 0, true, true},
};

static const type_def *find_type(const token *t)
{
	for (size_t i = 0; i < sizeof TYPES / sizeof *TYPES; i++)
		if (is_name(t, TYPES[i].name))
			return &TYPES[i];
	return NULL;
}

bool kd_is_salt_name(const char *name)
{
	return !strcmp(name, "salt");
}

static void elem_free(kd_elem *e)
{
	free(e->name);
	free(e->type_text);
	free(e->lit);
	for (size_t i = 0; i < e->n_of; i++)
		free(e->of[i]);
	free(e->of);
	free(e->of_field);
}

static int add_of(parser *p, kd_elem *e, const token *t)
{
	if (t->type != TK_NAME)
		return PERR(p, t, "an input of %s must be a field name",
			    e->kind == KD_SALT ? "salt" : "a hash");
	if (e->n_of == MAX_ARGS)
		return PERR(p, t, "too many inputs");
	char **of = realloc(e->of, (e->n_of + 1) * sizeof *of);
	if (!of)
		return SBX_ENOMEM_SET();
	e->of = of;
	if (!(e->of[e->n_of] = tok_strdup(t)))
		return SBX_ENOMEM_SET();
	e->n_of++;
	return SBX_OK;
}

static int parse_salt(parser *p, kd_elem *e, token *fn)
{
	arg args[MAX_ARGS];
	size_t n;
	int rc = parse_args(p, args, &n);
	if (rc)
		return rc;
	e->kind = KD_SALT;
	e->salt_fmt = SALT_BYTE;
	if (n == 0 || args[0].key || args[0].val->type != TK_INT)
		return PERR(p, fn, "salt needs its bucket count first, e.g. "
				   "salt(16)");
	uint64_t v = 0;
	if ((rc = arg_int(p, &args[0], 1, 256, "salt bucket count", &v)))
		return rc;
	e->buckets = (int)v;
	for (size_t i = 1; i < n; i++) {
		arg *a = &args[i];
		if (!a->key || is_name(a->key, "of")) {
			if ((rc = add_of(p, e, a->val)))
				return rc;
		} else if (is_name(a->key, "format")) {
			if (is_name(a->val, "byte"))
				e->salt_fmt = SALT_BYTE;
			else if (is_name(a->val, "letter"))
				e->salt_fmt = SALT_LETTER;
			else if (is_name(a->val, "hex"))
				e->salt_fmt = SALT_HEX;
			else if (is_name(a->val, "dec"))
				e->salt_fmt = SALT_DEC;
			else
				return PERR(p, a->val, "salt format must be "
						       "byte, letter, hex or "
						       "dec");
		} else {
			return PERR(p, a->key, "salt takes of=FIELD and "
					       "format=byte|letter|hex|dec, not "
					       "'%.*s'", (int)a->key->len,
				    a->key->start);
		}
	}
	if (e->salt_fmt == SALT_LETTER && e->buckets > 26)
		return PERR(p, fn, "letter salts have 26 buckets at most, got "
				   "%d", e->buckets);
	return SBX_OK;
}

static int parse_hash(parser *p, kd_elem *e, token *fn, sbx_hash_algo algo)
{
	arg args[MAX_ARGS];
	size_t n;
	int rc = parse_args(p, args, &n);
	if (rc)
		return rc;
	e->kind = KD_HASH;
	e->algo = algo;
	e->hash_fmt = HASH_HEX_UPPER;
	e->hash_bytes = sbx_hash_size(algo);
	for (size_t i = 0; i < n; i++) {
		arg *a = &args[i];
		uint64_t v = 0;
		if (!a->key || is_name(a->key, "of")) {
			if ((rc = add_of(p, e, a->val)))
				return rc;
		} else if (is_name(a->key, "bytes")) {
			if ((rc = arg_int(p, a, 1, sbx_hash_size(algo),
					  "hash bytes", &v)))
				return rc;
			e->hash_bytes = (size_t)v;
		} else if (is_name(a->key, "seed")) {
			if (algo == SBX_HASH_MD5)
				return PERR(p, a->key, "md5 takes no seed");
			if ((rc = arg_int(p, a, 0,
					  algo == SBX_HASH_XXH64 ||
							  algo == SBX_HASH_XXH3
						  ? UINT64_MAX
						  : UINT32_MAX,
					  "seed", &v)))
				return rc;
			e->seed = v;
		} else if (is_name(a->key, "format")) {
			if (is_name(a->val, "HEX"))
				e->hash_fmt = HASH_HEX_UPPER;
			else if (is_name(a->val, "hex"))
				e->hash_fmt = HASH_HEX_LOWER;
			else if (is_name(a->val, "raw"))
				e->hash_fmt = HASH_RAW;
			else
				return PERR(p, a->val, "hash format must be HEX "
						       "(upper-case hex), hex or "
						       "raw");
		} else {
			return PERR(p, a->key, "a hash takes fields, bytes=N, "
					       "format=HEX|hex|raw and seed=N, "
					       "not '%.*s'", (int)a->key->len,
				    a->key->start);
		}
	}
	if (e->n_of == 0)
		return PERR(p, fn, "%.*s needs the fields it hashes, e.g. "
				   "%.*s(message_id)", (int)fn->len, fn->start,
			    (int)fn->len, fn->start);
	return SBX_OK;
}

static int parse_type(parser *p, kd_elem *e, token *tt)
{
	const type_def *td = find_type(tt);
	if (!td)
		return PERR(p, tt, "unknown type '%.*s' (types: u8..u64, "
				   "i8..i64, f32, f64, ts64, rts64, rtsdec, "
				   "rlen32, str, bytes, text, dec, rstr, rdec; "
				   "quote literal text like ':')",
			    (int)tt->len, tt->start);
	advance(p);
	e->kind = KD_FIELD;
	e->type = td->type;
	e->int_width = td->int_width;
	e->reversed = td->reversed;
	e->pad = e->type == KT_DEC ? '0' : 0;
	e->right_align = e->type == KT_DEC;
	if (cur(p)->type == TK_LP) {
		arg args[MAX_ARGS];
		size_t n;
		token *lp = cur(p);
		int rc = parse_args(p, args, &n);
		if (rc)
			return rc;
		if (!td->sized && e->type != KT_TEXT)
			return PERR(p, lp, "type %s takes no arguments",
				    td->name);
		for (size_t i = 0; i < n; i++) {
			arg *a = &args[i];
			uint64_t v = 0;
			if (!a->key && i == 0 && td->sized) {
				if ((rc = arg_int(p, a, 1, SBX_MAX_ROW_LENGTH,
						  "width", &v)))
					return rc;
				e->width = (size_t)v;
			} else if (a->key && is_name(a->key, "max")) {
				if ((rc = arg_int(p, a, 1, SBX_MAX_ROW_LENGTH,
						  "max", &v)))
					return rc;
				e->max_len = (size_t)v;
			} else if (a->key && is_name(a->key, "typ")) {
				if ((rc = arg_int(p, a, 0, SBX_MAX_ROW_LENGTH,
						  "typ", &v)))
					return rc;
				e->typical = (size_t)v;
			} else if (a->key && is_name(a->key, "pad") &&
				   e->type == KT_STR) {
				if (a->val->type == TK_STRING && a->val->slen == 1)
					e->pad = a->val->sval[0];
				else if (a->val->type == TK_INT &&
					 a->val->ival <= 255)
					e->pad = (uint8_t)a->val->ival;
				else
					return PERR(p, a->val,
						    "pad must be one byte, e.g. "
						    "pad=' ' or pad=0");
			} else if (a->key && is_name(a->key, "align") &&
				   e->type == KT_STR) {
				if (is_name(a->val, "left"))
					e->right_align = false;
				else if (is_name(a->val, "right"))
					e->right_align = true;
				else
					return PERR(p, a->val,
						    "align must be left or right");
			} else {
				return PERR(p, a->key ? a->key : a->val,
					    "type %s does not take this argument "
					    "(it takes %s)", td->name,
					    e->type == KT_STR
						    ? "a width, pad=, align=, max= "
						      "and typ="
						    : td->sized ? "a width, max= and typ="
								: "max= and typ=");
			}
		}
		if (e->width && (e->max_len || e->typical))
			return PERR(p, lp, "max= and typ= are for variable-"
					   "length fields; %s(%zu) is fixed",
				    td->name, e->width);
	}
	/* flags */
	bool order_given = false;
	while (cur(p)->type == TK_NAME && !is_name(cur(p), "with")) {
		token *f = cur(p);
		bool is_order = is_name(f, "desc") || is_name(f, "asc");
		if (is_order && order_given)
			return PERR(p, f, "'%.*s': the order of a field is "
					  "given once (asc or desc)",
				    (int)f->len, f->start);
		if ((is_name(f, "mono") && e->mono) ||
		    (is_name(f, "random") && e->random))
			return PERR(p, f, "flag '%.*s' is given twice",
				    (int)f->len, f->start);
		order_given |= is_order;
		if (is_name(f, "desc"))
			e->desc = true;
		else if (is_name(f, "asc"))
			e->desc = false;
		else if (is_name(f, "mono"))
			e->mono = true;
		else if (is_name(f, "random"))
			e->random = true;
		else
			return PERR(p, f, "unexpected '%.*s' after a type: "
					  "flags are desc, asc, mono, random; "
					  "separate elements with '+' or "
					  "'\xC2\xB7'", (int)f->len, f->start);
		advance(p);
	}
	if (e->desc && (e->type == KT_TEXT || (e->type == KT_DEC && !e->width)))
		return PERR(p, tt, "desc would invert the delimiter of a "
				   "delimited %s field; use str or dec(N)",
			    td->name);
	if (e->mono && e->random)
		return PERR(p, tt, "a field cannot be both mono and random");
	return SBX_OK;
}

static int parse_element(parser *p, kd_elem *e)
{
	token *t = cur(p);
	e->line = t->line;
	e->column = t->column;
	if (t->type == TK_STRING) {
		if (t->slen == 0)
			return PERR(p, t, "empty literal");
		e->kind = KD_LITERAL;
		e->lit = malloc(t->slen);
		if (!e->lit)
			return SBX_ENOMEM_SET();
		memcpy(e->lit, t->sval, t->slen);
		e->lit_len = t->slen;
		advance(p);
		return SBX_OK;
	}
	if (t->type != TK_NAME)
		return PERR(p, t, "expected a field (name:type), a quoted "
				  "literal, salt(...) or a hash, found %s",
			    tok_desc(t->type));
	token *fn = t;
	if (peek_at(p, 1)->type == TK_COLON) {
		if (!(e->name = tok_strdup(t)))
			return SBX_ENOMEM_SET();
		advance(p);
		advance(p);
		fn = cur(p);
		if (fn->type != TK_NAME)
			return PERR(p, fn, "expected a type after '%s:', found "
					   "%s", e->name, tok_desc(fn->type));
	} else if (peek_at(p, 1)->type != TK_LP) {
		return PERR(p, t, "field '%.*s' needs a type, e.g. %.*s:str; "
				  "literal text must be quoted (':')",
			    (int)t->len, t->start, (int)t->len, t->start);
	}
	char fname[MAX_NAME + 1];
	snprintf(fname, sizeof fname, "%.*s", (int)fn->len, fn->start);
	sbx_hash_algo algo = SBX_HASH_MD5;
	if (kd_is_salt_name(fname) || kd_hash_from_name(fname, &algo)) {
		advance(p);
		if (cur(p)->type != TK_LP)
			return PERR(p, cur(p), "expected '(' after %s", fname);
		if (!e->name && !(e->name = strdup(fname)))
			return SBX_ENOMEM_SET();
		return kd_is_salt_name(fname) ? parse_salt(p, e, fn)
					      : parse_hash(p, e, fn, algo);
	}
	if (!e->name) {
		if (find_type(fn))
			return PERR(p, fn, "a %s field needs a name: write "
					   "name:%s", fname, fname);
		return PERR(p, fn, "unknown function '%s' (functions: salt, "
				   "md5, murmur3, murmur3_128, xxh32, xxh64, "
				   "xxh3)", fname);
	}
	return parse_type(p, e, fn);
}

static int option_list(parser *p, token *name, kd_option_list *l)
{
	arg args[MAX_ARGS];
	size_t n;
	int rc = parse_args(p, args, &n);
	if (rc)
		return rc;
	if (n == 0)
		return PERR(p, name, "%.*s() needs at least one item",
			    (int)name->len, name->start);
	for (size_t i = 0; i < n; i++) {
		token *v = args[i].val;
		if (args[i].key)
			return PERR(p, args[i].key, "unexpected '='");
		if (l->n == MAX_OPTION_ITEMS)
			return PERR(p, v, "too many items");
		char *s;
		if (v->type == TK_STRING) {
			if (memchr(v->sval, 0, v->slen))
				return PERR(p, v, "names cannot hold \\0");
			s = malloc(v->slen + 1);
			if (s) {
				memcpy(s, v->sval, v->slen);
				s[v->slen] = 0;
			}
		} else if (v->type == TK_NAME) {
			s = tok_strdup(v);
		} else {
			return PERR(p, v, "expected a name");
		}
		if (!s)
			return SBX_ENOMEM_SET();
		char **items = realloc(l->items, (l->n + 1) * sizeof *items);
		if (!items) {
			free(s);
			return SBX_ENOMEM_SET();
		}
		l->items = items;
		l->items[l->n++] = s;
	}
	return SBX_OK;
}

static int parse_options(parser *p, sbx_keydesign *d)
{
	for (;;) {
		skip_nl(p);
		token *o = cur(p);
		if (o->type != TK_NAME)
			return PERR(p, o, "expected an option (scan, identity, "
					  "regions, family, qualifier, allow), "
					  "found %s", tok_desc(o->type));
		advance(p);
		if (cur(p)->type != TK_LP)
			return PERR(p, cur(p), "expected '(' after %.*s",
				    (int)o->len, o->start);
		int rc;
		if (is_name(o, "scan"))
			rc = option_list(p, o, &d->scan);
		else if (is_name(o, "identity"))
			rc = option_list(p, o, &d->identity);
		else if (is_name(o, "family"))
			rc = option_list(p, o, &d->family);
		else if (is_name(o, "qualifier") || is_name(o, "qualifiers"))
			rc = option_list(p, o, &d->qualifier);
		else if (is_name(o, "allow"))
			rc = option_list(p, o, &d->allow);
		else if (is_name(o, "regions")) {
			arg args[MAX_ARGS];
			size_t n;
			uint64_t v = 0;
			rc = parse_args(p, args, &n);
			if (!rc && n != 1)
				rc = PERR(p, o, "regions() takes one number");
			if (!rc && args[0].key)
				rc = PERR(p, args[0].key, "unexpected '='");
			if (!rc)
				rc = arg_int(p, &args[0], 1, 1000000,
					     "regions", &v);
			if (!rc)
				d->regions = (int)v;
		} else
			return PERR(p, o, "unknown option '%.*s' (options: "
					  "scan, identity, regions, family, "
					  "qualifier, allow)",
				    (int)o->len, o->start);
		if (rc)
			return rc;
		if (cur(p)->type != TK_COMMA)
			return SBX_OK;
		advance(p);
	}
}

static int parse_statement(parser *p, sbx_keydesign *d)
{
	token *t = cur(p);
	d->line = t->line;
	if (t->type == TK_NAME && peek_at(p, 1)->type == TK_EQ) {
		if (!(d->name = tok_strdup(t)))
			return SBX_ENOMEM_SET();
		advance(p);
		advance(p);
		skip_nl(p);
	} else if (!(d->name = strdup("key"))) {
		return SBX_ENOMEM_SET();
	}
	for (;;) {
		if (d->n_elems == MAX_ELEMS)
			return PERR(p, cur(p), "more than %d elements in one "
					       "key", MAX_ELEMS);
		kd_elem *e = &d->elems[d->n_elems];
		memset(e, 0, sizeof *e);
		d->n_elems++;
		int rc = parse_element(p, e);
		if (rc)
			return rc;
		token *n = next_non_nl(p);
		if (n->type == TK_SEP) {
			skip_nl(p);
			advance(p);
			skip_nl(p);
			continue;
		}
		if (cur(p)->type == TK_COLON)
			return PERR(p, cur(p), "a ':' between elements is a "
					       "literal: quote it (':') and "
					       "join elements with '+'");
		if (cur(p)->type == TK_NAME && !is_name(cur(p), "with"))
			return PERR(p, cur(p), "expected '+' or '\xC2\xB7' "
					       "between elements, found "
					       "'%.*s'", (int)cur(p)->len,
				    cur(p)->start);
		break;
	}
	token *n = next_non_nl(p);
	if (is_name(n, "with")) {
		skip_nl(p);
		advance(p);
		int rc = parse_options(p, d);
		if (rc)
			return rc;
	}
	t = cur(p);
	if (t->type != TK_NL && t->type != TK_SEMI && t->type != TK_EOF)
		return PERR(p, t, "expected '+' and another element, 'with', "
				  "';' or the end of the line, found %s",
			    tok_desc(t->type));
	return SBX_OK;
}

void sbx_keyset_free(sbx_keyset *set)
{
	if (!set)
		return;
	for (size_t i = 0; i < set->n; i++)
		kd_design_free(set->designs[i]);
	free(set->designs);
	free(set);
}

static void option_free(kd_option_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->items[i]);
	free(l->items);
}

void kd_design_free(sbx_keydesign *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->n_elems; i++)
		elem_free(&d->elems[i]);
	free(d->elems);
	for (size_t i = 0; i < d->n_fields; i++)
		free(d->fields[i].name);
	free(d->fields);
	option_free(&d->scan);
	option_free(&d->identity);
	option_free(&d->family);
	option_free(&d->qualifier);
	option_free(&d->allow);
	free(d->name);
	free(d->text);
	free(d->order);
	free(d);
}

int sbx_keyset_parse(sbx_keyset **out, const char *text, size_t len,
		     sbx_keyparse_pos *pos)
{
	*out = NULL;
	if (pos)
		pos->line = pos->column = 0;
	if (!text && len)
		return sbx_error_set(SBX_EINVAL, "design text is NULL");
	parser p = {.pos = pos};
	sbx_keyset *set = calloc(1, sizeof *set);
	if (!set)
		return SBX_ENOMEM_SET();
	int rc = tokenize(&p, text ? text : "", len);
	bool anonymous = false;
	while (!rc) {
		while (cur(&p)->type == TK_NL || cur(&p)->type == TK_SEMI)
			advance(&p);
		if (cur(&p)->type == TK_EOF)
			break;
		token *start = cur(&p);
		if (set->n == MAX_DESIGNS) {
			rc = PERR(&p, start, "more than %d designs",
				  MAX_DESIGNS);
			break;
		}
		sbx_keydesign *d = calloc(1, sizeof *d);
		kd_elem *elems = calloc(MAX_ELEMS, sizeof *elems);
		sbx_keydesign **ds =
			realloc(set->designs, (set->n + 1) * sizeof *ds);
		if (ds)
			set->designs = ds;
		if (!d || !elems || !ds) {
			free(d);
			free(elems);
			rc = SBX_ENOMEM_SET();
			break;
		}
		d->elems = elems;
		set->designs[set->n++] = d;
		bool named = start->type == TK_NAME &&
			     peek_at(&p, 1)->type == TK_EQ;
		if ((rc = parse_statement(&p, d)))
			break;
		if ((rc = kd_design_finish(d, pos)))
			break;
		if (!named)
			anonymous = true;
		if (anonymous && set->n > 1) {
			rc = err_at(pos, d->line, 1,
				    "a file with several designs must name "
				    "each one (name = ...)");
			break;
		}
		for (size_t i = 0; i + 1 < set->n; i++)
			if (!strcmp(set->designs[i]->name, d->name)) {
				rc = err_at(pos, d->line, 1,
					    "design '%s' is defined twice "
					    "(first on line %d)", d->name,
					    set->designs[i]->line);
				break;
			}
	}
	free_tokens(&p);
	if (!rc && set->n == 0)
		rc = err_at(pos, 1, 1, "no key design in the text");
	if (rc) {
		sbx_keyset_free(set);
		return rc;
	}
	*out = set;
	return SBX_OK;
}

size_t sbx_keyset_count(const sbx_keyset *set)
{
	return set ? set->n : 0;
}

const sbx_keydesign *sbx_keyset_at(const sbx_keyset *set, size_t i)
{
	return set && i < set->n ? set->designs[i] : NULL;
}

const sbx_keydesign *sbx_keyset_find(const sbx_keyset *set, const char *name)
{
	for (size_t i = 0; set && name && i < set->n; i++)
		if (!strcmp(set->designs[i]->name, name))
			return set->designs[i];
	return NULL;
}

int sbx_keydesign_parse(sbx_keydesign **out, const char *text, size_t len,
			sbx_keyparse_pos *pos)
{
	*out = NULL;
	sbx_keyset *set;
	int rc = sbx_keyset_parse(&set, text, len, pos);
	if (rc)
		return rc;
	if (set->n != 1) {
		size_t n = set->n;
		sbx_keyset_free(set);
		return sbx_error_set(SBX_EINVAL,
				     "the text holds %zu designs; pick one by "
				     "name (sbx_keyset_find)", n);
	}
	*out = set->designs[0];
	set->n = 0;
	sbx_keyset_free(set);
	return SBX_OK;
}

void sbx_keydesign_free(sbx_keydesign *d)
{
	kd_design_free(d);
}
