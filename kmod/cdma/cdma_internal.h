/* SPDX-License-Identifier: GPL-2.0 */
/* What the CDMA driver exports to its tester, eusrv_cdma_diag (cdma_diag.c). */
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
int eusrv_cdma_get_stats(struct eusrv_cdma_stats *st);
void eusrv_cdma_reset_stats(void);
/*
 * The bound engine's diagnostic buffers, valid until the matching
 * eusrv_cdma_put_bufs(); -ENODEV without an engine or buffers.
 */
int eusrv_cdma_get_bufs(struct cdma_diag_bufs *b);
void eusrv_cdma_put_bufs(void);
/* Nodes on the board, or 0 without an engine. */
unsigned int eusrv_cdma_nodes(void);

#endif /* EUSRV_CDMA_INTERNAL_H */
