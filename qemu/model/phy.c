/* The 10GBASE-R PHY model (see phy.h); register numbers from linux/mdio.h. */
#include "phy.h"

#include <string.h>

#include <eusrv/mac_hw.h>

/* IEEE 802.3 clause 45 register numbers and bits (linux/mdio.h values). */
#define REG_CTRL1		0
#define REG_STAT1		1
#define REG_DEVID1		2
#define REG_DEVID2		3
#define REG_SPEED		4
#define REG_DEVS1		5
#define REG_DEVS2		6
#define REG_CTRL2		7
#define REG_STAT2		8
#define REG_PMA_RXDET		10
#define REG_PKGID1		14
#define REG_PKGID2		15
#define REG_PCS_BR_STAT1	32

#define CTRL1_RESET		0x8000
#define CTRL1_SPEED10G		0x2040	/* speed select ext., 10G */
#define CTRL1_LPOWER		0x0800
#define PMA_CTRL1_LOOPBACK	0x0001
#define PCS_CTRL1_LOOPBACK	0x4000
#define STAT1_LPOWERABLE	0x0002
#define STAT1_LSTATUS		0x0004
#define STAT1_FAULT		0x0080
#define SPEED_10G		0x0001
#define DEVS1_VAL		0x000a	/* PMA/PMD, PCS */
#define DEVS2_VAL		0x4000	/* vendor 1 */
#define PMA_CTRL2_10GBSR	0x0007
#define STAT2_DEVPRST_VAL	0x8000
#define PMA_STAT2_LBABLE	0x0001
#define PMA_STAT2_10GBSR	0x0080
#define PCS_STAT2_10GBR		0x0001
#define PMD_RXDET_GLOBAL	0x0001
#define PCS_BR_STAT1_RLINK	0x1000
#define PCS_BR_STAT1_BLKLK	0x0001

void vb_phy_init(struct vb_phy *p)
{
	bool peer = p->peer;

	memset(p, 0, sizeof(*p));
	p->peer = peer;
	p->pma_ctrl1 = CTRL1_SPEED10G;
	p->pcs_ctrl1 = CTRL1_SPEED10G;
}

bool vb_phy_link(struct vb_phy *p, uint64_t now_us)
{
	if (p->reset_until_us) {
		if (now_us < p->reset_until_us)
			return false;
		p->reset_until_us = 0;
	}
	return !(p->pma_ctrl1 & CTRL1_LPOWER) &&
	       !(p->vend_ctrl & EUSRV_PHY_VEND_CTRL_LINK_DOWN);
}

bool vb_phy_loopback(const struct vb_phy *p)
{
	return (p->pma_ctrl1 & PMA_CTRL1_LOOPBACK) ||
	       (p->pcs_ctrl1 & PCS_CTRL1_LOOPBACK);
}

void vb_phy_link_went_down(struct vb_phy *p)
{
	p->pma_ll = p->pcs_ll = true;
}

uint64_t vb_phy_deadline(const struct vb_phy *p)
{
	return p->reset_until_us;
}

static bool vb_phy_present(unsigned int devad)
{
	return devad == PHY_MMD_PMAPMD || devad == PHY_MMD_PCS ||
	       devad == PHY_MMD_VEND1;
}

int vb_phy_address(struct vb_phy *p, unsigned int devad, uint16_t reg)
{
	if (devad >= 32 || !vb_phy_present(devad))
		return -1;
	p->latch[devad] = reg;
	return 0;
}

static void vb_phy_reset(struct vb_phy *p, uint64_t now_us)
{
	bool peer = p->peer;

	vb_phy_init(p);
	p->peer = peer;
	p->pma_ll = p->pcs_ll = true;
	p->reset_until_us = now_us + EUSRV_PHY_RESET_MS * 1000ULL;
}

static uint16_t vb_phy_common(unsigned int reg, bool *hit)
{
	*hit = true;
	switch (reg) {
	case REG_DEVID1:
	case REG_PKGID1:
		return EUSRV_PHY_DEVID1;
	case REG_DEVID2:
	case REG_PKGID2:
		return EUSRV_PHY_DEVID2;
	case REG_SPEED:
		return SPEED_10G;
	case REG_DEVS1:
		return DEVS1_VAL;
	case REG_DEVS2:
		return DEVS2_VAL;
	default:
		*hit = false;
		return 0;
	}
}

int vb_phy_read(struct vb_phy *p, unsigned int devad, bool inc, uint16_t *val,
		uint64_t now_us)
{
	bool link, hit;
	uint16_t reg, v = 0;

	if (devad >= 32 || !vb_phy_present(devad))
		return -1;
	reg = p->latch[devad];
	if (inc)
		p->latch[devad] = (uint16_t)(reg + 1);
	link = vb_phy_link(p, now_us);
	if (devad == PHY_MMD_VEND1) {
		if (reg == EUSRV_PHY_VEND_CTRL)
			v = p->vend_ctrl;
		else if (reg == EUSRV_PHY_VEND_STAT)
			v = (p->peer ? EUSRV_PHY_VEND_STAT_PEER : 0) |
			    (link ? EUSRV_PHY_VEND_STAT_LINK : 0);
		*val = v;
		return 0;
	}
	v = vb_phy_common(reg, &hit);
	if (!hit) {
		bool pma = devad == PHY_MMD_PMAPMD;

		switch (reg) {
		case REG_CTRL1:
			v = pma ? p->pma_ctrl1 : p->pcs_ctrl1;
			if (p->reset_until_us)
				v |= CTRL1_RESET;
			break;
		case REG_STAT1:
			v = STAT1_LPOWERABLE;
			if (pma) {
				if (link && !p->pma_ll)
					v |= STAT1_LSTATUS;
				p->pma_ll = false;
			} else {
				if (link && !p->pcs_ll)
					v |= STAT1_LSTATUS;
				p->pcs_ll = false;
			}
			if (!link)
				v |= STAT1_FAULT;
			break;
		case REG_CTRL2:
			v = pma ? PMA_CTRL2_10GBSR : 0;
			break;
		case REG_STAT2:
			v = STAT2_DEVPRST_VAL |
			    (pma ? PMA_STAT2_LBABLE | PMA_STAT2_10GBSR :
				   PCS_STAT2_10GBR);
			break;
		case REG_PMA_RXDET:
			v = pma && link ? PMD_RXDET_GLOBAL : 0;
			break;
		case REG_PCS_BR_STAT1:
			v = !pma && link ?
			    PCS_BR_STAT1_RLINK | PCS_BR_STAT1_BLKLK : 0;
			break;
		default:
			v = 0;
			break;
		}
	}
	*val = v;
	return 0;
}

int vb_phy_write(struct vb_phy *p, unsigned int devad, uint16_t val,
		 uint64_t now_us)
{
	uint16_t reg;

	if (devad >= 32 || !vb_phy_present(devad))
		return -1;
	reg = p->latch[devad];
	if (devad == PHY_MMD_VEND1) {
		if (reg == EUSRV_PHY_VEND_CTRL)
			p->vend_ctrl = val & EUSRV_PHY_VEND_CTRL_LINK_DOWN;
		return 0;
	}
	if (reg != REG_CTRL1)
		return 0;
	if (val & CTRL1_RESET) {
		vb_phy_reset(p, now_us);
		return 0;
	}
	if (devad == PHY_MMD_PMAPMD)
		p->pma_ctrl1 = CTRL1_SPEED10G |
			       (val & (CTRL1_LPOWER | PMA_CTRL1_LOOPBACK));
	else
		p->pcs_ctrl1 = CTRL1_SPEED10G | (val & PCS_CTRL1_LOOPBACK);
	return 0;
}
