/* SPDX-License-Identifier: (GPL-2.0 OR MIT) */
/*
 * Free-running u32 sequence counters, as every ring of the board uses them
 * (mailbox queues, sockets-over-RDMA stream positions): comparisons that
 * stay right across the wrap.  No kernel services: user space, host tests
 * and KUnit compile it alike.
 */
#ifndef EUSRV_SEQ_H
#define EUSRV_SEQ_H

#include <linux/types.h>
#ifndef __KERNEL__
#include <stdbool.h>
#endif

/* Whether X lies in [LO, HI], walking forward from LO (across the wrap). */
static inline bool eusrv_seq_within(__u32 lo, __u32 x, __u32 hi)
{
	return x - lo <= hi - lo;
}

#endif /* EUSRV_SEQ_H */
