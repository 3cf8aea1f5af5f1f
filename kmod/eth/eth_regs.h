/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The registers the shared-NIC driver shows in /proc/eusrv-eth/<ifname>/
 * (D4.2 section 3.2: one file per MAC register and per MDIO/PHY register)
 * and the parser of the values written to them.  No hardware access here:
 * the KUnit suite checks the parser and the table as the driver uses them.
 */
#ifndef EUSRV_ETH_REGS_H
#define EUSRV_ETH_REGS_H

#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/mdio.h>
#include <linux/string.h>
#include <linux/types.h>

#include <eusrv/mac_hw.h>

enum eth_reg_kind {
	ETH_REG_MAC32,	/* a u32 of the MAC port's page */
	ETH_REG_MAC64,	/* a u64 counter of the MAC port's page */
	ETH_REG_PHY,		/* a 16-bit clause-45 register of the PHY */
};

struct eth_reg {
	const char *name;	/* the file's name */
	u8 kind;		/* enum eth_reg_kind */
	u8 devad;		/* PHY: the MMD */
	u16 off;		/* MAC: page offset; PHY: register number */
	u32 wmask;		/* bits a write may set; 0: read-only */
	u32 min, max;		/* range a written value must lie in */
};

#define ETH_MAC_RO(n, o)	{ .name = n, .kind = ETH_REG_MAC32, .off = o }
#define ETH_MAC_RW(n, o, m, lo, hi) \
	{ .name = n, .kind = ETH_REG_MAC32, .off = o, .wmask = m, .min = lo, .max = hi }
#define ETH_PHY_RO(n, d, r)	{ .name = n, .kind = ETH_REG_PHY, .devad = d, .off = r }
#define ETH_PHY_RW(n, d, r, m) \
	{ .name = n, .kind = ETH_REG_PHY, .devad = d, .off = r, .wmask = m, .max = 0xffffU }

/* The longest value a write may carry: "0x" and 32 bits, or decimal, and a newline. */
#define ETH_PROC_WRITE_MAX	24U

/*
 * Parse a value written to register R's file: decimal, 0x-hexadecimal or
 * 0-octal (kstrtou32 base 0), one optional trailing newline.  -EINVAL for
 * a read-only register, malformed text, bits outside the writable ones or
 * a value outside [min, max].
 */
static inline int eth_reg_parse(const struct eth_reg *r, const char *buf,
				size_t count, u32 *val)
{
	char tmp[ETH_PROC_WRITE_MAX + 1];
	u32 v;

	if (!r->wmask || !count || count > ETH_PROC_WRITE_MAX)
		return -EINVAL;
	memcpy(tmp, buf, count);
	tmp[count] = '\0';
	/* kstrtou32 takes one trailing newline, nothing else. */
	if (kstrtou32(tmp, 0, &v))
		return -EINVAL;
	if (v & ~r->wmask || v < r->min || v > r->max)
		return -EINVAL;
	*val = v;
	return 0;
}

/* Look a register up by its file name; NULL if there is none. */
static inline const struct eth_reg *eth_reg_find(const struct eth_reg *tab,
						 size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(tab[i].name, name))
			return &tab[i];
	return NULL;
}

/* PHY MMDs (include/uapi/linux/mdio.h) and the vendor MMD of mac_hw.h. */
#define ETH_MMD_PMA		MDIO_MMD_PMAPMD
#define ETH_MMD_PCS		MDIO_MMD_PCS
#define ETH_MMD_VEND		MDIO_MMD_VEND1

/* Writable bits of the PHY's control registers (docs/hardware.md). */
#define ETH_PMA_CTRL1_WMASK	(MDIO_CTRL1_RESET | MDIO_CTRL1_LPOWER | \
				 MDIO_CTRL1_SPEEDSEL | MDIO_PMA_CTRL1_LOOPBACK)
#define ETH_PCS_CTRL1_WMASK	(MDIO_CTRL1_RESET | MDIO_PCS_CTRL1_LOOPBACK | \
				 MDIO_CTRL1_SPEEDSEL)

/*
 * The MAC's counters: the same set for this port, the whole MAC and the
 * line side; the files are "<set>_<counter>", e.g. "port_rx_nodesc".
 */
static const char *const eth_cnt_regs[EUSRV_MAC_STATS_COUNT] = {
	"tx_frames", "tx_bytes", "tx_oversize", "tx_errors", "tx_drops",
	"tx_csum", "tx_csum_bad", "rx_frames", "rx_bytes", "rx_nodesc",
	"rx_filtered", "rx_oversize", "rx_drops", "rx_errors", "rx_mcast",
};

static const struct {
	const char *prefix;
	u16 base;
} eth_cnt_sets[] = {
	{ "port", EUSRV_MAC_STATS_PORT },
	{ "total", EUSRV_MAC_STATS_TOTAL },
	{ "line", EUSRV_MAC_STATS_LINE },
};

#define ETH_NR_CNT_FILES	(ARRAY_SIZE(eth_cnt_sets) * EUSRV_MAC_STATS_COUNT)

/*
 * The other files: the MAC port's registers (writable where the node
 * writes them; the MDIO mechanism's own registers are the driver's and
 * read-only here), then the PHY's registers.
 */
static const struct eth_reg eth_regs[] = {
	ETH_MAC_RO("id", EUSRV_MAC_ID),
	ETH_MAC_RO("caps", EUSRV_MAC_CAPS),
	ETH_MAC_RO("port", EUSRV_MAC_PORT),
	ETH_MAC_RO("mtu_max", EUSRV_MAC_MTU_MAX),
	ETH_MAC_RW("ctrl", EUSRV_MAC_CTRL, EUSRV_MAC_CTRL_VALID, 0, U32_MAX),
	ETH_MAC_RW("mtu", EUSRV_MAC_MTU, U32_MAX, EUSRV_MAC_MTU_MIN,
		   EUSRV_MAC_MTU_JUMBO),
	ETH_MAC_RW("addr_lo", EUSRV_MAC_ADDR_LO, U32_MAX, 0, U32_MAX),
	ETH_MAC_RW("addr_hi", EUSRV_MAC_ADDR_HI, 0xffffU, 0, 0xffffU),
	ETH_MAC_RO("link", EUSRV_MAC_LINK),
	ETH_MAC_RO("sr", EUSRV_MAC_SR),
	ETH_MAC_RO("link_changes", EUSRV_MAC_LINK_CHANGES),
	ETH_MAC_RO("bad_cnt", EUSRV_MAC_BAD_CNT),
	ETH_MAC_RO("bad_last", EUSRV_MAC_BAD_LAST),
	ETH_MAC_RO("mdio_addr", EUSRV_MAC_MDIO_ADDR),
	ETH_MAC_RO("mdio_wdata", EUSRV_MAC_MDIO_WDATA),
	ETH_MAC_RO("mdio_cmd", EUSRV_MAC_MDIO_CMD),
	ETH_MAC_RO("mdio_rdata", EUSRV_MAC_MDIO_RDATA),
	ETH_MAC_RO("mdio_done", EUSRV_MAC_MDIO_DONE),
	ETH_PHY_RW("phy_pma_ctrl1", ETH_MMD_PMA, MDIO_CTRL1, ETH_PMA_CTRL1_WMASK),
	ETH_PHY_RO("phy_pma_stat1", ETH_MMD_PMA, MDIO_STAT1),
	ETH_PHY_RO("phy_pma_devid1", ETH_MMD_PMA, MDIO_DEVID1),
	ETH_PHY_RO("phy_pma_devid2", ETH_MMD_PMA, MDIO_DEVID2),
	ETH_PHY_RO("phy_pma_speed", ETH_MMD_PMA, MDIO_SPEED),
	ETH_PHY_RO("phy_pma_devs1", ETH_MMD_PMA, MDIO_DEVS1),
	ETH_PHY_RO("phy_pma_devs2", ETH_MMD_PMA, MDIO_DEVS2),
	ETH_PHY_RO("phy_pma_ctrl2", ETH_MMD_PMA, MDIO_CTRL2),
	ETH_PHY_RO("phy_pma_stat2", ETH_MMD_PMA, MDIO_STAT2),
	ETH_PHY_RO("phy_pma_rxdet", ETH_MMD_PMA, MDIO_PMA_RXDET),
	ETH_PHY_RO("phy_pma_pkgid1", ETH_MMD_PMA, MDIO_PKGID1),
	ETH_PHY_RO("phy_pma_pkgid2", ETH_MMD_PMA, MDIO_PKGID2),
	ETH_PHY_RW("phy_pcs_ctrl1", ETH_MMD_PCS, MDIO_CTRL1, ETH_PCS_CTRL1_WMASK),
	ETH_PHY_RO("phy_pcs_stat1", ETH_MMD_PCS, MDIO_STAT1),
	ETH_PHY_RO("phy_pcs_devid1", ETH_MMD_PCS, MDIO_DEVID1),
	ETH_PHY_RO("phy_pcs_devid2", ETH_MMD_PCS, MDIO_DEVID2),
	ETH_PHY_RO("phy_pcs_speed", ETH_MMD_PCS, MDIO_SPEED),
	ETH_PHY_RO("phy_pcs_devs1", ETH_MMD_PCS, MDIO_DEVS1),
	ETH_PHY_RO("phy_pcs_devs2", ETH_MMD_PCS, MDIO_DEVS2),
	ETH_PHY_RO("phy_pcs_ctrl2", ETH_MMD_PCS, MDIO_CTRL2),
	ETH_PHY_RO("phy_pcs_stat2", ETH_MMD_PCS, MDIO_STAT2),
	ETH_PHY_RO("phy_pcs_pkgid1", ETH_MMD_PCS, MDIO_PKGID1),
	ETH_PHY_RO("phy_pcs_pkgid2", ETH_MMD_PCS, MDIO_PKGID2),
	ETH_PHY_RO("phy_pcs_10gbrt_stat1", ETH_MMD_PCS, MDIO_PCS_10GBRT_STAT1),
	ETH_PHY_RW("phy_vend_ctrl", ETH_MMD_VEND, EUSRV_PHY_VEND_CTRL,
		   EUSRV_PHY_VEND_CTRL_LINK_DOWN),
	ETH_PHY_RO("phy_vend_stat", ETH_MMD_VEND, EUSRV_PHY_VEND_STAT),
};

#define ETH_NR_REGS		ARRAY_SIZE(eth_regs)

#endif /* EUSRV_ETH_REGS_H */
