/* SPDX-License-Identifier: GPL-2.0 */
/*
 * eusrv_eth internals: the private state of one shared-NIC port and what
 * the driver's files offer each other.  eth_main.c probes and runs the
 * netdev, eth_dma.c owns the AXI DMA engine and its rings, eth_txrx.c the
 * data path, eth_mac.c the MAC port, its MDIO bus and the PHY on it,
 * eth_ethtool.c and eth_procfs.c the two control interfaces.
 */
#ifndef EUSRV_ETH_H
#define EUSRV_ETH_H

#include <linux/atomic.h>
#include <linux/io.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/phy.h>
#include <linux/spinlock.h>
#include <linux/u64_stats_sync.h>
#include <linux/workqueue.h>

#include <eusrv/axidma_hw.h>
#include <eusrv/mac_hw.h>
#include <eusrv/vboard.h>

#include "eth_ring.h"

#define ETH_DRV_NAME		"eusrv_eth"
#define ETH_IFNAME		"eusrv%d"
#define ETH_NAPI_WEIGHT	64

/* Default coalescing: an interrupt per 16 frames or 30 us after the last. */
#define ETH_RX_COAL_FRAMES	16U
#define ETH_RX_COAL_USECS	30U
#define ETH_TX_COAL_FRAMES	16U
#define ETH_TX_COAL_USECS	30U

/* Frames up to MTU + 18 (header and one VLAN tag, no FCS; mac_hw.h). */
#define ETH_FRAME_MAX(mtu)	((mtu) + EUSRV_MAC_FRAME_OVERHEAD)
/* Descriptors one transmitted skb may need: head and every fragment. */
#define ETH_TX_MAX_DESC	(MAX_SKB_FRAGS + 1)

/*
 * How long the engine and MDIO may take: the model answers in a loop
 * round, but a loaded host may hold it up (cdma_core.c says the same).
 */
#define ETH_RESET_TIMEOUT_US	2000000U
/*
 * Generous for MDIO, as for the reset: a loaded host may hold the model
 * up (500 ms ran out once at a load of 6 on two cores), and phylib takes
 * a failed access for a broken PHY (a warning and the link halted).  A
 * real bus answers in microseconds; only a dead one waits this long.
 */
#define ETH_MDIO_TIMEOUT_US	2000000U

enum eth_ch {
	ETH_TX,		/* MM2S */
	ETH_RX,		/* S2MM */
	ETH_NR_CH
};

/* Counters of the driver itself (ethtool -S), atomic: updated anywhere. */
enum eth_cnt {
	ETH_C_TX_BUSY,		/* xmit found the ring full */
	ETH_C_TX_MAP_ERR,		/* DMA mapping failed: dropped */
	ETH_C_TX_CSUM,		/* checksums asked of the MAC */
	ETH_C_TX_CSUM_SW,		/* checksums done in software instead */
	ETH_C_TX_DMA_ERR,		/* MM2S completed a descriptor with an error */
	ETH_C_TX_TIMEOUT,
	ETH_C_RX_CSUM,		/* CHECKSUM_COMPLETE from APP3 */
	ETH_C_RX_ALLOC_FAIL,		/* no buffer to refill with */
	ETH_C_RX_DMA_ERR,		/* S2MM completed a descriptor with an error */
	ETH_C_RX_PART,		/* frames over more than one buffer: dropped */
	ETH_C_RX_BAD_LEN,		/* lengths the descriptor cannot have */
	ETH_C_RX_NO_SKB,		/* build_skb failed: dropped */
	ETH_C_IRQ_TX,
	ETH_C_IRQ_RX,
	ETH_C_IRQ_ERR,
	ETH_C_IRQ_MAC,
	ETH_C_DMA_RESETS,		/* the error-reset task ran */
	ETH_C_LINK_CHANGES,		/* link changes phylib reported */
	ETH_NR_CNT
};

extern const char *const eusrv_eth_cnt_names[ETH_NR_CNT];

/* One DMA channel's register block and its interrupt. */
struct eth_chan {
	struct eth_port *priv;
	u32 base;		/* EUSRV_AXIDMA_MM2S or EUSRV_AXIDMA_S2MM */
	u32 vb;			/* EUSRV_AXIDMA_VB_MM2S or EUSRV_AXIDMA_VB_S2MM */
	u32 kick_val;
	int irq;
	char irq_name[IFNAMSIZ + 8];
	u32 coal;		/* DMACR threshold and delay fields */
	bool masked;		/* IOC and delay interrupts off while NAPI runs */
};

struct eth_tx_buf {
	struct sk_buff *skb;	/* on the frame's last descriptor */
	dma_addr_t dma;
	u32 len;
	bool page;		/* mapped with dma_map_page */
};

struct eth_rx_buf {
	void *data;		/* page fragment, NULL when the slot is empty */
	dma_addr_t dma;
};

struct eth_port {
	struct net_device *ndev;
	struct device *dev;
	struct device *dma_dev;		/* the connected AXI DMA node's device */
	void __iomem *mac;		/* the MAC port's page */
	void __iomem *dma;		/* the AXI DMA engine's page */
	struct regmap *kick;		/* NULL on hardware without a kick */
	u32 mac_kick_val;
	int mac_irq;
	u32 node_id;
	u32 mtu_max;

	struct eth_chan ch[ETH_NR_CH];
	spinlock_t cr_lock;		/* DMACR writes: IRQ, NAPI, ethtool */

	/* Rings, valid while up; sizes apply at the next open. */
	struct eth_ring tx;
	struct eth_ring rx;
	struct eth_tx_buf *tx_buf;
	struct eth_rx_buf *rx_buf;
	dma_addr_t tx_desc_dma, rx_desc_dma;
	u32 tx_ring_size, rx_ring_size;
	u32 rx_buf_len;			/* bytes the engine may write per buffer */
	u32 rx_truesize;		/* each buffer's whole allocation */
	bool rx_skip;			/* dropping the rest of a multi-buffer frame */
	struct napi_struct napi;

	/* The error-reset task (D4.2 3.2) and what it serialises with. */
	struct mutex lock;		/* up, rings, DMACR setup, resets */
	bool up;
	struct work_struct reset_work;
	u32 last_err_sr[ETH_NR_CH];

	/* MAC port, its MDIO bus and the PHY (phylib). */
	struct mii_bus *mii;
	struct phy_device *phydev;	/* on mii, attached to ndev while registered */
	u16 mdio_seq;			/* under mii->mdio_lock */
	u32 mac_clr_seq;
	bool link_irq_on;		/* link changes go to phylib (while up) */

	/* Counters. */
	struct u64_stats_sync syncp;	/* NAPI is the only writer */
	u64 rx_packets, rx_bytes, tx_packets, tx_bytes;
	atomic64_t rx_dropped, rx_errors, tx_dropped, tx_errors;
	atomic64_t cnt[ETH_NR_CNT];

	struct proc_dir_entry *proc_dir;
	struct eth_proc_file *proc_files;
};

static inline void eth_count(struct eth_port *p, enum eth_cnt c)
{
	atomic64_inc(&p->cnt[c]);
}

static inline void eth_kick(struct eth_port *p, u32 val)
{
	eusrv_vboard_kick(p->kick, val);
}

static inline u32 eth_mac_rd(struct eth_port *p, u32 off)
{
	return readl(p->mac + off);
}

static inline void eth_mac_wr(struct eth_port *p, u32 off, u32 val)
{
	writel(val, p->mac + off);
}

u64 eusrv_eth_mac_rd64(struct eth_port *p, u32 off);

static inline u32 eth_dma_rd(struct eth_port *p, u32 off)
{
	return readl(p->dma + off);
}

static inline void eth_dma_wr(struct eth_port *p, u32 off, u32 val)
{
	writel(val, p->dma + off);
}

/* eth_dma.c */
int eusrv_eth_rings_alloc(struct eth_port *p);
void eusrv_eth_rings_free(struct eth_port *p);
int eusrv_eth_dma_reset(struct eth_port *p);
void eusrv_eth_dma_start(struct eth_port *p);
void eusrv_eth_dma_set_coal(struct eth_port *p, enum eth_ch ch, u32 coal);
void eusrv_eth_dma_irq_mask(struct eth_chan *c, bool mask);
void eusrv_eth_write_tail(struct eth_port *p, enum eth_ch ch, u64 ga);
void eusrv_eth_reset_work(struct work_struct *work);
void eusrv_eth_schedule_reset(struct eth_port *p);

/* eth_txrx.c */
netdev_tx_t eusrv_eth_start_xmit(struct sk_buff *skb, struct net_device *ndev);
int eusrv_eth_poll(struct napi_struct *napi, int budget);
irqreturn_t eusrv_eth_dma_irq(int irq, void *data);
int eusrv_eth_rx_fill(struct eth_port *p, bool napi);
void eusrv_eth_rx_drain(struct eth_port *p);
void eusrv_eth_tx_drain(struct eth_port *p);
u32 eusrv_eth_rx_buf_len(u32 mtu);

/* eth_mac.c */
int eusrv_eth_mdio_register(struct eth_port *p);
int eusrv_eth_phy_connect(struct eth_port *p);
void eusrv_eth_phy_disconnect(struct eth_port *p);
int eusrv_eth_phy_read(struct eth_port *p, int devad, u16 reg);
int eusrv_eth_phy_write(struct eth_port *p, int devad, u16 reg, u16 val);
void eusrv_eth_mac_write(struct eth_port *p, u32 off, u32 val);
void eusrv_eth_mac_set_addr(struct eth_port *p, const u8 *addr);
void eusrv_eth_mac_update_ctrl(struct eth_port *p);
void eusrv_eth_mac_disable(struct eth_port *p);
void eusrv_eth_link_start(struct eth_port *p);
void eusrv_eth_link_stop(struct eth_port *p);
irqreturn_t eusrv_eth_mac_irq(int irq, void *data);
int eusrv_eth_phy_reset(struct eth_port *p);

/* eth_ethtool.c */
extern const struct ethtool_ops eusrv_eth_ethtool_ops;

/* eth_procfs.c */
int eusrv_eth_procfs_init(void);
void eusrv_eth_procfs_exit(void);
int eusrv_eth_procfs_add(struct eth_port *p);
void eusrv_eth_procfs_remove(struct eth_port *p);

/* eth_main.c: stop and reopen a running interface around a change. */
int eusrv_eth_reopen(struct net_device *ndev,
		     int (*change)(struct eth_port *p, void *arg), void *arg);

#endif /* EUSRV_ETH_H */
