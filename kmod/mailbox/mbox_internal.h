/* SPDX-License-Identifier: GPL-2.0 */
/* Shared between the mailbox driver core and its diagnostics device. */
#ifndef EUSRV_MBOX_INTERNAL_H
#define EUSRV_MBOX_INTERNAL_H

#include <linux/types.h>

struct eusrv_mbox_stats;

/* Fill the block and driver counters; -ENODEV without a mailbox. */
int eusrv_mbox_get_stats(struct eusrv_mbox_stats *st);
void eusrv_mbox_reset_stats(void);
/* Stop draining the inbound FIFO for MS milliseconds. */
int eusrv_mbox_pause(unsigned int ms);
/* Wait until every message sent so far has completed. */
int eusrv_mbox_flush(long timeout);
/* Nodes on the board, or 0 without a mailbox. */
unsigned int eusrv_mbox_nodes(void);

int eusrv_mbox_diag_init(void);
void eusrv_mbox_diag_exit(void);

#endif /* EUSRV_MBOX_INTERNAL_H */
