/* SPDX-License-Identifier: GPL-2.0 */
/*
 * eusrv_sor files, the top layer: connection files (sor_file.c), the TCP
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
int sor_file_open(struct sor_conn *c, u32 flags);
void sor_file_info(struct sor_conn *c, struct eusrv_sor_info *in);
extern const struct file_operations sor_file_fops;

/* Whether FILE is connection C's file. */
static inline bool sor_file_of(const struct file *file, const struct sor_conn *c)
{
	return file && file->f_op == &sor_file_fops && file->private_data == c;
}

#endif /* EUSRV_SOR_FILE_H */
