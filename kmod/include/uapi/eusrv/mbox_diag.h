/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * /dev/eusrv_mbox: mailbox diagnostics (ping-pong, flood, counters, FIFO
 * pause) for tests and users; userspace/tools/eusrv-mbox.c is the front end.
 *
 * Every ioctl validates its argument: an unknown command fails with ENOTTY,
 * a bad field (including non-zero flags or reserved fields) with EINVAL;
 * PING, FLOOD, STATS and PAUSE fail with ENODEV while no mailbox is bound.
 */
#ifndef _UAPI_EUSRV_MBOX_DIAG_H
#define _UAPI_EUSRV_MBOX_DIAG_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define EUSRV_MBOX_DIAG_MAX_NODES	16U
#define EUSRV_MBOX_DIAG_MAX_PING	1000000U	/* round trips per call */
#define EUSRV_MBOX_DIAG_MAX_PAUSE_MS	10000U
#define EUSRV_MBOX_DIAG_MAX_TIMEOUT_MS	60000U
#define EUSRV_MBOX_DIAG_DEF_TIMEOUT_MS	1000U		/* timeout_ms == 0 */

/*
 * PING: COUNT round trips to NODE, one at a time.  Round trip i sends a
 * PING message with payload i; the peer's driver answers from its interrupt
 * handler with a PONG carrying the same connection id and payload.  A
 * round trip's time runs from just before the PING is queued to the PONG's
 * arrival in this node's interrupt handler.  The
 * call stops at the first round trip that times out (ETIMEDOUT) or whose
 * PING the board could not deliver (tx_status says why: ENOBUFS for FULL,
 * EHOSTUNREACH for DECERR, ECONNREFUSED for DISABLED).
 */
struct eusrv_mbox_ping {
	__u32 node;		/* in: peer */
	__u32 count;		/* in: round trips, 1..MAX_PING */
	__u32 timeout_ms;	/* in: per round trip, 0..MAX_TIMEOUT_MS */
	__u32 flags;		/* in: must be 0 */
	__u64 samples;		/* in: user pointer to COUNT __u32, RTT in ns */
	__u32 done;		/* out: round trips completed */
	__u32 errors;		/* out: replies with a wrong payload or source */
	__u32 tx_status;	/* out: EUSRV_MBOX_ST_* of an undelivered PING */
	__u32 reserved;		/* must be 0 */
};

/*
 * FLOOD: COUNT SEQ messages to NODE as fast as the outbound queue takes
 * them, payload = the next sequence number for that destination.  Waits up
 * to timeout_ms for queue space, then for every message's completion.
 */
struct eusrv_mbox_flood {
	__u32 node;		/* in: peer */
	__u32 count;		/* in: messages */
	__u32 timeout_ms;	/* in: longest wait for queue space */
	__u32 flags;		/* in: must be 0 */
	__u32 sent;		/* out: messages queued */
	__u32 waits;		/* out: times the outbound queue was full */
	__u32 failed;		/* out: messages the board could not deliver */
	__u32 tx_status;	/* out: EUSRV_MBOX_ST_* of the last failure */
};

/* What this node received in SEQ messages from one source. */
struct eusrv_mbox_seq_stats {
	__u64 received;
	__u64 dup;		/* a sequence number seen before */
	__u64 gap;		/* sequence numbers still missing */
	__u64 late;		/* arrived after a higher one (out of order) */
	__u64 last;		/* highest sequence number; valid if received */
};

struct eusrv_mbox_stats {
	__u32 node_id;
	__u32 nodes;
	/* The block's registers: counted by the board since it started. */
	__u64 rx_total;
	__u64 tx_total;
	__u32 full_cnt;
	__u32 tx_wait_cnt;
	__u32 tx_err_cnt;
	__u32 bad_cnt;
	__u32 bad_last;
	__u32 tx_busy_cnt;	/* NOWAIT entries refused by a full FIFO */
	__u32 room_cnt;		/* "room again" events */
	__u32 reserved;
	/* The driver's counters since the mailbox was bound or reset. */
	__u64 rx_msgs;		/* messages handed to a handler */
	__u64 rx_unhandled;	/* no handler for the type */
	__u64 rx_invalid;	/* type 0 */
	__u64 rx_bad_src;	/* impossible source node */
	__u64 rx_resync;	/* FIFO skipped: impossible RX_PROD */
	__u64 tx_msgs;		/* messages queued */
	__u64 tx_busy;		/* sends refused: queue or backlog full */
	__u64 tx_full;		/* completions: FIFO full until timeout */
	__u64 tx_decerr;	/* completions: no such node */
	__u64 tx_disabled;	/* completions: destination not enabled */
	__u64 tx_bad_status;	/* completions with an unknown status */
	__u64 tx_refused;	/* completions: refused (BUSY), kept to resend */
	__u64 tx_held;		/* sends kept behind refused ones */
	__u64 tx_resent;	/* kept messages posted again */
	__u64 rooms;		/* "room again" events handled */
	__u64 backlog;		/* messages kept now, all destinations */
	/* The diagnostics' own counters since load or reset. */
	__u64 ping_stale;	/* PONGs of an earlier, abandoned ping */
	__u64 pong_unsent;	/* PINGs not answered: outbound queue full */
	__u64 pong_failed;	/* PONGs the board could not deliver */
	struct eusrv_mbox_seq_stats seq[EUSRV_MBOX_DIAG_MAX_NODES];
};

#define EUSRV_MBOX_IOC_MAGIC	0xe5
#define EUSRV_MBOX_IOC_PING	_IOWR(EUSRV_MBOX_IOC_MAGIC, 1, struct eusrv_mbox_ping)
#define EUSRV_MBOX_IOC_FLOOD	_IOWR(EUSRV_MBOX_IOC_MAGIC, 2, struct eusrv_mbox_flood)
#define EUSRV_MBOX_IOC_STATS	_IOR(EUSRV_MBOX_IOC_MAGIC, 3, struct eusrv_mbox_stats)
#define EUSRV_MBOX_IOC_RESET	_IO(EUSRV_MBOX_IOC_MAGIC, 4)
/* Stop draining the inbound FIFO for 1..MAX_PAUSE_MS milliseconds. */
#define EUSRV_MBOX_IOC_PAUSE	_IOW(EUSRV_MBOX_IOC_MAGIC, 5, __u32)

#endif /* _UAPI_EUSRV_MBOX_DIAG_H */
