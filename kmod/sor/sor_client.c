// SPDX-License-Identifier: GPL-2.0
/*
 * eusrv_sor client side of set-up (docs/protocol.md section 3), the
 * steps a blocking CONNECT (sor_connect.c) and a background one
 * (sor_fallback.c) share: rings charged to the caller, ConnRQ out,
 * ESTABLISHED once the server's ADDR is in, our own ADDR back, and
 * giving the set-up up.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <eusrv/mbox.h>

#include "sor_client.h"
#include "sor_data.h"
#include "sor_keepalive.h"
#include "sor_setup.h"

/* C's set-up is given up with ERR: the error to report (c->lock held). */
int sor_client_give_up_locked(struct sor_conn *c, int err)
{
	sor_count(SOR_S_CONNECT_FAILED);
	if (c->state != EUSRV_SOR_ST_CONNECTING) {
		/* The peer ended it (NACK) or the node went away. */
		err = c->so_error ? c->so_error : err;
	} else if (c->peer_id == EUSRV_SOR_NO_ID) {
		/* No answer yet: keep the id until a late one cannot hurt. */
		c->state = SOR_ST_QUARANTINE;
		c->so_error = err;
		sor_conn_flags_locked(c);
		sor_conn_arm_locked(c, SOR_QUARANTINE_MS);
		sor_conn_wake(c, SOR_WAKE_ALL);
	} else {
		sor_conn_abort_locked(c, err, err == ENOMEM ? ENOMEM : ECONNABORTED);
	}
	return err;
}

/* A failed CONNECT: the error for the caller; C is given up. */
int sor_client_fail(struct sor_conn *c, int err)
{
	unsigned long flags;

	spin_lock_irqsave(&c->lock, flags);
	c->released = true;
	err = sor_client_give_up_locked(c, err);
	sor_conn_kick_locked(c, SOR_DO_RETIRE);
	spin_unlock_irqrestore(&c->lock, flags);
	sor_conn_put(c);
	return -err;
}

/*
 * The server's ADDR is in and our rings are ready: ESTABLISHED before our
 * own ADDR goes, since the server may ask at once.  False while the ADDR
 * is awaited or once the set-up failed.  c->lock held.
 */
bool sor_client_establish_locked(struct sor_conn *c)
{
	if (c->state != EUSRV_SOR_ST_CONNECTING || !c->have_addr)
		return false;
	sor_data_established_locked(c);
	sor_conn_set_state_locked(c, EUSRV_SOR_ST_ESTABLISHED, 0);
	sor_count_opened_locked(c);
	return true;
}

/* Tell the server where our receive block is: the engine may write it. */
int sor_client_send_addr(struct sor_conn *c)
{
	c->peer_may_write = true;
	return sor_setup_send(c->peer_node,
			      eusrv_sor_msg_addr(c->peer_id, c->id,
						 sor_conn_ring_phys(c->rcv_blk)));
}

/*
 * Rings of the sizes C's shifts say, charged to OWNER before they are
 * allocated: first our own wishes, before ConnRQ goes, then the sizes the
 * server's ACCEPT chose (the charge follows them up or down).  -EDQUOT or
 * -ENOMEM; the rings C had stay either way, so a connection that got a
 * file always has rings.
 */
int sor_client_rings(struct sor_conn *c, const struct sor_owner *owner)
{
	unsigned long flags;
	u32 snd, rcv;

	/* The ACCEPT that sets them is in before we run, or never comes. */
	spin_lock_irqsave(&c->lock, flags);
	snd = 1U << c->snd_shift;
	rcv = 1U << c->rcv_shift;
	spin_unlock_irqrestore(&c->lock, flags);
	if (sor_charge(&c->charge, owner, sor_charge_pages(snd, rcv),
		       GFP_KERNEL_ACCOUNT))
		return -EDQUOT;
	return sor_conn_alloc_rings(c, snd, rcv, GFP_KERNEL_ACCOUNT) ? -ENOMEM : 0;
}

/*
 * Our rings of our own sizes, charged to OWNER, then an id (messages may
 * reach C from now on), then ConnRQ to PORT on the peer: the rings are
 * zeroed before the server works (a good part of the set-up), and its
 * answer only changes them if it chose other sizes.  0, or the error; C
 * is then RESET (nothing was sent, nothing can come back, so the id, if
 * any, is free again at once).
 */
int sor_client_start(struct sor_conn *c, const struct sor_owner *owner,
		     u16 port)
{
	unsigned long flags;
	int ret;

	ret = sor_client_rings(c, owner);
	if (!ret) {
		ret = sor_conn_publish(c);
		if (ret == -ENOBUFS)
			ret = -ENOMEM;	/* no id: as no memory, use TCP */
	}
	if (!ret) {
		sor_ka_heard(c->peer_node);	/* keepalives start from now */
		ret = sor_setup_send(c->peer_node,
				     eusrv_sor_msg_connrq(c->id, port, c->lport,
							  c->snd_shift,
							  c->rcv_shift));
		if (ret)
			ret = ret == -ETIMEDOUT ? -ETIMEDOUT : -EHOSTUNREACH;
	}
	if (ret) {
		spin_lock_irqsave(&c->lock, flags);
		c->state = EUSRV_SOR_ST_RESET;
		spin_unlock_irqrestore(&c->lock, flags);
	}
	return ret;
}
