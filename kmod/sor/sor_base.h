/* SPDX-License-Identifier: GPL-2.0 */
/*
 * eusrv_sor base (sor_base.c): what every file of the driver shares and
 * that depends on none of them: the node-wide counters, the workqueue,
 * the layout of a receive block.  The layers above, lowest first:
 * sor_mem.h, sor_conn.h (the core), sor_data.h, sor_keepalive.h,
 * sor_nack.h, sor_setup.h, sor_rx.h (the protocol), sor_file.h (the
 * files); docs/development.md has the picture.
 */
#ifndef EUSRV_SOR_BASE_H
#define EUSRV_SOR_BASE_H

#include <linux/atomic.h>
#include <linux/mm.h>
#include <linux/printk.h>
#include <linux/types.h>
#include <linux/workqueue.h>

#include <uapi/eusrv/sor.h>
#include <eusrv/sor_msg.h>

/*
 * The receive block, [rcv hdr][kernel page][rcv data]: offsets from the
 * address ADDR names.  The nodes of a board share one page size.
 */
#define SOR_RCV_KTAIL_OFF	PAGE_SIZE
/*
 * The kernel page's other words, a cache line each: ours to set, an
 * engine's to swap with 0 (COND, docs/hardware.md 5.3).  ARM asks the
 * peer's engine for DATA with its next transfer (docs/protocol.md 4);
 * WANT asks our own engine for SENT at the end of ours, whose end it
 * stores at KSENT.
 */
#define SOR_RCV_ARM_OFF		(PAGE_SIZE + 64)
#define SOR_RCV_KSENT_OFF	(PAGE_SIZE + 128)
#define SOR_RCV_WANT_OFF	(PAGE_SIZE + 192)
#define SOR_RCV_DATA_OFF	(2 * PAGE_SIZE)

/* Node-wide counters, one per field of struct eusrv_sor_stats. */
enum sor_stat {
	SOR_S_OPENED,
	SOR_S_REFUSED,
	SOR_S_CONNECT_FAILED,
	SOR_S_BYTES_SENT,
	SOR_S_BYTES_RCVD,
	SOR_S_TRANSFERS,
	SOR_S_XFER_ERRORS,
	SOR_S_CREDITS_SENT,
	SOR_S_CREDITS_RCVD,
	SOR_S_NACKS_SENT,
	SOR_S_NACKS_RCVD,
	SOR_S_NACK_RESENDS,
	SOR_S_BAD_MSG,
	SOR_S_BAD_USER,
	SOR_S_PEER_RESETS,
	SOR_S_NOTES,
	SOR_S_ARMS_SENT,
	SOR_S_DATA_IRQS,
	SOR_S_RESETS_SENT,
	SOR_S_RESETS_RCVD,
	SOR_S_PROBES_SENT,
	SOR_S_LOCKS_FREED,
	SOR_NR_STATS
};

/* The crossings, one per counter of struct eusrv_sor_crossings, in order. */
enum sor_xstat {
	SOR_X_DOORBELLS,
	SOR_X_IRQS,
	SOR_X_PUSHES,
	SOR_X_WAITS,
	SOR_X_CREDITS,
	SOR_X_LOCK_CALLS,
	SOR_X_EMPTY_WAKES,
	SOR_X_POLL_EMPTY,
	SOR_X_MSGS_SENT,
	SOR_X_MSGS_RCVD,
	SOR_X_ARMS,
	SOR_NR_X
};

#define SOR_MSG_TYPES	16	/* struct eusrv_sor_stats msgs_sent[] */

extern atomic64_t sor_stats[SOR_NR_STATS];
extern atomic64_t sor_xstats[SOR_NR_X];		/* every connection's, summed */
extern atomic64_t sor_msgs_sent[SOR_MSG_TYPES];
extern atomic64_t sor_msgs_rcvd[SOR_MSG_TYPES];
extern struct workqueue_struct *sor_wq;

static inline void sor_count(enum sor_stat s)
{
	atomic64_inc(&sor_stats[s]);
}

/* A protocol message of TYPE sent (by the CPU or the engine) or received. */
static inline void sor_count_msg(atomic64_t *by_type, unsigned int type)
{
	if (type < SOR_MSG_TYPES)
		atomic64_inc(&by_type[type]);
}

static inline void sor_count_add(enum sor_stat s, u64 n)
{
	atomic64_add(n, &sor_stats[s]);
}

/* The ACK of a message that was bad: counted, logged, dropped. */
#define sor_bad(fmt, ...) do {						\
	sor_count(SOR_S_BAD_MSG);					\
	pr_debug_ratelimited(fmt, ##__VA_ARGS__);			\
} while (0)

/* sor_base.c */
int sor_node(void);
u64 sor_conn_ring_phys(void *p);

#endif /* EUSRV_SOR_BASE_H */
