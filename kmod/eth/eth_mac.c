// SPDX-License-Identifier: GPL-2.0
/*
 * eusrv_eth: the node's port of the shared MAC, clause-45 MDIO to the PHY
 * and the carrier (docs/hardware.md, "The shared MAC and its PHY").
 *
 * The carrier follows the PHY's PMA/PMD link status, read over MDIO by a
 * delayed work item; the MAC's link-change interrupt runs it at once, and
 * it also runs every ETH_LINK_POLL_MS in case an interrupt was lost.
 */
#include <linux/delay.h>
#include <linux/etherdevice.h>
#include <linux/interrupt.h>
#include <linux/iopoll.h>
/* 32-bit builds: the MAC's 64-bit counters are read in two halves. */
#include <linux/io-64-nonatomic-lo-hi.h>
#include <linux/mdio.h>
#include <linux/netdevice.h>

#include "eth.h"

u64 eth_mac_rd64(struct eth_port *p, u32 off)
{
	return readq(p->mac + off);
}

/* A node-written MAC register; the kick is harmless and makes it prompt. */
void eth_mac_write(struct eth_port *p, u32 off, u32 val)
{
	eth_mac_wr(p, off, val);
	eth_kick(p, p->mac_kick_val);
}

/* One MDIO command: ADDR, WDATA, then CMD with a new sequence number. */
static int eth_mdio_cmd(struct eth_port *p, u32 op, int devad, u16 reg, u16 wdata)
{
	u32 done = 0;
	int ret;

	lockdep_assert_held(&p->mdio_lock);
	if (++p->mdio_seq == 0)
		p->mdio_seq = 1;	/* MDIO_DONE reads 0 after attach */
	eth_mac_wr(p, EUSRV_MAC_MDIO_ADDR,
		   EUSRV_MAC_MDIO_ADDR_VAL(EUSRV_PHY_ADDR, devad, reg));
	eth_mac_wr(p, EUSRV_MAC_MDIO_WDATA, wdata);
	eth_mac_wr(p, EUSRV_MAC_MDIO_CMD, EUSRV_MAC_MDIO_CMD_VAL(op, p->mdio_seq));
	eth_kick(p, p->mac_kick_val);
	ret = readl_poll_timeout(p->mac + EUSRV_MAC_MDIO_DONE, done,
				 (done & EUSRV_MAC_MDIO_DONE_SEQ_MASK) == p->mdio_seq,
				 20, ETH_MDIO_TIMEOUT_US);
	if (ret) {
		netdev_err(p->ndev, "MDIO command %u to MMD %d register %u timed out\n",
			   op, devad, reg);
		return ret;
	}
	if (done & EUSRV_MAC_MDIO_DONE_ERR)
		return -EIO;
	return 0;
}

int eth_mdio_read(struct eth_port *p, int devad, u16 reg)
{
	int ret;

	mutex_lock(&p->mdio_lock);
	ret = eth_mdio_cmd(p, EUSRV_MAC_MDIO_OP_ADDR_READ, devad, reg, 0);
	if (!ret)
		ret = eth_mac_rd(p, EUSRV_MAC_MDIO_RDATA) & 0xffff;
	mutex_unlock(&p->mdio_lock);
	return ret;
}

int eth_mdio_write(struct eth_port *p, int devad, u16 reg, u16 val)
{
	int ret;

	mutex_lock(&p->mdio_lock);
	ret = eth_mdio_cmd(p, EUSRV_MAC_MDIO_OP_ADDR_WRITE, devad, reg, val);
	mutex_unlock(&p->mdio_lock);
	return ret;
}

/* PMA/PMD reset (ethtool -r): the PHY takes the link down for a moment. */
int eth_phy_reset(struct eth_port *p)
{
	int ret = eth_mdio_read(p, MDIO_MMD_PMAPMD, MDIO_CTRL1);

	if (ret < 0)
		return ret;
	return eth_mdio_write(p, MDIO_MMD_PMAPMD, MDIO_CTRL1, ret | MDIO_CTRL1_RESET);
}

void eth_mac_set_addr(struct eth_port *p, const u8 *a)
{
	eth_mac_wr(p, EUSRV_MAC_ADDR_LO, a[0] | a[1] << 8 | a[2] << 16 | (u32)a[3] << 24);
	eth_mac_write(p, EUSRV_MAC_ADDR_HI, a[4] | a[5] << 8);
}

/*
 * CTRL from the interface's state: enabled while up, the offloads its
 * features ask for, promiscuous and all-multicast from its flags (the MAC
 * has no multicast filter, so any multicast address means all of them).
 */
void eth_mac_update_ctrl(struct eth_port *p)
{
	struct net_device *ndev = p->ndev;
	u32 ctrl = 0;

	if (READ_ONCE(p->up)) {
		ctrl = EUSRV_MAC_CTRL_RX_EN | EUSRV_MAC_CTRL_TX_EN | EUSRV_MAC_CTRL_LINK_IE;
		if (ndev->features & (NETIF_F_IP_CSUM | NETIF_F_IPV6_CSUM))
			ctrl |= EUSRV_MAC_CTRL_TX_CSUM;
		if (ndev->features & NETIF_F_RXCSUM)
			ctrl |= EUSRV_MAC_CTRL_RX_CSUM;
		if (ndev->flags & IFF_PROMISC)
			ctrl |= EUSRV_MAC_CTRL_PROMISC;
		if ((ndev->flags & IFF_ALLMULTI) || !netdev_mc_empty(ndev))
			ctrl |= EUSRV_MAC_CTRL_ALLMULTI;
	}
	eth_mac_write(p, EUSRV_MAC_CTRL, ctrl);
}

void eth_mac_disable(struct eth_port *p)
{
	eth_mac_write(p, EUSRV_MAC_CTRL, 0);
}

/* The PHY's link: PMA/PMD status 1, read twice (the bit latches low). */
static int eth_phy_link(struct eth_port *p)
{
	int ret = eth_mdio_read(p, MDIO_MMD_PMAPMD, MDIO_STAT1);

	if (ret >= 0)
		ret = eth_mdio_read(p, MDIO_MMD_PMAPMD, MDIO_STAT1);
	if (ret < 0)
		return ret;
	return !!(ret & MDIO_STAT1_LSTATUS);
}

void eth_link_work(struct work_struct *work)
{
	struct eth_port *p = container_of(to_delayed_work(work), struct eth_port, link_work);
	struct net_device *ndev = p->ndev;
	int link = eth_phy_link(p);

	if (link >= 0 && link != netif_carrier_ok(ndev)) {
		eth_count(p, ETH_C_LINK_CHANGES);
		if (link) {
			netif_carrier_on(ndev);
			netdev_info(ndev, "link up, 10Gbps full duplex\n");
		} else {
			netif_carrier_off(ndev);
			netdev_info(ndev, "link down\n");
		}
	}
	if (READ_ONCE(p->link_irq_on))
		schedule_delayed_work(&p->link_work, msecs_to_jiffies(ETH_LINK_POLL_MS));
}

irqreturn_t eth_mac_irq(int irq, void *data)
{
	struct eth_port *p = data;
	u32 sr = eth_mac_rd(p, EUSRV_MAC_SR) & EUSRV_MAC_SR_ALL;

	if (!sr)
		return IRQ_NONE;
	eth_mac_wr(p, EUSRV_MAC_SR_CLR, sr);
	eth_mac_wr(p, EUSRV_MAC_SR_CLR_SEQ, ++p->mac_clr_seq);
	eth_kick(p, p->mac_kick_val);
	eth_count(p, ETH_C_IRQ_MAC);
	if ((sr & EUSRV_MAC_SR_LINK_CHG) && READ_ONCE(p->link_irq_on))
		mod_delayed_work(system_wq, &p->link_work, 0);
	return IRQ_HANDLED;
}

void eth_link_start(struct eth_port *p)
{
	WRITE_ONCE(p->link_irq_on, true);
	mod_delayed_work(system_wq, &p->link_work, 0);
}

void eth_link_stop(struct eth_port *p)
{
	WRITE_ONCE(p->link_irq_on, false);
	cancel_delayed_work_sync(&p->link_work);
	netif_carrier_off(p->ndev);
}
