// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite of the sockets-over-RDMA message codec, <eusrv/sor_msg.h>:
 * every type and field of docs/protocol.md section 2, spelt out bit by bit,
 * round trips at the limits of each field, and fields that never spill.
 */
#include <kunit/test.h>
#include <linux/kernel.h>
#include <linux/module.h>

#include <eusrv/sor_msg.h>

static void sor_msg_test_types(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, EUSRV_SOR_MSG_CONNRQ, 1U);
	KUNIT_EXPECT_EQ(test, EUSRV_SOR_MSG_KEEPALIVE, 8U);
	/* Clear of the board's diagnostic types. */
	KUNIT_EXPECT_LT(test, EUSRV_SOR_MSG_LAST, EUSRV_MSG_T_SEQ);
	KUNIT_EXPECT_EQ(test, EUSRV_SOR_NO_ID, EUSRV_MSG_CONN_MASK);
}

static void sor_msg_test_connrq(struct kunit *test)
{
	struct eusrv_sor_connrq rq;
	u64 m = eusrv_sor_msg_connrq(0x123, 0xabcd, 0x1234, 18, 22);

	/* type 1, id 0x123, dport 47:32, sport 31:16, 15:11, 10:6 */
	KUNIT_EXPECT_EQ(test, m, 0x1123abcd12349580ULL);
	eusrv_sor_connrq_decode(m, &rq);
	KUNIT_EXPECT_EQ(test, rq.dport, 0xabcd);
	KUNIT_EXPECT_EQ(test, rq.sport, 0x1234);
	KUNIT_EXPECT_EQ(test, rq.snd_shift, 18U);
	KUNIT_EXPECT_EQ(test, rq.rcv_shift, 22U);
	KUNIT_EXPECT_EQ(test, eusrv_msg_conn(m), 0x123U);

	m = eusrv_sor_msg_connrq(EUSRV_SOR_NO_ID - 1, 0xffff, 0xffff, 31, 31);
	eusrv_sor_connrq_decode(m, &rq);
	KUNIT_EXPECT_EQ(test, rq.dport, 0xffff);
	KUNIT_EXPECT_EQ(test, rq.sport, 0xffff);
	KUNIT_EXPECT_EQ(test, rq.snd_shift, 31U);
	KUNIT_EXPECT_EQ(test, rq.rcv_shift, 31U);
	/* Bits 5:0 stay clear. */
	KUNIT_EXPECT_EQ(test, eusrv_msg_payload(m) & 0x3f, 0ULL);
	/* An oversized shift cannot spill into the port. */
	m = eusrv_sor_msg_connrq(0, 1, 2, 0xff, 0xff);
	eusrv_sor_connrq_decode(m, &rq);
	KUNIT_EXPECT_EQ(test, rq.sport, 2);
	KUNIT_EXPECT_EQ(test, rq.dport, 1);
}

static void sor_msg_test_accept(struct kunit *test)
{
	struct eusrv_sor_accept_msg a;
	u64 m = eusrv_sor_msg_accept(7, 0xffe, 12, 22);

	KUNIT_EXPECT_EQ(test, eusrv_msg_type(m), EUSRV_SOR_MSG_CONNRPL);
	KUNIT_EXPECT_EQ(test, eusrv_msg_conn(m), 7U);
	KUNIT_EXPECT_EQ(test, eusrv_sor_rpl_step(m), EUSRV_SOR_RPL_ACCEPT);
	/* step 1 at 47:44, id at 43:32, shifts at 31:27 and 26:22 */
	KUNIT_EXPECT_EQ(test, eusrv_msg_payload(m), 0x1ffe65800000ULL);
	eusrv_sor_accept_decode(m, &a);
	KUNIT_EXPECT_EQ(test, a.server_id, 0xffeU);
	KUNIT_EXPECT_EQ(test, a.cs_shift, 12U);
	KUNIT_EXPECT_EQ(test, a.sc_shift, 22U);
	KUNIT_EXPECT_EQ(test, eusrv_msg_payload(m) & GENMASK_ULL(21, 0), 0ULL);
}

static void sor_msg_test_addr(struct kunit *test)
{
	const u64 addrs[] = { 0, 0x1000, 0x12345000, 0xfffffff000ULL };
	unsigned int i;
	u64 m;

	for (i = 0; i < ARRAY_SIZE(addrs); i++) {
		KUNIT_EXPECT_TRUE(test, eusrv_sor_addr_encodable(addrs[i]));
		m = eusrv_sor_msg_addr(9, 0xffe, addrs[i]);
		KUNIT_EXPECT_EQ(test, eusrv_msg_type(m), EUSRV_SOR_MSG_CONNRPL);
		KUNIT_EXPECT_EQ(test, eusrv_sor_rpl_step(m), EUSRV_SOR_RPL_ADDR);
		KUNIT_EXPECT_EQ(test, eusrv_sor_addr_decode(m), addrs[i]);
		KUNIT_EXPECT_EQ(test, eusrv_sor_from_decode(m), 0xffeU);
		KUNIT_EXPECT_EQ(test, eusrv_msg_payload(m) & GENMASK_ULL(31, 28),
				0ULL);
	}
	KUNIT_EXPECT_FALSE(test, eusrv_sor_addr_encodable(0x1001));
	KUNIT_EXPECT_FALSE(test, eusrv_sor_addr_encodable(1ULL << 40));
	/* Frames beyond 28 bits never reach the step field. */
	m = eusrv_sor_msg_addr(0, 0, ~0ULL << 12);
	KUNIT_EXPECT_EQ(test, eusrv_sor_rpl_step(m), EUSRV_SOR_RPL_ADDR);
	KUNIT_EXPECT_EQ(test, eusrv_sor_from_decode(m), 0U);
	/* The ACCEPT's server id is where every other reply names its sender. */
	m = eusrv_sor_msg_accept(1, 0x123, 12, 12);
	KUNIT_EXPECT_EQ(test, eusrv_sor_from_decode(m), 0x123U);
}

static void sor_msg_test_pos(struct kunit *test)
{
	const u32 pos[] = { 0, 1, 0x7fffffff, 0x80000000, U32_MAX };
	const unsigned int from[] = { 0, 1, 0x800, 0xffe, EUSRV_SOR_NO_ID };
	const unsigned int types[] = {
		EUSRV_SOR_MSG_CREDIT, EUSRV_SOR_MSG_DATA, EUSRV_SOR_MSG_SENT,
		EUSRV_SOR_MSG_FIN, EUSRV_SOR_MSG_ARM,
	};
	unsigned int i, j;
	u64 m;

	for (i = 0; i < ARRAY_SIZE(types); i++) {
		for (j = 0; j < ARRAY_SIZE(pos); j++) {
			m = eusrv_sor_msg_pos(types[i], 0xabc, from[j], pos[j]);
			KUNIT_EXPECT_EQ(test, eusrv_msg_type(m), types[i]);
			KUNIT_EXPECT_EQ(test, eusrv_msg_conn(m), 0xabcU);
			KUNIT_EXPECT_EQ(test, eusrv_sor_pos_decode(m), pos[j]);
			KUNIT_EXPECT_EQ(test, eusrv_sor_from_decode(m), from[j]);
			KUNIT_EXPECT_TRUE(test, eusrv_sor_pos_wellformed(m));
		}
	}
	/* 43:32 the sender's id, 31:0 the position. */
	KUNIT_EXPECT_EQ(test, eusrv_sor_msg_pos(EUSRV_SOR_MSG_DATA, 1, 3, 2),
			0x4001000300000002ULL);
	/* An id wider than 12 bits never reaches 47:44. */
	m = eusrv_sor_msg_pos(EUSRV_SOR_MSG_DATA, 1, ~0U, 2);
	KUNIT_EXPECT_TRUE(test, eusrv_sor_pos_wellformed(m));
	KUNIT_EXPECT_FALSE(test, eusrv_sor_pos_wellformed(0x4001100000000002ULL));
}

static void sor_msg_test_probe_rst(struct kunit *test)
{
	u64 m = eusrv_sor_msg_probe(0x12, 0x345, EUSRV_SOR_PROBE_ASK);

	KUNIT_EXPECT_EQ(test, eusrv_msg_type(m), EUSRV_SOR_MSG_PROBE);
	KUNIT_EXPECT_EQ(test, eusrv_msg_conn(m), 0x12U);
	KUNIT_EXPECT_EQ(test, eusrv_sor_from_decode(m), 0x345U);
	KUNIT_EXPECT_EQ(test, eusrv_sor_kind_decode(m), EUSRV_SOR_PROBE_ASK);
	KUNIT_EXPECT_EQ(test, m, 0xa012134500000000ULL);
	m = eusrv_sor_msg_probe(0, 0, EUSRV_SOR_PROBE_ECHO);
	KUNIT_EXPECT_EQ(test, eusrv_sor_kind_decode(m), EUSRV_SOR_PROBE_ECHO);

	/* RST names the unknown id as its sender: checked like any message. */
	m = eusrv_sor_msg_rst(0x7, 0xfed);
	KUNIT_EXPECT_EQ(test, eusrv_msg_type(m), EUSRV_SOR_MSG_RST);
	KUNIT_EXPECT_EQ(test, eusrv_msg_conn(m), 0x7U);
	KUNIT_EXPECT_EQ(test, eusrv_sor_from_decode(m), 0xfedU);
	KUNIT_EXPECT_TRUE(test, eusrv_sor_pos_wellformed(m));
	KUNIT_EXPECT_EQ(test, eusrv_sor_pos_decode(m), 0U);
}

static void sor_msg_test_nack(struct kunit *test)
{
	struct eusrv_sor_nack n;
	u64 m = eusrv_sor_msg_nack(0x42, EUSRV_SOR_NACK_REQUEST, 111, 0xfff);

	/* kind 23:20, reason 19:12, sender 11:0 */
	KUNIT_EXPECT_EQ(test, m, 0x704200000016ffffULL);
	eusrv_sor_nack_decode(m, &n);
	KUNIT_EXPECT_EQ(test, n.kind, EUSRV_SOR_NACK_REQUEST);
	KUNIT_EXPECT_EQ(test, n.reason, 111U);
	KUNIT_EXPECT_EQ(test, n.sender_id, EUSRV_SOR_NO_ID);

	m = eusrv_sor_msg_nack(0, EUSRV_SOR_NACK_REPLY, 0, 17);
	eusrv_sor_nack_decode(m, &n);
	KUNIT_EXPECT_EQ(test, n.kind, EUSRV_SOR_NACK_REPLY);
	KUNIT_EXPECT_EQ(test, n.reason, 0U);
	KUNIT_EXPECT_EQ(test, n.sender_id, 17U);
	/* Too large a reason is cut to its 8 bits, never spilling. */
	m = eusrv_sor_msg_nack(0, 1, 0x1ff, 0);
	eusrv_sor_nack_decode(m, &n);
	KUNIT_EXPECT_EQ(test, n.kind, 1U);
	KUNIT_EXPECT_EQ(test, n.reason, 0xffU);
	KUNIT_EXPECT_EQ(test, eusrv_msg_payload(m) >> 24, 0ULL);
}

static void sor_msg_test_keepalive(struct kunit *test)
{
	u64 m = eusrv_sor_msg_keepalive(EUSRV_SOR_KA_PROBE, 0xdeadbeef);

	KUNIT_EXPECT_EQ(test, m, 0x80001000deadbeefULL);
	KUNIT_EXPECT_EQ(test, eusrv_sor_ka_kind(m), EUSRV_SOR_KA_PROBE);
	KUNIT_EXPECT_EQ(test, eusrv_sor_ka_seq(m), 0xdeadbeefU);
	m = eusrv_sor_msg_keepalive(EUSRV_SOR_KA_ECHO, 0);
	KUNIT_EXPECT_EQ(test, eusrv_sor_ka_kind(m), EUSRV_SOR_KA_ECHO);
	KUNIT_EXPECT_EQ(test, eusrv_msg_conn(m), 0U);
	m = eusrv_sor_msg_keepalive(EUSRV_SOR_KA_RESET, 0);
	KUNIT_EXPECT_EQ(test, m, 0x8000300000000000ULL);
	KUNIT_EXPECT_EQ(test, eusrv_sor_ka_kind(m), EUSRV_SOR_KA_RESET);
}

static struct kunit_case sor_msg_test_cases[] = {
	KUNIT_CASE(sor_msg_test_types),
	KUNIT_CASE(sor_msg_test_connrq),
	KUNIT_CASE(sor_msg_test_accept),
	KUNIT_CASE(sor_msg_test_addr),
	KUNIT_CASE(sor_msg_test_pos),
	KUNIT_CASE(sor_msg_test_probe_rst),
	KUNIT_CASE(sor_msg_test_nack),
	KUNIT_CASE(sor_msg_test_keepalive),
	{}
};

static struct kunit_suite sor_msg_test_suite = {
	.name = "eusrv_sor_msg",
	.test_cases = sor_msg_test_cases,
};

kunit_test_suite(sor_msg_test_suite);

MODULE_DESCRIPTION("KUnit tests of the sockets-over-RDMA message codec");
MODULE_LICENSE("GPL");
