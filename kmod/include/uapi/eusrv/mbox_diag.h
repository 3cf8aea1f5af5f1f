/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * /dev/eusrv_mbox: mailbox diagnostics (ping-pong, flood, counters) for
 * tests and users; see userspace/tools/eusrv-mbox.c.
 */
#ifndef _UAPI_EUSRV_MBOX_DIAG_H
#define _UAPI_EUSRV_MBOX_DIAG_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define EUSRV_MBOX_DIAG_MAX_NODES	16
#define EUSRV_MBOX_DIAG_MAX_PING	1000000U	/* round trips per call */
#define EUSRV_MBOX_DIAG_MAX_PAUSE_MS	10000U
#define EUSRV_MBOX_DIAG_MAX_TIMEOUT_MS	60000U

struct eusrv_mbox_ping {
	__u32 node;		/* in: peer */
	__u32 count;		/* in: round trips, 1..MAX_PING */
	__u32 timeout_ms;	/* in: per round trip, 0 = 1000 */
	__u32 done;		/* out: round trips completed */
	__u32 errors;		/* out: replies with a wrong payload or source */
	__u32 reserved;		/* must be 0 */
	__u64 samples;		/* in: user pointer to count __u32 (ns) */
};

struct eusrv_mbox_flood {
	__u32 node;		/* in: peer */
	__u32 count;		/* in: messages */
	__u32 timeout_ms;	/* in: longest wait for queue space, 0 = 1000 */
	__u32 sent;		/* out: messages queued */
	__u32 waits;		/* out: times the outbound queue was full */
	__u32 failed;		/* out: messages the board could not deliver */
};

struct eusrv_mbox_seq_stats {
	__u64 received;
	__u64 dup;		/* sequence number already seen */
	__u64 gap;		/* sequence numbers skipped */
	__u64 next;		/* next expected sequence number */
};

struct eusrv_mbox_stats {
	__u32 node_id;
	__u32 nodes;
	/* The block's registers. */
	__u64 rx_total;
	__u64 tx_total;
	__u32 full_cnt;
	__u32 tx_wait_cnt;
	__u32 tx_err_cnt;
	__u32 bad_cnt;
	__u32 bad_last;
	__u32 reserved;
	/* The driver's counters since load or the last reset. */
	__u64 rx_msgs;
	__u64 rx_unhandled;	/* no handler for the type */
	__u64 rx_bad_src;	/* impossible source node */
	__u64 tx_msgs;
	__u64 tx_busy;		/* sends refused: outbound queue full */
	__u64 tx_failed;	/* completions with an error status */
	struct eusrv_mbox_seq_stats seq[EUSRV_MBOX_DIAG_MAX_NODES];
};

#define EUSRV_MBOX_IOC_MAGIC	0xe5
#define EUSRV_MBOX_IOC_PING	_IOWR(EUSRV_MBOX_IOC_MAGIC, 1, struct eusrv_mbox_ping)
#define EUSRV_MBOX_IOC_FLOOD	_IOWR(EUSRV_MBOX_IOC_MAGIC, 2, struct eusrv_mbox_flood)
#define EUSRV_MBOX_IOC_STATS	_IOR(EUSRV_MBOX_IOC_MAGIC, 3, struct eusrv_mbox_stats)
#define EUSRV_MBOX_IOC_RESET	_IO(EUSRV_MBOX_IOC_MAGIC, 4)
#define EUSRV_MBOX_IOC_PAUSE	_IOW(EUSRV_MBOX_IOC_MAGIC, 5, __u32)

#endif /* _UAPI_EUSRV_MBOX_DIAG_H */
