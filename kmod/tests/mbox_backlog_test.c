// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite of the mailbox driver's per-destination backlog,
 * mailbox/mbox_backlog.h: messages refused by a full FIFO come back after
 * later ones were held, yet are posted again before them, in their order.
 */
#include <kunit/test.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/slab.h>

#include "../mailbox/mbox_backlog.h"

static struct mbox_backlog *backlog_new(struct kunit *test)
{
	struct mbox_backlog *b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, b);
	return b;
}

static void backlog_test_fifo_and_full(struct kunit *test)
{
	struct mbox_backlog *b = backlog_new(test);
	u64 m, i;

	for (i = 0; i < MBOX_BACKLOG_DEPTH; i++)
		KUNIT_EXPECT_TRUE(test, mbox_backlog_hold(b, i));
	KUNIT_EXPECT_FALSE(test, mbox_backlog_hold(b, 999));
	KUNIT_EXPECT_FALSE(test, mbox_backlog_refused(b, 999));
	for (i = 0; i < MBOX_BACKLOG_DEPTH; i++) {
		KUNIT_ASSERT_TRUE(test, mbox_backlog_take(b, &m));
		KUNIT_EXPECT_EQ(test, m, i);
	}
	KUNIT_EXPECT_FALSE(test, mbox_backlog_take(b, &m));
}

/* Held 1, 2; then 10 and 11 come back refused: 10, 11, 1, 2. */
static void backlog_test_refused_first(struct kunit *test)
{
	static const u64 want[] = { 10, 11, 1, 2, 3 };
	struct mbox_backlog *b = backlog_new(test);
	unsigned int i;
	u64 m;

	mbox_backlog_hold(b, 1);
	mbox_backlog_hold(b, 2);
	mbox_backlog_refused(b, 10);
	mbox_backlog_refused(b, 11);
	mbox_backlog_hold(b, 3);
	KUNIT_EXPECT_EQ(test, b->refused, 2U);
	for (i = 0; i < ARRAY_SIZE(want); i++) {
		KUNIT_ASSERT_TRUE(test, mbox_backlog_take(b, &m));
		KUNIT_EXPECT_EQ(test, m, want[i]);
	}
	KUNIT_EXPECT_EQ(test, b->refused, 0U);
	KUNIT_EXPECT_EQ(test, b->len, 0U);
}

/* Taken again and refused again: back in front, still in order. */
static void backlog_test_refused_again(struct kunit *test)
{
	struct mbox_backlog *b = backlog_new(test);
	u64 m;

	mbox_backlog_refused(b, 10);
	mbox_backlog_refused(b, 11);
	mbox_backlog_hold(b, 12);
	KUNIT_ASSERT_TRUE(test, mbox_backlog_take(b, &m));	/* 10 posted */
	KUNIT_EXPECT_EQ(test, b->refused, 0U);
	mbox_backlog_refused(b, m);	/* ... and refused: older than 11 */
	KUNIT_ASSERT_TRUE(test, mbox_backlog_take(b, &m));
	KUNIT_EXPECT_EQ(test, m, 10ULL);
	KUNIT_ASSERT_TRUE(test, mbox_backlog_take(b, &m));
	KUNIT_EXPECT_EQ(test, m, 11ULL);
	KUNIT_ASSERT_TRUE(test, mbox_backlog_take(b, &m));
	KUNIT_EXPECT_EQ(test, m, 12ULL);
}

#define WALK_QUEUE	8U
#define WALK_RESUME	BIT_ULL(63)

/*
 * A sender's life, simulated as mbox_core.c runs it: numbered messages go
 * out (held while the backlog is not empty), an outbound queue of
 * WALK_QUEUE, shared with other destinations, completes them in order,
 * the destination refuses while full and then stickily until RESUME; what
 * it accepts must be 0, 1, 2, ...
 */
static void backlog_test_sender_walk(struct kunit *test)
{
	struct mbox_backlog *b = backlog_new(test);
	u64 queue[WALK_QUEUE], next = 0, delivered = 0, refusals = 0, m;
	bool full = false, sticky = false, resume = false;
	unsigned int nq = 0, step, i, free;
	u32 rnd = 12345;

	for (step = 0; step < 50000; step++) {
		rnd = rnd * 1103515245U + 12345U;
		switch ((rnd >> 16) % 4) {
		case 0:		/* send */
			if (b->len + nq >= MBOX_BACKLOG_DEPTH)
				break;
			if (b->len || nq == WALK_QUEUE)
				KUNIT_ASSERT_TRUE(test, mbox_backlog_hold(b, next));
			else
				queue[nq++] = next;
			next++;
			break;
		case 1:		/* the destination's FIFO fills or drains */
			full = (rnd >> 20) & 1;
			break;
		case 2:		/* the oldest entry completes */
			if (!nq)
				break;
			m = queue[0];
			for (i = 1; i < nq; i++)
				queue[i - 1] = queue[i];
			nq--;
			if (full || (sticky && !(m & WALK_RESUME))) {
				sticky = true;
				resume = true;
				refusals++;
				KUNIT_ASSERT_TRUE(test, mbox_backlog_refused(b, m & ~WALK_RESUME));
				break;
			}
			sticky = false;
			KUNIT_ASSERT_EQ(test, m & ~WALK_RESUME, delivered);
			delivered++;
			break;
		case 3:		/* post from the backlog: RESUME only on an empty queue */
			if (resume && nq)
				break;
			/* The queue is shared: other destinations hold some of it. */
			free = (rnd >> 20) % (WALK_QUEUE + 1);
			while (nq < WALK_QUEUE && free-- && mbox_backlog_take(b, &m)) {
				queue[nq++] = m | (resume ? WALK_RESUME : 0);
				resume = false;
			}
			break;
		}
	}
	KUNIT_EXPECT_GT(test, delivered, 1000ULL);
	KUNIT_EXPECT_GT(test, refusals, 1000ULL);
}

static struct kunit_case backlog_cases[] = {
	KUNIT_CASE(backlog_test_fifo_and_full),
	KUNIT_CASE(backlog_test_refused_first),
	KUNIT_CASE(backlog_test_refused_again),
	KUNIT_CASE(backlog_test_sender_walk),
	{}
};

static struct kunit_suite backlog_suite = {
	.name = "eusrv_mbox_backlog",
	.test_cases = backlog_cases,
};

kunit_test_suite(backlog_suite);

MODULE_DESCRIPTION("KUnit tests of the eusrv mailbox driver's per-destination backlog");
MODULE_LICENSE("GPL");
