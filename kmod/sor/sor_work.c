// SPDX-License-Identifier: GPL-2.0
/*
 * eusrv_sor: a connection's work item and what its timer asks, above
 * the protocol's parts.  Handlers in interrupt context only record what
 * is to be done (sor_conn.todo) and queue the item; here each job goes
 * to its owner, in a fixed order: the timer first (it may end the
 * connection), then answers owed to the peer, our own requests, data,
 * and set-up; retiring last, once the rest has run.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/jiffies.h>

#include "sor_accept.h"
#include "sor_data.h"
#include "sor_fallback.h"
#include "sor_nack.h"
#include "sor_retire.h"
#include "sor_setup.h"

/* The timer fired: whoever armed it for what C is waiting on now. */
static void sor_work_timeout(struct sor_conn *c)
{
	unsigned long flags;
	bool retire = false;

	spin_lock_irqsave(&c->lock, flags);
	if (c->nack_pending) {
		spin_unlock_irqrestore(&c->lock, flags);
		sor_nack_timer(c);
		return;
	}
	switch (c->state) {
	case SOR_ST_QUARANTINE:
		/* Long enough for any late reply: the id may go. */
		c->state = EUSRV_SOR_ST_RESET;
		retire = true;
		break;
	case EUSRV_SOR_ST_CLOSING:
		if (time_after(jiffies, c->progress +
			       msecs_to_jiffies(SOR_LINGER_MS)))
			sor_conn_abort_locked(c, ETIMEDOUT, ECONNRESET);
		else
			sor_conn_arm_locked(c, SOR_LINGER_CHECK_MS);
		break;
	default:
		spin_unlock_irqrestore(&c->lock, flags);
		sor_setup_timer(c);
		return;
	}
	spin_unlock_irqrestore(&c->lock, flags);
	if (retire)
		sor_retire_try(c);
}

void sor_work_run(struct work_struct *w)
{
	struct sor_conn *c = container_of(w, struct sor_conn, work);
	unsigned long todo = xchg(&c->todo, 0);

	if (todo & BIT(SOR_DO_TIMER))
		sor_work_timeout(c);
	if (todo & BIT(SOR_DO_REPLY))
		sor_nack_reply(c);
	if (todo & BIT(SOR_DO_NACK))
		sor_nack_send(c);
	if (todo & BIT(SOR_DO_NOTIFY))
		sor_data_notify(c);
	if (todo & BIT(SOR_DO_XFER))
		sor_data_xfer(c);
	if (todo & BIT(SOR_DO_FIN))
		sor_data_fin(c);
	if (todo & BIT(SOR_DO_DUMMY))
		sor_dummy_start(c);
	if (todo & BIT(SOR_DO_CONNECT))
		sor_fallback_work(c);
	if (todo & BIT(SOR_DO_RETIRE))
		sor_retire_try(c);
	sor_conn_put(c);	/* the queued work's reference */
}
