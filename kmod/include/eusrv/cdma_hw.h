/* SPDX-License-Identifier: (GPL-2.0 OR MIT) */
/*
 * The node's AXI CDMA engine: Xilinx AXI CDMA (PG034) with scatter-gather,
 * the sockets-over-RDMA data mover of D4.2 section 3.3.  It copies between
 * any attached nodes' RAM through the board's global address space and
 * writes 8-byte mailbox messages into any node's INBOX (the notifications
 * that follow the data).  docs/hardware.md, "The AXI CDMA block", is the
 * prose version of this file.
 *
 * Register page EUSRV_PAGE_CDMA of the node's window (board_hw.h); it
 * raises and is kicked on EUSRV_VEC_CDMA.
 *
 * Virtual-board conventions (as for the AXI DMA block, axidma_hw.h):
 *  - writers: the node writes CDMACR, CURDESC, TAILDESC, SA, DA, BTT and
 *    the SR_CLR, SR_CLR_SEQ and SIMPLE_SEQ registers; the model writes
 *    CDMASR and the other virtual-board registers.  Two exceptions, both
 *    at times when the node writes nothing but waits: (1) a reset
 *    (CDMACR.Reset, then a kick) is completed by the model, which writes
 *    CURDESC and TAILDESC (both halves) to 0 and then CDMACR to
 *    EUSRV_CDMA_CR_RESET_VALUE; the node writes no register until it reads
 *    CDMACR.Reset as 0.  (2) When an error halts the engine, the model
 *    writes the failing descriptor's address to CURDESC (PG034); the node
 *    then writes nothing but SR_CLR/SR_CLR_SEQ and CDMACR.Reset.
 *  - after writing TAILDESC (MSB first, low word last), after writing
 *    CDMACR, and after SIMPLE_SEQ the node kicks EUSRV_VEC_CDMA.
 *  - write-1-to-clear of CDMASR's interrupt bits 14:12: the node writes the
 *    bits to SR_CLR, then increments SR_CLR_SEQ, then kicks; the model
 *    applies CDMASR &= ~(SR_CLR & IRQ bits) once per change of SR_CLR_SEQ.
 *  - the engine does not update CURDESC while it runs (only on an error);
 *    software follows progress through the descriptors' Cmplt bits.
 *  - a TAILDESC write is seen as a change of its value: a kick with
 *    TAILDESC equal to the pause point starts nothing, so software hands
 *    over at most ring size - 1 descriptors of a ring at a time.
 *
 * All addresses the engine uses (CURDESC, TAILDESC, NXTDESC, SA, DA) are
 * 48-bit global addresses (EUSRV_GA(node, local)); a node's own RAM is
 * EUSRV_GA(self, phys).  Descriptors must be in the node's own RAM; data
 * may be in any attached node's RAM, and a destination may also be a
 * node's mailbox INBOX (EUSRV_MBOX_INBOX_GA(n), 8 bytes, 8-byte aligned).
 */
#ifndef EUSRV_CDMA_HW_H
#define EUSRV_CDMA_HW_H

#include <linux/const.h>
#include <linux/types.h>

/* ---- Registers (PG034 offsets) ----------------------------------------- */

#define EUSRV_CDMA_CR			0x00	/* node: CDMACR */
#define EUSRV_CDMA_SR			0x04	/* model: CDMASR */
#define EUSRV_CDMA_CURDESC		0x08	/* node: first descriptor, 31:6 */
#define EUSRV_CDMA_CURDESC_MSB		0x0c	/* node: address bits 63:32 */
#define EUSRV_CDMA_TAILDESC		0x10	/* node: last descriptor, 31:6 */
#define EUSRV_CDMA_TAILDESC_MSB		0x14	/* node: address bits 63:32 */
#define EUSRV_CDMA_SA			0x18	/* node: simple mode source */
#define EUSRV_CDMA_SA_MSB		0x1c
#define EUSRV_CDMA_DA			0x20	/* node: simple mode destination */
#define EUSRV_CDMA_DA_MSB		0x24
#define EUSRV_CDMA_BTT			0x28	/* node: simple mode length */

/* CDMACR */
#define EUSRV_CDMA_CR_TAILPEN		_BITUL(1)	/* read-only on silicon: ignored */
#define EUSRV_CDMA_CR_RESET		_BITUL(2)	/* soft reset, model clears it */
#define EUSRV_CDMA_CR_SGMODE		_BITUL(3)	/* scatter-gather mode */
#define EUSRV_CDMA_CR_KEYHOLE_RD	_BITUL(4)	/* not supported: BAD, ignored */
#define EUSRV_CDMA_CR_KEYHOLE_WR	_BITUL(5)	/* not supported: BAD, ignored */
#define EUSRV_CDMA_CR_CYCLIC		_BITUL(6)	/* not supported: BAD, ignored */
#define EUSRV_CDMA_CR_IOC_IRQEN		_BITUL(12)
#define EUSRV_CDMA_CR_DLY_IRQEN		_BITUL(13)
#define EUSRV_CDMA_CR_ERR_IRQEN		_BITUL(14)
#define EUSRV_CDMA_CR_IRQEN_ALL		0x7000U
#define EUSRV_CDMA_CR_THRESH_SHIFT	16		/* IRQThreshold, 23:16 */
#define EUSRV_CDMA_CR_THRESH_MASK	0x00ff0000U
#define EUSRV_CDMA_CR_DELAY_SHIFT	24		/* IRQDelay, 31:24 */
#define EUSRV_CDMA_CR_DELAY_MASK	0xff000000U
#define EUSRV_CDMA_CR_VALID		(EUSRV_CDMA_CR_TAILPEN | EUSRV_CDMA_CR_RESET | \
					 EUSRV_CDMA_CR_SGMODE | EUSRV_CDMA_CR_IRQEN_ALL | \
					 EUSRV_CDMA_CR_THRESH_MASK | \
					 EUSRV_CDMA_CR_DELAY_MASK)
/* CDMACR after reset (PG034): simple mode, threshold 1, no delay. */
#define EUSRV_CDMA_CR_RESET_VALUE	0x00010000U

/* CDMASR */
#define EUSRV_CDMA_SR_IDLE		_BITUL(1)	/* nothing to do (or halted: 0) */
#define EUSRV_CDMA_SR_SGINCLD		_BITUL(3)	/* always 1 */
#define EUSRV_CDMA_SR_DMA_INT_ERR	_BITUL(4)	/* length 0 or > MAX_LEN */
#define EUSRV_CDMA_SR_DMA_SLV_ERR	_BITUL(5)	/* mailbox refused the write */
#define EUSRV_CDMA_SR_DMA_DEC_ERR	_BITUL(6)	/* data address decodes to nothing */
#define EUSRV_CDMA_SR_SG_INT_ERR	_BITUL(8)	/* stale or misaligned descriptor */
#define EUSRV_CDMA_SR_SG_SLV_ERR	_BITUL(9)	/* never on the virtual board */
#define EUSRV_CDMA_SR_SG_DEC_ERR	_BITUL(10)	/* descriptor outside own RAM */
#define EUSRV_CDMA_SR_IOC_IRQ		_BITUL(12)
#define EUSRV_CDMA_SR_DLY_IRQ		_BITUL(13)
#define EUSRV_CDMA_SR_ERR_IRQ		_BITUL(14)
#define EUSRV_CDMA_SR_ERR_ALL		0x0770U
#define EUSRV_CDMA_SR_IRQ_ALL		0x7000U
#define EUSRV_CDMA_SR_THRESH_SHIFT	16		/* IRQThresholdSts, 23:16 */
#define EUSRV_CDMA_SR_THRESH_MASK	0x00ff0000U
#define EUSRV_CDMA_SR_DELAY_SHIFT	24		/* IRQDelaySts, 31:24 */
#define EUSRV_CDMA_SR_DELAY_MASK	0xff000000U

/*
 * The delay timer counts in units of 125 periods of the scatter-gather
 * clock (PG034); the virtual board's SG clock is 125 MHz, so one unit is
 * 1 us.  IRQDelay = 0 disables it; IRQThreshold = 0 acts as 1 (BAD).
 */
#define EUSRV_CDMA_DELAY_TICK_NS	1000U

/* ---- Virtual-board registers (not on silicon) -------------------------- */

#define EUSRV_CDMA_SR_CLR		0x800	/* node: CDMASR bits to clear */
#define EUSRV_CDMA_SR_CLR_SEQ		0x804	/* node: +1 per clear request */
#define EUSRV_CDMA_SIMPLE_SEQ		0x808	/* node: +1 per simple-mode transfer */
#define EUSRV_CDMA_BAD_CNT		0x810	/* model: programming errors seen */
#define EUSRV_CDMA_BAD_LAST		0x814	/* model: last EUSRV_CDMA_BAD_* */
#define EUSRV_CDMA_WAIT_CNT		0x818	/* model: mailbox writes that met a full FIFO */
#define EUSRV_CDMA_DESC_CNT		0x81c	/* model: descriptors completed */
#define EUSRV_CDMA_BYTES		0x820	/* u64 model: data bytes copied */
#define EUSRV_CDMA_MSG_CNT		0x828	/* model: mailbox messages written */
#define EUSRV_CDMA_ERR_CNT		0x82c	/* model: errors that halted the engine */
#define EUSRV_CDMA_ID			0x830	/* model: EUSRV_CDMA_ID_VALUE */
#define EUSRV_CDMA_MSG_CTRL		0x834	/* node: EUSRV_CDMA_MSG_* */
#define EUSRV_CDMA_REFUSED_CNT		0x838	/* model: mailbox writes refused at once */
#define EUSRV_CDMA_SKIPPED_CNT		0x83c	/* model: conditional writes skipped (COND) */

/*
 * MSG_CTRL.NOWAIT, beyond D4.2 (as the mailbox's NOWAIT stores): a mailbox
 * write that finds a FIFO full waits at most MAXWAIT milliseconds (bits
 * 15:8; 0: not at all), not EUSRV_MBOX_STORE_TIMEOUT_MS with every later
 * transfer of the engine behind it, and is then refused as a slave error
 * (DMASlvErr, the engine halts at that descriptor: PG034).  Software then
 * sends the message another way.
 */
#define EUSRV_CDMA_MSG_NOWAIT		_BITUL(0)
#define EUSRV_CDMA_MSG_MAXWAIT_SHIFT	8
#define EUSRV_CDMA_MSG_MAXWAIT_MS(ctrl)	(((ctrl) >> EUSRV_CDMA_MSG_MAXWAIT_SHIFT) & 0xffU)

#define EUSRV_CDMA_ID_VALUE		0x43440001U	/* "CD", version 1 */

/* Programming errors (BAD_LAST); they never stop the engine by themselves. */
#define EUSRV_CDMA_BAD_NONE		0U
#define EUSRV_CDMA_BAD_CR		1U	/* reserved or unsupported CDMACR bits */
#define EUSRV_CDMA_BAD_THRESH		2U	/* IRQThreshold 0 (used as 1) */
#define EUSRV_CDMA_BAD_TAILDESC		3U	/* TAILDESC bits 5:0 set (ignored) */
#define EUSRV_CDMA_BAD_SR_CLR		4U	/* SR_CLR bits other than 14:12 */
#define EUSRV_CDMA_BAD_HALTED		5U	/* work handed over while halted */
#define EUSRV_CDMA_BAD_SIMPLE		6U	/* SIMPLE_SEQ in SG mode or while busy */
#define EUSRV_CDMA_BAD_SR_W1C		7U	/* CDMASR written with bits other than 14:12 */
#define EUSRV_CDMA_BAD_VB_ACK		8U	/* SR_CLR used where only PG034's ack is */

/* ---- Descriptors ------------------------------------------------------- */

/*
 * A 64-byte aligned descriptor in the node's own RAM, little-endian.  The
 * engine reads 0x00..0x1b and writes STATUS; 0x20..0x3f is the software's
 * (D4.2 keeps the 8-byte mailbox messages there).
 */
struct eusrv_cdma_desc {
	__le32 next;		/* 0x00 NXTDESC, 64-byte aligned */
	__le32 next_msb;	/* 0x04 NXTDESC_MSB */
	__le32 sa;		/* 0x08 source address */
	__le32 sa_msb;		/* 0x0c */
	__le32 da;		/* 0x10 destination address */
	__le32 da_msb;		/* 0x14 */
	__le32 ctrl;		/* 0x18 CONTROL: bytes to transfer */
	__le32 status;		/* 0x1c STATUS: node writes 0, engine fills */
	__le64 sw[4];		/* 0x20..0x3f: the software's own use */
};

#define EUSRV_CDMA_DESC_SIZE		64U
#define EUSRV_CDMA_DESC_ALIGN		64U
#define EUSRV_CDMA_DESC_NEXT		0x00
#define EUSRV_CDMA_DESC_NEXT_MSB	0x04
#define EUSRV_CDMA_DESC_SA		0x08
#define EUSRV_CDMA_DESC_SA_MSB		0x0c
#define EUSRV_CDMA_DESC_DA		0x10
#define EUSRV_CDMA_DESC_DA_MSB		0x14
#define EUSRV_CDMA_DESC_CTRL		0x18
#define EUSRV_CDMA_DESC_STATUS		0x1c
#define EUSRV_CDMA_DESC_SW		0x20

/*
 * CONTROL: bytes to transfer, the full 26-bit BTT width of PG034 (Buffer
 * Length Register width 26).  0, or any bit above 25 set, is DMAIntErr,
 * but for COND.
 */
#define EUSRV_CDMA_LEN_WIDTH		26U
#define EUSRV_CDMA_MAX_LEN		((1U << EUSRV_CDMA_LEN_WIDTH) - 1)
/*
 * CONTROL bit 31, COND, beyond PG034 and D4.2 (docs/hardware.md 5.3): a
 * mailbox write that happens only if the 32-bit word at the global
 * address in the descriptor's last 8 bytes (COND_ADDR, 0x38) is non-zero.
 * The engine swaps the word with 0 atomically, after every earlier
 * descriptor of the chain, and writes the message only if it was set, so
 * a receiver can ask for the next notification by setting a word in its
 * own memory, no message needed.  COND on anything but a mailbox write is
 * DMAIntErr; a COND_ADDR that is not 4-byte aligned RAM is DMADecErr.
 */
#define EUSRV_CDMA_CTL_COND		_BITUL(31)
#define EUSRV_CDMA_DESC_COND_ADDR	0x38

/*
 * STATUS, written once by the engine when it is done with the descriptor:
 * Cmplt, plus one error bit if the transfer failed (a DMA error).  SG
 * errors (stale or misaligned descriptor, descriptor outside own RAM)
 * leave the descriptor untouched.  PG034's CDMA status has no byte count.
 */
#define EUSRV_CDMA_ST_INTERR		_BITUL(28)
#define EUSRV_CDMA_ST_SLVERR		_BITUL(29)
#define EUSRV_CDMA_ST_DECERR		_BITUL(30)
#define EUSRV_CDMA_ST_CMPLT		_BITUL(31)
#define EUSRV_CDMA_ST_ERR		0x70000000U

#endif /* EUSRV_CDMA_HW_H */
