// SPDX-License-Identifier: GPL-2.0
/*
 * Mailbox diagnostics on /dev/eusrv_mbox: kernel-to-kernel ping-pong with
 * round-trip times, a numbered flood checked by the receiver, counters and
 * a way to stop draining the FIFO for a while (to make it overflow).
 *
 * The handlers for the board's diagnostic message types live here too: a
 * PING is answered with a PONG carrying the same payload from the IRQ
 * handler, so the round trip measures the mailbox path only.
 */
#include <linux/completion.h>
#include <linux/fs.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/uaccess.h>

#include <eusrv/board_hw.h>
#include <eusrv/mbox.h>
#include <uapi/eusrv/mbox_diag.h>

#include "mbox_internal.h"

#define DIAG_DEFAULT_TIMEOUT_MS	1000U

/* One ping-pong at a time: the outstanding request and its reply. */
static DEFINE_MUTEX(diag_ping_lock);
static DEFINE_SPINLOCK(diag_pong_lock);
static struct completion diag_pong_done;
static unsigned int diag_ping_node;
static u64 diag_ping_expect;
static bool diag_ping_armed;
static u32 diag_ping_status;	/* delivery failure of the outstanding ping */
static atomic_t diag_ping_errors;

static DEFINE_SPINLOCK(diag_seq_lock);
static struct eusrv_mbox_seq_stats diag_seq_rx[EUSRV_MBOX_DIAG_MAX_NODES];
static u64 diag_seq_tx[EUSRV_MBOX_DIAG_MAX_NODES];
static atomic_t diag_flood_failed[EUSRV_MBOX_DIAG_MAX_NODES];

static void diag_ping_rx(void *ctx, unsigned int src, u64 msg)
{
	u64 reply = eusrv_msg_make(EUSRV_MSG_T_PONG, 0, eusrv_msg_payload(msg));

	if (eusrv_mbox_send(src, reply))
		pr_warn_ratelimited("eusrv_mbox: cannot answer a ping from node %u: queue full\n",
				    src);
}

static void diag_pong_rx(void *ctx, unsigned int src, u64 msg)
{
	unsigned long flags;

	spin_lock_irqsave(&diag_pong_lock, flags);
	if (diag_ping_armed && src == diag_ping_node &&
	    eusrv_msg_payload(msg) == diag_ping_expect) {
		diag_ping_armed = false;
		complete(&diag_pong_done);
	} else {
		/* A reply we did not ask for: late, duplicated or corrupted. */
		atomic_inc(&diag_ping_errors);
	}
	spin_unlock_irqrestore(&diag_pong_lock, flags);
}

/* The board could not deliver a ping: end the wait now, not at timeout. */
static void diag_ping_tx_error(void *ctx, unsigned int dst, u64 msg, u32 status)
{
	unsigned long flags;

	spin_lock_irqsave(&diag_pong_lock, flags);
	if (diag_ping_armed && dst == diag_ping_node &&
	    eusrv_msg_payload(msg) == diag_ping_expect) {
		diag_ping_armed = false;
		diag_ping_status = status;
		complete(&diag_pong_done);
	}
	spin_unlock_irqrestore(&diag_pong_lock, flags);
}

static void diag_seq_rx_fn(void *ctx, unsigned int src, u64 msg)
{
	u64 seq = eusrv_msg_payload(msg);
	struct eusrv_mbox_seq_stats *s;
	unsigned long flags;

	if (src >= EUSRV_MBOX_DIAG_MAX_NODES)
		return;
	s = &diag_seq_rx[src];
	spin_lock_irqsave(&diag_seq_lock, flags);
	s->received++;
	if (seq < s->next) {
		s->dup++;
	} else {
		s->gap += seq - s->next;
		s->next = seq + 1;
	}
	spin_unlock_irqrestore(&diag_seq_lock, flags);
}

static void diag_seq_tx_error(void *ctx, unsigned int dst, u64 msg, u32 status)
{
	if (dst < EUSRV_MBOX_DIAG_MAX_NODES)
		atomic_inc(&diag_flood_failed[dst]);
}

static const struct eusrv_mbox_handler diag_handlers[] = {
	{ .rx = diag_seq_rx_fn, .tx_error = diag_seq_tx_error },
	{ .rx = diag_ping_rx, .tx_error = diag_ping_tx_error },
	{ .rx = diag_pong_rx },
};

static const unsigned int diag_types[] = {
	EUSRV_MSG_T_SEQ, EUSRV_MSG_T_PING, EUSRV_MSG_T_PONG,
};

static long diag_timeout(u32 ms)
{
	return msecs_to_jiffies(ms ? ms : DIAG_DEFAULT_TIMEOUT_MS);
}

static int diag_check_node(u32 node)
{
	unsigned int nodes = eusrv_mbox_nodes();

	if (!nodes)
		return -ENODEV;
	return node < nodes ? 0 : -EINVAL;
}

static int diag_ping(struct eusrv_mbox_ping *p)
{
	u32 __user *usamples = u64_to_user_ptr(p->samples);
	long timeout = diag_timeout(p->timeout_ms);
	unsigned long flags;
	u32 *samples;
	int ret = 0;
	u32 i;

	if (p->count == 0 || p->count > EUSRV_MBOX_DIAG_MAX_PING || p->reserved ||
	    p->timeout_ms > EUSRV_MBOX_DIAG_MAX_TIMEOUT_MS)
		return -EINVAL;
	ret = diag_check_node(p->node);
	if (ret)
		return ret;
	samples = kvmalloc_array(p->count, sizeof(*samples), GFP_KERNEL);
	if (!samples)
		return -ENOMEM;

	mutex_lock(&diag_ping_lock);
	atomic_set(&diag_ping_errors, 0);
	for (i = 0; i < p->count; i++) {
		u64 payload = i;
		u64 t0;
		long left;

		reinit_completion(&diag_pong_done);
		spin_lock_irqsave(&diag_pong_lock, flags);
		diag_ping_node = p->node;
		diag_ping_expect = payload;
		diag_ping_armed = true;
		diag_ping_status = EUSRV_MBOX_ST_OK;
		spin_unlock_irqrestore(&diag_pong_lock, flags);

		t0 = ktime_get_ns();
		ret = eusrv_mbox_send_wait(p->node,
					   eusrv_msg_make(EUSRV_MSG_T_PING, 0, payload),
					   timeout);
		if (ret)
			break;
		left = wait_for_completion_interruptible_timeout(&diag_pong_done,
								 timeout);
		if (left <= 0) {
			ret = left ? left : -ETIMEDOUT;
			if (!left)
				pr_warn("eusrv_mbox: ping node %u: no reply to round trip %u within %u ms\n",
					p->node, i, jiffies_to_msecs(timeout));
			break;
		}
		if (diag_ping_status != EUSRV_MBOX_ST_OK) {
			pr_warn("eusrv_mbox: ping node %u: round trip %u not delivered (status %u)\n",
				p->node, i, diag_ping_status);
			ret = -EHOSTUNREACH;
			break;
		}
		samples[i] = (u32)min_t(u64, ktime_get_ns() - t0, U32_MAX);
		if ((i & 1023) == 1023)
			cond_resched();
	}
	spin_lock_irqsave(&diag_pong_lock, flags);
	diag_ping_armed = false;
	spin_unlock_irqrestore(&diag_pong_lock, flags);
	p->done = i;
	p->errors = atomic_read(&diag_ping_errors);
	mutex_unlock(&diag_ping_lock);

	if (i && copy_to_user(usamples, samples, i * sizeof(*samples)))
		ret = -EFAULT;
	kvfree(samples);
	return ret;
}

static int diag_flood(struct eusrv_mbox_flood *f)
{
	long timeout = diag_timeout(f->timeout_ms);
	unsigned long flags;
	int ret;
	u64 seq;
	u32 i;

	if (f->timeout_ms > EUSRV_MBOX_DIAG_MAX_TIMEOUT_MS)
		return -EINVAL;
	ret = diag_check_node(f->node);
	if (ret)
		return ret;
	f->sent = 0;
	f->waits = 0;
	atomic_set(&diag_flood_failed[f->node], 0);
	for (i = 0; i < f->count; i++) {
		spin_lock_irqsave(&diag_seq_lock, flags);
		seq = diag_seq_tx[f->node];
		spin_unlock_irqrestore(&diag_seq_lock, flags);

		ret = eusrv_mbox_send(f->node, eusrv_msg_make(EUSRV_MSG_T_SEQ, 0, seq));
		if (ret == -EAGAIN) {
			f->waits++;
			ret = eusrv_mbox_send_wait(f->node,
						   eusrv_msg_make(EUSRV_MSG_T_SEQ, 0, seq),
						   timeout);
		}
		if (ret)
			break;
		spin_lock_irqsave(&diag_seq_lock, flags);
		diag_seq_tx[f->node] = seq + 1;
		spin_unlock_irqrestore(&diag_seq_lock, flags);
		f->sent++;
		if ((i & 1023) == 1023)
			cond_resched();
	}
	/* Every message's fate is known once the queue has drained. */
	if (!ret)
		ret = eusrv_mbox_flush(msecs_to_jiffies(2 * EUSRV_MBOX_STORE_TIMEOUT_MS *
							EUSRV_MBOX_TXQ_DEPTH));
	f->failed = atomic_read(&diag_flood_failed[f->node]);
	return ret;
}

static void diag_reset(void)
{
	unsigned long flags;

	spin_lock_irqsave(&diag_seq_lock, flags);
	memset(diag_seq_rx, 0, sizeof(diag_seq_rx));
	memset(diag_seq_tx, 0, sizeof(diag_seq_tx));
	spin_unlock_irqrestore(&diag_seq_lock, flags);
	eusrv_mbox_reset_stats();
}

static long diag_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	void __user *uarg = (void __user *)arg;
	union {
		struct eusrv_mbox_ping ping;
		struct eusrv_mbox_flood flood;
	} u;
	struct eusrv_mbox_stats *st;
	unsigned long flags;
	u32 ms;
	int ret;

	switch (cmd) {
	case EUSRV_MBOX_IOC_PING:
		if (copy_from_user(&u.ping, uarg, sizeof(u.ping)))
			return -EFAULT;
		ret = diag_ping(&u.ping);
		if (copy_to_user(uarg, &u.ping, sizeof(u.ping)))
			return -EFAULT;
		return ret;
	case EUSRV_MBOX_IOC_FLOOD:
		if (copy_from_user(&u.flood, uarg, sizeof(u.flood)))
			return -EFAULT;
		ret = diag_flood(&u.flood);
		if (copy_to_user(uarg, &u.flood, sizeof(u.flood)))
			return -EFAULT;
		return ret;
	case EUSRV_MBOX_IOC_STATS:
		st = kzalloc(sizeof(*st), GFP_KERNEL);
		if (!st)
			return -ENOMEM;
		ret = eusrv_mbox_get_stats(st);
		if (!ret) {
			spin_lock_irqsave(&diag_seq_lock, flags);
			memcpy(st->seq, diag_seq_rx, sizeof(st->seq));
			spin_unlock_irqrestore(&diag_seq_lock, flags);
			if (copy_to_user(uarg, st, sizeof(*st)))
				ret = -EFAULT;
		}
		kfree(st);
		return ret;
	case EUSRV_MBOX_IOC_RESET:
		diag_reset();
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

static const struct file_operations diag_fops = {
	.owner = THIS_MODULE,
	.unlocked_ioctl = diag_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = noop_llseek,
};

static struct miscdevice diag_dev = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "eusrv_mbox",
	.fops = &diag_fops,
	.mode = 0600,
};

int eusrv_mbox_diag_init(void)
{
	unsigned int i;
	int ret;

	init_completion(&diag_pong_done);
	for (i = 0; i < ARRAY_SIZE(diag_types); i++) {
		ret = eusrv_mbox_register(diag_types[i], &diag_handlers[i]);
		if (ret)
			goto err;
	}
	ret = misc_register(&diag_dev);
	if (ret)
		goto err;
	return 0;
err:
	while (i--)
		eusrv_mbox_unregister(diag_types[i]);
	return ret;
}

void eusrv_mbox_diag_exit(void)
{
	unsigned int i;

	misc_deregister(&diag_dev);
	for (i = 0; i < ARRAY_SIZE(diag_types); i++)
		eusrv_mbox_unregister(diag_types[i]);
}
