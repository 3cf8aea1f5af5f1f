// SPDX-License-Identifier: GPL-2.0
/*
 * eusrv_sor server side of set-up (docs/protocol.md section 3): a
 * ConnRQ is served in the interrupt that brought it where it can be
 * (sor_serve_now), else by a worker from where the interrupt left it:
 * the listener's registration, the connection with its rings, and ACCEPT
 * and ADDR back to the client with one doorbell.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <net/net_namespace.h>
#include <net/sock.h>

#include <eusrv/mbox.h>

#include "sor_keepalive.h"
#include "sor_listen.h"
#include "sor_nack.h"
#include "sor_serve.h"

/* Fault injection (sor_debugfs.c): a slow server, ms each ConnRQ waits. */
u32 sor_serve_delay_ms;
/* ... a hostile server: the frame its ADDR names (0: its own rings). */
u64 sor_forge_addr;

static struct workqueue_struct *sor_serve_wq;

/*
 * A ConnRQ being served: in the interrupt that brought it where it can be
 * served there (sor_serve_now), else by the workqueue from where the
 * interrupt left it (sor_serve_work).
 */
struct sor_request {
	struct work_struct work;
	unsigned int node;
	unsigned int client_id;
	struct eusrv_sor_connrq rq;
	/* What the listener gave (sor_listen_match); l.sk set: found. */
	struct sor_listen_match l;
	/* Once made (sor_serve_make): the connection and its replies. */
	struct sor_conn *c;		/* referenced */
	u64 rpl[2];			/* ACCEPT, ADDR */
	unsigned int sent;		/* of rpl, queued */
};

/*
 * ConnRQs being served, at most, each in a slot of its own taken in the
 * interrupt: a peer cannot make us hold more.
 */
#define SOR_MAX_REQUESTS	128
static struct sor_request sor_req_slot[SOR_MAX_REQUESTS];
static DECLARE_BITMAP(sor_req_used, SOR_MAX_REQUESTS);

/* A free request slot, zeroed, or NULL (any context). */
static struct sor_request *sor_request_get(void)
{
	unsigned int i;

	do {
		i = find_first_zero_bit(sor_req_used, SOR_MAX_REQUESTS);
		if (i >= SOR_MAX_REQUESTS)
			return NULL;
	} while (test_and_set_bit_lock(i, sor_req_used));
	memset(&sor_req_slot[i], 0, sizeof(sor_req_slot[i]));
	return &sor_req_slot[i];
}

static void sor_request_put(struct sor_request *r)
{
	clear_bit_unlock(r - sor_req_slot, sor_req_used);
}

static void sor_refuse(unsigned int node, unsigned int client_id, int reason)
{
	sor_count(SOR_S_REFUSED);
	sor_nack_send_raw(node, client_id, EUSRV_SOR_NACK_REQUEST, reason,
			  EUSRV_SOR_NO_ID);
}

/*
 * The ring shifts of R's connection, client to server (CS) and back (SC):
 * each the larger of the two sides' wishes, but never above the larger of
 * the listener's own, so that a client cannot choose how much of the
 * listener's user's locked memory its rings take.
 */
static void sor_serve_shifts(const struct sor_request *r, unsigned int *cs,
			     unsigned int *sc)
{
	unsigned int own_snd = sor_shift_or_default(r->l.snd_shift);
	unsigned int own_rcv = sor_shift_or_default(r->l.rcv_shift);
	unsigned int cap = max(own_snd, own_rcv);

	*cs = min(max(sor_shift_or_default(r->rq.snd_shift), own_rcv), cap);
	*sc = min(max(sor_shift_or_default(r->rq.rcv_shift), own_snd), cap);
}

/*
 * R's connection, charged, with its rings and in the table, allocated
 * with GFP; 0, or -EDQUOT or -ENOMEM, the client's refusal (nothing of
 * the connection left).
 */
static int sor_serve_make(struct sor_request *r, gfp_t gfp)
{
	unsigned int cs, sc;
	unsigned long flags;
	struct sor_conn *c;
	int ret;

	c = sor_conn_new(r->node, false, gfp);
	if (IS_ERR(c))
		return -ENOMEM;
	c->peer_id = r->client_id;
	/* The listener's user's until ACCEPT. */
	c->uid = r->l.owner.user->uid;
	c->lport = r->rq.dport;
	c->rport = r->rq.sport;
	sor_serve_shifts(r, &cs, &sc);
	c->snd_shift = sc;
	c->rcv_shift = cs;
	/* Charged, with its rings, before any message can reach it. */
	ret = sor_charge(&c->charge, &r->l.owner,
			 sor_charge_pages(1U << sc, 1U << cs), gfp);
	if (ret) {
		sor_conn_put(c);
		return ret == -EDQUOT ? ret : -ENOMEM;
	}
	if (sor_conn_alloc_rings(c, 1U << sc, 1U << cs, gfp)) {
		sor_conn_put(c);
		return -ENOMEM;
	}
	/* Held until the dummy goes: it connects only to this listener. */
	c->dummy.net = get_net(r->l.net);
	c->dummy.listen_sk = r->l.sk;
	r->l.sk = NULL;
	c->dummy.addr = r->l.addr;
	if (sor_conn_publish(c)) {
		/* Never in the table, so never unlinked: R holds them again. */
		r->l.sk = c->dummy.listen_sk;
		c->dummy.listen_sk = NULL;
		put_net(c->dummy.net);
		c->dummy.net = NULL;
		sor_conn_put(c);
		return -ENOMEM;
	}
	sor_ka_heard(r->node);	/* keepalives start from now */
	/* ACCEPT and ADDR with one doorbell. */
	r->rpl[0] = eusrv_sor_msg_accept(c->peer_id, c->id, cs, sc);
	r->rpl[1] = eusrv_sor_msg_addr(c->peer_id, c->id,
				       READ_ONCE(sor_forge_addr) ?:
				       sor_conn_ring_phys(c->rcv_blk));
	/*
	 * From ACCEPT on, the client may learn our block (and a forged ADDR
	 * be taken for its own): held until it confirms the end.
	 */
	spin_lock_irqsave(&c->lock, flags);
	c->peer_may_write = true;
	spin_unlock_irqrestore(&c->lock, flags);
	r->c = c;
	return 0;
}

/*
 * R's replies have all gone (RET 0), or could not: the connection waits
 * for the client's ADDR, or goes.  Any context.
 */
static void sor_serve_replied(struct sor_request *r, int ret)
{
	struct sor_conn *c = r->c;
	unsigned long flags;

	spin_lock_irqsave(&c->lock, flags);
	if (ret) {
		pr_debug_ratelimited("conn %u: set-up for node %u port %u failed: error %d\n",
				     c->id, r->node, c->lport, ret);
		sor_count(SOR_S_REFUSED);
		c->released = true;
		sor_conn_abort_locked(c, ECONNABORTED, ECONNABORTED);
	} else if (c->state == EUSRV_SOR_ST_ACCEPTING) {
		sor_conn_arm_locked(c, SOR_SETUP_TIMEOUT_MS);
	}
	spin_unlock_irqrestore(&c->lock, flags);
	sor_conn_put(c);	/* ours; the table keeps it */
	r->c = NULL;
}

/* R is done with: what it held goes, and its slot.  Any context. */
static void sor_request_end(struct sor_request *r)
{
	sor_listen_match_put(&r->l);
	sor_request_put(r);
}

/* Work item: serve R from where the interrupt left it. */
static void sor_serve_work(struct work_struct *w)
{
	struct sor_request *r = container_of(w, struct sor_request, work);
	int ret;

	if (READ_ONCE(sor_serve_delay_ms))
		msleep(min(READ_ONCE(sor_serve_delay_ms), SOR_MAX_TIMEOUT_MS));
	if (!r->c && !r->l.sk && !sor_listen_match(r->rq.dport, &r->l)) {
		sor_refuse(r->node, r->client_id, ECONNREFUSED);
		goto end;
	}
	if (!r->c) {
		ret = sor_serve_make(r, GFP_KERNEL_ACCOUNT);
		if (ret) {
			sor_refuse(r->node, r->client_id, -ret);
			goto end;
		}
	}
	ret = sor_send_wait_many(r->node, r->rpl + r->sent,
				 ARRAY_SIZE(r->rpl) - r->sent,
				 SOR_SETUP_SEND_TIMEOUT_MS);
	sor_serve_replied(r, ret);
end:
	sor_request_end(r);
}

/*
 * Serve R in the interrupt that brought it, as far as that can go without
 * sleeping: a client's connect() waits on the answer, and a worker waits
 * for the node's CPU behind whatever runs there.  True if R is done with;
 * false if the workqueue must go on (no ready rings, a full outbound
 * queue, a fault injected).
 */
static bool sor_serve_now(struct sor_request *r)
{
	int n;

	if (READ_ONCE(sor_serve_delay_ms))
		return false;
	if (!sor_listen_match(r->rq.dport, &r->l)) {
		sor_refuse(r->node, r->client_id, ECONNREFUSED);
		sor_request_end(r);
		return true;
	}
	if (sor_serve_make(r, GFP_ATOMIC | __GFP_NOWARN))
		return false;
	n = sor_send_many(r->node, r->rpl, ARRAY_SIZE(r->rpl));
	if (n < (int)ARRAY_SIZE(r->rpl)) {
		r->sent = max(n, 0);
		return false;
	}
	sor_serve_replied(r, 0);
	sor_request_end(r);
	return true;
}

/*
 * ConnRQ from node SRC for client connection CLIENT_ID (hard IRQ):
 * checked, then served (sor_serve_now, sor_serve_work).
 */
void sor_rx_connrq(unsigned int src, unsigned int client_id, u64 msg)
{
	struct eusrv_sor_connrq rq;
	struct sor_request *r;

	eusrv_sor_connrq_decode(msg, &rq);
	if (client_id >= EUSRV_SOR_NO_ID || !rq.dport || !rq.sport ||
	    (eusrv_msg_payload(msg) & GENMASK_ULL(5, 0)) ||
	    !sor_shift_valid(rq.snd_shift) || !sor_shift_valid(rq.rcv_shift)) {
		sor_bad("malformed ConnRQ %#llx from node %u\n", msg, src);
		return;
	}
	r = sor_request_get();
	if (!r) {
		sor_refuse(src, client_id, ENOBUFS);
		return;
	}
	r->node = src;
	r->client_id = client_id;
	r->rq = rq;
	if (sor_serve_now(r))
		return;
	INIT_WORK(&r->work, sor_serve_work);
	queue_work(sor_serve_wq, &r->work);
}

int sor_serve_init(void)
{
	/*
	 * ConnRQ is served at once: a client's connect() waits on it, and a
	 * worker of normal priority waited behind whatever ran on the node.
	 */
	sor_serve_wq = alloc_workqueue("eusrv_sor_setup", WQ_UNBOUND | WQ_HIGHPRI, 0);
	return sor_serve_wq ? 0 : -ENOMEM;
}

void sor_serve_exit(void)
{
	/* No ConnRQ comes any more (sor_rx_exit); those in flight finish. */
	destroy_workqueue(sor_serve_wq);
}
