/*
 * The AXI CDMA engine of one node (cdma_hw.h, EUSRV_PAGE_CDMA): PG034
 * scatter-gather and simple mode, copies between any attached nodes' RAM,
 * 8-byte writes into mailbox INBOXes (through mailbox.c, with its
 * back-pressure), interrupt coalescing, errors that halt until reset.
 *
 * Block logic only: the board (RAM decoding) and the node's mailbox are
 * passed in, time and scheduling come through struct vb_cdma_ops, and the
 * interrupt decision goes out through vb_cdma_update_irq(), so the same code
 * runs in the model and in the host unit tests.
 */
#ifndef EUSRV_MODEL_CDMA_H
#define EUSRV_MODEL_CDMA_H

#include <stdbool.h>
#include <stdint.h>

#include <eusrv/cdma_hw.h>

#include "board.h"
#include "log.h"
#include "mailbox.h"

/* Work per vb_cdma_run() before yielding to the other nodes. */
#define CDMA_RUN_BYTES		(1U << 20)
#define CDMA_RUN_DESCS		64U

struct vb_cdma;

struct vb_cdma_ops {
	/* Call vb_cdma_run(C) on a later loop round; repeated calls are one. */
	void (*schedule)(struct vb_cdma *c);
	/* Monotonic microseconds. */
	uint64_t (*now_us)(struct vb_cdma *c);
};

struct vb_cdma {
	void *page;			/* EUSRV_PAGE_SIZE bytes of shared memory */
	const struct board *board;
	struct vb_mbox *mbox;		/* this node's mailbox: INBOX writes */
	unsigned int node;
	const struct vb_cdma_ops *ops;
	void *opaque;			/* for the ops */
	bool up;

	uint32_t sr;			/* CDMASR bits 14:0 */
	uint32_t cr_seen;		/* CDMACR at the last kick */
	bool halted;			/* by an error, until reset */
	bool busy;			/* not idle */
	bool fresh;			/* the next start takes CURDESC */
	uint64_t next;			/* next descriptor to fetch */
	uint64_t tail_seen;		/* TAILDESC acted on (pause point) */
	uint32_t clr_seq;		/* SR_CLR_SEQ last applied */
	uint32_t simple_seq;		/* SIMPLE_SEQ last acted on */

	/* The transfer in hand. */
	bool have;
	bool simple;			/* simple mode: no descriptor */
	uint64_t cur_ga, cur_next, cur_sa, cur_da;
	uint8_t *cur_host;		/* the descriptor in RAM */
	uint32_t cur_len, cur_done;
	uint64_t cur_cond;		/* COND_ADDR of a conditional write, else 0 */
	bool cond_seen;			/* ... its word taken (the write goes on) */
	struct vb_mbox_dma_wait wait;	/* a mailbox write on a full FIFO */
	bool waited;			/* ... counted in WAIT_CNT */

	uint32_t thresh_cnt;		/* IOC events left to the interrupt */
	uint64_t dly_deadline_us;	/* 0: delay timer not running */
	bool raise;			/* interrupt to raise at update */

	/* Virtual-board registers, the model's own copy. */
	uint32_t bad_cnt, bad_last, wait_cnt, desc_cnt, msg_cnt, err_cnt;
	uint32_t refused_cnt, skipped_cnt;
	uint64_t bytes;
	/* Conditional writes to other nodes' inboxes, never reset (priority.h). */
	uint64_t far_taken, far_skipped;
	bool bad_cr, bad_tail;
	uint32_t bad_cr_val, bad_tail_val;

	struct log_ratelimit rl;
};

void vb_cdma_init(struct vb_cdma *c, void *page, const struct board *board,
		  struct vb_mbox *mbox, unsigned int node,
		  const struct vb_cdma_ops *ops, void *opaque);
/* The node attached: page and engine as after a reset. */
void vb_cdma_attach(struct vb_cdma *c);
/* The node went away: the transfer in hand is dropped. */
void vb_cdma_detach(struct vb_cdma *c);

/* The node kicked EUSRV_VEC_CDMA: registers changed. */
void vb_cdma_kick(struct vb_cdma *c);
/* Work on the descriptors (bounded by CDMA_RUN_BYTES/CDMA_RUN_DESCS). */
void vb_cdma_run(struct vb_cdma *c);
/* Time passed: expire the delay timer, retry a mailbox write's deadline. */
void vb_cdma_timer(struct vb_cdma *c);
/* Earliest deadline (monotonic microseconds), 0 if none. */
uint64_t vb_cdma_next_deadline(const struct vb_cdma *c);
/* True if the node's EUSRV_VEC_CDMA must be raised now (once). */
bool vb_cdma_update_irq(struct vb_cdma *c);

#endif /* EUSRV_MODEL_CDMA_H */
