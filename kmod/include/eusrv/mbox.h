/* SPDX-License-Identifier: GPL-2.0 */
/*
 * In-kernel API of the node's mailbox (eusrv_mbox.ko).
 *
 * Why not drivers/mailbox: that framework binds one client to each channel
 * and hands it every message of that channel.  This block is a single FIFO
 * that any node (this one included) writes into by node address, and its
 * messages belong to different users according to the type field in their
 * top bits.  So the API addresses "the" mailbox of the node (there is
 * exactly one) and demultiplexes received messages by type.
 */
#ifndef EUSRV_MBOX_H
#define EUSRV_MBOX_H

#include <linux/types.h>
#include <eusrv/mbox_msg.h>

/**
 * struct eusrv_mbox_handler - the user of one message type
 * @rx: a message of the type arrived from @src_node (checked to be a node
 *	of the board).  Hard-IRQ context, or interrupts disabled after a
 *	diagnostic pause: must not sleep, may call eusrv_mbox_send().
 * @tx_error: optional: a message of the type that this node sent to
 *	@dst_node was not delivered: @status is EUSRV_MBOX_ST_FULL, _DECERR
 *	or _DISABLED (or an unknown value from broken hardware).  Same
 *	context as @rx.
 * @ctx: the first argument of both callbacks
 *
 * Registered with eusrv_mbox_register(); the structure must stay valid
 * until eusrv_mbox_unregister() for its type has returned.
 */
struct eusrv_mbox_handler {
	void (*rx)(void *ctx, unsigned int src_node, u64 msg);
	void (*tx_error)(void *ctx, unsigned int dst_node, u64 msg, u32 status);
	void *ctx;
};

/* The functions are described at their definitions in mailbox/mbox_core.c. */
int eusrv_mbox_register(unsigned int type, const struct eusrv_mbox_handler *h);
void eusrv_mbox_unregister(unsigned int type);
int eusrv_mbox_send(unsigned int node, u64 msg);
int eusrv_mbox_send_wait(unsigned int node, u64 msg, long timeout);
int eusrv_mbox_send_many(unsigned int node, const u64 *msgs, unsigned int n);
int eusrv_mbox_send_wait_many(unsigned int node, const u64 *msgs,
			      unsigned int n, long timeout);
int eusrv_mbox_node_id(void);
unsigned int eusrv_mbox_nodes(void);

/**
 * struct eusrv_mbox_crossings - what the block's users have cost
 * @doorbells: doorbells (kicks)
 * @irqs: interrupts
 * @irq_rx: interrupts that found inbound messages
 * @irq_txdone: interrupts that found completed outbound entries
 * @irq_room: interrupts that found room in a FIFO that had refused us
 * @irq_none: interrupts that found nothing left to do
 *
 * Counted since the mailbox was bound; one interrupt may have several
 * causes.
 */
struct eusrv_mbox_crossings {
	u64 doorbells;
	u64 irqs;
	u64 irq_rx;
	u64 irq_txdone;
	u64 irq_room;
	u64 irq_none;
};

int eusrv_mbox_get_crossings(struct eusrv_mbox_crossings *x);

#endif /* EUSRV_MBOX_H */
