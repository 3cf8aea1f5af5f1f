// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite of the CDMA driver's descriptor ring, cdma/cdma_chain.h as the
 * driver includes it: the circular linking, transfer checks (extents,
 * messages, lengths, addresses), filling with the messages in the
 * descriptors' padding, wrap-around, the full ring and the in-order
 * reclaim walk with completed, pending and failed descriptors.
 */
#include <kunit/test.h>
#include <linux/kernel.h>
#include <linux/module.h>

#include <eusrv/board_hw.h>
#include <eusrv/cdma_hw.h>

#include "../cdma/cdma_chain.h"

#define NODE		3U
#define NODES		4U
#define RING_LOCAL	0x12340000ULL

static struct cdma_chain *chain_new(struct kunit *test)
{
	struct cdma_chain *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	struct eusrv_cdma_desc *ring = kunit_kzalloc(test, CDMA_RING_BYTES, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, c);
	KUNIT_ASSERT_NOT_NULL(test, ring);
	cdma_chain_init(c, ring, EUSRV_GA(NODE, RING_LOCAL));
	return c;
}

static u64 le_addr(__le32 lo, __le32 hi)
{
	return (u64)le32_to_cpu(hi) << 32 | le32_to_cpu(lo);
}

/* The engine's part: mark descriptors FROM..TO-1 completed with STATUS. */
static void engine_done(struct cdma_chain *c, u32 from, u32 to, u32 status)
{
	for (; from != to; from++)
		c->ring[cdma_slot_of(from)].status = cpu_to_le32(status);
}

static struct eusrv_cdma_xfer xfer(unsigned int nr_ext, unsigned int nr_msg)
{
	struct eusrv_cdma_xfer x = {
		.nr_ext = nr_ext,
		.ext = {
			{ EUSRV_GA(NODE, 0x1000), EUSRV_GA(1, 0x2000), 100 },
			{ EUSRV_GA(NODE, 0x9000), EUSRV_GA(2, 0xa000), 1 },
		},
		.nr_msg = nr_msg,
		.msg = {
			{ 1, eusrv_msg_make(1, 7, 0x42) },
			{ NODE, eusrv_msg_make(2, 7, 0x43) },
		},
	};

	return x;
}

static void chain_test_init(struct kunit *test)
{
	struct cdma_chain *c = chain_new(test);
	u32 i;

	for (i = 0; i < CDMA_RING_SIZE; i++) {
		u64 next = le_addr(c->ring[i].next, c->ring[i].next_msb);

		KUNIT_EXPECT_EQ(test, next, cdma_desc_ga(c, i + 1));
		KUNIT_EXPECT_EQ(test, next % EUSRV_CDMA_DESC_ALIGN, 0ULL);
		KUNIT_EXPECT_EQ(test, le32_to_cpu(c->ring[i].status), EUSRV_CDMA_ST_CMPLT);
	}
	KUNIT_EXPECT_EQ(test, cdma_desc_ga(c, CDMA_RING_SIZE - 1) + EUSRV_CDMA_DESC_SIZE,
			EUSRV_GA(NODE, RING_LOCAL + CDMA_RING_BYTES));
	KUNIT_EXPECT_EQ(test, cdma_desc_ga(c, CDMA_RING_SIZE), cdma_desc_ga(c, 0));
	KUNIT_EXPECT_EQ(test, cdma_chain_free(c), CDMA_RING_SIZE - 1);
	KUNIT_EXPECT_EQ(test, cdma_chain_reclaim(c, NULL), CDMA_RECLAIM_EMPTY);
	KUNIT_EXPECT_EQ(test, sizeof(struct eusrv_cdma_desc), (size_t)EUSRV_CDMA_DESC_SIZE);
}

static void chain_test_check(struct kunit *test)
{
	struct eusrv_cdma_xfer x;
	unsigned int e, m;

	for (e = 0; e <= 2; e++) {
		for (m = 0; m <= 2; m++) {
			x = xfer(e, m);
			KUNIT_EXPECT_EQ(test, cdma_xfer_check(&x, NODES),
					(e + m) ? (int)(e + m) : -EINVAL);
		}
	}
	x = xfer(3, 0);
	KUNIT_EXPECT_EQ(test, cdma_xfer_check(&x, NODES), -EINVAL);
	x = xfer(0, 3);
	KUNIT_EXPECT_EQ(test, cdma_xfer_check(&x, NODES), -EINVAL);
	KUNIT_EXPECT_EQ(test, cdma_xfer_check(NULL, NODES), -EINVAL);
	x = xfer(1, 1);
	KUNIT_EXPECT_EQ(test, cdma_xfer_check(&x, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, cdma_xfer_check(&x, EUSRV_MAX_NODES + 1), -EINVAL);
}

static void chain_test_check_lengths(struct kunit *test)
{
	struct eusrv_cdma_xfer x = xfer(2, 0);

	x.ext[1].len = 0;
	KUNIT_EXPECT_EQ(test, cdma_xfer_check(&x, NODES), -EINVAL);
	x.ext[1].len = EUSRV_CDMA_MAX_LEN;
	KUNIT_EXPECT_EQ(test, cdma_xfer_check(&x, NODES), 2);
	x.ext[1].len = EUSRV_CDMA_MAX_LEN + 1;
	KUNIT_EXPECT_EQ(test, cdma_xfer_check(&x, NODES), -EINVAL);
	x.ext[1].len = U32_MAX;
	KUNIT_EXPECT_EQ(test, cdma_xfer_check(&x, NODES), -EINVAL);
	/* A 1-byte extent is fine. */
	x.ext[1].len = 1;
	KUNIT_EXPECT_EQ(test, cdma_xfer_check(&x, NODES), 2);
}

static void chain_test_check_addresses(struct kunit *test)
{
	struct eusrv_cdma_xfer x;

	x = xfer(1, 0);
	x.ext[0].dst = EUSRV_GA(NODES, 0x1000);		/* no such node */
	KUNIT_EXPECT_EQ(test, cdma_xfer_check(&x, NODES), -EINVAL);
	x = xfer(1, 0);
	x.ext[0].src = EUSRV_GA(1, 0) | BIT_ULL(48);	/* bits 63:48 */
	KUNIT_EXPECT_EQ(test, cdma_xfer_check(&x, NODES), -EINVAL);
	x = xfer(1, 0);
	x.ext[0].dst = EUSRV_MBOX_INBOX_GA(1);		/* not RAM */
	x.ext[0].len = 8;
	KUNIT_EXPECT_EQ(test, cdma_xfer_check(&x, NODES), -EINVAL);
	x = xfer(1, 0);
	x.ext[0].dst = EUSRV_GA(1, EUSRV_GA_BLOCKS - 100);
	x.ext[0].len = 100;					/* ends at the window */
	KUNIT_EXPECT_EQ(test, cdma_xfer_check(&x, NODES), 1);
	x.ext[0].len = 101;
	KUNIT_EXPECT_EQ(test, cdma_xfer_check(&x, NODES), -EINVAL);
	x = xfer(0, 1);
	x.msg[0].node = NODES;
	KUNIT_EXPECT_EQ(test, cdma_xfer_check(&x, NODES), -EINVAL);
	x = xfer(0, 1);
	x.msg[0].msg = eusrv_msg_make(EUSRV_MSG_T_INVALID, 1, 1);
	KUNIT_EXPECT_EQ(test, cdma_xfer_check(&x, NODES), -EINVAL);
}

/* Fill every combination and look at each descriptor the engine would read. */
static void chain_test_fill(struct kunit *test)
{
	struct cdma_chain *c = chain_new(test);
	unsigned int e, m, i;

	for (e = 0; e <= 2; e++) {
		for (m = 0; m <= 2; m++) {
			struct eusrv_cdma_xfer x = xfer(e, m);
			int n = cdma_xfer_check(&x, NODES);
			u32 first = c->head, last;

			if (n < 0)
				continue;
			x.ctx = &x;
			last = cdma_chain_fill(c, &x, n);
			KUNIT_EXPECT_EQ(test, last, first + n - 1);
			KUNIT_EXPECT_EQ(test, c->head, first + n);
			KUNIT_EXPECT_EQ(test, (unsigned int)c->slot[cdma_slot_of(first)].nr,
					(unsigned int)n);
			KUNIT_EXPECT_PTR_EQ(test, c->slot[cdma_slot_of(first)].ctx, (void *)&x);
			for (i = 0; i < e; i++) {
				const struct eusrv_cdma_desc *d = &c->ring[cdma_slot_of(first + i)];

				KUNIT_EXPECT_EQ(test, le_addr(d->sa, d->sa_msb), x.ext[i].src);
				KUNIT_EXPECT_EQ(test, le_addr(d->da, d->da_msb), x.ext[i].dst);
				KUNIT_EXPECT_EQ(test, le32_to_cpu(d->ctrl), x.ext[i].len);
				KUNIT_EXPECT_EQ(test, le32_to_cpu(d->status), 0U);
			}
			for (i = 0; i < m; i++) {
				u32 idx = first + e + i;
				const struct eusrv_cdma_desc *d = &c->ring[cdma_slot_of(idx)];

				/* The message sits in its own descriptor's padding. */
				KUNIT_EXPECT_EQ(test, le_addr(d->sa, d->sa_msb),
						cdma_desc_ga(c, idx) + EUSRV_CDMA_DESC_SW);
				KUNIT_EXPECT_EQ(test, le64_to_cpu(d->sw[0]), x.msg[i].msg);
				KUNIT_EXPECT_EQ(test, le_addr(d->da, d->da_msb),
						EUSRV_MBOX_INBOX_GA(x.msg[i].node));
				KUNIT_EXPECT_EQ(test, le32_to_cpu(d->ctrl), 8U);
				KUNIT_EXPECT_EQ(test, le32_to_cpu(d->status), 0U);
			}
			/* The links are never touched. */
			for (i = 0; i < (unsigned int)n; i++) {
				const struct eusrv_cdma_desc *d = &c->ring[cdma_slot_of(first + i)];

				KUNIT_EXPECT_EQ(test, le_addr(d->next, d->next_msb),
						cdma_desc_ga(c, first + i + 1));
			}
		}
	}
}

/* Transfers of varying size around the ring many times, full ring included. */
static void chain_test_wrap_and_full(struct kunit *test)
{
	struct cdma_chain *c = chain_new(test);
	unsigned int round, freed_total = 0, queued = 0;

	c->head = U32_MAX - 100;	/* counters wrap too */
	c->tail = c->head;
	for (round = 0; round < 500; round++) {
		struct eusrv_cdma_xfer x = xfer(1 + round % 2, round % 3);
		int n = cdma_xfer_check(&x, NODES);
		unsigned int freed = 0;

		KUNIT_ASSERT_GT(test, n, 0);
		if (cdma_chain_free(c) < (u32)n) {
			/* Full: nothing fits until the engine completes some. */
			KUNIT_EXPECT_GE(test, cdma_chain_used(c),
					CDMA_RING_SIZE - CDMA_XFER_MAX_DESC);
			KUNIT_EXPECT_EQ(test, cdma_chain_reclaim(c, &freed), CDMA_RECLAIM_BUSY);
			KUNIT_EXPECT_EQ(test, freed, 0U);
			engine_done(c, c->tail, c->head, EUSRV_CDMA_ST_CMPLT);
			KUNIT_EXPECT_EQ(test, cdma_chain_reclaim(c, &freed), CDMA_RECLAIM_EMPTY);
			freed_total += freed;
			KUNIT_EXPECT_EQ(test, cdma_chain_free(c), CDMA_RING_SIZE - 1);
		}
		cdma_chain_fill(c, &x, n);
		queued++;
		KUNIT_EXPECT_LE(test, cdma_chain_used(c), CDMA_RING_SIZE - 1);
	}
	engine_done(c, c->tail, c->head, EUSRV_CDMA_ST_CMPLT);
	{
		unsigned int freed = 0;

		KUNIT_EXPECT_EQ(test, cdma_chain_reclaim(c, &freed), CDMA_RECLAIM_EMPTY);
		freed_total += freed;
	}
	KUNIT_EXPECT_EQ(test, freed_total, queued);
	KUNIT_EXPECT_EQ(test, c->head, c->tail);
}

static void chain_test_reclaim_partial(struct kunit *test)
{
	struct cdma_chain *c = chain_new(test);
	struct eusrv_cdma_xfer a = xfer(2, 2), b = xfer(1, 0);
	unsigned int freed = 0;
	u32 t0 = c->tail;

	cdma_chain_fill(c, &a, 4);
	cdma_chain_fill(c, &b, 1);
	/* Half of the first transfer done: nothing is freed. */
	engine_done(c, t0, t0 + 2, EUSRV_CDMA_ST_CMPLT);
	KUNIT_EXPECT_EQ(test, cdma_chain_reclaim(c, &freed), CDMA_RECLAIM_BUSY);
	KUNIT_EXPECT_EQ(test, freed, 0U);
	KUNIT_EXPECT_EQ(test, c->tail, t0);
	/* The rest of it: the first transfer is freed, the second is not done. */
	engine_done(c, t0 + 2, t0 + 4, EUSRV_CDMA_ST_CMPLT);
	KUNIT_EXPECT_EQ(test, cdma_chain_reclaim(c, &freed), CDMA_RECLAIM_BUSY);
	KUNIT_EXPECT_EQ(test, freed, 1U);
	KUNIT_EXPECT_EQ(test, c->tail, t0 + 4);
	engine_done(c, t0 + 4, t0 + 5, EUSRV_CDMA_ST_CMPLT);
	KUNIT_EXPECT_EQ(test, cdma_chain_reclaim(c, &freed), CDMA_RECLAIM_EMPTY);
	KUNIT_EXPECT_EQ(test, freed, 2U);
}

static void chain_test_reclaim_error(struct kunit *test)
{
	struct cdma_chain *c = chain_new(test);
	struct eusrv_cdma_xfer a = xfer(1, 1), b = xfer(1, 2);
	struct cdma_slot s;
	u32 t0 = c->tail;

	a.ctx = &a;
	b.ctx = &b;
	cdma_chain_fill(c, &a, 2);
	cdma_chain_fill(c, &b, 3);
	engine_done(c, t0, t0 + 1, EUSRV_CDMA_ST_CMPLT);
	engine_done(c, t0 + 1, t0 + 2, EUSRV_CDMA_ST_CMPLT | EUSRV_CDMA_ST_SLVERR);
	KUNIT_EXPECT_EQ(test, cdma_chain_reclaim(c, NULL), CDMA_RECLAIM_ERROR);
	KUNIT_EXPECT_TRUE(test, cdma_chain_has_ctx(c, &a));
	KUNIT_EXPECT_TRUE(test, cdma_chain_has_ctx(c, &b));
	/* The error work takes the failed one off; the next stays queued. */
	KUNIT_EXPECT_TRUE(test, cdma_chain_pop(c, &s));
	KUNIT_EXPECT_PTR_EQ(test, s.ctx, (void *)&a);
	KUNIT_EXPECT_FALSE(test, cdma_chain_has_ctx(c, &a));
	KUNIT_EXPECT_EQ(test, c->tail, t0 + 2);
	KUNIT_EXPECT_EQ(test, cdma_chain_reclaim(c, NULL), CDMA_RECLAIM_BUSY);
	KUNIT_EXPECT_TRUE(test, cdma_chain_pop(c, &s));
	KUNIT_EXPECT_PTR_EQ(test, s.ctx, (void *)&b);
	KUNIT_EXPECT_FALSE(test, cdma_chain_pop(c, &s));
	KUNIT_EXPECT_EQ(test, cdma_chain_reclaim(c, NULL), CDMA_RECLAIM_EMPTY);
}

/*
 * A halt on a refused mailbox write (DMASlvErr at CURDESC): the oldest
 * transfer's messages from the refused one on, and only then.
 */
static void chain_test_refused_msg(struct kunit *test)
{
	struct cdma_chain *c = chain_new(test);
	struct eusrv_cdma_xfer a = xfer(2, 2);
	const u32 ok = EUSRV_CDMA_ST_CMPLT, slv = ok | EUSRV_CDMA_ST_SLVERR;
	unsigned int node;
	u32 t0 = c->tail;
	u64 msg;

	cdma_chain_fill(c, &a, 4);
	KUNIT_EXPECT_EQ(test, cdma_chain_refused_msg(c, cdma_desc_ga(c, t0 + 2)), -1);
	KUNIT_EXPECT_FALSE(test, cdma_chain_tail_dma_error(c));
	engine_done(c, t0, t0 + 2, ok);
	engine_done(c, t0 + 2, t0 + 3, slv);
	KUNIT_EXPECT_EQ(test, cdma_chain_refused_msg(c, cdma_desc_ga(c, t0 + 2)), 2);
	KUNIT_ASSERT_TRUE(test, cdma_chain_msg_of(c, t0 + 2, &node, &msg));
	KUNIT_EXPECT_EQ(test, node, 1U);
	KUNIT_EXPECT_EQ(test, msg, a.msg[0].msg);
	KUNIT_ASSERT_TRUE(test, cdma_chain_msg_of(c, t0 + 3, &node, &msg));
	KUNIT_EXPECT_EQ(test, node, NODE);
	KUNIT_EXPECT_EQ(test, msg, a.msg[1].msg);
	KUNIT_EXPECT_FALSE(test, cdma_chain_msg_of(c, t0, &node, &msg));
	/* CURDESC elsewhere, a data descriptor refused, data not complete. */
	KUNIT_EXPECT_EQ(test, cdma_chain_refused_msg(c, cdma_desc_ga(c, t0 + 3)), -1);
	engine_done(c, t0 + 1, t0 + 2, slv);
	KUNIT_EXPECT_EQ(test, cdma_chain_refused_msg(c, cdma_desc_ga(c, t0 + 1)), -1);
	engine_done(c, t0 + 1, t0 + 2, 0);
	KUNIT_EXPECT_EQ(test, cdma_chain_refused_msg(c, cdma_desc_ga(c, t0 + 2)), -1);
	KUNIT_EXPECT_TRUE(test, cdma_chain_tail_dma_error(c));
	/* Another error kind at the message: not a refusal. */
	engine_done(c, t0 + 1, t0 + 2, ok);
	engine_done(c, t0 + 2, t0 + 3, ok | EUSRV_CDMA_ST_DECERR);
	KUNIT_EXPECT_EQ(test, cdma_chain_refused_msg(c, cdma_desc_ga(c, t0 + 2)), -1);
}

/* Broken bookkeeping (a corrupted slot count) never walks off the ring. */
static void chain_test_bad_bookkeeping(struct kunit *test)
{
	struct cdma_chain *c = chain_new(test);
	struct eusrv_cdma_xfer a = xfer(1, 0);
	struct cdma_slot s;

	cdma_chain_fill(c, &a, 1);
	c->slot[cdma_slot_of(c->tail)].nr = 200;
	KUNIT_EXPECT_EQ(test, cdma_chain_reclaim(c, NULL), CDMA_RECLAIM_ERROR);
	KUNIT_EXPECT_TRUE(test, cdma_chain_pop(c, &s));
	KUNIT_EXPECT_EQ(test, c->tail, c->head);
}

static void chain_test_alignment(struct kunit *test)
{
	struct cdma_chain *c = chain_new(test);
	u32 i;

	KUNIT_EXPECT_EQ(test, offsetof(struct eusrv_cdma_desc, ctrl), (size_t)EUSRV_CDMA_DESC_CTRL);
	KUNIT_EXPECT_EQ(test, offsetof(struct eusrv_cdma_desc, status),
			(size_t)EUSRV_CDMA_DESC_STATUS);
	KUNIT_EXPECT_EQ(test, offsetof(struct eusrv_cdma_desc, sw), (size_t)EUSRV_CDMA_DESC_SW);
	for (i = 0; i < 3 * CDMA_RING_SIZE; i++)
		KUNIT_EXPECT_EQ(test, cdma_desc_ga(c, i) % EUSRV_CDMA_DESC_ALIGN, 0ULL);
	/* The message slot is 8-byte aligned, as the INBOX write needs. */
	KUNIT_EXPECT_EQ(test, (cdma_desc_ga(c, 5) + EUSRV_CDMA_DESC_SW) % 8, 0ULL);
}

/* Stores: checked (aligned, in RAM), filled between the data and the messages. */
static void chain_test_puts(struct kunit *test)
{
	struct cdma_chain *c = chain_new(test);
	struct eusrv_cdma_xfer x = xfer(2, 2);
	struct eusrv_cdma_desc *d;
	u32 last;

	x.nr_put = 2;
	x.put[0].dst = EUSRV_GA(1, 0x3000);
	x.put[0].val = 0xdeadbeef;
	x.put[1].dst = EUSRV_GA(1, 0x4040);
	x.put[1].val = 7;
	KUNIT_EXPECT_EQ(test, cdma_xfer_check(&x, NODES), 6);
	x.nr_put = 4;
	KUNIT_EXPECT_EQ(test, cdma_xfer_check(&x, NODES), -EINVAL);
	x.nr_put = 2;
	x.put[1].dst = EUSRV_GA(1, 0x4042);
	KUNIT_EXPECT_EQ(test, cdma_xfer_check(&x, NODES), -EINVAL);
	x.put[1].dst = EUSRV_GA(NODES, 0x4040);
	KUNIT_EXPECT_EQ(test, cdma_xfer_check(&x, NODES), -EINVAL);
	x.put[1].dst = EUSRV_GA(1, EUSRV_GA_BLOCKS - 4);
	KUNIT_EXPECT_EQ(test, cdma_xfer_check(&x, NODES), 6);
	x.put[1].dst = EUSRV_GA(1, EUSRV_GA_BLOCKS);
	KUNIT_EXPECT_EQ(test, cdma_xfer_check(&x, NODES), -EINVAL);
	/* Stores alone are a transfer. */
	x = xfer(0, 0);
	x.nr_put = 1;
	x.put[0].dst = EUSRV_GA(1, 0x3000);
	KUNIT_EXPECT_EQ(test, cdma_xfer_check(&x, NODES), 1);

	x = xfer(1, 1);
	x.nr_put = 2;
	x.put[0].dst = EUSRV_GA(1, 0x3000);
	x.put[0].val = 0xdeadbeef;
	x.put[1].dst = EUSRV_GA(1, 0x4040);
	x.put[1].val = 7;
	last = cdma_chain_fill(c, &x, 4);
	KUNIT_EXPECT_EQ(test, last, 3U);
	d = &c->ring[1];
	KUNIT_EXPECT_EQ(test, le_addr(d->sa, d->sa_msb),
			cdma_desc_ga(c, 1) + EUSRV_CDMA_DESC_SW);
	KUNIT_EXPECT_EQ(test, le_addr(d->da, d->da_msb), EUSRV_GA(1, 0x3000));
	KUNIT_EXPECT_EQ(test, le32_to_cpu(d->ctrl), CDMA_PUT_SIZE);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(d->sw[0]), 0xdeadbeefULL);
	d = &c->ring[2];
	KUNIT_EXPECT_EQ(test, le_addr(d->da, d->da_msb), EUSRV_GA(1, 0x4040));
	KUNIT_EXPECT_EQ(test, le64_to_cpu(d->sw[0]), 7ULL);
	/* The message comes last. */
	d = &c->ring[3];
	KUNIT_EXPECT_EQ(test, le_addr(d->da, d->da_msb), EUSRV_MBOX_INBOX_GA(1));
	KUNIT_EXPECT_EQ(test, c->slot[0].nr, 4);
}

/*
 * A conditional message carries its word's address in COND_ADDR and the
 * COND bit; the mark goes between the two messages, and a refusal of the
 * first message leaves the mark and the second to be sent another way.
 */
static void chain_test_cond_mark(struct kunit *test)
{
	struct cdma_chain *c = chain_new(test);
	struct eusrv_cdma_xfer x = xfer(1, 2);
	unsigned int node;
	u64 msg;
	u32 last;

	x.msg[0].cond = EUSRV_GA(1, 0x5040);
	x.has_mark = true;
	x.mark.dst = EUSRV_GA(NODE, 0x6080);
	x.mark.val = 99;
	KUNIT_EXPECT_EQ(test, cdma_xfer_check(&x, NODES), 4);
	x.msg[0].cond = EUSRV_GA(1, 0x5042);
	KUNIT_EXPECT_EQ(test, cdma_xfer_check(&x, NODES), -EINVAL);
	x.msg[0].cond = EUSRV_GA(NODES, 0x5040);
	KUNIT_EXPECT_EQ(test, cdma_xfer_check(&x, NODES), -EINVAL);
	x.msg[0].cond = EUSRV_GA(1, 0x5040);
	x.mark.dst = EUSRV_GA(NODE, 0x6081);
	KUNIT_EXPECT_EQ(test, cdma_xfer_check(&x, NODES), -EINVAL);
	x.mark.dst = EUSRV_GA(NODE, 0x6080);
	x.nr_msg = 1;
	KUNIT_EXPECT_EQ(test, cdma_xfer_check(&x, NODES), -EINVAL);
	x.nr_msg = 2;

	last = cdma_chain_fill(c, &x, 4);
	KUNIT_EXPECT_EQ(test, last, 3U);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->ring[1].ctrl),
			(u32)(sizeof(u64) | EUSRV_CDMA_CTL_COND));
	KUNIT_EXPECT_EQ(test, le64_to_cpu(c->ring[1].sw[3]), EUSRV_GA(1, 0x5040));
	/* The mark between the messages, the second unconditional. */
	KUNIT_EXPECT_EQ(test, le_addr(c->ring[2].da, c->ring[2].da_msb),
			EUSRV_GA(NODE, 0x6080));
	KUNIT_EXPECT_EQ(test, le64_to_cpu(c->ring[2].sw[0]), 99ULL);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->ring[3].ctrl), (u32)sizeof(u64));
	KUNIT_EXPECT_TRUE(test, cdma_chain_msg_of(c, 1, &node, &msg));
	KUNIT_EXPECT_EQ(test, node, 1U);
	KUNIT_EXPECT_FALSE(test, cdma_chain_msg_of(c, 2, &node, &msg));

	/* Refused at the first message: it and what follows it go on. */
	engine_done(c, 0, 1, EUSRV_CDMA_ST_CMPLT);
	engine_done(c, 1, 2, EUSRV_CDMA_ST_CMPLT | EUSRV_CDMA_ST_SLVERR);
	KUNIT_EXPECT_EQ(test, cdma_chain_refused_msg(c, cdma_desc_ga(c, 1)), 1);
	/* At the mark it is not a refusal. */
	KUNIT_EXPECT_EQ(test, cdma_chain_refused_msg(c, cdma_desc_ga(c, 2)), -1);
}

static struct kunit_case chain_test_cases[] = {
	KUNIT_CASE(chain_test_init),
	KUNIT_CASE(chain_test_check),
	KUNIT_CASE(chain_test_check_lengths),
	KUNIT_CASE(chain_test_check_addresses),
	KUNIT_CASE(chain_test_fill),
	KUNIT_CASE(chain_test_wrap_and_full),
	KUNIT_CASE(chain_test_reclaim_partial),
	KUNIT_CASE(chain_test_reclaim_error),
	KUNIT_CASE(chain_test_refused_msg),
	KUNIT_CASE(chain_test_bad_bookkeeping),
	KUNIT_CASE(chain_test_alignment),
	KUNIT_CASE(chain_test_puts),
	KUNIT_CASE(chain_test_cond_mark),
	{}
};

static struct kunit_suite chain_test_suite = {
	.name = "eusrv_cdma_chain",
	.test_cases = chain_test_cases,
};

kunit_test_suite(chain_test_suite);

MODULE_DESCRIPTION("KUnit tests of the eusrv CDMA descriptor ring");
MODULE_LICENSE("GPL");
