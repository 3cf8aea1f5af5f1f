// SPDX-License-Identifier: GPL-2.0
/*
 * eusrv_sor: the dummy connection (D4.2's pending/completed
 * "newconnections").  Once a server connection is established, a kernel
 * TCP socket connects to the listener, so that the program's own accept()
 * returns only connections that ACCEPT can hand over at once; until then
 * the connection waits on sor_accepting, found by its dummy's ports.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/in.h>
#include <linux/mutex.h>
#include <linux/net.h>
#include <net/inet_sock.h>
#include <net/net_namespace.h>
#include <net/sock.h>

#include "sor_dummy.h"
#include "sor_setup.h"

#define SOR_DUMMY_TIMEOUT_MS	2000U

static LIST_HEAD(sor_accepting);
static DEFINE_SPINLOCK(sor_accept_lock);
/*
 * Connecting a dummy and dropping it never overlap (the socket goes), and
 * a dropped connection (dummy.gone) gets no dummy any more.
 */
static DEFINE_MUTEX(sor_dummy_mutex);

/*
 * The dummy's state changed (softirq or process context, the socket
 * locked).  Once the program closed its end of it unclaimed (FIN: our
 * CLOSE_WAIT; RST: CLOSE), C goes as the socket it stood for would, from
 * C's timer work (sor_setup_timer()).
 */
static void sor_dummy_state_change(struct sock *sk)
{
	struct sor_conn *c;
	unsigned long flags;

	read_lock_bh(&sk->sk_callback_lock);
	c = sk->sk_user_data;
	if (c && (sk->sk_state == TCP_CLOSE_WAIT || sk->sk_state == TCP_CLOSE)) {
		spin_lock_irqsave(&c->lock, flags);
		if (!c->released && !c->has_file && !c->dummy.closed) {
			c->dummy.closed = true;
			sor_conn_arm_locked(c, 0);
		}
		spin_unlock_irqrestore(&c->lock, flags);
	}
	if (c)
		c->dummy.state_change(sk);
	read_unlock_bh(&sk->sk_callback_lock);
}

/* SK tells C of its state changes; or no more (C NULL), as it was. */
static void sor_dummy_watch(struct sock *sk, struct sor_conn *c)
{
	struct sor_conn *old;

	write_lock_bh(&sk->sk_callback_lock);
	old = sk->sk_user_data;
	if (c) {
		c->dummy.state_change = sk->sk_state_change;
		sk->sk_state_change = sor_dummy_state_change;
	} else if (old) {
		sk->sk_state_change = old->dummy.state_change;
	}
	sk->sk_user_data = c;
	write_unlock_bh(&sk->sk_callback_lock);
}

/*
 * The dummy: a kernel TCP socket connected to the listener, made once the
 * connection is established, so that the program's accept() returns only
 * connections that ACCEPT can hand over at once.
 */
static int sor_dummy_connect(struct sor_conn *c)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	__be32 addr = c->dummy.addr;
	struct socket *sock;
	unsigned long flags;
	int ret;

	lockdep_assert_held(&sor_dummy_mutex);
	if (c->dummy.gone)
		return 0;
	/* Its port may be someone else's once that socket stopped listening. */
	if (!sor_sk_listens(c->dummy.listen_sk))
		return -ECONNREFUSED;
	if (!addr)
		addr = htonl(INADDR_LOOPBACK);
	/* C's reference on the namespace outlives the socket (drop_dummy). */
	ret = sock_create_kern(c->dummy.net, AF_INET, SOCK_STREAM, IPPROTO_TCP, &sock);
	if (ret)
		return ret;
	sock->sk->sk_sndtimeo = msecs_to_jiffies(SOR_DUMMY_TIMEOUT_MS);
	sin.sin_addr.s_addr = addr;
	ret = kernel_bind(sock, (struct sockaddr *)&sin, sizeof(sin));
	if (!ret) {
		ret = kernel_getsockname(sock, (struct sockaddr *)&sin);
		ret = ret < 0 ? ret : 0;
	}
	if (ret) {
		sock_release(sock);
		return ret;
	}
	sor_dummy_watch(sock->sk, c);
	/* Findable by ACCEPT before the listener can see it. */
	spin_lock_irqsave(&sor_accept_lock, flags);
	c->dummy.sock = sock;
	c->dummy.port = ntohs(sin.sin_port);
	list_add_tail(&c->dummy.link, &sor_accepting);
	spin_unlock_irqrestore(&sor_accept_lock, flags);

	sin.sin_addr.s_addr = addr;
	sin.sin_port = htons(c->lport);
	/*
	 * Not waiting for the handshake; a dummy that never completes is an
	 * unclaimed connection (SOR_UNCLAIMED_MS).
	 */
	ret = kernel_connect(sock, (struct sockaddr *)&sin, sizeof(sin), O_NONBLOCK);
	return ret == -EINPROGRESS ? 0 : ret;
}

/* Work item: the connection is established; let the listener see it. */
void sor_dummy_start(struct sor_conn *c)
{
	unsigned long flags;
	int ret;

	spin_lock_irqsave(&c->lock, flags);
	ret = c->released || !sor_st_claimable(c->state) ? -ECONNABORTED : 0;
	spin_unlock_irqrestore(&c->lock, flags);
	if (!ret) {
		mutex_lock(&sor_dummy_mutex);
		ret = sor_dummy_connect(c);
		mutex_unlock(&sor_dummy_mutex);
	}
	if (!ret || ret == -ECONNABORTED)
		return;
	pr_debug_ratelimited("conn %u: dummy connect to port %u failed: error %d\n",
			     c->id, c->lport, ret);
	spin_lock_irqsave(&c->lock, flags);
	if (!c->released) {
		c->released = true;
		sor_conn_nack_start_locked(c, ECONNABORTED);
		sor_conn_kick_locked(c, SOR_DO_RETIRE);
	}
	spin_unlock_irqrestore(&c->lock, flags);
}

/*
 * The connection whose dummy is the peer of the caller's accepted TCP
 * socket SK, taken off the accepting list; NULL if SK's peer is no dummy.
 */
struct sor_conn *sor_dummy_claim(struct sock *sk)
{
	const struct inet_sock *inet = inet_sk(sk);
	struct sor_conn *c, *found = NULL;
	const struct inet_sock *d;

	spin_lock_irq(&sor_accept_lock);
	list_for_each_entry(c, &sor_accepting, dummy.link) {
		d = inet_sk(c->dummy.sock->sk);
		if (net_eq(c->dummy.net, sock_net(sk)) &&
		    d->inet_sport == inet->inet_dport &&
		    d->inet_dport == inet->inet_sport &&
		    d->inet_saddr == inet->inet_daddr &&
		    d->inet_daddr == inet->inet_rcv_saddr) {
			list_del_init(&c->dummy.link);
			kref_get(&c->ref);
			found = c;
			break;
		}
	}
	spin_unlock_irq(&sor_accept_lock);
	return found;
}

/* C, claimed by an ACCEPT that could not open its file, may be claimed again. */
void sor_dummy_unclaim(struct sor_conn *c)
{
	unsigned long flags;

	spin_lock_irqsave(&sor_accept_lock, flags);
	/* Unless its dummy went meanwhile (retired, orphaned). */
	if (c->dummy.sock && !c->dummy.gone && list_empty(&c->dummy.link))
		list_add_tail(&c->dummy.link, &sor_accepting);
	spin_unlock_irqrestore(&sor_accept_lock, flags);
}

/* Off the accepting list, and the dummy socket closed; process context. */
void sor_dummy_drop(struct sor_conn *c)
{
	struct sock *lsk;
	struct socket *sock;
	unsigned long flags;
	struct net *net;

	mutex_lock(&sor_dummy_mutex);
	spin_lock_irqsave(&sor_accept_lock, flags);
	list_del_init(&c->dummy.link);
	sock = c->dummy.sock;
	net = c->dummy.net;
	lsk = c->dummy.listen_sk;
	c->dummy.sock = NULL;
	c->dummy.net = NULL;
	c->dummy.listen_sk = NULL;
	c->dummy.gone = true;
	spin_unlock_irqrestore(&sor_accept_lock, flags);
	if (sock) {
		sor_dummy_watch(sock->sk, NULL);
		sock_release(sock);
	}
	mutex_unlock(&sor_dummy_mutex);
	if (lsk)
		sock_put(lsk);
	if (net)
		put_net(net);
}

/*
 * C off the accepting list unless an ACCEPT claimed it: true if it was
 * still there (none can claim it now).  For a dummy whose peer the
 * program closed (sor_dummy_state_change()).
 */
bool sor_dummy_withdraw(struct sor_conn *c)
{
	bool unclaimed;

	spin_lock_irq(&sor_accept_lock);
	unclaimed = !c->dummy.gone && !list_empty(&c->dummy.link);
	if (unclaimed)
		list_del_init(&c->dummy.link);
	spin_unlock_irq(&sor_accept_lock);
	return unclaimed;
}

/* Nobody listens on PORT any more: its unclaimed connections go. */
void sor_dummy_orphan(u16 port)
{
	struct sor_conn *c;

	spin_lock_irq(&sor_accept_lock);
	list_for_each_entry(c, &sor_accepting, dummy.link) {
		if (c->lport != port)
			continue;
		spin_lock(&c->lock);
		c->released = true;
		sor_conn_abort_locked(c, ECONNABORTED, ECONNABORTED);
		spin_unlock(&c->lock);
	}
	spin_unlock_irq(&sor_accept_lock);
}

/*
 * Whether C's listener still listens.  Only the registered listener's
 * socket can have given the caller the dummy while it does: once it
 * stopped, the port may be another user's.
 */
bool sor_dummy_listener_live(struct sor_conn *c)
{
	bool live;

	mutex_lock(&sor_dummy_mutex);
	live = sor_sk_listens(c->dummy.listen_sk);
	mutex_unlock(&sor_dummy_mutex);
	return live;
}
