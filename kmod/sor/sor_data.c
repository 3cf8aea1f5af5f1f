// SPDX-License-Identifier: GPL-2.0
/*
 * eusrv_sor data path (docs/protocol.md section 4): the writer moves data
 * as soon as it is written, while the receiver's ring has room by its last
 * credit.  A transfer is one CDMA chain: one or two extents, the new tail
 * stored into the receiver's kernel page and into its mapped header, DATA
 * to the receiver only if it said it sleeps (ARM), and SENT to ourselves.
 * The receiver gives credit (CREDIT) only when the writer could run short.
 *
 * Barriers: user space moves the send tail, issues a full barrier and
 * reads need_push; the driver sets need_push, issues a full barrier and
 * reads the tail again (sor_data_idle_locked).  One of the two sees the
 * other's store, so no written byte waits for a push that never comes.
 * Kernel-written positions are published with release stores after the
 * data they cover.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/jiffies.h>
#include <linux/printk.h>
#include <linux/sched.h>
#include <linux/stddef.h>

#include <eusrv/board_hw.h>
#include <eusrv/cdma.h>
#include <eusrv/mbox.h>

#include "sor_data.h"

/* How long a submitter waits for the engine's queue. */
#define SOR_SUBMIT_TIMEOUT_MS	1000U
#define SOR_SEND_TIMEOUT_MS	1000U

/*
 * The N messages MSGS to NODE, in order and with one doorbell, from any
 * context: how many the outbound queue took, or an error.
 */
int sor_send_many(unsigned int node, const u64 *msgs, unsigned int n)
{
	int ret = eusrv_mbox_send_many(node, msgs, n);
	int i;

	for (i = 0; i < ret; i++)
		sor_count_msg(sor_msgs_sent, eusrv_msg_type(msgs[i]));
	return ret;
}

/* A message to NODE, from any context (a full mailbox refuses it). */
int sor_send(unsigned int node, u64 msg)
{
	int ret = sor_send_many(node, &msg, 1);

	return ret < 0 ? ret : 0;
}

/*
 * As sor_send() for the N messages MSGS, in order and with one doorbell
 * where the queue takes them together, waiting up to MS for room; process
 * context.
 */
int sor_send_wait_many(unsigned int node, const u64 *msgs, unsigned int n,
		       unsigned int ms)
{
	int ret = eusrv_mbox_send_wait_many(node, msgs, n, msecs_to_jiffies(ms));
	unsigned int i;

	for (i = 0; !ret && i < n; i++)
		sor_count_msg(sor_msgs_sent, eusrv_msg_type(msgs[i]));
	return ret;
}

int sor_send_wait(unsigned int node, u64 msg, unsigned int ms)
{
	return sor_send_wait_many(node, &msg, 1, ms);
}

/* C's message to its peer, counted as C's crossing (sor_send or sor_send_wait). */
int sor_conn_send(struct sor_conn *c, u64 msg, unsigned int wait_ms)
{
	int ret = wait_ms ? sor_send_wait(c->peer_node, msg, wait_ms) :
		  sor_send(c->peer_node, msg);

	if (!ret) {
		sor_xcount(c, SOR_X_DOORBELLS);
		sor_xcount(c, SOR_X_MSGS_SENT);
	}
	return ret;
}

/*
 * The send tail user space wrote, checked: forward from the last accepted
 * one and at most a ring ahead of the confirmed head.  A bad one fails the
 * connection (EINVAL here, ECONNRESET at the peer).
 */
bool sor_data_check_tail_locked(struct sor_conn *c, u32 *tail)
{
	u32 t;

	if (c->shut_wr) {
		/* Writes after shutdown do not count. */
		*tail = c->fin_pos;
		return true;
	}
	t = READ_ONCE(c->snd_hdr->tail);
	if (!sor_ring_tail_ok(c->snd_head, c->snd_seen, t, c->snd_size)) {
		sor_count(SOR_S_BAD_USER);
		pr_debug_ratelimited("conn %u: bad send tail %u (head %u, last %u, size %u)\n",
				     c->id, t, c->snd_head, c->snd_seen,
				     c->snd_size);
		sor_conn_abort_locked(c, EINVAL, ECONNRESET);
		return false;
	}
	c->snd_seen = t;
	*tail = t;
	return true;
}

/*
 * The receive tail the peer's engine stored in our kernel page, checked:
 * forward, and within the room our last credit gave.  A bad one is the
 * peer's fault: the connection fails.  False if it did.
 */
bool sor_data_sync_tail_locked(struct sor_conn *c)
{
	u32 t;

	if (!c->rcv_ktail)
		return true;
	t = READ_ONCE(*c->rcv_ktail);
	if (t == c->rcv_tail)
		return true;
	if (c->fin_rcvd ||
	    !sor_ring_new_tail_ok(c->rcv_tail, t, c->rcv_reported, c->rcv_size)) {
		sor_bad("conn %u: peer wrote tail %u (tail %u, credit to %u)\n",
			c->id, t, c->rcv_tail, c->rcv_reported + c->rcv_size);
		sor_conn_abort_locked(c, EPROTO, ECONNRESET);
		return false;
	}
	c->bytes_rcvd += t - c->rcv_tail;
	sor_count_add(SOR_S_BYTES_RCVD, t - c->rcv_tail);
	c->rcv_tail = t;
	return true;
}

/* The receive head user space wrote, checked likewise. */
bool sor_data_check_head_locked(struct sor_conn *c, u32 *head)
{
	u32 h = READ_ONCE(c->rcv_hdr->head);

	if (!sor_data_sync_tail_locked(c))
		return false;
	if (!sor_ring_head_ok(c->rcv_seen, h, c->rcv_tail)) {
		sor_count(SOR_S_BAD_USER);
		pr_debug_ratelimited("conn %u: bad receive head %u (tail %u, last %u)\n",
				     c->id, h, c->rcv_tail, c->rcv_seen);
		sor_conn_abort_locked(c, EINVAL, ECONNRESET);
		return false;
	}
	c->rcv_seen = h;
	*head = h;
	return true;
}

/* A message from the interrupt handler; the work item resends a refused one. */
static void sor_data_send_locked(struct sor_conn *c, u64 msg, bool *owed)
{
	if (!sor_conn_send(c, msg, 0))
		return;
	*owed = true;
	sor_conn_kick_locked(c, SOR_DO_NOTIFY);
}

/*
 * If data is queued and the credit allows, reserve the engine for this
 * connection (busy, one transfer at a time); the caller then submits it
 * with sor_data_xfer() in process context.  True if reserved.
 */
static bool sor_data_reserve_locked(struct sor_conn *c)
{
	u32 tail;

	if (c->busy || !sor_st_open(c->state) || !c->have_addr)
		return false;
	if (!sor_data_check_tail_locked(c, &tail))
		return false;
	if (tail == c->snd_head ||
	    !sor_ring_window(c->peer_head, c->snd_head, c->snd_size))
		return false;
	c->busy = true;
	WRITE_ONCE(c->snd_hdr->need_push, 0);
	kref_get(&c->ref);	/* the transfer's, until SENT or failure */
	return true;
}

/* Reserve as above from any context; the work item submits, or PUSH. */
bool sor_data_try_xfer_locked(struct sor_conn *c)
{
	if (!sor_data_reserve_locked(c))
		return false;
	if (!c->pushing)
		sor_conn_kick_locked(c, SOR_DO_XFER);
	return true;
}

/*
 * No transfer in flight: start one if there is something to move, else
 * say whether user space must push.  While the window is closed with
 * data queued, the peer's CREDIT looks again, so no push is needed.
 */
void sor_data_idle_locked(struct sor_conn *c)
{
	u32 tail;

	if (c->busy || !sor_st_open(c->state))
		return;
	if (sor_data_try_xfer_locked(c))
		return;
	if (!sor_st_open(c->state))
		return;
	tail = c->shut_wr ? c->fin_pos : READ_ONCE(c->snd_hdr->tail);
	if (tail != c->snd_head &&
	    !sor_ring_window(c->peer_head, c->snd_head, c->snd_size)) {
		WRITE_ONCE(c->snd_hdr->need_push, 0);
		return;
	}
	WRITE_ONCE(c->snd_hdr->need_push, 1);
	/* Pairs with user space's barrier between its tail store and need_push load. */
	smp_mb();
	sor_data_try_xfer_locked(c);
}

/* Established: the kernel-written fields start, nothing owed. */
void sor_data_established_locked(struct sor_conn *c)
{
	WRITE_ONCE(c->snd_hdr->need_push, 1);
	WRITE_ONCE(c->rcv_hdr->reported, 0);
}

/* A transfer ended (SENT or failure): what may follow.  c->lock held. */
void sor_data_after_sent_locked(struct sor_conn *c)
{
	u32 tail;

	if (sor_st_open(c->state))
		sor_data_idle_locked(c);
	if (c->shut_wr && !c->fin_sent && !c->busy && c->snd_head == c->fin_pos &&
	    c->state == EUSRV_SOR_ST_ESTABLISHED)
		sor_conn_kick_locked(c, SOR_DO_FIN);
	if (c->state == EUSRV_SOR_ST_CLOSING) {
		c->progress = jiffies;
		if (!c->busy && sor_data_check_tail_locked(c, &tail) &&
		    tail == c->snd_head)
			sor_conn_nack_start_locked(c, 0);
	}
	if (c->reply_owed && !c->busy)
		sor_conn_kick_locked(c, SOR_DO_REPLY);
	/* Our NACK request waited for this transfer to end. */
	if (c->nack_pending && !c->nack_tries && !c->busy)
		sor_conn_kick_locked(c, SOR_DO_NACK);
	if (c->released)
		sor_conn_kick_locked(c, SOR_DO_RETIRE);
}

/*
 * The transfer in flight ended at END: its SENT came, or our engine's
 * store of its end was seen.  The room is free, what waited on it may
 * go on.  c->lock held; the caller drops the transfer's reference.
 */
static void sor_data_ended_locked(struct sor_conn *c, u32 end)
{
	u32 n = end - c->snd_head;

	c->bytes_sent += n;
	sor_count_add(SOR_S_BYTES_SENT, n);
	c->snd_head = end;
	c->busy = false;
	c->sent_wanted = false;
	/* A SENT not yet sent is not needed any more. */
	xchg(c->snd_want, 0);
	/* Pairs with the writer's acquire load of head: the room is free. */
	smp_store_release(&c->snd_hdr->head, end);
	sor_conn_wake(c, SOR_WAKE_OUT);
	sor_data_after_sent_locked(c);
}

/*
 * Take the transfer in flight as ended if our engine says so; true if it
 * did: the caller drops the transfer's reference once it unlocked.
 */
bool sor_data_reap_locked(struct sor_conn *c)
{
	if (!sor_conn_xfer_ended_locked(c))
		return false;
	sor_data_ended_locked(c, c->snd_end);
	return true;
}

/* As sor_data_reap_locked(), from any context but C's lock. */
void sor_data_reap(struct sor_conn *c)
{
	unsigned long flags;
	bool done;

	spin_lock_irqsave(&c->lock, flags);
	done = sor_data_reap_locked(c);
	spin_unlock_irqrestore(&c->lock, flags);
	if (done)
		sor_conn_put(c);	/* the transfer's reference */
}

/* CREDIT: the peer consumed up to HEAD. */
void sor_rx_credit(struct sor_conn *c, u32 head)
{
	unsigned long flags;
	bool done = false;

	spin_lock_irqsave(&c->lock, flags);
	if (sor_st_late(c->state))
		goto out;	/* crossed our close: nothing to send any more */
	if (!sor_st_accepts(c->state, c->client, true, true, EUSRV_SOR_MSG_CREDIT) ||
	    !sor_ring_peer_pos_ok(c->peer_head, head, c->snd_end)) {
		sor_bad("conn %u: credit %u unexpected (state %u, peer head %u, sent %u)\n",
			c->id, head, c->state, c->peer_head, c->snd_end);
		goto out;
	}
	sor_count(SOR_S_CREDITS_RCVD);
	c->peer_head = head;
	/* A transfer that ended unnoticed first; one in flight: its end looks. */
	done = sor_data_reap_locked(c);
	sor_data_idle_locked(c);
out:
	spin_unlock_irqrestore(&c->lock, flags);
	if (done)
		sor_conn_put(c);	/* the ended transfer's reference */
}

/*
 * DATA: the peer's engine stored new data and its tail, and we sleep.  The
 * tail we trust is the one in our kernel page (checked when synced); the
 * message's own may be behind it already, so it only wakes.
 */
void sor_rx_data(struct sor_conn *c, u32 tail)
{
	unsigned long flags;

	spin_lock_irqsave(&c->lock, flags);
	if (!sor_st_accepts(c->state, c->client, true, true, EUSRV_SOR_MSG_DATA)) {
		sor_bad("conn %u: DATA %u unexpected (state %u)\n",
			c->id, tail, c->state);
		goto out;
	}
	sor_count(SOR_S_DATA_IRQS);
	if (!sor_data_sync_tail_locked(c))
		goto out;
	/*
	 * Nothing unread: the data it is for was read already (its reader
	 * found it after arming, while the engine took the word).  Waking
	 * would find nothing; the arm it took is set again instead, since a
	 * reader may have armed anew before it came.
	 */
	if (READ_ONCE(c->rcv_hdr->head) == c->rcv_tail && !c->fasync &&
	    c->state == EUSRV_SOR_ST_ESTABLISHED && !c->eof &&
	    !sor_data_arm_at_tail_locked(c))
		goto out;
	sor_conn_wake(c, SOR_WAKE_IN);
	/*
	 * O_ASYNC: every new byte signals, so the next DATA is asked now;
	 * what landed meanwhile signals too (the ring's room bounds this).
	 */
	while (c->fasync && sor_data_arm_at_tail_locked(c))
		sor_conn_wake(c, SOR_WAKE_IN);
out:
	spin_unlock_irqrestore(&c->lock, flags);
}

void sor_rx_fin(struct sor_conn *c, u32 pos)
{
	unsigned long flags;

	spin_lock_irqsave(&c->lock, flags);
	if (!sor_st_accepts(c->state, c->client, true, true, EUSRV_SOR_MSG_FIN) ||
	    c->fin_rcvd || !sor_data_sync_tail_locked(c) || pos != c->rcv_tail) {
		/* FIN follows the last SENT, so every byte has landed. */
		sor_bad("conn %u: FIN %u unexpected (state %u, tail %u)\n",
			c->id, pos, c->state, c->rcv_tail);
		goto out;
	}
	c->fin_rcvd = true;
	c->peer_fin = pos;
	c->eof = true;
	sor_conn_flags_locked(c);
	sor_conn_wake(c, SOR_WAKE_IN | EPOLLRDHUP);
out:
	spin_unlock_irqrestore(&c->lock, flags);
}

/*
 * SENT: our engine reached the end of the transfer that asked for it.  One
 * whose end was taken already (its store seen first, maybe the next ones'
 * too) is stale: at or behind the head.
 */
void sor_rx_sent(struct sor_conn *c, u32 head)
{
	unsigned long flags;
	bool done = false;

	spin_lock_irqsave(&c->lock, flags);
	if ((s32)(c->snd_head - head) >= 0) {
		/*
		 * Stale: its end was taken between the engine's store of it
		 * and its swap of the want word, which then took the word set
		 * for the transfer built since: set it again and look at that
		 * one's end.
		 */
		if (c->sent_wanted && sor_conn_want_sent_again_locked(c))
			done = sor_data_reap_locked(c);
		goto out;
	}
	if (!c->busy || head != c->snd_end) {
		sor_bad("conn %u: SENT %u unexpected (head %u, in flight to %u)\n",
			c->id, head, c->snd_head, c->snd_end);
		goto out;
	}
	sor_data_ended_locked(c, head);
	done = true;
out:
	spin_unlock_irqrestore(&c->lock, flags);
	if (done)
		sor_conn_put(c);	/* the transfer's reference */
}

/* The engine could not do a transfer; process context, at most once. */
static void sor_data_failed(void *ctx, int err)
{
	struct sor_conn *c = ctx;
	unsigned long flags;
	bool was;

	spin_lock_irqsave(&c->lock, flags);
	was = c->busy;
	if (was) {
		c->busy = false;
		c->sent_wanted = false;
		c->snd_end = c->snd_head;
		sor_count(SOR_S_XFER_ERRORS);
		pr_warn_ratelimited("conn %u: transfer to node %u failed: error %d\n",
				    c->id, c->peer_node, err);
		sor_conn_abort_locked(c, EIO, ECONNRESET);
		sor_data_after_sent_locked(c);
	}
	spin_unlock_irqrestore(&c->lock, flags);
	if (was)
		sor_conn_put(c);
}

/* The extents of N bytes from the send head, each within the engine's limit. */
static u32 sor_data_extents(struct sor_conn *c, u32 n, struct eusrv_cdma_xfer *x)
{
	u64 self = (u64)sor_node(), snd = sor_conn_ring_phys(c->snd_data);
	u64 dst = c->peer_hdr_ga + SOR_RCV_DATA_OFF;
	struct sor_extent ext[2];
	unsigned int i;
	u32 total = 0;

	x->nr_ext = sor_ring_split(c->snd_head, n, c->snd_size, ext);
	for (i = 0; i < x->nr_ext; i++) {
		if (ext[i].len > EUSRV_CDMA_MAX_LEN) {
			ext[i].len = EUSRV_CDMA_MAX_LEN;
			x->nr_ext = i + 1;
		}
	}
	for (i = 0; i < x->nr_ext; i++) {
		x->ext[i].src = EUSRV_GA(self, snd + ext[i].off);
		x->ext[i].dst = dst + ext[i].off;
		x->ext[i].len = ext[i].len;
		total += ext[i].len;
	}
	return total;
}

/*
 * Whether the end of the transfer to END must interrupt us (SENT): more is
 * queued than it takes, its end is what a closing waits for, or the writer
 * has less than a quarter of its ring free until the end frees it (its
 * head moves only then).  Else the end is taken when someone looks (PUSH,
 * WAIT, poll, the keepalive's round), at no cost.  c->lock held.
 */
static bool sor_data_sent_needed_locked(struct sor_conn *c, u32 end, u32 tail)
{
	return tail != end || c->state != EUSRV_SOR_ST_ESTABLISHED ||
	       c->shut_wr || c->released || c->nack_pending || c->reply_owed ||
	       sor_ring_room(c->snd_head, tail, c->snd_size) < c->snd_size / 4;
}

/* Global address of a word of our own kernel memory, for our engine. */
static u64 sor_data_own_ga(const void *p)
{
	return EUSRV_GA((u64)sor_node(), sor_conn_ring_phys((void *)p));
}

/*
 * Build and submit the reserved transfer (work item or the writer); first
 * take the one before as ended if it has (the work item's other job).
 */
void sor_data_xfer(struct sor_conn *c)
{
	struct eusrv_cdma_xfer x = { .failed = sor_data_failed, .ctx = c };
	unsigned long flags;
	u32 n, tail;
	bool want;
	int ret;

	sor_data_reap(c);
	spin_lock_irqsave(&c->lock, flags);
	if (!c->busy || c->snd_end != c->snd_head) {
		spin_unlock_irqrestore(&c->lock, flags);
		return;		/* nothing reserved, or submitted already */
	}
	n = 0;
	if (sor_st_open(c->state) && sor_data_check_tail_locked(c, &tail))
		n = sor_ring_xfer_len(c->snd_head, tail, c->peer_head,
				      c->snd_size, 2 * EUSRV_CDMA_MAX_LEN);
	n = n ? sor_data_extents(c, n, &x) : 0;
	if (!n) {
		/* The state changed under us: give the reservation back. */
		c->busy = false;
		sor_data_after_sent_locked(c);
		spin_unlock_irqrestore(&c->lock, flags);
		sor_conn_put(c);
		return;
	}
	c->snd_end = c->snd_head + n;
	want = sor_data_sent_needed_locked(c, c->snd_end, tail);
	if (!want) {
		/* Nobody will look by itself: the writer pushes what it adds. */
		WRITE_ONCE(c->snd_hdr->need_push, 1);
		/*
		 * Pairs with the writer's barrier between its tail store and
		 * its load of need_push: what it added before, the end takes.
		 */
		smp_mb();
		want = !c->shut_wr && READ_ONCE(c->snd_hdr->tail) != c->snd_end;
	}
	if (want)
		WRITE_ONCE(c->snd_hdr->need_push, 0);
	c->sent_wanted = want;
	WRITE_ONCE(*c->snd_want, want);
	/*
	 * The tail, first where the peer's kernel trusts it, then for its
	 * reader; DATA if the peer's reader set its arm word; the end in our
	 * own kernel page (the mark); SENT if we asked for it.  The end comes
	 * after everything that touches the peer's memory, so a transfer
	 * seen ended writes nothing there any more; and before our want
	 * word is swapped, so that one of the two sees the other.
	 */
	x.nr_put = 2;
	x.put[0].dst = c->peer_hdr_ga + SOR_RCV_KTAIL_OFF;
	x.put[0].val = c->snd_end;
	x.put[1].dst = c->peer_hdr_ga + offsetof(struct eusrv_sor_ring_hdr, tail);
	x.put[1].val = c->snd_end;
	x.has_mark = true;
	x.mark.dst = sor_data_own_ga(c->snd_ksent);
	x.mark.val = c->snd_end;
	x.nr_msg = 2;
	x.msg[0].node = c->peer_node;
	x.msg[0].msg = eusrv_sor_msg_pos(EUSRV_SOR_MSG_DATA, c->peer_id, c->id,
					 c->snd_end);
	x.msg[0].cond = c->peer_hdr_ga + SOR_RCV_ARM_OFF;
	x.msg[1].node = (unsigned int)sor_node();
	x.msg[1].msg = eusrv_sor_msg_pos(EUSRV_SOR_MSG_SENT, c->id, c->id,
					 c->snd_end);
	x.msg[1].cond = sor_data_own_ga(c->snd_want);
	c->transfers++;
	spin_unlock_irqrestore(&c->lock, flags);

	sor_count(SOR_S_TRANSFERS);
	ret = eusrv_cdma_submit(&x, msecs_to_jiffies(SOR_SUBMIT_TIMEOUT_MS));
	if (ret) {
		sor_data_failed(c, ret);
		return;
	}
	/* One doorbell (the engine's TAILDESC) for the data and its messages. */
	sor_xcount(c, SOR_X_DOORBELLS);
}

/* The work item's part: FIN once every byte is confirmed. */
void sor_data_fin(struct sor_conn *c)
{
	unsigned long flags;
	u64 msg = 0;
	int ret;

	spin_lock_irqsave(&c->lock, flags);
	if (c->shut_wr && !c->fin_sent && !c->busy && c->snd_head == c->fin_pos &&
	    c->state == EUSRV_SOR_ST_ESTABLISHED) {
		c->fin_sent = true;
		msg = eusrv_sor_msg_pos(EUSRV_SOR_MSG_FIN, c->peer_id, c->id,
					c->fin_pos);
	}
	spin_unlock_irqrestore(&c->lock, flags);
	if (!msg)
		return;
	/* Every byte has its SENT, so it has landed: FIN comes after. */
	ret = sor_conn_send(c, msg, SOR_SEND_TIMEOUT_MS);
	if (ret) {
		spin_lock_irqsave(&c->lock, flags);
		sor_conn_abort_locked(c, EIO, ECONNRESET);
		spin_unlock_irqrestore(&c->lock, flags);
	}
}

/* Work item: the CREDIT the mailbox had no room for, waiting for room. */
void sor_data_notify(struct sor_conn *c)
{
	unsigned long flags;
	u64 msg = 0;

	spin_lock_irqsave(&c->lock, flags);
	if (sor_st_open(c->state) && c->owe_credit)
		msg = eusrv_sor_msg_pos(EUSRV_SOR_MSG_CREDIT, c->peer_id, c->id,
					c->rcv_reported);
	c->owe_credit = false;
	spin_unlock_irqrestore(&c->lock, flags);
	if (msg && sor_conn_send(c, msg, SOR_SEND_TIMEOUT_MS)) {
		spin_lock_irqsave(&c->lock, flags);
		sor_conn_abort_locked(c, EIO, ECONNRESET);
		spin_unlock_irqrestore(&c->lock, flags);
	}
}

/*
 * Give the writer credit if it could run short (or, with FORCE, whenever
 * the head moved).  Returns 0, or the error that failed the connection.
 */
int sor_data_credit(struct sor_conn *c, bool force)
{
	unsigned long flags;
	int ret = 0;
	u32 head;

	spin_lock_irqsave(&c->lock, flags);
	if (c->state != EUSRV_SOR_ST_ESTABLISHED || c->eof) {
		ret = c->state == EUSRV_SOR_ST_RESET ? -EPIPE : 0;
		goto out;
	}
	if (!sor_data_check_head_locked(c, &head)) {
		ret = -EINVAL;
		goto out;
	}
	if (head == c->rcv_reported ||
	    (!force && !eusrv_sor_credit_due(head, c->rcv_tail, c->rcv_reported,
					     c->rcv_size)))
		goto out;
	c->rcv_reported = head;
	WRITE_ONCE(c->rcv_hdr->reported, head);
	sor_count(SOR_S_CREDITS_SENT);
	sor_data_send_locked(c, eusrv_sor_msg_pos(EUSRV_SOR_MSG_CREDIT,
						  c->peer_id, c->id, head),
			     &c->owe_credit);
out:
	spin_unlock_irqrestore(&c->lock, flags);
	return ret;
}

/*
 * Set the arm word the peer's engine swaps after its next transfer (DATA
 * then wakes us), no message.  False if the connection reads no more.
 */
static bool sor_data_arm_set_locked(struct sor_conn *c)
{
	lockdep_assert_held(&c->lock);
	if (c->state != EUSRV_SOR_ST_ESTABLISHED || c->eof || c->shut_rd ||
	    !c->rcv_arm)
		return false;
	/* A full barrier: pairs with the engine's swap after its tail stores. */
	if (!xchg(c->rcv_arm, 1)) {
		sor_count(SOR_S_ARMS_SENT);
		sor_xcount(c, SOR_X_ARMS);
	}
	return true;
}

/*
 * Ask to be woken (DATA) by the peer's next transfer: set the arm word its
 * engine swaps, no message.  Then look at the tail again: data that landed
 * before the engine could see the word is there now.  Returns whether the
 * tail moved; if it did, the word is taken back (should the engine have
 * taken it meanwhile, one DATA wakes nobody).  c->lock held.
 */
bool sor_data_arm_at_tail_locked(struct sor_conn *c)
{
	u32 tail = c->rcv_tail;

	if (!sor_data_arm_set_locked(c) || !sor_data_sync_tail_locked(c) ||
	    c->rcv_tail == tail)
		return false;
	xchg(c->rcv_arm, 0);
	return true;
}

/*
 * Before sleeping for input: ask to be woken by the next data, with
 * UNREAD_TOO even while unread data is there.  Returns 0, or the error
 * that failed the connection.
 */
int sor_data_arm(struct sor_conn *c, bool unread_too)
{
	unsigned long flags;
	int ret = 0;
	u32 head;

	spin_lock_irqsave(&c->lock, flags);
	if (c->state != EUSRV_SOR_ST_ESTABLISHED || c->eof || c->shut_rd)
		goto out;
	if (!sor_data_check_head_locked(c, &head)) {
		ret = -EINVAL;
		goto out;
	}
	/*
	 * An edge-triggered poller reports what is there and then sleeps
	 * without looking again, its reader draining the ring in between:
	 * the word stays set whatever lands meanwhile (taken back, data that
	 * landed unseen by the engine would leave nobody to wake it).
	 */
	if (unread_too)
		sor_data_arm_set_locked(c);
	else if (head == c->rcv_tail)
		sor_data_arm_at_tail_locked(c);
out:
	spin_unlock_irqrestore(&c->lock, flags);
	return ret;
}

/*
 * Someone waits for room or for our transfer's end: take it if it has
 * ended, else make sure its end interrupts (SENT).  Process context.
 */
void sor_data_want_sent(struct sor_conn *c)
{
	unsigned long flags;
	bool done = false;

	spin_lock_irqsave(&c->lock, flags);
	if (sor_conn_want_sent_locked(c))
		done = sor_data_reap_locked(c);
	spin_unlock_irqrestore(&c->lock, flags);
	if (done)
		sor_conn_put(c);	/* the transfer's reference */
}

/*
 * PUSH: the send tail moved while need_push was set.  The transfer before
 * may have ended unnoticed: taken first; if it goes on, its end will start
 * the next one (SENT asked for).
 */
int sor_data_push(struct sor_conn *c)
{
	unsigned long flags;
	bool go = false, done = false;
	int ret = 0;
	u32 tail;

	spin_lock_irqsave(&c->lock, flags);
	if (sor_st_open(c->state)) {
		/* What gets reserved meanwhile, this call submits. */
		c->pushing = true;
		done = sor_data_reap_locked(c);
		if (!sor_data_check_tail_locked(c, &tail))
			ret = -EINVAL;
		else if (sor_conn_want_sent_locked(c))
			done = sor_data_reap_locked(c);
		if (!ret)
			sor_data_idle_locked(c);
		c->pushing = false;
		go = c->busy && c->snd_end == c->snd_head;
		if (c->busy && c->sent_wanted)
			WRITE_ONCE(c->snd_hdr->need_push, 0);
	} else if (c->state == EUSRV_SOR_ST_RESET) {
		ret = -(c->so_error ? c->so_error : ECONNRESET);
	} else if (c->state == EUSRV_SOR_ST_PEER_CLOSED) {
		ret = -EPIPE;
	}
	spin_unlock_irqrestore(&c->lock, flags);
	if (done)
		sor_conn_put(c);	/* the ended transfer's reference */
	/* The writer's own context submits: no work item hop on this path. */
	if (go)
		sor_data_xfer(c);
	return ret;
}
