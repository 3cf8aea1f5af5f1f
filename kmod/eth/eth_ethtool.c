// SPDX-License-Identifier: GPL-2.0
/*
 * eusrv_eth ethtool operations: driver information, a register dump of
 * the MAC port and the AXI DMA engine, the driver's and the MAC's
 * counters, coalescing (the DMA channels' IRQThreshold and IRQDelay, live),
 * ring sizes, offloads (through the netdev features), the link as phylib
 * sees the PHY and nway_reset as a PHY reset.
 */
#include <linux/ethtool.h>
#include <linux/linkmode.h>
#include <linux/netdevice.h>
#include <linux/phy.h>

#include "eth.h"

/*
 * Register dump (ethtool -d), ETH_REGS_VERSION: the MAC port's page
 * 0x000..0x3ff, then the AXI DMA page's channel registers 0x000..0x0ff,
 * then its virtual-board registers 0x800..0x83f; u32 words.
 */
#define ETH_REGS_VERSION	1
#define ETH_REGS_MAC_LEN	0x400U
#define ETH_REGS_DMA_LEN	0x100U
#define ETH_REGS_VB_LEN	0x40U
#define ETH_REGS_LEN		(ETH_REGS_MAC_LEN + ETH_REGS_DMA_LEN + ETH_REGS_VB_LEN)

/*
 * ETHTOOL_LINK_MODE_10000baseSR_Full_BIT, pasted from pieces: checkpatch
 * --strict takes the kernel's mixed-case link-mode names for CamelCase.
 */
#define ETH_LINK_MODE_10GSR	ETH_PASTE(ETHTOOL_LINK_MODE_, 10000base, SR_, F, ull_BIT)
#define ETH_PASTE(a, b, c, d, e)	a ## b ## c ## d ## e

const char *const eusrv_eth_cnt_names[ETH_NR_CNT] = {
	[ETH_C_TX_BUSY] = "tx_ring_full",
	[ETH_C_TX_MAP_ERR] = "tx_map_errors",
	[ETH_C_TX_CSUM] = "tx_csum_offload",
	[ETH_C_TX_CSUM_SW] = "tx_csum_software",
	[ETH_C_TX_DMA_ERR] = "tx_dma_errors",
	[ETH_C_TX_TIMEOUT] = "tx_timeouts",
	[ETH_C_RX_CSUM] = "rx_csum_complete",
	[ETH_C_RX_ALLOC_FAIL] = "rx_alloc_errors",
	[ETH_C_RX_DMA_ERR] = "rx_dma_errors",
	[ETH_C_RX_PART] = "rx_multi_buffer_drops",
	[ETH_C_RX_BAD_LEN] = "rx_bad_length",
	[ETH_C_RX_NO_SKB] = "rx_no_skb",
	[ETH_C_IRQ_TX] = "irq_tx",
	[ETH_C_IRQ_RX] = "irq_rx",
	[ETH_C_IRQ_ERR] = "irq_dma_error",
	[ETH_C_IRQ_MAC] = "irq_mac",
	[ETH_C_DMA_RESETS] = "dma_error_resets",
	[ETH_C_LINK_CHANGES] = "carrier_changes",
};

/* The MAC port's counters, as "mac_<name>" after the driver's. */
static const char *const eth_mac_cnt_names[EUSRV_MAC_STATS_COUNT] = {
	"mac_tx_frames", "mac_tx_bytes", "mac_tx_oversize", "mac_tx_errors",
	"mac_tx_drops", "mac_tx_csum", "mac_tx_csum_bad", "mac_rx_frames",
	"mac_rx_bytes", "mac_rx_nodesc", "mac_rx_filtered", "mac_rx_oversize",
	"mac_rx_drops", "mac_rx_errors", "mac_rx_mcast",
};

static void eth_get_drvinfo(struct net_device *ndev, struct ethtool_drvinfo *info)
{
	struct eth_port *p = netdev_priv(ndev);

	strscpy(info->driver, ETH_DRV_NAME, sizeof(info->driver));
	strscpy(info->bus_info, dev_name(p->dev), sizeof(info->bus_info));
	snprintf(info->fw_version, sizeof(info->fw_version), "mac %08x",
		 eth_mac_rd(p, EUSRV_MAC_ID));
}

static int eth_get_regs_len(struct net_device *ndev)
{
	return ETH_REGS_LEN;
}

static void eth_get_regs(struct net_device *ndev, struct ethtool_regs *regs, void *buf)
{
	struct eth_port *p = netdev_priv(ndev);
	u32 *w = buf, off;

	regs->version = ETH_REGS_VERSION;
	for (off = 0; off < ETH_REGS_MAC_LEN; off += 4)
		*w++ = eth_mac_rd(p, off);
	for (off = 0; off < ETH_REGS_DMA_LEN; off += 4)
		*w++ = eth_dma_rd(p, off);
	for (off = 0; off < ETH_REGS_VB_LEN; off += 4)
		*w++ = eth_dma_rd(p, EUSRV_AXIDMA_VB_MM2S + off);
}

static int eth_get_sset_count(struct net_device *ndev, int sset)
{
	if (sset != ETH_SS_STATS)
		return -EOPNOTSUPP;
	return ETH_NR_CNT + EUSRV_MAC_STATS_COUNT;
}

static void eth_get_strings(struct net_device *ndev, u32 sset, u8 *data)
{
	unsigned int i;

	if (sset != ETH_SS_STATS)
		return;
	for (i = 0; i < ETH_NR_CNT; i++)
		ethtool_sprintf(&data, "%s", eusrv_eth_cnt_names[i]);
	for (i = 0; i < EUSRV_MAC_STATS_COUNT; i++)
		ethtool_sprintf(&data, "%s", eth_mac_cnt_names[i]);
}

static void eth_get_ethtool_stats(struct net_device *ndev, struct ethtool_stats *stats,
				  u64 *data)
{
	struct eth_port *p = netdev_priv(ndev);
	unsigned int i;

	for (i = 0; i < ETH_NR_CNT; i++)
		*data++ = atomic64_read(&p->cnt[i]);
	for (i = 0; i < EUSRV_MAC_STATS_COUNT; i++)
		*data++ = eusrv_eth_mac_rd64(p, EUSRV_MAC_STATS_PORT + 8 * i);
}

static int eth_get_coalesce(struct net_device *ndev, struct ethtool_coalesce *ec,
			    struct kernel_ethtool_coalesce *kec,
			      struct netlink_ext_ack *extack)
{
	struct eth_port *p = netdev_priv(ndev);

	eth_cr_to_coal(p->ch[ETH_RX].coal, &ec->rx_max_coalesced_frames,
		       &ec->rx_coalesce_usecs);
	eth_cr_to_coal(p->ch[ETH_TX].coal, &ec->tx_max_coalesced_frames,
		       &ec->tx_coalesce_usecs);
	return 0;
}

static int eth_set_coalesce(struct net_device *ndev, struct ethtool_coalesce *ec,
			    struct kernel_ethtool_coalesce *kec,
			      struct netlink_ext_ack *extack)
{
	struct eth_port *p = netdev_priv(ndev);
	u32 rx, tx;

	if (eth_coal_to_cr(ec->rx_max_coalesced_frames, ec->rx_coalesce_usecs, &rx) ||
	    eth_coal_to_cr(ec->tx_max_coalesced_frames, ec->tx_coalesce_usecs, &tx)) {
		NL_SET_ERR_MSG_MOD(extack, "frames must be 1..255, usecs 0..255");
		return -EINVAL;
	}
	mutex_lock(&p->lock);
	eusrv_eth_dma_set_coal(p, ETH_RX, rx);
	eusrv_eth_dma_set_coal(p, ETH_TX, tx);
	mutex_unlock(&p->lock);
	return 0;
}

static void eth_get_ringparam(struct net_device *ndev, struct ethtool_ringparam *ring,
			      struct kernel_ethtool_ringparam *kring,
				struct netlink_ext_ack *extack)
{
	struct eth_port *p = netdev_priv(ndev);

	ring->rx_max_pending = ETH_RING_MAX;
	ring->tx_max_pending = ETH_RING_MAX;
	ring->rx_pending = p->rx_ring_size;
	ring->tx_pending = p->tx_ring_size;
}

static int eth_set_rings(struct eth_port *p, void *arg)
{
	const u32 *sz = arg;

	p->rx_ring_size = sz[0];
	p->tx_ring_size = sz[1];
	return 0;
}

static int eth_set_ringparam(struct net_device *ndev, struct ethtool_ringparam *ring,
			     struct kernel_ethtool_ringparam *kring,
			       struct netlink_ext_ack *extack)
{
	struct eth_port *p = netdev_priv(ndev);
	u32 sz[2];

	sz[0] = eth_ring_size(ring->rx_pending, ETH_RX_RING_MIN, ETH_RING_MAX);
	sz[1] = eth_ring_size(ring->tx_pending, ETH_TX_RING_MIN, ETH_RING_MAX);
	if (ring->rx_mini_pending || ring->rx_jumbo_pending || !sz[0] || !sz[1]) {
		NL_SET_ERR_MSG_MOD(extack, "rx 8..1024, tx 32..1024 descriptors");
		return -EINVAL;
	}
	if (sz[0] == p->rx_ring_size && sz[1] == p->tx_ring_size)
		return 0;
	return eusrv_eth_reopen(ndev, eth_set_rings, sz);
}

/*
 * The PHY's settings, as phylib keeps them.  Its generic clause-45 driver
 * knows the PMA/PMD's abilities but not the medium: 10GBASE-SR is fibre.
 */
static int eth_get_link_ksettings(struct net_device *ndev,
				  struct ethtool_link_ksettings *ks)
{
	int ret = phy_ethtool_get_link_ksettings(ndev, ks);

	if (ret)
		return ret;
	if (linkmode_test_bit(ETH_LINK_MODE_10GSR, ks->link_modes.supported)) {
		linkmode_set_bit(ETHTOOL_LINK_MODE_FIBRE_BIT, ks->link_modes.supported);
		linkmode_set_bit(ETHTOOL_LINK_MODE_FIBRE_BIT, ks->link_modes.advertising);
		ks->base.port = PORT_FIBRE;
	}
	ks->base.mdio_support = ETH_MDIO_SUPPORTS_C45;
	return 0;
}

/*
 * The link has no autonegotiation and the PMA/PMD one speed: a setting
 * the PHY supports, as it is, is accepted and nothing else.  (phylib's
 * phy_ethtool_ksettings_set() in 6.1 refuses any forced speed above
 * 1000 Mb/s, so it cannot be the one here.)
 */
static int eth_set_link_ksettings(struct net_device *ndev,
				  const struct ethtool_link_ksettings *ks)
{
	struct phy_device *phydev = ndev->phydev;

	if (!phydev)
		return -ENODEV;
	if (ks->base.autoneg != AUTONEG_DISABLE || ks->base.duplex != DUPLEX_FULL ||
	    !phy_lookup_setting(ks->base.speed, ks->base.duplex, phydev->supported, true))
		return -EINVAL;
	return 0;
}

static int eth_nway_reset(struct net_device *ndev)
{
	return eusrv_eth_phy_reset(netdev_priv(ndev));
}

const struct ethtool_ops eusrv_eth_ethtool_ops = {
	.supported_coalesce_params = ETHTOOL_COALESCE_USECS |
				     ETHTOOL_COALESCE_MAX_FRAMES,
	.get_drvinfo = eth_get_drvinfo,
	.get_regs_len = eth_get_regs_len,
	.get_regs = eth_get_regs,
	.get_link = ethtool_op_get_link,
	.nway_reset = eth_nway_reset,
	.get_sset_count = eth_get_sset_count,
	.get_strings = eth_get_strings,
	.get_ethtool_stats = eth_get_ethtool_stats,
	.get_coalesce = eth_get_coalesce,
	.set_coalesce = eth_set_coalesce,
	.get_ringparam = eth_get_ringparam,
	.set_ringparam = eth_set_ringparam,
	.get_link_ksettings = eth_get_link_ksettings,
	.set_link_ksettings = eth_set_link_ksettings,
};
