// SPDX-License-Identifier: GPL-2.0
/*
 * eusrv_sor: a client connection whose background set-up failed turns
 * into its own TCP socket (docs/protocol.md section 3).  A non-blocking
 * connect() has returned EINPROGRESS with the connection file in place of
 * the socket, and the program may have put that file in an epoll set: so
 * the file stays, the driver connects the socket to where the program
 * asked, and the file then serves the socket: its poll (woken through a
 * wait entry on the socket's queue), read and write.  The connect and the
 * wait entry are the set-up's (sor_setup.c); this file serves the socket.  User space takes a
 * descriptor of the socket (EUSRV_SOR_SOCKET) for the other socket calls.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fcntl.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/net.h>
#include <linux/poll.h>
#include <linux/uio.h>
#include <net/sock.h>

#include "sor_file.h"

/* The socket's events; the caller waits on the file's queue, which the socket's wakes. */
__poll_t sor_tcp_poll(struct sor_conn *c, poll_table *wait)
{
	poll_table pt;

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
