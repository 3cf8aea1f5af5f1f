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

enum eueth_reg_kind {
	EUETH_REG_MAC32,	/* a u32 of the MAC port's page */
	EUETH_REG_MAC64,	/* a u64 counter of the MAC port's page */
	EUETH_REG_PHY,		/* a 16-bit clause-45 register of the PHY */
};

struct eueth_reg {
	const char *name;	/* the file's name */
	u8 kind;		/* enum eueth_reg_kind */
	u8 devad;		/* PHY: the MMD */
	u16 off;		/* MAC: page offset; PHY: register number */
	u32 wmask;		/* bits a write may set; 0: read-only */
	u32 min, max;		/* range a written value must lie in */
};

#define EUETH_MAC_RO(n, o)	{ .name = n, .kind = EUETH_REG_MAC32, .off = o }
#define EUETH_MAC_RW(n, o, m, lo, hi) \
	{ .name = n, .kind = EUETH_REG_MAC32, .off = o, .wmask = m, .min = lo, .max = hi }
#define EUETH_PHY_RO(n, d, r)	{ .name = n, .kind = EUETH_REG_PHY, .devad = d, .off = r }
#define EUETH_PHY_RW(n, d, r, m) \
	{ .name = n, .kind = EUETH_REG_PHY, .devad = d, .off = r, .wmask = m, .max = 0xffffU }

/* The longest value a write may carry: "0x" and 32 bits, or decimal, and a newline. */
#define EUETH_PROC_WRITE_MAX	24U

/*
 * Parse a value written to register R's file: decimal, 0x-hexadecimal or
 * 0-octal (kstrtou32 base 0), one optional trailing newline.  -EINVAL for
 * a read-only register, malformed text, bits outside the writable ones or
 * a value outside [min, max].
 */
static inline int eueth_reg_parse(const struct eueth_reg *r, const char *buf,
				  size_t count, u32 *val)
{
	char tmp[EUETH_PROC_WRITE_MAX + 1];
	u32 v;

	if (!r->wmask || !count || count > EUETH_PROC_WRITE_MAX)
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
static inline const struct eueth_reg *eueth_reg_find(const struct eueth_reg *tab,
						     size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(tab[i].name, name))
			return &tab[i];
	return NULL;
}

/* PHY MMDs (include/uapi/linux/mdio.h) and the vendor MMD of mac_hw.h. */
#define EUETH_MMD_PMA		MDIO_MMD_PMAPMD
#define EUETH_MMD_PCS		MDIO_MMD_PCS
#define EUETH_MMD_VEND		MDIO_MMD_VEND1

/* Writable bits of the PHY's control registers (docs/hardware.md). */
#define EUETH_PMA_CTRL1_WMASK	(MDIO_CTRL1_RESET | MDIO_CTRL1_LPOWER | \
				 MDIO_CTRL1_SPEEDSEL | MDIO_PMA_CTRL1_LOOPBACK)
#define EUETH_PCS_CTRL1_WMASK	(MDIO_CTRL1_RESET | MDIO_PCS_CTRL1_LOOPBACK | \
				 MDIO_CTRL1_SPEEDSEL)

/*
 * The MAC's counters: the same set for this port, the whole MAC and the
 * line side; the files are "<set>_<counter>", e.g. "port_rx_nodesc".
 */
static const char *const eueth_cnt_regs[EUSRV_MAC_STATS_COUNT] = {
	"tx_frames", "tx_bytes", "tx_oversize", "tx_errors", "tx_drops",
	"tx_csum", "tx_csum_bad", "rx_frames", "rx_bytes", "rx_nodesc",
	"rx_filtered", "rx_oversize", "rx_drops", "rx_errors", "rx_mcast",
};

static const struct {
	const char *prefix;
	u16 base;
} eueth_cnt_sets[] = {
	{ "port", EUSRV_MAC_STATS_PORT },
	{ "total", EUSRV_MAC_STATS_TOTAL },
	{ "line", EUSRV_MAC_STATS_LINE },
};

#define EUETH_NR_CNT_FILES	(ARRAY_SIZE(eueth_cnt_sets) * EUSRV_MAC_STATS_COUNT)

/*
 * The other files: the MAC port's registers (writable where the node
 * writes them; the MDIO mechanism's own registers are the driver's and
 * read-only here), then the PHY's registers.
 */
static const struct eueth_reg eueth_regs[] = {
	EUETH_MAC_RO("id", EUSRV_MAC_ID),
	EUETH_MAC_RO("caps", EUSRV_MAC_CAPS),
	EUETH_MAC_RO("port", EUSRV_MAC_PORT),
	EUETH_MAC_RO("mtu_max", EUSRV_MAC_MTU_MAX),
	EUETH_MAC_RW("ctrl", EUSRV_MAC_CTRL, EUSRV_MAC_CTRL_VALID, 0, U32_MAX),
	EUETH_MAC_RW("mtu", EUSRV_MAC_MTU, U32_MAX, EUSRV_MAC_MTU_MIN,
		     EUSRV_MAC_MTU_JUMBO),
	EUETH_MAC_RW("addr_lo", EUSRV_MAC_ADDR_LO, U32_MAX, 0, U32_MAX),
	EUETH_MAC_RW("addr_hi", EUSRV_MAC_ADDR_HI, 0xffffU, 0, 0xffffU),
	EUETH_MAC_RO("link", EUSRV_MAC_LINK),
	EUETH_MAC_RO("sr", EUSRV_MAC_SR),
	EUETH_MAC_RO("link_changes", EUSRV_MAC_LINK_CHANGES),
	EUETH_MAC_RO("bad_cnt", EUSRV_MAC_BAD_CNT),
	EUETH_MAC_RO("bad_last", EUSRV_MAC_BAD_LAST),
	EUETH_MAC_RO("mdio_addr", EUSRV_MAC_MDIO_ADDR),
	EUETH_MAC_RO("mdio_wdata", EUSRV_MAC_MDIO_WDATA),
	EUETH_MAC_RO("mdio_cmd", EUSRV_MAC_MDIO_CMD),
	EUETH_MAC_RO("mdio_rdata", EUSRV_MAC_MDIO_RDATA),
	EUETH_MAC_RO("mdio_done", EUSRV_MAC_MDIO_DONE),
	EUETH_PHY_RW("phy_pma_ctrl1", EUETH_MMD_PMA, MDIO_CTRL1, EUETH_PMA_CTRL1_WMASK),
	EUETH_PHY_RO("phy_pma_stat1", EUETH_MMD_PMA, MDIO_STAT1),
	EUETH_PHY_RO("phy_pma_devid1", EUETH_MMD_PMA, MDIO_DEVID1),
	EUETH_PHY_RO("phy_pma_devid2", EUETH_MMD_PMA, MDIO_DEVID2),
	EUETH_PHY_RO("phy_pma_speed", EUETH_MMD_PMA, MDIO_SPEED),
	EUETH_PHY_RO("phy_pma_devs1", EUETH_MMD_PMA, MDIO_DEVS1),
	EUETH_PHY_RO("phy_pma_devs2", EUETH_MMD_PMA, MDIO_DEVS2),
	EUETH_PHY_RO("phy_pma_ctrl2", EUETH_MMD_PMA, MDIO_CTRL2),
	EUETH_PHY_RO("phy_pma_stat2", EUETH_MMD_PMA, MDIO_STAT2),
	EUETH_PHY_RO("phy_pma_rxdet", EUETH_MMD_PMA, MDIO_PMA_RXDET),
	EUETH_PHY_RO("phy_pma_pkgid1", EUETH_MMD_PMA, MDIO_PKGID1),
	EUETH_PHY_RO("phy_pma_pkgid2", EUETH_MMD_PMA, MDIO_PKGID2),
	EUETH_PHY_RW("phy_pcs_ctrl1", EUETH_MMD_PCS, MDIO_CTRL1, EUETH_PCS_CTRL1_WMASK),
	EUETH_PHY_RO("phy_pcs_stat1", EUETH_MMD_PCS, MDIO_STAT1),
	EUETH_PHY_RO("phy_pcs_devid1", EUETH_MMD_PCS, MDIO_DEVID1),
	EUETH_PHY_RO("phy_pcs_devid2", EUETH_MMD_PCS, MDIO_DEVID2),
	EUETH_PHY_RO("phy_pcs_speed", EUETH_MMD_PCS, MDIO_SPEED),
	EUETH_PHY_RO("phy_pcs_devs1", EUETH_MMD_PCS, MDIO_DEVS1),
	EUETH_PHY_RO("phy_pcs_devs2", EUETH_MMD_PCS, MDIO_DEVS2),
	EUETH_PHY_RO("phy_pcs_ctrl2", EUETH_MMD_PCS, MDIO_CTRL2),
	EUETH_PHY_RO("phy_pcs_stat2", EUETH_MMD_PCS, MDIO_STAT2),
	EUETH_PHY_RO("phy_pcs_pkgid1", EUETH_MMD_PCS, MDIO_PKGID1),
	EUETH_PHY_RO("phy_pcs_pkgid2", EUETH_MMD_PCS, MDIO_PKGID2),
	EUETH_PHY_RO("phy_pcs_10gbrt_stat1", EUETH_MMD_PCS, MDIO_PCS_10GBRT_STAT1),
	EUETH_PHY_RW("phy_vend_ctrl", EUETH_MMD_VEND, EUSRV_PHY_VEND_CTRL,
		     EUSRV_PHY_VEND_CTRL_LINK_DOWN),
	EUETH_PHY_RO("phy_vend_stat", EUETH_MMD_VEND, EUSRV_PHY_VEND_STAT),
};

#define EUETH_NR_REGS		ARRAY_SIZE(eueth_regs)

#endif /* EUSRV_ETH_REGS_H */
