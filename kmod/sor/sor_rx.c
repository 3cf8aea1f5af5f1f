// SPDX-License-Identifier: GPL-2.0
/*
 * eusrv_sor mailbox handlers: message types 0x1..0x8 of docs/protocol.md
 * section 2.  Hard-IRQ context: find the connection, check that the
 * message comes from its peer, and hand it to the part of the protocol it
 * belongs to, which only updates state, wakes sleepers and queues work.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/printk.h>

#include <eusrv/mbox.h>

#include "sor_internal.h"

int sor_send(unsigned int node, u64 msg)
{
	return eusrv_mbox_send(node, msg);
}

static void sor_rx_conn_msg(unsigned int src, unsigned int type,
			    unsigned int id, u64 msg)
{
	struct sor_conn *c = sor_conn_get(id);

	if (!c) {
		/*
		 * A data-path message names only our id, not the sender's:
		 * there is no one to answer.  The sender's keepalives or
		 * NACK timeouts end its side.
		 */
		sor_bad("message %#llx from node %u: connection %u not in use\n",
			msg, src, id);
		return;
	}
	if (type == EUSRV_SOR_MSG_SENT ? src != (unsigned int)sor_node() :
	    src != c->peer_node) {
		sor_bad("conn %u: message %#llx from node %u, not from its peer node %u\n",
			id, msg, src, c->peer_node);
		goto out;
	}
	if (type != EUSRV_SOR_MSG_CONNRPL && !eusrv_sor_pos_wellformed(msg)) {
		sor_bad("conn %u: malformed message %#llx from node %u\n",
			id, msg, src);
		goto out;
	}
	switch (type) {
	case EUSRV_SOR_MSG_CONNRPL:
		sor_rx_connrpl(c, src, msg);
		break;
	case EUSRV_SOR_MSG_RDREQ:
		sor_rx_rdreq(c, eusrv_sor_pos_decode(msg));
		break;
	case EUSRV_SOR_MSG_DATA:
		sor_rx_data(c, eusrv_sor_pos_decode(msg));
		break;
	case EUSRV_SOR_MSG_SENT:
		sor_rx_sent(c, eusrv_sor_pos_decode(msg));
		break;
	case EUSRV_SOR_MSG_FIN:
		sor_rx_fin(c, eusrv_sor_pos_decode(msg));
		break;
	}
out:
	sor_conn_put(c);
}

static void sor_rx(void *ctx, unsigned int src, u64 msg)
{
	unsigned int type = eusrv_msg_type(msg), id = eusrv_msg_conn(msg);

	sor_ka_heard(src);
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
