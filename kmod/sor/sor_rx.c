// SPDX-License-Identifier: GPL-2.0
/*
 * eusrv_sor mailbox handlers: message types 0x1..0xb of docs/protocol.md
 * section 2.  Hard-IRQ context: find the connection, check that the
 * message comes from its peer (node and id: every connection message names
 * both ends), answer one for a connection we do not have with RST, and
 * hand the rest to the part of the protocol it belongs to, which only
 * updates state, wakes sleepers and queues work.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/printk.h>

#include <eusrv/mbox.h>

#include "sor_data.h"
#include "sor_keepalive.h"
#include "sor_nack.h"
#include "sor_rx.h"
#include "sor_serve.h"
#include "sor_setup.h"

/*
 * A message named our id UNKNOWN_ID, which is not in use with its sender
 * TO_ID on NODE: tell it, as TCP answers a segment for no connection with
 * RST, so that it never waits on a connection we forgot.
 */
static void sor_send_rst(unsigned int node, unsigned int to_id, unsigned int unknown_id)
{
	if (to_id >= EUSRV_SOR_NO_ID)
		return;
	if (!sor_send(node, eusrv_sor_msg_rst(to_id, unknown_id)))
		sor_count(SOR_S_RESETS_SENT);
}

/* Whether C is the connection with the sender of a message (c->lock not needed). */
static bool sor_rx_from_peer(struct sor_conn *c, unsigned int src,
			     unsigned int from)
{
	unsigned int peer = READ_ONCE(c->peer_id);

	/* A client learns its peer's id from ACCEPT, the first it sends. */
	return src == c->peer_node && (peer == from || peer == EUSRV_SOR_NO_ID);
}

/* RST: the peer does not know the connection (any more). */
static void sor_rx_rst(struct sor_conn *c)
{
	unsigned long flags;

	spin_lock_irqsave(&c->lock, flags);
	sor_count(SOR_S_RESETS_RCVD);
	/* Nothing to hand back, nobody to answer, nothing coming. */
	sor_conn_peer_done_locked(c);
	c->nack_pending = false;
	c->reply_owed = false;
	if (c->state == EUSRV_SOR_ST_NACK_WAIT)
		c->state = EUSRV_SOR_ST_RESET;
	sor_conn_abort_locked(c, ECONNRESET, 0);
	sor_conn_kick_locked(c, SOR_DO_RETIRE);
	spin_unlock_irqrestore(&c->lock, flags);
}

static void sor_rx_conn_msg(unsigned int src, unsigned int type,
			    unsigned int id, u64 msg)
{
	unsigned int from = eusrv_sor_from_decode(msg);
	struct sor_conn *c;

	if (type == EUSRV_SOR_MSG_SENT) {
		/* Our own engine's note. */
		c = src == (unsigned int)sor_node() ? sor_conn_get(id) : NULL;
		if (c && eusrv_sor_pos_wellformed(msg) && from == id) {
			sor_xcount(c, SOR_X_IRQS);
			sor_xcount(c, SOR_X_MSGS_RCVD);
			sor_rx_sent(c, eusrv_sor_pos_decode(msg));
		} else {
			sor_bad("SENT %#llx from node %u for no transfer\n", msg, src);
		}
		if (c)
			sor_conn_put(c);
		return;
	}
	if (type != EUSRV_SOR_MSG_CONNRPL && type != EUSRV_SOR_MSG_PROBE &&
	    !eusrv_sor_pos_wellformed(msg)) {
		sor_bad("malformed message %#llx from node %u\n", msg, src);
		return;
	}
	c = sor_conn_get(id);
	if (!c || !sor_rx_from_peer(c, src, from)) {
		/* Not ours, or not with this peer: reset the sender's side. */
		sor_bad("message %#llx from node %u: connection %u not in use with %u\n",
			msg, src, id, from);
		if (type != EUSRV_SOR_MSG_RST)
			sor_send_rst(src, from, id);
		goto out;
	}
	WRITE_ONCE(c->heard, jiffies);
	sor_xcount(c, SOR_X_IRQS);
	sor_xcount(c, SOR_X_MSGS_RCVD);
	switch (type) {
	case EUSRV_SOR_MSG_CONNRPL:
		sor_rx_connrpl(c, src, msg);
		break;
	case EUSRV_SOR_MSG_CREDIT:
		sor_rx_credit(c, eusrv_sor_pos_decode(msg));
		break;
	case EUSRV_SOR_MSG_DATA:
		sor_rx_data(c, eusrv_sor_pos_decode(msg));
		break;
	case EUSRV_SOR_MSG_FIN:
		sor_rx_fin(c, eusrv_sor_pos_decode(msg));
		break;
	case EUSRV_SOR_MSG_PROBE:
		sor_rx_probe(c, eusrv_sor_kind_decode(msg));
		break;
	case EUSRV_SOR_MSG_RST:
		sor_rx_rst(c);
		break;
	default:
		/* ARM (0x9): the arm word replaced it (docs/protocol.md 2). */
		sor_bad("conn %u: message %#llx of no use\n", c->id, msg);
		break;
	}
out:
	if (c)
		sor_conn_put(c);
}

static void sor_rx(void *ctx, unsigned int src, u64 msg)
{
	unsigned int type = eusrv_msg_type(msg), id = eusrv_msg_conn(msg);

	sor_ka_heard(src);
	sor_count_msg(sor_msgs_rcvd, type);
	switch (type) {
	case EUSRV_SOR_MSG_CONNRQ:
		sor_rx_connrq(src, id, msg);
		break;
	case EUSRV_SOR_MSG_NACK:
		sor_rx_nack(src, id, msg);
		break;
	case EUSRV_SOR_MSG_KEEPALIVE:
		sor_rx_keepalive(src, msg);
		break;
	default:
		sor_rx_conn_msg(src, type, id, msg);
		break;
	}
}

static void sor_tx_error(void *ctx, unsigned int dst, u64 msg, u32 status)
{
	pr_debug_ratelimited("message %#llx to node %u not delivered (status %u)\n",
			     msg, dst, status);
	sor_ka_tx_error(dst, status);
}

static const struct eusrv_mbox_handler sor_handler = {
	.rx = sor_rx,
	.tx_error = sor_tx_error,
};

void sor_rx_exit(void)
{
	unsigned int t;

	for (t = EUSRV_SOR_MSG_FIRST; t <= EUSRV_SOR_MSG_LAST; t++)
		eusrv_mbox_unregister(t);
}

int sor_rx_init(void)
{
	unsigned int t;
	int ret;

	for (t = EUSRV_SOR_MSG_FIRST; t <= EUSRV_SOR_MSG_LAST; t++) {
		ret = eusrv_mbox_register(t, &sor_handler);
		if (ret) {
			pr_err("cannot take mailbox message type %u: error %d\n",
			       t, ret);
			while (--t >= EUSRV_SOR_MSG_FIRST)
				eusrv_mbox_unregister(t);
			return ret;
		}
	}
	return 0;
}
