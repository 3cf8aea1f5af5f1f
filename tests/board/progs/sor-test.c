// SPDX-License-Identifier: MIT
/*
 * Socket programs for the sockets-over-RDMA board suite (70-sor-apps.sh):
 * a forking server and clients that exercise what real programs do with a
 * connection: data integrity both ways, fork (parent and child share a
 * connection), threads (concurrent senders and a receiver), the dup family,
 * epoll (edge and level triggered, one fd in two sets), non-blocking
 * connect/send/recv, half-close, the call surface (select, poll, MSG_*
 * flags, FIONREAD/SIOCOUTQ, names, IPv4-mapped IPv6), every socket option
 * and the names as TCP gives them, close with unread
 * data, close with data still queued (a slow reader), the peer killed, many connections at once, connect/close cycles,
 * and a program that scribbles over its ring header and sends garbage
 * ioctls.  Every byte is checked.  Prints "ok MODE ..." and exits 0, or
 * says what went wrong and exits 1.
 *
 *   sor-test serve PORT                 one process per connection
 *   sor-test serve-tcp PORT             the same, its listener unknown to
 *                                       the driver (clients stay on TCP)
 *   sor-test serve-many PORT            one process, epoll, small rings
 *   sor-test MODE HOST PORT [N]         MODE: integrity fork threads dup
 *                                       epoll nonblock halfclose calls
 *                                       unread peerkill closeflush
 *                                       closestall soak sockopts
 *                                       forgotten stress (serve);
 *                                       many cycles scribble resized
 *                                       (serve-many)
 *
 * Built with -DSOR_TEST_RAW_CONNECT, the clients connect with
 * syscall(SYS_connect, ...), which no libc can intercept (suite 76).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include <linux/sockios.h>
#include <uapi/eusrv/sor.h>

#include "sor-maps.h"

#define REC		64	/* record size of the fork/threads tests */
#define THREADS		4
#define PER_THREAD	3000
#define SMALL_BUF	4096	/* ring wish of serve-many and its clients */
#define EMFILE_HELLO	"hello, emfile"	/* serve-emfile's greeting */

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

/* Send C bytes (at most 64 KiB) of pattern SEED from stream position POS. */
static ssize_t send_pat(int fd, uint64_t pos, size_t c, unsigned int seed)
{
	static unsigned char out[65536];
	size_t k;

	if (c > sizeof(out))
		c = sizeof(out);
	for (k = 0; k < c; k++)
		out[k] = pat(pos + k, seed);
	return send(fd, out, c, MSG_NOSIGNAL);
}

/* How many of the N bytes at IN are not pattern SEED from position POS. */
static uint64_t pat_bad(const unsigned char *in, size_t n, uint64_t pos, unsigned int seed)
{
	uint64_t bad = 0;
	size_t k;

	for (k = 0; k < n; k++)
		bad += in[k] != pat(pos + k, seed);
	return bad;
}

/* Up to 1 s for FD to become readable, or writable unless SHUT: revents. */
static short poll_rw(int fd, bool shut, const char *what)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	if (!shut)
		p.events |= POLLOUT;
	if (poll(&p, 1, 1000) < 0 && errno != EINTR)
		die(what);
	return p.revents;
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

		if (r <= 0)
			die("integrity: read");
		bad += pat_bad((const unsigned char *)buf, (size_t)r, i, 1);
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

/*
 * Close-flush: N bytes (the length comes first; at most two default
 * rings, the send ring's and the peer's, so that the writes end whether
 * or not the client reads), then close at once.  The client is blocked in
 * recv by then, so the first write starts a transfer at once; the rest is
 * queued behind it when the close comes.  The kernel must keep the
 * connection until the client has taken every byte.
 */
static void serve_closeflush(int fd)
{
	static unsigned char buf[1 << 19];
	uint64_t n, i;

	if (read_all(fd, &n, sizeof(n)) != sizeof(n) || n < 2 || n > sizeof(buf))
		fail("closeflush: no length, or not 2..512 KiB");
	for (i = 0; i < n; i++)
		buf[i] = pat(i, 3);
	usleep(200000);
	/* Half starts the transfer, the other half queues behind it. */
	write_all(fd, buf, (size_t)n / 2);
	write_all(fd, buf + n / 2, (size_t)(n - n / 2));
}

/* Echo the first N bytes (the length comes first), then close at once. */
static void serve_echo_cut(int fd)
{
	static char buf[65536];
	uint64_t n, done = 0;
	ssize_t r;

	if (read_all(fd, &n, sizeof(n)) != sizeof(n))
		fail("cut: no length");
	while (done < n) {
		size_t want = n - done < sizeof(buf) ? (size_t)(n - done) : sizeof(buf);

		r = read(fd, buf, want);
		if (r <= 0)
			break;
		write_all(fd, buf, (size_t)r);
		done += (uint64_t)r;
	}
}

/* Sink: reads nothing for a second (the client's ring fills), then all. */
static void serve_sink(int fd)
{
	sleep(1);
	serve_halfclose(fd);
}

/* ---- descriptors that outlive their process's view of them ---- */

#define FACE_TIMEO_S	7	/* SO_RCVTIMEO set before an exec or a pass */

/*
 * FD, which this process did not create, is the same socket it was: a
 * socket to fstat, a stream with a peer, and (WITH_OPTS) the receive
 * timeout and TCP_NODELAY set before the hand-over.  Returns a reason or
 * NULL.
 */
static const char *same_socket(int fd, bool with_opts)
{
	struct sockaddr_storage ss;
	socklen_t l = sizeof(ss);
	struct timeval tv;
	struct stat st;
	int v = 0;

	if (fstat(fd, &st) || !S_ISSOCK(st.st_mode))
		return "fstat does not say socket";
	if (getpeername(fd, (struct sockaddr *)&ss, &l) || ss.ss_family != AF_INET)
		return "getpeername";
	l = sizeof(v);
	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &v, &l) || v != SOCK_STREAM)
		return "SO_TYPE";
	if (!with_opts)
		return NULL;
	l = sizeof(tv);
	if (getsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, &l) ||
	    tv.tv_sec != FACE_TIMEO_S)
		return "SO_RCVTIMEO set before the hand-over is lost";
	l = sizeof(v);
	if (getsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &v, &l) || !v)
		return "TCP_NODELAY set before the hand-over is lost";
	return NULL;
}

static void set_face_opts(int fd)
{
	struct timeval tv = { .tv_sec = FACE_TIMEO_S };
	int one = 1;

	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
	    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)))
		die("setsockopt");
}

/* Echo from IN to OUT with the socket calls until EOF. */
static void echo_calls(int in, int out)
{
	static char buf[65536];
	ssize_t r;

	while ((r = recv(in, buf, sizeof(buf), 0)) > 0) {
		ssize_t k = 0;

		while (k < r) {
			ssize_t w = send(out, buf + k, (size_t)(r - k), MSG_NOSIGNAL);

			if (w <= 0)
				die("echo: send");
			k += w;
		}
	}
	if (r < 0)
		die("echo: recv");
}

/* The handler an exec'd process runs on FD (IN/OUT): status, then echo. */
static int handler(int in, int out, bool with_opts)
{
	const char *why = same_socket(in, with_opts);

	if (!why && in != out)
		why = same_socket(out, false);
	if (why) {
		fprintf(stderr, "%s: %s\n", mode, why);
		write_all(out, "F", 1);
		return 1;
	}
	write_all(out, "K", 1);
	echo_calls(in, out);
	return 0;
}

/* An inetd-style hand-over: the connection on fd 0 and 1 of a new image. */
static void exec_inetd(int fd)
{
	if (dup2(fd, 0) < 0 || dup2(fd, 1) < 0)
		die("dup2");
	close(fd);
	execl("/proc/self/exe", "sor-test", "inetd-echo", (char *)NULL);
	die("exec");
}

/* A server that re-execs itself with the accepted connection (and options). */
static void exec_self(int fd)
{
	char arg[16];

	set_face_opts(fd);
	snprintf(arg, sizeof(arg), "%d", fd);
	execl("/proc/self/exe", "sor-test", "reexec-echo", arg, (char *)NULL);
	die("exec");
}

/* Close with SO_LINGER {1, 0}: a reset, not a FIN. */
static void linger_reset(int fd)
{
	struct linger lg = { .l_onoff = 1, .l_linger = 0 };

	if (setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg)))
		die("SO_LINGER");
	write_all(fd, "queued", 6);	/* dropped by the reset, or not */
	close(fd);
	_exit(0);
}

/* Ring (and socket buffer) wishes of the small connections. */
static void small_bufs(int fd)
{
	int v = SMALL_BUF;

	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &v, sizeof(v));
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v));
}

/* serve-tcp: listen past the library, so no client comes over RDMA. */
static bool raw_listen;

/* A listening TCP socket on PORT (any address); SMALL: small rings. */
static int listen_on(int port, int backlog, bool small)
{
	struct sockaddr_in a;
	int l = socket(AF_INET, SOCK_STREAM, 0), one = 1;

	if (l < 0)
		die("socket");
	setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (small)
		small_bufs(l);
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_port = htons((uint16_t)port);
	if (bind(l, (struct sockaddr *)&a, sizeof(a)) ||
	    (raw_listen ? syscall(SYS_listen, l, backlog) : listen(l, backlog)))
		die("bind/listen");
	return l;
}

/* The next connection on L; a signal or an aborted client is no failure. */
static int accept_next(int l)
{
	for (;;) {
		int fd = accept(l, NULL, NULL);

		if (fd >= 0)
			return fd;
		if (errno != EINTR && errno != ECONNABORTED)
			die("accept");
	}
}

static void serve_sockopts(int fd);
static bool is_rdma(int fd);

static int serve(int port)
{
	int l = listen_on(port, 128, false);

	signal(SIGCHLD, SIG_IGN);
	for (;;) {
		char what;
		int fd = accept_next(l);

		if (fork() == 0) {
			close(l);
			if (read_all(fd, &what, 1) != 1)
				_exit(0);
			switch (what) {
			case 'I': serve_integrity(fd); break;
			case 'E': serve_echo(fd); break;
			case 'H': serve_halfclose(fd); break;
			case 'S': serve_sink(fd); break;
			case 'C': serve_closeflush(fd); break;
			case 'R': serve_echo_cut(fd); break;
			case 'U': sleep(1); break;	/* close with unread data */
			case 'X': exec_inetd(fd); break;
			case 'L': linger_reset(fd); break;
			case 'Y': exec_self(fd); break;
			case 'K': raise(SIGKILL); break;
			case 'O': serve_sockopts(fd); break;
			default: fail("unknown test");
			}
			close(fd);
			_exit(0);
		}
		close(fd);	/* the child has it: the connection must live on */
	}
}

/* ---- clients ---- */

/* A connection to HOST:PORT; SMALL: with small rings. */
/* HOST:PORT as an IPv4 stream address (freeaddrinfo when done). */
static struct addrinfo *resolve(const char *host, const char *port)
{
	struct addrinfo hints, *res;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_INET;
	hints.ai_socktype = SOCK_STREAM;
	if (getaddrinfo(host, port, &hints, &res))
		fail("getaddrinfo");
	return res;
}

static int dial(const char *host, const char *port, int flags, bool small)
{
	struct addrinfo *res = resolve(host, port);
	int fd, r;

	fd = socket(AF_INET, SOCK_STREAM | flags, 0);
	if (fd < 0)
		die("socket");
	if (small)
		small_bufs(fd);
#ifdef SOR_TEST_RAW_CONNECT
	r = (int)syscall(SYS_connect, fd, res->ai_addr, res->ai_addrlen);
#else
	r = connect(fd, res->ai_addr, res->ai_addrlen);
#endif
	freeaddrinfo(res);
	if (r && !(flags & SOCK_NONBLOCK && errno == EINPROGRESS))
		die("connect");
	return fd;
}

static int start(const char *host, const char *port, char test)
{
	int fd = dial(host, port, 0, false);

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
		ssize_t r = recv(fd, buf, sizeof(buf), 0);

		if (r <= 0)
			die("recv back");
		bad += pat_bad((const unsigned char *)buf, (size_t)r, i, 2);
		i += (uint64_t)r;
	}
	if (bad)
		fail("corrupted bytes from the server");
	if (recv(fd, buf, 1, 0) != 0)
		fail("no EOF after the data");
	close(fd);
	printf("ok integrity bytes=%llu both ways\n", (unsigned long long)n);
}

/*
 * The server closes with most of N bytes queued behind a transfer in
 * flight; this side takes the first piece, then pauses and reads the
 * rest in small pieces, so that no read request of ours comes before
 * that transfer ends (the interleaving that made a closing connection
 * vanish on the server and this side wait for ever).  Ten connections;
 * a hang fails after 60 s.
 */
static void t_closeflush(const char *host, const char *port, uint64_t n)
{
	static unsigned char buf[4096];
	unsigned int round;

	alarm(60);
	for (round = 0; round < 10; round++) {
		int fd = start(host, port, 'C');
		uint64_t i = 0, bad = 0;
		ssize_t r;

		write_all(fd, &n, sizeof(n));
		while ((r = recv(fd, buf, sizeof(buf), 0)) > 0) {
			bad += pat_bad((const unsigned char *)buf, (size_t)r, i, 3);
			if (!i)
				usleep(300000);
			i += (uint64_t)r;
		}
		if (r < 0)
			die("recv");
		if (i != n || bad) {
			fprintf(stderr, "closeflush: round %u: %llu of %llu bytes, %llu wrong\n",
				round, (unsigned long long)i,
				(unsigned long long)n, (unsigned long long)bad);
			fail("closeflush: data lost or corrupted");
		}
		close(fd);
	}
	alarm(0);
	printf("ok closeflush 10 x %llu bytes after the server's close\n",
	       (unsigned long long)n);
}

/*
 * The same, but this side stops reading for 8 s after the first piece,
 * with more than its ring sent: a closed connection with data queued
 * waits for a reader that is alive but slow, as TCP's orphaned socket
 * probes a zero window for minutes.
 */
static void t_closestall(const char *host, const char *port, uint64_t n)
{
	static unsigned char buf[4096];
	int fd = start(host, port, 'C');
	uint64_t i = 0, bad = 0;
	ssize_t r;

	alarm(60);
	write_all(fd, &n, sizeof(n));
	while ((r = recv(fd, buf, sizeof(buf), 0)) > 0) {
		bad += pat_bad((const unsigned char *)buf, (size_t)r, i, 3);
		if (!i)
			sleep(8);
		i += (uint64_t)r;
	}
	if (r < 0)
		die("closestall: recv");
	if (i != n || bad) {
		fprintf(stderr, "closestall: %llu of %llu bytes, %llu wrong\n",
			(unsigned long long)i, (unsigned long long)n,
			(unsigned long long)bad);
		fail("closestall: data lost or corrupted");
	}
	close(fd);
	alarm(0);
	printf("ok closestall %llu bytes after the server's close, the reader 8 s away\n",
	       (unsigned long long)n);
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

static void t_fork(const char *host, const char *port, uint64_t n)
{
	unsigned char r[REC];
	unsigned long count[256] = { 0 };
	uint32_t last[256] = { 0 }, i;
	int fd = start(host, port, 'E'), st;
	pid_t pid = fork();

	(void)n;

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

static void t_threads(const char *host, const char *port, uint64_t n)
{
	pthread_t t[THREADS];
	unsigned char r[REC];
	unsigned long count[256] = { 0 }, total = 0;
	uint32_t last[256] = { 0 };
	int i;

	(void)n;

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

static void t_dup(const char *host, const char *port, uint64_t n)
{
	int fd = start(host, port, 'E'), d1, d2, d3, d4;
	char b[8];
	struct stat st;
	socklen_t l;
	int type = 0;

	(void)n;

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
	static unsigned char in[65536];
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
				ssize_t w = send_pat(fd, sent, (size_t)(n - sent), 3);

				if (w < 0 && errno == EAGAIN)
					break;
				if (w <= 0)
					die("send");
				sent += (uint64_t)w;
			}
			for (;;) {
				ssize_t r = recv(fd, in, sizeof(in), 0);

				if (r < 0 && errno == EAGAIN)
					break;
				if (r <= 0)
					die("recv");
				bad += pat_bad((const unsigned char *)in, (size_t)r, got, 3);
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

static void t_nonblock(const char *host, const char *port, uint64_t n)
{
	static char buf[1 << 20];
	int fd = dial(host, port, SOCK_NONBLOCK, false), err = -1, full = 0;
	struct pollfd p = { .fd = fd, .events = POLLOUT };
	socklen_t l = sizeof(err);
	uint64_t total = 0;
	char reply[64];
	ssize_t r;

	(void)n;

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

/* ---- serve-many: one process, epoll, echo, small rings ---- */

static void more_files(void)
{
	struct rlimit r;

	if (getrlimit(RLIMIT_NOFILE, &r) == 0 && r.rlim_cur < r.rlim_max) {
		r.rlim_cur = r.rlim_max < 8192 ? r.rlim_max : 8192;
		setrlimit(RLIMIT_NOFILE, &r);
	}
}

static void serve_many(int port)
{
	static char buf[SMALL_BUF];
	struct epoll_event ev = { .events = EPOLLIN }, evs[64];
	int l, ep, i, k;

	more_files();
	signal(SIGPIPE, SIG_IGN);
	l = listen_on(port, 1024, true);
	ep = epoll_create1(0);
	ev.data.fd = l;
	if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, l, &ev))
		die("epoll");
	for (;;) {
		k = epoll_wait(ep, evs, 64, -1);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			die("epoll_wait");
		for (i = 0; i < k; i++) {
			int fd = evs[i].data.fd;
			ssize_t r;

			if (fd == l) {
				fd = accept4(l, NULL, NULL, SOCK_NONBLOCK);
				if (fd < 0)
					continue;
				ev.events = EPOLLIN;
				ev.data.fd = fd;
				if (epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev))
					close(fd);
				continue;
			}
			/* Echo what is there; the clients send little at a time. */
			r = read(fd, buf, sizeof(buf));
			if (r < 0 && errno == EAGAIN)
				continue;
			if (r <= 0 || write(fd, buf, (size_t)r) != r)
				close(fd);	/* also leaves the epoll set */
		}
	}
}

/* ---- the call surface ---- */

static void wait_fionread(int fd, int want)
{
	int n = -1, i;

	for (i = 0; i < 1000; i++) {
		if (ioctl(fd, FIONREAD, &n))
			die("FIONREAD");
		if (n >= want)
			break;
		usleep(10000);
	}
	if (n != want)
		fail("FIONREAD does not count the bytes that arrived");
}

static void t_calls(const char *host, const char *port, uint64_t unused)
{
	char out[100], in[100], big[300];
	int fd = start(host, port, 'E'), n = -1, v = 0, fd6, i;
	struct sockaddr_storage ss;
	struct sockaddr_in sin;
	struct sockaddr_in6 s6;
	struct iovec iov[3];
	struct msghdr mh;
	struct pollfd p = { .fd = fd, .events = POLLIN };
	struct timeval tv = { .tv_sec = 10 };
	socklen_t l = sizeof(ss);
	fd_set rs, ws;

	(void)unused;

	for (i = 0; i < (int)sizeof(out); i++)
		out[i] = (char)('A' + i % 26);
	FD_ZERO(&ws);
	FD_SET(fd, &ws);
	if (select(fd + 1, NULL, &ws, NULL, &tv) != 1 || !FD_ISSET(fd, &ws))
		fail("select: not writable");
	if (sendto(fd, out, sizeof(out), MSG_NOSIGNAL, NULL, 0) != sizeof(out))
		die("sendto");
	FD_ZERO(&rs);
	FD_SET(fd, &rs);
	tv.tv_sec = 10;
	if (select(fd + 1, &rs, NULL, NULL, &tv) != 1 || !FD_ISSET(fd, &rs))
		fail("select: the echo is not readable");
	if (poll(&p, 1, 10000) != 1 || !(p.revents & POLLIN))
		fail("poll: the echo is not readable");
	wait_fionread(fd, (int)sizeof(out));
	if (recv(fd, in, 10, MSG_PEEK) != 10 || memcmp(in, out, 10))
		fail("MSG_PEEK");
	wait_fionread(fd, (int)sizeof(out));	/* peeking takes nothing */
	if (recvfrom(fd, in, sizeof(in), MSG_DONTWAIT, NULL, NULL) != sizeof(in) ||
	    memcmp(in, out, sizeof(in)))
		fail("recvfrom MSG_DONTWAIT: not the echo");
	if (recv(fd, in, 1, MSG_DONTWAIT) != -1 || errno != EAGAIN)
		fail("MSG_DONTWAIT on an empty socket: no EAGAIN");
	if (ioctl(fd, SIOCOUTQ, &n) || n != 0)
		fail("SIOCOUTQ after the echo came back is not 0");

	/* sendmsg of three pieces, MSG_WAITALL across two echoes */
	iov[0].iov_base = out;
	iov[0].iov_len = 30;
	iov[1].iov_base = out + 30;
	iov[1].iov_len = 0;
	iov[2].iov_base = out + 30;
	iov[2].iov_len = 70;
	memset(&mh, 0, sizeof(mh));
	mh.msg_iov = iov;
	mh.msg_iovlen = 3;
	if (sendmsg(fd, &mh, MSG_NOSIGNAL) != sizeof(out))
		die("sendmsg");
	usleep(100000);
	write_all(fd, out, sizeof(out));
	if (recv(fd, big, 2 * sizeof(out), MSG_WAITALL) != 2 * sizeof(out) ||
	    memcmp(big, out, sizeof(out)) || memcmp(big + sizeof(out), out, sizeof(out)))
		fail("MSG_WAITALL across two sends");
	write_all(fd, out, sizeof(out));
	iov[0].iov_base = in;
	iov[0].iov_len = 40;
	iov[1].iov_base = in + 40;
	iov[1].iov_len = 60;
	memset(&mh, 0, sizeof(mh));
	mh.msg_iov = iov;
	mh.msg_iovlen = 2;
	if (recvmsg(fd, &mh, MSG_WAITALL) != sizeof(in) || memcmp(in, out, sizeof(in)))
		fail("recvmsg into two pieces");

	/* names */
	if (getpeername(fd, (struct sockaddr *)&ss, &l) || l != sizeof(sin))
		fail("getpeername");
	memcpy(&sin, &ss, sizeof(sin));
	if (sin.sin_family != AF_INET || ntohs(sin.sin_port) != atoi(port))
		fail("getpeername: not the server's address");
	l = sizeof(ss);
	if (getsockname(fd, (struct sockaddr *)&ss, &l) || l != sizeof(sin))
		fail("getsockname");
	memcpy(&sin, &ss, sizeof(sin));
	if (sin.sin_family != AF_INET || !sin.sin_port || !sin.sin_addr.s_addr)
		fail("getsockname: no local address");
	l = sizeof(v);
	if (getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, &l) || v < 256 * 1024)
		fail("SO_RCVBUF below the 256 KB default ring");
	close(fd);

	/* An IPv6 socket to the IPv4-mapped address talks IPv4. */
	fd = start(host, port, 'E');
	l = sizeof(sin);
	if (getpeername(fd, (struct sockaddr *)&sin, &l))
		die("getpeername");
	close(fd);
	memset(&s6, 0, sizeof(s6));
	s6.sin6_family = AF_INET6;
	s6.sin6_port = sin.sin_port;
	s6.sin6_addr.s6_addr[10] = 0xff;
	s6.sin6_addr.s6_addr[11] = 0xff;
	memcpy(&s6.sin6_addr.s6_addr[12], &sin.sin_addr, 4);
	fd6 = socket(AF_INET6, SOCK_STREAM, 0);
	if (fd6 < 0 || connect(fd6, (struct sockaddr *)&s6, sizeof(s6)))
		die("connect to the IPv4-mapped address");
	write_all(fd6, "Ehello", 6);
	if (read_all(fd6, in, 5) != 5 || memcmp(in, "hello", 5))
		fail("IPv4-mapped: no echo");
	l = sizeof(ss);
	l = sizeof(s6);
	memset(&s6, 0, sizeof(s6));
	if (getpeername(fd6, (struct sockaddr *)&s6, &l) || l != sizeof(s6) ||
	    s6.sin6_family != AF_INET6 || !IN6_IS_ADDR_V4MAPPED(&s6.sin6_addr) ||
	    ntohs(s6.sin6_port) != atoi(port))
		fail("IPv4-mapped: getpeername is not the IPv4-mapped server address");
	close(fd6);
	printf("ok calls select poll MSG_PEEK/DONTWAIT/WAITALL FIONREAD SIOCOUTQ sendmsg recvmsg names ipv4-mapped\n");
}

/* ---- endings: unread data, the peer killed ---- */

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* What a blocked recv gets when the peer goes: 0 or -errno, and how fast. */
static int wait_end(int fd, double *took)
{
	char b[64];
	double t0 = now_s();
	ssize_t r;

	do
		r = recv(fd, b, sizeof(b), 0);
	while (r > 0);
	*took = now_s() - t0;
	return r < 0 ? -errno : 0;
}

static void t_unread(const char *host, const char *port, uint64_t n)
{
	static char buf[4096];
	int fd = start(host, port, 'U'), e;
	double took;

	(void)n;

	memset(buf, 'u', sizeof(buf));
	write_all(fd, buf, sizeof(buf));
	/* TCP: closing with unread data resets the connection. */
	e = wait_end(fd, &took);
	if (e != -ECONNRESET)
		fail(e ? "recv: not ECONNRESET" : "recv: EOF, not ECONNRESET");
	if (send(fd, buf, 1, MSG_NOSIGNAL) != -1 || (errno != EPIPE && errno != ECONNRESET))
		fail("send after the reset did not fail");
	close(fd);
	printf("ok unread peer closed with unread data: ECONNRESET after %.2f s\n", took);
}

static void t_peerkill(const char *host, const char *port, uint64_t n)
{
	int fd = start(host, port, 'K'), e;
	double took;

	(void)n;

	/* Nothing unread on the peer's side: TCP gives EOF (ECONNRESET is fine). */
	e = wait_end(fd, &took);
	if (e && e != -ECONNRESET)
		fail("recv after the peer was killed: neither EOF nor ECONNRESET");
	if (took > 5.0)
		fail("the end took longer than 5 s");
	close(fd);
	printf("ok peerkill %s after %.2f s\n", e ? "ECONNRESET" : "EOF", took);
}

/* ---- load: many connections at once, connect/close cycles ---- */

static void echo_check(int fd, uint32_t tag)
{
	uint32_t back = 0;

	write_all(fd, &tag, sizeof(tag));
	if (read_all(fd, &back, sizeof(back)) != sizeof(back) || back != tag)
		fail("wrong echo");
}

static void t_many(const char *host, const char *port, uint64_t n)
{
	int *fds = calloc(n, sizeof(*fds));
	uint64_t i;
	double t0 = now_s();

	if (!fds)
		fail("no memory");
	more_files();
	for (i = 0; i < n; i++)
		fds[i] = dial(host, port, 0, true);
	/* All open at once: each still answers. */
	for (i = 0; i < n; i++)
		echo_check(fds[i], (uint32_t)i);
	for (i = 0; i < n; i++)
		close(fds[i]);
	free(fds);
	printf("ok many connections=%llu open at once, each echoed, %.1f s\n",
	       (unsigned long long)n, now_s() - t0);
}

static void t_cycles(const char *host, const char *port, uint64_t n)
{
	double t0 = now_s();
	uint64_t i;

	for (i = 0; i < n; i++) {
		int fd = dial(host, port, 0, true);

		echo_check(fd, (uint32_t)i);
		close(fd);
	}
	printf("ok cycles connect/echo/close=%llu in %.1f s (%.2f ms each)\n",
	       (unsigned long long)n, now_s() - t0, (now_s() - t0) * 1e3 / (double)n);
}

/* ---- a hostile program: its own ring header and garbage ioctls ---- */

/* The connection's commands that take a pointer. */
static const struct {
	unsigned long cmd;
	const char *name;
} conn_cmds[] = {
	{ EUSRV_SOR_INFO, "INFO" },
	{ EUSRV_SOR_WAIT, "WAIT" },
	{ EUSRV_SOR_SHUTDOWN, "SHUTDOWN" },
	{ EUSRV_SOR_GET_ERROR, "GET_ERROR" },
	{ EUSRV_SOR_LOCK_WAIT, "LOCK_WAIT" },
	{ EUSRV_SOR_LOCK_WAKE, "LOCK_WAKE" },
};

/* The control file's commands, which a connection must refuse. */
static const unsigned long ctl_cmds[] = {
	EUSRV_SOR_LISTEN, EUSRV_SOR_UNLISTEN, EUSRV_SOR_CONNECT, EUSRV_SOR_ACCEPT,
	EUSRV_SOR_NOTE, EUSRV_SOR_LIST, EUSRV_SOR_STATS,
};

static void t_scribble(const char *host, const char *port, uint64_t n)
{
	int a = dial(host, port, 0, true), b = dial(host, port, 0, true), e = 0;
	struct eusrv_sor_ring_hdr *h;
	struct eusrv_sor_info in;
	unsigned int cmd;
	socklen_t l = sizeof(e);
	char c = 'x';
	void *m;
	int i;

	(void)n;

	echo_check(a, 1);
	echo_check(b, 2);
	memset(&in, 0, sizeof(in));
	if (ioctl(a, EUSRV_SOR_INFO, &in))
		die("INFO: the connection is not over RDMA");
	m = mmap(NULL, in.map_len, PROT_READ | PROT_WRITE, MAP_SHARED, a, 0);
	if (m == MAP_FAILED)
		die("mmap");
	/* Every defined connection command with a bad pointer: EFAULT. */
	for (i = 0; i < (int)(sizeof(conn_cmds) / sizeof(conn_cmds[0])); i++) {
		if (ioctl(i & 1 ? a : b, conn_cmds[i].cmd, (void *)16) != -1 ||
		    errno != EFAULT) {
			fprintf(stderr, "%s: %s\n", mode, conn_cmds[i].name);
			fail("a connection command with a bad pointer: not EFAULT");
		}
	}
	/* Commands a connection does not know (every number of the magic
	 * with a size no command has, and the control file's): ENOTTY.
	 */
	for (cmd = 0; cmd < 0x40; cmd++) {
		if (ioctl(cmd & 1 ? a : b,
			  _IOC(_IOC_READ | _IOC_WRITE, EUSRV_SOR_IOC_MAGIC, cmd, 64),
			  (void *)16) != -1 || errno != ENOTTY)
			fail("an undefined command on a connection: not ENOTTY");
	}
	for (i = 0; i < (int)(sizeof(ctl_cmds) / sizeof(ctl_cmds[0])); i++)
		if (ioctl(a, ctl_cmds[i], &in) != -1 || errno != ENOTTY)
			fail("a control-file command on a connection: not ENOTTY");
	/* The send ring's tail far ahead, the receive head behind. */
	h = (struct eusrv_sor_ring_hdr *)((char *)m + in.snd_hdr_off);
	h->tail = h->head + 3 * in.snd_size + 17;
	h = (struct eusrv_sor_ring_hdr *)((char *)m + in.rcv_hdr_off);
	h->head -= 12345;
	for (i = 0; i < 50; i++) {
		if (send(a, &c, 1, MSG_NOSIGNAL | MSG_DONTWAIT) < 0 && errno != EAGAIN)
			break;
		usleep(20000);
	}
	if (i == 50)
		fail("sending with a scribbled ring did not fail");
	if (getsockopt(a, SOL_SOCKET, SO_ERROR, &e, &l))
		die("SO_ERROR");
	munmap(m, in.map_len);
	close(a);
	/* The other connection does not notice. */
	for (i = 0; i < 1000; i++)
		echo_check(b, (uint32_t)i);
	close(b);
	printf("ok scribble the scribbled connection failed (%s), the other one echoed 1000 times\n",
	       strerror(e ? e : errno));
}

/* A connection that took too long: both sides' state for the log, then fail. */
static void soak_stuck(uint64_t i, uint64_t sent, uint64_t got)
{
	fprintf(stderr, "soak: connection %llu took more than 30 s: sent %llu, echoed %llu\n",
		(unsigned long long)i, (unsigned long long)sent,
		(unsigned long long)got);
	fflush(stderr);
	if (system("echo '# this node:'; eusrvctl conns; eusrvctl stats") < 0)
		perror("system");
	fail("soak: a connection hung");
}

/*
 * N connections one after the other, each echoing 1 MB (seed = its
 * number) through serve's 'E': non-blocking, driven by poll, every byte
 * checked.  One that takes more than 30 s dumps this node's connections
 * and fails (the suite then dumps the server node's).
 */
/*
 * As start(), but with a non-blocking connect() that sets up in the
 * background: writable (POLLOUT) within 30 s, SO_ERROR 0.
 */
static int start_nb(const char *host, const char *port, char test)
{
	int fd = dial(host, port, SOCK_NONBLOCK, false), so = -1;
	struct pollfd p = { .fd = fd, .events = POLLOUT };
	socklen_t sl = sizeof(so);

	if (poll(&p, 1, 30000) != 1 || !(p.revents & POLLOUT))
		fail("non-blocking connect(): not writable within 30 s");
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &so, &sl) || so)
		fail("non-blocking connect(): SO_ERROR not 0");
	write_all(fd, &test, 1);
	return fd;
}

static void t_soak(const char *host, const char *port, uint64_t n)
{
	static unsigned char in[65536];
	const uint64_t len = 1 << 20;
	double t0 = now_s();
	uint64_t i;

	for (i = 0; i < n; i++) {
		/* Every other one set up in the background. */
		int fd = i % 2 ? start_nb(host, port, 'E') : start(host, port, 'E');
		uint64_t sent = 0, got = 0, bad = 0;
		double start_s = now_s();
		bool shut = false;

		if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK))
			die("soak: O_NONBLOCK");
		for (;;) {
			short ev = poll_rw(fd, shut, "soak: poll");
			ssize_t r;

			if (now_s() - start_s > 30)
				soak_stuck(i, sent, got);
			if (!shut && (ev & POLLOUT)) {
				r = send_pat(fd, sent, (size_t)(len - sent), (unsigned int)i);
				if (r < 0 && errno != EAGAIN)
					die("soak: send");
				if (r > 0)
					sent += (uint64_t)r;
				if (sent == len) {
					if (shutdown(fd, SHUT_WR))
						die("soak: shutdown");
					shut = true;
				}
			}
			r = recv(fd, in, sizeof(in), 0);
			if (r < 0 && errno != EAGAIN)
				die("soak: recv");
			if (r == 0)
				break;
			if (r > 0) {
				bad += pat_bad(in, (size_t)r, got, (unsigned int)i);
				got += (uint64_t)r;
			}
		}
		if (got != len || bad) {
			fprintf(stderr, "soak: connection %llu: %llu of %llu bytes back, %llu wrong\n",
				(unsigned long long)i, (unsigned long long)got,
				(unsigned long long)len, (unsigned long long)bad);
			fail("soak: data lost or corrupted");
		}
		close(fd);
	}
	printf("ok soak %llu connections (half of them non-blocking) x 1 MB echoed and checked in %.1f s\n",
	       (unsigned long long)n, now_s() - t0);
}

/*
 * The peer forgets this connection (the suite writes its id into the
 * driver's debugfs "forget" on the other node once "ready" is printed):
 * a blocked recv (N = 0) or a writer that fills the window (N = 1) must
 * fail with ECONNRESET, not wait for ever.  Prints how long it took.
 */
static void t_forgotten(const char *host, const char *port, uint64_t n)
{
	static char buf[65536];
	int fd = start(host, port, 'S');
	double t0;
	ssize_t r;

	memset(buf, 'x', sizeof(buf));
	if (n) {
		/* Fill what the peer's sink takes in its first second. */
		write_all(fd, buf, 1);
	}
	printf("ready\n");
	fflush(stdout);
	alarm(60);
	t0 = now_s();
	for (;;) {
		r = n ? send(fd, buf, sizeof(buf), MSG_NOSIGNAL) :
			recv(fd, buf, sizeof(buf), 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
	}
	if (r == 0 || (errno != ECONNRESET && errno != EPIPE))
		fail(r ? strerror(errno) : "EOF instead of a reset");
	printf("ok forgotten %s: %s after %.2f s\n", n ? "writer" : "reader",
	       strerror(errno), now_s() - t0);
}

/*
 * N connections in child processes, each ending its own way at a random
 * point of the transfer in both directions: a full echo, close() with
 * data in flight, shutdown(SHUT_WR) then the echo to EOF, SIGKILL, and
 * the server closing after a random count.  Every byte that comes back is
 * checked; every child must end within 30 s (a hang fails); the counts
 * must be exact where the ending makes them so.
 */
#define STRESS_CHUNK	16384U

static void stress_one(const char *host, const char *port, unsigned int i)
{
	static unsigned char in[65536];
	unsigned int how = i % 5;
	uint64_t cut = 1 + (uint64_t)((i * 2654435761U) % 700000U);
	uint64_t len = how == 0 ? (1 << 20) : cut + 300000, sent = 0, got = 0;
	int fd = start(host, port, how == 4 ? 'R' : 'E');
	bool shut = false;

	alarm(30);
	if (how == 4)
		write_all(fd, &cut, sizeof(cut));
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK))
		die("stress: O_NONBLOCK");
	for (;;) {
		short ev = poll_rw(fd, shut, "stress: poll");
		ssize_t r;

		if (!shut && (how == 1 || how == 3) && sent >= cut) {
			if (how == 3)
				raise(SIGKILL);
			close(fd);
			_exit(0);
		}
		if (!shut && (ev & POLLOUT)) {
			size_t c = len - sent < STRESS_CHUNK ? (size_t)(len - sent) : STRESS_CHUNK;

			if (how == 2 && sent + c > cut)
				c = (size_t)(cut - sent);
			r = send_pat(fd, sent, c, i);
			if (r < 0 && errno != EAGAIN) {
				if (how == 4 && (errno == ECONNRESET || errno == EPIPE))
					break;
				die("stress: send");
			}
			if (r > 0)
				sent += (uint64_t)r;
			if (sent == len || (how == 2 && sent == cut)) {
				/*
				 * The server that closes early may have reset
				 * the connection by now: TCP's shutdown then
				 * fails with ENOTCONN too.
				 */
				if (shutdown(fd, SHUT_WR)) {
					if (how == 4 && errno == ENOTCONN)
						break;
					die("stress: shutdown");
				}
				shut = true;
			}
		}
		r = recv(fd, in, sizeof(in), 0);
		if (r < 0 && errno == EAGAIN)
			continue;
		if (r < 0 && how == 4 && errno == ECONNRESET)
			break;
		if (r < 0)
			die("stress: recv");
		if (r == 0)
			break;
		if (pat_bad(in, (size_t)r, got, i))
			fail("stress: a wrong byte came back");
		got += (uint64_t)r;
	}
	if ((how == 0 && got != len) || (how == 2 && got != cut) ||
	    (how == 4 && got > cut)) {
		fprintf(stderr, "stress: connection %u (ending %u): %llu bytes back, cut %llu, sent %llu\n",
			i, how, (unsigned long long)got, (unsigned long long)cut,
			(unsigned long long)sent);
		fail("stress: wrong count");
	}
	close(fd);
	_exit(0);
}

static void t_stress(const char *host, const char *port, uint64_t n)
{
	unsigned int i, bad = 0, running = 0;
	double t0 = now_s();
	int st;

	for (i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid < 0)
			die("fork");
		if (!pid)
			stress_one(host, port, i);
		/* A few at a time, so that endings overlap. */
		if (++running == 4) {
			if (wait(&st) < 0)
				die("wait");
			running--;
			bad += !(WIFEXITED(st) && !WEXITSTATUS(st)) &&
			       !(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
		}
	}
	while (running--) {
		if (wait(&st) < 0)
			die("wait");
		bad += !(WIFEXITED(st) && !WEXITSTATUS(st)) &&
		       !(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	}
	if (bad) {
		fprintf(stderr, "stress: %u of %llu connections failed or hung\n",
			bad, (unsigned long long)n);
		if (system("eusrvctl conns; eusrvctl stats") < 0)
			perror("system");
		fail("stress: failures");
	}
	printf("ok stress %llu connections ended at random points, all checked, in %.1f s\n",
	       (unsigned long long)n, now_s() - t0);
}

/* Echo-check N bytes on FD, in rounds of CHUNK (at most 64 KB) bytes. */
static void echo_rounds(int fd, uint64_t n, size_t chunk)
{
	static unsigned char out[65536], in[65536];
	uint64_t done = 0;

	if (chunk > sizeof(out))
		chunk = sizeof(out);
	while (done < n) {
		size_t k = n - done < chunk ? (size_t)(n - done) : chunk, i;

		for (i = 0; i < k; i++)
			out[i] = pat(done + i, 11);
		write_all(fd, out, k);
		if (read_all(fd, in, k) != k || memcmp(in, out, k))
			fail("echo differs");
		done += k;
	}
}

/* A server's exec'd handler (X: inetd-style, Y: re-exec) echoes N bytes. */
static void handed_over(const char *host, const char *port, uint64_t n,
			char test)
{
	int fd = start(host, port, test);
	char st = 0;

	if (read_all(fd, &st, 1) != 1 || st != 'K')
		fail("the exec'd handler does not see a socket (see its stderr)");
	echo_rounds(fd, n, 65536);
	shutdown(fd, SHUT_WR);
	if (read_all(fd, &st, 1) != 0)
		fail("no EOF after the echo");
	close(fd);
	printf("ok %s: %llu bytes echoed by the exec'd handler, checked\n", mode,
	       (unsigned long long)n);
}

static void t_inetd(const char *host, const char *port, uint64_t n)
{
	handed_over(host, port, n, 'X');
}

static void t_reexec(const char *host, const char *port, uint64_t n)
{
	handed_over(host, port, n, 'Y');
}


/* The client hands its connection to a new image (fork, exec). */
static void t_execclient(const char *host, const char *port, uint64_t n)
{
	int fd = start(host, port, 'E'), st;
	char a[16], b[24];
	pid_t pid;

	set_face_opts(fd);
	echo_rounds(fd, 4096, 4096);	/* used before the hand-over */
	snprintf(a, sizeof(a), "%d", fd);
	snprintf(b, sizeof(b), "%llu", (unsigned long long)n);
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		execl("/proc/self/exe", "sor-test", "exec-child", a, b, (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		fail("the exec'd child failed with the connection");
	echo_rounds(fd, 4096, 4096);	/* and still ours afterwards */
	close(fd);
	printf("ok %s: the connection served %llu bytes in an exec'd child\n", mode,
	       (unsigned long long)n);
}

/* The client passes its connection to another process (SCM_RIGHTS). */
static void t_passfd(const char *host, const char *port, uint64_t n)
{
	char cbuf[CMSG_SPACE(sizeof(int))], one = 'p';
	struct iovec v = { .iov_base = &one, .iov_len = 1 };
	struct msghdr m = { .msg_iov = &v, .msg_iovlen = 1 };
	struct cmsghdr *cm;
	int sp[2], fd, st;
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sp))
		die("socketpair");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		const char *why;

		close(sp[0]);
		m.msg_control = cbuf;
		m.msg_controllen = sizeof(cbuf);
		if (recvmsg(sp[1], &m, 0) != 1 || !(cm = CMSG_FIRSTHDR(&m)) ||
		    cm->cmsg_type != SCM_RIGHTS)
			_exit(2);
		memcpy(&fd, CMSG_DATA(cm), sizeof(fd));
		why = same_socket(fd, true);
		if (why) {
			fprintf(stderr, "passfd: %s\n", why);
			_exit(3);
		}
		echo_rounds(fd, n, 4096);
		_exit(0);
	}
	close(sp[1]);
	fd = start(host, port, 'E');
	set_face_opts(fd);
	m.msg_control = cbuf;
	m.msg_controllen = sizeof(cbuf);
	cm = CMSG_FIRSTHDR(&m);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(fd));
	if (sendmsg(sp[0], &m, 0) != 1)
		die("sendmsg SCM_RIGHTS");
	close(fd);
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		fail("the receiving process failed with the connection");
	printf("ok %s: the passed connection served %llu bytes\n", mode,
	       (unsigned long long)n);
}

/* ---- signals ---- */

static volatile sig_atomic_t alarms;

static void on_alarm(int sig)
{
	(void)sig;
	alarms++;
}

/* SIGALRM after MS milliseconds, its handler installed with FLAGS. */
static void alarm_in(int ms, int flags)
{
	struct sigaction sa;
	struct itimerval it = { .it_value = { .tv_usec = ms * 1000 } };

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sa.sa_flags = flags;
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
}

static void *late_send(void *arg)
{
	int fd = *(int *)arg;
	uint32_t v = 0x5157;

	usleep(600000);
	write_all(fd, &v, sizeof(v));
	return NULL;
}

/*
 * A signal during a blocked recv: with SA_RESTART the call goes on and
 * returns the data that comes later, as on a TCP socket; without it,
 * EINTR.
 */
static void t_signals(const char *host, const char *port, uint64_t n)
{
	int fd = start(host, port, 'E');
	pthread_t t;
	uint32_t v = 0;
	ssize_t r;

	(void)n;
	alarms = 0;
	alarm_in(200, SA_RESTART);
	if (pthread_create(&t, NULL, late_send, &fd))
		die("pthread_create");
	r = recv(fd, &v, sizeof(v), MSG_WAITALL);
	pthread_join(t, NULL);
	if (r != (ssize_t)sizeof(v) || v != 0x5157 || alarms != 1) {
		fprintf(stderr, "signals: recv %zd errno %d alarms %d\n", r, errno,
			(int)alarms);
		fail("SA_RESTART: a blocked recv must restart, not fail");
	}
	alarm_in(200, 0);
	r = recv(fd, &v, sizeof(v), 0);
	if (r != -1 || errno != EINTR || alarms != 2)
		fail("no SA_RESTART: a blocked recv must fail with EINTR");
	close(fd);
	printf("ok %s: SA_RESTART restarts a blocked recv, without it EINTR\n", mode);
}

static int shut_fd;

static void *shut_later(void *arg)
{
	(void)arg;
	usleep(300000);
	if (shutdown(shut_fd, SHUT_RD))
		die("shutdown");
	return NULL;
}

/* shutdown(SHUT_RD) from another thread ends a blocked recv with 0. */
static void t_shutrd(const char *host, const char *port, uint64_t n)
{
	double t0 = now_s();
	struct rusage ru0, ru1;
	pthread_t t;
	char c;
	double cpu;

	(void)n;
	shut_fd = start(host, port, 'E');
	alarm(10);	/* a recv that never returns fails the test */
	getrusage(RUSAGE_SELF, &ru0);
	if (pthread_create(&t, NULL, shut_later, NULL))
		die("pthread_create");
	if (recv(shut_fd, &c, 1, 0) != 0)
		fail("recv after shutdown(SHUT_RD) from another thread: not 0");
	pthread_join(t, NULL);
	getrusage(RUSAGE_SELF, &ru1);
	alarm(0);
	cpu = (double)(ru1.ru_utime.tv_sec - ru0.ru_utime.tv_sec) +
	      (double)(ru1.ru_utime.tv_usec - ru0.ru_utime.tv_usec) / 1e6;
	if (cpu > 0.2)
		fail("the blocked recv burned the CPU before it returned");
	close(shut_fd);
	printf("ok %s: shutdown(SHUT_RD) from another thread: recv returned 0 after %.2f s, %.3f s of CPU\n",
	       mode, now_s() - t0, cpu);
}

static volatile sig_atomic_t sigios;

static void on_sigio(int sig)
{
	(void)sig;
	sigios++;
}

/* O_ASYNC: SIGIO for every echo that comes back, then read without blocking. */
static void t_async(const char *host, const char *port, uint64_t n)
{
	int fd = start(host, port, 'E'), fl;
	struct sigaction sa;
	uint64_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigio;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGIO, &sa, NULL);
	fl = fcntl(fd, F_GETFL);
	if (fcntl(fd, F_SETOWN, getpid()) || fcntl(fd, F_SETFL, fl | O_ASYNC | O_NONBLOCK))
		die("fcntl O_ASYNC");
	for (i = 0; i < n; i++) {
		uint32_t v = (uint32_t)i, back = 0;
		sig_atomic_t before = sigios;
		size_t got = 0;
		int ms;

		write_all(fd, &v, sizeof(v));
		for (ms = 0; sigios == before && ms < 3000; ms++)
			usleep(1000);
		if (sigios == before)
			fail("no SIGIO within 3 s for data that came back");
		while (got < sizeof(back)) {
			ssize_t r = recv(fd, (char *)&back + got, sizeof(back) - got, 0);

			if (r > 0)
				got += (size_t)r;
			else if (r < 0 && errno == EAGAIN)
				usleep(1000);	/* a SIGIO may come before all of it */
			else
				die("recv");
		}
		if (back != v)
			fail("async echo differs");
	}
	close(fd);
	printf("ok %s: %llu echoes, each signalled by SIGIO (%d signals)\n", mode,
	       (unsigned long long)n, (int)sigios);
}

/* Options set before connect() hold on the connection that replaces it. */
static void t_preopts(const char *host, const char *port, uint64_t n)
{
	struct timeval tv = { .tv_sec = 1 }, got;
	struct addrinfo *res = resolve(host, port);
	socklen_t l = sizeof(got);
	double t0;
	int fd, one = 1, v = 0;
	char c;

	(void)n;
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
	    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)))
		die("socket/setsockopt");
	if (connect(fd, res->ai_addr, res->ai_addrlen))
		die("connect");
	freeaddrinfo(res);
	write_all(fd, "E", 1);
	if (getsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &got, &l) || got.tv_sec != 1)
		fail("SO_RCVTIMEO set before connect() reads back wrong");
	l = sizeof(v);
	if (getsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &v, &l) || !v)
		fail("TCP_NODELAY set before connect() reads back wrong");
	alarm(10);	/* a timeout that was dropped blocks for ever */
	t0 = now_s();
	if (recv(fd, &c, 1, 0) != -1 || errno != EAGAIN)
		fail("recv with SO_RCVTIMEO set before connect(): not EAGAIN");
	alarm(0);
	if (now_s() - t0 < 0.9)
		fail("recv timed out early");
	close(fd);
	printf("ok %s: SO_RCVTIMEO and TCP_NODELAY set before connect() hold (timed out after %.2f s)\n",
	       mode, now_s() - t0);
}

/* The server closes with SO_LINGER {1, 0}: we see ECONNRESET, not EOF. */
/*
 * emfile, against serve-emfile: the first connection waits while the
 * server is out of descriptors and is echoed once it accepts; the second
 * is dropped with the server's listener, which this side learns (a
 * refused connect, or EOF or a reset) instead of waiting for ever.
 */
static void t_emfile(const char *host, const char *port, uint64_t n)
{
	char buf[sizeof(EMFILE_HELLO)];
	struct pollfd p;
	int fd;

	(void)n;
	fd = dial(host, port, 0, false);
	if (!is_rdma(fd))
		fail("emfile: not over RDMA");
	write_all(fd, EMFILE_HELLO, sizeof(buf));
	if (read_all(fd, buf, sizeof(buf)) != sizeof(buf) ||
	    memcmp(buf, EMFILE_HELLO, sizeof(buf)))
		fail("emfile: no echo");
	close(fd);

	{
		struct addrinfo *res = resolve(host, port);

		fd = socket(AF_INET, SOCK_STREAM, 0);
		if (fd < 0)
			die("socket");
		if (connect(fd, res->ai_addr, res->ai_addrlen)) {
			freeaddrinfo(res);
			if (errno != ECONNREFUSED && errno != ECONNRESET)
				die("emfile: second connect");
			printf("emfile: echoed after the server's EMFILE; the second refused with its listener\n");
			close(fd);
			return;
		}
		freeaddrinfo(res);
	}
	p.fd = fd;
	p.events = POLLIN;
	if (poll(&p, 1, 30000) != 1)
		fail("emfile: the dropped connection still open after 30 s");
	if (recv(fd, buf, sizeof(buf), 0) > 0)
		fail("emfile: data on the dropped connection");
	close(fd);
	printf("emfile: echoed after the server's EMFILE; the second ended with its listener\n");
}

static void t_linger0(const char *host, const char *port, uint64_t n)
{
	int fd = start(host, port, 'L');
	char buf[16];
	ssize_t r;

	(void)n;
	alarm(10);
	do
		r = recv(fd, buf, sizeof(buf), 0);
	while (r > 0);
	alarm(0);
	if (r != -1 || errno != ECONNRESET)
		fail("SO_LINGER {1, 0} at the peer: not ECONNRESET");
	close(fd);
	printf("ok %s: the peer's close with SO_LINGER {1, 0} is a reset\n", mode);
}

/* ---- the rings' locks are never held across a wait ---- */

static int lock_fd;
static volatile sig_atomic_t handler_ret = -2, handler_errno;

static void *blocked_reader(void *arg)
{
	char c;

	(void)arg;
	return (void *)(intptr_t)recv(lock_fd, &c, 1, 0);
}

/* A signal handler that reads the connection its thread is blocked on. */
static void on_usr1(int sig)
{
	char c;
	int e = errno;

	(void)sig;
	handler_ret = (sig_atomic_t)recv(lock_fd, &c, 1, MSG_DONTWAIT);
	handler_errno = errno;
	errno = e;
}

/*
 * One thread blocked in recv: a non-blocking recv of another thread
 * returns EAGAIN at once, and so does one in a signal handler that
 * interrupts the blocked thread; then the blocked recv gets its byte.
 */
static void t_locks(const char *host, const char *port, uint64_t n)
{
	struct sigaction sa;
	double t0, waited;
	pthread_t t;
	void *ret;
	char c = 'x';

	(void)n;
	lock_fd = start(host, port, 'E');
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGUSR1, &sa, NULL);
	alarm(20);	/* a call stuck behind the lock fails the test */
	if (pthread_create(&t, NULL, blocked_reader, NULL))
		die("pthread_create");
	usleep(300000);
	t0 = now_s();
	if (recv(lock_fd, &c, 1, MSG_DONTWAIT) != -1 || errno != EAGAIN)
		fail("non-blocking recv beside a blocked one: not EAGAIN");
	waited = now_s() - t0;
	if (waited > 0.5)
		fail("non-blocking recv beside a blocked one waited");
	pthread_kill(t, SIGUSR1);
	for (t0 = now_s(); handler_ret == -2 && now_s() - t0 < 5;)
		usleep(1000);
	if (handler_ret != -1 || handler_errno != EAGAIN)
		fail("recv in a signal handler on the blocked thread's connection: not EAGAIN");
	c = 'y';
	write_all(lock_fd, &c, 1);
	pthread_join(t, &ret);
	alarm(0);
	if ((intptr_t)ret != 1)
		fail("the blocked recv did not get the echoed byte");
	close(lock_fd);
	printf("ok %s: beside a blocked recv: non-blocking recv EAGAIN in %.1f ms, in a signal handler EAGAIN, then the byte\n",
	       mode, waited * 1e3);
}

/* ---- the driver's read() beside the mapped ring ---- */

struct tally {
	int fd;
	bool raw;	/* the read system call, not the library's recv */
	uint64_t bytes, sum;
};

static void *tally_reader(void *arg)
{
	struct tally *t = arg;
	static __thread unsigned char buf[4096];
	unsigned int seed = t->raw ? 1 : 2;
	ssize_t r, i;

	for (;;) {
		size_t want = (size_t)1 + (size_t)rand_r(&seed) % 3000;

		r = t->raw ? syscall(SYS_read, t->fd, buf, want) : recv(t->fd, buf, want, 0);
		if (r <= 0)
			break;
		t->bytes += (uint64_t)r;
		for (i = 0; i < r; i++)
			t->sum += buf[i];
	}
	return (void *)(intptr_t)r;
}

/*
 * N bytes echoed, taken by two threads at once: one through the library
 * (the mapped ring), one with the raw read system call (the driver's
 * slow path).  Together they get every byte once: the count and the sum.
 */
static void t_slowread(const char *host, const char *port, uint64_t n)
{
	struct tally a = { .raw = false }, b = { .raw = true };
	static unsigned char buf[65536];
	uint64_t sent = 0, sum = 0;
	pthread_t ta, tb;
	void *ra, *rb;
	size_t i, m;

	a.fd = b.fd = start(host, port, 'E');
	if (pthread_create(&ta, NULL, tally_reader, &a) ||
	    pthread_create(&tb, NULL, tally_reader, &b))
		die("pthread_create");
	alarm(120);
	while (sent < n) {
		m = n - sent < sizeof(buf) ? (size_t)(n - sent) : sizeof(buf);
		for (i = 0; i < m; i++) {
			buf[i] = (unsigned char)((sent + i) * 7 + 3);
			sum += buf[i];
		}
		write_all(a.fd, buf, m);
		sent += m;
	}
	shutdown(a.fd, SHUT_WR);
	pthread_join(ta, &ra);
	pthread_join(tb, &rb);
	alarm(0);
	if ((intptr_t)ra || (intptr_t)rb)
		fail("a reader ended with an error, not EOF");
	if (a.bytes + b.bytes != n || a.sum + b.sum != sum) {
		char why[160];

		snprintf(why, sizeof(why),
			 "two readers got %llu + %llu bytes (sum %llu), sent %llu (sum %llu)",
			 (unsigned long long)a.bytes, (unsigned long long)b.bytes,
			 (unsigned long long)(a.sum + b.sum), (unsigned long long)n,
			 (unsigned long long)sum);
		fail(why);
	}
	close(a.fd);
	printf("ok %s: %llu bytes taken by recv (%llu) and read(2) (%llu) at once, each once\n",
	       mode, (unsigned long long)n, (unsigned long long)a.bytes,
	       (unsigned long long)b.bytes);
}

/* ---- a blocked recv is a cancellation point ---- */

static void *cancel_reader(void *arg)
{
	char c;

	(void)arg;
	recv(lock_fd, &c, 1, 0);
	return NULL;	/* only if the byte came: the test fails */
}

/*
 * pthread_cancel of a thread blocked in recv ends it, as with TCP; the
 * connection is still whole after (no lock left held): it echoes.
 */
static void t_cancel(const char *host, const char *port, uint64_t n)
{
	uint32_t v = 0x1234abcd, w = 0;
	double t0;
	pthread_t t;
	void *ret;
	int i;

	lock_fd = start(host, port, 'E');
	alarm(30);
	for (i = 0; i < (int)(n ? n : 1); i++) {
		if (pthread_create(&t, NULL, cancel_reader, NULL))
			die("pthread_create");
		usleep(100000);
		t0 = now_s();
		pthread_cancel(t);
		pthread_join(t, &ret);
		if (ret != PTHREAD_CANCELED)
			fail("a thread blocked in recv: not cancelled");
		if (now_s() - t0 > 2)
			fail("a thread blocked in recv: cancelled only after 2 s");
	}
	write_all(lock_fd, &v, sizeof(v));
	if (read_all(lock_fd, &w, sizeof(w)) != sizeof(w) || w != v)
		fail("after the cancellations: no echo");
	alarm(0);
	close(lock_fd);
	printf("ok %s: %d threads blocked in recv cancelled, the connection echoes after\n",
	       mode, i);
}

/* ---- sendmmsg and recvmmsg ---- */

/*
 * Three messages in one sendmmsg, each with its length; the echo comes
 * back through recvmmsg with MSG_WAITFORONE and a timeout, byte for byte.
 */
static void t_mmsg(const char *host, const char *port, uint64_t n)
{
	static const size_t len[3] = { 100, 5000, 70000 };
	static unsigned char out[75100], in[75100];
	struct mmsghdr m[3];
	struct iovec v[3];
	size_t total = 0, got = 0, i;
	int fd = start(host, port, 'E'), r, calls = 0;

	(void)n;
	for (i = 0; i < sizeof(out); i++)
		out[i] = (unsigned char)(i * 13 + 7);
	memset(m, 0, sizeof(m));
	for (i = 0; i < 3; i++) {
		v[i].iov_base = out + total;
		v[i].iov_len = len[i];
		m[i].msg_hdr.msg_iov = &v[i];
		m[i].msg_hdr.msg_iovlen = 1;
		total += len[i];
	}
	alarm(30);
	r = sendmmsg(fd, m, 3, 0);
	if (r != 3 || m[0].msg_len != len[0] || m[1].msg_len != len[1] ||
	    m[2].msg_len != len[2])
		fail("sendmmsg: not 3 messages of their lengths");
	while (got < total) {
		struct timespec tmo = { .tv_sec = 5 };

		for (i = 0; i < 3; i++) {
			v[i].iov_base = in + got + i * ((total - got) / 3);
			v[i].iov_len = i < 2 ? (total - got) / 3 :
				       total - got - 2 * ((total - got) / 3);
		}
		r = recvmmsg(fd, m, 3, MSG_WAITFORONE, &tmo);
		if (r < 1)
			fail("recvmmsg: no message");
		/*
		 * The stream goes on from one message to the next: gather
		 * what each got, in order (each buffer lies at or after the
		 * end of what is gathered before it).
		 */
		for (i = 0; i < (size_t)r; i++) {
			memmove(in + got, v[i].iov_base, m[i].msg_len);
			got += m[i].msg_len;
		}
		calls++;
	}
	alarm(0);
	if (got != total || memcmp(in, out, total))
		fail("the echo through recvmmsg differs");
	close(fd);
	printf("ok %s: 3 messages (%zu bytes) with sendmmsg, echoed back through %d recvmmsg calls\n",
	       mode, total, calls);
}

/* ---- splice, tee and sendfile, the connection either end ---- */

/* A scratch file of N bytes: its descriptor (unlinked). */
static int scratch(size_t n, const unsigned char *fill)
{
	char path[] = "/tmp/sor-splice-XXXXXX";
	int f = mkstemp(path);

	if (f < 0)
		die("mkstemp");
	unlink(path);
	if (fill)
		write_all(f, fill, n);
	return f;
}

/*
 * Move N bytes from IN to OUT with splice through PIPE_, each piece first
 * tee'd to COPY and read back from it against WANT.  (tee copies whole
 * pipe buffers, so it may take less than a piece: the rest goes on the
 * next round.)
 */
static void splice_n(int in, int out, const int pipe_[2], const int copy[2],
		     const unsigned char *want, size_t n)
{
	static unsigned char teed[65536];

	while (n) {
		ssize_t got = splice(in, NULL, pipe_[1], NULL, n, 0);

		if (got <= 0)
			fail("splice from the connection into a pipe");
		n -= (size_t)got;
		while (got) {
			ssize_t t = tee(pipe_[0], copy[1], (size_t)got, 0), m, r;

			if (t <= 0 || t > (ssize_t)sizeof(teed))
				fail("tee of what came from the connection");
			for (m = 0; m < t; m += r) {
				r = splice(pipe_[0], NULL, out, NULL, (size_t)(t - m), 0);
				if (r <= 0)
					fail("splice from the pipe into a file");
			}
			for (m = 0; m < t; m += r) {
				r = read(copy[0], teed + m, (size_t)(t - m));
				if (r <= 0)
					fail("read of the tee'd copy");
			}
			if (memcmp(teed, want, (size_t)t))
				fail("the tee'd copy differs");
			want += t;
			got -= t;
		}
	}
}

/*
 * Data goes out with sendfile from a file into the connection (the
 * library's, and the kernel's own for the first round) and comes
 * back from the echo server with splice (through tee) into a file.  A
 * connection is no sendfile source, as no socket is (EINVAL: the kernel
 * splices directly only from regular files and block devices).
 */
static void t_splice(const char *host, const char *port, uint64_t n)
{
	const size_t chunk = 65536;
	int fd = start(host, port, 'E'), in, out, p[2], q[2];
	size_t total = n ? n : 1048576, off, i;
	unsigned char *src, *back;
	off_t pos = 0;

	src = malloc(total);
	back = malloc(total);
	if (!src || !back)
		die("malloc");
	for (i = 0; i < total; i++)
		src[i] = (unsigned char)(i * 7 + (i >> 11));
	in = scratch(total, src);
	out = scratch(0, NULL);
	if (pipe(p) || pipe(q))
		die("pipe");
	if (fcntl(p[1], F_SETPIPE_SZ, (int)chunk) < 0 ||
	    fcntl(q[1], F_SETPIPE_SZ, (int)chunk) < 0)
		die("F_SETPIPE_SZ");
	alarm(60);
	errno = 0;
	if (sendfile(out, fd, NULL, 1) != -1 || errno != EINVAL)
		fail("sendfile from the connection: not EINVAL, as from a TCP socket");
	for (off = 0; off < total; off += chunk) {
		size_t len = total - off < chunk ? total - off : chunk;
		size_t sent = 0;

		while (sent < len) {
			/* The first round past the library, into the driver's splice_write. */
			ssize_t r = off ? sendfile(fd, in, &pos, len - sent) :
				    syscall(SYS_sendfile, fd, in, &pos, len - sent);

			if (r <= 0)
				fail("sendfile from a file into the connection");
			sent += (size_t)r;
		}
		splice_n(fd, out, p, q, src + off, len);
	}
	alarm(0);
	if (pread(out, back, total, 0) != (ssize_t)total ||
	    memcmp(back, src, total))
		fail("the echo through splice differs");
	close(in);
	close(out);
	close(fd);
	free(src);
	free(back);
	printf("ok %s: %zu bytes out with sendfile, back with splice and tee; sendfile from it EINVAL\n",
	       mode, total);
}

/* ---- a signal during connect() ---- */

static volatile sig_atomic_t ticks;

static void on_tick(int sig)
{
	(void)sig;
	ticks++;
}

/*
 * Whether FD's file is a connection's that went over RDMA (past the
 * library: the driver's own answer), not one still setting up or turned
 * to TCP.
 */
static bool is_rdma(int fd)
{
	struct eusrv_sor_info in;

	return syscall(SYS_ioctl, fd, EUSRV_SOR_INFO, &in) == 0 &&
	       in.state != EUSRV_SOR_ST_CONNECTING && in.state != EUSRV_SOR_ST_TCP;
}

/* ---- socket options and names: a connection answers as TCP does ---- */

/*
 * sockopts: every option of socket(7), ip(7), ipv6(7) and tcp(7) that
 * getsockopt takes, asked with several lengths, on a connection over RDMA
 * and on a TCP connection between the same two nodes, on both ends (the
 * server, 'O', makes a listener the driver knows and one it does not, on
 * each family, and compares its two accepted sockets the same way; the
 * client's IPv6 connection over RDMA is set up in the background); then
 * the same after setting options on both.  Return, errno, length and
 * value must be TCP's, but for the options whose values differ for a
 * reason, below (docs/user-guide.md "Socket options"), and the names of
 * each end must be the other end's, as accept() gave them.
 */

/*
 * Options whose value (not their return or length) differs, and why; with
 * SET, any answer may differ once options were set.
 */
static const struct {
	int level, name;
	const char *why;
	bool set;
} opt_differs[] = {
	{ SOL_SOCKET, SO_SNDBUF, "the send ring's size, not TCP's send buffer", false },
	{ SOL_SOCKET, SO_RCVBUF, "the receive ring's size, not TCP's receive buffer", false },
	{ SOL_SOCKET, SO_MEMINFO, "TCP's buffer accounting; a connection's bytes are in its rings", false },
	{ SOL_SOCKET, SO_INCOMING_CPU, "the CPU of the last packet TCP received; a connection receives none", false },
	{ SOL_SOCKET, SO_INCOMING_NAPI_ID, "the NIC queue of the last packet TCP received; none", false },
	{ SOL_SOCKET, SO_COOKIE, "each socket's own", false },
	{ SOL_SOCKET, SO_PEERNAME, "the two connections' ports differ; checked against getpeername()", false },
	{ IPPROTO_IP, 52 /* IP_PROTOCOL */, "TCP gives its local port; checked against getsockname()", false },
	{ IPPROTO_TCP, TCP_MAXSEG, "TCP's segment size on the route; a connection has no segments", false },
	{ IPPROTO_TCP, TCP_INFO, "TCP's state and counters; a connection shows no segments", false },
	{ IPPROTO_TCP, TCP_WINDOW_CLAMP, "the handshake sets TCP's from its buffer; a connection has no window", false },
	{ IPPROTO_TCP, TCP_TIMESTAMP, "TCP's timestamp clock, offset at random per connection", false },
	{ IPPROTO_TCP, TCP_QUICKACK, "whether TCP's delayed ACKs are in interactive mode; a connection sends no ACKs", false },
#define ROUTE_CACHE "TCP's cached route, which IP_TOS, SO_MARK or SO_BINDTODEVICE drop until its next packet (ENOTCONN meanwhile); a connection's route at any time"
	{ IPPROTO_IP, IP_MTU, ROUTE_CACHE, true },
	{ IPPROTO_IPV6, IPV6_MTU, ROUTE_CACHE, true },
	{ IPPROTO_IPV6, IPV6_PATHMTU, ROUTE_CACHE, true },
};

/* Why the value of option NAME of LEVEL differs (*ANY: its answer too). */
static const char *differs(int level, int name, bool set, bool *any)
{
	size_t i;

	*any = false;
	for (i = 0; i < sizeof(opt_differs) / sizeof(opt_differs[0]); i++) {
		if (opt_differs[i].level != level || opt_differs[i].name != name ||
		    (opt_differs[i].set && !set))
			continue;
		*any = opt_differs[i].set;
		return opt_differs[i].why;
	}
	return NULL;
}

/* The option numbers asked at each level (netfilter's numbers left out). */
static const struct {
	int level, lo, hi;
} opt_ranges[] = {
	{ SOL_SOCKET, 0, 80 }, { IPPROTO_IP, 0, 63 }, { IPPROTO_IPV6, 0, 63 },
	{ IPPROTO_IPV6, 66, 67 }, { IPPROTO_IPV6, 70, 80 }, { IPPROTO_TCP, 0, 45 },
	{ IPPROTO_UDP, 0, 5 }, { 282 /* SOL_TLS */, 0, 5 },
};
static const int opt_lens[] = { 256, 32, 16, 8, 4, 1, 0, -1 };

/* Mismatches found, as lines for the report (the first few). */
struct opt_report {
	char text[8192];
	size_t used;
	unsigned int bad, asked, options, differ;
};

static void report(struct opt_report *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void report(struct opt_report *r, const char *fmt, ...)
{
	va_list ap;
	int n;

	r->bad++;
	if (r->used + 200 >= sizeof(r->text))
		return;
	va_start(ap, fmt);
	n = vsnprintf(r->text + r->used, sizeof(r->text) - r->used, fmt, ap);
	va_end(ap);
	if (n > 0)
		r->used += (size_t)n < sizeof(r->text) - r->used ? (size_t)n :
			   sizeof(r->text) - r->used - 1;
}

struct opt_answer {
	int rc, err;
	socklen_t len;
	unsigned char val[256];
};

static void opt_ask(int fd, int level, int name, int len, struct opt_answer *a)
{
	memset(a, 0, sizeof(*a));
	a->len = (socklen_t)len;
	a->rc = getsockopt(fd, level, name, a->val, &a->len);
	a->err = a->rc ? errno : 0;
}

static void opt_hex(char *out, const struct opt_answer *a)
{
	socklen_t i;

	*out = 0;
	if (a->rc) {
		sprintf(out, "%s", strerror(a->err));
		return;
	}
	out += sprintf(out, "len %u:", (unsigned int)a->len);
	for (i = 0; i < a->len && i < 24; i++)
		out += sprintf(out, "%02x", a->val[i]);
}

/*
 * Every option on RDMA connection R and TCP connection T (SET: after
 * opt_set_all): mismatches in REP.
 */
static void opt_compare(int r, int t, const char *where, bool set,
			struct opt_report *rep)
{
	struct opt_answer ar, at;
	char hr[80], ht[80];
	size_t i, k;
	int name;

	for (i = 0; i < sizeof(opt_ranges) / sizeof(opt_ranges[0]); i++) {
		for (name = opt_ranges[i].lo; name <= opt_ranges[i].hi; name++) {
			int level = opt_ranges[i].level;
			bool any, answered = false;
			const char *why = differs(level, name, set, &any);

			for (k = 0; k < sizeof(opt_lens) / sizeof(opt_lens[0]); k++) {
				opt_ask(t, level, name, opt_lens[k], &at);
				opt_ask(r, level, name, opt_lens[k], &ar);
				rep->asked++;
				answered |= !at.rc;
				if (any || (ar.rc == at.rc && ar.err == at.err &&
					    ar.len == at.len &&
					    (why || at.rc || !memcmp(ar.val, at.val, at.len))))
					continue;
				opt_hex(hr, &ar);
				opt_hex(ht, &at);
				report(rep, "%s: getsockopt(%d, %d) len %d: RDMA %s, TCP %s\n",
				       where, level, name, opt_lens[k], hr, ht);
			}
			if (answered && !set) {
				rep->options++;
				rep->differ += why != NULL;
			}
		}
	}
}

/* A socket's name as a family-sized blob. */
struct opt_name {
	socklen_t len;
	unsigned char a[sizeof(struct sockaddr_in6)];
};

static void name_of(int fd, bool peer, struct opt_name *n)
{
	struct sockaddr_storage ss;
	socklen_t l = sizeof(ss);

	memset(n, 0, sizeof(*n));
	if ((peer ? getpeername(fd, (struct sockaddr *)&ss, &l) :
		    getsockname(fd, (struct sockaddr *)&ss, &l)) ||
	    l > sizeof(n->a))
		die(peer ? "getpeername" : "getsockname");
	n->len = l;
	memcpy(n->a, &ss, l);
}

static void name_str(char *out, const struct opt_name *n)
{
	char h[INET6_ADDRSTRLEN] = "?";
	const struct sockaddr_in *s4 = (const void *)n->a;
	const struct sockaddr_in6 *s6 = (const void *)n->a;

	if (s4->sin_family == AF_INET) {
		inet_ntop(AF_INET, &s4->sin_addr, h, sizeof(h));
		sprintf(out, "%s:%u", h, ntohs(s4->sin_port));
	} else {
		inet_ntop(AF_INET6, &s6->sin6_addr, h, sizeof(h));
		sprintf(out, "[%s]:%u", h, ntohs(s6->sin6_port));
	}
}

static bool name_eq(const struct opt_name *a, const struct opt_name *b, bool port)
{
	const struct sockaddr_in *a4 = (const void *)a->a, *b4 = (const void *)b->a;
	const struct sockaddr_in6 *a6 = (const void *)a->a, *b6 = (const void *)b->a;

	if (a->len != b->len || a4->sin_family != b4->sin_family)
		return false;
	if (port && memcmp(a->a, b->a, a->len))
		return false;
	if (a4->sin_family == AF_INET)
		return a4->sin_addr.s_addr == b4->sin_addr.s_addr;
	return !memcmp(&a6->sin6_addr, &b6->sin6_addr, sizeof(a6->sin6_addr));
}

static void name_check(struct opt_report *rep, const char *what,
		       const struct opt_name *got, const struct opt_name *want,
		       bool port)
{
	char g[80], w[80];

	if (name_eq(got, want, port))
		return;
	name_str(g, got);
	name_str(w, want);
	report(rep, "%s: %s, not %s\n", what, g, w);
}

/* SO_PEERNAME and IP_PROTOCOL of FD against its names. */
static void name_opts(int fd, const char *where, struct opt_report *rep)
{
	struct opt_name p, s;
	struct opt_answer a;
	int v = -1;

	name_of(fd, true, &p);
	name_of(fd, false, &s);
	opt_ask(fd, SOL_SOCKET, SO_PEERNAME, (int)p.len, &a);
	if (a.rc || a.len != p.len || memcmp(a.val, p.a, p.len))
		report(rep, "%s: SO_PEERNAME is not getpeername()\n", where);
	opt_ask(fd, IPPROTO_IP, 52 /* IP_PROTOCOL */, 4, &a);
	memcpy(&v, a.val, sizeof(v));
	if (a.rc || v != ntohs(((struct sockaddr_in *)(void *)s.a)->sin_port))
		report(rep, "%s: IP_PROTOCOL is not the local port (TCP's inet_num)\n", where);
}

/* Options set on both connections: each must give TCP's return. */
struct opt_set {
	int level, name;
	const void *val;
	socklen_t len;
	const char *differs;	/* why the return may differ */
};

static const int v0 = 0, v1 = 1, v2 = 2, v3 = 3, v4 = 4, v5 = 5, v7 = 7, v8 = 8,
	v9 = 9, v10 = 10, v13 = 13, v20 = 20, v33 = 33, v50 = 50, v77 = 77,
	v1000 = 1000, v1200 = 1200, v5000 = 5000, v65536 = 65536,
	v100000 = 100000, v1000000 = 1000000, v_tos = 0x10, v_tclass = 0x20,
	v_ts = 0x18 /* SOF_TIMESTAMPING_SOFTWARE | RX_SOFTWARE */,
	v_ts_id = 0x98 /* and OPT_ID */, v_range = 20000 | 30000 << 16;
static const struct linger lg_on = { 1, 7 };
static const struct timeval tv_rcv = { 3, 1 }, tv_snd = { 0, 1 }, tv_bad = { 0, 2000000 };
static const unsigned char ip_nops[4] = { 1, 1, 1, 0 };
static const struct { clockid_t clockid; uint32_t flags; } txtime = { CLOCK_MONOTONIC, 0 };

#define SET(l, n, v) { l, n, &v, sizeof(v), NULL }
#define SET_LEN(l, n, v, len) { l, n, &v, len, NULL }
#define SET_DIFF(l, n, v, why) { l, n, &v, sizeof(v), why }

static const struct opt_set opt_sets[] = {
	SET(SOL_SOCKET, SO_DEBUG, v1), SET(SOL_SOCKET, SO_REUSEADDR, v0),
	SET(SOL_SOCKET, SO_DONTROUTE, v1), SET(SOL_SOCKET, SO_BROADCAST, v1),
	SET(SOL_SOCKET, SO_SNDBUF, v65536), SET(SOL_SOCKET, SO_RCVBUF, v65536),
	SET(SOL_SOCKET, SO_KEEPALIVE, v1), SET(SOL_SOCKET, SO_OOBINLINE, v1),
	SET(SOL_SOCKET, SO_NO_CHECK, v1), SET(SOL_SOCKET, SO_PRIORITY, v5),
	SET(SOL_SOCKET, SO_LINGER, lg_on), SET(SOL_SOCKET, SO_REUSEPORT, v1),
	SET(SOL_SOCKET, SO_PASSCRED, v1), SET(SOL_SOCKET, SO_RCVLOWAT, v10),
	SET(SOL_SOCKET, SO_SNDLOWAT, v1), SET(SOL_SOCKET, SO_RCVTIMEO, tv_rcv),
	SET(SOL_SOCKET, SO_SNDTIMEO, tv_snd), SET(SOL_SOCKET, SO_RCVTIMEO, tv_bad),
	SET_LEN(SOL_SOCKET, SO_BINDTODEVICE, "mgmt0", 6),
	SET(SOL_SOCKET, SO_TIMESTAMP, v1), SET(SOL_SOCKET, SO_TIMESTAMPNS, v1),
	SET(SOL_SOCKET, SO_TIMESTAMPING, v_ts),
	SET_DIFF(SOL_SOCKET, SO_TIMESTAMPING, v_ts_id,
		 "SOF_TIMESTAMPING_OPT_ID: TCP takes it once connected; a connection has no timestamps to give"),
	SET(SOL_SOCKET, SO_TIMESTAMPING, v_ts),	/* the same again on both */
	SET(SOL_SOCKET, SO_PASSSEC, v1), SET(SOL_SOCKET, SO_MARK, v7),
	SET(SOL_SOCKET, SO_RXQ_OVFL, v1), SET(SOL_SOCKET, SO_WIFI_STATUS, v1),
	SET(SOL_SOCKET, SO_PEEK_OFF, v0), SET(SOL_SOCKET, SO_NOFCS, v1),
	SET(SOL_SOCKET, SO_LOCK_FILTER, v1), SET(SOL_SOCKET, SO_SELECT_ERR_QUEUE, v1),
	SET(SOL_SOCKET, SO_BUSY_POLL, v50), SET(SOL_SOCKET, SO_MAX_PACING_RATE, v1000000),
	SET(SOL_SOCKET, SO_INCOMING_CPU, v0), SET(SOL_SOCKET, SO_ZEROCOPY, v1),
	SET(SOL_SOCKET, SO_TXTIME, txtime), SET(SOL_SOCKET, 69 /* SO_PREFER_BUSY_POLL */, v1),
	SET(SOL_SOCKET, 70 /* SO_BUSY_POLL_BUDGET */, v8), SET(SOL_SOCKET, 72 /* SO_BUF_LOCK */, v3),
	SET(SOL_SOCKET, 74 /* SO_TXREHASH */, v0), SET(SOL_SOCKET, 75 /* SO_RCVMARK */, v1),
	SET(SOL_SOCKET, SO_CNX_ADVICE, v1), SET(SOL_SOCKET, SO_DETACH_FILTER, v0),
	SET_LEN(SOL_SOCKET, SO_LINGER, lg_on, 4), SET_LEN(SOL_SOCKET, SO_PRIORITY, v1, 2),
	SET_LEN(SOL_SOCKET, SO_KEEPALIVE, v1, 0),
	SET(IPPROTO_IP, IP_TOS, v_tos), SET(IPPROTO_IP, IP_TTL, v33),
	SET(IPPROTO_IP, IP_OPTIONS, ip_nops), SET(IPPROTO_IP, IP_RECVOPTS, v1),
	SET(IPPROTO_IP, IP_RETOPTS, v1), SET(IPPROTO_IP, IP_PKTINFO, v1),
	SET(IPPROTO_IP, IP_RECVTTL, v1), SET(IPPROTO_IP, IP_RECVTOS, v1),
	SET(IPPROTO_IP, IP_MTU_DISCOVER, v0), SET(IPPROTO_IP, IP_RECVERR, v1),
	SET(IPPROTO_IP, IP_MULTICAST_TTL, v3), SET(IPPROTO_IP, IP_MULTICAST_LOOP, v0),
	SET(IPPROTO_IP, IP_FREEBIND, v1), SET(IPPROTO_IP, IP_PASSSEC, v1),
	SET(IPPROTO_IP, IP_TRANSPARENT, v1), SET(IPPROTO_IP, IP_RECVORIGDSTADDR, v1),
	SET(IPPROTO_IP, IP_MINTTL, v2), SET(IPPROTO_IP, IP_CHECKSUM, v1),
	SET(IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, v1), SET(IPPROTO_IP, IP_RECVFRAGSIZE, v1),
	SET(IPPROTO_IP, IP_RECVERR_RFC4884, v1), SET(IPPROTO_IP, IP_MULTICAST_ALL, v0),
	SET(IPPROTO_IP, IP_UNICAST_IF, v0), SET(IPPROTO_IP, 51 /* IP_LOCAL_PORT_RANGE */, v_range),
	SET(IPPROTO_IP, IP_HDRINCL, v1), SET(IPPROTO_IP, IP_TTL, v0),
	SET(IPPROTO_TCP, TCP_NODELAY, v1), SET(IPPROTO_TCP, TCP_MAXSEG, v1200),
	SET(IPPROTO_TCP, TCP_CORK, v1), SET(IPPROTO_TCP, TCP_KEEPIDLE, v77),
	SET(IPPROTO_TCP, TCP_KEEPINTVL, v13), SET(IPPROTO_TCP, TCP_KEEPCNT, v4),
	SET(IPPROTO_TCP, TCP_SYNCNT, v3), SET(IPPROTO_TCP, TCP_LINGER2, v20),
	SET(IPPROTO_TCP, TCP_DEFER_ACCEPT, v5), SET(IPPROTO_TCP, TCP_WINDOW_CLAMP, v0),
	SET(IPPROTO_TCP, TCP_WINDOW_CLAMP, v100000), SET(IPPROTO_TCP, TCP_QUICKACK, v1),
	SET_LEN(IPPROTO_TCP, TCP_CONGESTION, "reno", 4),
	SET_LEN(IPPROTO_TCP, TCP_CONGESTION, "nosuchcc", 8),
	SET(IPPROTO_TCP, TCP_THIN_LINEAR_TIMEOUTS, v1), SET(IPPROTO_TCP, TCP_THIN_DUPACK, v1),
	SET(IPPROTO_TCP, TCP_USER_TIMEOUT, v5000), SET(IPPROTO_TCP, TCP_FASTOPEN, v5),
	SET(IPPROTO_TCP, TCP_FASTOPEN_CONNECT, v1), SET(IPPROTO_TCP, TCP_NOTSENT_LOWAT, v1000),
	SET(IPPROTO_TCP, TCP_SAVE_SYN, v1), SET(IPPROTO_TCP, TCP_INQ, v1),
	SET(IPPROTO_TCP, TCP_TX_DELAY, v10), SET(IPPROTO_TCP, TCP_FASTOPEN_NO_COOKIE, v1),
	SET(IPPROTO_TCP, TCP_TIMESTAMP, v1), SET(IPPROTO_TCP, TCP_KEEPIDLE, v0),
	SET(IPPROTO_TCP, TCP_MAXSEG, v10), SET(IPPROTO_TCP, TCP_REPAIR_QUEUE, v1),
	SET(IPPROTO_IPV6, IPV6_UNICAST_HOPS, v9), SET(IPPROTO_IPV6, IPV6_TCLASS, v_tclass),
	SET(IPPROTO_IPV6, IPV6_RECVPKTINFO, v1), SET(IPPROTO_IPV6, IPV6_V6ONLY, v1),
	SET(IPPROTO_IPV6, IPV6_MTU_DISCOVER, v0), SET(IPPROTO_IPV6, IPV6_RECVERR, v1),
	SET(IPPROTO_IPV6, IPV6_DONTFRAG, v1), SET(IPPROTO_IPV6, IPV6_AUTOFLOWLABEL, v0),
	SET(IPPROTO_IPV6, IPV6_MINHOPCOUNT, v2), SET(IPPROTO_IPV6, IPV6_FREEBIND, v1),
	SET(IPPROTO_IPV6, IPV6_TRANSPARENT, v1), SET(IPPROTO_IPV6, IPV6_MULTICAST_HOPS, v3),
	SET(IPPROTO_IPV6, IPV6_RECVTCLASS, v1),
};

/* Set each of opt_sets on R and T, then compare every option again. */
static void opt_set_all(int r, int t, const char *where, struct opt_report *rep,
			unsigned int *sets)
{
	size_t i;

	for (i = 0; i < sizeof(opt_sets) / sizeof(opt_sets[0]); i++) {
		const struct opt_set *s = &opt_sets[i];
		int rt = setsockopt(t, s->level, s->name, s->val, s->len);
		int et = rt ? errno : 0;
		int rr = setsockopt(r, s->level, s->name, s->val, s->len);
		int er = rr ? errno : 0;

		(*sets)++;
		if ((rr != rt || er != et) && !s->differs)
			report(rep, "%s: setsockopt(%d, %d) len %u: RDMA %s, TCP %s\n",
			       where, s->level, s->name, (unsigned int)s->len,
			       rr ? strerror(er) : "0", rt ? strerror(et) : "0");
	}
}

/* The listening sockets of the 'O' server: the driver knows R, not T. */
static int opt_listener(int family, bool registered, uint16_t *port)
{
	struct sockaddr_in6 a6;
	struct sockaddr_in a;
	struct sockaddr_storage ss;
	socklen_t l = sizeof(ss);
	int fd = socket(family, SOCK_STREAM, 0), one = 1, r;

	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)))
		die("socket");
	memset(&a, 0, sizeof(a));
	memset(&a6, 0, sizeof(a6));
	a.sin_family = AF_INET;
	a6.sin6_family = AF_INET6;
	r = family == AF_INET ? bind(fd, (struct sockaddr *)&a, sizeof(a)) :
				bind(fd, (struct sockaddr *)&a6, sizeof(a6));
	if (r || (registered ? listen(fd, 4) : (int)syscall(SYS_listen, fd, 4)) ||
	    getsockname(fd, (struct sockaddr *)&ss, &l))
		die("bind/listen");
	*port = family == AF_INET ? ((struct sockaddr_in *)&ss)->sin_port :
				    ((struct sockaddr_in6 *)&ss)->sin6_port;
	return fd;
}

static void send_report(int fd, const struct opt_report *rep)
{
	uint32_t n[2] = { rep->bad, (uint32_t)rep->used };

	write_all(fd, n, sizeof(n));
	write_all(fd, rep->text, n[1]);
}

static const int opt_families[] = { AF_INET, AF_INET6 };

/* The server's side of sockopts (test 'O'): FD is the control connection. */
static void serve_sockopts(int fd)
{
	struct opt_report rep;
	size_t f;

	memset(&rep, 0, sizeof(rep));
	for (f = 0; f < 2; f++) {
		int fam = opt_families[f], lr, lt, sr, st;
		struct opt_name cl[4], accepted, s_r[2], s_t[2];
		const char *where = fam == AF_INET ? "server, IPv4" : "server, IPv4-mapped IPv6";
		unsigned int sets = 0;
		uint16_t ports[2];
		struct sockaddr_storage ss;
		socklen_t l = sizeof(ss);
		char w[64];

		lr = opt_listener(fam, true, &ports[0]);
		lt = opt_listener(fam, false, &ports[1]);
		write_all(fd, ports, sizeof(ports));
		sr = accept(lr, (struct sockaddr *)&ss, &l);
		if (sr < 0)
			die("accept");
		memset(&accepted, 0, sizeof(accepted));
		accepted.len = l;
		memcpy(accepted.a, &ss, l < sizeof(accepted.a) ? l : sizeof(accepted.a));
		st = accept(lt, NULL, NULL);
		if (st < 0)
			die("accept");
		if (!is_rdma(sr) || is_rdma(st))
			report(&rep, "%s: the connections are not one over RDMA and one over TCP\n", where);
		if (read_all(fd, cl, sizeof(cl)) != sizeof(cl))
			fail("no names from the client");
		name_of(sr, false, &s_r[0]);
		name_of(sr, true, &s_r[1]);
		name_of(st, false, &s_t[0]);
		name_of(st, true, &s_t[1]);
		/* cl: the client's RDMA local, peer; TCP local, peer. */
		snprintf(w, sizeof(w), "%s: RDMA getpeername", where);
		name_check(&rep, w, &s_r[1], &cl[0], true);
		snprintf(w, sizeof(w), "%s: RDMA accept's address", where);
		name_check(&rep, w, &accepted, &s_r[1], true);
		snprintf(w, sizeof(w), "%s: RDMA getsockname", where);
		name_check(&rep, w, &s_r[0], &cl[1], true);
		snprintf(w, sizeof(w), "%s: RDMA getsockname, address", where);
		name_check(&rep, w, &s_r[0], &s_t[0], false);
		snprintf(w, sizeof(w), "%s: RDMA getpeername, address", where);
		name_check(&rep, w, &s_r[1], &s_t[1], false);
		snprintf(w, sizeof(w), "%s: TCP getpeername", where);
		name_check(&rep, w, &s_t[1], &cl[2], true);
		name_opts(sr, where, &rep);
		opt_compare(sr, st, where, false, &rep);
		opt_set_all(sr, st, where, &rep, &sets);
		snprintf(w, sizeof(w), "%s, options set", where);
		opt_compare(sr, st, w, true, &rep);
		/* Both ends done before either closes (a FIN changes answers). */
		if (read_all(fd, w, 1) != 1)
			fail("the client went away");
		write_all(fd, "D", 1);
		close(sr);
		close(st);
		close(lr);
		close(lt);
	}
	send_report(fd, &rep);
}

/*
 * A connection of FAMILY to HOST's address, port PORT (network order);
 * NB: made with a non-blocking connect() (then made blocking).
 */
static int opt_dial(int family, const struct sockaddr_in *host, uint16_t port,
		    bool nb)
{
	struct sockaddr_in6 a6;
	struct sockaddr_in a = *host;
	int fd = socket(family, SOCK_STREAM | (nb ? SOCK_NONBLOCK : 0), 0), r, e = -1;
	struct pollfd p = { .fd = fd, .events = POLLOUT };
	socklen_t l = sizeof(e);

	if (fd < 0)
		die("socket");
	a.sin_port = port;
	memset(&a6, 0, sizeof(a6));
	a6.sin6_family = AF_INET6;
	a6.sin6_port = port;
	a6.sin6_addr.s6_addr[10] = 0xff;
	a6.sin6_addr.s6_addr[11] = 0xff;
	memcpy(&a6.sin6_addr.s6_addr[12], &a.sin_addr, 4);
	r = family == AF_INET ? connect(fd, (struct sockaddr *)&a, sizeof(a)) :
				connect(fd, (struct sockaddr *)&a6, sizeof(a6));
	if (nb && r && errno == EINPROGRESS) {
		if (poll(&p, 1, 10000) != 1 ||
		    getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &l) || e)
			fail("non-blocking connect: not connected");
		r = fcntl(fd, F_SETFL, 0);
	}
	if (r)
		die("connect");
	return fd;
}

static void t_sockopts(const char *host, const char *port, uint64_t n)
{
	struct addrinfo *res = resolve(host, port);
	struct sockaddr_in srv;
	struct opt_report rep;
	unsigned int sets = 0;
	uint32_t theirs_bad[2];
	char *theirs;
	size_t f;
	int fd;

	(void)n;
	memcpy(&srv, res->ai_addr, sizeof(srv));
	freeaddrinfo(res);
	fd = start(host, port, 'O');
	memset(&rep, 0, sizeof(rep));
	for (f = 0; f < 2; f++) {
		int fam = opt_families[f], cr, ct;
		const char *where = fam == AF_INET ? "client, IPv4" : "client, IPv4-mapped IPv6";
		struct opt_name names[4];
		uint16_t ports[2];
		char w[64];

		if (read_all(fd, ports, sizeof(ports)) != sizeof(ports))
			fail("no ports from the server");
		/* The IPv6 one over RDMA set up in the background. */
		cr = opt_dial(fam, &srv, ports[0], fam == AF_INET6);
		ct = opt_dial(fam, &srv, ports[1], false);
		if (!is_rdma(cr) || is_rdma(ct))
			report(&rep, "%s: the connections are not one over RDMA and one over TCP\n", where);
		name_of(cr, false, &names[0]);
		name_of(cr, true, &names[1]);
		name_of(ct, false, &names[2]);
		name_of(ct, true, &names[3]);
		write_all(fd, names, sizeof(names));
		snprintf(w, sizeof(w), "%s: RDMA getsockname, address", where);
		name_check(&rep, w, &names[0], &names[2], false);
		snprintf(w, sizeof(w), "%s: RDMA getpeername, address", where);
		name_check(&rep, w, &names[1], &names[3], false);
		name_opts(cr, where, &rep);
		opt_compare(cr, ct, where, false, &rep);
		opt_set_all(cr, ct, where, &rep, &sets);
		snprintf(w, sizeof(w), "%s, options set", where);
		opt_compare(cr, ct, w, true, &rep);
		write_all(fd, "D", 1);
		if (read_all(fd, w, 1) != 1)
			fail("the server went away");
		close(cr);
		close(ct);
	}
	if (read_all(fd, theirs_bad, sizeof(theirs_bad)) != sizeof(theirs_bad) ||
	    theirs_bad[1] > sizeof(rep.text))
		fail("no report from the server");
	theirs = calloc(1, theirs_bad[1] + 1);
	if (!theirs || read_all(fd, theirs, theirs_bad[1]) != theirs_bad[1])
		fail("no report from the server");
	close(fd);
	if (rep.bad || theirs_bad[0]) {
		fprintf(stderr, "%s%s", rep.text, theirs);
		fprintf(stderr, "%s: %u differences here, %u at the server\n", mode,
			rep.bad, theirs_bad[0]);
		fail("options or names differ from TCP's");
	}
	printf("ok %s: IPv4 and IPv4-mapped IPv6, both ends: %u options (%u with values that differ, as documented) asked %u times, %u set, and the names, as TCP\n",
	       mode, rep.options / 2, rep.differ / 2, rep.asked, sets);
}

/*
 * connect() to HOST:PORT with a SIGALRM 200 ms into it (the suite makes
 * the server's driver serve ConnRQs late): the socket, connect's errno in
 * *ERR (0 when it succeeded).
 */
static int dial_ticked(const char *host, const char *port, bool restart, int *err)
{
	struct itimerval it = { .it_value = { .tv_usec = 200000 } };
	struct addrinfo *res = resolve(host, port);
	struct sigaction sa;
	int fd, r;

	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0)
		die("socket");
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_tick;
	sa.sa_flags = restart ? SA_RESTART : 0;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGALRM, &sa, NULL) || setitimer(ITIMER_REAL, &it, NULL))
		die("sigaction/setitimer");
	r = connect(fd, res->ai_addr, res->ai_addrlen);
	*err = r ? errno : 0;
	freeaddrinfo(res);
	return fd;
}

/* An echo of N bytes through FD (the 'E' server). */
static void echo_bytes(int fd, size_t n)
{
	static unsigned char out[65536], in[65536];
	char t = 'E';
	size_t i;

	if (n > sizeof(out))
		n = sizeof(out);
	for (i = 0; i < n; i++)
		out[i] = (unsigned char)(i * 31 + 3);
	write_all(fd, &t, 1);
	write_all(fd, out, n);
	if (read_all(fd, in, n) != n || memcmp(in, out, n))
		fail("no echo, or a different one");
}

#define LATE_GO		"/tmp/sor-test-late-go"

static double ms_since(const struct timespec *t0);

/*
 * Connect, wait until the file LATE_GO exists, then one echo of 4 KiB:
 * suite 20 makes the server's node stop draining its mailbox first, so
 * that the engine's message telling it the data arrived meets a full FIFO.
 */
static void t_late(const char *host, const char *port, uint64_t n)
{
	int fd = dial(host, port, 0, false);
	struct timespec t0;

	(void)n;
	if (!is_rdma(fd))
		fail("the connection went over TCP, not RDMA");
	alarm(60);
	while (access(LATE_GO, F_OK))
		usleep(10000);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	echo_bytes(fd, 4096);
	close(fd);
	printf("ok %s: 4096 bytes echoed over RDMA in %.0f ms\n", mode, ms_since(&t0));
}

/* The library maps each connection once; none may be left after WHEN. */
static void no_sor_maps(const char *when)
{
	unsigned long len;

	if (sor_maps(&len)) {
		fprintf(stderr, "%s: %s\n", mode, when);
		fail("a connection's mapping is left in the process");
	}
}

/*
 * resized: rings of the default size to serve-many's listener of small
 * ones.  connect() maps them while the answer is on its way, and the
 * server's ACCEPT chooses smaller ones, so the mapping is made again:
 * one mapping, of the sizes in use, each echo through the new rings, and
 * none left once closed.
 */
static void t_resized(const char *host, const char *port, uint64_t n)
{
	struct eusrv_sor_info in;
	unsigned long len;
	uint64_t i;

	if (!n)
		n = 20;
	no_sor_maps("before the first connect()");
	for (i = 0; i < n; i++) {
		int fd = dial(host, port, 0, false);

		memset(&in, 0, sizeof(in));
		if (!is_rdma(fd) || ioctl(fd, EUSRV_SOR_INFO, &in))
			fail("the connection went over TCP, not RDMA");
		if (in.snd_size != SMALL_BUF || in.rcv_size != SMALL_BUF)
			fail("the rings are not the sizes the listener chose");
		if (sor_maps(&len) != 1 || len != in.map_len)
			fail("not one mapping of the connection, of its length");
		echo_check(fd, (uint32_t)i);
		echo_check(fd, (uint32_t)~i);
		close(fd);
		no_sor_maps("after close()");
	}
	printf("ok %s: %llu connections of default rings to a listener of %d-byte ones: mapped once at the chosen sizes, echoed, nothing left mapped\n",
	       mode, (unsigned long long)n, SMALL_BUF);
}

struct fork_probe {
	int parent_maps;	/* the connection files mapped when it forked */
	int child_status;
};

/* 200 ms into the connect() of t_forkconnect: fork, the child looks. */
static void *fork_probe(void *arg)
{
	struct fork_probe *fp = arg;
	unsigned long len;
	pid_t pid;

	usleep(200000);
	fp->parent_maps = sor_maps(&len);
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid)
		_exit(sor_maps(&len) ? 3 : 0);
	if (waitpid(pid, &fp->child_status, 0) != pid)
		die("waitpid");
	return NULL;
}

/*
 * forkconnect (the suite makes the server answer 600 ms late): a thread
 * forks while connect() waits.  The parent has the rings mapped already,
 * the child must not: a connection it has no descriptor of would stay
 * mapped, so open, in the child.  Then the parent's connection as usual.
 */
static void t_forkconnect(const char *host, const char *port, uint64_t n)
{
	struct fork_probe fp = { .parent_maps = -1 };
	pthread_t t;
	int fd;

	(void)n;
	no_sor_maps("before connect()");
	if (pthread_create(&t, NULL, fork_probe, &fp))
		die("pthread_create");
	fd = dial(host, port, 0, false);
	pthread_join(t, NULL);
	if (fp.parent_maps != 1)
		fail("connect() had not mapped the rings 200 ms into its wait");
	if (!WIFEXITED(fp.child_status) || WEXITSTATUS(fp.child_status))
		fail("a child forked while connect() waited has the rings mapped");
	if (!is_rdma(fd))
		fail("the connection went over TCP, not RDMA");
	echo_bytes(fd, 65536);
	close(fd);
	no_sor_maps("after close()");
	printf("ok %s: mapped during connect(), not in a child forked then; over RDMA, echoed, nothing left mapped\n",
	       mode);
}

/* SA_RESTART: connect() goes on through the signal, over RDMA. */
static void t_sigconnect(const char *host, const char *port, uint64_t n)
{
	int err, fd = dial_ticked(host, port, true, &err);
	unsigned long len;

	(void)n;
	if (err)
		fail("connect() under SA_RESTART did not go on through the signal");
	if (ticks != 1)
		fail("the timer's signal never came during connect()");
	if (!is_rdma(fd))
		fail("the connection restarted went over TCP, not RDMA");
	/* The first attempt's mapping went with it. */
	if (sor_maps(&len) != 1)
		fail("not one mapping after a connect() restarted");
	echo_bytes(fd, 65536);
	close(fd);
	no_sor_maps("after close()");
	printf("ok %s: connect() restarted through a signal (SA_RESTART), over RDMA, mapped once, echoed\n",
	       mode);
}

/*
 * No SA_RESTART: connect() says EINTR and the attempt goes on in the
 * background (as TCP's); POLLOUT and SO_ERROR 0 tell that it connected, a
 * second connect() that it is.  It goes on over TCP.
 */
static void t_intrconnect(const char *host, const char *port, uint64_t n)
{
	int err, so = -1, fd = dial_ticked(host, port, false, &err);
	struct pollfd p = { .fd = fd, .events = POLLOUT };
	socklen_t sl = sizeof(so);
	struct sockaddr_in peer;
	socklen_t pl = sizeof(peer);

	(void)n;
	if (err != EINTR)
		fail("connect() interrupted: not EINTR");
	if (ticks != 1)
		fail("the timer's signal never came during connect()");
	if (poll(&p, 1, 10000) != 1 || !(p.revents & POLLOUT))
		fail("no POLLOUT after the interrupted connect()");
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &so, &sl) || so)
		fail("SO_ERROR after the interrupted connect(): not 0");
	if (getpeername(fd, (struct sockaddr *)&peer, &pl))
		fail("getpeername after the interrupted connect()");
	/* Linux's TCP says 0 to the first connect() after completion. */
	if (connect(fd, (struct sockaddr *)&peer, pl) && errno != EISCONN)
		die("connect() again: not connected");
	if (is_rdma(fd))
		fail("the interrupted connection went over RDMA, not TCP");
	no_sor_maps("over TCP after an interrupted connect()");
	echo_bytes(fd, 65536);
	close(fd);
	printf("ok %s: connect() said EINTR, went on over TCP: POLLOUT, SO_ERROR 0, connected, echoed\n",
	       mode);
}

/* ---- non-blocking connect(): set-up in the background ---- */

/* A non-blocking socket whose connect() to RES said EINPROGRESS. */
static int nb_connect(const struct addrinfo *res)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);

	if (fd < 0)
		die("socket");
	if (connect(fd, res->ai_addr, res->ai_addrlen) != -1 || errno != EINPROGRESS)
		die("non-blocking connect(): not EINPROGRESS");
	return fd;
}

/* The events of FD that an epoll set waiting MS for EVENTS reports (0: none). */
static uint32_t epoll_once(int fd, uint32_t events, int ms)
{
	struct epoll_event ev = { .events = events }, out = { 0 };
	int ep = epoll_create1(0);

	if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev))
		die("epoll_create1/epoll_ctl");
	if (epoll_wait(ep, &out, 1, ms) != 1)
		out.events = 0;
	close(ep);
	return out.events;
}

static double ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) * 1e3 +
	       (double)(t.tv_nsec - t0->tv_nsec) / 1e6;
}

/*
 * A non-blocking connect() to HOST:PORT, as an event loop does it: it
 * must say EINPROGRESS before the connection is up (the suite makes the
 * server's driver answer 1 s late, or the server is no RDMA listener),
 * then EPOLLOUT comes for the descriptor registered meanwhile and
 * SO_ERROR says 0.  RDMA: whether it must end over RDMA.
 */
static void bg_connect(const char *host, const char *port, bool rdma,
		       bool closefrom)
{
	struct addrinfo *res = resolve(host, port);
	struct pollfd pf;
	struct sockaddr_in peer;
	socklen_t pl = sizeof(peer), sl;
	struct timespec t0;
	double t_in, t_up;
	int fd, nul = -1, so = -1;
	char b;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	fd = nb_connect(res);
	t_in = ms_since(&t0);
	pf.fd = fd;
	pf.events = POLLOUT;
	if (rdma && poll(&pf, 1, 0) != 0)
		fail("writable at once, before the late server could answer");
	/* While connecting, as a TCP socket in SYN_SENT. */
	if (rdma && (getpeername(fd, (struct sockaddr *)&peer, &pl) != -1 ||
		     errno != ENOTCONN))
		fail("getpeername while connecting: not ENOTCONN");
	if (rdma && (recv(fd, &b, 1, 0) != -1 || errno != EAGAIN))
		fail("recv while connecting: not EAGAIN");
	if (rdma && (connect(fd, res->ai_addr, res->ai_addrlen) != -1 ||
		     errno != EALREADY))
		fail("connect() again while connecting: not EALREADY");
	if (!(epoll_once(fd, EPOLLOUT, 20000) & EPOLLOUT))
		fail("no EPOLLOUT within 20 s");
	t_up = ms_since(&t0);
	sl = sizeof(so);
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &so, &sl) || so)
		fail("SO_ERROR after EPOLLOUT: not 0");
	if (is_rdma(fd) != rdma)
		fail(rdma ? "the connection did not end over RDMA" :
			    "the connection went over RDMA, not TCP");
	pl = sizeof(peer);
	if (getpeername(fd, (struct sockaddr *)&peer, &pl))
		die("getpeername once connected");
	if (fcntl(fd, F_SETFL, 0))
		die("F_SETFL");
	if (closefrom) {
		/*
		 * As a daemon closing what it did not open: the library's own
		 * descriptor of the socket goes too, and its number comes
		 * back as the program's.
		 */
		if (close_range((unsigned int)fd + 1, ~0U, 0))
			die("close_range");
		nul = open("/dev/null", O_WRONLY);
		if (nul < 0)
			die("open /dev/null");
	}
	echo_bytes(fd, 65536);
	if (closefrom && write(nul, "x", 1) != 1)
		fail("the program's /dev/null after the connection's calls: not writable");
	freeaddrinfo(res);
	if (closefrom)
		close(nul);
	close(fd);
	printf("ok %s: EINPROGRESS after %.1f ms, EPOLLOUT after %.0f ms, SO_ERROR 0, over %s, echoed\n",
	       mode, t_in, t_up, rdma ? "RDMA" : "TCP");
}

static void t_bgconnect(const char *host, const char *port, uint64_t n)
{
	(void)n;
	bg_connect(host, port, true, false);
}

/*
 * The server listens past the library: set-up fails, TCP takes over.  N
 * = 1: the program then closes every descriptor above the connection's
 * (closefrom) and opens one in its place; the connection still works and
 * the new descriptor is left alone.
 */
static void t_bgfallback(const char *host, const char *port, uint64_t n)
{
	bg_connect(host, port, false, n == 1);
}

/*
 * Nobody listens on PORT at all: set-up is refused, TCP takes over and is
 * refused too: SO_ERROR says ECONNREFUSED, as for TCP, and the descriptor
 * then polls EPOLLHUP.  The first readiness is the library's turn to
 * connect (the program's own thread makes TCP's connect, docs/protocol.md
 * section 3): it carries EPOLLOUT, and SO_ERROR asked then has TCP's answer.
 */
static void t_bgrefused(const char *host, const char *port, uint64_t n)
{
	struct addrinfo *res = resolve(host, port);
	int fd = nb_connect(res), so = 0;
	socklen_t sl = sizeof(so);

	(void)n;
	if (!(epoll_once(fd, EPOLLOUT, 20000) & EPOLLOUT))
		fail("no EPOLLOUT within 20 s");
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &so, &sl) || so != ECONNREFUSED)
		fail("SO_ERROR: not ECONNREFUSED");
	if (!(epoll_once(fd, EPOLLOUT, 1000) & EPOLLHUP))
		fail("refused: no EPOLLHUP");
	freeaddrinfo(res);
	close(fd);
	printf("ok %s: EINPROGRESS, then EPOLLOUT, SO_ERROR ECONNREFUSED, EPOLLHUP\n", mode);
}

#if defined(__x86_64__)
#define SECCOMP_ARCH	AUDIT_ARCH_X86_64
#elif defined(__i386__)
#define SECCOMP_ARCH	AUDIT_ARCH_I386
#elif defined(__aarch64__)
#define SECCOMP_ARCH	AUDIT_ARCH_AARCH64
#elif defined(__arm__)
#define SECCOMP_ARCH	AUDIT_ARCH_ARM
#endif

/* From now on this process's connect(2) fails with EPERM (a seccomp filter). */
static void forbid_connect(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SECCOMP_ARCH, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_connect, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {
		.len = (unsigned short)(sizeof(f) / sizeof(f[0])), .filter = f,
	};

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog))
		die("seccomp filter");
}

/*
 * The program forbids itself connect(2) with a seccomp filter, then asks
 * for a non-blocking connect() to a listener unknown to the driver: the
 * set-up fails, and the TCP connect that takes over is the program's own,
 * under its filter: EPOLLOUT, then SO_ERROR says EPERM, not 0.
 */
static void t_bgseccomp(const char *host, const char *port, uint64_t n)
{
	struct addrinfo *res = resolve(host, port);
	int fd, so = -1;
	socklen_t sl = sizeof(so);
	uint32_t ev;

	(void)n;
	forbid_connect();
	fd = nb_connect(res);
	ev = epoll_once(fd, EPOLLOUT, 20000);
	if (!(ev & EPOLLOUT))
		fail("no EPOLLOUT within 20 s");
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &so, &sl) || so != EPERM)
		fail(so ? "SO_ERROR: not EPERM" :
			  "SO_ERROR 0: connected past the program's seccomp filter");
	freeaddrinfo(res);
	close(fd);
	printf("ok %s: EINPROGRESS, then SO_ERROR EPERM: the TCP connect was the program's, under its filter\n",
	       mode);
}

/* N non-blocking connect()s closed before the (late) server answers. */
static void t_bgclose(const char *host, const char *port, uint64_t n)
{
	struct addrinfo *res = resolve(host, port);
	uint64_t i;

	for (i = 0; i < n; i++)
		close(nb_connect(res));
	freeaddrinfo(res);
	printf("ok %s: %llu connections closed while setting up\n", mode,
	       (unsigned long long)n);
}

/* ---- a hostile server's ADDR ---- */

/*
 * The suite makes the server's driver name a forged frame in its ADDR.
 * N = 0: one whose rings would reach past the server's memory window into
 * its registers: the client refuses it, set-up times out and the
 * connection goes over TCP, echoed.  N = 1: one inside the window but
 * past the server's RAM: taken, and the first transfer into it fails: the
 * connection ends with an error, nothing hangs.
 */
static void t_badaddr(const char *host, const char *port, uint64_t n)
{
	static unsigned char buf[65536];
	int fd = dial(host, port, 0, false), e;
	char t = 'E';
	ssize_t r;

	alarm(30);
	if (!n) {
		if (is_rdma(fd))
			fail("a frame reaching past the server's window was taken");
		echo_bytes(fd, sizeof(buf));
		close(fd);
		printf("ok %s: an ADDR reaching past the server's window is refused: over TCP, echoed\n",
		       mode);
		return;
	}
	if (!is_rdma(fd))
		fail("the frame inside the window was not taken (no RDMA connection)");
	memset(buf, 0x5a, sizeof(buf));
	/*
	 * The error is reported once, as TCP's: to a send if the transfer
	 * failed by then, else to the recv (a recv after it sees EOF).
	 */
	e = 0;
	if (send(fd, &t, 1, MSG_NOSIGNAL) != 1 ||
	    send(fd, buf, sizeof(buf), MSG_NOSIGNAL) < 0)
		e = errno;
	r = recv(fd, buf, sizeof(buf), 0);
	if (r < 0 && !e)
		e = errno;
	alarm(0);
	if (r > 0)
		fail("data came back through a frame past the server's RAM");
	if (e != ECONNRESET && e != EIO && e != EPIPE)
		fail("the connection into a frame past the server's RAM: no ECONNRESET, EIO or EPIPE");
	close(fd);
	printf("ok %s: an ADDR past the server's RAM: the first transfer fails, %s\n",
	       mode, strerror(e));
}

/* ---- a vfork child changes its own descriptors only ---- */

/*
 * The child of vfork runs in its parent's memory: its dup2 of the
 * connection over a file descriptor of the parent's, and its close of the
 * connection, must not make the parent's library take that descriptor
 * for the connection, or forget the connection.
 */
static void t_vfork(const char *host, const char *port, uint64_t n)
{
	char path[] = "/tmp/sor-vfork-XXXXXX", back[6] = "";
	int fd = start(host, port, 'E'), file, st;
	uint32_t v = 0x5a5a5a5a, w = 0;
	pid_t pid;

	(void)n;
	file = mkstemp(path);
	if (file < 0)
		die("mkstemp");
	unlink(path);
	pid = vfork();
	if (pid == 0) {
		if (dup2(fd, file) < 0 || close(fd) < 0)
			_exit(1);
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) ||
	    WEXITSTATUS(st))
		fail("vfork child: dup2 and close");
	if (write(file, "hello", 5) != 5 || pread(file, back, 5, 0) != 5 ||
	    memcmp(back, "hello", 5))
		fail("the parent's file after the vfork child's dup2: not the file");
	write_all(fd, &v, sizeof(v));
	if (read_all(fd, &w, sizeof(w)) != sizeof(w) || w != v)
		fail("the parent's connection after the vfork child's close: no echo");
	close(file);
	close(fd);
	printf("ok %s: a vfork child's dup2 over a file and close of the connection left the parent's both as they were\n",
	       mode);
}

static const struct {
	const char *mode;
	void (*fn)(const char *host, const char *port, uint64_t n);
} tests[] = {
	{ "integrity", t_integrity }, { "fork", t_fork }, { "threads", t_threads },
	{ "dup", t_dup }, { "epoll", t_epoll }, { "nonblock", t_nonblock },
	{ "halfclose", t_halfclose }, { "calls", t_calls }, { "unread", t_unread },
	{ "peerkill", t_peerkill }, { "many", t_many }, { "cycles", t_cycles },
	{ "scribble", t_scribble }, { "closeflush", t_closeflush },
	{ "closestall", t_closestall },
	{ "soak", t_soak }, { "forgotten", t_forgotten }, { "stress", t_stress },
	{ "inetd", t_inetd }, { "reexec", t_reexec }, { "execclient", t_execclient },
	{ "passfd", t_passfd }, { "signals", t_signals }, { "shutrd", t_shutrd },
	{ "sigcycles", t_cycles },	/* against serve-sig */
	{ "async", t_async }, { "preopts", t_preopts }, { "linger0", t_linger0 },
	{ "locks", t_locks }, { "slowread", t_slowread }, { "vfork", t_vfork },
	{ "cancel", t_cancel }, { "mmsg", t_mmsg }, { "splice", t_splice },
	{ "sigconnect", t_sigconnect }, { "intrconnect", t_intrconnect },
	{ "badaddr", t_badaddr }, { "bgconnect", t_bgconnect },
	{ "bgfallback", t_bgfallback }, { "bgrefused", t_bgrefused },
	{ "bgseccomp", t_bgseccomp }, { "late", t_late },
	{ "bgclose", t_bgclose }, { "sockopts", t_sockopts },
	{ "emfile", t_emfile }, { "resized", t_resized },
	{ "forkconnect", t_forkconnect },
};

/*
 * An echo server whose accept() is interrupted all the time: SIGALRM
 * every millisecond without SA_RESTART, as a busy forking server gets
 * SIGCHLD.  No connection may be lost to a signal.
 */
static int serve_sig(int port)
{
	struct itimerval it = { .it_interval = { .tv_usec = 1000 },
				.it_value = { .tv_usec = 1000 } };
	struct sigaction sa;
	int l = listen_on(port, 128, false);

	signal(SIGCHLD, SIG_IGN);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
	for (;;) {
		int fd = accept_next(l);

		if (fork() == 0) {
			struct itimerval off = { 0 };

			setitimer(ITIMER_REAL, &off, NULL);
			close(l);
			serve_echo(fd);
			_exit(0);
		}
		close(fd);
	}
}

/* How many descriptors this process has open. */
static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = -1;	/* the directory's own */

	if (!d)
		die("opendir /proc/self/fd");
	while (readdir(d))
		n++;
	closedir(d);
	return n - 2;	/* . and .. */
}

/*
 * serve-emfile: accept() out of descriptors behaves as TCP's: it fails
 * with EMFILE and the connection waits for the next accept().  Round 1:
 * one descriptor left (the dummy's socket takes it, the connection's file
 * finds none): accept() fails with EMFILE, and again at once; with the
 * limit back, the next accept() is the same client, over RDMA, echoed.
 * Round 2: EMFILE again, then the listener is closed: the connection that
 * waited goes with it (no descriptor left behind) and its client is told.
 */
static int serve_emfile(int port)
{
	int l = listen_on(port, 16, false), round;
	struct rlimit old, low;

	if (getrlimit(RLIMIT_NOFILE, &old))
		die("getrlimit");
	for (round = 1; round <= 2; round++) {
		int before = count_fds(), free_fd = dup(0), fd, i;
		char buf[sizeof(EMFILE_HELLO)];
		struct timespec t0, t1;

		if (free_fd < 0)
			die("dup");
		close(free_fd);
		low = old;
		low.rlim_cur = (rlim_t)free_fd + 1;
		if (setrlimit(RLIMIT_NOFILE, &low))
			die("setrlimit");
		for (i = 0; i < 2; i++) {
			clock_gettime(CLOCK_MONOTONIC, &t0);
			do {
				fd = accept(l, NULL, NULL);
			} while (fd < 0 && errno == EINTR);
			clock_gettime(CLOCK_MONOTONIC, &t1);
			if (fd >= 0)
				fail("emfile: accept gave a descriptor with none left for the connection");
			if (errno != EMFILE)
				die("emfile: accept without descriptors: not EMFILE");
			if (i && t1.tv_sec - t0.tv_sec > 1)
				fail("emfile: the second accept waited for a new client");
		}
		if (round == 2) {
			close(l);
			if (setrlimit(RLIMIT_NOFILE, &old))
				die("setrlimit");
			if (count_fds() != before - 1)
				fail("emfile: descriptors left behind by the closed listener");
			break;
		}
		if (setrlimit(RLIMIT_NOFILE, &old))
			die("setrlimit");
		fd = accept(l, NULL, NULL);
		if (fd < 0)
			die("emfile: accept with the limit back");
		if (!is_rdma(fd))
			fail("emfile: the client that waited did not come over RDMA");
		if (read_all(fd, buf, sizeof(buf)) != sizeof(buf) ||
		    memcmp(buf, EMFILE_HELLO, sizeof(buf)))
			fail("emfile: the client's greeting lost");
		write_all(fd, buf, sizeof(buf));
		close(fd);
	}
	printf("emfile: accept() out of descriptors: EMFILE twice, the client kept; a closed listener drops it\n");
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t n;
	size_t i;

	if (argc == 3 && !strcmp(argv[1], "serve"))
		return serve(atoi(argv[2]));
	if (argc == 3 && !strcmp(argv[1], "serve-tcp")) {
		raw_listen = true;
		return serve(atoi(argv[2]));
	}
	/* The images a hand-over execs (see exec_inetd, exec_self, t_execclient). */
	if (argc == 2 && !strcmp(argv[1], "inetd-echo")) {
		mode = argv[1];
		return handler(0, 1, false);
	}
	if (argc == 3 && !strcmp(argv[1], "reexec-echo")) {
		mode = argv[1];
		return handler(atoi(argv[2]), atoi(argv[2]), true);
	}
	if (argc == 4 && !strcmp(argv[1], "exec-child")) {
		const char *why;
		int fd = atoi(argv[2]);

		mode = argv[1];
		why = same_socket(fd, true);
		if (why)
			fail(why);
		echo_rounds(fd, strtoull(argv[3], NULL, 10), 4096);
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "serve-emfile")) {
		mode = argv[1];
		return serve_emfile(atoi(argv[2]));
	}
	if (argc == 3 && !strcmp(argv[1], "serve-sig"))
		return serve_sig(atoi(argv[2]));
	if (argc == 3 && !strcmp(argv[1], "serve-many")) {
		serve_many(atoi(argv[2]));
		return 1;
	}
	if (argc < 4)
		fail("usage: sor-test serve|serve-many|serve-sig PORT | MODE HOST PORT [N]");
	mode = argv[1];
	n = argc > 4 ? strtoull(argv[4], NULL, 10) : 1 << 20;
	for (i = 0; i < sizeof(tests) / sizeof(tests[0]); i++) {
		if (!strcmp(mode, tests[i].mode)) {
			tests[i].fn(argv[2], argv[3], n);
			return 0;
		}
	}
	fail("unknown mode");
	return 0;
}
