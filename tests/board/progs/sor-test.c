// SPDX-License-Identifier: MIT
/*
 * Socket programs for the sockets-over-RDMA board suite (70-sor-apps.sh):
 * a forking server and clients that exercise what real programs do with a
 * connection: data integrity both ways, fork (parent and child share a
 * connection), threads (concurrent senders and a receiver), the dup family,
 * epoll (edge and level triggered, one fd in two sets), non-blocking
 * connect/send/recv and half-close.  Every byte is checked.  Prints
 * "ok MODE ..." and exits 0, or says what went wrong and exits 1.
 *
 *   sor-test serve PORT
 *   sor-test MODE HOST PORT [BYTES]     MODE: integrity fork threads dup
 *                                       epoll nonblock halfclose
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#define REC		64	/* record size of the fork/threads tests */
#define THREADS		4
#define PER_THREAD	3000

static const char *mode = "sor-test";

static void die(const char *what)
{
	fprintf(stderr, "%s: %s: %s\n", mode, what, strerror(errno));
	exit(1);
}

static void fail(const char *what)
{
	fprintf(stderr, "%s: %s\n", mode, what);
	exit(1);
}

static unsigned char pat(uint64_t i, unsigned int seed)
{
	return (unsigned char)((i * 131 + seed) ^ (i >> 9));
}

static void write_all(int fd, const void *b, size_t n)
{
	const unsigned char *p = b;

	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			die("write");
		p += w;
		n -= (size_t)w;
	}
}

/* Exactly N bytes, or 0 at EOF before any. */
static size_t read_all(int fd, void *b, size_t n)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = recv(fd, (char *)b + got, n - got, MSG_WAITALL);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			die("recv");
		if (r == 0)
			break;
		got += (size_t)r;
	}
	return got;
}

/* ---- server ---- */

static void serve_integrity(int fd)
{
	static unsigned char buf[65536];
	uint64_t n, i = 0, bad = 0;

	if (read_all(fd, &n, sizeof(n)) != sizeof(n))
		fail("integrity: no length");
	while (i < n) {
		size_t want = n - i < sizeof(buf) ? (size_t)(n - i) : sizeof(buf);
		ssize_t r = read(fd, buf, want);
		ssize_t k;

		if (r <= 0)
			die("integrity: read");
		for (k = 0; k < r; k++)
			bad += buf[k] != pat(i + (uint64_t)k, 1);
		i += (uint64_t)r;
	}
	write_all(fd, &bad, sizeof(bad));
	/* And N bytes back, in odd-sized writev pieces. */
	for (i = 0; i < n;) {
		size_t a = (size_t)((n - i) < 777 ? (n - i) : 777), b, k;
		struct iovec v[2];

		b = (size_t)((n - i - a) < sizeof(buf) - 777 ? (n - i - a) : sizeof(buf) - 777);
		for (k = 0; k < a + b; k++)
			buf[k] = pat(i + k, 2);
		v[0].iov_base = buf;
		v[0].iov_len = a;
		v[1].iov_base = buf + a;
		v[1].iov_len = b;
		k = 0;
		while (k < a + b) {
			ssize_t w;

			if (k < a) {
				v[0].iov_base = buf + k;
				v[0].iov_len = a - k;
				w = writev(fd, v, 2);
			} else {
				w = write(fd, buf + k, a + b - k);
			}
			if (w <= 0)
				die("integrity: writev");
			k += (size_t)w;
		}
		i += a + b;
	}
}

static void serve_echo(int fd)
{
	static char buf[65536];
	ssize_t r;

	while ((r = read(fd, buf, sizeof(buf))) > 0)
		write_all(fd, buf, (size_t)r);
	if (r < 0)
		die("echo: read");
}

static void serve_halfclose(int fd)
{
	static char buf[65536];
	uint64_t total = 0;
	ssize_t r;
	char reply[64];

	while ((r = read(fd, buf, sizeof(buf))) > 0)
		total += (uint64_t)r;
	if (r < 0)
		die("halfclose: read");
	snprintf(reply, sizeof(reply), "bytes=%llu", (unsigned long long)total);
	write_all(fd, reply, strlen(reply));
}

/* Sink: reads nothing for a second (the client's ring fills), then all. */
static void serve_sink(int fd)
{
	sleep(1);
	serve_halfclose(fd);
}

static int serve(int port)
{
	struct sockaddr_in a;
	int l = socket(AF_INET, SOCK_STREAM, 0), one = 1;

	signal(SIGCHLD, SIG_IGN);
	setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_port = htons((uint16_t)port);
	if (bind(l, (struct sockaddr *)&a, sizeof(a)) || listen(l, 128))
		die("bind/listen");
	for (;;) {
		char what;
		int fd = accept(l, NULL, NULL);

		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			die("accept");
		}
		if (fork() == 0) {
			close(l);
			if (read_all(fd, &what, 1) != 1)
				_exit(0);
			switch (what) {
			case 'I': serve_integrity(fd); break;
			case 'E': serve_echo(fd); break;
			case 'H': serve_halfclose(fd); break;
			case 'S': serve_sink(fd); break;
			default: fail("unknown test");
			}
			close(fd);
			_exit(0);
		}
		close(fd);	/* the child has it: the connection must live on */
	}
}

/* ---- clients ---- */

static int dial(const char *host, const char *port, int flags)
{
	struct addrinfo hints, *res;
	int fd, r;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_INET;
	hints.ai_socktype = SOCK_STREAM;
	if (getaddrinfo(host, port, &hints, &res))
		fail("getaddrinfo");
	fd = socket(AF_INET, SOCK_STREAM | flags, 0);
	r = connect(fd, res->ai_addr, res->ai_addrlen);
	freeaddrinfo(res);
	if (r && !(flags & SOCK_NONBLOCK && errno == EINPROGRESS))
		die("connect");
	return fd;
}

static int start(const char *host, const char *port, char test)
{
	int fd = dial(host, port, 0);

	write_all(fd, &test, 1);
	return fd;
}

static void t_integrity(const char *host, const char *port, uint64_t n)
{
	static unsigned char buf[100000];
	int fd = start(host, port, 'I');
	uint64_t i, bad = 0, sz = 1;

	write_all(fd, &n, sizeof(n));
	for (i = 0; i < n;) {
		size_t k, c = (size_t)(n - i < sz ? n - i : sz);

		for (k = 0; k < c; k++)
			buf[k] = pat(i + k, 1);
		if (c & 1)
			write_all(fd, buf, c);
		else if (send(fd, buf, c, MSG_NOSIGNAL) != (ssize_t)c)
			die("send");
		i += c;
		sz = sz * 3 + 1;	/* 1, 4, 13, ... chunk sizes */
		if (sz > sizeof(buf))
			sz = sz % sizeof(buf) + 1;
	}
	if (read_all(fd, &bad, sizeof(bad)) != sizeof(bad))
		fail("no verdict from the server");
	if (bad)
		fail("the server saw corrupted bytes");
	for (i = 0; i < n;) {
		ssize_t r = recv(fd, buf, sizeof(buf), 0), k;

		if (r <= 0)
			die("recv back");
		for (k = 0; k < r; k++)
			bad += buf[k] != pat(i + (uint64_t)k, 2);
		i += (uint64_t)r;
	}
	if (bad)
		fail("corrupted bytes from the server");
	if (recv(fd, buf, 1, 0) != 0)
		fail("no EOF after the data");
	close(fd);
	printf("ok integrity bytes=%llu both ways\n", (unsigned long long)n);
}

static void rec_fill(unsigned char *r, unsigned char tag, uint32_t seq)
{
	memset(r, tag, REC);
	memcpy(r + 1, &seq, sizeof(seq));
}

/* Check one echoed record; counts per tag. */
static void rec_check(const unsigned char *r, unsigned long *count, uint32_t *last)
{
	uint32_t seq;
	int i;

	for (i = 5; i < REC; i++)
		if (r[i] != r[0])
			fail("torn record");
	memcpy(&seq, r + 1, sizeof(seq));
	if (count[r[0]] && seq != last[r[0]] + 1)
		fail("records out of order within one sender");
	last[r[0]] = seq;
	count[r[0]]++;
}

static void t_fork(const char *host, const char *port)
{
	unsigned char r[REC];
	unsigned long count[256] = { 0 };
	uint32_t last[256] = { 0 }, i;
	int fd = start(host, port, 'E'), st;
	pid_t pid = fork();

	if (pid == 0) {
		for (i = 0; i < 1000; i++) {
			rec_fill(r, 'C', i);
			write_all(fd, r, REC);
		}
		/* The child also reads: the first 500 echoes. */
		for (i = 0; i < 500; i++) {
			if (read_all(fd, r, REC) != REC)
				_exit(2);
			rec_check(r, count, last);
		}
		_exit(count['C'] == 500 ? 0 : 3);
	}
	waitpid(pid, &st, 0);
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		fail("the child failed");
	for (i = 0; i < 1000; i++) {
		rec_fill(r, 'P', i);
		write_all(fd, r, REC);
	}
	shutdown(fd, SHUT_WR);
	while (read_all(fd, r, REC) == REC)
		rec_check(r, count, last);
	if (count['C'] != 500 || count['P'] != 1000)
		fail("records lost");
	close(fd);
	printf("ok fork child_sent=1000 child_read=500 parent_sent=1000 parent_read=1500\n");
}

static int tfd;

static void *t_sender(void *arg)
{
	unsigned char r[REC];
	uint32_t i;

	for (i = 0; i < PER_THREAD; i++) {
		rec_fill(r, (unsigned char)(uintptr_t)arg, i);
		write_all(tfd, r, REC);
	}
	return NULL;
}

static void t_threads(const char *host, const char *port)
{
	pthread_t t[THREADS];
	unsigned char r[REC];
	unsigned long count[256] = { 0 }, total = 0;
	uint32_t last[256] = { 0 };
	int i;

	tfd = start(host, port, 'E');
	for (i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, t_sender, (void *)(uintptr_t)('a' + i));
	while (total < (unsigned long)THREADS * PER_THREAD) {
		if (read_all(tfd, r, REC) != REC)
			fail("early EOF");
		rec_check(r, count, last);
		total++;
	}
	for (i = 0; i < THREADS; i++) {
		pthread_join(t[i], NULL);
		if (count['a' + i] != PER_THREAD)
			fail("a sender's records are missing");
	}
	close(tfd);
	printf("ok threads senders=%d records=%lu none torn\n", THREADS, total);
}

static void t_dup(const char *host, const char *port)
{
	int fd = start(host, port, 'E'), d1, d2, d3, d4;
	char b[8];
	struct stat st;
	socklen_t l;
	int type = 0;

	d1 = dup(fd);
	d2 = dup2(fd, 200);
	d3 = dup3(fd, 201, O_CLOEXEC);
	d4 = fcntl(fd, F_DUPFD_CLOEXEC, 300);
	if (d1 < 0 || d2 != 200 || d3 != 201 || d4 < 300)
		die("dup");
	close(fd);
	write_all(d1, "1", 1);
	write_all(d2, "2", 1);
	write_all(d3, "3", 1);
	write_all(d4, "4", 1);
	if (read_all(d2, b, 4) != 4 || memcmp(b, "1234", 4))
		fail("dup: wrong echo");
	if (fstat(d4, &st) || !S_ISSOCK(st.st_mode))
		fail("fstat does not say socket");
	l = sizeof(type);
	if (getsockopt(d3, SOL_SOCKET, SO_TYPE, &type, &l) || type != SOCK_STREAM)
		fail("SO_TYPE");
	/* dup2 over a connection fd: the old connection of 200 goes */
	if (dup2(d1, d3) != d3)
		die("dup2 over");
	close(d1);
	close(d2);
	write_all(d3, "5", 1);
	close(d3);
	if (read_all(d4, b, 1) != 1 || b[0] != '5')
		fail("dup: the last descriptor does not work");
	shutdown(d4, SHUT_WR);
	if (read(d4, b, 1) != 0)
		fail("dup: no EOF");
	close(d4);
	printf("ok dup dup/dup2/dup3/F_DUPFD share one connection\n");
}

static void t_epoll(const char *host, const char *port, uint64_t n)
{
	static unsigned char out[65536], in[65536];
	int fd = start(host, port, 'E');
	int ep = epoll_create1(0), ep2 = epoll_create1(0), i;
	struct epoll_event ev = { .events = EPOLLIN | EPOLLOUT | EPOLLET }, evs[4];
	uint64_t sent = 0, got = 0, bad = 0;
	int levels = 0;

	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	ev.data.fd = fd;
	if (epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev))
		die("epoll_ctl ET");
	ev.events = EPOLLIN;	/* level-triggered, second set */
	if (epoll_ctl(ep2, EPOLL_CTL_ADD, fd, &ev))
		die("epoll_ctl LT");
	while (got < n) {
		int k = epoll_wait(ep, evs, 4, 10000);

		if (k <= 0)
			fail("epoll_wait: nothing for 10 s");
		for (i = 0; i < k; i++) {
			/* edge-triggered: drain both ways until EAGAIN */
			while (sent < n) {
				size_t c = (size_t)(n - sent < sizeof(out) ? n - sent : sizeof(out)), j;
				ssize_t w;

				for (j = 0; j < c; j++)
					out[j] = pat(sent + j, 3);
				w = send(fd, out, c, MSG_NOSIGNAL);
				if (w < 0 && errno == EAGAIN)
					break;
				if (w <= 0)
					die("send");
				sent += (uint64_t)w;
			}
			for (;;) {
				ssize_t r = recv(fd, in, sizeof(in), 0), j;

				if (r < 0 && errno == EAGAIN)
					break;
				if (r <= 0)
					die("recv");
				for (j = 0; j < r; j++)
					bad += in[j] != pat(got + (uint64_t)j, 3);
				got += (uint64_t)r;
			}
		}
		if (epoll_wait(ep2, evs, 4, 0) > 0)
			levels++;
	}
	if (bad)
		fail("corrupted echo");
	/* Level-triggered set: reports while data is there, not after. */
	write_all(fd, "z", 1);
	{
		struct pollfd p = { .fd = fd, .events = POLLIN };

		poll(&p, 1, 10000);
	}
	if (epoll_wait(ep2, evs, 4, 1000) != 1 || epoll_wait(ep2, evs, 4, 0) != 1)
		fail("level-triggered: not reported while readable");
	if (recv(fd, in, 1, 0) != 1 || epoll_wait(ep2, evs, 4, 0) != 0)
		fail("level-triggered: still reported after reading");
	close(ep);
	close(ep2);
	close(fd);
	printf("ok epoll bytes=%llu edge+level, one fd in two sets\n", (unsigned long long)n);
}

static void t_nonblock(const char *host, const char *port)
{
	static char buf[1 << 20];
	int fd = dial(host, port, SOCK_NONBLOCK), err = -1, full = 0;
	struct pollfd p = { .fd = fd, .events = POLLOUT };
	socklen_t l = sizeof(err);
	uint64_t total = 0;
	char reply[64];
	ssize_t r;

	if (poll(&p, 1, 10000) != 1 || !(p.revents & POLLOUT))
		fail("non-blocking connect: no POLLOUT");
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &l) || err)
		fail("non-blocking connect: SO_ERROR");
	if (recv(fd, reply, 1, 0) != -1 || errno != EAGAIN)
		fail("non-blocking recv: no EAGAIN");
	write_all(fd, "S", 1);	/* the server does not read for 1 s */
	memset(buf, 'n', sizeof(buf));
	for (;;) {
		r = send(fd, buf, sizeof(buf), MSG_NOSIGNAL);
		if (r < 0 && errno == EAGAIN) {
			if (++full > 3 && total > (1 << 20))
				break;
			p.events = POLLOUT;
			poll(&p, 1, 10000);
			continue;
		}
		if (r <= 0)
			die("send");
		total += (uint64_t)r;
	}
	shutdown(fd, SHUT_WR);
	p.events = POLLIN;
	if (poll(&p, 1, 20000) != 1)
		fail("no reply");
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	r = read_all(fd, reply, sizeof(reply) - 1);
	reply[r] = '\0';
	/* The server took the test byte "S" before counting. */
	if (strncmp(reply, "bytes=", 6) || strtoull(reply + 6, NULL, 10) != total)
		fail("the sink counted other bytes");
	printf("ok nonblock sent=%llu eagain=%d\n", (unsigned long long)total, full);
	close(fd);
}

static void t_halfclose(const char *host, const char *port, uint64_t n)
{
	static char buf[65536];
	int fd = start(host, port, 'H');
	uint64_t i;
	char reply[64], want[64];
	ssize_t r;

	memset(buf, 'h', sizeof(buf));
	for (i = 0; i < n; i += sizeof(buf))
		write_all(fd, buf, n - i < sizeof(buf) ? (size_t)(n - i) : sizeof(buf));
	if (shutdown(fd, SHUT_WR))
		die("shutdown");
	if (send(fd, "x", 1, MSG_NOSIGNAL) != -1 || errno != EPIPE)
		fail("send after SHUT_WR: no EPIPE");
	r = (ssize_t)read_all(fd, reply, sizeof(reply) - 1);
	reply[r] = '\0';
	snprintf(want, sizeof(want), "bytes=%llu", (unsigned long long)n);
	if (strcmp(reply, want))
		fail("the server's count is wrong");
	if (read(fd, reply, 1) != 0)
		fail("no EOF after the reply");
	close(fd);
	printf("ok halfclose sent=%llu then read the reply and EOF\n", (unsigned long long)n);
}

int main(int argc, char **argv)
{
	uint64_t n;

	if (argc == 3 && !strcmp(argv[1], "serve"))
		return serve(atoi(argv[2]));
	if (argc < 4)
		fail("usage: sor-test serve PORT | MODE HOST PORT [BYTES]");
	mode = argv[1];
	n = argc > 4 ? strtoull(argv[4], NULL, 10) : 1 << 20;
	if (!strcmp(mode, "integrity"))
		t_integrity(argv[2], argv[3], n);
	else if (!strcmp(mode, "fork"))
		t_fork(argv[2], argv[3]);
	else if (!strcmp(mode, "threads"))
		t_threads(argv[2], argv[3]);
	else if (!strcmp(mode, "dup"))
		t_dup(argv[2], argv[3]);
	else if (!strcmp(mode, "epoll"))
		t_epoll(argv[2], argv[3], n);
	else if (!strcmp(mode, "nonblock"))
		t_nonblock(argv[2], argv[3]);
	else if (!strcmp(mode, "halfclose"))
		t_halfclose(argv[2], argv[3], n);
	else
		fail("unknown mode");
	return 0;
}
