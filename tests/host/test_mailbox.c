/*
 * Unit tests of the mailbox block (qemu/model/mailbox.c) against a fake
 * board in plain memory: delivery, ordering, status write-back, decode
 * errors, back-pressure and timeouts, counters and interrupt causes, every
 * programming error, detach/attach, fairness and a flood.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <eusrv/board_hw.h>
#include <eusrv/mbox_msg.h>

#include "log.h"
#include "mailbox.h"
#include "mbox_drv.h"
#include "tap.h"

#define NODES		4U	/* the fake board's node count */
#define NO_TIMER	UINT64_MAX
#define MAX_ROUNDS	100000U	/* a test that needs more has hung */
#define FLOOD_MSGS	100000U
#define ALL_IE		(EUSRV_MBOX_CTRL_ENQ_IE | EUSRV_MBOX_CTRL_FULL_IE | \
			 EUSRV_MBOX_CTRL_TXDONE_IE | EUSRV_MBOX_CTRL_ERR_IE | \
			 EUSRV_MBOX_CTRL_ROOM_IE)
#define ON		(EUSRV_MBOX_CTRL_EN | ALL_IE)
#define DEPTH		EUSRV_MBOX_FIFO_DEPTH

/* ---- The fake board --------------------------------------------------- */

static struct fake {
	uint8_t *mem;				/* one page per node */
	struct vb_mbox mb[EUSRV_MAX_NODES];
	uint64_t now;
	uint64_t deadline[EUSRV_MAX_NODES];
	unsigned int irqs[EUSRV_MAX_NODES];
	unsigned int runq[EUSRV_MAX_NODES];
	bool queued[EUSRV_MAX_NODES];
	unsigned int runq_len;
} fb;

static struct vb_mbox *f_peer(struct vb_mbox *m, unsigned int node)
{
	(void)m;
	return node < NODES ? &fb.mb[node] : NULL;
}

static void f_raise(struct vb_mbox *m)
{
	fb.irqs[m->node]++;
}

static void f_schedule(struct vb_mbox *m)
{
	if (!fb.queued[m->node]) {
		fb.queued[m->node] = true;
		fb.runq[fb.runq_len++] = m->node;
	}
}

static void f_timer_arm(struct vb_mbox *m, uint64_t deadline)
{
	fb.deadline[m->node] = deadline;
}

static void f_timer_cancel(struct vb_mbox *m)
{
	fb.deadline[m->node] = NO_TIMER;
}

static uint64_t f_now(struct vb_mbox *m)
{
	(void)m;
	return fb.now;
}

static const struct vb_mbox_ops fake_ops = {
	.peer = f_peer,
	.raise_irq = f_raise,
	.schedule = f_schedule,
	.timer_arm = f_timer_arm,
	.timer_cancel = f_timer_cancel,
	.now_ms = f_now,
};

static void *page(unsigned int n)
{
	return fb.mem + n * EUSRV_PAGE_SIZE;
}

/* A fresh board: nodes 0..2 attached and enabled, node 3 exists but down. */
static void board_reset(void)
{
	unsigned int n;

	memset(fb.mem, 0xa5, NODES * EUSRV_PAGE_SIZE);
	fb.now = 1000;
	fb.runq_len = 0;
	for (n = 0; n < EUSRV_MAX_NODES; n++) {
		fb.deadline[n] = NO_TIMER;
		fb.irqs[n] = 0;
		fb.queued[n] = false;
	}
	for (n = 0; n < NODES; n++)
		vb_mbox_init(&fb.mb[n], page(n), n, &fake_ops, &fb);
	for (n = 0; n < 3; n++) {
		vb_mbox_attach(&fb.mb[n]);
		drv_wr32(page(n), EUSRV_MBOX_CTRL, ON);
	}
}

/* One loop round: the queued nodes run once, then interrupts. */
static void round_once(void)
{
	unsigned int q[EUSRV_MAX_NODES], n = fb.runq_len, i;

	memcpy(q, fb.runq, sizeof(q));
	fb.runq_len = 0;
	for (i = 0; i < n; i++)
		fb.queued[q[i]] = false;
	for (i = 0; i < n; i++)
		vb_mbox_run(&fb.mb[q[i]]);
	for (i = 0; i < NODES; i++)
		vb_mbox_update_irq(&fb.mb[i]);
}

/* Rounds until nothing is queued; false if that never happens. */
static bool settle(void)
{
	unsigned int r;

	for (r = 0; r < MAX_ROUNDS; r++) {
		round_once();
		if (!fb.runq_len)
			return true;
	}
	return false;
}

static void kick(unsigned int n)
{
	vb_mbox_kick(&fb.mb[n]);
}

/* Advance the fake clock to T and fire due timers. */
static void advance_to(uint64_t t)
{
	unsigned int n;

	fb.now = t;
	for (n = 0; n < NODES; n++) {
		if (fb.deadline[n] <= t) {
			fb.deadline[n] = NO_TIMER;
			vb_mbox_timer(&fb.mb[n]);
		}
	}
}

static uint32_t reg(unsigned int n, uint32_t off)
{
	return drv_rd32(page(n), off);
}

static uint64_t reg64(unsigned int n, uint32_t off)
{
	return drv_rd64(page(n), off);
}

static uint64_t msg_seq(unsigned int conn, uint64_t seq)
{
	return eusrv_msg_make(EUSRV_MSG_T_SEQ, conn, seq);
}

/* Post to node DST and return the entry index; bails if the queue is full. */
static uint32_t post(unsigned int src, unsigned int dst, uint64_t msg)
{
	int64_t idx = drv_post(page(src), EUSRV_MBOX_INBOX_GA(dst), msg);

	if (idx < 0)
		tap_bail("node%u outbound queue unexpectedly full", src);
	return (uint32_t)idx;
}

static uint32_t post_ga(unsigned int src, uint64_t ga, uint64_t msg)
{
	int64_t idx = drv_post(page(src), ga, msg);

	if (idx < 0)
		tap_bail("node%u outbound queue unexpectedly full", src);
	return (uint32_t)idx;
}

/* Node 0 fills node 1's FIFO with messages 0 .. DEPTH-1, all delivered. */
static void fill_fifo_1(void)
{
	unsigned int i;

	for (i = 0; i < DEPTH; i++)
		post(0, 1, msg_seq(0, i));
	kick(0);
	settle();
}

/* Consume everything of node N, kicking as a driver would. */
static unsigned int drain(unsigned int n, struct eusrv_mbox_fifo_entry *out,
			  unsigned int max)
{
	bool k;
	unsigned int got = drv_consume(page(n), out, max, &k);

	if (k)
		kick(n);
	return got;
}

/* ---- Tests ---------------------------------------------------------- */

static void test_attach(void)
{
	board_reset();
	ok(reg(0, EUSRV_MBOX_ID) == EUSRV_MBOX_ID_VALUE &&
	   reg(0, EUSRV_MBOX_FIFO_SIZE) == EUSRV_MBOX_FIFO_DEPTH &&
	   reg(0, EUSRV_MBOX_TXQ_SIZE) == EUSRV_MBOX_TXQ_DEPTH,
	   "attach: ID, FIFO_SIZE and TXQ_SIZE read-only fields");
	ok(reg(0, EUSRV_MBOX_RX_PROD) == 0 && reg(0, EUSRV_MBOX_TX_CONS) == 0 &&
	   reg(0, EUSRV_MBOX_BAD_CNT) == 0 && reg64(0, EUSRV_MBOX_RX_TOTAL) == 0 &&
	   reg(0, EUSRV_MBOX_FIFO) == 0,
	   "attach: the rest of the page is zeroed");
}

static void test_delivery(void)
{
	struct eusrv_mbox_fifo_entry e[DEPTH];
	uint32_t idx;
	unsigned int i, got;
	bool in_order = true;

	board_reset();
	idx = post(0, 1, eusrv_msg_make(EUSRV_MSG_T_PING, 7, 42));
	kick(0);
	ok(settle(), "delivery: the model settles");
	ok(drv_status(page(0), idx) == EUSRV_MBOX_ST_OK &&
	   reg(0, EUSRV_MBOX_TX_CONS) == 1, "delivery: status OK, TX_CONS advanced");
	got = drain(1, e, DEPTH);
	ok(got == 1 && e[0].msg == eusrv_msg_make(EUSRV_MSG_T_PING, 7, 42) &&
	   e[0].src_node == 0, "delivery: message and source node in the FIFO");
	ok(reg64(1, EUSRV_MBOX_RX_TOTAL) == 1 && reg64(0, EUSRV_MBOX_TX_TOTAL) == 1 &&
	   reg(0, EUSRV_MBOX_TX_ERR_CNT) == 0, "delivery: RX_TOTAL, TX_TOTAL counted");

	idx = post(2, 2, msg_seq(1, 99));
	kick(2);
	settle();
	got = drain(2, e, DEPTH);
	ok(drv_status(page(2), idx) == EUSRV_MBOX_ST_OK && got == 1 &&
	   e[0].src_node == 2 && e[0].msg == msg_seq(1, 99),
	   "delivery: a node can send to itself");

	for (i = 0; i < 40; i++)
		post(0, 1, msg_seq(2, i));
	kick(0);
	settle();
	got = drain(1, e, DEPTH);
	for (i = 0; i < got; i++)
		in_order &= e[i].msg == msg_seq(2, i) && e[i].src_node == 0;
	ok(got == 40 && in_order, "delivery: 40 messages arrive in order");
	ok(reg(0, EUSRV_MBOX_TX_CONS) == 41 && reg(1, EUSRV_MBOX_RX_PROD) == 41,
	   "delivery: TX_CONS and RX_PROD count every entry");
}

static void test_irqs(void)
{
	struct eusrv_mbox_fifo_entry e[DEPTH];
	unsigned int i;

	board_reset();
	for (i = 0; i < 10; i++)
		post(0, 1, msg_seq(0, i));
	kick(0);
	round_once();
	ok(fb.irqs[1] == 1, "irq: 10 deliveries in one round raise ENQ once (got %u)",
	   fb.irqs[1]);
	ok(fb.irqs[0] == 1, "irq: 10 completions in one round raise TXDONE once (got %u)",
	   fb.irqs[0]);
	ok(fb.irqs[2] == 0, "irq: an uninvolved node gets none");
	drain(1, e, DEPTH);

	/* Only ENQ_IE on the receiver, nothing on the sender. */
	drv_wr32(page(0), EUSRV_MBOX_CTRL, EUSRV_MBOX_CTRL_EN);
	drv_wr32(page(1), EUSRV_MBOX_CTRL, EUSRV_MBOX_CTRL_EN);
	fb.irqs[0] = fb.irqs[1] = 0;
	post(0, 1, msg_seq(0, 10));
	kick(0);
	settle();
	ok(fb.irqs[0] == 0 && fb.irqs[1] == 0, "irq: none with every IE bit clear");
	drain(1, e, DEPTH);

	/* ERR_IE alone: a decode error raises, a success does not. */
	drv_wr32(page(0), EUSRV_MBOX_CTRL, EUSRV_MBOX_CTRL_ERR_IE);
	post(0, 1, msg_seq(0, 11));
	kick(0);
	settle();
	ok(fb.irqs[0] == 0, "irq: ERR_IE alone: no interrupt for a success");
	post(0, 9, msg_seq(0, 12));
	kick(0);
	settle();
	ok(fb.irqs[0] == 1, "irq: ERR_IE alone: a failed store interrupts");
	drain(1, e, DEPTH);

	/* TXDONE_IE alone. */
	drv_wr32(page(0), EUSRV_MBOX_CTRL, EUSRV_MBOX_CTRL_TXDONE_IE);
	fb.irqs[0] = 0;
	post(0, 1, msg_seq(0, 13));
	kick(0);
	settle();
	ok(fb.irqs[0] == 1, "irq: TXDONE_IE alone: a completion interrupts");
	drain(1, e, DEPTH);

	/* FULL_IE alone on the receiver: only the full event interrupts. */
	drv_wr32(page(1), EUSRV_MBOX_CTRL,
		 EUSRV_MBOX_CTRL_EN | EUSRV_MBOX_CTRL_FULL_IE);
	fb.irqs[1] = 0;
	for (i = 0; i < DEPTH; i++)
		post(0, 1, msg_seq(0, 100 + i));
	kick(0);
	settle();
	ok(fb.irqs[1] == 0, "irq: FULL_IE alone: filling the FIFO does not interrupt");
	post(0, 1, msg_seq(0, 200));
	kick(0);
	settle();
	ok(fb.irqs[1] == 1 && reg(1, EUSRV_MBOX_FULL_CNT) == 1,
	   "irq: FULL_IE: a store waiting on the full FIFO interrupts");
	drain(1, e, DEPTH);
	settle();
	drain(1, e, DEPTH);
}

static void test_decode_errors(void)
{
	static const struct {
		uint64_t ga;
		const char *what;
	} bad[] = {
		{ EUSRV_MBOX_INBOX_GA(255), "node 255" },
		{ EUSRV_MBOX_INBOX_GA(NODES), "node past the board's last" },
		{ EUSRV_MBOX_INBOX_GA(EUSRV_MAX_NODES), "node EUSRV_MAX_NODES" },
		{ EUSRV_MBOX_INBOX_GA(3), "existing node that is down" },
		{ EUSRV_GA(1, EUSRV_GA_BLOCKS + EUSRV_PAGE_MBOX + EUSRV_MBOX_RX_PROD),
		  "another mailbox register" },
		{ EUSRV_GA(1, EUSRV_GA_BLOCKS + EUSRV_PAGE_INFO + EUSRV_MBOX_INBOX),
		  "INBOX offset in the info page" },
		{ EUSRV_GA(1, 0x1000), "node RAM" },
		{ EUSRV_MBOX_INBOX_GA(1) + 1, "INBOX + 1 (garbage low bits)" },
		{ EUSRV_MBOX_INBOX_GA(1) + 4, "INBOX + 4 (upper half)" },
		{ EUSRV_MBOX_INBOX_GA(1) | 1ULL << 60, "garbage in bits 63:48" },
		{ EUSRV_MBOX_INBOX_GA(1) | 1ULL << 48, "bit 48 set" },
		{ EUSRV_MBOX_INBOX & 0xfff, "node-local offset, no block window" },
		{ UINT64_MAX, "all ones" },
		{ 0, "zero" },
	};
	struct eusrv_mbox_fifo_entry e[DEPTH];
	unsigned int i, n = sizeof(bad) / sizeof(bad[0]);
	uint32_t idx;

	board_reset();
	for (i = 0; i < n; i++) {
		idx = post_ga(0, bad[i].ga, msg_seq(0, i));
		kick(0);
		settle();
		ok(drv_status(page(0), idx) == EUSRV_MBOX_ST_DECERR &&
		   drv_done(page(0), idx),
		   "decode: %s -> DECERR", bad[i].what);
	}
	ok(reg(0, EUSRV_MBOX_TX_ERR_CNT) == n && reg64(0, EUSRV_MBOX_TX_TOTAL) == 0,
	   "decode: TX_ERR_CNT counts every failure, TX_TOTAL none");
	ok(drain(1, e, DEPTH) == 0 && reg64(1, EUSRV_MBOX_RX_TOTAL) == 0,
	   "decode: nothing was delivered anywhere");

	/* Node 2 exists and is attached but not enabled. */
	drv_wr32(page(2), EUSRV_MBOX_CTRL, ALL_IE);
	idx = post(0, 2, msg_seq(0, 1));
	kick(0);
	settle();
	ok(drv_status(page(0), idx) == EUSRV_MBOX_ST_DISABLED &&
	   reg(2, EUSRV_MBOX_RX_PROD) == 0 && fb.irqs[2] == 0,
	   "decode: a disabled destination -> DISABLED, nothing delivered");
	ok(reg(0, EUSRV_MBOX_TX_ERR_CNT) == n + 1, "decode: DISABLED counts as an error");
}

static void test_full_wait_drain(void)
{
	struct eusrv_mbox_fifo_entry e[2 * DEPTH];
	uint32_t first, idx;
	unsigned int i, got = 0, n;
	bool in_order = true;

	board_reset();
	fill_fifo_1();
	ok(reg(0, EUSRV_MBOX_TX_CONS) == DEPTH && reg(1, EUSRV_MBOX_RX_STALLED) == 0 &&
	   reg(0, EUSRV_MBOX_TX_WAIT_CNT) == 0,
	   "full: %u stores fill the FIFO without waiting", DEPTH);
	first = post(0, 1, msg_seq(0, DEPTH));
	for (i = DEPTH + 1; i < DEPTH + 6; i++)
		post(0, 1, msg_seq(0, i));
	idx = post(0, 2, msg_seq(0, 999));	/* behind them, to another node */
	kick(0);
	settle();
	ok(drv_status(page(0), first) == EUSRV_MBOX_ST_PENDING &&
	   reg(0, EUSRV_MBOX_TX_CONS) == DEPTH,
	   "full: the next store waits, TX_CONS stays");
	ok(reg(1, EUSRV_MBOX_RX_STALLED) == 1 && reg(1, EUSRV_MBOX_FULL_CNT) == 1 &&
	   reg(0, EUSRV_MBOX_TX_WAIT_CNT) == 1,
	   "full: RX_STALLED=1, FULL_CNT=1, TX_WAIT_CNT=1");
	ok(fb.deadline[0] == fb.now + EUSRV_MBOX_STORE_TIMEOUT_MS,
	   "full: the store timeout is armed");
	ok(reg(2, EUSRV_MBOX_RX_PROD) == 0,
	   "full: a store to another node behind the waiting one waits too");

	/* Kicks that change nothing keep everything waiting. */
	kick(0);
	kick(1);
	settle();
	ok(reg(0, EUSRV_MBOX_TX_CONS) == DEPTH && reg(0, EUSRV_MBOX_TX_WAIT_CNT) == 1 &&
	   reg(1, EUSRV_MBOX_FULL_CNT) == 1,
	   "full: spurious kicks neither deliver nor count again");

	/* The receiver drains a little: the waiting stores go through. */
	got = drain(1, e, 10);
	settle();
	ok(reg(0, EUSRV_MBOX_TX_CONS) == DEPTH + 7 &&
	   drv_status(page(0), first) == EUSRV_MBOX_ST_OK &&
	   drv_status(page(0), idx) == EUSRV_MBOX_ST_OK,
	   "full: after draining 10 the 7 queued stores complete OK");
	ok(reg(1, EUSRV_MBOX_RX_STALLED) == 0 && fb.deadline[0] == NO_TIMER,
	   "full: RX_STALLED back to 0, timer cancelled");
	while ((n = drain(1, e + got, 2 * DEPTH - got)))
		got += n;
	for (i = 0; i < got; i++)
		in_order &= e[i].msg == msg_seq(0, i) && e[i].src_node == 0;
	ok(got == DEPTH + 6 && in_order,
	   "full: all %u messages arrived once, in order (got %u)", DEPTH + 6, got);
	ok(reg64(1, EUSRV_MBOX_RX_TOTAL) == DEPTH + 6 &&
	   reg64(0, EUSRV_MBOX_TX_TOTAL) == DEPTH + 7 &&
	   reg(0, EUSRV_MBOX_TX_ERR_CNT) == 0, "full: totals, no errors");
}

static uint32_t post_nowait(unsigned int src, unsigned int dst, uint64_t msg,
			    uint32_t flags)
{
	int64_t idx = drv_post_flags(page(src), EUSRV_MBOX_INBOX_GA(dst), msg,
				     EUSRV_MBOX_TXF_NOWAIT | flags);

	if (idx < 0)
		tap_bail("node%u outbound queue unexpectedly full", src);
	return (uint32_t)idx;
}

/* NOWAIT stores: refused at once, the refusal sticks to the pair until RESUME. */
static void test_nowait(void)
{
	struct eusrv_mbox_fifo_entry e[2 * DEPTH];
	uint32_t a, b, c, r;
	unsigned int i, got, n;
	bool in_order = true;

	board_reset();
	fill_fifo_1();
	a = post_nowait(0, 1, msg_seq(0, DEPTH), 0);
	b = post_nowait(0, 1, msg_seq(0, DEPTH + 1), 0);
	c = post_nowait(0, 2, msg_seq(0, 999), 0);
	kick(0);
	settle();
	ok(drv_status(page(0), a) == EUSRV_MBOX_ST_BUSY &&
	   drv_status(page(0), b) == EUSRV_MBOX_ST_BUSY &&
	   drv_status(page(0), c) == EUSRV_MBOX_ST_OK &&
	   reg(2, EUSRV_MBOX_RX_PROD) == 1,
	   "nowait: two stores to a full FIFO refused, the one behind them to another node delivered");
	ok(reg(0, EUSRV_MBOX_TX_BUSY_CNT) == 2 && reg(0, EUSRV_MBOX_TX_ERR_CNT) == 0 &&
	   reg(0, EUSRV_MBOX_TX_WAIT_CNT) == 0 && fb.deadline[0] == NO_TIMER,
	   "nowait: TX_BUSY_CNT=2, no error, no wait, no timer");
	ok(reg(1, EUSRV_MBOX_RX_STALLED) == 1 && reg(1, EUSRV_MBOX_FULL_CNT) == 1 &&
	   reg(0, EUSRV_MBOX_ROOM_CNT) == 0,
	   "nowait: the receiver is told (RX_STALLED=1, FULL_CNT=1), no room yet");

	fb.irqs[0] = 0;
	got = drain(1, e, 10);
	settle();
	ok(reg(0, EUSRV_MBOX_ROOM_CNT) == 1 && fb.irqs[0] == 1 &&
	   reg(1, EUSRV_MBOX_RX_STALLED) == 0,
	   "nowait: the drain raises ROOM at the sender, RX_STALLED back to 0");

	r = post_nowait(0, 1, msg_seq(0, DEPTH), 0);
	kick(0);
	settle();
	ok(drv_status(page(0), r) == EUSRV_MBOX_ST_BUSY &&
	   reg(0, EUSRV_MBOX_ROOM_CNT) == 2,
	   "nowait: refused again without RESUME though there is room, and told of the room");

	a = post_nowait(0, 1, msg_seq(0, DEPTH), EUSRV_MBOX_TXF_RESUME);
	b = post_nowait(0, 1, msg_seq(0, DEPTH + 1), 0);
	kick(0);
	settle();
	ok(drv_status(page(0), a) == EUSRV_MBOX_ST_OK &&
	   drv_status(page(0), b) == EUSRV_MBOX_ST_OK,
	   "nowait: RESUME lifts the refusal, the next store goes through too");
	while ((n = drain(1, e + got, 2 * DEPTH - got)))
		got += n;
	for (i = 0; i < got; i++)
		in_order &= e[i].msg == msg_seq(0, i);
	ok(got == DEPTH + 2 && in_order,
	   "nowait: all %u messages arrived once, in order (got %u)", DEPTH + 2, got);

	/* RESUME to a FIFO still full is refused; detaching it says room. */
	for (i = 0; i < DEPTH; i++)
		post(2, 1, msg_seq(2, i));
	kick(2);
	settle();
	a = post_nowait(0, 1, msg_seq(0, DEPTH + 2), EUSRV_MBOX_TXF_RESUME);
	kick(0);
	settle();
	ok(drv_status(page(0), a) == EUSRV_MBOX_ST_BUSY &&
	   reg(0, EUSRV_MBOX_ROOM_CNT) == 2,
	   "nowait: RESUME to a full FIFO is refused, no room yet");
	vb_mbox_detach(&fb.mb[1]);
	settle();
	ok(reg(0, EUSRV_MBOX_ROOM_CNT) == 3,
	   "nowait: a refusing node that detaches raises ROOM at its senders");
	a = post_nowait(0, 1, msg_seq(0, DEPTH + 2), EUSRV_MBOX_TXF_RESUME);
	kick(0);
	settle();
	ok(drv_status(page(0), a) == EUSRV_MBOX_ST_DECERR,
	   "nowait: posted again, the store meets DECERR");

	/* Unknown flags: a programming error, counted once per entry. */
	board_reset();
	a = drv_post_flags(page(0), EUSRV_MBOX_INBOX_GA(1), msg_seq(0, 0), 0x80);
	kick(0);
	settle();
	ok(drv_status(page(0), a) == EUSRV_MBOX_ST_OK &&
	   reg(0, EUSRV_MBOX_BAD_CNT) == 1 &&
	   reg(0, EUSRV_MBOX_BAD_LAST) == EUSRV_MBOX_BAD_TX_FLAGS,
	   "nowait: unknown flag bits are ignored and counted as a programming error");
}

static void test_timeout(void)
{
	struct eusrv_mbox_fifo_entry e[DEPTH];
	uint32_t idx, next;
	uint64_t t0;

	board_reset();
	fill_fifo_1();
	idx = post(0, 1, msg_seq(0, DEPTH));
	next = post(0, 2, msg_seq(0, DEPTH + 1));
	kick(0);
	settle();
	t0 = fb.now;
	fb.irqs[0] = 0;
	advance_to(t0 + EUSRV_MBOX_STORE_TIMEOUT_MS - 1);
	settle();
	ok(drv_status(page(0), idx) == EUSRV_MBOX_ST_PENDING,
	   "timeout: still waiting 1 ms before the timeout");
	advance_to(t0 + EUSRV_MBOX_STORE_TIMEOUT_MS);
	settle();
	ok(drv_status(page(0), idx) == EUSRV_MBOX_ST_FULL && drv_done(page(0), idx),
	   "timeout: the store fails with ST_FULL at %u ms", EUSRV_MBOX_STORE_TIMEOUT_MS);
	ok(reg(0, EUSRV_MBOX_TX_ERR_CNT) == 1 && fb.irqs[0] == 1,
	   "timeout: TX_ERR_CNT=1 and the sender's interrupt");
	ok(reg(1, EUSRV_MBOX_RX_STALLED) == 0,
	   "timeout: RX_STALLED cleared when nothing waits any more");
	ok(drv_status(page(0), next) == EUSRV_MBOX_ST_OK,
	   "timeout: the queue moves on to the next store");
	ok(drain(1, e, DEPTH) == DEPTH && reg64(1, EUSRV_MBOX_RX_TOTAL) == DEPTH,
	   "timeout: the timed-out message was not delivered");
}

static void test_bad(void)
{
	struct eusrv_mbox_fifo_entry e[DEPTH];
	uint32_t idx, cons;

	board_reset();
	/* Reserved CTRL bits: ignored, counted once per bad value run. */
	drv_wr32(page(1), EUSRV_MBOX_CTRL, ON | 0x100);
	kick(1);
	settle();
	ok(reg(1, EUSRV_MBOX_BAD_CNT) == 1 &&
	   reg(1, EUSRV_MBOX_BAD_LAST) == EUSRV_MBOX_BAD_CTRL,
	   "bad: reserved CTRL bits -> BAD_CTRL");
	idx = post(0, 1, msg_seq(0, 1));
	kick(0);
	kick(1);
	settle();
	ok(drv_status(page(0), idx) == EUSRV_MBOX_ST_OK && fb.irqs[1] == 1 &&
	   reg(1, EUSRV_MBOX_BAD_CNT) == 1,
	   "bad: the valid CTRL bits still work, the same bad value counts once");
	drain(1, e, DEPTH);
	drv_wr32(page(1), EUSRV_MBOX_CTRL, ON);
	kick(1);
	drv_wr32(page(1), EUSRV_MBOX_CTRL, 0xffffffffU);
	kick(1);
	ok(reg(1, EUSRV_MBOX_BAD_CNT) == 2, "bad: a new bad CTRL value counts again");
	drv_wr32(page(1), EUSRV_MBOX_CTRL, ON);
	kick(1);

	/* RX_CONS ahead of RX_PROD: FIFO counts as full until fixed. */
	cons = reg(1, EUSRV_MBOX_RX_CONS);
	drv_wr32(page(1), EUSRV_MBOX_RX_CONS, cons + 5);
	kick(1);
	ok(reg(1, EUSRV_MBOX_BAD_CNT) == 3 &&
	   reg(1, EUSRV_MBOX_BAD_LAST) == EUSRV_MBOX_BAD_RX_CONS,
	   "bad: RX_CONS ahead of RX_PROD -> BAD_RX_CONS");
	idx = post(0, 1, msg_seq(0, 2));
	kick(0);
	settle();
	ok(drv_status(page(0), idx) == EUSRV_MBOX_ST_PENDING &&
	   reg(1, EUSRV_MBOX_RX_STALLED) == 1 && reg(1, EUSRV_MBOX_BAD_CNT) == 3,
	   "bad: with a bad RX_CONS the FIFO counts as full (store waits)");
	drv_wr32(page(1), EUSRV_MBOX_RX_CONS, cons);
	kick(1);
	settle();
	ok(drv_status(page(0), idx) == EUSRV_MBOX_ST_OK,
	   "bad: a sane RX_CONS and a kick release the store");
	drain(1, e, DEPTH);

	/* RX_CONS more than the depth behind. */
	cons = reg(1, EUSRV_MBOX_RX_CONS);
	drv_wr32(page(1), EUSRV_MBOX_RX_CONS, cons - DEPTH - 1);
	kick(1);
	ok(reg(1, EUSRV_MBOX_BAD_CNT) == 4 &&
	   reg(1, EUSRV_MBOX_BAD_LAST) == EUSRV_MBOX_BAD_RX_CONS,
	   "bad: RX_CONS more than the depth behind -> BAD_RX_CONS");
	drv_wr32(page(1), EUSRV_MBOX_RX_CONS, cons - DEPTH);
	kick(1);
	ok(reg(1, EUSRV_MBOX_BAD_CNT) == 4,
	   "bad: RX_CONS exactly the depth behind is legal");
	drv_wr32(page(1), EUSRV_MBOX_RX_CONS, cons);
	kick(1);

	/* TX_PROD more than the depth ahead: not acted on. */
	idx = reg(0, EUSRV_MBOX_TX_CONS);
	drv_wr32(page(0), EUSRV_MBOX_TX_PROD, idx + EUSRV_MBOX_TXQ_DEPTH + 1);
	kick(0);
	settle();
	ok(reg(0, EUSRV_MBOX_BAD_CNT) == 1 &&
	   reg(0, EUSRV_MBOX_BAD_LAST) == EUSRV_MBOX_BAD_TX_PROD &&
	   reg(0, EUSRV_MBOX_TX_CONS) == idx && reg(1, EUSRV_MBOX_RX_PROD) == cons,
	   "bad: TX_PROD more than the depth ahead -> BAD_TX_PROD, nothing done");
	kick(0);
	settle();
	ok(reg(0, EUSRV_MBOX_BAD_CNT) == 1, "bad: the same bad TX_PROD counts once");
	drv_wr32(page(0), EUSRV_MBOX_TX_PROD, idx - 1);
	kick(0);
	settle();
	ok(reg(0, EUSRV_MBOX_BAD_CNT) == 2 && reg(0, EUSRV_MBOX_TX_CONS) == idx,
	   "bad: TX_PROD behind TX_CONS -> BAD_TX_PROD, nothing done");
	drv_wr32(page(0), EUSRV_MBOX_TX_PROD, idx);
	idx = post(0, 1, msg_seq(0, 3));
	kick(0);
	settle();
	ok(drv_status(page(0), idx) == EUSRV_MBOX_ST_OK && drain(1, e, DEPTH) == 1,
	   "bad: a sane TX_PROD works again");

	/* A kick on a vector with no block. */
	vb_mbox_bad_kick(&fb.mb[2], 5);
	ok(reg(2, EUSRV_MBOX_BAD_CNT) == 1 &&
	   reg(2, EUSRV_MBOX_BAD_LAST) == EUSRV_MBOX_BAD_KICK,
	   "bad: kick on an unknown vector -> BAD_KICK");
	vb_mbox_bad_kick(&fb.mb[2], 255);
	ok(reg(2, EUSRV_MBOX_BAD_CNT) == 2, "bad: every unknown kick counts");
}

/*
 * Invariants of the block state: a waiting sender is in exactly its
 * destination's waiter set, RX_STALLED is set exactly while someone waits,
 * and the model's indices never run past the node's.
 */
static bool consistent(void)
{
	unsigned int d, s;

	for (d = 0; d < NODES; d++) {
		struct vb_mbox *m = &fb.mb[d];

		if (m->stalled != (m->waiters != 0))
			return false;
		if (m->waiters && !m->up)
			return false;
		for (s = 0; s < EUSRV_MAX_NODES; s++) {
			bool in = m->waiters & (1U << s);

			if (s >= NODES ? in : in != (fb.mb[s].wait_dest == m))
				return false;
		}
		if (m->wait_dest && (!m->up || !m->wait_dest->up))
			return false;
	}
	return true;
}

/* A node scribbling over every register, its own and the model's. */
static void test_garbage(void)
{
	struct eusrv_mbox_fifo_entry e[DEPTH];
	unsigned int r, n, i;
	bool steady = true;
	uint32_t idx;

	board_reset();
	srand(12345);
	for (r = 0; r < 2000; r++) {
		for (n = 0; n < 3; n++) {
			for (i = 0; i < 16; i++) {
				uint32_t off = (uint32_t)(rand() % (EUSRV_PAGE_SIZE / 4)) * 4;
				uint32_t v = (uint32_t)rand();

				/* Mostly small values, so indices look plausible. */
				if (rand() % 2)
					v %= 3 * DEPTH;
				if (off == EUSRV_MBOX_TXQ + 4 && rand() % 2)
					v = (uint32_t)(EUSRV_MBOX_INBOX_GA(rand() % 5) >> 32);
				drv_wr32(page(n), off, v);
			}
			if (rand() % 2)
				kick(n);
			if (rand() % 8 == 0)
				vb_mbox_bad_kick(&fb.mb[n], (unsigned int)rand() % 256);
		}
		if (rand() % 16 == 0)
			advance_to(fb.now + 100);
		round_once();
		steady &= consistent();
	}
	ok(settle(), "garbage: 2000 rounds of random register writes, the model settles");
	ok(steady && consistent(),
	   "garbage: the block state stays consistent after every round");
	for (n = 0; n < 3; n++) {
		vb_mbox_detach(&fb.mb[n]);
		vb_mbox_attach(&fb.mb[n]);
		drv_wr32(page(n), EUSRV_MBOX_CTRL, ON);
	}
	idx = post(0, 1, msg_seq(0, 1));
	kick(0);
	settle();
	ok(drv_status(page(0), idx) == EUSRV_MBOX_ST_OK && drain(1, e, DEPTH) == 1 &&
	   e[0].msg == msg_seq(0, 1),
	   "garbage: after detach and attach the mailboxes work again");
}

static void test_detach(void)
{
	struct eusrv_mbox_fifo_entry e[DEPTH];
	uint32_t waiting, behind, idx, errs;

	board_reset();
	fill_fifo_1();
	waiting = post(0, 1, msg_seq(0, DEPTH));
	behind = post(0, 2, msg_seq(0, DEPTH + 1));
	idx = post(2, 1, msg_seq(2, 0));
	kick(0);
	kick(2);
	settle();
	ok(drv_status(page(0), waiting) == EUSRV_MBOX_ST_PENDING &&
	   drv_status(page(2), idx) == EUSRV_MBOX_ST_PENDING &&
	   fb.mb[1].waiters == ((1U << 0) | (1U << 2)),
	   "detach: two senders wait on node1's full FIFO");
	fb.irqs[0] = 0;
	vb_mbox_detach(&fb.mb[1]);
	settle();
	ok(drv_status(page(0), waiting) == EUSRV_MBOX_ST_DECERR &&
	   drv_status(page(2), idx) == EUSRV_MBOX_ST_DECERR,
	   "detach: stores waiting on the node that went down fail with DECERR");
	ok(drv_status(page(0), behind) == EUSRV_MBOX_ST_OK && fb.irqs[0] == 1 &&
	   fb.deadline[0] == NO_TIMER && fb.deadline[2] == NO_TIMER,
	   "detach: the senders' queues move on, timers cancelled");
	idx = post(0, 1, msg_seq(0, 1));
	kick(0);
	settle();
	ok(drv_status(page(0), idx) == EUSRV_MBOX_ST_DECERR,
	   "detach: a new store to the down node -> DECERR");
	drain(2, e, DEPTH);

	/* Reattach: a reset page, disabled until the driver enables it. */
	vb_mbox_attach(&fb.mb[1]);
	ok(reg(1, EUSRV_MBOX_RX_PROD) == 0 && reg(1, EUSRV_MBOX_CTRL) == 0 &&
	   reg(1, EUSRV_MBOX_FULL_CNT) == 0 && reg(1, EUSRV_MBOX_RX_STALLED) == 0 &&
	   reg(1, EUSRV_MBOX_ID) == EUSRV_MBOX_ID_VALUE,
	   "attach again: the mailbox page is reset");
	idx = post(0, 1, msg_seq(0, 2));
	kick(0);
	settle();
	ok(drv_status(page(0), idx) == EUSRV_MBOX_ST_DISABLED,
	   "attach again: DISABLED until CTRL_EN is set");
	drv_wr32(page(1), EUSRV_MBOX_CTRL, ON);
	idx = post(0, 1, msg_seq(0, 3));
	kick(0);
	settle();
	ok(drv_status(page(0), idx) == EUSRV_MBOX_ST_OK && drain(1, e, DEPTH) == 1 &&
	   e[0].msg == msg_seq(0, 3), "attach again: delivery works");

	/* The sender goes down while it waits: the FIFO is released. */
	fill_fifo_1();
	post(0, 1, msg_seq(0, DEPTH));
	post(0, 1, msg_seq(0, DEPTH + 1));
	kick(0);
	settle();
	ok(reg(1, EUSRV_MBOX_RX_STALLED) == 1, "detach sender: node0 waits on node1");
	errs = reg(0, EUSRV_MBOX_TX_ERR_CNT);
	vb_mbox_detach(&fb.mb[0]);
	settle();
	ok(reg(1, EUSRV_MBOX_RX_STALLED) == 0 && fb.mb[1].waiters == 0 &&
	   fb.deadline[0] == NO_TIMER,
	   "detach sender: RX_STALLED cleared, nothing waits");
	ok(drv_done(page(0), reg(0, EUSRV_MBOX_TX_PROD) - 1) &&
	   reg(0, EUSRV_MBOX_TX_ERR_CNT) == errs + 2,
	   "detach sender: its outstanding stores complete with DECERR");
}

static void test_fairness(void)
{
	unsigned int i;
	uint32_t idx;

	board_reset();
	drv_wr32(page(2), EUSRV_MBOX_CTRL, ON);
	for (i = 0; i < EUSRV_MBOX_TXQ_DEPTH; i++)
		post(0, 2, msg_seq(0, i));
	idx = post(1, 1, msg_seq(1, 0));
	kick(0);
	kick(1);
	round_once();
	ok(reg(0, EUSRV_MBOX_TX_CONS) == MBOX_RUN_BUDGET,
	   "fairness: one round does at most %u entries of a node", MBOX_RUN_BUDGET);
	ok(drv_status(page(1), idx) == EUSRV_MBOX_ST_OK,
	   "fairness: another node is served in the same round");
	ok(fb.runq_len == 1 && fb.runq[0] == 0,
	   "fairness: the busy node continues in the next round");
	ok(settle() && reg(0, EUSRV_MBOX_TX_CONS) == EUSRV_MBOX_TXQ_DEPTH,
	   "fairness: and finishes");
}

/*
 * 100000 messages from node0 to node1 through a consumer that takes a few
 * entries per round, plus nodes 2 and 1 sending to node1 at the same time.
 */
static void test_flood(void)
{
	static struct eusrv_mbox_fifo_entry e[DEPTH];
	uint64_t sent[NODES] = { 0 }, next[NODES] = { 0 };
	uint64_t total = 0, want = FLOOD_MSGS + 2 * (FLOOD_MSGS / 10);
	uint64_t bad_order = 0, limit[NODES] = { FLOOD_MSGS, FLOOD_MSGS / 10,
						  FLOOD_MSGS / 10, 0 };
	unsigned int r, i, s, got;

	board_reset();
	for (r = 0; r < 50 * FLOOD_MSGS && total < want; r++) {
		for (s = 0; s < 3; s++) {
			bool posted = false;

			while (sent[s] < limit[s] && drv_txq_free(page(s))) {
				post(s, 1, msg_seq(s, sent[s]++));
				posted = true;
			}
			if (posted)
				kick(s);
		}
		round_once();
		got = drain(1, e, 1 + r % 7);
		for (i = 0; i < got; i++) {
			s = e[i].src_node;
			if (s >= NODES || e[i].msg != msg_seq(s, next[s]))
				bad_order++;
			else
				next[s]++;
		}
		total += got;
	}
	ok(total == want && bad_order == 0,
	   "flood: %llu messages from 3 senders, each stream complete and in order (%llu out of order)",
	   (unsigned long long)total, (unsigned long long)bad_order);
	ok(next[0] == FLOOD_MSGS && reg64(1, EUSRV_MBOX_RX_TOTAL) == want,
	   "flood: RX_TOTAL=%llu", (unsigned long long)reg64(1, EUSRV_MBOX_RX_TOTAL));
	ok(reg(0, EUSRV_MBOX_TX_ERR_CNT) == 0 && reg(2, EUSRV_MBOX_TX_ERR_CNT) == 0 &&
	   reg64(0, EUSRV_MBOX_TX_TOTAL) == FLOOD_MSGS,
	   "flood: no store failed");
	ok(reg(1, EUSRV_MBOX_FULL_CNT) > 0 && reg(0, EUSRV_MBOX_TX_WAIT_CNT) > 0,
	   "flood: the overflow is visible (FULL_CNT %u, TX_WAIT_CNT %u)",
	   reg(1, EUSRV_MBOX_FULL_CNT), reg(0, EUSRV_MBOX_TX_WAIT_CNT));
	ok(settle() && reg(1, EUSRV_MBOX_RX_STALLED) == 0,
	   "flood: the model is idle at the end");
}

/*
 * The Dekker handshake under real concurrency: a consumer thread drains
 * node1's FIFO and asks for a kick only when it sees RX_STALLED, while the
 * model runs with a frozen clock (no timeout can rescue a lost wake-up).
 */
#define CONSUMER_SPIN	500U
#define DEKKER_LIMIT_S	10	/* a lost wake-up: nothing moves any more */

static volatile uint32_t consumer_kicks;
static volatile bool consumer_stop;
static uint64_t consumer_bad;
static uint64_t consumer_got;

static void *consumer(void *arg)
{
	struct eusrv_mbox_fifo_entry e[DEPTH];
	unsigned int got, i;
	uint64_t total = 0;
	unsigned int spin;
	bool k;

	(void)arg;
	while (!__atomic_load_n(&consumer_stop, __ATOMIC_ACQUIRE)) {
		/* Slow, small bites, so that the FIFO is often full. */
		for (spin = 0; spin < CONSUMER_SPIN; spin++)
			__asm__ volatile("" ::: "memory");
		got = drv_consume(page(1), e, 1 + total % 4, &k);
		for (i = 0; i < got; i++)
			if (e[i].msg != msg_seq(0, total + i))
				consumer_bad++;
		total += got;
		__atomic_store_n(&consumer_got, total, __ATOMIC_RELEASE);
		/*
		 * Like an interrupt-driven driver: RX_STALLED is looked at
		 * only after consuming, never while idle.
		 */
		if (got && k)
			__atomic_add_fetch(&consumer_kicks, 1, __ATOMIC_ACQ_REL);
	}
	return NULL;
}

static void test_dekker(void)
{
	const uint64_t n = FLOOD_MSGS / 2;
	struct timespec t0, t;
	pthread_t th;
	uint64_t sent = 0;
	bool stuck = false;

	board_reset();
	consumer_got = 0;
	consumer_bad = 0;
	consumer_stop = false;
	if (pthread_create(&th, NULL, consumer, NULL))
		tap_bail("pthread_create failed");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (reg64(1, EUSRV_MBOX_RX_TOTAL) < n) {
		bool posted = false;

		while (sent < n && drv_txq_free(page(0))) {
			post(0, 1, msg_seq(0, sent++));
			posted = true;
		}
		if (posted)
			kick(0);
		if (__atomic_exchange_n(&consumer_kicks, 0, __ATOMIC_ACQ_REL))
			kick(1);
		round_once();
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec > DEKKER_LIMIT_S) {
			stuck = true;
			break;
		}
	}
	while (__atomic_load_n(&consumer_got, __ATOMIC_ACQUIRE) < n && !stuck)
		usleep(1000);
	__atomic_store_n(&consumer_stop, true, __ATOMIC_RELEASE);
	pthread_join(th, NULL);
	ok(!stuck && consumer_got == n && consumer_bad == 0,
	   "dekker: %llu messages to a concurrent consumer, no lost wake-up (%llu received)",
	   (unsigned long long)n, (unsigned long long)consumer_got);
	tap_diag("dekker: FIFO full %u times, %u stores waited",
		 reg(1, EUSRV_MBOX_FULL_CNT), reg(0, EUSRV_MBOX_TX_WAIT_CNT));
}

/* Programming errors are logged, but at a limited rate. */
static void test_log_ratelimit(const char *logpath)
{
	unsigned int i, lines = 0;
	char buf[512];
	FILE *f;

	board_reset();
	log_close();
	if (truncate(logpath, 0) || log_open(logpath))
		tap_bail("cannot open %s", logpath);
	for (i = 0; i < 1000; i++)
		vb_mbox_bad_kick(&fb.mb[0], 7);
	log_close();
	f = fopen(logpath, "r");
	while (f && fgets(buf, sizeof(buf), f))
		lines += strstr(buf, "kick on a vector with no block") != NULL;
	if (f)
		fclose(f);
	ok(reg(0, EUSRV_MBOX_BAD_CNT) == 1000 && lines >= 1 &&
	   lines <= LOG_RATELIMIT_BURST,
	   "log: 1000 bad kicks all counted, %u logged", lines);
}

int main(void)
{
	char logpath[] = "/tmp/eusrv-test-mailbox-XXXXXX";
	int fd = mkstemp(logpath);

	if (fd < 0)
		tap_bail("mkstemp failed");
	close(fd);
	/* The model's log of the expected errors goes to a file, not the TAP. */
	if (log_open(logpath))
		tap_bail("cannot open %s", logpath);
	fb.mem = aligned_alloc(EUSRV_PAGE_SIZE, NODES * EUSRV_PAGE_SIZE);
	if (!fb.mem)
		tap_bail("out of memory");

	test_attach();
	test_delivery();
	test_irqs();
	test_decode_errors();
	test_full_wait_drain();
	test_nowait();
	test_timeout();
	test_bad();
	test_garbage();
	test_detach();
	test_fairness();
	test_flood();
	test_dekker();
	test_log_ratelimit(logpath);

	unlink(logpath);
	free(fb.mem);
	return tap_done();
}
