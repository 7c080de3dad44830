/*
 * test_bigtable_merge.c - ReadRows' chunk merger (src/bigtable/merge.c) with
 * no server: chunk sequences written out in a compact form, covering the
 * situations of Google's read-rows acceptance cases (readrows.json in
 * googleapis/conformance-tests: commits, resets, split cells, labels,
 * inherited family and qualifier, and the invalid streams), plus reversed
 * key order. Our own cases, written from the merging rules, not a copy.
 *
 * A chunk is space-separated fields: k=row f=family q=qualifier (q= is an
 * empty qualifier) t=micros v=value vs=value_size l=label R (reset) C
 * (commit); chunks are separated by " | ". The expected text lists every
 * committed cell as row/family:qualifier@ts=value[label]; and ends with
 * "ERR" where the merger must refuse the stream (at a chunk or at the end).
 */
#include "check.h"

#include "bigtable/merge.h"

#include <stdbool.h>

typedef struct merge_case {
	const char *name;
	bool reversed;
	const char *chunks;
	const char *expect;
} merge_case;

static const merge_case cases[] = {
    /* invalid streams */
    {"no commit", false, "k=RK f=A q=C t=100 v=value-VAL", "ERR"},
    {"no cell key before commit", false, "C", "ERR"},
    {"no cell key before value", false, "t=100 v=value-VAL", "ERR"},
    {"new family must come with a qualifier", false,
     "k=RK f=A q=C t=99 v=v1 | f=B t=98 v=v2 C", "ERR"},
    {"no commit between rows", false,
     "k=RK_1 f=A q=C t=100 v=x | k=RK_2 f=A q=C t=100 v=x", "ERR"},
    {"no commit after first row", false,
     "k=RK_1 f=A q=C t=100 v=x | k=RK_2 f=A q=C t=100 v=x C", "ERR"},
    {"last row missing commit", false,
     "k=RK_1 f=A q=C t=100 v=x C | k=RK_2 f=A q=C t=100 v=x",
     "RK_1/A:C@100=x;ERR"},
    {"duplicate row key", false,
     "k=RK_1 f=A q=C t=100 v=x C | k=RK_1 f=B q=D t=100 v=x C",
     "RK_1/A:C@100=x;ERR"},
    {"row keys going backwards", false,
     "k=RK_2 f=A q=C t=100 v=x C | k=RK_1 f=A q=C t=100 v=x C",
     "RK_2/A:C@100=x;ERR"},
    {"new row missing row key", false,
     "k=RK_1 f=A q=C t=100 v=x C | f=A q=C t=100 v=x C",
     "RK_1/A:C@100=x;ERR"},
    {"commit inside a split cell", false,
     "k=RK f=A q=C t=100 v=v vs=9 C", "ERR"},
    {"reset with a row key", false,
     "k=RK f=A q=C t=100 v=x | k=RK R", "ERR"},
    {"reset with a value", false, "k=RK f=A q=C t=100 v=x | v=y R", "ERR"},
    {"reset before any row", false, "R", "ERR"},
    {"continuation names a cell", false,
     "k=RK f=A q=C t=100 v=v vs=9 | q=D v=alue-VAL C", "ERR"},
    /* valid streams */
    {"bare commit implies ts=0", false,
     "k=RK f=A q=C t=100 v=value-VAL | C",
     "RK/A:C@100=value-VAL;RK/A:C@0=;"},
    {"simple row with timestamp", false, "k=RK f=A q=C t=100 v=value-VAL C",
     "RK/A:C@100=value-VAL;"},
    {"missing timestamp means 0", false, "k=RK f=A q=C v=value-VAL C",
     "RK/A:C@0=value-VAL;"},
    {"empty cell value", false, "k=RK f=A q=C C", "RK/A:C@0=;"},
    {"empty qualifier", false, "k=RK f=A q= t=1 v=x C", "RK/A:@1=x;"},
    {"two unsplit cells", false, "k=RK f=A q=C t=99 v=v1 | t=98 v=v2 C",
     "RK/A:C@99=v1;RK/A:C@98=v2;"},
    {"two qualifiers", false, "k=RK f=A q=C t=99 v=v1 | q=D t=98 v=v2 C",
     "RK/A:C@99=v1;RK/A:D@98=v2;"},
    {"two families", false,
     "k=RK f=A q=C t=99 v=v1 | f=B q=E t=98 v=v2 C",
     "RK/A:C@99=v1;RK/B:E@98=v2;"},
    {"labels are not inherited", false,
     "k=RK f=A q=C t=99 l=L_1 v=v1 | t=98 v=v2 | t=97 l=L_3 v=v3 C",
     "RK/A:C@99=v1[L_1];RK/A:C@98=v2;RK/A:C@97=v3[L_3];"},
    {"split cell", false, "k=RK f=A q=C t=100 v=v vs=9 | v=alue-VAL C",
     "RK/A:C@100=value-VAL;"},
    {"split cell, bare commit", false,
     "k=RK f=A q=C t=100 v=v vs=9 | v=alue-VAL | C",
     "RK/A:C@100=value-VAL;RK/A:C@0=;"},
    {"split four ways with a label", false,
     "k=RK f=A q=C t=100 l=L v=v vs=9 | v=a vs=9 | v=l vs=9 | v=ue-VAL C",
     "RK/A:C@100=value-VAL[L];"},
    {"two split cells", false,
     "k=RK f=A q=C t=99 v=v vs=11 | v=alue-VAL_1 | t=98 v=v vs=11 | "
     "v=alue-VAL_2 C",
     "RK/A:C@99=value-VAL_1;RK/A:C@98=value-VAL_2;"},
    {"multi-qualifier splits", false,
     "k=RK f=A q=C t=99 v=v vs=11 | v=alue-VAL_1 | q=D t=98 v=v vs=11 | "
     "v=alue-VAL_2 C",
     "RK/A:C@99=value-VAL_1;RK/A:D@98=value-VAL_2;"},
    {"multi-family split", false,
     "k=RK f=A q=C t=99 v=v vs=11 | v=alue-VAL_1 | f=B q=E t=98 v=v vs=11 "
     "| v=alue-VAL_2 C",
     "RK/A:C@99=value-VAL_1;RK/B:E@98=value-VAL_2;"},
    {"two rows", false,
     "k=RK_1 f=A q=C t=100 v=x C | k=RK_2 f=A q=C t=100 v=y C",
     "RK_1/A:C@100=x;RK_2/A:C@100=y;"},
    {"two rows, family and qualifier inherited", false,
     "k=RK_1 f=A q=C t=100 v=x | t=99 v=y C | k=RK_2 f=B q=D t=1 v=z C",
     "RK_1/A:C@100=x;RK_1/A:C@99=y;RK_2/B:D@1=z;"},
    {"reset drops the row in progress", false,
     "k=RK f=A q=C t=100 v=x | R | k=RK f=A q=D t=100 v=y C",
     "RK/A:D@100=y;"},
    {"reset inside a split cell", false,
     "k=RK f=A q=C t=100 v=v vs=9 | R | k=RK f=A q=C t=100 v=fresh C",
     "RK/A:C@100=fresh;"},
    {"reset twice then a row", false,
     "k=RK f=A q=C t=1 v=x | R | k=RK f=A q=C t=2 v=y | R | "
     "k=RK f=A q=C t=3 v=z C",
     "RK/A:C@3=z;"},
    {"reset, then the next row", false,
     "k=RK_1 f=A q=C t=1 v=x C | k=RK_2 f=A q=C t=1 v=y | R | "
     "k=RK_2 f=A q=C t=2 v=z C",
     "RK_1/A:C@1=x;RK_2/A:C@2=z;"},
    {"trailing reset yields nothing", false,
     "k=RK_1 f=A q=C t=1 v=x C | k=RK_2 f=A q=C t=1 v=y | R",
     "RK_1/A:C@1=x;"},
    {"a reset row may reuse its key", false,
     "k=RK_1 f=A q=C t=1 v=x | R | k=RK_1 f=A q=C t=1 v=x C",
     "RK_1/A:C@1=x;"},
    /* reversed reads: keys must descend */
    {"reversed rows", true,
     "k=RK_2 f=A q=C t=1 v=x C | k=RK_1 f=A q=C t=1 v=y C",
     "RK_2/A:C@1=x;RK_1/A:C@1=y;"},
    {"reversed rows out of order", true,
     "k=RK_1 f=A q=C t=1 v=x C | k=RK_2 f=A q=C t=1 v=y C",
     "RK_1/A:C@1=x;ERR"},
};

static int render(void *ctx, const bt_row *row)
{
	char *out = ctx;
	const uint8_t *d = row->arena.data;
	for (size_t i = 0; i < row->n; i++) {
		const bt_cell *c = &row->cells[i];
		size_t o = strlen(out);
		snprintf(out + o, 4096 - o, "%.*s/%.*s:%.*s@%lld=%.*s",
			 (int)row->key.len, (const char *)row->key.data,
			 (int)c->family_len, (const char *)d + c->family_off,
			 (int)c->qual_len, (const char *)d + c->qual_off,
			 (long long)c->timestamp_micros, (int)c->value_len,
			 (const char *)d + c->value_off);
		o = strlen(out);
		if (c->label_len)
			snprintf(out + o, 4096 - o, "[%.*s]", (int)c->label_len,
				 (const char *)d + c->label_off);
		strcat(out, ";");
	}
	return 0;
}

/* Parse one chunk from "k=.. f=.. C" (fields point into buf). */
static void parse_chunk(char *text, bt_chunk *c)
{
	memset(c, 0, sizeof *c);
	for (char *tok = strtok(text, " "); tok; tok = strtok(NULL, " ")) {
		char *v = strchr(tok, '=');
		if (v)
			*v++ = 0;
		if (!strcmp(tok, "k")) {
			c->row_key = (const uint8_t *)v;
			c->row_key_len = strlen(v);
		} else if (!strcmp(tok, "f")) {
			c->has_family = true;
			c->family = v;
			c->family_len = strlen(v);
		} else if (!strcmp(tok, "q")) {
			c->has_qualifier = true;
			c->qualifier = (const uint8_t *)v;
			c->qualifier_len = strlen(v);
		} else if (!strcmp(tok, "t")) {
			c->timestamp_micros = atoll(v);
		} else if (!strcmp(tok, "v")) {
			c->value = (const uint8_t *)v;
			c->value_len = strlen(v);
		} else if (!strcmp(tok, "vs")) {
			c->value_size = atoi(v);
		} else if (!strcmp(tok, "l")) {
			c->label = v;
			c->label_len = strlen(v);
			c->nlabels = 1;
		} else if (!strcmp(tok, "R")) {
			c->reset_row = true;
		} else if (!strcmp(tok, "C")) {
			c->commit_row = true;
		}
	}
}

static void run_case(const merge_case *mc)
{
	check_current = mc->name;
	char out[4096] = "", text[1024];
	snprintf(text, sizeof text, "%s", mc->chunks);
	bt_merger m;
	bt_merger_init(&m, mc->reversed);
	int rc = SBX_OK;
	/* split on " | " by hand: strtok is busy inside parse_chunk */
	char *p = text;
	while (p && rc == SBX_OK) {
		char *next = strstr(p, " | ");
		if (next) {
			*next = 0;
			next += 3;
		}
		bt_chunk c;
		parse_chunk(p, &c);
		rc = bt_merger_chunk(&m, &c, render, out);
		p = next;
	}
	if (rc == SBX_OK)
		rc = bt_merger_finish(&m);
	if (rc) {
		CHECK_INT(rc, SBX_EREMOTE);
		CHECK(m.why[0] != 0);
		strcat(out, "ERR");
	}
	CHECK_STR(out, mc->expect);
	bt_merger_free(&m);
}

static void test_merge_cases(void)
{
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
		run_case(&cases[i]);
}

/* A row split across many chunks keeps its bytes; the last key is where a
 * retry resumes. */
static void test_long_split_value(void)
{
	bt_merger m;
	bt_merger_init(&m, false);
	char out[4096] = "";
	bt_chunk c = {0};
	c.row_key = (const uint8_t *)"r";
	c.row_key_len = 1;
	c.has_family = c.has_qualifier = true;
	c.family = "f";
	c.family_len = 1;
	c.qualifier = (const uint8_t *)"q";
	c.qualifier_len = 1;
	c.timestamp_micros = 5000;
	c.value = (const uint8_t *)"0";
	c.value_len = 1;
	c.value_size = 10;
	CHECK_INT(bt_merger_chunk(&m, &c, render, out), SBX_OK);
	for (int i = 1; i < 10; i++) {
		bt_chunk k = {0};
		char digit[2] = {(char)('0' + i), 0};
		k.value = (const uint8_t *)digit;
		k.value_len = 1;
		k.value_size = i < 9 ? 10 : 0;
		k.commit_row = i == 9;
		CHECK_INT(bt_merger_chunk(&m, &k, render, out), SBX_OK);
	}
	CHECK_INT(bt_merger_finish(&m), SBX_OK);
	CHECK_STR(out, "r/f:q@5000=0123456789;");
	size_t len;
	const uint8_t *last = bt_merger_last_key(&m, &len);
	CHECK_MEM(last, len, "r");
	bt_merger_free(&m);
}

TEST_MAIN(T(test_merge_cases), T(test_long_split_value))
