/*
 * The AXI DMA engine of one node (axidma_hw.h, EUSRV_PAGE_DMA): PG021
 * scatter-gather MM2S and S2MM channels, coalescing, errors, reset.
 *
 * Block logic only: the MAC (mac.c) pulls transmit frames out of it and
 * pushes received frames into it; time comes in as microseconds and the
 * interrupt decision goes out through vb_axidma_update_irq(), so the same code
 * runs in the model and in the host unit tests.
 */
#ifndef EUSRV_MODEL_AXIDMA_H
#define EUSRV_MODEL_AXIDMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <eusrv/axidma_hw.h>

#include "board.h"
#include "log.h"

enum { VB_AXIDMA_TX = 0, VB_AXIDMA_RX = 1 };

/* Injected errors (control socket): the next descriptor fails like this. */
enum vb_axidma_inject_kind {
	VB_AXIDMA_INJ_NONE = 0,
	VB_AXIDMA_INJ_DMA_INT,
	VB_AXIDMA_INJ_DMA_SLV,
	VB_AXIDMA_INJ_DMA_DEC,
	VB_AXIDMA_INJ_SG_INT,
	VB_AXIDMA_INJ_SG_SLV,
	VB_AXIDMA_INJ_SG_DEC,
};

struct vb_axidma_chan {
	uint32_t base;			/* EUSRV_AXIDMA_MM2S or EUSRV_AXIDMA_S2MM */
	uint32_t vb;			/* EUSRV_AXIDMA_VB_MM2S or EUSRV_AXIDMA_VB_S2MM */
	uint32_t sr;			/* the model's DMASR */
	uint32_t cr_seen;		/* DMACR at the last kick */
	bool running;			/* RS latched: fetching allowed */
	bool err_halted;		/* stopped by an error until reset */
	bool idle;			/* completed the tail at idle_at */
	uint64_t next;			/* next descriptor */
	uint64_t idle_at;
	uint32_t thresh_cnt;		/* IOC events left to the interrupt */
	uint64_t dly_deadline_us;	/* 0: delay timer not running */
	uint32_t clr_seq;		/* SR_CLR_SEQ last applied */
	uint32_t bad_cnt, bad_last, inj_cnt;
	uint32_t bad_cr_val, bad_cur_val, bad_tail_val;
	bool bad_cr, bad_cur, bad_tail;
	enum vb_axidma_inject_kind inject;
	bool raise;			/* interrupt to raise at update */
};

struct vb_axidma {
	void *page;
	const struct board *board;
	unsigned int node;
	bool up;
	struct vb_axidma_chan ch[2];
	struct log_ratelimit rl;
};

void vb_axidma_init(struct vb_axidma *d, void *page, const struct board *board,
		    unsigned int node);
void vb_axidma_attach(struct vb_axidma *d);
void vb_axidma_detach(struct vb_axidma *d);

/* The node kicked channel CH (registers changed). */
void vb_axidma_kick(struct vb_axidma *d, unsigned int ch, uint64_t now_us);

/*
 * MM2S: take the next complete frame.  Copies at most CAP bytes into BUF,
 * *LEN gets the frame's full length, APP the SOF descriptor's APP words.
 * Returns 1 (a frame, its descriptors completed), 0 (none ready) or -1 (a
 * DMA error stopped the channel).
 */
int vb_axidma_tx_frame(struct vb_axidma *d, uint8_t *buf, size_t cap,
		       size_t *len, uint32_t app[5], uint64_t now_us);

/*
 * S2MM: put a frame of LEN bytes with APP words into free descriptors.
 * Returns 0 (delivered), -ENOSPC (no room, channel not running: dropped)
 * or -EIO (a DMA error stopped the channel: dropped).
 */
int vb_axidma_rx_frame(struct vb_axidma *d, const uint8_t *frame, size_t len,
		       const uint32_t app[5], uint64_t now_us);

/* Expire delay timers due at NOW_US. */
void vb_axidma_timer(struct vb_axidma *d, uint64_t now_us);
/* Earliest running delay timer (0: none). */
uint64_t vb_axidma_next_deadline(const struct vb_axidma *d);
/* True if channel CH's interrupt must be raised now (once). */
bool vb_axidma_update_irq(struct vb_axidma *d, unsigned int ch);
/* Make channel CH's next descriptor fail with KIND. */
void vb_axidma_inject(struct vb_axidma *d, unsigned int ch,
		      enum vb_axidma_inject_kind kind);

#endif /* EUSRV_MODEL_AXIDMA_H */
