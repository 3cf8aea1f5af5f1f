/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The shared-NIC driver's AXI DMA rings without hardware access: the
 * descriptors linked in a circle, free-running head (next slot to hand to
 * the engine) and tail (oldest slot handed over) counters, what a
 * descriptor's STATUS and APP words say about a transmitted or received
 * frame, and the mapping of ethtool's coalescing parameters onto DMACR's
 * IRQThreshold and IRQDelay fields.  Shared by the driver and its KUnit
 * suites; docs/hardware.md, "The AXI DMA engine", is the specification.
 */
#ifndef EUSRV_ETH_RING_H
#define EUSRV_ETH_RING_H

#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/string.h>
#include <linux/types.h>
#include <asm/byteorder.h>

#include <eusrv/axidma_hw.h>

/* Ring sizes in descriptors (ethtool -g/-G); powers of two. */
#define ETH_TX_RING_DEFAULT	64U
#define ETH_RX_RING_DEFAULT	128U
#define ETH_TX_RING_MIN	32U	/* room for a frame of the most fragments */
#define ETH_RX_RING_MIN	8U
#define ETH_RING_MAX		1024U

/* Coalescing (ethtool -c/-C): frames per interrupt and the delay timer. */
#define ETH_COAL_FRAMES_MAX	255U	/* IRQThreshold is 8 bits, 0 invalid */
#define ETH_COAL_DELAY_MAX	255U	/* IRQDelay is 8 bits, 0 = off */
#define ETH_COAL_USECS_MAX	(ETH_COAL_DELAY_MAX * EUSRV_AXIDMA_DELAY_TICK_NS / 1000U)

/* Ethernet header, for the receive length check (no dependency on netdev). */
#define ETH_HDR_LEN		14U

struct eth_ring {
	struct eusrv_axidma_desc *desc;	/* SIZE descriptors, 64-byte aligned */
	u64 ga;				/* global address of desc[0] */
	u32 size;			/* a power of two */
	u32 head;			/* next slot to hand over (free-running) */
	u32 tail;			/* oldest slot handed over (free-running) */
};

static inline u32 eth_ring_slot(const struct eth_ring *r, u32 idx)
{
	return idx & (r->size - 1);
}

static inline u64 eth_ring_desc_ga(const struct eth_ring *r, u32 idx)
{
	return r->ga + (u64)eth_ring_slot(r, idx) * sizeof(struct eusrv_axidma_desc);
}

static inline struct eusrv_axidma_desc *
eth_ring_desc(const struct eth_ring *r, u32 idx)
{
	return &r->desc[eth_ring_slot(r, idx)];
}

/* Descriptors handed over and not yet taken back. */
static inline u32 eth_ring_used(const struct eth_ring *r)
{
	return r->head - r->tail;
}

/*
 * Slots that may still be handed over.  One slot always stays unused: a
 * channel that went idle at TAILDESC resumes when TAILDESC changes, and
 * handing over the whole ring would write the same TAILDESC again.  0 when
 * the counters are impossible.
 */
static inline u32 eth_ring_free(const struct eth_ring *r)
{
	u32 used = eth_ring_used(r);

	return used >= r->size - 1 ? 0 : r->size - 1 - used;
}

/*
 * A ring size request from ethtool: rounded up to a power of two, or 0 if
 * it lies outside [MIN, MAX].
 */
static inline u32 eth_ring_size(u32 req, u32 min, u32 max)
{
	if (req < min || req > max)
		return 0;
	return (u32)roundup_pow_of_two(req);
}

/*
 * Link SIZE descriptors at DESC (global address GA, 64-byte aligned) in a
 * circle, everything else zero: no buffer, length 0, not completed.
 */
static inline void eth_ring_init(struct eth_ring *r, struct eusrv_axidma_desc *desc,
				 u64 ga, u32 size)
{
	u32 i;

	r->desc = desc;
	r->ga = ga;
	r->size = size;
	r->head = 0;
	r->tail = 0;
	for (i = 0; i < size; i++) {
		u64 next = ga + (u64)((i + 1) & (size - 1)) * sizeof(*desc);

		memset(&desc[i], 0, sizeof(desc[i]));
		desc[i].next = cpu_to_le32(lower_32_bits(next));
		desc[i].next_msb = cpu_to_le32(upper_32_bits(next));
	}
}

/*
 * Fill descriptor D for a buffer of LEN bytes at global address BUF; CTRL
 * carries SOF/EOF on transmit.  STATUS is written 0: the engine takes a
 * descriptor with Cmplt set for a stale one.
 */
static inline void eth_desc_fill(struct eusrv_axidma_desc *d, u64 buf, u32 len,
				 u32 flags)
{
	d->buf = cpu_to_le32(lower_32_bits(buf));
	d->buf_msb = cpu_to_le32(upper_32_bits(buf));
	d->app[0] = 0;
	d->app[1] = 0;
	d->status = 0;
	d->ctrl = cpu_to_le32((len & EUSRV_AXIDMA_MAX_LEN) | flags);
}

/* A descriptor taken back: no length, so a stray resume cannot run into it. */
static inline void eth_desc_clear(struct eusrv_axidma_desc *d)
{
	d->ctrl = 0;
}

/*
 * TX checksum request in APP1 for Linux's CHECKSUM_PARTIAL: START =
 * skb_checksum_start_offset(), OFFSET = skb->csum_offset.  False if the
 * offsets do not fit the 16-bit fields.
 */
static inline bool eth_tx_csum_app1(u32 start, u32 offset, u32 *app1)
{
	u32 insert = start + offset;

	if (start > EUSRV_AXIDMA_APP1_CSUM_INSERT_MASK ||
	    insert > EUSRV_AXIDMA_APP1_CSUM_INSERT_MASK || insert < start)
		return false;
	*app1 = start << EUSRV_AXIDMA_APP1_CSUM_START_SHIFT | insert;
	return true;
}

enum eth_tx_done {
	ETH_TX_BUSY,		/* not completed yet */
	ETH_TX_OK,
	ETH_TX_ERROR,		/* an error bit, or a length the driver did not ask for */
};

/* What STATUS says about a transmit descriptor filled with CTRL. */
static inline enum eth_tx_done eth_tx_status(u32 status, u32 ctrl)
{
	if (!(status & EUSRV_AXIDMA_ST_CMPLT))
		return ETH_TX_BUSY;
	if (status & EUSRV_AXIDMA_ST_ERR)
		return ETH_TX_ERROR;
	if ((status & EUSRV_AXIDMA_MAX_LEN) != (ctrl & EUSRV_AXIDMA_MAX_LEN))
		return ETH_TX_ERROR;
	return ETH_TX_OK;
}

enum eth_rx_done {
	ETH_RX_BUSY,		/* not completed yet */
	ETH_RX_OK,		/* a whole frame of *LEN bytes in this buffer */
	ETH_RX_DMA_ERROR,	/* an error bit: the channel halted */
	ETH_RX_PART,		/* not SOF and EOF: part of a longer frame */
	ETH_RX_BAD_LEN,	/* too short, longer than the buffer, APP4 disagrees */
};

/*
 * What a receive descriptor's STATUS and APP4 say about the frame in a
 * buffer of BUF_LEN bytes.  Only single-buffer frames are accepted: the
 * buffers hold MTU + 18 bytes, as much as the MAC lets through.
 */
static inline enum eth_rx_done eth_rx_status(u32 status, u32 app4,
					     u32 buf_len, u32 *len)
{
	u32 n = status & EUSRV_AXIDMA_ST_LEN;

	if (!(status & EUSRV_AXIDMA_ST_CMPLT))
		return ETH_RX_BUSY;
	if (status & EUSRV_AXIDMA_ST_ERR)
		return ETH_RX_DMA_ERROR;
	if ((status & (EUSRV_AXIDMA_ST_RXSOF | EUSRV_AXIDMA_ST_RXEOF)) !=
	    (EUSRV_AXIDMA_ST_RXSOF | EUSRV_AXIDMA_ST_RXEOF))
		return ETH_RX_PART;
	if (n < ETH_HDR_LEN || n > buf_len ||
	    (app4 & EUSRV_AXIDMA_APP4_RX_LEN_MASK) != (n & EUSRV_AXIDMA_APP4_RX_LEN_MASK))
		return ETH_RX_BAD_LEN;
	*len = n;
	return ETH_RX_OK;
}

/*
 * Coalescing: FRAMES (1..255) frames per IOC interrupt, and the delay
 * timer USECS (0 = off, else rounded up to whole ticks, at most
 * ETH_COAL_USECS_MAX) after the last frame that did not reach the
 * threshold.  Returns DMACR's threshold and delay fields, or -EINVAL.
 */
static inline int eth_coal_to_cr(u32 frames, u32 usecs, u32 *cr_bits)
{
	u32 ticks;

	if (!frames || frames > ETH_COAL_FRAMES_MAX ||
	    usecs > ETH_COAL_USECS_MAX)
		return -EINVAL;
	ticks = DIV_ROUND_UP(usecs * 1000U, EUSRV_AXIDMA_DELAY_TICK_NS);
	*cr_bits = frames << EUSRV_AXIDMA_CR_THRESH_SHIFT | ticks << EUSRV_AXIDMA_CR_DELAY_SHIFT;
	return 0;
}

/* The other way: what a DMACR value means in frames and microseconds. */
static inline void eth_cr_to_coal(u32 cr, u32 *frames, u32 *usecs)
{
	*frames = (cr & EUSRV_AXIDMA_CR_THRESH_MASK) >> EUSRV_AXIDMA_CR_THRESH_SHIFT;
	*usecs = ((cr & EUSRV_AXIDMA_CR_DELAY_MASK) >> EUSRV_AXIDMA_CR_DELAY_SHIFT) *
		 EUSRV_AXIDMA_DELAY_TICK_NS / 1000U;
}

#endif /* EUSRV_ETH_RING_H */
