// SPDX-License-Identifier: GPL-2.0
/*
 * A structured random test of the eusrv_sor driver's user interface
 * (uapi/eusrv/sor.h), run as an unprivileged user on two nodes at once by
 * tests/board/65-sor-fuzz.sh:
 *
 *   sor-fuzz SEED SECONDS PEER LPORTS PPORTS [DEPTH]
 *
 * For SECONDS it runs random operations from a table (ops[] at the end) on
 * control files, on connection files (CONNECT to node PEER's ports PPORTS
 * and others, ACCEPT of what its own listeners on LPORTS take), on their
 * mappings (sizes, protections, scribbles over the ring headers and data),
 * sockets, descriptors (dup, close) and child processes (fork, exec, kill).
 * It does not judge the driver's answers; it only must never hang: every
 * operation runs under an interval timer whose SIGALRM (no SA_RESTART)
 * interrupts a blocking call.  Each operation is logged before it runs
 * ("PID #N op args"), so the last line a process printed names the call
 * it was in; the seed on the first line replays the sequence of choices
 * (not the driver's timing).  Exit status: 0 at the end of SECONDS, 2 for
 * bad arguments, 3 when a child was not reaped 20 s after SIGKILL (stuck
 * in the kernel: its wchan is printed), 4 on SIGSEGV or SIGBUS.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/sockios.h>
#include <uapi/eusrv/sor.h>

#include "sor-progs.h"

#define NCTL	4
#define NCONN	12
#define NSOCK	8
#define NLSN	2
#define NKID	6
#define NPORT	8
#define PAGE	4096UL
#define SCRATCH	(64 * PAGE)	/* writable, then a PROT_NONE guard page */
#define BUF	(1 << 17)
#define NODE_IP(n) htonl(0xc6120000U + 10 + (n))	/* 198.18.0.(10 + n) */
#define N_OF(a)	(sizeof(a) / sizeof((a)[0]))
#define PICK(a)	((a)[below(N_OF(a))])

/* A mapping of a connection file, with what INFO said once it was made. */
struct map {
	unsigned char *p;
	size_t len;
	int prot;
	struct eusrv_sor_info in;	/* map_len 0: not a connection's */
};

static struct {
	int ctl[NCTL], conn[NCONN], sock[NSOCK], lsn[NLSN];
	struct map map[NCONN];
	pid_t kid[NKID], pid, dead;	/* children, ours, the last child reaped */
	int pipe[2], devnull, exe, ep, last_closed;
	uint16_t lport[NPORT], pport[NPORT];
	unsigned int nl, np, peer, depth;
	unsigned char *scratch, *ro;
	char **argv;
	unsigned long nops;
	bool sane;	/* this operation's arguments all well-formed but its timing */
} S;

static unsigned char buf[BUF];

/* A malformed choice, with PCT percent, unless this operation is a sane one. */
static bool odd(unsigned int pct)
{
	return !S.sane && coin(pct);
}

/* One line per operation, before it runs: "PID #N what". */
static void say(const char *fmt, ...)
{
	va_list ap;

	printf("%d #%lu ", (int)S.pid, S.nops);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

static void on_alarm(int sig)
{
	(void)sig;
}

static void on_fault(int sig)
{
	static const char m[] = "sor-fuzz: SIGSEGV or SIGBUS (the last line says where)\n";

	(void)sig;
	(void)!write(2, m, sizeof(m) - 1);
	_exit(4);
}

/* SIGALRM after MS, then every 50 ms until disarmed (0). */
static void timer_ms(unsigned int ms)
{
	struct itimerval it = {
		.it_interval = { .tv_usec = ms ? 50000 : 0 },
		.it_value = { .tv_sec = ms / 1000, .tv_usec = (ms % 1000) * 1000 },
	};

	setitimer(ITIMER_REAL, &it, NULL);
}

/*
 * A pointer the kernel must refuse, or one whose LEN bytes run into the
 * guard page: never into memory this program keeps anything in.
 */
static void *badptr(size_t len)
{
	switch (below(7)) {
	case 0: return NULL;
	case 1: return (void *)(uintptr_t)(1 + below(4095));
	case 2: return S.scratch + SCRATCH - (len > 1 ? 1 + below(len - 1) : 0);
	case 3: return S.scratch + SCRATCH;
	case 4: return S.ro;	/* read-only: in-arguments work, out-arguments fault */
	case 5: return (void *)(uintptr_t)0xffff888000000000ULL;
	default: return (void *)(uintptr_t)(rnd() | 1ULL << 63);
	}
}

static void *arg(void *good, size_t len)
{
	return odd(8) ? badptr(len) : good;
}

/* A call's result as the operations return it: R, or -errno. */
static long sys(long r)
{
	return r < 0 ? -errno : r;
}

#define SKIP	(-10000L)	/* an operation that found nothing to work on */

/* ---- descriptors ---- */

static void drop(int *slot)
{
	if (*slot > 2) {
		close(*slot);
		S.last_closed = *slot;
	}
	*slot = -1;
}

static void put(int *slot, long fd)
{
	if (fd < 0 || *slot == fd)
		return;
	drop(slot);
	*slot = (int)fd;
}

static void unmap(struct map *m)
{
	if (m->p)
		munmap(m->p, m->len);
	memset(m, 0, sizeof(*m));
}

/* A new connection file into a random slot (its mapping mostly goes). */
static void put_conn(long fd)
{
	unsigned int i = below(NCONN);

	if (fd < 0)
		return;
	say("new connection fd=%ld", fd);
	if (coin(70))
		unmap(&S.map[i]);
	put(&S.conn[i], fd);
}

static int any_fd(void)
{
	switch (below(12)) {
	case 0: return -1;
	case 1: return coin(80) ? 3 + (int)below(61) : INT_MAX;	/* never stdout */
	case 2: return S.last_closed;
	case 3: return coin(50) ? S.devnull : S.exe;
	case 4: return S.pipe[below(2)];
	case 5: return S.ctl[below(NCTL)];
	case 6: return S.lsn[below(NLSN)];
	case 7: case 8: return S.sock[below(NSOCK)];
	default: return S.conn[below(NCONN)];
	}
}

static int *any_slot(void)
{
	switch (below(4)) {
	case 0: return &S.ctl[below(NCTL)];
	case 1: return &S.lsn[below(NLSN)];
	case 2: return &S.sock[below(NSOCK)];
	default: return &S.conn[below(NCONN)];
	}
}

static int ctl_fd(void)
{
	return odd(8) ? any_fd() : S.ctl[below(NCTL)];
}

static uint16_t port_of(const uint16_t *set, unsigned int n)
{
	if (!odd(15))
		return set[below(n)];
	return coin(50) ? (uint16_t)rnd() : coin(50) ? 0 : 65535;
}

static uint8_t shift(void)
{
	static const uint8_t good[] = { 0, 0, 0, 12, 12, 13, 16, 18, 21 }, bad[] = { 11, 22, 23, 255 };

	if (!odd(25))
		return PICK(good);
	return coin(80) ? PICK(bad) : (uint8_t)rnd();
}

static void sin_of(struct sockaddr_in *a, uint32_t addr, uint16_t port)
{
	memset(a, 0, sizeof(*a));
	a->sin_family = AF_INET;
	a->sin_addr.s_addr = addr;
	a->sin_port = htons(port);
}

/*
 * A socket of KIND: 0 TCP unbound, 1 bound, 2 listening on PORT (IPv4, any
 * address), 3 connecting, 4 UDP, 5 AF_UNIX, 6 listening on PORT but
 * unreachable for the board (IPv6-only, loopback) or not (IPv6 and IPv4).
 */
static int new_sock(unsigned int kind, uint16_t port)
{
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6, .sin6_port = htons(port) };
	bool v6 = kind == 6 && coin(60);
	struct sockaddr_in a;
	int s, sv[2], one = 1;

	if (S.depth && (kind == 2 || kind == 6))
		port = 0;	/* a child's: never one the peer connects to */
	if (kind == 5) {
		if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
			return -1;
		close(sv[1]);
		return sv[0];
	}
	s = socket(v6 ? AF_INET6 : AF_INET, (kind == 4 ? SOCK_DGRAM : SOCK_STREAM) |
		   (kind == 2 || kind == 6 || coin(50) ? SOCK_NONBLOCK : 0), 0);
	if (s < 0)
		return -1;
	setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	/* A new listener while a child still holds the old one (the port's group). */
	if (kind == 2)
		setsockopt(s, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one));
	sin_of(&a, kind == 6 || (kind != 2 && coin(20)) ? htonl(INADDR_LOOPBACK) : INADDR_ANY, port);
	one = coin(50);
	if (v6 && !setsockopt(s, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one)))
		bind(s, (void *)&a6, sizeof(a6));
	else if (kind)
		bind(s, (void *)&a, sizeof(a));
	if (kind == 2 || kind == 6)
		listen(s, coin(90) ? 16 : (int)below(3));
	if (kind == 3) {
		sin_of(&a, coin(50) ? htonl(INADDR_LOOPBACK) : NODE_IP(S.peer),
		       port_of(S.pport, S.np));
		connect(s, (void *)&a, sizeof(a));
	}
	return s;
}

/* The local port of socket FD, or one of ours if it has none. */
static uint16_t bound_port(int fd)
{
	union { struct sockaddr sa; struct sockaddr_in in; struct sockaddr_in6 in6; } a;
	socklen_t len = sizeof(a);

	if (getsockname(fd, &a.sa, &len) || !a.in.sin_port)
		return S.lport[below(S.nl)];
	return ntohs(a.sa.sa_family == AF_INET6 ? a.in6.sin6_port : a.in.sin_port);
}

/* ---- control files ---- */

static long op_ctl_open(void)
{
	static const int acc[] = { O_RDWR, O_RDWR, O_RDWR, O_RDONLY, O_WRONLY };
	int fl = PICK(acc) | (coin(50) ? O_CLOEXEC : 0) | (coin(20) ? O_NONBLOCK : 0);
	int *slot = &S.ctl[below(NCTL)];
	unsigned int i;
	long fd;

	for (i = 0; i < NCTL; i++)
		if (S.ctl[i] < 0)
			slot = &S.ctl[i];	/* an empty one first */
	say("ctl_open flags=%#x", fl);
	fd = sys(open(EUSRV_SOR_DEVICE, fl));
	put(slot, fd);
	return fd;
}

static long op_listen(void)
{
	unsigned int i = below(NLSN);
	struct eusrv_sor_listen l = {
		.port = odd(25) ? port_of(S.lport, S.nl) : bound_port(S.lsn[i]),
		.snd_shift = shift(), .rcv_shift = shift(),
		.fd = odd(15) ? any_fd() : S.lsn[i],
	};
	bool un = coin(10);
	int ctl = ctl_fd();

	if (odd(10))
		l.addr = coin(50) ? htonl(INADDR_LOOPBACK) : (uint32_t)rnd();
	if (odd(5))
		l.flags = (uint32_t)rnd();
	say("%s ctl=%d fd=%d port=%u shifts=%u/%u addr=%#x flags=%#x",
	    un ? "unlisten" : "listen", ctl, l.fd, l.port, l.snd_shift,
	    l.rcv_shift, l.addr, l.flags);
	return sys(ioctl(ctl, un ? EUSRV_SOR_UNLISTEN : EUSRV_SOR_LISTEN, arg(&l, sizeof(l))));
}

static long op_connect(void)
{
	static const uint32_t tmo[] = { 0, 1, 50, 2000, 60000, 60001, UINT32_MAX };
	struct eusrv_sor_connect rq = {
		.node = !odd(15) ? S.peer : coin(50) ? below(9) : (uint32_t)rnd(),
		.port = port_of(S.pport, S.np), .snd_shift = shift(), .rcv_shift = shift(),
		.flags = (coin(50) ? EUSRV_SOR_F_NONBLOCK : 0) | (coin(30) ? EUSRV_SOR_F_CLOEXEC : 0),
		.timeout_ms = odd(20) ? PICK(tmo) : below(3000),
	};
	int fresh = odd(25) ? -1 : new_sock(1, 0), ctl = ctl_fd();
	struct sockaddr_in to;
	long fd;

	rq.fd = fresh >= 0 ? fresh : coin(50) ? S.sock[below(NSOCK)] : any_fd();
	sin_of(&to, coin(85) ? NODE_IP(rq.node < 8 ? rq.node : S.peer) : htonl(INADDR_LOOPBACK),
	       rq.port);
	if (coin(60)) {
		rq.addr = (uintptr_t)(odd(10) ? badptr(sizeof(to)) : (void *)&to);
		rq.addrlen = odd(15) ? below(200) : sizeof(to);
	}
	if (odd(4))
		rq.flags |= (uint32_t)rnd();
	if (odd(4))
		rq.reserved0 = (uint16_t)rnd(), rq.reserved2 = (uint16_t)rnd(),
		rq.reserved3 = (uint32_t)rnd();
	say("connect ctl=%d fd=%d node=%u port=%u shifts=%u/%u flags=%#x tmo=%u addrlen=%u",
	    ctl, rq.fd, rq.node, rq.port, rq.snd_shift, rq.rcv_shift, rq.flags,
	    rq.timeout_ms, rq.addrlen);
	fd = sys(ioctl(ctl, EUSRV_SOR_CONNECT, arg(&rq, sizeof(rq))));
	put_conn(fd);
	if (fresh >= 0 && coin(40))
		put(&S.sock[below(NSOCK)], fresh);
	else if (fresh >= 0)
		close(fresh);
	return fd;
}

static long op_accept(void)
{
	struct eusrv_sor_accept a = {
		.flags = (coin(50) ? EUSRV_SOR_F_NONBLOCK : 0) | (coin(30) ? EUSRV_SOR_F_CLOEXEC : 0),
	};
	int s = odd(15) ? -1 : accept4(S.lsn[below(NLSN)], NULL, NULL,
				       coin(50) ? SOCK_NONBLOCK : 0);
	int ctl = ctl_fd();
	long fd;

	a.fd = s >= 0 && !odd(10) ? s : any_fd();
	if (odd(4))
		a.flags = (uint32_t)rnd();
	if (odd(4))
		a.reserved0 = (uint32_t)rnd(), a.reserved1 = (uint32_t)rnd();
	say("accept ctl=%d fd=%d accepted=%d flags=%#x", ctl, a.fd, s, a.flags);
	fd = sys(ioctl(ctl, EUSRV_SOR_ACCEPT, arg(&a, sizeof(a))));
	put_conn(fd);
	if (s >= 0 && coin(40))
		put(&S.sock[below(NSOCK)], s);
	else if (s >= 0)
		close(s);
	return fd;
}

static long op_note(void)
{
	struct eusrv_sor_note n = {
		.fd = any_fd(), .reason = below(14), .err = (int32_t)below(5000) - 20,
		.laddr = (uint32_t)rnd(), .raddr = (uint32_t)rnd(),
		.lport = (uint16_t)rnd(), .rport = (uint16_t)rnd(),
		.reserved = odd(10) ? (uint32_t)rnd() : 0,
	};
	int ctl = ctl_fd();

	say("note ctl=%d fd=%d reason=%u err=%d", ctl, n.fd, n.reason, n.err);
	return sys(ioctl(ctl, EUSRV_SOR_NOTE, arg(&n, sizeof(n))));
}

/* Room for COUNT records of SIZE that ends at the guard page, or a bad pointer. */
static uint64_t out_buf(uint32_t count, size_t size)
{
	size_t room = SCRATCH / size, k = count < room ? count : room;

	if (odd(8))
		return (uintptr_t)badptr(size);
	return (uintptr_t)(S.scratch + SCRATCH - k * size);
}

static long op_list(void)
{
	struct eusrv_sor_list l = { .flags = coin(50) ? EUSRV_SOR_LIST_CLOSED : 0 };
	int ctl = ctl_fd();

	l.count = odd(15) ? (uint32_t)rnd() : below(1500);
	l.note_count = odd(15) ? (coin(50) ? 65536 : (uint32_t)rnd()) : below(100);
	l.conns = out_buf(l.count, sizeof(struct eusrv_sor_conn_stat));
	l.notes = out_buf(l.note_count, sizeof(struct eusrv_sor_note_rec));
	if (odd(5))
		l.flags = (uint32_t)rnd();
	say("list ctl=%d count=%u note_count=%u flags=%#x", ctl, l.count, l.note_count, l.flags);
	return sys(ioctl(ctl, EUSRV_SOR_LIST, arg(&l, sizeof(l))));
}

static long op_stats(void)
{
	struct eusrv_sor_stats st;
	int ctl = ctl_fd();

	say("stats ctl=%d", ctl);
	return sys(ioctl(ctl, EUSRV_SOR_STATS, arg(&st, sizeof(st))));
}

/* A random ioctl: a standard one, the driver's own, near misses of those, any. */
static long ioctl_any(int fd)
{
	static const unsigned long std[] = {
		FIONREAD, FIONBIO, FIOASYNC, FIOCLEX, FIONCLEX, TIOCOUTQ,
		FIOQSIZE, SIOCATMARK, TCGETS,
	};
	static const unsigned long sor[] = {
		EUSRV_SOR_LISTEN, EUSRV_SOR_UNLISTEN, EUSRV_SOR_CONNECT, EUSRV_SOR_ACCEPT,
		EUSRV_SOR_NOTE, EUSRV_SOR_LIST, EUSRV_SOR_STATS, EUSRV_SOR_INFO,
		EUSRV_SOR_PUSH, EUSRV_SOR_WAIT, EUSRV_SOR_SHUTDOWN, EUSRV_SOR_GET_ERROR,
		EUSRV_SOR_LOCK_WAIT, EUSRV_SOR_LOCK_WAKE, EUSRV_SOR_CREDIT,
		EUSRV_SOR_LINGER, EUSRV_SOR_SOCKET, EUSRV_SOR_TCP_STARTED,
	};
	unsigned long cmd;
	unsigned char *p = S.scratch + below(SCRATCH - 256);
	void *a = p;

	switch (below(5)) {
	case 0: cmd = PICK(std); break;
	case 1: cmd = PICK(sor); break;
	case 2: cmd = _IOC(below(4), EUSRV_SOR_IOC_MAGIC, below(0x40), below(1 << 14)); break;
	case 3: cmd = (PICK(sor) & ~((unsigned long)_IOC_SIZEMASK << _IOC_SIZESHIFT)) |
		      (unsigned long)below(1 << 14) << _IOC_SIZESHIFT; break;
	default: cmd = (uint32_t)rnd(); break;
	}
	memset(p, (int)below(256), below(256));
	if (coin(30))
		a = coin(50) ? badptr(64) : (void *)(uintptr_t)below(4);
	say("ioctl fd=%d cmd=%#lx arg=%p", fd, cmd, a);
	return sys(ioctl(fd, cmd, a));
}

static long op_ctl_ioctl(void)
{
	return ioctl_any(ctl_fd());
}

/* ---- connection files: each op gets a slot (its mapping) and a descriptor ---- */

static long c_ioctl(int slot, int fd)
{
	(void)slot;
	return ioctl_any(fd);
}

/* The ioctls that take nothing, a u32 or int, or struct eusrv_sor_info. */
static long c_simple(int slot, int fd)
{
	static const struct { unsigned long cmd; const char *name; uint32_t max; } c[] = {
		{ EUSRV_SOR_PUSH, "push", 0 }, { EUSRV_SOR_CREDIT, "credit", 0 },
		{ EUSRV_SOR_GET_ERROR, "get_error", 0 }, { FIONREAD, "fionread", 0 },
		{ TIOCOUTQ, "tiocoutq", 0 }, { EUSRV_SOR_SHUTDOWN, "shutdown", 3 },
		{ EUSRV_SOR_LINGER, "linger", 2 }, { EUSRV_SOR_LOCK_WAIT, "lock_wait", 2 },
		{ EUSRV_SOR_LOCK_WAKE, "lock_wake", 2 }, { EUSRV_SOR_INFO, "info", 0 },
		{ EUSRV_SOR_SOCKET, "socket", 0 }, { EUSRV_SOR_TCP_STARTED, "tcp_started", 4096 },
	};
	union { uint32_t v; struct eusrv_sor_info in; } u = { .v = 0 };
	unsigned int i = below(N_OF(c));
	long r;

	(void)slot;
	u.v = odd(5) ? (uint32_t)rnd() : below(c[i].max + 1);
	say("%s fd=%d v=%u", c[i].name, fd, u.v);
	r = sys(ioctl(fd, c[i].cmd, arg(&u, sizeof(u))));
	if (c[i].cmd == EUSRV_SOR_SOCKET)
		put(&S.sock[below(NSOCK)], r);
	return r;
}

static long c_wait(int slot, int fd)
{
	static const int64_t tmo[] = { 0, -1, 1, 1000000, -2, INT64_MIN, INT64_MAX };
	static const uint32_t room[] = { 0, 1, 4095, 4096, 4097, 1 << 18, 1 << 22, UINT32_MAX };
	struct eusrv_sor_wait w = {
		.events = odd(10) ? (uint32_t)rnd() : 1 + below(3),
		.flags = coin(30) ? EUSRV_SOR_F_NONBLOCK : odd(5) ? (uint32_t)rnd() : 0,
		.timeout_ns = coin(70) ? (int64_t)below(30000000) : PICK(tmo),
		.room = coin(60) ? 0 : PICK(room),
	};

	(void)slot;
	say("wait fd=%d events=%#x flags=%#x tmo=%" PRId64 " room=%u", fd, w.events,
	    w.flags, w.timeout_ns, w.room);
	return sys(ioctl(fd, EUSRV_SOR_WAIT, arg(&w, sizeof(w))));
}

static bool inside(const struct map *m, uint64_t off, uint64_t len)
{
	return off <= m->len && len <= m->len - off;
}

/* A mapping laid out as INFO says, both rings whole and sized as powers of two. */
static bool ring_ok(const struct map *m)
{
	const struct eusrv_sor_info *in = &m->in;

	return m->p && m->prot == (PROT_READ | PROT_WRITE) && in->map_len &&
	       in->snd_size >= PAGE && !(in->snd_size & (in->snd_size - 1)) &&
	       in->rcv_size >= PAGE && !(in->rcv_size & (in->rcv_size - 1)) &&
	       inside(m, in->snd_hdr_off, PAGE) && inside(m, in->rcv_hdr_off, PAGE) &&
	       inside(m, in->snd_data_off, in->snd_size) &&
	       inside(m, in->rcv_data_off, in->rcv_size);
}

static long c_mmap(int slot, int fd)
{
	static const int prots[] = { PROT_READ, PROT_WRITE, PROT_NONE, PROT_READ | PROT_WRITE | PROT_EXEC };
	struct map m = { .prot = odd(20) ? PICK(prots) : PROT_READ | PROT_WRITE };
	off_t off = odd(10) ? (off_t)(PAGE * below(3) + (coin(50) ? 0 : 1)) : 0;
	int flags = odd(8) ? MAP_PRIVATE : MAP_SHARED;
	size_t full;
	void *p;

	if (ioctl(fd, EUSRV_SOR_INFO, &m.in) < 0 || !m.in.map_len || m.in.map_len > 64 << 20)
		m.in.map_len = PAGE * (1 + below(16));
	full = (size_t)m.in.map_len;
	m.len = !odd(25) ? full : coin(50) ? 1 + below(full + 2 * PAGE) : full + PAGE;
	say("mmap fd=%d len=%zu off=%lld prot=%d flags=%d", fd, m.len, (long long)off, m.prot, flags);
	p = mmap(NULL, m.len, m.prot, flags, fd, off);
	if (p == MAP_FAILED)
		return -errno;
	m.p = p;
	/* Kept only if it is a connection's, as laid out now. */
	if (flags != MAP_SHARED || off || ioctl(fd, EUSRV_SOR_INFO, &m.in) < 0) {
		munmap(p, m.len);
		return 0;
	}
	unmap(&S.map[slot]);
	S.map[slot] = m;
	return 0;
}

static long c_munmap(int slot, int fd)
{
	say("munmap fd=%d map=%p", fd, (void *)S.map[slot].p);
	unmap(&S.map[slot]);
	return 0;
}

/*
 * The mapped rings used as the interception core does: up to 64 KiB into
 * the send ring (PUSH if need_push), and some of what arrived consumed
 * (CREDIT if due).  Positions the header shows past the ring's bounds (a
 * scribble) give 0 bytes; the offsets come from INFO, never the header.
 */
static long c_ring(int slot, int fd)
{
	struct map *m = &S.map[slot];
	volatile struct eusrv_sor_ring_hdr *sh, *rh;
	uint32_t head, tail, k, i, size;
	unsigned char *d;

	if (!ring_ok(m))
		return SKIP;
	sh = (void *)(m->p + m->in.snd_hdr_off);
	rh = (void *)(m->p + m->in.rcv_hdr_off);
	size = m->in.snd_size;
	d = m->p + m->in.snd_data_off;
	head = __atomic_load_n(&sh->head, __ATOMIC_ACQUIRE);
	tail = sh->tail;
	k = size - (tail - head) <= size ? size - (tail - head) : 0;
	k = below((k < 65536 ? k : 65536) + 1);
	for (i = 0; i < k; i++)
		d[(tail + i) & (size - 1)] = (unsigned char)(tail + i);
	__atomic_store_n(&sh->tail, tail + k, __ATOMIC_RELEASE);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	say("ring fd=%d sent=%u need_push=%u", fd, k, sh->need_push);
	if (sh->need_push)
		ioctl(fd, EUSRV_SOR_PUSH);
	size = m->in.rcv_size;
	tail = __atomic_load_n(&rh->tail, __ATOMIC_ACQUIRE);
	head = rh->head;
	k = tail - head <= size ? below(tail - head + 1) : 0;
	__atomic_store_n(&rh->head, head + k, __ATOMIC_RELEASE);
	if (eusrv_sor_credit_due(head + k, tail, rh->reported, size))
		return sys(ioctl(fd, EUSRV_SOR_CREDIT));
	return 0;
}

static size_t io_len(void)
{
	static const size_t v[] = { 0, 1, 4095, 4096, 4097, 65536, BUF };

	return coin(70) ? below(20000) : PICK(v);
}

/* Sometimes O_NONBLOCK or O_ASYNC (SIGIO, ignored) on or off. */
static void flags_maybe(int fd)
{
	int fl;

	if (!coin(20) || (fl = fcntl(fd, F_GETFL)) < 0)
		return;
	fl = coin(50) ? fl | O_NONBLOCK : fl & ~O_NONBLOCK;
	if (coin(20)) {
		fcntl(fd, F_SETOWN, S.pid);
		fl = coin(50) ? fl | O_ASYNC : fl & ~O_ASYNC;
	}
	fcntl(fd, F_SETFL, fl);
}

/* read, readv, write or writev, into or out of the buffer or a bad pointer. */
static long c_rw(int slot, int fd)
{
	size_t n = io_len();
	void *p = odd(8) ? badptr(n) : (void *)buf;
	struct iovec v[2] = { { p, n / 2 }, { buf + n / 2, n - n / 2 } };
	bool wr = coin(50), vec = coin(30);

	(void)slot;
	flags_maybe(fd);
	say("%s%s fd=%d n=%zu p=%p", wr ? "write" : "read", vec ? "v" : "", fd, n, p);
	if (wr)
		return sys(vec ? writev(fd, v, 2) : write(fd, p, n));
	return sys(vec ? readv(fd, v, 2) : read(fd, p, n));
}

/* poll, or the long-lived epoll set (connections added, modified, left in it). */
static long c_poll(int slot, int fd)
{
	struct pollfd p[3] = {
		{ .fd = fd, .events = (short)(coin(80) ? POLLIN | POLLOUT | POLLRDHUP : rnd()) },
		{ .fd = S.conn[below(NCONN)], .events = POLLIN },
		{ .fd = any_fd(), .events = POLLOUT },
	};
	struct epoll_event ev[4] = { { .events = EPOLLIN | EPOLLOUT | EPOLLRDHUP } };
	int ms = coin(50) ? 0 : (int)below(30);

	(void)slot;
	if (coin(70)) {
		say("poll fd=%d events=%#x ms=%d", fd, p[0].events & 0xffff, ms);
		return sys(poll(p, 1 + below(3), ms));
	}
	ev[0].events |= (coin(50) ? EPOLLET : 0) | (coin(20) ? EPOLLONESHOT : 0);
	say("epoll fd=%d events=%#x ms=%d", fd, ev[0].events, ms);
	if (epoll_ctl(S.ep, EPOLL_CTL_ADD, fd, ev) && errno == EEXIST)
		epoll_ctl(S.ep, coin(80) ? EPOLL_CTL_MOD : EPOLL_CTL_DEL, fd, ev);
	return sys(epoll_wait(S.ep, ev, N_OF(ev), ms));
}

/* splice both ways through the pipe, sendfile from our own binary, draining the pipe. */
static long c_splice(int slot, int fd)
{
	unsigned int fl = (coin(50) ? SPLICE_F_NONBLOCK : 0) | (coin(20) ? SPLICE_F_MORE : 0) |
			  (coin(20) ? SPLICE_F_MOVE : 0);
	size_t n = io_len();
	off_t off = below(8192);
	ssize_t r;

	(void)slot;
	switch (below(4)) {
	case 0:
		say("splice fd=%d to pipe n=%zu flags=%#x", fd, n, fl);
		return sys(splice(fd, NULL, S.pipe[1], NULL, n, fl));
	case 1:
		r = write(S.pipe[1], buf, below(8192));
		say("splice pipe (%zd) to fd=%d n=%zu flags=%#x", r, fd, n, fl);
		return sys(splice(S.pipe[0], NULL, fd, NULL, n, fl));
	case 2:
		say("sendfile fd=%d n=%zu off=%lld", fd, n, (long long)off);
		return sys(sendfile(fd, S.exe, &off, n));
	default:
		say("drain pipe");
		while ((r = read(S.pipe[0], buf, BUF)) > 0)
			;
		return sys(r);
	}
}

static uint32_t scribble_value(uint32_t cur)
{
	switch (below(9)) {
	case 0: return 0;
	case 1: return UINT32_MAX;
	case 2: return cur + 1 + below(64);
	case 3: return cur - 1 - below(64);
	case 4: return cur + (1U << below(24));
	case 5: return (uint32_t)gettid();
	case 6: return (uint32_t)gettid() | EUSRV_SOR_LOCK_WAITERS;
	case 7: return (uint32_t)(coin(50) ? getppid() : S.dead) | EUSRV_SOR_LOCK_WAITERS;
	default: return (uint32_t)rnd();
	}
}

/*
 * Random values into the mapped headers (tail, head, lock, the kernel's
 * line, reserved words, the user half) and data, then a call that reads
 * them: the driver must take any of it.
 */
static long c_scribble(int slot, int fd)
{
	static const unsigned int word[] = { 0, 16, 32, 48, 49, 50, 51, 1, 17, 33, 63, 512 };
	static long (*const after[])(int, int) = { c_simple, c_wait, c_ring, c_rw, c_rw, c_poll };
	struct map *m = &S.map[slot];
	unsigned int i, n = 1 + below(4);

	if (!m->p || !(m->prot & PROT_WRITE))
		return SKIP;
	for (i = 0; i < n; i++) {
		uint64_t off = (coin(50) ? 0 : m->in.rcv_hdr_off) +
			       4 * (coin(80) ? PICK(word) : below(1024));
		volatile uint32_t *w;
		uint32_t v;

		if (!inside(m, off, 4))
			continue;
		w = (volatile uint32_t *)(void *)(m->p + off);
		v = scribble_value(*w);
		say("scribble fd=%d off=%" PRIu64 " %#x -> %#x", fd, off, *w, v);
		*w = v;
	}
	if (coin(30)) {
		uint64_t off = below(m->len), len = below(m->len - off + 1);

		say("scribble fd=%d data off=%" PRIu64 " len=%" PRIu64, fd, off, len);
		memset(m->p + off, (int)below(256), len);
	}
	return PICK(after)(slot, fd);
}

/* ---- processes and descriptors ---- */

static void run_op(void);

static int kid_slot(void)
{
	unsigned int i;

	for (i = 0; i < NKID; i++)
		if (!S.kid[i])
			return (int)i;
	return -1;
}

/* A child that does a few random operations on what it inherited, then _exit. */
static long op_fork(void)
{
	int i = kid_slot();
	uint64_t seed = rnd();
	unsigned int n = 1 + below(20), k;
	pid_t pid;

	if (S.depth || i < 0)
		return SKIP;
	say("fork seed=%" PRIu64 " ops=%u", seed, n);
	pid = fork();
	if (pid == 0) {
		rs = seed;
		S.depth = 1;
		S.pid = getpid();
		memset(S.kid, 0, sizeof(S.kid));
		for (k = 0; k < n; k++)
			run_op();
		_exit(0);
	}
	if (pid > 0)
		S.kid[i] = pid;
	return sys(pid);
}

/* A child that execs this program for a second or two (descriptors open), or /bin/true. */
static long op_exec(void)
{
	char seed[24], secs[4];
	int i = kid_slot();
	bool self = coin(70);
	pid_t pid;

	if (S.depth || i < 0)
		return SKIP;
	snprintf(seed, sizeof(seed), "%" PRIu64, rnd());
	snprintf(secs, sizeof(secs), "%u", 1 + below(2));
	say("exec %s seed=%s seconds=%s", self ? "self" : "/bin/true", seed, secs);
	pid = fork();
	if (pid == 0) {
		timer_ms(0);	/* an interval timer survives exec */
		if (self)
			execl("/proc/self/exe", S.argv[0], seed, secs, S.argv[3],
			      S.argv[4], S.argv[5], "1", (char *)NULL);
		else
			execl("/bin/true", "true", (char *)NULL);
		_exit(127);
	}
	if (pid > 0)
		S.kid[i] = pid;
	return sys(pid);
}

static long op_kill(void)
{
	static const int sigs[] = { SIGKILL, SIGKILL, SIGTERM, SIGSTOP, SIGCONT, SIGCONT, SIGALRM, SIGINT };
	pid_t pid = S.kid[below(NKID)];
	int sig = PICK(sigs);

	if (pid <= 0)
		return SKIP;
	say("kill pid=%d sig=%d", (int)pid, sig);
	return sys(kill(pid, sig));
}

static unsigned int reap(void)
{
	unsigned int i, left = 0;
	int st;

	for (i = 0; i < NKID; i++) {
		if (S.kid[i] > 0 && waitpid(S.kid[i], &st, WNOHANG) == S.kid[i]) {
			S.dead = S.kid[i];
			S.kid[i] = 0;
		}
		left += S.kid[i] > 0;
	}
	return left;
}

static long op_close(void)
{
	int *slot = any_slot();

	say("close fd=%d", *slot);
	drop(slot);
	return 0;
}

static long op_dup(void)
{
	int *slot = any_slot(), src = any_fd(), to = 3 + (int)below(61);
	long r;

	switch (below(3)) {
	case 0:
		say("dup fd=%d", src);
		r = sys(dup(src));
		put(slot, r);
		return r;
	case 1:
		if (*slot <= 2)
			return SKIP;
		say("dup2 fd=%d onto %d", src, *slot);
		return sys(dup2(src, *slot));
	default:
		say("dup3 fd=%d onto %d", src, to);
		return sys(dup3(src, to, coin(50) ? O_CLOEXEC : 0));
	}
}

/*
 * A descriptor sent over an AF_UNIX pair with SCM_RIGHTS: received again
 * (a new descriptor of the file), or left in flight as the pair closes.
 */
static long op_pass(void)
{
	union { struct cmsghdr h; char b[CMSG_SPACE(sizeof(int))]; } u;
	struct iovec v = { .iov_base = buf, .iov_len = 1 };
	struct msghdr m = { .msg_iov = &v, .msg_iovlen = 1, .msg_control = u.b,
			    .msg_controllen = sizeof(u.b) };
	int sv[2], fd = coin(80) ? S.conn[below(NCONN)] : any_fd();
	long r;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv))
		return -errno;
	memset(&u, 0, sizeof(u));
	u.h.cmsg_level = SOL_SOCKET;
	u.h.cmsg_type = SCM_RIGHTS;
	u.h.cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(&u.h), &fd, sizeof(int));
	say("pass fd=%d", fd);
	r = sys(sendmsg(sv[0], &m, 0));
	if (r >= 0 && coin(70) && recvmsg(sv[1], &m, MSG_CMSG_CLOEXEC * coin(50)) >= 0 &&
	    m.msg_controllen >= CMSG_LEN(sizeof(int))) {
		memcpy(&fd, CMSG_DATA(&u.h), sizeof(int));
		say("passed as fd=%d", fd);
		put(&S.sock[below(NSOCK)], fd);
	}
	close(sv[0]);
	close(sv[1]);
	return r;
}

/* New listeners and sockets, a listener shut down, a new pipe. */
static long op_sock(void)
{
	unsigned int i = below(NLSN), k = S.lsn[i] < 0 ? 2 : below(9);
	int s, p[2];

	if (k == 0) {
		say("shutdown listener fd=%d", S.lsn[i]);
		return sys(shutdown(S.lsn[i], coin(50) ? SHUT_RD : SHUT_RDWR));
	}
	if (k == 1) {
		say("pipe");
		if (pipe2(p, O_NONBLOCK | (coin(50) ? O_CLOEXEC : 0)))
			return -errno;
		put(&S.pipe[0], p[0]);
		put(&S.pipe[1], p[1]);
		return 0;
	}
	k = k == 2 ? (coin(80) ? 2 : 6) : below(6);
	s = (int)sys(new_sock(k, k == 2 || k == 6 ? S.lport[i % S.nl] :
			      coin(80) ? 0 : port_of(S.lport, S.nl)));
	say("socket kind=%u fd=%d", k, s);
	put(k == 2 || k == 6 ? &S.lsn[i] : &S.sock[below(NSOCK)], s);
	return s;
}

/* ---- the table ---- */

static const struct op {
	const char *name;
	long (*fn)(void);
	long (*cfn)(int slot, int fd);	/* on a connection slot */
	unsigned int weight;
} ops[] = {
	{ "ctl_open", op_ctl_open, NULL, 2 }, { "listen", op_listen, NULL, 5 },
	{ "connect", op_connect, NULL, 9 }, { "accept", op_accept, NULL, 12 },
	{ "note", op_note, NULL, 1 }, { "list", op_list, NULL, 2 },
	{ "stats", op_stats, NULL, 1 }, { "ctl_ioctl", op_ctl_ioctl, NULL, 2 },
	{ "close", op_close, NULL, 4 }, { "dup", op_dup, NULL, 2 },
	{ "sock", op_sock, NULL, 4 }, { "fork", op_fork, NULL, 1 },
	{ "exec", op_exec, NULL, 1 }, { "kill", op_kill, NULL, 2 },
	{ "pass", op_pass, NULL, 2 },
	{ "simple", NULL, c_simple, 16 }, { "wait", NULL, c_wait, 5 },
	{ "mmap", NULL, c_mmap, 5 }, { "munmap", NULL, c_munmap, 1 },
	{ "scribble", NULL, c_scribble, 6 }, { "ring", NULL, c_ring, 12 },
	{ "rw", NULL, c_rw, 12 },
	{ "poll", NULL, c_poll, 4 }, { "splice", NULL, c_splice, 3 },
	{ "conn_ioctl", NULL, c_ioctl, 2 },
};

#define NERR	134	/* errno values counted, EHWPOISON the last */

/* Per operation: calls, successes, skips, and failures by errno. */
static unsigned long calls[N_OF(ops)], oks[N_OF(ops)], skips[N_OF(ops)];
static unsigned int errs[N_OF(ops)][NERR];

/* A connection slot, one with a descriptor (and a mapping) if a few tries find one. */
static int conn_slot(void)
{
	int i = 0, k;

	for (k = 0; k < 4; k++) {
		i = (int)below(NCONN);
		if (S.conn[i] >= 0 && (S.map[i].p || k >= 2))
			break;
	}
	return i;
}

static void run_op(void)
{
	static unsigned int total;
	unsigned int i, w, slot;
	long r;

	if (!total)
		for (i = 0; i < N_OF(ops); i++)
			total += ops[i].weight;
	for (i = 0, w = below(total); w >= ops[i].weight; i++)
		w -= ops[i].weight;
	S.nops++;
	S.sane = coin(40);
	timer_ms(coin(70) ? 20 + below(500) : 500 + below(1500));
	if (ops[i].fn) {
		r = ops[i].fn();
	} else {
		slot = (unsigned int)conn_slot();
		r = ops[i].cfn((int)slot, odd(8) ? any_fd() : S.conn[slot]);
	}
	timer_ms(0);
	calls[i]++;
	if (r >= 0)
		oks[i]++;
	else if (r <= SKIP)
		skips[i]++;
	else
		errs[i][-r < NERR ? -r : 0]++;
}

static void setup(void)
{
	struct sigaction sa = { .sa_handler = on_alarm };	/* no SA_RESTART */
	unsigned int i;

	sigaction(SIGALRM, &sa, NULL);
	sa.sa_handler = on_fault;
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	signal(SIGIO, SIG_IGN);
	signal(SIGURG, SIG_IGN);
	S.scratch = mmap(NULL, SCRATCH + PAGE, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	S.ro = mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (S.scratch == MAP_FAILED || S.ro == MAP_FAILED ||
	    mprotect(S.scratch + SCRATCH, PAGE, PROT_NONE)) {
		perror("sor-fuzz: mmap");
		exit(2);
	}
	for (i = 0; i < NCONN; i++)
		S.conn[i] = S.sock[i % NSOCK] = S.ctl[i % NCTL] = -1;
	S.devnull = open("/dev/null", O_RDWR);
	S.exe = open("/proc/self/exe", O_RDONLY);
	S.ep = epoll_create1(0);
	if (pipe2(S.pipe, O_NONBLOCK))
		S.pipe[0] = S.pipe[1] = -1;
	for (i = 0; i < NCTL; i++)
		S.ctl[i] = open(EUSRV_SOR_DEVICE, O_RDWR);
	/* Listening and registered from the start, so that the peer finds us. */
	for (i = 0; i < NLSN; i++) {
		struct eusrv_sor_listen l = { 0 };

		l.fd = S.lsn[i] = new_sock(2, S.lport[i % S.nl]);
		l.port = bound_port(l.fd);
		if (ioctl(S.ctl[0], EUSRV_SOR_LISTEN, &l) && !S.depth)
			printf("sor-fuzz: LISTEN %u at the start: %s\n", l.port, strerror(errno));
	}
}

/* One operation's line of the summary: its counts and its three commonest errors. */
static void summary(unsigned int i)
{
	unsigned int k, e, top;

	printf("sor-fuzz: %d:   %-10s %6lu %6lu %6lu", (int)S.pid, ops[i].name,
	       calls[i], oks[i], skips[i]);
	for (k = 0; k < 3; k++) {
		for (e = top = 0; e < NERR; e++)
			if (errs[i][e] > errs[i][top])
				top = e;
		if (!errs[i][top])
			break;
		printf(" %s:%u", top ? strerrorname_np((int)top) : "?", errs[i][top]);
		errs[i][top] = 0;
	}
	printf("\n");
}

/* Everything closed, every child killed and reaped (20 s at most): 0, or 3 if one is stuck. */
static int finish(double secs)
{
	unsigned int i, t, left;
	char path[64], wchan[128];
	ssize_t n;
	int fd;

	for (i = 0; i < NCONN; i++) {
		unmap(&S.map[i]);
		drop(&S.conn[i]);
	}
	for (i = 0; i < NKID; i++)
		if (S.kid[i] > 0)
			kill(S.kid[i], SIGKILL);
	for (t = 0; (left = reap()) && t < 200; t++)
		usleep(100000);
	for (i = 0; i < NKID; i++) {
		if (S.kid[i] <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/wchan", (int)S.kid[i]);
		fd = open(path, O_RDONLY);
		n = fd >= 0 ? read(fd, wchan, sizeof(wchan) - 1) : -1;
		wchan[n > 0 ? n : 0] = 0;
		printf("sor-fuzz: child %d not reaped 20 s after SIGKILL: wchan %s\n",
		       (int)S.kid[i], wchan);
	}
	printf("sor-fuzz: %d: %lu operations in %.0f s (calls/successes/skipped, the commonest errors):\n",
	       (int)S.pid, S.nops, secs);
	for (i = 0; i < N_OF(ops) && !S.depth; i++)
		summary(i);
	return left ? 3 : 0;
}

static unsigned int ports(const char *s, uint16_t *out)
{
	unsigned int n = 0;
	char *end;

	while (n < NPORT && *s) {
		unsigned long p = strtoul(s, &end, 10);

		if (end == s || !p || p > 65535)
			return 0;
		out[n++] = (uint16_t)p;
		s = *end == ',' ? end + 1 : end;
	}
	return n;
}

int main(int argc, char **argv)
{
	double t0 = now(), secs;

	if (argc < 6 || argc > 7 || !(S.nl = ports(argv[4], S.lport)) ||
	    !(S.np = ports(argv[5], S.pport))) {
		fprintf(stderr, "usage: sor-fuzz SEED SECONDS PEER LPORT[,..] PPORT[,..] [DEPTH]\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	rs = strtoull(argv[1], NULL, 0);
	secs = atof(argv[2]);
	S.peer = (unsigned int)atoi(argv[3]);
	S.depth = argc > 6 ? (unsigned int)atoi(argv[6]) : 0;
	S.argv = argv;
	S.pid = getpid();
	printf("sor-fuzz: %d: seed=%s seconds=%s peer=%u lports=%s pports=%s depth=%u uid=%d\n",
	       (int)S.pid, argv[1], argv[2], S.peer, argv[4], argv[5], S.depth, (int)getuid());
	setup();
	while (now() - t0 < secs) {
		reap();
		run_op();
	}
	return finish(now() - t0);
}
