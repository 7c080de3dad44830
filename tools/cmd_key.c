/*
 * cmd_key.c - `saltbox key explain|encode|decode|lint|plan`: the row-key
 * toolkit on the command line. A design comes inline or from a file (a
 * file may hold several named designs); output is for people by default
 * and JSON with --json. Keys print as HBase's Bytes.toStringBinary.
 */
#include "cli.h"
#include "common/buf.h"
#include "common/bytes.h"
#include "saltbox/rowkey.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_DESIGN_FILE = 4 << 20 };

typedef struct key_opts {
	const char *verb;
	const char *design_text; /* inline */
	const char *file;
	const char *name;
	bool json, hex, reverse, strict;
	char **args; /* positional after the design */
	int nargs;
} key_opts;

static void key_usage(FILE *out)
{
	fprintf(out,
		"usage: saltbox key <verb> [options] [DESIGN] [ARGS...]\n"
		"\n"
		"Row-key designs: write a key once, then encode, decode, explain,\n"
		"lint and plan scans with it. Grammar: docs/keys.md.\n"
		"\n"
		"verbs:\n"
		"  explain                 byte layout, widths, lengths, sort order\n"
		"  encode FIELD=VALUE...   the row key of a record\n"
		"  decode KEY              the fields of a row key (KEY as HBase prints\n"
		"                          it, with \\xHH escapes; or hex with --hex)\n"
		"  lint                    rule findings, each citing its source\n"
		"  plan [COND...]          scan ranges; COND is FIELD=V, FIELD>=V,\n"
		"                          FIELD>V, FIELD<V or FIELD<=V (one ranged\n"
		"                          field after the '=' ones); one range per\n"
		"                          salt bucket\n"
		"\n"
		"design (one of):\n"
		"  DESIGN                  inline text, the first argument, e.g.\n"
		"                          'user_id:str(10) + ts:rts64'\n"
		"  -e, --design TEXT       inline text\n"
		"  -f, --file FILE         a design file ('-' reads stdin)\n"
		"  -n, --name NAME         the design to use from the file (explain and\n"
		"                          lint use all designs when it is left out)\n"
		"\n"
		"options:\n"
		"  --json                  JSON output for scripts\n"
		"  --hex                   encode: print only hex; decode: KEY is hex\n"
		"  --reverse               plan: print HBase reversed-scan bounds\n"
		"  --strict                lint: exit 1 when there is a warning\n"
		"  -h, --help              this help\n"
		"\n"
		"examples:\n"
		"  saltbox key encode \"md5(message_id) + ':' + date:str(6) + ':' + "
		"time:str(6) + ':' + message_id:dec\" message_id=1231231 "
		"date=230611 time=063031\n"
		"  saltbox key plan -f keys.design -n product_comment "
		"product_id=p1 'ts>=1686000000000'\n");
}

static int fail(const char *fmt, const char *detail)
{
	fprintf(stderr, "saltbox key: ");
	fprintf(stderr, fmt, detail);
	fputc('\n', stderr);
	return 1;
}

static bool key_verb_known(const char *verb)
{
	static const char *const verbs[] = {"explain", "encode", "decode",
					    "lint", "plan"};
	for (size_t i = 0; i < sizeof verbs / sizeof *verbs; i++)
		if (!strcmp(verb, verbs[i]))
			return true;
	return false;
}

static int parse_opts(int argc, char **argv, key_opts *o)
{
	memset(o, 0, sizeof *o);
	o->args = calloc((size_t)argc + 1, sizeof *o->args);
	if (!o->args)
		return 1;
	bool opts_done = false;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!opts_done && a[0] == '-' && a[1]) {
			if (!strcmp(a, "--")) {
				opts_done = true;
			} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
				key_usage(stdout);
				return -1;
			} else if (!strcmp(a, "--json")) {
				o->json = true;
			} else if (!strcmp(a, "--hex")) {
				o->hex = true;
			} else if (!strcmp(a, "--reverse")) {
				o->reverse = true;
			} else if (!strcmp(a, "--strict")) {
				o->strict = true;
			} else if (!strcmp(a, "-e") || !strcmp(a, "--design") ||
				   !strcmp(a, "-f") || !strcmp(a, "--file") ||
				   !strcmp(a, "-n") || !strcmp(a, "--name")) {
				if (i + 1 >= argc) {
					fprintf(stderr, "saltbox key: %s needs a "
							"value\n", a);
					return 2;
				}
				const char *v = argv[++i];
				if (a[1] == 'e' || !strcmp(a, "--design"))
					o->design_text = v;
				else if (a[1] == 'f' || !strcmp(a, "--file"))
					o->file = v;
				else
					o->name = v;
			} else {
				fprintf(stderr, "saltbox key: unknown option "
						"'%s' (see --help)\n", a);
				return 2;
			}
			continue;
		}
		if (!o->verb)
			o->verb = a;
		else
			o->args[o->nargs++] = argv[i];
	}
	if (!o->verb) {
		key_usage(stderr);
		return 2;
	}
	if (!key_verb_known(o->verb))
		return 0; /* cmd_key names the unknown verb */
	if (!o->design_text && !o->file) {
		if (!o->nargs) {
			fprintf(stderr, "saltbox key %s: give a design (inline, "
					"-e TEXT or -f FILE)\n", o->verb);
			return 2;
		}
		o->design_text = o->args[0];
		memmove(o->args, o->args + 1, (size_t)o->nargs * sizeof *o->args);
		o->nargs--;
	}
	if (o->design_text && o->file) {
		fprintf(stderr, "saltbox key: give -e or -f, not both\n");
		return 2;
	}
	return 0;
}

static char *read_file(const char *path, size_t *len)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
	if (!f)
		return NULL;
	sbx_buf b = {0};
	char chunk[8192];
	size_t n;
	bool ok = true;
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
		if (b.len + n > MAX_DESIGN_FILE || sbx_buf_append(&b, chunk, n)) {
			ok = false;
			break;
		}
	}
	if (ferror(f))
		ok = false;
	if (f != stdin)
		fclose(f);
	if (!ok || sbx_buf_push(&b, 0)) {
		sbx_buf_free(&b);
		return NULL;
	}
	*len = b.len - 1;
	return (char *)b.data;
}

/* ---- output helpers ---- */

static char *binary_string(const uint8_t *p, size_t n)
{
	sbx_buf b = {0};
	if (sbx_key_to_binary_string(&b, p, n) || sbx_buf_push(&b, 0)) {
		sbx_buf_free(&b);
		return strdup("");
	}
	return (char *)b.data;
}

static char *hex_string(const uint8_t *p, size_t n)
{
	sbx_buf b = {0};
	if (sbx_key_put_hex(&b, p, n, false) || sbx_buf_push(&b, 0)) {
		sbx_buf_free(&b);
		return strdup("");
	}
	return (char *)b.data;
}

static void json_set_str(json_t *o, const char *k, char *owned)
{
	json_object_set_new(o, k, json_string(owned ? owned : ""));
	free(owned);
}

static void json_print(json_t *j)
{
	char *s = json_dumps(j, JSON_INDENT(2) | JSON_ENSURE_ASCII);
	if (s) {
		puts(s);
		free(s);
	}
	json_decref(j);
}

static const char *order_name(sbx_keyorder o)
{
	switch (o) {
	case SBX_ORDER_ASC: return "asc";
	case SBX_ORDER_DESC: return "desc";
	case SBX_ORDER_NONE: return "none";
	case SBX_ORDER_FIXED: return "fixed";
	}
	return "?";
}

static const char *kind_name(sbx_keyelem_kind k)
{
	switch (k) {
	case SBX_KEYELEM_LITERAL: return "literal";
	case SBX_KEYELEM_FIELD: return "field";
	case SBX_KEYELEM_SALT: return "salt";
	case SBX_KEYELEM_HASH: return "hash";
	}
	return "?";
}

static json_t *json_len(size_t v)
{
	return v == SBX_KEYLEN_UNBOUNDED ? json_null() : json_integer((json_int_t)v);
}

/* ---- verbs ---- */

static json_t *explain_json(const sbx_keydesign *d)
{
	json_t *o = json_object();
	json_object_set_new(o, "name", json_string(sbx_keydesign_name(d)));
	json_object_set_new(o, "text", json_string(sbx_keydesign_text(d)));
	json_t *els = json_array();
	for (size_t i = 0; i < sbx_keydesign_elem_count(d); i++) {
		sbx_keyelem_info in;
		sbx_keydesign_elem(&in, d, i);
		json_t *e = json_object();
		json_object_set_new(e, "kind", json_string(kind_name(in.kind)));
		json_object_set_new(e, "name", json_string(in.name));
		json_object_set_new(e, "type", json_string(in.type));
		json_object_set_new(e, "layout", json_string(in.layout));
		json_object_set_new(e, "order", json_string(order_name(in.order)));
		json_object_set_new(e, "fixed_width", json_boolean(in.fixed_width));
		json_object_set_new(e, "min", json_len(in.min_len));
		json_object_set_new(e, "typical", json_len(in.typical_len));
		json_object_set_new(e, "max", json_len(in.max_len));
		json_object_set_new(e, "offset", in.offset >= 0
							 ? json_integer(in.offset)
							 : json_null());
		json_array_append_new(els, e);
	}
	json_object_set_new(o, "elements", els);
	size_t mn, typ, mx;
	sbx_keydesign_length(&mn, &typ, &mx, d);
	json_t *len = json_object();
	json_object_set_new(len, "min", json_len(mn));
	json_object_set_new(len, "typical", json_len(typ));
	json_object_set_new(len, "max", json_len(mx));
	json_object_set_new(len, "fixed_width", json_boolean(mn == mx));
	json_object_set_new(o, "length", len);
	json_object_set_new(o, "order", json_string(sbx_keydesign_order(d)));
	json_object_set_new(o, "salt_buckets",
			    json_integer(sbx_keydesign_buckets(d)));
	return o;
}

static int do_explain(const key_opts *o, const sbx_keydesign **ds, size_t n)
{
	json_t *arr = o->json ? json_array() : NULL;
	for (size_t i = 0; i < n; i++) {
		if (arr) {
			json_array_append_new(arr, explain_json(ds[i]));
			continue;
		}
		sbx_buf b = {0};
		if (sbx_keydesign_explain(&b, ds[i])) {
			sbx_buf_free(&b);
			return fail("%s", sbx_errmsg());
		}
		printf("%s%.*s", i ? "\n" : "", (int)b.len, (char *)b.data);
		sbx_buf_free(&b);
	}
	if (arr && n == 1) {
		json_print(json_incref(json_array_get(arr, 0)));
		json_decref(arr);
	} else if (arr) {
		json_print(arr);
	}
	return 0;
}

static int do_lint(const key_opts *o, const sbx_keydesign **ds, size_t n)
{
	json_t *arr = o->json ? json_array() : NULL;
	bool warned = false;
	for (size_t i = 0; i < n; i++) {
		sbx_keylint *rep = NULL;
		if (sbx_keydesign_lint(&rep, ds[i])) {
			json_decref(arr);
			return fail("%s", sbx_errmsg());
		}
		json_t *fs = arr ? json_array() : NULL;
		if (!arr && !rep->count)
			printf("%s: no findings\n", sbx_keydesign_name(ds[i]));
		for (size_t k = 0; k < rep->count; k++) {
			const sbx_lint_finding *f = &rep->findings[k];
			const char *lvl = f->level == SBX_LINT_WARN ? "warning"
								    : "info";
			warned = warned || f->level == SBX_LINT_WARN;
			if (fs) {
				json_t *j = json_object();
				json_object_set_new(j, "rule", json_string(f->rule));
				json_object_set_new(j, "level", json_string(lvl));
				json_object_set_new(j, "message",
						    json_string(f->message));
				json_object_set_new(j, "cite", json_string(f->cite));
				json_array_append_new(fs, j);
			} else {
				printf("%s: %s [%s] %s\n    see %s\n",
				       sbx_keydesign_name(ds[i]), lvl, f->rule,
				       f->message, f->cite);
			}
		}
		if (arr) {
			json_t *d = json_object();
			json_object_set_new(d, "design",
					    json_string(sbx_keydesign_name(ds[i])));
			json_object_set_new(d, "findings", fs);
			json_array_append_new(arr, d);
		}
		sbx_keylint_free(rep);
	}
	if (arr)
		json_print(arr);
	return o->strict && warned ? 1 : 0;
}

/* Split NAME=VALUE (or a condition) at its operator. */
static int split_cond(const char *a, sbx_keycond *c, char **name)
{
	static const struct {
		const char *op;
		sbx_keycond_op code;
	} ops[] = {{">=", SBX_KEYCOND_GE}, {"<=", SBX_KEYCOND_LE},
		   {">", SBX_KEYCOND_GT},  {"<", SBX_KEYCOND_LT},
		   {"=", SBX_KEYCOND_EQ}};
	size_t best = strlen(a);
	int which = -1;
	for (int k = 0; k < 5; k++) {
		const char *p = strstr(a, ops[k].op);
		if (p && (size_t)(p - a) < best) {
			best = (size_t)(p - a);
			which = k;
		} else if (p && (size_t)(p - a) == best && which >= 0 &&
			   strlen(ops[k].op) > strlen(ops[which].op)) {
			which = k;
		}
	}
	if (which < 0 || best == 0)
		return -1;
	*name = strndup(a, best);
	if (!*name)
		return -1;
	c->name = *name;
	c->op = ops[which].code;
	c->value = a + best + strlen(ops[which].op);
	c->value_len = strlen(c->value);
	return 0;
}

static int do_encode(const key_opts *o, const sbx_keydesign *d)
{
	sbx_keyvalue *vals = calloc((size_t)o->nargs + 1, sizeof *vals);
	char **names = calloc((size_t)o->nargs + 1, sizeof *names);
	int rc = 0;
	for (int i = 0; vals && names && i < o->nargs; i++) {
		sbx_keycond c;
		if (split_cond(o->args[i], &c, &names[i]) || c.op != SBX_KEYCOND_EQ) {
			rc = fail("'%s' is not FIELD=VALUE", o->args[i]);
			break;
		}
		vals[i] = (sbx_keyvalue){c.name, c.value, c.value_len};
	}
	sbx_buf key = {0};
	if (!rc && (!vals || !names))
		rc = fail("%s", "out of memory");
	if (!rc && sbx_keydesign_encode(&key, d, vals, (size_t)o->nargs))
		rc = fail("%s", sbx_errmsg());
	if (!rc) {
		if (o->json) {
			json_t *j = json_object();
			json_object_set_new(j, "design",
					    json_string(sbx_keydesign_name(d)));
			json_set_str(j, "key", binary_string(key.data, key.len));
			json_set_str(j, "hex", hex_string(key.data, key.len));
			json_object_set_new(j, "length", json_integer((json_int_t)key.len));
			json_print(j);
		} else if (o->hex) {
			char *h = hex_string(key.data, key.len);
			puts(h);
			free(h);
		} else {
			char *s = binary_string(key.data, key.len);
			char *h = hex_string(key.data, key.len);
			printf("key:    %s\nhex:    %s\nlength: %zu bytes\n", s, h,
			       key.len);
			free(s);
			free(h);
		}
	}
	for (int i = 0; names && i < o->nargs; i++)
		free(names[i]);
	free(names);
	free(vals);
	sbx_buf_free(&key);
	return rc;
}

static int hex_to_bytes(const char *s, sbx_buf *out)
{
	size_t bad_at;
	return sbx_hex_decode(out, s, strlen(s), &bad_at) ? -1 : 0;
}

static int do_decode(const key_opts *o, const sbx_keydesign *d)
{
	if (o->nargs != 1)
		return fail("%s", "decode takes one KEY");
	sbx_buf key = {0};
	int rc = o->hex ? hex_to_bytes(o->args[0], &key)
			: sbx_key_from_binary_string(&key, o->args[0],
						     strlen(o->args[0]));
	if (rc) {
		sbx_buf_free(&key);
		return fail("bad KEY: %s", o->hex ? "expected hex digits"
						  : sbx_errmsg());
	}
	sbx_keyrecord *r = NULL;
	if (sbx_keydesign_decode(&r, d, key.data, key.len)) {
		sbx_buf_free(&key);
		return fail("%s", sbx_errmsg());
	}
	json_t *arr = o->json ? json_array() : NULL;
	for (size_t i = 0; i < sbx_keyrecord_count(r); i++) {
		char *v = binary_string((const uint8_t *)sbx_keyrecord_value(r, i),
					sbx_keyrecord_value_len(r, i));
		if (arr) {
			json_t *f = json_object();
			json_object_set_new(f, "name",
					    json_string(sbx_keyrecord_name(r, i)));
			json_set_str(f, "value", v);
			json_array_append_new(arr, f);
		} else {
			printf("%-16s %s\n", sbx_keyrecord_name(r, i), v);
			free(v);
		}
	}
	if (arr) {
		json_t *j = json_object();
		json_object_set_new(j, "design", json_string(sbx_keydesign_name(d)));
		json_object_set_new(j, "fields", arr);
		json_print(j);
	}
	sbx_keyrecord_free(r);
	sbx_buf_free(&key);
	return 0;
}

static json_t *bound_json(const uint8_t *p, size_t n, bool inclusive)
{
	json_t *b = json_object();
	json_set_str(b, "key", binary_string(p, n));
	json_set_str(b, "hex", hex_string(p, n));
	json_object_set_new(b, "inclusive", json_boolean(inclusive));
	return b;
}

static int do_plan(const key_opts *o, const sbx_keydesign *d)
{
	sbx_keycond *conds = calloc((size_t)o->nargs + 1, sizeof *conds);
	char **names = calloc((size_t)o->nargs + 1, sizeof *names);
	int rc = (!conds || !names) ? fail("%s", "out of memory") : 0;
	for (int i = 0; !rc && i < o->nargs; i++)
		if (split_cond(o->args[i], &conds[i], &names[i]))
			rc = fail("'%s' is not FIELD=V, FIELD>=V, FIELD>V, "
				  "FIELD<V or FIELD<=V", o->args[i]);
	sbx_keyplan *p = NULL;
	if (!rc && sbx_keydesign_plan(&p, d, conds, (size_t)o->nargs))
		rc = fail("%s", sbx_errmsg());
	if (!rc && o->json) {
		json_t *j = json_object();
		json_object_set_new(j, "design", json_string(sbx_keydesign_name(d)));
		json_object_set_new(j, "salt_len", json_integer((json_int_t)p->salt_len));
		json_object_set_new(j, "buckets", json_integer(sbx_keydesign_buckets(d)));
		json_object_set_new(j, "point", json_boolean(p->point));
		json_t *rs = json_array();
		for (size_t i = 0; i < p->count; i++) {
			const sbx_keyrange *r = &p->ranges[i];
			json_t *x = json_object();
			json_object_set_new(x, "bucket", r->bucket >= 0
								 ? json_integer(r->bucket)
								 : json_null());
			json_object_set_new(x, "start",
					    bound_json(r->start, r->start_len, true));
			json_object_set_new(x, "stop",
					    bound_json(r->stop, r->stop_len, false));
			json_t *rev = json_object();
			json_object_set_new(rev, "start",
					    bound_json(r->stop, r->stop_len, false));
			json_object_set_new(rev, "stop",
					    bound_json(r->start, r->start_len, true));
			json_object_set_new(x, "reversed", rev);
			json_array_append_new(rs, x);
		}
		json_object_set_new(j, "ranges", rs);
		json_print(j);
	} else if (!rc) {
		printf("design %s: %zu range%s%s\n", sbx_keydesign_name(d),
		       p->count, p->count == 1 ? "" : "s",
		       p->point ? " (a Get of one key)" : "");
		if (p->salt_len && p->count > 1)
			printf("merge rows from all ranges comparing keys after "
			       "the first %zu salt byte%s\n", p->salt_len,
			       p->salt_len == 1 ? "" : "s");
		if (o->reverse)
			printf("reversed scan, HBase order: start = high bound "
			       "(exclusive), stop = low bound (inclusive); "
			       "empty = table end/start\n");
		else
			printf("forward scan: start inclusive, stop exclusive; "
			       "empty = table start/end\n");
		printf("%-7s %-40s %s\n", "bucket", "start", "stop");
		for (size_t i = 0; i < p->count; i++) {
			const sbx_keyrange *r = &p->ranges[i];
			char *s = binary_string(o->reverse ? r->stop : r->start,
						o->reverse ? r->stop_len : r->start_len);
			char *e = binary_string(o->reverse ? r->start : r->stop,
						o->reverse ? r->start_len : r->stop_len);
			char b[16] = "-";
			if (r->bucket >= 0)
				snprintf(b, sizeof b, "%d", r->bucket);
			printf("%-7s %-40s %s\n", b, s, e);
			free(s);
			free(e);
		}
	}
	for (int i = 0; names && i < o->nargs; i++)
		free(names[i]);
	free(names);
	free(conds);
	sbx_keyplan_free(p);
	return rc;
}

int cmd_key(int argc, char **argv)
{
	key_opts o;
	int rc = parse_opts(argc, argv, &o);
	if (rc) {
		free(o.args);
		return rc < 0 ? 0 : rc;
	}
	if (!key_verb_known(o.verb)) {
		fprintf(stderr, "saltbox key: unknown verb '%s' (explain, "
				"encode, decode, lint, plan)\n", o.verb);
		free(o.args);
		return 2;
	}
	char *text = NULL;
	size_t len = 0;
	if (o.file) {
		text = read_file(o.file, &len);
		if (!text) {
			free(o.args);
			return fail("cannot read design file '%s'", o.file);
		}
	}
	const char *src = text ? text : o.design_text;
	if (!text)
		len = strlen(src);
	sbx_keyset *set = NULL;
	if (sbx_keyset_parse(&set, src, len, NULL)) {
		fprintf(stderr, "saltbox key: %s%s%s\n", o.file ? o.file : "",
			o.file ? ": " : "", sbx_errmsg());
		free(text);
		free(o.args);
		return 1;
	}
	const sbx_keydesign **ds = calloc(sbx_keyset_count(set), sizeof *ds);
	size_t n = 0;
	if (!ds) {
		rc = fail("%s", "out of memory");
	} else if (o.name) {
		ds[0] = sbx_keyset_find(set, o.name);
		n = 1;
		if (!ds[0])
			rc = fail("no design named '%s'", o.name);
	} else {
		for (n = 0; n < sbx_keyset_count(set); n++)
			ds[n] = sbx_keyset_at(set, n);
		bool many_ok = !strcmp(o.verb, "explain") || !strcmp(o.verb, "lint");
		if (n > 1 && !many_ok)
			rc = fail("the file holds several designs; pick one "
				  "with --name (%s)", sbx_keydesign_name(ds[0]));
	}
	if (!rc) {
		if (!strcmp(o.verb, "explain"))
			rc = do_explain(&o, ds, n);
		else if (!strcmp(o.verb, "lint"))
			rc = do_lint(&o, ds, n);
		else if (!strcmp(o.verb, "encode"))
			rc = do_encode(&o, ds[0]);
		else if (!strcmp(o.verb, "decode"))
			rc = do_decode(&o, ds[0]);
		else
			rc = do_plan(&o, ds[0]);
	}
	free(ds);
	sbx_keyset_free(set);
	free(text);
	free(o.args);
	return rc;
}
