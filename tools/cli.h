/* cli.h - the subcommands of the `saltbox` command, one file each. */
#ifndef SBX_TOOLS_CLI_H
#define SBX_TOOLS_CLI_H

#include "saltbox.h"

#include <stdio.h>

/* Open the store a subcommand was given: `url` from --connect (an HBase
 * REST gateway, http://host:port, or Cloud Bigtable,
 * bigtable://PROJECT/INSTANCE) when set, else the existing store at `data`
 * (never created). On failure print "WHO: <reason>" to stderr and return
 * NULL. Inline: the fuzz targets compile subcommand files without main.c. */
static inline sbx_db *cli_open_store(const char *data, const char *url,
				     const char *who)
{
	sbx_db *db;
	if (url) {
		if (sbx_db_connect(&db, url)) {
			fprintf(stderr, "%s: %s\n", who, sbx_errmsg());
			return NULL;
		}
		return db;
	}
	sbx_db_options o;
	sbx_db_options_init(&o);
	o.create_if_missing = false;
	if (sbx_db_open(&db, data, &o)) {
		fprintf(stderr, "%s: %s\n", who, sbx_errmsg());
		return NULL;
	}
	return db;
}

/* The store options every subcommand that reads or writes tables takes. */
#define CLI_STORE_USAGE "(--data DIR | --connect URL)"
#define CLI_STORE_HELP                                                       \
	"  --data DIR          the store directory\n"                          \
	"  --connect URL       a running store instead: an HBase REST gateway\n" \
	"                      (http://host:port, e.g. saltbox serve) or Cloud\n" \
	"                      Bigtable (bigtable://PROJECT/INSTANCE; the\n"    \
	"                      emulator through BIGTABLE_EMULATOR_HOST)\n"

/* Each returns the process exit status. argv[0] is the subcommand name. */
int cmd_shell(int argc, char **argv);
int cmd_serve(int argc, char **argv);
int cmd_key(int argc, char **argv);
int cmd_regions(int argc, char **argv);
int cmd_keyviz(int argc, char **argv);
int cmd_importtsv(int argc, char **argv);
int cmd_completebulkload(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_txn(int argc, char **argv);
int cmd_ds(int argc, char **argv);
/* `saltbox txn bank` (txn_bank.c); argv[0] is "bank". */
int cmd_txn_bank(int argc, char **argv);

#endif
