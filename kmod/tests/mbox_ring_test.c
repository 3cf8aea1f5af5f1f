// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite of the mailbox ring arithmetic, mailbox/mbox_ring.h as the
 * driver includes it: free-running u32 counters, their wrap-around, the
 * full/empty boundary and counters a hostile or broken peer may show.
 */
#include <kunit/test.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/module.h>

#include <eusrv/board_hw.h>

#include "../mailbox/mbox_ring.h"

/* The block's real depths, the smallest ring and an odd size. */
static const u32 depths[] = {
	EUSRV_MBOX_FIFO_DEPTH, EUSRV_MBOX_TXQ_DEPTH, 1, 2, 1000,
};

/* Consumer counters at both ends of the u32 range and in between. */
static const u32 starts[] = {
	0, 1, 0x7fffffffU, 0x80000000U, U32_MAX - 64, U32_MAX - 1, U32_MAX,
};

/* Steps of the producer/consumer walk (deterministic pseudo-random). */
#define RING_WALK_STEPS		20000U

static void ring_test_used(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, mbox_ring_used(0, 0), 0U);
	KUNIT_EXPECT_EQ(test, mbox_ring_used(5, 3), 2U);
	KUNIT_EXPECT_EQ(test, mbox_ring_used(U32_MAX, U32_MAX), 0U);
	/* The producer has wrapped, the consumer not yet. */
	KUNIT_EXPECT_EQ(test, mbox_ring_used(0, U32_MAX), 1U);
	KUNIT_EXPECT_EQ(test, mbox_ring_used(2, U32_MAX - 1), 4U);
	KUNIT_EXPECT_EQ(test, mbox_ring_used(63, U32_MAX), 64U);
}

/* Empty: depth free, full: 0 free, one short of full: 1 free. */
static void ring_test_free_boundaries(struct kunit *test)
{
	unsigned int i, j;
	u32 c, d;

	for (i = 0; i < ARRAY_SIZE(depths); i++) {
		for (j = 0; j < ARRAY_SIZE(starts); j++) {
			d = depths[i];
			c = starts[j];
			KUNIT_EXPECT_EQ_MSG(test, mbox_ring_free(c, c, d), d,
					    "empty: cons %u depth %u", c, d);
			KUNIT_EXPECT_EQ_MSG(test, mbox_ring_free(c + d, c, d), 0U,
					    "full: cons %u depth %u", c, d);
			KUNIT_EXPECT_EQ_MSG(test, mbox_ring_free(c + d - 1, c, d),
					    1U, "one left: cons %u depth %u",
					    c, d);
			KUNIT_EXPECT_EQ_MSG(test, mbox_ring_free(c + 1, c, d),
					    d - 1, "one used: cons %u depth %u",
					    c, d);
			KUNIT_EXPECT_EQ_MSG(test, mbox_ring_used(c + d, c), d,
					    "full: cons %u depth %u", c, d);
		}
	}
}

/* More entries than the ring holds, or a producer behind: no space. */
static void ring_test_free_hostile(struct kunit *test)
{
	unsigned int i, j;
	u32 c, d;

	for (i = 0; i < ARRAY_SIZE(depths); i++) {
		for (j = 0; j < ARRAY_SIZE(starts); j++) {
			d = depths[i];
			c = starts[j];
			KUNIT_EXPECT_EQ_MSG(test, mbox_ring_free(c + d + 1, c, d),
					    0U, "overfull: cons %u depth %u",
					    c, d);
			KUNIT_EXPECT_EQ_MSG(test, mbox_ring_free(c - 1, c, d), 0U,
					    "prod behind: cons %u depth %u",
					    c, d);
			KUNIT_EXPECT_EQ_MSG(test,
					    mbox_ring_free(c + 0x80000000U, c, d),
					    0U, "half range: cons %u depth %u",
					    c, d);
		}
	}
}

/* A peer's counters are sane iff 0..depth entries are in use. */
static void ring_test_sane(struct kunit *test)
{
	unsigned int i, j;
	u32 c, d;

	for (i = 0; i < ARRAY_SIZE(depths); i++) {
		for (j = 0; j < ARRAY_SIZE(starts); j++) {
			d = depths[i];
			c = starts[j];
			KUNIT_EXPECT_TRUE_MSG(test, mbox_ring_sane(c, c, d),
					      "empty: cons %u depth %u", c, d);
			KUNIT_EXPECT_TRUE_MSG(test, mbox_ring_sane(c + d, c, d),
					      "full: cons %u depth %u", c, d);
			KUNIT_EXPECT_FALSE_MSG(test,
					       mbox_ring_sane(c + d + 1, c, d),
					       "overfull: cons %u depth %u",
					       c, d);
			KUNIT_EXPECT_FALSE_MSG(test, mbox_ring_sane(c - 1, c, d),
					       "prod behind: cons %u depth %u",
					       c, d);
			KUNIT_EXPECT_FALSE_MSG(test,
					       mbox_ring_sane(c ^ 0x80000000U,
							      c, d),
					       "far away: cons %u depth %u",
					       c, d);
		}
	}
}

/* [lo, hi] walking forward: both ends in, one step outside each end out. */
static void ring_test_within(struct kunit *test)
{
	unsigned int j;
	u32 lo, hi;

	for (j = 0; j < ARRAY_SIZE(starts); j++) {
		lo = starts[j];
		hi = lo + EUSRV_MBOX_TXQ_DEPTH;
		KUNIT_EXPECT_TRUE_MSG(test, eusrv_seq_within(lo, lo, hi),
				      "lo %u", lo);
		KUNIT_EXPECT_TRUE_MSG(test, eusrv_seq_within(lo, lo + 1, hi),
				      "lo %u", lo);
		KUNIT_EXPECT_TRUE_MSG(test, eusrv_seq_within(lo, hi, hi),
				      "lo %u", lo);
		KUNIT_EXPECT_FALSE_MSG(test, eusrv_seq_within(lo, hi + 1, hi),
				       "lo %u", lo);
		KUNIT_EXPECT_FALSE_MSG(test, eusrv_seq_within(lo, lo - 1, hi),
				       "lo %u", lo);
		/* An empty interval holds its one point only. */
		KUNIT_EXPECT_TRUE_MSG(test, eusrv_seq_within(lo, lo, lo),
				      "lo %u", lo);
		KUNIT_EXPECT_FALSE_MSG(test, eusrv_seq_within(lo, lo + 1, lo),
				       "lo %u", lo);
	}
	/* Across the wrap: [U32_MAX - 1, 1] holds U32_MAX and 0. */
	KUNIT_EXPECT_TRUE(test, eusrv_seq_within(U32_MAX - 1, U32_MAX, 1));
	KUNIT_EXPECT_TRUE(test, eusrv_seq_within(U32_MAX - 1, 0, 1));
	KUNIT_EXPECT_FALSE(test, eusrv_seq_within(U32_MAX - 1, 2, 1));
	KUNIT_EXPECT_FALSE(test, eusrv_seq_within(U32_MAX - 1, U32_MAX - 2, 1));
}

/* Slots: counter mod depth, continuous across the u32 wrap. */
static void ring_test_slot(struct kunit *test)
{
	u32 d = EUSRV_MBOX_FIFO_DEPTH;
	u32 c;

	/* Power-of-two depths are what makes the wrap seamless. */
	KUNIT_EXPECT_TRUE(test, is_power_of_2(EUSRV_MBOX_FIFO_DEPTH));
	KUNIT_EXPECT_TRUE(test, is_power_of_2(EUSRV_MBOX_TXQ_DEPTH));

	KUNIT_EXPECT_EQ(test, mbox_ring_slot(0, d), 0U);
	KUNIT_EXPECT_EQ(test, mbox_ring_slot(d - 1, d), d - 1);
	KUNIT_EXPECT_EQ(test, mbox_ring_slot(d, d), 0U);
	KUNIT_EXPECT_EQ(test, mbox_ring_slot(U32_MAX, d), d - 1);
	KUNIT_EXPECT_EQ(test, mbox_ring_slot(1000, 1000), 0U);
	KUNIT_EXPECT_EQ(test, mbox_ring_slot(1234, 1000), 234U);
	KUNIT_EXPECT_EQ(test, mbox_ring_slot(U32_MAX, 1), 0U);

	for (c = U32_MAX - 2 * d; c != 2 * d; c++)
		KUNIT_ASSERT_EQ_MSG(test, mbox_ring_slot(c + 1, d),
				    (mbox_ring_slot(c, d) + 1) % d,
				    "counter %u", c);
}

/*
 * A producer and a consumer step the counters across the wrap in random
 * amounts; used/free/sane must agree with a plain count of the entries.
 */
static void ring_test_walk_across_wrap(struct kunit *test)
{
	u32 d = EUSRV_MBOX_FIFO_DEPTH;
	u32 prod = U32_MAX - 1000, cons = prod;
	u32 count = 0, rnd = 12345, n, step;
	bool wrapped = false;

	for (step = 0; step < RING_WALK_STEPS; step++) {
		/* Numerical Recipes LCG: deterministic, no kernel services. */
		rnd = rnd * 1664525U + 1013904223U;
		n = (rnd >> 16) % (d + 1);
		if (rnd & 0x8000) {
			n = min(n, mbox_ring_free(prod, cons, d));
			prod += n;
			count += n;
		} else {
			n = min(n, mbox_ring_used(prod, cons));
			cons += n;
			count -= n;
		}
		wrapped |= prod < cons;
		KUNIT_ASSERT_EQ_MSG(test, mbox_ring_used(prod, cons), count,
				    "prod %u cons %u", prod, cons);
		KUNIT_ASSERT_EQ_MSG(test, mbox_ring_free(prod, cons, d),
				    d - count, "prod %u cons %u", prod, cons);
		KUNIT_ASSERT_TRUE_MSG(test, mbox_ring_sane(prod, cons, d),
				      "prod %u cons %u", prod, cons);
	}
	/* The walk must have straddled the wrap, or it proved little. */
	KUNIT_EXPECT_TRUE(test, wrapped);
	KUNIT_EXPECT_LT(test, cons, U32_MAX - 1000);
}

static struct kunit_case ring_test_cases[] = {
	KUNIT_CASE(ring_test_used),
	KUNIT_CASE(ring_test_free_boundaries),
	KUNIT_CASE(ring_test_free_hostile),
	KUNIT_CASE(ring_test_sane),
	KUNIT_CASE(ring_test_within),
	KUNIT_CASE(ring_test_slot),
	KUNIT_CASE(ring_test_walk_across_wrap),
	{}
};

static struct kunit_suite ring_test_suite = {
	.name = "eusrv_mbox_ring",
	.test_cases = ring_test_cases,
};

kunit_test_suite(ring_test_suite);

MODULE_DESCRIPTION("KUnit tests of the eusrv mailbox ring arithmetic");
MODULE_LICENSE("GPL");
