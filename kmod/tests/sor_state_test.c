// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite of the sockets-over-RDMA state machines, sor/sor_state.h:
 * which messages each state takes (duplicates and late ones included),
 * where a NACK, a close or an abort leads, and the NACK resend limit.
 */
#include <kunit/test.h>
#include <linux/kernel.h>
#include <linux/module.h>

#include "../sor/sor_state.h"

static const unsigned int all_states[] = {
	EUSRV_SOR_ST_CONNECTING, EUSRV_SOR_ST_ACCEPTING,
	EUSRV_SOR_ST_ESTABLISHED, EUSRV_SOR_ST_CLOSING,
	EUSRV_SOR_ST_PEER_CLOSED, EUSRV_SOR_ST_RESET,
	EUSRV_SOR_ST_NACK_WAIT, SOR_ST_QUARANTINE,
};

static void sor_state_test_setup_msgs(struct kunit *test)
{
	unsigned int i, s;

	/* ACCEPT: only a client that is connecting and has no peer id. */
	KUNIT_EXPECT_TRUE(test, sor_st_accepts(EUSRV_SOR_ST_CONNECTING, true,
					       false, false, SOR_MSG_ACCEPT));
	/* A duplicate ACCEPT is dropped. */
	KUNIT_EXPECT_FALSE(test, sor_st_accepts(EUSRV_SOR_ST_CONNECTING, true,
						true, false, SOR_MSG_ACCEPT));
	KUNIT_EXPECT_FALSE(test, sor_st_accepts(EUSRV_SOR_ST_ACCEPTING, false,
						true, false, SOR_MSG_ACCEPT));
	/* ADDR: client after ACCEPT, server while accepting; once. */
	KUNIT_EXPECT_FALSE(test, sor_st_accepts(EUSRV_SOR_ST_CONNECTING, true,
						false, false, SOR_MSG_ADDR));
	KUNIT_EXPECT_TRUE(test, sor_st_accepts(EUSRV_SOR_ST_CONNECTING, true,
					       true, false, SOR_MSG_ADDR));
	KUNIT_EXPECT_FALSE(test, sor_st_accepts(EUSRV_SOR_ST_CONNECTING, true,
						true, true, SOR_MSG_ADDR));
	KUNIT_EXPECT_TRUE(test, sor_st_accepts(EUSRV_SOR_ST_ACCEPTING, false,
					       true, false, SOR_MSG_ADDR));
	KUNIT_EXPECT_FALSE(test, sor_st_accepts(EUSRV_SOR_ST_ACCEPTING, false,
						true, true, SOR_MSG_ADDR));
	/* Late set-up messages after set-up are dropped everywhere. */
	for (i = 0; i < ARRAY_SIZE(all_states); i++) {
		s = all_states[i];
		if (s == EUSRV_SOR_ST_CONNECTING || s == EUSRV_SOR_ST_ACCEPTING)
			continue;
		KUNIT_EXPECT_FALSE(test, sor_st_accepts(s, true, true, true,
							SOR_MSG_ACCEPT));
		KUNIT_EXPECT_FALSE(test, sor_st_accepts(s, false, true, false,
							SOR_MSG_ADDR));
		KUNIT_EXPECT_FALSE(test, sor_st_accepts(s, true, true, false,
							SOR_MSG_ADDR));
	}
}

static void sor_state_test_data_msgs(struct kunit *test)
{
	unsigned int i, s;
	bool open;

	for (i = 0; i < ARRAY_SIZE(all_states); i++) {
		s = all_states[i];
		open = s == EUSRV_SOR_ST_ESTABLISHED || s == EUSRV_SOR_ST_CLOSING;
		KUNIT_EXPECT_EQ(test, sor_st_open(s), open);
		KUNIT_EXPECT_EQ(test, sor_st_accepts(s, true, true, true,
						     EUSRV_SOR_MSG_CREDIT), open);
		KUNIT_EXPECT_EQ(test, sor_st_accepts(s, true, true, true,
						     EUSRV_SOR_MSG_ARM), open);
		KUNIT_EXPECT_EQ(test, sor_st_accepts(s, false, true, true,
						     EUSRV_SOR_MSG_DATA),
				open || s == EUSRV_SOR_ST_NACK_WAIT);
		KUNIT_EXPECT_EQ(test, sor_st_accepts(s, false, true, true,
						     EUSRV_SOR_MSG_FIN),
				open || s == EUSRV_SOR_ST_NACK_WAIT);
		KUNIT_EXPECT_TRUE(test, sor_st_accepts(s, true, true, true,
						       EUSRV_SOR_MSG_SENT));
		/* Types that never name a connection state. */
		KUNIT_EXPECT_FALSE(test, sor_st_accepts(s, true, true, true,
							EUSRV_SOR_MSG_CONNRQ));
		KUNIT_EXPECT_FALSE(test, sor_st_accepts(s, true, true, true, 0));
		KUNIT_EXPECT_FALSE(test, sor_st_accepts(s, true, true, true, 0xf));
	}
}

static void sor_state_test_nack(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, sor_st_on_nack(EUSRV_SOR_ST_ESTABLISHED, 0),
			(unsigned int)EUSRV_SOR_ST_PEER_CLOSED);
	KUNIT_EXPECT_EQ(test, sor_st_on_nack(EUSRV_SOR_ST_ESTABLISHED, ECONNRESET),
			(unsigned int)EUSRV_SOR_ST_RESET);
	KUNIT_EXPECT_EQ(test, sor_st_on_nack(EUSRV_SOR_ST_CONNECTING, ECONNREFUSED),
			(unsigned int)EUSRV_SOR_ST_RESET);
	KUNIT_EXPECT_EQ(test, sor_st_on_nack(EUSRV_SOR_ST_ACCEPTING, ECONNABORTED),
			(unsigned int)EUSRV_SOR_ST_RESET);
	KUNIT_EXPECT_EQ(test, sor_st_on_nack(EUSRV_SOR_ST_CLOSING, 0),
			(unsigned int)EUSRV_SOR_ST_NACK_WAIT);
	/* Simultaneous close and duplicates keep the state. */
	KUNIT_EXPECT_EQ(test, sor_st_on_nack(EUSRV_SOR_ST_NACK_WAIT, 0),
			(unsigned int)EUSRV_SOR_ST_NACK_WAIT);
	KUNIT_EXPECT_EQ(test, sor_st_on_nack(EUSRV_SOR_ST_PEER_CLOSED, 0),
			(unsigned int)EUSRV_SOR_ST_PEER_CLOSED);
	KUNIT_EXPECT_EQ(test, sor_st_on_nack(EUSRV_SOR_ST_RESET, ECONNRESET),
			(unsigned int)EUSRV_SOR_ST_RESET);
	KUNIT_EXPECT_EQ(test, sor_st_on_nack(SOR_ST_QUARANTINE, 0),
			SOR_ST_QUARANTINE);
	KUNIT_EXPECT_EQ(test, sor_st_nack_errno(0), 0);
	KUNIT_EXPECT_EQ(test, sor_st_nack_errno(ECONNREFUSED), ECONNREFUSED);
}

static void sor_state_test_close(struct kunit *test)
{
	unsigned int r;

	KUNIT_EXPECT_EQ(test, sor_st_on_close(EUSRV_SOR_ST_ESTABLISHED, 0, 0, false,
					      false, &r), SOR_CLOSE_NACK);
	KUNIT_EXPECT_EQ(test, r, 0U);
	KUNIT_EXPECT_EQ(test, sor_st_on_close(EUSRV_SOR_ST_ESTABLISHED, 10, 0, false,
					      false, &r), SOR_CLOSE_FLUSH);
	KUNIT_EXPECT_EQ(test, sor_st_on_close(EUSRV_SOR_ST_ESTABLISHED, 10, 5, false,
					      false, &r), SOR_CLOSE_NACK);
	KUNIT_EXPECT_EQ(test, r, (unsigned int)ECONNRESET);
	/* SO_LINGER {1, 0}: a reset, queued data dropped. */
	KUNIT_EXPECT_EQ(test, sor_st_on_close(EUSRV_SOR_ST_ESTABLISHED, 10, 0, true,
					      false, &r), SOR_CLOSE_NACK);
	KUNIT_EXPECT_EQ(test, r, (unsigned int)ECONNRESET);
	KUNIT_EXPECT_EQ(test, sor_st_on_close(EUSRV_SOR_ST_PEER_CLOSED, 10, 5, false,
					      false, &r), SOR_CLOSE_RETIRE);
	KUNIT_EXPECT_EQ(test, sor_st_on_close(EUSRV_SOR_ST_RESET, 0, 0, false, false, &r),
			SOR_CLOSE_RETIRE);
	KUNIT_EXPECT_EQ(test, sor_st_on_close(EUSRV_SOR_ST_RESET, 0, 0, false, true, &r),
			SOR_CLOSE_WAIT);
	KUNIT_EXPECT_EQ(test, sor_st_on_close(EUSRV_SOR_ST_NACK_WAIT, 0, 0, false, true,
					      &r), SOR_CLOSE_WAIT);
}

static void sor_state_test_abort_resend(struct kunit *test)
{
	unsigned int i;

	KUNIT_EXPECT_EQ(test, sor_st_on_abort(EUSRV_SOR_ST_ESTABLISHED),
			(unsigned int)EUSRV_SOR_ST_RESET);
	KUNIT_EXPECT_EQ(test, sor_st_on_abort(EUSRV_SOR_ST_CONNECTING),
			(unsigned int)EUSRV_SOR_ST_RESET);
	KUNIT_EXPECT_EQ(test, sor_st_on_abort(EUSRV_SOR_ST_NACK_WAIT),
			(unsigned int)EUSRV_SOR_ST_NACK_WAIT);
	KUNIT_EXPECT_EQ(test, sor_st_on_abort(SOR_ST_QUARANTINE),
			SOR_ST_QUARANTINE);
	for (i = 0; i < SOR_NACK_TRIES; i++)
		KUNIT_EXPECT_FALSE(test, sor_st_nack_give_up(i));
	KUNIT_EXPECT_TRUE(test, sor_st_nack_give_up(SOR_NACK_TRIES));
	/* 200 ms apart, given up after 2 s; dead peers found within 3 s. */
	KUNIT_EXPECT_EQ(test, SOR_NACK_TRIES * SOR_NACK_RESEND_MS, 2000U);
	KUNIT_EXPECT_LE(test, SOR_KA_DEAD_MS + SOR_KA_PERIOD_MS, 3000U);
	KUNIT_EXPECT_EQ(test, sor_st_uapi(SOR_ST_QUARANTINE),
			(unsigned int)EUSRV_SOR_ST_RESET);
	KUNIT_EXPECT_EQ(test, sor_st_uapi(EUSRV_SOR_ST_CLOSING),
			(unsigned int)EUSRV_SOR_ST_CLOSING);
}

/*
 * Retiring: only once the peer knows, nothing owed, nothing in flight.  A
 * CLOSING connection idle between two transfers must stay (it still owes
 * queued bytes and its NACK: freeing it then hung the peer).
 */
static void sor_state_test_retire(struct kunit *test)
{
	unsigned int i, s;
	bool may;

	for (i = 0; i < ARRAY_SIZE(all_states); i++) {
		s = all_states[i];
		may = s == EUSRV_SOR_ST_RESET || s == EUSRV_SOR_ST_PEER_CLOSED ||
		      s == EUSRV_SOR_ST_NACK_WAIT;
		KUNIT_EXPECT_EQ(test, sor_st_may_retire(s, true, false, false,
							false), may);
		KUNIT_EXPECT_FALSE(test, sor_st_may_retire(s, false, false,
							   false, false));
		KUNIT_EXPECT_FALSE(test, sor_st_may_retire(s, true, true,
							   false, false));
		KUNIT_EXPECT_FALSE(test, sor_st_may_retire(s, true, false,
							   true, false));
		KUNIT_EXPECT_FALSE(test, sor_st_may_retire(s, true, false,
							   false, true));
	}
}

/*
 * The NACK resend timer: given up after SOR_NACK_TRIES only when the peer
 * cannot write our ring; else held, slowly resent while the peer is up and
 * not sent to a node that is down, however many tries it took (freeing the
 * ring early let a late transfer write into freed memory).
 */
static void sor_state_test_nack_next(struct kunit *test)
{
	unsigned int t;

	for (t = 0; t < SOR_NACK_TRIES; t++) {
		KUNIT_EXPECT_EQ(test, sor_st_nack_next(t, false, true), SOR_NACK_RESEND);
		KUNIT_EXPECT_EQ(test, sor_st_nack_next(t, false, false), SOR_NACK_RESEND);
		KUNIT_EXPECT_EQ(test, sor_st_nack_next(t, true, true), SOR_NACK_RESEND);
		KUNIT_EXPECT_EQ(test, sor_st_nack_next(t, true, false), SOR_NACK_HOLD);
	}
	for (t = SOR_NACK_TRIES; t < 10 * SOR_NACK_TRIES; t++) {
		KUNIT_EXPECT_EQ(test, sor_st_nack_next(t, false, true), SOR_NACK_GIVE_UP);
		KUNIT_EXPECT_EQ(test, sor_st_nack_next(t, false, false), SOR_NACK_GIVE_UP);
		KUNIT_EXPECT_EQ(test, sor_st_nack_next(t, true, true), SOR_NACK_FENCE);
		KUNIT_EXPECT_EQ(test, sor_st_nack_next(t, true, false), SOR_NACK_HOLD);
	}
	KUNIT_EXPECT_EQ(test, sor_st_nack_next(UINT_MAX, true, true), SOR_NACK_FENCE);
}

/*
 * A set-up wait's timeout: what is left, and never below one jiffy, past
 * the deadline and across the wrap of jiffies (a negative one made the
 * kernel complain on every CONNECT that came late).
 */
static void sor_state_test_wait_left(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, sor_st_wait_left(1000, 400), 600L);
	KUNIT_EXPECT_EQ(test, sor_st_wait_left(1000, 999), 1L);
	KUNIT_EXPECT_EQ(test, sor_st_wait_left(1000, 1000), 1L);
	KUNIT_EXPECT_EQ(test, sor_st_wait_left(1000, 1003), 1L);
	KUNIT_EXPECT_EQ(test, sor_st_wait_left(5, ULONG_MAX - 4), 10L);
	KUNIT_EXPECT_EQ(test, sor_st_wait_left(ULONG_MAX - 4, 5), 1L);
}

/*
 * Offered to accept(): established, or closed by its client with data
 * perhaps left to read (TCP's backlog keeps such a connection); not one
 * reset, given up or still setting up.
 */
static void sor_state_test_claimable(struct kunit *test)
{
	unsigned int i, s;

	for (i = 0; i < ARRAY_SIZE(all_states); i++) {
		s = all_states[i];
		KUNIT_EXPECT_EQ(test, sor_st_claimable(s),
				s == EUSRV_SOR_ST_ESTABLISHED ||
				s == EUSRV_SOR_ST_CLOSING ||
				s == EUSRV_SOR_ST_PEER_CLOSED);
	}
}

static struct kunit_case sor_state_test_cases[] = {
	KUNIT_CASE(sor_state_test_setup_msgs),
	KUNIT_CASE(sor_state_test_data_msgs),
	KUNIT_CASE(sor_state_test_nack),
	KUNIT_CASE(sor_state_test_close),
	KUNIT_CASE(sor_state_test_abort_resend),
	KUNIT_CASE(sor_state_test_retire),
	KUNIT_CASE(sor_state_test_nack_next),
	KUNIT_CASE(sor_state_test_wait_left),
	KUNIT_CASE(sor_state_test_claimable),
	{}
};

static struct kunit_suite sor_state_test_suite = {
	.name = "eusrv_sor_state",
	.test_cases = sor_state_test_cases,
};

kunit_test_suite(sor_state_test_suite);

MODULE_DESCRIPTION("KUnit tests of the sockets-over-RDMA state machines");
MODULE_LICENSE("GPL");
