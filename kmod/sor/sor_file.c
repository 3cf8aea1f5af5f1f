// SPDX-License-Identifier: GPL-2.0
/*
 * eusrv_sor connection files: one anonymous-inode file per connection,
 * which user space puts in place of the socket's descriptor.  mmap of the
 * rings, read/write as a correct slow path, poll, and the connection
 * ioctls of uapi/eusrv/sor.h.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/anon_inodes.h>
#include <linux/fcntl.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/pid_namespace.h>
#include <linux/module.h>
#include <linux/poll.h>
#include <linux/sched/signal.h>
#include <linux/sockios.h>
#include <linux/splice.h>
#include <linux/uio.h>
#include <linux/uaccess.h>
#include <asm/ioctls.h>

#include "sor_data.h"
#include "sor_file.h"
#include "sor_nack.h"
#include "sor_fallback.h"

/* The mapping's parts (uapi/eusrv/sor.h). */
static u64 sor_map_snd_data(const struct sor_conn *c)
{
	return PAGE_SIZE;
}

static u64 sor_map_rcv_hdr(const struct sor_conn *c)
{
	return PAGE_SIZE + (u64)c->snd_size;
}

static u64 sor_map_rcv_data(const struct sor_conn *c)
{
	return sor_map_rcv_hdr(c) + PAGE_SIZE;
}

static u64 sor_map_len(const struct sor_conn *c)
{
	return sor_map_rcv_data(c) + c->rcv_size;
}

/*
 * What WAIT and poll see: EUSRV_SOR_W_* that hold now, a transfer that
 * ended unnoticed taken first (its room is free).
 */
static u32 sor_file_events(struct sor_conn *c)
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
	if (tail - c->snd_head < c->snd_size ||
	    st != EUSRV_SOR_ST_ESTABLISHED || c->shut_wr)
		ev |= EUSRV_SOR_W_SEND;
	spin_unlock_irqrestore(&c->lock, flags);
	if (done)
		sor_conn_put(c);	/* the ended transfer's reference */
	return ev;
}

static int sor_file_release(struct inode *inode, struct file *file)
{
	struct sor_conn *c = file->private_data;

	sor_fallback_file_gone(c);
	sor_nack_release(c);
	wake_up_all(&c->lock_wq[EUSRV_SOR_LOCK_SEND]);
	wake_up_all(&c->lock_wq[EUSRV_SOR_LOCK_RECV]);
	sor_conn_put(c);	/* the file's */
	return 0;
}

/*
 * The page at offset OFF of C's mapping, noted in the bitmap of the block
 * it belongs to (the pages to zero when the block goes back to the pool);
 * NULL past the end.  The file keeps the connection, so the memory, while
 * it is mapped, and the parts do not move once set-up is over.  Lock held.
 */
static void *sor_map_page_locked(struct sor_conn *c, u64 off)
{
	u64 i;

	/* Rings given back (a set-up that turned to TCP) map nothing. */
	if (!c->snd_hdr || !c->snd_data || !c->rcv_blk)
		return NULL;
	if (off < sor_map_snd_data(c))
		return (void *)c->snd_hdr + off;
	if (off < sor_map_rcv_hdr(c)) {
		i = (off - sor_map_snd_data(c)) >> PAGE_SHIFT;
		if (i < SOR_POOL_MAX_PAGES)
			__set_bit(i, c->snd_dirty);
		return c->snd_data + (off - sor_map_snd_data(c));
	}
	if (off >= sor_map_len(c))
		return NULL;
	/* The receive block: header page, kernel page (not mapped), data. */
	i = (off - sor_map_rcv_hdr(c)) >> PAGE_SHIFT;
	if (i)
		i += (SOR_RCV_DATA_OFF >> PAGE_SHIFT) - 1;
	if (i < SOR_POOL_MAX_PAGES)
		__set_bit(i, c->rcv_dirty);
	return c->rcv_blk + (i << PAGE_SHIFT);
}

/*
 * A page at a time, as user space touches it: a connection that moves
 * little data maps (and dirties) little, and the pool zeroes only that.
 */
static vm_fault_t sor_file_fault(struct vm_fault *vmf)
{
	struct sor_conn *c = vmf->vma->vm_file->private_data;
	unsigned long flags;
	void *p;

	spin_lock_irqsave(&c->lock, flags);
	p = sor_map_page_locked(c, (u64)vmf->pgoff << PAGE_SHIFT);
	spin_unlock_irqrestore(&c->lock, flags);
	if (!p)
		return VM_FAULT_SIGBUS;
	return vmf_insert_pfn(vmf->vma, vmf->address,
			      sor_conn_ring_phys(p) >> PAGE_SHIFT);
}

static const struct vm_operations_struct sor_file_vm_ops = {
	.fault = sor_file_fault,
};

/*
 * Map at once the pages every connection touches: both headers (the
 * library reads them before connect() or accept() returns) and the first
 * page of each ring, so that none of them costs a fault.
 */
static int sor_file_premap(struct sor_conn *c, struct vm_area_struct *vma)
{
	const u64 off[] = {
		0, sor_map_snd_data(c), sor_map_rcv_hdr(c), sor_map_rcv_data(c)
	};
	unsigned long flags;
	unsigned int i;
	void *p;
	int ret;

	for (i = 0; i < ARRAY_SIZE(off); i++) {
		if (off[i] >= vma->vm_end - vma->vm_start)
			break;
		spin_lock_irqsave(&c->lock, flags);
		p = sor_map_page_locked(c, off[i]);
		spin_unlock_irqrestore(&c->lock, flags);
		if (!p)
			return -EAGAIN;
		ret = remap_pfn_range(vma, vma->vm_start + off[i],
				      sor_conn_ring_phys(p) >> PAGE_SHIFT,
				      PAGE_SIZE, vma->vm_page_prot);
		if (ret)
			return ret;
	}
	return 0;
}

static int sor_file_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct sor_conn *c = file->private_data;
	unsigned long len = vma->vm_end - vma->vm_start;

	if (!(vma->vm_flags & VM_SHARED) || (vma->vm_flags & VM_EXEC))
		return -EINVAL;
	/* The ring sizes are final once set-up is over, and only then. */
	if (READ_ONCE(c->tcp) || sor_fallback_setting_up(c->bg) ||
	    READ_ONCE(c->state) == EUSRV_SOR_ST_CONNECTING)
		return -EAGAIN;
	if (vma->vm_pgoff || len > sor_map_len(c))
		return -EINVAL;
	sor_ulock_note_ns(c);
	/* As remap_pfn_range() would have it, the pages filled in by faults. */
	vma->vm_flags |= VM_IO | VM_PFNMAP | VM_DONTEXPAND | VM_DONTDUMP;
	vma->vm_flags &= ~VM_MAYEXEC;
	vma->vm_ops = &sor_file_vm_ops;
	return sor_file_premap(c, vma);
}

/*
 * Copy up to N bytes at position POS of a ring to or from ITER (user
 * memory, or a pipe's pages for splice and sendfile): the bytes copied.
 */
static u32 sor_copy_ring(void *ring, u32 size, u32 pos, struct iov_iter *iter,
			 u32 n, bool to_iter)
{
	struct sor_extent ext[2];
	unsigned int i, nr = sor_ring_split(pos, n, size, ext);
	u32 done = 0;
	size_t got;

	for (i = 0; i < nr; i++) {
		void *k = ring + ext[i].off;

		got = to_iter ? copy_to_iter(k, ext[i].len, iter) :
				copy_from_iter(k, ext[i].len, iter);
		done += got;
		if (got < ext[i].len)
			break;
	}
	return done;
}

static bool sor_readable(struct sor_conn *c)
{
	return sor_file_events(c) & EUSRV_SOR_W_RECV;
}

static bool sor_writable(struct sor_conn *c)
{
	return sor_file_events(c) & EUSRV_SOR_W_SEND;
}

/*
 * The bytes readable at the receive head, the lock taken (0 and the lock
 * released at EOF, or a negative error).
 */
static long sor_read_ready(struct sor_conn *c, bool nonblock, u32 *headp)
{
	unsigned long flags;
	u32 head, avail;
	int ret, err;

	for (;;) {
		ret = sor_ulock_take(c, EUSRV_SOR_LOCK_RECV);
		if (ret)
			return ret;
		spin_lock_irqsave(&c->lock, flags);
		if (!sor_data_check_head_locked(c, &head)) {
			ret = -EINVAL;
			goto out;
		}
		avail = c->rcv_tail - head;
		if (avail) {
			spin_unlock_irqrestore(&c->lock, flags);
			*headp = head;
			return avail;
		}
		switch (sor_ring_recv_step(c->state == EUSRV_SOR_ST_RESET,
					   c->eof || c->shut_rd)) {
		case SOR_RING_ERROR:
			err = c->so_error;
			c->so_error = 0;
			ret = err ? -err : 0;
			goto out;
		case SOR_RING_END:
			goto out;
		default:
			break;
		}
		spin_unlock_irqrestore(&c->lock, flags);
		/* Never waiting with the lock held. */
		sor_ulock_give(c, EUSRV_SOR_LOCK_RECV);
		if (nonblock)
			return -EAGAIN;
		ret = sor_data_arm(c, false);
		if (ret)
			return ret;
		if (wait_event_interruptible(c->wq, sor_readable(c)))
			return -ERESTARTSYS;
	}
out:
	spin_unlock_irqrestore(&c->lock, flags);
	sor_ulock_give(c, EUSRV_SOR_LOCK_RECV);
	return ret;
}

/* Whether an I/O request may not sleep (O_NONBLOCK, or io_uring's NOWAIT). */
static bool sor_iocb_nonblock(const struct kiocb *iocb)
{
	return (iocb->ki_filp->f_flags & O_NONBLOCK) ||
	       (iocb->ki_flags & IOCB_NOWAIT);
}

/*
 * A read or write while a non-blocking CONNECT sets up: as on a TCP
 * socket still connecting, EAGAIN, or wait until set-up is over (either
 * way).  0, or the error.
 */
static long sor_file_set_up(struct sor_conn *c, struct kiocb *iocb)
{
	if (!sor_fallback_setting_up(c->bg))
		return 0;
	if (sor_iocb_nonblock(iocb))
		return -EAGAIN;
	if (wait_event_interruptible(c->wq, !sor_fallback_setting_up(c->bg)))
		return -ERESTARTSYS;
	return 0;
}

static ssize_t sor_file_read_iter(struct kiocb *iocb, struct iov_iter *to)
{
	struct sor_conn *c = iocb->ki_filp->private_data;
	unsigned long flags;
	long avail;
	u32 head, n;

	avail = sor_file_set_up(c, iocb);
	if (avail)
		return avail;
	if (READ_ONCE(c->tcp))
		return sor_tcp_rw(c, iocb, to, false);
	if (!iov_iter_count(to))
		return 0;
	avail = sor_read_ready(c, sor_iocb_nonblock(iocb), &head);
	if (avail <= 0)
		return avail;
	n = (u32)min_t(size_t, avail, iov_iter_count(to));
	n = sor_copy_ring(c->rcv_data, c->rcv_size, head, to, n, true);
	if (!n) {
		sor_ulock_give(c, EUSRV_SOR_LOCK_RECV);
		return -EFAULT;
	}
	spin_lock_irqsave(&c->lock, flags);
	c->rcv_seen = head + n;
	/* The copy is done before the room is given back. */
	smp_store_release(&c->rcv_hdr->head, head + n);
	spin_unlock_irqrestore(&c->lock, flags);
	sor_ulock_give(c, EUSRV_SOR_LOCK_RECV);
	sor_data_credit(c, false);
	return n;
}

/*
 * The room at the send tail, the lock taken; or a negative error (the
 * lock released).
 */
static long sor_write_room(struct sor_conn *c, bool nonblock, u32 *tailp)
{
	unsigned long flags;
	u32 tail, space;
	bool done;
	int ret;

	for (;;) {
		ret = sor_ulock_take(c, EUSRV_SOR_LOCK_SEND);
		if (ret)
			return ret;
		spin_lock_irqsave(&c->lock, flags);
		/* A transfer that ended unnoticed: its room is free. */
		done = sor_data_reap_locked(c);
		switch (sor_ring_send_step(c->state == EUSRV_SOR_ST_RESET,
					   c->state != EUSRV_SOR_ST_ESTABLISHED ||
					   c->shut_wr)) {
		case SOR_RING_ERROR:
			ret = -(c->so_error ? c->so_error : ECONNRESET);
			c->so_error = 0;
			break;
		case SOR_RING_END:
			ret = -EPIPE;
			break;
		default:
			if (!sor_data_check_tail_locked(c, &tail))
				ret = -EINVAL;
			break;
		}
		space = ret ? 0 : c->snd_size - (tail - c->snd_head);
		spin_unlock_irqrestore(&c->lock, flags);
		if (done)
			sor_conn_put(c);	/* the ended transfer's reference */
		if (space) {
			*tailp = tail;
			return space;
		}
		/* Never waiting with the lock held. */
		sor_ulock_give(c, EUSRV_SOR_LOCK_SEND);
		if (ret)
			return ret;
		if (nonblock)
			return -EAGAIN;
		sor_data_want_sent(c);
		if (wait_event_interruptible(c->wq, sor_writable(c)))
			return -ERESTARTSYS;
	}
}

/* Write what ITER holds into the send ring as room allows: bytes written, or an error. */
static ssize_t sor_write_some(struct sor_conn *c, struct iov_iter *from,
			      bool nonblock)
{
	unsigned long flags;
	long space;
	u32 tail, n;

	space = sor_write_room(c, nonblock, &tail);
	if (space < 0)
		return space;
	n = (u32)min_t(size_t, space, iov_iter_count(from));
	/* Wherever it lands, the ring is zeroed whole when it goes back. */
	WRITE_ONCE(c->snd_kwrote, true);
	n = sor_copy_ring(c->snd_data, c->snd_size, tail, from, n, false);
	if (!n) {
		sor_ulock_give(c, EUSRV_SOR_LOCK_SEND);
		return -EFAULT;
	}
	spin_lock_irqsave(&c->lock, flags);
	/* The data is in the ring before the tail says so. */
	smp_store_release(&c->snd_hdr->tail, tail + n);
	spin_unlock_irqrestore(&c->lock, flags);
	sor_ulock_give(c, EUSRV_SOR_LOCK_SEND);
	sor_data_push(c);
	return n;
}

/* A write, or sendfile and splice into the connection (iter_file_splice_write). */
static ssize_t sor_file_write_iter(struct kiocb *iocb, struct iov_iter *from)
{
	struct sor_conn *c = iocb->ki_filp->private_data;
	bool nonblock = sor_iocb_nonblock(iocb);
	size_t done = 0;
	ssize_t n;

	n = sor_file_set_up(c, iocb);
	if (n)
		return n;
	if (READ_ONCE(c->tcp))
		return sor_tcp_rw(c, iocb, from, true);
	while (iov_iter_count(from)) {
		n = sor_write_some(c, from, nonblock);
		if (n < 0) {
			if (n == -EPIPE && !done)
				send_sig(SIGPIPE, current, 0);
			return done ? (ssize_t)done : n;
		}
		done += n;
	}
	return done;
}

static __poll_t sor_file_poll(struct file *file, poll_table *wait)
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

/* C as INFO (and CONNECT) tell it. */
void sor_file_info(struct sor_conn *c, struct eusrv_sor_info *in)
{
	unsigned long flags;

	memset(in, 0, sizeof(*in));
	spin_lock_irqsave(&c->lock, flags);
	in->state = c->tcp ? EUSRV_SOR_ST_TCP :
		    sor_fallback_setting_up(c->bg) ? EUSRV_SOR_ST_CONNECTING :
		    sor_st_uapi(c->state);
	in->id = c->id;
	in->node = sor_node();
	in->peer_node = c->peer_node;
	in->peer_id = c->peer_id;
	in->lport = c->lport;
	in->rport = c->rport;
	in->snd_size = c->snd_size;
	in->rcv_size = c->rcv_size;
	spin_unlock_irqrestore(&c->lock, flags);
	in->map_len = sor_map_len(c);
	in->snd_hdr_off = 0;
	in->snd_data_off = sor_map_snd_data(c);
	in->rcv_hdr_off = sor_map_rcv_hdr(c);
	in->rcv_data_off = sor_map_rcv_data(c);
}

static long sor_ioc_info(struct sor_conn *c, void __user *arg)
{
	struct eusrv_sor_info in;

	sor_file_info(c, &in);
	return copy_to_user(arg, &in, sizeof(in)) ? -EFAULT : 0;
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
	    c->snd_size - (tail - c->snd_head) < room)
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

static long sor_ioc_wait(struct sor_conn *c, void __user *arg, bool file_nb)
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

static long sor_ioc_shutdown(struct sor_conn *c, u32 how)
{
	unsigned long flags;
	long ret = 0;
	u32 tail;

	if (how > 2)
		return -EINVAL;
	spin_lock_irqsave(&c->lock, flags);
	if (c->state == EUSRV_SOR_ST_RESET) {
		ret = -ENOTCONN;
		goto out;
	}
	if (how != 1)
		c->shut_rd = true;
	if (how != 0 && !c->shut_wr && sor_st_open(c->state)) {
		if (!sor_data_check_tail_locked(c, &tail)) {
			ret = -EINVAL;
			goto out;
		}
		c->fin_pos = tail;
		c->shut_wr = true;
		if (!c->busy && c->snd_head == tail)
			sor_conn_kick_locked(c, SOR_DO_FIN);
		else if (sor_conn_want_sent_locked(c))
			sor_conn_kick_locked(c, SOR_DO_XFER);
	} else if (how != 0) {
		c->shut_wr = true;
	}
	sor_conn_flags_locked(c);
	sor_conn_wake(c, SOR_WAKE_ALL);
out:
	spin_unlock_irqrestore(&c->lock, flags);
	return ret;
}

static long sor_ioc_lock(struct sor_conn *c, u32 __user *arg, bool wait)
{
	u32 which;

	if (get_user(which, arg))
		return -EFAULT;
	if (which != EUSRV_SOR_LOCK_SEND && which != EUSRV_SOR_LOCK_RECV)
		return -EINVAL;
	if (!wait) {
		sor_ulock_wake(c, which);
		return 0;
	}
	return sor_ulock_wait(c, which);
}

static long sor_file_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct sor_conn *c = file->private_data;
	void __user *uarg = (void __user *)arg;
	unsigned long flags;
	u32 how, head, tail;
	int err, n;

	if (cmd == EUSRV_SOR_SOCKET)
		return sor_tcp_socket_fd(c);
	if (cmd == EUSRV_SOR_TCP_STARTED)
		return get_user(n, (s32 __user *)uarg) ? -EFAULT :
		       sor_tcp_started(c, n);
	/* Rings may still be replaced: only what does not touch them. */
	if (sor_fallback_setting_up(c->bg) && cmd != EUSRV_SOR_INFO &&
	    cmd != EUSRV_SOR_WAIT && cmd != EUSRV_SOR_GET_ERROR &&
	    cmd != EUSRV_SOR_LINGER)
		return cmd == FIONREAD || cmd == TIOCOUTQ ?
		       put_user(0, (int __user *)arg) : -ENOTCONN;
	/* Turned into its TCP socket: FIONREAD & co. are the socket's. */
	if (READ_ONCE(c->tcp) && cmd != EUSRV_SOR_INFO)
		return sor_tcp_ioctl(c, cmd, arg);
	switch (cmd) {
	case EUSRV_SOR_INFO:
		return sor_ioc_info(c, uarg);
	case EUSRV_SOR_PUSH:
		sor_xcount(c, SOR_X_PUSHES);
		return sor_data_push(c);
	case EUSRV_SOR_CREDIT:
		sor_xcount(c, SOR_X_CREDITS);
		return sor_data_credit(c, false);
	case EUSRV_SOR_WAIT:
		sor_xcount(c, SOR_X_WAITS);
		return sor_ioc_wait(c, uarg, file->f_flags & O_NONBLOCK);
	case EUSRV_SOR_SHUTDOWN:
		if (get_user(how, (u32 __user *)uarg))
			return -EFAULT;
		return sor_ioc_shutdown(c, how);
	case EUSRV_SOR_GET_ERROR:
		spin_lock_irqsave(&c->lock, flags);
		err = c->so_error;
		c->so_error = 0;
		spin_unlock_irqrestore(&c->lock, flags);
		return put_user(err, (s32 __user *)uarg);
	case EUSRV_SOR_LOCK_WAIT:
		sor_xcount(c, SOR_X_LOCK_CALLS);
		return sor_ioc_lock(c, uarg, true);
	case EUSRV_SOR_LOCK_WAKE:
		sor_xcount(c, SOR_X_LOCK_CALLS);
		return sor_ioc_lock(c, uarg, false);
	case EUSRV_SOR_LINGER:
		if (get_user(how, (u32 __user *)uarg))
			return -EFAULT;
		if (how > 1)
			return -EINVAL;
		WRITE_ONCE(c->linger_reset, how);
		return 0;
	case FIONREAD:
		spin_lock_irqsave(&c->lock, flags);
		sor_data_sync_tail_locked(c);
		head = READ_ONCE(c->rcv_hdr->head);
		n = (int)min_t(u32, c->rcv_tail - head, c->rcv_size);
		spin_unlock_irqrestore(&c->lock, flags);
		return put_user(n, (int __user *)uarg);
	case TIOCOUTQ:
		sor_data_reap(c);
		tail = READ_ONCE(c->snd_hdr->tail);
		n = (int)min_t(u32, tail - READ_ONCE(c->snd_head), c->snd_size);
		return put_user(n, (int __user *)uarg);
	default:
		return -ENOTTY;
	}
}

#ifdef CONFIG_COMPAT
/*
 * A 32-bit caller: the connection's own ioctls have one layout for both
 * (explicit padding); once the file serves its TCP socket, the socket's
 * compat handler answers, as it would on the socket itself.
 */
static long sor_file_compat_ioctl(struct file *file, unsigned int cmd,
				  unsigned long arg)
{
	struct sor_conn *c = file->private_data;

	if (READ_ONCE(c->tcp) && cmd != EUSRV_SOR_INFO && cmd != EUSRV_SOR_SOCKET &&
	    cmd != EUSRV_SOR_TCP_STARTED)
		return sor_tcp_compat_ioctl(c, cmd, arg);
	return compat_ptr_ioctl(file, cmd, arg);
}
#else
#define sor_file_compat_ioctl NULL
#endif

/*
 * O_ASYNC / FIOASYNC: SIGIO with every wake-up.  Data lands without an
 * interrupt unless asked for, so while an owner listens the connection
 * keeps its arm word set (sor_rx_data sets it again).
 */
static int sor_file_fasync(int fd, struct file *file, int on)
{
	struct sor_conn *c = file->private_data;
	unsigned long flags;
	int ret = fasync_helper(fd, file, on, &c->fasync);

	if (ret > 0 && on) {
		spin_lock_irqsave(&c->lock, flags);
		/* What lands while it arms signals too (as sor_rx_data). */
		while (sor_data_arm_at_tail_locked(c))
			sor_conn_wake(c, SOR_WAKE_IN);
		spin_unlock_irqrestore(&c->lock, flags);
	}
	return ret < 0 ? ret : 0;
}

const struct file_operations sor_file_fops = {
	.owner = THIS_MODULE,
	.release = sor_file_release,
	.read_iter = sor_file_read_iter,
	.write_iter = sor_file_write_iter,
	/* splice, tee's source pipe and sendfile, either way, as a TCP socket's */
	.splice_read = generic_file_splice_read,
	.splice_write = iter_file_splice_write,
	.poll = sor_file_poll,
	.mmap = sor_file_mmap,
	.fasync = sor_file_fasync,
	.unlocked_ioctl = sor_file_ioctl,
	.compat_ioctl = sor_file_compat_ioctl,
	.llseek = no_llseek,
};

/* Whether FILE is connection C's file. */

/* A file for the established connection C: its descriptor, or an error. */
int sor_file_open(struct sor_conn *c, u32 flags)
{
	int oflags = O_RDWR, fd;

	/*
	 * Every ring user below takes the rings as there: a connection
	 * gets a file only with all of them, and they stay until its last
	 * reference (or, once it is TCP, until no ring code can run).
	 */
	if (WARN_ON_ONCE(!sor_conn_has_rings(c)))
		return -ENOMEM;
	if (flags & EUSRV_SOR_F_NONBLOCK)
		oflags |= O_NONBLOCK;
	if (flags & EUSRV_SOR_F_CLOEXEC)
		oflags |= O_CLOEXEC;
	kref_get(&c->ref);	/* the file's */
	c->has_file = true;
	c->pidns = get_pid_ns(task_active_pid_ns(current));
	fd = anon_inode_getfd("[eusrv_sor]", &sor_file_fops, c, oflags);
	if (fd < 0) {
		c->has_file = false;
		sor_conn_put(c);
	}
	return fd;
}
