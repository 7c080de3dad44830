/* keyviz_int.h - the parsed workload shared by the parser, the record
 * generator and the simulator (internal). */
#ifndef SBX_KEYVIZ_INT_H
#define SBX_KEYVIZ_INT_H

#include <assert.h>
#include "saltbox/keyviz.h"

typedef enum kv_gen_kind {
	GEN_SEQUENCE,
	GEN_TIME,
	GEN_UNIFORM,
	GEN_ZIPFIAN,
	GEN_LATEST,
	GEN_SET,
	GEN_CONST,
	GEN_RANDOM,
} kv_gen_kind;

typedef enum kv_read_dist {
	READ_UNIFORM,
	READ_ZIPFIAN,
	READ_LATEST,
} kv_read_dist;

typedef struct kv_field {
	char *name;
	kv_gen_kind kind;
	int line;
	int64_t start, step;  /* sequence */
	int64_t min, max;     /* uniform, zipfian, latest: ids in [min, max] */
	double theta;         /* zipfian, latest skew (YCSB 0.99) */
	bool scramble;        /* zipfian: popular ids scattered, not 0, 1, 2 */
	char *prefix;         /* numbers: text before the digits */
	int pad;              /* numbers: zero-pad to this many digits */
	char *format;         /* time: NULL = epoch ms, "s", "us", strftime */
	char **values;        /* set (and const: one value) */
	double *cum_weights;  /* set: cumulative weights, last = total */
	size_t nvalues;
	int bytes;            /* random: bytes of random hex */
	double zeta_n;        /* zipfian: precomputed zeta(n, theta) */
} kv_field;

/* A region boundary a trace recorded: it appears (`region` or `split`
 * line) or goes (`merge`) before trace operation `at`. */
typedef struct kv_trace_bound {
	uint64_t at;
	bool merge;
	size_t off, len; /* in the arena */
} kv_trace_bound;

typedef struct kv_trace_op {
	sbx_op_kind kind;
	size_t off, len; /* in the arena */
	int line;
} kv_trace_op;

struct sbx_workload {
	char *name;
	bool is_trace, trace_hex;
	uint64_t ops;
	double rate;        /* operations per simulated second */
	int64_t start_ms;
	uint64_t seed;
	uint32_t value_bytes;
	uint64_t preload;
	double w_put, w_get, w_scan;
	kv_read_dist read;
	char **scan_fields;
	size_t nscan_fields;
	uint32_t scan_rows;
	kv_field *fields;
	size_t nfields;
	/* cluster settings, each applied only when set */
	int servers;
	uint64_t region_size, flush_size;
	bool has_policy;
	sbx_split_policy policy;
	sbx_presplit_kind presplit;
	sbx_split_algo algo;
	int presplit_regions;
	sbx_bytes *split_keys;
	size_t nsplit_keys;
	/* traces */
	kv_trace_op *trace;
	kv_trace_bound *bounds; /* in trace order */
	size_t nbounds;
	sbx_buf arena;
};

/* YCSB's zeta(n, theta), exact for small n and by Euler-Maclaurin above. */
double kv_zeta(uint64_t n, double theta);
/* A zipfian draw in [0, n) (0 most popular), u uniform in [0, 1).
 * REQUIRES: 0 <= u < 1, zeta_n = kv_zeta(n, theta). */
uint64_t kv_zipf(uint64_t n, double theta, double zeta_n, double u);
/* splitmix64 */
static inline uint64_t kv_mix64(uint64_t x)
{
	x += 0x9E3779B97F4A7C15ull;
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
	return x ^ (x >> 31);
}
static inline double kv_unit(uint64_t r)
{
	return (double)(r >> 11) * (1.0 / 9007199254740992.0);
}

/* Whether `design` reads field `name` (as a key field or a hash/salt
 * input). REQUIRES: design and name non-NULL. */
bool kv_design_uses(const sbx_keydesign *design, const char *name);

/* The key of record k through the iterator's design (borrowed until the
 * next call). REQUIRES: a generated workload's iterator (it has a design,
 * not a trace); key and len non-NULL. */
int kv_record_key(sbx_workload_iter *it, uint64_t k, const uint8_t **key,
		  size_t *len);
/* Records the run is expected to hold at its end (preload + puts). */
uint64_t kv_iter_expected_records(const sbx_workload_iter *it);
/* Traces: the next operation returned is line-op i. REQUIRES: a trace's
 * iterator, i <= its operation count. */
void kv_iter_seek(sbx_workload_iter *it, uint64_t i);

#endif
