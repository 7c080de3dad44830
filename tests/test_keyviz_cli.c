/*
 * test_keyviz_cli.c - `saltbox keyviz` and `saltbox regions` run as a user
 * would (the binary in $SBX_SALTBOX): simulate and compare summaries,
 * SVG/HTML/JSON files, render, errors naming the line; regions list,
 * split, merge and the HBase shell create statement export-splits prints.
 */
#include "cli_util.h"

#include "saltbox/db.h"
#include "saltbox/regions.h"


static int run(const char *args)
{
	return run_saltbox(args);
}

static void put_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return;
	fputs(text, f);
	fclose(f);
}

static void test_simulate_and_compare(void)
{
	const char *dir = test_dir("kvcli");
	mkdir(dir, 0755);
	char w[4200], d[4200], args[32768];
	snprintf(w, sizeof w, "%s/seq.workload", dir);
	snprintf(d, sizeof d, "%s/seq.design", dir);
	put_file(w, "name sequential ids\nops 20000\nfield id sequence\n"
		    "region_size 128KB\n");
	put_file(d, "seq = id:u64\nsalted = salt(4) + id:u64\n");
	snprintf(args, sizeof args,
		 "keyviz simulate -w '%s' -f '%s' -n seq --svg '%s/s.svg' "
		 "--json '%s/s.json'",
		 w, d, dir, dir);
	CHECK_INT(run(args), 0);
	CHECK_OUT("workload sequential ids: 20000 ops on 4 modelled region "
		  "servers\n");
	CHECK_OUT("design seq\n");
	CHECK_OUT("  hotspot  score 4.00 (busiest server's load / mean, per "
		  "interval; 1 = even, 4 = one server)\n");
	CHECK_OUT("busiest server's share 100.0% (even: 25.0%)");
	/* issue 17: the one verdict, as /ui and `regions stats` say it */
	CHECK_OUT("  verdict  hot: server 0 served 100% of the load; hotspot "
		  "score 4.00 of 4 (1 = even, hot from 2.00)\n");
	snprintf(args, sizeof args,
		 "keyviz compare -w '%s' -f '%s' --presplit salt --html "
		 "'%s/c.html' --svg-dir '%s/svg'",
		 w, d, dir, dir);
	/* presplit salt needs every design salted: the unsalted one fails */
	CHECK_INT(run(args), 1);
	/* the design named once (issue 18.14), not "design 'seq': ...
	 * design 'seq' ..." */
	CHECK_OUT("saltbox keyviz: presplit salt: design 'seq' has no salt "
		  "buckets\n");
	snprintf(args, sizeof args,
		 "keyviz compare -w '%s' -f '%s' --html '%s/c.html' "
		 "--svg-dir '%s/svg'",
		 w, d, dir, dir);
	CHECK_INT(run(args), 0);
	CHECK_OUT("design               key bytes   score  busiest  regions  "
		  "splits  req/scan  verdict\n");
	CHECK_OUT("seq                        8.0    4.00   100.0%");
	CHECK_OUT("salted                     9.0");
	snprintf(args, sizeof args, "keyviz render '%s/s.json'", dir);
	CHECK_INT(run(args), 0);
	CHECK_OUT("seq                        8.0    4.00   100.0%");
	snprintf(args, sizeof args, "keyviz render '%s/s.json' --html "
				    "'%s/r.html'", dir, dir);
	CHECK_INT(run(args), 0);
	char path[4300];
	struct stat st;
	const char *files[] = {"s.svg", "c.html", "svg/seq.svg",
			       "svg/salted.svg", "r.html"};
	for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, files[i]);
		CHECK(stat(path, &st) == 0 && st.st_size > 1000);
	}
	if (system("command -v xmllint >/dev/null 2>&1") == 0) {
		snprintf(args, sizeof args,
			 "xmllint --noout '%s/s.svg' '%s/c.html' '%s/r.html'",
			 dir, dir, dir);
		CHECK_INT(system(args), 0);
	}
}

static void test_errors_name_the_line(void)
{
	const char *dir = test_dir("kvcli-err");
	mkdir(dir, 0755);
	char w[4200], t[4200], args[9000];
	snprintf(w, sizeof w, "%s/bad.workload", dir);
	put_file(w, "ops 100\n# ok so far\nfield id sequense\n");
	snprintf(args, sizeof args, "keyviz simulate -w '%s' -d 'id:u64'", w);
	CHECK_INT(run(args), 1);
	CHECK_OUT("bad.workload: line 3: field 'id': unknown generator "
		  "'sequense'");
	snprintf(t, sizeof t, "%s/bad.trace", dir);
	put_file(t, "a\nb\nput\t\n");
	snprintf(args, sizeof args, "keyviz simulate -t '%s'", t);
	CHECK_INT(run(args), 1);
	CHECK_OUT("bad.trace: line 3: empty key");
	put_file(w, "ops 100\nfield id sequence\n");
	snprintf(args, sizeof args, "keyviz simulate -w '%s' -d 'id:u6'", w);
	CHECK_INT(run(args), 1);
	CHECK_OUT("design: line 1, column 4");
	CHECK_INT(run("keyviz frobnicate"), 2);
	CHECK_OUT("unknown verb 'frobnicate'");
	CHECK_INT(run("keyviz --help"), 0);
	CHECK_OUT("usage: saltbox keyviz <verb>");
	/* a raw trace, hex */
	put_file(t, "0001\n0002\nget\t0001\n");
	snprintf(args, sizeof args, "keyviz simulate --hex -t '%s'", t);
	CHECK_INT(run(args), 0);
	CHECK_OUT("design raw\n");
	CHECK_OUT("3 (2 puts, 1 gets, 0 scans)");
	/* a trace with the store's layout (serve --trace) replays it */
	put_file(t, "region\tg\nregion\tp\nput\ta\nput\th\nsplit\tm\n"
		    "put\tz\nput\tn\n");
	snprintf(args, sizeof args, "keyviz simulate -t '%s' --servers 2", t);
	CHECK_INT(run(args), 0);
	CHECK_OUT("  regions  4 at the end (0 splits, ");
	CHECK_OUT("  layout   the store's real regions from the trace: 2 "
		  "boundaries at the start, 1 splits and 0 merges replayed\n");
	/* g and p went round-robin to servers 1 and 0; m split off g's */
	CHECK_OUT("    [m, p) 1: server 1 1 (now on server 1)\n");
}

/* The domino effect on the command line: the summary says who fell. */
static void test_fail_server(void)
{
	const char *dir = test_dir("kvcli-fail");
	mkdir(dir, 0755);
	char w[4200], args[9000];
	snprintf(w, sizeof w, "%s/seq.workload", dir);
	put_file(w, "ops 40000\nrate 1000/s\nvalue 100\n"
		    "field id sequence start=1\nservers 4\n"
		    "region_size 256KB\n");
	snprintf(args, sizeof args, "keyviz simulate -w '%s' -d 'id:u64' "
		 "--time-buckets 40 --fail-server 50%%", w);
	CHECK_INT(run(args), 0);
	CHECK_OUT("  0       20000            87.0%  down at time bucket 20\n");
	CHECK_OUT("  domino   capacity 500 requests per server per time "
		  "bucket; down in turn: server 0 (bucket 20), server 2 "
		  "(bucket 21), server 3 (bucket 22), server 1 (bucket 23)\n");
	CHECK_OUT("every server fell in turn: the whole cluster is down "
		  "(17000 requests found no server)");
	snprintf(args, sizeof args, "keyviz simulate -w '%s' -d "
		 "'salt(16, of=id) + id:u64' --presplit salt "
		 "--time-buckets 40 --fail-server 20", w);
	CHECK_INT(run(args), 0);
	CHECK_OUT("down in turn: server 0 (bucket 20)\n"
		  "           the next server did not fall");
	snprintf(args, sizeof args, "keyviz simulate -w '%s' -d 'id:u64' "
		 "--fail-server 60", w);
	CHECK_INT(run(args), 2);
	CHECK_OUT("--fail-server (time bucket) must be 1..59, not '60'");
}

static void test_regions_cli(void)
{
	const char *dir = test_dir("regcli");
	char data[4200], args[9000];
	snprintf(data, sizeof data, "%s", dir);
	sbx_db *db;
	REQUIRE(!sbx_db_open(&db, data, NULL));
	sbx_family_desc f[2];
	sbx_family_desc_init(&f[0], "cf");
	sbx_family_desc_init(&f[1], "m");
	f[1].max_versions = 3;
	f[1].compression = SBX_COMPRESSION_LZ4;
	sbx_bytes splits[3] = {{"\x01", 1}, {"g\"#", 3}, {"p", 1}};
	REQUIRE(!sbx_table_create_presplit(db, "t", f, 2, splits, 3));
	sbx_db_close(db);

	snprintf(args, sizeof args, "regions export-splits --data '%s' t",
		 data);
	CHECK_INT(run(args), 0);
	CHECK_STR(cli_out, "create 't', {NAME => 'cf'}, {NAME => 'm', VERSIONS => "
		       "3, COMPRESSION => 'LZ4'}, SPLITS => [\"\\x01\", "
		       "\"g\\\"\\#\", \"p\"]\n");
	snprintf(args, sizeof args, "regions list --data '%s' t", data);
	CHECK_INT(run(args), 0);
	CHECK_OUT("4 regions on 4 modelled servers\n");
	CHECK_OUT("\\x01");
	snprintf(args, sizeof args, "regions split --data '%s' t k", data);
	CHECK_INT(run(args), 0);
	CHECK_OUT("5 regions");
	snprintf(args, sizeof args, "regions export-splits --data '%s' t",
		 data);
	CHECK_INT(run(args), 0);
	CHECK_OUT("SPLITS => [\"\\x01\", \"g\\\"\\#\", \"k\", \"p\"]\n");
	snprintf(args, sizeof args, "regions merge --data '%s' t k", data);
	CHECK_INT(run(args), 0);
	CHECK_OUT("4 regions");
	snprintf(args, sizeof args, "regions list --json --data '%s' t", data);
	CHECK_INT(run(args), 0);
	CHECK_OUT("\"start\": \"g\\\"#\"");
	snprintf(args, sizeof args, "regions stats --data '%s' t", data);
	CHECK_INT(run(args), 0);
	CHECK_OUT("busiest server's share");
	snprintf(args, sizeof args, "regions stats --json --buckets 3 "
				    "--data '%s' t", data);
	CHECK_INT(run(args), 0);
	CHECK_OUT("\"readRequestCount\"");
	snprintf(args, sizeof args, "regions list --data '%s' nope", data);
	CHECK_INT(run(args), 1);
	snprintf(args, sizeof args, "regions merge --data '%s' t", data);
	CHECK_INT(run(args), 1);
	CHECK_OUT("merge takes the START key");
	CHECK_INT(run("regions list t"), 2);
	CHECK_OUT("needs --data DIR");
}

TEST_MAIN(T(test_simulate_and_compare), T(test_errors_name_the_line),
	  T(test_fail_server),
	  T(test_regions_cli))
