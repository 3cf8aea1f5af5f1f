// SPDX-License-Identifier: GPL-2.0
/*
 * Mailbox diagnostics on /dev/eusrv_mbox: kernel-to-kernel ping-pong with
 * round-trip times, a numbered flood checked by the receiver, counters and
 * a way to stop draining the FIFO for a while (to make it overflow).
 *
 * The handlers of the board's diagnostic message types live here too: a
 * PING is answered with a PONG carrying the same connection id and payload
 * from the interrupt handler, so a round trip measures the mailbox path
 * only.  The connection id of a PING is the number of the ping run, so a
 * reply that comes too late for its run is recognised as stale rather
 * than taken for a wrong answer.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/build_bug.h>
#include <linux/completion.h>
#include <linux/fs.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/overflow.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/uaccess.h>

#include <eusrv/board_hw.h>
#include <eusrv/mbox.h>
#include <uapi/eusrv/mbox_diag.h>

#include "mbox_internal.h"
#include "mbox_seq.h"

static_assert(EUSRV_MBOX_DIAG_MAX_NODES == EUSRV_MAX_NODES);

/* Connection id outside the 12-bit field: no ping run in progress. */
#define DIAG_NO_RUN		(EUSRV_MSG_CONN_MASK + 1)
/* Long enough for every queued store to wait out its full-FIFO timeout. */
#define DIAG_FLUSH_TIMEOUT_MS	(2 * EUSRV_MBOX_STORE_TIMEOUT_MS * EUSRV_MBOX_TXQ_DEPTH)
/* A flood looks at signals and lets others run this often. */
#define DIAG_FLOOD_BATCH	1024U

/* The ping run in progress (at most one, under mbox_diag_ping_lock). */
static DEFINE_MUTEX(mbox_diag_ping_lock);
static DEFINE_SPINLOCK(mbox_diag_pong_lock);		/* the fields below */
static DECLARE_COMPLETION(mbox_diag_pong_done);
static unsigned int mbox_diag_ping_run = DIAG_NO_RUN;
static unsigned int mbox_diag_ping_runs;
static bool mbox_diag_ping_armed;			/* a PING awaits its PONG */
static unsigned int mbox_diag_ping_node;
static u64 mbox_diag_ping_msg;			/* the PING awaiting a PONG */
static u64 mbox_diag_ping_reply_ns;
static bool mbox_diag_ping_undelivered;		/* the board says why: */
static u32 mbox_diag_ping_tx_status;
static u32 mbox_diag_ping_errors;

static atomic64_t mbox_diag_ping_stale;
static atomic64_t mbox_diag_pong_unsent;
static atomic64_t mbox_diag_pong_failed;

/* SEQ streams: numbers sent per destination, bookkeeping per source. */
static DEFINE_SPINLOCK(mbox_diag_seq_lock);
static u64 mbox_diag_seq_tx[EUSRV_MAX_NODES];
static struct mbox_seq mbox_diag_seq_rx[EUSRV_MAX_NODES];
/* One flood per destination at a time, so that its numbers stay in order. */
static struct mutex mbox_diag_flood_lock[EUSRV_MAX_NODES];
static atomic_t mbox_diag_flood_failed[EUSRV_MAX_NODES];
static u32 mbox_diag_flood_status[EUSRV_MAX_NODES];

static const char *mbox_diag_status_name(u32 status)
{
	switch (status) {
	case EUSRV_MBOX_ST_FULL:
		return "destination FIFO full until the store timed out";
	case EUSRV_MBOX_ST_DECERR:
		return "no such node (decode error)";
	case EUSRV_MBOX_ST_DISABLED:
		return "destination mailbox disabled";
	default:
		return "unknown completion status";
	}
}

static int mbox_diag_status_errno(u32 status)
{
	switch (status) {
	case EUSRV_MBOX_ST_FULL:
		return -ENOBUFS;
	case EUSRV_MBOX_ST_DECERR:
		return -EHOSTUNREACH;
	case EUSRV_MBOX_ST_DISABLED:
		return -ECONNREFUSED;
	default:
		return -EIO;
	}
}

static void mbox_diag_ping_rx(void *ctx, unsigned int src, u64 msg)
{
	u64 reply = eusrv_msg_make(EUSRV_MSG_T_PONG, eusrv_msg_conn(msg),
				   eusrv_msg_payload(msg));
	int ret = eusrv_mbox_send(src, reply);

	if (ret) {
		atomic64_inc(&mbox_diag_pong_unsent);
		pr_warn_ratelimited("cannot answer a ping from node %u: error %d\n",
				    src, ret);
	}
}

static void mbox_diag_ping_tx_error(void *ctx, unsigned int dst, u64 msg, u32 status)
{
	unsigned long flags;

	spin_lock_irqsave(&mbox_diag_pong_lock, flags);
	if (mbox_diag_ping_armed && dst == mbox_diag_ping_node && msg == mbox_diag_ping_msg) {
		mbox_diag_ping_armed = false;
		mbox_diag_ping_undelivered = true;
		mbox_diag_ping_tx_status = status;
		complete(&mbox_diag_pong_done);
	}
	spin_unlock_irqrestore(&mbox_diag_pong_lock, flags);
}

static void mbox_diag_pong_rx(void *ctx, unsigned int src, u64 msg)
{
	u64 now = ktime_get_ns();
	unsigned long flags;

	spin_lock_irqsave(&mbox_diag_pong_lock, flags);
	if (eusrv_msg_conn(msg) != mbox_diag_ping_run) {
		atomic64_inc(&mbox_diag_ping_stale);
	} else if (mbox_diag_ping_armed && src == mbox_diag_ping_node &&
		   eusrv_msg_payload(msg) == eusrv_msg_payload(mbox_diag_ping_msg)) {
		mbox_diag_ping_armed = false;
		mbox_diag_ping_reply_ns = now;
		complete(&mbox_diag_pong_done);
	} else {
		/* Wrong source or payload, or a second reply. */
		mbox_diag_ping_errors++;
	}
	spin_unlock_irqrestore(&mbox_diag_pong_lock, flags);
}

static void mbox_diag_pong_tx_error(void *ctx, unsigned int dst, u64 msg, u32 status)
{
	atomic64_inc(&mbox_diag_pong_failed);
}

static void mbox_diag_seq_rx_fn(void *ctx, unsigned int src, u64 msg)
{
	unsigned long flags;

	if (src >= EUSRV_MAX_NODES)
		return;
	spin_lock_irqsave(&mbox_diag_seq_lock, flags);
	mbox_seq_rx(&mbox_diag_seq_rx[src], eusrv_msg_payload(msg));
	spin_unlock_irqrestore(&mbox_diag_seq_lock, flags);
}

static void mbox_diag_seq_tx_error(void *ctx, unsigned int dst, u64 msg, u32 status)
{
	if (dst >= EUSRV_MAX_NODES)
		return;
	atomic_inc(&mbox_diag_flood_failed[dst]);
	WRITE_ONCE(mbox_diag_flood_status[dst], status);
}

static const struct eusrv_mbox_handler mbox_diag_handlers[] = {
	{ .rx = mbox_diag_seq_rx_fn, .tx_error = mbox_diag_seq_tx_error },
	{ .rx = mbox_diag_ping_rx, .tx_error = mbox_diag_ping_tx_error },
	{ .rx = mbox_diag_pong_rx, .tx_error = mbox_diag_pong_tx_error },
};

static const unsigned int mbox_diag_types[] = {
	EUSRV_MSG_T_SEQ, EUSRV_MSG_T_PING, EUSRV_MSG_T_PONG,
};

static_assert(ARRAY_SIZE(mbox_diag_handlers) == ARRAY_SIZE(mbox_diag_types));

static int mbox_diag_check_node(u32 node)
{
	unsigned int nodes = eusrv_mbox_nodes();

	if (!nodes)
		return -ENODEV;
	return node < nodes ? 0 : -EINVAL;
}

/* Interrupted waits end the call with partial results, never restart it. */
static int mbox_diag_no_restart(int ret)
{
	return ret == -ERESTARTSYS ? -EINTR : ret;
}

/* Round trip I of the run: 0 with its time in *RTT_NS, or an error. */
static int mbox_diag_ping_one(u32 node, u32 i, long timeout, u32 *rtt_ns)
{
	u64 msg = eusrv_msg_make(EUSRV_MSG_T_PING, mbox_diag_ping_run, i);
	unsigned long flags;
	bool sent, undelivered = false;
	u32 status = 0;
	long left;
	u64 t0;
	int ret;

	reinit_completion(&mbox_diag_pong_done);
	spin_lock_irqsave(&mbox_diag_pong_lock, flags);
	mbox_diag_ping_node = node;
	mbox_diag_ping_msg = msg;
	mbox_diag_ping_undelivered = false;
	mbox_diag_ping_tx_status = 0;
	mbox_diag_ping_armed = true;
	spin_unlock_irqrestore(&mbox_diag_pong_lock, flags);

	t0 = ktime_get_ns();
	ret = eusrv_mbox_send_wait(node, msg, timeout);
	sent = !ret;
	if (sent) {
		left = wait_for_completion_interruptible_timeout(&mbox_diag_pong_done,
								 timeout);
		ret = left < 0 ? left : 0;
	}

	spin_lock_irqsave(&mbox_diag_pong_lock, flags);
	/* Decided under the lock: the answer may race with the timeout. */
	if (sent && !mbox_diag_ping_armed) {
		undelivered = mbox_diag_ping_undelivered;
		status = mbox_diag_ping_tx_status;
		if (undelivered)
			ret = mbox_diag_status_errno(status);
		else
			*rtt_ns = (u32)min_t(u64, mbox_diag_ping_reply_ns - t0, U32_MAX);
	} else if (!ret) {
		ret = -ETIMEDOUT;
	}
	mbox_diag_ping_armed = false;
	spin_unlock_irqrestore(&mbox_diag_pong_lock, flags);

	/* Rate-limited: a script may ping a dead node in a loop. */
	if (undelivered)
		pr_warn_ratelimited("ping node %u: message %u not delivered: %s\n",
				    node, i, mbox_diag_status_name(status));
	else if (ret == -ETIMEDOUT && sent)
		pr_warn_ratelimited("ping node %u: no reply to message %u within %u ms\n",
				    node, i, jiffies_to_msecs(timeout));
	else if (ret == -ETIMEDOUT)
		pr_warn_ratelimited("ping node %u: outbound queue full for %u ms\n",
				    node, jiffies_to_msecs(timeout));
	return ret;
}

static int mbox_diag_ping(struct eusrv_mbox_ping *p)
{
	u32 __user *usamples = u64_to_user_ptr(p->samples);
	long timeout;
	u32 *samples;
	u32 i = 0;
	int ret;

	if (p->count == 0 || p->count > EUSRV_MBOX_DIAG_MAX_PING || p->flags ||
	    p->reserved || p->timeout_ms > EUSRV_MBOX_DIAG_MAX_TIMEOUT_MS)
		return -EINVAL;
	/* Refuse a bad buffer now rather than after the round trips. */
	if (!access_ok(usamples, array_size(p->count, sizeof(*usamples))))
		return -EFAULT;
	ret = mbox_diag_check_node(p->node);
	if (ret)
		return ret;
	timeout = msecs_to_jiffies(p->timeout_ms ? p->timeout_ms :
				   EUSRV_MBOX_DIAG_DEF_TIMEOUT_MS);
	samples = kvmalloc_array(p->count, sizeof(*samples), GFP_KERNEL);
	if (!samples)
		return -ENOMEM;
	if (mutex_lock_interruptible(&mbox_diag_ping_lock)) {
		kvfree(samples);
		return -EINTR;
	}
	spin_lock_irq(&mbox_diag_pong_lock);
	mbox_diag_ping_run = mbox_diag_ping_runs++ & EUSRV_MSG_CONN_MASK;
	mbox_diag_ping_errors = 0;
	spin_unlock_irq(&mbox_diag_pong_lock);

	for (i = 0; i < p->count; i++) {
		ret = mbox_diag_ping_one(p->node, i, timeout, &samples[i]);
		if (ret)
			break;
	}

	spin_lock_irq(&mbox_diag_pong_lock);
	p->errors = mbox_diag_ping_errors;
	p->tx_status = mbox_diag_ping_tx_status;
	mbox_diag_ping_run = DIAG_NO_RUN;
	spin_unlock_irq(&mbox_diag_pong_lock);
	mutex_unlock(&mbox_diag_ping_lock);

	p->done = i;
	if (i && copy_to_user(usamples, samples, i * sizeof(*samples)))
		ret = -EFAULT;
	kvfree(samples);
	return mbox_diag_no_restart(ret);
}

static u64 mbox_diag_seq_next(u32 node)
{
	unsigned long flags;
	u64 seq;

	spin_lock_irqsave(&mbox_diag_seq_lock, flags);
	seq = mbox_diag_seq_tx[node];
	spin_unlock_irqrestore(&mbox_diag_seq_lock, flags);
	return seq;
}

static void mbox_diag_seq_sent(u32 node, u64 seq)
{
	unsigned long flags;

	spin_lock_irqsave(&mbox_diag_seq_lock, flags);
	mbox_diag_seq_tx[node] = seq + 1;
	spin_unlock_irqrestore(&mbox_diag_seq_lock, flags);
}

static int mbox_diag_flood(struct eusrv_mbox_flood *f)
{
	long timeout;
	int ret;
	u32 i;

	if (f->flags & ~EUSRV_MBOX_FLOOD_NOFLUSH ||
	    f->timeout_ms > EUSRV_MBOX_DIAG_MAX_TIMEOUT_MS)
		return -EINVAL;
	ret = mbox_diag_check_node(f->node);
	if (ret)
		return ret;
	timeout = msecs_to_jiffies(f->timeout_ms ? f->timeout_ms :
				   EUSRV_MBOX_DIAG_DEF_TIMEOUT_MS);
	if (mutex_lock_interruptible(&mbox_diag_flood_lock[f->node]))
		return -EINTR;
	f->sent = 0;
	f->waits = 0;
	atomic_set(&mbox_diag_flood_failed[f->node], 0);
	WRITE_ONCE(mbox_diag_flood_status[f->node], 0);

	for (i = 0; i < f->count; i++) {
		u64 seq = mbox_diag_seq_next(f->node);
		u64 msg = eusrv_msg_make(EUSRV_MSG_T_SEQ, 0, seq);

		ret = eusrv_mbox_send(f->node, msg);
		if (ret == -EAGAIN) {
			f->waits++;
			ret = eusrv_mbox_send_wait(f->node, msg, timeout);
		}
		if (ret)
			break;
		mbox_diag_seq_sent(f->node, seq);
		f->sent++;
		if (i % DIAG_FLOOD_BATCH == DIAG_FLOOD_BATCH - 1) {
			cond_resched();
			if (signal_pending(current)) {
				ret = -EINTR;
				break;
			}
		}
	}
	if (ret == -ETIMEDOUT)
		pr_warn_ratelimited("flood node %u: outbound queue still full after %u ms\n",
				    f->node, jiffies_to_msecs(timeout));
	/* Every message's fate is known once the queue has drained. */
	if (!ret && !(f->flags & EUSRV_MBOX_FLOOD_NOFLUSH)) {
		ret = eusrv_mbox_flush(msecs_to_jiffies(DIAG_FLUSH_TIMEOUT_MS));
		if (ret == -ETIMEDOUT)
			pr_warn_ratelimited("flood node %u: messages not completed after %u ms\n",
					    f->node, DIAG_FLUSH_TIMEOUT_MS);
	}
	f->failed = atomic_read(&mbox_diag_flood_failed[f->node]);
	f->tx_status = READ_ONCE(mbox_diag_flood_status[f->node]);
	mutex_unlock(&mbox_diag_flood_lock[f->node]);
	return mbox_diag_no_restart(ret);
}

static int mbox_diag_stats(struct eusrv_mbox_stats __user *ust)
{
	struct eusrv_mbox_stats *st;
	unsigned int i;
	int ret;

	st = kzalloc(sizeof(*st), GFP_KERNEL);
	if (!st)
		return -ENOMEM;
	ret = eusrv_mbox_get_stats(st);
	if (ret)
		goto out;
	st->ping_stale = atomic64_read(&mbox_diag_ping_stale);
	st->pong_unsent = atomic64_read(&mbox_diag_pong_unsent);
	st->pong_failed = atomic64_read(&mbox_diag_pong_failed);
	spin_lock_irq(&mbox_diag_seq_lock);
	for (i = 0; i < EUSRV_MAX_NODES; i++) {
		const struct mbox_seq *s = &mbox_diag_seq_rx[i];

		st->seq[i].received = s->received;
		st->seq[i].dup = s->dup;
		st->seq[i].gap = s->gap;
		st->seq[i].late = s->late;
		st->seq[i].last = s->received ? mbox_seq_last(s) : 0;
	}
	spin_unlock_irq(&mbox_diag_seq_lock);
	if (copy_to_user(ust, st, sizeof(*st)))
		ret = -EFAULT;
out:
	kfree(st);
	return ret;
}

/* Counters and sequence numbers back to zero (not while a flood runs). */
static void mbox_diag_reset(void)
{
	spin_lock_irq(&mbox_diag_seq_lock);
	memset(mbox_diag_seq_rx, 0, sizeof(mbox_diag_seq_rx));
	memset(mbox_diag_seq_tx, 0, sizeof(mbox_diag_seq_tx));
	spin_unlock_irq(&mbox_diag_seq_lock);
	atomic64_set(&mbox_diag_ping_stale, 0);
	atomic64_set(&mbox_diag_pong_unsent, 0);
	atomic64_set(&mbox_diag_pong_failed, 0);
	eusrv_mbox_reset_stats();
}

static long mbox_diag_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	void __user *uarg = (void __user *)arg;
	union {
		struct eusrv_mbox_ping ping;
		struct eusrv_mbox_flood flood;
	} u;
	u32 ms;
	int ret;

	switch (cmd) {
	case EUSRV_MBOX_IOC_PING:
		if (copy_from_user(&u.ping, uarg, sizeof(u.ping)))
			return -EFAULT;
		ret = mbox_diag_ping(&u.ping);
		/* Partial results go back with the error. */
		if (copy_to_user(uarg, &u.ping, sizeof(u.ping)))
			return -EFAULT;
		return ret;
	case EUSRV_MBOX_IOC_FLOOD:
		if (copy_from_user(&u.flood, uarg, sizeof(u.flood)))
			return -EFAULT;
		ret = mbox_diag_flood(&u.flood);
		if (copy_to_user(uarg, &u.flood, sizeof(u.flood)))
			return -EFAULT;
		return ret;
	case EUSRV_MBOX_IOC_STATS:
		return mbox_diag_stats(uarg);
	case EUSRV_MBOX_IOC_RESET:
		mbox_diag_reset();
		return 0;
	case EUSRV_MBOX_IOC_PAUSE:
		if (get_user(ms, (u32 __user *)uarg))
			return -EFAULT;
		if (ms == 0 || ms > EUSRV_MBOX_DIAG_MAX_PAUSE_MS)
			return -EINVAL;
		return eusrv_mbox_pause(ms);
	default:
		return -ENOTTY;
	}
}

static const struct file_operations mbox_diag_fops = {
	.owner = THIS_MODULE,
	.unlocked_ioctl = mbox_diag_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = noop_llseek,
};

static struct miscdevice mbox_diag_dev = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "eusrv_mbox",
	.fops = &mbox_diag_fops,
	.mode = 0600,
};

static int __init mbox_diag_init(void)
{
	unsigned int i;
	int ret;

	for (i = 0; i < EUSRV_MAX_NODES; i++)
		mutex_init(&mbox_diag_flood_lock[i]);
	for (i = 0; i < ARRAY_SIZE(mbox_diag_types); i++) {
		ret = eusrv_mbox_register(mbox_diag_types[i], &mbox_diag_handlers[i]);
		if (ret) {
			pr_err("cannot register the handler of message type %u: error %d\n",
			       mbox_diag_types[i], ret);
			goto err;
		}
	}
	ret = misc_register(&mbox_diag_dev);
	if (ret) {
		pr_err("cannot register /dev/%s: error %d\n", mbox_diag_dev.name, ret);
		goto err;
	}
	return 0;
err:
	while (i--)
		eusrv_mbox_unregister(mbox_diag_types[i]);
	return ret;
}

static void __exit mbox_diag_exit(void)
{
	unsigned int i;

	misc_deregister(&mbox_diag_dev);
	for (i = 0; i < ARRAY_SIZE(mbox_diag_types); i++)
		eusrv_mbox_unregister(mbox_diag_types[i]);
}
module_init(mbox_diag_init);
module_exit(mbox_diag_exit);

MODULE_DESCRIPTION("EUROSERVER node mailbox tester (/dev/eusrv_mbox)");
MODULE_LICENSE("GPL");
