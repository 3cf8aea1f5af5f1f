// SPDX-License-Identifier: MIT
/*
 * eusrv-stream: one-way throughput over a TCP socket with every byte
 * checked.  The client writes a known pattern for a while, then shuts its
 * side down; the server reads and checks everything and answers with the
 * byte count and the offset of the first wrong byte.  Run it plainly for
 * TCP, under eusrv-run for sockets over RDMA.
 *
 *   eusrv-stream server [-p PORT] [-1] [-b BYTES]
 *   eusrv-stream client HOST [-p PORT] [-t SECONDS] [-c CHUNK] [-b BYTES]
 *
 * The client prints: bytes= seconds= MBps= verified=yes|no sndbuf=
 * (key=value; sndbuf is its socket's SO_SNDBUF, over RDMA its send ring).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bench_net.h"
#include "io_util.h"

#define DEF_PORT	7471U
#define DEF_SECONDS	3U
#define MAX_SECONDS	3600U
#define DEF_CHUNK	(64U << 10)
#define MAX_CHUNK	(16U << 20)
#define MAX_BUF		(64U << 20)
/* Byte o of the stream is o % PERIOD (a prime, so chunks do not align). */
#define PERIOD		251U
#define NO_ERROR	UINT64_MAX

static const char *prog = "eusrv-stream";

struct report {
	uint64_t bytes;
	uint64_t first_bad;	/* NO_ERROR when every byte was right */
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: %s server [-p PORT] [-1] [-b BYTES]\n"
		"       %s client HOST [-p PORT] [-t SECONDS] [-c CHUNK] [-b BYTES]\n"
		"  -p PORT     TCP port (default %u)\n"
		"  -1          server: serve one connection, then exit\n"
		"  -t SECONDS  how long the client writes (default %u)\n"
		"  -c CHUNK    bytes per write, K/M suffixes allowed (default 64K)\n"
		"  -b BYTES    SO_SNDBUF and SO_RCVBUF before connect/listen (over\n"
		"              RDMA the ring sizes; give it on both ends)\n",
		prog, prog, DEF_PORT, DEF_SECONDS);
}

/* PERIOD bytes of slack so that any offset's pattern is one slice. */
static char *make_pattern(size_t len)
{
	char *p = malloc(len + PERIOD);
	size_t i;

	if (p)
		for (i = 0; i < len + PERIOD; i++)
			p[i] = (char)(i % PERIOD);
	return p;
}

/*
 * Say what the first wrong bytes of a read are, on the server's stderr:
 * how many in a row, and whether they are zeros or the pattern of another
 * offset (known modulo PERIOD), so a run that fails tells stale or early
 * data from data never written.
 */
static void describe_bad(const char *buf, size_t n, uint64_t base, size_t i)
{
	uint64_t at = base + i;
	unsigned int shift = ((unsigned char)buf[i] + PERIOD - at % PERIOD) % PERIOD;
	size_t j, zeros = 0, shifted = 0;

	for (j = i; j < n && buf[j] != (char)((base + j) % PERIOD); j++) {
		zeros += buf[j] == 0;
		shifted += (unsigned char)buf[j] == (base + j + shift) % PERIOD;
	}
	fprintf(stderr,
		"%s: first wrong byte at offset %llu: %zu wrong in a row, in a read of %zu from offset %llu; %zu zero, %zu the pattern of offset %+d (mod %u)\n",
		prog, (unsigned long long)at, j - i, n, (unsigned long long)base,
		zeros, shifted, (int)shift, PERIOD);
}

static int sink(int fd)
{
	const size_t len = MAX_CHUNK;
	struct report r = { 0, NO_ERROR };
	char *buf = malloc(len), *pat = make_pattern(len);
	int rc = -1;

	if (!buf || !pat)
		goto out;
	for (;;) {
		ssize_t n = read(fd, buf, len);
		size_t i;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			goto out;
		if (n == 0)
			break;
		if (r.first_bad == NO_ERROR &&
		    !bench_same(buf, pat + r.bytes % PERIOD, (size_t)n)) {
			for (i = 0; buf[i] == pat[(r.bytes + i) % PERIOD]; i++)
				;
			r.first_bad = r.bytes + i;
			describe_bad(buf, (size_t)n, r.bytes, i);
		}
		r.bytes += (uint64_t)n;
	}
	rc = write_full(fd, &r, sizeof(r));
out:
	free(buf);
	free(pat);
	return rc;
}

static int source(const char *host, uint16_t port, unsigned int seconds,
		  size_t chunk)
{
	char *pat = make_pattern(chunk);
	uint64_t sent = 0, t0, end, t;
	socklen_t len = sizeof(int);
	struct report r;
	int fd, sndbuf;

	if (!pat) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return 1;
	}
	fd = bench_connect(host, port);
	if (fd < 0) {
		free(pat);
		return 1;
	}
	t0 = bench_now_ns();
	end = t0 + (uint64_t)seconds * 1000000000ULL;
	do {
		if (write_full(fd, pat + sent % PERIOD, chunk)) {
			fprintf(stderr, "%s: write: %s\n", prog, strerror(errno));
			goto fail;
		}
		sent += chunk;
		t = bench_now_ns();
	} while (t < end);
	if (shutdown(fd, SHUT_WR) || read_full(fd, &r, sizeof(r))) {
		fprintf(stderr, "%s: no report from the server: %s\n", prog,
			strerror(errno));
		goto fail;
	}
	t = bench_now_ns() - t0;
	if (getsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, &len))
		sndbuf = -1;
	printf("bytes=%llu seconds=%.3f MBps=%.1f verified=%s sndbuf=%d\n",
	       (unsigned long long)r.bytes, t / 1e9, r.bytes / (t / 1e3),
	       r.bytes == sent && r.first_bad == NO_ERROR ? "yes" : "no", sndbuf);
	if (r.bytes != sent)
		fprintf(stderr, "%s: sent %llu bytes, server got %llu\n", prog,
			(unsigned long long)sent, (unsigned long long)r.bytes);
	if (r.first_bad != NO_ERROR)
		fprintf(stderr, "%s: first wrong byte at offset %llu\n", prog,
			(unsigned long long)r.first_bad);
	close(fd);
	free(pat);
	return r.bytes == sent && r.first_bad == NO_ERROR ? 0 : 1;
fail:
	close(fd);
	free(pat);
	return 1;
}

int main(int argc, char **argv)
{
	uint64_t port = DEF_PORT, seconds = DEF_SECONDS, chunk = DEF_CHUNK, buf;
	const char *host = NULL;
	bool server, once = false;
	int opt, role;

	role = bench_role(argc, argv, &host);
	if (role < 0) {
		usage(stderr);
		return 2;
	}
	server = role;
	while ((opt = getopt(argc, argv, "p:1t:c:b:h")) != -1) {
		switch (opt) {
		case 'p':
			if (bench_parse_size(optarg, 1, 65535, &port))
				goto bad;
			break;
		case '1':
			once = true;
			break;
		case 't':
			if (bench_parse_size(optarg, 1, MAX_SECONDS, &seconds))
				goto bad;
			break;
		case 'c':
			if (bench_parse_size(optarg, 1, MAX_CHUNK, &chunk))
				goto bad;
			break;
		case 'b':
			if (bench_parse_size(optarg, 1, MAX_BUF, &buf))
				goto bad;
			bench_set_buffers((int)buf);
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
		return bench_serve((uint16_t)port, once, sink);
	/* A dead server must show as an error, not kill us silently. */
	signal(SIGPIPE, SIG_IGN);
	return source(host, (uint16_t)port, (unsigned int)seconds, (size_t)chunk);
bad:
	fprintf(stderr, "%s: bad arguments\n", prog);
	usage(stderr);
	return 2;
}
