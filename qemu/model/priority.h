/*
 * The model's CPU priority.  On the board the engines are logic beside
 * the CPUs; here they are this process, and it needs a host core to move
 * anything.  A reader that spins keeps its vCPU on a core; with every
 * core held so, the model waits for a vCPU's time slice, and the reader's
 * spin runs out.  Preempting a vCPU that spins costs nothing; preempting
 * one that works costs its work.  So the model runs real-time
 * (SCHED_FIFO) while most conditional writes to other nodes' inboxes are
 * skipped (their readers had not armed: they spin or are busy), and as an
 * ordinary process while most are taken (the readers sleep, their vCPUs
 * halted, and the model finds a core free).  Real-time only shortens the
 * model's wake-ups: a model busy nearly all of a window has no use for it
 * and is ordinary, so that no load, a rogue node's included, has a
 * real-time process hold a core.  docs/performance.md has the figures.
 */
#ifndef EUSRV_MODEL_PRIORITY_H
#define EUSRV_MODEL_PRIORITY_H

#include <stdbool.h>
#include <stdint.h>

#include "log.h"

/* How often the counts are judged, and how many make a judgement. */
#define PRIO_WINDOW_US		20000U
#define PRIO_MIN_CONDS		8U
/* Busy for more than this many tenths of a window: ordinary. */
#define PRIO_MAX_BUSY_TENTHS	9U

struct vb_prio {
	bool enabled;			/* false: never real-time */
	bool rt;			/* SCHED_FIFO now */
	uint64_t start_us;		/* this window's start */
	uint64_t taken, skipped;	/* the totals at its start */
	uint64_t cpu_us;		/* the model's CPU time at its start */
	struct log_ratelimit rl;	/* of the switches' log lines */
};

/*
 * The rule, on one window of WINDOW_US in which the model ran BUSY_US:
 * real-time when at least two thirds of the conditional writes were
 * skipped, staying so while at least half are; never on fewer than
 * PRIO_MIN_CONDS, nor when the model ran more than PRIO_MAX_BUSY_TENTHS
 * of the window.
 */
bool vb_prio_want_rt(bool rt, uint64_t taken, uint64_t skipped,
		     uint64_t busy_us, uint64_t window_us);

void vb_prio_init(struct vb_prio *p, bool enabled, uint64_t now_us);

/* A window ended at NOW_US: time for vb_prio_round() (never if off). */
static inline bool vb_prio_due(const struct vb_prio *p, uint64_t now_us)
{
	return p->enabled && now_us - p->start_us >= PRIO_WINDOW_US;
}

/*
 * At the end of a window (vb_prio_due): TAKEN and SKIPPED are the running
 * totals; the rule is applied to them and to the model's CPU time.  A
 * refusal (no CAP_SYS_NICE, no RLIMIT_RTPRIO) is logged once and turns
 * the rule off.
 */
void vb_prio_round(struct vb_prio *p, uint64_t now_us, uint64_t taken,
		   uint64_t skipped);
/* Back to an ordinary process, at exit. */
void vb_prio_fini(struct vb_prio *p);

#endif /* EUSRV_MODEL_PRIORITY_H */
