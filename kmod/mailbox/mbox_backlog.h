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

#endif /* EUSRV_MBOX_BACKLOG_H */
