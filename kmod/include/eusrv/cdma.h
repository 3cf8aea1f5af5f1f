/* SPDX-License-Identifier: GPL-2.0 */
/*
 * In-kernel API of the node's AXI CDMA engine (eusrv_cdma.ko): transfers of
 * one or two data extents between global addresses, followed by up to three
 * 32-bit stores (a new ring index written into the receiver's memory) and
 * up to two 8-byte mailbox messages that the engine writes itself once the
 * data has landed (EUROSERVER D4.2 section 3.3: the local and remote
 * notifications of an RDMA write), each of them unconditional or only if
 * a word that its receiver sets asks for it (COND, docs/hardware.md 5.3).
 *
 * A node has one engine; the API addresses "the" engine.  Transfers run in
 * submission order.  A transfer either completes (its messages are
 * delivered and nothing is called) or its failed() callback runs once.
 */
#ifndef EUSRV_CDMA_H
#define EUSRV_CDMA_H

#include <linux/types.h>
#include <eusrv/cdma_hw.h>

/**
 * struct eusrv_cdma_xfer - one transfer
 * @nr_ext: 0, 1 or 2 data extents
 * @ext: the data extents
 * @ext.src: global address to copy from
 * @ext.dst: global address to copy to
 * @ext.len: 1..EUSRV_CDMA_MAX_LEN bytes
 * @nr_put: 0..3 32-bit stores
 * @put: the stores, after the data, before the messages
 * @put.dst: global address, 4-byte aligned
 * @put.val: the value stored
 * @nr_msg: 0, 1 or 2 mailbox messages
 * @msg: the messages, written in this order, after the data
 * @msg.node: destination node (may be self)
 * @msg.msg: the message
 * @msg.cond: 0, or the global address of a 32-bit word (4-byte aligned, any
 *	node's RAM): the engine swaps it with 0 and writes the message only if
 *	it was set
 * @has_mark: one more 32-bit store, @mark, between the first message and
 *	the second: a mark that everything before it was done (the second
 *	message being the sender's own note).  Skipped if the engine refuses
 *	the first message (the messages then go by the mailbox).
 * @mark: the store of @has_mark
 * @mark.dst: global address, 4-byte aligned
 * @mark.val: the value stored
 * @failed: called at most once, from process context, if the transfer did
 *	not complete
 * @ctx: the first argument of @failed
 */
struct eusrv_cdma_xfer {
	unsigned int nr_ext;
	struct {
		u64 src;
		u64 dst;
		u32 len;
	} ext[2];
	unsigned int nr_put;
	struct {
		u64 dst;
		u32 val;
	} put[3];
	unsigned int nr_msg;
	struct {
		unsigned int node;
		u64 msg;
		u64 cond;
	} msg[2];
	bool has_mark;
	struct {
		u64 dst;
		u32 val;
	} mark;
	void (*failed)(void *ctx, int err);
	void *ctx;
};

/* The functions are described at their definitions in cdma/cdma_core.c. */
int eusrv_cdma_submit(const struct eusrv_cdma_xfer *x, long timeout);
void eusrv_cdma_sync(void *ctx);
int eusrv_cdma_node_id(void);

/**
 * struct eusrv_cdma_crossings - what the engine's users have cost
 * @doorbells: doorbells (kicks)
 * @irqs: interrupts
 * @irq_ioc: interrupts with the completion (IOC) cause
 * @irq_dly: interrupts with the delay-timer cause
 * @irq_err: interrupts with the error cause
 *
 * Counted since the engine was bound; one interrupt may have several
 * causes.
 */
struct eusrv_cdma_crossings {
	u64 doorbells;
	u64 irqs;
	u64 irq_ioc;
	u64 irq_dly;
	u64 irq_err;
};

int eusrv_cdma_get_crossings(struct eusrv_cdma_crossings *x);

#endif /* EUSRV_CDMA_H */
