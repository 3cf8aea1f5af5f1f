/* SPDX-License-Identifier: GPL-2.0 */
/*
 * eusrv_sor files, the top layer: connection files (sor_file.c, with
 * sor_mmap.c, sor_rw.c and sor_wait.c), the TCP
 * socket a failed background set-up turns into (sor_tcp.c), the lock
 * words shared with user space (sor_ulock.c), debugfs (sor_debugfs.c).
 * The control file and the module are sor_main.c.
 */
#ifndef EUSRV_SOR_FILE_H
#define EUSRV_SOR_FILE_H

#include <linux/fs.h>
#include <linux/poll.h>
#include <linux/types.h>

#include "sor_conn.h"
#include "sor_tcp.h"

/* sor_file.c */
struct file *sor_file_new(struct sor_conn *c, u32 flags);
int sor_file_fd(u32 flags);
struct file *sor_file_reserve(struct sor_conn *c, u32 flags, int *fd);
int sor_file_open(struct sor_conn *c, u32 flags);
void sor_file_info(struct sor_conn *c, struct eusrv_sor_info *in);
extern const struct file_operations sor_file_fops;

/* Whether FILE is connection C's file. */
static inline bool sor_file_of(const struct file *file, const struct sor_conn *c)
{
	return file && file->f_op == &sor_file_fops && file->private_data == c;
}

/* The mapping's parts (uapi/eusrv/sor.h): the send header is at 0. */
static inline u64 sor_map_snd_data(const struct sor_conn *c)
{
	return PAGE_SIZE;
}

static inline u64 sor_map_rcv_hdr(const struct sor_conn *c)
{
	return PAGE_SIZE + (u64)c->snd_size;
}

static inline u64 sor_map_rcv_data(const struct sor_conn *c)
{
	return sor_map_rcv_hdr(c) + PAGE_SIZE;
}

static inline u64 sor_map_len(const struct sor_conn *c)
{
	return sor_map_rcv_data(c) + c->rcv_size;
}

/* sor_mmap.c */
int sor_file_mmap(struct file *file, struct vm_area_struct *vma);

/* sor_rw.c */
ssize_t sor_file_read_iter(struct kiocb *iocb, struct iov_iter *to);
ssize_t sor_file_write_iter(struct kiocb *iocb, struct iov_iter *from);

/* sor_wait.c */
u32 sor_file_events(struct sor_conn *c);
__poll_t sor_file_poll(struct file *file, poll_table *wait);
long sor_ioc_wait(struct sor_conn *c, void __user *arg, bool file_nb);

#endif /* EUSRV_SOR_FILE_H */
