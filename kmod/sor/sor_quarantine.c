// SPDX-License-Identifier: GPL-2.0
/*
 * eusrv_sor: receive blocks that a peer may still write into.
 *
 * A connection that ends without the peer confirming it (the peer taken
 * for down by the keepalives, a NACK handshake given up, the module
 * unloaded) may still have a transfer coming from a peer that was only
 * frozen or cut off: its engine would write into memory we freed.  Such a
 * block waits here, out of the allocator, until the peer has been heard
 * from again and told to reset (sor_keepalive.c) and a grace period has
 * passed, or the board reports the node gone.  At module exit what is
 * still here is left allocated on purpose, with a warning.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitops.h>
#include <linux/jiffies.h>
#include <linux/list.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include <eusrv/board_hw.h>

#include "sor_mem.h"

/* After a node came back and got KEEPALIVE(reset): it has reset by then. */
#define SOR_QUAR_GRACE_MS	2000U

struct sor_quar {
	struct list_head link;
	unsigned int node;
	void *blk;
	size_t len;
	unsigned long since;		/* jiffies */
};

static DEFINE_SPINLOCK(sor_quar_lock);
static LIST_HEAD(sor_quar_list);
static unsigned long sor_quar_back[EUSRV_MAX_NODES];	/* jiffies, 0: never */
static u64 sor_quar_gone;				/* bit n: node n is gone */
static u64 sor_quar_total;				/* bytes held */

/* Hold BLK (LEN bytes, alloc_pages_exact) until NODE cannot write it. */
void sor_quar_add(unsigned int node, void *blk, size_t len)
{
	struct sor_quar *q;
	unsigned long flags;

	if (node < EUSRV_MAX_NODES && (READ_ONCE(sor_quar_gone) & BIT_ULL(node))) {
		sor_pool_put(blk, len);
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
	q->since = jiffies;
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
		sor_pool_put(q->blk, q->len);
		kfree(q);
	}
}

/* NODE was down and is heard again: it gets KEEPALIVE(reset) now. */
void sor_quar_node_back(unsigned int node)
{
	unsigned long flags, now = jiffies;

	if (node >= EUSRV_MAX_NODES)
		return;
	spin_lock_irqsave(&sor_quar_lock, flags);
	sor_quar_back[node] = now ? now : 1;
	sor_quar_gone &= ~BIT_ULL(node);
	spin_unlock_irqrestore(&sor_quar_lock, flags);
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
	unsigned long back = q->node < EUSRV_MAX_NODES ?
			     READ_ONCE(sor_quar_back[q->node]) : 0;

	return back && time_after(back, q->since) &&
	       time_after(jiffies, back + msecs_to_jiffies(SOR_QUAR_GRACE_MS));
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
