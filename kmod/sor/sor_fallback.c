// SPDX-License-Identifier: GPL-2.0
/*
 * eusrv_sor: a non-blocking CONNECT's set-up goes on in the background
 * (the connection's work item) until its deadline; when it fails and the
 * caller gave its TCP destination, the file turns into the caller's own
 * TCP socket (sor_tcp.c), so that the program never sees the failure.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/in.h>
#include <linux/in6.h>
#include <linux/slab.h>
#include <linux/socket.h>
#include <linux/uaccess.h>

#include "sor_client.h"
#include "sor_fallback.h"
#include "sor_tcp.h"

/*
 * The set-up failed with ERR (bg->done is ours).  The file shows nothing
 * of it but readiness, which brings the program back to the library: it
 * connects the socket over TCP in the file's place (sor_tcp.c), so that
 * the program never sees the failure; without TCP to turn to, the file
 * shows the failure.
 */
static void sor_fallback_fail(struct sor_conn *c, int err)
{
	unsigned long flags;

	if (c->bg->to_tcp)
		sor_tcp_watch(c);
	spin_lock_irqsave(&c->lock, flags);
	if (c->bg->to_tcp)
		WRITE_ONCE(c->tcp, true);
	/* Pairs with sor_fallback_setting_up(): whoever sees it settled sees tcp. */
	smp_store_release(&c->bg->settled, true);
	sor_client_give_up_locked(c, err);
	if (c->tcp) {
		/*
		 * The file serves the socket from now on and never touches
		 * the rings again: the id, the rings and their charge go
		 * as soon as the peer cannot answer any more (sor_retire.c).
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
void sor_fallback_work(struct sor_conn *c)
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
		err = -sor_client_rings(c, &bg->owner);

	spin_lock_irqsave(&c->lock, flags);
	if (bg->done || c->released)
		goto out;
	if (!err && c->state != EUSRV_SOR_ST_CONNECTING)
		err = ECONNREFUSED;
	if (err) {
		bg->done = true;
		spin_unlock_irqrestore(&c->lock, flags);
		sor_fallback_fail(c, err);
		return;
	}
	if (!sor_client_establish_locked(c))
		goto out;	/* the server's ADDR is awaited */
	bg->done = true;
	/* Under the lock that the file's poll takes: it sees it up. */
	smp_store_release(&bg->settled, true);
	spin_unlock_irqrestore(&c->lock, flags);
	if (sor_client_send_addr(c)) {
		spin_lock_irqsave(&c->lock, flags);
		sor_conn_abort_locked(c, ECONNABORTED, ECONNABORTED);
		spin_unlock_irqrestore(&c->lock, flags);
	}
	return;
out:
	spin_unlock_irqrestore(&c->lock, flags);
}

/* The file goes: a set-up still going on is given up. */
void sor_fallback_file_gone(struct sor_conn *c)
{
	unsigned long flags;

	if (!c->bg)
		return;
	spin_lock_irqsave(&c->lock, flags);
	if (!c->bg->done) {
		c->bg->done = true;
		sor_client_give_up_locked(c, ECONNABORTED);
	}
	spin_unlock_irqrestore(&c->lock, flags);
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
struct sor_bg *sor_fallback_new(const struct eusrv_sor_connect *rq)
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
 * Non-blocking CONNECT: ConnRQ is out and our rings are there; the
 * caller returns the file at once and the set-up goes on in
 * sor_fallback_work() until DEADLINE.  BG is C's from now on.
 */
void sor_fallback_start(struct sor_conn *c, struct sor_bg *bg,
			unsigned long deadline)
{
	unsigned long flags;

	bg->conn = c;
	bg->deadline = deadline;
	sor_charge_owner(&bg->owner);
	spin_lock_irqsave(&c->lock, flags);
	c->bg = bg;
	sor_conn_arm_locked(c, jiffies_to_msecs(deadline - jiffies) + 1);
	/* The answer may be in already. */
	sor_conn_kick_locked(c, SOR_DO_CONNECT);
	spin_unlock_irqrestore(&c->lock, flags);
}

/* The caller could not have its file: the set-up is given up, and C. */
void sor_fallback_abandon(struct sor_conn *c)
{
	unsigned long flags;

	spin_lock_irqsave(&c->lock, flags);
	c->bg->done = true;
	spin_unlock_irqrestore(&c->lock, flags);
	sor_client_fail(c, ENOMEM);
}
