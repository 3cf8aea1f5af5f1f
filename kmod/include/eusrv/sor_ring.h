/* SPDX-License-Identifier: (GPL-2.0 OR MIT) */
/*
 * The ring of sockets over RDMA, once for everyone who uses it: the
 * driver's data path and its read()/write() slow path, the library's
 * mapped-ring I/O (userspace/sor/ring.c), KUnit and the host tests.
 * docs/protocol.md sections 1 and 4 are the protocol; this is its
 * arithmetic and its decisions, with no state and no hardware.
 *
 * Positions are free-running 32-bit stream offsets on a power-of-two ring
 * of SIZE bytes; a position's byte is at pos & (size - 1).  Each field of
 * a ring header (struct eusrv_sor_ring_hdr) has one writer, and a value
 * crosses from writer to reader as a release store and an acquire load.
 * One message, in order:
 *
 *   writer (user space, or the driver's write()), under the send lock:
 *     1. data into the send ring at tail
 *     2. tail += n                       (release)
 *     3. full barrier; if need_push: PUSH
 *   driver, sending side:
 *     4. tail                            (acquire; sor_ring_tail_ok)
 *     5. the engine's chain: data into the peer's receive ring, then the
 *        new tail into the peer's kernel page (the value the peer's
 *        driver trusts) and into its header (what a spinning reader
 *        sees), then the transfer's end into our own ksent word
 *   reader (user space, or the driver's read()), under the receive lock:
 *     6. tail                            (acquire)
 *     7. data out of the receive ring at head
 *     8. head += n                       (release); CREDIT when
 *        eusrv_sor_credit_due() says the writer may run short
 *   driver, receiving side:
 *     9. head                            (acquire; sor_ring_head_ok),
 *        and the credit to the peer, which moves its send head
 *
 * The driver's flags (ERROR, EOF, SHUT, PEER_CLOSED) are stored with
 * release; a reader takes what is there before it looks at them, and
 * reads the tail again once EOF is set (it is final then).
 */
#ifndef EUSRV_SOR_RING_H
#define EUSRV_SOR_RING_H

#include <linux/types.h>
#ifndef __KERNEL__
#include <stdbool.h>
#endif

#include <eusrv/seq.h>

/* Bytes between two positions (B at or after A). */
static inline __u32 sor_ring_dist(__u32 a, __u32 b)
{
	return b - a;
}

/*
 * Whether HEAD and TAIL, as read (one by each side), can be a ring of SIZE
 * bytes: at most SIZE bytes between them.  A pair that cannot is a peer's
 * or another process's write seen half-way, or a corrupt header.
 */
static inline bool sor_ring_used_ok(__u32 head, __u32 tail, __u32 size)
{
	return tail - head <= size;
}

/* The room beyond TAIL, HEAD..TAIL in use (sor_ring_used_ok() holds). */
static inline __u32 sor_ring_room(__u32 head, __u32 tail, __u32 size)
{
	return size - (tail - head);
}

/* Offset of position POS in a ring of SIZE bytes (a power of two). */
static inline __u32 sor_ring_off(__u32 pos, __u32 size)
{
	return pos & (size - 1);
}

static inline bool sor_ring_shift_ok(unsigned int shift, unsigned int min,
				     unsigned int max)
{
	return shift >= min && shift <= max;
}

/*
 * A user-written send tail: it may only move forward from the last value
 * the kernel accepted (SEEN), and at most SIZE bytes ahead of the peer's
 * confirmed head (HEAD <= SEEN).
 */
static inline bool sor_ring_tail_ok(__u32 head, __u32 seen, __u32 tail, __u32 size)
{
	return eusrv_seq_within(seen, tail, head + size);
}

/*
 * A user-written receive head: forward from the last accepted one (SEEN),
 * never past the data that arrived (TAIL).
 */
static inline bool sor_ring_head_ok(__u32 seen, __u32 head, __u32 tail)
{
	return eusrv_seq_within(seen, head, tail);
}

/*
 * A position a peer reported, its receive head in a CREDIT or the tail it
 * has seen in an ARM: between the last one (LAST) and what was sent so
 * far (SENT).
 */
static inline bool sor_ring_peer_pos_ok(__u32 last, __u32 pos, __u32 sent)
{
	return eusrv_seq_within(last, pos, sent);
}

/*
 * A receive tail the peer's engine wrote (NEW_TAIL): forward from the one
 * we had (TAIL), never more than SIZE bytes beyond the head our last
 * credit named (REPORTED).  Equal is fine: nothing new.
 */
static inline bool sor_ring_new_tail_ok(__u32 tail, __u32 new_tail, __u32 reported,
					__u32 size)
{
	return eusrv_seq_within(tail, new_tail, reported + size);
}

/*
 * The credit left: how many bytes beyond END (sent so far) the receiver
 * has room for, by its last credit (its head PEER_HEAD); 0 when the window
 * is closed.  A PEER_HEAD past END is impossible (checked on arrival).
 */
static inline __u32 sor_ring_window(__u32 peer_head, __u32 end, __u32 size)
{
	__u32 used = end - peer_head;

	return used >= size ? 0 : size - used;
}

/*
 * How much a transfer may move: what is queued (HEAD..TAIL) and what the
 * receiver has room for (its head PEER_HEAD plus SIZE), at most MAX.
 */
static inline __u32 sor_ring_xfer_len(__u32 head, __u32 tail, __u32 peer_head,
				      __u32 size, __u32 max)
{
	__u32 queued = tail - head;
	__u32 room = peer_head + size - head;

	if (queued > size || room > size)
		return 0;	/* impossible: the caller validated */
	if (room < queued)
		queued = room;
	return queued < max ? queued : max;
}

struct sor_extent {
	__u32 off;	/* offset in both rings (same size, same positions) */
	__u32 len;
};

/*
 * Split LEN bytes from position POS of a SIZE-byte ring into extents that
 * do not cross the end: returns how many (0, 1 or 2).
 */
static inline unsigned int sor_ring_split(__u32 pos, __u32 len, __u32 size,
					  struct sor_extent ext[2])
{
	__u32 off = sor_ring_off(pos, size);
	__u32 first;

	if (!len || len > size)
		return 0;
	first = size - off < len ? size - off : len;
	ext[0].off = off;
	ext[0].len = first;
	if (first == len)
		return 1;
	ext[1].off = 0;
	ext[1].len = len - first;
	return 2;
}

/*
 * The decisions of a receive and a send, one round at a time: what the
 * driver's read() and write() and the library's mapped I/O both follow.
 * A receive takes whatever data is there first, so that nothing that
 * arrived before an error or the end is lost; only with nothing (more)
 * to take does it ask sor_ring_recv_step().  A send asks
 * sor_ring_send_step() before it puts anything in: nothing goes into the
 * ring of a connection that failed or ended.
 */
enum sor_ring_step {
	SOR_RING_GO,		/* a send may put data in (as room allows) */
	SOR_RING_ERROR,		/* end with the connection's error */
	SOR_RING_END,		/* end: EOF for a receive, EPIPE for a send */
	SOR_RING_WAIT,		/* a receive waits for data */
};

/*
 * Nothing to take: the connection failed (ERROR), its data ended (ENDED:
 * EOF, or shut down for reading), or the receive waits.
 */
static inline enum sor_ring_step sor_ring_recv_step(bool error, bool ended)
{
	if (error)
		return SOR_RING_ERROR;
	return ended ? SOR_RING_END : SOR_RING_WAIT;
}

/*
 * Before putting data in: the connection failed (ERROR), it is closed for
 * sending (CLOSED: shut down here, or the peer closed), or the send goes
 * on (and waits for room if there is none).
 */
static inline enum sor_ring_step sor_ring_send_step(bool error, bool closed)
{
	if (error)
		return SOR_RING_ERROR;
	return closed ? SOR_RING_END : SOR_RING_GO;
}

#endif /* EUSRV_SOR_RING_H */
