// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite of the receiver's sequence bookkeeping, mailbox/mbox_seq.h as
 * the diagnostic flood uses it: in-order streams, duplicates, gaps, late
 * arrivals and the edge of the window that tells late from duplicate.
 */
#include <kunit/test.h>
#include <linux/kernel.h>
#include <linux/module.h>

#include "../mailbox/mbox_seq.h"

/* Length of the shuffled stream of seq_test_shuffled_stream. */
#define SEQ_STREAM_LEN		1024U

struct seq_counts {
	u64 received, dup, gap, late, last;
};

static void seq_expect(struct kunit *test, const struct mbox_seq *s,
		       const struct seq_counts *want)
{
	KUNIT_EXPECT_EQ(test, s->received, want->received);
	KUNIT_EXPECT_EQ(test, s->dup, want->dup);
	KUNIT_EXPECT_EQ(test, s->gap, want->gap);
	KUNIT_EXPECT_EQ(test, s->late, want->late);
	KUNIT_EXPECT_EQ(test, mbox_seq_last(s), want->last);
}

static void seq_feed(struct mbox_seq *s, const u64 *seqs, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		mbox_seq_rx(s, seqs[i]);
}

static void seq_test_in_order(struct kunit *test)
{
	struct mbox_seq s = {};
	u64 i;

	for (i = 0; i < 1000; i++)
		mbox_seq_rx(&s, i);
	seq_expect(test, &s, &(struct seq_counts){
		.received = 1000, .last = 999 });
}

/* The stream starts at 0: a first number of 5 means 0..4 are missing. */
static void seq_test_first_not_zero(struct kunit *test)
{
	struct mbox_seq s = {};

	mbox_seq_rx(&s, 5);
	seq_expect(test, &s, &(struct seq_counts){
		.received = 1, .gap = 5, .last = 5 });
}

static void seq_test_duplicates(struct kunit *test)
{
	static const u64 seqs[] = { 0, 1, 2, 2, 1, 0, 3, 3 };
	struct mbox_seq s = {};

	seq_feed(&s, seqs, ARRAY_SIZE(seqs));
	seq_expect(test, &s, &(struct seq_counts){
		.received = 8, .dup = 4, .last = 3 });
}

static void seq_test_gaps(struct kunit *test)
{
	static const u64 seqs[] = { 0, 1, 5, 6, 10 };
	struct mbox_seq s = {};

	seq_feed(&s, seqs, ARRAY_SIZE(seqs));
	seq_expect(test, &s, &(struct seq_counts){
		.received = 5, .gap = 3 + 3, .last = 10 });
}

/* A late arrival fills its gap once; the same number again is a dup. */
static void seq_test_late(struct kunit *test)
{
	static const u64 seqs[] = { 0, 1, 5, 3, 3, 2, 4, 4 };
	struct mbox_seq s = {};

	seq_feed(&s, seqs, 4);
	seq_expect(test, &s, &(struct seq_counts){
		.received = 4, .gap = 2, .late = 1, .last = 5 });

	seq_feed(&s, seqs + 4, ARRAY_SIZE(seqs) - 4);
	seq_expect(test, &s, &(struct seq_counts){
		.received = 8, .dup = 2, .late = 3, .last = 5 });
}

/*
 * After a jump, the window reaches MBOX_SEQ_WINDOW - 1 below the highest
 * number: a missing number there is late, one further down is too old to
 * tell and counts as a duplicate, the gap stays open.
 */
static void seq_test_window_edge(struct kunit *test)
{
	const u64 top = 100;
	struct mbox_seq s = {};

	mbox_seq_rx(&s, top);
	mbox_seq_rx(&s, top - (MBOX_SEQ_WINDOW - 1));
	seq_expect(test, &s, &(struct seq_counts){
		.received = 2, .gap = top - 1, .late = 1, .last = top });

	mbox_seq_rx(&s, top - MBOX_SEQ_WINDOW);
	seq_expect(test, &s, &(struct seq_counts){
		.received = 3, .dup = 1, .gap = top - 1, .late = 1,
		.last = top });

	/* The one at the edge is remembered: again, it is a duplicate. */
	mbox_seq_rx(&s, top - (MBOX_SEQ_WINDOW - 1));
	KUNIT_EXPECT_EQ(test, s.dup, 2ULL);
	KUNIT_EXPECT_EQ(test, s.late, 1ULL);
}

/* A jump that keeps the previous number just inside the window. */
static void seq_test_jump_within_window(struct kunit *test)
{
	struct mbox_seq s = {};

	mbox_seq_rx(&s, 0);
	mbox_seq_rx(&s, MBOX_SEQ_WINDOW - 1);
	/* 0 is MBOX_SEQ_WINDOW - 1 behind and was seen: duplicate. */
	mbox_seq_rx(&s, 0);
	/* 1 is inside and was not seen: late. */
	mbox_seq_rx(&s, 1);
	seq_expect(test, &s, &(struct seq_counts){
		.received = 4, .dup = 1, .gap = MBOX_SEQ_WINDOW - 3,
		.late = 1, .last = MBOX_SEQ_WINDOW - 1 });
}

/* A jump by the whole window forgets everything below the new number. */
static void seq_test_jump_past_window(struct kunit *test)
{
	struct mbox_seq s = {};

	mbox_seq_rx(&s, 0);
	mbox_seq_rx(&s, MBOX_SEQ_WINDOW);
	/* 0 is now MBOX_SEQ_WINDOW behind: too old to tell. */
	mbox_seq_rx(&s, 0);
	/* 1 is MBOX_SEQ_WINDOW - 1 behind: still known missing. */
	mbox_seq_rx(&s, 1);
	seq_expect(test, &s, &(struct seq_counts){
		.received = 4, .dup = 1, .gap = MBOX_SEQ_WINDOW - 2,
		.late = 1, .last = MBOX_SEQ_WINDOW });
}

/* A huge jump: the gap counts every number skipped. */
static void seq_test_huge_jump(struct kunit *test)
{
	const u64 far = 1ULL << 40;
	struct mbox_seq s = {};

	mbox_seq_rx(&s, 0);
	mbox_seq_rx(&s, far);
	mbox_seq_rx(&s, far - 1);
	seq_expect(test, &s, &(struct seq_counts){
		.received = 3, .gap = far - 2, .late = 1, .last = far });
}

/*
 * Every number of a stream, each displaced by less than the window and some
 * repeated, against a plain record of what arrived: nothing stays missing,
 * and late/dup match the record.
 */
static void seq_test_shuffled_stream(struct kunit *test)
{
	struct mbox_seq s = {};
	u64 *order;
	bool *seen;
	u64 top = 0, dup = 0, late = 0, sent = 0, tmp;
	u32 rnd = 777;
	unsigned int i, j;

	order = kunit_kcalloc(test, SEQ_STREAM_LEN, sizeof(*order), GFP_KERNEL);
	seen = kunit_kcalloc(test, SEQ_STREAM_LEN, sizeof(*seen), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, order);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, seen);

	for (i = 0; i < SEQ_STREAM_LEN; i++)
		order[i] = i;
	/* Swaps within a block of half the window: displacement < window. */
	for (i = 0; i < SEQ_STREAM_LEN; i++) {
		rnd = rnd * 1664525U + 1013904223U;
		j = (i & ~(MBOX_SEQ_WINDOW / 2 - 1)) +
		    (rnd >> 16) % (MBOX_SEQ_WINDOW / 2);
		tmp = order[i];
		order[i] = order[j];
		order[j] = tmp;
	}

	for (i = 0; i < SEQ_STREAM_LEN; i++) {
		for (j = 0; j < 1 + (i % 7 == 0); j++) {
			u64 seq = order[i];

			if (seen[seq])
				dup++;
			else if (sent && seq < top)
				late++;
			seen[seq] = true;
			top = max(top, seq);
			sent++;
			mbox_seq_rx(&s, seq);
		}
	}
	seq_expect(test, &s, &(struct seq_counts){
		.received = sent, .dup = dup, .late = late,
		.last = SEQ_STREAM_LEN - 1 });
	KUNIT_EXPECT_GT(test, late, 0ULL);
	KUNIT_EXPECT_GT(test, dup, 0ULL);
}

static struct kunit_case seq_test_cases[] = {
	KUNIT_CASE(seq_test_in_order),
	KUNIT_CASE(seq_test_first_not_zero),
	KUNIT_CASE(seq_test_duplicates),
	KUNIT_CASE(seq_test_gaps),
	KUNIT_CASE(seq_test_late),
	KUNIT_CASE(seq_test_window_edge),
	KUNIT_CASE(seq_test_jump_within_window),
	KUNIT_CASE(seq_test_jump_past_window),
	KUNIT_CASE(seq_test_huge_jump),
	KUNIT_CASE(seq_test_shuffled_stream),
	{}
};

static struct kunit_suite seq_test_suite = {
	.name = "eusrv_mbox_seq",
	.test_cases = seq_test_cases,
};

kunit_test_suite(seq_test_suite);

MODULE_DESCRIPTION("KUnit tests of the eusrv mailbox sequence bookkeeping");
MODULE_LICENSE("GPL");
