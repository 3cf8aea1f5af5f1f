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

#include <linux/const.h>
#include <linux/ioctl.h>
#include <linux/types.h>

#define EUSRV_MBOX_DIAG_MAX_NODES	16U
#define EUSRV_MBOX_DIAG_MAX_PING	1000000U	/* round trips per call */
#define EUSRV_MBOX_DIAG_MAX_PAUSE_MS	10000U
#define EUSRV_MBOX_DIAG_MAX_TIMEOUT_MS	60000U
#define EUSRV_MBOX_DIAG_DEF_TIMEOUT_MS	1000U		/* timeout_ms == 0 */

/* FLOOD: return once the last message is queued, not when all completed. */
#define EUSRV_MBOX_FLOOD_NOFLUSH	_BITUL(0)

/**
 * struct eusrv_mbox_ping - argument of EUSRV_MBOX_IOC_PING
 * @node: in: peer
 * @count: in: round trips, 1..MAX_PING
 * @timeout_ms: in: per round trip, 0..MAX_TIMEOUT_MS
 * @flags: in: must be 0
 * @samples: in: user pointer to COUNT __u32, RTT in ns
 * @done: out: round trips completed
 * @errors: out: replies with a wrong payload or source
 * @tx_status: out: EUSRV_MBOX_ST_* of an undelivered PING
 * @reserved: reserved, must be 0
 *
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
	__u32 node;
	__u32 count;
	__u32 timeout_ms;
	__u32 flags;
	__u64 samples;
	__u32 done;
	__u32 errors;
	__u32 tx_status;
	__u32 reserved;
};

/**
 * struct eusrv_mbox_flood - argument of EUSRV_MBOX_IOC_FLOOD
 * @node: in: peer
 * @count: in: messages
 * @timeout_ms: in: longest wait for queue space
 * @flags: in: 0 or EUSRV_MBOX_FLOOD_NOFLUSH
 * @sent: out: messages queued
 * @waits: out: times the outbound queue was full
 * @failed: out: messages the board could not deliver
 * @tx_status: out: EUSRV_MBOX_ST_* of the last failure
 *
 * FLOOD: COUNT SEQ messages to NODE as fast as the outbound queue takes
 * them, payload = the next sequence number for that destination.  Waits up
 * to timeout_ms for queue space, then for every message's completion
 * (unless NOFLUSH: then what the driver keeps must go out by itself).
 */
struct eusrv_mbox_flood {
	__u32 node;
	__u32 count;
	__u32 timeout_ms;
	__u32 flags;
	__u32 sent;
	__u32 waits;
	__u32 failed;
	__u32 tx_status;
};

/**
 * struct eusrv_mbox_seq_stats - what this node received in SEQ messages from
 *	one source
 * @received: messages
 * @dup: a sequence number seen before
 * @gap: sequence numbers still missing
 * @late: arrived after a higher one (out of order)
 * @last: highest sequence number; valid if @received
 */
struct eusrv_mbox_seq_stats {
	__u64 received;
	__u64 dup;
	__u64 gap;
	__u64 late;
	__u64 last;
};

/**
 * struct eusrv_mbox_stats - the mailbox's counters (EUSRV_MBOX_IOC_STATS)
 * @node_id: this node
 * @nodes: nodes on the board
 * @rx_total: messages delivered into this node's FIFO
 * @tx_total: messages this node sent successfully
 * @full_cnt: "FIFO full" events
 * @tx_wait_cnt: outbound entries that had to wait
 * @tx_err_cnt: outbound entries that failed
 * @bad_cnt: programming errors seen
 * @bad_last: the latest one's code (EUSRV_MBOX_BAD_*)
 * @tx_busy_cnt: NOWAIT entries refused by a full FIFO
 * @room_cnt: "room again" events
 * @reserved: reserved, 0
 * @rx_msgs: messages handed to a handler
 * @rx_unhandled: no handler for the type
 * @rx_invalid: type 0
 * @rx_bad_src: impossible source node
 * @rx_resync: FIFO skipped: impossible RX_PROD
 * @tx_msgs: messages queued
 * @tx_busy: sends refused: queue or backlog full
 * @tx_full: completions: FIFO full until timeout
 * @tx_decerr: completions: no such node
 * @tx_disabled: completions: destination not enabled
 * @tx_bad_status: completions with an unknown status
 * @tx_refused: completions: refused (BUSY), kept to resend
 * @tx_held: sends kept behind refused ones
 * @tx_resent: kept messages posted again
 * @rooms: "room again" events handled
 * @backlog: messages kept now, all destinations
 * @ping_stale: PONGs of an earlier, abandoned ping
 * @pong_unsent: PINGs not answered: outbound queue full
 * @pong_failed: PONGs the board could not deliver
 * @seq: the SEQ messages received, by source node
 *
 * @rx_total to @room_cnt are the block's registers: counted by the board
 * since it started; @rx_msgs to @backlog the driver's counters since the
 * mailbox was bound or reset; @ping_stale to @seq the diagnostics' own
 * counters since load or reset.
 */
struct eusrv_mbox_stats {
	__u32 node_id;
	__u32 nodes;
	__u64 rx_total;
	__u64 tx_total;
	__u32 full_cnt;
	__u32 tx_wait_cnt;
	__u32 tx_err_cnt;
	__u32 bad_cnt;
	__u32 bad_last;
	__u32 tx_busy_cnt;
	__u32 room_cnt;
	__u32 reserved;
	__u64 rx_msgs;
	__u64 rx_unhandled;
	__u64 rx_invalid;
	__u64 rx_bad_src;
	__u64 rx_resync;
	__u64 tx_msgs;
	__u64 tx_busy;
	__u64 tx_full;
	__u64 tx_decerr;
	__u64 tx_disabled;
	__u64 tx_bad_status;
	__u64 tx_refused;
	__u64 tx_held;
	__u64 tx_resent;
	__u64 rooms;
	__u64 backlog;
	__u64 ping_stale;
	__u64 pong_unsent;
	__u64 pong_failed;
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
