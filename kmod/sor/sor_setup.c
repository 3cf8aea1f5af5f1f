// SPDX-License-Identifier: GPL-2.0
/*
 * eusrv_sor connection set-up (docs/protocol.md section 3): listeners,
 * ConnRQ/ConnRPL, the dummy localhost TCP connection that the listening
 * program's own accept() takes, and matching it in ACCEPT (D4.2's
 * pending/completed "newconnections": here the server connections that
 * wait on sor_accepting, found by listening port and dummy port).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/in.h>
#include <linux/delay.h>
#include <linux/fdtable.h>
#include <linux/jiffies.h>
#include <linux/mutex.h>
#include <linux/net.h>
#include <linux/nsproxy.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <net/addrconf.h>
#include <net/inet_sock.h>
#include <net/ipv6.h>
#include <net/net_namespace.h>
#include <net/route.h>
#include <net/sock.h>
#include <net/tcp_states.h>

#include <eusrv/board_hw.h>
#include <eusrv/mbox.h>

#include "sor_data.h"
#include "sor_keepalive.h"
#include "sor_nack.h"
#include "sor_setup.h"

#define SOR_SETUP_SEND_TIMEOUT_MS	500U
#define SOR_DEF_TIMEOUT_MS		2000U
#define SOR_MAX_TIMEOUT_MS		60000U
#define SOR_DUMMY_TIMEOUT_MS		2000U

/* Fault injection (sor_debugfs.c): a slow server, ms each ConnRQ waits. */
u32 sor_serve_delay_ms;
/* ... a hostile server: the frame its ADDR names (0: its own rings). */
u64 sor_forge_addr;

/* A registration of LISTEN (docs/protocol.md section 3). */
struct sor_listener {
	struct list_head link;		/* on sor_listeners */
	struct list_head ctl_link;	/* on its control file */
	struct sor_ctl *ctl;
	struct net *net;
	struct sock *sk;		/* the program's listening socket */
	struct sor_owner owner;		/* its connections' rings are charged to */
	__be32 addr;
	u16 port;
	u8 snd_shift;
	u8 rcv_shift;
};

/* Whether a registered listener's socket SK still listens (any context). */
static bool sor_sk_listens(const struct sock *sk)
{
	return sk && !sock_flag(sk, SOCK_DEAD) &&
	       READ_ONCE(sk->sk_state) == TCP_LISTEN;
}

/*
 * A ConnRQ being served: in the interrupt that brought it where it can be
 * served there (sor_serve_now), else by the workqueue from where the
 * interrupt left it (sor_setup_serve).
 */
struct sor_request {
	struct work_struct work;
	unsigned int node;
	unsigned int client_id;
	struct eusrv_sor_connrq rq;
	/* What the listener gave (sor_request_listener); lsk set: found. */
	struct net *net;
	struct sock *lsk;		/* the listener's socket, held */
	struct sor_owner owner;
	__be32 addr;
	u8 snd_shift;
	u8 rcv_shift;
	/* Once made (sor_serve_make): the connection and its replies. */
	struct sor_conn *c;		/* referenced */
	u64 rpl[2];			/* ACCEPT, ADDR */
	unsigned int sent;		/* of rpl, queued */
};

/*
 * ConnRQs being served, at most, each in a slot of its own taken in the
 * interrupt: a peer cannot make us hold more.
 */
#define SOR_MAX_REQUESTS	128
static struct sor_request sor_req_slot[SOR_MAX_REQUESTS];
static DECLARE_BITMAP(sor_req_used, SOR_MAX_REQUESTS);

/* A free request slot, zeroed, or NULL (any context). */
static struct sor_request *sor_request_get(void)
{
	unsigned int i;

	do {
		i = find_first_zero_bit(sor_req_used, SOR_MAX_REQUESTS);
		if (i >= SOR_MAX_REQUESTS)
			return NULL;
	} while (test_and_set_bit_lock(i, sor_req_used));
	memset(&sor_req_slot[i], 0, sizeof(sor_req_slot[i]));
	return &sor_req_slot[i];
}

static void sor_request_put(struct sor_request *r)
{
	clear_bit_unlock(r - sor_req_slot, sor_req_used);
}

static LIST_HEAD(sor_listeners);
static unsigned int sor_nr_listeners;	/* on sor_listeners */
static DEFINE_SPINLOCK(sor_listen_lock);	/* taken in hard IRQ too (ConnRQ) */
static LIST_HEAD(sor_accepting);
static DEFINE_SPINLOCK(sor_accept_lock);
/*
 * Connecting a dummy and dropping it never overlap (the socket goes), and
 * a dropped connection (dummy_gone) gets no dummy any more.
 */
static DEFINE_MUTEX(sor_dummy_mutex);
/* The file layer above (sor_setup_init). */
static const struct sor_setup_ops *sor_files;
static struct workqueue_struct *sor_setup_wq;

/* A ring is at least a page, so that it maps on its own. */
#define SOR_RING_MIN_SHIFT	max_t(unsigned int, EUSRV_SOR_RING_MIN_SHIFT, PAGE_SHIFT)

static unsigned int sor_shift_or_default(unsigned int shift)
{
	shift = shift ? shift : EUSRV_SOR_RING_DEF_SHIFT;
	return max_t(unsigned int, shift, SOR_RING_MIN_SHIFT);
}

static bool sor_shift_valid(unsigned int shift)
{
	return !shift || sor_ring_shift_ok(shift, EUSRV_SOR_RING_MIN_SHIFT,
					   EUSRV_SOR_RING_MAX_SHIFT);
}

static long sor_timeout(u32 ms)
{
	return msecs_to_jiffies(ms ? ms : SOR_DEF_TIMEOUT_MS);
}

/* ---- listeners ------------------------------------------------------------ */

static struct sor_listener *sor_ctl_listener(struct sor_ctl *ctl, u16 port)
{
	struct sor_listener *l;

	lockdep_assert_held(&ctl->mutex);
	list_for_each_entry(l, &ctl->listeners, ctl_link)
		if (l->port == port)
			return l;
	return NULL;
}

/* Whether SK is a TCP socket over IPv4 or IPv6. */
static bool sor_sk_tcp(const struct sock *sk)
{
	return sk->sk_type == SOCK_STREAM && sk->sk_protocol == IPPROTO_TCP &&
	       (sk->sk_family == AF_INET || sk->sk_family == AF_INET6);
}

/*
 * The caller's descriptor FD if it is a TCP socket over IPv4 or IPv6,
 * referenced (sockfd_put); else an error.
 */
static struct socket *sor_tcp_socket(int fd)
{
	struct socket *sock;
	int err;

	sock = sockfd_lookup(fd, &err);
	if (!sock)
		return ERR_PTR(err);
	if (sor_sk_tcp(sock->sk))
		return sock;
	sockfd_put(sock);
	return ERR_PTR(-EINVAL);
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

static void sor_listener_free(struct sor_listener *l)
{
	sor_charge_owner_put(&l->owner);
	sock_put(l->sk);
	put_net(l->net);
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

/* Nobody listens on PORT any more: its unclaimed connections go. */
static void sor_setup_orphan(u16 port)
{
	struct sor_conn *c;

	if (sor_port_listened(port))
		return;
	spin_lock_irq(&sor_accept_lock);
	list_for_each_entry(c, &sor_accepting, accept_link) {
		if (c->lport != port)
			continue;
		spin_lock(&c->lock);
		c->released = true;
		sor_conn_abort_locked(c, ECONNABORTED, ECONNABORTED);
		spin_unlock(&c->lock);
	}
	spin_unlock_irq(&sor_accept_lock);
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
	sor_setup_orphan(port);
}

int sor_setup_listen(struct sor_ctl *ctl, const struct eusrv_sor_listen *rq)
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
	l->sk = sk;
	l->addr = (__force __be32)rq->addr;
	l->port = rq->port;
	l->snd_shift = rq->snd_shift;
	l->rcv_shift = rq->rcv_shift;
	l->net = get_net(sock_net(sk));
	sor_charge_owner(&l->owner);

	mutex_lock(&ctl->mutex);
	old = sor_ctl_listener(ctl, rq->port);
	if (old && old->sk == sk) {
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

int sor_setup_unlisten(struct sor_ctl *ctl, const struct eusrv_sor_listen *rq)
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
u32 sor_setup_listeners(void)
{
	return READ_ONCE(sor_nr_listeners);
}

void sor_setup_ctl_gone(struct sor_ctl *ctl)
{
	struct sor_listener *l, *n;

	mutex_lock(&ctl->mutex);
	list_for_each_entry_safe(l, n, &ctl->listeners, ctl_link)
		sor_listener_drop(l);
	mutex_unlock(&ctl->mutex);
}

/* ---- server: ConnRQ, the dummy connection, the replies -------------------- */

static void sor_refuse(unsigned int node, unsigned int client_id, int reason)
{
	sor_count(SOR_S_REFUSED);
	sor_nack_send_raw(node, client_id, EUSRV_SOR_NACK_REQUEST, reason,
			  EUSRV_SOR_NO_ID);
}

/*
 * The dummy: a kernel TCP socket connected to the listener, made once the
 * connection is established, so that the program's accept() returns only
 * connections that ACCEPT can hand over at once.
 */
static int sor_dummy_connect(struct sor_conn *c)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	__be32 addr = c->dummy_addr;
	struct socket *sock;
	unsigned long flags;
	int ret;

	lockdep_assert_held(&sor_dummy_mutex);
	if (c->dummy_gone)
		return 0;
	/* Its port may be someone else's once that socket stopped listening. */
	if (!sor_sk_listens(c->listen_sk))
		return -ECONNREFUSED;
	if (!addr)
		addr = htonl(INADDR_LOOPBACK);
	/* C's reference on the namespace outlives the socket (drop_dummy). */
	ret = sock_create_kern(c->net, AF_INET, SOCK_STREAM, IPPROTO_TCP, &sock);
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
	/* Findable by ACCEPT before the listener can see it. */
	spin_lock_irqsave(&sor_accept_lock, flags);
	c->dummy = sock;
	c->dummy_port = ntohs(sin.sin_port);
	list_add_tail(&c->accept_link, &sor_accepting);
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
void sor_setup_dummy(struct sor_conn *c)
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

static int sor_setup_send(unsigned int node, u64 msg)
{
	return sor_send_wait(node, msg, SOR_SETUP_SEND_TIMEOUT_MS);
}

/*
 * The ring shifts of R's connection, client to server (CS) and back (SC):
 * each the larger of the two sides' wishes, but never above the larger of
 * the listener's own, so that a client cannot choose how much of the
 * listener's user's locked memory its rings take.
 */
static void sor_serve_shifts(const struct sor_request *r, unsigned int *cs,
			     unsigned int *sc)
{
	unsigned int own_snd = sor_shift_or_default(r->snd_shift);
	unsigned int own_rcv = sor_shift_or_default(r->rcv_shift);
	unsigned int cap = max(own_snd, own_rcv);

	*cs = min(max(sor_shift_or_default(r->rq.snd_shift), own_rcv), cap);
	*sc = min(max(sor_shift_or_default(r->rq.rcv_shift), own_snd), cap);
}

/*
 * The registration R's ConnRQ goes to, its socket held and what the
 * connection needs of it copied into R; false if there is none.  ConnRQ
 * does not say which of the node's addresses the client connected to,
 * so it goes to a listener only when every live registration on the port
 * names the same address and user (one socket, or a SO_REUSEPORT group):
 * where TCP would choose between listeners by address, the client is
 * refused and goes over TCP, never to another user's listener.
 */
static bool sor_request_listener(struct sor_request *r)
{
	struct sor_listener *l, *found = NULL;
	unsigned long flags;
	bool clash = false;

	spin_lock_irqsave(&sor_listen_lock, flags);
	list_for_each_entry(l, &sor_listeners, link) {
		if (l->port != r->rq.dport || !sor_sk_listens(l->sk))
			continue;
		if (!found)
			found = l;
		else if (l->addr != found->addr ||
			 l->owner.user != found->owner.user)
			clash = true;
	}
	if (found && !clash) {
		r->net = get_net(found->net);
		r->lsk = found->sk;
		sock_hold(r->lsk);
		sor_charge_owner_copy(&r->owner, &found->owner);
		r->addr = found->addr;
		r->snd_shift = found->snd_shift;
		r->rcv_shift = found->rcv_shift;
	}
	spin_unlock_irqrestore(&sor_listen_lock, flags);
	return found && !clash;
}

/*
 * R's connection, charged, with its rings and in the table, allocated
 * with GFP; 0, or -EDQUOT or -ENOMEM, the client's refusal (nothing of
 * the connection left).
 */
static int sor_serve_make(struct sor_request *r, gfp_t gfp)
{
	unsigned int cs, sc;
	unsigned long flags;
	struct sor_conn *c;
	int ret;

	c = sor_conn_new(r->node, false, gfp);
	if (IS_ERR(c))
		return -ENOMEM;
	c->peer_id = r->client_id;
	/* The listener's user's until ACCEPT. */
	c->uid = r->owner.user->uid;
	c->lport = r->rq.dport;
	c->rport = r->rq.sport;
	sor_serve_shifts(r, &cs, &sc);
	c->snd_shift = sc;
	c->rcv_shift = cs;
	/* Charged, with its rings, before any message can reach it. */
	ret = sor_charge(&c->charge, &r->owner,
			 sor_charge_pages(1U << sc, 1U << cs), gfp);
	if (ret) {
		sor_conn_put(c);
		return ret == -EDQUOT ? ret : -ENOMEM;
	}
	if (sor_conn_alloc_rings(c, 1U << sc, 1U << cs, gfp)) {
		sor_conn_put(c);
		return -ENOMEM;
	}
	/* Held until the dummy goes: it connects only to this listener. */
	c->net = get_net(r->net);
	c->listen_sk = r->lsk;
	r->lsk = NULL;
	c->dummy_addr = r->addr;
	if (sor_conn_publish(c)) {
		/* Never in the table, so never unlinked: R holds them again. */
		r->lsk = c->listen_sk;
		c->listen_sk = NULL;
		put_net(c->net);
		c->net = NULL;
		sor_conn_put(c);
		return -ENOMEM;
	}
	sor_ka_heard(r->node);	/* keepalives start from now */
	/* ACCEPT and ADDR with one doorbell. */
	r->rpl[0] = eusrv_sor_msg_accept(c->peer_id, c->id, cs, sc);
	r->rpl[1] = eusrv_sor_msg_addr(c->peer_id, c->id,
				       READ_ONCE(sor_forge_addr) ?:
				       sor_conn_ring_phys(c->rcv_blk));
	/*
	 * From ACCEPT on, the client may learn our block (and a forged ADDR
	 * be taken for its own): held until it confirms the end.
	 */
	spin_lock_irqsave(&c->lock, flags);
	c->peer_may_write = true;
	spin_unlock_irqrestore(&c->lock, flags);
	r->c = c;
	return 0;
}

/*
 * R's replies have all gone (RET 0), or could not: the connection waits
 * for the client's ADDR, or goes.  Any context.
 */
static void sor_serve_replied(struct sor_request *r, int ret)
{
	struct sor_conn *c = r->c;
	unsigned long flags;

	spin_lock_irqsave(&c->lock, flags);
	if (ret) {
		pr_debug_ratelimited("conn %u: set-up for node %u port %u failed: error %d\n",
				     c->id, r->node, c->lport, ret);
		sor_count(SOR_S_REFUSED);
		c->released = true;
		sor_conn_abort_locked(c, ECONNABORTED, ECONNABORTED);
	} else if (c->state == EUSRV_SOR_ST_ACCEPTING) {
		sor_conn_arm_locked(c, SOR_SETUP_TIMEOUT_MS);
	}
	spin_unlock_irqrestore(&c->lock, flags);
	sor_conn_put(c);	/* ours; the table keeps it */
	r->c = NULL;
}

/* R is done with: what it held goes, and its slot.  Any context. */
static void sor_request_end(struct sor_request *r)
{
	if (r->lsk)
		sock_put(r->lsk);
	if (r->net) {
		sor_charge_owner_put(&r->owner);
		put_net(r->net);
	}
	sor_request_put(r);
}

/* Work item: serve R from where the interrupt left it. */
static void sor_setup_serve(struct work_struct *w)
{
	struct sor_request *r = container_of(w, struct sor_request, work);
	int ret;

	if (READ_ONCE(sor_serve_delay_ms))
		msleep(min(READ_ONCE(sor_serve_delay_ms), SOR_MAX_TIMEOUT_MS));
	if (!r->c && !r->lsk && !sor_request_listener(r)) {
		sor_refuse(r->node, r->client_id, ECONNREFUSED);
		goto end;
	}
	if (!r->c) {
		ret = sor_serve_make(r, GFP_KERNEL_ACCOUNT);
		if (ret) {
			sor_refuse(r->node, r->client_id, -ret);
			goto end;
		}
	}
	ret = sor_send_wait_many(r->node, r->rpl + r->sent,
				 ARRAY_SIZE(r->rpl) - r->sent,
				 SOR_SETUP_SEND_TIMEOUT_MS);
	sor_serve_replied(r, ret);
end:
	sor_request_end(r);
}

/*
 * Serve R in the interrupt that brought it, as far as that can go without
 * sleeping: a client's connect() waits on the answer, and a worker waits
 * for the node's CPU behind whatever runs there.  True if R is done with;
 * false if the workqueue must go on (no ready rings, a full outbound
 * queue, a fault injected).
 */
static bool sor_serve_now(struct sor_request *r)
{
	int n;

	if (READ_ONCE(sor_serve_delay_ms))
		return false;
	if (!sor_request_listener(r)) {
		sor_refuse(r->node, r->client_id, ECONNREFUSED);
		sor_request_end(r);
		return true;
	}
	if (sor_serve_make(r, GFP_ATOMIC | __GFP_NOWARN))
		return false;
	n = sor_send_many(r->node, r->rpl, ARRAY_SIZE(r->rpl));
	if (n < (int)ARRAY_SIZE(r->rpl)) {
		r->sent = max(n, 0);
		return false;
	}
	sor_serve_replied(r, 0);
	sor_request_end(r);
	return true;
}

/*
 * ConnRQ from node SRC for client connection CLIENT_ID (hard IRQ):
 * checked, then served (sor_serve_now, sor_setup_serve).
 */
void sor_rx_connrq(unsigned int src, unsigned int client_id, u64 msg)
{
	struct eusrv_sor_connrq rq;
	struct sor_request *r;

	eusrv_sor_connrq_decode(msg, &rq);
	if (client_id >= EUSRV_SOR_NO_ID || !rq.dport || !rq.sport ||
	    (eusrv_msg_payload(msg) & GENMASK_ULL(5, 0)) ||
	    !sor_shift_valid(rq.snd_shift) || !sor_shift_valid(rq.rcv_shift)) {
		sor_bad("malformed ConnRQ %#llx from node %u\n", msg, src);
		return;
	}
	r = sor_request_get();
	if (!r) {
		sor_refuse(src, client_id, ENOBUFS);
		return;
	}
	r->node = src;
	r->client_id = client_id;
	r->rq = rq;
	if (sor_serve_now(r))
		return;
	INIT_WORK(&r->work, sor_setup_serve);
	queue_work(sor_setup_wq, &r->work);
}

/* ---- ConnRPL on both sides --------------------------------------------- */

static bool sor_rpl_accept_ok(struct sor_conn *c,
			      const struct eusrv_sor_accept_msg *a)
{
	/*
	 * Each direction is the larger wish, capped by the server's own: it
	 * may be below ours, never below a page.
	 */
	return a->server_id < EUSRV_SOR_NO_ID &&
	       sor_ring_shift_ok(a->cs_shift, SOR_RING_MIN_SHIFT,
				 EUSRV_SOR_RING_MAX_SHIFT) &&
	       sor_ring_shift_ok(a->sc_shift, SOR_RING_MIN_SHIFT,
				 EUSRV_SOR_RING_MAX_SHIFT);
}

void sor_rx_connrpl(struct sor_conn *c, unsigned int src, u64 msg)
{
	unsigned int step = eusrv_sor_rpl_step(msg);
	struct eusrv_sor_accept_msg a;
	unsigned long flags;
	u64 addr;

	spin_lock_irqsave(&c->lock, flags);
	if (step == EUSRV_SOR_RPL_ACCEPT &&
	    sor_st_accepts(c->state, c->client, c->peer_id != EUSRV_SOR_NO_ID,
			   c->have_addr, SOR_MSG_ACCEPT)) {
		eusrv_sor_accept_decode(msg, &a);
		if (!sor_rpl_accept_ok(c, &a) ||
		    (eusrv_msg_payload(msg) & GENMASK_ULL(21, 0))) {
			sor_bad("conn %u: bad ACCEPT %#llx from node %u\n",
				c->id, msg, src);
			goto out;
		}
		c->peer_id = a.server_id;
		c->snd_shift = a.cs_shift;
		c->rcv_shift = a.sc_shift;
		wake_up_all(&c->wq);
	} else if (step == EUSRV_SOR_RPL_ADDR &&
		   sor_st_accepts(c->state, c->client,
				  c->peer_id != EUSRV_SOR_NO_ID, c->have_addr,
				  SOR_MSG_ADDR)) {
		if (eusrv_msg_payload(msg) & GENMASK_ULL(31, 28)) {
			sor_bad("conn %u: bad ADDR %#llx from node %u\n",
				c->id, msg, src);
			goto out;
		}
		/* A server takes the client's ADDR only once ACCEPT went. */
		if (!c->client && !c->peer_may_write) {
			sor_bad("conn %u: ADDR %#llx from node %u before our ACCEPT\n",
				c->id, msg, src);
			goto out;
		}
		addr = eusrv_sor_addr_decode(msg);
		/*
		 * Always inside the peer's own memory (the GA names its node),
		 * and the whole block inside its RAM.
		 */
		if (addr + SOR_RCV_DATA_OFF + (1ULL << c->snd_shift) >
		    EUSRV_GA_BLOCKS) {
			sor_bad("conn %u: ADDR %#llx beyond node %u's RAM\n",
				c->id, addr, src);
			goto out;
		}
		c->peer_hdr_ga = EUSRV_GA((u64)c->peer_node, addr);
		c->have_addr = true;
		if (!c->client) {
			sor_data_established_locked(c);
			sor_conn_set_state_locked(c, EUSRV_SOR_ST_ESTABLISHED, 0);
			sor_count_opened_locked(c);
			/* Until ACCEPT claims it. */
			sor_conn_arm_locked(c, SOR_UNCLAIMED_MS);
			sor_conn_kick_locked(c, SOR_DO_DUMMY);
		}
		wake_up_all(&c->wq);
	} else {
		sor_bad("conn %u: ConnRPL %#llx from node %u unexpected in state %u\n",
			c->id, msg, src, c->state);
	}
	if (c->bg && !c->bg->done)
		sor_conn_kick_locked(c, SOR_DO_CONNECT);
out:
	spin_unlock_irqrestore(&c->lock, flags);
}

/* Work item: a set-up or claim deadline passed. */
void sor_setup_timer(struct sor_conn *c)
{
	unsigned long flags;

	spin_lock_irqsave(&c->lock, flags);
	if (c->client && c->bg && !c->bg->done)
		sor_conn_kick_locked(c, SOR_DO_CONNECT);	/* the deadline */
	if (c->client || c->has_file) {
		spin_unlock_irqrestore(&c->lock, flags);
		return;
	}
	if (c->state == EUSRV_SOR_ST_ACCEPTING) {
		/* The client's ADDR never came. */
		c->released = true;
		sor_conn_abort_locked(c, ETIMEDOUT, ETIMEDOUT);
	} else if (!c->released &&
		   time_after_eq(jiffies, c->born + msecs_to_jiffies(SOR_UNCLAIMED_MS))) {
		/* The program never accepted the dummy. */
		c->released = true;
		if (sor_st_open(c->state))
			sor_conn_nack_start_locked(c, ECONNABORTED);
		else
			sor_conn_abort_locked(c, ECONNABORTED, ECONNABORTED);
		sor_conn_kick_locked(c, SOR_DO_RETIRE);
	}
	spin_unlock_irqrestore(&c->lock, flags);
}

/* Off the accepting list, and the dummy socket closed; process context. */
void sor_setup_drop_dummy(struct sor_conn *c)
{
	struct sock *lsk;
	struct socket *sock;
	unsigned long flags;
	struct net *net;

	mutex_lock(&sor_dummy_mutex);
	spin_lock_irqsave(&sor_accept_lock, flags);
	list_del_init(&c->accept_link);
	sock = c->dummy;
	net = c->net;
	lsk = c->listen_sk;
	c->dummy = NULL;
	c->net = NULL;
	c->listen_sk = NULL;
	c->dummy_gone = true;
	spin_unlock_irqrestore(&sor_accept_lock, flags);
	if (sock)
		sock_release(sock);
	mutex_unlock(&sor_dummy_mutex);
	if (lsk)
		sock_put(lsk);
	if (net)
		put_net(net);
}

/* ---- ACCEPT --------------------------------------------------------------- */

/*
 * The connection whose dummy is the peer of the caller's accepted TCP
 * socket SK, taken off the accepting list; NULL if SK's peer is no dummy.
 */
static struct sor_conn *sor_accept_claim(struct sock *sk)
{
	const struct inet_sock *inet = inet_sk(sk);
	struct sor_conn *c, *found = NULL;
	const struct inet_sock *d;

	spin_lock_irq(&sor_accept_lock);
	list_for_each_entry(c, &sor_accepting, accept_link) {
		d = inet_sk(c->dummy->sk);
		if (net_eq(c->net, sock_net(sk)) &&
		    d->inet_sport == inet->inet_dport &&
		    d->inet_dport == inet->inet_sport &&
		    d->inet_saddr == inet->inet_daddr &&
		    d->inet_daddr == inet->inet_rcv_saddr) {
			list_del_init(&c->accept_link);
			kref_get(&c->ref);
			found = c;
			break;
		}
	}
	spin_unlock_irq(&sor_accept_lock);
	return found;
}

/* C, claimed by an ACCEPT that could not open its file, may be claimed again. */
static void sor_accept_unclaim(struct sor_conn *c)
{
	unsigned long flags;

	spin_lock_irqsave(&sor_accept_lock, flags);
	/* Unless its dummy went meanwhile (retired, orphaned). */
	if (c->dummy && !c->dummy_gone && list_empty(&c->accept_link))
		list_add_tail(&c->accept_link, &sor_accepting);
	spin_unlock_irqrestore(&sor_accept_lock, flags);
}

/* The connection of accepted socket FD, claimed; or an error. */
static struct sor_conn *sor_accept_find(int fd)
{
	struct socket *sock = sor_tcp_socket(fd);
	struct sor_conn *c = NULL;
	struct sock *sk;

	if (IS_ERR(sock))
		return ERR_CAST(sock);
	sk = sock->sk;
	lock_sock(sk);
	/* An IPv6 socket's peer is the dummy's IPv4 address, mapped. */
	if (sk->sk_state != TCP_LISTEN && sk->sk_state != TCP_CLOSE)
		c = sor_accept_claim(sk);
	release_sock(sk);
	sockfd_put(sock);
	return c ? c : ERR_PTR(-ENOENT);
}

/* Set-up failed after the file was promised: the connection goes, aborted. */
static void sor_setup_abandon(struct sor_conn *c)
{
	unsigned long flags;

	spin_lock_irqsave(&c->lock, flags);
	c->released = true;
	sor_conn_abort_locked(c, ECONNABORTED, ECONNABORTED);
	spin_unlock_irqrestore(&c->lock, flags);
}

int sor_setup_accept(struct sor_ctl *ctl, const struct eusrv_sor_accept *rq)
{
	struct sor_conn *c;
	unsigned long flags;
	bool live;
	int ret;

	if (rq->reserved0 || rq->reserved1 ||
	    (rq->flags & ~(EUSRV_SOR_F_NONBLOCK | EUSRV_SOR_F_CLOEXEC)))
		return -EINVAL;
	c = sor_accept_find(rq->fd);
	if (IS_ERR(c))
		return PTR_ERR(c);	/* ENOENT: a genuine local TCP client */
	/*
	 * Only the registered listener's socket can have given the caller
	 * the dummy while it still listens: once it stopped, the port may
	 * be another user's.
	 */
	mutex_lock(&sor_dummy_mutex);
	live = sor_sk_listens(c->listen_sk);
	mutex_unlock(&sor_dummy_mutex);

	spin_lock_irqsave(&c->lock, flags);
	/* The accepting process owns it now, not the worker that made it. */
	c->pid = task_tgid_nr(current);
	c->uid = current_euid();
	ret = 0;
	if (!live)
		sor_conn_abort_locked(c, ECONNABORTED, ECONNABORTED);
	if (c->released || c->state == EUSRV_SOR_ST_RESET) {
		ret = -(c->so_error ? c->so_error : ECONNABORTED);
		c->released = true;
		sor_conn_kick_locked(c, SOR_DO_RETIRE);
	}
	spin_unlock_irqrestore(&c->lock, flags);
	if (!ret) {
		ret = sor_files->file_open(c, rq->flags);
		/*
		 * The caller's lack (no descriptor, no memory), not the
		 * connection's: as TCP's accept() leaves the connection
		 * queued, it stays claimable by the same accepted socket.
		 */
		if (ret == -EMFILE || ret == -ENFILE || ret == -ENOMEM) {
			sor_accept_unclaim(c);
			sor_conn_put(c);
			return ret;
		}
	}
	sor_setup_drop_dummy(c);
	if (ret < 0 && ret != -ECONNABORTED && ret != -ETIMEDOUT &&
	    ret != -ECONNRESET)
		sor_setup_abandon(c);
	sor_conn_put(c);
	return ret;
}

/* ---- client: CONNECT ---------------------------------------------------- */

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

/* C's set-up is given up with ERR: the error to report (c->lock held). */
static int sor_connect_give_up_locked(struct sor_conn *c, int err)
{
	sor_count(SOR_S_CONNECT_FAILED);
	if (c->state != EUSRV_SOR_ST_CONNECTING) {
		/* The peer ended it (NACK) or the node went away. */
		err = c->so_error ? c->so_error : err;
	} else if (c->peer_id == EUSRV_SOR_NO_ID) {
		/* No answer yet: keep the id until a late one cannot hurt. */
		c->state = SOR_ST_QUARANTINE;
		c->so_error = err;
		sor_conn_flags_locked(c);
		sor_conn_arm_locked(c, SOR_QUARANTINE_MS);
		sor_conn_wake(c, SOR_WAKE_ALL);
	} else {
		sor_conn_abort_locked(c, err, err == ENOMEM ? ENOMEM : ECONNABORTED);
	}
	return err;
}

/* A failed CONNECT: the error for the caller; C is given up. */
static int sor_connect_fail(struct sor_conn *c, int err)
{
	unsigned long flags;

	spin_lock_irqsave(&c->lock, flags);
	c->released = true;
	err = sor_connect_give_up_locked(c, err);
	sor_conn_kick_locked(c, SOR_DO_RETIRE);
	spin_unlock_irqrestore(&c->lock, flags);
	sor_conn_put(c);
	return -err;
}

/*
 * The server's ADDR is in and our rings are ready: ESTABLISHED before our
 * own ADDR goes, since the server may ask at once.  False while the ADDR
 * is awaited or once the set-up failed.  c->lock held.
 */
static bool sor_connect_establish_locked(struct sor_conn *c)
{
	if (c->state != EUSRV_SOR_ST_CONNECTING || !c->have_addr)
		return false;
	sor_data_established_locked(c);
	sor_conn_set_state_locked(c, EUSRV_SOR_ST_ESTABLISHED, 0);
	sor_count_opened_locked(c);
	return true;
}

/* Tell the server where our receive block is: the engine may write it. */
static int sor_connect_send_addr(struct sor_conn *c)
{
	c->peer_may_write = true;
	return sor_setup_send(c->peer_node,
			      eusrv_sor_msg_addr(c->peer_id, c->id,
						 sor_conn_ring_phys(c->rcv_blk)));
}

/*
 * Rings of the sizes C's shifts say, charged to OWNER before they are
 * allocated: first our own wishes, before ConnRQ goes, then the sizes the
 * server's ACCEPT chose (the charge follows them up or down).  -EDQUOT or
 * -ENOMEM; the rings C had stay either way, so a connection that got a
 * file always has rings.
 */
static int sor_connect_rings(struct sor_conn *c, const struct sor_owner *owner)
{
	unsigned long flags;
	u32 snd, rcv;

	/* The ACCEPT that sets them is in before we run, or never comes. */
	spin_lock_irqsave(&c->lock, flags);
	snd = 1U << c->snd_shift;
	rcv = 1U << c->rcv_shift;
	spin_unlock_irqrestore(&c->lock, flags);
	if (sor_charge(&c->charge, owner, sor_charge_pages(snd, rcv),
		       GFP_KERNEL_ACCOUNT))
		return -EDQUOT;
	return sor_conn_alloc_rings(c, snd, rcv, GFP_KERNEL_ACCOUNT) ? -ENOMEM : 0;
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

/* ---- client: non-blocking CONNECT, in the background ---------------------- */

/*
 * The TCP the connection turns to when its background set-up fails: the
 * file then serves the caller's own socket (sor_tcp.c), woken through the
 * wait entry added here.
 */
/* The socket woke its waiters: so do we (any context, its queue locked). */
static int sor_tcp_woken(struct wait_queue_entry *wq, unsigned int mode,
			 int sync, void *key)
{
	struct sor_bg *bg = container_of(wq, struct sor_bg, tcp_wait);

	wake_up_all(&bg->conn->wq);
	kill_fasync(&bg->conn->fasync, SIGIO, POLL_IN);
	return 0;
}

/*
 * Have the wake-ups of C's socket wake the file's waiters; the caller then
 * lets the file serve it (c->tcp).  The socket is not connected here: the
 * program's own thread connects it (the library, on its next call on the
 * descriptor, EUSRV_SOR_TCP_STARTED), so that its security policy, its
 * seccomp filter and its credentials apply as to any connect() it makes.
 */
static void sor_tcp_start(struct sor_conn *c)
{
	struct socket *sock = sock_from_file(c->bound);
	struct sor_bg *bg = c->bg;

	init_waitqueue_func_entry(&bg->tcp_wait, sor_tcp_woken);
	add_wait_queue(sk_sleep(sock->sk), &bg->tcp_wait);
	bg->tcp_waiting = true;
}

/*
 * The connection goes (its last reference, while it still holds the
 * socket): no more wake-ups from the socket.  The file may be gone long
 * before, and a set-up that turned to TCP just as the file went still
 * adds its entry; only this is sure to come after it.
 */
static void sor_tcp_stop(struct sor_conn *c)
{
	if (c->bg->tcp_waiting)
		remove_wait_queue(sk_sleep(sock_from_file(c->bound)->sk),
				  &c->bg->tcp_wait);
}

/*
 * The set-up failed with ERR (bg->done is ours).  The file shows nothing
 * of it but readiness, which brings the program back to the library: it
 * connects the socket over TCP in the file's place (sor_tcp.c), so that
 * the program never sees the failure; without TCP to turn to, the file
 * shows the failure.
 */
static void sor_setup_bg_fail(struct sor_conn *c, int err)
{
	unsigned long flags;

	if (c->bg->to_tcp)
		sor_tcp_start(c);
	spin_lock_irqsave(&c->lock, flags);
	if (c->bg->to_tcp)
		WRITE_ONCE(c->tcp, true);
	/* Pairs with sor_conn_setting_up(): whoever sees it settled sees tcp. */
	smp_store_release(&c->bg->settled, true);
	sor_connect_give_up_locked(c, err);
	if (c->tcp) {
		/*
		 * The file serves the socket from now on and never touches
		 * the rings again: the id, the rings and their charge go
		 * as soon as the peer cannot answer any more (sor_conn.c).
		 */
		c->released = true;
		sor_conn_kick_locked(c, SOR_DO_RETIRE);
	}
	spin_unlock_irqrestore(&c->lock, flags);
	sor_conn_wake(c, SOR_WAKE_ALL);
}

/*
 * Work item: a message, a state change or the deadline moved a background
 * set-up on.  It grows the rings once ACCEPT has said their sizes,
 * establishes the connection once the server's ADDR is in, and on any
 * failure gives the set-up up and turns the file into the caller's TCP
 * socket (sor_tcp.c), or leaves it RESET when there is none.
 */
void sor_setup_bg(struct sor_conn *c)
{
	struct sor_bg *bg = c->bg;
	unsigned long flags;
	bool grow;
	int err = 0;

	spin_lock_irqsave(&c->lock, flags);
	if (!bg || bg->done || c->released)
		goto out;
	if (c->state != EUSRV_SOR_ST_CONNECTING)
		err = ECONNREFUSED;
	else if (time_after_eq(jiffies, bg->deadline))
		err = ETIMEDOUT;
	else if (c->peer_id == EUSRV_SOR_NO_ID)
		goto out;	/* the answer is awaited */
	grow = !bg->sized;
	bg->sized = true;
	spin_unlock_irqrestore(&c->lock, flags);
	if (!err && grow)
		err = -sor_connect_rings(c, &bg->owner);

	spin_lock_irqsave(&c->lock, flags);
	if (bg->done || c->released)
		goto out;
	if (!err && c->state != EUSRV_SOR_ST_CONNECTING)
		err = ECONNREFUSED;
	if (err) {
		bg->done = true;
		spin_unlock_irqrestore(&c->lock, flags);
		sor_setup_bg_fail(c, err);
		return;
	}
	if (!sor_connect_establish_locked(c))
		goto out;	/* the server's ADDR is awaited */
	bg->done = true;
	/* Under the lock that the file's poll takes: it sees it up. */
	smp_store_release(&bg->settled, true);
	spin_unlock_irqrestore(&c->lock, flags);
	if (sor_connect_send_addr(c)) {
		spin_lock_irqsave(&c->lock, flags);
		sor_conn_abort_locked(c, ECONNABORTED, ECONNABORTED);
		spin_unlock_irqrestore(&c->lock, flags);
	}
	return;
out:
	spin_unlock_irqrestore(&c->lock, flags);
}

/* The file goes: a set-up still going on is given up. */
void sor_setup_bg_release(struct sor_conn *c)
{
	unsigned long flags;

	if (!c->bg)
		return;
	spin_lock_irqsave(&c->lock, flags);
	if (!c->bg->done) {
		c->bg->done = true;
		sor_connect_give_up_locked(c, ECONNABORTED);
	}
	spin_unlock_irqrestore(&c->lock, flags);
}

/* Last reference, before the socket goes: the socket wakes us no more. */
void sor_setup_bg_free(struct sor_conn *c)
{
	if (!c->bg)
		return;
	sor_tcp_stop(c);
	sor_charge_owner_put(&c->bg->owner);
	kfree(c->bg);
}

/*
 * Non-blocking CONNECT: ConnRQ is out and our rings are there; the file
 * is returned at once and the set-up goes on in sor_setup_bg() until
 * DEADLINE.  BG is C's from now on.
 */
static int sor_connect_bg(struct sor_conn *c, struct sor_bg *bg,
			  const struct eusrv_sor_connect *rq,
			  struct eusrv_sor_connect __user *out,
			  unsigned long deadline)
{
	unsigned long irqflags;
	int fd;

	bg->conn = c;
	bg->deadline = deadline;
	sor_charge_owner(&bg->owner);
	spin_lock_irqsave(&c->lock, irqflags);
	c->bg = bg;
	sor_conn_arm_locked(c, jiffies_to_msecs(deadline - jiffies) + 1);
	/* The answer may be in already. */
	sor_conn_kick_locked(c, SOR_DO_CONNECT);
	spin_unlock_irqrestore(&c->lock, irqflags);
	fd = sor_connect_tell(rq, out);
	if (!fd)
		fd = sor_files->file_open(c, rq->out_flags);
	if (fd < 0) {
		spin_lock_irqsave(&c->lock, irqflags);
		bg->done = true;
		spin_unlock_irqrestore(&c->lock, irqflags);
		sor_connect_fail(c, ENOMEM);
		return fd;
	}
	sor_conn_put(c);	/* ours: the file and the table keep it */
	return fd;
}

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
	int ret = sor_connect_fail(c, left ? EINTR : ETIMEDOUT);

	return left ? -ERESTARTSYS : ret;
}

/*
 * Whether the fallback's address A (LEN bytes) is an IPv4 or IPv6 TCP
 * destination on PORT, the port asked for: the driver connects only where
 * the program itself was going.
 */
static bool sor_fallback_addr_ok(const struct sockaddr_storage *a, u32 len,
				 u16 port)
{
	const struct sockaddr_in6 *s6 = (const void *)a;
	const struct sockaddr_in *s4 = (const void *)a;

	if (a->ss_family == AF_INET)
		return len >= sizeof(*s4) && ntohs(s4->sin_port) == port;
	if (a->ss_family == AF_INET6)
		return len >= sizeof(*s6) && ntohs(s6->sin6_port) == port;
	return false;
}

/* A non-blocking CONNECT's state; with ADDR, it turns to TCP if it fails. */
static struct sor_bg *sor_connect_bg_new(const struct eusrv_sor_connect *rq)
{
	struct sockaddr_storage addr;
	struct sor_bg *bg;

	if (rq->addrlen &&
	    copy_from_user(&addr, u64_to_user_ptr(rq->addr), rq->addrlen))
		return ERR_PTR(-EFAULT);
	if (rq->addrlen && !sor_fallback_addr_ok(&addr, rq->addrlen, rq->port))
		return ERR_PTR(-EINVAL);
	bg = kzalloc(sizeof(*bg), GFP_KERNEL_ACCOUNT);
	if (!bg)
		return ERR_PTR(-ENOMEM);
	bg->to_tcp = rq->addrlen;
	return bg;
}

/*
 * Our rings of our own sizes, charged to OWNER, then an id (messages may
 * reach C from now on), then ConnRQ to PORT on the peer: the rings are
 * zeroed before the server works (a good part of the set-up), and its
 * answer only changes them if it chose other sizes.  0, or the error; C
 * is then RESET (nothing was sent, nothing can come back, so the id, if
 * any, is free again at once).
 */
static int sor_connect_start(struct sor_conn *c, const struct sor_owner *owner,
			     u16 port)
{
	unsigned long flags;
	int ret;

	ret = sor_connect_rings(c, owner);
	if (!ret) {
		ret = sor_conn_publish(c);
		if (ret == -ENOBUFS)
			ret = -ENOMEM;	/* no id: as no memory, use TCP */
	}
	if (!ret) {
		sor_ka_heard(c->peer_node);	/* keepalives start from now */
		ret = sor_setup_send(c->peer_node,
				     eusrv_sor_msg_connrq(c->id, port, c->lport,
							  c->snd_shift,
							  c->rcv_shift));
		if (ret)
			ret = ret == -ETIMEDOUT ? -ETIMEDOUT : -EHOSTUNREACH;
	}
	if (ret) {
		spin_lock_irqsave(&c->lock, flags);
		c->state = EUSRV_SOR_ST_RESET;
		spin_unlock_irqrestore(&c->lock, flags);
	}
	return ret;
}

/*
 * A blocking CONNECT, its ConnRQ out: wait for ACCEPT, size the rings as
 * it says (charged to OWNER), wait for ADDR, establish.  The new file's
 * descriptor, or the error (C is given up then).
 */
static int sor_connect_wait(struct sor_conn *c, const struct sor_owner *owner,
			    struct eusrv_sor_connect *rq,
			    struct eusrv_sor_connect __user *out,
			    unsigned long deadline)
{
	unsigned long flags;
	long left;
	int ret;

	left = wait_event_interruptible_timeout(c->wq, sor_connect_answered(c),
						sor_st_wait_left(deadline, jiffies));
	if (left <= 0)
		return sor_connect_gave_up(c, left);
	if (READ_ONCE(c->state) != EUSRV_SOR_ST_CONNECTING)
		return sor_connect_fail(c, ECONNREFUSED);
	ret = sor_connect_rings(c, owner);
	if (ret)
		return sor_connect_fail(c, -ret);
	left = wait_event_interruptible_timeout(c->wq, sor_connect_addressed(c),
						sor_st_wait_left(deadline, jiffies));
	if (left <= 0)
		return sor_connect_gave_up(c, left);

	spin_lock_irqsave(&c->lock, flags);
	ret = sor_connect_establish_locked(c) ? 0 : -ECONNREFUSED;
	spin_unlock_irqrestore(&c->lock, flags);
	if (ret)
		return sor_connect_fail(c, ECONNREFUSED);
	ret = sor_connect_send_addr(c);
	if (!ret) {
		sor_files->file_info(c, &rq->info);
		ret = sor_connect_tell(rq, out);
	}
	if (!ret)
		ret = sor_files->file_open(c, rq->out_flags);
	if (ret < 0) {
		sor_count(SOR_S_CONNECT_FAILED);
		sor_setup_abandon(c);
	}
	sor_conn_put(c);
	return ret;
}

#define SOR_CONNECT_FLAGS	(EUSRV_SOR_F_NONBLOCK | EUSRV_SOR_F_CLOEXEC | \
				 EUSRV_SOR_F_INHERIT | EUSRV_SOR_F_BIND | \
				 EUSRV_SOR_F_INET6)

int sor_setup_connect(struct sor_ctl *ctl, struct eusrv_sor_connect *rq,
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
	deadline = jiffies + sor_timeout(rq->timeout_ms);
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
		bg = sor_connect_bg_new(rq);
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
	ret = sor_connect_start(c, &owner, rq->port);
	if (ret) {
		kfree(bg);
		ret = sor_connect_fail(c, -ret);
	} else if (bg) {
		ret = sor_connect_bg(c, bg, rq, out, deadline);
	} else {
		ret = sor_connect_wait(c, &owner, rq, out, deadline);
	}
	sor_charge_owner_put(&owner);
	return ret;
}

int sor_setup_init(const struct sor_setup_ops *ops)
{
	/*
	 * ConnRQ is served at once: a client's connect() waits on it, and a
	 * worker of normal priority waited behind whatever ran on the node.
	 */
	sor_setup_wq = alloc_workqueue("eusrv_sor_setup", WQ_UNBOUND | WQ_HIGHPRI, 0);
	if (!sor_setup_wq)
		return -ENOMEM;
	sor_files = ops;
	return 0;
}

void sor_setup_exit(void)
{
	/* No ConnRQ comes any more (sor_rx_exit); those in flight finish. */
	destroy_workqueue(sor_setup_wq);
}
