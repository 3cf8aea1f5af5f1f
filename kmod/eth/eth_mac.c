// SPDX-License-Identifier: GPL-2.0
/*
 * eusrv_eth: the node's port of the shared MAC, its clause-45 MDIO bus and
 * the PHY on it, and the carrier (docs/hardware.md, "The shared MAC and its
 * PHY").
 *
 * The MAC's MDIO registers are a kernel MDIO bus (struct mii_bus), scanned
 * for clause-45 PHYs, so the PHY is a phy_device like any other: in
 * /sys/bus/mdio_bus/devices, reachable with the MII ioctls, and driven by
 * phylib.  No driver of this PHY is needed: phylib attaches its generic
 * clause-45 driver, which reads the PMA/PMD link status.  phylib's state
 * machine then polls the PHY once a second and sets the carrier; the
 * MAC's link-change interrupt runs it at once (phy_mac_interrupt()).
 */
#include <linux/delay.h>
#include <linux/etherdevice.h>
#include <linux/interrupt.h>
#include <linux/iopoll.h>
/* 32-bit builds: the MAC's 64-bit counters are read in two halves. */
#include <linux/io-64-nonatomic-lo-hi.h>
#include <linux/mdio.h>
#include <linux/netdevice.h>
#include <linux/phy.h>

#include "eth.h"

u64 eusrv_eth_mac_rd64(struct eth_port *p, u32 off)
{
	return readq(p->mac + off);
}

/* A node-written MAC register; the kick is harmless and makes it prompt. */
void eusrv_eth_mac_write(struct eth_port *p, u32 off, u32 val)
{
	eth_mac_wr(p, off, val);
	eth_kick(p, p->mac_kick_val);
}

/*
 * One MDIO command: ADDR, WDATA, then CMD with a new sequence number.
 * -ENODEV when no PHY or MMD answered (MDIO_DONE's error bit).
 */
static int eth_mdio_cmd(struct eth_port *p, u32 op, int prtad, int devad, u16 reg,
			u16 wdata)
{
	u32 done = 0;
	int ret;

	lockdep_assert_held(&p->mii->mdio_lock);
	if (++p->mdio_seq == 0)
		p->mdio_seq = 1;	/* MDIO_DONE reads 0 after attach */
	eth_mac_wr(p, EUSRV_MAC_MDIO_ADDR, EUSRV_MAC_MDIO_ADDR_VAL(prtad, devad, reg));
	eth_mac_wr(p, EUSRV_MAC_MDIO_WDATA, wdata);
	eth_mac_wr(p, EUSRV_MAC_MDIO_CMD, EUSRV_MAC_MDIO_CMD_VAL(op, p->mdio_seq));
	eth_kick(p, p->mac_kick_val);
	ret = readl_poll_timeout(p->mac + EUSRV_MAC_MDIO_DONE, done,
				 (done & EUSRV_MAC_MDIO_DONE_SEQ_MASK) == p->mdio_seq,
				 20, ETH_MDIO_TIMEOUT_US);
	if (ret) {
		netdev_err(p->ndev, "MDIO command %u to PHY %d MMD %d register %u timed out\n",
			   op, prtad, devad, reg);
		return ret;
	}
	if (done & EUSRV_MAC_MDIO_DONE_ERR)
		return -ENODEV;
	return 0;
}

/*
 * The bus's read and write (6.1: a clause-45 access has MII_ADDR_C45 in
 * REGNUM; the MAC has no clause-22 frames).  What no PHY or MMD answers
 * reads as all ones and a write to it goes nowhere, as on an MDIO bus
 * nothing drives and as MDIO_RDATA then holds: phylib's bus scan and its
 * generic clause-45 driver (which clears the AN MMD's control bits even
 * where there is no AN MMD) take a bus to behave so.
 */
static int eth_mdio_read(struct mii_bus *bus, int addr, int regnum)
{
	struct eth_port *p = bus->priv;
	int ret;

	if (!(regnum & MII_ADDR_C45))
		return -EOPNOTSUPP;
	ret = eth_mdio_cmd(p, EUSRV_MAC_MDIO_OP_ADDR_READ, addr, mdiobus_c45_devad(regnum),
			   mdiobus_c45_regad(regnum), 0);
	if (ret == -ENODEV)
		return 0xffff;
	if (ret)
		return ret;
	return eth_mac_rd(p, EUSRV_MAC_MDIO_RDATA) & 0xffff;
}

static int eth_mdio_write(struct mii_bus *bus, int addr, int regnum, u16 val)
{
	struct eth_port *p = bus->priv;
	int ret;

	if (!(regnum & MII_ADDR_C45))
		return -EOPNOTSUPP;
	ret = eth_mdio_cmd(p, EUSRV_MAC_MDIO_OP_ADDR_WRITE, addr, mdiobus_c45_devad(regnum),
			   mdiobus_c45_regad(regnum), val);
	return ret == -ENODEV ? 0 : ret;
}

/*
 * The MDIO bus and the PHY on it.  The board has one PHY, at
 * EUSRV_PHY_ADDR (mac_hw.h), and only that address is scanned: each
 * address scanned costs some sixty MDIO commands.  The scan reads the
 * PHY's clause-45 identifiers and registers it as a phy_device.
 */
int eusrv_eth_mdio_register(struct eth_port *p)
{
	struct mii_bus *bus;
	int ret;

	bus = devm_mdiobus_alloc(p->dev);
	if (!bus)
		return -ENOMEM;
	bus->name = "eusrv_eth MDIO";
	snprintf(bus->id, MII_BUS_ID_SIZE, "%s-mii", dev_name(p->dev));
	bus->priv = p;
	bus->parent = p->dev;
	bus->read = eth_mdio_read;
	bus->write = eth_mdio_write;
	bus->probe_capabilities = MDIOBUS_C45;
	bus->phy_mask = ~(u32)BIT(EUSRV_PHY_ADDR);
	p->mii = bus;
	ret = devm_mdiobus_register(p->dev, bus);
	if (ret)
		return dev_err_probe(p->dev, ret, "cannot register the MDIO bus\n");
	p->phydev = phy_find_first(bus);
	if (!p->phydev)
		return dev_err_probe(p->dev, -ENODEV, "no PHY on the MDIO bus %s\n", bus->id);
	return 0;
}

/* A PHY register (procfs), through the bus: serialised with phylib's accesses. */
int eusrv_eth_phy_read(struct eth_port *p, int devad, u16 reg)
{
	return mdiobus_c45_read(p->mii, p->phydev->mdio.addr, devad, reg);
}

int eusrv_eth_phy_write(struct eth_port *p, int devad, u16 reg, u16 val)
{
	return mdiobus_c45_write(p->mii, p->phydev->mdio.addr, devad, reg, val);
}

/* PMA/PMD reset (ethtool -r): the PHY takes the link down for a moment. */
int eusrv_eth_phy_reset(struct eth_port *p)
{
	return phy_set_bits_mmd(p->phydev, MDIO_MMD_PMAPMD, MDIO_CTRL1, MDIO_CTRL1_RESET);
}

void eusrv_eth_mac_set_addr(struct eth_port *p, const u8 *a)
{
	eth_mac_wr(p, EUSRV_MAC_ADDR_LO, a[0] | a[1] << 8 | a[2] << 16 | (u32)a[3] << 24);
	eusrv_eth_mac_write(p, EUSRV_MAC_ADDR_HI, a[4] | a[5] << 8);
}

/*
 * CTRL from the interface's state: enabled while up, the offloads its
 * features ask for, promiscuous and all-multicast from its flags (the MAC
 * has no multicast filter, so any multicast address means all of them).
 */
void eusrv_eth_mac_update_ctrl(struct eth_port *p)
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
	eusrv_eth_mac_write(p, EUSRV_MAC_CTRL, ctrl);
}

void eusrv_eth_mac_disable(struct eth_port *p)
{
	eusrv_eth_mac_write(p, EUSRV_MAC_CTRL, 0);
}

/* phylib calls this on every link change, after setting the carrier. */
static void eth_adjust_link(struct net_device *ndev)
{
	struct eth_port *p = netdev_priv(ndev);

	eth_count(p, ETH_C_LINK_CHANGES);
	phy_print_status(p->phydev);
}

/*
 * Attach the PHY to the registered netdev (the sysfs links phydev and
 * attached_dev need it registered).  The MAC talks XGMII to the PHY.
 */
int eusrv_eth_phy_connect(struct eth_port *p)
{
	int ret;

	ret = phy_connect_direct(p->ndev, p->phydev, eth_adjust_link,
				 PHY_INTERFACE_MODE_XGMII);
	if (ret)
		return ret;
	/* The MAC sends and honours no pause frames. */
	phy_remove_link_mode(p->phydev, ETHTOOL_LINK_MODE_Pause_BIT);
	phy_remove_link_mode(p->phydev, ETHTOOL_LINK_MODE_Asym_Pause_BIT);
	phy_attached_info(p->phydev);
	return 0;
}

/* Before the netdev leaves sysfs (ndo_uninit), so the links go with it. */
void eusrv_eth_phy_disconnect(struct eth_port *p)
{
	if (p->ndev->phydev)
		phy_disconnect(p->phydev);
}

irqreturn_t eusrv_eth_mac_irq(int irq, void *data)
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
		phy_mac_interrupt(p->phydev);
	return IRQ_HANDLED;
}

/* phylib takes the link from here on: carrier, polling, link interrupts. */
void eusrv_eth_link_start(struct eth_port *p)
{
	phy_start(p->phydev);
	WRITE_ONCE(p->link_irq_on, true);
}

/* The carrier goes off with phy_stop(). */
void eusrv_eth_link_stop(struct eth_port *p)
{
	WRITE_ONCE(p->link_irq_on, false);
	synchronize_irq(p->mac_irq);
	phy_stop(p->phydev);
}
