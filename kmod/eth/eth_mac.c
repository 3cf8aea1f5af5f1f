// SPDX-License-Identifier: GPL-2.0
/*
 * eusrv_eth: the node's port of the shared MAC, clause-45 MDIO to the PHY
 * and the carrier (docs/hardware.md, "The shared MAC and its PHY").
 *
 * The carrier follows the PHY's PMA/PMD link status, read over MDIO by a
 * delayed work item; the MAC's link-change interrupt runs it at once, and
 * it also runs every EUETH_LINK_POLL_MS in case an interrupt was lost.
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

u64 eueth_mac_rd64(struct eueth *p, u32 off)
{
	return readq(p->mac + off);
}

/* A node-written MAC register; the kick is harmless and makes it prompt. */
void eueth_mac_write(struct eueth *p, u32 off, u32 val)
{
	eueth_mac_wr(p, off, val);
	eueth_kick(p, p->mac_kick_val);
}

/* One MDIO command: ADDR, WDATA, then CMD with a new sequence number. */
static int eueth_mdio_cmd(struct eueth *p, u32 op, int devad, u16 reg, u16 wdata)
{
	u32 done = 0;
	int ret;

	lockdep_assert_held(&p->mdio_lock);
	if (++p->mdio_seq == 0)
		p->mdio_seq = 1;	/* MDIO_DONE reads 0 after attach */
	eueth_mac_wr(p, EUSRV_MAC_MDIO_ADDR,
		     EUSRV_MAC_MDIO_ADDR_VAL(EUSRV_PHY_ADDR, devad, reg));
	eueth_mac_wr(p, EUSRV_MAC_MDIO_WDATA, wdata);
	eueth_mac_wr(p, EUSRV_MAC_MDIO_CMD, EUSRV_MAC_MDIO_CMD_VAL(op, p->mdio_seq));
	eueth_kick(p, p->mac_kick_val);
	ret = readl_poll_timeout(p->mac + EUSRV_MAC_MDIO_DONE, done,
				 (done & EUSRV_MAC_MDIO_DONE_SEQ_MASK) == p->mdio_seq,
				 20, EUETH_MDIO_TIMEOUT_US);
	if (ret) {
		netdev_err(p->ndev, "MDIO command %u to MMD %d register %u timed out\n",
			   op, devad, reg);
		return ret;
	}
	if (done & EUSRV_MAC_MDIO_DONE_ERR)
		return -EIO;
	return 0;
}

int eueth_mdio_read(struct eueth *p, int devad, u16 reg)
{
	int ret;

	mutex_lock(&p->mdio_lock);
	ret = eueth_mdio_cmd(p, EUSRV_MAC_MDIO_OP_ADDR_READ, devad, reg, 0);
	if (!ret)
		ret = eueth_mac_rd(p, EUSRV_MAC_MDIO_RDATA) & 0xffff;
	mutex_unlock(&p->mdio_lock);
	return ret;
}

int eueth_mdio_write(struct eueth *p, int devad, u16 reg, u16 val)
{
	int ret;

	mutex_lock(&p->mdio_lock);
	ret = eueth_mdio_cmd(p, EUSRV_MAC_MDIO_OP_ADDR_WRITE, devad, reg, val);
	mutex_unlock(&p->mdio_lock);
	return ret;
}

/* PMA/PMD reset (ethtool -r): the PHY takes the link down for a moment. */
int eueth_phy_reset(struct eueth *p)
{
	int ret = eueth_mdio_read(p, MDIO_MMD_PMAPMD, MDIO_CTRL1);

	if (ret < 0)
		return ret;
	return eueth_mdio_write(p, MDIO_MMD_PMAPMD, MDIO_CTRL1, ret | MDIO_CTRL1_RESET);
}

void eueth_mac_set_addr(struct eueth *p, const u8 *a)
{
	eueth_mac_wr(p, EUSRV_MAC_ADDR_LO, a[0] | a[1] << 8 | a[2] << 16 | (u32)a[3] << 24);
	eueth_mac_write(p, EUSRV_MAC_ADDR_HI, a[4] | a[5] << 8);
}

/*
 * CTRL from the interface's state: enabled while up, the offloads its
 * features ask for, promiscuous and all-multicast from its flags (the MAC
 * has no multicast filter, so any multicast address means all of them).
 */
void eueth_mac_update_ctrl(struct eueth *p)
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
	eueth_mac_write(p, EUSRV_MAC_CTRL, ctrl);
}

void eueth_mac_disable(struct eueth *p)
{
	eueth_mac_write(p, EUSRV_MAC_CTRL, 0);
}

/* The PHY's link: PMA/PMD status 1, read twice (the bit latches low). */
static int eueth_phy_link(struct eueth *p)
{
	int ret = eueth_mdio_read(p, MDIO_MMD_PMAPMD, MDIO_STAT1);

	if (ret >= 0)
		ret = eueth_mdio_read(p, MDIO_MMD_PMAPMD, MDIO_STAT1);
	if (ret < 0)
		return ret;
	return !!(ret & MDIO_STAT1_LSTATUS);
}

void eueth_link_work(struct work_struct *work)
{
	struct eueth *p = container_of(to_delayed_work(work), struct eueth, link_work);
	struct net_device *ndev = p->ndev;
	int link = eueth_phy_link(p);

	if (link >= 0 && link != netif_carrier_ok(ndev)) {
		eueth_count(p, EUETH_C_LINK_CHANGES);
		if (link) {
			netif_carrier_on(ndev);
			netdev_info(ndev, "link up, 10Gbps full duplex\n");
		} else {
			netif_carrier_off(ndev);
			netdev_info(ndev, "link down\n");
		}
	}
	if (READ_ONCE(p->link_irq_on))
		schedule_delayed_work(&p->link_work, msecs_to_jiffies(EUETH_LINK_POLL_MS));
}

irqreturn_t eueth_mac_irq(int irq, void *data)
{
	struct eueth *p = data;
	u32 sr = eueth_mac_rd(p, EUSRV_MAC_SR) & EUSRV_MAC_SR_ALL;

	if (!sr)
		return IRQ_NONE;
	eueth_mac_wr(p, EUSRV_MAC_SR_CLR, sr);
	eueth_mac_wr(p, EUSRV_MAC_SR_CLR_SEQ, ++p->mac_clr_seq);
	eueth_kick(p, p->mac_kick_val);
	eueth_count(p, EUETH_C_IRQ_MAC);
	if ((sr & EUSRV_MAC_SR_LINK_CHG) && READ_ONCE(p->link_irq_on))
		mod_delayed_work(system_wq, &p->link_work, 0);
	return IRQ_HANDLED;
}

void eueth_link_start(struct eueth *p)
{
	WRITE_ONCE(p->link_irq_on, true);
	mod_delayed_work(system_wq, &p->link_work, 0);
}

void eueth_link_stop(struct eueth *p)
{
	WRITE_ONCE(p->link_irq_on, false);
	cancel_delayed_work_sync(&p->link_work);
	netif_carrier_off(p->ndev);
}
