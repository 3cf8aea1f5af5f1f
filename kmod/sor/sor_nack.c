// SPDX-License-Identifier: GPL-2.0
/*
 * eusrv_sor teardown (docs/protocol.md section 5): the last close, the
 * NACK handshake with its resend timer, and answering the peer's NACK.
 *
 * The side that ends a connection sends NACK(request, reason, its id) and
 * keeps the id, the rings and the connection until NACK(reply) comes back
 * or SOR_NACK_TRIES sends went unanswered: that is the pending-NACK list
 * of D4.2 (the connections with nack_pending set).  The other side stops
 * transferring, waits for its transfer in flight (reply_owed), answers and
 * may then forget the connection: a resent request for an id it no longer
 * has is answered all the same, since only the requester waits for it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/errno.h>
#include <linux/jiffies.h>
#include <linux/printk.h>
#include <linux/sched.h>

#include <eusrv/mbox.h>

#include "sor_data.h"
#include "sor_keepalive.h"
#include "sor_nack.h"

#define SOR_NACK_SEND_TIMEOUT_MS	200U
/* The largest errno a NACK reason may carry (EHWPOISON, 8 bits). */
#define SOR_NACK_MAX_ERRNO		133U
/* Bits 47:24 of a NACK are zero. */
#define SOR_NACK_USED_BITS		24

/* Fault injection (sor_debugfs.c): NACK requests still to lose. */
atomic_t sor_drop_nacks = ATOMIC_INIT(0);

int sor_nack_send_raw(unsigned int node, unsigned int to_id, unsigned int kind,
		      unsigned int reason, unsigned int from_id)
{
	u64 msg = eusrv_sor_msg_nack(to_id, kind, reason, from_id);
	int ret = sor_send(node, msg);

	if (!ret)
		sor_count(SOR_S_NACKS_SENT);
	return ret;
}

/* Work item: send (or resend) our request and arm the resend timer. */
void sor_nack_send(struct sor_conn *c)
{
	unsigned long flags;
	unsigned int tries;
	u64 msg = 0;
	int ret;

	spin_lock_irqsave(&c->lock, flags);
	/*
	 * Not while our transfer may still write into the peer's ring: its
	 * end sends it, and the timer looks again should that be missed.
	 * Not to a node that is down either, while we hold our ring for it:
	 * it could only fill our outbound queue; the timer asks again once
	 * it is back (a handshake we may give up goes on counting tries).
	 */
	if (c->nack_pending && c->busy) {
		sor_conn_arm_locked(c, SOR_NACK_RESEND_MS);
	} else if (c->nack_pending && c->peer_may_write &&
		   !(sor_ka_nodes_up() & BIT_ULL(c->peer_node))) {
		sor_conn_arm_locked(c, SOR_FENCE_RESEND_MS);
	} else if (c->nack_pending) {
		tries = ++c->nack_tries;
		msg = eusrv_sor_msg_nack(c->peer_id, EUSRV_SOR_NACK_REQUEST,
					 c->nack_reason, c->id);
		sor_conn_arm_locked(c, sor_st_nack_give_up(tries) ?
				    SOR_FENCE_RESEND_MS : SOR_NACK_RESEND_MS);
	}
	spin_unlock_irqrestore(&c->lock, flags);
	if (!msg)
		return;
	if (tries > 1)
		sor_count(SOR_S_NACK_RESENDS);
	/* Fault injection: lost on the way; the timer resends it. */
	if (atomic_add_unless(&sor_drop_nacks, -1, 0))
		return;
	ret = sor_conn_send(c, msg, SOR_NACK_SEND_TIMEOUT_MS);
	if (!ret)
		sor_count(SOR_S_NACKS_SENT);
	/* A failed send is retried by the timer like a lost one. */
}

/* Work item: the resend timer fired. */
void sor_nack_timer(struct sor_conn *c)
{
	unsigned long flags;
	bool up;

	spin_lock_irqsave(&c->lock, flags);
	if (!c->nack_pending) {
		spin_unlock_irqrestore(&c->lock, flags);
		return;
	}
	if (c->busy) {
		/* Still waiting for our own transfer: look again later. */
		if (sor_conn_want_sent_locked(c))
			sor_conn_kick_locked(c, SOR_DO_XFER);
		sor_conn_arm_locked(c, SOR_NACK_RESEND_MS);
		goto out;
	}
	up = sor_ka_nodes_up() & BIT_ULL(c->peer_node);
	switch (sor_st_nack_next(c->nack_tries, c->peer_may_write, up)) {
	case SOR_NACK_GIVE_UP:
		pr_debug_ratelimited("conn %u: node %u never answered our NACK: giving up\n",
				     c->id, c->peer_node);
		c->nack_pending = false;
		if (c->state == EUSRV_SOR_ST_NACK_WAIT)
			sor_conn_set_state_locked(c, EUSRV_SOR_ST_RESET, 0);
		sor_conn_kick_locked(c, SOR_DO_RETIRE);
		break;
	case SOR_NACK_HOLD:
		sor_conn_fence_locked(c);
		sor_conn_arm_locked(c, SOR_FENCE_RESEND_MS);
		break;
	case SOR_NACK_FENCE:
		sor_conn_fence_locked(c);
		fallthrough;
	case SOR_NACK_RESEND:
		sor_conn_kick_locked(c, SOR_DO_NACK);
		break;
	}
out:
	spin_unlock_irqrestore(&c->lock, flags);
}

/* Work item: answer the peer's request once no transfer is in flight. */
void sor_nack_reply(struct sor_conn *c)
{
	unsigned long flags;
	u64 msg = 0;

	spin_lock_irqsave(&c->lock, flags);
	if (c->reply_owed && !c->busy) {
		c->reply_owed = false;
		msg = eusrv_sor_msg_nack(c->peer_id, EUSRV_SOR_NACK_REPLY, 0, c->id);
	}
	spin_unlock_irqrestore(&c->lock, flags);
	if (!msg)
		return;
	if (!sor_conn_send(c, msg, SOR_NACK_SEND_TIMEOUT_MS))
		sor_count(SOR_S_NACKS_SENT);
	/* Lost: the peer resends its request, which is answered again. */
	sor_conn_kick(c, SOR_DO_RETIRE);
}

/* Whether a NACK for C really comes from C's peer. */
static bool sor_nack_matches(struct sor_conn *c, unsigned int src,
			     const struct eusrv_sor_nack *n)
{
	if (c->peer_node != src)
		return false;
	if (c->peer_id == n->sender_id)
		return true;
	/* A refusal before the server had an id (client side only). */
	return c->client && c->state == EUSRV_SOR_ST_CONNECTING &&
	       c->peer_id == EUSRV_SOR_NO_ID &&
	       n->kind == EUSRV_SOR_NACK_REQUEST;
}

/* Bytes we sent that the peer never took (c->lock held). */
static bool sor_nack_unsent_locked(struct sor_conn *c)
{
	u32 tail;

	if (!c->snd_hdr || !sor_st_open(c->state))
		return false;
	tail = c->shut_wr ? c->fin_pos : READ_ONCE(c->snd_hdr->tail);
	return tail != sor_conn_snd_done_locked(c);
}

static void sor_nack_request_locked(struct sor_conn *c,
				    const struct eusrv_sor_nack *n)
{
	unsigned int reason = n->reason, old = c->state, next;
	int err;

	/* The peer asks only once its own transfers have ended. */
	sor_conn_peer_done_locked(c);
	sor_data_sync_tail_locked(c);
	if (reason > SOR_NACK_MAX_ERRNO)
		reason = ECONNRESET;
	/*
	 * An orderly close with our data still unread there is what TCP
	 * answers with a reset: the peer's receive buffer held it.
	 */
	if (!reason && sor_nack_unsent_locked(c))
		reason = ECONNRESET;
	err = sor_st_nack_errno(reason);
	next = sor_st_on_nack(old, reason);
	if (next != old)
		sor_conn_set_state_locked(c, next, next == EUSRV_SOR_ST_RESET ?
					  (err ? err : ECONNRESET) : 0);
	if (old == EUSRV_SOR_ST_CLOSING)
		/* The peer takes no more: our own handshake now. */
		sor_conn_nack_start_locked(c, 0);
	/* Refused before the server had an id: nothing to answer. */
	if (n->sender_id == EUSRV_SOR_NO_ID)
		return;
	c->reply_owed = true;
	if (!c->busy)
		sor_conn_kick_locked(c, SOR_DO_REPLY);
	else if (sor_conn_want_sent_locked(c))
		sor_conn_kick_locked(c, SOR_DO_XFER);
}

static void sor_nack_rx_locked(struct sor_conn *c, unsigned int src,
			       const struct eusrv_sor_nack *n)
{
	if (n->kind == EUSRV_SOR_NACK_REQUEST) {
		sor_nack_request_locked(c, n);
	} else if (c->nack_pending) {
		/* It answers only once its own transfer has ended. */
		sor_conn_peer_done_locked(c);
		c->nack_pending = false;
		if (c->state == EUSRV_SOR_ST_NACK_WAIT)
			sor_conn_set_state_locked(c, EUSRV_SOR_ST_RESET, 0);
		sor_conn_kick_locked(c, SOR_DO_RETIRE);
	} else {
		sor_bad("conn %u: NACK reply from node %u without a request\n",
			c->id, src);
	}
}

/* NACK from node SRC for our connection ID (hard IRQ). */
void sor_rx_nack(unsigned int src, unsigned int id, u64 msg)
{
	struct eusrv_sor_nack n;
	struct sor_conn *c;
	unsigned long flags;
	bool mine = false;

	eusrv_sor_nack_decode(msg, &n);
	if ((eusrv_msg_payload(msg) >> SOR_NACK_USED_BITS) ||
	    (n.kind != EUSRV_SOR_NACK_REQUEST && n.kind != EUSRV_SOR_NACK_REPLY)) {
		sor_bad("malformed NACK %#llx from node %u\n", msg, src);
		return;
	}
	sor_count(SOR_S_NACKS_RCVD);
	c = sor_conn_get(id);
	if (c) {
		spin_lock_irqsave(&c->lock, flags);
		mine = sor_nack_matches(c, src, &n);
		if (mine)
			sor_nack_rx_locked(c, src, &n);
		spin_unlock_irqrestore(&c->lock, flags);
		sor_conn_put(c);
	}
	if (mine)
		return;
	/* Not ours (any more): answer a request, drop a reply. */
	if (n.kind == EUSRV_SOR_NACK_REQUEST && n.sender_id != EUSRV_SOR_NO_ID)
		sor_nack_send_raw(src, n.sender_id, EUSRV_SOR_NACK_REPLY, 0, id);
	else if (n.kind == EUSRV_SOR_NACK_REPLY)
		sor_bad("NACK reply %#llx from node %u for no handshake\n", msg, src);
}

/*
 * The last close of a connection file.  True when C may leave the table
 * now: the caller retires it at once, so that its rings and their charge
 * are gone when close() returns, not when a worker gets to them.
 */
bool sor_nack_release(struct sor_conn *c)
{
	enum sor_close_action act;
	unsigned int reason;
	unsigned long flags;
	u32 tail, head, queued = 0, unread = 0;

	spin_lock_irqsave(&c->lock, flags);
	c->released = true;
	/* Turned into its TCP socket: given up already, maybe without rings. */
	if (c->tcp) {
		spin_unlock_irqrestore(&c->lock, flags);
		return false;
	}
	/* What landed, counted, whatever the state. */
	sor_data_sync_tail_locked(c);
	if (sor_st_open(c->state)) {
		if (sor_data_check_tail_locked(c, &tail))
			queued = tail - sor_conn_snd_done_locked(c);
		/* Unread data: the user's head, or what the kernel saw last. */
		head = READ_ONCE(c->rcv_hdr->head);
		if (!sor_ring_head_ok(c->rcv_seen, head, c->rcv_tail))
			head = c->rcv_seen;
		unread = c->rcv_tail - head;
	}
	act = sor_st_on_close(c->state, queued, unread, c->linger_reset,
			      c->nack_pending, &reason);
	switch (act) {
	case SOR_CLOSE_FLUSH:
		c->progress = jiffies;
		sor_conn_set_state_locked(c, EUSRV_SOR_ST_CLOSING, 0);
		sor_conn_arm_locked(c, SOR_LINGER_CHECK_MS);
		/* The flush goes on from our transfer's end. */
		if (sor_conn_want_sent_locked(c))
			sor_conn_kick_locked(c, SOR_DO_XFER);
		sor_data_idle_locked(c);
		break;
	case SOR_CLOSE_NACK:
		sor_conn_nack_start_locked(c, reason);
		break;
	case SOR_CLOSE_WAIT:
		break;
	case SOR_CLOSE_RETIRE:
		break;
	}
	spin_unlock_irqrestore(&c->lock, flags);
	return act == SOR_CLOSE_RETIRE;
}
