// SPDX-License-Identifier: GPL-2.0
/*
 * eusrv_sor: a node-wide pool of ready ring memory, so that zeroing a
 * fresh ring is not on connect()'s critical path.  Blocks of the two
 * default sizes (send data; receive block with its header and kernel
 * page) are allocated and zeroed in the background and handed out ready;
 * freed blocks come back, are zeroed again off the critical path and
 * reused.  Memory handed to a connection never carries old data; of a
 * block that comes back, only the pages its user may have written are
 * zeroed again (a connection set up and closed wrote its headers only).
 *
 * The pool is sized by demand: a get that finds it empty doubles what it
 * keeps (from SOR_POOL_MIN up to SOR_POOL_MAX blocks of each size), and a
 * refill that was not needed lets it shrink back by an eighth, at most once
 * a second, so that what a burst of connections needed is still there for
 * the next.  Fresh blocks are added when it runs below half of that.  Under
 * memory pressure a shrinker frees what the pool keeps.
 *
 * A fresh block costs a whole zeroing, one that came back only its used
 * pages: a get that finds no ready block takes one that came back, and the
 * refill zeroes those before it makes fresh ones, one of each size in turn
 * so that growing one size does not starve the other.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/gfp.h>
#include <linux/jiffies.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/seq_file.h>
#include <linux/shrinker.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/workqueue.h>

#include "sor_mem.h"

/*
 * Blocks kept of each size, ready or to be zeroed: the bounds of target
 * while connections ask (the shrinker sets it to none until they do).
 * A server's connections wait in its accept queue with their rings, so a
 * burst of connect() calls needs as many as the queue holds; a fresh block
 * taken then is zeroed whole on the connection's path.
 */
#define SOR_POOL_MIN		32U
#define SOR_POOL_MAX		64U
/*
 * Pages a get may zero where it cannot sleep: a closed connection that
 * carried a few messages wrote its header and a page or two of data.
 */
#define SOR_POOL_ATOMIC_PAGES	4U

struct sor_pool_class {
	size_t len;
	struct list_head ready;		/* zeroed blocks */
	struct list_head dirty;		/* to zero before reuse */
	unsigned int nr_ready;
	unsigned int nr_dirty;
	unsigned int target;		/* blocks to keep, by demand */
	bool missed;			/* a get found none since the last fill */
	unsigned long shrunk;		/* jiffies, target last lowered */
};

/*
 * A free block links itself through its first bytes, with the pages to
 * zero before it is handed out again (the first page always: this is in it).
 */
struct sor_pool_blk {
	struct list_head link;
	DECLARE_BITMAP(dirty, SOR_POOL_MAX_PAGES);
};

/* debugfs pool_fill_off (fault injection): no refill, gets take blocks back. */
bool sor_pool_fill_off;
static DEFINE_SPINLOCK(sor_pool_lock);
static struct sor_pool_class sor_pool[2];
static bool sor_pool_dying;
static void sor_pool_fill(struct work_struct *w);
/* Bytes handed out and not given back: connections' rings and quarantine. */
static atomic64_t sor_pool_out = ATOMIC64_INIT(0);
static DECLARE_DELAYED_WORK(sor_pool_work, sor_pool_fill);

/*
 * Refill at the next tick: the worker zeroes a page at a time and yields
 * between pages, so it fills the time a connect() waits for its peer
 * without holding up the connect() when the answer comes.
 */
static void sor_pool_later(void)
{
	queue_delayed_work(sor_wq, &sor_pool_work, 1);
}

/*
 * Zero the pages of B (LEN bytes) its bitmap names, yielding between pages
 * if it MAY_SLEEP.
 */
static void sor_pool_zero(struct sor_pool_blk *b, size_t len, bool may_sleep)
{
	DECLARE_BITMAP(dirty, SOR_POOL_MAX_PAGES);
	unsigned int pages = len >> PAGE_SHIFT, i;

	/* Page 0 holds the bitmap: read it whole before zeroing. */
	bitmap_copy(dirty, b->dirty, SOR_POOL_MAX_PAGES);
	for_each_set_bit(i, dirty, pages) {
		clear_page((void *)b + ((size_t)i << PAGE_SHIFT));
		if (may_sleep)
			cond_resched();
	}
}

/*
 * A block of K that came back, for a get to zero itself: any if it
 * MAY_SLEEP, else one with at most SOR_POOL_ATOMIC_PAGES to zero (lock held).
 */
static struct sor_pool_blk *sor_pool_take_dirty(struct sor_pool_class *k,
						bool may_sleep)
{
	unsigned int pages = k->len >> PAGE_SHIFT;
	struct sor_pool_blk *b;

	lockdep_assert_held(&sor_pool_lock);
	list_for_each_entry(b, &k->dirty, link) {
		if (may_sleep ||
		    bitmap_weight(b->dirty, pages) <= SOR_POOL_ATOMIC_PAGES) {
			list_del(&b->link);
			k->nr_dirty--;
			return b;
		}
	}
	return NULL;
}

static struct sor_pool_class *sor_pool_class(size_t len)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sor_pool); i++)
		if (sor_pool[i].len == len)
			return &sor_pool[i];
	return NULL;
}

/* Fresh memory of LEN bytes, zeroed here (ZERO) or by the caller. */
static void *sor_pool_new(size_t len, bool zero)
{
	void *p = alloc_pages_exact(len, GFP_KERNEL | __GFP_NOWARN |
					 (zero ? __GFP_ZERO : 0));

	if (p && !eusrv_sor_addr_encodable(sor_conn_ring_phys(p))) {
		free_pages_exact(p, len);
		p = NULL;
	}
	return p;
}

/*
 * Zeroed memory of LEN bytes, page aligned, addressable by ADDR; NULL if
 * none.  Any context: where GFP may not sleep, only a block the pool has
 * ready or one that came back with little to zero (a fresh one is zeroed
 * whole, too long for an interrupt).
 */
void *sor_pool_get(size_t len, gfp_t gfp)
{
	bool may_sleep = gfpflags_allow_blocking(gfp);
	struct sor_pool_class *k = sor_pool_class(len);
	struct sor_pool_blk *b = NULL, *used = NULL;
	unsigned long flags;

	if (k) {
		spin_lock_irqsave(&sor_pool_lock, flags);
		b = list_first_entry_or_null(&k->ready, struct sor_pool_blk, link);
		if (b) {
			list_del(&b->link);
			k->nr_ready--;
		} else {
			k->missed = true;
			k->target = clamp(2 * k->target, SOR_POOL_MIN, SOR_POOL_MAX);
			used = sor_pool_take_dirty(k, may_sleep);
		}
		spin_unlock_irqrestore(&sor_pool_lock, flags);
		sor_pool_later();
	}
	if (b) {
		/* The link was the only word written since it was zeroed. */
		memset(b, 0, sizeof(*b));
	} else if (used) {
		/* Page 0, with the link and the bitmap, is always among them. */
		sor_pool_zero(used, len, may_sleep);
		b = used;
	} else if (may_sleep) {
		b = sor_pool_new(len, true);
	}
	if (b)
		atomic64_add(len, &sor_pool_out);
	return b;
}

/* STATS ring_bytes: what sor_pool_get handed out and is not back. */
u64 sor_pool_bytes_out(void)
{
	return atomic64_read(&sor_pool_out);
}

/*
 * Give back memory from sor_pool_get (any context).  DIRTY: its pages that
 * may have been written since (bit n: page n), NULL if any may have been.
 */
void sor_pool_put(void *p, size_t len, const unsigned long *dirty)
{
	struct sor_pool_class *k = sor_pool_class(len);
	struct sor_pool_blk *b = p;
	unsigned long flags;
	bool keep = false;

	atomic64_sub(len, &sor_pool_out);
	if (k) {
		/* Before it is listed: the fill reads it once it takes the block. */
		if (dirty)
			bitmap_copy(b->dirty, dirty, SOR_POOL_MAX_PAGES);
		else
			bitmap_fill(b->dirty, SOR_POOL_MAX_PAGES);
		__set_bit(0, b->dirty);
		spin_lock_irqsave(&sor_pool_lock, flags);
		if (!sor_pool_dying && k->nr_ready + k->nr_dirty < k->target) {
			list_add_tail(&b->link, &k->dirty);
			k->nr_dirty++;
			keep = true;
		}
		spin_unlock_irqrestore(&sor_pool_lock, flags);
	}
	if (!keep) {
		free_pages_exact(p, len);
		return;
	}
	sor_pool_later();
}

/* Zeroed B of K to the ready list, or freed if K has enough. */
static void sor_pool_ready(struct sor_pool_class *k, struct sor_pool_blk *b)
{
	void *p = b;

	sor_pool_zero(b, k->len, true);
	spin_lock_irq(&sor_pool_lock);
	if (k->nr_ready < k->target && !sor_pool_dying) {
		list_add_tail(&b->link, &k->ready);
		k->nr_ready++;
		p = NULL;
	}
	spin_unlock_irq(&sor_pool_lock);
	if (p)
		free_pages_exact(p, k->len);
	cond_resched();
}

/* Zero every block of K that came back. */
static void sor_pool_zero_dirty(struct sor_pool_class *k)
{
	struct sor_pool_blk *b;

	for (;;) {
		spin_lock_irq(&sor_pool_lock);
		b = sor_pool_take_dirty(k, true);
		spin_unlock_irq(&sor_pool_lock);
		if (!b)
			return;
		sor_pool_ready(k, b);
	}
}

/* One fresh block for K if it is to GROW and short of its target. */
static bool sor_pool_grow(struct sor_pool_class *k, bool grow)
{
	struct sor_pool_blk *b;

	if (!grow || READ_ONCE(k->nr_ready) >= READ_ONCE(k->target) ||
	    READ_ONCE(sor_pool_dying))
		return false;
	b = sor_pool_new(k->len, false);
	if (!b)
		return false;
	bitmap_fill(b->dirty, SOR_POOL_MAX_PAGES);
	sor_pool_ready(k, b);
	return true;
}

/*
 * Work: zero what came back, then allocate up to the target, a fresh block
 * of each size in turn, zeroing what came back meanwhile between them.
 */
static void sor_pool_fill(struct work_struct *w)
{
	bool grow[ARRAY_SIZE(sor_pool)], more;
	unsigned int i;

	if (READ_ONCE(sor_pool_fill_off))
		return;

	for (i = 0; i < ARRAY_SIZE(sor_pool); i++) {
		struct sor_pool_class *k = &sor_pool[i];

		/* Not asked for more than it had: keep a little less. */
		spin_lock_irq(&sor_pool_lock);
		if (!k->missed && k->target > SOR_POOL_MIN &&
		    k->nr_ready + k->nr_dirty >= k->target &&
		    time_after(jiffies, k->shrunk + HZ)) {
			k->target = max(k->target - k->target / 8, SOR_POOL_MIN);
			k->shrunk = jiffies;
		}
		k->missed = false;
		/*
		 * Fresh blocks only when running low, not for each get (its
		 * block would come back to a full pool and be freed).
		 */
		grow[i] = k->nr_ready + k->nr_dirty < k->target / 2;
		spin_unlock_irq(&sor_pool_lock);
	}
	do {
		more = false;
		for (i = 0; i < ARRAY_SIZE(sor_pool); i++)
			sor_pool_zero_dirty(&sor_pool[i]);
		for (i = 0; i < ARRAY_SIZE(sor_pool); i++) {
			grow[i] = sor_pool_grow(&sor_pool[i], grow[i]);
			more |= grow[i];
		}
	} while (more);
}

/* Shrinker: the blocks the pool keeps, none of them in use. */
static unsigned long sor_pool_count(struct shrinker *sh,
				    struct shrink_control *sc)
{
	unsigned long n = 0;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sor_pool); i++)
		n += READ_ONCE(sor_pool[i].nr_ready) + READ_ONCE(sor_pool[i].nr_dirty);
	return n;
}

/*
 * Shrinker: free up to sc->nr_to_scan kept blocks, those to zero first, and
 * keep none until a connection finds the pool empty again.
 */
static unsigned long sor_pool_scan(struct shrinker *sh,
				   struct shrink_control *sc)
{
	struct list_head gone[ARRAY_SIZE(sor_pool)];
	struct sor_pool_blk *b, *n;
	unsigned long freed = 0;
	unsigned int i;

	spin_lock_irq(&sor_pool_lock);
	for (i = 0; i < ARRAY_SIZE(sor_pool); i++) {
		struct sor_pool_class *k = &sor_pool[i];

		INIT_LIST_HEAD(&gone[i]);
		k->target = 0;
		for (; freed < sc->nr_to_scan && k->nr_dirty; freed++, k->nr_dirty--)
			list_move(k->dirty.next, &gone[i]);
		for (; freed < sc->nr_to_scan && k->nr_ready; freed++, k->nr_ready--)
			list_move(k->ready.next, &gone[i]);
	}
	spin_unlock_irq(&sor_pool_lock);
	for (i = 0; i < ARRAY_SIZE(sor_pool); i++)
		list_for_each_entry_safe(b, n, &gone[i], link)
			free_pages_exact(b, sor_pool[i].len);
	return freed ? freed : SHRINK_STOP;
}

static struct shrinker sor_pool_shrinker = {
	.count_objects = sor_pool_count,
	.scan_objects = sor_pool_scan,
	.seeks = DEFAULT_SEEKS,
};

/* debugfs `pool`: per size, blocks ready, to zero, and kept by demand. */
int sor_pool_show(struct seq_file *m, void *v)
{
	unsigned int i;

	spin_lock_irq(&sor_pool_lock);
	for (i = 0; i < ARRAY_SIZE(sor_pool); i++)
		seq_printf(m, "len %zu ready %u dirty %u target %u\n",
			   sor_pool[i].len, sor_pool[i].nr_ready,
			   sor_pool[i].nr_dirty, sor_pool[i].target);
	spin_unlock_irq(&sor_pool_lock);
	return 0;
}

int sor_pool_init(void)
{
	unsigned int i;
	int ret;

	/* SOR_POOL_MAX_PAGES is the receive block's pages, as they are here. */
	BUILD_BUG_ON(EUSRV_SOR_RING_DEF_SHIFT < PAGE_SHIFT);
	BUILD_BUG_ON(sizeof(struct sor_pool_blk) > PAGE_SIZE);
	sor_pool[0].len = 1U << EUSRV_SOR_RING_DEF_SHIFT;
	sor_pool[1].len = SOR_RCV_DATA_OFF + sor_pool[0].len;
	for (i = 0; i < ARRAY_SIZE(sor_pool); i++) {
		INIT_LIST_HEAD(&sor_pool[i].ready);
		INIT_LIST_HEAD(&sor_pool[i].dirty);
		sor_pool[i].target = SOR_POOL_MIN;
		/* jiffies start minutes before wrapping: not 0, or none for those. */
		sor_pool[i].shrunk = jiffies;
	}
	ret = register_shrinker(&sor_pool_shrinker, "eusrv_sor-pool");
	if (ret)
		return ret;
	queue_delayed_work(sor_wq, &sor_pool_work, 0);
	return 0;
}

/* Module exit, after every connection: free the pool. */
void sor_pool_exit(void)
{
	struct sor_pool_blk *b, *n;
	unsigned int i;

	unregister_shrinker(&sor_pool_shrinker);
	spin_lock_irq(&sor_pool_lock);
	sor_pool_dying = true;
	spin_unlock_irq(&sor_pool_lock);
	cancel_delayed_work_sync(&sor_pool_work);
	for (i = 0; i < ARRAY_SIZE(sor_pool); i++) {
		list_splice_init(&sor_pool[i].dirty, &sor_pool[i].ready);
		list_for_each_entry_safe(b, n, &sor_pool[i].ready, link)
			free_pages_exact(b, sor_pool[i].len);
		sor_pool[i].nr_ready = 0;
		sor_pool[i].nr_dirty = 0;
	}
}
