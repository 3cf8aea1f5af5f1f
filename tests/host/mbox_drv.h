/*
 * The node's side of the mailbox block for the tests, written from
 * board_hw.h like a driver would: post stores to the outbound queue and
 * consume the inbound FIFO of a mailbox page.
 */
#ifndef EUSRV_TEST_MBOX_DRV_H
#define EUSRV_TEST_MBOX_DRV_H

#include <stdbool.h>
#include <stdint.h>

#include <eusrv/board_hw.h>

uint32_t drv_rd32(void *page, uint32_t off);
uint64_t drv_rd64(void *page, uint32_t off);
void drv_wr32(void *page, uint32_t off, uint32_t v);

/* Free outbound entries. */
uint32_t drv_txq_free(void *page);
/*
 * Post a store of MSG to global address ADDR; returns the entry's index
 * (the TX_PROD value it got), or -1 if the queue is full.
 */
int64_t drv_post(void *page, uint64_t addr, uint64_t msg);
/* The same with EUSRV_MBOX_TXF_* FLAGS. */
int64_t drv_post_flags(void *page, uint64_t addr, uint64_t msg, uint32_t flags);
/* Status of outbound entry IDX. */
uint32_t drv_status(void *page, uint32_t idx);
/* Has the model completed entry IDX (TX_CONS past it)? */
bool drv_done(void *page, uint32_t idx);

/*
 * Consume up to MAX inbound entries into OUT; returns the number.  *KICK
 * tells whether the model has stores waiting (RX_STALLED), in which case
 * the caller must kick EUSRV_VEC_MBOX.
 */
unsigned int drv_consume(void *page, struct eusrv_mbox_fifo_entry *out,
			 unsigned int max, bool *kick);

#endif /* EUSRV_TEST_MBOX_DRV_H */
