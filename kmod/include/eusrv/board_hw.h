/* SPDX-License-Identifier: (GPL-2.0 OR MIT) */
/*
 * The virtual EUROSERVER board: address map, register pages and the mailbox
 * block.  Shared by the board model (user space) and the drivers (kernel);
 * docs/hardware.md is the prose version of this file.
 *
 * Every register in a page that lives in ivshmem shared memory has exactly one
 * writer, named in its comment: "node" (the node's driver) or "model" (the
 * board model).  Stores from a node are not trapped, so registers that start
 * hardware work are followed by a kick (EUSRV_KICK_*), and everything that
 * would be read-to-clear or write-1-to-clear on silicon is expressed as
 * free-running counters instead.  All fields are little-endian and naturally
 * aligned; 64-bit fields are written with a single 64-bit store.
 */
#ifndef EUSRV_BOARD_HW_H
#define EUSRV_BOARD_HW_H

#include <linux/const.h>
#include <linux/types.h>

/* ---- Board ------------------------------------------------------------ */

#define EUSRV_MAX_NODES			16U

/*
 * Global (UNIMEM-style) addresses: node number in bits 47:40, node-local
 * address below.  Node-local addresses below the node's RAM size are RAM;
 * EUSRV_GA_BLOCKS + offset reaches the node's register window (the same
 * layout as its ivshmem window below).  Anything else decodes to nothing.
 */
#define EUSRV_GA_NODE_SHIFT		40
#define EUSRV_GA_NODE_MASK		0xffULL
#define EUSRV_GA_LOCAL_MASK		((1ULL << EUSRV_GA_NODE_SHIFT) - 1)
#define EUSRV_GA_BLOCKS			0x8000000000ULL	/* 512 GiB */
#define EUSRV_GA(node, local) \
	(((__u64)(node) << EUSRV_GA_NODE_SHIFT) | ((__u64)(local) & EUSRV_GA_LOCAL_MASK))
#define EUSRV_GA_NODE(ga)	\
	((unsigned int)(((ga) >> EUSRV_GA_NODE_SHIFT) & EUSRV_GA_NODE_MASK))
#define EUSRV_GA_LOCAL(ga)		((ga) & EUSRV_GA_LOCAL_MASK)

/* ---- ivshmem plumbing (virtual board only) ----------------------------- */

/* PCI 1af4:1110; BAR0 registers, BAR1 MSI-X, BAR2 the shared memory. */
#define EUSRV_IVSHMEM_VENDOR		0x1af4
#define EUSRV_IVSHMEM_DEVICE		0x1110
#define EUSRV_IVSHMEM_REG_INTRMASK	0x00
#define EUSRV_IVSHMEM_REG_INTRSTATUS	0x04
#define EUSRV_IVSHMEM_REG_IVPOSITION	0x08
#define EUSRV_IVSHMEM_REG_DOORBELL	0x0c

/* Node n has ivshmem peer id n; the board model is this peer. */
#define EUSRV_MODEL_PEER		64U
#define EUSRV_DOORBELL(peer, vector)	(((__u32)(peer) << 16) | ((vector) & 0xffU))

/* MSI-X vectors of a node, one per block; also the kick vector numbers. */
#define EUSRV_VEC_MBOX			0U
#define EUSRV_VEC_CDMA			1U
#define EUSRV_VEC_DMA_MM2S		2U
#define EUSRV_VEC_DMA_S2MM		3U
#define EUSRV_VEC_MAC			4U
#define EUSRV_NR_VECTORS		8U

/* The kick: a doorbell to the model's peer id, vector = the block's vector. */
#define EUSRV_KICK(vector)		EUSRV_DOORBELL(EUSRV_MODEL_PEER, vector)

/*
 * BAR2 holds one 64 KiB window per node (all nodes map all windows; a
 * node's drivers touch only their own).  Inside a window, 4 KiB pages.
 */
#define EUSRV_BAR2_SIZE			0x100000U	/* 1 MiB */
#define EUSRV_NODE_WINDOW		0x10000U
#define EUSRV_NODE_WINDOW_OFF(node)	((node) * EUSRV_NODE_WINDOW)
#define EUSRV_PAGE_INFO			0x0000U
#define EUSRV_PAGE_MBOX			0x1000U
#define EUSRV_PAGE_CDMA			0x2000U
#define EUSRV_PAGE_DMA			0x3000U
#define EUSRV_PAGE_MAC			0x4000U
#define EUSRV_PAGE_SIZE			0x1000U

/* ---- Board information page (all fields written by the model) ---------- */

#define EUSRV_INFO_MAGIC		0x00	/* u32 EUSRV_INFO_MAGIC_VALUE */
#define EUSRV_INFO_VERSION		0x04	/* u32 EUSRV_INFO_VERSION_VALUE */
#define EUSRV_INFO_NODE_ID		0x08	/* u32 this window's node */
#define EUSRV_INFO_NODE_COUNT		0x0c	/* u32 nodes on the board */
#define EUSRV_INFO_RAM_SIZE		0x10	/* u64 node RAM bytes */
#define EUSRV_INFO_MODEL_PEER		0x18	/* u32 EUSRV_MODEL_PEER */
#define EUSRV_INFO_BLOCKS		0x1c	/* u32 EUSRV_BLOCK_* present */
#define EUSRV_INFO_NODES_UP		0x20	/* u32 bitmap of attached nodes */

#define EUSRV_INFO_MAGIC_VALUE		0x56535545U	/* "EUSV" */
#define EUSRV_INFO_VERSION_VALUE	1U
#define EUSRV_BLOCK_MBOX		_BITUL(0)
#define EUSRV_BLOCK_CDMA		_BITUL(1)	/* AXI CDMA, cdma_hw.h */
#define EUSRV_BLOCK_DMA			_BITUL(2)	/* AXI DMA, axidma_hw.h */
#define EUSRV_BLOCK_MAC			_BITUL(3)	/* shared MAC port, mac_hw.h */

/* ---- Mailbox block (EUSRV_PAGE_MBOX) ----------------------------------- */

/*
 * Messages are 64 bits: type in 63:60, connection id in 59:48 (D4.2 3.3),
 * the rest is the type's payload; the block does not interpret them.  The
 * inbound FIFO stamps each entry with the sender's node id, which the
 * interconnect knows and the sender cannot forge.
 */
#define EUSRV_MBOX_FIFO_DEPTH		64U	/* inbound FIFO entries */
#define EUSRV_MBOX_TXQ_DEPTH		64U	/* outbound (posted store) queue */

#define EUSRV_MBOX_ID			0x000	/* model: EUSRV_MBOX_ID_VALUE */
#define EUSRV_MBOX_FIFO_SIZE		0x004	/* model: EUSRV_MBOX_FIFO_DEPTH */
#define EUSRV_MBOX_TXQ_SIZE		0x008	/* model: EUSRV_MBOX_TXQ_DEPTH */
#define EUSRV_MBOX_CTRL			0x00c	/* node: EUSRV_MBOX_CTRL_* */
#define EUSRV_MBOX_RX_PROD		0x010	/* model: entries ever enqueued */
#define EUSRV_MBOX_RX_CONS		0x014	/* node: entries ever consumed */
#define EUSRV_MBOX_FULL_CNT		0x018	/* model: "FIFO full" events */
#define EUSRV_MBOX_RX_STALLED		0x01c	/* model: 1 while a sender waits */
#define EUSRV_MBOX_TX_PROD		0x020	/* node: entries ever posted */
#define EUSRV_MBOX_TX_CONS		0x024	/* model: entries ever completed */
#define EUSRV_MBOX_TX_ERR_CNT		0x028	/* model: entries failed */
#define EUSRV_MBOX_TX_WAIT_CNT		0x02c	/* model: entries that had to wait */
#define EUSRV_MBOX_INBOX		0x030	/* u64, write-only: see below */
#define EUSRV_MBOX_RX_TOTAL		0x038	/* u64 model: messages delivered */
#define EUSRV_MBOX_TX_TOTAL		0x040	/* u64 model: messages sent OK */
#define EUSRV_MBOX_BAD_CNT		0x048	/* model: programming errors seen */
#define EUSRV_MBOX_BAD_LAST		0x04c	/* model: last EUSRV_MBOX_BAD_* */
#define EUSRV_MBOX_TX_BUSY_CNT		0x050	/* model: NOWAIT entries refused */
#define EUSRV_MBOX_ROOM_CNT		0x054	/* model: "room again" events */
#define EUSRV_MBOX_FIFO			0x100	/* model: inbound entries */
#define EUSRV_MBOX_TXQ			0x500	/* node: outbound entries */

#define EUSRV_MBOX_ID_VALUE		0x4d420001U	/* "MB", version 1 */

#define EUSRV_MBOX_CTRL_EN		_BITUL(0)	/* accept messages */
#define EUSRV_MBOX_CTRL_ENQ_IE		_BITUL(1)	/* "enqueue" interrupt */
#define EUSRV_MBOX_CTRL_FULL_IE		_BITUL(2)	/* "FIFO full" interrupt */
#define EUSRV_MBOX_CTRL_TXDONE_IE	_BITUL(3)	/* outbound completions */
#define EUSRV_MBOX_CTRL_ERR_IE		_BITUL(4)	/* outbound failures */
#define EUSRV_MBOX_CTRL_ROOM_IE		_BITUL(5)	/* a refusing FIFO has room */
#define EUSRV_MBOX_CTRL_VALID		0x3fU

/*
 * Inbound FIFO entry i lives at EUSRV_MBOX_FIFO + (i % DEPTH) * 16.  The
 * model fills entries, then advances RX_PROD; the node reads entries
 * between RX_CONS and RX_PROD, then advances RX_CONS, issues a full barrier
 * and, if RX_STALLED is set, kicks EUSRV_VEC_MBOX so that waiting stores are
 * retried.  The barrier pairs with the model's: it sets RX_STALLED, issues a
 * full barrier and re-reads RX_CONS before it lets a store wait.
 */
struct eusrv_mbox_fifo_entry {
	__u64 msg;
	__u16 src_node;
	__u16 reserved0;
	__u32 reserved1;
};

/*
 * Outbound queue entry i lives at EUSRV_MBOX_TXQ + (i % DEPTH) * 32.  On
 * silicon a node sends by a 64-bit store of the message to the global
 * address of the destination's EUSRV_MBOX_INBOX register (or by a DMA
 * write there).  Stores cannot be trapped on the virtual board, so the node
 * posts {addr, data} here with status PENDING, advances TX_PROD and kicks;
 * the model performs the store and writes the status back before advancing
 * TX_CONS.  A store to a full FIFO waits (back-pressure, counted in
 * TX_WAIT_CNT and FULL_CNT) until the FIFO drains or
 * EUSRV_MBOX_STORE_TIMEOUT_MS passes, then fails with STATUS_FULL.
 *
 * Beyond D4.2, so that one stalled node cannot hold up a sender's stores
 * to every other node: an entry with flag NOWAIT is refused at once
 * (STATUS_BUSY) instead of waiting on a full FIFO, and the refusal sticks
 * to the pair: every later NOWAIT entry of this node for that destination
 * is refused too, FIFO room or not, until one carries RESUME (which is
 * then performed if there is room, else refused in turn).  So the pair's
 * order survives: software keeps the refused messages and posts them
 * again, the first with RESUME.  When a destination that refused this
 * node has room again, ROOM_CNT increments (interrupt ROOM_IE); a refused
 * entry that meets a destination with room counts as such an event too.
 */
struct eusrv_mbox_txq_entry {
	__u64 addr;		/* global address of the target INBOX */
	__u64 data;		/* the message */
	__u32 status;		/* node writes PENDING, model the result */
	__u32 flags;		/* node: EUSRV_MBOX_TXF_* */
	__u64 reserved1;
};

#define EUSRV_MBOX_TXF_NOWAIT		_BITUL(0)	/* refuse, never wait */
#define EUSRV_MBOX_TXF_RESUME		_BITUL(1)	/* lift the pair's refusal */
#define EUSRV_MBOX_TXF_VALID		0x3U

#define EUSRV_MBOX_ST_PENDING		0U
#define EUSRV_MBOX_ST_OK		1U
#define EUSRV_MBOX_ST_FULL		2U	/* timed out on a full FIFO */
#define EUSRV_MBOX_ST_DECERR		3U	/* no such node or register */
#define EUSRV_MBOX_ST_DISABLED		4U	/* destination not enabled */
#define EUSRV_MBOX_ST_BUSY		5U	/* NOWAIT: refused, not performed */

#define EUSRV_MBOX_STORE_TIMEOUT_MS	500U

/*
 * Programming errors the model detects (counted in BAD_CNT, latest code in
 * BAD_LAST, logged rate-limited).  The block keeps running: bad CTRL bits
 * are ignored, an impossible RX_CONS makes the FIFO count as full until the
 * node writes a sane value, an impossible TX_PROD is not acted on until the
 * node writes a sane value, an unknown kick vector is dropped.
 */
#define EUSRV_MBOX_BAD_NONE		0U
#define EUSRV_MBOX_BAD_CTRL		1U	/* reserved CTRL bits set */
#define EUSRV_MBOX_BAD_RX_CONS		2U	/* RX_CONS outside [PROD-DEPTH, PROD] */
#define EUSRV_MBOX_BAD_TX_PROD		3U	/* TX_PROD outside [CONS, CONS+DEPTH] */
#define EUSRV_MBOX_BAD_KICK		4U	/* kick on a vector with no block */
#define EUSRV_MBOX_BAD_TX_FLAGS		5U	/* unknown outbound entry flags */

/* Global address of node n's inbox register. */
#define EUSRV_MBOX_INBOX_GA(node) \
	EUSRV_GA(node, EUSRV_GA_BLOCKS + EUSRV_PAGE_MBOX + EUSRV_MBOX_INBOX)

#endif /* EUSRV_BOARD_HW_H */
