// SPDX-License-Identifier: GPL-2.0
/*
 * eusrv_sor: receive blocks that a peer may still write into, once their
 * connection is gone.
 *
 * A connection whose peer may still write its receive ring stays in the
 * table until the peer confirms the end or the board reports the node
 * gone (sor_conn_may_retire_locked), so in normal operation nothing comes
 * here.  What does: the blocks of the connections the module leaves at
 * exit (kept allocated on purpose, with a warning), and those of a
 * connection the debugfs knob `forget` dropped without a word to its peer
 * (fault injection, root only: held SOR_QUAR_FORGOTTEN_MS, long after the
 * peer's next message was answered with RST).  The board reporting the
 * node gone frees a node's blocks at once.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitops.h>
#include <linux/jiffies.h>
#include <linux/list.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include <eusrv/board_hw.h>

#include "sor_mem.h"

struct sor_quar {
	struct list_head link;
	unsigned int node;
	void *blk;
	size_t len;
	unsigned long until;		/* jiffies; 0: until the node is gone */
};

static DEFINE_SPINLOCK(sor_quar_lock);
static LIST_HEAD(sor_quar_list);
static u64 sor_quar_gone;				/* bit n: node n is gone */
static u64 sor_quar_total;				/* bytes held */

/*
 * Hold BLK (LEN bytes, from sor_pool_get) until NODE cannot write it: the
 * board reports it gone, or HOLD_MS pass (0: never).
 */
void sor_quar_add(unsigned int node, void *blk, size_t len, unsigned int hold_ms)
{
	struct sor_quar *q;
	unsigned long flags;

	if (node < EUSRV_MAX_NODES && (READ_ONCE(sor_quar_gone) & BIT_ULL(node))) {
		sor_pool_put(blk, len, NULL);
		return;
	}
	q = kmalloc(sizeof(*q), GFP_ATOMIC);
	if (!q) {
		/* Never free what a peer may write: leak it instead. */
		pr_warn_ratelimited("%zu bytes a peer may still write left allocated\n",
				    len);
		return;
	}
	q->node = node;
	q->blk = blk;
	q->len = len;
	q->until = hold_ms ? (jiffies + msecs_to_jiffies(hold_ms)) | 1 : 0;
	spin_lock_irqsave(&sor_quar_lock, flags);
	list_add_tail(&q->link, &sor_quar_list);
	sor_quar_total += len;
	spin_unlock_irqrestore(&sor_quar_lock, flags);
}

/* Free the entries FN says may go; any context. */
static void sor_quar_release(bool (*fn)(const struct sor_quar *q, void *arg),
			     void *arg)
{
	struct sor_quar *q, *n;
	unsigned long flags;
	LIST_HEAD(done);

	spin_lock_irqsave(&sor_quar_lock, flags);
	list_for_each_entry_safe(q, n, &sor_quar_list, link) {
		if (fn(q, arg)) {
			list_move(&q->link, &done);
			sor_quar_total -= q->len;
		}
	}
	spin_unlock_irqrestore(&sor_quar_lock, flags);
	list_for_each_entry_safe(q, n, &done, link) {
		sor_pool_put(q->blk, q->len, NULL);
		kfree(q);
	}
}

static bool sor_quar_of_node(const struct sor_quar *q, void *arg)
{
	return q->node == *(unsigned int *)arg;
}

/* The board says NODE is not there: nothing of it can write any more. */
void sor_quar_node_gone(unsigned int node)
{
	unsigned long flags;

	if (node >= EUSRV_MAX_NODES)
		return;
	spin_lock_irqsave(&sor_quar_lock, flags);
	sor_quar_gone |= BIT_ULL(node);
	spin_unlock_irqrestore(&sor_quar_lock, flags);
	sor_quar_release(sor_quar_of_node, &node);
}

static bool sor_quar_expired(const struct sor_quar *q, void *arg)
{
	return q->until && time_after(jiffies, q->until);
}

/* Every keepalive period: what may go now. */
void sor_quar_tick(void)
{
	sor_quar_release(sor_quar_expired, NULL);
}

u64 sor_quar_bytes(void)
{
	unsigned long flags;
	u64 n;

	spin_lock_irqsave(&sor_quar_lock, flags);
	n = sor_quar_total;
	spin_unlock_irqrestore(&sor_quar_lock, flags);
	return n;
}

/* Module exit: forget the entries, keep their memory. */
void sor_quar_exit(void)
{
	struct sor_quar *q, *n;

	if (sor_quar_total)
		pr_warn("leaving %llu bytes of receive rings allocated: their peers never confirmed the end\n",
			sor_quar_total);
	list_for_each_entry_safe(q, n, &sor_quar_list, link) {
		list_del(&q->link);
		kfree(q);
	}
	sor_quar_total = 0;
}
