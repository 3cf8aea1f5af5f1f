// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite of the mailbox message codec, <eusrv/mbox_msg.h>: the header
 * the drivers and the board model use, included as is.
 */
#include <kunit/test.h>
#include <linux/kernel.h>
#include <linux/module.h>

#include <eusrv/mbox_msg.h>

#define PAYLOAD_MAX	EUSRV_MSG_PAYLOAD_MASK
#define CONN_MAX	(EUSRV_MSG_NR_CONNS - 1)
#define TYPE_MAX	(EUSRV_MSG_NR_TYPES - 1)

/* Payloads at and around the limits of the 48-bit field. */
static const u64 payloads[] = {
	0, 1, 2, 0x800000000000ULL, 0x7fffffffffffULL, 0x123456789abcULL,
	PAYLOAD_MAX - 1, PAYLOAD_MAX,
};

/* The wire layout of D4.2 3.3, spelt out rather than derived. */
static void msg_test_layout(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, eusrv_msg_make(0, 0, 0), 0ULL);
	KUNIT_EXPECT_EQ(test, eusrv_msg_make(TYPE_MAX, 0, 0),
			0xf000000000000000ULL);
	KUNIT_EXPECT_EQ(test, eusrv_msg_make(0, CONN_MAX, 0),
			0x0fff000000000000ULL);
	KUNIT_EXPECT_EQ(test, eusrv_msg_make(0, 0, PAYLOAD_MAX),
			0x0000ffffffffffffULL);
	KUNIT_EXPECT_EQ(test, eusrv_msg_make(1, 1, 1), 0x1001000000000001ULL);
	KUNIT_EXPECT_EQ(test, eusrv_msg_make(0xa, 0x5c3, 0x0123456789abULL),
			0xa5c30123456789abULL);
	KUNIT_EXPECT_EQ(test, eusrv_msg_make(TYPE_MAX, CONN_MAX, PAYLOAD_MAX),
			~0ULL);
}

/* The three fields tile the 64-bit word exactly. */
static void msg_test_fields_tile_word(struct kunit *test)
{
	u64 type = EUSRV_MSG_TYPE_MASK << EUSRV_MSG_TYPE_SHIFT;
	u64 conn = EUSRV_MSG_CONN_MASK << EUSRV_MSG_CONN_SHIFT;

	KUNIT_EXPECT_EQ(test, type & conn, 0ULL);
	KUNIT_EXPECT_EQ(test, type & EUSRV_MSG_PAYLOAD_MASK, 0ULL);
	KUNIT_EXPECT_EQ(test, conn & EUSRV_MSG_PAYLOAD_MASK, 0ULL);
	KUNIT_EXPECT_EQ(test, type | conn | EUSRV_MSG_PAYLOAD_MASK, ~0ULL);
	KUNIT_EXPECT_EQ(test, EUSRV_MSG_TYPE_MASK + 1, (u64)EUSRV_MSG_NR_TYPES);
	KUNIT_EXPECT_EQ(test, EUSRV_MSG_CONN_MASK + 1, (u64)EUSRV_MSG_NR_CONNS);
}

/* Every type with every connection id and the limit payloads survives. */
static void msg_test_roundtrip_all(struct kunit *test)
{
	unsigned int type, conn, i;
	u64 msg;

	for (type = 0; type < EUSRV_MSG_NR_TYPES; type++) {
		for (conn = 0; conn < EUSRV_MSG_NR_CONNS; conn++) {
			for (i = 0; i < ARRAY_SIZE(payloads); i++) {
				msg = eusrv_msg_make(type, conn, payloads[i]);
				KUNIT_ASSERT_EQ_MSG(test, eusrv_msg_type(msg), type,
						    "msg %#llx", msg);
				KUNIT_ASSERT_EQ_MSG(test, eusrv_msg_conn(msg), conn,
						    "msg %#llx", msg);
				KUNIT_ASSERT_EQ_MSG(test, eusrv_msg_payload(msg),
						    payloads[i], "msg %#llx", msg);
			}
		}
	}
}

/* A type too big for its field is cut to its low bits, nothing else moves. */
static void msg_test_type_overflow(struct kunit *test)
{
	static const unsigned int bad[] = {
		EUSRV_MSG_NR_TYPES, EUSRV_MSG_NR_TYPES + 1, 0x35, 0x80000000U,
		UINT_MAX,
	};
	unsigned int i;
	u64 msg;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		msg = eusrv_msg_make(bad[i], 0, 0);
		KUNIT_EXPECT_EQ_MSG(test, eusrv_msg_type(msg),
				    bad[i] & (unsigned int)EUSRV_MSG_TYPE_MASK,
				    "type %#x", bad[i]);
		KUNIT_EXPECT_EQ_MSG(test, eusrv_msg_conn(msg), 0U,
				    "type %#x", bad[i]);
		KUNIT_EXPECT_EQ_MSG(test, eusrv_msg_payload(msg), 0ULL,
				    "type %#x", bad[i]);

		msg = eusrv_msg_make(bad[i], CONN_MAX, PAYLOAD_MAX);
		KUNIT_EXPECT_EQ_MSG(test, eusrv_msg_conn(msg), CONN_MAX,
				    "type %#x", bad[i]);
		KUNIT_EXPECT_EQ_MSG(test, eusrv_msg_payload(msg), PAYLOAD_MAX,
				    "type %#x", bad[i]);
	}
}

/* A connection id of 4096 or more must not spill into the type. */
static void msg_test_conn_overflow(struct kunit *test)
{
	static const unsigned int bad[] = {
		EUSRV_MSG_NR_CONNS, EUSRV_MSG_NR_CONNS + 1, 0x1fff, 0xf000,
		0x10000, UINT_MAX,
	};
	unsigned int i;
	u64 msg;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		msg = eusrv_msg_make(0, bad[i], 0);
		KUNIT_EXPECT_EQ_MSG(test, eusrv_msg_type(msg), 0U,
				    "conn %#x", bad[i]);
		KUNIT_EXPECT_EQ_MSG(test, eusrv_msg_conn(msg),
				    bad[i] & (unsigned int)EUSRV_MSG_CONN_MASK,
				    "conn %#x", bad[i]);
		KUNIT_EXPECT_EQ_MSG(test, eusrv_msg_payload(msg), 0ULL,
				    "conn %#x", bad[i]);

		msg = eusrv_msg_make(EUSRV_MSG_T_PING, bad[i], PAYLOAD_MAX);
		KUNIT_EXPECT_EQ_MSG(test, eusrv_msg_type(msg), EUSRV_MSG_T_PING,
				    "conn %#x", bad[i]);
		KUNIT_EXPECT_EQ_MSG(test, eusrv_msg_payload(msg), PAYLOAD_MAX,
				    "conn %#x", bad[i]);
	}
}

/* A payload wider than 48 bits must not spill into conn or type. */
static void msg_test_payload_overflow(struct kunit *test)
{
	static const u64 bad[] = {
		PAYLOAD_MAX + 1, 1ULL << 59, 1ULL << 63, 0xfff0000000000000ULL,
		~0ULL,
	};
	unsigned int i;
	u64 msg;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		msg = eusrv_msg_make(0, 0, bad[i]);
		KUNIT_EXPECT_EQ_MSG(test, eusrv_msg_type(msg), 0U,
				    "payload %#llx", bad[i]);
		KUNIT_EXPECT_EQ_MSG(test, eusrv_msg_conn(msg), 0U,
				    "payload %#llx", bad[i]);
		KUNIT_EXPECT_EQ_MSG(test, eusrv_msg_payload(msg),
				    bad[i] & PAYLOAD_MAX, "payload %#llx", bad[i]);

		msg = eusrv_msg_make(EUSRV_MSG_T_SEQ, 0x2a, bad[i]);
		KUNIT_EXPECT_EQ_MSG(test, eusrv_msg_type(msg), EUSRV_MSG_T_SEQ,
				    "payload %#llx", bad[i]);
		KUNIT_EXPECT_EQ_MSG(test, eusrv_msg_conn(msg), 0x2aU,
				    "payload %#llx", bad[i]);
	}
}

/* Each bit of an arbitrary word decodes into exactly one field. */
static void msg_test_decode_single_bits(struct kunit *test)
{
	unsigned int bit, fields;
	u64 msg;

	for (bit = 0; bit < 64; bit++) {
		msg = 1ULL << bit;
		fields = !!eusrv_msg_type(msg) + !!eusrv_msg_conn(msg) +
			 !!eusrv_msg_payload(msg);
		KUNIT_EXPECT_EQ_MSG(test, fields, 1U, "bit %u", bit);
		KUNIT_EXPECT_EQ_MSG(test, eusrv_msg_make(eusrv_msg_type(msg),
							 eusrv_msg_conn(msg),
							 eusrv_msg_payload(msg)),
				    msg, "bit %u", bit);
	}
	KUNIT_EXPECT_EQ(test, eusrv_msg_type(~0ULL), TYPE_MAX);
	KUNIT_EXPECT_EQ(test, eusrv_msg_conn(~0ULL), CONN_MAX);
	KUNIT_EXPECT_EQ(test, eusrv_msg_payload(~0ULL), PAYLOAD_MAX);
}

/* A zeroed FIFO slot reads as the never-sent type, so it is recognisable. */
static void msg_test_zero_is_invalid(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, eusrv_msg_type(0), EUSRV_MSG_T_INVALID);
	KUNIT_EXPECT_EQ(test, eusrv_msg_conn(0), 0U);
	KUNIT_EXPECT_EQ(test, eusrv_msg_payload(0), 0ULL);
	KUNIT_EXPECT_NE(test, EUSRV_MSG_T_SEQ, EUSRV_MSG_T_INVALID);
	KUNIT_EXPECT_NE(test, EUSRV_MSG_T_PING, EUSRV_MSG_T_INVALID);
	KUNIT_EXPECT_NE(test, EUSRV_MSG_T_PONG, EUSRV_MSG_T_INVALID);
	KUNIT_EXPECT_LT(test, EUSRV_MSG_T_PONG, EUSRV_MSG_NR_TYPES);
}

static struct kunit_case msg_test_cases[] = {
	KUNIT_CASE(msg_test_layout),
	KUNIT_CASE(msg_test_fields_tile_word),
	KUNIT_CASE(msg_test_roundtrip_all),
	KUNIT_CASE(msg_test_type_overflow),
	KUNIT_CASE(msg_test_conn_overflow),
	KUNIT_CASE(msg_test_payload_overflow),
	KUNIT_CASE(msg_test_decode_single_bits),
	KUNIT_CASE(msg_test_zero_is_invalid),
	{}
};

static struct kunit_suite msg_test_suite = {
	.name = "eusrv_mbox_msg",
	.test_cases = msg_test_cases,
};

kunit_test_suite(msg_test_suite);

MODULE_DESCRIPTION("KUnit tests of the eusrv mailbox message codec");
MODULE_LICENSE("GPL");
