// SPDX-License-Identifier: GPL-2.0
/*
 * eusrv_sor ring memory charged to its user: a connection's rings are
 * pinned kernel pages mapped into the process, so they count against the
 * owner's RLIMIT_MEMLOCK in the user's locked_vm, as io_uring's rings and
 * RDMA registrations do.  Over the limit, set-up fails with EDQUOT and
 * the program's socket stays on TCP (docs/protocol.md section 7).
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/mm.h>
#include <linux/resource.h>
#include <linux/sched/signal.h>
#include <linux/sched/user.h>

#include "sor_mem.h"

/* The calling task's allowance: its user and locked-memory limit. */
void sor_charge_owner(struct sor_owner *o)
{
	o->user = get_current_user();
	o->limit = capable(CAP_IPC_LOCK) ? RLIM_INFINITY :
		   rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
}

void sor_charge_owner_put(struct sor_owner *o)
{
	if (o->user)
		free_uid(o->user);
	o->user = NULL;
}

/* The pages of a connection with rings of SND and RCV bytes. */
unsigned long sor_charge_pages(u32 snd, u32 rcv)
{
	return 1 + PFN_UP(snd) + PFN_UP(SOR_RCV_DATA_OFF + (size_t)rcv);
}

/*
 * Charge PAGES to O's user into CH (which holds at most one charge), or
 * -EDQUOT when that would pass O's limit.
 */
int sor_charge(struct sor_charge_acct *ch, const struct sor_owner *o,
	       unsigned long pages)
{
	unsigned long cur, next;

	if (ch->user)
		return -EBUSY;
	cur = atomic_long_read(&o->user->locked_vm);
	do {
		next = cur + pages;
		if (o->limit != RLIM_INFINITY && next > o->limit)
			return -EDQUOT;
	} while (!atomic_long_try_cmpxchg(&o->user->locked_vm, &cur, next));
	ch->user = get_uid(o->user);
	ch->pages = pages;
	return 0;
}

/* Give CH's pages back to its user; any context. */
void sor_uncharge(struct sor_charge_acct *ch)
{
	if (!ch->user)
		return;
	atomic_long_sub(ch->pages, &ch->user->locked_vm);
	free_uid(ch->user);
	ch->user = NULL;
}
