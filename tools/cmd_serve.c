/*
 * cmd_serve.c - `saltbox serve`: open the store (a directory, or a running
 * store given by URL: another gateway or Cloud Bigtable) and serve HBase's
 * REST protocol on it until SIGINT/SIGTERM, then stop accepting, let requests
 * in flight finish, and close the store so every acknowledged write is on
 * disk.
 */
#include "cli.h"

#include "saltbox.h"
#include "server/server.h"

#include <errno.h>
#include <getopt.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

/* The defaults shown are the library's and the server's own (their
 * options' init functions), so the help cannot drift from them. */
static void serve_usage(FILE *out)
{
	sbx_db_options d;
	sbx_db_options_init(&d);
	sbx_server_opts so;
	sbx_server_opts_init(&so);
	fprintf(out,
		"usage: saltbox serve [--data DIR | --connect URL] [--port 8080]\n"
		"                     [--bind 127.0.0.1]\n"
		"                     [--read-only] [--token T | --token-file PATH]\n"
		"                     [--public-read] [--max-body BYTES] [--threads N]\n"
		"                     [--commit-threads N]\n"
		"                     [--max-inflight-body BYTES] [--min-free BYTES]\n"
		"                     [--page-cells N] [--scanner-idle SECONDS]\n"
		"                     [--max-scanners N] [--max-client-scanners N]\n"
		"                     [--max-connections N] [--max-ip-connections N]\n"
		"                     [--header-timeout SECONDS] [--idle-timeout SECONDS]\n"
		"                     [--trace FILE] [--metrics-bucket-ms MS]\n"
		"                     [--block-cache BYTES] [--row-cache BYTES]\n"
		"                     [--mmap-reads]\n\n"
		"Serve the store in DIR (default ./saltbox-data) over HBase's REST\n"
		"protocol, so HBase REST clients (curl, node-hbase, ...) work unchanged.\n\n"
		"  --data DIR          store directory, created if missing\n"
		"  --connect URL       serve a running store instead: Cloud Bigtable\n"
		"                      (bigtable://PROJECT/INSTANCE, the emulator\n"
		"                      through BIGTABLE_EMULATOR_HOST) or another\n"
		"                      HBase REST gateway (http://host:port)\n"
		"  --port N            TCP port (default 8080; 0 = any free port)\n"
		"  --bind ADDR         address to listen on (default 127.0.0.1, loopback)\n"
		"  --read-only         refuse every mutation with 403\n"
		"  --token T           require 'Authorization: Bearer T' on every request\n"
		"                      (401 otherwise); also $SALTBOX_TOKEN\n"
		"  --token-file PATH   the token is the first line of PATH\n"
		"  --public-read       with a token: reads and scanners need none\n"
		"  --max-body BYTES    largest request body (default %zu; 413 above)\n"
		"  --max-inflight-body BYTES\n"
		"                      request bodies held at once, all requests\n"
		"                      together (default %zu; 503 with\n"
		"                      Retry-After beyond it; 0 = no limit)\n"
		"  --min-free BYTES    refuse writes (503) while the store's disk has\n"
		"                      less free (default %llu; 0 = no check)\n"
		"  --threads N         worker threads (default 2 x CPUs)\n"
		"  --commit-threads N  group commits of PUTs and DELETEs under way\n"
		"                      at once (1..64; default CPUs / 4, at least 1)\n"
		"  --page-cells N      most cells in one scanner page (default %zu)\n"
		"  --scanner-idle S    idle scanners expire after S seconds (default %lld)\n"
		"  --max-scanners N    open scanners in all (default %zu; 503 above)\n"
		"  --max-client-scanners N\n"
		"                      open scanners per client address (default %zu)\n"
		"  --max-connections N open connections in all (default %u)\n"
		"  --max-ip-connections N\n"
		"                      open connections from one address (default %u)\n"
		"  --header-timeout S  close a connection idle S seconds before its\n"
		"                      request's headers are complete (default %u)\n"
		"  --idle-timeout S    close a connection idle S seconds otherwise\n"
		"                      (default %u)\n"
		"  --trace FILE        append every operation's row key to FILE as a\n"
		"                      keyviz trace (saltbox keyviz simulate -t FILE)\n"
		"  --metrics-bucket-ms MS  width of a load-metrics bucket, the heatmap's\n"
		"                      column (default %lld; %d buckets are kept)\n"
		"  --block-cache BYTES store blocks cached in memory (default\n"
		"                      %zu, %zu MiB)\n"
		"  --row-cache BYTES   recently read rows cached in memory (default\n"
		"                      %zu, %zu MiB; 0 = off)\n"
		"  --mmap-reads        read store files through mmap (faster gets of\n"
		"                      a store larger than the caches; an I/O error\n"
		"                      on them stops the server: docs/api.md)\n",
		so.max_body_bytes, so.max_inflight_body_bytes,
		(unsigned long long)d.min_free_bytes, so.max_page_cells,
		(long long)(so.scanner_idle_ms / 1000), so.max_scanners,
		so.max_client_scanners, so.max_connections,
		so.max_ip_connections, so.header_timeout_s, so.idle_timeout_s,
		(long long)d.metrics_bucket_ms, d.metrics_buckets,
		d.block_cache_bytes, d.block_cache_bytes >> 20,
		d.row_cache_bytes, d.row_cache_bytes >> 20);
}

/* The token is the first line of path, without its line end. */
static int read_token_file(const char *path, char *out, size_t cap)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "saltbox serve: cannot read token file '%s': %s\n",
			path, strerror(errno));
		return -1;
	}
	if (!fgets(out, (int)cap, f))
		out[0] = 0;
	fclose(f);
	out[strcspn(out, "\r\n")] = 0;
	if (!out[0]) {
		fprintf(stderr, "saltbox serve: token file '%s' is empty\n", path);
		return -1;
	}
	return 0;
}

/* Room for --max-connections descriptors: raise the soft limit to the
 * hard one (best effort). */
static void raise_fd_limit(void)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

static int parse_size(const char *s, long long lo, long long hi, long long *out)
{
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

int cmd_serve(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"data", required_argument, NULL, 'd'},
		{"connect", required_argument, NULL, 'u'},
		{"port", required_argument, NULL, 'p'},
		{"bind", required_argument, NULL, 'b'},
		{"read-only", no_argument, NULL, 'r'},
		{"token", required_argument, NULL, 't'},
		{"max-body", required_argument, NULL, 'm'},
		{"max-inflight-body", required_argument, NULL, 'B'},
		{"min-free", required_argument, NULL, 'f'},
		{"threads", required_argument, NULL, 'T'},
		{"page-cells", required_argument, NULL, 'c'},
		{"scanner-idle", required_argument, NULL, 'i'},
		{"token-file", required_argument, NULL, 'F'},
		{"public-read", no_argument, NULL, 'P'},
		{"max-scanners", required_argument, NULL, 'S'},
		{"max-client-scanners", required_argument, NULL, 'C'},
		{"max-connections", required_argument, NULL, 'N'},
		{"max-ip-connections", required_argument, NULL, 'I'},
		{"header-timeout", required_argument, NULL, 'H'},
		{"idle-timeout", required_argument, NULL, 'O'},
		{"trace", required_argument, NULL, 'x'},
		{"metrics-bucket-ms", required_argument, NULL, 'M'},
		{"block-cache", required_argument, NULL, 'k'},
		{"row-cache", required_argument, NULL, 'R'},
		{"mmap-reads", no_argument, NULL, 'a'},
		{"commit-threads", required_argument, NULL, 'G'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	sbx_server_opts so;
	sbx_server_opts_init(&so);
	const char *data = "./saltbox-data", *url = NULL;
	bool data_given = false;
	const char *trace = NULL;
	int64_t bucket_ms = 0;
	long long min_free = -1;
	long long block_cache = -1, row_cache = -1;
	bool mmap_reads = false;
	static char token_buf[1024];
	so.token = getenv("SALTBOX_TOKEN");
	if (so.token && !*so.token)
		so.token = NULL;
	int c, li = -1;
	long long v;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", longopts, &li)) != -1) {
		switch (c) {
		case 'd': data = optarg; data_given = true; break;
		case 'u': url = optarg; break;
		case 'x': trace = optarg; break;
		case 'M':
			if (parse_size(optarg, 10, 3600000, &v))
				goto bad;
			bucket_ms = (int64_t)v;
			break;
		case 'k':
			if (parse_size(optarg, 0, (long long)1 << 50, &block_cache))
				goto bad;
			break;
		case 'R':
			if (parse_size(optarg, 0, (long long)1 << 50, &row_cache))
				goto bad;
			break;
		case 'a': mmap_reads = true; break;
		case 'b': so.bind = optarg; break;
		case 'r': so.read_only = true; break;
		case 't': so.token = *optarg ? optarg : NULL; break;
		case 'p':
			if (parse_size(optarg, 0, 65535, &v))
				goto bad;
			so.port = (int)v;
			break;
		case 'm':
			if (parse_size(optarg, 1, (long long)1 << 40, &v))
				goto bad;
			so.max_body_bytes = (size_t)v;
			break;
		case 'f':
			if (parse_size(optarg, 0, (long long)1 << 50, &v))
				goto bad;
			min_free = v;
			break;
		case 'B':
			if (parse_size(optarg, 0, (long long)1 << 40, &v))
				goto bad;
			so.max_inflight_body_bytes = (size_t)v;
			break;
		case 'T':
			if (parse_size(optarg, 1, 1024, &v))
				goto bad;
			so.threads = (int)v;
			break;
		case 'G':
			if (parse_size(optarg, 1, SBX_SERVER_MAX_COMMIT_THREADS, &v))
				goto bad;
			so.commit_threads = (int)v;
			break;
		case 'c':
			if (parse_size(optarg, 1, 100000000, &v))
				goto bad;
			so.max_page_cells = (size_t)v;
			break;
		case 'i':
			if (parse_size(optarg, 1, 86400 * 365, &v))
				goto bad;
			so.scanner_idle_ms = v * 1000;
			break;
		case 'F':
			if (read_token_file(optarg, token_buf, sizeof token_buf))
				return 2;
			so.token = token_buf;
			break;
		case 'P': so.public_read = true; break;
		case 'S':
			if (parse_size(optarg, 1, 1000000, &v))
				goto bad;
			so.max_scanners = (size_t)v;
			break;
		case 'C':
			if (parse_size(optarg, 1, 1000000, &v))
				goto bad;
			so.max_client_scanners = (size_t)v;
			break;
		case 'N':
			if (parse_size(optarg, 1, 1000000, &v))
				goto bad;
			so.max_connections = (unsigned)v;
			break;
		case 'I':
			if (parse_size(optarg, 1, 1000000, &v))
				goto bad;
			so.max_ip_connections = (unsigned)v;
			break;
		case 'H':
			if (parse_size(optarg, 1, 3600, &v))
				goto bad;
			so.header_timeout_s = (unsigned)v;
			break;
		case 'O':
			if (parse_size(optarg, 1, 86400, &v))
				goto bad;
			so.idle_timeout_s = (unsigned)v;
			break;
		case 'h':
			serve_usage(stdout);
			return 0;
		default:
			serve_usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "saltbox serve: unexpected argument '%s'\n",
			argv[optind]);
		return 2;
	}
	if (url && data_given) {
		fprintf(stderr, "saltbox serve: give --data DIR or --connect "
				"URL, not both\n");
		return 2;
	}
	const char *embedded_only =
		bucket_ms ? "--metrics-bucket-ms"
		: block_cache >= 0 ? "--block-cache"
		: row_cache >= 0 ? "--row-cache"
		: mmap_reads ? "--mmap-reads"
		: NULL;
	if (url && embedded_only) {
		fprintf(stderr, "saltbox serve: %s is the embedded store's "
				"(--data)\n", embedded_only);
		return 2;
	}

	/* Block the stop signals before any thread starts, so only sigwait
	 * below sees them. */
	sigset_t stop;
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &stop, NULL);
	signal(SIGPIPE, SIG_IGN);

	/* Large request bodies in their own mappings, given back to the
	 * system when freed: glibc would otherwise raise its mmap threshold
	 * to the size of the last freed block (up to 32 MiB) and keep such
	 * bodies in heap arenas that never shrink. */
	mallopt(M_MMAP_THRESHOLD, 1 << 20);

	sbx_db *db;
	sbx_db_options dbo;
	sbx_db_options_init(&dbo);
	dbo.trace_path = trace;
	if (bucket_ms)
		dbo.metrics_bucket_ms = bucket_ms;
	if (min_free >= 0)
		dbo.min_free_bytes = (uint64_t)min_free;
	if (block_cache >= 0)
		dbo.block_cache_bytes = (size_t)block_cache;
	if (row_cache >= 0)
		dbo.row_cache_bytes = (size_t)row_cache;
	dbo.mmap_reads = mmap_reads;
	int rc = url ? sbx_db_connect(&db, url) : sbx_db_open(&db, data, &dbo);
	if (!rc && url && trace && (rc = sbx_db_trace(db, trace)))
		sbx_db_close(db);
	if (rc) {
		fprintf(stderr, "saltbox serve: cannot open '%s': %s\n",
			url ? url : data, sbx_errmsg());
		return 1;
	}
	raise_fd_limit();
	sbx_server *srv;
	/* a gateway's batch answers per CellSet, not per row: a request
	 * written with others could not be told its own outcome */
	so.group_commit = !url;
	rc = sbx_server_start(&srv, db, &so);
	if (rc) {
		fprintf(stderr, "saltbox serve: %s\n", sbx_errmsg());
		sbx_db_close(db);
		return 1;
	}
	const char *host = strchr(so.bind, ':') ? "[%s]" : "%s";
	printf("saltbox serve: HBase REST on http://");
	printf(host, so.bind);
	printf(":%d/ (%s %s%s%s)\n", sbx_server_port(srv),
	       url ? "store" : "data", url ? url : data,
	       so.read_only ? ", read-only" : "", so.token ? (so.public_read ? ", token auth for writes"
						: ", token auth")
			 : "");
	printf("saltbox serve: try  curl http://");
	printf(host, so.bind);
	printf(":%d/version   -- Ctrl-C stops\n", sbx_server_port(srv));
	printf("saltbox serve: live regions and key heatmap at http://");
	printf(host, so.bind);
	printf(":%d/ui\n", sbx_server_port(srv));
	fflush(stdout);

	int sig = 0;
	sigwait(&stop, &sig);
	fprintf(stderr, "saltbox serve: %s, finishing requests in flight\n",
		sig == SIGINT ? "SIGINT" : "SIGTERM");
	sbx_server_stop(srv, 10000);
	sbx_db_close(db);
	fprintf(stderr, "saltbox serve: stopped\n");
	return 0;
bad:
	fprintf(stderr, "saltbox serve: bad value '%s' for --%s\n", optarg,
		li >= 0 ? longopts[li].name : "?");
	return 2;
}
