// SPDX-License-Identifier: GPL-2.0
/*
 * eusrv_sor connection objects: the id table, references, ring memory,
 * state and aborting.  The work item and the timer are the protocol's
 * (sor_work.c); leaving the table is sor_retire.c's.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/file.h>
#include <linux/gfp.h>
#include <linux/jiffies.h>
#include <linux/mm.h>
#include <linux/pid_namespace.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include <eusrv/cdma.h>

#include "sor_ids.h"
#include "sor_conn.h"
#include "sor_fallback.h"
#include "sor_tcp.h"

static DEFINE_SPINLOCK(sor_tbl_lock);
static struct sor_ids sor_id_table;
static struct sor_conn *sor_tbl[SOR_IDS_MAX];
static bool sor_dying;

/*
 * The last connections that left the table (EUSRV_SOR_LIST_CLOSED), so
 * that what a finished program's connections carried can still be read;
 * a ring under sor_tbl_lock, written as each one is unlinked.
 */
static struct eusrv_sor_conn_stat sor_hist[EUSRV_SOR_HISTORY];
static unsigned int sor_hist_next, sor_hist_count;

/* Receive blocks of connections held until their peer confirms the end. */
static atomic64_t sor_fence_bytes = ATOMIC64_INIT(0);

static_assert(SOR_IDS_MAX == EUSRV_SOR_MAX_CONNS);
static_assert(SOR_IDS_MAX == EUSRV_SOR_NO_ID);

/*
 * The pages of C's receive block that may hold data, in C->rcv_dirty:
 * the headers, those user space faulted in, and the data the peer's
 * engine stored (the ring from its start, as far as the tails it stored
 * reach).  The peer has confirmed the end: nothing more lands.  Lock held.
 */
static void sor_conn_rcv_dirty_locked(struct sor_conn *c)
{
	u64 n = c->bytes_rcvd;
	unsigned int pages;

	if (c->rcv_ktail)
		n += (u32)(READ_ONCE(*c->rcv_ktail) - c->rcv_tail);
	n = min_t(u64, n, c->rcv_size);
	pages = (SOR_RCV_DATA_OFF >> PAGE_SHIFT) + DIV_ROUND_UP_ULL(n, PAGE_SIZE);
	bitmap_set(c->rcv_dirty, 0, min_t(unsigned int, pages, SOR_POOL_MAX_PAGES));
}

/*
 * C's rings go, and their charge: the receive block to quarantine while
 * the peer may still write it.  C's file, if any, no longer reaches them.
 */
void sor_conn_free_rings(struct sor_conn *c)
{
	unsigned long flags;
	void *snd_hdr, *snd_data, *rcv_blk;

	spin_lock_irqsave(&c->lock, flags);
	if (c->rcv_blk)
		sor_conn_rcv_dirty_locked(c);
	snd_hdr = c->snd_hdr;
	snd_data = c->snd_data;
	rcv_blk = c->rcv_blk;
	c->snd_hdr = NULL;
	c->snd_data = NULL;
	c->rcv_blk = NULL;
	c->rcv_hdr = NULL;
	c->rcv_data = NULL;
	c->rcv_ktail = NULL;
	c->rcv_arm = NULL;
	c->snd_ksent = NULL;
	c->snd_want = NULL;
	if (c->fencing) {
		/* Unlinked all the same (module exit, forget): quarantine counts it. */
		c->fencing = false;
		atomic64_sub(SOR_RCV_DATA_OFF + c->rcv_size, &sor_fence_bytes);
	}
	spin_unlock_irqrestore(&c->lock, flags);
	if (snd_data)
		sor_pool_put(snd_data, c->snd_size,
			     c->snd_kwrote ? NULL : c->snd_dirty);
	if (rcv_blk && c->peer_may_write)
		sor_quar_add(c->peer_node, rcv_blk, SOR_RCV_DATA_OFF + c->rcv_size,
			     c->forgotten ? SOR_QUAR_FORGOTTEN_MS : 0);
	else if (rcv_blk)
		sor_pool_put(rcv_blk, SOR_RCV_DATA_OFF + c->rcv_size, c->rcv_dirty);
	free_page((unsigned long)snd_hdr);
	sor_uncharge(&c->charge);
}

/* Last reference: any context (the dummy socket went in process context). */
static void sor_conn_release(struct kref *ref)
{
	struct sor_conn *c = container_of(ref, struct sor_conn, ref);

	sor_conn_free_rings(c);
	sor_tcp_bg_free(c);
	if (c->bound)
		fput(c->bound);
	if (c->pidns)
		put_pid_ns(c->pidns);
	kfree(c);
}

void sor_conn_put(struct sor_conn *c)
{
	kref_put(&c->ref, sor_conn_release);
}

struct sor_conn *sor_conn_get(unsigned int id)
{
	struct sor_conn *c = NULL;
	unsigned long flags;

	if (id >= SOR_IDS_MAX)
		return NULL;
	spin_lock_irqsave(&sor_tbl_lock, flags);
	c = sor_tbl[id];
	if (c)
		kref_get(&c->ref);
	spin_unlock_irqrestore(&sor_tbl_lock, flags);
	return c;
}

unsigned int sor_conn_count(void)
{
	unsigned long flags;
	unsigned int n;

	spin_lock_irqsave(&sor_tbl_lock, flags);
	n = sor_id_table.count;
	spin_unlock_irqrestore(&sor_tbl_lock, flags);
	return n;
}

/* Connections taken from the table at a time by sor_conn_for_each(). */
#define SOR_WALK_BATCH	32U

/*
 * FN on every connection in the table, each referenced meanwhile; process
 * context, FN must not sleep.  The table lock (interrupts off) is held
 * only while a batch is taken, never across all 4095 ids.
 */
void sor_conn_for_each(void (*fn)(struct sor_conn *c, void *arg), void *arg)
{
	struct sor_conn *batch[SOR_WALK_BATCH];
	unsigned int id = 0, n, i;

	while (id < SOR_IDS_MAX) {
		n = 0;
		spin_lock_irq(&sor_tbl_lock);
		for (; id < SOR_IDS_MAX && n < SOR_WALK_BATCH; id++) {
			if (sor_tbl[id]) {
				kref_get(&sor_tbl[id]->ref);
				batch[n++] = sor_tbl[id];
			}
		}
		spin_unlock_irq(&sor_tbl_lock);
		for (i = 0; i < n; i++) {
			fn(batch[i], arg);
			sor_conn_put(batch[i]);
		}
		cond_resched();
	}
}

void sor_conn_kick(struct sor_conn *c, enum sor_todo what)
{
	set_bit(what, &c->todo);
	if (READ_ONCE(sor_dying))
		return;
	/* The queued work holds a reference; the caller holds one too. */
	kref_get(&c->ref);
	if (!queue_work(sor_wq, &c->work))
		sor_conn_put(c);
}

void sor_conn_kick_locked(struct sor_conn *c, enum sor_todo what)
{
	lockdep_assert_held(&c->lock);
	sor_conn_kick(c, what);
}

/* (Re)arm the connection's one timer; an armed timer holds a reference. */
void sor_conn_arm_locked(struct sor_conn *c, unsigned int ms)
{
	lockdep_assert_held(&c->lock);
	if (READ_ONCE(sor_dying))
		return;
	kref_get(&c->ref);
	if (mod_timer(&c->timer, jiffies + msecs_to_jiffies(ms)))
		sor_conn_put(c);	/* it was armed: it has its reference */
}

static void sor_conn_disarm_locked(struct sor_conn *c)
{
	if (del_timer(&c->timer))
		sor_conn_put(c);
}

static void sor_conn_timer_fn(struct timer_list *t)
{
	struct sor_conn *c = from_timer(c, t, timer);

	sor_conn_kick(c, SOR_DO_TIMER);
	sor_conn_put(c);
}

/* The ring flags user space sees, from the state (c->lock held). */
void sor_conn_flags_locked(struct sor_conn *c)
{
	u32 snd = 0, rcv = 0;

	if (c->state == EUSRV_SOR_ST_RESET || c->state == SOR_ST_QUARANTINE) {
		snd |= EUSRV_SOR_RF_ERROR;
		rcv |= EUSRV_SOR_RF_ERROR;
	}
	if (c->shut_wr || c->state == EUSRV_SOR_ST_CLOSING ||
	    c->state == EUSRV_SOR_ST_NACK_WAIT)
		snd |= EUSRV_SOR_RF_SHUT;
	if (c->state == EUSRV_SOR_ST_PEER_CLOSED)
		snd |= EUSRV_SOR_RF_PEER_CLOSED;
	if (c->eof)
		rcv |= EUSRV_SOR_RF_EOF;
	if (c->shut_rd)
		rcv |= EUSRV_SOR_RF_SHUT;
	if (c->snd_hdr) {
		/* Pairs with user space's acquire load of flags. */
		smp_store_release(&c->snd_hdr->flags, snd);
	}
	if (c->rcv_hdr) {
		/* Pairs with user space's acquire load of flags. */
		smp_store_release(&c->rcv_hdr->flags, rcv);
	}
}

/*
 * Wake whoever waits on C (WAIT, poll, read/write) for the events in KEY
 * (SOR_WAKE_*), and signal its O_ASYNC owners: keyed, so that a poller or
 * WAIT for input does not wake for room and the reverse.
 */
void sor_conn_wake(struct sor_conn *c, __poll_t key)
{
	__wake_up(&c->wq, TASK_NORMAL, 0, poll_to_key(key));
	kill_fasync(&c->fasync, SIGIO, key & EPOLLIN ? POLL_IN : POLL_OUT);
}

/*
 * Whether the transfer in flight has ended (our engine stored its end) and
 * is still to be taken as such (sor_data.c): nothing waits for its SENT
 * unless someone asked for it.  c->lock held.
 */
bool sor_conn_xfer_ended_locked(struct sor_conn *c)
{
	return c->busy && c->snd_end != c->snd_head && c->snd_ksent &&
	       READ_ONCE(*c->snd_ksent) == c->snd_end;
}

/*
 * How far the peer has our bytes: the head, or the end of a transfer that
 * ended unnoticed.  c->lock held.
 */
u32 sor_conn_snd_done_locked(struct sor_conn *c)
{
	return sor_conn_xfer_ended_locked(c) ? c->snd_end : c->snd_head;
}

/*
 * Someone waits for the transfer in flight to end (room, a FIN, a NACK,
 * the retirement): its end must send SENT.  The want word our engine
 * swaps is set, then the end looked at again; true if the transfer has
 * ended already (the caller takes it, or kicks SOR_DO_XFER), false if
 * SENT will come (or nothing is in flight).  c->lock held.
 */
bool sor_conn_want_sent_locked(struct sor_conn *c)
{
	lockdep_assert_held(&c->lock);
	if (c->sent_wanted)
		return sor_conn_xfer_ended_locked(c);
	return sor_conn_want_sent_again_locked(c);
}

/*
 * As sor_conn_want_sent_locked(), with the want word set even if it was
 * set before: an older transfer's SENT may have taken it.  c->lock held.
 */
bool sor_conn_want_sent_again_locked(struct sor_conn *c)
{
	lockdep_assert_held(&c->lock);
	if (!c->busy || c->snd_end == c->snd_head || !c->snd_want)
		return false;
	c->sent_wanted = true;
	WRITE_ONCE(*c->snd_want, 1);
	/* Pairs with the engine's swap after its store of the end. */
	smp_mb();
	return sor_conn_xfer_ended_locked(c);
}

void sor_conn_set_state_locked(struct sor_conn *c, unsigned int state, int err)
{
	lockdep_assert_held(&c->lock);
	c->state = state;
	if (err)
		c->so_error = err;
	/* The peer sent all it will: what arrived is the end. */
	if (state == EUSRV_SOR_ST_PEER_CLOSED)
		c->eof = true;
	if (state == EUSRV_SOR_ST_RESET) {
		/*
		 * A server connection reset before any ACCEPT claimed it has
		 * nobody who would release it: it goes as soon as it may.
		 */
		if (!c->client && !c->has_file && !c->released) {
			c->released = true;
			sor_conn_kick_locked(c, SOR_DO_RETIRE);
		}
	}
	sor_conn_flags_locked(c);
	sor_conn_wake(c, SOR_WAKE_ALL);
	if (sor_fallback_pending(c->bg))
		sor_conn_kick_locked(c, SOR_DO_CONNECT);
}

/*
 * Start our NACK handshake (c->lock held); the work item sends it
 * (sor_nack.c).  Here, in the core, since every way a connection ends
 * (an abort too) starts it.
 */
void sor_conn_nack_start_locked(struct sor_conn *c, unsigned int reason)
{
	lockdep_assert_held(&c->lock);
	if (c->nack_pending || c->peer_id == EUSRV_SOR_NO_ID)
		return;
	c->nack_pending = true;
	c->nack_reason = reason;
	c->nack_tries = 0;
	if (sor_st_open(c->state) || c->state == EUSRV_SOR_ST_PEER_CLOSED)
		sor_conn_set_state_locked(c, EUSRV_SOR_ST_NACK_WAIT, 0);
	/* The request waits for our transfer in flight to end. */
	if (sor_conn_want_sent_locked(c))
		sor_conn_kick_locked(c, SOR_DO_XFER);
	sor_conn_kick_locked(c, SOR_DO_NACK);
}

/*
 * The connection fails here: calls in progress get ERR, and unless REASON
 * is 0 the peer is told with a NACK request carrying REASON.
 */
void sor_conn_abort_locked(struct sor_conn *c, int err, unsigned int reason)
{
	unsigned int old = c->state;

	lockdep_assert_held(&c->lock);
	if (old == EUSRV_SOR_ST_RESET || old == SOR_ST_QUARANTINE)
		return;
	sor_conn_set_state_locked(c, sor_st_on_abort(old), err);
	if (reason && c->peer_id != EUSRV_SOR_NO_ID && !c->nack_pending)
		sor_conn_nack_start_locked(c, reason);
	sor_conn_kick_locked(c, SOR_DO_RETIRE);
}

/*
 * Whether C may leave the table, its id and rings going: besides what the
 * state says, never while its peer may still write into its receive ring
 * (docs/protocol.md section 7): the peer confirms the end (a NACK, or RST:
 * it knows no such connection), or the board reports the node gone.
 */
bool sor_conn_may_retire_locked(struct sor_conn *c)
{
	return sor_st_may_retire(c->state, c->released, c->nack_pending,
				 c->busy, c->reply_owed) && !c->peer_may_write;
}

/*
 * C is over but its peer may still write its receive ring: it stays,
 * counted as quarantined, until the peer confirms (c->lock held).
 */
void sor_conn_fence_locked(struct sor_conn *c)
{
	lockdep_assert_held(&c->lock);
	if (c->state == EUSRV_SOR_ST_NACK_WAIT)
		sor_conn_set_state_locked(c, EUSRV_SOR_ST_RESET, 0);
	if (c->fencing || !c->peer_may_write)
		return;
	c->fencing = true;
	atomic64_add(SOR_RCV_DATA_OFF + c->rcv_size, &sor_fence_bytes);
}

/* The peer of C will not write its receive ring again (c->lock held). */
void sor_conn_peer_done_locked(struct sor_conn *c)
{
	lockdep_assert_held(&c->lock);
	c->peer_may_write = false;
	if (c->fencing) {
		c->fencing = false;
		atomic64_sub(SOR_RCV_DATA_OFF + c->rcv_size, &sor_fence_bytes);
	}
}

/* STATS quarantined, the connections' part (sor_quarantine.c has the rest). */
u64 sor_conn_fencing_bytes(void)
{
	return atomic64_read(&sor_fence_bytes);
}

/* A record of C as LIST shows it; takes C's lock. */
void sor_conn_stat(struct sor_conn *c, struct eusrv_sor_conn_stat *s)
{
	u32 snd_flags = 0, rcv_flags = 0;
	unsigned long flags;

	memset(s, 0, sizeof(*s));
	spin_lock_irqsave(&c->lock, flags);
	s->id = c->id;
	s->peer_node = c->peer_node;
	s->peer_id = c->peer_id;
	s->state = sor_st_uapi(c->state);
	s->lport = c->lport;
	s->rport = c->rport;
	s->so_error = c->so_error;
	s->snd_size = c->snd_size;
	s->rcv_size = c->rcv_size;
	if (c->snd_hdr && c->snd_data) {
		s->snd_queued = min(c->snd_seen - sor_conn_snd_done_locked(c),
				    c->snd_size);
		snd_flags = READ_ONCE(c->snd_hdr->flags);
	}
	if (c->rcv_hdr && c->rcv_data) {
		s->rcv_queued = min(c->rcv_tail - READ_ONCE(c->rcv_hdr->head),
				    c->rcv_size);
		rcv_flags = READ_ONCE(c->rcv_hdr->flags);
	}
	s->bytes_sent = c->bytes_sent;
	s->bytes_rcvd = c->bytes_rcvd;
	s->transfers = c->transfers;
	s->pid = c->pid;
	s->uid = from_kuid_munged(&init_user_ns, c->uid);
	s->flags = (rcv_flags & 0xffff) << 16 | (snd_flags & 0xffff);
	s->serial = c->serial;
	spin_unlock_irqrestore(&c->lock, flags);
	sor_crossings_read(c->x, &s->x);
}

/*
 * Up to ROOM records of the history, newest first; returns how many there
 * are (a caller with less room asks again with more).
 */
u32 sor_conn_history(struct eusrv_sor_conn_stat *out, u32 room)
{
	unsigned long flags;
	u32 i, total;

	spin_lock_irqsave(&sor_tbl_lock, flags);
	total = sor_hist_count;
	for (i = 0; i < min(total, room); i++)
		out[i] = sor_hist[(sor_hist_next + EUSRV_SOR_HISTORY - 1 - i) %
				  EUSRV_SOR_HISTORY];
	spin_unlock_irqrestore(&sor_tbl_lock, flags);
	return total;
}

/*
 * A new connection, not in the table yet (sor_conn_publish), allocated
 * with GFP: a client's in its caller's context, a server's wherever the
 * ConnRQ is served (then it has no process until ACCEPT).
 */
struct sor_conn *sor_conn_new(unsigned int peer_node, bool client, gfp_t gfp)
{
	struct sor_conn *c = kzalloc(sizeof(*c), gfp);

	if (!c)
		return ERR_PTR(-ENOMEM);
	kref_init(&c->ref);	/* the caller's */
	spin_lock_init(&c->lock);
	init_waitqueue_head(&c->wq);
	init_waitqueue_head(&c->lock_wq[EUSRV_SOR_LOCK_SEND]);
	init_waitqueue_head(&c->lock_wq[EUSRV_SOR_LOCK_RECV]);
	INIT_WORK(&c->work, sor_work_run);
	timer_setup(&c->timer, sor_conn_timer_fn, 0);
	INIT_LIST_HEAD(&c->dummy.link);
	c->peer_node = peer_node;
	c->peer_id = EUSRV_SOR_NO_ID;
	c->client = client;
	c->state = client ? EUSRV_SOR_ST_CONNECTING : EUSRV_SOR_ST_ACCEPTING;
	if (client) {
		c->pid = task_tgid_nr(current);
		c->uid = current_euid();
	}
	c->born = jiffies;
	c->heard = c->born;
	c->probed = c->born;
	return c;
}

/*
 * C gets an id and goes in the table, with a reference of the table's:
 * from now on messages reach it, so it must have its rings (every
 * handler may use them).  0, or -ENOBUFS when every id is taken.
 */
int sor_conn_publish(struct sor_conn *c)
{
	unsigned long flags;
	int id;

	if (WARN_ON_ONCE(!sor_conn_has_rings(c)))
		return -ENOMEM;
	kref_get(&c->ref);
	spin_lock_irqsave(&sor_tbl_lock, flags);
	id = sor_dying ? -ENODEV : sor_ids_alloc(&sor_id_table);
	if (id >= 0) {
		c->id = id;
		c->in_table = true;
		sor_tbl[id] = c;
	}
	spin_unlock_irqrestore(&sor_tbl_lock, flags);
	if (id < 0) {
		sor_conn_put(c);
		return id == -EAGAIN ? -ENOBUFS : id;
	}
	return 0;
}

/*
 * The send ring's data of SIZE (the header page is there), reusing what
 * is there if it fits.  A
 * bigger one replaces it under the lock, so that a reader holding the lock
 * sees the old ring or the new one whole; if none is to be had, the old
 * one stays.
 */
static int sor_conn_fit_snd(struct sor_conn *c, u32 size, gfp_t gfp)
{
	unsigned long flags;
	void *old, *data;
	u32 old_size;

	if (c->snd_data && c->snd_size == size)
		return 0;
	data = sor_pool_get(size, gfp);
	if (!data)
		return -ENOMEM;
	spin_lock_irqsave(&c->lock, flags);
	old = c->snd_data;
	old_size = c->snd_size;
	c->snd_data = data;
	c->snd_size = size;
	c->snd_hdr->size = size;
	spin_unlock_irqrestore(&c->lock, flags);
	if (old)
		sor_pool_put(old, old_size, NULL);
	return 0;
}

/* The receive block for a ring of SIZE, likewise. */
static int sor_conn_fit_rcv(struct sor_conn *c, u32 size, gfp_t gfp)
{
	unsigned long flags;
	void *old, *blk;
	u32 old_size;

	if (c->rcv_blk && c->rcv_size == size)
		return 0;
	blk = sor_pool_get(SOR_RCV_DATA_OFF + size, gfp);
	if (!blk)
		return -ENOMEM;
	((struct eusrv_sor_ring_hdr *)blk)->size = size;
	*(u32 *)(blk + SOR_RCV_ARM_OFF) = 0;
	*(u32 *)(blk + SOR_RCV_KSENT_OFF) = 0;
	*(u32 *)(blk + SOR_RCV_WANT_OFF) = 0;
	spin_lock_irqsave(&c->lock, flags);
	old = c->rcv_blk;
	old_size = c->rcv_size;
	c->rcv_blk = blk;
	c->rcv_size = size;
	c->rcv_hdr = blk;
	c->rcv_ktail = blk + SOR_RCV_KTAIL_OFF;
	c->rcv_arm = blk + SOR_RCV_ARM_OFF;
	c->snd_ksent = blk + SOR_RCV_KSENT_OFF;
	c->snd_want = blk + SOR_RCV_WANT_OFF;
	c->rcv_data = blk + SOR_RCV_DATA_OFF;
	spin_unlock_irqrestore(&c->lock, flags);
	if (old)
		sor_pool_put(old, SOR_RCV_DATA_OFF + old_size, NULL);
	return 0;
}

/*
 * Rings of SND and RCV bytes (allocated with GFP, before the peer knows
 * their address): those allocated already are kept if they have the
 * size, replaced if not; on failure what C had stays.
 */
int sor_conn_alloc_rings(struct sor_conn *c, u32 snd, u32 rcv, gfp_t gfp)
{
	if (!c->snd_hdr)
		c->snd_hdr = (void *)get_zeroed_page(gfp);
	if (!c->snd_hdr)
		return -ENOMEM;	/* freed with the connection */
	if (sor_conn_fit_snd(c, snd, gfp) || sor_conn_fit_rcv(c, rcv, gfp))
		return -ENOMEM;
	return 0;
}

struct sor_reset_arg {
	unsigned int node;
	int err;
	bool gone;	/* the board says the node is not there */
};

static void sor_conn_reset_one(struct sor_conn *c, void *p)
{
	struct sor_reset_arg *a = p;

	if (c->peer_node != a->node)
		return;
	spin_lock_irq(&c->lock);
	if (c->state != EUSRV_SOR_ST_RESET && c->state != SOR_ST_QUARANTINE &&
	    c->state != EUSRV_SOR_ST_NACK_WAIT)
		sor_count(SOR_S_PEER_RESETS);
	if (a->gone)
		sor_conn_peer_done_locked(c);
	/*
	 * Nothing owed to a node that is down or forgot us.  Our handshake
	 * is dropped too, unless the peer may still write our ring: then it
	 * is held until the peer answers (once back) or is gone.
	 */
	c->reply_owed = false;
	if (!c->peer_may_write) {
		c->nack_pending = false;
		if (c->state == EUSRV_SOR_ST_NACK_WAIT)
			c->state = EUSRV_SOR_ST_RESET;
	}
	sor_conn_abort_locked(c, a->err, 0);
	sor_conn_kick_locked(c, SOR_DO_RETIRE);
	spin_unlock_irq(&c->lock);
}

/*
 * Node NODE is gone or silent: every connection with it fails with ERR.
 * Process context (sor_keepalive.c's work).
 */
void sor_conn_reset_node(unsigned int node, int err)
{
	struct sor_reset_arg a = { .node = node, .err = err };

	sor_conn_for_each(sor_conn_reset_one, &a);
}

/*
 * The board reports NODE not there (a decode error): nothing of it can
 * write any more, so nothing is held for it.  Process context.
 */
void sor_conn_node_gone(unsigned int node)
{
	struct sor_reset_arg a = { .node = node, .err = ECONNRESET, .gone = true };

	sor_conn_for_each(sor_conn_reset_one, &a);
}

/*
 * Take C out of the table (its timer disarmed, its record kept in the
 * history): true if it was in, and the caller has the table's reference
 * to drop once the rest of C's teardown is done (sor_retire.c).
 */
bool sor_conn_unpublish(struct sor_conn *c)
{
	unsigned long flags;
	bool was;

	spin_lock_irqsave(&c->lock, flags);
	sor_conn_disarm_locked(c);
	spin_unlock_irqrestore(&c->lock, flags);

	spin_lock_irqsave(&sor_tbl_lock, flags);
	was = c->in_table;
	if (was) {
		sor_tbl[c->id] = NULL;
		sor_ids_free(&sor_id_table, c->id);
		c->in_table = false;
		/* Only what was established carried anything worth keeping. */
		if (c->serial) {
			sor_conn_stat(c, &sor_hist[sor_hist_next]);
			sor_hist[sor_hist_next].closed = 1;
			sor_hist_next = (sor_hist_next + 1) % EUSRV_SOR_HISTORY;
			if (sor_hist_count < EUSRV_SOR_HISTORY)
				sor_hist_count++;
		}
	}
	spin_unlock_irqrestore(&sor_tbl_lock, flags);
	return was;
}

/*
 * Module exit: no files (they pin the module), no handlers any more.  No
 * work is queued and no timer armed from now on; those queued are done.
 */
void sor_conn_exit(void)
{
	unsigned long flags;

	spin_lock_irqsave(&sor_tbl_lock, flags);
	sor_dying = true;
	spin_unlock_irqrestore(&sor_tbl_lock, flags);
	flush_workqueue(sor_wq);
}
