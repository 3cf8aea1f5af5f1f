/*
 * The mailbox block of one node (board_hw.h, EUSRV_PAGE_MBOX): inbound FIFO,
 * outbound posted-store queue, back-pressure, error and interrupt logic.
 *
 * Block logic only: it works on the node's register page and reaches the
 * rest of the board through struct vb_mbox_ops (the other nodes' mailboxes,
						 * the interrupt line, a run queue and a one-shot timer), so the same code
 * runs in the model and against a fake board in the host unit tests.
 */
#ifndef EUSRV_MODEL_MAILBOX_H
#define EUSRV_MODEL_MAILBOX_H

#include <stdbool.h>
#include <stdint.h>

#include <eusrv/board_hw.h>

#include "log.h"

/* Outbound entries handled per vb_mbox_run() before yielding to other nodes. */
#define MBOX_RUN_BUDGET		32U

struct vb_mbox;

struct vb_mbox_ops {
	/* The mailbox of board node NODE, or NULL if the board has no such node. */
	struct vb_mbox *(*peer)(struct vb_mbox *m, unsigned int node);
	/* Raise the node's MSI-X vector EUSRV_VEC_MBOX. */
	void (*raise_irq)(struct vb_mbox *m);
	/* Call vb_mbox_run(M) on a later loop round; repeated calls are one. */
	void (*schedule)(struct vb_mbox *m);
	/* Call vb_mbox_timer(M) at monotonic DEADLINE_MS, replacing any earlier. */
	void (*timer_arm)(struct vb_mbox *m, uint64_t deadline_ms);
	void (*timer_cancel)(struct vb_mbox *m);
	/* Monotonic milliseconds. */
	uint64_t (*now_ms)(struct vb_mbox *m);
};

struct vb_mbox {
	void *page;			/* EUSRV_PAGE_SIZE bytes of shared memory */
	unsigned int node;
	const struct vb_mbox_ops *ops;
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
	uint32_t tx_busy_cnt;
	uint32_t room_cnt;
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
	struct vb_mbox *wait_dest;
	uint64_t wait_deadline_ms;

	/* Nodes whose outbound head waits on this node's FIFO (bit = node). */
	uint32_t waiters;
	/* Nodes whose DMA engine's write waits on this node's FIFO. */
	uint32_t dma_waiters;
	/* Nodes refused by this node's full FIFO, told when it has room. */
	uint32_t room_waiters;
	/* Destinations that refused this node's NOWAIT stores (bit = node). */
	uint32_t refused_by;
	unsigned int waiter_rr;		/* round-robin start for fairness */

	/* EUSRV_MBOX_CTRL_*_IE bits of events since the last vb_mbox_update_irq(). */
	uint32_t causes;

	struct log_ratelimit rl;
};

void vb_mbox_init(struct vb_mbox *m, void *page, unsigned int node,
		  const struct vb_mbox_ops *ops, void *opaque);

/* A node attached: reset the page and the block, start accepting stores. */
void vb_mbox_attach(struct vb_mbox *m);
/*
 * The node went away: stores waiting on its FIFO and its own outstanding
 * stores complete with EUSRV_MBOX_ST_DECERR; later stores to it too.
 */
void vb_mbox_detach(struct vb_mbox *m);

/* The node kicked EUSRV_VEC_MBOX: registers changed. */
void vb_mbox_kick(struct vb_mbox *m);
/* The node kicked VECTOR, which has no block: EUSRV_MBOX_BAD_KICK. */
void vb_mbox_bad_kick(struct vb_mbox *m, unsigned int vector);
/* Work through the outbound queue (at most MBOX_RUN_BUDGET entries). */
void vb_mbox_run(struct vb_mbox *m);
/* The timer armed through ops->timer_arm expired. */
void vb_mbox_timer(struct vb_mbox *m);
/* Raise the interrupt once if an enabled cause occurred since last time. */
void vb_mbox_update_irq(struct vb_mbox *m);

/*
 * DMA engines' writes to an INBOX (the CDMA's notification descriptors):
 * the same decoding, delivery and back-pressure as a posted store, with
 * the engine's node as the source.  The engine keeps the wait state; while
 * it waits, a kick of the destination schedules the engine's node through
 * its mailbox's ops->schedule, and the engine retries at the deadline on
 * its own (no mailbox timer is used).
 */
struct vb_mbox_dma_wait {
	struct vb_mbox *dest;		/* the full FIFO, or NULL */
	uint64_t deadline_ms;
};

/* vb_mbox_dma_store() result: the FIFO is full, call again later. */
#define MBOX_STORE_WAIT		UINT32_MAX

/*
 * Write MSG to global address ADDR on behalf of node SRC's DMA engine
 * (SRC = that node's mailbox).  Returns EUSRV_MBOX_ST_OK, _DECERR,
 * _DISABLED, _FULL (the FIFO stayed full TIMEOUT_MS; 0: it was full) or
 * MBOX_STORE_WAIT (W->deadline_ms says until when at most).
 */
uint32_t vb_mbox_dma_store(struct vb_mbox *src, struct vb_mbox_dma_wait *w,
			   uint64_t addr, uint64_t msg, uint32_t timeout_ms);
/* Forget a waiting write (engine reset, node gone). */
void vb_mbox_dma_cancel(struct vb_mbox *src, struct vb_mbox_dma_wait *w);


#endif /* EUSRV_MODEL_MAILBOX_H */
