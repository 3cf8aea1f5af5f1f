/*
 * The mailbox block of one node (board_hw.h, EUSRV_PAGE_MBOX): inbound FIFO,
 * outbound posted-store queue, back-pressure, error and interrupt logic.
 *
 * Block logic only: it works on the node's register page and reaches the
 * rest of the board through struct mbox_ops (the other nodes' mailboxes,
 * the interrupt line, a run queue and a one-shot timer), so the same code
 * runs in the model and against a fake board in the host unit tests.
 */
#ifndef EUSRV_MODEL_MAILBOX_H
#define EUSRV_MODEL_MAILBOX_H

#include <stdbool.h>
#include <stdint.h>

#include <eusrv/board_hw.h>

#include "log.h"

/* Outbound entries handled per mbox_run() before yielding to other nodes. */
#define MBOX_RUN_BUDGET		32U

struct mbox;

struct mbox_ops {
	/* The mailbox of board node NODE, or NULL if the board has no such node. */
	struct mbox *(*peer)(struct mbox *m, unsigned int node);
	/* Raise the node's MSI-X vector EUSRV_VEC_MBOX. */
	void (*raise_irq)(struct mbox *m);
	/* Call mbox_run(M) on a later loop round; repeated calls are one. */
	void (*schedule)(struct mbox *m);
	/* Call mbox_timer(M) at monotonic DEADLINE_MS, replacing any earlier. */
	void (*timer_arm)(struct mbox *m, uint64_t deadline_ms);
	void (*timer_cancel)(struct mbox *m);
	/* Monotonic milliseconds. */
	uint64_t (*now_ms)(struct mbox *m);
};

struct mbox {
	void *page;			/* EUSRV_PAGE_SIZE bytes of shared memory */
	unsigned int node;
	const struct mbox_ops *ops;
	void *opaque;			/* for the ops */
	bool up;			/* the node is attached */

	/*
	 * The model's own copy of every model-written register: a node can
	 * scribble over the page, but never over the block's state.
	 */
	uint32_t rx_prod;
	uint32_t tx_cons;
	uint32_t full_cnt;
	uint32_t tx_err_cnt;
	uint32_t tx_wait_cnt;
	uint32_t bad_cnt;
	uint32_t bad_last;
	uint64_t rx_total;
	uint64_t tx_total;
	bool stalled;			/* RX_STALLED */

	/* A bad register value is counted once, until the node changes it. */
	bool ctrl_bad;
	bool rx_cons_bad;
	bool tx_prod_bad;
	uint32_t ctrl_bad_val;
	uint32_t rx_cons_bad_val;
	uint32_t tx_prod_bad_val;

	/* The head of this node's outbound queue waits on a full FIFO. */
	struct mbox *wait_dest;
	uint64_t wait_deadline_ms;

	/* Nodes whose outbound head waits on this node's FIFO (bit = node). */
	uint32_t waiters;
	/* Nodes whose DMA engine's write waits on this node's FIFO. */
	uint32_t dma_waiters;
	unsigned int waiter_rr;		/* round-robin start for fairness */

	/* EUSRV_MBOX_CTRL_*_IE bits of events since the last mbox_update_irq. */
	uint32_t causes;

	struct log_ratelimit rl;
};

void mbox_init(struct mbox *m, void *page, unsigned int node,
	       const struct mbox_ops *ops, void *opaque);

/* A node attached: reset the page and the block, start accepting stores. */
void mbox_attach(struct mbox *m);
/*
 * The node went away: stores waiting on its FIFO and its own outstanding
 * stores complete with EUSRV_MBOX_ST_DECERR; later stores to it too.
 */
void mbox_detach(struct mbox *m);

/* The node kicked EUSRV_VEC_MBOX: registers changed. */
void mbox_kick(struct mbox *m);
/* The node kicked VECTOR, which has no block: EUSRV_MBOX_BAD_KICK. */
void mbox_bad_kick(struct mbox *m, unsigned int vector);
/* Work through the outbound queue (at most MBOX_RUN_BUDGET entries). */
void mbox_run(struct mbox *m);
/* The timer armed through ops->timer_arm expired. */
void mbox_timer(struct mbox *m);
/* Raise the interrupt once if an enabled cause occurred since last time. */
void mbox_update_irq(struct mbox *m);

/*
 * DMA engines' writes to an INBOX (the CDMA's notification descriptors):
 * the same decoding, delivery and back-pressure as a posted store, with
 * the engine's node as the source.  The engine keeps the wait state; while
 * it waits, a kick of the destination schedules the engine's node through
 * its mailbox's ops->schedule, and the engine retries at the deadline on
 * its own (no mailbox timer is used).
 */
struct mbox_dma_wait {
	struct mbox *dest;		/* the full FIFO, or NULL */
	uint64_t deadline_ms;
};

/* mbox_dma_store() result: the FIFO is full, call again later. */
#define MBOX_STORE_WAIT		UINT32_MAX

/*
 * Write MSG to global address ADDR on behalf of node SRC's DMA engine
 * (SRC = that node's mailbox).  Returns EUSRV_MBOX_ST_OK, _DECERR,
 * _DISABLED, _FULL (waited EUSRV_MBOX_STORE_TIMEOUT_MS) or
 * MBOX_STORE_WAIT (W->deadline_ms says until when at most).
 */
uint32_t mbox_dma_store(struct mbox *src, struct mbox_dma_wait *w,
			uint64_t addr, uint64_t msg);
/* Forget a waiting write (engine reset, node gone). */
void mbox_dma_cancel(struct mbox *src, struct mbox_dma_wait *w);

#endif /* EUSRV_MODEL_MAILBOX_H */
