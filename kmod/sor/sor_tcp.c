// SPDX-License-Identifier: GPL-2.0
/*
 * eusrv_sor: a client connection whose background set-up failed turns
 * into its own TCP socket (docs/protocol.md section 3).  A non-blocking
 * connect() has returned EINPROGRESS with the connection file in place of
 * the socket, and the program may have put that file in an epoll set: so
 * the file stays and serves the socket: its poll (woken through a wait
 * entry on the socket's queue, added here: sor_tcp_watch), read and
 * write.  The program's own thread connects the socket: until the library
 * says it did (EUSRV_SOR_TCP_STARTED), the file is readable and writable,
 * which brings an event loop back to a call the library sees.  User space
 * takes a descriptor of the socket (EUSRV_SOR_SOCKET) for the other calls.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fcntl.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/net.h>
#include <linux/poll.h>
#include <linux/uio.h>
#include <net/sock.h>

#include "sor_fallback.h"
#include "sor_file.h"
#include "sor_tcp.h"

/*
 * How long TCP_STARTED waits for the answer to the SYN: the program saw
 * the file ready, so what it asks next should find the connect finished.
 * A board round trip is well below it; a silent peer is not waited for.
 */
#define SOR_TCP_ANSWER_MS	200

/* The socket's events; the caller waits on the file's queue, which the socket's wakes. */
__poll_t sor_tcp_poll(struct sor_conn *c, poll_table *wait)
{
	poll_table pt;

	if (!READ_ONCE(c->bg->tcp_started))
		return EPOLLIN | EPOLLRDNORM | EPOLLOUT | EPOLLWRNORM;

	init_poll_funcptr(&pt, NULL);
	pt._key = wait ? wait->_key : ~(__poll_t)0;
	return vfs_poll(c->bound, &pt);
}

/* A read (or WRITE) of the socket, not waiting if the file says O_NONBLOCK. */
ssize_t sor_tcp_rw(struct sor_conn *c, struct kiocb *iocb,
		   struct iov_iter *iter, bool write)
{
	struct socket *sock = sock_from_file(c->bound);
	struct msghdr msg = { .msg_iter = *iter };
	ssize_t ret;

	if (iocb->ki_filp->f_flags & O_NONBLOCK || iocb->ki_flags & IOCB_NOWAIT)
		msg.msg_flags = MSG_DONTWAIT;
	ret = write ? sock_sendmsg(sock, &msg) :
		      sock_recvmsg(sock, &msg, msg.msg_flags);
	*iter = msg.msg_iter;
	return ret;
}

long sor_tcp_ioctl(struct sor_conn *c, unsigned int cmd, unsigned long arg)
{
	return c->bound->f_op->unlocked_ioctl(c->bound, cmd, arg);
}

/* The same for a 32-bit caller: the socket's own compat handler (layouts differ). */
long sor_tcp_compat_ioctl(struct sor_conn *c, unsigned int cmd,
			  unsigned long arg)
{
	if (!c->bound->f_op->compat_ioctl)
		return -ENOIOCTLCMD;
	return c->bound->f_op->compat_ioctl(c->bound, cmd, arg);
}

/*
 * EUSRV_SOR_TCP_STARTED: the caller connect()ed the socket of a connection
 * turned to TCP.  ERR, if not 0, is the errno its connect() failed with
 * at once (below 512: the kernel's internal codes would reach vfs_read's
 * BUG_ON); an unconnected socket takes it as its pending error, as one
 * TCP finds later would (SO_ERROR, POLLERR).  The file's poll is the
 * socket's from now on.  Waits up to SOR_TCP_ANSWER_MS for the answer.
 */
int sor_tcp_started(struct sor_conn *c, int err)
{
	struct sock *sk;

	/* A user-visible errno only: the kernel's own (EIOCBQUEUED...) never. */
	if (!READ_ONCE(c->tcp) || err < 0 || err >= ERESTARTSYS)
		return -EINVAL;
	sk = sock_from_file(c->bound)->sk;
	if (err) {
		lock_sock(sk);
		if (sk->sk_state == TCP_CLOSE && !sk->sk_err)
			sk->sk_err = err;
		else
			err = 0;
		release_sock(sk);
		if (err)
			sk_error_report(sk);
	}
	WRITE_ONCE(c->bg->tcp_started, true);
	/* Pollers look again: at the socket's events now. */
	wake_up_all(&c->wq);
	if (!err)
		wait_event_interruptible_timeout(*sk_sleep(sk),
						 READ_ONCE(sk->sk_state) != TCP_SYN_SENT,
						 msecs_to_jiffies(SOR_TCP_ANSWER_MS));
	return 0;
}

/* EUSRV_SOR_SOCKET: a descriptor of the client's socket. */
int sor_tcp_socket_fd(struct sor_conn *c)
{
	int fd;

	if (!c->client || !c->bound)
		return -EINVAL;
	fd = get_unused_fd_flags(O_CLOEXEC);
	if (fd >= 0)
		fd_install(fd, get_file(c->bound));
	return fd;
}

/* The socket woke its waiters: so do we (any context, its queue locked). */
static int sor_tcp_woken(struct wait_queue_entry *wq, unsigned int mode,
			 int sync, void *key)
{
	struct sor_bg *bg = container_of(wq, struct sor_bg, tcp_wait);

	wake_up_all(&bg->conn->wq);
	kill_fasync(&bg->conn->fasync, SIGIO, POLL_IN);
	return 0;
}

/*
 * Have the wake-ups of C's socket wake the file's waiters; the caller then
 * lets the file serve it (c->tcp).  The socket is not connected here: the
 * program's own thread connects it (the library, on its next call on the
 * descriptor, EUSRV_SOR_TCP_STARTED), so that its security policy, its
 * seccomp filter and its credentials apply as to any connect() it makes.
 */
void sor_tcp_watch(struct sor_conn *c)
{
	struct socket *sock = sock_from_file(c->bound);
	struct sor_bg *bg = c->bg;

	init_waitqueue_func_entry(&bg->tcp_wait, sor_tcp_woken);
	add_wait_queue(sk_sleep(sock->sk), &bg->tcp_wait);
	bg->tcp_waiting = true;
}

/*
 * The connection goes (its last reference, while it still holds the
 * socket): no more wake-ups from the socket.  The file may be gone long
 * before, and a set-up that turned to TCP just as the file went still
 * adds its entry; only this is sure to come after it.
 */
static void sor_tcp_stop(struct sor_conn *c)
{
	if (c->bg->tcp_waiting)
		remove_wait_queue(sk_sleep(sock_from_file(c->bound)->sk),
				  &c->bg->tcp_wait);
}

/* Last reference, before the socket goes: the socket wakes us no more. */
void sor_tcp_bg_free(struct sor_conn *c)
{
	if (!c->bg)
		return;
	sor_tcp_stop(c);
	sor_charge_owner_put(&c->bg->owner);
	kfree(c->bg);
}
