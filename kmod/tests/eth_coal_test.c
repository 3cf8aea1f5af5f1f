// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite of the shared-NIC driver's interrupt coalescing, eth/eth_ring.h
 * as the driver includes it: ethtool's frames and microseconds mapped onto
 * the AXI DMA channel's IRQThreshold and IRQDelay fields and back, the
 * rounding of the delay to whole timer ticks and the values refused.
 */
#include <kunit/test.h>
#include <linux/kernel.h>
#include <linux/module.h>

#include <eusrv/axidma_hw.h>

#include "../eth/eth_ring.h"

static void coal_test_map(struct kunit *test)
{
	u32 cr = 0, frames = 0, usecs = 0;

	KUNIT_ASSERT_EQ(test, eth_coal_to_cr(16, 30, &cr), 0);
	KUNIT_EXPECT_EQ(test, (cr & EUSRV_AXIDMA_CR_THRESH_MASK) >> EUSRV_AXIDMA_CR_THRESH_SHIFT,
			16U);
	KUNIT_EXPECT_EQ(test, (cr & EUSRV_AXIDMA_CR_DELAY_MASK) >> EUSRV_AXIDMA_CR_DELAY_SHIFT,
			30U * 1000U / EUSRV_AXIDMA_DELAY_TICK_NS);
	/* Only the two fields: run, reset and interrupt enables are not touched. */
	KUNIT_EXPECT_EQ(test, cr & ~(EUSRV_AXIDMA_CR_THRESH_MASK | EUSRV_AXIDMA_CR_DELAY_MASK), 0U);
	eth_cr_to_coal(cr | EUSRV_AXIDMA_CR_RS | EUSRV_AXIDMA_CR_IRQEN_ALL, &frames, &usecs);
	KUNIT_EXPECT_EQ(test, frames, 16U);
	KUNIT_EXPECT_EQ(test, usecs, 30U);
}

static void coal_test_limits(struct kunit *test)
{
	u32 cr = 0, frames = 0, usecs = 0;

	KUNIT_ASSERT_EQ(test, eth_coal_to_cr(1, 0, &cr), 0);
	KUNIT_EXPECT_EQ(test, cr, 1U << EUSRV_AXIDMA_CR_THRESH_SHIFT);
	KUNIT_ASSERT_EQ(test, eth_coal_to_cr(ETH_COAL_FRAMES_MAX, ETH_COAL_USECS_MAX,
					     &cr), 0);
	KUNIT_EXPECT_EQ(test, cr, EUSRV_AXIDMA_CR_THRESH_MASK | EUSRV_AXIDMA_CR_DELAY_MASK);
	eth_cr_to_coal(cr, &frames, &usecs);
	KUNIT_EXPECT_EQ(test, frames, 255U);
	KUNIT_EXPECT_EQ(test, usecs, ETH_COAL_USECS_MAX);
	cr = 0x5a5a5a5a;
	/* IRQThreshold 0 is a programming error on the engine: refused. */
	KUNIT_EXPECT_EQ(test, eth_coal_to_cr(0, 10, &cr), -EINVAL);
	KUNIT_EXPECT_EQ(test, eth_coal_to_cr(256, 10, &cr), -EINVAL);
	KUNIT_EXPECT_EQ(test, eth_coal_to_cr(1, ETH_COAL_USECS_MAX + 1, &cr), -EINVAL);
	KUNIT_EXPECT_EQ(test, eth_coal_to_cr(U32_MAX, U32_MAX, &cr), -EINVAL);
	KUNIT_EXPECT_EQ(test, cr, 0x5a5a5a5aU);
}

static void coal_test_roundtrip(struct kunit *test)
{
	u32 f, u, cr, frames, usecs;

	for (f = 1; f <= ETH_COAL_FRAMES_MAX; f += 17) {
		for (u = 0; u <= ETH_COAL_USECS_MAX; u += 5) {
			KUNIT_ASSERT_EQ(test, eth_coal_to_cr(f, u, &cr), 0);
			eth_cr_to_coal(cr, &frames, &usecs);
			KUNIT_EXPECT_EQ(test, frames, f);
			/* Whole ticks: never shorter than asked, less than a tick longer. */
			KUNIT_EXPECT_GE(test, usecs, u);
			KUNIT_EXPECT_LT(test, usecs * 1000U,
					u * 1000U + EUSRV_AXIDMA_DELAY_TICK_NS);
		}
	}
}

static struct kunit_case coal_test_cases[] = {
	KUNIT_CASE(coal_test_map),
	KUNIT_CASE(coal_test_limits),
	KUNIT_CASE(coal_test_roundtrip),
	{}
};

static struct kunit_suite coal_test_suite = {
	.name = "eusrv_eth_coalesce",
	.test_cases = coal_test_cases,
};

kunit_test_suite(coal_test_suite);

MODULE_DESCRIPTION("KUnit tests of the eusrv_eth coalescing parameters");
MODULE_LICENSE("GPL");
