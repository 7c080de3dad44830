/*
 * shell_out.c - output in the HBase shell's format: the two-column
 * ROW / COLUMN+CELL table, cells as `column=cf:q, timestamp=..., value=...`,
 * bytes escaped as Bytes.toStringBinary, and human-readable TTLs.
 */
#include "shell.h"

#include "common/buf.h"
#include "common/bytes.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Width of the left column, as HBase's formatter lays it out. */
#define LEFT_WIDTH 40

void shell_print_binary(shell *sh, const void *data, size_t len)
{
	sbx_buf b = {0};
	if (sbx_shell_append_binary(&b, data, len) == 0 && b.len)
		fwrite(b.data, 1, b.len, sh->out);
	free(b.data);
}

void shell_print_header(shell *sh, const char *left, const char *right)
{
	fprintf(sh->out, "%-*s %s\n", LEFT_WIDTH, left, right);
}

static void print_left(shell *sh, const sbx_buf *left)
{
	fputc(' ', sh->out);
	fwrite(left->data, 1, left->len, sh->out);
	size_t pad =
	    left->len < LEFT_WIDTH - 1 ? LEFT_WIDTH - 1 - left->len : 0;
	fprintf(sh->out, "%*s ", (int)pad, "");
}

static const char *marker_name(sbx_cell_type type)
{
	switch (type) {
	case SBX_CELL_PUT:
		return "Put";
	case SBX_CELL_DELETE:
		return "Delete";
	case SBX_CELL_DELETE_COLUMN:
		return "DeleteColumn";
	case SBX_CELL_DELETE_FAMILY:
		return "DeleteFamily";
	case SBX_CELL_DELETE_FAMILY_VERSION:
		return "DeleteFamilyVersion";
	}
	return "Unknown";
}

static int append_column(sbx_buf *b, const sbx_cell *cell)
{
	int rc = sbx_shell_append_binary(b, cell->family, cell->family_len);
	if (!rc)
		rc = sbx_buf_push(b, ':');
	if (!rc)
		rc = sbx_shell_append_binary(b, cell->qualifier,
					     cell->qualifier_len);
	return rc;
}

static uint64_t big_endian(const uint8_t *v, size_t n)
{
	uint64_t x = 0;
	for (size_t i = 0; i < n; i++)
		x = x << 8 | v[i];
	return x;
}

/* The value as Bytes.toLong/toInt/... would show it; a value of the wrong
 * width falls back to toStringBinary. */
static int append_value(sbx_buf *b, const uint8_t *v, size_t n,
			shell_format format)
{
	char num[64];
	num[0] = 0;
	switch (format) {
	case SHELL_FMT_STRING:
		return sbx_buf_append(b, v, n);
	case SHELL_FMT_LONG:
		if (n == 8)
			snprintf(num, sizeof num, "%" PRId64,
				 (int64_t)big_endian(v, 8));
		break;
	case SHELL_FMT_INT:
		if (n == 4)
			snprintf(num, sizeof num, "%" PRId32,
				 (int32_t)(uint32_t)big_endian(v, 4));
		break;
	case SHELL_FMT_SHORT:
		if (n == 2)
			snprintf(num, sizeof num, "%d",
				 (int16_t)(uint16_t)big_endian(v, 2));
		break;
	case SHELL_FMT_FLOAT:
		if (n == 4) {
			uint32_t bits = (uint32_t)big_endian(v, 4);
			float f;
			memcpy(&f, &bits, 4);
			snprintf(num, sizeof num, "%.9g", (double)f);
		}
		break;
	case SHELL_FMT_DOUBLE:
		if (n == 8) {
			uint64_t bits = big_endian(v, 8);
			double d;
			memcpy(&d, &bits, 8);
			snprintf(num, sizeof num, "%.17g", d);
		}
		break;
	case SHELL_FMT_BOOLEAN:
		if (n == 1)
			snprintf(num, sizeof num, "%s",
				 v[0] ? "true" : "false");
		break;
	case SHELL_FMT_HEX:
		return sbx_hex_append(b, v, n, false);
	case SHELL_FMT_BINARY:
		break;
	}
	if (num[0])
		return sbx_buf_append(b, num, strlen(num));
	return sbx_shell_append_binary(b, v, n);
}

void shell_print_cell(shell *sh, const sbx_cell *cell, bool row_mode,
		      shell_format format, int64_t maxlength)
{
	sbx_buf left = {0}, right = {0};
	int rc;
	size_t cell_start = 0;
	char ts[48];
	if (row_mode) {
		rc = sbx_shell_append_binary(&left, cell->row, cell->row_len);
		if (!rc)
			rc = sbx_buf_append(&right, "column=", 7);
		if (!rc)
			rc = append_column(&right, cell);
		if (!rc)
			rc = sbx_buf_append(&right, ", ", 2);
	} else {
		rc = append_column(&left, cell);
	}
	cell_start = right.len;
	snprintf(ts, sizeof ts, "timestamp=%" PRId64 ", ", cell->timestamp);
	if (!rc)
		rc = sbx_buf_append(&right, ts, strlen(ts));
	if (!rc && cell->type != SBX_CELL_PUT) {
		const char *name = marker_name(cell->type);
		rc = sbx_buf_append(&right, "type=", 5);
		if (!rc)
			rc = sbx_buf_append(&right, name, strlen(name));
	} else if (!rc) {
		rc = sbx_buf_append(&right, "value=", 6);
		if (!rc)
			rc = append_value(&right, cell->value, cell->value_len,
					  format);
	}
	if (!rc && maxlength > 0 && right.len - cell_start > (size_t)maxlength)
		right.len = cell_start + (size_t)maxlength;
	if (!rc) {
		print_left(sh, &left);
		fwrite(right.data, 1, right.len, sh->out);
		fputc('\n', sh->out);
	}
	free(left.data);
	free(right.data);
}

/* As HBase's PrettyPrinter.humanReadableTTL. */
void shell_format_ttl(char *out, size_t cap, int64_t ttl)
{
	if (ttl >= SBX_TTL_FOREVER) {
		snprintf(out, cap, "FOREVER");
		return;
	}
	if (ttl < 60) {
		snprintf(out, cap, "%" PRId64 " SECOND%s", ttl,
			 ttl == 1 ? "" : "S");
		return;
	}
	static const struct {
		const char *name;
		int64_t seconds;
	} units[] = {
	    {"DAY", 86400}, {"HOUR", 3600}, {"MINUTE", 60}, {"SECOND", 1}};
	size_t n = (size_t)snprintf(out, cap, "%" PRId64 " SECONDS (", ttl);
	int64_t rest = ttl;
	bool first = true;
	for (size_t i = 0; i < 4 && n < cap; i++) {
		int64_t k = rest / units[i].seconds;
		rest %= units[i].seconds;
		if (!k)
			continue;
		n += (size_t)snprintf(out + n, cap - n, "%s%" PRId64 " %s%s",
				      first ? "" : " ", k, units[i].name,
				      k == 1 ? "" : "S");
		first = false;
	}
	if (n < cap)
		snprintf(out + n, cap - n, ")");
}
