/*
 * The mailbox block (see mailbox.h and board_hw.h).  Stores posted in a
 * node's outbound queue are performed in order; a store to a full FIFO
 * blocks that queue until the FIFO drains or the store times out, unless
 * it is flagged NOWAIT: then it is refused at once, and so are the node's
 * later NOWAIT stores to that FIFO until one says RESUME.
 *
 * Everything read from the page is untrusted: ring indices are free-running
 * u32 values that are range-checked against the model's own copies and
 * always reduced modulo the ring depth before use.
 */
#include "mailbox.h"

#include <stddef.h>
#include <string.h>

#include "regs.h"

_Static_assert(EUSRV_MAX_NODES <= 32, "waiter bitmap is a u32");
_Static_assert(EUSRV_MBOX_TXQ + EUSRV_MBOX_TXQ_DEPTH *
	       sizeof(struct eusrv_mbox_txq_entry) <= EUSRV_PAGE_SIZE,
	       "outbound queue fits the page");
_Static_assert(EUSRV_MBOX_FIFO + EUSRV_MBOX_FIFO_DEPTH *
	       sizeof(struct eusrv_mbox_fifo_entry) <= EUSRV_MBOX_TXQ,
	       "inbound FIFO fits below the outbound queue");

#define MBOX_IE_MASK	(EUSRV_MBOX_CTRL_ENQ_IE | EUSRV_MBOX_CTRL_FULL_IE | \
			 EUSRV_MBOX_CTRL_TXDONE_IE | EUSRV_MBOX_CTRL_ERR_IE | \
			 EUSRV_MBOX_CTRL_ROOM_IE)

static const char *const vb_mbox_bad_names[] = {
	[EUSRV_MBOX_BAD_NONE] = "none",
	[EUSRV_MBOX_BAD_CTRL] = "reserved CTRL bits set",
	[EUSRV_MBOX_BAD_RX_CONS] = "RX_CONS outside [RX_PROD-depth, RX_PROD]",
	[EUSRV_MBOX_BAD_TX_PROD] = "TX_PROD outside [TX_CONS, TX_CONS+depth]",
	[EUSRV_MBOX_BAD_KICK] = "kick on a vector with no block",
	[EUSRV_MBOX_BAD_TX_FLAGS] = "unknown outbound entry flags",
};

static uint32_t vb_mbox_fifo_off(uint32_t idx)
{
	return EUSRV_MBOX_FIFO +
	       (idx % EUSRV_MBOX_FIFO_DEPTH) *
	       (uint32_t)sizeof(struct eusrv_mbox_fifo_entry);
}

static uint32_t vb_mbox_txq_off(uint32_t idx)
{
	return EUSRV_MBOX_TXQ +
	       (idx % EUSRV_MBOX_TXQ_DEPTH) *
	       (uint32_t)sizeof(struct eusrv_mbox_txq_entry);
}

static uint64_t vb_mbox_now_ms(struct vb_mbox *m)
{
	return m->ops->now_ms(m);
}

/* A programming error of the node: count it, record it, log (limited). */
static void vb_mbox_bad(struct vb_mbox *m, uint32_t code, uint32_t value)
{
	m->bad_cnt++;
	m->bad_last = code;
	wr32(m->page, EUSRV_MBOX_BAD_LAST, m->bad_last);
	wr32(m->page, EUSRV_MBOX_BAD_CNT, m->bad_cnt);
	if (log_ratelimit_ok(&m->rl, vb_mbox_now_ms(m)))
		log_warn("node%u mailbox: programming error %u (%s), value %#x",
			 m->node, code, vb_mbox_bad_names[code], value);
}

/* A bad register value: counted once while the node leaves it (regs.h). */
static void vb_mbox_bad_once(struct vb_mbox *m, bool *bad, uint32_t *last,
			     uint32_t code, uint32_t value)
{
	if (reg_bad_is_new(bad, last, value))
		vb_mbox_bad(m, code, value);
}

/* CTRL with reserved bits ignored. */
static uint32_t vb_mbox_ctrl(struct vb_mbox *m)
{
	uint32_t ctrl = rd32(m->page, EUSRV_MBOX_CTRL);

	if (ctrl & ~EUSRV_MBOX_CTRL_VALID) {
		vb_mbox_bad_once(m, &m->ctrl_bad, &m->ctrl_bad_val, EUSRV_MBOX_BAD_CTRL,
				 ctrl);
		return ctrl & EUSRV_MBOX_CTRL_VALID;
	}
	m->ctrl_bad = false;
	return ctrl;
}

/* Free FIFO entries; an impossible RX_CONS makes the FIFO count as full. */
static uint32_t vb_mbox_fifo_space(struct vb_mbox *d)
{
	uint32_t cons = rd32_acquire(d->page, EUSRV_MBOX_RX_CONS);
	uint32_t used = d->rx_prod - cons;

	if (used > EUSRV_MBOX_FIFO_DEPTH) {
		vb_mbox_bad_once(d, &d->rx_cons_bad, &d->rx_cons_bad_val,
				 EUSRV_MBOX_BAD_RX_CONS, cons);
		return 0;
	}
	d->rx_cons_bad = false;
	return EUSRV_MBOX_FIFO_DEPTH - used;
}

/* RX_STALLED is 1 exactly while some store or refused sender waits. */
static void vb_mbox_stall_update(struct vb_mbox *d)
{
	if (d->stalled && !d->waiters && !d->dma_waiters && !d->room_waiters) {
		d->stalled = false;
		if (d->up)
			wr32(d->page, EUSRV_MBOX_RX_STALLED, 0);
	}
}

/*
 * D's FIFO has no room for a store: then, as a Dekker handshake with the
 * consumer, which stores RX_CONS, fences and then loads RX_STALLED, store
 * RX_STALLED, fence, and load RX_CONS again, so that either we see its
 * progress or it sees the flag and kicks.  True if the FIFO is still full.
 */
static bool vb_mbox_fifo_full(struct vb_mbox *d)
{
	if (vb_mbox_fifo_space(d))
		return false;
	d->stalled = true;
	/* Always stored: the node may have scribbled over it. */
	wr32(d->page, EUSRV_MBOX_RX_STALLED, 1);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	return !vb_mbox_fifo_space(d);
}

/* A store starts to wait on D's FIFO: a new "FIFO full" event if the first. */
static void vb_mbox_full_event(struct vb_mbox *d)
{
	if (d->waiters || d->dma_waiters || d->room_waiters)
		return;
	d->full_cnt++;
	wr32(d->page, EUSRV_MBOX_FULL_CNT, d->full_cnt);
	d->causes |= EUSRV_MBOX_CTRL_FULL_IE;
}

/* Node NODE no longer waits on D's FIFO (WAITERS: D's waiters or dma_waiters). */
static void vb_mbox_waiter_gone(struct vb_mbox *d, uint32_t *waiters,
				unsigned int node)
{
	*waiters &= ~(1U << node);
	vb_mbox_stall_update(d);
}

/* A destination that refused S has room again: S may post anew. */
static void vb_mbox_room_event(struct vb_mbox *s)
{
	s->room_cnt++;
	wr32(s->page, EUSRV_MBOX_ROOM_CNT, s->room_cnt);
	s->causes |= EUSRV_MBOX_CTRL_ROOM_IE;
}

/*
 * Refuse S's NOWAIT store to D.  D's FIFO is full (FULL) or S is refused
 * already; either way S hears of room: when D drains, or now if it has.
 */
static uint32_t vb_mbox_refuse(struct vb_mbox *s, struct vb_mbox *d, bool full)
{
	if (!full)
		full = vb_mbox_fifo_full(d);
	if (full) {
		vb_mbox_full_event(d);
		d->room_waiters |= 1U << s->node;
	} else {
		vb_mbox_room_event(s);
	}
	s->refused_by |= 1U << d->node;
	s->tx_busy_cnt++;
	wr32(s->page, EUSRV_MBOX_TX_BUSY_CNT, s->tx_busy_cnt);
	return EUSRV_MBOX_ST_BUSY;
}

/* M has room after a kick: tell the senders it refused. */
static void vb_mbox_wake_refused(struct vb_mbox *m)
{
	unsigned int n;

	for (n = 0; n < EUSRV_MAX_NODES; n++) {
		struct vb_mbox *s;

		if (!(m->room_waiters & (1U << n)))
			continue;
		m->room_waiters &= ~(1U << n);
		s = m->ops->peer(m, n);
		if (s && s->up) {
			vb_mbox_room_event(s);
			s->ops->schedule(s);
		}
	}
	vb_mbox_stall_update(m);
}

static void vb_mbox_start_wait(struct vb_mbox *s, struct vb_mbox *d)
{
	vb_mbox_full_event(d);
	d->waiters |= 1U << s->node;
	s->wait_dest = d;
	s->wait_deadline_ms = vb_mbox_now_ms(s) + EUSRV_MBOX_STORE_TIMEOUT_MS;
	s->tx_wait_cnt++;
	wr32(s->page, EUSRV_MBOX_TX_WAIT_CNT, s->tx_wait_cnt);
	s->ops->timer_arm(s, s->wait_deadline_ms);
	log_debug("node%u mailbox: store to node%u waits on a full FIFO",
		  s->node, d->node);
}

static void vb_mbox_stop_wait(struct vb_mbox *s)
{
	struct vb_mbox *d = s->wait_dest;

	if (!d)
		return;
	s->wait_dest = NULL;
	vb_mbox_waiter_gone(d, &d->waiters, s->node);
	s->ops->timer_cancel(s);
}

/* Put {msg, src} in D's FIFO; the entry is visible before RX_PROD moves. */
static void vb_mbox_deliver(struct vb_mbox *d, unsigned int src, uint64_t msg)
{
	uint32_t off = vb_mbox_fifo_off(d->rx_prod);

	wr64(d->page, off + offsetof(struct eusrv_mbox_fifo_entry, msg), msg);
	wr16(d->page, off + offsetof(struct eusrv_mbox_fifo_entry, src_node),
	     (uint16_t)src);
	wr16(d->page, off + offsetof(struct eusrv_mbox_fifo_entry, reserved0), 0);
	wr32(d->page, off + offsetof(struct eusrv_mbox_fifo_entry, reserved1), 0);
	d->rx_total++;
	wr64(d->page, EUSRV_MBOX_RX_TOTAL, d->rx_total);
	d->rx_prod++;
	wr32_release(d->page, EUSRV_MBOX_RX_PROD, d->rx_prod);
	d->causes |= EUSRV_MBOX_CTRL_ENQ_IE;
}

/* The mailbox whose INBOX register is exactly ADDR, if attached. */
static struct vb_mbox *vb_mbox_inbox_target(struct vb_mbox *s, uint64_t addr)
{
	unsigned int node = EUSRV_GA_NODE(addr);
	struct vb_mbox *d;

	/* Catches garbage in bits 63:48 and any other register or offset. */
	if (addr != EUSRV_MBOX_INBOX_GA(node))
		return NULL;
	d = s->ops->peer(s, node);
	return d && d->up ? d : NULL;
}

/*
 * Perform one posted store of S with EUSRV_MBOX_TXF_* FLAGS: an
 * EUSRV_MBOX_ST_* result, or MBOX_STORE_WAIT while the destination FIFO is
 * full and time remains.
 */
static uint32_t vb_mbox_store(struct vb_mbox *s, uint64_t addr, uint64_t msg,
			      uint32_t flags)
{
	struct vb_mbox *d = vb_mbox_inbox_target(s, addr);
	bool nowait = flags & EUSRV_MBOX_TXF_NOWAIT;

	/* The node rewrote a waiting entry: forget the old wait. */
	if (s->wait_dest && (s->wait_dest != d || nowait))
		vb_mbox_stop_wait(s);
	if (!d)
		return EUSRV_MBOX_ST_DECERR;
	if (!(vb_mbox_ctrl(d) & EUSRV_MBOX_CTRL_EN)) {
		vb_mbox_stop_wait(s);
		return EUSRV_MBOX_ST_DISABLED;
	}
	if (nowait && (s->refused_by & (1U << d->node)) &&
	    !(flags & EUSRV_MBOX_TXF_RESUME))
		return vb_mbox_refuse(s, d, false);
	if (vb_mbox_fifo_full(d)) {
		if (nowait)
			return vb_mbox_refuse(s, d, true);
		if (!s->wait_dest) {
			vb_mbox_start_wait(s, d);
		} else if (vb_mbox_now_ms(s) >= s->wait_deadline_ms) {
			vb_mbox_stop_wait(s);
			return EUSRV_MBOX_ST_FULL;
		} else {
			/* Woken early: keep the deadline's timer. */
			s->ops->timer_arm(s, s->wait_deadline_ms);
		}
		return MBOX_STORE_WAIT;
	}
	vb_mbox_deliver(d, s->node, msg);
	s->refused_by &= ~(1U << d->node);
	vb_mbox_stop_wait(s);
	vb_mbox_stall_update(d);
	return EUSRV_MBOX_ST_OK;
}

/* Write back the head entry's status, then advance TX_CONS past it. */
static void vb_mbox_complete(struct vb_mbox *s, uint32_t status)
{
	uint32_t off = vb_mbox_txq_off(s->tx_cons);

	wr32(s->page, off + offsetof(struct eusrv_mbox_txq_entry, status),
	     status);
	if (status == EUSRV_MBOX_ST_OK) {
		s->tx_total++;
		wr64(s->page, EUSRV_MBOX_TX_TOTAL, s->tx_total);
	} else if (status != EUSRV_MBOX_ST_BUSY) {
		s->tx_err_cnt++;
		wr32(s->page, EUSRV_MBOX_TX_ERR_CNT, s->tx_err_cnt);
		s->causes |= EUSRV_MBOX_CTRL_ERR_IE;
		if (status == EUSRV_MBOX_ST_FULL) {
			if (log_ratelimit_ok(&s->rl, vb_mbox_now_ms(s)))
				log_info("node%u mailbox: store timed out on a full FIFO",
					 s->node);
		}
	}
	s->tx_cons++;
	wr32_release(s->page, EUSRV_MBOX_TX_CONS, s->tx_cons);
	s->causes |= EUSRV_MBOX_CTRL_TXDONE_IE;
}

/* Outstanding outbound entries, or -1 if TX_PROD is impossible. */
static int64_t vb_mbox_tx_pending(struct vb_mbox *m)
{
	uint32_t prod = rd32_acquire(m->page, EUSRV_MBOX_TX_PROD);
	uint32_t n = prod - m->tx_cons;

	if (n > EUSRV_MBOX_TXQ_DEPTH) {
		vb_mbox_bad_once(m, &m->tx_prod_bad, &m->tx_prod_bad_val,
				 EUSRV_MBOX_BAD_TX_PROD, prod);
		return -1;
	}
	m->tx_prod_bad = false;
	return n;
}

static void vb_mbox_reset(struct vb_mbox *m)
{
	uint32_t off;

	for (off = 0; off < EUSRV_PAGE_SIZE; off += sizeof(uint64_t))
		wr64(m->page, off, 0);
	m->rx_prod = 0;
	m->tx_cons = 0;
	m->full_cnt = 0;
	m->tx_err_cnt = 0;
	m->tx_wait_cnt = 0;
	m->tx_busy_cnt = 0;
	m->room_cnt = 0;
	m->bad_cnt = 0;
	m->bad_last = EUSRV_MBOX_BAD_NONE;
	m->rx_total = 0;
	m->tx_total = 0;
	m->stalled = false;
	m->ctrl_bad = false;
	m->rx_cons_bad = false;
	m->tx_prod_bad = false;
	m->wait_dest = NULL;
	m->waiters = 0;
	m->dma_waiters = 0;
	m->room_waiters = 0;
	m->refused_by = 0;
	m->waiter_rr = 0;
	m->causes = 0;
	wr32(m->page, EUSRV_MBOX_FIFO_SIZE, EUSRV_MBOX_FIFO_DEPTH);
	wr32(m->page, EUSRV_MBOX_TXQ_SIZE, EUSRV_MBOX_TXQ_DEPTH);
	/* ID last: a driver that sees it sees an initialised block. */
	wr32_release(m->page, EUSRV_MBOX_ID, EUSRV_MBOX_ID_VALUE);
}

void vb_mbox_init(struct vb_mbox *m, void *page, unsigned int node,
		  const struct vb_mbox_ops *ops, void *opaque)
{
	memset(m, 0, sizeof(*m));
	m->page = page;
	m->node = node;
	m->ops = ops;
	m->opaque = opaque;
}

void vb_mbox_attach(struct vb_mbox *m)
{
	vb_mbox_reset(m);
	m->up = true;
}

/* Wake the senders waiting on M's FIFO, fairly: rotate the first one. */
static void vb_mbox_wake_waiters(struct vb_mbox *m)
{
	unsigned int i;

	for (i = 0; i < EUSRV_MAX_NODES; i++) {
		unsigned int n = (m->waiter_rr + i) % EUSRV_MAX_NODES;
		struct vb_mbox *s;

		if (!((m->waiters | m->dma_waiters) & (1U << n)))
			continue;
		s = m->ops->peer(m, n);
		if (s)
			s->ops->schedule(s);
	}
	m->waiter_rr = (m->waiter_rr + 1) % EUSRV_MAX_NODES;
}

void vb_mbox_detach(struct vb_mbox *m)
{
	unsigned int n;
	int64_t pending;

	if (!m->up)
		return;
	vb_mbox_stop_wait(m);
	m->up = false;

	/* Stores waiting on the FIFO of a node that is gone: decode error. */
	for (n = 0; n < EUSRV_MAX_NODES; n++) {
		struct vb_mbox *s;

		if (!(m->waiters & (1U << n)))
			continue;
		m->waiters &= ~(1U << n);
		s = m->ops->peer(m, n);
		if (!s || s->wait_dest != m)
			continue;
		s->wait_dest = NULL;
		s->ops->timer_cancel(s);
		vb_mbox_complete(s, EUSRV_MBOX_ST_DECERR);
		s->ops->schedule(s);
	}
	/* DMA writes waiting on it: their engines retry and get DECERR. */
	for (n = 0; n < EUSRV_MAX_NODES; n++) {
		struct vb_mbox *s;

		if (!(m->dma_waiters & (1U << n)))
			continue;
		s = m->ops->peer(m, n);
		if (s)
			s->ops->schedule(s);
	}
	m->dma_waiters = 0;
	/* Senders it refused post again and meet DECERR. */
	vb_mbox_wake_refused(m);
	m->stalled = false;

	/* Its own outstanding stores will never be performed. */
	pending = vb_mbox_tx_pending(m);
	while (pending-- > 0)
		vb_mbox_complete(m, EUSRV_MBOX_ST_DECERR);
	m->causes = 0;
}

void vb_mbox_kick(struct vb_mbox *m)
{
	if (!m->up)
		return;
	/* Report bad values now rather than when a sender trips on them. */
	vb_mbox_ctrl(m);
	if (vb_mbox_fifo_space(m) && m->room_waiters)
		vb_mbox_wake_refused(m);
	if (m->waiters || m->dma_waiters)
		vb_mbox_wake_waiters(m);
	m->ops->schedule(m);
}

void vb_mbox_bad_kick(struct vb_mbox *m, unsigned int vector)
{
	if (m->up)
		vb_mbox_bad(m, EUSRV_MBOX_BAD_KICK, vector);
}

void vb_mbox_run(struct vb_mbox *m)
{
	unsigned int budget = MBOX_RUN_BUDGET;
	int64_t pending;

	if (!m->up)
		return;
	pending = vb_mbox_tx_pending(m);
	if (pending < 0) {
		/* Not acted on: release the FIFO a head entry waits on. */
		vb_mbox_stop_wait(m);
		return;
	}
	for (; pending > 0; pending--) {
		uint32_t off = vb_mbox_txq_off(m->tx_cons);
		uint64_t addr, msg;
		uint32_t flags, st;

		if (!budget--) {
			m->ops->schedule(m);
			return;
		}
		addr = rd64(m->page, off + offsetof(struct eusrv_mbox_txq_entry, addr));
		msg = rd64(m->page, off + offsetof(struct eusrv_mbox_txq_entry, data));
		flags = rd32(m->page, off + offsetof(struct eusrv_mbox_txq_entry, flags));
		st = vb_mbox_store(m, addr, msg, flags & EUSRV_MBOX_TXF_VALID);
		if (st == MBOX_STORE_WAIT)
			return;
		/* Counted once per entry: a waiting one is read again. */
		if (flags & ~EUSRV_MBOX_TXF_VALID)
			vb_mbox_bad(m, EUSRV_MBOX_BAD_TX_FLAGS, flags);
		vb_mbox_complete(m, st);
	}
}

void vb_mbox_timer(struct vb_mbox *m)
{
	if (m->up && m->wait_dest)
		m->ops->schedule(m);
}

void vb_mbox_update_irq(struct vb_mbox *m)
{
	uint32_t causes = m->causes;

	m->causes = 0;
	if (!m->up || !causes)
		return;
	/*
	 * The node turns an interrupt on, fences and looks at the counters;
	 * fence between ours and its CTRL so that one of us sees the other.
	 */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (causes & vb_mbox_ctrl(m) & MBOX_IE_MASK)
		m->ops->raise_irq(m);
}

void vb_mbox_dma_cancel(struct vb_mbox *src, struct vb_mbox_dma_wait *w)
{
	struct vb_mbox *d = w->dest;

	if (!d)
		return;
	w->dest = NULL;
	vb_mbox_waiter_gone(d, &d->dma_waiters, src->node);
}

uint32_t vb_mbox_dma_store(struct vb_mbox *s, struct vb_mbox_dma_wait *w,
			   uint64_t addr, uint64_t msg, uint32_t timeout_ms)
{
	struct vb_mbox *d = vb_mbox_inbox_target(s, addr);

	if (w->dest && w->dest != d)
		vb_mbox_dma_cancel(s, w);
	if (!d)
		return EUSRV_MBOX_ST_DECERR;
	if (!(vb_mbox_ctrl(d) & EUSRV_MBOX_CTRL_EN)) {
		vb_mbox_dma_cancel(s, w);
		return EUSRV_MBOX_ST_DISABLED;
	}
	if (!timeout_ms && !vb_mbox_fifo_space(d)) {
		vb_mbox_dma_cancel(s, w);
		return EUSRV_MBOX_ST_FULL;
	}
	if (vb_mbox_fifo_full(d)) {
		if (!w->dest) {
			vb_mbox_full_event(d);
			w->dest = d;
			w->deadline_ms = vb_mbox_now_ms(s) + timeout_ms;
		} else if (vb_mbox_now_ms(s) >= w->deadline_ms) {
			vb_mbox_dma_cancel(s, w);
			return EUSRV_MBOX_ST_FULL;
		}
		/* Again: the destination may have re-attached meanwhile. */
		d->dma_waiters |= 1U << s->node;
		return MBOX_STORE_WAIT;
	}
	vb_mbox_deliver(d, s->node, msg);
	vb_mbox_dma_cancel(s, w);
	vb_mbox_stall_update(d);
	return EUSRV_MBOX_ST_OK;
}
