// SPDX-License-Identifier: GPL-2.0
/*
 * eusrv_sor: a connection leaves the id table once nothing of the
 * protocol can reach it any more, and what hung on it goes then: its
 * dummy socket, its transfer, its rings if the file turned to TCP.  Also
 * module exit's sweep and the debugfs `forget` fault.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <eusrv/cdma.h>

#include "sor_dummy.h"
#include "sor_ids.h"
#include "sor_retire.h"

/* Take C out of the table; process context, C referenced by the caller. */
static void sor_retire_unlink(struct sor_conn *c)
{
	if (!sor_conn_unpublish(c))
		return;
	sor_dummy_drop(c);
	/* No transfer or failure callback for C runs after this. */
	eusrv_cdma_sync(c);
	/*
	 * Nothing of the protocol reaches C any more; a file that turned
	 * into its TCP socket never touches the rings: they go now, not
	 * when the program closes the socket.
	 */
	if (READ_ONCE(c->tcp))
		sor_conn_free_rings(c);
	sor_conn_put(c);	/* the table's reference */
}

/* Work item: C goes if it may; else what it still waits for is asked. */
void sor_retire_try(struct sor_conn *c)
{
	unsigned long flags;
	bool go;

	spin_lock_irqsave(&c->lock, flags);
	/* Our transfer's end may be all it waits for. */
	if (sor_conn_want_sent_locked(c))
		sor_conn_kick_locked(c, SOR_DO_XFER);
	go = c->in_table && sor_conn_may_retire_locked(c);
	/* Over, but the peer may still write: it must say it will not. */
	if (c->in_table && !go && c->peer_may_write && !c->nack_pending &&
	    sor_st_may_retire(c->state, c->released, false, c->busy,
			      c->reply_owed)) {
		sor_conn_nack_start_locked(c, ECONNRESET);
		sor_conn_fence_locked(c);
	}
	spin_unlock_irqrestore(&c->lock, flags);
	if (go)
		sor_retire_unlink(c);
}

/*
 * Fault injection (debugfs): this node forgets connection ID without a
 * word to the peer, as a node that lost its state would.  Its file, if
 * any, sees ECONNRESET; the peer must find out by itself (RST, PROBE).
 */
int sor_retire_forget(unsigned int id)
{
	struct sor_conn *c = sor_conn_get(id);
	unsigned long flags;

	if (!c)
		return -ENOENT;
	spin_lock_irqsave(&c->lock, flags);
	c->nack_pending = false;
	c->reply_owed = false;
	c->forgotten = true;
	if (c->state != EUSRV_SOR_ST_RESET)
		sor_conn_set_state_locked(c, EUSRV_SOR_ST_RESET, ECONNRESET);
	spin_unlock_irqrestore(&c->lock, flags);
	sor_retire_unlink(c);
	sor_conn_put(c);
	return 0;
}

/*
 * Module exit, after sor_conn_exit(): every connection still in the
 * table goes, with its timer, work and transfer.
 */
void sor_retire_all(void)
{
	unsigned long flags;
	struct sor_conn *c;
	unsigned int id;

	for (id = 0; id < SOR_IDS_MAX; id++) {
		c = sor_conn_get(id);
		if (!c)
			continue;
		if (del_timer_sync(&c->timer))
			sor_conn_put(c);
		if (cancel_work_sync(&c->work))
			sor_conn_put(c);
		eusrv_cdma_sync(c);
		spin_lock_irqsave(&c->lock, flags);
		if (c->busy) {
			c->busy = false;
			spin_unlock_irqrestore(&c->lock, flags);
			sor_conn_put(c);	/* the transfer's reference */
		} else {
			spin_unlock_irqrestore(&c->lock, flags);
		}
		sor_retire_unlink(c);
		sor_conn_put(c);
	}
}
