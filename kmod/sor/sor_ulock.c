// SPDX-License-Identifier: GPL-2.0
/*
 * eusrv_sor: the rings' lock words, shared with user space (uapi sor.h,
 * struct eusrv_sor_ring_hdr).  The driver's read() and write() take them
 * as user space does, so the slow path and the mapped fast path never
 * hand out the same bytes; LOCK_WAIT frees a lock whose holder was killed
 * while copying, is a zombie, or called exec (docs/protocol.md section 4).
 * A holder is a thread id, comparable only within one pid namespace: once
 * the connection has been used from two, nothing is freed.
 */
#include <linux/mm.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/wait.h>

#include "sor_file.h"

/* How often a waiter looks whether the holder still exists. */
#define SOR_ULOCK_POLL		(HZ / 10)

static u32 *sor_ulock_word(struct sor_conn *c, u32 which)
{
	/* Both in the send header, out of the peer's reach (uapi sor.h). */
	return which == EUSRV_SOR_LOCK_SEND ? &c->snd_hdr->lock :
					      &c->snd_hdr->rcv_lock;
}

/* The caller uses C: note it if it is in another pid namespace. */
void sor_ulock_note_ns(struct sor_conn *c)
{
	if (task_active_pid_ns(current) != c->pidns)
		WRITE_ONCE(c->pidns_mixed, true);
}

/* Whether task T maps connection C (its mm, if any). */
static bool sor_ulock_maps(struct task_struct *t, struct sor_conn *c)
{
	struct vm_area_struct *vma;
	struct mm_struct *mm;
	bool maps = false;

	mm = get_task_mm(t);
	if (!mm)
		return false;
	mmap_read_lock(mm);
	{
		VMA_ITERATOR(vmi, mm, 0);

		for_each_vma(vmi, vma) {
			if (sor_file_of(vma->vm_file, c)) {
				maps = true;
				break;
			}
		}
	}
	mmap_read_unlock(mm);
	mmput(mm);
	return maps;
}

/*
 * Whether the holder named by lock word V can no longer release it: its
 * thread is gone, exiting or a zombie; or, for a holder in user space
 * (not the driver's read or write), it no longer maps the connection, so
 * it cannot be copying into the ring: an exec, which may also have given
 * another thread's id to the new program.  Process context.
 */
static bool sor_ulock_holder_gone(struct sor_conn *c, u32 v)
{
	pid_t tid = v & EUSRV_SOR_LOCK_TID;
	struct task_struct *t;
	bool gone;

	sor_ulock_note_ns(c);
	if (READ_ONCE(c->pidns_mixed) || !tid)
		return false;
	rcu_read_lock();
	t = pid_task(find_vpid(tid), PIDTYPE_PID);
	if (t)
		get_task_struct(t);
	rcu_read_unlock();
	if (!t)
		return true;
	gone = t->exit_state || (READ_ONCE(t->flags) & PF_EXITING);
	if (!gone && !(v & EUSRV_SOR_LOCK_KERNEL))
		gone = !sor_ulock_maps(t, c);
	put_task_struct(t);
	return gone;
}

static bool sor_ulock_settled(u32 *w)
{
	return !(READ_ONCE(*w) & EUSRV_SOR_LOCK_WAITERS);
}

/*
 * Sleep while lock WHICH is held with waiters, freeing it when its holder
 * is gone: 0 when the caller should try again, -ERESTARTSYS on a signal.
 */
static int sor_ulock_sleep(struct sor_conn *c, u32 which)
{
	u32 *w = sor_ulock_word(c, which), v;
	long left;

	for (;;) {
		left = wait_event_interruptible_timeout(c->lock_wq[which],
							sor_ulock_settled(w),
							SOR_ULOCK_POLL);
		if (left < 0)
			return -ERESTARTSYS;
		if (left > 0)
			return 0;
		v = READ_ONCE(*w);
		if (!(v & EUSRV_SOR_LOCK_WAITERS))
			return 0;
		if (sor_ulock_holder_gone(c, v)) {
			if (cmpxchg(w, v, 0) == v) {
				sor_count(SOR_S_LOCKS_FREED);
				wake_up_all(&c->lock_wq[which]);
			}
			return 0;
		}
	}
}

/* LOCK_WAIT: until lock WHICH may be free (the caller tries again). */
int sor_ulock_wait(struct sor_conn *c, u32 which)
{
	if (sor_ulock_settled(sor_ulock_word(c, which)))
		return 0;
	return sor_ulock_sleep(c, which);
}

void sor_ulock_wake(struct sor_conn *c, u32 which)
{
	wake_up(&c->lock_wq[which]);
}

/*
 * Take lock WHICH for the calling thread (the driver's read and write):
 * 0, -ERESTARTSYS on a signal, or -EINTR when this thread holds it
 * already (a signal handler interrupted its own copy).
 */
int sor_ulock_take(struct sor_conn *c, u32 which)
{
	u32 *w = sor_ulock_word(c, which), v;
	u32 me = task_pid_vnr(current) & EUSRV_SOR_LOCK_TID;
	int ret;

	sor_ulock_note_ns(c);
	for (;;) {
		if (signal_pending(current))
			return -ERESTARTSYS;
		v = READ_ONCE(*w);
		/* Taken with WAITERS: its release always wakes the next. */
		if (!v) {
			if (cmpxchg(w, 0, me | EUSRV_SOR_LOCK_KERNEL |
				    EUSRV_SOR_LOCK_WAITERS) == 0)
				return 0;
			continue;
		}
		if ((v & EUSRV_SOR_LOCK_TID) == me)
			return -EINTR;
		if (!(v & EUSRV_SOR_LOCK_WAITERS) &&
		    cmpxchg(w, v, v | EUSRV_SOR_LOCK_WAITERS) != v)
			continue;
		ret = sor_ulock_sleep(c, which);
		if (ret)
			return ret;
		cond_resched();
	}
}

void sor_ulock_give(struct sor_conn *c, u32 which)
{
	if (xchg(sor_ulock_word(c, which), 0) & EUSRV_SOR_LOCK_WAITERS)
		sor_ulock_wake(c, which);
}
