// SPDX-License-Identifier: MIT
/*
 * eusrv-pingpong: round-trip latency over a TCP socket, message sizes from
 * 16 bytes up (the ping-pong benchmark of EUROSERVER D4.2 Table 1).  The
 * server echoes every byte back; the client sends one message, waits for
 * all of it to come back, checks it, and times the round trip.  Run it
 * plainly for TCP, under eusrv-run for sockets over RDMA.
 *
 *   eusrv-pingpong server [-p PORT] [-1]
 *   eusrv-pingpong client HOST [-p PORT] [-n ITERS] [-w WARMUP] [-s SIZE,...]
 *
 * The client prints one line per size: size=S n=N min_us= p50_us= p99_us=
 * max_us= (key=value, for scripts).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bench_net.h"
#include "io_util.h"

#define DEF_PORT	7470U
#define DEF_ITERS	1000U
#define DEF_WARMUP	50U
#define MAX_ITERS	10000000U
#define MAX_SIZE	(16U << 20)
#define ECHO_BUF	(64U << 10)
#define MAX_SIZES	32

static const char *prog = "eusrv-pingpong";

static void usage(FILE *f)
{
	fprintf(f,
		"usage: %s server [-p PORT] [-1]\n"
		"       %s client HOST [-p PORT] [-n ITERS] [-w WARMUP] [-s SIZE[,SIZE...]]\n"
		"                         [-c CONNECTS]\n"
		"  -p PORT    TCP port (default %u)\n"
		"  -1         server: serve one connection, then exit\n"
		"  -n ITERS   timed round trips per size (default %u)\n"
		"  -w WARMUP  untimed round trips before them (default %u)\n"
		"  -s SIZES   message sizes in bytes, K/M suffixes allowed\n"
		"             (default 16,64,256,1K,4K,16K,64K)\n"
		"  -c N       also time N connect() calls (each closed at once)\n",
		prog, prog, DEF_PORT, DEF_ITERS, DEF_WARMUP);
}

static int echo(int fd)
{
	static char buf[ECHO_BUF];

	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));

		if (n == 0)
			return 0;
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (write_full(fd, buf, (size_t)n))
			return -1;
	}
}

static int run_size(int fd, size_t size, unsigned int iters,
		    unsigned int warmup, char *out, char *in, uint64_t *t)
{
	unsigned int i;

	for (i = 0; i < warmup + iters; i++) {
		uint64_t t0;

		memset(out, (int)(i & 0xff), size);
		out[0] = (char)(i >> 8);
		t0 = bench_now_ns();
		if (write_full(fd, out, size) || read_full(fd, in, size)) {
			fprintf(stderr, "%s: size %zu round trip %u: %s\n", prog,
				size, i, strerror(errno));
			return -1;
		}
		if (i >= warmup)
			t[i - warmup] = bench_now_ns() - t0;
		if (!bench_same(out, in, size)) {
			fprintf(stderr, "%s: size %zu round trip %u: data differs\n",
				prog, size, i);
			return -1;
		}
	}
	printf("size=%zu n=%u min_us=%.1f p50_us=%.1f p99_us=%.1f max_us=%.1f\n",
	       size, iters, bench_quantile(t, iters, 0) / 1e3,
	       bench_quantile(t, iters, 0.5) / 1e3,
	       bench_quantile(t, iters, 0.99) / 1e3,
	       bench_quantile(t, iters, 1) / 1e3);
	fflush(stdout);
	return 0;
}

/* N connections set up and closed: the time connect() blocks. */
static int run_connects(const char *host, uint16_t port, unsigned int n,
			uint64_t *t)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		int fd = bench_connect_timed(host, port, &t[i]);

		if (fd < 0)
			return -1;
		close(fd);
	}
	printf("connect n=%u min_us=%.1f p50_us=%.1f p99_us=%.1f max_us=%.1f\n",
	       n, bench_quantile(t, n, 0) / 1e3, bench_quantile(t, n, 0.5) / 1e3,
	       bench_quantile(t, n, 0.99) / 1e3, bench_quantile(t, n, 1) / 1e3);
	fflush(stdout);
	return 0;
}

static int parse_sizes(char *s, uint64_t *sizes, unsigned int *n)
{
	char *tok, *save = NULL;

	*n = 0;
	for (tok = strtok_r(s, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (*n == MAX_SIZES || bench_parse_size(tok, 1, MAX_SIZE, &sizes[*n]))
			return -1;
		(*n)++;
	}
	return *n ? 0 : -1;
}

int main(int argc, char **argv)
{
	uint64_t sizes[MAX_SIZES] = { 16, 64, 256, 1024, 4096, 16384, 65536 };
	unsigned int nsizes = 7, iters = DEF_ITERS, warmup = DEF_WARMUP, i;
	unsigned int connects = 0;
	uint64_t v, port = DEF_PORT, maxsize = 0;
	const char *host = NULL;
	bool server, once = false;
	char *out, *in;
	uint64_t *t;
	int opt, fd, rc = 0, role;

	role = bench_role(argc, argv, &host);
	if (role < 0) {
		usage(stderr);
		return 2;
	}
	server = role;
	while ((opt = getopt(argc, argv, "p:1n:w:s:c:h")) != -1) {
		switch (opt) {
		case 'p':
			if (bench_parse_size(optarg, 1, 65535, &port))
				goto bad;
			break;
		case '1':
			once = true;
			break;
		case 'n':
			if (bench_parse_size(optarg, 1, MAX_ITERS, &v))
				goto bad;
			iters = (unsigned int)v;
			break;
		case 'w':
			if (bench_parse_size(optarg, 0, MAX_ITERS, &v))
				goto bad;
			warmup = (unsigned int)v;
			break;
		case 's':
			if (parse_sizes(optarg, sizes, &nsizes))
				goto bad;
			break;
		case 'c':
			if (bench_parse_size(optarg, 1, MAX_ITERS, &v))
				goto bad;
			connects = (unsigned int)v;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			goto bad;
		}
	}
	if (optind != argc)
		goto bad;
	if (server)
		return bench_serve((uint16_t)port, once, echo);

	for (i = 0; i < nsizes; i++)
		if (sizes[i] > maxsize)
			maxsize = sizes[i];
	out = malloc(maxsize);
	in = malloc(maxsize);
	t = calloc(iters > connects ? iters : connects, sizeof(*t));
	if (!out || !in || !t) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return 1;
	}
	fd = bench_connect(host, (uint16_t)port);
	if (fd < 0)
		return 1;
	for (i = 0; i < nsizes && !rc; i++)
		rc = run_size(fd, sizes[i], iters, warmup, out, in, t);
	close(fd);
	if (!rc && connects)
		rc = run_connects(host, (uint16_t)port, connects, t);
	free(out);
	free(in);
	free(t);
	return rc ? 1 : 0;
bad:
	fprintf(stderr, "%s: bad arguments\n", prog);
	usage(stderr);
	return 2;
}
