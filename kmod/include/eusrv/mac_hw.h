/* SPDX-License-Identifier: (GPL-2.0 OR MIT) */
/*
 * The shared 10 GbE MAC: one MAC on the main board's FPGA that all nodes
 * share, one port per node (this page, EUSRV_PAGE_MAC of the node's window),
 * an internal switch between the ports and the line side, and one
 * clause-45 10GBASE-R PHY on the line side reached over MDIO.  Each port
 * moves its frames through the node's AXI DMA engine (axidma_hw.h).
 * docs/hardware.md, "The shared MAC and its PHY", is the prose version of this file.
 *
 * Interrupt and kick vector EUSRV_VEC_MAC.  Writers as in board_hw.h: node
 * or model; every model-written register is rewritten by the model only, so
 * a node scribbling over it changes nothing but what it reads.
 */
#ifndef EUSRV_MAC_HW_H
#define EUSRV_MAC_HW_H

#include <linux/const.h>
#include <linux/types.h>

/* ---- Identification (model) -------------------------------------------- */

#define EUSRV_MAC_ID		0x000	/* model: EUSRV_MAC_ID_VALUE */
#define EUSRV_MAC_CAPS		0x004	/* model: EUSRV_MAC_CAP_* */
#define EUSRV_MAC_PORT		0x008	/* model: 7:0 this port, 15:8 ports */
#define EUSRV_MAC_MTU_MAX	0x00c	/* model: largest MTU accepted (9000) */

#define EUSRV_MAC_ID_VALUE	0x4d430001U	/* "MC", version 1 */
#define EUSRV_MAC_CAP_TX_CSUM	_BITUL(0)	/* partial TX checksum offload */
#define EUSRV_MAC_CAP_RX_CSUM	_BITUL(1)	/* RX checksum in APP3 */
#define EUSRV_MAC_CAP_JUMBO	_BITUL(2)	/* MTU up to EUSRV_MAC_MTU_MAX */
#define EUSRV_MAC_CAP_MDIO	_BITUL(3)	/* clause-45 MDIO */
#define EUSRV_MAC_CAP_LINE	_BITUL(4)	/* a line-side peer is connected */

/* ---- Port control (node) ----------------------------------------------- */

#define EUSRV_MAC_CTRL		0x010	/* node: EUSRV_MAC_CTRL_* */
#define EUSRV_MAC_MTU		0x014	/* node: MTU in bytes, 68..MTU_MAX */
#define EUSRV_MAC_ADDR_LO	0x018	/* node: address bytes 0..3, byte 0 in 7:0 */
#define EUSRV_MAC_ADDR_HI	0x01c	/* node: address bytes 4..5 in 15:0 */

#define EUSRV_MAC_CTRL_RX_EN	_BITUL(0)	/* deliver frames to the port */
#define EUSRV_MAC_CTRL_TX_EN	_BITUL(1)	/* take frames from the port */
#define EUSRV_MAC_CTRL_PROMISC	_BITUL(2)	/* every frame the switch carries */
#define EUSRV_MAC_CTRL_ALLMULTI	_BITUL(3)	/* multicast frames */
#define EUSRV_MAC_CTRL_TX_CSUM	_BITUL(4)	/* honour APP0 checksum requests */
#define EUSRV_MAC_CTRL_RX_CSUM	_BITUL(5)	/* APP2/APP3 receive checksum */
#define EUSRV_MAC_CTRL_LINK_IE	_BITUL(8)	/* interrupt on link change */
#define EUSRV_MAC_CTRL_MDIO_IE	_BITUL(9)	/* interrupt on MDIO completion */
#define EUSRV_MAC_CTRL_VALID	0x33fU

/* MTU: frames up to MTU + 18 bytes (header and one VLAN tag, no FCS). */
#define EUSRV_MAC_MTU_MIN	68U
#define EUSRV_MAC_MTU_DEFAULT	1500U
#define EUSRV_MAC_MTU_JUMBO	9000U
#define EUSRV_MAC_FRAME_OVERHEAD	18U
/* Shorter frames are padded with zeros to this length on transmit. */
#define EUSRV_MAC_FRAME_MIN	60U

/* ---- Link and interrupt status (model) --------------------------------- */

#define EUSRV_MAC_LINK		0x020	/* model: EUSRV_MAC_LINK_* */
#define EUSRV_MAC_SR		0x024	/* model: EUSRV_MAC_SR_*, W1C below */
#define EUSRV_MAC_LINK_CHANGES	0x028	/* model: link changes ever */
#define EUSRV_MAC_BAD_CNT	0x02c	/* model: programming errors seen */
#define EUSRV_MAC_BAD_LAST	0x030	/* model: last EUSRV_MAC_BAD_* */

#define EUSRV_MAC_LINK_UP	_BITUL(0)	/* the PHY's link status = carrier */
#define EUSRV_MAC_LINK_LOOPBACK	_BITUL(1)	/* PHY in PMA or PCS loopback */
#define EUSRV_MAC_LINK_PEER	_BITUL(2)	/* line-side peer connected */
#define EUSRV_MAC_SR_LINK_CHG	_BITUL(0)	/* the link changed */
#define EUSRV_MAC_SR_MDIO_DONE	_BITUL(1)	/* an MDIO command completed */
#define EUSRV_MAC_SR_ALL	0x3U

/* ---- MDIO (clause 45) -------------------------------------------------- */

#define EUSRV_MAC_MDIO_ADDR	0x040	/* node: EUSRV_MAC_MDIO_ADDR_* */
#define EUSRV_MAC_MDIO_WDATA	0x044	/* node: 15:0 data to write */
#define EUSRV_MAC_MDIO_CMD	0x048	/* node: 2:0 op, 31:16 sequence */
#define EUSRV_MAC_MDIO_RDATA	0x04c	/* model: 15:0 data read */
#define EUSRV_MAC_MDIO_DONE	0x050	/* model: 15:0 last seq done, 31 error */

#define EUSRV_MAC_MDIO_PRTAD_MASK	0x0000001fU	/* 4:0 port (PHY) address */
#define EUSRV_MAC_MDIO_DEVAD_SHIFT	8		/* 12:8 MMD */
#define EUSRV_MAC_MDIO_DEVAD_MASK	0x00001f00U
#define EUSRV_MAC_MDIO_REGAD_SHIFT	16		/* 31:16 register */
#define EUSRV_MAC_MDIO_REGAD_MASK	0xffff0000U
#define EUSRV_MAC_MDIO_ADDR_VAL(prtad, devad, regad) \
	(((__u32)(prtad) & 0x1fU) | (((__u32)(devad) & 0x1fU) << 8) | \
	 (((__u32)(regad) & 0xffffU) << 16))

#define EUSRV_MAC_MDIO_OP_MASK		0x7U
#define EUSRV_MAC_MDIO_OP_ADDRESS	0U	/* latch REGAD in the MMD */
#define EUSRV_MAC_MDIO_OP_WRITE		1U	/* write WDATA at the latched address */
#define EUSRV_MAC_MDIO_OP_READ_INC	2U	/* read, then latched address + 1 */
#define EUSRV_MAC_MDIO_OP_READ		3U	/* read at the latched address */
#define EUSRV_MAC_MDIO_OP_ADDR_WRITE	4U	/* ADDRESS then WRITE */
#define EUSRV_MAC_MDIO_OP_ADDR_READ	5U	/* ADDRESS then READ */
#define EUSRV_MAC_MDIO_SEQ_SHIFT	16
#define EUSRV_MAC_MDIO_CMD_VAL(op, seq) \
	(((__u32)(op) & 0x7U) | (((__u32)(seq) & 0xffffU) << 16))
#define EUSRV_MAC_MDIO_DONE_SEQ_MASK	0xffffU
#define EUSRV_MAC_MDIO_DONE_ERR		_BITUL(31)	/* no such PHY or MMD, bad op */

/* ---- Virtual-board registers ------------------------------------------- */

/* W1C of EUSRV_MAC_SR: write the bits to SR_CLR, increment SR_CLR_SEQ, kick. */
#define EUSRV_MAC_SR_CLR	0x800	/* node */
#define EUSRV_MAC_SR_CLR_SEQ	0x804	/* node */

#define EUSRV_MAC_BAD_NONE	0U
#define EUSRV_MAC_BAD_CTRL	1U	/* reserved CTRL bits (ignored) */
#define EUSRV_MAC_BAD_MTU	2U	/* MTU out of range (previous kept) */
#define EUSRV_MAC_BAD_MDIO_OP	3U	/* reserved MDIO op (done with error) */
#define EUSRV_MAC_BAD_SR_CLR	4U	/* SR_CLR bits that are not in SR */
#define EUSRV_MAC_BAD_KICK	5U	/* kick on a vector with no block */

/* ---- Statistics (model, 64-bit counters) ------------------------------- */

/*
 * The same set of counters three times: this port at EUSRV_MAC_STATS_PORT,
 * the whole MAC (all ports summed) at EUSRV_MAC_STATS_TOTAL; the line side
 * has its own set at EUSRV_MAC_STATS_LINE.  Offsets within a set:
 */
#define EUSRV_MAC_STATS_PORT	0x100
#define EUSRV_MAC_STATS_TOTAL	0x200
#define EUSRV_MAC_STATS_LINE	0x300

#define EUSRV_MAC_TX_FRAMES	0x00	/* frames taken from the port and switched */
#define EUSRV_MAC_TX_BYTES	0x08	/* their bytes (before padding) */
#define EUSRV_MAC_TX_OVERSIZE	0x10	/* dropped: longer than MTU + 18 */
#define EUSRV_MAC_TX_ERRORS	0x18	/* dropped: shorter than 14 bytes */
#define EUSRV_MAC_TX_DROPS	0x20	/* dropped: TX disabled or link down */
#define EUSRV_MAC_TX_CSUM	0x28	/* checksums inserted */
#define EUSRV_MAC_TX_CSUM_BAD	0x30	/* checksum requests not performed */
#define EUSRV_MAC_RX_FRAMES	0x38	/* frames delivered to the port */
#define EUSRV_MAC_RX_BYTES	0x40	/* their bytes */
#define EUSRV_MAC_RX_NODESC	0x48	/* dropped: no free S2MM descriptor */
#define EUSRV_MAC_RX_FILTERED	0x50	/* dropped by the address filter */
#define EUSRV_MAC_RX_OVERSIZE	0x58	/* dropped: longer than MTU + 18 */
#define EUSRV_MAC_RX_DROPS	0x60	/* dropped: RX disabled or link down */
#define EUSRV_MAC_RX_ERRORS	0x68	/* lost to an S2MM error */
#define EUSRV_MAC_RX_MCAST	0x70	/* multicast (incl. broadcast) delivered */
#define EUSRV_MAC_STATS_COUNT	15U

/* ---- The PHY (clause 45, include/uapi/linux/mdio.h numbers) ------------ */

#define EUSRV_PHY_ADDR		0U	/* the only PHY on the bus */
/*
 * MMDs: 1 PMA/PMD, 3 PCS, 30 vendor 1.  Other MMDs and PHY addresses do
 * not answer (MDIO_DONE error bit, RDATA 0xffff).  Unlisted registers of a
 * present MMD read 0 and ignore writes.
 *
 * PMA/PMD (1): 0 control 1 (15 reset, self-clearing; 11 low power = link
 *   down; 0 PMA loopback; 13|6 speed select 10G, read-only), 1 status 1
 *   (2 link, latching low; 1 low-power ability; 7 fault), 2/3 device id,
 *   4 speed ability (0 10G), 5/6 devices in package, 7 control 2 (type
 *   10GBASE-SR, 7), 8 status 2 (device present, 10GBASE-SR, loopback
 *   ability), 10 receive signal detect (0 global), 14/15 package id.
 * PCS (3): 0 control 1 (15 reset; 14 loopback; speed select read-only),
 *   1 status 1 (2 receive link, latching low), 2/3, 4 (10G), 5/6, 7
 *   control 2 (10GBASE-R, 0), 8 status 2 (device present, 10GBASE-R),
 *   14/15, 32 10GBASE-R status 1 (12 receive link, 0 block lock).
 * Vendor 1 (30): 0 EUSRV_PHY_VEND_CTRL, 1 EUSRV_PHY_VEND_STAT.
 *
 * Link status = not (low power or VEND_CTRL.LINK_DOWN or a reset in
 * progress).  The link does not depend on the line-side peer: nodes talk
 * through the MAC without one; frames for the line are then dropped and
 * counted in the line set's TX_DROPS.  A reset (either MMD's bit 15)
 * returns every PHY register to its default and takes the link down for
 * EUSRV_PHY_RESET_MS.  Loopback (PMA or PCS) returns frames sent to the
 * line to the MAC's receive side instead of the peer.
 */
#define EUSRV_PHY_DEVID1	0x4555U		/* "EU" */
#define EUSRV_PHY_DEVID2	0x5201U		/* model 0x20, revision 1 */
#define EUSRV_PHY_RESET_MS	20U

#define EUSRV_PHY_VEND_CTRL	0		/* MMD 30 register 0 */
#define EUSRV_PHY_VEND_CTRL_LINK_DOWN	0x0001U	/* force the link down */
#define EUSRV_PHY_VEND_STAT	1		/* MMD 30 register 1 (read-only) */
#define EUSRV_PHY_VEND_STAT_PEER	0x0001U	/* line-side peer connected */
#define EUSRV_PHY_VEND_STAT_LINK	0x0002U	/* link up (not latching) */

#endif /* EUSRV_MAC_HW_H */
