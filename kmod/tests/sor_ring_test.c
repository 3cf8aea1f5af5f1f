// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite of the sockets-over-RDMA ring arithmetic, eusrv/sor_ring.h:
 * free-running positions across the 32-bit wrap, the split of a transfer
 * at the ring's end, and hostile positions from user space or a peer.
 */
#include <kunit/test.h>
#include <linux/kernel.h>
#include <linux/module.h>

#include <uapi/eusrv/sor.h>

#include <eusrv/sor_ring.h>

static const u32 starts[] = {
	0, 1, 4095, 0x7fffffffU, 0x80000000U, U32_MAX - 4096, U32_MAX - 1,
	U32_MAX,
};

#define SZ	4096U

static void sor_ring_test_within(struct kunit *test)
{
	unsigned int i;
	u32 s;

	for (i = 0; i < ARRAY_SIZE(starts); i++) {
		s = starts[i];
		KUNIT_EXPECT_TRUE(test, eusrv_seq_within(s, s, s));
		KUNIT_EXPECT_TRUE(test, eusrv_seq_within(s, s + 10, s + 10));
		KUNIT_EXPECT_FALSE(test, eusrv_seq_within(s, s + 11, s + 10));
		KUNIT_EXPECT_FALSE(test, eusrv_seq_within(s, s - 1, s + 10));
	}
}

/* The send tail: forward from the last, at most a ring past the head. */
static void sor_ring_test_tail(struct kunit *test)
{
	unsigned int i;
	u32 h;

	for (i = 0; i < ARRAY_SIZE(starts); i++) {
		h = starts[i];
		KUNIT_EXPECT_TRUE(test, sor_ring_tail_ok(h, h, h, SZ));
		KUNIT_EXPECT_TRUE(test, sor_ring_tail_ok(h, h, h + SZ, SZ));
		KUNIT_EXPECT_TRUE(test, sor_ring_tail_ok(h, h + 5, h + 5, SZ));
		KUNIT_EXPECT_FALSE(test, sor_ring_tail_ok(h, h, h + SZ + 1, SZ));
		/* Backwards, also to a value that would look empty. */
		KUNIT_EXPECT_FALSE(test, sor_ring_tail_ok(h, h + 5, h + 4, SZ));
		KUNIT_EXPECT_FALSE(test, sor_ring_tail_ok(h, h + 5, h, SZ));
		KUNIT_EXPECT_FALSE(test, sor_ring_tail_ok(h, h, h - 1, SZ));
		KUNIT_EXPECT_FALSE(test, sor_ring_tail_ok(h, h, h ^ 0x80000000U, SZ));
	}
}

static void sor_ring_test_head(struct kunit *test)
{
	unsigned int i;
	u32 s;

	for (i = 0; i < ARRAY_SIZE(starts); i++) {
		s = starts[i];
		KUNIT_EXPECT_TRUE(test, sor_ring_head_ok(s, s, s + 100));
		KUNIT_EXPECT_TRUE(test, sor_ring_head_ok(s, s + 100, s + 100));
		KUNIT_EXPECT_FALSE(test, sor_ring_head_ok(s, s + 101, s + 100));
		KUNIT_EXPECT_FALSE(test, sor_ring_head_ok(s, s - 1, s + 100));
		KUNIT_EXPECT_FALSE(test, sor_ring_head_ok(s, U32_MAX / 2 + s, s));
	}
}

/* Positions from a peer: its head between the last one and what was sent. */
static void sor_ring_test_peer(struct kunit *test)
{
	unsigned int i;
	u32 s;

	for (i = 0; i < ARRAY_SIZE(starts); i++) {
		s = starts[i];
		KUNIT_EXPECT_TRUE(test, sor_ring_peer_pos_ok(s, s, s));
		KUNIT_EXPECT_TRUE(test, sor_ring_peer_pos_ok(s, s + 7, s + 7));
		KUNIT_EXPECT_FALSE(test, sor_ring_peer_pos_ok(s, s + 8, s + 7));
		KUNIT_EXPECT_FALSE(test, sor_ring_peer_pos_ok(s + 1, s, s + 7));
		/* The peer's tail: forward, not beyond the room our credit gave. */
		KUNIT_EXPECT_TRUE(test, sor_ring_new_tail_ok(s, s + 1, s, SZ));
		KUNIT_EXPECT_TRUE(test, sor_ring_new_tail_ok(s, s + SZ, s, SZ));
		KUNIT_EXPECT_TRUE(test, sor_ring_new_tail_ok(s, s, s, SZ));
		KUNIT_EXPECT_FALSE(test, sor_ring_new_tail_ok(s, s + SZ + 1, s, SZ));
		KUNIT_EXPECT_FALSE(test, sor_ring_new_tail_ok(s, s - 1, s, SZ));
		/* Credit given from a later head: more room. */
		KUNIT_EXPECT_TRUE(test, sor_ring_new_tail_ok(s + 10, s + SZ + 10,
							     s + 10, SZ));
		KUNIT_EXPECT_FALSE(test, sor_ring_new_tail_ok(s + 10, s + SZ + 1,
							      s, SZ));
	}
}

static void sor_ring_test_xfer_len(struct kunit *test)
{
	unsigned int i;
	u32 h;

	for (i = 0; i < ARRAY_SIZE(starts); i++) {
		h = starts[i];
		KUNIT_EXPECT_EQ(test, sor_ring_xfer_len(h, h, h, SZ, SZ), 0U);
		KUNIT_EXPECT_EQ(test, sor_ring_xfer_len(h, h + 100, h, SZ, SZ), 100U);
		KUNIT_EXPECT_EQ(test, sor_ring_xfer_len(h, h + SZ, h, SZ, SZ), SZ);
		/* The receiver has not consumed 1000 bytes yet. */
		KUNIT_EXPECT_EQ(test, sor_ring_xfer_len(h, h + SZ, h - 1000, SZ, SZ),
				SZ - 1000);
		KUNIT_EXPECT_EQ(test, sor_ring_xfer_len(h, h + SZ, h, SZ, 10), 10U);
		/* Impossible inputs move nothing. */
		KUNIT_EXPECT_EQ(test, sor_ring_xfer_len(h, h + SZ + 1, h, SZ, SZ), 0U);
		KUNIT_EXPECT_EQ(test, sor_ring_xfer_len(h, h + 1, h + 1, SZ, SZ), 0U);
		KUNIT_EXPECT_EQ(test, sor_ring_xfer_len(h, h + 1, h - SZ - 1, SZ, SZ),
				0U);
	}
}

static void sor_ring_test_split(struct kunit *test)
{
	struct sor_extent e[2];
	unsigned int i, nr;
	u32 pos, len, total;

	KUNIT_EXPECT_EQ(test, sor_ring_split(0, 0, SZ, e), 0U);
	KUNIT_EXPECT_EQ(test, sor_ring_split(0, SZ + 1, SZ, e), 0U);
	KUNIT_EXPECT_EQ(test, sor_ring_split(0, SZ, SZ, e), 1U);
	KUNIT_EXPECT_EQ(test, e[0].off, 0U);
	KUNIT_EXPECT_EQ(test, e[0].len, SZ);
	KUNIT_EXPECT_EQ(test, sor_ring_split(SZ - 1, 2, SZ, e), 2U);
	KUNIT_EXPECT_EQ(test, e[0].off, SZ - 1);
	KUNIT_EXPECT_EQ(test, e[0].len, 1U);
	KUNIT_EXPECT_EQ(test, e[1].off, 0U);
	KUNIT_EXPECT_EQ(test, e[1].len, 1U);
	/* Across the 32-bit wrap, the offsets continue seamlessly. */
	KUNIT_EXPECT_EQ(test, sor_ring_split(U32_MAX, 2, SZ, e), 2U);
	KUNIT_EXPECT_EQ(test, e[0].off, SZ - 1);
	KUNIT_EXPECT_EQ(test, e[1].off, 0U);

	for (i = 0; i < ARRAY_SIZE(starts); i++) {
		for (len = 1; len <= SZ; len += 511) {
			pos = starts[i];
			nr = sor_ring_split(pos, len, SZ, e);
			KUNIT_ASSERT_GE(test, nr, 1U);
			total = e[0].len + (nr == 2 ? e[1].len : 0);
			KUNIT_EXPECT_EQ(test, total, len);
			KUNIT_EXPECT_LE(test, e[0].off + e[0].len, SZ);
			if (nr == 2) {
				KUNIT_EXPECT_EQ(test, e[0].off + e[0].len, SZ);
				KUNIT_EXPECT_EQ(test, e[1].off, 0U);
			}
			KUNIT_EXPECT_EQ(test, e[0].off, pos & (SZ - 1));
		}
	}
}

/*
 * Flow control: the credit window and when a reader gives credit, at every
 * start position (the 2^32 wrap included).
 */
static void sor_ring_test_window(struct kunit *test)
{
	unsigned int i;
	u32 s;

	for (i = 0; i < ARRAY_SIZE(starts); i++) {
		s = starts[i];
		KUNIT_EXPECT_EQ(test, sor_ring_window(s, s, SZ), SZ);
		KUNIT_EXPECT_EQ(test, sor_ring_window(s, s + 1, SZ), SZ - 1);
		KUNIT_EXPECT_EQ(test, sor_ring_window(s, s + SZ, SZ), 0U);
		KUNIT_EXPECT_EQ(test, sor_ring_window(s + 100, s + SZ, SZ), 100U);
		/* More sent than the credit allowed: closed, never huge. */
		KUNIT_EXPECT_EQ(test, sor_ring_window(s, s + SZ + 1, SZ), 0U);
		/* A head past what was sent (never accepted): closed. */
		KUNIT_EXPECT_EQ(test, sor_ring_window(s + 1, s, SZ), 0U);
		/* A window never reaches past a ring of room. */
		KUNIT_EXPECT_EQ(test, sor_ring_xfer_len(s, s + SZ, s - SZ / 2, SZ, SZ),
				SZ / 2);
	}
}

/*
 * A head and tail pair as read: at most a ring apart, and the room beyond
 * the tail, at every start position (the 2^32 wrap included).
 */
static void sor_ring_test_room(struct kunit *test)
{
	unsigned int i;
	u32 s;

	for (i = 0; i < ARRAY_SIZE(starts); i++) {
		s = starts[i];
		KUNIT_EXPECT_TRUE(test, sor_ring_used_ok(s, s, SZ));
		KUNIT_EXPECT_TRUE(test, sor_ring_used_ok(s, s + SZ, SZ));
		KUNIT_EXPECT_FALSE(test, sor_ring_used_ok(s, s + SZ + 1, SZ));
		/* A tail behind the head is more than a ring ahead of it. */
		KUNIT_EXPECT_FALSE(test, sor_ring_used_ok(s + 1, s, SZ));
		KUNIT_EXPECT_EQ(test, sor_ring_dist(s, s + 7), 7U);
		KUNIT_EXPECT_EQ(test, sor_ring_room(s, s, SZ), SZ);
		KUNIT_EXPECT_EQ(test, sor_ring_room(s, s + SZ - 1, SZ), 1U);
		KUNIT_EXPECT_EQ(test, sor_ring_room(s, s + SZ, SZ), 0U);
	}
}

static void sor_ring_test_credit_due(struct kunit *test)
{
	unsigned int i;
	u32 s, t;

	for (i = 0; i < ARRAY_SIZE(starts); i++) {
		s = starts[i];
		/* Nothing consumed since the last credit: never. */
		KUNIT_EXPECT_FALSE(test, eusrv_sor_credit_due(s, s + SZ, s, SZ));
		/* The writer has plenty left: no credit per read. */
		KUNIT_EXPECT_FALSE(test, eusrv_sor_credit_due(s + SZ / 4, s + SZ / 4,
							      s, SZ));
		KUNIT_EXPECT_FALSE(test, eusrv_sor_credit_due(s + SZ / 2, s + SZ / 2,
							      s, SZ));
		/* Writer below half a ring, a quarter consumed: credit. */
		KUNIT_EXPECT_TRUE(test, eusrv_sor_credit_due(s + SZ / 4,
							     s + SZ / 2 + 1, s, SZ));
		KUNIT_EXPECT_FALSE(test, eusrv_sor_credit_due(s + SZ / 4 - 1,
							      s + SZ / 2 + 1, s, SZ));
		/* The writer out of credit and the ring drained: always due. */
		KUNIT_EXPECT_TRUE(test, eusrv_sor_credit_due(s + SZ, s + SZ, s, SZ));
		/* Whatever the writer sent, draining the ring never stalls. */
		for (t = s + SZ / 2 + 1; t != s + SZ + 1; t += SZ / 8)
			KUNIT_EXPECT_TRUE(test, eusrv_sor_credit_due(t, t, s, SZ));
	}
}

/* A receive with nothing to take: the error first, then the end, else wait. */
static void sor_ring_test_recv_step(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, sor_ring_recv_step(false, false), SOR_RING_WAIT);
	KUNIT_EXPECT_EQ(test, sor_ring_recv_step(false, true), SOR_RING_END);
	KUNIT_EXPECT_EQ(test, sor_ring_recv_step(true, false), SOR_RING_ERROR);
	KUNIT_EXPECT_EQ(test, sor_ring_recv_step(true, true), SOR_RING_ERROR);
}

/* A send: the error first, then the end; only an open connection goes on. */
static void sor_ring_test_send_step(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, sor_ring_send_step(false, false), SOR_RING_GO);
	KUNIT_EXPECT_EQ(test, sor_ring_send_step(false, true), SOR_RING_END);
	KUNIT_EXPECT_EQ(test, sor_ring_send_step(true, false), SOR_RING_ERROR);
	KUNIT_EXPECT_EQ(test, sor_ring_send_step(true, true), SOR_RING_ERROR);
}

static struct kunit_case sor_ring_test_cases[] = {
	KUNIT_CASE(sor_ring_test_within),
	KUNIT_CASE(sor_ring_test_tail),
	KUNIT_CASE(sor_ring_test_head),
	KUNIT_CASE(sor_ring_test_peer),
	KUNIT_CASE(sor_ring_test_window),
	KUNIT_CASE(sor_ring_test_room),
	KUNIT_CASE(sor_ring_test_credit_due),
	KUNIT_CASE(sor_ring_test_xfer_len),
	KUNIT_CASE(sor_ring_test_split),
	KUNIT_CASE(sor_ring_test_recv_step),
	KUNIT_CASE(sor_ring_test_send_step),
	{}
};

static struct kunit_suite sor_ring_test_suite = {
	.name = "eusrv_sor_ring",
	.test_cases = sor_ring_test_cases,
};

kunit_test_suite(sor_ring_test_suite);

MODULE_DESCRIPTION("KUnit tests of the sockets-over-RDMA ring arithmetic and decisions");
MODULE_LICENSE("GPL");
