// SPDX-License-Identifier: MIT
#define _GNU_SOURCE
#include "bench_net.h"

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/*
 * EUSRV_BENCH_PLAIN=1 (set by eusrv-rsocket-run): only the socket calls a
 * preloaded socket library such as rdma-core's librspreload takes over --
 * socket() without SOCK_CLOEXEC (rsocket() refuses type flags, and the
 * preload then makes a TCP socket), accept() (it has no accept4) -- and a
 * server that serves one client after the other in its own process (an
 * rsocket cannot cross a fork: the parent's close would end it).
 */
static bool plain(void)
{
	const char *v = getenv("EUSRV_BENCH_PLAIN");

	return v && *v && strcmp(v, "0");
}

/* Socket buffers every new socket asks for (0: the system's default). */
static int buf_bytes;

void bench_set_buffers(int bytes)
{
	buf_bytes = bytes;
}

/*
 * Before connect() or listen(): over RDMA they choose the ring sizes, and
 * a listener's pass to the connections it accepts.
 */
static int stream_socket(int family)
{
	int fd = socket(family, SOCK_STREAM | (plain() ? 0 : SOCK_CLOEXEC), 0);
	int err;

	if (fd >= 0 && buf_bytes &&
	    (setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &buf_bytes, sizeof(buf_bytes)) ||
	     setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &buf_bytes, sizeof(buf_bytes)))) {
		/* The caller reports the failure: keep setsockopt's reason. */
		err = errno;
		close(fd);
		errno = err;
		return -1;
	}
	return fd;
}

int bench_listen(uint16_t port)
{
	struct sockaddr_in a = {
		.sin_family = AF_INET,
		.sin_port = htons(port),
		.sin_addr.s_addr = htonl(INADDR_ANY),
	};
	int one = 1;
	int fd;

	fd = stream_socket(AF_INET);
	if (fd < 0) {
		perror("socket");
		return -1;
	}
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(fd, (struct sockaddr *)&a, sizeof(a)) || listen(fd, SOMAXCONN)) {
		fprintf(stderr, "listen on port %u: %s\n", port, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

int bench_connect(const char *host, uint16_t port)
{
	uint64_t ns;

	return bench_connect_timed(host, port, &ns);
}

int bench_connect_timed(const char *host, uint16_t port, uint64_t *ns)
{
	struct addrinfo hints = {
		.ai_family = AF_INET,
		.ai_socktype = SOCK_STREAM,
	};
	struct addrinfo *res, *ai;
	char serv[8];
	int one = 1;
	int fd = -1;
	int rc;

	snprintf(serv, sizeof(serv), "%u", port);
	rc = getaddrinfo(host, serv, &hints, &res);
	if (rc) {
		fprintf(stderr, "%s: %s\n", host, gai_strerror(rc));
		return -1;
	}
	for (ai = res; ai; ai = ai->ai_next) {
		fd = stream_socket(ai->ai_family);
		if (fd < 0)
			continue;
		*ns = bench_now_ns();
		if (!connect(fd, ai->ai_addr, ai->ai_addrlen)) {
			*ns = bench_now_ns() - *ns;
			break;
		}
		rc = errno;
		close(fd);
		fd = -1;
		errno = rc;
	}
	freeaddrinfo(res);
	if (fd < 0) {
		fprintf(stderr, "connect to %s:%u: %s\n", host, port, strerror(errno));
		return -1;
	}
	/* Latency runs must not wait for Nagle. */
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

int bench_serve(uint16_t port, bool once, int (*handle)(int fd))
{
	int lfd = bench_listen(port);
	bool one_by_one = plain();

	if (lfd < 0)
		return 1;
	if (!once)
		signal(SIGCHLD, SIG_IGN);
	for (;;) {
		int fd = one_by_one ? accept(lfd, NULL, NULL) :
			accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		pid_t pid;

		if (fd < 0) {
			if (errno == EINTR)
				continue;
			perror("accept");
			return 1;
		}
		if (once) {
			int rc = handle(fd);

			close(fd);
			close(lfd);
			return rc ? 1 : 0;
		}
		if (one_by_one) {
			handle(fd);
			close(fd);
			continue;
		}
		/* One process per client, so that clients do not queue. */
		pid = fork();
		if (pid == 0) {
			close(lfd);
			_exit(handle(fd) ? 1 : 0);
		}
		if (pid < 0)
			perror("fork");
		close(fd);
	}
}

uint64_t bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

int bench_role(int argc, char **argv, const char **host)
{
	if (argc >= 2 && !strcmp(argv[1], "server")) {
		*host = NULL;
		optind = 2;
		return 1;
	}
	if (argc >= 3 && !strcmp(argv[1], "client")) {
		*host = argv[2];
		optind = 3;
		return 0;
	}
	return -1;
}

int bench_parse_size(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -1;
	if (*end == 'K' || *end == 'k') {
		if (v > max / 1024)
			return -1;
		v *= 1024;
		end++;
	} else if (*end == 'M' || *end == 'm') {
		if (v > max / (1024 * 1024))
			return -1;
		v *= 1024 * 1024;
		end++;
	}
	if (*end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

uint64_t bench_quantile(uint64_t *v, size_t n, double p)
{
	size_t i;

	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_u64);
	i = (size_t)(p * (double)n);
	return v[i < n ? i : n - 1];
}

/* Eight bytes from P, at any alignment. */
static uint64_t load64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/*
 * The programs check every byte they receive, and the check must not be
 * what a run measures.  On the virtual board's nodes (QEMU's TCG, the
 * qemu64 CPU) glibc's memcmp compares about 0.86 GB/s, its SSE2 byte
 * compares being emulated by helpers, while ORing the XOR of 64-bit words
 * compares about 3.6 GB/s: a reader that checks with memcmp is bound by
 * it well below what the sockets over RDMA carry.
 */
bool bench_same(const void *a, const void *b, size_t n)
{
	const unsigned char *p = a, *q = b;
	uint64_t d = 0;
	size_t i = 0;

	for (; i + 32 <= n; i += 32)
		d |= (load64(p + i) ^ load64(q + i)) |
		     (load64(p + i + 8) ^ load64(q + i + 8)) |
		     (load64(p + i + 16) ^ load64(q + i + 16)) |
		     (load64(p + i + 24) ^ load64(q + i + 24));
	for (; i < n; i++)
		d |= p[i] ^ q[i];
	return !d;
}
