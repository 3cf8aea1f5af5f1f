/* SPDX-License-Identifier: GPL-2.0 */
/* Shared between the CDMA driver core and its diagnostics device. */
#ifndef EUSRV_CDMA_INTERNAL_H
#define EUSRV_CDMA_INTERNAL_H

#include <linux/sizes.h>
#include <linux/types.h>

struct eusrv_cdma_stats;

/* The diagnostics' DMA buffers of the bound engine. */
struct cdma_diag_bufs {
	void *tx;		/* CDMA_DIAG_TX_SIZE bytes */
	u64 tx_ga;
	void *rx;		/* CDMA_DIAG_RX_SIZE bytes */
	u64 rx_ga;
};

#define CDMA_DIAG_SLOTS		4U
#define CDMA_DIAG_SLOT_SIZE	SZ_1M
#define CDMA_DIAG_TX_SIZE	SZ_2M
#define CDMA_DIAG_RX_SIZE	(CDMA_DIAG_SLOTS * CDMA_DIAG_SLOT_SIZE)

/* Fill the engine's and the driver's counters; -ENODEV without an engine. */
int cdma_get_stats(struct eusrv_cdma_stats *st);
void cdma_reset_stats(void);
/*
 * The bound engine's diagnostic buffers, valid until the matching
 * cdma_put_bufs(); -ENODEV without an engine or buffers.
 */
int cdma_get_bufs(struct cdma_diag_bufs *b);
void cdma_put_bufs(void);
/* Nodes on the board, or 0 without an engine. */
unsigned int cdma_nodes(void);

int cdma_diag_init(void);
void cdma_diag_exit(void);

#endif /* EUSRV_CDMA_INTERNAL_H */
