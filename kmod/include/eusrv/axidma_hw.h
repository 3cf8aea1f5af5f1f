/* SPDX-License-Identifier: (GPL-2.0 OR MIT) */
/*
 * The AXI DMA engine of a node's shared-NIC port: Xilinx AXI DMA (PG021,
 * v7.1) in scatter-gather mode, no multichannel, no DRE restrictions.  Its
 * MM2S channel feeds the shared MAC's transmit side, its S2MM channel takes
 * the frames the MAC delivers to the port.  docs/hardware.md, "The AXI DMA engine", is
 * the prose version of this file.
 *
 * Register page EUSRV_PAGE_DMA of the node's window (board_hw.h); MM2S
 * raises and is kicked on EUSRV_VEC_DMA_MM2S, S2MM on EUSRV_VEC_DMA_S2MM.
 *
 * Virtual-board conventions (the same for the CDMA block):
 *  - writers: the node writes DMACR, CURDESC, TAILDESC and the SR_CLR pair;
 *    the model writes DMASR and the BAD registers.  One exception: a reset
 *    (DMACR.Reset) is completed by the model, which then writes both
 *    channels' DMACR (EUSRV_AXIDMA_CR_RESET_VALUE), CURDESC and TAILDESC (0); the
 *    node writes none of them until it reads DMACR.Reset as 0.
 *  - after writing TAILDESC (MSB first, low word last) and after writing
 *    DMACR, the node kicks the channel's vector.
 *  - write-1-to-clear of the DMASR interrupt bits: the node writes the bits
 *    to SR_CLR, then increments SR_CLR_SEQ, then kicks; the model applies
 *    DMASR &= ~(SR_CLR & EUSRV_AXIDMA_SR_IRQ_ALL) once per change of SR_CLR_SEQ.
 *  - CURDESC is not updated by the engine (it keeps what the node wrote);
 *    progress is seen in the descriptors' Cmplt bits, as Linux drivers do.
 *
 * All addresses the engine uses are 48-bit global addresses
 * (EUSRV_GA(node, phys)); descriptors and buffers must lie in the node's
 * own RAM, anything else is a decode error.
 */
#ifndef EUSRV_AXIDMA_HW_H
#define EUSRV_AXIDMA_HW_H

#include <linux/const.h>
#include <linux/types.h>

/* ---- Channel registers (PG021) ----------------------------------------- */

#define EUSRV_AXIDMA_MM2S		0x00	/* transmit channel base */
#define EUSRV_AXIDMA_S2MM		0x30	/* receive channel base */

#define EUSRV_AXIDMA_CR		0x00	/* node: DMACR */
#define EUSRV_AXIDMA_SR		0x04	/* model: DMASR */
#define EUSRV_AXIDMA_CURDESC		0x08	/* node: first descriptor, bits 31:6 */
#define EUSRV_AXIDMA_CURDESC_MSB	0x0c	/* node: address bits 63:32 */
#define EUSRV_AXIDMA_TAILDESC		0x10	/* node: last descriptor, bits 31:6 */
#define EUSRV_AXIDMA_TAILDESC_MSB	0x14	/* node: address bits 63:32 */

/* DMACR */
#define EUSRV_AXIDMA_CR_RS		_BITUL(0)	/* run (1) / stop (0) */
#define EUSRV_AXIDMA_CR_RESET		_BITUL(2)	/* soft reset of both channels */
#define EUSRV_AXIDMA_CR_KEYHOLE	_BITUL(3)	/* not supported: BAD, ignored */
#define EUSRV_AXIDMA_CR_CYCLIC	_BITUL(4)	/* not supported: BAD, ignored */
#define EUSRV_AXIDMA_CR_IOC_IRQEN	_BITUL(12)
#define EUSRV_AXIDMA_CR_DLY_IRQEN	_BITUL(13)
#define EUSRV_AXIDMA_CR_ERR_IRQEN	_BITUL(14)
#define EUSRV_AXIDMA_CR_IRQEN_ALL	0x7000U
#define EUSRV_AXIDMA_CR_THRESH_SHIFT	16		/* IRQThreshold, 23:16 */
#define EUSRV_AXIDMA_CR_THRESH_MASK	0x00ff0000U
#define EUSRV_AXIDMA_CR_DELAY_SHIFT	24		/* IRQDelay, 31:24 */
#define EUSRV_AXIDMA_CR_DELAY_MASK	0xff000000U
#define EUSRV_AXIDMA_CR_VALID		(EUSRV_AXIDMA_CR_RS | EUSRV_AXIDMA_CR_RESET | \
				 EUSRV_AXIDMA_CR_IRQEN_ALL | EUSRV_AXIDMA_CR_THRESH_MASK | \
				 EUSRV_AXIDMA_CR_DELAY_MASK)
/* DMACR after reset (PG021): stopped, threshold 1, no delay. */
#define EUSRV_AXIDMA_CR_RESET_VALUE	0x00010000U

/* DMASR */
#define EUSRV_AXIDMA_SR_HALTED	_BITUL(0)	/* RS = 0 or stopped by an error */
#define EUSRV_AXIDMA_SR_IDLE		_BITUL(1)	/* running, tail descriptor done */
#define EUSRV_AXIDMA_SR_SGINCLD	_BITUL(3)	/* always 1: scatter-gather */
#define EUSRV_AXIDMA_SR_DMA_INT_ERR	_BITUL(4)	/* zero length, frame too long */
#define EUSRV_AXIDMA_SR_DMA_SLV_ERR	_BITUL(5)	/* only by error injection */
#define EUSRV_AXIDMA_SR_DMA_DEC_ERR	_BITUL(6)	/* buffer outside own RAM */
#define EUSRV_AXIDMA_SR_SG_INT_ERR	_BITUL(8)	/* fetched a Cmplt descriptor */
#define EUSRV_AXIDMA_SR_SG_SLV_ERR	_BITUL(9)	/* only by error injection */
#define EUSRV_AXIDMA_SR_SG_DEC_ERR	_BITUL(10)	/* descriptor outside own RAM */
#define EUSRV_AXIDMA_SR_IOC_IRQ	_BITUL(12)
#define EUSRV_AXIDMA_SR_DLY_IRQ	_BITUL(13)
#define EUSRV_AXIDMA_SR_ERR_IRQ	_BITUL(14)
#define EUSRV_AXIDMA_SR_ERR_ALL	0x0770U
#define EUSRV_AXIDMA_SR_IRQ_ALL	0x7000U
#define EUSRV_AXIDMA_SR_THRESH_SHIFT	16		/* IRQThresholdSts, 23:16 */
#define EUSRV_AXIDMA_SR_THRESH_MASK	0x00ff0000U
#define EUSRV_AXIDMA_SR_DELAY_SHIFT	24		/* IRQDelaySts, 31:24 */
#define EUSRV_AXIDMA_SR_DELAY_MASK	0xff000000U

/*
 * The delay timer counts in units of 125 periods of the scatter-gather
 * clock (PG021); the virtual board's clock is 125 MHz, so one unit is 1 us.
 * IRQDelay = 0 disables the timer.  IRQThreshold = 0 acts as 1 (and counts
 * as a programming error).
 */
#define EUSRV_AXIDMA_DELAY_TICK_NS	1000U

/* ---- Virtual-board registers (not on silicon) -------------------------- */

#define EUSRV_AXIDMA_VB_MM2S		0x800	/* transmit channel's VB registers */
#define EUSRV_AXIDMA_VB_S2MM		0x820	/* receive channel's VB registers */
#define EUSRV_AXIDMA_VB_SR_CLR	0x00	/* node: DMASR bits to clear */
#define EUSRV_AXIDMA_VB_SR_CLR_SEQ	0x04	/* node: +1 per clear request */
#define EUSRV_AXIDMA_VB_BAD_CNT	0x10	/* model: programming errors seen */
#define EUSRV_AXIDMA_VB_BAD_LAST	0x14	/* model: last EUSRV_AXIDMA_BAD_* */
#define EUSRV_AXIDMA_VB_INJ_CNT	0x18	/* model: errors injected (tests) */

/* Page offsets of the same, per channel. */
/* 0x800 0x804 0x810 (MM2S), 0x820 0x824 0x830 (S2MM) */
#define EUSRV_AXIDMA_SR_CLR	(EUSRV_AXIDMA_VB_MM2S + EUSRV_AXIDMA_VB_SR_CLR)
#define EUSRV_AXIDMA_SR_CLR_SEQ	(EUSRV_AXIDMA_VB_MM2S + EUSRV_AXIDMA_VB_SR_CLR_SEQ)
#define EUSRV_AXIDMA_BAD_CNT	(EUSRV_AXIDMA_VB_MM2S + EUSRV_AXIDMA_VB_BAD_CNT)
#define EUSRV_AXIDMA_RX_SR_CLR	(EUSRV_AXIDMA_VB_S2MM + EUSRV_AXIDMA_VB_SR_CLR)
#define EUSRV_AXIDMA_RX_SR_CLR_SEQ	(EUSRV_AXIDMA_VB_S2MM + EUSRV_AXIDMA_VB_SR_CLR_SEQ)
#define EUSRV_AXIDMA_RX_BAD_CNT	(EUSRV_AXIDMA_VB_S2MM + EUSRV_AXIDMA_VB_BAD_CNT)

/* Programming errors (BAD_LAST); they never stop the engine by themselves. */
#define EUSRV_AXIDMA_BAD_NONE		0U
#define EUSRV_AXIDMA_BAD_CR		1U	/* reserved/unsupported DMACR bits */
#define EUSRV_AXIDMA_BAD_THRESH	2U	/* IRQThreshold 0 (used as 1) */
#define EUSRV_AXIDMA_BAD_CURDESC	3U	/* CURDESC bits 5:0 set (ignored) */
#define EUSRV_AXIDMA_BAD_TAILDESC	4U	/* TAILDESC bits 5:0 set (ignored) */
#define EUSRV_AXIDMA_BAD_SR_CLR	5U	/* SR_CLR bits other than IRQ bits */
#define EUSRV_AXIDMA_BAD_NO_SOF	6U	/* MM2S frame's first desc lacks TXSOF */
#define EUSRV_AXIDMA_BAD_SR_W1C	7U	/* DMASR written with bits other than IRQ bits */
#define EUSRV_AXIDMA_BAD_VB_ACK	8U	/* SR_CLR used where only PG021's ack is */

/* ---- Descriptors ------------------------------------------------------- */

/*
 * A 64-byte aligned descriptor in the node's RAM, little-endian.  NXTDESC
 * and BUFFER_ADDRESS are global addresses (bits 5:0 of NXTDESC ignored);
 * buffers have no alignment requirement.
 */
struct eusrv_axidma_desc {
	__le32 next;		/* 0x00 NXTDESC */
	__le32 next_msb;	/* 0x04 NXTDESC_MSB */
	__le32 buf;		/* 0x08 BUFFER_ADDRESS */
	__le32 buf_msb;		/* 0x0c BUFFER_ADDRESS_MSB */
	__le32 rsvd[2];		/* 0x10, 0x14 */
	__le32 ctrl;		/* 0x18 CONTROL: node */
	__le32 status;		/* 0x1c STATUS: node writes 0, engine fills */
	__le32 app[5];		/* 0x20..0x30 APP0..APP4 */
	__le32 pad[3];		/* 0x34..0x3f: the driver's own use */
};

#define EUSRV_AXIDMA_DESC_ALIGN	64U
#define EUSRV_AXIDMA_DESC_NEXT	0x00
#define EUSRV_AXIDMA_DESC_NEXT_MSB	0x04
#define EUSRV_AXIDMA_DESC_BUF		0x08
#define EUSRV_AXIDMA_DESC_BUF_MSB	0x0c
#define EUSRV_AXIDMA_DESC_CTRL	0x18
#define EUSRV_AXIDMA_DESC_STATUS	0x1c
#define EUSRV_AXIDMA_DESC_APP(i)	(0x20 + 4 * (i))

/*
 * Buffer length width (c_sg_length_width, "xlnx,sg-length-width"): 23
 * bits, as Linux's default; CONTROL bits 25:23 are ignored.  At most
 * EUSRV_AXIDMA_MAX_LEN bytes per descriptor.
 */
#define EUSRV_AXIDMA_SG_LEN_WIDTH	23U
#define EUSRV_AXIDMA_MAX_LEN		((1U << EUSRV_AXIDMA_SG_LEN_WIDTH) - 1)

/* CONTROL (node) */
#define EUSRV_AXIDMA_CTRL_LEN		0x03ffffffU	/* 25:0, bits above 22 ignored */
#define EUSRV_AXIDMA_CTRL_EOF		_BITUL(26)	/* TXEOF: last buffer of a frame */
#define EUSRV_AXIDMA_CTRL_SOF		_BITUL(27)	/* TXSOF: first buffer of a frame */

/* STATUS (engine; the node must write 0 before handing a descriptor over) */
#define EUSRV_AXIDMA_ST_LEN		0x03ffffffU	/* bytes transferred */
#define EUSRV_AXIDMA_ST_RXEOF		_BITUL(26)	/* S2MM: last buffer of a frame */
#define EUSRV_AXIDMA_ST_RXSOF		_BITUL(27)	/* S2MM: first buffer of a frame */
#define EUSRV_AXIDMA_ST_INTERR	_BITUL(28)
#define EUSRV_AXIDMA_ST_SLVERR	_BITUL(29)
#define EUSRV_AXIDMA_ST_DECERR	_BITUL(30)
#define EUSRV_AXIDMA_ST_CMPLT		_BITUL(31)
#define EUSRV_AXIDMA_ST_ERR		0x70000000U

/*
 * Frames: a frame is the descriptors from one with SOF to the next with
 * EOF.  MM2S takes at most EUSRV_AXIDMA_MAX_FRAME_DESC descriptors per frame
 * (more is DMAIntErr); S2MM spreads a frame over as many free descriptors
 * as it needs, up to the same limit (more: the frame is dropped).
 */
#define EUSRV_AXIDMA_MAX_FRAME_DESC	64U

/*
 * APP words on transmit (read from the frame's SOF descriptor), as Xilinx
 * AXI Ethernet's partial checksum offload:
 *   APP0 bit 0: insert a checksum (honoured when the MAC port's
 *               EUSRV_MAC_CTRL_TX_CSUM is set);
 *   APP1: (csum_start << 16) | csum_insert, byte offsets from the start of
 *         the frame.  The MAC computes the 16-bit ones'-complement sum of
 *         the frame's bytes from csum_start to its end (big-endian 16-bit
 *         words, RFC 1071; the 16 bits at csum_insert are included as they
 *         are, i.e. Linux's pseudo-header seed), folds it, complements it
 *         and stores it big-endian at csum_insert; a result of 0 is stored
 *         as 0xffff.  Linux: csum_start = skb_checksum_start_offset(skb),
 *         csum_insert = csum_start + skb->csum_offset.  A request with
 *         csum_start > csum_insert or csum_insert + 2 > frame length is not
 *         performed and counted in EUSRV_MAC_TX_CSUM_BAD.
 *
 * APP words on receive (written to the frame's RXEOF descriptor):
 *   APP0..APP1: 0;
 *   APP2 bit 0: APP3 holds a checksum (the port's EUSRV_MAC_CTRL_RX_CSUM
 *               is set and the frame is at least 14 bytes long);
 *   APP3 bits 15:0: the ones'-complement sum (folded, not complemented) of
 *               the frame's bytes from offset 14 (after the Ethernet
 *               header) to its end, as big-endian 16-bit words (an odd
 *               last byte is padded with a zero byte).  This is what Linux
 *               needs for CHECKSUM_COMPLETE after eth_type_trans():
 *               skb->csum = (__force __wsum)htons(APP3 & 0xffff);
 *   APP4 bits 15:0: the frame's length in bytes.
 */
#define EUSRV_AXIDMA_APP0_TX_CSUM	_BITUL(0)
#define EUSRV_AXIDMA_APP1_CSUM_START_SHIFT	16
#define EUSRV_AXIDMA_APP1_CSUM_INSERT_MASK	0xffffU
#define EUSRV_AXIDMA_APP2_RX_CSUM_VALID	_BITUL(0)
#define EUSRV_AXIDMA_APP3_RX_CSUM_MASK	0xffffU
#define EUSRV_AXIDMA_APP4_RX_LEN_MASK		0xffffU
#define EUSRV_AXIDMA_RX_CSUM_START		14U	/* Ethernet header length */

#endif /* EUSRV_AXIDMA_HW_H */
