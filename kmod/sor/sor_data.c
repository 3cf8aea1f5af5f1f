// SPDX-License-Identifier: GPL-2.0
/*
 * eusrv_sor data path (docs/protocol.md section 4): read requests, the
 * CDMA transfer of one or two extents followed by the engine's DATA
 * (remote) and SENT (local) notifications, FIN.
 *
 * Barriers: user space moves the send tail, issues a full barrier and
 * reads want; the driver sets want, issues a full barrier and reads the
 * tail again (sor_data_want_locked).  One of the two sees the other's
 * store, so a read request never waits for data that is already there.
 * Kernel-written positions are published with release stores after the
 * data they cover (the engine wrote the data before it wrote DATA or
 * SENT, and the mailbox handler runs after both).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/jiffies.h>
#include <linux/printk.h>
#include <linux/sched.h>

#include <eusrv/board_hw.h>
#include <eusrv/cdma.h>
#include <eusrv/mbox.h>

#include "sor_internal.h"

/* How long a submitter waits for the engine's queue. */
#define SOR_SUBMIT_TIMEOUT_MS	1000U
#define SOR_SEND_TIMEOUT_MS	1000U

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

/* The receive head user space wrote, checked likewise. */
bool sor_data_check_head_locked(struct sor_conn *c, u32 *head)
{
	u32 h = READ_ONCE(c->rcv_hdr->head);

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

/*
 * If the peer waits and there is data, reserve the engine for this
 * connection (busy, one transfer at a time); the caller then submits it
 * with sor_data_xfer() in process context.  True if reserved.
 */
bool sor_data_reserve_locked(struct sor_conn *c)
{
	u32 tail;

	if (c->busy || !c->peer_want || !sor_st_open(c->state))
		return false;
	if (!sor_data_check_tail_locked(c, &tail))
		return false;
	if (tail == c->snd_head)
		return false;
	c->busy = true;
	c->peer_want = false;
	WRITE_ONCE(c->snd_hdr->want, 0);
	kref_get(&c->ref);	/* the transfer's, until SENT or failure */
	return true;
}

/* Reserve as above from any context; the work item submits.  */
bool sor_data_try_xfer_locked(struct sor_conn *c)
{
	if (!sor_data_reserve_locked(c))
		return false;
	sor_conn_kick_locked(c, SOR_DO_XFER);
	return true;
}

/* The peer waits and we have nothing: say so, then look once more. */
int sor_data_want_locked(struct sor_conn *c)
{
	WRITE_ONCE(c->snd_hdr->want, 1);
	/* Pairs with user space's barrier between its tail store and want load. */
	smp_mb();
	return sor_data_try_xfer_locked(c);
}

/* A transfer ended (SENT or failure): what may follow.  c->lock held. */
void sor_data_after_sent_locked(struct sor_conn *c)
{
	u32 tail;

	if (c->peer_want && !sor_data_try_xfer_locked(c) && sor_st_open(c->state))
		sor_data_want_locked(c);
	if (c->shut_wr && !c->fin_sent && c->snd_head == c->fin_pos &&
	    c->state == EUSRV_SOR_ST_ESTABLISHED)
		sor_conn_kick_locked(c, SOR_DO_FIN);
	if (c->state == EUSRV_SOR_ST_CLOSING) {
		c->progress = jiffies;
		if (!c->busy && sor_data_check_tail_locked(c, &tail) &&
		    tail == c->snd_head)
			sor_nack_start_locked(c, 0);
	}
	if (c->reply_owed && !c->busy)
		sor_conn_kick_locked(c, SOR_DO_REPLY);
	/* Our NACK request waited for this transfer to end. */
	if (c->nack_pending && !c->nack_tries && !c->busy)
		sor_conn_kick_locked(c, SOR_DO_NACK);
	if (c->released)
		sor_conn_kick_locked(c, SOR_DO_RETIRE);
}

void sor_rx_rdreq(struct sor_conn *c, u32 head)
{
	unsigned long flags;

	spin_lock_irqsave(&c->lock, flags);
	if (!sor_st_accepts(c->state, c->client, true, true, EUSRV_SOR_MSG_RDREQ) ||
	    c->peer_want ||
	    !sor_ring_peer_pos_ok(c->peer_head, head, c->snd_end)) {
		sor_bad("conn %u: read request %u unexpected (state %u, peer head %u, sent %u)\n",
			c->id, head, c->state, c->peer_head, c->snd_end);
		goto out;
	}
	sor_count(SOR_S_RDREQ_RCVD);
	c->peer_head = head;
	c->peer_want = true;
	/* A transfer in flight: its SENT looks again. */
	if (!c->busy && !sor_data_try_xfer_locked(c) && sor_st_open(c->state))
		sor_data_want_locked(c);
out:
	spin_unlock_irqrestore(&c->lock, flags);
}

void sor_rx_data(struct sor_conn *c, u32 tail)
{
	unsigned long flags;

	spin_lock_irqsave(&c->lock, flags);
	if (!sor_st_accepts(c->state, c->client, true, true, EUSRV_SOR_MSG_DATA) ||
	    !c->rd_pending || c->fin_rcvd ||
	    !sor_ring_new_tail_ok(c->rcv_tail, tail, c->rcv_req, c->rcv_size)) {
		sor_bad("conn %u: DATA %u unexpected (state %u, tail %u, asked at %u)\n",
			c->id, tail, c->state, c->rcv_tail, c->rcv_req);
		goto out;
	}
	c->bytes_rcvd += tail - c->rcv_tail;
	sor_count_add(SOR_S_BYTES_RCVD, tail - c->rcv_tail);
	c->rcv_tail = tail;
	c->rd_pending = false;
	WRITE_ONCE(c->rcv_hdr->want, 0);
	/* The engine wrote the data before DATA: publish after it. */
	smp_store_release(&c->rcv_hdr->tail, tail);
	wake_up_all(&c->wq);
out:
	spin_unlock_irqrestore(&c->lock, flags);
}

void sor_rx_fin(struct sor_conn *c, u32 pos)
{
	unsigned long flags;

	spin_lock_irqsave(&c->lock, flags);
	if (!sor_st_accepts(c->state, c->client, true, true, EUSRV_SOR_MSG_FIN) ||
	    c->fin_rcvd || !sor_ring_within(c->rcv_tail, pos, c->rcv_tail)) {
		/* FIN follows the last SENT, so nothing is still on its way. */
		sor_bad("conn %u: FIN %u unexpected (state %u, tail %u)\n",
			c->id, pos, c->state, c->rcv_tail);
		goto out;
	}
	c->fin_rcvd = true;
	c->peer_fin = pos;
	c->eof = true;
	c->rd_pending = false;
	WRITE_ONCE(c->rcv_hdr->want, 0);
	sor_conn_flags_locked(c);
	wake_up_all(&c->wq);
out:
	spin_unlock_irqrestore(&c->lock, flags);
}

void sor_rx_sent(struct sor_conn *c, u32 head)
{
	unsigned long flags;
	bool done = false;
	u32 n;

	spin_lock_irqsave(&c->lock, flags);
	if (!c->busy || head != c->snd_end || head == c->snd_head) {
		sor_bad("conn %u: SENT %u unexpected (head %u, in flight to %u)\n",
			c->id, head, c->snd_head, c->snd_end);
		goto out;
	}
	n = head - c->snd_head;
	c->bytes_sent += n;
	sor_count_add(SOR_S_BYTES_SENT, n);
	c->snd_head = head;
	c->busy = false;
	done = true;
	/* Pairs with the writer's acquire load of head: the room is free. */
	smp_store_release(&c->snd_hdr->head, head);
	wake_up_all(&c->wq);
	sor_data_after_sent_locked(c);
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

/* Build and submit the reserved transfer (work item or the writer). */
void sor_data_xfer(struct sor_conn *c)
{
	struct eusrv_cdma_xfer x = { .failed = sor_data_failed, .ctx = c };
	u64 self = (u64)sor_node(), snd = sor_conn_ring_phys(c->snd_data);
	struct sor_extent ext[2];
	unsigned long flags;
	unsigned int i;
	u32 n, tail;
	int ret;

	spin_lock_irqsave(&c->lock, flags);
	if (!c->busy || c->snd_end != c->snd_head) {
		spin_unlock_irqrestore(&c->lock, flags);
		return;		/* nothing reserved, or submitted already */
	}
	n = 0;
	if (sor_st_open(c->state) && sor_data_check_tail_locked(c, &tail))
		n = sor_ring_xfer_len(c->snd_head, tail, c->peer_head,
				      c->snd_size, 2 * EUSRV_CDMA_MAX_LEN);
	x.nr_ext = sor_ring_split(c->snd_head, n, c->snd_size, ext);
	/* Each extent fits the engine's length field. */
	for (i = 0; i < x.nr_ext; i++) {
		if (ext[i].len > EUSRV_CDMA_MAX_LEN) {
			ext[i].len = EUSRV_CDMA_MAX_LEN;
			x.nr_ext = i + 1;
		}
	}
	for (n = 0, i = 0; i < x.nr_ext; i++) {
		x.ext[i].src = EUSRV_GA(self, snd + ext[i].off);
		x.ext[i].dst = c->peer_rcv_ga + ext[i].off;
		x.ext[i].len = ext[i].len;
		n += ext[i].len;
	}
	if (!n) {
		/* The state changed under us: give the reservation back. */
		c->busy = false;
		if (c->state == EUSRV_SOR_ST_ESTABLISHED)
			c->peer_want = true;
		sor_data_after_sent_locked(c);
		spin_unlock_irqrestore(&c->lock, flags);
		sor_conn_put(c);
		return;
	}
	c->snd_end = c->snd_head + n;
	x.nr_msg = 2;
	x.msg[0].node = c->peer_node;
	x.msg[0].msg = eusrv_sor_msg_pos(EUSRV_SOR_MSG_DATA, c->peer_id, c->snd_end);
	x.msg[1].node = (unsigned int)self;
	x.msg[1].msg = eusrv_sor_msg_pos(EUSRV_SOR_MSG_SENT, c->id, c->snd_end);
	c->transfers++;
	spin_unlock_irqrestore(&c->lock, flags);

	sor_count(SOR_S_TRANSFERS);
	ret = eusrv_cdma_submit(&x, msecs_to_jiffies(SOR_SUBMIT_TIMEOUT_MS));
	if (ret)
		sor_data_failed(c, ret);
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
		msg = eusrv_sor_msg_pos(EUSRV_SOR_MSG_FIN, c->peer_id, c->fin_pos);
	}
	spin_unlock_irqrestore(&c->lock, flags);
	if (!msg)
		return;
	/* Every byte has its SENT, so DATA is delivered: FIN comes after. */
	ret = eusrv_mbox_send_wait(c->peer_node, msg,
				   msecs_to_jiffies(SOR_SEND_TIMEOUT_MS));
	if (ret) {
		spin_lock_irqsave(&c->lock, flags);
		sor_conn_abort_locked(c, EIO, ECONNRESET);
		spin_unlock_irqrestore(&c->lock, flags);
	}
}

/*
 * Make sure a read request is pending if the receive ring is empty
 * (process context).  Returns 0, or the error that failed the connection.
 */
static int sor_data_ask(struct sor_conn *c, bool wait)
{
	unsigned long flags;
	u64 msg = 0;
	u32 head;
	int ret;

	spin_lock_irqsave(&c->lock, flags);
	if (c->state == EUSRV_SOR_ST_ESTABLISHED && !c->rd_pending &&
	    !c->eof && !c->shut_rd && sor_data_check_head_locked(c, &head) &&
	    head == c->rcv_tail) {
		c->rd_pending = true;
		c->rcv_req = head;
		WRITE_ONCE(c->rcv_hdr->want, 1);
		msg = eusrv_sor_msg_pos(EUSRV_SOR_MSG_RDREQ, c->peer_id, head);
	}
	spin_unlock_irqrestore(&c->lock, flags);
	if (!msg)
		return 0;
	ret = eusrv_mbox_send(c->peer_node, msg);
	if (ret == -EAGAIN && wait)
		ret = eusrv_mbox_send_wait(c->peer_node, msg,
					   msecs_to_jiffies(SOR_SEND_TIMEOUT_MS));
	if (ret == -EAGAIN) {
		/* Let the work item wait for queue space. */
		spin_lock_irqsave(&c->lock, flags);
		c->rd_pending = false;
		sor_conn_kick_locked(c, SOR_DO_RDREQ);
		spin_unlock_irqrestore(&c->lock, flags);
		return 0;
	}
	if (ret) {
		spin_lock_irqsave(&c->lock, flags);
		sor_conn_abort_locked(c, EIO, ECONNRESET);
		spin_unlock_irqrestore(&c->lock, flags);
		return -EIO;
	}
	sor_count(SOR_S_RDREQ_SENT);
	return 0;
}

/* From the work item: a read request that found the queue full. */
void sor_data_rdreq(struct sor_conn *c)
{
	sor_data_ask(c, true);
}

/* From WAIT, poll, read: the caller may not sleep long (poll). */
int sor_data_request(struct sor_conn *c)
{
	return sor_data_ask(c, false);
}

/* PUSH: the send tail moved while want was set. */
int sor_data_push(struct sor_conn *c)
{
	unsigned long flags;
	bool go = false;
	int ret = 0;
	u32 tail;

	spin_lock_irqsave(&c->lock, flags);
	if (sor_st_open(c->state)) {
		if (!sor_data_check_tail_locked(c, &tail))
			ret = -EINVAL;
		else
			go = sor_data_reserve_locked(c);
	} else if (c->state == EUSRV_SOR_ST_RESET) {
		ret = -(c->so_error ? c->so_error : ECONNRESET);
	} else if (c->state == EUSRV_SOR_ST_PEER_CLOSED) {
		ret = -EPIPE;
	}
	spin_unlock_irqrestore(&c->lock, flags);
	/* The writer's own context submits: no work item hop on this path. */
	if (go)
		sor_data_xfer(c);
	return ret;
}
