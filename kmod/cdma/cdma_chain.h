/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The CDMA driver's descriptor ring, without hardware access: one page of
 * CDMA_RING_SIZE descriptors permanently linked in a circle, free-running
 * head (next slot to fill) and tail (oldest slot in flight) counters,
 * checking and filling a transfer, and the in-order reclaim walk.  Shared
 * by the driver and its KUnit suite.
 */
#ifndef EUSRV_CDMA_CHAIN_H
#define EUSRV_CDMA_CHAIN_H

#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/types.h>
#include <asm/byteorder.h>

#include <eusrv/board_hw.h>
#include <eusrv/cdma.h>
#include <eusrv/cdma_hw.h>
#include <eusrv/mbox_msg.h>

#define CDMA_RING_SIZE		64U
#define CDMA_RING_BYTES		(CDMA_RING_SIZE * EUSRV_CDMA_DESC_SIZE)
/* Most descriptors one transfer takes: two extents, two stores, two messages. */
#define CDMA_XFER_MAX_DESC	8U
#define CDMA_PUT_SIZE		4U

/* One slot's bookkeeping; the first slot of a transfer carries it. */
struct cdma_slot {
	void (*failed)(void *ctx, int err);
	void *ctx;
	u8 nr;			/* descriptors of the transfer, 0 on other slots */
};

struct cdma_chain {
	struct eusrv_cdma_desc *ring;	/* CDMA_RING_SIZE descriptors */
	u64 ring_ga;			/* global address of ring[0] */
	u32 head;			/* next slot to fill (free-running) */
	u32 tail;			/* oldest slot in flight (free-running) */
	struct cdma_slot slot[CDMA_RING_SIZE];
};

static inline u32 cdma_slot_of(u32 idx)
{
	return idx % CDMA_RING_SIZE;
}

static inline u64 cdma_desc_ga(const struct cdma_chain *c, u32 idx)
{
	return c->ring_ga + (u64)cdma_slot_of(idx) * EUSRV_CDMA_DESC_SIZE;
}

static inline u32 cdma_chain_used(const struct cdma_chain *c)
{
	return c->head - c->tail;
}

/*
 * Free slots.  One slot always stays unused: the engine notices new work
 * by TAILDESC changing, which a hand-over of the whole ring would not do.
 */
static inline u32 cdma_chain_free(const struct cdma_chain *c)
{
	u32 used = cdma_chain_used(c);

	return used >= CDMA_RING_SIZE - 1 ? 0 : CDMA_RING_SIZE - 1 - used;
}

/*
 * Link the ring in a circle and mark every descriptor completed, so that
 * an engine that ever ran past TAILDESC would stop on a stale descriptor
 * instead of replaying old ones.  RING_GA must be 64-byte aligned.
 */
static inline void cdma_chain_init(struct cdma_chain *c,
				   struct eusrv_cdma_desc *ring, u64 ring_ga)
{
	u32 i;

	c->ring = ring;
	c->ring_ga = ring_ga;
	c->head = 0;
	c->tail = 0;
	for (i = 0; i < CDMA_RING_SIZE; i++) {
		u64 next = ring_ga + (u64)((i + 1) % CDMA_RING_SIZE) * EUSRV_CDMA_DESC_SIZE;

		memset(&ring[i], 0, sizeof(ring[i]));
		ring[i].next = cpu_to_le32(lower_32_bits(next));
		ring[i].next_msb = cpu_to_le32(upper_32_bits(next));
		ring[i].status = cpu_to_le32(EUSRV_CDMA_ST_CMPLT);
		c->slot[i].failed = NULL;
		c->slot[i].ctx = NULL;
		c->slot[i].nr = 0;
	}
}

/* Is [GA, GA + LEN) a RAM range of a node below NODES? */
static inline bool cdma_ram_range_ok(u64 ga, u32 len, unsigned int nodes)
{
	u64 local = EUSRV_GA_LOCAL(ga);

	if (ga >> (EUSRV_GA_NODE_SHIFT + 8) || EUSRV_GA_NODE(ga) >= nodes)
		return false;
	return local < EUSRV_GA_BLOCKS && len <= EUSRV_GA_BLOCKS - local;
}

/*
 * Check a transfer for a board of NODES nodes: the number of descriptors
 * it needs (1..CDMA_XFER_MAX_DESC), or -EINVAL.
 */
static inline int cdma_xfer_check(const struct eusrv_cdma_xfer *x,
				  unsigned int nodes)
{
	unsigned int i;

	if (!x || x->nr_ext > 2 || x->nr_put > 3 || x->nr_msg > 2 ||
	    !(x->nr_ext + x->nr_put + x->nr_msg))
		return -EINVAL;
	if (!nodes || nodes > EUSRV_MAX_NODES)
		return -EINVAL;
	for (i = 0; i < x->nr_ext; i++) {
		if (!x->ext[i].len || x->ext[i].len > EUSRV_CDMA_MAX_LEN ||
		    !cdma_ram_range_ok(x->ext[i].src, x->ext[i].len, nodes) ||
		    !cdma_ram_range_ok(x->ext[i].dst, x->ext[i].len, nodes))
			return -EINVAL;
	}
	for (i = 0; i < x->nr_put; i++) {
		if ((x->put[i].dst & (CDMA_PUT_SIZE - 1)) ||
		    !cdma_ram_range_ok(x->put[i].dst, CDMA_PUT_SIZE, nodes))
			return -EINVAL;
	}
	if (x->has_mark &&
	    (x->nr_msg != 2 || (x->mark.dst & (CDMA_PUT_SIZE - 1)) ||
	     !cdma_ram_range_ok(x->mark.dst, CDMA_PUT_SIZE, nodes)))
		return -EINVAL;
	for (i = 0; i < x->nr_msg; i++) {
		if (x->msg[i].node >= nodes ||
		    eusrv_msg_type(x->msg[i].msg) == EUSRV_MSG_T_INVALID)
			return -EINVAL;
		if (x->msg[i].cond &&
		    ((x->msg[i].cond & (CDMA_PUT_SIZE - 1)) ||
		     !cdma_ram_range_ok(x->msg[i].cond, CDMA_PUT_SIZE, nodes)))
			return -EINVAL;
	}
	return x->nr_ext + x->nr_put + x->nr_msg + x->has_mark;
}

static_assert(offsetof(struct eusrv_cdma_desc, sw[3]) == EUSRV_CDMA_DESC_COND_ADDR);

static inline void cdma_desc_set(struct eusrv_cdma_desc *d, u64 sa, u64 da,
				 u32 len)
{
	d->sa = cpu_to_le32(lower_32_bits(sa));
	d->sa_msb = cpu_to_le32(upper_32_bits(sa));
	d->da = cpu_to_le32(lower_32_bits(da));
	d->da_msb = cpu_to_le32(upper_32_bits(da));
	d->ctrl = cpu_to_le32(len);
	d->status = 0;
}

/* Descriptor IDX stores VAL (kept in its own padding) at DST. */
static inline void cdma_desc_put(struct cdma_chain *c, u32 idx, u64 dst, u32 val)
{
	struct eusrv_cdma_desc *d = &c->ring[cdma_slot_of(idx)];

	/* Little endian: the value is the first 4 bytes of sw[0]. */
	d->sw[0] = cpu_to_le64(val);
	cdma_desc_set(d, cdma_desc_ga(c, idx) + EUSRV_CDMA_DESC_SW, dst,
		      CDMA_PUT_SIZE);
}

/*
 * Put checked transfer X (N descriptors, cdma_xfer_check()) at the head:
 * data extents first, then the stores and the messages (the mark between
 * the two messages), each value kept in its own descriptor's padding.
 * The caller has made sure N slots are free.
 * Returns the index of the transfer's last descriptor (the new TAILDESC).
 */
static inline u32 cdma_chain_fill(struct cdma_chain *c,
				  const struct eusrv_cdma_xfer *x, unsigned int n)
{
	u32 first = c->head, idx = c->head;
	unsigned int i;

	for (i = 0; i < x->nr_ext; i++, idx++)
		cdma_desc_set(&c->ring[cdma_slot_of(idx)], x->ext[i].src,
			      x->ext[i].dst, x->ext[i].len);
	for (i = 0; i < x->nr_put; i++, idx++)
		cdma_desc_put(c, idx, x->put[i].dst, x->put[i].val);
	for (i = 0; i < x->nr_msg; i++, idx++) {
		struct eusrv_cdma_desc *d;

		if (i == 1 && x->has_mark)
			cdma_desc_put(c, idx++, x->mark.dst, x->mark.val);
		d = &c->ring[cdma_slot_of(idx)];

		d->sw[0] = cpu_to_le64(x->msg[i].msg);
		cdma_desc_set(d, cdma_desc_ga(c, idx) + EUSRV_CDMA_DESC_SW,
			      EUSRV_MBOX_INBOX_GA(x->msg[i].node), sizeof(u64));
		if (x->msg[i].cond) {
			/* COND_ADDR is the last of the padding, sw[3]. */
			d->sw[3] = cpu_to_le64(x->msg[i].cond);
			d->ctrl = cpu_to_le32(sizeof(u64) | EUSRV_CDMA_CTL_COND);
		}
	}
	for (i = 0; i < n; i++)
		c->slot[cdma_slot_of(first + i)].nr = 0;
	c->slot[cdma_slot_of(first)].nr = n;
	c->slot[cdma_slot_of(first)].failed = x->failed;
	c->slot[cdma_slot_of(first)].ctx = x->ctx;
	c->head = first + n;
	return first + n - 1;
}

/* STATUS of descriptor IDX as the engine left it. */
static inline u32 cdma_chain_status(const struct cdma_chain *c, u32 idx)
{
	return le32_to_cpu(READ_ONCE(c->ring[cdma_slot_of(idx)].status));
}

enum cdma_chain_end {
	CDMA_RECLAIM_EMPTY,	/* nothing in flight */
	CDMA_RECLAIM_BUSY,	/* the oldest transfer has not completed */
	CDMA_RECLAIM_ERROR,	/* the oldest transfer has an error status */
};

/*
 * Free the transfers at the tail whose descriptors all completed without
 * error, in order, stopping at the first that did not.  *FREED (may be
 * NULL) counts the transfers freed.  A transfer with a bad bookkeeping
 * count (broken ring) counts as an error.
 */
static inline enum cdma_chain_end cdma_chain_reclaim(struct cdma_chain *c,
						     unsigned int *freed)
{
	while (c->tail != c->head) {
		u32 n = c->slot[cdma_slot_of(c->tail)].nr, i;

		if (!n || n > CDMA_XFER_MAX_DESC || n > cdma_chain_used(c))
			return CDMA_RECLAIM_ERROR;
		for (i = 0; i < n; i++) {
			u32 st = cdma_chain_status(c, c->tail + i);

			if (st & EUSRV_CDMA_ST_ERR)
				return CDMA_RECLAIM_ERROR;
			if (!(st & EUSRV_CDMA_ST_CMPLT))
				return CDMA_RECLAIM_BUSY;
		}
		c->slot[cdma_slot_of(c->tail)].nr = 0;
		c->tail += n;
		if (freed)
			(*freed)++;
	}
	return CDMA_RECLAIM_EMPTY;
}

/* Whether a descriptor of the oldest transfer has a DMA error status. */
static inline bool cdma_chain_tail_dma_error(const struct cdma_chain *c)
{
	u32 n, i;

	if (c->tail == c->head)
		return false;
	n = c->slot[cdma_slot_of(c->tail)].nr;
	if (!n || n > CDMA_XFER_MAX_DESC || n > cdma_chain_used(c))
		return false;
	for (i = 0; i < n; i++)
		if (cdma_chain_status(c, c->tail + i) & EUSRV_CDMA_ST_ERR)
			return true;
	return false;
}

/* Message descriptor IDX: its destination node and message; false if it is none. */
static inline bool cdma_chain_msg_of(const struct cdma_chain *c, u32 idx,
				     unsigned int *node, u64 *msg)
{
	const struct eusrv_cdma_desc *d = &c->ring[cdma_slot_of(idx)];
	u64 da = (u64)le32_to_cpu(d->da_msb) << 32 | le32_to_cpu(d->da);

	/* A conditional one counts too: resent, it may wake for nothing. */
	if (da != EUSRV_MBOX_INBOX_GA(EUSRV_GA_NODE(da)) ||
	    (le32_to_cpu(d->ctrl) & ~EUSRV_CDMA_CTL_COND) != sizeof(u64))
		return false;
	*node = EUSRV_GA_NODE(da);
	*msg = le64_to_cpu(d->sw[0]);
	return true;
}

/*
 * The engine halted at descriptor GA (CURDESC) on a mailbox write of the
 * oldest transfer (a slave error: the FIFO refused it), every descriptor
 * before it complete: the index in the transfer of that first message not
 * delivered, the messages from it to the transfer's end being the ones
 * to send another way.  -1 if the halt is not that.
 */
static inline int cdma_chain_refused_msg(const struct cdma_chain *c, u64 ga)
{
	unsigned int node;
	u32 n, i, j, st = 0;
	u64 msg;

	if (c->tail == c->head)
		return -1;
	n = c->slot[cdma_slot_of(c->tail)].nr;
	if (!n || n > CDMA_XFER_MAX_DESC || n > cdma_chain_used(c))
		return -1;
	for (i = 0; i < n; i++) {
		st = cdma_chain_status(c, c->tail + i);
		if (cdma_desc_ga(c, c->tail + i) == ga)
			break;
		if (st != EUSRV_CDMA_ST_CMPLT)
			return -1;
	}
	if (i == n || st != (EUSRV_CDMA_ST_CMPLT | EUSRV_CDMA_ST_SLVERR) ||
	    !cdma_chain_msg_of(c, c->tail + i, &node, &msg))
		return -1;
	/* After it, messages and the mark only (a store of 4 bytes). */
	for (j = i + 1; j < n; j++)
		if (!cdma_chain_msg_of(c, c->tail + j, &node, &msg) &&
		    le32_to_cpu(c->ring[cdma_slot_of(c->tail + j)].ctrl) != CDMA_PUT_SIZE)
			return -1;
	return (int)i;
}

/*
 * Take the oldest transfer off the ring whatever its state (it failed, or
 * the engine is going away): its callback and context in *S.  False if
 * nothing is in flight.
 */
static inline bool cdma_chain_pop(struct cdma_chain *c, struct cdma_slot *s)
{
	struct cdma_slot *f;
	u32 n;

	if (c->tail == c->head)
		return false;
	f = &c->slot[cdma_slot_of(c->tail)];
	n = f->nr;
	if (!n || n > cdma_chain_used(c))
		n = 1;		/* broken bookkeeping: skip one slot */
	*s = *f;
	f->nr = 0;
	c->tail += n;
	return true;
}

/* Is a transfer with context CTX in flight? */
static inline bool cdma_chain_has_ctx(const struct cdma_chain *c, void *ctx)
{
	u32 i;

	for (i = c->tail; i != c->head; i++) {
		const struct cdma_slot *s = &c->slot[cdma_slot_of(i)];

		if (s->nr && s->ctx == ctx)
			return true;
	}
	return false;
}

#endif /* EUSRV_CDMA_CHAIN_H */
