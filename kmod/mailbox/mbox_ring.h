/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Ring arithmetic of the mailbox queues: free-running u32 producer and
 * consumer counters, slot = counter mod depth.  No hardware and no kernel
 * services here, so host tests and KUnit compile it as is.
 */
#ifndef EUSRV_MBOX_RING_H
#define EUSRV_MBOX_RING_H

#include <linux/types.h>

#include <eusrv/seq.h>

/* Entries between consumer and producer (correct across the u32 wrap). */
static inline u32 mbox_ring_used(u32 prod, u32 cons)
{
	return prod - cons;
}

/* Free slots; 0 when full or when the counters are impossible. */
static inline u32 mbox_ring_free(u32 prod, u32 cons, u32 depth)
{
	u32 used = mbox_ring_used(prod, cons);

	return used >= depth ? 0 : depth - used;
}

/* Counters the other side may legitimately show: 0..depth entries used. */
static inline bool mbox_ring_sane(u32 prod, u32 cons, u32 depth)
{
	return mbox_ring_used(prod, cons) <= depth;
}

static inline u32 mbox_ring_slot(u32 counter, u32 depth)
{
	return counter % depth;
}

#endif /* EUSRV_MBOX_RING_H */
