/*
 * test_bigtable_schema.c - what the Bigtable backend makes of a GetTable
 * answer and of ReadRows chunks it cannot trust, with no server: each GC
 * rule read as HBase's VERSIONS, MIN_VERSIONS and TTL (src/bigtable/
 * admin.c, gc_read), rules HBase cannot hold read as the nearest it can, a
 * family given twice counted once (the last), a name HBase cannot hold
 * refused; a split cell's announced size reserving a bounded amount
 * (src/bigtable/merge.c); SampleRowKeys' keys read as tablets that tile
 * the table, even out of order or repeated; answers nesting messages
 * deeper than BT_MAX_NESTING refused before protobuf-c's recursion
 * unpacks them. fuzz/fuzz_bigtable_response.c
 * runs the same paths over arbitrary answers.
 */
#include "check.h"

#include "bigtable/bigtable.h"
#include "bigtable/merge.h"

/* ---- building a GetTable answer ---- */

#define MAX_PARTS 32
static Sbxbta__GcRule rules[MAX_PARTS];
static Sbxbta__Duration durations[MAX_PARTS];
static Sbxbta__GcRule__Union unions[MAX_PARTS];
static Sbxbta__GcRule__Intersection inters[MAX_PARTS];
static Sbxbta__GcRule *lists[MAX_PARTS][2];
static Sbxbta__ColumnFamily cfs[MAX_PARTS];
static Sbxbta__Table__ColumnFamiliesEntry entries[MAX_PARTS];
static Sbxbta__Table__ColumnFamiliesEntry *entry_ptrs[MAX_PARTS];
static size_t nrules, ndur, nlists, nentries;

static Sbxbta__GcRule *versions(int n)
{
	Sbxbta__GcRule *r = &rules[nrules++];
	sbxbta__gc_rule__init(r);
	r->rule_case = SBXBTA__GC_RULE__RULE_MAX_NUM_VERSIONS;
	r->max_num_versions = n;
	return r;
}

static Sbxbta__GcRule *age(int64_t seconds, int32_t nanos)
{
	Sbxbta__Duration *d = &durations[ndur++];
	sbxbta__duration__init(d);
	d->seconds = seconds;
	d->nanos = nanos;
	Sbxbta__GcRule *r = &rules[nrules++];
	sbxbta__gc_rule__init(r);
	r->rule_case = SBXBTA__GC_RULE__RULE_MAX_AGE;
	r->max_age = d;
	return r;
}

static Sbxbta__GcRule *pair(bool union_, Sbxbta__GcRule *a,
			    Sbxbta__GcRule *b)
{
	size_t i = nlists++;
	lists[i][0] = a;
	lists[i][1] = b;
	Sbxbta__GcRule *r = &rules[nrules++];
	sbxbta__gc_rule__init(r);
	if (union_) {
		sbxbta__gc_rule__union__init(&unions[i]);
		unions[i].n_rules = 2;
		unions[i].rules = lists[i];
		r->rule_case = SBXBTA__GC_RULE__RULE_UNION;
		r->union_ = &unions[i];
	} else {
		sbxbta__gc_rule__intersection__init(&inters[i]);
		inters[i].n_rules = 2;
		inters[i].rules = lists[i];
		r->rule_case = SBXBTA__GC_RULE__RULE_INTERSECTION;
		r->intersection = &inters[i];
	}
	return r;
}

static void family(const char *name, Sbxbta__GcRule *gc)
{
	size_t i = nentries++;
	sbxbta__column_family__init(&cfs[i]);
	cfs[i].gc_rule = gc;
	sbxbta__table__column_families_entry__init(&entries[i]);
	entries[i].key = (char *)name;
	entries[i].value = &cfs[i];
	entry_ptrs[i] = &entries[i];
}

static int read_families(sbx_family_desc **f, size_t *n)
{
	Sbxbta__Table t = SBXBTA__TABLE__INIT;
	t.n_column_families = nentries;
	t.column_families = entry_ptrs;
	int rc = bt_families_of(&t, f, n);
	nrules = ndur = nlists = nentries = 0;
	return rc;
}

static void test_rules_read_as_hbase_attributes(void)
{
	family("cf", versions(3));
	family("ttl", age(86400, 0));
	family("both", pair(true, versions(2), age(60, 500000000)));
	family("minv", pair(false, versions(1), age(3600, 0)));
	family("none", NULL);
	sbx_family_desc *f;
	size_t n;
	CHECK_INT(read_families(&f, &n), SBX_OK);
	CHECK_INT(n, 5);
	/* sorted by name: both, cf, minv, none, ttl */
	CHECK_STR(f[0].name, "both");
	CHECK_INT(f[0].max_versions, 2);
	CHECK_INT(f[0].ttl_seconds, 61); /* 60.5 s rounds up */
	CHECK_INT(f[0].min_versions, 0);
	CHECK_STR(f[1].name, "cf");
	CHECK_INT(f[1].max_versions, 3);
	CHECK_INT(f[1].ttl_seconds, SBX_TTL_FOREVER);
	CHECK_STR(f[2].name, "minv");
	CHECK_INT(f[2].max_versions, INT32_MAX); /* no outer count */
	CHECK_INT(f[2].min_versions, 1);
	CHECK_INT(f[2].ttl_seconds, 3600);
	CHECK_STR(f[3].name, "none");
	CHECK_INT(f[3].max_versions, INT32_MAX);
	CHECK_INT(f[3].ttl_seconds, SBX_TTL_FOREVER);
	CHECK_STR(f[4].name, "ttl");
	CHECK_INT(f[4].max_versions, INT32_MAX);
	CHECK_INT(f[4].ttl_seconds, 86400);
	free(f);
}

static void test_rules_hbase_cannot_hold(void)
{
	family("a_neg", versions(-5));
	family("b_zero", versions(0));
	family("c_huge", age(INT64_MAX, 999999999));
	family("d_forever", age(SBX_TTL_FOREVER, 0));
	family("e_just_under", age(SBX_TTL_FOREVER - 1, 1));
	family("f_zero", age(0, 0));
	family("g_neg", age(-1, 0));
	family("h_nanos", age(0, 1));
	family("i_min", pair(false, versions(-1), age(10, 0)));
	sbx_family_desc *f;
	size_t n;
	CHECK_INT(read_families(&f, &n), SBX_OK);
	CHECK_INT(n, 9);
	CHECK_INT(f[0].max_versions, INT32_MAX); /* below 1: no rule */
	CHECK_INT(f[1].max_versions, INT32_MAX);
	CHECK_INT(f[2].ttl_seconds, SBX_TTL_FOREVER); /* past FOREVER */
	CHECK_INT(f[3].ttl_seconds, SBX_TTL_FOREVER);
	CHECK_INT(f[4].ttl_seconds, SBX_TTL_FOREVER); /* rounded up */
	CHECK_INT(f[5].ttl_seconds, SBX_TTL_FOREVER); /* zero: no rule */
	CHECK_INT(f[6].ttl_seconds, SBX_TTL_FOREVER); /* negative: none */
	CHECK_INT(f[7].ttl_seconds, 1);
	CHECK_INT(f[8].min_versions, 0);
	CHECK_INT(f[8].ttl_seconds, 10);
	free(f);
}

static void test_family_given_twice(void)
{
	family("x", versions(2));
	family("dup", versions(2));
	family("a", versions(4));
	family("dup", versions(7));
	sbx_family_desc *f;
	size_t n;
	CHECK_INT(read_families(&f, &n), SBX_OK);
	CHECK_INT(n, 3);
	CHECK_STR(f[0].name, "a");
	CHECK_STR(f[1].name, "dup");
	CHECK_INT(f[1].max_versions, 7); /* the last entry, as protobuf maps */
	CHECK_STR(f[2].name, "x");
	free(f);
}

static void test_name_hbase_cannot_hold(void)
{
	family("ok", versions(1));
	family("a:b", versions(1));
	sbx_family_desc *f = (sbx_family_desc *)1;
	size_t n = 99;
	CHECK_INT(read_families(&f, &n), SBX_EREMOTE);
	CHECK(f == NULL);
	CHECK_INT(n, 0);
	CHECK(strstr(sbx_errmsg(), "column family name HBase cannot hold") !=
	      NULL);
	CHECK(strstr(sbx_errmsg(), "a:b") != NULL);
}

/* ---- a split cell's announced size ---- */

static int keep_row(void *ctx, const bt_row *row)
{
	sbx_buf *value = ctx;
	CHECK_INT(row->n, 1);
	const bt_cell *c = &row->cells[0];
	return sbx_buf_set(value, row->arena.data + c->value_off, c->value_len);
}

static void test_split_cell_size_bounded(void)
{
	Sbxbt__ReadRowsResponse__CellChunk c[3];
	Sbxbt__ReadRowsResponse__CellChunk *cp[3] = {&c[0], &c[1], &c[2]};
	Sbxbt__StringValue fam;
	Sbxbt__BytesValue qual;
	for (int i = 0; i < 3; i++)
		sbxbt__read_rows_response__cell_chunk__init(&c[i]);
	sbxbt__string_value__init(&fam);
	sbxbt__bytes_value__init(&qual);
	fam.value = "f";
	qual.value = (ProtobufCBinaryData){1, (uint8_t *)"q"};
	c[0].row_key = (ProtobufCBinaryData){3, (uint8_t *)"row"};
	c[0].family_name = &fam;
	c[0].qualifier = &qual;
	c[0].timestamp_micros = 5000;
	c[0].value = (ProtobufCBinaryData){2, (uint8_t *)"ab"};
	c[0].value_size = INT32_MAX; /* a server's word, not a promise */
	c[1].value = (ProtobufCBinaryData){2, (uint8_t *)"cd"};
	c[1].value_size = INT32_MAX;
	c[2].value = (ProtobufCBinaryData){2, (uint8_t *)"ef"};
	c[2].row_status_case =
		SBXBT__READ_ROWS_RESPONSE__CELL_CHUNK__ROW_STATUS_COMMIT_ROW;
	c[2].commit_row = 1;
	Sbxbt__ReadRowsResponse r = SBXBT__READ_ROWS_RESPONSE__INIT;
	r.n_chunks = 3;
	r.chunks = cp;
	bt_merger m;
	bt_merger_init(&m, false);
	sbx_buf value = {0};
	CHECK_INT(bt_read_rows_feed(&m, &r, keep_row, &value), SBX_OK);
	CHECK_MEM(value.data, value.len, "abcdef");
	CHECK(m.row.arena.cap <= (size_t)2 << 20); /* not 2 GiB */
	CHECK_INT(bt_merger_finish(&m), SBX_OK);
	bt_merger_free(&m);
	sbx_buf_free(&value);
}

/* ---- SampleRowKeys as tablets ---- */

static void sample(bt_keys *k, const char *key)
{
	Sbxbt__SampleRowKeysResponse r = SBXBT__SAMPLE_ROW_KEYS_RESPONSE__INIT;
	r.row_key = (ProtobufCBinaryData){strlen(key), (uint8_t *)key};
	CHECK_INT(bt_sample_add(k, &r), SBX_OK);
}

static void test_samples_as_tablets(void)
{
	/* in order, the table's end ("") last: Bigtable's answer */
	bt_keys k = {0};
	sample(&k, "g");
	sample(&k, "p");
	sample(&k, "");
	CHECK_INT(k.n, 2); /* the end is no key */
	sbx_region_info *r;
	size_t n;
	CHECK_INT(bt_regions_of(&r, &n, "t", &k), SBX_OK);
	bt_keys_free(&k);
	CHECK_INT(n, 3);
	CHECK_MEM(r[0].start_key, r[0].start_len, "");
	CHECK_MEM(r[0].end_key, r[0].end_len, "g");
	CHECK_MEM(r[1].start_key, r[1].start_len, "g");
	CHECK_MEM(r[1].end_key, r[1].end_len, "p");
	CHECK_MEM(r[2].start_key, r[2].start_len, "p");
	CHECK_MEM(r[2].end_key, r[2].end_len, "");
	CHECK_STR(r[1].name, "t,tablet-1");
	sbx_region_infos_free(r, n);

	/* out of order and repeated: read sorted, each key once */
	bt_keys odd = {0};
	sample(&odd, "p");
	sample(&odd, "c");
	sample(&odd, "p");
	sample(&odd, "");
	sample(&odd, "c");
	CHECK_INT(bt_regions_of(&r, &n, "t", &odd), SBX_OK);
	CHECK_INT(odd.n, 2); /* sorted, each once: c, p */
	bt_keys_free(&odd);
	CHECK_INT(n, 3);
	CHECK_MEM(r[0].end_key, r[0].end_len, "c");
	CHECK_MEM(r[1].start_key, r[1].start_len, "c");
	CHECK_MEM(r[1].end_key, r[1].end_len, "p");
	CHECK_MEM(r[2].start_key, r[2].start_len, "p");
	CHECK_MEM(r[2].end_key, r[2].end_len, "");
	sbx_region_infos_free(r, n);

	/* no keys: one tablet, the whole table */
	bt_keys none = {0};
	CHECK_INT(bt_regions_of(&r, &n, "t", &none), SBX_OK);
	CHECK_INT(n, 1);
	CHECK_INT(r[0].start_len, 0);
	CHECK_INT(r[0].end_len, 0);
	sbx_region_infos_free(r, n);
}

/* ---- messages nested deep ---- */

static size_t varint_len(uint64_t v)
{
	size_t n = 1;
	while (v >= 0x80)
		v >>= 7, n++;
	return n;
}

static uint8_t *put_varint(uint8_t *p, uint64_t v)
{
	while (v >= 0x80)
		*p++ = (uint8_t)(v | 0x80), v >>= 7;
	*p++ = (uint8_t)v;
	return p;
}

/* A GetTable answer, encoded by hand (protobuf-c's packer recurses too):
 * family "cf" whose GC rule is `levels` intersections, each of one rule,
 * around max_num_versions = 3. Nesting: the Table 1, its map entry 2, the
 * ColumnFamily 3, the GcRule 4, then an Intersection and a GcRule a level:
 * the innermost rule is at 4 + 2 * levels. */
static uint8_t *deep_table(size_t levels, size_t *len)
{
	size_t *rule = calloc(levels + 1, sizeof *rule); /* GcRule k's size */
	if (!rule)
		return NULL;
	rule[0] = 2; /* 08 03 */
	for (size_t k = 1; k <= levels; k++) {
		size_t inter = 1 + varint_len(rule[k - 1]) + rule[k - 1];
		rule[k] = 1 + varint_len(inter) + inter;
	}
	size_t cf = 1 + varint_len(rule[levels]) + rule[levels];
	size_t entry = 4 + 1 + varint_len(cf) + cf;
	*len = 1 + varint_len(entry) + entry;
	uint8_t *buf = malloc(*len), *p = buf;
	if (!buf) {
		free(rule);
		return NULL;
	}
	*p++ = 0x1a; /* Table.column_families = 3 */
	p = put_varint(p, entry);
	*p++ = 0x0a, *p++ = 2, *p++ = 'c', *p++ = 'f'; /* key = 1 */
	*p++ = 0x12; /* value = 2: the ColumnFamily */
	p = put_varint(p, cf);
	*p++ = 0x0a; /* gc_rule = 1 */
	p = put_varint(p, rule[levels]);
	for (size_t k = levels; k >= 1; k--) {
		size_t inter = 1 + varint_len(rule[k - 1]) + rule[k - 1];
		*p++ = 0x1a; /* GcRule.intersection = 3 */
		p = put_varint(p, inter);
		*p++ = 0x0a; /* Intersection.rules = 1 */
		p = put_varint(p, rule[k - 1]);
	}
	*p++ = 0x08, *p++ = 3; /* max_num_versions = 3 */
	free(rule);
	if ((size_t)(p - buf) != *len) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* Nested up to BT_MAX_NESTING: read as any answer; deeper: refused before
 * protobuf-c's recursion sees it (a million levels would overflow the
 * stack); cut short: malformed, not too deep. */
static void test_nesting_bounded(void)
{
	size_t levels[] = {1, 20, (BT_MAX_NESTING - 4) / 2,
			   (BT_MAX_NESTING - 4) / 2 + 1, 1000000};
	for (size_t i = 0; i < sizeof levels / sizeof levels[0]; i++) {
		size_t len;
		uint8_t *bytes = deep_table(levels[i], &len);
		REQUIRE(bytes);
		bool deep = true;
		Sbxbta__Table *t = (Sbxbta__Table *)bt_unpack(
			&sbxbta__table__descriptor, len, bytes, &deep);
		bool fits = 4 + 2 * levels[i] <= BT_MAX_NESTING;
		CHECK(deep == !fits);
		CHECK((t != NULL) == fits);
		if (t) {
			sbx_family_desc *f;
			size_t nf;
			CHECK_INT(bt_families_of(t, &f, &nf), SBX_OK);
			CHECK_INT(nf, 1);
			if (nf == 1) {
				CHECK_STR(f[0].name, "cf");
				/* a count inside an intersection is HBase's
				 * MIN_VERSIONS, however deep (gc_read); no
				 * count outside: every version kept */
				CHECK_INT(f[0].min_versions, 3);
				CHECK_INT(f[0].max_versions, INT32_MAX);
				CHECK_INT(f[0].ttl_seconds, SBX_TTL_FOREVER);
				free(f);
			}
			protobuf_c_message_free_unpacked(&t->base, NULL);
		}
		if (levels[i] == 20) { /* cut short: malformed */
			t = (Sbxbta__Table *)bt_unpack(&sbxbta__table__descriptor,
						       len - 1, bytes, &deep);
			CHECK(t == NULL);
			CHECK(!deep);
		}
		free(bytes);
	}
}

TEST_MAIN(T(test_rules_read_as_hbase_attributes),
	  T(test_rules_hbase_cannot_hold), T(test_family_given_twice),
	  T(test_name_hbase_cannot_hold), T(test_split_cell_size_bounded),
	  T(test_samples_as_tablets), T(test_nesting_bounded))
