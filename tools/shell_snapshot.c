/*
 * shell_snapshot.c - the shell's snapshot commands, HBase's: snapshot,
 * list_snapshots, clone_snapshot, restore_snapshot, delete_snapshot.
 */
#include "shell.h"

#include <stdio.h>
#include <time.h>

/* snapshot 't1', 'snap' */
int shell_cmd_snapshot(shell *sh, const sbx_shell_cmd *c)
{
	const char *table, *snap;
	if (shell_text(sh, &c->args[0], "table name", &table) ||
	    shell_text(sh, &c->args[1], "snapshot name", &snap))
		return -1;
	int rc = sbx_snapshot_create(sh->db, table, snap);
	return rc ? shell_lib_fail(sh, rc, NULL) : 0;
}

/* clone_snapshot 'snap', 'new_table' */
int shell_cmd_clone_snapshot(shell *sh, const sbx_shell_cmd *c)
{
	const char *snap, *table;
	if (shell_text(sh, &c->args[0], "snapshot name", &snap) ||
	    shell_text(sh, &c->args[1], "table name", &table))
		return -1;
	int rc = sbx_snapshot_clone(sh->db, snap, table);
	return rc ? shell_lib_fail(sh, rc, NULL) : 0;
}

int shell_cmd_restore_snapshot(shell *sh, const sbx_shell_cmd *c)
{
	return shell_name_op(sh, c, "snapshot name", sbx_snapshot_restore);
}

int shell_cmd_delete_snapshot(shell *sh, const sbx_shell_cmd *c)
{
	return shell_name_op(sh, c, "snapshot name", sbx_snapshot_delete);
}

/* As HBase's: SNAPSHOT, TABLE + CREATION TIME, one line each. */
int shell_cmd_list_snapshots(shell *sh, const sbx_shell_cmd *c)
{
	(void)c;
	sbx_snapshot_info *v;
	size_t n;
	int rc = sbx_snapshot_list(&v, &n, sh->db);
	if (rc)
		return shell_lib_fail(sh, rc, NULL);
	fprintf(sh->out, "%-24s %s\n", "SNAPSHOT", "TABLE + CREATION TIME");
	for (size_t i = 0; i < n; i++) {
		time_t secs = (time_t)(v[i].created_ms / 1000);
		struct tm tm;
		char when[32] = "?";
		if (gmtime_r(&secs, &tm))
			strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC",
				 &tm);
		fprintf(sh->out, " %-23s %s (%s)\n", v[i].name, v[i].table,
			when);
	}
	fprintf(sh->out, "%zu row(s)\n", n);
	sbx_snapshot_infos_free(v, n);
	return 0;
}
