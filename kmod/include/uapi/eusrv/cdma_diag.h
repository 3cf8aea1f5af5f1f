/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * /dev/eusrv_cdma: diagnostics of the node's AXI CDMA engine (checked
 * copies to another node, a deliberate bad address, counters);
 * userspace/tools/eusrv-cdma.c is the front end.
 *
 * Every ioctl validates its argument: an unknown command fails with ENOTTY,
 * a bad field (including unknown flags and non-zero reserved fields) with
 * EINVAL; COPY, BADADDR and STATS fail with ENODEV while no engine is bound.
 */
#ifndef _UAPI_EUSRV_CDMA_DIAG_H
#define _UAPI_EUSRV_CDMA_DIAG_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define EUSRV_CDMA_DIAG_MAX_NODES	16U
#define EUSRV_CDMA_DIAG_MAX_LEN		0x100000U	/* bytes per copy: 1 MiB */
#define EUSRV_CDMA_DIAG_MAX_COUNT	1000000U	/* copies per call */
#define EUSRV_CDMA_DIAG_MAX_TIMEOUT_MS	60000U
#define EUSRV_CDMA_DIAG_DEF_TIMEOUT_MS	5000U		/* timeout_ms == 0 */

/* COPY flags */
#define EUSRV_CDMA_DIAG_F_NOVERIFY	0x1U	/* receiver acknowledges unchecked */
#define EUSRV_CDMA_DIAG_F_ALL		0x1U

/**
 * struct eusrv_cdma_copy - argument of EUSRV_CDMA_IOC_COPY
 * @node: in: destination node
 * @len: in: bytes per copy, 1..MAX_LEN
 * @count: in: copies, 1..MAX_COUNT
 * @seed: in: pattern seed
 * @flags: in: EUSRV_CDMA_DIAG_F_*
 * @timeout_ms: in: 0..MAX_TIMEOUT_MS
 * @done: out: copies whose local completion arrived
 * @good: out: copies the receiver found intact
 * @bad: out: copies the receiver found wrong
 * @failed: out: transfers the engine failed
 * @bytes: out: data bytes of the completed copies
 * @elapsed_ns: out: first submission to last completion
 *
 * COPY: COUNT copies of LEN bytes of a pattern (a function of SEED and the
 * byte's offset) from this node's diagnostic buffer into NODE's (which
 * may be this node), each followed by two mailbox messages the engine
 * writes: one to NODE, whose driver then checks the data and answers with
 * its verdict, and one to this node, which counts the copy as done.  Up to
 * 4 copies are in flight.  TIMEOUT_MS bounds every wait (for a verdict,
 * for descriptors, for the last completion).
 */
struct eusrv_cdma_copy {
	__u32 node;
	__u32 len;
	__u32 count;
	__u32 seed;
	__u32 flags;
	__u32 timeout_ms;
	__u32 done;
	__u32 good;
	__u32 bad;
	__u32 failed;
	__u64 bytes;
	__u64 elapsed_ns;
};

/**
 * struct eusrv_cdma_badaddr - argument of EUSRV_CDMA_IOC_BADADDR
 * @addr: in: destination, 0 = the default
 * @timeout_ms: in: 0..MAX_TIMEOUT_MS
 * @error: out: the errno the transfer failed with
 * @resets: out: engine resets so far
 * @reserved: reserved, must be 0
 *
 * BADADDR: one transfer to a global address that decodes to nothing
 * (ADDR, or 0 for node 0's local address EUSRV_GA_BLOCKS - 4096): the
 * engine must report it, the driver resets and recovers the engine.
 */
struct eusrv_cdma_badaddr {
	__u64 addr;
	__u32 timeout_ms;
	__s32 error;
	__u32 resets;
	__u32 reserved;
};

/**
 * struct eusrv_cdma_stats - the engine's counters (EUSRV_CDMA_IOC_STATS)
 * @node_id: this node
 * @nodes: nodes on the board
 * @hw_bytes: data bytes copied
 * @hw_descs: descriptors completed
 * @hw_msgs: mailbox messages written
 * @hw_errors: errors that halted the engine
 * @hw_waits: mailbox writes that met a full FIFO
 * @hw_bad_cnt: programming errors seen
 * @hw_bad_last: the latest one's code (EUSRV_CDMA_BAD_*)
 * @hw_refused: mailbox writes refused at once (full FIFO)
 * @reserved: reserved, 0
 * @sr: CDMASR now
 * @last_err_sr: CDMASR at the last error
 * @last_err_desc: CURDESC at the last error
 * @xfers: transfers queued
 * @completed: transfers completed
 * @failed: transfers failed (engine error)
 * @cancelled: transfers failed because the engine went away
 * @restarted: transfers restarted after another's error
 * @resets: engine resets after an error
 * @ring_waits: submissions that waited for descriptors
 * @irqs: interrupts
 * @resent: messages of refused writes sent by the mailbox
 * @rx_good: copies found intact, by source node
 * @rx_bad: copies found wrong, by source node
 *
 * The hw_ fields are the engine's (virtual-board) registers since the node
 * attached; @xfers to @resent the driver's counters since the engine was
 * bound or reset; @rx_good and @rx_bad the diagnostics' receiver's: copies
 * checked, per source node.
 */
struct eusrv_cdma_stats {
	__u32 node_id;
	__u32 nodes;
	__u64 hw_bytes;
	__u32 hw_descs;
	__u32 hw_msgs;
	__u32 hw_errors;
	__u32 hw_waits;
	__u32 hw_bad_cnt;
	__u32 hw_bad_last;
	__u32 hw_refused;
	__u32 reserved;
	__u32 sr;
	__u32 last_err_sr;
	__u64 last_err_desc;
	__u64 xfers;
	__u64 completed;
	__u64 failed;
	__u64 cancelled;
	__u64 restarted;
	__u64 resets;
	__u64 ring_waits;
	__u64 irqs;
	__u64 resent;
	__u64 rx_good[EUSRV_CDMA_DIAG_MAX_NODES];
	__u64 rx_bad[EUSRV_CDMA_DIAG_MAX_NODES];
};

#define EUSRV_CDMA_IOC_MAGIC	0xe6
#define EUSRV_CDMA_IOC_COPY	_IOWR(EUSRV_CDMA_IOC_MAGIC, 1, struct eusrv_cdma_copy)
#define EUSRV_CDMA_IOC_STATS	_IOR(EUSRV_CDMA_IOC_MAGIC, 2, struct eusrv_cdma_stats)
#define EUSRV_CDMA_IOC_BADADDR	_IOWR(EUSRV_CDMA_IOC_MAGIC, 3, struct eusrv_cdma_badaddr)
#define EUSRV_CDMA_IOC_RESET	_IO(EUSRV_CDMA_IOC_MAGIC, 4)

#endif /* _UAPI_EUSRV_CDMA_DIAG_H */
