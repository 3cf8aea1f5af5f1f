// SPDX-License-Identifier: GPL-2.0
/*
 * eusrv mailbox driver: the node's inbound FIFO of 64-bit messages and its
 * outbound (posted store) queue, as docs/hardware.md section 3 specifies.
 *
 * Received messages are handed, in hard-IRQ context, to the handler
 * registered for their type; senders queue messages from any context.
 * Every store is posted NOWAIT: a full destination FIFO refuses it at once
 * rather than holding up the stores to every other node behind it, and
 * the driver keeps the refused messages, and the ones after them for that
 * destination, in order until the block says the FIFO has room.
 * Completed stores are reaped when the next one is posted: a completion
 * interrupts (TXDONE) only while a sender waits for queue space, so a
 * message costs its sender one doorbell and no interrupt.  A
 * node has one mailbox, so the bound instance is a module-wide singleton
 * that the API reaches through RCU, which also makes unbinding safe while
 * other modules keep calling in.
 */
#include <linux/atomic.h>
#include <linux/interrupt.h>
#include <linux/io.h>
/*
 * Only for 32-bit builds: there 64-bit accesses are split, which is fine
 * for ring entries (published and consumed through the u32 counters) and
 * tears nothing but the diagnostic totals.
 */
#include <linux/io-64-nonatomic-lo-hi.h>
#include <linux/irq_work.h>
#include <linux/jiffies.h>
#include <linux/mod_devicetable.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/platform_device.h>
#include <linux/property.h>
#include <linux/rcupdate.h>
#include <linux/spinlock.h>
#include <linux/stddef.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include <eusrv/board_hw.h>
#include <eusrv/mbox.h>
#include <eusrv/vboard.h>
#include <uapi/eusrv/mbox_diag.h>

#include "mbox_backlog.h"
#include "mbox_internal.h"
#include "mbox_ring.h"

#define MBOX_FIFO_MSG		offsetof(struct eusrv_mbox_fifo_entry, msg)
#define MBOX_FIFO_SRC		offsetof(struct eusrv_mbox_fifo_entry, src_node)
#define MBOX_TXQ_ADDR		offsetof(struct eusrv_mbox_txq_entry, addr)
#define MBOX_TXQ_DATA		offsetof(struct eusrv_mbox_txq_entry, data)
#define MBOX_TXQ_STATUS		offsetof(struct eusrv_mbox_txq_entry, status)
#define MBOX_TXQ_FLAGS		offsetof(struct eusrv_mbox_txq_entry, flags)

#define MBOX_CTRL_ON	(EUSRV_MBOX_CTRL_EN | EUSRV_MBOX_CTRL_ENQ_IE | \
			 EUSRV_MBOX_CTRL_FULL_IE | EUSRV_MBOX_CTRL_ERR_IE | \
			 EUSRV_MBOX_CTRL_ROOM_IE)

/* The driver's counters (the block keeps its own in its registers). */
enum mbox_counter {
	MBOX_RX_MSGS,
	MBOX_RX_UNHANDLED,
	MBOX_RX_INVALID,
	MBOX_RX_BAD_SRC,
	MBOX_RX_RESYNC,
	MBOX_TX_MSGS,
	MBOX_TX_BUSY,
	MBOX_TX_FULL,
	MBOX_TX_DECERR,
	MBOX_TX_DISABLED,
	MBOX_TX_BAD_STATUS,
	MBOX_TX_REFUSED,
	MBOX_TX_HELD,
	MBOX_TX_RESENT,
	MBOX_ROOM,
	MBOX_NR_COUNTERS
};

/* The crossings (struct eusrv_mbox_crossings); never reset. */
enum mbox_xcounter {
	MBOX_X_DOORBELLS,
	MBOX_X_IRQS,
	MBOX_X_IRQ_RX,
	MBOX_X_IRQ_TXDONE,
	MBOX_X_IRQ_ROOM,
	MBOX_X_IRQ_NONE,
	MBOX_NR_X
};

/* What one pass of the interrupt's work found. */
#define MBOX_DID_RX		BIT(0)
#define MBOX_DID_TXDONE		BIT(1)
#define MBOX_DID_ROOM		BIT(2)

struct mbox_dev {
	struct device *dev;
	void __iomem *regs;
	struct regmap *kick;		/* NULL on hardware without a kick */
	u32 kick_val;
	u32 node_id;
	u32 nodes;

	spinlock_t rx_lock;		/* inbound FIFO consumer, pause */
	u32 rx_cons;
	bool paused;
	struct delayed_work resume;
	/* Runs the interrupt handler's work when no interrupt will come. */
	struct irq_work poll;

	spinlock_t tx_lock;		/* outbound queue producer and reaper */
	u32 tx_prod;
	u32 tx_reaped;
	struct mbox_dest *dest;		/* [nodes] */
	u64 backlogged;			/* bit n: dest[n] keeps messages */
	u32 held;			/* messages kept in all backlogs */
	u32 room_cnt;			/* ROOM_CNT last seen */
	unsigned int tx_waiters;	/* senders that want TXDONE interrupts */
	bool tx_moved;			/* a sender reaped or posted: wake waiters */
	u32 ctrl;			/* CTRL as last written */

	atomic64_t cnt[MBOX_NR_COUNTERS];
	atomic64_t xcnt[MBOX_NR_X];
};

static struct mbox_dev __rcu *mbox_cur;
static DEFINE_MUTEX(mbox_bind_lock);	/* changes of mbox_cur */
static const struct eusrv_mbox_handler __rcu *mbox_handlers[EUSRV_MSG_NR_TYPES];
static DEFINE_MUTEX(mbox_handlers_lock);
/* Senders waiting for queue space; global so that it outlives an unbind. */
static DECLARE_WAIT_QUEUE_HEAD(mbox_tx_wq);

static void mbox_count(struct mbox_dev *mb, enum mbox_counter c)
{
	atomic64_inc(&mb->cnt[c]);
}

static void mbox_kick(struct mbox_dev *mb)
{
	atomic64_inc(&mb->xcnt[MBOX_X_DOORBELLS]);
	eusrv_vboard_kick(mb->kick, mb->kick_val);
}

static void __iomem *mbox_fifo_entry(struct mbox_dev *mb, u32 counter)
{
	return mb->regs + EUSRV_MBOX_FIFO +
	       mbox_ring_slot(counter, EUSRV_MBOX_FIFO_DEPTH) *
	       sizeof(struct eusrv_mbox_fifo_entry);
}

static void __iomem *mbox_txq_entry(struct mbox_dev *mb, u32 counter)
{
	return mb->regs + EUSRV_MBOX_TXQ +
	       mbox_ring_slot(counter, EUSRV_MBOX_TXQ_DEPTH) *
	       sizeof(struct eusrv_mbox_txq_entry);
}

/**
 * eusrv_mbox_register() - receive the messages of one type
 * @type: the message type, 1..EUSRV_MSG_NR_TYPES-1
 * @h: its handler, with an rx callback
 *
 * Works whether or not a mailbox is bound; handlers stay across rebinds.
 *
 * Context: process context.
 * Return: 0, -EINVAL for a bad type or a handler without rx, or -EBUSY if
 * the type has a handler already.
 */
int eusrv_mbox_register(unsigned int type, const struct eusrv_mbox_handler *h)
{
	int ret = 0;

	if (type == EUSRV_MSG_T_INVALID || type >= EUSRV_MSG_NR_TYPES || !h || !h->rx)
		return -EINVAL;
	mutex_lock(&mbox_handlers_lock);
	if (rcu_access_pointer(mbox_handlers[type]))
		ret = -EBUSY;
	else
		rcu_assign_pointer(mbox_handlers[type], h);
	mutex_unlock(&mbox_handlers_lock);
	return ret;
}
EXPORT_SYMBOL_GPL(eusrv_mbox_register);

/**
 * eusrv_mbox_unregister() - stop receiving the messages of one type
 * @type: the type given to eusrv_mbox_register()
 *
 * After this returns no callback of the type's handler runs any more.
 *
 * Context: process context; waits for an RCU grace period.
 */
void eusrv_mbox_unregister(unsigned int type)
{
	if (type >= EUSRV_MSG_NR_TYPES)
		return;
	mutex_lock(&mbox_handlers_lock);
	RCU_INIT_POINTER(mbox_handlers[type], NULL);
	mutex_unlock(&mbox_handlers_lock);
	/* Callbacks run in RCU read-side sections in hard-IRQ context. */
	synchronize_rcu();
}
EXPORT_SYMBOL_GPL(eusrv_mbox_unregister);

static void mbox_dispatch(struct mbox_dev *mb, unsigned int src, u64 msg)
{
	unsigned int type = eusrv_msg_type(msg);
	const struct eusrv_mbox_handler *h;
	bool handled = false;

	/* The interconnect stamps the source; still, nothing is trusted. */
	if (src >= mb->nodes) {
		mbox_count(mb, MBOX_RX_BAD_SRC);
		dev_warn_ratelimited(mb->dev, "message %#llx from impossible node %u dropped\n",
				     msg, src);
		return;
	}
	if (type == EUSRV_MSG_T_INVALID) {
		mbox_count(mb, MBOX_RX_INVALID);
		dev_warn_ratelimited(mb->dev, "message %#llx of invalid type 0 from node %u dropped\n",
				     msg, src);
		return;
	}
	rcu_read_lock();
	h = rcu_dereference(mbox_handlers[type]);
	if (h) {
		h->rx(h->ctx, src, msg);
		handled = true;
	}
	rcu_read_unlock();
	if (handled) {
		mbox_count(mb, MBOX_RX_MSGS);
	} else {
		mbox_count(mb, MBOX_RX_UNHANDLED);
		dev_warn_ratelimited(mb->dev, "message %#llx from node %u dropped: no handler for type %u\n",
				     msg, src, type);
	}
}

/* Hand every inbound entry to its handler; rx_lock held, IRQs off. */
static bool mbox_drain_rx(struct mbox_dev *mb)
{
	/* readl orders this load before the loads of the entries (acquire). */
	u32 prod = readl(mb->regs + EUSRV_MBOX_RX_PROD);
	u32 cons = mb->rx_cons;

	if (!mbox_ring_sane(prod, cons, EUSRV_MBOX_FIFO_DEPTH)) {
		/* Broken hardware: skip rather than hand garbage to users. */
		mbox_count(mb, MBOX_RX_RESYNC);
		dev_err_ratelimited(mb->dev, "inbound FIFO producer %u impossible for consumer %u: skipping to it\n",
				    prod, cons);
		cons = prod;
	}
	while (cons != prod) {
		void __iomem *e = mbox_fifo_entry(mb, cons);
		u64 msg = readq(e + MBOX_FIFO_MSG);
		unsigned int src = readw(e + MBOX_FIFO_SRC);

		cons++;
		mbox_dispatch(mb, src, msg);
	}
	if (cons == mb->rx_cons)
		return false;
	mb->rx_cons = cons;
	writel(cons, mb->regs + EUSRV_MBOX_RX_CONS);
	/*
	 * Pairs with the model, which sets RX_STALLED, fences and re-reads
	 * RX_CONS before it lets a store wait: either it sees our RX_CONS or
	 * we see its RX_STALLED and kick it to retry.
	 */
	mb();
	if (readl(mb->regs + EUSRV_MBOX_RX_STALLED))
		mbox_kick(mb);
	return true;
}

static void mbox_count_tx_failure(struct mbox_dev *mb, u32 status)
{
	switch (status) {
	case EUSRV_MBOX_ST_FULL:
		mbox_count(mb, MBOX_TX_FULL);
		break;
	case EUSRV_MBOX_ST_DECERR:
		mbox_count(mb, MBOX_TX_DECERR);
		break;
	case EUSRV_MBOX_ST_DISABLED:
		mbox_count(mb, MBOX_TX_DISABLED);
		break;
	default:
		mbox_count(mb, MBOX_TX_BAD_STATUS);
		break;
	}
}

/*
 * Completions interrupt (TXDONE_IE) while a sender waits for queue space
 * or messages are kept: kept ones go out only as the queue drains, and no
 * send may come to post them.  What completed before the interrupt came
 * on raised none, so look at the queue once more and serve it from
 * irq_work if it moved.  tx_lock held.
 */
static void mbox_ctrl_update_locked(struct mbox_dev *mb)
{
	u32 ctrl = MBOX_CTRL_ON;

	if (mb->tx_waiters || mb->held)
		ctrl |= EUSRV_MBOX_CTRL_TXDONE_IE;
	if (ctrl == mb->ctrl)
		return;
	mb->ctrl = ctrl;
	writel(ctrl, mb->regs + EUSRV_MBOX_CTRL);
	if (!(ctrl & EUSRV_MBOX_CTRL_TXDONE_IE))
		return;
	/* Pairs with the model's fence between TX_CONS and reading CTRL. */
	mb();
	if (readl(mb->regs + EUSRV_MBOX_TX_CONS) != mb->tx_reaped)
		irq_work_queue(&mb->poll);
}

/* DST's entry of MSG was reaped with STATUS: a refused one is kept, oldest first. */
static void mbox_reaped_locked(struct mbox_dev *mb, unsigned int dst,
			       u32 status, u64 msg)
{
	bool refused = status == EUSRV_MBOX_ST_BUSY;

	/* Cannot fail: nothing is posted without room for its refusal. */
	if (WARN_ON_ONCE(!mbox_dest_reaped(&mb->dest[dst], refused, msg)) ||
	    !refused)
		return;
	mb->backlogged |= BIT_ULL(dst);
	mb->held++;
}

/*
 * Take the oldest completed outbound entry; false when there is none, or
 * with QUIET when it failed (its report needs the interrupt's context).  A
 * refused one (BUSY) is kept for its destination here, under the lock, so
 * that it goes in before anything sent after it.  tx_lock held.
 */
static bool mbox_reap_one_locked(struct mbox_dev *mb, u64 *msg,
				 unsigned int *dst, u32 *status, bool quiet)
{
	void __iomem *e;
	u32 cons;

	/* readl orders this load before the loads of the entry (acquire). */
	cons = readl(mb->regs + EUSRV_MBOX_TX_CONS);
	if (cons == mb->tx_reaped)
		return false;
	if (!eusrv_seq_within(mb->tx_reaped, cons, mb->tx_prod)) {
		dev_err_ratelimited(mb->dev, "outbound consumer %u impossible (reaped %u, posted %u)\n",
				    cons, mb->tx_reaped, mb->tx_prod);
		return false;
	}
	e = mbox_txq_entry(mb, mb->tx_reaped);
	*status = readl(e + MBOX_TXQ_STATUS);
	if (quiet && *status != EUSRV_MBOX_ST_OK && *status != EUSRV_MBOX_ST_BUSY)
		return false;
	*msg = readq(e + MBOX_TXQ_DATA);
	*dst = EUSRV_GA_NODE(readq(e + MBOX_TXQ_ADDR));
	WRITE_ONCE(mb->tx_reaped, mb->tx_reaped + 1);
	if (*dst < mb->nodes)
		mbox_reaped_locked(mb, *dst, *status, *msg);
	if (*status == EUSRV_MBOX_ST_BUSY && *dst < mb->nodes)
		mbox_count(mb, MBOX_TX_REFUSED);
	return true;
}

static bool mbox_reap_one(struct mbox_dev *mb, u64 *msg, unsigned int *dst,
			  u32 *status)
{
	unsigned long flags;
	bool got;

	spin_lock_irqsave(&mb->tx_lock, flags);
	got = mbox_reap_one_locked(mb, msg, dst, status, false);
	mbox_ctrl_update_locked(mb);
	spin_unlock_irqrestore(&mb->tx_lock, flags);
	return got;
}

/* Free completed outbound slots and report failures; hard-IRQ context. */
static bool mbox_reap_tx(struct mbox_dev *mb)
{
	const struct eusrv_mbox_handler *h;
	unsigned int dst;
	bool any = false;
	u32 status;
	u64 msg;

	/* The lock is dropped around callbacks: they may send. */
	while (mbox_reap_one(mb, &msg, &dst, &status)) {
		any = true;
		if (status == EUSRV_MBOX_ST_OK ||
		    (status == EUSRV_MBOX_ST_BUSY && dst < mb->nodes))
			continue;
		mbox_count_tx_failure(mb, status);
		dev_dbg_ratelimited(mb->dev, "message %#llx to node %u not delivered: status %u\n",
				    msg, dst, status);
		if (dst >= mb->nodes)
			continue;
		rcu_read_lock();
		h = rcu_dereference(mbox_handlers[eusrv_msg_type(msg)]);
		if (h && h->tx_error)
			h->tx_error(h->ctx, dst, msg, status);
		rcu_read_unlock();
	}
	if (any)
		wake_up(&mbox_tx_wq);
	return any;
}

/* Post entry TX_PROD for NODE; tx_lock held, the caller kicks. */
static void mbox_post_locked(struct mbox_dev *mb, unsigned int node, u64 msg,
			     u32 flags)
{
	void __iomem *e = mbox_txq_entry(mb, mb->tx_prod);

	writeq(EUSRV_MBOX_INBOX_GA(node), e + MBOX_TXQ_ADDR);
	writeq(msg, e + MBOX_TXQ_DATA);
	writel(EUSRV_MBOX_ST_PENDING, e + MBOX_TXQ_STATUS);
	writel(EUSRV_MBOX_TXF_NOWAIT | flags, e + MBOX_TXQ_FLAGS);
	WRITE_ONCE(mb->tx_prod, mb->tx_prod + 1);
	/* writel orders the entry's stores before TX_PROD (release). */
	writel(mb->tx_prod, mb->regs + EUSRV_MBOX_TX_PROD);
	mb->dest[node].posted++;
}

/*
 * Post what DST keeps, oldest first, while the queue has room and
 * mbox_dest_next() lets it go.  tx_lock held; true if anything was posted.
 */
static bool mbox_resend_locked(struct mbox_dev *mb, unsigned int dst)
{
	struct mbox_dest *d = &mb->dest[dst];
	bool any = false;
	u32 flags;
	u64 msg;

	while (mbox_ring_free(mb->tx_prod, mb->tx_reaped, EUSRV_MBOX_TXQ_DEPTH) &&
	       mbox_dest_next(d, &msg, &flags)) {
		mbox_post_locked(mb, dst, msg, flags);
		mb->held--;
		mbox_count(mb, MBOX_TX_RESENT);
		any = true;
	}
	if (!d->backlog.len)
		mb->backlogged &= ~BIT_ULL(dst);
	return any;
}

/*
 * Post again what refusing destinations keep, with the room events seen
 * so far; tx_lock held, the completions reaped.  True if anything was
 * posted (and kicked); *ROOM_CAME if a room event was new.
 */
static bool mbox_resend_all_locked(struct mbox_dev *mb, bool *room_came)
{
	unsigned int n;
	bool any = false;
	u32 room;

	/*
	 * Read after the completions were reaped, so a room event that
	 * follows one of their refusals is seen now or raises another
	 * interrupt: room is never taken for older than a refusal.
	 */
	room = readl(mb->regs + EUSRV_MBOX_ROOM_CNT);
	if (room != mb->room_cnt) {
		mb->room_cnt = room;
		*room_came = true;
		mbox_count(mb, MBOX_ROOM);
		for (n = 0; n < mb->nodes; n++)
			mb->dest[n].room = true;
	}
	for (n = 0; mb->backlogged && n < mb->nodes; n++)
		if (mb->backlogged & BIT_ULL(n))
			any |= mbox_resend_locked(mb, n);
	if (any)
		mbox_kick(mb);
	return any;
}

/* Post again what refusing destinations keep; hard-IRQ context. */
static bool mbox_resend(struct mbox_dev *mb)
{
	bool any, room_came = false;
	unsigned long flags;

	spin_lock_irqsave(&mb->tx_lock, flags);
	any = mbox_resend_all_locked(mb, &room_came);
	mbox_ctrl_update_locked(mb);
	spin_unlock_irqrestore(&mb->tx_lock, flags);
	if (any)
		wake_up(&mbox_tx_wq);
	return room_came;
}

/*
 * Reap what completed well or was refused, as the next store is posted
 * or a waiting sender looks (no interrupt says so), and post again what
 * refused destinations keep if room came meanwhile; failed stores are
 * left to the interrupt (ERR_IE), which reports them.  What moved here
 * the interrupt will not find, so it would wake no waiter: the caller
 * does, through mbox_tx_unlock().  tx_lock held.
 */
static void mbox_tidy_locked(struct mbox_dev *mb)
{
	bool room_came = false, moved = false;
	unsigned int dst;
	u32 status;
	u64 msg;

	while (mbox_reap_one_locked(mb, &msg, &dst, &status, true))
		moved = true;
	if (mb->backlogged)
		moved |= mbox_resend_all_locked(mb, &room_came);
	if (moved && mb->tx_waiters)
		mb->tx_moved = true;
	mbox_ctrl_update_locked(mb);
}

/* Drop tx_lock; wake the waiting senders if the queue moved under it. */
static void mbox_tx_unlock(struct mbox_dev *mb, unsigned long flags)
	__releases(&mb->tx_lock)
{
	bool wake = mb->tx_moved;

	mb->tx_moved = false;
	spin_unlock_irqrestore(&mb->tx_lock, flags);
	if (wake)
		wake_up(&mbox_tx_wq);
}

/* The interrupt's work, MBOX_DID_*; hard-IRQ context (interrupt or irq_work). */
static unsigned int mbox_service(struct mbox_dev *mb)
{
	unsigned int did = 0;

	spin_lock(&mb->rx_lock);
	if (!mb->paused && mbox_drain_rx(mb))
		did |= MBOX_DID_RX;
	spin_unlock(&mb->rx_lock);
	if (mbox_reap_tx(mb))
		did |= MBOX_DID_TXDONE;
	if (mbox_resend(mb))
		did |= MBOX_DID_ROOM;
	return did;
}

static irqreturn_t mbox_irq(int irq, void *data)
{
	struct mbox_dev *mb = data;
	unsigned int did;

	/* Interrupts are edge-like: the block's state says what happened. */
	did = mbox_service(mb);
	atomic64_inc(&mb->xcnt[MBOX_X_IRQS]);
	if (did & MBOX_DID_RX)
		atomic64_inc(&mb->xcnt[MBOX_X_IRQ_RX]);
	if (did & MBOX_DID_TXDONE)
		atomic64_inc(&mb->xcnt[MBOX_X_IRQ_TXDONE]);
	if (did & MBOX_DID_ROOM)
		atomic64_inc(&mb->xcnt[MBOX_X_IRQ_ROOM]);
	if (!did)
		atomic64_inc(&mb->xcnt[MBOX_X_IRQ_NONE]);
	return IRQ_HANDLED;
}

static void mbox_poll_fn(struct irq_work *work)
{
	mbox_service(container_of(work, struct mbox_dev, poll));
}

static void mbox_resume_fn(struct work_struct *work)
{
	struct mbox_dev *mb = container_of(to_delayed_work(work),
					     struct mbox_dev, resume);

	spin_lock_irq(&mb->rx_lock);
	mb->paused = false;
	spin_unlock_irq(&mb->rx_lock);
	/* The FIFO filled up silently: drain it as the interrupt would. */
	irq_work_queue(&mb->poll);
}

/* What becomes of a message for NODE now (mbox_dest_take()); tx_lock held. */
static enum mbox_take mbox_take_locked(struct mbox_dev *mb, unsigned int node)
{
	mbox_tidy_locked(mb);
	return mbox_dest_take(&mb->dest[node],
			      mbox_ring_free(mb->tx_prod, mb->tx_reaped,
					     EUSRV_MBOX_TXQ_DEPTH));
}

/*
 * Queue the N messages MSGS for NODE in order, as many as there is room
 * for, with one doorbell: how many were taken (posted, or kept behind
 * what NODE refused), -EAGAIN if none.
 */
static int mbox_post(struct mbox_dev *mb, unsigned int node, const u64 *msgs,
		     unsigned int n)
{
	unsigned long flags;
	bool kick = false;
	unsigned int i;

	spin_lock_irqsave(&mb->tx_lock, flags);
	for (i = 0; i < n; i++) {
		enum mbox_take take = mbox_take_locked(mb, node);

		if (take == MBOX_TAKE_NONE)
			break;
		if (take == MBOX_TAKE_KEEP) {
			/* Behind what the destination refused: kept, in order. */
			mbox_backlog_hold(&mb->dest[node].backlog, msgs[i]);
			mb->held++;
			mbox_count(mb, MBOX_TX_HELD);
		} else {
			mbox_post_locked(mb, node, msgs[i], 0);
			kick = true;
		}
		mbox_count(mb, MBOX_TX_MSGS);
	}
	if (kick)
		mbox_kick(mb);
	mbox_ctrl_update_locked(mb);
	mbox_tx_unlock(mb, flags);
	if (i)
		return i;
	mbox_count(mb, MBOX_TX_BUSY);
	return -EAGAIN;
}

/**
 * eusrv_mbox_send_many() - queue messages for a node, as many as fit
 * @node: the destination (this node included)
 * @msgs: the messages, sent in order
 * @n: how many
 *
 * One doorbell for all that the queue takes together.  A queued message is
 * either delivered or reported to its type's tx_error.
 *
 * Context: any context.
 * Return: how many messages it queued (the rest are the caller's to send);
 * -EAGAIN if the outbound queue took none; -EINVAL for a node that is not
 * on the board or if one message is of type 0 (then none goes); -ENODEV
 * while no mailbox is bound.
 */
int eusrv_mbox_send_many(unsigned int node, const u64 *msgs, unsigned int n)
{
	struct mbox_dev *mb;
	unsigned int i;
	int ret;

	for (i = 0; i < n; i++)
		if (eusrv_msg_type(msgs[i]) == EUSRV_MSG_T_INVALID)
			return -EINVAL;
	if (!n)
		return 0;
	rcu_read_lock();
	mb = rcu_dereference(mbox_cur);
	if (!mb)
		ret = -ENODEV;
	else if (node >= mb->nodes)
		ret = -EINVAL;
	else
		ret = mbox_post(mb, node, msgs, n);
	rcu_read_unlock();
	return ret;
}
EXPORT_SYMBOL_GPL(eusrv_mbox_send_many);

/**
 * eusrv_mbox_send() - queue one message for a node
 * @node: the destination (this node included)
 * @msg: the message
 *
 * Context: any context.
 * Return: 0, or an error as eusrv_mbox_send_many() gives it.
 */
int eusrv_mbox_send(unsigned int node, u64 msg)
{
	int ret = eusrv_mbox_send_many(node, &msg, 1);

	return ret < 0 ? ret : 0;
}
EXPORT_SYMBOL_GPL(eusrv_mbox_send);

/* COND(mb, NODE) under tx_lock on the bound mailbox, or true once there is none. */
static bool mbox_tx_cond(bool (*cond)(struct mbox_dev *mb, unsigned int node),
			 unsigned int node)
{
	struct mbox_dev *mb;
	unsigned long flags;
	bool ret = true;

	rcu_read_lock();
	mb = rcu_dereference(mbox_cur);
	if (mb) {
		spin_lock_irqsave(&mb->tx_lock, flags);
		ret = cond(mb, node);
		mbox_tx_unlock(mb, flags);
	}
	rcu_read_unlock();
	return ret;
}

/* A sender starts or stops waiting for completions (TXDONE_IE). */
static void mbox_want_txdone(bool on)
{
	struct mbox_dev *mb;
	unsigned long flags;

	rcu_read_lock();
	mb = rcu_dereference(mbox_cur);
	if (mb) {
		spin_lock_irqsave(&mb->tx_lock, flags);
		if (on)
			mb->tx_waiters++;
		else if (mb->tx_waiters)
			mb->tx_waiters--;
		mbox_ctrl_update_locked(mb);
		spin_unlock_irqrestore(&mb->tx_lock, flags);
	}
	rcu_read_unlock();
}

/* Sleep until COND: 0 on timeout, > 0 when met, -ERESTARTSYS, -ENODEV. */
static long mbox_wait_tx(bool (*cond)(struct mbox_dev *mb, unsigned int node),
			 unsigned int node, long timeout)
{
	long ret;

	mbox_want_txdone(true);
	ret = wait_event_interruptible_timeout(mbox_tx_wq,
					       mbox_tx_cond(cond, node),
					       timeout);
	mbox_want_txdone(false);
	if (ret > 0 && !rcu_access_pointer(mbox_cur))
		return -ENODEV;
	return ret;
}

/* A node of another binding is left to eusrv_mbox_send() to refuse. */
static bool mbox_can_take(struct mbox_dev *mb, unsigned int node)
{
	return node >= mb->nodes || mbox_take_locked(mb, node) != MBOX_TAKE_NONE;
}

static bool mbox_tx_idle(struct mbox_dev *mb, unsigned int node)
{
	mbox_tidy_locked(mb);
	return mb->tx_prod == mb->tx_reaped && !mb->held;
}

/**
 * eusrv_mbox_send_wait_many() - queue messages for a node, waiting for room
 * @node: the destination (this node included)
 * @msgs: the messages, sent in order
 * @n: how many
 * @timeout: the longest wait for queue space, in jiffies
 *
 * As eusrv_mbox_send_many(), but sleeps for room until all went.
 *
 * Context: process context; sleeps.
 * Return: 0 when all are queued; -ETIMEDOUT when no room came in time (the
 * first messages may have gone); -ERESTARTSYS on a signal; -EINVAL for a
 * negative @timeout; otherwise the errors of eusrv_mbox_send_many().
 */
int eusrv_mbox_send_wait_many(unsigned int node, const u64 *msgs,
			      unsigned int n, long timeout)
{
	unsigned long deadline = jiffies + timeout;
	unsigned int done = 0;
	long left, ret;

	if (timeout < 0)
		return -EINVAL;
	while (done < n) {
		ret = eusrv_mbox_send_many(node, msgs + done, n - done);
		if (ret > 0) {
			done += ret;
			continue;
		}
		if (ret != -EAGAIN)
			return ret;
		left = (long)(deadline - jiffies);
		if (left <= 0)
			return -ETIMEDOUT;
		ret = mbox_wait_tx(mbox_can_take, node, left);
		if (ret < 0)
			return ret;
	}
	return 0;
}
EXPORT_SYMBOL_GPL(eusrv_mbox_send_wait_many);

/**
 * eusrv_mbox_send_wait() - queue one message for a node, waiting for room
 * @node: the destination (this node included)
 * @msg: the message
 * @timeout: the longest wait for queue space, in jiffies
 *
 * Context: process context; sleeps.
 * Return: as eusrv_mbox_send_wait_many().
 */
int eusrv_mbox_send_wait(unsigned int node, u64 msg, long timeout)
{
	return eusrv_mbox_send_wait_many(node, &msg, 1, timeout);
}
EXPORT_SYMBOL_GPL(eusrv_mbox_send_wait);

/**
 * eusrv_mbox_flush() - wait until every message queued so far has gone
 * @timeout: the longest wait, in jiffies
 *
 * For the tester (eusrv_mbox_diag), which ends a flood with it.
 *
 * Context: process context; sleeps.
 * Return: 0, -ETIMEDOUT, -ERESTARTSYS on a signal, or -ENODEV while no
 * mailbox is bound.
 */
int eusrv_mbox_flush(long timeout)
{
	long ret = mbox_wait_tx(mbox_tx_idle, 0, timeout);

	if (ret < 0)
		return ret;
	return ret ? 0 : -ETIMEDOUT;
}
EXPORT_SYMBOL_GPL(eusrv_mbox_flush);

/**
 * eusrv_mbox_node_id() - this node's number
 *
 * Context: any context.
 * Return: the number, or -ENODEV while no mailbox is bound.
 */
int eusrv_mbox_node_id(void)
{
	struct mbox_dev *mb;
	int ret;

	rcu_read_lock();
	mb = rcu_dereference(mbox_cur);
	ret = mb ? mb->node_id : -ENODEV;
	rcu_read_unlock();
	return ret;
}
EXPORT_SYMBOL_GPL(eusrv_mbox_node_id);

/**
 * eusrv_mbox_nodes() - the number of nodes on the board
 *
 * Context: any context.
 * Return: the count (node numbers are below it), or 0 while no mailbox is
 * bound.
 */
unsigned int eusrv_mbox_nodes(void)
{
	struct mbox_dev *mb;
	unsigned int n;

	rcu_read_lock();
	mb = rcu_dereference(mbox_cur);
	n = mb ? mb->nodes : 0;
	rcu_read_unlock();
	return n;
}
EXPORT_SYMBOL_GPL(eusrv_mbox_nodes);

static u64 mbox_counter(struct mbox_dev *mb, enum mbox_counter c)
{
	return atomic64_read(&mb->cnt[c]);
}

/**
 * eusrv_mbox_get_stats() - the block's and the driver's counters
 * @st: filled in
 *
 * For the tester (eusrv_mbox_diag), which adds its own and hands them to
 * user space.
 *
 * Context: any context.
 * Return: 0, or -ENODEV while no mailbox is bound.
 */
int eusrv_mbox_get_stats(struct eusrv_mbox_stats *st)
{
	struct mbox_dev *mb;

	rcu_read_lock();
	mb = rcu_dereference(mbox_cur);
	if (!mb) {
		rcu_read_unlock();
		return -ENODEV;
	}
	st->node_id = mb->node_id;
	st->nodes = mb->nodes;
	st->rx_total = readq(mb->regs + EUSRV_MBOX_RX_TOTAL);
	st->tx_total = readq(mb->regs + EUSRV_MBOX_TX_TOTAL);
	st->full_cnt = readl(mb->regs + EUSRV_MBOX_FULL_CNT);
	st->tx_wait_cnt = readl(mb->regs + EUSRV_MBOX_TX_WAIT_CNT);
	st->tx_busy_cnt = readl(mb->regs + EUSRV_MBOX_TX_BUSY_CNT);
	st->room_cnt = readl(mb->regs + EUSRV_MBOX_ROOM_CNT);
	st->tx_err_cnt = readl(mb->regs + EUSRV_MBOX_TX_ERR_CNT);
	st->bad_cnt = readl(mb->regs + EUSRV_MBOX_BAD_CNT);
	st->bad_last = readl(mb->regs + EUSRV_MBOX_BAD_LAST);
	st->rx_msgs = mbox_counter(mb, MBOX_RX_MSGS);
	st->rx_unhandled = mbox_counter(mb, MBOX_RX_UNHANDLED);
	st->rx_invalid = mbox_counter(mb, MBOX_RX_INVALID);
	st->rx_bad_src = mbox_counter(mb, MBOX_RX_BAD_SRC);
	st->rx_resync = mbox_counter(mb, MBOX_RX_RESYNC);
	st->tx_msgs = mbox_counter(mb, MBOX_TX_MSGS);
	st->tx_busy = mbox_counter(mb, MBOX_TX_BUSY);
	st->tx_full = mbox_counter(mb, MBOX_TX_FULL);
	st->tx_decerr = mbox_counter(mb, MBOX_TX_DECERR);
	st->tx_disabled = mbox_counter(mb, MBOX_TX_DISABLED);
	st->tx_bad_status = mbox_counter(mb, MBOX_TX_BAD_STATUS);
	st->tx_refused = mbox_counter(mb, MBOX_TX_REFUSED);
	st->tx_held = mbox_counter(mb, MBOX_TX_HELD);
	st->tx_resent = mbox_counter(mb, MBOX_TX_RESENT);
	st->rooms = mbox_counter(mb, MBOX_ROOM);
	st->backlog = READ_ONCE(mb->held);
	rcu_read_unlock();
	return 0;
}
EXPORT_SYMBOL_GPL(eusrv_mbox_get_stats);

/**
 * eusrv_mbox_get_crossings() - read the mailbox's crossing counters
 * @x: where to store them
 *
 * Context: any context.
 * Return: 0, or -ENODEV (@x untouched) while no mailbox is bound.
 */
int eusrv_mbox_get_crossings(struct eusrv_mbox_crossings *x)
{
	struct mbox_dev *mb;

	rcu_read_lock();
	mb = rcu_dereference(mbox_cur);
	if (mb) {
		x->doorbells = atomic64_read(&mb->xcnt[MBOX_X_DOORBELLS]);
		x->irqs = atomic64_read(&mb->xcnt[MBOX_X_IRQS]);
		x->irq_rx = atomic64_read(&mb->xcnt[MBOX_X_IRQ_RX]);
		x->irq_txdone = atomic64_read(&mb->xcnt[MBOX_X_IRQ_TXDONE]);
		x->irq_room = atomic64_read(&mb->xcnt[MBOX_X_IRQ_ROOM]);
		x->irq_none = atomic64_read(&mb->xcnt[MBOX_X_IRQ_NONE]);
	}
	rcu_read_unlock();
	return mb ? 0 : -ENODEV;
}
EXPORT_SYMBOL_GPL(eusrv_mbox_get_crossings);

/**
 * eusrv_mbox_reset_stats() - zero the driver's counters, for the tester (eusrv_mbox_diag)
 *
 * Context: any context.
 */
void eusrv_mbox_reset_stats(void)
{
	struct mbox_dev *mb;
	unsigned int i;

	rcu_read_lock();
	mb = rcu_dereference(mbox_cur);
	for (i = 0; mb && i < MBOX_NR_COUNTERS; i++)
		atomic64_set(&mb->cnt[i], 0);
	rcu_read_unlock();
}
EXPORT_SYMBOL_GPL(eusrv_mbox_reset_stats);

/**
 * eusrv_mbox_pause() - stop draining the inbound FIFO for a while
 * @ms: how long, in milliseconds
 *
 * For the tester (eusrv_mbox_diag), which makes the FIFO overflow so.
 *
 * Context: any context.
 * Return: 0, or -ENODEV while no mailbox is bound.
 */
int eusrv_mbox_pause(unsigned int ms)
{
	struct mbox_dev *mb;
	unsigned long flags;
	int ret = 0;

	rcu_read_lock();
	mb = rcu_dereference(mbox_cur);
	if (mb) {
		spin_lock_irqsave(&mb->rx_lock, flags);
		mb->paused = true;
		spin_unlock_irqrestore(&mb->rx_lock, flags);
		/* Unbinding waits for this section, then cancels the work. */
		mod_delayed_work(system_wq, &mb->resume, msecs_to_jiffies(ms));
	} else {
		ret = -ENODEV;
	}
	rcu_read_unlock();
	return ret;
}
EXPORT_SYMBOL_GPL(eusrv_mbox_pause);

/*
 * Start from the block's counters: an earlier binding may have left
 * messages in the FIFO and stores in flight, which are handled as usual.
 */
static void mbox_sync_counters(struct mbox_dev *mb)
{
	u32 rx_prod = readl(mb->regs + EUSRV_MBOX_RX_PROD);
	u32 rx_cons = readl(mb->regs + EUSRV_MBOX_RX_CONS);
	u32 tx_prod = readl(mb->regs + EUSRV_MBOX_TX_PROD);
	u32 tx_cons = readl(mb->regs + EUSRV_MBOX_TX_CONS);

	if (!mbox_ring_sane(rx_prod, rx_cons, EUSRV_MBOX_FIFO_DEPTH)) {
		dev_warn(mb->dev, "inbound FIFO counters impossible (producer %u, consumer %u): starting empty\n",
			 rx_prod, rx_cons);
		rx_cons = rx_prod;
		writel(rx_cons, mb->regs + EUSRV_MBOX_RX_CONS);
	}
	if (!mbox_ring_sane(tx_prod, tx_cons, EUSRV_MBOX_TXQ_DEPTH)) {
		dev_warn(mb->dev, "outbound queue counters impossible (producer %u, consumer %u): starting empty\n",
			 tx_prod, tx_cons);
		tx_prod = tx_cons;
		writel(tx_prod, mb->regs + EUSRV_MBOX_TX_PROD);
	}
	mb->rx_cons = rx_cons;
	mb->tx_prod = tx_prod;
	mb->tx_reaped = tx_cons;
	mb->room_cnt = readl(mb->regs + EUSRV_MBOX_ROOM_CNT);
}

static int mbox_read_props(struct mbox_dev *mb)
{
	int ret;

	mb->nodes = EUSRV_MAX_NODES;
	ret = eusrv_node_props(mb->dev, &mb->node_id, &mb->nodes);
	if (ret == -ENOENT)
		return dev_err_probe(mb->dev, -EINVAL, "no eusrv,node-id property\n");
	return ret;
}

static int mbox_probe(struct platform_device *pdev)
{
	struct device *dev = &pdev->dev;
	struct mbox_dev *mb;
	int irq, ret;
	u32 id;

	mb = devm_kzalloc(dev, sizeof(*mb), GFP_KERNEL);
	if (!mb)
		return -ENOMEM;
	mb->dev = dev;
	spin_lock_init(&mb->rx_lock);
	spin_lock_init(&mb->tx_lock);
	INIT_DELAYED_WORK(&mb->resume, mbox_resume_fn);
	/* Hard: handlers are promised hard-IRQ context, also on PREEMPT_RT. */
	mb->poll = IRQ_WORK_INIT_HARD(mbox_poll_fn);

	ret = mbox_read_props(mb);
	if (ret)
		return ret;
	mb->dest = devm_kcalloc(dev, mb->nodes, sizeof(*mb->dest), GFP_KERNEL);
	if (!mb->dest)
		return -ENOMEM;
	mb->regs = devm_platform_ioremap_resource(pdev, 0);
	if (IS_ERR(mb->regs))
		return dev_err_probe(dev, PTR_ERR(mb->regs), "cannot map the registers\n");
	id = readl(mb->regs + EUSRV_MBOX_ID);
	if (id != EUSRV_MBOX_ID_VALUE ||
	    readl(mb->regs + EUSRV_MBOX_FIFO_SIZE) != EUSRV_MBOX_FIFO_DEPTH ||
	    readl(mb->regs + EUSRV_MBOX_TXQ_SIZE) != EUSRV_MBOX_TXQ_DEPTH)
		return dev_err_probe(dev, -ENODEV, "not a mailbox block of depth %u/%u (id %#x)\n",
				     EUSRV_MBOX_FIFO_DEPTH, EUSRV_MBOX_TXQ_DEPTH, id);
	eusrv_vboard_get_kick(pdev, &mb->kick, &mb->kick_val);
	irq = platform_get_irq(pdev, 0);
	if (irq < 0)
		return irq;
	mbox_sync_counters(mb);

	mutex_lock(&mbox_bind_lock);
	if (rcu_access_pointer(mbox_cur)) {
		ret = dev_err_probe(dev, -EBUSY, "a node has one mailbox, and one is bound\n");
		goto unlock;
	}
	ret = devm_request_irq(dev, irq, mbox_irq, 0, dev_name(dev), mb);
	if (ret) {
		dev_err_probe(dev, ret, "cannot get IRQ %d\n", irq);
		goto unlock;
	}
	platform_set_drvdata(pdev, mb);
	rcu_assign_pointer(mbox_cur, mb);
unlock:
	mutex_unlock(&mbox_bind_lock);
	if (ret)
		return ret;

	spin_lock_irq(&mb->tx_lock);
	mbox_ctrl_update_locked(mb);
	spin_unlock_irq(&mb->tx_lock);
	/* What an earlier binding left behind raises no interrupt. */
	irq_work_queue(&mb->poll);
	dev_info(dev, "node %u of %u, FIFO depth %u, outbound queue depth %u\n",
		 mb->node_id, mb->nodes, EUSRV_MBOX_FIFO_DEPTH, EUSRV_MBOX_TXQ_DEPTH);
	return 0;
}

static int mbox_remove(struct platform_device *pdev)
{
	struct mbox_dev *mb = platform_get_drvdata(pdev);

	mutex_lock(&mbox_bind_lock);
	RCU_INIT_POINTER(mbox_cur, NULL);
	mutex_unlock(&mbox_bind_lock);
	/* No sender, pause or query uses MB after this... */
	synchronize_rcu();
	/* ...and sleepers wake up to find the mailbox gone. */
	wake_up_all(&mbox_tx_wq);
	/* Other nodes' stores now fail with DISABLED instead of waiting. */
	writel(0, mb->regs + EUSRV_MBOX_CTRL);
	cancel_delayed_work_sync(&mb->resume);
	irq_work_sync(&mb->poll);
	/* devm frees the IRQ (waiting for a running handler), then MB. */
	return 0;
}

static const struct of_device_id mbox_of_match[] = {
	{ .compatible = "eusrv,mailbox-1.0" },
	{ }
};
MODULE_DEVICE_TABLE(of, mbox_of_match);

static const struct platform_device_id mbox_ids[] = {
	{ .name = "eusrv-mbox" },
	{ }
};
MODULE_DEVICE_TABLE(platform, mbox_ids);

static struct platform_driver mbox_driver = {
	.driver = {
		.name = "eusrv-mbox",
		.of_match_table = mbox_of_match,
	},
	.id_table = mbox_ids,
	.probe = mbox_probe,
	.remove = mbox_remove,
};

module_platform_driver(mbox_driver);

MODULE_DESCRIPTION("EUROSERVER node mailbox");
MODULE_LICENSE("GPL");
