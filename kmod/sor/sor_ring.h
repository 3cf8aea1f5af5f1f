/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Ring arithmetic of sockets over RDMA (docs/protocol.md sections 1 and 4):
 * free-running 32-bit stream positions on power-of-two rings, the credit
 * window, the split of a transfer at the ring's end into at most two
 * extents, and the checks of positions that user space or a peer wrote.
 * No state, no hardware.
 */
#ifndef EUSRV_SOR_RING_H
#define EUSRV_SOR_RING_H

#include <linux/log2.h>
#include <linux/minmax.h>
#include <linux/types.h>

#include <eusrv/seq.h>

/* Bytes between two positions (B at or after A). */
static inline u32 sor_ring_dist(u32 a, u32 b)
{
	return b - a;
}

/* Offset of position POS in a ring of SIZE bytes (a power of two). */
static inline u32 sor_ring_off(u32 pos, u32 size)
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
static inline bool sor_ring_tail_ok(u32 head, u32 seen, u32 tail, u32 size)
{
	return eusrv_seq_within(seen, tail, head + size);
}

/*
 * A user-written receive head: forward from the last accepted one (SEEN),
 * never past the data that arrived (TAIL).
 */
static inline bool sor_ring_head_ok(u32 seen, u32 head, u32 tail)
{
	return eusrv_seq_within(seen, head, tail);
}

/*
 * A position a peer reported, its receive head in a CREDIT or the tail it
 * has seen in an ARM: between the last one (LAST) and what was sent so
 * far (SENT).
 */
static inline bool sor_ring_peer_pos_ok(u32 last, u32 pos, u32 sent)
{
	return eusrv_seq_within(last, pos, sent);
}

/*
 * A receive tail the peer's engine wrote (NEW_TAIL): forward from the one
 * we had (TAIL), never more than SIZE bytes beyond the head our last
 * credit named (REPORTED).  Equal is fine: nothing new.
 */
static inline bool sor_ring_new_tail_ok(u32 tail, u32 new_tail, u32 reported,
					u32 size)
{
	return eusrv_seq_within(tail, new_tail, reported + size);
}

/*
 * The credit left: how many bytes beyond END (sent so far) the receiver
 * has room for, by its last credit (its head PEER_HEAD); 0 when the window
 * is closed.  A PEER_HEAD past END is impossible (checked on arrival).
 */
static inline u32 sor_ring_window(u32 peer_head, u32 end, u32 size)
{
	u32 used = end - peer_head;

	return used >= size ? 0 : size - used;
}

/*
 * How much a transfer may move: what is queued (HEAD..TAIL) and what the
 * receiver has room for (its head PEER_HEAD plus SIZE), at most MAX.
 */
static inline u32 sor_ring_xfer_len(u32 head, u32 tail, u32 peer_head,
				    u32 size, u32 max)
{
	u32 queued = tail - head;
	u32 room = peer_head + size - head;

	if (queued > size || room > size)
		return 0;	/* impossible: the caller validated */
	return min3(queued, room, max);
}

struct sor_extent {
	u32 off;	/* offset in both rings (same size, same positions) */
	u32 len;
};

/*
 * Split LEN bytes from position POS of a SIZE-byte ring into extents that
 * do not cross the end: returns how many (0, 1 or 2).
 */
static inline unsigned int sor_ring_split(u32 pos, u32 len, u32 size,
					  struct sor_extent ext[2])
{
	u32 off = sor_ring_off(pos, size);
	u32 first;

	if (!len || len > size)
		return 0;
	first = min(len, size - off);
	ext[0].off = off;
	ext[0].len = first;
	if (first == len)
		return 1;
	ext[1].off = 0;
	ext[1].len = len - first;
	return 2;
}

#endif /* EUSRV_SOR_RING_H */
