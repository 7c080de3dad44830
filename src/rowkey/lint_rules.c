/*
 * lint_rules.c - the row-key rules lint checks: a stable id, a level and
 * the seed article and section each comes from. The design parser checks
 * allow(rule-id) against this table; lint.c reports findings from it.
 */
#include "rowkey/design.h"

#include <string.h>

static const kd_lint_rule RULES[] = {
	{"monotonic-leading-field", SBX_LINT_WARN,
	 "seed 000 §4.1 Hotspotting and §4.2 Monotonically Increasing Row "
	 "Keys; seed 002 (date:time:message_id); seed 004 §2 rowkey散列原则"},
	{"prefix-breaks-range-scan", SBX_LINT_WARN,
	 "seed 000 §4.1.2 Salting (not for data that needs range scans) and "
	 "Hashing; seed 004 §4 加盐/哈希"},
	{"unordered-scan-field", SBX_LINT_WARN,
	 "seed 000 §4.1.2 Reversing the Key (ordering breaks, scans suffer); "
	 "seed 004 §4 3反转"},
	{"key-too-long", SBX_LINT_WARN,
	 "seed 004 §1 rowkey长度原则 (≤ 16 B); seed 000 §4.3 Try to minimize "
	 "row and column sizes"},
	{"key-not-fixed-width", SBX_LINT_INFO,
	 "seed 004 §1 rowkey长度原则 (一般设计成定长: usually fixed width)"},
	{"long-column-names", SBX_LINT_WARN,
	 "seed 000 §4.3.2 (u:n, not user_information:name); seed 004 其他建议 "
	 "(列族最好是一个字符)"},
	{"identity-not-unique", SBX_LINT_WARN,
	 "seed 004 §3 rowkey唯一原则; seed 003 §3.2-3.3 (orderId:productId "
	 "is unique)"},
	{"reverse-timestamp", SBX_LINT_INFO,
	 "seed 000 §4.4.3 (since HBase 0.98 a reversed scan reads newest "
	 "first without a reverse timestamp)"},
	{"salt-buckets-vs-regions", SBX_LINT_WARN,
	 "seed 004 §4 1加盐 (as many prefixes as regions); "
	 "reference/hbase-semantics.md §4.1 (Phoenix pre-splits one region "
	 "per bucket)"},
	{"unpadded-number", SBX_LINT_WARN,
	 "reference/hbase-semantics.md §5.3 (zero-pad integers); seed 002 "
	 "(message_id grows in digits)"},
};

const kd_lint_rule *kd_lint_rule_find(const char *id)
{
	for (size_t i = 0; i < sizeof RULES / sizeof *RULES; i++)
		if (!strcmp(RULES[i].id, id))
			return &RULES[i];
	return NULL;
}
