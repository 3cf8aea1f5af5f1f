// SPDX-License-Identifier: MIT
/*
 * Connections: the control file and the peers (opened on first use),
 * connect/listen/accept set-up, and the descriptor-table bookkeeping of
 * close and the dup family.  Anything that fails before a connection is
 * set up leaves the socket on TCP, with the reason told to the driver
 * (EUSRV_SOR_NOTE) for eusrvctl.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC	(1U << 2)
#endif

#include "inaddr.h"
#include "usor_internal.h"

#define LOAD_ACQ(p)	__atomic_load_n((p), __ATOMIC_ACQUIRE)
#define LOAD(p)		__atomic_load_n((p), __ATOMIC_RELAXED)
#define STORE_REL(p, v)	__atomic_store_n((p), (v), __ATOMIC_RELEASE)

/* The control file is moved to the first free descriptor from here, out
 * of the way of programs that expect low numbers. */
#define CTL_FD_MIN	256
#define NS_PER_US	1000LL
#define MAX_SPIN_US	1000000LL
#define LOOPBACK_NET	0x7fU		/* 127.0.0.0/8, first byte */

const struct usor_real *usor_r;

enum { ST_NEW, ST_INIT, ST_READY, ST_ABSENT };

static int init_state = ST_NEW;
/* The process whose descriptors the table describes (borrowed_table). */
static pid_t table_pid;
static struct usor_state state = { .ctl = -1, .node = -1 };
static __thread int in_init;
static char peers_buf[USOR_PEERS_MAX_FILE];

long usor_fail(long neg_errno)
{
	errno = (int)-neg_errno;
	return -1;
}

static void say(const char *a, const char *b)
{
	/* One write: messages of concurrent processes do not interleave. */
	char line[USOR_PEERS_MAX_LINE + 256];
	size_t la = strlen(a), lb = b ? strlen(b) : 0;
	static const char pfx[] = "eusrv: ";

	if (sizeof(pfx) - 1 + la + lb + 1 > sizeof(line))
		return;
	memcpy(line, pfx, sizeof(pfx) - 1);
	memcpy(line + sizeof(pfx) - 1, a, la);
	if (lb)
		memcpy(line + sizeof(pfx) - 1 + la, b, lb);
	line[sizeof(pfx) - 1 + la + lb] = '\n';
	if (usor_r->write(2, line, sizeof(pfx) + la + lb) < 0)
		return;
}

static void report_peers(void *arg, const char *msg)
{
	(void)arg;
	say(msg, NULL);
}

static void *alloc_pages(unsigned long len)
{
	void *p = usor_r->mmap(NULL, len, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* Whether T is still the socket's descriptor that C took. */
static bool tcp_fd_still(const struct usor_conn *c, int t)
{
	struct stat sb;

	return t >= 0 && !usor_r->fstat(t, &sb) && (uint64_t)sb.st_dev == c->tcp_dev &&
	       (uint64_t)sb.st_ino == c->tcp_ino;
}

static void unmap_conn(struct usor_conn *c)
{
	if (c->map)
		usor_r->munmap(c->map, c->map_len);
	c->map = NULL;
	/* Not if the number is the program's by now. */
	if (tcp_fd_still(c, c->tcp_fd))
		usor_r->close(c->tcp_fd);
	c->tcp_fd = -1;
}

/*
 * The descriptor of connection file FD's socket that C serves its socket
 * calls with (set-up going on, or turned to TCP), taken again when the
 * program closed or replaced it (closefrom, dup2 onto it): -1 if none.
 */
static int tcp_fd_of(struct usor_conn *c, int fd)
{
	int t = __atomic_load_n(&c->tcp_fd, __ATOMIC_ACQUIRE);
	struct stat sb;

	if (tcp_fd_still(c, t))
		return t;
	while (__atomic_exchange_n(&c->tcp_busy, 1, __ATOMIC_ACQUIRE))
		usor_r->sched_yield();
	t = c->tcp_fd;
	if (!tcp_fd_still(c, t)) {
		t = usor_r->ioctl(fd, EUSRV_SOR_SOCKET, NULL);
		if (t >= 0 && usor_r->fstat(t, &sb)) {
			usor_r->close(t);
			t = -1;
		}
		if (t >= 0) {
			c->tcp_dev = (uint64_t)sb.st_dev;
			c->tcp_ino = (uint64_t)sb.st_ino;
			c->tcp_fl = usor_r->fcntl(t, F_GETFL, 0);
		}
		__atomic_store_n(&c->tcp_fd, t, __ATOMIC_RELEASE);
	}
	__atomic_store_n(&c->tcp_busy, 0, __ATOMIC_RELEASE);
	return t;
}

static void read_peers(void)
{
	const char *path = usor_r->getenv(USOR_PEERS_ENV);
	size_t len = 0;
	int fd;

	if (!path || !*path)
		path = USOR_PEERS_PATH;
	fd = usor_r->open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		say(path, ": cannot open; every connection stays on TCP");
		return;
	}
	for (;;) {
		ssize_t n = usor_r->read(fd, peers_buf + len, sizeof(peers_buf) - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
		if (len == sizeof(peers_buf)) {
			say(path, ": too long; only its beginning is used");
			break;
		}
	}
	usor_r->close(fd);
	usor_peers_parse(&state.peers, peers_buf, len, path, report_peers, NULL);
}

static int64_t parse_spin(void)
{
	const char *s = usor_r->getenv("EUSRV_SPIN_US");
	int64_t v = 0;

	if (!s || !*s)
		return USOR_SPIN_ADAPTIVE;
	for (; *s >= '0' && *s <= '9'; s++) {
		v = v * 10 + (*s - '0');
		if (v > MAX_SPIN_US)
			v = MAX_SPIN_US;
	}
	if (*s) {
		say("EUSRV_SPIN_US is not a number of microseconds; not spinning", NULL);
		return 0;
	}
	return v * NS_PER_US;
}

/* Open the control file; -1 if the driver is not there. */
static int open_ctl(void)
{
	int fd = usor_r->open(EUSRV_SOR_DEVICE, O_RDWR | O_CLOEXEC), hi;

	if (fd < 0)
		return -1;
	if (fd < CTL_FD_MIN) {
		hi = usor_r->fcntl(fd, F_DUPFD_CLOEXEC, CTL_FD_MIN);
		if (hi >= 0) {
			usor_r->close(fd);
			fd = hi;
		}
	}
	return fd;
}

static void init(void)
{
	struct eusrv_sor_stats st;
	int saved = errno, fd;

	usor_fd_setup(alloc_pages, unmap_conn);
	STORE_REL(&table_pid, usor_r->getpid());
	fd = open_ctl();
	if (fd < 0) {
		STORE_REL(&init_state, ST_ABSENT);
		errno = saved;
		return;
	}
	memset(&st, 0, sizeof(st));
	if (usor_r->ioctl(fd, EUSRV_SOR_STATS, &st) == 0)
		state.node = (int)st.node;
	state.spin_ns = parse_spin();
	read_peers();
	STORE_REL(&state.ctl, fd);
	STORE_REL(&init_state, ST_READY);
	errno = saved;
}

bool usor_absent(void)
{
	return LOAD(&init_state) == ST_ABSENT;
}

const struct usor_state *usor_state(void)
{
	int s = LOAD_ACQ(&init_state);

	while (s != ST_READY) {
		if (s == ST_ABSENT)
			return NULL;
		if (s == ST_NEW &&
		    __atomic_compare_exchange_n(&init_state, &s, ST_INIT, false,
						__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
			in_init = 1;
			init();
			in_init = 0;
		} else if (s == ST_INIT) {
			if (in_init)
				return NULL;	/* a signal handler inside init() */
			usor_r->sched_yield();
		}
		s = LOAD_ACQ(&init_state);
	}
	/* The program closed our control file: open another one. */
	if (LOAD_ACQ(&state.ctl) < 0) {
		int saved = errno, fd = open_ctl(), none = -1;

		errno = saved;
		if (fd < 0)
			return NULL;
		if (!__atomic_compare_exchange_n(&state.ctl, &none, fd, false,
						 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			usor_r->close(fd);
	}
	return &state;
}

/* The program closed or replaced descriptor FD: was it our control file? */
static void ctl_gone(int fd)
{
	int ctl = LOAD(&state.ctl);

	if (fd >= 0 && fd == ctl)
		__atomic_compare_exchange_n(&state.ctl, &ctl, -1, false,
					    __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
}

static int ctl_fd(void)
{
	return LOAD_ACQ(&state.ctl);
}

void usor_set_real(const struct usor_real *real)
{
	STORE_REL(&usor_r, real);
}

void usor_fork_prepare(void)
{
}

void usor_fork_parent(void)
{
}

void usor_fork_child(void)
{
	STORE_REL(&table_pid, usor_r->getpid());
	usor_fd_fork_child();
}

/*
 * Whether this is a vfork (or CLONE_VM) child running in its parent's
 * memory: its descriptors are its own, the table is the parent's, so it
 * must not change the table (it dup2s and closes before exec).
 */
static bool borrowed_table(void)
{
	pid_t owner = LOAD_ACQ(&table_pid);

	return owner && usor_r->getpid() != owner;
}

/* ---- helpers -------------------------------------------------------------- */

static int sockopt_int(int fd, int level, int name)
{
	int v = -1;
	socklen_t l = sizeof(v);

	if (usor_r->getsockopt(fd, level, name, &v, &l) < 0)
		return -1;
	return v;
}

/*
 * The family of FD if it is a TCP socket that can talk IPv4: AF_INET, or
 * AF_INET6 without IPV6_V6ONLY (IPv4-mapped addresses); else -1.
 */
static int v4_family(int fd)
{
	int dom = sockopt_int(fd, SOL_SOCKET, SO_DOMAIN);

	if (sockopt_int(fd, SOL_SOCKET, SO_PROTOCOL) != IPPROTO_TCP)
		return -1;
	if (dom == AF_INET)
		return dom;
	if (dom == AF_INET6 && sockopt_int(fd, IPPROTO_IPV6, IPV6_V6ONLY) == 0)
		return dom;
	return -1;
}

/* FD's own or peer's IPv4 endpoint (the IPv6 wildcard as INADDR_ANY). */
static bool v4_name(int fd, bool peer, struct sockaddr_in *out)
{
	struct sockaddr_storage ss;
	socklen_t l = sizeof(ss);

	if ((peer ? usor_r->getpeername(fd, (struct sockaddr *)&ss, &l) :
		    usor_r->getsockname(fd, (struct sockaddr *)&ss, &l)) < 0)
		return false;
	return usor_v4_of((struct sockaddr *)&ss, l, true, out);
}

/* TCP state of FD (netinet/tcp.h TCP_*), or -1 if FD is not TCP. */
static int tcp_state(int fd)
{
	unsigned char info[8];
	socklen_t l = sizeof(info);

	if (usor_r->getsockopt(fd, IPPROTO_TCP, TCP_INFO, info, &l) < 0 || l < 1)
		return -1;
	return info[0];
}

/*
 * Tell the driver why FD stays on TCP (eusrvctl conns shows it), with the
 * destination DST if known; errno is kept.
 */
static void note_dest(int fd, uint32_t reason, int err,
		      const struct sockaddr_in *dst)
{
	struct eusrv_sor_note n;
	struct sockaddr_in a;
	int saved = errno, ctl = ctl_fd();

	if (ctl < 0)
		return;
	memset(&n, 0, sizeof(n));
	n.fd = fd;
	n.reason = reason;
	n.err = err;
	if (v4_name(fd, false, &a)) {
		n.laddr = a.sin_addr.s_addr;
		n.lport = ntohs(a.sin_port);
	}
	if (dst) {
		n.raddr = dst->sin_addr.s_addr;
		n.rport = ntohs(dst->sin_port);
	}
	usor_r->ioctl(ctl, EUSRV_SOR_NOTE, &n);
	errno = saved;
}

/* Like note_dest() for a connected FD. */
static void note(int fd, uint32_t reason, int err)
{
	struct sockaddr_in a;
	int saved = errno;
	bool named = v4_name(fd, true, &a);

	errno = saved;
	note_dest(fd, reason, err, named ? &a : NULL);
}

static uint32_t reason_of(int err)
{
	switch (err) {
	case ECONNREFUSED:
		return EUSRV_SOR_R_REFUSED;
	case ETIMEDOUT:
		return EUSRV_SOR_R_TIMEOUT;
	case EHOSTUNREACH:
	case ENETUNREACH:
	case ENODEV:
	case EHOSTDOWN:
		return EUSRV_SOR_R_UNREACHABLE;
	case ENOMEM:
	case ENOBUFS:
		return EUSRV_SOR_R_NO_MEMORY;
	case EDQUOT:
		return EUSRV_SOR_R_MEMLOCK;
	default:
		return EUSRV_SOR_R_OTHER;
	}
}

/* Ring size wish (log2) for BYTES asked with SO_SNDBUF/SO_RCVBUF. */
uint32_t usor_shift_of(int bytes)
{
	uint32_t s = EUSRV_SOR_RING_MIN_SHIFT;

	if (bytes <= 0)
		return 0;
	while (s < EUSRV_SOR_RING_MAX_SHIFT && (1UL << s) < (unsigned long)bytes)
		s++;
	return s;
}

static bool is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

/* Map the rings of connection file CFD into C: 0, or -1 with errno. */
static int map_rings(struct usor_conn *c, int cfd, struct eusrv_sor_info *info)
{
	struct eusrv_sor_info in;
	void *map;

	memset(&in, 0, sizeof(in));
	if (usor_r->ioctl(cfd, EUSRV_SOR_INFO, &in) < 0)
		return -1;
	if (!is_pow2(in.snd_size) || !is_pow2(in.rcv_size) ||
	    in.snd_hdr_off + EUSRV_SOR_USER_OFF + EUSRV_SOR_USER_LEN > in.snd_data_off ||
	    in.snd_hdr_off + EUSRV_SOR_USER_OFF + EUSRV_SOR_USER_LEN > in.rcv_hdr_off ||
	    in.rcv_hdr_off + sizeof(struct eusrv_sor_ring_hdr) > in.map_len ||
	    in.snd_data_off + in.snd_size > in.map_len ||
	    in.rcv_data_off + in.rcv_size > in.map_len ||
	    in.map_len > (1ULL << 30)) {
		errno = EPROTO;
		return -1;
	}
	map = usor_r->mmap(NULL, in.map_len, PROT_READ | PROT_WRITE, MAP_SHARED,
			  cfd, 0);
	if (map == MAP_FAILED)
		return -1;
	c->map = map;
	c->map_len = in.map_len;
	c->snd.hdr = (struct eusrv_sor_ring_hdr *)((char *)map + in.snd_hdr_off);
	c->snd.data = (unsigned char *)map + in.snd_data_off;
	c->snd.size = in.snd_size;
	c->rcv.hdr = (struct eusrv_sor_ring_hdr *)((char *)map + in.rcv_hdr_off);
	c->rcv.data = (unsigned char *)map + in.rcv_data_off;
	c->rcv.size = in.rcv_size;
	usor_ring_seen_init(&c->snd);
	usor_ring_seen_init(&c->rcv);
	usor_ring_spin_init(&c->rcv);
	c->id = in.id;
	c->node = in.node;
	c->peer_node = in.peer_node;
	c->peer_id = in.peer_id;
	*info = in;
	return 0;
}

/* The names of connection C as the driver knows them (ports, family). */
static void names_of(struct usor_conn *c, const struct eusrv_sor_info *in)
{
	c->family = AF_INET;
	c->local.sin_family = AF_INET;
	c->local.sin_port = htons(in->lport);
	c->peer.sin_family = AF_INET;
	c->peer.sin_port = htons(in->rport);
}

struct usor_conn *usor_conn_map(int cfd)
{
	struct eusrv_sor_info in;
	struct usor_conn *c = usor_conn_alloc();
	int e;

	if (!c) {
		errno = ENOMEM;
		return NULL;
	}
	if (map_rings(c, cfd, &in) < 0) {
		e = errno;
		usor_conn_put(c);
		errno = e;
		return NULL;
	}
	names_of(c, &in);
	return c;
}

/*
 * A connection whose non-blocking set-up was going on when this process
 * last looked (PENDING CONNECTING): look again, as one thread at a time.
 * Established, it is mapped, takes the options set on the socket
 * meanwhile, and is a connection from now on; else the socket calls go
 * to the socket's own descriptor.  Returns the new state.
 */
static unsigned int settle(struct usor_conn *c, int fd)
{
	unsigned int p = USOR_PEND_CONNECTING;
	struct eusrv_sor_info in;

	while (!__atomic_compare_exchange_n(&c->pending, &p, USOR_PEND_BUSY,
					    false, __ATOMIC_ACQUIRE,
					    __ATOMIC_ACQUIRE)) {
		if (p != USOR_PEND_BUSY)
			return p;
		usor_r->sched_yield();
		p = USOR_PEND_CONNECTING;
	}
	tcp_fd_of(c, fd);
	memset(&in, 0, sizeof(in));
	if (usor_r->ioctl(fd, EUSRV_SOR_INFO, &in) < 0)
		p = USOR_PEND_CONNECTING;
	else if (in.state == EUSRV_SOR_ST_TCP)
		p = USOR_PEND_TCP;
	else if (in.state == EUSRV_SOR_ST_CONNECTING || map_rings(c, fd, &in) < 0)
		p = USOR_PEND_CONNECTING;
	else
		p = USOR_PEND_NONE;
	if (p == USOR_PEND_NONE && tcp_fd_still(c, c->tcp_fd)) {
		usor_face_import(c->tcp_fd, fd, c);
		usor_r->close(c->tcp_fd);
	}
	if (p == USOR_PEND_NONE)
		c->tcp_fd = -1;
	if (p == USOR_PEND_NONE)
		usor_face_save(c);
	__atomic_store_n(&c->pending, p, __ATOMIC_RELEASE);
	return p;
}

/*
 * A data call on FD while set-up goes on: as on a TCP socket still
 * connecting, EAGAIN if non-blocking, else wait until it is over (either
 * way).  0, or a negative errno.
 */
static int wait_setup(int fd)
{
	struct eusrv_sor_wait w = {
		.events = EUSRV_SOR_W_RECV | EUSRV_SOR_W_SEND, .timeout_ns = -1,
	};
	int fl = usor_r->fcntl(fd, F_GETFL, 0);

	if (fl >= 0 && (fl & O_NONBLOCK))
		return -EAGAIN;
	/* Once it turned to TCP the socket answers WAIT with ENOTTY. */
	if (usor_r->ioctl(fd, EUSRV_SOR_WAIT, &w) < 0 && errno == EINTR)
		return -EINTR;
	return 0;
}

struct usor_conn *usor_fd_route_io(int *fd)
{
	struct usor_conn *c;
	unsigned int p;
	int e;

	if (*fd == USOR_FD_FAILED) {
		errno = EBADF;
		return NULL;
	}
	for (;;) {
		c = usor_fd_get(*fd);
		if (!c)
			return NULL;
		p = __atomic_load_n(&c->pending, __ATOMIC_ACQUIRE);
		if (p == USOR_PEND_CONNECTING || p == USOR_PEND_BUSY)
			p = settle(c, *fd);
		usor_conn_put(c);
		if (p != USOR_PEND_CONNECTING)
			return usor_fd_route(fd);
		e = wait_setup(*fd);
		if (e) {
			errno = -e;
			*fd = USOR_FD_FAILED;
			return NULL;
		}
	}
}

struct usor_conn *usor_fd_route(int *fd)
{
	struct usor_conn *c = usor_fd_get(*fd);
	unsigned int p;
	int fl, t;

	if (!c)
		return NULL;
	p = __atomic_load_n(&c->pending, __ATOMIC_ACQUIRE);
	if (p == USOR_PEND_CONNECTING || p == USOR_PEND_BUSY)
		p = settle(c, *fd);
	if (p == USOR_PEND_NONE)
		return c;
	t = tcp_fd_of(c, *fd);
	if (t >= 0) {
		/* The program sets O_NONBLOCK on its descriptor, not ours. */
		fl = usor_r->fcntl(*fd, F_GETFL, 0);
		if (fl >= 0 && ((fl ^ c->tcp_fl) & O_NONBLOCK)) {
			c->tcp_fl = (c->tcp_fl & ~O_NONBLOCK) | (fl & O_NONBLOCK);
			usor_r->fcntl(t, F_SETFL, (uintptr_t)c->tcp_fl);
		}
		*fd = t;
	}
	usor_conn_put(c);
	return NULL;
}

uint32_t usor_node_addr(const struct usor_state *st, uint32_t node)
{
	const struct usor_peer *p = usor_peers_node(&st->peers, node);

	return p ? p->addr[0] : 0;
}

/*
 * Put connection file CFD in place of FD and C in the table, with the
 * options FD had; C's face goes to its page for a later exec (once
 * mapped).
 */
static int install(int cfd, int fd, bool cloexec, struct usor_conn *c)
{
	struct usor_conn *old;

	usor_face_import(fd, cfd, c);
	if (c->map)
		usor_face_save(c);
	if (usor_r->dup3(cfd, fd, cloexec ? O_CLOEXEC : 0) < 0) {
		int e = errno;

		usor_conn_put(c);
		usor_r->close(cfd);
		errno = e;
		return -1;
	}
	usor_r->close(cfd);
	old = usor_fd_set(fd, c);
	if (old)
		usor_conn_put(old);
	usor_conn_put(c);
	return 0;
}

/* ---- connect ------------------------------------------------------------- */

/*
 * A signal (no SA_RESTART) ended set-up: as TCP's connect(), the attempt
 * goes on in the background and the call says EINTR; poll, SO_ERROR or a
 * later connect() tell how it ended.  It goes on over TCP, started here
 * without blocking.
 */
static int interrupted(int fd, int fl, const struct sockaddr *addr,
		       socklen_t len, const struct sockaddr_in *dst)
{
	int r, e;

	if (!(fl & O_NONBLOCK))
		usor_r->fcntl(fd, F_SETFL, fl | O_NONBLOCK);
	errno = 0;
	r = usor_r->connect(fd, addr, len);
	e = errno;
	if (!(fl & O_NONBLOCK))
		usor_r->fcntl(fd, F_SETFL, fl);
	note_dest(fd, EUSRV_SOR_R_OTHER, EINTR, dst);
	if (r < 0 && e == EINPROGRESS)
		e = EINTR;
	errno = e;
	return r;
}

int usor_connect(int fd, const struct sockaddr *addr, socklen_t len)
{
	struct usor_conn *c = usor_fd_get(fd);
	const struct usor_state *st;
	struct sockaddr_in dst, me;
	struct eusrv_sor_connect rq;
	int node, r, cfd, fl, fdfl, e, fam;
	uintptr_t aux;

	if (c) {
		unsigned int p = __atomic_load_n(&c->pending, __ATOMIC_ACQUIRE);

		if (p == USOR_PEND_CONNECTING || p == USOR_PEND_BUSY)
			p = settle(c, fd);
		if (p == USOR_PEND_TCP && tcp_fd_of(c, fd) >= 0) {
			/* TCP's own answer: EALREADY, EISCONN, or its error. */
			int tfd = c->tcp_fd;

			usor_conn_put(c);
			return usor_r->connect(tfd, addr, len);
		}
		usor_conn_put(c);
		return (int)usor_fail(p == USOR_PEND_NONE ? -EISCONN : -EALREADY);
	}
	if (usor_absent() || !addr || len < (socklen_t)sizeof(sa_family_t) ||
	    (addr->sa_family != AF_INET && addr->sa_family != AF_INET6))
		return usor_r->connect(fd, addr, len);
	/* Only a TCP socket that is not connected or connecting yet. */
	e = errno;
	if (tcp_state(fd) != TCP_CLOSE) {
		errno = e;
		return usor_r->connect(fd, addr, len);
	}
	errno = e;
	st = usor_state();
	if (!st)
		return usor_r->connect(fd, addr, len);
	fam = v4_family(fd);
	if (fam < 0 || fam != addr->sa_family ||
	    !usor_v4_of(addr, len, false, &dst)) {
		errno = e;
		r = usor_r->connect(fd, addr, len);
		if (addr->sa_family == AF_INET6)
			note(fd, EUSRV_SOR_R_NOT_IPV4, 0);
		return r;
	}
	errno = e;
	node = usor_peers_find(&st->peers, dst.sin_addr.s_addr);
	if (node < 0 || node == st->node) {
		r = usor_r->connect(fd, addr, len);
		note_dest(fd, EUSRV_SOR_R_NOT_PEER, 0, &dst);
		return r;
	}
	/* A local port of our own: bind the socket if it is not bound. */
	if (!v4_name(fd, false, &me))
		goto tcp_other;
	if (!me.sin_port) {
		struct sockaddr_storage any;
		socklen_t al = usor_v4_as(fam, &me, &any);

		/* Unbound: IPv6's wildcard, not the IPv4-mapped 0.0.0.0. */
		if (fam == AF_INET6 && !me.sin_addr.s_addr)
			memset(&((struct sockaddr_in6 *)&any)->sin6_addr, 0,
			       sizeof(struct in6_addr));
		if (usor_r->bind(fd, (struct sockaddr *)&any, al) < 0 ||
		    !v4_name(fd, false, &me))
			goto tcp_other;
	}
	fl = usor_r->fcntl(fd, F_GETFL, 0);
	fdfl = usor_r->fcntl(fd, F_GETFD, 0);
	if (fl < 0 || fdfl < 0)
		goto tcp_other;
	memset(&rq, 0, sizeof(rq));
	rq.node = (uint32_t)node;
	rq.port = ntohs(dst.sin_port);
	rq.fd = fd;	/* the driver takes the local port from it */
	aux = usor_fd_aux(fd);
	rq.snd_shift = (uint8_t)USOR_AUX_SND_SHIFT(aux);
	rq.rcv_shift = (uint8_t)USOR_AUX_RCV_SHIFT(aux);
	if (fl & O_NONBLOCK) {
		/* Set-up goes on in the background; TCP there if it fails. */
		rq.flags |= EUSRV_SOR_F_NONBLOCK;
		rq.addr = (uintptr_t)addr;
		rq.addrlen = len;
	}
	if (fdfl & FD_CLOEXEC)
		rq.flags |= EUSRV_SOR_F_CLOEXEC;
	cfd = usor_r->ioctl(ctl_fd(), EUSRV_SOR_CONNECT, &rq);
	if (cfd < 0) {
		e = errno;
		if (e == EINTR)
			return interrupted(fd, fl, addr, len, &dst);
		errno = 0;
		r = usor_r->connect(fd, addr, len);
		note_dest(fd, reason_of(e), e, &dst);
		return r;
	}
	c = fl & O_NONBLOCK ? usor_conn_alloc() : usor_conn_map(cfd);
	if (!c) {
		e = fl & O_NONBLOCK ? ENOMEM : errno;
		usor_r->close(cfd);
		errno = e;
		return -1;
	}
	if (fl & O_NONBLOCK) {
		c->pending = USOR_PEND_CONNECTING;
		c->local.sin_family = AF_INET;
		c->peer.sin_family = AF_INET;
	}
	c->local.sin_port = me.sin_port;
	c->local.sin_addr.s_addr = me.sin_addr.s_addr ? me.sin_addr.s_addr :
				   usor_node_addr(st, c->node);
	c->peer = dst;
	c->family = fam;
	if (install(cfd, fd, fdfl & FD_CLOEXEC, c) < 0)
		return -1;
	if (fl & O_NONBLOCK)
		return (int)usor_fail(-EINPROGRESS);
	return 0;

tcp_other:
	e = errno;
	errno = 0;
	r = usor_r->connect(fd, addr, len);
	note_dest(fd, EUSRV_SOR_R_OTHER, e, &dst);
	return r;
}

/* ---- listen / accept ---------------------------------------------------- */

int usor_listen(int fd, int backlog)
{
	const struct usor_state *st;
	struct eusrv_sor_listen rq;
	struct sockaddr_in me;
	uintptr_t aux;
	int r = usor_r->listen(fd, backlog), e = errno;

	if (r < 0 || usor_absent() || usor_is_conn(fd))
		return r;	/* (a connection never listens: listen failed) */
	/* IPv4, or dual-stack IPv6 on the wildcard or an IPv4-mapped address. */
	if (v4_family(fd) < 0)
		goto out;
	st = usor_state();
	if (!st || !v4_name(fd, false, &me))
		goto out;
	aux = usor_fd_aux(fd);
	if ((aux & USOR_AUX_LISTENER) && USOR_AUX_PORT(aux) == ntohs(me.sin_port))
		goto out;	/* listen() again: registered already */
	memset(&rq, 0, sizeof(rq));
	rq.addr = me.sin_addr.s_addr;
	rq.port = ntohs(me.sin_port);
	rq.fd = fd;
	rq.snd_shift = (uint8_t)USOR_AUX_SND_SHIFT(aux);
	rq.rcv_shift = (uint8_t)USOR_AUX_RCV_SHIFT(aux);
	/* A failed registration only means that clients come over TCP. */
	if (usor_r->ioctl(ctl_fd(), EUSRV_SOR_LISTEN, &rq) == 0 ||
	    errno == EEXIST || errno == EADDRINUSE)
		usor_fd_set_aux(fd, USOR_AUX_MK(1, rq.snd_shift, rq.rcv_shift,
					      rq.port));
out:
	errno = e;
	return r;
}

/* Whether an accepted peer address is this node's own (a dummy's). */
static bool is_local(const struct usor_state *st, uint32_t addr)
{
	const unsigned char *b = (const unsigned char *)&addr;

	if (b[0] == LOOPBACK_NET)
		return true;
	return st->node >= 0 && usor_peers_find(&st->peers, addr) == st->node;
}

static void copy_addr(struct sockaddr *to, socklen_t *tolen,
		      const void *from, socklen_t len)
{
	if (!to || !tolen)
		return;
	memcpy(to, from, *tolen < len ? *tolen : len);
	*tolen = len;
}

int usor_accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags)
{
	uintptr_t aux = usor_fd_aux(fd);

	if (!(aux & USOR_AUX_LISTENER))
		return usor_r->accept4(fd, addr, len, flags);
	for (;;) {
		struct sockaddr_storage ss;
		struct sockaddr_in sin;
		socklen_t sl = sizeof(ss);
		const struct usor_state *st;
		struct eusrv_sor_accept rq;
		struct usor_conn *c;
		int nfd, cfd, e;

		if (addr && len && (int)*len < 0)
			return (int)usor_fail(-EINVAL);
		nfd = usor_r->accept4(fd, (struct sockaddr *)&ss, &sl, flags);
		if (nfd < 0)
			return nfd;
		e = errno;
		st = usor_state();
		if (!st || !usor_v4_of((struct sockaddr *)&ss, sl, false, &sin) ||
		    !is_local(st, sin.sin_addr.s_addr))
			goto plain;
		memset(&rq, 0, sizeof(rq));
		rq.fd = nfd;	/* only its holder may claim the dummy */
		if (flags & SOCK_NONBLOCK)
			rq.flags |= EUSRV_SOR_F_NONBLOCK;
		if (flags & SOCK_CLOEXEC)
			rq.flags |= EUSRV_SOR_F_CLOEXEC;
		/*
		 * The TCP accept is done: a signal meanwhile (without
		 * SA_RESTART) must not lose the connection, so ask again.
		 */
		do {
			cfd = usor_r->ioctl(ctl_fd(), EUSRV_SOR_ACCEPT, &rq);
		} while (cfd < 0 && errno == EINTR);
		if (cfd < 0) {
			if (errno == ENOENT) {
				note(nfd, EUSRV_SOR_R_LOCAL, 0);
				goto plain;
			}
			if (errno == ENOTTY || errno == EBADF || errno == EINVAL)
				goto plain;	/* no control file: keep it */
			/* A dummy whose set-up failed: not a client. */
			usor_r->close(nfd);
			errno = e;
			continue;
		}
		c = usor_conn_map(cfd);
		if (!c) {
			usor_r->close(cfd);
			usor_r->close(nfd);
			errno = e;
			continue;
		}
		v4_name(nfd, false, &c->local);
		c->peer.sin_addr.s_addr = usor_node_addr(st, c->peer_node);
		c->family = ss.ss_family;
		if (install(cfd, nfd, flags & SOCK_CLOEXEC, c) < 0) {
			usor_r->close(nfd);
			errno = e;
			continue;
		}
		sl = usor_v4_as(ss.ss_family, &c->peer, &ss);
plain:
		errno = e;
		copy_addr(addr, len, &ss, sl);
		return nfd;
	}
}

/* ---- close and the dup family --------------------------------------------- */

int usor_close(int fd)
{
	struct usor_conn *old;
	int r;

	if (usor_fd_in_use() && borrowed_table())
		return usor_r->close(fd);
	old = usor_fd_set(fd, NULL);
	ctl_gone(fd);
	r = usor_r->close(fd);
	if (old) {
		int e = errno;

		usor_conn_put(old);
		errno = e;
	}
	return r;
}

static void forget_range(unsigned int first, unsigned int last)
{
	int ctl = LOAD(&state.ctl);

	if (usor_fd_in_use() && borrowed_table())
		return;
	if (ctl >= 0 && (unsigned int)ctl >= first && (unsigned int)ctl <= last)
		ctl_gone(ctl);
	usor_fd_forget_range(first, last);
}

void usor_closefrom_before(int low)
{
	if (low >= 0)
		forget_range((unsigned int)low, ~0U);
}

int usor_close_range(unsigned int first, unsigned int last, int flags)
{
	int r = usor_r->close_range(first, last, flags), e = errno;

	if (r == 0 && !(flags & CLOSE_RANGE_CLOEXEC) && first <= last)
		forget_range(first, last);
	errno = e;
	return r;
}

int usor_is_conn(int fd)
{
	struct usor_conn *c = usor_fd_get(fd);

	if (c)
		usor_conn_put(c);
	return c != NULL;
}

/* After a successful dup of FD to NFD: NFD is what FD is. */
static void dup_done(int fd, int nfd)
{
	struct usor_conn *c, *old;
	uintptr_t aux;

	if (usor_fd_in_use() && borrowed_table())
		return;
	ctl_gone(nfd);
	if (!usor_fd_in_use())
		return;
	c = usor_fd_get(fd);
	aux = c ? 0 : usor_fd_aux(fd);
	old = usor_fd_set(nfd, c);
	if (aux)
		usor_fd_set_aux(nfd, aux);
	if (old)
		usor_conn_put(old);
	if (c)
		usor_conn_put(c);
}

int usor_dup(int fd)
{
	int r = usor_r->dup(fd), e = errno;

	if (r >= 0)
		dup_done(fd, r);
	errno = e;
	return r;
}

int usor_dup3(int fd, int newfd, int flags)
{
	int r = usor_r->dup3(fd, newfd, flags), e = errno;

	if (r >= 0 && fd != newfd)
		dup_done(fd, newfd);
	errno = e;
	return r;
}

int usor_dup2(int fd, int newfd)
{
	return usor_dup3(fd, newfd, 0);
}

int usor_fcntl(int fd, int cmd, uintptr_t arg)
{
	int r = usor_r->fcntl(fd, cmd, arg), e = errno;

	if (r >= 0 && (cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC))
		dup_done(fd, r);
	errno = e;
	return r;
}
