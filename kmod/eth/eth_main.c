// SPDX-License-Identifier: GPL-2.0
/*
 * eusrv_eth: the netdev of a node's port on the EUROSERVER shared 10 GbE
 * NIC (D4.2 section 3.2, Appendix I): the MAC port bound by the compatible
 * "eusrv,eusrv-ethernet-1.00.a", its frames moved by the Xilinx AXI DMA
 * engine its "eusrv-connected" property names.  The same code path serves
 * a device tree and the virtual board, whose glue (kmod/board) creates
 * both devices with software-node properties.
 *
 * This file: probe and remove, open and stop, MTU, addresses, features
 * and statistics.  See eth.h for the other files.
 */
#include <linux/dma-mapping.h>
#include <linux/etherdevice.h>
#include <linux/interrupt.h>
#include <linux/mod_devicetable.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/phy.h>
#include <linux/platform_device.h>
#include <linux/property.h>
#include <linux/rtnetlink.h>

#include <eusrv/board_hw.h>
#include <eusrv/vboard.h>

#include "eth.h"

/* The AXI DMA compatibles the "eusrv-connected" node may have. */
static const struct of_device_id eth_dma_match[] = {
	{ .compatible = "eusrv,axi-dma-1.00.a" },
	{ }
};

/* ---- Open and stop ----------------------------------------------------- */

static int eth_request_irqs(struct eth_port *p)
{
	int i, ret;

	for (i = 0; i < ETH_NR_CH; i++) {
		struct eth_chan *c = &p->ch[i];

		snprintf(c->irq_name, sizeof(c->irq_name), "%s-%s", p->ndev->name,
			 i == ETH_TX ? "tx" : "rx");
		ret = request_irq(c->irq, eusrv_eth_dma_irq, 0, c->irq_name, c);
		if (ret) {
			netdev_err(p->ndev, "cannot get IRQ %d: %d\n", c->irq, ret);
			while (i--)
				free_irq(p->ch[i].irq, &p->ch[i]);
			return ret;
		}
	}
	return 0;
}

static void eth_free_irqs(struct eth_port *p)
{
	int i;

	for (i = 0; i < ETH_NR_CH; i++)
		free_irq(p->ch[i].irq, &p->ch[i]);
}

static int eth_open(struct net_device *ndev)
{
	struct eth_port *p = netdev_priv(ndev);
	int ret;

	mutex_lock(&p->lock);
	ret = eusrv_eth_dma_reset(p);
	if (ret)
		goto unlock;
	ret = eusrv_eth_rings_alloc(p);
	if (ret)
		goto unlock;
	ret = eth_request_irqs(p);
	if (ret)
		goto free_rings;
	napi_enable(&p->napi);
	WRITE_ONCE(p->up, true);
	eusrv_eth_dma_start(p);
	mutex_unlock(&p->lock);

	eth_mac_wr(p, EUSRV_MAC_MTU, ndev->mtu);
	eusrv_eth_mac_set_addr(p, ndev->dev_addr);
	eusrv_eth_mac_update_ctrl(p);
	eusrv_eth_link_start(p);
	netif_start_queue(ndev);
	return 0;

free_rings:
	eusrv_eth_rings_free(p);
unlock:
	mutex_unlock(&p->lock);
	return ret;
}

static int eth_stop(struct net_device *ndev)
{
	struct eth_port *p = netdev_priv(ndev);

	/* Already stopped by a reopen whose restart failed. */
	if (!p->tx.desc)
		return 0;
	netif_tx_disable(ndev);
	eusrv_eth_link_stop(p);
	mutex_lock(&p->lock);
	WRITE_ONCE(p->up, false);
	mutex_unlock(&p->lock);
	/* The reset task sees !up from now on and does nothing. */
	cancel_work_sync(&p->reset_work);
	eusrv_eth_mac_update_ctrl(p);

	mutex_lock(&p->lock);
	eth_free_irqs(p);
	napi_disable(&p->napi);
	/* The engine lets go of the rings before they are freed. */
	eusrv_eth_dma_reset(p);
	eusrv_eth_rings_free(p);
	mutex_unlock(&p->lock);
	return 0;
}

/*
 * Run CHANGE with the interface stopped if it is running, then start it
 * again: ring sizes and the receive buffers' size only apply at open.
 */
int eusrv_eth_reopen(struct net_device *ndev,
		     int (*change)(struct eth_port *p, void *arg), void *arg)
{
	struct eth_port *p = netdev_priv(ndev);
	bool running = netif_running(ndev);
	int ret;

	if (running)
		eth_stop(ndev);
	ret = change(p, arg);
	if (running) {
		int err = eth_open(ndev);

		if (err) {
			netdev_err(ndev, "cannot restart after a change: %d\n", err);
			dev_close(ndev);
			return err;
		}
	}
	return ret;
}

/* ---- netdev operations ------------------------------------------------- */

static int eth_set_mtu(struct eth_port *p, void *arg)
{
	p->ndev->mtu = *(int *)arg;
	eusrv_eth_mac_write(p, EUSRV_MAC_MTU, p->ndev->mtu);
	return 0;
}

static int eth_change_mtu(struct net_device *ndev, int mtu)
{
	return eusrv_eth_reopen(ndev, eth_set_mtu, &mtu);
}

static int eth_set_mac_address(struct net_device *ndev, void *addr)
{
	struct eth_port *p = netdev_priv(ndev);
	int ret = eth_mac_addr(ndev, addr);

	if (!ret)
		eusrv_eth_mac_set_addr(p, ndev->dev_addr);
	return ret;
}

static void eth_set_rx_mode(struct net_device *ndev)
{
	eusrv_eth_mac_update_ctrl(netdev_priv(ndev));
}

static int eth_set_features(struct net_device *ndev, netdev_features_t features)
{
	struct eth_port *p = netdev_priv(ndev);

	/* CTRL follows ndev->features, which the core sets after this returns. */
	ndev->features = features;
	eusrv_eth_mac_update_ctrl(p);
	return 0;
}

static void eth_tx_timeout(struct net_device *ndev, unsigned int txqueue)
{
	struct eth_port *p = netdev_priv(ndev);

	netdev_warn(ndev, "transmit timed out (MM2S DMASR %#x)\n",
		    eth_dma_rd(p, EUSRV_AXIDMA_MM2S + EUSRV_AXIDMA_SR));
	eth_count(p, ETH_C_TX_TIMEOUT);
	eusrv_eth_schedule_reset(p);
}

static void eth_get_stats64(struct net_device *ndev, struct rtnl_link_stats64 *s)
{
	struct eth_port *p = netdev_priv(ndev);
	unsigned int start;

	do {
		start = u64_stats_fetch_begin(&p->syncp);
		s->rx_packets = p->rx_packets;
		s->rx_bytes = p->rx_bytes;
		s->tx_packets = p->tx_packets;
		s->tx_bytes = p->tx_bytes;
	} while (u64_stats_fetch_retry(&p->syncp, start));
	s->rx_dropped = atomic64_read(&p->rx_dropped);
	s->rx_errors = atomic64_read(&p->rx_errors);
	s->tx_dropped = atomic64_read(&p->tx_dropped);
	s->tx_errors = atomic64_read(&p->tx_errors);
	s->rx_length_errors = atomic64_read(&p->cnt[ETH_C_RX_PART]) +
			      atomic64_read(&p->cnt[ETH_C_RX_BAD_LEN]);
	/* Frames the MAC could not deliver for want of a free descriptor. */
	s->rx_missed_errors = eusrv_eth_mac_rd64(p, EUSRV_MAC_STATS_PORT + EUSRV_MAC_RX_NODESC);
	s->multicast = eusrv_eth_mac_rd64(p, EUSRV_MAC_STATS_PORT + EUSRV_MAC_RX_MCAST);
}

/* unregister_netdev(): stopped, still in sysfs. */
static void eth_uninit(struct net_device *ndev)
{
	eusrv_eth_phy_disconnect(netdev_priv(ndev));
}

static const struct net_device_ops eth_netdev_ops = {
	.ndo_uninit = eth_uninit,
	.ndo_open = eth_open,
	.ndo_stop = eth_stop,
	.ndo_start_xmit = eusrv_eth_start_xmit,
	.ndo_change_mtu = eth_change_mtu,
	.ndo_set_mac_address = eth_set_mac_address,
	.ndo_validate_addr = eth_validate_addr,
	.ndo_set_rx_mode = eth_set_rx_mode,
	.ndo_set_features = eth_set_features,
	.ndo_eth_ioctl = phy_do_ioctl,
	.ndo_tx_timeout = eth_tx_timeout,
	.ndo_get_stats64 = eth_get_stats64,
};

/* ---- Probe and remove -------------------------------------------------- */

/*
 * The node's number, the top byte of the global addresses the engine
 * uses.  Required, so that the NIC does not depend on the mailbox driver.
 */
static int eth_node_id(struct eth_port *p)
{
	u32 nodes = EUSRV_MAX_NODES;
	int ret;

	ret = eusrv_node_props(p->dev, &p->node_id, &nodes);
	if (ret == -ENOENT)
		return dev_err_probe(p->dev, -EINVAL, "no eusrv,node-id\n");
	return ret;
}

static void eth_put_dma_dev(void *data)
{
	put_device(data);
}

/*
 * The AXI DMA engine "eusrv-connected" names: its registers, its two
 * interrupts (MM2S, S2MM) and, on the virtual board, its two kick values.
 * Like Xilinx's AXI Ethernet, the MAC's driver owns the engine.
 */
static int eth_connect_dma(struct platform_device *pdev, struct eth_port *p)
{
	struct fwnode_handle *fw;
	struct platform_device *dpdev;
	struct device *ddev;
	struct resource *res;
	u32 kick[ETH_NR_CH];
	int i, ret;

	fw = fwnode_find_reference(dev_fwnode(p->dev), "eusrv-connected", 0);
	if (IS_ERR(fw))
		return dev_err_probe(p->dev, PTR_ERR(fw), "no eusrv-connected AXI DMA node\n");
	for (i = 0; eth_dma_match[i].compatible[0]; i++)
		if (fwnode_property_match_string(fw, "compatible",
						 eth_dma_match[i].compatible) >= 0)
			break;
	if (!eth_dma_match[i].compatible[0]) {
		fwnode_handle_put(fw);
		return dev_err_probe(p->dev, -ENODEV,
				     "eusrv-connected node is not an AXI DMA engine\n");
	}
	ddev = bus_find_device_by_fwnode(&platform_bus_type, fw);
	fwnode_handle_put(fw);
	if (!ddev)
		return dev_err_probe(p->dev, -EPROBE_DEFER, "AXI DMA device not there yet\n");
	ret = devm_add_action_or_reset(p->dev, eth_put_dma_dev, ddev);
	if (ret)
		return ret;
	p->dma_dev = ddev;
	dpdev = to_platform_device(ddev);

	res = platform_get_resource(dpdev, IORESOURCE_MEM, 0);
	if (!res)
		return dev_err_probe(p->dev, -EINVAL, "AXI DMA %s has no registers\n",
				     dev_name(ddev));
	p->dma = devm_ioremap_resource(p->dev, res);
	if (IS_ERR(p->dma))
		return dev_err_probe(p->dev, PTR_ERR(p->dma), "cannot map AXI DMA %pR\n", res);
	for (i = 0; i < ETH_NR_CH; i++) {
		p->ch[i].priv = p;
		p->ch[i].irq = platform_get_irq(dpdev, i);
		if (p->ch[i].irq < 0)
			return dev_err_probe(p->dev, p->ch[i].irq,
					     "AXI DMA %s: no interrupt %d\n", dev_name(ddev), i);
	}
	p->ch[ETH_TX].base = EUSRV_AXIDMA_MM2S;
	p->ch[ETH_TX].vb = EUSRV_AXIDMA_VB_MM2S;
	p->ch[ETH_RX].base = EUSRV_AXIDMA_S2MM;
	p->ch[ETH_RX].vb = EUSRV_AXIDMA_VB_S2MM;
	if (p->kick &&
	    !fwnode_property_read_u32_array(dev_fwnode(ddev), "eusrv,kick", kick, ETH_NR_CH)) {
		p->ch[ETH_TX].kick_val = kick[ETH_TX];
		p->ch[ETH_RX].kick_val = kick[ETH_RX];
	}
	return 0;
}

/* What the port starts with: the MAC's sequence numbers, coalescing, ring sizes. */
static void eth_setup_defaults(struct eth_port *p)
{
	u32 coal;

	p->mac_clr_seq = eth_mac_rd(p, EUSRV_MAC_SR_CLR_SEQ);
	p->mdio_seq = eth_mac_rd(p, EUSRV_MAC_MDIO_DONE) & EUSRV_MAC_MDIO_DONE_SEQ_MASK;
	eth_coal_to_cr(ETH_TX_COAL_FRAMES, ETH_TX_COAL_USECS, &coal);
	p->ch[ETH_TX].coal = coal;
	eth_coal_to_cr(ETH_RX_COAL_FRAMES, ETH_RX_COAL_USECS, &coal);
	p->ch[ETH_RX].coal = coal;
	p->tx_ring_size = ETH_TX_RING_DEFAULT;
	p->rx_ring_size = ETH_RX_RING_DEFAULT;
}

/* The netdev's MTU range, address, operations and features. */
static void eth_setup_netdev(struct eth_port *p)
{
	struct net_device *ndev = p->ndev;
	struct device *dev = p->dev;

	/* MTU_MAX comes from the hardware: believe it only within the spec. */
	p->mtu_max = eth_mac_rd(p, EUSRV_MAC_MTU_MAX);
	if (p->mtu_max < EUSRV_MAC_MTU_DEFAULT || p->mtu_max > EUSRV_MAC_MTU_JUMBO) {
		dev_warn(dev, "MTU_MAX %u out of range: using %u\n", p->mtu_max,
			 EUSRV_MAC_MTU_DEFAULT);
		p->mtu_max = EUSRV_MAC_MTU_DEFAULT;
	}
	ndev->min_mtu = EUSRV_MAC_MTU_MIN;
	ndev->max_mtu = p->mtu_max;
	ndev->mtu = EUSRV_MAC_MTU_DEFAULT;

	if (device_get_ethdev_address(dev, ndev)) {
		eth_hw_addr_random(ndev);
		dev_warn(dev, "no usable local-mac-address: random %pM\n", ndev->dev_addr);
	}
	ndev->netdev_ops = &eth_netdev_ops;
	ndev->ethtool_ops = &eusrv_eth_ethtool_ops;
	ndev->watchdog_timeo = 5 * HZ;
	ndev->hw_features = NETIF_F_SG | NETIF_F_IP_CSUM | NETIF_F_IPV6_CSUM |
			    NETIF_F_RXCSUM;
	ndev->features = ndev->hw_features | NETIF_F_HIGHDMA;
}

/* The netdev registered, with its PHY attached. */
static int eth_register(struct eth_port *p)
{
	struct net_device *ndev = p->ndev;
	int ret;

	strscpy(ndev->name, ETH_IFNAME, sizeof(ndev->name));
	/* Nobody opens the interface before its PHY is attached. */
	rtnl_lock();
	ret = register_netdevice(ndev);
	if (!ret) {
		ret = eusrv_eth_phy_connect(p);
		if (ret)
			unregister_netdevice(ndev);
	}
	rtnl_unlock();
	if (ret)
		return dev_err_probe(p->dev, ret, "cannot register the netdev\n");
	return 0;
}

static int eth_probe(struct platform_device *pdev)
{
	struct device *dev = &pdev->dev;
	struct net_device *ndev;
	struct eth_port *p;
	int ret;

	ndev = devm_alloc_etherdev(dev, sizeof(*p));
	if (!ndev)
		return -ENOMEM;
	SET_NETDEV_DEV(ndev, dev);
	p = netdev_priv(ndev);
	p->ndev = ndev;
	p->dev = dev;
	mutex_init(&p->lock);
	spin_lock_init(&p->cr_lock);
	u64_stats_init(&p->syncp);
	INIT_WORK(&p->reset_work, eusrv_eth_reset_work);
	platform_set_drvdata(pdev, p);

	ret = eth_node_id(p);
	if (ret)
		return ret;
	p->mac = devm_platform_ioremap_resource(pdev, 0);
	if (IS_ERR(p->mac))
		return dev_err_probe(dev, PTR_ERR(p->mac), "cannot map the MAC registers\n");
	eusrv_vboard_get_kick(pdev, &p->kick, &p->mac_kick_val);
	ret = eth_connect_dma(pdev, p);
	if (ret)
		return ret;
	p->mac_irq = platform_get_irq(pdev, 0);
	if (p->mac_irq < 0)
		return p->mac_irq;
	if (eth_mac_rd(p, EUSRV_MAC_ID) != EUSRV_MAC_ID_VALUE)
		return dev_err_probe(dev, -ENODEV, "not a shared-MAC port (id %#x)\n",
				     eth_mac_rd(p, EUSRV_MAC_ID));
	/* Node-local addresses are 40 bits wide (bits 47:40: the node). */
	ret = dma_coerce_mask_and_coherent(dev, DMA_BIT_MASK(EUSRV_GA_NODE_SHIFT));
	if (ret)
		return dev_err_probe(dev, ret, "no usable DMA mask\n");

	eth_setup_defaults(p);
	eth_setup_netdev(p);
	netif_napi_add_weight(ndev, &p->napi, eusrv_eth_poll, ETH_NAPI_WEIGHT);
	/* The port stays disabled until the interface goes up. */
	eusrv_eth_mac_disable(p);
	netif_carrier_off(ndev);

	/* The PHY's bus before the interrupt that tells phylib of link changes. */
	ret = eusrv_eth_mdio_register(p);
	if (ret)
		goto del_napi;
	ret = devm_request_irq(dev, p->mac_irq, eusrv_eth_mac_irq, 0, dev_name(dev), p);
	if (ret)
		goto del_napi;
	ret = eth_register(p);
	if (ret)
		goto del_napi;
	ret = eusrv_eth_procfs_add(p);
	if (ret)
		netdev_warn(ndev, "no /proc/eusrv-eth/%s: %d\n", ndev->name, ret);
	netdev_info(ndev, "node %u, MAC %pM, AXI DMA %s, TX %u / RX %u descriptors, MTU up to %u\n",
		    p->node_id, ndev->dev_addr, dev_name(p->dma_dev), p->tx_ring_size,
		    p->rx_ring_size, p->mtu_max);
	return 0;

del_napi:
	netif_napi_del(&p->napi);
	return ret;
}

static int eth_remove(struct platform_device *pdev)
{
	struct eth_port *p = platform_get_drvdata(pdev);

	eusrv_eth_procfs_remove(p);
	unregister_netdev(p->ndev);
	cancel_work_sync(&p->reset_work);
	netif_napi_del(&p->napi);
	eusrv_eth_mac_disable(p);
	return 0;
}

static const struct of_device_id eth_of_match[] = {
	{ .compatible = "eusrv,eusrv-ethernet-1.00.a" },
	{ }
};
MODULE_DEVICE_TABLE(of, eth_of_match);

static const struct platform_device_id eth_ids[] = {
	{ .name = "eusrv-eth" },
	{ }
};
MODULE_DEVICE_TABLE(platform, eth_ids);

static struct platform_driver eth_driver = {
	.driver = {
		.name = ETH_DRV_NAME,
		.of_match_table = eth_of_match,
	},
	.id_table = eth_ids,
	.probe = eth_probe,
	.remove = eth_remove,
};

static int __init eth_init(void)
{
	int ret = eusrv_eth_procfs_init();

	if (ret)
		return ret;
	ret = platform_driver_register(&eth_driver);
	if (ret)
		eusrv_eth_procfs_exit();
	return ret;
}
module_init(eth_init);

static void __exit eth_exit(void)
{
	platform_driver_unregister(&eth_driver);
	eusrv_eth_procfs_exit();
}
module_exit(eth_exit);

MODULE_DESCRIPTION("EUROSERVER shared 10 GbE NIC port (AXI DMA)");
MODULE_LICENSE("GPL");
