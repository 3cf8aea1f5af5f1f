/* SPDX-License-Identifier: GPL-2.0 */
/* eusrv_sor: a non-blocking CONNECT in the background, and its turn to TCP (sor_fallback.c). */
#ifndef EUSRV_SOR_FALLBACK_H
#define EUSRV_SOR_FALLBACK_H

#include <linux/types.h>
#include <linux/wait.h>

#include "sor_mem.h"

struct sor_conn;
struct eusrv_sor_connect;

/* A non-blocking CONNECT's set-up, going on in the background (sor_fallback.c). */
struct sor_bg {
	struct sor_conn *conn;
	struct sor_owner owner;		/* the caller, whom the rings are charged to */
	unsigned long deadline;		/* jiffies: given up then */
	bool sized;			/* the rings follow ACCEPT's sizes */
	bool done;			/* the outcome is being made */
	bool settled;			/* ... and the file shows it */
	bool to_tcp;			/* turn to TCP if it fails */
	struct wait_queue_entry tcp_wait; /* on the socket's queue (sor_fallback.c) */
	bool tcp_waiting;		/* ... added */
	bool tcp_started;		/* user space connected the socket */
};

/*
 * Whether C's file still shows a non-blocking CONNECT setting up: nothing
 * to read, no room, no rings to map, whatever the state behind it (which
 * may have failed already, on its way to TCP).
 */
static inline bool sor_fallback_setting_up(const struct sor_bg *bg)
{
	/* Pairs with the release that settles it: c->tcp is set before. */
	return bg && !smp_load_acquire(&bg->settled);
}

/* Whether a background set-up BG is still being made (c->lock held). */
static inline bool sor_fallback_pending(const struct sor_bg *bg)
{
	return bg && !bg->done;
}

struct sor_bg *sor_fallback_new(const struct eusrv_sor_connect *rq);
void sor_fallback_start(struct sor_conn *c, struct sor_bg *bg,
			unsigned long deadline);
void sor_fallback_abandon(struct sor_conn *c);
void sor_fallback_work(struct sor_conn *c);
void sor_fallback_file_gone(struct sor_conn *c);

#endif /* EUSRV_SOR_FALLBACK_H */
