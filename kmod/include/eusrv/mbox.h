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

/*
 * The user of one message type.  The structure must stay valid until
 * eusrv_mbox_unregister() for its type has returned.
 */
struct eusrv_mbox_handler {
	/*
	 * A message of the type arrived from SRC_NODE (checked to be a node
	 * of the board).  Hard-IRQ context, or interrupts disabled after a
	 * diagnostic pause: must not sleep, may call eusrv_mbox_send().
	 */
	void (*rx)(void *ctx, unsigned int src_node, u64 msg);
	/*
	 * A message of the type that this node sent to DST_NODE was not
	 * delivered: STATUS is EUSRV_MBOX_ST_FULL, _DECERR or _DISABLED
	 * (or an unknown value from broken hardware).  Same context as rx.
	 * Optional.
	 */
	void (*tx_error)(void *ctx, unsigned int dst_node, u64 msg, u32 status);
	void *ctx;
};

/*
 * Receive messages of TYPE (1..EUSRV_MSG_NR_TYPES-1).  -EINVAL for a bad
 * type or a handler without rx, -EBUSY if the type has a handler already.
 * Works whether or not a mailbox is bound; handlers stay across rebinds.
 */
int eusrv_mbox_register(unsigned int type, const struct eusrv_mbox_handler *h);
/* After this returns no callback of the type's handler runs any more. */
void eusrv_mbox_unregister(unsigned int type);

/*
 * Queue MSG for NODE (this node included).  Any context.  -EAGAIN when the
 * outbound queue is full, -EINVAL for a node that is not on the board or a
 * message of type 0, -ENODEV while no mailbox is bound.  A queued message
 * is either delivered or reported to the type's tx_error.
 */
int eusrv_mbox_send(unsigned int node, u64 msg);
/*
 * As eusrv_mbox_send(), but sleeps up to TIMEOUT jiffies for queue space:
 * -ETIMEDOUT when none came, -ERESTARTSYS on a signal.  Process context.
 */
int eusrv_mbox_send_wait(unsigned int node, u64 msg, long timeout);
/*
 * The N messages MSGS for NODE in order, with one doorbell where the queue
 * takes them together: eusrv_mbox_send_many() returns how many it took
 * (the rest are the caller's to send), -EAGAIN if none;
 * eusrv_mbox_send_wait_many() sleeps for room until all went (0).  The
 * errors otherwise as above; no message goes if one is of type 0.
 */
int eusrv_mbox_send_many(unsigned int node, const u64 *msgs, unsigned int n);
int eusrv_mbox_send_wait_many(unsigned int node, const u64 *msgs,
			      unsigned int n, long timeout);

/* This node's number, or -ENODEV while no mailbox is bound. */
int eusrv_mbox_node_id(void);
/* Nodes on the board (node numbers are below it), or 0 without a mailbox. */
unsigned int eusrv_mbox_nodes(void);

/*
 * What the block's users have cost since it was bound: doorbells (kicks)
 * and interrupts, by what the handler found (one may have several causes).
 */
struct eusrv_mbox_crossings {
	u64 doorbells;
	u64 irqs;
	u64 irq_rx;		/* inbound messages */
	u64 irq_txdone;		/* completed outbound entries */
	u64 irq_room;		/* a FIFO that refused us has room */
	u64 irq_none;		/* nothing left to do */
};

/* 0, or -ENODEV while no mailbox is bound. */
int eusrv_mbox_get_crossings(struct eusrv_mbox_crossings *x);

#endif /* EUSRV_MBOX_H */
