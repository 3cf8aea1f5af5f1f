// SPDX-License-Identifier: GPL-2.0
/*
 * eusrv mailbox driver: the node's inbound FIFO of 64-bit messages and its
 * outbound (posted store) queue, as specified in docs/hardware.md section 3.
 *
 * Received messages are handed, in hard-IRQ context, to the handler
 * registered for their type; senders queue messages from any context.
 */
#include <linux/bits.h>
#include <linux/interrupt.h>
#include <linux/io.h>
#include <linux/io-64-nonatomic-lo-hi.h>
#include <linux/jiffies.h>
#include <linux/mod_devicetable.h>
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/property.h>
#include <linux/rcupdate.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include <eusrv/board_hw.h>
#include <eusrv/mbox.h>
#include <uapi/eusrv/mbox_diag.h>

#include "mbox_internal.h"
#include "mbox_ring.h"

#define MBOX_FIFO_ENTRY_SIZE	16
#define MBOX_TXQ_ENTRY_SIZE	32
#define MBOX_TXQ_ADDR		0x00
#define MBOX_TXQ_DATA		0x08
#define MBOX_TXQ_STATUS		0x10
#define MBOX_FIFO_MSG		0x00
#define MBOX_FIFO_SRC		0x08

#define MBOX_CTRL_ON	(EUSRV_MBOX_CTRL_EN | EUSRV_MBOX_CTRL_ENQ_IE | \
			 EUSRV_MBOX_CTRL_FULL_IE | EUSRV_MBOX_CTRL_TXDONE_IE | \
			 EUSRV_MBOX_CTRL_ERR_IE)

struct eusrv_mbox {
	struct device *dev;
	void __iomem *regs;
	void __iomem *kick;		/* NULL on hardware without a kick */
	u32 kick_val;
	u32 node_id;
	u32 nodes;

	spinlock_t rx_lock;		/* inbound FIFO consumer */
	u32 rx_cons;
	bool paused;
	struct delayed_work resume;

	spinlock_t tx_lock;		/* outbound queue */
	u32 tx_prod;
	u32 tx_reaped;

	atomic64_t rx_msgs, rx_unhandled, rx_bad_src;
	atomic64_t tx_msgs, tx_busy, tx_failed;
};

static struct eusrv_mbox __rcu *eusrv_mbox_cur;
static const struct eusrv_mbox_handler __rcu *eusrv_mbox_handlers[EUSRV_MSG_NR_TYPES];
static DEFINE_MUTEX(eusrv_mbox_handlers_lock);
/* Senders waiting for queue space; global so that it outlives an unbind. */
static DECLARE_WAIT_QUEUE_HEAD(eusrv_mbox_tx_wq);

static void mbox_kick(struct eusrv_mbox *mb)
{
	if (mb->kick)
		writel(mb->kick_val, mb->kick);
}

static void __iomem *mbox_fifo_entry(struct eusrv_mbox *mb, u32 counter)
{
	return mb->regs + EUSRV_MBOX_FIFO +
	       mbox_ring_slot(counter, EUSRV_MBOX_FIFO_DEPTH) * MBOX_FIFO_ENTRY_SIZE;
}

static void __iomem *mbox_txq_entry(struct eusrv_mbox *mb, u32 counter)
{
	return mb->regs + EUSRV_MBOX_TXQ +
	       mbox_ring_slot(counter, EUSRV_MBOX_TXQ_DEPTH) * MBOX_TXQ_ENTRY_SIZE;
}

int eusrv_mbox_register(unsigned int type, const struct eusrv_mbox_handler *h)
{
	int ret = 0;

	if (type == EUSRV_MSG_T_INVALID || type >= EUSRV_MSG_NR_TYPES || !h || !h->rx)
		return -EINVAL;
	mutex_lock(&eusrv_mbox_handlers_lock);
	if (rcu_access_pointer(eusrv_mbox_handlers[type]))
		ret = -EBUSY;
	else
		rcu_assign_pointer(eusrv_mbox_handlers[type], h);
	mutex_unlock(&eusrv_mbox_handlers_lock);
	return ret;
}
EXPORT_SYMBOL_GPL(eusrv_mbox_register);

void eusrv_mbox_unregister(unsigned int type)
{
	if (type >= EUSRV_MSG_NR_TYPES)
		return;
	mutex_lock(&eusrv_mbox_handlers_lock);
	RCU_INIT_POINTER(eusrv_mbox_handlers[type], NULL);
	mutex_unlock(&eusrv_mbox_handlers_lock);
	/* Handlers run in hard IRQs, which RCU waits for. */
	synchronize_rcu();
}
EXPORT_SYMBOL_GPL(eusrv_mbox_unregister);

static void mbox_dispatch(struct eusrv_mbox *mb, unsigned int src, u64 msg)
{
	unsigned int type = eusrv_msg_type(msg);
	const struct eusrv_mbox_handler *h;

	/* The source is stamped by the interconnect, but never trusted. */
	if (src >= mb->nodes) {
		atomic64_inc(&mb->rx_bad_src);
		dev_warn_ratelimited(mb->dev, "message %#llx from impossible node %u dropped\n",
				     msg, src);
		return;
	}
	atomic64_inc(&mb->rx_msgs);
	rcu_read_lock();
	h = rcu_dereference(eusrv_mbox_handlers[type]);
	if (h)
		h->rx(h->ctx, src, msg);
	else
		atomic64_inc(&mb->rx_unhandled);
	rcu_read_unlock();
	if (!h)
		dev_dbg_ratelimited(mb->dev, "no handler for type %u from node %u\n",
				    type, src);
}

/* Drain the inbound FIFO; caller holds rx_lock with IRQs off. */
static void mbox_drain_rx(struct eusrv_mbox *mb)
{
	u32 prod = readl(mb->regs + EUSRV_MBOX_RX_PROD);
	u32 cons = mb->rx_cons;

	if (!mbox_ring_sane(prod, cons, EUSRV_MBOX_FIFO_DEPTH)) {
		dev_err_ratelimited(mb->dev, "inbound FIFO producer %u impossible for consumer %u, resynchronising\n",
				    prod, cons);
		cons = prod - EUSRV_MBOX_FIFO_DEPTH;
	}
	/* readl orders the producer load before the entry loads. */
	while (cons != prod) {
		void __iomem *e = mbox_fifo_entry(mb, cons);
		u64 msg = readq(e + MBOX_FIFO_MSG);
		unsigned int src = readw(e + MBOX_FIFO_SRC);

		cons++;
		mbox_dispatch(mb, src, msg);
	}
	if (cons == mb->rx_cons)
		return;
	mb->rx_cons = cons;
	writel(cons, mb->regs + EUSRV_MBOX_RX_CONS);
	/* Pairs with the model's barrier between RX_STALLED and RX_CONS. */
	mb();
	if (readl(mb->regs + EUSRV_MBOX_RX_STALLED))
		mbox_kick(mb);
}

/* Take the next completed outbound entry, if any; false when none is left. */
static bool mbox_reap_one(struct eusrv_mbox *mb, u64 *msg, u32 *dst, u32 *status)
{
	unsigned long flags;
	bool got = false;
	u32 cons;

	spin_lock_irqsave(&mb->tx_lock, flags);
	cons = readl(mb->regs + EUSRV_MBOX_TX_CONS);
	if (!mbox_ring_sane(mb->tx_prod, cons, EUSRV_MBOX_TXQ_DEPTH) ||
	    mbox_ring_used(cons, mb->tx_reaped) > mbox_ring_used(mb->tx_prod, mb->tx_reaped)) {
		dev_err_ratelimited(mb->dev, "outbound consumer %u impossible (posted %u, reaped %u)\n",
				    cons, mb->tx_prod, mb->tx_reaped);
	} else if (cons != mb->tx_reaped) {
		void __iomem *e = mbox_txq_entry(mb, mb->tx_reaped);

		*status = readl(e + MBOX_TXQ_STATUS);
		*msg = readq(e + MBOX_TXQ_DATA);
		*dst = EUSRV_GA_NODE(readq(e + MBOX_TXQ_ADDR));
		mb->tx_reaped++;
		got = true;
	}
	spin_unlock_irqrestore(&mb->tx_lock, flags);
	return got;
}

static void mbox_reap_tx(struct eusrv_mbox *mb)
{
	const struct eusrv_mbox_handler *h;
	bool any = false;
	u32 dst, status;
	u64 msg;

	while (mbox_reap_one(mb, &msg, &dst, &status)) {
		any = true;
		if (status == EUSRV_MBOX_ST_OK)
			continue;
		atomic64_inc(&mb->tx_failed);
		dev_dbg_ratelimited(mb->dev, "message %#llx to node %u failed: status %u\n",
				    msg, dst, status);
		rcu_read_lock();
		h = rcu_dereference(eusrv_mbox_handlers[eusrv_msg_type(msg)]);
		if (h && h->tx_error)
			h->tx_error(h->ctx, dst, msg, status);
		rcu_read_unlock();
	}
	if (any)
		wake_up(&eusrv_mbox_tx_wq);
}

static irqreturn_t mbox_irq(int irq, void *data)
{
	struct eusrv_mbox *mb = data;

	spin_lock(&mb->rx_lock);
	if (!mb->paused)
		mbox_drain_rx(mb);
	spin_unlock(&mb->rx_lock);
	mbox_reap_tx(mb);
	return IRQ_HANDLED;
}

static void mbox_resume_work(struct work_struct *work)
{
	struct eusrv_mbox *mb = container_of(to_delayed_work(work),
					     struct eusrv_mbox, resume);

	spin_lock_irq(&mb->rx_lock);
	mb->paused = false;
	mbox_drain_rx(mb);
	spin_unlock_irq(&mb->rx_lock);
}

static int mbox_post(struct eusrv_mbox *mb, unsigned int node, u64 msg)
{
	unsigned long flags;
	void __iomem *e;

	spin_lock_irqsave(&mb->tx_lock, flags);
	if (!mbox_ring_free(mb->tx_prod, mb->tx_reaped, EUSRV_MBOX_TXQ_DEPTH)) {
		spin_unlock_irqrestore(&mb->tx_lock, flags);
		atomic64_inc(&mb->tx_busy);
		return -EAGAIN;
	}
	e = mbox_txq_entry(mb, mb->tx_prod);
	writeq(EUSRV_MBOX_INBOX_GA(node), e + MBOX_TXQ_ADDR);
	writeq(msg, e + MBOX_TXQ_DATA);
	writel(EUSRV_MBOX_ST_PENDING, e + MBOX_TXQ_STATUS);
	/* writel orders the entry before the producer that publishes it. */
	writel(++mb->tx_prod, mb->regs + EUSRV_MBOX_TX_PROD);
	mbox_kick(mb);
	spin_unlock_irqrestore(&mb->tx_lock, flags);
	atomic64_inc(&mb->tx_msgs);
	return 0;
}

int eusrv_mbox_send(unsigned int node, u64 msg)
{
	struct eusrv_mbox *mb;
	int ret;

	if (eusrv_msg_type(msg) == EUSRV_MSG_T_INVALID)
		return -EINVAL;
	rcu_read_lock();
	mb = rcu_dereference(eusrv_mbox_cur);
	if (!mb)
		ret = -ENODEV;
	else if (node >= mb->nodes)
		ret = -EINVAL;
	else
		ret = mbox_post(mb, node, msg);
	rcu_read_unlock();
	return ret;
}
EXPORT_SYMBOL_GPL(eusrv_mbox_send);

/* COND on the current mailbox, or true once there is none. */
static bool mbox_tx_cond(bool (*cond)(struct eusrv_mbox *mb))
{
	struct eusrv_mbox *mb;
	bool ret;

	rcu_read_lock();
	mb = rcu_dereference(eusrv_mbox_cur);
	ret = !mb || cond(mb);
	rcu_read_unlock();
	return ret;
}

static long mbox_wait_tx(bool (*cond)(struct eusrv_mbox *mb), long timeout)
{
	long ret = wait_event_interruptible_timeout(eusrv_mbox_tx_wq,
						    mbox_tx_cond(cond), timeout);

	if (ret >= 0 && !rcu_access_pointer(eusrv_mbox_cur))
		return -ENODEV;
	return ret;
}

static bool mbox_has_space(struct eusrv_mbox *mb)
{
	return mbox_ring_free(READ_ONCE(mb->tx_prod), READ_ONCE(mb->tx_reaped),
			      EUSRV_MBOX_TXQ_DEPTH);
}

static bool mbox_tx_idle(struct eusrv_mbox *mb)
{
	return READ_ONCE(mb->tx_prod) == READ_ONCE(mb->tx_reaped);
}

int eusrv_mbox_send_wait(unsigned int node, u64 msg, long timeout)
{
	unsigned long deadline = jiffies + timeout;
	long ret;

	for (;;) {
		ret = eusrv_mbox_send(node, msg);
		if (ret != -EAGAIN)
			return ret;
		if (time_after_eq(jiffies, deadline))
			return -ETIMEDOUT;
		ret = mbox_wait_tx(mbox_has_space, deadline - jiffies);
		if (ret < 0)
			return ret;
	}
}
EXPORT_SYMBOL_GPL(eusrv_mbox_send_wait);

int eusrv_mbox_flush(long timeout)
{
	long ret = mbox_wait_tx(mbox_tx_idle, timeout);

	if (ret < 0)
		return ret;
	return ret ? 0 : -ETIMEDOUT;
}

int eusrv_mbox_node_id(void)
{
	struct eusrv_mbox *mb;
	int ret;

	rcu_read_lock();
	mb = rcu_dereference(eusrv_mbox_cur);
	ret = mb ? mb->node_id : -ENODEV;
	rcu_read_unlock();
	return ret;
}
EXPORT_SYMBOL_GPL(eusrv_mbox_node_id);

unsigned int eusrv_mbox_nodes(void)
{
	struct eusrv_mbox *mb;
	unsigned int n;

	rcu_read_lock();
	mb = rcu_dereference(eusrv_mbox_cur);
	n = mb ? mb->nodes : 0;
	rcu_read_unlock();
	return n;
}

int eusrv_mbox_get_stats(struct eusrv_mbox_stats *st)
{
	struct eusrv_mbox *mb;

	rcu_read_lock();
	mb = rcu_dereference(eusrv_mbox_cur);
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
	st->tx_err_cnt = readl(mb->regs + EUSRV_MBOX_TX_ERR_CNT);
	st->bad_cnt = readl(mb->regs + EUSRV_MBOX_BAD_CNT);
	st->bad_last = readl(mb->regs + EUSRV_MBOX_BAD_LAST);
	st->rx_msgs = atomic64_read(&mb->rx_msgs);
	st->rx_unhandled = atomic64_read(&mb->rx_unhandled);
	st->rx_bad_src = atomic64_read(&mb->rx_bad_src);
	st->tx_msgs = atomic64_read(&mb->tx_msgs);
	st->tx_busy = atomic64_read(&mb->tx_busy);
	st->tx_failed = atomic64_read(&mb->tx_failed);
	rcu_read_unlock();
	return 0;
}

void eusrv_mbox_reset_stats(void)
{
	struct eusrv_mbox *mb;

	rcu_read_lock();
	mb = rcu_dereference(eusrv_mbox_cur);
	if (mb) {
		atomic64_set(&mb->rx_msgs, 0);
		atomic64_set(&mb->rx_unhandled, 0);
		atomic64_set(&mb->rx_bad_src, 0);
		atomic64_set(&mb->tx_msgs, 0);
		atomic64_set(&mb->tx_busy, 0);
		atomic64_set(&mb->tx_failed, 0);
	}
	rcu_read_unlock();
}

int eusrv_mbox_pause(unsigned int ms)
{
	struct eusrv_mbox *mb;
	unsigned long flags;

	rcu_read_lock();
	mb = rcu_dereference(eusrv_mbox_cur);
	if (!mb) {
		rcu_read_unlock();
		return -ENODEV;
	}
	spin_lock_irqsave(&mb->rx_lock, flags);
	mb->paused = true;
	spin_unlock_irqrestore(&mb->rx_lock, flags);
	mod_delayed_work(system_wq, &mb->resume, msecs_to_jiffies(ms));
	rcu_read_unlock();
	return 0;
}

static int mbox_probe(struct platform_device *pdev)
{
	struct device *dev = &pdev->dev;
	struct eusrv_mbox *mb;
	struct resource *res;
	int irq, ret;
	u32 id;

	mb = devm_kzalloc(dev, sizeof(*mb), GFP_KERNEL);
	if (!mb)
		return -ENOMEM;
	mb->dev = dev;
	spin_lock_init(&mb->rx_lock);
	spin_lock_init(&mb->tx_lock);
	INIT_DELAYED_WORK(&mb->resume, mbox_resume_work);

	ret = device_property_read_u32(dev, "eusrv,node-id", &mb->node_id);
	if (ret)
		return dev_err_probe(dev, ret, "no eusrv,node-id property\n");
	if (device_property_read_u32(dev, "eusrv,max-nodes", &mb->nodes))
		mb->nodes = EUSRV_MAX_NODES;
	if (mb->node_id >= mb->nodes || mb->nodes > EUSRV_MAX_NODES)
		return dev_err_probe(dev, -EINVAL, "node %u of %u nodes is impossible\n",
				     mb->node_id, mb->nodes);

	mb->regs = devm_platform_ioremap_resource(pdev, 0);
	if (IS_ERR(mb->regs))
		return PTR_ERR(mb->regs);
	id = readl(mb->regs + EUSRV_MBOX_ID);
	if (id != EUSRV_MBOX_ID_VALUE ||
	    readl(mb->regs + EUSRV_MBOX_FIFO_SIZE) != EUSRV_MBOX_FIFO_DEPTH ||
	    readl(mb->regs + EUSRV_MBOX_TXQ_SIZE) != EUSRV_MBOX_TXQ_DEPTH)
		return dev_err_probe(dev, -ENODEV, "not a mailbox block (id %#x)\n", id);

	/* The kick register is shared by all blocks: map it, do not claim it. */
	res = platform_get_resource_byname(pdev, IORESOURCE_MEM, "kick");
	if (res && !device_property_read_u32(dev, "eusrv,kick", &mb->kick_val)) {
		mb->kick = devm_ioremap(dev, res->start, resource_size(res));
		if (!mb->kick)
			return -ENOMEM;
	}

	irq = platform_get_irq(pdev, 0);
	if (irq < 0)
		return irq;

	/* Start from the block's own counters (a reload finds them advanced). */
	mb->rx_cons = readl(mb->regs + EUSRV_MBOX_RX_PROD);
	writel(mb->rx_cons, mb->regs + EUSRV_MBOX_RX_CONS);
	mb->tx_prod = readl(mb->regs + EUSRV_MBOX_TX_PROD);
	mb->tx_reaped = mb->tx_prod;

	ret = devm_request_irq(dev, irq, mbox_irq, 0, dev_name(dev), mb);
	if (ret)
		return dev_err_probe(dev, ret, "cannot get IRQ %d\n", irq);

	if (rcu_access_pointer(eusrv_mbox_cur))
		return dev_err_probe(dev, -EBUSY, "a node has one mailbox, and it is bound\n");
	platform_set_drvdata(pdev, mb);
	writel(MBOX_CTRL_ON, mb->regs + EUSRV_MBOX_CTRL);
	rcu_assign_pointer(eusrv_mbox_cur, mb);
	dev_info(dev, "node %u of %u, FIFO depth %u\n", mb->node_id, mb->nodes,
		 EUSRV_MBOX_FIFO_DEPTH);
	return 0;
}

static int mbox_remove(struct platform_device *pdev)
{
	struct eusrv_mbox *mb = platform_get_drvdata(pdev);

	RCU_INIT_POINTER(eusrv_mbox_cur, NULL);
	synchronize_rcu();
	/* Sleepers see the mailbox gone; new ones find none. */
	wake_up_all(&eusrv_mbox_tx_wq);
	writel(0, mb->regs + EUSRV_MBOX_CTRL);
	cancel_delayed_work_sync(&mb->resume);
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

static int __init eusrv_mbox_init(void)
{
	int ret = eusrv_mbox_diag_init();

	if (ret)
		return ret;
	ret = platform_driver_register(&mbox_driver);
	if (ret)
		eusrv_mbox_diag_exit();
	return ret;
}
module_init(eusrv_mbox_init);

static void __exit eusrv_mbox_exit(void)
{
	platform_driver_unregister(&mbox_driver);
	eusrv_mbox_diag_exit();
}
module_exit(eusrv_mbox_exit);

MODULE_DESCRIPTION("EUROSERVER node mailbox");
MODULE_LICENSE("GPL");
