/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The messages for one destination that its FIFO refused (status BUSY,
 * docs/hardware.md section 3.5) and those sent after them, kept in order
 * until they are posted again.  A refused message comes back from the
 * outbound queue after later messages were kept here, yet it is older
 * than all of them: it was posted before any of them.  So it goes in
 * first, behind only the messages refused since the last one was taken
 * (which were posted before it).  No hardware and no kernel services, so
 * host tests and KUnit compile it as is.
 */
#ifndef EUSRV_MBOX_BACKLOG_H
#define EUSRV_MBOX_BACKLOG_H

#include <linux/types.h>

#include <eusrv/board_hw.h>

#define MBOX_BACKLOG_DEPTH	128U

struct mbox_backlog {
	u64 msg[MBOX_BACKLOG_DEPTH];
	u32 first;		/* slot of the oldest message */
	u32 len;		/* messages kept */
	u32 refused;		/* the oldest REFUSED came back since the last take */
};

static inline u32 mbox_backlog_slot(const struct mbox_backlog *b, u32 i)
{
	return (b->first + i) % MBOX_BACKLOG_DEPTH;
}

static inline u32 mbox_backlog_room(const struct mbox_backlog *b)
{
	return MBOX_BACKLOG_DEPTH - b->len;
}

/* Keep MSG after every message here; false when full. */
static inline bool mbox_backlog_hold(struct mbox_backlog *b, u64 msg)
{
	if (!mbox_backlog_room(b))
		return false;
	b->msg[mbox_backlog_slot(b, b->len)] = msg;
	b->len++;
	return true;
}

/* Keep refused MSG behind those refused since the last take, before the rest. */
static inline bool mbox_backlog_refused(struct mbox_backlog *b, u64 msg)
{
	u32 i;

	if (!mbox_backlog_room(b))
		return false;
	for (i = b->len; i > b->refused; i--)
		b->msg[mbox_backlog_slot(b, i)] = b->msg[mbox_backlog_slot(b, i - 1)];
	b->msg[mbox_backlog_slot(b, b->refused)] = msg;
	b->refused++;
	b->len++;
	return true;
}

/* Take the oldest message; false when there is none. */
static inline bool mbox_backlog_take(struct mbox_backlog *b, u64 *msg)
{
	if (!b->len)
		return false;
	*msg = b->msg[b->first];
	b->first = mbox_backlog_slot(b, 1);
	b->len--;
	b->refused = 0;
	return true;
}

/* One destination's outbound state: the driver's, under its queue lock. */
struct mbox_dest {
	struct mbox_backlog backlog;
	u32 posted;		/* in the outbound queue, not yet reaped */
	bool resume;		/* refused: the next post says RESUME */
	bool room;		/* the block said "room" since the last RESUME */
};

enum mbox_take {
	MBOX_TAKE_NONE,		/* not taken: EAGAIN */
	MBOX_TAKE_KEEP,		/* kept behind what the destination keeps */
	MBOX_TAKE_POST,		/* posted now */
};

/*
 * What becomes of a new message for D, the queue having a free slot or
 * not (QUEUE_FREE).  Room always stays for every message of D not yet
 * delivered to come back refused.
 */
static inline enum mbox_take mbox_dest_take(const struct mbox_dest *d,
					    bool queue_free)
{
	if (d->backlog.len + d->posted >= MBOX_BACKLOG_DEPTH)
		return MBOX_TAKE_NONE;
	if (d->backlog.len)
		return MBOX_TAKE_KEEP;
	return queue_free ? MBOX_TAKE_POST : MBOX_TAKE_NONE;
}

/* An entry of D was reaped; REFUSED (BUSY): MSG came back.  False if lost. */
static inline bool mbox_dest_reaped(struct mbox_dest *d, bool refused, u64 msg)
{
	/* An earlier binding's stores were not counted as posted. */
	if (d->posted)
		d->posted--;
	if (!refused)
		return true;
	d->resume = true;
	return mbox_backlog_refused(&d->backlog, msg);
}

/*
 * The next message D keeps, to post now with *FLAGS (EUSRV_MBOX_TXF_*);
 * false if none may go.  After a refusal, only once none of D's refused
 * entries is still in the queue (they come back refused, and are older)
 * and the block said "room" since the last RESUME; that post says RESUME.
 * The room event that follows a refusal may be seen before the refusal
 * is reaped, so reaping does not forget it; one seen too early costs one
 * more refusal, never a loop: every event is the block's.
 */
static inline bool mbox_dest_next(struct mbox_dest *d, u64 *msg, u32 *flags)
{
	if (d->resume && (d->posted || !d->room))
		return false;
	if (!mbox_backlog_take(&d->backlog, msg))
		return false;
	*flags = d->resume ? EUSRV_MBOX_TXF_RESUME : 0;
	if (d->resume)
		d->room = false;
	d->resume = false;
	return true;
}

#endif /* EUSRV_MBOX_BACKLOG_H */
