// SPDX-License-Identifier: GPL-2.0
/*
 * eusrv_sor connection files: read and write, the rings' slow path for
 * programs that use the file as a descriptor (and splice and sendfile),
 * with the same decisions as the library's rings (<eusrv/sor_ring.h>).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fcntl.h>
#include <linux/sched/signal.h>
#include <linux/uio.h>

#include "sor_data.h"
#include "sor_fallback.h"
#include "sor_file.h"

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

ssize_t sor_file_read_iter(struct kiocb *iocb, struct iov_iter *to)
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
		space = ret ? 0 : sor_ring_room(c->snd_head, tail, c->snd_size);
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
ssize_t sor_file_write_iter(struct kiocb *iocb, struct iov_iter *from)
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
