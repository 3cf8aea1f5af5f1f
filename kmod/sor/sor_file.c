// SPDX-License-Identifier: GPL-2.0
/*
 * eusrv_sor connection files: one anonymous-inode file per connection,
 * which user space puts in place of the socket's descriptor: its
 * operations, its release and the connection ioctls of uapi/eusrv/sor.h.
 * The mapping is sor_mmap.c's, read and write sor_rw.c's, poll and WAIT
 * sor_wait.c's.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/anon_inodes.h>
#include <linux/fcntl.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/pid_namespace.h>
#include <linux/module.h>
#include <linux/sockios.h>
#include <linux/splice.h>
#include <linux/uaccess.h>
#include <asm/ioctls.h>

#include "sor_data.h"
#include "sor_file.h"
#include "sor_nack.h"
#include "sor_fallback.h"
#include "sor_retire.h"

static int sor_file_release(struct inode *inode, struct file *file)
{
	struct sor_conn *c = file->private_data;

	sor_fallback_file_gone(c);
	if (sor_nack_release(c))
		sor_retire_try(c);
	wake_up_all(&c->lock_wq[EUSRV_SOR_LOCK_SEND]);
	wake_up_all(&c->lock_wq[EUSRV_SOR_LOCK_RECV]);
	sor_conn_put(c);	/* the file's */
	return 0;
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

/*
 * A file for connection C, in no descriptor table yet: the established
 * connection's, or a blocking CONNECT's own while it waits
 * (sor_early.c).  FLAGS: EUSRV_SOR_F_NONBLOCK.  One per connection.
 */
struct file *sor_file_new(struct sor_conn *c, u32 flags)
{
	int oflags = O_RDWR;
	struct file *file;

	/*
	 * Every ring user below takes the rings as there: a connection
	 * gets a file only with all of them, and they stay until its last
	 * reference (or, once it is TCP, until no ring code can run).
	 */
	if (WARN_ON_ONCE(!sor_conn_has_rings(c)))
		return ERR_PTR(-ENOMEM);
	if (flags & EUSRV_SOR_F_NONBLOCK)
		oflags |= O_NONBLOCK;
	kref_get(&c->ref);	/* the file's */
	c->has_file = true;
	c->pidns = get_pid_ns(task_active_pid_ns(current));
	file = anon_inode_getfile("[eusrv_sor]", &sor_file_fops, c, oflags);
	if (IS_ERR(file)) {
		c->has_file = false;
		sor_conn_put(c);
	}
	return file;
}

/* A descriptor reserved for a connection file, close-on-exec as FLAGS say. */
int sor_file_fd(u32 flags)
{
	return get_unused_fd_flags(flags & EUSRV_SOR_F_CLOEXEC ? O_CLOEXEC : 0);
}

/*
 * C's file (sor_file_new()) and a descriptor reserved for it in *FD, for
 * the caller to fd_install() once nothing can fail any more.
 */
struct file *sor_file_reserve(struct sor_conn *c, u32 flags, int *fd)
{
	struct file *file;

	*fd = sor_file_fd(flags);
	if (*fd < 0)
		return ERR_PTR(*fd);
	file = sor_file_new(c, flags);
	if (IS_ERR(file))
		put_unused_fd(*fd);
	return file;
}

/* A file for the established connection C: its descriptor, or an error. */
int sor_file_open(struct sor_conn *c, u32 flags)
{
	struct file *file;
	int fd;

	file = sor_file_reserve(c, flags, &fd);
	if (IS_ERR(file))
		return PTR_ERR(file);
	fd_install(fd, file);
	return fd;
}
