/*
 * The shared MAC's clause-45 10GBASE-R PHY (mac_hw.h, "The PHY"): PMA/PMD,
 * PCS and vendor-1 registers, link status with latching-low status bits,
 * loopback, low power, reset with a link-down period.  Time in µs.
 */
#ifndef EUSRV_MODEL_PHY_H
#define EUSRV_MODEL_PHY_H

#include <stdbool.h>
#include <stdint.h>

#define PHY_MMD_PMAPMD	1U
#define PHY_MMD_PCS	3U
#define PHY_MMD_VEND1	30U

struct vb_phy {
	uint16_t pma_ctrl1;
	uint16_t pcs_ctrl1;
	uint16_t vend_ctrl;
	bool pma_ll, pcs_ll;		/* link went down since last status read */
	uint16_t latch[32];		/* register address per MMD (clause 45) */
	uint64_t reset_until_us;	/* 0: no reset in progress */
	bool peer;			/* line-side peer connected */
};

void vb_phy_init(struct vb_phy *p);
/* Link status now (also ends a reset that is over). */
bool vb_phy_link(struct vb_phy *p, uint64_t now_us);
bool vb_phy_loopback(const struct vb_phy *p);
/* Call when the link went down: status bits latch low. */
void vb_phy_link_went_down(struct vb_phy *p);
/* Clause-45 access: 0, or -1 if no such MMD (no answer). */
int vb_phy_address(struct vb_phy *p, unsigned int devad, uint16_t reg);
int vb_phy_read(struct vb_phy *p, unsigned int devad, bool inc, uint16_t *val,
		uint64_t now_us);
int vb_phy_write(struct vb_phy *p, unsigned int devad, uint16_t val,
		 uint64_t now_us);
/* When a reset in progress ends (0: none). */
uint64_t vb_phy_deadline(const struct vb_phy *p);

#endif /* EUSRV_MODEL_PHY_H */
