// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite of the shared-NIC driver's procfs registers, eth/eth_regs.h as
 * the driver includes it: the value parser (number formats, newline,
 * malformed text, read-only registers, reserved bits, ranges) and the
 * register table itself (unique file names, what is writable).
 */
#include <kunit/test.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/string.h>

#include <eusrv/mac_hw.h>

#include "../eth/eth_regs.h"

static const struct eth_reg *reg(struct kunit *test, const char *name)
{
	const struct eth_reg *r = eth_reg_find(eth_regs, ETH_NR_REGS, name);

	KUNIT_ASSERT_NOT_NULL(test, r);
	return r;
}

static int parse(const struct eth_reg *r, const char *s, u32 *v)
{
	return eth_reg_parse(r, s, strlen(s), v);
}

static void regs_test_formats(struct kunit *test)
{
	const struct eth_reg *r = reg(test, "addr_lo");
	u32 v = 0;

	KUNIT_EXPECT_EQ(test, parse(r, "1234", &v), 0);
	KUNIT_EXPECT_EQ(test, v, 1234U);
	KUNIT_EXPECT_EQ(test, parse(r, "0xdeadbeef\n", &v), 0);
	KUNIT_EXPECT_EQ(test, v, 0xdeadbeefU);
	KUNIT_EXPECT_EQ(test, parse(r, "0XFF", &v), 0);
	KUNIT_EXPECT_EQ(test, v, 0xffU);
	KUNIT_EXPECT_EQ(test, parse(r, "010", &v), 0);
	KUNIT_EXPECT_EQ(test, v, 8U);
	KUNIT_EXPECT_EQ(test, parse(r, "4294967295", &v), 0);
	KUNIT_EXPECT_EQ(test, v, U32_MAX);
	/* The buffer need not be terminated: only COUNT bytes are read. */
	KUNIT_EXPECT_EQ(test, eth_reg_parse(r, "12345", 2, &v), 0);
	KUNIT_EXPECT_EQ(test, v, 12U);
}

static void regs_test_malformed(struct kunit *test)
{
	const struct eth_reg *r = reg(test, "addr_lo");
	static const char *const bad[] = {
		"", "\n", "x", "0x", "12a", "-1", "+-3", "1 2", " 1", "1\n\n",
		"4294967296", "0x1ffffffff", "1.0", "0xfffffffff",
	};
	unsigned int i;
	u32 v = 77;

	for (i = 0; i < ARRAY_SIZE(bad); i++)
		KUNIT_EXPECT_EQ_MSG(test, parse(r, bad[i], &v), -EINVAL, "value '%s'", bad[i]);
	/* Too long for any value, whatever it says. */
	KUNIT_EXPECT_EQ(test, parse(r, "0000000000000000000000001", &v), -EINVAL);
	KUNIT_EXPECT_EQ(test, eth_reg_parse(r, "1", 0, &v), -EINVAL);
	KUNIT_EXPECT_EQ(test, v, 77U);
}

static void regs_test_ranges(struct kunit *test)
{
	u32 v = 0;

	KUNIT_EXPECT_EQ(test, parse(reg(test, "mtu"), "68", &v), 0);
	KUNIT_EXPECT_EQ(test, parse(reg(test, "mtu"), "9000", &v), 0);
	KUNIT_EXPECT_EQ(test, parse(reg(test, "mtu"), "67", &v), -EINVAL);
	KUNIT_EXPECT_EQ(test, parse(reg(test, "mtu"), "9001", &v), -EINVAL);
	KUNIT_EXPECT_EQ(test, parse(reg(test, "mtu"), "0", &v), -EINVAL);
	KUNIT_EXPECT_EQ(test, parse(reg(test, "addr_hi"), "0xffff", &v), 0);
	KUNIT_EXPECT_EQ(test, parse(reg(test, "addr_hi"), "0x10000", &v), -EINVAL);
	/* CTRL: only the defined bits. */
	KUNIT_EXPECT_EQ(test, parse(reg(test, "ctrl"), "0x33f", &v), 0);
	KUNIT_EXPECT_EQ(test, v, EUSRV_MAC_CTRL_VALID);
	KUNIT_EXPECT_EQ(test, parse(reg(test, "ctrl"), "0x40", &v), -EINVAL);
	KUNIT_EXPECT_EQ(test, parse(reg(test, "ctrl"), "0x400", &v), -EINVAL);
	/* PHY registers are 16 bits; their read-only bits may be written back. */
	KUNIT_EXPECT_EQ(test, parse(reg(test, "phy_pma_ctrl1"), "0x2040", &v), 0);
	KUNIT_EXPECT_EQ(test, parse(reg(test, "phy_pma_ctrl1"), "0xa840", &v), 0);
	KUNIT_EXPECT_EQ(test, parse(reg(test, "phy_pma_ctrl1"), "0x10000", &v), -EINVAL);
	KUNIT_EXPECT_EQ(test, parse(reg(test, "phy_pma_ctrl1"), "0x0100", &v), -EINVAL);
	KUNIT_EXPECT_EQ(test, parse(reg(test, "phy_pcs_ctrl1"), "0x4000", &v), 0);
	KUNIT_EXPECT_EQ(test, parse(reg(test, "phy_vend_ctrl"), "1", &v), 0);
	KUNIT_EXPECT_EQ(test, parse(reg(test, "phy_vend_ctrl"), "0", &v), 0);
	KUNIT_EXPECT_EQ(test, parse(reg(test, "phy_vend_ctrl"), "2", &v), -EINVAL);
}

static void regs_test_read_only(struct kunit *test)
{
	static const char *const ro[] = {
		"id", "caps", "link", "sr", "mdio_cmd", "mdio_done", "bad_cnt",
		"phy_pma_stat1", "phy_vend_stat", "phy_pcs_10gbrt_stat1",
	};
	unsigned int i;
	u32 v = 5;

	for (i = 0; i < ARRAY_SIZE(ro); i++)
		KUNIT_EXPECT_EQ_MSG(test, parse(reg(test, ro[i]), "0", &v), -EINVAL,
				    "register %s", ro[i]);
	KUNIT_EXPECT_EQ(test, v, 5U);
}

static void regs_test_table(struct kunit *test)
{
	unsigned int i, j, writable = 0;

	for (i = 0; i < ETH_NR_REGS; i++) {
		const struct eth_reg *r = &eth_regs[i];

		KUNIT_EXPECT_NE(test, strlen(r->name), 0U);
		for (j = 0; j < i; j++)
			KUNIT_EXPECT_NE_MSG(test, strcmp(r->name, eth_regs[j].name), 0,
					    "file %s twice", r->name);
		/* No clash with a counter file, "<set>_<counter>". */
		for (j = 0; j < ARRAY_SIZE(eth_cnt_sets); j++) {
			size_t l = strlen(eth_cnt_sets[j].prefix);

			KUNIT_EXPECT_FALSE(test, !strncmp(r->name, eth_cnt_sets[j].prefix, l) &&
					   r->name[l] == '_');
		}
		if (r->kind == ETH_REG_MAC32) {
			KUNIT_EXPECT_LT(test, r->off, EUSRV_MAC_STATS_PORT);
			KUNIT_EXPECT_EQ(test, r->off % 4, 0);
		} else {
			KUNIT_EXPECT_EQ(test, r->kind, ETH_REG_PHY);
			KUNIT_EXPECT_TRUE(test, r->devad == ETH_MMD_PMA ||
					  r->devad == ETH_MMD_PCS ||
					  r->devad == ETH_MMD_VEND);
			KUNIT_EXPECT_LE(test, r->wmask, 0xffffU);
		}
		if (r->wmask) {
			writable++;
			KUNIT_EXPECT_LE(test, r->min, r->max);
		}
	}
	/* ctrl, mtu, addr_lo, addr_hi; PMA and PCS control 1, vendor control. */
	KUNIT_EXPECT_EQ(test, writable, 7U);
	KUNIT_EXPECT_NULL(test, eth_reg_find(eth_regs, ETH_NR_REGS, "no_such"));
	KUNIT_EXPECT_EQ(test, ETH_NR_CNT_FILES, 3 * EUSRV_MAC_STATS_COUNT);
	/* The counters' names, in the MAC's order: tx_frames at 0, rx_mcast last. */
	KUNIT_EXPECT_STREQ(test, eth_cnt_regs[EUSRV_MAC_TX_FRAMES / 8], "tx_frames");
	KUNIT_EXPECT_STREQ(test, eth_cnt_regs[EUSRV_MAC_RX_NODESC / 8], "rx_nodesc");
	KUNIT_EXPECT_STREQ(test, eth_cnt_regs[EUSRV_MAC_RX_MCAST / 8], "rx_mcast");
	for (i = 0; i < EUSRV_MAC_STATS_COUNT; i++)
		for (j = 0; j < i; j++)
			KUNIT_EXPECT_NE(test, strcmp(eth_cnt_regs[i], eth_cnt_regs[j]), 0);
}

static struct kunit_case regs_test_cases[] = {
	KUNIT_CASE(regs_test_formats),
	KUNIT_CASE(regs_test_malformed),
	KUNIT_CASE(regs_test_ranges),
	KUNIT_CASE(regs_test_read_only),
	KUNIT_CASE(regs_test_table),
	{}
};

static struct kunit_suite regs_test_suite = {
	.name = "eusrv_eth_procfs",
	.test_cases = regs_test_cases,
};

kunit_test_suite(regs_test_suite);

MODULE_DESCRIPTION("KUnit tests of the eusrv_eth procfs register files and parser");
MODULE_LICENSE("GPL");
