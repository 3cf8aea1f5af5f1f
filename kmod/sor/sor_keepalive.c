// SPDX-License-Identifier: GPL-2.0
/*
 * eusrv_sor peer liveness (docs/protocol.md section 5): every
 * SOR_KA_PERIOD_MS each node with connections to us (and each node we
 * think is down) gets a KEEPALIVE probe; any message from a node counts as
 * a sign of life.  A node silent for SOR_KA_DEAD_MS, or one the board
 * reports undeliverable (the mailbox's tx_error), is down: its connections
 * are reset with ECONNRESET.  A down node heard from again (it was only
 * frozen or cut off) is told KEEPALIVE(reset), so that it drops its side
 * of those connections too instead of waiting on them for ever.
 *
 * A node that answers can still have forgotten one connection: so a
 * connection that waits for its peer (a sleeper, queued data, a flush)
 * and has heard nothing on it for SOR_PROBE_MS asks the peer with PROBE.
 * The peer answers with an echo if it knows the connection, with RST if
 * it does not (sor_rx.c), so no connection waits for ever on a live peer.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitops.h>
#include <linux/sched.h>
#include <linux/jiffies.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include <eusrv/board_hw.h>
#include <eusrv/mbox.h>

#include "sor_data.h"
#include "sor_keepalive.h"

static DEFINE_SPINLOCK(sor_ka_lock);
static unsigned long sor_ka_last[EUSRV_MAX_NODES];	/* jiffies heard */
static u64 sor_ka_down;					/* bit n: node n down */
static u32 sor_ka_seq;
static void sor_ka_fn(struct work_struct *w);
static DECLARE_DELAYED_WORK(sor_ka_work, sor_ka_fn);
/*
 * Nodes whose connections the reset work resets, and those the board
 * reported gone: set in any context, the walk over the connections is
 * the work's, never an interrupt's.
 */
static u64 sor_ka_to_reset, sor_ka_to_forget;
static void sor_ka_reset_fn(struct work_struct *w);
static DECLARE_WORK(sor_ka_reset_work, sor_ka_reset_fn);

static void sor_ka_reset_later(unsigned int node, bool gone)
{
	unsigned long flags;

	if (node >= EUSRV_MAX_NODES)
		return;
	spin_lock_irqsave(&sor_ka_lock, flags);
	sor_ka_to_reset |= BIT_ULL(node);
	if (gone)
		sor_ka_to_forget |= BIT_ULL(node);
	spin_unlock_irqrestore(&sor_ka_lock, flags);
	queue_work(sor_wq, &sor_ka_reset_work);
}

static void sor_ka_reset_fn(struct work_struct *w)
{
	unsigned int n;
	u64 reset, gone;

	spin_lock_irq(&sor_ka_lock);
	reset = sor_ka_to_reset;
	gone = sor_ka_to_forget;
	sor_ka_to_reset = 0;
	sor_ka_to_forget = 0;
	spin_unlock_irq(&sor_ka_lock);
	for (n = 0; n < EUSRV_MAX_NODES; n++) {
		if (gone & BIT_ULL(n)) {
			sor_quar_node_gone(n);
			sor_conn_node_gone(n);
		} else if (reset & BIT_ULL(n)) {
			sor_conn_reset_node(n, ECONNRESET);
		}
	}
}

static_assert(EUSRV_MAX_NODES <= 64);

void sor_ka_heard(unsigned int node)
{
	unsigned long flags;
	bool was;

	if (node >= EUSRV_MAX_NODES)
		return;
	spin_lock_irqsave(&sor_ka_lock, flags);
	sor_ka_last[node] = jiffies;
	was = sor_ka_down & BIT_ULL(node);
	sor_ka_down &= ~BIT_ULL(node);
	spin_unlock_irqrestore(&sor_ka_lock, flags);
	if (was) {
		pr_info("node %u is back: telling it to reset its connections with us\n",
			node);
		sor_send(node, eusrv_sor_msg_keepalive(EUSRV_SOR_KA_RESET, 0));
	}
}

static void sor_ka_mark_down(unsigned int node, const char *why)
{
	unsigned long flags;
	bool was;

	spin_lock_irqsave(&sor_ka_lock, flags);
	was = sor_ka_down & BIT_ULL(node);
	sor_ka_down |= BIT_ULL(node);
	spin_unlock_irqrestore(&sor_ka_lock, flags);
	if (!was)
		pr_info("node %u is down (%s): resetting its connections\n",
			node, why);
	sor_ka_reset_later(node, false);
}

/* A message to NODE was not delivered (hard IRQ). */
void sor_ka_tx_error(unsigned int node, u32 status)
{
	if (node >= EUSRV_MAX_NODES)
		return;
	if (status == EUSRV_MBOX_ST_DECERR)
		sor_ka_reset_later(node, true);
	sor_ka_mark_down(node, status == EUSRV_MBOX_ST_DECERR ? "not on the board" :
			 status == EUSRV_MBOX_ST_DISABLED ? "mailbox disabled" :
			 "mailbox full");
}

u64 sor_ka_nodes_up(void)
{
	unsigned int nodes = eusrv_mbox_nodes();
	int self = sor_node();
	u64 up;

	up = nodes >= 64 ? ~0ULL : BIT_ULL(nodes) - 1;
	up &= ~READ_ONCE(sor_ka_down);
	if (self >= 0)
		up |= BIT_ULL(self);
	return up;
}

void sor_rx_keepalive(unsigned int src, u64 msg)
{
	unsigned int kind = eusrv_sor_ka_kind(msg);

	if (eusrv_msg_conn(msg) || (eusrv_msg_payload(msg) & GENMASK_ULL(43, 32)) ||
	    kind < EUSRV_SOR_KA_PROBE || kind > EUSRV_SOR_KA_RESET) {
		sor_bad("malformed KEEPALIVE %#llx from node %u\n", msg, src);
		return;
	}
	if (kind == EUSRV_SOR_KA_RESET) {
		/* SRC took us for down and forgot our connections. */
		pr_info("node %u reset our connections: resetting ours with it\n",
			src);
		sor_ka_reset_later(src, false);
	} else if (kind == EUSRV_SOR_KA_PROBE)
		sor_send(src, eusrv_sor_msg_keepalive(EUSRV_SOR_KA_ECHO,
						      eusrv_sor_ka_seq(msg)));
}

/* PROBE from the peer of C: answer it; an echo only counts as hearing from it. */
void sor_rx_probe(struct sor_conn *c, unsigned int kind)
{
	if (kind == EUSRV_SOR_PROBE_ASK)
		sor_conn_send(c, eusrv_sor_msg_probe(c->peer_id, c->id,
						     EUSRV_SOR_PROBE_ECHO), 0);
	else if (kind != EUSRV_SOR_PROBE_ECHO)
		sor_bad("conn %u: PROBE of kind %u from node %u\n", c->id, kind,
			c->peer_node);
}

/* Whether C waits on its peer: a sleeper, bytes not yet taken, a flush. */
static bool sor_ka_waits(struct sor_conn *c)
{
	bool ended = sor_conn_xfer_ended_locked(c);

	/* A transfer that ended unnoticed (no SENT asked for) is taken now. */
	if (ended)
		sor_conn_kick_locked(c, SOR_DO_XFER);
	if (c->state == EUSRV_SOR_ST_CLOSING || (c->busy && !ended))
		return true;
	if (c->state != EUSRV_SOR_ST_ESTABLISHED)
		return false;
	return wq_has_sleeper(&c->wq) ||
	       READ_ONCE(c->snd_hdr->tail) != sor_conn_snd_done_locked(c);
}

struct sor_ka_probe {
	unsigned long now;
	unsigned int budget;
};

/* PROBE C if it waited SOR_PROBE_MS in silence. */
static void sor_ka_probe_one(struct sor_conn *c, void *arg)
{
	struct sor_ka_probe *p = arg;
	unsigned long quiet = msecs_to_jiffies(SOR_PROBE_MS);
	u64 msg = 0;

	if (!p->budget)
		return;
	spin_lock_irq(&c->lock);
	if (c->peer_id != EUSRV_SOR_NO_ID && c->have_addr && sor_ka_waits(c) &&
	    time_after(p->now, READ_ONCE(c->heard) + quiet) &&
	    time_after(p->now, c->probed + quiet)) {
		c->probed = p->now;
		msg = eusrv_sor_msg_probe(c->peer_id, c->id, EUSRV_SOR_PROBE_ASK);
	}
	spin_unlock_irq(&c->lock);
	if (msg && !sor_conn_send(c, msg, 0)) {
		sor_count(SOR_S_PROBES_SENT);
		p->budget--;
	}
}

static void sor_ka_peer(struct sor_conn *c, void *arg)
{
	u64 *nodes = arg;

	if (c->peer_node < EUSRV_MAX_NODES && c->state != SOR_ST_QUARANTINE &&
	    c->state != EUSRV_SOR_ST_RESET)
		*nodes |= BIT_ULL(c->peer_node);
}

static void sor_ka_fn(struct work_struct *w)
{
	unsigned long dead = msecs_to_jiffies(SOR_KA_DEAD_MS), now = jiffies;
	unsigned int nodes = eusrv_mbox_nodes(), n;
	u64 peers = 0, down, silent = 0;
	struct sor_ka_probe probe = { .now = now, .budget = SOR_PROBE_BUDGET };
	int self = sor_node();
	u32 seq;

	sor_conn_for_each(sor_ka_peer, &peers);
	sor_conn_for_each(sor_ka_probe_one, &probe);
	spin_lock_irq(&sor_ka_lock);
	down = sor_ka_down;
	seq = ++sor_ka_seq;
	for (n = 0; n < EUSRV_MAX_NODES; n++)
		if ((peers & BIT_ULL(n)) && time_after(now, sor_ka_last[n] + dead))
			silent |= BIT_ULL(n);
	spin_unlock_irq(&sor_ka_lock);

	for (n = 0; n < nodes && n < EUSRV_MAX_NODES; n++) {
		if ((int)n == self || !((peers | down) & BIT_ULL(n)))
			continue;
		if (silent & BIT_ULL(n))
			sor_ka_mark_down(n, "no answer to keepalives");
		sor_send(n, eusrv_sor_msg_keepalive(EUSRV_SOR_KA_PROBE, seq));
	}
	sor_quar_tick();
	queue_delayed_work(sor_wq, &sor_ka_work,
			   msecs_to_jiffies(SOR_KA_PERIOD_MS));
}

void sor_ka_start(void)
{
	queue_delayed_work(sor_wq, &sor_ka_work,
			   msecs_to_jiffies(SOR_KA_PERIOD_MS));
}

void sor_ka_stop(void)
{
	cancel_delayed_work_sync(&sor_ka_work);
	cancel_work_sync(&sor_ka_reset_work);
}
