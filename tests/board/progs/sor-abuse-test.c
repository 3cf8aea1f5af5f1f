// SPDX-License-Identifier: GPL-2.0
/*
 * What an unprivileged user may try on the eusrv_sor driver through its
 * raw interface, run by tests/board/60-sor-driver.sh:
 *
 *   sor-limits-test rings NODE PORT CLOSED   ring sizes: above the maximum
 *                                            refused; the maximum to a
 *                                            closed port, every call on
 *                                            the file after; a remote
 *                                            wish capped by the listener
 *   sor-limits-test memlock NODE CLOSED      over RLIMIT_MEMLOCK: EDQUOT at
 *                                            once, no file, nothing held
 *   sor-limits-test userconns NODE CLOSED N  N connections per user, the
 *                                            next one EDQUOT
 *   sor-limits-test tcpfree NODE CLOSED      a set-up that turned to TCP
 *                                            gives its id and rings back
 *                                            while the file stays open
 *   sor-abuse-test grow NODE PORT N          N CONNECTs with small rings to a
 *                                            listener whose larger ones pass
 *                                            our RLIMIT_MEMLOCK: EDQUOT
 *   sor-abuse-test tries NODE PORT N         N CONNECTs: prints how many
 *                                            got a connection
 *   sor-abuse-test squat ADDR PORT SECONDS   listen on ADDR:PORT, register,
 *                                            and claim what comes for
 *                                            SECONDS: prints "claimed N"
 *
 * Prints "ok <what>" / "not ok <what>: <why>" lines; exits 1 on a failure.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <uapi/eusrv/sor.h>

#include "sor-maps.h"
#include "sor-progs.h"

/*
 * CONNECT with ring shifts SHIFT from a fresh bound socket (closed after:
 * the driver holds it); ADDR, if given, is where TCP goes if it fails;
 * INFO, if given, gets what CONNECT said of the connection.
 */
static int connect_info(int ctl, int node, int port, uint32_t flags,
			unsigned int shift, const struct sockaddr_in *addr,
			struct eusrv_sor_info *info)
{
	struct eusrv_sor_connect rq = {
		.node = (uint32_t)node, .port = (uint16_t)port, .flags = flags,
		.snd_shift = (uint8_t)shift, .rcv_shift = (uint8_t)shift,
	};
	struct sockaddr_in sin = { .sin_family = AF_INET };
	int fd;

	if (addr) {
		rq.addr = (uintptr_t)addr;
		rq.addrlen = sizeof(*addr);
	}
	rq.fd = socket(AF_INET, SOCK_STREAM, 0);
	if (rq.fd < 0 || bind(rq.fd, (void *)&sin, sizeof(sin)))
		return -1;
	fd = connect_from(ctl, &rq);
	if (info)
		*info = rq.info;
	return fd;
}

static int connect_shift(int ctl, int node, int port, uint32_t flags,
			 unsigned int shift, const struct sockaddr_in *addr)
{
	return connect_info(ctl, node, port, flags, shift, addr, NULL);
}

static int stats(int ctl, struct eusrv_sor_stats *st)
{
	memset(st, 0, sizeof(*st));
	return ioctl(ctl, EUSRV_SOR_STATS, st);
}

/*
 * Wait up to GRACE_MS for no more to be charged than at S0; the stats as
 * last read into *S1, and how long it waited.  An established
 * connection's rings go when its close handshake with the peer retires
 * it, after close() returned.
 */
static int charge_wait(int ctl, const struct eusrv_sor_stats *s0, int grace_ms,
		       struct eusrv_sor_stats *s1)
{
	int waited = 0;

	for (;;) {
		stats(ctl, s1);
		if (s1->charged_pages <= s0->charged_pages || waited >= grace_ms)
			return waited;
		usleep(10000);
		waited += 10;
	}
}

/* Nothing more charged than at S0 within GRACE_MS (0: at once). */
static void charge_back(int ctl, const struct eusrv_sor_stats *s0, int grace_ms,
			const char *what)
{
	struct eusrv_sor_stats s1;
	char why[80];
	int waited = charge_wait(ctl, s0, grace_ms, &s1);

	snprintf(why, sizeof(why), "charged pages %llu before, %llu after %d ms",
		 (unsigned long long)s0->charged_pages,
		 (unsigned long long)s1.charged_pages, waited);
	result(s1.charged_pages <= s0->charged_pages, what, why);
}

/* Every call a program may make on connection file FD: none may crash. */
static void every_call(int fd)
{
	struct eusrv_sor_wait w = { .events = EUSRV_SOR_W_RECV | EUSRV_SOR_W_SEND,
				    .flags = EUSRV_SOR_F_NONBLOCK };
	struct eusrv_sor_info in;
	struct pollfd p = { .fd = fd, .events = POLLIN | POLLOUT };
	uint32_t which;
	int32_t err;
	char buf[64];
	void *m;
	int n;

	poll(&p, 1, 0);
	ioctl(fd, FIONREAD, &n);
	ioctl(fd, TIOCOUTQ, &n);
	ioctl(fd, EUSRV_SOR_WAIT, &w);
	ioctl(fd, EUSRV_SOR_PUSH);
	ioctl(fd, EUSRV_SOR_CREDIT);
	for (which = EUSRV_SOR_LOCK_SEND; which <= EUSRV_SOR_LOCK_RECV; which++) {
		ioctl(fd, EUSRV_SOR_LOCK_WAIT, &which);
		ioctl(fd, EUSRV_SOR_LOCK_WAKE, &which);
	}
	ioctl(fd, EUSRV_SOR_GET_ERROR, &err);
	if (!ioctl(fd, EUSRV_SOR_INFO, &in)) {
		m = mmap(NULL, in.map_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (m != MAP_FAILED)
			munmap(m, in.map_len);
	}
	fcntl(fd, F_SETFL, O_NONBLOCK);
	if (read(fd, buf, sizeof(buf)) < 0 && errno == EBADF)
		result(0, "read on the connection file", strerror(errno));
	if (write(fd, buf, sizeof(buf)) < 0 && errno == EBADF)
		result(0, "write on the connection file", strerror(errno));
}

static int do_rings(int node, int port, int closed)
{
	struct pollfd p = { .events = POLLIN | POLLOUT };
	struct eusrv_sor_stats s0, s1;
	struct eusrv_sor_info in;
	int ctl = ctl_open(), fd;
	char why[64];

	expect_err(connect_shift(ctl, node, port, 0, EUSRV_SOR_RING_MAX_SHIFT + 1, NULL),
		   EINVAL, "CONNECT with rings above the maximum: EINVAL");
	expect_err(connect_shift(ctl, node, port, EUSRV_SOR_F_NONBLOCK,
				 EUSRV_SOR_RING_MAX_SHIFT + 1, NULL),
		   EINVAL, "non-blocking CONNECT with rings above the maximum: EINVAL");

	/* The largest rings, to a port nobody listens on, in the background. */
	stats(ctl, &s0);
	fd = connect_shift(ctl, node, closed, EUSRV_SOR_F_NONBLOCK,
			   EUSRV_SOR_RING_MAX_SHIFT, NULL);
	result(fd >= 0, "non-blocking CONNECT with the largest rings: a file",
	       strerror(errno));
	if (fd >= 0) {
		every_call(fd);		/* while it sets up */
		p.fd = fd;
		poll(&p, 1, 5000);
		snprintf(why, sizeof(why), "revents %#x", p.revents);
		result(p.revents & POLLERR, "... refused: POLLERR", why);
		every_call(fd);		/* once it failed */
		result(1, "... every call on the failed file returns", "");
		close(fd);
		/* Else a program that tries again at once may hit its limit. */
		charge_back(ctl, &s0, 0, "... its rings' charge is gone when close() returns");
	}

	/* The listener's own sizes (the default) cap what we ask for. */
	stats(ctl, &s0);
	fd = connect_shift(ctl, node, port, 0, EUSRV_SOR_RING_MAX_SHIFT, NULL);
	result(fd >= 0, "CONNECT with the largest rings to a listener", strerror(errno));
	if (fd >= 0 && !ioctl(fd, EUSRV_SOR_INFO, &in)) {
		snprintf(why, sizeof(why), "send %u, receive %u", in.snd_size,
			 in.rcv_size);
		result(in.snd_size == 1U << EUSRV_SOR_RING_DEF_SHIFT &&
		       in.rcv_size == 1U << EUSRV_SOR_RING_DEF_SHIFT,
		       "... rings capped at the listener's own (default) size", why);
		every_call(fd);
	}
	if (fd >= 0)
		close(fd);

	/*
	 * The same with the driver mapping the rings while it waits: made
	 * again at the sizes the listener chose, in our address space (a
	 * 32-bit program's too), the only mapping; nothing charged after.
	 * The connection before first gives its charge back, so that it
	 * cannot hide one this one leaves.
	 */
	charge_wait(ctl, &s0, 10000, &s1);
	s0 = s1;
	fd = connect_info(ctl, node, port, EUSRV_SOR_F_MAP,
			  EUSRV_SOR_RING_MAX_SHIFT, NULL, &in);
	result(fd >= 0, "CONNECT with the largest rings, mapped by the driver",
	       strerror(errno));
	if (fd >= 0) {
		struct eusrv_sor_ring_hdr *h = (void *)(uintptr_t)in.map_addr;
		unsigned long len;
		int n = sor_maps(&len);

		snprintf(why, sizeof(why), "at %#llx, %d mapping(s) of %lu bytes, map_len %llu",
			 (unsigned long long)in.map_addr, n, len,
			 (unsigned long long)in.map_len);
		result(in.map_addr && (uintptr_t)in.map_addr == in.map_addr &&
		       n == 1 && len == in.map_len &&
		       in.snd_size == 1U << EUSRV_SOR_RING_DEF_SHIFT,
		       "... mapped once, at the listener's sizes", why);
		if (h) {
			/* Both headers are there: a fault would kill us. */
			volatile uint32_t *t = &h->tail, *hd =
				&((struct eusrv_sor_ring_hdr *)((char *)h + in.rcv_hdr_off))->head;

			snprintf(why, sizeof(why), "send tail %u, receive head %u", *t, *hd);
			result(1, "... both ring headers readable", why);
			munmap(h, in.map_len);
		}
		every_call(fd);
		close(fd);
		charge_back(ctl, &s0, 10000,
			    "... unmapped and closed: nothing charged once it retired");
	}
	return failures ? 1 : 0;
}

/* Over RLIMIT_MEMLOCK: refused before anything is allocated. */
static int do_memlock(int node, int closed)
{
	struct rlimit rl = { 16384, 16384 };
	struct eusrv_sor_stats s0, s1;
	int ctl = ctl_open(), i;

	if (setrlimit(RLIMIT_MEMLOCK, &rl)) {
		perror("setrlimit");
		return 2;
	}
	stats(ctl, &s0);
	for (i = 0; i < 50; i++)
		if (connect_shift(ctl, node, closed, EUSRV_SOR_F_NONBLOCK, 0, NULL) >= 0 ||
		    errno != EDQUOT)
			break;
	result(i == 50, "50 non-blocking CONNECTs over RLIMIT_MEMLOCK: EDQUOT at once",
	       strerror(errno));
	expect_err(connect_shift(ctl, node, closed, 0, 0, NULL), EDQUOT,
		   "blocking CONNECT over RLIMIT_MEMLOCK: EDQUOT");
	stats(ctl, &s1);
	result(s1.conns <= s0.conns, "... no connection left behind", "more connections");
	return failures ? 1 : 0;
}

/* N connections of one user, then EDQUOT (max_user_conns is N). */
static int do_userconns(int node, int closed, int n)
{
	int ctl = ctl_open(), i, fd = -1;
	char why[64];
	int *fds = calloc((size_t)n, sizeof(*fds));

	if (!fds)
		return 2;
	for (i = 0; i < n; i++) {
		fds[i] = connect_shift(ctl, node, closed, EUSRV_SOR_F_NONBLOCK, 12, NULL);
		if (fds[i] < 0)
			break;
	}
	snprintf(why, sizeof(why), "connection %d: %s", i, strerror(errno));
	result(i == n, "connections up to the per-user bound", why);
	if (i == n) {
		fd = connect_shift(ctl, node, closed, EUSRV_SOR_F_NONBLOCK, 12, NULL);
		expect_err(fd, EDQUOT, "one more: EDQUOT");
	}
	if (fd >= 0)
		close(fd);
	while (i-- > 0)
		close(fds[i]);
	free(fds);
	return failures ? 1 : 0;
}

/* Whether connection ID is in the node's live list. */
static int listed(int ctl, uint32_t id)
{
	static struct eusrv_sor_conn_stat cs[EUSRV_SOR_MAX_CONNS];
	struct eusrv_sor_list li = { .count = EUSRV_SOR_MAX_CONNS,
				     .conns = (uintptr_t)cs };
	uint32_t i;

	if (ioctl(ctl, EUSRV_SOR_LIST, &li))
		return -1;
	for (i = 0; i < li.total && i < li.count; i++)
		if (cs[i].id == id && !cs[i].closed)
			return 1;
	return 0;
}

/*
 * TCP_STARTED on a file turned to TCP: only a user-visible errno becomes
 * the socket's error (a kernel-internal one such as EIOCBQUEUED, 529,
 * returned by read(), hits vfs_read's BUG_ON: the fuzz found it); then a
 * read of the unconnected socket says that error.
 */
static void tcp_started(int fd)
{
	static const int bad[] = { -1, 512, 529, 4095, 4096 };
	int e = ECONNREFUSED;
	unsigned int i;
	char b;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		expect_err(ioctl(fd, EUSRV_SOR_TCP_STARTED, &bad[i]), EINVAL,
			   "TCP_STARTED with a kernel-internal or impossible errno: EINVAL");
	result(!ioctl(fd, EUSRV_SOR_TCP_STARTED, &e),
	       "TCP_STARTED with ECONNREFUSED", strerror(errno));
	result(read(fd, &b, 1) == -1 && errno == ECONNREFUSED,
	       "... a read then says ECONNREFUSED", strerror(errno));
}

/* A set-up turned to TCP: its id and rings go while the file stays. */
static int do_tcpfree(int node, int closed)
{
	struct sockaddr_in to = { .sin_family = AF_INET,
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK),
				  .sin_port = htons((uint16_t)closed) };
	struct eusrv_sor_info in;
	int ctl = ctl_open(), fd, i, l = 1;
	char why[64];

	/* TCP goes only where the program was going: the port asked. */
	to.sin_port = htons((uint16_t)(closed + 1));
	expect_err(connect_shift(ctl, node, closed, EUSRV_SOR_F_NONBLOCK, 0, &to),
		   EINVAL, "a TCP address on another port than asked: EINVAL");
	to.sin_family = AF_UNIX;
	to.sin_port = htons((uint16_t)closed);
	expect_err(connect_shift(ctl, node, closed, EUSRV_SOR_F_NONBLOCK, 0, &to),
		   EINVAL, "a TCP address that is no IP address: EINVAL");
	to.sin_family = AF_INET;
	fd = connect_shift(ctl, node, closed, EUSRV_SOR_F_NONBLOCK, 0, &to);
	if (fd < 0 || ioctl(fd, EUSRV_SOR_INFO, &in)) {
		result(0, "non-blocking CONNECT with a TCP address", strerror(errno));
		return 1;
	}
	for (i = 0; i < 100; i++) {
		if (!ioctl(fd, EUSRV_SOR_INFO, &in) && in.state == EUSRV_SOR_ST_TCP &&
		    (l = listed(ctl, in.id)) == 0)
			break;
		usleep(100000);
	}
	snprintf(why, sizeof(why), "state %u, listed %d after %d s", in.state, l, i / 10);
	result(in.state == EUSRV_SOR_ST_TCP && l == 0,
	       "refused, turned to TCP: its id goes within 10 s, the file stays", why);
	tcp_started(fd);
	every_call(fd);
	close(fd);
	return failures ? 1 : 0;
}

/*
 * Small rings fit our limit, the listener's (default) sizes do not: each
 * CONNECT fails with EDQUOT once ACCEPT says them, after the server set
 * its side up (which must not stay behind: suite 60 counts them).
 */
static int do_grow(int node, int port, int n)
{
	struct rlimit rl = { 65536, 65536 };
	int ctl = ctl_open(), i;
	unsigned long len;

	if (setrlimit(RLIMIT_MEMLOCK, &rl)) {
		perror("setrlimit");
		return 2;
	}
	/* Every other one maps its rings while it waits: they go too. */
	for (i = 0; i < n; i++)
		if (connect_shift(ctl, node, port, i & 1 ? EUSRV_SOR_F_MAP : 0, 12,
				  NULL) >= 0 || errno != EDQUOT)
			break;
	result(i == n, "CONNECTs whose rings ACCEPT grew past RLIMIT_MEMLOCK: EDQUOT",
	       strerror(errno));
	result(sor_maps(&len) == 0, "... no mapping left behind", "");
	return failures ? 1 : 0;
}

static int do_tries(int node, int port, int n)
{
	int ctl = ctl_open(), i, fd, got = 0;

	for (i = 0; i < n; i++) {
		fd = connect_shift(ctl, node, port, 0, 0, NULL);
		if (fd >= 0) {
			got++;
			close(fd);
		} else {
			printf("CONNECT %d: %s\n", i, strerror(errno));
		}
	}
	printf("connected %d of %d\n", got, n);
	return 0;
}

/*
 * A listener on ADDR:PORT, registered: how many RDMA connections it
 * claims in SECONDS (a second listener on another of the node's addresses
 * must get none of the first one's clients).
 */
static int do_squat(const char *addr, int port, int secs)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_port = htons((uint16_t)port) };
	struct eusrv_sor_listen l = { .port = (uint16_t)port };
	struct eusrv_sor_accept a = { .flags = EUSRV_SOR_F_CLOEXEC };
	int ctl = ctl_open(), ls, s, one = 1, claimed = 0;
	struct pollfd p = { .events = POLLIN };
	time_t end;

	ls = socket(AF_INET, SOCK_STREAM, 0);
	if (ls < 0 || inet_pton(AF_INET, addr, &sin.sin_addr) != 1 ||
	    setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(ls, (void *)&sin, sizeof(sin)) || listen(ls, 16)) {
		perror("listen");
		return 2;
	}
	l.fd = ls;
	l.addr = sin.sin_addr.s_addr;
	if (ioctl(ctl, EUSRV_SOR_LISTEN, &l)) {
		perror("LISTEN");
		return 2;
	}
	printf("listening\n");
	fflush(stdout);
	p.fd = ls;
	for (end = time(NULL) + secs; time(NULL) < end;) {
		if (poll(&p, 1, 200) != 1)
			continue;
		s = accept(ls, NULL, NULL);
		if (s < 0)
			continue;
		a.fd = s;
		if (ioctl(ctl, EUSRV_SOR_ACCEPT, &a) >= 0)
			claimed++;
		close(s);
	}
	printf("claimed %d\n", claimed);
	return 0;
}

int main(int argc, char **argv)
{
	/* A write on a file turned to a refused TCP socket: EPIPE, not death. */
	signal(SIGPIPE, SIG_IGN);
	if (argc == 5 && !strcmp(argv[1], "rings"))
		return do_rings(atoi(argv[2]), atoi(argv[3]), atoi(argv[4]));
	if (argc == 4 && !strcmp(argv[1], "memlock"))
		return do_memlock(atoi(argv[2]), atoi(argv[3]));
	if (argc == 5 && !strcmp(argv[1], "userconns"))
		return do_userconns(atoi(argv[2]), atoi(argv[3]), atoi(argv[4]));
	if (argc == 4 && !strcmp(argv[1], "tcpfree"))
		return do_tcpfree(atoi(argv[2]), atoi(argv[3]));
	if (argc == 5 && !strcmp(argv[1], "grow"))
		return do_grow(atoi(argv[2]), atoi(argv[3]), atoi(argv[4]));
	if (argc == 5 && !strcmp(argv[1], "tries"))
		return do_tries(atoi(argv[2]), atoi(argv[3]), atoi(argv[4]));
	if (argc == 5 && !strcmp(argv[1], "squat"))
		return do_squat(argv[2], atoi(argv[3]), atoi(argv[4]));
	fprintf(stderr, "usage: %s rings NODE PORT CLOSED | memlock NODE CLOSED |\n"
		"  userconns NODE CLOSED N | tcpfree NODE CLOSED | grow NODE PORT N |\n"
		"  tries NODE PORT N |\n"
		"  squat ADDR PORT SECONDS\n",
		argv[0]);
	return 2;
}
