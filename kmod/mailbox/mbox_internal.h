/* SPDX-License-Identifier: GPL-2.0 */
/* What the mailbox driver exports to its tester, eusrv_mbox_diag (mbox_diag.c). */
#ifndef EUSRV_MBOX_INTERNAL_H
#define EUSRV_MBOX_INTERNAL_H

#include <linux/types.h>

struct eusrv_mbox_stats;

/* Fill the block's and the core's counters; -ENODEV without a mailbox. */
int eusrv_mbox_get_stats(struct eusrv_mbox_stats *st);
void eusrv_mbox_reset_stats(void);
/* Stop draining the inbound FIFO for MS milliseconds; -ENODEV, or 0. */
int eusrv_mbox_pause(unsigned int ms);
/*
 * Wait up to TIMEOUT jiffies until every message queued so far has
 * completed: 0, -ETIMEDOUT, -ERESTARTSYS or -ENODEV.
 */
int eusrv_mbox_flush(long timeout);

#endif /* EUSRV_MBOX_INTERNAL_H */
