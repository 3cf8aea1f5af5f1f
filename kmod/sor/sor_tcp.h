/* SPDX-License-Identifier: GPL-2.0 */
/*
 * eusrv_sor: the TCP socket a failed background set-up turns into, served
 * by the connection's file (sor_tcp.c).
 */
#ifndef EUSRV_SOR_TCP_H
#define EUSRV_SOR_TCP_H

#include <linux/fs.h>
#include <linux/poll.h>
#include <linux/types.h>

struct kiocb;
struct iov_iter;
struct sor_conn;

ssize_t sor_tcp_rw(struct sor_conn *c, struct kiocb *iocb,
		   struct iov_iter *iter, bool write);
__poll_t sor_tcp_poll(struct sor_conn *c, poll_table *wait);
long sor_tcp_ioctl(struct sor_conn *c, unsigned int cmd, unsigned long arg);
long sor_tcp_compat_ioctl(struct sor_conn *c, unsigned int cmd,
			  unsigned long arg);
int sor_tcp_socket_fd(struct sor_conn *c);
int sor_tcp_started(struct sor_conn *c, int err);

/* sor_ulock.c: the rings' lock words shared with user space. */
void sor_ulock_note_ns(struct sor_conn *c);
int sor_ulock_wait(struct sor_conn *c, u32 which);
void sor_ulock_wake(struct sor_conn *c, u32 which);
int sor_ulock_take(struct sor_conn *c, u32 which);
void sor_ulock_give(struct sor_conn *c, u32 which);

/* sor_debugfs.c */
void sor_debugfs_init(void);
void sor_debugfs_exit(void);

void sor_tcp_watch(struct sor_conn *c);
void sor_tcp_bg_free(struct sor_conn *c);

#endif /* EUSRV_SOR_TCP_H */
