// SPDX-License-Identifier: GPL-2.0
/*
 * CDMA diagnostics on /dev/eusrv_cdma: checked copies to another node (or
 * this one), a transfer to an undecodable address, counters.
 *
 * A copy is one transfer of the CDMA API: a pattern from this node's
 * diagnostic buffer into one of the destination's four receive slots,
 * then a VERIFY message to the destination and a DONE message to this
 * node, both written by the engine after the data.  The destination's
 * driver checks the slot against the pattern and answers ACK (good or
 * bad); a slot is reused only after its ACK.  Messages are of type
 * EUSRV_MSG_T_CDMA_DIAG; the connection id holds the kind (bits 11:8), the
 * run number (7:2, so that messages of an abandoned run are recognised)
 * and the slot (1:0).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/fs.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/uaccess.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include <eusrv/board_hw.h>
#include <eusrv/cdma.h>
#include <eusrv/mbox.h>
#include <uapi/eusrv/cdma_diag.h>

#include "cdma_internal.h"

static_assert(EUSRV_CDMA_DIAG_MAX_NODES == EUSRV_MAX_NODES);
static_assert(EUSRV_CDMA_DIAG_MAX_LEN <= CDMA_DIAG_SLOT_SIZE);
static_assert(EUSRV_CDMA_DIAG_MAX_LEN < CDMA_DIAG_TX_SIZE);

/* Message kinds (connection id bits 11:8). */
#define DIAG_HELLO	1U	/* -> receiver: payload = seed; answer BUF */
#define DIAG_BUF	2U	/* -> sender: payload = receive buffer >> 12 */
#define DIAG_VERIFY	3U	/* -> receiver: payload = LEN | OFF | NOVERIFY */
#define DIAG_ACK	4U	/* -> sender: payload = 1 good, 0 bad */
#define DIAG_DONE	5U	/* -> self: the copy's local completion */

#define DIAG_CONN(kind, run, slot)	(((kind) << 8) | (((run) & 0x3fU) << 2) | ((slot) & 3U))
#define DIAG_KIND(conn)			(((conn) >> 8) & 0xfU)
#define DIAG_RUN(conn)			(((conn) >> 2) & 0x3fU)
#define DIAG_SLOT(conn)			((conn) & 3U)

#define DIAG_LEN_BITS		21
#define DIAG_LEN_MASK		GENMASK_ULL(DIAG_LEN_BITS - 1, 0)
#define DIAG_OFF_SHIFT		DIAG_LEN_BITS
#define DIAG_OFF_MASK		GENMASK_ULL(DIAG_LEN_BITS - 1, 0)
#define DIAG_NOVERIFY		BIT_ULL(2 * DIAG_LEN_BITS)

static_assert(EUSRV_CDMA_DIAG_MAX_LEN <= DIAG_LEN_MASK);
static_assert(CDMA_DIAG_TX_SIZE - 1 <= DIAG_OFF_MASK);

/* ---- The sender (one COPY or BADADDR at a time) ------------------------- */

static DEFINE_MUTEX(cdma_diag_run_lock);
static DEFINE_SPINLOCK(cdma_diag_tx_lock);		/* the fields below */
static DECLARE_WAIT_QUEUE_HEAD(cdma_diag_tx_wq);
static unsigned int cdma_diag_run;			/* current run number */
static unsigned int cdma_diag_peer;
static bool cdma_diag_have_buf;
static u64 cdma_diag_peer_buf;			/* peer's receive buffer */
static unsigned long cdma_diag_slot_busy;		/* bit = slot awaiting its ACK */
static u32 cdma_diag_done, cdma_diag_good, cdma_diag_bad, cdma_diag_failed;
static ktime_t cdma_diag_last_done;
static atomic64_t cdma_diag_stale;
/* failed() contexts: one per slot, and one for BADADDR. */
static u8 cdma_diag_slot_ctx[CDMA_DIAG_SLOTS];
static u8 cdma_diag_bad_ctx;
static int cdma_diag_bad_err;
static bool cdma_diag_bad_done;

/* ---- The receiver ------------------------------------------------------- */

struct cdma_diag_rx_slot {
	bool pending;
	bool noverify;
	u8 run;
	u32 len;
	u32 off;
};

struct cdma_diag_rx_peer {
	bool hello;			/* answer a HELLO */
	u32 seed;
	struct cdma_diag_rx_slot slot[CDMA_DIAG_SLOTS];
	u64 good;
	u64 bad;
};

static DEFINE_SPINLOCK(cdma_diag_rx_lock);
static struct cdma_diag_rx_peer cdma_diag_rx[EUSRV_MAX_NODES];
static atomic64_t cdma_diag_rx_unsent;		/* answers that could not be sent */

static u8 cdma_diag_pat(u32 seed, u32 k)
{
	u32 v = (k >> 2) * 2654435761U ^ seed;

	return (u8)((v ^ (v >> 15)) >> ((k & 3) * 8));
}

static bool cdma_diag_check(const u8 *p, u32 len, u32 seed, u32 off)
{
	u32 i;

	for (i = 0; i < len; i++)
		if (p[i] != cdma_diag_pat(seed, off + i))
			return false;
	return true;
}

static void cdma_diag_send(unsigned int node, unsigned int conn, u64 payload)
{
	u64 msg = eusrv_msg_make(EUSRV_MSG_T_CDMA_DIAG, conn, payload);

	if (eusrv_mbox_send_wait(node, msg, msecs_to_jiffies(EUSRV_CDMA_DIAG_DEF_TIMEOUT_MS)))
		atomic64_inc(&cdma_diag_rx_unsent);
}

/* Answer HELLOs and check slots; process context. */
static void cdma_diag_rx_fn(struct work_struct *work)
{
	struct cdma_diag_bufs bufs;
	bool have_bufs = !eusrv_cdma_get_bufs(&bufs);
	unsigned int src, s;

	for (src = 0; src < EUSRV_MAX_NODES; src++) {
		struct cdma_diag_rx_peer *p = &cdma_diag_rx[src];
		struct cdma_diag_rx_slot job;
		bool hello;
		u32 seed;

		spin_lock_irq(&cdma_diag_rx_lock);
		hello = p->hello;
		p->hello = false;
		spin_unlock_irq(&cdma_diag_rx_lock);
		if (hello)
			cdma_diag_send(src, DIAG_CONN(DIAG_BUF, 0, 0),
				       have_bufs ? EUSRV_GA_LOCAL(bufs.rx_ga) >> PAGE_SHIFT : 0);
		for (s = 0; s < CDMA_DIAG_SLOTS; s++) {
			bool good = true;

			spin_lock_irq(&cdma_diag_rx_lock);
			job = p->slot[s];
			p->slot[s].pending = false;
			seed = p->seed;
			spin_unlock_irq(&cdma_diag_rx_lock);
			if (!job.pending)
				continue;
			if (!job.noverify)
				good = have_bufs &&
				       cdma_diag_check((u8 *)bufs.rx + s * CDMA_DIAG_SLOT_SIZE,
						       job.len, seed, job.off);
			spin_lock_irq(&cdma_diag_rx_lock);
			if (good)
				p->good++;
			else
				p->bad++;
			spin_unlock_irq(&cdma_diag_rx_lock);
			cdma_diag_send(src, DIAG_CONN(DIAG_ACK, job.run, s), good);
		}
	}
	if (have_bufs)
		eusrv_cdma_put_bufs();
}

static DECLARE_WORK(cdma_diag_rx_work, cdma_diag_rx_fn);

static void cdma_diag_tx_msg(unsigned int src, unsigned int kind, unsigned int conn,
			     u64 payload)
{
	unsigned long flags;
	unsigned int slot = DIAG_SLOT(conn);

	spin_lock_irqsave(&cdma_diag_tx_lock, flags);
	if (DIAG_RUN(conn) != (cdma_diag_run & 0x3fU) && kind != DIAG_BUF) {
		atomic64_inc(&cdma_diag_stale);
	} else if (kind == DIAG_BUF) {
		if (src == cdma_diag_peer && !cdma_diag_have_buf && payload) {
			cdma_diag_peer_buf = EUSRV_GA(src, payload << PAGE_SHIFT);
			cdma_diag_have_buf = true;
		}
	} else if (kind == DIAG_ACK) {
		if (src == cdma_diag_peer && test_bit(slot, &cdma_diag_slot_busy)) {
			clear_bit(slot, &cdma_diag_slot_busy);
			if (payload == 1)
				cdma_diag_good++;
			else
				cdma_diag_bad++;
		} else {
			atomic64_inc(&cdma_diag_stale);
		}
	} else if (kind == DIAG_DONE) {
		cdma_diag_done++;
		cdma_diag_last_done = ktime_get();
	}
	spin_unlock_irqrestore(&cdma_diag_tx_lock, flags);
	wake_up_all(&cdma_diag_tx_wq);
}

/* Hard-IRQ context (mailbox handler). */
static void cdma_diag_msg_rx(void *ctx, unsigned int src, u64 msg)
{
	unsigned int conn = eusrv_msg_conn(msg), kind = DIAG_KIND(conn);
	u64 payload = eusrv_msg_payload(msg);
	struct cdma_diag_rx_slot *s;
	unsigned long flags;

	if (src >= EUSRV_MAX_NODES)
		return;
	switch (kind) {
	case DIAG_HELLO:
	case DIAG_VERIFY:
		spin_lock_irqsave(&cdma_diag_rx_lock, flags);
		if (kind == DIAG_HELLO) {
			cdma_diag_rx[src].hello = true;
			cdma_diag_rx[src].seed = (u32)payload;
		} else {
			s = &cdma_diag_rx[src].slot[DIAG_SLOT(conn)];
			s->pending = true;
			s->run = DIAG_RUN(conn);
			s->len = payload & DIAG_LEN_MASK;
			s->off = (payload >> DIAG_OFF_SHIFT) & DIAG_OFF_MASK;
			s->noverify = payload & DIAG_NOVERIFY;
			/* Never read beyond the slot or the pattern's range. */
			if (s->len > CDMA_DIAG_SLOT_SIZE)
				s->len = CDMA_DIAG_SLOT_SIZE;
		}
		spin_unlock_irqrestore(&cdma_diag_rx_lock, flags);
		schedule_work(&cdma_diag_rx_work);
		break;
	case DIAG_BUF:
	case DIAG_ACK:
	case DIAG_DONE:
		cdma_diag_tx_msg(src, kind, conn, payload);
		break;
	default:
		atomic64_inc(&cdma_diag_stale);
		break;
	}
}

static const struct eusrv_mbox_handler cdma_diag_handler = {
	.rx = cdma_diag_msg_rx,
};

/* failed() of the copies: process context. */
static void cdma_diag_copy_failed(void *ctx, int err)
{
	unsigned int slot = (u8 *)ctx - cdma_diag_slot_ctx;

	spin_lock_irq(&cdma_diag_tx_lock);
	if (slot < CDMA_DIAG_SLOTS)
		clear_bit(slot, &cdma_diag_slot_busy);
	cdma_diag_failed++;
	spin_unlock_irq(&cdma_diag_tx_lock);
	wake_up_all(&cdma_diag_tx_wq);
}

static void cdma_diag_bad_failed(void *ctx, int err)
{
	spin_lock_irq(&cdma_diag_tx_lock);
	cdma_diag_bad_err = err;
	cdma_diag_bad_done = true;
	spin_unlock_irq(&cdma_diag_tx_lock);
	wake_up_all(&cdma_diag_tx_wq);
}

static bool cdma_diag_slot_free(unsigned int slot)
{
	return !test_bit(slot, &cdma_diag_slot_busy);
}

static bool cdma_diag_all_in(u32 count)
{
	bool in;

	spin_lock_irq(&cdma_diag_tx_lock);
	in = !cdma_diag_slot_busy && cdma_diag_done + cdma_diag_failed >= count;
	spin_unlock_irq(&cdma_diag_tx_lock);
	return in;
}

static int cdma_diag_no_restart(int ret)
{
	return ret == -ERESTARTSYS ? -EINTR : ret;
}

/* Wait for COND up to TIMEOUT: 0, -ETIMEDOUT or -EINTR. */
#define cdma_diag_wait(cond, timeout) ({						\
	long __l = wait_event_interruptible_timeout(cdma_diag_tx_wq, (cond), (timeout)); \
	__l < 0 ? -EINTR : __l == 0 ? -ETIMEDOUT : 0;				\
})

/*
 * Where copy I of LEN bytes starts in the transmit buffer; div_u64_rem(),
 * since 32-bit ARM has no 64-bit division helper in the kernel.
 */
static u32 cdma_diag_off(u32 i, u32 len)
{
	u32 off;

	div_u64_rem((u64)i * 4099U, CDMA_DIAG_TX_SIZE - len + 1, &off);
	return off;
}

static void cdma_diag_new_run(unsigned int peer)
{
	spin_lock_irq(&cdma_diag_tx_lock);
	cdma_diag_run++;
	cdma_diag_peer = peer;
	cdma_diag_have_buf = false;
	cdma_diag_slot_busy = 0;
	cdma_diag_done = 0;
	cdma_diag_good = 0;
	cdma_diag_bad = 0;
	cdma_diag_failed = 0;
	cdma_diag_bad_done = false;
	cdma_diag_bad_err = 0;
	spin_unlock_irq(&cdma_diag_tx_lock);
}

static int cdma_diag_copy_run(struct eusrv_cdma_copy *c, const struct cdma_diag_bufs *b,
			      int self, long timeout)
{
	u32 i, k, run = cdma_diag_run & 0x3fU;
	ktime_t start;
	int ret;

	for (k = 0; k < CDMA_DIAG_TX_SIZE; k++)
		((u8 *)b->tx)[k] = cdma_diag_pat(c->seed, k);
	cdma_diag_send(c->node, DIAG_CONN(DIAG_HELLO, run, 0), c->seed);
	ret = cdma_diag_wait(READ_ONCE(cdma_diag_have_buf), timeout);
	if (ret)
		return ret;
	start = ktime_get();
	for (i = 0; i < c->count; i++) {
		u32 slot = i % CDMA_DIAG_SLOTS;
		u32 off = cdma_diag_off(i, c->len);
		u64 verify = c->len | (u64)off << DIAG_OFF_SHIFT |
			     (c->flags & EUSRV_CDMA_DIAG_F_NOVERIFY ? DIAG_NOVERIFY : 0);
		struct eusrv_cdma_xfer x = {
			.nr_ext = 1,
			.ext[0] = {
				.src = b->tx_ga + off,
				.dst = cdma_diag_peer_buf + (u64)slot * CDMA_DIAG_SLOT_SIZE,
				.len = c->len,
			},
			.nr_msg = 2,
			.msg[0] = {
				.node = c->node,
				.msg = eusrv_msg_make(EUSRV_MSG_T_CDMA_DIAG,
						      DIAG_CONN(DIAG_VERIFY, run, slot), verify),
			},
			.msg[1] = {
				.node = self,
				.msg = eusrv_msg_make(EUSRV_MSG_T_CDMA_DIAG,
						      DIAG_CONN(DIAG_DONE, run, slot), i),
			},
			.failed = cdma_diag_copy_failed,
			.ctx = &cdma_diag_slot_ctx[slot],
		};

		ret = cdma_diag_wait(cdma_diag_slot_free(slot), timeout);
		if (ret)
			break;
		set_bit(slot, &cdma_diag_slot_busy);
		ret = eusrv_cdma_submit(&x, timeout);
		if (ret) {
			clear_bit(slot, &cdma_diag_slot_busy);
			break;
		}
	}
	if (!ret)
		ret = cdma_diag_wait(cdma_diag_all_in(c->count), timeout);
	for (k = 0; k < CDMA_DIAG_SLOTS; k++)
		eusrv_cdma_sync(&cdma_diag_slot_ctx[k]);
	spin_lock_irq(&cdma_diag_tx_lock);
	c->done = cdma_diag_done;
	c->good = cdma_diag_good;
	c->bad = cdma_diag_bad;
	c->failed = cdma_diag_failed;
	c->bytes = (u64)cdma_diag_done * c->len;
	c->elapsed_ns = cdma_diag_done ? ktime_to_ns(ktime_sub(cdma_diag_last_done, start)) : 0;
	spin_unlock_irq(&cdma_diag_tx_lock);
	return ret;
}

static long cdma_diag_timeout(u32 ms)
{
	return msecs_to_jiffies(ms ? ms : EUSRV_CDMA_DIAG_DEF_TIMEOUT_MS);
}

static int cdma_diag_copy(struct eusrv_cdma_copy *c)
{
	struct cdma_diag_bufs b;
	unsigned int nodes;
	int self, ret;

	if (!c->len || c->len > EUSRV_CDMA_DIAG_MAX_LEN || !c->count ||
	    c->count > EUSRV_CDMA_DIAG_MAX_COUNT || c->flags & ~EUSRV_CDMA_DIAG_F_ALL ||
	    c->timeout_ms > EUSRV_CDMA_DIAG_MAX_TIMEOUT_MS)
		return -EINVAL;
	nodes = eusrv_cdma_nodes();
	if (!nodes)
		return -ENODEV;
	if (c->node >= nodes)
		return -EINVAL;
	self = eusrv_cdma_node_id();
	if (self < 0)
		return self;
	if (mutex_lock_interruptible(&cdma_diag_run_lock))
		return -EINTR;
	ret = eusrv_cdma_get_bufs(&b);
	if (!ret) {
		cdma_diag_new_run(c->node);
		ret = cdma_diag_copy_run(c, &b, self, cdma_diag_timeout(c->timeout_ms));
		eusrv_cdma_put_bufs();
	}
	mutex_unlock(&cdma_diag_run_lock);
	return cdma_diag_no_restart(ret);
}

static int cdma_diag_badaddr(struct eusrv_cdma_badaddr *a)
{
	struct eusrv_cdma_stats *st;
	struct cdma_diag_bufs b;
	long timeout;
	int self, ret;

	if (a->reserved || a->timeout_ms > EUSRV_CDMA_DIAG_MAX_TIMEOUT_MS)
		return -EINVAL;
	self = eusrv_cdma_node_id();
	if (self < 0)
		return self;
	st = kzalloc(sizeof(*st), GFP_KERNEL);
	if (!st)
		return -ENOMEM;
	timeout = cdma_diag_timeout(a->timeout_ms);
	if (mutex_lock_interruptible(&cdma_diag_run_lock)) {
		kfree(st);
		return -EINTR;
	}
	ret = eusrv_cdma_get_bufs(&b);
	if (!ret) {
		struct eusrv_cdma_xfer x = {
			.nr_ext = 1,
			.ext[0] = {
				.src = b.tx_ga,
				.dst = a->addr ? a->addr :
				       EUSRV_GA(self, EUSRV_GA_BLOCKS - PAGE_SIZE),
				.len = 64,
			},
			.nr_msg = 1,
			.msg[0] = {
				.node = self,
				.msg = eusrv_msg_make(EUSRV_MSG_T_CDMA_DIAG,
						      DIAG_CONN(DIAG_DONE, 0, 0), 0),
			},
			.failed = cdma_diag_bad_failed,
			.ctx = &cdma_diag_bad_ctx,
		};

		cdma_diag_new_run(self);
		ret = eusrv_cdma_submit(&x, timeout);
		if (!ret) {
			ret = cdma_diag_wait(READ_ONCE(cdma_diag_bad_done) ||
					     READ_ONCE(cdma_diag_done), timeout);
			eusrv_cdma_sync(&cdma_diag_bad_ctx);
		}
		eusrv_cdma_put_bufs();
	}
	spin_lock_irq(&cdma_diag_tx_lock);
	a->error = cdma_diag_bad_done ? cdma_diag_bad_err : 0;
	spin_unlock_irq(&cdma_diag_tx_lock);
	mutex_unlock(&cdma_diag_run_lock);
	if (!eusrv_cdma_get_stats(st))
		a->resets = (u32)st->resets;
	kfree(st);
	return cdma_diag_no_restart(ret);
}

static int cdma_diag_stats(struct eusrv_cdma_stats __user *ust)
{
	struct eusrv_cdma_stats *st;
	unsigned int i;
	int ret;

	st = kzalloc(sizeof(*st), GFP_KERNEL);
	if (!st)
		return -ENOMEM;
	ret = eusrv_cdma_get_stats(st);
	if (!ret) {
		spin_lock_irq(&cdma_diag_rx_lock);
		for (i = 0; i < EUSRV_MAX_NODES; i++) {
			st->rx_good[i] = cdma_diag_rx[i].good;
			st->rx_bad[i] = cdma_diag_rx[i].bad;
		}
		spin_unlock_irq(&cdma_diag_rx_lock);
		if (copy_to_user(ust, st, sizeof(*st)))
			ret = -EFAULT;
	}
	kfree(st);
	return ret;
}

static void cdma_diag_reset(void)
{
	unsigned int i;

	spin_lock_irq(&cdma_diag_rx_lock);
	for (i = 0; i < EUSRV_MAX_NODES; i++) {
		cdma_diag_rx[i].good = 0;
		cdma_diag_rx[i].bad = 0;
	}
	spin_unlock_irq(&cdma_diag_rx_lock);
	atomic64_set(&cdma_diag_stale, 0);
	atomic64_set(&cdma_diag_rx_unsent, 0);
	eusrv_cdma_reset_stats();
}

static long cdma_diag_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	void __user *uarg = (void __user *)arg;
	union {
		struct eusrv_cdma_copy copy;
		struct eusrv_cdma_badaddr bad;
	} u;
	int ret;

	switch (cmd) {
	case EUSRV_CDMA_IOC_COPY:
		if (copy_from_user(&u.copy, uarg, sizeof(u.copy)))
			return -EFAULT;
		u.copy.done = 0;
		u.copy.good = 0;
		u.copy.bad = 0;
		u.copy.failed = 0;
		u.copy.bytes = 0;
		u.copy.elapsed_ns = 0;
		ret = cdma_diag_copy(&u.copy);
		/* Partial results go back with the error. */
		if (copy_to_user(uarg, &u.copy, sizeof(u.copy)))
			return -EFAULT;
		return ret;
	case EUSRV_CDMA_IOC_BADADDR:
		if (copy_from_user(&u.bad, uarg, sizeof(u.bad)))
			return -EFAULT;
		u.bad.error = 0;
		u.bad.resets = 0;
		ret = cdma_diag_badaddr(&u.bad);
		if (copy_to_user(uarg, &u.bad, sizeof(u.bad)))
			return -EFAULT;
		return ret;
	case EUSRV_CDMA_IOC_STATS:
		return cdma_diag_stats(uarg);
	case EUSRV_CDMA_IOC_RESET:
		cdma_diag_reset();
		return 0;
	default:
		return -ENOTTY;
	}
}

static const struct file_operations cdma_diag_fops = {
	.owner = THIS_MODULE,
	.unlocked_ioctl = cdma_diag_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = noop_llseek,
};

static struct miscdevice cdma_diag_dev = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "eusrv_cdma",
	.fops = &cdma_diag_fops,
	.mode = 0600,
};

static int __init cdma_diag_init(void)
{
	int ret = eusrv_mbox_register(EUSRV_MSG_T_CDMA_DIAG, &cdma_diag_handler);

	if (ret) {
		pr_err("cannot register the handler of message type %u: error %d\n",
		       EUSRV_MSG_T_CDMA_DIAG, ret);
		return ret;
	}
	ret = misc_register(&cdma_diag_dev);
	if (ret) {
		pr_err("cannot register /dev/%s: error %d\n", cdma_diag_dev.name, ret);
		eusrv_mbox_unregister(EUSRV_MSG_T_CDMA_DIAG);
	}
	return ret;
}

static void __exit cdma_diag_exit(void)
{
	misc_deregister(&cdma_diag_dev);
	eusrv_mbox_unregister(EUSRV_MSG_T_CDMA_DIAG);
	cancel_work_sync(&cdma_diag_rx_work);
}
module_init(cdma_diag_init);
module_exit(cdma_diag_exit);

MODULE_DESCRIPTION("EUROSERVER node AXI CDMA tester (/dev/eusrv_cdma)");
MODULE_LICENSE("GPL");
