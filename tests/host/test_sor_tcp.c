// SPDX-License-Identifier: MIT
/*
 * The driver-absent path of libeusrv-preload.so: with no /dev/eusrv_sor,
 * programs under the library must behave exactly as without it.  This
 * program runs a set of TCP scenarios on 127.0.0.1 (data, EOF, ECONNREFUSED,
 * EPIPE and SIGPIPE, ECONNRESET, non-blocking connect and recv, MSG_PEEK,
 * half-close, dup, fork, sendfile, readv/writev, sendmsg/recvmsg, fstat,
 * accept4 flags, poll, epoll) once without and once with the library
 * preloaded, and compares what they print line by line; then runs nc and
 * curl under eusrv-run and checks their data and status.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tap.h"

#ifndef SOR_LIB
#error "SOR_LIB: the preload library to test"
#endif
#ifndef SOR_LIB_PLAIN
#define SOR_LIB_PLAIN SOR_LIB
#endif
#ifndef SOR_RUN
#error "SOR_RUN: eusrv-run"
#endif

#define BIG	(300 * 1024)

static const char *en(int e)
{
	static char b[32];

	switch (e) {
	case 0: return "0";
	case EAGAIN: return "EAGAIN";
	case ECONNREFUSED: return "ECONNREFUSED";
	case EPIPE: return "EPIPE";
	case ECONNRESET: return "ECONNRESET";
	case EINPROGRESS: return "EINPROGRESS";
	case EISCONN: return "EISCONN";
	case ENOTCONN: return "ENOTCONN";
	case EBADF: return "EBADF";
	case EINVAL: return "EINVAL";
	case EADDRNOTAVAIL: return "EADDRNOTAVAIL";
	case EAFNOSUPPORT: return "EAFNOSUPPORT";
	case ENETUNREACH: return "ENETUNREACH";
	default:
		snprintf(b, sizeof(b), "errno%d", e);
		return b;
	}
}

static struct sockaddr_in lo(int port)
{
	struct sockaddr_in a;

	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_port = htons((uint16_t)port);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	return a;
}

/* A listener on 127.0.0.1, port chosen by the kernel. */
static int listener(int *port)
{
	struct sockaddr_in a = lo(0);
	socklen_t l = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) ||
	    listen(fd, 16) || getsockname(fd, (struct sockaddr *)&a, &l))
		tap_bail("listener: %s", strerror(errno));
	*port = ntohs(a.sin_port);
	return fd;
}

static int dial(int port)
{
	struct sockaddr_in a = lo(port);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	if (connect(fd, (struct sockaddr *)&a, sizeof(a)))
		tap_bail("connect: %s", strerror(errno));
	return fd;
}

/* A connected pair: *c client, *s server side. */
static void pair(int *c, int *s)
{
	int port, l = listener(&port);

	*c = dial(port);
	*s = accept(l, NULL, NULL);
	close(l);
}

static unsigned char pat(size_t i)
{
	return (unsigned char)(i * 7 + i / 251);
}

static ssize_t read_full(int fd, unsigned char *b, size_t n)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = read(fd, b + got, n - got);

		if (r <= 0)
			return r < 0 ? r : (ssize_t)got;
		got += (size_t)r;
	}
	return (ssize_t)got;
}

static volatile sig_atomic_t sigpipes;

static void on_sigpipe(int s)
{
	(void)s;
	sigpipes++;
}

static void scenarios(void)
{
	static unsigned char buf[BIG], back[BIG];
	struct sockaddr_in a;
	socklen_t l;
	int c, s, port, lfd, v, r, e;
	size_t i;
	char small[64];

	for (i = 0; i < BIG; i++)
		buf[i] = pat(i);

	/* connection refused */
	lfd = listener(&port);
	close(lfd);
	c = socket(AF_INET, SOCK_STREAM, 0);
	a = lo(port);
	r = connect(c, (struct sockaddr *)&a, sizeof(a));
	printf("refused: connect=%d errno=%s\n", r, en(r ? errno : 0));
	close(c);

	/* data both ways through a forked echo server */
	pair(&c, &s);
	if (fork() == 0) {
		ssize_t n;

		close(c);
		while ((n = read(s, back, sizeof(back))) > 0)
			if (write(s, back, (size_t)n) != n)
				_exit(1);
		_exit(0);
	}
	close(s);
	{
		size_t sent = 0, got = 0;

		memset(back, 0, sizeof(back));
		while (sent < BIG) {
			ssize_t n = write(c, buf + sent, BIG - sent < 8192 ? BIG - sent : 8192);

			if (n <= 0)
				break;
			sent += (size_t)n;
			n = recv(c, back + got, sent - got, MSG_WAITALL);
			if (n > 0)
				got += (size_t)n;
		}
		printf("echo: sent=%zu got=%zu same=%d\n", sent, got, !memcmp(buf, back, BIG));
	}
	shutdown(c, SHUT_WR);
	printf("echo: eof=%zd\n", read(c, small, sizeof(small)));
	close(c);
	wait(NULL);

	/* EOF after data; MSG_PEEK; non-blocking recv */
	pair(&c, &s);
	r = recv(c, small, 4, MSG_DONTWAIT);
	printf("dontwait empty: %d %s\n", r, en(r < 0 ? errno : 0));
	fcntl(c, F_SETFL, fcntl(c, F_GETFL) | O_NONBLOCK);
	r = (int)read(c, small, 4);
	printf("nonblock empty: %d %s\n", r, en(r < 0 ? errno : 0));
	fcntl(c, F_SETFL, fcntl(c, F_GETFL) & ~O_NONBLOCK);
	if (write(s, "0123456789", 10) != 10)
		printf("write failed\n");
	close(s);
	{
		struct pollfd p = { .fd = c, .events = POLLIN };

		r = poll(&p, 1, 5000);
		printf("poll: %d revents_in=%d\n", r, !!(p.revents & POLLIN));
	}
	r = (int)recv(c, small, 4, MSG_PEEK);
	printf("peek: %d %.4s\n", r, small);
	r = (int)recv(c, small, sizeof(small), MSG_WAITALL);
	printf("waitall to eof: %d %.10s\n", r, small);
	r = (int)read(c, small, 4);
	printf("eof: %d", r);
	printf(" %zd\n", recv(c, small, 4, 0));
	close(c);

	/* EPIPE (MSG_NOSIGNAL) and SIGPIPE (write) after the peer closed */
	signal(SIGPIPE, on_sigpipe);
	pair(&c, &s);
	close(s);
	usleep(50000);
	r = (int)send(c, "x", 1, MSG_NOSIGNAL);
	usleep(50000);
	do {
		r = (int)send(c, "x", 1, MSG_NOSIGNAL);
	} while (r == 1);
	e = errno;
	printf("after peer close: send=%d %s sigpipes=%d\n", r, en(e), (int)sigpipes);
	r = (int)write(c, "x", 1);
	printf("write: %d %s sigpipes=%d\n", r, en(r < 0 ? errno : 0), (int)sigpipes);
	close(c);
	signal(SIGPIPE, SIG_DFL);

	/* ECONNRESET: the peer aborts (SO_LINGER 0) */
	pair(&c, &s);
	{
		struct linger lg = { .l_onoff = 1, .l_linger = 0 };

		setsockopt(s, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	}
	close(s);
	usleep(50000);
	r = (int)read(c, small, 4);
	printf("reset: read=%d %s\n", r, en(r < 0 ? errno : 0));
	l = sizeof(v);
	getsockopt(c, SOL_SOCKET, SO_ERROR, &v, &l);
	printf("reset: so_error=%s", en(v));
	printf(" then read=%zd\n", read(c, small, 4));
	close(c);

	/* non-blocking connect */
	lfd = listener(&port);
	c = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
	a = lo(port);
	r = connect(c, (struct sockaddr *)&a, sizeof(a));
	e = errno;
	{
		struct pollfd p = { .fd = c, .events = POLLOUT };

		poll(&p, 1, 5000);
		l = sizeof(v);
		getsockopt(c, SOL_SOCKET, SO_ERROR, &v, &l);
		printf("nb connect: %s pollout=%d so_error=%s\n",
		       r == 0 ? "0" : en(e) , !!(p.revents & POLLOUT), en(v));
	}
	r = connect(c, (struct sockaddr *)&a, sizeof(a));
	printf("connect again: %d %s\n", r, en(r < 0 ? errno : 0));
	s = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	printf("accept4 flags: nonblock=%d cloexec=%d\n",
	       !!(fcntl(s, F_GETFL) & O_NONBLOCK), !!(fcntl(s, F_GETFD) & FD_CLOEXEC));
	close(lfd);
	close(c);
	close(s);

	/* half-close: the client shuts down writing, then reads the answer */
	pair(&c, &s);
	shutdown(c, SHUT_WR);
	r = (int)read(s, small, 4);
	printf("half-close: server read=%d\n", r);
	printf("half-close: server write=%zd\n", write(s, "late", 4));
	printf("half-close: client read=%zd\n", read(c, small, 8));
	r = (int)send(c, "y", 1, MSG_NOSIGNAL);
	printf("half-close: client send=%d %s\n", r, en(r < 0 ? errno : 0));
	close(c);
	close(s);

	/* names, options, fstat */
	pair(&c, &s);
	l = sizeof(a);
	getpeername(c, (struct sockaddr *)&a, &l);
	{
		struct sockaddr_in b;
		socklen_t bl = sizeof(b);
		struct stat st;

		getsockname(s, (struct sockaddr *)&b, &bl);
		printf("names: len=%u same_port=%d addr=%08x\n", l,
		       a.sin_port == b.sin_port, ntohl(a.sin_addr.s_addr));
		l = sizeof(v);
		getsockopt(c, SOL_SOCKET, SO_TYPE, &v, &l);
		printf("so_type=%d len=%u\n", v, l);
		v = 1;
		printf("nodelay set=%d", setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &v, sizeof(v)));
		v = 0;
		l = sizeof(v);
		getsockopt(c, IPPROTO_TCP, TCP_NODELAY, &v, &l);
		printf(" get=%d\n", v);
		fstat(c, &st);
		printf("fstat: sock=%d\n", S_ISSOCK(st.st_mode));
	}
	/* dup, dup2, dup3, F_DUPFD: all write to the same connection */
	{
		int d1 = dup(c), d2 = dup2(c, 100), d3 = dup3(c, 101, O_CLOEXEC);
		int d4 = fcntl(c, F_DUPFD_CLOEXEC, 200);

		close(c);
		printf("dups: %d %d %d %d\n", d1 >= 0, d2, d3, d4 >= 200);
		r = (int)(write(d1, "a", 1) + write(d2, "b", 1) + write(d3, "c", 1) +
			  write(d4, "d", 1));
		printf("dup writes=%d", r);
		printf(" read=%zd\n", read_full(s, (unsigned char *)small, 4));
		close(d1);
		close(d2);
		close(d3);
		c = d4;
	}
	/* fork: the child writes on the inherited socket */
	if (fork() == 0) {
		_exit(write(c, "child", 5) == 5 ? 0 : 1);
	}
	wait(&v);
	r = (int)read_full(s, (unsigned char *)small, 5);
	printf("fork: child=%d read=%d\n", WEXITSTATUS(v), r);
	/* readv/writev, sendmsg/recvmsg */
	{
		struct iovec w[2] = { { "abc", 3 }, { "defgh", 5 } };
		char x1[2], x2[10];
		struct iovec rv[2] = { { x1, 2 }, { x2, 6 } };
		struct msghdr m;

		printf("writev=%zd", writev(c, w, 2));
		r = (int)readv(s, rv, 2);
		printf(" readv=%d %.2s%.6s\n", r, x1, x2);
		memset(&m, 0, sizeof(m));
		m.msg_iov = w;
		m.msg_iovlen = 2;
		printf("sendmsg=%zd", sendmsg(c, &m, 0));
		m.msg_iov = rv;
		r = (int)recvmsg(s, &m, MSG_WAITALL);
		printf(" recvmsg=%d flags=%d\n", r, m.msg_flags);
	}
	/* sendfile from a temporary file */
	{
		char path[] = "/tmp/sor-tcp-XXXXXX";
		int f = mkstemp(path);
		off_t off = 1000;
		ssize_t n;

		unlink(path);
		n = write(f, buf, 100000);
		n = sendfile(c, f, &off, 50000);
		printf("sendfile=%zd off=%ld", n, (long)off);
		memset(back, 0, 50000);
		n = read_full(s, back, 50000);
		printf(" got=%zd same=%d\n", n, !memcmp(back, buf + 1000, 50000));
		close(f);
	}
	/* epoll: data makes the other side readable */
	{
		int ep = epoll_create1(EPOLL_CLOEXEC);
		struct epoll_event ev = { .events = EPOLLIN | EPOLLET };

		epoll_ctl(ep, EPOLL_CTL_ADD, s, &ev);
		r = epoll_wait(ep, &ev, 1, 0);
		printf("epoll idle=%d", r);
		if (write(c, "e", 1) != 1)
			printf(" (write failed)");
		r = epoll_wait(ep, &ev, 1, 5000);
		printf(" after write=%d in=%d", r, !!(ev.events & EPOLLIN));
		r = epoll_wait(ep, &ev, 1, 0);
		printf(" edge again=%d\n", r);
		close(ep);
	}
	close(c);
	close(s);
	r = (int)write(c, "x", 1);
	printf("closed fd: %d %s\n", r, en(errno));

	/* IPv6: refused on ::1 or no IPv6 at all: the same either way */
	c = socket(AF_INET6, SOCK_STREAM, 0);
	{
		struct sockaddr_in6 a6;

		memset(&a6, 0, sizeof(a6));
		a6.sin6_family = AF_INET6;
		a6.sin6_port = htons(1);
		a6.sin6_addr = in6addr_loopback;
		r = c < 0 ? -1 : connect(c, (struct sockaddr *)&a6, sizeof(a6));
		printf("ipv6: %d %s\n", r, en(r < 0 ? errno : 0));
	}
	if (c >= 0)
		close(c);

	/* Descriptors that are no socket at all: EBADF from every call. */
	{
		struct msghdr m;
		struct iovec v1 = { small, sizeof(small) };
		int bad[2] = { -1, 1000 };

		memset(&m, 0, sizeof(m));
		m.msg_iov = &v1;
		m.msg_iovlen = 1;
		for (i = 0; i < 2; i++) {
			errno = 0;
			r = (int)read(bad[i], small, 1);
			e = errno;
			printf("bad fd %d: read %d %s", bad[i], r, en(e));
			errno = 0;
			r = (int)recvmsg(bad[i], &m, 0);
			e = errno;
			printf(", recvmsg %d %s", r, en(e));
			errno = 0;
			r = (int)send(bad[i], "x", 1, MSG_NOSIGNAL);
			e = errno;
			printf(", send %d %s", r, en(e));
			errno = 0;
			r = recvmmsg(bad[i], NULL, 0, 0, NULL);
			e = errno;
			printf(", recvmmsg %d %s\n", r, en(e));
		}
	}
	fflush(stdout);
}

/* ---- the driver: run the scenarios both ways and compare ---- */

static char *run(const char *cmd, int *status)
{
	static char out[2][65536];
	static int which;
	char *o = out[which++ % 2];
	size_t n = 0;
	FILE *p = popen(cmd, "r");

	if (!p)
		tap_bail("popen %s", cmd);
	while (n < sizeof(out[0]) - 1 && fgets(o + n, (int)(sizeof(out[0]) - n), p))
		n += strlen(o + n);
	o[n] = '\0';
	*status = pclose(p);
	return o;
}

static void compare(const char *self)
{
	char cmd[2048], *plain, *pre, *a, *b, err[256];
	int st1, st2;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "%s scenarios 2>&1", self);
	plain = strdup(run(cmd, &st1));
	snprintf(cmd, sizeof(cmd),
		 "EUSRV_SOR_TEST=1 ASAN_OPTIONS=$ASAN_OPTIONS:verify_asan_link_order=0 "
		 "LD_PRELOAD=%s %s scenarios 2>/tmp/sor-tcp-stderr.$$; "
		 "s=$?; cat /tmp/sor-tcp-stderr.$$ >&2; rm -f /tmp/sor-tcp-stderr.$$; exit $s",
		 SOR_LIB, self);
	pre = strdup(run(cmd, &st2));
	ok(st1 == 0 && st2 == 0, "scenarios exit 0 both ways (%d, %d)", st1, st2);
	ok(strstr(pre, "preload=yes") && strstr(plain, "preload=no"),
	   "the library was loaded in the second run only");
	a = plain;
	b = pre;
	while (*a || *b) {
		char *ea = strchr(a, '\n'), *eb = strchr(b, '\n');
		size_t la = ea ? (size_t)(ea - a) : strlen(a);
		size_t lb = eb ? (size_t)(eb - b) : strlen(b);

		if (!strncmp(a, "preload=", 8) && !strncmp(b, "preload=", 8)) {
			/* expected to differ */
		} else {
			ok(la == lb && !memcmp(a, b, la), "same with the library: %.*s%s%.*s",
			   (int)la, a, la == lb && !memcmp(a, b, la) ? "" : " | with: ",
			   la == lb && !memcmp(a, b, la) ? 0 : (int)lb, b);
		}
		a += la + (ea ? 1 : 0);
		b += lb + (eb ? 1 : 0);
	}
	free(plain);
	free(pre);
	/* And nothing on standard error (no driver: silent). */
	snprintf(cmd, sizeof(cmd), "LD_PRELOAD=%s /bin/true 2>&1", SOR_LIB_PLAIN);
	f = popen(cmd, "r");
	err[0] = '\0';
	if (f) {
		if (!fgets(err, sizeof(err), f))
			err[0] = '\0';
		pclose(f);
	}
	ok(!err[0], "no driver: the library says nothing (%s)", err);
}

static void real_programs(void)
{
	char cmd[2048];
	int st;
	char *out;

	/* nc: 2 MB over 127.0.0.1, both ends under eusrv-run */
	snprintf(cmd, sizeof(cmd),
		 "set -e; d=$(mktemp -d); trap 'rm -rf $d' EXIT; "
		 "head -c 2097152 /dev/urandom >$d/in; "
		 "port=$((20000 + $$ %% 20000)); "
		 "%s nc -l -N 127.0.0.1 $port >$d/out & sleep 0.5; "
		 "%s nc -N 127.0.0.1 $port <$d/in; wait; "
		 "cmp $d/in $d/out && echo same", SOR_RUN, SOR_RUN);
	out = run(cmd, &st);
	ok(st == 0 && strstr(out, "same"), "nc under eusrv-run: 2 MB verified (%s)", out);
	/* curl to a closed port: the same status with and without */
	out = run("curl -sS -m 5 http://127.0.0.1:1/ >/dev/null 2>&1; echo $?", &st);
	{
		char a[16];

		snprintf(a, sizeof(a), "%s", out);
		snprintf(cmd, sizeof(cmd), "%s curl -sS -m 5 http://127.0.0.1:1/ >/dev/null 2>&1; echo $?",
			 SOR_RUN);
		out = run(cmd, &st);
		ok(!strcmp(a, out), "curl to a closed port: same exit status (%.3s)", a);
	}
	snprintf(cmd, sizeof(cmd), "%s sh -c 'exit 3'; echo $?", SOR_RUN);
	out = run(cmd, &st);
	ok(!strcmp(out, "3\n"), "eusrv-run passes the exit status through");
	snprintf(cmd, sizeof(cmd), "%s 2>&1; echo $?", SOR_RUN);
	out = run(cmd, &st);
	ok(strstr(out, "eusrv-run CMD [ARGS...]:") && strlen(out) >= 2 &&
	   !strcmp(out + strlen(out) - 2, "2\n"),
	   "eusrv-run with no command: its usage, status 2");
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "scenarios")) {
		FILE *m = fopen("/proc/self/maps", "r");
		char line[512];
		bool pre = false;

		while (m && fgets(line, sizeof(line), m))
			pre |= strstr(line, "libeusrv-preload") != NULL;
		if (m)
			fclose(m);
		printf("preload=%s\n", pre ? "yes" : "no");
		scenarios();
		return 0;
	}
	if (access("/dev/eusrv_sor", F_OK) == 0) {
		printf("1..0 # SKIP the driver is loaded here: not the driver-absent path\n");
		return 0;
	}
	{
		static char self[512];
		ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

		if (n <= 0)
			tap_bail("readlink /proc/self/exe");
		self[n] = '\0';
		compare(self);
	}
	real_programs();
	return tap_done();
}
