/*
 * lint_rules.c - the row-key rules lint checks: a stable id, a level and
 * the source a user can open that each comes from (the HBase Reference
 * Guide's sections by name, the articles by title; internally these are
 * the seeds 000-004). The design parser checks
 * allow(rule-id) against this table; lint.c reports findings from it.
 */
#include "rowkey/design.h"

#include <string.h>

static const kd_lint_rule RULES[] = {
	{"monotonic-leading-field", SBX_LINT_WARN,
	 "HBase Reference Guide, \"Hotspotting\" and \"Monotonically "
	 "Increasing Row Keys/Timeseries Data\"; \"HBase Row Key "
	 "Design\" (the chat-message key article) "
	 "(date:time:message_id); \"HBase的rowKey设计技巧\", rowkey散列原则"},
	{"prefix-breaks-range-scan", SBX_LINT_WARN,
	 "HBase Reference Guide, \"Hotspotting\": Salting (not for data "
	 "read by range scans) and Hashing; \"HBase的rowKey设计技巧\", 加盐/哈希"},
	{"unordered-scan-field", SBX_LINT_WARN,
	 "HBase Reference Guide, \"Hotspotting\": Reversing the Key "
	 "(ordering breaks, scans suffer); \"HBase的rowKey设计技巧\", 反转"},
	{"key-too-long", SBX_LINT_WARN,
	 "\"HBase的rowKey设计技巧\", rowkey长度原则 (at most 16 bytes); HBase "
	 "Reference Guide, \"Try to minimize row and column sizes\""},
	{"key-not-fixed-width", SBX_LINT_INFO,
	 "\"HBase的rowKey设计技巧\", rowkey长度原则 (一般设计成定长: usually fixed "
	 "width)"},
	{"long-column-names", SBX_LINT_WARN,
	 "HBase Reference Guide, \"Try to minimize row and column "
	 "sizes\" (u:n, not user_information:name); \"HBase的rowKey设计技巧\" "
	 "(列族最好是一个字符: one-letter families)"},
	{"identity-not-unique", SBX_LINT_WARN,
	 "\"HBase的rowKey设计技巧\", rowkey唯一原则; \"[HBase 실습] Coupang\" "
	 "(Hyunjun Kim) (orderId:productId is unique)"},
	{"reverse-timestamp", SBX_LINT_INFO,
	 "HBase Reference Guide, \"Reverse Timestamps\" (since HBase "
	 "0.98 a reversed scan, Scan.setReversed, reads newest first "
	 "without one)"},
	{"salt-buckets-vs-regions", SBX_LINT_WARN,
	 "\"HBase的rowKey设计技巧\", 加盐 (as many prefixes as regions); "
	 "Apache Phoenix, \"Salted Tables\" (one pre-split region per "
	 "bucket)"},
	{"unpadded-number", SBX_LINT_WARN,
	 "HBase Reference Guide, \"Rowkey Design\" (keys sort as bytes: "
	 "zero-pad integers); \"HBase Row Key Design\" (the "
	 "chat-message key article) (message_id grows in digits)"},
};

const kd_lint_rule *kd_lint_rule_find(const char *id)
{
	for (size_t i = 0; i < sizeof RULES / sizeof *RULES; i++)
		if (!strcmp(RULES[i].id, id))
			return &RULES[i];
	return NULL;
}
