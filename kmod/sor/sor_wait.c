// SPDX-License-Identifier: GPL-2.0
/*
 * eusrv_sor connection files: the events a connection reports (readable,
 * writable, hung up), to poll and epoll and to the WAIT ioctl, and WAIT's
 * sleep, woken only by the wake-ups it asked for.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/poll.h>
#include <linux/sched/signal.h>
#include <linux/uaccess.h>

#include "sor_data.h"
#include "sor_fallback.h"
#include "sor_file.h"

/*
 * What WAIT and poll see: EUSRV_SOR_W_* that hold now, a transfer that
 * ended unnoticed taken first (its room is free).
 */
u32 sor_file_events(struct sor_conn *c)
{
	unsigned long flags;
	u32 ev = 0, head, tail;
	unsigned int st;
	bool done;

	spin_lock_irqsave(&c->lock, flags);
	/*
	 * Turned into its TCP socket (its rings may be gone): whoever waits
	 * here wakes and finds the socket (INFO says TCP).
	 */
	if (c->tcp) {
		spin_unlock_irqrestore(&c->lock, flags);
		return EUSRV_SOR_W_RECV | EUSRV_SOR_W_SEND;
	}
	st = sor_st_uapi(c->state);
	/* Set-up goes on: nothing to read, no room to write yet. */
	if (st == EUSRV_SOR_ST_CONNECTING || sor_fallback_setting_up(c->bg)) {
		spin_unlock_irqrestore(&c->lock, flags);
		return 0;
	}
	done = sor_data_reap_locked(c);
	sor_data_sync_tail_locked(c);
	head = READ_ONCE(c->rcv_hdr->head);
	if (c->rcv_tail != head || c->eof || c->shut_rd ||
	    st == EUSRV_SOR_ST_RESET)
		ev |= EUSRV_SOR_W_RECV;
	tail = READ_ONCE(c->snd_hdr->tail);
	if ((sor_ring_used_ok(c->snd_head, tail, c->snd_size) &&
	     sor_ring_room(c->snd_head, tail, c->snd_size)) ||
	    st != EUSRV_SOR_ST_ESTABLISHED || c->shut_wr)
		ev |= EUSRV_SOR_W_SEND;
	spin_unlock_irqrestore(&c->lock, flags);
	if (done)
		sor_conn_put(c);	/* the ended transfer's reference */
	return ev;
}

__poll_t sor_file_poll(struct file *file, poll_table *wait)
{
	struct sor_conn *c = file->private_data;
	__poll_t mask = 0, want;
	u32 ev;

	/* The socket's wake-ups come here too once it is TCP (sor_tcp.c). */
	poll_wait(file, &c->wq, wait);
	if (sor_fallback_setting_up(c->bg))
		return 0;
	if (READ_ONCE(c->tcp))
		return sor_tcp_poll(c, wait);
	/*
	 * Waiting for input asks to be woken by the next data, as WAIT does.
	 * An edge-triggered epoll asks even with data unread: it polls only
	 * as it reports, and its reader then drains the ring in user space
	 * without a call, so what lands next must wake it.  Level-triggered
	 * pollers look again by themselves while data is unread.
	 */
	want = poll_requested_events(wait);
	if (want & (EPOLLIN | EPOLLRDNORM))
		sor_data_arm(c, !!(want & EPOLLET));
	ev = sor_file_events(c);
	/* No room: our transfer's end must wake the poller. */
	if ((want & (EPOLLOUT | EPOLLWRNORM)) && !(ev & EUSRV_SOR_W_SEND)) {
		sor_data_want_sent(c);
		ev = sor_file_events(c);
	}
	if (ev & EUSRV_SOR_W_RECV)
		mask |= EPOLLIN | EPOLLRDNORM;
	if (ev & EUSRV_SOR_W_SEND)
		mask |= EPOLLOUT | EPOLLWRNORM;
	if (READ_ONCE(c->eof))
		mask |= EPOLLRDHUP;
	switch (sor_st_uapi(READ_ONCE(c->state))) {
	case EUSRV_SOR_ST_RESET:
		mask |= EPOLLERR | EPOLLHUP;
		break;
	case EUSRV_SOR_ST_PEER_CLOSED:
		if (READ_ONCE(c->shut_wr))
			mask |= EPOLLHUP;
		break;
	default:
		if (READ_ONCE(c->eof) && READ_ONCE(c->shut_wr))
			mask |= EPOLLHUP;
		break;
	}
	/* A look after a wake-up (or epoll's after it reported) that found nothing. */
	if (wait && !wait->_qproc && !(mask & want))
		sor_xcount(c, SOR_X_POLL_EMPTY);
	return mask;
}

/* The events of WAIT: W_SEND only with ROOM bytes free (0: any). */
static u32 sor_wait_events(struct sor_conn *c, u32 events, u32 room)
{
	u32 ev = sor_file_events(c) & events;
	unsigned long flags;
	u32 tail;

	if (!(ev & EUSRV_SOR_W_SEND) || room <= 1)
		return ev;
	spin_lock_irqsave(&c->lock, flags);
	tail = c->tcp ? 0 : READ_ONCE(c->snd_hdr->tail);
	if (!c->tcp && c->state == EUSRV_SOR_ST_ESTABLISHED && !c->shut_wr &&
	    sor_ring_used_ok(c->snd_head, tail, c->snd_size) &&
	    sor_ring_room(c->snd_head, tail, c->snd_size) < room)
		ev &= ~EUSRV_SOR_W_SEND;
	spin_unlock_irqrestore(&c->lock, flags);
	return ev;
}

struct sor_waiter {
	struct wait_queue_entry wq;
	__poll_t key;		/* the wake-ups it wants */
};

/* A keyed wake-up for other events passes a WAIT by. */
static int sor_waiter_wake(struct wait_queue_entry *wq, unsigned int mode,
			   int sync, void *key)
{
	struct sor_waiter *w = container_of(wq, struct sor_waiter, wq);

	if (key && !(key_to_poll(key) & w->key))
		return 0;
	return autoremove_wake_function(wq, mode, sync, key);
}

/*
 * Sleep until one of EVENTS holds (ROOM as sor_wait_events), TMO jiffies
 * pass (MAX_SCHEDULE_TIMEOUT: forever) or a signal comes: the events,
 * 0 on timeout, -ERESTARTSYS.  A wake-up that finds nothing it waits for
 * is counted (wake-ups are keyed, so only a change it cannot see yet, or
 * room short of ROOM, makes one).
 */
static long sor_wait_sleep(struct sor_conn *c, u32 events, u32 room, long tmo)
{
	struct sor_waiter w = {
		.wq = {
			.private = current,
			.func = sor_waiter_wake,
			.entry = LIST_HEAD_INIT(w.wq.entry),
		},
		.key = EPOLLERR | EPOLLHUP |
		       (events & EUSRV_SOR_W_RECV ? SOR_WAKE_IN | EPOLLRDHUP : 0) |
		       (events & EUSRV_SOR_W_SEND ? SOR_WAKE_OUT : 0),
	};
	bool woke = false;
	long ret;

	for (;;) {
		prepare_to_wait(&c->wq, &w.wq, TASK_INTERRUPTIBLE);
		ret = sor_wait_events(c, events, room);
		if (ret)
			break;
		if (woke)
			sor_xcount(c, SOR_X_EMPTY_WAKES);
		if (signal_pending(current)) {
			ret = -ERESTARTSYS;
			break;
		}
		if (!tmo)
			break;
		tmo = schedule_timeout(tmo);
		woke = true;
	}
	finish_wait(&c->wq, &w.wq);
	return ret;
}

long sor_ioc_wait(struct sor_conn *c, void __user *arg, bool file_nb)
{
	const u32 all = EUSRV_SOR_W_RECV | EUSRV_SOR_W_SEND;
	const u32 fl = EUSRV_SOR_F_NONBLOCK | EUSRV_SOR_F_FILE;
	struct eusrv_sor_wait w;
	bool nonblock;
	long left;
	int ret;

	if (copy_from_user(&w, arg, sizeof(w)))
		return -EFAULT;
	if (!w.events || (w.events & ~all) || (w.flags & ~fl) ||
	    w.room > c->snd_size || w.timeout_ns < -1)
		return -EINVAL;
	nonblock = (w.flags & EUSRV_SOR_F_NONBLOCK) ||
		   ((w.flags & EUSRV_SOR_F_FILE) && file_nb);
	if (w.events & EUSRV_SOR_W_RECV) {
		/* The writer must not run short while we wait. */
		ret = sor_data_credit(c, false);
		if (ret == -EINVAL)
			return ret;
	}
	w.revents = sor_wait_events(c, w.events, w.room);
	if (!w.revents && nonblock && (w.flags & EUSRV_SOR_F_FILE))
		return -EAGAIN;
	if (!w.revents && !nonblock && w.timeout_ns) {
		if (w.events & EUSRV_SOR_W_RECV) {
			ret = sor_data_arm(c, false);
			if (ret == -EINVAL)
				return ret;
		}
		/* Room comes with our transfer's end: it must say so. */
		if (w.events & EUSRV_SOR_W_SEND)
			sor_data_want_sent(c);
		left = sor_wait_sleep(c, w.events, w.room,
				      w.timeout_ns < 0 ? MAX_SCHEDULE_TIMEOUT :
				      max_t(long, 1, nsecs_to_jiffies(w.timeout_ns)));
		/*
		 * As a socket's own calls: restarted (SA_RESTART) when no
		 * timeout was asked for, EINTR when one was.
		 */
		if (left < 0)
			return w.timeout_ns < 0 ? -ERESTARTSYS : -EINTR;
		w.revents = left;
	}
	return copy_to_user(arg, &w, sizeof(w)) ? -EFAULT : 0;
}
