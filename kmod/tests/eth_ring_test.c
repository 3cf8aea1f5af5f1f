// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite of the shared-NIC driver's AXI DMA rings, eth/eth_ring.h as
 * the driver includes it: the circular linking, head/tail/free bookkeeping
 * across the u32 wrap, ring size requests, filling and clearing
 * descriptors, and what a completed descriptor's STATUS and APP words are
 * taken to mean on transmit and on receive.
 */
#include <kunit/test.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/skbuff.h>

#include <eusrv/axidma_hw.h>
#include <eusrv/board_hw.h>

#include "../eth/eth_ring.h"

#define NODE		2U
#define RING_LOCAL	0x7654300ULL	/* 64-byte aligned */
#define SIZE		16U

static struct eth_ring *ring_new(struct kunit *test, u32 size)
{
	struct eth_ring *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	struct eusrv_axidma_desc *d = kunit_kcalloc(test, size, sizeof(*d), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_ASSERT_NOT_NULL(test, d);
	memset(d, 0xa5, size * sizeof(*d));
	eth_ring_init(r, d, EUSRV_GA(NODE, RING_LOCAL), size);
	return r;
}

static u64 le_addr(__le32 lo, __le32 hi)
{
	return (u64)le32_to_cpu(hi) << 32 | le32_to_cpu(lo);
}

static void ring_test_layout(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, sizeof(struct eusrv_axidma_desc), (size_t)EUSRV_AXIDMA_DESC_ALIGN);
	KUNIT_EXPECT_EQ(test, offsetof(struct eusrv_axidma_desc, ctrl),
			(size_t)EUSRV_AXIDMA_DESC_CTRL);
	KUNIT_EXPECT_EQ(test, offsetof(struct eusrv_axidma_desc, status),
			(size_t)EUSRV_AXIDMA_DESC_STATUS);
	KUNIT_EXPECT_EQ(test, offsetof(struct eusrv_axidma_desc, app[4]),
			(size_t)EUSRV_AXIDMA_DESC_APP(4));
	KUNIT_EXPECT_EQ(test, offsetof(struct eusrv_axidma_desc, buf_msb),
			(size_t)EUSRV_AXIDMA_DESC_BUF_MSB);
}

static void ring_test_init(struct kunit *test)
{
	struct eth_ring *r = ring_new(test, SIZE);
	u32 i;

	KUNIT_EXPECT_EQ(test, r->head, 0U);
	KUNIT_EXPECT_EQ(test, r->tail, 0U);
	for (i = 0; i < SIZE; i++) {
		const struct eusrv_axidma_desc *d = &r->desc[i];

		KUNIT_EXPECT_EQ(test, le_addr(d->next, d->next_msb),
				eth_ring_desc_ga(r, i + 1));
		KUNIT_EXPECT_EQ(test, d->ctrl, 0U);
		KUNIT_EXPECT_EQ(test, d->status, 0U);
		KUNIT_EXPECT_EQ(test, d->app[4], 0U);
	}
	/* The last links back to the first, all in the node's address space. */
	KUNIT_EXPECT_EQ(test, le_addr(r->desc[SIZE - 1].next, r->desc[SIZE - 1].next_msb),
			EUSRV_GA(NODE, RING_LOCAL));
	for (i = 0; i < 3 * SIZE; i++) {
		KUNIT_EXPECT_EQ(test, eth_ring_desc_ga(r, i) % EUSRV_AXIDMA_DESC_ALIGN, 0ULL);
		KUNIT_EXPECT_EQ(test, EUSRV_GA_NODE(eth_ring_desc_ga(r, i)), NODE);
		KUNIT_EXPECT_PTR_EQ(test, eth_ring_desc(r, i), &r->desc[i % SIZE]);
	}
}

static void ring_test_free(struct kunit *test)
{
	struct eth_ring *r = ring_new(test, SIZE);

	/* One slot always stays unused. */
	KUNIT_EXPECT_EQ(test, eth_ring_free(r), SIZE - 1);
	r->head = SIZE - 1;
	KUNIT_EXPECT_EQ(test, eth_ring_used(r), SIZE - 1);
	KUNIT_EXPECT_EQ(test, eth_ring_free(r), 0U);
	r->tail = 5;
	KUNIT_EXPECT_EQ(test, eth_ring_free(r), 5U);
	/* Impossible counters read as full, never as a huge free count. */
	r->head = r->tail + SIZE + 3;
	KUNIT_EXPECT_EQ(test, eth_ring_free(r), 0U);
	r->head = r->tail - 1;
	KUNIT_EXPECT_EQ(test, eth_ring_free(r), 0U);
}

static void ring_test_wrap(struct kunit *test)
{
	struct eth_ring *r = ring_new(test, SIZE);
	u32 i;

	/* Free-running counters across the u32 wrap. */
	r->tail = U32_MAX - 3;
	r->head = r->tail;
	KUNIT_EXPECT_EQ(test, eth_ring_free(r), SIZE - 1);
	for (i = 0; i < SIZE - 1; i++) {
		KUNIT_EXPECT_EQ(test, eth_ring_free(r), SIZE - 1 - i);
		r->head++;
	}
	KUNIT_EXPECT_LT(test, r->head, r->tail);
	KUNIT_EXPECT_EQ(test, eth_ring_used(r), SIZE - 1);
	KUNIT_EXPECT_EQ(test, eth_ring_free(r), 0U);
	KUNIT_EXPECT_EQ(test, eth_ring_slot(r, r->head), (U32_MAX - 3 + SIZE - 1) % SIZE);
	r->tail += 7;
	KUNIT_EXPECT_EQ(test, eth_ring_free(r), 7U);
	/* The descriptor after TAILDESC (head - 1) is never TAILDESC itself. */
	KUNIT_EXPECT_NE(test, eth_ring_desc_ga(r, r->head - 1),
			eth_ring_desc_ga(r, r->tail - 1));
}

static void ring_test_size(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, eth_ring_size(64, ETH_TX_RING_MIN, ETH_RING_MAX), 64U);
	KUNIT_EXPECT_EQ(test, eth_ring_size(100, ETH_TX_RING_MIN, ETH_RING_MAX), 128U);
	KUNIT_EXPECT_EQ(test, eth_ring_size(ETH_RING_MAX, 8, ETH_RING_MAX),
			ETH_RING_MAX);
	KUNIT_EXPECT_EQ(test, eth_ring_size(ETH_RING_MAX + 1, 8, ETH_RING_MAX), 0U);
	KUNIT_EXPECT_EQ(test, eth_ring_size(7, ETH_RX_RING_MIN, ETH_RING_MAX), 0U);
	KUNIT_EXPECT_EQ(test, eth_ring_size(0, ETH_RX_RING_MIN, ETH_RING_MAX), 0U);
	KUNIT_EXPECT_EQ(test, eth_ring_size(U32_MAX, ETH_RX_RING_MIN, ETH_RING_MAX), 0U);
	KUNIT_EXPECT_TRUE(test, is_power_of_2(ETH_TX_RING_DEFAULT));
	KUNIT_EXPECT_TRUE(test, is_power_of_2(ETH_RX_RING_DEFAULT));
	/* The smallest TX ring holds a frame of the most descriptors an skb takes. */
	KUNIT_EXPECT_GE(test, ETH_TX_RING_MIN - 1, (u32)(MAX_SKB_FRAGS + 1));
}

static void ring_test_fill(struct kunit *test)
{
	struct eth_ring *r = ring_new(test, SIZE);
	struct eusrv_axidma_desc *d = eth_ring_desc(r, 3);
	u64 buf = EUSRV_GA(NODE, 0x123456789aULL);

	d->status = cpu_to_le32(EUSRV_AXIDMA_ST_CMPLT | 100);
	d->app[0] = cpu_to_le32(1);
	eth_desc_fill(d, buf, 1514, EUSRV_AXIDMA_CTRL_SOF | EUSRV_AXIDMA_CTRL_EOF);
	KUNIT_EXPECT_EQ(test, le_addr(d->buf, d->buf_msb), buf);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(d->ctrl),
			1514U | EUSRV_AXIDMA_CTRL_SOF | EUSRV_AXIDMA_CTRL_EOF);
	KUNIT_EXPECT_EQ(test, d->status, 0U);
	KUNIT_EXPECT_EQ(test, d->app[0], 0U);
	/* The link stays. */
	KUNIT_EXPECT_EQ(test, le_addr(d->next, d->next_msb), eth_ring_desc_ga(r, 4));
	eth_desc_clear(d);
	KUNIT_EXPECT_EQ(test, d->ctrl, 0U);
	/* Lengths beyond the 23-bit field do not spill into the flags. */
	eth_desc_fill(d, buf, EUSRV_AXIDMA_MAX_LEN + 1, 0);
	KUNIT_EXPECT_EQ(test,
			le32_to_cpu(d->ctrl) & (EUSRV_AXIDMA_CTRL_SOF | EUSRV_AXIDMA_CTRL_EOF),
			0U);
}

static void ring_test_tx_status(struct kunit *test)
{
	u32 ctrl = 60 | EUSRV_AXIDMA_CTRL_SOF;

	KUNIT_EXPECT_EQ(test, eth_tx_status(0, ctrl), ETH_TX_BUSY);
	KUNIT_EXPECT_EQ(test, eth_tx_status(60, ctrl), ETH_TX_BUSY);
	KUNIT_EXPECT_EQ(test, eth_tx_status(EUSRV_AXIDMA_ST_CMPLT | 60, ctrl), ETH_TX_OK);
	KUNIT_EXPECT_EQ(test, eth_tx_status(EUSRV_AXIDMA_ST_CMPLT | 59, ctrl), ETH_TX_ERROR);
	KUNIT_EXPECT_EQ(test,
			eth_tx_status(EUSRV_AXIDMA_ST_CMPLT | EUSRV_AXIDMA_ST_SLVERR | 60, ctrl),
			ETH_TX_ERROR);
	KUNIT_EXPECT_EQ(test, eth_tx_status(EUSRV_AXIDMA_ST_CMPLT | EUSRV_AXIDMA_ST_DECERR, ctrl),
			ETH_TX_ERROR);
	KUNIT_EXPECT_EQ(test,
			eth_tx_status(EUSRV_AXIDMA_ST_CMPLT | EUSRV_AXIDMA_ST_INTERR | 60, ctrl),
			ETH_TX_ERROR);
}

static void ring_test_rx_status(struct kunit *test)
{
	const u32 whole = EUSRV_AXIDMA_ST_CMPLT | EUSRV_AXIDMA_ST_RXSOF | EUSRV_AXIDMA_ST_RXEOF;
	u32 len = 0;

	KUNIT_EXPECT_EQ(test, eth_rx_status(0, 0, 1518, &len), ETH_RX_BUSY);
	KUNIT_EXPECT_EQ(test, eth_rx_status(whole | 60, 60, 1518, &len), ETH_RX_OK);
	KUNIT_EXPECT_EQ(test, len, 60U);
	KUNIT_EXPECT_EQ(test, eth_rx_status(whole | 1518, 1518, 1518, &len), ETH_RX_OK);
	KUNIT_EXPECT_EQ(test, len, 1518U);
	/* APP4's upper half is not the length. */
	KUNIT_EXPECT_EQ(test, eth_rx_status(whole | 9018, 0xabcd0000U | 9018, 9018, &len),
			ETH_RX_OK);
	KUNIT_EXPECT_EQ(test, len, 9018U);
	len = 0;
	KUNIT_EXPECT_EQ(test, eth_rx_status(whole | 1519, 1519, 1518, &len),
			ETH_RX_BAD_LEN);
	KUNIT_EXPECT_EQ(test, eth_rx_status(whole | 13, 13, 1518, &len), ETH_RX_BAD_LEN);
	KUNIT_EXPECT_EQ(test, eth_rx_status(whole | 0, 0, 1518, &len), ETH_RX_BAD_LEN);
	KUNIT_EXPECT_EQ(test, eth_rx_status(whole | 100, 99, 1518, &len), ETH_RX_BAD_LEN);
	KUNIT_EXPECT_EQ(test, len, 0U);
	KUNIT_EXPECT_EQ(test,
			eth_rx_status(EUSRV_AXIDMA_ST_CMPLT | EUSRV_AXIDMA_ST_RXSOF | 1518, 0,
				      1518, &len),
			ETH_RX_PART);
	KUNIT_EXPECT_EQ(test,
			eth_rx_status(EUSRV_AXIDMA_ST_CMPLT | EUSRV_AXIDMA_ST_RXEOF | 10, 10,
				      1518, &len),
			ETH_RX_PART);
	KUNIT_EXPECT_EQ(test, eth_rx_status(EUSRV_AXIDMA_ST_CMPLT | 1518, 0, 1518, &len),
			ETH_RX_PART);
	KUNIT_EXPECT_EQ(test, eth_rx_status(whole | EUSRV_AXIDMA_ST_DECERR, 0, 1518, &len),
			ETH_RX_DMA_ERROR);
	KUNIT_EXPECT_EQ(test,
			eth_rx_status(EUSRV_AXIDMA_ST_CMPLT | EUSRV_AXIDMA_ST_SLVERR,
				      0, 1518, &len),
			ETH_RX_DMA_ERROR);
}

static void ring_test_csum_app1(struct kunit *test)
{
	u32 app1 = 0;

	/* IPv4/TCP: checksum from 34, field at 34 + 16. */
	KUNIT_EXPECT_TRUE(test, eth_tx_csum_app1(34, 16, &app1));
	KUNIT_EXPECT_EQ(test, app1, 34U << EUSRV_AXIDMA_APP1_CSUM_START_SHIFT | 50U);
	KUNIT_EXPECT_EQ(test, app1 & EUSRV_AXIDMA_APP1_CSUM_INSERT_MASK, 50U);
	/* IPv6/UDP. */
	KUNIT_EXPECT_TRUE(test, eth_tx_csum_app1(54, 6, &app1));
	KUNIT_EXPECT_EQ(test, app1 >> EUSRV_AXIDMA_APP1_CSUM_START_SHIFT, 54U);
	KUNIT_EXPECT_EQ(test, app1 & EUSRV_AXIDMA_APP1_CSUM_INSERT_MASK, 60U);
	app1 = 7;
	KUNIT_EXPECT_FALSE(test, eth_tx_csum_app1(0x10000, 0, &app1));
	KUNIT_EXPECT_FALSE(test, eth_tx_csum_app1(0xfff0, 0x10, &app1));
	KUNIT_EXPECT_FALSE(test, eth_tx_csum_app1(10, U32_MAX, &app1));
	KUNIT_EXPECT_EQ(test, app1, 7U);
}

static struct kunit_case ring_test_cases[] = {
	KUNIT_CASE(ring_test_layout),
	KUNIT_CASE(ring_test_init),
	KUNIT_CASE(ring_test_free),
	KUNIT_CASE(ring_test_wrap),
	KUNIT_CASE(ring_test_size),
	KUNIT_CASE(ring_test_fill),
	KUNIT_CASE(ring_test_tx_status),
	KUNIT_CASE(ring_test_rx_status),
	KUNIT_CASE(ring_test_csum_app1),
	{}
};

static struct kunit_suite ring_test_suite = {
	.name = "eusrv_eth_ring",
	.test_cases = ring_test_cases,
};

kunit_test_suite(ring_test_suite);

MODULE_DESCRIPTION("KUnit tests of the eusrv_eth AXI DMA rings");
MODULE_LICENSE("GPL");
