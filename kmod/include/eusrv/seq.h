/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Free-running u32 sequence counters, as every ring of the board uses them
 * (mailbox queues, sockets-over-RDMA stream positions): comparisons that
 * stay right across the wrap.  No kernel services, so host tests compile it.
 */
#ifndef EUSRV_SEQ_H
#define EUSRV_SEQ_H

#include <linux/types.h>

/* Whether X lies in [LO, HI], walking forward from LO (across the wrap). */
static inline bool eusrv_seq_within(u32 lo, u32 x, u32 hi)
{
	return x - lo <= hi - lo;
}

#endif /* EUSRV_SEQ_H */
