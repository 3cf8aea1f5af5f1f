// SPDX-License-Identifier: GPL-2.0
/*
 * eusrv_sor CONNECT: the caller's own TCP socket (bound, its options
 * taken), then the set-up, waited for here or left to go on in the
 * background (sor_fallback.c), and the connection file in the caller's
 * table.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fdtable.h>
#include <linux/net.h>
#include <net/inet_sock.h>
#include <net/ipv6.h>
#include <net/sock.h>
#include <net/tcp_states.h>

#include <eusrv/board_hw.h>
#include <eusrv/mbox.h>

#include "sor_client.h"
#include "sor_connect.h"
#include "sor_early.h"
#include "sor_fallback.h"
#include "sor_file.h"
#include "sor_keepalive.h"
#include "sor_setup.h"

/*
 * FD's IPv4 source address in *ADDR (0: any), false if it has none: an
 * IPv6 socket bound to an address that is not IPv4-mapped.  Socket locked.
 */
static bool sor_sock_v4_source(struct sock *sk, __be32 *addr)
{
	if (sk->sk_family == AF_INET) {
		*addr = inet_sk(sk)->inet_rcv_saddr;
		return true;
	}
	if (ipv6_addr_any(&sk->sk_v6_rcv_saddr)) {
		*addr = 0;
		return true;
	}
	if (!ipv6_addr_v4mapped(&sk->sk_v6_rcv_saddr))
		return false;
	*addr = sk->sk_v6_rcv_saddr.s6_addr32[3];
	return true;
}

/*
 * Bind SOCK to its family's wildcard address and a free port unless it is
 * bound.  This is connect()'s own implicit bind: the cgroup's bind hooks
 * run, as for TCP's autobind.
 */
static int sor_connect_autobind(struct socket *sock)
{
	struct sockaddr_storage any = { .ss_family = sock->sk->sk_family };
	int len = any.ss_family == AF_INET6 ? sizeof(struct sockaddr_in6) :
					       sizeof(struct sockaddr_in);
	int ret;

	if (READ_ONCE(inet_sk(sock->sk)->inet_num))
		return 0;
	ret = kernel_bind(sock, (struct sockaddr *)&any, len);
	/* Another thread bound it meanwhile: that binding stands. */
	return ret == -EINVAL ? 0 : ret;
}

/* A socket timeout (jiffies, MAX_SCHEDULE_TIMEOUT: none) in ns, -1: none. */
static s64 sor_timeo_ns(long timeo)
{
	return timeo == MAX_SCHEDULE_TIMEOUT ? -1 : (s64)jiffies64_to_nsecs(timeo);
}

/* What EUSRV_SOR_F_INHERIT takes of FD's SOCK into RQ.  Socket locked. */
static void sor_connect_inherit(struct socket *sock,
				struct eusrv_sor_connect *rq, bool *linger0)
{
	struct sock *sk = sock->sk;
	bool cloexec;

	rcu_read_lock();
	cloexec = close_on_exec(rq->fd, files_fdtable(current->files));
	rcu_read_unlock();
	rq->flags &= ~(EUSRV_SOR_F_NONBLOCK | EUSRV_SOR_F_CLOEXEC);
	if (sock->file->f_flags & O_NONBLOCK)
		rq->flags |= EUSRV_SOR_F_NONBLOCK;
	if (cloexec)
		rq->flags |= EUSRV_SOR_F_CLOEXEC;
	rq->rcvtimeo_ns = sor_timeo_ns(sk->sk_rcvtimeo);
	rq->sndtimeo_ns = sor_timeo_ns(sk->sk_sndtimeo);
	*linger0 = sock_flag(sk, SOCK_LINGER) && !sk->sk_lingertime;
}

/*
 * The caller's TCP socket for CONNECT RQ: of the destination's family,
 * bound (by us, if RQ asks), not connected, in the board's network
 * namespace.  Its file, referenced; its port and address in RQ, and
 * with EUSRV_SOR_F_INHERIT its flags and timeouts (*LINGER0: it had
 * SO_LINGER with a zero time).
 */
static struct file *sor_connect_sock(struct eusrv_sor_connect *rq,
				     bool *linger0)
{
	int family = rq->flags & EUSRV_SOR_F_INET6 ? AF_INET6 : AF_INET;
	__be32 laddr = 0;
	struct socket *sock;
	struct file *file;
	struct sock *sk;
	int err;

	*linger0 = false;
	sock = sockfd_lookup(rq->fd, &err);
	if (!sock)
		return ERR_PTR(err);
	sk = sock->sk;
	if (!sor_sk_tcp(sk))
		err = -EPROTOTYPE;
	else if (sk->sk_family != family ||
		 (family == AF_INET6 && ipv6_only_sock(sk)))
		err = -EAFNOSUPPORT;
	else if (!net_eq(sock_net(sk), &init_net))
		err = -ENETUNREACH;
	else if (rq->flags & EUSRV_SOR_F_BIND)
		err = sor_connect_autobind(sock);
	if (err)
		goto out;
	lock_sock(sk);
	if (sk->sk_state != TCP_CLOSE)
		err = -EISCONN;
	else if (!inet_sk(sk)->inet_num)
		err = -EINVAL;
	else if (!sor_sock_v4_source(sk, &laddr))
		err = -EAFNOSUPPORT;
	rq->laddr = (__force u32)laddr;	/* network order, as the uapi says */
	rq->lport = inet_sk(sk)->inet_num;
	if (!err && (rq->flags & EUSRV_SOR_F_INHERIT))
		sor_connect_inherit(sock, rq, linger0);
	release_sock(sk);
out:
	file = err ? ERR_PTR(err) : get_file(sock->file);
	sockfd_put(sock);
	return file;
}

/*
 * A set-up wait ended with LEFT (0: timed out, < 0: a signal).  A signal
 * restarts the whole CONNECT under SA_RESTART, as connect() itself would
 * go on; this attempt is given up either way.
 */
static int sor_connect_gave_up(struct sor_conn *c, long left)
{
	int ret = sor_client_fail(c, left ? EINTR : ETIMEDOUT);

	return left ? -ERESTARTSYS : ret;
}

static bool sor_connect_answered(struct sor_conn *c)
{
	return READ_ONCE(c->peer_id) != EUSRV_SOR_NO_ID ||
	       READ_ONCE(c->state) != EUSRV_SOR_ST_CONNECTING;
}

static bool sor_connect_addressed(struct sor_conn *c)
{
	return READ_ONCE(c->have_addr) ||
	       READ_ONCE(c->state) != EUSRV_SOR_ST_CONNECTING;
}

/*
 * Give the CONNECT caller RQ's out part before its descriptor exists, so
 * that a fault leaves nothing in its table.
 */
static int sor_connect_tell(const struct eusrv_sor_connect *rq,
			    struct eusrv_sor_connect __user *out)
{
	return copy_to_user(out, rq, sizeof(*rq)) ? -EFAULT : 0;
}

/*
 * A blocking CONNECT, its ConnRQ out: its file (and with EUSRV_SOR_F_MAP
 * its mapping) made while the answer is on its way, wait for ACCEPT, size
 * the rings as it says (charged to OWNER), wait for ADDR, establish.  The
 * new file's descriptor, or the error (C is given up then).
 */
static int sor_connect_wait(struct sor_conn *c, const struct sor_owner *owner,
			    struct eusrv_sor_connect *rq,
			    struct eusrv_sor_connect __user *out,
			    unsigned long deadline)
{
	struct sor_early ef;
	unsigned long flags;
	long left;
	int ret;

	ret = sor_early_open(&ef, c, rq->out_flags, rq->flags & EUSRV_SOR_F_MAP);
	if (ret)
		return sor_client_fail(c, -ret);
	left = wait_event_interruptible_timeout(c->wq, sor_connect_answered(c),
						sor_st_wait_left(deadline, jiffies));
	if (left <= 0) {
		ret = sor_connect_gave_up(c, left);
		goto failed;
	}
	ret = READ_ONCE(c->state) != EUSRV_SOR_ST_CONNECTING ? ECONNREFUSED :
	      -sor_early_rings(&ef, c, owner);
	if (ret) {
		ret = sor_client_fail(c, ret);
		goto failed;
	}
	left = wait_event_interruptible_timeout(c->wq, sor_connect_addressed(c),
						sor_st_wait_left(deadline, jiffies));
	if (left <= 0) {
		ret = sor_connect_gave_up(c, left);
		goto failed;
	}

	spin_lock_irqsave(&c->lock, flags);
	ret = sor_client_establish_locked(c) ? 0 : -ECONNREFUSED;
	spin_unlock_irqrestore(&c->lock, flags);
	if (ret) {
		ret = sor_client_fail(c, ECONNREFUSED);
		goto failed;
	}
	ret = sor_client_send_addr(c);
	if (!ret) {
		sor_file_info(c, &rq->info);
		ret = sor_early_ready(&ef, rq->out_flags, &rq->info);
	}
	if (ret >= 0 && sor_connect_tell(rq, out)) {
		put_unused_fd(ret);
		ret = -EFAULT;
	}
	if (ret < 0) {
		sor_count(SOR_S_CONNECT_FAILED);
		sor_setup_abandon(c);
	} else {
		sor_early_install(&ef, ret);
	}
	sor_conn_put(c);
failed:
	sor_early_drop(&ef);
	return ret;
}

/*
 * A non-blocking CONNECT, its ConnRQ out: the set-up goes on in the
 * background (sor_fallback.c); the new file's descriptor, or the error.
 * The file is made first, while C has its rings for certain: once the
 * background has started, a set-up that fails at once turns C into its
 * TCP socket and gives the rings back.
 */
static int sor_connect_bg(struct sor_conn *c, struct sor_bg *bg,
			  const struct eusrv_sor_connect *rq,
			  struct eusrv_sor_connect __user *out,
			  unsigned long deadline)
{
	struct file *file;
	int fd;

	file = sor_file_reserve(c, rq->out_flags, &fd);
	if (IS_ERR(file)) {
		kfree(bg);
		sor_client_fail(c, ENOMEM);
		return PTR_ERR(file);
	}
	sor_fallback_start(c, bg, deadline);
	if (sor_connect_tell(rq, out)) {
		put_unused_fd(fd);
		sor_fallback_abandon(c);
		fput(file);
		return -EFAULT;
	}
	fd_install(fd, file);
	sor_conn_put(c);	/* ours: the file and the table keep it */
	return fd;
}

#define SOR_CONNECT_FLAGS	(EUSRV_SOR_F_NONBLOCK | EUSRV_SOR_F_CLOEXEC | \
				 EUSRV_SOR_F_INHERIT | EUSRV_SOR_F_BIND | \
				 EUSRV_SOR_F_INET6 | EUSRV_SOR_F_MAP)

/* CONNECT (docs/protocol.md section 3): the new file's descriptor, or an error. */
int sor_connect(struct sor_ctl *ctl, struct eusrv_sor_connect *rq,
		struct eusrv_sor_connect __user *out)
{
	struct sor_bg *bg = NULL;
	unsigned long deadline;
	struct sor_conn *c;
	struct sor_owner owner;
	struct file *bound;
	bool linger0;
	int ret;

	if (rq->node >= EUSRV_MAX_NODES || !rq->port ||
	    rq->reserved0 || rq->reserved2 || rq->reserved3 ||
	    (rq->flags & ~SOR_CONNECT_FLAGS) ||
	    !sor_shift_valid(rq->snd_shift) || !sor_shift_valid(rq->rcv_shift) ||
	    rq->timeout_ms > SOR_MAX_TIMEOUT_MS ||
	    rq->addrlen > sizeof(struct sockaddr_storage) ||
	    (rq->addrlen && rq->addrlen < sizeof(sa_family_t)))
		return -EINVAL;
	if (rq->node >= eusrv_mbox_nodes() || !(sor_ka_nodes_up() & BIT_ULL(rq->node)))
		return -EHOSTUNREACH;
	deadline = jiffies + sor_setup_timeout(rq->timeout_ms);
	/* The out part: what the caller learns, besides the descriptor. */
	rq->out_flags = 0;
	rq->reserved4 = 0;
	rq->reserved5 = 0;
	rq->rcvtimeo_ns = -1;
	rq->sndtimeo_ns = -1;
	memset(&rq->info, 0, sizeof(rq->info));
	bound = sor_connect_sock(rq, &linger0);
	if (IS_ERR(bound))
		return PTR_ERR(bound);
	rq->out_flags = rq->flags & (EUSRV_SOR_F_NONBLOCK | EUSRV_SOR_F_CLOEXEC);
	if (rq->flags & EUSRV_SOR_F_NONBLOCK) {
		bg = sor_fallback_new(rq);
		if (IS_ERR(bg)) {
			fput(bound);
			return PTR_ERR(bg);
		}
	}

	c = sor_conn_new(rq->node, true, GFP_KERNEL_ACCOUNT);
	if (IS_ERR(c)) {
		kfree(bg);
		fput(bound);
		return PTR_ERR(c) == -ENOBUFS ? -ENOMEM : PTR_ERR(c);
	}
	/* The port stays the socket's until the connection has gone. */
	c->bound = bound;
	c->lport = rq->lport;
	c->linger_reset = linger0;
	c->rport = rq->port;
	c->snd_shift = sor_shift_or_default(rq->snd_shift);
	c->rcv_shift = sor_shift_or_default(rq->rcv_shift);

	sor_charge_owner(&owner);
	ret = sor_client_start(c, &owner, rq->port);
	if (ret) {
		kfree(bg);
		ret = sor_client_fail(c, -ret);
	} else if (bg) {
		ret = sor_connect_bg(c, bg, rq, out, deadline);
	} else {
		ret = sor_connect_wait(c, &owner, rq, out, deadline);
	}
	sor_charge_owner_put(&owner);
	return ret;
}
