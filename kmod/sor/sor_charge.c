// SPDX-License-Identifier: GPL-2.0
/*
 * eusrv_sor ring memory charged to its user: a connection's rings are
 * pinned kernel pages mapped into the process, so they count against the
 * owner's RLIMIT_MEMLOCK in the user's locked_vm, as io_uring's rings and
 * RDMA registrations do.  Over the limit, set-up fails with EDQUOT and
 * the program's socket stays on TCP (docs/protocol.md section 7).  Each
 * charge is also one of its user's connections, of which a user may hold
 * max_user_conns, so that no user takes all of the node's ids.
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/hashtable.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/resource.h>
#include <linux/sched/signal.h>
#include <linux/sched/user.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "sor_mem.h"

/* Pages charged now, node-wide (STATS charged_pages). */
static atomic_long_t sor_charged = ATOMIC_LONG_INIT(0);

u64 sor_charged_pages(void)
{
	return atomic_long_read(&sor_charged);
}

static unsigned int sor_max_user_conns = 1024;
module_param_named(max_user_conns, sor_max_user_conns, uint, 0644);
MODULE_PARM_DESC(max_user_conns,
		 "connections one user may hold on this node (of 4095)");

/* How many connections a user holds (its charges). */
struct sor_user_conns {
	struct hlist_node link;
	struct user_struct *user;	/* not referenced: its charges hold it */
	unsigned int n;
};

static DEFINE_HASHTABLE(sor_users, 6);
static DEFINE_SPINLOCK(sor_users_lock);	/* taken in any context */

static struct sor_user_conns *sor_user_find(struct user_struct *user)
{
	struct sor_user_conns *u;

	hash_for_each_possible(sor_users, u, link, (unsigned long)user)
		if (u->user == user)
			return u;
	return NULL;
}

/*
 * One more connection of USER's, or -EDQUOT past the bound; -ENOMEM if
 * its first needs memory that GFP cannot get.
 */
static int sor_user_conn_get(struct user_struct *user, gfp_t gfp)
{
	struct sor_user_conns *u, *fresh = NULL;
	unsigned long flags;
	int ret = 0;

	for (;;) {
		spin_lock_irqsave(&sor_users_lock, flags);
		u = sor_user_find(user);
		if (!u && fresh) {
			u = fresh;
			fresh = NULL;
			u->user = user;
			hash_add(sor_users, &u->link, (unsigned long)user);
		}
		if (u)
			break;
		spin_unlock_irqrestore(&sor_users_lock, flags);
		/* The user's first connection: its count, made unlocked. */
		fresh = kzalloc(sizeof(*fresh), gfp);
		if (!fresh)
			return -ENOMEM;
	}
	if (u->n >= READ_ONCE(sor_max_user_conns))
		ret = -EDQUOT;
	else
		u->n++;
	if (!u->n) {
		hash_del(&u->link);
		fresh = u;
	}
	spin_unlock_irqrestore(&sor_users_lock, flags);
	kfree(fresh);
	return ret;
}

/* USER holds one connection less; any context. */
static void sor_user_conn_put(struct user_struct *user)
{
	struct sor_user_conns *u;
	unsigned long flags;

	spin_lock_irqsave(&sor_users_lock, flags);
	u = sor_user_find(user);
	if (!WARN_ON_ONCE(!u) && !--u->n)
		hash_del(&u->link);
	else
		u = NULL;
	spin_unlock_irqrestore(&sor_users_lock, flags);
	kfree(u);
}

/* The calling task's allowance: its user and locked-memory limit. */
void sor_charge_owner(struct sor_owner *o)
{
	o->cred = get_current_cred();
	o->user = o->cred->user;
	o->limit = capable(CAP_IPC_LOCK) ? RLIM_INFINITY :
		   rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
}

/* TO: the allowance FROM has, with a reference of its own. */
void sor_charge_owner_copy(struct sor_owner *to, const struct sor_owner *from)
{
	to->cred = get_cred(from->cred);
	to->user = from->user;
	to->limit = from->limit;
}

void sor_charge_owner_put(struct sor_owner *o)
{
	if (o->cred)
		put_cred(o->cred);
	o->cred = NULL;
	o->user = NULL;
}

/* The pages of a connection with rings of SND and RCV bytes. */
unsigned long sor_charge_pages(u32 snd, u32 rcv)
{
	return 1 + PFN_UP(snd) + PFN_UP(SOR_RCV_DATA_OFF + (size_t)rcv);
}

/* PAGES more on USER's locked_vm, or -EDQUOT past LIMIT. */
static int sor_charge_add(struct user_struct *user, unsigned long limit,
			  unsigned long pages)
{
	unsigned long cur, next;

	cur = atomic_long_read(&user->locked_vm);
	do {
		next = cur + pages;
		if (limit != RLIM_INFINITY && next > limit)
			return -EDQUOT;
	} while (!atomic_long_try_cmpxchg(&user->locked_vm, &cur, next));
	atomic_long_add(pages, &sor_charged);
	return 0;
}

/*
 * Make CH hold PAGES: charged to O's user if CH holds nothing yet, else
 * grown or shrunk on the user it holds.  -EDQUOT (CH unchanged) when that
 * would pass O's limit; -ENOMEM when the user's first connection needs
 * memory that GFP cannot get.
 */
int sor_charge(struct sor_charge_acct *ch, const struct sor_owner *o,
	       unsigned long pages, gfp_t gfp)
{
	int ret;

	if (!ch->user) {
		ret = sor_user_conn_get(o->user, gfp);
		if (ret)
			return ret;
		ret = sor_charge_add(o->user, o->limit, pages);
		if (ret) {
			sor_user_conn_put(o->user);
			return ret;
		}
		ch->cred = get_cred(o->cred);
		ch->user = o->user;
		ch->pages = pages;
		return 0;
	}
	if (pages <= ch->pages) {
		atomic_long_sub(ch->pages - pages, &ch->user->locked_vm);
		atomic_long_sub(ch->pages - pages, &sor_charged);
	} else {
		ret = sor_charge_add(ch->user, o->limit, pages - ch->pages);
		if (ret)
			return ret;
	}
	ch->pages = pages;
	return 0;
}

/* Give CH's pages back to its user; any context. */
void sor_uncharge(struct sor_charge_acct *ch)
{
	if (!ch->user)
		return;
	atomic_long_sub(ch->pages, &ch->user->locked_vm);
	atomic_long_sub(ch->pages, &sor_charged);
	sor_user_conn_put(ch->user);
	ch->pages = 0;
	put_cred(ch->cred);
	ch->cred = NULL;
	ch->user = NULL;
}
