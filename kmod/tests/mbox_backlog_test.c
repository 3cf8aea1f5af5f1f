// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite of the mailbox driver's per-destination backlog,
 * mailbox/mbox_backlog.h: messages refused by a full FIFO come back after
 * later ones were held, yet are posted again before them, in their order,
 * and none stays kept once the FIFO has room.
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
#define WALK_SENDS	20000U

/*
 * The block as docs/hardware.md section 3.5 has it, for one destination:
 * a FIFO that is full or not, the sticky refusal, and room events: when a
 * FIFO that refused the sender drains, or at once when a sticky refusal
 * meets room.  The queue completes entries in order; the driver reaps
 * later, and may read the room counter after the block completed more.
 */
struct walk {
	struct mbox_dest d;
	u64 queue[WALK_QUEUE];		/* posted, message | RESUME bit */
	u32 st[WALK_QUEUE];		/* 0 pending, 1 delivered, 2 refused */
	unsigned int nq, done;		/* entries, of which completed */
	bool full, sticky, waiter;
	u32 rooms, rooms_seen;
	u64 next, delivered, refusals;
	u32 rnd;
};

#define WALK_RESUME	BIT_ULL(63)

static u32 walk_rnd(struct walk *w)
{
	w->rnd = w->rnd * 1103515245U + 12345U;
	return w->rnd >> 16;
}

/* The block completes the oldest pending entry. */
static void walk_complete(struct kunit *test, struct walk *w)
{
	u64 m = w->queue[w->done];

	if ((w->sticky && !(m & WALK_RESUME)) || w->full) {
		w->st[w->done++] = 2;
		w->sticky = true;
		if (w->full)
			w->waiter = true;
		else
			w->rooms++;
		return;
	}
	w->sticky = false;
	KUNIT_ASSERT_EQ(test, m & ~WALK_RESUME, w->delivered);
	w->delivered++;
	w->st[w->done++] = 1;
}

/* The FIFO fills or drains; a drain tells a refused sender. */
static void walk_fifo(struct walk *w, bool full)
{
	if (w->full && !full && w->waiter) {
		w->waiter = false;
		w->rooms++;
	}
	w->full = full;
}

/* The driver's interrupt: reap, the block goes on meanwhile, room, resend. */
static void walk_service(struct kunit *test, struct walk *w)
{
	unsigned int i, more = walk_rnd(w) % 3;
	u32 flags;
	u64 m;

	while (w->done) {
		KUNIT_ASSERT_TRUE(test, mbox_dest_reaped(&w->d, w->st[0] == 2,
							 w->queue[0] & ~WALK_RESUME));
		if (w->st[0] == 2)
			w->refusals++;
		for (i = 1; i < w->nq; i++) {
			w->queue[i - 1] = w->queue[i];
			w->st[i - 1] = w->st[i];
		}
		w->nq--;
		w->done--;
	}
	while (more-- && w->done < w->nq)
		walk_complete(test, w);
	if (w->rooms != w->rooms_seen) {
		w->rooms_seen = w->rooms;
		w->d.room = true;
	}
	while (w->nq < WALK_QUEUE && walk_rnd(w) % 8 &&
	       mbox_dest_next(&w->d, &m, &flags)) {
		w->queue[w->nq] = m | (flags & EUSRV_MBOX_TXF_RESUME ? WALK_RESUME : 0);
		w->st[w->nq++] = 0;
		w->d.posted++;
	}
}

/*
 * A sender's life against that block, as mbox_core.c runs it: every
 * message the block accepts is the next in order, and once the FIFO
 * drains for good everything kept is delivered: a room event is never
 * lost, even one seen before its refusal is reaped.
 */
static void backlog_test_sender_walk(struct kunit *test)
{
	struct walk *w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);
	unsigned int step;

	KUNIT_ASSERT_NOT_NULL(test, w);
	w->rnd = 12345;
	for (step = 0; w->next < WALK_SENDS && step < 50 * WALK_SENDS; step++) {
		switch (walk_rnd(w) % 5) {
		case 0:
			switch (mbox_dest_take(&w->d, w->nq < WALK_QUEUE)) {
			case MBOX_TAKE_KEEP:
				KUNIT_ASSERT_TRUE(test, mbox_backlog_hold(&w->d.backlog,
									  w->next++));
				break;
			case MBOX_TAKE_POST:
				w->queue[w->nq] = w->next++;
				w->st[w->nq++] = 0;
				w->d.posted++;
				break;
			case MBOX_TAKE_NONE:
				break;
			}
			break;
		case 1:
			walk_fifo(w, walk_rnd(w) % 3 == 0);
			break;
		case 2:
		case 3:
			if (w->done < w->nq)
				walk_complete(test, w);
			break;
		default:
			walk_service(test, w);
			break;
		}
	}
	/* The FIFO drains for good: everything must get through. */
	walk_fifo(w, false);
	for (step = 0; step < 10 * WALK_SENDS && w->delivered < w->next; step++) {
		while (w->done < w->nq)
			walk_complete(test, w);
		walk_service(test, w);
	}
	KUNIT_EXPECT_EQ(test, w->delivered, w->next);
	KUNIT_EXPECT_EQ(test, w->d.backlog.len, 0U);
	KUNIT_EXPECT_GT(test, w->refusals, 1000ULL);
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
