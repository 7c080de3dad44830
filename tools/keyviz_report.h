/* keyviz_report.h - `saltbox keyviz compare --report FILE`: one
 * self-contained HTML page comparing key designs (keyviz_report.c). */
#ifndef SBX_TOOLS_KEYVIZ_REPORT_H
#define SBX_TOOLS_KEYVIZ_REPORT_H

#include "common/buf.h"
#include "saltbox/hotspot.h"
#include "saltbox/keyviz.h"
#include "saltbox/rowkey.h"

/* The one verdict (sbx_keyviz_hotspot) on one result in words ("Hot: ...", and why), into out
 * (NUL-terminated); returns its word: "hot", "uneven", "even" or "idle". */
const char *keyviz_verdict(sbx_buf *out, const sbx_keyviz_result *r);

/* Append the report: res[i] simulated through designs[i] (NULL for raw
 * keys). Errors: SBX_ENOMEM. */
int keyviz_report(sbx_buf *out, sbx_keyviz_result *const *res,
		  const sbx_keydesign *const *designs, int n,
		  const char *title);

#endif
