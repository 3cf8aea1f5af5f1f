// SPDX-License-Identifier: GPL-2.0
/*
 * eusrv CDMA driver: the node's Xilinx AXI CDMA (PG034) in scatter-gather
 * mode as the sockets-over-RDMA data mover (docs/hardware.md, "The AXI
 * CDMA block").
 *
 * One page holds a ring of 64 descriptors, linked in a circle once and for
 * all; a transfer takes one descriptor per data extent and one per mailbox
 * message, the message itself sitting in its descriptor's padding.
 * Submitters are serialised by a mutex; they append at the head, move
 * TAILDESC and reclaim completed transfers at the tail by reading the
 * descriptors' Cmplt bits in order, so the success path needs no
 * interrupt: the threshold and delay interrupts are on only while someone
 * sleeps (no free descriptor, eusrv_cdma_sync()), and a lone transfer
 * costs one doorbell and nothing else.  An error halts the engine; a work
 * item then fails the oldest transfer in flight (the one the error belongs
 * to: the engine works in order), resets the engine and restarts it at the
 * next transfer, so the transfers queued behind the failed one still run.
 */
#include <linux/atomic.h>
#include <linux/dma-mapping.h>
#include <linux/interrupt.h>
#include <linux/io.h>
/* 32-bit builds: the 64-bit diagnostic counter is read in two halves. */
#include <linux/io-64-nonatomic-lo-hi.h>
#include <linux/iopoll.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/mod_devicetable.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/platform_device.h>
#include <linux/property.h>
#include <linux/rwsem.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include <eusrv/board_hw.h>
#include <eusrv/cdma.h>
#include <eusrv/cdma_hw.h>
#include <eusrv/mbox.h>
#include <eusrv/vboard.h>
#include <uapi/eusrv/cdma_diag.h>

#include "cdma_chain.h"
#include "cdma_internal.h"

/* Coalescing: an interrupt per 16 descriptors or 100 us after going idle. */
#define CDMA_IRQ_THRESHOLD	16U
#define CDMA_IRQ_DELAY		100U
#define CDMA_CR_RUN		(EUSRV_CDMA_CR_SGMODE | EUSRV_CDMA_CR_ERR_IRQEN | \
				 (CDMA_IRQ_THRESHOLD << EUSRV_CDMA_CR_THRESH_SHIFT) | \
				 (CDMA_IRQ_DELAY << EUSRV_CDMA_CR_DELAY_SHIFT))
/* While someone sleeps on completions. */
#define CDMA_CR_DONE_IRQS	(EUSRV_CDMA_CR_IOC_IRQEN | EUSRV_CDMA_CR_DLY_IRQEN)
/*
 * Silicon resets in a few clocks; on the virtual board a loaded host may
 * hold the model up for a good part of a second (a probe failed at 200 ms
 * with three boards on two cores), and a failed reset loses the engine.
 */
#define CDMA_RESET_TIMEOUT_US	2000000U
/* Sleepers look again this often, in case an interrupt was lost. */
#define CDMA_WAIT_SLICE		msecs_to_jiffies(20)
/*
 * How long a mailbox write of the engine may wait on a full FIFO before it
 * is refused (MSG_CTRL): longer than a busy node takes to drain, far
 * shorter than the 500 ms a stalled one would hold every transfer.
 */
#define CDMA_MSG_MAXWAIT_MS	10U
/* How long a refused write's message may wait for the mailbox's queue. */
#define CDMA_RESEND_TIMEOUT_MS	1000U
/* How long unbinding lets queued transfers finish. */
#define CDMA_DRAIN_MS		2000U

enum cdma_counter {
	CDMA_XFERS,
	CDMA_COMPLETED,
	CDMA_FAILED,
	CDMA_CANCELLED,
	CDMA_RESTARTED,
	CDMA_RESETS,
	CDMA_RING_WAITS,
	CDMA_IRQS,
	CDMA_RESENT,
	CDMA_DOORBELLS,
	CDMA_IRQ_IOC,
	CDMA_IRQ_DLY,
	CDMA_IRQ_ERR,
	CDMA_NR_COUNTERS
};

struct cdma_dev {
	struct device *dev;
	void __iomem *regs;
	struct regmap *kick;		/* NULL on hardware without a kick */
	u32 kick_val;
	u32 node_id;
	u32 nodes;
	int irq;

	/* Under cdma_lock. */
	struct cdma_chain chain;
	bool dead;			/* being removed, or the reset failed */
	u32 last_err_sr;
	u64 last_err_desc;
	/* Transfers to fail, collected under the lock, called without it. */
	struct cdma_slot fail[CDMA_RING_SIZE];

	struct work_struct err_work;
	struct cdma_diag_bufs bufs;
	bool have_bufs;
	atomic64_t cnt[CDMA_NR_COUNTERS];
};

/* The bound engine, its ring and the submitters. */
static DEFINE_MUTEX(cdma_lock);
static struct cdma_dev *cdma_cur;
/* Sleepers; global so that they outlive an unbind. */
static DECLARE_WAIT_QUEUE_HEAD(cdma_wq);
static atomic_t cdma_events = ATOMIC_INIT(0);
/* Sleepers on completions (cdma_lock): the success interrupts are on. */
static unsigned int cdma_sleepers;
/* failed() callbacks taken off the ring but not yet returned. */
static atomic_t cdma_cb_pending = ATOMIC_INIT(0);
/* Held for reading while the diagnostics use the buffers. */
static DECLARE_RWSEM(cdma_bufs_sem);

static void cdma_count(struct cdma_dev *cd, enum cdma_counter c, u64 n)
{
	atomic64_add(n, &cd->cnt[c]);
}

static void cdma_wake(void)
{
	atomic_inc(&cdma_events);
	wake_up_all(&cdma_wq);
}

static void cdma_kick(struct cdma_dev *cd)
{
	cdma_count(cd, CDMA_DOORBELLS, 1);
	eusrv_vboard_kick(cd->kick, cd->kick_val);
}

static u32 cdma_cr_run(void)
{
	return CDMA_CR_RUN | (cdma_sleepers ? CDMA_CR_DONE_IRQS : 0);
}

/*
 * A sleeper comes (ON) or goes: the first turns the completion interrupts
 * on, the last off.  The sleeper looks at the ring again after this, so
 * nothing that completed before is missed.  cdma_lock held.
 */
static void cdma_sleeper(struct cdma_dev *cd, bool on)
{
	if (on ? cdma_sleepers++ : --cdma_sleepers)
		return;
	if (!cd || cd->dead)
		return;
	writel(cdma_cr_run(), cd->regs + EUSRV_CDMA_CR);
	cdma_kick(cd);
}

/* A descriptor pointer: MSB first, the low word (which acts) last. */
static void cdma_write_ptr(struct cdma_dev *cd, u32 off, u64 ga)
{
	writel(upper_32_bits(ga), cd->regs + off + 4);
	writel(lower_32_bits(ga), cd->regs + off);
}

static u64 cdma_read_ptr(struct cdma_dev *cd, u32 off)
{
	u32 lo = readl(cd->regs + off);

	return (u64)readl(cd->regs + off + 4) << 32 | lo;
}

static int cdma_hw_reset(struct cdma_dev *cd)
{
	u32 cr;
	int ret;

	writel(EUSRV_CDMA_CR_RESET, cd->regs + EUSRV_CDMA_CR);
	cdma_kick(cd);
	ret = readl_poll_timeout(cd->regs + EUSRV_CDMA_CR, cr,
				 !(cr & EUSRV_CDMA_CR_RESET), 20,
				 CDMA_RESET_TIMEOUT_US);
	if (ret)
		dev_err(cd->dev, "engine reset did not complete (CDMACR %#x)\n", cr);
	return ret;
}

/*
 * After a reset: SG mode (the reset cleared it, so this is PG034's
 * toggle), CURDESC at the oldest transfer still queued, TAILDESC at the
 * newest if there is one.  Lock held.
 */
static void cdma_hw_start(struct cdma_dev *cd)
{
	struct cdma_chain *c = &cd->chain;

	writel(cdma_cr_run(), cd->regs + EUSRV_CDMA_CR);
	/* The virtual board's: a FIFO full for MAXWAIT refuses (cdma_resend_refused). */
	if (cd->kick)
		writel(EUSRV_CDMA_MSG_NOWAIT |
		       CDMA_MSG_MAXWAIT_MS << EUSRV_CDMA_MSG_MAXWAIT_SHIFT,
		       cd->regs + EUSRV_CDMA_MSG_CTRL);
	cdma_kick(cd);
	cdma_write_ptr(cd, EUSRV_CDMA_CURDESC, cdma_desc_ga(c, c->tail));
	if (c->head != c->tail) {
		cdma_write_ptr(cd, EUSRV_CDMA_TAILDESC, cdma_desc_ga(c, c->head - 1));
		cdma_kick(cd);
	}
}

/* Free completed transfers; lock held. */
static enum cdma_chain_end cdma_reclaim(struct cdma_dev *cd)
{
	unsigned int freed = 0;
	enum cdma_chain_end r = cdma_chain_reclaim(&cd->chain, &freed);

	if (freed)
		cdma_count(cd, CDMA_COMPLETED, freed);
	/* The error interrupt may be on its way; make sure it is handled. */
	if (r == CDMA_RECLAIM_ERROR)
		schedule_work(&cd->err_work);
	return r;
}

/* Call the failed() callbacks collected in cd->fail[0..n-1]. */
static void cdma_call_failed(struct cdma_dev *cd, unsigned int n, int err)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (!cd->fail[i].failed)
			continue;
		cd->fail[i].failed(cd->fail[i].ctx, err);
		atomic_dec(&cdma_cb_pending);
	}
	if (n)
		cdma_wake();
}

/* Take every queued transfer off the ring into cd->fail[FROM..]; lock held. */
static unsigned int cdma_take_all_from(struct cdma_dev *cd, unsigned int from)
{
	unsigned int n = from;

	while (n < CDMA_RING_SIZE && cdma_chain_pop(&cd->chain, &cd->fail[n])) {
		if (cd->fail[n].failed)
			atomic_inc(&cdma_cb_pending);
		n++;
	}
	return n - from;
}

static unsigned int cdma_queued(const struct cdma_chain *c)
{
	unsigned int n = 0;
	u32 i;

	for (i = c->tail; i != c->head; i++)
		if (c->slot[cdma_slot_of(i)].nr)
			n++;
	return n;
}

/*
 * The engine halted on a mailbox write the destination refused (its FIFO
 * full for CDMA_MSG_MAXWAIT_MS; or its mailbox disabled), at the oldest
 * transfer's first message: the transfer's data has landed (its data
 * descriptors come first, and completed).  Its messages from there go by
 * the mailbox instead, which keeps a full FIFO's messages until it has
 * room, and the transfer is done; one engine stays no longer behind one
 * busy node than a reset takes.  False (the transfer fails, as on any
 * error) if that is not the halt, or a message cannot be queued.  Lock
 * held.
 */
static bool cdma_resend_refused(struct cdma_dev *cd, u32 sr)
{
	struct cdma_chain *c = &cd->chain;
	struct cdma_slot done;
	unsigned int node;
	int i, n, ret;
	u64 msg;

	if ((sr & EUSRV_CDMA_SR_ERR_ALL) != EUSRV_CDMA_SR_DMA_SLV_ERR)
		return false;
	i = cdma_chain_refused_msg(c, cd->last_err_desc);
	if (i < 0) {
		dev_warn_ratelimited(cd->dev, "slave error at %#llx: not a refused message of the oldest transfer\n",
				     cd->last_err_desc);
		return false;
	}
	n = c->slot[cdma_slot_of(c->tail)].nr;
	for (; i < n; i++) {
		/* The mark is not stored: the resent messages say it all. */
		if (!cdma_chain_msg_of(c, c->tail + i, &node, &msg))
			continue;
		ret = eusrv_mbox_send_wait(node, msg,
					   msecs_to_jiffies(CDMA_RESEND_TIMEOUT_MS));
		if (ret) {
			dev_warn_ratelimited(cd->dev, "a refused message to node %u could not be resent: error %d\n",
					     node, ret);
			return false;
		}
		cdma_count(cd, CDMA_RESENT, 1);
	}
	cdma_chain_pop(c, &done);
	cdma_count(cd, CDMA_COMPLETED, 1);
	return true;
}

/*
 * CDMASR as the engine has it, for the error work.  Our write-1-to-clear
 * reads back as itself until the virtual board applies it, without
 * SGIncld (always 1 in scatter-gather mode): read on until the engine's
 * own word is there, or the error bits would seem gone and the failed
 * transfer be left waiting for an interrupt that already came.
 */
static u32 cdma_sr_settled(struct cdma_dev *cd)
{
	u32 sr;

	readl_poll_timeout(cd->regs + EUSRV_CDMA_SR, sr,
			   sr & EUSRV_CDMA_SR_SGINCLD, 10, 100 * USEC_PER_MSEC);
	return sr;
}

static void cdma_err_work(struct work_struct *work)
{
	struct cdma_dev *cd = container_of(work, struct cdma_dev, err_work);
	unsigned int nfail = 0;
	enum cdma_chain_end r;
	u32 sr;

	mutex_lock(&cdma_lock);
	if (cd->dead)
		goto unlock;
	sr = cdma_sr_settled(cd);
	r = cdma_chain_reclaim(&cd->chain, NULL);
	/*
	 * A stale request; or the engine wrote a descriptor's error before
	 * it published the halt (CDMASR, CURDESC): its interrupt follows.
	 */
	if (!(sr & EUSRV_CDMA_SR_ERR_ALL) &&
	    (r != CDMA_RECLAIM_ERROR || cdma_chain_tail_dma_error(&cd->chain)))
		goto unlock;
	cd->last_err_sr = sr;
	cd->last_err_desc = cdma_read_ptr(cd, EUSRV_CDMA_CURDESC);
	/* The engine works in order: the error is the oldest transfer's. */
	if (r != CDMA_RECLAIM_EMPTY && cdma_resend_refused(cd, sr)) {
		dev_dbg_ratelimited(cd->dev, "a mailbox write refused: sent by the mailbox, restarting\n");
	} else if (r != CDMA_RECLAIM_EMPTY &&
		   cdma_chain_pop(&cd->chain, &cd->fail[0])) {
		if (cd->fail[0].failed)
			atomic_inc(&cdma_cb_pending);
		nfail = 1;
		cdma_count(cd, CDMA_FAILED, 1);
	}
	dev_warn_ratelimited(cd->dev, "engine error (CDMASR %#x, descriptor %#llx): %u transfer failed, restarting\n",
			     sr, cd->last_err_desc, nfail);
	if (cdma_hw_reset(cd)) {
		unsigned int rest;

		/* No engine to run the rest on. */
		cd->dead = true;
		rest = cdma_take_all_from(cd, nfail);
		cdma_count(cd, CDMA_FAILED, rest);
		nfail += rest;
	} else {
		cdma_count(cd, CDMA_RESETS, 1);
		cdma_count(cd, CDMA_RESTARTED, cdma_queued(&cd->chain));
		cdma_hw_start(cd);
	}
unlock:
	mutex_unlock(&cdma_lock);
	cdma_call_failed(cd, nfail, -EIO);
	cdma_wake();
}

static irqreturn_t cdma_irq(int irq, void *data)
{
	struct cdma_dev *cd = data;
	u32 sr = readl(cd->regs + EUSRV_CDMA_SR);
	u32 ack = sr & EUSRV_CDMA_SR_IRQ_ALL;

	if (!ack)
		return IRQ_NONE;
	cdma_count(cd, CDMA_IRQS, 1);
	if (sr & EUSRV_CDMA_SR_IOC_IRQ)
		cdma_count(cd, CDMA_IRQ_IOC, 1);
	if (sr & EUSRV_CDMA_SR_DLY_IRQ)
		cdma_count(cd, CDMA_IRQ_DLY, 1);
	if (sr & EUSRV_CDMA_SR_ERR_IRQ)
		cdma_count(cd, CDMA_IRQ_ERR, 1);
	/*
	 * Write 1 to clear (PG034); the virtual board learns of it by the
	 * kick.  Error bits 10:4 stay until the reset: the work item looks
	 * at them.
	 */
	writel(ack, cd->regs + EUSRV_CDMA_SR);
	cdma_kick(cd);
	if (sr & EUSRV_CDMA_SR_ERR_IRQ)
		schedule_work(&cd->err_work);
	cdma_wake();
	return IRQ_HANDLED;
}

/* Put checked transfer X (N descriptors) on the ring and start it; lock held. */
static void cdma_queue(struct cdma_dev *cd, const struct eusrv_cdma_xfer *x,
		       unsigned int n)
{
	u32 last = cdma_chain_fill(&cd->chain, x, n);

	cdma_count(cd, CDMA_XFERS, 1);
	/* A halted engine ignores TAILDESC; the error work restarts it. */
	if (readl(cd->regs + EUSRV_CDMA_SR) & EUSRV_CDMA_SR_ERR_ALL)
		return;
	/* writel orders the descriptor stores before it. */
	cdma_write_ptr(cd, EUSRV_CDMA_TAILDESC, cdma_desc_ga(&cd->chain, last));
	cdma_kick(cd);
}

/**
 * eusrv_cdma_submit() - queue a transfer
 * @x: the transfer, copied
 * @timeout: the longest wait for free descriptors, in jiffies
 *
 * A transfer needs at least one extent, store or message; extents and
 * stores must lie in RAM (node-local address + length at most
 * EUSRV_GA_BLOCKS) of a node of the board; messages must not be of type 0.
 * If it does not complete, @x->failed gets -EIO (the engine reported an
 * error for the transfer) or -ENODEV (the engine went away with the
 * transfer queued); it must not call eusrv_cdma_sync().
 *
 * Context: process context; may sleep up to @timeout.
 * Return: 0; -EINVAL for a bad extent, store or message or a negative
 * @timeout; -ETIMEDOUT when no descriptors came free; -ENODEV when no engine
 * is bound or it is being removed.  (Engine errors reach failed(), never
 * the caller.)
 */
int eusrv_cdma_submit(const struct eusrv_cdma_xfer *x, long timeout)
{
	unsigned long deadline = jiffies + timeout;
	bool waited = false;
	struct cdma_dev *cd;
	int ret, n, seen;
	long left;

	might_sleep();
	if (!x || timeout < 0)
		return -EINVAL;
	for (;;) {
		seen = atomic_read(&cdma_events);
		mutex_lock(&cdma_lock);
		cd = cdma_cur;
		if (!cd || cd->dead) {
			ret = -ENODEV;
			break;
		}
		n = cdma_xfer_check(x, cd->nodes);
		if (n < 0) {
			ret = n;
			break;
		}
		cdma_reclaim(cd);
		if (cdma_chain_free(&cd->chain) >= (u32)n) {
			cdma_queue(cd, x, n);
			ret = 0;
			break;
		}
		if (!waited) {
			/* Completions interrupt from now on: look once more first. */
			cdma_count(cd, CDMA_RING_WAITS, 1);
			cdma_sleeper(cd, true);
			waited = true;
			mutex_unlock(&cdma_lock);
			continue;
		}
		mutex_unlock(&cdma_lock);
		left = (long)(deadline - jiffies);
		if (left <= 0) {
			mutex_lock(&cdma_lock);
			ret = -ETIMEDOUT;
			break;
		}
		wait_event_timeout(cdma_wq,
				   atomic_read(&cdma_events) != seen,
				   min(left, (long)CDMA_WAIT_SLICE));
	}
	if (waited)
		cdma_sleeper(cdma_cur, false);
	mutex_unlock(&cdma_lock);
	return ret;
}
EXPORT_SYMBOL_GPL(eusrv_cdma_submit);

/**
 * eusrv_cdma_sync() - wait for the transfers of a context
 * @ctx: the ctx of the transfers
 *
 * Waits until no transfer with @ctx is in flight; no failed() callback for
 * @ctx runs after it returns.
 *
 * Context: process context; sleeps.
 */
void eusrv_cdma_sync(void *ctx)
{
	bool busy, waited = false;
	struct cdma_dev *cd;
	int seen;

	might_sleep();
	for (;;) {
		seen = atomic_read(&cdma_events);
		mutex_lock(&cdma_lock);
		cd = cdma_cur;
		busy = false;
		if (cd) {
			cdma_reclaim(cd);
			busy = cdma_chain_has_ctx(&cd->chain, ctx);
		}
		if (!busy && !atomic_read(&cdma_cb_pending))
			break;
		if (!waited) {
			/* As in eusrv_cdma_submit(): on, then look again. */
			cdma_sleeper(cd, true);
			waited = true;
			mutex_unlock(&cdma_lock);
			continue;
		}
		mutex_unlock(&cdma_lock);
		wait_event_timeout(cdma_wq,
				   atomic_read(&cdma_events) != seen,
				   CDMA_WAIT_SLICE);
	}
	if (waited)
		cdma_sleeper(cdma_cur, false);
	mutex_unlock(&cdma_lock);
}
EXPORT_SYMBOL_GPL(eusrv_cdma_sync);

/**
 * eusrv_cdma_node_id() - this node's number
 *
 * Context: process context.
 * Return: the number, or -ENODEV while no engine is bound.
 */
int eusrv_cdma_node_id(void)
{
	int ret;

	mutex_lock(&cdma_lock);
	ret = cdma_cur ? (int)cdma_cur->node_id : -ENODEV;
	mutex_unlock(&cdma_lock);
	return ret;
}
EXPORT_SYMBOL_GPL(eusrv_cdma_node_id);

/**
 * eusrv_cdma_get_crossings() - read the engine's crossing counters
 * @x: where to store them
 *
 * Context: process context.
 * Return: 0, or -ENODEV (@x untouched) while no engine is bound.
 */
int eusrv_cdma_get_crossings(struct eusrv_cdma_crossings *x)
{
	struct cdma_dev *cd;

	mutex_lock(&cdma_lock);
	cd = cdma_cur;
	if (cd) {
		x->doorbells = atomic64_read(&cd->cnt[CDMA_DOORBELLS]);
		x->irqs = atomic64_read(&cd->cnt[CDMA_IRQS]);
		x->irq_ioc = atomic64_read(&cd->cnt[CDMA_IRQ_IOC]);
		x->irq_dly = atomic64_read(&cd->cnt[CDMA_IRQ_DLY]);
		x->irq_err = atomic64_read(&cd->cnt[CDMA_IRQ_ERR]);
	}
	mutex_unlock(&cdma_lock);
	return cd ? 0 : -ENODEV;
}
EXPORT_SYMBOL_GPL(eusrv_cdma_get_crossings);

/**
 * eusrv_cdma_nodes() - the nodes on the board, for the tester (eusrv_cdma_diag)
 *
 * Context: process context; sleeps.
 * Return: the number of nodes, or 0 while no engine is bound.
 */
unsigned int eusrv_cdma_nodes(void)
{
	unsigned int n;

	mutex_lock(&cdma_lock);
	n = cdma_cur ? cdma_cur->nodes : 0;
	mutex_unlock(&cdma_lock);
	return n;
}
EXPORT_SYMBOL_GPL(eusrv_cdma_nodes);

/**
 * eusrv_cdma_get_bufs() - the bound engine's buffers for the tester
 * @b: filled in
 *
 * The buffers stay until the matching eusrv_cdma_put_bufs(): an engine
 * that unbinds meanwhile waits for it.
 *
 * Context: process context; sleeps.
 * Return: 0, or -ENODEV without an engine or buffers.
 */
int eusrv_cdma_get_bufs(struct cdma_diag_bufs *b)
{
	int ret = -ENODEV;

	down_read(&cdma_bufs_sem);
	mutex_lock(&cdma_lock);
	if (cdma_cur && !cdma_cur->dead && cdma_cur->have_bufs) {
		*b = cdma_cur->bufs;
		ret = 0;
	}
	mutex_unlock(&cdma_lock);
	if (ret)
		up_read(&cdma_bufs_sem);
	return ret;
}
EXPORT_SYMBOL_GPL(eusrv_cdma_get_bufs);

/**
 * eusrv_cdma_put_bufs() - done with what eusrv_cdma_get_bufs() gave
 *
 * Context: process context.
 */
void eusrv_cdma_put_bufs(void)
{
	up_read(&cdma_bufs_sem);
}
EXPORT_SYMBOL_GPL(eusrv_cdma_put_bufs);

/**
 * eusrv_cdma_get_stats() - the engine's and the driver's counters
 * @st: filled in
 *
 * For the tester (eusrv_cdma_diag).
 *
 * Context: process context; sleeps.
 * Return: 0, or -ENODEV while no engine is bound.
 */
int eusrv_cdma_get_stats(struct eusrv_cdma_stats *st)
{
	struct cdma_dev *cd;

	mutex_lock(&cdma_lock);
	cd = cdma_cur;
	if (!cd) {
		mutex_unlock(&cdma_lock);
		return -ENODEV;
	}
	st->node_id = cd->node_id;
	st->nodes = cd->nodes;
	st->sr = readl(cd->regs + EUSRV_CDMA_SR);
	if (cd->kick) {
		/* The virtual board's counters; silicon has none. */
		st->hw_bytes = lo_hi_readq(cd->regs + EUSRV_CDMA_BYTES);
		st->hw_descs = readl(cd->regs + EUSRV_CDMA_DESC_CNT);
		st->hw_msgs = readl(cd->regs + EUSRV_CDMA_MSG_CNT);
		st->hw_errors = readl(cd->regs + EUSRV_CDMA_ERR_CNT);
		st->hw_waits = readl(cd->regs + EUSRV_CDMA_WAIT_CNT);
		st->hw_refused = readl(cd->regs + EUSRV_CDMA_REFUSED_CNT);
		st->hw_bad_cnt = readl(cd->regs + EUSRV_CDMA_BAD_CNT);
		st->hw_bad_last = readl(cd->regs + EUSRV_CDMA_BAD_LAST);
	}
	st->last_err_sr = cd->last_err_sr;
	st->last_err_desc = cd->last_err_desc;
	st->xfers = atomic64_read(&cd->cnt[CDMA_XFERS]);
	st->completed = atomic64_read(&cd->cnt[CDMA_COMPLETED]);
	st->failed = atomic64_read(&cd->cnt[CDMA_FAILED]);
	st->cancelled = atomic64_read(&cd->cnt[CDMA_CANCELLED]);
	st->restarted = atomic64_read(&cd->cnt[CDMA_RESTARTED]);
	st->resets = atomic64_read(&cd->cnt[CDMA_RESETS]);
	st->ring_waits = atomic64_read(&cd->cnt[CDMA_RING_WAITS]);
	st->irqs = atomic64_read(&cd->cnt[CDMA_IRQS]);
	st->resent = atomic64_read(&cd->cnt[CDMA_RESENT]);
	mutex_unlock(&cdma_lock);
	return 0;
}
EXPORT_SYMBOL_GPL(eusrv_cdma_get_stats);

/**
 * eusrv_cdma_reset_stats() - zero the driver's counters, for the tester (eusrv_cdma_diag)
 *
 * Context: process context; sleeps.
 */
void eusrv_cdma_reset_stats(void)
{
	unsigned int i;

	mutex_lock(&cdma_lock);
	for (i = 0; cdma_cur && i < CDMA_NR_COUNTERS; i++)
		atomic64_set(&cdma_cur->cnt[i], 0);
	mutex_unlock(&cdma_lock);
}
EXPORT_SYMBOL_GPL(eusrv_cdma_reset_stats);

static int cdma_read_props(struct cdma_dev *cd)
{
	struct device *dev = cd->dev;
	int id, ret;

	cd->nodes = eusrv_mbox_nodes() ?: EUSRV_MAX_NODES;
	ret = eusrv_node_props(dev, &cd->node_id, &cd->nodes);
	if (ret != -ENOENT)
		return ret;
	/* A device tree may leave it to the mailbox. */
	id = eusrv_mbox_node_id();
	if (id < 0)
		return dev_err_probe(dev, -EPROBE_DEFER, "no eusrv,node-id and no mailbox yet\n");
	cd->node_id = id;
	return eusrv_node_check(dev, cd->node_id, cd->nodes);
}

static void cdma_alloc_diag_bufs(struct cdma_dev *cd)
{
	dma_addr_t tx, rx;

	cd->bufs.tx = dmam_alloc_coherent(cd->dev, CDMA_DIAG_TX_SIZE, &tx,
					  GFP_KERNEL | __GFP_NOWARN);
	cd->bufs.rx = dmam_alloc_coherent(cd->dev, CDMA_DIAG_RX_SIZE, &rx,
					  GFP_KERNEL | __GFP_NOWARN);
	if (!cd->bufs.tx || !cd->bufs.rx) {
		dev_warn(cd->dev, "no memory for the diagnostic buffers: /dev/eusrv_cdma copies disabled\n");
		return;
	}
	cd->bufs.tx_ga = EUSRV_GA(cd->node_id, tx);
	cd->bufs.rx_ga = EUSRV_GA(cd->node_id, rx);
	cd->have_bufs = true;
}

static int cdma_probe(struct platform_device *pdev)
{
	struct device *dev = &pdev->dev;
	struct eusrv_cdma_desc *ring;
	struct cdma_dev *cd;
	dma_addr_t ring_dma;
	int ret;

	cd = devm_kzalloc(dev, sizeof(*cd), GFP_KERNEL);
	if (!cd)
		return -ENOMEM;
	cd->dev = dev;
	INIT_WORK(&cd->err_work, cdma_err_work);

	ret = cdma_read_props(cd);
	if (ret)
		return ret;
	cd->regs = devm_platform_ioremap_resource(pdev, 0);
	if (IS_ERR(cd->regs))
		return dev_err_probe(dev, PTR_ERR(cd->regs), "cannot map the registers\n");
	eusrv_vboard_get_kick(pdev, &cd->kick, &cd->kick_val);
	if (cd->kick && readl(cd->regs + EUSRV_CDMA_ID) != EUSRV_CDMA_ID_VALUE)
		return dev_err_probe(dev, -ENODEV, "not a CDMA block (id %#x)\n",
				     readl(cd->regs + EUSRV_CDMA_ID));
	cd->irq = platform_get_irq(pdev, 0);
	if (cd->irq < 0)
		return cd->irq;
	/* Node-local addresses are 40 bits wide (bits 47:40: the node). */
	ret = dma_coerce_mask_and_coherent(dev, DMA_BIT_MASK(EUSRV_GA_NODE_SHIFT));
	if (ret)
		return dev_err_probe(dev, ret, "no usable DMA mask\n");
	ring = dmam_alloc_coherent(dev, CDMA_RING_BYTES, &ring_dma, GFP_KERNEL);
	if (!ring)
		return -ENOMEM;
	if (ring_dma & (EUSRV_CDMA_DESC_ALIGN - 1))
		return dev_err_probe(dev, -EINVAL, "descriptor ring at %pad not aligned\n",
				     &ring_dma);
	cdma_chain_init(&cd->chain, ring, EUSRV_GA(cd->node_id, ring_dma));
	cdma_alloc_diag_bufs(cd);

	ret = cdma_hw_reset(cd);
	if (ret)
		return dev_err_probe(dev, ret, "cannot reset the engine\n");
	ret = devm_request_irq(dev, cd->irq, cdma_irq, 0, dev_name(dev), cd);
	if (ret)
		return dev_err_probe(dev, ret, "cannot get IRQ %d\n", cd->irq);

	mutex_lock(&cdma_lock);
	if (cdma_cur) {
		ret = dev_err_probe(dev, -EBUSY, "a node has one CDMA engine, and one is bound\n");
	} else {
		cdma_hw_start(cd);
		platform_set_drvdata(pdev, cd);
		cdma_cur = cd;
	}
	mutex_unlock(&cdma_lock);
	if (ret)
		return ret;
	dev_info(dev, "node %u of %u, %u descriptors, %s\n", cd->node_id, cd->nodes,
		 CDMA_RING_SIZE, cd->have_bufs ? "diagnostics on" : "no diagnostics");
	return 0;
}

static bool cdma_idle(struct cdma_dev *cd)
{
	bool idle;

	mutex_lock(&cdma_lock);
	idle = cdma_chain_reclaim(&cd->chain, NULL) != CDMA_RECLAIM_BUSY;
	mutex_unlock(&cdma_lock);
	return idle;
}

static int cdma_remove(struct platform_device *pdev)
{
	struct cdma_dev *cd = platform_get_drvdata(pdev);
	unsigned int n;

	/* The diagnostics are done with the buffers... */
	down_write(&cdma_bufs_sem);
	mutex_lock(&cdma_lock);
	cd->dead = true;		/* ...and nothing new is queued. */
	mutex_unlock(&cdma_lock);
	cancel_work_sync(&cd->err_work);
	/* Queued transfers get a chance to finish. */
	for (n = 0; n < CDMA_DRAIN_MS / 20 && !cdma_idle(cd); n++)
		msleep(20);

	mutex_lock(&cdma_lock);
	/* Stop the engine before its ring and buffers are freed. */
	cdma_hw_reset(cd);
	devm_free_irq(cd->dev, cd->irq, cd);
	n = cdma_take_all_from(cd, 0);
	cdma_count(cd, CDMA_CANCELLED, n);
	cdma_cur = NULL;
	mutex_unlock(&cdma_lock);
	cancel_work_sync(&cd->err_work);
	up_write(&cdma_bufs_sem);
	cdma_call_failed(cd, n, -ENODEV);
	cdma_wake();
	return 0;
}

static const struct of_device_id cdma_of_match[] = {
	{ .compatible = "eusrv,axi-cdma-1.00.a" },
	{ }
};
MODULE_DEVICE_TABLE(of, cdma_of_match);

static const struct platform_device_id cdma_ids[] = {
	{ .name = "eusrv-cdma" },
	{ }
};
MODULE_DEVICE_TABLE(platform, cdma_ids);

static struct platform_driver cdma_driver = {
	.driver = {
		.name = "eusrv-cdma",
		.of_match_table = cdma_of_match,
	},
	.id_table = cdma_ids,
	.probe = cdma_probe,
	.remove = cdma_remove,
};

module_platform_driver(cdma_driver);

MODULE_DESCRIPTION("EUROSERVER node AXI CDMA engine");
MODULE_LICENSE("GPL");
