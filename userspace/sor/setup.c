// SPDX-License-Identifier: MIT
/*
 * Connection set-up: connect() to a peer node's address and accept() of
 * a client from one (listen() registers the listener with the driver).
 * Anything that fails before a connection is set up leaves the socket on
 * TCP, with the reason told to the driver (EUSRV_SOR_NOTE) for eusrvctl.
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

#include "inaddr.h"
#include "usor_internal.h"

#define LOOPBACK_NET	0x7fU		/* 127.0.0.0/8, first byte */

static int sockopt_int(int fd, int level, int name)
{
	int v = -1;
	socklen_t l = sizeof(v);

	if (usor_r->getsockopt(fd, level, name, &v, &l) < 0)
		return -1;
	return v;
}

/* Whether FD is a TCP socket. */
static bool is_tcp(int fd)
{
	return sockopt_int(fd, SOL_SOCKET, SO_PROTOCOL) == IPPROTO_TCP;
}

/*
 * The family of FD if it is a TCP socket that can talk IPv4: AF_INET, or
 * AF_INET6 without IPV6_V6ONLY (IPv4-mapped addresses); else -1.
 */
static int v4_family(int fd)
{
	int dom = sockopt_int(fd, SOL_SOCKET, SO_DOMAIN);

	if (!is_tcp(fd))
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

/*
 * Tell the driver why FD stays on TCP (eusrvctl conns shows it), with the
 * destination DST if known; errno is kept.
 */
static void note_dest(int fd, uint32_t reason, int err,
		      const struct sockaddr_in *dst)
{
	struct eusrv_sor_note n;
	struct sockaddr_in a;
	int saved = errno, ctl = usor_ctl_fd();

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

/*
 * Put connection file CFD in place of FD and C in the table, with what
 * C keeps of FD (SERVER: FD was accepted); C's face goes to its page for
 * a later exec (once mapped).
 */
static int install(int cfd, int fd, bool cloexec, struct usor_conn *c,
		   bool server, const struct eusrv_sor_connect *rq)
{
	struct usor_conn *old;

	if (rq)
		usor_conn_import_connect(c, rq);
	else
		usor_conn_import(c, fd, cfd, server);
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
static int interrupted(int fd, const struct sockaddr *addr, socklen_t len,
		       const struct sockaddr_in *dst)
{
	int r, e, fl = usor_r->fcntl(fd, F_GETFL, 0);

	if (fl < 0)
		fl = O_NONBLOCK;	/* then do not touch the flags */
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

/* A connect() that stays on TCP, noted with REASON if FD is TCP. */
static int tcp_connect(int fd, const struct sockaddr *addr, socklen_t len,
		       uint32_t reason, int err, const struct sockaddr_in *dst)
{
	int r, e;

	errno = 0;
	r = usor_r->connect(fd, addr, len);
	e = errno;
	if (reason && is_tcp(fd))
		note_dest(fd, reason, err, dst);
	errno = e;
	return r;
}

/* connect() on a connection descriptor: what TCP would answer. */
static int connect_again(struct usor_conn *c, int fd,
			 const struct sockaddr *addr, socklen_t len)
{
	unsigned int p = __atomic_load_n(&c->pending, __ATOMIC_ACQUIRE);

	if (p == USOR_PEND_CONNECTING || p == USOR_PEND_BUSY)
		p = usor_settle(c, fd);
	if (p == USOR_PEND_TCP && usor_tcp_fd_of(c, fd) >= 0) {
		/* TCP's own answer: EALREADY, EISCONN, or its error. */
		int tfd = c->tcp_fd;

		usor_conn_put(c);
		return usor_r->connect(tfd, addr, len);
	}
	usor_conn_put(c);
	return (int)usor_fail(p == USOR_PEND_NONE ? -EISCONN : -EALREADY);
}

/* The driver's CONNECT for FD to NODE, as connect(FD, ADDR, LEN) asks. */
static void connect_request(struct eusrv_sor_connect *rq, int fd, int node,
			    const struct sockaddr *addr, socklen_t len,
			    const struct sockaddr_in *dst)
{
	uintptr_t aux = usor_fd_aux(fd);

	memset(rq, 0, sizeof(*rq));
	rq->node = (uint32_t)node;
	rq->port = ntohs(dst->sin_port);
	rq->fd = fd;
	/* The driver maps the rings while the answer is on its way. */
	rq->flags = EUSRV_SOR_F_INHERIT | EUSRV_SOR_F_BIND | EUSRV_SOR_F_MAP;
	if (addr->sa_family == AF_INET6)
		rq->flags |= EUSRV_SOR_F_INET6;
	rq->snd_shift = (uint8_t)USOR_AUX_SND_SHIFT(aux);
	rq->rcv_shift = (uint8_t)USOR_AUX_RCV_SHIFT(aux);
	/* Where a non-blocking set-up that fails goes over TCP. */
	rq->addr = (uintptr_t)addr;
	rq->addrlen = len;
}

/* The driver's CONNECT failed (errno): TCP's connect() in its place. */
static int connect_refused(int fd, const struct sockaddr *addr, socklen_t len,
			   int saved, const struct sockaddr_in *dst)
{
	int e = errno;

	switch (e) {
	case EPROTOTYPE:	/* not TCP: nothing to note */
	case EISCONN:		/* TCP's own EISCONN, EALREADY... */
		errno = saved;
		return usor_r->connect(fd, addr, len);
	case EAFNOSUPPORT:
		return tcp_connect(fd, addr, len, EUSRV_SOR_R_NOT_IPV4, 0, dst);
	case EINTR:
		return interrupted(fd, addr, len, dst);
	default:
		return tcp_connect(fd, addr, len, reason_of(e), e, dst);
	}
}

/*
 * The driver's CONNECT does what connect() needs of the socket in the one
 * call (checks, implicit bind, flags, options; the rings' layout): the
 * library adds only the mapping and putting the file in FD's place.
 */
int usor_connect(int fd, const struct sockaddr *addr, socklen_t len)
{
	struct usor_conn *c = usor_fd_get(fd);
	const struct usor_state *st;
	struct eusrv_sor_connect rq;
	struct sockaddr_in dst;
	int node, cfd, e, saved = errno;
	bool nonblock;

	if (c)
		return connect_again(c, fd, addr, len);
	if (usor_absent() || !addr || len < (socklen_t)sizeof(sa_family_t) ||
	    (addr->sa_family != AF_INET && addr->sa_family != AF_INET6))
		return usor_r->connect(fd, addr, len);
	st = usor_state_get();
	if (!st)
		return usor_r->connect(fd, addr, len);
	errno = saved;
	if (!usor_v4_of(addr, len, false, &dst))
		return tcp_connect(fd, addr, len, addr->sa_family == AF_INET6 ?
				   EUSRV_SOR_R_NOT_IPV4 : 0, 0, NULL);
	node = usor_peers_find(&st->peers, dst.sin_addr.s_addr);
	if (node < 0 || node == st->node)
		return tcp_connect(fd, addr, len, EUSRV_SOR_R_NOT_PEER, 0, &dst);
	connect_request(&rq, fd, node, addr, len, &dst);
	cfd = usor_r->ioctl(usor_ctl_fd(), EUSRV_SOR_CONNECT, &rq);
	if (cfd < 0)
		return connect_refused(fd, addr, len, saved, &dst);
	nonblock = rq.out_flags & EUSRV_SOR_F_NONBLOCK;
	c = nonblock ? usor_conn_alloc() : usor_conn_map_info(cfd, &rq.info);
	if (!c) {
		e = nonblock ? ENOMEM : errno;
		usor_r->close(cfd);
		errno = e;
		return -1;
	}
	if (nonblock) {
		c->pending = USOR_PEND_CONNECTING;
		c->local.sin_family = AF_INET;
		c->peer.sin_family = AF_INET;
	}
	/*
	 * An unbound socket's address is the one TCP's route would take: our
	 * address on the destination's network, as the server's side names
	 * us (usor_node_addr_like()).
	 */
	c->local.sin_port = htons(rq.lport);
	c->local.sin_addr.s_addr = rq.laddr ? rq.laddr :
		usor_node_addr_like(st, st->node >= 0 ? (uint32_t)st->node : c->node,
				    (uint32_t)node, dst.sin_addr.s_addr);
	c->peer = dst;
	c->family = addr->sa_family;
	if (install(cfd, fd, rq.out_flags & EUSRV_SOR_F_CLOEXEC, c, false, &rq) < 0)
		return -1;
	if (nonblock)
		return (int)usor_fail(-EINPROGRESS);
	errno = saved;
	return 0;
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
	st = usor_state_get();
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
	if (usor_r->ioctl(usor_ctl_fd(), EUSRV_SOR_LISTEN, &rq) == 0 ||
	    errno == EEXIST || errno == EADDRINUSE)
		usor_fd_set_aux(fd, USOR_AUX_MK(1, rq.snd_shift, rq.rcv_shift,
					      rq.port));
out:
	errno = e;
	return r;
}

static bool is_loopback(uint32_t addr)
{
	const unsigned char *b = (const unsigned char *)&addr;

	return b[0] == LOOPBACK_NET;
}

/* Whether an accepted peer address is this node's own (a dummy's). */
static bool is_local(const struct usor_state *st, uint32_t addr)
{
	if (is_loopback(addr))
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

/* What claim() made of an accepted socket besides a connection file. */
#define CLAIM_PLAIN	(-2)	/* a genuine TCP client: hand it over as it is */
#define CLAIM_AGAIN	(-3)	/* not a client (closed): take the next one */

/*
 * Claim the connection whose dummy is NFD's peer (NFD accepted on FD now,
 * or PARKED by an earlier call): its file, or CLAIM_PLAIN, CLAIM_AGAIN,
 * or -1 with errno for accept() to return.
 */
static int claim(int fd, int nfd, bool parked, int flags)
{
	struct eusrv_sor_accept rq;
	int cfd, err;

	memset(&rq, 0, sizeof(rq));
	rq.fd = nfd;	/* only its holder may claim the dummy */
	if (flags & SOCK_NONBLOCK)
		rq.flags |= EUSRV_SOR_F_NONBLOCK;
	if (flags & SOCK_CLOEXEC)
		rq.flags |= EUSRV_SOR_F_CLOEXEC;
	/*
	 * The TCP accept is done: a signal meanwhile (without SA_RESTART)
	 * must not lose the connection, so ask again.
	 */
	do {
		cfd = usor_r->ioctl(usor_ctl_fd(), EUSRV_SOR_ACCEPT, &rq);
	} while (cfd < 0 && errno == EINTR);
	if (cfd >= 0)
		return cfd;
	err = errno;
	if (err == EMFILE || err == ENFILE || err == ENOMEM) {
		/* As TCP: the error, the connection kept for the next call. */
		if (!usor_park(fd, nfd))
			usor_r->close(nfd);
		errno = err;
		return -1;
	}
	if (!parked && err == ENOENT) {
		note(nfd, EUSRV_SOR_R_LOCAL, 0);
		return CLAIM_PLAIN;
	}
	/* No control file: keep it. */
	if (!parked && (err == ENOTTY || err == EBADF || err == EINVAL))
		return CLAIM_PLAIN;
	/* A dummy whose set-up failed, or a parked one a fork claimed. */
	usor_r->close(nfd);
	return CLAIM_AGAIN;
}

/*
 * The names TCP would give accepted connection C (its dummy's socket
 * NFD): the dummy connected to the listener's address, or to loopback
 * for a wildcard one, which the client reached at our first address (the
 * one its side names, usor_node_addr_like()); the client is at its
 * address on that network, from the port it bound.
 */
static void accepted_names(const struct usor_state *st, struct usor_conn *c,
			   int nfd, int family)
{
	v4_name(nfd, false, &c->local);
	if (!c->local.sin_addr.s_addr || is_loopback(c->local.sin_addr.s_addr) ||
	    usor_peers_find(&st->peers, c->local.sin_addr.s_addr) != (int)c->node)
		c->local.sin_addr.s_addr = usor_node_addr(st, c->node);
	c->peer.sin_addr.s_addr = usor_node_addr_like(st, c->peer_node, c->node,
						      c->local.sin_addr.s_addr);
	c->family = family;
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
		struct usor_conn *c;
		int nfd, cfd, e;
		bool parked;

		if (addr && len && (int)*len < 0)
			return (int)usor_fail(-EINVAL);
		e = errno;
		/* A connection a per-call error left waiting comes first. */
		nfd = usor_unpark(fd);
		parked = nfd >= 0;
		if (!parked) {
			nfd = usor_r->accept4(fd, (struct sockaddr *)&ss, &sl, flags);
			if (nfd < 0)
				return nfd;
			e = errno;
		} else if (usor_r->getpeername(nfd, (struct sockaddr *)&ss, &sl)) {
			usor_r->close(nfd);
			errno = e;
			continue;
		}
		st = usor_state_get();
		if (!st || (!parked &&
			    (!usor_v4_of((struct sockaddr *)&ss, sl, false, &sin) ||
			     !is_local(st, sin.sin_addr.s_addr))))
			goto plain;
		cfd = claim(fd, nfd, parked, flags);
		if (cfd == CLAIM_PLAIN)
			goto plain;
		if (cfd == CLAIM_AGAIN) {
			errno = e;
			continue;
		}
		if (cfd < 0)
			return -1;
		c = usor_conn_map(cfd);
		if (!c) {
			/* No memory to map it: gone, as TCP's accept drops it. */
			int err = errno;

			usor_r->close(cfd);
			usor_r->close(nfd);
			errno = err;
			return -1;
		}
		accepted_names(st, c, nfd, ss.ss_family);
		if (install(cfd, nfd, flags & SOCK_CLOEXEC, c, true, NULL) < 0) {
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
