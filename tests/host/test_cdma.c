/*
 * Unit tests of the AXI CDMA block (qemu/model/cdma.c) with the real
 * mailbox block and a real board (RAM files in a temporary directory), on
 * a fake clock and run queue: copies, chains and the ring wrap, simple
 * mode, coalescing and the delay timer, mailbox writes through DMA with a
 * full FIFO, every error kind with halt and reset, nodes going away, and
 * hostile registers and descriptors.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <eusrv/board_hw.h>
#include <eusrv/cdma_hw.h>
#include <eusrv/mbox_msg.h>

#include "board.h"
#include "cdma.h"
#include "log.h"
#include "mailbox.h"
#include "mbox_drv.h"
#include "tap.h"

#define NODES		3U	/* node 2 exists but is not attached */
#define RAM		(16ULL << 20)
#define RING		0x1000ULL	/* descriptors at this phys address */
#define RING_N		8U
#define BUF0		0x100000ULL	/* data buffers */
#define BUF1		0x800000ULL
#define MAX_ROUNDS	100000U
#define ON		(EUSRV_MBOX_CTRL_EN | EUSRV_MBOX_CTRL_ENQ_IE)
#define CR_RUN		(EUSRV_CDMA_CR_SGMODE | EUSRV_CDMA_CR_IRQEN_ALL | \
			 (1U << EUSRV_CDMA_CR_THRESH_SHIFT))

static struct board board;
static struct vb_mbox mb[EUSRV_MAX_NODES];
static struct vb_cdma cd[EUSRV_MAX_NODES];
static uint64_t now_us_v;
static bool queued[EUSRV_MAX_NODES];
static unsigned int runq[EUSRV_MAX_NODES], runq_len;
static unsigned int irqs[EUSRV_MAX_NODES];
static unsigned int rounds;

/* ---- Fake loop ---------------------------------------------------------- */

static void queue(unsigned int n)
{
	if (!queued[n]) {
		queued[n] = true;
		runq[runq_len++] = n;
	}
}

static struct vb_mbox *f_peer(struct vb_mbox *m, unsigned int node)
{
	(void)m;
	return node < NODES ? &mb[node] : NULL;
}

static void f_raise(struct vb_mbox *m) { (void)m; }
static void f_schedule(struct vb_mbox *m) { queue(m->node); }
static void f_timer_arm(struct vb_mbox *m, uint64_t d) { (void)m; (void)d; }
static void f_timer_cancel(struct vb_mbox *m) { (void)m; }
static uint64_t f_now_ms(struct vb_mbox *m) { (void)m; return now_us_v / 1000U; }

static const struct vb_mbox_ops mops = {
	.peer = f_peer, .raise_irq = f_raise, .schedule = f_schedule,
	.timer_arm = f_timer_arm, .timer_cancel = f_timer_cancel,
	.now_ms = f_now_ms,
};

static void c_schedule(struct vb_cdma *c) { queue(c->node); }
static uint64_t c_now_us(struct vb_cdma *c) { (void)c; return now_us_v; }

static const struct vb_cdma_ops cops = {
	.schedule = c_schedule, .now_us = c_now_us,
};

static void round_once(void)
{
	unsigned int q[EUSRV_MAX_NODES], n = runq_len, i;

	memcpy(q, runq, sizeof(q));
	runq_len = 0;
	for (i = 0; i < n; i++)
		queued[q[i]] = false;
	for (i = 0; i < n; i++) {
		vb_mbox_run(&mb[q[i]]);
		vb_cdma_run(&cd[q[i]]);
	}
	for (i = 0; i < NODES; i++) {
		vb_mbox_update_irq(&mb[i]);
		if (vb_cdma_update_irq(&cd[i]))
			irqs[i]++;
	}
	rounds++;
}

static bool settle(void)
{
	unsigned int r;

	for (r = 0; r < MAX_ROUNDS; r++) {
		round_once();
		if (!runq_len)
			return true;
	}
	return false;
}

static void advance_us(uint64_t us)
{
	unsigned int n;

	now_us_v += us;
	for (n = 0; n < NODES; n++) {
		uint64_t d = vb_cdma_next_deadline(&cd[n]);

		if (d && d <= now_us_v)
			vb_cdma_timer(&cd[n]);
	}
}

/* ---- The driver's side -------------------------------------------------- */

static void *cpage(unsigned int n) { return board_page(&board, n, EUSRV_PAGE_CDMA); }
static void *mpage(unsigned int n) { return board_page(&board, n, EUSRV_PAGE_MBOX); }
static uint32_t creg(unsigned int n, uint32_t off) { return drv_rd32(cpage(n), off); }
static void cwr(unsigned int n, uint32_t off, uint32_t v) { drv_wr32(cpage(n), off, v); }

static uint8_t *ramp(unsigned int n, uint64_t phys)
{
	return (uint8_t *)board.nodes[n].ram + phys;
}

static uint64_t dga(unsigned int n, unsigned int i)
{
	return EUSRV_GA(n, RING + (uint64_t)i * EUSRV_CDMA_DESC_SIZE);
}

static struct eusrv_cdma_desc *desc(unsigned int n, unsigned int i)
{
	return (struct eusrv_cdma_desc *)ramp(n, RING + (uint64_t)i * EUSRV_CDMA_DESC_SIZE);
}

/* Descriptor I of node N's ring: copy LEN bytes SA -> DA, next = I+1 mod RING_N. */
static void fill(unsigned int n, unsigned int i, uint64_t sa, uint64_t da, uint32_t len)
{
	struct eusrv_cdma_desc *d = desc(n, i % RING_N);
	uint64_t next = dga(n, (i + 1) % RING_N);

	d->next = (uint32_t)next;
	d->next_msb = (uint32_t)(next >> 32);
	d->sa = (uint32_t)sa;
	d->sa_msb = (uint32_t)(sa >> 32);
	d->da = (uint32_t)da;
	d->da_msb = (uint32_t)(da >> 32);
	d->ctrl = len;
	__atomic_store_n(&d->status, 0, __ATOMIC_RELEASE);
}

/* A mailbox message descriptor: the message lives in its padding. */
static void fill_msg(unsigned int n, unsigned int i, unsigned int dst, uint64_t msg)
{
	struct eusrv_cdma_desc *d = desc(n, i % RING_N);

	d->sw[0] = msg;
	fill(n, i, dga(n, i % RING_N) + EUSRV_CDMA_DESC_SW, EUSRV_MBOX_INBOX_GA(dst), 8);
}

static uint32_t dstatus(unsigned int n, unsigned int i)
{
	return __atomic_load_n(&desc(n, i % RING_N)->status, __ATOMIC_ACQUIRE);
}

static void kick(unsigned int n) { vb_cdma_kick(&cd[n]); }

static void set_tail(unsigned int n, uint64_t ga)
{
	cwr(n, EUSRV_CDMA_TAILDESC_MSB, (uint32_t)(ga >> 32));
	cwr(n, EUSRV_CDMA_TAILDESC, (uint32_t)ga);
	kick(n);
}

static bool reset_engine(unsigned int n)
{
	cwr(n, EUSRV_CDMA_CR, EUSRV_CDMA_CR_RESET);
	kick(n);
	return creg(n, EUSRV_CDMA_CR) == EUSRV_CDMA_CR_RESET_VALUE;
}

/* Reset, SG mode with CR, CURDESC = descriptor FIRST. */
static void sg_start(unsigned int n, uint32_t cr, unsigned int first)
{
	uint64_t cur = dga(n, first);

	reset_engine(n);
	cwr(n, EUSRV_CDMA_CR, cr);
	kick(n);
	cwr(n, EUSRV_CDMA_CURDESC_MSB, (uint32_t)(cur >> 32));
	cwr(n, EUSRV_CDMA_CURDESC, (uint32_t)cur);
}

/* The virtual board's own acknowledgement: SR_CLR, SR_CLR_SEQ, a kick. */
static void clear_sr(unsigned int n, uint32_t bits)
{
	cwr(n, EUSRV_CDMA_SR_CLR, bits);
	cwr(n, EUSRV_CDMA_SR_CLR_SEQ, creg(n, EUSRV_CDMA_SR_CLR_SEQ) + 1);
	kick(n);
}

/* PG034's, as the driver makes it: 1s written to CDMASR, a kick. */
static void ack_sr(unsigned int n, uint32_t bits)
{
	cwr(n, EUSRV_CDMA_SR, bits);
	kick(n);
}

static uint32_t sr(unsigned int n) { return creg(n, EUSRV_CDMA_SR); }

static uint64_t curdesc(unsigned int n)
{
	return (uint64_t)creg(n, EUSRV_CDMA_CURDESC_MSB) << 32 | creg(n, EUSRV_CDMA_CURDESC);
}

static void pattern(uint8_t *p, size_t len, unsigned int seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (uint8_t)(i * 131 + seed * 7 + (i >> 9));
}

static unsigned int drain_fifo(unsigned int n, struct eusrv_mbox_fifo_entry *out,
			       unsigned int max)
{
	bool k = false;
	unsigned int got = drv_consume(mpage(n), out, max, &k);

	if (k)
		vb_mbox_kick(&mb[n]);
	return got;
}

/* Node N posts a FIFO's worth of messages to its own INBOX: its FIFO is full. */
static void fill_fifo(unsigned int n)
{
	unsigned int i;

	for (i = 0; i < EUSRV_MBOX_FIFO_DEPTH; i++)
		drv_post(mpage(n), EUSRV_MBOX_INBOX_GA(n), eusrv_msg_make(0xd, 0, i));
	vb_mbox_kick(&mb[n]);
	settle();
}

/* Node N goes away: its blocks detach, the board marks it down. */
static void node_gone(unsigned int n)
{
	vb_mbox_detach(&mb[n]);
	vb_cdma_detach(&cd[n]);
	board_set_up(&board, n, false);
}

static void fresh_board(void)
{
	unsigned int n;

	runq_len = 0;
	memset(queued, 0, sizeof(queued));
	memset(irqs, 0, sizeof(irqs));
	for (n = 0; n < NODES; n++) {
		if (cd[n].up)
			vb_cdma_detach(&cd[n]);
		if (mb[n].up)
			vb_mbox_detach(&mb[n]);
		board_set_up(&board, n, false);
	}
	for (n = 0; n < 2; n++) {
		vb_mbox_attach(&mb[n]);
		drv_wr32(mpage(n), EUSRV_MBOX_CTRL, ON);
		vb_cdma_attach(&cd[n]);
		board_set_up(&board, n, true);
		memset(ramp(n, RING), 0, RING_N * EUSRV_CDMA_DESC_SIZE);
	}
}

/* ---- Tests -------------------------------------------------------------- */

static void test_attach(void)
{
	fresh_board();
	ok(creg(0, EUSRV_CDMA_ID) == EUSRV_CDMA_ID_VALUE, "attach: ID register");
	ok(creg(0, EUSRV_CDMA_CR) == EUSRV_CDMA_CR_RESET_VALUE, "attach: CDMACR at its reset value");
	ok(sr(0) == (EUSRV_CDMA_SR_IDLE | EUSRV_CDMA_SR_SGINCLD | (1U << 16)),
	   "attach: CDMASR idle, SG included, threshold 1 (%#x)", sr(0));
	ok(reset_engine(0), "reset completes at once, Reset reads 0");
}

static void test_chain(void)
{
	unsigned int i;
	bool good = true;

	fresh_board();
	pattern(ramp(0, BUF0), 3 * 4096, 1);
	memset(ramp(1, BUF1), 0, 3 * 4096);
	sg_start(0, CR_RUN, 0);
	for (i = 0; i < 3; i++)
		fill(0, i, EUSRV_GA(0, BUF0 + i * 4096), EUSRV_GA(1, BUF1 + i * 4096),
		     i == 1 ? 1 : 4096);
	set_tail(0, dga(0, 2));
	ok(!(sr(0) & EUSRV_CDMA_SR_IDLE), "chain: TAILDESC starts the engine (not idle)");
	ok(settle(), "chain: settles");
	for (i = 0; i < 3; i++)
		good &= dstatus(0, i) == EUSRV_CDMA_ST_CMPLT;
	ok(good, "chain: three descriptors Cmplt, no error bits");
	ok(!memcmp(ramp(0, BUF0), ramp(1, BUF1), 4096) &&
	   ramp(1, BUF1 + 4096)[0] == ramp(0, BUF0 + 4096)[0] && ramp(1, BUF1 + 4097)[0] == 0 &&
	   !memcmp(ramp(0, BUF0 + 8192), ramp(1, BUF1 + 8192), 4096),
	   "chain: data copied to the other node, 1-byte descriptor exact");
	ok((sr(0) & (EUSRV_CDMA_SR_IDLE | EUSRV_CDMA_SR_IOC_IRQ | EUSRV_CDMA_SR_ERR_ALL)) ==
	   (EUSRV_CDMA_SR_IDLE | EUSRV_CDMA_SR_IOC_IRQ), "chain: idle, IOC_Irq, no error (%#x)", sr(0));
	ok(irqs[0] >= 1, "chain: the CDMA vector was raised");
	ok(creg(0, EUSRV_CDMA_DESC_CNT) == 3 && drv_rd64(cpage(0), EUSRV_CDMA_BYTES) == 8193,
	   "chain: DESC_CNT 3, BYTES 8193");

	/* Resume at the next descriptor after the pause point. */
	pattern(ramp(1, BUF1 + 65536), 100, 2);
	fill(0, 3, EUSRV_GA(1, BUF1 + 65536), EUSRV_GA(0, BUF0 + 65536), 100);
	set_tail(0, dga(0, 3));
	settle();
	ok(dstatus(0, 3) == EUSRV_CDMA_ST_CMPLT &&
	   !memcmp(ramp(1, BUF1 + 65536), ramp(0, BUF0 + 65536), 100),
	   "chain: a new TAILDESC resumes after the pause point (remote -> local copy)");
	/* A kick with the same TAILDESC starts nothing. */
	fill(0, 4, EUSRV_GA(0, BUF0), EUSRV_GA(0, BUF0 + 65536), 10);
	set_tail(0, dga(0, 3));
	settle();
	ok(dstatus(0, 4) == 0 && (sr(0) & EUSRV_CDMA_SR_IDLE),
	   "chain: the same TAILDESC again starts nothing");
	clear_sr(0, EUSRV_CDMA_SR_IOC_IRQ);
	ok(!(sr(0) & EUSRV_CDMA_SR_IOC_IRQ), "SR_CLR clears IOC_Irq");

	/* PG034's acknowledgement; with --cdma-pg034 the only one. */
	fill(0, 4, EUSRV_GA(0, BUF0), EUSRV_GA(0, BUF0 + 65536), 10);
	set_tail(0, dga(0, 4));
	settle();
	ok(dstatus(0, 4) == EUSRV_CDMA_ST_CMPLT && (sr(0) & EUSRV_CDMA_SR_IOC_IRQ),
	   "chain: one more descriptor, IOC_Irq");
	ack_sr(0, EUSRV_CDMA_SR_IOC_IRQ);
	ok(!(sr(0) & EUSRV_CDMA_SR_IOC_IRQ) && (sr(0) & EUSRV_CDMA_SR_SGINCLD),
	   "1s written to CDMASR clear IOC_Irq; CDMASR reads as the model's again");
	board.cdma_pg034 = true;
	fill(0, 5, EUSRV_GA(0, BUF0), EUSRV_GA(0, BUF0 + 65536), 10);
	set_tail(0, dga(0, 5));
	settle();
	clear_sr(0, EUSRV_CDMA_SR_IOC_IRQ);
	ok((sr(0) & EUSRV_CDMA_SR_IOC_IRQ) &&
	   creg(0, EUSRV_CDMA_BAD_LAST) == EUSRV_CDMA_BAD_VB_ACK,
	   "--cdma-pg034: SR_CLR is a programming error and clears nothing");
	ack_sr(0, EUSRV_CDMA_SR_IOC_IRQ | EUSRV_CDMA_SR_IDLE);
	ok(!(sr(0) & EUSRV_CDMA_SR_IOC_IRQ) &&
	   creg(0, EUSRV_CDMA_BAD_LAST) == EUSRV_CDMA_BAD_SR_W1C,
	   "--cdma-pg034: 1s to CDMASR clear; a bit outside 14:12 is reported");
	board.cdma_pg034 = false;
}

static void test_wrap(void)
{
	unsigned int i, next = 0, batch;
	bool good = true;

	fresh_board();
	pattern(ramp(0, BUF0), 65536, 3);
	sg_start(0, CR_RUN, 0);
	for (batch = 0; batch < 20; batch++) {
		unsigned int k = 1 + batch % (RING_N - 1);

		for (i = 0; i < k; i++, next++)
			fill(0, next, EUSRV_GA(0, BUF0 + (next % 64) * 1024),
			     EUSRV_GA(1, BUF1 + (next % 64) * 1024), 1024);
		set_tail(0, dga(0, (next - 1) % RING_N));
		settle();
		for (i = next - k; i < next; i++)
			good &= dstatus(0, i) == EUSRV_CDMA_ST_CMPLT;
	}
	ok(good && !(sr(0) & EUSRV_CDMA_SR_ERR_ALL), "wrap: %u descriptors through a ring of %u",
	   next, RING_N);
	ok(!memcmp(ramp(0, BUF0), ramp(1, BUF1), 65536), "wrap: all data arrived");
	ok(creg(0, EUSRV_CDMA_DESC_CNT) == next, "wrap: DESC_CNT %u", creg(0, EUSRV_CDMA_DESC_CNT));
}

static void test_coalesce(void)
{
	unsigned int i;
	uint64_t d;

	fresh_board();
	sg_start(0, CR_RUN | (3U << EUSRV_CDMA_CR_THRESH_SHIFT) | (10U << EUSRV_CDMA_CR_DELAY_SHIFT), 0);
	for (i = 0; i < 2; i++)
		fill(0, i, EUSRV_GA(0, BUF0), EUSRV_GA(0, BUF1), 64);
	set_tail(0, dga(0, 1));
	settle();
	ok(!(sr(0) & EUSRV_CDMA_SR_IOC_IRQ), "threshold 3: no IOC after 2 descriptors");
	ok(((sr(0) & EUSRV_CDMA_SR_THRESH_MASK) >> 16) == 1, "IRQThresholdSts counts down (%u)",
	   (sr(0) & EUSRV_CDMA_SR_THRESH_MASK) >> 16);
	d = vb_cdma_next_deadline(&cd[0]);
	ok(d == now_us_v + 10, "delay timer runs while idle: 10 us");
	fill(0, 2, EUSRV_GA(0, BUF0), EUSRV_GA(0, BUF1), 64);
	set_tail(0, dga(0, 2));
	settle();
	ok((sr(0) & EUSRV_CDMA_SR_IOC_IRQ) && !(sr(0) & EUSRV_CDMA_SR_DLY_IRQ),
	   "threshold 3: IOC after the third, the delay timer stopped");
	clear_sr(0, EUSRV_CDMA_SR_IOC_IRQ);
	fill(0, 3, EUSRV_GA(0, BUF0), EUSRV_GA(0, BUF1), 64);
	set_tail(0, dga(0, 3));
	settle();
	irqs[0] = 0;
	advance_us(9);
	ok(!(sr(0) & EUSRV_CDMA_SR_DLY_IRQ), "no Dly_Irq before the delay");
	advance_us(1);
	round_once();
	ok((sr(0) & EUSRV_CDMA_SR_DLY_IRQ) && irqs[0] == 1, "Dly_Irq after 10 us idle, raised");
	ok(((sr(0) & EUSRV_CDMA_SR_THRESH_MASK) >> 16) == 3, "the delay interrupt reloads the threshold");
}

static void test_large(void)
{
	size_t len = 5U << 20;
	unsigned int r0;

	fresh_board();
	pattern(ramp(0, BUF0), len, 4);
	memset(ramp(1, BUF0), 0, len);
	sg_start(0, CR_RUN, 0);
	sg_start(1, CR_RUN, 0);
	fill(0, 0, EUSRV_GA(0, BUF0), EUSRV_GA(1, BUF0), (uint32_t)len);
	set_tail(0, dga(0, 0));
	/* Node 1 copies a little meanwhile: it must not wait for node 0. */
	pattern(ramp(1, BUF1), 256, 5);
	fill(1, 0, EUSRV_GA(1, BUF1), EUSRV_GA(1, BUF1 + 4096), 256);
	set_tail(1, dga(1, 0));
	r0 = rounds;
	round_once();
	ok(dstatus(1, 0) == EUSRV_CDMA_ST_CMPLT && dstatus(0, 0) == 0,
	   "large: another node's small copy finishes first");
	settle();
	ok(dstatus(0, 0) == EUSRV_CDMA_ST_CMPLT && !memcmp(ramp(0, BUF0), ramp(1, BUF0), len),
	   "large: 5 MiB in one descriptor copied");
	ok(rounds - r0 >= 5, "large: spread over %u loop rounds", rounds - r0);
	fill(0, 1, EUSRV_GA(0, BUF0), EUSRV_GA(0, BUF0 + 4096), EUSRV_CDMA_MAX_LEN);
	set_tail(0, dga(0, 1));
	settle();
	ok(dstatus(0, 1) == (EUSRV_CDMA_ST_CMPLT | EUSRV_CDMA_ST_DECERR),
	   "large: MAX_LEN beyond the end of RAM is a decode error");
}

static void test_mailbox(void)
{
	struct eusrv_mbox_fifo_entry e[EUSRV_MBOX_FIFO_DEPTH + 4];
	unsigned int i, got;
	uint64_t m = eusrv_msg_make(0xc, 5, 0x1234);

	fresh_board();
	sg_start(0, CR_RUN, 0);
	pattern(ramp(0, BUF0), 512, 6);
	fill(0, 0, EUSRV_GA(0, BUF0), EUSRV_GA(1, BUF0), 512);
	fill_msg(0, 1, 1, m);
	fill_msg(0, 2, 0, m + 1);
	set_tail(0, dga(0, 2));
	settle();
	got = drain_fifo(1, e, 4);
	ok(got == 1 && e[0].msg == m && e[0].src_node == 0,
	   "mailbox: remote message delivered, source = the engine's node");
	got = drain_fifo(0, e, 4);
	ok(got == 1 && e[0].msg == m + 1 && e[0].src_node == 0, "mailbox: local message delivered");
	ok(dstatus(0, 1) == EUSRV_CDMA_ST_CMPLT && creg(0, EUSRV_CDMA_MSG_CNT) == 2,
	   "mailbox: descriptors Cmplt, MSG_CNT 2");

	/* Fill node 1's FIFO, then a DMA message must wait. */
	fill_fifo(1);
	for (i = 3; i < 6; i++)
		fill_msg(0, i, 1, m + i);
	set_tail(0, dga(0, 5));
	settle();
	ok(dstatus(0, 3) == 0 && !(sr(0) & EUSRV_CDMA_SR_IDLE) && creg(0, EUSRV_CDMA_WAIT_CNT) == 1,
	   "full FIFO: the engine stalls (not idle, WAIT_CNT 1)");
	ok(drv_rd32(mpage(1), EUSRV_MBOX_RX_STALLED) == 1 &&
	   drv_rd32(mpage(1), EUSRV_MBOX_FULL_CNT) >= 1,
	   "full FIFO: destination RX_STALLED and FULL_CNT");
	advance_us(100000);
	settle();
	ok(dstatus(0, 3) == 0, "full FIFO: still waiting after 100 ms");
	got = drain_fifo(1, e, EUSRV_MBOX_FIFO_DEPTH + 4);
	settle();
	got = drain_fifo(1, e, EUSRV_MBOX_FIFO_DEPTH + 4);
	ok(got == 3 && e[0].msg == m + 3 && e[2].msg == m + 5 && dstatus(0, 5) == EUSRV_CDMA_ST_CMPLT,
	   "full FIFO: drained and kicked, the waiting messages arrive in order");
	ok(drv_rd32(mpage(1), EUSRV_MBOX_RX_STALLED) == 0, "full FIFO: RX_STALLED back to 0");

	/* A FIFO that stays full: DMASlvErr after the store timeout. */
	fill_fifo(1);
	fill_msg(0, 6, 1, m);
	fill_msg(0, 7, 1, m);
	set_tail(0, dga(0, 7));
	settle();
	advance_us(EUSRV_MBOX_STORE_TIMEOUT_MS * 1000ULL - 1000);
	settle();
	ok(dstatus(0, 6) == 0, "stuck FIFO: no error before the timeout");
	advance_us(1000);
	settle();
	ok(dstatus(0, 6) == (EUSRV_CDMA_ST_CMPLT | EUSRV_CDMA_ST_SLVERR) &&
	   (sr(0) & EUSRV_CDMA_SR_DMA_SLV_ERR) && (sr(0) & EUSRV_CDMA_SR_ERR_IRQ) &&
	   dstatus(0, 7) == 0 && curdesc(0) == dga(0, 6),
	   "stuck FIFO: DMASlvErr after %u ms, CURDESC = failing descriptor, later one untouched",
	   EUSRV_MBOX_STORE_TIMEOUT_MS);
	ok(drv_rd32(mpage(1), EUSRV_MBOX_RX_STALLED) == 0, "stuck FIFO: the destination is released");

	/* A disabled mailbox refuses: DMASlvErr. */
	drain_fifo(1, e, EUSRV_MBOX_FIFO_DEPTH + 4);
	drv_wr32(mpage(1), EUSRV_MBOX_CTRL, 0);
	sg_start(0, CR_RUN, 0);
	fill_msg(0, 0, 1, m);
	set_tail(0, dga(0, 0));
	settle();
	ok(dstatus(0, 0) == (EUSRV_CDMA_ST_CMPLT | EUSRV_CDMA_ST_SLVERR),
	   "disabled destination mailbox: DMASlvErr");
	drv_wr32(mpage(1), EUSRV_MBOX_CTRL, ON);
}

/* MSG_CTRL.NOWAIT: a write to a full FIFO is a slave error at once, no wait. */
static void test_mailbox_nowait(void)
{
	struct eusrv_mbox_fifo_entry e[EUSRV_MBOX_FIFO_DEPTH + 4];
	uint64_t m = eusrv_msg_make(0xc, 6, 0x4321);
	unsigned int got;

	fresh_board();
	sg_start(0, CR_RUN, 0);
	cwr(0, EUSRV_CDMA_MSG_CTRL, EUSRV_CDMA_MSG_NOWAIT);
	pattern(ramp(0, BUF0), 512, 7);
	fill(0, 0, EUSRV_GA(0, BUF0), EUSRV_GA(1, BUF0), 512);
	fill_msg(0, 1, 1, m);
	set_tail(0, dga(0, 1));
	settle();
	ok(dstatus(0, 1) == EUSRV_CDMA_ST_CMPLT && creg(0, EUSRV_CDMA_REFUSED_CNT) == 0,
	   "nowait: a FIFO with room takes the message as usual");
	drain_fifo(1, e, EUSRV_MBOX_FIFO_DEPTH + 4);
	fill_fifo(1);
	fill(0, 2, EUSRV_GA(0, BUF0), EUSRV_GA(1, BUF0), 512);
	fill_msg(0, 3, 1, m + 1);
	fill_msg(0, 4, 0, m + 2);
	set_tail(0, dga(0, 4));
	settle();
	ok(dstatus(0, 2) == EUSRV_CDMA_ST_CMPLT &&
	   dstatus(0, 3) == (EUSRV_CDMA_ST_CMPLT | EUSRV_CDMA_ST_SLVERR) &&
	   dstatus(0, 4) == 0 && curdesc(0) == dga(0, 3) &&
	   (sr(0) & EUSRV_CDMA_SR_DMA_SLV_ERR),
	   "nowait: full FIFO, the data lands, the message is DMASlvErr at once, CURDESC names it");
	ok(creg(0, EUSRV_CDMA_REFUSED_CNT) == 1 && creg(0, EUSRV_CDMA_WAIT_CNT) == 0 &&
	   drv_rd32(mpage(1), EUSRV_MBOX_RX_STALLED) == 0,
	   "nowait: REFUSED_CNT 1, no wait, the destination holds nothing for it");
	got = drain_fifo(1, e, EUSRV_MBOX_FIFO_DEPTH + 4);
	ok(got == EUSRV_MBOX_FIFO_DEPTH && e[got - 1].msg != m + 1,
	   "nowait: the refused message was not delivered");

	/* MAXWAIT 3 ms: it waits that long, then it is refused. */
	fresh_board();
	sg_start(0, CR_RUN, 0);
	cwr(0, EUSRV_CDMA_MSG_CTRL, EUSRV_CDMA_MSG_NOWAIT | 3U << EUSRV_CDMA_MSG_MAXWAIT_SHIFT);
	fill_fifo(1);
	fill_msg(0, 0, 1, m);
	set_tail(0, dga(0, 0));
	settle();
	advance_us(2000);
	settle();
	ok(dstatus(0, 0) == 0 && creg(0, EUSRV_CDMA_WAIT_CNT) == 1,
	   "maxwait 3 ms: still waiting after 2 ms");
	advance_us(1000);
	settle();
	ok(dstatus(0, 0) == (EUSRV_CDMA_ST_CMPLT | EUSRV_CDMA_ST_SLVERR) &&
	   creg(0, EUSRV_CDMA_REFUSED_CNT) == 1 &&
	   drv_rd32(mpage(1), EUSRV_MBOX_RX_STALLED) == 0,
	   "maxwait 3 ms: refused (DMASlvErr) at 3 ms, the destination released");
}

/* A conditional message descriptor (COND): sent only if the word at WORD was set. */
static void fill_cond_msg(unsigned int n, unsigned int i, unsigned int dst,
			  uint64_t msg, uint64_t word)
{
	struct eusrv_cdma_desc *d = desc(n, i % RING_N);

	fill_msg(n, i, dst, msg);
	d->sw[3] = word;
	d->ctrl = 8 | EUSRV_CDMA_CTL_COND;
}

/* COND: the engine swaps the word with 0 and writes the message only if it was set. */
static void test_mailbox_cond(void)
{
	struct eusrv_mbox_fifo_entry e[8];
	uint64_t m = eusrv_msg_make(0xc, 7, 0x77);
	uint32_t *w1 = (uint32_t *)ramp(1, BUF1), *w0 = (uint32_t *)ramp(0, BUF1 + 64);
	uint64_t taken, skipped;
	unsigned int got;

	fresh_board();
	taken = cd[0].far_taken;
	skipped = cd[0].far_skipped;
	sg_start(0, CR_RUN, 0);
	*w1 = 1;
	*w0 = 0;
	fill_cond_msg(0, 0, 1, m, EUSRV_GA(1, BUF1));
	fill_cond_msg(0, 1, 0, m + 1, EUSRV_GA(0, BUF1 + 64));
	set_tail(0, dga(0, 1));
	settle();
	got = drain_fifo(1, e, 8);
	ok(got == 1 && e[0].msg == m && *w1 == 0 && dstatus(0, 0) == EUSRV_CDMA_ST_CMPLT,
	   "cond: the word (on the destination node) was set: message written, word now 0");
	got = drain_fifo(0, e, 8);
	ok(got == 0 && dstatus(0, 1) == EUSRV_CDMA_ST_CMPLT &&
	   creg(0, EUSRV_CDMA_SKIPPED_CNT) == 1 && creg(0, EUSRV_CDMA_MSG_CNT) == 1,
	   "cond: the word was 0: no message, descriptor Cmplt, SKIPPED_CNT 1");
	/* Once taken, the same word sends nothing more. */
	fill_cond_msg(0, 2, 1, m + 2, EUSRV_GA(1, BUF1));
	set_tail(0, dga(0, 2));
	settle();
	ok(drain_fifo(1, e, 8) == 0 && creg(0, EUSRV_CDMA_SKIPPED_CNT) == 2,
	   "cond: a word taken once sends nothing again");
	ok(cd[0].far_taken - taken == 1 && cd[0].far_skipped - skipped == 1,
	   "cond: to another node's inbox 1 taken and 1 skipped counted, not the own node's");
	/* A misaligned word is a decode error, COND on a copy an internal one. */
	fill_cond_msg(0, 3, 1, m, EUSRV_GA(1, BUF1 + 2));
	set_tail(0, dga(0, 3));
	settle();
	ok(dstatus(0, 3) == (EUSRV_CDMA_ST_CMPLT | EUSRV_CDMA_ST_DECERR) &&
	   (sr(0) & EUSRV_CDMA_SR_DMA_DEC_ERR), "cond: misaligned word: DMADecErr");
	sg_start(0, CR_RUN, 0);
	fill(0, 0, EUSRV_GA(0, BUF0), EUSRV_GA(1, BUF0), 64);
	desc(0, 0)->ctrl = 64 | EUSRV_CDMA_CTL_COND;
	set_tail(0, dga(0, 0));
	settle();
	ok(dstatus(0, 0) == (EUSRV_CDMA_ST_CMPLT | EUSRV_CDMA_ST_INTERR),
	   "cond on a copy: DMAIntErr");
}

struct err_case {
	const char *what;
	uint64_t sa, da;
	uint32_t len;
	uint32_t sr_bit, st;	/* st 0: descriptor untouched */
	int bad_next;		/* 1: NXTDESC of desc 0 misaligned, 2: outside RAM, 3: stale */
};

static void test_errors(void)
{
	const uint64_t s = EUSRV_GA(0, BUF0), d = EUSRV_GA(1, BUF1);
	const struct err_case cases[] = {
		{ "length 0", s, d, 0, EUSRV_CDMA_SR_DMA_INT_ERR, EUSRV_CDMA_ST_INTERR, 0 },
		{ "length above MAX_LEN", s, d, EUSRV_CDMA_MAX_LEN + 1, EUSRV_CDMA_SR_DMA_INT_ERR,
		  EUSRV_CDMA_ST_INTERR, 0 },
		{ "destination node not attached", s, EUSRV_GA(2, BUF1), 64,
		  EUSRV_CDMA_SR_DMA_DEC_ERR, EUSRV_CDMA_ST_DECERR, 0 },
		{ "destination node does not exist", s, EUSRV_GA(9, BUF1), 64,
		  EUSRV_CDMA_SR_DMA_DEC_ERR, EUSRV_CDMA_ST_DECERR, 0 },
		{ "source beyond RAM", EUSRV_GA(0, RAM - 8), d, 64, EUSRV_CDMA_SR_DMA_DEC_ERR,
		  EUSRV_CDMA_ST_DECERR, 0 },
		{ "destination a register window", s,
		  EUSRV_GA(1, EUSRV_GA_BLOCKS + EUSRV_PAGE_CDMA), 4, EUSRV_CDMA_SR_DMA_DEC_ERR,
		  EUSRV_CDMA_ST_DECERR, 0 },
		{ "bits 63:48 set", s, d | (1ULL << 50), 64, EUSRV_CDMA_SR_DMA_DEC_ERR,
		  EUSRV_CDMA_ST_DECERR, 0 },
		{ "INBOX write of 16 bytes", s, EUSRV_MBOX_INBOX_GA(1), 16,
		  EUSRV_CDMA_SR_DMA_DEC_ERR, EUSRV_CDMA_ST_DECERR, 0 },
		{ "INBOX of a node that is down", s, EUSRV_MBOX_INBOX_GA(2), 8,
		  EUSRV_CDMA_SR_DMA_DEC_ERR, EUSRV_CDMA_ST_DECERR, 0 },
		{ "misaligned NXTDESC", s, d, 64, EUSRV_CDMA_SR_SG_INT_ERR, 0, 1 },
		{ "NXTDESC in another node's RAM", s, d, 64, EUSRV_CDMA_SR_SG_DEC_ERR, 0, 2 },
		{ "stale descriptor (Cmplt set)", s, d, 64, EUSRV_CDMA_SR_SG_INT_ERR, 0, 3 },
	};
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct err_case *c = &cases[i];
		uint64_t fail = c->bad_next ? dga(0, 1) : dga(0, 0);
		unsigned int ok_before = creg(0, EUSRV_CDMA_DESC_CNT);

		fresh_board();
		sg_start(0, CR_RUN, 0);
		irqs[0] = 0;
		if (c->bad_next) {
			fill(0, 0, s, d, 64);
			fill(0, 1, c->sa, c->da, c->len);
			fill(0, 2, s, d, 64);
			if (c->bad_next == 1) {
				desc(0, 0)->next += 8;
				fail += 8;
			} else if (c->bad_next == 2) {
				desc(0, 0)->next_msb = (uint32_t)(EUSRV_GA(1, RING) >> 32);
				fail = EUSRV_GA(1, RING + 64);
			} else {
				desc(0, 1)->status = EUSRV_CDMA_ST_CMPLT;
			}
		} else {
			fill(0, 0, c->sa, c->da, c->len);
			fill(0, 1, s, d, 64);
			fill(0, 2, s, d, 64);
		}
		set_tail(0, dga(0, 2));
		settle();
		(void)ok_before;
		ok((sr(0) & EUSRV_CDMA_SR_ERR_ALL) == c->sr_bit &&
		   (sr(0) & EUSRV_CDMA_SR_ERR_IRQ) && !(sr(0) & EUSRV_CDMA_SR_IDLE) && irqs[0] == 1 &&
		   curdesc(0) == fail && creg(0, EUSRV_CDMA_ERR_CNT) == 1,
		   "error: %s -> CDMASR %#x, Err_Irq raised, CURDESC %#llx", c->what, sr(0),
		   (unsigned long long)curdesc(0));
		if (c->st)
			ok(dstatus(0, 0) == (EUSRV_CDMA_ST_CMPLT | c->st) && dstatus(0, 1) == 0,
			   "error: %s -> descriptor STATUS %#x, the next untouched", c->what,
			   dstatus(0, 0));
		else if (c->bad_next != 3)
			ok(dstatus(0, 0) == EUSRV_CDMA_ST_CMPLT && dstatus(0, 2) == 0,
			   "error: %s -> the failing descriptor untouched", c->what);
	}

	/* Halted: new work is ignored (and counted) until a reset. */
	fill(0, 3, s, d, 64);
	set_tail(0, dga(0, 3));
	settle();
	ok(dstatus(0, 3) == 0 && creg(0, EUSRV_CDMA_BAD_LAST) == EUSRV_CDMA_BAD_HALTED,
	   "halted: a new TAILDESC is ignored, BAD_HALTED");
	ok(reset_engine(0) && sr(0) == (EUSRV_CDMA_SR_IDLE | EUSRV_CDMA_SR_SGINCLD | (1U << 16)) &&
	   curdesc(0) == 0 && creg(0, EUSRV_CDMA_TAILDESC) == 0,
	   "reset: status clean, CURDESC and TAILDESC 0");
	sg_start(0, CR_RUN, 3);
	set_tail(0, dga(0, 3));
	settle();
	ok(dstatus(0, 3) == EUSRV_CDMA_ST_CMPLT && !(sr(0) & EUSRV_CDMA_SR_ERR_ALL),
	   "after the reset the engine works again");
}

/*
 * A board of mixed ISAs (qemu/board start --arch=x86_64,armhf): node1's RAM
 * at 1 GiB (the model's --ram-base 0,1G,...), node0's at 0.  Each side
 * names the other's RAM by that node's physical addresses, and node1's
 * engine walks its ring at its own.
 */
static void test_mixed_bases(void)
{
	const uint64_t base = 1ULL << 30, cur = EUSRV_GA(1, base + RING);
	struct eusrv_cdma_desc *d1 = desc(1, 0);

	fresh_board();
	board.ram_base[1] = base;
	pattern(ramp(0, BUF0), 4096, 5);
	memset(ramp(1, BUF1), 0, 4096);
	sg_start(0, CR_RUN, 0);
	fill(0, 0, EUSRV_GA(0, BUF0), EUSRV_GA(1, base + BUF1), 4096);
	set_tail(0, dga(0, 0));
	settle();
	ok(dstatus(0, 0) == EUSRV_CDMA_ST_CMPLT &&
	   !memcmp(ramp(0, BUF0), ramp(1, BUF1), 4096),
	   "mixed bases: node0 (RAM at 0) copies into node1's RAM at 1 GiB");

	/* node1's engine, its descriptor and CURDESC at 1 GiB + RING. */
	pattern(ramp(1, BUF1 + 65536), 100, 6);
	memset(ramp(0, BUF0 + 65536), 0, 100);
	fill(1, 0, EUSRV_GA(1, base + BUF1 + 65536), EUSRV_GA(0, BUF0 + 65536), 100);
	d1->next = (uint32_t)cur;
	d1->next_msb = (uint32_t)(cur >> 32);
	reset_engine(1);
	cwr(1, EUSRV_CDMA_CR, CR_RUN);
	kick(1);
	cwr(1, EUSRV_CDMA_CURDESC_MSB, (uint32_t)(cur >> 32));
	cwr(1, EUSRV_CDMA_CURDESC, (uint32_t)cur);
	set_tail(1, cur);
	settle();
	ok(dstatus(1, 0) == EUSRV_CDMA_ST_CMPLT &&
	   !memcmp(ramp(1, BUF1 + 65536), ramp(0, BUF0 + 65536), 100),
	   "mixed bases: node1 (RAM at 1 GiB) walks its ring and copies into node0's RAM at 0");

	/* An address decoded against the wrong node's base is no RAM. */
	fill(0, 1, EUSRV_GA(1, BUF1), EUSRV_GA(0, BUF0), 64);
	set_tail(0, dga(0, 1));
	settle();
	ok((dstatus(0, 1) & EUSRV_CDMA_ST_DECERR) &&
	   (sr(0) & EUSRV_CDMA_SR_DMA_DEC_ERR),
	   "mixed bases: node1's RAM named without its base is a decode error");
	board.ram_base[1] = 0;
}

static void test_simple(void)
{
	fresh_board();
	reset_engine(0);
	cwr(0, EUSRV_CDMA_CR, EUSRV_CDMA_CR_IOC_IRQEN | (1U << 16));
	kick(0);
	pattern(ramp(0, BUF0), 3000, 9);
	cwr(0, EUSRV_CDMA_SA, (uint32_t)EUSRV_GA(0, BUF0));
	cwr(0, EUSRV_CDMA_SA_MSB, 0);
	cwr(0, EUSRV_CDMA_DA, (uint32_t)EUSRV_GA(1, BUF0));
	cwr(0, EUSRV_CDMA_DA_MSB, (uint32_t)(EUSRV_GA(1, BUF0) >> 32));
	cwr(0, EUSRV_CDMA_BTT, 3000);
	cwr(0, EUSRV_CDMA_SIMPLE_SEQ, 1);
	kick(0);
	settle();
	ok(!memcmp(ramp(0, BUF0), ramp(1, BUF0), 3000) && (sr(0) & EUSRV_CDMA_SR_IOC_IRQ) &&
	   (sr(0) & EUSRV_CDMA_SR_IDLE), "simple mode: copy and IOC_Irq");
	cwr(0, EUSRV_CDMA_BTT, 0);
	cwr(0, EUSRV_CDMA_SIMPLE_SEQ, 2);
	kick(0);
	settle();
	ok((sr(0) & EUSRV_CDMA_SR_DMA_INT_ERR) && curdesc(0) == 0,
	   "simple mode: BTT 0 is DMAIntErr, CURDESC not touched");
}

static void test_bad(void)
{
	fresh_board();
	cwr(0, EUSRV_CDMA_CR, CR_RUN | EUSRV_CDMA_CR_KEYHOLE_RD);
	kick(0);
	kick(0);
	ok(creg(0, EUSRV_CDMA_BAD_CNT) == 1 && creg(0, EUSRV_CDMA_BAD_LAST) == EUSRV_CDMA_BAD_CR,
	   "BAD: keyhole bit counted once");
	cwr(0, EUSRV_CDMA_CR, CR_RUN & ~EUSRV_CDMA_CR_THRESH_MASK);
	kick(0);
	ok(creg(0, EUSRV_CDMA_BAD_LAST) == EUSRV_CDMA_BAD_THRESH, "BAD: IRQThreshold 0");
	clear_sr(0, 0x1);
	ok(creg(0, EUSRV_CDMA_BAD_LAST) == EUSRV_CDMA_BAD_SR_CLR, "BAD: SR_CLR outside 14:12");
	sg_start(0, CR_RUN, 0);
	fill(0, 0, EUSRV_GA(0, BUF0), EUSRV_GA(0, BUF1), 8);
	set_tail(0, dga(0, 0) + 5);
	settle();
	ok(creg(0, EUSRV_CDMA_BAD_LAST) == EUSRV_CDMA_BAD_TAILDESC &&
	   dstatus(0, 0) == EUSRV_CDMA_ST_CMPLT, "BAD: TAILDESC bits 5:0 ignored and counted");
	cwr(0, EUSRV_CDMA_SIMPLE_SEQ, 7);
	kick(0);
	ok(creg(0, EUSRV_CDMA_BAD_LAST) == EUSRV_CDMA_BAD_SIMPLE, "BAD: simple request in SG mode");
}

/* On a fresh board, node 0's engine has a message waiting on node 1's full FIFO. */
static void message_waits_on_node1(void)
{
	fresh_board();
	fill_fifo(1);
	sg_start(0, CR_RUN, 0);
	fill_msg(0, 0, 1, 0xc000000000000001ULL);
	set_tail(0, dga(0, 0));
	settle();
}

static void test_detach(void)
{
	struct eusrv_mbox_fifo_entry e[EUSRV_MBOX_FIFO_DEPTH];

	fresh_board();
	sg_start(0, CR_RUN, 0);
	fill(0, 0, EUSRV_GA(0, BUF0), EUSRV_GA(1, BUF0), 4U << 20);
	set_tail(0, dga(0, 0));
	round_once();
	node_gone(1);
	settle();
	ok(dstatus(0, 0) == (EUSRV_CDMA_ST_CMPLT | EUSRV_CDMA_ST_DECERR) &&
	   (sr(0) & EUSRV_CDMA_SR_DMA_DEC_ERR), "detach: destination gone mid-copy -> DMADecErr");

	/* A message waiting on a FIFO whose node goes away. */
	message_waits_on_node1();
	node_gone(1);
	settle();
	ok(dstatus(0, 0) == (EUSRV_CDMA_ST_CMPLT | EUSRV_CDMA_ST_DECERR),
	   "detach: a message waiting on the FIFO of a node that goes -> DMADecErr");

	/* The engine's own node goes while its message waits. */
	message_waits_on_node1();
	node_gone(0);
	settle();
	ok(mb[1].dma_waiters == 0 && drv_rd32(mpage(1), EUSRV_MBOX_RX_STALLED) == 0,
	   "detach: the engine's node gone, the destination FIFO is released");
	ok(drain_fifo(1, e, EUSRV_MBOX_FIFO_DEPTH) == EUSRV_MBOX_FIFO_DEPTH, "detach: FIFO intact");
}

static uint64_t rnd_state = 88172645463325252ULL;

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

/* An address that is sometimes plausible, often not. */
static uint64_t rnd_addr(void)
{
	switch (rnd() % 6) {
	case 0: return rnd();
	case 1: return EUSRV_GA(rnd() % 4, rnd() % RAM);
	case 2: return dga(0, (unsigned int)(rnd() % RING_N));
	case 3: return EUSRV_MBOX_INBOX_GA(rnd() % 4);
	case 4: return EUSRV_GA(rnd() % 3, EUSRV_GA_BLOCKS + rnd() % 0x10000);
	default: return EUSRV_GA(0, RAM - rnd() % 128);
	}
}

static void test_hostile(void)
{
	unsigned int it, i;
	uint32_t off;

	fresh_board();
	for (it = 0; it < 20000; it++) {
		for (i = 0; i < RING_N; i++) {
			uint64_t *w = (uint64_t *)(void *)desc(0, i);

			if (rnd() % 3 == 0) {
				w[0] = rnd() % 2 ? rnd_addr() : dga(0, (unsigned int)(rnd() % RING_N));
				w[1] = rnd_addr();
				w[2] = rnd_addr();
				w[3] = rnd() % 4 ? (rnd() % 256) | (rnd() % 2 ? 0 : rnd() << 32) : rnd();
			}
		}
		switch (rnd() % 8) {
		case 0:
			cwr(0, EUSRV_CDMA_CR, (uint32_t)rnd() & ~EUSRV_CDMA_CR_RESET);
			break;
		case 1:
			off = (uint32_t)(rnd() % (EUSRV_PAGE_SIZE / 4)) * 4;
			cwr(0, off, (uint32_t)rnd());
			break;
		case 2:
			cwr(0, EUSRV_CDMA_CURDESC, (uint32_t)rnd_addr());
			break;
		case 3:
			if (rnd() % 16 == 0)
				reset_engine(0);
			break;
		default:
			set_tail(0, rnd() % 2 ? rnd_addr() : dga(0, (unsigned int)(rnd() % RING_N)));
			break;
		}
		kick(0);
		round_once();
		if (rnd() % 50 == 0)
			advance_us(rnd() % 600000);
		if (rnd() % 7 == 0) {
			struct eusrv_mbox_fifo_entry e[8];

			drain_fifo((unsigned int)(rnd() % 2), e, 8);
		}
	}
	ok(settle(), "hostile: 20000 rounds of garbage registers and descriptors, model still settles");
	ok(reset_engine(0), "hostile: the engine still resets");
	fresh_board();
	sg_start(0, CR_RUN, 0);
	pattern(ramp(0, BUF0), 100, 1);
	fill(0, 0, EUSRV_GA(0, BUF0), EUSRV_GA(1, BUF0), 100);
	set_tail(0, dga(0, 0));
	settle();
	ok(dstatus(0, 0) == EUSRV_CDMA_ST_CMPLT && !memcmp(ramp(0, BUF0), ramp(1, BUF0), 100),
	   "hostile: afterwards copies work");
}

int main(void)
{
	char dir[] = "/tmp/eusrv-test-cdma.XXXXXX";
	unsigned int n;

	log_set_level(LOG_ERR);
	if (!mkdtemp(dir))
		tap_bail("mkdtemp");
	if (board_init(&board, dir, NODES, RAM))
		tap_bail("board_init");
	now_us_v = 1000000;
	for (n = 0; n < NODES; n++) {
		vb_mbox_init(&mb[n], board_page(&board, n, EUSRV_PAGE_MBOX), n, &mops, NULL);
		vb_cdma_init(&cd[n], board_page(&board, n, EUSRV_PAGE_CDMA), &board, &mb[n], n,
			     &cops, NULL);
	}
	test_attach();
	test_chain();
	test_wrap();
	test_coalesce();
	test_large();
	test_mailbox();
	test_mailbox_nowait();
	test_mailbox_cond();
	test_errors();
	test_mixed_bases();
	test_simple();
	test_bad();
	test_detach();
	test_hostile();
	board_fini(&board, true);
	rmdir(dir);
	return tap_done();
}
