// SPDX-License-Identifier: GPL-2.0
/*
 * The eusrv_sor driver through its raw interface (uapi/eusrv/sor.h), no
 * interception library: tests/board/60-sor-driver.sh runs it on two nodes.
 *
 *   sor-driver-test server PORT       listen, accept one connection, serve
 *   sor-driver-test client NODE PORT  connect and run the data tests
 *   sor-driver-test refused NODE PORT CONNECT where nobody listens
 *   sor-driver-test badioctl          malformed control ioctls
 *   sor-driver-test hold NODE PORT    connect, then block in WAIT (prints
 *                                     the errno and seconds when it ends)
 *   sor-driver-test sockcheck NODE PORT  CONNECT's socket checks, implicit
 *                                     bind and what it reports
 *   sor-driver-test scrub-server PORT  the other end of scrub
 *   sor-driver-test scrub NODE PORT   ring memory of closed connections
 *                                     reaches new ones zeroed
 *
 * Prints "ok <what>" / "not ok <what>: <why>" lines; exits 1 on a failure.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sched.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <uapi/eusrv/sor.h>

#include "sor-progs.h"

/* A connection with its mapping. */
struct conn {
	int fd;
	struct eusrv_sor_info in;
	unsigned char *map;
	volatile struct eusrv_sor_ring_hdr *sh, *rh;
	unsigned char *sd, *rd;
};

static int conn_map(struct conn *c)
{
	if (ioctl(c->fd, EUSRV_SOR_INFO, &c->in) < 0)
		return -1;
	c->map = mmap(NULL, c->in.map_len, PROT_READ | PROT_WRITE, MAP_SHARED,
		      c->fd, 0);
	if (c->map == MAP_FAILED)
		return -1;
	c->sh = (void *)(c->map + c->in.snd_hdr_off);
	c->rh = (void *)(c->map + c->in.rcv_hdr_off);
	c->sd = c->map + c->in.snd_data_off;
	c->rd = c->map + c->in.rcv_data_off;
	return 0;
}

static int wait_ev(struct conn *c, uint32_t ev)
{
	struct eusrv_sor_wait w = { .events = ev, .timeout_ns = 10000000000LL };

	if (ioctl(c->fd, EUSRV_SOR_WAIT, &w) < 0)
		return -errno;
	return w.revents ? 0 : -ETIMEDOUT;
}

/* Through the mapped send ring, as the interception core does. */
static int ring_write(struct conn *c, const unsigned char *p, size_t n)
{
	uint32_t size = c->sh->size;

	while (n) {
		uint32_t head = __atomic_load_n(&c->sh->head, __ATOMIC_ACQUIRE);
		uint32_t tail = c->sh->tail, room = size - (tail - head), k, off;

		if (c->sh->flags & (EUSRV_SOR_RF_ERROR | EUSRV_SOR_RF_PEER_CLOSED))
			return -EPIPE;
		if (!room) {
			int e = wait_ev(c, EUSRV_SOR_W_SEND);

			if (e)
				return e;
			continue;
		}
		k = n < room ? (uint32_t)n : room;
		off = tail & (size - 1);
		if (k > size - off) {
			memcpy(c->sd + off, p, size - off);
			memcpy(c->sd, p + (size - off), k - (size - off));
		} else {
			memcpy(c->sd + off, p, k);
		}
		__atomic_store_n(&c->sh->tail, tail + k, __ATOMIC_RELEASE);
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		if (c->sh->need_push && ioctl(c->fd, EUSRV_SOR_PUSH) < 0)
			return -errno;
		p += k;
		n -= k;
	}
	return 0;
}

/* Through the mapped receive ring. */
static int ring_read(struct conn *c, unsigned char *p, size_t n)
{
	uint32_t size = c->rh->size;

	while (n) {
		uint32_t tail = __atomic_load_n(&c->rh->tail, __ATOMIC_ACQUIRE);
		uint32_t head = c->rh->head, avail = tail - head, k, off;

		if (!avail) {
			int e;

			if (c->rh->flags & (EUSRV_SOR_RF_EOF | EUSRV_SOR_RF_ERROR))
				return -EPIPE;
			e = wait_ev(c, EUSRV_SOR_W_RECV);
			if (e)
				return e;
			continue;
		}
		k = n < avail ? (uint32_t)n : avail;
		off = head & (size - 1);
		if (k > size - off) {
			memcpy(p, c->rd + off, size - off);
			memcpy(p + (size - off), c->rd, k - (size - off));
		} else {
			memcpy(p, c->rd + off, k);
		}
		__atomic_store_n(&c->rh->head, head + k, __ATOMIC_RELEASE);
		if (eusrv_sor_credit_due(head + k, tail, c->rh->reported, size) &&
		    ioctl(c->fd, EUSRV_SOR_CREDIT) < 0)
			return -errno;
		p += k;
		n -= k;
	}
	return 0;
}

/* Read N bytes; a peer silent for 30 s is an error, not a hang. */
static int full_read(int fd, unsigned char *p, size_t n)
{
	while (n) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		ssize_t r;

		r = poll(&pfd, 1, 30000);
		if (r <= 0)
			return r ? -errno : -ETIMEDOUT;
		r = read(fd, p, n);

		if (r <= 0)
			return r ? -errno : -EPIPE;
		p += r;
		n -= (size_t)r;
	}
	return 0;
}

static int full_write(int fd, const unsigned char *p, size_t n)
{
	while (n) {
		ssize_t r = write(fd, p, n);

		if (r <= 0)
			return -errno;
		p += r;
		n -= (size_t)r;
	}
	return 0;
}

static void fill(unsigned char *p, size_t n, uint32_t seed)
{
	size_t i;

	for (i = 0; i < n; i++) {
		seed = seed * 1103515245U + 12345U;
		p[i] = (unsigned char)(seed >> 16);
	}
}

static const size_t sizes[] = {
	1, 2, 100, 4095, 4096, 4097, 65536, 262143, 262144, 300000,
	1 << 20, 3 << 20, 5000000,
};

#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))
#define MAXSZ 5000000

/*
 * The exchange: for each size, the client sends a block (mapped ring on
 * even rounds, write() on odd ones), the server checks it and sends back
 * a block of the same size (read() / mapped ring crosswise), which the
 * client checks.  Blocks larger than the ring wrap it many times.
 */
static int serve(struct conn *c)
{
	unsigned char *want = malloc(MAXSZ), *got = malloc(MAXSZ);
	unsigned int i;
	int e;

	for (i = 0; i < NSIZES; i++) {
		fill(want, sizes[i], (uint32_t)i);
		e = i & 1 ? full_read(c->fd, got, sizes[i]) : ring_read(c, got, sizes[i]);
		if (e || memcmp(want, got, sizes[i])) {
			fprintf(stderr, "server: block %u (%zu bytes): %s\n", i,
				sizes[i], e ? strerror(-e) : "data differs");
			return -1;
		}
		fill(want, sizes[i], (uint32_t)i + 1000);
		e = i & 1 ? ring_write(c, want, sizes[i]) : full_write(c->fd, want, sizes[i]);
		if (e) {
			fprintf(stderr, "server: send %u: %s\n", i, strerror(-e));
			return -1;
		}
	}
	/* The client closes: EOF, on both paths. */
	e = (int)read(c->fd, got, 1);
	printf("server: EOF read=%d\n", e);
	return e == 0 ? 0 : -1;
}

/* A TCP socket of FAMILY listening on PORT at ADDR (IPv4, 0: any), or -1. */
static int listening(int family, uint32_t addr, uint16_t port, int v6only)
{
	struct sockaddr_in6 s6 = { .sin6_family = AF_INET6, .sin6_port = htons(port) };
	struct sockaddr_in s4 = { .sin_family = AF_INET, .sin_port = htons(port) };
	int s = socket(family, SOCK_STREAM, 0), one = 1, r;

	if (s < 0)
		return -1;
	setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	s4.sin_addr.s_addr = addr;
	if (family == AF_INET6) {
		setsockopt(s, IPPROTO_IPV6, IPV6_V6ONLY, &v6only, sizeof(v6only));
		r = bind(s, (void *)&s6, sizeof(s6));
	} else {
		r = bind(s, (void *)&s4, sizeof(s4));
	}
	if (r || listen(s, 16)) {
		close(s);
		return -1;
	}
	return s;
}

static int do_server(int port)
{
	struct eusrv_sor_listen l = { .port = (uint16_t)port };
	struct sockaddr_in sin = { .sin_family = AF_INET };
	struct eusrv_sor_accept a = { .fd = -1 };
	socklen_t sl = sizeof(sin);
	int ctl = ctl_open(), ls, s;
	struct conn c = {};

	ls = listening(AF_INET, INADDR_ANY, (uint16_t)port, 0);
	if (ls < 0) {
		perror("listen");
		return 2;
	}
	l.fd = ctl;
	expect_err(ioctl(ctl, EUSRV_SOR_LISTEN, &l), ENOTSOCK, "LISTEN not a socket: ENOTSOCK");
	l.fd = socket(AF_INET, SOCK_STREAM, 0);
	expect_err(ioctl(ctl, EUSRV_SOR_LISTEN, &l), EINVAL, "LISTEN socket not listening: EINVAL");
	close(l.fd);
	l.fd = ls;
	result(ioctl(ctl, EUSRV_SOR_LISTEN, &l) == 0, "LISTEN", strerror(errno));
	expect_err(ioctl(ctl, EUSRV_SOR_LISTEN, &l), EEXIST, "LISTEN twice: EEXIST");
	printf("listening\n");
	fflush(stdout);
	s = accept(ls, (void *)&sin, &sl);
	if (s < 0) {
		perror("accept");
		return 2;
	}
	a.fd = ctl;
	expect_err(ioctl(ctl, EUSRV_SOR_ACCEPT, &a), ENOTSOCK,
		   "ACCEPT of no socket: ENOTSOCK");
	a.fd = ls;
	expect_err(ioctl(ctl, EUSRV_SOR_ACCEPT, &a), ENOENT,
		   "ACCEPT of the listening socket: ENOENT");
	a.fd = s;
	c.fd = ioctl(ctl, EUSRV_SOR_ACCEPT, &a);
	result(c.fd >= 0, "ACCEPT matches the dummy connection", strerror(errno));
	if (c.fd < 0)
		return 1;
	expect_err(ioctl(ctl, EUSRV_SOR_ACCEPT, &a), ENOENT,
		   "ACCEPT of the same dummy again: ENOENT");
	close(s);
	result(conn_map(&c) == 0, "server mmap", strerror(errno));
	result(c.in.state == EUSRV_SOR_ST_ESTABLISHED, "server ESTABLISHED", "state");
	result(serve(&c) == 0, "server: every block checked, EOF at the end",
	       "see stderr");
	close(c.fd);
	/* Then keep accepting, holding each connection open, until killed. */
	for (;;) {
		sl = sizeof(sin);
		s = accept(ls, (void *)&sin, &sl);
		if (s < 0)
			break;
		a.fd = s;
		c.fd = ioctl(ctl, EUSRV_SOR_ACCEPT, &a);
		printf("accepted fd %d\n", c.fd);
		fflush(stdout);
		close(s);
	}
	close(ctl);
	return failures ? 1 : 0;
}

/* The local port of the socket of the last connect_to(). */
static uint16_t last_sport;

/* A TCP socket bound to PORT (0: any) on ADDR, or -1. */
static int bound_socket(uint32_t addr, uint16_t port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	socklen_t sl = sizeof(sin);
	int s = socket(AF_INET, SOCK_STREAM, 0);

	sin.sin_addr.s_addr = addr;
	sin.sin_port = htons(port);
	if (s < 0 || bind(s, (void *)&sin, sizeof(sin)) ||
	    getsockname(s, (void *)&sin, &sl)) {
		if (s >= 0)
			close(s);
		return -1;
	}
	last_sport = ntohs(sin.sin_port);
	return s;
}

/* CONNECT from a bound socket of our own, closed after (the driver holds it). */
static int connect_to(int ctl, int node, int port, uint32_t flags)
{
	struct eusrv_sor_connect rq = {
		.node = (uint32_t)node, .port = (uint16_t)port, .flags = flags,
	};

	rq.fd = bound_socket(INADDR_ANY, 0);
	if (rq.fd < 0)
		return -1;
	return connect_from(ctl, &rq);
}

/*
 * A child takes both of the connection's locks and then cannot release
 * them: HOW is "exit" (it dies, reaped at once), "zombie" (it dies, not
 * reaped until the end) or "exec" (it runs another program, which has
 * its thread id but no mapping).  The driver frees both within 3 s.
 */
static void dead_holder(int ctl, struct conn *c, const char *how)
{
	struct eusrv_sor_stats s0 = {}, s1 = {};
	uint32_t which = EUSRV_SOR_LOCK_RECV;
	char what[128];
	double t0;
	pid_t pid;
	int st, p[2];

	if (pipe(p))
		return;
	ioctl(ctl, EUSRV_SOR_STATS, &s0);
	pid = fork();
	if (pid == 0) {
		uint32_t me = (uint32_t)syscall(SYS_gettid);

		c->sh->lock = me;
		c->sh->rcv_lock = me | EUSRV_SOR_LOCK_WAITERS;
		if (!strcmp(how, "exec")) {
			/* The new program says it runs by closing the pipe. */
			close(p[0]);
			fcntl(p[1], F_SETFD, FD_CLOEXEC);
			execl("/bin/sleep", "sleep", "10", (char *)NULL);
		}
		_exit(0);
	}
	close(p[1]);
	if (pid < 0 || read(p[0], &st, 1) < 0 ||
	    (!strcmp(how, "exit") && waitpid(pid, &st, 0) != pid)) {
		result(0, "a child holding the locks", strerror(errno));
		return;
	}
	close(p[0]);
	if (!strcmp(how, "zombie"))
		usleep(100000);	/* dead by then, never reaped meanwhile */
	t0 = now();
	snprintf(what, sizeof(what),
		 "write() after the send lock's holder %s: the driver freed it",
		 !strcmp(how, "exec") ? "called exec" : !strcmp(how, "zombie") ?
		 "became a zombie" : "died");
	result(write(c->fd, "z", 1) == 1 && c->sh->lock == 0, what, strerror(errno));
	snprintf(what, sizeof(what), "LOCK_WAIT after the holder's %s: freed", how);
	result(ioctl(c->fd, EUSRV_SOR_LOCK_WAIT, &which) == 0 && c->sh->rcv_lock == 0,
	       what, strerror(errno));
	ioctl(ctl, EUSRV_SOR_STATS, &s1);
	printf("holders (%s) freed in %.0f ms\n", how, (now() - t0) * 1e3);
	snprintf(what, sizeof(what), "STATS locks_freed (%s): 2 more, within 3 s", how);
	result(s1.locks_freed - s0.locks_freed == 2 && now() - t0 < 3, what,
	       "count or time");
	if (strcmp(how, "exit")) {
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
	}
}

static void hostile(struct conn *c)
{
	struct eusrv_sor_wait w = { .events = 0x80 };
	uint32_t which = 7;
	int32_t err = 0;
	void *m;

	expect_err(ioctl(c->fd, EUSRV_SOR_WAIT, &w), EINVAL, "WAIT bad events: EINVAL");
	w.events = EUSRV_SOR_W_RECV;
	w.timeout_ns = -5;
	expect_err(ioctl(c->fd, EUSRV_SOR_WAIT, &w), EINVAL, "WAIT bad timeout: EINVAL");
	expect_err(ioctl(c->fd, EUSRV_SOR_LOCK_WAIT, &which), EINVAL,
		   "LOCK_WAIT bad lock: EINVAL");
	which = 9;
	expect_err(ioctl(c->fd, EUSRV_SOR_SHUTDOWN, &which), EINVAL,
		   "SHUTDOWN bad how: EINVAL");
	expect_err(ioctl(c->fd, _IO(EUSRV_SOR_IOC_MAGIC, 0x7f)), ENOTTY,
		   "unknown ioctl: ENOTTY");
	expect_err(ioctl(c->fd, EUSRV_SOR_INFO, (void *)16), EFAULT, "INFO to a bad pointer: EFAULT");
	m = mmap(NULL, c->in.map_len + 4096, PROT_READ | PROT_WRITE, MAP_SHARED, c->fd, 0);
	expect_err(m == MAP_FAILED ? -1 : 0, EINVAL, "mmap too long: EINVAL");
	m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, c->fd, 4096);
	expect_err(m == MAP_FAILED ? -1 : 0, EINVAL, "mmap at an offset: EINVAL");
	m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE, c->fd, 0);
	expect_err(m == MAP_FAILED ? -1 : 0, EINVAL, "private mmap: EINVAL");
	/* Scribble: a tail far beyond the ring. */
	c->sh->tail = c->sh->head + c->sh->size + 12345;
	expect_err(ioctl(c->fd, EUSRV_SOR_PUSH), EINVAL, "PUSH with a hostile tail: EINVAL");
	ioctl(c->fd, EUSRV_SOR_GET_ERROR, &err);
	result(err == EINVAL, "the connection failed with EINVAL", "GET_ERROR");
	result(c->sh->flags & EUSRV_SOR_RF_ERROR, "ERROR flag in the ring", "flags");
	expect_err((int)write(c->fd, "x", 1), ECONNRESET, "write after failure: ECONNRESET");
}

static int do_client(int node, int port)
{
	unsigned char *want = malloc(MAXSZ), *got = malloc(MAXSZ);
	int ctl = ctl_open(), e, i;
	struct conn c = {}, h = {};
	struct pollfd pfd;
	double t0;

	t0 = now();
	c.fd = connect_to(ctl, node, port, EUSRV_SOR_F_CLOEXEC);
	result(c.fd >= 0, "CONNECT", strerror(errno));
	if (c.fd < 0 || !want || !got) {
		free(want);
		free(got);
		return 1;
	}
	printf("connect time %.0f us\n", (now() - t0) * 1e6);
	result(conn_map(&c) == 0, "client mmap", strerror(errno));
	result(c.in.lport == last_sport, "CONNECT: the local port is the socket's",
	       "lport");
	e = bound_socket(INADDR_ANY, last_sport);
	result(e < 0 && errno == EADDRINUSE,
	       "the port stays taken while the connection lives", strerror(errno));
	if (e >= 0)
		close(e);
	result(c.in.state == EUSRV_SOR_ST_ESTABLISHED &&
	       c.in.snd_size == 1U << EUSRV_SOR_RING_DEF_SHIFT &&
	       c.in.rcv_size == 1U << EUSRV_SOR_RING_DEF_SHIFT,
	       "INFO: established, default ring sizes", "info");
	pfd.fd = c.fd;
	pfd.events = POLLIN;
	result(poll(&pfd, 1, 100) == 0, "poll: nothing to read yet", "poll");
	pfd.events = POLLOUT;
	result(poll(&pfd, 1, 100) == 1 && (pfd.revents & POLLOUT), "poll: writable",
	       "poll");
	t0 = now();
	for (i = 0; i < (int)NSIZES; i++) {
		fill(want, sizes[i], (uint32_t)i);
		e = i & 1 ? full_write(c.fd, want, sizes[i]) : ring_write(&c, want, sizes[i]);
		if (e)
			break;
		fill(want, sizes[i], (uint32_t)i + 1000);
		e = i & 1 ? ring_read(&c, got, sizes[i]) : full_read(c.fd, got, sizes[i]);
		if (!e && memcmp(want, got, sizes[i]))
			e = -EBADMSG;
		if (e)
			break;
	}
	{
		char why[80];

		snprintf(why, sizeof(why), "block %d: %s", i, strerror(-e));
		result(!e, "blocks of 1 B .. 5 MB both ways, rings and read/write, checked",
		       why);
	}
	if (!e) {
		double s = now() - t0, bytes = 0;

		for (i = 0; i < (int)NSIZES; i++)
			bytes += 2.0 * sizes[i];
		printf("throughput %.1f MB/s\n", bytes / s / 1e6);
	}
	close(c.fd);

	/* A second connection, for the hostile values. */
	h.fd = connect_to(ctl, node, port, 0);
	if (h.fd >= 0 && conn_map(&h) == 0) {
		dead_holder(ctl, &h, "exit");
		dead_holder(ctl, &h, "zombie");
		dead_holder(ctl, &h, "exec");
		hostile(&h);
	}
	else
		result(0, "second connection for the hostile tests", strerror(errno));
	close(ctl);
	return failures ? 1 : 0;
}

static int do_refused(int node, int port)
{
	int ctl = ctl_open();

	expect_err(connect_to(ctl, node, port, 0), ECONNREFUSED,
		   "CONNECT with no listener: ECONNREFUSED");
	expect_err(connect_to(ctl, 200, port, 0), EINVAL, "CONNECT to node 200: EINVAL");
	return failures ? 1 : 0;
}

/*
 * Ring memory goes back to the driver's pool and is handed out again;
 * the pool zeroes only the pages a connection may have written.  The
 * scrub client and server dirty their rings every way a connection can:
 * through the mapping, every page of both rings ('M'); through the
 * peer's engine and read()/write(), with no page of the mapping touched
 * ('D').  Then new connections, all open at once so that they take many
 * blocks, check that every byte of their rings is zero on both ends
 * ('C'; the server answers 'z' if its own are), but for the command and
 * answer bytes at the start of each ring.
 */
#define SCRUB_DIRTY	64U		/* twice the pool's largest size */
#define SCRUB_CHECK	40U
#define SCRUB_DMA	100000U		/* bytes each way of a 'D' connection */
#define SCRUB_SKIP	64U		/* the command and answer bytes */

/* Bytes of C's data areas (past SCRUB_SKIP) that are not zero. */
static size_t scrub_count(const struct conn *c)
{
	size_t n = 0, i;

	for (i = SCRUB_SKIP; i < c->in.snd_size; i++)
		n += c->sd[i] != 0;
	for (i = SCRUB_SKIP; i < c->in.rcv_size; i++)
		n += c->rd[i] != 0;
	return n;
}

static void scrub_mark(struct conn *c)
{
	memset(c->sd + SCRUB_SKIP, 0xa5, c->in.snd_size - SCRUB_SKIP);
	memset(c->rd + SCRUB_SKIP, 0xa5, c->in.rcv_size - SCRUB_SKIP);
}

/* Serve one scrub connection on FD; 0, or -1 (said on stderr) if it went wrong. */
static int scrub_serve(int fd)
{
	unsigned char cmd, *buf = malloc(SCRUB_DMA);
	struct conn c = { .fd = fd };
	const char *why = "no memory";
	int e = -1;

	if (!buf)
		goto out;
	why = "map";
	if (conn_map(&c))
		goto out;
	why = "reading the command";
	e = ring_read(&c, &cmd, 1);
	if (e)
		goto out;
	why = "serving the command";
	e = -1;
	switch (cmd) {
	case 'M':
		scrub_mark(&c);
		e = ring_write(&c, (const unsigned char *)"k", 1);
		break;
	case 'D':
		memset(buf, 0x5a, SCRUB_DMA);
		e = ring_write(&c, buf, SCRUB_DMA);
		if (!e)
			e = full_read(fd, buf, SCRUB_DMA);
		break;
	case 'C':
		e = ring_write(&c, (const unsigned char *)(scrub_count(&c) ? "x" : "z"), 1);
		/* Held open: the next ones must take other blocks. */
		free(buf);
		return e ? -1 : 0;
	}
	/* Until the client closes. */
	while (!e && read(fd, buf, SCRUB_DMA) > 0)
		;
out:
	if (e < -1)
		errno = -e;
	if (e)
		fprintf(stderr, "scrub-server: %s: %s\n", why, strerror(errno));
	free(buf);
	if (c.map)
		munmap(c.map, c.in.map_len);
	close(fd);
	return e ? -1 : 0;
}

/*
 * A TCP socket listening on PORT and registered with CTL (LISTEN), once
 * "listening" is said; -1 (WHO's error said) if not.
 */
static int registered_listener(int ctl, int port, const char *who)
{
	struct eusrv_sor_listen l = { .port = (uint16_t)port };
	int ls = listening(AF_INET, INADDR_ANY, (uint16_t)port, 0);

	l.fd = ls;
	if (ls < 0 || ioctl(ctl, EUSRV_SOR_LISTEN, &l)) {
		fprintf(stderr, "%s: listen: %s\n", who, strerror(errno));
		return -1;
	}
	printf("listening\n");
	fflush(stdout);
	return ls;
}

static int do_scrub_server(int port)
{
	int ctl = ctl_open(), ls, s, fd;

	ls = registered_listener(ctl, port, "scrub-server");
	if (ls < 0)
		return 2;
	while ((s = accept(ls, NULL, NULL)) >= 0) {
		/* Reserved fields must be zero: ACCEPT refuses them set. */
		struct eusrv_sor_accept a = { .fd = s };

		fd = ioctl(ctl, EUSRV_SOR_ACCEPT, &a);
		close(s);
		if (fd < 0)
			perror("scrub-server: ACCEPT");
		else if (scrub_serve(fd))
			printf("scrub-server: a connection failed\n");
		fflush(stdout);
	}
	return 0;
}

/* One dirtying connection of kind CMD; 0, or -1. */
static int scrub_dirty(int ctl, int node, int port, unsigned char cmd,
		       unsigned char *buf)
{
	struct conn c = {};
	unsigned char ack;
	int e = -1;

	c.fd = connect_to(ctl, node, port, 0);
	if (c.fd < 0 || conn_map(&c) || ring_write(&c, &cmd, 1))
		goto out;
	if (cmd == 'M') {
		if (ring_read(&c, &ack, 1) || ack != 'k')
			goto out;
		scrub_mark(&c);
		e = 0;
	} else {
		memset(buf, 0xc3, SCRUB_DMA);
		e = full_write(c.fd, buf, SCRUB_DMA);
		if (!e)
			e = full_read(c.fd, buf, SCRUB_DMA);
	}
out:
	if (e)
		fprintf(stderr, "scrub: a '%c' connection failed: %s\n", cmd,
			e < -1 ? strerror(-e) : "connect, map or command");
	if (c.map)
		munmap(c.map, c.in.map_len);
	if (c.fd >= 0)
		close(c.fd);
	return e;
}

static int do_scrub(int node, int port)
{
	unsigned char *buf = malloc(SCRUB_DMA), ans, cmd = 'C';
	struct conn c[SCRUB_CHECK] = {};
	unsigned int i, failed = 0, dirty = 0, remote = 0;
	int ctl = ctl_open();
	char why[96];

	for (i = 0; buf && i < SCRUB_DIRTY; i++)
		failed += scrub_dirty(ctl, node, port, i & 1 ? 'D' : 'M', buf) != 0;
	snprintf(why, sizeof(why), "%u of %u failed", failed, SCRUB_DIRTY);
	result(buf && !failed, "scrub: connections wrote every page of their rings, mapped and by the engines",
	       why);
	/* Let the closed ones go back and be zeroed. */
	usleep(500000);
	failed = 0;
	for (i = 0; i < SCRUB_CHECK; i++) {
		c[i].fd = connect_to(ctl, node, port, 0);
		if (c[i].fd < 0 || conn_map(&c[i]) || ring_write(&c[i], &cmd, 1) ||
		    ring_read(&c[i], &ans, 1)) {
			failed++;
			continue;
		}
		dirty += scrub_count(&c[i]) != 0;
		remote += ans != 'z';
	}
	snprintf(why, sizeof(why), "%u failed; rings not zero: %u here, %u at the server",
		 failed, dirty, remote);
	result(!failed && !dirty && !remote,
	       "scrub: 40 new connections' rings are zero on both ends", why);
	for (i = 0; i < SCRUB_CHECK; i++)
		if (c[i].fd >= 0)
			close(c[i].fd);
	free(buf);
	close(ctl);
	return failures ? 1 : 0;
}

#define DROP_CONNS	6U
#define DROP_EOF_S	3.0	/* against the 60 s an unclaimed connection is kept */

/* Accept every dummy and close it unclaimed, as a program may. */
static int do_drop_server(int port)
{
	int ctl = ctl_open(), ls, s;

	ls = registered_listener(ctl, port, "drop-server");
	if (ls < 0)
		return 2;
	while ((s = accept(ls, NULL, NULL)) >= 0) {
		usleep(200000);	/* what the client sent is in by then */
		close(s);
	}
	return 0;
}

/*
 * One connection whose server closes the accepted socket without ACCEPT,
 * after SENT bytes of ours (0 or 100): as over TCP's close(), the read
 * ends in EOF, or ECONNRESET if the server had not read what we sent.
 * How long the read waited, or -1 if it ended otherwise.
 */
static double dropped_one(int ctl, int node, int port, size_t sent)
{
	struct pollfd p = { .events = POLLIN };
	char buf[100] = { 0 };
	double t0 = now();
	ssize_t n;

	p.fd = connect_to(ctl, node, port, 0);
	if (p.fd < 0)
		return -1;
	if (sent && write(p.fd, buf, sent) != (ssize_t)sent) {
		close(p.fd);
		return -1;
	}
	n = poll(&p, 1, 10000) == 1 ? read(p.fd, buf, 1) : -2;
	close(p.fd);
	if (sent ? n != -1 || errno != ECONNRESET : n != 0)
		return -1;
	return now() - t0;
}

/*
 * Connections whose server closes the accepted socket without ACCEPT:
 * the client hears as over TCP, at once, not when the server's driver
 * gives up on the unclaimed connection (60 s).
 */
static int do_dropped(int node, int port)
{
	unsigned int i, late = 0, wrong = 0;
	int ctl = ctl_open();
	double t, worst = 0;
	char why[96];

	for (i = 0; i < DROP_CONNS; i++) {
		t = dropped_one(ctl, node, port, i & 1 ? 100 : 0);
		if (t < 0)
			wrong++;
		else if (t > DROP_EOF_S)
			late++;
		if (t > worst)
			worst = t;
	}
	snprintf(why, sizeof(why), "%u ended otherwise, %u late; slowest %.0f ms",
		 wrong, late, worst * 1e3);
	result(!wrong && !late,
	       "connections the server closed unaccepted: EOF, or ECONNRESET over unread bytes, within 3 s",
	       why);
	printf("dropped: slowest after %.0f ms\n", worst * 1e3);
	close(ctl);
	return failures ? 1 : 0;
}

static int do_badioctl(void)
{
	struct eusrv_sor_connect rq = { .node = 0, .port = 1, .reserved2 = 1 };
	struct eusrv_sor_listen l = { .port = 0 };
	struct eusrv_sor_accept a = { .fd = 0 };
	struct eusrv_sor_note n = { .reason = 99 };
	struct eusrv_sor_list li = { .count = 5, .conns = 0 };
	struct eusrv_sor_stats st;
	int ctl = ctl_open();

	expect_err(ioctl(ctl, EUSRV_SOR_LISTEN, &l), EINVAL, "LISTEN port 0: EINVAL");
	l.port = 5;
	l.snd_shift = 40;
	expect_err(ioctl(ctl, EUSRV_SOR_LISTEN, &l), EINVAL, "LISTEN bad shift: EINVAL");
	l.snd_shift = 0;
	l.flags = 1;
	expect_err(ioctl(ctl, EUSRV_SOR_LISTEN, &l), EINVAL, "LISTEN flags: EINVAL");
	l.flags = 0;
	expect_err(ioctl(ctl, EUSRV_SOR_UNLISTEN, &l), ENOENT, "UNLISTEN unknown: ENOENT");
	expect_err(ioctl(ctl, EUSRV_SOR_CONNECT, &rq), EINVAL, "CONNECT reserved: EINVAL");
	rq.reserved2 = 0;
	rq.timeout_ms = 70000;
	expect_err(ioctl(ctl, EUSRV_SOR_CONNECT, &rq), EINVAL, "CONNECT timeout: EINVAL");
	rq.timeout_ms = 0;
	rq.fd = ctl;
	expect_err(ioctl(ctl, EUSRV_SOR_CONNECT, &rq), ENOTSOCK,
		   "CONNECT from no socket: ENOTSOCK");
	rq.fd = socket(AF_INET, SOCK_STREAM, 0);
	expect_err(ioctl(ctl, EUSRV_SOR_CONNECT, &rq), EINVAL,
		   "CONNECT from an unbound socket: EINVAL");
	close(rq.fd);
	a.fd = ctl;
	expect_err(ioctl(ctl, EUSRV_SOR_ACCEPT, &a), ENOTSOCK, "ACCEPT of no socket: ENOTSOCK");
	a.flags = 0x100;
	expect_err(ioctl(ctl, EUSRV_SOR_ACCEPT, &a), EINVAL, "ACCEPT flags: EINVAL");
	expect_err(ioctl(ctl, EUSRV_SOR_NOTE, &n), EINVAL, "NOTE bad reason: EINVAL");
	n.reason = EUSRV_SOR_R_NOT_PEER;
	result(ioctl(ctl, EUSRV_SOR_NOTE, &n) == 0, "NOTE", strerror(errno));
	expect_err(ioctl(ctl, EUSRV_SOR_LIST, &li), EINVAL, "LIST null buffer: EINVAL");
	li.conns = 8;
	li.note_count = 4;
	li.notes = 8;
	/* The note above is there to copy, so the bad buffer is touched. */
	expect_err(ioctl(ctl, EUSRV_SOR_LIST, &li), EFAULT, "LIST bad buffer: EFAULT");
	memset(&li, 0, sizeof(li));
	li.flags = EUSRV_SOR_LIST_CLOSED << 1;
	expect_err(ioctl(ctl, EUSRV_SOR_LIST, &li), EINVAL, "LIST unknown flag: EINVAL");
	expect_err(ioctl(ctl, EUSRV_SOR_STATS, (void *)8), EFAULT, "STATS bad pointer: EFAULT");
	expect_err(ioctl(ctl, _IO(EUSRV_SOR_IOC_MAGIC, 0x55)), ENOTTY, "unknown: ENOTTY");
	expect_err(ioctl(ctl, EUSRV_SOR_PUSH), ENOTTY, "connection ioctl on control: ENOTTY");
	result(ioctl(ctl, EUSRV_SOR_STATS, &st) == 0 &&
	       (st.nodes_up & (1ULL << st.node)), "STATS: own node up", strerror(errno));
	return failures ? 1 : 0;
}

/* Block in WAIT until the connection fails; print how long it took. */
static int do_hold(int node, int port)
{
	struct eusrv_sor_wait w = { .events = EUSRV_SOR_W_RECV, .timeout_ns = -1 };
	int ctl = ctl_open(), fd;
	int32_t err = 0;

	fd = connect_to(ctl, node, port, 0);
	if (fd < 0) {
		perror("CONNECT");
		return 2;
	}
	printf("holding\n");
	fflush(stdout);
	for (;;) {
		if (ioctl(fd, EUSRV_SOR_WAIT, &w) < 0) {
			perror("WAIT");
			return 2;
		}
		ioctl(fd, EUSRV_SOR_GET_ERROR, &err);
		if (err)
			break;
	}
	printf("error=%d\n", err);
	return err == ECONNRESET ? 0 : 1;
}

/*
 * A second after it starts (the peer frozen meanwhile: up, but silent), a
 * non-blocking CONNECT returns its file at once, CONNECTING, and set-up
 * goes on in the background: an event loop is not held up.  Given no
 * address to turn to TCP at, it ends at its 2 s deadline in POLLERR and
 * ETIMEDOUT (the bounds: 1.5 s, since no timer fires early, and 10 s, a
 * generous one).
 */
static int do_nbconnect(int node, int port)
{
	int ctl = ctl_open(), fd, n;
	struct pollfd p;
	int32_t err = 0;
	double t0, t;

	sleep(1);
	t0 = now();
	fd = connect_to(ctl, node, port, EUSRV_SOR_F_NONBLOCK);
	t = now() - t0;
	printf("non-blocking CONNECT to a silent peer: %s after %.0f ms\n",
	       fd < 0 ? strerror(errno) : "a file", t * 1e3);
	result(fd >= 0 && t < 0.5,
	       "non-blocking CONNECT to a silent peer: its file at once (within 0.5 s)",
	       fd < 0 ? strerror(errno) : "slow");
	if (fd < 0)
		return 1;
	p.fd = fd;
	p.events = POLLIN | POLLOUT;
	result(poll(&p, 1, 0) == 0, "... not readable or writable while it sets up",
	       "ready at once");
	n = poll(&p, 1, 10000);
	t = now() - t0;
	ioctl(fd, EUSRV_SOR_GET_ERROR, &err);
	printf("set-up ended after %.0f ms: revents %#x, error %d\n", t * 1e3,
	       n == 1 ? p.revents : 0, err);
	result(n == 1 && (p.revents & POLLERR) && err == ETIMEDOUT &&
	       t >= 1.5 && t < 10,
	       "... POLLERR and ETIMEDOUT at its 2 s deadline", "see above");
	close(fd);
	return failures ? 1 : 0;
}

/* A socket of FAMILY (IPV6_V6ONLY as V6ONLY for AF_INET6), unbound. */
static int tcp_socket(int family, int v6only, int flags)
{
	int s = socket(family, SOCK_STREAM | flags, 0);

	if (s >= 0 && family == AF_INET6)
		setsockopt(s, IPPROTO_IPV6, IPV6_V6ONLY, &v6only, sizeof(v6only));
	return s;
}

/*
 * CONNECT does in one call what connect() needs of the socket: the checks
 * that leave it to TCP's own connect() (EPROTOTYPE, EAFNOSUPPORT,
 * EISCONN), the implicit bind, and what the library would otherwise ask
 * (port, flags, timeouts, the rings' layout).
 */
static int do_sockcheck(int node, int port)
{
	const uint32_t lib = EUSRV_SOR_F_BIND | EUSRV_SOR_F_INHERIT;
	struct eusrv_sor_connect rq = {
		.node = (uint32_t)node, .port = (uint16_t)port, .flags = lib,
	};
	struct timeval tv = { .tv_sec = 1, .tv_usec = 500000 };
	struct sockaddr_in me;
	socklen_t ml = sizeof(me);
	int ctl = ctl_open(), fd, s;
	void *map;

	rq.fd = socket(AF_INET, SOCK_DGRAM, 0);
	expect_err(connect_from(ctl, &rq), EPROTOTYPE,
		   "CONNECT from a UDP socket: EPROTOTYPE");
	rq.fd = tcp_socket(AF_INET6, 0, 0);
	expect_err(connect_from(ctl, &rq), EAFNOSUPPORT,
		   "CONNECT from an IPv6 socket to an IPv4 address: EAFNOSUPPORT");
	rq.fd = tcp_socket(AF_INET6, 1, 0);
	rq.flags = lib | EUSRV_SOR_F_INET6;
	expect_err(connect_from(ctl, &rq), EAFNOSUPPORT,
		   "CONNECT from an IPv6-only socket: EAFNOSUPPORT");
	rq.fd = listening(AF_INET, INADDR_ANY, 0, 0);
	rq.flags = lib;
	expect_err(connect_from(ctl, &rq), EISCONN,
		   "CONNECT from a listening socket: EISCONN");

	/* The caller's NONBLOCK is not the socket's: INHERIT ignores it. */
	s = tcp_socket(AF_INET, 0, SOCK_CLOEXEC);
	setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	rq.fd = s;
	rq.flags = lib | EUSRV_SOR_F_NONBLOCK;
	fd = ioctl(ctl, EUSRV_SOR_CONNECT, &rq);
	result(fd >= 0, "CONNECT from an unbound socket with BIND", strerror(errno));
	if (fd >= 0) {
		getsockname(s, (struct sockaddr *)&me, &ml);
		result(rq.lport && rq.lport == ntohs(me.sin_port) && !rq.laddr,
		       "... binds it and reports its port", "not the socket's");
		result(rq.out_flags == EUSRV_SOR_F_CLOEXEC &&
		       (fcntl(fd, F_GETFD) & FD_CLOEXEC) &&
		       !(fcntl(fd, F_GETFL) & O_NONBLOCK),
		       "... blocking and close-on-exec as the socket", "other flags");
		result(rq.rcvtimeo_ns > 1490000000LL && rq.rcvtimeo_ns < 1510000000LL &&
		       rq.sndtimeo_ns == -1, "... reports its timeouts", "wrong");
		map = rq.info.state == EUSRV_SOR_ST_ESTABLISHED && rq.info.map_len ?
		      mmap(NULL, rq.info.map_len, PROT_READ | PROT_WRITE,
			   MAP_SHARED, fd, 0) : MAP_FAILED;
		result(map != MAP_FAILED,
		       "... and the rings' layout: mapped without INFO", strerror(errno));
		if (map != MAP_FAILED)
			munmap(map, rq.info.map_len);
		close(fd);
	}
	close(s);

	s = tcp_socket(AF_INET6, 0, 0);
	rq.fd = s;
	rq.flags = lib | EUSRV_SOR_F_INET6;
	fd = ioctl(ctl, EUSRV_SOR_CONNECT, &rq);
	result(fd >= 0 && rq.lport && !rq.laddr,
	       "CONNECT from an IPv6 socket to an IPv4-mapped address", strerror(errno));
	if (fd >= 0)
		close(fd);
	close(s);
	close(ctl);
	return failures ? 1 : 0;
}

static int listen_reg(int ctl, int fd, uint32_t addr, uint16_t port)
{
	struct eusrv_sor_listen l = { .addr = addr, .port = port, .fd = fd };

	return ioctl(ctl, EUSRV_SOR_LISTEN, &l);
}

/* In a network namespace of its own: LISTEN and CONNECT refused. */
static int guard_netns(int ctl, int node, uint16_t port)
{
	struct eusrv_sor_connect rq = { .node = (uint32_t)node, .port = port };
	int ls;

	if (unshare(CLONE_NEWNET)) {
		result(0, "another network namespace", strerror(errno));
		return 1;
	}
	ls = listening(AF_INET, INADDR_ANY, port, 0);
	expect_err(listen_reg(ctl, ls, 0, port), EADDRNOTAVAIL,
		   "LISTEN from another network namespace: EADDRNOTAVAIL");
	rq.fd = bound_socket(INADDR_ANY, 0);
	expect_err(ioctl(ctl, EUSRV_SOR_CONNECT, &rq), ENETUNREACH,
		   "CONNECT from another network namespace: ENETUNREACH");
	return failures ? 1 : 0;
}

/*
 * Who may register and claim what: listeners peers cannot reach are
 * refused, and only the accepted end of a dummy claims it.
 */
static int do_guard(int node, int port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	struct eusrv_sor_accept a = { .fd = -1 };
	uint16_t p = (uint16_t)port;
	int ctl = ctl_open(), ls, cs, as, st;
	pid_t pid;

	ls = listening(AF_INET, htonl(INADDR_LOOPBACK), p, 0);
	expect_err(listen_reg(ctl, ls, htonl(INADDR_LOOPBACK), p), EADDRNOTAVAIL,
		   "LISTEN on 127.0.0.1: EADDRNOTAVAIL");
	close(ls);
	ls = listening(AF_INET6, 0, p, 1);
	expect_err(listen_reg(ctl, ls, 0, p), EADDRNOTAVAIL,
		   "LISTEN on an IPv6-only socket: EADDRNOTAVAIL");
	close(ls);
	ls = listening(AF_INET, INADDR_ANY, p, 0);
	expect_err(listen_reg(ctl, ls, htonl(INADDR_LOOPBACK), p), EINVAL,
		   "LISTEN naming another address than the socket's: EINVAL");
	result(listen_reg(ctl, ls, 0, p) == 0, "LISTEN on the wildcard",
	       strerror(errno));

	/* A local client's connection is no dummy, from either end. */
	cs = socket(AF_INET, SOCK_STREAM, 0);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sin.sin_port = htons(p);
	as = -1;
	if (cs >= 0 && !connect(cs, (void *)&sin, sizeof(sin)))
		as = accept(ls, NULL, NULL);
	a.fd = as;
	expect_err(ioctl(ctl, EUSRV_SOR_ACCEPT, &a), ENOENT,
		   "ACCEPT of a local client's connection: ENOENT");
	a.fd = cs;
	expect_err(ioctl(ctl, EUSRV_SOR_ACCEPT, &a), ENOENT,
		   "ACCEPT of the client end of a local connection: ENOENT");
	close(as);
	close(cs);
	close(ls);

	pid = fork();
	if (pid == 0)
		_exit(guard_netns(ctl, node, p));
	result(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
	       WEXITSTATUS(st) == 0, "network namespace checks", "see above");
	close(ctl);
	return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "server"))
		return do_server(atoi(argv[2]));
	if (argc == 4 && !strcmp(argv[1], "client"))
		return do_client(atoi(argv[2]), atoi(argv[3]));
	if (argc == 4 && !strcmp(argv[1], "refused"))
		return do_refused(atoi(argv[2]), atoi(argv[3]));
	if (argc == 4 && !strcmp(argv[1], "hold"))
		return do_hold(atoi(argv[2]), atoi(argv[3]));
	if (argc == 4 && !strcmp(argv[1], "nbconnect"))
		return do_nbconnect(atoi(argv[2]), atoi(argv[3]));
	if (argc == 4 && !strcmp(argv[1], "sockcheck"))
		return do_sockcheck(atoi(argv[2]), atoi(argv[3]));
	if (argc == 4 && !strcmp(argv[1], "guard"))
		return do_guard(atoi(argv[2]), atoi(argv[3]));
	if (argc == 2 && !strcmp(argv[1], "badioctl"))
		return do_badioctl();
	if (argc == 3 && !strcmp(argv[1], "scrub-server"))
		return do_scrub_server(atoi(argv[2]));
	if (argc == 4 && !strcmp(argv[1], "scrub"))
		return do_scrub(atoi(argv[2]), atoi(argv[3]));
	if (argc == 3 && !strcmp(argv[1], "drop-server"))
		return do_drop_server(atoi(argv[2]));
	if (argc == 4 && !strcmp(argv[1], "dropped"))
		return do_dropped(atoi(argv[2]), atoi(argv[3]));
	fprintf(stderr, "usage: %s server PORT | client NODE PORT | refused NODE PORT | hold NODE PORT |\n  guard NODE PORT | nbconnect NODE PORT | sockcheck NODE PORT | badioctl |\n  scrub-server PORT | scrub NODE PORT | drop-server PORT | dropped NODE PORT\n",
		argv[0]);
	return 2;
}
