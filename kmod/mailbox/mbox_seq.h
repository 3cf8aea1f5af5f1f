/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Receiver-side bookkeeping of a numbered message stream (the diagnostic
 * flood): received, duplicated, missing and late sequence numbers.  A
 * bitmap remembers which of the last MBOX_SEQ_WINDOW numbers below the
 * highest one arrived, so a late message is told apart from a repeated one.
 * No hardware and no kernel services here, so KUnit and host tests
 * compile it as is.
 */
#ifndef EUSRV_MBOX_SEQ_H
#define EUSRV_MBOX_SEQ_H

#include <linux/types.h>

#define MBOX_SEQ_WINDOW		64U	/* bits in mbox_seq.window */

struct mbox_seq {
	u64 received;
	u64 dup;	/* seen before, or too old to tell */
	u64 gap;	/* numbers below the highest not (yet) seen */
	u64 late;	/* filled a gap: arrived out of order */
	u64 next;	/* highest number seen + 1; streams start at 0 */
	u64 window;	/* bit i set: number next - 1 - i was seen */
};

static inline void mbox_seq_rx(struct mbox_seq *s, u64 seq)
{
	u64 skipped, behind;

	s->received++;
	if (seq >= s->next) {
		skipped = seq - s->next;
		s->gap += skipped;
		if (skipped + 1 >= MBOX_SEQ_WINDOW)
			s->window = 0;
		else
			s->window <<= skipped + 1;
		s->window |= 1;
		s->next = seq + 1;
		return;
	}
	behind = s->next - 1 - seq;
	if (behind >= MBOX_SEQ_WINDOW || (s->window & (1ULL << behind))) {
		s->dup++;
		return;
	}
	s->window |= 1ULL << behind;
	s->late++;
	s->gap--;
}

/* The highest sequence number seen; meaningful once received != 0. */
static inline u64 mbox_seq_last(const struct mbox_seq *s)
{
	return s->next - 1;
}

#endif /* EUSRV_MBOX_SEQ_H */
