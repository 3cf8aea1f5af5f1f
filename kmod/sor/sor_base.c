// SPDX-License-Identifier: GPL-2.0
/*
 * eusrv_sor base: what every other file of the driver uses and that uses
 * none of them: the node-wide counters, the driver's workqueue (made and
 * destroyed by the module, sor_main.c), this node's number and the
 * physical address of ring memory.
 */
#include <linux/atomic.h>
#include <linux/io.h>
#include <linux/workqueue.h>

#include <eusrv/mbox.h>

#include "sor_base.h"

atomic64_t sor_stats[SOR_NR_STATS];
atomic64_t sor_xstats[SOR_NR_X];
atomic64_t sor_msgs_sent[SOR_MSG_TYPES];
atomic64_t sor_msgs_rcvd[SOR_MSG_TYPES];
struct workqueue_struct *sor_wq;

int sor_node(void)
{
	return eusrv_mbox_node_id();
}

u64 sor_conn_ring_phys(void *p)
{
	return (u64)virt_to_phys(p);
}
