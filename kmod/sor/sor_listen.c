// SPDX-License-Identifier: GPL-2.0
/*
 * eusrv_sor listeners (docs/protocol.md section 3): LISTEN registers a
 * program's listening TCP socket for board peers, on its control file;
 * a ConnRQ finds its registration here (sor_listen_match).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>
#include <net/addrconf.h>
#include <net/inet_sock.h>
#include <net/ipv6.h>
#include <net/net_namespace.h>
#include <net/route.h>
#include <net/sock.h>
#include <net/tcp_states.h>

#include "sor_dummy.h"
#include "sor_listen.h"

static LIST_HEAD(sor_listeners);
static unsigned int sor_nr_listeners;	/* on sor_listeners */
static DEFINE_SPINLOCK(sor_listen_lock);	/* taken in hard IRQ too (ConnRQ) */

/* A registration of LISTEN (docs/protocol.md section 3). */
struct sor_listener {
	struct list_head link;		/* on sor_listeners */
	struct list_head ctl_link;	/* on its control file */
	struct sor_ctl *ctl;
	u16 port;
	struct sor_listen_match m;	/* what its connections are given */
};

static struct sor_listener *sor_ctl_listener(struct sor_ctl *ctl, u16 port)
{
	struct sor_listener *l;

	lockdep_assert_held(&ctl->mutex);
	list_for_each_entry(l, &ctl->listeners, ctl_link)
		if (l->port == port)
			return l;
	return NULL;
}

/*
 * Whether SK, bound to IPv4 address *ADDR (0: any), takes connections
 * from board peers: in the board's network namespace, not bound to
 * loopback, and an IPv6 socket only if it takes IPv4 too.
 */
static bool sor_listen_reachable(struct sock *sk, __be32 *addr)
{
	struct net *net = sock_net(sk);

	if (!net_eq(net, &init_net))
		return false;
	*addr = inet_sk(sk)->inet_rcv_saddr;
#if IS_ENABLED(CONFIG_IPV6)
	if (sk->sk_family == AF_INET6) {
		const struct in6_addr *a6 = &sk->sk_v6_rcv_saddr;

		if (ipv6_only_sock(sk))
			return false;
		if (ipv6_addr_any(a6)) {
			*addr = 0;
			return true;
		}
		if (!ipv6_addr_v4mapped(a6))
			return false;
		*addr = a6->s6_addr32[3];
	}
#endif
	return !*addr || (!ipv4_is_loopback(*addr) &&
			  inet_addr_type(net, *addr) == RTN_LOCAL);
}

/*
 * The caller's TCP socket FD listening on PORT at ADDR where peers reach
 * it, referenced; or an error.
 */
static struct sock *sor_listen_sock(int fd, u16 port, __be32 addr)
{
	struct socket *sock = sor_tcp_socket(fd);
	struct sock *sk;
	__be32 bound;
	int err = 0;

	if (IS_ERR(sock))
		return ERR_CAST(sock);
	sk = sock->sk;
	lock_sock(sk);
	if (sk->sk_state != TCP_LISTEN || inet_sk(sk)->inet_num != port)
		err = -EINVAL;
	else if (!sor_listen_reachable(sk, &bound))
		err = -EADDRNOTAVAIL;
	else if (bound != addr)
		err = -EINVAL;
	else
		sock_hold(sk);
	release_sock(sk);
	sockfd_put(sock);
	return err ? ERR_PTR(err) : sk;
}

/* What M holds goes (any part may be gone already).  Any context. */
void sor_listen_match_put(struct sor_listen_match *m)
{
	if (m->sk)
		sock_put(m->sk);
	m->sk = NULL;
	if (m->net) {
		sor_charge_owner_put(&m->owner);
		put_net(m->net);
	}
	m->net = NULL;
}

static void sor_listener_free(struct sor_listener *l)
{
	sor_listen_match_put(&l->m);
	kfree(l);
}

static bool sor_port_listened(u16 port)
{
	struct sor_listener *l;
	bool any = false;

	spin_lock_irq(&sor_listen_lock);
	list_for_each_entry(l, &sor_listeners, link)
		any |= l->port == port;
	spin_unlock_irq(&sor_listen_lock);
	return any;
}

static void sor_listener_drop(struct sor_listener *l)
{
	u16 port = l->port;

	l->ctl->nr_listeners--;
	list_del(&l->ctl_link);
	spin_lock_irq(&sor_listen_lock);
	list_del(&l->link);
	sor_nr_listeners--;
	spin_unlock_irq(&sor_listen_lock);
	sor_listener_free(l);
	/* Nobody listens on the port any more: its unclaimed connections go. */
	if (!sor_port_listened(port))
		sor_dummy_orphan(port);
}

int sor_listen(struct sor_ctl *ctl, const struct eusrv_sor_listen *rq)
{
	struct sor_listener *l, *old;
	struct sock *sk;
	int ret = 0;

	if (!rq->port || rq->flags ||
	    !sor_shift_valid(rq->snd_shift) || !sor_shift_valid(rq->rcv_shift))
		return -EINVAL;
	sk = sor_listen_sock(rq->fd, rq->port, (__force __be32)rq->addr);
	if (IS_ERR(sk))
		return PTR_ERR(sk);
	l = kzalloc(sizeof(*l), GFP_KERNEL_ACCOUNT);
	if (!l) {
		sock_put(sk);
		return -ENOMEM;
	}
	l->ctl = ctl;
	l->port = rq->port;
	l->m.sk = sk;
	l->m.addr = (__force __be32)rq->addr;
	l->m.snd_shift = rq->snd_shift;
	l->m.rcv_shift = rq->rcv_shift;
	l->m.net = get_net(sock_net(sk));
	sor_charge_owner(&l->m.owner);

	mutex_lock(&ctl->mutex);
	old = sor_ctl_listener(ctl, rq->port);
	if (old && old->m.sk == sk) {
		ret = -EEXIST;
	} else if (!old && ctl->nr_listeners >= SOR_CTL_MAX_LISTENERS) {
		ret = -ENOBUFS;
	} else {
		ctl->nr_listeners++;
		list_add_tail(&l->ctl_link, &ctl->listeners);
		spin_lock_irq(&sor_listen_lock);
		list_add_tail(&l->link, &sor_listeners);
		sor_nr_listeners++;
		spin_unlock_irq(&sor_listen_lock);
		/* The port's earlier socket (closed, or another) gives way. */
		if (old)
			sor_listener_drop(old);
	}
	mutex_unlock(&ctl->mutex);
	if (ret)
		sor_listener_free(l);
	return ret;
}

int sor_unlisten(struct sor_ctl *ctl, const struct eusrv_sor_listen *rq)
{
	struct sor_listener *l;
	int ret = 0;

	if (!rq->port || rq->flags)
		return -EINVAL;
	mutex_lock(&ctl->mutex);
	l = sor_ctl_listener(ctl, rq->port);
	if (l)
		sor_listener_drop(l);
	else
		ret = -ENOENT;
	mutex_unlock(&ctl->mutex);
	return ret;
}

/* STATS listeners: registrations now. */
u32 sor_listen_count(void)
{
	return READ_ONCE(sor_nr_listeners);
}

void sor_listen_ctl_gone(struct sor_ctl *ctl)
{
	struct sor_listener *l, *n;

	mutex_lock(&ctl->mutex);
	list_for_each_entry_safe(l, n, &ctl->listeners, ctl_link)
		sor_listener_drop(l);
	mutex_unlock(&ctl->mutex);
}

/*
 * The registration a ConnRQ for PORT goes to, its socket held and what
 * the connection needs of it copied into M; false if there is none.
 * ConnRQ does not say which of the node's addresses the client connected
 * to, so it goes to a listener only when every live registration on the
 * port names the same address and user (one socket, or a SO_REUSEPORT
 * group): where TCP would choose between listeners by address, the
 * client is refused and goes over TCP, never to another user's listener.
 * Any context (the interrupt that brought the ConnRQ too).
 */
bool sor_listen_match(u16 port, struct sor_listen_match *m)
{
	struct sor_listener *l, *found = NULL;
	unsigned long flags;
	bool clash = false;

	spin_lock_irqsave(&sor_listen_lock, flags);
	list_for_each_entry(l, &sor_listeners, link) {
		if (l->port != port || !sor_sk_listens(l->m.sk))
			continue;
		if (!found)
			found = l;
		else if (l->m.addr != found->m.addr ||
			 l->m.owner.user != found->m.owner.user)
			clash = true;
	}
	if (found && !clash) {
		*m = found->m;
		get_net(m->net);
		sock_hold(m->sk);
		sor_charge_owner_copy(&m->owner, &found->m.owner);
	}
	spin_unlock_irqrestore(&sor_listen_lock, flags);
	return found && !clash;
}
