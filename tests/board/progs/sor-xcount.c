// SPDX-License-Identifier: GPL-2.0
/*
 * sor-xcount: request/response loops whose crossings suite 78 counts with
 * the driver's counters (eusrvctl conns/stats).  Run under eusrv-run.
 *
 *   sor-xcount server PORT block|lt|et   one connection, echo each message
 *                                        back: blocking reads, or a
 *                                        non-blocking socket under a level-
 *                                        or edge-triggered epoll
 *   sor-xcount client HOST PORT N SIZE   N round trips of SIZE bytes, each
 *                                        reply checked
 *
 * Each side prints, when done, "wakeups=W per=R": the voluntary context
 * switches of its thread (sleeps that ended in a wake-up) and per round
 * trip, so that a wake-up that found nothing shows.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#define MAX_SIZE	65536

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static long wakeups(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_THREAD, &ru))
		die("getrusage");
	return ru.ru_nvcsw;
}

static void report(long before, unsigned long rounds)
{
	long w = wakeups() - before;

	printf("wakeups=%ld per=%.3f\n", w, rounds ? (double)w / rounds : 0.0);
}

/* Byte I of message K: a check that a reply is this message's. */
static unsigned char pattern(unsigned long k, size_t i)
{
	return (unsigned char)(k * 131 + i * 7 + 1);
}

static int listen_on(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
	int one = 1, fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd < 0)
		die("socket");
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) || listen(fd, 4))
		die("bind/listen");
	return fd;
}

/* Blocking: read what comes, write it back, until EOF. */
static unsigned long serve_block(int fd)
{
	static char buf[MAX_SIZE];
	unsigned long reads = 0;
	ssize_t n;

	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		if (write(fd, buf, n) != n)
			die("write");
		reads++;
	}
	if (n < 0)
		die("read");
	return reads;
}

/* Under epoll: ET reads until EAGAIN, LT once per report. */
static unsigned long serve_epoll(int fd, bool et)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLRDHUP | (et ? EPOLLET : 0) };
	static char buf[MAX_SIZE];
	unsigned long reports = 0;
	int ep = epoll_create1(0);
	ssize_t n;

	if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev))
		die("epoll");
	for (;;) {
		if (epoll_wait(ep, &ev, 1, -1) != 1) {
			if (errno == EINTR)
				continue;
			die("epoll_wait");
		}
		reports++;
		do {
			n = read(fd, buf, sizeof(buf));
			if (n == 0) {
				close(ep);
				return reports;
			}
			if (n < 0 && errno == EAGAIN)
				break;
			if (n < 0)
				die("read");
			/* The reply is small: the ring has room for it. */
			if (write(fd, buf, n) != n)
				die("write");
		} while (et);
	}
}

static int server(int port, const char *mode)
{
	int lfd = listen_on(port), fd, one = 1;
	unsigned long rounds;
	long before;

	fd = accept4(lfd, NULL, NULL, strcmp(mode, "block") ? SOCK_NONBLOCK : 0);
	if (fd < 0)
		die("accept");
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	before = wakeups();
	if (!strcmp(mode, "block"))
		rounds = serve_block(fd);
	else if (!strcmp(mode, "lt") || !strcmp(mode, "et"))
		rounds = serve_epoll(fd, !strcmp(mode, "et"));
	else
		die("mode");
	report(before, rounds);
	close(fd);
	close(lfd);
	return 0;
}

static int client(const char *host, int port, unsigned long n, size_t size)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
	static unsigned char out[MAX_SIZE], in[MAX_SIZE];
	int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
	unsigned long k;
	long before;
	size_t i, got;
	ssize_t r;

	if (fd < 0 || inet_pton(AF_INET, host, &a.sin_addr) != 1 || !size ||
	    size > MAX_SIZE)
		die("client arguments");
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)))
		die("connect");
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	before = wakeups();
	for (k = 0; k < n; k++) {
		for (i = 0; i < size; i++)
			out[i] = pattern(k, i);
		if (write(fd, out, size) != (ssize_t)size)
			die("write");
		for (got = 0; got < size; got += r) {
			r = read(fd, in + got, size - got);
			if (r <= 0)
				die("read");
		}
		if (memcmp(in, out, size)) {
			fprintf(stderr, "round %lu: the reply is not the message\n", k);
			return 1;
		}
	}
	report(before, n);
	printf("checked=%lu\n", n);
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "server"))
		return server(atoi(argv[2]), argv[3]);
	if (argc == 6 && !strcmp(argv[1], "client"))
		return client(argv[2], atoi(argv[3]), strtoul(argv[4], NULL, 0),
			      strtoul(argv[5], NULL, 0));
	fprintf(stderr, "usage: sor-xcount server PORT block|lt|et | client HOST PORT N SIZE\n");
	return 2;
}
