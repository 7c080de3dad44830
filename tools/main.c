/*
 * main.c - the `saltbox` command: dispatches to one subcommand per file.
 */
#include "cli.h"

#include <stdio.h>
#include <string.h>

typedef struct subcommand {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
} subcommand;

static const subcommand subcommands[] = {
	{"shell", cmd_shell, "HBase-shell-compatible shell on an embedded store"},
	{"serve", cmd_serve, "HBase REST server (Stargate protocol) on a store"},
	{"key", cmd_key, "row-key designs: explain, encode, decode, lint, plan"},
	{"regions", cmd_regions, "regions: list, stats, split, merge, export-splits"},
	{"keyviz", cmd_keyviz, "hotspot analyzer: simulate, compare, render heatmaps"},
	{"importtsv", cmd_importtsv, "load a TSV file: puts, or store files (HBase's ImportTsv)"},
	{"completebulkload", cmd_completebulkload, "load store files into a table (HBase's)"},
	{"export", cmd_export, "a table's cells to TSV or JSON (REST CellSets)"},
	{"import", cmd_import, "cells from TSV or JSON (as export writes them)"},
	{"txn", cmd_txn, "transactions: prepare tables, list/resolve locks, bank test"},
	{"ds", cmd_ds, "datastore: print a row as its entity tree"},
};

static void usage(FILE *out)
{
	fprintf(out, "usage: saltbox <command> [options]\n\ncommands:\n");
	int w = 0; /* the summaries in one column, past the longest name */
	for (size_t i = 0; i < sizeof subcommands / sizeof *subcommands; i++)
		if ((int)strlen(subcommands[i].name) > w)
			w = (int)strlen(subcommands[i].name);
	for (size_t i = 0; i < sizeof subcommands / sizeof *subcommands; i++)
		fprintf(out, "  %-*s  %s\n", w, subcommands[i].name,
			subcommands[i].summary);
	fprintf(out, "\nRun 'saltbox <command> --help' for a command's options.\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("saltbox %s\n", sbx_version());
		return 0;
	}
	for (size_t i = 0; i < sizeof subcommands / sizeof *subcommands; i++)
		if (!strcmp(argv[1], subcommands[i].name))
			return subcommands[i].run(argc - 1, argv + 1);
	fprintf(stderr, "saltbox: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return 2;
}
