/*
 * model.c - the other REST bodies: the scanner spec (ScannerModel) and the
 * table schema (TableSchemaModel / ColumnSchemaModel), each in JSON, XML and
 * protobuf, and the schema's family attributes onto sbx_family_desc
 * (sbx_family_desc_set). Unknown attributes are kept out of the
 * descriptor (HBase stores them; Saltbox has nowhere to), bad values are
 * a 400.
 */
#include "server/codec.h"

#include "common/alloc.h"
#include "common/buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define M_ERR(err, ...) (snprintf((err), REST_ERR_LEN, __VA_ARGS__), SBX_EPARSE)

/* ---- scanner spec --------------------------------------------------------- */

void rest_scan_spec_init(rest_scan_spec *s)
{
	memset(s, 0, sizeof *s);
	s->end_time = INT64_MAX;
	s->max_versions = INT32_MAX;
	s->cache_blocks = true;
}

void rest_scan_spec_free(rest_scan_spec *s)
{
	sbx_buf_free(&s->start_row);
	sbx_buf_free(&s->end_row);
	for (size_t i = 0; i < s->ncolumns; i++)
		rest_column_free(&s->columns[i]);
	free(s->columns);
	free(s->filter);
	rest_scan_spec_init(s);
}

static int spec_add_column(rest_scan_spec *s, const uint8_t *col, size_t len,
			   char *err)
{
	rest_column *cols =
	    sbx_realloc(s->columns, (s->ncolumns + 1) * sizeof *cols);
	if (!cols)
		return SBX_ENOMEM;
	s->columns = cols;
	int rc = rest_column_parse(&cols[s->ncolumns], col, len, err);
	if (rc == SBX_OK)
		s->ncolumns++;
	return rc;
}

static int spec_b64_column(rest_scan_spec *s, const char *text, size_t len,
			   char *err)
{
	sbx_buf b = {0};
	int rc = rest_b64_decode(&b, text, len);
	if (rc)
		rc = M_ERR(err, "scanner column is not valid base64");
	else
		rc = spec_add_column(s, b.data, b.len, err);
	sbx_buf_free(&b);
	return rc;
}

/* Set a numeric field from text or JSON, checking its range. */
static int spec_number(rest_scan_spec *s, const char *name, int64_t v,
		       char *err)
{
	if (!strcmp(name, "batch") || !strcmp(name, "maxVersions") ||
	    !strcmp(name, "caching")) {
		if (v < INT32_MIN || v > INT32_MAX)
			return M_ERR(err, "scanner %s out of range", name);
		if (name[0] == 'b')
			s->batch = (int32_t)v;
		else if (name[0] == 'm')
			s->max_versions = (int32_t)v;
		else
			s->caching = (int32_t)v;
	} else if (!strcmp(name, "startTime")) {
		s->start_time = v;
	} else if (!strcmp(name, "endTime")) {
		s->end_time = v;
	}
	return SBX_OK;
}

static bool is_numeric_field(const char *k)
{
	return !strcmp(k, "batch") || !strcmp(k, "maxVersions") ||
	       !strcmp(k, "caching") || !strcmp(k, "startTime") ||
	       !strcmp(k, "endTime");
}

static int spec_row_field(sbx_buf *out, const char *text, size_t len,
			  const char *name, char *err)
{
	if (rest_b64_decode(out, text, len))
		return M_ERR(err, "scanner %s is not valid base64", name);
	if (out->len > SBX_MAX_ROW_LENGTH)
		return M_ERR(err, "scanner %s is too long", name);
	return SBX_OK;
}

/* Parse a request body that must be one JSON object. On success *root is
 * the caller's to json_decref(). */
static int load_json_object(json_t **root, const uint8_t *body, size_t len,
			    const char *what, char *err)
{
	json_error_t jerr;
	*root = json_loadb((const char *)body, len, 0, &jerr);
	if (!*root)
		return M_ERR(err, "malformed JSON at line %d column %d: %s",
			     jerr.line, jerr.column, jerr.text);
	if (!json_is_object(*root)) {
		json_decref(*root);
		*root = NULL;
		return M_ERR(err, "a %s must be a JSON object", what);
	}
	return SBX_OK;
}

static int spec_from_json(rest_scan_spec *s, const uint8_t *body, size_t len,
			  char *err)
{
	json_t *root;
	int rc = load_json_object(&root, body, len, "scanner spec", err);
	if (rc)
		return rc;
	const char *k;
	json_t *v;
	json_object_foreach(root, k, v)
	{
		if (rc)
			break;
		if (json_is_null(v))
			continue;
		if (is_numeric_field(k)) {
			int64_t n;
			if (rest_json_int64(v, &n))
				rc = M_ERR(err, "scanner %s must be an integer", k);
			else
				rc = spec_number(s, k, n, err);
		} else if (!strcmp(k, "startRow") || !strcmp(k, "endRow")) {
			if (!json_is_string(v))
				rc = M_ERR(err, "scanner %s must be a string", k);
			else
				rc = spec_row_field(k[0] == 's' ? &s->start_row
								: &s->end_row,
						    json_string_value(v),
						    json_string_length(v), k, err);
		} else if (!strcmp(k, "column")) {
			size_t i;
			json_t *c;
			if (json_is_string(v))
				rc = spec_b64_column(s, json_string_value(v),
						     json_string_length(v), err);
			else if (!json_is_array(v))
				rc = M_ERR(err, "scanner column must be an array");
			json_array_foreach(json_is_array(v) ? v : NULL, i, c)
			{
				if (rc)
					break;
				if (!json_is_string(c))
					rc = M_ERR(err, "scanner columns must be "
							"strings");
				else
					rc = spec_b64_column(s, json_string_value(c),
							     json_string_length(c),
							     err);
			}
		} else if (!strcmp(k, "filter")) {
			if (!json_is_string(v) ||
			    memchr(json_string_value(v), 0, json_string_length(v)))
				rc = M_ERR(err, "scanner filter must be a string "
						"holding filter JSON");
			else if (!(s->filter =
				       sbx_strndup(json_string_value(v),
						   json_string_length(v))))
				rc = SBX_ENOMEM;
		} else if (!strcmp(k, "cacheBlocks")) {
			s->cache_blocks = json_is_true(v);
		}
		/* labels and unknown fields: ignored, as Jackson's JAXB
		 * provider does for fields it does not bind. */
	}
	json_decref(root);
	return rc;
}

typedef struct spec_xml {
	rest_xml_base base;
	rest_scan_spec *s;
	int depth;
	int child; /* 1 = column, 2 = filter, 0 = other */
	sbx_buf text;
} spec_xml;

static void spec_xml_start(void *ud, const XML_Char *name,
			   const XML_Char **attrs)
{
	spec_xml *x = ud;
	x->depth++;
	if (x->depth == 1) {
		if (strcmp(name, "Scanner"))
			return rest_xml_fail(&x->base,
					     M_ERR(x->base.err, "expected <Scanner>"));
		for (size_t i = 0; attrs[i]; i += 2) {
			const char *k = attrs[i], *v = attrs[i + 1];
			int rc = SBX_OK;
			if (is_numeric_field(k)) {
				int64_t n;
				if (rest_parse_int64(v, strlen(v), &n))
					rc = M_ERR(x->base.err, "scanner %s must be "
								"an integer", k);
				else
					rc = spec_number(x->s, k, n, x->base.err);
			} else if (!strcmp(k, "startRow") || !strcmp(k, "endRow")) {
				rc = spec_row_field(k[0] == 's' ? &x->s->start_row
								: &x->s->end_row,
						    v, strlen(v), k, x->base.err);
			} else if (!strcmp(k, "cacheBlocks")) {
				x->s->cache_blocks = strcasecmp(v, "false") != 0;
			}
			if (rc)
				return rest_xml_fail(&x->base, rc);
		}
		return;
	}
	x->child = 0;
	if (x->depth == 2 && !strcmp(name, "column"))
		x->child = 1;
	else if (x->depth == 2 && !strcmp(name, "filter"))
		x->child = 2;
	x->text.len = 0;
}

static void spec_xml_end(void *ud, const XML_Char *name)
{
	spec_xml *x = ud;
	int rc = SBX_OK;
	/* an element with no text never allocated the buffer */
	const char *text = x->text.len ? (const char *)x->text.data : "";
	if (x->depth == 2 && x->child == 1)
		rc = spec_b64_column(x->s, text, x->text.len, x->base.err);
	else if (x->depth == 2 && x->child == 2) {
		free(x->s->filter);
		x->s->filter = sbx_strndup(text, x->text.len);
		if (!x->s->filter)
			rc = SBX_ENOMEM;
	}
	x->child = 0;
	x->depth--;
	if (rc)
		rest_xml_fail(&x->base, rc);
}

static void spec_xml_chars(void *ud, const XML_Char *s, int len)
{
	spec_xml *x = ud;
	if (x->child && sbx_buf_append(&x->text, s, (size_t)len))
		rest_xml_fail(&x->base, SBX_ENOMEM);
}

static int spec_from_pb(rest_scan_spec *s, const uint8_t *body, size_t len,
			char *err)
{
	pb_reader r = {body, body + len};
	pb_field f;
	int rc;
	static const char *const numeric[] = {
		[4] = "batch", [5] = "startTime", [6] = "endTime",
		[7] = "maxVersions", [9] = "caching"};
	while ((rc = pb_next(&r, &f)) == 1) {
		int frc = SBX_OK;
		if ((f.num == 1 || f.num == 2) && f.wire == 2) {
			if (f.len > SBX_MAX_ROW_LENGTH)
				return M_ERR(err, "scanner row bound is too long");
			frc = sbx_buf_set(f.num == 1 ? &s->start_row : &s->end_row,
					  f.data, f.len);
		} else if (f.num == 3 && f.wire == 2) {
			frc = spec_add_column(s, f.data, f.len, err);
		} else if (f.num < 10 && numeric[f.num] && f.wire == 0) {
			int64_t x = (int64_t)f.varint;
			/* int32 fields carry negative values sign-extended. */
			frc = spec_number(s, numeric[f.num], x, err);
		} else if (f.num == 8 && f.wire == 2) {
			if (memchr(f.data, 0, f.len))
				return M_ERR(err, "scanner filter holds a NUL byte");
			free(s->filter);
			s->filter = sbx_strndup((const char *)f.data, f.len);
			frc = s->filter ? SBX_OK : SBX_ENOMEM;
		} else if (f.num == 11 && f.wire == 0) {
			s->cache_blocks = f.varint != 0;
		}
		if (frc)
			return frc;
	}
	return rc < 0 ? M_ERR(err, "malformed protobuf Scanner") : SBX_OK;
}

int rest_scan_spec_decode(rest_scan_spec *s, rest_fmt f, const uint8_t *body,
			  size_t len, char *err)
{
	rest_scan_spec_init(s);
	int rc;
	if (f == REST_FMT_JSON) {
		rc = spec_from_json(s, body, len, err);
	} else if (f == REST_FMT_XML) {
		spec_xml x = {.base.err = err, .s = s};
		rc = rest_xml_parse(&x.base, body, len, spec_xml_start,
				    spec_xml_end, spec_xml_chars);
		sbx_buf_free(&x.text);
	} else if (f == REST_FMT_PB) {
		rc = spec_from_pb(s, body, len, err);
	} else {
		rc = M_ERR(err, "unsupported Content-Type for a scanner");
	}
	if (rc)
		rest_scan_spec_free(s);
	return rc;
}

/* ---- table schema --------------------------------------------------------- */

static void attrs_free(rest_attr *a, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(a[i].key);
		free(a[i].value);
	}
	free(a);
}

void rest_table_schema_free(rest_table_schema *s)
{
	free(s->name);
	attrs_free(s->attrs, s->nattrs);
	for (size_t i = 0; i < s->nfamilies; i++) {
		free(s->families[i].name);
		attrs_free(s->families[i].attrs, s->families[i].nattrs);
	}
	free(s->families);
	memset(s, 0, sizeof *s);
}

static int attr_add(rest_attr **a, size_t *n, const char *key, size_t klen,
		    const char *value, size_t vlen)
{
	rest_attr *na = sbx_realloc(*a, (*n + 1) * sizeof *na);
	if (!na)
		return SBX_ENOMEM;
	*a = na;
	na[*n].key = sbx_strndup(key, klen);
	na[*n].value = sbx_strndup(value, vlen);
	if (!na[*n].key || !na[*n].value) {
		free(na[*n].key);
		free(na[*n].value);
		return SBX_ENOMEM;
	}
	(*n)++;
	return SBX_OK;
}

static rest_family_schema *family_add(rest_table_schema *s)
{
	rest_family_schema *f =
	    sbx_realloc(s->families, (s->nfamilies + 1) * sizeof *f);
	if (!f)
		return NULL;
	s->families = f;
	memset(&f[s->nfamilies], 0, sizeof *f);
	return &f[s->nfamilies++];
}

/* A JSON scalar as the string Jackson's toString() would give. */
static int json_scalar_attr(rest_attr **a, size_t *n, const char *k, json_t *v,
			    char *err)
{
	char tmp[64];
	const char *s = tmp;
	size_t len;
	if (json_is_string(v)) {
		s = json_string_value(v);
		len = json_string_length(v);
		if (memchr(s, 0, len))
			return M_ERR(err, "attribute %s holds a NUL byte", k);
	} else if (json_is_integer(v)) {
		len = (size_t)snprintf(tmp, sizeof tmp, "%lld",
				       (long long)json_integer_value(v));
	} else if (json_is_boolean(v)) {
		s = json_is_true(v) ? "true" : "false";
		len = strlen(s);
	} else if (json_is_real(v)) {
		len = (size_t)snprintf(tmp, sizeof tmp, "%g", json_real_value(v));
	} else {
		return M_ERR(err, "attribute %s must be a string, number or "
				  "boolean", k);
	}
	return attr_add(a, n, k, strlen(k), s, len);
}

static int json_family(rest_table_schema *s, json_t *jf, char *err)
{
	if (!json_is_object(jf))
		return M_ERR(err, "each ColumnSchema must be an object");
	rest_family_schema *f = family_add(s);
	if (!f)
		return SBX_ENOMEM;
	const char *k;
	json_t *v;
	json_object_foreach(jf, k, v)
	{
		if (!strcmp(k, "name")) {
			if (!json_is_string(v))
				return M_ERR(err, "ColumnSchema name must be a "
						  "string");
			free(f->name);
			if (!(f->name = sbx_strdup(json_string_value(v))))
				return SBX_ENOMEM;
		} else if (!json_is_null(v)) {
			int rc = json_scalar_attr(&f->attrs, &f->nattrs, k, v, err);
			if (rc)
				return rc;
		}
	}
	if (!f->name)
		return M_ERR(err, "a ColumnSchema needs a name");
	return SBX_OK;
}

static int schema_from_json(rest_table_schema *s, const uint8_t *body,
			    size_t len, char *err)
{
	json_t *root;
	int rc = load_json_object(&root, body, len, "table schema", err);
	if (rc)
		return rc;
	const char *k;
	json_t *v;
	json_object_foreach(root, k, v)
	{
		if (rc)
			break;
		if (!strcmp(k, "name")) {
			if (!json_is_string(v))
				rc = M_ERR(err, "table name must be a string");
			else if (!(s->name = sbx_strdup(json_string_value(v))))
				rc = SBX_ENOMEM;
		} else if (!strcmp(k, "ColumnSchema")) {
			if (json_is_object(v)) {
				rc = json_family(s, v, err);
				continue;
			}
			if (!json_is_array(v)) {
				rc = M_ERR(err, "ColumnSchema must be an array");
				continue;
			}
			size_t i;
			json_t *jf;
			json_array_foreach(v, i, jf)
			{
				rc = json_family(s, jf, err);
				if (rc)
					break;
			}
		} else if (!json_is_null(v)) {
			rc = json_scalar_attr(&s->attrs, &s->nattrs, k, v, err);
		}
	}
	json_decref(root);
	return rc;
}

typedef struct schema_xml {
	rest_xml_base base;
	rest_table_schema *s;
	int depth;
} schema_xml;

static void schema_xml_start(void *ud, const XML_Char *name,
			     const XML_Char **attrs)
{
	schema_xml *x = ud;
	x->depth++;
	rest_attr **a;
	size_t *n;
	char **namep;
	if (x->depth == 1 && !strcmp(name, "TableSchema")) {
		a = &x->s->attrs;
		n = &x->s->nattrs;
		namep = &x->s->name;
	} else if (x->depth == 2 && !strcmp(name, "ColumnSchema")) {
		rest_family_schema *f = family_add(x->s);
		if (!f)
			return rest_xml_fail(&x->base, SBX_ENOMEM);
		a = &f->attrs;
		n = &f->nattrs;
		namep = &f->name;
	} else {
		return rest_xml_fail(&x->base, M_ERR(x->base.err,
						     "unexpected element <%.32s>",
						     name));
	}
	for (size_t i = 0; attrs[i]; i += 2) {
		int rc;
		if (!strcmp(attrs[i], "name")) {
			free(*namep);
			*namep = sbx_strdup(attrs[i + 1]);
			rc = *namep ? SBX_OK : SBX_ENOMEM;
		} else {
			rc = attr_add(a, n, attrs[i], strlen(attrs[i]),
				      attrs[i + 1], strlen(attrs[i + 1]));
		}
		if (rc)
			return rest_xml_fail(&x->base, rc);
	}
	if (x->depth == 2 && !*namep)
		rest_xml_fail(&x->base, M_ERR(x->base.err, "a ColumnSchema needs "
							   "a name"));
}

static void schema_xml_end(void *ud, const XML_Char *name)
{
	((schema_xml *)ud)->depth--;
}

static void schema_xml_chars(void *ud, const XML_Char *s, int len)
{
}

static int pb_attr(rest_attr **a, size_t *n, const uint8_t *d, size_t len,
		   char *err)
{
	pb_reader r = {d, d + len};
	pb_field f;
	int rc;
	const uint8_t *key = NULL, *val = NULL;
	size_t klen = 0, vlen = 0;
	while ((rc = pb_next(&r, &f)) == 1) {
		if (f.num == 1 && f.wire == 2)
			key = f.data, klen = f.len;
		else if (f.num == 2 && f.wire == 2)
			val = f.data, vlen = f.len;
	}
	if (rc < 0 || !key || !val || memchr(key, 0, klen) || memchr(val, 0, vlen))
		return M_ERR(err, "malformed protobuf schema attribute");
	return attr_add(a, n, (const char *)key, klen, (const char *)val, vlen);
}

static int pb_family(rest_table_schema *s, const uint8_t *d, size_t len,
		     char *err)
{
	rest_family_schema *fs = family_add(s);
	if (!fs)
		return SBX_ENOMEM;
	pb_reader r = {d, d + len};
	pb_field f;
	int rc;
	char tmp[32];
	while ((rc = pb_next(&r, &f)) == 1) {
		const char *p = (const char *)f.data;
		int frc = SBX_OK;
		if (f.num == 1 && f.wire == 2) {
			free(fs->name);
			fs->name =
			    memchr(p, 0, f.len) ? NULL : sbx_strndup(p, f.len);
			frc = fs->name ? SBX_OK : M_ERR(err, "bad family name");
		} else if (f.num == 2 && f.wire == 2) {
			frc = pb_attr(&fs->attrs, &fs->nattrs, f.data, f.len, err);
		} else if ((f.num == 3 || f.num == 4) && f.wire == 0) {
			int tl = snprintf(tmp, sizeof tmp, "%d", (int32_t)f.varint);
			frc = attr_add(&fs->attrs, &fs->nattrs,
				       f.num == 3 ? "TTL" : "VERSIONS",
				       f.num == 3 ? 3 : 8, tmp, (size_t)tl);
		} else if (f.num == 5 && f.wire == 2 && !memchr(p, 0, f.len)) {
			frc = attr_add(&fs->attrs, &fs->nattrs, "COMPRESSION", 11,
				       p, f.len);
		}
		if (frc)
			return frc;
	}
	if (rc < 0 || !fs->name)
		return M_ERR(err, "malformed protobuf ColumnSchema");
	return SBX_OK;
}

static int schema_from_pb(rest_table_schema *s, const uint8_t *body,
			  size_t len, char *err)
{
	pb_reader r = {body, body + len};
	pb_field f;
	int rc;
	while ((rc = pb_next(&r, &f)) == 1) {
		int frc = SBX_OK;
		if (f.num == 1 && f.wire == 2) {
			free(s->name);
			s->name = sbx_strndup((const char *)f.data, f.len);
			frc = s->name ? SBX_OK : SBX_ENOMEM;
		} else if (f.num == 2 && f.wire == 2) {
			frc = pb_attr(&s->attrs, &s->nattrs, f.data, f.len, err);
		} else if (f.num == 3 && f.wire == 2) {
			frc = pb_family(s, f.data, f.len, err);
		}
		if (frc)
			return frc;
	}
	return rc < 0 ? M_ERR(err, "malformed protobuf TableSchema") : SBX_OK;
}

int rest_table_schema_decode(rest_table_schema *s, rest_fmt f,
			     const uint8_t *body, size_t len, char *err)
{
	memset(s, 0, sizeof *s);
	int rc;
	if (f == REST_FMT_JSON) {
		rc = schema_from_json(s, body, len, err);
	} else if (f == REST_FMT_XML) {
		schema_xml x = {.base.err = err, .s = s};
		rc = rest_xml_parse(&x.base, body, len, schema_xml_start,
				    schema_xml_end, schema_xml_chars);
	} else if (f == REST_FMT_PB) {
		rc = schema_from_pb(s, body, len, err);
	} else {
		rc = M_ERR(err, "unsupported Content-Type for a schema");
	}
	if (rc)
		rest_table_schema_free(s);
	return rc;
}

/* ---- attributes to descriptors -------------------------------------------- */

int rest_family_desc_from_schema(sbx_family_desc *d,
				 const rest_family_schema *fs, char *err)
{
	if (sbx_family_desc_init(d, fs->name))
		return M_ERR(err, "invalid column family name '%.64s'", fs->name);
	for (size_t i = 0; i < fs->nattrs; i++) {
		int rc = sbx_family_desc_set(d, fs->attrs[i].key,
					     fs->attrs[i].value);
		/* attributes Saltbox does not model are HBase's to keep */
		if (rc && rc != SBX_ENOTFOUND && rc != SBX_EUNSUPPORTED)
			return M_ERR(err, "%s", sbx_errmsg());
	}
	return SBX_OK;
}
