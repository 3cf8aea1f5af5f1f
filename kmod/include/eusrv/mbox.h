/* SPDX-License-Identifier: GPL-2.0 */
/*
 * In-kernel API of the node's mailbox (eusrv_mbox.ko).
 *
 * A node has exactly one mailbox, so the API addresses "the" mailbox rather
 * than handing out channels: the kernel's drivers/mailbox framework binds
 * one client to each channel, while this block is a single node-addressed
 * FIFO whose messages are demultiplexed by their type field.
 */
#ifndef EUSRV_MBOX_H
#define EUSRV_MBOX_H

#include <linux/types.h>
#include <eusrv/mbox_msg.h>

struct eusrv_mbox_handler {
	/* A message of the registered type arrived; hard-IRQ context. */
	void (*rx)(void *ctx, unsigned int src_node, u64 msg);
	/*
	 * A message of the registered type that this node sent could not be
	 * delivered (EUSRV_MBOX_ST_FULL, _DECERR or _DISABLED); hard-IRQ
	 * context.  Optional.
	 */
	void (*tx_error)(void *ctx, unsigned int dst_node, u64 msg, u32 status);
	void *ctx;
};

int eusrv_mbox_register(unsigned int type, const struct eusrv_mbox_handler *h);
void eusrv_mbox_unregister(unsigned int type);

/*
 * Queue a message for NODE.  Any context.  -EAGAIN when the outbound queue
 * is full, -EINVAL for a bad node or type 0, -ENODEV without a mailbox.
 */
int eusrv_mbox_send(unsigned int node, u64 msg);
/* As eusrv_mbox_send(), sleeping up to TIMEOUT jiffies for queue space. */
int eusrv_mbox_send_wait(unsigned int node, u64 msg, long timeout);

/* This node's number, or -ENODEV without a mailbox. */
int eusrv_mbox_node_id(void);

#endif /* EUSRV_MBOX_H */
