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

struct eusrv_cdma_xfer {
	unsigned int nr_ext;			/* 0, 1 or 2 data extents */
	struct {
		u64 src;			/* global addresses */
		u64 dst;
		u32 len;			/* 1..EUSRV_CDMA_MAX_LEN */
	} ext[2];
	unsigned int nr_put;			/* 0..3 32-bit stores */
	struct {
		u64 dst;			/* global address, 4-byte aligned */
		u32 val;
	} put[3];				/* after the data, before the messages */
	unsigned int nr_msg;			/* 0, 1 or 2 mailbox messages */
	struct {
		unsigned int node;		/* destination node (may be self) */
		u64 msg;
		/*
		 * 0, or the global address of a 32-bit word (4-byte
		 * aligned, any node's RAM): the engine swaps it with 0 and
		 * writes the message only if it was set
		 */
		u64 cond;
	} msg[2];				/* written in this order, after the data */
	/*
	 * With HAS_MARK, one more 32-bit store between the first message and
	 * the second: a mark that everything before it was done (the second
	 * message being the sender's own note).  Skipped if the engine
	 * refuses the first message (the messages then go by the mailbox).
	 */
	bool has_mark;
	struct {
		u64 dst;
		u32 val;
	} mark;
	/* Called at most once, from process context, if the transfer did not complete. */
	void (*failed)(void *ctx, int err);
	void *ctx;
};

/*
 * Queue a transfer: copies *x; may sleep up to TIMEOUT jiffies for free
 * descriptors.  0, -EINVAL (bad extent/message), -ETIMEDOUT, -ENODEV (no
 * engine/being removed), -EIO.  Process context.  A transfer needs at
 * least one extent, store or message; extents and stores must lie in RAM (node-local
 * address + length at most EUSRV_GA_BLOCKS) of a node of the board;
 * messages must not be of type 0.  failed() gets -EIO (the engine
 * reported an error for the transfer) or -ENODEV (the engine went away
 * with the transfer queued); it must not call eusrv_cdma_sync().
 */
int eusrv_cdma_submit(const struct eusrv_cdma_xfer *x, long timeout);
/* Wait until no transfer with this ctx is in flight; no callback for ctx runs after it returns. */
void eusrv_cdma_sync(void *ctx);
/* This node's number, or -ENODEV while no engine is bound. */
int eusrv_cdma_node_id(void);

/* What the engine's users have cost since it was bound: doorbells, interrupts by cause. */
struct eusrv_cdma_crossings {
	u64 doorbells;
	u64 irqs;
	u64 irq_ioc;
	u64 irq_dly;
	u64 irq_err;
};

/* 0, or -ENODEV while no engine is bound. */
int eusrv_cdma_get_crossings(struct eusrv_cdma_crossings *x);

#endif /* EUSRV_CDMA_H */
