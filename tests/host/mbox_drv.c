/* The node's side of the mailbox block for the tests (see mbox_drv.h). */
#include "mbox_drv.h"

#include <stddef.h>

static void *at(void *page, uint32_t off)
{
	return (char *)page + off;
}

uint32_t drv_rd32(void *page, uint32_t off)
{
	return __atomic_load_n((uint32_t *)at(page, off), __ATOMIC_ACQUIRE);
}

uint64_t drv_rd64(void *page, uint32_t off)
{
	return __atomic_load_n((uint64_t *)at(page, off), __ATOMIC_ACQUIRE);
}

void drv_wr32(void *page, uint32_t off, uint32_t v)
{
	__atomic_store_n((uint32_t *)at(page, off), v, __ATOMIC_RELEASE);
}

static uint32_t txq_off(uint32_t idx)
{
	return EUSRV_MBOX_TXQ + (idx % EUSRV_MBOX_TXQ_DEPTH) *
	       (uint32_t)sizeof(struct eusrv_mbox_txq_entry);
}

uint32_t drv_txq_free(void *page)
{
	uint32_t prod = drv_rd32(page, EUSRV_MBOX_TX_PROD);
	uint32_t cons = drv_rd32(page, EUSRV_MBOX_TX_CONS);

	return EUSRV_MBOX_TXQ_DEPTH - (prod - cons);
}

int64_t drv_post(void *page, uint64_t addr, uint64_t msg)
{
	return drv_post_flags(page, addr, msg, 0);
}

int64_t drv_post_flags(void *page, uint64_t addr, uint64_t msg, uint32_t flags)
{
	uint32_t prod = drv_rd32(page, EUSRV_MBOX_TX_PROD);
	uint32_t off = txq_off(prod);

	if (!drv_txq_free(page))
		return -1;
	__atomic_store_n((uint64_t *)at(page, off +
		offsetof(struct eusrv_mbox_txq_entry, addr)), addr,
		__ATOMIC_RELAXED);
	__atomic_store_n((uint64_t *)at(page, off +
		offsetof(struct eusrv_mbox_txq_entry, data)), msg,
		__ATOMIC_RELAXED);
	__atomic_store_n((uint32_t *)at(page, off +
		offsetof(struct eusrv_mbox_txq_entry, status)),
		EUSRV_MBOX_ST_PENDING, __ATOMIC_RELAXED);
	__atomic_store_n((uint32_t *)at(page, off +
		offsetof(struct eusrv_mbox_txq_entry, flags)), flags,
		__ATOMIC_RELAXED);
	drv_wr32(page, EUSRV_MBOX_TX_PROD, prod + 1);
	return prod;
}

uint32_t drv_status(void *page, uint32_t idx)
{
	return drv_rd32(page, txq_off(idx) +
			offsetof(struct eusrv_mbox_txq_entry, status));
}

bool drv_done(void *page, uint32_t idx)
{
	return (int32_t)(drv_rd32(page, EUSRV_MBOX_TX_CONS) - idx) > 0;
}

unsigned int drv_consume(void *page, struct eusrv_mbox_fifo_entry *out,
			 unsigned int max, bool *kick)
{
	uint32_t prod = drv_rd32(page, EUSRV_MBOX_RX_PROD);
	uint32_t cons = drv_rd32(page, EUSRV_MBOX_RX_CONS);
	unsigned int n = 0;

	while (cons != prod && n < max) {
		uint32_t off = EUSRV_MBOX_FIFO + (cons % EUSRV_MBOX_FIFO_DEPTH) *
			       (uint32_t)sizeof(struct eusrv_mbox_fifo_entry);

		out[n].msg = __atomic_load_n((uint64_t *)at(page, off +
			offsetof(struct eusrv_mbox_fifo_entry, msg)),
			__ATOMIC_RELAXED);
		out[n].src_node = __atomic_load_n((uint16_t *)at(page, off +
			offsetof(struct eusrv_mbox_fifo_entry, src_node)),
			__ATOMIC_RELAXED);
		n++;
		cons++;
	}
	drv_wr32(page, EUSRV_MBOX_RX_CONS, cons);
	/* Dekker with the model: publish RX_CONS, then look at RX_STALLED. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	*kick = drv_rd32(page, EUSRV_MBOX_RX_STALLED) != 0;
	return n;
}
